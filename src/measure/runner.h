/* The tuner's side of a runner process (protocol.h): starts it, hands it the task,
 * sends it programs one at a time and waits for each result under a deadline. A
 * runner that crashes, hangs, exits or talks nonsense is killed and reaped, the
 * program it was measuring gets the matching error, and the next program goes to a
 * fresh runner that is given the task again. No runner outlives its Runner, and no
 * descriptor leaks into runners or stays behind. */
#ifndef HEADER_runner
#define HEADER_runner

#include <stdbool.h>
#include <sys/types.h>

#include "measure/protocol.h"

typedef struct RunnerConfig_ {
   /* The runner executable, run as `PROGRAM __runner 3 ORDINAL` with the socket on
    * descriptor 3. NULL: $PRUNER_TUI_RUNNER when set, else this program itself. */
   const char *program;
   int ordinal;                 /* CUDA device number */
   double startTimeout;         /* seconds to wait for READY (driver start-up) */
   double taskTimeout;          /* seconds for uploading a task and its reference */
   double runTimeout;           /* seconds for one program's check and timing */
   ProtoTiming timing;
   bool quiet;                  /* the runner's stderr goes to /dev/null (the screen is ours) */
} RunnerConfig;

/* Defaults, tuned for tuning rather than benchmarking: 1 warm-up launch, 3 repeats of
 * at least 10 ms each, tolerance 1e-3, 30 s to start, 60 s per task, 10 s per program
 * (Ansor's run timeout). */
void RunnerConfig_default(RunnerConfig *c);

typedef struct Runner_ Runner;

Runner *Runner_new(const RunnerConfig *cfg);
/* Starts the runner and waits for its device. -1 with *cause: no driver, no such
 * device, the program cannot be run, or it died or hung while starting. */
int Runner_start(Runner *r, char **cause);
/* What the runner's driver said about the GPU (after a successful start). */
const ProtoDevice *Runner_device(const Runner *r);
/* Gives the runner the task (kept, to give it again to a restarted runner). The
 * runner uploads the inputs, runs the reference program once and compares it with the
 * CPU reference: -1 with *cause when it disagrees or anything fails. */
int Runner_setTask(Runner *r, const ProtoTask *task, char **cause);
/* Checks and times one program. Never fails: every outcome, the runner's death
 * included, is a result with its error kind and message. */
void Runner_measure(Runner *r, const ProtoProgram *p, ProtoResult *res);
/* Whether the programs that follow are profiled for their counters (timing.counters;
 * a restarted runner keeps it). */
void Runner_setCounters(Runner *r, bool on);
/* The running runner's process ID, or 0 when none runs. */
pid_t Runner_pid(const Runner *r);
/* How many runners were started in all. */
int Runner_starts(const Runner *r);
/* Asks the runner to quit, kills it when it does not within a second, and reaps it. */
void Runner_free(Runner *r);

#endif
