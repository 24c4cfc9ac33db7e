/* Tests of the graph op rows of src/graph/ops_tensor.c: shape inference and the C
 * reference of each op on small graphs built by hand, against hand-computed values,
 * and the exact messages of the nodes they refuse. */
#include "config.h"

#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/exec.h"
#include "graph/graph.h"
#include "graph/ops.h"
#include "util/xalloc.h"

/* A tensor of the graph; with data, a weight holding it. */
static int addTensor(Graph *g, const char *name, GType dtype, int ndim, const int64_t *dims,
                     const void *data) {
   int t = Graph_addTensor(g, name);
   GTensor_setShape(&g->t[t], dtype, ndim, dims);
   if (data) {
      GTensor_alloc(&g->t[t]);
      memcpy(g->t[t].data, data, GTensor_bytes(&g->t[t]));
      g->t[t].role = GT_WEIGHT;
   }
   return t;
}

/* A node of op type `op` whose output tensors are new, named out0, out1, ... after the
 * node's name. */
static int addNode(Graph *g, const char *name, const char *op, int nin, const int *in, int nout) {
   int out[8];
   for (int k = 0; k < nout; k++) {
      char tname[64];
      snprintf(tname, sizeof tname, "%s_out%d", name, k);
      out[k] = Graph_addTensor(g, tname);
   }
   int node = Graph_addNode(g, name, op, nin, in, nout, out);
   const GraphOp *row = GraphOp_find(op, g->opset, NULL);
   assert_non_null(row);
   g->n[node].op = GraphOp_row(row);
   return node;
}

static const GraphOp *rowOf(const Graph *g, int node) {
   const GraphOp *op = GraphOp_get(g->n[node].op);
   assert_non_null(op);
   return op;
}

/* Infers and evaluates the node, failing the test with the message on a refusal. */
static void run(Graph *g, int node) {
   char *cause = NULL;
   const GraphOp *op = rowOf(g, node);
   int rc = op->infer(g, &g->n[node], &cause);
   if (rc == 0)
      rc = op->eval(g, &g->n[node], &cause);
   if (rc != 0)
      fail_msg("%s", cause ? cause : "(no message)");
   free(cause);
}

/* The message infer refuses the node with (caller frees). */
static char *refusal(Graph *g, int node) {
   char *cause = NULL;
   assert_int_equal(rowOf(g, node)->infer(g, &g->n[node], &cause), -1);
   assert_non_null(cause);
   return cause;
}

static GTensor *outT(Graph *g, int node, int k) {
   return GNode_output(g, &g->n[node], k);
}

static void assertShape(const GTensor *t, GType dtype, int ndim, const int64_t *dims) {
   assert_int_equal(t->dtype, dtype);
   assert_int_equal(t->ndim, ndim);
   for (int d = 0; d < ndim; d++)
      assert_int_equal(t->dims[d], dims[d]);
}

static void assertValues(const GTensor *t, const double *want, int64_t count) {
   assert_int_equal(GTensor_elems(t), count);
   for (int64_t i = 0; i < count; i++)
      if (fabs(GTensor_get(t, i) - want[i]) > 1e-6 * (1.0 + fabs(want[i])))
         fail_msg("element %lld is %.9g, want %.9g", (long long)i, GTensor_get(t, i), want[i]);
}

static void assertInts(const GTensor *t, const int64_t *want, int64_t count) {
   assert_int_equal(GTensor_elems(t), count);
   for (int64_t i = 0; i < count; i++)
      if (GTensor_getInt(t, i) != want[i])
         fail_msg("element %lld is %lld, want %lld", (long long)i, (long long)GTensor_getInt(t, i),
                  (long long)want[i]);
}

static void initGraph(Graph *g, int opset) {
   Graph_init(g, "test.onnx");
   g->opset = opset;
}

/* ---- elementwise and broadcast ---- */

static void addBroadcastsRowOverMatrix(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 13);
   const float a[] = { 1, 2, 3, 4, 5, 6 }, b[] = { 10, 20, 30 };
   int in[2] = { addTensor(&g, "a", GT_FLOAT, 2, (int64_t[]){ 2, 3 }, a),
                 addTensor(&g, "b", GT_FLOAT, 1, (int64_t[]){ 3 }, b) };
   int n = addNode(&g, "add", "Add", 2, in, 1);
   run(&g, n);
   assertShape(outT(&g, n, 0), GT_FLOAT, 2, (int64_t[]){ 2, 3 });
   assertValues(outT(&g, n, 0), (double[]){ 11, 22, 33, 14, 25, 36 }, 6);
   assert_int_equal(rowOf(&g, n)->pattern, PAT_BROADCAST);
   Graph_done(&g);
}

static void integerArithmeticKeepsIntegerSemantics(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 13);
   const int32_t a[] = { 7, -7, 7, -7 }, b[] = { 2, 2, -2, -2 };
   int in[2] = { addTensor(&g, "a", GT_INT32, 1, (int64_t[]){ 4 }, a),
                 addTensor(&g, "b", GT_INT32, 1, (int64_t[]){ 4 }, b) };
   int div = addNode(&g, "div", "Div", 2, in, 1);
   int mod = addNode(&g, "mod", "Mod", 2, in, 1);
   int fmodNode = addNode(&g, "fmod", "Mod", 2, in, 1);
   TestUtil_attrInt(&g, fmodNode, "fmod", 1);
   run(&g, div);
   run(&g, mod);
   run(&g, fmodNode);
   assert_int_equal(outT(&g, div, 0)->dtype, GT_INT32);
   assertInts(outT(&g, div, 0), (int64_t[]){ 3, -3, -3, 3 }, 4);
   /* fmod 0: the divisor's sign, as Python; fmod 1: the dividend's, as C */
   assertInts(outT(&g, mod, 0), (int64_t[]){ 1, 1, -1, -1 }, 4);
   assertInts(outT(&g, fmodNode, 0), (int64_t[]){ 1, -1, 1, -1 }, 4);

   /* int64 beyond double's 53 bits stays exact */
   const int64_t big[] = { (1LL << 60) + 1 }, one[] = { 2 };
   int in64[2] = { addTensor(&g, "big", GT_INT64, 1, (int64_t[]){ 1 }, big),
                   addTensor(&g, "one", GT_INT64, 1, (int64_t[]){ 1 }, one) };
   int add = addNode(&g, "add", "Add", 2, in64, 1);
   run(&g, add);
   assertInts(outT(&g, add, 0), (int64_t[]){ (1LL << 60) + 3 }, 1);

   /* a division by zero is an error naming the element */
   const int32_t zero[] = { 1, 0, 1, 1 };
   int inz[2] = { in[0], addTensor(&g, "zero", GT_INT32, 1, (int64_t[]){ 4 }, zero) };
   int dz = addNode(&g, "dz", "Div", 2, inz, 1);
   char *cause = NULL;
   assert_int_equal(rowOf(&g, dz)->infer(&g, &g.n[dz], &cause), 0);
   assert_int_equal(rowOf(&g, dz)->eval(&g, &g.n[dz], &cause), -1);
   assert_string_equal(cause, "test.onnx: node 'dz' (Div, opset 13): integer division by zero at element 1");
   free(cause);
   Graph_done(&g);
}

static void powTakesAnExponentOfAnotherType(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 15);
   const float base[] = { 2, 3, 0.5f };
   const int64_t expo[] = { 3 };
   const int32_t ibase[] = { 3, -2 }, iexp[] = { 4, 3 };
   int in[2] = { addTensor(&g, "x", GT_FLOAT, 1, (int64_t[]){ 3 }, base),
                 addTensor(&g, "y", GT_INT64, 1, (int64_t[]){ 1 }, expo) };
   int p = addNode(&g, "pow", "Pow", 2, in, 1);
   int iin[2] = { addTensor(&g, "ix", GT_INT32, 1, (int64_t[]){ 2 }, ibase),
                  addTensor(&g, "iy", GT_INT32, 1, (int64_t[]){ 2 }, iexp) };
   int ip = addNode(&g, "ipow", "Pow", 2, iin, 1);
   run(&g, p);
   run(&g, ip);
   assertShape(outT(&g, p, 0), GT_FLOAT, 1, (int64_t[]){ 3 });
   assertValues(outT(&g, p, 0), (double[]){ 8, 27, 0.125 }, 3);
   assert_int_equal(outT(&g, ip, 0)->dtype, GT_INT32);
   assertInts(outT(&g, ip, 0), (int64_t[]){ 81, -8 }, 2);
   Graph_done(&g);
}

static void variadicOpsBroadcast(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 13);
   const float a[] = { 1, 5, 3, 7 }, b[] = { 4, 2 }, c[] = { 6 };
   int in[3] = { addTensor(&g, "a", GT_FLOAT, 2, (int64_t[]){ 2, 2 }, a),
                 addTensor(&g, "b", GT_FLOAT, 1, (int64_t[]){ 2 }, b),
                 addTensor(&g, "c", GT_FLOAT, 0, NULL, c) };
   int mx = addNode(&g, "max", "Max", 3, in, 1);
   int mn = addNode(&g, "min", "Min", 3, in, 1);
   int sum = addNode(&g, "sum", "Sum", 3, in, 1);
   int mean = addNode(&g, "mean", "Mean", 3, in, 1);
   int one = addNode(&g, "one", "Max", 1, in + 1, 1);
   run(&g, mx);
   run(&g, mn);
   run(&g, sum);
   run(&g, mean);
   run(&g, one);
   assertValues(outT(&g, mx, 0), (double[]){ 6, 6, 6, 7 }, 4);
   assertValues(outT(&g, mn, 0), (double[]){ 1, 2, 3, 2 }, 4);
   assertValues(outT(&g, sum, 0), (double[]){ 11, 13, 13, 15 }, 4);
   assertValues(outT(&g, mean, 0), (double[]){ 11 / 3.0, 13 / 3.0, 13 / 3.0, 5 }, 4);
   assertValues(outT(&g, one, 0), (double[]){ 4, 2 }, 2);
   Graph_done(&g);
}

static void comparisonsWhereAndNotGiveBools(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 13);
   const float a[] = { 1, 2, 3, 4 }, b[] = { 2, 2 }, y[] = { -1 };
   int in[2] = { addTensor(&g, "a", GT_FLOAT, 2, (int64_t[]){ 2, 2 }, a),
                 addTensor(&g, "b", GT_FLOAT, 1, (int64_t[]){ 2 }, b) };
   int eq = addNode(&g, "eq", "Equal", 2, in, 1);
   int lt = addNode(&g, "lt", "Less", 2, in, 1);
   int gt = addNode(&g, "gt", "Greater", 2, in, 1);
   run(&g, eq);
   run(&g, lt);
   run(&g, gt);
   assertShape(outT(&g, eq, 0), GT_BOOL, 2, (int64_t[]){ 2, 2 });
   assertInts(outT(&g, eq, 0), (int64_t[]){ 0, 1, 0, 0 }, 4);
   assertInts(outT(&g, lt, 0), (int64_t[]){ 1, 0, 0, 0 }, 4);
   assertInts(outT(&g, gt, 0), (int64_t[]){ 0, 0, 1, 1 }, 4);
   int notIn = g.n[gt].out[0];
   int nt = addNode(&g, "not", "Not", 1, &notIn, 1);
   run(&g, nt);
   assertInts(outT(&g, nt, 0), (int64_t[]){ 1, 1, 0, 0 }, 4);
   /* Where(a > b, a, -1): the condition [2,2], x [2,2], y a scalar */
   int win[3] = { notIn, in[0], addTensor(&g, "y", GT_FLOAT, 0, NULL, y) };
   int wh = addNode(&g, "where", "Where", 3, win, 1);
   run(&g, wh);
   assertShape(outT(&g, wh, 0), GT_FLOAT, 2, (int64_t[]){ 2, 2 });
   assertValues(outT(&g, wh, 0), (double[]){ -1, -1, 3, 4 }, 4);
   Graph_done(&g);
}

static void activationsMatchTheirFormulas(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 20);
   const float x[] = { -2, -0.5f, 0, 1, 4 };
   int in = addTensor(&g, "x", GT_FLOAT, 1, (int64_t[]){ 5 }, x);
   int relu = addNode(&g, "relu", "Relu", 1, &in, 1);
   int leaky = addNode(&g, "leaky", "LeakyRelu", 1, &in, 1);
   TestUtil_attrFloat(&g, leaky, "alpha", 0.1);
   int hsig = addNode(&g, "hsig", "HardSigmoid", 1, &in, 1);
   int hswish = addNode(&g, "hswish", "HardSwish", 1, &in, 1);
   int gelu = addNode(&g, "gelu", "Gelu", 1, &in, 1);
   int geluTanh = addNode(&g, "gelut", "Gelu", 1, &in, 1);
   TestUtil_attrString(&g, geluTanh, "approximate", "tanh");
   int sig = addNode(&g, "sig", "Sigmoid", 1, &in, 1);
   int neg = addNode(&g, "neg", "Neg", 1, &in, 1);
   int floorNode = addNode(&g, "floor", "Floor", 1, &in, 1);
   int ceilNode = addNode(&g, "ceil", "Ceil", 1, &in, 1);
   int nodes[] = { relu, leaky, hsig, hswish, gelu, geluTanh, sig, neg, floorNode, ceilNode };
   for (size_t k = 0; k < sizeof nodes / sizeof nodes[0]; k++)
      run(&g, nodes[k]);
   assertValues(outT(&g, relu, 0), (double[]){ 0, 0, 0, 1, 4 }, 5);
   assertValues(outT(&g, leaky, 0), (double[]){ -0.2, -0.05, 0, 1, 4 }, 5);
   /* max(0, min(1, 0.2 x + 0.5)) */
   assertValues(outT(&g, hsig, 0), (double[]){ 0.1, 0.4, 0.5, 0.7, 1 }, 5);
   /* x max(0, min(1, x / 6 + 0.5)) */
   assertValues(outT(&g, hswish, 0),
                (double[]){ -2 / 6.0, -0.5 * (0.5 - 0.5 / 6), 0, 1 * (0.5 + 1 / 6.0), 4 }, 5);
   double erfGelu[5], tanhGelu[5], sigm[5];
   for (int i = 0; i < 5; i++) {
      erfGelu[i] = 0.5 * x[i] * (1 + erf(x[i] / sqrt(2.0)));
      double inner = sqrt(2 / 3.14159265358979323846) * (x[i] + 0.044715 * pow(x[i], 3));
      tanhGelu[i] = 0.5 * x[i] * (1 + tanh(inner));
      sigm[i] = 1 / (1 + exp(-x[i]));
   }
   assertValues(outT(&g, gelu, 0), erfGelu, 5);
   assertValues(outT(&g, geluTanh, 0), tanhGelu, 5);
   assertValues(outT(&g, sig, 0), sigm, 5);
   assertValues(outT(&g, neg, 0), (double[]){ 2, 0.5, 0, -1, -4 }, 5);
   assertValues(outT(&g, floorNode, 0), (double[]){ -2, -1, 0, 1, 4 }, 5);
   assertValues(outT(&g, ceilNode, 0), (double[]){ -2, 0, 0, 1, 4 }, 5);
   assert_int_equal(rowOf(&g, relu)->pattern, PAT_ELEMWISE);
   Graph_done(&g);
}

static void clipTakesBoundsAsAttributesThenInputs(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 10);
   const float x[] = { -3, 0, 3 }, lo[] = { -1 };
   int in = addTensor(&g, "x", GT_FLOAT, 1, (int64_t[]){ 3 }, x);
   int old = addNode(&g, "old", "Clip", 1, &in, 1);
   TestUtil_attrFloat(&g, old, "min", -2);
   TestUtil_attrFloat(&g, old, "max", 2);
   run(&g, old);
   assertValues(outT(&g, old, 0), (double[]){ -2, 0, 2 }, 3);

   g.opset = 13;
   /* min given, max left out */
   int cin[3] = { in, addTensor(&g, "lo", GT_FLOAT, 0, NULL, lo), -1 };
   int c = addNode(&g, "clip", "Clip", 3, cin, 1);
   run(&g, c);
   assertValues(outT(&g, c, 0), (double[]){ -1, 0, 3 }, 3);
   Graph_done(&g);
}

static void castTruncatesFloatsToIntegers(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 13);
   const float x[] = { 1.7f, -1.7f, 2.5f, 0.0f };
   int in = addTensor(&g, "x", GT_FLOAT, 1, (int64_t[]){ 4 }, x);
   int c = addNode(&g, "cast", "Cast", 1, &in, 1);
   TestUtil_attrInt(&g, c, "to", GT_INT64);
   int b = addNode(&g, "tobool", "Cast", 1, &in, 1);
   TestUtil_attrInt(&g, b, "to", GT_BOOL);
   run(&g, c);
   run(&g, b);
   assertShape(outT(&g, c, 0), GT_INT64, 1, (int64_t[]){ 4 });
   assertInts(outT(&g, c, 0), (int64_t[]){ 1, -1, 2, 0 }, 4);
   assertInts(outT(&g, b, 0), (int64_t[]){ 1, 1, 1, 0 }, 4);
   int s = addNode(&g, "tostring", "Cast", 1, &in, 1);
   TestUtil_attrInt(&g, s, "to", GT_STRING);
   char *cause = refusal(&g, s);
   assert_string_equal(cause, "test.onnx: node 'tostring' (Cast, opset 13): to 8 (string) is not supported "
                              "(float32, float64, float16, bfloat16, int8, int16, int32, int64, uint8, uint16, "
                              "uint32, uint64, bool)");
   free(cause);
   Graph_done(&g);
}

static void dropoutPassesTheInputAndATrueMask(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 13);
   const float x[] = { 1, -2 }, ratio[] = { 0.5f };
   const uint8_t no[] = { 0 }, yes[] = { 1 };
   int in[3] = { addTensor(&g, "x", GT_FLOAT, 1, (int64_t[]){ 2 }, x),
                 addTensor(&g, "ratio", GT_FLOAT, 0, NULL, ratio),
                 addTensor(&g, "train", GT_BOOL, 0, NULL, no) };
   int d = addNode(&g, "drop", "Dropout", 3, in, 2);
   run(&g, d);
   assertValues(outT(&g, d, 0), (double[]){ 1, -2 }, 2);
   assertShape(outT(&g, d, 1), GT_BOOL, 1, (int64_t[]){ 2 });
   assertInts(outT(&g, d, 1), (int64_t[]){ 1, 1 }, 2);
   in[2] = addTensor(&g, "train1", GT_BOOL, 0, NULL, yes);
   int t = addNode(&g, "train", "Dropout", 3, in, 1);
   char *cause = refusal(&g, t);
   assert_string_equal(cause, "test.onnx: node 'train' (Dropout, opset 13): training_mode true is not "
                              "supported: only inference is");
   free(cause);
   Graph_done(&g);
}

/* ---- layout ---- */

static void sliceWithNegativeStepAndClampedEnds(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 13);
   float x[10];
   for (int i = 0; i < 10; i++)
      x[i] = (float)i;
   /* x[:, -1::-2] over a [2,5] matrix: columns 4, 2, 0 */
   const int64_t starts[] = { -1 }, ends[] = { INT64_MIN }, axes[] = { -1 }, steps[] = { -2 };
   int in[5] = { addTensor(&g, "x", GT_FLOAT, 2, (int64_t[]){ 2, 5 }, x),
                 addTensor(&g, "starts", GT_INT64, 1, (int64_t[]){ 1 }, starts),
                 addTensor(&g, "ends", GT_INT64, 1, (int64_t[]){ 1 }, ends),
                 addTensor(&g, "axes", GT_INT64, 1, (int64_t[]){ 1 }, axes),
                 addTensor(&g, "steps", GT_INT64, 1, (int64_t[]){ 1 }, steps) };
   int s = addNode(&g, "slice", "Slice", 5, in, 1);
   run(&g, s);
   assertShape(outT(&g, s, 0), GT_FLOAT, 2, (int64_t[]){ 2, 3 });
   assertValues(outT(&g, s, 0), (double[]){ 4, 2, 0, 9, 7, 5 }, 6);

   /* x[1:, 1:1000] with the default axes and steps: an end past the size clamps */
   const int64_t starts2[] = { 1, 1 }, ends2[] = { 2, 1000 };
   int in2[3] = { in[0], addTensor(&g, "starts2", GT_INT64, 1, (int64_t[]){ 2 }, starts2),
                  addTensor(&g, "ends2", GT_INT64, 1, (int64_t[]){ 2 }, ends2) };
   int s2 = addNode(&g, "slice2", "Slice", 3, in2, 1);
   run(&g, s2);
   assertShape(outT(&g, s2, 0), GT_FLOAT, 2, (int64_t[]){ 1, 4 });
   assertValues(outT(&g, s2, 0), (double[]){ 6, 7, 8, 9 }, 4);
   assert_int_equal(rowOf(&g, s)->pattern, PAT_INJECTIVE);

   /* opset 9: starts and ends as attributes */
   g.opset = 9;
   int s3 = addNode(&g, "slice3", "Slice", 1, in, 1);
   TestUtil_attrInts(&g, s3, "starts", 1, (int64_t[]){ 3 });
   TestUtil_attrInts(&g, s3, "ends", 1, (int64_t[]){ -1 });
   TestUtil_attrInts(&g, s3, "axes", 1, (int64_t[]){ 1 });
   run(&g, s3);
   assertValues(outT(&g, s3, 0), (double[]){ 3, 8 }, 2);
   Graph_done(&g);
}

static void padReflectEdgeAndConstant(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 13);
   const float x[] = { 1, 2, 3, 4, 5, 6 }, value[] = { 9 };
   /* two columns before, one after, nothing on the rows */
   const int64_t pads[] = { 0, 2, 0, 1 };
   int in[3] = { addTensor(&g, "x", GT_FLOAT, 2, (int64_t[]){ 2, 3 }, x),
                 addTensor(&g, "pads", GT_INT64, 1, (int64_t[]){ 4 }, pads),
                 addTensor(&g, "value", GT_FLOAT, 0, NULL, value) };
   int r = addNode(&g, "reflect", "Pad", 2, in, 1);
   TestUtil_attrString(&g, r, "mode", "reflect");
   int e = addNode(&g, "edge", "Pad", 2, in, 1);
   TestUtil_attrString(&g, e, "mode", "edge");
   int c = addNode(&g, "constant", "Pad", 3, in, 1);
   run(&g, r);
   run(&g, e);
   run(&g, c);
   assertShape(outT(&g, r, 0), GT_FLOAT, 2, (int64_t[]){ 2, 6 });
   assertValues(outT(&g, r, 0), (double[]){ 3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5 }, 12);
   assertValues(outT(&g, e, 0), (double[]){ 1, 1, 1, 2, 3, 3, 4, 4, 4, 5, 6, 6 }, 12);
   assertValues(outT(&g, c, 0), (double[]){ 9, 9, 1, 2, 3, 9, 9, 9, 4, 5, 6, 9 }, 12);

   int w = addNode(&g, "wrap", "Pad", 2, in, 1);
   TestUtil_attrString(&g, w, "mode", "wrap");
   char *cause = refusal(&g, w);
   assert_string_equal(cause, "test.onnx: node 'wrap' (Pad, opset 13): mode 'wrap' is not supported "
                              "(constant, reflect, edge)");
   free(cause);
   Graph_done(&g);
}

static void gatherAlongAxisOneWithANegativeIndex(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 13);
   const float x[] = { 0, 1, 2, 3, 4, 5 };
   const int32_t idx[] = { -1, 0 };
   const int64_t scalar[] = { 1 };
   int in[2] = { addTensor(&g, "x", GT_FLOAT, 2, (int64_t[]){ 2, 3 }, x),
                 addTensor(&g, "idx", GT_INT32, 1, (int64_t[]){ 2 }, idx) };
   int n = addNode(&g, "gather", "Gather", 2, in, 1);
   TestUtil_attrInt(&g, n, "axis", 1);
   run(&g, n);
   assertShape(outT(&g, n, 0), GT_FLOAT, 2, (int64_t[]){ 2, 2 });
   assertValues(outT(&g, n, 0), (double[]){ 2, 0, 5, 3 }, 4);
   /* a scalar index drops the axis */
   int in2[2] = { in[0], addTensor(&g, "one", GT_INT64, 0, NULL, scalar) };
   int s = addNode(&g, "row", "Gather", 2, in2, 1);
   run(&g, s);
   assertShape(outT(&g, s, 0), GT_FLOAT, 1, (int64_t[]){ 3 });
   assertValues(outT(&g, s, 0), (double[]){ 3, 4, 5 }, 3);
   Graph_done(&g);
}

static void reshapeCopiesZerosAndInfersMinusOne(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 13);
   float x[24];
   for (int i = 0; i < 24; i++)
      x[i] = (float)i;
   const int64_t shape[] = { 0, -1, 2 };
   int in[2] = { addTensor(&g, "x", GT_FLOAT, 3, (int64_t[]){ 2, 3, 4 }, x),
                 addTensor(&g, "shape", GT_INT64, 1, (int64_t[]){ 3 }, shape) };
   int n = addNode(&g, "reshape", "Reshape", 2, in, 1);
   run(&g, n);
   assertShape(outT(&g, n, 0), GT_FLOAT, 3, (int64_t[]){ 2, 6, 2 });
   assert_memory_equal(outT(&g, n, 0)->data, x, sizeof x);

   /* with allowzero the 0 is a zero: 24 elements do not fit */
   g.opset = 14;
   int z = addNode(&g, "zero", "Reshape", 2, in, 1);
   TestUtil_attrInt(&g, z, "allowzero", 1);
   char *cause = refusal(&g, z);
   assert_string_equal(cause, "test.onnx: node 'zero' (Reshape, opset 14): shape has both 0 and -1 with "
                              "allowzero 1");
   free(cause);

   /* a shape computed at run time cannot set the output's shape */
   int dyn = addTensor(&g, "dynshape", GT_INT64, 1, (int64_t[]){ 3 }, NULL);
   int in3[2] = { in[0], dyn };
   int d = addNode(&g, "r", "Reshape", 2, in3, 1);
   cause = refusal(&g, d);
   assert_string_equal(cause, "test.onnx: node 'r' (Reshape, opset 14): input 1 ('dynshape') must be a "
                              "constant: it sets the output's shape");
   free(cause);
   Graph_done(&g);
}

static void flattenSqueezeUnsqueezeReshape(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 13);
   const float x[] = { 1, 2, 3, 4, 5, 6 };
   const int64_t axes[] = { -1, 0 }, sq[] = { 2 };
   int in = addTensor(&g, "x", GT_FLOAT, 4, (int64_t[]){ 1, 2, 1, 3 }, x);
   int f = addNode(&g, "flat", "Flatten", 1, &in, 1);
   TestUtil_attrInt(&g, f, "axis", -1);
   run(&g, f);
   assertShape(outT(&g, f, 0), GT_FLOAT, 2, (int64_t[]){ 2, 3 });
   int s = addNode(&g, "squeezeall", "Squeeze", 1, &in, 1);
   run(&g, s);
   assertShape(outT(&g, s, 0), GT_FLOAT, 2, (int64_t[]){ 2, 3 });
   int sin[2] = { in, addTensor(&g, "sq", GT_INT64, 1, (int64_t[]){ 1 }, sq) };
   int s2 = addNode(&g, "squeeze2", "Squeeze", 2, sin, 1);
   run(&g, s2);
   assertShape(outT(&g, s2, 0), GT_FLOAT, 3, (int64_t[]){ 1, 2, 3 });
   assertValues(outT(&g, s2, 0), (double[]){ 1, 2, 3, 4, 5, 6 }, 6);
   int uin[2] = { g.n[s].out[0], addTensor(&g, "axes", GT_INT64, 1, (int64_t[]){ 2 }, axes) };
   int u = addNode(&g, "unsqueeze", "Unsqueeze", 2, uin, 1);
   run(&g, u);
   assertShape(outT(&g, u, 0), GT_FLOAT, 4, (int64_t[]){ 1, 2, 3, 1 });
   /* squeezing an axis that is not 1, or one the input does not have */
   const int64_t zero[] = { 0 };
   int bad = addNode(&g, "bad", "Squeeze", 2,
                     (int[]){ g.n[s].out[0], addTensor(&g, "zero", GT_INT64, 1, (int64_t[]){ 1 }, zero) }, 1);
   char *cause = refusal(&g, bad);
   assert_string_equal(cause, "test.onnx: node 'bad' (Squeeze, opset 13): axis 0 has size 2, not 1");
   free(cause);
   int range = addNode(&g, "range", "Squeeze", 2, (int[]){ g.n[s].out[0], sin[1] }, 1);
   cause = refusal(&g, range);
   assert_string_equal(cause, "test.onnx: node 'range' (Squeeze, opset 13): axis 2 is out of range for rank 2");
   free(cause);
   /* opset 11: axes as an attribute */
   g.opset = 11;
   int u11 = addNode(&g, "u11", "Unsqueeze", 1, &in, 1);
   TestUtil_attrInts(&g, u11, "axes", 1, (int64_t[]){ 4 });
   run(&g, u11);
   assertShape(outT(&g, u11, 0), GT_FLOAT, 5, (int64_t[]){ 1, 2, 1, 3, 1 });
   Graph_done(&g);
}

static void splitIntoUnequalAndEqualParts(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 13);
   const float x[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
   const int64_t split[] = { 2, 3 };
   int in[2] = { addTensor(&g, "x", GT_FLOAT, 2, (int64_t[]){ 2, 5 }, x),
                 addTensor(&g, "split", GT_INT64, 1, (int64_t[]){ 2 }, split) };
   int n = addNode(&g, "split", "Split", 2, in, 2);
   TestUtil_attrInt(&g, n, "axis", -1);
   run(&g, n);
   assertShape(outT(&g, n, 0), GT_FLOAT, 2, (int64_t[]){ 2, 2 });
   assertShape(outT(&g, n, 1), GT_FLOAT, 2, (int64_t[]){ 2, 3 });
   assertValues(outT(&g, n, 0), (double[]){ 0, 1, 5, 6 }, 4);
   assertValues(outT(&g, n, 1), (double[]){ 2, 3, 4, 7, 8, 9 }, 6);
   /* opset 18: num_outputs 3 over 5 columns gives 2, 2, 1 */
   g.opset = 18;
   int m = addNode(&g, "split3", "Split", 1, in, 3);
   TestUtil_attrInt(&g, m, "axis", 1);
   TestUtil_attrInt(&g, m, "num_outputs", 3);
   run(&g, m);
   assertValues(outT(&g, m, 0), (double[]){ 0, 1, 5, 6 }, 4);
   assertValues(outT(&g, m, 1), (double[]){ 2, 3, 7, 8 }, 4);
   assertValues(outT(&g, m, 2), (double[]){ 4, 9 }, 2);
   /* without sizes, parts must be equal */
   g.opset = 13;
   int e = addNode(&g, "uneven", "Split", 1, in, 2);
   TestUtil_attrInt(&g, e, "axis", 1);
   char *cause = refusal(&g, e);
   assert_string_equal(cause, "test.onnx: node 'uneven' (Split, opset 13): axis 1 of size 5 does not split "
                              "into 2 equal parts");
   free(cause);
   Graph_done(&g);
}

static void concatAndTranspose(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 13);
   const int64_t a[] = { 1, 2, 3, 4 }, b[] = { 5, 6 };
   int in[2] = { addTensor(&g, "a", GT_INT64, 2, (int64_t[]){ 2, 2 }, a),
                 addTensor(&g, "b", GT_INT64, 2, (int64_t[]){ 2, 1 }, b) };
   int c = addNode(&g, "concat", "Concat", 2, in, 1);
   TestUtil_attrInt(&g, c, "axis", -1);
   run(&g, c);
   assertShape(outT(&g, c, 0), GT_INT64, 2, (int64_t[]){ 2, 3 });
   assertInts(outT(&g, c, 0), (int64_t[]){ 1, 2, 5, 3, 4, 6 }, 6);

   int64_t x[24];
   for (int i = 0; i < 24; i++)
      x[i] = i;
   int t3 = addTensor(&g, "x", GT_INT64, 3, (int64_t[]){ 2, 3, 4 }, x);
   int t = addNode(&g, "transpose", "Transpose", 1, &t3, 1);
   TestUtil_attrInts(&g, t, "perm", 3, (int64_t[]){ 1, 2, 0 });
   run(&g, t);
   assertShape(outT(&g, t, 0), GT_INT64, 3, (int64_t[]){ 3, 4, 2 });
   /* out[i][j][k] = x[k][i][j] */
   const GTensor *o = outT(&g, t, 0);
   for (int i = 0; i < 3; i++)
      for (int j = 0; j < 4; j++)
         for (int k = 0; k < 2; k++)
            assert_int_equal(GTensor_getInt(o, (i * 4 + j) * 2 + k), x[(k * 3 + i) * 4 + j]);
   int rev = addNode(&g, "reverse", "Transpose", 1, &t3, 1);
   run(&g, rev);
   assertShape(outT(&g, rev, 0), GT_INT64, 3, (int64_t[]){ 4, 3, 2 });
   /* out[i][j][k] = x[k][j][i] */
   o = outT(&g, rev, 0);
   for (int i = 0; i < 4; i++)
      for (int j = 0; j < 3; j++)
         for (int k = 0; k < 2; k++)
            assert_int_equal(GTensor_getInt(o, (i * 3 + j) * 2 + k), x[(k * 3 + j) * 4 + i]);
   Graph_done(&g);
}

static void expandTileShapeConstantOfShapeRange(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 15);
   const float x[] = { 1, 2, 3 };
   const int64_t shape[] = { 2, 1 }, reps[] = { 2 };
   int in[2] = { addTensor(&g, "x", GT_FLOAT, 1, (int64_t[]){ 3 }, x),
                 addTensor(&g, "shape", GT_INT64, 1, (int64_t[]){ 2 }, shape) };
   int e = addNode(&g, "expand", "Expand", 2, in, 1);
   run(&g, e);
   assertShape(outT(&g, e, 0), GT_FLOAT, 2, (int64_t[]){ 2, 3 });
   assertValues(outT(&g, e, 0), (double[]){ 1, 2, 3, 1, 2, 3 }, 6);

   int tin[2] = { in[0], addTensor(&g, "reps", GT_INT64, 1, (int64_t[]){ 1 }, reps) };
   int t = addNode(&g, "tile", "Tile", 2, tin, 1);
   run(&g, t);
   assertValues(outT(&g, t, 0), (double[]){ 1, 2, 3, 1, 2, 3 }, 6);

   int expanded = g.n[e].out[0];
   int s = addNode(&g, "shape", "Shape", 1, &expanded, 1);
   TestUtil_attrInt(&g, s, "start", -1);
   run(&g, s);
   assertShape(outT(&g, s, 0), GT_INT64, 1, (int64_t[]){ 1 });
   assertInts(outT(&g, s, 0), (int64_t[]){ 3 }, 1);
   /* infer alone stores the value, so that shape arithmetic after it folds */
   int whole = addNode(&g, "whole", "Shape", 1, &expanded, 1);
   char *cause = NULL;
   assert_int_equal(rowOf(&g, whole)->infer(&g, &g.n[whole], &cause), 0);
   assert_non_null(outT(&g, whole, 0)->data);
   assertInts(outT(&g, whole, 0), (int64_t[]){ 2, 3 }, 2);

   const int32_t seven[] = { 7 };
   int value = addTensor(&g, "seven", GT_INT32, 0, NULL, seven);
   int cs = addNode(&g, "cos", "ConstantOfShape", 1, &in[1], 1);
   TestUtil_addAttr(&g, cs, "value", GA_TENSOR)->tensor = value;
   run(&g, cs);
   assertShape(outT(&g, cs, 0), GT_INT32, 2, (int64_t[]){ 2, 1 });
   assertInts(outT(&g, cs, 0), (int64_t[]){ 7, 7 }, 2);
   int cz = addNode(&g, "zeros", "ConstantOfShape", 1, &in[1], 1);
   run(&g, cz);
   assertShape(outT(&g, cz, 0), GT_FLOAT, 2, (int64_t[]){ 2, 1 });
   assertValues(outT(&g, cz, 0), (double[]){ 0, 0 }, 2);

   const int32_t start[] = { 10 }, limit[] = { 3 }, delta[] = { -3 };
   int rin[3] = { addTensor(&g, "start", GT_INT32, 0, NULL, start),
                  addTensor(&g, "limit", GT_INT32, 0, NULL, limit),
                  addTensor(&g, "delta", GT_INT32, 0, NULL, delta) };
   int r = addNode(&g, "range", "Range", 3, rin, 1);
   run(&g, r);
   assertShape(outT(&g, r, 0), GT_INT32, 1, (int64_t[]){ 3 });
   assertInts(outT(&g, r, 0), (int64_t[]){ 10, 7, 4 }, 3);
   Graph_done(&g);
}

/* ---- refusals and the table ---- */

static void unsupportedTypesAndAttributesAreRefusedByName(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 13);
   const int32_t xi[] = { 1 };
   int in = addTensor(&g, "xi", GT_INT32, 1, (int64_t[]){ 1 }, xi);
   int s = addNode(&g, "sig", "Sigmoid", 1, &in, 1);
   char *cause = refusal(&g, s);
   assert_string_equal(cause, "test.onnx: node 'sig' (Sigmoid, opset 13): input 0 ('xi') is int32; Sigmoid "
                              "takes float32, float64, float16, bfloat16");
   free(cause);

   const float xf[] = { 1 };
   int inf = addTensor(&g, "xf", GT_FLOAT, 1, (int64_t[]){ 1 }, xf);
   int mixed[2] = { inf, in };
   int a = addNode(&g, "add", "Add", 2, mixed, 1);
   cause = refusal(&g, a);
   assert_string_equal(cause, "test.onnx: node 'add' (Add, opset 13): input 1 ('xi') is int32 where input 0 "
                              "('xf') is float32; Add takes one type for both");
   free(cause);

   g.opset = 20;
   int ge = addNode(&g, "gelu", "Gelu", 1, &inf, 1);
   TestUtil_attrString(&g, ge, "approximate", "fast");
   cause = refusal(&g, ge);
   assert_string_equal(cause, "test.onnx: node 'gelu' (Gelu, opset 20): approximate 'fast' is not "
                              "supported (none, tanh)");
   free(cause);

   int bc[2] = { addTensor(&g, "a3", GT_FLOAT, 1, (int64_t[]){ 3 }, NULL),
                 addTensor(&g, "b2", GT_FLOAT, 2, (int64_t[]){ 2, 2 }, NULL) };
   int m = addNode(&g, "mul", "Mul", 2, bc, 1);
   cause = refusal(&g, m);
   assert_string_equal(cause, "test.onnx: node 'mul' (Mul, opset 20): input 1 ('b2') of shape 2x2 does not "
                              "broadcast with 3");
   free(cause);
   Graph_done(&g);
}

/* ---- absurd shapes from damaged files: refused by infer or by Graph_prepare's element
 * cap before anything is allocated, and never by an overflow ---- */

/* The message Graph_prepare (folding) refuses the graph with (caller frees). */
static char *prepareRefusal(Graph *g) {
   char *cause = NULL;
   assert_int_equal(Graph_prepare(g, true, &cause), -1);
   assert_non_null(cause);
   return cause;
}

static int int64Weight(Graph *g, const char *name, int count, const int64_t *values) {
   return addTensor(g, name, GT_INT64, 1, (int64_t[]){ count }, values);
}

static void padsPastInt32AreRefused(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 13);
   const float x[] = { 1, 2 };
   /* pads near INT64_MIN: their sum with the dimension overflowed */
   int in[2] = { addTensor(&g, "x", GT_FLOAT, 1, (int64_t[]){ 2 }, x),
                 int64Weight(&g, "pads", 2, (int64_t[]){ INT64_MIN, INT64_MAX }) };
   int pad = addNode(&g, "pad", "Pad", 2, in, 1);
   char *msg = refusal(&g, pad);
   assert_string_equal(msg, "test.onnx: node 'pad' (Pad, opset 13): pads -9223372036854775808 and "
                       "9223372036854775807 on axis 0 are out of range (-2147483647 to 2147483647)");
   free(msg);
   Graph_done(&g);
   initGraph(&g, 10);
   int x10 = addTensor(&g, "x", GT_FLOAT, 1, (int64_t[]){ 2 }, x);
   pad = addNode(&g, "pad", "Pad", 1, &x10, 1);
   TestUtil_attrInts(&g, pad, "pads", 2, (int64_t[]){ 0, 3000000000LL });
   msg = refusal(&g, pad);
   assert_string_equal(msg, "test.onnx: node 'pad' (Pad, opset 10): pads 0 and 3000000000 on axis 0 are "
                       "out of range (-2147483647 to 2147483647)");
   free(msg);
   Graph_done(&g);
}

static void tileAndConstantOfShapePastTheCapAreRefused(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 13);
   const float x[] = { 1, 2, 3 };
   /* 3 x 2^62 overflowed int64 */
   int in[2] = { addTensor(&g, "x", GT_FLOAT, 1, (int64_t[]){ 3 }, x),
                 int64Weight(&g, "reps", 1, (int64_t[]){ (int64_t)1 << 62 }) };
   addNode(&g, "tile", "Tile", 2, in, 1);
   char *msg = prepareRefusal(&g);
   assert_string_equal(msg, "test.onnx: node 'tile' (Tile, opset 13): output 0 ('tile_out0') would be "
                       "9223372036854775807, over 2147483647 elements");
   free(msg);
   Graph_done(&g);
   /* an empty output whose other dimension is absurd: no element, but no kernel either */
   initGraph(&g, 13);
   int shape = int64Weight(&g, "shape", 2, (int64_t[]){ 0, (int64_t)1 << 40 });
   addNode(&g, "fill", "ConstantOfShape", 1, &shape, 1);
   msg = prepareRefusal(&g);
   assert_string_equal(msg, "test.onnx: node 'fill' (ConstantOfShape, opset 13): output 0 ('fill_out0') "
                       "would be 0x1099511627776, a dimension over 2147483647");
   free(msg);
   Graph_done(&g);
}

static void rangeCountsAcrossTheWholeInt64(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 13);
   /* limit - start overflowed */
   int in[3] = { int64Weight(&g, "start", 1, (int64_t[]){ INT64_MIN }),
                 int64Weight(&g, "limit", 1, (int64_t[]){ INT64_MAX }),
                 int64Weight(&g, "delta", 1, (int64_t[]){ 1 }) };
   for (int i = 0; i < 3; i++)
      g.t[in[i]].ndim = 0;
   addNode(&g, "range", "Range", 3, in, 1);
   char *msg = prepareRefusal(&g);
   assert_string_equal(msg, "test.onnx: node 'range' (Range, opset 13): output 0 ('range_out0') would be "
                       "9223372036854775807, over 2147483647 elements");
   free(msg);
   Graph_done(&g);
   /* -delta overflowed for INT64_MIN; the two elements wrap as int64 does */
   initGraph(&g, 13);
   int in2[3] = { int64Weight(&g, "start", 1, (int64_t[]){ INT64_MAX }),
                  int64Weight(&g, "limit", 1, (int64_t[]){ INT64_MIN }),
                  int64Weight(&g, "delta", 1, (int64_t[]){ INT64_MIN }) };
   int range = addNode(&g, "range", "Range", 3, in2, 1);
   run(&g, range);
   assertInts(outT(&g, range, 0), (int64_t[]){ INT64_MAX, -1 }, 2);
   Graph_done(&g);
   /* a float count that is NaN */
   initGraph(&g, 13);
   const float zero = 0.0f, inf = INFINITY;
   int in3[3] = { addTensor(&g, "start", GT_FLOAT, 0, NULL, &zero),
                  addTensor(&g, "limit", GT_FLOAT, 0, NULL, &inf),
                  addTensor(&g, "delta", GT_FLOAT, 0, NULL, &inf) };
   range = addNode(&g, "range", "Range", 3, in3, 1);
   msg = refusal(&g, range);
   assert_string_equal(msg, "test.onnx: node 'range' (Range, opset 13): start 0, limit inf and delta inf give "
                       "no element count");
   free(msg);
   Graph_done(&g);
}

static void shapeProductsOfEmptyTensorsSaturate(void **state) {
   (void)state;
   Graph g;
   /* Reshape's product of the new shape overflowed before its 0 */
   initGraph(&g, 14);
   int in[2] = { addTensor(&g, "x", GT_FLOAT, 1, (int64_t[]){ 0 }, ""),
                 int64Weight(&g, "shape", 3, (int64_t[]){ (int64_t)1 << 33, (int64_t)1 << 33, 0 }) };
   int reshape = addNode(&g, "reshape", "Reshape", 2, in, 1);
   TestUtil_attrInt(&g, reshape, "allowzero", 1);
   char *msg = prepareRefusal(&g);
   assert_string_equal(msg, "test.onnx: node 'reshape' (Reshape, opset 14): output 0 ('reshape_out0') would be "
                       "8589934592x8589934592x0, a dimension over 2147483647");
   free(msg);
   Graph_done(&g);
   /* Flatten's product of the leading dimensions of an empty tensor overflowed */
   initGraph(&g, 13);
   int x = addTensor(&g, "x", GT_FLOAT, 4, (int64_t[]){ INT32_MAX, INT32_MAX, INT32_MAX, 0 }, "");
   addNode(&g, "flat", "Flatten", 1, &x, 1);
   TestUtil_attrInt(&g, 0, "axis", 3);
   msg = prepareRefusal(&g);
   assert_string_equal(msg, "test.onnx: node 'flat' (Flatten, opset 13): output 0 ('flat_out0') would be "
                       "9223372036854775807x0, a dimension over 2147483647");
   free(msg);
   Graph_done(&g);
}

static void splitAndExpandRefuseAbsurdSizes(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 13);
   const float x[] = { 1, 2, 3 };
   /* the sizes' sum overflowed */
   int in[2] = { addTensor(&g, "x", GT_FLOAT, 1, (int64_t[]){ 3 }, x),
                 int64Weight(&g, "split", 3, (int64_t[]){ INT64_MAX, INT64_MAX, 2 }) };
   int split = addNode(&g, "split", "Split", 2, in, 3);
   char *msg = refusal(&g, split);
   assert_string_equal(msg, "test.onnx: node 'split' (Split, opset 13): split sizes add up to "
                       "9223372036854775807, not axis 0's size 3");
   free(msg);
   Graph_done(&g);
   initGraph(&g, 13);
   const float one = 1.0f;
   int in2[2] = { addTensor(&g, "x", GT_FLOAT, 1, (int64_t[]){ 1 }, &one),
                  int64Weight(&g, "shape", 2, (int64_t[]){ 2, -5 }) };
   int expand = addNode(&g, "expand", "Expand", 2, in2, 1);
   msg = refusal(&g, expand);
   assert_string_equal(msg, "test.onnx: node 'expand' (Expand, opset 13): shape entry -5 is negative");
   free(msg);
   Graph_done(&g);
}

/* A few bytes of ConstantOfShape must not make gigabytes at import: past the fold's
 * budget the node stays a node, its output without data; a small one still folds. */
static void foldingStopsAtItsBudget(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 13);
   int big = int64Weight(&g, "big", 1, (int64_t[]){ (int64_t)1 << 25 });
   int small = int64Weight(&g, "small", 1, (int64_t[]){ 4 });
   int fillBig = addNode(&g, "fillBig", "ConstantOfShape", 1, &big, 1);
   int fillSmall = addNode(&g, "fillSmall", "ConstantOfShape", 1, &small, 1);
   char *cause = NULL;
   assert_int_equal(Graph_prepare(&g, true, &cause), 0);
   assert_false(g.n[fillBig].dead);
   assert_null(outT(&g, fillBig, 0)->data);
   assert_int_equal(GTensor_elems(outT(&g, fillBig, 0)), (int64_t)1 << 25);
   assert_true(g.n[fillSmall].dead);
   assertValues(outT(&g, fillSmall, 0), (double[]){ 0, 0, 0, 0 }, 4);
   Graph_done(&g);
}

static void elementsOfEmptyAndFloatTensors(void **state) {
   (void)state;
   GTensor t;
   memset(&t, 0, sizeof t);
   /* a 0 ends the product before the others overflow it */
   GTensor_setShape(&t, GT_FLOAT, 8, (int64_t[]){ INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX,
                                                  INT32_MAX, INT32_MAX, 0 });
   assert_int_equal(GTensor_elems(&t), 0);
   assert_int_equal(GTensor_span(&t), INT64_MAX);
   /* a float past int64 (or NaN) reads as the nearest int64 */
   double v[3] = { 1e30, -1e30, NAN };
   GTensor_setShape(&t, GT_DOUBLE, 1, (int64_t[]){ 3 });
   t.data = v;
   assert_int_equal(GTensor_getInt(&t, 0), INT64_MAX);
   assert_int_equal(GTensor_getInt(&t, 1), INT64_MIN);
   assert_int_equal(GTensor_getInt(&t, 2), 0);
   assert_int_equal(Graph_addDims(INT64_MAX, 1), INT64_MAX);
   assert_int_equal(Graph_mulDims(INT64_MIN, -1), INT64_MAX);
   assert_int_equal(Graph_mulDims((int64_t)1 << 40, -((int64_t)1 << 40)), INT64_MIN);
}

/* A stem too long for the name was cut alone, and named the same taken tensor for every
 * suffix: the second tensor of a long stem never got a name. */
static void newTensorsOfALongStemGetDistinctNames(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 13);
   char stem[301];
   memset(stem, 'n', 300);
   stem[300] = '\0';
   int a = Graph_newTensor(&g, stem), b = Graph_newTensor(&g, stem), c = Graph_newTensor(&g, stem);
   assert_int_equal(strlen(g.t[a].name), 200);
   assert_string_equal(g.t[b].name + 200, "_1");
   assert_string_equal(g.t[c].name + 200, "_2");
   assert_int_equal(strncmp(g.t[b].name, stem, 200), 0);
   Graph_done(&g);
}

/* ---- opsets 1 to 6: old-style broadcasting and the legacy attribute forms ---- */

static void oldStyleBroadcastAlignsAtAxis(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 6);
   float a[24];
   for (int i = 0; i < 24; i++)
      a[i] = (float)i;
   const float b3[] = { 100, 200, 300 }, b4[] = { 1, 2, 3, 4 }, one[] = { 5 }, small[] = { 0, 1, 2, 3 };
   const float bounds[] = { 3, 15, 100 };
   int x = addTensor(&g, "a", GT_FLOAT, 3, (int64_t[]){ 2, 3, 4 }, a);
   /* Add-6, broadcast 1, axis 1: B of shape 3 lines up with A's axis 1, not its last */
   int in[2] = { x, addTensor(&g, "b3", GT_FLOAT, 1, (int64_t[]){ 3 }, b3) };
   int add = addNode(&g, "add", "Add", 2, in, 1);
   TestUtil_attrInt(&g, add, "broadcast", 1);
   TestUtil_attrInt(&g, add, "axis", 1);
   run(&g, add);
   assertShape(outT(&g, add, 0), GT_FLOAT, 3, (int64_t[]){ 2, 3, 4 });
   assertValues(outT(&g, add, 0),
                (double[]){ 100, 101, 102, 103, 204, 205, 206, 207, 308, 309, 310, 311,
                            112, 113, 114, 115, 216, 217, 218, 219, 320, 321, 322, 323 }, 24);
   /* without axis B lines up with the trailing dimensions (Sub-6 of a row of 4) */
   int in4[2] = { x, addTensor(&g, "b4", GT_FLOAT, 1, (int64_t[]){ 4 }, b4) };
   int sub = addNode(&g, "sub", "Sub", 2, in4, 1);
   TestUtil_attrInt(&g, sub, "broadcast", 1);
   run(&g, sub);
   assertValues(outT(&g, sub, 0),
                (double[]){ -1, -1, -1, -1, 3, 3, 3, 3, 7, 7, 7, 7,
                            11, 11, 11, 11, 15, 15, 15, 15, 19, 19, 19, 19 }, 24);
   /* one element broadcasts at any axis; Mul-1 takes consumed_inputs and ignores it */
   g.opset = 1;
   int in1[2] = { addTensor(&g, "small", GT_FLOAT, 2, (int64_t[]){ 2, 2 }, small),
                  addTensor(&g, "one", GT_FLOAT, 2, (int64_t[]){ 1, 1 }, one) };
   int mul = addNode(&g, "mul", "Mul", 2, in1, 1);
   assert_true(GraphOp_acceptsAttr(rowOf(&g, mul), "consumed_inputs"));
   TestUtil_attrInt(&g, mul, "broadcast", 1);
   TestUtil_attrInt(&g, mul, "axis", 1);
   TestUtil_attrInts(&g, mul, "consumed_inputs", 2, (int64_t[]){ 0, 0 });
   run(&g, mul);
   assertValues(outT(&g, mul, 0), (double[]){ 0, 5, 10, 15 }, 4);
   /* a comparison gives bools of A's shape */
   g.opset = 6;
   int inb[2] = { x, addTensor(&g, "bounds", GT_FLOAT, 1, (int64_t[]){ 3 }, bounds) };
   int greater = addNode(&g, "greater", "Greater", 2, inb, 1);
   TestUtil_attrInt(&g, greater, "broadcast", 1);
   TestUtil_attrInt(&g, greater, "axis", 1);
   run(&g, greater);
   assertShape(outT(&g, greater, 0), GT_BOOL, 3, (int64_t[]){ 2, 3, 4 });
   assertInts(outT(&g, greater, 0),
              (int64_t[]){ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0 }, 24);
   /* broadcast 0 takes equal shapes; a B that does not fit at axis is refused */
   int plain = addNode(&g, "plain", "Add", 2, in, 1);
   char *cause = refusal(&g, plain);
   assert_string_equal(cause, "test.onnx: node 'plain' (Add, opset 6): input 1 ('b3') of shape 3 differs from "
                              "input 0's shape 2x3x4, and broadcast is 0");
   free(cause);
   int off = addNode(&g, "off", "Add", 2, in, 1);
   TestUtil_attrInt(&g, off, "broadcast", 1);
   TestUtil_attrInt(&g, off, "axis", 2);
   cause = refusal(&g, off);
   assert_string_equal(cause, "test.onnx: node 'off' (Add, opset 6): input 1 ('b3') of shape 3 does not "
                              "broadcast onto input 0's shape 2x3x4 at axis 2");
   free(cause);
   /* from opset 7 the same B broadcasts the numpy way, against A's last axis */
   g.opset = 7;
   int numpy = addNode(&g, "numpy", "Add", 2, in, 1);
   cause = refusal(&g, numpy);
   assert_string_equal(cause, "test.onnx: node 'numpy' (Add, opset 7): input 1 ('b3') of shape 3 does not "
                              "broadcast with 2x3x4");
   free(cause);
   Graph_done(&g);
}

static void preluBeforeOpset7TakesASlopeAChannel(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 6);
   const float x[] = { -1, 2, -3, 4 }, slope[] = { 0.5f, 0.25f };
   int in[2] = { addTensor(&g, "x", GT_FLOAT, 3, (int64_t[]){ 1, 2, 2 }, x),
                 addTensor(&g, "slope", GT_FLOAT, 1, (int64_t[]){ 2 }, slope) };
   int p = addNode(&g, "prelu", "PRelu", 2, in, 1);
   run(&g, p);
   assertValues(outT(&g, p, 0), (double[]){ -0.5, 2, -0.75, 4 }, 4);
   Graph_done(&g);
}

static void legacyAttributeForms(void **state) {
   (void)state;
   Graph g;
   initGraph(&g, 1);
   const float x[] = { 1.5f, -2.5f, 3, 4, 5, 6 };
   int xi = addTensor(&g, "x", GT_FLOAT, 2, (int64_t[]){ 2, 3 }, x);
   /* Cast-1: 'to' a type's name */
   int cast = addNode(&g, "cast", "Cast", 1, &xi, 1);
   TestUtil_attrString(&g, cast, "to", "INT32");
   run(&g, cast);
   assertShape(outT(&g, cast, 0), GT_INT32, 2, (int64_t[]){ 2, 3 });
   assertInts(outT(&g, cast, 0), (int64_t[]){ 1, -2, 3, 4, 5, 6 }, 6);
   int bad = addNode(&g, "bad", "Cast", 1, &xi, 1);
   TestUtil_attrString(&g, bad, "to", "STRING");
   char *cause = refusal(&g, bad);
   assert_string_equal(cause, "test.onnx: node 'bad' (Cast, opset 1): to 'STRING' is not supported (FLOAT, "
                              "UINT8, INT8, UINT16, INT16, INT32, INT64, BOOL, FLOAT16, DOUBLE, UINT32, UINT64)");
   free(cause);
   /* Reshape-1: the shape as an attribute */
   int reshape = addNode(&g, "reshape", "Reshape", 1, &xi, 1);
   TestUtil_attrInts(&g, reshape, "shape", 2, (int64_t[]){ 3, -1 });
   TestUtil_attrInts(&g, reshape, "consumed_inputs", 1, (int64_t[]){ 0 });
   run(&g, reshape);
   assertShape(outT(&g, reshape, 0), GT_FLOAT, 2, (int64_t[]){ 3, 2 });
   /* Concat-1: axis 1 when absent */
   int pair[2] = { xi, xi };
   int concat = addNode(&g, "concat", "Concat", 2, pair, 1);
   run(&g, concat);
   assertShape(outT(&g, concat, 0), GT_FLOAT, 2, (int64_t[]){ 2, 6 });
   assertValues(outT(&g, concat, 0), (double[]){ 1.5, -2.5, 3, 1.5, -2.5, 3, 4, 5, 6, 4, 5, 6 }, 12);
   /* Pad-1: 'paddings' */
   int pad = addNode(&g, "pad", "Pad", 1, &xi, 1);
   TestUtil_attrInts(&g, pad, "paddings", 4, (int64_t[]){ 0, 1, 0, 0 });
   TestUtil_attrFloat(&g, pad, "value", 9);
   run(&g, pad);
   assertValues(outT(&g, pad, 0), (double[]){ 9, 1.5, -2.5, 3, 9, 4, 5, 6 }, 8);
   /* Split-1: the sizes as input 1 */
   int splitIn[2] = { xi, addTensor(&g, "sizes", GT_INT64, 1, (int64_t[]){ 2 }, (int64_t[]){ 1, 2 }) };
   int split = addNode(&g, "split", "Split", 2, splitIn, 2);
   TestUtil_attrInt(&g, split, "axis", 1);
   run(&g, split);
   assertValues(outT(&g, split, 0), (double[]){ 1.5, 4 }, 2);
   assertValues(outT(&g, split, 1), (double[]){ -2.5, 3, 5, 6 }, 4);
   /* Tile-1: one axis, count and axis as scalars of the input's type */
   int tileIn[3] = { xi, addTensor(&g, "tiles", GT_FLOAT, 0, NULL, (float[]){ 2 }),
                     addTensor(&g, "axis", GT_FLOAT, 0, NULL, (float[]){ 0 }) };
   int tile = addNode(&g, "tile", "Tile", 3, tileIn, 1);
   run(&g, tile);
   assertShape(outT(&g, tile, 0), GT_FLOAT, 2, (int64_t[]){ 4, 3 });
   assertValues(outT(&g, tile, 0), (double[]){ 1.5, -2.5, 3, 4, 5, 6, 1.5, -2.5, 3, 4, 5, 6 }, 12);
   /* Selu-1's defaults are the four-digit constants */
   int selu = addNode(&g, "selu", "Selu", 1, &xi, 1);
   run(&g, selu);
   const double gamma = (double)1.0507f, alpha = (double)1.6732f;
   assertValues(outT(&g, selu, 0),
                (double[]){ 1.5 * gamma, gamma * alpha * (exp(-2.5) - 1), 3 * gamma, 4 * gamma, 5 * gamma,
                            6 * gamma }, 6);
   /* Dropout-6: is_test 1 passes the input; the default, training, is refused */
   g.opset = 6;
   int drop = addNode(&g, "drop", "Dropout", 1, &xi, 2);
   TestUtil_attrInt(&g, drop, "is_test", 1);
   run(&g, drop);
   assertValues(outT(&g, drop, 0), (double[]){ 1.5, -2.5, 3, 4, 5, 6 }, 6);
   assertShape(outT(&g, drop, 1), GT_FLOAT, 2, (int64_t[]){ 2, 3 });
   int train = addNode(&g, "train", "Dropout", 1, &xi, 1);
   cause = refusal(&g, train);
   assert_string_equal(cause, "test.onnx: node 'train' (Dropout, opset 6): is_test 0 (training mode) is not "
                              "supported; set is_test 1");
   free(cause);
   Graph_done(&g);
}

static void rowsCoverTheOpsetsWithTheirAttributes(void **state) {
   (void)state;
   const char *ops[] = {
      "Relu", "LeakyRelu", "Clip", "Sigmoid", "HardSigmoid", "Erf", "Tanh", "Exp", "Log", "Neg", "Abs",
      "Reciprocal", "Sqrt", "Floor", "Ceil", "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum",
      "Mean", "Equal", "Less", "Greater", "Where", "Not", "Concat", "Split", "Slice", "Pad", "Reshape",
      "Flatten", "Transpose", "Squeeze", "Unsqueeze", "Gather", "Shape", "Cast", "Identity", "Dropout",
      "Expand", "ConstantOfShape", "Range", "Tile",
   };
   for (int opset = 11; opset <= 21; opset++)
      for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
         if (!GraphOp_find(ops[i], opset, NULL))
            fail_msg("no row for %s at opset %d", ops[i], opset);
   /* the operators of opset 1, from there on, with the legacy attributes to opset 6 */
   const char *first[] = {
      "Relu", "LeakyRelu", "Clip", "Sigmoid", "HardSigmoid", "Elu", "Selu", "Softplus", "Softsign", "Tanh",
      "Exp", "Log", "Neg", "Abs", "Reciprocal", "Sqrt", "Floor", "Ceil", "Not", "Add", "Sub", "Mul", "Div",
      "Pow", "PRelu", "Max", "Min", "Sum", "Mean", "Equal", "Less", "Greater", "And", "Or", "Xor", "Cast",
      "Identity", "Dropout", "Concat", "Split", "Slice", "Pad", "Reshape", "Flatten", "Transpose",
      "Squeeze", "Unsqueeze", "Gather", "Shape", "Tile",
   };
   for (int opset = 1; opset <= 21; opset++)
      for (size_t i = 0; i < sizeof first / sizeof first[0]; i++)
         if (!GraphOp_find(first[i], opset, NULL))
            fail_msg("no row for %s at opset %d", first[i], opset);
   const char *consumed[] = { "Relu", "Sigmoid", "Tanh", "Exp", "Neg", "Sqrt", "Add", "Mul", "Max", "Sum",
                              "Clip", "Dropout", "Reshape", "HardSigmoid", "Selu", "PRelu" };
   for (size_t i = 0; i < sizeof consumed / sizeof consumed[0]; i++) {
      if (!GraphOp_acceptsAttr(GraphOp_find(consumed[i], 1, NULL), "consumed_inputs"))
         fail_msg("%s-1 does not take consumed_inputs", consumed[i]);
      if (GraphOp_acceptsAttr(GraphOp_find(consumed[i], 7, NULL), "consumed_inputs"))
         fail_msg("%s-7 takes consumed_inputs", consumed[i]);
   }
   assert_true(GraphOp_acceptsAttr(GraphOp_find("Add", 6, NULL), "broadcast"));
   assert_true(GraphOp_acceptsAttr(GraphOp_find("Equal", 6, NULL), "axis"));
   assert_false(GraphOp_acceptsAttr(GraphOp_find("Add", 7, NULL), "broadcast"));
   assert_true(GraphOp_acceptsAttr(GraphOp_find("Dropout", 6, NULL), "is_test"));
   assert_false(GraphOp_acceptsAttr(GraphOp_find("Dropout", 7, NULL), "is_test"));
   assert_true(GraphOp_acceptsAttr(GraphOp_find("Pad", 1, NULL), "paddings"));
   assert_true(GraphOp_acceptsAttr(GraphOp_find("Reshape", 4, NULL), "shape"));
   assert_false(GraphOp_acceptsAttr(GraphOp_find("Reshape", 5, NULL), "shape"));
   assert_null(GraphOp_find("HardSwish", 13, NULL));
   assert_non_null(GraphOp_find("HardSwish", 14, NULL));
   assert_null(GraphOp_find("Gelu", 19, NULL));
   assert_true(GraphOp_acceptsAttr(GraphOp_find("Gelu", 20, NULL), "approximate"));
   assert_true(GraphOp_acceptsAttr(GraphOp_find("Split", 12, NULL), "split"));
   assert_false(GraphOp_acceptsAttr(GraphOp_find("Split", 13, NULL), "split"));
   assert_true(GraphOp_acceptsAttr(GraphOp_find("Split", 18, NULL), "num_outputs"));
   assert_false(GraphOp_acceptsAttr(GraphOp_find("Split", 17, NULL), "num_outputs"));
   assert_true(GraphOp_acceptsAttr(GraphOp_find("Slice", 9, NULL), "starts"));
   assert_false(GraphOp_acceptsAttr(GraphOp_find("Slice", 10, NULL), "starts"));
   assert_true(GraphOp_acceptsAttr(GraphOp_find("Clip", 10, NULL), "min"));
   assert_false(GraphOp_acceptsAttr(GraphOp_find("Clip", 11, NULL), "min"));
   assert_false(GraphOp_acceptsAttr(GraphOp_find("Reshape", 13, NULL), "allowzero"));
   assert_true(GraphOp_acceptsAttr(GraphOp_find("Reshape", 14, NULL), "allowzero"));
   assert_false(GraphOp_acceptsAttr(GraphOp_find("Shape", 14, NULL), "start"));
   assert_true(GraphOp_acceptsAttr(GraphOp_find("Shape", 15, NULL), "end"));
   assert_true(GraphOp_acceptsAttr(GraphOp_find("Dropout", 11, NULL), "ratio"));
   assert_true(GraphOp_acceptsAttr(GraphOp_find("Dropout", 12, NULL), "seed"));
   assert_true(GraphOp_acceptsAttr(GraphOp_find("Cast", 19, NULL), "saturate"));
   assert_false(GraphOp_acceptsAttr(GraphOp_find("Cast", 18, NULL), "saturate"));
   assert_int_equal(GraphOp_find("Shape", 13, NULL)->pattern, PAT_OPAQUE);
   assert_int_equal(GraphOp_find("Dropout", 13, NULL)->pattern, PAT_OPAQUE);
   assert_int_equal(GraphOp_find("Cast", 13, NULL)->pattern, PAT_ELEMWISE);
   assert_int_equal(GraphOp_find("Identity", 13, NULL)->pattern, PAT_ELEMWISE);
   assert_int_equal(GraphOp_find("Concat", 13, NULL)->pattern, PAT_INJECTIVE);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(addBroadcastsRowOverMatrix),
      cmocka_unit_test(integerArithmeticKeepsIntegerSemantics),
      cmocka_unit_test(powTakesAnExponentOfAnotherType),
      cmocka_unit_test(variadicOpsBroadcast),
      cmocka_unit_test(comparisonsWhereAndNotGiveBools),
      cmocka_unit_test(activationsMatchTheirFormulas),
      cmocka_unit_test(clipTakesBoundsAsAttributesThenInputs),
      cmocka_unit_test(castTruncatesFloatsToIntegers),
      cmocka_unit_test(dropoutPassesTheInputAndATrueMask),
      cmocka_unit_test(oldStyleBroadcastAlignsAtAxis),
      cmocka_unit_test(preluBeforeOpset7TakesASlopeAChannel),
      cmocka_unit_test(legacyAttributeForms),
      cmocka_unit_test(sliceWithNegativeStepAndClampedEnds),
      cmocka_unit_test(padReflectEdgeAndConstant),
      cmocka_unit_test(gatherAlongAxisOneWithANegativeIndex),
      cmocka_unit_test(reshapeCopiesZerosAndInfersMinusOne),
      cmocka_unit_test(flattenSqueezeUnsqueezeReshape),
      cmocka_unit_test(splitIntoUnequalAndEqualParts),
      cmocka_unit_test(concatAndTranspose),
      cmocka_unit_test(expandTileShapeConstantOfShapeRange),
      cmocka_unit_test(unsupportedTypesAndAttributesAreRefusedByName),
      cmocka_unit_test(padsPastInt32AreRefused),
      cmocka_unit_test(tileAndConstantOfShapePastTheCapAreRefused),
      cmocka_unit_test(rangeCountsAcrossTheWholeInt64),
      cmocka_unit_test(shapeProductsOfEmptyTensorsSaturate),
      cmocka_unit_test(splitAndExpandRefuseAbsurdSizes),
      cmocka_unit_test(foldingStopsAtItsBudget),
      cmocka_unit_test(elementsOfEmptyAndFloatTensors),
      cmocka_unit_test(newTensorsOfALongStemGetDistinctNames),
      cmocka_unit_test(rowsCoverTheOpsetsWithTheirAttributes),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
