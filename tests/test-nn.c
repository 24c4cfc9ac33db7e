/* The neural-network library: every layer's and loss's gradients against central
 * differences of a scalar loss (a fixed random weighting of the output), a small
 * network end to end, hand-computed values (a dense layer, LambdaRank on three
 * elements, two Adam steps, clipping, batch norm's statistics, attention on a tiny
 * input), multi-head attention against a direct double-precision implementation, and
 * bit-identical initialization from one seed. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "cost/nn.h"
#include "util/xalloc.h"

/* ---- finite differences (TestUtil_checkGradient) ---- */

typedef TestObjective Objective;

static double weighted(const float *r, const float *y, size_t n) {
   double s = 0;
   for (size_t i = 0; i < n; i++)
      s += (double)r[i] * y[i];
   return s;
}

static void checkParam(const Objective *o, NnParam *p) {
   TestUtil_checkGradient(p->name, o, p->w, p->g, NnParam_size(p));
}

static float *randomBuffer(size_t n, uint64_t seed, float lo, float hi) {
   float *b = xMalloc(n * sizeof(float));
   TestUtil_fillRandom(b, n, seed, lo, hi);
   return b;
}

/* Values in [0.2, 1) with a random sign: away from ReLU's kink. */
static float *awayFromZero(size_t n, uint64_t seed) {
   float *b = randomBuffer(n, seed, 0.2f, 1.0f);
   float *sign = randomBuffer(n, seed + 1, -1, 1);
   for (size_t i = 0; i < n; i++)
      b[i] = sign[i] < 0 ? -b[i] : b[i];
   free(sign);
   return b;
}

static void randomizeParam(NnParam *p, uint64_t seed) {
   TestUtil_fillRandom(p->w, NnParam_size(p), seed, -0.5f, 0.5f);
}

/* A layer under a gradient check: forward maps x (xLen floats) to y (yLen floats), the
 * loss weights y with r, and backward takes r as dy. */
typedef struct LayerCase_ LayerCase;
struct LayerCase_ {
   void *layer;
   void (*forward)(LayerCase *c);
   void (*backward)(LayerCase *c, float *dx);
   int n, len;                  /* rows (attention: sequences), positions */
   int d, nseg;                 /* segment sum: row width, segments */
   const int *seg;
   float *x, *y;
   const float *r;
   size_t xLen, yLen;
};

static double layerLoss(void *ctx) {
   LayerCase *c = ctx;
   c->forward(c);
   return weighted(c->r, c->y, c->yLen);
}

/* Checks dx and the gradients of params on input x; `vanishing`, when set, is a
 * parameter whose gradient is zero by construction. A second backward must double
 * every gradient: they accumulate. */
static void checkLayer(const char *what, LayerCase *c, float *x, size_t xLen, size_t yLen, uint64_t seed,
                       NnParam *const *params, int nparams, const NnParam *vanishing) {
   float *r = randomBuffer(yLen, seed, -1, 1), *dx = xMalloc(xLen * sizeof(float));
   c->x = x;
   c->xLen = xLen;
   c->yLen = yLen;
   c->r = r;
   c->y = xMalloc(yLen * sizeof(float));
   Objective o = { layerLoss, c, NULL };
   for (int i = 0; i < nparams; i++)
      NnParam_zeroGrad(params[i]);
   layerLoss(c);
   c->backward(c, dx);
   char name[64];
   snprintf(name, sizeof name, "%s dx", what);
   TestUtil_checkGradient(name, &o, x, dx, xLen);
   for (int i = 0; i < nparams; i++) {
      NnParam *p = params[i];
      if (p != vanishing) {
         checkParam(&o, p);
         continue;
      }
      double *num = TestUtil_numericGradient(&o, p->w, NnParam_size(p));
      for (size_t j = 0; j < NnParam_size(p); j++)
         if (!(fabs(p->g[j]) < 1e-5 && fabs(num[j]) < 1e-3))
            fail_msg("%s[%zu]: analytic %.3g, numeric %.3g, expected 0", p->name, j, p->g[j], num[j]);
      free(num);
   }
   float **twice = xMalloc((size_t)(nparams > 0 ? nparams : 1) * sizeof *twice);
   for (int i = 0; i < nparams; i++) {
      size_t size = NnParam_size(params[i]);
      twice[i] = xMalloc(size * sizeof(float));
      for (size_t j = 0; j < size; j++)
         twice[i][j] = 2 * params[i]->g[j];
   }
   layerLoss(c);
   c->backward(c, dx);
   for (int i = 0; i < nparams; i++) {
      TestUtil_assertClose(params[i]->g, twice[i], NnParam_size(params[i]), 1e-5, 1e-7);
      free(twice[i]);
   }
   free(twice);
   free(r);
   free(dx);
   free(c->y);
}

/* ---- dense ---- */

static void test_dense_by_hand(void **state) {
   (void)state;
   Rng rng;
   Rng_seed(&rng, 1);
   NnDense l;
   NnDense_init(&l, "fc", 3, 2, &rng);
   static const float W[6] = { 1, 0, -1, 0.5f, 0.5f, 0.5f }, b[2] = { 0.1f, -0.2f };
   memcpy(l.W.w, W, sizeof W);
   memcpy(l.b.w, b, sizeof b);
   static const float x[6] = { 1, 2, 3, 4, 5, 6 };
   float y[4];
   NnDense_forward(&l, x, 2, y);
   /* row 0: 1 - 3 + 0.1, (1 + 2 + 3) / 2 - 0.2; row 1: 4 - 6 + 0.1, (4 + 5 + 6) / 2 - 0.2 */
   static const float want[4] = { -1.9f, 2.8f, -1.9f, 7.3f };
   TestUtil_assertClose(y, want, 4, 1e-6, 1e-6);
   /* dy = ones: dW rows are the column sums of x, db = n, dx rows the column sums of W */
   static const float ones[4] = { 1, 1, 1, 1 };
   float dx[6];
   NnDense_backward(&l, x, 2, ones, dx);
   NnDense_backward(&l, x, 2, ones, NULL);   /* accumulates */
   static const float dW[6] = { 10, 14, 18, 10, 14, 18 }, db[2] = { 4, 4 };
   static const float wantDx[6] = { 1.5f, 0.5f, -0.5f, 1.5f, 0.5f, -0.5f };
   TestUtil_assertClose(l.W.g, dW, 6, 0, 0);
   TestUtil_assertClose(l.b.g, db, 2, 0, 0);
   TestUtil_assertClose(dx, wantDx, 6, 0, 1e-7);
   NnParam_zeroGrad(&l.W);
   assert_true(l.W.g[0] == 0 && l.W.g[5] == 0);
   assert_string_equal(l.W.name, "fc.weight");
   NnDense_done(&l);
}

static void denseForward(LayerCase *c) {
   NnDense_forward(c->layer, c->x, c->n, c->y);
}

static void denseBackward(LayerCase *c, float *dx) {
   NnDense_backward(c->layer, c->x, c->n, c->r, dx);
}

static void test_dense_gradients(void **state) {
   (void)state;
   Rng rng;
   Rng_seed(&rng, 2);
   NnDense l;
   NnDense_init(&l, "fc", 5, 4, &rng);
   int n = 3;
   float *x = randomBuffer((size_t)n * 5, 3, -1, 1);
   NnParam *params[2];
   LayerCase c = { .layer = &l, .forward = denseForward, .backward = denseBackward, .n = n };
   checkLayer("dense", &c, x, (size_t)n * 5, (size_t)n * 4, 4, params, NnDense_params(&l, params), NULL);
   free(x);
   NnDense_done(&l);
}

/* ---- ReLU ---- */

static void reluForward(LayerCase *c) {
   memcpy(c->y, c->x, c->xLen * sizeof(float));
   Nn_relu(c->y, c->yLen);
}

static void reluBackward(LayerCase *c, float *dx) {
   memcpy(dx, c->r, c->yLen * sizeof(float));
   Nn_reluBackward(c->y, dx, c->yLen);
}

static void test_relu(void **state) {
   (void)state;
   float v[4] = { -1, 0, 2, -0.5f };
   Nn_relu(v, 4);
   static const float want[4] = { 0, 0, 2, 0 };
   TestUtil_assertClose(v, want, 4, 0, 0);
   size_t n = 20;
   float *x = awayFromZero(n, 5);
   LayerCase c = { .forward = reluForward, .backward = reluBackward };
   checkLayer("relu", &c, x, n, n, 6, NULL, 0, NULL);
   free(x);
}

/* ---- batch norm ---- */

static void test_batchnorm_by_hand(void **state) {
   (void)state;
   NnBatchNorm l;
   NnBatchNorm_init(&l, "bn", 2);
   assert_true(l.gamma.w[1] == 1 && l.beta.w[1] == 0 && l.runMean[1] == 0 && l.runVar[1] == 1);
   assert_true(l.momentum == 0.1 && l.eps == 1e-5);
   /* training, column 0 is 1, 2, 3, 4: mean 2.5, biased variance 1.25, unbiased 5/3;
    * running mean 0.9 * 0 + 0.1 * 2.5, running variance 0.9 * 1 + 0.1 * 5/3.
    * Column 1 is constant 7: normalized to 0, so y = beta. */
   static const float x[8] = { 1, 7, 2, 7, 3, 7, 4, 7 };
   l.beta.w[1] = 0.25f;
   float y[8];
   NnBatchNorm_forward(&l, x, 4, true, y);
   double s = 1 / sqrt(1.25 + 1e-5);
   float want[8] = { (float)(-1.5 * s), 0.25f, (float)(-0.5 * s), 0.25f, (float)(0.5 * s), 0.25f,
                     (float)(1.5 * s), 0.25f };
   TestUtil_assertClose(y, want, 8, 1e-6, 1e-6);
   static const float runMean[2] = { 0.25f, 0.7f }, runVar[2] = { 0.9f + 0.1f * 5 / 3.0f, 0.9f };
   TestUtil_assertClose(l.runMean, runMean, 2, 1e-6, 0);
   TestUtil_assertClose(l.runVar, runVar, 2, 1e-6, 0);
   /* inference with given statistics: gamma (x - mean) / sqrt(var + eps) + beta */
   l.runMean[0] = 1;
   l.runVar[0] = 4;
   l.runMean[1] = -2;
   l.runVar[1] = 0.25f;
   l.gamma.w[0] = 2;
   l.gamma.w[1] = -1;
   l.beta.w[0] = 0.5f;
   l.beta.w[1] = 0;
   static const float xi[4] = { 3, 0, -1, -2.5f };
   float yi[4];
   NnBatchNorm_forward(&l, xi, 2, false, yi);
   float wantI[4] = { (float)(2 * 2 / sqrt(4.00001) + 0.5), (float)(-1 * 2 / sqrt(0.25001)),
                      (float)(2 * -2 / sqrt(4.00001) + 0.5), (float)(-1 * -0.5 / sqrt(0.25001)) };
   TestUtil_assertClose(yi, wantI, 4, 1e-6, 1e-6);
   /* inference leaves the running statistics alone */
   assert_true(l.runMean[0] == 1 && l.runVar[0] == 4);
   NnBatchNorm_done(&l);
}

static void batchNormForward(LayerCase *c) {
   NnBatchNorm_forward(c->layer, c->x, c->n, true, c->y);
}

static void batchNormBackward(LayerCase *c, float *dx) {
   NnBatchNorm_backward(c->layer, c->n, c->r, dx);
}

static void test_batchnorm_gradients(void **state) {
   (void)state;
   NnBatchNorm l;
   NnBatchNorm_init(&l, "bn", 3);
   randomizeParam(&l.gamma, 7);
   randomizeParam(&l.beta, 8);
   int n = 5;
   float *x = randomBuffer((size_t)n * 3, 9, -2, 2);
   NnParam *params[2];
   LayerCase c = { .layer = &l, .forward = batchNormForward, .backward = batchNormBackward, .n = n };
   checkLayer("batchnorm", &c, x, (size_t)n * 3, (size_t)n * 3, 10, params, NnBatchNorm_params(&l, params), NULL);
   free(x);
   NnBatchNorm_done(&l);
}

/* ---- attention ---- */

static void setParam(NnParam *p, const float *v) {
   memcpy(p->w, v, NnParam_size(p) * sizeof(float));
}

static void test_attention_by_hand(void **state) {
   (void)state;
   Rng rng;
   Rng_seed(&rng, 11);
   NnAttention l;
   NnAttention_init(&l, "mha", 2, 1, &rng);
   static const float identity[4] = { 1, 0, 0, 1 }, swap[4] = { 0, 1, 1, 0 };
   static const float bk[2] = { 3, -1 }, bo[2] = { 0.5f, -0.5f };
   setParam(&l.Wq, identity);
   setParam(&l.Wk, identity);
   setParam(&l.Wv, swap);
   setParam(&l.Wo, identity);
   setParam(&l.bk, bk);
   setParam(&l.bo, bo);
   /* Sequence 0 is x0 = (1, 0), x1 = (0, 1). q = x; k = x + bk, and a bias on the keys
    * adds q.bk to a whole row of scores, which the softmax ignores. Scores x.x / sqrt(2):
    * the row of x0 is (1/sqrt2, 0), so p = (a, 1 - a) with a = sigmoid(1/sqrt2) =
    * 0.66976155; v swaps: v0 = (0, 1), v1 = (1, 0).
    *   ctx0 = a v0 + (1 - a) v1 = (1 - a, a), y0 = ctx0 + bo + x0 = (2.5 - a, a - 0.5)
    *   ctx1 = (1 - a) v0 + a v1 = (a, 1 - a),  y1 = ctx1 + bo + x1 = (a + 0.5, 1.5 - a)
    * Sequence 1 is (2, 0) twice: uniform p, ctx = (0, 2), y = (0, 2) + bo + (2, 0) =
    * (2.5, 1.5) at both positions; it does not see sequence 0. */
   static const float x[8] = { 1, 0, 0, 1, 2, 0, 2, 0 };
   float y[8];
   NnAttention_forward(&l, x, 2, 2, y);
   double a = 1 / (1 + exp(-1 / sqrt(2.0)));
   float want[8] = { (float)(2.5 - a), (float)(a - 0.5), (float)(a + 0.5), (float)(1.5 - a), 2.5f, 1.5f,
                     2.5f, 1.5f };
   TestUtil_assertClose(y, want, 8, 1e-6, 1e-6);
   NnAttention_done(&l);
}

/* MultiheadAttention computed directly in double: per sequence, per head, softmax of
 * the scaled dot products of the head's slices, then out_proj and the residual. */
static void referenceAttention(NnAttention *l, const float *x, int nseq, int len, float *y) {
   int E = l->embed, H = l->heads, dh = E / H, N = nseq * len;
   double *q = xMalloc((size_t)N * E * sizeof(double)), *k = xMalloc((size_t)N * E * sizeof(double));
   double *v = xMalloc((size_t)N * E * sizeof(double)), *ctx = xCalloc((size_t)N * E, sizeof(double));
   double *p = xMalloc((size_t)len * sizeof(double));
   for (int i = 0; i < N; i++)
      for (int o = 0; o < E; o++) {
         double sq = l->bq.w[o], sk = l->bk.w[o], sv = l->bv.w[o];
         for (int c = 0; c < E; c++) {
            double xc = x[(size_t)i * E + c];
            sq += l->Wq.w[o * E + c] * xc;
            sk += l->Wk.w[o * E + c] * xc;
            sv += l->Wv.w[o * E + c] * xc;
         }
         q[(size_t)i * E + o] = sq;
         k[(size_t)i * E + o] = sk;
         v[(size_t)i * E + o] = sv;
      }
   for (int s = 0; s < nseq; s++)
      for (int h = 0; h < H; h++)
         for (int i = 0; i < len; i++) {
            const double *qi = q + ((size_t)s * len + i) * E + h * dh;
            double max = -INFINITY, sum = 0;
            for (int j = 0; j < len; j++) {
               const double *kj = k + ((size_t)s * len + j) * E + h * dh;
               double d = 0;
               for (int c = 0; c < dh; c++)
                  d += qi[c] * kj[c];
               p[j] = d / sqrt((double)dh);
               max = fmax(max, p[j]);
            }
            for (int j = 0; j < len; j++)
               sum += p[j] = exp(p[j] - max);
            double *ci = ctx + ((size_t)s * len + i) * E + h * dh;
            for (int j = 0; j < len; j++)
               for (int c = 0; c < dh; c++)
                  ci[c] += p[j] / sum * v[((size_t)s * len + j) * E + h * dh + c];
         }
   for (int i = 0; i < N; i++)
      for (int o = 0; o < E; o++) {
         double sy = l->bo.w[o] + x[(size_t)i * E + o];
         for (int c = 0; c < E; c++)
            sy += l->Wo.w[o * E + c] * ctx[(size_t)i * E + c];
         y[(size_t)i * E + o] = (float)sy;
      }
   free(q);
   free(k);
   free(v);
   free(ctx);
   free(p);
}

/* embed 8, 4 heads (head dim 2), with every parameter random, biases included */
static void randomAttention(NnAttention *l, uint64_t seed) {
   Rng rng;
   Rng_seed(&rng, seed);
   NnAttention_init(l, "mha", 8, 4, &rng);
   NnParam *params[8];
   int n = NnAttention_params(l, params);
   for (int i = 0; i < n; i++)
      randomizeParam(params[i], seed * 16 + (uint64_t)i);
}

static void test_attention_matches_reference(void **state) {
   (void)state;
   NnAttention l;
   randomAttention(&l, 12);
   /* growing the caches: a small call, a larger one, then the small one again */
   static const int shapes[3][2] = { { 1, 3 }, { 5, 8 }, { 2, 3 } };
   for (int t = 0; t < 3; t++) {
      int nseq = shapes[t][0], len = shapes[t][1];
      size_t n = (size_t)nseq * len * 8;
      float *x = randomBuffer(n, 13 + (uint64_t)t, -1.5f, 1.5f);
      float *y = xMalloc(n * sizeof(float)), *want = xMalloc(n * sizeof(float));
      NnAttention_forward(&l, x, nseq, len, y);
      referenceAttention(&l, x, nseq, len, want);
      TestUtil_assertClose(y, want, n, 1e-5, 1e-5);
      free(x);
      free(y);
      free(want);
   }
   NnAttention_done(&l);
}

static void attentionForward(LayerCase *c) {
   NnAttention_forward(c->layer, c->x, c->n, c->len, c->y);
}

static void attentionBackward(LayerCase *c, float *dx) {
   NnAttention_backward(c->layer, c->x, c->n, c->len, c->r, dx);
}

static void test_attention_gradients(void **state) {
   (void)state;
   NnAttention l;
   randomAttention(&l, 14);
   int nseq = 2, len = 3;
   size_t n = (size_t)nseq * len * 8;
   float *x = randomBuffer(n, 15, -1.5f, 1.5f);
   NnParam *params[8];
   LayerCase c = { .layer = &l, .forward = attentionForward, .backward = attentionBackward, .n = nseq, .len = len };
   /* a bias on the keys adds q.bk to a whole row of scores, which the softmax ignores */
   checkLayer("attention", &c, x, n, n, 16, params, NnAttention_params(&l, params), &l.bk);
   free(x);
   NnAttention_done(&l);
}

/* ---- segment sum ---- */

static void segmentForward(LayerCase *c) {
   Nn_segmentSum(c->x, c->seg, c->n, c->d, c->nseg, c->y);
}

static void segmentBackward(LayerCase *c, float *dx) {
   Nn_segmentSumBackward(c->r, c->seg, c->n, c->d, dx);
}

static void test_segment_sum(void **state) {
   (void)state;
   static const float x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
   static const int seg[4] = { 0, 2, 0, 2 };
   float y[6] = { 9, 9, 9, 9, 9, 9 };
   Nn_segmentSum(x, seg, 4, 2, 3, y);
   static const float want[6] = { 6, 8, 0, 0, 10, 12 };   /* segment 1 is empty */
   TestUtil_assertClose(y, want, 6, 0, 0);
   static const float dy[6] = { 1, -1, 5, 5, 2, 3 };
   float dx[8];
   Nn_segmentSumBackward(dy, seg, 4, 2, dx);
   static const float wantDx[8] = { 1, -1, 2, 3, 1, -1, 2, 3 };
   TestUtil_assertClose(dx, wantDx, 8, 0, 0);

   static const int seg2[7] = { 0, 0, 1, 2, 2, 2, 1 };
   float *xs = randomBuffer(7 * 3, 17, -1, 1);
   LayerCase c = { .forward = segmentForward, .backward = segmentBackward, .n = 7, .d = 3, .nseg = 3, .seg = seg2 };
   checkLayer("segment sum", &c, xs, 7 * 3, 3 * 3, 18, NULL, 0, NULL);
   free(xs);
}

/* ---- losses ---- */

static void test_lambdarank_by_hand(void **state) {
   (void)state;
   /* scores s = (0.5, 2, 1), labels y = (1, 0, 0.5).
    * Sorted by score: elements 1, 2, 0 (labels 0, 0.5, 1) at positions 1, 2, 3 with
    * D = (1, log2 3, 2), 1/D = (1, 0.63092975, 0.5).
    * maxDCG over the labels sorted (1, 0.5, 0): (2^1 - 1)/1 + (2^0.5 - 1)/log2 3 + 0
    *   = 1 + 0.41421356 / 1.5849625 = 1.26133966.
    * G by position: 0, 0.41421356 / 1.26133966 = 0.32839177, 1 / 1.26133966 = 0.79280786.
    * Pairs whose first label is higher (positions i, j), w = |1/D_i - 1/D_j| |G_i - G_j|:
    *   (2, 1): elements 2 over 1, w = 0.36907025 * 0.32839177 = 0.12119963, s diff -1
    *   (3, 1): elements 0 over 1, w = 0.5 * 0.79280786 = 0.39640393,        s diff -1.5
    *   (3, 2): elements 0 over 2, w = 0.13092975 * 0.46441610 = 0.06080588, s diff -0.5
    * loss = -sum w log2 sigmoid(diff)
    *   = 0.12119963 * 1.89463612 + 0.39640393 * 2.45462050 + 0.06080588 * 1.40529603
    *   = 0.22962920 + 0.97302122 + 0.08545027 = 1.28810068.
    * Each pair adds g = -w (1 - sigmoid(diff)) / ln 2 to the higher-labelled element
    * and -g to the other:
    *   (2 over 1): g = -0.12119963 * 0.73105858 / 0.69314718 = -0.12782859
    *   (0 over 1): g = -0.39640393 * 0.81757448 / 0.69314718 = -0.46756266
    *   (0 over 2): g = -0.06080588 * 0.62245933 / 0.69314718 = -0.05460484
    * ds0 = -0.46756266 - 0.05460484 = -0.52216750
    * ds1 = 0.12782859 + 0.46756266 = 0.59539125
    * ds2 = -0.12782859 + 0.05460484 = -0.07322375 */
   static const float s[3] = { 0.5f, 2, 1 }, y[3] = { 1, 0, 0.5f };
   float ds[3];
   double loss = Nn_lambdaRank(s, y, 3, ds);
   assert_float_equal(loss, 1.28810068, 1e-6);
   static const float want[3] = { -0.52216750f, 0.59539125f, -0.07322375f };
   TestUtil_assertClose(ds, want, 3, 1e-5, 1e-6);
   /* the loss does not depend on the order of the list */
   static const float s2[3] = { 1, 0.5f, 2 }, y2[3] = { 0.5f, 1, 0 };
   float ds2[3];
   assert_float_equal(Nn_lambdaRank(s2, y2, 3, ds2), loss, 1e-12);
   assert_float_equal(ds2[1], ds[0], 1e-7);
   /* a perfect ranking still pays: sigmoid(diff) < 1 */
   static const float good[3] = { 3, 1, 2 };
   assert_true(Nn_lambdaRank(good, y, 3, ds) < loss);
   /* equal labels: no pairs, no loss */
   static const float same[3] = { 0.5f, 0.5f, 0.5f };
   assert_true(Nn_lambdaRank(s, same, 3, ds) == 0 && ds[0] == 0 && ds[1] == 0 && ds[2] == 0);
}

typedef struct {
   float *score;
   const float *label;
   float *grad;
   int n;
   double (*fn)(const float *, const float *, int, float *);
} LossCase;

static double lossOf(void *ctx) {
   LossCase *c = ctx;
   return c->fn(c->score, c->label, c->n, c->grad);
}

static void checkLossGradient(const char *what, double (*fn)(const float *, const float *, int, float *),
                              float *score, const float *label, int n) {
   float *grad = xMalloc((size_t)n * sizeof(float)), *scratch = xMalloc((size_t)n * sizeof(float));
   fn(score, label, n, grad);
   LossCase c = { score, label, scratch, n, fn };
   Objective o = { lossOf, &c, NULL };
   TestUtil_checkGradient(what, &o, score, grad, (size_t)n);
   free(grad);
   free(scratch);
}

static void test_lambdarank_gradient(void **state) {
   (void)state;
   /* scores at least 0.05 apart, so that no step of the differences reorders them;
    * labels with ties and a zero */
   enum { N = 8 };
   float score[N] = { 0.3f, -0.45f, 1.2f, 0.8f, -1.0f, 0.05f, 0.55f, -0.2f };
   static const float label[N] = { 0.9f, 0.2f, 0.5f, 1.0f, 0, 0.5f, 0.7f, 0.2f };
   checkLossGradient("lambdarank", Nn_lambdaRank, score, label, N);
}

static void test_mse(void **state) {
   (void)state;
   static const float pred[3] = { 1, 2, 3 }, label[3] = { 1.5f, 2, 1 };
   float d[3];
   /* (0.25 + 0 + 4) / 3; d = 2 (pred - label) / 3 */
   assert_float_equal(Nn_mse(pred, label, 3, d), 4.25 / 3, 1e-7);
   static const float want[3] = { -1 / 3.0f, 0, 4 / 3.0f };
   TestUtil_assertClose(d, want, 3, 1e-6, 0);
   float *score = randomBuffer(6, 19, -1, 1), *lab = randomBuffer(6, 20, 0, 1);
   checkLossGradient("mse", Nn_mse, score, lab, 6);
   free(score);
   free(lab);
}

/* ---- optimizer ---- */

static void test_adam_by_hand(void **state) {
   (void)state;
   /* lr 0.1, weight decay 0.1, betas 0.9, 0.999, eps 1e-8; w = (1, -2).
    * Step 1, gradients (0.5, 0.1): g = grad + 0.1 w = (0.6, -0.1);
    *   m = 0.1 g = (0.06, -0.01), v = 0.001 g^2 = (3.6e-4, 1e-5);
    *   m^ = m / 0.1 = g, v^ = v / 0.001 = g^2, so w -= 0.1 g / (|g| + 1e-8):
    *   w = (1 - 0.1 * 0.6 / 0.60000001, -2 + 0.1 * 0.1 / 0.10000001) = (0.90000000167, -1.90000001).
    * Step 2, gradients (-0.5, 0.2): g = (-0.5 + 0.09, 0.2 - 0.19) = (-0.41, 0.01);
    *   m = 0.9 m + 0.1 g = (0.054 - 0.041, -0.009 + 0.001) = (0.013, -0.008);
    *   v = 0.999 v + 0.001 g^2 = (3.5964e-4 + 1.681e-4, 9.99e-6 + 1e-7) = (5.2774e-4, 1.009e-5);
    *   m^ = m / 0.19 = (0.06842105, -0.04210526), v^ = v / 0.001999 = (0.26400200, 0.00504752);
    *   w -= 0.1 m^ / (sqrt(v^) + 1e-8) = 0.1 (0.06842105 / 0.51381125, -0.04210526 / 0.07104603)
    *   w = (0.90000000 - 0.01331624, -1.90000001 + 0.05926485) = (0.88668362, -1.84073517). */
   NnParam p;
   NnParam_init(&p, "w", 1, 2);
   p.w[0] = 1;
   p.w[1] = -2;
   NnAdam a;
   NnAdam_init(&a, 0.1, 0.1);
   assert_true(a.beta1 == 0.9 && a.beta2 == 0.999 && a.eps == 1e-8 && a.t == 0);
   NnParam *params[1] = { &p };
   p.g[0] = 0.5f;
   p.g[1] = 0.1f;
   NnAdam_step(&a, params, 1);
   static const float step1[2] = { 0.9f, -1.9f };
   TestUtil_assertClose(p.w, step1, 2, 1e-6, 0);
   assert_true(p.g[0] == 0.5f);   /* the gradient is left alone */
   p.g[0] = -0.5f;
   p.g[1] = 0.2f;
   NnAdam_step(&a, params, 1);
   static const float step2[2] = { 0.88668362f, -1.84073517f };
   TestUtil_assertClose(p.w, step2, 2, 1e-6, 0);
   assert_int_equal(a.t, 2);
   NnParam_done(&p);
}

static void test_clip_grad_norm(void **state) {
   (void)state;
   NnParam a, b;
   NnParam_init(&a, "a", 1, 2);
   NnParam_init(&b, "b", 1, 1);
   NnParam *params[2] = { &a, &b };
   /* (3, 4) and (12): norm sqrt(9 + 16 + 144) = 13; clipped to 6.5 by 6.5 / (13 + 1e-6) */
   a.g[0] = 3;
   a.g[1] = 4;
   b.g[0] = 12;
   assert_float_equal(Nn_clipGradNorm(params, 2, 6.5), 13, 1e-9);
   static const float half[2] = { 1.5f, 2 };
   TestUtil_assertClose(a.g, half, 2, 1e-6, 0);
   assert_float_equal(b.g[0], 6, 1e-5);
   /* under the bound nothing changes */
   assert_float_equal(Nn_clipGradNorm(params, 2, 7), 6.5, 1e-5);
   TestUtil_assertClose(a.g, half, 2, 1e-6, 0);
   NnParam_done(&a);
   NnParam_done(&b);
}

/* ---- feature normalization ---- */

static void test_column_max(void **state) {
   (void)state;
   float x[9] = { 1, -2, 0, 4, -1, 0, 2, -3, 0 };
   float norm[3];
   Nn_columnMax(x, 3, 3, norm);
   static const float want[3] = { 4, 1, 1 };   /* a column without a positive max keeps 1 */
   TestUtil_assertClose(norm, want, 3, 0, 0);
   Nn_normalize(x, 3, 3, norm);
   static const float wantX[9] = { 0.25f, -2, 0, 1, -1, 0, 0.5f, -3, 0 };
   TestUtil_assertClose(x, wantX, 9, 0, 0);
}

/* ---- a whole network ---- */

/* dense(5, 6) - ReLU - segment sum (7 rows into 3) - batch norm (training) -
 * x + ReLU(dense(6, 6)(x)) - dense(6, 1) */
typedef struct {
   NnDense in, res, out;
   NnBatchNorm bn;
   float *x;                    /* 7 x 5 */
   const int *seg;
   const float *r;              /* 3 */
   float h1[7 * 6], s[3 * 6], b[3 * 6], h2[3 * 6], z[3 * 6], y[3];
} Net;

static double netLoss(void *ctx) {
   Net *n = ctx;
   NnDense_forward(&n->in, n->x, 7, n->h1);
   Nn_relu(n->h1, 7 * 6);
   Nn_segmentSum(n->h1, n->seg, 7, 6, 3, n->s);
   NnBatchNorm_forward(&n->bn, n->s, 3, true, n->b);
   NnDense_forward(&n->res, n->b, 3, n->h2);
   Nn_relu(n->h2, 3 * 6);
   for (int i = 0; i < 3 * 6; i++)
      n->z[i] = n->b[i] + n->h2[i];
   NnDense_forward(&n->out, n->z, 3, n->y);
   return weighted(n->r, n->y, 3);
}

static void netBackward(Net *n, float *dx) {
   float dz[3 * 6], dh2[3 * 6], db[3 * 6], ds[3 * 6], dh1[7 * 6];
   NnDense_backward(&n->out, n->z, 3, n->r, dz);
   memcpy(dh2, dz, sizeof dh2);
   Nn_reluBackward(n->h2, dh2, 3 * 6);
   NnDense_backward(&n->res, n->b, 3, dh2, db);
   for (int i = 0; i < 3 * 6; i++)
      db[i] += dz[i];
   NnBatchNorm_backward(&n->bn, 3, db, ds);
   Nn_segmentSumBackward(ds, n->seg, 7, 6, dh1);
   Nn_reluBackward(n->h1, dh1, 7 * 6);
   NnDense_backward(&n->in, n->x, 7, dh1, dx);
}

static void test_network_gradients(void **state) {
   (void)state;
   static const int seg[7] = { 0, 1, 1, 2, 0, 2, 2 };
   static const float r[3] = { 0.7f, -1.1f, 0.9f };
   Net n;
   Rng rng;
   Rng_seed(&rng, 21);
   NnDense_init(&n.in, "in", 5, 6, &rng);
   NnDense_init(&n.res, "res", 6, 6, &rng);
   NnDense_init(&n.out, "out", 6, 1, &rng);
   NnBatchNorm_init(&n.bn, "bn", 6);
   randomizeParam(&n.bn.gamma, 22);
   randomizeParam(&n.bn.beta, 23);
   n.x = randomBuffer(7 * 5, 24, -1, 1);
   n.seg = seg;
   n.r = r;
   float dx[7 * 5];
   Objective o = { netLoss, &n, NULL };
   netLoss(&n);
   netBackward(&n, dx);
   TestUtil_checkGradient("network dx", &o, n.x, dx, 7 * 5);
   NnParam *params[8];
   int np = NnDense_params(&n.in, params);
   np += NnBatchNorm_params(&n.bn, params + np);
   np += NnDense_params(&n.res, params + np);
   np += NnDense_params(&n.out, params + np);
   assert_int_equal(np, 8);
   for (int i = 0; i < np; i++)
      checkParam(&o, params[i]);
   free(n.x);
   NnDense_done(&n.in);
   NnDense_done(&n.res);
   NnDense_done(&n.out);
   NnBatchNorm_done(&n.bn);
}

/* ---- initialization ---- */

static void assertWithin(const NnParam *p, double bound) {
   double max = 0;
   for (size_t i = 0; i < NnParam_size(p); i++)
      max = fmax(max, fabs(p->w[i]));
   if (!(max <= bound && max > 0.8 * bound))
      fail_msg("%s: largest |w| %.6g for the bound %.6g", p->name, max, bound);
}

static void test_init_deterministic(void **state) {
   (void)state;
   Rng r1, r2, r3;
   Rng_seed(&r1, 42);
   Rng_seed(&r2, 42);
   Rng_seed(&r3, 43);
   NnDense d1, d2, d3;
   NnDense_init(&d1, "fc", 64, 32, &r1);
   NnDense_init(&d2, "fc", 64, 32, &r2);
   NnDense_init(&d3, "fc", 64, 32, &r3);
   assert_memory_equal(d1.W.w, d2.W.w, 64 * 32 * sizeof(float));
   assert_memory_equal(d1.b.w, d2.b.w, 32 * sizeof(float));
   assert_memory_not_equal(d1.W.w, d3.W.w, 64 * 32 * sizeof(float));
   assertWithin(&d1.W, 1 / 8.0);
   assertWithin(&d1.b, 1 / 8.0);
   NnAttention a1, a2;
   NnAttention_init(&a1, "mha", 32, 4, &r1);
   NnAttention_init(&a2, "mha", 32, 4, &r2);
   NnParam *p1[8], *p2[8];
   NnAttention_params(&a1, p1);
   NnAttention_params(&a2, p2);
   for (int i = 0; i < 8; i++) {
      assert_int_equal(p1[i]->rows * p1[i]->cols, i % 2 ? 32 : 32 * 32);
      assert_memory_equal(p1[i]->w, p2[i]->w, NnParam_size(p1[i]) * sizeof(float));
   }
   /* in_proj: xavier over the stacked 3E x E matrix; out_proj: a Linear's; biases 0 */
   assertWithin(&a1.Wq, sqrt(6.0 / 128));
   assertWithin(&a1.Wk, sqrt(6.0 / 128));
   assertWithin(&a1.Wv, sqrt(6.0 / 128));
   assertWithin(&a1.Wo, 1 / sqrt(32.0));
   for (int i = 0; i < 32; i++)
      assert_true(a1.bq.w[i] == 0 && a1.bk.w[i] == 0 && a1.bv.w[i] == 0 && a1.bo.w[i] == 0);
   assert_string_equal(a1.Wk.name, "mha.Wk");
   NnDense_done(&d1);
   NnDense_done(&d2);
   NnDense_done(&d3);
   NnAttention_done(&a1);
   NnAttention_done(&a2);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dense_by_hand),
      cmocka_unit_test(test_dense_gradients),
      cmocka_unit_test(test_relu),
      cmocka_unit_test(test_batchnorm_by_hand),
      cmocka_unit_test(test_batchnorm_gradients),
      cmocka_unit_test(test_attention_by_hand),
      cmocka_unit_test(test_attention_matches_reference),
      cmocka_unit_test(test_attention_gradients),
      cmocka_unit_test(test_segment_sum),
      cmocka_unit_test(test_lambdarank_by_hand),
      cmocka_unit_test(test_lambdarank_gradient),
      cmocka_unit_test(test_mse),
      cmocka_unit_test(test_adam_by_hand),
      cmocka_unit_test(test_clip_grad_norm),
      cmocka_unit_test(test_column_max),
      cmocka_unit_test(test_network_gradients),
      cmocka_unit_test(test_init_deterministic),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
