/* What the benchmarks share: a thread's CPU clock, and a network's task mix with each
 * task's DAG and sketches. */
#ifndef HEADER_benchmix
#define HEADER_benchmix

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sched/sketch.h"
#include "te/network.h"
#include "util/xalloc.h"

/* This thread's CPU time: other work on the machine does not count against it. */
static inline double Bench_cpuSeconds(void) {
   struct timespec ts;
   clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
   return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
   Network net;
   Dag *dags;
   SketchSet *sets;
} BenchMix;

/* Loads a task file and builds every task's DAG and sketches; reports and returns -1
 * when the file does not load. */
static inline int BenchMix_load(BenchMix *m, const char *file) {
   char *cause = NULL;
   if (Network_load(&m->net, file, &cause) < 0) {
      fprintf(stderr, "%s\n", cause);
      free(cause);
      return -1;
   }
   m->dags = xCalloc((size_t)m->net.ntasks, sizeof *m->dags);
   m->sets = xCalloc((size_t)m->net.ntasks, sizeof *m->sets);
   for (int t = 0; t < m->net.ntasks; t++) {
      Dag_init(&m->dags[t]);
      Op_buildDag(&m->net.tasks[t].op, &m->dags[t]);
      SketchSet_generate(&m->sets[t], &m->dags[t]);
   }
   return 0;
}

static inline void BenchMix_done(BenchMix *m) {
   for (int t = 0; t < m->net.ntasks; t++) {
      SketchSet_done(&m->sets[t]);
      Dag_done(&m->dags[t]);
   }
   free(m->sets);
   free(m->dags);
   Network_done(&m->net);
}

#endif
