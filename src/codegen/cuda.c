/* Printing loop nests as CUDA C++. Index arithmetic is printed with C's / and %, which
 * equal floor division for the non-negative indices lowering produces; selects stay
 * lazy (?:) so guarded loads are never performed. */
#include "config.h"

#include "codegen/cuda.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sketch.h"
#include "util/xalloc.h"

typedef struct {
   const LoopNest *ln;
   const IrKernel *kn;
   char *buf;
   size_t len, cap;
   int zeroVar;                 /* printed as 0 (a vector's lane 0), or -1 */
   /* the name each loop or let variable is printed with: its own, or with a suffix
    * when a variable of that name is still in scope (a reference program's flat
    * index "i" beside dense's axis "i") */
   char (*names)[IR_NAME_MAX + 8];
   int *live, nlive;            /* the variables in scope, innermost last */
   bool async;                  /* the kernel copies asynchronously: barriers wait for it */
} Gen;

static void out(Gen *g, const char *fmt, ...) ATTR_FORMAT(2, 3);
static void out(Gen *g, const char *fmt, ...) {
   va_list ap;
   for (;;) {
      va_start(ap, fmt);
      int n = vsnprintf(g->buf + g->len, g->cap - g->len, fmt, ap);
      va_end(ap);
      if (n < 0)
         fatal("codegen: bad format");
      if (g->len + (size_t)n < g->cap) {
         g->len += (size_t)n;
         return;
      }
      g->cap = 2 * g->cap + (size_t)n;
      g->buf = xRealloc(g->buf, g->cap);
   }
}

/* Declares variable v in the current scope and returns the name it is printed with. */
static const char *declare(Gen *g, int v) {
   const char *base = g->ln->vars[v].name;
   for (int n = 0;; n++) {
      char *name = g->names[v];
      if (n == 0)
         snprintf(name, sizeof g->names[v], "%s", base);
      else
         snprintf(name, sizeof g->names[v], "%s_%d", base, n);
      bool taken = false;
      for (int i = 0; i < g->nlive && !taken; i++)
         taken = g->live[i] != v && strcmp(g->names[g->live[i]], name) == 0;
      if (!taken)
         break;
   }
   g->live[g->nlive++] = v;
   return g->names[v];
}

static void indent(Gen *g, int depth) {
   out(g, "%*s", 2 * depth, "");
}

/* C precedence levels: higher binds tighter. */
static int prec(const Expr *x) {
   switch ((ExprKind)x->kind) {
   case EXPR_SELECT: return 1;
   case EXPR_AND: return 2;
   case EXPR_EQ: return 3;
   case EXPR_LT: case EXPR_LE: case EXPR_GE: case EXPR_GT: return 4;
   case EXPR_ADD: case EXPR_SUB: return 5;
   case EXPR_MUL: case EXPR_DIV: case EXPR_FLOORDIV: case EXPR_FLOORMOD: return 6;
   case EXPR_INT: return x->v.i < 0 ? 7 : 9;
   case EXPR_FLOAT: return x->v.f < 0 ? 7 : 9;
   default: return 9;
   }
}

static const char *cOp(ExprKind k) {
   switch (k) {
   case EXPR_ADD: return " + ";
   case EXPR_SUB: return " - ";
   case EXPR_MUL: return " * ";
   case EXPR_DIV: return " / ";
   case EXPR_FLOORDIV: return " / ";
   case EXPR_FLOORMOD: return " % ";
   case EXPR_LT: return " < ";
   case EXPR_LE: return " <= ";
   case EXPR_GE: return " >= ";
   case EXPR_GT: return " > ";
   case EXPR_EQ: return " == ";
   case EXPR_AND: return " && ";
   default: return NULL;
   }
}

static void expr(Gen *g, int32_t e);

static void operand(Gen *g, int32_t e, int parentPrec, bool right) {
   const Expr *x = &g->ln->expr[e];
   int p = prec(x);
   bool paren = p < parentPrec || (right && p == parentPrec);
   if (paren)
      out(g, "(");
   expr(g, e);
   if (paren)
      out(g, ")");
}

static void floatLiteral(Gen *g, double v) {
   if (isinf(v)) {
      /* NVRTC compiles without math headers: no INFINITY macro */
      out(g, "__int_as_float(0x%s)", v < 0 ? "ff800000" : "7f800000");
      return;
   }
   char text[48];
   snprintf(text, sizeof text, "%.9g", v);
   bool plain = !strpbrk(text, ".eEn");
   out(g, "%s%sf", text, plain ? ".0" : "");
}

static void expr(Gen *g, int32_t e) {
   const LoopNest *ln = g->ln;
   const Expr *x = &ln->expr[e];
   ExprKind k = (ExprKind)x->kind;
   switch (k) {
   case EXPR_INT:
      out(g, "%lld", (long long)x->v.i);
      return;
   case EXPR_FLOAT:
      floatLiteral(g, x->v.f);
      return;
   case EXPR_AXIS: {
      const IrVar *v = &ln->vars[x->ref];
      if (x->ref == g->zeroVar)
         out(g, "0");
      else if (v->kind == VAR_BLOCK)
         out(g, "(int)blockIdx.x");
      else if (v->kind == VAR_THREAD)
         out(g, "(int)threadIdx.x");
      else
         out(g, "%s", g->names[x->ref][0] ? g->names[x->ref] : v->name);
      return;
   }
   case EXPR_LOAD:
      out(g, "%s[", ln->buffers[x->ref].name);
      expr(g, x->args[0]);
      out(g, "]");
      return;
   case EXPR_SELECT:
      operand(g, x->args[0], 2, false);
      out(g, " ? ");
      operand(g, x->args[1], 2, false);
      out(g, " : ");
      operand(g, x->args[2], 1, false);
      return;
   case EXPR_MIN:
   case EXPR_MAX: {
      bool isFloat = x->dtype == TE_FLOAT32;
      out(g, "%s(", isFloat ? (k == EXPR_MIN ? "fminf" : "fmaxf") : (k == EXPR_MIN ? "min" : "max"));
      expr(g, x->args[0]);
      out(g, ", ");
      expr(g, x->args[1]);
      out(g, ")");
      return;
   }
   case EXPR_CAST:
      out(g, "(float)");
      operand(g, x->args[0], 8, false);
      return;
   case EXPR_EXP:
   case EXPR_ERF:
   case EXPR_SQRT:
   case EXPR_RSQRT:
   case EXPR_TANH: {
      static const char *const names[] = { "expf", "erff", "sqrtf", "rsqrtf", "tanhf" };
      out(g, "%s(", names[k - EXPR_EXP]);
      expr(g, x->args[0]);
      out(g, ")");
      return;
   }
   case EXPR_SIGMOID:
      /* CUDA has no sigmoid; TVM lowers its intrinsic to this */
      out(g, "(1.0f / (1.0f + expf(-");
      operand(g, x->args[0], 8, false);
      out(g, ")))");
      return;
   default:
      break;
   }
   if (k == EXPR_ADD && g->zeroVar >= 0) {
      /* a vector's lane 0: x + lane is x */
      for (int i = 0; i < 2; i++) {
         const Expr *side = &ln->expr[x->args[i]];
         if (side->kind == EXPR_AXIS && side->ref == g->zeroVar) {
            operand(g, x->args[1 - i], 5, false);
            return;
         }
      }
   }
   const char *op = cOp(k);
   if (!op)
      fatal("codegen: expression kind %d", k);
   int p = prec(x);
   operand(g, x->args[0], p, false);
   out(g, "%s", op);
   operand(g, x->args[1], p, true);
}

static void stmt(Gen *g, int32_t s, int depth);

static void allreduce(Gen *g, const IrStmt *st, int depth) {
   const IrBuffer *dst = &g->ln->buffers[st->buffer];
   int64_t T = g->kn->block;
   bool isMax = st->reduce == REDUCE_MAX;
   indent(g, depth);
   out(g, "{  // %s over the block's %lld threads\n", isMax ? "max" : "sum", (long long)T);
   indent(g, depth + 1);
   out(g, "float red = ");
   expr(g, st->value);
   out(g, ";\n");
   if (Sketch_reduceWithShuffles(T)) {
      unsigned mask = T == 32 ? 0xffffffffu : (1u << T) - 1u;
      indent(g, depth + 1);
      out(g, "#pragma unroll\n");
      indent(g, depth + 1);
      out(g, "for (int offset = %lld; offset > 0; offset >>= 1) {\n", (long long)(T / 2));
      indent(g, depth + 2);
      if (isMax)
         out(g, "red = fmaxf(red, __shfl_down_sync(0x%xu, red, offset, %lld));\n", mask, (long long)T);
      else
         out(g, "red += __shfl_down_sync(0x%xu, red, offset, %lld);\n", mask, (long long)T);
      indent(g, depth + 1);
      out(g, "}\n");
      indent(g, depth + 1);
      out(g, "%s[", dst->name);
      expr(g, st->index);
      out(g, "] = __shfl_sync(0x%xu, red, 0, %lld);\n", mask, (long long)T);
   } else {
      indent(g, depth + 1);
      out(g, "red_buf[threadIdx.x] = red;\n");
      indent(g, depth + 1);
      out(g, "__syncthreads();\n");
      indent(g, depth + 1);
      out(g, "for (int stride = 1; stride < %lld; stride <<= 1) {\n", (long long)T);
      indent(g, depth + 2);
      out(g, "if (threadIdx.x %% (2 * stride) == 0 && threadIdx.x + stride < %lld)\n", (long long)T);
      indent(g, depth + 3);
      if (isMax)
         out(g, "red_buf[threadIdx.x] = fmaxf(red_buf[threadIdx.x], red_buf[threadIdx.x + stride]);\n");
      else
         out(g, "red_buf[threadIdx.x] += red_buf[threadIdx.x + stride];\n");
      indent(g, depth + 2);
      out(g, "__syncthreads();\n");
      indent(g, depth + 1);
      out(g, "}\n");
      indent(g, depth + 1);
      out(g, "%s[", dst->name);
      expr(g, st->index);
      out(g, "] = red_buf[0];\n");
      indent(g, depth + 1);
      out(g, "__syncthreads();\n");
   }
   indent(g, depth);
   out(g, "}\n");
}

/* A fetch proven contiguous and aligned: LET i = ...; [if (guard)] shared[i] = X[j]. */
static void vectorFetch(Gen *g, const IrStmt *loop, int depth) {
   const LoopNest *ln = g->ln;
   const IrStmt *seq = &ln->stmt[loop->body];
   int32_t parts[2];
   int n = 0;
   if (seq->kind == STMT_SEQ) {
      for (int i = 0; i < seq->count && n < 2; i++)
         parts[n++] = ln->list[seq->first + i];
   } else {
      parts[n++] = loop->body;
   }
   const IrStmt *store = &ln->stmt[parts[n - 1]];
   int32_t guard = -1;
   if (store->kind == STMT_IF) {
      guard = store->value;
      store = &ln->stmt[store->body];
   }
   const Expr *load = &ln->expr[store->value];
   if (store->kind != STMT_STORE || load->kind != EXPR_LOAD)
      fatal("codegen: a vector loop that is not a fetch");
   const char *type = loop->extent == 4 ? "float4" : "float2";
   g->zeroVar = loop->var;
   indent(g, depth);
   out(g, "{\n");
   if (n == 2)
      stmt(g, parts[0], depth + 1);
   indent(g, depth + 1);
   if (guard >= 0) {
      out(g, "if (");
      expr(g, guard);
      out(g, ")\n");
      indent(g, depth + 2);
   }
   out(g, "*(%s *)(%s + ", type, ln->buffers[store->buffer].name);
   expr(g, store->index);
   out(g, ") = *(const %s *)(%s + ", type, ln->buffers[load->ref].name);
   expr(g, load->args[0]);
   out(g, ");\n");
   indent(g, depth);
   out(g, "}\n");
   g->zeroVar = -1;
}

/* A copy from global to shared memory that may run asynchronously: cp.async with a
 * zero fill where the guard fails (tc_copy_async), a plain copy before sm_80. */
static void copyAsync(Gen *g, const IrStmt *st, int depth) {
   const LoopNest *ln = g->ln;
   const Expr *v = &ln->expr[st->value];
   int32_t guard = -1;
   if (v->kind == EXPR_SELECT) {
      guard = v->args[0];
      v = &ln->expr[v->args[1]];
   }
   if (v->kind != EXPR_LOAD)
      fatal("codegen: an asynchronous copy that is not a load");
   const char *src = ln->buffers[v->ref].name;
   indent(g, depth);
   out(g, "tc_copy_async(&%s[", ln->buffers[st->buffer].name);
   expr(g, st->index);
   out(g, "], ");
   if (guard >= 0) {
      operand(g, guard, 2, false);
      out(g, " ? ");
   }
   out(g, "&%s[", src);
   expr(g, v->args[0]);
   out(g, "]");
   if (guard >= 0) {
      out(g, " : %s, ", src);
      expr(g, guard);
      out(g, ");\n");
   } else {
      out(g, ", true);\n");
   }
}

/* The precision's PTX type: f16, bf16, tf32. */
static const char *ptxType(Precision p) {
   return p == PRECISION_FP16 ? "f16" : Precision_name(p);
}

/* The C type of an element of a shared tile. */
static const char *elemType(const IrBuffer *b) {
   return Ir_elemBytes(b) == 2 ? "unsigned short" : "float";
}

/* One operand register: two elements of a 16-bit precision, already rounded and
 * adjacent in the tile, as one 4-byte load (the index is even: ld, the fragment's k and
 * 2 tc_t are), or one TF32 rounded from its float. */
static void operandRegister(Gen *g, const char *tile, Precision p, int reg, int row, int col, int32_t ld, int depth) {
   indent(g, depth);
   if (p == PRECISION_TF32) {
      out(g, "const unsigned r%d = tc_tf32(%s[(tc_g + %d) * %d + tc_t + %d]);\n", reg, tile, row, (int)ld, col);
      return;
   }
   out(g, "const unsigned r%d = *(const unsigned *)&%s[(tc_g + %d) * %d + tc_t * 2 + %d];\n", reg, tile, row, (int)ld,
       col);
}

static void accumulators(Gen *g, const IrStmt *st) {
   for (int i = 0; i < 4; i++) {
      out(g, "%s\"+f\"(%s[", i ? ", " : "", g->ln->buffers[st->buffer].name);
      expr(g, st->index);
      out(g, " + %d])", i);
   }
}

/* A warp's mma.sync: each thread packs its share of the fragments from the shared tiles
 * in the PTX layout (groupID tc_g = lane / 4, thread in group tc_t = lane % 4). */
static void mma(Gen *g, const IrStmt *st, int depth) {
   const LoopNest *ln = g->ln;
   Precision p = (Precision)st->precision;
   const char *name = ptxType(p);
   indent(g, depth);
   out(g, "{  // mma m16n8k%d %s\n", Precision_mmaDepth(p), Precision_name(p));
   static const char *const tiles[2] = { "tc_a", "tc_b" };
   for (int i = 0; i < 2; i++) {
      indent(g, depth + 1);
      out(g, "const %s *%s = %s + ", elemType(&ln->buffers[st->operand[i]]),
          tiles[i], ln->buffers[st->operand[i]].name);
      operand(g, st->operandIndex[i], 5, false);
      out(g, ";\n");
   }
   indent(g, depth + 1);
   out(g, "const int tc_g = (int)threadIdx.x %% 32 / 4, tc_t = (int)threadIdx.x %% 4;\n");
   /* {tile, row, column} of each register's first element. TF32 A: (g, t) (g + 8, t)
    * (g, t + 4) (g + 8, t + 4), B: k t and t + 4 of column g; 16-bit A: rows g and g + 8
    * of k 2t, 2t + 1, then of k 2t + 8, 2t + 9, B likewise for column g */
   int second = p == PRECISION_TF32 ? 4 : 8;
   const int regs[6][3] = { { 0, 0, 0 }, { 0, 8, 0 }, { 0, 0, second }, { 0, 8, second }, { 1, 0, 0 }, { 1, 0, second } };
   for (int r = 0; r < 6; r++)
      operandRegister(g, tiles[regs[r][0]], p, r, regs[r][1], regs[r][2], st->ld[regs[r][0]], depth + 1);
   if (p == PRECISION_FP16) {
      /* sm_75 has the fragment half as deep: two of them, k 0-7 then 8-15 */
      out(g, "#if __CUDA_ARCH__ >= 800\n");
   }
   indent(g, depth + 1);
   out(g, "asm volatile(\"mma.sync.aligned.m16n8k%d.row.col.f32.%s.%s.f32 {%%0,%%1,%%2,%%3}, {%%4,%%5,%%6,%%7}, {%%8,%%9}, {%%0,%%1,%%2,%%3};\"\n",
       Precision_mmaDepth(p), name, name);
   indent(g, depth + 3);
   out(g, ": ");
   accumulators(g, st);
   out(g, "\n");
   indent(g, depth + 3);
   out(g, ": \"r\"(r0), \"r\"(r1), \"r\"(r2), \"r\"(r3), \"r\"(r4), \"r\"(r5));\n");
   if (p == PRECISION_FP16) {
      out(g, "#else\n");
      for (int half = 0; half < 2; half++) {
         indent(g, depth + 1);
         out(g, "asm volatile(\"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%%0,%%1,%%2,%%3}, {%%4,%%5}, {%%6}, {%%0,%%1,%%2,%%3};\"\n");
         indent(g, depth + 3);
         out(g, ": ");
         accumulators(g, st);
         out(g, "\n");
         indent(g, depth + 3);
         out(g, ": \"r\"(r%d), \"r\"(r%d), \"r\"(r%d));\n", 2 * half, 2 * half + 1, 4 + half);
      }
      out(g, "#endif\n");
   }
   indent(g, depth);
   out(g, "}\n");
}

static void stmt(Gen *g, int32_t s, int depth) {
   const LoopNest *ln = g->ln;
   const IrStmt *st = &ln->stmt[s];
   switch ((StmtKind)st->kind) {
   case STMT_SEQ:
      for (int i = 0; i < st->count; i++)
         stmt(g, ln->list[st->first + i], depth);
      return;
   case STMT_FOR: {
      if (st->loop == LOOP_VECTOR && (st->extent == 2 || st->extent == 4)) {
         vectorFetch(g, st, depth);
         return;
      }
      int scope = g->nlive;
      const char *name = declare(g, st->var);
      if (st->loop != LOOP_SERIAL) {
         indent(g, depth);
         out(g, "#pragma unroll\n");
      }
      indent(g, depth);
      out(g, "for (int %s = 0; %s < %lld; ++%s) {\n", name, name, (long long)st->extent, name);
      stmt(g, st->body, depth + 1);
      g->nlive = scope;
      indent(g, depth);
      out(g, "}\n");
      return;
   }
   case STMT_LET:
      indent(g, depth);
      /* the value names other variables by their own printed names: `const int i_1 = i / 128` */
      out(g, "const int %s = ", declare(g, st->var));
      expr(g, st->value);
      out(g, ";\n");
      return;
   case STMT_STORE: {
      if (st->async) {
         copyAsync(g, st, depth);
         return;
      }
      indent(g, depth);
      out(g, "%s[", ln->buffers[st->buffer].name);
      expr(g, st->index);
      /* an accumulation reads the element it writes (the same index node) */
      const Expr *v = &ln->expr[st->value];
      const Expr *lhs = v->kind == EXPR_ADD ? &ln->expr[v->args[0]] : NULL;
      if (lhs && lhs->kind == EXPR_LOAD && lhs->ref == st->buffer && lhs->args[0] == st->index) {
         out(g, "] += ");
         expr(g, v->args[1]);
      } else if (Ir_elemBytes(&ln->buffers[st->buffer]) == 2) {
         out(g, "] = tc_round_%s(", Precision_name((Precision)ln->buffers[st->buffer].precision));
         expr(g, st->value);
         out(g, ")");
      } else {
         out(g, "] = ");
         expr(g, st->value);
      }
      out(g, ";\n");
      return;
   }
   case STMT_IF: {
      int scope = g->nlive;
      indent(g, depth);
      out(g, "if (");
      expr(g, st->value);
      out(g, ") {\n");
      stmt(g, st->body, depth + 1);
      g->nlive = scope;
      indent(g, depth);
      out(g, "}\n");
      return;
   }
   case STMT_BARRIER:
      indent(g, depth);
      out(g, g->async ? "tc_wait_async();\n" : "__syncthreads();\n");
      return;
   case STMT_ALLREDUCE:
      allreduce(g, st, depth);
      return;
   case STMT_MMA:
      mma(g, st, depth);
      return;
   }
}

static bool writes(const LoopNest *ln, int32_t s, int buffer) {
   const IrStmt *st = &ln->stmt[s];
   switch ((StmtKind)st->kind) {
   case STMT_SEQ:
      for (int i = 0; i < st->count; i++)
         if (writes(ln, ln->list[st->first + i], buffer))
            return true;
      return false;
   case STMT_FOR:
   case STMT_IF:
      return writes(ln, st->body, buffer);
   case STMT_STORE:
   case STMT_ALLREDUCE:
   case STMT_MMA:
      return st->buffer == buffer;
   default:
      return false;
   }
}

/* The Tensor-Core precisions of s's mma statements (PRECISION_BIT each), and whether it
 * copies asynchronously. */
static unsigned tensorCoreUse(const LoopNest *ln, int32_t s, bool *async) {
   const IrStmt *st = &ln->stmt[s];
   switch ((StmtKind)st->kind) {
   case STMT_SEQ: {
      unsigned m = 0;
      for (int i = 0; i < st->count; i++)
         m |= tensorCoreUse(ln, ln->list[st->first + i], async);
      return m;
   }
   case STMT_FOR:
   case STMT_IF:
      return tensorCoreUse(ln, st->body, async);
   case STMT_STORE:
      *async |= st->async != 0;
      return 0;
   case STMT_MMA:
      return PRECISION_BIT(st->precision);
   default:
      return 0;
   }
}

/* The helpers of Tensor-Core kernels, each printed once where a kernel needs it. No
 * header is included: NVRTC compiles without the toolkit's include directory, so the
 * conversions are PTX (cvt.rn rounds to nearest even, as Precision_round does) and TF32
 * is rounded on the bits. */
static void helpers(Gen *g, unsigned precisions, bool async) {
   if (async) {
      out(g, "\n// cp.async from sm_80 (src-size 0 fills zeros), a plain copy before; the wait before the barrier\n"
             "__device__ __forceinline__ void tc_copy_async(float *dst, const float *src, bool inside) {\n"
             "#if __CUDA_ARCH__ >= 800\n"
             "  unsigned s;\n"
             "  asm(\"{ .reg .u64 t; cvta.to.shared.u64 t, %%1; cvt.u32.u64 %%0, t; }\" : \"=r\"(s) : \"l\"(dst));\n"
             "  asm volatile(\"cp.async.ca.shared.global [%%0], [%%1], 4, %%2;\" :: \"r\"(s), \"l\"(src), \"r\"(inside ? 4 : 0));\n"
             "#else\n"
             "  *dst = inside ? *src : 0.0f;\n"
             "#endif\n"
             "}\n"
             "__device__ __forceinline__ void tc_wait_async() {\n"
             "#if __CUDA_ARCH__ >= 800\n"
             "  asm volatile(\"cp.async.wait_all;\" ::: \"memory\");\n"
             "#endif\n"
             "  __syncthreads();\n"
             "}\n");
   }
   for (int p = PRECISION_FP16; p <= PRECISION_BF16; p++)
      if (precisions & PRECISION_BIT(p))
         out(g, "\n// a float rounded to %s as a 16-bit tile stores it\n"
                "__device__ __forceinline__ unsigned short tc_round_%s(float x) {\n"
                "  unsigned short h;\n"
                "  asm(\"cvt.rn.%s.f32 %%0, %%1;\" : \"=h\"(h) : \"f\"(x));\n"
                "  return h;\n"
                "}\n",
             Precision_name((Precision)p), Precision_name((Precision)p), ptxType((Precision)p));
   if (precisions & PRECISION_BIT(PRECISION_TF32))
      out(g, "\n// TF32 to nearest even on the bits; a NaN stays one (the Tensor Cores ignore the low 13 bits)\n"
             "__device__ __forceinline__ unsigned tc_tf32(float x) {\n"
             "  unsigned u = __float_as_uint(x);\n"
             "  if ((u & 0x7fffffffu) > 0x7f800000u)\n"
             "    return 0x7fffe000u;\n"
             "  if ((u & 0x7f800000u) != 0x7f800000u)\n"
             "    u = (u + 0xfffu + ((u >> 13) & 1u)) & 0xffffe000u;\n"
             "  return u;\n"
             "}\n");
}

static bool needsTree(const LoopNest *ln, int32_t s, int64_t threads) {
   const IrStmt *st = &ln->stmt[s];
   switch ((StmtKind)st->kind) {
   case STMT_SEQ:
      for (int i = 0; i < st->count; i++)
         if (needsTree(ln, ln->list[st->first + i], threads))
            return true;
      return false;
   case STMT_FOR:
   case STMT_IF:
      return needsTree(ln, st->body, threads);
   case STMT_ALLREDUCE:
      return !Sketch_reduceWithShuffles(threads);
   default:
      return false;
   }
}

static void kernel(Gen *g, int k) {
   const LoopNest *ln = g->ln;
   const IrKernel *kn = &ln->kernels[k];
   g->kn = kn;
   out(g, "// %s: grid %lld, block %lld, static shared memory %lld bytes\n", kn->name,
       (long long)kn->grid, (long long)kn->block, (long long)kn->sharedBytes);
   out(g, "extern \"C\" __global__ void __launch_bounds__(%lld) %s(", (long long)kn->block, kn->name);
   for (int p = 0; p < kn->nparams; p++) {
      const IrBuffer *b = &ln->buffers[kn->params[p]];
      bool written = writes(ln, kn->body, kn->params[p]);
      out(g, "%s%sfloat *__restrict__ %s", p ? ", " : "", written ? "" : "const ", b->name);
   }
   out(g, ") {\n");
   for (int b = 0; b < ln->nbuffers; b++) {
      const IrBuffer *bf = &ln->buffers[b];
      if (bf->kernel != k)
         continue;
      if (bf->scope == SCOPE_SHARED)
         out(g, "  __shared__ __align__(16) %s %s[%lld];\n", elemType(bf),
             bf->name, (long long)bf->elems);
      else
         out(g, "  float %s[%lld];\n", bf->name, (long long)bf->elems);
   }
   if (needsTree(ln, kn->body, kn->block))
      out(g, "  __shared__ float red_buf[%lld];\n", (long long)kn->block);
   g->async = false;
   tensorCoreUse(ln, kn->body, &g->async);
   g->nlive = 0;
   stmt(g, kn->body, 1);
   out(g, "}\n");
}

char *Cuda_generate(const LoopNest *ln, const char *header) {
   Gen g = { .ln = ln, .cap = 8192, .zeroVar = -1 };
   g.buf = xMalloc(g.cap);
   g.names = xCalloc((size_t)ln->nvars + 1, sizeof *g.names);
   g.live = xCalloc((size_t)ln->nvars + 1, sizeof *g.live);
   g.buf[0] = '\0';
   if (header) {
      const char *line = header;
      while (*line) {
         const char *end = strchr(line, '\n');
         size_t n = end ? (size_t)(end - line) : strlen(line);
         out(&g, "// %.*s\n", (int)n, line);
         line += n + (end ? 1 : 0);
      }
   }
   unsigned precisions = 0;
   bool async = false;
   for (int k = 0; k < ln->nkernels; k++)
      precisions |= tensorCoreUse(ln, ln->kernels[k].body, &async);
   helpers(&g, precisions, async);
   for (int k = 0; k < ln->nkernels; k++) {
      out(&g, "\n");
      kernel(&g, k);
   }
   free(g.names);
   free(g.live);
   return g.buf;
}
