/* Sketches: the structural schedule templates of a task, from Ansor's GPU sketch rules
 * (reference ansor.md 1) applied to the task's DAG. A sketch is a structure descriptor:
 * which stages are inlined, which kernels run and what each computes, which stages get a
 * shared-memory copy, and which knob slots a state fills in. It is not a list of TVM
 * transform steps.
 *
 * A sketch is a sequence of kernels, launched in order. Each kernel has one root stage,
 * whose loops its blocks and threads run:
 *   MLT     a multi-level tiled anchor (SSSRRSRS) accumulating in registers, with its
 *           elementwise consumer chain fused at the store (or stored itself when it has
 *           none: Ansor's cache-write case) and shared copies of its direct producers,
 *           fetched cooperatively by the block's threads;
 *   SIMPLE  the root's space axes fused and split into blocks of `threads` threads;
 *           reductions run serially in each thread;
 *   TC      a matrix multiply (dense, batch_matmul, conv2d as an implicit GEMM; see
 *           SketchGemm) on the Tensor Cores in one precision:
 *           each warp owns a tile of 16x8 mma.sync fragments, the block stages tiles of
 *           both operands in shared memory (FP16 and BF16 rounded once as they are
 *           stored, in 2 bytes, so that a fragment register is one 4-byte load; TF32 in
 *           FP32, asynchronously where the device can, rounded as the warps load
 *           them), products accumulate in
 *           FP32 registers, and the fused elementwise chain is applied at the store.
 *           Rows, columns and reduction steps past the operands' ends are zero-padded,
 *           so no extent needs to be a multiple of the tile. With a split-K knob S > 1
 *           the k stages are divided among S blocks per tile, which store their partial
 *           tiles to a scratch buffer, and a second kernel sums the S partials of each
 *           element in order and applies the fused chain (a small output with a long
 *           reduction, batch-1 inference's case, then fills the GPU). Offered only when
 *           the sketch options ask for the precision (SketchOptions).
 *   CTR     cross-thread reduction: the reduce axes fused and split across `threads`
 *           threads of a block, which then combine their partial results. Either the
 *           reduction is the root (one output element per block), or it is computed
 *           inside its consumer's kernel, whose last axis is split by the same thread
 *           count ("attached" reductions). */
#ifndef HEADER_sketch
#define HEADER_sketch

#include <stdbool.h>
#include <stdint.h>

#include "sched/factor.h"
#include "te/precision.h"
#include "te/dag.h"
#include "te/op.h"

#define SKETCH_MAX_SKETCHES 8
#define SKETCH_MAX_KERNELS 4
#define SKETCH_MAX_CACHES 4
#define SKETCH_MAX_ATTACHED 4
#define SKETCH_MAX_SPLITS 24
#define SKETCH_MAX_UNROLLS 4
#define SKETCH_MAX_KNOBS 48
#define SKETCH_KNOB_NAME_MAX 48

/* Ansor's GPU constants (ansor.md 1.3, 2.4, 3.1). */
#define SKETCH_WARP_SIZE 32
#define SKETCH_MAX_INNERMOST 64
#define SKETCH_UNROLL_STEPS 5
extern const int32_t Sketch_unrollSteps[SKETCH_UNROLL_STEPS];   /* 0, 16, 64, 512, 1024 */

typedef enum {
   KERNEL_MLT,
   KERNEL_SIMPLE,
   KERNEL_CTR,
   KERNEL_TC,
} KernelKind;

/* The mma.sync fragment of a TC kernel: 16 rows by 8 columns, Precision_mmaDepth deep. */
#define SKETCH_MMA_M 16
#define SKETCH_MMA_N 8
/* Elements of padding after each staged row of a TC kernel's operand tiles, so that the
 * 8 rows a fragment reads start on different banks: 4 floats (FP32 tiles, TF32's), 8
 * halves (16-bit tiles: a row of 16 k multiple bytes plus 16 puts row r's 4-byte words
 * 4r banks on). */
#define SKETCH_TC_ROW_PAD 4
#define SKETCH_TC_ROW_PAD16 8
/* The most blocks a TC kernel's k stages are split among (split-K), and the threads per
 * block of the kernel that sums their partial tiles (a thread an element: a tile of
 * more elements takes several blocks). */
#define SKETCH_TC_MAX_SPLIT 64
#define SKETCH_TC_SUM_THREADS 128
/* A TC kernel's knobs: tc.m, tc.n, tc.k, tc.split and tc.stages, in that order. */
#define SKETCH_TC_KNOBS 5

typedef enum {
   SPLIT_TILE,      /* an MLT axis: exact; spatial 4 parts (vthread, thread, inner, innermost),
                     * reduce 2 parts; the outer part is extent / product */
   SPLIT_THREADS,   /* a kernel's threads per block: 1 part, the outer part rounded up */
   SPLIT_VECTOR,    /* a cooperative fetch's vector width: 1 part over the shared buffer */
   SPLIT_TC,        /* a TC kernel's tile: each part a power of two from 1 to `extent`;
                     * m and n [warps, fragments per warp], k [fragments per stage],
                     * split [blocks the k stages are divided among], stages [k
                     * stages in flight: 2 loads the next stage's operands into
                     * registers while the warps multiply this one's] */
} SplitKind;

typedef struct SplitSlot_ {
   SplitKind kind;
   int kernel;
   int stage;                   /* TILE: the anchor; THREADS: the kernel root; VECTOR: the cached stage */
   int axis;                    /* TILE: the anchor's axis; otherwise -1 */
   bool reduce;                 /* TILE: a reduce axis */
   int nparts;
   int knob;                    /* first knob of the slot */
   int64_t extent;              /* constant extent; 0 for VECTOR (the shared buffer's size);
                                 * TC: the largest value of a part */
   const FactorSchemes *schemes;/* TILE: what sampling picks from */
   int32_t byDefault;           /* a one-part knob a state's text may leave out (TC split:
                                 * 1): its value then, and the text leaves it out when it
                                 * has it; 0 when every text names it */
   char name[SKETCH_KNOB_NAME_MAX];
} SplitSlot;

typedef struct UnrollSlot_ {
   int kernel;
   int stage;
   int knob;
   char name[SKETCH_KNOB_NAME_MAX];
} UnrollSlot;

/* A stage read as a matrix multiply, out[batch.., m.., n..] = sum over k.. of
 * A[..] * B[..], where A and B are the body's two factors, each a load of a placeholder
 * or of an inlined elementwise stage over one (conv2d's padding). The spatial axes both
 * factors read are batch axes, those only B reads are n axes, the others m axes; the
 * reduce axes are k. Each group is one row-major index over its axes: conv2d NCHW has m
 * = (nn, yy, xx), n = ff and k = (rc, ry, rx), and staging A's rows gathers the image's
 * windows (im2col) with the padding's zeros. */
typedef struct SketchGemm_ {
   int nbatch, nm, nn;
   int batchAxis[TE_MAX_DIMS], mAxis[TE_MAX_DIMS], nAxis[TE_MAX_DIMS];
   int64_t batch, M, N, K;      /* each group's extent; K over all reduce axes */
} SketchGemm;

typedef struct KernelPlan_ {
   KernelKind kind;
   int root;                    /* the stage the kernel's threads iterate */
   int anchor;                  /* MLT: the tiled stage; CTR root: the reduction; else -1 */
   int ncache;
   int cache[SKETCH_MAX_CACHES];/* MLT: stages the anchor reads from a shared copy */
   int cacheSplit[SKETCH_MAX_CACHES];  /* their VECTOR slots */
   int nattached;
   int attached[SKETCH_MAX_ATTACHED];  /* CTR: reductions computed inside this kernel */
   int threadSplit;             /* SIMPLE, CTR: the THREADS slot; -1 when all space is one block */
   int firstTile, ntiles;       /* MLT: the TILE slots, spatial axes then reduce axes;
                                 * TC: the m, n, k and split slots */
   SketchGemm gemm;             /* TC: the anchor as a matrix multiply */
} KernelPlan;

typedef enum {
   STAGE_PLAN_PLACEHOLDER,
   STAGE_PLAN_INLINE,           /* substituted into its readers */
   STAGE_PLAN_ROOT,             /* the root of a kernel */
   STAGE_PLAN_ANCHOR,           /* tiled inside an MLT kernel whose root is its consumer */
   STAGE_PLAN_ATTACHED,         /* a cross-thread reduction inside its consumer's kernel */
} StagePlan;

typedef struct Sketch_ {
   int id;
   Precision precision;         /* TC sketches: their operands'; FP32 otherwise */
   StagePlan plan[TE_MAX_STAGES];
   bool cached[TE_MAX_STAGES];  /* has a shared copy in an MLT kernel */
   bool crossThread[TE_MAX_STAGES];
   int consumerOf[TE_MAX_STAGES];  /* ANCHOR: the root it is fused into; ATTACHED: its consumer */
   bool selfAnchor[TE_MAX_STAGES]; /* a ROOT tiled as its own anchor (Ansor's cache write) */
   int nkernels;
   KernelPlan kernels[SKETCH_MAX_KERNELS];
   int nsplits;
   SplitSlot splits[SKETCH_MAX_SPLITS];
   int nunrolls;
   UnrollSlot unrolls[SKETCH_MAX_UNROLLS];
   int nknobs;
   char summary[160];           /* "MLT conv2d_nchw -> T_relu, shared pad_temp, kernel" */
} Sketch;

/* The sketches of one task. Keeps its own copy of the DAG, so it stands alone. */
typedef struct SketchSet_ {
   Dag dag;
   int64_t outputElements;
   int count;
   Sketch sketches[SKETCH_MAX_SKETCHES];
   unsigned offered;            /* bit i: sampling draws sketch i (State_sampleValid) */
   int nschemes;
   FactorSchemes schemes[SKETCH_MAX_SPLITS * SKETCH_MAX_SKETCHES];
} SketchSet;

/* What sketch generation offers beyond Ansor's rules. Zeroed, it offers nothing more:
 * the sketches and their numbers are Ansor's alone.
 *
 * A matrix multiply's Tensor-Core sketches, once any is asked for, are built in every
 * precision (FP16, BF16, TF32 after Ansor's, whichever are offered), so that a state's
 * sketch number means the same whatever a run offered; the set's `offered` mask says
 * which sketches sampling draws from. A reader of states others made asks for
 * everyPrecision (Sketch_readAny) and offers what Ansor's rules give. */
typedef struct SketchOptions_ {
   unsigned tensorCore;         /* PRECISION_BIT of each precision to offer TC sketches in */
   bool everyPrecision;         /* build the TC sketches even when none is offered */
} SketchOptions;

/* Builds every sketch a state may name, and offers Ansor's. */
extern const SketchOptions Sketch_readAny;

/* The Tensor-Core precisions a device of compute capability major.minor offers. */
unsigned Sketch_tensorCorePrecisions(int ccMajor, int ccMinor);

/* Applies the GPU sketch rules to the DAG (copied into the set). Tensor-Core sketches,
 * where the options ask for them and a stage is a matrix multiply, follow Ansor's, one
 * per precision in Precision order (every one of them: SketchOptions). */
void SketchSet_generate(SketchSet *set, const Dag *g);
void SketchSet_generateWith(SketchSet *set, const Dag *g, const SketchOptions *opt);
/* The sketches of an op's DAG, built for the purpose and dropped (the set keeps its
 * own copy). */
/* How many sketches the set offers (SketchSet.offered). */
int SketchSet_offeredCount(const SketchSet *set);
/* The precisions of the sketches the set offers, as PRECISION_BITs. */
unsigned SketchSet_offeredPrecisions(const SketchSet *set);
void SketchSet_forOp(SketchSet *set, const OpParams *op);
void SketchSet_forOpWith(SketchSet *set, const OpParams *op, const SketchOptions *opt);
void SketchSet_done(SketchSet *set);

/* Whether a cross-thread reduction over `threads` threads combines with warp shuffles
 * (a power of two of at most a warp) rather than a tree in shared memory, which costs
 * one float per thread. Sched, lowering and code generation all ask this. */
static inline bool Sketch_reduceWithShuffles(int64_t threads) {
   return threads <= SKETCH_WARP_SIZE && (threads & (threads - 1)) == 0;
}

/* A kernel's shared bytes after its next staging buffer of `bytes`: code generation
 * declares them __align__(16) in order, and ptxas lays them out so (2 floats before
 * another buffer take 16 bytes). Sched's validity check and lowering both count so. */
static inline int64_t Sketch_sharedAfter(int64_t used, int64_t bytes) {
   return (used + 15) / 16 * 16 + bytes;
}

/* ---- DAG analyses the rules use (exposed for tests and for lowering) ---- */

/* Ansor's NeedsMultiLevelTiling: the stage reduces and its loads miss output axes. */
bool Sketch_needsMultiLevelTiling(const Dag *g, int stage);
/* Product of spatial / reduce extents of a stage. */
int64_t Sketch_spaceLength(const Dag *g, int stage);
int64_t Sketch_reduceLength(const Dag *g, int stage);
/* Whether every hop of the reader chain from `op` to `target` has one reader, the same
 * shape, and reads its producer at exactly its own axes in order. */
bool Sketch_elementwiseMatch(const Dag *g, int op, int target);
/* How many leading axes of `consumer` index `producer` directly, with equal extents. */
int Sketch_commonOuterAxes(const Dag *g, int producer, int consumer);

/* Whether `stage` multiplies matrices as a TC kernel can (SketchGemm), and how, into
 * *out (may be NULL): both factors need spatial axes of their own, so depthwise and
 * grouped conv2d are not. */
bool Sketch_gemm(const Dag *g, int stage, SketchGemm *out);

/* Extent of the values an integer index expression takes when each axis a of `stage`
 * ranges over axisExtent[a] consecutive values: exact for affine indices, the worst
 * case over alignments for floor division. */
int64_t Sketch_indexExtent(const Dag *g, int32_t expr, const int64_t *axisExtent);

#endif
