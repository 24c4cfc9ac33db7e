/* The tuning engine (DESIGN.md 3.7): owns a network's tasks, the measurer, the
 * search of each task, the scorers (PSA drafts, an online-trained verify model), the
 * task scheduler and the session file, and runs the tuning one round at a time. A
 * round: the scheduler's next task, a search round, the picks measured, the results
 * given back to the search and the scheduler, the verify model trained on the new
 * samples, and the round's events written to the session.
 *
 * Deterministic for a seed on the simulator: every decision comes from seeded
 * generators and measured costs, never the wall clock. The verify model trains after
 * each round and the engine waits for that training (OnlineModel_wait) before the
 * next search round, so the scores a search sees do not depend on how long training
 * took: the engine trains synchronously, trading the overlap of training and search
 * for reproducible sessions.
 *
 * One thread drives it (the batch loop, or the workbench's engine thread); other
 * threads talk to it only through Engine_command, whose queue the engine applies at
 * the start of each round. */
#ifndef HEADER_engine
#define HEADER_engine

#include <stdbool.h>
#include <stdint.h>

#include "device/device.h"
#include "measure/measurer.h"
#include "tune/scheduler.h"
#include "tune/session.h"

/* Which measurements carry their counters (measurer.h), so that each task's best keeps
 * what it did on the hardware (the best event's counters). */
typedef enum {
   ENGINE_COUNTERS_AUTO,        /* every one on the simulator, the bests alone on a GPU */
   ENGINE_COUNTERS_EVERY,       /* every measurement: the simulator models them for nothing */
   ENGINE_COUNTERS_BEST,        /* none, but a round's new best is measured once more with
                                   them: a GPU profiles a program with one more launch,
                                   replayed per pass, too slow for every one */
} EngineCounters;

typedef struct EngineConfig_ {
   const char *taskFile;        /* the network's task file or ONNX model (a path Model_load reads) */
   const char *modelInputs;     /* an ONNX model's input dimensions ("x=1x3x224x224;..."), or NULL */
   const DeviceSet *devices;    /* profiles; kept by the caller until Engine_free */
   const char *device;          /* "auto" (NULL too), "cuda:N" or "sim:PROFILE" */
   const char *policy;          /* "pruner" (NULL too) or "ansor" */
   const char *costModel;       /* the verify model's kind; NULL: "pam" */
   const char *loadModel;       /* a checkpoint to start the verify model from, or NULL */
   /* with neither costModel nor loadModel: pam-moa from the shipped PAM checkpoint
    * that has learned every operator of the network, when one ships
    * (Checkpoint_findShipped), else pam from nothing; the pruner policy's default */
   bool pretrained;
   const char *sessionPath;     /* the session file to create (must not exist), or NULL */
   /* without a sessionPath: the directory (made when missing) where a session named
    * NETWORK-DEVICE-YYYYmmdd-HHMMSS.jsonl is created (DEVICE "sim_PROFILE" on the
    * simulator); NULL: no session */
   const char *sessionDir;
   int trials;                  /* the trial budget, >= 1 */
   int perRound;                /* measurements per round; <= 0: min(10, trials / tasks) */
   uint64_t seed;               /* 0 to 2^53 - 1 */
   bool noCompile;              /* the simulator skips NVRTC (fast) */
   int simVerifyEvery;          /* the simulator checks 1 state in N on the CPU; <= 0: 8 */
   /* a round's training runs on while the next round searches and measures, with
    * the model published last: faster, but the picks then depend on timing */
   bool overlap;
   bool allowMixed;             /* GPUs of different models measure together */
   bool simRealtime;            /* a simulated measurement takes a GPU's time */
   bool mpi;                    /* rank 0 of an MPI run: the other ranks measure (mpi.h) */
   int threads;                 /* the scorers' threads; <= 0: one per online core */
   EngineCounters counters;     /* AUTO by default */
   /* --precision: the precisions the search may compute in (PRECISION_BITs); FP32's
    * CUDA-core sketches always, a matrix multiply's Tensor-Core sketch in each other
    * one the device has (one the device lacks is refused, unless precisionAuto asked
    * for every one). 0: FP32 alone. */
   unsigned precisions;
   bool precisionAuto;
   /* --max-error: per task, a Tensor-Core precision whose predicted error over the
    * task's output (Verify_predictOpError) exceeds it is not offered, so the search
    * never draws its states; <= 0 or NAN: no bound */
   double maxError;
   /* --error-split network: maxError bounds the network's output instead, split over
    * its tasks (Engine_taskBound) */
   bool errorOverNetwork;
   /* --resume: the session read back (Session_read), whose file sessionPath names;
    * NULL for a new session. The caller fills the rest from its header. */
   const SessionLog *resume;
   const char *resumeNotice;    /* what Session_read said of it, or NULL */
} EngineConfig;

/* policy pruner, cost model pam, auto device, seed 1, no session; taskFile, devices
 * and trials are the caller's to set. */
void EngineConfig_default(EngineConfig *c);

/* The measurer's settings that cfg gives: the engine's own, and an MPI worker's. */
void EngineConfig_measurer(const EngineConfig *cfg, MeasurerConfig *mc);

typedef struct Engine_ Engine;

/* Loads the network, opens the measurer, builds the tasks' sketches, searches and
 * scorers, the scheduler and the session writer (refusing to overwrite a file). NULL
 * with *cause when any of it fails.
 *
 * With cfg->resume, the session goes on instead: its header must name the same tasks
 * (keys, in order), device and measures per round. The writer is opened first (its
 * lock refuses a second writer). Then the resume is exact: the engine runs again from
 * the seed, each event it makes matched against the session's next (wall clock and
 * resumed markers aside) instead of written, each measurement the session holds taken
 * from it instead of measured (and each best's counters, none from a file before
 * them), the session's commands applied where they came (the queue waits), its
 * finished events ending runs where they did; when the session has no more (in the
 * middle of a round that was cut short, or between rounds) a resumed event is written
 * and the run goes on; the events written meanwhile go to the listener when it is
 * set. When the re-run makes an event the session does not hold
 * (a session made with --overlap, or by another version), the engine is built again
 * and the session replayed instead: every measurement goes back into its task's
 * measured set (never measured again) and the verify model's data, every round into
 * the scheduler (a round cut short counts with the measurements it wrote), every
 * applied command but stop and whole-engine pause is applied again (the last model
 * swap chooses the model's kind), the verify model is trained on all the data, the
 * tasks' generators are reseeded from the seed and the rounds done, and the resumed
 * event's notice says the resume is not exact. A measure event whose state does not
 * parse or whose task is out of range fails it with "FILE:LINE: ...". */
Engine *Engine_new(const EngineConfig *cfg, char **cause);
/* Writes a finished event first when none was written ("stopped" if tuning was not
 * over), then closes the session and frees everything. */
void Engine_free(Engine *e);

/* Engine_runRound's result when the engine is paused as a whole: the commands were
 * applied (and written) but no round ran. */
#define ENGINE_PAUSED 2

/* One round. 1: a round ran; 0: tuning is over (the finished event is written; see
 * Engine_finish); ENGINE_PAUSED; -1 with *cause: the session could not be written.
 * The round's events are written (and fsynced) and given to the listener in three
 * steps: the commands, the round's start and its search; the measurements; the model,
 * best and round_end events. */
int Engine_runRound(Engine *e, char **cause);
/* Stops the tuning: writes the finished event (the given reason) and flushes the
 * session. Nothing happens after the first call. */
int Engine_finish(Engine *e, SessionEnd why, char **cause);
/* Whether tuning is over, and why. */
bool Engine_finished(const Engine *e, SessionEnd *why);

/* ---- commands: queued from any thread, applied between rounds ---- */

/* Queues a command; the next Engine_runRound applies the queued ones in order, before
 * choosing its task, each written as a command event (its text and whether it was
 * applied). The commands (TASK is a task ID):
 *   pause             no round runs until `resume` (Engine_runRound: ENGINE_PAUSED)
 *   resume            rounds run again
 *   pause TASK        the scheduler never picks it (priority 0)
 *   resume TASK       priority 1 again
 *   prio TASK M       priority multiplier M (>= 0; 2 = twice as urgent)
 *   focus TASK        only focused tasks are picked; `focus off` ends the focus
 *   budget N          a new trial budget
 *   model KIND        a fresh verify model of that kind, trained on every measurement
 *                     so far, from the next search on
 *   stop              tuning ends (finished "stopped")
 * A command that does not parse or cannot be applied (an unknown task, say) is
 * written with "applied": false and changes nothing. Thread-safe. */
void Engine_command(Engine *e, const char *text);
/* Whether commands are queued. Thread-safe. */
bool Engine_hasCommands(Engine *e);

/* Called with each batch of events as soon as they are written, on the thread that
 * runs the rounds; the events are valid during the call only. Set it before the first
 * round. */
typedef void (*EngineListener)(void *ctx, const SessionEvent *events, int n);
void Engine_setListener(Engine *e, EngineListener fn, void *ctx);
/* Why the last command that was not applied was refused, or NULL; valid until the
 * next round. */
const char *Engine_lastRefusal(const Engine *e);

/* ---- what it knows ---- */

const Network *Engine_network(const Engine *e);
const TaskScheduler *Engine_scheduler(const Engine *e);
const Measurer *Engine_measurer(const Engine *e);
const char *Engine_policy(const Engine *e);
const char *Engine_costModel(const Engine *e);
/* The checkpoint the verify model started from (--load-model), "" when none. */
const char *Engine_checkpoint(const Engine *e);
/* What EngineConfig.pretrained found: "pam-moa from the shipped checkpoint ..." or why
 * none was used; "" when it was not asked for. */
const char *Engine_modelNote(const Engine *e);
/* The bound each task of net gets from --max-error E: E itself, or with --error-split
 * network E / sqrt(the sum of the tasks' weights), the tasks' errors taken as
 * independent and adding in quadrature through the network, every occurrence of a
 * task counted; NAN without a bound. */
double Engine_taskBound(double maxError, bool overNetwork, const Network *net);
/* Measurements in a precision after which a verify model whose checkpoint never saw it
 * (Checkpoint_precisions) ranks its states, having trained on them. */
#define ENGINE_PRECISION_LEARNED 10
/* Whether task t's next round verifies by PSA instead of the verify model: it offers a
 * precision the model's checkpoint never learned (a checkpoint that learns: xgb, mlp,
 * pam, pam-moa) and the run has measured fewer than ENGINE_PRECISION_LEARNED states in
 * it. */
bool Engine_verifiesByPsa(const Engine *e, int t);
/* The precisions task t's search draws states in (PRECISION_BITs; FP32 always). */
unsigned Engine_taskPrecisions(const Engine *e, int t);
/* One line on what --precision and --max-error left each task, e.g. "precision auto,
 * max error 0.01: fp16 on 50 tasks, bf16 on 3, tf32 on 53 (of 53); 7 have no matrix
 * multiply"; "" for FP32 alone. */
const char *Engine_precisionNote(const Engine *e);
/* The session's header, whether or not a file is written (a resumed session's own). */
const SessionHeader *Engine_header(const Engine *e);
/* The session file written, or NULL. */
const char *Engine_sessionPath(const Engine *e);
/* Seconds since Engine_new (wall clock). */
double Engine_elapsed(const Engine *e);
/* Rounds run so far. */
int Engine_rounds(const Engine *e);

/* Which measurements carry counters (EngineConfig.counters resolved: EVERY or BEST), or
 * AUTO when the measurer cannot give them (Measurer_countersNote says why). */
EngineCounters Engine_counters(const Engine *e);

/* The last round: its task (-1 before the first), the picks it measured, how many
 * succeeded, and its acceptance and Kendall tau (NAN when undefined). */
typedef struct EngineRoundInfo_ {
   int round, task;
   int measured, ok;
   double acceptance, tau;
   bool improved;               /* the task's best got better */
} EngineRoundInfo;
void Engine_lastRound(const Engine *e, EngineRoundInfo *out);

#endif
