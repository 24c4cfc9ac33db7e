/* Lowering states to loop nests. Every kernel kind is built from one translation of te
 * expressions into loop-nest expressions: loads of inlined stages are substituted, and
 * every other load asks a resolver of the context (the MLT compute reads shared
 * copies, the MLT store reads the register accumulator, a cross-thread consumer reads
 * its attached reductions) before falling back to the stage's global buffer. */
#include "config.h"

#include "ir/lower.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/xalloc.h"

typedef struct Lower_ Lower;

/* Returns the loop-nest expression for a load of `stage` at te load node `load`, whose
 * indices are already translated into idx, or -1 to use the default. */
typedef int32_t (*ResolveFn)(Lower *L, int stage, int32_t load, const int32_t *idx);

struct Lower_ {
   LoopNest *ln;
   const SketchSet *set;
   const Dag *g;
   const Sketch *sk;
   const State *st;
   int global[TE_MAX_STAGES];
   int kernel;
   ResolveFn resolve;
   /* MLT */
   int anchor;
   int cacheBuf[TE_MAX_STAGES];          /* shared copy of a stage, or -1 */
   int64_t cacheDims[TE_MAX_STAGES][TE_MAX_DIMS];
   int32_t offset[TE_MAX_AXES];          /* anchor axis offsets inside the block's region */
   int32_t start[TE_MAX_AXES];           /* the region's start (block, reduce step) */
   int32_t full[TE_MAX_AXES];            /* the current coordinate of each anchor axis */
   int64_t step[TE_MAX_AXES];            /* each anchor axis' region start is a multiple of this */
   int accBuf;
   int32_t accIndex;
   /* CTR consumer */
   int attachedBuf[TE_MAX_STAGES];
   int32_t attachedIndex[TE_MAX_STAGES];
};

static int32_t var(Lower *L, int v) {
   return Ir_varRef(L->ln, v);
}

static int32_t num(Lower *L, int64_t v) {
   return Ir_int(L->ln, v);
}

static int32_t add(Lower *L, int32_t a, int32_t b) {
   return Ir_binary(L->ln, EXPR_ADD, a, b);
}

static int32_t mul(Lower *L, int32_t a, int32_t b) {
   return Ir_binary(L->ln, EXPR_MUL, a, b);
}

/* (a * m + b) with constant m */
static int32_t mad(Lower *L, int32_t a, int64_t m, int32_t b) {
   return add(L, mul(L, a, num(L, m)), b);
}

static int32_t flatten(Lower *L, int n, const int32_t *idx, const int64_t *shape) {
   int32_t f = num(L, 0);
   for (int i = 0; i < n; i++)
      f = mad(L, f, shape[i], idx[i]);
   return f;
}

/* Coordinate i of a row-major index over `extents`. */
static int32_t coordinate(Lower *L, int32_t fused, const int64_t *extents, int n, int i) {
   if (extents[i] == 1)
      return num(L, 0);
   int64_t inner = 1;
   for (int k = i + 1; k < n; k++)
      inner *= extents[k];
   int32_t q = Ir_binary(L->ln, EXPR_FLOORDIV, fused, num(L, inner));
   /* the outermost coordinate needs no modulo: fused never reaches the product */
   bool outermost = true;
   for (int k = 0; k < i; k++)
      outermost &= extents[k] == 1;
   return outermost ? q : Ir_binary(L->ln, EXPR_FLOORMOD, q, num(L, extents[i]));
}

/* Binds `value` to a new LET variable when it is not already a leaf. */
static int32_t bind(Lower *L, int32_t *items, int *n, const char *name, int32_t value) {
   ExprKind k = (ExprKind)Ir_expr(L->ln, value)->kind;
   if (k == EXPR_INT || k == EXPR_AXIS)
      return value;
   int v = Ir_var(L->ln, VAR_LET, name, 0);
   items[(*n)++] = Ir_let(L->ln, v, value);
   return var(L, v);
}

static int32_t translate(Lower *L, int32_t e, const int32_t *axis);
static int32_t varOrZero(Lower *L, int v);

static int32_t loadStage(Lower *L, int stage, int32_t load, const int32_t *idx) {
   if (L->resolve) {
      int32_t r = L->resolve(L, stage, load, idx);
      if (r >= 0)
         return r;
   }
   if (L->sk->plan[stage] == STAGE_PLAN_INLINE)
      return translate(L, L->g->stages[stage].body, idx);
   int b = L->global[stage];
   if (b < 0)
      fatal("lowering: stage %s has no buffer in this context", L->g->stages[stage].name);
   const Stage *st = &L->g->stages[stage];
   return Ir_loadAt(L->ln, b, flatten(L, st->ndim, idx, st->shape), idx);
}

static int32_t translate(Lower *L, int32_t e, const int32_t *axis) {
   const Expr *x = Dag_expr(L->g, e);
   switch ((ExprKind)x->kind) {
   case EXPR_INT:
      return num(L, x->v.i);
   case EXPR_FLOAT:
      return Ir_float(L->ln, x->v.f);
   case EXPR_AXIS:
      return axis[x->ref];
   case EXPR_LOAD: {
      int32_t idx[TE_MAX_DIMS];
      for (int i = 0; i < x->nargs; i++)
         idx[i] = translate(L, x->args[i], axis);
      return loadStage(L, x->ref, e, idx);
   }
   case EXPR_SELECT:
      return Ir_select(L->ln, translate(L, x->args[0], axis), translate(L, x->args[1], axis),
                       translate(L, x->args[2], axis));
   case EXPR_CAST:
   case EXPR_EXP:
   case EXPR_ERF:
   case EXPR_SQRT:
   case EXPR_RSQRT:
   case EXPR_TANH:
   case EXPR_SIGMOID:
      return Ir_unary(L->ln, (ExprKind)x->kind, translate(L, x->args[0], axis));
   default:
      return Ir_binary(L->ln, (ExprKind)x->kind, translate(L, x->args[0], axis),
                       translate(L, x->args[1], axis));
   }
}

static int32_t combine(Lower *L, ReduceKind r, int32_t acc, int32_t v) {
   return Ir_binary(L->ln, r == REDUCE_MAX ? EXPR_MAX : EXPR_ADD, acc, v);
}

static int32_t initValue(Lower *L, ReduceKind r) {
   return Ir_float(L->ln, r == REDUCE_MAX ? -INFINITY : 0.0);
}

static int32_t knob(Lower *L, int k) {
   return L->st->knob[k];
}

static int unrollStep(Lower *L, int stage) {
   for (int i = 0; i < L->sk->nunrolls; i++)
      if (L->sk->unrolls[i].stage == stage && L->sk->unrolls[i].kernel == L->kernel)
         return knob(L, L->sk->unrolls[i].knob);
   return 0;
}

/* "a_b" into buf; names are built for every variable of every state lowered, so this
 * avoids printf's machinery. */
static void join(char *buf, size_t size, const char *a, const char *b) {
   /* room for a, '_', b and the terminator; size is always well above 2 */
   size_t la = strnlen(a, size - 2);
   size_t lb = strnlen(b, size - 2 - la);
   memcpy(buf, a, la);
   buf[la] = '_';
   memcpy(buf + la + 1, b, lb);
   buf[la + 1 + lb] = '\0';
}

static void localName(char *buf, size_t size, const char *stage, const char *suffix) {
   join(buf, size, stage, suffix);
}

/* A nest of loops around `body`: loops[0] outermost. A loop is unrolled when it and
 * everything inside it run at most `step` iterations (Ansor's auto_unroll_max_step). */
static int32_t wrap(Lower *L, const int *loops, int n, int32_t body, int64_t innerWork, int step) {
   int64_t work = innerWork;
   for (int i = n - 1; i >= 0; i--) {
      work *= L->ln->vars[loops[i]].extent;
      LoopKind k = step > 0 && work <= step ? LOOP_UNROLL : LOOP_SERIAL;
      body = Ir_for(L->ln, loops[i], k, body);
   }
   return body;
}

/* ---- tiled kernels ---- */

typedef struct {
   int n, nr;                 /* spatial and reduce axes of the anchor */
   int64_t outer[TE_MAX_AXES], vth[TE_MAX_DIMS], thr[TE_MAX_DIMS], in3[TE_MAX_DIMS], in4[TE_MAX_DIMS];
   int64_t mid[TE_MAX_REDUCE], inr[TE_MAX_REDUCE];
} Tiles;

static void readTiles(Lower *L, const KernelPlan *k, Tiles *t) {
   const Stage *a = &L->g->stages[k->anchor];
   t->n = a->ndim;
   t->nr = a->nreduce;
   for (int i = 0; i < k->ntiles; i++) {
      const SplitSlot *sl = &L->sk->splits[k->firstTile + i];
      const int32_t *kv = &L->st->knob[sl->knob];
      if (!sl->reduce) {
         int ax = sl->axis;
         t->vth[ax] = kv[0], t->thr[ax] = kv[1], t->in3[ax] = kv[2], t->in4[ax] = kv[3];
         t->outer[ax] = sl->extent / (kv[0] * kv[1] * kv[2] * kv[3]);
      } else {
         int r = sl->axis - a->ndim;
         t->mid[r] = kv[0], t->inr[r] = kv[1];
         t->outer[sl->axis] = sl->extent / (kv[0] * kv[1]);
      }
   }
}

/* Virtual thread vf's copy of per-axis offsets: the copy of virtual thread 0 plus a
 * constant per axis (vf is row-major over the vthread extents). Building each copy
 * from the first keeps lowering cheap: a state has up to 8 copies of every statement
 * of its tile. */
static void vthreadCopy(Lower *L, const Tiles *t, int64_t vf, const int32_t *base, int32_t *off) {
   int64_t rest = vf;
   for (int i = t->n - 1; i >= 0; i--) {
      int64_t v = rest % t->vth[i];
      rest /= t->vth[i];
      int64_t c = v * t->thr[i] * t->in3[i] * t->in4[i];
      off[i] = c ? add(L, base[i], num(L, c)) : base[i];
   }
}

/* The offset of a thread's tile point along each axis for virtual thread 0, and the
 * register tile index of that point. */
static int32_t tileOffsets(Lower *L, const Tiles *t, int64_t p4, const int32_t *tco, const int *l3,
                           const int *l4, int32_t *base) {
   int32_t x3flat = num(L, 0), x4flat = num(L, 0);
   for (int i = 0; i < t->n; i++) {
      base[i] = mad(L, mad(L, tco[i], t->in3[i], varOrZero(L, l3[i])), t->in4[i], varOrZero(L, l4[i]));
      x3flat = mad(L, x3flat, t->in3[i], varOrZero(L, l3[i]));
      x4flat = mad(L, x4flat, t->in4[i], varOrZero(L, l4[i]));
   }
   return mad(L, x3flat, p4, x4flat);
}

static bool isAffine(const Dag *g, int32_t e) {
   const Expr *x = Dag_expr(g, e);
   switch ((ExprKind)x->kind) {
   case EXPR_INT:
   case EXPR_AXIS:
      return true;
   case EXPR_ADD:
   case EXPR_SUB:
      return isAffine(g, x->args[0]) && isAffine(g, x->args[1]);
   case EXPR_MUL:
      return (Dag_expr(g, x->args[0])->kind == EXPR_INT || Dag_expr(g, x->args[1])->kind == EXPR_INT) &&
             isAffine(g, x->args[0]) && isAffine(g, x->args[1]);
   default:
      return false;
   }
}

static int32_t resolveCompute(Lower *L, int stage, int32_t load, const int32_t *idx) {
   (void)idx;
   int b = L->cacheBuf[stage];
   if (b < 0)
      return -1;
   const Expr *x = Dag_expr(L->g, load);
   int32_t local[TE_MAX_DIMS];
   ResolveFn saved = L->resolve;
   L->resolve = NULL;
   for (int d = 0; d < x->nargs; d++) {
      if (isAffine(L->g, x->args[d])) {
         /* offset form: the index over axis offsets, less its constant term */
         int32_t zeros[TE_MAX_AXES];
         for (int a = 0; a < TE_MAX_AXES; a++)
            zeros[a] = num(L, 0);
         int32_t c = translate(L, x->args[d], zeros);
         local[d] = Ir_binary(L->ln, EXPR_SUB, translate(L, x->args[d], L->offset), c);
      } else {
         local[d] = Ir_binary(L->ln, EXPR_SUB, translate(L, x->args[d], L->full),
                              translate(L, x->args[d], L->start));
      }
   }
   L->resolve = saved;
   return Ir_loadAt(L->ln, b, flatten(L, x->nargs, local, L->cacheDims[stage]), local);
}

static int32_t resolveStore(Lower *L, int stage, int32_t load, const int32_t *idx) {
   (void)load;
   (void)idx;
   if (stage != L->anchor)
      return -1;
   return Ir_load(L->ln, L->accBuf, L->accIndex);
}

/* The value a tiled kernel stores at root coordinates `out`: the accumulator at
 * L->accIndex, through the root's fused elementwise chain when the root is not the
 * anchor itself. */
static int32_t storedValue(Lower *L, const KernelPlan *k, const int32_t *out) {
   L->anchor = k->anchor;
   if (k->root == k->anchor)
      return Ir_load(L->ln, L->accBuf, L->accIndex);
   L->resolve = resolveStore;
   int32_t value = translate(L, L->g->stages[k->root].body, out);
   L->resolve = NULL;
   return value;
}

/* The constant factor of a multiplication x (NULL where neither is one); *other gets
 * the other factor. */
static const Expr *mulConstant(const Dag *g, const Expr *x, int32_t *other) {
   for (int i = 0; i < 2; i++) {
      const Expr *c = Dag_expr(g, x->args[i]);
      *other = x->args[1 - i];
      if (c->kind == EXPR_INT)
         return c;
   }
   return NULL;
}

/* Whether an affine index always lands on a multiple of `vec` at a region start, where
 * each axis a starts at a multiple of step[a]. */
static bool alignedStart(const Dag *g, int32_t e, const int64_t *step, int64_t vec) {
   const Expr *x = Dag_expr(g, e);
   switch ((ExprKind)x->kind) {
   case EXPR_INT:
      return x->v.i % vec == 0;
   case EXPR_AXIS:
      return step[x->ref] % vec == 0;
   case EXPR_ADD:
   case EXPR_SUB:
      return alignedStart(g, x->args[0], step, vec) && alignedStart(g, x->args[1], step, vec);
   case EXPR_MUL: {
      int32_t other;
      const Expr *c = mulConstant(g, x, &other);
      if (!c)
         return false;
      int64_t scaled[TE_MAX_AXES];
      for (int i = 0; i < TE_MAX_AXES; i++)
         scaled[i] = step[i] * c->v.i;
      return alignedStart(g, other, scaled, vec);
   }
   default:
      return false;
   }
}

/* The first load of `stage` in the expression tree e, or -1. */
static int32_t findLoad(const Dag *g, int32_t e, int stage) {
   const Expr *x = Dag_expr(g, e);
   if (x->kind == EXPR_LOAD && x->ref == stage)
      return e;
   for (int i = 0; i < x->nargs; i++) {
      int32_t r = findLoad(g, x->args[i], stage);
      if (r >= 0)
         return r;
   }
   return -1;
}

/* Fills the shared copy of cache c for the block's region at this reduce step: the
 * block's threads take consecutive elements (vec at a time), round after round. */
static int32_t fetch(Lower *L, const KernelPlan *k, int c, int64_t threads, int32_t tid,
                     const int32_t *start) {
   const Dag *g = L->g;
   int cs = k->cache[c];
   const Stage *cst = &g->stages[cs];
   int b = L->cacheBuf[cs];
   const int64_t *dims = L->cacheDims[cs];
   int64_t total = L->ln->buffers[b].elems;
   int64_t vec = knob(L, L->sk->splits[k->cacheSplit[c]].knob);
   int64_t perRound = threads * vec;
   int64_t rounds = (total + perRound - 1) / perRound;
   const Expr *load = Dag_expr(g, findLoad(g, g->stages[k->anchor].body, cs));
   char name[IR_NAME_MAX];

   /* the region's first element: the anchor's load indices at the region start */
   int32_t base[TE_MAX_DIMS];
   ResolveFn saved = L->resolve;
   L->resolve = NULL;
   for (int d = 0; d < cst->ndim; d++)
      base[d] = translate(L, load->args[d], start);

   int32_t stmts[4];
   int ns = 0;
   join(name, sizeof name, cst->name, "round");
   int vr = rounds > 1 ? Ir_var(L->ln, VAR_LOOP, name, rounds) : -1;
   int vl = vec > 1 ? Ir_var(L->ln, VAR_LOOP, "lane", vec) : -1;
   int32_t slot = vr >= 0 ? mad(L, var(L, vr), threads, tid) : tid;
   int32_t flat = vl >= 0 ? mad(L, slot, vec, var(L, vl)) : slot;
   join(name, sizeof name, cst->name, "i");
   flat = bind(L, stmts, &ns, name, flat);

   int32_t sidx[TE_MAX_DIMS], gidx[TE_MAX_DIMS];
   for (int d = 0; d < cst->ndim; d++) {
      sidx[d] = coordinate(L, flat, dims, cst->ndim, d);
      gidx[d] = add(L, base[d], sidx[d]);
   }
   /* the last round may run past the copy; a worst-case region (floor division in the
    * index) may reach past the tensor, whose missing rows are never read */
   int32_t guard = total % perRound ? Ir_binary(L->ln, EXPR_LT, flat, num(L, total)) : -1;
   for (int d = 0; d < cst->ndim; d++)
      if (!isAffine(g, load->args[d])) {
         int32_t inside = Ir_binary(L->ln, EXPR_LT, gidx[d], num(L, cst->shape[d]));
         guard = guard < 0 ? inside : Ir_binary(L->ln, EXPR_AND, guard, inside);
      }
   int32_t value = L->sk->plan[cs] == STAGE_PLAN_INLINE
                      ? translate(L, cst->body, gidx)
                      : Ir_loadAt(L->ln, L->global[cs], flatten(L, cst->ndim, gidx, cst->shape), gidx);
   L->resolve = saved;
   int32_t store = Ir_storeAt(L->ln, b, flat, sidx, value);
   stmts[ns++] = guard >= 0 ? Ir_if(L->ln, guard, store) : store;
   int32_t body = Ir_seq(L->ln, stmts, ns);
   if (vl >= 0) {
      /* one vector access when the lanes are consecutive, aligned floats of a tensor
       * row: a global tensor (not a padding select), a width that divides the copy's
       * and the tensor's rows, and a region start that is a multiple of the width */
      int last = cst->ndim - 1;
      bool vector = L->sk->plan[cs] != STAGE_PLAN_INLINE && dims[last] % vec == 0 &&
                    cst->shape[last] % vec == 0 && isAffine(g, load->args[last]) &&
                    alignedStart(g, load->args[last], L->step, vec);
      body = Ir_for(L->ln, vl, vector ? LOOP_VECTOR : LOOP_UNROLL, body);
   }
   if (vr >= 0)
      body = Ir_for(L->ln, vr, LOOP_SERIAL, body);
   return body;
}

static IrKernel *newKernel(Lower *L, int root, int64_t grid, int64_t block) {
   char name[IR_NAME_MAX];
   join(name, sizeof name, L->g->stages[root].name, "kernel");
   return Ir_kernel(L->ln, name, root, grid, block);
}

static int loopVar(Lower *L, const char *axis, const char *level, int64_t extent) {
   char name[24];
   join(name, sizeof name, axis, level);
   return extent > 1 ? Ir_var(L->ln, VAR_LOOP, name, extent) : -1;
}

static int32_t varOrZero(Lower *L, int v) {
   return v >= 0 ? var(L, v) : num(L, 0);
}

static void lowerMlt(Lower *L, int ki) {
   const KernelPlan *k = &L->sk->kernels[ki];
   const Dag *g = L->g;
   const Stage *a = &g->stages[k->anchor];
   const Stage *root = &g->stages[k->root];
   Tiles t;
   memset(&t, 0, sizeof t);
   readTiles(L, k, &t);
   int n = t.n, nr = t.nr;
   int64_t blocks = 1, threads = 1, vthreads = 1, p3 = 1, p4 = 1;
   for (int i = 0; i < n; i++) {
      blocks *= t.outer[i];
      threads *= t.thr[i];
      vthreads *= t.vth[i];
      p3 *= t.in3[i];
      p4 *= t.in4[i];
   }
   IrKernel *kn = newKernel(L, k->root, blocks, threads);
   int kv = (int)(kn - L->ln->kernels);
   int32_t items[4 * TE_MAX_AXES + 8];
   int ni = 0;
   char name[IR_NAME_MAX];

   int32_t bco[TE_MAX_DIMS], tco[TE_MAX_DIMS];
   for (int i = 0; i < n; i++) {
      join(name, sizeof name, a->axis[i], "block");
      bco[i] = bind(L, items, &ni, name, coordinate(L, var(L, kn->blockVar), t.outer, n, i));
   }
   for (int i = 0; i < n; i++) {
      join(name, sizeof name, a->axis[i], "thread");
      tco[i] = bind(L, items, &ni, name, coordinate(L, var(L, kn->threadVar), t.thr, n, i));
   }

   int64_t accSize = vthreads * p3 * p4;
   localName(name, sizeof name, a->name, "local");
   L->accBuf = Ir_buffer(L->ln, name, SCOPE_LOCAL, k->anchor, kv, 1, &accSize);
   for (int c = 0; c < k->ncache; c++) {
      int cs = k->cache[c];
      int64_t dims[TE_MAX_DIMS];
      State_cacheShape(L->set, L->st, ki, c, dims);
      localName(name, sizeof name, g->stages[cs].name, "shared");
      L->cacheBuf[cs] = Ir_buffer(L->ln, name, SCOPE_SHARED, cs, kv, g->stages[cs].ndim, dims);
      memcpy(L->cacheDims[cs], dims, sizeof dims);
   }
   ReduceKind red = a->reduce;
   int unroll = unrollStep(L, k->anchor);
   kn->vthreads = vthreads;
   kn->unrollStep = unroll;
   int32_t copies[64];
   int loops[4 * TE_MAX_AXES], nl;
   if (nr > 0) {
      /* each virtual thread's register tile starts at the reduction's identity */
      int i3[TE_MAX_DIMS] = { 0 }, i4[TE_MAX_DIMS] = { 0 };
      for (int i = 0; i < n; i++) {
         i3[i] = loopVar(L, a->axis[i], "inner", t.in3[i]);
         i4[i] = loopVar(L, a->axis[i], "innermost", t.in4[i]);
      }
      int32_t base[TE_MAX_DIMS];
      int32_t acc0 = tileOffsets(L, &t, p4, tco, i3, i4, base);
      for (int64_t vf = 0; vf < vthreads; vf++)
         copies[vf] = Ir_store(L->ln, L->accBuf, vf ? add(L, acc0, num(L, vf * p3 * p4)) : acc0,
                               initValue(L, red));
      nl = 0;
      for (int i = 0; i < n; i++)
         if (i3[i] >= 0)
            loops[nl++] = i3[i];
      for (int i = 0; i < n; i++)
         if (i4[i] >= 0)
            loops[nl++] = i4[i];
      items[ni++] = wrap(L, loops, nl, Ir_vthreadSeq(L->ln, copies, (int)vthreads), vthreads, unroll);
   }

   /* the region of this block and reduce step */
   int ko[TE_MAX_REDUCE], km[TE_MAX_REDUCE], kin[TE_MAX_REDUCE];
   int x3[TE_MAX_DIMS] = { 0 }, x4[TE_MAX_DIMS] = { 0 };
   for (int i = 0; i < n; i++) {
      int64_t tile = t.vth[i] * t.thr[i] * t.in3[i] * t.in4[i];
      /* with one block along the axis its region always starts at 0 */
      L->step[i] = t.outer[i] > 1 ? tile : 0;
      L->start[i] = mul(L, bco[i], num(L, tile));
   }
   for (int j = 0; j < nr; j++) {
      const char *ax = a->axis[n + j];
      ko[j] = loopVar(L, ax, "outer", t.outer[n + j]);
      km[j] = loopVar(L, ax, "mid", t.mid[j]);
      kin[j] = loopVar(L, ax, "inner", t.inr[j]);
      L->step[n + j] = t.outer[n + j] > 1 ? t.mid[j] * t.inr[j] : 0;
      L->start[n + j] = mul(L, varOrZero(L, ko[j]), num(L, t.mid[j] * t.inr[j]));
      L->offset[n + j] = mad(L, varOrZero(L, km[j]), t.inr[j], varOrZero(L, kin[j]));
      L->full[n + j] = add(L, L->start[n + j], L->offset[n + j]);
   }
   for (int i = 0; i < n; i++) {
      x3[i] = loopVar(L, a->axis[i], "inner", t.in3[i]);
      x4[i] = loopVar(L, a->axis[i], "innermost", t.in4[i]);
   }
   /* compute: R1 S3 R2 S4, then each virtual thread's copy of the update */
   int32_t base[TE_MAX_DIMS];
   int32_t acc0 = tileOffsets(L, &t, p4, tco, x3, x4, base);
   for (int64_t vf = 0; vf < vthreads; vf++) {
      vthreadCopy(L, &t, vf, base, L->offset);
      for (int i = 0; i < n; i++)
         L->full[i] = add(L, L->start[i], L->offset[i]);
      int32_t accIdx = vf ? add(L, acc0, num(L, vf * p3 * p4)) : acc0;
      L->resolve = resolveCompute;
      int32_t value = translate(L, a->body, L->full);
      L->resolve = NULL;
      if (nr > 0)
         value = combine(L, red, Ir_load(L->ln, L->accBuf, accIdx), value);
      copies[vf] = Ir_store(L->ln, L->accBuf, accIdx, value);
   }
   nl = 0;
   for (int j = 0; j < nr; j++)
      if (km[j] >= 0)
         loops[nl++] = km[j];
   for (int i = 0; i < n; i++)
      if (x3[i] >= 0)
         loops[nl++] = x3[i];
   for (int j = 0; j < nr; j++)
      if (kin[j] >= 0)
         loops[nl++] = kin[j];
   for (int i = 0; i < n; i++)
      if (x4[i] >= 0)
         loops[nl++] = x4[i];
   int32_t compute = wrap(L, loops, nl, Ir_vthreadSeq(L->ln, copies, (int)vthreads), vthreads, unroll);

   int32_t step[SKETCH_MAX_CACHES + 3];
   int nstep = 0;
   if (k->ncache > 0)
      step[nstep++] = Ir_barrier(L->ln);
   for (int c = 0; c < k->ncache; c++)
      step[nstep++] = fetch(L, k, c, threads, var(L, kn->threadVar), L->start);
   if (k->ncache > 0)
      step[nstep++] = Ir_barrier(L->ln);
   step[nstep++] = compute;
   int outerLoops[TE_MAX_REDUCE], no = 0;
   for (int j = 0; j < nr; j++)
      if (ko[j] >= 0)
         outerLoops[no++] = ko[j];
   items[ni++] = wrap(L, outerLoops, no, Ir_seq(L->ln, step, nstep), 1, 0);

   /* store: each thread's outputs through the fused elementwise chain */
   int s3[TE_MAX_DIMS] = { 0 }, s4[TE_MAX_DIMS] = { 0 };
   for (int i = 0; i < n; i++) {
      s3[i] = loopVar(L, a->axis[i], "inner", t.in3[i]);
      s4[i] = loopVar(L, a->axis[i], "innermost", t.in4[i]);
   }
   acc0 = tileOffsets(L, &t, p4, tco, s3, s4, base);
   for (int64_t vf = 0; vf < vthreads; vf++) {
      int32_t off[TE_MAX_DIMS], out[TE_MAX_DIMS];
      vthreadCopy(L, &t, vf, base, off);
      for (int i = 0; i < n; i++)
         out[i] = add(L, L->start[i], off[i]);
      L->accIndex = vf ? add(L, acc0, num(L, vf * p3 * p4)) : acc0;
      int32_t value = storedValue(L, k, out);
      copies[vf] = Ir_storeAt(L->ln, L->global[k->root], flatten(L, n, out, root->shape), out, value);
   }
   nl = 0;
   for (int i = 0; i < n; i++)
      if (s3[i] >= 0)
         loops[nl++] = s3[i];
   for (int i = 0; i < n; i++)
      if (s4[i] >= 0)
         loops[nl++] = s4[i];
   items[ni++] = wrap(L, loops, nl, Ir_vthreadSeq(L->ln, copies, (int)vthreads), vthreads, unroll);
   kn->body = Ir_seq(L->ln, items, ni);
}

/* ---- Tensor-Core kernels ---- */

/* The extent of stage a's axis `axis` (spatial 0..ndim-1, then reduce). */
static int64_t axisExtent(const Stage *a, int axis) {
   return axis < a->ndim ? a->shape[axis] : a->rextent[axis - a->ndim];
}

/* Binds each axis of one group of the anchor (SketchGemm's m, n or k) to its coordinate
 * in `fused`, the group's row-major index. */
static void groupAxes(Lower *L, int32_t *items, int *ni, const Stage *a, const int *axes, int n, int32_t fused,
                      int32_t *axis) {
   int64_t ext[TE_MAX_AXES];
   for (int i = 0; i < n; i++)
      ext[i] = axisExtent(a, axes[i]);
   for (int i = 0; i < n; i++)
      axis[axes[i]] = n == 1 ? fused : bind(L, items, ni, a->axis[axes[i]], coordinate(L, fused, ext, n, i));
}

/* Where the anchor's factor te load `factor` reads a global buffer whose last
 * dimensions are the anchor's k axes in order, at their extents, and whose others no k
 * axis indexes (conv2d's OIHW weights, dense's and batch_matmul's row-major operands),
 * its elements along k are contiguous: its element at k index kk in the row the
 * anchor's axes `at` give is the row's start plus kk, with no division of kk into its
 * axes. That load (the per-dimension indices the features read are kk's coordinates,
 * as the buffer's shape has them), or -1 for any other factor. */
static int32_t contiguousLoad(Lower *L, int32_t factor, const int32_t *at, int32_t kk) {
   const Stage *a = &L->g->stages[L->anchor];
   const Expr *x = Dag_expr(L->g, factor);
   if (x->kind != EXPR_LOAD || L->resolve || L->sk->plan[x->ref] == STAGE_PLAN_INLINE || L->global[x->ref] < 0)
      return -1;
   const Stage *src = &L->g->stages[x->ref];
   int lead = src->ndim - a->nreduce;
   if (lead < 0)
      return -1;
   for (int d = 0; d < src->ndim; d++) {
      const Expr *i = Dag_expr(L->g, x->args[d]);
      if (d >= lead) {
         if (i->kind != EXPR_AXIS || i->ref != a->ndim + d - lead || src->shape[d] != a->rextent[d - lead])
            return -1;
      } else if (i->kind != EXPR_INT && !(i->kind == EXPR_AXIS && i->ref < a->ndim)) {
         return -1;
      }
   }
   int32_t idx[TE_MAX_DIMS];
   int64_t row = 1;
   for (int d = 0; d < lead; d++)
      idx[d] = translate(L, x->args[d], at);
   for (int d = lead; d < src->ndim; d++) {
      idx[d] = coordinate(L, kk, a->rextent, a->nreduce, d - lead);
      row *= src->shape[d];
   }
   int32_t index = mad(L, flatten(L, lead, idx, src->shape), row, kk);
   return Ir_loadAt(L->ln, L->global[x->ref], index, idx);
}

/* The coefficient of anchor axis `axis` in the affine index e (0 where e does not read
 * it), or -1 where e is not affine. */
static int64_t axisCoefficient(const Dag *g, int32_t e, int axis) {
   const Expr *x = Dag_expr(g, e);
   switch ((ExprKind)x->kind) {
   case EXPR_INT:
      return 0;
   case EXPR_AXIS:
      return x->ref == axis;
   case EXPR_ADD:
   case EXPR_SUB: {
      int64_t p = axisCoefficient(g, x->args[0], axis), q = axisCoefficient(g, x->args[1], axis);
      if (p < 0 || q < 0)
         return -1;
      return x->kind == EXPR_ADD ? p + q : (p >= q ? p - q : -1);
   }
   case EXPR_MUL: {
      int32_t other;
      const Expr *c = mulConstant(g, x, &other);
      int64_t p = c && c->v.i >= 0 ? axisCoefficient(g, other, axis) : -1;
      return p < 0 ? -1 : p * c->v.i;
   }
   default:
      return -1;
   }
}

/* The sectors a warp's 32 consecutive staged elements touch where they run along a
 * direction of the tile `span` elements long (a warp longer than it wraps to new lines,
 * each in sectors of its own), whose global elements are `stride` apart for `run`
 * elements and then jump (stride 0: every element a jump). */
static int64_t warpSectors(int64_t span, int64_t run, int64_t stride) {
   const int64_t perSector = 32 / 4; /* a 32-byte sector of 4-byte elements */
   int64_t n = span < 32 ? span : 32, lines = (32 + n - 1) / n;
   int64_t len = stride > 0 && run < n ? run : (stride > 0 ? n : 1);
   int64_t runs = (n + len - 1) / len;
   int64_t perRun = ((len - 1) * stride + perSector) / perSector;
   return lines * runs * (perRun < len ? perRun : len);
}

/* The contiguous run of a te load along one group of the anchor's axes (their fused
 * index in row-major order): the innermost axis of the group longer than 1, if the
 * load's last index reads it, runs for that axis' extent at its coefficient, or for the
 * whole group where the group's axes are the load's last dimensions at their extents
 * (contiguousLoad's case); *stride gets the coefficient (0: no run). */
static int64_t groupRun(const Lower *L, const Expr *x, const int *axes, int n, int64_t *stride) {
   const Stage *a = &L->g->stages[L->anchor], *src = &L->g->stages[x->ref];
   *stride = 0;
   int inner = -1;
   for (int i = n - 1; i >= 0 && inner < 0; i--)
      if (axisExtent(a, axes[i]) > 1)
         inner = axes[i];
   if (inner < 0 || src->ndim == 0)
      return 1;
   int64_t c = axisCoefficient(L->g, x->args[src->ndim - 1], inner);
   if (c <= 0)
      return 1;
   *stride = c;
   int64_t run = axisExtent(a, inner);
   /* the group's axes are the load's last dimensions, each at unit stride and its extent */
   bool whole = c == 1 && n <= src->ndim;
   int64_t all = 1;
   for (int i = 0; i < n && whole; i++) {
      const Expr *d = Dag_expr(L->g, x->args[src->ndim - n + i]);
      int64_t ext = axisExtent(a, axes[i]);
      whole = d->kind == EXPR_AXIS && d->ref == axes[i] && src->shape[src->ndim - n + i] == ext;
      all *= ext;
   }
   return whole ? all : run;
}

/* Whether a factor's staging should give consecutive threads consecutive rows of the
 * tile rather than consecutive k: where its global elements lie closer together along
 * the rows (the image of a 1x1 NCHW convolution, whose k is the channel and whose rows
 * are output pixels along a row of the image), by the sectors a warp's loads touch
 * either way, and k is a single axis. Along the rows a thread's k changes from round to
 * round and stage to stage, so that k axes divided out of k would cost divisions for
 * every staged element (a window's channel, row and column), where along k they cost
 * them once a stage. k where the sectors tie. */
static bool stageByRow(const Lower *L, int32_t factor, const int *rowAxes, int nrow, int64_t rows, int64_t blockK) {
   const Stage *a = &L->g->stages[L->anchor];
   const Expr *x = Dag_expr(L->g, factor);
   if (x->kind != EXPR_LOAD)
      return false;
   int kaxes[TE_MAX_REDUCE], longer = 0;
   for (int i = 0; i < a->nreduce; i++) {
      kaxes[i] = a->ndim + i;
      longer += a->rextent[i] > 1;
   }
   if (longer > 1)
      return false;
   int64_t rowStride, kStride;
   int64_t rowRun = groupRun(L, x, rowAxes, nrow, &rowStride);
   int64_t kRun = groupRun(L, x, kaxes, a->nreduce, &kStride);
   return warpSectors(rows, rowRun, rowStride) < warpSectors(blockK, kRun, kStride);
}

/* One side of the anchor's matrix multiply (0 A, 1 B) as a block stages it: its tile
 * of `rows` rows from row0 by blockK k a stage, in shared memory (and, in a pipeline,
 * in registers, an element a round), and how the block's threads share it: consecutive
 * threads along k or along the rows (stageByRow), one element each per round. */
typedef struct {
   int side;
   int32_t factor;              /* the anchor's te load of this side */
   const int *axes;             /* the group of the anchor's axes the rows run over */
   int naxes;
   int32_t row0;                /* the block's first row */
   int64_t extent;              /* rows of the matrix (M or N) */
   int shared, reg;             /* the tile; the pipeline's registers (-1: none) */
   bool byRow, whole;           /* along the rows; a round covers whole lines */
   int64_t rows, total, rounds, threads;
   int64_t line, across;        /* elements along the direction the threads run, and across it */
} TcStaging;

static TcStaging tcStaging(const Lower *L, const TcTile *t, const SketchGemm *gm, int side, int32_t row0,
                           int64_t threads, int shared) {
   const Stage *a = &L->g->stages[L->anchor];
   int64_t rows = side ? t->blockN : t->blockM;
   TcStaging s = { .side = side, .factor = Dag_expr(L->g, a->body)->args[side], .axes = side ? gm->nAxis : gm->mAxis,
                   .naxes = side ? gm->nn : gm->nm, .row0 = row0, .extent = side ? t->N : t->M, .shared = shared,
                   .reg = -1, .rows = rows, .total = rows * t->blockK, .threads = threads };
   s.byRow = stageByRow(L, s.factor, s.axes, s.naxes, rows, t->blockK);
   s.rounds = (s.total + threads - 1) / threads;
   s.line = s.byRow ? rows : t->blockK;
   s.across = s.byRow ? t->blockK : rows;
   s.whole = threads % s.line == 0;
   return s;
}

/* A thread's place in the tile in round `vr` (-1: the only round): its row *r and k
 * *c; *other is its place across the line, and *flat (bound in stmts, where a round
 * does not cover whole lines) its element's number. */
static void stagingPlace(Lower *L, const TcStaging *s, int vr, int32_t tid, const char *src, int32_t *stmts, int *ns,
                         int32_t *r, int32_t *c, int32_t *other, int32_t *flat) {
   int32_t along;
   *flat = -1;
   if (s->whole) {
      along = Ir_binary(L->ln, EXPR_FLOORMOD, tid, num(L, s->line));
      *other = Ir_binary(L->ln, EXPR_FLOORDIV, tid, num(L, s->line));
      if (vr >= 0)
         *other = mad(L, var(L, vr), s->threads / s->line, *other);
   } else {
      char name[IR_NAME_MAX];
      join(name, sizeof name, src, "i");
      *flat = bind(L, stmts, ns, name, vr >= 0 ? mad(L, var(L, vr), s->threads, tid) : tid);
      along = Ir_binary(L->ln, EXPR_FLOORMOD, *flat, num(L, s->line));
      *other = Ir_binary(L->ln, EXPR_FLOORDIV, *flat, num(L, s->line));
   }
   *r = s->byRow ? along : *other;
   *c = s->byRow ? *other : along;
}

/* `store` under the guard that keeps a last round's spare threads out of the tile. */
static int32_t withinTile(Lower *L, const TcStaging *s, int32_t other, int32_t flat, int32_t store) {
   if (s->total % s->threads == 0)
      return store;
   int32_t within = s->whole ? Ir_binary(L->ln, EXPR_LT, other, num(L, s->across))
                             : Ir_binary(L->ln, EXPR_LT, flat, num(L, s->total));
   return Ir_if(L->ln, within, store);
}

/* One side's tile for k stage `ko`, copied into its shared tile [row][ld] by the
 * block's threads, one element each per round (rounded as stored where the tile is
 * 16-bit, asynchronously where it holds floats), or where the side has registers
 * loaded into them, an element a round, for tcDrain to store (`ahead`: a prefetch,
 * loaded a stage before its use). The element is the factor's te load
 * at the anchor's axes that the row and k index give (the batch axes from `axis`),
 * which gathers conv2d's windows; elements past the matrix (rows past `extent`, k past
 * K) and the zeros of an inlined select (padding) are zero fills of the copy.
 * Consecutive threads take consecutive k or consecutive rows, whichever the factor's
 * global elements lie closer together along (stageByRow). A factor that is contiguous
 * along k (contiguousLoad) is read at its row's start plus k. Where a round covers
 * whole lines of the direction the threads run along, a thread keeps its place on the
 * line in every round, and the axes that place gives are bound once a stage, before
 * the rounds. */
static int32_t tcFetch(Lower *L, const TcTile *t, const TcStaging *s, const int32_t *axis, int32_t ko, int32_t tid,
                       bool ahead) {
   const Stage *a = &L->g->stages[L->anchor];
   const Stage *src = &L->g->stages[Dag_expr(L->g, s->factor)->ref];
   char name[IR_NAME_MAX];
   join(name, sizeof name, src->name, "round");
   int vr = s->rounds > 1 ? Ir_var(L->ln, VAR_LOOP, name, s->rounds) : -1;
   int32_t stmts[2 * TE_MAX_AXES + 2], pre[TE_MAX_AXES + 1];
   int ns = 0, np = 0;
   int32_t r, c, other, flat;
   stagingPlace(L, s, vr, tid, src->name, stmts, &ns, &r, &c, &other, &flat);
   int32_t row = add(L, s->row0, r), kk = mad(L, ko, t->blockK, c);
   int32_t at[TE_MAX_AXES];
   memcpy(at, axis, sizeof at);
   bool rowsOnce = s->whole && s->byRow, kOnce = s->whole && !s->byRow;
   groupAxes(L, rowsOnce ? pre : stmts, rowsOnce ? &np : &ns, a, s->axes, s->naxes, row, at);
   int32_t value = contiguousLoad(L, s->factor, at, kk);
   if (value < 0) {
      int kaxes[TE_MAX_REDUCE];
      for (int i = 0; i < a->nreduce; i++)
         kaxes[i] = a->ndim + i;
      groupAxes(L, kOnce ? pre : stmts, kOnce ? &np : &ns, a, kaxes, a->nreduce, kk, at);
      value = translate(L, s->factor, at);
   }
   int32_t inside = -1;
   if (((s->extent + s->rows - 1) / s->rows) * s->rows != s->extent)
      inside = Ir_binary(L->ln, EXPR_LT, row, num(L, s->extent));
   if (t->split * t->stagesPerSplit * t->blockK != t->K) {
      int32_t kin = Ir_binary(L->ln, EXPR_LT, kk, num(L, t->K));
      inside = inside < 0 ? kin : Ir_binary(L->ln, EXPR_AND, inside, kin);
   }
   for (;;) {
      const Expr *v = Ir_expr(L->ln, value);
      const Expr *zero = v->kind == EXPR_SELECT ? Ir_expr(L->ln, v->args[2]) : NULL;
      if (!zero || zero->kind != EXPR_FLOAT || zero->v.f != 0.0)
         break;
      int32_t cond = v->args[0], taken = v->args[1];
      inside = inside < 0 ? cond : Ir_binary(L->ln, EXPR_AND, inside, cond);
      value = taken;
   }
   /* a 16-bit tile rounds what it stores: no asynchronous copy */
   bool copy = Ir_expr(L->ln, value)->kind == EXPR_LOAD && Ir_elemBytes(&L->ln->buffers[s->shared]) == 4;
   if (inside >= 0)
      value = Ir_select(L->ln, inside, value, Ir_float(L->ln, 0.0));
   int32_t store;
   if (s->reg >= 0) {
      store = ahead ? Ir_prefetch(L->ln, s->reg, varOrZero(L, vr), value) : Ir_store(L->ln, s->reg, varOrZero(L, vr), value);
   } else {
      int32_t sidx[2] = { r, c };
      int32_t index = mad(L, r, t->ld, c);
      store = copy ? Ir_copyAsync(L->ln, s->shared, index, sidx, value) : Ir_storeAt(L->ln, s->shared, index, sidx, value);
   }
   stmts[ns++] = withinTile(L, s, other, flat, store);
   int32_t body = Ir_seq(L->ln, stmts, ns);
   pre[np++] = vr >= 0 ? Ir_for(L->ln, vr, LOOP_UNROLL, body) : body;
   return Ir_seq(L->ln, pre, np);
}

/* A side's registers of a prefetched stage (tcFetch into them), one element a round:
 * its elements stored to their places in the shared tile, as tcFetch without them would
 * have stored them. */
static int32_t tcDrain(Lower *L, const TcTile *t, const TcStaging *s, int32_t tid) {
   const Stage *src = &L->g->stages[Dag_expr(L->g, s->factor)->ref];
   char name[IR_NAME_MAX];
   join(name, sizeof name, src->name, "drain");
   int vr = s->rounds > 1 ? Ir_var(L->ln, VAR_LOOP, name, s->rounds) : -1;
   int32_t stmts[2];
   int ns = 0;
   int32_t r, c, other, flat;
   stagingPlace(L, s, vr, tid, src->name, stmts, &ns, &r, &c, &other, &flat);
   int32_t sidx[2] = { r, c };
   int32_t store = Ir_storeAt(L->ln, s->shared, mad(L, r, t->ld, c), sidx, Ir_load(L->ln, s->reg, varOrZero(L, vr)));
   stmts[ns++] = withinTile(L, s, other, flat, store);
   int32_t body = Ir_seq(L->ln, stmts, ns);
   return vr >= 0 ? Ir_for(L->ln, vr, LOOP_UNROLL, body) : body;
}

static void finishKernel(LoopNest *ln, int k);
static void lowerTcSum(Lower *L, int ki, const TcTile *t, int scratch);

/* `guard` (-1: none) and, where the tiles overhang the matrix, row < M and col < N. */
static int32_t inMatrix(Lower *L, const TcTile *t, int32_t row, int32_t col, int32_t guard) {
   const int64_t tiled[2] = { t->gridM * t->blockM, t->gridN * t->blockN }, extent[2] = { t->M, t->N };
   const int32_t at[2] = { row, col };
   for (int i = 0; i < 2; i++) {
      if (tiled[i] == extent[i])
         continue;
      int32_t in = Ir_binary(L->ln, EXPR_LT, at[i], num(L, extent[i]));
      guard = guard < 0 ? in : Ir_binary(L->ln, EXPR_AND, guard, in);
   }
   return guard;
}

static void lowerTc(Lower *L, int ki) {
   const KernelPlan *k = &L->sk->kernels[ki];
   const Dag *g = L->g;
   const Stage *a = &g->stages[k->anchor];
   const Stage *root = &g->stages[k->root];
   TcTile t;
   State_tcTile(L->set, L->st, ki, &t);
   int64_t threads = SKETCH_WARP_SIZE * t.warpsM * t.warpsN;
   int64_t tiles = t.batch * t.gridM * t.gridN;
   bool split = t.split > 1;
   char name[IR_NAME_MAX];
   IrKernel *kn;
   if (split) {
      /* the partial tiles' kernel, named for the anchor: the sum's takes the root's name */
      join(name, sizeof name, a->name, "partial_kernel");
      kn = Ir_kernel(L->ln, name, k->anchor, t.split * tiles, threads);
   } else {
      kn = newKernel(L, k->root, tiles, threads);
   }
   int kv = (int)(kn - L->ln->kernels);
   int32_t items[TE_MAX_DIMS + 16];
   int ni = 0;

   /* blockIdx.x over (k split, batch, m blocks, n blocks); threadIdx.x over (m warps, n
    * warps, lane) */
   int64_t gext[4] = { t.split, t.batch, t.gridM, t.gridN };
   int64_t text[3] = { t.warpsM, t.warpsN, SKETCH_WARP_SIZE };
   int32_t ks = bind(L, items, &ni, "k_split", coordinate(L, var(L, kn->blockVar), gext, 4, 0));
   int32_t bb = bind(L, items, &ni, "b_block", coordinate(L, var(L, kn->blockVar), gext, 4, 1));
   int32_t bm = bind(L, items, &ni, "m_block", coordinate(L, var(L, kn->blockVar), gext, 4, 2));
   int32_t bn = bind(L, items, &ni, "n_block", coordinate(L, var(L, kn->blockVar), gext, 4, 3));
   int32_t wm = bind(L, items, &ni, "m_warp", coordinate(L, var(L, kn->threadVar), text, 3, 0));
   int32_t wn = bind(L, items, &ni, "n_warp", coordinate(L, var(L, kn->threadVar), text, 3, 1));
   int32_t lane = bind(L, items, &ni, "lane", coordinate(L, var(L, kn->threadVar), text, 3, 2));
   const SketchGemm *gm = &k->gemm;
   int32_t axis[TE_MAX_AXES];
   for (int i = 0; i < TE_MAX_AXES; i++)
      axis[i] = num(L, 0);
   groupAxes(L, items, &ni, a, gm->batchAxis, gm->nbatch, bb, axis);
   L->anchor = k->anchor;

   const Expr *body = Dag_expr(g, a->body);
   int opA = Dag_expr(g, body->args[0])->ref, opB = Dag_expr(g, body->args[1])->ref;
   int64_t frags = t.fragsM * t.fragsN, accSize = 4 * frags;
   localName(name, sizeof name, a->name, "local");
   L->accBuf = Ir_buffer(L->ln, name, SCOPE_LOCAL, k->anchor, kv, 1, &accSize);
   int64_t shapeA[2] = { t.blockM, t.ld }, shapeB[2] = { t.blockN, t.ld };
   localName(name, sizeof name, g->stages[opA].name, "shared");
   int sharedA = Ir_buffer(L->ln, name, SCOPE_SHARED, opA, kv, 2, shapeA);
   localName(name, sizeof name, g->stages[opB].name, "shared");
   int sharedB = Ir_buffer(L->ln, name, SCOPE_SHARED, opB, kv, 2, shapeB);
   if (Precision_storageBytes(t.precision) == 2)
      L->ln->buffers[sharedA].precision = L->ln->buffers[sharedB].precision = (uint8_t)t.precision;

   /* the accumulators start at zero */
   int vz = Ir_var(L->ln, VAR_LOOP, "acc_i", accSize);
   items[ni++] = Ir_for(L->ln, vz, LOOP_UNROLL, Ir_store(L->ln, L->accBuf, var(L, vz), Ir_float(L->ln, 0.0)));

   /* each k stage (of the block's split): stage both tiles, then every warp's fragments
    * take the stage's steps */
   int vk = t.stagesPerSplit > 1 ? Ir_var(L->ln, VAR_LOOP, "k_outer", t.stagesPerSplit) : -1;
   int32_t first = split ? mul(L, ks, num(L, t.stagesPerSplit)) : num(L, 0);
   int32_t ko = add(L, first, varOrZero(L, vk));
   int32_t tid = var(L, kn->threadVar);
   TcStaging op[2] = {
      tcStaging(L, &t, gm, 0, mul(L, bm, num(L, t.blockM)), threads, sharedA),
      tcStaging(L, &t, gm, 1, mul(L, bn, num(L, t.blockN)), threads, sharedB),
   };
   int32_t step[6];
   int nstep = 0;
   step[nstep++] = Ir_barrier(L->ln);
   if (t.inFlight > 1) {
      /* a pipeline: stage 0's operands loaded into registers before the stages; each
       * stage stores what was loaded to the tiles, then loads the next stage's while
       * the warps multiply */
      for (int side = 0; side < 2; side++) {
         localName(name, sizeof name, g->stages[side ? opB : opA].name, "prefetch");
         op[side].reg = Ir_buffer(L->ln, name, SCOPE_LOCAL, side ? opB : opA, kv, 1, &op[side].rounds);
      }
      int32_t next = add(L, ko, num(L, 1)), ahead[2];
      for (int side = 0; side < 2; side++)
         items[ni++] = tcFetch(L, &t, &op[side], axis, first, tid, false);
      for (int side = 0; side < 2; side++)
         step[nstep++] = tcDrain(L, &t, &op[side], tid);
      step[nstep++] = Ir_barrier(L->ln);
      for (int side = 0; side < 2; side++)
         ahead[side] = tcFetch(L, &t, &op[side], axis, next, tid, true);
      int32_t more = Ir_binary(L->ln, EXPR_LT, var(L, vk), num(L, t.stagesPerSplit - 1));
      step[nstep++] = Ir_if(L->ln, more, Ir_seq(L->ln, ahead, 2));
   } else {
      for (int side = 0; side < 2; side++)
         step[nstep++] = tcFetch(L, &t, &op[side], axis, ko, tid, false);
      step[nstep++] = Ir_barrier(L->ln);
   }
   int vs = t.stepsK > 1 ? Ir_var(L->ln, VAR_LOOP, "k_step", t.stepsK) : -1;
   int vfm = t.fragsM > 1 ? Ir_var(L->ln, VAR_LOOP, "m_frag", t.fragsM) : -1;
   int vfn = t.fragsN > 1 ? Ir_var(L->ln, VAR_LOOP, "n_frag", t.fragsN) : -1;
   int32_t fm = varOrZero(L, vfm), fn = varOrZero(L, vfn);
   int32_t kq = mul(L, varOrZero(L, vs), num(L, t.mmaK));
   int32_t aRow = mad(L, mad(L, wm, t.fragsM, fm), SKETCH_MMA_M, num(L, 0));
   int32_t bRow = mad(L, mad(L, wn, t.fragsN, fn), SKETCH_MMA_N, num(L, 0));
   int32_t mma = Ir_mma(L->ln, t.precision, L->accBuf, mul(L, mad(L, fm, t.fragsN, fn), num(L, 4)), sharedA,
                        mad(L, aRow, t.ld, kq), t.ld, sharedB, mad(L, bRow, t.ld, kq), t.ld);
   int loops[3] = { vs, vfm, vfn };
   for (int i = 2; i >= 0; i--)
      if (loops[i] >= 0)
         mma = Ir_for(L->ln, loops[i], LOOP_UNROLL, mma);
   step[nstep++] = mma;
   int32_t stage = Ir_seq(L->ln, step, nstep);
   items[ni++] = vk >= 0 ? Ir_for(L->ln, vk, LOOP_SERIAL, stage) : stage;

   /* store: each accumulator where the fragment layout puts it, through the fused chain;
    * split, the block's partial tile as it is, row-major, to its place in the scratch */
   int sfm = t.fragsM > 1 ? Ir_var(L->ln, VAR_LOOP, "m_frag", t.fragsM) : -1;
   int sfn = t.fragsN > 1 ? Ir_var(L->ln, VAR_LOOP, "n_frag", t.fragsN) : -1;
   int sc = Ir_var(L->ln, VAR_LOOP, "c", 4);
   int32_t c = var(L, sc);
   fm = varOrZero(L, sfm);
   fn = varOrZero(L, sfn);
   int32_t half = Ir_binary(L->ln, EXPR_FLOORDIV, c, num(L, 2));
   int32_t tileRow = add(L, mad(L, mad(L, mad(L, wm, t.fragsM, fm), SKETCH_MMA_M, num(L, 0)), 1,
                                Ir_binary(L->ln, EXPR_FLOORDIV, lane, num(L, 4))),
                         mul(L, half, num(L, 8)));
   int32_t tileCol = add(L, mad(L, mad(L, wn, t.fragsN, fn), SKETCH_MMA_N, num(L, 0)),
                         mad(L, Ir_binary(L->ln, EXPR_FLOORMOD, lane, num(L, 4)), 2,
                             Ir_binary(L->ln, EXPR_FLOORMOD, c, num(L, 2))));
   int32_t inner[2 * TE_MAX_DIMS + 3];
   int nin = 0;
   int32_t store, scratch = -1;
   L->accIndex = mad(L, mad(L, fm, t.fragsN, fn), 4, c);
   if (split) {
      int64_t elems = t.split * tiles * t.blockM * t.blockN;
      join(name, sizeof name, a->name, "split");
      scratch = Ir_buffer(L->ln, name, SCOPE_GLOBAL, -1, -1, 1, &elems);
      int32_t at = mad(L, mad(L, var(L, kn->blockVar), t.blockM, tileRow), t.blockN, tileCol);
      store = Ir_store(L->ln, scratch, at, Ir_load(L->ln, L->accBuf, L->accIndex));
   } else {
      int32_t row = bind(L, inner, &nin, "row", add(L, op[0].row0, tileRow));
      int32_t col = bind(L, inner, &nin, "col", add(L, op[1].row0, tileCol));
      int32_t out[TE_MAX_AXES];
      memcpy(out, axis, sizeof out);
      groupAxes(L, inner, &nin, a, gm->mAxis, gm->nm, row, out);
      groupAxes(L, inner, &nin, a, gm->nAxis, gm->nn, col, out);
      int32_t value = storedValue(L, k, out);
      store = Ir_storeAt(L->ln, L->global[k->root], flatten(L, root->ndim, out, root->shape), out, value);
      int32_t guard = inMatrix(L, &t, row, col, -1);
      if (guard >= 0)
         store = Ir_if(L->ln, guard, store);
   }
   inner[nin++] = store;
   int32_t st = Ir_for(L->ln, sc, LOOP_UNROLL, Ir_seq(L->ln, inner, nin));
   if (sfn >= 0)
      st = Ir_for(L->ln, sfn, LOOP_UNROLL, st);
   if (sfm >= 0)
      st = Ir_for(L->ln, sfm, LOOP_UNROLL, st);
   items[ni++] = st;
   kn->body = Ir_seq(L->ln, items, ni);
   if (split) {
      finishKernel(L->ln, kv);
      lowerTcSum(L, ki, &t, scratch);
   }
}

/* Split-K's second kernel: a thread per element of the output tiles, in blocks of
 * SKETCH_TC_SUM_THREADS (a tile of more elements takes several blocks, so that the sum
 * spreads over the SMs and no thread sums more than one element); each element is the
 * sum of the tile's partials in split order, stored through the fused chain. */
static void lowerTcSum(Lower *L, int ki, const TcTile *t, int scratch) {
   const KernelPlan *k = &L->sk->kernels[ki];
   const Stage *a = &L->g->stages[k->anchor];
   const Stage *root = &L->g->stages[k->root];
   const SketchGemm *gm = &k->gemm;
   int64_t tiles = t->batch * t->gridM * t->gridN, elems = t->blockM * t->blockN;
   int64_t threads = elems < SKETCH_TC_SUM_THREADS ? elems : SKETCH_TC_SUM_THREADS;
   int64_t chunks = (elems + threads - 1) / threads;
   IrKernel *kn = newKernel(L, k->root, tiles * chunks, threads);
   kn->gathers = t->split;
   kn->gatherSpan = chunks;
   int kv = (int)(kn - L->ln->kernels);
   int32_t items[TE_MAX_DIMS + 8];
   int ni = 0;
   char name[IR_NAME_MAX];
   int64_t gext[4] = { t->batch, t->gridM, t->gridN, chunks };
   int32_t block = var(L, kn->blockVar);
   int32_t bb = bind(L, items, &ni, "b_block", coordinate(L, block, gext, 4, 0));
   int32_t bm = bind(L, items, &ni, "m_block", coordinate(L, block, gext, 4, 1));
   int32_t bn = bind(L, items, &ni, "n_block", coordinate(L, block, gext, 4, 2));
   int32_t tile = chunks > 1 ? bind(L, items, &ni, "tile", Ir_binary(L->ln, EXPR_FLOORDIV, block, num(L, chunks)))
                             : block;
   int32_t axis[TE_MAX_AXES];
   for (int i = 0; i < TE_MAX_AXES; i++)
      axis[i] = num(L, 0);
   groupAxes(L, items, &ni, a, gm->batchAxis, gm->nbatch, bb, axis);
   int64_t one = 1;
   localName(name, sizeof name, a->name, "local");
   L->accBuf = Ir_buffer(L->ln, name, SCOPE_LOCAL, k->anchor, kv, 1, &one);
   L->accIndex = num(L, 0);

   int32_t tid = var(L, kn->threadVar);
   int32_t e = chunks > 1 ? bind(L, items, &ni, "e", mad(L, coordinate(L, block, gext, 4, 3), threads, tid)) : tid;
   int32_t row = bind(L, items, &ni, "row", mad(L, bm, t->blockM, Ir_binary(L->ln, EXPR_FLOORDIV, e, num(L, t->blockN))));
   int32_t col = bind(L, items, &ni, "col", mad(L, bn, t->blockN, Ir_binary(L->ln, EXPR_FLOORMOD, e, num(L, t->blockN))));
   int32_t sum[TE_MAX_DIMS + 6];
   int ns = 0;
   sum[ns++] = Ir_store(L->ln, L->accBuf, L->accIndex, Ir_float(L->ln, 0.0));
   int vs = Ir_var(L->ln, VAR_LOOP, "k_split", t->split);
   int32_t at = mad(L, mad(L, var(L, vs), tiles, tile), elems, e);
   sum[ns++] = Ir_for(L->ln, vs, LOOP_SERIAL,
                      Ir_store(L->ln, L->accBuf, L->accIndex,
                               add(L, Ir_load(L->ln, L->accBuf, L->accIndex), Ir_load(L->ln, scratch, at))));
   int32_t out[TE_MAX_AXES];
   memcpy(out, axis, sizeof out);
   groupAxes(L, sum, &ns, a, gm->mAxis, gm->nm, row, out);
   groupAxes(L, sum, &ns, a, gm->nAxis, gm->nn, col, out);
   sum[ns++] = Ir_storeAt(L->ln, L->global[k->root], flatten(L, root->ndim, out, root->shape), out,
                          storedValue(L, k, out));
   int32_t guard = inMatrix(L, t, row, col, elems % threads ? Ir_binary(L->ln, EXPR_LT, e, num(L, elems)) : -1);
   int32_t element = Ir_seq(L->ln, sum, ns);
   items[ni++] = guard >= 0 ? Ir_if(L->ln, guard, element) : element;
   kn->body = Ir_seq(L->ln, items, ni);
}

/* ---- simple kernels ---- */

static void decompose(Lower *L, int32_t *items, int *ni, const Stage *st, int32_t fused, bool reduce,
                      int32_t *axis) {
   int n = reduce ? st->nreduce : st->ndim;
   const int64_t *ext = reduce ? st->rextent : st->shape;
   int first = reduce ? st->ndim : 0;
   for (int i = 0; i < n; i++)
      axis[first + i] = bind(L, items, ni, st->axis[first + i], coordinate(L, fused, ext, n, i));
}

/* acc = init; for each reduce coordinate of the stage inside the loops: acc op= body */
static int32_t reduceInto(Lower *L, const Stage *st, int acc, int32_t accIdx, int32_t *axis, int unroll) {
   int loops[TE_MAX_REDUCE];
   for (int r = 0; r < st->nreduce; r++) {
      loops[r] = Ir_var(L->ln, VAR_LOOP, st->axis[st->ndim + r], st->rextent[r]);
      axis[st->ndim + r] = var(L, loops[r]);
   }
   int32_t update = Ir_store(L->ln, acc, accIdx,
                             combine(L, st->reduce, Ir_load(L->ln, acc, accIdx), translate(L, st->body, axis)));
   int32_t parts[2] = { Ir_store(L->ln, acc, accIdx, initValue(L, st->reduce)),
                        wrap(L, loops, st->nreduce, update, 1, unroll) };
   return Ir_seq(L->ln, parts, 2);
}

/* One thread per element of stage `root`, `threads` threads per block. */
static void simpleKernel(Lower *L, int root, int64_t threads, int unroll) {
   const Stage *st = &L->g->stages[root];
   int64_t space = Sketch_spaceLength(L->g, root);
   int64_t grid = (space + threads - 1) / threads;
   IrKernel *kn = newKernel(L, root, grid, threads);
   int kv = (int)(kn - L->ln->kernels);
   int32_t items[TE_MAX_AXES + 4], inner[TE_MAX_AXES + 4];
   int ni = 0, nin = 0;
   int32_t fused = grid > 1 ? mad(L, var(L, kn->blockVar), threads, var(L, kn->threadVar)) : var(L, kn->threadVar);
   fused = bind(L, items, &ni, "i", fused);
   int32_t axis[TE_MAX_AXES];
   decompose(L, inner, &nin, st, fused, false, axis);
   int32_t value;
   if (st->nreduce > 0) {
      char name[IR_NAME_MAX];
      int64_t one = 1;
      localName(name, sizeof name, st->name, "local");
      int acc = Ir_buffer(L->ln, name, SCOPE_LOCAL, root, kv, 1, &one);
      kn->unrollStep = unroll;
      inner[nin++] = reduceInto(L, st, acc, num(L, 0), axis, kn->unrollStep);
      value = Ir_load(L->ln, acc, num(L, 0));
   } else {
      value = translate(L, st->body, axis);
   }
   inner[nin++] = Ir_storeAt(L->ln, L->global[root], fused, axis, value);
   int32_t body = Ir_seq(L->ln, inner, nin);
   items[ni++] = space % threads ? Ir_if(L->ln, Ir_binary(L->ln, EXPR_LT, fused, num(L, space)), body) : body;
   kn->body = Ir_seq(L->ln, items, ni);
}

static void lowerSimple(Lower *L, int ki) {
   const KernelPlan *k = &L->sk->kernels[ki];
   int64_t threads = k->threadSplit >= 0 ? knob(L, L->sk->splits[k->threadSplit].knob)
                                         : Sketch_spaceLength(L->g, k->root);
   simpleKernel(L, k->root, threads, unrollStep(L, k->root));
}

/* ---- cross-thread reductions ---- */

/* Each thread folds the reduce coordinates k = round*threads + threadIdx.x into acc,
 * then the block combines the threads' values into dst[dstIdx]. */
static int32_t crossThread(Lower *L, const IrKernel *kn, const Stage *st, int acc, int dst,
                           int32_t dstIdx, int32_t *axis, int unroll) {
   int64_t total = 1;
   for (int r = 0; r < st->nreduce; r++)
      total *= st->rextent[r];
   int64_t threads = kn->block, rounds = (total + threads - 1) / threads;
   char name[IR_NAME_MAX];
   join(name, sizeof name, st->name, "round");
   int vr = rounds > 1 ? Ir_var(L->ln, VAR_LOOP, name, rounds) : -1;
   int32_t outer[2], inner[TE_MAX_REDUCE + 2];
   int nout = 0, nin = 0;
   int32_t k = vr >= 0 ? mad(L, var(L, vr), threads, var(L, kn->threadVar)) : var(L, kn->threadVar);
   join(name, sizeof name, st->name, "k");
   k = bind(L, outer, &nout, name, k);
   decompose(L, inner, &nin, st, k, true, axis);
   int32_t zero = num(L, 0);
   inner[nin++] = Ir_store(L->ln, acc, zero,
                           combine(L, st->reduce, Ir_load(L->ln, acc, zero), translate(L, st->body, axis)));
   int32_t update = Ir_seq(L->ln, inner, nin);
   if (total % threads)
      update = Ir_if(L->ln, Ir_binary(L->ln, EXPR_LT, k, num(L, total)), update);
   outer[nout++] = update;
   int32_t body = Ir_seq(L->ln, outer, nout);
   if (vr >= 0)
      body = Ir_for(L->ln, vr, rounds <= unroll ? LOOP_UNROLL : LOOP_SERIAL, body);
   int32_t parts[3] = { Ir_store(L->ln, acc, num(L, 0), initValue(L, st->reduce)), body,
                        Ir_allreduce(L->ln, st->reduce, dst, dstIdx, Ir_load(L->ln, acc, num(L, 0))) };
   return Ir_seq(L->ln, parts, 3);
}

static void lowerCtrRoot(Lower *L, int ki) {
   const KernelPlan *k = &L->sk->kernels[ki];
   const Stage *st = &L->g->stages[k->root];
   int64_t threads = knob(L, L->sk->splits[k->threadSplit].knob);
   IrKernel *kn = newKernel(L, k->root, Sketch_spaceLength(L->g, k->root), threads);
   int kv = (int)(kn - L->ln->kernels);
   int32_t items[TE_MAX_AXES + 4];
   int ni = 0;
   int32_t axis[TE_MAX_AXES];
   int32_t fused = var(L, kn->blockVar);
   decompose(L, items, &ni, st, fused, false, axis);
   char name[IR_NAME_MAX];
   int64_t one = 1;
   localName(name, sizeof name, st->name, "local");
   int acc = Ir_buffer(L->ln, name, SCOPE_LOCAL, k->root, kv, 1, &one);
   localName(name, sizeof name, st->name, "red");
   int red = Ir_buffer(L->ln, name, SCOPE_LOCAL, k->root, kv, 1, &one);
   kn->unrollStep = unrollStep(L, k->root);
   items[ni++] = crossThread(L, kn, st, acc, red, num(L, 0), axis, kn->unrollStep);
   int32_t store = Ir_storeAt(L->ln, L->global[k->root], fused, axis, Ir_load(L->ln, red, num(L, 0)));
   items[ni++] = Ir_if(L->ln, Ir_binary(L->ln, EXPR_EQ, var(L, kn->threadVar), num(L, 0)), store);
   kn->body = Ir_seq(L->ln, items, ni);
}

static int32_t resolveAttached(Lower *L, int stage, int32_t load, const int32_t *idx) {
   (void)load;
   (void)idx;
   if (L->attachedBuf[stage] < 0)
      return -1;
   return Ir_load(L->ln, L->attachedBuf[stage], L->attachedIndex[stage]);
}

static void lowerCtrConsumer(Lower *L, int ki) {
   const KernelPlan *k = &L->sk->kernels[ki];
   const Dag *g = L->g;
   const Stage *c = &g->stages[k->root];
   int n = c->ndim;
   int64_t last = c->shape[n - 1];
   int64_t threads = knob(L, L->sk->splits[k->threadSplit].knob);
   int64_t lastOuter = (last + threads - 1) / threads;
   int64_t ext[TE_MAX_DIMS];
   memcpy(ext, c->shape, sizeof ext);
   ext[n - 1] = lastOuter;
   int64_t grid = 1;
   for (int i = 0; i < n; i++)
      grid *= ext[i];
   IrKernel *kn = newKernel(L, k->root, grid, threads);
   int kv = (int)(kn - L->ln->kernels);
   int32_t items[TE_MAX_AXES + 3 * SKETCH_MAX_ATTACHED + 4];
   int ni = 0;
   char name[IR_NAME_MAX];
   int32_t axis[TE_MAX_AXES];
   for (int i = 0; i < n - 1; i++)
      axis[i] = bind(L, items, &ni, c->axis[i], coordinate(L, var(L, kn->blockVar), ext, n, i));
   join(name, sizeof name, c->axis[n - 1], "outer");
   int32_t jo = bind(L, items, &ni, name, coordinate(L, var(L, kn->blockVar), ext, n, n - 1));

   for (int a = 0; a < k->nattached; a++) {
      int r = k->attached[a];
      const Stage *rs = &g->stages[r];
      /* a reduction with the consumer's shape has one value per thread's position along
       * the last axis; one of lower rank has a single value for the block */
      bool perPosition = rs->ndim == n;
      int64_t count = perPosition ? threads : 1;
      localName(name, sizeof name, rs->name, "red");
      L->attachedBuf[r] = Ir_buffer(L->ln, name, SCOPE_LOCAL, r, kv, 1, &count);
      localName(name, sizeof name, rs->name, "local");
      int64_t one = 1;
      int acc = Ir_buffer(L->ln, name, SCOPE_LOCAL, r, kv, 1, &one);
      int32_t raxis[TE_MAX_AXES];
      for (int i = 0; i < rs->ndim; i++)
         raxis[i] = axis[i];
      int vpos = -1;
      int32_t pos = num(L, 0);
      if (perPosition) {
         join(name, sizeof name, rs->name, "pos");
         vpos = threads > 1 ? Ir_var(L->ln, VAR_LOOP, name, threads) : -1;
         pos = varOrZero(L, vpos);
         raxis[n - 1] = mad(L, jo, threads, pos);
      }
      /* the kernel's step is its first reduction's (each has its own knob) */
      if (a == 0)
         kn->unrollStep = unrollStep(L, r);
      int32_t body = crossThread(L, kn, rs, acc, L->attachedBuf[r], pos, raxis, unrollStep(L, r));
      if (perPosition && last % threads)
         body = Ir_if(L->ln, Ir_binary(L->ln, EXPR_LT, raxis[n - 1], num(L, last)), body);
      if (vpos >= 0)
         body = Ir_for(L->ln, vpos, LOOP_SERIAL, body);
      items[ni++] = body;
      L->attachedIndex[r] = perPosition ? var(L, kn->threadVar) : num(L, 0);
   }
   axis[n - 1] = bind(L, items, &ni, c->axis[n - 1], mad(L, jo, threads, var(L, kn->threadVar)));
   L->resolve = resolveAttached;
   int32_t value = translate(L, c->body, axis);
   L->resolve = NULL;
   int32_t store = Ir_storeAt(L->ln, L->global[k->root], flatten(L, n, axis, c->shape), axis, value);
   items[ni++] = last % threads ? Ir_if(L->ln, Ir_binary(L->ln, EXPR_LT, axis[n - 1], num(L, last)), store)
                                : store;
   kn->body = Ir_seq(L->ln, items, ni);
}

/* ---- the state ---- */

static void finishKernel(LoopNest *ln, int k) {
   IrKernel *kn = &ln->kernels[k];
   kn->nparams = 0;
   for (int b = 0; b < ln->nbuffers; b++)
      if ((ln->touched >> b) & 1) {
         if (kn->nparams == IR_MAX_PARAMS)
            fatal("kernel %s has more than %d buffers", kn->name, IR_MAX_PARAMS);
         kn->params[kn->nparams++] = b;
      }
   kn->sharedBytes = 0;
   for (int b = 0; b < ln->nbuffers; b++)
      if (ln->buffers[b].scope == SCOPE_SHARED && ln->buffers[b].kernel == k)
         kn->sharedBytes = Sketch_sharedAfter(kn->sharedBytes, Ir_elemBytes(&ln->buffers[b]) * ln->buffers[b].elems);
   /* a cross-thread reduction over more than a warp (or a width that is not a power
    * of two) combines through one float of shared memory per thread */
   if (ln->allreduce && !Sketch_reduceWithShuffles(kn->block))
      kn->sharedBytes += 4 * kn->block;
}

void Lower_state(const SketchSet *set, const State *s, LoopNest *ln) {
   LoopNest_reset(ln);
   Lower L;
   memset(&L, 0, sizeof L);
   L.ln = ln;
   L.set = set;
   L.g = &set->dag;
   L.sk = &set->sketches[s->sketch];
   L.st = s;
   const Dag *g = L.g;
   for (int i = 0; i < TE_MAX_STAGES; i++)
      L.global[i] = -1;
   for (int i = 0; i < g->nstages; i++) {
      const Stage *st = &g->stages[i];
      if (st->kind != STAGE_PLACEHOLDER && L.sk->plan[i] != STAGE_PLAN_ROOT)
         continue;
      L.global[i] = Ir_buffer(ln, st->name, SCOPE_GLOBAL, i, -1, st->ndim, st->shape);
      ln->buffers[L.global[i]].input = st->kind == STAGE_PLACEHOLDER;
      ln->buffers[L.global[i]].output = i == Dag_output(g);
   }
   for (int ki = 0; ki < L.sk->nkernels; ki++) {
      L.kernel = ki;
      for (int i = 0; i < TE_MAX_STAGES; i++)
         L.cacheBuf[i] = L.attachedBuf[i] = -1;
      const KernelPlan *k = &L.sk->kernels[ki];
      switch (k->kind) {
      case KERNEL_MLT: lowerMlt(&L, ki); break;
      case KERNEL_TC: lowerTc(&L, ki); break;
      case KERNEL_SIMPLE: lowerSimple(&L, ki); break;
      case KERNEL_CTR:
         if (k->nattached == 0)
            lowerCtrRoot(&L, ki);
         else
            lowerCtrConsumer(&L, ki);
         break;
      }
      finishKernel(ln, ln->nkernels - 1);
   }
}

void Lower_reference(const SketchSet *set, LoopNest *ln) {
   LoopNest_reset(ln);
   Lower L;
   memset(&L, 0, sizeof L);
   L.ln = ln;
   L.set = set;
   L.g = &set->dag;
   const Dag *g = L.g;
   /* elementwise stages the sketches inline stay inlined; every other stage is a root */
   Sketch plan;
   memset(&plan, 0, sizeof plan);
   for (int i = 0; i < g->nstages; i++) {
      const Stage *st = &g->stages[i];
      plan.plan[i] = st->kind == STAGE_PLACEHOLDER ? STAGE_PLAN_PLACEHOLDER
                     : set->sketches[0].plan[i] == STAGE_PLAN_INLINE && st->nreduce == 0 ? STAGE_PLAN_INLINE
                                                                                          : STAGE_PLAN_ROOT;
   }
   L.sk = &plan;
   for (int i = 0; i < TE_MAX_STAGES; i++)
      L.global[i] = -1;
   for (int i = 0; i < g->nstages; i++) {
      const Stage *st = &g->stages[i];
      if (plan.plan[i] == STAGE_PLAN_INLINE)
         continue;
      L.global[i] = Ir_buffer(ln, st->name, SCOPE_GLOBAL, i, -1, st->ndim, st->shape);
      ln->buffers[L.global[i]].input = st->kind == STAGE_PLACEHOLDER;
      ln->buffers[L.global[i]].output = i == Dag_output(g);
   }
   for (int i = 0; i < g->nstages; i++) {
      if (plan.plan[i] != STAGE_PLAN_ROOT)
         continue;
      int64_t space = Sketch_spaceLength(g, i);
      simpleKernel(&L, i, space < LOWER_REFERENCE_THREADS ? space : LOWER_REFERENCE_THREADS, 0);
      finishKernel(ln, ln->nkernels - 1);
   }
}

int Lower_globalBuffer(const LoopNest *ln, int stage) {
   for (int b = 0; b < ln->nbuffers; b++)
      if (ln->buffers[b].scope == SCOPE_GLOBAL && ln->buffers[b].stage == stage)
         return b;
   return -1;
}
