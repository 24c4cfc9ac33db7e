/* Loop nests: construction in reusable arrays, and readable text. */
#include "config.h"

#include "ir/loopnest.h"

#include <stdlib.h>
#include <string.h>

#include "util/textbuf.h"
#include "util/xalloc.h"

void LoopNest_init(LoopNest *ln) {
   memset(ln, 0, sizeof *ln);
}

void LoopNest_reset(LoopNest *ln) {
   ln->nexpr = ln->nstmt = ln->nlist = 0;
   ln->nvars = ln->nbuffers = ln->nkernels = 0;
   ln->ndims = 0;
   memset(ln->smallInt, 0, sizeof ln->smallInt);
}

void LoopNest_done(LoopNest *ln) {
   free(ln->expr);
   free(ln->stmt);
   free(ln->list);
   free(ln->dims);
   memset(ln, 0, sizeof *ln);
}

#define GROW(arr, n, cap)                                                   \
   do {                                                                     \
      if ((n) == (cap)) {                                                   \
         (cap) = (cap) ? 2 * (cap) : 256;                                   \
         (arr) = xReallocArray((arr), (size_t)(cap), sizeof *(arr));        \
      }                                                                     \
   } while (0)

/* Lowering names thousands of variables per round: a copy, cut to fit, not snprintf. */
static void copyName(char *dst, size_t size, const char *name) {
   size_t n = strnlen(name, size - 1);
   memcpy(dst, name, n);
   dst[n] = '\0';
}

int Ir_var(LoopNest *ln, VarKind kind, const char *name, int64_t extent) {
   if (ln->nvars == IR_MAX_VARS)
      fatal("loop nest has more than %d variables", IR_MAX_VARS);
   IrVar *v = &ln->vars[ln->nvars];
   v->kind = kind;
   copyName(v->name, sizeof v->name, name);
   v->extent = extent;
   v->value = -1;
   v->ref = -1;
   return ln->nvars++;
}

int Ir_buffer(LoopNest *ln, const char *name, BufferScope scope, int stage, int kernel, int ndim,
              const int64_t *shape) {
   if (ln->nbuffers == IR_MAX_BUFFERS)
      fatal("loop nest has more than %d buffers", IR_MAX_BUFFERS);
   IrBuffer *b = &ln->buffers[ln->nbuffers];
   memset(b, 0, sizeof *b);
   copyName(b->name, sizeof b->name, name);
   b->scope = scope;
   b->stage = stage;
   b->kernel = kernel;
   b->ndim = ndim;
   b->elems = 1;
   for (int i = 0; i < ndim; i++) {
      b->shape[i] = shape[i];
      b->elems *= shape[i];
   }
   return ln->nbuffers++;
}

/* Global buffers accessed since the last Ir_kernelBegin: the kernel's parameters. */
static inline void touch(LoopNest *ln, int buffer) {
   if (ln->buffers[buffer].scope == SCOPE_GLOBAL)
      ln->touched |= UINT64_C(1) << buffer;
}

void Ir_kernelBegin(LoopNest *ln) {
   ln->touched = 0;
   ln->allreduce = false;
}

IrKernel *Ir_kernel(LoopNest *ln, const char *name, int root, int64_t grid, int64_t block) {
   if (ln->nkernels == IR_MAX_KERNELS)
      fatal("loop nest has more than %d kernels", IR_MAX_KERNELS);
   IrKernel *kn = &ln->kernels[ln->nkernels++];
   memset(kn, 0, sizeof *kn);
   copyName(kn->name, sizeof kn->name, name);
   kn->root = root;
   kn->grid = grid;
   kn->block = block;
   kn->vthreads = 1;
   kn->gatherSpan = 1;
   Ir_kernelBegin(ln);
   kn->blockVar = Ir_var(ln, VAR_BLOCK, "blockIdx.x", grid);
   kn->threadVar = Ir_var(ln, VAR_THREAD, "threadIdx.x", block);
   return kn;
}

static int32_t push(LoopNest *ln, Expr e) {
   GROW(ln->expr, ln->nexpr, ln->capexpr);
   ln->expr[ln->nexpr] = e;
   return ln->nexpr++;
}

int32_t Ir_int(LoopNest *ln, int64_t v) {
   /* expressions are never changed once made, so one node serves every use of a small
    * constant (lowering makes hundreds per state) */
   if (v >= 0 && v < IR_SMALL_INTS) {
      if (ln->smallInt[v] == 0)
         ln->smallInt[v] = push(ln, (Expr){ .kind = EXPR_INT, .dtype = TE_INT32, .v.i = v }) + 1;
      return ln->smallInt[v] - 1;
   }
   return push(ln, (Expr){ .kind = EXPR_INT, .dtype = TE_INT32, .v.i = v });
}

int32_t Ir_float(LoopNest *ln, double v) {
   return push(ln, (Expr){ .kind = EXPR_FLOAT, .dtype = TE_FLOAT32, .v.f = v });
}

int32_t Ir_varRef(LoopNest *ln, int var) {
   IrVar *v = &ln->vars[var];
   if (v->ref < 0)
      v->ref = push(ln, (Expr){ .kind = EXPR_AXIS, .dtype = TE_INT32, .ref = var });
   return v->ref;
}

int32_t Ir_load(LoopNest *ln, int buffer, int32_t index) {
   touch(ln, buffer);
   return push(ln, (Expr){ .kind = EXPR_LOAD, .dtype = TE_FLOAT32, .ref = buffer, .nargs = 1,
                           .v.i = -1, .args = { index } });
}

static int32_t pushDims(LoopNest *ln, int buffer, const int32_t *dims) {
   int n = ln->buffers[buffer].ndim;
   if (n <= 1)
      return -1;
   int32_t at = ln->ndims;
   for (int i = 0; i < n; i++) {
      GROW(ln->dims, ln->ndims, ln->capdims);
      ln->dims[ln->ndims++] = dims[i];
   }
   return at;
}

int32_t Ir_loadAt(LoopNest *ln, int buffer, int32_t index, const int32_t *dims) {
   touch(ln, buffer);
   int32_t at = pushDims(ln, buffer, dims);
   return push(ln, (Expr){ .kind = EXPR_LOAD, .dtype = TE_FLOAT32, .ref = buffer, .nargs = 1,
                           .v.i = at, .args = { index } });
}

bool Ir_isInt(const LoopNest *ln, int32_t e, int64_t v) {
   return ln->expr[e].kind == EXPR_INT && ln->expr[e].v.i == v;
}

int32_t Ir_binary(LoopNest *ln, ExprKind kind, int32_t a, int32_t b) {
   uint8_t ta = ln->expr[a].dtype;
   if (ta != ln->expr[b].dtype)
      fatal("loop nest: binary expression mixes types");
   const Expr *x = &ln->expr[a], *y = &ln->expr[b];
   if (ta == TE_INT32 && (x->kind == EXPR_INT || y->kind == EXPR_INT)) {
      int64_t v;
      switch (Expr_foldInt(kind, x->kind == EXPR_INT, x->v.i, y->kind == EXPR_INT, y->v.i, &v)) {
      case FOLD_CONST: return Ir_int(ln, v);
      case FOLD_A: return a;
      case FOLD_B: return b;
      case FOLD_NONE: break;
      }
   }
   Expr e = { .kind = (uint8_t)kind, .nargs = 2, .args = { a, b } };
   e.dtype = kind >= EXPR_LT && kind <= EXPR_AND ? TE_BOOL : ta;
   return push(ln, e);
}

int32_t Ir_select(LoopNest *ln, int32_t cond, int32_t t, int32_t f) {
   return push(ln, (Expr){ .kind = EXPR_SELECT, .dtype = ln->expr[t].dtype, .nargs = 3,
                           .args = { cond, t, f } });
}

int32_t Ir_unary(LoopNest *ln, ExprKind kind, int32_t a) {
   return push(ln, (Expr){ .kind = (uint8_t)kind, .dtype = TE_FLOAT32, .nargs = 1, .args = { a } });
}

static int32_t pushStmt(LoopNest *ln, IrStmt s) {
   GROW(ln->stmt, ln->nstmt, ln->capstmt);
   ln->stmt[ln->nstmt] = s;
   return ln->nstmt++;
}

int32_t Ir_seq(LoopNest *ln, const int32_t *items, int n) {
   if (n == 1)
      return items[0];
   IrStmt s = { .kind = STMT_SEQ, .first = ln->nlist, .count = n };
   for (int i = 0; i < n; i++) {
      GROW(ln->list, ln->nlist, ln->caplist);
      ln->list[ln->nlist++] = items[i];
   }
   return pushStmt(ln, s);
}

int32_t Ir_for(LoopNest *ln, int var, LoopKind loop, int32_t body) {
   return pushStmt(ln, (IrStmt){ .kind = STMT_FOR, .loop = (uint8_t)loop, .var = var,
                                 .extent = ln->vars[var].extent, .body = body });
}

int32_t Ir_let(LoopNest *ln, int var, int32_t value) {
   ln->vars[var].value = value;
   return pushStmt(ln, (IrStmt){ .kind = STMT_LET, .var = var, .value = value });
}

int32_t Ir_store(LoopNest *ln, int buffer, int32_t index, int32_t value) {
   touch(ln, buffer);
   return pushStmt(ln, (IrStmt){ .kind = STMT_STORE, .buffer = buffer, .index = index, .dims = -1,
                                 .value = value });
}

int32_t Ir_storeAt(LoopNest *ln, int buffer, int32_t index, const int32_t *dims, int32_t value) {
   touch(ln, buffer);
   int32_t at = pushDims(ln, buffer, dims);
   return pushStmt(ln, (IrStmt){ .kind = STMT_STORE, .buffer = buffer, .index = index, .dims = at,
                                 .value = value });
}

int32_t Ir_vthreadSeq(LoopNest *ln, const int32_t *copies, int n) {
   if (n == 1)
      return copies[0];
   int32_t s = Ir_seq(ln, copies, n);
   ln->stmt[s].vthread = 1;
   return s;
}

int32_t Ir_if(LoopNest *ln, int32_t cond, int32_t body) {
   return pushStmt(ln, (IrStmt){ .kind = STMT_IF, .value = cond, .body = body });
}

int32_t Ir_barrier(LoopNest *ln) {
   return pushStmt(ln, (IrStmt){ .kind = STMT_BARRIER });
}

int32_t Ir_allreduce(LoopNest *ln, ReduceKind op, int buffer, int32_t index, int32_t value) {
   touch(ln, buffer);
   ln->allreduce = true;
   return pushStmt(ln, (IrStmt){ .kind = STMT_ALLREDUCE, .reduce = (uint8_t)op, .buffer = buffer,
                                 .index = index, .value = value });
}

int32_t Ir_copyAsync(LoopNest *ln, int buffer, int32_t index, const int32_t *dims, int32_t value) {
   int32_t s = Ir_storeAt(ln, buffer, index, dims, value);
   ln->stmt[s].async = 1;
   return s;
}

int32_t Ir_prefetch(LoopNest *ln, int buffer, int32_t index, int32_t value) {
   int32_t s = Ir_store(ln, buffer, index, value);
   ln->stmt[s].prefetch = 1;
   return s;
}

int32_t Ir_mma(LoopNest *ln, Precision precision, int acc, int32_t accIndex, int a, int32_t aIndex,
               int64_t lda, int b, int32_t bIndex, int64_t ldb) {
   return pushStmt(ln, (IrStmt){ .kind = STMT_MMA, .precision = (uint8_t)precision, .buffer = acc,
                                 .index = accIndex, .operand = { a, b }, .operandIndex = { aIndex, bIndex },
                                 .ld = { (int32_t)lda, (int32_t)ldb } });
}

/* ---- text ---- */

const char *Ir_scopeName(BufferScope s) {
   return s == SCOPE_GLOBAL ? "global" : s == SCOPE_SHARED ? "shared" : "local";
}

static void leaf(const ExprNamer *n, int32_t e, TextBuf *t) {
   const LoopNest *ln = n->ctx;
   const Expr *x = &ln->expr[e];
   if (x->kind == EXPR_AXIS) {
      const IrVar *v = &ln->vars[x->ref];
      TextBuf_add(t, "%s", v->kind == VAR_BLOCK ? "blockIdx.x" : v->kind == VAR_THREAD ? "threadIdx.x" : v->name);
      return;
   }
   TextBuf_add(t, "%s[", ln->buffers[x->ref].name);
   Expr_formatWith(n, x->args[0], t);
   TextBuf_add(t, "]");
}

size_t LoopNest_formatExpr(const LoopNest *ln, int32_t e, char *buf, size_t size) {
   TextBuf t = TextBuf_over(buf, size);
   ExprNamer n = { ln->expr, ln, leaf };
   Expr_formatWith(&n, e, &t);
   return t.len;
}

static void printExpr(const LoopNest *ln, int32_t e, FILE *out) {
   char small[256];
   size_t need = LoopNest_formatExpr(ln, e, small, sizeof small);
   if (need < sizeof small) {
      fputs(small, out);
      return;
   }
   char *big = xMalloc(need + 1);
   LoopNest_formatExpr(ln, e, big, need + 1);
   fputs(big, out);
   free(big);
}

static void printStmt(const LoopNest *ln, int32_t s, int depth, FILE *out) {
   const IrStmt *st = &ln->stmt[s];
   if (st->kind == STMT_SEQ) {
      for (int i = 0; i < st->count; i++)
         printStmt(ln, ln->list[st->first + i], depth, out);
      return;
   }
   fprintf(out, "%*s", 2 * depth, "");
   switch ((StmtKind)st->kind) {
   case STMT_FOR: {
      static const char *const kinds[] = { "for", "unrolled for", "vectorized for" };
      fprintf(out, "%s %s in 0..%lld:\n", kinds[st->loop], ln->vars[st->var].name, (long long)st->extent);
      printStmt(ln, st->body, depth + 1, out);
      return;
   }
   case STMT_LET:
      fprintf(out, "%s = ", ln->vars[st->var].name);
      printExpr(ln, st->value, out);
      fputc('\n', out);
      return;
   case STMT_STORE:
      fprintf(out, "%s%s[", st->prefetch ? "prefetch " : "", ln->buffers[st->buffer].name);
      printExpr(ln, st->index, out);
      fprintf(out, "] = ");
      printExpr(ln, st->value, out);
      fputc('\n', out);
      return;
   case STMT_IF:
      fprintf(out, "if ");
      printExpr(ln, st->value, out);
      fprintf(out, ":\n");
      printStmt(ln, st->body, depth + 1, out);
      return;
   case STMT_BARRIER:
      fprintf(out, "barrier\n");
      return;
   case STMT_ALLREDUCE:
      fprintf(out, "%s[", ln->buffers[st->buffer].name);
      printExpr(ln, st->index, out);
      fprintf(out, "] = %s over threads of ", st->reduce == REDUCE_MAX ? "max" : "sum");
      printExpr(ln, st->value, out);
      fputc('\n', out);
      return;
   case STMT_MMA:
      fprintf(out, "mma m16n8k%d %s: %s[", Precision_mmaDepth((Precision)st->precision),
              Precision_name((Precision)st->precision),
              ln->buffers[st->buffer].name);
      printExpr(ln, st->index, out);
      for (int i = 0; i < 2; i++) {
         fprintf(out, "] %s %s[", i ? "x" : "+=", ln->buffers[st->operand[i]].name);
         printExpr(ln, st->operandIndex[i], out);
         fprintf(out, " + %s*%d", i ? "col" : "row", (int)st->ld[i]);
      }
      fprintf(out, "]\n");
      return;
   case STMT_SEQ:
      break;
   }
}

void LoopNest_print(const LoopNest *ln, FILE *out) {
   for (int k = 0; k < ln->nkernels; k++) {
      const IrKernel *kn = &ln->kernels[k];
      fprintf(out, "kernel %s: grid %lld, block %lld, shared %lld bytes\n", kn->name,
              (long long)kn->grid, (long long)kn->block, (long long)kn->sharedBytes);
      for (int b = 0; b < ln->nbuffers; b++) {
         const IrBuffer *bf = &ln->buffers[b];
         if (bf->kernel != k)
            continue;
         fprintf(out, "  %s %s[%lld]\n", Ir_scopeName(bf->scope), bf->name,
                 (long long)bf->elems);
      }
      printStmt(ln, kn->body, 1, out);
   }
}
