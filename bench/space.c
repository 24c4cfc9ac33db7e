/* Benchmark of the schedule space, per core: states sampled and validated per second,
 * states lowered per second, over a network's task mix (each task in turn, the same
 * number of states each), and NVRTC's compile time per kernel. Times are this thread's
 * CPU time, so other work on the machine does not count against it. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cuda.h"
#include "ir/lower.h"
#include "measure/nvrtc.h"
#include "te/network.h"
#include "util/xalloc.h"
#include "mix.h"

static int compareDouble(const void *a, const void *b) {
   double x = *(const double *)a, y = *(const double *)b;
   return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
   const char *file = argc > 1 ? argv[1] : "models/resnet_50.task";
   int perTask = argc > 2 ? atoi(argv[2]) : 2000;
   int compiles = argc > 3 ? atoi(argv[3]) : 2;
   BenchMix mix;
   if (BenchMix_load(&mix, file) < 0)
      return 1;
   const Network *net = &mix.net;
   SketchSet *sets = mix.sets;
   char *cause = NULL;
   SchedLimits lim;
   SchedLimits_default(&lim);
   State *states = xCalloc((size_t)net->ntasks * (size_t)perTask, sizeof *states);
   Rng rng;
   Rng_seed(&rng, 1);

   /* sampling: Ansor's annotation of a random sketch, then the validity checks, until
    * perTask valid states per task; every draw counts as a sample */
   long drawn = 0;
   double t0 = Bench_cpuSeconds();
   for (int t = 0; t < net->ntasks; t++)
      for (int i = 0; i < perTask; i++) {
         State *s = &states[(size_t)t * perTask + i];
         do {
            State_sample(&sets[t], (int)Rng_below(&rng, (uint64_t)sets[t].count), &rng, s);
            drawn++;
         } while (State_validate(&sets[t], s, &lim, NULL) < 0);
      }
   double sampleTime = Bench_cpuSeconds() - t0;
   long valid = (long)net->ntasks * perTask;

   /* lowering the valid states */
   LoopNest ln;
   LoopNest_init(&ln);
   t0 = Bench_cpuSeconds();
   for (int t = 0; t < net->ntasks; t++)
      for (int i = 0; i < perTask; i++)
         Lower_state(&sets[t], &states[(size_t)t * perTask + i], &ln);
   double lowerTime = Bench_cpuSeconds() - t0;

   /* mutation, for the search's sake */
   t0 = Bench_cpuSeconds();
   long mutated = 0;
   for (int t = 0; t < net->ntasks; t++)
      for (int i = 0; i < perTask; i++) {
         State s = states[(size_t)t * perTask + i];
         mutated += State_mutate(&sets[t], &s, &rng, &lim) == 0;
      }
   double mutateTime = Bench_cpuSeconds() - t0;

   printf("task mix: %s, %d tasks, %d valid states each\n", net->name, net->ntasks, perTask);
   printf("sampling:   %ld draws, %ld valid, %.3f s: %.0f valid states/s, %.0f draws/s per core\n", drawn,
          valid, sampleTime, valid / sampleTime, drawn / sampleTime);
   printf("lowering:   %ld states, %.3f s: %.0f states/s per core\n", valid, lowerTime, valid / lowerTime);
   printf("mutation:   %ld attempts (%ld valid mutants), %.3f s: %.0f attempts/s per core\n", valid, mutated,
          mutateTime, valid / mutateTime);

   if (compiles > 0 && Nvrtc_open(&cause) == 0) {
      int n = 0;
      double *secs = xCalloc((size_t)net->ntasks * (size_t)compiles, sizeof *secs);
      for (int t = 0; t < net->ntasks; t++)
         for (int i = 0; i < compiles; i++) {
            Lower_state(&sets[t], &states[(size_t)t * perTask + i], &ln);
            char *src = Cuda_generate(&ln, NULL);
            NvrtcResult r;
            if (Nvrtc_compile(src, "bench.cu", "sm_90", &r, &cause) == 0)
               secs[n++] = r.seconds;
            NvrtcResult_done(&r);
            free(src);
         }
      qsort(secs, (size_t)n, sizeof *secs, compareDouble);
      double sum = 0;
      for (int i = 0; i < n; i++)
         sum += secs[i];
      int major, minor;
      Nvrtc_version(&major, &minor);
      printf("NVRTC %d.%d sm_90: %d kernels, wall time per compile: mean %.3f s, median %.3f s, min %.3f s, max %.3f s\n",
             major, minor, n, sum / n, secs[n / 2], secs[0], secs[n - 1]);
      free(secs);
   } else if (compiles > 0) {
      printf("NVRTC not measured: %s\n", cause);
   }
   LoopNest_done(&ln);
   free(states);
   BenchMix_done(&mix);
   return 0;
}
