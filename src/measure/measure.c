/* Names of the measurement error kinds, and the latency of a measurement's costs. */
#include "config.h"

#include "measure/measure.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

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

static int cmpDouble(const void *a, const void *b) {
   double x = *(const double *)a, y = *(const double *)b;
   return x < y ? -1 : x > y;
}

double Measure_median(const double *costs, int n) {
   if (n <= 0)
      return MEASURE_FAILED_COST;
   double *c = xMalloc((size_t)n * sizeof *c);
   memcpy(c, costs, (size_t)n * sizeof *c);
   qsort(c, (size_t)n, sizeof *c, cmpDouble);
   double m = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
   free(c);
   return m;
}
