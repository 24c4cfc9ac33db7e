/* The GPU's state through NVML, against the stand-in library tests/libfake-nvml.so
 * (1980/2619 MHz, 54 C, 312.4 of 700 W, throttle reasons from $FAKE_NVML_REASONS) and
 * tests/libfake-nvml-partial.so (it lacks the throttle reasons): the sampled values,
 * the device found by PCI bus id or index, the reasons' names in records and session
 * events and their absence without NVML, a measurer on the stand-in runner that flags
 * a throttled measurement, and the workbench's header and table that show it. */
#include "config.h"

#include "testutil.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h>

#include "board.h"
#include "measure/gpustate.h"
#include "measure/measurer.h"
#include "measure/record.h"
#include "panels.h"
#include "sched/sketch.h"
#include "tune/session.h"
#include "util/rng.h"
#include "util/xalloc.h"

static char *fakeLib, *partialLib;

static char *built(const char *name) {
   const char *b = getenv("PTUI_BUILDDIR");
   return xAsprintf("%s/tests/%s", b ? b : ".", name);
}

static GpuState *openFake(const char *lib, const char *busId, int index, char **cause) {
   setenv("PRUNER_TUI_LIBNVML", lib, 1);
   GpuState *g = GpuState_open(busId, index, cause);
   unsetenv("PRUNER_TUI_LIBNVML");
   return g;
}

static void assertOpenFails(const char *lib, const char *busId, int index, const char *want) {
   char *cause = NULL;
   assert_null(openFake(lib, busId, index, &cause));
   assert_string_equal(cause, want);
   free(cause);
}

/* ---- opening and sampling ---- */

static void test_no_library(void **state) {
   (void)state;
   assertOpenFails("/nonexistent/libnvidia-ml.so.1", "", 0,
                   "no GPU state: cannot open NVML /nonexistent/libnvidia-ml.so.1 (/nonexistent/libnvidia-ml.so.1: "
                   "cannot open shared object file: No such file or directory)");
}

static void test_library_lacking_a_symbol(void **state) {
   (void)state;
   char *want = xAsprintf("no GPU state: NVML %s lacks nvmlDeviceGetCurrentClocksThrottleReasons", partialLib);
   assertOpenFails(partialLib, "", 0, want);
   free(want);
}

static void test_sampled_values(void **state) {
   (void)state;
   char *cause = NULL;
   GpuState *g = openFake(fakeLib, "", 0, &cause);
   assert_non_null(g);
   assert_string_equal(GpuState_library(g), fakeLib);
   GpuSample s;
   GpuState_sample(g, &s);
   assert_int_equal(s.valid, GPU_HAS_SM_CLOCK | GPU_HAS_MEM_CLOCK | GPU_HAS_TEMPERATURE | GPU_HAS_POWER |
                                GPU_HAS_POWER_LIMIT | GPU_HAS_THROTTLE);
   assert_int_equal(s.smMhz, 1980);
   assert_int_equal(s.memMhz, 2619);
   assert_int_equal(s.celsius, 54);
   assert_true(s.watts == 312.4);
   assert_true(s.limitWatts == 700.0);
   /* idle and the power cap: only the power cap slows a measurement */
   assert_int_equal(s.throttle, GPU_THROTTLE_IDLE | GPU_THROTTLE_POWER_CAP);
   assert_int_equal(GpuSample_slowing(&s), GPU_THROTTLE_POWER_CAP);
   char text[96];
   GpuSample_format(&s, text, sizeof text);
   assert_string_equal(text, "1980/2619 MHz 54C 312/700W");
   GpuThrottle_format(GpuSample_slowing(&s), text, sizeof text);
   assert_string_equal(text, "THROTTLE: power");
   /* idle and application clocks are not a slowdown */
   setenv("FAKE_NVML_REASONS", "0x3", 1);
   GpuState_sample(g, &s);
   assert_int_equal(s.throttle, 0x3);
   assert_int_equal(GpuSample_slowing(&s), 0);
   GpuThrottle_format(GpuSample_slowing(&s), text, sizeof text);
   assert_string_equal(text, "");
   setenv("FAKE_NVML_REASONS", "0x1e0", 1);
   GpuState_sample(g, &s);
   GpuThrottle_format(GpuSample_slowing(&s), text, sizeof text);
   assert_string_equal(text, "THROTTLE: thermal,hw-thermal,power-brake,display");
   unsetenv("FAKE_NVML_REASONS");
   GpuState_close(g);
}

static void test_device_by_bus_id_or_index(void **state) {
   (void)state;
   char *cause = NULL;
   GpuState *g = openFake(fakeLib, "0000:3B:00.0", 5, &cause);
   assert_non_null(g);   /* the bus id wins over the index */
   GpuState_close(g);
   assertOpenFails(fakeLib, "0000:01:00.0", 0,
                   "no GPU state: NVML has no GPU at PCI bus id 0000:01:00.0 (Not Found)");
   assertOpenFails(fakeLib, "", 1, "no GPU state: NVML has no GPU 1 (Invalid Argument)");
}

static void test_format_without_values(void **state) {
   (void)state;
   char text[96];
   GpuSample s = { 0 };
   GpuSample_format(&s, text, sizeof text);
   assert_string_equal(text, "");
   assert_int_equal(GpuSample_slowing(&s), 0);
   s = (GpuSample){ .valid = GPU_HAS_SM_CLOCK | GPU_HAS_TEMPERATURE | GPU_HAS_POWER, .smMhz = 1410, .celsius = 31,
                    .watts = 61.6, .throttle = GPU_THROTTLE_POWER_CAP };
   GpuSample_format(&s, text, sizeof text);
   assert_string_equal(text, "1410/N/A MHz 31C 62/N/AW");
   /* reasons that NVML did not give are none */
   assert_int_equal(GpuSample_slowing(&s), 0);
}

/* ---- the reasons in records and session events ---- */

static void test_reason_names(void **state) {
   (void)state;
   cJSON *a = GpuThrottle_toJson(GPU_THROTTLE_IDLE | GPU_THROTTLE_POWER_CAP | GPU_THROTTLE_HW_THERMAL);
   char *text = cJSON_PrintUnformatted(a);
   assert_string_equal(text, "[\"power_cap\",\"hw_thermal\"]");
   unsigned bits = 0;
   char *cause = NULL;
   assert_int_equal(GpuThrottle_fromJson(a, &bits, &cause), 0);
   assert_int_equal(bits, GPU_THROTTLE_POWER_CAP | GPU_THROTTLE_HW_THERMAL);
   free(text);
   cJSON_Delete(a);
   assert_string_equal(GpuThrottle_name(GPU_THROTTLE_SYNC_BOOST), "sync_boost");
   assert_string_equal(GpuThrottle_word(GPU_THROTTLE_POWER_CAP), "power");
   assert_null(GpuThrottle_name(GPU_THROTTLE_IDLE));
}

static Record sampleRecord(void) {
   Record r = { 0 };
   r.task = xStrdup("dense_8x64x16");
   r.device = xStrdup("h100_sxm");
   r.state = xStrdup("s0");
   r.ncosts = 1;
   r.costs[0] = 2.5e-5;
   r.message = xStrdup("");
   r.registers = 40;
   r.timestamp = 1700000000;
   return r;
}

static const char *const recordLine =
   "{\"v\":1,\"task\":\"dense_8x64x16\",\"device\":\"h100_sxm\",\"simulated\":false,\"state\":\"s0\","
   "\"costs\":[2.5e-05],\"error\":\"ok\",\"error_no\":0,\"registers\":40,\"compile_s\":0,\"run_s\":0,"
   "\"time\":1700000000";

static void test_record_field(void **state) {
   (void)state;
   Record r = sampleRecord();
   r.throttled = GPU_THROTTLE_POWER_CAP | GPU_THROTTLE_SW_THERMAL;
   char *line = Record_toJson(&r), *want = xAsprintf("%s,\"throttled\":[\"power_cap\",\"sw_thermal\"]}", recordLine);
   assert_string_equal(line, want);
   Record back;
   char *cause = NULL;
   if (Record_fromJson(line, &back, &cause) < 0)
      fail_msg("%s", cause);
   assert_int_equal(back.throttled, GPU_THROTTLE_POWER_CAP | GPU_THROTTLE_SW_THERMAL);
   Record_done(&back);
   free(line);
   free(want);
   /* without reasons the key is left out, and a line without it reads as none */
   r.throttled = 0;
   line = Record_toJson(&r);
   want = xAsprintf("%s}", recordLine);
   assert_string_equal(line, want);
   if (Record_fromJson(line, &back, &cause) < 0)
      fail_msg("%s", cause);
   assert_int_equal(back.throttled, 0);
   Record_done(&back);
   free(line);
   free(want);
   /* bad values */
   static const struct {
      const char *value, *why;
   } bad[] = {
      { "[\"hot\"]", "\"throttled\"[0]: expected one of \"power_cap\", \"hw_slowdown\", \"sync_boost\", "
                     "\"sw_thermal\", \"hw_thermal\", \"power_brake\", \"display_clock\", found \"hot\"" },
      { "[\"power_cap\",3]", "\"throttled\"[1]: expected one of \"power_cap\", \"hw_slowdown\", \"sync_boost\", "
                             "\"sw_thermal\", \"hw_thermal\", \"power_brake\", \"display_clock\", found a number" },
      { "\"power_cap\"", "\"throttled\": expected an array of throttle reason names, found a string" },
   };
   for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      line = xAsprintf("%s,\"throttled\":%s}", recordLine, bad[i].value);
      assert_int_equal(Record_fromJson(line, &back, &cause), -1);
      assert_string_equal(cause, bad[i].why);
      free(cause);
      cause = NULL;
      free(line);
   }
   /* the simulator has no GPU state */
   r.simulated = true;
   r.throttled = GPU_THROTTLE_POWER_CAP;
   assert_int_equal(Record_validate(&r, &cause), -1);
   assert_string_equal(cause, "\"throttled\": expected no reasons when \"simulated\" is true (the simulator has "
                              "no GPU state), found some");
   free(cause);
   Record_done(&r);
}

/* an ok measure event of one cost */
static SessionEvent measureEvent(int round, int task, double cost, unsigned throttled) {
   SessionEvent e = { .kind = SESSION_MEASURE, .round = round, .elapsed = 10.0 };
   e.measure.task = task;
   e.measure.state = xStrdup("s0");
   e.measure.ncosts = 1;
   e.measure.costs[0] = cost;
   e.measure.error = xStrdup("ok");
   e.measure.message = xStrdup("");
   e.measure.lineage = xStrdup("random");
   e.measure.draftScore = e.measure.verifyScore = NAN;
   e.measure.predictedError = e.measure.outputError = NAN;
   e.measure.throttled = throttled;
   return e;
}

static void test_session_field(void **state) {
   (void)state;
   SessionEvent e = measureEvent(2, 1, 2.5e-5, GPU_THROTTLE_HW_SLOWDOWN);
   char *line = SessionEvent_toJson(&e, true);
   assert_non_null(strstr(line, ",\"throttled\":[\"hw_slowdown\"]}"));
   SessionEvent back;
   char *cause = NULL;
   if (SessionEvent_fromJson(line, &back, &cause) < 0)
      fail_msg("%s", cause);
   assert_int_equal(back.measure.throttled, GPU_THROTTLE_HW_SLOWDOWN);
   SessionEvent_done(&back);
   free(line);
   e.measure.throttled = 0;
   line = SessionEvent_toJson(&e, true);
   assert_null(strstr(line, "throttled"));
   if (SessionEvent_fromJson(line, &back, &cause) < 0)
      fail_msg("%s", cause);
   assert_int_equal(back.measure.throttled, 0);
   SessionEvent_done(&back);
   free(line);
   SessionEvent_done(&e);
}

/* ---- a measurer on the stand-in runner ---- */

static const char *const denseTask =
   "network: nvml\nbatch: 1\ntasks:\n  - {op: dense, n: 64, k: 64, epilogue: [bias, relu], weight: 1}\n";

static Measurer *openMeasurer(const DeviceSet *devices, const char *lib, char **cause) {
   char *runner = built("fake-runner");
   MeasurerConfig cfg;
   MeasurerConfig_default(&cfg);
   cfg.device = "cuda:0";
   cfg.devices = devices;
   cfg.runner.program = runner;
   cfg.buildThreads = 1;
   cfg.buildTimeout = 600;
   setenv("PRUNER_TUI_LIBNVML", lib, 1);
   Measurer *m = Measurer_open(&cfg, cause);
   unsetenv("PRUNER_TUI_LIBNVML");
   free(runner);
   return m;
}

static void test_measurer_flags_throttled(void **state) {
   (void)state;
   DeviceSet devices;
   TestUtil_loadDevices(&devices);
   char *cause = NULL;
   setenv("FAKE_RUNNER_ANSWER", "good", 1);
   Measurer *m = openMeasurer(&devices, fakeLib, &cause);
   if (!m && strstr(cause, "NVRTC")) {
      free(cause);
      DeviceSet_done(&devices);
      unsetenv("FAKE_RUNNER_ANSWER");
      skip();
   }
   if (!m)
      fail_msg("%s", cause);
   assert_non_null(Measurer_gpuState(m));
   assert_null(Measurer_gpuNote(m));
   Network net;
   if (Network_loadString(&net, "nvml.task", denseTask, strlen(denseTask), &cause) < 0)
      fail_msg("%s", cause);
   Dag dag;
   Dag_init(&dag);
   Op_buildDag(&net.tasks[0].op, &dag);
   SketchSet set;
   SketchSet_generate(&set, &dag);
   if (Measurer_setTask(m, &net.tasks[0], &set, &cause) < 0)
      fail_msg("%s", cause);
   SchedLimits lim;
   SchedLimits_fromDevice(&lim, Measurer_device(m));
   Rng rng;
   Rng_seed(&rng, 5);
   State s[2];
   for (int i = 0; i < 2; i++)
      if (State_sampleValid(&set, -1, &rng, &lim, 10000, &s[i], &cause) < 0)
         fail_msg("%s", cause);
   MeasureOutcome o[2];
   /* idle and the power cap: the power cap is flagged */
   Measurer_measure(m, &s[0], 1, &o[0]);
   assert_int_equal(o[0].error, MEASURE_OK);
   assert_int_equal(o[0].throttled, GPU_THROTTLE_POWER_CAP);
   Record r;
   Measurer_record(m, &s[0], &o[0], &r);
   char *line = Record_toJson(&r);
   assert_non_null(strstr(line, ",\"throttled\":[\"power_cap\"]}"));
   free(line);
   Record_done(&r);
   /* idle only: nothing */
   setenv("FAKE_NVML_REASONS", "0x1", 1);
   Measurer_measure(m, &s[1], 1, &o[1]);
   unsetenv("FAKE_NVML_REASONS");
   assert_int_equal(o[1].error, MEASURE_OK);
   assert_int_equal(o[1].throttled, 0);
   Measurer_record(m, &s[1], &o[1], &r);
   line = Record_toJson(&r);
   assert_null(strstr(line, "throttled"));
   free(line);
   Record_done(&r);
   Measurer_close(m);
   /* a library that lacks an entry point: one note, measurements go on without state */
   m = openMeasurer(&devices, partialLib, &cause);
   if (!m)
      fail_msg("%s", cause);
   assert_null(Measurer_gpuState(m));
   char *want = xAsprintf("no GPU state: NVML %s lacks nvmlDeviceGetCurrentClocksThrottleReasons", partialLib);
   assert_string_equal(Measurer_gpuNote(m), want);
   assert_string_equal(Measurer_note(m), want);
   free(want);
   if (Measurer_setTask(m, &net.tasks[0], &set, &cause) < 0)
      fail_msg("%s", cause);
   Measurer_measure(m, &s[0], 1, &o[0]);
   assert_int_equal(o[0].error, MEASURE_OK);
   assert_int_equal(o[0].throttled, 0);
   Measurer_close(m);
   unsetenv("FAKE_RUNNER_ANSWER");
   SketchSet_done(&set);
   Dag_done(&dag);
   Network_done(&net);
   DeviceSet_done(&devices);
}

static void test_simulator_has_no_state(void **state) {
   (void)state;
   DeviceSet devices;
   TestUtil_loadDevices(&devices);
   MeasurerConfig cfg;
   MeasurerConfig_default(&cfg);
   cfg.device = "sim:h100_sxm";
   cfg.devices = &devices;
   cfg.simNoCompile = true;
   setenv("PRUNER_TUI_LIBNVML", fakeLib, 1);
   char *cause = NULL;
   Measurer *m = Measurer_open(&cfg, &cause);
   unsetenv("PRUNER_TUI_LIBNVML");
   if (!m)
      fail_msg("%s", cause);
   assert_null(Measurer_gpuState(m));
   assert_null(Measurer_gpuNote(m));
   Measurer_close(m);
   DeviceSet_done(&devices);
}

/* ---- the workbench's header and table ---- */

typedef struct {
   SessionLog log;
   Network net;
   DeviceSet devices;
   Board board;
   SCREEN *screen;
   FILE *devnull;
} Bench;

static void benchOpen(Bench *f) {
   memset(f, 0, sizeof *f);
   SessionLog_init(&f->log);
   TestUtil_readSession(&f->log, "tests/data/tiny2-session.jsonl");
   TestUtil_loadNetwork(&f->net, "tests/data/tiny2.task");
   TestUtil_loadDevices(&f->devices);
   Board_init(&f->board, &f->log.events[0].header, &f->net, &f->devices);
   for (int i = 1; i < f->log.count; i++)
      Board_apply(&f->board, &f->log.events[i]);
   f->board.clock = 3.0;
   setlocale(LC_ALL, "C.UTF-8");
   f->devnull = fopen("/dev/null", "r+");
   setenv("TERM", "xterm-256color", 1);
   f->screen = newterm("xterm-256color", f->devnull, f->devnull);
   assert_non_null(f->screen);
   set_term(f->screen);
   Panels_initColors(false);
}

static void benchClose(Bench *f) {
   endwin();
   delscreen(f->screen);
   fclose(f->devnull);
   Board_done(&f->board);
   Network_done(&f->net);
   DeviceSet_done(&f->devices);
   SessionLog_done(&f->log);
}

/* the header's second row at `cols` columns, blanks at its end cut */
static char *headerRow(Board *b, int cols) {
   WINDOW *w = newwin(2, cols, 0, 0);
   Panels_header(w, b);
   char *text = Panels_text(w);
   delwin(w);
   char *row = strchr(text, '\n');
   char *second = xStrdup(row ? row + 1 : "");
   char *end = strchr(second, '\n');
   if (end)
      *end = '\0';
   free(text);
   return second;
}

static void test_header(void **state) {
   (void)state;
   Bench f;
   benchOpen(&f);
   /* no GPU state (the simulator, a replay, no NVML): the row as before */
   char *plain = headerRow(&f.board, 120);
   assert_string_equal(plain, " trials 12/12  round 6  elapsed 0:00:03  ETA -  est. total 0.012 ms                "
                              "[##############################] 100%");
   free(plain);
   plain = headerRow(&f.board, 80);
   f.board.gpu = (GpuSample){ .valid = GPU_HAS_SM_CLOCK | GPU_HAS_MEM_CLOCK | GPU_HAS_TEMPERATURE | GPU_HAS_POWER |
                                       GPU_HAS_POWER_LIMIT | GPU_HAS_THROTTLE,
                              .smMhz = 1980, .memMhz = 2619, .celsius = 54, .watts = 312.4, .limitWatts = 700,
                              .throttle = GPU_THROTTLE_IDLE | GPU_THROTTLE_POWER_CAP };
   char *row = headerRow(&f.board, 120);
   assert_string_equal(row, " trials 12/12  round 6  elapsed 0:00:03  ETA -  est. total 0.012 ms         "
                            "1980/2619 MHz 54C 312/700W  THROTTLE: power");
   free(row);
   /* short of room the flag stays, and then nothing */
   row = headerRow(&f.board, 100);
   assert_string_equal(row, " trials 12/12  round 6  elapsed 0:00:03  ETA -  est. total 0.012 ms                 "
                            "THROTTLE: power");
   free(row);
   row = headerRow(&f.board, 80);
   assert_string_equal(row, plain);
   free(row);
   /* no slowdown: the values only */
   f.board.gpu.throttle = GPU_THROTTLE_IDLE;
   row = headerRow(&f.board, 120);
   assert_string_equal(row, " trials 12/12  round 6  elapsed 0:00:03  ETA -  est. total 0.012 ms  [###############] 100%  "
                            "1980/2619 MHz 54C 312/700W");
   free(row);
   free(plain);
   benchClose(&f);
}

static void test_table_mark(void **state) {
   (void)state;
   Bench f;
   benchOpen(&f);
   SessionEvent e = measureEvent(7, 0, 1e-7, GPU_THROTTLE_POWER_CAP);
   Board_apply(&f.board, &e);
   SessionEvent_done(&e);
   assert_int_equal(f.board.view.tasks[0].bestThrottled, GPU_THROTTLE_POWER_CAP);
   assert_int_equal(f.board.view.tasks[1].bestThrottled, 0);
   WINDOW *w = newwin(8, 120, 0, 0);
   Panels_table(w, &f.board);
   char *text = Panels_text(w);
   delwin(w);
   /* task 0's best (0.1 us) was measured while the power cap held the clocks down */
   assert_string_equal(text,
      " Tasks 1-2/2  sort: id\xe2\x96\xb2  [s]ort [enter] details [+/-] priority [f]ocus\n"
      "ID\xe2\x96\xb2 Task                                                    Wt  Lat(ms)  Share  GFLOPS  Trials  Roof Idle Prio State\n"
      "  0 dense_b1_m16_n64_k32+bias                                2  0.0001!     5%     666       7    4%    0    1 ready\n"
      "  1 conv2d_n1_c8_h8_w8_k16_g1_r3x3_s1x1_p1,1,1,1_d1x1+bi~    1   0.0042    95%      36       6    0%    0    1 ready\n"
      "\n\n\n\n");
   free(text);
   benchClose(&f);
}

int main(void) {
   fakeLib = built("libfake-nvml.so");
   partialLib = built("libfake-nvml-partial.so");
   unsetenv("FAKE_NVML_REASONS");
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_no_library),
      cmocka_unit_test(test_library_lacking_a_symbol),
      cmocka_unit_test(test_sampled_values),
      cmocka_unit_test(test_device_by_bus_id_or_index),
      cmocka_unit_test(test_format_without_values),
      cmocka_unit_test(test_reason_names),
      cmocka_unit_test(test_record_field),
      cmocka_unit_test(test_session_field),
      cmocka_unit_test(test_measurer_flags_throttled),
      cmocka_unit_test(test_simulator_has_no_state),
      cmocka_unit_test(test_header),
      cmocka_unit_test(test_table_mark),
   };
   int rc = cmocka_run_group_tests(tests, NULL, NULL);
   free(fakeLib);
   free(partialLib);
   return rc;
}
