/* The lines a tuning run prints as it goes: --batch prints them from the engine's
 * events and --replay from a session's, both folded into a view first, through these,
 * so that the two cannot drift apart. */
#ifndef HEADER_progress
#define HEADER_progress

#include <stdio.h>

#include "tune/scheduler.h"
#include "tune/session.h"
#include "tune/view.h"

/* What a run prints of its view: the tasks' names for the table and the table's
 * snapshot, reused. */
typedef struct Progress_ {
   FILE *out;
   const TuneView *view;
   const char **descs;
   SchedulerSnapshot snap;
} Progress;

void Progress_init(Progress *p, FILE *out, const TuneView *view);
void Progress_done(Progress *p);

/* What event e shows, once the view has folded it in:
 *   command    `command: TEXT (applied)` or `(refused)`
 *   round_end  `round R  task T  trials N/B  task best X ms[ *]  estimated total Y ms`
 *              (X, Y "-" when unknown), and the scheduler's table every 10 rounds
 *   resumed    `resumed: N trials done`
 *   finished   `finished: WHY`
 * and nothing for the other kinds. */
void Progress_event(Progress *p, const SessionEvent *e);
/* The end: the table, `Estimated total latency: X ms  Trials: N  Used time: S s`, the
 * means of the rounds' draft acceptance and Kendall tau, and of the draft and verify
 * models' pairwise accuracy on the measured states. */
void Progress_end(Progress *p, double elapsed);

#endif
