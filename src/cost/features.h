/* Program features of a lowered state, for the learned cost models.
 *
 * Three inputs, all computed by Analysis_run (cost/analysis.h) on the loop nest:
 *
 * 1. Ansor's per-store features: one row of FEATURE_LEN = 164 floats for every buffer
 *    the nest stores to (ansor.md 5.2), rows in the order of each buffer's first store.
 * 2. PAM's pattern block (pruner.md 2.1 b): PATTERN_LEN x PATTERN_WIDTH = 8 x 23 floats
 *    describing the accesses of the multi-level-tiling dataflow, or zeros.
 * 3. The workload embedding (pruner.md 2.1, ansor.md 5.4): WORKLOAD_LEN = 10 floats per
 *    task, appended to every row by PAM and the MLP (Features_workload).
 *
 * slog(x) below is sign(x) * log2(|x| + 1). Every entry is slog'd except the one-hot
 * entries and is_gpu, as in Ansor's GetPerStoreFeature (which applies slog to the
 * arithmetic-intensity curve too).
 *
 * ---- Definitions, on the loop nest ----
 * Loop stack of a statement: blockIdx.x (extent = grid), then, in a kernel with
 * virtual threads, a vthread loop (extent = virtual threads per thread), then
 * threadIdx.x (extent = block), then the FOR loops around the statement, outermost
 * first. The copies of a statement for each virtual thread are one statement under the
 * vthread loop, as in Ansor's unflattened program. outer_prod is the product of every
 * extent on the stack.
 * Accesses of a statement: the stored buffer (write), then each other buffer its value
 * loads, in the order the value first reads them; a buffer both loaded and stored is
 * readwrite and keeps only the store's index. An index has one expression per buffer
 * dimension; LET variables count as their values.
 * A warp's mma statement (Tensor Cores) is a store that reads and writes its
 * accumulators and reads its two shared tiles, each by flat index: per execution a
 * thread updates 4 accumulators and moves a 32nd of the fragment's 16 x D elements of A
 * and 8 x D of B (D = Precision_mmaDepth: 16, or 8 for TF32), and the fragment's
 * region is the index's bound plus 3, 15 x lda + D - 1 and 7 x ldb + D - 1 elements.
 * Its operations are the 16 x 8 x D multiply-adds of the warp shared by its 32
 * threads: 4 D float_addsub and 4 D float_mul per execution, as 4 D executions of a
 * plain FP32 reduction's acc = acc + a x b would count, plus the index arithmetic of
 * the two tile indices.
 * Region of an access at loop level i: per dimension, the bound of its index when the
 * loops at level i and inside run over their extents and the outer loops sit at 0
 * (the union over every load of the buffer, and over the virtual threads' copies when
 * the vthread loop runs); the touched elements are the product over dimensions.
 *
 * ---- Row layout (offsets into the 164 floats) ----
 * Group 1, computation (57). Operation counts of the stored value per execution
 * (index arithmetic of its loads included), times outer_prod, summed over every store
 * to the buffer:
 *   0 float_mad (always 0: Ansor never detects MAD)  1 float_addsub  2 float_mul
 *   3 float_divmod  4 float_cmp (min, max, comparisons)  5 float_mathfunc (exp, erf,
 *   sqrt, rsqrt, tanh, sigmoid)  6 float_otherfunc (always 0)  7 int_mad (0)  8 int_addsub
 *   9 int_mul  10 int_divmod (floordiv, floormod)  11 int_cmp  12 int_mathfunc (0)
 *   13 int_otherfunc (0)  14 bool_op  15 select_op
 * Annotations on the stack at the (last) store:
 *   16 vec_num (vectorized loops)  17 vec_prod (their extents' product)
 *   18 vec_len (the innermost one's extent)  19..26 vec position one-hot: 19 none, ...,
 *   26 mixed (Ansor only ever sets none or mixed)
 *   27 unroll_num  28 unroll_prod  29 unroll_len  30..37 unroll position one-hot
 *   38 parallel_num  39 parallel_prod  40 parallel_len  41..48 parallel position
 *   one-hot (GPU kernels have no parallel loops: 0, 0, 0, none)
 *   49 is_gpu (1, not slog'd)  50 blockIdx.x length (grid)  51 blockIdx.y (1)
 *   52 blockIdx.z (1)  53 threadIdx.x length (block)  54 threadIdx.y (1)
 *   55 threadIdx.z (1)  56 vthread length
 * Group 2, buffer accesses (5 x 18 = 90) of the last store: the accesses sorted by
 * (lines, bytes) descending (ties keep access order), the first 5, zero-padded. Buffer
 * b occupies 57 + 18 b .. 57 + 18 b + 17:
 *   +0..2 access type one-hot: read, write, readwrite
 *   +3 bytes = outer_prod x the elements per execution (1; an mma's above) x 4
 *   +4 unique_bytes = touched elements over the whole kernel (level 0) x 4
 *   +5 lines = max(1, outer_prod / r x min(1, stride x 4 / 64)): stride is the access's
 *      stride along the innermost loop that moves it; r is the innermost loop's extent
 *      to the power of the loops skipped to find it (Ansor's reduce_ratio)
 *   +6 unique_lines = max(1, unique_bytes / min(64, n)), n = 4 x the extent of the
 *      innermost dimension the level-0 region covers fully (4 when none)
 *   +7..9 reuse type one-hot: loop-multiple-read, serial-multiple-read-write, none
 *   +10 reuse_dis_iter  +11 reuse_dis_bytes  +12 reuse_ct: walking out from the
 *      innermost loop, while a loop moves the access, reuse_dis_iter multiplies by its
 *      extent and reuse_dis_bytes becomes the bytes every access recorded under it has
 *      touched; the first loop that does not move it is a loop-multiple-read reuse with
 *      reuse_ct = its extent (reuse_dis_bytes, when that is the innermost loop, counts
 *      4 bytes per recorded access); before that, a loop under which the buffer was
 *      accessed by more than one statement is a serial reuse (reuse_dis_iter = the
 *      smallest region recorded for the buffer / extent, reuse_dis_bytes = all bytes
 *      recorded / extent, reuse_ct = accesses - 1); otherwise no reuse (zeros)
 *   +13..16 bytes, unique_bytes, lines, unique_lines divided by reuse_ct (times 2 when
 *      reuse_ct < 0.5)
 *   +17 stride along the innermost loop (0 when an outer loop gave it)
 * Group 3, arithmetic intensity (10): 147..156. From the innermost loop out, the float
 *   operations of the statement times the loop extents so far, over the bytes its
 *   accesses touch at that level; 10 points at 1/10 .. 10/10 of the total operations,
 *   linearly interpolated; zeros when the statement has no float operation.
 * Group 4, allocation (4), for shared and local buffers and intermediate global ones
 *   (placeholders and the output are not allocated by the program: zeros):
 *   157 alloc_size (elements x 4)  158 alloc_prod (elements x alloc_outer_prod)
 *   159 alloc_outer_prod (extent product of the loops around the innermost loop that
 *   contains every access of the buffer: where Ansor's realize would sit)
 *   160 alloc_inner_prod (outer_prod / alloc_outer_prod)
 * Group 5, outer scope (3): 161 outer_prod  162 num_loops (stack depth)
 *   163 auto_unroll_max_step of the kernel.
 *
 * ---- Pattern block (8 x 23) ----
 * Every statement appends its accesses, in the order above but with the stored buffer
 * last, to one sequence, each with a location code: 0 global, 1 shared, 2 local. The
 * block is the 8 accesses from the first place where the codes read 2 0 1 0 1 1 1 2:
 * register init, two cooperative fetches (global then shared), then the update reading
 * both shared copies into the register tile. Search is left to right over the
 * sequence, so the position is deterministic. Per access (entry offsets):
 *   0 slog(float operations of its statement x outer_prod)  1..3 location one-hot
 *   (global, shared, local)  4..6 access type one-hot  7 bytes  8 unique_bytes  9 lines
 *   10 unique_lines  11..13 reuse type one-hot  14 reuse_dis_iter  15 reuse_dis_bytes
 *   16 reuse_ct  17..20 the four /reuse_ct values  21 stride  22 alloc_size (0 for
 *   global buffers); all as in group 2 and slog'd except the one-hots.
 *
 * ---- Workload embedding (10) ----
 *   0 the task computes a max (relu, relu6, clip, hardswish, hardsigmoid, max pooling,
 *   softmax's row max)  1 a min (relu6, clip, hardswish, hardsigmoid)  2 an elementwise
 *   add (bias, residual, the + 3 of hardswish and hardsigmoid)
 *   3 a convolution that is not depthwise  4 a Winograd convolution (never: no such op)
 *   5 a depthwise convolution  6 dense  7 softmax  8 batch_matmul  9 always 0
 * These are Ansor's keyword flags (max, min, add, Conv2dOutput, conv2d_winograd,
 * DepthwiseConv2d, dense, softmax, compute(b, i, j)) read from the op instead of from
 * TVM's text of the DAG. */
#ifndef HEADER_features
#define HEADER_features

#include "ir/loopnest.h"
#include "te/op.h"

#define FEATURE_LEN 164
#define FEATURE_MAX_ROWS IR_MAX_BUFFERS
#define FEATURE_MAX_BUFS 5
#define FEATURE_BUF_LEN 18
#define PATTERN_LEN 8
#define PATTERN_WIDTH 23
#define WORKLOAD_LEN 10

/* Group offsets */
enum {
   FEAT_GROUP1 = 0,
   FEAT_VEC_NUM = 16,
   FEAT_UNROLL_NUM = 27,
   FEAT_PARALLEL_NUM = 38,
   FEAT_IS_GPU = 49,
   FEAT_BLOCK_X = 50,
   FEAT_THREAD_X = 53,
   FEAT_VTHREAD = 56,
   FEAT_GROUP2 = 57,
   FEAT_GROUP3 = 147,
   FEAT_GROUP4 = 157,
   FEAT_GROUP5 = 161,
};

/* Offsets inside one buffer's 18 entries of group 2 */
enum {
   FBUF_ACC_READ = 0,
   FBUF_ACC_WRITE = 1,
   FBUF_ACC_READWRITE = 2,
   FBUF_BYTES = 3,
   FBUF_UNIQUE_BYTES = 4,
   FBUF_LINES = 5,
   FBUF_UNIQUE_LINES = 6,
   FBUF_REUSE_LOOP = 7,
   FBUF_REUSE_SERIAL = 8,
   FBUF_REUSE_NONE = 9,
   FBUF_REUSE_DIS_ITER = 10,
   FBUF_REUSE_DIS_BYTES = 11,
   FBUF_REUSE_CT = 12,
   FBUF_BYTES_D_REUSE = 13,
   FBUF_UNIQUE_BYTES_D_REUSE = 14,
   FBUF_LINES_D_REUSE = 15,
   FBUF_UNIQUE_LINES_D_REUSE = 16,
   FBUF_STRIDE = 17,
};

/* The pattern Ansor's multi-level tiling makes, as location codes. */
#define PATTERN_NEEDLE "20101112"

typedef struct Features_ {
   int nrows;
   int buffer[FEATURE_MAX_ROWS];                /* the loop-nest buffer of each row */
   float row[FEATURE_MAX_ROWS][FEATURE_LEN];
   int patternAt;                               /* position in the access sequence, or -1 */
   int sequenceLength;
   float pattern[PATTERN_LEN][PATTERN_WIDTH];
} Features;

/* sign(x) log2(|x| + 1) */
float Features_slog(double x);

/* The task's workload embedding. */
void Features_workload(const OpParams *op, float out[WORKLOAD_LEN]);

/* The name of entry i of a row ("float_addsub", "B2.unique_lines", ...), for explain. */
const char *Features_name(int i, char *buf, size_t size);

#endif
