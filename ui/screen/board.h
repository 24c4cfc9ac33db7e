/* The workbench's state: the view model folded from a run's events (live or replayed)
 * and what the screen adds to it (the selected task, the sort and its direction, the
 * filter, the search, following the round's task, the log, the console's last
 * answer). The panels draw a board (panels.h) and the console's commands act on
 * one (commands.h); neither knows whether an engine or a session file feeds it, and
 * neither needs a terminal, so both are tested on a board built from events. */
#ifndef HEADER_board
#define HEADER_board

#include <stdbool.h>

#include "device/device.h"
#include "measure/gpustate.h"
#include "te/network.h"
#include "tune/session.h"
#include "tune/view.h"
#include "util/xalloc.h"

#include "layout.h"

/* The table's sorts, each with the direction it starts in; a task without the value
 * (no best yet, no roofline) comes last either way, and ties go by ID. */
typedef enum {
   SORT_ID,                     /* the task file's order, ascending */
   SORT_SHARE,                  /* weight x best latency, descending */
   SORT_LATENCY,                /* best latency, descending */
   SORT_TRIALS,                 /* trials, descending */
   SORT_ROOFLINE,               /* share of the roofline, ascending */
   SORT_COUNT
} SortKey;

const char *SortKey_name(SortKey k);
/* The direction k starts in: true for descending. */
bool SortKey_descending(SortKey k);

typedef enum {
   CURVE_TRIALS,                /* estimated total latency against trials */
   CURVE_TIME,                  /* ... against time */
   CURVE_TASK,                  /* the selected task's best against its trials */
   CURVE_COUNT
} CurveKind;

/* What the board's owner does for the commands: an engine to send commands to (NULL
 * when replaying), a pager for long answers, the way out, and a replay's seeks (NULL
 * on a live run). */
typedef struct BoardActions_ {
   void *ctx;
   void (*send)(void *ctx, const char *command);       /* NULL: no engine */
   void (*page)(void *ctx, const char *title, char *text); /* takes the text */
   void (*quit)(void *ctx);
   void (*seekRound)(void *ctx, int round);   /* the end of the round, paused there */
   void (*seekTime)(void *ctx, double seconds); /* the replay's time, paused there */
} BoardActions;

/* the longest search or filter text, with its '\0' */
#define BOARD_TEXT_MAX 64

/* The search or the filter being typed on the console row. */
typedef enum {
   PROMPT_NONE,
   PROMPT_SEARCH,               /* the selection goes to the first task that contains the text */
   PROMPT_FILTER,               /* the table shows only the tasks that contain the text */
} PromptKind;

typedef struct BoardPrompt_ {
   PromptKind kind;
   char text[BOARD_TEXT_MAX];
   int selected;                /* the selection when it opened: Esc goes back to it */
   char filter[BOARD_TEXT_MAX]; /* the filter when it opened: Esc puts it back */
} BoardPrompt;

typedef struct Board_ {
   TuneView view;
   const Network *net;          /* the session's task file's tasks, or NULL */
   const DeviceSet *devices;    /* devices.yaml's GPUs (the caller's) */
   const Device *device;        /* the session's device, or NULL when unknown */
   double *floor;               /* per task, the roofline floor of one occurrence in
                                   seconds (FLOPs over peak, bytes over bandwidth);
                                   NAN when the device or the task is not known */
   const char *sessionPath;     /* the session file, or NULL (--no-session) */
   bool replay;                 /* fed from a file: no engine to command */
   double clock;                /* seconds shown as elapsed (live: the wall clock) */
   bool pausedAll;              /* the whole engine is paused */
   double pausedSince;          /* the run's time it paused at */
   double pausedSeconds;        /* the run's time spent paused before that */
   char **pending;              /* the commands sent to the engine whose events have
                                   not come yet, oldest first */
   int npending;
   bool stopping;               /* quit was asked; the engine ends its round */
   double replaySpeed;          /* replay: 0 jumps, else times as recorded */
   bool replayPaused;
   bool replayDone;             /* every event of the file was shown */
   int replayRounds;            /* the rounds in the file (0: not a replay) */
   GpuSample gpu;               /* the GPU's state, sampled by the screen's loop at most
                                   once a second; no values on the simulator, in a
                                   replay and without NVML */

   /* the table */
   int selected;                /* a task ID; one of the rows while there are rows */
   int top;                     /* the first row shown */
   SortKey sort;
   bool descending;             /* the sort's direction */
   int *order;                  /* the rows: the IDs of the tasks the filter lets
                                   through, in the sort's order */
   int nrows;
   char filter[BOARD_TEXT_MAX]; /* the rows are the tasks that contain it; "" all */
   char search[BOARD_TEXT_MAX]; /* the last search's text */
   bool follow;                 /* the selection goes to each round's task */
   unsigned hidden;             /* the table's columns hidden in the setup screen: a bit per Column */
   BoardPrompt prompt;
   CurveKind curve;             /* the first of the curves shown */
   bool logScale;               /* the curves' y axes on a log scale */

   /* the log: the engine's messages and the console's answers, oldest first, every
    * one of the run (the log panel shows the newest, l the whole) */
   char **log;
   int nlog, logCap;
   char message[256];           /* the console's last one-line answer, until a key */
   struct {                     /* the failed measurements of the round going on */
      int round, failed, measured;
      char first[160];          /* the first one's error */
   } errors;

   double uiCpuSeconds;         /* the screen thread's CPU time so far */
   bool unicode;                /* braille and blocks; else ASCII */
   bool color;
   BoardActions actions;
} Board;

/* A board for the run the header starts. net (NULL when the task file was not found:
 * the table shows keys and no FLOPs) and devices are the caller's and must outlive the
 * board; the device the header names gives the peak for the roofline column. */
void Board_init(Board *b, const SessionHeader *h, const Network *net, const DeviceSet *devices);
void Board_done(Board *b);

/* Folds an event in, logs what the log panel shows of it (commands, refusals, model
 * failures, errors of a round, improvements, the end), keeps the rows sorted and
 * filtered and, when following, selects a new round's task. */
void Board_apply(Board *b, const SessionEvent *e);

/* A command sent to the engine: pending until its command event comes. */
void Board_sent(Board *b, const char *command);

/* The values the keys change as they will be once the pending commands are applied:
 * the view's, with each pending command folded in, in its order. */
typedef struct BoardPending_ {
   double priority;             /* the task's */
   bool focused;                /* the task's */
   bool pausedAll;
   char costModel[64];
} BoardPending;
void Board_pending(const Board *b, int task, BoardPending *out);

/* The fleet's lines (a fleet of 2 or more; else none), as the last round end told them:
 * a line per device, "sim:h100_sxm#2  measured 31  busy 74%  failed 0", and under a
 * retired one "  retired: WHY". */
int Board_fleetLines(const Board *b);
void Board_fleetLine(const Board *b, int line, char *buf, size_t size);

/* Appends a line to the log (printf style; a line per '\n'). */
void Board_log(Board *b, const char *fmt, ...) ATTR_FORMAT(2, 3);
/* The i-th line of the log, 0 the first. */
const char *Board_logLine(const Board *b, int i);
/* The whole log, a line per '\n' (caller frees). */
char *Board_logText(const Board *b);
/* Forgets every line of the log (a replay going back folds its events again). */
void Board_logClear(Board *b);

/* Sorts the table by k in the direction k starts in (SortKey_descending), or by its
 * sort in the direction given; either way the first row is selected and shown at the
 * top. The events keep the order sorted without moving the selection. */
void Board_sort(Board *b, SortKey k);
void Board_sortDirection(Board *b, bool descending);
/* The rows become the tasks that contain text (Board_matches; "" all of them), in the
 * sort's order. A selection the filter hides goes to the first row. */
void Board_filter(Board *b, const char *text);
/* Whether task t's key (its op and shapes), its name in the task file or its state
 * (Board_taskState) contains text, ignoring case; "" is in every task. */
bool Board_matches(const Board *b, int task, const char *text);
/* The first row from row `from` on (wrapping around past the last) whose task
 * contains text, or -1 when none does. */
int Board_find(const Board *b, const char *text, int from);
/* Moves the selection by delta rows (clamped) and scrolls so that it shows in `rows`
 * rows. */
void Board_move(Board *b, int delta, int rows);
/* Scrolls the view by delta rows (clamped) in `rows` rows; a selection scrolled out
 * of sight goes to the nearest row that shows. */
void Board_scroll(Board *b, int delta, int rows);
/* The row of task t, or -1 when the filter hides it. */
int Board_rowOf(const Board *b, int task);
/* Follows the task being tuned, or stops: while on, each round selects its task
 * (when the filter shows it); turning it on selects the last round's. */
void Board_follow(Board *b, bool on);

/* What the layout fits: every task of the run, the longest description. */
LayoutContent Board_content(const Board *b);
/* The sum of weight x best over the tasks (seconds), or NAN before every task has a
 * best: the total a task's share (its own weight x best) is taken of. */
double Board_weightedTotal(const Board *b);
/* The task's rounds since its best last improved, or -1 before a best. */
int Board_idleRounds(const Board *b, int task);

/* The share of the roofline a task's best reaches (floor over best, 0 to 1), or NAN. */
double Board_roofline(const Board *b, int task);
/* "paused" (priority 0, or the round's task while the whole run is paused),
 * "excluded" (outside the focus), "tuning" (this round's), "focused", "waiting" (no
 * round yet) or "ready". */
const char *Board_taskState(const Board *b, int task);
/* The header's run state: "running", "paused", "stopping", "finished: budget",
 * "replay x4", "replay paused", "replay ended", ... */
void Board_runState(const Board *b, char *buf, size_t size);
/* Seconds left at the rate so far (trials per second of the run's time not spent
 * paused), NAN before it is known. */
double Board_eta(const Board *b);
/* h:mm:ss, or "-" for NAN */
void Board_duration(double seconds, char *buf, size_t size);

#endif
