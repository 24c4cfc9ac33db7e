/* The front of latency against error (PredTuner's Pareto front, on tensor programs):
 * per task, each precision's best measured state, kept when no other precision's best
 * is both faster and no less accurate; for the network, the estimated total latency
 * (the sum of weight x latency) each error bound allows, every task taking the fastest
 * point of its front within the bound.
 *
 * A point's error is its precision's predicted error on the task's output (what the
 * bound of a search prunes by; the session's predicted_error), with the largest error
 * measured beside it when any state of that precision was compared. Read from a view
 * (view.h), so the workbench, the console and the exports draw the same front. */
#ifndef HEADER_front
#define HEADER_front

#include "te/precision.h"
#include "tune/view.h"

typedef struct FrontPoint_ {
   Precision precision;
   double latency;              /* seconds: the precision's best */
   double error;                /* predicted; 0 for a session that records none (FP32) */
   double measured;             /* the largest measured; NAN when none was compared */
   const char *state;           /* the best state's text (the view's) */
} FrontPoint;

/* Task t's front, by error ascending (so latency descending); how many points (0 when
 * nothing was measured ok). */
int Front_task(const TuneView *v, int t, FrontPoint out[PRECISION_COUNT]);

typedef struct FrontChoice_ {
   double bound;                /* the largest error of the points chosen */
   double latencyMs;            /* the estimated total latency they give */
   Precision choice[];          /* per task, the precision chosen (FP32 when none) */
} FrontChoice;

/* The network's front: a choice per distinct bound at which the total latency falls,
 * by bound ascending; NULL when some task has no point. *n gets the count; free each
 * with free() and the array too. */
FrontChoice **Front_network(const TuneView *v, int *n);
void Front_free(FrontChoice **f, int n);

/* The fronts as text: a table per task with a point a row, then the network's front
 * with each bound's choice, as the console's `front` and export's --front print them. */
char *Front_text(const TuneView *v);
/* Task t's front alone, a point a row ("fp16  0.0050 ms  error 1.00e-03  measured
 * 1.20e-03"), for the task's details; NULL when no state computing in a precision
 * other than FP32 was measured ok. */
char *Front_taskText(const TuneView *v, int t);

#endif
