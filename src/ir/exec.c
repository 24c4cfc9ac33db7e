/* Executing loop nests on the CPU. Each expression node is evaluated for all threads of
 * the block at once under a mask of active threads; a select evaluates each branch only
 * for the threads that take it, so guarded loads never run where the guard is false. */
#include "config.h"

#include "ir/exec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sketch.h"
#include "util/xalloc.h"

struct Exec_ {
   const LoopNest *ln;
   const IrKernel *kn;
   int64_t threads;
   int64_t block;
   float *const *globals;
   uint8_t *written;
   int outBuf;
   int64_t *vals;                 /* nvars x threads: per-thread values of LET variables */
   int64_t *scalar;               /* nvars: loop variables, and LET values all threads share */
   uint8_t *uniform;              /* nvars: whether scalar[] holds the variable */
   int64_t *tid;                  /* 0 .. threads-1 */
   float *mem[IR_MAX_BUFFERS];    /* shared: elems; local: threads x elems */
   char *arena;                   /* per-statement temporaries */
   size_t arenaSize, arenaUsed;
   char **cause;
   bool failed;
};

Exec *Exec_new(const LoopNest *ln) {
   Exec *x = xCalloc(1, sizeof *x);
   x->ln = ln;
   return x;
}

void Exec_free(Exec *x) {
   if (!x)
      return;
   for (int b = 0; b < IR_MAX_BUFFERS; b++)
      free(x->mem[b]);
   free(x->vals);
   free(x->scalar);
   free(x->uniform);
   free(x->tid);
   free(x->arena);
   free(x);
}

static void *tmp(Exec *x, size_t bytes) {
   bytes = (bytes + 15) & ~(size_t)15;
   if (x->arenaUsed + bytes > x->arenaSize)
      fatal("executor: expression temporaries exceed %zu bytes", x->arenaSize);
   void *p = x->arena + x->arenaUsed;
   x->arenaUsed += bytes;
   return p;
}

static void error(Exec *x, const char *what, int buffer, int64_t t, int64_t index) {
   if (x->failed)
      return;
   x->failed = true;
   const IrBuffer *b = &x->ln->buffers[buffer];
   setCause(x->cause, "kernel %s, block %lld, thread %lld: %s %s[%lld] outside 0..%lld", x->kn->name,
            (long long)x->block, (long long)t, what, b->name, (long long)index, (long long)b->elems - 1);
}

static float *cell(Exec *x, int buffer, int64_t t, int64_t index, const char *what) {
   const IrBuffer *b = &x->ln->buffers[buffer];
   if (index < 0 || index >= b->elems) {
      error(x, what, buffer, t, index);
      return NULL;
   }
   switch (b->scope) {
   case SCOPE_GLOBAL: return &x->globals[buffer][index];
   case SCOPE_SHARED: return &x->mem[buffer][index];
   default: return &x->mem[buffer][t * b->elems + index];
   }
}

/* An integer value of the block: one number every thread shares (most index
 * arithmetic: constants, loop variables, block coordinates), or one per thread. */
typedef struct {
   const int64_t *lane;           /* NULL when uniform */
   int64_t one;
} IVal;

static inline int64_t at(IVal v, int64_t t) {
   return v.lane ? v.lane[t] : v.one;
}

static IVal evalI(Exec *x, int32_t e, const uint8_t *mask);
static float *evalF(Exec *x, int32_t e, const uint8_t *mask);

static uint8_t *subMask(Exec *x, const uint8_t *mask, IVal cond, bool want) {
   uint8_t *m = tmp(x, (size_t)x->threads);
   for (int64_t t = 0; t < x->threads; t++)
      m[t] = mask[t] && ((at(cond, t) != 0) == want);
   return m;
}

static int64_t intOp(ExprKind k, int64_t p, int64_t q) {
   switch (k) {
   case EXPR_ADD: return p + q;
   case EXPR_SUB: return p - q;
   case EXPR_MUL: return p * q;
   case EXPR_FLOORDIV: return q ? Expr_floorDiv(p, q) : 0;
   case EXPR_FLOORMOD: return q ? Expr_floorMod(p, q) : 0;
   case EXPR_MIN: return p < q ? p : q;
   case EXPR_MAX: return p > q ? p : q;
   case EXPR_LT: return p < q;
   case EXPR_LE: return p <= q;
   case EXPR_GE: return p >= q;
   case EXPR_GT: return p > q;
   case EXPR_EQ: return p == q;
   case EXPR_AND: return p && q;
   default: fatal("executor: expression kind %d in an integer context", k);
   }
}

static IVal uniformValue(int64_t v) {
   return (IVal){ NULL, v };
}

static IVal evalI(Exec *x, int32_t e, const uint8_t *mask) {
   const Expr *ex = &x->ln->expr[e];
   int64_t T = x->threads;
   switch ((ExprKind)ex->kind) {
   case EXPR_INT:
      return uniformValue(ex->v.i);
   case EXPR_AXIS: {
      const IrVar *v = &x->ln->vars[ex->ref];
      if (v->kind == VAR_BLOCK)
         return uniformValue(x->block);
      if (v->kind == VAR_THREAD)
         return (IVal){ x->tid, 0 };
      if (x->uniform[ex->ref])
         return uniformValue(x->scalar[ex->ref]);
      return (IVal){ &x->vals[ex->ref * T], 0 };
   }
   case EXPR_SELECT:
   case EXPR_AND: {
      IVal c = evalI(x, ex->args[0], mask);
      if (!c.lane) {
         if (ex->kind == EXPR_AND)
            return c.one ? evalI(x, ex->args[1], mask) : uniformValue(0);
         return evalI(x, ex->args[c.one ? 1 : 2], mask);
      }
      int64_t *r = tmp(x, (size_t)T * sizeof *r);
      IVal a = evalI(x, ex->args[1], subMask(x, mask, c, true));
      if (ex->kind == EXPR_AND) {
         for (int64_t t = 0; t < T; t++)
            r[t] = c.lane[t] && at(a, t);
         return (IVal){ r, 0 };
      }
      IVal b = evalI(x, ex->args[2], subMask(x, mask, c, false));
      for (int64_t t = 0; t < T; t++)
         r[t] = c.lane[t] ? at(a, t) : at(b, t);
      return (IVal){ r, 0 };
   }
   default:
      break;
   }
   ExprKind k = (ExprKind)ex->kind;
   int64_t *r = tmp(x, (size_t)T * sizeof *r);
   if (x->ln->expr[ex->args[0]].dtype == TE_FLOAT32) {
      /* a comparison of floats */
      float *a = evalF(x, ex->args[0], mask), *b = evalF(x, ex->args[1], mask);
      for (int64_t t = 0; t < T; t++) {
         switch (k) {
         case EXPR_LT: r[t] = a[t] < b[t]; break;
         case EXPR_LE: r[t] = a[t] <= b[t]; break;
         case EXPR_GE: r[t] = a[t] >= b[t]; break;
         case EXPR_GT: r[t] = a[t] > b[t]; break;
         case EXPR_EQ: r[t] = a[t] == b[t]; break;
         default: fatal("executor: float expression %d in an integer context", k);
         }
      }
      return (IVal){ r, 0 };
   }
   IVal a = evalI(x, ex->args[0], mask), b = evalI(x, ex->args[1], mask);
   if (!a.lane && !b.lane)
      return uniformValue(intOp(k, a.one, b.one));
   /* arithmetic has no effects, so inactive lanes are computed too: the loops stay
    * branch-free; only division needs care, and its divisor is a constant */
   const int64_t *pa = a.lane, *pb = b.lane;
   int64_t *sa = NULL, *sb = NULL;
   if (!pa) {
      sa = tmp(x, (size_t)T * sizeof *sa);
      for (int64_t t = 0; t < T; t++)
         sa[t] = a.one;
      pa = sa;
   }
   if (!pb) {
      sb = tmp(x, (size_t)T * sizeof *sb);
      for (int64_t t = 0; t < T; t++)
         sb[t] = b.one;
      pb = sb;
   }
   switch (k) {
   case EXPR_ADD: for (int64_t t = 0; t < T; t++) r[t] = pa[t] + pb[t]; break;
   case EXPR_SUB: for (int64_t t = 0; t < T; t++) r[t] = pa[t] - pb[t]; break;
   case EXPR_MUL: for (int64_t t = 0; t < T; t++) r[t] = pa[t] * pb[t]; break;
   case EXPR_LT: for (int64_t t = 0; t < T; t++) r[t] = pa[t] < pb[t]; break;
   case EXPR_GE: for (int64_t t = 0; t < T; t++) r[t] = pa[t] >= pb[t]; break;
   default:
      for (int64_t t = 0; t < T; t++)
         r[t] = mask[t] ? intOp(k, pa[t], pb[t]) : 0;
      break;
   }
   return (IVal){ r, 0 };
}

static float *evalF(Exec *x, int32_t e, const uint8_t *mask) {
   const Expr *ex = &x->ln->expr[e];
   int64_t T = x->threads;
   float *r = tmp(x, (size_t)T * sizeof *r);
   switch ((ExprKind)ex->kind) {
   case EXPR_FLOAT:
      for (int64_t t = 0; t < T; t++)
         r[t] = (float)ex->v.f;
      return r;
   case EXPR_LOAD: {
      IVal idx = evalI(x, ex->args[0], mask);
      for (int64_t t = 0; t < T; t++) {
         r[t] = 0.0f;
         if (!mask[t])
            continue;
         float *c = cell(x, ex->ref, t, at(idx, t), "load of");
         if (c)
            r[t] = *c;
      }
      return r;
   }
   case EXPR_SELECT: {
      IVal c = evalI(x, ex->args[0], mask);
      if (!c.lane)
         return evalF(x, ex->args[c.one ? 1 : 2], mask);
      float *a = evalF(x, ex->args[1], subMask(x, mask, c, true));
      float *b = evalF(x, ex->args[2], subMask(x, mask, c, false));
      for (int64_t t = 0; t < T; t++)
         r[t] = c.lane[t] ? a[t] : b[t];
      return r;
   }
   case EXPR_CAST: {
      IVal a = evalI(x, ex->args[0], mask);
      for (int64_t t = 0; t < T; t++)
         r[t] = (float)at(a, t);
      return r;
   }
   case EXPR_EXP:
   case EXPR_ERF:
   case EXPR_SQRT:
   case EXPR_RSQRT:
   case EXPR_TANH:
   case EXPR_SIGMOID: {
      float *a = evalF(x, ex->args[0], mask);
      for (int64_t t = 0; t < T; t++) {
         switch ((ExprKind)ex->kind) {
         case EXPR_EXP: r[t] = expf(a[t]); break;
         case EXPR_ERF: r[t] = erff(a[t]); break;
         case EXPR_SQRT: r[t] = sqrtf(a[t]); break;
         case EXPR_RSQRT: r[t] = 1.0f / sqrtf(a[t]); break;
         case EXPR_SIGMOID: r[t] = Expr_sigmoid(a[t]); break;
         default: r[t] = tanhf(a[t]); break;
         }
      }
      return r;
   }
   default:
      break;
   }
   float *a = evalF(x, ex->args[0], mask), *b = evalF(x, ex->args[1], mask);
   for (int64_t t = 0; t < T; t++) {
      switch ((ExprKind)ex->kind) {
      case EXPR_ADD: r[t] = a[t] + b[t]; break;
      case EXPR_SUB: r[t] = a[t] - b[t]; break;
      case EXPR_MUL: r[t] = a[t] * b[t]; break;
      case EXPR_DIV: r[t] = a[t] / b[t]; break;
      case EXPR_MIN: r[t] = fminf(a[t], b[t]); break;
      case EXPR_MAX: r[t] = fmaxf(a[t], b[t]); break;
      default: fatal("executor: expression kind %d in a float context", ex->kind);
      }
   }
   return r;
}

/* Whether an integer value is the same for the 32 threads of the warp starting at w. */
static bool warpUniform(IVal v, int64_t w) {
   for (int64_t t = w; t < w + SKETCH_WARP_SIZE && v.lane; t++)
      if (v.lane[t] != v.lane[w])
         return false;
   return true;
}

/* Each warp's matrix multiply-accumulate, as Ir_mma defines it: the operands rounded to
 * the precision, every product added in FP32 in k order. */
static void mma(Exec *x, const IrStmt *st, const uint8_t *mask) {
   int64_t T = x->threads;
   Precision p = (Precision)st->precision;
   int depth = Precision_mmaDepth(p);
   IVal acc = evalI(x, st->index, mask);
   IVal ai = evalI(x, st->operandIndex[0], mask), bi = evalI(x, st->operandIndex[1], mask);
   if (T % SKETCH_WARP_SIZE) {
      x->failed = true;
      setCause(x->cause, "kernel %s: an mma in a block of %lld threads, not whole warps", x->kn->name, (long long)T);
      return;
   }
   for (int64_t w = 0; w < T && !x->failed; w += SKETCH_WARP_SIZE) {
      int active = 0;
      for (int64_t t = w; t < w + SKETCH_WARP_SIZE; t++)
         active += mask[t] != 0;
      if (active == 0)
         continue;
      if (active != SKETCH_WARP_SIZE || !warpUniform(acc, w) || !warpUniform(ai, w) || !warpUniform(bi, w)) {
         x->failed = true;
         setCause(x->cause, "kernel %s, block %lld: the threads of warp %lld do not run an mma together on the same fragment",
                  x->kn->name, (long long)x->block, (long long)(w / SKETCH_WARP_SIZE));
         return;
      }
      int64_t a0 = at(ai, w), b0 = at(bi, w), c0 = at(acc, w);
      for (int r = 0; r < 16 && !x->failed; r++)
         for (int c = 0; c < 8 && !x->failed; c++) {
            float *d = cell(x, st->buffer, w + 4 * (r % 8) + c / 2, c0 + 2 * (r / 8) + c % 2, "mma into");
            if (!d)
               return;
            float sum = *d;
            for (int q = 0; q < depth; q++) {
               float *pa = cell(x, st->operand[0], w, a0 + (int64_t)r * st->ld[0] + q, "mma operand");
               float *pb = cell(x, st->operand[1], w, b0 + (int64_t)c * st->ld[1] + q, "mma operand");
               if (!pa || !pb)
                  return;
               sum += Precision_round(p, *pa) * Precision_round(p, *pb);
            }
            *d = sum;
         }
   }
}

static void exec(Exec *x, int32_t s, const uint8_t *mask) {
   if (x->failed)
      return;
   const IrStmt *st = &x->ln->stmt[s];
   int64_t T = x->threads;
   size_t mark = x->arenaUsed;
   switch ((StmtKind)st->kind) {
   case STMT_SEQ:
      for (int i = 0; i < st->count && !x->failed; i++)
         exec(x, x->ln->list[st->first + i], mask);
      break;
   case STMT_FOR:
      /* every thread runs the same iterations: the variable is one number */
      x->uniform[st->var] = 1;
      for (int64_t i = 0; i < st->extent && !x->failed; i++) {
         x->scalar[st->var] = i;
         exec(x, st->body, mask);
      }
      break;
   case STMT_LET: {
      IVal v = evalI(x, st->value, mask);
      x->uniform[st->var] = v.lane == NULL;
      if (v.lane) {
         for (int64_t t = 0; t < T; t++)
            if (mask[t])
               x->vals[st->var * T + t] = v.lane[t];
      } else {
         x->scalar[st->var] = v.one;
      }
      break;
   }
   case STMT_STORE: {
      IVal idx = evalI(x, st->index, mask);
      float *v = evalF(x, st->value, mask);
      /* a 16-bit buffer holds its elements rounded to its precision */
      Precision rounding = (Precision)x->ln->buffers[st->buffer].precision;
      for (int64_t t = 0; t < T && !x->failed; t++) {
         if (!mask[t])
            continue;
         int64_t i = at(idx, t);
         float *c = cell(x, st->buffer, t, i, "store to");
         if (!c)
            break;
         *c = rounding ? Precision_round(rounding, v[t]) : v[t];
         if (x->written && st->buffer == x->outBuf)
            x->written[i] = 1;
      }
      break;
   }
   case STMT_IF: {
      IVal c = evalI(x, st->value, mask);
      if (!c.lane) {
         if (c.one)
            exec(x, st->body, mask);
         break;
      }
      uint8_t *m = subMask(x, mask, c, true);
      /* the mask must outlive the body's own temporaries */
      exec(x, st->body, m);
      break;
   }
   case STMT_BARRIER:
      /* in lockstep every thread has finished the statements before it already */
      break;
   case STMT_MMA:
      mma(x, st, mask);
      break;
   case STMT_ALLREDUCE: {
      int64_t active = 0;
      for (int64_t t = 0; t < T; t++)
         active += mask[t];
      if (active == 0)
         break;
      for (int64_t t = 0; t < T; t++)
         if (!mask[t]) {
            x->failed = true;
            setCause(x->cause, "kernel %s: a cross-thread reduction runs under a condition that splits the block",
                     x->kn->name);
            return;
         }
      float *v = evalF(x, st->value, mask);
      IVal idx = evalI(x, st->index, mask);
      float acc = st->reduce == REDUCE_MAX ? -INFINITY : 0.0f;
      for (int64_t t = 0; t < T; t++)
         acc = st->reduce == REDUCE_MAX ? fmaxf(acc, v[t]) : acc + v[t];
      for (int64_t t = 0; t < T; t++) {
         float *c = cell(x, st->buffer, t, at(idx, t), "store to");
         if (!c)
            break;
         *c = acc;
      }
      break;
   }
   }
   x->arenaUsed = mark;
}

int Exec_run(Exec *x, int k, float *const *globals, const int64_t *blocks, int64_t nblocks,
             uint8_t *written, char **cause) {
   const LoopNest *ln = x->ln;
   const IrKernel *kn = &ln->kernels[k];
   x->kn = kn;
   x->threads = kn->block;
   x->globals = globals;
   x->written = written;
   x->cause = cause;
   x->failed = false;
   x->outBuf = -1;
   for (int b = 0; b < ln->nbuffers; b++)
      if (ln->buffers[b].output)
         x->outBuf = b;
   free(x->vals);
   free(x->scalar);
   free(x->uniform);
   free(x->tid);
   x->vals = xCalloc((size_t)ln->nvars * (size_t)x->threads, sizeof *x->vals);
   x->scalar = xCalloc((size_t)ln->nvars, sizeof *x->scalar);
   x->uniform = xCalloc((size_t)ln->nvars, sizeof *x->uniform);
   x->tid = xMalloc((size_t)x->threads * sizeof *x->tid);
   for (int64_t t = 0; t < x->threads; t++)
      x->tid[t] = t;
   for (int b = 0; b < ln->nbuffers; b++) {
      const IrBuffer *bf = &ln->buffers[b];
      free(x->mem[b]);
      x->mem[b] = NULL;
      if (bf->kernel != k)
         continue;
      size_t n = (size_t)bf->elems * (bf->scope == SCOPE_LOCAL ? (size_t)x->threads : 1);
      x->mem[b] = xCalloc(n, sizeof(float));
   }
   size_t want = (size_t)x->threads * 8 * 4096;
   if (x->arenaSize < want) {
      free(x->arena);
      x->arena = xMalloc(want);
      x->arenaSize = want;
   }
   uint8_t *all = xMalloc((size_t)x->threads);
   memset(all, 1, (size_t)x->threads);
   int64_t n = blocks ? nblocks : kn->grid;
   for (int64_t i = 0; i < n && !x->failed; i++) {
      x->block = blocks ? blocks[i] : i;
      if (x->block < 0 || x->block >= kn->grid)
         fatal("executor: block %lld of a grid of %lld", (long long)x->block, (long long)kn->grid);
      x->arenaUsed = 0;
      exec(x, kn->body, all);
   }
   free(all);
   return x->failed ? -1 : 0;
}

void Exec_bindGlobals(const LoopNest *ln, float *const *inputs, float **globals) {
   int in = 0;
   for (int b = 0; b < IR_MAX_BUFFERS; b++)
      globals[b] = NULL;
   for (int b = 0; b < ln->nbuffers; b++) {
      const IrBuffer *bf = &ln->buffers[b];
      if (bf->scope != SCOPE_GLOBAL)
         continue;
      globals[b] = bf->input ? inputs[in++] : xCalloc((size_t)bf->elems, sizeof(float));
   }
}

void Exec_releaseGlobals(const LoopNest *ln, float **globals) {
   for (int b = 0; b < ln->nbuffers; b++)
      if (ln->buffers[b].scope == SCOPE_GLOBAL && !ln->buffers[b].input) {
         free(globals[b]);
         globals[b] = NULL;
      }
}
