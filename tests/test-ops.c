/* The op library: for every op kind, the DAG's exact FLOP count against a hand
 * computation, the DAG interpreted directly against the op's C reference (so the DAG
 * means what the op means), the TOPI stage structure, and validation messages. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "te/op.h"
#include "te/ref.h"
#include "util/xalloc.h"

static OpParams conv(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t kh,
                     int64_t kw) {
   OpParams p;
   Op_defaults(&p, OP_CONV2D);
   p.batch = n, p.in_c = c, p.in_h = h, p.in_w = w, p.out_c = k, p.kernel_h = kh, p.kernel_w = kw;
   return p;
}

static OpParams pool(OpKind kind, int64_t c, int64_t h, int64_t w, int64_t kh, int64_t kw) {
   OpParams p;
   Op_defaults(&p, kind);
   p.in_c = c, p.in_h = h, p.in_w = w, p.kernel_h = kh, p.kernel_w = kw;
   p.stride_h = kh, p.stride_w = kw;
   return p;
}

static void addEpilogue(OpParams *p, EpilogueKind k, double lo, double hi) {
   p->epilogue[p->nepilogue++] = (Epilogue){ .kind = k, .lo = lo, .hi = hi };
}

static void finish(OpParams *p) {
   const char *field = NULL;
   char *cause = NULL;
   if (Op_finish(p, &field, &cause) < 0)
      fail_msg("Op_finish: %s: %s", field, cause);
}

/* Builds the DAG, interprets it on seeded inputs and compares with Ref_run. */
static void checkAgainstReference(const OpParams *p, uint64_t seed) {
   Dag g;
   Dag_init(&g);
   Op_buildDag(p, &g);
   assert_int_equal(Dag_numInputs(&g), Op_numInputs(p));
   float **bufs = xCalloc((size_t)g.nstages, sizeof *bufs);
   const float *inputs[OP_MAX_INPUTS];
   for (int s = 0; s < g.nstages; s++)
      bufs[s] = xCalloc((size_t)Dag_numElements(&g, s), sizeof(float));
   for (int i = 0; i < Op_numInputs(p); i++) {
      int s = Dag_input(&g, i);
      int64_t shape[TE_MAX_DIMS];
      const char *name;
      int rank = Op_inputShape(p, i, shape, &name);
      assert_string_equal(g.stages[s].name, name);
      assert_int_equal(g.stages[s].ndim, rank);
      for (int d = 0; d < rank; d++)
         assert_int_equal(g.stages[s].shape[d], shape[d]);
      TestUtil_fillRandom(bufs[s], (size_t)Dag_numElements(&g, s), seed + (uint64_t)i, -2.0f, 2.0f);
      inputs[i] = bufs[s];
   }
   int64_t oshape[TE_MAX_DIMS];
   int orank = Op_outputShape(p, oshape);
   int out = Dag_output(&g);
   assert_int_equal(g.stages[out].ndim, orank);
   for (int d = 0; d < orank; d++)
      assert_int_equal(g.stages[out].shape[d], oshape[d]);
   size_t n = (size_t)Dag_numElements(&g, out);
   float *want = xCalloc(n, sizeof(float));
   Dag_evaluate(&g, bufs);
   Ref_run(p, inputs, want);
   TestUtil_assertClose(bufs[out], want, n, 1e-5, 1e-5);
   free(want);
   for (int s = 0; s < g.nstages; s++)
      free(bufs[s]);
   free(bufs);
   Dag_done(&g);
}

/* conv2d 3x3 pad 1, c x side x side -> k, with [bias, then] */
static OpParams paddedConvBiasThen(int64_t c, int64_t side, int64_t k, EpilogueKind then) {
   OpParams p = conv(1, c, side, side, k, 3, 3);
   p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
   addEpilogue(&p, EPI_BIAS, 0, 0);
   addEpilogue(&p, then, 0, 0);
   finish(&p);
   return p;
}

static void test_conv2d_padded_bias_relu(void **state) {
   (void)state;
   OpParams p = paddedConvBiasThen(3, 7, 4, EPI_RELU);
   assert_int_equal(p.out_h, 7);
   /* 2*K*OH*OW*C*R*S + (bias + relu)*K*OH*OW = 2*4*49*27 + 2*4*49 */
   assert_true(Op_flops(&p) == 10584.0 + 392.0);
   checkAgainstReference(&p, 1);
}

static void test_conv2d_stages_follow_topi(void **state) {
   (void)state;
   OpParams p = conv(1, 64, 56, 56, 64, 3, 3);
   p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
   addEpilogue(&p, EPI_BIAS, 0, 0);
   addEpilogue(&p, EPI_ADD, 0, 0);
   addEpilogue(&p, EPI_RELU, 0, 0);
   finish(&p);
   Dag g;
   Dag_init(&g);
   Op_buildDag(&p, &g);
   static const char *const names[] = { "data", "kernel", "pad_temp", "conv2d_nchw", "bias",
                                        "residual", "T_bias", "T_add", "T_relu" };
   assert_int_equal(g.nstages, 9);
   for (int i = 0; i < 9; i++)
      assert_string_equal(g.stages[i].name, names[i]);
   const Stage *c = &g.stages[3];
   assert_int_equal(c->nreduce, 3);
   assert_int_equal(c->rextent[0], 64);
   assert_int_equal(c->rextent[1], 3);
   char buf[200];
   Expr_format(&g, 3, c->body, buf, sizeof buf);
   assert_string_equal(buf, "pad_temp[nn, rc, yy + ry, xx + rx]*kernel[ff, rc, ry, rx]");
   Expr_format(&g, 2, g.stages[2].body, buf, sizeof buf);
   assert_string_equal(buf, "select(i2 >= 1 && i2 < 57 && i3 >= 1 && i3 < 57, data[i0, i1, i2 - 1, i3 - 1], 0.0)");
   Expr_format(&g, 6, g.stages[6].body, buf, sizeof buf);
   assert_string_equal(buf, "conv2d_nchw[ax0, ax1, ax2, ax3] + bias[ax1]");
   /* resnet_50 task 3: 231,612,416 FLOPs less the 2 that bias and add add... plus 3 */
   assert_true(Op_flops(&p) == 2.0 * 64 * 56 * 56 * 64 * 9 + 3.0 * 64 * 56 * 56);
   Dag_done(&g);
}

static void test_conv2d_grouped_strided_dilated_asymmetric(void **state) {
   (void)state;
   OpParams p = conv(2, 4, 9, 8, 6, 3, 2);
   p.groups = 2;
   p.stride_h = 2, p.stride_w = 1;
   p.pad_top = 1, p.pad_left = 0, p.pad_bottom = 2, p.pad_right = 1;
   p.dilation_h = 2, p.dilation_w = 1;
   addEpilogue(&p, EPI_BIAS, 0, 0);
   addEpilogue(&p, EPI_ADD, 0, 0);
   addEpilogue(&p, EPI_RELU6, 0, 0);
   finish(&p);
   /* OH = (9 + 3 - 2*2 - 1)/2 + 1 = 4; OW = (8 + 1 - 1 - 1)/1 + 1 = 8 */
   assert_int_equal(p.out_h, 4);
   assert_int_equal(p.out_w, 8);
   /* 2*N*K*OH*OW*(C/g)*R*S + (1 + 1 + 2)*N*K*OH*OW = 2*2*6*32*2*6 + 4*384 */
   assert_true(Op_flops(&p) == 9216.0 + 1536.0);
   checkAgainstReference(&p, 2);
   char buf[160];
   Op_describe(&p, buf, sizeof buf);
   assert_string_equal(buf, "2x4x9x8 -> 6x4x8, 3x2 s2x1 p1,0,2,1 d2x1 g2");
}

static void test_depthwise_conv2d_clip(void **state) {
   (void)state;
   OpParams p = conv(1, 5, 6, 7, 5, 3, 3);
   p.groups = 5;
   p.stride_h = p.stride_w = 2;
   p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
   addEpilogue(&p, EPI_BIAS, 0, 0);
   addEpilogue(&p, EPI_CLIP, -0.5, 0.5);
   finish(&p);
   assert_int_equal(p.out_h, 3);
   assert_int_equal(p.out_w, 4);
   Dag g;
   Dag_init(&g);
   Op_buildDag(&p, &g);
   /* one input channel per group: no channel reduce axis, the channel is the filter's */
   assert_int_equal(g.stages[3].nreduce, 2);
   char buf[200];
   Expr_format(&g, 3, g.stages[3].body, buf, sizeof buf);
   assert_string_equal(buf, "pad_temp[nn, ff, yy*2 + ry, xx*2 + rx]*kernel[ff, 0, ry, rx]");
   Dag_done(&g);
   /* 2*5*3*4*9 + (bias 1 + clip 2)*60 */
   assert_true(Op_flops(&p) == 1080.0 + 180.0);
   checkAgainstReference(&p, 3);
}

/* dense m x n x k with [bias, then] */
static OpParams denseBiasThen(int64_t m, int64_t n, int64_t k, EpilogueKind then) {
   OpParams p;
   Op_defaults(&p, OP_DENSE);
   p.m = m, p.n = n, p.k = k;
   addEpilogue(&p, EPI_BIAS, 0, 0);
   addEpilogue(&p, then, 0, 0);
   finish(&p);
   return p;
}

static void test_dense_bias_gelu(void **state) {
   (void)state;
   OpParams p = denseBiasThen(3, 5, 7, EPI_GELU);
   /* 2*M*N*K + (bias 1 + gelu 4: x*c, 1 + erf, x*0.5, product)*M*N */
   assert_true(Op_flops(&p) == 210.0 + 75.0);
   checkAgainstReference(&p, 4);
}

/* The DAG's last stage, the epilogue's: its name and its body as text. */
static void checkLastStage(const OpParams *p, const char *name, const char *body) {
   Dag g;
   Dag_init(&g);
   Op_buildDag(p, &g);
   int out = Dag_output(&g);
   assert_string_equal(g.stages[out].name, name);
   char buf[200];
   Expr_format(&g, out, g.stages[out].body, buf, sizeof buf);
   assert_string_equal(buf, body);
   Dag_done(&g);
}

static void test_conv2d_bias_hardswish(void **state) {
   (void)state;
   OpParams p = paddedConvBiasThen(3, 5, 4, EPI_HARDSWISH);
   checkLastStage(&p, "T_hardswish",
                  "T_bias[ax0, ax1, ax2, ax3]*(min(max(T_bias[ax0, ax1, ax2, ax3] + 3.0, 0.0), 6.0)/6.0)");
   /* 2*K*OH*OW*C*R*S + (bias 1 + hardswish 5: + 3, max, min, / 6, * x)*K*OH*OW
    * = 2*4*25*27 + 6*4*25 */
   assert_true(Op_flops(&p) == 5400.0 + 600.0);
   checkAgainstReference(&p, 14);
}

static void test_conv2d_on_1x1_bias_hardsigmoid(void **state) {
   (void)state;
   /* a squeeze-excitation's second conv: 1x1 over a pooled 1x1 map */
   OpParams p = conv(1, 8, 1, 1, 24, 1, 1);
   addEpilogue(&p, EPI_BIAS, 0, 0);
   addEpilogue(&p, EPI_HARDSIGMOID, 0, 0);
   finish(&p);
   checkLastStage(&p, "T_hardsigmoid", "min(max(T_bias[ax0, ax1, ax2, ax3] + 3.0, 0.0), 6.0)/6.0");
   /* 2*K*C + (bias 1 + hardsigmoid 4: + 3, max, min, / 6)*K = 2*24*8 + 5*24 */
   assert_true(Op_flops(&p) == 384.0 + 120.0);
   checkAgainstReference(&p, 15);
}

static void test_dense_bias_sigmoid(void **state) {
   (void)state;
   OpParams p = denseBiasThen(6, 4, 8, EPI_SIGMOID);
   checkLastStage(&p, "T_sigmoid", "sigmoid(T_bias[ax0, ax1])");
   /* 2*M*N*K + bias 1*M*N; the sigmoid is one intrinsic call, 0 */
   assert_true(Op_flops(&p) == 384.0 + 24.0);
   checkAgainstReference(&p, 16);
   char key[160];
   Op_key(&p, key, sizeof key);
   assert_string_equal(key, "dense_b1_m6_n4_k8+bias+sigmoid");
}

static void test_batch_matmul_add(void **state) {
   (void)state;
   OpParams p;
   Op_defaults(&p, OP_BATCH_MATMUL);
   p.b = 2, p.m = 3, p.n = 4, p.k = 5;
   addEpilogue(&p, EPI_BIAS, 0, 0);
   addEpilogue(&p, EPI_ADD, 0, 0);
   finish(&p);
   assert_true(Op_flops(&p) == 2.0 * 2 * 3 * 4 * 5 + 2.0 * 24);
   checkAgainstReference(&p, 5);
   char key[160];
   Op_key(&p, key, sizeof key);
   assert_string_equal(key, "batch_matmul_b2_m3_n4_k5+bias+add");
}

static void test_max_pool_padded(void **state) {
   (void)state;
   OpParams p = pool(OP_MAX_POOL2D, 2, 7, 7, 3, 3);
   p.stride_h = p.stride_w = 2;
   p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
   finish(&p);
   assert_int_equal(p.out_h, 4);
   /* one max per window element: 2*4*4*9 */
   assert_true(Op_flops(&p) == 288.0);
   checkAgainstReference(&p, 6);
}

static void test_avg_pool_include_and_exclude_pad(void **state) {
   (void)state;
   for (int incl = 0; incl < 2; incl++) {
      OpParams p = pool(OP_AVG_POOL2D, 2, 6, 5, 3, 3);
      p.stride_h = p.stride_w = 2;
      p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
      p.count_include_pad = incl;
      addEpilogue(&p, EPI_RELU, 0, 0);
      finish(&p);
      assert_int_equal(p.out_h, 3);
      assert_int_equal(p.out_w, 3);
      /* 9 adds + 1 divide + 1 relu per output, 2*3*3 outputs */
      assert_true(Op_flops(&p) == 18.0 * 11);
      checkAgainstReference(&p, 7 + (uint64_t)incl);
   }
}

static void test_adaptive_pool_uneven_windows(void **state) {
   (void)state;
   OpParams p = pool(OP_ADAPTIVE_AVG_POOL2D, 2, 7, 5, 1, 1);
   p.out_h = 3, p.out_w = 2;
   finish(&p);
   /* rows [0,3) [2,5) [4,7): 9; columns [0,3) [2,5): 6; each of 2 channels adds 9*6
    * elements and divides 6 times */
   assert_true(Op_flops(&p) == 2.0 * 9 * 6 + 2.0 * 6);
   checkAgainstReference(&p, 9);
}

static void test_adaptive_pool_even_windows(void **state) {
   (void)state;
   OpParams p = pool(OP_ADAPTIVE_AVG_POOL2D, 2, 6, 4, 1, 1);
   p.out_h = 3, p.out_w = 2;
   finish(&p);
   assert_true(Op_flops(&p) == 2.0 * 6 * 4 + 2.0 * 6);
   checkAgainstReference(&p, 10);
}

static void test_global_pool_is_resnet_task_25(void **state) {
   (void)state;
   OpParams p = pool(OP_GLOBAL_AVG_POOL2D, 2048, 7, 7, 1, 1);
   finish(&p);
   /* 49 adds and 1 divide per output, 2048 outputs (ansor.md 7, task 25) */
   assert_true(Op_flops(&p) == 102400.0);
   OpParams q = pool(OP_GLOBAL_AVG_POOL2D, 3, 4, 5, 1, 1);
   addEpilogue(&q, EPI_ADD, 0, 0);
   finish(&q);
   checkAgainstReference(&q, 11);
}

static void test_softmax_four_stages(void **state) {
   (void)state;
   OpParams p;
   Op_defaults(&p, OP_SOFTMAX);
   p.ndim = 3;
   p.shape[0] = 2, p.shape[1] = 3, p.shape[2] = 5;
   finish(&p);
   /* max-reduce, subtract, sum-reduce, divide: 4 per element */
   assert_true(Op_flops(&p) == 120.0);
   Dag g;
   Dag_init(&g);
   Op_buildDag(&p, &g);
   assert_int_equal(g.nstages, 5);
   assert_string_equal(g.stages[1].name, "T_softmax_maxelem");
   assert_string_equal(g.stages[4].name, "T_softmax_norm");
   assert_int_equal(g.stages[1].ndim, 2);
   Dag_done(&g);
   checkAgainstReference(&p, 12);
}

static void test_layer_norm_counts_as_topi(void **state) {
   (void)state;
   OpParams p;
   Op_defaults(&p, OP_LAYER_NORM);
   p.ndim = 3;
   p.shape[0] = 2, p.shape[1] = 3, p.shape[2] = 8;
   p.epsilon = 1e-12;
   addEpilogue(&p, EPI_ADD, 0, 0);
   finish(&p);
   /* reductions: sum 1 + sum of squares 2; elementwise, with the mean expression used
    * three times as TOPI writes it: 3 divides for the mean, 1 for the mean of squares,
    * mean*mean, var subtraction, + eps, x - mean, * rsqrt, * gamma, + beta = 11;
    * 14 per element, plus 1 for the residual add */
   assert_true(Op_flops(&p) == 48.0 * 15);
   checkAgainstReference(&p, 13);
}

static void expectFinishError(OpParams *p, const char *field, const char *message) {
   const char *f = NULL;
   char *cause = NULL;
   assert_int_equal(Op_finish(p, &f, &cause), -1);
   assert_string_equal(f, field);
   assert_string_equal(cause, message);
   free(cause);
}

static void test_validation_messages(void **state) {
   (void)state;
   OpParams p = conv(1, 6, 8, 8, 4, 3, 3);
   p.groups = 4;
   expectFinishError(&p, "groups", "groups 4 does not divide the 6 input channels");
   p = conv(1, 6, 8, 8, 4, 3, 3);
   p.groups = 3;
   expectFinishError(&p, "groups", "groups 3 does not divide the 4 filters");
   p = conv(1, 3, 5, 5, 8, 7, 7);
   expectFinishError(&p, "kernel", "kernel 7x7 does not fit the 5x5 input padded to 5x5");
   p = conv(1, 3, 5, 5, 8, 3, 3);
   p.dilation_h = p.dilation_w = 3;
   expectFinishError(&p, "kernel", "kernel 3x3 with dilation 3x3 spans 7x7, more than the 5x5 input padded to 5x5");
   p = conv(1, 3, 5, 5, 8, 1, 1);
   p.stride_h = 6;
   expectFinishError(&p, "stride", "stride 6x1 is larger than the 5x5 padded input");
   p = pool(OP_MAX_POOL2D, 3, 8, 8, 3, 3);
   p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 2;
   expectFinishError(&p, "pad", "pad 2,2,2,2 is more than half the 3x3 window");
   p = pool(OP_ADAPTIVE_AVG_POOL2D, 3, 7, 7, 1, 1);
   p.out_h = 9, p.out_w = 9;
   expectFinishError(&p, "output", "output 9x9 is larger than the 7x7 input");
   Op_defaults(&p, OP_SOFTMAX);
   p.ndim = 2, p.shape[0] = 2, p.shape[1] = 4;
   addEpilogue(&p, EPI_BIAS, 0, 0);
   expectFinishError(&p, "epilogue", "epilogue 'bias' applies to an op with a channel axis (conv2d, conv2d_transpose, dense, batch_matmul, resize2d, concat, elementwise), not softmax");
   Op_defaults(&p, OP_DENSE);
   p.n = 4, p.k = 4;
   addEpilogue(&p, EPI_BIAS, 0, 0);
   addEpilogue(&p, EPI_BIAS, 0, 0);
   expectFinishError(&p, "epilogue", "epilogue 'bias' appears twice; expected at most one bias");
   Op_defaults(&p, OP_DENSE);
   p.n = 4, p.k = 4;
   addEpilogue(&p, EPI_CLIP, 6, 0);
   expectFinishError(&p, "epilogue", "clip bounds [6, 0] are reversed; expected lo <= hi");
   Op_defaults(&p, OP_DENSE);
   p.m = 65536, p.n = 65536, p.k = 4;
   expectFinishError(&p, "op", "the output has more than 2^31-1 elements");
}

/* ---- conv2d_transpose, resize2d, concat, elementwise and the new epilogues ---- */

static OpParams convTranspose(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t kh,
                              int64_t kw, int64_t stride, int64_t pad) {
   OpParams p;
   Op_defaults(&p, OP_CONV2D_TRANSPOSE);
   p.batch = n, p.in_c = c, p.in_h = h, p.in_w = w, p.out_c = k, p.kernel_h = kh, p.kernel_w = kw;
   p.stride_h = p.stride_w = stride;
   p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = pad;
   return p;
}

static void test_conv2d_transpose_stages_and_flops(void **state) {
   (void)state;
   OpParams p = convTranspose(2, 6, 5, 5, 4, 4, 4, 2, 1);
   addEpilogue(&p, EPI_BIAS, 0, 0);
   addEpilogue(&p, EPI_RELU, 0, 0);
   finish(&p);
   /* (5 - 1) * 2 - 2 + 3 + 1 = 10 */
   assert_int_equal(p.out_h, 10);
   assert_int_equal(p.out_w, 10);
   /* 2*N*K*OH*OW*C*R*S over the spread-out input + (bias + relu)*N*K*OH*OW */
   assert_true(Op_flops(&p) == 2.0 * 2 * 4 * 100 * 6 * 16 + 2.0 * 2 * 4 * 100);
   Dag g;
   Dag_init(&g);
   Op_buildDag(&p, &g);
   assert_string_equal(g.stages[2].name, "data_pad");
   assert_string_equal(g.stages[3].name, "kernel_transform");
   assert_string_equal(g.stages[4].name, "conv2d_transpose_nchw");
   /* padded by the kernel's span less the pad: 10 + 3 */
   assert_int_equal(g.stages[2].shape[2], 13);
   /* the kernel transposed: [out, in, kh, kw] from ONNX's [in, out, kh, kw] */
   assert_int_equal(g.stages[1].shape[0], 6);
   assert_int_equal(g.stages[3].shape[0], 4);
   assert_int_equal(g.stages[3].shape[1], 6);
   Dag_done(&g);
   checkAgainstReference(&p, 21);
   char key[256];
   Op_key(&p, key, sizeof key);
   assert_string_equal(key, "conv2d_transpose_n2_c6_h5_w5_k4_g1_r4x4_s2x2_p1,1,1,1_d1x1_op0x0+bias+relu");
}

static void test_conv2d_transpose_grouped_dilated_output_padding(void **state) {
   (void)state;
   OpParams p = convTranspose(1, 4, 5, 6, 6, 3, 3, 2, 0);
   p.groups = 2;
   p.pad_top = 1, p.pad_bottom = 1, p.pad_right = 1;
   p.output_pad_h = p.output_pad_w = 1;
   finish(&p);
   /* (5-1)*2 - 2 + 2 + 1 + 1 = 10; (6-1)*2 - 1 + 2 + 1 + 1 = 13 */
   assert_int_equal(p.out_h, 10);
   assert_int_equal(p.out_w, 13);
   /* 2 input channels per group */
   assert_true(Op_flops(&p) == 2.0 * 6 * 130 * 2 * 9);
   checkAgainstReference(&p, 22);
   OpParams q = convTranspose(1, 3, 4, 4, 2, 3, 3, 1, 1);
   q.dilation_h = q.dilation_w = 2;
   finish(&q);
   /* 3 - 2 + 4 + 1 = 6 */
   assert_int_equal(q.out_h, 6);
   checkAgainstReference(&q, 23);
}

static OpParams resize(int64_t c, int64_t h, int64_t w, int64_t oh, int64_t ow, ResizeMode mode,
                       ResizeCoord coord) {
   OpParams p;
   Op_defaults(&p, OP_RESIZE2D);
   p.in_c = c, p.in_h = h, p.in_w = w, p.out_h = oh, p.out_w = ow;
   p.resize_mode = mode;
   p.coord = coord;
   return p;
}

static void test_resize2d_every_mode(void **state) {
   (void)state;
   /* nearest reads one input element: no arithmetic on floats */
   for (int c = 0; c < COORD_KIND_COUNT; c++)
      for (int r = 0; r < ROUND_KIND_COUNT; r++) {
         OpParams p = resize(3, 5, 7, 9, 16, RESIZE_NEAREST, (ResizeCoord)c);
         p.rounding = (ResizeRounding)r;
         finish(&p);
         assert_true(Op_flops(&p) == 0.0);
         checkAgainstReference(&p, 30 + (uint64_t)(c * 4 + r));
      }
   /* linear: per axis the fraction (a divide), three lerps a + (b - a) * t of which the
    * outer one repeats its first row: 3 + 2*4 + 4 + 1 = 16 per output element */
   for (int c = 0; c < COORD_KIND_COUNT; c++) {
      OpParams p = resize(2, 6, 5, 9, 12, RESIZE_LINEAR, (ResizeCoord)c);
      finish(&p);
      assert_true(Op_flops(&p) == 16.0 * 2 * 9 * 12);
      checkAgainstReference(&p, 50 + (uint64_t)c);
   }
   /* downsampling with a scale that is not out / in: 0.6 of 2x4 is 1x2 */
   OpParams p = resize(1, 2, 4, 1, 2, RESIZE_NEAREST, COORD_HALF_PIXEL);
   assert_int_equal(Op_scaleFraction(0.6, &p.scale_num[0], &p.scale_den[0]), 0);
   assert_int_equal(p.scale_num[0], 3);
   assert_int_equal(p.scale_den[0], 5);
   p.scale_num[1] = 3, p.scale_den[1] = 5;
   finish(&p);
   checkAgainstReference(&p, 60);
   char key[256];
   Op_key(&p, key, sizeof key);
   assert_string_equal(key, "resize2d_n1_c1_h2_w4_o1x2_nearest_half_pixel_round_prefer_floor_s3/5_s3/5");
   int64_t num, den;
   assert_int_equal(Op_scaleFraction(1.0 / 3.0, &num, &den), 0);
   assert_int_equal(num, 1);
   assert_int_equal(den, 3);
   /* a model's float32 0.6 is 3/5 */
   assert_int_equal(Op_scaleFraction((double)0.6f, &num, &den), 0);
   assert_int_equal(num, 3);
   assert_int_equal(den, 5);
   assert_int_equal(Op_scaleFraction(0.1234567, &num, &den), -1);
   assert_int_equal(Op_scaleFraction(0, &num, &den), -1);
}

static void test_concat_selects_and_epilogue(void **state) {
   (void)state;
   OpParams p;
   Op_defaults(&p, OP_CONCAT);
   p.ndim = 4;
   p.shape[0] = 2, p.shape[2] = 4, p.shape[3] = 3;
   p.concat_axis = 1;
   p.ninputs = 3;
   p.concat_len[0] = 3, p.concat_len[1] = 5, p.concat_len[2] = 1;
   addEpilogue(&p, EPI_SCALE, 0, 0);
   addEpilogue(&p, EPI_BIAS, 0, 0);
   addEpilogue(&p, EPI_RELU, 0, 0);
   finish(&p);
   assert_int_equal(p.shape[1], 9);
   assert_int_equal(Op_numOwnInputs(&p), 3);
   assert_int_equal(Op_numInputs(&p), 5);
   /* the copy is free; scale, bias and relu: 3 per element */
   assert_true(Op_flops(&p) == 3.0 * 2 * 9 * 12);
   int64_t s[TE_MAX_DIMS];
   const char *name;
   assert_int_equal(Op_inputShape(&p, 1, s, &name), 4);
   assert_string_equal(name, "data1");
   assert_int_equal(s[1], 5);
   assert_int_equal(Op_inputShape(&p, 3, s, &name), 1);
   assert_string_equal(name, "scale");
   assert_int_equal(s[0], 9);
   checkAgainstReference(&p, 70);
   char key[256];
   Op_key(&p, key, sizeof key);
   assert_string_equal(key, "concat_2x9x4x3_a1_l3,5,1+scale+bias+relu");
   /* along the last axis of a 3-D tensor, 32 inputs: the most a task takes */
   Op_defaults(&p, OP_CONCAT);
   p.ndim = 3;
   p.shape[0] = 1, p.shape[1] = 5;
   p.concat_axis = 2;
   p.ninputs = OP_MAX_CONCAT;
   for (int i = 0; i < OP_MAX_CONCAT; i++)
      p.concat_len[i] = 1 + i % 3;
   finish(&p);
   assert_int_equal(p.shape[2], 63);
   checkAgainstReference(&p, 71);
}

static void test_elementwise_epilogues(void **state) {
   (void)state;
   OpParams p;
   Op_defaults(&p, OP_ELEMENTWISE);
   p.ndim = 4;
   p.shape[0] = 2, p.shape[1] = 8, p.shape[2] = 3, p.shape[3] = 5;
   addEpilogue(&p, EPI_CHANNEL_MUL, 0, 0);
   addEpilogue(&p, EPI_MUL, 0, 0);
   addEpilogue(&p, EPI_ADD, 0, 0);
   addEpilogue(&p, EPI_MUL_CONST, 0, 0);
   p.epilogue[3].value = 0.125;
   addEpilogue(&p, EPI_DIV_CONST, 0, 0);
   p.epilogue[4].value = 3;
   addEpilogue(&p, EPI_ADD, 0, 0);
   finish(&p);
   assert_true(Op_flops(&p) == 6.0 * 240);
   int64_t s[TE_MAX_DIMS];
   const char *name;
   assert_int_equal(Op_inputShape(&p, 1, s, &name), 2);
   assert_string_equal(name, "channel_scale");
   assert_int_equal(s[0], 2);
   assert_int_equal(s[1], 8);
   Dag g;
   Dag_init(&g);
   Op_buildDag(&p, &g);
   /* a repeated tensor gets a numbered name, as a repeated stage does */
   assert_string_equal(g.stages[4].name, "residual_1");
   assert_string_equal(g.stages[g.nstages - 1].name, "T_add_1");
   Dag_done(&g);
   checkAgainstReference(&p, 80);
   char text[128];
   Op_epilogueText(&p, text, sizeof text);
   assert_string_equal(text, "channel_mul+mul+add+mul_const(0.125)+div_const(3)+add");
   /* a 3-D tensor's channel is its last axis */
   Op_defaults(&p, OP_ELEMENTWISE);
   p.ndim = 3;
   p.shape[0] = 1, p.shape[1] = 4, p.shape[2] = 6;
   addEpilogue(&p, EPI_BIAS, 0, 0);
   finish(&p);
   assert_int_equal(Op_channelAxis(&p), 2);
   checkAgainstReference(&p, 81);
}

static void test_new_validation_messages(void **state) {
   (void)state;
   OpParams p = convTranspose(1, 4, 5, 5, 4, 3, 3, 2, 0);
   p.output_pad_h = p.output_pad_w = 2;
   expectFinishError(&p, "output_padding", "output_padding 2 is not less than the stride 2 or the dilation 1");
   p = convTranspose(1, 4, 5, 5, 4, 3, 3, 2, 3);
   expectFinishError(&p, "pad", "pad 3,3,3,3 is more than the kernel's span 2 (dilation x (kernel - 1)) can take back");
   p = convTranspose(1, 4, 5, 5, 6, 3, 3, 1, 0);
   p.groups = 4;
   expectFinishError(&p, "groups", "groups 4 does not divide the 6 filters");
   Op_defaults(&p, OP_ELEMENTWISE);
   p.ndim = 2;
   p.shape[0] = 1, p.shape[1] = 4;
   expectFinishError(&p, "epilogue", "an elementwise task is its epilogue; expected at least one stage");
   addEpilogue(&p, EPI_CHANNEL_MUL, 0, 0);
   expectFinishError(&p, "epilogue", "epilogue 'channel_mul' scales the channels of a 4-D (NCHW) output; elementwise's output has 2 dimensions");
   Op_defaults(&p, OP_ELEMENTWISE);
   p.ndim = 2;
   p.shape[0] = 1, p.shape[1] = 4;
   addEpilogue(&p, EPI_DIV_CONST, 0, 0);
   expectFinishError(&p, "epilogue", "div_const divides by 0; expected a nonzero value");
   p.epilogue[0].value = INFINITY;
   expectFinishError(&p, "epilogue", "div_const value inf is not a finite number; expected one of at most 1e30 in size");
   Op_defaults(&p, OP_SOFTMAX);
   p.ndim = 2;
   p.shape[0] = 1, p.shape[1] = 4;
   addEpilogue(&p, EPI_SCALE, 0, 0);
   expectFinishError(&p, "epilogue", "epilogue 'scale' applies to an op with a channel axis (conv2d, conv2d_transpose, dense, batch_matmul, resize2d, concat, elementwise), not softmax");
   Op_defaults(&p, OP_CONCAT);
   p.ndim = 2;
   p.concat_axis = 2;
   expectFinishError(&p, "axis", "axis 2 is outside the 2 dimensions of the inputs");
   p.concat_axis = 1;
   p.ninputs = OP_MAX_CONCAT + 1;
   expectFinishError(&p, "inputs", "concat of 33 inputs; expected 1 to 32");
   p = resize(1, 4, 4, 8, 8, RESIZE_LINEAR, COORD_HALF_PIXEL);
   p.scale_num[0] = 2;
   expectFinishError(&p, "scale", "scale 2/0 is not a positive fraction");
}

static void test_names_round_trip(void **state) {
   (void)state;
   for (int k = 0; k < OP_KIND_COUNT; k++)
      assert_int_equal(Op_kindFromName(Op_name(k)), k);
   for (int k = 0; k < EPI_KIND_COUNT; k++)
      assert_int_equal(Epilogue_kindFromName(Epilogue_name(k)), k);
   assert_int_equal(Op_kindFromName("conv3d"), -1);
   assert_int_equal(Epilogue_kindFromName("tanh"), -1);
   /* a workload key names its op first: every op's own key, and the pools whose names
    * end alike */
   for (int k = 0; k < OP_KIND_COUNT; k++) {
      OpParams p;
      Op_defaults(&p, (OpKind)k);
      char key[256];
      Op_key(&p, key, sizeof key);
      assert_int_equal(Op_kindOfKey(key), k);
   }
   assert_int_equal(Op_kindOfKey("adaptive_avg_pool2d_n1_c2048_h7_w7_o1x1"), OP_ADAPTIVE_AVG_POOL2D);
   assert_int_equal(Op_kindOfKey("avg_pool2d_n1_c64_h8_w8_r3x3_s1x1_p1,1,1,1_d1x1_incl"), OP_AVG_POOL2D);
   assert_int_equal(Op_kindOfKey("conv2dx_n1"), -1);
   assert_int_equal(Op_kindOfKey("conv2d"), -1);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conv2d_padded_bias_relu),
      cmocka_unit_test(test_conv2d_stages_follow_topi),
      cmocka_unit_test(test_conv2d_grouped_strided_dilated_asymmetric),
      cmocka_unit_test(test_depthwise_conv2d_clip),
      cmocka_unit_test(test_dense_bias_gelu),
      cmocka_unit_test(test_conv2d_bias_hardswish),
      cmocka_unit_test(test_conv2d_on_1x1_bias_hardsigmoid),
      cmocka_unit_test(test_dense_bias_sigmoid),
      cmocka_unit_test(test_batch_matmul_add),
      cmocka_unit_test(test_max_pool_padded),
      cmocka_unit_test(test_avg_pool_include_and_exclude_pad),
      cmocka_unit_test(test_adaptive_pool_uneven_windows),
      cmocka_unit_test(test_adaptive_pool_even_windows),
      cmocka_unit_test(test_global_pool_is_resnet_task_25),
      cmocka_unit_test(test_softmax_four_stages),
      cmocka_unit_test(test_layer_norm_counts_as_topi),
      cmocka_unit_test(test_validation_messages),
      cmocka_unit_test(test_names_round_trip),
      cmocka_unit_test(test_conv2d_transpose_stages_and_flops),
      cmocka_unit_test(test_conv2d_transpose_grouped_dilated_output_padding),
      cmocka_unit_test(test_resize2d_every_mode),
      cmocka_unit_test(test_concat_selects_and_epilogue),
      cmocka_unit_test(test_elementwise_epilogues),
      cmocka_unit_test(test_new_validation_messages),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
