/* Calibrating the simulator: latencies simulated on a100_40 with perturbed constants
 * stand in for a GPU's measurements; the fit, starting from the profile's constants,
 * must find every constant it fits within 5% of the perturbed value, keep the others,
 * and bring the held-out error to nearly 0. Also the held-out split, the ranges and
 * the refusal of too few samples. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "ir/lower.h"
#include "sim/calibrate.h"
#include "util/rng.h"
#include "util/xalloc.h"

static DeviceSet devices;
static const Device *a100;

static int setupDevices(void **state) {
   (void)state;
   TestUtil_loadDevices(&devices);
   a100 = DeviceSet_find(&devices, "a100_40");
   assert_non_null(a100);
   return 0;
}

static int teardownDevices(void **state) {
   (void)state;
   DeviceSet_done(&devices);
   return 0;
}

/* The GPU the records come from: a100_40 with these constants changed by a factor
 * (the first NMAIN of them, or all). */
static const struct {
   SimParam p;
   double factor;
} perturbation[] = {
   { SIM_DRAM_LATENCY, 1.3 },    { SIM_L2_LATENCY, 0.8 },      { SIM_LAUNCH_US, 0.7 },
   { SIM_DRAM_EFFICIENCY, 0.9 }, { SIM_FP32_EFFICIENCY, 0.85 }, { SIM_SHARED_LATENCY, 1.2 },
   { SIM_OVERLAP_LOSS, 1.5 },
};
#define NPERTURBED (sizeof perturbation / sizeof perturbation[0])
#define NMAIN 5

static void perturbed(SimParams *truth, size_t n) {
   SimParams_fromDevice(truth, a100);
   for (size_t i = 0; i < n; i++)
      truth->v[perturbation[i].p] *= perturbation[i].factor;
}

/* perStateOf states of each task of the file, "measured" under truth, into cal, each
 * latency times exp(u) with u uniform in [-noise, noise] (0: exact); returns the
 * number of tasks. */
static int addMeasured(Calibration *cal, const char *file, int perTask, const SimParams *truth, int taskBase,
                       double noise) {
   Network net;
   TestUtil_loadNetwork(&net, file);
   SimGpu gpu;
   char *cause = NULL;
   if (SimGpu_init(&gpu, a100, &cause) < 0)
      fail_msg("%s", cause);
   SchedLimits lim;
   SchedLimits_fromDevice(&lim, a100);
   LoopNest ln;
   LoopNest_init(&ln);
   SimProgram *prog = xMalloc(sizeof *prog);
   for (int t = 0; t < net.ntasks; t++) {
      SketchSet set;
      SketchSet_forOp(&set, &net.tasks[t].op);
      Rng rng;
      Rng_seed(&rng, 1000 + (uint64_t)t);
      for (int i = 0; i < perTask; i++) {
         State s;
         if (State_sampleValid(&set, -1, &rng, &lim, 100000, &s, &cause) < 0)
            fail_msg("task %d: %s", t, cause);
         Lower_state(&set, &s, &ln);
         uint64_t key = State_hash(&s);
         if (Sim_count(&gpu, &ln, NULL, prog, &cause) < 0)
            fail_msg("task %d: %s", t, cause);
         double seconds = Sim_time(&gpu, truth, prog, key, NULL) * exp(noise * (2 * Rng_uniform(&rng) - 1));
         if (Calibration_add(cal, taskBase + t, &ln, -1, key, seconds, &cause) < 0)
            fail_msg("task %d: %s", t, cause);
      }
      SketchSet_done(&set);
   }
   int n = net.ntasks;
   free(prog);
   LoopNest_done(&ln);
   Network_done(&net);
   return n;
}

/* ResNet-18's and odd-shapes' states, 12 a task, measured under every perturbation
 * (with noise as addMeasured's) and fitted from the profile's constants into *res;
 * *ntasks gets the number of tasks. */
static Calibration *fitPerturbed(double noise, SimParams *truth, SimParams *start, CalibConfig *cfg,
                                 CalibResult *res, int *ntasks) {
   perturbed(truth, NPERTURBED);
   SimParams_fromDevice(start, a100);
   char *cause = NULL;
   Calibration *cal = Calibration_new(a100, &cause);
   assert_non_null(cal);
   *ntasks = addMeasured(cal, "models/resnet_18.task", 12, truth, 0, noise);
   *ntasks += addMeasured(cal, "tests/data/odd-shapes.task", 12, truth, *ntasks, noise);
   CalibConfig_default(cfg);
   if (Calibration_fit(cal, start, cfg, res, &cause) < 0)
      fail_msg("%s", cause);
   return cal;
}

static void test_recovers_the_perturbed_constants(void **state) {
   (void)state;
   SimParams truth, start;
   CalibConfig cfg;
   CalibResult res;
   int ntasks;
   Calibration *cal = fitPerturbed(0, &truth, &start, &cfg, &res, &ntasks);
   int n = Calibration_count(cal);
   assert_int_equal(res.ntrain + res.ntest, n);
   for (int i = 0; i < SIM_PARAM_COUNT; i++) {
      const char *name = SimParam_name((SimParam)i);
      printf("# %-16s before %10.5g  truth %10.5g  after %10.5g  sensitivity %.4f  distinct %.4f  %s\n", name,
             start.v[i], truth.v[i], res.after.v[i], res.sensitivity[i], res.distinct[i],
             res.fitted[i] ? "fitted" : "kept");
      if (res.fitted[i]) {
         if (!(fabs(res.after.v[i] / truth.v[i] - 1) < 0.05))
            fail_msg("%s: fitted %g, the records' %g", name, res.after.v[i], truth.v[i]);
         assert_false(res.atBound[i]);
      } else {
         /* kept exactly, and really not pinned by the records */
         assert_true(res.after.v[i] == start.v[i]);
         assert_true(res.sensitivity[i] < cfg.minSensitivity || res.distinct[i] < cfg.minSensitivity);
      }
   }
   /* the perturbed constants are all exercised by these tasks: the fit found each */
   for (size_t k = 0; k < NPERTURBED; k++)
      if (!res.fitted[perturbation[k].p])
         fail_msg("%s was perturbed but not fitted (sensitivity %.4f, distinct %.4f)",
                  SimParam_name(perturbation[k].p), res.sensitivity[perturbation[k].p],
                  res.distinct[perturbation[k].p]);
   printf("# held out %d: median |ln| %.4f -> %.6f, pairwise %.4f -> %.4f, Spearman %.4f -> %.4f\n", res.ntest,
          res.testBefore.medianAbsLog, res.testAfter.medianAbsLog, res.testBefore.pairwise, res.testAfter.pairwise,
          res.testBefore.spearman, res.testAfter.spearman);
   assert_true(res.testBefore.medianAbsLog > 0.02);
   assert_true(res.testAfter.medianAbsLog < 1e-3);
   assert_true(res.trainAfter.meanSquaredLog < 1e-6);
   assert_true(res.testAfter.pairwise > 0.999 && res.testAfter.pairwise >= res.testBefore.pairwise);
   assert_true(res.testAfter.spearman > 0.999);
   assert_int_equal(res.testAfter.tasks, ntasks);
   Calibration_free(cal);
}

/* 20% of each task's samples, rounded, picked by the seed: the same seed the same ones. */
static void test_holdout_split(void **state) {
   (void)state;
   SimParams p;
   SimParams_fromDevice(&p, a100);
   char *cause = NULL;
   Calibration *cal = Calibration_new(a100, &cause);
   int ntasks = addMeasured(cal, "tests/data/tiny2.task", 12, &p, 0, 0);
   assert_int_equal(ntasks, 2);
   CalibConfig cfg;
   CalibConfig_default(&cfg);
   cfg.restarts = 0;
   CalibResult res;
   if (Calibration_fit(cal, &p, &cfg, &res, &cause) < 0)
      fail_msg("%s", cause);
   /* round(0.2 x 12) = 2 of each task's 12 */
   assert_int_equal(res.ntest, 4);
   assert_int_equal(res.ntrain, 20);
   bool first[24];
   for (int i = 0; i < 24; i++)
      first[i] = Calibration_heldOut(cal, i);
   assert_int_equal(Calibration_fit(cal, &p, &cfg, &res, &cause), 0);
   for (int i = 0; i < 24; i++)
      assert_true(first[i] == Calibration_heldOut(cal, i));
   cfg.seed = 2;
   assert_int_equal(Calibration_fit(cal, &p, &cfg, &res, &cause), 0);
   bool same = true;
   for (int i = 0; i < 24; i++)
      same &= first[i] == Calibration_heldOut(cal, i);
   assert_false(same);
   /* the records were simulated with these very constants: nothing to improve, and no
    * constant moved by more than the simplex's tolerance */
   assert_true(res.testBefore.medianAbsLog < 1e-12);
   for (int i = 0; i < SIM_PARAM_COUNT; i++)
      assert_true(fabs(res.after.v[i] / p.v[i] - 1) < 1e-4);
   Calibration_free(cal);
}

/* Two small tasks touch neither DRAM bandwidth nor the FP32 pipe's limit: those
 * constants are not exercised and keep their values (wrong as they are), while the
 * rest are found. */
static void test_unexercised_constants_are_kept(void **state) {
   (void)state;
   SimParams truth, start;
   perturbed(&truth, NMAIN);
   SimParams_fromDevice(&start, a100);
   char *cause = NULL;
   Calibration *cal = Calibration_new(a100, &cause);
   addMeasured(cal, "tests/data/tiny2.task", 30, &truth, 0, 0);
   CalibConfig cfg;
   CalibConfig_default(&cfg);
   CalibResult res;
   if (Calibration_fit(cal, &start, &cfg, &res, &cause) < 0)
      fail_msg("%s", cause);
   static const SimParam unexercised[] = { SIM_DRAM_EFFICIENCY, SIM_FP32_EFFICIENCY };
   for (size_t k = 0; k < 2; k++) {
      SimParam p = unexercised[k];
      printf("# %s: sensitivity %.4f, distinct %.4f\n", SimParam_name(p), res.sensitivity[p], res.distinct[p]);
      assert_false(res.fitted[p]);
      assert_true(res.sensitivity[p] < cfg.minSensitivity || res.distinct[p] < cfg.minSensitivity);
      assert_true(res.after.v[p] == start.v[p]);
   }
   static const SimParam found[] = { SIM_DRAM_LATENCY, SIM_L2_LATENCY, SIM_LAUNCH_US };
   for (size_t k = 0; k < 3; k++) {
      SimParam p = found[k];
      assert_true(res.fitted[p]);
      if (!(fabs(res.after.v[p] / truth.v[p] - 1) < 0.05))
         fail_msg("%s: fitted %g, the records' %g", SimParam_name(p), res.after.v[p], truth.v[p]);
   }
   /* with two constants the records cannot see left at the profile's values, the
    * fit is still exact on these tasks */
   assert_true(res.testAfter.medianAbsLog < 1e-3);
   Calibration_free(cal);
}

static void test_too_few_samples(void **state) {
   (void)state;
   SimParams p;
   SimParams_fromDevice(&p, a100);
   char *cause = NULL;
   Calibration *cal = Calibration_new(a100, &cause);
   addMeasured(cal, "tests/data/tiny2.task", 6, &p, 0, 0);
   CalibConfig cfg;
   CalibConfig_default(&cfg);
   CalibResult res;
   cfg.restarts = 0;
   /* round(0.2 x 6) = 1 of each task's 6 held out: 10 left, just enough */
   if (Calibration_fit(cal, &p, &cfg, &res, &cause) < 0)
      fail_msg("%s", cause);
   assert_int_equal(res.ntrain, 10);
   /* round(0.25 x 6) = 2 */
   cfg.holdout = 0.25;
   assert_int_equal(Calibration_fit(cal, &p, &cfg, &res, &cause), -1);
   assert_string_equal(cause, "8 of the 12 samples are left to fit on (4 held out); calibrating needs at least 10");
   free(cause);
   Calibration_free(cal);
}

static void test_ranges(void **state) {
   (void)state;
   double lo, hi;
   Calibration_range(SIM_DRAM_LATENCY, &lo, &hi);
   assert_true(lo == 10 && hi == 10000);
   Calibration_range(SIM_DRAM_EFFICIENCY, &lo, &hi);
   assert_true(lo == 0.05 && hi == 1);
   /* devices.yaml allows 0: a thousandth of the default instead, for the logarithm */
   Calibration_range(SIM_BARRIER_CYCLES, &lo, &hi);
   assert_true(fabs(lo - 0.02) < 1e-15 && hi == 10000);
   Calibration_range(SIM_OVERLAP_LOSS, &lo, &hi);
   assert_true(fabs(lo - 0.0002) < 1e-15 && hi == 1);
   /* a latency that is not positive is refused */
   char *cause = NULL;
   Calibration *cal = Calibration_new(a100, &cause);
   LoopNest ln;
   LoopNest_init(&ln);
   assert_int_equal(Calibration_add(cal, 0, &ln, -1, 1, 0, &cause), -1);
   assert_string_equal(cause, "a measured latency must be a positive number of seconds, not 0");
   free(cause);
   LoopNest_done(&ln);
   Calibration_free(cal);
}

/* With measurement noise (each latency off by up to 5%, uniformly, as repeats on a
 * GPU scatter) the fit cannot be exact: each fitted constant then comes with a
 * standard error, the truth lies within three of them, and the constants the records
 * pin to within 5% (two standard errors) are recovered within 5%. */
static void test_noisy_records_give_standard_errors(void **state) {
   (void)state;
   SimParams truth, start;
   CalibConfig cfg;
   CalibResult res;
   int ntasks;
   Calibration *cal = fitPerturbed(0.05, &truth, &start, &cfg, &res, &ntasks);
   assert_int_equal(res.ntrain + res.ntest, Calibration_count(cal));
   int pinned = 0;
   for (int i = 0; i < SIM_PARAM_COUNT; i++) {
      const char *name = SimParam_name((SimParam)i);
      if (!res.fitted[i]) {
         assert_true(isnan(res.stderrLog[i]));
         continue;
      }
      double err = log(res.after.v[i] / truth.v[i]), se = res.stderrLog[i];
      printf("# %-16s truth %10.5g  after %10.5g  ln error %+.4f  se %.4f\n", name, truth.v[i], res.after.v[i], err,
             se);
      if (!(isfinite(se) && se > 0))
         fail_msg("%s: standard error %g", name, se);
      if (!(fabs(err) <= 3 * se + 1e-3))
         fail_msg("%s: fitted %g, %+.4f from the truth in ln, beyond 3 standard errors (%.4f)", name,
                  res.after.v[i], err, se);
      if (se <= CALIB_LOOSE) {
         pinned++;
         if (!(fabs(res.after.v[i] / truth.v[i] - 1) < 0.05))
            fail_msg("%s: pinned (se %.4f) but fitted %g against %g", name, se, res.after.v[i], truth.v[i]);
      }
   }
   /* the noise caps how well any constants fit, but the fit still halves the error */
   assert_true(pinned >= 4);
   assert_true(res.testAfter.medianAbsLog < 0.5 * res.testBefore.medianAbsLog);
   Calibration_free(cal);
}

/* The rank term by hand: five records each of two states of one task, the state the
 * simulator finds slower measured faster (1 us against 2 us). The 25 pairs across
 * the two states are all out of order by the same d = ln(sim slow) - ln(sim fast),
 * and the pairs within a state have equal measured latencies and do not count: the
 * term is d^2. With the order put right it is 0. */
static void test_rank_term(void **state) {
   (void)state;
   Network net;
   TestUtil_loadNetwork(&net, "tests/data/tiny2.task");
   SketchSet set;
   SketchSet_forOp(&set, &net.tasks[0].op);
   SchedLimits lim;
   SchedLimits_fromDevice(&lim, a100);
   SimParams p;
   SimParams_fromDevice(&p, a100);
   SimGpu gpu;
   char *cause = NULL;
   if (SimGpu_init(&gpu, a100, &cause) < 0)
      fail_msg("%s", cause);
   LoopNest ln[2];
   uint64_t key[2];
   double sim[2] = { 0, 0 };
   Rng rng;
   Rng_seed(&rng, 7);
   SimProgram *prog = xMalloc(sizeof *prog);
   for (int k = 0; k < 2; k++) {
      LoopNest_init(&ln[k]);
      /* two states the simulator tells apart by more than its jitter */
      for (int tries = 0; tries < 1000; tries++) {
         State s;
         if (State_sampleValid(&set, -1, &rng, &lim, 100000, &s, &cause) < 0)
            fail_msg("%s", cause);
         Lower_state(&set, &s, &ln[k]);
         key[k] = State_hash(&s);
         if (Sim_count(&gpu, &ln[k], NULL, prog, &cause) < 0)
            fail_msg("%s", cause);
         sim[k] = Sim_time(&gpu, &p, prog, key[k], NULL);
         if (k == 0 || fabs(log(sim[1] / sim[0])) >= 0.1)
            break;
      }
   }
   assert_true(fabs(log(sim[1] / sim[0])) >= 0.1);
   int slow = sim[0] > sim[1] ? 0 : 1;
   double d = log(sim[slow] / sim[1 - slow]);
   for (int order = 0; order < 2; order++) {
      Calibration *cal = Calibration_new(a100, &cause);
      for (int k = 0; k < 2; k++)
         for (int r = 0; r < 5; r++) {
            /* order 0: the slow one measured fast; order 1: as the simulator says */
            double measured = (k == slow) == (order == 0) ? 1e-6 : 2e-6;
            if (Calibration_add(cal, 0, &ln[k], -1, key[k], measured, &cause) < 0)
               fail_msg("%s", cause);
         }
      CalibConfig cfg;
      CalibConfig_default(&cfg);
      cfg.holdout = 0;
      cfg.restarts = 0;
      CalibResult res;
      if (Calibration_fit(cal, &p, &cfg, &res, &cause) < 0)
         fail_msg("%s", cause);
      if (order == 0) {
         if (!(fabs(res.trainBefore.rankLoss - d * d) < 1e-12))
            fail_msg("rank term %.17g, expected d^2 = %.17g", res.trainBefore.rankLoss, d * d);
      } else {
         assert_true(res.trainBefore.rankLoss == 0);
      }
      Calibration_free(cal);
   }
   free(prog);
   for (int k = 0; k < 2; k++)
      LoopNest_done(&ln[k]);
   SketchSet_done(&set);
   Network_done(&net);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_recovers_the_perturbed_constants),
      cmocka_unit_test(test_noisy_records_give_standard_errors),
      cmocka_unit_test(test_holdout_split),
      cmocka_unit_test(test_unexercised_constants_are_kept),
      cmocka_unit_test(test_too_few_samples),
      cmocka_unit_test(test_rank_term),
      cmocka_unit_test(test_ranges),
   };
   return cmocka_run_group_tests(tests, setupDevices, teardownDevices);
}
