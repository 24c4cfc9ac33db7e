/* Measurement on a real GPU (CUDA device 0): sampled states of ResNet-50 tasks verify
 * against the reference and time; one kernel measured ten times agrees with itself
 * within 3%; an out-of-bounds kernel and an endless one are recorded as errors and the
 * measurement after each succeeds on a fresh runner. Without a GPU the whole binary is
 * skipped. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/measurer.h"
#include "te/network.h"
#include "testutil.h"
#include "util/rng.h"
#include "util/xalloc.h"

static DeviceSet devices;
static Network net;
static Measurer *m;

typedef struct {
   Dag dag;
   SketchSet set;
   int n;
   State states[16];
} TaskStates;

static void prepare(int t, int n, TaskStates *ts) {
   Dag_init(&ts->dag);
   Op_buildDag(&net.tasks[t].op, &ts->dag);
   SketchSet_generate(&ts->set, &ts->dag);
   SchedLimits lim;
   SchedLimits_fromDevice(&lim, Measurer_device(m));
   Rng rng;
   Rng_seed(&rng, 5 + (uint64_t)t);
   char *cause = NULL;
   ts->n = n;
   for (int i = 0; i < n; i++)
      if (State_sampleValid(&ts->set, -1, &rng, &lim, 100000, &ts->states[i], &cause) < 0)
         fail_msg("%s", cause);
   if (Measurer_setTask(m, &net.tasks[t], &ts->set, &cause) < 0)
      fail_msg("%s", cause);
}

static void release(TaskStates *ts) {
   SketchSet_done(&ts->set);
   Dag_done(&ts->dag);
}

static void test_states_verify_and_time(void **state) {
   (void)state;
   const int taskIds[] = { 0, 3, 15, 26 };   /* 7x7 stem conv, 3x3 conv, 1x1 conv, dense */
   for (size_t k = 0; k < sizeof taskIds / sizeof taskIds[0]; k++) {
      TaskStates ts;
      prepare(taskIds[k], 4, &ts);
      MeasureOutcome o[4];
      Measurer_measure(m, ts.states, 4, o);
      for (int i = 0; i < 4; i++) {
         if (o[i].error != MEASURE_OK)
            fail_msg("task %d state %d: %s: %s", taskIds[k], i, MeasureError_name(o[i].error), o[i].message);
         assert_true(o[i].checked);
         assert_true(o[i].latency > 0 && o[i].latency < 1.0);
         assert_true(o[i].registers > 0);
      }
      release(&ts);
   }
}

static void test_same_kernel_ten_times(void **state) {
   (void)state;
   TaskStates ts;
   prepare(3, 1, &ts);
   State same[10];
   for (int i = 0; i < 10; i++)
      same[i] = ts.states[0];
   MeasureOutcome o[10];
   Measurer_measure(m, same, 10, o);
   double lo = INFINITY, hi = 0;
   for (int i = 0; i < 10; i++) {
      assert_int_equal(o[i].error, MEASURE_OK);
      lo = fmin(lo, o[i].latency);
      hi = fmax(hi, o[i].latency);
   }
   printf("# one kernel 10 times: %.3f to %.3f us, spread %.2f%%\n", lo * 1e6, hi * 1e6, 100 * (hi / lo - 1));
   assert_true(hi / lo - 1 < 0.03);
   release(&ts);
}

static void assertFaultThenRecovery(InjectKind k, MeasureError want) {
   TaskStates ts;
   prepare(2, 2, &ts);
   MeasureOutcome o[2];
   Measurer_setInject(m, k);
   Measurer_measure(m, ts.states, 1, &o[0]);
   Measurer_setInject(m, INJECT_NONE);
   Measurer_measure(m, ts.states + 1, 1, &o[1]);
   printf("# --inject %s: %s: %s\n", Inject_name(k), MeasureError_name(o[0].error), o[0].message);
   assert_int_equal(o[0].error, want);
   if (o[1].error != MEASURE_OK)
      fail_msg("after --inject %s: %s", Inject_name(k), o[1].message);
   release(&ts);
}

static void test_out_of_bounds_kernel(void **state) {
   (void)state;
   assertFaultThenRecovery(INJECT_OOB, MEASURE_RUNTIME_ERROR);
}

static void test_endless_kernel(void **state) {
   (void)state;
   assertFaultThenRecovery(INJECT_HANG, MEASURE_RUN_TIMEOUT);
}

static void test_wrong_kernel(void **state) {
   (void)state;
   assertFaultThenRecovery(INJECT_WRONG, MEASURE_WRONG_ANSWER);
}

int main(void) {
   char *cause = NULL;
   TestUtil_loadDevices(&devices);
   TestUtil_loadNetwork(&net, "models/resnet_50.task");
   const char *b = getenv("PTUI_BUILDDIR");
   char *runner = xAsprintf("%s/pruner-tui", b ? b : ".");
   setenv("PRUNER_TUI_RUNNER", runner, 1);
   MeasurerConfig cfg;
   MeasurerConfig_default(&cfg);
   cfg.device = "cuda:0";
   cfg.devices = &devices;
   cfg.runner.runTimeout = 5;
   m = Measurer_open(&cfg, &cause);
   int rc;
   if (!m) {
      printf("# %s\n", cause);
      free(cause);
      rc = TestUtil_skipAll("no CUDA device");
   } else {
      printf("# %s\n", Measurer_describe(m));
      const struct CMUnitTest tests[] = {
         cmocka_unit_test(test_states_verify_and_time),
         cmocka_unit_test(test_same_kernel_ten_times),
         cmocka_unit_test(test_out_of_bounds_kernel),
         cmocka_unit_test(test_endless_kernel),
         cmocka_unit_test(test_wrong_kernel),
      };
      rc = cmocka_run_group_tests(tests, NULL, NULL);
      Measurer_close(m);
   }
   free(runner);
   Network_done(&net);
   DeviceSet_done(&devices);
   return rc;
}
