/* PSA, Pruner's draft model (pruner.md 1): eleven symbols per stored buffer of a loop
 * nest and a closed-form latency from them and the device's parameters.
 *
 * Symbols of a row (the buffer's last store sets them, except MemWorkload, which sums
 * over the buffer's compute stores). The loop stack is as in cost/features.h; "loops"
 * below are the serial, unrolled and vectorized loops and the vthread loop, never
 * blockIdx.x or threadIdx.x.
 *   0 float_workload_thread  inner_prod x (float add, sub, mul, div of the value),
 *                            inner_prod = the product of the loops' extents
 *   1 ComputeWorkload        symbol 0 x grid x block
 *   2 RegUsage               compute stores: the sum over the statement's buffers of
 *                            MW(buffer, S); S = the loops that index the stored buffer;
 *                            MW(b, L) = the product of the extents of the loops in L
 *                            that index b
 *   3 MemWorkload            compute stores: the sum over buffers of MW(buffer, loops)
 *   4 SharedMemFootprint     stores into shared memory: MW(stored buffer, S) x block
 *   5 DRAM_workload          bytes: stores into shared memory: footprint x grid x the
 *                            loops around the copy that do not index it (the reduction
 *                            steps); other stores that compute nothing: inner_prod x
 *                            grid x block x 4
 *   6 DataReuse              1 + symbol 0 / MemWorkload when both are non-zero, else 1
 *   7 is_gpu                 1
 *   8 grid, 9 block, 10 virtual threads
 * A store is a compute store when symbol 0 is non-zero. A warp's mma statement is a
 * compute store into its accumulator that reads its two shared tiles: one mma.sync of
 * 16x8 outputs, D deep (Precision_mmaDepth), is 16 x 8 x D multiply-adds per warp, so
 * it adds 16 x 8 x D / 32 float additions and as many multiplications per thread to
 * symbol 0, as D of a plain FP32 reduction's fused multiply-adds would.
 *
 * Latency (pruner.md 1.4), per row, in milliseconds:
 *   w = block / warp, W = ceil(w); warp_penalty = w / W
 *   thread_penalty = 1 + 1 / symbol 6;  reg_penalty = max(1, RegUsage / reg_cap)
 *   grid >= a x SMs:  units = grid, cap = a x SMs
 *   otherwise:        units = grid x min(W, Q), cap = Q x SMs
 *   peak_penalty = units / (ceil(units / cap) x cap)
 *   t_comp = ComputeWorkload x thread_penalty / (peak x peak_penalty x warp_penalty /
 *            reg_penalty) / 10^6
 *   t_mem  = DRAM_workload / (bandwidth x 10^6)
 * where peak is the FP32 peak, or for a row whose last compute store is an mma statement
 * the Tensor-Core peak of its precision (tensorPeakGflops; the FP32 peak where the device
 * has none), and the state's latency is the sum over rows of max(t_comp, t_mem). Its score is
 * 1 / latency; a nest with no rows scores -inf.
 *
 * Where this differs from Pruner's code, on purpose (each reason is next to the code:
 * psaStatement in cost/analysis.c, PsaParams_fromDevice in cost/psa.c):
 * DRAM_workload counts bytes, not elements; shared copies count every reduction step;
 * a shared copy's row reads the stored (shared) buffer's index; block and thread loops
 * are skipped by kind, not by name; reg_cap comes from the device; Tensor-Core rows
 * (above) take the Tensor-Core peak, where Pruner has no Tensor-Core term and would see
 * no arithmetic in them. vec_len is read from devices.yaml but not used, as in Pruner. */
#ifndef HEADER_psa
#define HEADER_psa

#include "device/device.h"
#include "ir/loopnest.h"

#define PSA_SYMBOLS 11

enum {
   PSA_FLOAT_WORKLOAD_THREAD,
   PSA_COMPUTE_WORKLOAD,
   PSA_REG_USAGE,
   PSA_MEM_WORKLOAD,
   PSA_SHARED_FOOTPRINT,
   PSA_DRAM_WORKLOAD,
   PSA_DATA_REUSE,
   PSA_IS_GPU,
   PSA_GRID,
   PSA_BLOCK,
   PSA_VTHREAD,
};

typedef struct PsaRow_ {
   int buffer;                   /* loop-nest buffer */
   Precision precision;          /* of the row's Tensor-Core work; FP32 for the CUDA cores */
   double sym[PSA_SYMBOLS];
} PsaRow;

typedef struct PsaSymbols_ {
   int nrows;
   PsaRow rows[IR_MAX_BUFFERS];
} PsaSymbols;

/* The device's numbers the formula needs. */
typedef struct PsaParams_ {
   double peakGflops;            /* P */
   double bandwidthGBs;          /* BW */
   double sms;                   /* S */
   double activeBlocksPerSm;     /* a: devices.yaml psa.active_blocks_per_sm, else 1 */
   double partitions;            /* Q: sm_partitions, else 4 */
   double warpSize;              /* warp_size, else 32 */
   double regCap;                /* psa.reg_cap, else 128 */
   /* dense Tensor-Core peak per precision, GFLOP/s: Device_tensorFlopsPerClk x SMs x
    * Device_clockMhz; 0 for FP32 and where the device has none or its clock is unknown */
   double tensorPeakGflops[PRECISION_COUNT];
} PsaParams;

/* Per-row terms of the latency, for explain. */
typedef struct PsaRowCost_ {
   double warpPenalty, threadPenalty, regPenalty, peakPenalty;
   double tComp, tMem;           /* ms */
} PsaRowCost;

/* Fails, naming the device and field, when it lacks peak_fp32_gflops,
 * mem_bandwidth_gbs or sm_count. */
int PsaParams_fromDevice(PsaParams *p, const Device *d, char **cause);

/* The latency estimate in ms (INFINITY for a nest with no rows); fills costs[i] for
 * every row when costs is not NULL. */
double Psa_latency(const PsaSymbols *s, const PsaParams *p, PsaRowCost *costs);
/* 1 / latency, or -INFINITY when there are no rows. */
double Psa_score(const PsaSymbols *s, const PsaParams *p);

const char *Psa_symbolName(int i);

#endif
