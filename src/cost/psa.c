/* PSA's latency formula (pruner.md 1.4) and its device parameters. The symbols are
 * computed by cost/analysis.c. */
#include "config.h"

#include "cost/psa.h"

#include <math.h>

#include "util/xalloc.h"

static const char *const names[PSA_SYMBOLS] = {
   "float_workload_thread", "ComputeWorkload", "RegUsage", "MemWorkload", "SharedMemFootprint",
   "DRAM_workload", "DataReuse", "is_gpu", "grid", "block", "vthread",
};

const char *Psa_symbolName(int i) {
   return i >= 0 && i < PSA_SYMBOLS ? names[i] : "?";
}

int PsaParams_fromDevice(PsaParams *p, const Device *d, char **cause) {
   static const DeviceField needed[] = { DEV_PEAK_FP32_GFLOPS, DEV_MEM_BANDWIDTH_GBS, DEV_SM_COUNT };
   for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
      if (!Device_has(d, needed[i])) {
         setCause(cause, "device %s (%s:%d) has no %s, which PSA needs", d->name, d->file ? d->file : "?",
                  d->line, Device_fieldInfo(needed[i])->key);
         return -1;
      }
   p->peakGflops = d->peak_fp32_gflops;
   p->bandwidthGBs = d->mem_bandwidth_gbs;
   p->sms = (double)d->sm_count;
   /* Pruner's constants where the file says nothing: one active block per SM, four
    * sub-partitions, warps of 32, and a register cap of 128. Pruner never passes its
    * table's reg_cap on (its model always uses 128); we honour the device's value,
    * which is 128 for every shipped profile. vec_len is not used, as in Pruner: the
    * per-thread trip count already contains the vectorized loops. */
   p->activeBlocksPerSm = Device_has(d, DEV_PSA_ACTIVE_BLOCKS_PER_SM) ? (double)d->psa_active_blocks_per_sm : 1;
   p->partitions = Device_has(d, DEV_SM_PARTITIONS) ? (double)d->sm_partitions : 4;
   p->warpSize = Device_has(d, DEV_WARP_SIZE) ? (double)d->warp_size : 32;
   p->regCap = Device_has(d, DEV_PSA_REG_CAP) ? (double)d->psa_reg_cap : 128;
   /* not Pruner's: the Tensor-Core peaks that Tensor-Core rows use (psa.h) */
   double mhz = Device_clockMhz(d);
   bool cc = Device_has(d, DEV_COMPUTE_CAPABILITY);
   for (int i = 0; i < PRECISION_COUNT; i++)
      p->tensorPeakGflops[i] = cc ? Device_tensorFlopsPerClk(d->cc_major, d->cc_minor, (Precision)i) * p->sms * mhz / 1e3 : 0;
   return 0;
}

double Psa_latency(const PsaSymbols *s, const PsaParams *p, PsaRowCost *costs) {
   if (s->nrows == 0)
      return INFINITY;
   double total = 0;
   for (int i = 0; i < s->nrows; i++) {
      const double *f = s->rows[i].sym;
      PsaRowCost c;
      double G = f[PSA_GRID], T = f[PSA_BLOCK];
      double w = T / p->warpSize, W = ceil(w);
      c.warpPenalty = w / W;
      c.threadPenalty = 1 + 1 / f[PSA_DATA_REUSE];
      c.regPenalty = fmax(1.0, f[PSA_REG_USAGE] / p->regCap);
      double units, cap;
      if (G >= p->activeBlocksPerSm * p->sms) {
         units = G;
         cap = p->activeBlocksPerSm * p->sms;
      } else {
         units = G * (W < p->partitions ? W : p->partitions);
         cap = p->partitions * p->sms;
      }
      c.peakPenalty = units / (ceil(units / cap) * cap);
      Precision tc = s->rows[i].precision;
      double peak = tc != PRECISION_FP32 && p->tensorPeakGflops[tc] > 0 ? p->tensorPeakGflops[tc] : p->peakGflops;
      double throughput = peak * c.peakPenalty * c.warpPenalty / c.regPenalty;
      c.tComp = f[PSA_COMPUTE_WORKLOAD] * c.threadPenalty / throughput / 1e6;
      c.tMem = f[PSA_DRAM_WORKLOAD] / (p->bandwidthGBs * 1e6);
      total += fmax(c.tComp, c.tMem);
      if (costs)
         costs[i] = c;
   }
   return total;
}

double Psa_score(const PsaSymbols *s, const PsaParams *p) {
   if (s->nrows == 0)
      return -INFINITY;
   return 1 / Psa_latency(s, p, NULL);
}
