/* The pam and pam-moa models.
 *
 * pam is Pruner's verify model (pruner.md 2.2): a cost/neural.h network with the
 * pattern branch, in_dim 174, hidden 256, the 8 x 23 pattern block through
 * Linear(23, 64) and Linear(64, 128), 4-head self-attention, fuse Linear(384, 256)
 * with batch norm; about 417k parameters. Trained as Pruner does (LambdaRank, Adam
 * 7e-4, weight decay 1e-6, batch 512, clipping 0.5: TrainConfig_default).
 * Checkpoint payload: one network (cost/neural.h), shape 174, 256, 8, 23, 64, 128, 4,
 * 26 parameters.
 *
 * pam-moa is MoA-Pruner (pruner.md 3) with online updates that cost little: a slow
 * (siamese) copy, pretrained elsewhere and never trained itself, and a fast network
 * the model predicts with. The first fit makes the fast network a copy of the slow
 * one; every fit then trains the fast network from where it was, within cfg's bounds
 * (the online trainer's replay and epochs a round; fromScratch is ignored), keeping
 * the normalization unless the slow copy was never fitted: exactly as a pretrained pam
 * fine-tuned online is trained, so that the two predict alike. Every PAM_MOA_EVERY-th
 * fit (the 4th, 8th, ...) is a refresh: after the training, every parameter of the
 * slow copy (batch norm's gamma and beta included, its running statistics not) becomes
 * 0.99 slow + 0.01 fast, Pruner's momentum update, so that the slow copy, which a
 * checkpoint keeps, is the cross-device prior moved slowly toward the target.
 * Pruner itself refits a copy of the slow network every 4th round on every sample with
 * the whole recipe and never trains in between: a refresh that grows with the data
 * (10 to 14 s by 2,000 trials) and a model that stands still three rounds of four.
 * Falling back to the slow copy when it ranked a round's new measurements better was
 * tried and lost: those measurements are the fast network's own picks, on which its
 * ranking is the worse by selection, so it fell back in the first rounds of most runs
 * (bench/RESULTS.md, "MoA").
 * A pam-moa made by CostModel_new starts from a freshly initialized slow copy; one
 * made by PamMoa_fromPretrained from a trained pam model's network.
 * Checkpoint payload: u32 updates (fits so far), u32 1 when there is a fast network
 * (0 before the first fit), the slow network (cost/neural.h), then the fast one when
 * there is one. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cost/checkpoint.h"
#include "cost/models.h"
#include "cost/neural.h"
#include "util/xalloc.h"

#define PAM_MOA_EVERY 4
#define PAM_MOA_MOMENTUM 0.99

static const NeuralShape pamShape = { SAMPLE_ROW_LEN, 256, PATTERN_LEN, PATTERN_WIDTH, 64, 128, 4 };
static const NeuralShape pamDeviceShape = { NEURAL_DEVICE_IN, 256, PATTERN_LEN, PATTERN_WIDTH, 64, 128, 4 };

CostModel *PamModel_new(uint64_t seed, char **cause) {
   return NeuralModel_new(MODEL_PAM, &pamShape, seed);
}

CostModel *PamModel_newDevice(uint64_t seed, char **cause) {
   return NeuralModel_new(MODEL_PAM, &pamDeviceShape, seed);
}

CostModel *PamModel_load(FILE *f, const char *path, char **cause) {
   return NeuralModel_load(MODEL_PAM, f, path, cause);
}

/* ---- pam-moa ---- */

typedef struct {
   NeuralNet *slow, *fast;      /* fast NULL before the first fit */
   uint32_t updates;
} PamMoa;

static void moaPredict(CostModel *m, const Dataset *batch, float *scores) {
   PamMoa *s = m->impl;
   NeuralNet_predict(s->fast ? s->fast : s->slow, batch, scores);
}

static int moaFit(CostModel *m, const Dataset *train, const TrainConfig *cfg, char **cause) {
   PamMoa *s = m->impl;
   bool refresh = ++s->updates % PAM_MOA_EVERY == 0;
   if (!s->fast)
      s->fast = NeuralNet_copy(s->slow);
   TrainConfig warm = *cfg;
   warm.fromScratch = false;
   if (NeuralNet_fit(s->fast, train, &warm, !s->fast->fitted, ModelKind_name(m->kind), cause) < 0)
      return -1;
   if (refresh)
      NeuralNet_momentum(s->slow, s->fast, PAM_MOA_MOMENTUM);
   return 0;
}

static int moaSave(const CostModel *m, const char *path, char **cause) {
   const PamMoa *s = m->impl;
   if (NeuralNet_checkSave(s->slow, path, cause) < 0 || (s->fast && NeuralNet_checkSave(s->fast, path, cause) < 0))
      return -1;
   CheckpointWriter w;
   Checkpoint_create(&w, path, m->kind, m->opKinds);
   Checkpoint_putU32(w.f, s->updates);
   Checkpoint_putU32(w.f, s->fast != NULL);
   NeuralNet_write(s->slow, w.f);
   if (s->fast)
      NeuralNet_write(s->fast, w.f);
   return CostModel_commit(m, &w, cause);
}

static void moaFree(CostModel *m) {
   PamMoa *s = m->impl;
   NeuralNet_free(s->slow);
   NeuralNet_free(s->fast);
   free(s);
}

static const CostModelOps moaOps = {
   .predict = moaPredict,
   .fit = moaFit,
   .save = moaSave,
   .free = moaFree,
};

static CostModel *moaWrap(NeuralNet *slow, NeuralNet *fast, uint32_t updates, uint64_t seed) {
   PamMoa *s = xCalloc(1, sizeof *s);
   s->slow = slow;
   s->fast = fast;
   s->updates = updates;
   CostModel *m = CostModel_alloc(MODEL_PAM_MOA, &moaOps, seed, s);
   m->readsDevice = slow->shape.in == NEURAL_DEVICE_IN;
   return m;
}

CostModel *PamMoa_new(uint64_t seed, char **cause) {
   return moaWrap(NeuralNet_new(&pamShape, seed), NULL, 0, seed);
}

CostModel *PamMoa_newDevice(uint64_t seed, char **cause) {
   return moaWrap(NeuralNet_new(&pamDeviceShape, seed), NULL, 0, seed);
}

CostModel *PamMoa_fromPretrained(const CostModel *pam, char **cause) {
   const NeuralNet *net = pam->kind == MODEL_PAM ? NeuralModel_net(pam) : NULL;
   if (!net) {
      setCause(cause, "pam-moa starts from a pam model, not from %s", ModelKind_name(pam->kind));
      return NULL;
   }
   CostModel *m = moaWrap(NeuralNet_copy(net), NULL, 0, pam->seed);
   m->trained = pam->trained;
   m->opKinds = pam->opKinds;
   return m;
}

CostModel *PamMoa_load(FILE *f, const char *path, char **cause) {
   uint32_t updates, hasFast;
   if (Checkpoint_getU32(f, path, "pam-moa's update count", &updates, cause) < 0 ||
       Checkpoint_getU32(f, path, "pam-moa's fast-network flag", &hasFast, cause) < 0)
      return NULL;
   if (hasFast > 1) {
      setCause(cause, "%s: pam-moa's fast-network flag is %u (0 or 1)", path, hasFast);
      return NULL;
   }
   NeuralNet *slow = NeuralNet_read(f, path, true, cause), *fast = NULL;
   if (!slow)
      return NULL;
   if (hasFast && !(fast = NeuralNet_read(f, path, true, cause))) {
      NeuralNet_free(slow);
      return NULL;
   }
   if (fast && memcmp(&fast->shape, &slow->shape, sizeof slow->shape) != 0) {
      setCause(cause, "%s: pam-moa's fast network has another shape than its slow one", path);
      NeuralNet_free(slow);
      NeuralNet_free(fast);
      return NULL;
   }
   CostModel *m = moaWrap(slow, fast, updates, 0);
   m->trained = slow->fitted || fast;
   return m;
}

void PamMoa_state(const CostModel *m, NeuralNet **slow, NeuralNet **fast, uint32_t *updates) {
   const PamMoa *s = m->kind == MODEL_PAM_MOA ? m->impl : NULL;
   if (!s)
      fatal("PamMoa_state of a %s model", ModelKind_name(m->kind));
   *slow = s->slow;
   *fast = s->fast;
   *updates = s->updates;
}

