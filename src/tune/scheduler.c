/* Ansor's gradient task scheduler (ansor.md 4) with the user's priorities and focus. */
#include "config.h"

#include "tune/scheduler.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/rng.h"
#include "util/textbuf.h"
#include "util/xalloc.h"

/* Ansor's upper bound for the next round's cost from a similar task; no op declares
 * similarity groups, so it is this constant times beta and never the smaller one. */
#define NO_SIMILARITY_BOUND 1e30

typedef struct {
   double weight, flops;
   double best;
   int rounds, bestRound;
   double *history;             /* best after each round; rounds of them */
   int historyCap;
   double priority;
   bool dead, focused;
} TaskSlot;

struct TaskScheduler_ {
   SchedulerConfig cfg;
   int ntasks;
   TaskSlot *tasks;
   int measuresPerRound;
   int budget;
   int trials;
   bool warmedUp;
   int bestTrials;              /* trials when the objective last improved */
   double bestObjective;
   bool earlyStopped;
   int nfocused;
   Rng rng;
};

void SchedulerConfig_default(SchedulerConfig *c) {
   *c = (SchedulerConfig){
      .alpha = 0.2,
      .beta = 2,
      .backwardWindow = 3,
      .trialBudget = 0,
      .measuresPerRound = 10,
      .perTaskEarlyStopping = 0,
      .earlyStopping = 0,
      .seed = 0,
   };
}

static bool validCost(double cost) {
   return cost < SCHEDULER_NO_COST;
}

static int checkConfig(int ntasks, const double *weights, const double *flops,
                       const SchedulerConfig *cfg, char **cause) {
   if (ntasks <= 0)
      return setCause(cause, "the task scheduler needs at least one task");
   for (int i = 0; i < ntasks; i++) {
      if (!isfinite(weights[i]) || weights[i] < 0)
         return setCause(cause, "task %d: weight %g is not a finite number >= 0", i, weights[i]);
      if (!isfinite(flops[i]) || flops[i] < 0)
         return setCause(cause, "task %d: %g FLOPs is not a finite number >= 0", i, flops[i]);
   }
   if (!(cfg->alpha >= 0 && cfg->alpha <= 1))
      return setCause(cause, "alpha %g is not in [0, 1]", cfg->alpha);
   if (!(cfg->beta > 0) || !isfinite(cfg->beta))
      return setCause(cause, "beta %g is not a finite number > 0", cfg->beta);
   if (cfg->backwardWindow < 1)
      return setCause(cause, "the backward window %d is not >= 1", cfg->backwardWindow);
   if (cfg->trialBudget < 0)
      return setCause(cause, "the trial budget %d is negative", cfg->trialBudget);
   if (cfg->measuresPerRound < 1)
      return setCause(cause, "measures per round %d is not >= 1", cfg->measuresPerRound);
   if (cfg->trialBudget / ntasks <= 0)
      return setCause(cause,
                      "a trial budget of %d is too small for %d tasks: every task needs a "
                      "round, so it must be at least %d",
                      cfg->trialBudget, ntasks, ntasks);
   return 0;
}

TaskScheduler *TaskScheduler_new(int ntasks, const double *weights, const double *flops,
                                 const SchedulerConfig *cfg, char **cause) {
   if (checkConfig(ntasks, weights, flops, cfg, cause) < 0)
      return NULL;
   TaskScheduler *s = xCalloc(1, sizeof *s);
   s->cfg = *cfg;
   s->ntasks = ntasks;
   s->tasks = xCalloc((size_t)ntasks, sizeof *s->tasks);
   for (int i = 0; i < ntasks; i++) {
      TaskSlot *t = &s->tasks[i];
      t->weight = weights[i];
      t->flops = flops[i];
      t->best = SCHEDULER_NO_COST;
      t->priority = 1;
   }
   int perTask = cfg->trialBudget / ntasks;
   s->measuresPerRound = cfg->measuresPerRound < perTask ? cfg->measuresPerRound : perTask;
   s->budget = cfg->trialBudget;
   Rng_seed(&s->rng, cfg->seed);
   return s;
}

TaskScheduler *TaskScheduler_newForNetwork(const Network *net, const SchedulerConfig *cfg,
                                           char **cause) {
   int n = net->ntasks;
   double *weights = xMalloc((size_t)(n > 0 ? n : 1) * sizeof *weights);
   double *flops = xMalloc((size_t)(n > 0 ? n : 1) * sizeof *flops);
   for (int i = 0; i < n; i++) {
      weights[i] = (double)net->tasks[i].weight;
      flops[i] = net->tasks[i].flops;
   }
   TaskScheduler *s = TaskScheduler_new(n, weights, flops, cfg, cause);
   free(weights);
   free(flops);
   return s;
}

void TaskScheduler_free(TaskScheduler *s) {
   if (!s)
      return;
   for (int i = 0; i < s->ntasks; i++)
      free(s->tasks[i].history);
   free(s->tasks);
   free(s);
}

static const TaskSlot *slotOf(const TaskScheduler *s, int task) {
   if (task < 0 || task >= s->ntasks)
      fatal("task scheduler: task %d of %d", task, s->ntasks);
   return &s->tasks[task];
}

static bool eligible(const TaskScheduler *s, int i) {
   const TaskSlot *t = &s->tasks[i];
   return !t->dead && t->priority > 0 && (s->nfocused == 0 || t->focused);
}

static bool everyCostValid(const TaskScheduler *s) {
   for (int i = 0; i < s->ntasks; i++)
      if (!validCost(s->tasks[i].best))
         return false;
   return true;
}

double TaskScheduler_objective(const TaskScheduler *s) {
   double sum = 0;
   for (int i = 0; i < s->ntasks; i++)
      sum += s->tasks[i].weight * s->tasks[i].best;
   return sum;
}

double TaskScheduler_latencyMs(const TaskScheduler *s) {
   return everyCostValid(s) ? TaskScheduler_objective(s) * 1e3 : NAN;
}

SchedulerStop TaskScheduler_stop(const TaskScheduler *s) {
   if (s->earlyStopped)
      return SCHED_EARLY_STOPPED;
   if (s->trials >= s->budget)
      return SCHED_BUDGET_SPENT;
   bool anyLive = false, anyEligible = false;
   for (int i = 0; i < s->ntasks; i++) {
      anyLive |= !s->tasks[i].dead;
      anyEligible |= eligible(s, i);
   }
   if (!anyLive)
      return SCHED_ALL_DEAD;
   return anyEligible ? SCHED_GOING : SCHED_NONE_ELIGIBLE;
}

/* Ansor's gradient of task i, times its priority (ansor.md 4.3). */
static double gradientOf(const TaskScheduler *s, int i) {
   const TaskSlot *t = &s->tasks[i];
   if (t->dead || t->rounds == 0 || t->priority == 0)
      return 0;
   /* the objective is a weighted sum, so its derivative along best_i is the weight */
   double chain = t->weight;
   int last = t->rounds - 1, window = s->cfg.backwardWindow;
   double backward = 0;
   if (last - window >= 0)
      backward = (t->history[last] - t->history[last - window]) / window;
   double nextBest = fmin(t->best - t->best / t->rounds, s->cfg.beta * NO_SIMILARITY_BOUND);
   double forward = nextBest - t->best;
   double alpha = s->cfg.alpha;
   return chain * (alpha * backward + (1 - alpha) * forward) * t->priority;
}

void TaskScheduler_gradients(const TaskScheduler *s, double *grad) {
   for (int i = 0; i < s->ntasks; i++)
      grad[i] = gradientOf(s, i);
}

int TaskScheduler_next(TaskScheduler *s) {
   if (TaskScheduler_stop(s) != SCHED_GOING)
      return -1;
   for (int i = 0; i < s->ntasks; i++)
      if (eligible(s, i) && s->tasks[i].rounds == 0)
         return i;
   if (!s->warmedUp) {
      /* Ansor counts global early stopping from the end of the warm-up */
      s->warmedUp = true;
      s->bestTrials = s->trials;
      s->bestObjective = TaskScheduler_objective(s);
   }
   int pick = -1, neligible = 0;
   double lo = INFINITY, hi = -INFINITY;
   for (int i = 0; i < s->ntasks; i++) {
      if (!eligible(s, i))
         continue;
      double g = gradientOf(s, i);
      neligible++;
      if (g < lo) {
         lo = g;
         pick = i;
      }
      hi = fmax(hi, g);
   }
   if (lo != hi || neligible == 1)
      return pick;
   /* all equal: a uniform choice among them, as Ansor's np.random.choice */
   uint64_t k = Rng_below(&s->rng, (uint64_t)neligible);
   for (int i = 0; i < s->ntasks; i++)
      if (eligible(s, i) && k-- == 0)
         return i;
   fatal("task scheduler: no eligible task after counting %d", neligible);
}

static void pushHistory(TaskSlot *t) {
   if (t->rounds > t->historyCap) {
      t->historyCap = t->historyCap ? 2 * t->historyCap : 16;
      t->history = xReallocArray(t->history, (size_t)t->historyCap, sizeof *t->history);
   }
   t->history[t->rounds - 1] = t->best;
}

void TaskScheduler_done(TaskScheduler *s, int task, const double *costs, int n) {
   slotOf(s, task);
   if (n < 0)
      fatal("task scheduler: a round of %d measurements", n);
   TaskSlot *t = &s->tasks[task];
   t->rounds++;
   for (int j = 0; j < n; j++)
      if (costs[j] < t->best) {
         t->best = costs[j];
         t->bestRound = t->rounds;
      }
   pushHistory(t);
   s->trials += n;
   /* Ansor marks a task without a cost dead at the end of the warm-up; nothing tunes
    * it again before then, so marking it after its round is the same */
   if (n == 0 || !validCost(t->best))
      t->dead = true;
   int stale = (t->rounds - t->bestRound) * s->measuresPerRound;
   if (s->cfg.perTaskEarlyStopping > 0 && stale > s->cfg.perTaskEarlyStopping)
      t->dead = true;
   if (!s->warmedUp || s->cfg.earlyStopping <= 0)
      return;
   double objective = TaskScheduler_objective(s);
   if (objective < s->bestObjective) {
      s->bestObjective = objective;
      s->bestTrials = s->trials;
   } else if (s->trials - s->bestTrials >= s->cfg.earlyStopping && everyCostValid(s)) {
      s->earlyStopped = true;
   }
}

/* ---- controls ---- */

static int checkTask(const TaskScheduler *s, int task, char **cause) {
   if (task < 0 || task >= s->ntasks)
      return setCause(cause, "no task %d: the tasks are 0 to %d", task, s->ntasks - 1);
   return 0;
}

int TaskScheduler_setPriority(TaskScheduler *s, int task, double multiplier, char **cause) {
   if (checkTask(s, task, cause) < 0)
      return -1;
   if (!isfinite(multiplier) || multiplier < 0)
      return setCause(cause, "priority %g is not a finite number >= 0", multiplier);
   s->tasks[task].priority = multiplier;
   return 0;
}

int TaskScheduler_setFocus(TaskScheduler *s, int task, bool focused, char **cause) {
   if (checkTask(s, task, cause) < 0)
      return -1;
   TaskSlot *t = &s->tasks[task];
   if (t->focused != focused)
      s->nfocused += focused ? 1 : -1;
   t->focused = focused;
   return 0;
}

void TaskScheduler_clearFocus(TaskScheduler *s) {
   for (int i = 0; i < s->ntasks; i++)
      s->tasks[i].focused = false;
   s->nfocused = 0;
}

int TaskScheduler_setBudget(TaskScheduler *s, int trials, char **cause) {
   if (trials < 0)
      return setCause(cause, "the trial budget %d is negative", trials);
   s->budget = trials;
   return 0;
}

/* ---- accessors ---- */

int TaskScheduler_tasks(const TaskScheduler *s) {
   return s->ntasks;
}

int TaskScheduler_measuresPerRound(const TaskScheduler *s) {
   return s->measuresPerRound;
}

int TaskScheduler_budget(const TaskScheduler *s) {
   return s->budget;
}

int TaskScheduler_trials(const TaskScheduler *s) {
   return s->trials;
}

int TaskScheduler_rounds(const TaskScheduler *s, int task) {
   return slotOf(s, task)->rounds;
}

double TaskScheduler_best(const TaskScheduler *s, int task) {
   return slotOf(s, task)->best;
}

int TaskScheduler_bestRound(const TaskScheduler *s, int task) {
   return slotOf(s, task)->bestRound;
}

const double *TaskScheduler_history(const TaskScheduler *s, int task, int *n) {
   const TaskSlot *t = slotOf(s, task);
   *n = t->rounds;
   return t->history;
}

bool TaskScheduler_dead(const TaskScheduler *s, int task) {
   return slotOf(s, task)->dead;
}

double TaskScheduler_priority(const TaskScheduler *s, int task) {
   return slotOf(s, task)->priority;
}

bool TaskScheduler_focused(const TaskScheduler *s, int task) {
   return slotOf(s, task)->focused;
}

double TaskScheduler_gflops(const TaskScheduler *s, int task) {
   const TaskSlot *t = slotOf(s, task);
   return validCost(t->best) ? t->flops / t->best / 1e9 : NAN;
}

void SchedulerSnapshot_resize(SchedulerSnapshot *snap, int ntasks) {
   if (snap->capacity < ntasks) {
      snap->tasks = xReallocArray(snap->tasks, (size_t)ntasks, sizeof *snap->tasks);
      snap->capacity = ntasks;
   }
   snap->ntasks = ntasks;
}

void TaskScheduler_snapshot(const TaskScheduler *s, SchedulerSnapshot *snap) {
   SchedulerSnapshot_resize(snap, s->ntasks);
   snap->trials = s->trials;
   snap->budget = s->budget;
   snap->measuresPerRound = s->measuresPerRound;
   snap->objective = TaskScheduler_objective(s);
   snap->latencyMs = TaskScheduler_latencyMs(s);
   snap->warmedUp = s->warmedUp;
   snap->focusActive = s->nfocused > 0;
   snap->stop = TaskScheduler_stop(s);
   for (int i = 0; i < s->ntasks; i++) {
      const TaskSlot *t = &s->tasks[i];
      snap->tasks[i] = (SchedulerTaskView){
         .weight = t->weight,
         .flops = t->flops,
         .best = t->best,
         .gflops = TaskScheduler_gflops(s, i),
         .gradient = gradientOf(s, i),
         .priority = t->priority,
         .rounds = t->rounds,
         .bestRound = t->bestRound,
         .trials = t->rounds * s->measuresPerRound,
         .dead = t->dead,
         .focused = t->focused,
      };
   }
}

void SchedulerSnapshot_done(SchedulerSnapshot *snap) {
   free(snap->tasks);
   *snap = (SchedulerSnapshot){ 0 };
}

/* ---- printers ---- */

#define TABLE_RULE \
   "----------------------------------------------------------------" \
   "-------------------------------------------------\n"

int SchedulerSnapshot_printTable(const SchedulerSnapshot *snap, const char *const *descs,
                                 double elapsedSeconds, int nextTask, FILE *out) {
   /* Ansor's PrintTitle, then its table */
   fputs("----------------------------------------------------------------------\n"
         "------------------------------  [ Task Scheduler ]\n"
         "----------------------------------------------------------------------\n",
         out);
   fputs("|  ID  |                       Task Description                        "
         "| Latency (ms) | Speed (GFLOPS) | Trials |\n",
         out);
   fputs(TABLE_RULE, out);
   for (int i = 0; i < snap->ntasks; i++) {
      const SchedulerTaskView *t = &snap->tasks[i];
      char latency[32] = "-", speed[32] = "-";
      if (validCost(t->best))
         snprintf(latency, sizeof latency, "%.3f", t->best * 1e3);
      if (validCost(t->best) && !isnan(t->gflops))
         snprintf(speed, sizeof speed, "%.2f", t->gflops);
      const char *desc = descs && descs[i] ? descs[i] : "";
      fprintf(out, "| %4d | %61s | %12s | %14s | %6d |\n", i, desc, latency, speed, t->trials);
   }
   fputs(TABLE_RULE, out);
   char total[32] = "-";
   if (!isnan(snap->latencyMs))
      snprintf(total, sizeof total, "%.3f", snap->latencyMs);
   fprintf(out, "Estimated total latency: %s ms\tTrials: %d\tUsed time : %.0f s\tNext ID: %d\t\n",
           total, snap->trials, elapsedSeconds, nextTask);
   return ferror(out) ? -1 : 0;
}

size_t TaskScheduler_curveLine(char *buf, size_t size, double elapsedSeconds,
                               double latencyMs, int trials) {
   TextBuf t = TextBuf_over(buf, size);
   TextBuf_add(&t, "ElapsedTime(s)\t%.0f\tEstimatedLatency(ms)\t", elapsedSeconds);
   if (isnan(latencyMs))
      TextBuf_add(&t, "N/A");
   else
      TextBuf_add(&t, "%.3f", latencyMs);
   TextBuf_add(&t, "\tTrials\t%d\n", trials);
   return t.len;
}
