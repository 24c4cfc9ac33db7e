/* ONNX models (graph/onnx.c, graph/exec.c, graph/passes.c, graph/fuse.c,
 * graph/import.c): any bytes either import to tasks or say why; an import that succeeds
 * has tasks with keys, weights and FLOPs. */
#include "config.h"

#include "fuzz.h"

#include <stdlib.h>

#include "graph/import.h"
#include "util/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
   Network net;
   ImportSummary sum;
   ImportOptions opt = { NULL, 0, true };   /* the simple tasks too: every mapping runs */
   char *cause = NULL;
   if (Import_onnx(&net, Fuzz_file(data, size), &opt, &sum, &cause) < 0) {
      if (!cause || !*cause)
         fatal("a model was refused without a reason");
      free(cause);
      ImportSummary_done(&sum);
      return 0;
   }
   if (net.ntasks < 1)
      fatal("a model imported with %d tasks", net.ntasks);
   for (int i = 0; i < net.ntasks; i++) {
      const Task *t = &net.tasks[i];
      if (!t->key[0] || t->weight < 1 || !(t->flops >= 0))
         fatal("task %d imported without a key, a weight or its FLOPs", i);
   }
   Network_done(&net);
   ImportSummary_done(&sum);
   return 0;
}
