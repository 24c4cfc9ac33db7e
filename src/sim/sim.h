/* The simulator: a deterministic analytical GPU model that gives a loop nest a latency
 * when no GPU is present (`sim:PROFILE`). It reads the lowered program itself (not PSA's
 * symbols, and none of PSA's formulas), the device profile and, where NVRTC compiled
 * the kernels, ptxas' register and spill report.
 *
 * Per kernel: how many blocks fit on an SM (threads, registers, shared memory, the
 * block limit); the instructions, FP32 and special-function operations, shared-memory
 * wavefronts (bank conflicts), global 32-byte sectors (coalescing, vector width) and
 * DRAM bytes (L2 reuse above the unique footprint) of one block, counted by walking the
 * nest and evaluating each access's addresses for sample warps; one warp's own latency
 * path (memory round trips, dependent FP chains, barriers); and the busiest SM's time,
 * round after round of resident blocks, with the partial last wave on fewer SMs. Every
 * constant and formula is documented in sim.c. A latency is the sum over kernels plus
 * a launch overhead each, times a deterministic jitter of at most SIM_JITTER.
 *
 * The work is split in two so that calibration can time the same programs under many
 * constants: Sim_count walks a nest once (what it issues and moves, its occupancy; this
 * depends on the hardware only), Sim_time turns those counts into seconds under a set
 * of free constants (latencies, overheads, efficiencies: SimParams). */
#ifndef HEADER_sim
#define HEADER_sim

#include <stdbool.h>
#include <stdint.h>

#include "device/device.h"
#include "te/precision.h"
#include "ir/loopnest.h"

/* The largest relative change the per-state jitter makes: latencies of one nest under
 * two jitter keys are within a factor (1 + SIM_JITTER) / (1 - SIM_JITTER). */
#define SIM_JITTER 0.01

/* What the compiler said of one kernel (ptxas' report), where NVRTC compiled it. */
typedef struct SimCompiled_ {
   int registers;               /* per thread; -1 unknown */
   int spillStores, spillLoads; /* bytes */
   int stackBytes;              /* per-thread frame */
} SimCompiled;

/* The free constants, in the order of the device fields DEV_SIM_FIRST + i. */
typedef enum {
   SIM_DRAM_LATENCY,
   SIM_L2_LATENCY,
   SIM_SHARED_LATENCY,
   SIM_L1_LATENCY,
   SIM_BARRIER_CYCLES,
   SIM_BLOCK_CYCLES,
   SIM_LAUNCH_US,
   SIM_DRAM_EFFICIENCY,
   SIM_L2_BYTES_PER_CLK,
   SIM_FP32_EFFICIENCY,
   SIM_OVERLAP_LOSS,
   SIM_PARAM_COUNT
} SimParam;

typedef struct SimParams_ {
   double v[SIM_PARAM_COUNT];
} SimParams;

/* The hardware the model reads from a profile, in its units. */
typedef struct SimGpu_ {
   Device device;                /* the profile, completed from its compute capability */
   double sms, partitions, warp;
   double maxWarpsPerSm, maxBlocksPerSm, regsPerSm, maxRegs, sharedPerSm;
   double sharedUnit, sharedReserved;
   double clock;                 /* Hz */
   double fpPerClk;              /* FP32 warp instructions per SM per clock at the peak */
   double tcFlopsPerClk[PRECISION_COUNT];   /* dense Tensor-Core FLOPs per SM per clock; 0 where none */
   double dramBytesPerSec, l2Bytes;
   uint64_t filled;              /* fields taken from the compute capability's values */
} SimGpu;

/* What one kernel issues and moves, and how it fits on an SM: all Sim_time needs. */
typedef struct SimCounts_ {
   double grid, W;               /* blocks; warps per block */
   int blocksPerSm;
   const char *limiter;          /* what bounds blocksPerSm */
   int registers;
   bool registersFromPtxas;
   double instr, fp, mufu;       /* per warp */
   double tcFlops;               /* per warp: Tensor-Core FLOPs, in tcPrecision */
   Precision tcPrecision;
   double wavefronts, l2Bytes, dramBytes;   /* per block */
   double sharedWavefronts, sharedIdeal;     /* per block: shared memory's wavefronts, and
                                                those without bank conflicts */
   double l1Bytes, l1HitBytes;   /* per block: asked of L1 (global and local), served there */
   double barriers;              /* per warp: whether warps of a block wait for each other */
   double pathFixed;             /* one warp's latency path without the free latencies */
   double memTrips, sharedTrips, l1Trips, barrierWaits;   /* times each free latency */
   double aheadTrips;            /* global load round trips issued ahead of their use (a
                                    pipeline's prefetch): the rest of the path hides them */
   double dramShare;             /* of a global load's round trips, the share to DRAM */
   double icache;                /* issue slowdown from code beyond the instruction cache */
   double flops;                 /* of the whole grid */
} SimCounts;

/* What a warp waits on, in the terms of Nsight Compute's warp states. */
typedef enum {
   SIM_STALL_LONG_SCOREBOARD,    /* a global or local load */
   SIM_STALL_SHORT_SCOREBOARD,   /* a shared load */
   SIM_STALL_BARRIER,
   SIM_STALL_WAIT,               /* a fixed-latency dependency */
   SIM_STALL_MATH_PIPE_THROTTLE, /* the FP32 or special-function pipe is busy */
   SIM_STALL_MIO_THROTTLE,       /* shared memory is busy */
   SIM_STALL_COUNT
} SimStall;

typedef struct SimKernel_ {
   double seconds;              /* launch overhead included, jitter not */
   int blocksPerSm;
   double occupancy;            /* resident warps / the SM's maximum */
   double waves;                /* grid / (SMs x blocksPerSm) */
   int registers;               /* per thread */
   bool registersFromPtxas;     /* else estimated from the nest */
   double flops;                /* FP32 arithmetic of the whole grid, an FMA counting 2 */
   double dramBytes;            /* after L2 reuse */
   double l2Bytes;              /* every sector requested */
   double rounds;               /* rounds of resident blocks on the busiest SM */
   double sharedSeconds;        /* the busiest SM's time in each part, over all rounds */
   double computeSeconds;
   double memorySeconds;
   double latencySeconds;       /* one warp's own latency path, over all rounds */
   double launchSeconds;
   double instructions;         /* warp instructions issued by the grid */
   double ipc;                  /* of them per SM and clock of the kernel's run */
   double sharedWavefronts;     /* of the grid; sharedIdeal of them without bank conflicts */
   double sharedIdeal;
   double l1Bytes, l1HitBytes;  /* asked of L1, served there (local memory that fits) */
   double stallCycles[SIM_STALL_COUNT];   /* a resident warp's, over all rounds */
   const char *bound;           /* the largest of the four: "compute", "shared memory",
                                   "memory" or "latency" */
   const char *limiter;         /* what bounds blocksPerSm: "threads", "registers",
                                   "shared memory" or "blocks" */
} SimKernel;

typedef struct SimReport_ {
   int nkernels;
   SimKernel kernels[IR_MAX_KERNELS];
   double seconds;              /* the latency returned */
} SimReport;

typedef struct SimProgram_ {
   int nkernels;
   SimCounts kernels[IR_MAX_KERNELS];
} SimProgram;

/* "long_scoreboard", Nsight Compute's name of the warp state. */
const char *SimStall_name(SimStall s);

/* The name, unit and help of a free constant, and its default where a profile sets none. */
const char *SimParam_name(SimParam p);       /* "dram_latency" (the key under sim:) */
double SimParam_default(SimParam p);
/* The constants for d: its sim.* fields, the defaults for the rest. */
void SimParams_fromDevice(SimParams *p, const Device *d);

/* The hardware of d. -1 with *cause when d lacks a field the model needs and its
 * compute capability does not fix ("device NAME (FILE:LINE) has no FIELD, which the
 * simulator needs"); fields the capability fixes are taken from it (g->filled says
 * which). */
int SimGpu_init(SimGpu *g, const Device *d, char **cause);

/* The Tensor-Core rate the simulator assumes: the device table's
 * (Device_tensorFlopsPerClk). */
static inline double Sim_tensorFlopsPerClk(int ccMajor, int ccMinor, Precision p) {
   return Device_tensorFlopsPerClk(ccMajor, ccMinor, p);
}

/* Walks ln once. compiled may be NULL or hold NULL entries: compiled[k] is ptxas'
 * report for kernel k (its registers and spills replace the estimates). -1 with *cause
 * when a kernel cannot run on the GPU (too many threads per block, shared memory per
 * block or registers; the message gives the numbers). */
int Sim_count(const SimGpu *g, const LoopNest *ln, const SimCompiled *const *compiled, SimProgram *out,
              char **cause);
/* The latency of a counted program under constants p, jittered by jitterKey (the
 * state's hash). report may be NULL. Cheap: no walk. */
double Sim_time(const SimGpu *g, const SimParams *p, const SimProgram *prog, uint64_t jitterKey, SimReport *report);

/* Sim_count and Sim_time with d's own constants: the simulated latency of ln on d, in
 * seconds, or -1 with *cause. Re-entrant: threads may simulate at the same time. */
double Sim_latency(const Device *d, const LoopNest *ln, const SimCompiled *const *compiled, uint64_t jitterKey,
                   SimReport *report, char **cause);

#endif
