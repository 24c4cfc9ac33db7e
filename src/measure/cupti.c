/* CUPTI's range profiler, opened at run time (see cupti.h). The target side's types
 * come from the toolkit's C headers; the host side's header (cupti_profiler_host.h)
 * is C++ only, so its few parameter blocks are declared here with the same layout. */
#include "config.h"

#include "measure/cupti.h"

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/xalloc.h"

#ifndef HAVE_CUPTI

#define NOT_BUILT                                                                                            \
   "this pruner-tui was built without CUPTI's headers (configure found no cupti_range_profiler.h in the CUDA " \
   "toolkit, or was given --without-cupti); install the toolkit's CUPTI and build again"

int Cupti_available(char **cause) { return setCause(cause, NOT_BUILT); }
Cupti *Cupti_open(void *ctx, int ordinal, char **cause) {
   (void)ctx, (void)ordinal;
   setCause(cause, NOT_BUILT);
   return NULL;
}
void Cupti_close(Cupti *p) { (void)p; }
int Cupti_profile(Cupti *p, int (*launch)(void *arg, char **cause), void *arg, int nkernels, const double *waves,
                  Counters *c, char **cause) {
   (void)p, (void)launch, (void)arg, (void)nkernels, (void)waves;
   memset(c, 0, sizeof *c);
   return setCause(cause, NOT_BUILT);
}

#else

#include <cupti_range_profiler.h>
#include <cupti_target.h>

/* ---- the host side (cupti_profiler_host.h, CUDA 12.6 and later) ---- */
enum { HOST_RANGE_PROFILER = 0 };   /* CUPTI_PROFILER_TYPE_RANGE_PROFILER */
typedef struct HostObject HostObject;
typedef struct {
   size_t structSize;
   void *pPriv;
   int profilerType;
   const char *pChipName;
   const uint8_t *pCounterAvailabilityImage;
   HostObject *pHostObject;
} HostInitialize;
typedef struct {
   size_t structSize;
   void *pPriv;
   HostObject *pHostObject;
} HostDeinitialize;
typedef struct {
   size_t structSize;
   void *pPriv;
   HostObject *pHostObject;
   const char **ppMetricNames;
   size_t numMetrics;
} HostAddMetrics;
typedef struct {
   size_t structSize;
   void *pPriv;
   HostObject *pHostObject;
   size_t configImageSize;
} HostConfigSize;
typedef struct {
   size_t structSize;
   void *pPriv;
   HostObject *pHostObject;
   size_t configImageSize;
   uint8_t *pConfigImage;
} HostConfigImage;
typedef struct {
   size_t structSize;
   void *pPriv;
   HostObject *pHostObject;
   const uint8_t *pCounterDataImage;
   size_t counterDataImageSize;
   size_t rangeIndex;
   const char **ppMetricNames;
   size_t numMetrics;
   double *pMetricValues;
} HostEvaluate;

#define SIZE_TO(type, last) (offsetof(type, last) + sizeof(((type *)0)->last))

typedef struct {
   void *lib;
   CUptiResult (*getResultString)(CUptiResult, const char **);
   CUptiResult (*initialize)(CUpti_Profiler_Initialize_Params *);
   CUptiResult (*deinitialize)(CUpti_Profiler_DeInitialize_Params *);
   CUptiResult (*chipName)(CUpti_Device_GetChipName_Params *);
   CUptiResult (*availability)(CUpti_Profiler_GetCounterAvailability_Params *);
   CUptiResult (*hostInitialize)(HostInitialize *);
   CUptiResult (*hostDeinitialize)(HostDeinitialize *);
   CUptiResult (*hostAddMetrics)(HostAddMetrics *);
   CUptiResult (*hostConfigSize)(HostConfigSize *);
   CUptiResult (*hostConfigImage)(HostConfigImage *);
   CUptiResult (*hostEvaluate)(HostEvaluate *);
   CUptiResult (*enable)(CUpti_RangeProfiler_Enable_Params *);
   CUptiResult (*disable)(CUpti_RangeProfiler_Disable_Params *);
   CUptiResult (*setConfig)(CUpti_RangeProfiler_SetConfig_Params *);
   CUptiResult (*start)(CUpti_RangeProfiler_Start_Params *);
   CUptiResult (*stop)(CUpti_RangeProfiler_Stop_Params *);
   CUptiResult (*decode)(CUpti_RangeProfiler_DecodeData_Params *);
   CUptiResult (*dataSize)(CUpti_RangeProfiler_GetCounterDataSize_Params *);
   CUptiResult (*dataInitialize)(CUpti_RangeProfiler_CounterDataImage_Initialize_Params *);
   CUptiResult (*dataInfo)(CUpti_RangeProfiler_GetCounterDataInfo_Params *);
} Api;

static const struct {
   const char *name;
   size_t offset;
} symbols[] = {
   { "cuptiGetResultString", offsetof(Api, getResultString) },
   { "cuptiProfilerInitialize", offsetof(Api, initialize) },
   { "cuptiProfilerDeInitialize", offsetof(Api, deinitialize) },
   { "cuptiDeviceGetChipName", offsetof(Api, chipName) },
   { "cuptiProfilerGetCounterAvailability", offsetof(Api, availability) },
   { "cuptiProfilerHostInitialize", offsetof(Api, hostInitialize) },
   { "cuptiProfilerHostDeinitialize", offsetof(Api, hostDeinitialize) },
   { "cuptiProfilerHostConfigAddMetrics", offsetof(Api, hostAddMetrics) },
   { "cuptiProfilerHostGetConfigImageSize", offsetof(Api, hostConfigSize) },
   { "cuptiProfilerHostGetConfigImage", offsetof(Api, hostConfigImage) },
   { "cuptiProfilerHostEvaluateToGpuValues", offsetof(Api, hostEvaluate) },
   { "cuptiRangeProfilerEnable", offsetof(Api, enable) },
   { "cuptiRangeProfilerDisable", offsetof(Api, disable) },
   { "cuptiRangeProfilerSetConfig", offsetof(Api, setConfig) },
   { "cuptiRangeProfilerStart", offsetof(Api, start) },
   { "cuptiRangeProfilerStop", offsetof(Api, stop) },
   { "cuptiRangeProfilerDecodeData", offsetof(Api, decode) },
   { "cuptiRangeProfilerGetCounterDataSize", offsetof(Api, dataSize) },
   { "cuptiRangeProfilerCounterDataImageInitialize", offsetof(Api, dataInitialize) },
   { "cuptiRangeProfilerGetCounterDataInfo", offsetof(Api, dataInfo) },
};
#define NSYMBOLS (sizeof symbols / sizeof symbols[0])

/* ---- the metrics, in groups: the first is required, each later one gives a field ---- */
#define STALL_METRIC(reason) "smsp__warps_issue_stalled_" reason ".sum"
enum {
   M_TIME, M_DRAM, M_L2_SECTORS, M_L2_HIT, M_OCCUPANCY, M_FFMA, M_FADD, M_FMUL, M_SM_PCT, M_DRAM_PCT, M_SHARED_PCT,
   M_L1_SECTORS, M_L1_HIT, M_SHARED_WAVES, M_CONFLICTS, M_INSTRUCTIONS, M_IPC, M_STALLS,
   NMETRICS = M_STALLS + COUNTERS_NSTALLS
};
/* not const: CUPTI takes the names as const char ** */
static const char *metricNames[NMETRICS] = {
   "gpu__time_duration.sum",
   "dram__bytes.sum",
   "lts__t_sectors.sum",
   "lts__t_sector_hit_rate.pct",
   "sm__warps_active.avg.pct_of_peak_sustained_active",
   "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
   "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
   "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
   "sm__throughput.avg.pct_of_peak_sustained_elapsed",
   "dram__throughput.avg.pct_of_peak_sustained_elapsed",
   "l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed",
   "l1tex__t_sectors.sum",
   "l1tex__t_sector_hit_rate.pct",
   "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
   "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
   "smsp__inst_executed.sum",
   "sm__inst_executed.avg.per_cycle_elapsed",
   STALL_METRIC("long_scoreboard"), STALL_METRIC("short_scoreboard"), STALL_METRIC("barrier"), STALL_METRIC("wait"),
   STALL_METRIC("math_pipe_throttle"), STALL_METRIC("mio_throttle"), STALL_METRIC("lg_throttle"),
   STALL_METRIC("not_selected"), STALL_METRIC("no_instruction"), STALL_METRIC("branch_resolving"),
   STALL_METRIC("dispatch_stall"), STALL_METRIC("drain"), STALL_METRIC("membar"), STALL_METRIC("sleeping"),
   STALL_METRIC("tex_throttle"), STALL_METRIC("imc_miss"), STALL_METRIC("misc"),
};
static const struct {
   int first, count;
   unsigned field;              /* 0: required */
} groups[] = {
   { M_TIME, M_L1_SECTORS - M_TIME, 0 },
   { M_L1_SECTORS, 2, COUNTER_L1_HIT_RATE },
   { M_SHARED_WAVES, 2, COUNTER_BANK_CONFLICTS },
   { M_INSTRUCTIONS, 1, COUNTER_INSTRUCTIONS },
   { M_IPC, 1, COUNTER_IPC },
   { M_STALLS, COUNTERS_NSTALLS, COUNTER_STALL },
};
#define NGROUPS (sizeof groups / sizeof groups[0])
/* Below this share of its peak in every unit, a kernel is bound by latency. */
#define LATENCY_BOUND_PCT 60.0
#define MAX_RANGES 16

struct Cupti_ {
   Api api;
   CUcontext ctx;
   HostObject *host;
   uint8_t *config;
   size_t configSize;
   uint8_t *availability;
   const char *names[NMETRICS];   /* the metrics the configuration holds */
   int index[NMETRICS];           /* their place in names, -1 when not held */
   int nnames;
   unsigned known;
};

static int failure(const Api *api, CUptiResult rc, const char *what, char **cause) {
   const char *text = NULL;
   if (!api->getResultString || api->getResultString(rc, &text) != CUPTI_SUCCESS || !text)
      text = "unknown error";
   return setCause(cause, "CUPTI: %s: %s (%d)", what, text, (int)rc);
}

#define CALL(api, fn, params, what)                                                                          \
   do {                                                                                                      \
      CUptiResult rc_ = (api)->fn(params);                                                                  \
      if (rc_ != CUPTI_SUCCESS)                                                                             \
         return failure(api, rc_, what, cause);                                                             \
   } while (0)

/* Opens libcupti into api: the first of $PRUNER_TUI_LIBCUPTI, or the sonames on the
 * library path and then in the toolkit's lib64 and lib, that opens and has every entry
 * point; then checks that libnvperf_host.so opens, from beside it or the path. */
static int load(Api *api, char **cause) {
   memset(api, 0, sizeof *api);
   static const char *const sonames[] = { "libcupti.so.13", "libcupti.so.12", "libcupti.so" };
   const char *env = getenv("PRUNER_TUI_LIBCUPTI");
   char tried[PATH_MAX] = "";
   char dir[PATH_MAX] = "";
#ifdef PTUI_CUDA_DIR
   const int ndirs = 3;         /* the path, the toolkit's lib64, its lib */
#else
   const int ndirs = 1;
#endif
   /* PRUNER_TUI_LIBCUPTI alone when set */
   for (int d = env && *env ? -1 : 0; d < (env && *env ? 0 : ndirs) && !api->lib; d++)
      for (size_t i = 0; i < sizeof sonames / sizeof sonames[0] && !api->lib; i++) {
         char path[PATH_MAX];
         if (d < 0)
            snprintf(path, sizeof path, "%s", env);
#ifdef PTUI_CUDA_DIR
         else if (d > 0)
            snprintf(path, sizeof path, "%s/%s/%s", PTUI_CUDA_DIR, d == 1 ? "lib64" : "lib", sonames[i]);
#endif
         else
            snprintf(path, sizeof path, "%s", sonames[i]);
         if (d > 0 && access(path, R_OK) != 0)
            continue;
         snprintf(tried, sizeof tried, "%s", path);
         api->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
         if (api->lib && strrchr(path, '/')) {
            snprintf(dir, sizeof dir, "%s", path);
            *strrchr(dir, '/') = '\0';
         }
         if (d < 0)
            break;
      }
   if (!api->lib) {
      if (env && *env)
         return setCause(cause, "CUPTI's library %s (PRUNER_TUI_LIBCUPTI) does not open: %s", env, dlerror());
      return setCause(cause, "CUPTI's library libcupti.so (from the CUDA toolkit) opens neither from the library path "
                             "nor from the toolkit this was built with; install it, or set PRUNER_TUI_LIBCUPTI to "
                             "its path");
   }
   for (size_t i = 0; i < NSYMBOLS; i++) {
      void *fn = dlsym(api->lib, symbols[i].name);
      if (!fn) {
         dlclose(api->lib);
         api->lib = NULL;
         return setCause(cause, "CUPTI's library %s has no %s: the range profiler needs CUPTI of CUDA 12.6 or later",
                         tried, symbols[i].name);
      }
      memcpy((char *)api + symbols[i].offset, &fn, sizeof fn);
   }
   char host[PATH_MAX + 32];
   snprintf(host, sizeof host, "%s%slibnvperf_host.so", dir, *dir ? "/" : "");
   void *perf = dlopen(host, RTLD_NOW | RTLD_LOCAL);
   if (!perf) {
      dlclose(api->lib);
      api->lib = NULL;
      return setCause(cause, "CUPTI's libnvperf_host.so, which %s loads for the profiler's host side, does not open "
                             "(%s); it comes with CUPTI in the CUDA toolkit",
                      tried, dlerror());
   }
   /* what loaded stays loaded, libnvperf_host with it: their constructors allocate,
    * and unloading them would leave that memory unreachable (LeakSanitizer reports
    * it) for no gain, a later load costing the same again */
   (void)perf;
   return 0;
}

int Cupti_available(char **cause) {
   Api api;
   return load(&api, cause);   /* loaded: kept, as load says */
}

/* The host object for chip, with the metrics of every group it takes; the config image. */
static int configure(Cupti *p, const char *chip, char **cause) {
   const Api *api = &p->api;
   HostInitialize hi = { SIZE_TO(HostInitialize, pHostObject), NULL, HOST_RANGE_PROFILER, chip, p->availability, NULL };
   CALL(api, hostInitialize, &hi, "starting the host side");
   p->host = hi.pHostObject;
   for (int m = 0; m < NMETRICS; m++)
      p->index[m] = -1;
   for (size_t g = 0; g < NGROUPS; g++) {
      HostAddMetrics am = { SIZE_TO(HostAddMetrics, numMetrics), NULL, p->host, &metricNames[groups[g].first],
                            (size_t)groups[g].count };
      CUptiResult rc = api->hostAddMetrics(&am);
      if (rc != CUPTI_SUCCESS) {
         if (groups[g].field == 0)
            return failure(api, rc, "adding the metrics every GPU since Volta has", cause);
         continue;              /* that group stays unknown */
      }
      for (int m = groups[g].first; m < groups[g].first + groups[g].count; m++) {
         p->index[m] = p->nnames;
         p->names[p->nnames++] = metricNames[m];
      }
      p->known |= groups[g].field;
   }
   HostConfigSize cs = { SIZE_TO(HostConfigSize, configImageSize), NULL, p->host, 0 };
   CALL(api, hostConfigSize, &cs, "sizing the configuration");
   p->configSize = cs.configImageSize;
   p->config = xMalloc(p->configSize);
   HostConfigImage ci = { SIZE_TO(HostConfigImage, pConfigImage), NULL, p->host, p->configSize, p->config };
   CALL(api, hostConfigImage, &ci, "building the configuration");
   return 0;
}

Cupti *Cupti_open(void *ctx, int ordinal, char **cause) {
   Cupti *p = xCalloc(1, sizeof *p);
   p->ctx = ctx;
   if (load(&p->api, cause) < 0) {
      free(p);
      return NULL;
   }
   const Api *api = &p->api;
   CUpti_Profiler_Initialize_Params init = { CUpti_Profiler_Initialize_Params_STRUCT_SIZE, NULL };
   CUpti_Device_GetChipName_Params chip = { CUpti_Device_GetChipName_Params_STRUCT_SIZE, NULL, (size_t)ordinal, NULL };
   CUpti_Profiler_GetCounterAvailability_Params avail = { CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE,
                                                          NULL, p->ctx, 0, NULL };
   CUptiResult rc = api->initialize(&init);
   const char *what = "starting the profiler";
   if (rc == CUPTI_SUCCESS) {
      what = "reading the chip's name";
      rc = api->chipName(&chip);
   }
   if (rc == CUPTI_SUCCESS) {
      what = "asking which counters the device offers";
      rc = api->availability(&avail);
   }
   if (rc == CUPTI_SUCCESS) {
      p->availability = xMalloc(avail.counterAvailabilityImageSize);
      avail.pCounterAvailabilityImage = p->availability;
      rc = api->availability(&avail);
   }
   if (rc != CUPTI_SUCCESS) {
      failure(api, rc, what, cause);
      Cupti_close(p);
      return NULL;
   }
   if (configure(p, chip.pChipName, cause) < 0) {
      Cupti_close(p);
      return NULL;
   }
   return p;
}

void Cupti_close(Cupti *p) {
   if (!p)
      return;
   if (p->api.lib) {
      if (p->host) {
         HostDeinitialize hd = { SIZE_TO(HostDeinitialize, pHostObject), NULL, p->host };
         p->api.hostDeinitialize(&hd);
      }
      CUpti_Profiler_DeInitialize_Params done = { CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE, NULL };
      p->api.deinitialize(&done);   /* the library stays loaded (load) */
   }
   free(p->config);
   free(p->availability);
   free(p);
}

static double value(const Cupti *p, const double *v, int m) {
   return p->index[m] >= 0 ? v[p->index[m]] : 0;
}

/* One range's metrics as a kernel's counters. */
static void kernelOf(const Cupti *p, const double *v, double waves, CounterKernel *k) {
   memset(k, 0, sizeof *k);
   k->seconds = value(p, v, M_TIME) * 1e-9;
   k->dramBytes = value(p, v, M_DRAM);
   k->l2Requests = value(p, v, M_L2_SECTORS);
   k->l2Hits = k->l2Requests * value(p, v, M_L2_HIT) / 100;
   k->occupancy = value(p, v, M_OCCUPANCY) / 100;
   k->flops = 2 * value(p, v, M_FFMA) + value(p, v, M_FADD) + value(p, v, M_FMUL);
   k->l1Requests = value(p, v, M_L1_SECTORS);
   k->l1Hits = k->l1Requests * value(p, v, M_L1_HIT) / 100;
   k->sharedWavefronts = value(p, v, M_SHARED_WAVES);
   k->sharedConflicts = value(p, v, M_CONFLICTS);
   k->instructions = value(p, v, M_INSTRUCTIONS);
   k->ipc = value(p, v, M_IPC);
   k->waves = waves;
   for (int s = 0; s < COUNTERS_NSTALLS; s++)
      k->stalls[s] = value(p, v, M_STALLS + s);
   static const char *const units[] = { "compute", "memory", "shared memory" };
   double pct[] = { value(p, v, M_SM_PCT), value(p, v, M_DRAM_PCT), value(p, v, M_SHARED_PCT) };
   int most = 0;
   for (int i = 1; i < 3; i++)
      if (pct[i] > pct[most])
         most = i;
   k->bound = pct[most] < LATENCY_BOUND_PCT ? "latency" : units[most];
   k->known = p->known;
}

/* Start, the launch, stop, until every pass is in; then the ranges decoded. */
static int collect(Cupti *p, CUpti_RangeProfiler_Object *obj, int (*launch)(void *, char **), void *arg,
                   char **cause) {
   const Api *api = &p->api;
   for (int pass = 0;; pass++) {
      CUpti_RangeProfiler_Start_Params start = { CUpti_RangeProfiler_Start_Params_STRUCT_SIZE, NULL, obj };
      CALL(api, start, &start, "starting a pass");
      int rc = launch(arg, cause);
      CUpti_RangeProfiler_Stop_Params stop = { CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE, NULL, obj, 0, 0, 0 };
      CALL(api, stop, &stop, "ending a pass");
      if (rc < 0)
         return -1;
      if (stop.isAllPassSubmitted)
         break;
      if (pass >= NMETRICS)
         return setCause(cause, "CUPTI: the passes did not end after %d launches", pass + 1);
   }
   CUpti_RangeProfiler_DecodeData_Params decode = { CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE, NULL, obj,
                                                    0 };
   CALL(api, decode, &decode, "decoding the counters");
   if (decode.numOfRangeDropped > 0)
      return setCause(cause, "CUPTI: %zu of the kernels' ranges were dropped", decode.numOfRangeDropped);
   return 0;
}

static int profile(Cupti *p, CUpti_RangeProfiler_Object *obj, uint8_t **image, int (*launch)(void *, char **),
                   void *arg, int nkernels, const double *waves, Counters *c, char **cause) {
   const Api *api = &p->api;
   CUpti_RangeProfiler_GetCounterDataSize_Params size = { CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE,
                                                          NULL, obj, p->names, (size_t)p->nnames, MAX_RANGES,
                                                          MAX_RANGES, 0 };
   CALL(api, dataSize, &size, "sizing the counter data");
   *image = xCalloc(1, size.counterDataSize);
   CUpti_RangeProfiler_CounterDataImage_Initialize_Params init = {
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE, NULL, obj, size.counterDataSize, *image
   };
   CALL(api, dataInitialize, &init, "preparing the counter data");
   CUpti_RangeProfiler_SetConfig_Params config;
   memset(&config, 0, sizeof config);
   config.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
   config.pRangeProfilerObject = obj;
   config.configSize = p->configSize;
   config.pConfig = p->config;
   config.counterDataImageSize = size.counterDataSize;
   config.pCounterDataImage = *image;
   config.range = CUPTI_AutoRange;          /* each kernel a range */
   config.replayMode = CUPTI_KernelReplay;  /* the profiler replays each kernel per pass */
   config.maxRangesPerPass = MAX_RANGES;
   config.numNestingLevels = 1;
   config.minNestingLevel = 1;
   CALL(api, setConfig, &config, "configuring the profiler");
   if (collect(p, obj, launch, arg, cause) < 0)
      return -1;
   CUpti_RangeProfiler_GetCounterDataInfo_Params info = { CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE,
                                                          NULL, *image, size.counterDataSize, 0 };
   CALL(api, dataInfo, &info, "counting the ranges");
   if (info.numTotalRanges != (size_t)nkernels)
      return setCause(cause, "CUPTI: %zu ranges for a program of %d kernels", info.numTotalRanges, nkernels);
   CounterKernel k[MAX_RANGES];
   for (int r = 0; r < nkernels; r++) {
      double v[NMETRICS];
      HostEvaluate ev = { SIZE_TO(HostEvaluate, pMetricValues), NULL, p->host, *image, size.counterDataSize,
                          (size_t)r, p->names, (size_t)p->nnames, v };
      CALL(api, hostEvaluate, &ev, "evaluating the metrics");
      kernelOf(p, v, waves[r], &k[r]);
   }
   Counters_combine(k, nkernels, false, c);
   return 0;
}

int Cupti_profile(Cupti *p, int (*launch)(void *arg, char **cause), void *arg, int nkernels, const double *waves,
                  Counters *c, char **cause) {
   memset(c, 0, sizeof *c);
   if (nkernels < 1 || nkernels > MAX_RANGES)
      return setCause(cause, "CUPTI: a program of %d kernels (1 to %d are profiled)", nkernels, MAX_RANGES);
   const Api *api = &p->api;
   CUpti_RangeProfiler_Enable_Params enable = { CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE, NULL, p->ctx, NULL };
   CALL(api, enable, &enable, "enabling the range profiler");
   uint8_t *image = NULL;
   int rc = profile(p, enable.pRangeProfilerObject, &image, launch, arg, nkernels, waves, c, cause);
   CUpti_RangeProfiler_Disable_Params disable = { CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE, NULL,
                                                  enable.pRangeProfilerObject };
   api->disable(&disable);
   free(image);
   return rc;
}

#endif
