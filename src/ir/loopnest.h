/* The loop nest: a state lowered to kernels of loops, guards, stores, barriers and
 * cross-thread reductions over flat buffers with a scope (global, shared, local). Three
 * consumers read it: CUDA code generation, the CPU executor, and the cost analyses.
 *
 * Everything lives in growing arrays owned by the LoopNest and is referred to by index;
 * LoopNest_reset empties them without freeing, so lowering thousands of states reuses
 * the same memory (one LoopNest per thread). Expressions reuse te's ExprKind: EXPR_AXIS
 * names a variable (ref = variable id) and EXPR_LOAD reads a buffer (ref = buffer id)
 * at one flat index (args[0]). Virtual threads are expanded: every vthread's copy of a
 * statement appears with its vthread coordinates as constants, and the copies sit
 * together in one SEQ marked `vthread`, so that the analyses can see them as the one
 * statement of a virtual-thread loop.
 *
 * Accesses to buffers of more than one dimension also keep their index per dimension
 * (the flat index is for code generation and the executor; the analyses measure the
 * region an access touches per dimension, as Ansor does on unflattened loops): a load's
 * v.i and a store's `dims` give the position of ndim index expressions in `dims`, or -1
 * when only the flat index is known. */
#ifndef HEADER_loopnest
#define HEADER_loopnest

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "te/dag.h"
#include "te/precision.h"

#define IR_MAX_BUFFERS 40         /* at most 64: kernels track their buffers in a bit set */
#define IR_MAX_VARS 160
#define IR_MAX_KERNELS 4
#define IR_MAX_PARAMS 12
#define IR_NAME_MAX 40
#define IR_SMALL_INTS 256        /* integer constants 0..255 are made once per nest */

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
   uint8_t precision;           /* shared: FP16 or BF16 stores its elements in 2 bytes,
                                 * rounded to the precision as they are stored; FP32
                                 * otherwise (4 bytes) */
} IrBuffer;

/* The bytes of one element of b. */
static inline int Ir_elemBytes(const IrBuffer *b) {
   return Precision_storageBytes((Precision)b->precision);
}

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
   int32_t value;               /* LET: the expression bound; others -1 */
   int32_t ref;                 /* the one expression naming it, once made; else -1 */
} IrVar;

typedef enum {
   STMT_SEQ,                    /* children list[first .. first+count) */
   STMT_FOR,                    /* var from 0 to extent: body */
   STMT_LET,                    /* var = value, then the statements after it see it */
   STMT_STORE,                  /* buffer[index] = value */
   STMT_IF,                     /* if (value) body */
   STMT_BARRIER,                /* __syncthreads() */
   STMT_ALLREDUCE,              /* buffer[index] = reduce over the block's threads of value */
   STMT_MMA,                    /* a warp's matrix multiply-accumulate on the Tensor Cores */
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
   uint8_t vthread;             /* SEQ: the children are one statement's copies, one per
                                   virtual thread, in vthread order */
   uint8_t async;               /* STORE: a copy from global to shared memory that may run
                                   asynchronously (cp.async) where the device can; the
                                   next barrier waits for it */
   uint8_t precision;           /* MMA: the operands' Precision */
   uint8_t prefetch;            /* STORE: into registers, a load for a later iteration of
                                   the serial loop around it: the load's latency overlaps
                                   the work until the value is used */
   int32_t var;                 /* FOR, LET */
   int64_t extent;              /* FOR */
   int32_t buffer;              /* STORE, ALLREDUCE */
   int32_t index;               /* STORE, ALLREDUCE */
   int32_t dims;                /* STORE: per-dimension indices in LoopNest.dims, or -1 */
   int32_t value;               /* STORE, LET, ALLREDUCE; IF: the condition */
   int32_t body;                /* FOR, IF */
   int32_t first, count;        /* SEQ */
   int32_t operand[2];          /* MMA: the shared tiles A (m by k) and B (n by k) */
   int32_t operandIndex[2];     /* MMA: the element of each at the fragment's (0, 0) */
   int32_t ld[2];               /* MMA: elements from one row of each to the next */
} IrStmt;

typedef struct IrKernel_ {
   char name[IR_NAME_MAX];
   int root;                    /* te stage it computes */
   int64_t grid, block;
   int64_t sharedBytes;
   int64_t vthreads;            /* virtual threads per thread (1 when none) */
   int unrollStep;              /* Ansor's auto_unroll_max_step for the kernel's loops */
   int64_t gathers;             /* > 0: block j reads only what blocks t + i tiles (i
                                 * below gathers; t = j / gatherSpan, tiles = grid /
                                 * gatherSpan) of the kernel before it wrote (a split-K
                                 * sum, gatherSpan blocks a tile); 0: it may read
                                 * anything the kernels before it wrote */
   int64_t gatherSpan;
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
   int32_t *dims;               /* per-dimension indices of accesses */
   int32_t ndims, capdims;
   int32_t smallInt[IR_SMALL_INTS];   /* expression of constant i, plus one; 0 when not made */
   uint64_t touched;            /* global buffers accessed since Ir_kernelBegin */
   bool allreduce;              /* an ALLREDUCE was made since Ir_kernelBegin */
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
/* Starts collecting the global buffers (and whether any cross-thread reduction) that
 * the statements and expressions made from now on use: one kernel's parameters. Every
 * load and store made is part of the kernel; nothing is made and then dropped. */
void Ir_kernelBegin(LoopNest *ln);
/* A new kernel of grid blocks of `block` threads computing te stage `root`, with its
 * blockIdx.x and threadIdx.x variables; calls Ir_kernelBegin. Its body, shared bytes,
 * unroll step and parameters are the caller's to set. */
IrKernel *Ir_kernel(LoopNest *ln, const char *name, int root, int64_t grid, int64_t block);
int Ir_var(LoopNest *ln, VarKind kind, const char *name, int64_t extent);
int Ir_buffer(LoopNest *ln, const char *name, BufferScope scope, int stage, int kernel, int ndim,
              const int64_t *shape);
int32_t Ir_int(LoopNest *ln, int64_t v);
int32_t Ir_float(LoopNest *ln, double v);
int32_t Ir_varRef(LoopNest *ln, int var);
int32_t Ir_load(LoopNest *ln, int buffer, int32_t index);
/* A load at flat `index` that also records the per-dimension indices dims[0..ndim). */
int32_t Ir_loadAt(LoopNest *ln, int buffer, int32_t index, const int32_t *dims);
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
int32_t Ir_storeAt(LoopNest *ln, int buffer, int32_t index, const int32_t *dims, int32_t value);
/* The copies of one statement for each virtual thread (a plain SEQ for the consumers
 * that run or print it). */
int32_t Ir_vthreadSeq(LoopNest *ln, const int32_t *copies, int n);
/* The per-dimension indices of a load expression or a store statement, or NULL. */
static inline const int32_t *Ir_loadDims(const LoopNest *ln, int32_t e) {
   return ln->expr[e].v.i >= 0 ? &ln->dims[ln->expr[e].v.i] : NULL;
}
static inline const int32_t *Ir_storeDims(const LoopNest *ln, int32_t s) {
   return ln->stmt[s].dims >= 0 ? &ln->dims[ln->stmt[s].dims] : NULL;
}
int32_t Ir_if(LoopNest *ln, int32_t cond, int32_t body);
int32_t Ir_barrier(LoopNest *ln);
int32_t Ir_allreduce(LoopNest *ln, ReduceKind op, int buffer, int32_t index, int32_t value);
/* A store from global to shared memory that may run asynchronously: value is a load of a
 * global buffer, or select(guard, that load, 0.0) for a zero-filled guard. */
int32_t Ir_copyAsync(LoopNest *ln, int buffer, int32_t index, const int32_t *dims, int32_t value);
/* A store into a register array of a value loaded ahead of its use (IrStmt.prefetch). */
int32_t Ir_prefetch(LoopNest *ln, int buffer, int32_t index, int32_t value);
/* One warp's mma.sync of a 16x8 fragment, k deep (Sketch_mmaK of the precision): for
 * every row r < 16, column c < 8 and step q < k in order,
 *   D(r, c) += round(A[aIndex + r lda + q]) * round(B[bIndex + c ldb + q])
 * in FP32, where round is Precision_round and D(r, c) is the float at acc[accIndex +
 * 2 (r / 8) + c % 2] of the warp's lane 4 (r % 8) + c / 2 (the PTX fragment layout).
 * The indices must be the same for the warp's 32 threads, which run it together. */
int32_t Ir_mma(LoopNest *ln, Precision precision, int acc, int32_t accIndex, int a, int32_t aIndex,
               int64_t lda, int b, int32_t bIndex, int64_t ldb);

/* "global", "shared" or "local" */
const char *Ir_scopeName(BufferScope s);
/* Readable text of the whole nest (for `explain` and tests). */
void LoopNest_print(const LoopNest *ln, FILE *out);
/* Formats an expression; returns the length it needed. */
size_t LoopNest_formatExpr(const LoopNest *ln, int32_t e, char *buf, size_t size);

#endif
