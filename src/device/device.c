/* devices.yaml: GPU descriptions read into a DeviceSet. One table (`fields`) names every
 * field with its key, type, unit, range and help; parsing, range checks, printing and
 * Device_fieldInfo all walk that table, so a new field is one line here plus a member
 * in Device. Everything a user can get wrong is reported as "FILE:LINE:COL: message". */
#include "config.h"

#include "device/device.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "util/yamldoc.h"

#define KiB 1024
#define MiB (1024 * 1024)

typedef struct FieldSpec_ {
   DeviceFieldInfo info;
   size_t offset;               /* of the int64_t or double in Device; unused for the CC */
} FieldSpec;

#define FIELD(f, key, type, member, unit, lo, hi, help) \
   [f] = { { f, key, type, unit, lo, hi, help }, offsetof(Device, member) }
#define INT_FIELD(f, key, member, unit, lo, hi, help) \
   FIELD(f, key, DEVFIELD_INT, member, unit, lo, hi, help)
#define DBL_FIELD(f, key, member, unit, lo, hi, help) \
   FIELD(f, key, DEVFIELD_DOUBLE, member, unit, lo, hi, help)

/* Ranges are wide on purpose: they catch typos (a missing digit, a value in KiB where
 * bytes are expected) without rejecting a GPU that does not exist yet. */
static const FieldSpec fields[DEV_FIELD_COUNT] = {
   FIELD(DEV_COMPUTE_CAPABILITY, "compute_capability", DEVFIELD_CC, cc_major, "", 1, 99,
         "CUDA compute capability as MAJOR.MINOR, e.g. \"9.0\" (gives the sm_XY target)"),
   DBL_FIELD(DEV_PEAK_FP32_GFLOPS, "peak_fp32_gflops", peak_fp32_gflops, "GFLOP/s", 1, 500000,
             "peak dense FP32 rate without tensor cores, at the boost clock"),
   DBL_FIELD(DEV_MEM_BANDWIDTH_GBS, "mem_bandwidth_gbs", mem_bandwidth_gbs, "GB/s", 1, 100000,
             "peak DRAM bandwidth, 10^9 bytes per second"),
   INT_FIELD(DEV_SM_COUNT, "sm_count", sm_count, "", 1, 1024,
             "streaming multiprocessors"),
   INT_FIELD(DEV_SM_PARTITIONS, "sm_partitions", sm_partitions, "", 1, 16,
             "sub-partitions (warp schedulers) per SM"),
   INT_FIELD(DEV_WARP_SIZE, "warp_size", warp_size, "", 1, 64,
             "threads per warp"),
   INT_FIELD(DEV_MAX_THREADS_PER_SM, "max_threads_per_sm", max_threads_per_sm, "", 1, 16384,
             "resident threads per SM"),
   INT_FIELD(DEV_MAX_THREADS_PER_BLOCK, "max_threads_per_block", max_threads_per_block, "", 1,
             16384, "threads per block"),
   INT_FIELD(DEV_MAX_BLOCKS_PER_SM, "max_blocks_per_sm", max_blocks_per_sm, "", 1, 1024,
             "resident blocks per SM"),
   INT_FIELD(DEV_REGS_PER_SM, "regs_per_sm", regs_per_sm, "", 1, 4194304,
             "32-bit registers per SM"),
   INT_FIELD(DEV_MAX_REGS_PER_THREAD, "max_regs_per_thread", max_regs_per_thread, "", 1, 4096,
             "32-bit registers one thread may use"),
   INT_FIELD(DEV_SHARED_PER_SM, "shared_per_sm", shared_per_sm, "bytes", 0, 16 * MiB,
             "shared memory per SM"),
   INT_FIELD(DEV_SHARED_PER_BLOCK, "shared_per_block", shared_per_block, "bytes", 0, 16 * MiB,
             "shared memory per block without opt-in (the static limit, 48 KiB so far)"),
   INT_FIELD(DEV_SHARED_PER_BLOCK_OPTIN, "shared_per_block_optin", shared_per_block_optin,
             "bytes", 0, 16 * MiB,
             "shared memory per block with the dynamic-size opt-in"),
   INT_FIELD(DEV_L2_BYTES, "l2_bytes", l2_bytes, "bytes", 0, 4096LL * MiB,
             "L2 cache size"),
   DBL_FIELD(DEV_CLOCK_MHZ, "clock_mhz", clock_mhz, "MHz", 1, 10000,
             "boost clock of the SMs"),
   INT_FIELD(DEV_PSA_ACTIVE_BLOCKS_PER_SM, "psa.active_blocks_per_sm", psa_active_blocks_per_sm,
             "", 1, 1024, "PSA: blocks assumed active per SM (Pruner uses 1)"),
   INT_FIELD(DEV_PSA_VEC_LEN, "psa.vec_len", psa_vec_len, "", 1, 1024,
             "PSA: vector length parameter (Pruner uses 11; its formula ignores it)"),
   INT_FIELD(DEV_PSA_REG_CAP, "psa.reg_cap", psa_reg_cap, "", 1, 65536,
             "PSA: registers per thread before the register penalty (Pruner uses 128)"),
   DBL_FIELD(DEV_SIM_DRAM_LATENCY, "sim.dram_latency", sim[0], "cycles", 10, 10000,
             "simulator: latency of a global load that misses to DRAM"),
   DBL_FIELD(DEV_SIM_L2_LATENCY, "sim.l2_latency", sim[1], "cycles", 10, 10000,
             "simulator: latency of a global load that hits L2"),
   DBL_FIELD(DEV_SIM_SHARED_LATENCY, "sim.shared_latency", sim[2], "cycles", 1, 1000,
             "simulator: latency of a shared-memory load"),
   DBL_FIELD(DEV_SIM_L1_LATENCY, "sim.l1_latency", sim[3], "cycles", 1, 1000,
             "simulator: latency of a local-memory access (stack arrays, spills) hitting L1"),
   DBL_FIELD(DEV_SIM_BARRIER_CYCLES, "sim.barrier_cycles", sim[4], "cycles", 0, 10000,
             "simulator: a __syncthreads once every warp of the block has arrived"),
   DBL_FIELD(DEV_SIM_BLOCK_CYCLES, "sim.block_cycles", sim[5], "cycles", 0, 100000,
             "simulator: retiring a round of resident blocks and starting the next"),
   DBL_FIELD(DEV_SIM_LAUNCH_US, "sim.launch_us", sim[6], "us", 0, 1000,
             "simulator: launch overhead of one kernel (back-to-back launches)"),
   DBL_FIELD(DEV_SIM_DRAM_EFFICIENCY, "sim.dram_efficiency", sim[7], "", 0.05, 1,
             "simulator: attainable share of mem_bandwidth_gbs (a streaming copy)"),
   DBL_FIELD(DEV_SIM_L2_BYTES_PER_CLK, "sim.l2_bytes_per_clk", sim[8], "bytes/clock", 64, 1e6,
             "simulator: attainable L2 bandwidth of the whole GPU"),
   DBL_FIELD(DEV_SIM_FP32_EFFICIENCY, "sim.fp32_efficiency", sim[9], "", 0.05, 1,
             "simulator: attainable share of the FP32 issue rate (independent FMAs)"),
   DBL_FIELD(DEV_SIM_OVERLAP_LOSS, "sim.overlap_loss", sim[10], "", 0, 1,
             "simulator: share of the smaller of a round's latency and throughput added to the larger"),
};
_Static_assert(DEV_SIM_COUNT == 11, "one sim.* field per simulator constant");

/* Pairs (smaller, larger) that a real GPU always satisfies; a violation is a typo. */
static const struct {
   DeviceField smaller, larger;
} orderRules[] = {
   { DEV_SHARED_PER_BLOCK, DEV_SHARED_PER_BLOCK_OPTIN },
   { DEV_SHARED_PER_BLOCK_OPTIN, DEV_SHARED_PER_SM },
   { DEV_SHARED_PER_BLOCK, DEV_SHARED_PER_SM },
   { DEV_MAX_THREADS_PER_BLOCK, DEV_MAX_THREADS_PER_SM },
   { DEV_WARP_SIZE, DEV_MAX_THREADS_PER_BLOCK },
   { DEV_MAX_REGS_PER_THREAD, DEV_REGS_PER_SM },
};

#define NAME_MAX_LEN ((int)sizeof(((Device *)0)->name) - 1)
#define PRODUCT_MAX_LEN ((int)sizeof(((Device *)0)->product) - 1)
#define MAX_PARENTS 4
#define MAX_DEVICES 256 /* entries in one file */

const DeviceFieldInfo *Device_fieldInfo(DeviceField f) {
   if ((int)f < 0 || f >= DEV_FIELD_COUNT)
      return NULL;
   return &fields[f].info;
}

static int64_t *intSlot(Device *d, DeviceField f) {
   return (int64_t *)(void *)((char *)d + fields[f].offset);
}

static double *doubleSlot(Device *d, DeviceField f) {
   return (double *)(void *)((char *)d + fields[f].offset);
}

static int64_t intValue(const Device *d, DeviceField f) {
   return *(const int64_t *)(const void *)((const char *)d + fields[f].offset);
}

static double doubleValue(const Device *d, DeviceField f) {
   return *(const double *)(const void *)((const char *)d + fields[f].offset);
}

/* Byte sizes read best in the largest binary unit that divides them exactly, so that
 * nothing is rounded: 49152 is "48 KiB", 52428800 is "50 MiB", 1000 stays "1000 B". */
static int formatBytes(int64_t v, char *buf, size_t size) {
   if (v > 0 && v % MiB == 0)
      return snprintf(buf, size, "%lld MiB", (long long)(v / MiB));
   if (v > 0 && v % KiB == 0)
      return snprintf(buf, size, "%lld KiB", (long long)(v / KiB));
   return snprintf(buf, size, "%lld B", (long long)v);
}

size_t Device_format(const Device *d, DeviceField f, char *buf, size_t size) {
   const DeviceFieldInfo *fi = Device_fieldInfo(f);
   int n;
   if (!fi || !Device_has(d, f))
      n = snprintf(buf, size, "N/A");
   else if (fi->type == DEVFIELD_CC)
      n = snprintf(buf, size, "%d.%d", d->cc_major, d->cc_minor);
   else if (fi->type == DEVFIELD_DOUBLE)
      n = snprintf(buf, size, *fi->unit ? "%.10g %s" : "%.10g%s", doubleValue(d, f), fi->unit);
   else if (strcmp(fi->unit, "bytes") == 0)
      n = formatBytes(intValue(d, f), buf, size);
   else if (*fi->unit)
      n = snprintf(buf, size, "%lld %s", (long long)intValue(d, f), fi->unit);
   else
      n = snprintf(buf, size, "%lld", (long long)intValue(d, f));
   return n < 0 ? 0 : (size_t)n;
}

size_t Device_formatValue(const Device *d, DeviceField f, char *buf, size_t size) {
   const DeviceFieldInfo *fi = Device_fieldInfo(f);
   int n = 0;
   if (size > 0)
      buf[0] = '\0';
   if (!fi || !Device_has(d, f))
      return 0;
   if (fi->type == DEVFIELD_CC) {
      n = snprintf(buf, size, "\"%d.%d\"", d->cc_major, d->cc_minor);
   } else if (fi->type == DEVFIELD_DOUBLE) {
      double v = doubleValue(d, f);
      /* the shortest of 15 to 17 digits that reads back to v */
      for (int digits = 15; digits <= 17; digits++) {
         n = snprintf(buf, size, "%.*g", digits, v);
         if (strtod(buf, NULL) == v)
            break;
      }
   } else {
      n = snprintf(buf, size, "%lld", (long long)intValue(d, f));
   }
   return n < 0 ? 0 : (size_t)n;
}

/* ---- what a compute capability fixes ---- */

/* The CUDA C++ Programming Guide's "Technical Specifications per Compute Capability"
 * table (cc 3.7 from the CUDA 11 edition, which still lists Kepler), and the FP32 lanes
 * per SM of its arithmetic-instruction throughput table. Every SM since Kepler has four
 * warp schedulers. Static shared memory is limited to 48 KB per block everywhere.
 * The dense Tensor-Core FLOPs per SM per clock {FP16, BF16, TF32}, FP32 accumulation,
 * are the datasheets' dense peaks over SMs x boost clock: V100 125 TFLOP/s = 80 x 1.53
 * GHz x 1024; T4 65 = 40 x 1.59 x 1024; A100 312 and 156 = 108 x 1.41 x 2048 and 1024;
 * A10 125 = 72 x 1.695 x 1024 and L4 121 = 58 x 2.04 x 1024; H100 SXM 990 and 495 =
 * 132 x 1.83 x 4096 and 2048 (datacenter parts: GeForce boards of 8.6 and 8.9
 * accumulate in FP32 at half this rate). */
typedef struct CcSpec_ {
   int major, minor;
   int64_t threadsPerSm, blocksPerSm, regsPerSm, sharedPerSm, sharedOptin;
   int fp32Lanes;
   double tensorPerClk[3];      /* FP16, BF16, TF32 */
} CcSpec;

static const CcSpec ccSpecs[] = {
   { 3, 7, 2048, 16, 131072, 112 * KiB, 48 * KiB, 192, { 0, 0, 0 } },
   { 5, 0, 2048, 32, 65536, 64 * KiB, 48 * KiB, 128, { 0, 0, 0 } },
   { 5, 2, 2048, 32, 65536, 96 * KiB, 48 * KiB, 128, { 0, 0, 0 } },
   { 5, 3, 2048, 32, 65536, 64 * KiB, 48 * KiB, 128, { 0, 0, 0 } },
   { 6, 0, 2048, 32, 65536, 64 * KiB, 48 * KiB, 64, { 0, 0, 0 } },
   { 6, 1, 2048, 32, 65536, 96 * KiB, 48 * KiB, 128, { 0, 0, 0 } },
   { 6, 2, 2048, 32, 65536, 64 * KiB, 48 * KiB, 128, { 0, 0, 0 } },
   { 7, 0, 2048, 32, 65536, 96 * KiB, 96 * KiB, 64, { 1024, 0, 0 } },
   { 7, 2, 2048, 32, 65536, 96 * KiB, 96 * KiB, 64, { 1024, 0, 0 } },
   { 7, 5, 1024, 16, 65536, 64 * KiB, 64 * KiB, 64, { 1024, 0, 0 } },
   { 8, 0, 2048, 32, 65536, 164 * KiB, 163 * KiB, 64, { 2048, 2048, 1024 } },
   { 8, 6, 1536, 16, 65536, 100 * KiB, 99 * KiB, 128, { 1024, 1024, 512 } },
   { 8, 7, 1536, 16, 65536, 164 * KiB, 163 * KiB, 128, { 1024, 1024, 512 } },
   { 8, 9, 1536, 24, 65536, 100 * KiB, 99 * KiB, 128, { 1024, 1024, 512 } },
   { 9, 0, 2048, 32, 65536, 228 * KiB, 227 * KiB, 128, { 4096, 4096, 2048 } },
};

static const CcSpec *ccSpec(int major, int minor) {
   for (size_t i = 0; i < sizeof ccSpecs / sizeof ccSpecs[0]; i++)
      if (ccSpecs[i].major == major && ccSpecs[i].minor == minor)
         return &ccSpecs[i];
   return NULL;
}

int Device_fp32Lanes(int major, int minor) {
   const CcSpec *c = ccSpec(major, minor);
   if (c)
      return c->fp32Lanes;
   return major >= 10 ? 128 : 0;   /* Blackwell: 128 FP32 lanes per SM */
}

double Device_tensorFlopsPerClk(int ccMajor, int ccMinor, Precision p) {
   const CcSpec *c = ccSpec(ccMajor, ccMinor);
   if (!c || p == PRECISION_FP32)
      return 0;
   return c->tensorPerClk[p - PRECISION_FP16];
}

double Device_clockMhz(const Device *d) {
   if (Device_has(d, DEV_CLOCK_MHZ))
      return d->clock_mhz;
   int lanes = Device_has(d, DEV_COMPUTE_CAPABILITY) ? Device_fp32Lanes(d->cc_major, d->cc_minor) : 0;
   if (Device_has(d, DEV_PEAK_FP32_GFLOPS) && Device_has(d, DEV_SM_COUNT) && d->sm_count > 0 && lanes > 0)
      return d->peak_fp32_gflops * 1e3 / ((double)d->sm_count * 2 * lanes);
   return 0;
}

uint64_t Device_completeFromCC(Device *d) {
   if (!Device_has(d, DEV_COMPUTE_CAPABILITY))
      return 0;
   const CcSpec *c = ccSpec(d->cc_major, d->cc_minor);
   if (!c)
      return 0;
   uint64_t filled = 0;
   const struct {
      DeviceField f;
      int64_t v;
   } known[] = {
      { DEV_WARP_SIZE, 32 },
      { DEV_SM_PARTITIONS, 4 },
      { DEV_MAX_THREADS_PER_BLOCK, 1024 },
      { DEV_MAX_REGS_PER_THREAD, 255 },
      { DEV_SHARED_PER_BLOCK, 48 * KiB },
      { DEV_MAX_THREADS_PER_SM, c->threadsPerSm },
      { DEV_MAX_BLOCKS_PER_SM, c->blocksPerSm },
      { DEV_REGS_PER_SM, c->regsPerSm },
      { DEV_SHARED_PER_SM, c->sharedPerSm },
      { DEV_SHARED_PER_BLOCK_OPTIN, c->sharedOptin },
   };
   for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
      if (Device_has(d, known[i].f))
         continue;
      *intSlot(d, known[i].f) = known[i].v;
      Device_setValid(d, known[i].f);
      filled |= UINT64_C(1) << known[i].f;
   }
   if (!Device_has(d, DEV_PEAK_FP32_GFLOPS) && Device_has(d, DEV_CLOCK_MHZ) && Device_has(d, DEV_SM_COUNT)) {
      /* an FMA is 2 FLOPs per lane per clock */
      d->peak_fp32_gflops = 2.0 * c->fp32Lanes * (double)d->sm_count * d->clock_mhz / 1000.0;
      Device_setValid(d, DEV_PEAK_FP32_GFLOPS);
      filled |= UINT64_C(1) << DEV_PEAK_FP32_GFLOPS;
   }
   return filled;
}

size_t Device_formatFields(uint64_t mask, char *buf, size_t size) {
   size_t n = 0;
   if (size > 0)
      buf[0] = '\0';
   for (int f = 0; f < DEV_FIELD_COUNT; f++) {
      if (!(mask >> f & 1))
         continue;
      int k = snprintf(buf + (n < size ? n : size), n < size ? size - n : 0, "%s%s", n ? ", " : "",
                       fields[f].info.key);
      n += k > 0 ? (size_t)k : 0;
   }
   return n;
}

const char *const Device_featureNames[DEVICE_FEATURE_LEN] = {
   "sm_count", "clock_mhz", "peak_fp32_gflops", "mem_bandwidth_gbs",
   "l2_bandwidth_gbs", "l2_kib", "shared_per_sm_kib", "regs_per_sm_k",
};

void Device_features(const Device *d, float out[DEVICE_FEATURE_LEN]) {
   memset(out, 0, DEVICE_FEATURE_LEN * sizeof *out);
   if (Device_has(d, DEV_SM_COUNT))
      out[DEVICE_SMS] = (float)d->sm_count;
   double mhz = Device_clockMhz(d);
   out[DEVICE_CLOCK_MHZ] = (float)mhz;
   if (Device_has(d, DEV_PEAK_FP32_GFLOPS))
      out[DEVICE_PEAK_GFLOPS] = (float)d->peak_fp32_gflops;
   if (Device_has(d, DEV_MEM_BANDWIDTH_GBS))
      out[DEVICE_DRAM_GBS] = (float)d->mem_bandwidth_gbs;
   double l2PerClk = Device_has(d, DEV_SIM_L2_BYTES_PER_CLK) ? d->sim[DEV_SIM_L2_BYTES_PER_CLK - DEV_SIM_FIRST]
                     : Device_has(d, DEV_SM_COUNT)            ? DEVICE_L2_BYTES_PER_CLK_PER_SM * (double)d->sm_count
                                                              : 0;
   out[DEVICE_L2_GBS] = (float)(l2PerClk * mhz * 1e-3);
   if (Device_has(d, DEV_L2_BYTES))
      out[DEVICE_L2_KIB] = (float)d->l2_bytes / 1024.0f;
   if (Device_has(d, DEV_SHARED_PER_SM))
      out[DEVICE_SHARED_KIB] = (float)d->shared_per_sm / 1024.0f;
   if (Device_has(d, DEV_REGS_PER_SM))
      out[DEVICE_REGS_K] = (float)d->regs_per_sm / 1000.0f;
}

size_t Device_arch(const Device *d, char *buf, size_t size) {
   int n = Device_has(d, DEV_COMPUTE_CAPABILITY)
              ? snprintf(buf, size, "sm_%d%d", d->cc_major, d->cc_minor)
              : snprintf(buf, size, "sm_??");
   return n < 0 ? 0 : (size_t)n;
}

void DeviceSet_init(DeviceSet *set) {
   set->count = 0;
   set->devices = NULL;
}

void DeviceSet_done(DeviceSet *set) {
   for (int i = 0; i < set->count; i++)
      free(set->devices[i].file);
   free(set->devices);
   DeviceSet_init(set);
}

static int findIndex(const DeviceSet *set, const char *name) {
   for (int i = 0; i < set->count; i++)
      if (strcmp(set->devices[i].name, name) == 0)
         return i;
   return -1;
}

const Device *DeviceSet_find(const DeviceSet *set, const char *name) {
   int i = findIndex(set, name);
   return i < 0 ? NULL : &set->devices[i];
}

/* ---- key lists derived from the table ---- */

/* The keys a device entry accepts: name, product, every un-nested field key and one
 * key per nested group ("psa"); and for each group the keys it accepts. */
typedef struct KeyLists_ {
   const char *entry[DEV_FIELD_COUNT + 3];
   char parent[MAX_PARENTS][32];
   const char *child[MAX_PARENTS][DEV_FIELD_COUNT + 1];
   int nparents;
} KeyLists;

static int parentIndex(const KeyLists *k, const char *key, size_t len) {
   for (int i = 0; i < k->nparents; i++)
      if (strlen(k->parent[i]) == len && strncmp(k->parent[i], key, len) == 0)
         return i;
   return -1;
}

static void KeyLists_build(KeyLists *k) {
   memset(k, 0, sizeof *k);
   int ne = 0;
   k->entry[ne++] = "name";
   k->entry[ne++] = "product";
   int nchild[MAX_PARENTS] = { 0 };
   for (int f = 0; f < DEV_FIELD_COUNT; f++) {
      const char *key = fields[f].info.key;
      const char *dot = strchr(key, '.');
      if (!dot) {
         k->entry[ne++] = key;
         continue;
      }
      size_t len = (size_t)(dot - key);
      int p = parentIndex(k, key, len);
      if (p < 0) {
         if (k->nparents == MAX_PARENTS || len >= sizeof k->parent[0])
            fatal("device field table: too many or too long nested groups at '%s'", key);
         p = k->nparents++;
         memcpy(k->parent[p], key, len);
         k->entry[ne++] = k->parent[p];
      }
      k->child[p][nchild[p]++] = dot + 1;
   }
   k->entry[ne] = NULL;
}

/* ---- parsing ---- */

/* Where each field came from in the file, for messages about relations between fields. */
typedef struct EntryNodes_ {
   yaml_node_t *name;
   yaml_node_t *field[DEV_FIELD_COUNT];
} EntryNodes;

static bool validName(const char *s) {
   for (; *s; s++)
      if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_'))
         return false;
   return true;
}

/* "MAJOR.MINOR" with one or two major digits and one minor digit. libyaml does not type
 * scalars, so a plain 9.0 arrives as the text "9.0", the same as a quoted "9.0". */
static int parseCC(YamlDoc *d, yaml_node_t *n, Device *dev, char **cause) {
   char buf[64];
   const char *s = n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
   size_t len = s ? strlen(s) : 0;
   bool ok = s && (len == 3 || len == 4) && len == n->data.scalar.length;
   size_t dot = len - 2;
   if (ok)
      for (size_t i = 0; i < len; i++)
         ok = ok && (i == dot ? s[i] == '.' : isdigit((unsigned char)s[i]) != 0);
   int major = ok ? atoi(s) : 0;
   if (!ok || major < 1)
      return YamlDoc_error(d, n, cause, "expected compute_capability as MAJOR.MINOR, "
                           "for example \"9.0\", found %s", YamlDoc_describe(n, buf, sizeof buf));
   dev->cc_major = major;
   dev->cc_minor = s[len - 1] - '0';
   return 0;
}

static int parseField(YamlDoc *d, yaml_node_t *n, DeviceField f, Device *dev, char **cause) {
   const DeviceFieldInfo *fi = &fields[f].info;
   int rc;
   switch (fi->type) {
   case DEVFIELD_CC:
      rc = parseCC(d, n, dev, cause);
      break;
   case DEVFIELD_DOUBLE:
      rc = YamlDoc_double(d, n, fi->key, fi->min, fi->max, doubleSlot(dev, f), cause);
      break;
   default:
      rc = YamlDoc_int(d, n, fi->key, (int64_t)fi->min, (int64_t)fi->max, intSlot(dev, f),
                       cause);
      break;
   }
   if (rc == 0)
      Device_setValid(dev, (DeviceField)f);
   return rc;
}

static int checkOrder(YamlDoc *d, const Device *dev, const EntryNodes *nodes, char **cause) {
   for (size_t i = 0; i < sizeof orderRules / sizeof orderRules[0]; i++) {
      DeviceField a = orderRules[i].smaller, b = orderRules[i].larger;
      if (!Device_has(dev, a) || !Device_has(dev, b) || intValue(dev, a) <= intValue(dev, b))
         continue;
      return YamlDoc_error(d, nodes->field[a], cause,
                           "%s (%lld) must not be larger than %s (%lld)", fields[a].info.key,
                           (long long)intValue(dev, a), fields[b].info.key,
                           (long long)intValue(dev, b));
   }
   return 0;
}

static int parseEntry(YamlDoc *d, yaml_node_t *entry, const KeyLists *keys, Device *dev,
                      EntryNodes *nodes, char **cause) {
   memset(dev, 0, sizeof *dev);
   memset(nodes, 0, sizeof *nodes);
   if (entry->type != YAML_MAPPING_NODE)
      return YamlDoc_checkMapping(d, entry, keys->entry, "a device entry", cause);

   yaml_node_t *n = YamlDoc_get(d, entry, "name");
   const char *name;
   if (!n)
      return YamlDoc_error(d, entry, cause, "missing key 'name' in a device entry");
   if (YamlDoc_string(d, n, "name", (size_t)NAME_MAX_LEN, &name, cause) < 0)
      return -1;
   if (!validName(name))
      return YamlDoc_error(d, n, cause, "device name '%s' may only contain a-z, 0-9 and _",
                           name);
   nodes->name = n;
   strcpy(dev->name, name);

   char what[64];
   snprintf(what, sizeof what, "device '%s'", name);
   if (YamlDoc_checkMapping(d, entry, keys->entry, what, cause) < 0)
      return -1;

   n = YamlDoc_get(d, entry, "product");
   const char *product;
   if (!n)
      return YamlDoc_error(d, entry, cause, "missing key 'product' in %s", what);
   if (YamlDoc_string(d, n, "product", (size_t)PRODUCT_MAX_LEN, &product, cause) < 0)
      return -1;
   strcpy(dev->product, product);

   yaml_node_t *group[MAX_PARENTS];
   for (int p = 0; p < keys->nparents; p++) {
      group[p] = YamlDoc_get(d, entry, keys->parent[p]);
      char gwhat[96];
      snprintf(gwhat, sizeof gwhat, "%s of %s", keys->parent[p], what);
      if (group[p] && YamlDoc_checkMapping(d, group[p], keys->child[p], gwhat, cause) < 0)
         return -1;
   }

   for (int f = 0; f < DEV_FIELD_COUNT; f++) {
      const char *key = fields[f].info.key;
      const char *dot = strchr(key, '.');
      yaml_node_t *map = entry;
      if (dot) {
         map = group[parentIndex(keys, key, (size_t)(dot - key))];
         key = dot + 1;
      }
      yaml_node_t *v = map ? YamlDoc_get(d, map, key) : NULL;
      if (!v)
         continue;
      nodes->field[f] = v;
      if (parseField(d, v, (DeviceField)f, dev, cause) < 0)
         return -1;
   }
   if (checkOrder(d, dev, nodes, cause) < 0)
      return -1;
   dev->line = YamlDoc_line(entry);
   dev->file = xStrdup(d->path);
   return 0;
}

static void freeDevices(Device *devs, int n) {
   for (int i = 0; i < n; i++)
      free(devs[i].file);
   free(devs);
}

/* A later file overrides an earlier one name by name, keeping the earlier position so
 * that lists stay in the shipped order. */
static void merge(DeviceSet *set, Device *devs, int n) {
   for (int i = 0; i < n; i++) {
      int old = findIndex(set, devs[i].name);
      if (old >= 0) {
         free(set->devices[old].file);
         set->devices[old] = devs[i];
         continue;
      }
      set->devices = xReallocArray(set->devices, (size_t)set->count + 1, sizeof *set->devices);
      set->devices[set->count++] = devs[i];
   }
   free(devs);
}

static int loadDoc(DeviceSet *set, YamlDoc *d, char **cause) {
   static const char *const topKeys[] = { "devices", NULL };
   yaml_node_t *root = YamlDoc_root(d);
   if (YamlDoc_checkMapping(d, root, topKeys, "the devices file", cause) < 0)
      return -1;
   yaml_node_t *list = YamlDoc_get(d, root, "devices");
   if (!list)
      return YamlDoc_error(d, root, cause, "missing key 'devices' in the devices file");
   if (YamlDoc_checkList(d, list, "devices", cause) < 0)
      return -1;

   int n = YamlDoc_listLength(list);
   if (n > MAX_DEVICES)
      return YamlDoc_error(d, list, cause, "%d devices; a devices file may have at most %d", n, MAX_DEVICES);
   KeyLists keys;
   KeyLists_build(&keys);
   Device *devs = xCalloc(n > 0 ? (size_t)n : 1, sizeof *devs);
   yaml_node_t **nameNodes = xCalloc(n > 0 ? (size_t)n : 1, sizeof *nameNodes);
   int done = 0, rc = 0;
   for (; done < n; done++) {
      EntryNodes nodes;
      if (parseEntry(d, YamlDoc_listItem(d, list, done), &keys, &devs[done], &nodes, cause) < 0) {
         free(devs[done].file);
         rc = -1;
         break;
      }
      nameNodes[done] = nodes.name;
      for (int j = 0; j < done && rc == 0; j++)
         if (strcmp(devs[j].name, devs[done].name) == 0)
            rc = YamlDoc_error(d, nodes.name, cause,
                               "duplicate device name '%s' (first defined at line %d)",
                               devs[done].name, YamlDoc_line(nameNodes[j]));
      if (rc < 0) {
         done++;
         break;
      }
   }
   free(nameNodes);
   if (rc < 0) {
      freeDevices(devs, done);
      return -1;
   }
   merge(set, devs, n);
   return 0;
}

int DeviceSet_load(DeviceSet *set, const char *path, char **cause) {
   YamlDoc d;
   int rc = YamlDoc_load(&d, path, cause);
   if (rc == 0)
      rc = loadDoc(set, &d, cause);
   YamlDoc_done(&d);
   return rc;
}

int DeviceSet_loadString(DeviceSet *set, const char *name, const char *text, size_t len,
                         char **cause) {
   YamlDoc d;
   int rc = YamlDoc_loadString(&d, name, text, len, cause);
   if (rc == 0)
      rc = loadDoc(set, &d, cause);
   YamlDoc_done(&d);
   return rc;
}

/* ---- matching the driver's name ---- */

/* A name reduced to lower-case letters and digits; `sep[i]` says a space, dash,
 * underscore or other separator stood before character i, so that a match can be
 * required to start and end on a word boundary ("NVIDIA L4" must not match "NVIDIA L40S"). */
typedef struct NormName_ {
   char c[128];
   bool sep[129];
   int len;
} NormName;

static void normalize(const char *s, NormName *out) {
   memset(out, 0, sizeof *out);
   bool pending = true;
   for (; *s && out->len < (int)sizeof out->c - 1; s++) {
      unsigned char ch = (unsigned char)*s;
      if (!isalnum(ch)) {
         pending = true;
         continue;
      }
      out->sep[out->len] = pending;
      out->c[out->len++] = (char)tolower(ch);
      pending = false;
   }
   out->sep[out->len] = true;
}

static bool containsOnBoundary(const NormName *hay, const NormName *needle) {
   int m = needle->len;
   for (int p = 0; m > 0 && p + m <= hay->len; p++)
      if (hay->sep[p] && hay->sep[p + m] && memcmp(hay->c + p, needle->c, (size_t)m) == 0)
         return true;
   return false;
}

const Device *DeviceSet_matchProduct(const DeviceSet *set, const char *driverName) {
   if (!driverName)
      return NULL;
   NormName drv, prod;
   normalize(driverName, &drv);
   if (drv.len == 0)
      return NULL;
   const Device *best = NULL;
   int bestLen = 0;
   for (int i = 0; i < set->count; i++) {
      normalize(set->devices[i].product, &prod);
      if (prod.len == drv.len && memcmp(prod.c, drv.c, (size_t)drv.len) == 0)
         return &set->devices[i];
      if (prod.len > bestLen && containsOnBoundary(&drv, &prod)) {
         best = &set->devices[i];
         bestLen = prod.len;
      }
   }
   return best;
}
