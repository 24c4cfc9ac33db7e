/* The details texts of a task's state: the task and state, the loop nest and the CUDA
 * launch configuration of hand-written states whose extents follow from their split
 * factors, PSA's latency line equal to Psa_latency's, the features, a sampled state
 * that parses back, the counters and the roofline of hand-made counters on a hand-made
 * device, and the causes of a state that does not parse, a task out of range and a
 * device PSA cannot use. */
#include "config.h"

#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/analysis.h"
#include "details.h"
#include "ir/lower.h"
#include "util/xalloc.h"

/* tests/data/tiny2.task's task 0 is dense m16 n64 k32 with a bias. The state splits i
 * (16) into [vthread 1, thread 4, inner 2, innermost 1], so the block tile is 8 rows
 * and i_block runs 16 / 8 = 2 times; j (64) into [1, 8, 2, 2], a tile of 32 columns,
 * 64 / 32 = 2 blocks; k (32) into [middle 4, inner 2], so k_outer runs 32 / 8 = 4
 * times. The grid is 2 x 2 = 4 blocks of 4 x 8 = 32 threads; the shared copies hold the
 * 8 x 8 data tile and the 32 x 8 weight tile, (64 + 256) x 4 = 1280 bytes. */
#define DENSE_STATE \
   "{\"v\":1,\"sketch\":0,\"knobs\":{\"T_dense.i\":[1,4,2,1],\"T_dense.j\":[1,8,2,2],\"T_dense.k\":[4,2]," \
   "\"data.shared.vector\":1,\"weight.shared.vector\":2,\"T_dense.unroll\":16}}"

/* tests/data/every-kind.task's task 11 is a softmax over 2 x 3 rows of 40. Sketch 3 is
 * three simple kernels: the row maximum and the row sum put their 6 rows in one block
 * of 6 threads; the normalization's 240 elements take 64 threads a block, 240 / 64
 * rounded up = 4 blocks. */
#define SOFTMAX_STATE \
   "{\"v\":1,\"sketch\":3,\"knobs\":{\"T_softmax_norm.threads\":64,\"T_softmax_maxelem.unroll\":0," \
   "\"T_softmax_expsum.unroll\":16}}"

/* A loaded task file and a subject of one of its tasks, for a test's state. */
typedef struct {
   Network net;
   DetailsSubject s;
} Fixture;

static int setUp(void **state, const char *file, int task, const char *stateText) {
   Fixture *sub = xMalloc(sizeof *sub);
   TestUtil_loadNetwork(&sub->net, file);
   SchedLimits lim;
   SchedLimits_default(&lim);
   char *cause = NULL;
   if (DetailsSubject_init(&sub->s, &sub->net, task, stateText, &lim, &cause) < 0)
      fail_msg("%s", cause);
   *state = sub;
   return 0;
}

static int setUpDense(void **state) {
   return setUp(state, "tests/data/tiny2.task", 0, DENSE_STATE);
}

static int setUpSoftmax(void **state) {
   return setUp(state, "tests/data/every-kind.task", 11, SOFTMAX_STATE);
}

static const DetailsSubject *subject(void **state) {
   return &((Fixture *)*state)->s;
}

static int tearDown(void **state) {
   Fixture *sub = *state;
   DetailsSubject_done(&sub->s);
   Network_done(&sub->net);
   free(sub);
   return 0;
}

static void assertContains(const char *text, const char *want) {
   if (!strstr(text, want))
      fail_msg("expected\n%s\nin\n%s", want, text);
}

static void assertStartsWith(const char *text, const char *want) {
   if (strncmp(text, want, strlen(want)) != 0)
      fail_msg("expected\n%s\nat the start of\n%s", want, text);
}

static void test_task(void **state) {
   const DetailsSubject *s = subject(state);
   char *text = Details_task(s);
   assert_string_equal(text, "task 0 of tiny2: dense m16 n64 k32, epilogue bias\n"
                             "sketch 0 of 4: tiled T_dense into T_bias, shared data, weight\n"
                             "state: " DENSE_STATE "\n");
   free(text);
}

static void test_loops(void **state) {
   const DetailsSubject *s = subject(state);
   char *text = Details_loops(s);
   assertContains(text, "kernel T_bias_kernel: grid 4, block 32, shared 1280 bytes\n"
                        "  local T_dense_local[8]\n"
                        "  shared data_shared[64]\n"
                        "  shared weight_shared[256]\n"
                        "  i_block = floordiv(blockIdx.x, 2)\n"
                        "  j_block = floormod(blockIdx.x, 2)\n"
                        "  i_thread = floordiv(threadIdx.x, 8)\n"
                        "  j_thread = floormod(threadIdx.x, 8)\n");
   assertContains(text, "\n  for k_outer in 0..4:\n");
   assertContains(text, "\n    for k_mid in 0..4:\n");
   assertContains(text, "\n          unrolled for k_inner in 0..2:\n");
   /* the weight tile's 256 floats, 2 at a time, by 32 threads: 4 rounds */
   assertContains(text, "\n    for weight_round in 0..4:\n      vectorized for lane in 0..2:\n");
   free(text);
}

static void test_cuda(void **state) {
   const DetailsSubject *s = subject(state);
   char *launch = Details_launch(s);
   assert_string_equal(launch, "launch T_bias_kernel: grid 4 blocks, 32 threads per block, "
                               "1280 bytes of static shared memory\n");
   char *src = Details_source(s);
   char *head = xAsprintf("// pruner-tui %s: task 0 of tiny2, dense_b1_m16_n64_k32+bias\n"
                          "// state " DENSE_STATE "\n",
                          PACKAGE_VERSION);
   assertStartsWith(src, head);
   assertContains(src, "// T_bias_kernel: grid 4, block 32, static shared memory 1280 bytes\n"
                       "extern \"C\" __global__ void __launch_bounds__(32) T_bias_kernel(");
   assertContains(src, "  __shared__ __align__(16) float data_shared[64];\n"
                       "  __shared__ __align__(16) float weight_shared[256];\n");
   char *cuda = Details_cuda(s);
   char *want = xAsprintf("%s\n%s", launch, src);
   assert_string_equal(cuda, want);
   free(want);
   free(cuda);
   free(head);
   free(src);
   free(launch);
}

static void test_cudaKernels(void **state) {
   const DetailsSubject *s = subject(state);
   char *launch = Details_launch(s);
   assert_string_equal(launch, "launch T_softmax_maxelem_kernel: grid 1 blocks, 6 threads per block, "
                               "0 bytes of static shared memory\n"
                               "launch T_softmax_expsum_kernel: grid 1 blocks, 6 threads per block, "
                               "0 bytes of static shared memory\n"
                               "launch T_softmax_norm_kernel: grid 4 blocks, 64 threads per block, "
                               "0 bytes of static shared memory\n");
   char *cuda = Details_cuda(s);
   assertContains(cuda, "__global__ void __launch_bounds__(6) T_softmax_maxelem_kernel(");
   assertContains(cuda, "__global__ void __launch_bounds__(6) T_softmax_expsum_kernel(");
   assertContains(cuda, "__global__ void __launch_bounds__(64) T_softmax_norm_kernel(");
   char *text = Details_task(s);
   assert_string_equal(text, "task 11 of every_kind: softmax 2x3x40, epilogue -\n"
                             "sketch 3 of 4: simple T_softmax_maxelem; simple T_softmax_expsum; simple T_softmax_norm\n"
                             "state: " SOFTMAX_STATE "\n");
   free(text);
   free(cuda);
   free(launch);
}

static void test_psa(void **state) {
   const DetailsSubject *s = subject(state);
   DeviceSet devices;
   TestUtil_loadDevices(&devices);
   const Device *dev = DeviceSet_find(&devices, "a100_40");
   assert_non_null(dev);

   /* the estimate through the library, from a loop nest lowered here */
   PsaParams params;
   char *cause = NULL;
   assert_int_equal(PsaParams_fromDevice(&params, dev, &cause), 0);
   LoopNest ln;
   LoopNest_init(&ln);
   Lower_state(&s->set, &s->state, &ln);
   Analysis *a = Analysis_new();
   PsaSymbols psa;
   Analysis_run(a, &ln, &psa, NULL);
   double latency = Psa_latency(&psa, &params, NULL);
   char *line = xAsprintf("\nPSA latency estimate: %.6f ms (score %.4f)\n", latency, 1 / latency);

   char *text = Details_psa(s, dev, &cause);
   if (!text)
      fail_msg("%s", cause);
   assertContains(text, line);
   assertContains(text, "\nPSA latency estimate: 0.000422 ms (score 2370.4736)\n");
   assertStartsWith(text, "PSA on a100_40: peak 19490 GFLOP/s, 1555 GB/s, 108 SMs x 4 sub-partitions");
   /* per thread 2 x 2 x 2 outputs of 32 multiply-adds: 512 FLOPs; 128 threads in all */
   assertContains(text, "\nT_dense_local          local             512          65536 ");
   /* grid 4, block 32, no virtual threads */
   assertContains(text, "       4     32   1\ndata_shared            shared ");
   free(text);
   free(line);
   Analysis_free(a);
   LoopNest_done(&ln);
   DeviceSet_done(&devices);
}

static void test_psaRefused(void **state) {
   const DetailsSubject *s = subject(state);
   static const char yaml[] = "devices:\n  - name: mygpu\n    product: My GPU\n    sm_count: 7\n";
   DeviceSet devices;
   DeviceSet_init(&devices);
   char *cause = NULL;
   if (DeviceSet_loadString(&devices, "mine.yaml", yaml, strlen(yaml), &cause) < 0)
      fail_msg("%s", cause);
   assert_null(Details_psa(s, DeviceSet_find(&devices, "mygpu"), &cause));
   assert_string_equal(cause, "device mygpu (mine.yaml:2) has no peak_fp32_gflops, which PSA needs");
   free(cause);
   DeviceSet_done(&devices);
}

/* A GPU of 20000 GFLOP/s and 2000 GB/s: the ridge at 10 FLOP/B. */
static const char rooflineYaml[] = "devices:\n  - name: roofgpu\n    product: Roof GPU\n    sm_count: 10\n"
                                   "    peak_fp32_gflops: 20000\n    mem_bandwidth_gbs: 2000\n";

/* 4062.5 GFLOP/s over 812.5 GB/s: 5 FLOP/B, under the slanted roof of 5 x 2000 =
 * 10000 GFLOP/s, 40.6% of it; every counter known. */
static Counters memoryBoundCounters(void) {
   return (Counters){ .present = true, .simulated = true, .known = COUNTERS_ALL_FIELDS, .dramGbs = 812.5,
                      .l2HitRate = 0.62, .occupancy = 0.5, .gflops = 4062.5, .waves = 1.94, .l1HitRate = 0.1,
                      .bankConflicts = 0.25, .instructions = 1.2e7, .ipc = 1.5, .bound = "memory",
                      .stall = "long_scoreboard", .stallShare = 0.6 };
}

static void test_counters(void **state) {
   (void)state;
   DeviceSet devices;
   DeviceSet_init(&devices);
   char *cause = NULL;
   if (DeviceSet_loadString(&devices, "roof.yaml", rooflineYaml, strlen(rooflineYaml), &cause) < 0)
      fail_msg("%s", cause);
   const Device *dev = DeviceSet_find(&devices, "roofgpu");
   Counters c = memoryBoundCounters();
   char *text = Details_counters(&c, dev, "unused");
   assert_string_equal(text, "counters: simulated (the simulator's model of the program, not a GPU's)\n"
                             "  DRAM throughput       812.5 GB/s\n"
                             "  L1 hit rate           10.0%\n"
                             "  L2 hit rate           62.0%\n"
                             "  occupancy             50.0% of the SM's warps\n"
                             "  FP32 rate             4062.5 GFLOP/s\n"
                             "  waves                 1.94\n"
                             "  bank conflicts        25.0% more shared-memory wavefronts\n"
                             "  instructions          1.2e+07 warp instructions\n"
                             "  IPC                   1.50 per SM and clock\n"
                             "  top stall             long_scoreboard, 60.0% of the stalled cycles\n"
                             "  bound                 memory\n"
                             "roofline on roofgpu: FP32 peak 20000 GFLOP/s, DRAM 2000 GB/s\n"
                             "  ridge point           10.00 FLOP/B\n"
                             "  arithmetic intensity  5.00 FLOP/B\n"
                             "  attained              4062.5 GFLOP/s\n"
                             "  roof there            10000.0 GFLOP/s (intensity x DRAM bandwidth)\n"
                             "  of the roof           40.6%\n"
                             "  position              memory bound (intensity below the ridge)\n");
   free(text);

   /* CUPTI's, of an older record without the later five: 15000 GFLOP/s over 500 GB/s
    * is 30 FLOP/B, past the ridge: under the flat roof, 75% of the peak */
   c = (Counters){ .present = true, .dramGbs = 500, .l2HitRate = 0.9, .occupancy = 0.25, .gflops = 15000,
                   .waves = 12, .bound = "compute" };
   text = Details_counters(&c, dev, "unused");
   assert_string_equal(text, "counters: measured on the GPU (CUPTI's range profiler)\n"
                             "  DRAM throughput       500.0 GB/s\n"
                             "  L1 hit rate           N/A\n"
                             "  L2 hit rate           90.0%\n"
                             "  occupancy             25.0% of the SM's warps\n"
                             "  FP32 rate             15000.0 GFLOP/s\n"
                             "  waves                 12.00\n"
                             "  bank conflicts        N/A\n"
                             "  instructions          N/A\n"
                             "  IPC                   N/A\n"
                             "  top stall             N/A\n"
                             "  bound                 compute\n"
                             "roofline on roofgpu: FP32 peak 20000 GFLOP/s, DRAM 2000 GB/s\n"
                             "  ridge point           10.00 FLOP/B\n"
                             "  arithmetic intensity  30.00 FLOP/B\n"
                             "  attained              15000.0 GFLOP/s\n"
                             "  roof there            20000.0 GFLOP/s (the FP32 peak)\n"
                             "  of the roof           75.0%\n"
                             "  position              compute bound (intensity at or above the ridge)\n");
   free(text);

   /* no position: no FP32 work, no profile, a profile without the peak */
   c.gflops = 0;
   text = Details_counters(&c, dev, "unused");
   assertContains(text, "  bound                 compute\nroofline on roofgpu: N/A: it did no FP32 arithmetic\n");
   free(text);
   c = memoryBoundCounters();
   text = Details_counters(&c, NULL, "unused");
   assertContains(text, "  bound                 memory\nroofline: N/A: the device has no profile in devices.yaml\n");
   free(text);
   static const char bare[] = "devices:\n  - name: bare\n    product: Bare\n    sm_count: 7\n";
   DeviceSet other;
   DeviceSet_init(&other);
   if (DeviceSet_loadString(&other, "bare.yaml", bare, strlen(bare), &cause) < 0)
      fail_msg("%s", cause);
   text = Details_counters(&c, DeviceSet_find(&other, "bare"), "unused");
   assertContains(text, "\nroofline on bare: N/A: the device's FP32 peak is not known\n");
   free(text);
   DeviceSet_done(&other);

   c.present = false;
   text = Details_counters(&c, dev, "the task has no successful measurement yet");
   assert_string_equal(text, "no counters yet: the task has no successful measurement yet\n");
   free(text);
   DeviceSet_done(&devices);
}

static void test_features(void **state) {
   const DetailsSubject *s = subject(state);
   char *text = Details_features(s);
   /* a store per row: the accumulator, the two shared copies and the output */
   assertStartsWith(text, "Features: 4 row(s) of 164 (");
   assertContains(text, "\nrow 0: T_dense_local (local)\n  computation:\n");
   assertContains(text, "\nrow 1: data_shared (shared)\n");
   assertContains(text, "\nrow 2: weight_shared (shared)\n");
   assertContains(text, "\nrow 3: T_bias (global)\n");
   assertContains(text, "\nPattern block (PAM, 8 x 23): 20101112 found at access 0 of 11\n");
   /* a dense op with an added bias */
   assertContains(text, "\nWorkload embedding: 0 0 1 0 0 0 1 0 0 0  (max min add conv");
   free(text);
}

static void test_sample(void **state) {
   (void)state;
   Network net;
   TestUtil_loadNetwork(&net, "tests/data/every-kind.task");
   SchedLimits lim;
   SchedLimits_default(&lim);
   char *cause = NULL;
   DetailsSubject a, b;
   if (DetailsSubject_sample(&a, &net, 11, 3, &lim, &cause) < 0)
      fail_msg("%s", cause);
   /* the same seed, the same state; and its text parses back into it */
   if (DetailsSubject_sample(&b, &net, 11, 3, &lim, &cause) < 0)
      fail_msg("%s", cause);
   assert_true(State_equal(&a.state, &b.state));
   DetailsSubject_done(&b);
   char text[1024];
   State_format(&a.set, &a.state, text, sizeof text);
   /* what `pruner-tui kernel tests/data/every-kind.task 11 --seed 3` shows */
   assert_string_equal(text, "{\"v\":1,\"sketch\":0,\"knobs\":{\"T_softmax_maxelem.threads\":32,"
                             "\"T_softmax_norm.threads\":32,\"T_softmax_maxelem.unroll\":0,"
                             "\"T_softmax_expsum.unroll\":0}}");
   if (DetailsSubject_init(&b, &net, 11, text, &lim, &cause) < 0)
      fail_msg("%s", cause);
   assert_true(State_equal(&a.state, &b.state));
   char *ta = Details_task(&a), *tb = Details_task(&b);
   assert_string_equal(ta, tb);
   free(tb);
   free(ta);
   DetailsSubject_done(&b);
   DetailsSubject_done(&a);
   Network_done(&net);
}

/* How a test makes a subject. */
typedef enum { BY_INIT, BY_PARSE, BY_SAMPLE } Making;

/* The cause the making gives, which must fail, of task `task` of tiny2 from stateText
 * (or, by sampling, seed 1) under lim (caller frees). */
static char *refusal(Making how, int task, const char *stateText, const SchedLimits *lim) {
   Network net;
   TestUtil_loadNetwork(&net, "tests/data/tiny2.task");
   DetailsSubject s;
   char *cause = NULL;
   int rc = how == BY_INIT    ? DetailsSubject_init(&s, &net, task, stateText, lim, &cause)
            : how == BY_PARSE ? DetailsSubject_parse(&s, &net, task, stateText, lim, &cause)
                              : DetailsSubject_sample(&s, &net, task, 1, lim, &cause);
   assert_int_equal(rc, -1);
   assert_non_null(cause);
   Network_done(&net);
   return cause;
}

static void assertRefused(Making how, int task, const char *stateText, const char *want) {
   SchedLimits lim;
   SchedLimits_default(&lim);
   char *cause = refusal(how, task, stateText, &lim);
   assert_string_equal(cause, want);
   free(cause);
}

static void test_noValidState(void **state) {
   (void)state;
   /* no tiled dense fits in no shared memory */
   SchedLimits lim;
   SchedLimits_default(&lim);
   lim.maxSharedPerBlock = 0;
   char *cause = refusal(BY_SAMPLE, 0, NULL, &lim);
   assertStartsWith(cause, "task 0 has no valid state: no valid state in 100000 samples; the last was rejected "
                           "with: state: ");
   free(cause);
}

static void test_badState(void **state) {
   (void)state;
   /* k's factors 4 x 3 do not divide 32 */
   const char *bad = "{\"v\":1,\"sketch\":0,\"knobs\":{\"T_dense.i\":[1,4,2,1],\"T_dense.j\":[1,8,2,2],"
                     "\"T_dense.k\":[4,3],\"data.shared.vector\":1,\"weight.shared.vector\":2,\"T_dense.unroll\":16}}";
   assertRefused(BY_INIT, 0, bad,
                 "task 0: state: knob 'T_dense.k' is [4,3]; its product 12 does not divide the extent 32 of axis k");
   assertRefused(BY_PARSE, 0, bad,
                 "state: knob 'T_dense.k' is [4,3]; its product 12 does not divide the extent 32 of axis k");
   assertRefused(BY_INIT, 1, "{\"v\":1", "task 1: state: not valid JSON: the text ends before the object is complete");
}

static void test_taskOutOfRange(void **state) {
   (void)state;
   assertRefused(BY_INIT, 2, DENSE_STATE, "task 2 is not one of the 2 tasks of tiny2");
   assertRefused(BY_PARSE, -1, DENSE_STATE, "task -1 is not one of the 2 tasks of tiny2");
   assertRefused(BY_SAMPLE, 2, NULL, "task 2 is not one of the 2 tasks of tiny2");
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_task, setUpDense, tearDown),
      cmocka_unit_test_setup_teardown(test_loops, setUpDense, tearDown),
      cmocka_unit_test_setup_teardown(test_cuda, setUpDense, tearDown),
      cmocka_unit_test_setup_teardown(test_cudaKernels, setUpSoftmax, tearDown),
      cmocka_unit_test_setup_teardown(test_psa, setUpDense, tearDown),
      cmocka_unit_test_setup_teardown(test_psaRefused, setUpDense, tearDown),
      cmocka_unit_test_setup_teardown(test_features, setUpDense, tearDown),
      cmocka_unit_test(test_counters),
      cmocka_unit_test(test_sample),
      cmocka_unit_test(test_noValidState),
      cmocka_unit_test(test_badState),
      cmocka_unit_test(test_taskOutOfRange),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
