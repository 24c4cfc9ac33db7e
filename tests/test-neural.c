/* The mlp, pam and pam-moa models (cost/neural.h, cost/mlp_model.c,
 * cost/pam_model.c): the gradients of whole networks against central differences,
 * the paper's shapes, the pattern-branch shortcut, the normalization rules, training
 * (errors, progress, early stop, determinism, learning a synthetic task), MoA's
 * refresh and momentum update, and checkpoints (layout, exact reloads and clones,
 * every error for a damaged file, values that are not finite, every byte changed). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "cost/checkpoint.h"
#include "cost/metrics.h"
#include "cost/model.h"
#include "cost/models.h"
#include "cost/neural.h"
#include "util/rng.h"
#include "util/xalloc.h"


/* Small widths for the gradient checks and MoA; the rows and blocks are the real ones. */
static const NeuralShape tinyPam = { SAMPLE_ROW_LEN, 8, PATTERN_LEN, PATTERN_WIDTH, 4, 8, 2 };
static const NeuralShape tinyMlp = { SAMPLE_ROW_LEN, 8, 0, 0, 0, 0, 0 };

/* n samples of one task with 1 to 3 rows of values in [-1, 1) in every column, the
 * even ones with a pattern block of values in [0, 1), the odd ones without; labels
 * 0.1, 0.2, ... in a shuffled order, and costs that make them measured. */
static void randomSamples(Dataset *d, int n, uint64_t seed) {
   Rng rng;
   Rng_seed(&rng, seed);
   Dataset_init(d);
   int t = Dataset_task(d, "t");
   Features *f = xCalloc(1, sizeof *f);
   float workload[WORKLOAD_LEN];
   for (int i = 0; i < n; i++) {
      f->nrows = 1 + (int)Rng_below(&rng, 3);
      for (int r = 0; r < f->nrows; r++)
         for (int c = 0; c < FEATURE_LEN; c++)
            f->row[r][c] = (float)(2 * Rng_uniform(&rng) - 1);
      for (int c = 0; c < WORKLOAD_LEN; c++)
         workload[c] = (float)(2 * Rng_uniform(&rng) - 1);
      f->patternAt = i % 2 == 0 ? 0 : -1;
      for (int k = 0; k < PATTERN_LEN; k++)
         for (int c = 0; c < PATTERN_WIDTH; c++)
            f->pattern[k][c] = (float)Rng_uniform(&rng);
      Dataset_add(d, t, f, workload, INFINITY, 1);
   }
   for (int i = 0; i < n; i++)
      d->label[i] = (float)(0.1 * (1 + (i * 7) % n));
   free(f);
}

/* ---- gradients of whole networks ---- */


typedef struct {
   NeuralNet *net;
   const Dataset *d;
   const int *samples;
   int n;
   bool lambdaRank;             /* else the probe sum(r * score) */
   const float *r;
   float *scores, *dscore;
} Probe;

/* The ReLU units' activity and, for LambdaRank, the order of the scores: the
 * loss is smooth while neither changes. */
static uint64_t probePiece(void *ctx) {
   Probe *p = ctx;
   uint64_t h = NeuralNet_reluSignature(p->net);
   if (p->lambdaRank)
      for (int i = 0; i < p->n; i++)
         for (int j = 0; j < p->n; j++)
            h = h * 3 + (p->scores[i] > p->scores[j]);
   return h;
}

static double probeLoss(void *ctx) {
   Probe *p = ctx;
   NeuralNet_forward(p->net, p->d, p->samples, p->n, true, p->scores);
   if (p->lambdaRank)
      return Nn_lambdaRank(p->scores, p->d->label, p->n, p->dscore);
   double s = 0;
   for (int i = 0; i < p->n; i++)
      s += (double)p->r[i] * p->scores[i];
   return s;
}

/* Every parameter's gradient from backward against finite differences of the loss
 * (LambdaRank over the batch, or the probe), on 6 samples: 3 with pattern blocks, 3
 * without (which share one pass of the pattern branch). The checks are directional
 * (TestUtil_checkDirectional): the network is deep enough in float that one
 * element's difference is mostly noise. Errors are measured against the larger of a
 * tensor's gradient norm and a hundredth of the largest tensor's, since invariances
 * make some gradients vanish: LambdaRank sees only differences of scores (the last
 * bias), softmax only differences of a row's logits (the key bias), and batch norm
 * removes a shift common to the batch (the fuse bias, the attention's value and
 * output biases, with every fuse unit active). */
static void checkNetwork(const NeuralShape *shape, bool lambdaRank, uint64_t seed) {
   enum { N = 6 };
   Dataset d;
   randomSamples(&d, N, seed);
   NeuralNet *net = NeuralNet_new(shape, seed + 1);
   if (net->pattern) {
      /* batch norm over six samples is well conditioned only when its inputs vary:
       * fuse biases that keep every unit active; gamma and beta away from 1 and 0;
       * queries and keys larger than at initialization, so that attention matters */
      TestUtil_fillRandom(net->fuse.b.w, (size_t)shape->hidden, seed + 2, 4, 5);
      TestUtil_fillRandom(net->norm.gamma.w, (size_t)shape->hidden, seed + 3, 0.5f, 1.5f);
      TestUtil_fillRandom(net->norm.beta.w, (size_t)shape->hidden, seed + 4, -0.5f, 0.5f);
      TestUtil_fillRandom(net->attention.Wq.w, NnParam_size(&net->attention.Wq), seed + 5, -1, 1);
      TestUtil_fillRandom(net->attention.Wk.w, NnParam_size(&net->attention.Wk), seed + 6, -1, 1);
   }
   static const int samples[N] = { 0, 1, 2, 3, 4, 5 };
   static const float r[N] = { 0.7f, -1.1f, 0.9f, 0.4f, -0.6f, 1.3f };
   float scores[N], dscore[N];
   Probe p = { net, &d, samples, N, lambdaRank, r, scores, dscore };
   TestObjective o = { probeLoss, &p, probePiece };
   for (int k = 0; k < net->nparams; k++)
      NnParam_zeroGrad(net->params[k]);
   double loss = probeLoss(&p);
   if (lambdaRank)
      assert_true(loss > 0);
   else
      memcpy(dscore, r, sizeof r);
   NeuralNet_backward(net, dscore);
   double largest = 0;
   for (int k = 0; k < net->nparams; k++) {
      double sq = 0;
      for (size_t i = 0; i < NnParam_size(net->params[k]); i++)
         sq += (double)net->params[k]->g[i] * net->params[k]->g[i];
      largest = fmax(largest, sqrt(sq));
   }
   for (int k = 0; k < net->nparams; k++) {
      NnParam *q = net->params[k];
      TestUtil_checkDirectional(q->name, &o, q->w, q->g, NnParam_size(q), 1e-2 * largest, seed + 20 + (uint64_t)k);
   }
   NeuralNet_free(net);
   Dataset_done(&d);
}

static void test_pam_gradients(void **state) {
   checkNetwork(&tinyPam, false, 10);
   checkNetwork(&tinyPam, true, 20);
}

static void test_mlp_gradients(void **state) {
   checkNetwork(&tinyMlp, false, 30);
   checkNetwork(&tinyMlp, true, 40);
}

/* ---- the paper's networks ---- */

static size_t countParams(const NeuralNet *net) {
   size_t n = 0;
   for (int k = 0; k < net->nparams; k++)
      n += NnParam_size(net->params[k]);
   return n;
}

static void test_paper_shapes(void **state) {
   char *cause = NULL;
   CostModel *pam = CostModel_new(MODEL_PAM, 1, &cause), *mlp = CostModel_new(MODEL_MLP, 1, &cause);
   NeuralNet *p = NeuralModel_net(pam), *m = NeuralModel_net(mlp);
   static const char *const pamNames[NEURAL_MAX_PARAMS] = {
      "stmt1.weight", "stmt1.bias",  "stmt2.weight", "stmt2.bias",  "pattern1.weight", "pattern1.bias",
      "pattern2.weight", "pattern2.bias", "attention.Wq", "attention.bq", "attention.Wk", "attention.bk",
      "attention.Wv", "attention.bv", "attention.Wo", "attention.bo", "fuse.weight", "fuse.bias",
      "norm.weight", "norm.bias", "res0.weight", "res0.bias", "res1.weight", "res1.bias", "out.weight",
      "out.bias",
   };
   assert_int_equal(p->nparams, 26);
   for (int k = 0; k < p->nparams; k++)
      assert_string_equal(p->params[k]->name, pamNames[k]);
   /* pruner.md 2.2: about 417k parameters */
   assert_int_equal(countParams(p), 417409);
   assert_int_equal(p->fuse.in, 384);
   assert_int_equal(p->attention.heads, 4);
   assert_int_equal(m->nparams, 10);
   assert_string_equal(m->params[4]->name, "res0.weight");
   assert_int_equal(countParams(m), 242433);
   assert_true(p->pattern && !m->pattern);
   assert_false(p->fitted || pam->trained || pam->frozen);
   /* a sample without rows scores -inf; others a finite score */
   Dataset d;
   randomSamples(&d, 3, 5);
   Dataset_add(&d, 0, NULL, NULL, INFINITY, 0);
   float s[4];
   CostModel_predict(pam, &d, s);
   assert_true(isfinite(s[0]) && isfinite(s[1]) && isfinite(s[2]));
   assert_true(isinf(s[3]) && s[3] < 0);
   CostModel_predict(mlp, &d, s);
   assert_true(isinf(s[3]) && s[3] < 0);
   /* the same seed, the same network; another seed, another */
   CostModel *again = CostModel_new(MODEL_PAM, 1, &cause), *other = CostModel_new(MODEL_PAM, 2, &cause);
   TestUtil_assertSameScores(pam, again, &d);
   float t[4];
   CostModel_predict(pam, &d, s);
   CostModel_predict(other, &d, t);
   assert_true(s[0] != t[0]);
   CostModel_free(again);
   CostModel_free(other);
   CostModel_free(pam);
   CostModel_free(mlp);
   Dataset_done(&d);
}

/* ---- the pattern-branch shortcut ---- */

static void test_pattern_shortcut(void **state) {
   /* more than one prediction batch, half the samples without a pattern block */
   enum { N = NEURAL_PREDICT_BATCH + 700 };
   Dataset d;
   randomSamples(&d, N, 6);
   char *cause = NULL;
   CostModel *m = CostModel_new(MODEL_PAM, 3, &cause);
   NeuralNet *net = NeuralModel_net(m);
   /* running statistics other than 0 and 1, as a trained network has */
   TestUtil_fillRandom(net->norm.runMean, 256, 7, -0.5f, 0.5f);
   TestUtil_fillRandom(net->norm.runVar, 256, 8, 0.5f, 2.0f);
   float *shared = xMalloc(N * sizeof *shared), *each = xMalloc(N * sizeof *each);
   assert_true(net->sharePattern);
   NeuralNet_predict(net, &d, shared);
   net->sharePattern = false;
   NeuralNet_predict(net, &d, each);
   assert_memory_equal(shared, each, N * sizeof *shared);
   /* a training pass shares one sequence of its batch instead: the same scores but
    * for rounding (a BLAS's may depend on where a row sits in a matrix) */
   int *samples = xMalloc(512 * sizeof *samples);
   for (int i = 0; i < 512; i++)
      samples[i] = i;
   NeuralNet_forward(net, &d, samples, 512, true, each);
   net->sharePattern = true;
   NeuralNet_forward(net, &d, samples, 512, true, shared);
   TestUtil_assertClose(shared, each, 512, 1e-5, 1e-6);
   /* the scores do depend on the pattern blocks: the first sample's changes, the
    * others' only by rounding, since the batch's matrices changed */
   NeuralNet_predict(net, &d, shared);
   memset(d.pattern, 0, SAMPLE_PATTERN_LEN * sizeof *d.pattern);
   NeuralNet_predict(net, &d, each);
   assert_true(fabsf(shared[0] - each[0]) > 1e-3f);
   TestUtil_assertClose(shared + 1, each + 1, N - 1, 1e-5, 1e-6);
   free(samples);
   free(shared);
   free(each);
   CostModel_free(m);
   Dataset_done(&d);
}

/* ---- training ---- */

static void smallConfig(TrainConfig *cfg, int epochs, int batch) {
   TrainConfig_default(cfg);
   cfg->epochs = epochs;
   cfg->batch = batch;
   cfg->seed = 4;
}

/* Programs of 1 to 4 rows with the task's workload embedding, every other one with a
 * pattern block (TestUtil_synthetic). */
static void synthetic(Dataset *d, int tasks, int programs, int failEvery, uint64_t seed) {
   TestSynthetic spec = { .tasks = tasks, .programs = programs, .minRows = 1, .failEvery = failEvery,
                          .patterns = true, .workload = true, .seed = seed };
   TestUtil_synthetic(d, &spec);
}

/* Column c's max over the rows of the measured samples with rows, as the
 * normalization takes it (1 where it is not above 0). */
static float columnMax(const Dataset *d, int c) {
   float max = 0;
   for (int i = 0; i < d->n; i++)
      if (Dataset_measured(d, i))
         for (int r = 0; r < Dataset_rows(d, i); r++)
            max = fmaxf(max, Dataset_row(d, i, r)[c]);
   return max > 0 ? max : 1;
}

static void test_normalization(void **state) {
   Dataset a, b;
   synthetic(&a, 2, 40, 5, 1);
   synthetic(&b, 2, 40, 5, 2);
   /* rows scaled differently in b */
   for (int i = 0; i < b.nrows; i++)
      b.rows[(size_t)i * SAMPLE_ROW_LEN] *= 3;
   char *cause = NULL;
   CostModel *m = CostModel_new(MODEL_PAM, 1, &cause);
   NeuralNet *net = NeuralModel_net(m);
   assert_true(net->rowNorm[0] == 1 && net->patNorm[0] == 1);
   TrainConfig cfg;
   smallConfig(&cfg, 1, 32);
   /* the first fit computes it, though it is a warm start */
   assert_int_equal(CostModel_fit(m, &a, &cfg, &cause), 0);
   assert_true(net->fitted && m->trained);
   assert_true(net->rowNorm[0] == columnMax(&a, 0));
   assert_true(net->rowNorm[1] == columnMax(&a, 1));
   assert_true(net->rowNorm[FEATURE_LEN] == 1);      /* the workload one-hot */
   assert_true(net->rowNorm[20] == 1);               /* a column of zeros */
   float pat = 0;
   for (int i = 0; i < a.n; i++)
      for (int k = 0; k < PATTERN_LEN; k++)
         pat = fmaxf(pat, a.pattern[(size_t)i * SAMPLE_PATTERN_LEN + k * PATTERN_WIDTH + 5]);
   assert_true(pat > 0.9f && net->patNorm[5] == pat);
   float kept = net->rowNorm[0];
   /* a warm start keeps it */
   assert_int_equal(CostModel_fit(m, &b, &cfg, &cause), 0);
   assert_true(net->rowNorm[0] == kept);
   /* a fit from scratch recomputes it */
   cfg.fromScratch = true;
   assert_int_equal(CostModel_fit(m, &b, &cfg, &cause), 0);
   assert_true(net->rowNorm[0] == columnMax(&b, 0) && net->rowNorm[0] > 2);
   CostModel_free(m);
   Dataset_done(&a);
   Dataset_done(&b);
}

static int epochsSeen, stopAfter;

static bool countEpochs(void *ctx, int epoch, int epochs, double loss) {
   epochsSeen++;
   assert_int_equal(epoch, epochsSeen);
   assert_int_equal(epochs, 50);
   assert_true(loss >= 0);
   return epoch < stopAfter;
}

static void test_training_errors_and_stops(void **state) {
   char *cause = NULL;
   CostModel *m = CostModel_new(MODEL_MLP, 1, &cause);
   Dataset d;
   randomSamples(&d, 5, 1);
   TrainConfig cfg;
   smallConfig(&cfg, 50, 1);
   assert_int_equal(CostModel_fit(m, &d, &cfg, &cause), -1);
   assert_string_equal(cause, "mlp: a training batch of 1 samples is too small (at least 2)");
   free(cause);
   /* unmeasured samples do not count, nor samples without rows */
   for (int i = 1; i < d.n; i++)
      d.cost[i] = 0;
   Dataset_add(&d, 0, NULL, NULL, INFINITY, 1);
   cfg.batch = 4;
   assert_int_equal(CostModel_fit(m, &d, &cfg, &cause), -1);
   assert_string_equal(cause, "mlp: nothing to learn from: 1 of the 6 samples have feature rows and a measurement "
                              "(at least 2 are needed)");
   free(cause);
   assert_false(m->trained);

   /* the progress hook sees every epoch and can stop the fit */
   for (int i = 0; i < d.n; i++)
      d.cost[i] = 1;
   cfg.progress = countEpochs;
   epochsSeen = 0;
   stopAfter = 3;
   assert_int_equal(CostModel_fit(m, &d, &cfg, &cause), 0);
   assert_int_equal(epochsSeen, 3);
   /* early stop: with one label everywhere the loss is 0 in every epoch, never below
    * the first; after earlyStop more epochs the fit ends */
   for (int i = 0; i < d.n; i++)
      d.label[i] = 0.5f;
   cfg.earlyStop = 4;
   epochsSeen = 0;
   stopAfter = 1000;
   assert_int_equal(CostModel_fit(m, &d, &cfg, &cause), 0);
   assert_int_equal(epochsSeen, 5);
   cfg.earlyStop = 0;   /* never */
   epochsSeen = 0;
   assert_int_equal(CostModel_fit(m, &d, &cfg, &cause), 0);
   assert_int_equal(epochsSeen, 50);
   CostModel_free(m);
   Dataset_done(&d);
}

static void test_training_is_deterministic(void **state) {
   Dataset d;
   synthetic(&d, 2, 150, 10, 3);
   TrainConfig cfg;
   smallConfig(&cfg, 2, 64);
   char *cause = NULL;
   CostModel *a = CostModel_new(MODEL_PAM, 9, &cause), *b = CostModel_new(MODEL_PAM, 9, &cause);
   assert_int_equal(CostModel_fit(a, &d, &cfg, &cause), 0);
   assert_int_equal(CostModel_fit(b, &d, &cfg, &cause), 0);
   NeuralNet *na = NeuralModel_net(a), *nb = NeuralModel_net(b);
   for (int k = 0; k < na->nparams; k++)
      assert_memory_equal(na->params[k]->w, nb->params[k]->w, NnParam_size(na->params[k]) * sizeof(float));
   assert_memory_equal(na->norm.runMean, nb->norm.runMean, 256 * sizeof(float));
   /* another training seed, other weights; from scratch with seed 9, the weights a
    * fresh model of seed 9 starts from */
   cfg.seed = 5;
   assert_int_equal(CostModel_fit(b, &d, &cfg, &cause), 0);
   assert_memory_not_equal(na->params[0]->w, nb->params[0]->w, NnParam_size(na->params[0]) * sizeof(float));
   CostModel *fresh = CostModel_new(MODEL_PAM, 9, &cause);
   cfg.seed = 9;
   cfg.fromScratch = true;
   cfg.epochs = 0;
   assert_int_equal(CostModel_fit(b, &d, &cfg, &cause), 0);
   NeuralNet *nf = NeuralModel_net(fresh);
   for (int k = 0; k < nf->nparams; k++)
      assert_memory_equal(nf->params[k]->w, nb->params[k]->w, NnParam_size(nf->params[k]) * sizeof(float));
   CostModel_free(fresh);
   CostModel_free(a);
   CostModel_free(b);
   Dataset_done(&d);
}

/* Trains a fresh model of kind on a synthetic task mix and ranks held-out programs. */
static void learns(ModelKind kind, int epochs) {
   Dataset all, train, test, held;
   synthetic(&all, 4, 600, 10, 11);
   Dataset_init(&train);
   Dataset_init(&test);
   Dataset_split(&all, 0.75, 5, &train, &test);
   TestUtil_successes(&test, &held);
   char *cause = NULL;
   CostModel *m = CostModel_new(kind, 1, &cause);
   TrainConfig cfg;
   TrainConfig_default(&cfg);
   cfg.epochs = epochs;
   cfg.batch = 128;   /* more steps per epoch than 512 on 1,800 samples */
   cfg.seed = 2;
   if (CostModel_fit(m, &train, &cfg, &cause) < 0)
      fail_msg("%s", cause);
   float *scores = xMalloc((size_t)held.n * sizeof *scores);
   CostModel_predict(m, &held, scores);
   RankMetrics w;
   Metrics_weighted(&held, scores, NULL, &w);
   printf("# %s after %d epochs on %d samples, on %d held-out programs: pairwise %.4f, top-1 %.4f, top-5 %.4f\n",
          ModelKind_name(kind), epochs, train.n, w.samples, w.pairwise, w.top1, w.top5);
   fflush(stdout);
   assert_true(w.pairwise >= 0.85);
   free(scores);
   CostModel_free(m);
   Dataset_done(&held);
   Dataset_done(&train);
   Dataset_done(&test);
   Dataset_done(&all);
}

static void test_pam_learns(void **state) {
   learns(MODEL_PAM, 6);
}

static void test_mlp_learns(void **state) {
   learns(MODEL_MLP, 6);
}

/* ---- pam-moa ---- */

typedef struct {
   float *w[NEURAL_MAX_PARAMS];
   float *runMean, *runVar;
} Weights;

static void snapshot(const NeuralNet *net, Weights *s) {
   for (int k = 0; k < net->nparams; k++) {
      size_t size = NnParam_size(net->params[k]) * sizeof(float);
      s->w[k] = xMalloc(size);
      memcpy(s->w[k], net->params[k]->w, size);
   }
   size_t h = (size_t)net->shape.hidden * sizeof(float);
   s->runMean = xMalloc(h);
   s->runVar = xMalloc(h);
   memcpy(s->runMean, net->norm.runMean, h);
   memcpy(s->runVar, net->norm.runVar, h);
}

static void release(const NeuralNet *net, Weights *s) {
   for (int k = 0; k < net->nparams; k++)
      free(s->w[k]);
   free(s->runMean);
   free(s->runVar);
}

static void assertUnchanged(const NeuralNet *net, const Weights *s) {
   for (int k = 0; k < net->nparams; k++)
      assert_memory_equal(net->params[k]->w, s->w[k], NnParam_size(net->params[k]) * sizeof(float));
   assert_memory_equal(net->norm.runMean, s->runMean, (size_t)net->shape.hidden * sizeof(float));
   assert_memory_equal(net->norm.runVar, s->runVar, (size_t)net->shape.hidden * sizeof(float));
}

/* Fits m `times` times on d (none of them a refresh); the slow network must stay as
 * it was, and the fast one (made by the first fit) the same network throughout. */
static void fitWithoutRefresh(CostModel *m, const Dataset *d, const TrainConfig *cfg, int times) {
   NeuralNet *slow, *fast;
   uint32_t updates;
   PamMoa_state(m, &slow, &fast, &updates);
   NeuralNet *fastBefore = fast;
   Weights before;
   snapshot(slow, &before);
   char *cause = NULL;
   for (int i = 0; i < times; i++) {
      assert_int_equal(CostModel_fit(m, d, cfg, &cause), 0);
      NeuralNet *s, *f;
      uint32_t u;
      PamMoa_state(m, &s, &f, &u);
      assert_int_equal(u, updates + 1 + i);
      assert_int_not_equal(u % 4, 0);
      assert_ptr_equal(s, slow);
      assert_non_null(f);
      if (fastBefore)
         assert_ptr_equal(f, fastBefore);
      fastBefore = f;
      assertUnchanged(slow, &before);
   }
   release(slow, &before);
}

/* The refresh of the next fit: slow becomes 0.99 slow + 0.01 fast for every
 * parameter, exactly, with fast as trained in this fit, and keeps its running
 * statistics. */
static void fitWithRefresh(CostModel *m, const Dataset *d, const TrainConfig *cfg) {
   NeuralNet *slow, *fast;
   uint32_t updates;
   PamMoa_state(m, &slow, &fast, &updates);
   Weights before;
   snapshot(slow, &before);
   char *cause = NULL;
   assert_int_equal(CostModel_fit(m, d, cfg, &cause), 0);
   uint32_t after;
   PamMoa_state(m, &slow, &fast, &after);
   assert_int_equal(after, updates + 1);
   assert_int_equal(after % 4, 0);
   assert_non_null(fast);
   const double m99 = 0.99;
   size_t moved = 0, total = 0;
   for (int k = 0; k < slow->nparams; k++)
      for (size_t i = 0; i < NnParam_size(slow->params[k]); i++) {
         double s = before.w[k][i], f = fast->params[k]->w[i];
         float want = (float)(m99 * s + (1 - m99) * f);
         if (memcmp(&slow->params[k]->w[i], &want, sizeof want) != 0)
            fail_msg("%s[%zu]: %.9g after the update, 0.99 x %.9g + 0.01 x %.9g = %.9g", slow->params[k]->name, i,
                     slow->params[k]->w[i], s, f, want);
         moved += slow->params[k]->w[i] != before.w[k][i];
         total++;
      }
   /* the fast network trained away from the slow one: most weights moved */
   assert_true(moved > total / 2);
   size_t h = (size_t)slow->shape.hidden * sizeof(float);
   assert_memory_equal(slow->norm.runMean, before.runMean, h);
   assert_memory_equal(slow->norm.runVar, before.runVar, h);
   release(slow, &before);
}

/* A pam model trained on synthetic data of one task whose first column is three times
 * larger than in synthetic(&d, 1, 40, 0, 8), and that data. */
static CostModel *pretrained(Dataset *pre, Dataset *d, int epochs) {
   synthetic(d, 1, 40, 0, 8);
   synthetic(pre, 1, 40, 0, 9);
   for (int i = 0; i < pre->nrows; i++)
      pre->rows[(size_t)i * SAMPLE_ROW_LEN] *= 3;
   CostModel *pam = NeuralModel_new(MODEL_PAM, &tinyPam, 12);
   TrainConfig cfg;
   smallConfig(&cfg, epochs, 16);
   char *cause = NULL;
   assert_int_equal(CostModel_fit(pam, pre, &cfg, &cause), 0);
   return pam;
}

static void test_moa_updates(void **state) {
   Dataset d, pre;
   CostModel *pam = pretrained(&pre, &d, 3);
   TrainConfig cfg;
   smallConfig(&cfg, 3, 16);
   char *cause = NULL;
   CostModel *m = PamMoa_fromPretrained(pam, &cause);
   assert_non_null(m);
   assert_int_equal(m->kind, MODEL_PAM_MOA);
   assert_true(m->trained);
   NeuralNet *slow, *fast;
   uint32_t updates;
   PamMoa_state(m, &slow, &fast, &updates);
   assert_ptr_not_equal(slow, NeuralModel_net(pam));
   assert_null(fast);
   assert_int_equal(updates, 0);
   /* before the first fit it predicts as the pretrained model */
   TestUtil_assertSameScores(m, pam, &d);
   /* the first fit makes the fast network, a copy of the slow one trained from its
    * weights with the pretrained normalization (the first column's max is pre's, three
    * times d's), and predicts with it */
   fitWithoutRefresh(m, &d, &cfg, 1);
   PamMoa_state(m, &slow, &fast, &updates);
   assert_memory_equal(fast->rowNorm, slow->rowNorm, SAMPLE_ROW_LEN * sizeof(float));
   assert_true(fast->rowNorm[0] == columnMax(&pre, 0) && fast->rowNorm[0] > 2 * columnMax(&d, 0));
   float *s = xMalloc((size_t)d.n * sizeof *s), *t = xMalloc((size_t)d.n * sizeof *t);
   CostModel_predict(m, &d, s);
   NeuralNet_predict(fast, &d, t);
   assert_memory_equal(s, t, (size_t)d.n * sizeof *s);
   CostModel_predict(pam, &d, t);
   assert_memory_not_equal(s, t, (size_t)d.n * sizeof *s);
   /* the 2nd and 3rd train it on; the 4th refreshes, warm whatever fromScratch says */
   NeuralNet *first = fast;
   Weights w;
   snapshot(fast, &w);
   fitWithoutRefresh(m, &d, &cfg, 2);
   cfg.fromScratch = true;
   fitWithRefresh(m, &d, &cfg);
   PamMoa_state(m, &slow, &fast, &updates);
   assert_ptr_equal(fast, first);
   assert_memory_not_equal(fast->params[0]->w, w.w[0], NnParam_size(fast->params[0]) * sizeof(float));
   assert_true(fast->rowNorm[0] == columnMax(&pre, 0));
   release(fast, &w);
   /* the fast network goes on, never replaced: the 5th to 7th train it, the 8th
    * refreshes again */
   fitWithoutRefresh(m, &d, &cfg, 3);
   fitWithRefresh(m, &d, &cfg);
   PamMoa_state(m, &slow, &fast, &updates);
   assert_int_equal(updates, 8);
   assert_ptr_equal(fast, first);
   /* only a pam model can be the slow copy */
   CostModel *mlp = NeuralModel_new(MODEL_MLP, &tinyMlp, 1);
   assert_null(PamMoa_fromPretrained(mlp, &cause));
   assert_string_equal(cause, "pam-moa starts from a pam model, not from mlp");
   free(cause);
   /* a fit that cannot learn still counts as an update, and says why */
   Dataset none;
   Dataset_init(&none);
   assert_int_equal(CostModel_fit(m, &none, &cfg, &cause), -1);
   assert_string_equal(cause, "pam-moa: nothing to learn from: 0 of the 0 samples have feature rows and a "
                              "measurement (at least 2 are needed)");
   free(cause);
   PamMoa_state(m, &slow, &fast, &updates);
   assert_int_equal(updates, 9);
   Dataset_done(&none);
   free(s);
   free(t);
   CostModel_free(mlp);
   CostModel_free(m);
   CostModel_free(pam);
   Dataset_done(&pre);
   Dataset_done(&d);
}

/* a and b score every sample of d alike, to the bit */
static void assertSameScores(CostModel *a, NeuralNet *b, const Dataset *d) {
   float *x = xMalloc((size_t)d->n * sizeof *x), *y = xMalloc((size_t)d->n * sizeof *y);
   CostModel_predict(a, d, x);
   NeuralNet_predict(b, d, y);
   assert_memory_equal(x, y, (size_t)d->n * sizeof *x);
   free(x);
   free(y);
}

/* pam-moa's fast network is trained exactly as a pretrained pam fine-tuned on the same
 * data with the same bounds: after every fit, refreshes included, the two predict
 * alike to the bit, whatever the slow copy does. */
static void test_moa_is_the_finetuned_pam(void **state) {
   Dataset d, pre, more;
   CostModel *pam = pretrained(&pre, &d, 3);
   synthetic(&more, 1, 25, 0, 10);
   CostModel *moa = PamMoa_fromPretrained(pam, NULL);
   TrainConfig cfg;
   smallConfig(&cfg, 3, 16);
   char *cause = NULL;
   for (int i = 0; i < 9; i++) {
      const Dataset *on = i % 2 ? &more : &d;
      cfg.epochs = i == 0 ? 4 : 2;   /* the first round trains longer, as online */
      cfg.seed = 4 + (uint64_t)i;
      assert_int_equal(CostModel_fit(pam, on, &cfg, &cause), 0);
      assert_int_equal(CostModel_fit(moa, on, &cfg, &cause), 0);
      NeuralNet *slow, *fast;
      uint32_t updates;
      PamMoa_state(moa, &slow, &fast, &updates);
      assert_int_equal(updates, i + 1);
      assertSameScores(moa, NeuralModel_net(pam), &d);
      assertSameScores(moa, NeuralModel_net(pam), &more);
   }
   CostModel_free(moa);
   CostModel_free(pam);
   Dataset_done(&more);
   Dataset_done(&pre);
   Dataset_done(&d);
}

/* ---- checkpoints ---- */

/* Bytes of one network's payload (cost/neural.h's layout). */
static size_t payloadBytes(const NeuralNet *net) {
   size_t n = 7 * 4 + 4 + 4 * (size_t)net->shape.in + 4;
   if (net->pattern)
      n += 4 * (size_t)net->shape.patWidth + 2 * 4 * (size_t)net->shape.hidden;
   for (int k = 0; k < net->nparams; k++)
      n += 4 + strlen(net->params[k]->name) + 8 + 4 * NnParam_size(net->params[k]);
   return n;
}

static uint32_t u32At(const unsigned char *b, size_t at) {
   return (uint32_t)b[at] | (uint32_t)b[at + 1] << 8 | (uint32_t)b[at + 2] << 16 | (uint32_t)b[at + 3] << 24;
}

/* m saved, loaded and cloned predicts d to the bit as m does. */
static CostModel *assertReloads(CostModel *m, const Dataset *d, const char *name, size_t bytes) {
   CostModel *l = TestUtil_saveAndLoad(m, TestUtil_groupDir, name, bytes);
   TestUtil_assertSameScores(m, l, d);
   assert_int_equal(l->trained, m->trained);
   char *cause = NULL;
   CostModel *c = CostModel_clone(m, &cause);
   if (!c)
      fail_msg("%s", cause);
   TestUtil_assertSameScores(m, c, d);
   CostModel_free(c);
   return l;
}

/* Two devices' features (Device_features of h100_sxm, and of an A100-like part). */
static const float devA[DEVICE_FEATURE_LEN] = { 132, 1982.717f, 67000, 3350, 8341.29f, 51200, 228, 65.536f };
static const float devB[DEVICE_FEATURE_LEN] = { 108, 1410, 19500, 1555, 5000, 40960, 164, 65.536f };

/* A network that reads the device: 182 inputs, each row followed by its sample's
 * device features; their normalization is the largest of each over the training
 * samples; the same sample scores differently on two devices (a network without them
 * scores it the same); the checkpoint keeps all of it. */
static void test_device_features(void **state) {
   (void)state;
   Dataset d;
   synthetic(&d, 2, 60, 7, 3);
   for (int i = 0; i < d.n; i++)
      Dataset_setDevice(&d, i, i % 2 ? devB : devA);
   char *cause = NULL;
   CostModel *m = CostModel_newDevice(MODEL_PAM, 2, &cause);
   assert_non_null(m);
   assert_true(m->readsDevice);
   NeuralNet *net = NeuralModel_net(m);
   assert_int_equal(net->shape.in, SAMPLE_ROW_LEN + DEVICE_FEATURE_LEN);
   TrainConfig cfg;
   smallConfig(&cfg, 2, 32);
   assert_int_equal(CostModel_fit(m, &d, &cfg, &cause), 0);
   assert_true(net->rowNorm[0] == columnMax(&d, 0));
   for (int k = 0; k < DEVICE_FEATURE_LEN; k++)
      assert_true(net->rowNorm[SAMPLE_ROW_LEN + k] == fmaxf(devA[k], devB[k]));
   /* one sample on each device */
   Dataset two;
   Dataset_init(&two);
   Dataset_addFrom(&two, &d, 0);
   Dataset_addFrom(&two, &d, 0);
   assert_memory_equal(Dataset_device(&two, 0), devA, sizeof devA);
   Dataset_setDevice(&two, 1, devB);
   float scores[2];
   CostModel_predict(m, &two, scores);
   assert_true(scores[0] != scores[1]);
   CostModel *plain = CostModel_new(MODEL_PAM, 2, &cause);
   assert_false(plain->readsDevice);
   assert_int_equal(CostModel_fit(plain, &d, &cfg, &cause), 0);
   CostModel_predict(plain, &two, scores);
   assert_true(scores[0] == scores[1]);
   CostModel_free(plain);
   /* the checkpoint: shape 182, the normalization and the scores */
   CostModel *l = assertReloads(m, &d, "device.ckpt", CHECKPOINT_HEADER_BYTES + payloadBytes(net));
   assert_true(l->readsDevice);
   NeuralNet *back = NeuralModel_net(l);
   assert_int_equal(back->shape.in, SAMPLE_ROW_LEN + DEVICE_FEATURE_LEN);
   assert_memory_equal(back->rowNorm, net->rowNorm, (SAMPLE_ROW_LEN + DEVICE_FEATURE_LEN) * sizeof(float));
   TestUtil_assertSameScores(m, l, &two);
   CostModel_free(l);
   CostModel_free(m);
   /* the mlp reads them too, pam-moa through its slow network; the others cannot */
   m = CostModel_newDevice(MODEL_MLP, 2, &cause);
   assert_true(m->readsDevice && NeuralModel_net(m)->shape.in == SAMPLE_ROW_LEN + DEVICE_FEATURE_LEN);
   CostModel_free(m);
   m = CostModel_newDevice(MODEL_PAM_MOA, 2, &cause);
   assert_true(m->readsDevice);
   CostModel_free(m);
   assert_null(CostModel_newDevice(MODEL_RANDOM, 2, &cause));
   assert_string_equal(cause, "model random does not read the device's features (xgb, mlp, pam and pam-moa do)");
   free(cause);
   Dataset_done(&two);
   Dataset_done(&d);
}

static void test_checkpoints_reload_exactly(void **state) {
   Dataset d;
   synthetic(&d, 2, 100, 9, 4);
   TrainConfig cfg;
   smallConfig(&cfg, 1, 64);
   char *cause = NULL;
   static const ModelKind kinds[] = { MODEL_MLP, MODEL_PAM };
   for (int i = 0; i < 2; i++) {
      CostModel *m = CostModel_new(kinds[i], 3, &cause);
      NeuralNet *net = NeuralModel_net(m);
      size_t bytes = CHECKPOINT_HEADER_BYTES + payloadBytes(net);
      /* untrained, then trained */
      CostModel *l = assertReloads(m, &d, "net.ckpt", bytes);
      assert_false(l->trained);
      CostModel_free(l);
      assert_int_equal(CostModel_fit(m, &d, &cfg, &cause), 0);
      l = assertReloads(m, &d, "net.ckpt", bytes);
      assert_true(l->trained);
      /* everything the network holds came back */
      NeuralNet *back = NeuralModel_net(l);
      assert_memory_equal(back->rowNorm, net->rowNorm, SAMPLE_ROW_LEN * sizeof(float));
      if (net->pattern) {
         assert_memory_equal(back->patNorm, net->patNorm, PATTERN_WIDTH * sizeof(float));
         assert_memory_equal(back->norm.runVar, net->norm.runVar, 256 * sizeof(float));
      }
      CostModel_free(l);
      /* the shape fields, as laid out */
      char *path = xAsprintf("%s/net.ckpt", TestUtil_groupDir);
      size_t n;
      unsigned char *b = TestUtil_readBytes(path, &n);
      static const uint32_t pamShape[7] = { 174, 256, 8, 23, 64, 128, 4 }, mlpShape[7] = { 174, 256 };
      for (int f = 0; f < 7; f++)
         assert_int_equal(u32At(b, 28 + 4 * f), (kinds[i] == MODEL_PAM ? pamShape : mlpShape)[f]);
      assert_int_equal(u32At(b, 56), 1);   /* fitted */
      free(b);
      free(path);
      CostModel_free(m);
   }

   /* pam-moa: before the first fit (no fast network) and after */
   CostModel *m = CostModel_new(MODEL_PAM_MOA, 5, &cause);
   NeuralNet *slow, *fast;
   uint32_t updates;
   PamMoa_state(m, &slow, &fast, &updates);
   size_t one = payloadBytes(slow);
   CostModel *l = assertReloads(m, &d, "moa.ckpt", CHECKPOINT_HEADER_BYTES + 8 + one);
   CostModel_free(l);
   for (int i = 0; i < 5; i++)
      assert_int_equal(CostModel_fit(m, &d, &cfg, &cause), 0);
   l = assertReloads(m, &d, "moa.ckpt", CHECKPOINT_HEADER_BYTES + 8 + 2 * one);
   PamMoa_state(l, &slow, &fast, &updates);
   assert_int_equal(updates, 5);
   assert_non_null(fast);
   /* the count goes on where it was: the third fit from here refreshes */
   Weights w;
   snapshot(slow, &w);
   for (int i = 0; i < 2; i++)
      assert_int_equal(CostModel_fit(l, &d, &cfg, &cause), 0);
   assertUnchanged(slow, &w);
   assert_int_equal(CostModel_fit(l, &d, &cfg, &cause), 0);
   PamMoa_state(l, &slow, &fast, &updates);
   assert_int_equal(updates, 8);
   assert_memory_not_equal(slow->params[0]->w, w.w[0], NnParam_size(slow->params[0]) * sizeof(float));
   release(slow, &w);
   CostModel_free(l);
   CostModel_free(m);
   Dataset_done(&d);
}

/* The saved pam checkpoint with the u32 at byte `at` set to v, its checksum made
 * right for the change. */
static char *edited(const unsigned char *good, size_t n, size_t at, uint32_t v) {
   unsigned char *b = xMalloc(n);
   memcpy(b, good, n);
   for (int i = 0; i < 4; i++)
      b[at + i] = (unsigned char)(v >> (8 * i));
   char *path = TestUtil_writeSealed(TestUtil_groupDir, "edited.ckpt", b, n);
   free(b);
   return path;
}

/* The bytes of m's checkpoint, saved as dir/name (caller frees); *n their count. */
static unsigned char *savedBytes(const CostModel *m, const char *name, size_t *n) {
   char *cause = NULL;
   char *path = xAsprintf("%s/%s", TestUtil_groupDir, name);
   if (CostModel_save(m, path, &cause) < 0)
      fail_msg("%s", cause);
   unsigned char *bytes = TestUtil_readBytes(path, n);
   free(path);
   return bytes;
}

static void test_checkpoint_errors(void **state) {
   char *cause = NULL, *path;
   CostModel *m = CostModel_new(MODEL_PAM, 1, &cause);
   size_t n;
   unsigned char *good = savedBytes(m, "pam.ckpt", &n);
   /* byte offsets of the payload: the shape at 28, fitted at 56, rowNorm at 60,
    * patNorm at 756, the parameter count at 848, stmt1.weight's record at 852 */
   assert_int_equal(u32At(good, 848), 26);
   assert_int_equal(u32At(good, 852), 12);
   assert_memory_equal(good + 856, "stmt1.weight", 12);
   static const struct {
      size_t at;
      uint32_t value;
      const char *message;
   } bad[] = {
      { 32, 255, "parameter stmt1.weight is 256 x 174 in the file, but its shape fields make it 255 x 174" },
      { 48, 64, "parameter pattern2.weight is 128 x 64 in the file, but its shape fields make it 64 x 64" },
      { 28, 170, "the network reads feature rows of 170 floats; this program's have 174 (182 with the device's features)" },
      { 36, 7, "the network reads pattern blocks of 7 x 23 floats; this program's are 8 x 23" },
      { 52, 3, "3 attention heads do not divide the width 128" },
      { 32, 5000, "the hidden width 5000 is out of range (1 to 1024)" },
      { 32, 0x7fffffff, "shape field 1 of the network is 2147483647, out of range" },
      { 36, 0, "the network reads pattern blocks of 0 x 23 floats; this program's are 8 x 23" },
      { 848, 25, "25 parameters in the file, but its shape fields make 26" },
      { 852, 40, "parameter 0's name is 40 bytes long (at most 31)" },
      { 856, 0x6c6c756e, "parameter 0 is null1.weight in the file where stmt1.weight belongs" },
   };
   for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      path = edited(good, n, bad[i].at, bad[i].value);
      TestUtil_assertLoadFails(path, bad[i].message);
      free(path);
   }
   /* an mlp checkpoint read as a pam one, and a pam one as mlp */
   path = edited(good, n, 12, MODEL_MLP);
   TestUtil_assertLoadFails(path, "the network has a pattern branch, which mlp does not have");
   free(path);
   CostModel *mlp = CostModel_new(MODEL_MLP, 1, &cause);
   size_t mn;
   unsigned char *mb = savedBytes(mlp, "mlp.ckpt", &mn);
   path = edited(mb, mn, 12, MODEL_PAM);
   TestUtil_assertLoadFails(path, "the network has no pattern branch, which pam needs");
   free(path);
   free(mb);

   /* cut short: in the shape, and inside a parameter */
   path = TestUtil_writeSealed(TestUtil_groupDir, "cut.ckpt", good, 28);
   TestUtil_assertLoadFails(path, "cut short at byte 28 (expected the network's shape (7 u32), 28 bytes from byte 28)");
   free(path);
   path = TestUtil_writeSealed(TestUtil_groupDir, "cut.ckpt", good, 58);
   TestUtil_assertLoadFails(path, "cut short at byte 58 (expected the fitted flag, 4 bytes from byte 56)");
   free(path);
   /* stmt1.weight's floats from 876 (174 x 256 x 4 bytes), stmt1.bias's record from
    * 179052 (4 + 10 + 8 bytes, then 1024), stmt2.weight's from 180098 (4 + 12 + 8),
    * its floats from 180122 */
   assert_memory_equal(good + 179056, "stmt1.bias", 10);
   assert_memory_equal(good + 180102, "stmt2.weight", 12);
   path = TestUtil_writeSealed(TestUtil_groupDir, "cut.ckpt", good, 180122 + 1000);
   TestUtil_assertLoadFails(path,
                            "cut short at byte 181122 (expected the 256 x 256 floats of stmt2.weight, 262144 bytes "
                            "from byte 180122)");
   free(path);
   path = TestUtil_writeSealed(TestUtil_groupDir, "cut.ckpt", good, n - 100);
   char *want = xAsprintf("cut short at byte %zu (expected batch norm's running variance, 1024 bytes from byte %zu)",
                          n - 100, n - 1024);
   TestUtil_assertLoadFails(path, want);
   free(want);
   free(path);

   /* pam-moa's own fields */
   CostModel *moa = CostModel_new(MODEL_PAM_MOA, 1, &cause);
   unsigned char *ob = savedBytes(moa, "moa.ckpt", &mn);
   path = edited(ob, mn, 32, 2);
   TestUtil_assertLoadFails(path, "pam-moa's fast-network flag is 2 (0 or 1)");
   free(path);
   path = edited(ob, mn, 32, 1);
   want = xAsprintf("cut short at byte %zu (expected the network's shape (7 u32), 28 bytes from byte %zu)", mn, mn);
   TestUtil_assertLoadFails(path, want);
   free(want);
   free(path);
   path = TestUtil_writeSealed(TestUtil_groupDir, "cut.ckpt", ob, 30);
   TestUtil_assertLoadFails(path, "cut short at byte 30 (expected pam-moa's update count, 4 bytes from byte 28)");
   free(path);
   free(ob);
   CostModel_free(moa);
   CostModel_free(mlp);
   CostModel_free(m);
   free(good);
}

/* Values a network cannot hold are refused on load, and never saved. */
static void test_checkpoint_nonfinite(void **state) {
   char *cause = NULL, *path;
   CostModel *m = CostModel_new(MODEL_PAM, 1, &cause);
   size_t n;
   unsigned char *good = savedBytes(m, "pam.ckpt", &n);
   /* rowNorm at 60, stmt1.weight's floats at 876, the running variance at n - 1024 */
   static const struct {
      size_t at;
      uint32_t bits;
      const char *message;
   } bad[] = {
      { 60, 0x7fc00000, "the feature rows' normalization holds nan at index 0, where a finite number belongs" },
      { 72, 0, "the feature rows' normalization holds 0 at index 3, where a finite number above 0 belongs" },
      { 756 + 8, 0xff800000, "the pattern blocks' normalization holds -inf at index 2, where a finite number belongs" },
      { 876 + 20, 0x7f800000, "parameter stmt1.weight holds inf at index 5, where a finite number belongs" },
      { 0, 0xbf800000,
        "batch norm's running variance holds -1 at index 255, where a finite number of 0 or more belongs" },
   };
   for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      path = edited(good, n, bad[i].at ? bad[i].at : n - 4, bad[i].bits);
      TestUtil_assertLoadFails(path, bad[i].message);
      free(path);
   }
   free(good);
   /* a network that diverged is not saved, and an earlier checkpoint stays */
   path = xAsprintf("%s/diverged.ckpt", TestUtil_groupDir);
   NeuralModel_net(m)->params[0]->w[2] = NAN;
   assert_int_equal(CostModel_save(m, path, &cause), -1);
   char *want = xAsprintf("%s: not saved: parameter stmt1.weight holds nan at index 2, where a finite number "
                          "belongs (did the training diverge?)", path);
   assert_string_equal(cause, want);
   free(want);
   free(cause);
   assert_null(fopen(path, "rb"));
   free(path);
   CostModel_free(m);
}

/* Every byte of a (small) checkpoint matters: each one changed alone is refused,
 * whatever the change, with the message of the part it hit. */
static void test_checkpoint_every_byte(void **state) {
   CostModel *m = NeuralModel_new(MODEL_MLP, &tinyMlp, 3);
   char *cause = NULL, *path;
   size_t n;
   unsigned char *good = savedBytes(m, "tiny.ckpt", &n);
   assert_true(n > 5000);
   unsigned char *b = xMalloc(n);
   memcpy(b, good, n);
   static const unsigned char flips[] = { 0xff, 0x01, 0x80 };
   int refused = 0;
   for (size_t f = 0; f < sizeof flips; f++)
      for (size_t at = 0; at < n; at++) {
         b[at] ^= flips[f];
         path = TestUtil_writeBytes(TestUtil_groupDir, "flipped.ckpt", b, n);
         b[at] ^= flips[f];
         CostModel *l = CostModel_load(path, &cause);
         if (l)
            fail_msg("byte %zu ^ 0x%02x loaded", at, flips[f]);
         const char *why = cause + strlen(path) + 2;
         if (at < 8)
            assert_string_equal(why, "not a pruner-tui checkpoint (bad magic)");
         else if (at < 12)
            assert_non_null(strstr(why, " is newer than this program reads (versions 1 and 2)"));
         else
            assert_true(strncmp(why, "checksum mismatch: the file is damaged", 38) == 0);
         refused++;
         free(cause);
         free(path);
      }
   assert_int_equal(refused, 3 * (int)n);
   /* the version changed to 1, which had no checksum: its header had no 28 bytes */
   b[8] = 1;
   path = TestUtil_writeBytes(TestUtil_groupDir, "v1.ckpt", b, n);
   TestUtil_assertLoadFails(path, "a header of 28 bytes is not one of format version 1 (20 or 24)");
   free(path);
   free(b);
   free(good);
   CostModel_free(m);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pam_gradients),
      cmocka_unit_test(test_mlp_gradients),
      cmocka_unit_test(test_paper_shapes),
      cmocka_unit_test(test_pattern_shortcut),
      cmocka_unit_test(test_normalization),
      cmocka_unit_test(test_training_errors_and_stops),
      cmocka_unit_test(test_training_is_deterministic),
      cmocka_unit_test(test_moa_updates),
      cmocka_unit_test(test_moa_is_the_finetuned_pam),
      cmocka_unit_test(test_device_features),
      cmocka_unit_test(test_checkpoints_reload_exactly),
      cmocka_unit_test(test_checkpoint_errors),
      cmocka_unit_test(test_checkpoint_nonfinite),
      cmocka_unit_test(test_checkpoint_every_byte),
      cmocka_unit_test(test_pam_learns),
      cmocka_unit_test(test_mlp_learns),
   };
   return cmocka_run_group_tests(tests, TestUtil_setUpGroupDir, TestUtil_tearDownGroupDir);
}
