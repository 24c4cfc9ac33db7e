/* The tuning engine: rounds on the simulator, the session it writes, and the command
 * queue fed from another thread. */
#include "config.h"

#include "testutil.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/model.h"
#include "tune/engine.h"
#include "tune/session.h"
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

static Engine *newEngine(const char *session, int trials) {
   bool xgb = CostModel_available(MODEL_XGB, NULL);
   EngineConfig cfg;
   EngineConfig_default(&cfg);
   char *task = TestUtil_srcPath("tests/data/tiny2.task");
   cfg.taskFile = task;
   cfg.devices = &devices;
   cfg.device = "sim:h100_sxm";
   cfg.noCompile = true;
   cfg.trials = trials;
   cfg.perRound = 5;
   cfg.costModel = xgb ? "xgb" : "random";
   char *path = xAsprintf("%s/%s", dir, session);
   cfg.sessionPath = path;
   char *cause = NULL;
   Engine *e = Engine_new(&cfg, &cause);
   if (!e)
      fail_msg("%s", cause);
   free(path);
   free(task);
   return e;
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

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_commands_between_rounds),
      cmocka_unit_test(test_stop_from_a_thread),
      cmocka_unit_test(test_model_swap),
   };
   return cmocka_run_group_tests(tests, setUp, tearDown);
}
