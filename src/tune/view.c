/* The view model: session events folded into what a screen or a printout shows. */
#include "config.h"

#include "tune/view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/import.h"
#include "measure/measure.h"
#include "tune/command.h"
#include "util/paths.h"
#include "util/xalloc.h"

/* ---- the task file ---- */

static int checkTasks(const SessionHeader *h, const Network *net, char **cause) {
   if (net->ntasks != h->ntasks)
      return setCause(cause, "%s: %d tasks, but the session has %d", net->path, net->ntasks, h->ntasks);
   for (int i = 0; i < h->ntasks; i++)
      if (strcmp(net->tasks[i].key, h->tasks[i]) != 0)
         return setCause(cause, "%s: task %d is %s, but the session's is %s", net->path, i, net->tasks[i].key,
                         h->tasks[i]);
   return 0;
}

int TuneView_findNetwork(const SessionHeader *h, Network *net, char **cause) {
   memset(net, 0, sizeof *net);
   char *path = Paths_findRecordedTaskFile(h->networkFile ? h->networkFile : "");
   char *why = NULL;
   int rc = Model_load(net, path, h->networkInputs, &why);
   free(path);
   if (rc < 0) {
      if (cause)
         *cause = why;
      else
         free(why);
      memset(net, 0, sizeof *net);
      return -1;
   }
   if (checkTasks(h, net, cause) < 0) {
      Network_done(net);
      memset(net, 0, sizeof *net);
      return -1;
   }
   return 0;
}

/* ---- building and freeing ---- */

static char *copyOf(const char *s) {
   return xStrdup(s ? s : "");
}

void TuneView_init(TuneView *v, const SessionHeader *h, const Network *net) {
   memset(v, 0, sizeof *v);
   v->network = copyOf(h->network);
   v->networkFile = copyOf(h->networkFile);
   v->device = copyOf(h->device);
   v->simulated = h->simulated;
   v->policy = copyOf(h->policy);
   v->costModel = copyOf(h->costModel);
   v->checkpoint = copyOf(h->checkpoint ? h->checkpoint : "");
   v->budget = h->trialBudget;
   v->measuresPerRound = h->measuresPerRound;
   v->seed = h->seed;
   v->ntasks = h->ntasks;
   v->fromTaskFile = net && checkTasks(h, net, NULL) == 0;
   v->tasks = xCalloc(h->ntasks > 0 ? (size_t)h->ntasks : 1, sizeof *v->tasks);
   for (int i = 0; i < h->ntasks; i++) {
      TuneTaskView *t = &v->tasks[i];
      t->key = copyOf(h->tasks[i]);
      t->weight = 1;
      t->flops = NAN;
      if (v->fromTaskFile) {
         const Task *src = &net->tasks[i];
         t->label = src->label ? xStrdup(src->label) : NULL;
         t->weight = (double)src->weight;
         t->flops = src->flops;
      }
      t->best = t->leastMean = t->bestMedian = NAN;
      for (int p = 0; p < PRECISION_COUNT; p++)
         t->byPrecision[p] = (TunePrecisionBest){ NAN, NULL, NAN, NAN, 0 };
      t->priority = 1;
   }
   v->roundTask = -1;
   v->latencyMs = NAN;
   v->modelSeconds = NAN;
   v->modelError = xStrdup("");
}

static void clearDevices(TuneView *v) {
   for (int i = 0; i < v->ndevices; i++) {
      free(v->devices[i].name);
      free(v->devices[i].why);
   }
   v->ndevices = 0;
}

void TuneView_done(TuneView *v) {
   free(v->network);
   free(v->networkFile);
   free(v->device);
   free(v->policy);
   free(v->costModel);
   free(v->checkpoint);
   for (int i = 0; i < v->ntasks; i++) {
      free(v->tasks[i].key);
      free(v->tasks[i].label);
      free(v->tasks[i].curve);
      free(v->tasks[i].measured);
      free(v->tasks[i].bestState);
      for (int p = 0; p < PRECISION_COUNT; p++)
         free(v->tasks[i].byPrecision[p].state);
   }
   free(v->tasks);
   free(v->modelError);
   free(v->series);
   clearDevices(v);
   memset(v, 0, sizeof *v);
}

/* ---- the commands that were applied ---- */

static void updatePaused(TuneView *v) {
   bool focus = false, pickable = false;
   for (int i = 0; i < v->ntasks; i++)
      focus |= v->tasks[i].focused;
   for (int i = 0; i < v->ntasks; i++)
      pickable |= v->tasks[i].priority > 0 && (!focus || v->tasks[i].focused);
   v->paused = !pickable;
}

/* An applied command of the engine's (command.h); `stop` and the whole engine's pause
 * change nothing here: a finished event follows the one, the other stops no task. */
static void applyCommand(TuneView *v, const char *text) {
   Command c;
   char *why = NULL;
   if (Command_parse(text, v->ntasks, &c, &why) < 0) {
      free(why);
      return;
   }
   switch (c.kind) {
   case COMMAND_PRIORITY:
      if (isfinite(c.value) && c.value >= 0)
         v->tasks[c.task].priority = c.value;
      break;
   case COMMAND_FOCUS: v->tasks[c.task].focused = true; break;
   case COMMAND_FOCUS_OFF:
      for (int i = 0; i < v->ntasks; i++)
         v->tasks[i].focused = false;
      break;
   case COMMAND_BUDGET: v->budget = (int)c.value; break;
   case COMMAND_MODEL:
      free(v->costModel);
      v->costModel = xStrdup(c.model);
      free(v->checkpoint);
      v->checkpoint = xStrdup(c.checkpoint);
      break;
   default: break;
   }
   updatePaused(v);
}

/* ---- events ---- */

static void *grow(void *array, int count, int *cap, size_t size) {
   if (count < *cap)
      return array;
   *cap = *cap ? 2 * *cap : 16;
   return xReallocArray(array, (size_t)*cap, size);
}

static TuneTaskView *taskOf(TuneView *v, int task) {
   return task >= 0 && task < v->ntasks ? &v->tasks[task] : NULL;
}

static int lineageOf(const char *name) {
   for (int l = 0; l < LINEAGE_COUNT; l++)
      if (name && strcmp(name, Lineage_name((Lineage)l)) == 0)
         return l;
   return TUNE_LINEAGE_OTHER;
}

static void applyMeasure(TuneView *v, const SessionEvent *e) {
   TuneTaskView *t = taskOf(v, e->measure.task);
   if (!t)
      return;
   t->measured = grow(t->measured, t->trials, &t->measuredCap, sizeof *t->measured);
   t->measured[t->trials] = NAN;
   t->trials++;
   v->trials++;
   v->lineages[lineageOf(e->measure.lineage)]++;
   if (!e->measure.error || strcmp(e->measure.error, MeasureError_name(MEASURE_OK)) != 0 ||
       e->measure.ncosts < 1) {
      t->errors++;
      return;
   }
   t->ok++;
   double sum = 0;
   for (int i = 0; i < e->measure.ncosts; i++)
      sum += e->measure.costs[i];
   double mean = sum / e->measure.ncosts;
   if (isnan(t->leastMean) || mean < t->leastMean)
      t->leastMean = mean;
   double median = Measure_median(e->measure.costs, e->measure.ncosts);
   t->measured[t->trials - 1] = median;
   /* the scheduler's best is the least median: known from the measurements alone,
    * also where a killed run wrote no best event */
   if (isnan(t->best) || median < t->best)
      t->best = median;
   if (isnan(t->bestMedian) || median < t->bestMedian) {
      t->bestMedian = median;
      free(t->bestState);
      t->bestState = xStrdup(e->measure.state ? e->measure.state : "");
      t->bestTrial = v->trials;
      t->bestThrottled = e->measure.throttled;
   }
   TunePrecisionBest *pb = &t->byPrecision[State_textPrecision(e->measure.state ? e->measure.state : "")];
   pb->ok++;
   if (!isnan(e->measure.outputError) && !(e->measure.outputError <= pb->measured))
      pb->measured = e->measure.outputError;
   if (isnan(pb->median) || median < pb->median) {
      pb->median = median;
      free(pb->state);
      pb->state = xStrdup(e->measure.state ? e->measure.state : "");
      pb->predicted = e->measure.predictedError;
   }
}

static void applySearch(TuneView *v, const SessionEvent *e) {
   v->haveSearch = true;
   v->searchRound = e->round;
   v->lastSearch.task = e->search.task;
   v->lastSearch.drafted = e->search.drafted;
   v->lastSearch.sampled = e->search.sampled;
   v->lastSearch.drafts = e->search.drafts;
   v->lastSearch.population = e->search.population;
   v->lastSearch.kept = e->search.kept;
   v->lastSearch.picks = e->search.picks;
   v->lastSearch.fromDrafts = e->search.fromDrafts;
   v->lastSearch.random = e->search.random;
}

static void applyBest(TuneView *v, const SessionEvent *e) {
   TuneTaskView *t = taskOf(v, e->best.task);
   if (!t)
      return;
   t->best = e->best.latency;
   t->bestCounters = e->best.counters;
   t->bestRound = e->round;
   t->roundsAtBest = t->rounds;
   if (e->best.task == v->roundTask)
      v->roundImproved = true;
   t->curve = grow(t->curve, t->ncurve, &t->curveCap, sizeof *t->curve);
   t->curve[t->ncurve++] = (TuneBestPoint){
      .trials = v->trials,
      .taskTrials = t->trials,
      .elapsed = e->elapsed,
      .latency = e->best.latency,
   };
}

static void addMean(TuneMean *m, double v) {
   if (!isnan(v)) {
      m->sum += v;
      m->rounds++;
   }
}

double TuneMean_value(const TuneMean *m) {
   return m->rounds ? m->sum / m->rounds : NAN;
}

static void applyFleet(TuneView *v, const SessionEvent *e) {
   v->newlyRetired = 0;
   if (e->roundEnd.ndevices == 0)
      return;
   bool wasRetired[SESSION_MAX_DEVICES] = { false };
   for (int i = 0; i < v->ndevices; i++)
      wasRetired[i] = v->devices[i].retired;
   clearDevices(v);
   for (int i = 0; i < e->roundEnd.ndevices && i < SESSION_MAX_DEVICES; i++) {
      const SessionDevice *d = &e->roundEnd.devices[i];
      v->devices[i] = *d;
      v->devices[i].name = xStrdup(d->name ? d->name : "");
      v->devices[i].why = xStrdup(d->why ? d->why : "");
      if (d->retired && !wasRetired[i])
         v->newlyRetired |= 1u << i;
      v->ndevices++;
   }
   v->devicesAt = e->elapsed;
}

double TuneView_busyShare(const TuneView *v, int i) {
   if (i < 0 || i >= v->ndevices || !(v->devicesAt > 0))
      return NAN;
   double share = v->devices[i].busySeconds / v->devicesAt;
   return share < 1 ? share : 1;
}

static void applyRoundEnd(TuneView *v, const SessionEvent *e) {
   v->latencyMs = e->roundEnd.latencyMs;
   /* never a total while a task has no time */
   for (int i = 0; i < v->ntasks; i++)
      if (isnan(v->tasks[i].best))
         v->latencyMs = NAN;
   addMean(&v->acceptance, e->roundEnd.acceptance);
   addMean(&v->tau, e->roundEnd.tau);
   addMean(&v->draftRank, e->roundEnd.draftRank);
   addMean(&v->verifyRank, e->roundEnd.verifyRank);
   v->series = grow(v->series, v->nseries, &v->seriesCap, sizeof *v->series);
   v->series[v->nseries++] = (TuneRoundPoint){
      .round = e->round,
      .elapsed = e->elapsed,
      .trials = e->roundEnd.trials,
      .latencyMs = e->roundEnd.latencyMs,
      .acceptance = e->roundEnd.acceptance,
      .tau = e->roundEnd.tau,
      .draftRank = e->roundEnd.draftRank,
      .verifyRank = e->roundEnd.verifyRank,
   };
   applyFleet(v, e);
   if (v->haveSearch && v->searchRound == e->round) {
      TuneRoundPoint *p = &v->series[v->nseries - 1];
      p->kept = v->lastSearch.kept;
      p->picks = v->lastSearch.picks;
      p->fromDrafts = v->lastSearch.fromDrafts;
   }
}

static void applyModel(TuneView *v, const SessionEvent *e) {
   const char *err = e->model.error ? e->model.error : "";
   v->modelFits++;
   v->modelFailures += *err != '\0';
   v->modelSamples = e->model.samples;
   v->modelSeconds = e->model.seconds;
   free(v->modelError);
   v->modelError = xStrdup(err);
}

void TuneView_apply(TuneView *v, const SessionEvent *e) {
   if (e->kind == SESSION_HEADER)
      return;
   v->round = e->round;
   v->elapsed = e->elapsed;
   switch (e->kind) {
   case SESSION_ROUND: {
      TuneTaskView *t = taskOf(v, e->roundStart.task);
      if (!t)
         break;
      v->rounds++;
      v->roundTask = e->roundStart.task;
      v->roundImproved = false;
      t->rounds++;
      t->lastRound = e->round;
      break;
   }
   case SESSION_MEASURE: applyMeasure(v, e); break;
   case SESSION_MODEL: applyModel(v, e); break;
   case SESSION_BEST: applyBest(v, e); break;
   case SESSION_COMMAND:
      if (e->command.applied) {
         v->commandsApplied++;
         applyCommand(v, e->command.text ? e->command.text : "");
      } else {
         v->commandsRefused++;
      }
      break;
   case SESSION_ROUND_END: applyRoundEnd(v, e); break;
   case SESSION_SEARCH: applySearch(v, e); break;
   case SESSION_FINISHED:
      v->finished = true;
      v->why = e->finished.why;
      break;
   case SESSION_RESUMED:
      /* --resume went on with the run that ended */
      v->finished = false;
      break;
   default:
      /* a kind added after this view: nothing it shows depends on it */
      break;
   }
}

/* ---- what it shows ---- */

const char *TuneView_describe(const TuneView *v, int task) {
   const TuneTaskView *t = &v->tasks[task];
   return t->label ? t->label : t->key;
}

static SchedulerStop stopOf(const TuneView *v) {
   if (v->finished && v->why == SESSION_END_ALL_DEAD)
      return SCHED_ALL_DEAD;
   if ((v->finished && v->why == SESSION_END_BUDGET) || v->trials >= v->budget)
      return SCHED_BUDGET_SPENT;
   return v->paused ? SCHED_NONE_ELIGIBLE : SCHED_GOING;
}

void TuneView_snapshot(const TuneView *v, SchedulerSnapshot *snap) {
   SchedulerSnapshot_resize(snap, v->ntasks);
   snap->trials = v->trials;
   snap->budget = v->budget;
   snap->measuresPerRound = v->measuresPerRound;
   snap->latencyMs = v->latencyMs;
   snap->warmedUp = true;
   snap->focusActive = false;
   snap->objective = 0;
   for (int i = 0; i < v->ntasks; i++) {
      const TuneTaskView *t = &v->tasks[i];
      double best = isnan(t->best) ? SCHEDULER_NO_COST : t->best;
      snap->objective += t->weight * best;
      snap->warmedUp &= t->rounds > 0;
      snap->focusActive |= t->focused;
      snap->tasks[i] = (SchedulerTaskView){
         .weight = t->weight,
         .flops = t->flops,
         .best = best,
         .gflops = isnan(t->best) ? NAN : t->flops / t->best / 1e9,
         .gradient = NAN,
         .priority = t->priority,
         .rounds = t->rounds,
         .bestRound = t->bestRound,
         .trials = t->rounds * v->measuresPerRound,
         .dead = false,
         .focused = t->focused,
      };
   }
   snap->stop = stopOf(v);
}
