/* GPU descriptions from devices.yaml: the hardware numbers the schedule space, PSA and
 * the simulator need, and Pruner's PSA parameters. A field the file does not give is
 * unknown (its valid bit is clear) and is shown as N/A, never guessed. One table in
 * device.c lists the fields (key, type, unit, range, help); parsing, printing and the
 * man page follow it. */
#ifndef HEADER_device
#define HEADER_device

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "te/precision.h"

typedef enum {
   DEV_COMPUTE_CAPABILITY,      /* "9.0" -> cc_major, cc_minor */
   DEV_PEAK_FP32_GFLOPS,        /* dense FP32 (no tensor cores), boost clock */
   DEV_MEM_BANDWIDTH_GBS,       /* DRAM bandwidth, GB/s (10^9 bytes) */
   DEV_SM_COUNT,
   DEV_SM_PARTITIONS,           /* sub-partitions (warp schedulers) per SM */
   DEV_WARP_SIZE,
   DEV_MAX_THREADS_PER_SM,
   DEV_MAX_THREADS_PER_BLOCK,
   DEV_MAX_BLOCKS_PER_SM,
   DEV_REGS_PER_SM,             /* 32-bit registers */
   DEV_MAX_REGS_PER_THREAD,
   DEV_SHARED_PER_SM,           /* bytes */
   DEV_SHARED_PER_BLOCK,        /* bytes, without opt-in (what a static allocation gets) */
   DEV_SHARED_PER_BLOCK_OPTIN,  /* bytes, with cudaFuncAttributeMaxDynamicSharedMemorySize */
   DEV_L2_BYTES,
   DEV_CLOCK_MHZ,               /* boost clock */
   DEV_PSA_ACTIVE_BLOCKS_PER_SM,/* Pruner's PSA parameters (pruner.md 1.2) */
   DEV_PSA_VEC_LEN,
   DEV_PSA_REG_CAP,
   /* the simulator's free constants (sim/sim.c gives their defaults; `pruner-tui
    * calibrate` fits them to a GPU's records) */
   DEV_SIM_DRAM_LATENCY,        /* cycles, a load that misses to DRAM */
   DEV_SIM_L2_LATENCY,          /* cycles, a load that hits L2 */
   DEV_SIM_SHARED_LATENCY,      /* cycles, a shared-memory load */
   DEV_SIM_L1_LATENCY,          /* cycles, a local-memory access hitting L1 */
   DEV_SIM_BARRIER_CYCLES,      /* __syncthreads once every warp has arrived */
   DEV_SIM_BLOCK_CYCLES,        /* retiring a round of blocks and starting the next */
   DEV_SIM_LAUNCH_US,           /* launch overhead of one kernel, microseconds */
   DEV_SIM_DRAM_EFFICIENCY,     /* attainable share of mem_bandwidth_gbs */
   DEV_SIM_L2_BYTES_PER_CLK,    /* attainable L2 bandwidth of the whole GPU */
   DEV_SIM_FP32_EFFICIENCY,     /* attainable share of the FP32 issue rate */
   DEV_SIM_OVERLAP_LOSS,        /* share of the smaller of latency and throughput added */
   DEV_FIELD_COUNT
} DeviceField;

#define DEV_SIM_FIRST DEV_SIM_DRAM_LATENCY
#define DEV_SIM_COUNT (DEV_FIELD_COUNT - DEV_SIM_FIRST)

typedef struct Device_ {
   char name[32];               /* the key users type: "h100_sxm" */
   char product[64];            /* the name the CUDA driver reports, for matching */
   int cc_major, cc_minor;
   double peak_fp32_gflops;
   double mem_bandwidth_gbs;
   int64_t sm_count;
   int64_t sm_partitions;
   int64_t warp_size;
   int64_t max_threads_per_sm;
   int64_t max_threads_per_block;
   int64_t max_blocks_per_sm;
   int64_t regs_per_sm;
   int64_t max_regs_per_thread;
   int64_t shared_per_sm;
   int64_t shared_per_block;
   int64_t shared_per_block_optin;
   int64_t l2_bytes;
   double clock_mhz;
   int64_t psa_active_blocks_per_sm;
   int64_t psa_vec_len;
   int64_t psa_reg_cap;
   double sim[DEV_SIM_COUNT];   /* DEV_SIM_FIRST + i */
   uint64_t valid;              /* bit (1 << DeviceField) set when known */
   char *file;                  /* where it was defined */
   int line;
} Device;

typedef enum {
   DEVFIELD_INT,
   DEVFIELD_DOUBLE,
   DEVFIELD_CC,                 /* "MAJOR.MINOR" */
} DeviceFieldType;

typedef struct DeviceFieldInfo_ {
   DeviceField field;
   const char *key;             /* devices.yaml key; "psa.vec_len" style for nested */
   DeviceFieldType type;
   const char *unit;            /* "GFLOP/s", "bytes", "" */
   double min, max;             /* accepted range */
   const char *help;
} DeviceFieldInfo;

typedef struct DeviceSet_ {
   int count;
   Device *devices;
} DeviceSet;

const DeviceFieldInfo *Device_fieldInfo(DeviceField f);

static inline bool Device_has(const Device *d, DeviceField f) {
   return (d->valid >> f) & 1u;
}

static inline void Device_setValid(Device *d, DeviceField f) {
   d->valid |= UINT64_C(1) << f;
}

/* Formats a field for display: its value with unit, or "N/A" when unknown. */
size_t Device_format(const Device *d, DeviceField f, char *buf, size_t size);
/* A known field's value as devices.yaml writes it, reading back to the same value:
 * "9.0" (quoted) for the capability, the shortest decimal that reads back for a
 * number, the integer; 0 (and an empty buf) when the field is unknown. */
size_t Device_formatValue(const Device *d, DeviceField f, char *buf, size_t size);
/* Fills the fields d lacks that its compute capability fixes (the CUDA C++ Programming
 * Guide's table of technical specifications per compute capability: warp size,
 * sub-partitions, threads, blocks, registers and shared memory per SM and per block),
 * and the peak FP32 rate from the clock, the SMs and the FP32 lanes per SM of that
 * capability. Returns the mask of the fields it filled (0 for an unknown capability
 * or a complete profile). */
uint64_t Device_completeFromCC(Device *d);
/* FP32 lanes per SM of a compute capability (the Programming Guide's arithmetic
 * throughput table); 0 when unknown. */
int Device_fp32Lanes(int major, int minor);
/* Dense Tensor-Core FLOPs per SM per clock of a compute capability in a precision, FP32
 * accumulation (the datasheets' peaks over SMs x boost clock; the sources are beside the
 * table in device.c); 0 for FP32 and where the generation has none. */
double Device_tensorFlopsPerClk(int ccMajor, int ccMinor, Precision p);
/* The SMs' clock in MHz: clock_mhz, else the FP32 peak over 2 x the SMs' FP32 lanes of
 * the capability; 0 when neither is known. */
double Device_clockMhz(const Device *d);
/* The keys of the fields in mask, ", "-separated, into buf. */
size_t Device_formatFields(uint64_t mask, char *buf, size_t size);
/* "sm_90" from the compute capability; "sm_??" when unknown. */
size_t Device_arch(const Device *d, char *buf, size_t size);

/* The L2 bytes per clock the simulator assumes per SM where a profile has no
 * sim.l2_bytes_per_clk. */
#define DEVICE_L2_BYTES_PER_CLK_PER_SM 48.0

/* What a cost model may read of the device the sample is measured on (CDMPP's and
 * tvm_oraa's device attributes): the SM count, the clock (MHz; where the profile has
 * none, the FP32 peak over 2 x the SMs' FP32 lanes, as the simulator takes it), the
 * FP32 peak (GFLOP/s), the DRAM bandwidth (GB/s), the L2 bandwidth (GB/s: the
 * simulator's attainable L2 bytes per clock times the clock), the L2 size, the shared
 * memory per SM (KiB both) and the registers per SM (thousands); 0 for what the
 * profile does not say. The learned models divide each by its largest value in their
 * training data. */
#define DEVICE_FEATURE_LEN 8
enum {   /* where each is in Device_features' vector */
   DEVICE_SMS,
   DEVICE_CLOCK_MHZ,
   DEVICE_PEAK_GFLOPS,
   DEVICE_DRAM_GBS,
   DEVICE_L2_GBS,
   DEVICE_L2_KIB,
   DEVICE_SHARED_KIB,
   DEVICE_REGS_K,
};
extern const char *const Device_featureNames[DEVICE_FEATURE_LEN];
void Device_features(const Device *d, float out[DEVICE_FEATURE_LEN]);

void DeviceSet_init(DeviceSet *set);
void DeviceSet_done(DeviceSet *set);
/* Loads a devices file into the set. A name already in the set from an earlier file is
 * replaced (a user's file overrides the shipped one); a name given twice in one file
 * is an error. Errors are "FILE:LINE:COL: message". */
int DeviceSet_load(DeviceSet *set, const char *path, char **cause);
int DeviceSet_loadString(DeviceSet *set, const char *name, const char *text, size_t len,
                         char **cause);
const Device *DeviceSet_find(const DeviceSet *set, const char *name);
/* The device whose `product` the driver's name matches (case-insensitive, ignoring
 * spaces and dashes), or NULL. */
const Device *DeviceSet_matchProduct(const DeviceSet *set, const char *driverName);

#endif
