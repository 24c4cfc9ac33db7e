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
   /* appended, so that the kinds' numbers (saved in checkpoints' op masks) stay put */
   OP_CONV2D_TRANSPOSE,
   OP_RESIZE2D,
   OP_CONCAT,
   OP_ELEMENTWISE,
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
   EPI_MUL,           /* * a tensor of the output's shape */
   EPI_SCALE,         /* * scale[channel], the channel as for bias (BatchNorm's scale) */
   EPI_CHANNEL_MUL,   /* * s[n, c] over a 4-D output's h and w (squeeze-excitation) */
   EPI_MUL_CONST,     /* * a constant (value) */
   EPI_DIV_CONST,     /* / a constant (value) */
   EPI_KIND_COUNT
} EpilogueKind;

#define OP_MAX_EPILOGUE 6
#define OP_MAX_CONCAT 32
#define OP_MAX_INPUTS (OP_MAX_CONCAT + OP_MAX_EPILOGUE)

typedef struct Epilogue_ {
   EpilogueKind kind;
   double lo, hi;            /* EPI_CLIP bounds */
   double value;             /* EPI_MUL_CONST, EPI_DIV_CONST */
} Epilogue;

/* resize2d: where an output pixel samples the input (ONNX Resize's
 * coordinate_transformation_mode), and how nearest rounds (its nearest_mode) */
typedef enum { RESIZE_NEAREST, RESIZE_LINEAR } ResizeMode;
typedef enum {
   COORD_HALF_PIXEL,
   COORD_PYTORCH_HALF_PIXEL,
   COORD_ALIGN_CORNERS,
   COORD_ASYMMETRIC,
   COORD_KIND_COUNT
} ResizeCoord;
typedef enum {
   ROUND_PREFER_FLOOR,
   ROUND_PREFER_CEIL,
   ROUND_FLOOR,
   ROUND_CEIL,
   ROUND_KIND_COUNT
} ResizeRounding;

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
   int64_t out_h, out_w;                        /* derived by Op_finish; given for adaptive
                                                 * and resize2d */
   int64_t output_pad_h, output_pad_w;          /* conv2d_transpose: extra rows at the end */
   /* resize2d: the scale of each axis as a fraction out/in (num / den), which need not
    * equal out_h / in_h when the model gave scales; 0 / 0 means out / in */
   ResizeMode resize_mode;
   ResizeCoord coord;
   ResizeRounding rounding;
   int64_t scale_num[2], scale_den[2];
   /* dense:        out[m, n]    = sum_k a[m, k] * w[n, k]
    * batch_matmul: out[b, m, n] = sum_k a[b, m, k] * w[b, n, k] */
   int64_t b, m, n, k;
   /* softmax and layer_norm normalize over the last axis of `shape`; elementwise
    * applies its epilogue to a tensor of `shape`; concat's output is `shape`, its
    * inputs are `shape` with concat_len[i] along concat_axis */
   int ndim;
   int64_t shape[TE_MAX_DIMS];
   int concat_axis, ninputs;
   int64_t concat_len[OP_MAX_CONCAT];
   double epsilon;                              /* layer_norm */
   int nepilogue;
   Epilogue epilogue[OP_MAX_EPILOGUE];
} OpParams;

const char *Op_name(OpKind kind);
/* Returns the kind, or -1 for an unknown name. */
int Op_kindFromName(const char *name);
const char *Epilogue_name(EpilogueKind kind);
int Epilogue_kindFromName(const char *name);
/* Whether the stage reads a tensor (bias, add, mul, scale, channel_mul), and whether
 * that tensor is a per-channel vector (bias, scale). */
bool Epilogue_readsTensor(EpilogueKind kind);
bool Epilogue_perChannel(EpilogueKind kind);
/* Whether the stage carries a value (mul_const, div_const) or bounds (clip). */
bool Epilogue_hasValue(EpilogueKind kind);
const char *ResizeMode_name(ResizeMode m);
const char *ResizeCoord_name(ResizeCoord c);
const char *ResizeRounding_name(ResizeRounding r);
/* -1 for an unknown name. */
int ResizeMode_fromName(const char *name);
int ResizeCoord_fromName(const char *name);
int ResizeRounding_fromName(const char *name);
/* The scale num/den as a fraction with den <= 4096 whose quotient is `scale` in
 * float32 (a model's scales are float32: 0.6 is 3/5); -1 when there is none. */
int Op_scaleFraction(double scale, int64_t *num, int64_t *den);
/* x through an elementwise epilogue that reads no tensor (relu to sigmoid, mul_const,
 * div_const), in double; x itself for the stages that read a tensor instead. */
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

/* The output axis that bias and scale index: 1 for conv2d, conv2d_transpose, resize2d
 * and 4-D concat and elementwise outputs (NCHW), the last axis otherwise. */
int Op_channelAxis(const OpParams *p);

/* Output shape; returns its rank. */
int Op_outputShape(const OpParams *p, int64_t *shape);
/* Inputs, in DAG placeholder order: the op's own inputs, then one per epilogue that
 * reads a tensor (bias, residual). */
int Op_numInputs(const OpParams *p);
/* Of those, the op's own (conv2d: data, kernel; layer_norm: data, gamma, beta; concat:
 * its ninputs; ...). */
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
