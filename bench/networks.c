/* Benchmark of the learned models' networks (mlp, pam): inference throughput in
 * programs per second over batches of NEURAL_PREDICT_BATCH programs (2 to 4 feature
 * rows each, half with a pattern block), PAM with and without the shared pass for
 * blocks without a pattern, and the time of one training epoch (the default recipe:
 * batch 512, LambdaRank, Adam) over 2,000 measured programs; then pam's predictions
 * while another thread trains pam without pause, as with the online trainer; each
 * with OpenBLAS on 1 thread and on every core. The features are random: only the
 * shapes matter here. Times are wall time (OpenBLAS's threads do the work), best of
 * the repeats. */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost/model.h"
#include "cost/nn.h"
#include "cost/neural.h"
#include "util/clock.h"
#include "util/rng.h"
#include "util/xalloc.h"

/* n programs of 2 to 4 rows over 8 tasks, every other one with a pattern block;
 * measured with random costs when measured is set. */
static void programs(Dataset *d, int n, bool measured, uint64_t seed) {
   Rng rng;
   Rng_seed(&rng, seed);
   Dataset_init(d);
   Features *f = xCalloc(1, sizeof *f);
   float workload[WORKLOAD_LEN] = { 0 };
   for (int i = 0; i < n; i++) {
      char key[16];
      snprintf(key, sizeof key, "task%d", i % 8);
      f->nrows = 2 + (int)Rng_below(&rng, 3);
      for (int r = 0; r < f->nrows; r++)
         for (int c = 0; c < FEATURE_LEN; c++)
            f->row[r][c] = (float)(10 * Rng_uniform(&rng));
      f->patternAt = i % 2 ? 0 : -1;
      for (int k = 0; k < PATTERN_LEN; k++)
         for (int c = 0; c < PATTERN_WIDTH; c++)
            f->pattern[k][c] = (float)(10 * Rng_uniform(&rng));
      workload[i % WORKLOAD_LEN] = 1;
      Dataset_add(d, Dataset_task(d, key), f, workload, INFINITY, measured ? 1e-3 * (1 + Rng_uniform(&rng)) : 0);
      workload[i % WORKLOAD_LEN] = 0;
   }
   free(f);
   Dataset_relabel(d);
}

static double predictSeconds(CostModel *m, const Dataset *d, float *scores, int repeats) {
   double best = INFINITY;
   for (int r = 0; r < repeats; r++) {
      double t0 = Clock_now();
      CostModel_predict(m, d, scores);
      double t = Clock_now() - t0;
      best = t < best ? t : best;
   }
   return best;
}

static double epochSeconds(ModelKind kind, const Dataset *train, int repeats) {
   double best = INFINITY;
   char *cause = NULL;
   TrainConfig cfg;
   TrainConfig_default(&cfg);
   cfg.epochs = 1;
   for (int r = 0; r < repeats; r++) {
      CostModel *m = CostModel_new(kind, 1, &cause);
      double t0 = Clock_now();
      if (CostModel_fit(m, train, &cfg, &cause) < 0) {
         fprintf(stderr, "%s\n", cause);
         exit(1);
      }
      double t = Clock_now() - t0;
      best = t < best ? t : best;
      CostModel_free(m);
   }
   return best;
}

typedef struct {
   const Dataset *train;
   volatile bool stop;
   int epochs;
} Trainer;

static void *trainWithoutPause(void *arg) {
   Trainer *t = arg;
   char *cause = NULL;
   TrainConfig cfg;
   TrainConfig_default(&cfg);
   cfg.epochs = 1;
   CostModel *m = CostModel_new(MODEL_PAM, 1, &cause);
   while (!t->stop) {
      CostModel_fit(m, t->train, &cfg, &cause);
      t->epochs++;
   }
   CostModel_free(m);
   return NULL;
}

/* pam's predictions for `seconds` while another thread trains. */
static void predictWhileTraining(const Dataset *d, const Dataset *train, float *scores, double seconds) {
   char *cause = NULL;
   CostModel *m = CostModel_new(MODEL_PAM, 1, &cause);
   CostModel_predict(m, d, scores);
   Trainer t = { train, false, 0 };
   pthread_t thread;
   if (pthread_create(&thread, NULL, trainWithoutPause, &t) != 0)
      exit(1);
   double t0 = Clock_now();
   long scored = 0;
   while (Clock_now() - t0 < seconds) {
      CostModel_predict(m, d, scores);
      scored += d->n;
   }
   double wall = Clock_now() - t0;
   t.stop = true;
   pthread_join(thread, NULL);
   printf("  pam  predict while another thread trains: %9.0f programs/s, and %.2f epochs/s of training\n",
          scored / wall, t.epochs / wall);
   CostModel_free(m);
}

int main(int argc, char **argv) {
   Nn_restartForKernels(argv);
   int batches = argc > 1 ? atoi(argv[1]) : 4;
   int trainSamples = argc > 2 ? atoi(argv[2]) : 2000;
   int repeats = argc > 3 ? atoi(argv[3]) : 3;
   Dataset d, train;
   programs(&d, batches * NEURAL_PREDICT_BATCH, false, 1);
   programs(&train, trainSamples, true, 2);
   float *scores = xMalloc((size_t)d.n * sizeof *scores);
   long cores = sysconf(_SC_NPROCESSORS_ONLN);
   int threads[2] = { 1, cores > 1 ? (int)cores : 1 };
   printf("%d programs to score (%.2f rows each, half with a pattern block); %d to train on\n", d.n,
          (double)d.nrows / d.n, train.n);
   char *cause = NULL;
   for (int t = 0; t < (threads[1] > 1 ? 2 : 1); t++) {
      openblas_set_num_threads(threads[t]);
      printf("\nOpenBLAS threads: %d\n", threads[t]);
      static const ModelKind kinds[] = { MODEL_MLP, MODEL_PAM };
      for (int k = 0; k < 2; k++) {
         CostModel *m = CostModel_new(kinds[k], 1, &cause);
         CostModel_predict(m, &d, scores);   /* grows the scratch once */
         double s = predictSeconds(m, &d, scores, repeats);
         printf("  %-4s predict: %9.0f programs/s (%.1f ms a batch of %d)\n", ModelKind_name(kinds[k]), d.n / s,
                1e3 * s / batches, NEURAL_PREDICT_BATCH);
         if (kinds[k] == MODEL_PAM) {
            NeuralModel_net(m)->sharePattern = false;
            CostModel_predict(m, &d, scores);
            double each = predictSeconds(m, &d, scores, repeats);
            printf("  pam  predict, the pattern branch for every program: %9.0f programs/s (the shared pass "
                   "saves %.0f%%)\n",
                   d.n / each, 100 * (1 - s / each));
         }
         CostModel_free(m);
         double e = epochSeconds(kinds[k], &train, repeats);
         printf("  %-4s train: %.3f s an epoch of %d samples (%.0f samples/s)\n", ModelKind_name(kinds[k]), e, train.n,
                train.n / e);
      }
      predictWhileTraining(&d, &train, scores, 3.0 * repeats);
   }
   free(scores);
   Dataset_done(&d);
   Dataset_done(&train);
   return 0;
}
