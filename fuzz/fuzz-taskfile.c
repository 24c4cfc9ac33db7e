/* Task files (te/network.c): any bytes either load or say why; a task that loads has
 * a key, a description and sketches the tuner can search. */
#include "config.h"

#include "fuzz.h"

#include <stdlib.h>

#include "sched/sketch.h"
#include "te/network.h"
#include "util/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
   Network net;
   char *cause = NULL;
   if (Network_loadString(&net, "fuzz.task", (const char *)data, size, &cause) < 0) {
      if (!cause || !*cause)
         fatal("a task file was refused without a reason");
      free(cause);
      return 0;
   }
   if (net.ntasks < 1)
      fatal("a task file loaded with %d tasks", net.ntasks);
   for (int i = 0; i < net.ntasks; i++) {
      const Task *t = &net.tasks[i];
      char buf[256];
      Op_describe(&t->op, buf, sizeof buf);
      if (!t->key[0])
         fatal("task %d loaded without a key", i);
      SketchSet set;
      SketchSet_forOp(&set, &t->op);
      SketchSet_done(&set);
   }
   Network_done(&net);
   return 0;
}
