/* The measurer: device selection and its messages, fleets of devices (their --device
 * forms, the model check, a simulated fleet measuring what one device does, a fleet of
 * stand-in runners and the retirement of a failing one), the simulator's outcomes
 * (checked, deterministic to the bit, within the repeat noise), the deliberately
 * broken programs it catches, and the records it makes. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/measurer.h"
#include "measure/mpi.h"
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
static char *fakeRunner;

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
   assertOpenFails("gpu0", "--device takes auto, cuda:N, cuda:N,M,..., cuda:all, sim:PROFILE or sim:PROFILE*N, not 'gpu0'");
   assertOpenFails("cuda:x", "--device: 'cuda:x' is not cuda:all or cuda:N,M,... with N a device number (0 to 255)");
   assertOpenFails("cuda:", "--device: 'cuda:' is not cuda:all or cuda:N,M,... with N a device number (0 to 255)");
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

/* ---- fleets ---- */

static void assertForm(const char *device, FleetKind kind, bool all, int count, const char *listed) {
   MeasurerFleet f;
   char *cause = NULL;
   if (MeasurerFleet_parse(device, &f, &cause) < 0)
      fail_msg("%s: %s", device, cause);
   assert_int_equal(f.kind, kind);
   assert_int_equal(f.all, all);
   assert_int_equal(f.count, count);
   char text[512] = "";
   for (int i = 0; i < f.count; i++) {
      size_t len = strlen(text);
      if (kind == FLEET_CUDA)
         snprintf(text + len, sizeof text - len, "%s%d", i ? " " : "", f.ordinals[i]);
      else if (kind == FLEET_SIM)
         snprintf(text + len, sizeof text - len, "%s%s", i ? " " : "", f.profiles[i]);
   }
   assert_string_equal(text, listed);
}

static void test_fleet_forms(void **state) {
   (void)state;
   assertForm("auto", FLEET_AUTO, false, 1, "");
   assertForm(NULL, FLEET_AUTO, false, 1, "");
   assertForm("cuda:0", FLEET_CUDA, false, 1, "0");
   assertForm("cuda:0,2,3", FLEET_CUDA, false, 3, "0 2 3");
   assertForm("cuda:255", FLEET_CUDA, false, 1, "255");
   assertForm("cuda:all", FLEET_CUDA, true, 0, "");
   assertForm("sim:h100_sxm", FLEET_SIM, false, 1, "h100_sxm");
   assertForm("sim:h100_sxm*4", FLEET_SIM, false, 4, "h100_sxm h100_sxm h100_sxm h100_sxm");
   assertForm("sim:h100_sxm*1", FLEET_SIM, false, 1, "h100_sxm");
   assertForm("sim:h100_sxm,a100_40", FLEET_SIM, false, 2, "h100_sxm a100_40");
   assertForm("sim:h100_sxm*2,a100_40*3", FLEET_SIM, false, 5, "h100_sxm h100_sxm a100_40 a100_40 a100_40");
   assertForm("sim:t4*16", FLEET_SIM, false, 16, "t4 t4 t4 t4 t4 t4 t4 t4 t4 t4 t4 t4 t4 t4 t4 t4");
}

static void assertRefused(const char *device, const char *want) {
   MeasurerFleet f;
   char *cause = NULL;
   if (MeasurerFleet_parse(device, &f, &cause) == 0)
      fail_msg("'%s' was taken", device);
   assert_string_equal(cause, want);
   free(cause);
   /* the measurer says the same */
   assertOpenFails(device, want);
}

static void test_fleet_refused_forms(void **state) {
   (void)state;
   const char *forms = "--device takes auto, cuda:N, cuda:N,M,..., cuda:all, sim:PROFILE or sim:PROFILE*N, not ";
   const char *numbers = "is not cuda:all or cuda:N,M,... with N a device number (0 to 255)";
   static const struct {
      const char *device, *why;
   } cases[] = {
      { "gpu0", NULL },
      { "", NULL },
      { "Auto", NULL },
      { "cuda", NULL },
      { "cuda:", "" },
      { "cuda:x", "" },
      { "cuda:-1", "" },
      { "cuda:256", "" },
      { "cuda:0,", "" },
      { "cuda:,0", "" },
      { "cuda:0,,1", "" },
      { "cuda:1x", "" },
      { "cuda:all,0", "" },
      { "cuda: 1", "" },
      { "cuda:0,1,0", "--device: 'cuda:0,1,0' names cuda:0 twice" },
      { "cuda:0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
        "--device: 'cuda:0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16' names more than 16 devices" },
      { "sim:", "--device: 'sim:' has an empty profile name" },
      { "sim:*4", "--device: 'sim:*4' has an empty profile name" },
      { "sim:h100_sxm,", "--device: 'sim:h100_sxm,' has an empty profile name" },
      { "sim:h100_sxm*0", "--device: 'sim:h100_sxm*0': the count after '*' must be a number from 1 to 16" },
      { "sim:h100_sxm*17", "--device: 'sim:h100_sxm*17': the count after '*' must be a number from 1 to 16" },
      { "sim:h100_sxm*", "--device: 'sim:h100_sxm*': the count after '*' must be a number from 1 to 16" },
      { "sim:h100_sxm*x", "--device: 'sim:h100_sxm*x': the count after '*' must be a number from 1 to 16" },
      { "sim:h100_sxm*-2", "--device: 'sim:h100_sxm*-2': the count after '*' must be a number from 1 to 16" },
      { "sim:h100_sxm*2*2", "--device: 'sim:h100_sxm*2*2': the count after '*' must be a number from 1 to 16" },
      { "sim:h100_sxm*9,a100*8", "--device: 'sim:h100_sxm*9,a100*8' names more than 16 devices" },
      { "sim:abcdefghijklmnopqrstuvwxyz012345",
        "--device: 'sim:abcdefghijklmnopqrstuvwxyz012345' has a profile name longer than 31 characters" },
   };
   for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      char *want = !cases[i].why    ? xAsprintf("%s'%s'", forms, cases[i].device)
                   : *cases[i].why ? xStrdup(cases[i].why)
                                   : xAsprintf("--device: '%s' %s", cases[i].device, numbers);
      assertRefused(cases[i].device, want);
      free(want);
   }
}

static Measurer *openFleet(const char *device, bool allowMixed, char **cause) {
   MeasurerConfig cfg;
   MeasurerConfig_default(&cfg);
   cfg.device = device;
   cfg.devices = &devices;
   cfg.allowMixed = allowMixed;
   cfg.buildThreads = 2;
   cfg.buildTimeout = 600;
   cfg.simNoCompile = true;
   cfg.runner.program = fakeRunner;
   return Measurer_open(&cfg, cause);
}

static void test_fleet_models(void **state) {
   (void)state;
   char *cause = NULL;
   Measurer *m = openFleet("sim:h100_sxm*4", false, &cause);
   if (!m)
      fail_msg("%s", cause);
   assert_int_equal(Measurer_count(m), 4);
   assert_string_equal(Measurer_fleet(m), "sim:h100_sxm*4");
   assert_string_equal(Measurer_describe(m), "sim:h100_sxm (simulated NVIDIA H100 80GB HBM3), 4 devices: sim:h100_sxm*4");
   const char *why;
   assert_int_equal(Measurer_retired(m, &why), 0);
   assert_null(why);
   /* a resumed session's counts: added to the device of that name, retirement not taken */
   MeasurerDeviceStats seed = { .name = "sim:h100_sxm#3", .measured = 7, .failed = 2, .busySeconds = 1.5,
                                .retired = true, .why = "sim:h100_sxm#3 is retired: ..." };
   assert_true(Measurer_seedDeviceStats(m, &seed));
   assert_true(Measurer_seedDeviceStats(m, &seed));
   MeasurerDeviceStats st;
   Measurer_deviceStats(m, 2, &st);
   assert_string_equal(st.name, "sim:h100_sxm#3");
   assert_int_equal(st.measured, 14);
   assert_int_equal(st.failed, 4);
   assert_true(st.busySeconds == 3.0);
   assert_false(st.retired);
   assert_null(st.why);
   Measurer_deviceStats(m, 1, &st);
   assert_int_equal(st.measured, 0);
   snprintf(seed.name, sizeof seed.name, "sim:h100_sxm#5");
   assert_false(Measurer_seedDeviceStats(m, &seed));
   snprintf(seed.name, sizeof seed.name, "cuda:2");
   assert_false(Measurer_seedDeviceStats(m, &seed));
   Measurer_close(m);
   m = openFleet("sim:h100_sxm", false, &cause);
   assert_int_equal(Measurer_count(m), 1);
   assert_string_equal(Measurer_fleet(m), "sim:h100_sxm");
   Measurer_close(m);
   /* two models: refused, unless asked for */
   const char *mixed = "sim:h100_sxm is NVIDIA H100 80GB HBM3 but sim:a100_40 is NVIDIA A100-SXM4-40GB: their "
                       "latencies do not mix; --allow-mixed keeps a model per device";
   assert_null(openFleet("sim:h100_sxm,a100_40", false, &cause));
   assert_string_equal(cause, mixed);
   free(cause);
   assert_null(openFleet("sim:h100_sxm*3,a100_40", false, &cause));
   assert_string_equal(cause, mixed);
   free(cause);
   m = openFleet("sim:h100_sxm*2,a100_40", true, &cause);
   if (!m)
      fail_msg("%s", cause);
   assert_int_equal(Measurer_count(m), 3);
   assert_string_equal(Measurer_fleet(m), "sim:h100_sxm*2,a100_40");
   assert_string_equal(Measurer_device(m)->name, "h100_sxm");
   Measurer_close(m);
   /* an unknown profile anywhere in the list */
   assert_null(openFleet("sim:h100_sxm,b200", true, &cause));
   assert_int_equal(strncmp(cause, "sim:h100_sxm,b200: no device profile is called 'b200' (known: ", 62), 0);
   free(cause);
}

static void measureOn(const char *device, int t, TaskStates *ts, InjectKind inject, MeasureOutcome *out) {
   char *cause = NULL;
   Measurer *m = openFleet(device, false, &cause);
   if (!m)
      fail_msg("%s", cause);
   Measurer_setInject(m, inject);
   if (Measurer_setTask(m, &net.tasks[t], &ts->set, &cause) < 0)
      fail_msg("%s", cause);
   /* each state twice: more states than devices, and repeats */
   State states[6];
   for (int i = 0; i < 6; i++)
      states[i] = ts->states[i % 3];
   Measurer_measure(m, states, 6, out);
   Measurer_close(m);
}

/* Four simulated devices give each state of a batch what one gives it, in the batch's
 * order; broken programs too. */
static void test_fleet_measures_as_one(void **state) {
   (void)state;
   for (int t = 0; t < net.ntasks; t++) {
      TaskStates ts;
      taskStates(t, &ts);
      for (int k = 0; k < 2; k++) {
         InjectKind inject = k ? INJECT_WRONG : INJECT_NONE;
         MeasureOutcome one[6], four[6];
         measureOn("sim:h100_sxm", t, &ts, inject, one);
         measureOn("sim:h100_sxm*4", t, &ts, inject, four);
         for (int i = 0; i < 6; i++) {
            assert_int_equal(one[i].error, inject ? MEASURE_WRONG_ANSWER : MEASURE_OK);
            assert_int_equal(four[i].error, one[i].error);
            assert_string_equal(four[i].message, one[i].message);
            assert_int_equal(four[i].ncosts, one[i].ncosts);
            assert_memory_equal(four[i].costs, one[i].costs, sizeof one[i].costs);
            assert_memory_equal(&four[i].latency, &one[i].latency, sizeof one[i].latency);
            assert_int_equal(four[i].registers, one[i].registers);
            assert_int_equal(four[i].checked, one[i].checked);
         }
         /* the same state twice in a batch: the same outcome */
         assert_memory_equal(one[0].costs, one[3].costs, sizeof one[0].costs);
      }
      taskStatesDone(&ts);
   }
}

/* --allow-mixed: each state is measured on one device with that device's profile, and
 * its record names that device. */
static void test_mixed_fleet_records(void **state) {
   (void)state;
   TaskStates ts;
   taskStates(0, &ts);
   MeasureOutcome h100[6], a100[6], mixed[6];
   measureOn("sim:h100_sxm", 0, &ts, INJECT_NONE, h100);
   measureOn("sim:a100_40", 0, &ts, INJECT_NONE, a100);
   char *cause = NULL;
   Measurer *m = openFleet("sim:h100_sxm,a100_40", true, &cause);
   if (!m)
      fail_msg("%s", cause);
   if (Measurer_setTask(m, &net.tasks[0], &ts.set, &cause) < 0)
      fail_msg("%s", cause);
   State states[6];
   for (int i = 0; i < 6; i++)
      states[i] = ts.states[i % 3];
   Measurer_measure(m, states, 6, mixed);
   for (int i = 0; i < 6; i++) {
      assert_true(mixed[i].device == 0 || mixed[i].device == 1);
      const MeasureOutcome *alone = mixed[i].device ? &a100[i] : &h100[i];
      assert_int_equal(mixed[i].error, MEASURE_OK);
      assert_memory_equal(mixed[i].costs, alone->costs, sizeof alone->costs);
      Record r;
      Measurer_record(m, &states[i], &mixed[i], &r);
      assert_string_equal(r.device, mixed[i].device ? "a100_40" : "h100_sxm");
      Record_done(&r);
   }
   /* the two profiles time the task apart */
   assert_true(h100[0].latency != a100[0].latency);
   Measurer_close(m);
   taskStatesDone(&ts);
}

/* --counters on the simulator: its model of each program, labelled simulated, whose
 * FP32 rate is the task's FLOPs over the latency (within the 0.2% of the repeats'
 * jitter); without it, none. On a GPU (stand-in runners) they are refused, saying why. */
static void test_simulated_counters(void **state) {
   (void)state;
   TaskStates ts;
   taskStates(0, &ts);
   for (int with = 0; with < 2; with++) {
      MeasurerConfig cfg;
      MeasurerConfig_default(&cfg);
      cfg.device = "sim:h100_sxm";
      cfg.devices = &devices;
      cfg.simNoCompile = true;
      cfg.counters = with;
      char *cause = NULL;
      Measurer *m = Measurer_open(&cfg, &cause);
      if (!m || Measurer_setTask(m, &net.tasks[0], &ts.set, &cause) < 0)
         fail_msg("%s", cause);
      MeasureOutcome out[3];
      Measurer_measure(m, ts.states, 3, out);
      for (int i = 0; i < 3; i++) {
         assert_int_equal(out[i].error, MEASURE_OK);
         const Counters *c = &out[i].counters;
         assert_int_equal(c->present, with);
         if (!with)
            continue;
         assert_true(c->simulated);
         assert_float_equal(c->gflops, net.tasks[0].flops / out[i].latency * 1e-9, c->gflops * 0.01);
         assert_true(c->occupancy > 0 && c->occupancy <= 1);
         assert_true(c->l2HitRate >= 0 && c->l2HitRate <= 1);
         assert_true(c->dramGbs > 0 && c->waves > 0);
         assert_true(strcmp(c->bound, "compute") == 0 || strcmp(c->bound, "memory") == 0 ||
                     strcmp(c->bound, "shared memory") == 0 || strcmp(c->bound, "latency") == 0);
         /* the later five, all known; an SM's four schedulers issue at most 4 a clock */
         assert_int_equal(c->known, COUNTERS_ALL_FIELDS);
         assert_true(c->l1HitRate >= 0 && c->l1HitRate <= 1);
         assert_true(c->bankConflicts >= 0 && c->bankConflicts < 1);
         assert_true(c->instructions > 0);
         assert_true(c->ipc > 0 && c->ipc <= 4);
         assert_true(Counters_stallIndex(c->stall) >= 0 && Counters_stallIndex(c->stall) < 6);
         assert_true(c->stallShare > 0 && c->stallShare <= 1);
         Record r;
         Measurer_record(m, &ts.states[i], &out[i], &r);
         assert_memory_equal(&r.counters, c, sizeof *c);
         Record_done(&r);
      }
      Measurer_close(m);
   }
   taskStatesDone(&ts);
   MeasurerConfig cfg;
   MeasurerConfig_default(&cfg);
   cfg.device = "cuda:0";
   cfg.devices = &devices;
   cfg.runner.program = fakeRunner;
   cfg.counters = true;
   setenv("FAKE_RUNNER_ANSWER", "good", 1);
#ifdef HAVE_CUPTI
   /* CUPTI that cannot be loaded: a library that is not there, one without the range
    * profiler */
   static const struct {
      const char *lib, *why;
   } missing[] = {
      { "/nonexistent/libcupti.so",
        "CUPTI's library /nonexistent/libcupti.so (PRUNER_TUI_LIBCUPTI) does not open: /nonexistent/libcupti.so: "
        "cannot open shared object file: No such file or directory" },
      { "libm.so.6",
        "CUPTI's library libm.so.6 has no cuptiGetResultString: the range profiler needs CUPTI of CUDA 12.6 or later" },
   };
   for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++) {
      setenv("PRUNER_TUI_LIBCUPTI", missing[i].lib, 1);
      char *cause = NULL;
      Measurer *m = Measurer_open(&cfg, &cause);
      unsetenv("PRUNER_TUI_LIBCUPTI");
      assert_null(m);
      if (strstr(cause, "NVRTC")) {
         free(cause);
         unsetenv("FAKE_RUNNER_ANSWER");
         skip();
      }
      char *want = xAsprintf("--counters: a GPU's counters come from CUPTI's profiling API: %s; the simulator gives "
                             "its modelled ones (--device sim:PROFILE)",
                             missing[i].why);
      assert_string_equal(cause, want);
      free(want);
      free(cause);
   }
#else
   char *cause = NULL;
   Measurer *m = Measurer_open(&cfg, &cause);
   assert_null(m);
   if (strstr(cause, "NVRTC")) {
      free(cause);
      unsetenv("FAKE_RUNNER_ANSWER");
      skip();
   }
   assert_string_equal(cause, "--counters: a GPU's counters come from CUPTI's profiling API: this pruner-tui was "
                              "built without CUPTI's headers (configure found no cupti_range_profiler.h in the CUDA "
                              "toolkit, or was given --without-cupti); install the toolkit's CUPTI and build again; "
                              "the simulator gives its modelled ones (--device sim:PROFILE)");
   free(cause);
#endif
   unsetenv("FAKE_RUNNER_ANSWER");
}

/* An outcome as an MPI message carries: back as it was; cut short or with a bad kind of
 * error, refused. */
static void test_mpi_outcome_wire(void **state) {
   (void)state;
   MeasureOutcome o;
   memset(&o, 0, sizeof o);
   o.error = MEASURE_WRONG_ANSWER;
   snprintf(o.message, sizeof o.message, "output 3 is 2.5, the reference 2");
   o.ncosts = 3;
   o.costs[0] = 1.5e-6, o.costs[1] = 1.25e-6, o.costs[2] = 2e-6;
   o.latency = 1.5e-6;
   o.spread = 0.6;
   o.registers = 40;
   o.spillBytes = 8;
   o.compileSeconds = 0.052;
   o.runSeconds = 0.13;
   o.checked = true;
   o.throttled = 4;
   o.counters = (Counters){ .present = true, .simulated = true, .known = COUNTERS_ALL_FIELDS & ~COUNTER_IPC,
                            .dramGbs = 812.5, .l2HitRate = 0.625, .occupancy = 0.5, .gflops = 10422,
                            .waves = 1.9375, .l1HitRate = 0.125, .bankConflicts = 0.25, .instructions = 4096,
                            .bound = "memory", .stall = "long_scoreboard", .stallShare = 0.75 };
   WireBuf b;
   WireBuf_init(&b);
   Mpi_putOutcome(&b, &o);
   MeasureOutcome back;
   assert_int_equal(Mpi_getOutcome(&b, &back), 0);
   assert_memory_equal(&back, &o, sizeof o);
   size_t whole = b.len;
   b.len = whole - 1;
   b.pos = 0;
   assert_int_equal(Mpi_getOutcome(&b, &back), -1);
   b.len = whole;
   b.pos = 0;
   b.data[0] = MEASURE_ERROR_COUNT;
   b.bad = false;
   assert_int_equal(Mpi_getOutcome(&b, &back), -1);
   WireBuf_done(&b);
}

/* Stand-in runners as GPUs: cuda:all finds them, two models are refused, and one that
 * fails every program is retired while the others measure its states. */
static void test_gpu_fleet(void **state) {
   (void)state;
   char *cause = NULL;
   setenv("FAKE_RUNNER_GPUS", "3", 1);
   setenv("FAKE_RUNNER_ANSWER", "good", 1);
   Measurer *m = openFleet("cuda:all", false, &cause);
   if (!m && strstr(cause, "NVRTC")) {
      free(cause);
      unsetenv("FAKE_RUNNER_GPUS");
      unsetenv("FAKE_RUNNER_ANSWER");
      skip();
   }
   if (!m)
      fail_msg("%s", cause);
   assert_int_equal(Measurer_count(m), 3);
   assert_string_equal(Measurer_fleet(m), "cuda:0,1,2");
   Measurer_close(m);
   assert_null(openFleet("cuda:0,3", false, &cause));
   assert_string_equal(cause, "no CUDA device: the fake runner has no such ordinal");
   free(cause);

   setenv("FAKE_RUNNER_ODD_NAME", "Fake A100", 1);
   assert_null(openFleet("cuda:0,1", false, &cause));
   assert_string_equal(cause, "cuda:0 is Fake GPU but cuda:1 is Fake A100: their latencies do not mix; "
                              "--allow-mixed keeps a model per device");
   free(cause);
   m = openFleet("cuda:2,1", true, &cause);
   if (!m)
      fail_msg("%s", cause);
   assert_string_equal(Measurer_fleet(m), "cuda:2,1");
   assert_string_equal(Measurer_device(m)->name, "fake_gpu");
   Measurer_close(m);
   unsetenv("FAKE_RUNNER_ODD_NAME");

   /* cuda:1 fails every program: each state it fails is measured again on another GPU,
    * and after 3 failures in a row it is retired. How many states it takes in a batch
    * depends on the threads' timing (its runner restarts after each failure), so the
    * batches go on until it is retired; its run of failures carries over. */
   setenv("FAKE_RUNNER_BROKEN", "1", 1);
   m = openFleet("cuda:0,1,2", false, &cause);
   if (!m)
      fail_msg("%s", cause);
   TaskStates ts;
   taskStates(0, &ts);
   if (Measurer_setTask(m, &net.tasks[0], &ts.set, &cause) < 0)
      fail_msg("%s", cause);
   enum { N = 24 };
   State states[N];
   for (int i = 0; i < N; i++)
      states[i] = ts.states[i % 3];
   MeasureOutcome o[N];
   const char *why;
   int batches = 0;
   do {
      Measurer_measure(m, states, N, o);
      for (int i = 0; i < N; i++)
         if (o[i].error != MEASURE_OK)
            fail_msg("batch %d, state %d: %s", batches, i, o[i].message);
      batches++;
   } while (Measurer_retired(m, &why) == 0 && batches < 20);
   assert_int_equal(Measurer_retired(m, &why), 1);
   assert_string_equal(why, "cuda:1 is retired: it failed 3 or more programs in a row while other GPUs measured "
                            "theirs (last: running the kernels: CUDA_ERROR_LAUNCH_FAILED (719): fake)");
   /* the others go on */
   Measurer_measure(m, states, 3, o);
   for (int i = 0; i < 3; i++)
      assert_int_equal(o[i].error, MEASURE_OK);
   assert_int_equal(Measurer_retired(m, &why), 1);
   Measurer_close(m);
   taskStatesDone(&ts);

   /* alone, a failing GPU is never retired: its failures are the outcomes */
   m = openFleet("cuda:1", false, &cause);
   if (!m)
      fail_msg("%s", cause);
   taskStates(0, &ts);
   if (Measurer_setTask(m, &net.tasks[0], &ts.set, &cause) < 0)
      fail_msg("%s", cause);
   Measurer_measure(m, ts.states, 3, o);
   for (int i = 0; i < 3; i++)
      assert_int_equal(o[i].error, MEASURE_RUNTIME_ERROR);
   assert_int_equal(Measurer_retired(m, &why), 0);
   Measurer_close(m);
   taskStatesDone(&ts);
   unsetenv("FAKE_RUNNER_BROKEN");
   unsetenv("FAKE_RUNNER_GPUS");
   unsetenv("FAKE_RUNNER_ANSWER");
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
   fakeRunner = xAsprintf("%s/tests/fake-runner", b ? b : ".");
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_selection),
      cmocka_unit_test(test_fleet_forms),
      cmocka_unit_test(test_fleet_refused_forms),
      cmocka_unit_test(test_fleet_models),
      cmocka_unit_test(test_fleet_measures_as_one),
      cmocka_unit_test(test_mixed_fleet_records),
      cmocka_unit_test(test_mpi_outcome_wire),
      cmocka_unit_test(test_simulated_counters),
      cmocka_unit_test(test_gpu_fleet),
      cmocka_unit_test(test_simulated_outcomes),
      cmocka_unit_test(test_wrong_kernel_is_caught),
      cmocka_unit_test(test_out_of_bounds_kernel_is_caught),
      cmocka_unit_test(test_endless_kernel_times_out),
      cmocka_unit_test(test_records),
   };
   int rc = cmocka_run_group_tests(tests, NULL, NULL);
   free(runner);
   free(fakeRunner);
   Network_done(&net);
   DeviceSet_done(&devices);
   return rc;
}
