/* The tuned network as one program: for each task of a network, the kernels of the
 * state a session chose for it (its best measure), or of the default schedule (the
 * reference program, a kernel per stage) where the session measured none; and the
 * runner that executes them, kernel by kernel, on the CPU executor, so that the tuned
 * schedules themselves compute the network end to end (graph/netrun.h). */
#ifndef HEADER_tune_program
#define HEADER_tune_program

#include "device/device.h"
#include "graph/netrun.h"
#include "ir/loopnest.h"
#include "ir/native.h"
#include "te/network.h"

typedef struct TunedTask_ {
   LoopNest ln;
   int event;                   /* the session's measure event, -1 for the default schedule */
   double latency;              /* its measured (or simulated) latency, s; 0 untuned */
} TunedTask;

typedef struct TunedProgram_ {
   int ntasks;
   TunedTask *tasks;
   int tuned;                   /* tasks with a state from the session */
   char *device;                /* the session's device, or NULL */
   bool simulated;
   NativeLib *native;           /* the tasks' kernels compiled (TunedProgram_compile), or NULL */
   int compiled;                /* tasks whose kernels are compiled */
} TunedProgram;

/* Every task on the default schedule. */
void TunedProgram_default(TunedProgram *p, const Network *net);
/* The best states of the session file at path for net's tasks, which must be the
 * session's (the same keys in the same order); the states are checked under the
 * session's device's limits (devices, NULL for the defaults). */
int TunedProgram_fromSession(TunedProgram *p, const Network *net, const char *path, const DeviceSet *devices,
                             char **cause);
void TunedProgram_done(TunedProgram *p);
/* Compiles the tasks' kernels to native code (ir/native.h), so that runTask runs them
 * compiled; a task the printer does not take stays on the interpreter. -1 with *cause
 * when the C compiler cannot be used (runTask then interprets every task). */
int TunedProgram_compile(TunedProgram *p, char **cause);

/* Kernel k of task's nest over every block, its global buffers at globals: compiled
 * where TunedProgram_compile made it, else on the interpreter; a compiled kernel that
 * reaches outside a buffer is run again on the interpreter, whose message names the
 * access. 0, or -1 with *cause. */
int TunedProgram_runKernel(const TunedProgram *p, int task, int k, float *const *globals, char **cause);

/* A NetTaskRunner (ctx: the TunedProgram): each of the task's kernels in turn
 * (TunedProgram_runKernel), over every block. */
int TunedProgram_runTask(void *ctx, int unit, const Task *task, float *const *inputs, float *out,
                         char **cause);

#endif
