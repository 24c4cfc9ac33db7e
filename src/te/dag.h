/* Tensor expressions: a task's compute DAG. A DAG is a list of stages in topological
 * order (producers first): placeholders (inputs) and compute stages. A compute stage
 * has spatial axes (its output shape) and optional reduce axes with constant extents,
 * and a body: an expression over loads of earlier stages, whose indices are integer
 * expressions of the stage's axes. Reductions are sum or max over all reduce axes.
 *
 * Expressions live in the DAG's pool and are referred to by index, so a DAG is a plain
 * value that lowering, code generation and the analyses read without chasing pointers.
 * Everything is float32 today; dtype is a field so that fp16 can come later. */
#ifndef HEADER_dag
#define HEADER_dag

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

#include "util/xalloc.h"

#define TE_MAX_DIMS 6
#define TE_MAX_REDUCE 4
#define TE_MAX_AXES (TE_MAX_DIMS + TE_MAX_REDUCE)
#define TE_MAX_STAGES 48
#define TE_NAME_MAX 32
#define TE_AXIS_NAME_MAX 8

typedef enum {
   TE_INT32,
   TE_FLOAT32,
   TE_BOOL,
} TeDType;

typedef enum {
   EXPR_INT,        /* v.i */
   EXPR_FLOAT,      /* v.f */
   EXPR_AXIS,       /* ref: axis number in the stage (spatial 0..ndim-1, then reduce) */
   EXPR_LOAD,       /* ref: stage read; args: its indices (nargs = that stage's ndim) */
   /* binary, args[0] op args[1] */
   EXPR_ADD,
   EXPR_SUB,
   EXPR_MUL,
   EXPR_DIV,        /* float division */
   EXPR_FLOORDIV,   /* integer floor division */
   EXPR_FLOORMOD,   /* integer floor modulo */
   EXPR_MIN,
   EXPR_MAX,
   EXPR_LT,
   EXPR_LE,
   EXPR_GE,
   EXPR_GT,
   EXPR_EQ,
   EXPR_AND,
   /* args[0] ? args[1] : args[2], evaluating only the branch taken: a guarded load
    * (padding, uneven pooling windows) may index out of bounds on the other side, so
    * every consumer (interpreter, CUDA code, CPU executor) must keep it lazy */
   EXPR_SELECT,
   /* float(args[0]) of an integer */
   EXPR_CAST,
   /* float intrinsics of args[0] */
   EXPR_EXP,
   EXPR_ERF,
   EXPR_SQRT,
   EXPR_RSQRT,
   EXPR_TANH,
   EXPR_SIGMOID,    /* 1 / (1 + exp(-x)), one call as TVM's sigmoid intrinsic */
   EXPR_KIND_COUNT
} ExprKind;

typedef struct Expr_ {
   uint8_t kind;              /* ExprKind */
   uint8_t dtype;             /* TeDType */
   uint8_t nargs;
   int32_t ref;
   union {
      int64_t i;
      double f;
   } v;
   int32_t args[TE_MAX_DIMS];
} Expr;

typedef enum {
   STAGE_PLACEHOLDER,
   STAGE_COMPUTE,
} StageKind;

typedef enum {
   REDUCE_NONE,
   REDUCE_SUM,
   REDUCE_MAX,
} ReduceKind;

typedef struct Stage_ {
   char name[TE_NAME_MAX];
   StageKind kind;
   TeDType dtype;
   int ndim;
   int64_t shape[TE_MAX_DIMS];
   int nreduce;
   int64_t rextent[TE_MAX_REDUCE];
   char axis[TE_MAX_AXES][TE_AXIS_NAME_MAX];   /* spatial names, then reduce names */
   ReduceKind reduce;
   int32_t body;                               /* -1 for placeholders */
} Stage;

typedef struct Dag_ {
   int nstages;
   Stage stages[TE_MAX_STAGES];
   Expr *expr;
   int32_t nexpr;
   int32_t capexpr;
   /* Exact FLOP count of one run: Dag_estimateFlops() unless the op that built the DAG
    * knows better (a reduction whose window varies per output). */
   double flops;
} Dag;

void Dag_init(Dag *g);
void Dag_done(Dag *g);
void Dag_copy(Dag *dst, const Dag *src);

/* Building. Stage names must be unique; the last stage added is the output. */
int Dag_placeholder(Dag *g, const char *name, int ndim, const int64_t *shape);
int Dag_compute(Dag *g, const char *name, int ndim, const int64_t *shape,
                const char *const *axisNames);
/* Adds a reduce axis to a compute stage; returns its axis number (for Expr_axis). */
int Dag_reduceAxis(Dag *g, int stage, const char *name, int64_t extent);
void Dag_setBody(Dag *g, int stage, ReduceKind reduce, int32_t body);

int32_t Expr_int(Dag *g, int64_t v);
int32_t Expr_float(Dag *g, double v);
int32_t Expr_axis(Dag *g, int axis);
int32_t Expr_load(Dag *g, int stage, int n, const int32_t *index);
/* Binary and comparison nodes; integer constants are folded and x+0, x*1, x*0, x/1
 * simplified, so index expressions stay as small as a person would write them. */
int32_t Expr_binary(Dag *g, ExprKind kind, int32_t a, int32_t b);
int32_t Expr_select(Dag *g, int32_t cond, int32_t t, int32_t f);
int32_t Expr_call(Dag *g, ExprKind kind, int32_t a);
/* The value of EXPR_SIGMOID in float, for every consumer that evaluates it. */
float Expr_sigmoid(float x);
int32_t Expr_cast(Dag *g, int32_t a);
int32_t Expr_add(Dag *g, int32_t a, int32_t b);

/* Integer simplification shared by every expression builder (DAGs and loop nests):
 * given a binary integer operation and which operands are constants, returns
 * FOLD_CONST with the value in *v, FOLD_A or FOLD_B when the result is that operand, or
 * FOLD_NONE. */
typedef enum { FOLD_NONE, FOLD_CONST, FOLD_A, FOLD_B } FoldResult;
/* Floor division and modulo, as TVM's floordiv/floormod. Inline: lowering folds
 * hundreds of index operations per state. */
static inline int64_t Expr_floorDiv(int64_t a, int64_t b) {
   int64_t q = a / b;
   return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static inline int64_t Expr_floorMod(int64_t a, int64_t b) {
   return a - Expr_floorDiv(a, b) * b;
}

static inline FoldResult Expr_foldInt(ExprKind kind, bool aConst, int64_t a, bool bConst, int64_t b, int64_t *v) {
   if (aConst && bConst) {
      switch (kind) {
      case EXPR_ADD: *v = a + b; return FOLD_CONST;
      case EXPR_SUB: *v = a - b; return FOLD_CONST;
      case EXPR_MUL: *v = a * b; return FOLD_CONST;
      case EXPR_MIN: *v = a < b ? a : b; return FOLD_CONST;
      case EXPR_MAX: *v = a > b ? a : b; return FOLD_CONST;
      case EXPR_FLOORDIV:
         if (b == 0)
            fatal("division by zero in an index expression");
         *v = Expr_floorDiv(a, b);
         return FOLD_CONST;
      case EXPR_FLOORMOD:
         if (b == 0)
            fatal("modulo by zero in an index expression");
         *v = Expr_floorMod(a, b);
         return FOLD_CONST;
      default:
         return FOLD_NONE;
      }
   }
   switch (kind) {
   case EXPR_ADD:
      if (aConst && a == 0) return FOLD_B;
      if (bConst && b == 0) return FOLD_A;
      break;
   case EXPR_SUB:
      if (bConst && b == 0) return FOLD_A;
      break;
   case EXPR_MUL:
      if (aConst && a == 1) return FOLD_B;
      if (bConst && b == 1) return FOLD_A;
      if ((aConst && a == 0) || (bConst && b == 0)) {
         *v = 0;
         return FOLD_CONST;
      }
      break;
   case EXPR_FLOORDIV:
      if (bConst && b == 1) return FOLD_A;
      break;
   case EXPR_FLOORMOD:
      if (bConst && b == 1) {
         *v = 0;
         return FOLD_CONST;
      }
      break;
   default:
      break;
   }
   return FOLD_NONE;
}

int32_t Expr_sub(Dag *g, int32_t a, int32_t b);
int32_t Expr_mul(Dag *g, int32_t a, int32_t b);

static inline const Expr *Dag_expr(const Dag *g, int32_t e) {
   return &g->expr[e];
}

int Dag_output(const Dag *g);
int Dag_numInputs(const Dag *g);
/* The i-th placeholder, in the order they were added (the order of Op inputs). */
int Dag_input(const Dag *g, int i);
int64_t Dag_numElements(const Dag *g, int stage);
/* Stages that load from `stage`, in order; returns their count. */
int Dag_readers(const Dag *g, int stage, int *out, int max);
/* Whether expression e (or any sub-expression) loads from stage s. */
bool Dag_exprReads(const Dag *g, int32_t e, int s);

/* FLOPs as Ansor's FlopEstimator counts them: each float arithmetic or comparison node
 * is 1; index arithmetic, loads, constants and the intrinsic call itself (exp, erf,
 * sigmoid) are 0; a select is its condition plus its larger branch; a reduction is its
 * iteration count times (1 for the combiner + its body). Summed over compute stages,
 * each multiplied by its number of output elements. */
double Dag_estimateFlops(const Dag *g);

/* How a printer names the leaves of an expression: variables (EXPR_AXIS) and loads
 * (EXPR_LOAD); `leaf` formats the whole node, calling Expr_formatWith for indices. */
struct TextBuf_;
typedef struct ExprNamer_ {
   const Expr *pool;
   const void *ctx;
   void (*leaf)(const struct ExprNamer_ *n, int32_t e, struct TextBuf_ *t);
} ExprNamer;
/* Infix text with parentheses only where precedence needs them. */
void Expr_formatWith(const ExprNamer *n, int32_t e, struct TextBuf_ *t);

/* Readable text: one line per stage, like "T_relu[n, c, h, w] = max(T_add[...], 0f)". */
void Dag_print(const Dag *g, FILE *out);
/* Formats expression e of `stage` into buf; returns the length it needed. */
size_t Expr_format(const Dag *g, int stage, int32_t e, char *buf, size_t size);

/* Runs the DAG by direct interpretation of each stage's expression. bufs[i] is the
 * row-major buffer of stage i: the caller fills placeholders and provides space for
 * every compute stage. Reductions accumulate in float, as a kernel would. Slow; for
 * checking that a DAG means what its op's C reference computes. */
void Dag_evaluate(const Dag *g, float *const *bufs);

#endif
