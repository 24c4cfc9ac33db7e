/* The session file: every kind of event through a file to the bit, a file cut in its
 * last line, each event's line, the exact message for each kind of bad line, the
 * repair when appending after a cut, and the comparison that leaves the wall clock
 * out. */
#include "config.h"

#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tune/session.h"
#include "util/xalloc.h"

static const char *const taskKeys[] = { "[\"conv2d\", 1, 64, 56, 56] \"q\" \\b",
                                         "[\"dense\", 8, 64, 16]" };

static char **tasksCopy(void) {
   char **t = xCalloc(2, sizeof *t);
   for (int i = 0; i < 2; i++)
      t[i] = xStrdup(taskKeys[i]);
   return t;
}

/* The header and the events own their strings: SessionEvent_done frees them. */
static SessionHeader header(void) {
   return (SessionHeader){
      .network = xStrdup("resnet_50"),
      .networkFile = xStrdup("models/resnet_50.task"),
      .device = xStrdup("h100_sxm"),
      .simulated = true,
      .policy = xStrdup("pruner"),
      .costModel = xStrdup("pam"),
      .trialBudget = 2000,
      .measuresPerRound = 64,
      .seed = 9007199254740991,
      .startTime = 1700000000,
      .ntasks = 2,
      .tasks = tasksCopy(),
   };
}

/* A best state's counters, every key known, with numbers that must come back to the bit. */
static Counters counters(void) {
   return (Counters){ .present = true, .simulated = false, .known = COUNTERS_ALL_FIELDS,
                      .dramGbs = 812.5, .l2HitRate = 0.1 + 0.2, .occupancy = 0.5, .gflops = 10422.000000000002,
                      .waves = 1.94, .l1HitRate = 0, .bankConflicts = 0.25, .instructions = 1.2e7, .ipc = 1.5,
                      .bound = "shared memory", .stall = "long_scoreboard", .stallShare = 0.6 };
}

/* One event of every kind but the header, with awkward strings and numbers. */
#define NEVENTS 10
static void events(SessionEvent ev[NEVENTS]) {
   memset(ev, 0, NEVENTS * sizeof *ev);
   ev[0] = (SessionEvent){ .kind = SESSION_ROUND, .round = 3, .elapsed = 0.1 + 0.2,
                           .roundStart = { .task = 1, .trials = 128 } };
   ev[1] = (SessionEvent){ .kind = SESSION_MEASURE, .round = 3, .elapsed = 5e-324,
                           .measure = { .task = 1,
                                        .state = xStrdup("{\"sketch\":0}\nline two \xc3\xa9"),
                                        .ncosts = 3, .costs = { 1.2345678901234567e-05, 0.1,
                                                                0.30000000000000004 },
                                        .error = xStrdup("ok"), .message = xStrdup(""),
                                        .lineage = xStrdup("draft"),
                                        .draftScore = -1.0000000000000002, .verifyScore = NAN,
                                        .buildSeconds = 0.3125, .runSeconds = 1.5e-3,
                                        .predictedError = 0.00125, .outputError = 0.0009765625 } };
   ev[2] = (SessionEvent){ .kind = SESSION_MEASURE, .round = 3, .elapsed = 1.5,
                           .measure = { .task = 0, .state = xStrdup("s"), .ncosts = 1,
                                        .costs = { 1e10 },
                                        .error = xStrdup("compile error"),
                                        .message = xStrdup("kernel.cu(3): error"),
                                        .lineage = xStrdup("mutant"),
                                        .draftScore = NAN, .verifyScore = 2.5,
                                        .predictedError = NAN, .outputError = NAN } };
   ev[3] = (SessionEvent){ .kind = SESSION_MODEL, .round = 3, .elapsed = 2,
                           .model = { .seconds = 0.123456789, .samples = 512,
                                      .error = xStrdup("") } };
   ev[4] = (SessionEvent){ .kind = SESSION_MODEL, .round = 4, .elapsed = 3,
                           .model = { .seconds = 0, .samples = 0,
                                      .error = xStrdup("no samples") } };
   ev[5] = (SessionEvent){ .kind = SESSION_BEST, .round = 4, .elapsed = 4,
                           .best = { .task = 1, .latency = 2.2250738585072014e-308, .counters = counters() } };
   ev[6] = (SessionEvent){ .kind = SESSION_COMMAND, .round = 4, .elapsed = 5,
                           .command = { .text = xStrdup("prio 5 0"), .applied = true } };
   ev[7] = (SessionEvent){ .kind = SESSION_ROUND_END, .round = 4, .elapsed = 6,
                           .roundEnd = { .trials = 192, .latencyMs = 1.7976931348623157e308,
                                         .acceptance = 0.75, .tau = NAN, .draftRank = 0.5,
                                         .verifyRank = NAN } };
   ev[8] = (SessionEvent){ .kind = SESSION_SEARCH, .round = 5, .elapsed = 6.5,
                           .search = { .task = 1, .drafted = true, .sampled = 1536, .drafts = 512,
                                       .population = 2058, .kept = 20, .picks = 10,
                                       .fromDrafts = 7, .random = 1, .seconds = 0.25, .bestRank = 38 } };
   ev[9] = (SessionEvent){ .kind = SESSION_RESUMED, .round = 5, .elapsed = 6.75,
                           .resumed = { .trials = 40, .notice = xStrdup("s.jsonl:9: cut") } };
}

static void doneHeader(SessionHeader *h) {
   SessionEvent e = { .kind = SESSION_HEADER, .header = *h };
   SessionEvent_done(&e);
}

static void doneEvents(SessionEvent ev[NEVENTS]) {
   for (int i = 0; i < NEVENTS; i++)
      SessionEvent_done(&ev[i]);
}

static SessionEvent finished(void) {
   return (SessionEvent){ .kind = SESSION_FINISHED, .round = 5, .elapsed = 7,
                          .finished = { .why = SESSION_END_ALL_DEAD } };
}

static char *pathIn(const char *name) {
   char *path = xAsprintf("%s/%s", TestUtil_groupDir, name);
   remove(path);
   return path;
}

static void writeSession(const char *path) {
   SessionHeader h = header();
   char *cause = NULL;
   SessionWriter *w = SessionWriter_open(path, &h, &cause);
   doneHeader(&h);
   if (!w)
      fail_msg("%s", cause);
   SessionEvent ev[NEVENTS];
   events(ev);
   for (int i = 0; i < NEVENTS; i++)
      if (SessionWriter_add(w, &ev[i], &cause) != 0)
         fail_msg("%s", cause);
   doneEvents(ev);
   SessionEvent fin = finished();
   if (SessionWriter_add(w, &fin, &cause) != 0 || SessionWriter_close(w, &cause) != 0)
      fail_msg("%s", cause);
}

static void readOk(const char *path, SessionLog *log) {
   char *cause = NULL, *notice = NULL;
   if (Session_read(path, log, &notice, &cause) != 0)
      fail_msg("%s", cause);
   assert_null(notice);
}

static void assertBits(double got, double want) {
   if (memcmp(&got, &want, sizeof got) != 0 && !(isnan(got) && isnan(want)))
      fail_msg("got %.17g, expected %.17g", got, want);
}

static void assertSameCounters(const Counters *got, const Counters *want) {
   assert_int_equal(got->present, want->present);
   assert_int_equal(got->simulated, want->simulated);
   assert_int_equal(got->known, want->known);
   const double *g[] = { &got->dramGbs, &got->l2HitRate, &got->occupancy, &got->gflops, &got->waves,
                         &got->l1HitRate, &got->bankConflicts, &got->instructions, &got->ipc, &got->stallShare };
   const double *w[] = { &want->dramGbs, &want->l2HitRate, &want->occupancy, &want->gflops, &want->waves,
                         &want->l1HitRate, &want->bankConflicts, &want->instructions, &want->ipc, &want->stallShare };
   for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
      assertBits(*g[i], *w[i]);
   assert_string_equal(got->bound, want->bound);
   assert_string_equal(got->stall, want->stall);
}

static void assertSameEvent(const SessionEvent *got, const SessionEvent *want) {
   assert_int_equal(got->kind, want->kind);
   assert_int_equal(got->round, want->round);
   assertBits(got->elapsed, want->elapsed);
   switch (want->kind) {
   case SESSION_HEADER: break;
   case SESSION_ROUND:
      assert_int_equal(got->roundStart.task, want->roundStart.task);
      assert_int_equal(got->roundStart.trials, want->roundStart.trials);
      break;
   case SESSION_MEASURE:
      assert_int_equal(got->measure.task, want->measure.task);
      assert_string_equal(got->measure.state, want->measure.state);
      assert_int_equal(got->measure.ncosts, want->measure.ncosts);
      for (int i = 0; i < want->measure.ncosts; i++)
         assertBits(got->measure.costs[i], want->measure.costs[i]);
      assert_string_equal(got->measure.error, want->measure.error);
      assert_string_equal(got->measure.message, want->measure.message);
      assert_string_equal(got->measure.lineage, want->measure.lineage);
      assertBits(got->measure.draftScore, want->measure.draftScore);
      assertBits(got->measure.verifyScore, want->measure.verifyScore);
      assertBits(got->measure.buildSeconds, want->measure.buildSeconds);
      assertBits(got->measure.runSeconds, want->measure.runSeconds);
      break;
   case SESSION_MODEL:
      assertBits(got->model.seconds, want->model.seconds);
      assert_int_equal(got->model.samples, want->model.samples);
      assert_string_equal(got->model.error, want->model.error);
      break;
   case SESSION_BEST:
      assert_int_equal(got->best.task, want->best.task);
      assertBits(got->best.latency, want->best.latency);
      assertSameCounters(&got->best.counters, &want->best.counters);
      break;
   case SESSION_COMMAND:
      assert_string_equal(got->command.text, want->command.text);
      assert_int_equal(got->command.applied, want->command.applied);
      break;
   case SESSION_ROUND_END:
      assert_int_equal(got->roundEnd.trials, want->roundEnd.trials);
      assertBits(got->roundEnd.latencyMs, want->roundEnd.latencyMs);
      assertBits(got->roundEnd.acceptance, want->roundEnd.acceptance);
      assertBits(got->roundEnd.tau, want->roundEnd.tau);
      assertBits(got->roundEnd.draftRank, want->roundEnd.draftRank);
      assertBits(got->roundEnd.verifyRank, want->roundEnd.verifyRank);
      break;
   case SESSION_SEARCH:
      assert_int_equal(got->search.task, want->search.task);
      assert_int_equal(got->search.drafted, want->search.drafted);
      assert_int_equal(got->search.sampled, want->search.sampled);
      assert_int_equal(got->search.drafts, want->search.drafts);
      assert_int_equal(got->search.population, want->search.population);
      assert_int_equal(got->search.kept, want->search.kept);
      assert_int_equal(got->search.picks, want->search.picks);
      assert_int_equal(got->search.fromDrafts, want->search.fromDrafts);
      assert_int_equal(got->search.random, want->search.random);
      assert_true(got->search.seconds == want->search.seconds);
      assert_true(got->search.bestRank == want->search.bestRank ||
                  (isnan(got->search.bestRank) && isnan(want->search.bestRank)));
      break;
   case SESSION_RESUMED:
      assert_int_equal(got->resumed.trials, want->resumed.trials);
      assert_string_equal(got->resumed.notice, want->resumed.notice);
      break;
   case SESSION_FINISHED: assert_int_equal(got->finished.why, want->finished.why); break;
   default: fail();
   }
}

static void test_roundTripFile(void **state) {
   (void)state;
   char *path = pathIn("all.jsonl");
   writeSession(path);
   SessionLog log;
   SessionLog_init(&log);
   readOk(path, &log);
   assert_int_equal(log.count, NEVENTS + 2);
   const SessionHeader *h = &log.events[0].header;
   SessionHeader want = header();
   assert_int_equal(log.events[0].kind, SESSION_HEADER);
   assert_int_equal(h->version, SESSION_FORMAT_VERSION);
   assert_string_equal(h->network, want.network);
   assert_string_equal(h->networkFile, want.networkFile);
   assert_string_equal(h->device, want.device);
   assert_true(h->simulated);
   assert_string_equal(h->policy, want.policy);
   assert_string_equal(h->costModel, want.costModel);
   assert_int_equal(h->trialBudget, 2000);
   assert_int_equal(h->measuresPerRound, 64);
   assert_true(h->seed == 9007199254740991);
   assert_true(h->startTime == 1700000000);
   assert_int_equal(h->ntasks, 2);
   assert_string_equal(h->tasks[0], taskKeys[0]);
   assert_string_equal(h->tasks[1], taskKeys[1]);
   SessionEvent ev[NEVENTS];
   events(ev);
   for (int i = 0; i < NEVENTS; i++)
      assertSameEvent(&log.events[i + 1], &ev[i]);
   SessionEvent fin = finished();
   assertSameEvent(&log.events[NEVENTS + 1], &fin);
   doneEvents(ev);
   doneHeader(&want);
   SessionLog_done(&log);
   free(path);
}

static void test_lineText(void **state) {
   (void)state;
   SessionEvent ev[NEVENTS];
   events(ev);
   char *line = SessionEvent_toJson(&ev[7], true);
   assert_string_equal(line, "{\"event\":\"round_end\",\"round\":4,\"t\":6,\"trials\":192,"
                             "\"latency_ms\":1.7976931348623157e+308,\"acceptance\":0.75,"
                             "\"tau\":null,\"draft_rank\":0.5,\"verify_rank\":null}");
   free(line);
   line = SessionEvent_toJson(&ev[8], true);
   assert_string_equal(line, "{\"event\":\"search\",\"round\":5,\"t\":6.5,\"task\":1,\"drafted\":true,"
                             "\"sampled\":1536,\"drafts\":512,\"population\":2058,\"kept\":20,"
                             "\"picks\":10,\"from_drafts\":7,\"random\":1,\"seconds\":0.25,\"best_rank\":38}");
   free(line);
   /* without the clock: the search's seconds go */
   line = SessionEvent_toJson(&ev[8], false);
   assert_string_equal(line, "{\"event\":\"search\",\"round\":5,\"task\":1,\"drafted\":true,"
                             "\"sampled\":1536,\"drafts\":512,\"population\":2058,\"kept\":20,"
                             "\"picks\":10,\"from_drafts\":7,\"random\":1,\"best_rank\":38}");
   free(line);
   line = SessionEvent_toJson(&ev[9], false);
   assert_string_equal(line, "{\"event\":\"resumed\",\"round\":5,\"trials\":40,"
                             "\"notice\":\"s.jsonl:9: cut\"}");
   free(line);
   line = SessionEvent_toJson(&ev[3], false);
   assert_string_equal(line, "{\"event\":\"model\",\"round\":3,\"samples\":512}");
   free(line);
   /* a measurement's build and run seconds are wall clock: there with it, gone without */
   line = SessionEvent_toJson(&ev[1], true);
   assert_non_null(strstr(line, ",\"verify\":null,\"build_s\":0.3125,\"run_s\":0.0015,"
                                "\"predicted_error\":0.00125,\"output_error\":0.0009765625}"));
   free(line);
   line = SessionEvent_toJson(&ev[1], false);
   assert_null(strstr(line, "build_s"));
   assert_null(strstr(line, "run_s"));
   assert_non_null(strstr(line, ",\"verify\":null,\"predicted_error\":0.00125,\"output_error\":0.0009765625}"));
   free(line);
   /* errors not known are left out */
   line = SessionEvent_toJson(&ev[2], false);
   assert_null(strstr(line, "_error"));
   free(line);
   SessionEvent fin = finished();
   line = SessionEvent_toJson(&fin, true);
   assert_string_equal(line, "{\"event\":\"finished\",\"round\":5,\"t\":7,\"why\":\"all dead\"}");
   free(line);
   doneEvents(ev);
   /* a search line written before "seconds" and "best_rank": 0 and unknown */
   SessionEvent old;
   char *cause = NULL;
   if (SessionEvent_fromJson("{\"event\":\"search\",\"round\":2,\"t\":1,\"task\":0,\"drafted\":false,"
                             "\"sampled\":9,\"drafts\":5,\"population\":14,\"kept\":4,\"picks\":2,"
                             "\"from_drafts\":1,\"random\":0}",
                             &old, &cause) < 0)
      fail_msg("%s", cause);
   assert_int_equal(old.search.sampled, 9);
   assert_true(old.search.seconds == 0);
   assert_true(isnan(old.search.bestRank));
   SessionEvent_done(&old);
   /* a measure line written before "build_s" and "run_s": 0 seconds each */
   if (SessionEvent_fromJson("{\"event\":\"measure\",\"round\":1,\"t\":2,\"task\":0,\"state\":\"s\","
                             "\"costs\":[2e-05],\"error\":\"ok\",\"lineage\":\"draft\",\"draft\":null,"
                             "\"verify\":7}",
                             &old, &cause) < 0)
      fail_msg("%s", cause);
   assert_true(old.measure.buildSeconds == 0 && old.measure.runSeconds == 0);
   assert_true(old.measure.verifyScore == 7);
   /* and before the errors: not known */
   assert_true(isnan(old.measure.predictedError) && isnan(old.measure.outputError));
   SessionEvent_done(&old);
   /* an error that is there must be a finite number */
   assert_int_equal(SessionEvent_fromJson("{\"event\":\"measure\",\"round\":1,\"t\":2,\"task\":0,\"state\":\"s\","
                                          "\"costs\":[2e-05],\"error\":\"ok\",\"lineage\":\"draft\",\"draft\":null,"
                                          "\"verify\":7,\"output_error\":null}",
                                          &old, &cause),
                    -1);
   assert_string_equal(cause, "\"output_error\": expected a finite number, found null");
   free(cause);
   /* a rank that is there must be a number or null */
   assert_int_equal(SessionEvent_fromJson("{\"event\":\"search\",\"round\":2,\"t\":1,\"task\":0,"
                                          "\"drafted\":false,\"sampled\":9,\"drafts\":5,\"population\":14,"
                                          "\"kept\":4,\"picks\":2,\"from_drafts\":1,\"random\":0,"
                                          "\"best_rank\":\"x\"}",
                                          &old, &cause),
                    -1);
   assert_string_equal(cause, "\"best_rank\": expected a finite number or null, found a string");
   free(cause);
}

static void parseOk(const char *line, SessionEvent *out) {
   char *cause = NULL;
   if (SessionEvent_fromJson(line, out, &cause) < 0)
      fail_msg("%s", cause);
}

/* A best event keeps its state's counters as a record does; one written before the key
 * has none, and counters that do not read say why, under the key's name. */
static void test_bestCounters(void **state) {
   (void)state;
   SessionEvent ev[NEVENTS];
   events(ev);
   char *line = SessionEvent_toJson(&ev[5], false);
   assert_string_equal(line, "{\"event\":\"best\",\"round\":4,\"task\":1,\"latency\":2.2250738585072014e-308,"
                             "\"counters\":{\"source\":\"cupti\",\"dram_gbs\":812.5,"
                             "\"l2_hit_rate\":0.30000000000000004,\"occupancy\":0.5,\"gflops\":10422.000000000002,"
                             "\"waves\":1.94,\"l1_hit_rate\":0,\"bank_conflicts\":0.25,\"instructions\":12000000,"
                             "\"ipc\":1.5,\"bound\":\"shared memory\",\"stall\":\"long_scoreboard\","
                             "\"stall_share\":0.6}}");
   free(line);
   line = SessionEvent_toJson(&ev[5], true);
   SessionEvent back;
   parseOk(line, &back);
   assertSameEvent(&back, &ev[5]);
   SessionEvent_done(&back);
   free(line);
   /* without counters the key is left out */
   ev[5].best.counters.present = false;
   line = SessionEvent_toJson(&ev[5], false);
   assert_string_equal(line, "{\"event\":\"best\",\"round\":4,\"task\":1,\"latency\":2.2250738585072014e-308}");
   free(line);
   doneEvents(ev);
   /* a best line written before the key: no counters */
   parseOk("{\"event\":\"best\",\"round\":1,\"t\":2,\"task\":0,\"latency\":0.5}", &back);
   assert_false(back.best.counters.present);
   assertBits(back.best.latency, 0.5);
   SessionEvent_done(&back);
   /* a simulated best with the keys of the first records only */
   parseOk("{\"event\":\"best\",\"round\":1,\"t\":2,\"task\":0,\"latency\":0.5,\"counters\":{\"source\":"
           "\"simulated\",\"dram_gbs\":1,\"l2_hit_rate\":0.5,\"occupancy\":0.25,\"gflops\":2,\"waves\":3,"
           "\"bound\":\"memory\"}}",
           &back);
   assert_true(back.best.counters.present);
   assert_true(back.best.counters.simulated);
   assert_int_equal(back.best.counters.known, 0);
   assertBits(back.best.counters.waves, 3);
   assert_string_equal(back.best.counters.bound, "memory");
   SessionEvent_done(&back);
}

static void test_cutLastLine(void **state) {
   (void)state;
   char *path = pathIn("cut.jsonl");
   writeSession(path);
   char *text = TestUtil_readFile(path);
   char *cut = xAsprintf("%s{\"event\":\"best\",\"round\":5,\"t\":8,\"ta", text);
   free(TestUtil_writeFile(TestUtil_groupDir, "cut.jsonl", cut));
   SessionLog log;
   SessionLog_init(&log);
   char *cause = NULL, *notice = NULL;
   if (Session_read(path, &log, &notice, &cause) != 0)
      fail_msg("%s", cause);
   assert_int_equal(log.count, NEVENTS + 2);
   char *want = xAsprintf(
      "%s:13: the last line is cut short (35 bytes without a newline); it was skipped", path);
   assert_string_equal(notice, want);
   free(want);
   free(notice);
   SessionLog_done(&log);

   /* appending removes the cut line before it writes */
   SessionWriter *w = SessionWriter_append(path, &cause);
   if (!w)
      fail_msg("%s", cause);
   SessionEvent res = { .kind = SESSION_RESUMED, .round = 5, .elapsed = 7, .resumed = { .trials = 40 } };
   if (SessionWriter_add(w, &res, &cause) != 0 || SessionWriter_close(w, &cause) != 0)
      fail_msg("%s", cause);
   char *after = TestUtil_readFile(path);
   char *expected = xAsprintf("%s{\"event\":\"resumed\",\"round\":5,\"t\":7,\"trials\":40}\n", text);
   assert_string_equal(after, expected);
   readOk(path, &log);
   assert_int_equal(log.count, NEVENTS + 3);
   assert_int_equal(log.events[NEVENTS + 2].kind, SESSION_RESUMED);
   SessionLog_done(&log);
   free(after);
   free(expected);
   free(cut);
   free(text);
   free(path);
}

/* A whole event left without its newline keeps its place and gets the newline. */
static void test_appendAfterWholeLine(void **state) {
   (void)state;
   char *path = pathIn("whole.jsonl");
   writeSession(path);
   char *text = TestUtil_readFile(path);
   text[strlen(text) - 1] = '\0';
   free(TestUtil_writeFile(TestUtil_groupDir, "whole.jsonl", text));
   char *cause = NULL;
   SessionWriter *w = SessionWriter_append(path, &cause);
   if (!w || SessionWriter_close(w, &cause) != 0)
      fail_msg("%s", cause);
   SessionLog log;
   SessionLog_init(&log);
   readOk(path, &log);
   assert_int_equal(log.count, NEVENTS + 2);
   SessionLog_done(&log);
   free(text);
   free(path);
}

static const char *headerLine =
   "{\"event\":\"header\",\"v\":1,\"network\":\"n\",\"network_file\":\"n.task\",\"device\":"
   "\"d\",\"simulated\":false,\"policy\":\"ansor\",\"cost_model\":\"xgb\",\"trials\":10,"
   "\"per_round\":2,\"seed\":1,\"start\":0,\"tasks\":[\"a\"]}\n";

static void assertBad(const char *body, bool withHeader, int lineno, const char *reason) {
   char *text = xAsprintf("%s%s", withHeader ? headerLine : "", body);
   char *path = TestUtil_writeFile(TestUtil_groupDir, "bad.jsonl", text);
   SessionLog log;
   SessionLog_init(&log);
   char *cause = NULL, *notice = NULL;
   assert_int_equal(Session_read(path, &log, &notice, &cause), -1);
   assert_int_equal(log.count, 0);
   char *want = xAsprintf("%s:%d: %s", path, lineno, reason);
   assert_string_equal(cause, want);
   free(want);
   free(cause);
   free(notice);
   free(path);
   free(text);
}

/* The fleet a session ran on: written in the header, left out of what two runs must
 * agree on, and unknown in a header from before the keys. */
static void test_fleet(void **state) {
   (void)state;
   SessionEvent old;
   char *cause = NULL;
   char *line = xStrdup(headerLine);
   line[strlen(line) - 1] = '\0';
   if (SessionEvent_fromJson(line, &old, &cause) < 0)
      fail_msg("%s", cause);
   free(line);
   assert_string_equal(old.header.fleet, "");
   assert_int_equal(old.header.fleetSize, 0);
   line = SessionEvent_toJson(&old, true);
   assert_string_equal(line, "{\"event\":\"header\",\"v\":1,\"network\":\"n\",\"network_file\":\"n.task\",\"device\":"
                             "\"d\",\"simulated\":false,\"policy\":\"ansor\",\"cost_model\":\"xgb\",\"trials\":10,"
                             "\"per_round\":2,\"seed\":1,\"start\":0,\"tasks\":[\"a\"]}");
   free(line);
   SessionEvent_done(&old);

   SessionEvent h = { .kind = SESSION_HEADER, .header = header() };
   h.header.fleet = xStrdup("sim:h100_sxm*4");
   h.header.fleetSize = 4;
   line = SessionEvent_toJson(&h, true);
   assert_non_null(strstr(line, ",\"start\":1700000000,\"fleet\":\"sim:h100_sxm*4\",\"fleet_size\":4,\"tasks\":["));
   SessionEvent back;
   if (SessionEvent_fromJson(line, &back, &cause) < 0)
      fail_msg("%s", cause);
   assert_string_equal(back.header.fleet, "sim:h100_sxm*4");
   assert_int_equal(back.header.fleetSize, 4);
   free(line);
   /* without the clock the fleet goes too: one device and four agree */
   line = SessionEvent_toJson(&h, false);
   assert_null(strstr(line, "fleet"));
   char *one = NULL;
   free(back.header.fleet);
   back.header.fleet = xStrdup("sim:h100_sxm");
   back.header.fleetSize = 1;
   one = SessionEvent_toJson(&back, false);
   assert_string_equal(line, one);
   free(one);
   free(line);
   SessionEvent_done(&back);
   SessionEvent_done(&h);

   static const struct {
      const char *key, *why;
   } bad[] = {
      { "\"fleet_size\":0", "\"fleet_size\": expected an integer from 1 to 2147483647, found 0" },
      { "\"fleet\":4", "\"fleet\": expected a string, found 4" },
      { "\"max_error\":0", "\"max_error\": expected a finite number above 0, found 0" },
      { "\"precision\":[\"fp16\"]", "\"precision\": expected a string, found an array" },
   };
   for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      line = xAsprintf("{\"event\":\"header\",\"v\":1,\"network\":\"n\",\"network_file\":\"n.task\",\"device\":"
                       "\"d\",\"simulated\":false,\"policy\":\"ansor\",\"cost_model\":\"xgb\",\"trials\":10,"
                       "\"per_round\":2,\"seed\":1,\"start\":0,%s,\"tasks\":[\"a\"]}",
                       bad[i].key);
      assert_int_equal(SessionEvent_fromJson(line, &back, &cause), -1);
      assert_string_equal(cause, bad[i].why);
      free(cause);
      free(line);
   }
}

/* A fleet's devices at a round's end: written for 2 or more, read back, left out of what
 * two runs must agree on, and none in a round_end from before the key. */
static void test_fleetDevices(void **state) {
   (void)state;
   static const char *plain = "{\"event\":\"round_end\",\"round\":3,\"t\":4.5,\"trials\":12,\"latency_ms\":null,"
                              "\"acceptance\":null,\"tau\":null,\"draft_rank\":null,\"verify_rank\":null}";
   SessionEvent e, back;
   char *cause = NULL;
   if (SessionEvent_fromJson(plain, &e, &cause) < 0)
      fail_msg("%s", cause);
   assert_int_equal(e.roundEnd.ndevices, 0);
   assert_null(e.roundEnd.devices);
   char *line = SessionEvent_toJson(&e, true);
   assert_string_equal(line, plain);
   free(line);

   SessionDevice d[2] = {
      { xStrdup("sim:h100_sxm#1"), 7, 3.25, 0, false, xStrdup("") },
      { xStrdup("sim:h100_sxm#2"), 5, 1.5, 3, true, xStrdup("sim:h100_sxm is retired: it failed") },
   };
   e.roundEnd.ndevices = 2;
   e.roundEnd.devices = d;
   SessionEvent copy;
   SessionEvent_copy(&copy, &e);
   e.roundEnd.ndevices = 0;
   e.roundEnd.devices = NULL;
   for (int i = 0; i < 2; i++) {
      free(d[i].name);
      free(d[i].why);
   }
   line = SessionEvent_toJson(&copy, true);
   assert_string_equal(line, "{\"event\":\"round_end\",\"round\":3,\"t\":4.5,\"trials\":12,\"latency_ms\":null,"
                             "\"acceptance\":null,\"tau\":null,\"draft_rank\":null,\"verify_rank\":null,\"devices\":["
                             "{\"name\":\"sim:h100_sxm#1\",\"n\":7,\"busy_s\":3.25,\"failed\":0,\"retired\":false},"
                             "{\"name\":\"sim:h100_sxm#2\",\"n\":5,\"busy_s\":1.5,\"failed\":3,\"retired\":true,"
                             "\"why\":\"sim:h100_sxm is retired: it failed\"}]}");
   if (SessionEvent_fromJson(line, &back, &cause) < 0)
      fail_msg("%s", cause);
   free(line);
   assert_int_equal(back.roundEnd.ndevices, 2);
   assert_string_equal(back.roundEnd.devices[0].name, "sim:h100_sxm#1");
   assert_int_equal(back.roundEnd.devices[0].measured, 7);
   assert_true(back.roundEnd.devices[0].busySeconds == 3.25);
   assert_false(back.roundEnd.devices[0].retired);
   assert_string_equal(back.roundEnd.devices[0].why, "");
   assert_int_equal(back.roundEnd.devices[1].failed, 3);
   assert_true(back.roundEnd.devices[1].retired);
   assert_string_equal(back.roundEnd.devices[1].why, "sim:h100_sxm is retired: it failed");
   /* without the clock the devices go too: one device and a fleet agree */
   line = SessionEvent_toJson(&back, false);
   char *none = SessionEvent_toJson(&e, false);
   assert_string_equal(line, none);
   free(none);
   free(line);
   SessionEvent_done(&back);
   SessionEvent_done(&copy);
   SessionEvent_done(&e);

   /* the devices' text, and what reading it says */
   static const char *const bad[][2] = {
      { "{}", "\"devices\": expected an array of 2 to 16 device objects, found an object" },
      { "[{\"name\":\"a\",\"n\":1,\"busy_s\":0,\"failed\":0,\"retired\":false}]",
        "\"devices\": expected an array of 2 to 16 device objects, found an array of 1" },
      { "[{\"name\":\"a\",\"n\":1,\"busy_s\":0,\"failed\":0,\"retired\":false},3]",
        "\"devices\"[1]: expected an object, found 3" },
      { "[{\"name\":\"a\",\"n\":1,\"busy_s\":0,\"failed\":0,\"retired\":false},{\"name\":\"b\",\"n\":1.5}]",
        "\"devices\"[1].\"n\": expected an integer from 0 to 2147483647, found 1.5" },
      { "[{\"name\":\"a\",\"n\":1,\"busy_s\":-1,\"failed\":0,\"retired\":false},{}]",
        "\"devices\"[0].\"busy_s\": expected a finite number of seconds, at least 0, found -1" },
      { "[{\"name\":\"a\",\"n\":1,\"busy_s\":0,\"failed\":0},{}]",
        "\"devices\"[0]: missing key \"retired\": expected true or false" },
   };
   for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      line = xAsprintf("%.*s,\"devices\":%s}", (int)strlen(plain) - 1, plain, bad[i][0]);
      assert_int_equal(SessionEvent_fromJson(line, &back, &cause), -1);
      assert_string_equal(cause, bad[i][1]);
      free(cause);
      free(line);
   }
}

/* Each event knows its line, blank lines counted, for messages about it. */
static void test_eventLines(void **state) {
   (void)state;
   char *text = xAsprintf("%s\n  \n{\"event\":\"best\",\"round\":1,\"t\":2,\"task\":0,\"latency\":0.5}\n"
                          "{\"event\":\"finished\",\"round\":1,\"t\":3,\"why\":\"budget\"}\n", headerLine);
   char *path = TestUtil_writeFile(TestUtil_groupDir, "lines.jsonl", text);
   SessionLog log;
   SessionLog_init(&log);
   readOk(path, &log);
   assert_int_equal(log.count, 3);
   assert_int_equal(log.events[0].line, 1);
   assert_int_equal(log.events[1].line, 4);
   assert_int_equal(log.events[2].line, 5);
   SessionLog_done(&log);
   free(path);
   free(text);
}

static void test_badLines(void **state) {
   (void)state;
   assertBad("{\"event\":\"best\",\"round\":1,\"t\":2,\"latency\":0.5}\n", true, 2,
             "missing key \"task\": expected an integer from 0 to 2147483647");
   assertBad("{\"event\":\"best\",\"round\":1,\"t\":2,\"task\":\"x\",\"latency\":0.5}\n", true, 2,
             "\"task\": expected an integer from 0 to 2147483647, found a string");
   assertBad("{\"event\":\"best\",\"round\":-1,\"t\":2,\"task\":0,\"latency\":0.5}\n", true, 2,
             "\"round\": expected an integer from 0 to 2147483647, found -1");
   assertBad("{\"event\":\"bogus\",\"round\":1}\n", true, 2,
             "\"event\": expected one of \"header\", \"round\", \"measure\", \"model\", "
             "\"best\", \"command\", \"round_end\", \"finished\", \"search\", \"resumed\", "
             "found \"bogus\"");
   assertBad("{\"round\":1}\n", true, 2,
             "missing key \"event\": expected one of \"header\", \"round\", \"measure\", "
             "\"model\", \"best\", \"command\", \"round_end\", \"finished\", \"search\", "
             "\"resumed\"");
   assertBad("{\"event\":\"command\",\"round\":1,\"t\":2,\"text\":\"stop\",\"applied\":1}\n", true,
             2, "\"applied\": expected true or false, found 1");
   assertBad("{\"event\":\"finished\",\"round\":1,\"t\":2,\"why\":\"bored\"}\n", true, 2,
             "\"why\": expected one of \"budget\", \"stopped\", \"all dead\", found \"bored\"");
   assertBad("{\"event\":\"measure\",\"round\":1,\"t\":2,\"task\":0,\"state\":\"s\",\"costs\":[],"
             "\"error\":\"ok\",\"lineage\":\"random\",\"draft\":null,\"verify\":null}\n",
             true, 2,
             "\"costs\": expected an array of 1 to 32 finite numbers, found an empty array");
   assertBad("{\"event\":\"measure\",\"round\":1,\"t\":2,\"task\":0,\"state\":\"s\",\"costs\":[1,"
             "null],\"error\":\"ok\",\"lineage\":\"random\",\"draft\":null,\"verify\":null}\n",
             true, 2, "\"costs\"[1]: expected a finite number, found null");
   assertBad("{\"event\":\"round_end\",\"round\":1,\"t\":2,\"trials\":3,\"latency_ms\":\"1\","
             "\"acceptance\":null,\"tau\":null,\"draft_rank\":null,\"verify_rank\":null}\n",
             true, 2, "\"latency_ms\": expected a finite number or null, found a string");
   assertBad("{\"event\":\"model\",\"round\":1,\"t\":-0.5,\"seconds\":1,\"samples\":2}\n", true, 2,
             "\"t\": expected a finite number of seconds, at least 0, found -0.5");
   assertBad("{\"event\":\"round\",\"round\":1,\"round\":1,\"t\":2,\"task\":0,\"trials\":0}\n",
             true, 2, "key \"round\" is given twice");
   assertBad("{\"event\":\"round\",\"round\":1,\"t\":2,\"task\":0,\"trials\":0}\n", false, 1,
             "expected the header first, found a \"round\" event");
   assertBad(headerLine, true, 2, "a second header; only the first line is the header");
   assertBad("{\"event\":\"header\",\"v\":2}\n", false, 1,
             "format version 2 is newer than this program reads (1)");
   assertBad("{\"event\":\"header\",\"v\":1,\"network\":\"n\",\"network_file\":\"f\",\"device\":"
             "\"d\",\"simulated\":true,\"policy\":\"p\",\"cost_model\":\"c\",\"trials\":1,"
             "\"per_round\":1,\"seed\":1,\"start\":0,\"tasks\":[\"a\",2]}\n",
             false, 1, "\"tasks\"[1]: expected a string, found 2");
   assertBad("{\"event\":\"best\",\"round\":1,\"t\":2,\"task\":0,\"latency\":0.5,\"counters\":{\"source\":"
             "\"simulated\",\"dram_gbs\":1,\"l2_hit_rate\":0.5,\"occupancy\":1.5,\"gflops\":2,\"waves\":3,"
             "\"bound\":\"memory\"}}\n",
             true, 2, "\"counters\": \"occupancy\": expected a number from 0 to 1, found 1.5");
   assertBad("{\"event\":\"best\",\"round\":1,\"t\":2,\"task\":0,\"latency\":0.5,\"counters\":[]}\n", true, 2,
             "\"counters\": expected an object of counters, found an array");
   assertBad("[1]\n", true, 2, "expected a JSON object, found an array");
   assertBad("{\"event\" \"round\"}\n", true, 2,
             "not valid JSON near byte 10 ('{\"event\" \"round\"}')");
   /* a cut line that is not the last: something appended after it */
   assertBad("{\"event\":\"round\"\n{}\n", true, 2,
             "the line is cut short (16 bytes, the JSON object is not closed), as when a run "
             "is killed while writing; delete the line");
}

static void test_noHeader(void **state) {
   (void)state;
   char *path = TestUtil_writeFile(TestUtil_groupDir, "empty.jsonl", "\n");
   SessionLog log;
   SessionLog_init(&log);
   char *cause = NULL, *notice = NULL;
   assert_int_equal(Session_read(path, &log, &notice, &cause), -1);
   char *want = xAsprintf("%s: no header line", path);
   assert_string_equal(cause, want);
   free(want);
   free(cause);
   free(path);
}

static void test_writerRefuses(void **state) {
   (void)state;
   char *path = pathIn("exists.jsonl");
   writeSession(path);
   SessionHeader h = header();
   char *cause = NULL;
   assert_null(SessionWriter_open(path, &h, &cause));
   char *want = xAsprintf("%s: File exists", path);
   assert_string_equal(cause, want);
   free(want);
   free(cause);
   cause = NULL;
   SessionEvent hdr = { .kind = SESSION_HEADER, .header = h };

   SessionWriter *w = SessionWriter_append(path, &cause);
   assert_non_null(w);
   SessionEvent ev[NEVENTS];
   events(ev);
   ev[1].measure.costs[1] = INFINITY;
   assert_int_equal(SessionWriter_add(w, &ev[1], &cause), -1);
   want = xAsprintf("%s: not writing an invalid \"measure\" event: \"costs\"[1]: expected a "
                    "finite number, found null",
                    path);
   assert_string_equal(cause, want);
   free(want);
   free(cause);
   cause = NULL;
   assert_int_equal(SessionWriter_add(w, &hdr, &cause), -1);
   free(cause);
   SessionEvent_done(&hdr);
   doneEvents(ev);
   assert_int_equal(SessionWriter_close(w, NULL), 0);
   SessionLog log;
   SessionLog_init(&log);
   readOk(path, &log);
   assert_int_equal(log.count, NEVENTS + 2);
   SessionLog_done(&log);
   free(path);
}

/* a deep copy: equal to the original, and still whole once the original is freed */
static void test_copy(void **state) {
   (void)state;
   SessionEvent ev[NEVENTS], copy[NEVENTS];
   events(ev);
   for (int i = 0; i < NEVENTS; i++)
      SessionEvent_copy(&copy[i], &ev[i]);
   for (int i = 0; i < NEVENTS; i++) {
      char *want = SessionEvent_toJson(&ev[i], true);
      SessionEvent_done(&ev[i]);
      char *got = SessionEvent_toJson(&copy[i], true);
      assert_string_equal(got, want);
      free(got);
      free(want);
   }
   assert_string_equal(copy[1].measure.state, "{\"sketch\":0}\nline two \xc3\xa9");
   doneEvents(copy);
   SessionHeader h = header();
   SessionEvent hdr = { .kind = SESSION_HEADER, .header = h }, hcopy;
   SessionEvent_copy(&hcopy, &hdr);
   SessionEvent_done(&hdr);
   assert_int_equal(hcopy.header.ntasks, 2);
   assert_string_equal(hcopy.header.tasks[1], taskKeys[1]);
   assert_string_equal(hcopy.header.network, "resnet_50");
   SessionEvent_done(&hcopy);
}

static void test_equalIgnoringTime(void **state) {
   (void)state;
   char *a = pathIn("a.jsonl"), *b = pathIn("b.jsonl");
   writeSession(a);
   writeSession(b);
   SessionLog x, y;
   SessionLog_init(&x);
   SessionLog_init(&y);
   readOk(a, &x);
   readOk(b, &y);
   assert_true(Session_equalIgnoringTime(&x, &y));
   y.events[0].header.startTime = 1800000000;
   y.events[1].elapsed = 99;
   y.events[4].model.seconds = 12.5;
   assert_true(Session_equalIgnoringTime(&x, &y));
   y.events[2].measure.costs[2] = nextafter(y.events[2].measure.costs[2], 1);
   assert_false(Session_equalIgnoringTime(&x, &y));
   y.events[2].measure.costs[2] = x.events[2].measure.costs[2];
   assert_true(Session_equalIgnoringTime(&x, &y));
   y.events[8].roundEnd.tau = 0.5;
   assert_false(Session_equalIgnoringTime(&x, &y));
   y.count--;
   assert_false(Session_equalIgnoringTime(&x, &y));
   y.count++;
   SessionLog_done(&x);
   SessionLog_done(&y);
   free(a);
   free(b);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lineText),
      cmocka_unit_test(test_roundTripFile),
      cmocka_unit_test(test_bestCounters),
      cmocka_unit_test(test_cutLastLine),
      cmocka_unit_test(test_appendAfterWholeLine),
      cmocka_unit_test(test_eventLines),
      cmocka_unit_test(test_badLines),
      cmocka_unit_test(test_noHeader),
      cmocka_unit_test(test_writerRefuses),
      cmocka_unit_test(test_equalIgnoringTime),
      cmocka_unit_test(test_copy),
      cmocka_unit_test(test_fleet),
      cmocka_unit_test(test_fleetDevices),
   };
   return cmocka_run_group_tests(tests, TestUtil_setUpGroupDir, TestUtil_tearDownGroupDir);
}
