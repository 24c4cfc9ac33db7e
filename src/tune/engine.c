/* The tuning engine: one round at a time, from the scheduler's choice to the session
 * file. */
#include "config.h"

#include "tune/engine.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cost/checkpoint.h"
#include "cost/metrics.h"
#include "cost/model.h"
#include "cost/models.h"
#include "cost/online.h"
#include "cost/psa.h"
#include "graph/import.h"
#include "measure/featurize.h"
#include "measure/record.h"
#include "measure/verify.h"
#include "search/policy.h"
#include "search/scorer.h"
#include "tune/command.h"
#include "tune/export.h"
#include "util/clock.h"
#include "util/paths.h"
#include "util/rng.h"
#include "util/xalloc.h"

/* The online trainer's bounds for rounds after the first (TrainConfig). */
#define ENGINE_ROUND_EPOCHS 5
#define ENGINE_REPLAY 300

typedef struct EngineTask_ {
   SketchSet set;
   SearchTask search;
   /* each precision's predicted error over the task's output (Verify_predictOpError),
    * with Tensor-Core precisions asked for; NAN otherwise */
   double predicted[PRECISION_COUNT];
} EngineTask;

struct Engine_ {
   Network net;
   Measurer *measurer;
   char *policy;
   char *costModel;
   char *checkpoint;            /* --load-model's file, "" without one */
   char *modelNote;             /* Engine_modelNote's */
   char *precisionNote;         /* Engine_precisionNote's */
   char precisionSpec[64];      /* the header's "precision": "" for FP32 alone */
   double maxError;             /* the bound; NAN without one */
   bool overNetwork;            /* --error-split network */
   /* the precisions the verify model knows: its checkpoint's (Checkpoint_precisions),
    * every one for a model that learns from nothing or does not learn */
   unsigned modelKnows;
   int measuredIn[PRECISION_COUNT]; /* ok measurements of this run in each precision */
   Scorer *fallback;            /* PSA, verifying where the model does not know */
   double taskBound;            /* what each task gets of it (Engine_taskBound) */
   bool overlap;                /* EngineConfig.overlap */
   EngineCounters counters;     /* Engine_counters' */
   int modelRounds;             /* the online model's rounds a model event was written for */
   SearchParams params;
   EngineTask *tasks;
   int currentTask;             /* the task the measurer is set to; -1: none */
   Featurizer *featurizer;
   OnlineModel *online;
   Scorer *draft, *verify;
   TaskScheduler *sched;
   SessionWriter *writer;
   SessionEvent header;         /* the session's, written or not */
   char *sessionPath;
   EngineListener listener;
   void *listenerCtx;
   SchedLimits limits;
   bool paused;                 /* the whole engine: no round runs until resumed */
   int measuresPerRound;
   double start;                /* Clock_now at Engine_new */
   int rounds;
   bool finished;
   SessionEnd why;
   EngineRoundInfo last;
   /* the events of the last round; the first `queued` are in the writer, the first
    * `published` went to the listener */
   int nevents, eventCap, queued, published;
   SessionEvent *events;
   /* the command queue, filled from any thread */
   pthread_mutex_t lock;
   int ncommands, commandCap;
   char **commands;
   char *refusal;
   TrainConfig train;
   /* --resume re-running the session (exact resume): the events of `replay` from
    * `cursor` on are what the re-run must produce next; they are matched, not written.
    * NULL once the re-run has caught up (or without --resume). */
   const SessionLog *replay;
   int cursor;
   bool *boundary;              /* the replay's events no run makes again: resumed
                                   markers, and finished events inside a round (a run
                                   that ended on an error there) */
   char *divergence;            /* why the re-run left the session, when it did */
   double replayElapsed;        /* the session's last "t" */
   const char *resumeNotice;
   bool resuming;               /* Engine_new is re-running the session */
   /* the events written while Engine_new caught up (the rest of a round cut short),
    * for the listener when it is set */
   int nbacklog;
   SessionEvent *backlog;
   uint64_t seed;
   int threads;
   /* scratch of a round */
   Candidate *picks;
   State *states;
   MeasureOutcome *outcomes;
   double *costs;
};

void EngineConfig_default(EngineConfig *c) {
   memset(c, 0, sizeof *c);
   c->device = "auto";
   c->policy = "pruner";
   c->costModel = "pam";
   c->seed = 1;
}

void EngineConfig_measurer(const EngineConfig *cfg, MeasurerConfig *mc) {
   MeasurerConfig_default(mc);
   mc->device = cfg->device;
   mc->devices = cfg->devices;
   mc->simNoCompile = cfg->noCompile;
   mc->allowMixed = cfg->allowMixed;
   mc->simRealtime = cfg->simRealtime;
   mc->mpi = cfg->mpi;
   if (cfg->simVerifyEvery > 0)
      mc->simVerifyEvery = cfg->simVerifyEvery;
   mc->seed = cfg->seed;
}

static void onlinePredict(void *ctx, const Dataset *batch, float *scores) {
   OnlineModel_predict((OnlineModel *)ctx, batch, scores);
}

/* a different, well-mixed seed for each task (splitmix64 of seed and index) */
static uint64_t taskSeed(uint64_t seed, int task) {
   uint64_t z = seed + 0x9e3779b97f4a7c15ull * (uint64_t)(task + 1);
   z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
   z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
   return z ^ (z >> 31);
}

static void clearEvents(Engine *e) {
   for (int i = 0; i < e->nevents; i++)
      SessionEvent_done(&e->events[i]);
   e->nevents = e->queued = e->published = 0;
}

static SessionEvent *newEvent(Engine *e, SessionEventKind kind) {
   if (e->nevents == e->eventCap) {
      e->eventCap = e->eventCap ? 2 * e->eventCap : 32;
      e->events = xReallocArray(e->events, (size_t)e->eventCap, sizeof *e->events);
   }
   SessionEvent *ev = &e->events[e->nevents++];
   memset(ev, 0, sizeof *ev);
   ev->kind = kind;
   ev->round = e->rounds;
   ev->elapsed = Engine_elapsed(e);
   return ev;
}

/* The next event of the session being re-run, past the boundaries of its runs (which
 * no run makes again), or NULL when there is none. */
static const SessionEvent *replayPeek(Engine *e) {
   while (e->cursor < e->replay->count && e->boundary[e->cursor])
      e->cursor++;
   return e->cursor < e->replay->count ? &e->replay->events[e->cursor] : NULL;
}

static void addBacklog(Engine *e, const SessionEvent *ev) {
   e->backlog = xReallocArray(e->backlog, (size_t)e->nbacklog + 1, sizeof *e->backlog);
   SessionEvent_copy(&e->backlog[e->nbacklog++], ev);
}

/* Writes an event (queued in the writer) and keeps it for the listener while
 * Engine_new catches up. */
static int writeEvent(Engine *e, const SessionEvent *ev, char **cause) {
   if (e->writer && SessionWriter_add(e->writer, ev, cause) < 0)
      return -1;
   if (e->resuming)
      addBacklog(e, ev);
   return 0;
}

/* A resumed fleet's counts go on from the session's last round end: each of its
 * devices that this fleet has too (by name) starts from what it had done. What a round
 * cut short before its end measured counts on none: its devices are not in the file. */
static void seedFleet(Engine *e, const SessionLog *log) {
   const SessionEvent *last = NULL;
   for (int i = 1; i < log->count; i++)
      if (log->events[i].kind == SESSION_ROUND_END)
         last = &log->events[i];
   for (int d = 0; last && d < last->roundEnd.ndevices; d++) {
      const SessionDevice *sd = &last->roundEnd.devices[d];
      MeasurerDeviceStats st = { .measured = sd->measured, .failed = sd->failed, .busySeconds = sd->busySeconds };
      snprintf(st.name, sizeof st.name, "%s", sd->name ? sd->name : "");
      Measurer_seedDeviceStats(e->measurer, &st);
   }
}

/* The re-run has caught up with the session: the clock goes on from the session's
 * last time, the fleet's counts from its last round end, and a resumed event marks
 * where this run's writing begins. */
static int caughtUp(Engine *e, char **cause) {
   e->start = Clock_now() - e->replayElapsed;
   seedFleet(e, e->replay);
   SessionEvent ev;
   memset(&ev, 0, sizeof ev);
   ev.kind = SESSION_RESUMED;
   ev.round = e->rounds;
   ev.elapsed = e->replayElapsed;
   ev.resumed.trials = 0;
   for (int i = 1; i < e->replay->count; i++)
      ev.resumed.trials += e->replay->events[i].kind == SESSION_MEASURE;
   ev.resumed.notice = xStrdup(e->resumeNotice ? e->resumeNotice : "");
   int rc = writeEvent(e, &ev, cause);
   SessionEvent_done(&ev);
   e->replay = NULL;
   return rc;
}

/* Matches an event of the re-run against the session's next one: 1 when they agree
 * (the clock aside), 0 when the session has no more (the re-run caught up), -1 with
 * e->divergence when they differ. */
static int matchReplay(Engine *e, const SessionEvent *ev) {
   const SessionEvent *want = replayPeek(e);
   if (!want)
      return 0;
   char *a = SessionEvent_toJson(want, false), *b = SessionEvent_toJson(ev, false);
   int rc = strcmp(a, b) == 0 ? 1 : -1;
   if (rc > 0)
      e->cursor++;
   else
      e->divergence = xAsprintf("line %d holds %.200s; the re-run made %.200s", want->line, a, b);
   free(a);
   free(b);
   return rc;
}

/* Writes the round's new events to the session (fsynced) and gives them to the
 * listener: what happened so far is on disk before the round goes on. While a resumed
 * session is re-run, the events it holds already are matched instead of written. */
static int emit(Engine *e, char **cause) {
   for (; e->queued < e->nevents; e->queued++) {
      SessionEvent *ev = &e->events[e->queued];
      if (e->replay) {
         int m = matchReplay(e, ev);
         if (m < 0) {
            *cause = xStrdup(e->divergence);
            return -1;
         }
         if (m > 0)
            continue;
         if (caughtUp(e, cause) < 0)
            return -1;
         /* made before the clock was set again */
         for (int i = e->queued; i < e->nevents; i++)
            e->events[i].elapsed = Engine_elapsed(e);
      }
      if (writeEvent(e, ev, cause) < 0)
         return -1;
   }
   if (e->writer && SessionWriter_flush(e->writer, cause) < 0)
      return -1;
   if (e->listener && e->published < e->nevents)
      e->listener(e->listenerCtx, e->events + e->published, e->nevents - e->published);
   e->published = e->nevents;
   return 0;
}

static int applyCommand(Engine *e, const char *text, bool *stop, char **cause);
static int swapModel(Engine *e, const char *name, const char *checkpoint, char **cause);

/* The Tensor-Core precisions of --precision that the device has, into *tc; with an
 * explicit list, one it lacks is refused. Fills the header's precision and bound. */
static int tensorCorePrecisions(Engine *e, const EngineConfig *cfg, const Device *dev, unsigned *tc,
                                char **cause) {
   unsigned asked = cfg->precisions & ~PRECISION_BIT(PRECISION_FP32);
   unsigned has = Sketch_tensorCorePrecisions(dev->cc_major, dev->cc_minor);
   *tc = asked & has;
   e->maxError = cfg->maxError > 0 ? cfg->maxError : NAN;
   e->overNetwork = cfg->errorOverNetwork && !isnan(e->maxError);
   e->taskBound = Engine_taskBound(e->maxError, e->overNetwork, &e->net);
   e->precisionSpec[0] = '\0';
   if (asked || cfg->precisionAuto)
      Precision_specText(cfg->precisions | PRECISION_BIT(PRECISION_FP32), cfg->precisionAuto, e->precisionSpec,
                         sizeof e->precisionSpec);
   for (int p = PRECISION_FP16; p < PRECISION_COUNT && !cfg->precisionAuto; p++)
      if (asked & ~has & PRECISION_BIT(p))
         return setCause(cause, "--precision %s: %s (compute capability %d.%d) has no %s Tensor Cores", e->precisionSpec,
                         dev->name, dev->cc_major, dev->cc_minor, Precision_name((Precision)p));
   return 0;
}

/* The precisions of tc whose predicted error on op stays within the bound; each one's
 * prediction into et. */
static unsigned offeredPrecisions(const Engine *e, EngineTask *et, const OpParams *op, unsigned tc) {
   unsigned keep = 0;
   for (int p = 0; p < PRECISION_COUNT; p++) {
      et->predicted[p] = NAN;
      if (tc == 0)
         continue;
      et->predicted[p] = Verify_predictOpError(op, (Precision)p);
      if (p != PRECISION_FP32 && (tc & PRECISION_BIT(p)) && !(et->predicted[p] > e->taskBound))
         keep |= PRECISION_BIT(p);
   }
   return keep;
}

/* The precisions a verify model knows: a checkpoint's that learns knows what it
 * learned; a fresh model, PSA and the random model know every one. */
static unsigned knownPrecisions(const CostModel *m, const char *checkpoint) {
   bool learns = m->kind == MODEL_XGB || m->kind == MODEL_MLP || m->kind == MODEL_PAM || m->kind == MODEL_PAM_MOA;
   if (!learns || !checkpoint || !*checkpoint)
      return (1u << PRECISION_COUNT) - 1;
   return Checkpoint_precisions(m->opKinds);
}

/* The precisions some task's search draws states in. */
static unsigned offeredAnywhere(const Engine *e) {
   unsigned m = 0;
   for (int t = 0; t < e->net.ntasks; t++)
      m |= Engine_taskPrecisions(e, t);
   return m;
}

static char *precisionNote(const Engine *e, unsigned tc) {
   if (!e->precisionSpec[0])
      return xStrdup("");
   char text[512];
   int at = snprintf(text, sizeof text, "precision %s", e->precisionSpec);
   if (!isnan(e->maxError))
      at += snprintf(text + at, sizeof text - (size_t)at, ", max error %g", e->maxError);
   if (e->overNetwork)
      at += snprintf(text + at, sizeof text - (size_t)at, " over the network (%.3g a task)", e->taskBound);
   if (tc == 0)
      return xAsprintf("%s: the device has none of these Tensor-Core precisions; FP32 alone", text);
   /* a task has a matrix multiply when its sketches include Tensor-Core ones (built in
    * every precision, offered or not) */
   int matmuls = 0, n = e->net.ntasks;
   for (int t = 0; t < n; t++) {
      const SketchSet *set = &e->tasks[t].set;
      matmuls += set->count > 0 && set->sketches[set->count - 1].precision != PRECISION_FP32;
   }
   const char *sep = ":";
   for (int p = PRECISION_FP16; p < PRECISION_COUNT; p++) {
      if (!(tc & PRECISION_BIT(p)))
         continue;
      int on = 0;
      for (int t = 0; t < n; t++)
         on += (Engine_taskPrecisions(e, t) & PRECISION_BIT(p)) != 0;
      at += snprintf(text + at, sizeof text - (size_t)at, "%s %s on %d", sep, Precision_name((Precision)p), on);
      sep = ",";
   }
   at += snprintf(text + at, sizeof text - (size_t)at, " of %d tasks with a matrix multiply (%d %s none)", matmuls,
                  n - matmuls, n - matmuls == 1 ? "has" : "have");
   unsigned unknown = offeredAnywhere(e) & ~e->modelKnows;
   if (unknown) {
      at += snprintf(text + at, sizeof text - (size_t)at, "; the verify model's checkpoint learned no");
      for (int p = PRECISION_FP16, k = 0; p < PRECISION_COUNT; p++)
         if (unknown & PRECISION_BIT(p))
            at += snprintf(text + at, sizeof text - (size_t)at, "%s %s", k++ ? "," : "", Precision_name((Precision)p));
      snprintf(text + at, sizeof text - (size_t)at,
               " state: the tasks that offer one verify by PSA until this run has measured %d of each",
               ENGINE_PRECISION_LEARNED);
   }
   return xStrdup(text);
}

/* The verify model: of kind `name` (NULL: the checkpoint's, or pam for a fresh one),
 * fresh from the seed, or from checkpoint when it is not NULL or "": the same kind, or
 * pam-moa from a pam
 * checkpoint (MoA: its network becomes the slow network). Another kind is an error,
 * never a silent switch. `what` names the request in messages ("--load-model" or
 * "model pam-moa"). */
static CostModel *verifyModel(const char *name, const char *checkpoint, uint64_t seed, const char *what,
                              char **cause) {
   int asked = name ? ModelKind_parse(name) : -2;
   if (asked == -1) {
      *cause = xAsprintf("unknown cost model '%s' (random, psa, xgb, mlp, pam or pam-moa)", name);
      return NULL;
   }
   if (!checkpoint || !*checkpoint)
      return CostModel_new(asked >= 0 ? (ModelKind)asked : MODEL_PAM, seed, cause);
   char *why = NULL;
   CostModel *m = CostModel_load(checkpoint, &why);
   if (!m) {
      *cause = xAsprintf("%s %s: %s", what, checkpoint, why);
      free(why);
      return NULL;
   }
   if (asked == -2 || asked == (int)m->kind)
      return m;
   if (asked == MODEL_PAM_MOA && m->kind == MODEL_PAM) {
      CostModel *moa = PamMoa_fromPretrained(m, cause);
      CostModel_free(m);
      return moa;
   }
   *cause = xAsprintf("%s %s is a checkpoint of kind %s; cost model %s needs one of kind %s%s", what, checkpoint,
                      ModelKind_name(m->kind), name, name,
                      asked == MODEL_PAM_MOA ? " or pam (its network becomes MoA's slow network)" : "");
   CostModel_free(m);
   return NULL;
}

/* ---- --resume ---- */

/* A round of the session being replayed: its task and its measurements' costs. */
typedef struct {
   int task;                    /* -1: none open */
   int n, cap;
   double *costs;
} ReplayRound;

/* Gives the scheduler and the task's search a round of the old session. A round cut
 * short counts when it wrote measurements; one that ended (round_end) counts even
 * without any, as it did when it ran (the task died then). */
static void closeRound(Engine *e, ReplayRound *r, bool ended) {
   if (r->task < 0 || (r->n == 0 && !ended)) {
      r->task = -1;
      return;
   }
   TaskScheduler_done(e->sched, r->task, r->costs, r->n);
   e->tasks[r->task].search.round++;
   r->task = -1;
}

static int replayMeasure(Engine *e, const SessionLog *log, const SessionEvent *ev, ReplayRound *r, Dataset *data,
                         const char *path, char **cause) {
   Record rec;
   if (Export_record(log, path, ev, &rec, cause) < 0)
      return -1;
   int t = ev->measure.task, rc = -1;
   EngineTask *et = &e->tasks[t];
   State st;
   char *why = NULL;
   if (t != r->task)
      *cause = xAsprintf("%s:%d: a measurement of task %d outside a round of that task", path, ev->line, t);
   else if (State_parse(&et->set, ev->measure.state, &e->limits, &st, &why) < 0) {
      *cause = xAsprintf("%s:%d: the state of task %d does not parse: %s", path, ev->line, t, why);
      free(why);
   } else {
      bool good = rec.error == MEASURE_OK;
      double latency = good ? Measure_median(rec.costs, rec.ncosts) : MEASURE_FAILED_COST;
      SearchTask_addMeasured(&et->search, &st, latency);
      e->measuredIn[et->set.sketches[st.sketch].precision] += good;
      if (r->n == r->cap) {
         r->cap = r->cap ? 2 * r->cap : 16;
         r->costs = xReallocArray(r->costs, (size_t)r->cap, sizeof *r->costs);
      }
      r->costs[r->n++] = good ? latency : SCHEDULER_NO_COST;
      if (Featurizer_addRecord(e->featurizer, &rec, data, &why) < 0)
         free(why);             /* it parsed above: not expected */
      rc = 0;
   }
   Record_done(&rec);
   return rc;
}

/* Checks that the session belongs to this network and device. */
static int resumeMatches(const Engine *e, const SessionHeader *h, const char *path, char **cause) {
   if (h->ntasks != e->net.ntasks) {
      *cause = xAsprintf("%s: the session has %d tasks, but %s has %d", path, h->ntasks, e->net.path, e->net.ntasks);
      return -1;
   }
   for (int t = 0; t < h->ntasks; t++)
      if (strcmp(h->tasks[t], e->net.tasks[t].key) != 0) {
         *cause = xAsprintf("%s: task %d of the session is %s, but in %s it is %s", path, t, h->tasks[t],
                            e->net.path, e->net.tasks[t].key);
         return -1;
      }
   const Device *dev = Measurer_device(e->measurer);
   bool sim = Measurer_simulated(e->measurer);
   if (h->simulated != sim || strcmp(h->device, dev->name) != 0) {
      *cause = xAsprintf("%s: the session was measured on %s%s; this run would measure on %s%s", path, h->device,
                         h->simulated ? " (simulated)" : "", dev->name, sim ? " (simulated)" : "");
      return -1;
   }
   if (h->measuresPerRound != e->measuresPerRound) {
      *cause = xAsprintf("%s: the session measures %d states per round, not %d", path, h->measuresPerRound,
                         e->measuresPerRound);
      return -1;
   }
   return 0;
}

static int resumeFrom(Engine *e, const SessionLog *log, const char *path, const char *notice, char **cause) {
   const SessionHeader *h = &log->events[0].header;
   if (resumeMatches(e, h, path, cause) < 0)
      return -1;
   Dataset data;
   Dataset_init(&data);
   ReplayRound r = { .task = -1 };
   char modelKind[64] = "";     /* the last model swap's */
   char modelCheckpoint[512] = "";
   double elapsed = 0;
   int rc = 0;
   for (int i = 1; i < log->count && rc == 0; i++) {
      const SessionEvent *ev = &log->events[i];
      elapsed = ev->elapsed > elapsed ? ev->elapsed : elapsed;
      switch (ev->kind) {
      case SESSION_ROUND:
         closeRound(e, &r, false);
         if (ev->roundStart.task >= e->net.ntasks) {
            *cause = xAsprintf("%s:%d: task %d is out of range (the session has %d tasks)", path, ev->line,
                               ev->roundStart.task, e->net.ntasks);
            rc = -1;
            break;
         }
         r.task = ev->roundStart.task;
         r.n = 0;
         e->rounds = ev->round;
         break;
      case SESSION_MEASURE:
         rc = replayMeasure(e, log, ev, &r, &data, path, cause);
         break;
      case SESSION_ROUND_END:
         closeRound(e, &r, true);
         break;
      case SESSION_COMMAND: {
         Command c;
         char *why = NULL;
         if (!ev->command.applied || Command_parse(ev->command.text, e->net.ntasks, &c, &why) < 0) {
            free(why);
            break;
         }
         if (c.kind == COMMAND_MODEL) {
            snprintf(modelKind, sizeof modelKind, "%s", c.model);
            snprintf(modelCheckpoint, sizeof modelCheckpoint, "%s", c.checkpoint);
         }
         /* stop and the whole engine's pause end with the run that gave them */
         else if (c.kind != COMMAND_STOP && c.kind != COMMAND_PAUSE_ALL && c.kind != COMMAND_RESUME_ALL) {
            bool stop = false;
            if (applyCommand(e, ev->command.text, &stop, &why) < 0)
               free(why);       /* it applied when it ran; the same state refuses nothing */
         }
         break;
      }
      default:
         break;
      }
   }
   closeRound(e, &r, false);
   free(r.costs);
   if (rc == 0 && modelKind[0] && (strcmp(modelKind, e->costModel) != 0 || modelCheckpoint[0]))
      rc = swapModel(e, modelKind, modelCheckpoint, cause);
   if (rc == 0 && data.n > 0) {
      OnlineModel_update(e->online, &data);
      OnlineModel_wait(e->online);
   }
   Dataset_done(&data);
   if (rc < 0)
      return -1;
   /* fresh draws: the old session's generators would sample what it sampled before */
   for (int t = 0; t < e->net.ntasks; t++)
      Rng_seed(&e->tasks[t].search.rng, taskSeed(e->seed + 0x9e3779b97f4a7c15ull * (uint64_t)e->rounds, t));
   e->start = Clock_now() - elapsed;
   seedFleet(e, log);
   SessionEvent *ev = newEvent(e, SESSION_RESUMED);
   ev->resumed.trials = TaskScheduler_trials(e->sched);
   ev->resumed.notice = xStrdup(notice ? notice : "");
   return emit(e, cause);
}

/* cfg->sessionPath, or a new file named for the network, device and time in
 * cfg->sessionDir */
static SessionWriter *openSession(Engine *e, const EngineConfig *cfg, const SessionHeader *h, char **cause) {
   if (cfg->sessionPath) {
      e->sessionPath = xStrdup(cfg->sessionPath);
      return SessionWriter_open(cfg->sessionPath, h, cause);
   }
   if (Paths_makeDirs(cfg->sessionDir) < 0) {
      *cause = xAsprintf("%s: %s", cfg->sessionDir, strerror(errno));
      return NULL;
   }
   time_t now = (time_t)h->startTime;
   struct tm tm;
   char stamp[32];
   strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
   char *base = xAsprintf("%s/%s-%s%s-%s", cfg->sessionDir, h->network, h->simulated ? "sim_" : "", h->device, stamp);
   /* two runs in the same second: -2, -3, ... */
   for (int n = 1; n < 100; n++) {
      char *path = n == 1 ? xAsprintf("%s.jsonl", base) : xAsprintf("%s-%d.jsonl", base, n);
      char *why = NULL;
      SessionWriter *w = SessionWriter_open(path, h, &why);
      if (w) {
         e->sessionPath = path;
         free(base);
         return w;
      }
      bool exists = access(path, F_OK) == 0;
      free(path);
      if (!exists) {
         *cause = why;
         free(base);
         return NULL;
      }
      free(why);
   }
   free(base);
   *cause = xAsprintf("%s: too many sessions named %s-...-%s", cfg->sessionDir, h->network, stamp);
   return NULL;
}

/* Exact resume: runs the engine again from the start with the session's settings,
 * the measurements it holds taken from it instead of measured again and every event
 * matched against it, until it has caught up; then the run goes on where the session
 * ended, in the state the uninterrupted run would have had. -1 with *cause when the
 * session could not be written, or with e->divergence set when the re-run left it. */
static int rerun(Engine *e, const EngineConfig *cfg, char **cause) {
   const SessionLog *log = cfg->resume;
   e->replay = log;
   e->cursor = 1;
   e->boundary = xCalloc((size_t)log->count, sizeof *e->boundary);
   bool inRound = false;
   for (int i = 1; i < log->count; i++) {
      SessionEventKind k = log->events[i].kind;
      e->boundary[i] = k == SESSION_RESUMED || (k == SESSION_FINISHED && inRound);
      inRound = k == SESSION_ROUND ? true : k == SESSION_ROUND_END ? false : inRound;
   }
   e->resumeNotice = cfg->resumeNotice;
   e->resuming = true;
   for (int i = 1; i < log->count; i++)
      e->replayElapsed = log->events[i].elapsed > e->replayElapsed ? log->events[i].elapsed : e->replayElapsed;
   /* the training waited for each round, as in every run the re-run can match */
   bool overlap = e->overlap;
   e->overlap = false;
   int rc = 0;
   while (rc >= 0 && e->replay) {
      const SessionEvent *next = replayPeek(e);
      if (!next) {
         rc = caughtUp(e, cause);
         break;
      }
      int before = e->cursor;
      rc = Engine_runRound(e, cause);
      /* a run that ended there; the session went on after it */
      e->finished = false;
      if (rc >= 0 && e->replay && e->cursor == before) {
         char *want = SessionEvent_toJson(next, false);
         e->divergence = xAsprintf("line %d holds %.200s; the re-run made nothing", next->line, want);
         *cause = xStrdup(e->divergence);
         free(want);
         rc = -1;
      }
   }
   /* stop and the whole engine's pause end with the run that gave them */
   e->paused = false;
   e->overlap = overlap;
   e->resuming = false;
   free(e->boundary);
   e->boundary = NULL;
   return rc < 0 ? -1 : 0;
}

/* Engine_new; with cfg->resume, exact (rerun) or not (resumeFrom). */
static Engine *build(const EngineConfig *cfg, bool exact, char **divergence, char **cause) {
   *cause = NULL;
   if (cfg->trials < 1) {
      *cause = xAsprintf("the trial budget must be at least 1, not %d", cfg->trials);
      return NULL;
   }
   if (cfg->seed > ((uint64_t)1 << 53) - 1) {
      *cause = xStrdup("the seed must be below 2^53");
      return NULL;
   }
   Engine *e = xCalloc(1, sizeof *e);
   pthread_mutex_init(&e->lock, NULL);
   e->start = Clock_now();
   e->currentTask = -1;
   e->last.task = -1;
   e->last.acceptance = e->last.tau = NAN;
   const char *policy = cfg->policy ? cfg->policy : "pruner";
   if (SearchParams_byName(&e->params, policy, cause) < 0) {
      free(e);
      return NULL;
   }
   e->policy = xStrdup(policy);
   if (Model_load(&e->net, cfg->taskFile, cfg->modelInputs, cause) < 0) {
      free(e->policy);
      free(e);
      return NULL;
   }
   int ntasks = e->net.ntasks;

   /* the verify model: a checkpoint or a fresh model of the kind asked for, or by
    * default MoA from a shipped checkpoint that knows the network's operators */
   const char *kind = cfg->costModel, *load = cfg->loadModel;
   char *shipped = NULL;
   if (cfg->pretrained && !kind && !load) {
      uint32_t ops = 0;
      for (int t = 0; t < ntasks; t++)
         ops |= 1u << e->net.tasks[t].op.kind;
      shipped = Checkpoint_findShipped(MODEL_PAM, ops);
      if (shipped) {
         kind = "pam-moa";
         load = shipped;
         e->modelNote = xAsprintf("pam-moa from the shipped checkpoint %s, which has learned every operator of %s: "
                                  "its fast network fine-tuned every round, its slow one moved toward it every 4th "
                                  "(--cost-model pam from nothing)",
                                  shipped, e->net.name);
      } else {
         e->modelNote = xAsprintf("no shipped checkpoint has learned every operator of %s: pam learns from nothing",
                                  e->net.name);
      }
   }
   if (!e->modelNote)
      e->modelNote = xStrdup("");
   CostModel *model = verifyModel(kind, load, cfg->seed, "--load-model", cause);
   if (!model) {
      free(shipped);
      goto fail;
   }
   e->costModel = xStrdup(ModelKind_name(model->kind));
   e->modelKnows = knownPrecisions(model, load);
   /* absolute, so that a resume from another directory finds it again */
   char *resolved = load ? realpath(load, NULL) : NULL;
   e->checkpoint = xStrdup(resolved ? resolved : load ? load : "");
   free(resolved);
   free(shipped);
   TrainConfig_default(&e->train);
   e->train.seed = cfg->seed;
   /* after the first round a warm-starting model trains a few epochs on the new
    * measurements and a bounded replay of earlier ones (bench/models: 0.19 s a round
    * at 2,000 records, ranking within 0.02 of a full retrain) */
   e->train.roundEpochs = ENGINE_ROUND_EPOCHS;
   e->train.replay = ENGINE_REPLAY;
   e->seed = cfg->seed;
   e->threads = cfg->threads;
   e->overlap = cfg->overlap;
   e->online = OnlineModel_new(model, &e->train);

   MeasurerConfig mc;
   EngineConfig_measurer(cfg, &mc);
   e->measurer = Measurer_open(&mc, cause);
   if (!e->measurer)
      goto fail;
   const Device *dev = Measurer_device(e->measurer);
   e->counters = cfg->counters != ENGINE_COUNTERS_AUTO ? cfg->counters
                 : Measurer_simulated(e->measurer)     ? ENGINE_COUNTERS_EVERY
                                                       : ENGINE_COUNTERS_BEST;
   if (e->counters == ENGINE_COUNTERS_EVERY && !Measurer_setCounters(e->measurer, true))
      e->counters = ENGINE_COUNTERS_AUTO;

   if (e->params.draft) {
      PsaParams psa;
      if (PsaParams_fromDevice(&psa, dev, cause) < 0)
         goto fail;
      e->draft = Scorer_psa(&psa, cfg->threads);
   }
   const Network *nets[1] = { &e->net };
   e->featurizer = Featurizer_new(nets, 1, cfg->devices);
   e->verify = Scorer_predictor(onlinePredict, e->online, e->costModel, e->featurizer, dev->name, cfg->threads);

   SchedLimits_fromDevice(&e->limits, dev);
   unsigned tc;
   if (tensorCorePrecisions(e, cfg, dev, &tc, cause) < 0)
      goto fail;
   e->tasks = xCalloc((size_t)ntasks, sizeof *e->tasks);
   for (int t = 0; t < ntasks; t++) {
      EngineTask *et = &e->tasks[t];
      SketchOptions opt = { offeredPrecisions(e, et, &e->net.tasks[t].op, tc), tc != 0 };
      SketchSet_forOpWith(&et->set, &e->net.tasks[t].op, &opt);
      SearchTask_init(&et->search, &e->net.tasks[t], &et->set, &e->limits, taskSeed(cfg->seed, t));
   }
   e->precisionNote = precisionNote(e, tc);
   if (offeredAnywhere(e) & ~e->modelKnows) {
      if (e->draft) {
         e->fallback = e->draft;
      } else {
         PsaParams psa;
         if (PsaParams_fromDevice(&psa, dev, cause) < 0)
            goto fail;
         e->fallback = Scorer_psa(&psa, cfg->threads);
      }
   }

   SchedulerConfig sc;
   SchedulerConfig_default(&sc);
   sc.trialBudget = cfg->trials;
   if (cfg->perRound > 0)
      sc.measuresPerRound = cfg->perRound;
   else {
      /* every task a round within the budget, when the budget allows one each */
      int per = cfg->trials / ntasks;
      sc.measuresPerRound = per < 1 ? 1 : per < 10 ? per : 10;
   }
   sc.seed = cfg->seed;
   e->sched = TaskScheduler_newForNetwork(&e->net, &sc, cause);
   if (!e->sched)
      goto fail;
   e->measuresPerRound = TaskScheduler_measuresPerRound(e->sched);
   size_t per = (size_t)e->measuresPerRound;
   e->picks = xCalloc(per, sizeof *e->picks);
   e->states = xCalloc(per, sizeof *e->states);
   e->outcomes = xCalloc(per, sizeof *e->outcomes);
   e->costs = xCalloc(per, sizeof *e->costs);

   if (cfg->resume) {
      SessionEvent_copy(&e->header, &cfg->resume->events[0]);
      e->sessionPath = xStrdup(cfg->sessionPath);
      /* the writer first: it holds the session's lock while the re-run goes on */
      e->writer = SessionWriter_append(cfg->sessionPath, cause);
      if (!e->writer)
         goto fail;
      /* the session must be of this network's tasks, even where a re-run would not
       * notice (a task renamed, its kernels the same) */
      if ((exact && resumeMatches(e, &cfg->resume->events[0].header, cfg->sessionPath, cause) < 0) ||
          (exact ? rerun(e, cfg, cause) < 0 : resumeFrom(e, cfg->resume, cfg->sessionPath, cfg->resumeNotice, cause) < 0)) {
         if (e->divergence) {
            *divergence = e->divergence;
            e->divergence = NULL;
         }
         goto fail;
      }
   } else {
      SessionHeader h;
      memset(&h, 0, sizeof h);
      h.version = SESSION_FORMAT_VERSION;
      h.network = e->net.name;
      h.networkFile = e->net.path;
      h.networkInputs = e->net.inputs;
      char devName[sizeof dev->name];
      memcpy(devName, dev->name, sizeof devName);
      h.device = devName;
      h.simulated = Measurer_simulated(e->measurer);
      h.policy = e->policy;
      h.costModel = e->costModel;
      h.checkpoint = e->checkpoint;
      h.trialBudget = cfg->trials;
      h.measuresPerRound = e->measuresPerRound;
      h.seed = (int64_t)cfg->seed;
      h.startTime = (int64_t)time(NULL);
      char fleet[256];
      snprintf(fleet, sizeof fleet, "%s", Measurer_fleet(e->measurer));
      h.fleet = fleet;
      h.fleetSize = Measurer_count(e->measurer);
      h.precision = e->precisionSpec;
      h.maxError = e->maxError;
      char split[16];
      snprintf(split, sizeof split, "%s", e->overNetwork ? "network" : "");
      h.errorSplit = split;
      h.ntasks = ntasks;
      h.tasks = xCalloc((size_t)ntasks, sizeof *h.tasks);
      for (int t = 0; t < ntasks; t++)
         h.tasks[t] = e->net.tasks[t].key;
      SessionEvent he = { .kind = SESSION_HEADER, .header = h };
      SessionEvent_copy(&e->header, &he);
      free(h.tasks);
      if (cfg->sessionPath || cfg->sessionDir) {
         e->writer = openSession(e, cfg, &e->header.header, cause);
         if (!e->writer)
            goto fail;
      }
   }
   /* what a resumed session trained on its way in is no round of this run */
   e->modelRounds = OnlineModel_rounds(e->online);
   return e;
fail:
   e->finished = true;          /* nothing to write */
   Engine_free(e);
   return NULL;
}

Engine *Engine_new(const EngineConfig *cfg, char **cause) {
   char *divergence = NULL;
   Engine *e = build(cfg, true, &divergence, cause);
   if (e || !divergence)
      return e;
   /* a session another build or --overlap made: it goes on from its measurements */
   free(*cause);
   EngineConfig again = *cfg;
   char *notice = xAsprintf("%s%snot an exact resume: the re-run left the session (%s), so the search goes on "
                            "from the session's measurements, not from the state the run had",
                            cfg->resumeNotice ? cfg->resumeNotice : "", cfg->resumeNotice ? "; " : "", divergence);
   again.resumeNotice = notice;
   e = build(&again, false, &divergence, cause);
   free(notice);
   free(divergence);
   return e;
}

void Engine_free(Engine *e) {
   if (!e)
      return;
   if (!e->finished && e->writer) {
      char *cause = NULL;
      if (Engine_finish(e, SESSION_END_STOPPED, &cause) < 0)
         free(cause);
   }
   if (e->writer) {
      char *cause = NULL;
      if (SessionWriter_close(e->writer, &cause) < 0)
         free(cause);
   }
   clearEvents(e);
   free(e->events);
   TaskScheduler_free(e->sched);
   if (e->fallback != e->draft)
      Scorer_free(e->fallback);
   Scorer_free(e->draft);
   Scorer_free(e->verify);
   if (e->online)
      OnlineModel_wait(e->online);
   OnlineModel_free(e->online);
   Featurizer_free(e->featurizer);
   if (e->tasks)
      for (int t = 0; t < e->net.ntasks; t++) {
         SearchTask_done(&e->tasks[t].search);
         SketchSet_done(&e->tasks[t].set);
      }
   free(e->tasks);
   Measurer_close(e->measurer);
   Network_done(&e->net);
   free(e->picks);
   free(e->states);
   free(e->outcomes);
   free(e->costs);
   free(e->policy);
   free(e->costModel);
   free(e->checkpoint);
   free(e->modelNote);
   free(e->precisionNote);
   free(e->sessionPath);
   SessionEvent_done(&e->header);
   for (int i = 0; i < e->ncommands; i++)
      free(e->commands[i]);
   free(e->commands);
   free(e->refusal);
   free(e->divergence);
   for (int i = 0; i < e->nbacklog; i++)
      SessionEvent_done(&e->backlog[i]);
   free(e->backlog);
   pthread_mutex_destroy(&e->lock);
   free(e);
}

/* the finished event after the events of this round so far, all written */
/* With --overlap: a model event for the training that ended since the last one
 * (wait: after waiting for the one running). */
static void modelEvent(Engine *e, bool wait) {
   if (wait)
      OnlineModel_wait(e->online);
   int rounds, samples;
   double secs;
   char *err;
   OnlineModel_status(e->online, &rounds, &secs, &samples, &err);
   if (rounds > e->modelRounds) {
      e->modelRounds = rounds;
      SessionEvent *ev = newEvent(e, SESSION_MODEL);
      ev->model.seconds = secs;
      ev->model.samples = samples;
      ev->model.error = err ? err : xStrdup("");
   } else {
      free(err);
   }
}

static int finishRound(Engine *e, SessionEnd why, char **cause) {
   if (e->overlap)
      modelEvent(e, true);
   e->finished = true;
   e->why = why;
   SessionEvent *ev = newEvent(e, SESSION_FINISHED);
   ev->finished.why = why;
   return emit(e, cause);
}

int Engine_finish(Engine *e, SessionEnd why, char **cause) {
   if (e->finished)
      return 0;
   clearEvents(e);
   return finishRound(e, why, cause);
}

void Engine_command(Engine *e, const char *text) {
   pthread_mutex_lock(&e->lock);
   if (e->ncommands == e->commandCap) {
      e->commandCap = e->commandCap ? 2 * e->commandCap : 8;
      e->commands = xReallocArray(e->commands, (size_t)e->commandCap, sizeof *e->commands);
   }
   e->commands[e->ncommands++] = xStrdup(text);
   pthread_mutex_unlock(&e->lock);
}

bool Engine_hasCommands(Engine *e) {
   pthread_mutex_lock(&e->lock);
   bool any = e->ncommands > 0;
   pthread_mutex_unlock(&e->lock);
   return any;
}

void Engine_setListener(Engine *e, EngineListener fn, void *ctx) {
   e->listener = fn;
   e->listenerCtx = ctx;
   if (fn && e->nbacklog > 0) {
      fn(ctx, e->backlog, e->nbacklog);
      for (int i = 0; i < e->nbacklog; i++)
         SessionEvent_done(&e->backlog[i]);
      free(e->backlog);
      e->backlog = NULL;
      e->nbacklog = 0;
   }
}

const char *Engine_lastRefusal(const Engine *e) {
   return e->refusal;
}

/* a new verify model of that kind, trained on every measurement so far */
/* A fresh verify model of kind `name`, or the checkpoint's (which must be of that
 * kind) when checkpoint is not "", trained on every measurement so far. */
static int swapModel(Engine *e, const char *name, const char *checkpoint, char **cause) {
   char what[96];
   snprintf(what, sizeof what, "model %s", name);
   CostModel *m = verifyModel(name, checkpoint, e->seed, what, cause);
   if (!m)
      return -1;
   /* the trainer owns m from here on and may replace it with a trained copy */
   ModelKind chosen = m->kind;
   unsigned knows = knownPrecisions(m, checkpoint);
   OnlineModel *o = OnlineModel_new(m, &e->train);
   OnlineModel_wait(e->online);
   const Dataset *data = OnlineModel_data(e->online);
   if (data->n > 0) {
      OnlineModel_update(o, data);
      OnlineModel_wait(o);
   }
   Scorer *verify = Scorer_predictor(onlinePredict, o, ModelKind_name(chosen), e->featurizer,
                                     Measurer_device(e->measurer)->name, e->threads);
   Scorer_free(e->verify);
   OnlineModel_free(e->online);
   e->verify = verify;
   e->online = o;
   e->modelKnows = knows;
   free(e->costModel);
   free(e->checkpoint);
   e->costModel = xStrdup(ModelKind_name(chosen));
   e->checkpoint = xStrdup(checkpoint ? checkpoint : "");
   return 0;
}

/* applies one command; -1 with *cause when it cannot; *stop for `stop` */
static int applyCommand(Engine *e, const char *text, bool *stop, char **cause) {
   Command c;
   if (Command_parse(text, e->net.ntasks, &c, cause) < 0)
      return -1;
   switch (c.kind) {
   case COMMAND_STOP: *stop = true; return 0;
   case COMMAND_PAUSE_ALL:
   case COMMAND_RESUME_ALL: {
      bool pause = c.kind == COMMAND_PAUSE_ALL;
      if (pause == e->paused) {
         *cause = xStrdup(pause ? "tuning is paused already" : "tuning is not paused");
         return -1;
      }
      e->paused = pause;
      return 0;
   }
   case COMMAND_PRIORITY: return TaskScheduler_setPriority(e->sched, c.task, c.value, cause);
   case COMMAND_FOCUS: return TaskScheduler_setFocus(e->sched, c.task, true, cause);
   case COMMAND_FOCUS_OFF: TaskScheduler_clearFocus(e->sched); return 0;
   case COMMAND_BUDGET: return TaskScheduler_setBudget(e->sched, (int)c.value, cause);
   case COMMAND_MODEL: return swapModel(e, c.model, c.checkpoint, cause);
   }
   return 0;
}

/* applies the queued commands, each a command event; *stop when one was `stop` */
static void applyCommands(Engine *e, bool *stop) {
   int n = 0;
   char **cmds = NULL;
   if (e->replay) {
      /* the session's commands, where they came (matched again as their events are
       * made); the queue waits until the re-run has caught up */
      int at = e->cursor;
      for (const SessionEvent *c; (c = replayPeek(e)) && c->kind == SESSION_COMMAND; e->cursor++) {
         cmds = xReallocArray(cmds, (size_t)n + 1, sizeof *cmds);
         cmds[n++] = xStrdup(c->command.text ? c->command.text : "");
      }
      e->cursor = at;
   } else {
      pthread_mutex_lock(&e->lock);
      n = e->ncommands;
      cmds = e->commands;
      e->commands = NULL;
      e->ncommands = e->commandCap = 0;
      pthread_mutex_unlock(&e->lock);
   }
   for (int i = 0; i < n; i++) {
      char *why = NULL;
      bool applied = !*stop && applyCommand(e, cmds[i], stop, &why) == 0;
      if (!applied) {
         free(e->refusal);
         e->refusal = why ? why : xStrdup("tuning is stopping");
      }
      SessionEvent *ev = newEvent(e, SESSION_COMMAND);
      ev->command.text = cmds[i];
      ev->command.applied = applied;
      ev->command.why = xStrdup(applied ? "" : e->refusal);
   }
   free(cmds);
}

bool Engine_finished(const Engine *e, SessionEnd *why) {
   if (why)
      *why = e->why;
   return e->finished;
}

static SessionEnd endOf(SchedulerStop s) {
   switch (s) {
   case SCHED_ALL_DEAD:
   case SCHED_NONE_ELIGIBLE:
      return SESSION_END_ALL_DEAD;
   default:
      return SESSION_END_BUDGET;
   }
}

/* What each device of a fleet of 2 or more did so far, read now that the batch is done. */
static void fleetAtRoundEnd(const Engine *e, SessionEvent *ev) {
   int n = Measurer_count(e->measurer);
   if (n < 2)
      return;
   ev->roundEnd.ndevices = n;
   ev->roundEnd.devices = xCalloc((size_t)n, sizeof *ev->roundEnd.devices);
   for (int i = 0; i < n; i++) {
      MeasurerDeviceStats st;
      Measurer_deviceStats(e->measurer, i, &st);
      SessionDevice *d = &ev->roundEnd.devices[i];
      d->name = xStrdup(st.name);
      d->measured = (int)st.measured;
      d->busySeconds = st.busySeconds;
      d->failed = (int)st.failed;
      d->retired = st.retired;
      d->why = xStrdup(st.why ? st.why : "");
   }
}

/* The pairwise accuracy of a model's scores (the draft's or the verify's) of the
 * round's successful picks against their measured latencies. */
static double rankAgreement(const Engine *e, int n, bool draft) {
   double *score = xMalloc((size_t)(n > 0 ? n : 1) * 2 * sizeof *score), *speed = score + n;
   int m = 0;
   for (int i = 0; i < n; i++) {
      float sc = draft ? e->picks[i].draftScore : e->picks[i].verifyScore;
      if (e->costs[i] >= SCHEDULER_NO_COST || isnan(sc))
         continue;
      score[m] = sc;
      speed[m++] = -e->costs[i];
   }
   double rank = Metrics_pairwise(score, speed, m);
   free(score);
   return rank;
}

/* While re-running a resumed session: the outcomes of the round's first picks that
 * the session measured, from its measure events (matched with the picks' states as
 * their events are made), into e->outcomes; how many. */
static int recordedOutcomes(Engine *e, int task, int n) {
   int known = 0, at = e->cursor;
   for (const SessionEvent *ev; known < n && (ev = replayPeek(e)) && ev->kind == SESSION_MEASURE &&
                                ev->measure.task == task;
        e->cursor++) {
      MeasureOutcome *o = &e->outcomes[known++];
      memset(o, 0, sizeof *o);
      int err = MeasureError_parse(ev->measure.error);
      o->error = err < 0 ? MEASURE_RUNTIME_ERROR : (MeasureError)err;
      o->registers = o->spillBytes = -1;
      o->outputError = ev->measure.outputError;
      o->compileSeconds = ev->measure.buildSeconds;
      o->runSeconds = ev->measure.runSeconds;
      if (o->error == MEASURE_OK) {
         o->ncosts = ev->measure.ncosts;
         memcpy(o->costs, ev->measure.costs, (size_t)o->ncosts * sizeof o->costs[0]);
         o->latency = Measure_median(o->costs, o->ncosts);
      } else {
         o->latency = MEASURE_FAILED_COST;
         snprintf(o->message, sizeof o->message, "%s", ev->measure.message ? ev->measure.message : "");
      }
   }
   e->cursor = at;
   return known;
}

/* While re-running a resumed session: its best event of this round for task, or NULL
 * when it holds none (the round was cut short before it). */
static const SessionEvent *recordedBest(Engine *e, int task) {
   for (int i = e->cursor; i < e->replay->count; i++) {
      const SessionEvent *ev = &e->replay->events[i];
      if (e->boundary[i])
         continue;
      if (ev->kind == SESSION_ROUND_END || ev->kind == SESSION_ROUND)
         break;
      if (ev->kind == SESSION_BEST && ev->best.task == task)
         return ev;
   }
   return NULL;
}

/* The counters of the round's new best, of cost `best` among its n outcomes: those the
 * session being re-run holds (none in files before them); else its outcome's; else,
 * under ENGINE_COUNTERS_BEST or for an outcome the session held without them, the
 * state measured once more with counters on. Not present when none can be had. */
static void bestCounters(Engine *e, int task, int n, double best, Counters *c) {
   memset(c, 0, sizeof *c);
   const SessionEvent *held = e->replay ? recordedBest(e, task) : NULL;
   if (held) {
      *c = held->best.counters;
      return;
   }
   int i = 0;
   while (i < n && !(e->outcomes[i].error == MEASURE_OK && e->costs[i] == best))
      i++;
   if (i == n || e->counters == ENGINE_COUNTERS_AUTO)
      return;
   if (e->outcomes[i].counters.present) {
      *c = e->outcomes[i].counters;
      return;
   }
   if (e->counters == ENGINE_COUNTERS_BEST && !Measurer_setCounters(e->measurer, true)) {
      e->counters = ENGINE_COUNTERS_AUTO;
      return;
   }
   MeasureOutcome o;
   Measurer_measure(e->measurer, &e->states[i], 1, &o);
   if (e->counters == ENGINE_COUNTERS_BEST)
      Measurer_setCounters(e->measurer, false);
   if (o.error == MEASURE_OK)
      *c = o.counters;
}

int Engine_runRound(Engine *e, char **cause) {
   *cause = NULL;
   if (e->finished)
      return 0;
   clearEvents(e);
   bool stop = false;
   applyCommands(e, &stop);
   if (stop)
      return finishRound(e, SESSION_END_STOPPED, cause) < 0 ? -1 : 0;
   /* a run of the session being re-run ended here (stopped from outside, say) */
   const SessionEvent *end = e->replay ? replayPeek(e) : NULL;
   if (end && end->kind == SESSION_FINISHED)
      return finishRound(e, end->finished.why, cause) < 0 ? -1 : 0;
   if (e->paused)
      return emit(e, cause) < 0 ? -1 : ENGINE_PAUSED;
   int t = TaskScheduler_next(e->sched);
   if (t < 0)
      return finishRound(e, endOf(TaskScheduler_stop(e->sched)), cause) < 0 ? -1 : 0;
   e->rounds++;
   EngineTask *et = &e->tasks[t];
   const Task *task = &e->net.tasks[t];
   SessionEvent *ev = newEvent(e, SESSION_ROUND);
   ev->roundStart.task = t;
   ev->roundStart.trials = TaskScheduler_trials(e->sched);
   if (emit(e, cause) < 0)
      return -1;

   double bestBefore = TaskScheduler_best(e->sched, t);
   int n = 0;
   SearchRoundStats st;
   memset(&st, 0, sizeof st);
   st.acceptance = st.kendallTau = NAN;
   char *why = NULL;
   if (e->currentTask != t) {
      if (Measurer_setTask(e->measurer, task, &et->set, &why) < 0)
         e->currentTask = -1;
      else
         e->currentTask = t;
   }
   /* a task that cannot be set up or searched measures nothing: the scheduler then
    * retires it */
   Scorer *verify = Engine_verifiesByPsa(e, t) ? e->fallback : e->verify;
   bool searched = e->currentTask == t &&
                   Search_round(&et->search, &e->params, e->draft, verify, e->measuresPerRound, e->picks, &n, &st,
                                &why) == 0;
   free(why);
   if (!searched)
      n = 0;
   else {
      ev = newEvent(e, SESSION_SEARCH);
      ev->search.task = t;
      ev->search.drafted = st.drafted;
      ev->search.sampled = st.sampled;
      ev->search.drafts = st.drafts;
      ev->search.population = st.population;
      ev->search.kept = st.verifyKept;
      ev->search.picks = st.picks;
      ev->search.fromDrafts = st.picksFromDrafts;
      ev->search.random = st.picksRandom;
      ev->search.seconds = st.totalSeconds;
      ev->search.bestRank = st.bestDraftRank > 0 ? st.bestDraftRank : NAN;
      if (emit(e, cause) < 0)
         return -1;
   }

   for (int i = 0; i < n; i++)
      e->states[i] = e->picks[i].state;
   int known = e->replay ? recordedOutcomes(e, t, n) : 0;
   if (n > known)
      Measurer_measure(e->measurer, e->states + known, n - known, e->outcomes + known);
   Dataset fresh;
   Dataset_init(&fresh);
   int ok = 0;
   for (int i = 0; i < n; i++) {
      const MeasureOutcome *o = &e->outcomes[i];
      bool good = o->error == MEASURE_OK;
      ok += good;
      e->costs[i] = good ? o->latency : SCHEDULER_NO_COST;
      SearchTask_addMeasured(&et->search, &e->states[i], good ? o->latency : MEASURE_FAILED_COST);
      Record r;
      Measurer_record(e->measurer, &e->states[i], o, &r);
      ev = newEvent(e, SESSION_MEASURE);
      ev->measure.task = t;
      ev->measure.state = xStrdup(r.state);
      ev->measure.ncosts = r.ncosts < SESSION_MAX_COSTS ? r.ncosts : SESSION_MAX_COSTS;
      memcpy(ev->measure.costs, r.costs, (size_t)ev->measure.ncosts * sizeof r.costs[0]);
      ev->measure.error = xStrdup(MeasureError_name(r.error));
      ev->measure.message = xStrdup(r.message ? r.message : "");
      ev->measure.lineage = xStrdup(Lineage_name(e->picks[i].root));
      ev->measure.draftScore = e->picks[i].draftScore;
      ev->measure.verifyScore = e->picks[i].verifyScore;
      ev->measure.buildSeconds = o->compileSeconds;
      ev->measure.runSeconds = o->runSeconds;
      ev->measure.throttled = r.throttled;
      Precision prec = et->set.sketches[e->states[i].sketch].precision;
      ev->measure.predictedError = et->predicted[prec];
      e->measuredIn[prec] += good;
      ev->measure.outputError = e->precisionSpec[0] ? o->outputError : NAN;
      char *fcause = NULL;
      if (Featurizer_addRecord(e->featurizer, &r, &fresh, &fcause) < 0)
         free(fcause);   /* the state came from this task's sketches: not expected */
      Record_done(&r);
   }
   TaskScheduler_done(e->sched, t, e->costs, n);
   /* the measurements are on disk before the model trains: a killed run loses none */
   if (emit(e, cause) < 0) {
      Dataset_done(&fresh);
      return -1;
   }

   /* train on the new samples and wait for it (deterministic), or with --overlap
    * let it run on beside the next round */
   if (fresh.n > 0)
      OnlineModel_update(e->online, &fresh);
   if (e->overlap)
      modelEvent(e, false);
   else if (fresh.n > 0) {
      double secs = OnlineModel_wait(e->online);
      ev = newEvent(e, SESSION_MODEL);
      ev->model.seconds = secs;
      ev->model.samples = OnlineModel_data(e->online)->n;
      const char *err = OnlineModel_lastError(e->online);
      ev->model.error = xStrdup(err ? err : "");
   }
   Dataset_done(&fresh);

   double bestAfter = TaskScheduler_best(e->sched, t);
   bool improved = bestAfter < bestBefore && bestAfter < SCHEDULER_NO_COST;
   if (improved) {
      ev = newEvent(e, SESSION_BEST);
      ev->best.task = t;
      ev->best.latency = bestAfter;
      bestCounters(e, t, n, bestAfter, &ev->best.counters);
   }
   ev = newEvent(e, SESSION_ROUND_END);
   ev->roundEnd.trials = TaskScheduler_trials(e->sched);
   ev->roundEnd.latencyMs = TaskScheduler_latencyMs(e->sched);
   ev->roundEnd.acceptance = n > 0 ? st.acceptance : NAN;
   ev->roundEnd.tau = n > 0 ? st.kendallTau : NAN;
   ev->roundEnd.draftRank = rankAgreement(e, n, true);
   ev->roundEnd.verifyRank = rankAgreement(e, n, false);
   fleetAtRoundEnd(e, ev);

   e->last.round = e->rounds;
   e->last.task = t;
   e->last.measured = n;
   e->last.ok = ok;
   e->last.acceptance = ev->roundEnd.acceptance;
   e->last.tau = ev->roundEnd.tau;
   e->last.improved = improved;
   return emit(e, cause) < 0 ? -1 : 1;
}

const Network *Engine_network(const Engine *e) {
   return &e->net;
}

const TaskScheduler *Engine_scheduler(const Engine *e) {
   return e->sched;
}

const Measurer *Engine_measurer(const Engine *e) {
   return e->measurer;
}

const char *Engine_policy(const Engine *e) {
   return e->policy;
}

const char *Engine_costModel(const Engine *e) {
   return e->costModel;
}

const char *Engine_checkpoint(const Engine *e) {
   return e->checkpoint;
}

double Engine_taskBound(double maxError, bool overNetwork, const Network *net) {
   if (!(maxError > 0))
      return NAN;
   if (!overNetwork)
      return maxError;
   double weights = 0;
   for (int t = 0; t < net->ntasks; t++)
      weights += net->tasks[t].weight;
   return weights > 0 ? maxError / sqrt(weights) : maxError;
}

bool Engine_verifiesByPsa(const Engine *e, int t) {
   if (!e->fallback)
      return false;
   unsigned unknown = Engine_taskPrecisions(e, t) & ~e->modelKnows;
   for (int p = 0; p < PRECISION_COUNT; p++)
      if (unknown & PRECISION_BIT(p) && e->measuredIn[p] < ENGINE_PRECISION_LEARNED)
         return true;
   return false;
}

unsigned Engine_taskPrecisions(const Engine *e, int t) {
   return SketchSet_offeredPrecisions(&e->tasks[t].set);
}

const char *Engine_precisionNote(const Engine *e) {
   return e->precisionNote;
}

const char *Engine_modelNote(const Engine *e) {
   return e->modelNote;
}

const SessionHeader *Engine_header(const Engine *e) {
   return &e->header.header;
}

const char *Engine_sessionPath(const Engine *e) {
   return e->sessionPath;
}

double Engine_elapsed(const Engine *e) {
   return Clock_now() - e->start;
}

int Engine_rounds(const Engine *e) {
   return e->rounds;
}

EngineCounters Engine_counters(const Engine *e) {
   return e->counters;
}

void Engine_lastRound(const Engine *e, EngineRoundInfo *out) {
   *out = e->last;
}

