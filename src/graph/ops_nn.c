/* Graph op rows for the compute-heavy operators: convolutions, matrix products,
 * normalizations, pools, reductions, Softmax and Resize, each with its shape inference
 * and its plain C reference, N-d as ONNX defines them. References load their inputs
 * into double, accumulate in double and round once when they store. */
#include "config.h"

#include "graph/opsimpl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define MAXD GRAPH_MAX_DIMS

/* ---- checks shared by the rows ---- */

/* Input and output counts: inputs below minIn are required, those from maxIn on must be
 * left out, and so must outputs from maxOut on. */
static int checkArity(Graph *g, GNode *n, char **cause, int minIn, int maxIn, int maxOut) {
   for (int i = 0; i < minIn; i++)
      if (i >= n->nin || n->in[i] < 0) {
         if (minIn == maxIn)
            return Graph_nodeError(g, n, cause, "%s takes %d input%s, got %d", n->opType, minIn,
                                   minIn == 1 ? "" : "s", n->nin);
         return Graph_nodeError(g, n, cause, "input %d of %s is required (it takes %d to %d)",
                                i, n->opType, minIn, maxIn);
      }
   for (int i = maxIn; i < n->nin; i++)
      if (n->in[i] >= 0)
         return Graph_nodeError(g, n, cause, "%s takes at most %d input%s, got %d", n->opType,
                                maxIn, maxIn == 1 ? "" : "s", n->nin);
   if (n->nout < 1 || n->out[0] < 0)
      return Graph_nodeError(g, n, cause, "output 0 of %s is required", n->opType);
   for (int i = maxOut; i < n->nout; i++)
      if (n->out[i] >= 0)
         return Graph_nodeError(g, n, cause, "%s has at most %d output%s, got %d", n->opType,
                                maxOut, maxOut == 1 ? "" : "s", n->nout);
   return 0;
}

static bool isFloatType(GType t) {
   return t == GT_FLOAT || t == GT_DOUBLE;
}

/* The first `count` inputs, those present, must be float32 or float64. */
static int checkFloats(Graph *g, GNode *n, char **cause, int count) {
   for (int i = 0; i < count && i < n->nin; i++) {
      const GTensor *t = GNode_input(g, n, i);
      if (t && !isFloatType(t->dtype))
         return Graph_nodeError(g, n, cause, "input %d ('%s') is %s; %s takes float32 or float64",
                                i, t->name, GType_name(t->dtype), n->opType);
   }
   return 0;
}

/* Input i, present, has input 0's element type (weights of a convolution). */
static int checkSameType(Graph *g, GNode *n, char **cause, int i) {
   const GTensor *x = GNode_input(g, n, 0), *t = GNode_input(g, n, i);
   if (t && t->dtype != x->dtype)
      return Graph_nodeError(g, n, cause, "input %d ('%s') is %s but input 0 ('%s') is %s", i,
                             t->name, GType_name(t->dtype), x->name, GType_name(x->dtype));
   return 0;
}

static int normAxis(Graph *g, GNode *n, char **cause, const char *what, int64_t axis, int rank,
                    int *out) {
   if (axis < -rank || axis >= rank)
      return Graph_nodeError(g, n, cause, "%s %lld is out of range for a rank-%d input", what,
                             (long long)axis, rank);
   *out = (int)(axis < 0 ? axis + rank : axis);
   return 0;
}

/* Saturating: a tensor with a 0 dimension may have others whose product overflows. */
static int64_t prod(int count, const int64_t *dims) {
   int64_t p = 1;
   for (int i = 0; i < count; i++)
      p = Graph_mulDims(p, dims[i]);
   return p;
}

/* ---- data in double ---- */

static double *loadDouble(const GTensor *t) {
   int64_t e = GTensor_elems(t);
   double *v = xMalloc(sizeof(double) * (size_t)(e > 0 ? e : 1));
   if (t->dtype == GT_FLOAT) {
      const float *f = t->data;
      for (int64_t i = 0; i < e; i++)
         v[i] = f[i];
   } else if (t->dtype == GT_DOUBLE) {
      memcpy(v, t->data, sizeof(double) * (size_t)e);
   } else {
      for (int64_t i = 0; i < e; i++)
         v[i] = GTensor_get(t, i);
   }
   return v;
}

/* Allocates the output and stores v (its element count) into it. */
static void storeDouble(GTensor *t, const double *v) {
   GTensor_alloc(t);
   int64_t e = GTensor_elems(t);
   if (t->dtype == GT_FLOAT) {
      float *f = t->data;
      for (int64_t i = 0; i < e; i++)
         f[i] = (float)v[i];
   } else if (t->dtype == GT_DOUBLE) {
      memcpy(t->data, v, sizeof(double) * (size_t)e);
   } else {
      for (int64_t i = 0; i < e; i++)
         GTensor_set(t, i, v[i]);
   }
}

static double *outBuffer(const GTensor *t) {
   int64_t e = GTensor_elems(t);
   return xCalloc((size_t)(e > 0 ? e : 1), sizeof(double));
}

/* ---- windows: convolutions and pools ---- */

enum { PAD_NOTSET, PAD_SAME_UPPER, PAD_SAME_LOWER, PAD_VALID };

static int autoPad(const Graph *g, const GNode *n, char **cause, int *kind) {
   const char *s = GNode_attrString(n, "auto_pad", "NOTSET");
   if (strcmp(s, "NOTSET") == 0)
      *kind = PAD_NOTSET;
   else if (strcmp(s, "SAME_UPPER") == 0)
      *kind = PAD_SAME_UPPER;
   else if (strcmp(s, "SAME_LOWER") == 0)
      *kind = PAD_SAME_LOWER;
   else if (strcmp(s, "VALID") == 0)
      *kind = PAD_VALID;
   else
      return Graph_nodeError(g, n, cause,
                             "auto_pad '%s' is not supported (NOTSET, SAME_UPPER, SAME_LOWER, "
                             "VALID)", s);
   return 0;
}

/* A stride, dilation, pad or kernel size past this is refused: no input dimension is
 * larger, and the window arithmetic stays inside int64. */
#define MAX_WINDOW_VALUE ((int64_t)INT32_MAX)

/* An INTS attribute of `want` values, each from `min` to MAX_WINDOW_VALUE, or `def`
 * everywhere. */
static int intsAttr(const Graph *g, const GNode *n, char **cause, const char *name, int want, int64_t def,
                    int64_t min, int64_t *out) {
   int count;
   const int64_t *v = GNode_attrInts(n, name, &count);
   if (!v) {
      for (int i = 0; i < want; i++)
         out[i] = def;
      return 0;
   }
   if (count != want)
      return Graph_nodeError(g, n, cause, "%s has %d values, expected %d", name, count, want);
   for (int i = 0; i < want; i++) {
      if (v[i] < min)
         return Graph_nodeError(g, n, cause, "%s value %lld is out of range (at least %lld)", name,
                                (long long)v[i], (long long)min);
      if (v[i] > MAX_WINDOW_VALUE)
         return Graph_nodeError(g, n, cause, "%s value %lld is out of range (at most %lld)", name,
                                (long long)v[i], (long long)MAX_WINDOW_VALUE);
      out[i] = v[i];
   }
   return 0;
}

static int flagAttr(Graph *g, GNode *n, char **cause, const char *name, int64_t def, int *out) {
   int64_t v = GNode_attrInt(n, name, def);
   if (v != 0 && v != 1)
      return Graph_nodeError(g, n, cause, "%s %lld is not 0 or 1", name, (long long)v);
   *out = (int)v;
   return 0;
}

typedef struct {
   int nsp;                   /* spatial axes */
   int64_t in[MAXD], k[MAXD], s[MAXD], d[MAXD], pb[MAXD], pe[MAXD], out[MAXD];
} Window;

/* The sliding window of a convolution or pool over the spatial axes `in`: kernel from
 * the weight (kernel non-NULL) or kernel_shape, strides, dilations, pads, auto_pad and
 * ceil_mode, and the output size they give. */
static int windowInfer(Graph *g, GNode *n, char **cause, int nsp, const int64_t *in,
                       const int64_t *kernel, Window *w) {
   memset(w, 0, sizeof *w);
   w->nsp = nsp;
   for (int a = 0; a < nsp; a++)
      w->in[a] = in[a];
   int count;
   const int64_t *ks = GNode_attrInts(n, "kernel_shape", &count);
   if (ks && count != nsp)
      return Graph_nodeError(g, n, cause, "kernel_shape has %d values, expected %d", count, nsp);
   for (int a = 0; a < nsp; a++) {
      if (!ks && !kernel)
         return Graph_nodeError(g, n, cause, "kernel_shape is required");
      if (ks && kernel && ks[a] != kernel[a])
         return Graph_nodeError(g, n, cause,
                                "kernel_shape %lld on spatial axis %d differs from the weight's %lld",
                                (long long)ks[a], a, (long long)kernel[a]);
      w->k[a] = kernel ? kernel[a] : ks[a];
      if (w->k[a] < 1)
         return Graph_nodeError(g, n, cause, "kernel_shape value %lld is out of range (at least 1)",
                                (long long)w->k[a]);
      if (w->k[a] > MAX_WINDOW_VALUE)
         return Graph_nodeError(g, n, cause, "kernel_shape value %lld is out of range (at most %lld)",
                                (long long)w->k[a], (long long)MAX_WINDOW_VALUE);
   }
   int64_t pads[2 * MAXD];
   int kind = PAD_NOTSET, ceil = 0;
   if (intsAttr(g, n, cause, "strides", nsp, 1, 1, w->s) < 0 ||
       intsAttr(g, n, cause, "dilations", nsp, 1, 1, w->d) < 0 ||
       intsAttr(g, n, cause, "pads", 2 * nsp, 0, 0, pads) < 0 ||
       flagAttr(g, n, cause, "ceil_mode", 0, &ceil) < 0 || autoPad(g, n, cause, &kind) < 0)
      return -1;
   for (int a = 0; a < nsp; a++) {
      /* every value is at most 2^31 (intsAttr, the dimension caps): no product or sum
       * below passes 2^63 */
      int64_t dk = (w->k[a] - 1) * w->d[a] + 1, s = w->s[a];
      if (kind == PAD_NOTSET) {
         w->pb[a] = pads[a];
         w->pe[a] = pads[a + nsp];
         int64_t span = in[a] + w->pb[a] + w->pe[a] - dk;
         if (span < 0)
            return Graph_nodeError(g, n, cause,
                                   "the window (%lld wide with dilation) is larger than the padded "
                                   "input (%lld) on spatial axis %d",
                                   (long long)dk, (long long)(in[a] + w->pb[a] + w->pe[a]), a);
         w->out[a] = (ceil ? (span + s - 1) / s : span / s) + 1;
         /* the last window must start inside the input or its begin padding */
         if (ceil && (w->out[a] - 1) * s >= in[a] + w->pb[a])
            w->out[a]--;
      } else if (kind == PAD_VALID) {
         if (in[a] < dk)
            return Graph_nodeError(g, n, cause,
                                   "the window (%lld wide with dilation) is larger than the input "
                                   "(%lld) on spatial axis %d", (long long)dk, (long long)in[a], a);
         w->out[a] = (in[a] - dk) / s + 1;
      } else {
         w->out[a] = (in[a] + s - 1) / s;
         int64_t total = (w->out[a] - 1) * s + dk - in[a];
         if (total < 0)
            total = 0;
         w->pb[a] = kind == PAD_SAME_UPPER ? total / 2 : total - total / 2;
         w->pe[a] = total - w->pb[a];
      }
   }
   return 0;
}

/* The taps of the window at output position o that fall inside the input: their
 * kernel positions and input offsets; returns how many. *padded counts those inside
 * the padded bounds. */
static int64_t windowTaps(const Window *w, const int64_t *o, int64_t *kidx, int64_t *ioff,
                          int64_t *padded) {
   int64_t kc[MAXD] = { 0 }, ksz = prod(w->nsp, w->k), nt = 0, np = 0;
   for (int64_t kp = 0; kp < ksz; kp++) {
      int64_t off = 0;
      bool inside = true, inPadded = true;
      for (int a = 0; a < w->nsp; a++) {
         int64_t i = o[a] * w->s[a] - w->pb[a] + kc[a] * w->d[a];
         if (i < -w->pb[a] || i >= w->in[a] + w->pe[a])
            inPadded = false;
         if (i < 0 || i >= w->in[a])
            inside = false;
         if (inside)
            off = off * w->in[a] + i;
      }
      np += inPadded;
      if (inside) {
         kidx[nt] = kp;
         ioff[nt] = off;
         nt++;
      }
      Graph_nextIndex(w->nsp, w->k, kc);
   }
   if (padded)
      *padded = np;
   return nt;
}

/* ---- Conv ---- */

static int convInfer(Graph *g, GNode *n, char **cause) {
   if (checkArity(g, n, cause, 2, 3, 1) < 0 || checkFloats(g, n, cause, 3) < 0 ||
       checkSameType(g, n, cause, 1) < 0 || checkSameType(g, n, cause, 2) < 0)
      return -1;
   const GTensor *x = GNode_input(g, n, 0), *w = GNode_input(g, n, 1), *b = GNode_input(g, n, 2);
   if (x->ndim < 3)
      return Graph_nodeError(g, n, cause, "input 0 ('%s') has rank %d; Conv takes N x C x D1 ...",
                             x->name, x->ndim);
   if (w->ndim != x->ndim)
      return Graph_nodeError(g, n, cause, "input 1 ('%s') has rank %d, the input's is %d", w->name,
                             w->ndim, x->ndim);
   int64_t group = GNode_attrInt(n, "group", 1);
   if (group < 1 || x->dims[1] % group != 0 || w->dims[0] % group != 0)
      return Graph_nodeError(g, n, cause,
                             "group %lld does not divide the %lld input and %lld output channels",
                             (long long)group, (long long)x->dims[1], (long long)w->dims[0]);
   if (w->dims[1] != x->dims[1] / group)
      return Graph_nodeError(g, n, cause,
                             "the weight ('%s') takes %lld channels a group, the input has %lld "
                             "in %lld group%s",
                             w->name, (long long)w->dims[1], (long long)x->dims[1], (long long)group,
                             group == 1 ? "" : "s");
   if (b && (b->ndim != 1 || b->dims[0] != w->dims[0]))
      return Graph_nodeError(g, n, cause, "the bias ('%s') must hold %lld values", b->name,
                             (long long)w->dims[0]);
   Window win;
   if (windowInfer(g, n, cause, x->ndim - 2, x->dims + 2, w->dims + 2, &win) < 0)
      return -1;
   int64_t dims[MAXD] = { x->dims[0], w->dims[0] };
   for (int a = 0; a < win.nsp; a++)
      dims[a + 2] = win.out[a];
   GTensor_setShape(GNode_output(g, n, 0), x->dtype, x->ndim, dims);
   return 0;
}

/* y += wv x at kernel position kc for every output position: the shifted input under
 * that tap, the last spatial axis innermost and contiguous. */
static void convTap(const Window *w, const int64_t *kc, double wv, const double *x, double *y) {
   int L = w->nsp - 1;
   int64_t s = w->s[L], shift = kc[L] * w->d[L] - w->pb[L];
   /* the output range whose input ow * s + shift falls inside the last axis */
   int64_t lo = shift >= 0 ? 0 : (-shift + s - 1) / s, hi = w->in[L] - 1 - shift;
   if (hi < 0)
      return;
   hi /= s;
   if (hi > w->out[L] - 1)
      hi = w->out[L] - 1;
   if (lo > hi)
      return;
   int64_t outer = prod(L, w->out), oo[MAXD] = { 0 };
   for (int64_t q = 0; q < outer; q++) {
      int64_t off = 0;
      bool inside = true;
      for (int a = 0; a < L && inside; a++) {
         int64_t i = oo[a] * w->s[a] + kc[a] * w->d[a] - w->pb[a];
         inside = i >= 0 && i < w->in[a];
         if (inside)
            off = off * w->in[a] + i;
      }
      if (inside) {
         const double *xr = x + off * w->in[L];
         double *yr = y + q * w->out[L];
         for (int64_t ow = lo; ow <= hi; ow++)
            yr[ow] += wv * xr[ow * s + shift];
      }
      Graph_nextIndex(L, w->out, oo);
   }
}

static int convEval(Graph *g, GNode *n, char **cause) {
   const GTensor *xt = GNode_input(g, n, 0), *wt = GNode_input(g, n, 1), *bt = GNode_input(g, n, 2);
   GTensor *yt = GNode_output(g, n, 0);
   Window win;
   if (windowInfer(g, n, cause, xt->ndim - 2, xt->dims + 2, wt->dims + 2, &win) < 0)
      return -1;
   int64_t N = xt->dims[0], C = xt->dims[1], M = wt->dims[0], G = GNode_attrInt(n, "group", 1);
   int64_t Cg = C / G, Mg = M / G;
   int64_t inSz = prod(win.nsp, win.in), outSz = prod(win.nsp, win.out), kSz = prod(win.nsp, win.k);
   double *x = loadDouble(xt), *w = loadDouble(wt), *b = bt ? loadDouble(bt) : NULL;
   double *y = outBuffer(yt);
   for (int64_t nb = 0; nb < N; nb++)
      for (int64_t oc = 0; oc < M; oc++) {
         int64_t grp = oc / Mg;
         double *yb = y + (nb * M + oc) * outSz;
         for (int64_t p = 0; b && p < outSz; p++)
            yb[p] = b[oc];
         for (int64_t c = 0; c < Cg; c++) {
            const double *xb = x + (nb * C + grp * Cg + c) * inSz;
            const double *wb = w + (oc * Cg + c) * kSz;
            int64_t kc[MAXD] = { 0 };
            for (int64_t kp = 0; kp < kSz; kp++) {
               if (wb[kp] != 0.0)
                  convTap(&win, kc, wb[kp], xb, yb);
               Graph_nextIndex(win.nsp, win.k, kc);
            }
         }
      }
   storeDouble(yt, y);
   free(x);
   free(w);
   free(b);
   free(y);
   return 0;
}

/* ---- ConvTranspose ---- */

/* The transposed window: kernel, strides, dilations and the pads that the output size
 * (from pads, output_shape or auto_pad) implies. out is the output's spatial size. */
static int convTransposeWindow(const Graph *g, const GNode *n, char **cause, const GTensor *x,
                               const GTensor *w, Window *win) {
   int nsp = x->ndim - 2;
   memset(win, 0, sizeof *win);
   win->nsp = nsp;
   int count;
   const int64_t *ks = GNode_attrInts(n, "kernel_shape", &count);
   if (ks && count != nsp)
      return Graph_nodeError(g, n, cause, "kernel_shape has %d values, expected %d", count, nsp);
   for (int a = 0; a < nsp; a++) {
      win->in[a] = x->dims[a + 2];
      win->k[a] = w->dims[a + 2];
      if (ks && ks[a] != win->k[a])
         return Graph_nodeError(g, n, cause,
                                "kernel_shape %lld on spatial axis %d differs from the weight's %lld",
                                (long long)ks[a], a, (long long)win->k[a]);
      if (win->k[a] < 1)
         return Graph_nodeError(g, n, cause, "kernel_shape value %lld is out of range (at least 1)",
                                (long long)win->k[a]);
   }
   int64_t pads[2 * MAXD], outPad[MAXD];
   int kind = PAD_NOTSET;
   if (intsAttr(g, n, cause, "strides", nsp, 1, 1, win->s) < 0 ||
       intsAttr(g, n, cause, "dilations", nsp, 1, 1, win->d) < 0 ||
       intsAttr(g, n, cause, "pads", 2 * nsp, 0, 0, pads) < 0 ||
       intsAttr(g, n, cause, "output_padding", nsp, 0, 0, outPad) < 0 ||
       autoPad(g, n, cause, &kind) < 0)
      return -1;
   const int64_t *os = GNode_attrInts(n, "output_shape", &count);
   if (os && count != nsp && count != nsp + 2)
      return Graph_nodeError(g, n, cause, "output_shape has %d values, expected %d", count, nsp);
   if (os && count == nsp + 2)
      os += 2;
   for (int a = 0; os && a < nsp; a++)
      if (os[a] < 1 || os[a] > MAX_WINDOW_VALUE)
         return Graph_nodeError(g, n, cause, "output_shape value %lld is out of range (1 to %lld)",
                                (long long)os[a], (long long)MAX_WINDOW_VALUE);
   for (int a = 0; a < nsp; a++) {
      /* each term is at most 2^62: their sum stays inside int64 */
      int64_t dk = (win->k[a] - 1) * win->d[a] + 1;
      int64_t full = win->s[a] * (win->in[a] - 1) + outPad[a] + dk;
      if (outPad[a] >= win->s[a] && outPad[a] >= win->d[a])
         return Graph_nodeError(g, n, cause,
                                "output_padding %lld must be less than the stride or the dilation",
                                (long long)outPad[a]);
      if (os || kind == PAD_SAME_UPPER || kind == PAD_SAME_LOWER) {
         int64_t want = os ? os[a] : win->in[a] * win->s[a];
         /* a negative total (output_shape beyond the full output) pads the end, as
          * ONNX's reference rounds the halves down */
         int64_t total = full - want, half = total >= 0 ? total / 2 : -((1 - total) / 2);
         win->pb[a] = kind == PAD_SAME_UPPER ? half : total - half;
         win->pe[a] = total - win->pb[a];
         win->out[a] = want;
      } else {
         if (kind == PAD_NOTSET) {
            win->pb[a] = pads[a];
            win->pe[a] = pads[a + nsp];
         }
         win->out[a] = full - win->pb[a] - win->pe[a];
      }
      if (win->out[a] < 1)
         return Graph_nodeError(g, n, cause, "the output would be %lld wide on spatial axis %d",
                                (long long)win->out[a], a);
   }
   return 0;
}

int Graph_convTransposeWindow(const Graph *g, const GNode *n, ConvTransposeWindow *out, char **cause) {
   const GTensor *x = GNode_input(g, n, 0), *w = GNode_input(g, n, 1);
   if (!x || !w || x->ndim != 4 || w->ndim != 4)
      return Graph_nodeError(g, n, cause, "not a 2-D transposed convolution");
   Window win;
   if (convTransposeWindow(g, n, cause, x, w, &win) < 0)
      return -1;
   for (int a = 0; a < 2; a++) {
      out->stride[a] = win.s[a];
      out->dilation[a] = win.d[a];
      out->padBegin[a] = win.pb[a];
      out->padEnd[a] = win.pe[a];
      out->out[a] = win.out[a];
      /* what output_padding (or output_shape) adds past the last full window */
      out->outputPad[a] = win.out[a] - (win.s[a] * (win.in[a] - 1) + (win.k[a] - 1) * win.d[a] + 1 -
                                        win.pb[a] - win.pe[a]);
   }
   return 0;
}

static int convTransposeInfer(Graph *g, GNode *n, char **cause) {
   if (checkArity(g, n, cause, 2, 3, 1) < 0 || checkFloats(g, n, cause, 3) < 0 ||
       checkSameType(g, n, cause, 1) < 0 || checkSameType(g, n, cause, 2) < 0)
      return -1;
   const GTensor *x = GNode_input(g, n, 0), *w = GNode_input(g, n, 1), *b = GNode_input(g, n, 2);
   if (x->ndim < 3)
      return Graph_nodeError(g, n, cause,
                             "input 0 ('%s') has rank %d; ConvTranspose takes N x C x D1 ...",
                             x->name, x->ndim);
   if (w->ndim != x->ndim)
      return Graph_nodeError(g, n, cause, "input 1 ('%s') has rank %d, the input's is %d", w->name,
                             w->ndim, x->ndim);
   int64_t group = GNode_attrInt(n, "group", 1);
   if (group < 1 || x->dims[1] % group != 0)
      return Graph_nodeError(g, n, cause, "group %lld does not divide the %lld input channels",
                             (long long)group, (long long)x->dims[1]);
   if (w->dims[0] != x->dims[1])
      return Graph_nodeError(g, n, cause,
                             "the weight ('%s') takes %lld input channels, the input has %lld",
                             w->name, (long long)w->dims[0], (long long)x->dims[1]);
   int64_t M = w->dims[1] * group;
   if (b && (b->ndim != 1 || b->dims[0] != M))
      return Graph_nodeError(g, n, cause, "the bias ('%s') must hold %lld values", b->name,
                             (long long)M);
   Window win;
   if (convTransposeWindow(g, n, cause, x, w, &win) < 0)
      return -1;
   int64_t dims[MAXD] = { x->dims[0], M };
   for (int a = 0; a < win.nsp; a++)
      dims[a + 2] = win.out[a];
   GTensor_setShape(GNode_output(g, n, 0), x->dtype, x->ndim, dims);
   return 0;
}

static int convTransposeEval(Graph *g, GNode *n, char **cause) {
   const GTensor *xt = GNode_input(g, n, 0), *wt = GNode_input(g, n, 1), *bt = GNode_input(g, n, 2);
   GTensor *yt = GNode_output(g, n, 0);
   Window win;
   if (convTransposeWindow(g, n, cause, xt, wt, &win) < 0)
      return -1;
   int64_t G = GNode_attrInt(n, "group", 1), N = xt->dims[0], C = xt->dims[1];
   int64_t Cg = C / G, Mg = wt->dims[1], M = Mg * G;
   int64_t inSz = prod(win.nsp, win.in), outSz = prod(win.nsp, win.out), kSz = prod(win.nsp, win.k);
   double *x = loadDouble(xt), *w = loadDouble(wt), *b = bt ? loadDouble(bt) : NULL;
   double *y = outBuffer(yt);
   if (b)
      for (int64_t nb = 0; nb < N; nb++)
         for (int64_t oc = 0; oc < M; oc++)
            for (int64_t p = 0; p < outSz; p++)
               y[(nb * M + oc) * outSz + p] = b[oc];
   int64_t *kidx = xMalloc(sizeof(int64_t) * (size_t)kSz);
   int64_t *ooff = xMalloc(sizeof(int64_t) * (size_t)kSz);
   int64_t i[MAXD] = { 0 };
   for (int64_t p = 0; p < inSz; p++) {
      /* the output positions input position i reaches */
      int64_t kc[MAXD] = { 0 }, nt = 0;
      for (int64_t kp = 0; kp < kSz; kp++) {
         int64_t off = 0;
         bool inside = true;
         for (int a = 0; a < win.nsp; a++) {
            int64_t o = i[a] * win.s[a] + kc[a] * win.d[a] - win.pb[a];
            if (o < 0 || o >= win.out[a])
               inside = false;
            if (inside)
               off = off * win.out[a] + o;
         }
         if (inside) {
            kidx[nt] = kp;
            ooff[nt] = off;
            nt++;
         }
         Graph_nextIndex(win.nsp, win.k, kc);
      }
      for (int64_t nb = 0; nb < N; nb++)
         for (int64_t ic = 0; ic < C; ic++) {
            double xv = x[(nb * C + ic) * inSz + p];
            int64_t grp = ic / Cg;
            for (int64_t m = 0; m < Mg; m++) {
               const double *wb = w + (ic * Mg + m) * kSz;
               double *yb = y + (nb * M + grp * Mg + m) * outSz;
               for (int64_t t = 0; t < nt; t++)
                  yb[ooff[t]] += xv * wb[kidx[t]];
            }
         }
      Graph_nextIndex(win.nsp, win.in, i);
   }
   storeDouble(yt, y);
   free(kidx);
   free(ooff);
   free(x);
   free(w);
   free(b);
   free(y);
   return 0;
}

/* ---- MatMul ---- */

typedef struct {
   int64_t m, k, n;
   int nbatch;
   int64_t batch[MAXD];       /* broadcast batch dims */
   int na, nb;                /* ranks of A's and B's batch dims */
   int64_t aBatch[MAXD], bBatch[MAXD];
} MatMulShape;

static int matMulShape(Graph *g, GNode *n, char **cause, const GTensor *a, const GTensor *b,
                       MatMulShape *s, int64_t *dims, int *rank) {
   if (a->ndim < 1 || b->ndim < 1)
      return Graph_nodeError(g, n, cause, "MatMul takes no scalars (input %d is one)",
                             a->ndim < 1 ? 0 : 1);
   memset(s, 0, sizeof *s);
   s->m = a->ndim == 1 ? 1 : a->dims[a->ndim - 2];
   s->k = a->dims[a->ndim - 1];
   int64_t kb = b->ndim == 1 ? b->dims[0] : b->dims[b->ndim - 2];
   s->n = b->ndim == 1 ? 1 : b->dims[b->ndim - 1];
   if (kb != s->k) {
      char ta[128], tb[128];
      GTensor_dimsText(a, ta, sizeof ta);
      GTensor_dimsText(b, tb, sizeof tb);
      return Graph_nodeError(g, n, cause, "the inner dimensions of %s and %s differ", ta, tb);
   }
   s->na = a->ndim > 2 ? a->ndim - 2 : 0;
   s->nb = b->ndim > 2 ? b->ndim - 2 : 0;
   memcpy(s->aBatch, a->dims, sizeof(int64_t) * (size_t)s->na);
   memcpy(s->bBatch, b->dims, sizeof(int64_t) * (size_t)s->nb);
   s->nbatch = Graph_broadcastShape(s->na, s->aBatch, s->nb, s->bBatch, s->batch);
   if (s->nbatch < 0) {
      char ta[128], tb[128];
      GTensor_dimsText(a, ta, sizeof ta);
      GTensor_dimsText(b, tb, sizeof tb);
      return Graph_nodeError(g, n, cause, "the batch dimensions of %s and %s do not broadcast", ta, tb);
   }
   int r = 0;
   for (int i = 0; i < s->nbatch; i++)
      dims[r++] = s->batch[i];
   if (a->ndim > 1)
      dims[r++] = s->m;
   if (b->ndim > 1)
      dims[r++] = s->n;
   *rank = r;
   return 0;
}

static int matMulInfer(Graph *g, GNode *n, char **cause) {
   if (checkArity(g, n, cause, 2, 2, 1) < 0 || checkFloats(g, n, cause, 2) < 0 ||
       checkSameType(g, n, cause, 1) < 0)
      return -1;
   MatMulShape s;
   int64_t dims[MAXD];
   int rank;
   const GTensor *a = GNode_input(g, n, 0);
   if (matMulShape(g, n, cause, a, GNode_input(g, n, 1), &s, dims, &rank) < 0)
      return -1;
   GTensor_setShape(GNode_output(g, n, 0), a->dtype, rank, dims);
   return 0;
}

static int matMulEval(Graph *g, GNode *n, char **cause) {
   const GTensor *at = GNode_input(g, n, 0), *bt = GNode_input(g, n, 1);
   GTensor *yt = GNode_output(g, n, 0);
   MatMulShape s;
   int64_t dims[MAXD];
   int rank;
   if (matMulShape(g, n, cause, at, bt, &s, dims, &rank) < 0)
      return -1;
   double *a = loadDouble(at), *b = loadDouble(bt), *y = outBuffer(yt);
   int64_t nbat = prod(s.nbatch, s.batch), idx[MAXD] = { 0 };
   for (int64_t p = 0; p < nbat; p++) {
      const double *ab = a + Graph_broadcastIndex(s.na, s.aBatch, s.nbatch, idx) * s.m * s.k;
      const double *bb = b + Graph_broadcastIndex(s.nb, s.bBatch, s.nbatch, idx) * s.k * s.n;
      double *yb = y + p * s.m * s.n;
      for (int64_t i = 0; i < s.m; i++)
         for (int64_t kk = 0; kk < s.k; kk++) {
            double av = ab[i * s.k + kk];
            for (int64_t j = 0; j < s.n; j++)
               yb[i * s.n + j] += av * bb[kk * s.n + j];
         }
      Graph_nextIndex(s.nbatch, s.batch, idx);
   }
   storeDouble(yt, y);
   free(a);
   free(b);
   free(y);
   return 0;
}

/* ---- Gemm ---- */

static int gemmInfer(Graph *g, GNode *n, char **cause) {
   /* C became optional at opset 11 */
   if (checkArity(g, n, cause, g->opset >= 11 ? 2 : 3, 3, 1) < 0 || checkFloats(g, n, cause, 3) < 0 ||
       checkSameType(g, n, cause, 1) < 0 || checkSameType(g, n, cause, 2) < 0)
      return -1;
   const GTensor *a = GNode_input(g, n, 0), *b = GNode_input(g, n, 1), *c = GNode_input(g, n, 2);
   if (a->ndim != 2 || b->ndim != 2)
      return Graph_nodeError(g, n, cause, "input %d ('%s') has rank %d; Gemm takes matrices",
                             a->ndim != 2 ? 0 : 1, a->ndim != 2 ? a->name : b->name,
                             a->ndim != 2 ? a->ndim : b->ndim);
   bool ta = GNode_attrInt(n, "transA", 0) != 0, tb = GNode_attrInt(n, "transB", 0) != 0;
   int64_t M = ta ? a->dims[1] : a->dims[0], K = ta ? a->dims[0] : a->dims[1];
   int64_t KB = tb ? b->dims[1] : b->dims[0], N = tb ? b->dims[0] : b->dims[1];
   if (K != KB)
      return Graph_nodeError(g, n, cause,
                             "A' is %lldx%lld and B' is %lldx%lld: the inner dimensions differ",
                             (long long)M, (long long)K, (long long)KB, (long long)N);
   int64_t dims[2] = { M, N };
   /* before opset 7 C broadcasts only with broadcast 1; otherwise it is M x N */
   int64_t bc = GNode_attrInt(n, "broadcast", 0);
   if (g->opset < 7 && bc != 0 && bc != 1)
      return Graph_nodeError(g, n, cause, "broadcast %lld is not 0 or 1", (long long)bc);
   if (c && g->opset < 7 && bc == 0 && (c->ndim != 2 || c->dims[0] != M || c->dims[1] != N)) {
      char tc[128];
      GTensor_dimsText(c, tc, sizeof tc);
      return Graph_nodeError(g, n, cause, "input 2 ('%s') is %s, not %lldx%lld, and broadcast is 0", c->name,
                             tc, (long long)M, (long long)N);
   }
   if (c) {
      bool ok = c->ndim <= 2;
      for (int i = 0; ok && i < c->ndim; i++)
         ok = c->dims[i] == 1 || c->dims[i] == dims[2 - c->ndim + i];
      if (!ok) {
         char tc[128];
         GTensor_dimsText(c, tc, sizeof tc);
         return Graph_nodeError(g, n, cause,
                                "input 2 ('%s') is %s, which does not broadcast to %lldx%lld",
                                c->name, tc, (long long)M, (long long)N);
      }
   }
   GTensor_setShape(GNode_output(g, n, 0), a->dtype, 2, dims);
   return 0;
}

static int gemmEval(Graph *g, GNode *n, char **cause) {
   (void)cause;
   const GTensor *at = GNode_input(g, n, 0), *bt = GNode_input(g, n, 1), *ct = GNode_input(g, n, 2);
   GTensor *yt = GNode_output(g, n, 0);
   bool ta = GNode_attrInt(n, "transA", 0) != 0, tb = GNode_attrInt(n, "transB", 0) != 0;
   double alpha = GNode_attrFloat(n, "alpha", 1.0), beta = GNode_attrFloat(n, "beta", 1.0);
   int64_t M = yt->dims[0], N = yt->dims[1], K = ta ? at->dims[0] : at->dims[1];
   double *a = loadDouble(at), *b = loadDouble(bt), *c = ct ? loadDouble(ct) : NULL;
   double *y = outBuffer(yt);
   for (int64_t i = 0; i < M; i++) {
      double *yr = y + i * N;
      if (tb) {
         for (int64_t j = 0; j < N; j++) {
            double acc = 0.0;
            for (int64_t k = 0; k < K; k++)
               acc += a[ta ? k * M + i : i * K + k] * b[j * K + k];
            yr[j] = acc;
         }
      } else {
         /* rows of B in order: y's row accumulates in place */
         for (int64_t k = 0; k < K; k++) {
            double av = a[ta ? k * M + i : i * K + k];
            const double *br = b + k * N;
            for (int64_t j = 0; j < N; j++)
               yr[j] += av * br[j];
         }
      }
      for (int64_t j = 0; j < N; j++)
         yr[j] *= alpha;
   }
   if (c && beta != 0.0) {
      int64_t idx[2] = { 0, 0 };
      for (int64_t p = 0; p < M * N; p++) {
         y[p] += beta * c[Graph_broadcastIndex(ct->ndim, ct->dims, 2, idx)];
         Graph_nextIndex(2, yt->dims, idx);
      }
   }
   storeDouble(yt, y);
   free(a);
   free(b);
   free(c);
   free(y);
   return 0;
}

/* ---- BatchNormalization (inference) ---- */

static int batchNormInfer(Graph *g, GNode *n, char **cause) {
   if (g->opset >= 14 && GNode_attrInt(n, "training_mode", 0) != 0)
      return Graph_nodeError(g, n, cause, "training_mode %lld is not supported (0 only: inference)",
                             (long long)GNode_attrInt(n, "training_mode", 0));
   for (int i = 1; i < n->nout; i++)
      if (n->out[i] >= 0)
         return Graph_nodeError(g, n, cause,
                                "output %d ('%s') is a training-mode output; only inference "
                                "(output Y) is supported",
                                i, g->t[n->out[i]].name);
   if (checkArity(g, n, cause, 5, 5, 1) < 0 || checkFloats(g, n, cause, 5) < 0)
      return -1;
   int spatial = 1;
   if (g->opset <= 8 && flagAttr(g, n, cause, "spatial", 1, &spatial) < 0)
      return -1;
   if (g->opset <= 6 && GNode_attrInt(n, "is_test", 0) == 0)
      return Graph_nodeError(g, n, cause, "is_test 0 (training mode) is not supported; set is_test 1");
   const GTensor *x = GNode_input(g, n, 0);
   if (x->ndim < 2)
      return Graph_nodeError(g, n, cause,
                             "input 0 ('%s') has rank %d; BatchNormalization takes N x C x ...",
                             x->name, x->ndim);
   for (int i = 1; i < 5; i++) {
      const GTensor *t = GNode_input(g, n, i);
      if (t->ndim == 1 && t->dims[0] == x->dims[1])
         continue;
      /* spatial 0 (opsets 1-8): a value per element of a sample, C x D1 x ... */
      bool perElement = !spatial && t->ndim == x->ndim - 1;
      for (int a = 0; perElement && a < t->ndim; a++)
         perElement = t->dims[a] == x->dims[a + 1];
      if (perElement)
         continue;
      char tx[128];
      Graph_shapeText(x->ndim - 1, x->dims + 1, tx, sizeof tx);
      if (!spatial)
         return Graph_nodeError(g, n, cause, "input %d ('%s') must hold one value a channel (%lld) or, with "
                                "spatial 0, one an element of a sample (%s)", i, t->name,
                                (long long)x->dims[1], tx);
      return Graph_nodeError(g, n, cause, "input %d ('%s') must hold one value a channel (%lld)", i,
                             t->name, (long long)x->dims[1]);
   }
   GTensor_setShape(GNode_output(g, n, 0), x->dtype, x->ndim, x->dims);
   return 0;
}

static int batchNormEval(Graph *g, GNode *n, char **cause) {
   (void)cause;
   const GTensor *xt = GNode_input(g, n, 0);
   GTensor *yt = GNode_output(g, n, 0);
   double eps = GNode_attrFloat(n, "epsilon", 1e-5);
   double *x = loadDouble(xt), *p[5];
   for (int i = 1; i < 5; i++)
      p[i] = loadDouble(GNode_input(g, n, i));
   int64_t N = xt->dims[0], C = xt->dims[1], inner = prod(xt->ndim - 2, xt->dims + 2);
   /* each parameter holds one value a channel, or (spatial 0) one an element of a sample:
    * element i of channel c reads value c or c * inner + i */
   int64_t step[5] = { 0 };
   for (int k = 1; k < 5; k++)
      step[k] = GTensor_elems(GNode_input(g, n, k)) == C ? 0 : 1;
   for (int64_t c = 0; c < C; c++)
      for (int64_t i = 0; i < inner; i++) {
         double v[5];
         for (int k = 1; k < 5; k++)
            v[k] = p[k][step[k] ? c * inner + i : c];
         double scale = v[1] / sqrt(v[4] + eps), shift = v[2] - v[3] * scale;
         for (int64_t nb = 0; nb < N; nb++) {
            double *xe = x + (nb * C + c) * inner + i;
            *xe = *xe * scale + shift;
         }
      }
   storeDouble(yt, x);
   free(x);
   for (int i = 1; i < 5; i++)
      free(p[i]);
   return 0;
}

/* ---- pools ---- */

static int poolInfer(Graph *g, GNode *n, char **cause, bool isMax) {
   /* MaxPool-8 and later give the maxima's Indices as output 1 */
   bool indices = isMax && g->opset >= 8;
   if (checkArity(g, n, cause, 1, 1, indices ? 2 : 1) < 0)
      return -1;
   const GTensor *x = GNode_input(g, n, 0);
   /* MaxPool-12 takes 8-bit integers too: a max is exact in double */
   bool int8 = isMax && g->opset >= 12 && (x->dtype == GT_UINT8 || x->dtype == GT_INT8);
   if (!int8 && checkFloats(g, n, cause, 1) < 0)
      return -1;
   if (x->ndim < 3)
      return Graph_nodeError(g, n, cause, "input 0 ('%s') has rank %d; %s takes N x C x D1 ...",
                             x->name, x->ndim, n->opType);
   int cip = 0;
   if (isMax) {
      int64_t so = GNode_attrInt(n, "storage_order", 0);
      if (so != 0 && so != 1)
         return Graph_nodeError(g, n, cause, "storage_order %lld is not 0 or 1", (long long)so);
   } else if (flagAttr(g, n, cause, "count_include_pad", 0, &cip) < 0) {
      return -1;
   }
   Window win;
   if (windowInfer(g, n, cause, x->ndim - 2, x->dims + 2, NULL, &win) < 0)
      return -1;
   int64_t dims[MAXD] = { x->dims[0], x->dims[1] };
   for (int a = 0; a < win.nsp; a++)
      dims[a + 2] = win.out[a];
   GTensor_setShape(GNode_output(g, n, 0), x->dtype, x->ndim, dims);
   if (indices && GNode_output(g, n, 1))
      GTensor_setShape(GNode_output(g, n, 1), GT_INT64, x->ndim, dims);
   return 0;
}

/* MaxPool's Indices: the flat index into X (N x C x D1 x ...) of the tap at spatial
 * offset off (row-major within a sample) of sample-channel nc, with the spatial axes
 * row-major (storage_order 0) or column-major (1), as ONNX defines them. */
static int64_t maxIndex(const Window *w, int64_t nc, int64_t inSz, int64_t off, bool colMajor) {
   if (!colMajor)
      return nc * inSz + off;
   int64_t col = 0, stride = 1, coord[MAXD];
   for (int a = w->nsp - 1; a >= 0; a--) {
      coord[a] = off % w->in[a];
      off /= w->in[a];
   }
   for (int a = 0; a < w->nsp; a++) {
      col += coord[a] * stride;
      stride *= w->in[a];
   }
   return nc * inSz + col;
}

static int poolEval(Graph *g, GNode *n, char **cause, bool isMax) {
   const GTensor *xt = GNode_input(g, n, 0);
   GTensor *yt = GNode_output(g, n, 0);
   Window win;
   if (windowInfer(g, n, cause, xt->ndim - 2, xt->dims + 2, NULL, &win) < 0)
      return -1;
   bool includePad = !isMax && GNode_attrInt(n, "count_include_pad", 0) != 0;
   int64_t NC = xt->dims[0] * xt->dims[1];
   int64_t inSz = prod(win.nsp, win.in), outSz = prod(win.nsp, win.out), kSz = prod(win.nsp, win.k);
   double *x = loadDouble(xt), *y = outBuffer(yt);
   GTensor *it = isMax && g->opset >= 8 ? GNode_output(g, n, 1) : NULL;
   int64_t *ind = it ? GTensor_alloc(it) : NULL;
   bool colMajor = GNode_attrInt(n, "storage_order", 0) == 1;
   int64_t *kidx = xMalloc(sizeof(int64_t) * (size_t)kSz);
   int64_t *ioff = xMalloc(sizeof(int64_t) * (size_t)kSz);
   int64_t o[MAXD] = { 0 };
   for (int64_t p = 0; p < outSz; p++) {
      int64_t padded, nt = windowTaps(&win, o, kidx, ioff, &padded);
      for (int64_t c = 0; c < NC; c++) {
         const double *xb = x + c * inSz;
         double v;
         if (isMax) {
            /* the first maximum in the window's row-major order, as ONNX Runtime picks it */
            int64_t at = nt ? ioff[0] : 0;
            v = -INFINITY;
            for (int64_t t = 0; t < nt; t++)
               if (xb[ioff[t]] > v || (isnan(xb[ioff[t]]) && !isnan(v))) {
                  v = xb[ioff[t]];
                  at = ioff[t];
               }
            if (ind)
               ind[c * outSz + p] = maxIndex(&win, c, inSz, at, colMajor);
         } else {
            v = 0.0;
            for (int64_t t = 0; t < nt; t++)
               v += xb[ioff[t]];
            int64_t count = includePad ? padded : nt;
            v = count ? v / (double)count : NAN;
         }
         y[c * outSz + p] = v;
      }
      Graph_nextIndex(win.nsp, win.out, o);
   }
   storeDouble(yt, y);
   free(kidx);
   free(ioff);
   free(x);
   free(y);
   return 0;
}

static int maxPoolInfer(Graph *g, GNode *n, char **cause) {
   return poolInfer(g, n, cause, true);
}

static int maxPoolEval(Graph *g, GNode *n, char **cause) {
   return poolEval(g, n, cause, true);
}

static int avgPoolInfer(Graph *g, GNode *n, char **cause) {
   return poolInfer(g, n, cause, false);
}

static int avgPoolEval(Graph *g, GNode *n, char **cause) {
   return poolEval(g, n, cause, false);
}

static int globalPoolInfer(Graph *g, GNode *n, char **cause) {
   if (checkArity(g, n, cause, 1, 1, 1) < 0 || checkFloats(g, n, cause, 1) < 0)
      return -1;
   const GTensor *x = GNode_input(g, n, 0);
   if (x->ndim < 3)
      return Graph_nodeError(g, n, cause, "input 0 ('%s') has rank %d; %s takes N x C x D1 ...",
                             x->name, x->ndim, n->opType);
   int64_t dims[MAXD];
   for (int a = 0; a < x->ndim; a++)
      dims[a] = a < 2 ? x->dims[a] : 1;
   GTensor_setShape(GNode_output(g, n, 0), x->dtype, x->ndim, dims);
   return 0;
}

static int globalPoolEval(Graph *g, GNode *n, bool isMax) {
   const GTensor *xt = GNode_input(g, n, 0);
   GTensor *yt = GNode_output(g, n, 0);
   int64_t NC = xt->dims[0] * xt->dims[1], inner = prod(xt->ndim - 2, xt->dims + 2);
   double *x = loadDouble(xt), *y = outBuffer(yt);
   for (int64_t c = 0; c < NC; c++) {
      double v = isMax ? -INFINITY : 0.0;
      for (int64_t i = 0; i < inner; i++) {
         double e = x[c * inner + i];
         if (!isMax)
            v += e;
         else if (e > v || isnan(e))
            v = e;
      }
      y[c] = isMax ? v : v / (double)inner;
   }
   storeDouble(yt, y);
   free(x);
   free(y);
   return 0;
}

static int globalAvgPoolEval(Graph *g, GNode *n, char **cause) {
   (void)cause;
   return globalPoolEval(g, n, false);
}

static int globalMaxPoolEval(Graph *g, GNode *n, char **cause) {
   (void)cause;
   return globalPoolEval(g, n, true);
}

/* ---- Softmax, LogSoftmax ---- */

/* The softmax's rows: outer x len x inner, the row along the middle. Before opset 13 the
 * input is coerced to 2-D at axis (default 1) and the row is everything from axis on. */
static int softmaxGeometry(Graph *g, GNode *n, char **cause, const GTensor *x, int64_t *outer,
                           int64_t *len, int64_t *inner) {
   int axis = 0;
   if (g->opset < 13) {
      int64_t a = GNode_attrInt(n, "axis", 1);
      /* axis == rank is allowed: rows of one element */
      if (a == x->ndim)
         axis = x->ndim;
      else if (normAxis(g, n, cause, "axis", a, x->ndim, &axis) < 0)
         return -1;
      *outer = prod(axis, x->dims);
      *len = prod(x->ndim - axis, x->dims + axis);
      *inner = 1;
      return 0;
   }
   if (normAxis(g, n, cause, "axis", GNode_attrInt(n, "axis", -1), x->ndim, &axis) < 0)
      return -1;
   *outer = prod(axis, x->dims);
   *len = x->dims[axis];
   *inner = prod(x->ndim - axis - 1, x->dims + axis + 1);
   return 0;
}

static int softmaxInfer(Graph *g, GNode *n, char **cause) {
   int64_t outer, len, inner;
   if (checkArity(g, n, cause, 1, 1, 1) < 0 || checkFloats(g, n, cause, 1) < 0)
      return -1;
   const GTensor *x = GNode_input(g, n, 0);
   if (x->ndim < 1)
      return Graph_nodeError(g, n, cause, "input 0 ('%s') is a scalar; %s takes rank 1 or more",
                             x->name, n->opType);
   if (softmaxGeometry(g, n, cause, x, &outer, &len, &inner) < 0)
      return -1;
   GTensor_setShape(GNode_output(g, n, 0), x->dtype, x->ndim, x->dims);
   return 0;
}

static int softmaxCompute(Graph *g, GNode *n, char **cause, bool logOut) {
   const GTensor *xt = GNode_input(g, n, 0);
   GTensor *yt = GNode_output(g, n, 0);
   int64_t outer, len, inner;
   if (softmaxGeometry(g, n, cause, xt, &outer, &len, &inner) < 0)
      return -1;
   double *x = loadDouble(xt);
   for (int64_t o = 0; o < outer; o++)
      for (int64_t i = 0; i < inner; i++) {
         double *row = x + o * len * inner + i;
         double mx = -INFINITY, sum = 0.0;
         for (int64_t k = 0; k < len; k++)
            if (row[k * inner] > mx)
               mx = row[k * inner];
         for (int64_t k = 0; k < len; k++)
            sum += exp(row[k * inner] - mx);
         double lsum = log(sum);
         for (int64_t k = 0; k < len; k++) {
            double z = row[k * inner] - mx;
            row[k * inner] = logOut ? z - lsum : exp(z) / sum;
         }
      }
   storeDouble(yt, x);
   free(x);
   return 0;
}

static int softmaxEval(Graph *g, GNode *n, char **cause) {
   return softmaxCompute(g, n, cause, false);
}

static int logSoftmaxEval(Graph *g, GNode *n, char **cause) {
   return softmaxCompute(g, n, cause, true);
}

/* ---- LayerNormalization ---- */

static int layerNormInfer(Graph *g, GNode *n, char **cause) {
   if (checkArity(g, n, cause, 2, 3, 3) < 0 || checkFloats(g, n, cause, 3) < 0)
      return -1;
   const GTensor *x = GNode_input(g, n, 0);
   int axis = 0;
   if (normAxis(g, n, cause, "axis", GNode_attrInt(n, "axis", -1), x->ndim, &axis) < 0)
      return -1;
   int64_t stash = GNode_attrInt(n, "stash_type", 1);
   if (stash != GT_FLOAT)
      return Graph_nodeError(g, n, cause, "stash_type %lld is not supported (1: float32)",
                             (long long)stash);
   int nr = x->ndim - axis;
   for (int i = 1; i < 3; i++) {
      const GTensor *t = GNode_input(g, n, i);
      if (!t)
         continue;
      bool ok = t->ndim <= nr;
      for (int k = 0; ok && k < t->ndim; k++)
         ok = t->dims[k] == 1 || t->dims[k] == x->dims[x->ndim - t->ndim + k];
      if (!ok) {
         char tt[128], tn[128];
         GTensor_dimsText(t, tt, sizeof tt);
         Graph_shapeText(nr, x->dims + axis, tn, sizeof tn);
         return Graph_nodeError(g, n, cause,
                                "input %d ('%s') is %s, which does not broadcast to the normalized %s",
                                i, t->name, tt, tn);
      }
   }
   GTensor_setShape(GNode_output(g, n, 0), x->dtype, x->ndim, x->dims);
   int64_t dims[MAXD];
   for (int k = 0; k < x->ndim; k++)
      dims[k] = k < axis ? x->dims[k] : 1;
   for (int i = 1; i < 3; i++)
      if (GNode_output(g, n, i))
         GTensor_setShape(GNode_output(g, n, i), GT_FLOAT, x->ndim, dims);
   return 0;
}

static int layerNormEval(Graph *g, GNode *n, char **cause) {
   const GTensor *xt = GNode_input(g, n, 0), *st = GNode_input(g, n, 1), *bt = GNode_input(g, n, 2);
   int axis = 0;
   if (normAxis(g, n, cause, "axis", GNode_attrInt(n, "axis", -1), xt->ndim, &axis) < 0)
      return -1;
   double eps = GNode_attrFloat(n, "epsilon", 1e-5);
   int nr = xt->ndim - axis;
   int64_t outer = prod(axis, xt->dims), len = prod(nr, xt->dims + axis);
   double *x = loadDouble(xt), *s = loadDouble(st), *b = bt ? loadDouble(bt) : NULL;
   double *mean = xMalloc(sizeof(double) * (size_t)(outer ? outer : 1));
   double *inv = xMalloc(sizeof(double) * (size_t)(outer ? outer : 1));
   /* where each normalized element reads Scale and B */
   int64_t *sIdx = xMalloc(sizeof(int64_t) * (size_t)(len ? len : 1));
   int64_t *bIdx = xMalloc(sizeof(int64_t) * (size_t)(len ? len : 1));
   int64_t idx[MAXD] = { 0 };
   for (int64_t k = 0; k < len; k++) {
      sIdx[k] = Graph_broadcastIndex(st->ndim, st->dims, nr, idx);
      bIdx[k] = bt ? Graph_broadcastIndex(bt->ndim, bt->dims, nr, idx) : 0;
      Graph_nextIndex(nr, xt->dims + axis, idx);
   }
   for (int64_t o = 0; o < outer; o++) {
      double *row = x + o * len, sum = 0.0, sq = 0.0;
      for (int64_t k = 0; k < len; k++)
         sum += row[k];
      double mu = sum / (double)len;
      for (int64_t k = 0; k < len; k++)
         sq += (row[k] - mu) * (row[k] - mu);
      double r = 1.0 / sqrt(sq / (double)len + eps);
      for (int64_t k = 0; k < len; k++)
         row[k] = (row[k] - mu) * r * s[sIdx[k]] + (b ? b[bIdx[k]] : 0.0);
      mean[o] = mu;
      inv[o] = r;
   }
   storeDouble(GNode_output(g, n, 0), x);
   if (GNode_output(g, n, 1))
      storeDouble(GNode_output(g, n, 1), mean);
   if (GNode_output(g, n, 2))
      storeDouble(GNode_output(g, n, 2), inv);
   free(x);
   free(s);
   free(b);
   free(mean);
   free(inv);
   free(sIdx);
   free(bIdx);
   return 0;
}

/* ---- ReduceMean, ReduceSum, ReduceMax ---- */

typedef enum { RED_MEAN, RED_SUM, RED_MAX } ReduceKind;

/* The opset from which each reduction reads its axes from input 1. */
static int reduceAxesInputOpset(ReduceKind kind) {
   return kind == RED_SUM ? 13 : 18;
}

/* Which axes the node reduces (mask) and whether it is the identity (empty axes with
 * noop_with_empty_axes). */
static int reduceAxes(Graph *g, GNode *n, char **cause, ReduceKind kind, int rank, bool *mask,
                      bool *noop) {
   int64_t axes[MAXD];
   int count = 0;
   *noop = false;
   if (g->opset >= reduceAxesInputOpset(kind)) {
      if (checkArity(g, n, cause, 1, 2, 1) < 0)
         return -1;
      const GTensor *a = GNode_input(g, n, 1);
      if (a) {
         if (a->dtype != GT_INT64)
            return Graph_nodeError(g, n, cause, "input 1 ('%s') is %s; the axes are int64", a->name,
                                   GType_name(a->dtype));
         if (!a->data)
            return Graph_nodeError(g, n, cause,
                                   "input 1 ('%s') must be a constant: it sets the output's shape",
                                   a->name);
         if (a->ndim > 1)
            return Graph_nodeError(g, n, cause, "input 1 ('%s') has rank %d; the axes are a list",
                                   a->name, a->ndim);
         int64_t e = GTensor_elems(a);
         if (e > rank)
            return Graph_nodeError(g, n, cause, "input 1 ('%s') lists %lld axes for a rank-%d input",
                                   a->name, (long long)e, rank);
         for (int64_t i = 0; i < e; i++)
            axes[count++] = GTensor_getInt(a, i);
      }
      int noopFlag = 0;
      if (flagAttr(g, n, cause, "noop_with_empty_axes", 0, &noopFlag) < 0)
         return -1;
      *noop = count == 0 && noopFlag;
   } else {
      if (checkArity(g, n, cause, 1, 1, 1) < 0)
         return -1;
      const int64_t *v = GNode_attrInts(n, "axes", &count);
      if (count > rank)
         return Graph_nodeError(g, n, cause, "axes lists %d axes for a rank-%d input", count, rank);
      for (int i = 0; i < count; i++)
         axes[i] = v[i];
   }
   for (int i = 0; i < rank; i++)
      mask[i] = count == 0 && !*noop;
   for (int i = 0; i < count; i++) {
      int a = 0;
      if (normAxis(g, n, cause, "axis", axes[i], rank, &a) < 0)
         return -1;
      if (mask[a])
         return Graph_nodeError(g, n, cause, "axis %lld is listed twice", (long long)axes[i]);
      mask[a] = true;
   }
   return 0;
}

static int reduceInfer(Graph *g, GNode *n, char **cause, ReduceKind kind) {
   bool mask[MAXD], noop;
   if (checkArity(g, n, cause, 1, 2, 1) < 0 || checkFloats(g, n, cause, 1) < 0)
      return -1;
   const GTensor *x = GNode_input(g, n, 0);
   int keep = 1;
   if (reduceAxes(g, n, cause, kind, x->ndim, mask, &noop) < 0 ||
       flagAttr(g, n, cause, "keepdims", 1, &keep) < 0)
      return -1;
   int64_t dims[MAXD];
   int r = 0;
   for (int i = 0; i < x->ndim; i++)
      if (!mask[i])
         dims[r++] = x->dims[i];
      else if (keep)
         dims[r++] = 1;
   GTensor_setShape(GNode_output(g, n, 0), x->dtype, r, dims);
   return 0;
}

static int reduceEval(Graph *g, GNode *n, char **cause, ReduceKind kind) {
   const GTensor *xt = GNode_input(g, n, 0);
   GTensor *yt = GNode_output(g, n, 0);
   bool mask[MAXD], noop;
   if (reduceAxes(g, n, cause, kind, xt->ndim, mask, &noop) < 0)
      return -1;
   int64_t kept[MAXD], count = 1;
   for (int i = 0; i < xt->ndim; i++) {
      kept[i] = mask[i] ? 1 : xt->dims[i];
      count *= mask[i] ? xt->dims[i] : 1;
   }
   int64_t ny = prod(xt->ndim, kept), nx = GTensor_elems(xt), idx[MAXD] = { 0 };
   double *x = loadDouble(xt), *y = xMalloc(sizeof(double) * (size_t)(ny ? ny : 1));
   for (int64_t i = 0; i < ny; i++)
      y[i] = kind == RED_MAX ? -INFINITY : 0.0;
   for (int64_t i = 0; i < nx; i++) {
      /* kept has a 1 on each reduced axis, so this is the output's flat index */
      int64_t o = Graph_broadcastIndex(xt->ndim, kept, xt->ndim, idx);
      if (kind != RED_MAX)
         y[o] += x[i];
      else if (x[i] > y[o] || isnan(x[i]))
         y[o] = x[i];
      Graph_nextIndex(xt->ndim, xt->dims, idx);
   }
   if (kind == RED_MEAN)
      for (int64_t i = 0; i < ny; i++)
         y[i] /= (double)count;
   storeDouble(yt, y);
   free(x);
   free(y);
   return 0;
}

static int reduceMeanInfer(Graph *g, GNode *n, char **cause) {
   return reduceInfer(g, n, cause, RED_MEAN);
}

static int reduceMeanEval(Graph *g, GNode *n, char **cause) {
   return reduceEval(g, n, cause, RED_MEAN);
}

static int reduceSumInfer(Graph *g, GNode *n, char **cause) {
   return reduceInfer(g, n, cause, RED_SUM);
}

static int reduceSumEval(Graph *g, GNode *n, char **cause) {
   return reduceEval(g, n, cause, RED_SUM);
}

static int reduceMaxInfer(Graph *g, GNode *n, char **cause) {
   return reduceInfer(g, n, cause, RED_MAX);
}

static int reduceMaxEval(Graph *g, GNode *n, char **cause) {
   return reduceEval(g, n, cause, RED_MAX);
}

/* ---- Resize, Upsample ---- */

typedef enum { RS_NEAREST, RS_LINEAR, RS_CUBIC } ResizeMode;

typedef enum {
   CT_HALF_PIXEL, CT_HALF_PIXEL_SYMMETRIC, CT_PYTORCH_HALF_PIXEL, CT_ALIGN_CORNERS, CT_ASYMMETRIC,
   CT_TF_HALF_PIXEL_FOR_NN, CT_TF_CROP_AND_RESIZE,
} CoordMode;

/* round_prefer_floor, round_prefer_ceil, floor, ceil; SIMPLE is Upsample's and
 * Resize-10's: floor when enlarging, ceil when shrinking. */
typedef enum { NM_ROUND_FLOOR, NM_ROUND_CEIL, NM_FLOOR, NM_CEIL, NM_SIMPLE } NearestMode;

typedef struct {
   int rank;
   int64_t in[MAXD], out[MAXD];
   double scale[MAXD];        /* of the coordinate transform */
   double length[MAXD];       /* the resized length the transform assumes (scale x in) */
   double roiStart[MAXD], roiEnd[MAXD];
   ResizeMode mode;
   CoordMode coord;
   NearestMode nearest;
   double cubicA, extrapolation;
   bool excludeOutside;
} ResizePlan;

static int pickName(Graph *g, GNode *n, char **cause, const char *attr, const char *def,
                    const char *const *names, int count, int *out) {
   const char *s = GNode_attrString(n, attr, def);
   for (int i = 0; i < count; i++)
      if (strcmp(s, names[i]) == 0) {
         *out = i;
         return 0;
      }
   char list[256] = "";
   size_t len = 0;
   for (int i = 0; i < count && len < sizeof list; i++)
      len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", names[i]);
   return Graph_nodeError(g, n, cause, "%s '%s' is not supported (%s)", attr, s, list);
}

/* A constant float input that sets the output's shape, as doubles; NULL (count 0) when
 * absent or empty. */
static int constantValues(Graph *g, GNode *n, char **cause, int i, bool isInt, double *out,
                          int *count) {
   *count = 0;
   const GTensor *t = GNode_input(g, n, i);
   if (!t || GTensor_elems(t) == 0)
      return 0;
   if (isInt ? t->dtype != GT_INT64 : !isFloatType(t->dtype))
      return Graph_nodeError(g, n, cause, "input %d ('%s') is %s; it must be %s", i, t->name,
                             GType_name(t->dtype), isInt ? "int64" : "float32");
   if (!t->data)
      return Graph_nodeError(g, n, cause,
                             "input %d ('%s') must be a constant: it sets the output's shape",
                             i, t->name);
   int64_t e = GTensor_elems(t);
   if (t->ndim != 1 || e > 2 * MAXD)
      return Graph_nodeError(g, n, cause, "input %d ('%s') must be a list of at most %d values", i,
                             t->name, 2 * MAXD);
   for (int64_t k = 0; k < e; k++)
      out[k] = isInt ? (double)GTensor_getInt(t, k) : GTensor_get(t, k);
   *count = (int)e;
   return 0;
}

static int resizePlan(Graph *g, GNode *n, char **cause, ResizePlan *p) {
   bool upsample = strcmp(n->opType, "Upsample") == 0;
   bool v10 = upsample || g->opset < 11;
   memset(p, 0, sizeof *p);
   /* Resize-11 names roi and scales required, but either may be empty; the count of
    * scales and sizes is checked below */
   int minIn = upsample ? (g->opset >= 9 ? 2 : 1) : g->opset >= 11 ? 1 : 2;
   int maxIn = upsample ? (g->opset >= 9 ? 2 : 1) : g->opset >= 11 ? 4 : 2;
   if (checkArity(g, n, cause, minIn, maxIn, 1) < 0 || checkFloats(g, n, cause, 1) < 0)
      return -1;
   const GTensor *x = GNode_input(g, n, 0);
   p->rank = x->ndim;
   for (int a = 0; a < x->ndim; a++) {
      p->in[a] = x->dims[a];
      p->roiStart[a] = 0.0;
      p->roiEnd[a] = 1.0;
   }
   static const char *const modes[] = { "nearest", "linear", "cubic" };
   /* Upsample-1 names linear 'bilinear' */
   static const char *const modes1[] = { "nearest", "bilinear" };
   bool upsample1 = upsample && g->opset < 7;
   int v = 0;
   if (pickName(g, n, cause, "mode", "nearest", upsample1 ? modes1 : modes, v10 ? 2 : 3, &v) < 0)
      return -1;
   p->mode = (ResizeMode)v;
   p->cubicA = GNode_attrFloat(n, "cubic_coeff_a", -0.75);
   p->extrapolation = GNode_attrFloat(n, "extrapolation_value", 0.0);
   int excl = 0;
   if (flagAttr(g, n, cause, "exclude_outside", 0, &excl) < 0)
      return -1;
   p->excludeOutside = excl;
   if (v10) {
      p->coord = CT_ASYMMETRIC;
      p->nearest = NM_SIMPLE;
   } else {
      static const char *const coords[] = {
         "half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
         "tf_half_pixel_for_nn", "tf_crop_and_resize",
      };
      static const char *const coordsBefore19[] = {
         "half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
         "tf_half_pixel_for_nn", "tf_crop_and_resize",
      };
      static const CoordMode before19[] = {
         CT_HALF_PIXEL, CT_PYTORCH_HALF_PIXEL, CT_ALIGN_CORNERS, CT_ASYMMETRIC,
         CT_TF_HALF_PIXEL_FOR_NN, CT_TF_CROP_AND_RESIZE,
      };
      if (g->opset >= 19) {
         if (pickName(g, n, cause, "coordinate_transformation_mode", "half_pixel", coords, 7, &v) < 0)
            return -1;
         p->coord = (CoordMode)v;
      } else {
         if (pickName(g, n, cause, "coordinate_transformation_mode", "half_pixel", coordsBefore19, 6,
                      &v) < 0)
            return -1;
         p->coord = before19[v];
      }
      static const char *const nearests[] = {
         "round_prefer_floor", "round_prefer_ceil", "floor", "ceil",
      };
      if (pickName(g, n, cause, "nearest_mode", "round_prefer_floor", nearests, 4, &v) < 0)
         return -1;
      p->nearest = (NearestMode)v;
   }
   if (g->opset >= 18 && !upsample && GNode_attrInt(n, "antialias", 0) != 0)
      return Graph_nodeError(g, n, cause, "antialias %lld is not supported (0 only)",
                             (long long)GNode_attrInt(n, "antialias", 0));
   /* the axes that scales, sizes and roi list (opset 18) */
   int axes[MAXD], naxes = x->ndim;
   for (int a = 0; a < x->ndim; a++)
      axes[a] = a;
   int count;
   const int64_t *av = GNode_attrInts(n, "axes", &count);
   if (av && !upsample && g->opset >= 18) {
      bool seen[MAXD] = { false };
      if (count > x->ndim)
         return Graph_nodeError(g, n, cause, "axes lists %d axes for a rank-%d input", count, x->ndim);
      for (int i = 0; i < count; i++) {
         if (normAxis(g, n, cause, "axis", av[i], x->ndim, &axes[i]) < 0)
            return -1;
         if (seen[axes[i]])
            return Graph_nodeError(g, n, cause, "axis %lld is listed twice", (long long)av[i]);
         seen[axes[i]] = true;
      }
      naxes = count;
   }
   double scales[2 * MAXD], sizes[2 * MAXD], roi[2 * MAXD];
   int nscales = 0, nsizes = 0, nroi = 0;
   if (upsample1) {
      /* an N x C x H x W input scaled by height_scale and width_scale */
      if (x->ndim != 4)
         return Graph_nodeError(g, n, cause, "input 0 ('%s') has rank %d; Upsample-1 takes N x C x H x W",
                                x->name, x->ndim);
      if (!GNode_attr(n, "height_scale") || !GNode_attr(n, "width_scale"))
         return Graph_nodeError(g, n, cause, "attributes 'height_scale' and 'width_scale' are required");
      nscales = 4;
      scales[0] = scales[1] = 1.0;
      scales[2] = GNode_attrFloat(n, "height_scale", 1.0);
      scales[3] = GNode_attrFloat(n, "width_scale", 1.0);
   } else if (upsample && g->opset < 9) {
      const GAttr *sa = GNode_attr(n, "scales");
      if (!sa || sa->type != GA_FLOATS)
         return Graph_nodeError(g, n, cause, "the scales attribute is required");
      nscales = sa->n < 2 * MAXD ? sa->n : 2 * MAXD;
      for (int i = 0; i < nscales; i++)
         scales[i] = sa->floats[i];
   } else if (v10) {
      if (constantValues(g, n, cause, 1, false, scales, &nscales) < 0)
         return -1;
   } else {
      if (constantValues(g, n, cause, 2, false, scales, &nscales) < 0 ||
          constantValues(g, n, cause, 3, true, sizes, &nsizes) < 0)
         return -1;
      if (p->coord == CT_TF_CROP_AND_RESIZE && constantValues(g, n, cause, 1, false, roi, &nroi) < 0)
         return -1;
   }
   if ((nscales > 0) == (nsizes > 0))
      return Graph_nodeError(g, n, cause, "exactly one of scales and sizes must be given");
   if ((nscales ? nscales : nsizes) != naxes)
      return Graph_nodeError(g, n, cause, "%s has %d values, expected %d", nscales ? "scales" : "sizes",
                             nscales ? nscales : nsizes, naxes);
   if (nroi && nroi != 2 * naxes)
      return Graph_nodeError(g, n, cause, "roi has %d values, expected %d", nroi, 2 * naxes);
   if (nsizes && g->opset >= 18) {
      static const char *const policies[] = { "stretch" };
      if (pickName(g, n, cause, "keep_aspect_ratio_policy", "stretch", policies, 1, &v) < 0)
         return -1;
   }
   for (int a = 0; a < x->ndim; a++) {
      p->out[a] = x->dims[a];
      p->scale[a] = 1.0;
      p->length[a] = (double)x->dims[a];
   }
   for (int i = 0; i < naxes; i++) {
      int a = axes[i];
      if (nroi) {
         p->roiStart[a] = roi[i];
         p->roiEnd[a] = roi[i + naxes];
      }
      if (nscales) {
         if (!(scales[i] > 0.0))
            return Graph_nodeError(g, n, cause, "scale %g on axis %d is not positive", scales[i], a);
         p->scale[a] = scales[i];
         double extent = p->coord == CT_TF_CROP_AND_RESIZE ? p->roiEnd[a] - p->roiStart[a] : 1.0;
         double out = floor((double)x->dims[a] * extent * scales[i]);
         /* NaN, an infinity or a size past int64 would be undefined to convert */
         if (!(out >= 0.0 && out <= (double)INT32_MAX))
            return Graph_nodeError(g, n, cause, "scale %g on axis %d gives an output size of %g (0 to %d)",
                                   scales[i], a, out, INT32_MAX);
         p->out[a] = (int64_t)out;
         p->length[a] = scales[i] * (double)x->dims[a];
      } else {
         if (sizes[i] < 1)
            return Graph_nodeError(g, n, cause, "size %lld on axis %d is not positive",
                                   (long long)sizes[i], a);
         if (sizes[i] > (double)INT32_MAX)
            return Graph_nodeError(g, n, cause, "size %.0f on axis %d is over %d", sizes[i], a, INT32_MAX);
         p->out[a] = (int64_t)sizes[i];
         p->scale[a] = x->dims[a] ? (double)p->out[a] / (double)x->dims[a] : 1.0;
         p->length[a] = (double)p->out[a];
      }
   }
   return 0;
}

int Graph_resize2d(const Graph *g, const GNode *n, GraphResize2d *r, char **cause) {
   /* resizePlan reads the node and its inputs and changes nothing: it runs on copies
    * of the two headers, which point at the same tensors */
   Graph gc = *g;
   GNode nc = *n;
   ResizePlan p;
   if (resizePlan(&gc, &nc, cause, &p) < 0)
      return -1;
   if (p.rank != 4)
      return Graph_nodeError(g, n, cause, "a resize of a rank-%d tensor; resize2d takes N x C x H x W", p.rank);
   if (p.out[0] != p.in[0] || p.out[1] != p.in[1])
      return Graph_nodeError(g, n, cause, "a resize of the batch or channel axis; resize2d resizes H and W");
   static const char *const modes[] = { "nearest", "linear", "cubic" };
   static const char *const coords[] = {
      "half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
      "tf_half_pixel_for_nn", "tf_crop_and_resize",
   };
   static const char *const nearests[] = { "round_prefer_floor", "round_prefer_ceil", "floor", "ceil" };
   r->mode = modes[p.mode];
   r->coord = coords[p.coord];
   if (p.nearest == NM_SIMPLE) {
      /* floor when enlarging, ceil when shrinking: one rounding for both axes */
      bool up = p.scale[2] >= 1.0, upW = p.scale[3] >= 1.0;
      if (up != upW && p.mode == RS_NEAREST)
         return Graph_nodeError(g, n, cause, "a nearest resize that enlarges one axis and shrinks the other");
      r->nearest = up ? "floor" : "ceil";
   } else {
      r->nearest = nearests[p.nearest];
   }
   for (int a = 0; a < 2; a++) {
      r->in[a] = p.in[a + 2];
      r->out[a] = p.out[a + 2];
      r->scale[a] = p.scale[a + 2];
   }
   return 0;
}

static int resizeInfer(Graph *g, GNode *n, char **cause) {
   ResizePlan p;
   if (resizePlan(g, n, cause, &p) < 0)
      return -1;
   GTensor_setShape(GNode_output(g, n, 0), GNode_input(g, n, 0)->dtype, p.rank, p.out);
   return 0;
}

/* The input coordinate that output coordinate o maps to on axis a; false where
 * tf_crop_and_resize falls outside the input. */
static bool resizeCoord(const ResizePlan *p, int a, int64_t o, double *xo) {
   double s = p->scale[a], len = p->length[a], in = (double)p->in[a], x = (double)o;
   switch (p->coord) {
   case CT_HALF_PIXEL:
      *xo = (x + 0.5) / s - 0.5;
      break;
   case CT_HALF_PIXEL_SYMMETRIC: {
      double adj = (double)p->out[a] / (s * in), center = in / 2.0;
      *xo = center * (1.0 - adj) + (x + 0.5) / s - 0.5;
      break;
   }
   case CT_PYTORCH_HALF_PIXEL:
      *xo = len > 1.0 ? (x + 0.5) / s - 0.5 : -0.5;
      break;
   case CT_ALIGN_CORNERS:
      *xo = len == 1.0 ? 0.0 : x * (in - 1.0) / (len - 1.0);
      break;
   case CT_ASYMMETRIC:
      *xo = x / s;
      break;
   case CT_TF_HALF_PIXEL_FOR_NN:
      *xo = (x + 0.5) / s;
      break;
   case CT_TF_CROP_AND_RESIZE: {
      double r0 = p->roiStart[a], r1 = p->roiEnd[a];
      *xo = len > 1.0 ? r0 * (in - 1.0) + x * (r1 - r0) * (in - 1.0) / (len - 1.0)
                      : 0.5 * (r0 + r1) * (in - 1.0);
      if (*xo < 0.0 || *xo > in - 1.0)
         return false;
      break;
   }
   }
   return true;
}

/* Each output coordinate's taps on one axis: up to four input indices and weights, the
 * nonzero ones first. */
typedef struct {
   int64_t *idx;
   double *w;
   int *count;
   bool *outside;
} AxisTaps;

static void resizeAxisTaps(const ResizePlan *p, int a, AxisTaps *t) {
   int64_t out = p->out[a], in = p->in[a];
   t->idx = xMalloc(sizeof(int64_t) * 4 * (size_t)(out ? out : 1));
   t->w = xMalloc(sizeof(double) * 4 * (size_t)(out ? out : 1));
   t->count = xMalloc(sizeof(int) * (size_t)(out ? out : 1));
   t->outside = xMalloc(sizeof(bool) * (size_t)(out ? out : 1));
   for (int64_t o = 0; o < out; o++) {
      double xo = 0.0, w[4];
      int64_t base, nt;
      t->outside[o] = !resizeCoord(p, a, o, &xo);
      /* every tap is clamped into the input: a coordinate far outside it (an absurd
       * scale or roi, NaN) reads the edge, and its floor stays an int64 */
      if (!(xo >= -4.0))
         xo = -4.0;
      else if (xo > (double)in + 4.0)
         xo = (double)in + 4.0;
      double fl = floor(xo), r = xo - fl;
      if (p->mode == RS_NEAREST) {
         bool up;
         switch (p->nearest) {
         case NM_ROUND_FLOOR: up = r > 0.5; break;
         case NM_ROUND_CEIL: up = r >= 0.5; break;
         case NM_FLOOR: up = false; break;
         case NM_CEIL: up = r > 0.0; break;
         default: up = p->scale[a] < 1.0 && r > 0.0; break;
         }
         base = (int64_t)fl + up;
         nt = 1;
         w[0] = 1.0;
      } else if (p->mode == RS_LINEAR) {
         base = (int64_t)fl;
         nt = 2;
         w[0] = 1.0 - r;
         w[1] = r;
      } else {
         double A = p->cubicA, r1 = r + 1.0, q = 1.0 - r, q1 = q + 1.0;
         base = (int64_t)fl - 1;
         nt = 4;
         w[0] = ((A * r1 - 5.0 * A) * r1 + 8.0 * A) * r1 - 4.0 * A;
         w[1] = ((A + 2.0) * r - (A + 3.0)) * r * r + 1.0;
         w[2] = ((A + 2.0) * q - (A + 3.0)) * q * q + 1.0;
         w[3] = ((A * q1 - 5.0 * A) * q1 + 8.0 * A) * q1 - 4.0 * A;
      }
      double total = 0.0;
      for (int k = 0; k < nt; k++) {
         if (p->excludeOutside && (base + k < 0 || base + k >= in))
            w[k] = 0.0;
         total += w[k];
      }
      int c = 0;
      for (int k = 0; k < nt; k++) {
         if (w[k] == 0.0)
            continue;
         int64_t i = base + k;
         t->idx[4 * o + c] = i < 0 ? 0 : i >= in ? in - 1 : i;
         t->w[4 * o + c] = p->excludeOutside && total != 0.0 ? w[k] / total : w[k];
         c++;
      }
      t->count[o] = c;
   }
}

static int resizeEval(Graph *g, GNode *n, char **cause) {
   ResizePlan p;
   if (resizePlan(g, n, cause, &p) < 0)
      return -1;
   const GTensor *xt = GNode_input(g, n, 0);
   GTensor *yt = GNode_output(g, n, 0);
   AxisTaps taps[MAXD];
   int64_t stride[MAXD];
   for (int a = p.rank - 1; a >= 0; a--) {
      stride[a] = a == p.rank - 1 ? 1 : stride[a + 1] * p.in[a + 1];
      resizeAxisTaps(&p, a, &taps[a]);
   }
   double *x = loadDouble(xt), *y = outBuffer(yt);
   int64_t ny = prod(p.rank, p.out), o[MAXD] = { 0 };
   for (int64_t e = 0; e < ny; e++) {
      bool outside = false;
      for (int a = 0; a < p.rank; a++)
         outside |= taps[a].outside[o[a]];
      if (outside) {
         y[e] = p.extrapolation;
      } else {
         /* every combination of the axes' taps */
         int k[MAXD] = { 0 };
         double acc = 0.0;
         for (;;) {
            double w = 1.0;
            int64_t off = 0;
            for (int a = 0; a < p.rank; a++) {
               w *= taps[a].w[4 * o[a] + k[a]];
               off += taps[a].idx[4 * o[a] + k[a]] * stride[a];
            }
            acc += w * x[off];
            int a = p.rank - 1;
            for (; a >= 0; a--) {
               if (++k[a] < taps[a].count[o[a]])
                  break;
               k[a] = 0;
            }
            if (a < 0)
               break;
         }
         y[e] = acc;
      }
      Graph_nextIndex(p.rank, p.out, o);
   }
   storeDouble(yt, y);
   for (int a = 0; a < p.rank; a++) {
      free(taps[a].idx);
      free(taps[a].w);
      free(taps[a].count);
      free(taps[a].outside);
   }
   free(x);
   free(y);
   return 0;
}

/* ---- work bounds, for constant folding's budget: in spans (GTensor_span), as the
 * references loop over parts of shapes that a 0 elsewhere does not end ---- */

static int64_t spanOf(const Graph *g, const GNode *n, bool output, int i) {
   const GTensor *t = output ? GNode_output(g, n, i) : GNode_input(g, n, i);
   return t ? GTensor_span(t) : 0;
}

/* What every reference does at least: read and write each tensor. */
static int64_t linearWork(const Graph *g, const GNode *n) {
   int64_t w = 0;
   for (int i = 0; i < n->nin; i++)
      w = Graph_addDims(w, spanOf(g, n, false, i));
   for (int i = 0; i < n->nout; i++)
      w = Graph_addDims(w, spanOf(g, n, true, i));
   return w;
}

/* Each output element sums the weight's taps of a group: at most the weight's span. */
static int64_t convWork(const Graph *g, const GNode *n) {
   return Graph_addDims(linearWork(g, n), Graph_mulDims(spanOf(g, n, true, 0), spanOf(g, n, false, 1)));
}

/* Each input position walks the kernel; each input element adds into the weight's span. */
static int64_t convTransposeWork(const Graph *g, const GNode *n) {
   return Graph_addDims(linearWork(g, n), Graph_mulDims(spanOf(g, n, false, 0), spanOf(g, n, false, 1)));
}

/* Each output element sums a row of A: at most A's span. */
static int64_t matMulWork(const Graph *g, const GNode *n) {
   return Graph_addDims(linearWork(g, n), Graph_mulDims(spanOf(g, n, true, 0), spanOf(g, n, false, 0)));
}

/* Each output position walks the whole window, once and then per channel. */
static int64_t poolWork(const Graph *g, const GNode *n) {
   int count;
   const int64_t *k = GNode_attrInts(n, "kernel_shape", &count);
   int64_t window = 1;
   for (int i = 0; k && i < count; i++)
      window = Graph_mulDims(window, k[i] > 1 ? k[i] : 1);
   return Graph_addDims(linearWork(g, n), Graph_mulDims(Graph_mulDims(spanOf(g, n, true, 0), 2), window));
}

/* Each output element sums every combination of its axes' taps (up to four each). */
static int64_t resizeWork(const Graph *g, const GNode *n) {
   const GTensor *y = GNode_output(g, n, 0);
   const char *mode = GNode_attrString(n, "mode", "nearest");
   int64_t per = strcmp(mode, "cubic") == 0 ? 4 : strcmp(mode, "linear") == 0 ? 2 : 1, taps = 1;
   for (int a = 0; a < y->ndim; a++)
      taps = Graph_mulDims(taps, per);
   return Graph_addDims(linearWork(g, n), Graph_mulDims(GTensor_span(y), taps));
}

/* ---- the rows ---- */

#define CONV_ATTRS "auto_pad dilations group kernel_shape pads strides"
#define RESIZE11_ATTRS \
   "coordinate_transformation_mode cubic_coeff_a exclude_outside extrapolation_value mode nearest_mode"

const GraphOp GraphOps_nn[] = {
   { "Conv", 1, 21, PAT_OUT_EWISE_FUSABLE, CONV_ATTRS, convInfer, convEval, convWork },
   { "ConvTranspose", 1, 21, PAT_OUT_EWISE_FUSABLE, CONV_ATTRS " output_padding output_shape",
     convTransposeInfer, convTransposeEval, convTransposeWork },
   { "MatMul", 1, 21, PAT_OUT_EWISE_FUSABLE, "", matMulInfer, matMulEval, matMulWork },
   { "Gemm", 1, 6, PAT_OUT_EWISE_FUSABLE, "alpha beta broadcast transA transB", gemmInfer, gemmEval,
     matMulWork },
   { "Gemm", 7, 21, PAT_OUT_EWISE_FUSABLE, "alpha beta transA transB", gemmInfer, gemmEval, matMulWork },
   { "BatchNormalization", 1, 5, PAT_OUT_EWISE_FUSABLE,
     "consumed_inputs epsilon is_test momentum spatial",
     batchNormInfer, batchNormEval, NULL },
   { "BatchNormalization", 6, 6, PAT_OUT_EWISE_FUSABLE, "epsilon is_test momentum spatial",
     batchNormInfer, batchNormEval, NULL },
   { "BatchNormalization", 7, 8, PAT_OUT_EWISE_FUSABLE, "epsilon momentum spatial", batchNormInfer,
     batchNormEval, NULL },
   { "BatchNormalization", 9, 13, PAT_OUT_EWISE_FUSABLE, "epsilon momentum", batchNormInfer,
     batchNormEval, NULL },
   { "BatchNormalization", 14, 21, PAT_OUT_EWISE_FUSABLE, "epsilon momentum training_mode",
     batchNormInfer, batchNormEval, NULL },
   { "MaxPool", 1, 7, PAT_OUT_EWISE_FUSABLE, "auto_pad kernel_shape pads strides", maxPoolInfer,
     maxPoolEval, poolWork },
   { "MaxPool", 8, 9, PAT_OUT_EWISE_FUSABLE, "auto_pad kernel_shape pads storage_order strides",
     maxPoolInfer, maxPoolEval, poolWork },
   { "MaxPool", 10, 21, PAT_OUT_EWISE_FUSABLE,
     "auto_pad ceil_mode dilations kernel_shape pads storage_order strides", maxPoolInfer,
     maxPoolEval, poolWork },
   { "AveragePool", 1, 6, PAT_OUT_EWISE_FUSABLE, "auto_pad kernel_shape pads strides", avgPoolInfer,
     avgPoolEval, poolWork },
   { "AveragePool", 7, 9, PAT_OUT_EWISE_FUSABLE, "auto_pad count_include_pad kernel_shape pads strides",
     avgPoolInfer, avgPoolEval, poolWork },
   { "AveragePool", 10, 18, PAT_OUT_EWISE_FUSABLE,
     "auto_pad ceil_mode count_include_pad kernel_shape pads strides", avgPoolInfer, avgPoolEval, poolWork },
   { "AveragePool", 19, 21, PAT_OUT_EWISE_FUSABLE,
     "auto_pad ceil_mode count_include_pad dilations kernel_shape pads strides", avgPoolInfer,
     avgPoolEval, poolWork },
   { "GlobalAveragePool", 1, 21, PAT_OUT_EWISE_FUSABLE, "", globalPoolInfer, globalAvgPoolEval, NULL },
   { "GlobalMaxPool", 1, 21, PAT_OUT_EWISE_FUSABLE, "", globalPoolInfer, globalMaxPoolEval, NULL },
   { "Softmax", 1, 21, PAT_OUT_EWISE_FUSABLE, "axis", softmaxInfer, softmaxEval, NULL },
   { "LogSoftmax", 1, 21, PAT_OUT_EWISE_FUSABLE, "axis", softmaxInfer, logSoftmaxEval, NULL },
   { "LayerNormalization", 17, 21, PAT_OUT_EWISE_FUSABLE, "axis epsilon stash_type", layerNormInfer,
     layerNormEval, NULL },
   { "ReduceMean", 1, 17, PAT_COMM_REDUCE, "axes keepdims", reduceMeanInfer, reduceMeanEval, NULL },
   { "ReduceMean", 18, 21, PAT_COMM_REDUCE, "keepdims noop_with_empty_axes", reduceMeanInfer,
     reduceMeanEval, NULL },
   { "ReduceSum", 1, 12, PAT_COMM_REDUCE, "axes keepdims", reduceSumInfer, reduceSumEval, NULL },
   { "ReduceSum", 13, 21, PAT_COMM_REDUCE, "keepdims noop_with_empty_axes", reduceSumInfer,
     reduceSumEval, NULL },
   { "ReduceMax", 1, 17, PAT_COMM_REDUCE, "axes keepdims", reduceMaxInfer, reduceMaxEval, NULL },
   { "ReduceMax", 18, 21, PAT_COMM_REDUCE, "keepdims noop_with_empty_axes", reduceMaxInfer,
     reduceMaxEval, NULL },
   { "Resize", 10, 10, PAT_INJECTIVE, "mode", resizeInfer, resizeEval, resizeWork },
   { "Resize", 11, 17, PAT_INJECTIVE, RESIZE11_ATTRS, resizeInfer, resizeEval, resizeWork },
   { "Resize", 18, 21, PAT_INJECTIVE, "antialias axes keep_aspect_ratio_policy " RESIZE11_ATTRS,
     resizeInfer, resizeEval, resizeWork },
   { "Upsample", 1, 6, PAT_INJECTIVE, "height_scale mode width_scale", resizeInfer, resizeEval, resizeWork },
   { "Upsample", 7, 8, PAT_INJECTIVE, "mode scales", resizeInfer, resizeEval, resizeWork },
   { "Upsample", 9, 9, PAT_INJECTIVE, "mode", resizeInfer, resizeEval, resizeWork },
};
const int GraphOps_nnCount = (int)(sizeof GraphOps_nn / sizeof GraphOps_nn[0]);
