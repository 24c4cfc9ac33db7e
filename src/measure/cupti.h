/* A GPU's counters through CUPTI's range profiler (the CUDA toolkit's profiling API,
 * CUDA 12.6 and later): one launch of a program, each kernel a range, replayed by the
 * profiler as often as its passes need, then evaluated into the metrics Nsight Compute
 * names and combined as counters.h says. libcupti is opened with dlopen at run time,
 * so a binary built with its headers runs where it is missing and says so; a build
 * without the headers (configure --without-cupti, or none found) says that instead.
 *
 * The metrics, per kernel:
 *   time         gpu__time_duration.sum
 *   DRAM         dram__bytes.sum
 *   L2           lts__t_sectors.sum, lts__t_sector_hit_rate.pct
 *   occupancy    sm__warps_active.avg.pct_of_peak_sustained_active
 *   FLOPs        2 x ..._op_ffma_pred_on.sum + ..._op_fadd_pred_on.sum + ..._op_fmul_pred_on.sum
 *                of sm__sass_thread_inst_executed
 *   bound        the largest of sm__throughput (compute), dram__throughput (memory) and
 *                l1tex__data_pipe_lsu_wavefronts_mem_shared (shared memory), each
 *                .avg.pct_of_peak_sustained_elapsed; "latency" when it is below 60%
 *   L1           l1tex__t_sectors.sum, l1tex__t_sector_hit_rate.pct
 *   conflicts    l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum over
 *                l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
 *   instructions smsp__inst_executed.sum;  IPC sm__inst_executed.avg.per_cycle_elapsed
 *   stalls       smsp__warps_issue_stalled_REASON.sum for each of COUNTERS_STALLS
 * The waves come from the caller (the driver's occupancy of each kernel). A group of
 * the later counters that the GPU does not offer is left unknown, not failed. */
#ifndef HEADER_cupti
#define HEADER_cupti

#include "measure/counters.h"

typedef struct Cupti_ Cupti;

/* Whether CUPTI can be loaded here ($PRUNER_TUI_LIBCUPTI when set, else libcupti.so
 * from the library path or the CUDA toolkit's lib64 or lib), with the libnvperf_host.so
 * it loads beside it. Touches no GPU. -1 with *cause naming what is missing. */
int Cupti_available(char **cause);

/* A profiler for the CUDA context ctx (a CUcontext, current on the calling thread) of
 * device `ordinal`. NULL with *cause (CUPTI's own message, as for a driver that
 * restricts the counters to administrators). */
Cupti *Cupti_open(void *ctx, int ordinal, char **cause);
void Cupti_close(Cupti *p);

/* The counters of one launch of a program of nkernels kernels: launch(arg) launches
 * them once and returns 0 (else -1 with *cause); waves[k] is kernel k's. -1 with
 * *cause when profiling fails or gives another number of kernels. */
int Cupti_profile(Cupti *p, int (*launch)(void *arg, char **cause), void *arg, int nkernels, const double *waves,
                  Counters *c, char **cause);

#endif
