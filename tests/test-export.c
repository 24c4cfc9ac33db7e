/* The exports of a session: records equal to the measure events and readable as
 * records, the tuning curve's exact lines, the best state of each task (failed
 * measures ignored, the earliest of equals) made into a kernel whose launch
 * configuration is what lowering the state gives and whose source NVRTC compiles, and
 * the exact message for each kind of bad session. */
#include "config.h"

#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "codegen/cuda.h"
#include "ir/lower.h"
#include "measure/gpustate.h"
#include "measure/nvrtc.h"
#include "measure/record.h"
#include "tune/export.h"
#include "tune/session.h"
#include "util/xalloc.h"

#define START 1700000000

/* ---- building sessions by hand ---- */

typedef struct {
   char *path;
   SessionWriter *w;
   int round;
} Maker;

/* A session of tests/data/tiny2.task's two tasks (or of `keys`, when not NULL) on the
 * h100_sxm, simulated or not, created at dir/name. */
static Maker makeSessionOn(const char *name, const char *networkFile, const char *const *keys, bool simulated) {
   Network net;
   TestUtil_loadNetwork(&net, "tests/data/tiny2.task");
   SessionEvent e = { .kind = SESSION_HEADER };
   SessionHeader *h = &e.header;
   h->network = xStrdup("tiny2");
   h->networkFile = networkFile ? xStrdup(networkFile) : TestUtil_srcPath("tests/data/tiny2.task");
   h->device = xStrdup("h100_sxm");
   h->simulated = simulated;
   h->policy = xStrdup("pruner");
   h->costModel = xStrdup("xgb");
   h->trialBudget = 20;
   h->measuresPerRound = 3;
   h->seed = 1;
   h->startTime = START;
   h->ntasks = 2;
   h->tasks = xCalloc(2, sizeof *h->tasks);
   for (int t = 0; t < 2; t++)
      h->tasks[t] = xStrdup(keys ? keys[t] : net.tasks[t].key);
   Maker m = { .path = xAsprintf("%s/%s", TestUtil_groupDir, name) };
   remove(m.path);
   char *cause = NULL;
   m.w = SessionWriter_open(m.path, h, &cause);
   if (!m.w)
      fail_msg("%s", cause);
   SessionEvent_done(&e);
   Network_done(&net);
   return m;
}

/* ... on the simulated h100_sxm */
static Maker makeSession(const char *name, const char *networkFile, const char *const *keys) {
   return makeSessionOn(name, networkFile, keys, true);
}

static void add(Maker *m, const SessionEvent *e) {
   char *cause = NULL;
   if (SessionWriter_add(m->w, e, &cause) != 0)
      fail_msg("%s", cause);
}

static void addRound(Maker *m, double t, int task) {
   m->round++;
   add(m, &(SessionEvent){ .kind = SESSION_ROUND, .round = m->round, .elapsed = t,
                           .roundStart = { .task = task, .trials = 0 } });
}

static void addMeasure(Maker *m, double t, int task, const char *state, const double *costs, int n,
                       const char *error, const char *message) {
   SessionEvent e = { .kind = SESSION_MEASURE, .round = m->round, .elapsed = t,
                      .measure = { .task = task, .state = xStrdup(state), .ncosts = n,
                                   .error = xStrdup(error), .message = xStrdup(message),
                                   .lineage = xStrdup("random"), .draftScore = NAN, .verifyScore = 0.5 } };
   memcpy(e.measure.costs, costs, (size_t)n * sizeof *costs);
   add(m, &e);
   SessionEvent_done(&e);
}

static void addRoundEnd(Maker *m, double t, int trials, double latencyMs) {
   add(m, &(SessionEvent){ .kind = SESSION_ROUND_END, .round = m->round, .elapsed = t,
                           .roundEnd = { .trials = trials, .latencyMs = latencyMs, .acceptance = 1,
                                         .tau = NAN } });
}

static char *finish(Maker *m) {
   char *cause = NULL;
   if (SessionWriter_close(m->w, &cause) != 0)
      fail_msg("%s", cause);
   return m->path;
}

static void readLog(const char *path, SessionLog *log) {
   SessionLog_init(log);
   char *cause = NULL, *notice = NULL;
   if (Session_read(path, log, &notice, &cause) != 0)
      fail_msg("%s", cause);
   assert_null(notice);
}

/* State text of a valid state of tiny2's task `task`, sampled with the seed. */
static char *sampleState(int task, uint64_t seed) {
   Network net;
   TestUtil_loadNetwork(&net, "tests/data/tiny2.task");
   SketchSet set;
   SketchSet_forOp(&set, &net.tasks[task].op);
   SchedLimits lim;
   SchedLimits_default(&lim);
   Rng rng;
   Rng_seed(&rng, seed);
   State s;
   char *cause = NULL;
   if (State_sampleValid(&set, -1, &rng, &lim, 100000, &s, &cause) != 0)
      fail_msg("%s", cause);
   char text[4096];
   State_format(&set, &s, text, sizeof text);
   SketchSet_done(&set);
   Network_done(&net);
   return xStrdup(text);
}

/* ---- the session most tests use ----
 * line 1  header
 *      2  round 1, task 0
 *      3  measure: state A, ok, mean 3 x 2^-19
 *      4  measure: state B, ok, mean 2^-18          <- task 0's best
 *      5  measure: state C, compile error
 *      6  round_end at 0.4 s: 3 trials, no latency yet
 *      7  round 2, task 1
 *      8  measure: state D, ok, mean 2^-17          <- task 1's best, the earlier of equals
 *      9  measure: state E, ok, mean 2^-17
 *     10  measure: state F, run timeout
 *     11  round_end at 12.6 s: 6 trials, 0.0123456 ms
 *     12  round_end at 99.5 s: 6 trials, 1234.5678 ms
 *     13  finished */
typedef struct {
   char *path;
   char *state[6];              /* A to F */
   double costs[6][3];
   int ncosts[6];
} Fixture;

static Fixture fixture;

static const char *const errorOf[6] = { "ok", "ok", "compile error", "ok", "ok", "run timeout" };
static const char *const messageOf[6] = { "", "", "T_dense.cu(4): error: expected a ';'", "", "",
                                          "ran past 10 s" };
static const int taskOf[6] = { 0, 0, 0, 1, 1, 1 };
static const double elapsedOf[6] = { 0.1, 0.2, 0.3, 1.5, 1.75, 2.999 };

/* Makes the fixture the first time a test asks for it. */
static void useFixture(void) {
   Fixture *f = &fixture;
   if (f->path)
      return;
   for (int i = 0; i < 6; i++)
      f->state[i] = sampleState(taskOf[i], 11 + (uint64_t)i);
   const double two19 = ldexp(1, -19);
   const double costs[6][3] = {
      { 2 * two19, 4 * two19 },           /* mean 3 x 2^-19 */
      { two19, 3 * two19 },               /* mean 2^-18 */
      { MEASURE_FAILED_COST },
      { 4 * two19, 4 * two19, 4 * two19 },/* mean 2^-17 */
      { 3 * two19, 5 * two19 },           /* mean 2^-17 */
      { MEASURE_FAILED_COST },
   };
   const int ncosts[6] = { 2, 2, 1, 3, 2, 1 };
   memcpy(f->costs, costs, sizeof costs);
   memcpy(f->ncosts, ncosts, sizeof ncosts);
   Maker m = makeSession("fixture.jsonl", NULL, NULL);
   addRound(&m, 0.05, 0);
   for (int i = 0; i < 3; i++)
      addMeasure(&m, elapsedOf[i], 0, f->state[i], f->costs[i], f->ncosts[i], errorOf[i], messageOf[i]);
   addRoundEnd(&m, 0.4, 3, NAN);
   addRound(&m, 1.2, 1);
   for (int i = 3; i < 6; i++)
      addMeasure(&m, elapsedOf[i], 1, f->state[i], f->costs[i], f->ncosts[i], errorOf[i], messageOf[i]);
   addRoundEnd(&m, 12.6, 6, 0.0123456);
   addRoundEnd(&m, 99.5, 6, 1234.5678);
   add(&m, &(SessionEvent){ .kind = SESSION_FINISHED, .round = m.round, .elapsed = 100,
                            .finished = { .why = SESSION_END_BUDGET } });
   f->path = finish(&m);
}

/* The fixture's session, read. */
static void readFixture(SessionLog *log) {
   useFixture();
   readLog(fixture.path, log);
}

static void freeFixture(void) {
   for (int i = 0; i < 6; i++)
      free(fixture.state[i]);
   free(fixture.path);
   memset(&fixture, 0, sizeof fixture);
}

static void assertRecordIsMeasure(const Record *r, int i, const SessionHeader *h) {
   const Fixture *f = &fixture;
   assert_string_equal(r->task, h->tasks[taskOf[i]]);
   assert_string_equal(r->device, "h100_sxm");
   assert_true(r->simulated);
   assert_string_equal(r->state, f->state[i]);
   assert_int_equal(r->ncosts, f->ncosts[i]);
   assert_memory_equal(r->costs, f->costs[i], (size_t)f->ncosts[i] * sizeof(double));
   assert_string_equal(MeasureError_name(r->error), errorOf[i]);
   assert_string_equal(r->message, messageOf[i]);
   assert_int_equal(r->registers, -1);
   /* the start plus the whole seconds of the event's time */
   assert_true(r->timestamp == START + (int64_t)floor(elapsedOf[i]));
}

static void test_records(void **state) {
   (void)state;
   SessionLog log;
   readFixture(&log);
   RecordSet set;
   RecordSet_init(&set);
   char *cause = NULL;
   if (Export_records(&log, fixture.path, &set, &cause) != 0)
      fail_msg("%s", cause);
   assert_int_equal(set.count, 6);
   for (int i = 0; i < 6; i++)
      assertRecordIsMeasure(&set.records[i], i, &log.events[0].header);
   assert_int_equal(set.records[2].error, MEASURE_COMPILE_ERROR);
   assert_int_equal(set.records[5].error, MEASURE_RUN_TIMEOUT);
   assert_true(set.records[5].timestamp == START + 2);

   /* written as the records writer writes them and read back the same */
   char *path = xAsprintf("%s/exported.records", TestUtil_groupDir);
   remove(path);
   RecordWriter *w = RecordWriter_open(path, &cause);
   if (!w)
      fail_msg("%s", cause);
   for (int i = 0; i < set.count; i++)
      if (RecordWriter_append(w, &set.records[i], &cause) != 0)
         fail_msg("%s", cause);
   if (RecordWriter_close(w, &cause) != 0)
      fail_msg("%s", cause);
   RecordSet back;
   RecordSet_init(&back);
   char *notice = NULL;
   if (Records_read(path, &back, &notice, &cause) != 0)
      fail_msg("%s", cause);
   assert_null(notice);
   assert_int_equal(back.count, 6);
   for (int i = 0; i < 6; i++)
      assertRecordIsMeasure(&back.records[i], i, &log.events[0].header);
   RecordSet_done(&back);
   RecordSet_done(&set);
   free(path);
   SessionLog_done(&log);
}

/* A measure on a GPU keeps in its record what the session has of it: its build and run
 * seconds and the reasons the GPU throttled while it ran. */
static void test_recordsKeepGpuFields(void **state) {
   (void)state;
   useFixture();
   Maker m = makeSessionOn("gpu.jsonl", NULL, NULL, false);
   addRound(&m, 0.05, 0);
   const double cost = ldexp(1, -18);
   SessionEvent e = { .kind = SESSION_MEASURE, .round = m.round, .elapsed = 1.25,
                      .measure = { .task = 0, .state = xStrdup(fixture.state[0]), .ncosts = 1, .costs = { cost },
                                   .error = xStrdup("ok"), .message = xStrdup(""), .lineage = xStrdup("random"),
                                   .draftScore = NAN, .verifyScore = NAN, .buildSeconds = 0.25,
                                   .runSeconds = 0.0015,
                                   .throttled = GPU_THROTTLE_POWER_CAP | GPU_THROTTLE_HW_THERMAL } };
   add(&m, &e);
   SessionEvent_done(&e);
   char *path = finish(&m);
   SessionLog log;
   readLog(path, &log);
   RecordSet set;
   RecordSet_init(&set);
   char *cause = NULL;
   if (Export_records(&log, path, &set, &cause) != 0)
      fail_msg("%s", cause);
   assert_int_equal(set.count, 1);
   const Record *r = &set.records[0];
   assert_false(r->simulated);
   assert_true(r->compileSeconds == 0.25);
   assert_true(r->runSeconds == 0.0015);
   assert_int_equal(r->throttled, GPU_THROTTLE_POWER_CAP | GPU_THROTTLE_HW_THERMAL);
   char *json = Record_toJson(r);
   assert_non_null(strstr(json, "\"throttled\":[\"power_cap\",\"hw_thermal\"]"));
   free(json);
   RecordSet_done(&set);
   SessionLog_done(&log);
   free(path);
}

static void test_curve(void **state) {
   (void)state;
   SessionLog log;
   readFixture(&log);
   int lines = -1;
   char *curve = Export_curve(&log, &lines);
   assert_int_equal(lines, 3);
   assert_string_equal(curve,
                       "ElapsedTime(s)\t0\tEstimatedLatency(ms)\tN/A\tTrials\t3\n"
                       "ElapsedTime(s)\t13\tEstimatedLatency(ms)\t0.012\tTrials\t6\n"
                       "ElapsedTime(s)\t100\tEstimatedLatency(ms)\t1234.568\tTrials\t6\n");
   free(curve);
   SessionLog_done(&log);

   /* a session without rounds has an empty curve */
   Maker m = makeSession("empty.jsonl", NULL, NULL);
   char *path = finish(&m);
   readLog(path, &log);
   curve = Export_curve(&log, &lines);
   assert_int_equal(lines, 0);
   assert_string_equal(curve, "");
   free(curve);
   free(path);
   SessionLog_done(&log);
}

static void test_bestMeasures(void **state) {
   (void)state;
   SessionLog log;
   readFixture(&log);
   int best[2];
   char *cause = NULL;
   if (Export_bestMeasures(&log, fixture.path, best, &cause) != 0)
      fail_msg("%s", cause);
   /* events: 0 header, 1 round, 2-4 A B C, 5 round_end, 6 round, 7-9 D E F */
   assert_int_equal(best[0], 3);
   assert_int_equal(best[1], 7);
   assert_int_equal(log.events[3].line, 4);
   assert_int_equal(log.events[7].line, 8);
   SessionLog_done(&log);

   /* a failed measure cheaper than any other is no best; a task with none has -1 */
   const double cheap = 1e-9, dear = 1e-3;
   Maker m = makeSession("failed-cheaper.jsonl", NULL, NULL);
   addRound(&m, 0, 1);
   addMeasure(&m, 0.1, 1, fixture.state[3], &dear, 1, "ok", "");
   addMeasure(&m, 0.2, 1, fixture.state[4], &cheap, 1, "wrong answer", "off by 3");
   addMeasure(&m, 0.3, 1, fixture.state[5], &cheap, 1, "runtime error", "");
   char *path = finish(&m);
   readLog(path, &log);
   if (Export_bestMeasures(&log, path, best, &cause) != 0)
      fail_msg("%s", cause);
   assert_int_equal(best[0], -1);
   assert_int_equal(best[1], 2);
   SessionLog_done(&log);
   free(path);
}

/* The kernel of task `task`'s state `text` as lowering makes it, compared with what
 * the export wrote. */
static void assertLaunchIsLowering(const ExportedKernel *k, const Network *net, const char *text) {
   SketchSet set;
   SketchSet_forOp(&set, &net->tasks[k->task].op);
   SchedLimits lim;
   SchedLimits_default(&lim);
   State s;
   char *cause = NULL;
   if (State_parse(&set, text, &lim, &s, &cause) != 0)
      fail_msg("%s", cause);
   LoopNest ln;
   LoopNest_init(&ln);
   Lower_state(&set, &s, &ln);

   /* the source is the generated code under a comment */
   char *body = Cuda_generate(&ln, NULL);
   size_t nsrc = strlen(k->source), nbody = strlen(body);
   assert_true(nsrc > nbody);
   assert_string_equal(k->source + nsrc - nbody, body);
   assert_memory_equal(k->source, "// pruner-tui ", 14);
   free(body);

   cJSON *root = cJSON_Parse(k->launch);
   assert_non_null(root);
   assert_int_equal(k->nkernels, ln.nkernels);
   const cJSON *kernels = cJSON_GetObjectItemCaseSensitive(root, "kernels");
   assert_int_equal(cJSON_GetArraySize(kernels), ln.nkernels);
   for (int i = 0; i < ln.nkernels; i++) {
      const IrKernel *kn = &ln.kernels[i];
      const cJSON *o = cJSON_GetArrayItem(kernels, i);
      assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "name")->valuestring, kn->name);
      const cJSON *grid = cJSON_GetObjectItemCaseSensitive(o, "grid");
      const cJSON *block = cJSON_GetObjectItemCaseSensitive(o, "block");
      assert_int_equal(cJSON_GetArraySize(grid), 3);
      assert_int_equal(cJSON_GetArraySize(block), 3);
      assert_true(cJSON_GetArrayItem(grid, 0)->valuedouble == (double)kn->grid);
      assert_true(cJSON_GetArrayItem(block, 0)->valuedouble == (double)kn->block);
      for (int d = 1; d < 3; d++) {
         assert_true(cJSON_GetArrayItem(grid, d)->valuedouble == 1);
         assert_true(cJSON_GetArrayItem(block, d)->valuedouble == 1);
      }
      assert_true(cJSON_GetObjectItemCaseSensitive(o, "shared_bytes")->valuedouble == (double)kn->sharedBytes);
      assert_true(cJSON_GetObjectItemCaseSensitive(o, "dynamic_shared_bytes")->valuedouble == 0);
      const cJSON *args = cJSON_GetObjectItemCaseSensitive(o, "args");
      assert_int_equal(cJSON_GetArraySize(args), kn->nparams);
      for (int p = 0; p < kn->nparams; p++)
         assert_string_equal(cJSON_GetArrayItem(args, p)->valuestring, ln.buffers[kn->params[p]].name);
   }
   int nglobal = 0;
   const cJSON *buffers = cJSON_GetObjectItemCaseSensitive(root, "buffers");
   for (int b = 0; b < ln.nbuffers; b++) {
      if (ln.buffers[b].scope != SCOPE_GLOBAL)
         continue;
      const cJSON *o = cJSON_GetArrayItem(buffers, nglobal++);
      assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "name")->valuestring, ln.buffers[b].name);
      assert_true(cJSON_GetObjectItemCaseSensitive(o, "elements")->valuedouble == (double)ln.buffers[b].elems);
   }
   assert_int_equal(cJSON_GetArraySize(buffers), nglobal);
   cJSON_Delete(root);
   LoopNest_done(&ln);
   SketchSet_done(&set);
}

static const char *jsonString(const cJSON *root, const char *key) {
   const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, key);
   assert_true(cJSON_IsString(item));
   return item->valuestring;
}

static double jsonNumber(const cJSON *root, const char *key) {
   const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, key);
   assert_true(cJSON_IsNumber(item));
   return item->valuedouble;
}

/* Export_kernel for each task's best measure of the fixture into k[2]. */
static void exportFixture(SessionLog *log, Network *net, ExportedKernel k[2]) {
   readFixture(log);
   char *cause = NULL;
   if (Export_loadNetwork(log, fixture.path, NULL, net, &cause) != 0)
      fail_msg("%s", cause);
   DeviceSet devices;
   TestUtil_loadDevices(&devices);
   const Device *dev = DeviceSet_find(&devices, "h100_sxm");
   assert_non_null(dev);
   SchedLimits lim;
   SchedLimits_fromDevice(&lim, dev);
   int best[2];
   if (Export_bestMeasures(log, fixture.path, best, &cause) != 0)
      fail_msg("%s", cause);
   for (int t = 0; t < 2; t++)
      if (Export_kernel(log, fixture.path, net, best[t], &lim, dev, &k[t], &cause) != 0)
         fail_msg("%s", cause);
   DeviceSet_done(&devices);
}

static void test_kernels(void **state) {
   (void)state;
   SessionLog log;
   Network net;
   ExportedKernel k[2];
   exportFixture(&log, &net, k);
   const char *stateOf[2] = { fixture.state[1], fixture.state[3] };
   const double latency[2] = { ldexp(1, -18), ldexp(1, -17) };
   const int round[2] = { 1, 2 };
   for (int t = 0; t < 2; t++) {
      assert_int_equal(k[t].task, t);
      char name[16];
      snprintf(name, sizeof name, "task-%d", t);
      assert_string_equal(k[t].name, name);
      assert_true(k[t].latency == latency[t]);
      assert_true(k[t].gflops == net.tasks[t].flops / latency[t] / 1e9);
      assertLaunchIsLowering(&k[t], &net, stateOf[t]);

      cJSON *root = cJSON_Parse(k[t].launch);
      assert_non_null(root);
      assert_true(jsonNumber(root, "task") == t);
      assert_string_equal(jsonString(root, "network"), "tiny2");
      assert_string_equal(jsonString(root, "key"), net.tasks[t].key);
      assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(root, "label")));
      assert_string_equal(jsonString(root, "op"), t == 0 ? "dense" : "conv2d");
      assert_string_equal(jsonString(root, "device"), "h100_sxm");
      assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "simulated")));
      assert_string_equal(jsonString(root, "arch"), "sm_90");
      assert_true(jsonNumber(root, "latency_s") == latency[t]);
      assert_true(jsonNumber(root, "gflops") == k[t].gflops);
      assert_true(jsonNumber(root, "round") == round[t]);
      assert_string_equal(jsonString(root, "state"), stateOf[t]);
      snprintf(name, sizeof name, "task-%d.cu", t);
      assert_string_equal(jsonString(root, "source"), name);
      cJSON_Delete(root);
      ExportedKernel_done(&k[t]);
   }
   /* tiny2's dense: 2 x 16 x 64 x 32 multiply-adds and the bias */
   assert_true(net.tasks[0].flops == 2.0 * 16 * 64 * 32 + 16 * 64);
   Network_done(&net);
   SessionLog_done(&log);
}

/* ---- bad sessions ---- */

static char *sessionWithMeasure(const char *name, int task, const char *text, double cost, const char *error) {
   Maker m = makeSession(name, NULL, NULL);
   addRound(&m, 0, 0);
   addMeasure(&m, 0.5, task, text, &cost, 1, error, "");
   return finish(&m);
}

/* rc is -1 and *cause is want; *cause is freed. */
static void assertCause(int rc, char **cause, const char *want) {
   assert_int_equal(rc, -1);
   assert_non_null(*cause);
   assert_string_equal(*cause, want);
   free(*cause);
   *cause = NULL;
}

static void test_garbageState(void **state) {
   (void)state;
   useFixture();
   char *path = sessionWithMeasure("garbage.jsonl", 0, "garbage", 1e-5, "ok");
   SessionLog log;
   readLog(path, &log);
   Network net;
   char *cause = NULL;
   if (Export_loadNetwork(&log, path, NULL, &net, &cause) != 0)
      fail_msg("%s", cause);
   int best[2];
   if (Export_bestMeasures(&log, path, best, &cause) != 0)
      fail_msg("%s", cause);
   assert_int_equal(best[0], 2);
   SchedLimits lim;
   SchedLimits_default(&lim);
   ExportedKernel k;
   char *want = xAsprintf("%s:3: task 0: state: not valid JSON: parsing stopped at character 1 ('garbage')", path);
   assertCause(Export_kernel(&log, path, &net, best[0], &lim, NULL, &k, &cause), &cause, want);
   assert_null(k.source);
   free(want);

   /* a state of the other task's sketches is no state of this one */
   SessionLog_done(&log);
   free(path);
   path = sessionWithMeasure("other-task.jsonl", 0, fixture.state[3], 1e-5, "ok");
   readLog(path, &log);
   char *why = NULL;
   SketchSet set;
   SketchSet_forOp(&set, &net.tasks[0].op);
   State s;
   assert_int_equal(State_parse(&set, fixture.state[3], &lim, &s, &why), -1);
   want = xAsprintf("%s:3: task 0: %s", path, why);
   assertCause(Export_kernel(&log, path, &net, 2, &lim, NULL, &k, &cause), &cause, want);
   free(want);
   free(why);
   SketchSet_done(&set);
   Network_done(&net);
   SessionLog_done(&log);
   free(path);
}

static void test_badMeasures(void **state) {
   (void)state;
   useFixture();
   SessionLog log;
   RecordSet set;
   RecordSet_init(&set);
   int best[2];
   char *cause = NULL;

   char *path = sessionWithMeasure("task5.jsonl", 5, fixture.state[0], 1e-5, "ok");
   readLog(path, &log);
   char *want = xAsprintf("%s:3: task 5 is not one of the header's 2 tasks (0 to 1)", path);
   assertCause(Export_records(&log, path, &set, &cause), &cause, want);
   assert_int_equal(set.count, 0);
   assertCause(Export_bestMeasures(&log, path, best, &cause), &cause, want);
   free(want);
   SessionLog_done(&log);
   free(path);

   path = sessionWithMeasure("kind.jsonl", 0, fixture.state[0], 1e-5, "exploded");
   readLog(path, &log);
   want = xAsprintf("%s:3: \"error\": expected one of \"ok\", \"instantiation error\", \"compile error\", "
                    "\"load error\", \"runtime error\", \"wrong answer\", \"build timeout\", \"run timeout\", "
                    "\"unknown error\", found \"exploded\"", path);
   assertCause(Export_records(&log, path, &set, &cause), &cause, want);
   free(want);
   SessionLog_done(&log);
   free(path);

   /* costs no record may hold: the record's rule, named */
   path = sessionWithMeasure("negative.jsonl", 0, fixture.state[0], -1, "ok");
   readLog(path, &log);
   Record r = { .task = xStrdup("t"), .device = xStrdup("d"), .state = xStrdup("s"), .ncosts = 1,
                .costs = { -1 }, .message = xStrdup(""), .registers = -1, .timestamp = START };
   char *why = NULL;
   assert_int_equal(Record_validate(&r, &why), -1);
   Record_done(&r);
   want = xAsprintf("%s:3: not a valid record: %s", path, why);
   assertCause(Export_records(&log, path, &set, &cause), &cause, want);
   free(want);
   free(why);
   SessionLog_done(&log);
   free(path);
   RecordSet_done(&set);
}

static void test_network(void **state) {
   (void)state;
   Network tiny;
   TestUtil_loadNetwork(&tiny, "tests/data/tiny2.task");
   char *tinyPath = TestUtil_srcPath("tests/data/tiny2.task");
   SessionLog log;
   Network net;
   char *cause = NULL;

   /* a task key the network does not have */
   const char *keys[2] = { tiny.tasks[0].key, "dense_b1_m1_n1_k1" };
   Maker m = makeSession("keys.jsonl", NULL, keys);
   char *path = finish(&m);
   readLog(path, &log);
   char *want = xAsprintf("%s:1: task 1 is dense_b1_m1_n1_k1 in the header but %s in %s", path,
                          tiny.tasks[1].key, tinyPath);
   assertCause(Export_loadNetwork(&log, path, NULL, &net, &cause), &cause, want);
   free(want);
   /* another task file than the header's, with other tasks */
   char *resnet = TestUtil_srcPath("models/resnet_18.task");
   want = xAsprintf("%s:1: the header lists 2 tasks but %s has ", path, resnet);
   assert_int_equal(Export_loadNetwork(&log, path, resnet, &net, &cause), -1);
   assert_memory_equal(cause, want, strlen(want));
   free(cause);
   free(want);
   SessionLog_done(&log);
   free(path);

   /* a network file that is gone, with no task file of its name to fall back on */
   m = makeSession("gone.jsonl", "/nonexistent/tiny2.task", NULL);
   path = finish(&m);
   readLog(path, &log);
   want = xAsprintf("%s:1: its network file: /nonexistent/tiny2.task: cannot open: No such file or directory",
                    path);
   assertCause(Export_loadNetwork(&log, path, NULL, &net, &cause), &cause, want);
   free(want);
   /* the task file given instead */
   if (Export_loadNetwork(&log, path, tinyPath, &net, &cause) != 0)
      fail_msg("%s", cause);
   assert_int_equal(net.ntasks, 2);
   Network_done(&net);
   SessionLog_done(&log);
   free(path);

   /* a moved shipped network is found by its name in the data directory */
   Network r18;
   TestUtil_loadNetwork(&r18, "models/resnet_18.task");
   SessionEvent e = { .kind = SESSION_HEADER,
                      .header = { .network = xStrdup("resnet_18"),
                                  .networkFile = xStrdup("/moved/away/resnet_18.task"),
                                  .device = xStrdup("a100_40"), .policy = xStrdup("ansor"),
                                  .costModel = xStrdup("pam"), .trialBudget = 1, .measuresPerRound = 1,
                                  .ntasks = r18.ntasks } };
   e.header.tasks = xCalloc((size_t)r18.ntasks, sizeof *e.header.tasks);
   for (int t = 0; t < r18.ntasks; t++)
      e.header.tasks[t] = xStrdup(r18.tasks[t].key);
   path = xAsprintf("%s/moved.jsonl", TestUtil_groupDir);
   remove(path);
   SessionWriter *w = SessionWriter_open(path, &e.header, &cause);
   if (!w || SessionWriter_close(w, &cause) != 0)
      fail_msg("%s", cause);
   SessionEvent_done(&e);
   readLog(path, &log);
   if (Export_loadNetwork(&log, path, NULL, &net, &cause) != 0)
      fail_msg("%s", cause);
   assert_int_equal(net.ntasks, r18.ntasks);
   assert_non_null(strstr(net.path, "models/resnet_18.task"));
   Network_done(&net);
   Network_done(&r18);
   SessionLog_done(&log);
   free(path);
   free(resnet);
   free(tinyPath);
   Network_done(&tiny);
}

/* NVRTC compiles the exported sources; the kernels' names are the JSON's. */
static void test_kernelsCompile(void **state) {
   (void)state;
   SessionLog log;
   Network net;
   ExportedKernel k[2];
   exportFixture(&log, &net, k);
   for (int t = 0; t < 2; t++) {
      NvrtcResult r;
      char *cause = NULL;
      if (Nvrtc_compile(k[t].source, "task.cu", "sm_90", &r, &cause) != 0)
         fail_msg("task %d: %s", t, cause);
      assert_int_equal(r.nkernels, k[t].nkernels);
      cJSON *root = cJSON_Parse(k[t].launch);
      const cJSON *kernels = cJSON_GetObjectItemCaseSensitive(root, "kernels");
      for (int i = 0; i < k[t].nkernels; i++)
         assert_non_null(NvrtcResult_kernel(&r, jsonString(cJSON_GetArrayItem(kernels, i), "name")));
      cJSON_Delete(root);
      NvrtcResult_done(&r);
      ExportedKernel_done(&k[t]);
   }
   Network_done(&net);
   SessionLog_done(&log);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_records),
      cmocka_unit_test(test_recordsKeepGpuFields),
      cmocka_unit_test(test_curve),
      cmocka_unit_test(test_bestMeasures),
      cmocka_unit_test(test_kernels),
      cmocka_unit_test(test_garbageState),
      cmocka_unit_test(test_badMeasures),
      cmocka_unit_test(test_network),
      /* From here on NVRTC is needed. */
      cmocka_unit_test(test_kernelsCompile),
   };
   TestUtil_setUpGroupDir(NULL);
   int rc = TestUtil_runGroup("export", tests, sizeof tests / sizeof tests[0], 7);
   freeFixture();
   TestUtil_tearDownGroupDir(NULL);
   return rc;
}
