/* Benchmark of measurement over a network's task mix: the build pool's compile
 * throughput (kernels per second, NVRTC, cache off) on one thread and on every core,
 * side by side on the same distinct programs. Each section is one function of the
 * programs; main runs them in turn. Throughput is wall time: the work is spread over
 * threads. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "codegen/cuda.h"
#include "ir/lower.h"
#include "measure/builder.h"
#include "te/network.h"
#include "util/xalloc.h"
#include "mix.h"

/* Every program of the run: up to perTask states of each task, lowered and generated,
 * no two sources alike. */
typedef struct {
   int n;
   char **sources;
   char **names;
} Programs;

static double wallSeconds(void) {
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double processCpuSeconds(void) {
   struct timespec ts;
   clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
   return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static bool seenBefore(const Programs *p, const char *source) {
   for (int i = 0; i < p->n; i++)
      if (strcmp(p->sources[i], source) == 0)
         return true;
   return false;
}

static void Programs_done(Programs *p) {
   for (int i = 0; i < p->n; i++) {
      free(p->sources[i]);
      free(p->names[i]);
   }
   free(p->sources);
   free(p->names);
}

static int Programs_make(Programs *p, const BenchMix *mix, int perTask) {
   const Network *net = &mix->net;
   int cap = net->ntasks * perTask;
   p->n = 0;
   p->sources = xCalloc((size_t)cap, sizeof *p->sources);
   p->names = xCalloc((size_t)cap, sizeof *p->names);
   SchedLimits lim;
   SchedLimits_default(&lim);
   Rng rng;
   Rng_seed(&rng, 1);
   LoopNest ln;
   LoopNest_init(&ln);
   char *cause = NULL;
   for (int t = 0; t < net->ntasks; t++) {
      /* a task with few knobs (the pools) may have fewer distinct programs */
      for (int i = 0, misses = 0; i < perTask && misses < 1000;) {
         State s;
         if (State_sampleValid(&mix->sets[t], -1, &rng, &lim, 1000000, &s, &cause) < 0) {
            fprintf(stderr, "task %d: %s\n", t, cause);
            free(cause);
            LoopNest_done(&ln);
            Programs_done(p);
            return -1;
         }
         Lower_state(&mix->sets[t], &s, &ln);
         char *src = Cuda_generate(&ln, NULL);
         if (seenBefore(p, src)) {
            free(src);
            misses++;
            continue;
         }
         p->sources[p->n] = src;
         p->names[p->n] = xAsprintf("task%d_%d.cu", t, i);
         p->n++;
         i++;
      }
   }
   LoopNest_done(&ln);
   return 0;
}

typedef struct {
   int threads;
   double wall, cpu;
   BuilderStats stats;
} BuildRun;

/* Every program through a fresh pool of `threads` with the cache off; -1 when the pool
 * does not start. */
static int buildAll(const Programs *p, const char *arch, int threads, BuildRun *run) {
   BuilderConfig cfg;
   BuilderConfig_default(&cfg);
   cfg.threads = threads;
   snprintf(cfg.arch, sizeof cfg.arch, "%s", arch);
   cfg.cacheEntries = 0;
   /* long enough that every compile runs to the end: throughput, not Ansor's cut-off */
   cfg.timeoutSeconds = 600;
   char *cause = NULL;
   Builder *b = Builder_new(&cfg, &cause);
   if (!b) {
      printf("builder: not measured: %s\n", cause);
      free(cause);
      return -1;
   }
   BuildRequest *reqs = xCalloc((size_t)p->n, sizeof *reqs);
   for (int i = 0; i < p->n; i++) {
      reqs[i].source = p->sources[i];
      reqs[i].name = p->names[i];
   }
   double w0 = wallSeconds(), c0 = processCpuSeconds();
   Builder_build(b, reqs, p->n);
   run->wall = wallSeconds() - w0;
   run->cpu = processCpuSeconds() - c0;
   run->threads = Builder_threads(b);
   Builder_stats(b, &run->stats);
   bool told = false;
   for (int i = 0; i < p->n; i++) {
      if (reqs[i].error != MEASURE_OK && !told) {
         fprintf(stderr, "first failure: %s\n", reqs[i].message);
         told = true;
      }
      BuildRequest_done(&reqs[i]);
   }
   free(reqs);
   Builder_free(b);
   return 0;
}

static void builderSection(const Programs *p, const char *arch) {
   int major = 0, minor = 0;
   if (Nvrtc_version(&major, &minor) < 0) {
      char *cause = NULL;
      Nvrtc_open(&cause);
      printf("builder: not measured: %s\n", cause);
      free(cause);
      return;
   }
   /* NVRTC's first compile in a process pays for loading its builtins: not timed. */
   BuildRun warm;
   Programs first = { 1, p->sources, p->names };
   if (buildAll(&first, arch, 1, &warm) < 0)
      return;
   long cores = sysconf(_SC_NPROCESSORS_ONLN);
   int counts[2] = { 1, cores > 1 ? (int)cores : 1 };
   BuildRun runs[2];
   for (int k = 0; k < 2; k++)
      if (buildAll(p, arch, counts[k], &runs[k]) < 0)
         return;
   printf("builder: NVRTC %d.%d, %s, %d distinct kernels, cache off\n", major, minor, arch, p->n);
   printf("  %-8s %10s %12s %10s %8s %8s %8s\n", "threads", "wall s", "kernels/s", "CPU s",
          "speedup", "errors", "timeouts");
   for (int k = 0; k < 2; k++) {
      const BuildRun *r = &runs[k];
      printf("  %-8d %10.2f %12.2f %10.2f %7.2fx %8ld %8ld\n", r->threads, r->wall,
             p->n / r->wall, r->cpu, runs[0].wall / r->wall, r->stats.errors, r->stats.timeouts);
   }
   printf("  mean NVRTC wall time per kernel: %.3f s on 1 thread, %.3f s on %d\n",
          runs[0].stats.compileSeconds / p->n, runs[1].stats.compileSeconds / p->n,
          runs[1].threads);
}

int main(int argc, char **argv) {
   const char *file = argc > 1 ? argv[1] : "models/resnet_50.task";
   int perTask = argc > 2 ? atoi(argv[2]) : 4;
   const char *arch = argc > 3 ? argv[3] : "sm_90";
   if (perTask < 1) {
      fprintf(stderr, "bench-measure: states per task must be 1 or more\n");
      return 2;
   }
   BenchMix mix;
   if (BenchMix_load(&mix, file) < 0)
      return 1;
   Programs programs;
   if (Programs_make(&programs, &mix, perTask) < 0)
      return 1;
   printf("task mix: %s, %d tasks, up to %d distinct programs per task: %d programs\n",
          mix.net.name, mix.net.ntasks, perTask, programs.n);
   builderSection(&programs, arch);
   Programs_done(&programs);
   BenchMix_done(&mix);
   return 0;
}
