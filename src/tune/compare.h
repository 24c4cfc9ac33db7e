/* Sessions side by side (`pruner-tui --compare`), computed once for the text and the
 * screen: each session's tuning curve (the estimated total latency at each round end,
 * against trials and against a clock that goes on across resumes), each task's best
 * latency (the least median of its successful measurements, as export and the engine
 * take it), the ratios to the first session's and the weighted totals; and the text
 * of the lines that both show. */
#ifndef HEADER_compare
#define HEADER_compare

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tune/session.h"

#define COMPARE_MAX 8
/* the width of the task column in the text's per-task table */
#define COMPARE_WHAT_WIDTH 56

typedef struct CompareSide_ {
   const char *path;
   SessionLog log;
   int npoints;
   double *trials, *seconds, *latency; /* per round_end with a latency (ms) */
   double *best;                /* per task, seconds; NAN when none */
   const char *end;             /* "budget", "stopped", ... or "running" */
} CompareSide;

typedef struct CompareTask_ {
   char what[224];              /* "op shape epilogue", or the key without the task file */
   int64_t weight;              /* 1 without the task file */
} CompareTask;

typedef struct CompareSet_ {
   int n;
   CompareSide sides[COMPARE_MAX];
   /* after CompareSet_finish: */
   bool sameTasks;              /* every session tunes A's tasks, in order */
   int ntasks;                  /* A's; the per-task values only when sameTasks */
   CompareTask *tasks;
   char *networkCause;          /* why the task file was not loaded (weights 1), or NULL */
   double total[COMPARE_MAX];   /* weighted sum of the bests, seconds */
   bool whole[COMPARE_MAX];     /* every task has a best */
} CompareSet;

void CompareSet_init(CompareSet *set);
/* Reads the session file `path` (kept, not copied) as the next side. A session being
 * written loses its cut last line: *notice (caller frees) then says so, whether or
 * not the read succeeds. -1 with *cause ("PATH:LINE: reason") for a file that cannot
 * be read or a bad event; the side is kept for CompareSet_done. */
int CompareSet_add(CompareSet *set, const char *path, char **notice, char **cause);
/* Once every side is in: whether they tune the same tasks, and then the task file's
 * descriptions and weights and the weighted totals. */
void CompareSet_finish(CompareSet *set);
void CompareSet_done(CompareSet *set);

/* Where an axis (trials, or seconds when byTime) ends: the largest last point of any
 * side; 0 when no side has a point. */
double CompareSet_axisEnd(const CompareSet *set, bool byTime);
/* Side k's latency (ms) at x on the axis: that of its last point at or before x; NAN
 * before its first. */
double CompareSet_at(const CompareSet *set, int k, bool byTime, double x);
/* The first point of side k at or below y ms: its trials and seconds; false when none
 * is. */
bool CompareSet_reach(const CompareSet *set, int k, double y, double *trials, double *seconds);
/* Side k's best of task t over A's; NAN when either has none. */
double CompareSet_ratio(const CompareSet *set, int k, int t);
/* Side k's weighted total over A's; NAN unless both are whole. */
double CompareSet_totalRatio(const CompareSet *set, int k);

/* The text of the lines both show (each into buf, size bytes, no newline):
 * "A  PATH: NETWORK, POLICY + MODEL[ from CKPT], DEVICE[ (SIMULATED)], seed S, T of N
 * trials, END"; */
void CompareSet_sideLine(const CompareSet *set, int k, char *buf, size_t size);
/* the per-task table's head, "  ID  task ... weight  A  B ... B/A ...", its row for
 * task t and its "weighted total (ms)" row, the task column `whatWidth` wide (the
 * text's is COMPARE_WHAT_WIDTH): latencies in us with three decimals, ratios with
 * four, ten columns each, "-" where there is none. */
void CompareSet_tableHead(const CompareSet *set, int whatWidth, char *buf, size_t size);
void CompareSet_taskRow(const CompareSet *set, int t, int whatWidth, char *buf, size_t size);
void CompareSet_totalRow(const CompareSet *set, int whatWidth, char *buf, size_t size);
/* seconds as m:ss, or h:mm:ss from an hour on */
void CompareSet_clock(double seconds, char *buf, size_t size);

#endif
