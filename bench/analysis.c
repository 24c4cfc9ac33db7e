/* Benchmark of the analyses, per core, over a network's task mix (the same number of
 * valid states of every task, each task in turn): lowering alone, lowering plus PSA's
 * symbols and score, lowering plus the full feature extraction (Ansor's rows, the
 * pattern block), and lowering plus both in one walk, as the search runs them. Times
 * are this thread's CPU time. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "cost/analysis.h"
#include "ir/lower.h"
#include "te/network.h"
#include "util/xalloc.h"
#include "mix.h"

enum { LOWER_ONLY, WITH_PSA, WITH_FEATURES, WITH_BOTH, MODES };

int main(int argc, char **argv) {
   const char *file = argc > 1 ? argv[1] : "models/resnet_50.task";
   int perTask = argc > 2 ? atoi(argv[2]) : 2000;
   int repeats = argc > 3 ? atoi(argv[3]) : 3;
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
   for (int t = 0; t < net->ntasks; t++) {
      for (int i = 0; i < perTask; i++)
         if (State_sampleValid(&sets[t], -1, &rng, &lim, 1000000, &states[(size_t)t * perTask + i], &cause) < 0) {
            fprintf(stderr, "task %d: %s\n", t, cause);
            return 1;
         }
   }
   PsaParams params = { 19490, 1555, 108, 1, 4, 32, 128 };   /* Pruner's a100_40 */
   LoopNest ln;
   LoopNest_init(&ln);
   Analysis *a = Analysis_new();
   PsaSymbols *psa = xMalloc(sizeof *psa);
   Features *f = xMalloc(sizeof *f);
   /* warm the caches and the arena's memory once */
   for (int t = 0; t < net->ntasks; t++)
      for (int i = 0; i < perTask; i++) {
         Lower_state(&sets[t], &states[(size_t)t * perTask + i], &ln);
         Analysis_run(a, &ln, psa, f);
      }
   double best[MODES];
   double sink = 0;
   long rows = 0;
   for (int m = 0; m < MODES; m++) {
      best[m] = 1e30;
      /* the modes take turns over the repeats; the best (least disturbed) run counts */
      for (int r = 0; r < repeats; r++) {
         double t0 = Bench_cpuSeconds();
         for (int t = 0; t < net->ntasks; t++)
            for (int i = 0; i < perTask; i++) {
               Lower_state(&sets[t], &states[(size_t)t * perTask + i], &ln);
               switch (m) {
               case LOWER_ONLY: sink += ln.nstmt; break;
               case WITH_PSA:
                  Analysis_run(a, &ln, psa, NULL);
                  sink += Psa_score(psa, &params);
                  break;
               case WITH_FEATURES:
                  Analysis_run(a, &ln, NULL, f);
                  rows += f->nrows;
                  sink += f->row[0][1];
                  break;
               case WITH_BOTH:
                  Analysis_run(a, &ln, psa, f);
                  sink += Psa_score(psa, &params) + f->row[0][1];
                  break;
               }
            }
         double dt = Bench_cpuSeconds() - t0;
         if (dt < best[m])
            best[m] = dt;
      }
   }
   long n = (long)net->ntasks * perTask;
   static const char *const what[MODES] = {
      "lowering alone", "lowering + PSA symbols and score", "lowering + features (164 x rows, 8 x 23)",
      "lowering + PSA + features (one walk)",
   };
   printf("task mix: %s, %d tasks, %d valid states each (%ld states), best of %d runs\n", net->name,
          net->ntasks, perTask, n, repeats);
   for (int m = 0; m < MODES; m++)
      printf("%-42s %8.3f s  %9.0f states/s per core\n", what[m], best[m], n / best[m]);
   printf("feature rows per state: %.2f (checksum %.3g)\n", (double)rows / ((double)n * repeats), sink);
   free(f);
   free(psa);
   Analysis_free(a);
   LoopNest_done(&ln);
   free(states);
   BenchMix_done(&mix);
   return 0;
}
