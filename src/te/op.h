/* The op library: the operators a task can hold, their parameters, validation, compute
 * DAG, exact FLOP count and display. The plain C reference implementations are in
 * te/ref.h. One table in op.c describes every op; the task-file loader, the --list
 * table and the man page's list follow it. */
#ifndef HEADER_op
#define HEADER_op

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "te/dag.h"

typedef enum {
   OP_CONV2D,
   OP_DENSE,
   OP_BATCH_MATMUL,
   OP_MAX_POOL2D,
   OP_AVG_POOL2D,
   OP_ADAPTIVE_AVG_POOL2D,
   OP_GLOBAL_AVG_POOL2D,
   OP_SOFTMAX,
   OP_LAYER_NORM,
   OP_KIND_COUNT
} OpKind;

/* Elementwise stages fused after the main op, applied in the order listed. */
typedef enum {
   EPI_BIAS,          /* + bias[channel]: conv2d's output channel, dense's / batch_matmul's n */
   EPI_ADD,           /* + residual, a tensor of the output's shape */
   EPI_RELU,          /* max(x, 0) */
   EPI_RELU6,         /* min(max(x, 0), 6) */
   EPI_CLIP,          /* min(max(x, lo), hi) */
   EPI_GELU,          /* 0.5 x (1 + erf(x / sqrt 2)) */
   EPI_HARDSWISH,     /* x * (min(max(x + 3, 0), 6) / 6) */
   EPI_HARDSIGMOID,   /* min(max(x + 3, 0), 6) / 6 */
   EPI_SIGMOID,       /* 1 / (1 + exp(-x)) */
   EPI_KIND_COUNT
} EpilogueKind;

#define OP_MAX_EPILOGUE 6
#define OP_MAX_INPUTS (3 + OP_MAX_EPILOGUE)

typedef struct Epilogue_ {
   EpilogueKind kind;
   double lo, hi;            /* EPI_CLIP bounds */
} Epilogue;

typedef struct OpParams_ {
   OpKind kind;
   /* conv2d and the pools, NCHW */
   int64_t batch, in_c, in_h, in_w;
   int64_t out_c;                               /* conv2d filters; in_c for pools */
   int64_t kernel_h, kernel_w;
   int64_t stride_h, stride_w;
   int64_t pad_top, pad_left, pad_bottom, pad_right;
   int64_t dilation_h, dilation_w;
   int64_t groups;
   bool count_include_pad;                      /* avg_pool2d */
   int64_t out_h, out_w;                        /* derived by Op_finish; given for adaptive */
   /* dense:        out[m, n]    = sum_k a[m, k] * w[n, k]
    * batch_matmul: out[b, m, n] = sum_k a[b, m, k] * w[b, n, k] */
   int64_t b, m, n, k;
   /* softmax and layer_norm normalize over the last axis of `shape` */
   int ndim;
   int64_t shape[TE_MAX_DIMS];
   double epsilon;                              /* layer_norm */
   int nepilogue;
   Epilogue epilogue[OP_MAX_EPILOGUE];
} OpParams;

const char *Op_name(OpKind kind);
/* Returns the kind, or -1 for an unknown name. */
int Op_kindFromName(const char *name);
const char *Epilogue_name(EpilogueKind kind);
int Epilogue_kindFromName(const char *name);
/* x through an elementwise epilogue that reads no tensor (relu to sigmoid), in double;
 * x itself for bias and add, which add a tensor's element instead. */
double Epilogue_activate(const Epilogue *epi, double x);

/* Sets the defaults of `kind` (stride 1, no padding, dilation 1, groups 1, ...). */
void Op_defaults(OpParams *p, OpKind kind);
/* Validates the parameters and derives the output size. On failure *field names the
 * task-file key at fault ("kernel", "pad", "groups", "epilogue", ...) and *cause says
 * what is wrong and what was expected. */
int Op_finish(OpParams *p, const char **field, char **cause);

/* Checks epilogue entry i against the op and the entries before it (bias only where
 * there is a channel, at most one bias, clip bounds in order). */
int Op_checkEpilogue(const OpParams *p, int i, char **cause);

/* Output shape; returns its rank. */
int Op_outputShape(const OpParams *p, int64_t *shape);
/* Inputs, in DAG placeholder order: the op's own inputs, then one per epilogue that
 * reads a tensor (bias, residual). */
int Op_numInputs(const OpParams *p);
/* Of those, the op's own (conv2d: data, kernel; layer_norm: data, gamma, beta; ...). */
int Op_numOwnInputs(const OpParams *p);
/* Shape of input i; returns its rank. *name gets the placeholder's name. */
int Op_inputShape(const OpParams *p, int i, int64_t *shape, const char **name);
/* Element counts of input i and of the output. */
int64_t Op_inputElems(const OpParams *p, int i);
int64_t Op_outputElems(const OpParams *p);

/* Builds the compute DAG into an initialized, empty g. */
void Op_buildDag(const OpParams *p, Dag *g);
/* Exact FLOP count of one run (Ansor's counting rules, see Dag_estimateFlops). */
double Op_flops(const OpParams *p);

/* "1x64x56x56 -> 64, 3x3 s1 p1" style summary of the shape. */
size_t Op_describe(const OpParams *p, char *buf, size_t size);
/* "bias+relu", or "-" for none. */
size_t Op_epilogueText(const OpParams *p, char *buf, size_t size);
/* A canonical key naming the workload; two tasks are the same workload iff their keys
 * are equal. */
size_t Op_key(const OpParams *p, char *buf, size_t size);
/* The op kind a workload key (Op_key's text) names: its op's name comes first, then
 * '_'; -1 when no op's does. */
int Op_kindOfKey(const char *key);

#endif
