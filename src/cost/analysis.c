/* The walk behind PSA and the features: a loop stack like the one Ansor's feature
 * extractor keeps on TVM's unflattened program (blockIdx.x, vthread, threadIdx.x, then
 * the loops), the accesses of each store, their regions per loop level, and the reuse
 * records of every loop. Definitions are in cost/features.h and cost/psa.h; this file
 * says where our loop nest needs a word more than Ansor's program does. */
#include "config.h"

#include "cost/analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sketch.h"
#include "util/xalloc.h"

#define MAX_DEPTH 32
#define MAX_ACCESSES 12          /* buffers one statement touches */
#define MAX_TUPLES 8             /* loads of one buffer in one statement; the region of further ones is not counted */
#define MAX_COPIES 16            /* virtual threads per thread (the schedule allows 8) */
#define MAX_SEQUENCE 96          /* accesses kept for the pattern search */
#define VAR_WORDS ((IR_MAX_VARS + 63) / 64)
#define BYTES 4                  /* float32: global memory, and where no buffer is known */
#define CACHE_LINE 64

typedef struct {
   uint64_t w[VAR_WORDS];
} VarSet;

typedef struct {
   int64_t lo, hi;
} Range;

typedef enum {
   LV_BLOCK,
   LV_VTHREAD,
   LV_THREAD,
   LV_SERIAL,
   LV_UNROLL,
   LV_VECTOR,
} LevelKind;

/* Operation counts, in the order of features.h's group 1. */
enum {
   OP_FLOAT_MAD, OP_FLOAT_ADDSUB, OP_FLOAT_MUL, OP_FLOAT_DIVMOD, OP_FLOAT_CMP, OP_FLOAT_MATH,
   OP_FLOAT_OTHER, OP_INT_MAD, OP_INT_ADDSUB, OP_INT_MUL, OP_INT_DIVMOD, OP_INT_CMP, OP_INT_MATH,
   OP_INT_OTHER, OP_BOOL, OP_SELECT, OP_COUNT
};

typedef struct {
   int32_t n[OP_COUNT];
} OpCount;

typedef struct {
   LevelKind kind;
   int var;                      /* IrVar; -1 for the vthread loop */
   int64_t extent;
   int32_t id;                   /* identity for allocation scopes */
   /* what every statement under this loop has touched so far (Ansor's for_touch_regions) */
   double bytes;
   int accesses;
   int count[IR_MAX_BUFFERS];
   double minTouched[IR_MAX_BUFFERS];
} Level;

typedef struct {
   int buffer;
   int type;                     /* 0 read, 1 write, 2 readwrite */
   int ndim;
   const int64_t *shape;
   int64_t flatShape;            /* the shape of an access by flat index only */
   int64_t span;                 /* elements a flat access covers past its index (an mma's
                                    fragment); 0 for a single element */
   double elems;                 /* elements one thread moves per execution */
   int ntuples;
   int32_t tuple[MAX_COPIES][MAX_TUPLES][TE_MAX_DIMS];
   VarSet dimVars[MAX_TUPLES][TE_MAX_DIMS];   /* variables each index uses (copy 0) */
   VarSet vars;                  /* their union */
   bool vthreadDep;              /* the virtual threads' copies index it differently */
   double touched[MAX_DEPTH];    /* elements per level */
   int64_t region0[TE_MAX_DIMS]; /* per-dimension extent at level 0 */
   float fea[FEATURE_BUF_LEN];   /* slog'd group-2 entries */
   double lines, bytes;          /* sort keys */
} Access;

typedef struct {
   float v[PATTERN_WIDTH];
   char loc;
} SeqEntry;

typedef struct {
   double ops[OP_COUNT];         /* raw, summed over stores */
   double outerProd;
} RowRaw;

struct Analysis_ {
   const LoopNest *ln;
   bool wantFeatures;
   uint32_t stamp;
   /* the kernel */
   int64_t grid, block, vthreads;
   int unroll;
   /* the stack */
   int depth;
   Level level[MAX_DEPTH];
   int vpos;                     /* level of the vthread loop, or -1 */
   int posOf[IR_MAX_VARS];       /* level of a loop variable, -1 off the stack */
   /* memos, valid for this run when their stamp matches */
   uint32_t setStamp[IR_MAX_VARS];
   VarSet setMemo[IR_MAX_VARS];
   uint32_t opsStamp[IR_MAX_VARS];
   OpCount opsMemo[IR_MAX_VARS];
   uint32_t rangeStamp[IR_MAX_VARS][MAX_DEPTH];
   Range rangeMemo[IR_MAX_VARS][MAX_DEPTH];
   /* the statement */
   int ncopies;
   int nacc;
   Access acc[MAX_ACCESSES];
   /* rows */
   int rowOf[IR_MAX_BUFFERS];
   RowRaw raw[IR_MAX_BUFFERS];
   /* allocation scopes: the common prefix of the stacks at every access */
   int lcaDepth[IR_MAX_BUFFERS];  /* -1 before the first access */
   int32_t lcaId[IR_MAX_BUFFERS][MAX_DEPTH];
   int64_t lcaExtent[IR_MAX_BUFFERS][MAX_DEPTH];
   /* the access sequence of the pattern search */
   int nseq;
   SeqEntry seq[MAX_SEQUENCE];
   PsaSymbols *psa;
   Features *features;
};

Analysis *Analysis_new(void) {
   Analysis *a = xCalloc(1, sizeof *a);
   return a;
}

void Analysis_free(Analysis *a) {
   free(a);
}

/* ---- expressions ---- */

static inline bool isLet(const Analysis *a, int var) {
   return a->ln->vars[var].kind == VAR_LET;
}

static void varsOf(Analysis *a, int32_t e, VarSet *out);

static const VarSet *letVars(Analysis *a, int var) {
   if (a->setStamp[var] != a->stamp) {
      VarSet s;
      memset(&s, 0, sizeof s);
      varsOf(a, a->ln->vars[var].value, &s);
      a->setMemo[var] = s;
      a->setStamp[var] = a->stamp;
   }
   return &a->setMemo[var];
}

/* Adds the loop, block and thread variables e reads (through LET values) to out. */
static void varsOf(Analysis *a, int32_t e, VarSet *out) {
   const Expr *x = &a->ln->expr[e];
   switch ((ExprKind)x->kind) {
   case EXPR_INT:
   case EXPR_FLOAT:
      return;
   case EXPR_AXIS:
      if (isLet(a, x->ref)) {
         const VarSet *s = letVars(a, x->ref);
         for (int i = 0; i < VAR_WORDS; i++)
            out->w[i] |= s->w[i];
      } else {
         out->w[x->ref / 64] |= UINT64_C(1) << (x->ref % 64);
      }
      return;
   case EXPR_LOAD:
      /* a load inside an index: its own indices matter, not its value */
   default:
      for (int i = 0; i < x->nargs; i++)
         varsOf(a, x->args[i], out);
      return;
   }
}

static inline bool hasVar(const VarSet *s, int var) {
   return (s->w[var / 64] >> (var % 64)) & 1;
}

static void countOps(Analysis *a, int32_t e, OpCount *c);

static const OpCount *letOps(Analysis *a, int var) {
   if (a->opsStamp[var] != a->stamp) {
      OpCount c;
      memset(&c, 0, sizeof c);
      countOps(a, a->ln->vars[var].value, &c);
      a->opsMemo[var] = c;
      a->opsStamp[var] = a->stamp;
   }
   return &a->opsMemo[var];
}

/* Ansor's MathOpCounter: every operation of the expression, the index arithmetic of
 * its loads included (a LET variable counts as its value, as the index would read
 * inline in TVM's program). A load counts its per-dimension indices when it has them. */
static void countOps(Analysis *a, int32_t e, OpCount *c) {
   const LoopNest *ln = a->ln;
   const Expr *x = &ln->expr[e];
   bool isFloat = x->nargs > 0 && ln->expr[x->args[0]].dtype == TE_FLOAT32;
   switch ((ExprKind)x->kind) {
   case EXPR_INT:
   case EXPR_FLOAT:
      return;
   case EXPR_AXIS:
      if (isLet(a, x->ref)) {
         const OpCount *l = letOps(a, x->ref);
         for (int i = 0; i < OP_COUNT; i++)
            c->n[i] += l->n[i];
      }
      return;
   case EXPR_LOAD: {
      if (!a->wantFeatures)
         return;                /* PSA counts float operations only: indices are integer */
      const int32_t *dims = Ir_loadDims(ln, e);
      if (dims) {
         for (int d = 0; d < ln->buffers[x->ref].ndim; d++)
            countOps(a, dims[d], c);
      } else {
         countOps(a, x->args[0], c);
      }
      return;
   }
   case EXPR_ADD:
   case EXPR_SUB:
      c->n[isFloat ? OP_FLOAT_ADDSUB : OP_INT_ADDSUB]++;
      break;
   case EXPR_MUL:
      c->n[isFloat ? OP_FLOAT_MUL : OP_INT_MUL]++;
      break;
   case EXPR_DIV:
   case EXPR_FLOORDIV:
   case EXPR_FLOORMOD:
      c->n[isFloat ? OP_FLOAT_DIVMOD : OP_INT_DIVMOD]++;
      break;
   case EXPR_MIN:
   case EXPR_MAX:
   case EXPR_LT:
   case EXPR_LE:
   case EXPR_GE:
   case EXPR_GT:
   case EXPR_EQ:
      c->n[isFloat ? OP_FLOAT_CMP : OP_INT_CMP]++;
      break;
   case EXPR_AND:
      c->n[OP_BOOL]++;
      break;
   case EXPR_SELECT:
      c->n[OP_SELECT]++;
      break;
   case EXPR_EXP:
   case EXPR_ERF:
   case EXPR_SQRT:
   case EXPR_RSQRT:
   case EXPR_TANH:
   case EXPR_SIGMOID:
      c->n[OP_FLOAT_MATH]++;
      break;
   case EXPR_CAST:
   case EXPR_KIND_COUNT:
      break;
   }
   for (int i = 0; i < x->nargs; i++)
      countOps(a, x->args[i], c);
}

/* Whether two index expressions are the same (LET variables by identity). */
static bool sameExpr(const LoopNest *ln, int32_t p, int32_t q) {
   if (p == q)
      return true;
   const Expr *x = &ln->expr[p], *y = &ln->expr[q];
   if (x->kind != y->kind || x->nargs != y->nargs || x->ref != y->ref)
      return false;
   if (x->kind == EXPR_INT && x->v.i != y->v.i)
      return false;
   if (x->kind == EXPR_FLOAT && x->v.f != y->v.f)
      return false;
   for (int i = 0; i < x->nargs; i++)
      if (!sameExpr(ln, x->args[i], y->args[i]))
         return false;
   return true;
}

static Range rangeOf(Analysis *a, int32_t e, int lvl);

/* The bound of a variable at level lvl: loops at lvl and inside run over their
 * extents, loops outside sit at 0. */
static Range varRange(Analysis *a, int var, int lvl) {
   if (isLet(a, var)) {
      if (a->rangeStamp[var][lvl] != a->stamp) {
         a->rangeMemo[var][lvl] = rangeOf(a, a->ln->vars[var].value, lvl);
         a->rangeStamp[var][lvl] = a->stamp;
      }
      return a->rangeMemo[var][lvl];
   }
   int p = a->posOf[var];
   if (p >= 0 && p < lvl)
      return (Range){ 0, 0 };
   return (Range){ 0, a->ln->vars[var].extent - 1 };
}

static int64_t min64(int64_t x, int64_t y) {
   return x < y ? x : y;
}

static int64_t max64(int64_t x, int64_t y) {
   return x > y ? x : y;
}

/* Interval bound of an integer index expression (TVM's const_int_bound on the
 * operations lowering emits). */
static Range rangeOf(Analysis *a, int32_t e, int lvl) {
   const Expr *x = &a->ln->expr[e];
   switch ((ExprKind)x->kind) {
   case EXPR_INT:
      return (Range){ x->v.i, x->v.i };
   case EXPR_AXIS:
      return varRange(a, x->ref, lvl);
   case EXPR_ADD: {
      Range p = rangeOf(a, x->args[0], lvl), q = rangeOf(a, x->args[1], lvl);
      return (Range){ p.lo + q.lo, p.hi + q.hi };
   }
   case EXPR_SUB: {
      Range p = rangeOf(a, x->args[0], lvl), q = rangeOf(a, x->args[1], lvl);
      return (Range){ p.lo - q.hi, p.hi - q.lo };
   }
   case EXPR_MUL: {
      Range p = rangeOf(a, x->args[0], lvl), q = rangeOf(a, x->args[1], lvl);
      int64_t c1 = p.lo * q.lo, c2 = p.lo * q.hi, c3 = p.hi * q.lo, c4 = p.hi * q.hi;
      return (Range){ min64(min64(c1, c2), min64(c3, c4)), max64(max64(c1, c2), max64(c3, c4)) };
   }
   case EXPR_FLOORDIV:
   case EXPR_FLOORMOD: {
      Range p = rangeOf(a, x->args[0], lvl), q = rangeOf(a, x->args[1], lvl);
      if (q.lo != q.hi || q.lo <= 0)
         return p;              /* lowering only divides by positive constants */
      int64_t d = q.lo;
      int64_t lo = Expr_floorDiv(p.lo, d), hi = Expr_floorDiv(p.hi, d);
      if (x->kind == EXPR_FLOORDIV)
         return (Range){ lo, hi };
      if (lo == hi)
         return (Range){ Expr_floorMod(p.lo, d), Expr_floorMod(p.hi, d) };
      return (Range){ 0, d - 1 };
   }
   case EXPR_MIN: {
      Range p = rangeOf(a, x->args[0], lvl), q = rangeOf(a, x->args[1], lvl);
      return (Range){ min64(p.lo, q.lo), min64(p.hi, q.hi) };
   }
   case EXPR_MAX: {
      Range p = rangeOf(a, x->args[0], lvl), q = rangeOf(a, x->args[1], lvl);
      return (Range){ max64(p.lo, q.lo), max64(p.hi, q.hi) };
   }
   case EXPR_SELECT: {
      Range p = rangeOf(a, x->args[1], lvl), q = rangeOf(a, x->args[2], lvl);
      return (Range){ min64(p.lo, q.lo), max64(p.hi, q.hi) };
   }
   default:
      return (Range){ 0, 0 };
   }
}

/* Ansor's CoefficientExtractor: an approximate stride of `var` in an index, read off
 * the multiplications and additions met after the variable (post-order). */
typedef struct {
   bool var, mul, add;
   int64_t stride;
} Coef;

static void coefVisit(Analysis *a, int32_t e, int var, Coef *c) {
   const Expr *x = &a->ln->expr[e];
   switch ((ExprKind)x->kind) {
   case EXPR_AXIS:
      if (isLet(a, x->ref)) {
         coefVisit(a, a->ln->vars[x->ref].value, var, c);
      } else if (x->ref == var) {
         c->var = true;
         c->stride = 2;         /* Ansor's default when the approximation fails */
      }
      return;
   case EXPR_MUL: {
      coefVisit(a, x->args[0], var, c);
      coefVisit(a, x->args[1], var, c);
      const Expr *p = &a->ln->expr[x->args[0]], *q = &a->ln->expr[x->args[1]];
      if (c->var && !c->add) {
         if (p->kind == EXPR_INT) {
            c->mul = true;
            c->stride = p->v.i;
         } else if (q->kind == EXPR_INT) {
            c->mul = true;
            c->stride = q->v.i;
         }
      }
      return;
   }
   case EXPR_ADD:
      coefVisit(a, x->args[0], var, c);
      coefVisit(a, x->args[1], var, c);
      if (c->var && !c->mul) {
         c->add = true;
         c->stride = 1;
      }
      return;
   default:
      for (int i = 0; i < x->nargs; i++)
         coefVisit(a, x->args[i], var, c);
      return;
   }
}

/* Ansor's ComputeStride: the smallest stride of var over the access's indices, 0 when
 * no index uses it. */
static int64_t accessStride(Analysis *a, const Access *t, int var) {
   if (var < 0 || !hasVar(&t->vars, var))
      return 0;
   int64_t best = INT64_MAX;
   bool found = false;
   for (int j = 0; j < t->ntuples; j++) {
      int64_t shapeStride = 1;
      for (int d = t->ndim - 1; d >= 0; d--) {
         if (hasVar(&t->dimVars[j][d], var)) {
            Coef c = { false, false, false, 0 };
            coefVisit(a, t->tuple[0][j][d], var, &c);
            int64_t coef = c.var && !c.mul && !c.add ? 1 : c.stride;
            found = true;
            best = min64(best, (coef < 0 ? -coef : coef) * shapeStride);
            break;
         }
         shapeStride *= t->shape[d];
      }
   }
   return found ? best : 0;
}

/* ---- the statement's accesses ---- */

static Access *findAccess(Analysis *a, int buffer) {
   for (int i = 0; i < a->nacc; i++)
      if (a->acc[i].buffer == buffer)
         return &a->acc[i];
   return NULL;
}

static void setTuple(Access *t, int copy, int j, const int32_t *dims, int32_t flat) {
   if (dims)
      memcpy(t->tuple[copy][j], dims, (size_t)t->ndim * sizeof *dims);
   else
      t->tuple[copy][j][0] = flat;
}

static Access *newAccess(Analysis *a, int buffer, int type) {
   if (a->nacc == MAX_ACCESSES)
      return NULL;
   Access *t = &a->acc[a->nacc++];
   const IrBuffer *b = &a->ln->buffers[buffer];
   t->buffer = buffer;
   t->type = type;
   t->ntuples = 0;
   t->vthreadDep = false;
   t->ndim = b->ndim;
   t->shape = b->shape;
   t->flatShape = b->elems;
   t->span = 0;
   t->elems = 1;
   return t;
}

/* An access without per-dimension indices sees the buffer as flat. */
static void makeFlat(Access *t) {
   t->ndim = 1;
   t->shape = &t->flatShape;
}

/* Records the loads of expression e for copy `copy`; *nth counts, per access, the
 * index tuples seen so far in this copy. */
static void collectLoads(Analysis *a, int32_t e, int copy, int *nth) {
   const LoopNest *ln = a->ln;
   const Expr *x = &ln->expr[e];
   if (x->kind == EXPR_LOAD) {
      const int32_t *dims = Ir_loadDims(ln, e);
      Access *t = findAccess(a, x->ref);
      if (copy == 0) {
         if (!t) {
            t = newAccess(a, x->ref, 0);
            if (!t)
               return;
         } else if (t->type == 1) {
            t->type = 2;        /* a store that reads its own buffer: the update */
         }
      }
      if (t && t->type == 0 && nth[t - a->acc] < MAX_TUPLES) {
         int k = (int)(t - a->acc);
         int j = nth[k]++;
         if (!dims)
            makeFlat(t);
         setTuple(t, copy, j, dims, x->args[0]);
         if (copy == 0 && j >= t->ntuples)
            t->ntuples = j + 1;
      }
      return;
   }
   for (int i = 0; i < x->nargs; i++)
      collectLoads(a, x->args[i], copy, nth);
}

static void noteIndexVars(Analysis *a);

static void collectAccesses(Analysis *a, const int32_t *copies) {
   const LoopNest *ln = a->ln;
   a->nacc = 0;
   for (int c = 0; c < a->ncopies; c++) {
      int32_t s = copies[c];
      const IrStmt *st = &ln->stmt[s];
      const int32_t *dims = st->kind == STMT_STORE ? Ir_storeDims(ln, s) : NULL;
      Access *w = c == 0 ? newAccess(a, st->buffer, 1) : &a->acc[0];
      if (!dims)
         makeFlat(w);
      setTuple(w, c, 0, dims, st->index);
      w->ntuples = 1;
      int nth[MAX_ACCESSES] = { 0 };
      nth[0] = 1;
      collectLoads(a, st->value, c, nth);
   }
   noteIndexVars(a);
}

/* The variables of every access's indices, and which accesses the virtual threads'
 * copies index differently. */
static void noteIndexVars(Analysis *a) {
   const LoopNest *ln = a->ln;
   for (int i = 0; i < a->nacc; i++) {
      Access *t = &a->acc[i];
      memset(&t->vars, 0, sizeof t->vars);
      for (int j = 0; j < t->ntuples; j++)
         for (int d = 0; d < t->ndim; d++) {
            VarSet *v = &t->dimVars[j][d];
            memset(v, 0, sizeof *v);
            varsOf(a, t->tuple[0][j][d], v);
            for (int w = 0; w < VAR_WORDS; w++)
               t->vars.w[w] |= v->w[w];
         }
      for (int c = 1; c < a->ncopies && !t->vthreadDep; c++)
         for (int j = 0; j < t->ntuples && !t->vthreadDep; j++)
            for (int d = 0; d < t->ndim; d++)
               if (!sameExpr(ln, t->tuple[0][j][d], t->tuple[c][j][d])) {
                  t->vthreadDep = true;
                  break;
               }
   }
}

/* Whether the loop at level i moves the access. */
static bool moves(const Analysis *a, const Access *t, int i) {
   const Level *l = &a->level[i];
   if (l->kind == LV_VTHREAD)
      return t->vthreadDep;
   return hasVar(&t->vars, l->var);
}

/* Elements the access touches at level lvl; fills region[] per dimension. */
static double touchedAt(Analysis *a, const Access *t, int lvl, int64_t *region) {
   int copies = a->vpos >= lvl ? a->ncopies : 1;
   double n = 1;
   for (int d = 0; d < t->ndim; d++) {
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      for (int c = 0; c < copies; c++)
         for (int j = 0; j < t->ntuples; j++) {
            Range r = rangeOf(a, t->tuple[c][j][d], lvl);
            lo = min64(lo, r.lo);
            hi = max64(hi, r.hi + t->span);
         }
      int64_t ext = hi - lo + 1;
      if (ext < 0)
         ext = 0;
      if (region)
         region[d] = ext;
      n *= (double)ext;
   }
   return n;
}

/* ---- rows ---- */

static int rowFor(Analysis *a, int buffer) {
   if (a->rowOf[buffer] >= 0)
      return a->rowOf[buffer];
   int r = a->psa ? a->psa->nrows : a->features->nrows;
   a->rowOf[buffer] = r;
   if (a->psa) {
      PsaRow *p = &a->psa->rows[a->psa->nrows++];
      memset(p, 0, sizeof *p);
      p->buffer = buffer;
   }
   if (a->features) {
      Features *f = a->features;
      f->buffer[f->nrows] = buffer;
      memset(f->row[f->nrows], 0, sizeof f->row[0]);
      f->nrows++;
      memset(&a->raw[r], 0, sizeof a->raw[r]);
   }
   return r;
}

static void noteScope(Analysis *a, int buffer) {
   int n = a->lcaDepth[buffer];
   if (n < 0) {
      for (int i = 0; i < a->depth; i++) {
         a->lcaId[buffer][i] = a->level[i].id;
         a->lcaExtent[buffer][i] = a->level[i].extent;
      }
      a->lcaDepth[buffer] = a->depth;
      return;
   }
   int k = 0;
   while (k < n && k < a->depth && a->lcaId[buffer][k] == a->level[k].id)
      k++;
   a->lcaDepth[buffer] = k;
}

/* ---- PSA ---- */

/* The product of the extents of the loops in `set` (a bit per level) that move t. */
static double mw(const Analysis *a, const Access *t, uint32_t set) {
   double p = 1;
   for (int i = 0; i < a->depth; i++)
      if (((set >> i) & 1) && moves(a, t, i))
         p *= (double)a->level[i].extent;
   return p;
}

static void psaStatement(Analysis *a, int row, const OpCount *ops, Precision precision) {
   PsaRow *r = &a->psa->rows[row];
   r->precision = precision;
   double *sym = r->sym;
   const Access *w = &a->acc[0];
   double inner = 1;
   uint32_t loops = 0, saxis = 0;
   for (int i = 0; i < a->depth; i++) {
      const Level *l = &a->level[i];
      if (l->kind == LV_BLOCK || l->kind == LV_THREAD)
         continue;              /* by kind: Pruner compares the names "blockIdx.x" and
                                   "threadIdx.x", which are the only ones our kernels bind */
      inner *= (double)l->extent;
      loops |= 1u << i;
      if (moves(a, w, i))
         saxis |= 1u << i;
   }
   double flops = ops->n[OP_FLOAT_ADDSUB] + ops->n[OP_FLOAT_MUL] + ops->n[OP_FLOAT_DIVMOD];
   double G = (double)a->grid, T = (double)a->block;
   sym[PSA_REG_USAGE] = sym[PSA_SHARED_FOOTPRINT] = sym[PSA_DRAM_WORKLOAD] = 0;
   sym[PSA_DATA_REUSE] = 1;
   sym[PSA_FLOAT_WORKLOAD_THREAD] = inner * flops;
   sym[PSA_COMPUTE_WORKLOAD] = sym[PSA_FLOAT_WORKLOAD_THREAD] * G * T;
   BufferScope scope = a->ln->buffers[w->buffer].scope;
   if (flops != 0) {
      for (int k = 0; k < a->nacc; k++) {
         sym[PSA_REG_USAGE] += mw(a, &a->acc[k], saxis);
         sym[PSA_MEM_WORKLOAD] += mw(a, &a->acc[k], loops);
      }
   } else if (scope == SCOPE_SHARED) {
      /* Pruner takes "the first accessed buffer" in hash order, the shared copy or its
       * global source; we take the stored (shared) buffer. Both give the same product:
       * the source's index moves with every loop of the copy. */
      double footprint = mw(a, w, saxis) * T;
      /* Pruner counts one reduction step of the copy (its S axes are the shared
       * buffer's, so k.outer drops out), which makes a tile's DRAM traffic independent
       * of K: a deep-K tile would look as cheap as a shallow one. We multiply by the
       * trip count of the loops around the copy that do not index it. The vthread
       * loop is not one of them: a copy that does not use the virtual thread runs once
       * per thread (TVM hoists it out of the virtual-thread loop). */
      double steps = 1;
      for (int i = 0; i < a->depth; i++) {
         const Level *l = &a->level[i];
         if (((loops >> i) & 1) && !((saxis >> i) & 1) && l->kind != LV_VTHREAD)
            steps *= (double)l->extent;
      }
      sym[PSA_SHARED_FOOTPRINT] += footprint;
      /* bytes, not elements: bandwidth is in bytes per second, and with elements a
       * float32 kernel's memory time comes out 4x too small (Pruner's formula divides
       * elements by GB/s). A copy from registers (a pipeline's prefetched stage) moves
       * no DRAM bytes of its own: the prefetch's row counts them. */
      bool fromGlobal = false;
      for (int k = 1; k < a->nacc; k++)
         fromGlobal |= a->ln->buffers[a->acc[k].buffer].scope == SCOPE_GLOBAL;
      if (fromGlobal)
         sym[PSA_DRAM_WORKLOAD] += footprint * steps * G * BYTES;
   } else {
      sym[PSA_DRAM_WORKLOAD] += inner * G * T * BYTES;
   }
   if (sym[PSA_FLOAT_WORKLOAD_THREAD] != 0 && sym[PSA_MEM_WORKLOAD] != 0)
      sym[PSA_DATA_REUSE] = 1 + sym[PSA_FLOAT_WORKLOAD_THREAD] / sym[PSA_MEM_WORKLOAD];
   sym[PSA_IS_GPU] = 1;
   sym[PSA_GRID] = G;
   sym[PSA_BLOCK] = T;
   sym[PSA_VTHREAD] = (double)a->vthreads;
}

/* The bytes of an element of buffer b: 2 in a 16-bit Tensor-Core tile, else 4. */
static double elemBytes(const Analysis *a, int b) {
   return Ir_elemBytes(&a->ln->buffers[b]);
}

/* ---- features ---- */

static void recordTouches(Analysis *a) {
   for (int k = 0; k < a->nacc; k++) {
      Access *t = &a->acc[k];
      for (int i = a->depth - 1; i >= 0; i--) {
         double n = touchedAt(a, t, i, i == 0 ? t->region0 : NULL);
         t->touched[i] = n;
         Level *l = &a->level[i];
         l->bytes += n * elemBytes(a, t->buffer);
         l->accesses++;
         if (l->count[t->buffer] == 0 || n < l->minTouched[t->buffer])
            l->minTouched[t->buffer] = n;
         l->count[t->buffer]++;
      }
   }
}

typedef struct {
   int type;                     /* 0 loop-multiple-read, 1 serial, 2 none */
   double disIter, disBytes, ct;
} Reuse;

/* Ansor's ComputeReuse over the records of the loops on the stack. */
static Reuse reuseOf(const Analysis *a, const Access *t) {
   double disIter = 1, disBytes = -1;
   for (int i = a->depth - 1; i >= 0; i--) {
      const Level *l = &a->level[i];
      double ext = (double)l->extent;
      if (moves(a, t, i)) {
         disIter *= ext;
         disBytes = l->bytes;
      } else {
         if (disBytes < 0)
            disBytes = (double)l->accesses * BYTES;
         return (Reuse){ 0, disIter, disBytes, ext };
      }
      int serial = l->count[t->buffer] - 1;
      if (serial > 0)
         return (Reuse){ 1, l->minTouched[t->buffer] / ext, l->bytes / ext, serial };
   }
   return (Reuse){ 2, 0, 0, 0 };
}

static void accessFeatures(Analysis *a, Access *t, double outer) {
   int depth = a->depth;
   double e = elemBytes(a, t->buffer);
   double bytes = outer * t->elems * e;
   double uniqueBytes = t->touched[0] * e;
   int64_t stride = 0;
   double reduceRatio = 1;
   int i;
   for (i = depth - 1; i >= 0; i--) {
      stride = accessStride(a, t, a->level[i].var);
      if (stride != 0)
         break;
      /* Ansor multiplies by the innermost loop's extent at every step (not loop i's) */
      reduceRatio *= (double)a->level[depth - 1].extent;
   }
   double lines = outer / reduceRatio * fmin(1.0, (double)stride * e / CACHE_LINE);
   lines = fmax(lines, 1.0);
   if (i != depth - 1)
      stride = 0;
   /* Ansor reads the region left over from its last loop, which belongs to whichever
    * buffer its hash map visited last; we use this access's own region */
   double cont = e;
   for (int d = t->ndim - 1; d >= 0; d--)
      if (t->region0[d] == t->shape[d]) {
         cont *= (double)t->region0[d];
         break;
      }
   double uniqueLines = fmax(uniqueBytes / fmin(cont, CACHE_LINE), 1.0);
   Reuse r = reuseOf(a, t);
   float *f = t->fea;
   memset(f, 0, sizeof t->fea);
   f[FBUF_ACC_READ + t->type] = 1;
   f[FBUF_BYTES] = Features_slog(bytes);
   f[FBUF_UNIQUE_BYTES] = Features_slog(uniqueBytes);
   f[FBUF_LINES] = Features_slog(lines);
   f[FBUF_UNIQUE_LINES] = Features_slog(uniqueLines);
   f[FBUF_REUSE_LOOP + r.type] = 1;
   f[FBUF_REUSE_DIS_ITER] = Features_slog(r.disIter);
   f[FBUF_REUSE_DIS_BYTES] = Features_slog(r.disBytes);
   f[FBUF_REUSE_CT] = Features_slog(r.ct);
   double div = r.ct > 0.5 ? r.ct : 0.5;    /* "x 2 when there is no reuse" */
   f[FBUF_BYTES_D_REUSE] = Features_slog(bytes / div);
   f[FBUF_UNIQUE_BYTES_D_REUSE] = Features_slog(uniqueBytes / div);
   f[FBUF_LINES_D_REUSE] = Features_slog(lines / div);
   f[FBUF_UNIQUE_LINES_D_REUSE] = Features_slog(uniqueLines / div);
   f[FBUF_STRIDE] = Features_slog((double)stride);
   t->lines = lines;
   t->bytes = bytes;
}

static void annotation(const Analysis *a, LevelKind kind, float *out) {
   int num = 0;
   double prod = 1, len = 0;
   for (int i = 0; i < a->depth; i++)
      if (a->level[i].kind == kind) {
         num++;
         prod *= (double)a->level[i].extent;
         len = (double)a->level[i].extent;
      }
   out[0] = Features_slog(num);
   out[1] = Features_slog(num ? prod : 0);
   out[2] = Features_slog(len);
   out[3 + (num ? 7 : 0)] = 1;     /* position: mixed when present, else none */
}

static char locationOf(const IrBuffer *b) {
   return b->scope == SCOPE_GLOBAL ? '0' : b->scope == SCOPE_SHARED ? '1' : '2';
}

static void appendSequence(Analysis *a, const Access *t, double floatOps) {
   if (a->nseq == MAX_SEQUENCE)
      return;
   const IrBuffer *b = &a->ln->buffers[t->buffer];
   SeqEntry *e = &a->seq[a->nseq++];
   memset(e->v, 0, sizeof e->v);
   e->loc = locationOf(b);
   /* Pruner multiplies the statement's operations by the loop extents and then by
    * outer_prod again, squaring the trip count; we count them once */
   e->v[0] = Features_slog(floatOps);
   e->v[1 + (e->loc - '0')] = 1;
   memcpy(&e->v[4], &t->fea[FBUF_ACC_READ], 3 * sizeof(float));
   memcpy(&e->v[7], &t->fea[FBUF_BYTES], 4 * sizeof(float));
   memcpy(&e->v[11], &t->fea[FBUF_REUSE_LOOP], 3 * sizeof(float));
   memcpy(&e->v[14], &t->fea[FBUF_REUSE_DIS_ITER], 8 * sizeof(float));
   e->v[22] = b->scope == SCOPE_GLOBAL ? 0 : Features_slog((double)b->elems * Ir_elemBytes(b));
}

static void featureStatement(Analysis *a, int row, const OpCount *ops) {
   Features *F = a->features;
   float *f = F->row[row];
   RowRaw *raw = &a->raw[row];
   int depth = a->depth;
   double outer = 1;
   for (int i = 0; i < depth; i++)
      outer *= (double)a->level[i].extent;
   for (int k = 0; k < OP_COUNT; k++)
      raw->ops[k] += outer * ops->n[k];
   raw->outerProd = outer;

   /* group 1 beyond the counts */
   memset(&f[FEAT_VEC_NUM], 0, (FEAT_IS_GPU - FEAT_VEC_NUM) * sizeof(float));
   annotation(a, LV_VECTOR, &f[FEAT_VEC_NUM]);
   annotation(a, LV_UNROLL, &f[FEAT_UNROLL_NUM]);
   f[FEAT_PARALLEL_NUM + 3] = 1;                  /* no parallel loops: position none */
   f[FEAT_IS_GPU] = 1;
   f[FEAT_BLOCK_X] = Features_slog((double)a->grid);
   f[FEAT_BLOCK_X + 1] = f[FEAT_BLOCK_X + 2] = Features_slog(1);
   f[FEAT_THREAD_X] = Features_slog((double)a->block);
   f[FEAT_THREAD_X + 1] = f[FEAT_THREAD_X + 2] = Features_slog(1);
   bool underVthread = a->vpos >= 0;
   f[FEAT_VTHREAD] = Features_slog(underVthread ? (double)a->vthreads : 1);

   /* group 2 */
   recordTouches(a);
   for (int k = 0; k < a->nacc; k++)
      accessFeatures(a, &a->acc[k], outer);
   int order[MAX_ACCESSES];
   for (int k = 0; k < a->nacc; k++) {
      int j = k;
      /* stable insertion: (lines, bytes) descending */
      while (j > 0) {
         const Access *p = &a->acc[order[j - 1]], *q = &a->acc[k];
         if (q->lines > p->lines || (q->lines == p->lines && q->bytes > p->bytes)) {
            order[j] = order[j - 1];
            j--;
         } else {
            break;
         }
      }
      order[j] = k;
   }
   memset(&f[FEAT_GROUP2], 0, FEATURE_MAX_BUFS * FEATURE_BUF_LEN * sizeof(float));
   for (int k = 0; k < a->nacc && k < FEATURE_MAX_BUFS; k++)
      memcpy(&f[FEAT_GROUP2 + FEATURE_BUF_LEN * k], a->acc[order[k]].fea, sizeof a->acc[0].fea);

   /* group 3: from the innermost loop out */
   double flops = 0;
   for (int k = OP_FLOAT_MAD; k <= OP_FLOAT_OTHER; k++)
      flops += ops->n[k];
   float *ai = &f[FEAT_GROUP3];
   memset(ai, 0, 10 * sizeof(float));
   if (flops > 0 && depth > 0) {
      double comp[MAX_DEPTH], mem[MAX_DEPTH];
      double cur = flops;
      for (int k = 0; k < depth; k++) {
         int i = depth - 1 - k;
         double m = 0;
         for (int j = 0; j < a->nacc; j++)
            m += a->acc[j].touched[i] * elemBytes(a, a->acc[j].buffer);
         cur *= (double)a->level[i].extent;
         comp[k] = cur;
         mem[k] = m;
      }
      int pt = 0;
      for (int s = 0; s < 10; s++) {
         double target = comp[depth - 1] * (s + 1) / 10;
         while (comp[pt] < target - 1e-4)
            pt++;
         double v;
         if (pt == 0) {
            v = comp[0] / mem[0];
         } else {
            double base = comp[pt - 1] / mem[pt - 1];
            double slope = (comp[pt] / mem[pt] - base) / (comp[pt] - comp[pt - 1]);
            v = base + slope * (target - comp[pt - 1]);
         }
         ai[s] = Features_slog(v);
      }
   }

   /* group 5 */
   f[FEAT_GROUP5] = Features_slog(outer);
   f[FEAT_GROUP5 + 1] = Features_slog(depth);
   f[FEAT_GROUP5 + 2] = Features_slog(a->unroll);

   /* the pattern sequence: loads of other buffers, then the stored one */
   for (int k = 1; k < a->nacc; k++)
      appendSequence(a, &a->acc[k], flops * outer);
   appendSequence(a, &a->acc[0], flops * outer);
}

/* ---- the walk ---- */

/* The row of the stored buffer takes the statement whose accesses a->acc holds. */
static void account(Analysis *a, int buffer, const OpCount *ops, Precision precision) {
   int row = rowFor(a, buffer);
   if (a->psa)
      psaStatement(a, row, ops, precision);
   if (a->features) {
      for (int k = 0; k < a->nacc; k++)
         noteScope(a, a->acc[k].buffer);
      featureStatement(a, row, ops);
   }
}

static void statement(Analysis *a, const int32_t *copies, int ncopies) {
   const LoopNest *ln = a->ln;
   const IrStmt *st = &ln->stmt[copies[0]];
   a->ncopies = ncopies > MAX_COPIES ? MAX_COPIES : ncopies;
   collectAccesses(a, copies);
   OpCount ops;
   memset(&ops, 0, sizeof ops);
   countOps(a, st->value, &ops);
   if (st->kind == STMT_ALLREDUCE)
      ops.n[st->reduce == REDUCE_MAX ? OP_FLOAT_CMP : OP_FLOAT_ADDSUB]++;   /* the combine */
   account(a, st->buffer, &ops, PRECISION_FP32);
}

static void flatAccess(Access *t, int32_t index, int64_t span, double elems) {
   makeFlat(t);
   setTuple(t, 0, 0, NULL, index);
   t->ntuples = 1;
   t->span = span;
   t->elems = elems;
}

/* A warp's mma.sync as the store it amounts to, acc += A x B^T over its fragment: it
 * updates the thread's 4 accumulators from the fragment's 16 x D elements of A and
 * 8 x D of B (D the precision's depth), a 32nd of each per thread, and does 16 x 8 x D
 * multiply-adds per warp, which count per thread as the float additions and
 * multiplications of a plain FP32 reduction's fused multiply-adds (the operands'
 * indices count as a load's do). */
static void mmaStatement(Analysis *a, const IrStmt *st) {
   Precision p = (Precision)st->precision;
   int depth = Precision_mmaDepth(p);
   static const int rows[2] = { SKETCH_MMA_M, SKETCH_MMA_N };
   int perThread = SKETCH_MMA_M * SKETCH_MMA_N / SKETCH_WARP_SIZE;   /* accumulators */
   a->ncopies = 1;
   a->nacc = 0;
   flatAccess(newAccess(a, st->buffer, 2), st->index, perThread - 1, perThread);
   OpCount ops;
   memset(&ops, 0, sizeof ops);
   for (int i = 0; i < 2; i++) {
      flatAccess(newAccess(a, st->operand[i], 0), st->operandIndex[i], (rows[i] - 1) * (int64_t)st->ld[i] + depth - 1,
                 (double)rows[i] * depth / SKETCH_WARP_SIZE);
      if (a->wantFeatures)
         countOps(a, st->operandIndex[i], &ops);
   }
   noteIndexVars(a);
   ops.n[OP_FLOAT_ADDSUB] += perThread * depth;
   ops.n[OP_FLOAT_MUL] += perThread * depth;
   account(a, st->buffer, &ops, p);
}

static void push(Analysis *a, LevelKind kind, int var, int64_t extent, int32_t id) {
   if (a->depth == MAX_DEPTH)
      fatal("analysis: loops nested deeper than %d", MAX_DEPTH);
   Level *l = &a->level[a->depth];
   l->kind = kind;
   l->var = var;
   l->extent = extent;
   l->id = id;
   if (a->wantFeatures) {
      l->bytes = 0;
      l->accesses = 0;
      memset(l->count, 0, sizeof l->count);
   }
   if (var >= 0)
      a->posOf[var] = a->depth;
   if (kind == LV_VTHREAD)
      a->vpos = a->depth;
   a->depth++;
}

static void pop(Analysis *a) {
   Level *l = &a->level[--a->depth];
   if (l->var >= 0)
      a->posOf[l->var] = -1;
   if (l->kind == LV_VTHREAD)
      a->vpos = -1;
}

static void walk(Analysis *a, int32_t s) {
   const LoopNest *ln = a->ln;
   const IrStmt *st = &ln->stmt[s];
   switch ((StmtKind)st->kind) {
   case STMT_SEQ: {
      const int32_t *items = &ln->list[st->first];
      bool copies = st->vthread;
      for (int i = 0; i < st->count && copies; i++)
         copies = ln->stmt[items[i]].kind == STMT_STORE;
      if (copies) {
         statement(a, items, st->count);
         return;
      }
      for (int i = 0; i < st->count; i++)
         walk(a, items[i]);
      return;
   }
   case STMT_FOR: {
      LevelKind k = st->loop == LOOP_UNROLL ? LV_UNROLL : st->loop == LOOP_VECTOR ? LV_VECTOR : LV_SERIAL;
      push(a, k, st->var, st->extent, s);
      walk(a, st->body);
      pop(a);
      return;
   }
   case STMT_IF:
      /* both sides taken, as in Ansor (the guard's condition stores nothing) */
      walk(a, st->body);
      return;
   case STMT_STORE:
   case STMT_ALLREDUCE:
      statement(a, &s, 1);
      return;
   case STMT_MMA:
      mmaStatement(a, st);
      return;
   case STMT_LET:
   case STMT_BARRIER:
      return;
   }
}

static void finishFeatures(Analysis *a) {
   Features *F = a->features;
   const LoopNest *ln = a->ln;
   for (int r = 0; r < F->nrows; r++) {
      float *f = F->row[r];
      const RowRaw *raw = &a->raw[r];
      for (int k = 0; k < OP_COUNT; k++)
         f[k] = Features_slog(raw->ops[k]);
      int b = F->buffer[r];
      const IrBuffer *buf = &ln->buffers[b];
      bool allocated = buf->scope != SCOPE_GLOBAL || (!buf->input && !buf->output);
      if (allocated && a->lcaDepth[b] >= 0) {
         double outer = 1;
         for (int i = 0; i < a->lcaDepth[b]; i++)
            outer *= (double)a->lcaExtent[b][i];
         double elems = (double)buf->elems;
         f[FEAT_GROUP4] = Features_slog(elems * Ir_elemBytes(buf));
         f[FEAT_GROUP4 + 1] = Features_slog(elems * outer);
         f[FEAT_GROUP4 + 2] = Features_slog(outer);
         f[FEAT_GROUP4 + 3] = Features_slog(raw->outerProd / outer);
      }
   }
   /* the pattern: leftmost match of the location codes */
   char codes[MAX_SEQUENCE + 1];
   for (int i = 0; i < a->nseq; i++)
      codes[i] = a->seq[i].loc;
   codes[a->nseq] = '\0';
   const char *hit = strstr(codes, PATTERN_NEEDLE);
   F->sequenceLength = a->nseq;
   F->patternAt = hit ? (int)(hit - codes) : -1;
   memset(F->pattern, 0, sizeof F->pattern);
   if (hit)
      for (int i = 0; i < PATTERN_LEN; i++)
         memcpy(F->pattern[i], a->seq[F->patternAt + i].v, sizeof F->pattern[i]);
}

void Analysis_run(Analysis *a, const LoopNest *ln, PsaSymbols *psa, Features *features) {
   a->ln = ln;
   a->psa = psa;
   a->features = features;
   a->wantFeatures = features != NULL;
   if (++a->stamp == 0) {
      /* after 2^32 runs every memo looks fresh again: clear them once */
      memset(a->setStamp, 0, sizeof a->setStamp);
      memset(a->opsStamp, 0, sizeof a->opsStamp);
      memset(a->rangeStamp, 0, sizeof a->rangeStamp);
      a->stamp = 1;
   }
   if (psa)
      psa->nrows = 0;
   if (features) {
      features->nrows = 0;
      a->nseq = 0;
   }
   for (int b = 0; b < IR_MAX_BUFFERS; b++) {
      a->rowOf[b] = -1;
      a->lcaDepth[b] = -1;
   }
   for (int v = 0; v < IR_MAX_VARS; v++)
      a->posOf[v] = -1;
   a->depth = 0;
   a->vpos = -1;
   for (int k = 0; k < ln->nkernels; k++) {
      const IrKernel *kn = &ln->kernels[k];
      a->grid = kn->grid;
      a->block = kn->block;
      a->vthreads = kn->vthreads > 0 ? kn->vthreads : 1;
      a->unroll = kn->unrollStep;
      push(a, LV_BLOCK, kn->blockVar, kn->grid, -(3 * k + 1));
      if (a->vthreads > 1)
         push(a, LV_VTHREAD, -1, a->vthreads, -(3 * k + 2));
      push(a, LV_THREAD, kn->threadVar, kn->block, -(3 * k + 3));
      walk(a, kn->body);
      while (a->depth > 0)
         pop(a);
   }
   if (features)
      finishFeatures(a);
}
