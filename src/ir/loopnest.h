/* The loop nest: a state lowered to kernels of loops, guards, stores, barriers and
 * cross-thread reductions over flat buffers with a scope (global, shared, local). Three
 * consumers read it: CUDA code generation, the CPU executor, and the cost analyses.
 *
 * Everything lives in growing arrays owned by the LoopNest and is referred to by index;
 * LoopNest_reset empties them without freeing, so lowering thousands of states reuses
 * the same memory (one LoopNest per thread). Expressions reuse te's ExprKind: EXPR_AXIS
 * names a variable (ref = variable id) and EXPR_LOAD reads a buffer (ref = buffer id)
 * at one flat index (args[0]). Virtual threads are expanded: every vthread's copy of a
 * statement appears with its vthread coordinates as constants. */
#ifndef HEADER_loopnest
#define HEADER_loopnest

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "te/dag.h"

#define IR_MAX_BUFFERS 40
#define IR_MAX_VARS 160
#define IR_MAX_KERNELS 4
#define IR_MAX_PARAMS 12
#define IR_NAME_MAX 40

typedef enum {
   SCOPE_GLOBAL,
   SCOPE_SHARED,
   SCOPE_LOCAL,
} BufferScope;

typedef struct IrBuffer_ {
   char name[IR_NAME_MAX];
   BufferScope scope;
   int stage;                   /* the te stage whose values it holds; -1 for scratch */
   int kernel;                  /* shared and local: the kernel declaring it; global: -1 */
   int ndim;
   int64_t shape[TE_MAX_DIMS];
   int64_t elems;
   bool input;                  /* global: a placeholder of the task */
   bool output;                 /* global: the task's output */
} IrBuffer;

typedef enum {
   VAR_LOOP,
   VAR_LET,                     /* a per-thread value bound once by STMT_LET */
   VAR_BLOCK,                   /* blockIdx.x */
   VAR_THREAD,                  /* threadIdx.x */
} VarKind;

typedef struct IrVar_ {
   VarKind kind;
   char name[24];
   int64_t extent;              /* loops, block and thread: the range; LET: 0 */
} IrVar;

typedef enum {
   STMT_SEQ,                    /* children list[first .. first+count) */
   STMT_FOR,                    /* var from 0 to extent: body */
   STMT_LET,                    /* var = value, then the statements after it see it */
   STMT_STORE,                  /* buffer[index] = value */
   STMT_IF,                     /* if (value) body */
   STMT_BARRIER,                /* __syncthreads() */
   STMT_ALLREDUCE,              /* buffer[index] = reduce over the block's threads of value */
} StmtKind;

typedef enum {
   LOOP_SERIAL,
   LOOP_UNROLL,                 /* fully unrolled (Ansor's auto-unroll decided so) */
   LOOP_VECTOR,                 /* the lanes of one vector access */
} LoopKind;

typedef struct IrStmt_ {
   uint8_t kind;                /* StmtKind */
   uint8_t loop;                /* FOR: LoopKind */
   uint8_t reduce;              /* ALLREDUCE: REDUCE_SUM or REDUCE_MAX */
   int32_t var;                 /* FOR, LET */
   int64_t extent;              /* FOR */
   int32_t buffer;              /* STORE, ALLREDUCE */
   int32_t index;               /* STORE, ALLREDUCE */
   int32_t value;               /* STORE, LET, ALLREDUCE; IF: the condition */
   int32_t body;                /* FOR, IF */
   int32_t first, count;        /* SEQ */
} IrStmt;

typedef struct IrKernel_ {
   char name[IR_NAME_MAX];
   int root;                    /* te stage it computes */
   int64_t grid, block;
   int64_t sharedBytes;
   int32_t body;
   int blockVar, threadVar;
   int nparams;
   int params[IR_MAX_PARAMS];   /* global buffers it reads or writes, in buffer order */
} IrKernel;

typedef struct LoopNest_ {
   Expr *expr;
   int32_t nexpr, capexpr;
   IrStmt *stmt;
   int32_t nstmt, capstmt;
   int32_t *list;
   int32_t nlist, caplist;
   int nvars;
   IrVar vars[IR_MAX_VARS];
   int nbuffers;
   IrBuffer buffers[IR_MAX_BUFFERS];
   int nkernels;
   IrKernel kernels[IR_MAX_KERNELS];
} LoopNest;

void LoopNest_init(LoopNest *ln);
/* Empties the nest, keeping its memory for the next state. */
void LoopNest_reset(LoopNest *ln);
void LoopNest_done(LoopNest *ln);

/* ---- construction ---- */
int Ir_var(LoopNest *ln, VarKind kind, const char *name, int64_t extent);
int Ir_buffer(LoopNest *ln, const char *name, BufferScope scope, int stage, int kernel, int ndim,
              const int64_t *shape);
int32_t Ir_int(LoopNest *ln, int64_t v);
int32_t Ir_float(LoopNest *ln, double v);
int32_t Ir_varRef(LoopNest *ln, int var);
int32_t Ir_load(LoopNest *ln, int buffer, int32_t index);
/* Integer constants fold; x+0, x*1, x*0, floordiv(x,1), floormod(x,1) simplify. */
int32_t Ir_binary(LoopNest *ln, ExprKind kind, int32_t a, int32_t b);
int32_t Ir_select(LoopNest *ln, int32_t cond, int32_t t, int32_t f);
int32_t Ir_unary(LoopNest *ln, ExprKind kind, int32_t a);   /* EXPR_CAST and intrinsics */
static inline const Expr *Ir_expr(const LoopNest *ln, int32_t e) {
   return &ln->expr[e];
}
/* Whether e is the integer constant v. */
bool Ir_isInt(const LoopNest *ln, int32_t e, int64_t v);

int32_t Ir_seq(LoopNest *ln, const int32_t *items, int n);
int32_t Ir_for(LoopNest *ln, int var, LoopKind loop, int32_t body);
int32_t Ir_let(LoopNest *ln, int var, int32_t value);
int32_t Ir_store(LoopNest *ln, int buffer, int32_t index, int32_t value);
int32_t Ir_if(LoopNest *ln, int32_t cond, int32_t body);
int32_t Ir_barrier(LoopNest *ln);
int32_t Ir_allreduce(LoopNest *ln, ReduceKind op, int buffer, int32_t index, int32_t value);

/* Readable text of the whole nest (for `explain` and tests). */
void LoopNest_print(const LoopNest *ln, FILE *out);
/* Formats an expression; returns the length it needed. */
size_t LoopNest_formatExpr(const LoopNest *ln, int32_t e, char *buf, size_t size);

#endif
