/* The view model of a tuning run: what the workbench's panels and the text replay show,
 * folded from session events one at a time (DESIGN.md 3.8). A live run and a replay
 * are the same stream: the engine's events of each round, or a session file's lines,
 * go through TuneView_apply in their order. Pure: no I/O, no clock, no threads; the
 * caller owns the view and takes it under its own lock when it must. */
#ifndef HEADER_view
#define HEADER_view

#include <stdbool.h>
#include <stdint.h>

#include "measure/counters.h"
#include "search/evolution.h"
#include "te/network.h"
#include "tune/scheduler.h"
#include "tune/session.h"

/* A task's best latency improved: a point of its tuning curve. */
typedef struct TuneBestPoint_ {
   int trials;                  /* the run's measurements by then */
   int taskTrials;              /* the task's own */
   double elapsed;              /* seconds since the start of the run */
   double latency;              /* seconds */
} TuneBestPoint;

/* A round ended: a point of the run's curves. */
typedef struct TuneRoundPoint_ {
   int round;
   double elapsed;
   int trials;
   double latencyMs;            /* estimated total; NAN until every task has a cost */
   double acceptance, tau;      /* NAN when undefined for the round */
   double draftRank, verifyRank;/* the models' pairwise accuracy on the round's measured */
   int kept, picks, fromDrafts; /* the round's search event's; 0 without one */
} TuneRoundPoint;

/* A mean over the rounds where a value was defined. */
typedef struct TuneMean_ {
   double sum;
   int rounds;
} TuneMean;

/* sum / rounds; NAN for none */
double TuneMean_value(const TuneMean *m);

/* A task's best in one precision, for the front (front.h). */
typedef struct TunePrecisionBest_ {
   double median;               /* the least median of an ok measurement's costs in this
                                   precision, seconds; NAN: none measured ok */
   char *state;                 /* that state's text; NULL before one */
   double predicted;            /* its predicted_error; NAN when the session has none */
   double measured;             /* the largest output_error measured in this precision;
                                   NAN: none compared */
   int ok;                      /* ok measurements in this precision */
} TunePrecisionBest;

typedef struct TuneTaskView_ {
   char *key;                   /* the session's task key */
   char *label;                 /* the task file's name for it, or NULL */
   double weight;               /* occurrences in the network; 1 without the task file */
   double flops;                /* of one occurrence; NAN without the task file */
   int rounds;
   int trials;                  /* measure events */
   int ok, errors;              /* of them, measured and failed */
   double best;                 /* seconds, the last best event's; NAN before one */
   Counters bestCounters;       /* the last best event's: what the best state did on the
                                   hardware; not present before one, and when it had none */
   int bestRound;               /* the round of that event; 0 before one */
   int roundsAtBest;            /* `rounds` when that event came */
   double leastMean;            /* the least mean of an ok measurement's costs; NAN */
   /* the best measured state as the exports take it: the least median of an ok
    * measurement's costs (the earliest on ties), its state's text and the run's trial
    * count when it was measured; NAN, NULL and 0 before one */
   double bestMedian;
   char *bestState;
   int bestTrial;
   unsigned bestThrottled;      /* GPU_THROTTLE_* reasons that slowed the GPU while that
                                   state was measured; 0: none or no GPU state */
   TunePrecisionBest byPrecision[PRECISION_COUNT];
   double priority;             /* 1; applied pause 0, resume 1, prio TASK M */
   bool focused;
   int lastRound;               /* the last round that tuned it; 0: none yet */
   int ncurve, curveCap;
   TuneBestPoint *curve;        /* its best against trials, a point per improvement */
   int measuredCap;
   double *measured;            /* each measure event's latency (the median of its
                                   costs, seconds) in order, NAN for a failed one:
                                   `trials` of them */
} TuneTaskView;

/* The lineages of measured states: Lineage's, then any name this program does not
 * know. */
#define TUNE_LINEAGE_OTHER LINEAGE_COUNT

typedef struct TuneView_ {
   /* the header, with the applied commands' changes */
   char *network;
   char *networkFile;
   char *device;
   bool simulated;
   char *policy;
   char *costModel;             /* the verify model now: `model KIND` changes it */
   char *checkpoint;            /* the checkpoint it started from, "" for none: the
                                   session's, then `model KIND [CHECKPOINT]`'s */
   int budget;                  /* `budget N` changes it */
   int measuresPerRound;
   int64_t seed;
   int ntasks;
   TuneTaskView *tasks;
   bool fromTaskFile;           /* labels, weights and FLOPs came from the task file */

   /* the run so far */
   int rounds;
   int trials;                  /* measure events */
   int round;                   /* the last event's round */
   int roundTask;               /* the task of the last round; -1 before the first */
   bool roundImproved;          /* the last round improved its task's best */
   double latencyMs;            /* the last round end's; NAN until every task has a cost */
   double elapsed;              /* the last event's time, seconds since the start */
   bool finished;               /* the last run ended; a resumed event goes on */
   SessionEnd why;              /* when finished */
   bool paused;                 /* no task may be picked: each is paused or outside
                                   the focus; the next round would end the run */
   int commandsApplied, commandsRefused;

   /* the draft-then-verify statistics */
   TuneMean acceptance, tau;    /* round_end's, over the rounds where each was defined */
   TuneMean draftRank, verifyRank;
   int lineages[LINEAGE_COUNT + 1]; /* measured states by lineage; the last: others */
   bool haveSearch;             /* a search event was seen; lastSearch is its */
   int searchRound;
   struct {
      int task;
      bool drafted;
      int sampled, drafts, population, kept, picks, fromDrafts, random;
   } lastSearch;

   /* the verify model */
   int modelFits, modelFailures;
   int modelSamples;            /* the last fit's */
   double modelSeconds;         /* the last fit's; NAN before one */
   char *modelError;            /* the last fit's, "" when it succeeded */

   int nseries, seriesCap;
   TuneRoundPoint *series;      /* a point per round end */

   /* the fleet of 2 or more devices, as the last round end that told it (round_end's
    * devices; none for one device and in older files) */
   int ndevices;
   SessionDevice devices[SESSION_MAX_DEVICES]; /* the view owns their strings */
   double devicesAt;            /* that round end's time: what busy seconds are a share of */
   unsigned newlyRetired;       /* bit i: device i was retired at the last round end */
} TuneView;

/* Device i's busy share of the run's time so far (0 to 1); NAN before any time. */
double TuneView_busyShare(const TuneView *v, int i);

/* Loads the task file a session names (its network_file; when that is not found, the
 * file's name looked up as a command-line task file is) and checks that its tasks are
 * the session's, key for key. -1 with *cause when it does not load or does not match. */
int TuneView_findNetwork(const SessionHeader *h, Network *net, char **cause);

/* A view of the run the header starts. net, when not NULL and its tasks are the
 * header's, gives the tasks' labels, weights and FLOPs; otherwise weights are 1 and
 * FLOPs unknown. The view copies what it keeps. */
void TuneView_init(TuneView *v, const SessionHeader *h, const Network *net);
void TuneView_done(TuneView *v);

/* Folds one event in. A header, a kind this view does not know and an event naming a
 * task the header does not have change nothing; a refused command is only counted. */
void TuneView_apply(TuneView *v, const SessionEvent *e);


/* What the scheduler's table shows of a task: the task file's label, else its key. */
const char *TuneView_describe(const TuneView *v, int task);

/* The view as the scheduler's snapshot, for SchedulerSnapshot_printTable and the
 * workbench's table: a task's trials are its rounds times the measures per round, as
 * Ansor's table counts them; gradients are not in a session (NAN) and no task is known
 * to be dead. The stop is the finished event's (budget spent, all dead) or the budget's
 * when it is spent, else "none eligible" while paused, else "going". snap starts zeroed
 * and is reused, as TaskScheduler_snapshot's. */
void TuneView_snapshot(const TuneView *v, SchedulerSnapshot *snap);

#endif
