/* The layers, losses and optimizer of the learned cost models, on CBLAS. Statistics
 * and losses accumulate in double; the tensors stay float. */
#include "config.h"

#include "cost/nn.h"

#include <cblas.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "util/xalloc.h"

/* ---- parameters ---- */

void NnParam_init(NnParam *p, const char *name, int rows, int cols) {
   snprintf(p->name, sizeof p->name, "%s", name);
   p->rows = rows;
   p->cols = cols;
   size_t n = NnParam_size(p);
   /* one block: w, g, m, v */
   p->w = xCalloc(4 * n + 1, sizeof(float));
   p->g = p->w + n;
   p->m = p->g + n;
   p->v = p->m + n;
}

void NnParam_done(NnParam *p) {
   free(p->w);
   p->w = p->g = p->m = p->v = NULL;
}

void NnParam_zeroGrad(NnParam *p) {
   memset(p->g, 0, NnParam_size(p) * sizeof(float));
}

static void fillUniform(NnParam *p, double bound, Rng *rng) {
   size_t n = NnParam_size(p);
   for (size_t i = 0; i < n; i++)
      p->w[i] = (float)((2 * Rng_uniform(rng) - 1) * bound);
}

/* named "layer.param", as in a PyTorch state dict */
static void namedParam(NnParam *p, const char *layer, const char *param, int rows, int cols) {
   char name[sizeof p->name];
   snprintf(name, sizeof name, "%s.%s", layer, param);
   NnParam_init(p, name, rows, cols);
}

/* Grows *buf to hold need floats; *cap counts them. */
static void growFloats(float **buf, size_t *cap, size_t need) {
   if (need <= *cap)
      return;
   free(*buf);
   *buf = xMalloc(need * sizeof(float));
   *cap = need;
}

/* ---- affine maps: y = x W^T + b, shared by dense layers and attention's projections ---- */

static void affineForward(const NnParam *W, const NnParam *b, const float *x, int n, float *y) {
   int out = W->rows, in = W->cols;
   if (n <= 0)
      return;
   for (int r = 0; r < n; r++)
      memcpy(y + (size_t)r * out, b->w, (size_t)out * sizeof(float));
   cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, out, in, 1.0f, x, in, W->w, in, 1.0f, y, out);
}

/* dW += dy^T x, db += column sums of dy; dx = dx * dxBeta + dy W when dx is set */
static void affineBackward(NnParam *W, NnParam *b, const float *x, int n, const float *dy, float *dx,
                           float dxBeta) {
   int out = W->rows, in = W->cols;
   if (n <= 0)
      return;
   cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, out, in, n, 1.0f, dy, out, x, in, 1.0f, W->g, in);
   for (int r = 0; r < n; r++) {
      const float *d = dy + (size_t)r * out;
      for (int c = 0; c < out; c++)
         b->g[c] += d[c];
   }
   if (dx)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, in, out, 1.0f, dy, out, W->w, in, dxBeta, dx, in);
}

/* ---- dense ---- */

void NnDense_init(NnDense *l, const char *name, int in, int out, Rng *rng) {
   l->in = in;
   l->out = out;
   namedParam(&l->W, name, "weight", out, in);
   namedParam(&l->b, name, "bias", 1, out);
   double bound = 1 / sqrt((double)in);
   fillUniform(&l->W, bound, rng);
   fillUniform(&l->b, bound, rng);
}

void NnDense_done(NnDense *l) {
   NnParam_done(&l->W);
   NnParam_done(&l->b);
}

void NnDense_forward(const NnDense *l, const float *x, int n, float *y) {
   affineForward(&l->W, &l->b, x, n, y);
}

void NnDense_backward(NnDense *l, const float *x, int n, const float *dy, float *dx) {
   affineBackward(&l->W, &l->b, x, n, dy, dx, 0.0f);
}

int NnDense_params(NnDense *l, NnParam **out) {
   out[0] = &l->W;
   out[1] = &l->b;
   return 2;
}

/* ---- ReLU ---- */

/* ReLU's sign is a coin toss for a branch: these run in blocks of a fixed length,
 * which the compiler turns into compare-and-mask vector code at -O2. */
#define RELU_BLOCK 16

void Nn_relu(float *x, size_t n) {
   size_t i = 0;
   for (; i + RELU_BLOCK <= n; i += RELU_BLOCK)
      for (int k = 0; k < RELU_BLOCK; k++)
         x[i + k] = x[i + k] > 0 ? x[i + k] : 0;
   for (; i < n; i++)
      x[i] = x[i] > 0 ? x[i] : 0;
}

void Nn_reluBackward(const float *y, float *dy, size_t n) {
   size_t i = 0;
   for (; i + RELU_BLOCK <= n; i += RELU_BLOCK)
      for (int k = 0; k < RELU_BLOCK; k++)
         dy[i + k] = y[i + k] > 0 ? dy[i + k] : 0;
   for (; i < n; i++)
      dy[i] = y[i] > 0 ? dy[i] : 0;
}

/* ---- batch norm ---- */

void NnBatchNorm_init(NnBatchNorm *l, const char *name, int dim) {
   memset(l, 0, sizeof *l);
   l->dim = dim;
   namedParam(&l->gamma, name, "weight", 1, dim);
   namedParam(&l->beta, name, "bias", 1, dim);
   l->runMean = xCalloc((size_t)dim + 1, sizeof(float));
   l->runVar = xCalloc((size_t)dim + 1, sizeof(float));
   l->invStd = xCalloc((size_t)dim + 1, sizeof(float));
   l->work = xCalloc(2 * (size_t)dim + 1, sizeof(double));
   for (int c = 0; c < dim; c++) {
      l->gamma.w[c] = 1;
      l->runVar[c] = 1;
   }
   l->momentum = 0.1;
   l->eps = 1e-5;
}

void NnBatchNorm_done(NnBatchNorm *l) {
   NnParam_done(&l->gamma);
   NnParam_done(&l->beta);
   free(l->runMean);
   free(l->runVar);
   free(l->invStd);
   free(l->work);
   free(l->xhat);
   memset(l, 0, sizeof *l);
}

/* y = x * scale + shift per feature, with scale and shift in work */
static void scaleShift(const double *scale, const double *shift, const float *x, int n, int dim, float *y) {
   for (int r = 0; r < n; r++) {
      const float *xr = x + (size_t)r * dim;
      float *yr = y + (size_t)r * dim;
      for (int c = 0; c < dim; c++)
         yr[c] = (float)(xr[c] * scale[c] + shift[c]);
   }
}

static void batchNormTrain(NnBatchNorm *l, const float *x, int n, float *y) {
   int dim = l->dim;
   double *mean = l->work, *var = l->work + dim;
   memset(l->work, 0, 2 * (size_t)dim * sizeof(double));
   for (int r = 0; r < n; r++)
      for (int c = 0; c < dim; c++)
         mean[c] += x[(size_t)r * dim + c];
   for (int c = 0; c < dim; c++)
      mean[c] /= n;
   for (int r = 0; r < n; r++)
      for (int c = 0; c < dim; c++) {
         double d = x[(size_t)r * dim + c] - mean[c];
         var[c] += d * d;
      }
   for (int c = 0; c < dim; c++) {
      double biased = var[c] / n;
      l->invStd[c] = (float)(1 / sqrt(biased + l->eps));
      if (n > 1) {
         double unbiased = var[c] / (n - 1);
         l->runMean[c] = (float)((1 - l->momentum) * l->runMean[c] + l->momentum * mean[c]);
         l->runVar[c] = (float)((1 - l->momentum) * l->runVar[c] + l->momentum * unbiased);
      }
   }
   if (n > l->cap) {
      free(l->xhat);
      l->xhat = xMalloc((size_t)n * dim * sizeof(float));
      l->cap = n;
   }
   for (int r = 0; r < n; r++)
      for (int c = 0; c < dim; c++) {
         size_t i = (size_t)r * dim + c;
         float xh = (float)((x[i] - mean[c]) * l->invStd[c]);
         l->xhat[i] = xh;
         y[i] = l->gamma.w[c] * xh + l->beta.w[c];
      }
}

void NnBatchNorm_forward(NnBatchNorm *l, const float *x, int n, bool training, float *y) {
   if (n <= 0)
      return;
   if (training) {
      batchNormTrain(l, x, n, y);
      return;
   }
   int dim = l->dim;
   double *scale = l->work, *shift = l->work + dim;
   for (int c = 0; c < dim; c++) {
      scale[c] = l->gamma.w[c] / sqrt(l->runVar[c] + l->eps);
      shift[c] = l->beta.w[c] - l->runMean[c] * scale[c];
   }
   scaleShift(scale, shift, x, n, dim, y);
}

void NnBatchNorm_backward(NnBatchNorm *l, int n, const float *dy, float *dx) {
   int dim = l->dim;
   if (n <= 0)
      return;
   double *sumDy = l->work, *sumDyXhat = l->work + dim;
   memset(l->work, 0, 2 * (size_t)dim * sizeof(double));
   for (int r = 0; r < n; r++)
      for (int c = 0; c < dim; c++) {
         size_t i = (size_t)r * dim + c;
         sumDy[c] += dy[i];
         sumDyXhat[c] += (double)dy[i] * l->xhat[i];
      }
   for (int c = 0; c < dim; c++) {
      l->beta.g[c] += (float)sumDy[c];
      l->gamma.g[c] += (float)sumDyXhat[c];
   }
   if (!dx)
      return;
   /* dx = gamma invStd (dy - mean(dy) - xhat mean(dy xhat)) */
   for (int c = 0; c < dim; c++) {
      sumDy[c] /= n;
      sumDyXhat[c] /= n;
   }
   for (int r = 0; r < n; r++)
      for (int c = 0; c < dim; c++) {
         size_t i = (size_t)r * dim + c;
         double g = (double)l->gamma.w[c] * l->invStd[c];
         dx[i] = (float)(g * (dy[i] - sumDy[c] - l->xhat[i] * sumDyXhat[c]));
      }
}

int NnBatchNorm_params(NnBatchNorm *l, NnParam **out) {
   out[0] = &l->gamma;
   out[1] = &l->beta;
   return 2;
}

/* ---- multi-head self-attention ---- */

void NnAttention_init(NnAttention *l, const char *name, int embed, int heads, Rng *rng) {
   if (heads <= 0 || embed % heads != 0)
      fatal("attention %s: embed %d is not a multiple of %d heads", name, embed, heads);
   memset(l, 0, sizeof *l);
   l->embed = embed;
   l->heads = heads;
   NnParam *all[8];
   static const char *const names[8] = { "Wq", "bq", "Wk", "bk", "Wv", "bv", "Wo", "bo" };
   NnAttention_params(l, all);
   for (int i = 0; i < 8; i++)
      namedParam(all[i], name, names[i], i % 2 ? 1 : embed, embed);
   double inBound = sqrt(6.0 / (4.0 * embed));
   fillUniform(&l->Wq, inBound, rng);
   fillUniform(&l->Wk, inBound, rng);
   fillUniform(&l->Wv, inBound, rng);
   fillUniform(&l->Wo, 1 / sqrt((double)embed), rng);
}

void NnAttention_done(NnAttention *l) {
   NnParam *all[8];
   NnAttention_params(l, all);
   for (int i = 0; i < 8; i++)
      NnParam_done(all[i]);
   free(l->q);
   free(l->k);
   free(l->v);
   free(l->ctx);
   free(l->p);
   free(l->dq);
   free(l->dk);
   free(l->dv);
   free(l->dctx);
   free(l->dp);
   memset(l, 0, sizeof *l);
}

int NnAttention_params(NnAttention *l, NnParam **out) {
   out[0] = &l->Wq;
   out[1] = &l->bq;
   out[2] = &l->Wk;
   out[3] = &l->bk;
   out[4] = &l->Wv;
   out[5] = &l->bv;
   out[6] = &l->Wo;
   out[7] = &l->bo;
   return 8;
}

/* Grows the four row buffers a..d to rows x embed; *cap counts rows. */
static void growRows(float **a, float **b, float **c, float **d, int *cap, int rows, int embed) {
   if (rows <= *cap)
      return;
   size_t size = (size_t)rows * embed * sizeof(float);
   float **all[4] = { a, b, c, d };
   for (int i = 0; i < 4; i++) {
      free(*all[i]);
      *all[i] = xMalloc(size);
   }
   *cap = rows;
}

static void softmaxRows(float *s, int rows, int cols) {
   for (int i = 0; i < rows; i++) {
      float *row = s + (size_t)i * cols;
      float max = row[0];
      for (int j = 1; j < cols; j++)
         max = row[j] > max ? row[j] : max;
      double sum = 0;
      for (int j = 0; j < cols; j++) {
         row[j] = expf(row[j] - max);
         sum += row[j];
      }
      float inv = (float)(1 / sum);
      for (int j = 0; j < cols; j++)
         row[j] *= inv;
   }
}

void NnAttention_forward(NnAttention *l, const float *x, int nseq, int len, float *y) {
   int E = l->embed, H = l->heads, dh = E / H, N = nseq * len;
   if (N <= 0)
      return;
   growRows(&l->q, &l->k, &l->v, &l->ctx, &l->cap, N, E);
   growFloats(&l->p, &l->pcap, (size_t)N * H * len);
   affineForward(&l->Wq, &l->bq, x, N, l->q);
   affineForward(&l->Wk, &l->bk, x, N, l->k);
   affineForward(&l->Wv, &l->bv, x, N, l->v);
   float scale = (float)(1 / sqrt((double)dh));
   for (int s = 0; s < nseq; s++)
      for (int h = 0; h < H; h++) {
         size_t off = (size_t)s * len * E + (size_t)h * dh;
         float *p = l->p + ((size_t)s * H + h) * len * len;
         /* P = softmax(Q_h K_h^T / sqrt(dh)), ctx_h = P V_h */
         cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, len, len, dh, scale, l->q + off, E, l->k + off, E,
                     0.0f, p, len);
         softmaxRows(p, len, len);
         cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, len, dh, len, 1.0f, p, len, l->v + off, E, 0.0f,
                     l->ctx + off, E);
      }
   affineForward(&l->Wo, &l->bo, l->ctx, N, y);
   size_t total = (size_t)N * E;
   for (size_t i = 0; i < total; i++)
      y[i] += x[i];
}

void NnAttention_backward(NnAttention *l, const float *x, int nseq, int len, const float *dy, float *dx) {
   int E = l->embed, H = l->heads, dh = E / H, N = nseq * len;
   if (N <= 0)
      return;
   growRows(&l->dq, &l->dk, &l->dv, &l->dctx, &l->bcap, N, E);
   growFloats(&l->dp, &l->dpcap, (size_t)len * len);
   affineBackward(&l->Wo, &l->bo, l->ctx, N, dy, l->dctx, 0.0f);
   float scale = (float)(1 / sqrt((double)dh));
   for (int s = 0; s < nseq; s++)
      for (int h = 0; h < H; h++) {
         size_t off = (size_t)s * len * E + (size_t)h * dh;
         const float *p = l->p + ((size_t)s * H + h) * len * len;
         float *dp = l->dp;
         /* dP = dctx_h V_h^T, dV_h = P^T dctx_h */
         cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, len, len, dh, 1.0f, l->dctx + off, E, l->v + off, E,
                     0.0f, dp, len);
         cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, len, dh, len, 1.0f, p, len, l->dctx + off, E, 0.0f,
                     l->dv + off, E);
         /* through the softmax: dS = P (dP - rowsum(P dP)) */
         for (int i = 0; i < len; i++) {
            const float *pr = p + (size_t)i * len;
            float *dr = dp + (size_t)i * len;
            double dot = 0;
            for (int j = 0; j < len; j++)
               dot += (double)pr[j] * dr[j];
            for (int j = 0; j < len; j++)
               dr[j] = pr[j] * (float)(dr[j] - dot);
         }
         /* S = Q_h K_h^T scale: dQ_h = dS K_h scale, dK_h = dS^T Q_h scale */
         cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, len, dh, len, scale, dp, len, l->k + off, E, 0.0f,
                     l->dq + off, E);
         cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, len, dh, len, scale, dp, len, l->q + off, E, 0.0f,
                     l->dk + off, E);
      }
   /* the residual passes dy through; each projection adds its share */
   if (dx)
      memcpy(dx, dy, (size_t)N * E * sizeof(float));
   affineBackward(&l->Wq, &l->bq, x, N, l->dq, dx, 1.0f);
   affineBackward(&l->Wk, &l->bk, x, N, l->dk, dx, 1.0f);
   affineBackward(&l->Wv, &l->bv, x, N, l->dv, dx, 1.0f);
}

/* ---- segment sum ---- */

void Nn_segmentSum(const float *x, const int *seg, int n, int d, int nseg, float *y) {
   if (nseg > 0)
      memset(y, 0, (size_t)nseg * d * sizeof(float));
   for (int i = 0; i < n; i++) {
      const float *xr = x + (size_t)i * d;
      float *yr = y + (size_t)seg[i] * d;
      for (int c = 0; c < d; c++)
         yr[c] += xr[c];
   }
}

void Nn_segmentSumBackward(const float *dy, const int *seg, int n, int d, float *dx) {
   for (int i = 0; i < n; i++)
      memcpy(dx + (size_t)i * d, dy + (size_t)seg[i] * d, (size_t)d * sizeof(float));
}

/* ---- losses ---- */

typedef struct {
   float key;
   int index;
} Ranked;

/* descending by key; ties by index, so the order is deterministic */
static int byKeyDescending(const void *a, const void *b) {
   const Ranked *x = a, *y = b;
   if (x->key != y->key)
      return x->key > y->key ? -1 : 1;
   return (x->index > y->index) - (x->index < y->index);
}

static Ranked *rankDescending(const float *key, int n) {
   Ranked *r = xMalloc((size_t)(n > 0 ? n : 1) * sizeof *r);
   for (int i = 0; i < n; i++) {
      r[i].key = key[i];
      r[i].index = i;
   }
   qsort(r, (size_t)n, sizeof *r, byKeyDescending);
   return r;
}

/* TenSet's LambdaRankLoss (sigma 1, no top-k, eps 1e-10): positions sorted by score,
 * discount D_i = log2(1 + i) for 1-based i, gains G = (2^y - 1) / maxDCG with labels
 * clamped at 0, and for every pair of positions i, j whose labels have y_i > y_j, the
 * constant weight w = |1/D_i - 1/D_j| |G_i - G_j| and the term
 * -log2(clamp(clamp(sigmoid(s_i - s_j), eps)^w, eps)). Since w <= 1 the outer clamp
 * never binds. */
double Nn_lambdaRank(const float *score, const float *label, int n, float *dscore) {
   const double eps = 1e-10;
   memset(dscore, 0, (size_t)(n > 0 ? n : 0) * sizeof(float));
   if (n <= 1)
      return 0;
   Ranked *byScore = rankDescending(score, n);
   Ranked *byLabel = rankDescending(label, n);
   double *invD = xMalloc((size_t)n * sizeof(double));
   double *gain = xMalloc((size_t)n * sizeof(double));
   double maxDcg = 0;
   for (int i = 0; i < n; i++) {
      invD[i] = 1 / log2(2.0 + i);
      maxDcg += (exp2(fmax(byLabel[i].key, 0.0)) - 1) * invD[i];
   }
   maxDcg = fmax(maxDcg, eps);
   for (int i = 0; i < n; i++)
      gain[i] = (exp2(fmax(label[byScore[i].index], 0.0)) - 1) / maxDcg;
   double loss = 0;
   for (int i = 0; i < n; i++) {
      int a = byScore[i].index;
      for (int j = 0; j < n; j++) {
         int b = byScore[j].index;
         double diff = (double)label[a] - label[b];
         if (!(diff > 0) || !isfinite(diff))
            continue;
         double w = fabs(invD[i] - invD[j]) * fabs(gain[i] - gain[j]);
         double d = (double)score[a] - score[b];
         bool clamped = !(fabs(d) <= 1e8);
         d = isnan(d) ? 0 : fmin(fmax(d, -1e8), 1e8);
         double sig = 1 / (1 + exp(-d));
         loss -= w * log2(fmax(sig, eps));
         if (sig < eps || clamped)
            continue;
         /* d(-w log2 sigmoid(d))/dd = -w (1 - sigmoid(d)) / ln 2 */
         double g = -w * (1 - sig) / M_LN2;
         dscore[a] += (float)g;
         dscore[b] -= (float)g;
      }
   }
   free(byScore);
   free(byLabel);
   free(invD);
   free(gain);
   return loss;
}

double Nn_mse(const float *pred, const float *label, int n, float *dpred) {
   if (n <= 0)
      return 0;
   double sum = 0;
   for (int i = 0; i < n; i++) {
      double d = (double)pred[i] - label[i];
      sum += d * d;
      dpred[i] = (float)(2 * d / n);
   }
   return sum / n;
}

/* ---- optimizer ---- */

void NnAdam_init(NnAdam *a, double lr, double weightDecay) {
   a->lr = lr;
   a->beta1 = 0.9;
   a->beta2 = 0.999;
   a->eps = 1e-8;
   a->weightDecay = weightDecay;
   a->t = 0;
}

/* torch.optim.Adam's single-tensor step, in its order of operations: the scalars in
 * double, the tensors in float */
void NnAdam_step(NnAdam *a, NnParam *const *params, int n) {
   a->t++;
   double bc1 = 1 - pow(a->beta1, (double)a->t);
   double bc2 = 1 - pow(a->beta2, (double)a->t);
   float stepSize = (float)(a->lr / bc1), bc2Sqrt = (float)sqrt(bc2);
   float c1 = (float)(1 - a->beta1), b2 = (float)a->beta2, c2 = (float)(1 - a->beta2);
   float eps = (float)a->eps, wd = (float)a->weightDecay;
   for (int k = 0; k < n; k++) {
      NnParam *p = params[k];
      size_t size = NnParam_size(p);
      for (size_t i = 0; i < size; i++) {
         float g = p->g[i] + wd * p->w[i];
         p->m[i] += c1 * (g - p->m[i]);
         p->v[i] = p->v[i] * b2 + c2 * g * g;
         p->w[i] -= stepSize * p->m[i] / (sqrtf(p->v[i]) / bc2Sqrt + eps);
      }
   }
}

double Nn_clipGradNorm(NnParam *const *params, int n, double maxNorm) {
   double sq = 0;
   for (int k = 0; k < n; k++) {
      size_t size = NnParam_size(params[k]);
      for (size_t i = 0; i < size; i++)
         sq += (double)params[k]->g[i] * params[k]->g[i];
   }
   double norm = sqrt(sq);
   double coef = maxNorm / (norm + 1e-6);
   if (coef < 1)
      for (int k = 0; k < n; k++) {
         size_t size = NnParam_size(params[k]);
         for (size_t i = 0; i < size; i++)
            params[k]->g[i] = (float)(params[k]->g[i] * coef);
      }
   return norm;
}

/* ---- threads ---- */

const char *Nn_kernelsFor(void) {
   /* OpenBLAS picks kernels when it loads; older releases do not know newer CPUs and
    * fall back to the generic "Prescott" ones, 2 to 4 times slower */
   if (getenv("OPENBLAS_CORETYPE"))
      return NULL;
   const char *core = openblas_get_corename();
   if (!core || strcasecmp(core, "prescott") != 0)
      return NULL;
#if defined(__x86_64__) && defined(__GNUC__)
   __builtin_cpu_init();
   if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
       __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
      return "SkylakeX";
   if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      return "Haswell";
#endif
   return NULL;
}

void Nn_restartForKernels(char **argv) {
   const char *core = Nn_kernelsFor();
   if (!core || setenv("OPENBLAS_CORETYPE", core, 1) != 0)
      return;
   execv("/proc/self/exe", argv);
   unsetenv("OPENBLAS_CORETYPE");
}

void Nn_setThreads(int threads) {
   openblas_set_num_threads(threads > 0 ? threads : openblas_get_num_procs());
}

/* ---- feature normalization ---- */

void Nn_columnMax(const float *x, int n, int d, float *norm) {
   for (int c = 0; c < d; c++)
      norm[c] = 0;
   for (int r = 0; r < n; r++)
      for (int c = 0; c < d; c++)
         norm[c] = x[(size_t)r * d + c] > norm[c] ? x[(size_t)r * d + c] : norm[c];
   for (int c = 0; c < d; c++)
      if (!(norm[c] > 0))
         norm[c] = 1;
}

void Nn_normalize(float *x, int n, int d, const float *norm) {
   for (int r = 0; r < n; r++)
      for (int c = 0; c < d; c++)
         x[(size_t)r * d + c] /= norm[c];
}
