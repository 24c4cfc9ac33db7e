/* The task scheduler: Ansor's gradients computed by hand on a small history, the
 * warm-up, dead tasks, the budget, measures per round, the user's priorities and
 * focus, the seeded tie-break, early stopping, a whole ResNet-50 run's bookkeeping,
 * and the exact text of the table and the tuning-curve line. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "tune/scheduler.h"
#include "util/rng.h"

static TaskScheduler *make(int n, const double *weights, const double *flops, int budget,
                           uint64_t seed) {
   SchedulerConfig cfg;
   SchedulerConfig_default(&cfg);
   cfg.trialBudget = budget;
   cfg.seed = seed;
   char *cause = NULL;
   TaskScheduler *s = TaskScheduler_new(n, weights, flops, &cfg, &cause);
   if (!s)
      fail_msg("%s", cause);
   return s;
}

/* A round of n measurements whose best is best: the others are slower or failed. */
static void runRound(TaskScheduler *s, int task, double best, int n) {
   double costs[64];
   assert_true(n <= 64);
   for (int j = 0; j < n; j++)
      costs[j] = j == 0 ? best : j % 3 == 2 ? SCHEDULER_NO_COST : best * (1 + 0.1 * j);
   TaskScheduler_done(s, task, costs, n);
}

static void assertNear(double got, double want) {
   if (fabs(got - want) > 1e-15)
      fail_msg("got %.17g, expected %.17g", got, want);
}

static void assertNewFails(int n, const double *w, const double *f, const SchedulerConfig *cfg,
                           const char *want) {
   char *cause = NULL;
   assert_null(TaskScheduler_new(n, w, f, cfg, &cause));
   assert_string_equal(cause, want);
   free(cause);
}

static void test_measures_per_round(void **state) {
   (void)state;
   double w[27], f[27];
   for (int i = 0; i < 27; i++)
      w[i] = f[i] = 1;
   /* pruner.md 4.1: ResNet-50's 27 tasks and 2000 trials give 10 */
   TaskScheduler *s = make(27, w, f, 2000, 0);
   assert_int_equal(TaskScheduler_measuresPerRound(s), 10);
   TaskScheduler_free(s);
   s = make(27, w, f, 100, 0);   /* 100 / 27 = 3 */
   assert_int_equal(TaskScheduler_measuresPerRound(s), 3);
   TaskScheduler_free(s);
   s = make(3, w, f, 3, 0);
   assert_int_equal(TaskScheduler_measuresPerRound(s), 1);
   TaskScheduler_free(s);

   SchedulerConfig cfg;
   SchedulerConfig_default(&cfg);
   cfg.trialBudget = 1000;
   cfg.measuresPerRound = 64;    /* Ansor's own default: min(64, 1000 / 3) */
   char *cause = NULL;
   s = TaskScheduler_new(3, w, f, &cfg, &cause);
   assert_int_equal(TaskScheduler_measuresPerRound(s), 64);
   TaskScheduler_free(s);

   cfg.trialBudget = 2;
   assertNewFails(3, w, f, &cfg,
                  "a trial budget of 2 is too small for 3 tasks: every task needs a round, so "
                  "it must be at least 3");
   cfg.trialBudget = 100;
   double bad[3] = { 1, -2, 1 };
   assertNewFails(3, bad, f, &cfg, "task 1: weight -2 is not a finite number >= 0");
   bad[1] = NAN;
   assertNewFails(3, w, bad, &cfg, "task 1: nan FLOPs is not a finite number >= 0");
   assertNewFails(0, w, f, &cfg, "the task scheduler needs at least one task");
   cfg.alpha = 1.5;
   assertNewFails(3, w, f, &cfg, "alpha 1.5 is not in [0, 1]");
}

/* Three tasks after a hand-made history, in ms (weights 1, 2, 1; alpha 0.2; W 3):
 *   task 0: bests 8, 5, 3, 2 (t = 4)
 *     backward = (h[3] - h[0]) / 3 = (2 - 8) / 3 = -2
 *     forward  = (2 - 2/4) - 2 = -0.5
 *     grad     = 1 x (0.2 x -2 + 0.8 x -0.5) = -0.8
 *   task 1: bests 3, 2.6, 2.3, 2.1, 2.0 (t = 5)
 *     backward = (h[4] - h[1]) / 3 = (2.0 - 2.6) / 3 = -0.2
 *     forward  = -2.0 / 5 = -0.4
 *     grad     = 2 x (0.2 x -0.2 + 0.8 x -0.4) = -0.72
 *   task 2: bests 1.5, 1.2, 1.2 (t = 3; its third round only a slower and a failure)
 *     backward = 0 (t - 1 - 3 < 0)
 *     forward  = -1.2 / 3 = -0.4
 *     grad     = 1 x 0.8 x -0.4 = -0.32
 * The argmin is task 0, through its backward gradient: on the forward ones alone
 * (-0.4, -0.64, -0.32) task 1 would win. */
static TaskScheduler *handHistory(void) {
   static const double w[3] = { 1, 2, 1 }, f[3] = { 1e9, 2e9, 3e9 };
   TaskScheduler *s = make(3, w, f, 1000, 7);
   static const double t0[] = { 8, 5, 3, 2 }, t1[] = { 3, 2.6, 2.3, 2.1, 2.0 };
   for (int r = 0; r < 4; r++)
      runRound(s, 0, t0[r] * 1e-3, 1);
   for (int r = 0; r < 5; r++)
      runRound(s, 1, t1[r] * 1e-3, 1);
   runRound(s, 2, 1.5e-3, 1);
   runRound(s, 2, 1.2e-3, 1);
   double third[2] = { 1.3e-3, SCHEDULER_NO_COST };
   TaskScheduler_done(s, 2, third, 2);
   return s;
}

static void test_hand_computed_gradients(void **state) {
   (void)state;
   TaskScheduler *s = handHistory();
   double g[3];
   TaskScheduler_gradients(s, g);
   assertNear(g[0], -0.8e-3);
   assertNear(g[1], -0.72e-3);
   assertNear(g[2], -0.32e-3);
   /* every task has had rounds (a resumed run): no warm-up, straight to the gradient */
   assert_int_equal(TaskScheduler_next(s), 0);

   assert_int_equal(TaskScheduler_trials(s), 4 + 5 + 4);
   int n;
   const double *h = TaskScheduler_history(s, 2, &n);
   assert_int_equal(n, 3);
   assert_true(h[0] == 1.5e-3 && h[1] == 1.2e-3 && h[2] == 1.2e-3);
   assert_int_equal(TaskScheduler_rounds(s, 2), 3);
   assert_int_equal(TaskScheduler_bestRound(s, 2), 2);
   assert_true(TaskScheduler_best(s, 2) == 1.2e-3);
   assertNear(TaskScheduler_objective(s), 2e-3 + 2 * 2.0e-3 + 1.2e-3);
   assert_true(fabs(TaskScheduler_latencyMs(s) - 7.2) < 1e-12);
   assert_true(fabs(TaskScheduler_gflops(s, 1) - 2e9 / 2.0e-3 / 1e9) < 1e-9);   /* 1000 */
   TaskScheduler_free(s);
}

/* Priorities scale the gradient: grad_i x m. On the hand history, 2 on task 2 gives
 * -0.64, still above task 0's -0.8; 2 on task 1 gives -1.44, which wins. */
static void test_priority_multiplier(void **state) {
   (void)state;
   TaskScheduler *s = handHistory();
   char *cause = NULL;
   assert_int_equal(TaskScheduler_setPriority(s, 2, 2, &cause), 0);
   double g[3];
   TaskScheduler_gradients(s, g);
   assertNear(g[2], -0.64e-3);
   assert_int_equal(TaskScheduler_next(s), 0);
   assert_int_equal(TaskScheduler_setPriority(s, 2, 1, &cause), 0);
   assert_int_equal(TaskScheduler_setPriority(s, 1, 2, &cause), 0);
   TaskScheduler_gradients(s, g);
   assertNear(g[1], -1.44e-3);
   assert_int_equal(TaskScheduler_next(s), 1);
   assert_true(TaskScheduler_priority(s, 1) == 2);

   assert_int_equal(TaskScheduler_setPriority(s, 1, -1, &cause), -1);
   assert_string_equal(cause, "priority -1 is not a finite number >= 0");
   free(cause);
   cause = NULL;
   assert_int_equal(TaskScheduler_setPriority(s, 3, 1, &cause), -1);
   assert_string_equal(cause, "no task 3: the tasks are 0 to 2");
   free(cause);
   TaskScheduler_free(s);
}

/* Priority 0 pauses: task 0 would win, so task 1 (-0.72) comes next; with every task
 * paused there is nothing to give. */
static void test_priority_zero_pauses(void **state) {
   (void)state;
   TaskScheduler *s = handHistory();
   assert_int_equal(TaskScheduler_setPriority(s, 0, 0, NULL), 0);
   for (int k = 0; k < 5; k++) {
      int t = TaskScheduler_next(s);
      assert_true(t == 1 || t == 2);
      runRound(s, t, TaskScheduler_best(s, t) * 0.9, 10);
   }
   assert_int_equal(TaskScheduler_setPriority(s, 1, 0, NULL), 0);
   assert_int_equal(TaskScheduler_setPriority(s, 2, 0, NULL), 0);
   assert_int_equal(TaskScheduler_next(s), -1);
   assert_int_equal(TaskScheduler_stop(s), SCHED_NONE_ELIGIBLE);
   assert_int_equal(TaskScheduler_rounds(s, 0), 4);

   /* a paused task waits for its warm-up too */
   static const double w[3] = { 1, 1, 1 };
   TaskScheduler *p = make(3, w, w, 300, 0);
   assert_int_equal(TaskScheduler_setPriority(p, 0, 0, NULL), 0);
   assert_int_equal(TaskScheduler_next(p), 1);
   runRound(p, 1, 1e-3, 10);
   assert_int_equal(TaskScheduler_next(p), 2);
   runRound(p, 2, 1e-3, 10);
   assert_int_equal(TaskScheduler_setPriority(p, 0, 1, NULL), 0);
   assert_int_equal(TaskScheduler_next(p), 0);
   TaskScheduler_free(p);
   TaskScheduler_free(s);
}

static void test_focus(void **state) {
   (void)state;
   TaskScheduler *s = handHistory();
   assert_int_equal(TaskScheduler_setFocus(s, 2, true, NULL), 0);
   assert_int_equal(TaskScheduler_next(s), 2);
   assert_true(TaskScheduler_focused(s, 2));
   assert_int_equal(TaskScheduler_setFocus(s, 1, true, NULL), 0);
   assert_int_equal(TaskScheduler_next(s), 1);   /* -0.72 < -0.32 */
   assert_int_equal(TaskScheduler_setFocus(s, 1, false, NULL), 0);
   assert_int_equal(TaskScheduler_next(s), 2);
   /* a focused task that is paused leaves nothing */
   assert_int_equal(TaskScheduler_setPriority(s, 2, 0, NULL), 0);
   assert_int_equal(TaskScheduler_next(s), -1);
   assert_int_equal(TaskScheduler_stop(s), SCHED_NONE_ELIGIBLE);
   TaskScheduler_clearFocus(s);
   assert_false(TaskScheduler_focused(s, 2));
   assert_int_equal(TaskScheduler_next(s), 0);
   char *cause = NULL;
   assert_int_equal(TaskScheduler_setFocus(s, -1, true, &cause), -1);
   assert_string_equal(cause, "no task -1: the tasks are 0 to 2");
   free(cause);
   TaskScheduler_free(s);
}

static void test_warm_up_order_and_resume(void **state) {
   (void)state;
   static const double w[4] = { 1, 1, 1, 1 };
   TaskScheduler *s = make(4, w, w, 400, 0);
   SchedulerSnapshot snap = { 0 };
   for (int i = 0; i < 4; i++) {
      assert_int_equal(TaskScheduler_next(s), i);
      TaskScheduler_snapshot(s, &snap);
      assert_false(snap.warmedUp);
      assert_true(isnan(snap.latencyMs));
      runRound(s, i, 1e-3 * (i + 1), 10);
   }
   assert_true(fabs(TaskScheduler_latencyMs(s) - 10.0) < 1e-12);
   TaskScheduler_free(s);

   /* a resumed run: tasks 1 and 3 were tuned before, so the warm-up is 0 then 2 */
   s = make(4, w, w, 400, 0);
   runRound(s, 1, 1e-3, 10);
   runRound(s, 3, 1e-3, 10);
   assert_int_equal(TaskScheduler_next(s), 0);
   runRound(s, 0, 1e-3, 10);
   assert_int_equal(TaskScheduler_next(s), 2);
   runRound(s, 2, 1e-3, 10);
   TaskScheduler_snapshot(s, &snap);
   assert_false(snap.warmedUp);
   TaskScheduler_next(s);
   TaskScheduler_snapshot(s, &snap);
   assert_true(snap.warmedUp);
   SchedulerSnapshot_done(&snap);
   TaskScheduler_free(s);
}

/* After a warm-up with bests 1 to 4 ms there is no backward gradient yet (t = 1), so
 * grad_i = 1 x 0.8 x -best_i / 1 = -0.8, -1.6, -2.4, -3.2 ms: the slowest task wins. */
static void test_first_gradient_step(void **state) {
   (void)state;
   static const double w[4] = { 1, 1, 1, 1 };
   TaskScheduler *s = make(4, w, w, 400, 0);
   for (int i = 0; i < 4; i++) {
      assert_int_equal(TaskScheduler_next(s), i);
      runRound(s, i, 1e-3 * (i + 1), 10);
   }
   double g[4];
   TaskScheduler_gradients(s, g);
   for (int i = 0; i < 4; i++)
      assertNear(g[i], -0.8e-3 * (i + 1));
   assert_int_equal(TaskScheduler_next(s), 3);
   TaskScheduler_free(s);
}

static void test_dead_tasks(void **state) {
   (void)state;
   static const double w[3] = { 1, 1, 1 };
   TaskScheduler *s = make(3, w, w, 3000, 0);
   double fails[10];
   for (int j = 0; j < 10; j++)
      fails[j] = SCHEDULER_NO_COST;
   assert_int_equal(TaskScheduler_next(s), 0);
   runRound(s, 0, 1e-3, 10);
   assert_int_equal(TaskScheduler_next(s), 1);
   TaskScheduler_done(s, 1, fails, 10);   /* its warm-up found no valid program */
   assert_true(TaskScheduler_dead(s, 1));
   assert_int_equal(TaskScheduler_next(s), 2);
   runRound(s, 2, 2e-3, 10);
   double g[3];
   TaskScheduler_gradients(s, g);
   assert_true(g[1] == 0);
   for (int k = 0; k < 20; k++) {
      int t = TaskScheduler_next(s);
      assert_true(t == 0 || t == 2);
      runRound(s, t, TaskScheduler_best(s, t) * 0.95, 10);
   }
   assert_true(isnan(TaskScheduler_latencyMs(s)));
   assert_true(isnan(TaskScheduler_gflops(s, 1)));

   /* a round that measured nothing kills its task */
   int t = TaskScheduler_next(s);
   int trials = TaskScheduler_trials(s), rounds = TaskScheduler_rounds(s, t);
   TaskScheduler_done(s, t, NULL, 0);
   assert_true(TaskScheduler_dead(s, t));
   assert_int_equal(TaskScheduler_trials(s), trials);
   assert_int_equal(TaskScheduler_rounds(s, t), rounds + 1);
   int other = t == 0 ? 2 : 0;
   assert_int_equal(TaskScheduler_next(s), other);
   TaskScheduler_done(s, other, NULL, 0);
   assert_int_equal(TaskScheduler_next(s), -1);
   assert_int_equal(TaskScheduler_stop(s), SCHED_ALL_DEAD);
   TaskScheduler_free(s);
}

static void test_budget(void **state) {
   (void)state;
   static const double w[3] = { 1, 1, 1 };
   TaskScheduler *s = make(3, w, w, 30, 0);
   assert_int_equal(TaskScheduler_measuresPerRound(s), 10);
   for (int i = 0; i < 3; i++) {
      assert_int_equal(TaskScheduler_next(s), i);
      runRound(s, i, 1e-3, 10);
   }
   assert_int_equal(TaskScheduler_trials(s), 30);
   assert_int_equal(TaskScheduler_next(s), -1);
   assert_int_equal(TaskScheduler_stop(s), SCHED_BUDGET_SPENT);

   assert_int_equal(TaskScheduler_setBudget(s, 50, NULL), 0);
   assert_int_equal(TaskScheduler_budget(s), 50);
   assert_int_equal(TaskScheduler_stop(s), SCHED_GOING);
   for (int k = 0; k < 2; k++) {
      int t = TaskScheduler_next(s);
      assert_true(t >= 0);
      runRound(s, t, 0.5e-3, 10);
   }
   assert_int_equal(TaskScheduler_next(s), -1);
   assert_int_equal(TaskScheduler_measuresPerRound(s), 10);

   /* lowering it below what was spent stops at once */
   assert_int_equal(TaskScheduler_setBudget(s, 500, NULL), 0);
   assert_true(TaskScheduler_next(s) >= 0);
   assert_int_equal(TaskScheduler_setBudget(s, 20, NULL), 0);
   assert_int_equal(TaskScheduler_next(s), -1);
   char *cause = NULL;
   assert_int_equal(TaskScheduler_setBudget(s, -5, &cause), -1);
   assert_string_equal(cause, "the trial budget -5 is negative");
   free(cause);
   TaskScheduler_free(s);
}

/* With every gradient equal the choice is Rng_below(eligible) from the seeded
 * generator: the same seed gives the same choices. */
static void test_tie_break(void **state) {
   (void)state;
   static const double w[3] = { 1, 1, 1 };
   int picks[2][20];
   for (int run = 0; run < 2; run++) {
      TaskScheduler *s = make(3, w, w, 300, 42);
      for (int i = 0; i < 3; i++) {
         assert_int_equal(TaskScheduler_next(s), i);
         runRound(s, i, 1e-3, 10);
      }
      for (int k = 0; k < 20; k++)
         picks[run][k] = TaskScheduler_next(s);
      TaskScheduler_free(s);
   }
   Rng r;
   Rng_seed(&r, 42);
   bool seen[3] = { false, false, false };
   for (int k = 0; k < 20; k++) {
      assert_int_equal(picks[0][k], (int)Rng_below(&r, 3));
      assert_int_equal(picks[1][k], picks[0][k]);
      seen[picks[0][k]] = true;
   }
   assert_true(seen[0] && seen[1] && seen[2]);

   /* only the eligible ones take part: with task 1 paused, {0, 2}[Rng_below(2)] */
   TaskScheduler *s = make(3, w, w, 300, 9);
   for (int i = 0; i < 3; i++) {
      assert_int_equal(TaskScheduler_next(s), i);
      runRound(s, i, 1e-3, 10);
   }
   assert_int_equal(TaskScheduler_setPriority(s, 1, 0, NULL), 0);
   Rng_seed(&r, 9);
   for (int k = 0; k < 20; k++)
      assert_int_equal(TaskScheduler_next(s), Rng_below(&r, 2) == 0 ? 0 : 2);
   TaskScheduler_free(s);
}

static void test_early_stopping(void **state) {
   (void)state;
   static const double w[2] = { 1, 1 };
   SchedulerConfig cfg;
   SchedulerConfig_default(&cfg);
   cfg.trialBudget = 1000;
   cfg.perTaskEarlyStopping = 15;
   TaskScheduler *s = TaskScheduler_new(2, w, w, &cfg, NULL);
   runRound(s, 0, 1e-3, 10);
   runRound(s, 0, 0.9e-3, 10);   /* improves in round 2 */
   runRound(s, 0, 1.0e-3, 10);   /* 10 trials without improving: not more than 15 */
   assert_false(TaskScheduler_dead(s, 0));
   runRound(s, 0, 1.0e-3, 10);   /* 20 */
   assert_true(TaskScheduler_dead(s, 0));
   assert_int_equal(TaskScheduler_bestRound(s, 0), 2);
   TaskScheduler_free(s);

   /* global: counted from the end of the warm-up (20 trials), and from each
    * improvement of the objective after it */
   SchedulerConfig_default(&cfg);
   cfg.trialBudget = 1000;
   cfg.earlyStopping = 20;
   s = TaskScheduler_new(2, w, w, &cfg, NULL);
   for (int i = 0; i < 2; i++) {
      assert_int_equal(TaskScheduler_next(s), i);
      runRound(s, i, 1e-3, 10);
   }
   int t = TaskScheduler_next(s);
   runRound(s, t, 0.5e-3, 10);   /* improves at 30 trials */
   runRound(s, TaskScheduler_next(s), 2e-3, 10);
   assert_int_equal(TaskScheduler_stop(s), SCHED_GOING);   /* 40 - 30 < 20 */
   runRound(s, TaskScheduler_next(s), 2e-3, 10);
   assert_int_equal(TaskScheduler_stop(s), SCHED_EARLY_STOPPED);   /* 50 - 30 */
   assert_int_equal(TaskScheduler_next(s), -1);
   TaskScheduler_free(s);
}

/* ResNet-50 with 2000 trials (pruner.md 4.1): 10 per round, the warm-up in task
 * order, the estimated latency known from the 27th round on, gradients never above
 * 0 (Ansor asserts it), and 200 rounds in all. */
static void test_resnet_50_run(void **state) {
   (void)state;
   Network net;
   TestUtil_loadNetwork(&net, "models/resnet_50.task");
   SchedulerConfig cfg;
   SchedulerConfig_default(&cfg);
   cfg.trialBudget = 2000;
   char *cause = NULL;
   TaskScheduler *s = TaskScheduler_newForNetwork(&net, &cfg, &cause);
   if (!s)
      fail_msg("%s", cause);
   assert_int_equal(TaskScheduler_tasks(s), 27);
   assert_int_equal(TaskScheduler_measuresPerRound(s), 10);
   double g[27];
   int rounds = 0;
   for (int t; (t = TaskScheduler_next(s)) >= 0; rounds++) {
      if (rounds < 27)
         assert_int_equal(t, rounds);
      else {
         TaskScheduler_gradients(s, g);
         for (int i = 0; i < 27; i++)
            assert_true(g[i] <= 0);
      }
      int r = TaskScheduler_rounds(s, t) + 1;
      runRound(s, t, 1e-5 * (1 + t % 5) * (1 + 2.0 / r), 10);
      assert_true(isnan(TaskScheduler_latencyMs(s)) == (rounds < 26));
   }
   assert_int_equal(rounds, 200);
   assert_int_equal(TaskScheduler_trials(s), 2000);
   assert_int_equal(TaskScheduler_stop(s), SCHED_BUDGET_SPENT);
   int sum = 0;
   double objective = 0;
   for (int i = 0; i < 27; i++) {
      sum += TaskScheduler_rounds(s, i);
      objective += (double)net.tasks[i].weight * TaskScheduler_best(s, i);
   }
   assert_int_equal(sum, 200);
   assert_true(fabs(TaskScheduler_objective(s) - objective) <= 1e-12 * objective);
   TaskScheduler_free(s);
   Network_done(&net);
}

static void test_table_and_curve_text(void **state) {
   (void)state;
   static const double w[2] = { 2, 1 }, f[2] = { 1e9, 4e8 };
   static const char *const descs[2] = { "dense_m8_n64_k16+relu", "softmax_12" };
   TaskScheduler *s = make(2, w, f, 20, 0);
   SchedulerSnapshot snap = { 0 };
   assert_int_equal(TaskScheduler_next(s), 0);
   runRound(s, 0, 0.5e-3, 10);
   TaskScheduler_snapshot(s, &snap);
   char *text = TestUtil_tableText(&snap, descs, 12.4, 1);
   assert_string_equal(text,
      TESTUTIL_TABLE_TITLE
      "|    0 |                                         dense_m8_n64_k16+relu |        0.500 |        2000.00 |     10 |\n"
      "|    1 |                                                    softmax_12 |            - |              - |      0 |\n"
      TESTUTIL_TABLE_RULE
      "Estimated total latency: - ms\tTrials: 10\tUsed time : 12 s\tNext ID: 1\t\n");
   free(text);
   char line[128];
   size_t n = TaskScheduler_curveLine(line, sizeof line, 12.4, snap.latencyMs, snap.trials);
   assert_string_equal(line, "ElapsedTime(s)\t12\tEstimatedLatency(ms)\tN/A\tTrials\t10\n");
   assert_int_equal(n, strlen(line));

   assert_int_equal(TaskScheduler_next(s), 1);
   runRound(s, 1, 0.25e-3, 10);
   TaskScheduler_snapshot(s, &snap);
   assert_int_equal(snap.stop, SCHED_BUDGET_SPENT);
   text = TestUtil_tableText(&snap, descs, 25.4, -1);
   assert_string_equal(text,
      TESTUTIL_TABLE_TITLE
      "|    0 |                                         dense_m8_n64_k16+relu |        0.500 |        2000.00 |     10 |\n"
      "|    1 |                                                    softmax_12 |        0.250 |        1600.00 |     10 |\n"
      TESTUTIL_TABLE_RULE
      "Estimated total latency: 1.250 ms\tTrials: 20\tUsed time : 25 s\tNext ID: -1\t\n");
   free(text);
   TaskScheduler_curveLine(line, sizeof line, 25.4, snap.latencyMs, snap.trials);
   assert_string_equal(line, "ElapsedTime(s)\t25\tEstimatedLatency(ms)\t1.250\tTrials\t20\n");
   /* cut like snprintf, with the whole length returned */
   char small[8];
   assert_int_equal(TaskScheduler_curveLine(small, sizeof small, 25.4, 1.25, 20), strlen(line));
   assert_string_equal(small, "Elapsed");

   /* no descriptions: empty cells */
   text = TestUtil_tableText(&snap, NULL, 0, 0);
   assert_non_null(strstr(text, "|    1 |                                                               |        0.250 |"));
   free(text);
   SchedulerSnapshot_done(&snap);
   TaskScheduler_free(s);
}

static void test_snapshot(void **state) {
   (void)state;
   TaskScheduler *s = handHistory();
   assert_int_equal(TaskScheduler_setPriority(s, 2, 0.5, NULL), 0);
   assert_int_equal(TaskScheduler_setFocus(s, 1, true, NULL), 0);
   SchedulerSnapshot snap = { 0 };
   TaskScheduler_snapshot(s, &snap);
   assert_int_equal(snap.ntasks, 3);
   assert_int_equal(snap.trials, 13);
   assert_int_equal(snap.budget, 1000);
   assert_int_equal(snap.measuresPerRound, 10);
   assert_true(snap.focusActive);
   assert_int_equal(snap.stop, SCHED_GOING);
   assertNear(snap.objective, 7.2e-3);
   assert_true(fabs(snap.latencyMs - 7.2) < 1e-12);
   const SchedulerTaskView *t = &snap.tasks[2];
   assert_true(t->weight == 1 && t->flops == 3e9 && t->best == 1.2e-3);
   assert_true(fabs(t->gflops - 2500) < 1e-9);
   assertNear(t->gradient, -0.16e-3);
   assert_true(t->priority == 0.5);
   assert_int_equal(t->rounds, 3);
   assert_int_equal(t->bestRound, 2);
   assert_int_equal(t->trials, 30);
   assert_false(t->dead);
   assert_false(t->focused);
   assert_true(snap.tasks[1].focused);
   SchedulerSnapshot_done(&snap);
   assert_null(snap.tasks);
   TaskScheduler_free(s);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_measures_per_round),
      cmocka_unit_test(test_hand_computed_gradients),
      cmocka_unit_test(test_priority_multiplier),
      cmocka_unit_test(test_priority_zero_pauses),
      cmocka_unit_test(test_focus),
      cmocka_unit_test(test_warm_up_order_and_resume),
      cmocka_unit_test(test_first_gradient_step),
      cmocka_unit_test(test_dead_tasks),
      cmocka_unit_test(test_budget),
      cmocka_unit_test(test_tie_break),
      cmocka_unit_test(test_early_stopping),
      cmocka_unit_test(test_resnet_50_run),
      cmocka_unit_test(test_table_and_curve_text),
      cmocka_unit_test(test_snapshot),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
