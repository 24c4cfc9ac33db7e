/* The small neural-network library of the learned cost models (TenSet's MLP, Pruner's
 * PAM): dense layers, ReLU, BatchNorm1d, multi-head self-attention, segment sum, the
 * LambdaRank and MSE losses, Adam and gradient-norm clipping. Float32, row-major,
 * batch-first; the matrix products run on CBLAS. Each layer computes what PyTorch's
 * module of the same name does, with PyTorch's default initialization, so that the
 * networks match Pruner's and TenSet's.
 *
 * Backward functions accumulate (+=) into the parameters' gradients and overwrite dx.
 * Dense, ReLU and segment sum keep nothing between calls; BatchNorm (training) and
 * Attention cache their last forward, which their backward reads: call backward after
 * the forward of the same input, with no other forward of that layer in between. The
 * forward functions of BatchNorm and Attention write into the layer (caches, scratch),
 * so one layer serves one thread at a time. An output never aliases an input unless
 * said so. */
#ifndef HEADER_nn
#define HEADER_nn

#include <stdbool.h>
#include <stddef.h>

#include "util/rng.h"

typedef struct NnParam_ {       /* a trainable tensor, its gradient and Adam's moments */
   char name[32];
   int rows, cols;              /* a vector has rows 1 */
   float *w, *g, *m, *v;
} NnParam;

void NnParam_init(NnParam *p, const char *name, int rows, int cols);   /* zeroed */
void NnParam_done(NnParam *p);
void NnParam_zeroGrad(NnParam *p);
static inline size_t NnParam_size(const NnParam *p) {
   return (size_t)p->rows * (size_t)p->cols;
}

typedef struct NnDense_ {       /* y = x W^T + b, W is out x in */
   int in, out;
   NnParam W, b;
} NnDense;

/* PyTorch's default: W, b ~ U(-1/sqrt(in), 1/sqrt(in)), W drawn first, row by row. */
void NnDense_init(NnDense *l, const char *name, int in, int out, Rng *rng);
void NnDense_done(NnDense *l);
/* x n x in, y n x out */
void NnDense_forward(const NnDense *l, const float *x, int n, float *y);
/* accumulates dW, db; writes dx (n x in) when dx is not NULL */
void NnDense_backward(NnDense *l, const float *x, int n, const float *dy, float *dx);
/* Stores the layer's parameters (W, b) at out; returns 2. */
int NnDense_params(NnDense *l, NnParam **out);

void Nn_relu(float *x, size_t n);                                   /* in place */
void Nn_reluBackward(const float *y, float *dy, size_t n);          /* dy *= (y > 0), y the ReLU output */

typedef struct NnBatchNorm_ {   /* BatchNorm1d: per feature over the batch rows; momentum 0.1, eps 1e-5 as PyTorch */
   int dim;
   NnParam gamma, beta;
   float *runMean, *runVar;
   double momentum, eps;
   float *xhat, *invStd;        /* training cache: n x dim normalized input, dim */
   int cap;                     /* rows xhat holds */
   double *work;                /* 2 x dim of per-feature scratch */
} NnBatchNorm;

/* gamma 1, beta 0, running mean 0, var 1 */
void NnBatchNorm_init(NnBatchNorm *l, const char *name, int dim);
void NnBatchNorm_done(NnBatchNorm *l);
/* Training: normalizes with the batch statistics (biased variance), updates the
 * running ones (unbiased variance, as PyTorch) and caches for backward; PyTorch refuses
 * a training batch of one row, here it gives beta and leaves the running statistics
 * alone. Inference: normalizes with the running statistics. y may be x. */
void NnBatchNorm_forward(NnBatchNorm *l, const float *x, int n, bool training, float *y);
/* after a training forward of n rows; accumulates dgamma, dbeta; writes dx when not NULL */
void NnBatchNorm_backward(NnBatchNorm *l, int n, const float *dy, float *dx);
int NnBatchNorm_params(NnBatchNorm *l, NnParam **out);   /* gamma, beta; returns 2 */

/* multi-head self-attention, as torch.nn.MultiheadAttention(E, heads) on (z, z, z), plus
 * the residual: y = MHA(z) + z */
typedef struct NnAttention_ {
   int embed, heads;
   NnParam Wq, bq, Wk, bk, Wv, bv, Wo, bo;   /* E x E and E */
   /* forward cache, grown as needed: q, k, v (after their biases) and ctx (the heads'
    * outputs, before out_proj) are rows x E; p the softmax, nseq x heads x len x len */
   float *q, *k, *v, *p, *ctx;
   int cap;                     /* rows q, k, v, ctx hold */
   size_t pcap;                 /* floats p holds */
   /* backward scratch, grown as needed */
   float *dq, *dk, *dv, *dctx, *dp;
   int bcap;                    /* rows dq, dk, dv, dctx hold */
   size_t dpcap;                /* floats dp holds */
} NnAttention;

/* As PyTorch: in_proj (Wq, Wk, Wv stacked as one 3E x E matrix) xavier_uniform, so
 * U(-sqrt(6 / 4E), sqrt(6 / 4E)), drawn Wq, Wk, Wv; out_proj weight like a Linear's,
 * U(-1/sqrt(E), 1/sqrt(E)); every bias 0. embed must be a multiple of heads. */
void NnAttention_init(NnAttention *l, const char *name, int embed, int heads, Rng *rng);
void NnAttention_done(NnAttention *l);
/* x: nseq sequences of len positions, each position embed floats (nseq*len x embed); y same shape */
void NnAttention_forward(NnAttention *l, const float *x, int nseq, int len, float *y);
/* after the forward of the same x; accumulates the 8 gradients; writes dx when not NULL */
void NnAttention_backward(NnAttention *l, const float *x, int nseq, int len, const float *dy, float *dx);
/* Wq, bq, Wk, bk, Wv, bv, Wo, bo; returns 8 */
int NnAttention_params(NnAttention *l, NnParam **out);

/* y[s] = sum of the rows i of x with seg[i] == s (y is nseg x d, zeroed first); backward dx[i] = dy[seg[i]] */
void Nn_segmentSum(const float *x, const int *seg, int n, int d, int nseg, float *y);
void Nn_segmentSumBackward(const float *dy, const int *seg, int n, int d, float *dx);

/* losses: return the loss and write d(loss)/d(score) */
/* pruner.md 2.3 (TenSet's and Pruner's LambdaRankLoss) exactly: the whole batch is one
 * list; ties in the scores keep the input order */
double Nn_lambdaRank(const float *score, const float *label, int n, float *dscore);
double Nn_mse(const float *pred, const float *label, int n, float *dpred);           /* mean squared error */

typedef struct NnAdam_ {        /* PyTorch Adam: weight decay added to the gradient (L2), bias-corrected moments */
   double lr, beta1, beta2, eps, weightDecay;
   long t;                      /* steps taken */
} NnAdam;

void NnAdam_init(NnAdam *a, double lr, double weightDecay);   /* betas 0.9, 0.999, eps 1e-8 */
/* One step of every parameter (all of a model's together: t counts the calls). The
 * gradients are read, not cleared. */
void NnAdam_step(NnAdam *a, NnParam *const *params, int n);
/* scales every gradient so that the global L2 norm is at most maxNorm
 * (torch.nn.utils.clip_grad_norm_); returns the norm before */
double Nn_clipGradNorm(NnParam *const *params, int n, double maxNorm);

/* OpenBLAS's threads for the products from now on, for the whole process; 0 for one
 * per core (its default). Two jobs on the products at once, such as the online
 * trainer's training and the search's predictions, run best on one thread each on
 * two cores (bench/RESULTS.md, bench/models). */
void Nn_setThreads(int threads);

/* feature normalization (column max): norm[c] = max over rows of x[r][c] if > 0, else 1; apply divides */
void Nn_columnMax(const float *x, int n, int d, float *norm);
void Nn_normalize(float *x, int n, int d, const float *norm);

/* The OpenBLAS core type to ask for (set OPENBLAS_CORETYPE before the library loads,
 * i.e. before the program starts) when OpenBLAS fell back to its generic kernels on a
 * CPU that has AVX-512 ("SkylakeX") or AVX2 ("Haswell"); NULL when nothing is to be
 * gained or OPENBLAS_CORETYPE is set already. */
const char *Nn_kernelsFor(void);
/* For a program's main, first thing: when Nn_kernelsFor names a core type, starts the
 * program again (argv as given) with OPENBLAS_CORETYPE set; returns when there is
 * nothing to do or the restart failed. */
void Nn_restartForKernels(char **argv);

#endif
