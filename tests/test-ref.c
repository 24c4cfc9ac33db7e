/* Tests of the C reference ops: hand-computed outputs on tiny inputs for every op and
 * epilogue, and properties (depthwise = per-channel convs, softmax rows sum to 1, ...)
 * on seeded random inputs. Everything else is checked against these, so they must be
 * checked against arithmetic a person can redo. */
#include "config.h"

#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "te/op.h"
#include "te/ref.h"
#include "util/xalloc.h"

#define EXACT_RTOL 1e-6
#define EXACT_ATOL 1e-6

static void assertValues(const float *got, const float *want, size_t n) {
   TestUtil_assertClose(got, want, n, EXACT_RTOL, EXACT_ATOL);
}

static float *randomBuffer(size_t n, uint64_t seed, float lo, float hi) {
   float *buf = xMalloc(n * sizeof(float));
   TestUtil_fillRandom(buf, n, seed, lo, hi);
   return buf;
}

static float *constantBuffer(size_t n, float value) {
   float *buf = xMalloc(n * sizeof(float));
   for (size_t i = 0; i < n; i++)
      buf[i] = value;
   return buf;
}

/* Stride 1, no padding, dilation 1, one group; tests override what they vary. The
 * output size is always given by the caller, computed by hand. */
static void initConv(OpParams *p, int64_t batch, int64_t inC, int64_t inH, int64_t inW,
                     int64_t outC, int64_t kernelH, int64_t kernelW, int64_t outH,
                     int64_t outW) {
   memset(p, 0, sizeof *p);
   p->kind = OP_CONV2D;
   p->batch = batch;
   p->in_c = inC;
   p->in_h = inH;
   p->in_w = inW;
   p->out_c = outC;
   p->kernel_h = kernelH;
   p->kernel_w = kernelW;
   p->stride_h = p->stride_w = 1;
   p->dilation_h = p->dilation_w = 1;
   p->groups = 1;
   p->out_h = outH;
   p->out_w = outW;
}

static void initPool(OpParams *p, OpKind kind, int64_t batch, int64_t channels, int64_t inH,
                     int64_t inW, int64_t kernel, int64_t stride, int64_t pad, int64_t outH,
                     int64_t outW) {
   memset(p, 0, sizeof *p);
   p->kind = kind;
   p->batch = batch;
   p->in_c = p->out_c = channels;
   p->in_h = inH;
   p->in_w = inW;
   p->kernel_h = p->kernel_w = kernel;
   p->stride_h = p->stride_w = stride;
   p->pad_top = p->pad_left = p->pad_bottom = p->pad_right = pad;
   p->dilation_h = p->dilation_w = 1;
   p->groups = 1;
   p->out_h = outH;
   p->out_w = outW;
}

static void initMatmul(OpParams *p, OpKind kind, int64_t b, int64_t m, int64_t n, int64_t k) {
   memset(p, 0, sizeof *p);
   p->kind = kind;
   p->b = b;
   p->m = m;
   p->n = n;
   p->k = k;
}

static void initRows(OpParams *p, OpKind kind, int ndim, const int64_t *shape, double eps) {
   memset(p, 0, sizeof *p);
   p->kind = kind;
   p->ndim = ndim;
   for (int i = 0; i < ndim; i++)
      p->shape[i] = shape[i];
   p->epsilon = eps;
}

static void addEpilogue(OpParams *p, EpilogueKind kind, double lo, double hi) {
   p->epilogue[p->nepilogue].kind = kind;
   p->epilogue[p->nepilogue].lo = lo;
   p->epilogue[p->nepilogue].hi = hi;
   p->nepilogue++;
}

/* 1 2 3 / 4 5 6 / 7 8 9 and the kernel 1 2 / 3 4, shared by the first conv tests. */
static const float conv3x3[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
static const float kernel2x2[4] = { 1, 2, 3, 4 };

/* ---------------------------------------------------------------- conv2d ---- */

static void conv2dStride1Pad0(void **state) {
   OpParams p;
   initConv(&p, 1, 1, 3, 3, 1, 2, 2, 2, 2);   /* out = (3 - 1 - 1)/1 + 1 = 2 */
   float out[4];
   Ref_conv2d(&p, conv3x3, kernel2x2, out);
   const float want[4] = {
      37,   /* 1*1 + 2*2 + 4*3 + 5*4 */
      47,   /* 2*1 + 3*2 + 5*3 + 6*4 */
      67,   /* 4*1 + 5*2 + 7*3 + 8*4 */
      77,   /* 5*1 + 6*2 + 8*3 + 9*4 */
   };
   assertValues(out, want, 4);
}

static void conv2dPad1Stride2(void **state) {
   OpParams p;
   initConv(&p, 1, 1, 3, 3, 1, 2, 2, 2, 2);   /* out = (3 + 2 - 1 - 1)/2 + 1 = 2 */
   p.stride_h = p.stride_w = 2;
   p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
   float out[4];
   Ref_conv2d(&p, conv3x3, kernel2x2, out);
   const float want[4] = {
      4,    /* window rows -1..0, cols -1..0: only in(0,0)=1 under k(1,1)=4 */
      18,   /* rows -1..0, cols 1..2: 2*3 + 3*4 */
      36,   /* rows 1..2, cols -1..0: 4*2 + 7*4 */
      77,   /* rows 1..2, cols 1..2: 5*1 + 6*2 + 8*3 + 9*4 */
   };
   assertValues(out, want, 4);
}

static void conv2dDilation2(void **state) {
   /* in(r, c) = 4r + c + 1 on a 4x4 grid; the 2x2 kernel taps every other pixel. */
   const float data[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
   OpParams p;
   initConv(&p, 1, 1, 4, 4, 1, 2, 2, 2, 2);   /* out = (4 - 2*1 - 1)/1 + 1 = 2 */
   p.dilation_h = p.dilation_w = 2;
   float out[4];
   Ref_conv2d(&p, data, kernel2x2, out);
   const float want[4] = {
      78,    /* in(0,0)*1 + in(0,2)*2 + in(2,0)*3 + in(2,2)*4 = 1 + 6 + 27 + 44 */
      88,    /* 2*1 + 4*2 + 10*3 + 12*4 = 2 + 8 + 30 + 48 */
      118,   /* 5*1 + 7*2 + 13*3 + 15*4 = 5 + 14 + 39 + 60 */
      128,   /* 6*1 + 8*2 + 14*3 + 16*4 = 6 + 16 + 42 + 64 */
   };
   assertValues(out, want, 4);
}

static void conv2dTwoGroups(void **state) {
   /* 4 input channels of one pixel; filters 0,1 see channels 0,1 and filters 2,3 see
    * channels 2,3. */
   const float data[4] = { 1, 2, 3, 4 };
   const float kernel[8] = { 1, 10, 2, 20, 100, 1000, 3, 30 };
   OpParams p;
   initConv(&p, 1, 4, 1, 1, 4, 1, 1, 1, 1);
   p.groups = 2;
   float out[4];
   Ref_conv2d(&p, data, kernel, out);
   const float want[4] = {
      21,     /* 1*1 + 2*10 */
      42,     /* 1*2 + 2*20 */
      4300,   /* 3*100 + 4*1000 */
      129,    /* 3*3 + 4*30 */
   };
   assertValues(out, want, 4);
}

static void conv2dTwoChannelsBatch2(void **state) {
   /* Two images of 2 channels of 1x2 pixels, one 1x1 filter summing channel0 + 2*channel1. */
   const float data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
   const float kernel[2] = { 1, 2 };
   OpParams p;
   initConv(&p, 2, 2, 1, 2, 1, 1, 1, 1, 2);
   float out[4];
   Ref_conv2d(&p, data, kernel, out);
   const float want[4] = {
      7,    /* 1 + 2*3 */
      10,   /* 2 + 2*4 */
      19,   /* 5 + 2*7 */
      22,   /* 6 + 2*8 */
   };
   assertValues(out, want, 4);
}

/* ---------------------------------------------------------- dense, bmm ---- */

static void denseTwoByThree(void **state) {
   const float a[6] = { 1, 2, 3, 4, 5, 6 };
   const float w[6] = { 1, 0, -1, 2, 1, 0 };
   OpParams p;
   initMatmul(&p, OP_DENSE, 0, 2, 2, 3);
   float out[4];
   Ref_dense(&p, a, w, out);
   const float want[4] = {
      -2,   /* 1*1 + 2*0 + 3*-1 */
      4,    /* 1*2 + 2*1 + 3*0 */
      -2,   /* 4*1 + 5*0 + 6*-1 */
      13,   /* 4*2 + 5*1 + 6*0 */
   };
   assertValues(out, want, 4);
}

static void batchMatmulTwoBatches(void **state) {
   const float a[8] = { 1, 2, 3, 4, /* batch 1 */ 5, 6, 7, 8 };
   const float w[8] = { 1, 0, 0, 1, /* batch 1 */ 1, 1, 2, -1 };
   OpParams p;
   initMatmul(&p, OP_BATCH_MATMUL, 2, 2, 2, 2);
   float out[8];
   Ref_batchMatmul(&p, a, w, out);
   const float want[8] = {
      1,    /* 1*1 + 2*0 */
      2,    /* 1*0 + 2*1 */
      3,    /* 3*1 + 4*0 */
      4,    /* 3*0 + 4*1 */
      11,   /* 5*1 + 6*1 */
      4,    /* 5*2 + 6*-1 */
      15,   /* 7*1 + 8*1 */
      6,    /* 7*2 + 8*-1 */
   };
   assertValues(out, want, 8);
}

/* ----------------------------------------------------------------- pools ---- */

/* in(r, c) = 4r + c + 1 on a 4x4 grid, for the 3x3 stride 2 pad 1 pools, whose output
 * is (4 + 2 - 3)/2 + 1 = 2 square. */
static const float grid4x4[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static void maxPoolPaddedNegative(void **state) {
   /* All negative, so a zero-padded max would wrongly give 0 at the borders. */
   float data[16];
   for (int i = 0; i < 16; i++)
      data[i] = -grid4x4[i];
   OpParams p;
   initPool(&p, OP_MAX_POOL2D, 1, 1, 4, 4, 3, 2, 1, 2, 2);
   float out[4];
   Ref_maxPool2d(&p, data, out);
   const float want[4] = {
      -1,   /* rows -1..1, cols -1..1 (over padding): max(-1, -2, -5, -6) */
      -2,   /* rows -1..1, cols 1..3 (over padding): max(-2, -3, -4, -6, -7, -8) */
      -5,   /* rows 1..3, cols -1..1 (over padding): max(-5, -6, -9, -10, -13, -14) */
      -6,   /* rows 1..3, cols 1..3 (inside): max of -6..-16 */
   };
   assertValues(out, want, 4);
}

static void maxPoolPositive(void **state) {
   OpParams p;
   initPool(&p, OP_MAX_POOL2D, 1, 1, 4, 4, 3, 2, 1, 2, 2);
   float out[4];
   Ref_maxPool2d(&p, grid4x4, out);
   const float want[4] = {
      6,    /* max of in rows 0..1, cols 0..1 */
      8,    /* rows 0..1, cols 1..3 */
      14,   /* rows 1..3, cols 0..1 */
      16,   /* rows 1..3, cols 1..3 */
   };
   assertValues(out, want, 4);
}

static void avgPoolCountIncludePad(void **state) {
   OpParams p;
   initPool(&p, OP_AVG_POOL2D, 1, 1, 4, 4, 3, 2, 1, 2, 2);
   p.count_include_pad = true;
   float out[4];
   Ref_avgPool2d(&p, grid4x4, out);
   const float want[4] = {
      1.5555556f,   /* (1 + 2 + 5 + 6) / 9 = 14/9 */
      3.3333333f,   /* (2 + 3 + 4 + 6 + 7 + 8) / 9 = 30/9 */
      6.3333333f,   /* (5 + 6 + 9 + 10 + 13 + 14) / 9 = 57/9 */
      11,           /* (6 + 7 + 8 + 10 + 11 + 12 + 14 + 15 + 16) / 9 = 99/9 */
   };
   assertValues(out, want, 4);
}

static void avgPoolCountExcludePad(void **state) {
   OpParams p;
   initPool(&p, OP_AVG_POOL2D, 1, 1, 4, 4, 3, 2, 1, 2, 2);
   p.count_include_pad = false;
   float out[4];
   Ref_avgPool2d(&p, grid4x4, out);
   const float want[4] = {
      3.5f,   /* 14 / 4 positions inside */
      5,      /* 30 / 6 */
      9.5f,   /* 57 / 6 */
      11,     /* 99 / 9, no padding in this window */
   };
   assertValues(out, want, 4);
}

static void adaptiveAvgPoolUnevenWindows(void **state) {
   /* 5 -> 3 columns: windows [0,2), [1,4), [3,5). */
   const float data[5] = { 1, 2, 4, 8, 16 };
   OpParams p;
   initPool(&p, OP_ADAPTIVE_AVG_POOL2D, 1, 1, 1, 5, 0, 0, 0, 1, 3);
   float out[3];
   Ref_adaptiveAvgPool2d(&p, data, out);
   const float want[3] = {
      1.5f,         /* (1 + 2) / 2 */
      4.6666667f,   /* (2 + 4 + 8) / 3 = 14/3 */
      12,           /* (8 + 16) / 2 */
   };
   assertValues(out, want, 3);
}

static void adaptiveAvgPool5x5To3x3(void **state) {
   /* in(r, c) = 10r + c, so a window's mean is 10 * (mean row) + (mean column); the
    * mean index of [0,2), [1,4), [3,5) is 0.5, 2, 3.5. */
   float data[25];
   for (int r = 0; r < 5; r++)
      for (int c = 0; c < 5; c++)
         data[r * 5 + c] = (float)(10 * r + c);
   OpParams p;
   initPool(&p, OP_ADAPTIVE_AVG_POOL2D, 1, 1, 5, 5, 0, 0, 0, 3, 3);
   float out[9];
   Ref_adaptiveAvgPool2d(&p, data, out);
   const float want[9] = {
      5.5f,  7,     8.5f,    /* 5 + 0.5, 5 + 2, 5 + 3.5 */
      20.5f, 22,    23.5f,   /* 20 + 0.5, 20 + 2, 20 + 3.5 */
      35.5f, 37,    38.5f,   /* 35 + 0.5, 35 + 2, 35 + 3.5 */
   };
   assertValues(out, want, 9);
}

static void globalAvgPool(void **state) {
   const float data[8] = { 1, 2, 3, 4, /* channel 1 */ 5, 6, 7, 9 };
   OpParams p;
   initPool(&p, OP_GLOBAL_AVG_POOL2D, 1, 2, 2, 2, 0, 0, 0, 1, 1);
   float out[2];
   Ref_adaptiveAvgPool2d(&p, data, out);
   const float want[2] = {
      2.5f,    /* (1 + 2 + 3 + 4) / 4 */
      6.75f,   /* (5 + 6 + 7 + 9) / 4 = 27/4 */
   };
   assertValues(out, want, 2);
}

/* ------------------------------------------------------ softmax, layernorm ---- */

static void softmaxOneTwoThree(void **state) {
   const float x[3] = { 1, 2, 3 };
   const int64_t shape[1] = { 3 };
   OpParams p;
   initRows(&p, OP_SOFTMAX, 1, shape, 0);
   float out[3];
   Ref_softmax(&p, x, out);
   const float want[3] = {
      0.0900305732f,   /* e^-2 / (e^-2 + e^-1 + 1) = 0.135335283 / 1.503214724 */
      0.244728471f,    /* e^-1 / 1.503214724 = 0.367879441 / 1.503214724 */
      0.665240956f,    /* 1 / 1.503214724 */
   };
   assertValues(out, want, 3);
}

static void softmaxLargeValuesStable(void **state) {
   const float x[2] = { 1000, 1001 };
   const int64_t shape[1] = { 2 };
   OpParams p;
   initRows(&p, OP_SOFTMAX, 1, shape, 0);
   float out[2];
   Ref_softmax(&p, x, out);
   const float want[2] = {
      0.268941421f,   /* 1 / (1 + e) after subtracting the max 1001 */
      0.731058579f,   /* e / (1 + e) */
   };
   assertValues(out, want, 2);
}

static void softmaxEachRowSeparately(void **state) {
   /* Two rows of a [2, 3] tensor: the second is the first plus 999, which must not
    * change its softmax, and nothing may leak between rows. */
   const float x[6] = { 1, 2, 3, 1000, 1001, 1002 };
   const int64_t shape[2] = { 2, 3 };
   OpParams p;
   initRows(&p, OP_SOFTMAX, 2, shape, 0);
   float out[6];
   Ref_softmax(&p, x, out);
   const float want[6] = {
      0.0900305732f, 0.244728471f, 0.665240956f,   /* softmax(1, 2, 3) as above */
      0.0900305732f, 0.244728471f, 0.665240956f,   /* softmax(1, 2, 3) shifted by 999 */
   };
   assertValues(out, want, 6);
}

static void layerNormPlain(void **state) {
   const float x[4] = { 1, 2, 3, 4 };
   const float gamma[4] = { 1, 1, 1, 1 };
   const float beta[4] = { 0, 0, 0, 0 };
   const int64_t shape[1] = { 4 };
   OpParams p;
   initRows(&p, OP_LAYER_NORM, 1, shape, 0);
   float out[4];
   Ref_layerNorm(&p, x, gamma, beta, out);
   /* mean 2.5, var (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25, sqrt 1.25 = 1.118033989 */
   const float want[4] = {
      -1.341640786f,   /* -1.5 / 1.118033989 */
      -0.447213595f,   /* -0.5 / 1.118033989 */
      0.447213595f,    /* 0.5 / 1.118033989 */
      1.341640786f,    /* 1.5 / 1.118033989 */
   };
   assertValues(out, want, 4);
}

static void layerNormGammaBetaEpsilon(void **state) {
   const float x[4] = { 1, 2, 3, 4 };
   const float gamma[4] = { 1, 2, 0.5f, -1 };
   const float beta[4] = { 0, 1, -1, 0.5f };
   const int64_t shape[1] = { 4 };
   OpParams p;
   initRows(&p, OP_LAYER_NORM, 1, shape, 0.75);
   float out[4];
   Ref_layerNorm(&p, x, gamma, beta, out);
   /* var + eps = 1.25 + 0.75 = 2, 1/sqrt 2 = 0.707106781 */
   const float want[4] = {
      -1.060660172f,    /* -1.5 * 0.707106781 * 1 + 0 */
      0.292893219f,     /* -0.5 * 0.707106781 * 2 + 1 */
      -0.8232233047f,   /* 0.5 * 0.707106781 * 0.5 - 1 */
      -0.560660172f,    /* 1.5 * 0.707106781 * -1 + 0.5 */
   };
   assertValues(out, want, 4);
}

/* -------------------------------------------------------------- epilogue ---- */

static void biasOnConvChannels(void **state) {
   /* batch 2, out_c 2, 1x2 pixels: the bias follows axis 1. */
   float out[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
   const float bias[2] = { 10, 20 };
   const float *extra[1] = { bias };
   OpParams p;
   initConv(&p, 2, 1, 1, 2, 2, 1, 1, 1, 2);
   addEpilogue(&p, EPI_BIAS, 0, 0);
   Ref_epilogue(&p, extra, out);
   const float want[8] = {
      11, 12,   /* image 0, channel 0: 1 + 10, 2 + 10 */
      23, 24,   /* image 0, channel 1: 3 + 20, 4 + 20 */
      15, 16,   /* image 1, channel 0: 5 + 10, 6 + 10 */
      27, 28,   /* image 1, channel 1: 7 + 20, 8 + 20 */
   };
   assertValues(out, want, 8);
}

static void biasOnDenseColumns(void **state) {
   float out[6] = { 1, 2, 3, 4, 5, 6 };
   const float bias[3] = { 10, 20, 30 };
   const float *extra[1] = { bias };
   OpParams p;
   initMatmul(&p, OP_DENSE, 0, 2, 3, 4);
   addEpilogue(&p, EPI_BIAS, 0, 0);
   Ref_epilogue(&p, extra, out);
   const float want[6] = {
      11, 22, 33,   /* row 0: 1 + 10, 2 + 20, 3 + 30 */
      14, 25, 36,   /* row 1: 4 + 10, 5 + 20, 6 + 30 */
   };
   assertValues(out, want, 6);
}

static void biasOnBatchMatmulColumns(void **state) {
   float out[4] = { 1, 2, 3, 4 };
   const float bias[2] = { 10, 20 };
   const float *extra[1] = { bias };
   OpParams p;
   initMatmul(&p, OP_BATCH_MATMUL, 2, 1, 2, 5);
   addEpilogue(&p, EPI_BIAS, 0, 0);
   Ref_epilogue(&p, extra, out);
   const float want[4] = {
      11, 22,   /* batch 0: 1 + 10, 2 + 20 */
      13, 24,   /* batch 1: 3 + 10, 4 + 20 */
   };
   assertValues(out, want, 4);
}

static void addResidual(void **state) {
   float out[3] = { 1, 2, 3 };
   const float residual[3] = { 0.5f, -2, 10 };
   const float *extra[1] = { residual };
   OpParams p;
   initMatmul(&p, OP_DENSE, 0, 1, 3, 1);
   addEpilogue(&p, EPI_ADD, 0, 0);
   Ref_epilogue(&p, extra, out);
   const float want[3] = {
      1.5f,   /* 1 + 0.5 */
      0,      /* 2 - 2 */
      13,     /* 3 + 10 */
   };
   assertValues(out, want, 3);
}

static void reluClampsNegatives(void **state) {
   float out[5] = { -2, -0.5f, 0, 0.5f, 3 };
   OpParams p;
   initMatmul(&p, OP_DENSE, 0, 1, 5, 1);
   addEpilogue(&p, EPI_RELU, 0, 0);
   Ref_epilogue(&p, NULL, out);
   const float want[5] = {
      0, 0, 0,   /* max(-2, 0), max(-0.5, 0), max(0, 0) */
      0.5f, 3,   /* positives unchanged */
   };
   assertValues(out, want, 5);
}

static void relu6ClampsBothEnds(void **state) {
   float out[4] = { -1, 3, 6, 7.5f };
   OpParams p;
   initMatmul(&p, OP_DENSE, 0, 1, 4, 1);
   addEpilogue(&p, EPI_RELU6, 0, 0);
   Ref_epilogue(&p, NULL, out);
   const float want[4] = {
      0,   /* min(max(-1, 0), 6) */
      3,   /* min(max(3, 0), 6) */
      6,   /* min(max(6, 0), 6) */
      6,   /* min(max(7.5, 0), 6) */
   };
   assertValues(out, want, 4);
}

static void clipMinusOneTwo(void **state) {
   float out[5] = { -3, -1, 0.5f, 2, 5 };
   OpParams p;
   initMatmul(&p, OP_DENSE, 0, 1, 5, 1);
   addEpilogue(&p, EPI_CLIP, -1, 2);
   Ref_epilogue(&p, NULL, out);
   const float want[5] = {
      -1,     /* min(max(-3, -1), 2) */
      -1,     /* at the lower bound */
      0.5f,   /* inside */
      2,      /* at the upper bound */
      2,      /* min(max(5, -1), 2) */
   };
   assertValues(out, want, 5);
}

static void geluKnownValues(void **state) {
   float out[3] = { 0, 1, -1 };
   OpParams p;
   initMatmul(&p, OP_DENSE, 0, 1, 3, 1);
   addEpilogue(&p, EPI_GELU, 0, 0);
   Ref_epilogue(&p, NULL, out);
   const float want[3] = {
      0,               /* 0.5 * 0 * (1 + erf 0) */
      0.841344746f,    /* 0.5 * 1 * (1 + erf(0.707106781)) = 0.5 * 1.682689492 */
      -0.158655254f,   /* 0.5 * -1 * (1 - 0.682689492) */
   };
   assertValues(out, want, 3);
}

/* out = the one epilogue e applied to x[0..n) by Ref_epilogue */
static void applyOne(Epilogue e, const float *x, float *out, int64_t n) {
   memcpy(out, x, (size_t)n * sizeof *out);
   OpParams p;
   initMatmul(&p, OP_DENSE, 0, 1, n, 1);
   p.epilogue[p.nepilogue++] = e;
   Ref_epilogue(&p, NULL, out);
}

static void hardswishKnownValues(void **state) {
   const float x[6] = { -4, -1, 0, 1.5f, 3, 5 };
   float out[6];
   applyOne((Epilogue){ .kind = EPI_HARDSWISH, .lo = 0, .hi = 0 }, x, out, 6);
   const float want[6] = {
      0,              /* -4 * (min(max(-1, 0), 6) / 6) = -4 * 0 */
      -0.33333333f,   /* -1 * (2 / 6) */
      0,              /* 0 * (3 / 6) */
      1.125f,         /* 1.5 * (4.5 / 6) */
      3,              /* 3 * (6 / 6) */
      5,              /* 5 * (min(8, 6) / 6) */
   };
   assertValues(out, want, 6);
}

static void hardsigmoidKnownValues(void **state) {
   const float x[6] = { -4, -3, -1, 0, 1.5f, 5 };
   float out[6];
   applyOne((Epilogue){ .kind = EPI_HARDSIGMOID, .lo = 0, .hi = 0 }, x, out, 6);
   const float want[6] = {
      0,             /* max(-1, 0) / 6 */
      0,             /* max(0, 0) / 6 */
      0.33333333f,   /* 2 / 6 */
      0.5f,          /* 3 / 6 */
      0.75f,         /* 4.5 / 6 */
      1,             /* min(8, 6) / 6 */
   };
   assertValues(out, want, 6);
}

static void sigmoidKnownValues(void **state) {
   const float x[4] = { 0, 1, -2, 4 };
   float out[4];
   applyOne((Epilogue){ .kind = EPI_SIGMOID, .lo = 0, .hi = 0 }, x, out, 4);
   const float want[4] = {
      0.5f,           /* 1 / (1 + e^0) */
      0.731058579f,   /* 1 / (1 + 0.367879441) */
      0.119202922f,   /* 1 / (1 + 7.389056099) */
      0.982013790f,   /* 1 / (1 + 0.018315639) */
   };
   assertValues(out, want, 4);
}

static void epilogueAppliedInOrder(void **state) {
   const float bias[2] = { 1, 1 };
   const float *extra[1] = { bias };
   OpParams p;
   initMatmul(&p, OP_DENSE, 0, 1, 2, 1);
   addEpilogue(&p, EPI_BIAS, 0, 0);
   addEpilogue(&p, EPI_RELU, 0, 0);
   float biasFirst[2] = { -3, 1 };
   Ref_epilogue(&p, extra, biasFirst);
   const float wantBiasFirst[2] = {
      0,   /* max(-3 + 1, 0) */
      2,   /* max(1 + 1, 0) */
   };
   assertValues(biasFirst, wantBiasFirst, 2);

   p.epilogue[0].kind = EPI_RELU;
   p.epilogue[1].kind = EPI_BIAS;
   float reluFirst[2] = { -3, 1 };
   Ref_epilogue(&p, extra, reluFirst);
   const float wantReluFirst[2] = {
      1,   /* max(-3, 0) + 1 */
      2,   /* max(1, 0) + 1 */
   };
   assertValues(reluFirst, wantReluFirst, 2);
}

static void epilogueExtraTensorsInOrder(void **state) {
   /* bias, then residual, then relu: extra[0] is the bias and extra[1] the residual. */
   float out[2] = { 1, -5 };
   const float bias[2] = { 1, 2 };
   const float residual[2] = { -4, 10 };
   const float *extra[2] = { bias, residual };
   OpParams p;
   initMatmul(&p, OP_DENSE, 0, 1, 2, 1);
   addEpilogue(&p, EPI_BIAS, 0, 0);
   addEpilogue(&p, EPI_ADD, 0, 0);
   addEpilogue(&p, EPI_RELU, 0, 0);
   Ref_epilogue(&p, extra, out);
   const float want[2] = {
      0,   /* max(1 + 1 - 4, 0) */
      7,   /* max(-5 + 2 + 10, 0) */
   };
   assertValues(out, want, 2);
}

/* ---------------------------------------------------------------- Ref_run ---- */

static void runConvWithBiasRelu(void **state) {
   /* The stride 1 conv above (37 47 67 77) with bias -50, then relu. */
   const float bias[1] = { -50 };
   const float *inputs[3] = { conv3x3, kernel2x2, bias };
   OpParams p;
   initConv(&p, 1, 1, 3, 3, 1, 2, 2, 2, 2);
   addEpilogue(&p, EPI_BIAS, 0, 0);
   addEpilogue(&p, EPI_RELU, 0, 0);
   float out[4];
   Ref_run(&p, inputs, out);
   const float want[4] = {
      0,    /* max(37 - 50, 0) */
      0,    /* max(47 - 50, 0) */
      17,   /* 67 - 50 */
      27,   /* 77 - 50 */
   };
   assertValues(out, want, 4);
}

static void runLayerNormWithResidual(void **state) {
   /* The residual comes after data, gamma and beta. */
   const float x[4] = { 1, 2, 3, 4 };
   const float gamma[4] = { 1, 1, 1, 1 };
   const float beta[4] = { 0, 0, 0, 0 };
   const float residual[4] = { 1, 1, 1, 1 };
   const float *inputs[4] = { x, gamma, beta, residual };
   const int64_t shape[1] = { 4 };
   OpParams p;
   initRows(&p, OP_LAYER_NORM, 1, shape, 0);
   addEpilogue(&p, EPI_ADD, 0, 0);
   float out[4];
   Ref_run(&p, inputs, out);
   const float want[4] = {
      -0.341640786f,   /* -1.5 / sqrt 1.25 + 1 */
      0.552786405f,    /* -0.5 / sqrt 1.25 + 1 */
      1.447213595f,    /* 0.5 / sqrt 1.25 + 1 */
      2.341640786f,    /* 1.5 / sqrt 1.25 + 1 */
   };
   assertValues(out, want, 4);
}

static void runGlobalPoolWithClip(void **state) {
   const float data[8] = { 1, 2, 3, 4, 5, 6, 7, 9 };
   const float *inputs[1] = { data };
   OpParams p;
   initPool(&p, OP_GLOBAL_AVG_POOL2D, 1, 2, 2, 2, 0, 0, 0, 1, 1);
   addEpilogue(&p, EPI_CLIP, 0, 5);
   float out[2];
   Ref_run(&p, inputs, out);
   const float want[2] = {
      2.5f,   /* (1 + 2 + 3 + 4) / 4, inside [0, 5] */
      5,      /* 27/4 = 6.75 clipped to 5 */
   };
   assertValues(out, want, 2);
}

/* ------------------------------------------------------------- properties ---- */

static void depthwiseEqualsPerChannelConvs(void **state) {
   enum { N = 2, C = 3, H = 6, W = 7, KS = 3, OH = 3, OW = 4 };   /* (6+2-3)/2+1, (7+2-3)/2+1 */
   float *data = randomBuffer(N * C * H * W, 1, -1, 1);
   float *kernel = randomBuffer(C * KS * KS, 2, -1, 1);
   float out[N * C * OH * OW];
   OpParams p;
   initConv(&p, N, C, H, W, C, KS, KS, OH, OW);
   p.stride_h = p.stride_w = 2;
   p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
   p.groups = C;
   Ref_conv2d(&p, data, kernel, out);

   OpParams single = p;
   single.batch = 1;
   single.in_c = single.out_c = single.groups = 1;
   for (int n = 0; n < N; n++) {
      for (int c = 0; c < C; c++) {
         float one[OH * OW];
         Ref_conv2d(&single, data + (n * C + c) * H * W, kernel + c * KS * KS, one);
         assertValues(out + (n * C + c) * OH * OW, one, OH * OW);
      }
   }
   free(data);
   free(kernel);
}

static void groupedEqualsPerGroupConvs(void **state) {
   /* 2 groups of 2 input channels and 3 filters each, dilation 2. */
   enum { G = 2, CG = 2, KG = 3, H = 7, W = 6, KS = 2, OH = 5, OW = 4 };   /* 7-2-1+1, 6-2-1+1 */
   float *data = randomBuffer(G * CG * H * W, 3, -1, 1);
   float *kernel = randomBuffer(G * KG * CG * KS * KS, 4, -1, 1);
   float out[G * KG * OH * OW];
   OpParams p;
   initConv(&p, 1, G * CG, H, W, G * KG, KS, KS, OH, OW);
   p.dilation_h = p.dilation_w = 2;
   p.groups = G;
   Ref_conv2d(&p, data, kernel, out);

   OpParams one = p;
   one.in_c = CG;
   one.out_c = KG;
   one.groups = 1;
   for (int g = 0; g < G; g++) {
      float part[KG * OH * OW];
      Ref_conv2d(&one, data + g * CG * H * W, kernel + g * KG * CG * KS * KS, part);
      assertValues(out + g * KG * OH * OW, part, KG * OH * OW);
   }
   free(data);
   free(kernel);
}

static void denseEqualsBatchMatmulOfOne(void **state) {
   enum { M = 5, N = 7, K = 11 };
   float *a = randomBuffer(M * K, 5, -1, 1);
   float *w = randomBuffer(N * K, 6, -1, 1);
   float dense[M * N], bmm[M * N];
   OpParams p;
   initMatmul(&p, OP_DENSE, 0, M, N, K);
   Ref_dense(&p, a, w, dense);
   initMatmul(&p, OP_BATCH_MATMUL, 1, M, N, K);
   Ref_batchMatmul(&p, a, w, bmm);
   assertValues(bmm, dense, M * N);
   free(a);
   free(w);
}

static void batchMatmulEqualsDensePerBatch(void **state) {
   enum { B = 3, M = 4, N = 5, K = 6 };
   float *a = randomBuffer(B * M * K, 7, -1, 1);
   float *w = randomBuffer(B * N * K, 8, -1, 1);
   float bmm[B * M * N];
   OpParams p;
   initMatmul(&p, OP_BATCH_MATMUL, B, M, N, K);
   Ref_batchMatmul(&p, a, w, bmm);
   initMatmul(&p, OP_DENSE, 0, M, N, K);
   for (int b = 0; b < B; b++) {
      float dense[M * N];
      Ref_dense(&p, a + b * M * K, w + b * N * K, dense);
      assertValues(bmm + b * M * N, dense, M * N);
   }
   free(a);
   free(w);
}

static void conv1x1EqualsDenseOverChannels(void **state) {
   /* A 1x1 conv is a dense with one row per pixel: a[pixel, c] = data[c, pixel]. */
   enum { C = 6, K = 4, H = 3, W = 5, P = H * W };
   float *data = randomBuffer(C * P, 9, -1, 1);
   float *kernel = randomBuffer(K * C, 10, -1, 1);
   float conv[K * P], dense[P * K], a[P * C], denseByChannel[K * P];
   OpParams p;
   initConv(&p, 1, C, H, W, K, 1, 1, H, W);
   Ref_conv2d(&p, data, kernel, conv);
   for (int px = 0; px < P; px++)
      for (int c = 0; c < C; c++)
         a[px * C + c] = data[c * P + px];
   initMatmul(&p, OP_DENSE, 0, P, K, C);
   Ref_dense(&p, a, kernel, dense);
   for (int k = 0; k < K; k++)
      for (int px = 0; px < P; px++)
         denseByChannel[k * P + px] = dense[px * K + k];
   assertValues(conv, denseByChannel, K * P);
   free(data);
   free(kernel);
}

static void softmaxRowsSumToOne(void **state) {
   enum { ROWS = 4 * 5, D = 7 };
   const int64_t shape[3] = { 4, 5, D };
   float *x = randomBuffer(ROWS * D, 11, -10, 10);
   float out[ROWS * D];
   OpParams p;
   initRows(&p, OP_SOFTMAX, 3, shape, 0);
   Ref_softmax(&p, x, out);
   for (int r = 0; r < ROWS; r++) {
      double sum = 0;
      for (int j = 0; j < D; j++) {
         assert_true(out[r * D + j] > 0.0f);
         sum += out[r * D + j];
      }
      assert_true(fabs(sum - 1.0) <= 1e-6);
   }
   free(x);
}

static void softmaxShiftInvariant(void **state) {
   enum { ROWS = 3, D = 8 };
   const int64_t shape[2] = { ROWS, D };
   float *x = randomBuffer(ROWS * D, 12, -4, 4);
   float shifted[ROWS * D], out[ROWS * D], outShifted[ROWS * D];
   for (int i = 0; i < ROWS * D; i++)
      shifted[i] = x[i] + 64.0f;
   OpParams p;
   initRows(&p, OP_SOFTMAX, 2, shape, 0);
   Ref_softmax(&p, x, out);
   Ref_softmax(&p, shifted, outShifted);
   /* Rounding x + 64 to float moves each input by up to 4e-6, hence the tolerance. */
   TestUtil_assertClose(outShifted, out, ROWS * D, 1e-4, 1e-6);
   free(x);
}

static void layerNormRowsStandardized(void **state) {
   enum { ROWS = 3, D = 16 };
   const int64_t shape[2] = { ROWS, D };
   float *x = randomBuffer(ROWS * D, 13, -5, 5);
   float *gamma = constantBuffer(D, 1);
   float *beta = constantBuffer(D, 0);
   float out[ROWS * D];
   OpParams p;
   initRows(&p, OP_LAYER_NORM, 2, shape, 1e-5);
   Ref_layerNorm(&p, x, gamma, beta, out);
   for (int r = 0; r < ROWS; r++) {
      double mean = 0, var = 0;
      for (int j = 0; j < D; j++)
         mean += out[r * D + j];
      mean /= D;
      for (int j = 0; j < D; j++)
         var += (out[r * D + j] - mean) * (out[r * D + j] - mean);
      var /= D;
      assert_true(fabs(mean) <= 1e-5);
      assert_true(fabs(var - 1.0) <= 1e-5);
   }
   free(x);
   free(gamma);
   free(beta);
}

static void poolsOfConstantAreConstant(void **state) {
   enum { N = 2, C = 3, H = 7, W = 6 };
   float *data = constantBuffer(N * C * H * W, 2.5f);
   float out[N * C * H * W];
   OpParams p;

   /* 3x3 s2 p1: (7+2-3)/2+1 = 4, (6+2-3)/2+1 = 3; the border windows cover padding. */
   initPool(&p, OP_MAX_POOL2D, N, C, H, W, 3, 2, 1, 4, 3);
   Ref_maxPool2d(&p, data, out);
   assertValues(out, data, N * C * 4 * 3);

   p.kind = OP_AVG_POOL2D;
   p.count_include_pad = false;
   Ref_avgPool2d(&p, data, out);
   assertValues(out, data, N * C * 4 * 3);

   initPool(&p, OP_ADAPTIVE_AVG_POOL2D, N, C, H, W, 0, 0, 0, 3, 4);
   Ref_adaptiveAvgPool2d(&p, data, out);
   assertValues(out, data, N * C * 3 * 4);

   initPool(&p, OP_GLOBAL_AVG_POOL2D, N, C, H, W, 0, 0, 0, 1, 1);
   Ref_adaptiveAvgPool2d(&p, data, out);
   assertValues(out, data, N * C);
   free(data);
}

static void avgPoolIncludePadShrinksBorders(void **state) {
   /* With padding counted, a constant's border windows average in zeros. */
   enum { H = 4, W = 4 };
   float *data = constantBuffer(H * W, 9);
   float out[4];
   OpParams p;
   initPool(&p, OP_AVG_POOL2D, 1, 1, H, W, 3, 2, 1, 2, 2);
   p.count_include_pad = true;
   Ref_avgPool2d(&p, data, out);
   const float want[4] = {
      4,   /* 4 inside positions * 9 / 9 */
      6,   /* 6 * 9 / 9 */
      6,   /* 6 * 9 / 9 */
      9,   /* 9 * 9 / 9 */
   };
   assertValues(out, want, 4);
   free(data);
}

static void maxPoolAtLeastAvgPool(void **state) {
   enum { N = 1, C = 2, H = 9, W = 8, OH = 5, OW = 4 };   /* (9+2-3)/2+1, (8+2-3)/2+1 */
   float *data = randomBuffer(N * C * H * W, 14, -3, 3);
   float maxOut[N * C * OH * OW], avgOut[N * C * OH * OW];
   OpParams p;
   initPool(&p, OP_MAX_POOL2D, N, C, H, W, 3, 2, 1, OH, OW);
   Ref_maxPool2d(&p, data, maxOut);
   p.kind = OP_AVG_POOL2D;
   p.count_include_pad = false;
   Ref_avgPool2d(&p, data, avgOut);
   for (int i = 0; i < N * C * OH * OW; i++)
      assert_true(maxOut[i] >= avgOut[i] - 1e-6f);
   free(data);
}

static void adaptiveEqualsAvgPoolWhenDivisible(void **state) {
   /* 8x6 -> 4x3 windows are exactly the 2x2 stride 2 avg pool's. */
   enum { N = 2, C = 2, H = 8, W = 6, OH = 4, OW = 3 };
   float *data = randomBuffer(N * C * H * W, 15, -1, 1);
   float adaptive[N * C * OH * OW], avg[N * C * OH * OW];
   OpParams p;
   initPool(&p, OP_ADAPTIVE_AVG_POOL2D, N, C, H, W, 0, 0, 0, OH, OW);
   Ref_adaptiveAvgPool2d(&p, data, adaptive);
   initPool(&p, OP_AVG_POOL2D, N, C, H, W, 2, 2, 0, OH, OW);
   Ref_avgPool2d(&p, data, avg);
   assertValues(adaptive, avg, N * C * OH * OW);
   free(data);
}

static void relu6EqualsClipZeroSix(void **state) {
   enum { N = 64 };
   float *x = randomBuffer(N, 16, -10, 10);
   float relu6[N], clip[N];
   applyOne((Epilogue){ .kind = EPI_RELU6, .lo = 0, .hi = 0 }, x, relu6, N);
   applyOne((Epilogue){ .kind = EPI_CLIP, .lo = 0, .hi = 6 }, x, clip, N);
   assertValues(relu6, clip, N);
   free(x);
}

static void hardswishIsXTimesHardsigmoid(void **state) {
   enum { N = 64 };
   float *x = randomBuffer(N, 26, -8, 8);
   float swish[N], sig[N];
   applyOne((Epilogue){ .kind = EPI_HARDSWISH, .lo = 0, .hi = 0 }, x, swish, N);
   applyOne((Epilogue){ .kind = EPI_HARDSIGMOID, .lo = 0, .hi = 0 }, x, sig, N);
   for (int i = 0; i < N; i++)
      sig[i] *= x[i];
   assertValues(swish, sig, N);
   free(x);
}

static void runConvEqualsOpThenEpilogue(void **state) {
   enum { N = 2, C = 4, K = 6, H = 5, W = 5, OH = 3, OW = 3 };   /* (5+2-3)/2+1 */
   float *data = randomBuffer(N * C * H * W, 17, -1, 1);
   float *kernel = randomBuffer(K * (C / 2) * 3 * 3, 18, -1, 1);
   float *bias = randomBuffer(K, 19, -1, 1);
   float *residual = randomBuffer(N * K * OH * OW, 20, -1, 1);
   OpParams p;
   initConv(&p, N, C, H, W, K, 3, 3, OH, OW);
   p.stride_h = p.stride_w = 2;
   p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
   p.groups = 2;
   addEpilogue(&p, EPI_BIAS, 0, 0);
   addEpilogue(&p, EPI_ADD, 0, 0);
   addEpilogue(&p, EPI_GELU, 0, 0);
   const float *inputs[4] = { data, kernel, bias, residual };
   float run[N * K * OH * OW], step[N * K * OH * OW];
   Ref_run(&p, inputs, run);
   Ref_conv2d(&p, data, kernel, step);
   Ref_epilogue(&p, inputs + 2, step);
   assertValues(run, step, N * K * OH * OW);
   free(data);
   free(kernel);
   free(bias);
   free(residual);
}

static void runBatchMatmulEqualsOpThenEpilogue(void **state) {
   enum { B = 2, M = 3, N = 4, K = 5 };
   float *a = randomBuffer(B * M * K, 21, -1, 1);
   float *w = randomBuffer(B * N * K, 22, -1, 1);
   float *bias = randomBuffer(N, 23, -1, 1);
   OpParams p;
   initMatmul(&p, OP_BATCH_MATMUL, B, M, N, K);
   addEpilogue(&p, EPI_BIAS, 0, 0);
   addEpilogue(&p, EPI_CLIP, -0.25, 0.5);
   const float *inputs[3] = { a, w, bias };
   float run[B * M * N], step[B * M * N];
   Ref_run(&p, inputs, run);
   Ref_batchMatmul(&p, a, w, step);
   Ref_epilogue(&p, inputs + 2, step);
   assertValues(run, step, B * M * N);
   free(a);
   free(w);
   free(bias);
}

static void runSoftmaxEqualsOpThenEpilogue(void **state) {
   enum { ROWS = 3, D = 5 };
   const int64_t shape[2] = { ROWS, D };
   float *x = randomBuffer(ROWS * D, 24, -2, 2);
   float *residual = randomBuffer(ROWS * D, 25, -1, 1);
   OpParams p;
   initRows(&p, OP_SOFTMAX, 2, shape, 0);
   addEpilogue(&p, EPI_ADD, 0, 0);
   addEpilogue(&p, EPI_RELU, 0, 0);
   const float *inputs[2] = { x, residual };
   float run[ROWS * D], step[ROWS * D];
   Ref_run(&p, inputs, run);
   Ref_softmax(&p, x, step);
   Ref_epilogue(&p, inputs + 1, step);
   assertValues(run, step, ROWS * D);
   free(x);
   free(residual);
}

/* ---- conv2d_transpose, resize2d, concat and the new epilogues ---- */

static void initTranspose(OpParams *p, int64_t inC, int64_t inH, int64_t inW, int64_t outC,
                          int64_t kh, int64_t kw, int64_t stride) {
   Op_defaults(p, OP_CONV2D_TRANSPOSE);
   p->in_c = inC, p->in_h = inH, p->in_w = inW, p->out_c = outC;
   p->kernel_h = kh, p->kernel_w = kw;
   p->stride_h = p->stride_w = stride;
}

static void finishOp(OpParams *p) {
   const char *field = NULL;
   char *cause = NULL;
   if (Op_finish(p, &field, &cause) < 0)
      fail_msg("Op_finish: %s: %s", field, cause);
}

static void convTransposeSpreadsEachPixel(void **state) {
   (void)state;
   /* stride 2 with a 2x2 kernel: each input pixel stamps x * w on its own 2x2 block */
   const float x[4] = { 1, 2, 3, 4 };
   const float w[4] = { 1, 10, 100, 1000 };
   OpParams p;
   initTranspose(&p, 1, 2, 2, 1, 2, 2, 2);
   finishOp(&p);
   assert_int_equal(p.out_h, 4);
   float out[16];
   Ref_conv2dTranspose(&p, x, w, out);
   const float want[16] = {
      1,   10,   2,   20,
      100, 1000, 200, 2000,
      3,   30,   4,   40,
      300, 3000, 400, 4000,
   };
   assertValues(out, want, 16);
}

static void convTransposeOverlapsCropsAndPads(void **state) {
   (void)state;
   /* 1-D along w: [1, 2, 3] through [1, 1, 1] at stride 2 overlaps at every other
    * position: the full result is [1, 1, 3, 2, 5, 3, 3]; pad 1 crops one element from
    * each end, output_padding 1 gives one back at the end */
   const float x[3] = { 1, 2, 3 };
   const float w[3] = { 1, 1, 1 };
   OpParams p;
   initTranspose(&p, 1, 1, 3, 1, 1, 3, 2);
   p.pad_left = p.pad_right = 1;
   finishOp(&p);
   assert_int_equal(p.out_w, 5);
   float out[6];
   Ref_conv2dTranspose(&p, x, w, out);
   const float want[6] = { 1, 3, 2, 5, 3, 3 };
   assertValues(out, want, 5);
   p.output_pad_w = 1;
   finishOp(&p);
   assert_int_equal(p.out_w, 6);
   Ref_conv2dTranspose(&p, x, w, out);
   assertValues(out, want, 6);
}

/* <conv2d_transpose(x), y> = <x, conv2d(y)> for the same kernel, stride, pads and
 * dilation: the transpose is the adjoint of the convolution. */
static void convTransposeIsAdjointOfConv(void **state) {
   (void)state;
   OpParams t;
   initTranspose(&t, 3, 4, 5, 2, 3, 3, 2);
   t.dilation_h = t.dilation_w = 2;
   t.pad_top = 1, t.pad_left = 2, t.pad_bottom = 3, t.pad_right = 0;
   t.output_pad_h = 1;
   finishOp(&t);
   /* (4-1)*2 - 4 + 4 + 1 + 1 = 8; (5-1)*2 - 2 + 4 + 0 + 1 = 11 */
   assert_int_equal(t.out_h, 8);
   assert_int_equal(t.out_w, 11);
   OpParams c;
   initConv(&c, 1, 2, t.out_h, t.out_w, 3, 3, 3, 4, 5);
   c.stride_h = c.stride_w = 2;
   c.dilation_h = c.dilation_w = 2;
   c.pad_top = 1, c.pad_left = 2, c.pad_bottom = 3, c.pad_right = 0;
   finishOp(&c);
   assert_int_equal(c.out_h, 4);
   assert_int_equal(c.out_w, 5);
   size_t nx = 3 * 4 * 5, ny = 2 * 8 * 11, nw = 3 * 2 * 9;
   float *x = randomBuffer(nx, 91, -1, 1), *y = randomBuffer(ny, 92, -1, 1);
   float *w = randomBuffer(nw, 93, -1, 1);
   float *tx = xMalloc(ny * sizeof *tx), *cy = xMalloc(nx * sizeof *cy);
   Ref_conv2dTranspose(&t, x, w, tx);
   /* conv2d's kernel [out=3, in=2, 3, 3] is the transpose's [in=3, out=2, 3, 3] */
   Ref_conv2d(&c, y, w, cy);
   double a = 0, b = 0;
   for (size_t i = 0; i < ny; i++)
      a += (double)tx[i] * y[i];
   for (size_t i = 0; i < nx; i++)
      b += (double)x[i] * cy[i];
   assert_true(fabs(a - b) < 1e-4 * (1 + fabs(a)));
   free(x), free(y), free(w), free(tx), free(cy);
}

static void initResize(OpParams *p, int64_t h, int64_t w, int64_t oh, int64_t ow, ResizeMode mode,
                       ResizeCoord coord) {
   Op_defaults(p, OP_RESIZE2D);
   p->in_c = 1, p->in_h = h, p->in_w = w, p->out_h = oh, p->out_w = ow;
   p->resize_mode = mode;
   p->coord = coord;
}

/* The examples of ONNX's Resize operator document (resize_upsample_scales_nearest,
 * _linear, _linear_align_corners, resize_downsample_scales_nearest). */
static const float resizeInput[4] = { 1, 2, 3, 4 };

static void resizeNearestUpsample(void **state) {
   (void)state;
   OpParams p;
   initResize(&p, 2, 2, 4, 6, RESIZE_NEAREST, COORD_HALF_PIXEL);
   finishOp(&p);
   float out[24];
   Ref_resize2d(&p, resizeInput, out);
   const float want[24] = {
      1, 1, 1, 2, 2, 2,
      1, 1, 1, 2, 2, 2,
      3, 3, 3, 4, 4, 4,
      3, 3, 3, 4, 4, 4,
   };
   assertValues(out, want, 24);
}

static void resizeLinearUpsample(void **state) {
   (void)state;
   OpParams p;
   initResize(&p, 2, 2, 4, 4, RESIZE_LINEAR, COORD_HALF_PIXEL);
   finishOp(&p);
   float out[16];
   Ref_resize2d(&p, resizeInput, out);
   const float want[16] = {
      1,   1.25, 1.75, 2,
      1.5, 1.75, 2.25, 2.5,
      2.5, 2.75, 3.25, 3.5,
      3,   3.25, 3.75, 4,
   };
   assertValues(out, want, 16);
   p.coord = COORD_ALIGN_CORNERS;
   Ref_resize2d(&p, resizeInput, out);
   const float corners[16] = {
      1,          4.f / 3,  5.f / 3,  2,
      5.f / 3,    2,        7.f / 3,  8.f / 3,
      7.f / 3,    8.f / 3,  3,        10.f / 3,
      3,          10.f / 3, 11.f / 3, 4,
   };
   assertValues(out, corners, 16);
}

static void resizeNearestDownsampleByScale(void **state) {
   (void)state;
   /* scale 0.6 of 2x4 gives 1x2; output x = 1 samples (1.5 / 0.6) - 0.5 = 2 */
   const float x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
   OpParams p;
   initResize(&p, 2, 4, 1, 2, RESIZE_NEAREST, COORD_HALF_PIXEL);
   p.scale_num[0] = p.scale_num[1] = 3;
   p.scale_den[0] = p.scale_den[1] = 5;
   finishOp(&p);
   float out[2];
   Ref_resize2d(&p, x, out);
   const float want[2] = { 1, 3 };
   assertValues(out, want, 2);
   /* asymmetric, floor: output x samples floor(x / 0.6): 0 and 1 */
   p.coord = COORD_ASYMMETRIC;
   p.rounding = ROUND_FLOOR;
   Ref_resize2d(&p, x, out);
   const float floorWant[2] = { 1, 2 };
   assertValues(out, floorWant, 2);
}

static void concatAlongChannels(void **state) {
   (void)state;
   /* batch 2: each sample's channels come from a, then b */
   const float a[4] = { 1, 2, 3, 4 };          /* 2 x 1 x 2 */
   const float b[8] = { 5, 6, 7, 8, 9, 10, 11, 12 };   /* 2 x 2 x 2 */
   const float *inputs[2] = { a, b };
   OpParams p;
   Op_defaults(&p, OP_CONCAT);
   p.ndim = 3;
   p.shape[0] = 2, p.shape[2] = 2;
   p.concat_axis = 1;
   p.ninputs = 2;
   p.concat_len[0] = 1, p.concat_len[1] = 2;
   finishOp(&p);
   float out[12];
   Ref_run(&p, inputs, out);
   const float want[12] = { 1, 2, 5, 6, 7, 8, 3, 4, 9, 10, 11, 12 };
   assertValues(out, want, 12);
}

static void channelMulScaleAndConstants(void **state) {
   (void)state;
   /* 1 x 2 x 1 x 2: channel_mul by s[0, c] = [2, 3], scale by [10, 100], add 1, / 4 */
   const float x[4] = { 1, 2, 3, 4 };
   const float s[2] = { 2, 3 };
   const float sc[2] = { 10, 100 };
   const float *inputs[3] = { x, s, sc };
   OpParams p;
   Op_defaults(&p, OP_ELEMENTWISE);
   p.ndim = 4;
   p.shape[0] = 1, p.shape[1] = 2, p.shape[2] = 1, p.shape[3] = 2;
   p.epilogue[p.nepilogue++] = (Epilogue){ .kind = EPI_CHANNEL_MUL };
   p.epilogue[p.nepilogue++] = (Epilogue){ .kind = EPI_SCALE };
   p.epilogue[p.nepilogue++] = (Epilogue){ .kind = EPI_MUL_CONST, .value = -1 };
   p.epilogue[p.nepilogue++] = (Epilogue){ .kind = EPI_DIV_CONST, .value = 4 };
   finishOp(&p);
   float out[4];
   Ref_run(&p, inputs, out);
   const float want[4] = {
      -5,     /* 1 * 2 * 10 * -1 / 4 */
      -10,    /* 2 * 2 * 10 * -1 / 4 */
      -225,   /* 3 * 3 * 100 * -1 / 4 */
      -300,   /* 4 * 3 * 100 * -1 / 4 */
   };
   assertValues(out, want, 4);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(conv2dStride1Pad0),
      cmocka_unit_test(conv2dPad1Stride2),
      cmocka_unit_test(conv2dDilation2),
      cmocka_unit_test(conv2dTwoGroups),
      cmocka_unit_test(conv2dTwoChannelsBatch2),
      cmocka_unit_test(denseTwoByThree),
      cmocka_unit_test(batchMatmulTwoBatches),
      cmocka_unit_test(maxPoolPaddedNegative),
      cmocka_unit_test(maxPoolPositive),
      cmocka_unit_test(avgPoolCountIncludePad),
      cmocka_unit_test(avgPoolCountExcludePad),
      cmocka_unit_test(adaptiveAvgPoolUnevenWindows),
      cmocka_unit_test(adaptiveAvgPool5x5To3x3),
      cmocka_unit_test(globalAvgPool),
      cmocka_unit_test(softmaxOneTwoThree),
      cmocka_unit_test(softmaxLargeValuesStable),
      cmocka_unit_test(softmaxEachRowSeparately),
      cmocka_unit_test(layerNormPlain),
      cmocka_unit_test(layerNormGammaBetaEpsilon),
      cmocka_unit_test(biasOnConvChannels),
      cmocka_unit_test(biasOnDenseColumns),
      cmocka_unit_test(biasOnBatchMatmulColumns),
      cmocka_unit_test(addResidual),
      cmocka_unit_test(convTransposeSpreadsEachPixel),
      cmocka_unit_test(convTransposeOverlapsCropsAndPads),
      cmocka_unit_test(convTransposeIsAdjointOfConv),
      cmocka_unit_test(resizeNearestUpsample),
      cmocka_unit_test(resizeLinearUpsample),
      cmocka_unit_test(resizeNearestDownsampleByScale),
      cmocka_unit_test(concatAlongChannels),
      cmocka_unit_test(channelMulScaleAndConstants),
      cmocka_unit_test(reluClampsNegatives),
      cmocka_unit_test(relu6ClampsBothEnds),
      cmocka_unit_test(clipMinusOneTwo),
      cmocka_unit_test(geluKnownValues),
      cmocka_unit_test(hardswishKnownValues),
      cmocka_unit_test(hardsigmoidKnownValues),
      cmocka_unit_test(sigmoidKnownValues),
      cmocka_unit_test(epilogueAppliedInOrder),
      cmocka_unit_test(epilogueExtraTensorsInOrder),
      cmocka_unit_test(runConvWithBiasRelu),
      cmocka_unit_test(runLayerNormWithResidual),
      cmocka_unit_test(runGlobalPoolWithClip),
      cmocka_unit_test(depthwiseEqualsPerChannelConvs),
      cmocka_unit_test(groupedEqualsPerGroupConvs),
      cmocka_unit_test(denseEqualsBatchMatmulOfOne),
      cmocka_unit_test(batchMatmulEqualsDensePerBatch),
      cmocka_unit_test(conv1x1EqualsDenseOverChannels),
      cmocka_unit_test(softmaxRowsSumToOne),
      cmocka_unit_test(softmaxShiftInvariant),
      cmocka_unit_test(layerNormRowsStandardized),
      cmocka_unit_test(poolsOfConstantAreConstant),
      cmocka_unit_test(avgPoolIncludePadShrinksBorders),
      cmocka_unit_test(maxPoolAtLeastAvgPool),
      cmocka_unit_test(adaptiveEqualsAvgPoolWhenDivisible),
      cmocka_unit_test(relu6EqualsClipZeroSix),
      cmocka_unit_test(hardswishIsXTimesHardsigmoid),
      cmocka_unit_test(runConvEqualsOpThenEpilogue),
      cmocka_unit_test(runBatchMatmulEqualsOpThenEpilogue),
      cmocka_unit_test(runSoftmaxEqualsOpThenEpilogue),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
