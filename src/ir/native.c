/* Printing loop nests as C and compiling them (ir/native.h). */
#include "config.h"

#include "ir/native.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/textbuf.h"
#include "util/xalloc.h"

/* ---- the printer ---- */

typedef struct {
   TextGrow *o;
   const LoopNest *ln;
   const IrKernel *kn;
   bool lane[IR_MAX_VARS];        /* LET variables with a value per thread */
   int masks;                     /* mask arrays made so far */
   int depth;
   bool refused;
   char **cause;
} Printer;

static void indent(Printer *p) {
   TextGrow_add(p->o, "%*s", 3 * p->depth, "");
}

/* Whether an integer expression differs between the threads of a block. */
static bool perThread(const Printer *p, int32_t e) {
   const Expr *ex = &p->ln->expr[e];
   switch ((ExprKind)ex->kind) {
   case EXPR_INT:
   case EXPR_FLOAT:
      return false;
   case EXPR_AXIS: {
      const IrVar *v = &p->ln->vars[ex->ref];
      return v->kind == VAR_THREAD || (v->kind == VAR_LET && p->lane[ex->ref]);
   }
   case EXPR_LOAD:
      return true;
   default:
      for (int i = 0; i < ex->nargs; i++)
         if (perThread(p, ex->args[i]))
            return true;
      return false;
   }
}

static void expr(Printer *p, int32_t e);

static void bufferRef(Printer *p, int b) {
   const IrBuffer *bf = &p->ln->buffers[b];
   if (bf->scope == SCOPE_LOCAL)
      TextGrow_add(p->o, "b%d + t * %lld, %lld", b, (long long)bf->elems, (long long)bf->elems);
   else
      TextGrow_add(p->o, "b%d, %lld", b, (long long)bf->elems);
}

static void binary(Printer *p, const char *op, const Expr *ex) {
   TextGrow_add(p->o, "(");
   expr(p, ex->args[0]);
   TextGrow_add(p->o, " %s ", op);
   expr(p, ex->args[1]);
   TextGrow_add(p->o, ")");
}

static void call(Printer *p, const char *fn, const Expr *ex) {
   TextGrow_add(p->o, "%s(", fn);
   for (int i = 0; i < ex->nargs; i++) {
      if (i)
         TextGrow_add(p->o, ", ");
      expr(p, ex->args[i]);
   }
   TextGrow_add(p->o, ")");
}

static void expr(Printer *p, int32_t e) {
   const Expr *ex = &p->ln->expr[e];
   bool isFloat = ex->dtype == TE_FLOAT32;
   switch ((ExprKind)ex->kind) {
   case EXPR_INT:
      TextGrow_add(p->o, "((int64_t)%lld)", (long long)ex->v.i);
      return;
   case EXPR_FLOAT:
      if (isnan(ex->v.f))
         TextGrow_add(p->o, "NAN");
      else if (isinf(ex->v.f))
         TextGrow_add(p->o, "%sINFINITY", ex->v.f < 0 ? "-" : "");
      else
         TextGrow_add(p->o, "((float)%a)", ex->v.f);
      return;
   case EXPR_AXIS: {
      const IrVar *v = &p->ln->vars[ex->ref];
      if (v->kind == VAR_THREAD)
         TextGrow_add(p->o, "t");
      else if (v->kind == VAR_BLOCK)
         TextGrow_add(p->o, "blk");
      else if (v->kind == VAR_LET && p->lane[ex->ref])
         TextGrow_add(p->o, "v%d[t]", ex->ref);
      else
         TextGrow_add(p->o, "v%d", ex->ref);
      return;
   }
   case EXPR_LOAD:
      TextGrow_add(p->o, "ld(");
      bufferRef(p, ex->ref);
      TextGrow_add(p->o, ", ");
      expr(p, ex->args[0]);
      TextGrow_add(p->o, ", &bad)");
      return;
   case EXPR_ADD: binary(p, "+", ex); return;
   case EXPR_SUB: binary(p, "-", ex); return;
   case EXPR_MUL: binary(p, "*", ex); return;
   case EXPR_DIV: binary(p, "/", ex); return;
   case EXPR_FLOORDIV: call(p, "fdiv", ex); return;
   case EXPR_FLOORMOD: call(p, "fmodi", ex); return;
   case EXPR_MIN: call(p, isFloat ? "fminf" : "imin", ex); return;
   case EXPR_MAX: call(p, isFloat ? "fmaxf" : "imax", ex); return;
   case EXPR_LT: binary(p, "<", ex); return;
   case EXPR_LE: binary(p, "<=", ex); return;
   case EXPR_GE: binary(p, ">=", ex); return;
   case EXPR_GT: binary(p, ">", ex); return;
   case EXPR_EQ: binary(p, "==", ex); return;
   case EXPR_AND: binary(p, "&&", ex); return;
   case EXPR_SELECT:
      TextGrow_add(p->o, "(");
      expr(p, ex->args[0]);
      TextGrow_add(p->o, " ? ");
      expr(p, ex->args[1]);
      TextGrow_add(p->o, " : ");
      expr(p, ex->args[2]);
      TextGrow_add(p->o, ")");
      return;
   case EXPR_CAST:
      TextGrow_add(p->o, "((float)");
      expr(p, ex->args[0]);
      TextGrow_add(p->o, ")");
      return;
   case EXPR_EXP: call(p, "expf", ex); return;
   case EXPR_ERF: call(p, "erff", ex); return;
   case EXPR_SQRT: call(p, "sqrtf", ex); return;
   case EXPR_RSQRT: call(p, "rsqrt", ex); return;
   case EXPR_TANH: call(p, "tanhf", ex); return;
   case EXPR_SIGMOID: call(p, "sigm", ex); return;
   default:
      break;
   }
   if (!p->refused)
      setCause(p->cause, "kernel %s: expression kind %d has no C form", p->kn->name, ex->kind);
   p->refused = true;
   TextGrow_add(p->o, "0");
}

/* A loop over the block's threads, each active one under `mask` (-1: all). */
static void threadLoop(Printer *p, int mask) {
   indent(p);
   TextGrow_add(p->o, "for (int64_t t = 0; t < %lld; t++)%s\n", (long long)p->kn->block, mask >= 0 ? "" : " {");
   if (mask >= 0) {
      indent(p);
      TextGrow_add(p->o, "   if (m%d[t]) {\n", mask);
   }
   p->depth += mask >= 0 ? 2 : 1;
}

static void threadLoopEnd(Printer *p, int mask) {
   p->depth -= mask >= 0 ? 2 : 1;
   indent(p);
   TextGrow_add(p->o, "%s}\n", mask >= 0 ? "   " : "");
}

static void stmt(Printer *p, int32_t s, int mask) {
   const IrStmt *st = &p->ln->stmt[s];
   switch ((StmtKind)st->kind) {
   case STMT_SEQ:
      for (int i = 0; i < st->count; i++)
         stmt(p, p->ln->list[st->first + i], mask);
      return;
   case STMT_FOR:
      indent(p);
      TextGrow_add(p->o, "for (int64_t v%d = 0; v%d < %lld; v%d++) {\n", st->var, st->var, (long long)st->extent, st->var);
      p->depth++;
      stmt(p, st->body, mask);
      p->depth--;
      indent(p);
      TextGrow_add(p->o, "}\n");
      return;
   case STMT_LET:
      if (!p->lane[st->var]) {
         indent(p);
         TextGrow_add(p->o, "v%d = ", st->var);
         expr(p, st->value);
         TextGrow_add(p->o, ";\n");
         return;
      }
      threadLoop(p, mask);
      indent(p);
      TextGrow_add(p->o, "v%d[t] = ", st->var);
      expr(p, st->value);
      TextGrow_add(p->o, ";\n");
      threadLoopEnd(p, mask);
      return;
   case STMT_STORE:
      threadLoop(p, mask);
      indent(p);
      TextGrow_add(p->o, "int64_t i = ");
      expr(p, st->index);
      TextGrow_add(p->o, ";\n");
      indent(p);
      TextGrow_add(p->o, "float x = ");
      expr(p, st->value);
      TextGrow_add(p->o, ";\n");
      indent(p);
      TextGrow_add(p->o, "st(");
      bufferRef(p, st->buffer);
      TextGrow_add(p->o, ", i, x, &bad);\n");
      threadLoopEnd(p, mask);
      return;
   case STMT_IF:
      if (!perThread(p, st->value)) {
         indent(p);
         TextGrow_add(p->o, "if (");
         expr(p, st->value);
         TextGrow_add(p->o, ") {\n");
         p->depth++;
         stmt(p, st->body, mask);
         p->depth--;
         indent(p);
         TextGrow_add(p->o, "}\n");
         return;
      }
      {
         int m = p->masks++;
         indent(p);
         TextGrow_add(p->o, "{\n");
         p->depth++;
         indent(p);
         TextGrow_add(p->o, "uint8_t m%d[%lld];\n", m, (long long)p->kn->block);
         indent(p);
         TextGrow_add(p->o, "for (int64_t t = 0; t < %lld; t++)\n", (long long)p->kn->block);
         indent(p);
         if (mask >= 0)
            TextGrow_add(p->o, "   m%d[t] = m%d[t] && (", m, mask);
         else
            TextGrow_add(p->o, "   m%d[t] = (", m);
         expr(p, st->value);
         TextGrow_add(p->o, ") != 0;\n");
         stmt(p, st->body, m);
         p->depth--;
         indent(p);
         TextGrow_add(p->o, "}\n");
      }
      return;
   case STMT_BARRIER:
      /* in lockstep every thread has finished the statements before it already */
      return;
   case STMT_ALLREDUCE: {
      bool max = st->reduce == REDUCE_MAX;
      indent(p);
      TextGrow_add(p->o, "{\n");
      p->depth++;
      indent(p);
      if (mask >= 0)
         TextGrow_add(p->o, "int64_t on = 0;\n");
      else
         TextGrow_add(p->o, "int64_t on = %lld;\n", (long long)p->kn->block);
      if (mask >= 0) {
         indent(p);
         TextGrow_add(p->o, "for (int64_t t = 0; t < %lld; t++)\n", (long long)p->kn->block);
         indent(p);
         TextGrow_add(p->o, "   on += m%d[t];\n", mask);
      }
      /* a reduction under a condition that splits the block: the interpreter says so */
      indent(p);
      TextGrow_add(p->o, "if (on > 0 && on < %lld)\n", (long long)p->kn->block);
      indent(p);
      TextGrow_add(p->o, "   bad = 1;\n");
      indent(p);
      TextGrow_add(p->o, "else if (on > 0) {\n");
      p->depth++;
      indent(p);
      TextGrow_add(p->o, "float acc = %s;\n", max ? "-INFINITY" : "0.0f");
      threadLoop(p, -1);
      indent(p);
      TextGrow_add(p->o, "float x = ");
      expr(p, st->value);
      TextGrow_add(p->o, ";\n");
      indent(p);
      TextGrow_add(p->o, "acc = %s;\n", max ? "fmaxf(acc, x)" : "acc + x");
      threadLoopEnd(p, -1);
      threadLoop(p, -1);
      indent(p);
      TextGrow_add(p->o, "st(");
      bufferRef(p, st->buffer);
      TextGrow_add(p->o, ", ");
      expr(p, st->index);
      TextGrow_add(p->o, ", acc, &bad);\n");
      threadLoopEnd(p, -1);
      p->depth--;
      indent(p);
      TextGrow_add(p->o, "}\n");
      p->depth--;
      indent(p);
      TextGrow_add(p->o, "}\n");
      return;
   }
   case STMT_MMA:
      break;
   }
   if (!p->refused)
      setCause(p->cause, "kernel %s: a Tensor Core mma: the interpreter runs it", p->kn->name);
   p->refused = true;
}

/* Which LET variables of kernel k hold a value per thread: a LET is per thread when
 * its value is (the statements bind variables before they are read, so one pass in
 * statement order settles each). */
static void markLanes(Printer *p, int32_t s) {
   const IrStmt *st = &p->ln->stmt[s];
   switch ((StmtKind)st->kind) {
   case STMT_SEQ:
      for (int i = 0; i < st->count; i++)
         markLanes(p, p->ln->list[st->first + i]);
      break;
   case STMT_FOR:
   case STMT_IF:
      markLanes(p, st->body);
      break;
   case STMT_LET:
      /* a LET under a per-thread condition keeps other threads' old values: one per
       * thread as soon as any binding of it is */
      if (perThread(p, st->value))
         p->lane[st->var] = true;
      break;
   default:
      break;
   }
}

static const char prologue[] =
   "#include <math.h>\n"
   "#include <stdint.h>\n"
   "#include <stdlib.h>\n"
   "static inline float ld(const float *b, int64_t n, int64_t i, int *bad) {\n"
   "   if ((uint64_t)i >= (uint64_t)n) { *bad = 1; return 0.0f; }\n"
   "   return b[i];\n"
   "}\n"
   "static inline void st(float *b, int64_t n, int64_t i, float x, int *bad) {\n"
   "   if ((uint64_t)i >= (uint64_t)n) { *bad = 1; return; }\n"
   "   b[i] = x;\n"
   "}\n"
   "static inline int64_t fdiv(int64_t a, int64_t b) {\n"
   "   if (b == 0) return 0;\n"
   "   int64_t q = a / b;\n"
   "   return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n"
   "}\n"
   "static inline int64_t fmodi(int64_t a, int64_t b) { return b == 0 ? 0 : a - fdiv(a, b) * b; }\n"
   "static inline int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }\n"
   "static inline int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }\n"
   "static inline float rsqrt(float x) { return 1.0f / sqrtf(x); }\n"
   "static inline float sigm(float x) { return 1.0f / (1.0f + expf(-x)); }\n";

static void kernel(Printer *p, const char *prefix, int k) {
   const LoopNest *ln = p->ln;
   const IrKernel *kn = &ln->kernels[k];
   p->kn = kn;
   memset(p->lane, 0, sizeof p->lane);
   p->masks = 0;
   markLanes(p, kn->body);
   TextGrow *o = p->o;
   TextGrow_add(o, "\nint %s_k%d(float *const *g) {\n", prefix, k);
   TextGrow_add(o, "   int bad = 0, rc = 0;\n");
   for (int b = 0; b < ln->nbuffers; b++) {
      const IrBuffer *bf = &ln->buffers[b];
      if (bf->scope == SCOPE_GLOBAL)
         TextGrow_add(o, "   float *b%d = g[%d];\n", b, b);
      else if (bf->kernel == k)
         TextGrow_add(o, "   float *b%d = calloc(%lld, sizeof(float));\n", b,
             (long long)bf->elems * (bf->scope == SCOPE_LOCAL ? kn->block : 1));
   }
   for (int v = 0; v < ln->nvars; v++) {
      if (ln->vars[v].kind != VAR_LET)
         continue;
      if (p->lane[v])
         TextGrow_add(o, "   int64_t *v%d = calloc(%lld, sizeof(int64_t));\n", v, (long long)kn->block);
      else
         TextGrow_add(o, "   int64_t v%d = 0;\n", v);
   }
   TextGrow_add(o, "   for (int64_t blk = 0; blk < %lld; blk++) {\n", (long long)kn->grid);
   TextGrow_add(o, "      {\n");
   p->depth = 3;
   stmt(p, kn->body, -1);
   TextGrow_add(o, "      }\n");
   TextGrow_add(o, "      if (bad) { rc = -1; break; }\n");
   TextGrow_add(o, "   }\n");
   for (int b = 0; b < ln->nbuffers; b++)
      if (ln->buffers[b].scope != SCOPE_GLOBAL && ln->buffers[b].kernel == k)
         TextGrow_add(o, "   free(b%d);\n", b);
   for (int v = 0; v < ln->nvars; v++)
      if (ln->vars[v].kind == VAR_LET && p->lane[v])
         TextGrow_add(o, "   free(v%d);\n", v);
   TextGrow_add(o, "   return rc;\n}\n");
}

char *Native_source(const LoopNest *ln, const char *prefix, char **cause) {
   for (int b = 0; b < ln->nbuffers; b++)
      if (ln->buffers[b].precision != 0) {
         setCause(cause, "buffer %s holds 16-bit values: the interpreter runs it", ln->buffers[b].name);
         return NULL;
      }
   TextGrow o = { NULL, 0, 0 };
   Printer p;
   memset(&p, 0, sizeof p);
   p.o = &o;
   p.ln = ln;
   p.cause = cause;
   for (int k = 0; k < ln->nkernels && !p.refused; k++)
      kernel(&p, prefix, k);
   if (p.refused) {
      free(o.s);
      return NULL;
   }
   if (!o.s)
      TextGrow_add(&o, "%s", "");
   return o.s;
}

/* ---- compiling and loading ---- */

struct NativeLib_ {
   void *handle;
   int n;
   NativeKernel (*fn)[IR_MAX_KERNELS];
};

static void removeTree(const char *dir, const char *const *names, int n) {
   for (int i = 0; i < n; i++) {
      char *f = xAsprintf("%s/%s", dir, names[i]);
      unlink(f);
      free(f);
   }
   rmdir(dir);
}

NativeLib *NativeLib_build(const LoopNest *const *lns, int n, char **cause) {
   TextGrow o = { NULL, 0, 0 };
   TextGrow_add(&o, "%s", prologue);
   bool *made = xCalloc((size_t)(n ? n : 1), sizeof *made);
   for (int i = 0; i < n; i++) {
      char prefix[32];
      snprintf(prefix, sizeof prefix, "n%d", i);
      char *why = NULL;
      char *text = Native_source(lns[i], prefix, &why);
      free(why);
      if (!text)
         continue;
      TextGrow_add(&o, "%s", text);
      free(text);
      made[i] = true;
   }
   const char *tmpdir = getenv("TMPDIR");
   char *dir = xAsprintf("%s/pruner-tui-native-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
   NativeLib *lib = NULL;
   if (!mkdtemp(dir)) {
      setCause(cause, "native code: cannot make a folder like %s", dir);
      goto out;
   }
   static const char *const files[] = { "kernels.c", "kernels.so", "cc.err" };
   char *c = xAsprintf("%s/kernels.c", dir);
   char *so = xAsprintf("%s/kernels.so", dir);
   char *err = xAsprintf("%s/cc.err", dir);
   FILE *f = fopen(c, "w");
   bool wrote = f && fwrite(o.s, 1, o.len, f) == o.len;
   if (f && fclose(f) != 0)
      wrote = false;
   const char *cc = getenv("CC");
   if (!cc || !*cc)
      cc = "cc";
   if (!wrote) {
      setCause(cause, "native code: cannot write %s", c);
   } else {
      char *cmd = xAsprintf("%s -O2 -ffp-contract=off -fPIC -shared -w -o '%s' '%s' -lm 2> '%s'", cc, so, c, err);
      int rc = system(cmd);
      free(cmd);
      if (rc != 0) {
         char line[300] = "";
         FILE *e = fopen(err, "r");
         if (e) {
            /* its first error, else its first line */
            char first[300] = "";
            while (fgets(line, sizeof line, e)) {
               if (!*first)
                  memcpy(first, line, sizeof first);
               if (strstr(line, "error"))
                  break;
            }
            if (!strstr(line, "error"))
               memcpy(line, first, sizeof line);
            fclose(e);
         }
         line[strcspn(line, "\n")] = 0;
         setCause(cause, "native code: the C compiler (%s) failed%s%s", cc, *line ? ": " : "", line);
      } else {
         void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
         if (!h) {
            setCause(cause, "native code: %s", dlerror());
         } else {
            lib = xCalloc(1, sizeof *lib);
            lib->handle = h;
            lib->n = n;
            lib->fn = xCalloc((size_t)(n ? n : 1), sizeof *lib->fn);
            for (int i = 0; i < n; i++)
               for (int k = 0; made[i] && k < lns[i]->nkernels; k++) {
                  char name[48];
                  snprintf(name, sizeof name, "n%d_k%d", i, k);
                  *(void **)&lib->fn[i][k] = dlsym(h, name);
               }
         }
      }
   }
   /* the loaded object stays mapped after its file is gone; PTUI_KEEP_NATIVE keeps
    * the folder to read the code */
   if (getenv("PTUI_KEEP_NATIVE") && *getenv("PTUI_KEEP_NATIVE"))
      fprintf(stderr, "native code: kept in %s\n", dir);
   else
      removeTree(dir, files, 3);
   free(c);
   free(so);
   free(err);
out:
   free(dir);
   free(made);
   free(o.s);
   return lib;
}

NativeKernel NativeLib_kernel(const NativeLib *lib, int i, int k) {
   if (!lib || i < 0 || i >= lib->n || k < 0 || k >= IR_MAX_KERNELS)
      return NULL;
   return lib->fn[i][k];
}

void NativeLib_free(NativeLib *lib) {
   if (!lib)
      return;
   dlclose(lib->handle);
   free(lib->fn);
   free(lib);
}
