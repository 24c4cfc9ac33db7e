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
 * a launch overhead each, times a deterministic jitter of at most SIM_JITTER. */
#ifndef HEADER_sim
#define HEADER_sim

#include <stdbool.h>
#include <stdint.h>

#include "device/device.h"
#include "ir/loopnest.h"
#include "measure/nvrtc.h"

/* The largest relative change the per-state jitter makes: latencies of one nest under
 * two jitter keys are within a factor (1 + SIM_JITTER) / (1 - SIM_JITTER). */
#define SIM_JITTER 0.01

typedef struct SimKernel_ {
   double seconds;              /* launch overhead included, jitter not */
   int blocksPerSm;
   double occupancy;            /* resident warps / the SM's maximum */
   double waves;                /* grid / (SMs x blocksPerSm) */
   int registers;               /* per thread */
   bool registersFromPtxas;     /* else estimated from the nest */
   double flops;                /* FP32 arithmetic of the whole grid, an FMA counting 2 */
   double dramBytes;            /* after L2 reuse */
   double sharedSeconds;        /* the busiest SM's time in each part, over all rounds */
   double computeSeconds;
   double memorySeconds;
   double latencySeconds;       /* one warp's own latency path, over all rounds */
   const char *limiter;         /* what bounds blocksPerSm: "threads", "registers",
                                   "shared memory" or "blocks" */
} SimKernel;

typedef struct SimReport_ {
   int nkernels;
   SimKernel kernels[IR_MAX_KERNELS];
   double seconds;              /* the latency returned */
} SimReport;

/* The simulated latency of ln on d, in seconds. ptxas may be NULL or hold NULL entries:
 * ptxas[k] is ptxas' report for kernel k (its registers and spills replace the
 * estimates). jitterKey (the state's hash) picks the jitter. report may be NULL.
 * Returns -1 with *cause when d lacks a field the model needs ("device NAME (FILE:LINE)
 * has no FIELD, which the simulator needs") or a kernel cannot run on d (too many
 * threads per block, shared memory per block or registers; the message gives the
 * numbers). Re-entrant: threads may simulate at the same time. */
double Sim_latency(const Device *d, const LoopNest *ln, const NvrtcKernelInfo *const *ptxas, uint64_t jitterKey,
                   SimReport *report, char **cause);

#endif
