/* Names of the measurement error kinds. */
#include "config.h"

#include "measure/measure.h"

#include <string.h>

static const char *const errorNames[MEASURE_ERROR_COUNT] = {
   [MEASURE_OK] = "ok",
   [MEASURE_INSTANTIATION_ERROR] = "instantiation error",
   [MEASURE_COMPILE_ERROR] = "compile error",
   [MEASURE_LOAD_ERROR] = "load error",
   [MEASURE_RUNTIME_ERROR] = "runtime error",
   [MEASURE_WRONG_ANSWER] = "wrong answer",
   [MEASURE_BUILD_TIMEOUT] = "build timeout",
   [MEASURE_RUN_TIMEOUT] = "run timeout",
   [MEASURE_UNKNOWN_ERROR] = "unknown error",
};

const char *MeasureError_name(MeasureError e) {
   return (unsigned)e < MEASURE_ERROR_COUNT ? errorNames[e] : NULL;
}

int MeasureError_parse(const char *name) {
   for (int i = 0; i < MEASURE_ERROR_COUNT; i++)
      if (strcmp(errorNames[i], name) == 0)
         return i;
   return -1;
}
