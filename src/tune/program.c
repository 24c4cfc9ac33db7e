/* A network's tasks as the kernels of their tuned states, run on the CPU executor. */
#include "config.h"

#include "tune/program.h"

#include <stdlib.h>
#include <string.h>

#include "ir/exec.h"
#include "ir/lower.h"
#include "measure/measure.h"
#include "sched/sketch.h"
#include "sched/state.h"
#include "tune/export.h"
#include "tune/session.h"
#include "util/xalloc.h"

static void defaultTask(TunedTask *t, const OpParams *op) {
   SketchSet set;
   SketchSet_forOpWith(&set, op, &Sketch_readAny);
   LoopNest_init(&t->ln);
   Lower_reference(&set, &t->ln);
   SketchSet_done(&set);
   t->event = -1;
   t->latency = 0;
}

void TunedProgram_default(TunedProgram *p, const Network *net) {
   memset(p, 0, sizeof *p);
   p->ntasks = net->ntasks;
   p->tasks = xCalloc((size_t)(net->ntasks ? net->ntasks : 1), sizeof *p->tasks);
   for (int i = 0; i < net->ntasks; i++)
      defaultTask(&p->tasks[i], &net->tasks[i].op);
}

int TunedProgram_fromSession(TunedProgram *p, const Network *net, const char *path, const DeviceSet *devices,
                             char **cause) {
   memset(p, 0, sizeof *p);
   SessionLog log;
   SessionLog_init(&log);
   char *notice = NULL;
   if (Session_read(path, &log, &notice, cause) < 0) {
      free(notice);
      SessionLog_done(&log);
      return -1;
   }
   free(notice);
   const SessionHeader *h = &log.events[0].header;
   int rc = 0;
   if (h->ntasks != net->ntasks)
      rc = setCause(cause, "%s: the session has %d tasks, %s has %d", path, h->ntasks, net->path, net->ntasks);
   /* the network's task i is the session's task of the same key (a model's import and
    * the task file it was written from may list them in another order) */
   int *sessionTask = xMalloc(sizeof(int) * (size_t)(net->ntasks ? net->ntasks : 1));
   for (int i = 0; rc == 0 && i < net->ntasks; i++) {
      sessionTask[i] = -1;
      for (int j = 0; j < h->ntasks && sessionTask[i] < 0; j++)
         if (strcmp(h->tasks[j], net->tasks[i].key) == 0)
            sessionTask[i] = j;
      if (sessionTask[i] < 0)
         rc = setCause(cause, "%s: task %d of %s, %s, is not among the session's tasks", path, i, net->path,
                       net->tasks[i].key);
   }
   int *best = NULL;
   if (rc == 0) {
      best = xMalloc(sizeof(int) * (size_t)(h->ntasks ? h->ntasks : 1));
      rc = Export_bestMeasures(&log, path, best, cause);
   }
   if (rc == 0) {
      SchedLimits lim;
      const Device *dev = devices ? DeviceSet_find(devices, h->device) : NULL;
      if (dev)
         SchedLimits_fromDevice(&lim, dev);
      else
         SchedLimits_default(&lim);
      p->ntasks = net->ntasks;
      p->tasks = xCalloc((size_t)(net->ntasks ? net->ntasks : 1), sizeof *p->tasks);
      p->device = xStrdup(h->device);
      p->simulated = h->simulated;
      for (int i = 0; i < net->ntasks; i++) {
         TunedTask *t = &p->tasks[i];
         int b = best[sessionTask[i]];
         if (b < 0 || rc < 0) {
            defaultTask(t, &net->tasks[i].op);
            continue;
         }
         const SessionEvent *e = &log.events[b];
         SketchSet set;
         SketchSet_forOpWith(&set, &net->tasks[i].op, &Sketch_readAny);
         State state;
         char *why = NULL;
         LoopNest_init(&t->ln);
         if (State_parse(&set, e->measure.state, &lim, &state, &why) < 0) {
            rc = setCause(cause, "%s:%d: task %d: %s", path, e->line, i, why);
            free(why);
         } else {
            Lower_state(&set, &state, &t->ln);
            t->event = b;
            t->latency = Measure_median(e->measure.costs, e->measure.ncosts);
            p->tuned++;
         }
         SketchSet_done(&set);
      }
      if (rc < 0)
         TunedProgram_done(p);
   }
   free(best);
   free(sessionTask);
   SessionLog_done(&log);
   return rc;
}

int TunedProgram_compile(TunedProgram *p, char **cause) {
   NativeLib_free(p->native);
   p->native = NULL;
   p->compiled = 0;
   const LoopNest **lns = xMalloc(sizeof *lns * (size_t)(p->ntasks ? p->ntasks : 1));
   for (int i = 0; i < p->ntasks; i++)
      lns[i] = &p->tasks[i].ln;
   p->native = NativeLib_build(lns, p->ntasks, cause);
   free(lns);
   if (!p->native)
      return -1;
   for (int i = 0; i < p->ntasks; i++)
      p->compiled += NativeLib_kernel(p->native, i, 0) != NULL;
   return 0;
}

void TunedProgram_done(TunedProgram *p) {
   NativeLib_free(p->native);
   for (int i = 0; i < p->ntasks; i++)
      LoopNest_done(&p->tasks[i].ln);
   free(p->tasks);
   free(p->device);
   memset(p, 0, sizeof *p);
}

int TunedProgram_runKernel(const TunedProgram *p, int task, int k, float *const *globals, char **cause) {
   NativeKernel f = NativeLib_kernel(p->native, task, k);
   if (f && f(globals) == 0)
      return 0;
   /* the interpreter: where nothing was compiled, and for the message of a fault */
   Exec *x = Exec_new(&p->tasks[task].ln);
   int rc = Exec_run(x, k, globals, NULL, 0, NULL, cause);
   Exec_free(x);
   return rc;
}

int TunedProgram_runTask(void *ctx, int unit, const Task *task, float *const *inputs, float *out,
                         char **cause) {
   const TunedProgram *p = ctx;
   if (task->id < 0 || task->id >= p->ntasks)
      return setCause(cause, "kernel %d: task %d is not one of the program's %d", unit, task->id, p->ntasks);
   const LoopNest *ln = &p->tasks[task->id].ln;
   int outBuf = -1;
   for (int b = 0; b < ln->nbuffers; b++)
      if (ln->buffers[b].scope == SCOPE_GLOBAL && ln->buffers[b].output)
         outBuf = b;
   if (outBuf < 0 || ln->buffers[outBuf].elems != Op_outputElems(&task->op))
      return setCause(cause, "kernel %d (task %d): its loop nest has no output of the task's size", unit, task->id);
   float *globals[IR_MAX_BUFFERS];
   Exec_bindGlobals(ln, inputs, globals);
   int rc = 0;
   char *why = NULL;
   for (int k = 0; k < ln->nkernels && rc == 0; k++)
      rc = TunedProgram_runKernel(p, task->id, k, globals, &why);
   if (rc == 0)
      memcpy(out, globals[outBuf], sizeof(float) * (size_t)ln->buffers[outBuf].elems);
   else
      setCause(cause, "kernel %d (task %d): %s", unit, task->id, why);
   free(why);
   Exec_releaseGlobals(ln, globals);
   return rc;
}
