/* The MLP and PAM networks on the layers of cost/nn.h: forward and backward passes
 * over a batch of samples, the training loop, normalization, the checkpoint payload,
 * and the cost-model operations of a model made of one network. */
#include "config.h"

#include "cost/neural.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cost/checkpoint.h"
#include "cost/models.h"
#include "util/xalloc.h"

/* Widths above this are refused on reading: a damaged file must not make the
 * reader allocate gigabytes. */
#define NEURAL_MAX_WIDTH 1024

/* ---- scratch: buffers that grow to the largest batch seen and are reused ---- */

typedef struct {
   float *v;
   size_t cap;
} FloatBuf;

typedef struct {
   int *v;
   size_t cap;
} IntBuf;

/* v, or a fresh block of n elements when it holds fewer (*cap counts them) */
static void *grown(void *v, size_t *cap, size_t n, size_t elem) {
   if (n <= *cap)
      return v;
   free(v);
   *cap = n;
   return xMalloc((n > 0 ? n : 1) * elem);
}

static float *floats(FloatBuf *b, size_t n) {
   return b->v = grown(b->v, &b->cap, n, sizeof *b->v);
}

static int *ints(IntBuf *b, size_t n) {
   return b->v = grown(b->v, &b->cap, n, sizeof *b->v);
}

/* What the last forward pass computed, which backward reads, and backward's own
 * buffers. Rows: the samples' feature rows; sequences: the distinct pattern blocks. */
struct NeuralScratch_ {
   int n, nrows, nseq;
   IntBuf seg;                  /* row -> its sample's place in the batch */
   IntBuf seqOf;                /* sample -> its pattern sequence; -1 predicting: the zero block */
   IntBuf posSeq;               /* pattern position -> its sequence */
   FloatBuf x, a1, a2, h1;      /* rows x in, rows x hidden (two), n x hidden */
   FloatBuf p, p1, p2, z, h2;   /* pattern positions x width, p1, p2, p2; sequences x p2 */
   FloatBuf zeroBlock, zeroH2;  /* an all-zero block and its branch output */
   FloatBuf c, f, g0;           /* n x (hidden + p2), n x hidden, n x hidden */
   FloatBuf u0, g1, u1, g2;     /* n x hidden: residual branches and sums */
   const float *g0v;            /* the first residual block's input: h1 or g0 */
   /* backward */
   FloatBuf dg, du, dx, df, dc, dh1, dh2, dz, dp2, dp1, da2, da1;
};

static void FloatBuf_done(FloatBuf *b) {
   free(b->v);
}

static void scratchFree(NeuralScratch *w) {
   if (!w)
      return;
   FloatBuf *all[] = { &w->x,  &w->a1, &w->a2,  &w->h1,  &w->p,  &w->p1,  &w->p2,  &w->z,   &w->h2,  &w->zeroBlock,
                       &w->zeroH2, &w->c, &w->f, &w->g0, &w->u0, &w->g1, &w->u1, &w->g2, &w->dg, &w->du,
                       &w->dx, &w->df, &w->dc, &w->dh1, &w->dh2, &w->dz, &w->dp2, &w->dp1, &w->da2, &w->da1 };
   for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
      FloatBuf_done(all[i]);
   free(w->seg.v);
   free(w->seqOf.v);
   free(w->posSeq.v);
   free(w);
}

/* ---- construction ---- */

const char *NeuralShape_check(const NeuralShape *s, char *buf, size_t size) {
   if (s->in != SAMPLE_ROW_LEN && s->in != NEURAL_DEVICE_IN) {
      snprintf(buf, size,
               "the network reads feature rows of %d floats; this program's have %d (%d with the device's features)",
               s->in, SAMPLE_ROW_LEN, NEURAL_DEVICE_IN);
      return buf;
   }
   if (s->hidden < 1 || s->hidden > NEURAL_MAX_WIDTH) {
      snprintf(buf, size, "the hidden width %d is out of range (1 to %d)", s->hidden, NEURAL_MAX_WIDTH);
      return buf;
   }
   if (s->patLen == 0 && s->patWidth == 0 && s->pat1 == 0 && s->pat2 == 0 && s->heads == 0)
      return NULL;
   if (s->patLen != PATTERN_LEN || s->patWidth != PATTERN_WIDTH) {
      snprintf(buf, size, "the network reads pattern blocks of %d x %d floats; this program's are %d x %d",
               s->patLen, s->patWidth, PATTERN_LEN, PATTERN_WIDTH);
      return buf;
   }
   if (s->pat1 < 1 || s->pat1 > NEURAL_MAX_WIDTH || s->pat2 < 1 || s->pat2 > NEURAL_MAX_WIDTH) {
      snprintf(buf, size, "the pattern branch's widths %d and %d are out of range (1 to %d)", s->pat1, s->pat2,
               NEURAL_MAX_WIDTH);
      return buf;
   }
   if (s->heads < 1 || s->pat2 % s->heads != 0) {
      snprintf(buf, size, "%d attention heads do not divide the width %d", s->heads, s->pat2);
      return buf;
   }
   return NULL;
}

static void addParams(NeuralNet *net, int n, NnParam **p) {
   for (int i = 0; i < n; i++)
      net->params[net->nparams++] = p[i];
}

NeuralNet *NeuralNet_new(const NeuralShape *shape, uint64_t seed) {
   char why[160];
   if (NeuralShape_check(shape, why, sizeof why))
      fatal("a network of an impossible shape: %s", why);
   NeuralNet *net = xCalloc(1, sizeof *net);
   const NeuralShape *s = &net->shape;
   net->shape = *shape;
   net->pattern = s->patLen > 0;
   net->sharePattern = true;
   net->work = xCalloc(1, sizeof *net->work);
   Rng rng;
   Rng_seed(&rng, seed);
   NnParam *p[8];
   NnDense_init(&net->stmt1, "stmt1", s->in, s->hidden, &rng);
   addParams(net, NnDense_params(&net->stmt1, p), p);
   NnDense_init(&net->stmt2, "stmt2", s->hidden, s->hidden, &rng);
   addParams(net, NnDense_params(&net->stmt2, p), p);
   if (net->pattern) {
      NnDense_init(&net->pattern1, "pattern1", s->patWidth, s->pat1, &rng);
      addParams(net, NnDense_params(&net->pattern1, p), p);
      NnDense_init(&net->pattern2, "pattern2", s->pat1, s->pat2, &rng);
      addParams(net, NnDense_params(&net->pattern2, p), p);
      NnAttention_init(&net->attention, "attention", s->pat2, s->heads, &rng);
      addParams(net, NnAttention_params(&net->attention, p), p);
      NnDense_init(&net->fuse, "fuse", s->hidden + s->pat2, s->hidden, &rng);
      addParams(net, NnDense_params(&net->fuse, p), p);
      NnBatchNorm_init(&net->norm, "norm", s->hidden);
      addParams(net, NnBatchNorm_params(&net->norm, p), p);
   }
   NnDense_init(&net->res[0], "res0", s->hidden, s->hidden, &rng);
   addParams(net, NnDense_params(&net->res[0], p), p);
   NnDense_init(&net->res[1], "res1", s->hidden, s->hidden, &rng);
   addParams(net, NnDense_params(&net->res[1], p), p);
   NnDense_init(&net->out, "out", s->hidden, 1, &rng);
   addParams(net, NnDense_params(&net->out, p), p);
   net->rowNorm = xMalloc((size_t)s->in * sizeof(float));
   for (int c = 0; c < s->in; c++)
      net->rowNorm[c] = 1;
   net->patNorm = xMalloc((size_t)(s->patWidth + 1) * sizeof(float));
   for (int c = 0; c < s->patWidth; c++)
      net->patNorm[c] = 1;
   return net;
}

/* dst (of src's shape) takes src's weights, batch-norm statistics and normalization. */
static void copyState(NeuralNet *dst, const NeuralNet *src) {
   for (int i = 0; i < src->nparams; i++)
      memcpy(dst->params[i]->w, src->params[i]->w, NnParam_size(src->params[i]) * sizeof(float));
   int h = src->shape.hidden;
   if (src->pattern) {
      memcpy(dst->norm.runMean, src->norm.runMean, (size_t)h * sizeof(float));
      memcpy(dst->norm.runVar, src->norm.runVar, (size_t)h * sizeof(float));
   }
   memcpy(dst->rowNorm, src->rowNorm, (size_t)src->shape.in * sizeof(float));
   memcpy(dst->patNorm, src->patNorm, (size_t)src->shape.patWidth * sizeof(float));
   dst->fitted = src->fitted;
   dst->sharePattern = src->sharePattern;
}

NeuralNet *NeuralNet_copy(const NeuralNet *src) {
   NeuralNet *net = NeuralNet_new(&src->shape, 0);
   copyState(net, src);
   return net;
}

void NeuralNet_free(NeuralNet *net) {
   if (!net)
      return;
   NnDense_done(&net->stmt1);
   NnDense_done(&net->stmt2);
   if (net->pattern) {
      NnDense_done(&net->pattern1);
      NnDense_done(&net->pattern2);
      NnAttention_done(&net->attention);
      NnDense_done(&net->fuse);
      NnBatchNorm_done(&net->norm);
   }
   NnDense_done(&net->res[0]);
   NnDense_done(&net->res[1]);
   NnDense_done(&net->out);
   free(net->rowNorm);
   free(net->patNorm);
   scratchFree(net->work);
   free(net);
}

/* ---- forward ---- */

static bool allZero(const float *x, size_t n) {
   for (size_t i = 0; i < n; i++)
      if (x[i] != 0)
         return false;
   return true;
}

/* The pattern branch on nseq sequences of normalized blocks at p: each sequence's
 * sum over its positions into h2 (nseq x p2). Keeps what backward reads. */
static void patternBranch(NeuralNet *net, const float *p, int nseq, float *h2) {
   NeuralScratch *w = net->work;
   const NeuralShape *s = &net->shape;
   int L = s->patLen, P2 = s->pat2, pos = nseq * L;
   float *p1 = floats(&w->p1, (size_t)pos * s->pat1);
   NnDense_forward(&net->pattern1, p, pos, p1);
   Nn_relu(p1, (size_t)pos * s->pat1);
   float *p2 = floats(&w->p2, (size_t)pos * P2);
   NnDense_forward(&net->pattern2, p1, pos, p2);
   Nn_relu(p2, (size_t)pos * P2);
   float *z = floats(&w->z, (size_t)pos * P2);
   NnAttention_forward(&net->attention, p2, nseq, L, z);
   int *posSeq = ints(&w->posSeq, (size_t)pos);
   for (int r = 0; r < pos; r++)
      posSeq[r] = r / L;
   Nn_segmentSum(z, posSeq, pos, P2, nseq, h2);
}

/* The pattern branch's output for an all-zero block, from a pass of that one block
 * alone: the same bits whenever it is computed, whatever the batch around it (a BLAS's
 * rounding may depend on a matrix's size and a row's place in it). */
static const float *zeroBlockBranch(NeuralNet *net) {
   NeuralScratch *w = net->work;
   const NeuralShape *s = &net->shape;
   size_t block = (size_t)s->patLen * s->patWidth;
   float *zeros = floats(&w->zeroBlock, block);
   memset(zeros, 0, block * sizeof(float));
   float *h2 = floats(&w->zeroH2, (size_t)s->pat2);
   patternBranch(net, zeros, 1, h2);
   return h2;
}

/* The pattern branch and the fuse layer: h1 (n x hidden) -> the first residual
 * block's input. All-zero blocks (no pattern found) give the same branch output:
 * when predicting, it comes from one pass of that block alone, once per batch
 * (sharePattern) or once per such sample; when training, the block is one sequence
 * of the batch's pass that every such sample shares (or one per sample), so that
 * backward sums their gradients into it. */
static const float *patternForward(NeuralNet *net, const Dataset *d, const int *samples, int n, bool training,
                                   const float *h1) {
   NeuralScratch *w = net->work;
   const NeuralShape *s = &net->shape;
   int H = s->hidden, L = s->patLen, block = s->patLen * s->patWidth, P2 = s->pat2, C = H + P2;
   int *seqOf = ints(&w->seqOf, (size_t)n);
   float *p = floats(&w->p, (size_t)n * block);
   int nseq = 0, zeroSeq = -1;
   for (int b = 0; b < n; b++) {
      const float *blk = d->pattern + (int64_t)samples[b] * SAMPLE_PATTERN_LEN;
      if (allZero(blk, (size_t)block) && (!training || net->sharePattern)) {
         if (!training) {
            seqOf[b] = -1;
            continue;
         }
         if (zeroSeq < 0) {
            zeroSeq = nseq++;
            memset(p + (size_t)zeroSeq * block, 0, (size_t)block * sizeof(float));
         }
         seqOf[b] = zeroSeq;
         continue;
      }
      memcpy(p + (size_t)nseq * block, blk, (size_t)block * sizeof(float));
      seqOf[b] = nseq++;
   }
   const float *zeroH2 = NULL;
   if (!training)
      for (int b = 0; b < n && !zeroH2; b++)
         if (seqOf[b] < 0)
            zeroH2 = zeroBlockBranch(net);
   w->nseq = nseq;
   Nn_normalize(p, nseq * L, s->patWidth, net->patNorm);
   float *h2 = floats(&w->h2, (size_t)nseq * P2);
   patternBranch(net, p, nseq, h2);
   float *c = floats(&w->c, (size_t)n * C);
   for (int b = 0; b < n; b++) {
      if (seqOf[b] < 0 && !net->sharePattern)
         zeroH2 = zeroBlockBranch(net);
      memcpy(c + (size_t)b * C, h1 + (size_t)b * H, (size_t)H * sizeof(float));
      memcpy(c + (size_t)b * C + H, seqOf[b] < 0 ? zeroH2 : h2 + (size_t)seqOf[b] * P2, (size_t)P2 * sizeof(float));
   }
   float *f = floats(&w->f, (size_t)n * H);
   NnDense_forward(&net->fuse, c, n, f);
   Nn_relu(f, (size_t)n * H);
   float *g0 = floats(&w->g0, (size_t)n * H);
   NnBatchNorm_forward(&net->norm, f, n, training, g0);
   return g0;
}

/* y = x + ReLU(l(x)); u keeps the ReLU's output */
static void residualForward(const NnDense *l, const float *x, int n, float *u, float *y) {
   size_t len = (size_t)n * l->out;
   NnDense_forward(l, x, n, u);
   Nn_relu(u, len);
   for (size_t i = 0; i < len; i++)
      y[i] = x[i] + u[i];
}

void NeuralNet_forward(NeuralNet *net, const Dataset *d, const int *samples, int n, bool training,
                       float *scores) {
   NeuralScratch *w = net->work;
   const NeuralShape *s = &net->shape;
   int H = s->hidden, in = s->in;
   int nrows = 0;
   for (int b = 0; b < n; b++)
      nrows += Dataset_rows(d, samples[b]);
   w->n = n;
   w->nrows = nrows;
   float *x = floats(&w->x, (size_t)nrows * in);
   int *seg = ints(&w->seg, (size_t)nrows);
   int r = 0;
   for (int b = 0; b < n; b++) {
      int k = Dataset_rows(d, samples[b]);
      if (in == SAMPLE_ROW_LEN) {
         memcpy(x + (size_t)r * in, Dataset_row(d, samples[b], 0), (size_t)k * in * sizeof(float));
      } else {
         /* each row, then the sample's device features */
         for (int j = 0; j < k; j++) {
            float *row = x + (size_t)(r + j) * in;
            memcpy(row, Dataset_row(d, samples[b], j), SAMPLE_ROW_LEN * sizeof(float));
            memcpy(row + SAMPLE_ROW_LEN, Dataset_device(d, samples[b]), DEVICE_FEATURE_LEN * sizeof(float));
         }
      }
      for (int j = 0; j < k; j++)
         seg[r + j] = b;
      r += k;
   }
   Nn_normalize(x, nrows, in, net->rowNorm);
   float *a1 = floats(&w->a1, (size_t)nrows * H), *a2 = floats(&w->a2, (size_t)nrows * H);
   NnDense_forward(&net->stmt1, x, nrows, a1);
   Nn_relu(a1, (size_t)nrows * H);
   NnDense_forward(&net->stmt2, a1, nrows, a2);
   Nn_relu(a2, (size_t)nrows * H);
   float *h1 = floats(&w->h1, (size_t)n * H);
   Nn_segmentSum(a2, seg, nrows, H, n, h1);
   const float *g0 = net->pattern ? patternForward(net, d, samples, n, training, h1) : h1;
   w->g0v = g0;
   float *u0 = floats(&w->u0, (size_t)n * H), *g1 = floats(&w->g1, (size_t)n * H);
   float *u1 = floats(&w->u1, (size_t)n * H), *g2 = floats(&w->g2, (size_t)n * H);
   residualForward(&net->res[0], g0, n, u0, g1);
   residualForward(&net->res[1], g1, n, u1, g2);
   NnDense_forward(&net->out, g2, n, scores);
}

void NeuralNet_predict(NeuralNet *net, const Dataset *d, float *scores) {
   int *batch = xMalloc(NEURAL_PREDICT_BATCH * sizeof *batch);
   float *out = xMalloc(NEURAL_PREDICT_BATCH * sizeof *out);
   int n = 0;
   for (int i = 0; i <= d->n; i++) {
      if (n == NEURAL_PREDICT_BATCH || (i == d->n && n > 0)) {
         NeuralNet_forward(net, d, batch, n, false, out);
         for (int b = 0; b < n; b++)
            scores[batch[b]] = out[b];
         n = 0;
      }
      if (i == d->n)
         break;
      if (Dataset_rows(d, i) > 0)
         batch[n++] = i;
      else
         scores[i] = -INFINITY;
   }
   free(out);
   free(batch);
}

/* ---- backward ---- */

/* Through y = x + ReLU(l(x)): dy (n x out) in, dL/dx out in its place. */
static void residualBackward(NnDense *l, const float *x, const float *u, int n, float *dy, float *du, float *dx) {
   size_t len = (size_t)n * l->out;
   memcpy(du, dy, len * sizeof(float));
   Nn_reluBackward(u, du, len);
   NnDense_backward(l, x, n, du, dx);
   for (size_t i = 0; i < len; i++)
      dy[i] += dx[i];
}

/* Through the fuse layer and the pattern branch, from dL/d(the first residual
 * block's input); returns dL/dh1. */
static const float *patternBackward(NeuralNet *net, const float *dg0) {
   NeuralScratch *w = net->work;
   const NeuralShape *s = &net->shape;
   int n = w->n, H = s->hidden, P2 = s->pat2, C = H + P2, L = s->patLen, nseq = w->nseq, pos = nseq * L;
   float *df = floats(&w->df, (size_t)n * H);
   NnBatchNorm_backward(&net->norm, n, dg0, df);
   Nn_reluBackward(w->f.v, df, (size_t)n * H);
   float *dc = floats(&w->dc, (size_t)n * C);
   NnDense_backward(&net->fuse, w->c.v, n, df, dc);
   float *dh1 = floats(&w->dh1, (size_t)n * H), *dh2 = floats(&w->dh2, (size_t)nseq * P2);
   memset(dh2, 0, (size_t)nseq * P2 * sizeof(float));
   for (int b = 0; b < n; b++) {
      const float *row = dc + (size_t)b * C;
      memcpy(dh1 + (size_t)b * H, row, (size_t)H * sizeof(float));
      float *to = dh2 + (size_t)w->seqOf.v[b] * P2;
      for (int k = 0; k < P2; k++)
         to[k] += row[H + k];
   }
   float *dz = floats(&w->dz, (size_t)pos * P2), *dp2 = floats(&w->dp2, (size_t)pos * P2);
   Nn_segmentSumBackward(dh2, w->posSeq.v, pos, P2, dz);
   NnAttention_backward(&net->attention, w->p2.v, nseq, L, dz, dp2);
   Nn_reluBackward(w->p2.v, dp2, (size_t)pos * P2);
   float *dp1 = floats(&w->dp1, (size_t)pos * s->pat1);
   NnDense_backward(&net->pattern2, w->p1.v, pos, dp2, dp1);
   Nn_reluBackward(w->p1.v, dp1, (size_t)pos * s->pat1);
   NnDense_backward(&net->pattern1, w->p.v, pos, dp1, NULL);
   return dh1;
}

void NeuralNet_backward(NeuralNet *net, const float *dscore) {
   NeuralScratch *w = net->work;
   int n = w->n, nrows = w->nrows, H = net->shape.hidden;
   float *dg = floats(&w->dg, (size_t)n * H), *du = floats(&w->du, (size_t)n * H);
   float *dx = floats(&w->dx, (size_t)n * H);
   NnDense_backward(&net->out, w->g2.v, n, dscore, dg);
   residualBackward(&net->res[1], w->g1.v, w->u1.v, n, dg, du, dx);
   residualBackward(&net->res[0], w->g0v, w->u0.v, n, dg, du, dx);
   const float *dh1 = net->pattern ? patternBackward(net, dg) : dg;
   float *da2 = floats(&w->da2, (size_t)nrows * H), *da1 = floats(&w->da1, (size_t)nrows * H);
   Nn_segmentSumBackward(dh1, w->seg.v, nrows, H, da2);
   Nn_reluBackward(w->a2.v, da2, (size_t)nrows * H);
   NnDense_backward(&net->stmt2, w->a1.v, nrows, da2, da1);
   Nn_reluBackward(w->a1.v, da1, (size_t)nrows * H);
   NnDense_backward(&net->stmt1, w->x.v, nrows, da1, NULL);
}

static uint64_t hashActive(uint64_t h, const float *v, size_t n) {
   for (size_t i = 0; i < n; i++)
      h = (h ^ (uint64_t)(v[i] > 0)) * 0x100000001b3ull;   /* FNV-1a */
   return h;
}

uint64_t NeuralNet_reluSignature(const NeuralNet *net) {
   const NeuralScratch *w = net->work;
   const NeuralShape *s = &net->shape;
   size_t rows = (size_t)w->nrows * s->hidden, n = (size_t)w->n * s->hidden;
   uint64_t h = 0xcbf29ce484222325ull;
   h = hashActive(h, w->a1.v, rows);
   h = hashActive(h, w->a2.v, rows);
   if (net->pattern) {
      size_t pos = (size_t)w->nseq * s->patLen;
      h = hashActive(h, w->p1.v, pos * s->pat1);
      h = hashActive(h, w->p2.v, pos * s->pat2);
      h = hashActive(h, w->f.v, n);
   }
   h = hashActive(h, w->u0.v, n);
   return hashActive(h, w->u1.v, n);
}

/* ---- training ---- */

/* max[c] = the largest of max[c] and column c of x (n x d) */
static void columnMaxInto(const float *x, int n, int d, float *max) {
   for (int r = 0; r < n; r++)
      for (int c = 0; c < d; c++)
         max[c] = x[(size_t)r * d + c] > max[c] ? x[(size_t)r * d + c] : max[c];
}

/* Nn_columnMax over the rows (and pattern positions) of the samples used, read where
 * they lie rather than gathered: a large training set's rows would not fit twice. */
static void setNormalization(NeuralNet *net, const Dataset *d, const int *use, int n) {
   const NeuralShape *s = &net->shape;
   memset(net->rowNorm, 0, (size_t)s->in * sizeof(float));
   memset(net->patNorm, 0, (size_t)s->patWidth * sizeof(float));
   for (int i = 0; i < n; i++) {
      columnMaxInto(Dataset_row(d, use[i], 0), Dataset_rows(d, use[i]), SAMPLE_ROW_LEN, net->rowNorm);
      if (s->in == NEURAL_DEVICE_IN && Dataset_rows(d, use[i]) > 0)
         columnMaxInto(Dataset_device(d, use[i]), 1, DEVICE_FEATURE_LEN, net->rowNorm + SAMPLE_ROW_LEN);
      if (net->pattern)
         columnMaxInto(d->pattern + (int64_t)use[i] * SAMPLE_PATTERN_LEN, s->patLen, s->patWidth, net->patNorm);
   }
   for (int c = 0; c < s->in; c++)
      if (!(net->rowNorm[c] > 0))
         net->rowNorm[c] = 1;
   for (int c = 0; c < s->patWidth; c++)
      if (!(net->patNorm[c] > 0))
         net->patNorm[c] = 1;
}

/* New weights from seed, as NeuralNet_new draws them, and fresh batch statistics. */
static void reinitialize(NeuralNet *net, uint64_t seed) {
   NeuralNet *fresh = NeuralNet_new(&net->shape, seed);
   memcpy(fresh->rowNorm, net->rowNorm, (size_t)net->shape.in * sizeof(float));
   memcpy(fresh->patNorm, net->patNorm, (size_t)net->shape.patWidth * sizeof(float));
   fresh->fitted = net->fitted;
   fresh->sharePattern = net->sharePattern;
   copyState(net, fresh);
   NeuralNet_free(fresh);
}

static void shuffle(int *v, int n, Rng *rng) {
   for (int i = n - 1; i > 0; i--) {
      int j = (int)Rng_below(rng, (uint64_t)i + 1);
      int t = v[i];
      v[i] = v[j];
      v[j] = t;
   }
}

/* One epoch over use[0..n-1] in mini-batches; returns the mean batch loss: LambdaRank
 * over the labels, or with target the mean squared error against target[i]. */
static double epoch(NeuralNet *net, NnAdam *adam, const Dataset *d, const float *target, const int *use, int n,
                    const TrainConfig *cfg, float *scores, float *dscore, float *label) {
   double sum = 0;
   int batches = 0;
   for (int start = 0; start < n;) {
      int size = n - start < cfg->batch ? n - start : cfg->batch;
      if (n - start - size == 1)
         size++;
      const int *b = use + start;
      NeuralNet_forward(net, d, b, size, true, scores);
      for (int i = 0; i < size; i++)
         label[i] = target ? target[b[i]] : d->label[b[i]];
      sum += target ? Nn_mse(scores, label, size, dscore) : Nn_lambdaRank(scores, label, size, dscore);
      for (int k = 0; k < net->nparams; k++)
         NnParam_zeroGrad(net->params[k]);
      NeuralNet_backward(net, dscore);
      if (cfg->clip > 0)
         Nn_clipGradNorm(net->params, net->nparams, cfg->clip);
      NnAdam_step(adam, net->params, net->nparams);
      batches++;
      start += size;
   }
   return sum / batches;
}

/* NeuralNet_fit, or with target NeuralNet_fitRegression. */
static int fit(NeuralNet *net, const Dataset *train, const float *target, const TrainConfig *cfg, bool recomputeNorm,
               const char *who, char **cause) {
   if (cfg->batch < 2)
      return setCause(cause, "%s: a training batch of %d samples is too small (at least 2)", who, cfg->batch);
   int *use = xMalloc((size_t)(train->n > 0 ? train->n : 1) * sizeof *use);
   int n = 0;
   for (int i = 0; i < train->n; i++)
      if (Dataset_rows(train, i) > 0 && (target ? isfinite(target[i]) : Dataset_measured(train, i)))
         use[n++] = i;
   if (n < 2) {
      free(use);
      return setCause(cause, "%s: nothing to learn from: %d of the %d samples have feature rows and a %s "
                             "(at least 2 are needed)",
                      who, n, train->n, target ? "target" : "measurement");
   }
   if (cfg->fromScratch)
      reinitialize(net, cfg->seed);
   if (recomputeNorm) {
      setNormalization(net, train, use, n);
      net->fitted = true;
   }
   for (int k = 0; k < net->nparams; k++) {
      NnParam *p = net->params[k];
      memset(p->m, 0, NnParam_size(p) * sizeof(float));
      memset(p->v, 0, NnParam_size(p) * sizeof(float));
   }
   NnAdam adam;
   NnAdam_init(&adam, cfg->lr, cfg->weightDecay);
   Rng rng;
   Rng_seed(&rng, cfg->seed);
   /* a batch may take one sample more than cfg->batch: a last one that would be alone */
   size_t cap = (size_t)cfg->batch + 1;
   float *scores = xMalloc(cap * sizeof *scores), *dscore = xMalloc(cap * sizeof *dscore);
   float *label = xMalloc(cap * sizeof *label);
   double best = INFINITY;
   int bestEpoch = 0;
   for (int e = 0; e < cfg->epochs; e++) {
      shuffle(use, n, &rng);
      double loss = epoch(net, &adam, train, target, use, n, cfg, scores, dscore, label);
      if (cfg->progress && !cfg->progress(cfg->ctx, e + 1, cfg->epochs, loss))
         break;
      if (loss < best) {
         best = loss;
         bestEpoch = e;
      } else if (cfg->earlyStop > 0 && e - bestEpoch >= cfg->earlyStop) {
         break;
      }
   }
   free(scores);
   free(dscore);
   free(label);
   free(use);
   return 0;
}

int NeuralNet_fit(NeuralNet *net, const Dataset *train, const TrainConfig *cfg, bool recomputeNorm,
                  const char *who, char **cause) {
   return fit(net, train, NULL, cfg, recomputeNorm, who, cause);
}

int NeuralNet_fitRegression(NeuralNet *net, const Dataset *train, const float *target, const TrainConfig *cfg,
                            bool recomputeNorm, const char *who, char **cause) {
   return fit(net, train, target, cfg, recomputeNorm, who, cause);
}

void NeuralNet_momentum(NeuralNet *slow, const NeuralNet *fast, double m) {
   for (int k = 0; k < slow->nparams; k++) {
      float *s = slow->params[k]->w;
      const float *f = fast->params[k]->w;
      size_t size = NnParam_size(slow->params[k]);
      for (size_t i = 0; i < size; i++)
         s[i] = (float)(m * s[i] + (1 - m) * f[i]);
   }
}

/* ---- checkpoint payload ---- */

static void shapeFields(const NeuralShape *s, uint32_t f[7]) {
   const int v[7] = { s->in, s->hidden, s->patLen, s->patWidth, s->pat1, s->pat2, s->heads };
   for (int i = 0; i < 7; i++)
      f[i] = (uint32_t)v[i];
}

int NeuralNet_write(const NeuralNet *net, FILE *f) {
   const NeuralShape *s = &net->shape;
   uint32_t fields[7];
   shapeFields(s, fields);
   int rc = Checkpoint_putU32s(f, fields, 7);
   rc |= Checkpoint_putU32(f, net->fitted);
   rc |= Checkpoint_putF32s(f, net->rowNorm, (size_t)s->in);
   if (net->pattern)
      rc |= Checkpoint_putF32s(f, net->patNorm, (size_t)s->patWidth);
   rc |= Checkpoint_putU32(f, (uint32_t)net->nparams);
   for (int k = 0; k < net->nparams; k++) {
      const NnParam *p = net->params[k];
      size_t len = strlen(p->name);
      rc |= Checkpoint_putU32(f, (uint32_t)len);
      rc |= Checkpoint_putBytes(f, p->name, len);
      rc |= Checkpoint_putU32(f, (uint32_t)p->rows);
      rc |= Checkpoint_putU32(f, (uint32_t)p->cols);
      rc |= Checkpoint_putF32s(f, p->w, NnParam_size(p));
   }
   if (net->pattern) {
      rc |= Checkpoint_putF32s(f, net->norm.runMean, (size_t)s->hidden);
      rc |= Checkpoint_putF32s(f, net->norm.runVar, (size_t)s->hidden);
   }
   return rc ? -1 : 0;
}

/* Whether v[0..n) are finite numbers, and above 0 (or 0 and above) when asked;
 * otherwise why not, naming `what`. */
static bool valuesFit(const float *v, size_t n, const char *what, float above, bool orEqual, char *why,
                      size_t size) {
   for (size_t i = 0; i < n; i++)
      if (!isfinite(v[i]) || v[i] < above || (v[i] == above && !orEqual)) {
         snprintf(why, size, "%s holds %g at index %zu, where a finite number%s belongs", what, (double)v[i], i,
                  !isfinite(v[i]) ? "" : orEqual ? " of 0 or more" : " above 0");
         return false;
      }
   return true;
}

int NeuralNet_check(const NeuralNet *net, char *why, size_t size) {
   const NeuralShape *s = &net->shape;
   if (!valuesFit(net->rowNorm, (size_t)s->in, "the feature rows' normalization", 0, false, why, size) ||
       (net->pattern &&
        !valuesFit(net->patNorm, (size_t)s->patWidth, "the pattern blocks' normalization", 0, false, why, size)))
      return -1;
   for (int k = 0; k < net->nparams; k++) {
      const NnParam *p = net->params[k];
      char what[64];
      snprintf(what, sizeof what, "parameter %s", p->name);
      if (!valuesFit(p->w, NnParam_size(p), what, -INFINITY, false, why, size))
         return -1;
   }
   if (net->pattern &&
       (!valuesFit(net->norm.runMean, (size_t)s->hidden, "batch norm's running mean", -INFINITY, false, why, size) ||
        !valuesFit(net->norm.runVar, (size_t)s->hidden, "batch norm's running variance", 0, true, why, size)))
      return -1;
   return 0;
}

/* Parameter k of the file into p, whose name and shape it must have. */
static int readParam(FILE *f, const char *path, int k, NnParam *p, char **cause) {
   char name[sizeof p->name], what[96];
   uint32_t len, rows, cols;
   snprintf(what, sizeof what, "the length of parameter %d's name", k);
   if (Checkpoint_getU32(f, path, what, &len, cause) < 0)
      return -1;
   if (len >= sizeof name)
      return setCause(cause, "%s: parameter %d's name is %u bytes long (at most %zu)", path, k, len,
                      sizeof name - 1);
   snprintf(what, sizeof what, "parameter %d's name", k);
   if (Checkpoint_getBytes(f, path, what, name, len, cause) < 0)
      return -1;
   name[len] = 0;
   if (strcmp(name, p->name) != 0)
      return setCause(cause, "%s: parameter %d is %s in the file where %s belongs", path, k, name, p->name);
   snprintf(what, sizeof what, "the shape of %s", p->name);
   if (Checkpoint_getU32(f, path, what, &rows, cause) < 0 || Checkpoint_getU32(f, path, what, &cols, cause) < 0)
      return -1;
   if (rows != (uint32_t)p->rows || cols != (uint32_t)p->cols)
      return setCause(cause, "%s: parameter %s is %u x %u in the file, but its shape fields make it %d x %d", path,
                      p->name, rows, cols, p->rows, p->cols);
   snprintf(what, sizeof what, "the %d x %d floats of %s", p->rows, p->cols, p->name);
   return Checkpoint_getF32s(f, path, what, p->w, NnParam_size(p), cause);
}

NeuralNet *NeuralNet_read(FILE *f, const char *path, bool pattern, char **cause) {
   uint32_t fields[7], fitted, nparams;
   if (Checkpoint_getU32s(f, path, "the network's shape (7 u32)", fields, 7, cause) < 0)
      return NULL;
   for (int i = 0; i < 7; i++)
      if (fields[i] > 1u << 20) {
         setCause(cause, "%s: shape field %d of the network is %u, out of range", path, i, fields[i]);
         return NULL;
      }
   NeuralShape s = { (int)fields[0], (int)fields[1], (int)fields[2], (int)fields[3],
                     (int)fields[4], (int)fields[5], (int)fields[6] };
   char why[160];
   if (NeuralShape_check(&s, why, sizeof why)) {
      setCause(cause, "%s: %s", path, why);
      return NULL;
   }
   if (pattern != (s.patLen > 0)) {
      setCause(cause, "%s: %s", path,
               pattern ? "the network has no pattern branch, which pam needs"
                       : "the network has a pattern branch, which mlp does not have");
      return NULL;
   }
   if (Checkpoint_getU32(f, path, "the fitted flag", &fitted, cause) < 0)
      return NULL;
   NeuralNet *net = NeuralNet_new(&s, 0);
   net->fitted = fitted != 0;
   int rc = Checkpoint_getF32s(f, path, "the feature rows' normalization", net->rowNorm, (size_t)s.in, cause);
   if (rc == 0 && pattern)
      rc = Checkpoint_getF32s(f, path, "the pattern blocks' normalization", net->patNorm, (size_t)s.patWidth,
                              cause);
   if (rc == 0)
      rc = Checkpoint_getU32(f, path, "the number of parameters", &nparams, cause);
   if (rc == 0 && nparams != (uint32_t)net->nparams)
      rc = setCause(cause, "%s: %u parameters in the file, but its shape fields make %d", path, nparams,
                    net->nparams);
   for (int k = 0; rc == 0 && k < net->nparams; k++)
      rc = readParam(f, path, k, net->params[k], cause);
   if (rc == 0 && pattern)
      rc = Checkpoint_getF32s(f, path, "batch norm's running mean", net->norm.runMean, (size_t)s.hidden, cause);
   if (rc == 0 && pattern)
      rc = Checkpoint_getF32s(f, path, "batch norm's running variance", net->norm.runVar, (size_t)s.hidden, cause);
   if (rc == 0 && NeuralNet_check(net, why, sizeof why) < 0)
      rc = setCause(cause, "%s: %s", path, why);
   if (rc < 0) {
      NeuralNet_free(net);
      return NULL;
   }
   return net;
}

int NeuralNet_checkSave(const NeuralNet *net, const char *path, char **cause) {
   char why[160];
   if (NeuralNet_check(net, why, sizeof why) < 0)
      return setCause(cause, "%s: not saved: %s (did the training diverge?)", path, why);
   return 0;
}

/* ---- a cost model of one network (mlp, pam) ---- */

static void neuralPredict(CostModel *m, const Dataset *batch, float *scores) {
   NeuralNet_predict(m->impl, batch, scores);
}

/* the normalization: see cost/neural.h */
static int neuralFit(CostModel *m, const Dataset *train, const TrainConfig *cfg, char **cause) {
   NeuralNet *net = m->impl;
   return NeuralNet_fit(net, train, cfg, cfg->fromScratch || !net->fitted, ModelKind_name(m->kind), cause);
}

static int neuralSave(const CostModel *m, const char *path, char **cause) {
   if (NeuralNet_checkSave(m->impl, path, cause) < 0)
      return -1;
   CheckpointWriter w;
   Checkpoint_create(&w, path, m->kind, m->opKinds);
   NeuralNet_write(m->impl, w.f);
   return CostModel_commit(m, &w, cause);
}

static void neuralFree(CostModel *m) {
   NeuralNet_free(m->impl);
}

static const CostModelOps neuralOps = {
   .predict = neuralPredict,
   .fit = neuralFit,
   .save = neuralSave,
   .free = neuralFree,
};

CostModel *NeuralModel_new(ModelKind kind, const NeuralShape *shape, uint64_t seed) {
   CostModel *m = CostModel_alloc(kind, &neuralOps, seed, NeuralNet_new(shape, seed));
   m->readsDevice = shape->in == NEURAL_DEVICE_IN;
   return m;
}

CostModel *NeuralModel_load(ModelKind kind, FILE *f, const char *path, char **cause) {
   NeuralNet *net = NeuralNet_read(f, path, kind == MODEL_PAM, cause);
   if (!net)
      return NULL;
   CostModel *m = CostModel_alloc(kind, &neuralOps, 0, net);
   m->readsDevice = net->shape.in == NEURAL_DEVICE_IN;
   m->trained = net->fitted;
   return m;
}

NeuralNet *NeuralModel_net(const CostModel *m) {
   return m->ops == &neuralOps ? m->impl : NULL;
}
