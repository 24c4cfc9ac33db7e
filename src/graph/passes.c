/* Graph passes before fusion: removal of inference-only ops, BatchNorm folding and the
 * recognition of decomposed LayerNorm, GELU, hardswish and hardsigmoid. */
#include "config.h"

#include "graph/passes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ops.h"
#include "util/xalloc.h"

#define MAX_READERS 64

int Graph_readers(const Graph *g, int t, int *out, int max) {
   int n = 0;
   for (int i = 0; i < g->nnodes; i++) {
      const GNode *nd = &g->n[i];
      if (nd->dead)
         continue;
      for (int k = 0; k < nd->nin; k++)
         if (nd->in[k] == t) {
            if (n < max)
               out[n] = i;
            n++;
            break;
         }
   }
   return n;
}

static bool isOp(const GNode *n, const char *type) {
   return !n->dead && strcmp(n->opType, type) == 0;
}

/* The live node that writes tensor t, or -1 (an input or weight). */
static int producer(const Graph *g, int t) {
   if (t < 0)
      return -1;
   int p = g->t[t].producer;
   return p >= 0 && !g->n[p].dead ? p : -1;
}

/* The one live reader of tensor t, or -1 when none or several, or when t is a graph
 * output (its value must stay visible). */
static int onlyReader(const Graph *g, int t) {
   if (g->t[t].isOutput)
      return -1;
   int r[2];
   return Graph_readers(g, t, r, 2) == 1 ? r[0] : -1;
}

/* The value of a one-element constant tensor. */
static bool scalarConst(const Graph *g, int t, double *v) {
   if (t < 0 || !g->t[t].data || GTensor_elems(&g->t[t]) != 1)
      return false;
   *v = GTensor_get(&g->t[t], 0);
   return true;
}

static bool near(double a, double b, double rel) {
   return fabs(a - b) <= rel * fabs(b);
}

/* Of a binary node, the input other than tensor x (or -1 when x is not an input). */
static int otherInput(const GNode *n, int x) {
   if (n->nin != 2)
      return -1;
   if (n->in[0] == x)
      return n->in[1];
   if (n->in[1] == x)
      return n->in[0];
   return -1;
}

static void appendOrigin(GNode *dst, const char *names) {
   const char *have = dst->origin ? dst->origin : dst->name;
   char *joined = xAsprintf("%s, %s", have, names);
   free(dst->origin);
   dst->origin = joined;
}

static const char *originOf(const GNode *n) {
   return n->origin ? n->origin : n->name;
}

/* Rewrites node ni in place as opType (the row found at `opset`) reading in[], keeping
 * its first output; the names of `merged` nodes (which die) join its origin. */
static void rewriteNode(Graph *g, int ni, const char *opType, int opset, int nin, const int *in,
                        const int *merged, int nmerged) {
   char *origin = xStrdup("");
   for (int i = 0; i < nmerged; i++) {
      const GNode *m = &g->n[merged[i]];
      char *more = xAsprintf("%s%s%s", origin, *origin ? ", " : "", originOf(m));
      free(origin);
      origin = more;
      if (merged[i] != ni)
         g->n[merged[i]].dead = true;
   }
   GNode *n = &g->n[ni];
   for (int i = 0; i < n->nattr; i++) {
      free(n->attr[i].name);
      free(n->attr[i].s);
      free(n->attr[i].ints);
      free(n->attr[i].floats);
      for (int k = 0; k < n->attr[i].n && n->attr[i].strings; k++)
         free(n->attr[i].strings[k]);
      free(n->attr[i].strings);
   }
   n->nattr = 0;
   free(n->opType);
   n->opType = xStrdup(opType);
   n->op = GraphOp_row(GraphOp_find(opType, opset, NULL));
   if (n->op < 0)
      fatal("the graph op table has no %s at opset %d", opType, opset);
   free(n->in);
   n->in = xMalloc(sizeof(int) * (size_t)nin);
   memcpy(n->in, in, sizeof(int) * (size_t)nin);
   n->nin = nin;
   n->nout = 1;
   free(n->origin);
   n->origin = origin;
}

static void addFloatAttr(GNode *n, const char *name, double v) {
   n->attr = xReallocArray(n->attr, (size_t)n->nattr + 1, sizeof *n->attr);
   GAttr *a = &n->attr[n->nattr++];
   memset(a, 0, sizeof *a);
   a->name = xStrdup(name);
   a->type = GA_FLOAT;
   a->f = v;
   a->tensor = -1;
}

static void addIntAttr(GNode *n, const char *name, int64_t v) {
   n->attr = xReallocArray(n->attr, (size_t)n->nattr + 1, sizeof *n->attr);
   GAttr *a = &n->attr[n->nattr++];
   memset(a, 0, sizeof *a);
   a->name = xStrdup(name);
   a->type = GA_INT;
   a->i = v;
   a->tensor = -1;
}

/* Every read of tensor `from` reads `to` instead; a graph output moves with it. */
static void rewire(Graph *g, int from, int to) {
   for (int i = 0; i < g->nnodes; i++)
      for (int k = 0; k < g->n[i].nin; k++)
         if (g->n[i].in[k] == from)
            g->n[i].in[k] = to;
   for (int i = 0; i < g->noutputs; i++)
      if (g->outputs[i] == from) {
         g->outputs[i] = to;
         g->t[to].isOutput = true;
      }
}

/* ---- Dropout and Identity ---- */

static int removeInferenceOnly(Graph *g) {
   int removed = 0;
   for (int i = 0; i < g->nnodes; i++) {
      GNode *n = &g->n[i];
      if (!isOp(n, "Dropout") && !isOp(n, "Identity"))
         continue;
      /* a mask someone reads keeps the Dropout */
      if (n->nout > 1 && n->out[1] >= 0) {
         int r[1];
         if (Graph_readers(g, n->out[1], r, 1) > 0 || g->t[n->out[1]].isOutput)
            continue;
      }
      int src = n->in[0], dst = n->out[0];
      /* an input that is also the graph's output keeps its Identity */
      if (g->t[dst].isOutput && (g->t[src].isOutput || g->t[src].role == GT_INPUT))
         continue;
      n->dead = true;
      int p = producer(g, src);
      if (g->t[dst].isOutput && p >= 0 && !g->t[src].isOutput) {
         /* the graph output keeps its name: its producer now writes it */
         for (int k = 0; k < g->n[p].nout; k++)
            if (g->n[p].out[k] == src)
               g->n[p].out[k] = dst;
         g->t[dst].producer = p;
         for (int r = 0; r < g->nnodes; r++)
            for (int k = 0; k < g->n[r].nin; k++)
               if (g->n[r].in[k] == src)
                  g->n[r].in[k] = dst;
      } else {
         rewire(g, dst, src);
         g->t[dst].isOutput = false;
      }
      removed++;
   }
   return removed;
}

/* ---- BatchNormalization into the Conv before it ---- */

static int foldBatchNorms(Graph *g) {
   int folded = 0;
   for (int i = 0; i < g->nnodes; i++) {
      GNode *bn = &g->n[i];
      if (!isOp(bn, "BatchNormalization") || bn->nin < 5)
         continue;
      if (bn->nout > 1) {
         bool extra = false;
         for (int k = 1; k < bn->nout; k++)
            extra |= bn->out[k] >= 0;
         if (extra)
            continue;
      }
      int ci = producer(g, bn->in[0]);
      if (ci < 0 || !isOp(&g->n[ci], "Conv") || onlyReader(g, bn->in[0]) != i)
         continue;
      GNode *conv = &g->n[ci];
      const GTensor *w = GNode_input(g, conv, 1), *b = GNode_input(g, conv, 2);
      const GTensor *scale = GNode_input(g, bn, 1), *beta = GNode_input(g, bn, 2);
      const GTensor *mean = GNode_input(g, bn, 3), *var = GNode_input(g, bn, 4);
      if (!w || !w->data || w->dtype != GT_FLOAT || (b && !b->data) || !scale || !scale->data ||
          !beta || !beta->data || !mean || !mean->data || !var || !var->data)
         continue;
      int64_t oc = w->dims[0];
      if (GTensor_elems(scale) != oc || GTensor_elems(beta) != oc || GTensor_elems(mean) != oc ||
          GTensor_elems(var) != oc || (b && GTensor_elems(b) != oc))
         continue;
      double eps = GNode_attrFloat(bn, "epsilon", 1e-5);
      char stem[256];
      snprintf(stem, sizeof stem, "%s.folded_weight", conv->name);
      int wi = Graph_newTensor(g, stem);
      snprintf(stem, sizeof stem, "%s.folded_bias", conv->name);
      int bi = Graph_newTensor(g, stem);
      /* pointers again: adding tensors may move them */
      conv = &g->n[ci];
      bn = &g->n[i];
      w = GNode_input(g, conv, 1);
      b = GNode_input(g, conv, 2);
      scale = GNode_input(g, bn, 1), beta = GNode_input(g, bn, 2);
      mean = GNode_input(g, bn, 3), var = GNode_input(g, bn, 4);
      GTensor *nw = &g->t[wi], *nb = &g->t[bi];
      GTensor_setShape(nw, GT_FLOAT, w->ndim, w->dims);
      nw->role = GT_WEIGHT;
      GTensor_setShape(nb, GT_FLOAT, 1, &oc);
      nb->role = GT_WEIGHT;
      float *wd = GTensor_alloc(nw), *bd = GTensor_alloc(nb);
      int64_t per = GTensor_elems(w) / (oc ? oc : 1);
      const float *src = w->data;
      for (int64_t o = 0; o < oc; o++) {
         double s = GTensor_get(scale, o) / sqrt(GTensor_get(var, o) + eps);
         for (int64_t k = 0; k < per; k++)
            wd[o * per + k] = (float)(src[o * per + k] * s);
         double b0 = b ? GTensor_get(b, o) : 0.0;
         bd[o] = (float)((b0 - GTensor_get(mean, o)) * s + GTensor_get(beta, o));
      }
      if (conv->nin < 3) {
         conv->in = xReallocArray(conv->in, 3, sizeof(int));
         conv->nin = 3;
      }
      conv->in[1] = wi;
      conv->in[2] = bi;
      conv->out[0] = bn->out[0];
      g->t[bn->out[0]].producer = ci;
      appendOrigin(conv, originOf(bn));
      bn->dead = true;
      folded++;
   }
   return folded;
}

/* ---- a BatchNormalization that no Conv took, as x * scale + shift: Relay's
 * SimplifyInference ---- */

/* A new float32 weight tensor named from `stem`, of the given shape, zeroed. */
static int newWeight(Graph *g, const char *stem, int ndim, const int64_t *dims) {
   int t = Graph_newTensor(g, stem);
   GTensor_setShape(&g->t[t], GT_FLOAT, ndim, dims);
   g->t[t].role = GT_WEIGHT;
   GTensor_alloc(&g->t[t]);
   return t;
}

/* For BatchNormalization node i, the constants scale = gamma / sqrt(var + eps) and
 * shift = beta - mean * scale, shaped to broadcast onto its input: C x 1 x ... (one
 * value a channel, along axis 1) or, where spatial 0 gives values an element of a
 * sample, C x D1 x ..., as the node's reference reads them. False, making nothing,
 * when the node is not one to rewrite. */
static bool batchNormAffine(Graph *g, int i, int *scale, int *shift) {
   const GNode *bn = &g->n[i];
   if (!isOp(bn, "BatchNormalization") || bn->nin != 5 || bn->nout < 1 || bn->out[0] < 0)
      return false;
   for (int k = 1; k < bn->nout; k++)
      if (bn->out[k] >= 0)
         return false;
   const GTensor *x = GNode_input(g, bn, 0);
   if (!x || x->dtype != GT_FLOAT || x->ndim < 2 || x->dims[1] < 1)
      return false;
   int64_t c = x->dims[1], inner = 1;
   bool perElement = false;
   for (int k = 1; k < 5; k++) {
      const GTensor *p = GNode_input(g, bn, k);
      if (!p || !p->data || !GType_isFloat(p->dtype))
         return false;
      perElement |= GTensor_elems(p) != c;
   }
   int64_t dims[GRAPH_MAX_DIMS];
   dims[0] = c;
   for (int a = 2; a < x->ndim; a++) {
      if (perElement && x->dims[a] < 0)
         return false;
      dims[a - 1] = perElement ? x->dims[a] : 1;
      inner = Graph_mulDims(inner, dims[a - 1]);
   }
   for (int k = 1; k < 5; k++) {
      int64_t e = GTensor_elems(GNode_input(g, bn, k));
      if (e != c && e != Graph_mulDims(c, inner))
         return false;
   }
   int rank = x->ndim - 1;
   char stem[256];
   snprintf(stem, sizeof stem, "%s.bn_scale", g->t[bn->out[0]].name);
   *scale = newWeight(g, stem, rank, dims);
   snprintf(stem, sizeof stem, "%s.bn_shift", g->t[bn->out[0]].name);
   *shift = newWeight(g, stem, rank, dims);
   /* tensors again: adding tensors may move them */
   const GTensor *p[5];
   for (int k = 1; k < 5; k++)
      p[k] = GNode_input(g, bn, k);
   double eps = GNode_attrFloat(bn, "epsilon", 1e-5);
   float *sd = g->t[*scale].data, *hd = g->t[*shift].data;
   for (int64_t ch = 0; ch < c; ch++)
      for (int64_t e = 0; e < inner; e++) {
         double v[5];
         for (int k = 1; k < 5; k++)
            v[k] = GTensor_get(p[k], GTensor_elems(p[k]) == c ? ch : ch * inner + e);
         double s = v[1] / sqrt(v[4] + eps);
         sd[ch * inner + e] = (float)s;
         hd[ch * inner + e] = (float)(v[2] - v[3] * s);
      }
   return true;
}

/* Each BatchNormalization left becomes a Mul by its scale and an Add of its shift in its
 * place, both with its name as their origin. The nodes move once, for all of them. */
static int simplifyBatchNorms(Graph *g) {
   int *scale = xMalloc(sizeof(int) * (size_t)(g->nnodes ? g->nnodes : 1));
   int *shift = xMalloc(sizeof(int) * (size_t)(g->nnodes ? g->nnodes : 1));
   int count = 0;
   for (int i = 0; i < g->nnodes; i++) {
      scale[i] = -1;
      if (batchNormAffine(g, i, &scale[i], &shift[i]))
         count++;
   }
   if (count == 0) {
      free(scale);
      free(shift);
      return 0;
   }
   /* room for each Add right after its Mul */
   int old = g->nnodes;
   GNode *nodes = xCalloc((size_t)(old + count), sizeof *nodes);
   int *at = xMalloc(sizeof(int) * (size_t)old);
   for (int i = 0, k = 0; i < old; i++) {
      at[i] = k;
      nodes[k++] = g->n[i];
      k += scale[i] >= 0;
   }
   free(g->n);
   g->n = nodes;
   g->nnodes = g->capnodes = old + count;
   for (int t = 0; t < g->ntensors; t++)
      if (g->t[t].producer >= 0)
         g->t[t].producer = at[g->t[t].producer];
   for (int i = 0; i < old; i++) {
      if (scale[i] < 0)
         continue;
      int mi = at[i], y = g->n[mi].out[0];
      char stem[256];
      snprintf(stem, sizeof stem, "%s.bn_scaled", g->t[y].name);
      int mid = Graph_newTensor(g, stem);
      const GTensor *x = GNode_input(g, &g->n[mi], 0);
      GTensor_setShape(&g->t[mid], x->dtype, x->ndim, x->dims);
      int mulIn[2] = { g->n[mi].in[0], scale[i] };
      rewriteNode(g, mi, "Mul", 14, 2, mulIn, &mi, 1);
      g->n[mi].out[0] = mid;
      g->t[mid].producer = mi;
      GNode *add = &g->n[mi + 1];
      add->name = xStrdup(g->n[mi].name);
      add->opType = xStrdup("Add");
      add->op = GraphOp_row(GraphOp_find("Add", 14, NULL));
      if (add->op < 0)
         fatal("the graph op table has no Add at opset 14");
      add->nin = 2;
      add->in = xMalloc(2 * sizeof(int));
      add->in[0] = mid;
      add->in[1] = shift[i];
      add->nout = 1;
      add->out = xMalloc(sizeof(int));
      add->out[0] = y;
      add->origin = xStrdup(g->n[mi].origin);
      g->t[y].producer = mi + 1;
   }
   free(at);
   free(scale);
   free(shift);
   return count;
}

/* ---- a per-channel constant Mul or Add after a Conv (a frozen BatchNorm as
 * x * scale + shift, as DETR exports it) folded into its weights and bias, as Relay's
 * FoldScaleAxis does ---- */

/* The per-channel values of a constant c that broadcasts along axis 1 of a 4-D y
 * ([C], [C, 1, 1] or [1, C, 1, 1]), or NULL. */
static const GTensor *channelConstant(const Graph *g, int c, const GTensor *y) {
   if (c < 0 || !g->t[c].data || y->ndim != 4)
      return NULL;
   const GTensor *t = &g->t[c];
   int64_t ch = y->dims[1];
   if (GTensor_elems(t) != ch || t->ndim > 4 || t->ndim < 3)
      return NULL;
   for (int i = 0; i < t->ndim; i++) {
      int ya = i + (4 - t->ndim);
      if (ya == 1 ? t->dims[i] != ch : t->dims[i] != 1)
         return NULL;
   }
   return t;
}

static int foldChannelAffine(Graph *g) {
   int folded = 0;
   for (int i = 0; i < g->nnodes; i++) {
      GNode *op = &g->n[i];
      bool mul = isOp(op, "Mul"), add = isOp(op, "Add");
      if ((!mul && !add) || op->nin != 2)
         continue;
      int ci = -1, c = -1;
      for (int k = 0; k < 2 && ci < 0; k++) {
         int p = producer(g, op->in[k]);
         if (p >= 0 && isOp(&g->n[p], "Conv") && onlyReader(g, op->in[k]) == i) {
            ci = p;
            c = op->in[1 - k];
         }
      }
      if (ci < 0)
         continue;
      const GTensor *y = &g->t[g->n[ci].out[0]];
      const GTensor *cv = channelConstant(g, c, y);
      const GTensor *w = GNode_input(g, &g->n[ci], 1), *b = GNode_input(g, &g->n[ci], 2);
      if (!cv || !w || !w->data || w->dtype != GT_FLOAT || w->dims[0] != y->dims[1] || (b && !b->data))
         continue;
      int64_t oc = w->dims[0];
      char stem[256];
      int wi = -1;
      if (mul) {
         snprintf(stem, sizeof stem, "%s.scaled_weight", g->n[ci].name);
         wi = Graph_newTensor(g, stem);
      }
      snprintf(stem, sizeof stem, "%s.%s_bias", g->n[ci].name, mul ? "scaled" : "shifted");
      int bi = Graph_newTensor(g, stem);
      GNode *conv = &g->n[ci];
      op = &g->n[i];
      w = GNode_input(g, conv, 1);
      b = GNode_input(g, conv, 2);
      cv = &g->t[c];
      GTensor *nb = &g->t[bi];
      GTensor_setShape(nb, GT_FLOAT, 1, &oc);
      nb->role = GT_WEIGHT;
      float *bd = GTensor_alloc(nb);
      for (int64_t o = 0; o < oc; o++) {
         double b0 = b ? GTensor_get(b, o) : 0.0, v = GTensor_get(cv, o);
         bd[o] = (float)(mul ? b0 * v : b0 + v);
      }
      if (mul) {
         GTensor *nw = &g->t[wi];
         GTensor_setShape(nw, GT_FLOAT, w->ndim, w->dims);
         nw->role = GT_WEIGHT;
         float *wd = GTensor_alloc(nw);
         int64_t per = GTensor_elems(w) / (oc ? oc : 1);
         const float *src = w->data;
         for (int64_t o = 0; o < oc; o++)
            for (int64_t k = 0; k < per; k++)
               wd[o * per + k] = (float)(src[o * per + k] * GTensor_get(cv, o));
         conv->in[1] = wi;
      }
      if (conv->nin < 3) {
         conv->in = xReallocArray(conv->in, 3, sizeof(int));
         conv->nin = 3;
      }
      conv->in[2] = bi;
      conv->out[0] = op->out[0];
      g->t[op->out[0]].producer = ci;
      appendOrigin(conv, originOf(op));
      op->dead = true;
      folded++;
   }
   return folded;
}

/* ---- GELU: x / sqrt(2) (or x * 1/sqrt(2)) -> Erf -> + 1 -> * x -> * 0.5, the two
 * multiplies in either order ---- */

static int recogniseGelus(Graph *g, PassCounts *c) {
   int found = 0;
   for (int i = 0; i < g->nnodes; i++) {
      if (!isOp(&g->n[i], "Erf"))
         continue;
      int nodes[5], nn = 0;
      int di = producer(g, g->n[i].in[0]);
      if (di < 0 || onlyReader(g, g->n[i].in[0]) != i)
         continue;
      const GNode *d = &g->n[di];
      double k;
      int x;
      if (isOp(d, "Div") && scalarConst(g, d->in[1], &k) && near(k, sqrt(2.0), 1e-3))
         x = d->in[0];
      else if (isOp(d, "Mul") && scalarConst(g, d->in[1], &k) && near(k, 1 / sqrt(2.0), 1e-3))
         x = d->in[0];
      else if (isOp(d, "Mul") && scalarConst(g, d->in[0], &k) && near(k, 1 / sqrt(2.0), 1e-3))
         x = d->in[1];
      else
         continue;
      nodes[nn++] = di;
      nodes[nn++] = i;
      int ai = onlyReader(g, g->n[i].out[0]);
      if (ai < 0 || !isOp(&g->n[ai], "Add") || !scalarConst(g, otherInput(&g->n[ai], g->n[i].out[0]), &k) ||
          k != 1.0)
         continue;
      nodes[nn++] = ai;
      /* two multiplies: by x and by 0.5, in either order */
      int cur = g->n[ai].out[0];
      bool byX = false, byHalf = false;
      int last = -1;
      for (int step = 0; step < 2; step++) {
         int mi = onlyReader(g, cur);
         if (mi < 0 || !isOp(&g->n[mi], "Mul"))
            break;
         int other = otherInput(&g->n[mi], cur);
         if (other == x && !byX)
            byX = true;
         else if (!byHalf && scalarConst(g, other, &k) && k == 0.5)
            byHalf = true;
         else
            break;
         nodes[nn++] = mi;
         cur = g->n[mi].out[0];
         last = mi;
      }
      if (!byX || !byHalf)
         continue;
      if (g->t[x].dtype != GT_FLOAT)
         continue;
      int in[1] = { x };
      rewriteNode(g, last, "Gelu", 20, 1, in, nodes, nn);
      c->nodesReplaced += nn;
      found++;
   }
   return found;
}

/* ---- LayerNorm: mean = ReduceMean(x, last axis); d = x - mean; v = ReduceMean(d^2);
 * y = d / sqrt(v + eps) [* gamma] [+ beta] ---- */

/* Whether n is a ReduceMean with keepdims over exactly `want` axes, given as its
 * attribute (before opset 18) or a constant input: into axes[0..want). */
static bool keptMeanAxes(const Graph *g, const GNode *n, int want, int64_t *axes) {
   if (!isOp(n, "ReduceMean") || GNode_attrInt(n, "keepdims", 1) != 1)
      return false;
   int count;
   const int64_t *attr = GNode_attrInts(n, "axes", &count);
   const GTensor *in = attr || n->nin < 2 ? NULL : GNode_input(g, n, 1);
   if (attr && count == want) {
      memcpy(axes, attr, sizeof *axes * (size_t)want);
      return true;
   }
   if (!in || !in->data || GTensor_elems(in) != want)
      return false;
   for (int i = 0; i < want; i++)
      axes[i] = GTensor_getInt(in, i);
   return true;
}

/* Whether a ReduceMean node averages exactly the last axis of its rank-r input with
 * keepdims. */
static bool meanOverLastAxis(const Graph *g, const GNode *n) {
   const GTensor *x = GNode_input(g, n, 0);
   int64_t axis;
   return keptMeanAxes(g, n, 1, &axis) && x && (axis == -1 || axis == x->ndim - 1);
}

static int recogniseLayerNorms(Graph *g, PassCounts *c) {
   int found = 0;
   for (int i = 0; i < g->nnodes; i++) {
      if (!meanOverLastAxis(g, &g->n[i]))
         continue;
      int x = g->n[i].in[0], mean = g->n[i].out[0];
      if (g->t[x].dtype != GT_FLOAT || g->t[mean].isOutput)
         continue;
      int rd[4];
      int nr = Graph_readers(g, mean, rd, 4);
      /* one Sub, or two Subs (older exports repeat it): x - mean */
      int subs[2], nsub = 0;
      bool ok = nr >= 1 && nr <= 2;
      for (int k = 0; ok && k < nr; k++) {
         const GNode *s = &g->n[rd[k]];
         ok = isOp(s, "Sub") && s->in[0] == x && s->in[1] == mean;
         if (ok)
            subs[nsub++] = rd[k];
      }
      if (!ok)
         continue;
      /* the squared branch and the divided branch */
      int powNode = -1, divNode = -1;
      for (int k = 0; k < nsub && ok; k++) {
         int dt = g->n[subs[k]].out[0];
         if (g->t[dt].isOutput) {
            ok = false;
            break;
         }
         int dr[4];
         int ndr = Graph_readers(g, dt, dr, 4);
         for (int r = 0; r < ndr && r < 4; r++) {
            const GNode *u = &g->n[dr[r]];
            double e;
            if (isOp(u, "Pow") && u->in[0] == dt && scalarConst(g, u->in[1], &e) && e == 2.0 && powNode < 0)
               powNode = dr[r];
            else if (isOp(u, "Mul") && u->in[0] == dt && u->in[1] == dt && powNode < 0)
               powNode = dr[r];
            else if (isOp(u, "Div") && u->in[0] == dt && divNode < 0)
               divNode = dr[r];
            else
               ok = false;
         }
      }
      if (!ok || powNode < 0 || divNode < 0)
         continue;
      int vi = onlyReader(g, g->n[powNode].out[0]);
      if (vi < 0 || !meanOverLastAxis(g, &g->n[vi]))
         continue;
      int ai = onlyReader(g, g->n[vi].out[0]);
      double eps;
      if (ai < 0 || !isOp(&g->n[ai], "Add") || !scalarConst(g, otherInput(&g->n[ai], g->n[vi].out[0]), &eps) ||
          !(eps > 0 && eps < 1))
         continue;
      int si = onlyReader(g, g->n[ai].out[0]);
      if (si < 0 || !isOp(&g->n[si], "Sqrt") || onlyReader(g, g->n[si].out[0]) != divNode ||
          g->n[divNode].in[1] != g->n[si].out[0])
         continue;
      int nodes[12], nn = 0;
      nodes[nn++] = i;
      for (int k = 0; k < nsub; k++)
         nodes[nn++] = subs[k];
      nodes[nn++] = powNode;
      nodes[nn++] = vi;
      nodes[nn++] = ai;
      nodes[nn++] = si;
      nodes[nn++] = divNode;
      int last = divNode, cur = g->n[divNode].out[0];
      int64_t hidden = g->t[x].dims[g->t[x].ndim - 1];
      int gamma = -1, beta = -1;
      int mi = onlyReader(g, cur);
      if (mi >= 0 && isOp(&g->n[mi], "Mul")) {
         int o = otherInput(&g->n[mi], cur);
         if (o >= 0 && g->t[o].data && g->t[o].dtype == GT_FLOAT && GTensor_elems(&g->t[o]) == hidden &&
             g->t[o].ndim >= 1 && g->t[o].dims[g->t[o].ndim - 1] == hidden) {
            gamma = o;
            nodes[nn++] = mi;
            last = mi;
            cur = g->n[mi].out[0];
         }
      }
      int bi = onlyReader(g, cur);
      if (bi >= 0 && isOp(&g->n[bi], "Add")) {
         int o = otherInput(&g->n[bi], cur);
         if (o >= 0 && g->t[o].data && g->t[o].dtype == GT_FLOAT && GTensor_elems(&g->t[o]) == hidden &&
             g->t[o].ndim >= 1 && g->t[o].dims[g->t[o].ndim - 1] == hidden) {
            beta = o;
            nodes[nn++] = bi;
            last = bi;
         }
      }
      /* a plain (gamma 1, beta 0) LayerNormalization has both, as the op library's */
      char stem[256];
      if (gamma < 0 || beta < 0) {
         int64_t dims[1] = { hidden };
         if (gamma < 0) {
            snprintf(stem, sizeof stem, "%s.gamma", g->n[last].name);
            gamma = Graph_newTensor(g, stem);
            GTensor_setShape(&g->t[gamma], GT_FLOAT, 1, dims);
            g->t[gamma].role = GT_WEIGHT;
            float *d = GTensor_alloc(&g->t[gamma]);
            for (int64_t k = 0; k < hidden; k++)
               d[k] = 1.0f;
         }
         if (beta < 0) {
            snprintf(stem, sizeof stem, "%s.beta", g->n[last].name);
            beta = Graph_newTensor(g, stem);
            GTensor_setShape(&g->t[beta], GT_FLOAT, 1, dims);
            g->t[beta].role = GT_WEIGHT;
            GTensor_alloc(&g->t[beta]);
         }
      }
      int in[3] = { x, gamma, beta };
      rewriteNode(g, last, "LayerNormalization", 17, 3, in, nodes, nn);
      addIntAttr(&g->n[last], "axis", -1);
      addFloatAttr(&g->n[last], "epsilon", eps);
      c->nodesReplaced += nn;
      found++;
   }
   return found;
}

/* ---- global average pooling as ReduceMean over H and W (torch.export's form of
 * adaptive_avg_pool2d to 1x1): ReduceMean(x, axes {2, 3} or {-2, -1}, keepdims) of a
 * rank-4 float x is GlobalAveragePool(x) ---- */

static bool meanOverSpatialAxes(const Graph *g, const GNode *n) {
   const GTensor *x = GNode_input(g, n, 0);
   int64_t axes[2];
   if (!keptMeanAxes(g, n, 2, axes) || !x || x->ndim != 4 || x->dtype != GT_FLOAT)
      return false;
   bool seen[4] = { false, false, false, false };
   for (int i = 0; i < 2; i++) {
      int64_t a = axes[i] < 0 ? axes[i] + 4 : axes[i];
      if (a < 2 || a > 3 || seen[a])
         return false;
      seen[a] = true;
   }
   return true;
}

static int recogniseGlobalPools(Graph *g, PassCounts *c) {
   int found = 0;
   for (int i = 0; i < g->nnodes; i++) {
      if (g->n[i].dead || !meanOverSpatialAxes(g, &g->n[i]))
         continue;
      int in[1] = { g->n[i].in[0] };
      int nodes[1] = { i };
      rewriteNode(g, i, "GlobalAveragePool", 1, 1, in, nodes, 1);
      c->nodesReplaced++;
      found++;
   }
   return found;
}

/* ---- hardswish x * clip(x + 3, 0, 6) / 6 and hardsigmoid clip(x + 3, 0, 6) / 6 ---- */

/* Clip's bounds, from attributes (before opset 11) or constant inputs. */
static bool clipBounds(const Graph *g, const GNode *n, double *lo, double *hi) {
   *lo = -INFINITY;
   *hi = INFINITY;
   if (g->opset < 11) {
      *lo = GNode_attrFloat(n, "min", -INFINITY);
      *hi = GNode_attrFloat(n, "max", INFINITY);
      return true;
   }
   if (n->nin > 1 && n->in[1] >= 0 && !scalarConst(g, n->in[1], lo))
      return false;
   if (n->nin > 2 && n->in[2] >= 0 && !scalarConst(g, n->in[2], hi))
      return false;
   return true;
}

static int recogniseHardActivations(Graph *g, PassCounts *c) {
   int found = 0;
   for (int i = 0; i < g->nnodes; i++) {
      if (!isOp(&g->n[i], "Add"))
         continue;
      const GNode *a = &g->n[i];
      double k;
      int x;
      if (scalarConst(g, a->in[1], &k) && k == 3.0)
         x = a->in[0];
      else if (scalarConst(g, a->in[0], &k) && k == 3.0)
         x = a->in[1];
      else
         continue;
      if (x < 0 || g->t[x].dtype != GT_FLOAT)
         continue;
      int ci = onlyReader(g, a->out[0]);
      double lo, hi;
      if (ci < 0 || !isOp(&g->n[ci], "Clip") || !clipBounds(g, &g->n[ci], &lo, &hi) || lo != 0 || hi != 6)
         continue;
      int di = onlyReader(g, g->n[ci].out[0]);
      if (di < 0)
         continue;
      const GNode *d = &g->n[di];
      bool sixth = (isOp(d, "Div") && d->in[0] == g->n[ci].out[0] && scalarConst(g, d->in[1], &k) && k == 6.0) ||
                   (isOp(d, "Mul") && scalarConst(g, otherInput(d, g->n[ci].out[0]), &k) &&
                    near(k, 1.0 / 6.0, 1e-6));
      if (!sixth)
         continue;
      int nodes[4] = { i, ci, di, -1 };
      int mi = onlyReader(g, d->out[0]);
      int in[1] = { x };
      if (mi >= 0 && isOp(&g->n[mi], "Mul") && otherInput(&g->n[mi], d->out[0]) == x) {
         nodes[3] = mi;
         rewriteNode(g, mi, "HardSwish", 14, 1, in, nodes, 4);
         c->nodesReplaced += 4;
         c->hardSwishes++;
      } else {
         rewriteNode(g, di, "HardSigmoid", 13, 1, in, nodes, 3);
         addFloatAttr(&g->n[di], "alpha", 1.0 / 6.0);
         addFloatAttr(&g->n[di], "beta", 0.5);
         c->nodesReplaced += 3;
         c->hardSigmoids++;
      }
      found++;
   }
   return found;
}

/* x * hardsigmoid(x) with hardsigmoid's alpha 1/6 and beta 1/2 is hardswish(x), as
 * torch exports it below opset 14 */
static int recogniseSigmoidSwishes(Graph *g, PassCounts *c) {
   int found = 0;
   for (int i = 0; i < g->nnodes; i++) {
      const GNode *hs = &g->n[i];
      if (!isOp(hs, "HardSigmoid") || fabs(GNode_attrFloat(hs, "alpha", 0.2) - 1.0 / 6.0) > 1e-6 ||
          fabs(GNode_attrFloat(hs, "beta", 0.5) - 0.5) > 1e-6)
         continue;
      int x = hs->in[0];
      int mi = onlyReader(g, hs->out[0]);
      if (mi < 0 || !isOp(&g->n[mi], "Mul") || otherInput(&g->n[mi], hs->out[0]) != x ||
          g->t[x].dtype != GT_FLOAT)
         continue;
      int nodes[2] = { i, mi };
      int in[1] = { x };
      rewriteNode(g, mi, "HardSwish", 14, 1, in, nodes, 2);
      c->nodesReplaced += 2;
      c->hardSwishes++;
      found++;
   }
   return found;
}

void Graph_simplify(Graph *g, PassCounts *counts) {
   memset(counts, 0, sizeof *counts);
   counts->removed = removeInferenceOnly(g);
   counts->bnFolded = foldBatchNorms(g);
   counts->bnSimplified = simplifyBatchNorms(g);
   /* a Mul and then an Add: each pass over the nodes folds the first into the conv */
   for (int k; (k = foldChannelAffine(g)) > 0;)
      counts->affineFolded += k;
   counts->layerNorms = recogniseLayerNorms(g, counts);
   counts->gelus = recogniseGelus(g, counts);
   counts->globalPools = recogniseGlobalPools(g, counts);
   recogniseHardActivations(g, counts);
   recogniseSigmoidSwishes(g, counts);
   Graph_compact(g);
}
