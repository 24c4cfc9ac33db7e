/* Building, counting, printing and interpreting compute DAGs. */
#include "config.h"

#include "te/dag.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/textbuf.h"
#include "util/xalloc.h"

void Dag_init(Dag *g) {
   memset(g, 0, sizeof *g);
}

void Dag_done(Dag *g) {
   free(g->expr);
   memset(g, 0, sizeof *g);
}

void Dag_copy(Dag *dst, const Dag *src) {
   *dst = *src;
   dst->capexpr = src->nexpr;
   dst->expr = xReallocArray(NULL, (size_t)(src->nexpr ? src->nexpr : 1), sizeof(Expr));
   memcpy(dst->expr, src->expr, (size_t)src->nexpr * sizeof(Expr));
}

static Stage *newStage(Dag *g, const char *name, StageKind kind, int ndim, const int64_t *shape) {
   if (g->nstages >= TE_MAX_STAGES)
      fatal("DAG has more than %d stages", TE_MAX_STAGES);
   if (ndim < 0 || ndim > TE_MAX_DIMS || strlen(name) >= TE_NAME_MAX)
      fatal("bad stage '%s' of %d dimensions", name, ndim);
   for (int i = 0; i < g->nstages; i++)
      if (strcmp(g->stages[i].name, name) == 0)
         fatal("two stages named '%s'", name);
   Stage *s = &g->stages[g->nstages++];
   memset(s, 0, sizeof *s);
   strcpy(s->name, name);
   s->kind = kind;
   s->dtype = TE_FLOAT32;
   s->ndim = ndim;
   for (int i = 0; i < ndim; i++) {
      if (shape[i] <= 0)
         fatal("stage '%s' has extent %lld", name, (long long)shape[i]);
      s->shape[i] = shape[i];
   }
   s->body = -1;
   return s;
}

int Dag_placeholder(Dag *g, const char *name, int ndim, const int64_t *shape) {
   newStage(g, name, STAGE_PLACEHOLDER, ndim, shape);
   return g->nstages - 1;
}

int Dag_compute(Dag *g, const char *name, int ndim, const int64_t *shape,
                const char *const *axisNames) {
   Stage *s = newStage(g, name, STAGE_COMPUTE, ndim, shape);
   for (int i = 0; i < ndim; i++) {
      if (strlen(axisNames[i]) >= TE_AXIS_NAME_MAX)
         fatal("axis name '%s' too long", axisNames[i]);
      strcpy(s->axis[i], axisNames[i]);
   }
   return g->nstages - 1;
}

int Dag_reduceAxis(Dag *g, int stage, const char *name, int64_t extent) {
   Stage *s = &g->stages[stage];
   if (s->kind != STAGE_COMPUTE || s->nreduce >= TE_MAX_REDUCE || extent <= 0 ||
       strlen(name) >= TE_AXIS_NAME_MAX)
      fatal("bad reduce axis '%s' on stage '%s'", name, s->name);
   s->rextent[s->nreduce] = extent;
   strcpy(s->axis[s->ndim + s->nreduce], name);
   return s->ndim + s->nreduce++;
}

void Dag_setBody(Dag *g, int stage, ReduceKind reduce, int32_t body) {
   Stage *s = &g->stages[stage];
   if ((reduce == REDUCE_NONE) != (s->nreduce == 0))
      fatal("stage '%s': reduce kind and reduce axes disagree", s->name);
   if (g->expr[body].dtype != TE_FLOAT32)
      fatal("stage '%s': body is not a float expression", s->name);
   s->reduce = reduce;
   s->body = body;
}

static int32_t push(Dag *g, Expr e) {
   if (g->nexpr == g->capexpr) {
      g->capexpr = g->capexpr ? 2 * g->capexpr : 64;
      g->expr = xReallocArray(g->expr, (size_t)g->capexpr, sizeof(Expr));
   }
   g->expr[g->nexpr] = e;
   return g->nexpr++;
}

int32_t Expr_int(Dag *g, int64_t v) {
   Expr e = { .kind = EXPR_INT, .dtype = TE_INT32, .v.i = v };
   return push(g, e);
}

int32_t Expr_float(Dag *g, double v) {
   Expr e = { .kind = EXPR_FLOAT, .dtype = TE_FLOAT32, .v.f = v };
   return push(g, e);
}

int32_t Expr_axis(Dag *g, int axis) {
   if (axis < 0 || axis >= TE_MAX_AXES)
      fatal("axis %d out of range", axis);
   Expr e = { .kind = EXPR_AXIS, .dtype = TE_INT32, .ref = axis };
   return push(g, e);
}

int32_t Expr_load(Dag *g, int stage, int n, const int32_t *index) {
   if (stage < 0 || stage >= g->nstages || g->stages[stage].ndim != n)
      fatal("load of stage %d with %d indices", stage, n);
   Expr e = { .kind = EXPR_LOAD, .dtype = (uint8_t)g->stages[stage].dtype, .ref = stage,
              .nargs = (uint8_t)n };
   for (int i = 0; i < n; i++) {
      if (g->expr[index[i]].dtype != TE_INT32)
         fatal("load of '%s' with a non-integer index", g->stages[stage].name);
      e.args[i] = index[i];
   }
   return push(g, e);
}

static bool isComparison(ExprKind k) {
   return k >= EXPR_LT && k <= EXPR_AND;
}

int32_t Expr_binary(Dag *g, ExprKind kind, int32_t a, int32_t b) {
   if (kind < EXPR_ADD || kind > EXPR_AND)
      fatal("expression kind %d is not binary", kind);
   uint8_t ta = g->expr[a].dtype, tb = g->expr[b].dtype;
   if (ta != tb)
      fatal("binary expression mixes types %d and %d", ta, tb);
   if (kind == EXPR_AND && ta != TE_BOOL)
      fatal("'and' of non-boolean operands");
   if ((kind == EXPR_FLOORDIV || kind == EXPR_FLOORMOD) && ta != TE_INT32)
      fatal("floor division of non-integer operands");
   if (kind == EXPR_DIV && ta != TE_FLOAT32)
      fatal("float division of non-float operands");
   if (ta == TE_INT32) {
      const Expr *x = &g->expr[a], *y = &g->expr[b];
      int64_t v;
      switch (Expr_foldInt(kind, x->kind == EXPR_INT, x->v.i, y->kind == EXPR_INT, y->v.i, &v)) {
      case FOLD_CONST: return Expr_int(g, v);
      case FOLD_A: return a;
      case FOLD_B: return b;
      case FOLD_NONE: break;
      }
   }
   Expr e = { .kind = (uint8_t)kind, .nargs = 2, .args = { a, b } };
   e.dtype = isComparison(kind) ? TE_BOOL : ta;
   return push(g, e);
}

int32_t Expr_add(Dag *g, int32_t a, int32_t b) { return Expr_binary(g, EXPR_ADD, a, b); }
int32_t Expr_sub(Dag *g, int32_t a, int32_t b) { return Expr_binary(g, EXPR_SUB, a, b); }
int32_t Expr_mul(Dag *g, int32_t a, int32_t b) { return Expr_binary(g, EXPR_MUL, a, b); }

int32_t Expr_select(Dag *g, int32_t cond, int32_t t, int32_t f) {
   if (g->expr[cond].dtype != TE_BOOL || g->expr[t].dtype != g->expr[f].dtype)
      fatal("ill-typed select");
   Expr e = { .kind = EXPR_SELECT, .dtype = g->expr[t].dtype, .nargs = 3, .args = { cond, t, f } };
   return push(g, e);
}

int32_t Expr_call(Dag *g, ExprKind kind, int32_t a) {
   if (kind < EXPR_EXP || kind > EXPR_SIGMOID || g->expr[a].dtype != TE_FLOAT32)
      fatal("ill-typed intrinsic call");
   Expr e = { .kind = (uint8_t)kind, .dtype = TE_FLOAT32, .nargs = 1, .args = { a } };
   return push(g, e);
}

float Expr_sigmoid(float x) {
   return 1.0f / (1.0f + expf(-x));
}

int32_t Expr_cast(Dag *g, int32_t a) {
   if (g->expr[a].dtype != TE_INT32)
      fatal("cast of a non-integer expression");
   Expr e = { .kind = EXPR_CAST, .dtype = TE_FLOAT32, .nargs = 1, .args = { a } };
   return push(g, e);
}

int Dag_output(const Dag *g) {
   return g->nstages - 1;
}

int Dag_numInputs(const Dag *g) {
   int n = 0;
   for (int i = 0; i < g->nstages; i++)
      n += g->stages[i].kind == STAGE_PLACEHOLDER;
   return n;
}

int Dag_input(const Dag *g, int i) {
   for (int s = 0; s < g->nstages; s++)
      if (g->stages[s].kind == STAGE_PLACEHOLDER && i-- == 0)
         return s;
   return -1;
}

int64_t Dag_numElements(const Dag *g, int stage) {
   int64_t n = 1;
   for (int i = 0; i < g->stages[stage].ndim; i++)
      n *= g->stages[stage].shape[i];
   return n;
}

bool Dag_exprReads(const Dag *g, int32_t e, int s) {
   const Expr *x = &g->expr[e];
   if (x->kind == EXPR_LOAD && x->ref == s)
      return true;
   for (int i = 0; i < x->nargs; i++)
      if (Dag_exprReads(g, x->args[i], s))
         return true;
   return false;
}

int Dag_readers(const Dag *g, int stage, int *out, int max) {
   int n = 0;
   for (int s = stage + 1; s < g->nstages; s++)
      if (g->stages[s].kind == STAGE_COMPUTE && Dag_exprReads(g, g->stages[s].body, stage)) {
         if (n < max)
            out[n] = s;
         n++;
      }
   return n;
}

static double exprFlops(const Dag *g, int32_t e) {
   const Expr *x = &g->expr[e];
   switch ((ExprKind)x->kind) {
   case EXPR_INT:
   case EXPR_FLOAT:
   case EXPR_AXIS:
   case EXPR_LOAD:
      return 0;
   case EXPR_SELECT: {
      double t = exprFlops(g, x->args[1]), f = exprFlops(g, x->args[2]);
      return exprFlops(g, x->args[0]) + (t > f ? t : f);
   }
   case EXPR_CAST:
   case EXPR_EXP:
   case EXPR_ERF:
   case EXPR_SQRT:
   case EXPR_RSQRT:
   case EXPR_TANH:
   case EXPR_SIGMOID:
      return exprFlops(g, x->args[0]);
   default: {
      bool counted = g->expr[x->args[0]].dtype == TE_FLOAT32;
      return (counted ? 1 : 0) + exprFlops(g, x->args[0]) + exprFlops(g, x->args[1]);
   }
   }
}

double Dag_estimateFlops(const Dag *g) {
   double total = 0;
   for (int s = 0; s < g->nstages; s++) {
      const Stage *st = &g->stages[s];
      if (st->kind != STAGE_COMPUTE)
         continue;
      double per = exprFlops(g, st->body);
      if (st->reduce != REDUCE_NONE) {
         double iters = 1;
         for (int r = 0; r < st->nreduce; r++)
            iters *= (double)st->rextent[r];
         per = iters * (1 + per);
      }
      total += per * (double)Dag_numElements(g, s);
   }
   return total;
}

/* ---- printing ---- */

static int precedence(ExprKind k) {
   switch (k) {
   case EXPR_AND: return 1;
   case EXPR_LT: case EXPR_LE: case EXPR_GE: case EXPR_GT: case EXPR_EQ: return 2;
   case EXPR_ADD: case EXPR_SUB: return 3;
   case EXPR_MUL: case EXPR_DIV: return 4;
   default: return 9;
   }
}

static const char *infix(ExprKind k) {
   switch (k) {
   case EXPR_ADD: return " + ";
   case EXPR_SUB: return " - ";
   case EXPR_MUL: return "*";
   case EXPR_DIV: return "/";
   case EXPR_LT: return " < ";
   case EXPR_LE: return " <= ";
   case EXPR_GE: return " >= ";
   case EXPR_GT: return " > ";
   case EXPR_EQ: return " == ";
   case EXPR_AND: return " && ";
   default: return NULL;
   }
}

static const char *callName(ExprKind k) {
   switch (k) {
   case EXPR_FLOORDIV: return "floordiv";
   case EXPR_FLOORMOD: return "floormod";
   case EXPR_MIN: return "min";
   case EXPR_MAX: return "max";
   case EXPR_SELECT: return "select";
   case EXPR_CAST: return "float";
   case EXPR_EXP: return "exp";
   case EXPR_ERF: return "erf";
   case EXPR_SQRT: return "sqrt";
   case EXPR_RSQRT: return "rsqrt";
   case EXPR_TANH: return "tanh";
   case EXPR_SIGMOID: return "sigmoid";
   default: return "?";
   }
}

void Expr_formatWith(const ExprNamer *n, int32_t e, TextBuf *o) {
   const Expr *x = &n->pool[e];
   ExprKind k = (ExprKind)x->kind;
   switch (k) {
   case EXPR_INT:
      TextBuf_add(o, "%lld", (long long)x->v.i);
      return;
   case EXPR_FLOAT:
      if (isinf(x->v.f))
         TextBuf_add(o, "%sinf", x->v.f < 0 ? "-" : "");
      else if (x->v.f == floor(x->v.f) && fabs(x->v.f) < 1e15)
         TextBuf_add(o, "%.1f", x->v.f);
      else
         TextBuf_add(o, "%.9g", x->v.f);
      return;
   case EXPR_AXIS:
   case EXPR_LOAD:
      n->leaf(n, e, o);
      return;
   default:
      break;
   }
   const char *op = infix(k);
   if (!op) {
      TextBuf_add(o, "%s(", callName(k));
      for (int i = 0; i < x->nargs; i++) {
         if (i)
            TextBuf_add(o, ", ");
         Expr_formatWith(n, x->args[i], o);
      }
      TextBuf_add(o, ")");
      return;
   }
   int p = precedence(k);
   for (int i = 0; i < 2; i++) {
      ExprKind kc = (ExprKind)n->pool[x->args[i]].kind;
      int pc = precedence(kc);
      /* a right operand at equal precedence needs parentheses too, unless it is the
       * same + or * (x*(y/6) is not x*y/6 in floats) */
      bool paren = pc < p || (i == 1 && pc == p && (k == EXPR_SUB || k == EXPR_DIV || kc != k));
      if (i)
         TextBuf_add(o, "%s", op);
      if (paren)
         TextBuf_add(o, "(");
      Expr_formatWith(n, x->args[i], o);
      if (paren)
         TextBuf_add(o, ")");
   }
}

typedef struct {
   const Dag *g;
   const Stage *st;
} StageNames;

static void stageLeaf(const ExprNamer *n, int32_t e, TextBuf *o) {
   const StageNames *sn = n->ctx;
   const Expr *x = &n->pool[e];
   if (x->kind == EXPR_AXIS) {
      TextBuf_add(o, "%s", sn->st->axis[x->ref]);
      return;
   }
   TextBuf_add(o, "%s[", sn->g->stages[x->ref].name);
   for (int i = 0; i < x->nargs; i++) {
      if (i)
         TextBuf_add(o, ", ");
      Expr_formatWith(n, x->args[i], o);
   }
   TextBuf_add(o, "]");
}

size_t Expr_format(const Dag *g, int stage, int32_t e, char *buf, size_t size) {
   TextBuf o = TextBuf_over(buf, size);
   StageNames sn = { g, &g->stages[stage] };
   ExprNamer n = { g->expr, &sn, stageLeaf };
   Expr_formatWith(&n, e, &o);
   return o.len;
}

void Dag_print(const Dag *g, FILE *out) {
   for (int s = 0; s < g->nstages; s++) {
      const Stage *st = &g->stages[s];
      if (st->kind == STAGE_PLACEHOLDER) {
         fprintf(out, "%s = placeholder[", st->name);
         for (int i = 0; i < st->ndim; i++)
            fprintf(out, "%s%lld", i ? ", " : "", (long long)st->shape[i]);
         fprintf(out, "]\n");
         continue;
      }
      fprintf(out, "%s[", st->name);
      for (int i = 0; i < st->ndim; i++)
         fprintf(out, "%s%s", i ? ", " : "", st->axis[i]);
      size_t need = Expr_format(g, s, st->body, NULL, 0) + 1;
      char *text = xMalloc(need);
      Expr_format(g, s, st->body, text, need);
      const char *assign = st->reduce == REDUCE_SUM ? "+=" : st->reduce == REDUCE_MAX ? "max=" : "=";
      fprintf(out, "] %s %s", assign, text);
      free(text);
      for (int r = 0; r < st->nreduce; r++)
         fprintf(out, "%s%s in 0..%lld", r ? ", " : "    for ", st->axis[st->ndim + r],
                 (long long)st->rextent[r]);
      fputc('\n', out);
   }
}

/* ---- interpretation ---- */

typedef struct {
   const Dag *g;
   float *const *bufs;
   int64_t axis[TE_MAX_AXES];
} Eval;

static int64_t evalInt(Eval *ev, int32_t e);
static float evalFloat(Eval *ev, int32_t e);

static bool evalBool(Eval *ev, int32_t e) {
   const Expr *x = &ev->g->expr[e];
   if (x->kind == EXPR_AND)
      return evalBool(ev, x->args[0]) && evalBool(ev, x->args[1]);
   bool isFloat = ev->g->expr[x->args[0]].dtype == TE_FLOAT32;
   double a = isFloat ? evalFloat(ev, x->args[0]) : (double)evalInt(ev, x->args[0]);
   double b = isFloat ? evalFloat(ev, x->args[1]) : (double)evalInt(ev, x->args[1]);
   switch ((ExprKind)x->kind) {
   case EXPR_LT: return a < b;
   case EXPR_LE: return a <= b;
   case EXPR_GE: return a >= b;
   case EXPR_GT: return a > b;
   case EXPR_EQ: return a == b;
   default: fatal("expression kind %d is not boolean", x->kind);
   }
}

static int64_t evalInt(Eval *ev, int32_t e) {
   const Expr *x = &ev->g->expr[e];
   switch ((ExprKind)x->kind) {
   case EXPR_INT: return x->v.i;
   case EXPR_AXIS: return ev->axis[x->ref];
   case EXPR_ADD: return evalInt(ev, x->args[0]) + evalInt(ev, x->args[1]);
   case EXPR_SUB: return evalInt(ev, x->args[0]) - evalInt(ev, x->args[1]);
   case EXPR_MUL: return evalInt(ev, x->args[0]) * evalInt(ev, x->args[1]);
   case EXPR_FLOORDIV: return Expr_floorDiv(evalInt(ev, x->args[0]), evalInt(ev, x->args[1]));
   case EXPR_FLOORMOD: return Expr_floorMod(evalInt(ev, x->args[0]), evalInt(ev, x->args[1]));
   case EXPR_MIN: {
      int64_t a = evalInt(ev, x->args[0]), b = evalInt(ev, x->args[1]);
      return a < b ? a : b;
   }
   case EXPR_MAX: {
      int64_t a = evalInt(ev, x->args[0]), b = evalInt(ev, x->args[1]);
      return a > b ? a : b;
   }
   case EXPR_SELECT:
      return evalBool(ev, x->args[0]) ? evalInt(ev, x->args[1]) : evalInt(ev, x->args[2]);
   default: fatal("expression kind %d is not an integer", x->kind);
   }
}

static float evalFloat(Eval *ev, int32_t e) {
   const Expr *x = &ev->g->expr[e];
   switch ((ExprKind)x->kind) {
   case EXPR_FLOAT: return (float)x->v.f;
   case EXPR_LOAD: {
      const Stage *src = &ev->g->stages[x->ref];
      int64_t off = 0;
      for (int i = 0; i < x->nargs; i++) {
         int64_t v = evalInt(ev, x->args[i]);
         if (v < 0 || v >= src->shape[i])
            fatal("load %s index %d = %lld is out of bounds [0, %lld)", src->name, i,
                  (long long)v, (long long)src->shape[i]);
         off = off * src->shape[i] + v;
      }
      return ev->bufs[x->ref][off];
   }
   case EXPR_ADD: return evalFloat(ev, x->args[0]) + evalFloat(ev, x->args[1]);
   case EXPR_SUB: return evalFloat(ev, x->args[0]) - evalFloat(ev, x->args[1]);
   case EXPR_MUL: return evalFloat(ev, x->args[0]) * evalFloat(ev, x->args[1]);
   case EXPR_DIV: return evalFloat(ev, x->args[0]) / evalFloat(ev, x->args[1]);
   case EXPR_MIN: return fminf(evalFloat(ev, x->args[0]), evalFloat(ev, x->args[1]));
   case EXPR_MAX: return fmaxf(evalFloat(ev, x->args[0]), evalFloat(ev, x->args[1]));
   case EXPR_SELECT:
      return evalBool(ev, x->args[0]) ? evalFloat(ev, x->args[1]) : evalFloat(ev, x->args[2]);
   case EXPR_CAST: return (float)evalInt(ev, x->args[0]);
   case EXPR_EXP: return expf(evalFloat(ev, x->args[0]));
   case EXPR_ERF: return erff(evalFloat(ev, x->args[0]));
   case EXPR_SQRT: return sqrtf(evalFloat(ev, x->args[0]));
   case EXPR_RSQRT: return 1.0f / sqrtf(evalFloat(ev, x->args[0]));
   case EXPR_TANH: return tanhf(evalFloat(ev, x->args[0]));
   case EXPR_SIGMOID: return Expr_sigmoid(evalFloat(ev, x->args[0]));
   default: fatal("expression kind %d is not a float", x->kind);
   }
}

/* Advances a multi-index over extents; false once it wraps around. */
static bool nextIndex(int64_t *idx, const int64_t *extent, int n) {
   for (int i = n - 1; i >= 0; i--) {
      if (++idx[i] < extent[i])
         return true;
      idx[i] = 0;
   }
   return false;
}

void Dag_evaluate(const Dag *g, float *const *bufs) {
   Eval ev = { .g = g, .bufs = bufs };
   for (int s = 0; s < g->nstages; s++) {
      const Stage *st = &g->stages[s];
      if (st->kind != STAGE_COMPUTE)
         continue;
      memset(ev.axis, 0, sizeof ev.axis);
      int64_t n = Dag_numElements(g, s);
      for (int64_t flat = 0; flat < n; flat++) {
         float acc;
         if (st->reduce == REDUCE_NONE) {
            acc = evalFloat(&ev, st->body);
         } else {
            acc = st->reduce == REDUCE_SUM ? 0.0f : -INFINITY;
            int64_t *r = &ev.axis[st->ndim];
            memset(r, 0, (size_t)st->nreduce * sizeof *r);
            do {
               float v = evalFloat(&ev, st->body);
               acc = st->reduce == REDUCE_SUM ? acc + v : fmaxf(acc, v);
            } while (nextIndex(r, st->rextent, st->nreduce));
         }
         bufs[s][flat] = acc;
         nextIndex(ev.axis, st->shape, st->ndim);
      }
   }
}
