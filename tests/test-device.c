/* devices.yaml: the shipped file's numbers, N/A for unknown fields, matching driver
 * names, a user file over the shipped one, and the exact message for each kind of
 * malformed file. */
#include "config.h"

#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "device/device.h"
#include "util/xalloc.h"

static void loadShipped(DeviceSet *set) {
   char *path = TestUtil_srcPath("devices.yaml");
   char *cause = NULL;
   DeviceSet_init(set);
   int rc = DeviceSet_load(set, path, &cause);
   if (rc != 0)
      fail_msg("%s", cause ? cause : "(no message)");
   assert_null(cause);
   free(path);
}

static const Device *get(const DeviceSet *set, const char *name) {
   const Device *d = DeviceSet_find(set, name);
   if (!d)
      fail_msg("device '%s' not in the set", name);
   return d;
}

static void assertFormat(const Device *d, DeviceField f, const char *want) {
   char buf[64];
   size_t n = Device_format(d, f, buf, sizeof buf);
   assert_string_equal(buf, want);
   assert_int_equal(n, strlen(want));
}

static void test_shippedOrderAndCount(void **state) {
   (void)state;
   static const char *const order[] = { "k80",  "t4",      "titanv",   "orin",      "a100",
                                        "a100_40", "v100", "a10g",     "l4",        "rtx4090",
                                        "h100_sxm", "h100_pcie", "h200" };
   DeviceSet set;
   loadShipped(&set);
   assert_int_equal(set.count, 13);
   for (int i = 0; i < 13; i++) {
      assert_string_equal(set.devices[i].name, order[i]);
      assert_true(set.devices[i].product[0] != '\0');
      assert_non_null(strstr(set.devices[i].file, "devices.yaml"));
      assert_true(set.devices[i].line > 1);
   }
   DeviceSet_done(&set);
   assert_int_equal(set.count, 0);
   assert_null(set.devices);
}

/* Pruner's psamodel_params table (pruner.md 1.2), which the first six entries copy. */
static void test_prunerProfiles(void **state) {
   (void)state;
   static const struct {
      const char *name;
      double peak, bw;
      int sms;
   } pruner[] = {
      { "k80", 8226, 480, 26 },       { "t4", 8141, 320, 40 },
      { "titanv", 14900, 651, 80 },   { "orin", 2660, 204, 16 },
      { "a100", 19490, 1935, 108 },   { "a100_40", 19490, 1555, 108 },
   };
   DeviceSet set;
   loadShipped(&set);
   for (size_t i = 0; i < sizeof pruner / sizeof pruner[0]; i++) {
      const Device *d = &set.devices[i];
      assert_string_equal(d->name, pruner[i].name);
      assert_true(Device_has(d, DEV_PEAK_FP32_GFLOPS));
      assert_true(Device_has(d, DEV_MEM_BANDWIDTH_GBS));
      assert_true(Device_has(d, DEV_SM_COUNT));
      assert_true(d->peak_fp32_gflops == pruner[i].peak);
      assert_true(d->mem_bandwidth_gbs == pruner[i].bw);
      assert_int_equal(d->sm_count, pruner[i].sms);
      assert_int_equal(d->sm_partitions, 4);
      assert_int_equal(d->warp_size, 32);
   }
   DeviceSet_done(&set);
}

static void test_everyEntryHasPsaParams(void **state) {
   (void)state;
   DeviceSet set;
   loadShipped(&set);
   for (int i = 0; i < set.count; i++) {
      const Device *d = &set.devices[i];
      assert_true(Device_has(d, DEV_PSA_ACTIVE_BLOCKS_PER_SM));
      assert_true(Device_has(d, DEV_PSA_VEC_LEN));
      assert_true(Device_has(d, DEV_PSA_REG_CAP));
      assert_int_equal(d->psa_active_blocks_per_sm, 1);
      assert_int_equal(d->psa_vec_len, 11);
      assert_int_equal(d->psa_reg_cap, 128);
      /* Every GPU here has a known compute capability and the per-SM limits of it. */
      assert_true(Device_has(d, DEV_COMPUTE_CAPABILITY));
      assert_int_equal(d->max_threads_per_block, 1024);
      assert_int_equal(d->shared_per_block, 49152);
      assert_int_equal(d->max_regs_per_thread, 255);
   }
   DeviceSet_done(&set);
}

static void test_a100_40(void **state) {
   (void)state;
   DeviceSet set;
   loadShipped(&set);
   const Device *d = get(&set, "a100_40");
   assert_string_equal(d->product, "NVIDIA A100-SXM4-40GB");
   assert_true(d->peak_fp32_gflops == 19490);
   assert_true(d->mem_bandwidth_gbs == 1555);
   assert_int_equal(d->sm_count, 108);
   assert_int_equal(d->cc_major, 8);
   assert_int_equal(d->cc_minor, 0);
   assert_int_equal(d->max_threads_per_sm, 2048);
   assert_int_equal(d->max_blocks_per_sm, 32);
   assert_int_equal(d->shared_per_sm, 167936);
   assert_int_equal(d->shared_per_block_optin, 166912);
   assert_int_equal(d->l2_bytes, 40 * 1024 * 1024);
   assertFormat(d, DEV_COMPUTE_CAPABILITY, "8.0");
   assertFormat(d, DEV_PEAK_FP32_GFLOPS, "19490 GFLOP/s");
   assertFormat(d, DEV_MEM_BANDWIDTH_GBS, "1555 GB/s");
   assertFormat(d, DEV_SM_COUNT, "108");
   assertFormat(d, DEV_SHARED_PER_SM, "164 KiB");
   assertFormat(d, DEV_SHARED_PER_BLOCK, "48 KiB");
   assertFormat(d, DEV_SHARED_PER_BLOCK_OPTIN, "163 KiB");
   assertFormat(d, DEV_L2_BYTES, "40 MiB");
   assertFormat(d, DEV_CLOCK_MHZ, "1410 MHz");
   assertFormat(d, DEV_REGS_PER_SM, "65536");
   assertFormat(d, DEV_PSA_VEC_LEN, "11");
   char arch[16];
   assert_int_equal(Device_arch(d, arch, sizeof arch), 5);
   assert_string_equal(arch, "sm_80");
   DeviceSet_done(&set);
}

static void test_h100(void **state) {
   (void)state;
   DeviceSet set;
   loadShipped(&set);
   const Device *d = get(&set, "h100_sxm");
   assert_string_equal(d->product, "NVIDIA H100 80GB HBM3");
   assert_int_equal(d->sm_count, 132);
   assert_int_equal(d->cc_major, 9);
   assert_int_equal(d->cc_minor, 0);
   assert_int_equal(d->shared_per_sm, 233472);
   assert_int_equal(d->shared_per_block_optin, 232448);
   assert_true(d->peak_fp32_gflops == 67000);
   assert_true(d->mem_bandwidth_gbs == 3350);
   assertFormat(d, DEV_SHARED_PER_BLOCK_OPTIN, "227 KiB");
   assertFormat(d, DEV_L2_BYTES, "50 MiB");
   char arch[16];
   Device_arch(d, arch, sizeof arch);
   assert_string_equal(arch, "sm_90");
   d = get(&set, "h100_pcie");
   assert_int_equal(d->sm_count, 114);
   assert_true(d->mem_bandwidth_gbs == 2000);
   d = get(&set, "k80");
   assert_int_equal(d->regs_per_sm, 131072);
   assert_int_equal(d->shared_per_block_optin, 49152);
   Device_arch(d, arch, sizeof arch);
   assert_string_equal(arch, "sm_37");
   DeviceSet_done(&set);
}

/* The device features a cost model reads, by hand from devices.yaml: h100_sxm has no
 * clock, so 67000 GFLOP/s over 2 x 132 SMs x 128 lanes = 1982.717 MHz, and its L2
 * moves 4207 bytes a clock (its sim.l2_bytes_per_clk): 8341.29 GB/s. */
static void test_deviceFeatures(void **state) {
   (void)state;
   DeviceSet set;
   loadShipped(&set);
   float f[DEVICE_FEATURE_LEN];
   Device_features(get(&set, "h100_sxm"), f);
   assert_true(f[0] == 132);
   assert_float_equal(f[1], 67000e3 / (132.0 * 2 * 128), 1e-3);
   assert_true(f[2] == 67000);
   assert_true(f[3] == 3350);
   assert_float_equal(f[4], 4207 * (67000e3 / (132.0 * 2 * 128)) * 1e-3, 1e-2);
   assert_true(f[5] == 51200);   /* 50 MiB */
   assert_true(f[6] == 228);     /* 233472 bytes */
   assert_float_equal(f[7], 65.536, 1e-6);
   assert_string_equal(Device_featureNames[4], "l2_bandwidth_gbs");
   DeviceSet_done(&set);
   /* what a profile leaves out is 0; an L2 without its own rate moves 48 bytes a clock
    * per SM, as the simulator assumes */
   const char *text = "devices:\n"
                      "  - name: bare\n"
                      "    product: Bare GPU\n"
                      "    compute_capability: \"8.0\"\n"
                      "    sm_count: 100\n"
                      "    clock_mhz: 1500\n";
   char *cause = NULL;
   DeviceSet_init(&set);
   assert_int_equal(DeviceSet_loadString(&set, "bare.yaml", text, strlen(text), &cause), 0);
   assert_null(cause);
   Device_features(get(&set, "bare"), f);
   assert_true(f[0] == 100 && f[1] == 1500 && f[2] == 0 && f[3] == 0);
   assert_float_equal(f[4], 48 * 100 * 1500 * 1e-3, 1e-3);
   assert_true(f[5] == 0 && f[6] == 0 && f[7] == 0);
   DeviceSet_done(&set);
}

/* A field the file leaves out is unknown: no valid bit, "N/A" on screen. */
static void test_unknownFields(void **state) {
   (void)state;
   DeviceSet set;
   loadShipped(&set);
   const Device *d = get(&set, "h100_sxm");
   assert_false(Device_has(d, DEV_CLOCK_MHZ));
   assertFormat(d, DEV_CLOCK_MHZ, "N/A");
   d = get(&set, "h200");
   assert_false(Device_has(d, DEV_CLOCK_MHZ));
   assertFormat(d, DEV_CLOCK_MHZ, "N/A");
   assertFormat(d, DEV_SM_COUNT, "132");
   assertFormat(d, DEV_MEM_BANDWIDTH_GBS, "4800 GB/s");
   assertFormat(d, DEV_L2_BYTES, "50 MiB");
   d = get(&set, "k80");
   assertFormat(d, DEV_L2_BYTES, "3 MiB");
   /* the simulator's constants are unknown unless a profile sets them */
   assertFormat(d, DEV_SIM_DRAM_LATENCY, "N/A");
   DeviceSet_done(&set);

   /* Only name and product: everything else is N/A, and the arch is unknown too. */
   char *cause = NULL;
   static const char text[] = "devices:\n  - name: bare\n    product: Bare GPU\n";
   DeviceSet_init(&set);
   assert_int_equal(DeviceSet_loadString(&set, "bare.yaml", text, strlen(text), &cause), 0);
   assert_null(cause);
   assert_int_equal(set.count, 1);
   d = &set.devices[0];
   assert_int_equal(d->valid, 0);
   assert_int_equal(d->line, 2);
   assert_string_equal(d->file, "bare.yaml");
   for (int f = 0; f < DEV_FIELD_COUNT; f++)
      assertFormat(d, (DeviceField)f, "N/A");
   char arch[16];
   Device_arch(d, arch, sizeof arch);
   assert_string_equal(arch, "sm_??");
   DeviceSet_done(&set);
}

static void test_fieldTable(void **state) {
   (void)state;
   assert_null(Device_fieldInfo(DEV_FIELD_COUNT));
   for (int f = 0; f < DEV_FIELD_COUNT; f++) {
      const DeviceFieldInfo *fi = Device_fieldInfo((DeviceField)f);
      assert_non_null(fi);
      assert_int_equal(fi->field, f);
      assert_non_null(fi->key);
      assert_non_null(fi->unit);
      assert_non_null(fi->help);
      assert_true(fi->min <= fi->max);
      for (int g = 0; g < f; g++)
         assert_string_not_equal(Device_fieldInfo((DeviceField)g)->key, fi->key);
   }
   assert_string_equal(Device_fieldInfo(DEV_COMPUTE_CAPABILITY)->key, "compute_capability");
   assert_int_equal(Device_fieldInfo(DEV_COMPUTE_CAPABILITY)->type, DEVFIELD_CC);
   assert_string_equal(Device_fieldInfo(DEV_PEAK_FP32_GFLOPS)->unit, "GFLOP/s");
   assert_int_equal(Device_fieldInfo(DEV_PEAK_FP32_GFLOPS)->type, DEVFIELD_DOUBLE);
   assert_string_equal(Device_fieldInfo(DEV_SHARED_PER_BLOCK_OPTIN)->key,
                       "shared_per_block_optin");
   assert_string_equal(Device_fieldInfo(DEV_SHARED_PER_BLOCK_OPTIN)->unit, "bytes");
   assert_string_equal(Device_fieldInfo(DEV_PSA_VEC_LEN)->key, "psa.vec_len");
   assert_true(Device_fieldInfo(DEV_WARP_SIZE)->min == 1);
   assert_true(Device_fieldInfo(DEV_WARP_SIZE)->max == 64);
   assert_true(Device_fieldInfo(DEV_SHARED_PER_SM)->max == 16 * 1024 * 1024);
}

/* The man page lists every field with the type, range and unit of the table. */
static void test_manPageMatchesTable(void **state) {
   (void)state;
   char *path = TestUtil_srcPath("man/pruner-tui-devices.5");
   char *man = TestUtil_readFile(path);
   for (int f = 0; f < DEV_FIELD_COUNT; f++) {
      const DeviceFieldInfo *fi = Device_fieldInfo((DeviceField)f);
      const char *dot = strchr(fi->key, '.');
      const char *leaf = dot ? dot + 1 : fi->key;
      char *want;
      if (fi->type == DEVFIELD_CC)
         want = xAsprintf("\n.B %s\nString \\%%MAJOR.MINOR", leaf);
      else
         want = xAsprintf("\n.B %s\n%s, %.*f to %.0f%s%s.\n", leaf,
                          fi->type == DEVFIELD_DOUBLE ? "Number" : "Integer", fi->min == floor(fi->min) ? 0 : 2,
                          fi->min, fi->max, *fi->unit ? " " : "", fi->unit);
      if (!strstr(man, want))
         fail_msg("%s does not describe %s as \"%s\"", path, fi->key, want + 1);
      free(want);
   }
   free(man);
   free(path);
}

/* Byte sizes use the largest binary unit that divides them; the rest stay in bytes. */
static void test_formatBytesAndNumbers(void **state) {
   (void)state;
   static const char text[] =
      "devices:\n"
      "  - name: odd\n"
      "    product: Odd GPU\n"
      "    compute_capability: 10.0\n"
      "    peak_fp32_gflops: 1234.5\n"
      "    shared_per_sm: 1000\n"
      "    shared_per_block: 0\n"
      "    l2_bytes: 1572864\n"
      "    clock_mhz: 1755\n";
   DeviceSet set;
   DeviceSet_init(&set);
   char *cause = NULL;
   assert_int_equal(DeviceSet_loadString(&set, "odd.yaml", text, strlen(text), &cause), 0);
   const Device *d = &set.devices[0];
   assertFormat(d, DEV_COMPUTE_CAPABILITY, "10.0");
   assertFormat(d, DEV_PEAK_FP32_GFLOPS, "1234.5 GFLOP/s");
   assertFormat(d, DEV_SHARED_PER_SM, "1000 B");
   assertFormat(d, DEV_SHARED_PER_BLOCK, "0 B");
   assertFormat(d, DEV_L2_BYTES, "1536 KiB");
   assertFormat(d, DEV_CLOCK_MHZ, "1755 MHz");
   char arch[16];
   Device_arch(d, arch, sizeof arch);
   assert_string_equal(arch, "sm_100");
   /* A short buffer truncates like snprintf and says how long the text would be. */
   char small[4];
   assert_int_equal(Device_format(d, DEV_PEAK_FP32_GFLOPS, small, sizeof small), 14);
   assert_string_equal(small, "123");
   DeviceSet_done(&set);
}

static void assertMatch(const DeviceSet *set, const char *driverName, const char *want) {
   const Device *d = DeviceSet_matchProduct(set, driverName);
   const char *shown = driverName ? driverName : "(null)";
   if (!want) {
      if (d)
         fail_msg("'%s' matched '%s', expected no match", shown, d->name);
      return;
   }
   if (!d)
      fail_msg("'%s' matched nothing, expected '%s'", shown, want);
   assert_string_equal(d->name, want);
}

static void test_matchProduct(void **state) {
   (void)state;
   DeviceSet set;
   loadShipped(&set);
   /* Names as the CUDA driver reports them. */
   assertMatch(&set, "NVIDIA H100 80GB HBM3", "h100_sxm");
   assertMatch(&set, "NVIDIA H100 PCIe", "h100_pcie");
   assertMatch(&set, "NVIDIA H200", "h200");
   assertMatch(&set, "Tesla T4", "t4");
   assertMatch(&set, "Tesla K80", "k80");
   assertMatch(&set, "NVIDIA A100-SXM4-40GB", "a100_40");
   assertMatch(&set, "NVIDIA A100 80GB PCIe", "a100");
   assertMatch(&set, "Tesla V100-SXM2-16GB", "v100");
   assertMatch(&set, "Tesla V100-SXM2-32GB", "v100");
   assertMatch(&set, "NVIDIA A10G", "a10g");
   assertMatch(&set, "NVIDIA L4", "l4");
   assertMatch(&set, "NVIDIA GeForce RTX 4090", "rtx4090");
   assertMatch(&set, "Orin", "orin");
   assertMatch(&set, "TITAN V", "titanv");
   assertMatch(&set, "NVIDIA TITAN V", "titanv");
   /* Case, spaces, dashes and underscores do not matter. */
   assertMatch(&set, "nvidia a100 sxm4 40gb", "a100_40");
   assertMatch(&set, "NVIDIA_H100-80GB_HBM3", "h100_sxm");
   assertMatch(&set, "  tesla   t4 ", "t4");
   /* Other GPUs, and near misses that must not match on part of a word. */
   assertMatch(&set, "NVIDIA L40S", NULL);
   assertMatch(&set, "NVIDIA L40", NULL);
   assertMatch(&set, "NVIDIA A10", NULL);
   assertMatch(&set, "NVIDIA H100 NVL", NULL);
   assertMatch(&set, "NVIDIA A100-SXM4-80GB", NULL);
   assertMatch(&set, "NVIDIA GeForce RTX 3090", NULL);
   assertMatch(&set, "Tesla T40", NULL);
   assertMatch(&set, "", NULL);
   assertMatch(&set, "---", NULL);
   assertMatch(&set, NULL, NULL);
   DeviceSet_done(&set);
}

/* When several products occur in the driver's name, the longest wins, in any order. */
static void test_matchLongest(void **state) {
   (void)state;
   static const char text[] =
      "devices:\n"
      "  - {name: h200, product: NVIDIA H200}\n"
      "  - {name: h200_nvl, product: NVIDIA H200 NVL}\n"
      "  - {name: nv, product: NVIDIA}\n";
   DeviceSet set;
   DeviceSet_init(&set);
   char *cause = NULL;
   assert_int_equal(DeviceSet_loadString(&set, "m.yaml", text, strlen(text), &cause), 0);
   assertMatch(&set, "NVIDIA H200 NVL", "h200_nvl");
   assertMatch(&set, "NVIDIA H200", "h200");
   assertMatch(&set, "NVIDIA H200 141GB HBM3e", "h200");
   assertMatch(&set, "NVIDIA B200", "nv");
   DeviceSet_done(&set);
}

/* A user's file replaces entries by name (keeping their place) and appends new ones. */
static void test_userFileOverrides(void **state) {
   (void)state;
   DeviceSet set;
   loadShipped(&set);
   char *dir = TestUtil_tempDir();
   char *path = TestUtil_writeFile(dir, "mine.yaml",
                                   "devices:\n"
                                   "  - name: a100_40\n"
                                   "    product: NVIDIA A100-SXM4-40GB\n"
                                   "    mem_bandwidth_gbs: 1500\n"
                                   "  - name: my_gpu\n"
                                   "    product: NVIDIA Mystery\n"
                                   "    compute_capability: \"8.6\"\n"
                                   "    sm_count: 7\n");
   char *cause = NULL;
   assert_int_equal(DeviceSet_load(&set, path, &cause), 0);
   assert_null(cause);
   assert_int_equal(set.count, 14);
   const Device *d = &set.devices[5];
   assert_string_equal(d->name, "a100_40");
   assert_true(d->mem_bandwidth_gbs == 1500);
   assert_string_equal(d->file, path);
   assert_int_equal(d->line, 2);
   /* The whole entry is replaced: what the user's entry leaves out is unknown. */
   assert_false(Device_has(d, DEV_SM_COUNT));
   assertFormat(d, DEV_PEAK_FP32_GFLOPS, "N/A");
   d = &set.devices[13];
   assert_string_equal(d->name, "my_gpu");
   assert_int_equal(d->sm_count, 7);
   assert_int_equal(d->line, 5);
   assertMatch(&set, "NVIDIA Mystery", "my_gpu");
   assert_ptr_equal(DeviceSet_find(&set, "my_gpu"), d);
   assert_null(DeviceSet_find(&set, "nonesuch"));
   assert_string_equal(get(&set, "h100_sxm")->name, "h100_sxm");

   /* A bad file changes nothing. */
   char *bad = TestUtil_writeFile(dir, "bad.yaml",
                                  "devices:\n"
                                  "  - {name: t4, product: X, sm_count: 1}\n"
                                  "  - {name: new_one, product: Y, sm_count: 0}\n");
   assert_int_equal(DeviceSet_load(&set, bad, &cause), -1);
   char *want = xAsprintf("%s:3:43: sm_count must be between 1 and 1024, found 0", bad);
   assert_string_equal(cause, want);
   assert_int_equal(set.count, 14);
   assert_int_equal(get(&set, "t4")->sm_count, 40);
   free(want);
   free(cause);
   free(bad);
   free(path);
   TestUtil_removeTree(dir);
   free(dir);
   DeviceSet_done(&set);
}

/* Loads `text` as "bad.yaml" into an empty set, expecting failure with message `want`. */
static void assertLoadError(const char *text, const char *want) {
   DeviceSet set;
   DeviceSet_init(&set);
   char *cause = NULL;
   int rc = DeviceSet_loadString(&set, "bad.yaml", text, strlen(text), &cause);
   assert_int_equal(rc, -1);
   assert_non_null(cause);
   assert_string_equal(cause, want);
   assert_int_equal(set.count, 0);
   assert_null(set.devices);
   free(cause);
   DeviceSet_done(&set);
}

#define ENTRY "devices:\n  - name: x\n    product: X GPU\n"

static void test_errorsStructure(void **state) {
   (void)state;
   assertLoadError("devices: [ {name: x\n",
                   "bad.yaml:2:1: YAML syntax error: did not find expected ',' or '}' "
                   "(while parsing a flow mapping at line 1)");
   assertLoadError("", "bad.yaml:1:1: empty file; expected a YAML mapping");
   assertLoadError("# nothing but a comment\n",
                   "bad.yaml:1:1: empty file; expected a YAML mapping");
   assertLoadError("- k80\n- t4\n",
                   "bad.yaml:1:1: expected the devices file as a mapping of keys to values, "
                   "found a list");
   assertLoadError("{}\n", "bad.yaml:1:1: missing key 'devices' in the devices file");
   assertLoadError("gpus: []\n",
                   "bad.yaml:1:1: unknown key 'gpus' in the devices file; expected one of: "
                   "devices");
   assertLoadError("devices: 3\n", "bad.yaml:1:10: expected devices as a list, found '3'");
   assertLoadError("devices:\n", "bad.yaml:1:9: expected devices as a list, found nothing");
   assertLoadError("devices:\n  - k80\n",
                   "bad.yaml:2:5: expected a device entry as a mapping of keys to values, "
                   "found 'k80'");
   assertLoadError("devices:\n  - product: X GPU\n    sm_count: 4\n",
                   "bad.yaml:2:5: missing key 'name' in a device entry");
   assertLoadError("devices:\n  - name: x\n    sm_count: 4\n",
                   "bad.yaml:2:5: missing key 'product' in device 'x'");
   assertLoadError(ENTRY "    sm_cout: 4\n",
                   "bad.yaml:4:5: unknown key 'sm_cout' in device 'x'; expected one of: name, "
                   "product, compute_capability, peak_fp32_gflops, mem_bandwidth_gbs, sm_count, "
                   "sm_partitions, warp_size, max_threads_per_sm, max_threads_per_block, "
                   "max_blocks_per_sm, regs_per_sm, max_regs_per_thread, shared_per_sm, "
                   "shared_per_block, shared_per_block_optin, l2_bytes, clock_mhz, psa, sim");
   assertLoadError(ENTRY "    psa: {active_blocks_per_sm: 1, veclen: 11}\n",
                   "bad.yaml:4:36: unknown key 'veclen' in psa of device 'x'; expected one of: "
                   "active_blocks_per_sm, vec_len, reg_cap");
   assertLoadError(ENTRY "    psa: 1\n",
                   "bad.yaml:4:10: expected psa of device 'x' as a mapping of keys to values, "
                   "found '1'");
   assertLoadError(ENTRY "    sm_count: 4\n    sm_count: 5\n",
                   "bad.yaml:5:5: key 'sm_count' appears twice in device 'x' (first at line 4)");
}

static void test_errorsValues(void **state) {
   (void)state;
   assertLoadError(ENTRY "    sm_count: many\n",
                   "bad.yaml:4:15: expected an integer for sm_count, found 'many'");
   assertLoadError(ENTRY "    sm_count: 108.5\n",
                   "bad.yaml:4:15: expected an integer for sm_count, found '108.5'");
   assertLoadError(ENTRY "    peak_fp32_gflops: fast\n",
                   "bad.yaml:4:23: expected a number for peak_fp32_gflops, found 'fast'");
   assertLoadError(ENTRY "    warp_size: -32\n",
                   "bad.yaml:4:16: warp_size must be between 1 and 64, found -32");
   assertLoadError(ENTRY "    sm_count: 2000\n",
                   "bad.yaml:4:15: sm_count must be between 1 and 1024, found 2000");
   assertLoadError(ENTRY "    shared_per_sm: 17000000\n",
                   "bad.yaml:4:20: shared_per_sm must be between 0 and 16777216, found 17000000");
   assertLoadError(ENTRY "    mem_bandwidth_gbs: -1555\n",
                   "bad.yaml:4:24: mem_bandwidth_gbs must be between 1 and 100000, found -1555");
   assertLoadError(ENTRY "    psa: {reg_cap: 0}\n",
                   "bad.yaml:4:20: psa.reg_cap must be between 1 and 65536, found 0");
   assertLoadError(ENTRY "    sm_count: \"108\"\n",
                   "bad.yaml:4:15: expected an integer for sm_count, found the quoted string "
                   "'108'");
   assertLoadError(ENTRY "    clock_mhz: '1410'\n",
                   "bad.yaml:4:16: expected a number for clock_mhz, found the quoted string "
                   "'1410'");
   assertLoadError(ENTRY "    l2_bytes: [1, 2]\n",
                   "bad.yaml:4:15: expected an integer for l2_bytes, found a list");
}

static void test_errorsComputeCapability(void **state) {
   (void)state;
   assertLoadError(ENTRY "    compute_capability: 9\n",
                   "bad.yaml:4:25: expected compute_capability as MAJOR.MINOR, for example "
                   "\"9.0\", found '9'");
   assertLoadError(ENTRY "    compute_capability: \"9.0.1\"\n",
                   "bad.yaml:4:25: expected compute_capability as MAJOR.MINOR, for example "
                   "\"9.0\", found '9.0.1'");
   assertLoadError(ENTRY "    compute_capability: x.y\n",
                   "bad.yaml:4:25: expected compute_capability as MAJOR.MINOR, for example "
                   "\"9.0\", found 'x.y'");
   assertLoadError(ENTRY "    compute_capability: 0.5\n",
                   "bad.yaml:4:25: expected compute_capability as MAJOR.MINOR, for example "
                   "\"9.0\", found '0.5'");
   assertLoadError(ENTRY "    compute_capability: 8.60\n",
                   "bad.yaml:4:25: expected compute_capability as MAJOR.MINOR, for example "
                   "\"9.0\", found '8.60'");
   assertLoadError(ENTRY "    compute_capability: {major: 9}\n",
                   "bad.yaml:4:25: expected compute_capability as MAJOR.MINOR, for example "
                   "\"9.0\", found a mapping");

   /* Plain, single- and double-quoted forms all read the same. */
   static const char text[] = "devices:\n"
                              "  - {name: a, product: A, compute_capability: 9.0}\n"
                              "  - {name: b, product: B, compute_capability: '8.6'}\n"
                              "  - {name: c, product: C, compute_capability: \"12.1\"}\n";
   DeviceSet set;
   DeviceSet_init(&set);
   char *cause = NULL;
   assert_int_equal(DeviceSet_loadString(&set, "cc.yaml", text, strlen(text), &cause), 0);
   assert_int_equal(set.devices[0].cc_major, 9);
   assert_int_equal(set.devices[0].cc_minor, 0);
   assert_int_equal(set.devices[1].cc_major, 8);
   assert_int_equal(set.devices[1].cc_minor, 6);
   assert_int_equal(set.devices[2].cc_major, 12);
   assert_int_equal(set.devices[2].cc_minor, 1);
   DeviceSet_done(&set);
}

static void test_errorsNames(void **state) {
   (void)state;
   assertLoadError("devices:\n"
                   "  - name: a100\n"
                   "    product: A\n"
                   "  - name: t4\n"
                   "    product: T\n"
                   "  - name: a100\n"
                   "    product: B\n",
                   "bad.yaml:6:11: duplicate device name 'a100' (first defined at line 2)");
   assertLoadError("devices:\n  - name: A100\n    product: A\n",
                   "bad.yaml:2:11: device name 'A100' may only contain a-z, 0-9 and _");
   assertLoadError("devices:\n  - name: h100-sxm\n    product: A\n",
                   "bad.yaml:2:11: device name 'h100-sxm' may only contain a-z, 0-9 and _");
   assertLoadError("devices:\n  - name: abcdefghijabcdefghijabcdefghijab\n    product: A\n",
                   "bad.yaml:2:11: name is longer than 31 characters");
   assertLoadError("devices:\n  - name: ''\n    product: A\n",
                   "bad.yaml:2:11: expected a string for name, found nothing");
   assertLoadError("devices:\n  - name: x\n    product: [A]\n",
                   "bad.yaml:3:14: expected a string for product, found a list");
   assertLoadError("devices:\n  - name: x\n    product: "
                   "0123456789012345678901234567890123456789012345678901234567890123\n",
                   "bad.yaml:3:14: product is longer than 63 characters");
}

static void test_errorsCrossField(void **state) {
   (void)state;
   assertLoadError(ENTRY "    shared_per_sm: 49152\n    shared_per_block: 65536\n",
                   "bad.yaml:5:23: shared_per_block (65536) must not be larger than "
                   "shared_per_sm (49152)");
   assertLoadError(ENTRY "    shared_per_block: 65536\n    shared_per_block_optin: 49152\n",
                   "bad.yaml:4:23: shared_per_block (65536) must not be larger than "
                   "shared_per_block_optin (49152)");
   assertLoadError(ENTRY "    shared_per_sm: 233472\n    shared_per_block_optin: 233473\n",
                   "bad.yaml:5:29: shared_per_block_optin (233473) must not be larger than "
                   "shared_per_sm (233472)");
   assertLoadError(ENTRY "    max_threads_per_sm: 1024\n    max_threads_per_block: 2048\n",
                   "bad.yaml:5:28: max_threads_per_block (2048) must not be larger than "
                   "max_threads_per_sm (1024)");
   assertLoadError(ENTRY "    regs_per_sm: 255\n    max_regs_per_thread: 256\n",
                   "bad.yaml:5:26: max_regs_per_thread (256) must not be larger than "
                   "regs_per_sm (255)");
   /* Equal is fine, and a relation with one side unknown is not checked. */
   static const char text[] = ENTRY "    shared_per_sm: 49152\n    shared_per_block: 49152\n"
                                    "    shared_per_block_optin: 49152\n"
                                    "    max_threads_per_block: 4096\n";
   DeviceSet set;
   DeviceSet_init(&set);
   char *cause = NULL;
   assert_int_equal(DeviceSet_loadString(&set, "ok.yaml", text, strlen(text), &cause), 0);
   assert_int_equal(set.devices[0].max_threads_per_block, 4096);
   DeviceSet_done(&set);
}

static void test_errorsFiles(void **state) {
   (void)state;
   char *dir = TestUtil_tempDir();
   DeviceSet set;
   DeviceSet_init(&set);
   char *cause = NULL;

   char *missing = xAsprintf("%s/nonesuch.yaml", dir);
   assert_int_equal(DeviceSet_load(&set, missing, &cause), -1);
   char *want = xAsprintf("%s: cannot open: No such file or directory", missing);
   assert_string_equal(cause, want);
   free(want);
   free(cause);
   cause = NULL;

   char *empty = TestUtil_writeFile(dir, "empty.yaml", "");
   assert_int_equal(DeviceSet_load(&set, empty, &cause), -1);
   want = xAsprintf("%s:1:1: empty file; expected a YAML mapping", empty);
   assert_string_equal(cause, want);
   free(want);
   free(cause);
   cause = NULL;

   char *syntax = TestUtil_writeFile(dir, "syntax.yaml", "devices:\n  - name: x\n   bad: [\n");
   assert_int_equal(DeviceSet_load(&set, syntax, &cause), -1);
   want = xAsprintf("%s:3:4: YAML syntax error: did not find expected '-' indicator "
                    "(while parsing a block collection at line 2)",
                    syntax);
   assert_string_equal(cause, want);
   free(want);
   free(cause);
   cause = NULL;

   char *two = TestUtil_writeFile(dir, "two.yaml", "devices: []\n---\ndevices: []\n");
   assert_int_equal(DeviceSet_load(&set, two, &cause), -1);
   want = xAsprintf("%s:2:1: a second YAML document; expected one document per file", two);
   assert_string_equal(cause, want);
   free(want);
   free(cause);
   cause = NULL;

   /* An empty list is a valid file that adds nothing. */
   char *none = TestUtil_writeFile(dir, "none.yaml", "devices: []\n");
   assert_int_equal(DeviceSet_load(&set, none, &cause), 0);
   assert_int_equal(set.count, 0);

   assert_int_equal(set.count, 0);
   DeviceSet_done(&set);
   free(missing);
   free(empty);
   free(syntax);
   free(two);
   free(none);
   TestUtil_removeTree(dir);
   free(dir);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shippedOrderAndCount),
      cmocka_unit_test(test_prunerProfiles),
      cmocka_unit_test(test_everyEntryHasPsaParams),
      cmocka_unit_test(test_a100_40),
      cmocka_unit_test(test_h100),
      cmocka_unit_test(test_deviceFeatures),
      cmocka_unit_test(test_unknownFields),
      cmocka_unit_test(test_fieldTable),
      cmocka_unit_test(test_manPageMatchesTable),
      cmocka_unit_test(test_formatBytesAndNumbers),
      cmocka_unit_test(test_matchProduct),
      cmocka_unit_test(test_matchLongest),
      cmocka_unit_test(test_userFileOverrides),
      cmocka_unit_test(test_errorsStructure),
      cmocka_unit_test(test_errorsValues),
      cmocka_unit_test(test_errorsComputeCapability),
      cmocka_unit_test(test_errorsNames),
      cmocka_unit_test(test_errorsCrossField),
      cmocka_unit_test(test_errorsFiles),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
