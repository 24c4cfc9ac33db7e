/* Cost model checkpoints (cost/checkpoint.c and each model's loader, through
 * CostModel_load): any bytes either load a model or say why. */
#include "config.h"

#include "fuzz.h"

#include <stdlib.h>

#include "cost/model.h"
#include "util/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
   char *cause = NULL;
   CostModel *m = CostModel_load(Fuzz_file(data, size), &cause);
   if (!m) {
      if (!cause || !*cause)
         fatal("a checkpoint was refused without a reason");
      free(cause);
      return 0;
   }
   CostModel_free(m);
   return 0;
}
