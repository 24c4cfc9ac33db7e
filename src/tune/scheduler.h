/* The task scheduler: which task of a network gets the next round of measurements.
 * Ansor's gradient strategy (ansor.md 4): one warm-up round per task in order, then
 * each round goes to the task whose next round should lower the objective
 * sum_i weight_i x best_i the most. On top, the user's controls: a priority multiplier
 * per task (0 pauses it) and a focus set. Pure and deterministic: no threads, no I/O
 * but the printers; the engine asks TaskScheduler_next for a task, runs the round and
 * reports it with TaskScheduler_done. */
#ifndef HEADER_scheduler
#define HEADER_scheduler

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "te/network.h"

/* The cost of a task with no valid measurement yet, in seconds, and of a failed
 * measurement: Ansor's 1e10 (the value of MEASURE_FAILED_COST). */
#define SCHEDULER_NO_COST 1e10

typedef struct SchedulerConfig_ {
   double alpha;                /* weight of the backward gradient against the forward one */
   double beta;                 /* scale of the similarity bound g_next_2 = beta x 1e30 */
   int backwardWindow;          /* rounds the backward gradient looks back */
   int trialBudget;             /* measurements in all; the caller sets it */
   int measuresPerRound;        /* at most this many per round: min(it, budget / tasks) */
   int perTaskEarlyStopping;    /* a task dies after more trials than this without
                                   improving; <= 0: off */
   int earlyStopping;           /* tuning stops after this many trials without the
                                   objective improving (once every task has a cost);
                                   <= 0: off */
   uint64_t seed;               /* of the tie-break when all gradients are equal */
} SchedulerConfig;

/* alpha 0.2, beta 2, backwardWindow 3 (Ansor's), trialBudget 0, measuresPerRound 10
 * (Pruner's), both early stoppings off, seed 0. */
void SchedulerConfig_default(SchedulerConfig *c);

/* Why TaskScheduler_next gives no task. */
typedef enum SchedulerStop_ {
   SCHED_GOING = 0,             /* it gives one */
   SCHED_EARLY_STOPPED,         /* no improvement for earlyStopping trials */
   SCHED_BUDGET_SPENT,
   SCHED_ALL_DEAD,
   SCHED_NONE_ELIGIBLE,         /* every live task is paused or outside the focus */
} SchedulerStop;

typedef struct TaskScheduler_ TaskScheduler;

/* A scheduler for ntasks tasks of those weights (occurrences in the network) and FLOPs
 * (of one occurrence). NULL with *cause for no tasks, a weight or FLOP count that is
 * negative or not finite, a bad alpha, beta or window, or a budget too small for one
 * round per task (measures per round <= 0, as Ansor refuses it). */
TaskScheduler *TaskScheduler_new(int ntasks, const double *weights, const double *flops,
                                 const SchedulerConfig *cfg, char **cause);
/* The same for the tasks of a network. */
TaskScheduler *TaskScheduler_newForNetwork(const Network *net, const SchedulerConfig *cfg,
                                           char **cause);
void TaskScheduler_free(TaskScheduler *s);

/* The task to give the next round, or -1 (TaskScheduler_stop says why). A task that
 * has had no round yet and may be chosen comes first, lowest index first: that is the
 * warm-up, and tasks already tuned (their rounds replayed through TaskScheduler_done)
 * skip it. Then the least of TaskScheduler_gradients over the tasks that may be chosen
 * (live, priority > 0, in the focus when there is one), the lowest index among equals;
 * when all of them are equal, one of them uniformly at random from the seeded
 * generator (Rng_below of their count; no draw when there is only one). Only that
 * draw and the end of the warm-up change the state: call it once per round. */
int TaskScheduler_next(TaskScheduler *s);
/* Records a round of task: the costs in seconds of its n measurements
 * (SCHEDULER_NO_COST for a failed one). The task dies when it measured nothing
 * (n = 0), when it still has no valid cost after a round (its warm-up), or when per-
 * task early stopping says so. Replaying the rounds of an earlier session through this
 * in their order restores a resumed run, except the tie-break draws. */
void TaskScheduler_done(TaskScheduler *s, int task, const double *costs, int n);
SchedulerStop TaskScheduler_stop(const TaskScheduler *s);

/* ---- the user's controls (the engine applies them between rounds) ---- */

/* Scales the task's urge: the gradient step compares grad_i x multiplier. Gradients
 * are <= 0, so 2 makes the task twice as urgent, 0.5 half; 0 pauses it (never chosen,
 * not even for its warm-up). -1 with *cause for a bad task or a multiplier that is
 * negative or not finite. */
int TaskScheduler_setPriority(TaskScheduler *s, int task, double multiplier, char **cause);
/* While any task is focused, only focused tasks are chosen. */
int TaskScheduler_setFocus(TaskScheduler *s, int task, bool focused, char **cause);
void TaskScheduler_clearFocus(TaskScheduler *s);
/* A new trial budget; the measures per round stay what they were. -1 with *cause for
 * a negative one. */
int TaskScheduler_setBudget(TaskScheduler *s, int trials, char **cause);

/* ---- what it knows ---- */

int TaskScheduler_tasks(const TaskScheduler *s);
int TaskScheduler_measuresPerRound(const TaskScheduler *s);
int TaskScheduler_budget(const TaskScheduler *s);
int TaskScheduler_trials(const TaskScheduler *s);          /* measurements so far */
int TaskScheduler_rounds(const TaskScheduler *s, int task);
double TaskScheduler_best(const TaskScheduler *s, int task);   /* seconds; SCHEDULER_NO_COST */
int TaskScheduler_bestRound(const TaskScheduler *s, int task); /* the round (from 1) that
                                                                  found it; 0: none */
/* The best cost after each of the task's rounds; *n of them. */
const double *TaskScheduler_history(const TaskScheduler *s, int task, int *n);
bool TaskScheduler_dead(const TaskScheduler *s, int task);
double TaskScheduler_priority(const TaskScheduler *s, int task);
bool TaskScheduler_focused(const TaskScheduler *s, int task);
/* Ansor's objective: sum_i weight_i x best_i, SCHEDULER_NO_COST counting for a task
 * without a cost. */
double TaskScheduler_objective(const TaskScheduler *s);
/* The objective in milliseconds, or NAN until every task has a valid cost. */
double TaskScheduler_latencyMs(const TaskScheduler *s);
/* flops / best / 1e9, or NAN without a valid cost. */
double TaskScheduler_gflops(const TaskScheduler *s, int task);
/* What the next gradient step compares, into grad[ntasks]: for a live task that has
 * had t >= 1 rounds,
 *    chain    = weight_i                       (d objective / d best_i)
 *    backward = (hist[t-1] - hist[t-1-W]) / W  when t-1-W >= 0, else 0
 *    forward  = min(best - best / t, beta x 1e30) - best
 *    grad_i   = chain x (alpha x backward + (1 - alpha) x forward) x priority_i;
 * 0 for a dead or paused task and for one with no round yet. */
void TaskScheduler_gradients(const TaskScheduler *s, double *grad);

/* ---- a copy for the UI, taken in one step ---- */

typedef struct SchedulerTaskView_ {
   double weight, flops;
   double best;                 /* seconds; SCHEDULER_NO_COST without a valid cost */
   double gflops;               /* NAN without a valid cost */
   double gradient;             /* as TaskScheduler_gradients */
   double priority;
   int rounds, bestRound;
   int trials;                  /* rounds x measures per round, as Ansor's table */
   bool dead, focused;
} SchedulerTaskView;

typedef struct SchedulerSnapshot_ {
   int ntasks;
   int trials, budget, measuresPerRound;
   double objective;
   double latencyMs;            /* NAN until every task has a valid cost */
   bool warmedUp;               /* the gradient steps have begun */
   bool focusActive;
   SchedulerStop stop;
   SchedulerTaskView *tasks;    /* ntasks of them */
   int capacity;
} SchedulerSnapshot;

/* Copies the scheduler's state into snap, which starts zeroed and is reused: its task
 * array grows when needed. */
void TaskScheduler_snapshot(const TaskScheduler *s, SchedulerSnapshot *snap);
/* Sets the number of tasks, growing the task array when needed; for whoever fills a
 * snapshot from elsewhere (a session's view). */
void SchedulerSnapshot_resize(SchedulerSnapshot *snap, int ntasks);
void SchedulerSnapshot_done(SchedulerSnapshot *snap);

/* Ansor's PrintTableInfo: a title, then `|  ID  | Task Description | Latency (ms) |
 * Speed (GFLOPS) | Trials |` with one row per task ("-" without a valid cost, and a
 * speed "-" when gflops is NAN; descs[i] right-aligned in 61 columns, "" when descs or
 * descs[i] is NULL), then `Estimated total latency: X ms\tTrials: N\tUsed time : S s\t
 * Next ID: K\t` (X "-" until every task has a cost). -1 when writing fails. */
int SchedulerSnapshot_printTable(const SchedulerSnapshot *snap, const char *const *descs,
                                 double elapsedSeconds, int nextTask, FILE *out);
/* One line of the tuning curve (total_latency.tsv), newline included:
 * `ElapsedTime(s)\t%.0f\tEstimatedLatency(ms)\t%.3f|N/A\tTrials\t%d`, N/A for a NAN
 * latency. Into buf as snprintf does; returns the length the whole line needs. */
size_t TaskScheduler_curveLine(char *buf, size_t size, double elapsedSeconds,
                               double latencyMs, int trials);

#endif
