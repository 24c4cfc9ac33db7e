/* What every part of measurement shares: the kinds of error a measurement can end in
 * (Ansor's MeasureErrorNo, ansor.md 6, with our names) and the cost recorded for a
 * failed one. */
#ifndef HEADER_measure
#define HEADER_measure

#include <stdbool.h>

typedef enum {
   MEASURE_OK = 0,
   MEASURE_INSTANTIATION_ERROR = 1,  /* the state could not be lowered */
   MEASURE_COMPILE_ERROR = 2,        /* NVRTC rejected the source (Ansor: COMPILE_HOST) */
   MEASURE_LOAD_ERROR = 3,           /* the driver rejected the CUBIN or the launch
                                        configuration (Ansor: COMPILE_DEVICE) */
   MEASURE_RUNTIME_ERROR = 4,        /* the kernel faulted, or the runner died */
   MEASURE_WRONG_ANSWER = 5,
   MEASURE_BUILD_TIMEOUT = 6,
   MEASURE_RUN_TIMEOUT = 7,
   MEASURE_UNKNOWN_ERROR = 8,        /* the runner broke the protocol, or anything else */
   MEASURE_ERROR_COUNT
} MeasureError;

/* The cost of a failed measurement, in seconds (Ansor's MAX_FLOAT). */
#define MEASURE_FAILED_COST 1e10

/* "ok", "instantiation error", "compile error", "load error", "runtime error",
 * "wrong answer", "build timeout", "run timeout", "unknown error"; NULL out of range. */
const char *MeasureError_name(MeasureError e);
/* The kind whose name is `name`; -1 when none is. */
int MeasureError_parse(const char *name);
/* The latency a measurement reports: the median of its n costs (the mean of the two
 * middle ones for an even n); MEASURE_FAILED_COST for none. */
double Measure_median(const double *costs, int n);

#endif
