/* ONNX model to tuning tasks: the passes, FuseOps, and each fused group's anchor and
 * epilogue mapped onto an op of the op library. */
#include "config.h"

#include "graph/import.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "graph/exec.h"
#include "graph/fuse.h"
#include "graph/ops.h"
#include "util/xalloc.h"

#define LABEL_MAX 63

void ImportSummary_done(ImportSummary *s) {
   free(s->unmapped);
   s->unmapped = NULL;
}

bool Import_isOnnx(const char *path) {
   size_t n = strlen(path);
   return n > 5 && strcmp(path + n - 5, ".onnx") == 0;
}

/* ---- a group's anchor onto an op ---- */

typedef struct {
   const Graph *g;
   char *reason;          /* why a group maps to no task */
   int64_t batch;         /* the first input's leading dimension: the network's batch */
   uint64_t transposed;   /* the op inputs read with their last two axes swapped */
} Mapper;

static bool refuse(Mapper *m, const GNode *n, const char *fmt, ...) ATTR_FORMAT(3, 4);

static bool refuse(Mapper *m, const GNode *n, const char *fmt, ...) {
   va_list ap;
   va_start(ap, fmt);
   char *msg = xVasprintf(fmt, ap);
   va_end(ap);
   free(m->reason);
   m->reason = xAsprintf("node '%s' (%s): %s", n->name, n->opType, msg);
   free(msg);
   return false;
}

/* refuse with a reason another layer made (freed here). */
static bool refuseWith(Mapper *m, const GNode *n, char *why) {
   refuse(m, n, "%s", why);
   free(why);
   return false;
}

/* Op_finish of the op node n maps to: false, refused with its reason, when the op
 * library will not take the parameters. */
static bool finishOp(Mapper *m, const GNode *n, OpParams *p) {
   const char *field = NULL;
   char *why = NULL;
   return Op_finish(p, &field, &why) == 0 || refuseWith(m, n, why);
}

/* Saturating: an empty tensor's other dimensions may multiply past int64 (Op_finish
 * then refuses the size). */
static int64_t prodDims(const GTensor *t, int from, int to) {
   int64_t p = 1;
   for (int i = from; i < to; i++)
      p = Graph_mulDims(p, t->dims[i]);
   return p;
}

/* Pads of a 2-D window op, [top, left, bottom, right], from auto_pad or pads. */
static bool windowPads(Mapper *m, const GNode *n, const GTensor *x, const int64_t *k, const int64_t *s,
                       const int64_t *d, int64_t *pads) {
   const char *autoPad = GNode_attrString(n, "auto_pad", "NOTSET");
   memset(pads, 0, 4 * sizeof *pads);
   if (strcmp(autoPad, "SAME_UPPER") == 0 || strcmp(autoPad, "SAME_LOWER") == 0) {
      for (int a = 0; a < 2; a++) {
         int64_t in = x->dims[2 + a], dk = (k[a] - 1) * d[a] + 1;
         int64_t out = (in + s[a] - 1) / s[a];
         int64_t total = (out - 1) * s[a] + dk - in;
         if (total < 0)
            total = 0;
         int64_t small = total / 2, big = total - small;
         bool upper = strcmp(autoPad, "SAME_UPPER") == 0;
         pads[a] = upper ? small : big;
         pads[2 + a] = upper ? big : small;
      }
      return true;
   }
   if (strcmp(autoPad, "VALID") == 0)
      return true;
   if (strcmp(autoPad, "NOTSET") != 0)
      return refuse(m, n, "auto_pad '%s'", autoPad);
   int np;
   const int64_t *p = GNode_attrInts(n, "pads", &np);
   if (p && np != 4)
      return refuse(m, n, "%d pads for 2 spatial axes", np);
   for (int i = 0; p && i < 4; i++)
      pads[i] = p[i];
   return true;
}

static bool pair(const GNode *n, const char *name, int64_t def, int64_t *v) {
   int c;
   const int64_t *a = GNode_attrInts(n, name, &c);
   if (!a) {
      v[0] = v[1] = def;
      return true;
   }
   if (c != 2)
      return false;
   v[0] = a[0];
   v[1] = a[1];
   return true;
}

/* Op `kind` over the N x C x H x W input x. */
static void nchwOp(OpParams *p, OpKind kind, const GTensor *x) {
   Op_defaults(p, kind);
   p->batch = x->dims[0];
   p->in_c = x->dims[1];
   p->in_h = x->dims[2];
   p->in_w = x->dims[3];
}

/* A convolution's own bias input, as its first epilogue stage. */
static void convBias(const Mapper *m, const GNode *n, OpParams *p) {
   if (GNode_input(m->g, n, 2)) {
      p->epilogue[0].kind = EPI_BIAS;
      p->nepilogue = 1;
   }
}

static bool mapConv(Mapper *m, const GNode *n, OpParams *p) {
   const GTensor *x = GNode_input(m->g, n, 0), *w = GNode_input(m->g, n, 1);
   if (x->ndim != 4)
      return refuse(m, n, "a convolution over %d spatial axes; the op library has conv2d only", x->ndim - 2);
   int64_t k[2] = { w->dims[2], w->dims[3] }, s[2], d[2], pads[4];
   if (!pair(n, "strides", 1, s) || !pair(n, "dilations", 1, d))
      return refuse(m, n, "strides or dilations not of 2 values");
   if (!windowPads(m, n, x, k, s, d, pads))
      return false;
   nchwOp(p, OP_CONV2D, x);
   p->out_c = w->dims[0];
   p->kernel_h = k[0], p->kernel_w = k[1];
   p->stride_h = s[0], p->stride_w = s[1];
   p->dilation_h = d[0], p->dilation_w = d[1];
   p->pad_top = pads[0], p->pad_left = pads[1], p->pad_bottom = pads[2], p->pad_right = pads[3];
   p->groups = GNode_attrInt(n, "group", 1);
   convBias(m, n, p);
   return true;
}

static bool mapConvTranspose(Mapper *m, const GNode *n, OpParams *p) {
   const GTensor *x = GNode_input(m->g, n, 0), *w = GNode_input(m->g, n, 1);
   if (x->ndim != 4)
      return refuse(m, n, "a transposed convolution over %d spatial axes; the op library has conv2d_transpose only",
                    x->ndim - 2);
   ConvTransposeWindow win;
   char *why = NULL;
   if (Graph_convTransposeWindow(m->g, n, &win, &why) < 0)
      return refuseWith(m, n, why);
   nchwOp(p, OP_CONV2D_TRANSPOSE, x);
   p->groups = GNode_attrInt(n, "group", 1);
   p->out_c = w->dims[1] * p->groups;
   p->kernel_h = w->dims[2], p->kernel_w = w->dims[3];
   p->stride_h = win.stride[0], p->stride_w = win.stride[1];
   p->dilation_h = win.dilation[0], p->dilation_w = win.dilation[1];
   int64_t pad[2][2], outPad[2];
   for (int a = 0; a < 2; a++) {
      /* an output_shape past the full output is padding at the end: output padding */
      pad[a][0] = win.padBegin[a];
      pad[a][1] = win.padEnd[a] < 0 ? 0 : win.padEnd[a];
      outPad[a] = win.outputPad[a] + (win.padEnd[a] < 0 ? -win.padEnd[a] : 0);
      if (pad[a][0] < 0)
         return refuse(m, n, "an output that starts before the full output (pad %lld)", (long long)pad[a][0]);
   }
   p->pad_top = pad[0][0], p->pad_bottom = pad[0][1], p->pad_left = pad[1][0], p->pad_right = pad[1][1];
   p->output_pad_h = outPad[0], p->output_pad_w = outPad[1];
   convBias(m, n, p);
   return true;
}

static bool mapMatMul(Mapper *m, const GNode *n, OpParams *p) {
   const GTensor *a = GNode_input(m->g, n, 0), *b = GNode_input(m->g, n, 1);
   if (a->ndim < 1 || b->ndim < 1)
      return refuse(m, n, "a scalar operand");
   int64_t kA = a->dims[a->ndim - 1];
   /* dense and batch_matmul read B as [n, k]: a MatMul's [k, n] transposed */
   if (b->ndim <= 2) {
      Op_defaults(p, OP_DENSE);
      p->k = kA;
      p->n = b->ndim == 2 ? b->dims[1] : 1;
      p->m = kA ? GTensor_elems(a) / kA : 0;
      if (b->ndim == 2)
         m->transposed |= 2;
      return true;
   }
   if (a->ndim != b->ndim)
      return refuse(m, n, "batch dimensions broadcast (%d-D by %d-D); batch_matmul takes equal batches",
                    a->ndim, b->ndim);
   for (int i = 0; i < a->ndim - 2; i++)
      if (a->dims[i] != b->dims[i])
         return refuse(m, n, "batch dimension %d broadcasts (%lld against %lld); batch_matmul takes equal "
                       "batches", i, (long long)a->dims[i], (long long)b->dims[i]);
   Op_defaults(p, OP_BATCH_MATMUL);
   p->b = prodDims(a, 0, a->ndim - 2);
   p->m = a->dims[a->ndim - 2];
   p->k = kA;
   p->n = b->dims[b->ndim - 1];
   m->transposed |= 2;
   return true;
}

static bool mapGemm(Mapper *m, const GNode *n, OpParams *p) {
   const GTensor *a = GNode_input(m->g, n, 0), *b = GNode_input(m->g, n, 1), *c = GNode_input(m->g, n, 2);
   if (GNode_attrFloat(n, "alpha", 1.0) != 1.0 || (c && GNode_attrFloat(n, "beta", 1.0) != 1.0))
      return refuse(m, n, "alpha or beta other than 1; dense has no scale");
   bool ta = GNode_attrInt(n, "transA", 0) != 0, tb = GNode_attrInt(n, "transB", 0) != 0;
   Op_defaults(p, OP_DENSE);
   p->m = a->dims[ta ? 1 : 0];
   p->k = a->dims[ta ? 0 : 1];
   p->n = b->dims[tb ? 0 : 1];
   m->transposed |= (ta ? 1u : 0u) | (tb ? 0u : 2u);
   if (c) {
      int64_t ce = GTensor_elems(c);
      if (ce == p->n && c->dims[c->ndim - 1] == p->n)
         p->epilogue[0].kind = EPI_BIAS;
      else if (ce == p->m * p->n)
         p->epilogue[0].kind = EPI_ADD;
      else
         return refuse(m, n, "C of %lld elements broadcast over [%lld, %lld]", (long long)ce, (long long)p->m,
                       (long long)p->n);
      p->nepilogue = 1;
   }
   return true;
}

static bool mapPool(Mapper *m, const GNode *n, OpParams *p, bool isMax) {
   const GTensor *x = GNode_input(m->g, n, 0), *y = GNode_output(m->g, n, 0);
   if (x->ndim != 4)
      return refuse(m, n, "pooling over %d spatial axes; the op library pools 2-D", x->ndim - 2);
   int64_t k[2], s[2], d[2], pads[4];
   if (!pair(n, "kernel_shape", 1, k) || !pair(n, "strides", 1, s) || !pair(n, "dilations", 1, d))
      return refuse(m, n, "kernel_shape, strides or dilations not of 2 values");
   if (d[0] != 1 || d[1] != 1)
      return refuse(m, n, "dilated pooling; the op library's pools are not dilated");
   if (GNode_attrInt(n, "storage_order", 0) != 0)
      return refuse(m, n, "storage_order 1");
   if (!windowPads(m, n, x, k, s, d, pads))
      return false;
   bool include = GNode_attrInt(n, "count_include_pad", 0) != 0;
   nchwOp(p, isMax ? OP_MAX_POOL2D : OP_AVG_POOL2D, x);
   p->out_c = x->dims[1];
   p->kernel_h = k[0], p->kernel_w = k[1];
   p->stride_h = s[0], p->stride_w = s[1];
   p->pad_top = pads[0], p->pad_left = pads[1], p->pad_bottom = pads[2], p->pad_right = pads[3];
   p->count_include_pad = isMax ? true : include;
   /* ceil_mode: the output inferred is one longer; the far pads grow to give it */
   for (int a = 0; a < 2; a++) {
      int64_t in = x->dims[2 + a], out = y->dims[2 + a];
      int64_t floorOut = (in + pads[a] + pads[2 + a] - k[a]) / s[a] + 1;
      if (out != floorOut) {
         if (!isMax && include)
            return refuse(m, n, "ceil_mode with count_include_pad; the op library counts its own pads only");
         int64_t need = (out - 1) * s[a] + k[a] - in - pads[a];
         if (a == 0)
            p->pad_bottom = need;
         else
            p->pad_right = need;
      }
   }
   return true;
}

/* Softmax and layer_norm normalize the last axis of rows that the other axes only
 * count: [64, 1, 256] (a sequence-first tensor) and [1, 64, 256] are one workload. The
 * shape is written as the task files write it: the batch, then the per-sample axes
 * other than 1s, then the normalized axis. */
static void canonicalRows(OpParams *p, int64_t batch) {
   int64_t kept[TE_MAX_DIMS];
   int n = 0;
   for (int i = 0; i < p->ndim; i++)
      if (p->shape[i] != 1 || i == p->ndim - 1)
         kept[n++] = p->shape[i];
   int64_t lead = n > 1 ? kept[0] : 1;
   int from = n > 1 ? 1 : 0;
   if (batch < 1 || lead % batch != 0)
      batch = 1;
   p->ndim = 0;
   p->shape[p->ndim++] = batch;
   if (lead / batch != 1)
      p->shape[p->ndim++] = lead / batch;
   for (int i = from; i < n && p->ndim < TE_MAX_DIMS; i++)
      p->shape[p->ndim++] = kept[i];
}

static bool mapLastAxisOp(Mapper *m, const GNode *n, OpParams *p, OpKind kind) {
   const GTensor *x = GNode_input(m->g, n, 0);
   int64_t axis = GNode_attrInt(n, "axis", kind == OP_SOFTMAX && m->g->opset < 13 ? 1 : -1);
   if (axis < 0)
      axis += x->ndim;
   Op_defaults(p, kind);
   if (axis == x->ndim - 1 || (kind == OP_SOFTMAX && m->g->opset < 13)) {
      if (kind == OP_SOFTMAX && m->g->opset < 13 && axis != x->ndim - 1) {
         /* opsets 1 to 12 normalize over the flattened axes from `axis` on */
         p->ndim = 2;
         p->shape[0] = prodDims(x, 0, (int)axis);
         p->shape[1] = prodDims(x, (int)axis, x->ndim);
         canonicalRows(p, m->batch);
         return true;
      }
      if (x->ndim > TE_MAX_DIMS)
         return refuse(m, n, "%d dimensions; at most %d", x->ndim, TE_MAX_DIMS);
      p->ndim = x->ndim;
      for (int i = 0; i < x->ndim; i++)
         p->shape[i] = x->dims[i];
      canonicalRows(p, m->batch);
      if (kind == OP_LAYER_NORM) {
         p->epsilon = GNode_attrFloat(n, "epsilon", 1e-5);
         if (!GNode_input(m->g, n, 1) || !GNode_input(m->g, n, 2))
            return refuse(m, n, "a LayerNormalization without scale and bias; layer_norm reads both");
      }
      return true;
   }
   return refuse(m, n, "normalizes axis %lld of %d; the op library's %s takes the last axis", (long long)axis,
                 x->ndim, Op_name(kind));
}

/* The anchor (a complex op) onto an op of the library, its own epilogue (Conv's and
 * Gemm's bias) included. */
static bool mapAnchor(Mapper *m, const GNode *n, OpParams *p) {
   const GTensor *x = GNode_input(m->g, n, 0);
   if (!x || x->dtype != GT_FLOAT)
      return refuse(m, n, "%s input; tasks are float32", x ? GType_name(x->dtype) : "no");
   const char *t = n->opType;
   if (strcmp(t, "Conv") == 0)
      return mapConv(m, n, p);
   if (strcmp(t, "ConvTranspose") == 0)
      return mapConvTranspose(m, n, p);
   if (strcmp(t, "MatMul") == 0)
      return mapMatMul(m, n, p);
   if (strcmp(t, "Gemm") == 0)
      return mapGemm(m, n, p);
   if (strcmp(t, "MaxPool") == 0)
      return mapPool(m, n, p, true);
   if (strcmp(t, "AveragePool") == 0)
      return mapPool(m, n, p, false);
   if (strcmp(t, "GlobalAveragePool") == 0) {
      if (x->ndim != 4)
         return refuse(m, n, "pooling over %d spatial axes; the op library pools 2-D", x->ndim - 2);
      /* the op library builds global_avg_pool2d and adaptive_avg_pool2d to 1x1 from one
       * DAG; the task files and the shipped checkpoints know the pool of a PyTorch model
       * (TVM's PyTorch frontend) as the latter, so a model's pool is named as they name it */
      nchwOp(p, OP_ADAPTIVE_AVG_POOL2D, x);
      p->out_c = x->dims[1];
      p->out_h = p->out_w = 1;
      return true;
   }
   if (strcmp(t, "Softmax") == 0)
      return mapLastAxisOp(m, n, p, OP_SOFTMAX);
   if (strcmp(t, "LayerNormalization") == 0)
      return mapLastAxisOp(m, n, p, OP_LAYER_NORM);
   return refuse(m, n, "the op library has no task op for %s", t);
}

static bool constantOf(const Graph *g, int t, double *v) {
   if (t < 0 || !g->t[t].data || GTensor_elems(&g->t[t]) != 1)
      return false;
   *v = GTensor_get(&g->t[t], 0);
   return true;
}

/* Whether node n's input tensor `other` is a constant per channel of the anchor's
 * output y (n's other input): C values along the channel axis (NCHW: axis 1; matrix
 * products: the last), lined up with y's axes as n broadcasts it: numpy's trailing
 * alignment, or before opset 7 broadcast 1's from `axis` (a [C] bias with axis 1 after
 * a Conv). */
static bool isChannelBias(const Graph *g, const GNode *n, int other, const GTensor *y, const OpParams *p) {
   const GTensor *c = &g->t[other];
   if (!c->data || c->ndim > y->ndim)
      return false;
   int ndim = c->ndim;
   const int64_t *dims = c->dims;
   int64_t padded[GRAPH_MAX_DIMS];
   if (n->nin == 2 && n->in[1] == other && GraphOp_paddedInput1(g, n, padded)) {
      ndim = y->ndim;
      dims = padded;
   }
   /* the op's channel axis: 1 (NCHW), or its last, which is the tensor's last too
    * when a matrix product's rows are several axes of the tensor */
   int64_t os[TE_MAX_DIMS];
   int axis = Op_channelAxis(p) == Op_outputShape(p, os) - 1 ? y->ndim - 1 : Op_channelAxis(p);
   int off = y->ndim - ndim;
   for (int i = 0; i < ndim; i++) {
      int ya = i + off;
      if (ya == axis ? dims[i] != y->dims[ya] : dims[i] != 1)
         return false;
   }
   return ndim > axis - off && axis - off >= 0;
}

/* Whether two shapes are equal once leading 1s are dropped. */
static bool sameDims(const GTensor *a, const GTensor *b) {
   int ia = 0, ib = 0;
   while (ia < a->ndim && a->dims[ia] == 1 && a->ndim - ia > b->ndim)
      ia++;
   while (ib < b->ndim && b->dims[ib] == 1 && b->ndim - ib > a->ndim)
      ib++;
   if (a->ndim - ia != b->ndim - ib)
      return false;
   for (; ia < a->ndim; ia++, ib++)
      if (a->dims[ia] != b->dims[ib])
         return false;
   return true;
}

/* One more node of the group as an epilogue stage of p, reading the chain's value cur. */
static bool mapEpilogue(Mapper *m, const GNode *n, int cur, OpParams *p) {
   const Graph *g = m->g;
   if (p->nepilogue == OP_MAX_EPILOGUE)
      return refuse(m, n, "more than %d fused stages", OP_MAX_EPILOGUE);
   Epilogue e;
   memset(&e, 0, sizeof e);
   const char *t = n->opType;
   const GTensor *y = &g->t[cur];
   int other = n->nin == 2 ? (n->in[0] == cur ? n->in[1] : n->in[0]) : -1;
   if (other == cur && other >= 0)
      return refuse(m, n, "%s of the chain's value with itself", t);
   const GTensor *o = other >= 0 ? &g->t[other] : NULL;
   if (strcmp(t, "Add") == 0 && o) {
      bool hasBias = false;
      for (int i = 0; i < p->nepilogue; i++)
         hasBias |= p->epilogue[i].kind == EPI_BIAS;
      if (!hasBias && p->kind != OP_SOFTMAX && p->kind != OP_LAYER_NORM && o->data && isChannelBias(g, n, other, y, p))
         e.kind = EPI_BIAS;
      else if (GTensor_elems(o) == GTensor_elems(y) && sameDims(o, y))
         e.kind = EPI_ADD;   /* a residual, or a constant of the output's shape */
      else
         return refuse(m, n, "an add of a %s the epilogue cannot read (bias per channel or a tensor of the "
                       "output's shape)", o->data ? "constant" : "broadcast tensor");
   } else if (strcmp(t, "Mul") == 0 && o) {
      double v;
      bool nc = y->ndim == 4 && o->ndim == 4 && o->dims[0] == y->dims[0] && o->dims[1] == y->dims[1] &&
                o->dims[2] == 1 && o->dims[3] == 1;
      if (constantOf(g, other, &v)) {
         e.kind = EPI_MUL_CONST;
         e.value = v;
      } else if (o->data && p->kind != OP_SOFTMAX && p->kind != OP_LAYER_NORM && isChannelBias(g, n, other, y, p)) {
         e.kind = EPI_SCALE;
      } else if (GTensor_elems(o) == GTensor_elems(y) && sameDims(o, y)) {
         e.kind = EPI_MUL;
      } else if (nc && y->dims[2] * y->dims[3] > 1) {
         e.kind = EPI_CHANNEL_MUL;   /* a squeeze-excitation's scale */
      } else {
         return refuse(m, n, "a multiply by a %s the epilogue cannot read (a constant, a scale per channel, a "
                       "tensor of the output's shape or one per image and channel)",
                       o->data ? "constant" : "broadcast tensor");
      }
   } else if (strcmp(t, "Div") == 0 && o && n->in[0] == cur) {
      double v;
      if (!constantOf(g, other, &v) || v == 0.0)
         return refuse(m, n, "a divide by something other than a nonzero scalar constant");
      e.kind = EPI_DIV_CONST;
      e.value = v;
   } else if (strcmp(t, "Relu") == 0) {
      e.kind = EPI_RELU;
   } else if (strcmp(t, "Clip") == 0) {
      double lo = -INFINITY, hi = INFINITY;
      if (g->opset < 11) {
         lo = GNode_attrFloat(n, "min", -INFINITY);
         hi = GNode_attrFloat(n, "max", INFINITY);
      } else if ((n->nin > 1 && n->in[1] >= 0 && !constantOf(g, n->in[1], &lo)) ||
                 (n->nin > 2 && n->in[2] >= 0 && !constantOf(g, n->in[2], &hi))) {
         return refuse(m, n, "bounds that are not constants");
      }
      if (lo == 0 && hi == 6) {
         e.kind = EPI_RELU6;
      } else {
         if (isinf(lo) || isinf(hi))
            return refuse(m, n, "a one-sided clip");
         e.kind = EPI_CLIP;
         e.lo = lo;
         e.hi = hi;
      }
   } else if (strcmp(t, "Gelu") == 0) {
      if (strcmp(GNode_attrString(n, "approximate", "none"), "none") != 0)
         return refuse(m, n, "the tanh approximation; the gelu epilogue is exact");
      e.kind = EPI_GELU;
   } else if (strcmp(t, "HardSwish") == 0) {
      e.kind = EPI_HARDSWISH;
   } else if (strcmp(t, "HardSigmoid") == 0) {
      if (fabs(GNode_attrFloat(n, "alpha", 0.2) - 1.0 / 6.0) > 1e-6 || GNode_attrFloat(n, "beta", 0.5) != 0.5)
         return refuse(m, n, "alpha %g and beta %g; the hardsigmoid epilogue is relu6(x + 3) / 6",
                       GNode_attrFloat(n, "alpha", 0.2), GNode_attrFloat(n, "beta", 0.5));
      e.kind = EPI_HARDSIGMOID;
   } else if (strcmp(t, "Sigmoid") == 0) {
      e.kind = EPI_SIGMOID;
   } else {
      return refuse(m, n, "no epilogue stage computes %s", t);
   }
   p->epilogue[p->nepilogue++] = e;
   char *why = NULL;
   if (Op_checkEpilogue(p, p->nepilogue - 1, &why) < 0) {
      p->nepilogue--;
      return refuseWith(m, n, why);
   }
   return true;
}

/* mapEpilogue, and then the tensor the new stage reads (bias, add, mul, ...) added to
 * the op's inputs and the chain's value moved to the node's output. */
static bool mapEpilogueInputs(Mapper *m, const GNode *n, int *cur, OpParams *p, int *opIn, int *nopIn) {
   if (!mapEpilogue(m, n, *cur, p))
      return false;
   if (Epilogue_readsTensor(p->epilogue[p->nepilogue - 1].kind))
      for (int q = 0; q < n->nin && *nopIn < OP_MAX_INPUTS; q++)
         if (n->in[q] >= 0 && n->in[q] != *cur)
            opIn[(*nopIn)++] = n->in[q];
   *cur = n->out[0];
   return true;
}

/* ---- groups without a complex op: --include-simple-tasks ---- */

/* Ops that only relabel their input's elements: a group of them alone moves no data
 * (TVM's VM runs such reshape-only functions as views, with no kernel). */
bool Import_isView(const GNode *n) {
   static const char *const views[] = { "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity" };
   for (size_t i = 0; i < sizeof views / sizeof views[0]; i++)
      if (strcmp(n->opType, views[i]) == 0)
         return true;
   return false;
}

static void shapedOp(OpParams *p, OpKind kind, const GTensor *t) {
   Op_defaults(p, kind);
   p->ndim = t->ndim;
   memcpy(p->shape, t->dims, (size_t)t->ndim * sizeof *p->shape);
}

static bool mapConcat(Mapper *m, const GNode *n, OpParams *p) {
   const GTensor *y = &m->g->t[n->out[0]];
   if (y->ndim < 1 || y->ndim > TE_MAX_DIMS)
      return refuse(m, n, "a concatenation of rank-%d tensors; concat takes 1 to %d dimensions", y->ndim,
                    TE_MAX_DIMS);
   if (n->nin > OP_MAX_CONCAT)
      return refuse(m, n, "a concatenation of %d inputs; concat takes at most %d", n->nin, OP_MAX_CONCAT);
   int64_t axis = GNode_attrInt(n, "axis", 1);
   if (axis < 0)
      axis += y->ndim;
   shapedOp(p, OP_CONCAT, y);
   p->concat_axis = (int)axis;
   p->ninputs = 0;
   for (int q = 0; q < n->nin; q++) {
      const GTensor *x = GNode_input(m->g, n, q);
      if (!x || x->dtype != GT_FLOAT)
         return refuse(m, n, "input %d is %s; tasks are float32", q, x ? GType_name(x->dtype) : "missing");
      if (x->dims[axis] == 0)
         continue;   /* an empty input adds nothing */
      p->concat_len[p->ninputs++] = x->dims[axis];
   }
   return true;
}

static bool mapResize(Mapper *m, const GNode *n, OpParams *p) {
   GraphResize2d r;
   char *why = NULL;
   if (Graph_resize2d(m->g, n, &r, &why) < 0)
      return refuseWith(m, n, why);
   int mode = ResizeMode_fromName(r.mode), coord = ResizeCoord_fromName(r.coord);
   int rounding = ResizeRounding_fromName(r.nearest);
   if (mode < 0)
      return refuse(m, n, "mode '%s'; resize2d is nearest or linear", r.mode);
   if (coord < 0)
      return refuse(m, n, "coordinate_transformation_mode '%s'; resize2d takes half_pixel, pytorch_half_pixel, "
                    "align_corners and asymmetric", r.coord);
   const GTensor *x = GNode_input(m->g, n, 0);
   nchwOp(p, OP_RESIZE2D, x);
   p->out_h = r.out[0], p->out_w = r.out[1];
   p->resize_mode = (ResizeMode)mode;
   p->coord = (ResizeCoord)coord;
   p->rounding = (ResizeRounding)(rounding < 0 ? ROUND_PREFER_FLOOR : rounding);
   for (int a = 0; a < 2; a++) {
      /* the scale the model gave, where it is not out / in */
      if (r.scale[a] * (double)r.in[a] == (double)r.out[a])
         continue;
      if (coord == COORD_ALIGN_CORNERS || coord == COORD_PYTORCH_HALF_PIXEL)
         return refuse(m, n, "scale %g of %lld is not a whole %lld; %s needs out / in", r.scale[a],
                       (long long)r.in[a], (long long)r.out[a], r.coord);
      if (Op_scaleFraction(r.scale[a], &p->scale_num[a], &p->scale_den[a]) < 0)
         return refuse(m, n, "scale %.9g is not a fraction p/q with q <= 4096 (in float32)", r.scale[a]);
   }
   return true;
}

/* The head of a simple task: the node that starts it (a concat, a resize, or the first
 * elementwise stage on the tensor it reads). *cur gets the tensor the chain goes on
 * from; opIn the head's own inputs. */
static bool mapSimpleHead(Mapper *m, const GNode *n, OpParams *p, int *cur, int *opIn, int *nopIn) {
   *nopIn = 0;
   if (strcmp(n->opType, "Concat") == 0) {
      if (!mapConcat(m, n, p))
         return false;
      for (int q = 0; q < n->nin; q++)
         if (n->in[q] >= 0 && m->g->t[n->in[q]].dims[p->concat_axis] > 0)
            opIn[(*nopIn)++] = n->in[q];
      *cur = n->out[0];
      return true;
   }
   if (strcmp(n->opType, "Resize") == 0 || strcmp(n->opType, "Upsample") == 0) {
      if (!mapResize(m, n, p))
         return false;
      opIn[(*nopIn)++] = n->in[0];
      *cur = n->out[0];
      return true;
   }
   const GraphOp *row = GraphOp_get(n->op);
   if (row && row->pattern == PAT_INJECTIVE)
      return refuse(m, n, "the op library has no task op for %s (a layout change)", n->opType);
   /* an elementwise stage on the input of its output's shape that is not a constant */
   const GTensor *y = &m->g->t[n->out[0]];
   int data = -1;
   for (int q = 0; q < n->nin && data < 0; q++) {
      const GTensor *x = GNode_input(m->g, n, q);
      if (x && !x->data && x->ndim == y->ndim && GTensor_elems(x) == GTensor_elems(y))
         data = n->in[q];
   }
   if (data < 0)
      return refuse(m, n, "%s reads no tensor of its output's shape; no task op starts with it", n->opType);
   if (y->ndim < 1 || y->ndim > TE_MAX_DIMS)
      return refuse(m, n, "a rank-%d tensor; elementwise takes 1 to %d dimensions", y->ndim, TE_MAX_DIMS);
   shapedOp(p, OP_ELEMENTWISE, y);
   opIn[(*nopIn)++] = data;
   *cur = data;
   return mapEpilogueInputs(m, n, cur, p, opIn, nopIn);
}

typedef enum { SIMPLE_TASK, SIMPLE_VIEW, SIMPLE_REFUSED } SimpleResult;

/* One segment of a group that has no complex op, from members[*at]: its head and the
 * epilogue stages that follow on its value. *at moves past the segment, whose nodes go
 * to seg. */
static SimpleResult mapSimpleSegment(Mapper *m, const int *members, int nm, int *at, OpParams *p,
                                     int *opIn, int *nopIn, int *seg, int *nseg) {
   const Graph *g = m->g;
   *nseg = 0;
   int start = *at;
   if (Import_isView(&g->n[members[start]])) {
      while (*at < nm && Import_isView(&g->n[members[*at]]))
         seg[(*nseg)++] = members[(*at)++];
      return SIMPLE_VIEW;
   }
   seg[(*nseg)++] = members[(*at)++];
   int cur;
   if (!mapSimpleHead(m, &g->n[members[start]], p, &cur, opIn, nopIn))
      return SIMPLE_REFUSED;
   while (*at < nm) {
      const GNode *n = &g->n[members[*at]];
      bool reads = false;
      for (int q = 0; q < n->nin; q++)
         reads |= n->in[q] == cur;
      /* a stage that is not on the chain starts the next segment */
      if (!reads || Import_isView(n) || !mapEpilogueInputs(m, n, &cur, p, opIn, nopIn)) {
         free(m->reason);
         m->reason = NULL;
         break;
      }
      seg[(*nseg)++] = members[(*at)++];
   }
   return SIMPLE_TASK;
}

int Import_mapNode(const Graph *g, const GNode *n, OpParams *p, char **cause) {
   Mapper m = { g, NULL, 1, 0 };
   bool ok;
   if (strcmp(n->opType, "Concat") == 0)
      ok = mapConcat(&m, n, p);
   else if (strcmp(n->opType, "Resize") == 0 || strcmp(n->opType, "Upsample") == 0)
      ok = mapResize(&m, n, p);
   else
      ok = mapAnchor(&m, n, p);
   if (ok && finishOp(&m, n, p))
      return 0;
   if (cause)
      *cause = m.reason;
   else
      free(m.reason);
   return -1;
}

/* ---- tasks ---- */

typedef struct {
   OpParams op;
   int64_t weight;
   char key[TASK_KEY_MAX];
   char *names;          /* the anchors' node names, comma separated */
} Found;

static void addName(char **names, const char *name) {
   /* the nodes a pass made of one (a BatchNorm's Mul and Add) name it once */
   size_t have = *names ? strlen(*names) : 0, len = strlen(name);
   if (have >= len && strcmp(*names + have - len, name) == 0 &&
       (have == len || (have >= len + 2 && strncmp(*names + have - len - 2, ", ", 2) == 0)))
      return;
   char *more = *names ? xAsprintf("%s, %s", *names, name) : xStrdup(name);
   free(*names);
   *names = more;
}

/* "a, b and 4 more" within LABEL_MAX. */
static char *labelOf(const char *names) {
   size_t n = strlen(names);
   if (n <= LABEL_MAX)
      return xStrdup(names);
   int total = 1;
   for (const char *p = names; *p; p++)
      total += *p == ',';
   const char *comma = strchr(names, ',');
   size_t first = comma ? (size_t)(comma - names) : n;
   char suffix[48];
   snprintf(suffix, sizeof suffix, " and %d more", total - 1);
   if (first + strlen(suffix) > LABEL_MAX)
      first = LABEL_MAX - strlen(suffix);
   return xAsprintf("%.*s%s", (int)first, names, suffix);
}

static void appendLine(char **text, const char *line) {
   char *more = xAsprintf("%s%s\n", *text ? *text : "", line);
   free(*text);
   *text = more;
}

/* The network's batch: the leading dimension every task shares, so the task file's
 * per-sample shapes times it give the tasks'. 1 when they disagree. */
/* A task's leading dimension, and whether it must be the batch itself (NCHW ops,
 * concat and elementwise) rather than a multiple of it (rows of a matrix product or
 * a normalization). */
static int64_t leadingDim(const OpParams *p, bool *strict) {
   *strict = false;
   switch (p->kind) {
   case OP_DENSE: return p->m;
   case OP_BATCH_MATMUL: return p->b;
   case OP_SOFTMAX: case OP_LAYER_NORM: return p->shape[0];
   case OP_CONCAT: case OP_ELEMENTWISE: *strict = true; return p->shape[0];
   default: *strict = true; return p->batch;
   }
}

static int64_t commonBatch(const Found *f, int n) {
   int64_t batch = 0;
   for (int i = 0; i < n; i++) {
      bool nchw;
      int64_t b = leadingDim(&f[i].op, &nchw);
      if (nchw) {
         if (batch && batch != b)
            return 1;
         batch = b;
      }
   }
   if (!batch)
      return 1;
   for (int i = 0; i < n; i++) {
      bool nchw;
      if (leadingDim(&f[i].op, &nchw) % batch != 0)
         return 1;
   }
   return batch;
}

static char *safeName(const char *name) {
   char *s = xStrdup(*name ? name : "model");
   for (char *p = s; *p; p++)
      if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.')
         *p = '_';
   return s;
}

/* A kernel of the network: the nodes of a fused group that run as a task's occurrence
 * (task >= 0; in lists its inputs in the op's order) or as ops that are not a task. */
typedef struct {
   int *nodes;
   int n;
   int task;
   int *in;
   int nin;
   int last;             /* the highest node index: units run in this order */
   uint64_t transposed;  /* as ImportUnit's */
} Unit;

static void addUnit(Unit **units, int *nunits, const int *nodes, int n, int task, const int *in, int nin,
                    uint64_t transposed) {
   if (n == 0)
      return;
   *units = xReallocArray(*units, (size_t)*nunits + 1, sizeof **units);
   Unit *u = &(*units)[(*nunits)++];
   u->transposed = transposed;
   u->nodes = xMalloc(sizeof(int) * (size_t)n);
   memcpy(u->nodes, nodes, sizeof(int) * (size_t)n);
   u->n = n;
   u->task = task;
   u->in = NULL;
   u->nin = 0;
   if (in) {
      u->in = xMalloc(sizeof(int) * (size_t)(nin ? nin : 1));
      memcpy(u->in, in, sizeof(int) * (size_t)nin);
      u->nin = nin;
   }
   u->last = 0;
   for (int i = 0; i < n; i++)
      u->last = nodes[i] > u->last ? nodes[i] : u->last;
}

static int compareUnits(const void *a, const void *b) {
   return ((const Unit *)a)->last - ((const Unit *)b)->last;
}

static int netTensor(NetGraph *ng, const Graph *g, int t) {
   int at = NetGraph_findTensor(ng, g->t[t].name);
   if (at >= 0)
      return at;
   const GTensor *gt = &g->t[t];
   NetTensorKind kind = gt->isOutput ? NT_OUTPUT : gt->role == GT_INPUT ? NT_INPUT
                      : gt->role == GT_WEIGHT ? NT_WEIGHT : NT_ACTIVATION;
   return NetGraph_addTensor(ng, gt->name, kind, gt->ndim < 0 ? 0 : gt->ndim, gt->dims);
}

/* The network's graph: one node per unit, in order, with the tensors that cross units. */
static NetGraph *buildNetGraph(const Graph *g, Unit *units, int nunits) {
   qsort(units, (size_t)nunits, sizeof *units, compareUnits);
   /* each node's unit, and the unit that reads each tensor (-2: more than one), so that
    * whether a tensor leaves its unit takes no walk over the graph */
   int *unitOf = xMalloc(sizeof(int) * (size_t)(g->nnodes ? g->nnodes : 1));
   int *readBy = xMalloc(sizeof(int) * (size_t)(g->ntensors ? g->ntensors : 1));
   for (int r = 0; r < g->nnodes; r++)
      unitOf[r] = -1;
   for (int u = 0; u < nunits; u++)
      for (int k = 0; k < units[u].n; k++)
         unitOf[units[u].nodes[k]] = u;
   for (int t = 0; t < g->ntensors; t++)
      readBy[t] = -1;
   for (int r = 0; r < g->nnodes; r++)
      for (int a = 0; a < g->n[r].nin; a++) {
         int t = g->n[r].in[a];
         if (t >= 0)
            readBy[t] = readBy[t] == -1 || readBy[t] == unitOf[r] ? unitOf[r] : -2;
      }
   NetGraph *ng = xMalloc(sizeof *ng);
   NetGraph_init(ng);
   for (int i = 0; i < g->ninputs; i++)
      netTensor(ng, g, g->inputs[i]);
   int cap = 16, *in = xMalloc(sizeof(int) * (size_t)cap), *out = xMalloc(sizeof(int) * (size_t)cap);
   for (int u = 0; u < nunits; u++) {
      const Unit *un = &units[u];
      int nin = 0, nout = 0;
      char *names = NULL, *ops = NULL;
      if (un->task >= 0) {
         for (int i = 0; i < un->nin; i++) {
            if (nin == cap) {
               cap *= 2;
               in = xReallocArray(in, (size_t)cap, sizeof(int));
               out = xReallocArray(out, (size_t)cap, sizeof(int));
            }
            in[nin++] = netTensor(ng, g, un->in[i]);
         }
      }
      for (int k = 0; k < un->n; k++) {
         const GNode *n = &g->n[un->nodes[k]];
         addName(&names, n->origin ? n->origin : n->name);
         if (un->task < 0) {
            char *more = ops ? xAsprintf("%s, %s", ops, n->opType) : xStrdup(n->opType);
            free(ops);
            ops = more;
         }
         for (int q = 0; un->task < 0 && q < n->nin; q++) {
            int t = n->in[q];
            if (t < 0 || (g->t[t].producer >= 0 && unitOf[g->t[t].producer] == u))
               continue;
            int nt = netTensor(ng, g, t);
            bool seen = false;
            for (int i = 0; i < nin; i++)
               seen |= in[i] == nt;
            if (seen)
               continue;
            if (nin == cap) {
               cap *= 2;
               in = xReallocArray(in, (size_t)cap, sizeof(int));
               out = xReallocArray(out, (size_t)cap, sizeof(int));
            }
            in[nin++] = nt;
         }
         for (int q = 0; q < n->nout; q++) {
            int t = n->out[q];
            if (t < 0)
               continue;
            bool outside = g->t[t].isOutput || readBy[t] == -2 || (readBy[t] >= 0 && readBy[t] != u);
            if (!outside)
               continue;
            if (nout == cap) {
               cap *= 2;
               in = xReallocArray(in, (size_t)cap, sizeof(int));
               out = xReallocArray(out, (size_t)cap, sizeof(int));
            }
            out[nout++] = netTensor(ng, g, t);
         }
      }
      /* the model's names reach the screen: their control characters as \xNN */
      Graph_escapeControls(&names);
      Graph_escapeControls(&ops);
      NetGraph_addNode(ng, un->task, ops, names ? names : "", nin, in, nout, out);
      free(names);
      free(ops);
   }
   free(in);
   free(out);
   free(unitOf);
   free(readBy);
   return ng;
}

/* The task of op p, merged with an earlier one of the same workload: its index in found. */
static int addFound(Found **foundp, int *nfound, int *cap, const OpParams *p, const char *name) {
   char key[TASK_KEY_MAX];
   Op_key(p, key, sizeof key);
   int at = -1;
   for (int i = 0; i < *nfound; i++)
      if (strcmp((*foundp)[i].key, key) == 0)
         at = i;
   if (at < 0 && *nfound == *cap) {
      *cap *= 2;
      *foundp = xReallocArray(*foundp, (size_t)*cap, sizeof **foundp);
      memset(*foundp + *nfound, 0, (size_t)(*cap - *nfound) * sizeof **foundp);
   }
   Found *found = *foundp;
   if (at < 0) {
      at = (*nfound)++;
      found[at].op = *p;
      snprintf(found[at].key, sizeof found[at].key, "%s", key);
   }
   found[at].weight++;
   addName(&found[at].names, name);
   return at;
}

/* A group without a complex op, cut into segments that are each a task (a concat, a
 * resize or elementwise stages, each with the stages that follow on its value), a view
 * or ops the op library has no task for. */
static void simpleGroup(Mapper *m, const int *members, int nm, ImportSummary *sum, Found **found, int *nfound,
                        int *capFound, Unit **units, int *nunits, int *seg) {
   int opIn[OP_MAX_INPUTS + 4];
   for (int at = 0; at < nm;) {
      OpParams p;
      int nopIn = 0, nseg = 0;
      SimpleResult r = mapSimpleSegment(m, members, nm, &at, &p, opIn, &nopIn, seg, &nseg);
      if (r == SIMPLE_TASK && !finishOp(m, &m->g->n[seg[0]], &p))
         r = SIMPLE_REFUSED;
      if (r == SIMPLE_VIEW) {
         sum->views++;
         addUnit(units, nunits, seg, nseg, -1, NULL, 0, 0);
      } else if (r == SIMPLE_REFUSED) {
         sum->simpleGroups++;
         appendLine(&sum->unmapped, m->reason);
         free(m->reason);
         m->reason = NULL;
         addUnit(units, nunits, seg, nseg, -1, NULL, 0, 0);
      } else {
         sum->simpleTasks++;
         int t = addFound(found, nfound, capFound, &p, m->g->n[seg[0]].name);
         addUnit(units, nunits, seg, nseg, t, opIn, nopIn, 0);
      }
   }
}

/* The tasks of the fused groups into net; with keep, the units too (in execution
 * order, as net->graph's nodes). */
static int extractTasks(Network *net, const Graph *g, const ImportOptions *opt, ImportSummary *sum,
                        ImportedModel *keep, char **cause) {
   int *groupOf = xMalloc(sizeof(int) * (size_t)(g->nnodes ? g->nnodes : 1));
   int ngroups = Graph_fuse(g, groupOf);
   sum->groups = ngroups;
   int capFound = ngroups ? ngroups : 1;
   Found *found = xCalloc((size_t)capFound, sizeof *found);
   int nfound = 0;
   Mapper m = { g, NULL, 1, 0 };
   if (g->ninputs > 0 && g->t[g->inputs[0]].ndim >= 1 && g->t[g->inputs[0]].dims[0] > 0)
      m.batch = g->t[g->inputs[0]].dims[0];
   int *members = xMalloc(sizeof(int) * (size_t)(g->nnodes ? g->nnodes : 1));
   int *chain = xMalloc(sizeof(int) * (size_t)(g->nnodes ? g->nnodes : 1));
   int *rest = xMalloc(sizeof(int) * (size_t)(g->nnodes ? g->nnodes : 1));
   int opIn[OP_MAX_INPUTS + 4];
   Unit *units = NULL;
   int nunits = 0;
   for (int gi = 0; gi < ngroups; gi++) {
      int nm = 0, anchor = -1;
      bool reduces = false;
      for (int i = 0; i < g->nnodes; i++)
         if (groupOf[i] == gi) {
            members[nm++] = i;
            const GraphOp *op = GraphOp_get(g->n[i].op);
            if (op && op->pattern == PAT_OUT_EWISE_FUSABLE)
               anchor = i;
            if (op && op->pattern == PAT_COMM_REDUCE)
               reduces = true;
         }
      if (anchor < 0 && !reduces && opt && opt->simpleTasks) {
         simpleGroup(&m, members, nm, sum, &found, &nfound, &capFound, &units, &nunits, chain);
         continue;
      }
      if (anchor < 0) {
         if (reduces) {
            sum->unmappedGroups++;
            for (int k = 0; k < nm; k++) {
               const GNode *n = &g->n[members[k]];
               const GraphOp *op = GraphOp_get(n->op);
               if (op && op->pattern == PAT_COMM_REDUCE) {
                  char *line = xAsprintf("node '%s' (%s): a reduction the op library has no task op for",
                                         n->name, n->opType);
                  appendLine(&sum->unmapped, line);
                  free(line);
                  break;
               }
            }
         } else {
            sum->simpleGroups++;
         }
         addUnit(&units, &nunits, members, nm, -1, NULL, 0, 0);
         continue;
      }
      OpParams p;
      const GNode *an = &g->n[anchor];
      m.transposed = 0;
      bool ok = mapAnchor(&m, an, &p);
      /* the op's inputs in its order: the anchor's own, then each epilogue tensor */
      int nopIn = 0;
      for (int q = 0; q < an->nin && nopIn < OP_MAX_INPUTS; q++)
         if (an->in[q] >= 0)
            opIn[nopIn++] = an->in[q];
      /* the rest of the group, in order, as epilogue stages on the anchor's output;
       * a node that is not one ends the task there (it runs as a group of its own) */
      int cur = an->out[0], nchain = 0, nrest = 0;
      chain[nchain++] = anchor;
      bool cut = false;
      for (int k = 0; k < nm; k++) {
         int ni = members[k];
         if (ni == anchor)
            continue;
         const GNode *n = &g->n[ni];
         bool reads = false;
         for (int q = 0; q < n->nin; q++)
            reads |= n->in[q] == cur;
         if (!ok || cut || ni < anchor || !reads || !mapEpilogueInputs(&m, n, &cur, &p, opIn, &nopIn)) {
            if (ok && !cut && !m.reason)
               m.reason = xAsprintf("node '%s' (%s): not on the chain after '%s'", n->name, n->opType, an->name);
            cut = ok;
            rest[nrest++] = ni;
            continue;
         }
         chain[nchain++] = ni;
      }
      if (ok && cut && opt && opt->simpleTasks) {
         /* the rest is mapped below, as tasks of its own */
         free(m.reason);
         m.reason = NULL;
      } else if (ok && cut) {
         char *line = xAsprintf("%s: runs after the task of '%s', not fused into it", m.reason, an->name);
         appendLine(&sum->unmapped, line);
         free(line);
         free(m.reason);
         m.reason = NULL;
         if (!opt || !opt->simpleTasks)
            sum->simpleGroups++;
      }
      if (ok && !finishOp(&m, an, &p))
         ok = false;
      if (!ok) {
         sum->unmappedGroups++;
         appendLine(&sum->unmapped, m.reason);
         free(m.reason);
         m.reason = NULL;
         addUnit(&units, &nunits, members, nm, -1, NULL, 0, 0);
         continue;
      }
      sum->taskGroups++;
      int at = addFound(&found, &nfound, &capFound, &p, an->name);
      addUnit(&units, &nunits, chain, nchain, at, opIn, nopIn, m.transposed);
      if (opt && opt->simpleTasks)
         simpleGroup(&m, rest, nrest, sum, &found, &nfound, &capFound, &units, &nunits, chain);
      else
         addUnit(&units, &nunits, rest, nrest, -1, NULL, 0, 0);
   }
   free(members);
   free(chain);
   free(rest);
   free(groupOf);
   int rc = 0;
   if (nfound == 0) {
      /* one line: the reasons joined */
      char *reasons = sum->unmapped ? xStrdup(sum->unmapped) : NULL;
      size_t len = reasons ? strlen(reasons) : 0;
      if (len && reasons[len - 1] == '\n')
         reasons[len - 1] = '\0';
      rc = setCause(cause, "%s: no node maps to a tuning task (no convolution, matrix product, pool or "
                    "normalization the op library takes)%s", g->path, reasons ? ": " : "");
      for (char *r = reasons, *next; r; r = next) {
         next = strchr(r, '\n');
         if (next)
            *next++ = '\0';
         char *more = xAsprintf("%s%s%s", *cause, r == reasons ? "" : "; ", r);
         free(*cause);
         *cause = more;
      }
      free(reasons);
   } else {
      net->name = safeName(g->name);
      net->path = xStrdup(g->path);
      net->batch = commonBatch(found, nfound);
      net->ntasks = nfound;
      net->tasks = xCalloc((size_t)nfound, sizeof *net->tasks);
      for (int i = 0; i < nfound; i++) {
         Task *t = &net->tasks[i];
         t->id = i;
         t->op = found[i].op;
         t->weight = found[i].weight;
         t->flops = Op_flops(&t->op);
         snprintf(t->key, sizeof t->key, "%s", found[i].key);
         Graph_escapeControls(&found[i].names);
         t->label = labelOf(found[i].names);
         t->line = 0;
      }
      net->graph = buildNetGraph(g, units, nunits);
   }
   for (int i = 0; i < nfound; i++)
      free(found[i].names);
   free(found);
   if (rc == 0 && keep) {
      keep->units = xCalloc((size_t)(nunits ? nunits : 1), sizeof *keep->units);
      keep->nunits = nunits;
      for (int i = 0; i < nunits; i++) {
         ImportUnit *k = &keep->units[i];
         k->task = units[i].task;
         k->nodes = units[i].nodes;
         k->n = units[i].n;
         k->in = units[i].in;
         k->nin = units[i].nin;
         k->transposed = units[i].transposed;
      }
   } else {
      for (int i = 0; i < nunits; i++) {
         free(units[i].nodes);
         free(units[i].in);
      }
   }
   free(units);
   return rc;
}

/* The import; with keep, the graph and the units are kept in it (keep->g is g). */
static int importOnnx(Network *net, Graph *gp, const char *path, const ImportOptions *opt, ImportSummary *sum,
                      ImportedModel *keep, char **cause) {
   memset(net, 0, sizeof *net);
   memset(sum, 0, sizeof *sum);
   Graph local;
   Graph *g = gp ? gp : &local;
   int rc = Onnx_load(g, path, opt ? opt->dims : NULL, opt ? opt->ndims : 0, false, cause);
   if (rc == 0) {
      sum->opset = g->opset;
      for (int i = 0; i < g->ntensors; i++)
         if (g->t[i].role == GT_WEIGHT)
            sum->weightElems += GTensor_elems(&g->t[i]);
      sum->nodesRead = g->nnodes + g->constantNodes;
      sum->constants = g->constantNodes;
      rc = Graph_prepare(g, true, cause);
   }
   if (rc == 0) {
      for (int i = 0; i < g->nnodes; i++)
         sum->folded += g->n[i].dead;
      Graph_compact(g);
      Graph_simplify(g, &sum->passes);
      sum->nodesFused = g->nnodes;
      rc = extractTasks(net, g, opt, sum, keep, cause);
   }
   if (!gp || rc < 0)
      Graph_done(g);
   if (rc < 0) {
      Network_done(net);
      Graph_escapeControls(cause);
   }
   return rc;
}

int Import_onnx(Network *net, const char *path, const ImportOptions *opt, ImportSummary *sum,
                char **cause) {
   return importOnnx(net, NULL, path, opt, sum, NULL, cause);
}

int Import_model(ImportedModel *m, const char *path, const ImportOptions *opt, char **cause) {
   memset(m, 0, sizeof *m);
   int rc = importOnnx(&m->net, &m->g, path, opt, &m->sum, m, cause);
   if (rc < 0) {
      ImportSummary_done(&m->sum);
      memset(m, 0, sizeof *m);
   }
   return rc;
}

void ImportedModel_done(ImportedModel *m) {
   for (int i = 0; i < m->nunits; i++) {
      free(m->units[i].nodes);
      free(m->units[i].in);
   }
   free(m->units);
   Network_done(&m->net);
   Graph_done(&m->g);
   ImportSummary_done(&m->sum);
   memset(m, 0, sizeof *m);
}

void ImportSummary_print(const ImportSummary *s, const Network *net, FILE *out) {
   const PassCounts *p = &s->passes;
   fprintf(out, "import: %d nodes read (opset %d), %d folded as constants (%d Constant nodes), %d removed "
           "(Dropout, Identity), %d BatchNorms folded into convs", s->nodesRead, s->opset, s->folded + s->constants,
           s->constants, p->removed, p->bnFolded);
   if (p->affineFolded)
      fprintf(out, ", and %d per-channel Mul and Add", p->affineFolded);
   if (p->bnSimplified)
      fprintf(out, ", %d others as a Mul and an Add", p->bnSimplified);
   fputc('\n', out);
   fprintf(out, "import: patterns recognised: %d LayerNorm, %d GELU, %d hardswish, %d hardsigmoid", p->layerNorms,
           p->gelus, p->hardSwishes, p->hardSigmoids);
   if (p->globalPools)
      fprintf(out, ", %d global average pool%s (a ReduceMean over H and W)", p->globalPools,
              p->globalPools == 1 ? "" : "s");
   fprintf(out, " (%d nodes)\n", p->nodesReplaced);
   fprintf(out, "import: %d nodes fused into %d groups: %d task occurrences, %d elementwise or layout groups "
           "(not tasks), %d without a task op\n", s->nodesFused, s->groups, s->taskGroups, s->simpleGroups,
           s->unmappedGroups);
   if (s->simpleTasks || s->views)
      fprintf(out, "import: simple tasks: %d occurrence%s of concat, resize2d and elementwise tasks; %d view%s "
              "(reshape only, no kernel)\n", s->simpleTasks, s->simpleTasks == 1 ? "" : "s", s->views,
              s->views == 1 ? "" : "s");
   fprintf(out, "import: %d tasks, weights summing to %lld; %lld weight elements\n", net->ntasks,
           (long long)Network_totalWeight(net), (long long)s->weightElems);
   if (s->unmapped) {
      const char *line = s->unmapped;
      while (*line) {
         const char *end = strchr(line, '\n');
         int len = end ? (int)(end - line) : (int)strlen(line);
         fprintf(out, "import: not a task: %.*s\n", len, line);
         line += len + (end ? 1 : 0);
      }
   }
}

int ImportOptions_parseInputs(const char *inputs, OnnxInputDims **dims, int *n, bool *simpleTasks,
                              char **cause) {
   *dims = NULL;
   *n = 0;
   *simpleTasks = false;
   if (!inputs || !*inputs)
      return 0;
   char *copy = xStrdup(inputs);
   int rc = 0;
   char *save = NULL;
   for (char *item = strtok_r(copy, ";", &save); item && rc == 0; item = strtok_r(NULL, ";", &save)) {
      if (strcmp(item, IMPORT_SIMPLE_TASKS) == 0) {
         *simpleTasks = true;
         continue;
      }
      *dims = xReallocArray(*dims, (size_t)*n + 1, sizeof **dims);
      rc = OnnxInputDims_parse(&(*dims)[*n], item, cause);
      if (rc == 0)
         (*n)++;
   }
   free(copy);
   return rc;
}

int Import_onnxInputs(Network *net, const char *path, const char *inputs, ImportSummary *sum, char **cause) {
   ImportOptions opt;
   OnnxInputDims *dims;
   int n;
   bool simple;
   if (ImportOptions_parseInputs(inputs, &dims, &n, &simple, cause) < 0) {
      memset(net, 0, sizeof *net);
      memset(sum, 0, sizeof *sum);
      for (int i = 0; i < n; i++)
         OnnxInputDims_done(&dims[i]);
      free(dims);
      return -1;
   }
   opt.dims = dims;
   opt.ndims = n;
   opt.simpleTasks = simple;
   int rc = Import_onnx(net, path, &opt, sum, cause);
   for (int i = 0; i < n; i++)
      OnnxInputDims_done(&dims[i]);
   free(dims);
   if (rc == 0 && inputs && *inputs)
      net->inputs = xStrdup(inputs);
   return rc;
}

int Model_load(Network *net, const char *path, const char *inputs, char **cause) {
   if (!Import_isOnnx(path))
      return Network_load(net, path, cause);
   ImportSummary sum;
   int rc = Import_onnxInputs(net, path, inputs, &sum, cause);
   ImportSummary_done(&sum);
   return rc;
}
