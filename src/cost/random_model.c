/* The random model (Ansor's RandomModel): uniform scores in [0, 1) from a generator
 * seeded with the model's seed, -inf for samples without feature rows. It never
 * learns; its checkpoint payload is its seed (u64). */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "cost/checkpoint.h"
#include "cost/models.h"
#include "util/rng.h"
#include "util/xalloc.h"

static void randomPredict(CostModel *m, const Dataset *batch, float *scores) {
   Rng *rng = m->impl;
   for (int i = 0; i < batch->n; i++)
      scores[i] = Dataset_rows(batch, i) > 0 ? (float)Rng_uniform(rng) : -INFINITY;
}

static int randomFit(CostModel *m, const Dataset *train, const TrainConfig *cfg, char **cause) {
   return 0;
}

static int randomSave(const CostModel *m, const char *path, char **cause) {
   CheckpointWriter w;
   Checkpoint_create(&w, path, m->kind, m->opKinds);
   Checkpoint_putU64(w.f, m->seed);
   return CostModel_commit(m, &w, cause);
}

static void randomFree(CostModel *m) {
   free(m->impl);
}

static const CostModelOps randomOps = {
   .predict = randomPredict,
   .fit = randomFit,
   .save = randomSave,
   .free = randomFree,
};

CostModel *RandomModel_new(uint64_t seed, char **cause) {
   Rng *rng = xMalloc(sizeof *rng);
   Rng_seed(rng, seed);
   CostModel *m = CostModel_alloc(MODEL_RANDOM, &randomOps, seed, rng);
   m->frozen = true;
   return m;
}

CostModel *RandomModel_load(FILE *f, const char *path, char **cause) {
   uint64_t seed;
   if (Checkpoint_getU64(f, path, "the random model's seed", &seed, cause) < 0)
      return NULL;
   return RandomModel_new(seed, cause);
}
