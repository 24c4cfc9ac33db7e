/* The importer's mapping of a node onto the op library, held to the graph's own
 * evaluation: for ConvTranspose, Resize, Upsample and Concat nodes over a range of
 * attributes, the task Import_mapNode gives computes (by the op's C reference) what
 * the graph row computes (the reference that ONNX's backend tests check). */
#include "config.h"

#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/exec.h"
#include "graph/graph.h"
#include "graph/import.h"
#include "graph/ops.h"
#include "te/ref.h"
#include "util/xalloc.h"

/* A float32 tensor of random values in [-1, 1); a weight when `weight`. */
static int randomTensor(Graph *g, const char *name, int ndim, const int64_t *dims, uint64_t seed, bool weight) {
   int i = Graph_addTensor(g, name);
   GTensor *t = &g->t[i];
   GTensor_setShape(t, GT_FLOAT, ndim, dims);
   if (weight)
      t->role = GT_WEIGHT;
   TestUtil_fillRandom(GTensor_alloc(t), (size_t)GTensor_elems(t), seed, -1.0f, 1.0f);
   return i;
}

static int constFloats(Graph *g, const char *name, int count, const float *values) {
   int i = Graph_addTensor(g, name);
   GTensor *t = &g->t[i];
   GTensor_setShape(t, GT_FLOAT, 1, (int64_t[]){ count });
   t->role = GT_WEIGHT;
   float *data = GTensor_alloc(t);
   for (int k = 0; k < count; k++)
      data[k] = values[k];
   return i;
}

static int constInts(Graph *g, const char *name, int count, const int64_t *values) {
   int i = Graph_addTensor(g, name);
   GTensor *t = &g->t[i];
   GTensor_setShape(t, GT_INT64, 1, (int64_t[]){ count });
   t->role = GT_WEIGHT;
   memcpy(GTensor_alloc(t), values, sizeof(int64_t) * (size_t)count);
   return i;
}

static int node(Graph *g, const char *op, int opset, int nin, const int *in, int y) {
   g->opset = opset;
   const GraphOp *row = GraphOp_find(op, opset, NULL);
   assert_non_null(row);
   int ni = Graph_addNode(g, op, op, nin, in, 1, &y);
   g->n[ni].op = GraphOp_row(row);
   return ni;
}

/* Runs the node on the graph's reference, maps it, runs the task's reference on the
 * same inputs (the node's inputs in order, as the import passes them) and compares. */
static void checkNode(Graph *g, int ni, OpKind kind, const char *what) {
   GNode *n = &g->n[ni];
   const GraphOp *op = GraphOp_get(n->op);
   char *cause = NULL;
   if (op->infer(g, n, &cause) < 0 || op->eval(g, n, &cause) < 0)
      fail_msg("%s: the graph refused it: %s", what, cause);
   OpParams p;
   if (Import_mapNode(g, n, &p, &cause) < 0)
      fail_msg("%s: not mapped: %s", what, cause);
   assert_int_equal(p.kind, kind);
   const GTensor *y = &g->t[n->out[0]];
   assert_int_equal(Op_outputElems(&p), GTensor_elems(y));
   const float *inputs[OP_MAX_INPUTS];
   float *converted[OP_MAX_INPUTS];
   int nin = 0;
   for (int q = 0; q < n->nin; q++) {
      const GTensor *t = GNode_input(g, n, q);
      if (!t || t->dtype != GT_FLOAT || (kind == OP_RESIZE2D && q > 0))
         continue;   /* Resize's roi, scales and sizes are attributes of the task */
      float *buf = xMalloc(sizeof(float) * (size_t)(GTensor_elems(t) ? GTensor_elems(t) : 1));
      for (int64_t e = 0; e < GTensor_elems(t); e++)
         buf[e] = (float)GTensor_get(t, e);
      assert_int_equal(Op_inputElems(&p, nin), GTensor_elems(t));
      converted[nin] = buf;
      inputs[nin++] = buf;
   }
   assert_int_equal(nin, Op_numInputs(&p));
   int64_t total = GTensor_elems(y);
   float *got = xMalloc(sizeof(float) * (size_t)total), *want = xMalloc(sizeof(float) * (size_t)total);
   Ref_run(&p, inputs, got);
   for (int64_t e = 0; e < total; e++)
      want[e] = (float)GTensor_get(y, e);
   for (int64_t e = 0; e < total; e++)
      if (!(fabs((double)got[e] - want[e]) <= 1e-5 + 1e-5 * fabs(want[e])))
         fail_msg("%s: element %lld: the task computes %.9g, the graph %.9g", what, (long long)e, got[e], want[e]);
   for (int i = 0; i < nin; i++)
      free(converted[i]);
   free(got);
   free(want);
}

typedef struct {
   const char *name;
   int64_t x[4], w[4];
   int group;
   int64_t strides[2], pads[4], dilations[2], outputPadding[2], outputShape[2];
   const char *autoPad;
   bool bias;
} TransposeCase;

static void convTransposeEqualsGraph(void **state) {
   (void)state;
   static const TransposeCase cases[] = {
      { "stride 2, pad 1", { 1, 6, 5, 5 }, { 6, 4, 4, 4 }, 1, { 2, 2 }, { 1, 1, 1, 1 }, { 1, 1 }, { 0, 0 }, { 0, 0 }, NULL, true },
      { "grouped, asymmetric pads, output_padding", { 2, 4, 5, 6 }, { 4, 3, 3, 3 }, 2, { 2, 2 }, { 1, 0, 1, 1 }, { 1, 1 },
        { 1, 1 }, { 0, 0 }, NULL, false },
      { "dilated, stride 1x3", { 1, 3, 4, 4 }, { 3, 2, 3, 2 }, 1, { 1, 3 }, { 2, 0, 1, 1 }, { 2, 1 }, { 0, 2 }, { 0, 0 },
        NULL, true },
      { "depthwise", { 1, 8, 6, 6 }, { 8, 1, 4, 4 }, 8, { 2, 2 }, { 1, 1, 1, 1 }, { 1, 1 }, { 0, 0 }, { 0, 0 }, NULL,
        true },
      { "output_shape inside the full output", { 1, 4, 7, 7 }, { 4, 2, 3, 3 }, 1, { 2, 2 }, { 0, 0, 0, 0 }, { 1, 1 },
        { 0, 0 }, { 14, 13 }, NULL, false },
      { "output_shape past the full output", { 1, 4, 7, 7 }, { 4, 2, 3, 3 }, 1, { 2, 2 }, { 0, 0, 0, 0 }, { 1, 1 },
        { 0, 0 }, { 16, 16 }, NULL, false },
      { "SAME_UPPER", { 1, 4, 5, 5 }, { 4, 2, 3, 3 }, 1, { 2, 2 }, { 0, 0, 0, 0 }, { 1, 1 }, { 0, 0 }, { 0, 0 },
        "SAME_UPPER", true },
      { "SAME_LOWER", { 1, 4, 5, 5 }, { 4, 2, 4, 4 }, 1, { 2, 2 }, { 0, 0, 0, 0 }, { 1, 1 }, { 0, 0 }, { 0, 0 },
        "SAME_LOWER", false },
   };
   for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      const TransposeCase *k = &cases[c];
      Graph g;
      Graph_init(&g, "t.onnx");
      int in[3] = {
         randomTensor(&g, "x", 4, k->x, 100 + c, false),
         randomTensor(&g, "w", 4, k->w, 200 + c, true),
         -1,
      };
      if (k->bias)
         in[2] = randomTensor(&g, "b", 1, (int64_t[]){ k->w[1] * k->group }, 300 + c, true);
      int ni = node(&g, "ConvTranspose", 13, k->bias ? 3 : 2, in, Graph_addTensor(&g, "y"));
      TestUtil_attrInt(&g, ni, "group", k->group);
      TestUtil_attrInts(&g, ni, "strides", 2, k->strides);
      TestUtil_attrInts(&g, ni, "dilations", 2, k->dilations);
      TestUtil_attrInts(&g, ni, "output_padding", 2, k->outputPadding);
      if (k->outputShape[0])
         TestUtil_attrInts(&g, ni, "output_shape", 2, k->outputShape);
      else if (k->autoPad)
         TestUtil_attrString(&g, ni, "auto_pad", k->autoPad);
      else
         TestUtil_attrInts(&g, ni, "pads", 4, k->pads);
      checkNode(&g, ni, OP_CONV2D_TRANSPOSE, k->name);
      Graph_done(&g);
   }
}

typedef struct {
   const char *mode, *coord, *nearest;
   float scales[2];        /* H, W; 0: sizes instead */
   int64_t sizes[2];
} ResizeCase;

static void resizeEqualsGraph(void **state) {
   (void)state;
   static const char *const coords[] = { "half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric" };
   static const char *const nearests[] = { "round_prefer_floor", "round_prefer_ceil", "floor", "ceil" };
   /* up by 2 x 3, down by 0.75 (not out / in: 0.75 of 5 is 3), up by 1.5 x 2.5, and
    * sizes; scales exact in float32, where the graph's double arithmetic and the task's
    * fractions round alike */
   static const float scales[][2] = { { 2, 3 }, { 0.75f, 0.75f }, { 1.5f, 2.5f }, { 0, 0 } };
   int count = 0;
   for (int mode = 0; mode < 2; mode++)
      for (int c = 0; c < 4; c++)
         for (int r = 0; r < (mode ? 1 : 4); r++)
            for (int s = 0; s < 4; s++) {
               /* align_corners and pytorch_half_pixel take a scale only as out / in */
               bool exact = s == 0 || s == 3;
               if ((c == 1 || c == 2) && !exact)
                  continue;
               Graph g;
               Graph_init(&g, "t.onnx");
               int x = randomTensor(&g, "x", 4, (int64_t[]){ 2, 3, 5, 4 }, 400 + (uint64_t)count, false);
               int roi = constFloats(&g, "roi", 0, NULL);
               int in[4] = { x, roi, -1, -1 };
               int nin;
               if (scales[s][0] > 0) {
                  in[2] = constFloats(&g, "scales", 4, (float[]){ 1, 1, scales[s][0], scales[s][1] });
                  nin = 3;
               } else {
                  in[2] = constFloats(&g, "scales", 0, NULL);
                  in[3] = constInts(&g, "sizes", 4, (int64_t[]){ 2, 3, 7, 9 });
                  nin = 4;
               }
               int ni = node(&g, "Resize", 13, nin, in, Graph_addTensor(&g, "y"));
               TestUtil_attrString(&g, ni, "mode", mode ? "linear" : "nearest");
               TestUtil_attrString(&g, ni, "coordinate_transformation_mode", coords[c]);
               TestUtil_attrString(&g, ni, "nearest_mode", nearests[r]);
               char what[160];
               snprintf(what, sizeof what, "Resize %s %s %s, scales %g x %g", mode ? "linear" : "nearest", coords[c],
                        nearests[r], scales[s][0], scales[s][1]);
               checkNode(&g, ni, OP_RESIZE2D, what);
               Graph_done(&g);
               count++;
            }
   /* half_pixel and asymmetric: 4 scales, the others 2; nearest 4 roundings, linear 1 */
   assert_int_equal(count, (4 + 1) * (4 + 2 + 2 + 4));
   /* Upsample (opset 9) and Resize-10: asymmetric, floor when enlarging */
   for (int mode = 0; mode < 2; mode++)
      for (int v = 9; v <= 10; v++) {
         Graph g;
         Graph_init(&g, "t.onnx");
         int in[2] = {
            randomTensor(&g, "x", 4, (int64_t[]){ 1, 2, 3, 5 }, 500 + (uint64_t)(mode * 2 + v), false),
            constFloats(&g, "scales", 4, (float[]){ 1, 1, 2, 3 }),
         };
         int ni = node(&g, v == 9 ? "Upsample" : "Resize", v, 2, in, Graph_addTensor(&g, "y"));
         TestUtil_attrString(&g, ni, "mode", mode ? "linear" : "nearest");
         checkNode(&g, ni, OP_RESIZE2D, v == 9 ? "Upsample-9" : "Resize-10");
         Graph_done(&g);
      }
}

static void concatEqualsGraph(void **state) {
   (void)state;
   for (int axis = -3; axis < 3; axis++) {
      Graph g;
      Graph_init(&g, "t.onnx");
      int a = axis < 0 ? axis + 3 : axis;
      int64_t da[3] = { 2, 3, 4 }, db[3] = { 2, 3, 4 }, dc[3] = { 2, 3, 4 };
      da[a] = 1, db[a] = 5, dc[a] = 2;
      int in[3] = {
         randomTensor(&g, "a", 3, da, 600 + (uint64_t)a, false),
         randomTensor(&g, "b", 3, db, 610 + (uint64_t)a, false),
         randomTensor(&g, "c", 3, dc, 620 + (uint64_t)a, true),
      };
      int ni = node(&g, "Concat", 13, 3, in, Graph_addTensor(&g, "y"));
      TestUtil_attrInt(&g, ni, "axis", axis);
      char what[32];
      snprintf(what, sizeof what, "Concat axis %d", axis);
      checkNode(&g, ni, OP_CONCAT, what);
      Graph_done(&g);
   }
}

static void refusalsNameTheNode(void **state) {
   (void)state;
   Graph g;
   Graph_init(&g, "t.onnx");
   int in[3] = {
      randomTensor(&g, "x", 4, (int64_t[]){ 1, 2, 3, 3 }, 700, false),
      constFloats(&g, "roi", 0, NULL),
      constFloats(&g, "scales", 4, (float[]){ 1, 1, 2, 2 }),
   };
   int ni = node(&g, "Resize", 13, 3, in, Graph_addTensor(&g, "y"));
   TestUtil_attrString(&g, ni, "mode", "cubic");
   char *cause = NULL;
   GNode *n = &g.n[ni];
   assert_int_equal(GraphOp_get(n->op)->infer(&g, n, &cause), 0);
   OpParams p;
   assert_int_equal(Import_mapNode(&g, n, &p, &cause), -1);
   assert_string_equal(cause, "node 'Resize' (Resize): mode 'cubic'; resize2d is nearest or linear");
   free(cause);
   Graph_done(&g);
   Graph_init(&g, "t.onnx");
   in[0] = randomTensor(&g, "x", 4, (int64_t[]){ 1, 2, 3, 3 }, 700, false);
   in[1] = constFloats(&g, "roi", 0, NULL);
   in[2] = constFloats(&g, "scales", 4, (float[]){ 1, 1, 2, 2 });
   ni = node(&g, "Resize", 13, 3, in, Graph_addTensor(&g, "y"));
   TestUtil_attrString(&g, ni, "coordinate_transformation_mode", "tf_half_pixel_for_nn");
   n = &g.n[ni];
   assert_int_equal(GraphOp_get(n->op)->infer(&g, n, &cause), 0);
   assert_int_equal(Import_mapNode(&g, n, &p, &cause), -1);
   assert_string_equal(cause, "node 'Resize' (Resize): coordinate_transformation_mode 'tf_half_pixel_for_nn'; "
                              "resize2d takes half_pixel, pytorch_half_pixel, align_corners and asymmetric");
   free(cause);
   Graph_done(&g);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(convTransposeEqualsGraph),
      cmocka_unit_test(resizeEqualsGraph),
      cmocka_unit_test(concatEqualsGraph),
      cmocka_unit_test(refusalsNameTheNode),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
