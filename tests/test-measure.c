/* The measurer: device selection and its messages, the simulator's outcomes (checked,
 * deterministic to the bit, within the repeat noise), the deliberately broken programs
 * it catches, and the records it makes. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/measurer.h"
#include "measure/record.h"
#include "te/network.h"
#include "testutil.h"
#include "util/rng.h"
#include "util/xalloc.h"

static const char *const tasks =
   "network: measuring\n"
   "batch: 1\n"
   "tasks:\n"
   "  - {op: dense, n: 64, k: 64, epilogue: [bias, relu], weight: 1}\n"
   "  - {op: conv2d, input: [8, 9, 9], filters: 8, kernel: 3, pad: 1, epilogue: [bias, relu], weight: 1}\n";

static DeviceSet devices;
static Network net;
static char *runner;

typedef struct {
   Dag dag;
   SketchSet set;
   State states[3];
} TaskStates;

static void taskStates(int t, TaskStates *ts) {
   Dag_init(&ts->dag);
   Op_buildDag(&net.tasks[t].op, &ts->dag);
   SketchSet_generate(&ts->set, &ts->dag);
   SchedLimits lim;
   SchedLimits_fromDevice(&lim, DeviceSet_find(&devices, "h100_sxm"));
   Rng rng;
   Rng_seed(&rng, 11 + (uint64_t)t);
   char *cause = NULL;
   for (int i = 0; i < 3; i++)
      if (State_sampleValid(&ts->set, -1, &rng, &lim, 10000, &ts->states[i], &cause) < 0)
         fail_msg("%s", cause);
}

static void taskStatesDone(TaskStates *ts) {
   SketchSet_done(&ts->set);
   Dag_done(&ts->dag);
}

static Measurer *openSim(InjectKind inject) {
   MeasurerConfig cfg;
   MeasurerConfig_default(&cfg);
   cfg.device = "sim:h100_sxm";
   cfg.devices = &devices;
   cfg.simVerifyEvery = 1;
   cfg.buildThreads = 2;
   /* these tests are about running: a build slowed past 15 s by a sanitized run on
    * a loaded machine must not turn a run timeout into a build timeout */
   cfg.buildTimeout = 600;
   cfg.inject = inject;
   char *cause = NULL;
   Measurer *m = Measurer_open(&cfg, &cause);
   if (!m)
      fail_msg("%s", cause);
   return m;
}

static void assertOpenFails(const char *device, const char *want) {
   MeasurerConfig cfg;
   MeasurerConfig_default(&cfg);
   cfg.device = device;
   cfg.devices = &devices;
   char *cause = NULL;
   assert_null(Measurer_open(&cfg, &cause));
   assert_string_equal(cause, want);
   free(cause);
}

static void test_device_selection(void **state) {
   (void)state;
   char *cause = NULL;
   assertOpenFails("gpu0", "--device takes auto, cuda:N or sim:PROFILE, not 'gpu0'");
   assertOpenFails("cuda:x", "--device: 'cuda:x' is not cuda:N with N a device number");
   assertOpenFails("cuda:", "--device: 'cuda:' is not cuda:N with N a device number");
   MeasurerConfig cfg;
   MeasurerConfig_default(&cfg);
   cfg.device = "sim:b200";
   cfg.devices = &devices;
   assert_null(Measurer_open(&cfg, &cause));
   assert_int_equal(strncmp(cause, "sim:b200: no device profile is called 'b200' (known: ", 53), 0);
   assert_non_null(strstr(cause, "h100_sxm"));
   free(cause);

   /* no driver: cuda:0 fails with the runner's reason, auto falls back and says why */
   setenv("PRUNER_TUI_RUNNER", runner, 1);
   setenv("PRUNER_TUI_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
   assertOpenFails("cuda:0", "no CUDA driver: cannot open /nonexistent/libcuda.so.1 (/nonexistent/libcuda.so.1: "
                             "cannot open shared object file: No such file or directory)");
   cfg.device = "auto";
   cfg.simProfile = "a100";
   Measurer *m = Measurer_open(&cfg, &cause);
   assert_non_null(m);
   assert_true(Measurer_simulated(m));
   assert_string_equal(Measurer_device(m)->name, "a100");
   assert_string_equal(Measurer_arch(m), "sm_80");
   assert_int_equal(strncmp(Measurer_note(m), "no CUDA GPU (no CUDA driver: cannot open /nonexistent/libcuda.so.1 ", 67), 0);
   assert_non_null(strstr(Measurer_note(m), "): simulating a100"));
   assert_int_equal(strncmp(Measurer_describe(m), "sim:a100 (simulated ", 20), 0);
   Measurer_close(m);
   cfg.simProfile = "nope";
   assert_null(Measurer_open(&cfg, &cause));
   assert_int_equal(strncmp(cause, "--sim-profile: no device profile is called 'nope' (known: ", 58), 0);
   free(cause);
   unsetenv("PRUNER_TUI_LIBCUDA");
   unsetenv("PRUNER_TUI_RUNNER");
}

/* Every state checked on the CPU executor and timed; the same states on a second
 * measurer give the same latencies to the bit. */
static void test_simulated_outcomes(void **state) {
   (void)state;
   for (int t = 0; t < net.ntasks; t++) {
      TaskStates ts;
      taskStates(t, &ts);
      MeasureOutcome a[3], b[3];
      for (int run = 0; run < 2; run++) {
         Measurer *m = openSim(INJECT_NONE);
         char *cause = NULL;
         if (Measurer_setTask(m, &net.tasks[t], &ts.set, &cause) < 0)
            fail_msg("%s", cause);
         Measurer_measure(m, ts.states, 3, run ? b : a);
         Measurer_close(m);
      }
      for (int i = 0; i < 3; i++) {
         MeasureOutcome *o = &a[i];
         if (o->error != MEASURE_OK)
            fail_msg("task %d state %d: %s", t, i, o->message);
         assert_string_equal(o->message, "");
         assert_true(o->checked);
         assert_int_equal(o->ncosts, 3);
         /* the median of three is the middle one; the repeats lie within the noise */
         double lo = fmin(o->costs[0], fmin(o->costs[1], o->costs[2]));
         double hi = fmax(o->costs[0], fmax(o->costs[1], o->costs[2]));
         assert_true(o->latency > lo || o->latency == lo);
         assert_true(o->latency < hi || o->latency == hi);
         assert_true(o->spread == hi / lo - 1.0);
         assert_true(o->spread < 0.004 / 0.998);
         /* no faster than the device's peak FP32 rate allows */
         assert_true(o->latency > net.tasks[t].flops / (DeviceSet_find(&devices, "h100_sxm")->peak_fp32_gflops * 1e9));
         assert_memory_equal(a[i].costs, b[i].costs, sizeof a[i].costs);
         assert_memory_equal(&a[i].latency, &b[i].latency, sizeof a[i].latency);
      }
      taskStatesDone(&ts);
   }
}

static void assertInjected(InjectKind k, MeasureError want, const char *prefix) {
   TaskStates ts;
   taskStates(0, &ts);
   Measurer *m = openSim(k);
   char *cause = NULL;
   if (Measurer_setTask(m, &net.tasks[0], &ts.set, &cause) < 0)
      fail_msg("%s", cause);
   MeasureOutcome o[3];
   Measurer_measure(m, ts.states, 3, o);
   for (int i = 0; i < 3; i++) {
      assert_int_equal(o[i].error, want);
      if (strncmp(o[i].message, prefix, strlen(prefix)) != 0)
         fail_msg("'%s' does not start with '%s'", o[i].message, prefix);
      assert_true(o[i].latency == MEASURE_FAILED_COST);
      assert_int_equal(o[i].ncosts, 0);
   }
   /* the record of a failure */
   Record r;
   Measurer_record(m, &ts.states[0], &o[0], &r);
   assert_int_equal(r.error, want);
   assert_string_equal(r.message, o[0].message);
   assert_int_equal(r.ncosts, 1);
   assert_true(r.costs[0] == MEASURE_FAILED_COST);
   assert_int_equal(Record_validate(&r, &cause), 0);
   Record_done(&r);
   Measurer_close(m);
   taskStatesDone(&ts);
}

static void test_wrong_kernel_is_caught(void **state) {
   (void)state;
   /* dense 64x64 + bias + relu with the output scaled by 1.5: the first positive
    * element is wrong (relu's zeros stay right) */
   assertInjected(INJECT_WRONG, MEASURE_WRONG_ANSWER, "element ");
}

static void test_out_of_bounds_kernel_is_caught(void **state) {
   (void)state;
   /* 64 outputs, the store 2^36 past them */
   assertInjected(INJECT_OOB, MEASURE_RUNTIME_ERROR, "CPU executor: kernel T_relu_kernel, block 0, thread 0: "
                                                     "store to T_relu[68719476800] outside 0..63");
}

static void test_endless_kernel_times_out(void **state) {
   (void)state;
   assertInjected(INJECT_HANG, MEASURE_RUN_TIMEOUT, "the simulated program runs ");
}

static void test_records(void **state) {
   (void)state;
   TaskStates ts;
   taskStates(1, &ts);
   Measurer *m = openSim(INJECT_NONE);
   char *cause = NULL;
   if (Measurer_setTask(m, &net.tasks[1], &ts.set, &cause) < 0)
      fail_msg("%s", cause);
   MeasureOutcome o;
   Measurer_measure(m, ts.states, 1, &o);
   assert_int_equal(o.error, MEASURE_OK);
   Record r;
   Measurer_record(m, &ts.states[0], &o, &r);
   assert_int_equal(r.version, RECORD_FORMAT_VERSION);
   assert_string_equal(r.task, net.tasks[1].key);
   assert_string_equal(r.device, "h100_sxm");
   assert_true(r.simulated);
   assert_int_equal(r.error, MEASURE_OK);
   assert_string_equal(r.message, "");
   assert_int_equal(r.ncosts, 3);
   assert_memory_equal(r.costs, o.costs, 3 * sizeof o.costs[0]);
   assert_int_equal(r.registers, o.registers);
   assert_true(r.compileSeconds == o.compileSeconds && r.runSeconds == o.runSeconds);
   assert_true(r.timestamp > 1700000000);
   /* the state text reads back as the state measured */
   State back;
   SchedLimits lim;
   SchedLimits_fromDevice(&lim, Measurer_device(m));
   if (State_parse(&ts.set, r.state, &lim, &back, &cause) < 0)
      fail_msg("%s", cause);
   assert_true(State_equal(&back, &ts.states[0]));
   /* and the record survives its line */
   char *line = Record_toJson(&r);
   Record again;
   assert_int_equal(Record_fromJson(line, &again, &cause), 0);
   assert_string_equal(again.state, r.state);
   assert_memory_equal(again.costs, r.costs, 3 * sizeof r.costs[0]);
   free(line);
   Record_done(&again);
   Record_done(&r);
   Measurer_close(m);
   taskStatesDone(&ts);
}

int main(void) {
   char *cause = NULL;
   TestUtil_loadDevices(&devices);
   if (Network_loadString(&net, "measuring.task", tasks, strlen(tasks), &cause) < 0) {
      fprintf(stderr, "%s\n", cause);
      return 1;
   }
   const char *b = getenv("PTUI_BUILDDIR");
   runner = xAsprintf("%s/pruner-tui", b ? b : ".");
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_selection),
      cmocka_unit_test(test_simulated_outcomes),
      cmocka_unit_test(test_wrong_kernel_is_caught),
      cmocka_unit_test(test_out_of_bounds_kernel_is_caught),
      cmocka_unit_test(test_endless_kernel_times_out),
      cmocka_unit_test(test_records),
   };
   int rc = cmocka_run_group_tests(tests, NULL, NULL);
   free(runner);
   Network_done(&net);
   DeviceSet_done(&devices);
   return rc;
}
