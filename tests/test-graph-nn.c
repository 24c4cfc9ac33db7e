/* Tests of the graph op rows of src/graph/ops_nn.c: shape inference and the C
 * reference of each op on small graphs built by hand, against hand-computed values,
 * and the exact messages of refusals. */
#include "config.h"

#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/exec.h"
#include "graph/graph.h"
#include "graph/ops.h"
#include "util/xalloc.h"

#define RTOL 1e-6
#define ATOL 1e-6

/* A float32 tensor of the given shape; a constant (weight) holding `values` when they
 * are given, else an activation whose data a test fills with setData. */
static int tensor(Graph *g, const char *name, int ndim, const int64_t *dims, const float *values) {
   int i = Graph_addTensor(g, name);
   GTensor *t = &g->t[i];
   GTensor_setShape(t, GT_FLOAT, ndim, dims);
   if (values) {
      t->role = GT_WEIGHT;
      memcpy(GTensor_alloc(t), values, sizeof(float) * (size_t)GTensor_elems(t));
   }
   return i;
}

static int int64Tensor(Graph *g, const char *name, int count, const int64_t *values) {
   int i = Graph_addTensor(g, name);
   GTensor *t = &g->t[i];
   int64_t dims[1] = { count };
   GTensor_setShape(t, GT_INT64, 1, dims);
   t->role = GT_WEIGHT;
   memcpy(GTensor_alloc(t), values, sizeof(int64_t) * (size_t)count);
   return i;
}

static int output(Graph *g, const char *name) {
   return Graph_addTensor(g, name);
}

/* A node of op type `op` resolved at `opset` (the graph's opset too). */
static int node(Graph *g, const char *op, int opset, int nin, const int *in, int nout, const int *out) {
   g->opset = opset;
   const GraphOp *row = GraphOp_find(op, opset, NULL);
   assert_non_null(row);
   int ni = Graph_addNode(g, op, op, nin, in, nout, out);
   g->n[ni].op = GraphOp_row(row);
   return ni;
}

/* Runs the node's shape inference and reference; returns -1 with *cause on refusal. */
static int runNode(Graph *g, int ni, char **cause) {
   GNode *n = &g->n[ni];
   const GraphOp *op = GraphOp_get(n->op);
   if (op->infer(g, n, cause) < 0)
      return -1;
   return op->eval(g, n, cause);
}

static void run(Graph *g, int ni) {
   char *cause = NULL;
   int rc = runNode(g, ni, &cause);
   if (rc < 0)
      fail_msg("%s", cause);
   free(cause);
}

static void assertShape(const Graph *g, int t, int ndim, const int64_t *dims) {
   const GTensor *x = &g->t[t];
   assert_int_equal(x->ndim, ndim);
   for (int i = 0; i < ndim; i++)
      assert_int_equal(x->dims[i], dims[i]);
}

static void assertData(const Graph *g, int t, const float *want, size_t n) {
   const GTensor *x = &g->t[t];
   assert_int_equal(x->dtype, GT_FLOAT);
   assert_int_equal(GTensor_elems(x), (int64_t)n);
   TestUtil_assertClose(x->data, want, n, RTOL, ATOL);
}

static void assertRefused(Graph *g, int ni, const char *want) {
   char *cause = NULL;
   GNode *n = &g->n[ni];
   assert_int_equal(GraphOp_get(n->op)->infer(g, n, &cause), -1);
   assert_non_null(cause);
   assert_string_equal(cause, want);
   free(cause);
}

static float *iota(int n, float start) {
   float *v = xMalloc(sizeof(float) * (size_t)n);
   for (int i = 0; i < n; i++)
      v[i] = start + (float)i;
   return v;
}

/* ---- Conv ---- */

static void convPadsAndStride(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   float *xv = iota(16, 0.0f), wv[9], bv[1] = { 1.0f };
   for (int i = 0; i < 9; i++)
      wv[i] = 1.0f;
   int in[3] = {
      tensor(&g, "x", 4, (int64_t[]){ 1, 1, 4, 4 }, xv),
      tensor(&g, "w", 4, (int64_t[]){ 1, 1, 3, 3 }, wv),
      tensor(&g, "b", 1, (int64_t[]){ 1 }, bv),
   };
   int y = output(&g, "y");
   int ni = node(&g, "Conv", 13, 3, in, 1, &y);
   TestUtil_attrInts(&g, ni, "pads", 4, (int64_t[]){ 1, 1, 1, 1 });
   TestUtil_attrInts(&g, ni, "strides", 2, (int64_t[]){ 2, 2 });
   run(&g, ni);
   assertShape(&g, y, 4, (int64_t[]){ 1, 1, 2, 2 });
   /* windows over rows/cols {0,1}, {0,1}x{1,2,3}, {1,2,3}x{0,1}, {1,2,3}x{1,2,3} plus 1 */
   assertData(&g, y, (float[]){ 11, 25, 52, 91 }, 4);
   free(xv);
   Graph_done(&g);
}

static void convGrouped(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   int in[2] = {
      tensor(&g, "x", 4, (int64_t[]){ 1, 4, 1, 2 }, (float[]){ 1, 2, 3, 4, 5, 6, 7, 8 }),
      tensor(&g, "w", 4, (int64_t[]){ 2, 2, 1, 1 }, (float[]){ 1, 2, 3, 4 }),
   };
   int y = output(&g, "y");
   int ni = node(&g, "Conv", 11, 2, in, 1, &y);
   TestUtil_attrInt(&g, ni, "group", 2);
   run(&g, ni);
   assertShape(&g, y, 4, (int64_t[]){ 1, 2, 1, 2 });
   /* oc0 = 1*x0 + 2*x1, oc1 = 3*x2 + 4*x3 */
   assertData(&g, y, (float[]){ 7, 10, 43, 50 }, 4);
   Graph_done(&g);
}

static void convSamePadding(void **state) {
   (void)state;
   const char *modes[2] = { "SAME_UPPER", "SAME_LOWER" };
   /* in 5, kernel 2, stride 2: out 3, one pixel of padding, after (UPPER) or before */
   const float want[2][3] = { { 21, 43, 5 }, { 10, 32, 54 } };
   for (int m = 0; m < 2; m++) {
      Graph g;
      Graph_init(&g, "t.onnx");
      int in[2] = {
         tensor(&g, "x", 3, (int64_t[]){ 1, 1, 5 }, (float[]){ 1, 2, 3, 4, 5 }),
         tensor(&g, "w", 3, (int64_t[]){ 1, 1, 2 }, (float[]){ 1, 10 }),
      };
      int y = output(&g, "y");
      int ni = node(&g, "Conv", 13, 2, in, 1, &y);
      TestUtil_attrString(&g, ni, "auto_pad", modes[m]);
      TestUtil_attrInts(&g, ni, "strides", 1, (int64_t[]){ 2 });
      run(&g, ni);
      assertShape(&g, y, 3, (int64_t[]){ 1, 1, 3 });
      assertData(&g, y, want[m], 3);
      Graph_done(&g);
   }
}

static void convTransposeStrideOutputPadding(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   int in[2] = {
      tensor(&g, "x", 4, (int64_t[]){ 1, 1, 2, 2 }, (float[]){ 1, 2, 3, 4 }),
      tensor(&g, "w", 4, (int64_t[]){ 1, 1, 2, 2 }, (float[]){ 1, 1, 1, 1 }),
   };
   int y = output(&g, "y");
   int ni = node(&g, "ConvTranspose", 11, 2, in, 1, &y);
   TestUtil_attrInts(&g, ni, "strides", 2, (int64_t[]){ 2, 2 });
   TestUtil_attrInts(&g, ni, "output_padding", 2, (int64_t[]){ 1, 1 });
   run(&g, ni);
   /* 2 x (2 - 1) + 1 + 2 = 5: each input pixel becomes a 2x2 block, the last row and
    * column are the output padding */
   assertShape(&g, y, 4, (int64_t[]){ 1, 1, 5, 5 });
   assertData(&g, y, (float[]){ 1, 1, 2, 2, 0,
                                1, 1, 2, 2, 0,
                                3, 3, 4, 4, 0,
                                3, 3, 4, 4, 0,
                                0, 0, 0, 0, 0 }, 25);
   Graph_done(&g);
}

static void convTransposeGrouped(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   int in[3] = {
      tensor(&g, "x", 3, (int64_t[]){ 1, 2, 2 }, (float[]){ 1, 2, 3, 4 }),
      tensor(&g, "w", 3, (int64_t[]){ 2, 1, 2 }, (float[]){ 1, 1, 10, 0 }),
      tensor(&g, "b", 1, (int64_t[]){ 2 }, (float[]){ 0, 0.5f }),
   };
   int y = output(&g, "y");
   int ni = node(&g, "ConvTranspose", 11, 3, in, 1, &y);
   TestUtil_attrInt(&g, ni, "group", 2);
   run(&g, ni);
   /* each channel alone: [1, 2] spread by [1, 1]; [3, 4] by [10, 0], plus 0.5 */
   assertShape(&g, y, 3, (int64_t[]){ 1, 2, 3 });
   assertData(&g, y, (float[]){ 1, 3, 2, 30.5f, 40.5f, 0.5f }, 6);
   Graph_done(&g);
}

/* ---- MatMul, Gemm ---- */

static void matMulBatchBroadcast(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   float *av = iota(12, 1.0f);
   int in[2] = {
      tensor(&g, "a", 3, (int64_t[]){ 2, 2, 3 }, av),
      tensor(&g, "b", 3, (int64_t[]){ 1, 3, 2 }, (float[]){ 1, 0, 0, 1, 1, 1 }),
   };
   int y = output(&g, "y");
   int ni = node(&g, "MatMul", 13, 2, in, 1, &y);
   run(&g, ni);
   /* [a b c] -> [a + c, b + c] */
   assertShape(&g, y, 3, (int64_t[]){ 2, 2, 2 });
   assertData(&g, y, (float[]){ 4, 5, 10, 11, 16, 17, 22, 23 }, 8);
   free(av);
   Graph_done(&g);
}

static void matMulVector(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   int in[2] = {
      tensor(&g, "v", 1, (int64_t[]){ 3 }, (float[]){ 1, 2, 3 }),
      tensor(&g, "b", 3, (int64_t[]){ 2, 3, 2 }, (float[]){ 1, 0, 0, 1, 1, 1, 2, 0, 0, 2, 0, 0 }),
   };
   int y = output(&g, "y");
   int ni = node(&g, "MatMul", 13, 2, in, 1, &y);
   run(&g, ni);
   /* the vector's 1 is prepended and removed: 2x3x2 gives 2x2 */
   assertShape(&g, y, 2, (int64_t[]){ 2, 2 });
   assertData(&g, y, (float[]){ 4, 5, 2, 4 }, 4);
   Graph_done(&g);
}

static void gemmTransBBroadcastC(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   int in[3] = {
      tensor(&g, "a", 2, (int64_t[]){ 2, 3 }, (float[]){ 1, 2, 3, 4, 5, 6 }),
      tensor(&g, "b", 2, (int64_t[]){ 2, 3 }, (float[]){ 1, 0, 0, 0, 1, 1 }),
      tensor(&g, "c", 1, (int64_t[]){ 2 }, (float[]){ 10, 20 }),
   };
   int y = output(&g, "y");
   int ni = node(&g, "Gemm", 13, 3, in, 1, &y);
   TestUtil_attrInt(&g, ni, "transB", 1);
   TestUtil_attrFloat(&g, ni, "alpha", 2.0);
   TestUtil_attrFloat(&g, ni, "beta", 0.5);
   run(&g, ni);
   /* A Bt = [[1, 5], [4, 11]]; 2 A Bt + 0.5 [10, 20] on each row */
   assertShape(&g, y, 2, (int64_t[]){ 2, 2 });
   assertData(&g, y, (float[]){ 7, 20, 13, 32 }, 4);
   Graph_done(&g);
}

/* Gemm-6: C broadcasts only with broadcast 1; with 0 it must be M x N. */
static void gemmBeforeOpset7BroadcastsOnlyWhenAsked(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   int in[3] = {
      tensor(&g, "a", 2, (int64_t[]){ 2, 3 }, (float[]){ 1, 2, 3, 4, 5, 6 }),
      tensor(&g, "b", 2, (int64_t[]){ 3, 2 }, (float[]){ 1, 0, 0, 1, 1, 1 }),
      tensor(&g, "c", 1, (int64_t[]){ 2 }, (float[]){ 10, 20 }),
   };
   int y = output(&g, "y");
   int ni = node(&g, "Gemm", 6, 3, in, 1, &y);
   TestUtil_attrInt(&g, ni, "broadcast", 1);
   TestUtil_attrFloat(&g, ni, "beta", 2.0);
   run(&g, ni);
   /* A B = [[4, 5], [10, 11]]; + 2 [10, 20] on each row */
   assertShape(&g, y, 2, (int64_t[]){ 2, 2 });
   assertData(&g, y, (float[]){ 24, 45, 30, 51 }, 4);
   int y0 = output(&g, "y0");
   int plain = node(&g, "Gemm", 6, 3, in, 1, &y0);
   assertRefused(&g, plain, "t.onnx: node 'Gemm' (Gemm, opset 6): input 2 ('c') is 2, not 2x2, and "
                            "broadcast is 0");
   /* with broadcast 0 an M x N C is added as it is */
   int full[3] = { in[0], in[1], tensor(&g, "cfull", 2, (int64_t[]){ 2, 2 }, (float[]){ 1, 2, 3, 4 }) };
   int y1 = output(&g, "y1");
   int whole = node(&g, "Gemm", 1, 3, full, 1, &y1);
   run(&g, whole);
   assertData(&g, y1, (float[]){ 5, 7, 13, 15 }, 4);
   Graph_done(&g);
}

/* ---- normalizations ---- */

static void batchNormInference(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   int in[5] = {
      tensor(&g, "x", 3, (int64_t[]){ 1, 2, 2 }, (float[]){ 1, 2, 3, 4 }),
      tensor(&g, "scale", 1, (int64_t[]){ 2 }, (float[]){ 1, 2 }),
      tensor(&g, "bias", 1, (int64_t[]){ 2 }, (float[]){ 0, 1 }),
      tensor(&g, "mean", 1, (int64_t[]){ 2 }, (float[]){ 1, 3 }),
      tensor(&g, "var", 1, (int64_t[]){ 2 }, (float[]){ 4, 1 }),
   };
   int y = output(&g, "y");
   int ni = node(&g, "BatchNormalization", 15, 5, in, 1, &y);
   TestUtil_attrFloat(&g, ni, "epsilon", 0.0);
   TestUtil_attrFloat(&g, ni, "momentum", 0.5);
   run(&g, ni);
   /* (x - 1) / 2; (x - 3) * 2 + 1 */
   assertShape(&g, y, 3, (int64_t[]){ 1, 2, 2 });
   assertData(&g, y, (float[]){ 0, 0.5f, 1, 3 }, 4);
   Graph_done(&g);
}

static void batchNormBeforeOpset7InTestMode(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   int in[5] = {
      tensor(&g, "x", 3, (int64_t[]){ 1, 2, 2 }, (float[]){ 1, 2, 3, 5 }),
      tensor(&g, "scale", 1, (int64_t[]){ 2 }, (float[]){ 2, 3 }),
      tensor(&g, "bias", 1, (int64_t[]){ 2 }, (float[]){ 1, -1 }),
      tensor(&g, "mean", 1, (int64_t[]){ 2 }, (float[]){ 0, 1 }),
      tensor(&g, "var", 1, (int64_t[]){ 2 }, (float[]){ 1, 4 }),
   };
   int y = output(&g, "y");
   int ni = node(&g, "BatchNormalization", 6, 5, in, 1, &y);
   TestUtil_attrInt(&g, ni, "is_test", 1);
   TestUtil_attrInt(&g, ni, "spatial", 1);
   TestUtil_attrFloat(&g, ni, "epsilon", 0.0);
   run(&g, ni);
   /* x * 2 + 1; (x - 1) / 2 * 3 - 1 */
   assertData(&g, y, (float[]){ 3, 5, 2, 5 }, 4);
   /* spatial 0: a value for each element of a sample (C x D1) */
   int pe[5] = {
      in[0],
      tensor(&g, "scale2", 2, (int64_t[]){ 2, 2 }, (float[]){ 1, 2, 3, 4 }),
      tensor(&g, "bias2", 2, (int64_t[]){ 2, 2 }, (float[]){ 0, 0, 0, 1 }),
      tensor(&g, "mean2", 2, (int64_t[]){ 2, 2 }, (float[]){ 0, 1, 0, 0 }),
      tensor(&g, "var2", 2, (int64_t[]){ 2, 2 }, (float[]){ 1, 1, 1, 4 }),
   };
   int y2 = output(&g, "y2");
   int sp = node(&g, "BatchNormalization", 1, 5, pe, 1, &y2);
   TestUtil_attrInt(&g, sp, "is_test", 1);
   TestUtil_attrInt(&g, sp, "spatial", 0);
   TestUtil_attrInts(&g, sp, "consumed_inputs", 2, (int64_t[]){ 0, 0 });
   TestUtil_attrFloat(&g, sp, "epsilon", 0.0);
   run(&g, sp);
   /* 1 * 1; (2 - 1) * 2; 3 * 3; 5 / 2 * 4 + 1 */
   assertData(&g, y2, (float[]){ 1, 2, 9, 11 }, 4);
   /* is_test's default is training */
   int y3 = output(&g, "y3");
   int train = node(&g, "BatchNormalization", 6, 5, in, 1, &y3);
   assertRefused(&g, train, "t.onnx: node 'BatchNormalization' (BatchNormalization, opset 6): is_test 0 "
                            "(training mode) is not supported; set is_test 1");
   Graph_done(&g);
}

static void layerNormWithStatistics(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   int in[3] = {
      tensor(&g, "x", 2, (int64_t[]){ 2, 2 }, (float[]){ 1, 3, 0, 4 }),
      tensor(&g, "scale", 1, (int64_t[]){ 2 }, (float[]){ 2, 3 }),
      tensor(&g, "bias", 1, (int64_t[]){ 2 }, (float[]){ 1, 0 }),
   };
   int out[3] = { output(&g, "y"), output(&g, "mean"), output(&g, "invstd") };
   int ni = node(&g, "LayerNormalization", 17, 3, in, 3, out);
   TestUtil_attrFloat(&g, ni, "epsilon", 0.0);
   run(&g, ni);
   /* both rows normalize to [-1, 1]: means 2 and 2, standard deviations 1 and 2 */
   assertShape(&g, out[0], 2, (int64_t[]){ 2, 2 });
   assertData(&g, out[0], (float[]){ -1, 3, -1, 3 }, 4);
   assertShape(&g, out[1], 2, (int64_t[]){ 2, 1 });
   assertData(&g, out[1], (float[]){ 2, 2 }, 2);
   assertData(&g, out[2], (float[]){ 1, 0.5f }, 2);
   Graph_done(&g);
}

/* ---- pools ---- */

static void maxPoolCeilMode(void **state) {
   (void)state;
   for (int ceil = 0; ceil < 2; ceil++) {
      Graph g;
      Graph_init(&g, "t.onnx");
      float *xv = iota(16, 0.0f);
      int x = tensor(&g, "x", 4, (int64_t[]){ 1, 1, 4, 4 }, xv);
      int y = output(&g, "y");
      int ni = node(&g, "MaxPool", 12, 1, &x, 1, &y);
      TestUtil_attrInts(&g, ni, "kernel_shape", 2, (int64_t[]){ 3, 3 });
      TestUtil_attrInts(&g, ni, "strides", 2, (int64_t[]){ 2, 2 });
      TestUtil_attrInt(&g, ni, "ceil_mode", ceil);
      run(&g, ni);
      if (ceil) {
         /* (4 - 3) / 2 rounds up: a second, partial window on each axis */
         assertShape(&g, y, 4, (int64_t[]){ 1, 1, 2, 2 });
         assertData(&g, y, (float[]){ 10, 11, 14, 15 }, 4);
      } else {
         assertShape(&g, y, 4, (int64_t[]){ 1, 1, 1, 1 });
         assertData(&g, y, (float[]){ 10 }, 1);
      }
      free(xv);
      Graph_done(&g);
   }
}

static void averagePoolCountIncludePad(void **state) {
   (void)state;
   /* the first row of windows: the corner sees 1 pixel of 4, the next 2 of 4 */
   const float want[2][4] = { { 1, 1.5f, 2.5f, 3 }, { 0.25f, 0.75f, 1.25f, 0.75f } };
   for (int cip = 0; cip < 2; cip++) {
      Graph g;
      Graph_init(&g, "t.onnx");
      float *xv = iota(9, 1.0f);
      int x = tensor(&g, "x", 4, (int64_t[]){ 1, 1, 3, 3 }, xv);
      int y = output(&g, "y");
      int ni = node(&g, "AveragePool", 11, 1, &x, 1, &y);
      TestUtil_attrInts(&g, ni, "kernel_shape", 2, (int64_t[]){ 2, 2 });
      TestUtil_attrInts(&g, ni, "pads", 4, (int64_t[]){ 1, 1, 1, 1 });
      TestUtil_attrInt(&g, ni, "count_include_pad", cip);
      run(&g, ni);
      assertShape(&g, y, 4, (int64_t[]){ 1, 1, 4, 4 });
      TestUtil_assertClose(g.t[y].data, want[cip], 4, RTOL, ATOL);
      /* the center window sees no padding: (1 + 2 + 4 + 5) / 4 either way */
      assert_float_equal(((float *)g.t[y].data)[5], 3.0f, 1e-6);
      free(xv);
      Graph_done(&g);
   }
}

static void globalAveragePool3d(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   float *xv = iota(16, 1.0f);
   int x = tensor(&g, "x", 5, (int64_t[]){ 1, 2, 2, 2, 2 }, xv);
   int y = output(&g, "y");
   int ni = node(&g, "GlobalAveragePool", 13, 1, &x, 1, &y);
   run(&g, ni);
   assertShape(&g, y, 5, (int64_t[]){ 1, 2, 1, 1, 1 });
   assertData(&g, y, (float[]){ 4.5f, 12.5f }, 2);
   free(xv);
   Graph_done(&g);
}

/* ---- Softmax ---- */

static void softmaxOpset11And13(void **state) {
   (void)state;
   const int opsets[2] = { 11, 13 };
   /* opset 11 coerces 1x2x2 to 1x4 at axis 1; opset 13 takes the last axis */
   const float want[2][4] = { { 1 / 6.0f, 1 / 6.0f, 1 / 6.0f, 0.5f }, { 0.5f, 0.5f, 0.25f, 0.75f } };
   for (int k = 0; k < 2; k++) {
      Graph g;
      Graph_init(&g, "t.onnx");
      int x = tensor(&g, "x", 3, (int64_t[]){ 1, 2, 2 }, (float[]){ 0, 0, 0, (float)log(3.0) });
      int y = output(&g, "y");
      int ni = node(&g, "Softmax", opsets[k], 1, &x, 1, &y);
      run(&g, ni);
      assertShape(&g, y, 3, (int64_t[]){ 1, 2, 2 });
      assertData(&g, y, want[k], 4);
      Graph_done(&g);
   }
}

static void logSoftmaxLastAxis(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   int x = tensor(&g, "x", 2, (int64_t[]){ 1, 2 }, (float[]){ 0, (float)log(3.0) });
   int y = output(&g, "y");
   int ni = node(&g, "LogSoftmax", 13, 1, &x, 1, &y);
   run(&g, ni);
   assertData(&g, y, (float[]){ (float)log(0.25), (float)log(0.75) }, 2);
   Graph_done(&g);
}

/* ---- reductions ---- */

static void reduceMeanKeepdims0(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   int x = tensor(&g, "x", 2, (int64_t[]){ 2, 3 }, (float[]){ 1, 2, 3, 4, 5, 6 });
   int y = output(&g, "y");
   int ni = node(&g, "ReduceMean", 13, 1, &x, 1, &y);
   TestUtil_attrInts(&g, ni, "axes", 1, (int64_t[]){ -1 });
   TestUtil_attrInt(&g, ni, "keepdims", 0);
   run(&g, ni);
   assertShape(&g, y, 1, (int64_t[]){ 2 });
   assertData(&g, y, (float[]){ 2, 5 }, 2);
   Graph_done(&g);
}

static void reduceAxesInput(void **state) {
   (void)state;
   /* opset 18 (ReduceSum: 13) reads the axes from input 1; empty axes reduce all,
    * unless noop_with_empty_axes */
   Graph g;
   Graph_init(&g, "t.onnx");
   int in[2] = {
      tensor(&g, "x", 2, (int64_t[]){ 2, 3 }, (float[]){ 1, 2, 3, 4, 5, 6 }),
      int64Tensor(&g, "axes", 1, (int64_t[]){ 0 }),
   };
   int y[3] = { output(&g, "mean"), output(&g, "max"), output(&g, "sum") };
   int mean = node(&g, "ReduceMean", 18, 2, in, 1, &y[0]);
   run(&g, mean);
   assertShape(&g, y[0], 2, (int64_t[]){ 1, 3 });
   assertData(&g, y[0], (float[]){ 2.5f, 3.5f, 4.5f }, 3);
   int max = node(&g, "ReduceMax", 18, 1, in, 1, &y[1]);
   TestUtil_attrInt(&g, max, "keepdims", 0);
   run(&g, max);
   assertShape(&g, y[1], 0, NULL);
   assertData(&g, y[1], (float[]){ 6 }, 1);
   int sum = node(&g, "ReduceSum", 13, 1, in, 1, &y[2]);
   TestUtil_attrInt(&g, sum, "noop_with_empty_axes", 1);
   run(&g, sum);
   assertShape(&g, y[2], 2, (int64_t[]){ 2, 3 });
   assertData(&g, y[2], (float[]){ 1, 2, 3, 4, 5, 6 }, 6);
   Graph_done(&g);
}

/* ---- Resize ---- */

static const float resizeIn[4] = { 1, 2, 3, 4 };

static void resizeNearestAsymmetricFloor(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   int in[3] = {
      tensor(&g, "x", 4, (int64_t[]){ 1, 1, 2, 2 }, resizeIn),
      -1,
      tensor(&g, "scales", 1, (int64_t[]){ 4 }, (float[]){ 1, 1, 2, 2 }),
   };
   int y = output(&g, "y");
   int ni = node(&g, "Resize", 13, 3, in, 1, &y);
   TestUtil_attrString(&g, ni, "mode", "nearest");
   TestUtil_attrString(&g, ni, "coordinate_transformation_mode", "asymmetric");
   TestUtil_attrString(&g, ni, "nearest_mode", "floor");
   run(&g, ni);
   assertShape(&g, y, 4, (int64_t[]){ 1, 1, 4, 4 });
   assertData(&g, y, (float[]){ 1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4 }, 16);
   Graph_done(&g);
}

/* half_pixel 2x maps outputs 0..3 to -0.25, 0.25, 0.75, 1.25: weights on the second
 * pixel 0 (clamped), 0.25, 0.75, 1 (clamped); the value is 1 + col + 2 row */
static const float bilinear2x[16] = {
   1, 1.25f, 1.75f, 2,  1.5f, 1.75f, 2.25f, 2.5f,  2.5f, 2.75f, 3.25f, 3.5f,  3, 3.25f, 3.75f, 4,
};

static void resizeLinearHalfPixel(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   int in[3] = {
      tensor(&g, "x", 4, (int64_t[]){ 1, 1, 2, 2 }, resizeIn),
      tensor(&g, "roi", 1, (int64_t[]){ 0 }, (float[]){ 0 }),
      tensor(&g, "scales", 1, (int64_t[]){ 4 }, (float[]){ 1, 1, 2, 2 }),
   };
   int y = output(&g, "y");
   int ni = node(&g, "Resize", 11, 3, in, 1, &y);
   TestUtil_attrString(&g, ni, "mode", "linear");
   run(&g, ni);
   assertShape(&g, y, 4, (int64_t[]){ 1, 1, 4, 4 });
   assertData(&g, y, bilinear2x, 16);
   Graph_done(&g);
}

static void resizeAxesSizes(void **state) {
   (void)state;
   /* opset 18: sizes for the listed axes only */
   Graph g;
   Graph_init(&g, "t.onnx");
   int in[4] = {
      tensor(&g, "x", 4, (int64_t[]){ 1, 1, 2, 2 }, resizeIn),
      -1,
      -1,
      int64Tensor(&g, "sizes", 2, (int64_t[]){ 4, 4 }),
   };
   int y = output(&g, "y");
   int ni = node(&g, "Resize", 18, 4, in, 1, &y);
   TestUtil_attrString(&g, ni, "mode", "linear");
   TestUtil_attrInts(&g, ni, "axes", 2, (int64_t[]){ -2, -1 });
   run(&g, ni);
   assertShape(&g, y, 4, (int64_t[]){ 1, 1, 4, 4 });
   assertData(&g, y, bilinear2x, 16);
   Graph_done(&g);
}

static void upsampleNearestAttribute(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   int x = tensor(&g, "x", 4, (int64_t[]){ 1, 1, 2, 2 }, resizeIn);
   int y = output(&g, "y");
   int ni = node(&g, "Upsample", 7, 1, &x, 1, &y);
   TestUtil_attrFloats(&g, ni, "scales", 4, (double[]){ 1, 1, 1, 2 });
   run(&g, ni);
   assertShape(&g, y, 4, (int64_t[]){ 1, 1, 2, 4 });
   assertData(&g, y, (float[]){ 1, 1, 2, 2, 3, 3, 4, 4 }, 8);
   Graph_done(&g);
}

/* ---- refusals ---- */

static void refusesResizeAntialias(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   int in[3] = {
      tensor(&g, "x", 4, (int64_t[]){ 1, 1, 2, 2 }, resizeIn),
      -1,
      tensor(&g, "scales", 1, (int64_t[]){ 4 }, (float[]){ 1, 1, 0.5f, 0.5f }),
   };
   int y = output(&g, "y");
   int ni = node(&g, "Resize", 18, 3, in, 1, &y);
   TestUtil_attrString(&g, ni, "mode", "linear");
   TestUtil_attrInt(&g, ni, "antialias", 1);
   assertRefused(&g, ni,
                 "t.onnx: node 'Resize' (Resize, opset 18): antialias 1 is not supported (0 only)");
   Graph_done(&g);
}

static void refusesResizeCubicAtOpset10(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   int in[2] = {
      tensor(&g, "x", 4, (int64_t[]){ 1, 1, 2, 2 }, resizeIn),
      tensor(&g, "scales", 1, (int64_t[]){ 4 }, (float[]){ 1, 1, 2, 2 }),
   };
   int y = output(&g, "y");
   int ni = node(&g, "Resize", 10, 2, in, 1, &y);
   TestUtil_attrString(&g, ni, "mode", "cubic");
   assertRefused(&g, ni,
                 "t.onnx: node 'Resize' (Resize, opset 10): mode 'cubic' is not supported "
                 "(nearest, linear)");
   Graph_done(&g);
}

static void refusesResizeVariableScales(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   int in[3] = {
      tensor(&g, "x", 4, (int64_t[]){ 1, 1, 2, 2 }, resizeIn),
      -1,
      tensor(&g, "scales", 1, (int64_t[]){ 4 }, NULL),
   };
   int y = output(&g, "y");
   int ni = node(&g, "Resize", 13, 3, in, 1, &y);
   assertRefused(&g, ni,
                 "t.onnx: node 'Resize' (Resize, opset 13): input 2 ('scales') must be a constant: "
                 "it sets the output's shape");
   Graph_done(&g);
}

/* MaxPool's Indices (opset 8+): flat indices into X, the first maximum of a tie, spatial
 * axes row-major (storage_order 0) or column-major (1). */
static void maxPoolGivesIndices(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   int x = tensor(&g, "x", 4, (int64_t[]){ 1, 2, 3, 3 },
                  (float[]){ 1, 5, 2, 7, 3, 9, 4, 8, 6,
                             9, 1, 1, 1, 1, 1, 1, 1, 9 });
   const int64_t rowMajor[] = { 3, 5, 7, 5, 9, 10, 12, 17 }, colMajor[] = { 1, 7, 5, 7, 9, 12, 10, 17 };
   for (int order = 0; order < 2; order++) {
      int out[2] = { output(&g, order ? "y1" : "y0"), output(&g, order ? "i1" : "i0") };
      int ni = node(&g, "MaxPool", 12, 1, &x, 2, out);
      TestUtil_attrInts(&g, ni, "kernel_shape", 2, (int64_t[]){ 2, 2 });
      TestUtil_attrInt(&g, ni, "storage_order", order);
      run(&g, ni);
      assertData(&g, out[0], (float[]){ 7, 9, 8, 9, 9, 1, 1, 9 }, 8);
      const GTensor *ind = &g.t[out[1]];
      assert_int_equal(ind->dtype, GT_INT64);
      assertShape(&g, out[1], 4, (int64_t[]){ 1, 2, 2, 2 });
      for (int i = 0; i < 8; i++)
         assert_int_equal(((const int64_t *)ind->data)[i], order ? colMajor[i] : rowMajor[i]);
   }
   /* before opset 8 MaxPool has one output */
   int out7[2] = { output(&g, "y7"), output(&g, "i7") };
   int ni = node(&g, "MaxPool", 7, 1, &x, 2, out7);
   TestUtil_attrInts(&g, ni, "kernel_shape", 2, (int64_t[]){ 2, 2 });
   assertRefused(&g, ni, "t.onnx: node 'MaxPool' (MaxPool, opset 7): MaxPool has at most 1 output, got 2");
   Graph_done(&g);
}

/* Upsample-1: height_scale and width_scale on an N x C x H x W input. */
static void upsampleBeforeOpset7ScalesHeightAndWidth(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   int x = tensor(&g, "x", 4, (int64_t[]){ 1, 1, 2, 2 }, (float[]){ 1, 2, 3, 4 });
   int y = output(&g, "y");
   int ni = node(&g, "Upsample", 1, 1, &x, 1, &y);
   TestUtil_attrFloat(&g, ni, "height_scale", 2.0);
   TestUtil_attrFloat(&g, ni, "width_scale", 3.0);
   run(&g, ni);
   assertShape(&g, y, 4, (int64_t[]){ 1, 1, 4, 6 });
   assertData(&g, y, (float[]){ 1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4 }, 24);
   Graph_done(&g);
}

static void refusesTrainingBatchNormAndInt(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   int in[5] = {
      tensor(&g, "x", 3, (int64_t[]){ 1, 1, 1 }, (float[]){ 1 }),
      tensor(&g, "s", 1, (int64_t[]){ 1 }, (float[]){ 1 }),
      tensor(&g, "b", 1, (int64_t[]){ 1 }, (float[]){ 0 }),
      tensor(&g, "m", 1, (int64_t[]){ 1 }, (float[]){ 0 }),
      tensor(&g, "v", 1, (int64_t[]){ 1 }, (float[]){ 1 }),
   };
   int y = output(&g, "y");
   int ni = node(&g, "BatchNormalization", 15, 5, in, 1, &y);
   TestUtil_attrInt(&g, ni, "training_mode", 1);
   assertRefused(&g, ni,
                 "t.onnx: node 'BatchNormalization' (BatchNormalization, opset 15): training_mode 1 "
                 "is not supported (0 only: inference)");
   int ints = int64Tensor(&g, "ints", 2, (int64_t[]){ 1, 2 });
   int in2[2] = { ints, ints };
   int y2 = output(&g, "y2");
   int mm = node(&g, "MatMul", 13, 2, in2, 1, &y2);
   assertRefused(&g, mm,
                 "t.onnx: node 'MatMul' (MatMul, opset 13): input 0 ('ints') is int64; MatMul takes "
                 "float32 or float64");
   Graph_done(&g);
}

/* ---- absurd windows, scales and sizes from damaged files ---- */

static void refusesWindowValuesPastInt32(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   float w9[9] = { 0 };
   /* (k - 1) * dilation + 1 overflowed */
   int in[2] = { tensor(&g, "x", 4, (int64_t[]){ 1, 1, 4, 4 }, NULL),
                 tensor(&g, "w", 4, (int64_t[]){ 1, 1, 3, 3 }, w9) };
   int y = output(&g, "y");
   int conv = node(&g, "Conv", 13, 2, in, 1, &y);
   TestUtil_attrInts(&g, conv, "dilations", 2, (int64_t[]){ (int64_t)1 << 62, 1 });
   assertRefused(&g, conv, "t.onnx: node 'Conv' (Conv, opset 13): dilations value 4611686018427387904 is out "
                 "of range (at most 2147483647)");
   int y2 = output(&g, "y2");
   int pool = node(&g, "MaxPool", 13, 1, in, 1, &y2);
   TestUtil_attrInts(&g, pool, "kernel_shape", 2, (int64_t[]){ (int64_t)1 << 40, 1 });
   TestUtil_attrInts(&g, pool, "pads", 4, (int64_t[]){ (int64_t)1 << 40, 0, (int64_t)1 << 40, 0 });
   assertRefused(&g, pool, "t.onnx: node 'MaxPool' (MaxPool, opset 13): kernel_shape value 1099511627776 is "
                 "out of range (at most 2147483647)");
   int y3 = output(&g, "y3");
   int pool2 = node(&g, "AveragePool", 13, 1, in, 1, &y3);
   TestUtil_attrInts(&g, pool2, "kernel_shape", 2, (int64_t[]){ 2, 2 });
   TestUtil_attrInts(&g, pool2, "pads", 4, (int64_t[]){ 0, 0, INT64_MAX, 0 });
   assertRefused(&g, pool2, "t.onnx: node 'AveragePool' (AveragePool, opset 13): pads value "
                 "9223372036854775807 is out of range (at most 2147483647)");
   /* full - output_shape overflowed */
   int ct[2] = { tensor(&g, "xt", 4, (int64_t[]){ 1, 1, 2, 2 }, NULL),
                 tensor(&g, "wt", 4, (int64_t[]){ 1, 1, 3, 3 }, w9) };
   int y4 = output(&g, "y4");
   int convT = node(&g, "ConvTranspose", 13, 2, ct, 1, &y4);
   TestUtil_attrInts(&g, convT, "output_shape", 2, (int64_t[]){ INT64_MIN, 4 });
   assertRefused(&g, convT, "t.onnx: node 'ConvTranspose' (ConvTranspose, opset 13): output_shape value "
                 "-9223372036854775808 is out of range (1 to 2147483647)");
   Graph_done(&g);
}

static void refusesGroupsOverEmptyChannels(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   /* with no input channel any group divides them: 4 x 2^62 overflowed */
   int in[2] = { tensor(&g, "x", 4, (int64_t[]){ 1, 0, 4, 4 }, NULL),
                 tensor(&g, "w", 4, (int64_t[]){ 0, 4, 3, 3 }, (float[]){ 0 }) };
   int y = output(&g, "y");
   int conv = node(&g, "Conv", 13, 2, in, 1, &y);
   TestUtil_attrInt(&g, conv, "group", (int64_t)1 << 62);
   assertRefused(&g, conv, "t.onnx: node 'Conv' (Conv, opset 13): the weight ('w') takes 4 channels a group, "
                 "the input has 0 in 4611686018427387904 groups");
   Graph_done(&g);
}

static void refusesResizePastInt32AndClampsNaNRoi(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   /* an infinite scale was converted to int64 */
   int in[3] = { tensor(&g, "x", 4, (int64_t[]){ 1, 1, 2, 2 }, resizeIn), -1,
                 tensor(&g, "scales", 1, (int64_t[]){ 4 }, (float[]){ 1, 1, INFINITY, 1 }) };
   int y = output(&g, "y");
   int ni = node(&g, "Resize", 13, 3, in, 1, &y);
   assertRefused(&g, ni, "t.onnx: node 'Resize' (Resize, opset 13): scale inf on axis 2 gives an output size "
                 "of inf (0 to 2147483647)");
   int in2[4] = { in[0], -1, -1, int64Tensor(&g, "sizes", 4, (int64_t[]){ 1, 1, 2, (int64_t)1 << 32 }) };
   int y2 = output(&g, "y2");
   ni = node(&g, "Resize", 13, 4, in2, 1, &y2);
   assertRefused(&g, ni, "t.onnx: node 'Resize' (Resize, opset 13): size 4294967296 on axis 3 is over "
                 "2147483647");
   /* a NaN roi made a NaN coordinate, whose floor was converted to int64: it reads the edge */
   float nan8[8];
   for (int i = 0; i < 8; i++)
      nan8[i] = NAN;
   int in3[4] = { in[0], tensor(&g, "roi", 1, (int64_t[]){ 8 }, nan8), -1,
                  int64Tensor(&g, "sizes2", 4, (int64_t[]){ 1, 1, 2, 2 }) };
   int y3 = output(&g, "y3");
   ni = node(&g, "Resize", 13, 4, in3, 1, &y3);
   TestUtil_attrString(&g, ni, "mode", "linear");
   TestUtil_attrString(&g, ni, "coordinate_transformation_mode", "tf_crop_and_resize");
   run(&g, ni);
   assertData(&g, y3, (float[]){ resizeIn[0], resizeIn[0], resizeIn[0], resizeIn[0] }, 4);
   Graph_done(&g);
}

/* Folding a product of two constants costs its multiplies, not its elements: past the
 * fold's budget it stays a node (a few bytes of ConstantOfShape and MatMul must not take
 * minutes at import); an empty tensor with huge other dimensions is not looped over. */
static void foldingBoundsItsWork(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   g.opset = 13;
   int shape = int64Tensor(&g, "shape", 2, (int64_t[]){ 2048, 2048 });
   int a = output(&g, "a"), c = output(&g, "c");
   node(&g, "ConstantOfShape", 13, 1, &shape, 1, &a);
   int in[2] = { a, a };
   int mm = node(&g, "MatMul", 13, 2, in, 1, &c);
   int small[2] = { tensor(&g, "p", 2, (int64_t[]){ 2, 2 }, (float[]){ 1, 2, 3, 4 }),
                    tensor(&g, "q", 2, (int64_t[]){ 2, 2 }, (float[]){ 1, 0, 0, 1 }) };
   int r = output(&g, "r");
   int mm2 = node(&g, "MatMul", 13, 2, small, 1, &r);
   int e = tensor(&g, "e", 8, (int64_t[]){ INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX,
                                          INT32_MAX, 0 }, (float[]){ 0 });
   int s = output(&g, "s");
   int sm = node(&g, "Softmax", 11, 1, &e, 1, &s);
   g.opset = 13;
   char *cause = NULL;
   if (Graph_prepare(&g, true, &cause) < 0)
      fail_msg("%s", cause);
   assert_true(g.n[0].dead);
   assert_false(g.n[mm].dead);
   assert_null(g.t[c].data);
   assertShape(&g, c, 2, (int64_t[]){ 2048, 2048 });
   assert_true(g.n[mm2].dead);
   assertData(&g, r, (float[]){ 1, 2, 3, 4 }, 4);
   assert_false(g.n[sm].dead);
   Graph_done(&g);
}

static void rowsCoverTheirOpsets(void **state) {
   (void)state;
   const char *ops[] = {
      "Conv", "ConvTranspose", "MatMul", "Gemm", "BatchNormalization", "MaxPool", "AveragePool",
      "GlobalAveragePool", "GlobalMaxPool", "Softmax", "LogSoftmax", "ReduceMean", "ReduceSum",
      "ReduceMax",
   };
   for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
      for (int opset = 1; opset <= 21; opset++)
         assert_non_null(GraphOp_find(ops[i], opset, NULL));
   for (int opset = 1; opset <= 9; opset++)
      assert_non_null(GraphOp_find("Upsample", opset, NULL));
   assert_true(GraphOp_acceptsAttr(GraphOp_find("Upsample", 6, NULL), "height_scale"));
   assert_true(GraphOp_acceptsAttr(GraphOp_find("Gemm", 6, NULL), "broadcast"));
   assert_false(GraphOp_acceptsAttr(GraphOp_find("Gemm", 7, NULL), "broadcast"));
   assert_true(GraphOp_acceptsAttr(GraphOp_find("BatchNormalization", 5, NULL), "consumed_inputs"));
   assert_true(GraphOp_acceptsAttr(GraphOp_find("BatchNormalization", 6, NULL), "is_test"));
   assert_false(GraphOp_acceptsAttr(GraphOp_find("BatchNormalization", 7, NULL), "is_test"));
   assert_false(GraphOp_acceptsAttr(GraphOp_find("MaxPool", 7, NULL), "storage_order"));
   for (int opset = 10; opset <= 21; opset++)
      assert_non_null(GraphOp_find("Resize", opset, NULL));
   for (int opset = 17; opset <= 21; opset++)
      assert_non_null(GraphOp_find("LayerNormalization", opset, NULL));
   assert_non_null(GraphOp_find("Upsample", 9, NULL));
   assert_null(GraphOp_find("Upsample", 10, NULL));
   /* ReduceSum's axes moved to an input at 13, ReduceMean's at 18 */
   assert_true(GraphOp_acceptsAttr(GraphOp_find("ReduceSum", 12, NULL), "axes"));
   assert_false(GraphOp_acceptsAttr(GraphOp_find("ReduceSum", 13, NULL), "axes"));
   assert_true(GraphOp_acceptsAttr(GraphOp_find("ReduceMean", 17, NULL), "axes"));
   assert_false(GraphOp_acceptsAttr(GraphOp_find("ReduceMean", 18, NULL), "axes"));
   assert_true(GraphOp_acceptsAttr(GraphOp_find("AveragePool", 19, NULL), "dilations"));
   assert_false(GraphOp_acceptsAttr(GraphOp_find("AveragePool", 18, NULL), "dilations"));
   assert_int_equal(GraphOp_find("Conv", 13, NULL)->pattern, PAT_OUT_EWISE_FUSABLE);
   assert_int_equal(GraphOp_find("ReduceMean", 13, NULL)->pattern, PAT_COMM_REDUCE);
   assert_int_equal(GraphOp_find("Resize", 13, NULL)->pattern, PAT_INJECTIVE);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(convPadsAndStride),
      cmocka_unit_test(convGrouped),
      cmocka_unit_test(convSamePadding),
      cmocka_unit_test(convTransposeStrideOutputPadding),
      cmocka_unit_test(convTransposeGrouped),
      cmocka_unit_test(matMulBatchBroadcast),
      cmocka_unit_test(matMulVector),
      cmocka_unit_test(gemmTransBBroadcastC),
      cmocka_unit_test(batchNormInference),
      cmocka_unit_test(layerNormWithStatistics),
      cmocka_unit_test(maxPoolCeilMode),
      cmocka_unit_test(averagePoolCountIncludePad),
      cmocka_unit_test(globalAveragePool3d),
      cmocka_unit_test(softmaxOpset11And13),
      cmocka_unit_test(logSoftmaxLastAxis),
      cmocka_unit_test(reduceMeanKeepdims0),
      cmocka_unit_test(reduceAxesInput),
      cmocka_unit_test(resizeNearestAsymmetricFloor),
      cmocka_unit_test(resizeLinearHalfPixel),
      cmocka_unit_test(resizeAxesSizes),
      cmocka_unit_test(upsampleNearestAttribute),
      cmocka_unit_test(refusesResizeAntialias),
      cmocka_unit_test(refusesResizeCubicAtOpset10),
      cmocka_unit_test(refusesResizeVariableScales),
      cmocka_unit_test(maxPoolGivesIndices),
      cmocka_unit_test(upsampleBeforeOpset7ScalesHeightAndWidth),
      cmocka_unit_test(gemmBeforeOpset7BroadcastsOnlyWhenAsked),
      cmocka_unit_test(batchNormBeforeOpset7InTestMode),
      cmocka_unit_test(refusesTrainingBatchNormAndInt),
      cmocka_unit_test(refusesWindowValuesPastInt32),
      cmocka_unit_test(refusesGroupsOverEmptyChannels),
      cmocka_unit_test(refusesResizePastInt32AndClampsNaNRoi),
      cmocka_unit_test(foldingBoundsItsWork),
      cmocka_unit_test(rowsCoverTheirOpsets),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
