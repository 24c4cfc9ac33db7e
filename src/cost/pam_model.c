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
 * the normalization unless the slow copy was never fitted, exactly as a pretrained pam
 * fine-tuned online does. Every PAM_MOA_EVERY-th fit (the 4th, 8th, ...) is a refresh:
 * after the training, every parameter of the slow copy (batch norm's gamma and beta
 * included, its running statistics not) becomes 0.99 slow + 0.01 fast, Pruner's
 * momentum update. The slow copy is the prior the fast network falls back to: before
 * each fit both networks score the samples new since the last one (cfg->fresh, the
 * tail of the data given), which neither has trained on, and the pairs each orders
 * right are counted; at a refresh, when over at least PAM_MOA_MIN_PAIRS pairs the slow
 * copy ordered more than PAM_MOA_MARGIN of them better, the fast network has drifted
 * and starts again as a copy of the slow one before it trains; the counts then start
 * again. Pruner itself refits a copy of the slow network every 4th round on every
 * sample with the whole recipe and never trains in between: a refresh that grows with
 * the data (10 to 14 s by 2,000 trials) and a model that stands still for three
 * rounds of four (bench/RESULTS.md, "Acceptance, with five seeds").
 * A pam-moa made by CostModel_new starts from a freshly initialized slow copy; one
 * made by PamMoa_fromPretrained from a trained pam model's network.
 * Checkpoint payload: u32 updates (fits so far), u32 flags (1: a fast network follows
 * the slow one; 2: the counts follow them), the slow network (cost/neural.h), the fast
 * one when there is one, then u32 pairs, u32 twice the pairs the slow copy ordered
 * right, u32 twice those of the fast network (a tie counts half). A checkpoint with
 * flags 0 or 1 has no counts: they start at 0. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cost/checkpoint.h"
#include "cost/metrics.h"
#include "cost/models.h"
#include "cost/neural.h"
#include "util/xalloc.h"

#define PAM_MOA_EVERY 4
#define PAM_MOA_MOMENTUM 0.99
#define PAM_MOA_MIN_PAIRS 100
#define PAM_MOA_MARGIN 0.05
#define MOA_HAS_FAST 1u
#define MOA_HAS_COUNTS 2u

static const NeuralShape pamShape = { SAMPLE_ROW_LEN, 256, PATTERN_LEN, PATTERN_WIDTH, 64, 128, 4 };

CostModel *PamModel_new(uint64_t seed, char **cause) {
   return NeuralModel_new(MODEL_PAM, &pamShape, seed);
}

CostModel *PamModel_load(FILE *f, const char *path, char **cause) {
   return NeuralModel_load(MODEL_PAM, f, path, cause);
}

/* ---- pam-moa ---- */

typedef struct {
   NeuralNet *slow, *fast;      /* fast NULL before the first fit */
   uint32_t updates;
   uint32_t pairs, slowRight2, fastRight2;      /* since the last refresh; right x 2 */
} PamMoa;

static void moaPredict(CostModel *m, const Dataset *batch, float *scores) {
   PamMoa *s = m->impl;
   NeuralNet_predict(s->fast ? s->fast : s->slow, batch, scores);
}

/* Twice the pairs of recent that net orders right (a tie counts half), over all its
 * tasks; the pairs into *pairs. */
static uint32_t rightPairs2(NeuralNet *net, const Dataset *recent, long *pairs) {
   float *scores = xMalloc((size_t)recent->n * sizeof *scores);
   NeuralNet_predict(net, recent, scores);
   double right = 0;
   *pairs = 0;
   for (int t = 0; t < recent->ntasks; t++) {
      RankMetrics r;
      Metrics_task(recent, scores, t, &r);
      if (r.pairs > 0) {
         right += r.pairwise * (double)r.pairs;
         *pairs += r.pairs;
      }
   }
   free(scores);
   return (uint32_t)lround(2 * right);
}

/* Counts how both networks order the pairs of train's last `fresh` samples. */
static void scoreFresh(PamMoa *s, const Dataset *train, int fresh) {
   if (fresh <= 1 || fresh > train->n)
      return;
   Dataset recent;
   Dataset_init(&recent);
   for (int i = train->n - fresh; i < train->n; i++)
      Dataset_addFrom(&recent, train, i);
   long pairs;
   uint32_t slow2 = rightPairs2(s->slow, &recent, &pairs);
   uint32_t fast2 = rightPairs2(s->fast, &recent, &pairs);
   Dataset_done(&recent);
   if (pairs > UINT32_MAX / 4 - s->pairs)
      return;
   s->pairs += (uint32_t)pairs;
   s->slowRight2 += slow2;
   s->fastRight2 += fast2;
}

static int moaFit(CostModel *m, const Dataset *train, const TrainConfig *cfg, char **cause) {
   PamMoa *s = m->impl;
   bool refresh = ++s->updates % PAM_MOA_EVERY == 0;
   if (!s->fast)
      s->fast = NeuralNet_copy(s->slow);
   else
      scoreFresh(s, train, cfg->fresh);
   if (refresh) {
      if (s->pairs >= PAM_MOA_MIN_PAIRS &&
          (double)s->slowRight2 - (double)s->fastRight2 > 2 * PAM_MOA_MARGIN * (double)s->pairs) {
         NeuralNet_free(s->fast);
         s->fast = NeuralNet_copy(s->slow);
      }
      s->pairs = s->slowRight2 = s->fastRight2 = 0;
   }
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
   Checkpoint_putU32(w.f, MOA_HAS_COUNTS | (s->fast ? MOA_HAS_FAST : 0));
   NeuralNet_write(s->slow, w.f);
   if (s->fast)
      NeuralNet_write(s->fast, w.f);
   Checkpoint_putU32(w.f, s->pairs);
   Checkpoint_putU32(w.f, s->slowRight2);
   Checkpoint_putU32(w.f, s->fastRight2);
   return Checkpoint_commit(&w, cause);
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
   return CostModel_alloc(MODEL_PAM_MOA, &moaOps, seed, s);
}

CostModel *PamMoa_new(uint64_t seed, char **cause) {
   return moaWrap(NeuralNet_new(&pamShape, seed), NULL, 0, seed);
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
   uint32_t updates, flags, counts[3] = { 0, 0, 0 };
   if (Checkpoint_getU32(f, path, "pam-moa's update count", &updates, cause) < 0 ||
       Checkpoint_getU32(f, path, "pam-moa's flags", &flags, cause) < 0)
      return NULL;
   if (flags > (MOA_HAS_FAST | MOA_HAS_COUNTS)) {
      setCause(cause, "%s: pam-moa's flags are %u (0 to 3)", path, flags);
      return NULL;
   }
   NeuralNet *slow = NeuralNet_read(f, path, true, cause), *fast = NULL;
   if (!slow)
      return NULL;
   if ((flags & MOA_HAS_FAST) && !(fast = NeuralNet_read(f, path, true, cause))) {
      NeuralNet_free(slow);
      return NULL;
   }
   if (fast && memcmp(&fast->shape, &slow->shape, sizeof slow->shape) != 0) {
      setCause(cause, "%s: pam-moa's fast network has another shape than its slow one", path);
      NeuralNet_free(slow);
      NeuralNet_free(fast);
      return NULL;
   }
   static const char *const what[3] = { "pam-moa's pair count", "pam-moa's pairs the slow network ordered right",
                                        "pam-moa's pairs the fast network ordered right" };
   for (int k = 0; k < 3 && (flags & MOA_HAS_COUNTS); k++)
      if (Checkpoint_getU32(f, path, what[k], &counts[k], cause) < 0) {
         NeuralNet_free(slow);
         NeuralNet_free(fast);
         return NULL;
      }
   if (counts[1] > 2 * (uint64_t)counts[0] || counts[2] > 2 * (uint64_t)counts[0]) {
      setCause(cause, "%s: pam-moa counts %u and %u half pairs ordered right of %u pairs (at most twice the pairs)",
               path, counts[1], counts[2], counts[0]);
      NeuralNet_free(slow);
      NeuralNet_free(fast);
      return NULL;
   }
   CostModel *m = moaWrap(slow, fast, updates, 0);
   PamMoa *s = m->impl;
   s->pairs = counts[0];
   s->slowRight2 = counts[1];
   s->fastRight2 = counts[2];
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

void PamMoa_counts(const CostModel *m, uint32_t *pairs, uint32_t *slowRight2, uint32_t *fastRight2) {
   const PamMoa *s = m->kind == MODEL_PAM_MOA ? m->impl : NULL;
   if (!s)
      fatal("PamMoa_counts of a %s model", ModelKind_name(m->kind));
   *pairs = s->pairs;
   *slowRight2 = s->slowRight2;
   *fastRight2 = s->fastRight2;
}
