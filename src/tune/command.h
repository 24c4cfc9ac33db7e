/* The engine's commands as text (`prio 3 2`, `focus off`, ...): one parser for the
 * engine that applies them, the resumed session that applies them again and the view
 * that folds them into what a screen shows. */
#ifndef HEADER_command
#define HEADER_command

typedef enum {
   COMMAND_PAUSE_ALL,           /* pause: no round runs until resume */
   COMMAND_RESUME_ALL,          /* resume */
   COMMAND_PRIORITY,            /* pause TASK (0), resume TASK (1), prio TASK M */
   COMMAND_FOCUS,               /* focus TASK */
   COMMAND_FOCUS_OFF,           /* focus off */
   COMMAND_BUDGET,              /* budget N */
   COMMAND_MODEL,               /* model KIND [CHECKPOINT] */
   COMMAND_STOP                 /* stop */
} CommandKind;

typedef struct Command_ {
   CommandKind kind;
   int task;                    /* PRIORITY, FOCUS */
   double value;                /* PRIORITY: the multiplier; BUDGET: the trials */
   char model[64];              /* MODEL: the kind's name, as given */
   char checkpoint[512];        /* MODEL: a checkpoint to start from; "" for none */
} Command;

/* Parses `text` for a network of ntasks tasks. Checks the form, the task IDs and that
 * numbers are numbers; what the scheduler or the model registry refuse (a negative
 * multiplier, an unknown model) is theirs to say. -1 with *cause, e.g. "prio takes a
 * task ID from 0 to 26 and a multiplier", "unknown command 'x' (pause, resume, ...)". */
int Command_parse(const char *text, int ntasks, Command *out, char **cause);

#endif
