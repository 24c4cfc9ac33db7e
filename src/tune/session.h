/* The session file: the tuning log as JSON lines, a header line and then one line per
 * engine event, written a round at a time and read back whole for --resume, --replay
 * and the exports (DESIGN.md §3.7). Live and replay are the same stream of events.
 *
 * Every line is an object whose "event" key names its kind. The header's keys:
 *   "event":"header", "v" (SESSION_FORMAT_VERSION), "network", "network_file",
 *   "network_inputs" (an ONNX model's --input dimensions; left out when none),
 *   "device", "simulated", "policy", "cost_model", "trials", "per_round", "seed",
 *   "start" (Unix seconds), "fleet" (the measuring devices in --device's words, e.g.
 *   "sim:h100_sxm*4"; left out when unknown, read as "" when absent), "fleet_size"
 *   (how many devices; left out when unknown, read as 0 when absent), "tasks" (array
 *   of task keys)
 * Every other line has "event", "round" and "t" (seconds since the start), then:
 *   round      "task", "trials"                         (a round starts)
 *   measure    "task", "state", "costs", "error", "message" (left out when empty),
 *              "lineage", "draft", "verify", "build_s", "run_s", "throttled" (reason names,
 *              left out when the GPU did not slow down or there is no GPU state)
 *   model      "seconds", "samples", "error" (left out when the fit succeeded)
 *   best       "task", "latency" (seconds), "counters" (the best state's, as a record
 *              keeps them, counters.h; left out when there are none, read as none
 *              when absent)
 *   command    "text", "applied"
 *   search     "task", "drafted", "sampled", "drafts", "population", "kept", "picks",
 *              "from_drafts", "random", "seconds", "best_rank"
 *                                                       (the search of a round is done)
 *   round_end  "trials", "latency_ms", "acceptance", "tau", "draft_rank", "verify_rank",
 *              "devices" (for a fleet of 2 or more only: an array with one object per
 *              device, {"name", "n" (measurements since the session started: a resumed run
 *              goes on from the last round end's), "busy_s" (wall clock spent
 *              measuring), "failed", "retired", "why" (left out unless retired)};
 *              read as none when absent)
 *   finished   "why" ("budget", "stopped", "all dead")
 *   resumed    "trials", "notice" (left out when empty)  (--resume went on from here)
 * Optional numbers (scores, latency_ms, acceptance, tau, the ranks) are NAN in the struct and
 * null in the file. Numbers are written so that they read back to the same double.
 * Keys this program does not know are ignored; a known key given twice is an error.
 * Only "start", "t" and the model's and the search's "seconds" come from the wall clock: two runs with
 * the same seed differ in nothing else, but for the fleet they ran on. */
#ifndef HEADER_session
#define HEADER_session

#include <stdbool.h>
#include <stdint.h>

#include "measure/counters.h"

#define SESSION_FORMAT_VERSION 1
#define SESSION_MAX_COSTS 32
#define SESSION_MAX_DEVICES 16

typedef enum {
   SESSION_HEADER,
   SESSION_ROUND,
   SESSION_MEASURE,
   SESSION_MODEL,
   SESSION_BEST,
   SESSION_COMMAND,
   SESSION_ROUND_END,
   SESSION_FINISHED,
   SESSION_SEARCH,
   SESSION_RESUMED,
   SESSION_EVENT_COUNT
} SessionEventKind;

typedef enum {
   SESSION_END_BUDGET,          /* the trial budget is spent */
   SESSION_END_STOPPED,         /* the user stopped it */
   SESSION_END_ALL_DEAD,        /* every task is dead or paused */
   SESSION_END_COUNT
} SessionEnd;

/* "header", "round", "measure", "model", "best", "command", "round_end", "finished",
 * "search", "resumed" */
const char *SessionEventKind_name(SessionEventKind k);
/* "budget", "stopped", "all dead" */
const char *SessionEnd_name(SessionEnd e);

typedef struct SessionHeader_ {
   int version;                 /* of the file read; always written as SESSION_FORMAT_VERSION */
   char *network;               /* e.g. "resnet_50" */
   char *networkFile;           /* the .task file (or ONNX model) it came from */
   char *networkInputs;         /* an ONNX model's --input dimensions ("x=1x3x224x224;..."),
                                   "" when none were given */
   char *device;                /* devices.yaml profile name */
   bool simulated;
   char *policy;                /* "pruner", "ansor" */
   char *costModel;             /* "pam", "mlp", ... */
   char *checkpoint;            /* the checkpoint the model started from (--load-model); ""
                                   when it started fresh */
   int trialBudget;
   int measuresPerRound;
   int64_t seed;                /* 0 to 2^53 - 1, so that a JSON number holds it exactly */
   int64_t startTime;           /* Unix seconds; wall clock */
   char *fleet;                 /* "sim:h100_sxm*4", "cuda:0,2"; "" in older files */
   int fleetSize;               /* devices in the fleet; 0 (unknown) in older files */
   /* what --precision asked for ("auto", "fp16,tf32"); "" for FP32 alone (and in older
    * files) */
   char *precision;
   double maxError;             /* --max-error; NAN (or 0) without a bound */
   char *errorSplit;            /* --error-split: "network", or "" (per task) */
   int ntasks;
   char **tasks;                /* the task keys (Task.key); events name tasks by index */
} SessionHeader;

/* One device of the fleet at a round's end (round_end's "devices"). */
typedef struct SessionDevice_ {
   char *name;                  /* "sim:h100_sxm#2", "cuda:1" */
   int measured;                /* measurements since the session started */
   double busySeconds;          /* wall clock spent measuring */
   int failed;
   bool retired;
   char *why;                   /* why it was retired; "" when it is not */
} SessionDevice;

typedef struct SessionEvent_ {
   SessionEventKind kind;
   int round;                   /* 0 for the header */
   double elapsed;              /* seconds since the start; wall clock; 0 for the header */
   int line;                    /* the file's line it was read from (Session_read); else 0 */
   union {
      SessionHeader header;
      struct {
         int task, trials;      /* the task the round tunes; trials before it */
      } roundStart;
      struct {
         int task;
         char *state;           /* State_format's text */
         int ncosts;            /* 1 to SESSION_MAX_COSTS */
         double costs[SESSION_MAX_COSTS];
         char *error;           /* MeasureError_name */
         char *message;         /* "" when there is none */
         char *lineage;         /* Lineage_name */
         double draftScore, verifyScore; /* NAN when not scored */
         double buildSeconds;   /* wall clock: NVRTC's, 0 from the build cache (and in
                                   files before the key) */
         double runSeconds;     /* wall clock: the runner's or the simulator's */
         unsigned throttled;    /* GPU_THROTTLE_* reasons that slowed the GPU; 0: none */
         /* the state's precision's expected error (Precision_predictError over the
          * task's output) and the error its output showed when it was compared
          * (MeasureOutcome.outputError); NAN when not known (a run with FP32 alone
          * records neither) */
         double predictedError, outputError;
      } measure;
      struct {
         double seconds;        /* wall clock */
         int samples;
         char *error;           /* "" when the fit succeeded */
      } model;
      struct {
         int task;
         double latency;        /* seconds */
         Counters counters;     /* of the best state; not present in files before the
                                   key, and when none could be had */
      } best;
      struct {
         char *text;            /* as typed, e.g. "prio 5 0" */
         bool applied;
         char *why;             /* why it was refused; "" when applied */
      } command;
      struct {
         int task;
         bool drafted;          /* the draft search ran (else cached drafts were used) */
         int sampled;           /* valid random states sampled */
         int drafts;            /* drafts in the verify search's population */
         int population;        /* the verify search's initial population */
         int kept;              /* the verify search's output (2M for pruner) */
         int picks;             /* chosen to be measured */
         int fromDrafts;        /* picks whose lineage goes back to a draft */
         int random;            /* picks drawn at random (eps-greedy) */
         double seconds;        /* wall clock: the search's time; 0 when the file
                                   predates the key */
         double bestRank;       /* on a draft round, where PSA ranks the task's best
                                   measured state among the new drafts (1 = above all;
                                   drafts + 1 = below all); NAN otherwise */
      } search;
      struct {
         int trials;
         double latencyMs;      /* estimated total latency; NAN when not yet known */
         double acceptance;     /* share of the picks that came from drafts; NAN when none */
         double tau;            /* Kendall tau, draft against verify; NAN when unknown */
         /* after measuring: the pairwise accuracy of the draft (PSA) and verify scores
          * against the measured latencies of the round's successful picks; NAN with
          * fewer than two or no distinct pair */
         double draftRank, verifyRank;
         int ndevices;          /* 0, or 2 to SESSION_MAX_DEVICES */
         SessionDevice *devices;
      } roundEnd;
      struct {
         int trials;            /* the trials the resumed session had done */
         char *notice;          /* what reading the file said ("" when nothing) */
      } resumed;
      struct {
         SessionEnd why;
      } finished;
   };
} SessionEvent;

/* Frees the event's strings and zeroes it; safe twice. */
void SessionEvent_done(SessionEvent *e);
/* A deep copy: dst owns its own strings. */
void SessionEvent_copy(SessionEvent *dst, const SessionEvent *src);
/* One line, without the newline; caller frees. With withClock false the wall-clock
 * keys ("start", "t", the model's "seconds") and the fleet's are left out: what two
 * runs with the same seed must agree on. NULL strings are written as "". */
char *SessionEvent_toJson(const SessionEvent *e, bool withClock);
/* Parses and checks one line; the cause is the reason only, without file or line.
 * On failure `out` is left zeroed. */
int SessionEvent_fromJson(const char *line, SessionEvent *out, char **cause);

/* Whether e is an applied `budget N` command; *trials = N when it is. */
bool SessionEvent_budget(const SessionEvent *e, int ntasks, int *trials);

typedef struct SessionLog_ {
   int count, cap;
   SessionEvent *events;        /* events[0] is the header; the log owns every string */
} SessionLog;

void SessionLog_init(SessionLog *log);
void SessionLog_done(SessionLog *log);

/* Reads the whole file into `out` (emptied first). The first line must be the header,
 * and no other line may be. The last line, when it has no newline and is not valid
 * JSON, is what a killed run leaves: it is skipped and *notice (caller frees; NULL when
 * there is nothing to say) is
 * "FILE:LINE: the last line is cut short (N bytes without a newline); it was skipped".
 * Any other bad line: -1 with *cause "FILE:LINE: REASON", and `out` emptied. A file
 * with no header: "FILE: no header line". Unreadable: "FILE: strerror". */
int Session_read(const char *path, SessionLog *out, char **notice, char **cause);

/* Whether the two logs hold the same events, wall-clock fields and resumed markers
 * aside (a resumed session and the uninterrupted run agree). */
bool Session_equalIgnoringTime(const SessionLog *a, const SessionLog *b);
/* The same, and where they part: the indices of the first events that differ (the
 * count of a log that ended first); both counts when they agree. */
bool Session_compare(const SessionLog *a, const SessionLog *b, int *ia, int *ib);

typedef struct SessionWriter_ SessionWriter;

/* A writer holds an advisory lock (flock) on its file until it is closed: a second
 * writer is refused with "FILE: another run is writing this session (process PID);
 * wait for it to end or stop it". Readers take no lock. */

/* Creates `path`, which must not exist, and writes and fsyncs the header. */
SessionWriter *SessionWriter_open(const char *path, const SessionHeader *header, char **cause);
/* Opens an existing session to go on with it (--resume). A cut last line is removed
 * first (or ended with a newline when it is a whole event). */
SessionWriter *SessionWriter_append(const char *path, char **cause);
/* Checks the event and queues its line; nothing is written before the flush. A header
 * is refused: only SessionWriter_open writes one. */
int SessionWriter_add(SessionWriter *w, const SessionEvent *e, char **cause);
/* Writes the queued lines and fsyncs the file: the end of a round. A failed write
 * cuts what it wrote in part off the file again and keeps the lines queued. */
int SessionWriter_flush(SessionWriter *w, char **cause);
/* Flushes and frees w, also when the flush fails. */
int SessionWriter_close(SessionWriter *w, char **cause);

#endif
