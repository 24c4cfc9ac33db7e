/* Learned-model benchmark: inference throughput with the features (lowering, the
 * analyses and the network) on two threads, and the online trainer's cost per round
 * and its ranking quality against a full retrain from scratch, on records of the
 * ResNet-50 tasks. Usage: bench-models TASKFILE RECORDS MODEL [rounds-epochs]. */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/metrics.h"
#include "cost/model.h"
#include "cost/nn.h"
#include "cost/online.h"
#include "measure/featurize.h"
#include "measure/record.h"
#include "mix.h"
#include "util/clock.h"
#include "util/rng.h"

#define BATCH 4096

typedef struct {
   const BenchMix *mix;
   CostModel *model;
   int states;                  /* to score */
   uint64_t seed;
   double seconds;
} Scorer;

/* Samples `states` valid states over the tasks, and scores them in batches: lowering,
 * the analyses and the network, as the search will. */
static void *score(void *arg) {
   Scorer *s = arg;
   const BenchMix *mix = s->mix;
   const Network *nets[1] = { &mix->net };
   Featurizer *fz = Featurizer_new(nets, 1, NULL);
   SchedLimits lim;
   SchedLimits_default(&lim);
   Rng rng;
   Rng_seed(&rng, s->seed);
   State *pool = xCalloc(BATCH, sizeof *pool);
   int *taskOf = xCalloc(BATCH, sizeof *taskOf);
   char *cause = NULL;
   for (int i = 0; i < BATCH; i++) {
      taskOf[i] = i % mix->net.ntasks;
      if (State_sampleValid(&mix->sets[taskOf[i]], -1, &rng, &lim, 100000, &pool[i], &cause) < 0)
         fatal("%s", cause);
   }
   Dataset batch;
   Dataset_init(&batch);
   float *scores = xCalloc(BATCH, sizeof *scores);
   double t0 = Clock_now();
   for (int done = 0; done < s->states; done += BATCH) {
      Dataset_clear(&batch);
      int n = s->states - done < BATCH ? s->states - done : BATCH;
      for (int i = 0; i < n; i++)
         Featurizer_addState(fz, &mix->net.tasks[taskOf[i]], &mix->sets[taskOf[i]], &pool[i], NULL, &batch);
      CostModel_predict(s->model, &batch, scores);
   }
   s->seconds = Clock_now() - t0;
   Dataset_done(&batch);
   free(scores);
   free(taskOf);
   free(pool);
   Featurizer_free(fz);
   return NULL;
}

static double pairwise(CostModel *m, const Dataset *test) {
   float *scores = xCalloc((size_t)test->n + 1, sizeof *scores);
   CostModel_predict(m, test, scores);
   RankMetrics r;
   Metrics_weighted(test, scores, NULL, &r);
   free(scores);
   return r.pairwise;
}

/* The first n samples of src (in order), relabelled. */
static void prefix(const Dataset *src, int n, Dataset *out) {
   Dataset_clear(out);
   for (int i = 0; i < n && i < src->n; i++)
      Dataset_addFrom(out, src, i);
   Dataset_relabel(out);
}

int main(int argc, char **argv) {
   Nn_restartForKernels(argv);
   if (argc < 4) {
      fprintf(stderr, "usage: bench-models TASKFILE RECORDS MODEL [EPOCHS-PER-ROUND]\n");
      return 2;
   }
   int kind = ModelKind_parse(argv[3]);
   int roundEpochs = argc > 4 ? atoi(argv[4]) : 5;
   int replayCap = argc > 5 ? atoi(argv[5]) : 300;
   BenchMix mix;
   if (BenchMix_load(&mix, argv[1]) < 0)
      return 1;
   char *cause = NULL, *notice = NULL;
   RecordSet recs;
   RecordSet_init(&recs);
   if (Records_read(argv[2], &recs, &notice, &cause) < 0)
      fatal("%s", cause);
   const Network *nets[1] = { &mix.net };
   Featurizer *fz = Featurizer_new(nets, 1, NULL);
   Dataset all;
   Dataset_init(&all);
   /* in a shuffled order: a tuning run measures every task a little at a time */
   int *order = xCalloc((size_t)recs.count, sizeof *order);
   for (int i = 0; i < recs.count; i++)
      order[i] = i;
   Rng rng;
   Rng_seed(&rng, 7);
   for (int i = recs.count - 1; i > 0; i--) {
      int j = (int)Rng_below(&rng, (uint64_t)i + 1), t = order[i];
      order[i] = order[j];
      order[j] = t;
   }
   for (int i = 0; i < recs.count; i++)
      if (Featurizer_addRecord(fz, &recs.records[order[i]], &all, &cause) < 0)
         fatal("%s", cause);
   Featurizer_free(fz);
   Dataset_relabel(&all);
   printf("model %s, %d records of %d tasks from %s\n", argv[3], all.n, all.ntasks, argv[2]);

   /* the last 20% are the test set; rounds take from the first 80% in order */
   Dataset pool, test, seen;
   Dataset_init(&pool);
   Dataset_init(&test);
   Dataset_init(&seen);
   int ntrain = all.n * 4 / 5;
   for (int i = 0; i < all.n; i++)
      Dataset_addFrom(i < ntrain ? &pool : &test, &all, i);
   Dataset_relabel(&test);

   TrainConfig full;
   TrainConfig_default(&full);
   full.fromScratch = true;
   full.seed = 1;

   /* inference throughput, features included, on two threads */
   CostModel *m = CostModel_new((ModelKind)kind, 1, &cause);
   if (!m)
      fatal("%s", cause);
   prefix(&pool, pool.n, &seen);
   double t0 = Clock_now();
   if (CostModel_fit(m, &seen, &full, &cause) < 0)
      fatal("%s", cause);
   double fullSeconds = Clock_now() - t0;
   double fullPairwise = pairwise(m, &test);
   Scorer sc[2];
   pthread_t th[2];
   for (int i = 0; i < 2; i++) {
      sc[i] = (Scorer){ .mix = &mix, .states = 4 * BATCH, .seed = 100 + (uint64_t)i };
      sc[i].model = i == 0 ? m : CostModel_clone(m, &cause);
      pthread_create(&th[i], NULL, score, &sc[i]);
   }
   double wall = 0;
   for (int i = 0; i < 2; i++) {
      pthread_join(th[i], NULL);
      wall = fmax(wall, sc[i].seconds);
   }
   printf("inference with features on 2 threads: %.0f states/s (%d states per thread)\n",
          (sc[0].states + sc[1].states) / wall, sc[0].states);
   CostModel_free(sc[1].model);
   printf("full retrain from scratch on %d records: %.1f s, held-out pairwise accuracy %.4f\n", seen.n, fullSeconds,
          fullPairwise);
   CostModel_free(m);

   /* the online scheme: rounds of 100 new records, each a warm start of a bounded
    * number of epochs over all records so far, then with a bounded replay: the new
    * records and `replay` earlier ones drawn at random */
   for (int pass = 0; pass < 2; pass++) {
      int replay = pass == 0 ? 0 : replayCap;
      m = CostModel_new((ModelKind)kind, 1, &cause);
      TrainConfig bounded;
      TrainConfig_default(&bounded);
      bounded.epochs = roundEpochs;
      bounded.seed = 1;
      bounded.replay = replay;
      char scheme[64];
      snprintf(scheme, sizeof scheme, replay ? "replay of %d" : "all records", replay);
      OnlineModel *om = OnlineModel_new(m, &bounded);
      Dataset round;
      Dataset_init(&round);
      for (int start = 0; start < pool.n; start += 100) {
         Dataset_clear(&round);
         for (int i = start; i < start + 100 && i < pool.n; i++)
            Dataset_addFrom(&round, &pool, i);
         OnlineModel_update(om, &round);
         double s = OnlineModel_wait(om);
         int have = start + round.n;
         if (have == 500 || have == 1000 || have == 2000 || have >= pool.n)
            printf("online round at %d records, %s: %.3f s (%d epochs, warm start)\n", have, scheme, s,
                   roundEpochs);
      }
      float *scores = xCalloc((size_t)test.n + 1, sizeof *scores);
      OnlineModel_predict(om, &test, scores);
      RankMetrics r;
      Metrics_weighted(&test, scores, NULL, &r);
      printf("online scheme (%s) after %d rounds: held-out pairwise accuracy %.4f (full retrain %.4f, "
             "difference %+.4f)\n",
             scheme, OnlineModel_rounds(om), r.pairwise, fullPairwise, r.pairwise - fullPairwise);
      if (OnlineModel_lastError(om))
         printf("last round failed: %s\n", OnlineModel_lastError(om));
      free(scores);
      Dataset_done(&round);
      OnlineModel_free(om);
   }
   Dataset_done(&seen);
   Dataset_done(&pool);
   Dataset_done(&test);
   Dataset_done(&all);
   free(order);
   RecordSet_done(&recs);
   BenchMix_done(&mix);
   free(notice);
   return 0;
}
