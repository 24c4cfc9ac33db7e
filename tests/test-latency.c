/* The latency head (cost/latency.h): the roofline it starts from, computed by hand;
 * its target for each kind of sample, over PSA's estimate and over the roofline; a
 * head that learns two programs' ratios, the metrics' MAPE of its estimate; and the
 * checkpoint section: a model with a head saves and loads it bit for bit, a model
 * without one keeps the old layout, a head of an older checkpoint (over PSA's
 * estimate) still reads and predicts from PSA's, a copy keeps it, and a cut or
 * foreign section is refused with the reader's messages. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "cost/checkpoint.h"
#include "cost/latency.h"
#include "cost/metrics.h"
#include "cost/model.h"
#include "cost/models.h"
#include "util/xalloc.h"

/* A one-row sample of task t whose first feature is x, PSA's estimate psaMs and
 * cost costS seconds (0: unmeasured), on a device whose first feature is dev. */
static void addSample(Dataset *d, int t, float x, double psaMs, double costS, float dev) {
   Features f;
   memset(&f, 0, sizeof f);
   f.patternAt = -1;
   f.nrows = 1;
   f.row[0][0] = x;
   f.row[0][1] = 1;
   Dataset_add(d, t, &f, NULL, psaMs, costS);
   float device[DEVICE_FEATURE_LEN] = { dev, 1 };
   Dataset_setDevice(d, d->n - 1, device);
}

static void test_target(void **state) {
   Dataset d;
   Dataset_init(&d);
   int t = Dataset_task(&d, "t");
   addSample(&d, t, 1, 1.0, 3e-3, 0);                   /* ln(3 ms / 1 ms) */
   addSample(&d, t, 1, 4.0, 1e-3, 0);                   /* ln(1 / 4) */
   addSample(&d, t, 1, INFINITY, 1e-3, 0);              /* no estimate */
   addSample(&d, t, 1, 0, 1e-3, 0);                     /* an estimate of 0 */
   addSample(&d, t, 1, 1.0, DATASET_FAILED_COST, 0);    /* a failure */
   addSample(&d, t, 1, 1.0, 0, 0);                      /* unmeasured */
   assert_float_equal(LatencyHead_target(&d, LATENCY_BASE_PSA, 0), (float)log(3.0), 1e-6);
   assert_float_equal(LatencyHead_target(&d, LATENCY_BASE_PSA, 1), (float)log(0.25), 1e-6);
   for (int i = 2; i < 6; i++)
      assert_true(isnan(LatencyHead_target(&d, LATENCY_BASE_PSA, i)));
   /* Dataset_add starts the roofline at PSA's estimate; the featurizer replaces it */
   assert_float_equal(d.roofline[1], 4.0f, 0);
   d.roofline[0] = 0.5f;
   d.roofline[1] = INFINITY;
   assert_float_equal(LatencyHead_target(&d, LATENCY_BASE_ROOFLINE, 0), (float)log(6.0), 1e-6);
   assert_true(isnan(LatencyHead_target(&d, LATENCY_BASE_ROOFLINE, 1)));
   assert_float_equal(LatencyHead_target(&d, LATENCY_BASE_PSA, 0), (float)log(3.0), 1e-6);
   Dataset_done(&d);
}

/* Two kernels: the first reads buffer 0 (1,000 elements) and writes buffer 1 (500),
 * the second reads buffer 1 and writes buffer 2 (10); PSA's two rows, one loading
 * 8 MB at 0.001 ms of arithmetic, one computing for 0.004 ms; 1,000 GB/s of DRAM,
 * 4,000 of L2, 3 us a launch. */
static void test_roofline(void **state) {
   LoopNest *ln = xCalloc(1, sizeof *ln);
   ln->nbuffers = 3;
   ln->buffers[0].elems = 1000;
   ln->buffers[1].elems = 500;
   ln->buffers[2].elems = 10;
   ln->nkernels = 2;
   ln->kernels[0].nparams = 2;
   ln->kernels[0].params[0] = 0;
   ln->kernels[0].params[1] = 1;
   ln->kernels[1].nparams = 2;
   ln->kernels[1].params[0] = 1;
   ln->kernels[1].params[1] = 2;
   PsaSymbols psa;
   memset(&psa, 0, sizeof psa);
   psa.nrows = 2;
   psa.rows[0].sym[PSA_DRAM_WORKLOAD] = 8e6;
   PsaRowCost costs[2] = { { .tComp = 0.001 }, { .tComp = 0.004 } };
   float device[DEVICE_FEATURE_LEN] = { 0 };
   device[DEVICE_DRAM_GBS] = 1000;
   device[DEVICE_L2_GBS] = 4000;
   /* on chip: max(0.001, 8e6 B / 4e9 B/ms = 0.002) + 0.004 = 0.006 ms; compulsory
    * 4 x (1000 + 500 + 500 + 10) = 8,040 bytes, 8.04e-6 ms; launches 2 x 0.003 */
   assert_float_equal(LatencyHead_roofline(&psa, costs, ln, device, 4, 3.0), 0.012, 1e-12);
   /* 2 SMs of 4 sub-partitions at 1,000 MHz: a peak of 256 GFLOP/s is 16 FP32 lanes a
    * sub-partition, the same; 512 is 32, and the CUDA cores' rows take twice as long:
    * max(0.002, 0.002) + 0.008 + 0.006 */
   device[DEVICE_SMS] = 2;
   device[DEVICE_CLOCK_MHZ] = 1000;
   device[DEVICE_PEAK_GFLOPS] = 256;
   assert_float_equal(LatencyHead_roofline(&psa, costs, ln, device, 4, 3.0), 0.012, 1e-12);
   device[DEVICE_PEAK_GFLOPS] = 512;
   assert_float_equal(LatencyHead_roofline(&psa, costs, ln, device, 4, 3.0), 0.016, 1e-12);
   /* with 2 sub-partitions the same peak is 64 lanes each: four times as long */
   assert_float_equal(LatencyHead_roofline(&psa, costs, ln, device, 2, 3.0), 0.026, 1e-12);
   /* the second row on Tensor Cores keeps its time: 0.002 + 0.004 + 0.006 */
   psa.rows[1].precision = PRECISION_FP16;
   assert_float_equal(LatencyHead_roofline(&psa, costs, ln, device, 4, 3.0), 0.012, 1e-12);
   psa.rows[1].precision = PRECISION_FP32;
   device[DEVICE_PEAK_GFLOPS] = 0;
   /* the same kernels on 100,000 times the elements: DRAM-bound, 0.804 ms + 0.006 */
   for (int b = 0; b < 3; b++)
      ln->buffers[b].elems *= 100000;
   assert_float_equal(LatencyHead_roofline(&psa, costs, ln, device, 4, 3.0), 0.810, 1e-12);
   /* unknown bandwidths or no rows: no roofline */
   device[DEVICE_L2_GBS] = 0;
   assert_true(isinf(LatencyHead_roofline(&psa, costs, ln, device, 4, 3.0)));
   device[DEVICE_L2_GBS] = 4000;
   psa.nrows = 0;
   assert_true(isinf(LatencyHead_roofline(&psa, costs, ln, device, 4, 3.0)));
   free(ln);
}

/* Programs of two kinds on two devices whose rooflines differ by a factor 3 (the
 * second device's rows say so too): measured at 2 and 5 times the roofline on both.
 * The head learns each program's ratio, the device coming in through the roofline. */
static void learningSet(Dataset *d) {
   Dataset_init(d);
   int t = Dataset_task(d, "t");
   for (int i = 0; i < 64; i++) {
      double psa = 0.01 * (1 + i % 8);
      bool second = i % 2;
      bool device = (i / 2) % 2;
      double roofline = device ? 3 * psa : psa;
      double ratio = second ? 5 : 2;
      addSample(d, t, second ? 2.0f : 1.0f, psa, ratio * roofline * 1e-3, device ? 2.0f : 1.0f);
      d->roofline[d->n - 1] = (float)roofline;
   }
}

static void test_head_learns_ratios(void **state) {
   Dataset d;
   learningSet(&d);
   CostModel *m = CostModel_new(MODEL_RANDOM, 3, NULL);
   float ms[64];
   assert_false(CostModel_predictLatency(m, &d, ms));
   TrainConfig cfg;
   LatencyHead_defaultConfig(&cfg);
   assert_int_equal(cfg.epochs, 150);
   assert_int_equal(cfg.earlyStop, 40);
   assert_true(cfg.clip == 0);
   cfg.epochs = 400;
   cfg.earlyStop = 0;
   cfg.batch = 16;
   cfg.lr = 3e-3;
   char *cause = NULL;
   assert_int_equal(CostModel_fitLatency(m, &d, &cfg, &cause), 0);
   assert_true(CostModel_predictLatency(m, &d, ms));
   for (int i = 0; i < d.n; i++) {
      double want = d.cost[i] * 1e3;
      assert_true(fabs(ms[i] / want - 1) < 0.05);
   }
   LatencyMetrics lm;
   Metrics_latencyWeighted(&d, ms, NULL, &lm);
   assert_int_equal(lm.samples, 64);
   assert_true(lm.mape < 0.05);

   /* the head does not read the device's features: other ones change nothing */
   for (int i = 0; i < d.n; i++)
      d.device[(int64_t)i * DEVICE_FEATURE_LEN] = 7.0f;
   float again[64];
   assert_true(CostModel_predictLatency(m, &d, again));
   assert_memory_equal(ms, again, sizeof ms);

   /* a sample without rows, or without a roofline, gets INFINITY */
   Dataset e;
   Dataset_init(&e);
   int t = Dataset_task(&e, "t");
   addSample(&e, t, 1, INFINITY, 0, 1);
   Dataset_add(&e, t, NULL, NULL, 1.0, 0);
   float two[2];
   assert_true(CostModel_predictLatency(m, &e, two));
   assert_true(isinf(two[0]) && isinf(two[1]));
   Dataset_done(&e);
   CostModel_free(m);
   Dataset_done(&d);
}

static void test_too_little_to_learn(void **state) {
   Dataset d;
   Dataset_init(&d);
   int t = Dataset_task(&d, "t");
   addSample(&d, t, 1, 1.0, 2e-3, 0);
   addSample(&d, t, 1, INFINITY, 2e-3, 0);
   CostModel *m = CostModel_new(MODEL_RANDOM, 3, NULL);
   char *cause = NULL;
   assert_int_equal(CostModel_fitLatency(m, &d, NULL, &cause), -1);
   assert_string_equal(cause, "the latency head: nothing to learn from: 1 of the 2 samples have feature rows and a "
                              "target (at least 2 are needed)");
   free(cause);
   assert_null(m->latency);
   CostModel_free(m);
   Dataset_done(&d);
}

static void test_checkpoint_section(void **state) {
   Dataset d;
   learningSet(&d);
   CostModel *m = CostModel_new(MODEL_RANDOM, 3, NULL);
   TrainConfig cfg;
   LatencyHead_defaultConfig(&cfg);
   cfg.epochs = 3;
   assert_int_equal(CostModel_fitLatency(m, &d, &cfg, NULL), 0);

   /* without the head: the header and the seed, as before */
   NeuralNet *head = m->latency;
   m->latency = NULL;
   CostModel *plain = TestUtil_saveAndLoad(m, TestUtil_groupDir, "plain.ckpt", 28 + 8);
   assert_null(plain->latency);
   CostModel_free(plain);
   m->latency = head;

   char *path = xAsprintf("%s/head.ckpt", TestUtil_groupDir);
   assert_int_equal(CostModel_save(m, path, NULL), 0);
   size_t n;
   unsigned char *bytes = TestUtil_readBytes(path, &n);
   uint32_t tag;
   memcpy(&tag, bytes + 36, 4);
   assert_int_equal(tag, LATENCY_HEAD_TAG_ROOFLINE);
   assert_memory_equal(bytes + 36, "LATR", 4);
   uint32_t in;
   memcpy(&in, bytes + 40, 4);
   assert_int_equal(in, SAMPLE_ROW_LEN);
   CostModel *back = CostModel_load(path, NULL);
   assert_non_null(back);
   assert_non_null(back->latency);
   float a[64], b[64];
   CostModel_predictLatency(m, &d, a);
   CostModel_predictLatency(back, &d, b);
   assert_memory_equal(a, b, sizeof a);
   /* a copy keeps the head */
   CostModel *copy = CostModel_clone(m, NULL);
   assert_non_null(copy->latency);
   CostModel_predictLatency(copy, &d, b);
   assert_memory_equal(a, b, sizeof a);
   CostModel_free(copy);
   CostModel_free(back);
   /* a checkpoint of before the roofline: tag LATH, a head that reads the device's
    * features too (182 inputs), over PSA's estimate; it reads, estimates from PSA's
    * estimate and the device's features, and is written back as it was */
   static const NeuralShape oldShape = { NEURAL_DEVICE_IN, 256, 0, 0, 0, 0, 0 };
   CostModel *older = CostModel_new(MODEL_RANDOM, 3, NULL);
   older->latency = NeuralNet_new(&oldShape, 5);
   older->latencyBase = LATENCY_BASE_PSA;
   char *oldPath = xAsprintf("%s/old-head.ckpt", TestUtil_groupDir);
   assert_int_equal(CostModel_save(older, oldPath, NULL), 0);
   size_t n2;
   unsigned char *old = TestUtil_readBytes(oldPath, &n2);
   assert_memory_equal(old + 36, "LATH", 4);
   memcpy(&in, old + 40, 4);
   assert_int_equal(in, NEURAL_DEVICE_IN);
   CostModel *olderBack = CostModel_load(oldPath, NULL);
   assert_non_null(olderBack);
   assert_int_equal(olderBack->latencyBase, LATENCY_BASE_PSA);
   float c[64];
   CostModel_predictLatency(older, &d, a);
   CostModel_predictLatency(olderBack, &d, b);
   assert_memory_equal(a, b, sizeof a);
   /* over PSA's estimate: the roofline changes nothing; the device's features do */
   for (int i = 0; i < d.n; i++)
      d.roofline[i] = 2 * d.psaLatency[i];
   CostModel_predictLatency(olderBack, &d, c);
   assert_memory_equal(a, c, sizeof a);
   for (int i = 0; i < d.n; i++)
      d.device[(int64_t)i * DEVICE_FEATURE_LEN] += 1;
   CostModel_predictLatency(olderBack, &d, c);
   assert_memory_not_equal(a, c, sizeof a);
   CostModel_free(olderBack);
   CostModel_free(older);
   free(oldPath);
   free(old);

   /* the section cut short: where, and what was expected */
   char *cut = TestUtil_writeSealed(TestUtil_groupDir, "cut.ckpt", bytes, 42);
   TestUtil_assertLoadFails(cut, "cut short at byte 42 (expected the network's shape (7 u32), 28 bytes from byte 40)");
   /* other bytes than the tag after the payload */
   unsigned char *foreign = xMalloc(n);
   memcpy(foreign, bytes, n);
   memcpy(foreign + 36, "LATX", 4);
   char *other = TestUtil_writeSealed(TestUtil_groupDir, "foreign.ckpt", foreign, n);
   char *want = xAsprintf("%zu bytes after the end of the model (a damaged or foreign file?)", n - 36);
   TestUtil_assertLoadFails(other, want);
   /* three bytes: too few for a tag */
   char *three = TestUtil_writeSealed(TestUtil_groupDir, "three.ckpt", bytes, 39);
   TestUtil_assertLoadFails(three, "3 bytes after the end of the model (a damaged or foreign file?)");
   free(want);
   free(three);
   free(other);
   free(foreign);
   free(cut);
   free(bytes);
   free(path);
   CostModel_free(m);
   Dataset_done(&d);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_target),
      cmocka_unit_test(test_roofline),
      cmocka_unit_test(test_head_learns_ratios),
      cmocka_unit_test(test_too_little_to_learn),
      cmocka_unit_test(test_checkpoint_section),
   };
   return cmocka_run_group_tests(tests, TestUtil_setUpGroupDir, TestUtil_tearDownGroupDir);
}
