/* States: a sketch id plus a fixed-size vector of knob values, the point in the schedule
 * space the search moves. States are small values: copy them, hash them, print them.
 *
 * Knobs, by the slots of the sketch (sched/sketch.h):
 *   TILE     the inner lengths of an exact split (Ansor's SplitStep lengths): spatial
 *            [vthread, thread, inner, innermost], reduce [middle, inner]; the outer part
 *            is the extent over their product;
 *   THREADS  threads per block of a simple or cross-thread kernel;
 *   VECTOR   the vector width of a cooperative fetch;
 *   unroll   Ansor's auto_unroll_max_step: 0, 16, 64, 512 or 1024;
 *   TC       a Tensor-Core tile: warps and fragments along m and n, fragments per k stage.
 * A state's precision is its sketch's (Sketch.precision); the text form names it.
 * Sampling and mutation follow Ansor (ansor.md 2.2-2.6, 3.4); all randomness comes from
 * the Rng passed in. */
#ifndef HEADER_state
#define HEADER_state

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device/device.h"
#include "sched/sketch.h"
#include "util/rng.h"

#define STATE_TEXT_VERSION 1

typedef struct State_ {
   uint16_t sketch;
   uint16_t nknobs;
   int32_t knob[SKETCH_MAX_KNOBS];
} State;

/* The hardware limits a state must respect (Ansor's VerifyGPUCode inputs). */
typedef struct SchedLimits_ {
   int64_t maxThreadsPerBlock;      /* 1024 */
   int64_t maxSharedPerBlock;       /* bytes without opt-in: 49152 */
   int64_t maxVthread;              /* warp size / 4 = 8 */
   int64_t warpSize;                /* 32 */
   int64_t maxVectorBytes;          /* 16 */
} SchedLimits;

void SchedLimits_default(SchedLimits *l);
/* The device's values where devices.yaml knows them, the defaults otherwise. */
void SchedLimits_fromDevice(SchedLimits *l, const Device *d);

/* What a state makes of one kernel. */
typedef struct KernelShape_ {
   int64_t blocks;
   int64_t threads;                 /* per block */
   int64_t vthreads;                /* MLT: virtual threads per thread */
   int64_t sharedBytes;
   int64_t outputsPerThread;        /* MLT: register tile, vthreads included */
} KernelShape;

void State_kernelShape(const SketchSet *set, const State *s, int kernel, KernelShape *out);

/* What a state makes of a TC kernel: the matrix multiply's extents, the block's warps
 * and each warp's fragments, the staged k tile and the grid. */
typedef struct TcTile_ {
   Precision precision;
   int64_t batch, M, N, K;
   int64_t warpsM, fragsM, warpsN, fragsN;
   int64_t mmaK, stepsK;           /* the fragment's depth; fragments per staged k tile */
   int64_t blockM, blockN, blockK; /* 16 warpsM fragsM, 8 warpsN fragsN, mmaK stepsK */
   int64_t ld;                     /* elements per staged row: blockK + SKETCH_TC_ROW_PAD(16) */
   int64_t gridM, gridN, stagesK;  /* blocks along m and n, stages along k */
   int64_t split, stagesPerSplit;  /* blocks each tile's k stages are divided among (split-K;
                                    * 1 when unsplit), and the stages each takes */
   int64_t inFlight;               /* k stages in flight: 2 prefetches the next stage's
                                    * operands into registers during this one's mma */
} TcTile;

void State_tcTile(const SketchSet *set, const State *s, int kernel, TcTile *out);
/* The block tile of an MLT anchor's axis: the product of all but the outer part. */
int64_t State_blockTile(const SketchSet *set, const State *s, const SplitSlot *tile);
/* Shape of the shared copy of the kernel's cache c (one dimension per dimension of the
 * cached stage); returns its element count. */
int64_t State_cacheShape(const SketchSet *set, const State *s, int kernel, int c, int64_t *dims);
/* The extent a split divides: constant, or for VECTOR the shared copy's size. */
int64_t State_splitExtent(const SketchSet *set, const State *s, const SplitSlot *slot);

/* Checks every knob and the hardware limits; *cause names the knob or kernel at fault. */
int State_validate(const SketchSet *set, const State *s, const SchedLimits *lim, char **cause);

/* Ansor's initial annotation of a sketch: tile sizes uniform over the factorization
 * schemes, 32 threads for simple and cross-thread kernels, vector width 1, a random
 * unroll step. The result may be invalid. */
void State_sample(const SketchSet *set, int sketch, Rng *rng, State *out);
/* Samples until valid (a random sketch of those the set offers when sketch < 0), at
 * most maxTries times. */
int State_sampleValid(const SketchSet *set, int sketch, Rng *rng, const SchedLimits *lim,
                      int maxTries, State *out, char **cause);

/* Ansor's mutations. Each returns 0 and changes *s when the mutant is valid, -1 and
 * leaves *s alone otherwise. */
int State_mutateTileSize(const SketchSet *set, State *s, Rng *rng, const SchedLimits *lim);
int State_mutateUnroll(const SketchSet *set, State *s, Rng *rng, const SchedLimits *lim);
/* Picks MutateTileSize with weight 0.9 and MutateAutoUnroll with 0.1. */
int State_mutate(const SketchSet *set, State *s, Rng *rng, const SchedLimits *lim);

uint64_t State_hash(const State *s);
bool State_equal(const State *a, const State *b);

/* The stable text form:
 *   {"v":1,"sketch":0,"knobs":{"conv2d_nchw.nn":[1,1,1,1],...,"conv2d_nchw.unroll":512}}
 * with "precision":"fp16" (bf16, tf32) after the sketch number for a Tensor-Core sketch;
 * parsing checks it against the sketch's.
 * Returns the length the whole text needs. */
size_t State_format(const SketchSet *set, const State *s, char *buf, size_t size);
/* Parses and validates the text form. */
/* The precision a state's text names ("precision"), without its sketches: FP32 when it
 * names none, or is not a state's text. */
Precision State_textPrecision(const char *text);
int State_parse(const SketchSet *set, const char *text, const SchedLimits *lim, State *out,
                char **cause);

#endif
