/* The lines a tuning run prints as it goes: --batch prints them from the engine and
 * --replay from a session's view, through these, so that the two cannot drift apart. */
#ifndef HEADER_progress
#define HEADER_progress

#include <stdbool.h>
#include <stdio.h>

#include "tune/scheduler.h"
#include "tune/session.h"

/* What a round's line says. */
typedef struct ProgressRound_ {
   int round, task;
   int trials, budget;          /* after the round */
   double taskBest;             /* seconds; NAN while the task has no valid cost */
   bool improved;               /* the round improved the task's best */
   double latencyMs;            /* estimated total; NAN until every task has a cost */
} ProgressRound;

/* `round R  task T  trials N/B  task best X ms[ *]  estimated total Y ms`, X and Y "-"
 * when unknown. */
void Progress_round(FILE *out, const ProgressRound *r);
/* `finished: WHY` */
void Progress_finished(FILE *out, SessionEnd why);
/* The scheduler's table, as Ansor prints it, with no next task. */
void Progress_table(FILE *out, const SchedulerSnapshot *snap, const char *const *descs, double elapsed);
/* `Estimated total latency: X ms  Trials: N  Used time: S s` and the means of the
 * rounds' draft acceptance and Kendall tau. */
void Progress_summary(FILE *out, double latencyMs, int trials, double elapsed, double meanAcceptance,
                      int nAcceptance, double meanTau, int nTau);

#endif
