/* The psa model, Pruner's draft model (pruner.md 1.4): the score of a sample is
 * 1 / its PSA latency estimate in ms (Dataset.psaLatency, computed with the features),
 * -inf where PSA had no rows. A closed form: it never learns and saves no payload. */
#include "config.h"

#include <math.h>

#include "cost/models.h"

static void psaPredict(CostModel *m, const Dataset *batch, float *scores) {
   for (int i = 0; i < batch->n; i++) {
      float ms = batch->psaLatency[i];
      scores[i] = isfinite(ms) && ms > 0 ? 1.0f / ms : -INFINITY;
   }
}

static int psaFit(CostModel *m, const Dataset *train, const TrainConfig *cfg, char **cause) {
   return 0;
}

static void psaFree(CostModel *m) {
}

static const CostModelOps psaOps = {
   .predict = psaPredict,
   .fit = psaFit,
   .save = NULL,
   .free = psaFree,
};

CostModel *PsaModel_new(uint64_t seed, char **cause) {
   CostModel *m = CostModel_alloc(MODEL_PSA, &psaOps, seed, NULL);
   m->frozen = true;
   return m;
}
