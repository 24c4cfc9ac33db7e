/* The tuning engine: rounds on the simulator, the session it writes, and the command
 * queue fed from another thread. */
#include "config.h"

#include "testutil.h"

#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/model.h"
#include "measure/measure.h"
#include "measure/verify.h"
#include "tune/engine.h"
#include "tune/session.h"
#include "tune/thread.h"
#include "tune/view.h"
#include "util/xalloc.h"

static DeviceSet devices;
static char *dir;

static int setUp(void **state) {
   (void)state;
   DeviceSet_init(&devices);
   TestUtil_loadDevices(&devices);
   dir = TestUtil_tempDir();
   return 0;
}

static int tearDown(void **state) {
   (void)state;
   DeviceSet_done(&devices);
   TestUtil_removeTree(dir);
   free(dir);
   return 0;
}

/* tiny2 (or taskFile) on the simulator, 5 a round, xgb when built in */
typedef struct {
   EngineConfig cfg;
   char *taskFile, *session;    /* the paths cfg points to */
} TestConfig;

static void config(TestConfig *c, const char *taskFile, const char *session, int trials, const SessionLog *resume,
                   const char *model) {
   EngineConfig_default(&c->cfg);
   c->taskFile = TestUtil_srcPath(taskFile);
   c->session = xAsprintf("%s/%s", dir, session);
   c->cfg.taskFile = c->taskFile;
   c->cfg.sessionPath = c->session;
   c->cfg.devices = &devices;
   c->cfg.device = "sim:h100_sxm";
   c->cfg.noCompile = true;
   c->cfg.trials = trials;
   c->cfg.perRound = 5;
   c->cfg.costModel = model ? model : CostModel_available(MODEL_XGB, NULL) ? "xgb" : "random";
   c->cfg.resume = resume;
}

static void doneConfig(TestConfig *c) {
   free(c->taskFile);
   free(c->session);
}

static Engine *newEngineFor(const char *taskFile, const char *session, int trials, const SessionLog *resume) {
   TestConfig c;
   config(&c, taskFile, session, trials, resume, NULL);
   char *cause = NULL;
   Engine *e = Engine_new(&c.cfg, &cause);
   if (!e)
      fail_msg("%s", cause);
   doneConfig(&c);
   return e;
}

static Engine *newEngine(const char *session, int trials) {
   return newEngineFor("tests/data/tiny2.task", session, trials, NULL);
}

/* Engine_new's message for a session that cannot be resumed */
static char *resumeRefusal(const char *taskFile, const char *session, const SessionLog *resume) {
   TestConfig c;
   config(&c, taskFile, session, 30, resume, "random");
   char *cause = NULL;
   Engine *e = Engine_new(&c.cfg, &cause);
   assert_null(e);
   doneConfig(&c);
   return cause;
}

static void readSession(const char *session, SessionLog *log) {
   char *path = xAsprintf("%s/%s", dir, session);
   char *notice = NULL, *cause = NULL;
   SessionLog_init(log);
   if (Session_read(path, log, &notice, &cause) < 0)
      fail_msg("%s", cause);
   assert_null(notice);
   free(path);
}

static int countKind(const SessionLog *log, SessionEventKind k) {
   int n = 0;
   for (int i = 0; i < log->count; i++)
      n += log->events[i].kind == k;
   return n;
}

/* the commands a thread queues before the rounds */
static void *sendSetup(void *arg) {
   Engine *e = arg;
   Engine_command(e, "pause 1");
   Engine_command(e, "budget 30");
   Engine_command(e, "bogus 3");
   Engine_command(e, "prio 9 2");
   return NULL;
}

static void test_commands_between_rounds(void **state) {
   (void)state;
   Engine *e = newEngine("cmd.jsonl", 20);
   pthread_t th;
   assert_int_equal(pthread_create(&th, NULL, sendSetup, e), 0);
   pthread_join(th, NULL);
   char *cause = NULL;
   int r;
   while ((r = Engine_runRound(e, &cause)) > 0) {
      EngineRoundInfo info;
      Engine_lastRound(e, &info);
      assert_int_equal(info.task, 0);   /* task 1 is paused */
   }
   assert_int_equal(r, 0);
   assert_int_equal(Engine_rounds(e), 6);   /* budget 30, 5 a round */
   assert_int_equal(TaskScheduler_trials(Engine_scheduler(e)), 30);
   SessionEnd why;
   assert_true(Engine_finished(e, &why));
   assert_int_equal(why, SESSION_END_BUDGET);
   Engine_free(e);

   SessionLog log;
   readSession("cmd.jsonl", &log);
   assert_int_equal(countKind(&log, SESSION_COMMAND), 4);
   assert_int_equal(countKind(&log, SESSION_MEASURE), 30);
   const char *texts[4] = { "pause 1", "budget 30", "bogus 3", "prio 9 2" };
   const bool applied[4] = { true, true, false, false };
   /* right after the header, before the first round */
   for (int i = 0; i < 4; i++) {
      const SessionEvent *ev = &log.events[1 + i];
      assert_int_equal(ev->kind, SESSION_COMMAND);
      assert_string_equal(ev->command.text, texts[i]);
      assert_int_equal(ev->command.applied, applied[i]);
   }
   assert_int_equal(log.events[5].kind, SESSION_ROUND);
   SessionLog_done(&log);
}

static atomic_int roundsSeen;

static void *sendStop(void *arg) {
   Engine *e = arg;
   while (atomic_load(&roundsSeen) < 2)
      sched_yield();
   Engine_command(e, "stop");
   return NULL;
}

static void test_stop_from_a_thread(void **state) {
   (void)state;
   Engine *e = newEngine("stop.jsonl", 1000);
   atomic_store(&roundsSeen, 0);
   pthread_t th;
   assert_int_equal(pthread_create(&th, NULL, sendStop, e), 0);
   char *cause = NULL;
   int r;
   bool joined = false;
   while ((r = Engine_runRound(e, &cause)) > 0) {
      atomic_fetch_add(&roundsSeen, 1);
      if (Engine_rounds(e) >= 2 && !joined) {
         pthread_join(th, NULL);   /* the stop is queued before the next round */
         joined = true;
      }
   }
   assert_int_equal(r, 0);
   assert_int_equal(Engine_rounds(e), 2);
   SessionEnd why;
   assert_true(Engine_finished(e, &why));
   assert_int_equal(why, SESSION_END_STOPPED);
   Engine_free(e);
   SessionLog log;
   readSession("stop.jsonl", &log);
   const SessionEvent *last = &log.events[log.count - 1];
   assert_int_equal(last->kind, SESSION_FINISHED);
   assert_int_equal(last->finished.why, SESSION_END_STOPPED);
   assert_int_equal(log.events[log.count - 2].kind, SESSION_COMMAND);
   assert_string_equal(log.events[log.count - 2].command.text, "stop");
   assert_true(log.events[log.count - 2].command.applied);
   SessionLog_done(&log);
}

static void test_model_swap(void **state) {
   (void)state;
   Engine *e = newEngine("swap.jsonl", 20);
   char *cause = NULL;
   assert_int_equal(Engine_runRound(e, &cause), 1);
   Engine_command(e, "model random");
   Engine_command(e, "model nonsense");
   assert_int_equal(Engine_runRound(e, &cause), 1);
   assert_string_equal(Engine_costModel(e), "random");
   assert_non_null(Engine_lastRefusal(e));
   while (Engine_runRound(e, &cause) > 0)
      ;
   assert_int_equal(TaskScheduler_trials(Engine_scheduler(e)), 20);
   Engine_free(e);
}

/* ---- the engine's thread ---- */

typedef struct {
   int n, cap;
   SessionEvent *events;
} Events;

static void addEvents(Events *c, SessionEvent *evs, int n) {
   if (n == 0)
      return;                   /* evs is NULL */
   if (c->n + n > c->cap) {
      c->cap = 2 * (c->n + n);
      c->events = xReallocArray(c->events, (size_t)c->cap, sizeof *c->events);
   }
   memcpy(c->events + c->n, evs, (size_t)n * sizeof *evs);
   c->n += n;
   free(evs);
}

static int findCommand(const Events *c, const char *text) {
   for (int i = 0; i < c->n; i++)
      if (c->events[i].kind == SESSION_COMMAND && strcmp(c->events[i].command.text, text) == 0)
         return i;
   return -1;
}

/* Pause the whole engine after its first round, check that nothing happens while it
 * is paused, send a priority and resume; every event reaches the UI side once, in the
 * session's order. */
static void test_thread_pause_resume(void **state) {
   (void)state;
   Engine *e = newEngine("thread.jsonl", 30);
   char *cause = NULL;
   EngineThread *t = EngineThread_start(e, &cause);
   if (!t)
      fail_msg("%s", cause);
   Events got = { 0 };
   bool pauseSent = false, resumeSent = false, ended = false;
   while (!ended) {
      struct pollfd p = { .fd = EngineThread_fd(t), .events = POLLIN };
      assert_int_equal(poll(&p, 1, 60000), 1);
      SessionEvent *evs;
      int n;
      ended = EngineThread_take(t, &evs, &n);
      addEvents(&got, evs, n);
      bool roundEnded = false;
      for (int i = 0; i < got.n; i++)
         roundEnded |= got.events[i].kind == SESSION_ROUND_END;
      if (roundEnded && !pauseSent) {
         EngineThread_command(t, "pause");
         pauseSent = true;
      }
      int at = findCommand(&got, "pause");
      if (at >= 0 && !resumeSent) {
         assert_true(got.events[at].command.applied);
         /* paused: no event for a while */
         p.revents = 0;
         int quiet = poll(&p, 1, 300);
         assert_int_equal(quiet, 0);
         EngineThread_command(t, "prio 1 0");
         EngineThread_command(t, "resume");
         resumeSent = true;
      }
   }
   assert_int_equal(EngineThread_join(t, &cause), 0);
   assert_int_equal(TaskScheduler_trials(Engine_scheduler(e)), 30);
   Engine_free(e);

   SessionLog log;
   readSession("thread.jsonl", &log);
   assert_int_equal(got.n, log.count - 1);
   for (int i = 0; i < got.n; i++) {
      char *want = SessionEvent_toJson(&log.events[i + 1], true);
      char *have = SessionEvent_toJson(&got.events[i], true);
      assert_string_equal(have, want);
      free(want);
      free(have);
   }
   int at = findCommand(&got, "pause");
   assert_int_equal(got.events[at + 1].kind, SESSION_COMMAND);
   assert_string_equal(got.events[at + 1].command.text, "prio 1 0");
   assert_true(got.events[at + 1].command.applied);
   assert_string_equal(got.events[at + 2].command.text, "resume");
   assert_true(got.events[at + 2].command.applied);
   assert_int_equal(got.events[at + 3].kind, SESSION_ROUND);
   for (int i = at + 3; i < got.n; i++)
      if (got.events[i].kind == SESSION_ROUND)
         assert_int_equal(got.events[i].roundStart.task, 0);   /* task 1 is on hold */
   assert_int_equal(got.events[got.n - 1].kind, SESSION_FINISHED);
   assert_int_equal(got.events[got.n - 1].finished.why, SESSION_END_BUDGET);
   for (int i = 0; i < got.n; i++)
      SessionEvent_done(&got.events[i]);
   free(got.events);
   SessionLog_done(&log);
}

/* /proc (top -H, htop) shows the engine's threads by name: the model's trainer from
 * the start, the engine's thread while it runs. The random model, which starts no
 * BLAS or OpenMP threads; the ones the tests before started from a trainer (and so
 * named "train", as threads take the name of the thread that starts them) may live
 * on, so the counts are against those before. */
static void test_thread_names(void **state) {
   (void)state;
   /* the engines of the tests before have ended */
   int train = 0, engine = 0;
   assert_int_equal(TestUtil_threadsNamedSettle("train", train), train);
   assert_int_equal(TestUtil_threadsNamedSettle("engine", engine), engine);
   TestConfig c;
   config(&c, "tests/data/tiny2.task", "names.jsonl", 10, NULL, "random");
   char *cause = NULL;
   Engine *e = Engine_new(&c.cfg, &cause);
   if (!e)
      fail_msg("%s", cause);
   doneConfig(&c);
   assert_int_equal(TestUtil_threadsNamedSettle("train", train + 1), train + 1);
   assert_int_equal(TestUtil_threadsNamedSettle("engine", engine), engine);
   EngineThread *t = EngineThread_start(e, &cause);
   if (!t)
      fail_msg("%s", cause);
   assert_int_equal(TestUtil_threadsNamedSettle("engine", engine + 1), engine + 1);
   assert_int_equal(EngineThread_join(t, &cause), 0);
   assert_int_equal(TestUtil_threadsNamedSettle("engine", engine), engine);
   Engine_free(e);
   assert_int_equal(TestUtil_threadsNamedSettle("train", train), train);
}

/* ---- --resume ---- */

/* the text of the file's first `lines` lines */
static char *firstLines(const char *text, int lines) {
   const char *p = text;
   for (int i = 0; i < lines; i++)
      p = strchr(p, '\n') + 1;
   return xAsprintf("%.*s", (int)(p - text), text);
}

/* A run cut after the measurements of its 4th round (killed while the model trained,
 * with half a line written) goes on exactly: nothing it wrote is lost, no state is
 * measured again, the budget command it had applied holds, the round goes on where it
 * was cut, and the session ends as the uninterrupted run's did. */
static void test_resume_after_a_cut(void **state) {
   (void)state;
   Engine *e = newEngine("full.jsonl", 30);
   Engine_command(e, "budget 40");
   char *cause = NULL;
   while (Engine_runRound(e, &cause) > 0)
      ;
   Engine_free(e);
   SessionLog full;
   readSession("full.jsonl", &full);
   /* the last measurement of round 4 */
   int cut = 0;
   for (int i = 0; i < full.count; i++)
      if (full.events[i].kind == SESSION_MEASURE && full.events[i].round == 4)
         cut = i + 1;           /* lines kept: events 0 .. i */
   assert_true(cut > 0);
   char *path = xAsprintf("%s/full.jsonl", dir);
   char *text = TestUtil_readFile(path);
   char *kept = firstLines(text, cut);
   char *cutText = xAsprintf("%s{\"event\":\"model\",\"round\":4,\"t\":0.", kept);
   free(TestUtil_writeFile(dir, "cut.jsonl", cutText));

   SessionLog log;
   SessionLog_init(&log);
   char *cutPath = xAsprintf("%s/cut.jsonl", dir), *notice = NULL;
   if (Session_read(cutPath, &log, &notice, &cause) < 0)
      fail_msg("%s", cause);
   assert_non_null(notice);
   free(notice);
   e = newEngineFor("tests/data/tiny2.task", "cut.jsonl", 30, &log);
   SessionLog_done(&log);
   assert_int_equal(Engine_rounds(e), 4);
   assert_int_equal(TaskScheduler_trials(Engine_scheduler(e)), 20);
   assert_int_equal(TaskScheduler_budget(Engine_scheduler(e)), 40);
   while (Engine_runRound(e, &cause) > 0)
      ;
   assert_int_equal(TaskScheduler_trials(Engine_scheduler(e)), 40);
   Engine_free(e);

   char *after = TestUtil_readFile(cutPath);
   assert_int_equal(strncmp(after, kept, strlen(kept)), 0);
   SessionLog res;
   readSession("cut.jsonl", &res);
   const SessionEvent *r = &res.events[cut];
   assert_int_equal(r->kind, SESSION_RESUMED);
   assert_int_equal(r->resumed.trials, 20);
   assert_int_equal(r->round, 4);
   /* the round cut short goes on where it was cut: its model event comes next */
   assert_int_equal(res.events[cut + 1].kind, SESSION_MODEL);
   assert_int_equal(res.events[cut + 1].round, 4);
   assert_int_equal(countKind(&res, SESSION_MEASURE), 40);
   /* and the whole is what the uninterrupted run wrote, the clock aside */
   assert_true(Session_equalIgnoringTime(&res, &full));
   for (int i = 0; i < res.count; i++)
      for (int j = i + 1; j < res.count; j++)
         if (res.events[i].kind == SESSION_MEASURE && res.events[j].kind == SESSION_MEASURE &&
             res.events[i].measure.task == res.events[j].measure.task)
            assert_string_not_equal(res.events[i].measure.state, res.events[j].measure.state);
   assert_int_equal(res.events[res.count - 1].kind, SESSION_FINISHED);
   assert_int_equal(res.events[res.count - 1].finished.why, SESSION_END_BUDGET);
   SessionLog_done(&res);
   SessionLog_done(&full);
   free(after);
   free(cutPath);
   free(cutText);
   free(kept);
   free(text);
   free(path);
}

/* ---- the counters of each task's best ---- */

/* Tunes tiny2 to the end with counters chosen so; Engine_counters' answer. */
static EngineCounters tuneWithCounters(const char *session, int trials, EngineCounters counters) {
   TestConfig c;
   config(&c, "tests/data/tiny2.task", session, trials, NULL, NULL);
   c.cfg.counters = counters;
   char *cause = NULL;
   Engine *e = Engine_new(&c.cfg, &cause);
   if (!e)
      fail_msg("%s", cause);
   doneConfig(&c);
   EngineCounters got = Engine_counters(e);
   while (Engine_runRound(e, &cause) > 0)
      ;
   assert_null(cause);
   Engine_free(e);
   return got;
}

static char *countersText(const Counters *c) {
   cJSON *o = Counters_toJson(c);
   assert_non_null(o);
   char *text = cJSON_PrintUnformatted(o);
   cJSON_Delete(o);
   return text;
}

/* The state of a best event: the measurement of its round and task whose median is
 * its latency. */
static const SessionEvent *bestMeasure(const SessionLog *log, const SessionEvent *best) {
   for (int i = 0; i < log->count; i++) {
      const SessionEvent *m = &log->events[i];
      if (m->kind == SESSION_MEASURE && m->round == best->round && m->measure.task == best->best.task &&
          strcmp(m->measure.error, "ok") == 0 && Measure_median(m->measure.costs, m->measure.ncosts) == best->best.latency)
         return m;
   }
   return NULL;
}

/* On the simulator every measurement carries counters, and each best event keeps its
 * state's: those `measure --counters` gives that state, to the bit. The view puts
 * them beside the task's best. */
static void test_best_counters(void **state) {
   (void)state;
   assert_int_equal(tuneWithCounters("every.jsonl", 30, ENGINE_COUNTERS_AUTO), ENGINE_COUNTERS_EVERY);
   SessionLog log;
   readSession("every.jsonl", &log);

   Network net;
   char *cause = NULL;
   char *taskFile = TestUtil_srcPath("tests/data/tiny2.task");
   if (Network_load(&net, taskFile, &cause) < 0)
      fail_msg("%s", cause);
   MeasurerConfig mc;
   MeasurerConfig_default(&mc);
   mc.device = "sim:h100_sxm";
   mc.devices = &devices;
   mc.simNoCompile = true;
   mc.counters = true;
   Measurer *m = Measurer_open(&mc, &cause);
   if (!m)
      fail_msg("%s", cause);
   SchedLimits lim;
   SchedLimits_fromDevice(&lim, Measurer_device(m));
   int bests = 0;
   const SessionEvent *last[2] = { NULL, NULL };
   for (int i = 0; i < log.count; i++) {
      const SessionEvent *b = &log.events[i];
      if (b->kind != SESSION_BEST)
         continue;
      bests++;
      last[b->best.task] = b;
      assert_true(b->best.counters.present);
      assert_true(b->best.counters.simulated);
      assert_int_equal(b->best.counters.known, COUNTERS_ALL_FIELDS);
      const SessionEvent *ms = bestMeasure(&log, b);
      assert_non_null(ms);
      const Task *task = &net.tasks[b->best.task];
      SketchSet set;
      SketchSet_forOp(&set, &task->op);
      State st;
      if (State_parse(&set, ms->measure.state, &lim, &st, &cause) < 0 || Measurer_setTask(m, task, &set, &cause) < 0)
         fail_msg("%s", cause);
      MeasureOutcome o;
      Measurer_measure(m, &st, 1, &o);
      assert_int_equal(o.error, MEASURE_OK);
      char *want = countersText(&o.counters), *got = countersText(&b->best.counters);
      assert_string_equal(got, want);
      free(want);
      free(got);
      SketchSet_done(&set);
   }
   assert_int_equal(bests, 3);

   TuneView v;
   TuneView_init(&v, &log.events[0].header, &net);
   for (int i = 1; i < log.count; i++)
      TuneView_apply(&v, &log.events[i]);
   for (int t = 0; t < 2; t++) {
      assert_non_null(last[t]);
      char *want = countersText(&last[t]->best.counters), *got = countersText(&v.tasks[t].bestCounters);
      assert_string_equal(got, want);
      free(want);
      free(got);
      assert_true(v.tasks[t].best == last[t]->best.latency);
   }
   TuneView_done(&v);
   Measurer_close(m);
   Network_done(&net);
   free(taskFile);
   SessionLog_done(&log);
}

/* A GPU's policy on the simulator: no counters with the measurements, each new best
 * measured once more with them; the session is the one every measurement's counters
 * give. */
static void test_best_counters_measured_again(void **state) {
   (void)state;
   assert_int_equal(tuneWithCounters("every2.jsonl", 30, ENGINE_COUNTERS_EVERY), ENGINE_COUNTERS_EVERY);
   assert_int_equal(tuneWithCounters("bests.jsonl", 30, ENGINE_COUNTERS_BEST), ENGINE_COUNTERS_BEST);
   SessionLog every, bests;
   readSession("every2.jsonl", &every);
   readSession("bests.jsonl", &bests);
   assert_int_equal(countKind(&bests, SESSION_BEST), 3);
   for (int i = 0; i < bests.count; i++)
      if (bests.events[i].kind == SESSION_BEST)
         assert_true(bests.events[i].best.counters.present);
   assert_true(Session_equalIgnoringTime(&every, &bests));
   SessionLog_done(&every);
   SessionLog_done(&bests);
}

/* A session written before the counters (its best events without them), cut after the
 * measurements of its third round, goes on exactly: its bests stay without, and the
 * bests after the resume have them, the third round's too, whose measurements came
 * from the file without counters: its best is measured once more. */
static void test_resume_without_counters(void **state) {
   (void)state;
   tuneWithCounters("with.jsonl", 30, ENGINE_COUNTERS_AUTO);
   SessionLog full;
   readSession("with.jsonl", &full);
   int cut = 0;
   for (int i = 0; i < full.count; i++)
      if (full.events[i].kind == SESSION_MEASURE && full.events[i].round == 3)
         cut = i + 1;
   assert_true(cut > 0);
   char *text = xStrdup("");
   for (int i = 0; i < cut; i++) {
      if (full.events[i].kind == SESSION_BEST)
         full.events[i].best.counters.present = false;
      char *line = SessionEvent_toJson(&full.events[i], true), *more = xAsprintf("%s%s\n", text, line);
      free(line);
      free(text);
      text = more;
   }
   assert_null(strstr(text, "\"counters\""));
   free(TestUtil_writeFile(dir, "old.jsonl", text));
   free(text);
   SessionLog old;
   readSession("old.jsonl", &old);
   Engine *e = newEngineFor("tests/data/tiny2.task", "old.jsonl", 30, &old);
   SessionLog_done(&old);
   char *cause = NULL;
   while (Engine_runRound(e, &cause) > 0)
      ;
   Engine_free(e);
   SessionLog res;
   readSession("old.jsonl", &res);
   assert_int_equal(res.events[cut].kind, SESSION_RESUMED);
   assert_string_equal(res.events[cut].resumed.notice, "");   /* exact */
   int before = 0, after = 0;
   for (int i = 0; i < res.count; i++)
      if (res.events[i].kind == SESSION_BEST) {
         bool early = i < cut;
         before += early;
         after += !early;
         assert_int_equal(res.events[i].best.counters.present, !early);
      }
   assert_int_equal(before, 2);
   assert_int_equal(after, 1);
   assert_true(Session_equalIgnoringTime(&res, &full));
   SessionLog_done(&res);
   SessionLog_done(&full);
}

/* a session of another network, and one with a state that does not parse */
static void test_resume_refusals(void **state) {
   (void)state;
   Engine *e = newEngine("small.jsonl", 10);
   char *cause = NULL;
   while (Engine_runRound(e, &cause) > 0)
      ;
   Engine_free(e);
   SessionLog log;
   readSession("small.jsonl", &log);
   char *path = xAsprintf("%s/small.jsonl", dir);
   Network other;
   char *otherFile = TestUtil_srcPath("tests/data/batch4.task");
   if (Network_load(&other, otherFile, &cause) < 0)
      fail_msg("%s", cause);
   char *msg = resumeRefusal("tests/data/batch4.task", "small.jsonl", &log);
   char *want = xAsprintf("%s: the session has 2 tasks, but %s has %d", path, other.path, other.ntasks);
   assert_string_equal(msg, want);
   free(msg);
   free(want);
   Network_done(&other);
   free(otherFile);

   /* the first measurement's state broken */
   int at = 0;
   while (log.events[at].kind != SESSION_MEASURE)
      at++;
   free(log.events[at].measure.state);
   log.events[at].measure.state = xStrdup("{\"v\":1,\"sketch\":7}");
   msg = resumeRefusal("tests/data/tiny2.task", "small.jsonl", &log);
   want = xAsprintf("%s:%d: the state of task %d does not parse: ", path, at + 1, log.events[at].measure.task);
   assert_int_equal(strncmp(msg, want, strlen(want)), 0);
   free(msg);
   free(want);
   SessionLog_done(&log);
   free(path);
}

/* The precision of a measure event's state: its text's "precision", FP32 without. */
static Precision statePrecision(const char *text) {
   const char *at = strstr(text, "\"precision\":\"");
   Precision p = PRECISION_FP32;
   if (at) {
      char name[8] = "";
      sscanf(at + 13, "%7[a-z0-9]", name);
      assert_int_equal(Precision_parse(name, &p), 0);
   }
   return p;
}

/* BERT-tiny with --precision auto --max-error 3e-3, its engine built */
static Engine *autoEngine(TestConfig *c, const char *session, int trials, const char *checkpoint) {
   config(c, "models/bert_tiny.task", session, trials, NULL, NULL);
   if (checkpoint) {
      c->cfg.costModel = NULL;
      c->cfg.loadModel = checkpoint;
   }
   c->cfg.precisionAuto = true;
   c->cfg.precisions = (1u << PRECISION_COUNT) - 1;
   c->cfg.maxError = 3e-3;
   char *cause = NULL;
   Engine *e = Engine_new(&c->cfg, &cause);
   if (!e)
      fail_msg("%s", cause);
   return e;
}

/* --precision auto --max-error 3e-3 on BERT-tiny: BF16 (unit roundoff 2^-8) is predicted
 * above the bound on every dense and batch_matmul, FP16 and TF32 (2^-11) below it; the
 * layer norm and the softmax have no matrix multiply. */
static void test_precision_bound(void **state) {
   (void)state;
   TestConfig c;
   Engine *e = autoEngine(&c, "tc.jsonl", 60, NULL);
   char *cause = NULL;
   const Network *net = Engine_network(e);
   assert_int_equal(net->ntasks, 8);
   for (int t = 0; t < net->ntasks; t++) {
      const OpParams *op = &net->tasks[t].op;
      unsigned want = PRECISION_BIT(PRECISION_FP32);
      if (op->kind == OP_DENSE || op->kind == OP_BATCH_MATMUL) {
         assert_true(Verify_predictOpError(op, PRECISION_BF16) > 3e-3);
         assert_true(Verify_predictOpError(op, PRECISION_FP16) < 3e-3);
         assert_true(Verify_predictOpError(op, PRECISION_TF32) < 3e-3);
         want |= PRECISION_BIT(PRECISION_FP16) | PRECISION_BIT(PRECISION_TF32);
      }
      assert_int_equal(Engine_taskPrecisions(e, t), want);
   }
   /* split over the network: 23 occurrences in all, so 3e-3 / sqrt(23) a task */
   assert_true(Engine_taskBound(3e-3, false, net) == 3e-3);
   assert_true(Engine_taskBound(3e-3, true, net) == 3e-3 / sqrt(23));
   assert_true(isnan(Engine_taskBound(0, true, net)));
   /* a model from nothing knows every precision as well as any: no round verifies by PSA */
   for (int t = 0; t < net->ntasks; t++)
      assert_false(Engine_verifiesByPsa(e, t));
   assert_string_equal(Engine_precisionNote(e), "precision auto, max error 0.003: fp16 on 6, bf16 on 0, tf32 on 6 of 6 "
                                                "tasks with a matrix multiply (2 have none)");
   while (Engine_runRound(e, &cause) > 0)
      ;
   Engine_free(e);
   SessionLog log;
   readSession("tc.jsonl", &log);
   assert_string_equal(log.events[0].header.precision, "auto");
   assert_true(log.events[0].header.maxError == 3e-3);
   int tensorCore = 0, compared = 0;
   Network net2;
   if (Network_load(&net2, c.taskFile, &cause) < 0)
      fail_msg("%s", cause);
   for (int i = 1; i < log.count; i++) {
      const SessionEvent *ev = &log.events[i];
      if (ev->kind != SESSION_MEASURE)
         continue;
      Precision p = statePrecision(ev->measure.state);
      assert_int_not_equal(p, PRECISION_BF16);
      tensorCore += p != PRECISION_FP32;
      /* the prediction is the task's, for the state's precision */
      assert_true(ev->measure.predictedError == Verify_predictOpError(&net2.tasks[ev->measure.task].op, p));
      if (!isnan(ev->measure.outputError)) {
         compared++;
         assert_true(ev->measure.outputError < 3e-3);
         if (p != PRECISION_FP32)
            assert_true(ev->measure.outputError > 1e-5);
      }
   }
   assert_true(tensorCore > 0);
   assert_true(compared > 0);
   Network_done(&net2);
   SessionLog_done(&log);

   /* an explicit precision the device lacks */
   c.cfg.device = "sim:t4";
   c.cfg.precisionAuto = false;
   c.cfg.precisions = PRECISION_BIT(PRECISION_FP32) | PRECISION_BIT(PRECISION_BF16);
   free(c.session);
   c.session = xAsprintf("%s/t4.jsonl", dir);
   c.cfg.sessionPath = c.session;
   assert_null(Engine_new(&c.cfg, &cause));
   assert_string_equal(cause, "--precision fp32,bf16: t4 (compute capability 7.5) has no bf16 Tensor Cores");
   free(cause);
   /* auto takes what it has: FP16 alone (mma.sync's m16n8k8 on compute capability 7.5) */
   c.cfg.precisionAuto = true;
   c.cfg.precisions = (1u << PRECISION_COUNT) - 1;
   c.cfg.maxError = 0;
   e = Engine_new(&c.cfg, &cause);
   if (!e)
      fail_msg("%s", cause);
   assert_int_equal(Engine_taskPrecisions(e, 1), PRECISION_BIT(PRECISION_FP32) | PRECISION_BIT(PRECISION_FP16));
   assert_int_equal(Engine_taskPrecisions(e, 0), PRECISION_BIT(PRECISION_FP32));
   assert_string_equal(Engine_precisionNote(e), "precision auto: fp16 on 6 of 6 tasks with a matrix multiply (2 have "
                                                "none)");
   Engine_free(e);
   /* and before 7.5 nothing */
   c.cfg.device = "sim:v100";
   free(c.session);
   c.session = xAsprintf("%s/v100.jsonl", dir);
   c.cfg.sessionPath = c.session;
   e = Engine_new(&c.cfg, &cause);
   if (!e)
      fail_msg("%s", cause);
   assert_int_equal(Engine_taskPrecisions(e, 1), PRECISION_BIT(PRECISION_FP32));
   assert_string_equal(Engine_precisionNote(e), "precision auto: the device has none of these Tensor-Core precisions; "
                                                "FP32 alone");
   Engine_free(e);
   doneConfig(&c);
}

/* The shipped PAM checkpoint learned FP32 states alone: the tasks that offer fp16 or
 * tf32 verify by PSA until the run has measured ENGINE_PRECISION_LEARNED states of
 * each; the layer norm and the softmax, which offer FP32 alone, by the model. */
static void test_precision_fallback(void **state) {
   (void)state;
   TestConfig c;
   char *ckpt = TestUtil_srcPath("models/pam-sim-t4-holdout5.ckpt");
   Engine *e = autoEngine(&c, "fallback.jsonl", 96, ckpt);
   char *cause = NULL;
   const Network *net = Engine_network(e);
   for (int t = 0; t < net->ntasks; t++) {
      bool matmul = net->tasks[t].op.kind == OP_DENSE || net->tasks[t].op.kind == OP_BATCH_MATMUL;
      assert_int_equal(Engine_verifiesByPsa(e, t), matmul);
   }
   assert_non_null(strstr(Engine_precisionNote(e), "; the verify model's checkpoint learned no fp16, tf32 state: the "
                                                   "tasks that offer one verify by PSA until this run has measured 10 "
                                                   "of each"));
   while (Engine_runRound(e, &cause) > 0)
      ;
   /* after the run: PSA verifies exactly while fp16 or tf32 has fewer than 10 */
   SessionLog log;
   readSession("fallback.jsonl", &log);
   int ok[PRECISION_COUNT] = { 0 };
   for (int i = 1; i < log.count; i++)
      if (log.events[i].kind == SESSION_MEASURE && strcmp(log.events[i].measure.error, "ok") == 0)
         ok[statePrecision(log.events[i].measure.state)]++;
   bool few = ok[PRECISION_FP16] < ENGINE_PRECISION_LEARNED || ok[PRECISION_TF32] < ENGINE_PRECISION_LEARNED;
   assert_true(ok[PRECISION_FP16] + ok[PRECISION_TF32] > 0);
   assert_int_equal(Engine_verifiesByPsa(e, 1), few);
   assert_false(Engine_verifiesByPsa(e, 0));
   SessionLog_done(&log);
   Engine_free(e);
   free(ckpt);
   doneConfig(&c);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_precision_fallback),
      cmocka_unit_test(test_precision_bound),
      cmocka_unit_test(test_commands_between_rounds),
      cmocka_unit_test(test_stop_from_a_thread),
      cmocka_unit_test(test_model_swap),
      cmocka_unit_test(test_thread_pause_resume),
      cmocka_unit_test(test_thread_names),
      cmocka_unit_test(test_resume_after_a_cut),
      cmocka_unit_test(test_resume_refusals),
      cmocka_unit_test(test_best_counters),
      cmocka_unit_test(test_best_counters_measured_again),
      cmocka_unit_test(test_resume_without_counters),
   };
   return cmocka_run_group_tests(tests, setUp, tearDown);
}
