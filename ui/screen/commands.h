/* The console's commands: one table (name, arguments, help, what each argument
 * completes to, handler), tmux style. `help`, the completion and the man page's list
 * come from it. A command acts on a board: the engine's commands go to the board's
 * engine through its actions, the queries read the board's view, long answers open the
 * pager. A bad command or argument changes nothing and answers one line. */
#ifndef HEADER_commands
#define HEADER_commands

#include "board.h"

typedef enum {
   ARG_NONE,
   ARG_TASK,                    /* a task ID */
   ARG_TASK_OR_OFF,             /* a task ID or off */
   ARG_MODEL,                   /* a cost model's kind */
   ARG_SHOW,                    /* --cuda, --loops, --state */
   ARG_EXPORT,                  /* records, curve, kernels */
   ARG_FILE,                    /* a path */
   ARG_COMMAND,                 /* a command's name */
   ARG_NUMBER
} ArgKind;

typedef struct ConsoleCommand_ {
   const char *name;
   const char *args;            /* the usage after the name, e.g. "TASK N" */
   const char *help;            /* one line */
   int minArgs, maxArgs;
   ArgKind arg[2];              /* what the first two arguments complete to */
   bool engine;                 /* needs a running engine */
   /* 0 with *answer (the one line, or NULL) when it ran; -1 with *answer when it was
    * refused */
   int (*run)(Board *b, int argc, char **argv, char **answer);
} ConsoleCommand;

extern const ConsoleCommand Commands_table[];
extern const int Commands_count;

/* Runs one console line. Its one-line answer (malloc'd, caller frees; NULL when there
 * is none) goes to *answer. 0 when the command ran, -1 when it was refused. */
int Commands_run(Board *b, const char *line, char **answer);

/* Completion for the console (ConsoleCompleteFn's contract): command names, task IDs,
 * model kinds, show's flags, export's kinds, command names after help. */
char **Commands_complete(const Board *b, const char *word, int index, char *const *words);

/* The console line a key of the workbench stands for: space pauses or resumes the
 * tuning; Enter shows the selected task's details; +, -, f and m change the selected task's priority, its focus and the verify
 * model. Each acts on the values the commands sent before it will give
 * (Board_pending), so that keys pressed within a round add up. false for any other
 * key. */
bool Commands_forKey(const Board *b, int key, char *line, size_t size);

/* The help text: every command with its arguments and help, then the keys. */
char *Commands_help(void);

/* The text of a task's details: its summary and history, the best state, its loop
 * nest, CUDA source and PSA terms (what is asked: "all", "cuda", "loops", "state",
 * "explain"). NULL with *cause when the task has no measured state or its state does
 * not parse. */
char *Commands_details(const Board *b, int task, const char *what, char **cause);

/* The network's front of a view as an ASCII chart for the pager (front.h): the
 * estimated total latency in ms (up, linear) against the error bound (across, log),
 * one point 'o' per bound where the total falls, joined as steps (a total holds from
 * its bound to the next); labelled axes. NULL when fewer than two bounds above zero
 * make the front (a run in one precision has nothing to chart). */
char *Commands_frontChart(const TuneView *v);

#endif
