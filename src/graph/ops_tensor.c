/* Graph op rows for the elementwise, broadcast and layout operators: activations,
 * arithmetic and comparisons with numpy broadcasting, and the ops that move elements
 * without computing them (Concat, Split, Slice, Pad, Reshape, Transpose, Gather, ...).
 * Arithmetic works in double through GTensor_get/GTensor_set, or in int64 where every
 * operand is an integer (so int64 stays exact and integer division truncates); layout
 * ops copy elements as bytes, so any element type the graph holds works. */
#include "config.h"

#include "graph/opsimpl.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define ANY_COUNT INT32_MAX

/* ---- element type sets ---- */

#define TB(t) (1u << (unsigned)(t))
#define TS_FLOAT (TB(GT_FLOAT) | TB(GT_DOUBLE) | TB(GT_FLOAT16) | TB(GT_BFLOAT16))
#define TS_SINT (TB(GT_INT8) | TB(GT_INT16) | TB(GT_INT32) | TB(GT_INT64))
#define TS_UINT (TB(GT_UINT8) | TB(GT_UINT16) | TB(GT_UINT32) | TB(GT_UINT64))
#define TS_NUM (TS_FLOAT | TS_SINT | TS_UINT)
#define TS_BOOL TB(GT_BOOL)
#define TS_ALL (TS_NUM | TS_BOOL)
#define TS_INDEX (TB(GT_INT32) | TB(GT_INT64))

/* The order in which messages list the types an op takes. */
static const GType typeOrder[] = {
   GT_FLOAT, GT_DOUBLE, GT_FLOAT16, GT_BFLOAT16, GT_INT8, GT_INT16, GT_INT32,
   GT_INT64, GT_UINT8, GT_UINT16, GT_UINT32, GT_UINT64, GT_BOOL,
};

static bool inSet(GType t, unsigned set) {
   return (int)t > 0 && (int)t < 32 && (set & TB(t)) != 0;
}

static bool isIntType(GType t) {
   return inSet(t, TS_SINT | TS_UINT | TS_BOOL);
}

static bool isUnsigned(GType t) {
   return inSet(t, TS_UINT | TS_BOOL);
}

static void typeList(unsigned set, char *buf, size_t size) {
   size_t len = 0;
   buf[0] = '\0';
   for (size_t i = 0; i < sizeof typeOrder / sizeof typeOrder[0]; i++) {
      if (!inSet(typeOrder[i], set))
         continue;
      int w = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", GType_name(typeOrder[i]));
      if (w < 0 || (size_t)w >= size - len)
         break;
      len += (size_t)w;
   }
}

/* Writes an integer exactly (wrapping to the element type, as C casts do), where
 * GTensor_set would round through a double. */
static void setInt(GTensor *t, int64_t i, int64_t v) {
   void *d = t->data;
   switch (t->dtype) {
   case GT_INT64: ((int64_t *)d)[i] = v; break;
   case GT_UINT64: ((uint64_t *)d)[i] = (uint64_t)v; break;
   case GT_INT32: ((int32_t *)d)[i] = (int32_t)(uint32_t)(uint64_t)v; break;
   case GT_UINT32: ((uint32_t *)d)[i] = (uint32_t)(uint64_t)v; break;
   case GT_INT16: ((int16_t *)d)[i] = (int16_t)(uint16_t)(uint64_t)v; break;
   case GT_UINT16: ((uint16_t *)d)[i] = (uint16_t)(uint64_t)v; break;
   case GT_INT8: ((int8_t *)d)[i] = (int8_t)(uint8_t)(uint64_t)v; break;
   case GT_UINT8: ((uint8_t *)d)[i] = (uint8_t)(uint64_t)v; break;
   case GT_BOOL: ((uint8_t *)d)[i] = v != 0; break;
   default: GTensor_set(t, i, (double)v); break;
   }
}

/* ---- checks shared by the rows ---- */

static void countText(char *buf, size_t size, int lo, int hi, const char *what) {
   if (lo == hi)
      snprintf(buf, size, "%d %s%s", lo, what, lo == 1 ? "" : "s");
   else if (hi == ANY_COUNT)
      snprintf(buf, size, "at least %d %s%s", lo, what, lo == 1 ? "" : "s");
   else
      snprintf(buf, size, "%d to %d %ss", lo, hi, what);
}

/* Input and output counts; the first minIn inputs and output 0 must be present, and
 * every present input must have a shape. */
static int checkArity(Graph *g, GNode *n, char **cause, int minIn, int maxIn, int minOut,
                      int maxOut) {
   char want[64];
   if (n->nin < minIn || n->nin > maxIn) {
      countText(want, sizeof want, minIn, maxIn, "input");
      return Graph_nodeError(g, n, cause, "takes %s, not %d", want, n->nin);
   }
   if (n->nout < minOut || n->nout > maxOut) {
      countText(want, sizeof want, minOut, maxOut, "output");
      return Graph_nodeError(g, n, cause, "has %s, not %d", want, n->nout);
   }
   for (int i = 0; i < n->nin; i++) {
      const GTensor *t = GNode_input(g, n, i);
      if (!t) {
         if (i < minIn)
            return Graph_nodeError(g, n, cause, "input %d is required but left out", i);
         continue;
      }
      if (t->ndim < 0)
         return Graph_nodeError(g, n, cause, "input %d ('%s') has no known shape", i, t->name);
   }
   if (!GNode_output(g, n, 0))
      return Graph_nodeError(g, n, cause, "output 0 is required but left out");
   return 0;
}

static int checkType(Graph *g, GNode *n, char **cause, int i, unsigned set) {
   const GTensor *t = GNode_input(g, n, i);
   if (!t || inSet(t->dtype, set))
      return 0;
   char list[256];
   typeList(set, list, sizeof list);
   return Graph_nodeError(g, n, cause, "input %d ('%s') is %s; %s takes %s", i, t->name,
                          GType_name(t->dtype), n->opType, list);
}

/* Input j (when present) has input i's element type. */
static int checkSameType(Graph *g, GNode *n, char **cause, int i, int j) {
   const GTensor *a = GNode_input(g, n, i), *b = GNode_input(g, n, j);
   if (!a || !b || a->dtype == b->dtype)
      return 0;
   return Graph_nodeError(g, n, cause,
                          "input %d ('%s') is %s where input %d ('%s') is %s; %s takes one type for both", j,
                          b->name, GType_name(b->dtype), i, a->name, GType_name(a->dtype), n->opType);
}

/* Holds its values at infer time: a weight, or an input the caller fed before shape
 * inference (as ONNX's node tests feed Reshape's shape). */
static bool isConstant(const GTensor *t) {
   return t->data != NULL;
}

static int needConstant(Graph *g, GNode *n, char **cause, int i) {
   const GTensor *t = GNode_input(g, n, i);
   if (t && !isConstant(t))
      return Graph_nodeError(g, n, cause, "input %d ('%s') must be a constant: it sets the output's shape",
                             i, t->name);
   return 0;
}

/* The values of constant integer input i (a scalar or 1-D), at most max of them. */
static int inputInts(Graph *g, GNode *n, char **cause, int i, int64_t *vals, int max, int *count) {
   const GTensor *t = GNode_input(g, n, i);
   if (needConstant(g, n, cause, i) < 0 || checkType(g, n, cause, i, TS_INDEX) < 0)
      return -1;
   if (t->ndim > 1)
      return Graph_nodeError(g, n, cause, "input %d ('%s') has rank %d; it must be 1-D", i, t->name,
                             t->ndim);
   int64_t e = GTensor_elems(t);
   if (e > max)
      return Graph_nodeError(g, n, cause, "input %d ('%s') has %lld values; at most %d fit", i, t->name,
                             (long long)e, max);
   for (int64_t k = 0; k < e; k++)
      vals[k] = GTensor_getInt(t, k);
   *count = (int)e;
   return 0;
}

/* The ints of attribute `name`, at most max of them. */
static int attrInts(Graph *g, GNode *n, char **cause, const char *name, int64_t *vals, int max,
                    int *count) {
   const int64_t *a = GNode_attrInts(n, name, count);
   if (*count > max)
      return Graph_nodeError(g, n, cause, "attribute '%s' has %d values; at most %d fit", name, *count, max);
   for (int k = 0; k < *count; k++)
      vals[k] = a[k];
   return 0;
}

static int normAxis(Graph *g, GNode *n, char **cause, const char *what, int64_t axis, int rank,
                    int *out) {
   if (axis < -rank || axis >= rank)
      return Graph_nodeError(g, n, cause, "%s %lld is out of range for rank %d", what, (long long)axis,
                             rank);
   *out = (int)(axis < 0 ? axis + rank : axis);
   return 0;
}

/* Normalizes a list of axes against `rank`, refusing repeats. */
static int normAxes(Graph *g, GNode *n, char **cause, int64_t *axes, int count, int rank) {
   bool seen[GRAPH_MAX_DIMS] = { false };
   for (int k = 0; k < count; k++) {
      int a = 0;
      if (normAxis(g, n, cause, "axis", axes[k], rank, &a) < 0)
         return -1;
      if (seen[a])
         return Graph_nodeError(g, n, cause, "axis %lld appears twice", (long long)axes[k]);
      seen[a] = true;
      axes[k] = a;
   }
   return 0;
}

/* The product of dims[from..to), -1 when one of them is unknown; saturating, as a
 * tensor with a 0 dimension may have others whose product overflows. */
static int64_t dimsProduct(const int64_t *dims, int from, int to) {
   int64_t p = 1;
   for (int i = from; i < to; i++) {
      if (dims[i] < 0)
         return -1;
      p = Graph_mulDims(p, dims[i]);
   }
   return p;
}

/* Numpy broadcasting of a (na dims) and b into out (rank *nout); an unknown dimension
 * (-1) takes the other's size. False when they do not broadcast. */
static bool broadcastDims(int na, const int64_t *a, int nb, const int64_t *b, int *nout,
                          int64_t *out) {
   int r = na > nb ? na : nb;
   int64_t tmp[GRAPH_MAX_DIMS];
   for (int i = 0; i < r; i++) {
      int64_t da = i < r - na ? 1 : a[i - (r - na)];
      int64_t db = i < r - nb ? 1 : b[i - (r - nb)];
      if (da == db || db == 1)
         tmp[i] = da;
      else if (da == 1)
         tmp[i] = db;
      else if (da < 0)
         tmp[i] = db;
      else if (db < 0)
         tmp[i] = da;
      else
         return false;
   }
   memcpy(out, tmp, sizeof(int64_t) * (size_t)r);
   *nout = r;
   return true;
}

/* The broadcast shape of every present input. */
static int broadcastInputs(Graph *g, GNode *n, char **cause, int *rank, int64_t *dims) {
   *rank = 0;
   for (int i = 0; i < n->nin; i++) {
      const GTensor *t = GNode_input(g, n, i);
      if (!t)
         continue;
      int64_t prev[GRAPH_MAX_DIMS];
      int prevRank = *rank;
      memcpy(prev, dims, sizeof(int64_t) * (size_t)prevRank);
      if (!broadcastDims(prevRank, prev, t->ndim, t->dims, rank, dims)) {
         char a[128], b[128];
         Graph_shapeText(prevRank, prev, a, sizeof a);
         GTensor_dimsText(t, b, sizeof b);
         return Graph_nodeError(g, n, cause, "input %d ('%s') of shape %s does not broadcast with %s", i,
                                t->name, b, a);
      }
   }
   return 0;
}

static void rowStrides(int nd, const int64_t *dims, int64_t *strides) {
   int64_t s = 1;
   for (int i = nd - 1; i >= 0; i--) {
      strides[i] = s;
      s *= dims[i];
   }
}

static void copyElem(GTensor *out, int64_t o, const GTensor *in, int64_t i, size_t esz) {
   memcpy((char *)out->data + (size_t)o * esz, (const char *)in->data + (size_t)i * esz, esz);
}

/* Output k takes input 0's bytes unchanged (Identity, Reshape, Squeeze, ...). */
static int evalCopy(Graph *g, GNode *n, char **cause) {
   (void)cause;
   const GTensor *in = GNode_input(g, n, 0);
   GTensor *out = GNode_output(g, n, 0);
   GTensor_alloc(out);
   size_t bytes = GTensor_bytes(out) < GTensor_bytes(in) ? GTensor_bytes(out) : GTensor_bytes(in);
   memcpy(out->data, in->data, bytes);
   return 0;
}

/* ---- unary elementwise ops ---- */

typedef struct {
   double alpha, beta;
   bool tanh;
} UnaryArgs;

typedef struct {
   const char *name;
   unsigned types;
   double (*fn)(double x, const UnaryArgs *a);
   /* for integer element types, or NULL to go through fn */
   int64_t (*ifn)(int64_t x, bool uns);
   const char *alphaName, *betaName;
   double alpha, beta;     /* their defaults */
} UnaryDef;

static double uRelu(double x, const UnaryArgs *a) { (void)a; return x < 0 ? 0.0 : x; }
static double uLeakyRelu(double x, const UnaryArgs *a) { return x < 0 ? a->alpha * x : x; }
static double uSigmoid(double x, const UnaryArgs *a) { (void)a; return 1.0 / (1.0 + exp(-x)); }
static double uHardSigmoid(double x, const UnaryArgs *a) {
   return fmax(0.0, fmin(1.0, a->alpha * x + a->beta));
}
static double uHardSwish(double x, const UnaryArgs *a) {
   (void)a;
   return x * fmax(0.0, fmin(1.0, x / 6.0 + 0.5));
}
static double uGelu(double x, const UnaryArgs *a) {
   if (a->tanh)
      return 0.5 * x * (1.0 + tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
   return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
}
static double uElu(double x, const UnaryArgs *a) { return x < 0 ? a->alpha * (exp(x) - 1.0) : x; }
static double uSelu(double x, const UnaryArgs *a) {
   return x <= 0 ? a->beta * (a->alpha * exp(x) - a->alpha) : a->beta * x;
}
static double uSoftplus(double x, const UnaryArgs *a) {
   (void)a;
   return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
}
static double uSoftsign(double x, const UnaryArgs *a) { (void)a; return x / (1.0 + fabs(x)); }
static double uErf(double x, const UnaryArgs *a) { (void)a; return erf(x); }
static double uTanh(double x, const UnaryArgs *a) { (void)a; return tanh(x); }
static double uExp(double x, const UnaryArgs *a) { (void)a; return exp(x); }
static double uLog(double x, const UnaryArgs *a) { (void)a; return log(x); }
static double uNeg(double x, const UnaryArgs *a) { (void)a; return -x; }
static double uAbs(double x, const UnaryArgs *a) { (void)a; return fabs(x); }
static double uReciprocal(double x, const UnaryArgs *a) { (void)a; return 1.0 / x; }
static double uSqrt(double x, const UnaryArgs *a) { (void)a; return sqrt(x); }
static double uFloor(double x, const UnaryArgs *a) { (void)a; return floor(x); }
static double uCeil(double x, const UnaryArgs *a) { (void)a; return ceil(x); }
static double uRound(double x, const UnaryArgs *a) { (void)a; return nearbyint(x); }
static double uSin(double x, const UnaryArgs *a) { (void)a; return sin(x); }
static double uCos(double x, const UnaryArgs *a) { (void)a; return cos(x); }
static double uSign(double x, const UnaryArgs *a) {
   (void)a;
   return x > 0 ? 1.0 : x < 0 ? -1.0 : x;
}
static double uNot(double x, const UnaryArgs *a) { (void)a; return x == 0.0; }

static int64_t iNeg(int64_t x, bool uns) { (void)uns; return (int64_t)(0 - (uint64_t)x); }
static int64_t iAbs(int64_t x, bool uns) { return uns || x >= 0 ? x : iNeg(x, uns); }
static int64_t iRelu(int64_t x, bool uns) { return uns || x >= 0 ? x : 0; }
static int64_t iSign(int64_t x, bool uns) { return x == 0 ? 0 : uns || x > 0 ? 1 : -1; }
static int64_t iNot(int64_t x, bool uns) { (void)uns; return x == 0; }

static const UnaryDef unaryDefs[] = {
   { "Relu", TS_FLOAT | TS_SINT, uRelu, iRelu, NULL, NULL, 0, 0 },
   { "LeakyRelu", TS_FLOAT, uLeakyRelu, NULL, "alpha", NULL, 0.01, 0 },
   { "Sigmoid", TS_FLOAT, uSigmoid, NULL, NULL, NULL, 0, 0 },
   { "HardSigmoid", TS_FLOAT, uHardSigmoid, NULL, "alpha", "beta", 0.2, 0.5 },
   { "HardSwish", TS_FLOAT, uHardSwish, NULL, NULL, NULL, 0, 0 },
   { "Gelu", TS_FLOAT, uGelu, NULL, NULL, NULL, 0, 0 },
   { "Elu", TS_FLOAT, uElu, NULL, "alpha", NULL, 1.0, 0 },
   { "Selu", TS_FLOAT, uSelu, NULL, "alpha", "gamma", 1.67326319217681884765625,
     1.05070102214813232421875 },
   { "Softplus", TS_FLOAT, uSoftplus, NULL, NULL, NULL, 0, 0 },
   { "Softsign", TS_FLOAT, uSoftsign, NULL, NULL, NULL, 0, 0 },
   { "Erf", TS_NUM, uErf, NULL, NULL, NULL, 0, 0 },
   { "Tanh", TS_FLOAT, uTanh, NULL, NULL, NULL, 0, 0 },
   { "Exp", TS_FLOAT, uExp, NULL, NULL, NULL, 0, 0 },
   { "Log", TS_FLOAT, uLog, NULL, NULL, NULL, 0, 0 },
   { "Neg", TS_FLOAT | TS_SINT, uNeg, iNeg, NULL, NULL, 0, 0 },
   { "Abs", TS_NUM, uAbs, iAbs, NULL, NULL, 0, 0 },
   { "Reciprocal", TS_FLOAT, uReciprocal, NULL, NULL, NULL, 0, 0 },
   { "Sqrt", TS_FLOAT, uSqrt, NULL, NULL, NULL, 0, 0 },
   { "Floor", TS_FLOAT, uFloor, NULL, NULL, NULL, 0, 0 },
   { "Ceil", TS_FLOAT, uCeil, NULL, NULL, NULL, 0, 0 },
   { "Round", TS_FLOAT, uRound, NULL, NULL, NULL, 0, 0 },
   { "Sin", TS_FLOAT, uSin, NULL, NULL, NULL, 0, 0 },
   { "Cos", TS_FLOAT, uCos, NULL, NULL, NULL, 0, 0 },
   { "Sign", TS_NUM, uSign, iSign, NULL, NULL, 0, 0 },
   { "Not", TS_BOOL, uNot, iNot, NULL, NULL, 0, 0 },
};

static const UnaryDef *unaryDef(const GNode *n) {
   for (size_t i = 0; i < sizeof unaryDefs / sizeof unaryDefs[0]; i++)
      if (strcmp(unaryDefs[i].name, n->opType) == 0)
         return &unaryDefs[i];
   return NULL;
}

static int inferUnary(Graph *g, GNode *n, char **cause) {
   const UnaryDef *d = unaryDef(n);
   if (!d)
      return Graph_nodeError(g, n, cause, "no elementwise definition for this operator");
   if (checkArity(g, n, cause, 1, 1, 1, 1) < 0 || checkType(g, n, cause, 0, d->types) < 0)
      return -1;
   if (strcmp(d->name, "Gelu") == 0) {
      const char *approx = GNode_attrString(n, "approximate", "none");
      if (strcmp(approx, "none") != 0 && strcmp(approx, "tanh") != 0)
         return Graph_nodeError(g, n, cause, "approximate '%s' is not supported (none, tanh)", approx);
   }
   const GTensor *in = GNode_input(g, n, 0);
   GTensor_setShape(GNode_output(g, n, 0), in->dtype, in->ndim, in->dims);
   return 0;
}

static int evalUnary(Graph *g, GNode *n, char **cause) {
   const UnaryDef *d = unaryDef(n);
   if (!d)
      return Graph_nodeError(g, n, cause, "no elementwise definition for this operator");
   const GTensor *in = GNode_input(g, n, 0);
   GTensor *out = GNode_output(g, n, 0);
   GTensor_alloc(out);
   int64_t count = GTensor_elems(out);
   if (d->ifn && isIntType(in->dtype)) {
      bool uns = isUnsigned(in->dtype);
      for (int64_t i = 0; i < count; i++)
         setInt(out, i, d->ifn(GTensor_getInt(in, i), uns));
      return 0;
   }
   double alpha = d->alpha, beta = d->beta;
   if (g->opset < 6 && strcmp(d->name, "Selu") == 0) {
      /* Selu-1's defaults, rounded to four digits; Selu-6 took the exact constants */
      alpha = (double)1.6732f;
      beta = (double)1.0507f;
   }
   UnaryArgs a = {
      .alpha = d->alphaName ? GNode_attrFloat(n, d->alphaName, alpha) : alpha,
      .beta = d->betaName ? GNode_attrFloat(n, d->betaName, beta) : beta,
      .tanh = strcmp(GNode_attrString(n, "approximate", "none"), "tanh") == 0,
   };
   for (int64_t i = 0; i < count; i++)
      GTensor_set(out, i, d->fn(GTensor_get(in, i), &a));
   return 0;
}

/* ---- Clip: bounds as attributes (opset 1-10) or optional scalar inputs (11-21) ---- */

static int inferClip(Graph *g, GNode *n, char **cause) {
   bool inputs = g->opset >= 11;
   if (checkArity(g, n, cause, 1, inputs ? 3 : 1, 1, 1) < 0 ||
       checkType(g, n, cause, 0, inputs ? TS_NUM : TS_FLOAT) < 0)
      return -1;
   for (int i = 1; i < n->nin; i++) {
      const GTensor *b = GNode_input(g, n, i);
      if (!b)
         continue;
      if (checkSameType(g, n, cause, 0, i) < 0)
         return -1;
      if (GTensor_elems(b) != 1)
         return Graph_nodeError(g, n, cause, "input %d ('%s') must be a scalar", i, b->name);
   }
   const GTensor *in = GNode_input(g, n, 0);
   GTensor_setShape(GNode_output(g, n, 0), in->dtype, in->ndim, in->dims);
   return 0;
}

static int evalClip(Graph *g, GNode *n, char **cause) {
   (void)cause;
   const GTensor *in = GNode_input(g, n, 0);
   const GTensor *lo = GNode_input(g, n, 1), *hi = GNode_input(g, n, 2);
   GTensor *out = GNode_output(g, n, 0);
   GTensor_alloc(out);
   int64_t count = GTensor_elems(out);
   if (isIntType(in->dtype)) {
      bool uns = isUnsigned(in->dtype);
      int64_t l = lo ? GTensor_getInt(lo, 0) : uns ? 0 : INT64_MIN;
      int64_t h = hi ? GTensor_getInt(hi, 0) : uns ? -1 : INT64_MAX;
      for (int64_t i = 0; i < count; i++) {
         int64_t x = GTensor_getInt(in, i);
         if (uns) {
            x = (uint64_t)x < (uint64_t)l ? l : x;
            x = (uint64_t)x > (uint64_t)h ? h : x;
         } else {
            x = x < l ? l : x > h ? h : x;
         }
         setInt(out, i, x);
      }
      return 0;
   }
   double l = -INFINITY, h = INFINITY;
   if (g->opset < 11) {
      l = GNode_attrFloat(n, "min", -3.402823466e38);
      h = GNode_attrFloat(n, "max", 3.402823466e38);
   } else {
      l = lo ? GTensor_get(lo, 0) : l;
      h = hi ? GTensor_get(hi, 0) : h;
   }
   for (int64_t i = 0; i < count; i++) {
      double x = GTensor_get(in, i);
      x = x < l ? l : x;
      GTensor_set(out, i, x > h ? h : x);
   }
   return 0;
}

/* ---- binary and variadic ops with numpy broadcasting ---- */

typedef struct {
   const char *name;
   unsigned types;         /* of input 0 */
   unsigned types1;        /* of input 1 when it may differ (Pow's exponent), else 0 */
   bool boolOut;
   bool variadic;
   double (*fn)(double a, double b, int mode);
   /* the integer path (every operand an integer), or NULL; *zero on a division by 0 */
   int64_t (*ifn)(int64_t a, int64_t b, bool uns, int mode, bool *zero);
} BinaryDef;

static double bAdd(double a, double b, int m) { (void)m; return a + b; }
static double bSub(double a, double b, int m) { (void)m; return a - b; }
static double bMul(double a, double b, int m) { (void)m; return a * b; }
static double bDiv(double a, double b, int m) { (void)m; return a / b; }
static double bPow(double a, double b, int m) { (void)m; return pow(a, b); }
static double bMod(double a, double b, int m) { (void)m; return fmod(a, b); }
static double bMax(double a, double b, int m) {
   (void)m;
   return isnan(a) || isnan(b) ? NAN : a > b ? a : b;
}
static double bMin(double a, double b, int m) {
   (void)m;
   return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
}
static double bEqual(double a, double b, int m) { (void)m; return a == b; }
static double bLess(double a, double b, int m) { (void)m; return a < b; }
static double bGreater(double a, double b, int m) { (void)m; return a > b; }
static double bLessEq(double a, double b, int m) { (void)m; return a <= b; }
static double bGreaterEq(double a, double b, int m) { (void)m; return a >= b; }
static double bPRelu(double a, double b, int m) { (void)m; return a < 0 ? a * b : a; }
static double bAnd(double a, double b, int m) { (void)m; return a != 0 && b != 0; }
static double bOr(double a, double b, int m) { (void)m; return a != 0 || b != 0; }
static double bXor(double a, double b, int m) { (void)m; return (a != 0) != (b != 0); }

static int64_t iAdd(int64_t a, int64_t b, bool u, int m, bool *z) {
   (void)u, (void)m, (void)z;
   return (int64_t)((uint64_t)a + (uint64_t)b);
}
static int64_t iSub(int64_t a, int64_t b, bool u, int m, bool *z) {
   (void)u, (void)m, (void)z;
   return (int64_t)((uint64_t)a - (uint64_t)b);
}
static int64_t iMul(int64_t a, int64_t b, bool u, int m, bool *z) {
   (void)u, (void)m, (void)z;
   return (int64_t)((uint64_t)a * (uint64_t)b);
}
/* Truncates toward zero, as C and ONNX Runtime do. */
static int64_t iDiv(int64_t a, int64_t b, bool u, int m, bool *z) {
   (void)m;
   if (b == 0) {
      *z = true;
      return 0;
   }
   if (u)
      return (int64_t)((uint64_t)a / (uint64_t)b);
   return b == -1 ? iNeg(a, false) : a / b;
}
/* fmod 0: the remainder takes the divisor's sign (as Python's %); fmod 1: the
 * dividend's (as C's %). */
static int64_t iMod(int64_t a, int64_t b, bool u, int m, bool *z) {
   if (b == 0) {
      *z = true;
      return 0;
   }
   if (u)
      return (int64_t)((uint64_t)a % (uint64_t)b);
   if (b == -1)
      return 0;
   int64_t r = a % b;
   if (m == 0 && r != 0 && (r < 0) != (b < 0))
      r += b;
   return r;
}
static int64_t iPow(int64_t a, int64_t b, bool u, int m, bool *z) {
   (void)u, (void)m, (void)z;
   if (b < 0)
      return a == 1 ? 1 : a == -1 ? (b % 2 ? -1 : 1) : 0;
   uint64_t r = 1, base = (uint64_t)a;
   for (uint64_t e = (uint64_t)b; e; e >>= 1) {
      if (e & 1)
         r *= base;
      base *= base;
   }
   return (int64_t)r;
}
static int64_t iMax(int64_t a, int64_t b, bool u, int m, bool *z) {
   (void)m, (void)z;
   return (u ? (uint64_t)a > (uint64_t)b : a > b) ? a : b;
}
static int64_t iMin(int64_t a, int64_t b, bool u, int m, bool *z) {
   (void)m, (void)z;
   return (u ? (uint64_t)a < (uint64_t)b : a < b) ? a : b;
}
static int64_t iEqual(int64_t a, int64_t b, bool u, int m, bool *z) {
   (void)u, (void)m, (void)z;
   return a == b;
}
static int64_t iLess(int64_t a, int64_t b, bool u, int m, bool *z) {
   (void)m, (void)z;
   return u ? (uint64_t)a < (uint64_t)b : a < b;
}
static int64_t iGreater(int64_t a, int64_t b, bool u, int m, bool *z) {
   return iLess(b, a, u, m, z);
}
static int64_t iLessEq(int64_t a, int64_t b, bool u, int m, bool *z) {
   return !iLess(b, a, u, m, z);
}
static int64_t iGreaterEq(int64_t a, int64_t b, bool u, int m, bool *z) {
   return !iLess(a, b, u, m, z);
}
static int64_t iPRelu(int64_t a, int64_t b, bool u, int m, bool *z) {
   return !u && a < 0 ? iMul(a, b, u, m, z) : a;
}
static int64_t iAnd(int64_t a, int64_t b, bool u, int m, bool *z) {
   (void)u, (void)m, (void)z;
   return a && b;
}
static int64_t iOr(int64_t a, int64_t b, bool u, int m, bool *z) {
   (void)u, (void)m, (void)z;
   return a || b;
}
static int64_t iXor(int64_t a, int64_t b, bool u, int m, bool *z) {
   (void)u, (void)m, (void)z;
   return !a != !b;
}

static const BinaryDef binaryDefs[] = {
   { "Add", TS_NUM, 0, false, false, bAdd, iAdd },
   { "Sub", TS_NUM, 0, false, false, bSub, iSub },
   { "Mul", TS_NUM, 0, false, false, bMul, iMul },
   { "Div", TS_NUM, 0, false, false, bDiv, iDiv },
   { "Pow", TS_FLOAT | TS_INDEX, TS_NUM, false, false, bPow, iPow },
   { "Mod", TS_NUM, 0, false, false, bMod, iMod },
   { "PRelu", TS_FLOAT | TS_SINT | TB(GT_UINT32) | TB(GT_UINT64), 0, false, false, bPRelu, iPRelu },
   { "Equal", TS_ALL, 0, true, false, bEqual, iEqual },
   { "Less", TS_NUM, 0, true, false, bLess, iLess },
   { "Greater", TS_NUM, 0, true, false, bGreater, iGreater },
   { "LessOrEqual", TS_NUM, 0, true, false, bLessEq, iLessEq },
   { "GreaterOrEqual", TS_NUM, 0, true, false, bGreaterEq, iGreaterEq },
   { "And", TS_BOOL, 0, true, false, bAnd, iAnd },
   { "Or", TS_BOOL, 0, true, false, bOr, iOr },
   { "Xor", TS_BOOL, 0, true, false, bXor, iXor },
   { "Max", TS_NUM, 0, false, true, bMax, iMax },
   { "Min", TS_NUM, 0, false, true, bMin, iMin },
   { "Sum", TS_FLOAT, 0, false, true, bAdd, iAdd },
   { "Mean", TS_FLOAT, 0, false, true, bAdd, NULL },
};

static const BinaryDef *binaryDef(const GNode *n) {
   for (size_t i = 0; i < sizeof binaryDefs / sizeof binaryDefs[0]; i++)
      if (strcmp(binaryDefs[i].name, n->opType) == 0)
         return &binaryDefs[i];
   return NULL;
}

/* Before opset 7 the two-input arithmetic, comparison and logic ops (the rows that take
 * the attribute 'broadcast') broadcast one way only and only when broadcast is 1: input 1
 * onto input 0, its dimensions lined up with input 0's from `axis` on, or with the
 * trailing ones when axis is absent; with broadcast 0 the shapes must be equal. */
static bool legacyBroadcast(const Graph *g, const GNode *n) {
   const GraphOp *op = GraphOp_get(n->op);
   return g->opset < 7 && op && GraphOp_acceptsAttr(op, "broadcast");
}

/* Input 1's dimensions under the rule above, padded with 1s to input 0's rank, so that
 * numpy broadcasting of the padded shape onto input 0's computes it. */
static int legacyDims(const Graph *g, const GNode *n, char **cause, int64_t *dims) {
   const GTensor *a = GNode_input(g, n, 0), *b = GNode_input(g, n, 1);
   int64_t on = GNode_attrInt(n, "broadcast", 0);
   char sa[128], sb[128];
   GTensor_dimsText(a, sa, sizeof sa);
   GTensor_dimsText(b, sb, sizeof sb);
   if (on != 0 && on != 1)
      return Graph_nodeError(g, n, cause, "broadcast %lld is not 0 or 1", (long long)on);
   if (on == 0) {
      bool same = a->ndim == b->ndim;
      for (int d = 0; same && d < a->ndim; d++)
         same = a->dims[d] == b->dims[d] || a->dims[d] < 0 || b->dims[d] < 0;
      if (!same)
         return Graph_nodeError(g, n, cause,
                                "input 1 ('%s') of shape %s differs from input 0's shape %s, and broadcast "
                                "is 0", b->name, sb, sa);
      memcpy(dims, b->dims, sizeof(int64_t) * (size_t)b->ndim);
      return 0;
   }
   if (b->ndim > a->ndim)
      return Graph_nodeError(g, n, cause,
                             "input 1 ('%s') of shape %s has a higher rank than input 0's shape %s", b->name,
                             sb, sa);
   int axis = a->ndim - b->ndim;
   if (GTensor_elems(b) == 1) {
      /* one element broadcasts whatever the axis */
      for (int d = 0; d < a->ndim; d++)
         dims[d] = 1;
      return 0;
   }
   if (GNode_attr(n, "axis")) {
      int64_t ax = GNode_attrInt(n, "axis", 0);
      if (ax < -a->ndim || ax >= a->ndim || (ax < 0 ? ax + a->ndim : ax) + b->ndim > a->ndim)
         return Graph_nodeError(g, n, cause,
                                "axis %lld does not fit input 1 ('%s') of shape %s into input 0's shape %s",
                                (long long)ax, b->name, sb, sa);
      axis = (int)(ax < 0 ? ax + a->ndim : ax);
   }
   for (int d = 0; d < a->ndim; d++)
      dims[d] = d < axis || d >= axis + b->ndim ? 1 : b->dims[d - axis];
   for (int d = 0; d < a->ndim; d++)
      if (dims[d] != 1 && dims[d] != a->dims[d] && dims[d] >= 0 && a->dims[d] >= 0)
         return Graph_nodeError(g, n, cause,
                                "input 1 ('%s') of shape %s does not broadcast onto input 0's shape %s at "
                                "axis %d", b->name, sb, sa, axis);
   return 0;
}

/* Whether input 1 broadcasts by an older rule than numpy's, and then its dimensions padded
 * to input 0's rank: the rule above, or PRelu's before opset 7, where a slope of one value
 * a channel applies along axis 1. */
static int paddedInput1(const Graph *g, const GNode *n, char **cause, bool *padded, int64_t *dims) {
   *padded = false;
   if (legacyBroadcast(g, n)) {
      *padded = true;
      return legacyDims(g, n, cause, dims);
   }
   const GTensor *x = GNode_input(g, n, 0), *slope = GNode_input(g, n, 1);
   if (g->opset < 7 && strcmp(n->opType, "PRelu") == 0 && slope->ndim == 1 && x->ndim >= 2 &&
       slope->dims[0] == x->dims[1] && slope->dims[0] != 1) {
      *padded = true;
      for (int d = 0; d < x->ndim; d++)
         dims[d] = d == 1 ? slope->dims[0] : 1;
   }
   return 0;
}

bool GraphOp_paddedInput1(const Graph *g, const GNode *n, int64_t *dims) {
   bool padded;
   return paddedInput1(g, n, NULL, &padded, dims) == 0 && padded;
}

static int inferBinary(Graph *g, GNode *n, char **cause) {
   const BinaryDef *d = binaryDef(n);
   if (!d)
      return Graph_nodeError(g, n, cause, "no broadcast definition for this operator");
   if (checkArity(g, n, cause, d->variadic ? 1 : 2, d->variadic ? ANY_COUNT : 2, 1, 1) < 0)
      return -1;
   for (int i = 0; i < n->nin; i++) {
      if (!GNode_input(g, n, i))
         return Graph_nodeError(g, n, cause, "input %d is required but left out", i);
      if (checkType(g, n, cause, i, i > 0 && d->types1 ? d->types1 : d->types) < 0)
         return -1;
      if (!(i > 0 && d->types1) && checkSameType(g, n, cause, 0, i) < 0)
         return -1;
   }
   const GTensor *a = GNode_input(g, n, 0);
   if (strcmp(d->name, "Mod") == 0) {
      int64_t fmodAttr = GNode_attrInt(n, "fmod", 0);
      if (fmodAttr != 0 && fmodAttr != 1)
         return Graph_nodeError(g, n, cause, "fmod %lld is not supported (0, 1)", (long long)fmodAttr);
      if (fmodAttr == 0 && GType_isFloat(a->dtype))
         return Graph_nodeError(g, n, cause,
                                "fmod 0 is not supported for %s inputs: the spec requires fmod 1 for floats",
                                GType_name(a->dtype));
   }
   int rank;
   int64_t dims[GRAPH_MAX_DIMS];
   int64_t padded[GRAPH_MAX_DIMS];
   bool old;
   if (!d->variadic && paddedInput1(g, n, cause, &old, padded) < 0)
      return -1;
   if (!d->variadic && old) {
      GTensor_setShape(GNode_output(g, n, 0), d->boolOut ? GT_BOOL : a->dtype, a->ndim, a->dims);
      return 0;
   }
   if (broadcastInputs(g, n, cause, &rank, dims) < 0)
      return -1;
   /* PRelu's slope broadcasts one way only, to X's shape */
   if (strcmp(d->name, "PRelu") == 0 &&
       (rank != a->ndim || memcmp(dims, a->dims, sizeof(int64_t) * (size_t)rank) != 0)) {
      char sa[128], sb[128];
      GTensor_dimsText(a, sa, sizeof sa);
      GTensor_dimsText(GNode_input(g, n, 1), sb, sizeof sb);
      return Graph_nodeError(g, n, cause,
                             "input 1 ('%s') of shape %s does not broadcast to input 0's shape %s",
                             GNode_input(g, n, 1)->name, sb, sa);
   }
   GTensor_setShape(GNode_output(g, n, 0), d->boolOut ? GT_BOOL : a->dtype, rank, dims);
   return 0;
}

static int evalBinary(Graph *g, GNode *n, char **cause) {
   const BinaryDef *d = binaryDef(n);
   if (!d)
      return Graph_nodeError(g, n, cause, "no broadcast definition for this operator");
   GTensor *out = GNode_output(g, n, 0);
   GTensor_alloc(out);
   int mode = (int)GNode_attrInt(n, "fmod", 0);
   bool ints = d->ifn != NULL, uns = true;
   for (int i = 0; i < n->nin; i++) {
      const GTensor *t = GNode_input(g, n, i);
      ints = ints && isIntType(t->dtype);
      uns = uns && isUnsigned(t->dtype);
   }
   /* input 1's dimensions as they broadcast: padded to the output's rank before opset 7 */
   int64_t legacy[GRAPH_MAX_DIMS];
   bool old = false;
   if (!d->variadic && paddedInput1(g, n, cause, &old, legacy) < 0)
      return -1;
   int64_t idx[GRAPH_MAX_DIMS] = { 0 };
   int64_t count = GTensor_elems(out);
   bool zero = false, mean = strcmp(d->name, "Mean") == 0;
   for (int64_t e = 0; e < count; e++) {
      const GTensor *t = GNode_input(g, n, 0);
      int64_t at = Graph_broadcastIndex(t->ndim, t->dims, out->ndim, idx);
      if (ints) {
         int64_t acc = GTensor_getInt(t, at);
         for (int i = 1; i < n->nin; i++) {
            t = GNode_input(g, n, i);
            at = old ? Graph_broadcastIndex(out->ndim, legacy, out->ndim, idx)
                     : Graph_broadcastIndex(t->ndim, t->dims, out->ndim, idx);
            acc = d->ifn(acc, GTensor_getInt(t, at), uns, mode, &zero);
         }
         if (zero)
            return Graph_nodeError(g, n, cause, "integer division by zero at element %lld", (long long)e);
         setInt(out, e, acc);
      } else {
         double acc = GTensor_get(t, at);
         for (int i = 1; i < n->nin; i++) {
            t = GNode_input(g, n, i);
            at = old ? Graph_broadcastIndex(out->ndim, legacy, out->ndim, idx)
                     : Graph_broadcastIndex(t->ndim, t->dims, out->ndim, idx);
            acc = d->fn(acc, GTensor_get(t, at), mode);
         }
         if (mean)
            acc /= n->nin;
         GTensor_set(out, e, acc);
      }
      Graph_nextIndex(out->ndim, out->dims, idx);
   }
   return 0;
}

/* ---- Where ---- */

static int inferWhere(Graph *g, GNode *n, char **cause) {
   if (checkArity(g, n, cause, 3, 3, 1, 1) < 0 || checkType(g, n, cause, 0, TS_BOOL) < 0 ||
       checkType(g, n, cause, 1, TS_ALL) < 0 || checkSameType(g, n, cause, 1, 2) < 0)
      return -1;
   int rank;
   int64_t dims[GRAPH_MAX_DIMS];
   if (broadcastInputs(g, n, cause, &rank, dims) < 0)
      return -1;
   GTensor_setShape(GNode_output(g, n, 0), GNode_input(g, n, 1)->dtype, rank, dims);
   return 0;
}

static int evalWhere(Graph *g, GNode *n, char **cause) {
   (void)cause;
   const GTensor *c = GNode_input(g, n, 0), *x = GNode_input(g, n, 1), *y = GNode_input(g, n, 2);
   GTensor *out = GNode_output(g, n, 0);
   GTensor_alloc(out);
   size_t esz = GType_size(out->dtype);
   int64_t idx[GRAPH_MAX_DIMS] = { 0 };
   int64_t count = GTensor_elems(out);
   for (int64_t e = 0; e < count; e++) {
      int64_t at = Graph_broadcastIndex(c->ndim, c->dims, out->ndim, idx);
      bool pick = ((const uint8_t *)c->data)[at] != 0;
      const GTensor *src = pick ? x : y;
      copyElem(out, e, src, Graph_broadcastIndex(src->ndim, src->dims, out->ndim, idx), esz);
      Graph_nextIndex(out->ndim, out->dims, idx);
   }
   return 0;
}

/* ---- Cast, CastLike, Identity, Dropout ---- */

/* Cast-1's 'to' names the type as TensorProto.DataType spells it. */
static const struct {
   const char *name;
   GType type;
} castNames[] = {
   { "FLOAT", GT_FLOAT }, { "UINT8", GT_UINT8 }, { "INT8", GT_INT8 }, { "UINT16", GT_UINT16 },
   { "INT16", GT_INT16 }, { "INT32", GT_INT32 }, { "INT64", GT_INT64 }, { "BOOL", GT_BOOL },
   { "FLOAT16", GT_FLOAT16 }, { "DOUBLE", GT_DOUBLE }, { "UINT32", GT_UINT32 }, { "UINT64", GT_UINT64 },
};

static int castTo(Graph *g, GNode *n, char **cause, GType *to) {
   const GAttr *a = GNode_attr(n, "to");
   if (!a)
      return Graph_nodeError(g, n, cause, "attribute 'to' is required");
   if (g->opset < 6) {
      for (size_t i = 0; a->type == GA_STRING && i < sizeof castNames / sizeof castNames[0]; i++)
         if (strcmp(a->s, castNames[i].name) == 0) {
            *to = castNames[i].type;
            return 0;
         }
      char list[256];
      size_t len = 0;
      list[0] = '\0';
      for (size_t i = 0; i < sizeof castNames / sizeof castNames[0]; i++)
         len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", castNames[i].name);
      if (a->type != GA_STRING)
         return Graph_nodeError(g, n, cause, "attribute 'to' must be a string before opset 6 (%s)", list);
      return Graph_nodeError(g, n, cause, "to '%s' is not supported (%s)", a->s, list);
   }
   if (a->type != GA_INT || !inSet((GType)a->i, TS_ALL)) {
      char list[256];
      typeList(TS_ALL, list, sizeof list);
      return Graph_nodeError(g, n, cause, "to %lld (%s) is not supported (%s)", (long long)a->i,
                             GType_name((GType)a->i), list);
   }
   *to = (GType)a->i;
   return 0;
}

static int inferCast(Graph *g, GNode *n, char **cause) {
   bool like = strcmp(n->opType, "CastLike") == 0;
   GType to;
   if (checkArity(g, n, cause, like ? 2 : 1, like ? 2 : 1, 1, 1) < 0 ||
       checkType(g, n, cause, 0, TS_ALL) < 0)
      return -1;
   if (like) {
      if (checkType(g, n, cause, 1, TS_ALL) < 0)
         return -1;
      to = GNode_input(g, n, 1)->dtype;
   } else if (castTo(g, n, cause, &to) < 0) {
      return -1;
   }
   const GTensor *in = GNode_input(g, n, 0);
   GTensor_setShape(GNode_output(g, n, 0), to, in->ndim, in->dims);
   return 0;
}

static int evalCast(Graph *g, GNode *n, char **cause) {
   (void)cause;
   const GTensor *in = GNode_input(g, n, 0);
   GTensor *out = GNode_output(g, n, 0);
   GTensor_alloc(out);
   int64_t count = GTensor_elems(out);
   if (in->dtype == out->dtype) {
      memcpy(out->data, in->data, GTensor_bytes(out));
   } else if (isIntType(in->dtype) && isIntType(out->dtype)) {
      for (int64_t i = 0; i < count; i++)
         setInt(out, i, GTensor_getInt(in, i));
   } else {
      for (int64_t i = 0; i < count; i++)
         GTensor_set(out, i, GTensor_get(in, i));
   }
   return 0;
}

static int inferIdentity(Graph *g, GNode *n, char **cause) {
   if (checkArity(g, n, cause, 1, 1, 1, 1) < 0 || checkType(g, n, cause, 0, TS_ALL) < 0)
      return -1;
   const GTensor *in = GNode_input(g, n, 0);
   GTensor_setShape(GNode_output(g, n, 0), in->dtype, in->ndim, in->dims);
   return 0;
}

/* Inference only: the output is the input and the mask all true. */
static int inferDropout(Graph *g, GNode *n, char **cause) {
   bool inputs = g->opset >= 12;
   if (checkArity(g, n, cause, 1, inputs ? 3 : 1, 1, 2) < 0 || checkType(g, n, cause, 0, TS_FLOAT) < 0)
      return -1;
   /* before opset 7 is_test says inference, and its default is training */
   if (g->opset < 7 && GNode_attrInt(n, "is_test", 0) == 0)
      return Graph_nodeError(g, n, cause, "is_test 0 (training mode) is not supported; set is_test 1");
   if (inputs) {
      if (checkType(g, n, cause, 1, TS_FLOAT) < 0 || checkType(g, n, cause, 2, TS_BOOL) < 0)
         return -1;
      const GTensor *mode = GNode_input(g, n, 2);
      if (mode && !isConstant(mode))
         return Graph_nodeError(g, n, cause,
                                "input 2 ('%s') must be a constant: training mode changes what Dropout computes",
                                mode->name);
      if (mode && GTensor_elems(mode) >= 1 && GTensor_get(mode, 0) != 0.0)
         return Graph_nodeError(g, n, cause, "training_mode true is not supported: only inference is");
   }
   const GTensor *in = GNode_input(g, n, 0);
   GTensor_setShape(GNode_output(g, n, 0), in->dtype, in->ndim, in->dims);
   GTensor *mask = GNode_output(g, n, 1);
   if (mask)
      GTensor_setShape(mask, g->opset >= 10 ? GT_BOOL : in->dtype, in->ndim, in->dims);
   return 0;
}

static int evalDropout(Graph *g, GNode *n, char **cause) {
   evalCopy(g, n, cause);
   GTensor *mask = GNode_output(g, n, 1);
   if (mask) {
      GTensor_alloc(mask);
      for (int64_t i = 0; i < GTensor_elems(mask); i++)
         GTensor_set(mask, i, 1.0);
   }
   return 0;
}

/* ---- Concat and Split ---- */

/* Concat's axis: required from opset 4, 1 when absent before. */
static int64_t concatAxis(const Graph *g, const GNode *n) {
   return GNode_attrInt(n, "axis", g->opset < 4 ? 1 : 0);
}

static int inferConcat(Graph *g, GNode *n, char **cause) {
   if (checkArity(g, n, cause, 1, ANY_COUNT, 1, 1) < 0)
      return -1;
   const GTensor *a = GNode_input(g, n, 0);
   if (g->opset >= 4 && !GNode_attr(n, "axis"))
      return Graph_nodeError(g, n, cause, "attribute 'axis' is required");
   int axis = 0;
   if (checkType(g, n, cause, 0, TS_ALL) < 0 ||
       normAxis(g, n, cause, "axis", concatAxis(g, n), a->ndim, &axis) < 0)
      return -1;
   int64_t dims[GRAPH_MAX_DIMS];
   memcpy(dims, a->dims, sizeof dims);
   for (int i = 1; i < n->nin; i++) {
      const GTensor *t = GNode_input(g, n, i);
      if (!t)
         return Graph_nodeError(g, n, cause, "input %d is required but left out", i);
      if (checkSameType(g, n, cause, 0, i) < 0)
         return -1;
      if (t->ndim != a->ndim)
         return Graph_nodeError(g, n, cause, "input %d ('%s') has rank %d where input 0 has rank %d", i,
                                t->name, t->ndim, a->ndim);
      for (int k = 0; k < a->ndim; k++) {
         if (k == axis) {
            dims[k] = dims[k] < 0 || t->dims[k] < 0 ? -1 : Graph_addDims(dims[k], t->dims[k]);
         } else if (t->dims[k] != a->dims[k] && t->dims[k] >= 0 && a->dims[k] >= 0) {
            char sa[128], sb[128];
            GTensor_dimsText(a, sa, sizeof sa);
            GTensor_dimsText(t, sb, sizeof sb);
            return Graph_nodeError(g, n, cause,
                                   "input %d ('%s') of shape %s does not match input 0's %s outside axis %d", i,
                                   t->name, sb, sa, axis);
         }
      }
   }
   GTensor_setShape(GNode_output(g, n, 0), a->dtype, a->ndim, dims);
   return 0;
}

static int evalConcat(Graph *g, GNode *n, char **cause) {
   (void)cause;
   GTensor *out = GNode_output(g, n, 0);
   GTensor_alloc(out);
   int axis = (int)concatAxis(g, n);
   axis = axis < 0 ? axis + out->ndim : axis;
   size_t esz = GType_size(out->dtype);
   int64_t outer = dimsProduct(out->dims, 0, axis);
   size_t inner = (size_t)dimsProduct(out->dims, axis + 1, out->ndim) * esz;
   char *dst = out->data;
   for (int64_t o = 0; o < outer; o++)
      for (int i = 0; i < n->nin; i++) {
         const GTensor *t = GNode_input(g, n, i);
         size_t bytes = (size_t)t->dims[axis] * inner;
         memcpy(dst, (const char *)t->data + (size_t)o * bytes, bytes);
         dst += bytes;
      }
   return 0;
}

/* Split's axis and each output's size along it (sizes has n->nout entries). */
static int splitSizes(Graph *g, GNode *n, char **cause, int *axis, int64_t *sizes) {
   const GTensor *in = GNode_input(g, n, 0);
   if (normAxis(g, n, cause, "axis", GNode_attrInt(n, "axis", 0), in->ndim, axis) < 0)
      return -1;
   int64_t dim = in->dims[*axis];
   if (dim < 0)
      return Graph_nodeError(g, n, cause, "axis %d's size is unknown", *axis);
   int count = 0;
   bool given = false;
   /* Split-1 takes the sizes as the attribute or as input 1 */
   if (g->opset < 2 && GNode_attr(n, "split") && GNode_input(g, n, 1))
      return Graph_nodeError(g, n, cause, "takes input 'split' or attribute 'split', not both");
   if (g->opset < 13 && GNode_attr(n, "split")) {
      if (attrInts(g, n, cause, "split", sizes, n->nout, &count) < 0)
         return -1;
      given = true;
   } else if ((g->opset >= 13 || g->opset < 2) && GNode_input(g, n, 1)) {
      if (g->opset >= 18 && GNode_attr(n, "num_outputs"))
         return Graph_nodeError(g, n, cause, "takes input 'split' or attribute 'num_outputs', not both");
      if (inputInts(g, n, cause, 1, sizes, n->nout, &count) < 0)
         return -1;
      given = true;
   }
   if (given) {
      if (count != n->nout)
         return Graph_nodeError(g, n, cause, "split has %d sizes for %d outputs", count, n->nout);
      int64_t sum = 0;
      for (int k = 0; k < count; k++) {
         if (sizes[k] < 0)
            return Graph_nodeError(g, n, cause, "split size %lld is negative", (long long)sizes[k]);
         sum = Graph_addDims(sum, sizes[k]);
      }
      if (sum != dim)
         return Graph_nodeError(g, n, cause, "split sizes add up to %lld, not axis %d's size %lld",
                                (long long)sum, *axis, (long long)dim);
      return 0;
   }
   if (g->opset >= 18 && GNode_attr(n, "num_outputs")) {
      int64_t parts = GNode_attrInt(n, "num_outputs", 0);
      if (parts != n->nout)
         return Graph_nodeError(g, n, cause, "num_outputs %lld does not match the node's %d outputs",
                                (long long)parts, n->nout);
      int64_t chunk = (dim + parts - 1) / parts;
      for (int k = 0; k < n->nout; k++) {
         int64_t left = dim - chunk * k;
         sizes[k] = left < 0 ? 0 : left < chunk ? left : chunk;
      }
      return 0;
   }
   if (dim % n->nout != 0)
      return Graph_nodeError(g, n, cause, "axis %d of size %lld does not split into %d equal parts", *axis,
                             (long long)dim, n->nout);
   for (int k = 0; k < n->nout; k++)
      sizes[k] = dim / n->nout;
   return 0;
}

static int inferSplit(Graph *g, GNode *n, char **cause) {
   if (checkArity(g, n, cause, 1, g->opset >= 13 || g->opset < 2 ? 2 : 1, 1, ANY_COUNT) < 0 ||
       checkType(g, n, cause, 0, TS_ALL) < 0)
      return -1;
   int axis = 0;
   int64_t *sizes = xMalloc(sizeof(int64_t) * (size_t)n->nout);
   if (splitSizes(g, n, cause, &axis, sizes) < 0) {
      free(sizes);
      return -1;
   }
   const GTensor *in = GNode_input(g, n, 0);
   for (int k = 0; k < n->nout; k++) {
      GTensor *out = GNode_output(g, n, k);
      if (!out)
         continue;
      int64_t dims[GRAPH_MAX_DIMS];
      memcpy(dims, in->dims, sizeof dims);
      dims[axis] = sizes[k];
      GTensor_setShape(out, in->dtype, in->ndim, dims);
   }
   free(sizes);
   return 0;
}

static int evalSplit(Graph *g, GNode *n, char **cause) {
   int axis = 0;
   int64_t *sizes = xMalloc(sizeof(int64_t) * (size_t)n->nout);
   if (splitSizes(g, n, cause, &axis, sizes) < 0) {
      free(sizes);
      return -1;
   }
   const GTensor *in = GNode_input(g, n, 0);
   size_t esz = GType_size(in->dtype);
   int64_t outer = dimsProduct(in->dims, 0, axis);
   size_t inner = (size_t)dimsProduct(in->dims, axis + 1, in->ndim) * esz;
   for (int k = 0; k < n->nout; k++)
      if (GNode_output(g, n, k))
         GTensor_alloc(GNode_output(g, n, k));
   const char *src = in->data;
   for (int64_t o = 0; o < outer; o++)
      for (int k = 0; k < n->nout; k++) {
         size_t bytes = (size_t)sizes[k] * inner;
         GTensor *out = GNode_output(g, n, k);
         if (out)
            memcpy((char *)out->data + (size_t)o * bytes, src, bytes);
         src += bytes;
      }
   free(sizes);
   return 0;
}

/* ---- Slice: starts/ends/axes as attributes (opset 1-9) or constant inputs (10-21) ---- */

/* Each input axis's first element, step and output size. */
static int sliceParams(Graph *g, GNode *n, char **cause, int64_t *start, int64_t *step,
                       int64_t *size) {
   const GTensor *in = GNode_input(g, n, 0);
   int64_t starts[GRAPH_MAX_DIMS], ends[GRAPH_MAX_DIMS], axes[GRAPH_MAX_DIMS], steps[GRAPH_MAX_DIMS];
   int ns = 0, ne = 0, na = -1, nst = -1;
   if (g->opset < 10) {
      if (!GNode_attr(n, "starts") || !GNode_attr(n, "ends"))
         return Graph_nodeError(g, n, cause, "attributes 'starts' and 'ends' are required");
      if (attrInts(g, n, cause, "starts", starts, GRAPH_MAX_DIMS, &ns) < 0 ||
          attrInts(g, n, cause, "ends", ends, GRAPH_MAX_DIMS, &ne) < 0)
         return -1;
      if (GNode_attr(n, "axes") && attrInts(g, n, cause, "axes", axes, GRAPH_MAX_DIMS, &na) < 0)
         return -1;
   } else {
      if (inputInts(g, n, cause, 1, starts, GRAPH_MAX_DIMS, &ns) < 0 ||
          inputInts(g, n, cause, 2, ends, GRAPH_MAX_DIMS, &ne) < 0)
         return -1;
      if (GNode_input(g, n, 3) && inputInts(g, n, cause, 3, axes, GRAPH_MAX_DIMS, &na) < 0)
         return -1;
      if (GNode_input(g, n, 4) && inputInts(g, n, cause, 4, steps, GRAPH_MAX_DIMS, &nst) < 0)
         return -1;
   }
   if (ne != ns || (na >= 0 && na != ns) || (nst >= 0 && nst != ns))
      return Graph_nodeError(g, n, cause, "starts, ends, axes and steps differ in length (%d, %d, %d, %d)",
                             ns, ne, na < 0 ? ns : na, nst < 0 ? ns : nst);
   if (na < 0)
      for (int k = 0; k < ns; k++)
         axes[k] = k;
   if (normAxes(g, n, cause, axes, ns, in->ndim) < 0)
      return -1;
   for (int d = 0; d < in->ndim; d++) {
      start[d] = 0;
      step[d] = 1;
      size[d] = in->dims[d];
   }
   for (int k = 0; k < ns; k++) {
      int a = (int)axes[k];
      int64_t dim = in->dims[a], st = nst < 0 ? 1 : steps[k];
      if (st == 0)
         return Graph_nodeError(g, n, cause, "step 0 on axis %d", a);
      if (dim < 0)
         return Graph_nodeError(g, n, cause, "axis %d's size is unknown", a);
      int64_t s = starts[k], e = ends[k];
      s = s < 0 ? s + dim : s;
      e = e < 0 ? e + dim : e;
      int64_t count;
      if (st > 0) {
         s = s < 0 ? 0 : s > dim ? dim : s;
         e = e < 0 ? 0 : e > dim ? dim : e;
         count = e > s ? (e - s - 1) / st + 1 : 0;
      } else {
         if (st < -INT64_MAX)
            st = -INT64_MAX;
         s = s < 0 ? 0 : s > dim - 1 ? dim - 1 : s;
         e = e < -1 ? -1 : e > dim - 1 ? dim - 1 : e;
         count = s > e ? (s - e - 1) / -st + 1 : 0;
      }
      start[a] = s;
      step[a] = st;
      size[a] = count;
   }
   return 0;
}

static int inferSlice(Graph *g, GNode *n, char **cause) {
   bool inputs = g->opset >= 10;
   if (checkArity(g, n, cause, inputs ? 3 : 1, inputs ? 5 : 1, 1, 1) < 0 ||
       checkType(g, n, cause, 0, TS_ALL) < 0)
      return -1;
   int64_t start[GRAPH_MAX_DIMS], step[GRAPH_MAX_DIMS], size[GRAPH_MAX_DIMS];
   if (sliceParams(g, n, cause, start, step, size) < 0)
      return -1;
   const GTensor *in = GNode_input(g, n, 0);
   GTensor_setShape(GNode_output(g, n, 0), in->dtype, in->ndim, size);
   return 0;
}

static int evalSlice(Graph *g, GNode *n, char **cause) {
   int64_t start[GRAPH_MAX_DIMS], step[GRAPH_MAX_DIMS], size[GRAPH_MAX_DIMS];
   int64_t strides[GRAPH_MAX_DIMS];
   if (sliceParams(g, n, cause, start, step, size) < 0)
      return -1;
   const GTensor *in = GNode_input(g, n, 0);
   GTensor *out = GNode_output(g, n, 0);
   GTensor_alloc(out);
   size_t esz = GType_size(in->dtype);
   rowStrides(in->ndim, in->dims, strides);
   int64_t idx[GRAPH_MAX_DIMS] = { 0 };
   int64_t count = GTensor_elems(out);
   for (int64_t e = 0; e < count; e++) {
      int64_t at = 0;
      for (int d = 0; d < in->ndim; d++)
         at += (start[d] + idx[d] * step[d]) * strides[d];
      copyElem(out, e, in, at, esz);
      Graph_nextIndex(out->ndim, out->dims, idx);
   }
   return 0;
}

/* ---- Pad: pads as an attribute (opset 1-10, 'paddings' at 1) or a constant input (11-21, axes
 * 18+) ---- */

enum { PAD_CONSTANT, PAD_REFLECT, PAD_EDGE };

static int padParams(Graph *g, GNode *n, char **cause, int64_t *before, int64_t *after, int *mode) {
   const GTensor *in = GNode_input(g, n, 0);
   const char *m = GNode_attrString(n, "mode", "constant");
   if (strcmp(m, "constant") == 0)
      *mode = PAD_CONSTANT;
   else if (strcmp(m, "reflect") == 0)
      *mode = PAD_REFLECT;
   else if (strcmp(m, "edge") == 0)
      *mode = PAD_EDGE;
   else
      return Graph_nodeError(g, n, cause, "mode '%s' is not supported (constant, reflect, edge)", m);
   int64_t pads[2 * GRAPH_MAX_DIMS], axes[GRAPH_MAX_DIMS];
   int np = 0, na = in->ndim;
   for (int k = 0; k < in->ndim; k++)
      axes[k] = k;
   if (g->opset < 11) {
      /* Pad-1 names them 'paddings', in the same order */
      const char *name = g->opset < 2 ? "paddings" : "pads";
      if (!GNode_attr(n, name))
         return Graph_nodeError(g, n, cause, "attribute '%s' is required", name);
      if (attrInts(g, n, cause, name, pads, 2 * GRAPH_MAX_DIMS, &np) < 0)
         return -1;
   } else {
      if (inputInts(g, n, cause, 1, pads, 2 * GRAPH_MAX_DIMS, &np) < 0)
         return -1;
      if (GNode_input(g, n, 3) && (inputInts(g, n, cause, 3, axes, GRAPH_MAX_DIMS, &na) < 0 ||
                                   normAxes(g, n, cause, axes, na, in->ndim) < 0))
         return -1;
   }
   if (np != 2 * na)
      return Graph_nodeError(g, n, cause, "pads has %d values; %d axes take %d", np, na, 2 * na);
   for (int d = 0; d < in->ndim; d++)
      before[d] = after[d] = 0;
   for (int k = 0; k < na; k++) {
      before[axes[k]] = pads[k];
      after[axes[k]] = pads[k + na];
   }
   for (int d = 0; d < in->ndim; d++) {
      /* a larger pad makes an output past the element cap, a more negative one crops
       * below 0: refused before any sum of them can overflow */
      if (before[d] < -(int64_t)INT32_MAX || before[d] > INT32_MAX || after[d] < -(int64_t)INT32_MAX ||
          after[d] > INT32_MAX)
         return Graph_nodeError(g, n, cause, "pads %lld and %lld on axis %d are out of range (-%d to %d)",
                                (long long)before[d], (long long)after[d], d, INT32_MAX, INT32_MAX);
      if (in->dims[d] >= 0 && in->dims[d] + before[d] + after[d] < 0)
         return Graph_nodeError(g, n, cause, "pads %lld and %lld crop axis %d of size %lld below 0",
                                (long long)before[d], (long long)after[d], d, (long long)in->dims[d]);
      if (*mode != PAD_CONSTANT && in->dims[d] == 0 && (before[d] > 0 || after[d] > 0))
         return Graph_nodeError(g, n, cause, "mode '%s' cannot pad axis %d of size 0", m, d);
   }
   return 0;
}

static int inferPad(Graph *g, GNode *n, char **cause) {
   bool inputs = g->opset >= 11;
   if (checkArity(g, n, cause, inputs ? 2 : 1, inputs ? (g->opset >= 18 ? 4 : 3) : 1, 1, 1) < 0 ||
       checkType(g, n, cause, 0, TS_ALL) < 0 || checkSameType(g, n, cause, 0, 2) < 0)
      return -1;
   int64_t before[GRAPH_MAX_DIMS], after[GRAPH_MAX_DIMS];
   int mode;
   if (padParams(g, n, cause, before, after, &mode) < 0)
      return -1;
   const GTensor *in = GNode_input(g, n, 0);
   int64_t dims[GRAPH_MAX_DIMS];
   for (int d = 0; d < in->ndim; d++)
      dims[d] = in->dims[d] < 0 ? -1 : in->dims[d] + before[d] + after[d];
   GTensor_setShape(GNode_output(g, n, 0), in->dtype, in->ndim, dims);
   return 0;
}

static int64_t reflectIndex(int64_t c, int64_t dim) {
   if (dim == 1)
      return 0;
   int64_t period = 2 * (dim - 1);
   c %= period;
   c = c < 0 ? c + period : c;
   return c < dim ? c : period - c;
}

static int evalPad(Graph *g, GNode *n, char **cause) {
   int64_t before[GRAPH_MAX_DIMS], after[GRAPH_MAX_DIMS], strides[GRAPH_MAX_DIMS];
   int mode;
   if (padParams(g, n, cause, before, after, &mode) < 0)
      return -1;
   const GTensor *in = GNode_input(g, n, 0), *value = GNode_input(g, n, 2);
   GTensor *out = GNode_output(g, n, 0);
   GTensor_alloc(out);
   size_t esz = GType_size(in->dtype);
   double fill = g->opset < 11 ? GNode_attrFloat(n, "value", 0.0) : 0.0;
   bool fillBytes = value && GTensor_elems(value) >= 1;
   rowStrides(in->ndim, in->dims, strides);
   int64_t idx[GRAPH_MAX_DIMS] = { 0 };
   int64_t count = GTensor_elems(out);
   for (int64_t e = 0; e < count; e++) {
      int64_t at = 0;
      bool outside = false;
      for (int d = 0; d < in->ndim; d++) {
         int64_t c = idx[d] - before[d], dim = in->dims[d];
         if (c < 0 || c >= dim) {
            if (mode == PAD_CONSTANT)
               outside = true;
            else if (mode == PAD_EDGE)
               c = c < 0 ? 0 : dim - 1;
            else
               c = reflectIndex(c, dim);
         }
         at += c * strides[d];
      }
      if (!outside)
         copyElem(out, e, in, at, esz);
      else if (fillBytes)
         copyElem(out, e, value, 0, esz);
      else
         GTensor_set(out, e, fill);
      Graph_nextIndex(out->ndim, out->dims, idx);
   }
   return 0;
}

/* ---- Reshape, Flatten, Squeeze, Unsqueeze: the same bytes under a new shape ---- */

static int inferReshape(Graph *g, GNode *n, char **cause) {
   /* before opset 5 the shape is the attribute 'shape' */
   bool attr = g->opset < 5;
   if (checkArity(g, n, cause, attr ? 1 : 2, attr ? 1 : 2, 1, 1) < 0 || checkType(g, n, cause, 0, TS_ALL) < 0)
      return -1;
   const GTensor *in = GNode_input(g, n, 0);
   int64_t dims[GRAPH_MAX_DIMS];
   int rank;
   if (attr && !GNode_attr(n, "shape"))
      return Graph_nodeError(g, n, cause, "attribute 'shape' is required");
   if (attr ? attrInts(g, n, cause, "shape", dims, GRAPH_MAX_DIMS, &rank) < 0
            : inputInts(g, n, cause, 1, dims, GRAPH_MAX_DIMS, &rank) < 0)
      return -1;
   bool allowZero = g->opset >= 14 && GNode_attrInt(n, "allowzero", 0) != 0;
   int infer = -1;
   int64_t known = 1;
   bool unknown = false;
   for (int k = 0; k < rank; k++) {
      if (dims[k] == -1) {
         if (infer >= 0)
            return Graph_nodeError(g, n, cause, "shape has more than one -1");
         infer = k;
         continue;
      }
      if (dims[k] < -1)
         return Graph_nodeError(g, n, cause, "shape entry %lld is negative", (long long)dims[k]);
      if (dims[k] == 0 && !allowZero) {
         if (k >= in->ndim)
            return Graph_nodeError(g, n, cause, "shape entry %d is 0 but the input has rank %d", k, in->ndim);
         dims[k] = in->dims[k];
      }
      if (dims[k] < 0)
         unknown = true;
      else
         known = Graph_mulDims(known, dims[k]);
   }
   if (allowZero && infer >= 0 && known == 0)
      return Graph_nodeError(g, n, cause, "shape has both 0 and -1 with allowzero 1");
   int64_t total = dimsProduct(in->dims, 0, in->ndim);
   if (infer >= 0) {
      if (total < 0 || unknown)
         dims[infer] = -1;
      else if (known == 0 || total % known != 0)
         return Graph_nodeError(g, n, cause, "%lld elements do not reshape with a -1 over %lld",
                                (long long)total, (long long)known);
      else
         dims[infer] = total / known;
   } else if (total >= 0 && !unknown && total != known) {
      char a[128], b[128];
      GTensor_dimsText(in, a, sizeof a);
      Graph_shapeText(rank, dims, b, sizeof b);
      return Graph_nodeError(g, n, cause, "input of shape %s (%lld elements) does not reshape to %s",
                             a, (long long)total, b);
   }
   GTensor_setShape(GNode_output(g, n, 0), in->dtype, rank, dims);
   return 0;
}

static int inferFlatten(Graph *g, GNode *n, char **cause) {
   if (checkArity(g, n, cause, 1, 1, 1, 1) < 0 || checkType(g, n, cause, 0, TS_ALL) < 0)
      return -1;
   const GTensor *in = GNode_input(g, n, 0);
   int64_t axis = GNode_attrInt(n, "axis", 1);
   if (axis < -in->ndim || axis > in->ndim)
      return Graph_nodeError(g, n, cause, "axis %lld is out of range for rank %d", (long long)axis, in->ndim);
   int a = (int)(axis < 0 ? axis + in->ndim : axis);
   int64_t dims[2] = { dimsProduct(in->dims, 0, a), dimsProduct(in->dims, a, in->ndim) };
   GTensor_setShape(GNode_output(g, n, 0), in->dtype, 2, dims);
   return 0;
}

/* The axes Squeeze or Unsqueeze names: an attribute before opset 13, an input after. */
static int squeezeAxes(Graph *g, GNode *n, char **cause, int64_t *axes, int *count, bool *given) {
   *count = 0;
   *given = false;
   if (g->opset < 13) {
      *given = GNode_attr(n, "axes") != NULL;
      return *given ? attrInts(g, n, cause, "axes", axes, GRAPH_MAX_DIMS, count) : 0;
   }
   *given = GNode_input(g, n, 1) != NULL;
   return *given ? inputInts(g, n, cause, 1, axes, GRAPH_MAX_DIMS, count) : 0;
}

static int inferSqueeze(Graph *g, GNode *n, char **cause) {
   if (checkArity(g, n, cause, 1, g->opset >= 13 ? 2 : 1, 1, 1) < 0 ||
       checkType(g, n, cause, 0, TS_ALL) < 0)
      return -1;
   const GTensor *in = GNode_input(g, n, 0);
   int64_t axes[GRAPH_MAX_DIMS];
   int count;
   bool given;
   if (squeezeAxes(g, n, cause, axes, &count, &given) < 0 ||
       normAxes(g, n, cause, axes, count, in->ndim) < 0)
      return -1;
   bool drop[GRAPH_MAX_DIMS] = { false };
   for (int k = 0; k < count; k++) {
      if (in->dims[axes[k]] != 1)
         return Graph_nodeError(g, n, cause, "axis %lld has size %lld, not 1", (long long)axes[k],
                                (long long)in->dims[axes[k]]);
      drop[axes[k]] = true;
   }
   if (!given)
      for (int d = 0; d < in->ndim; d++)
         drop[d] = in->dims[d] == 1;
   int64_t dims[GRAPH_MAX_DIMS];
   int rank = 0;
   for (int d = 0; d < in->ndim; d++)
      if (!drop[d])
         dims[rank++] = in->dims[d];
   GTensor_setShape(GNode_output(g, n, 0), in->dtype, rank, dims);
   return 0;
}

static int inferUnsqueeze(Graph *g, GNode *n, char **cause) {
   bool inputs = g->opset >= 13;
   if (checkArity(g, n, cause, inputs ? 2 : 1, inputs ? 2 : 1, 1, 1) < 0 ||
       checkType(g, n, cause, 0, TS_ALL) < 0)
      return -1;
   const GTensor *in = GNode_input(g, n, 0);
   int64_t axes[GRAPH_MAX_DIMS];
   int count;
   bool given;
   if (squeezeAxes(g, n, cause, axes, &count, &given) < 0)
      return -1;
   if (!given)
      return Graph_nodeError(g, n, cause, "attribute 'axes' is required");
   int rank = in->ndim + count;
   if (rank > GRAPH_MAX_DIMS)
      return Graph_nodeError(g, n, cause, "the output's rank %d exceeds %d", rank, GRAPH_MAX_DIMS);
   if (normAxes(g, n, cause, axes, count, rank) < 0)
      return -1;
   bool added[GRAPH_MAX_DIMS] = { false };
   for (int k = 0; k < count; k++)
      added[axes[k]] = true;
   int64_t dims[GRAPH_MAX_DIMS];
   for (int d = 0, from = 0; d < rank; d++)
      dims[d] = added[d] ? 1 : in->dims[from++];
   GTensor_setShape(GNode_output(g, n, 0), in->dtype, rank, dims);
   return 0;
}

/* ---- Transpose ---- */

static int transposePerm(Graph *g, GNode *n, char **cause, int *perm) {
   const GTensor *in = GNode_input(g, n, 0);
   int count;
   const int64_t *p = GNode_attrInts(n, "perm", &count);
   if (!p) {
      for (int d = 0; d < in->ndim; d++)
         perm[d] = in->ndim - 1 - d;
      return 0;
   }
   if (count != in->ndim)
      return Graph_nodeError(g, n, cause, "perm has %d entries for rank %d", count, in->ndim);
   bool seen[GRAPH_MAX_DIMS] = { false };
   for (int d = 0; d < count; d++) {
      if (p[d] < 0 || p[d] >= count || seen[p[d]])
         return Graph_nodeError(g, n, cause, "perm is not a permutation of 0..%d", count - 1);
      seen[p[d]] = true;
      perm[d] = (int)p[d];
   }
   return 0;
}

static int inferTranspose(Graph *g, GNode *n, char **cause) {
   if (checkArity(g, n, cause, 1, 1, 1, 1) < 0 || checkType(g, n, cause, 0, TS_ALL) < 0)
      return -1;
   int perm[GRAPH_MAX_DIMS];
   if (transposePerm(g, n, cause, perm) < 0)
      return -1;
   const GTensor *in = GNode_input(g, n, 0);
   int64_t dims[GRAPH_MAX_DIMS];
   for (int d = 0; d < in->ndim; d++)
      dims[d] = in->dims[perm[d]];
   GTensor_setShape(GNode_output(g, n, 0), in->dtype, in->ndim, dims);
   return 0;
}

static int evalTranspose(Graph *g, GNode *n, char **cause) {
   int perm[GRAPH_MAX_DIMS];
   if (transposePerm(g, n, cause, perm) < 0)
      return -1;
   const GTensor *in = GNode_input(g, n, 0);
   GTensor *out = GNode_output(g, n, 0);
   GTensor_alloc(out);
   int64_t strides[GRAPH_MAX_DIMS], idx[GRAPH_MAX_DIMS] = { 0 };
   rowStrides(in->ndim, in->dims, strides);
   size_t esz = GType_size(in->dtype);
   int64_t count = GTensor_elems(out);
   for (int64_t e = 0; e < count; e++) {
      int64_t at = 0;
      for (int d = 0; d < out->ndim; d++)
         at += idx[d] * strides[perm[d]];
      copyElem(out, e, in, at, esz);
      Graph_nextIndex(out->ndim, out->dims, idx);
   }
   return 0;
}

/* ---- Gather ---- */

static int inferGather(Graph *g, GNode *n, char **cause) {
   if (checkArity(g, n, cause, 2, 2, 1, 1) < 0 || checkType(g, n, cause, 0, TS_ALL) < 0 ||
       checkType(g, n, cause, 1, TS_INDEX) < 0)
      return -1;
   const GTensor *data = GNode_input(g, n, 0), *ind = GNode_input(g, n, 1);
   int axis = 0;
   if (normAxis(g, n, cause, "axis", GNode_attrInt(n, "axis", 0), data->ndim, &axis) < 0)
      return -1;
   int rank = data->ndim - 1 + ind->ndim;
   if (rank > GRAPH_MAX_DIMS)
      return Graph_nodeError(g, n, cause, "the output's rank %d exceeds %d", rank, GRAPH_MAX_DIMS);
   int64_t dims[GRAPH_MAX_DIMS];
   int r = 0;
   for (int d = 0; d < axis; d++)
      dims[r++] = data->dims[d];
   for (int d = 0; d < ind->ndim; d++)
      dims[r++] = ind->dims[d];
   for (int d = axis + 1; d < data->ndim; d++)
      dims[r++] = data->dims[d];
   GTensor_setShape(GNode_output(g, n, 0), data->dtype, rank, dims);
   return 0;
}

static int evalGather(Graph *g, GNode *n, char **cause) {
   const GTensor *data = GNode_input(g, n, 0), *ind = GNode_input(g, n, 1);
   GTensor *out = GNode_output(g, n, 0);
   int64_t axis = GNode_attrInt(n, "axis", 0);
   int a = (int)(axis < 0 ? axis + data->ndim : axis);
   int64_t dim = data->dims[a], nind = GTensor_elems(ind);
   int64_t outer = dimsProduct(data->dims, 0, a);
   size_t inner = (size_t)dimsProduct(data->dims, a + 1, data->ndim) * GType_size(data->dtype);
   GTensor_alloc(out);
   char *dst = out->data;
   for (int64_t o = 0; o < outer; o++)
      for (int64_t j = 0; j < nind; j++) {
         int64_t k = GTensor_getInt(ind, j);
         if (k < -dim || k >= dim)
            return Graph_nodeError(g, n, cause, "index %lld is out of range for axis %d of size %lld",
                                   (long long)k, a, (long long)dim);
         k = k < 0 ? k + dim : k;
         memcpy(dst, (const char *)data->data + ((size_t)o * (size_t)dim + (size_t)k) * inner, inner);
         dst += inner;
      }
   return 0;
}

/* GatherElements: out[i][j][k] = data[i][index[i][j][k]][k] along axis 1, and so on. */
static int inferGatherElements(Graph *g, GNode *n, char **cause) {
   if (checkArity(g, n, cause, 2, 2, 1, 1) < 0 || checkType(g, n, cause, 0, TS_ALL) < 0 ||
       checkType(g, n, cause, 1, TS_INDEX) < 0)
      return -1;
   const GTensor *data = GNode_input(g, n, 0), *ind = GNode_input(g, n, 1);
   int axis = 0;
   if (normAxis(g, n, cause, "axis", GNode_attrInt(n, "axis", 0), data->ndim, &axis) < 0)
      return -1;
   if (ind->ndim != data->ndim)
      return Graph_nodeError(g, n, cause, "input 1 ('%s') has rank %d where input 0 has rank %d", ind->name,
                             ind->ndim, data->ndim);
   GTensor_setShape(GNode_output(g, n, 0), data->dtype, ind->ndim, ind->dims);
   return 0;
}

static int evalGatherElements(Graph *g, GNode *n, char **cause) {
   const GTensor *data = GNode_input(g, n, 0), *ind = GNode_input(g, n, 1);
   GTensor *out = GNode_output(g, n, 0);
   int64_t axis = GNode_attrInt(n, "axis", 0);
   int a = (int)(axis < 0 ? axis + data->ndim : axis);
   int64_t strides[GRAPH_MAX_DIMS], idx[GRAPH_MAX_DIMS] = { 0 };
   rowStrides(data->ndim, data->dims, strides);
   size_t esz = GType_size(data->dtype);
   GTensor_alloc(out);
   int64_t count = GTensor_elems(out);
   for (int64_t e = 0; e < count; e++) {
      int64_t k = GTensor_getInt(ind, e), dim = data->dims[a];
      if (k < -dim || k >= dim)
         return Graph_nodeError(g, n, cause, "index %lld is out of range for axis %d of size %lld",
                                (long long)k, a, (long long)dim);
      int64_t at = 0;
      for (int d = 0; d < data->ndim; d++)
         at += (d == a ? (k < 0 ? k + dim : k) : idx[d]) * strides[d];
      copyElem(out, e, data, at, esz);
      Graph_nextIndex(out->ndim, out->dims, idx);
   }
   return 0;
}

/* ---- Shape ---- */

static void shapeRange(const Graph *g, const GNode *n, int rank, int *start, int *end) {
   int64_t s = 0, e = rank;
   if (g->opset >= 15) {
      s = GNode_attrInt(n, "start", 0);
      e = GNode_attrInt(n, "end", rank);
   }
   s = s < 0 ? s + rank : s;
   e = e < 0 ? e + rank : e;
   s = s < 0 ? 0 : s > rank ? rank : s;
   e = e < 0 ? 0 : e > rank ? rank : e;
   *start = (int)s;
   *end = (int)(e > s ? e : s);
}

/* When the dimensions are known the output's value is too: infer stores it, so that
 * the shape arithmetic after it (Gather, Concat, ... into a Reshape's shape) folds to
 * constants, as TVM's importer folds it. The node itself stays (its pattern is opaque). */
static int inferShape(Graph *g, GNode *n, char **cause) {
   if (checkArity(g, n, cause, 1, 1, 1, 1) < 0)
      return -1;
   const GTensor *in = GNode_input(g, n, 0);
   GTensor *out = GNode_output(g, n, 0);
   int start, end;
   shapeRange(g, n, in->ndim, &start, &end);
   int64_t len = end - start;
   GTensor_setShape(out, GT_INT64, 1, &len);
   bool known = true;
   for (int d = start; d < end; d++)
      known = known && in->dims[d] >= 0;
   if (known) {
      GTensor_alloc(out);
      memcpy(out->data, in->dims + start, sizeof(int64_t) * (size_t)len);
   }
   return 0;
}

static int evalShape(Graph *g, GNode *n, char **cause) {
   const GTensor *in = GNode_input(g, n, 0);
   GTensor *out = GNode_output(g, n, 0);
   int start, end;
   shapeRange(g, n, in->ndim, &start, &end);
   GTensor_alloc(out);
   for (int d = start; d < end; d++) {
      if (in->dims[d] < 0)
         return Graph_nodeError(g, n, cause, "input 0 ('%s') has an unknown dimension %d", in->name, d);
      ((int64_t *)out->data)[d - start] = in->dims[d];
   }
   return 0;
}

/* ---- Expand, Tile ---- */

static int inferExpand(Graph *g, GNode *n, char **cause) {
   if (checkArity(g, n, cause, 2, 2, 1, 1) < 0 || checkType(g, n, cause, 0, TS_ALL) < 0)
      return -1;
   const GTensor *in = GNode_input(g, n, 0);
   int64_t shape[GRAPH_MAX_DIMS], dims[GRAPH_MAX_DIMS];
   int count, rank;
   if (inputInts(g, n, cause, 1, shape, GRAPH_MAX_DIMS, &count) < 0)
      return -1;
   for (int d = 0; d < count; d++)
      if (shape[d] < 0)
         return Graph_nodeError(g, n, cause, "shape entry %lld is negative", (long long)shape[d]);
   if (!broadcastDims(in->ndim, in->dims, count, shape, &rank, dims)) {
      char a[128], b[128];
      GTensor_dimsText(in, a, sizeof a);
      Graph_shapeText(count, shape, b, sizeof b);
      return Graph_nodeError(g, n, cause, "input of shape %s does not broadcast with shape %s", a, b);
   }
   GTensor_setShape(GNode_output(g, n, 0), in->dtype, rank, dims);
   return 0;
}

static int evalExpand(Graph *g, GNode *n, char **cause) {
   (void)cause;
   const GTensor *in = GNode_input(g, n, 0);
   GTensor *out = GNode_output(g, n, 0);
   GTensor_alloc(out);
   size_t esz = GType_size(in->dtype);
   int64_t idx[GRAPH_MAX_DIMS] = { 0 };
   int64_t count = GTensor_elems(out);
   for (int64_t e = 0; e < count; e++) {
      copyElem(out, e, in, Graph_broadcastIndex(in->ndim, in->dims, out->ndim, idx), esz);
      Graph_nextIndex(out->ndim, out->dims, idx);
   }
   return 0;
}

static int inferTile(Graph *g, GNode *n, char **cause) {
   /* Tile-1 repeats one axis: input 1 the count, input 2 the axis, both scalars */
   bool one = g->opset < 6;
   if (checkArity(g, n, cause, one ? 3 : 2, one ? 3 : 2, 1, 1) < 0 || checkType(g, n, cause, 0, TS_ALL) < 0)
      return -1;
   const GTensor *in = GNode_input(g, n, 0);
   int64_t reps[GRAPH_MAX_DIMS], dims[GRAPH_MAX_DIMS];
   int count;
   if (one) {
      /* of the input's type (floats, as Tile-1 defines them) or an integer */
      double v[3];
      for (int i = 1; i < 3; i++) {
         const GTensor *t = GNode_input(g, n, i);
         if (needConstant(g, n, cause, i) < 0 || checkType(g, n, cause, i, TS_NUM) < 0)
            return -1;
         if (GTensor_elems(t) != 1)
            return Graph_nodeError(g, n, cause, "input %d ('%s') must be a scalar", i, t->name);
         v[i] = GTensor_get(t, 0);
         if (v[i] != floor(v[i]) || fabs(v[i]) > INT32_MAX)
            return Graph_nodeError(g, n, cause, "input %d ('%s') is %g, not a whole number", i, t->name, v[i]);
      }
      int64_t tiles = (int64_t)v[1];
      int a = 0;
      if (normAxis(g, n, cause, "axis", (int64_t)v[2], in->ndim, &a) < 0)
         return -1;
      for (int d = 0; d < in->ndim; d++)
         reps[d] = d == a ? tiles : 1;
      count = in->ndim;
   } else if (inputInts(g, n, cause, 1, reps, GRAPH_MAX_DIMS, &count) < 0) {
      return -1;
   }
   if (count != in->ndim)
      return Graph_nodeError(g, n, cause, "repeats has %d values for rank %d", count, in->ndim);
   for (int d = 0; d < count; d++) {
      if (reps[d] < 0)
         return Graph_nodeError(g, n, cause, "repeats entry %lld is negative", (long long)reps[d]);
      dims[d] = in->dims[d] < 0 ? -1 : Graph_mulDims(in->dims[d], reps[d]);
   }
   GTensor_setShape(GNode_output(g, n, 0), in->dtype, in->ndim, dims);
   return 0;
}

static int evalTile(Graph *g, GNode *n, char **cause) {
   (void)cause;
   const GTensor *in = GNode_input(g, n, 0);
   GTensor *out = GNode_output(g, n, 0);
   GTensor_alloc(out);
   int64_t strides[GRAPH_MAX_DIMS], idx[GRAPH_MAX_DIMS] = { 0 };
   rowStrides(in->ndim, in->dims, strides);
   size_t esz = GType_size(in->dtype);
   int64_t count = GTensor_elems(out);
   for (int64_t e = 0; e < count; e++) {
      int64_t at = 0;
      for (int d = 0; d < in->ndim; d++)
         at += idx[d] % in->dims[d] * strides[d];
      copyElem(out, e, in, at, esz);
      Graph_nextIndex(out->ndim, out->dims, idx);
   }
   return 0;
}

/* ---- ConstantOfShape, Range ---- */

/* The tensor of the 'value' attribute, or NULL for the default float 0. */
static int constantValue(Graph *g, GNode *n, char **cause, const GTensor **value) {
   const GAttr *a = GNode_attr(n, "value");
   *value = NULL;
   if (!a)
      return 0;
   if (a->type != GA_TENSOR || a->tensor < 0 || a->tensor >= g->ntensors)
      return Graph_nodeError(g, n, cause, "attribute 'value' must be a tensor");
   const GTensor *t = &g->t[a->tensor];
   if (!inSet(t->dtype, TS_ALL) || !t->data || GTensor_elems(t) != 1)
      return Graph_nodeError(g, n, cause, "attribute 'value' must hold one number (it is %s with %lld values)",
                             GType_name(t->dtype), (long long)GTensor_elems(t));
   *value = t;
   return 0;
}

static int inferConstantOfShape(Graph *g, GNode *n, char **cause) {
   const GTensor *value;
   int64_t dims[GRAPH_MAX_DIMS];
   int rank;
   if (checkArity(g, n, cause, 1, 1, 1, 1) < 0 ||
       inputInts(g, n, cause, 0, dims, GRAPH_MAX_DIMS, &rank) < 0 ||
       constantValue(g, n, cause, &value) < 0)
      return -1;
   for (int d = 0; d < rank; d++)
      if (dims[d] < 0)
         return Graph_nodeError(g, n, cause, "shape entry %lld is negative", (long long)dims[d]);
   GTensor_setShape(GNode_output(g, n, 0), value ? value->dtype : GT_FLOAT, rank, dims);
   return 0;
}

static int evalConstantOfShape(Graph *g, GNode *n, char **cause) {
   const GTensor *value;
   if (constantValue(g, n, cause, &value) < 0)
      return -1;
   GTensor *out = GNode_output(g, n, 0);
   GTensor_alloc(out);
   if (value)
      for (int64_t e = 0; e < GTensor_elems(out); e++)
         copyElem(out, e, value, 0, GType_size(out->dtype));
   return 0;
}

#define TS_RANGE (TB(GT_FLOAT) | TB(GT_DOUBLE) | TB(GT_INT16) | TB(GT_INT32) | TB(GT_INT64))

static int rangeCount(Graph *g, GNode *n, char **cause, int64_t *count) {
   const GTensor *s = GNode_input(g, n, 0), *l = GNode_input(g, n, 1), *d = GNode_input(g, n, 2);
   if (isIntType(s->dtype)) {
      int64_t start = GTensor_getInt(s, 0), limit = GTensor_getInt(l, 0), delta = GTensor_getInt(d, 0);
      if (delta == 0)
         return Graph_nodeError(g, n, cause, "delta (input 2) is 0");
      /* in uint64: the span and the step's size of any int64 values fit */
      uint64_t span = 0, step = delta > 0 ? (uint64_t)delta : 0 - (uint64_t)delta;
      if (delta > 0 && limit > start)
         span = (uint64_t)limit - (uint64_t)start;
      else if (delta < 0 && start > limit)
         span = (uint64_t)start - (uint64_t)limit;
      uint64_t c = span ? (span - 1) / step + 1 : 0;
      *count = c > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)c;
      return 0;
   }
   double start = GTensor_get(s, 0), limit = GTensor_get(l, 0), delta = GTensor_get(d, 0);
   if (delta == 0.0 || isnan(delta))
      return Graph_nodeError(g, n, cause, "delta (input 2) is %g", delta);
   double c = ceil((limit - start) / delta);
   /* an infinite or NaN count is refused as the absurd size it is */
   if (isnan(c))
      return Graph_nodeError(g, n, cause, "start %g, limit %g and delta %g give no element count", start,
                             limit, delta);
   *count = c > 0 ? (c < 9.2233720368547748e18 ? (int64_t)c : INT64_MAX) : 0;
   return 0;
}

static int inferRange(Graph *g, GNode *n, char **cause) {
   if (checkArity(g, n, cause, 3, 3, 1, 1) < 0)
      return -1;
   for (int i = 0; i < 3; i++) {
      const GTensor *t = GNode_input(g, n, i);
      if (checkType(g, n, cause, i, TS_RANGE) < 0 || checkSameType(g, n, cause, 0, i) < 0 ||
          needConstant(g, n, cause, i) < 0)
         return -1;
      if (GTensor_elems(t) != 1)
         return Graph_nodeError(g, n, cause, "input %d ('%s') must be a scalar", i, t->name);
   }
   int64_t count;
   if (rangeCount(g, n, cause, &count) < 0)
      return -1;
   GTensor_setShape(GNode_output(g, n, 0), GNode_input(g, n, 0)->dtype, 1, &count);
   return 0;
}

static int evalRange(Graph *g, GNode *n, char **cause) {
   (void)cause;
   const GTensor *s = GNode_input(g, n, 0), *d = GNode_input(g, n, 2);
   GTensor *out = GNode_output(g, n, 0);
   GTensor_alloc(out);
   int64_t count = GTensor_elems(out);
   for (int64_t i = 0; i < count; i++) {
      if (isIntType(s->dtype))
         /* wrapping as int64 does: start + i * delta may pass its range */
         setInt(out, i, (int64_t)((uint64_t)GTensor_getInt(s, 0) +
                                  (uint64_t)i * (uint64_t)GTensor_getInt(d, 0)));
      else
         GTensor_set(out, i, GTensor_get(s, 0) + (double)i * GTensor_get(d, 0));
   }
   return 0;
}

/* ---- the rows ---- */

#define UNARY_TO(name, lo, hi, attrs) { name, lo, hi, PAT_ELEMWISE, attrs, inferUnary, evalUnary, NULL }
#define UNARY(name, lo, attrs) UNARY_TO(name, lo, 21, attrs)
#define BINARY_TO(name, lo, hi, attrs) { name, lo, hi, PAT_BROADCAST, attrs, inferBinary, evalBinary, NULL }
#define BINARY(name, lo, attrs) BINARY_TO(name, lo, 21, attrs)
/* Opsets 1-5 (1-6 where the newer version came at 7) take the legacy attribute
 * consumed_inputs, an in-place hint read by nothing; the arithmetic, comparison and logic
 * ops take broadcast and axis up to opset 6 (legacyBroadcast). */
#define OLD_BROADCAST "axis broadcast"

const GraphOp GraphOps_tensor[] = {
   /* activations and elementwise math */
   UNARY_TO("Relu", 1, 5, "consumed_inputs"),
   UNARY("Relu", 6, ""),
   UNARY_TO("LeakyRelu", 1, 5, "alpha consumed_inputs"),
   UNARY("LeakyRelu", 6, "alpha"),
   { "Clip", 1, 5, PAT_ELEMWISE, "consumed_inputs max min", inferClip, evalClip, NULL },
   { "Clip", 6, 10, PAT_ELEMWISE, "max min", inferClip, evalClip, NULL },
   { "Clip", 11, 21, PAT_ELEMWISE, "", inferClip, evalClip, NULL },
   UNARY_TO("Sigmoid", 1, 5, "consumed_inputs"),
   UNARY("Sigmoid", 6, ""),
   UNARY_TO("HardSigmoid", 1, 5, "alpha beta consumed_inputs"),
   UNARY("HardSigmoid", 6, "alpha beta"),
   UNARY("HardSwish", 14, ""),
   UNARY("Gelu", 20, "approximate"),
   UNARY_TO("Elu", 1, 5, "alpha consumed_inputs"),
   UNARY("Elu", 6, "alpha"),
   UNARY_TO("Selu", 1, 5, "alpha consumed_inputs gamma"),
   UNARY("Selu", 6, "alpha gamma"),
   UNARY("Softplus", 1, ""),
   UNARY("Softsign", 1, ""),
   UNARY("Erf", 9, ""),
   UNARY_TO("Tanh", 1, 5, "consumed_inputs"),
   UNARY("Tanh", 6, ""),
   UNARY_TO("Exp", 1, 5, "consumed_inputs"),
   UNARY("Exp", 6, ""),
   UNARY_TO("Log", 1, 5, "consumed_inputs"),
   UNARY("Log", 6, ""),
   UNARY_TO("Neg", 1, 5, "consumed_inputs"),
   UNARY("Neg", 6, ""),
   UNARY_TO("Abs", 1, 5, "consumed_inputs"),
   UNARY("Abs", 6, ""),
   UNARY_TO("Reciprocal", 1, 5, "consumed_inputs"),
   UNARY("Reciprocal", 6, ""),
   UNARY_TO("Sqrt", 1, 5, "consumed_inputs"),
   UNARY("Sqrt", 6, ""),
   UNARY_TO("Floor", 1, 5, "consumed_inputs"),
   UNARY("Floor", 6, ""),
   UNARY_TO("Ceil", 1, 5, "consumed_inputs"),
   UNARY("Ceil", 6, ""),
   UNARY("Round", 11, ""),
   UNARY("Sin", 7, ""),
   UNARY("Cos", 7, ""),
   UNARY("Sign", 9, ""),
   UNARY("Not", 1, ""),
   /* arithmetic, comparisons and logic with numpy broadcasting (from opset 7) */
   BINARY_TO("Add", 1, 5, OLD_BROADCAST " consumed_inputs"),
   BINARY_TO("Add", 6, 6, OLD_BROADCAST),
   BINARY("Add", 7, ""),
   BINARY_TO("Sub", 1, 5, OLD_BROADCAST " consumed_inputs"),
   BINARY_TO("Sub", 6, 6, OLD_BROADCAST),
   BINARY("Sub", 7, ""),
   BINARY_TO("Mul", 1, 5, OLD_BROADCAST " consumed_inputs"),
   BINARY_TO("Mul", 6, 6, OLD_BROADCAST),
   BINARY("Mul", 7, ""),
   BINARY_TO("Div", 1, 5, OLD_BROADCAST " consumed_inputs"),
   BINARY_TO("Div", 6, 6, OLD_BROADCAST),
   BINARY("Div", 7, ""),
   BINARY_TO("Pow", 1, 6, OLD_BROADCAST),
   BINARY("Pow", 7, ""),
   BINARY("Mod", 10, "fmod"),
   BINARY_TO("PRelu", 1, 5, "consumed_inputs"),
   BINARY_TO("PRelu", 6, 6, ""),
   BINARY("PRelu", 7, ""),
   /* before opset 8 their inputs have one shape: numpy broadcasting computes that too */
   BINARY_TO("Max", 1, 5, "consumed_inputs"),
   BINARY("Max", 6, ""),
   BINARY_TO("Min", 1, 5, "consumed_inputs"),
   BINARY("Min", 6, ""),
   BINARY_TO("Sum", 1, 5, "consumed_inputs"),
   BINARY("Sum", 6, ""),
   BINARY_TO("Mean", 1, 5, "consumed_inputs"),
   BINARY("Mean", 6, ""),
   BINARY_TO("Equal", 1, 6, OLD_BROADCAST),
   BINARY("Equal", 7, ""),
   BINARY_TO("Less", 1, 6, OLD_BROADCAST),
   BINARY("Less", 7, ""),
   BINARY_TO("Greater", 1, 6, OLD_BROADCAST),
   BINARY("Greater", 7, ""),
   BINARY("LessOrEqual", 12, ""),
   BINARY("GreaterOrEqual", 12, ""),
   BINARY_TO("And", 1, 6, OLD_BROADCAST),
   BINARY("And", 7, ""),
   BINARY_TO("Or", 1, 6, OLD_BROADCAST),
   BINARY("Or", 7, ""),
   BINARY_TO("Xor", 1, 6, OLD_BROADCAST),
   BINARY("Xor", 7, ""),
   { "Where", 9, 21, PAT_BROADCAST, "", inferWhere, evalWhere, NULL },
   /* types and pass-throughs */
   { "Cast", 1, 5, PAT_ELEMWISE, "to", inferCast, evalCast, NULL },   /* 'to' a type's name */
   { "Cast", 6, 18, PAT_ELEMWISE, "to", inferCast, evalCast, NULL },
   { "Cast", 19, 21, PAT_ELEMWISE, "saturate to", inferCast, evalCast, NULL },
   { "CastLike", 15, 18, PAT_ELEMWISE, "", inferCast, evalCast, NULL },
   { "CastLike", 19, 21, PAT_ELEMWISE, "saturate", inferCast, evalCast, NULL },
   { "Identity", 1, 21, PAT_ELEMWISE, "", inferIdentity, evalCopy, NULL },
   { "Dropout", 1, 5, PAT_OPAQUE, "consumed_inputs is_test ratio", inferDropout, evalDropout, NULL },
   { "Dropout", 6, 6, PAT_OPAQUE, "is_test ratio", inferDropout, evalDropout, NULL },
   { "Dropout", 7, 11, PAT_OPAQUE, "ratio", inferDropout, evalDropout, NULL },
   { "Dropout", 12, 21, PAT_OPAQUE, "seed", inferDropout, evalDropout, NULL },
   /* layout */
   { "Concat", 1, 21, PAT_INJECTIVE, "axis", inferConcat, evalConcat, NULL },
   { "Split", 1, 12, PAT_INJECTIVE, "axis split", inferSplit, evalSplit, NULL },
   { "Split", 13, 17, PAT_INJECTIVE, "axis", inferSplit, evalSplit, NULL },
   { "Split", 18, 21, PAT_INJECTIVE, "axis num_outputs", inferSplit, evalSplit, NULL },
   { "Slice", 1, 9, PAT_INJECTIVE, "axes ends starts", inferSlice, evalSlice, NULL },
   { "Slice", 10, 21, PAT_INJECTIVE, "", inferSlice, evalSlice, NULL },
   { "Pad", 1, 1, PAT_INJECTIVE, "mode paddings value", inferPad, evalPad, NULL },
   { "Pad", 2, 10, PAT_INJECTIVE, "mode pads value", inferPad, evalPad, NULL },
   { "Pad", 11, 21, PAT_INJECTIVE, "mode", inferPad, evalPad, NULL },
   { "Reshape", 1, 4, PAT_INJECTIVE, "consumed_inputs shape", inferReshape, evalCopy, NULL },
   { "Reshape", 5, 13, PAT_INJECTIVE, "", inferReshape, evalCopy, NULL },
   { "Reshape", 14, 21, PAT_INJECTIVE, "allowzero", inferReshape, evalCopy, NULL },
   { "Flatten", 1, 21, PAT_INJECTIVE, "axis", inferFlatten, evalCopy, NULL },
   { "Transpose", 1, 21, PAT_INJECTIVE, "perm", inferTranspose, evalTranspose, NULL },
   { "Squeeze", 1, 12, PAT_INJECTIVE, "axes", inferSqueeze, evalCopy, NULL },
   { "Squeeze", 13, 21, PAT_INJECTIVE, "", inferSqueeze, evalCopy, NULL },
   { "Unsqueeze", 1, 12, PAT_INJECTIVE, "axes", inferUnsqueeze, evalCopy, NULL },
   { "Unsqueeze", 13, 21, PAT_INJECTIVE, "", inferUnsqueeze, evalCopy, NULL },
   { "Gather", 1, 21, PAT_INJECTIVE, "axis", inferGather, evalGather, NULL },
   { "GatherElements", 11, 21, PAT_INJECTIVE, "axis", inferGatherElements, evalGatherElements, NULL },
   { "Expand", 8, 21, PAT_INJECTIVE, "", inferExpand, evalExpand, NULL },
   { "Tile", 1, 21, PAT_INJECTIVE, "", inferTile, evalTile, NULL },
   /* shape arithmetic */
   { "Shape", 1, 14, PAT_OPAQUE, "", inferShape, evalShape, NULL },
   { "Shape", 15, 21, PAT_OPAQUE, "end start", inferShape, evalShape, NULL },
   { "ConstantOfShape", 9, 21, PAT_OPAQUE, "value", inferConstantOfShape, evalConstantOfShape, NULL },
   { "Range", 11, 21, PAT_OPAQUE, "", inferRange, evalRange, NULL },
};
const int GraphOps_tensorCount = (int)(sizeof GraphOps_tensor / sizeof GraphOps_tensor[0]);
