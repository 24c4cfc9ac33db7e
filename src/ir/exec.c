/* Executing loop nests on the CPU. Each expression node is evaluated for all threads of
 * the block at once under a mask of active threads; a select evaluates each branch only
 * for the threads that take it, so guarded loads never run where the guard is false. */
#include "config.h"

#include "ir/exec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

struct Exec_ {
   const LoopNest *ln;
   const IrKernel *kn;
   int64_t threads;
   int64_t block;
   float *const *globals;
   uint8_t *written;
   int outBuf;
   int64_t *vals;                 /* nvars x threads */
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

static int64_t *evalI(Exec *x, int32_t e, const uint8_t *mask);
static float *evalF(Exec *x, int32_t e, const uint8_t *mask);

static uint8_t *subMask(Exec *x, const uint8_t *mask, const int64_t *cond, bool want) {
   uint8_t *m = tmp(x, (size_t)x->threads);
   for (int64_t t = 0; t < x->threads; t++)
      m[t] = mask[t] && ((cond[t] != 0) == want);
   return m;
}

static int64_t floorDiv(int64_t a, int64_t b) {
   int64_t q = a / b;
   return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t *evalI(Exec *x, int32_t e, const uint8_t *mask) {
   const Expr *ex = &x->ln->expr[e];
   int64_t T = x->threads;
   int64_t *r = tmp(x, (size_t)T * sizeof *r);
   switch ((ExprKind)ex->kind) {
   case EXPR_INT:
      for (int64_t t = 0; t < T; t++)
         r[t] = ex->v.i;
      return r;
   case EXPR_AXIS: {
      const IrVar *v = &x->ln->vars[ex->ref];
      for (int64_t t = 0; t < T; t++)
         r[t] = v->kind == VAR_BLOCK ? x->block : v->kind == VAR_THREAD ? t : x->vals[ex->ref * T + t];
      return r;
   }
   case EXPR_SELECT: {
      int64_t *c = evalI(x, ex->args[0], mask);
      int64_t *a = evalI(x, ex->args[1], subMask(x, mask, c, true));
      int64_t *b = evalI(x, ex->args[2], subMask(x, mask, c, false));
      for (int64_t t = 0; t < T; t++)
         r[t] = c[t] ? a[t] : b[t];
      return r;
   }
   case EXPR_AND: {
      int64_t *a = evalI(x, ex->args[0], mask);
      int64_t *b = evalI(x, ex->args[1], subMask(x, mask, a, true));
      for (int64_t t = 0; t < T; t++)
         r[t] = a[t] && b[t];
      return r;
   }
   default:
      break;
   }
   bool isFloat = x->ln->expr[ex->args[0]].dtype == TE_FLOAT32;
   if (isFloat) {
      /* a comparison of floats */
      float *a = evalF(x, ex->args[0], mask), *b = evalF(x, ex->args[1], mask);
      for (int64_t t = 0; t < T; t++) {
         switch ((ExprKind)ex->kind) {
         case EXPR_LT: r[t] = a[t] < b[t]; break;
         case EXPR_LE: r[t] = a[t] <= b[t]; break;
         case EXPR_GE: r[t] = a[t] >= b[t]; break;
         case EXPR_GT: r[t] = a[t] > b[t]; break;
         case EXPR_EQ: r[t] = a[t] == b[t]; break;
         default: fatal("executor: float expression %d in an integer context", ex->kind);
         }
      }
      return r;
   }
   int64_t *a = evalI(x, ex->args[0], mask), *b = evalI(x, ex->args[1], mask);
   for (int64_t t = 0; t < T; t++) {
      if (!mask[t]) {
         r[t] = 0;
         continue;
      }
      int64_t p = a[t], q = b[t];
      switch ((ExprKind)ex->kind) {
      case EXPR_ADD: r[t] = p + q; break;
      case EXPR_SUB: r[t] = p - q; break;
      case EXPR_MUL: r[t] = p * q; break;
      case EXPR_FLOORDIV: r[t] = q ? floorDiv(p, q) : 0; break;
      case EXPR_FLOORMOD: r[t] = q ? p - floorDiv(p, q) * q : 0; break;
      case EXPR_MIN: r[t] = p < q ? p : q; break;
      case EXPR_MAX: r[t] = p > q ? p : q; break;
      case EXPR_LT: r[t] = p < q; break;
      case EXPR_LE: r[t] = p <= q; break;
      case EXPR_GE: r[t] = p >= q; break;
      case EXPR_GT: r[t] = p > q; break;
      case EXPR_EQ: r[t] = p == q; break;
      default: fatal("executor: expression kind %d in an integer context", ex->kind);
      }
   }
   return r;
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
      int64_t *idx = evalI(x, ex->args[0], mask);
      for (int64_t t = 0; t < T; t++) {
         r[t] = 0.0f;
         if (!mask[t])
            continue;
         float *c = cell(x, ex->ref, t, idx[t], "load of");
         if (c)
            r[t] = *c;
      }
      return r;
   }
   case EXPR_SELECT: {
      int64_t *c = evalI(x, ex->args[0], mask);
      float *a = evalF(x, ex->args[1], subMask(x, mask, c, true));
      float *b = evalF(x, ex->args[2], subMask(x, mask, c, false));
      for (int64_t t = 0; t < T; t++)
         r[t] = c[t] ? a[t] : b[t];
      return r;
   }
   case EXPR_CAST: {
      int64_t *a = evalI(x, ex->args[0], mask);
      for (int64_t t = 0; t < T; t++)
         r[t] = (float)a[t];
      return r;
   }
   case EXPR_EXP:
   case EXPR_ERF:
   case EXPR_SQRT:
   case EXPR_RSQRT:
   case EXPR_TANH: {
      float *a = evalF(x, ex->args[0], mask);
      for (int64_t t = 0; t < T; t++) {
         switch ((ExprKind)ex->kind) {
         case EXPR_EXP: r[t] = expf(a[t]); break;
         case EXPR_ERF: r[t] = erff(a[t]); break;
         case EXPR_SQRT: r[t] = sqrtf(a[t]); break;
         case EXPR_RSQRT: r[t] = 1.0f / sqrtf(a[t]); break;
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
      for (int64_t i = 0; i < st->extent && !x->failed; i++) {
         for (int64_t t = 0; t < T; t++)
            x->vals[st->var * T + t] = i;
         exec(x, st->body, mask);
      }
      break;
   case STMT_LET: {
      int64_t *v = evalI(x, st->value, mask);
      for (int64_t t = 0; t < T; t++)
         if (mask[t])
            x->vals[st->var * T + t] = v[t];
      break;
   }
   case STMT_STORE: {
      int64_t *idx = evalI(x, st->index, mask);
      float *v = evalF(x, st->value, mask);
      for (int64_t t = 0; t < T && !x->failed; t++) {
         if (!mask[t])
            continue;
         float *c = cell(x, st->buffer, t, idx[t], "store to");
         if (!c)
            break;
         *c = v[t];
         if (x->written && st->buffer == x->outBuf)
            x->written[idx[t]] = 1;
      }
      break;
   }
   case STMT_IF: {
      int64_t *c = evalI(x, st->value, mask);
      uint8_t *m = subMask(x, mask, c, true);
      /* the mask must outlive the body's own temporaries */
      exec(x, st->body, m);
      break;
   }
   case STMT_BARRIER:
      /* in lockstep every thread has finished the statements before it already */
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
      int64_t *idx = evalI(x, st->index, mask);
      float acc = st->reduce == REDUCE_MAX ? -INFINITY : 0.0f;
      for (int64_t t = 0; t < T; t++)
         acc = st->reduce == REDUCE_MAX ? fmaxf(acc, v[t]) : acc + v[t];
      for (int64_t t = 0; t < T; t++) {
         float *c = cell(x, st->buffer, t, idx[t], "store to");
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
   x->vals = xCalloc((size_t)ln->nvars * (size_t)x->threads, sizeof *x->vals);
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
