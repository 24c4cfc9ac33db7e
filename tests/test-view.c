/* The view model: a handmade run folded event by event (bests, trials, errors, the
 * lineages, the model's fits, the curves, NAN latency until every task has a cost, the
 * end), the commands (applied ones change priorities, focus, budget and model; refused
 * ones nothing), events it must pass over, the task file found and checked, and the
 * scheduler's table printed from the view. */
#include "config.h"

#include "testutil.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tune/front.h"
#include "tune/view.h"
#include "util/xalloc.h"

/* ---- events, their strings owned as a session log's are ---- */

static SessionHeader header(const char *networkFile, int ntasks, const char *const *keys) {
   SessionHeader h = {
      .version = SESSION_FORMAT_VERSION,
      .network = xStrdup("net"),
      .networkFile = xStrdup(networkFile),
      .device = xStrdup("h100_sxm"),
      .simulated = true,
      .policy = xStrdup("pruner"),
      .costModel = xStrdup("pam"),
      .trialBudget = 20,
      .measuresPerRound = 2,
      .seed = 7,
      .startTime = 1700000000,
      .ntasks = ntasks,
      .tasks = xCalloc((size_t)ntasks, sizeof(char *)),
   };
   for (int i = 0; i < ntasks; i++)
      h.tasks[i] = xStrdup(keys[i]);
   return h;
}

static void doneHeader(SessionHeader *h) {
   SessionEvent e = { .kind = SESSION_HEADER, .header = *h };
   SessionEvent_done(&e);
}

/* applies the event and frees it */
static void feed(TuneView *v, SessionEvent e) {
   TuneView_apply(v, &e);
   SessionEvent_done(&e);
}

static SessionEvent roundStart(int round, double t, int task, int trials) {
   return (SessionEvent){ .kind = SESSION_ROUND, .round = round, .elapsed = t,
                          .roundStart = { .task = task, .trials = trials } };
}

static SessionEvent measure(int round, double t, int task, const char *error, const char *lineage, double c0,
                            double c1) {
   SessionEvent e = { .kind = SESSION_MEASURE, .round = round, .elapsed = t,
                      .measure = { .task = task, .state = xStrdup("{}"), .ncosts = c1 > 0 ? 2 : 1,
                                   .costs = { c0, c1 }, .error = xStrdup(error), .message = xStrdup(""),
                                   .lineage = xStrdup(lineage), .draftScore = NAN, .verifyScore = NAN } };
   return e;
}

static SessionEvent model(int round, double t, double seconds, int samples, const char *error) {
   return (SessionEvent){ .kind = SESSION_MODEL, .round = round, .elapsed = t,
                          .model = { .seconds = seconds, .samples = samples, .error = xStrdup(error) } };
}

static SessionEvent best(int round, double t, int task, double latency) {
   return (SessionEvent){ .kind = SESSION_BEST, .round = round, .elapsed = t,
                          .best = { .task = task, .latency = latency } };
}

/* command events, applied or refused, of the texts up to a NULL */
static void commands(TuneView *v, int round, double t, bool applied, ...) {
   va_list ap;
   va_start(ap, applied);
   for (const char *text; (text = va_arg(ap, const char *)) != NULL;)
      feed(v, (SessionEvent){ .kind = SESSION_COMMAND, .round = round, .elapsed = t,
                              .command = { .text = xStrdup(text), .applied = applied } });
   va_end(ap);
}

/* the rank agreements: 0.75 and NAN when acceptance is defined, else NAN and 0.5 */
static SessionEvent roundEnd(int round, double t, int trials, double latencyMs, double acceptance, double tau) {
   bool a = !isnan(acceptance);
   return (SessionEvent){ .kind = SESSION_ROUND_END, .round = round, .elapsed = t,
                          .roundEnd = { .trials = trials, .latencyMs = latencyMs, .acceptance = acceptance,
                                        .tau = tau, .draftRank = a ? 0.75 : NAN, .verifyRank = a ? NAN : 0.5 } };
}

static SessionEvent finished(int round, double t, SessionEnd why) {
   return (SessionEvent){ .kind = SESSION_FINISHED, .round = round, .elapsed = t, .finished = { .why = why } };
}

static void assertBits(double got, double want) {
   if (memcmp(&got, &want, sizeof got) != 0 && !(isnan(got) && isnan(want)))
      fail_msg("got %.17g, expected %.17g", got, want);
}

static const char *const abKeys[2] = { "a", "b" };

/* A task's counts and best (also its least mean in these runs), and a round's point,
 * compared as text: one readable message names every field that differs, NANs
 * included. */
#define TASK_FORMAT "trials %d ok %d errors %d best %.17g least mean %.17g round %d"
#define POINT_FORMAT "round %d at %.17g trials %d latency %.17g ms acceptance %.17g tau %.17g"

static void assertTask(const TuneTaskView *t, int trials, int ok, int errors, double best, int bestRound) {
   char got[160], want[160];
   snprintf(got, sizeof got, TASK_FORMAT, t->trials, t->ok, t->errors, t->best, t->leastMean, t->bestRound);
   snprintf(want, sizeof want, TASK_FORMAT, trials, ok, errors, best, best, bestRound);
   assert_string_equal(got, want);
}

static void assertPoint(const TuneRoundPoint *p, int round, double elapsed, int trials, double latencyMs,
                        double acceptance, double tau) {
   char got[160], want[160];
   snprintf(got, sizeof got, POINT_FORMAT, p->round, p->elapsed, p->trials, p->latencyMs, p->acceptance, p->tau);
   snprintf(want, sizeof want, POINT_FORMAT, round, elapsed, trials, latencyMs, acceptance, tau);
   assert_string_equal(got, want);
}

/* The table as a replay prints it is the title, these rows, the rule and this total. */
static void assertTable(const TuneView *v, const char *rows, const char *total) {
   SchedulerSnapshot snap = { 0 };
   TuneView_snapshot(v, &snap);
   const char *descs[2] = { TuneView_describe(v, 0), TuneView_describe(v, 1) };
   char *text = TestUtil_tableText(&snap, descs, v->elapsed, -1);
   char *want = xAsprintf("%s%s%s%s", TESTUTIL_TABLE_TITLE, rows, TESTUTIL_TABLE_RULE, total);
   assert_string_equal(text, want);
   free(want);
   free(text);
   SchedulerSnapshot_done(&snap);
}

/* a view of a run of tasks "a" and "b", budget 20, 2 per round, without a task file */
static void openView(TuneView *v) {
   SessionHeader h = header("nowhere/net.task", 2, abKeys);
   TuneView_init(v, &h, NULL);
   doneHeader(&h);
}

/* costs that are exact in binary, so that means and sums are exact too */
#define C9 0.001953125          /* 2^-9 */
#define C8 0.00390625           /* 2^-8 */
#define C10 0.0009765625        /* 2^-10 */
#define C11 0.00048828125       /* 2^-11 */

/* ---- a run without its task file ---- */

static void test_run(void **state) {
   (void)state;
   TuneView v;
   openView(&v);
   assert_string_equal(v.network, "net");
   assert_string_equal(v.device, "h100_sxm");
   assert_true(v.simulated);
   assert_string_equal(v.policy, "pruner");
   assert_string_equal(v.costModel, "pam");
   assert_int_equal(v.budget, 20);
   assert_int_equal(v.measuresPerRound, 2);
   assert_true(v.seed == 7);
   assert_false(v.fromTaskFile);
   assert_int_equal(v.ntasks, 2);
   assert_string_equal(v.tasks[1].key, "b");
   assert_null(v.tasks[1].label);
   assertBits(v.tasks[0].weight, 1);
   assert_true(isnan(v.tasks[0].flops));
   assert_true(isnan(v.tasks[0].best));
   assert_int_equal(v.roundTask, -1);
   assert_true(isnan(v.latencyMs));
   assert_true(isnan(v.modelSeconds));

   /* round 1: task 0, one success and one failure */
   feed(&v, roundStart(1, 0.5, 0, 0));
   assert_int_equal(v.rounds, 1);
   assert_int_equal(v.roundTask, 0);
   assert_int_equal(v.tasks[0].lastRound, 1);
   feed(&v, measure(1, 1.0, 0, "ok", "draft", C9, C8));
   feed(&v, measure(1, 1.5, 0, "compile error", "mutant", 1e10, 0));
   feed(&v, model(1, 2.0, 0.25, 1, ""));
   feed(&v, best(1, 2.0, 0, (C9 + C8) / 2));
   feed(&v, roundEnd(1, 2.5, 2, NAN, 0.5, NAN));
   assert_int_equal(v.trials, 2);
   assertTask(&v.tasks[0], 2, 1, 1, 0.0029296875, 1);
   assert_true(v.roundImproved);
   /* task 1 has no cost yet */
   assert_true(isnan(v.latencyMs));
   assert_int_equal(v.nseries, 1);
   assertPoint(&v.series[0], 1, 2.5, 2, NAN, 0.5, NAN);
   assert_int_equal(v.tasks[0].ncurve, 1);
   assert_int_equal(v.tasks[0].curve[0].trials, 2);
   assert_int_equal(v.tasks[0].curve[0].taskTrials, 2);
   assertBits(v.tasks[0].curve[0].elapsed, 2.0);
   assertBits(v.tasks[0].curve[0].latency, 0.0029296875);

   /* commands between the rounds: the refused one changes nothing */
   commands(&v, 1, 3.0, true, "prio 1 2.5", "pause 0", NULL);
   commands(&v, 1, 3.0, false, "prio 0 7", "budget 0", NULL);
   commands(&v, 1, 3.0, true, "budget 30", NULL);
   assertBits(v.tasks[0].priority, 0);
   assertBits(v.tasks[1].priority, 2.5);
   assert_int_equal(v.budget, 30);
   assert_int_equal(v.commandsApplied, 3);
   assert_int_equal(v.commandsRefused, 2);
   assert_false(v.paused);

   /* round 2: task 1, two successes and a timeout of a lineage this view does not know */
   feed(&v, roundStart(2, 3.5, 1, 2));
   assert_false(v.roundImproved);
   feed(&v, measure(2, 4.0, 1, "ok", "random", C10, 0));
   feed(&v, measure(2, 4.5, 1, "ok", "measured", C11, C10));
   feed(&v, measure(2, 4.5, 1, "run timeout", "beam", 1e10, 0));
   feed(&v, model(2, 5.0, 0.5, 3, "diverged"));
   feed(&v, best(2, 5.0, 1, (C11 + C10) / 2));
   feed(&v, roundEnd(2, 5.5, 5, 3.662109375, NAN, 0.25));
   assert_int_equal(v.rounds, 2);
   assert_int_equal(v.round, 2);
   assert_int_equal(v.trials, 5);
   assertTask(&v.tasks[1], 3, 2, 1, 0.000732421875, 2);
   assertTask(&v.tasks[0], 2, 1, 1, 0.0029296875, 1);
   assert_true(v.roundImproved);
   assertBits(v.latencyMs, 3.662109375);
   assert_int_equal(v.tasks[1].ncurve, 1);
   assert_int_equal(v.tasks[1].curve[0].trials, 5);
   assert_int_equal(v.tasks[1].curve[0].taskTrials, 3);
   assert_int_equal(v.nseries, 2);
   assertPoint(&v.series[0], 1, 2.5, 2, NAN, 0.5, NAN);
   assertPoint(&v.series[1], 2, 5.5, 5, 3.662109375, NAN, 0.25);
   assert_int_equal(v.lineages[LINEAGE_DRAFT], 1);
   assert_int_equal(v.lineages[LINEAGE_MUTANT], 1);
   assert_int_equal(v.lineages[LINEAGE_RANDOM], 1);
   assert_int_equal(v.lineages[LINEAGE_MEASURED], 1);
   assert_int_equal(v.lineages[TUNE_LINEAGE_OTHER], 1);
   assert_int_equal(v.modelFits, 2);
   assert_int_equal(v.modelFailures, 1);
   assert_int_equal(v.modelSamples, 3);
   assertBits(v.modelSeconds, 0.5);
   assert_string_equal(v.modelError, "diverged");
   assertBits(TuneMean_value(&v.acceptance), 0.5);
   assert_int_equal(v.acceptance.rounds, 1);
   assertBits(TuneMean_value(&v.tau), 0.25);
   assert_int_equal(v.tau.rounds, 1);
   assertBits(TuneMean_value(&v.draftRank), 0.75);
   assert_int_equal(v.draftRank.rounds, 1);
   assertBits(TuneMean_value(&v.verifyRank), 0.5);
   assert_int_equal(v.verifyRank.rounds, 1);
   assertBits(v.series[0].draftRank, 0.75);
   assert_true(isnan(v.series[1].draftRank));

   commands(&v, 2, 6.0, true, "model xgb", "stop", NULL);
   assert_string_equal(v.costModel, "xgb");
   assert_false(v.finished);
   feed(&v, finished(2, 6.75, SESSION_END_STOPPED));
   assert_true(v.finished);
   assert_int_equal(v.why, SESSION_END_STOPPED);
   assertBits(v.elapsed, 6.75);

   /* the table as Ansor's: trials are rounds x 2, no FLOPs without the task file */
   assertTable(&v,
      "|    0 |                                                             a |        2.930 |              - |      2 |\n"
      "|    1 |                                                             b |        0.732 |              - |      2 |\n",
      "Estimated total latency: 3.662 ms\tTrials: 5\tUsed time : 7 s\tNext ID: -1\t\n");
   SchedulerSnapshot snap = { 0 };
   TuneView_snapshot(&v, &snap);
   assert_int_equal(snap.ntasks, 2);
   assert_int_equal(snap.budget, 30);
   assert_int_equal(snap.measuresPerRound, 2);
   assertBits(snap.objective, 0.0029296875 + 0.000732421875);
   assert_true(snap.warmedUp);
   assert_int_equal(snap.stop, SCHED_GOING);
   assertBits(snap.tasks[0].priority, 0);
   assertBits(snap.tasks[1].priority, 2.5);
   assert_false(snap.tasks[1].dead);
   assert_true(isnan(snap.tasks[1].gradient));
   SchedulerSnapshot_done(&snap);

   /* --resume went on with it: not finished until its next end */
   feed(&v, (SessionEvent){ .kind = SESSION_RESUMED, .round = 2, .elapsed = 6.75,
                            .resumed = { .trials = 5, .notice = xStrdup("") } });
   assert_false(v.finished);
   feed(&v, finished(2, 7.5, SESSION_END_BUDGET));
   assert_true(v.finished);
   assert_int_equal(v.why, SESSION_END_BUDGET);
   TuneView_done(&v);
}

/* ---- the commands ---- */

static void test_commands(void **state) {
   (void)state;
   TuneView v;
   openView(&v);
   commands(&v, 0, 0, true, "pause 1", NULL);
   assert_false(v.paused);
   commands(&v, 0, 0, true, "pause 0", NULL);
   assert_true(v.paused);
   commands(&v, 0, 0, true, "resume 1", NULL);
   assert_false(v.paused);
   assertBits(v.tasks[1].priority, 1);
   /* only task 0 is focused, and it is paused */
   commands(&v, 0, 0, true, "focus 0", NULL);
   assert_true(v.tasks[0].focused);
   assert_false(v.tasks[1].focused);
   assert_true(v.paused);
   SchedulerSnapshot snap = { 0 };
   TuneView_snapshot(&v, &snap);
   assert_true(snap.focusActive);
   assert_false(snap.warmedUp);
   assert_int_equal(snap.stop, SCHED_NONE_ELIGIBLE);
   commands(&v, 0, 0, true, "focus off", "prio 0 0.5", NULL);
   assert_false(v.tasks[0].focused);
   assert_false(v.paused);
   assertBits(v.tasks[0].priority, 0.5);
   /* refused: nothing changes, however it reads; applied text that names no task of
    * this view, or has too many words, changes nothing either */
   commands(&v, 0, 0, false, "pause 1", "model mlp", "budget 3", NULL);
   commands(&v, 0, 0, true, "prio 2 3", "prio 1 3 4", "pause x", "budget -5", NULL);
   assertBits(v.tasks[0].priority, 0.5);
   assertBits(v.tasks[1].priority, 1);
   assert_string_equal(v.costModel, "pam");
   assert_int_equal(v.budget, 20);
   assert_int_equal(v.commandsApplied, 10);
   assert_int_equal(v.commandsRefused, 3);
   /* the budget spent */
   commands(&v, 0, 0, true, "budget 0", NULL);
   TuneView_snapshot(&v, &snap);
   assert_int_equal(snap.stop, SCHED_BUDGET_SPENT);
   SchedulerSnapshot_done(&snap);
   TuneView_done(&v);
}

/* Events naming a task the header lacks, and the header itself, change nothing. */
static void test_passesOver(void **state) {
   (void)state;
   TuneView v;
   openView(&v);
   SessionEvent he = { .kind = SESSION_HEADER, .header = header("other.task", 1, abKeys) };
   TuneView_apply(&v, &he);
   SessionEvent_done(&he);
   assert_int_equal(v.ntasks, 2);
   assert_string_equal(v.networkFile, "nowhere/net.task");
   feed(&v, roundStart(1, 1, 2, 0));
   feed(&v, measure(1, 1, 5, "ok", "draft", C9, 0));
   feed(&v, best(1, 1, 2, C9));
   assert_int_equal(v.rounds, 0);
   assert_int_equal(v.trials, 0);
   assert_int_equal(v.roundTask, -1);
   assert_int_equal(v.lineages[LINEAGE_DRAFT], 0);
   assert_int_equal(v.tasks[0].ncurve + v.tasks[1].ncurve, 0);
   /* a kind added after this view */
   SessionEvent later = { .kind = SESSION_EVENT_COUNT, .round = 1, .elapsed = 2 };
   TuneView_apply(&v, &later);
   assert_int_equal(v.rounds, 0);
   assertBits(v.elapsed, 2);
   TuneView_done(&v);
}

/* ---- with the task file ---- */

static SessionHeader tiny2Header(const char *networkFile, const char *second) {
   Network net;
   TestUtil_loadNetwork(&net, "tests/data/tiny2.task");
   const char *keys[2] = { net.tasks[0].key, second ? second : net.tasks[1].key };
   SessionHeader h = header(networkFile, 2, keys);
   Network_done(&net);
   return h;
}

static void test_taskFile(void **state) {
   (void)state;
   char *path = TestUtil_srcPath("tests/data/tiny2.task");
   SessionHeader h = tiny2Header(path, NULL);
   Network net;
   char *cause = NULL;
   if (TuneView_findNetwork(&h, &net, &cause) < 0)
      fail_msg("%s", cause);
   TuneView v;
   TuneView_init(&v, &h, &net);
   Network_done(&net);
   doneHeader(&h);
   assert_true(v.fromTaskFile);
   assertBits(v.tasks[0].weight, 2);
   assertBits(v.tasks[1].weight, 1);
   assertBits(v.tasks[0].flops, 66560);
   assertBits(v.tasks[1].flops, 149504);
   assert_string_equal(TuneView_describe(&v, 0), "dense_b1_m16_n64_k32+bias");

   feed(&v, roundStart(1, 0.1, 0, 0));
   feed(&v, measure(1, 0.2, 0, "ok", "random", 4e-6, 0));
   feed(&v, best(1, 0.3, 0, 4e-6));
   feed(&v, roundEnd(1, 0.4, 1, NAN, NAN, NAN));
   feed(&v, roundStart(2, 0.5, 1, 1));
   feed(&v, measure(2, 0.6, 1, "ok", "random", 8e-6, 0));
   feed(&v, best(2, 0.7, 1, 8e-6));
   feed(&v, roundEnd(2, 0.8, 2, 0.016, NAN, NAN));
   feed(&v, finished(2, 1.4, SESSION_END_BUDGET));
   assertTable(&v,
      "|    0 |                                     dense_b1_m16_n64_k32+bias |        0.004 |          16.64 |      2 |\n"
      "|    1 |   conv2d_n1_c8_h8_w8_k16_g1_r3x3_s1x1_p1,1,1,1_d1x1+bias+relu |        0.008 |          18.69 |      2 |\n",
      "Estimated total latency: 0.016 ms\tTrials: 2\tUsed time : 1 s\tNext ID: -1\t\n");
   SchedulerSnapshot snap = { 0 };
   TuneView_snapshot(&v, &snap);
   assertBits(snap.objective, 2 * 4e-6 + 8e-6);
   assert_int_equal(snap.stop, SCHED_BUDGET_SPENT);
   SchedulerSnapshot_done(&snap);
   TuneView_done(&v);
   free(path);
}

static void assertFindFails(const SessionHeader *h, const char *want) {
   Network net;
   char *cause = NULL;
   assert_int_equal(TuneView_findNetwork(h, &net, &cause), -1);
   assert_string_equal(cause, want);
   free(cause);
   assert_null(net.tasks);
}

static void test_taskFileChecked(void **state) {
   (void)state;
   char *path = TestUtil_srcPath("tests/data/tiny2.task");
   SessionHeader h = tiny2Header(path, "y");
   char *want = xAsprintf("%s: task 1 is conv2d_n1_c8_h8_w8_k16_g1_r3x3_s1x1_p1,1,1,1_d1x1+bias+relu, but the "
                          "session's is y", path);
   assertFindFails(&h, want);
   free(want);
   /* a task file whose tasks are not the header's is not used */
   Network net;
   TestUtil_loadNetwork(&net, "tests/data/tiny2.task");
   TuneView v;
   TuneView_init(&v, &h, &net);
   assert_false(v.fromTaskFile);
   assertBits(v.tasks[0].weight, 1);
   TuneView_done(&v);
   Network_done(&net);
   doneHeader(&h);

   h = header(path, 1, abKeys);
   want = xAsprintf("%s: 2 tasks, but the session has 1", path);
   assertFindFails(&h, want);
   free(want);
   doneHeader(&h);

   h = header("/nonexistent/folder/none.task", 1, abKeys);
   assertFindFails(&h, "/nonexistent/folder/none.task: cannot open: No such file or directory");
   doneHeader(&h);
   free(path);
}

/* A session recorded elsewhere: its task file is found by name in the current
 * directory. */
static void test_taskFileMoved(void **state) {
   (void)state;
   char *dir = TestUtil_srcPath("tests/data");
   SessionHeader h = tiny2Header("/where/it/ran/tiny2.task", NULL);
   char *old = getcwd(NULL, 0);
   assert_int_equal(chdir(dir), 0);
   Network net;
   char *cause = NULL;
   int rc = TuneView_findNetwork(&h, &net, &cause);
   assert_int_equal(chdir(old), 0);
   if (rc < 0)
      fail_msg("%s", cause);
   assert_int_equal(net.ntasks, 2);
   assert_string_equal(net.name, "tiny2");
   Network_done(&net);
   doneHeader(&h);
   free(old);
   free(dir);
}

/* a measurement of a state in precision p ("fp32": no "precision" key) with its errors */
static SessionEvent precisionMeasure(int task, const char *p, double cost, double predicted, double measured,
                                     const char *error) {
   char *state = strcmp(p, "fp32") == 0 ? xAsprintf("{\"v\":1,\"sketch\":0,\"knobs\":{\"k\":%g}}", cost)
                                        : xAsprintf("{\"v\":1,\"sketch\":2,\"precision\":\"%s\",\"knobs\":{\"k\":%g}}", p,
                                                    cost);
   return (SessionEvent){ .kind = SESSION_MEASURE, .round = 1, .elapsed = 1,
                          .measure = { .task = task, .state = state, .ncosts = 1, .costs = { cost },
                                       .error = xStrdup(error), .message = xStrdup(""), .lineage = xStrdup("random"),
                                       .draftScore = NAN, .verifyScore = NAN, .predictedError = predicted,
                                       .outputError = measured } };
}

/* Task 0: FP32 at 8 us (error 1e-6), FP16 at 5 us (1e-3; measured 1.2e-3 at most),
 * TF32 at 6 us (1.1e-3: FP16 is faster and no less accurate, so it is off the front),
 * BF16 at 4 us (8e-3). Task 1: FP32 at 20 us (2e-6) and FP16 at 25 us, off the front.
 * The network's front: 2e-6 is the least bound both tasks meet (28 us), then 1e-3
 * (25 us) and 8e-3 (24 us). */
static void test_front(void **state) {
   (void)state;
   static const char *const keys[] = { "a", "b" };
   SessionHeader h = header("nowhere/net.task", 2, keys);
   TuneView v;
   TuneView_init(&v, &h, NULL);
   feed(&v, precisionMeasure(0, "fp32", 10e-6, 1e-6, NAN, "ok"));
   feed(&v, precisionMeasure(0, "fp32", 8e-6, 1e-6, 7e-7, "ok"));
   feed(&v, precisionMeasure(0, "fp16", 5e-6, 1e-3, 1.2e-3, "ok"));
   feed(&v, precisionMeasure(0, "fp16", 7e-6, 1e-3, 9e-4, "ok"));
   feed(&v, precisionMeasure(0, "fp16", 1e-6, 1e-3, NAN, "wrong answer"));
   feed(&v, precisionMeasure(0, "tf32", 6e-6, 1.1e-3, NAN, "ok"));
   feed(&v, precisionMeasure(0, "bf16", 4e-6, 8e-3, NAN, "ok"));
   FrontPoint pts[PRECISION_COUNT];
   /* nothing of task 1 yet: no network front */
   int n = 0;
   assert_null(Front_network(&v, &n));
   assert_int_equal(n, 0);
   feed(&v, precisionMeasure(1, "fp32", 20e-6, 2e-6, NAN, "ok"));
   feed(&v, precisionMeasure(1, "fp16", 25e-6, 1e-3, NAN, "ok"));

   assert_int_equal(Front_task(&v, 0, pts), 3);
   static const Precision want0[] = { PRECISION_FP32, PRECISION_FP16, PRECISION_BF16 };
   static const double lat0[] = { 8e-6, 5e-6, 4e-6 }, err0[] = { 1e-6, 1e-3, 8e-3 };
   for (int i = 0; i < 3; i++) {
      assert_int_equal(pts[i].precision, want0[i]);
      assert_true(pts[i].latency == lat0[i]);
      assert_true(pts[i].error == err0[i]);
   }
   assert_true(pts[0].measured == 7e-7);
   assert_true(pts[1].measured == 1.2e-3);
   assert_true(isnan(pts[2].measured));
   assert_string_equal(pts[1].state, "{\"v\":1,\"sketch\":2,\"precision\":\"fp16\",\"knobs\":{\"k\":5e-06}}");
   assert_int_equal(Front_task(&v, 1, pts), 1);
   assert_int_equal(pts[0].precision, PRECISION_FP32);

   FrontChoice **net = Front_network(&v, &n);
   assert_int_equal(n, 3);
   static const double bound[] = { 2e-6, 1e-3, 8e-3 }, total[] = { 0.028, 0.025, 0.024 };
   static const Precision pick0[] = { PRECISION_FP32, PRECISION_FP16, PRECISION_BF16 };
   for (int i = 0; i < 3; i++) {
      assert_true(net[i]->bound == bound[i]);
      assert_float_equal(net[i]->latencyMs, total[i], 1e-12);
      assert_int_equal(net[i]->choice[0], pick0[i]);
      assert_int_equal(net[i]->choice[1], PRECISION_FP32);
   }
   Front_free(net, n);

   char *text = Front_text(&v);
   assert_non_null(strstr(text, "\n   0  a                                 fp32        0.0080   1.00e-06   7.00e-07\n"
                                "                                        fp16        0.0050   1.00e-03   1.20e-03\n"
                                "                                        bf16        0.0040   8.00e-03          -\n"
                                "   1  b                                 fp32        0.0200   2.00e-06          -\n"));
   assert_non_null(strstr(text, "\n 2.00e-06          0.0280  fp32 2\n 1.00e-03          0.0250  fp32 1 fp16 1\n"
                                " 8.00e-03          0.0240  fp32 1 bf16 1\n"));
   free(text);
   /* the task's details: its front alone */
   text = Front_taskText(&v, 0);
   assert_string_equal(text, "fp32  0.0080 ms  error 1.00e-06  measured 7.00e-07\n"
                             "fp16  0.0050 ms  error 1.00e-03  measured 1.20e-03\n"
                             "bf16  0.0040 ms  error 8.00e-03\n");
   free(text);
   text = Front_taskText(&v, 1);
   assert_string_equal(text, "fp32  0.0200 ms  error 2.00e-06\n");
   free(text);
   TuneView_done(&v);
   /* FP32 alone: nothing to show */
   TuneView_init(&v, &h, NULL);
   feed(&v, precisionMeasure(0, "fp32", 10e-6, NAN, NAN, "ok"));
   assert_null(Front_taskText(&v, 0));
   TuneView_done(&v);
   doneHeader(&h);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_front),
      cmocka_unit_test(test_run),
      cmocka_unit_test(test_commands),
      cmocka_unit_test(test_passesOver),
      cmocka_unit_test(test_taskFile),
      cmocka_unit_test(test_taskFileChecked),
      cmocka_unit_test(test_taskFileMoved),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
