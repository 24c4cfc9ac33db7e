/* Monotonic wall time in seconds, for timeouts and the times records carry. */
#ifndef HEADER_clock
#define HEADER_clock

#include <time.h>

static inline double Clock_now(void) {
   struct timespec t;
   clock_gettime(CLOCK_MONOTONIC, &t);
   return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#endif
