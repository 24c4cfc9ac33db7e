/* The runner process's side of the protocol, on the CUDA driver API. */
#include "config.h"

#include "measure/child.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/cudadrv.h"
#include "measure/cupti.h"
#include "measure/protocol.h"
#include "util/clock.h"
#include "util/xalloc.h"

#define NAN_BITS 0x7fc00000u    /* what output and scratch hold before a launch */
#define MAX_NUMBER (1 << 22)    /* launches per repeat at most */
#define MAX_ZERO_TIMES 100      /* repeats that measured 0 ms before giving up growing */

typedef struct {
   CudaDriver cu;
   CUdevice dev;
   CUcontext ctx;
   int ordinal;
   int fd;
   Cupti *cupti;                /* opened at the first program whose counters are asked for */
   char *cuptiWhy;              /* why it did not open; not tried again */
   /* the task */
   bool haveTask;
   int ninputs;
   int64_t inputElems[PROTO_MAX_BUFFERS];
   CUdeviceptr inputs[PROTO_MAX_BUFFERS];
   int64_t outElems;
   CUdeviceptr output;
   float *reference;            /* the reference program's output, host copy */
   float *got;                  /* room for a candidate's output */
   double rms;                  /* of the reference */
} Child;

/* A CUDA call's failure: its kind and message; `dead` when the context is lost. */
typedef struct {
   MeasureError error;
   char message[512];
   bool dead;
} Failure;

static bool failed(Child *c, CUresult rc, MeasureError kind, const char *what, Failure *f) {
   if (rc == CUDA_SUCCESS)
      return false;
   char desc[256];
   CudaDriver_describe(&c->cu, rc, desc, sizeof desc);
   f->error = kind;
   f->dead = CudaDriver_isSticky(rc);
   snprintf(f->message, sizeof f->message, "%s: %s", what, desc);
   return true;
}

static int sendFatal(int fd, const char *why) {
   WireBuf b;
   WireBuf_init(&b);
   Wire_putStr(&b, why);
   Wire_send(fd, MSG_FATAL, &b, NULL);
   WireBuf_done(&b);
   return 1;
}

static int64_t attr(Child *c, int which) {
   int v;
   return c->cu.cuDeviceGetAttribute(&v, which, c->dev) == CUDA_SUCCESS ? v : -1;
}

static void describeDevice(Child *c, int ordinal, ProtoDevice *d) {
   memset(d, 0, sizeof *d);
   d->ordinal = ordinal;
   if (c->cu.cuDeviceGetName(d->name, (int)sizeof d->name - 1, c->dev) != CUDA_SUCCESS)
      snprintf(d->name, sizeof d->name, "CUDA device %d", ordinal);
   if (c->cu.cuDeviceGetPCIBusId(d->pciBusId, (int)sizeof d->pciBusId - 1, c->dev) != CUDA_SUCCESS)
      d->pciBusId[0] = '\0';
   if (c->cu.cuDriverGetVersion(&d->driverVersion) != CUDA_SUCCESS)
      d->driverVersion = -1;
   d->ccMajor = (int)attr(c, CU_ATTR_CC_MAJOR);
   d->ccMinor = (int)attr(c, CU_ATTR_CC_MINOR);
   size_t mem;
   d->totalMem = c->cu.cuDeviceTotalMem(&mem, c->dev) == CUDA_SUCCESS ? (int64_t)mem : -1;
   d->smCount = attr(c, CU_ATTR_SM_COUNT);
   d->warpSize = attr(c, CU_ATTR_WARP_SIZE);
   d->maxThreadsPerBlock = attr(c, CU_ATTR_MAX_THREADS_PER_BLOCK);
   d->maxThreadsPerSm = attr(c, CU_ATTR_MAX_THREADS_PER_SM);
   d->maxBlocksPerSm = attr(c, CU_ATTR_MAX_BLOCKS_PER_SM);
   d->regsPerSm = attr(c, CU_ATTR_MAX_REGS_PER_SM);
   d->maxRegsPerBlock = attr(c, CU_ATTR_MAX_REGS_PER_BLOCK);
   d->sharedPerSm = attr(c, CU_ATTR_MAX_SHARED_PER_SM);
   d->sharedPerBlock = attr(c, CU_ATTR_MAX_SHARED_PER_BLOCK);
   d->sharedPerBlockOptin = attr(c, CU_ATTR_MAX_SHARED_PER_BLOCK_OPTIN);
   d->l2Bytes = attr(c, CU_ATTR_L2_BYTES);
   int64_t clock = attr(c, CU_ATTR_CLOCK_RATE_KHZ);
   d->clockMhz = clock > 0 ? (double)clock / 1000.0 : -1;
   int64_t memClock = attr(c, CU_ATTR_MEMORY_CLOCK_KHZ), bus = attr(c, CU_ATTR_MEMORY_BUS_BITS);
   /* double data rate: two transfers per clock over a bus of `bus` bits */
   d->memBandwidthGbs = memClock > 0 && bus > 0 ? 2.0 * (double)memClock * 1e3 * (double)bus / 8.0 / 1e9 : -1;
}

static void dropTask(Child *c) {
   for (int i = 0; i < c->ninputs; i++)
      if (c->inputs[i])
         c->cu.cuMemFree(c->inputs[i]);
   if (c->output)
      c->cu.cuMemFree(c->output);
   free(c->reference);
   free(c->got);
   c->reference = c->got = NULL;
   c->output = 0;
   c->ninputs = 0;
   c->haveTask = false;
}

/* The largest relative error of got against want, at the scale of the output: an
 * element that cancels to nearly zero is judged against the output's RMS. Sets
 * *worst to the element with the largest error; NaN counts as infinitely wrong. */
static double maxRelError(const float *got, const float *want, int64_t n, double rms, int64_t *worst,
                          double *rmsError) {
   double maxErr = 0, maxAbs = 0;
   *worst = -1;
   for (int64_t i = 0; i < n; i++) {
      double w = want[i], scale = fabs(w) > rms ? fabs(w) : rms;
      double d = fabs((double)got[i] - w);
      maxAbs = d > maxAbs || isnan(d) ? d : maxAbs;
      double e = d / (scale > 0 ? scale : 1.0);
      if (!(e <= maxErr)) {
         maxErr = isnan(e) ? INFINITY : e;
         *worst = i;
         if (isinf(maxErr))
            break;
      }
   }
   *rmsError = isnan(maxAbs) ? INFINITY : maxAbs / (rms > 0 ? rms : 1.0);
   return maxErr;
}

/* A loaded program with its buffers. */
typedef struct {
   CUmodule mod;
   CUfunction fn[PROTO_MAX_KERNELS];
   CUdeviceptr buf[PROTO_MAX_BUFFERS];
   bool owned[PROTO_MAX_BUFFERS];
   void *args[PROTO_MAX_KERNELS][PROTO_MAX_PARAMS];
   int registers;
} Loaded;

static void unload(Child *c, const ProtoProgram *p, Loaded *l) {
   for (int i = 0; i < p->nbuffers; i++)
      if (l->owned[i] && l->buf[i])
         c->cu.cuMemFree(l->buf[i]);
   if (l->mod)
      c->cu.cuModuleUnload(l->mod);
}

static bool load(Child *c, const ProtoProgram *p, Loaded *l, Failure *f) {
   memset(l, 0, sizeof *l);
   l->registers = -1;
   if (failed(c, c->cu.cuModuleLoadData(&l->mod, p->cubin), MEASURE_LOAD_ERROR, "loading the CUBIN", f)) {
      l->mod = NULL;
      return false;
   }
   for (int k = 0; k < p->nkernels; k++) {
      char what[128];
      snprintf(what, sizeof what, "finding kernel %s", p->kernels[k].name);
      if (failed(c, c->cu.cuModuleGetFunction(&l->fn[k], l->mod, p->kernels[k].name), MEASURE_LOAD_ERROR, what, f))
         return false;
      int regs;
      if (c->cu.cuFuncGetAttribute(&regs, CU_FUNC_ATTR_NUM_REGS, l->fn[k]) == CUDA_SUCCESS && regs > l->registers)
         l->registers = regs;
   }
   for (int i = 0; i < p->nbuffers; i++) {
      int role = p->role[i];
      if (role >= 0 || role == BUFFER_OUTPUT) {
         int64_t want = role >= 0 ? (role < c->ninputs ? c->inputElems[role] : -1) : c->outElems;
         if (p->elems[i] != want) {
            f->error = MEASURE_UNKNOWN_ERROR;
            f->dead = false;
            snprintf(f->message, sizeof f->message,
                     "buffer %d of the program has %lld elements, the task's %s has %lld", i,
                     (long long)p->elems[i], role >= 0 ? "input" : "output", (long long)want);
            return false;
         }
         l->buf[i] = role >= 0 ? c->inputs[role] : c->output;
         continue;
      }
      if (failed(c, c->cu.cuMemAlloc(&l->buf[i], (size_t)p->elems[i] * sizeof(float)), MEASURE_RUNTIME_ERROR,
                 "allocating an intermediate buffer", f))
         return false;
      l->owned[i] = true;
   }
   for (int k = 0; k < p->nkernels; k++)
      for (int a = 0; a < p->kernels[k].nparams; a++)
         l->args[k][a] = &l->buf[p->kernels[k].params[a]];
   return true;
}

static bool launchAll(Child *c, const ProtoProgram *p, Loaded *l, Failure *f) {
   for (int k = 0; k < p->nkernels; k++) {
      const ProtoKernel *kn = &p->kernels[k];
      CUresult rc = c->cu.cuLaunchKernel(l->fn[k], (unsigned)kn->grid, 1, 1, (unsigned)kn->block, 1, 1,
                                         (unsigned)kn->sharedBytes, NULL, l->args[k], NULL);
      if (rc != CUDA_SUCCESS) {
         char what[128];
         snprintf(what, sizeof what, "launching %s (%lld blocks of %lld threads)", kn->name,
                  (long long)kn->grid, (long long)kn->block);
         /* a launch the driver refuses is the program's configuration; a fault of an
          * earlier launch surfacing here is a runtime error */
         return failed(c, rc, CudaDriver_isSticky(rc) ? MEASURE_RUNTIME_ERROR : MEASURE_LOAD_ERROR, what, f), false;
      }
   }
   return true;
}

/* Fills output and scratch with NaN, launches once, and compares the output with
 * `want` (the reference). want NULL: keeps the output in c->got without comparing. */
static bool checkedLaunch(Child *c, const ProtoProgram *p, Loaded *l, const float *want, double tolerance,
                          double *relErr, double *rmsErr, Failure *f) {
   for (int i = 0; i < p->nbuffers; i++)
      if (p->role[i] < 0 &&
          failed(c, c->cu.cuMemsetD32(l->buf[i], NAN_BITS, (size_t)p->elems[i]), MEASURE_RUNTIME_ERROR,
                 "clearing a buffer", f))
         return false;
   if (!launchAll(c, p, l, f))
      return false;
   if (failed(c, c->cu.cuCtxSynchronize(), MEASURE_RUNTIME_ERROR, "running the kernels", f))
      return false;
   if (failed(c, c->cu.cuMemcpyDtoH(c->got, c->output, (size_t)c->outElems * sizeof(float)), MEASURE_RUNTIME_ERROR,
              "reading the output", f))
      return false;
   if (!want)
      return true;
   int64_t worst;
   *relErr = maxRelError(c->got, want, c->outElems, c->rms, &worst, rmsErr);
   if (*relErr <= tolerance)
      return true;
   f->error = MEASURE_WRONG_ANSWER;
   f->dead = false;
   snprintf(f->message, sizeof f->message,
            "element %lld of the output is %.8g, the reference %.8g (relative error %.2g, tolerance %.2g)",
            (long long)worst, (double)c->got[worst], (double)want[worst], *relErr, tolerance);
   return false;
}

static bool timeProgram(Child *c, const ProtoProgram *p, Loaded *l, const ProtoTiming *t, ProtoResult *r,
                        Failure *f) {
   CUevent start = NULL, stop = NULL;
   bool ok = !failed(c, c->cu.cuEventCreate(&start, 0), MEASURE_RUNTIME_ERROR, "creating an event", f) &&
             !failed(c, c->cu.cuEventCreate(&stop, 0), MEASURE_RUNTIME_ERROR, "creating an event", f);
   for (int i = 0; ok && i < t->warmup; i++)
      ok = launchAll(c, p, l, f);
   ok = ok && !failed(c, c->cu.cuCtxSynchronize(), MEASURE_RUNTIME_ERROR, "the warm-up launch", f);
   /* Ansor's time evaluator: the launches of a repeat grow until the repeat lasts the
    * minimum time; the count carries over from one repeat to the next */
   int64_t number = 1;
   for (int rep = 0; ok && rep < t->repeats; rep++) {
      double ms = 0;
      int zeros = 0;
      do {
         if (ms > 0) {
            double grown = t->minRepeatMs / (ms / (double)number) + 1, golden = (double)number * 1.618;
            double next = grown > golden ? grown : golden;
            number = next > MAX_NUMBER ? MAX_NUMBER : (int64_t)next;
         }
         ok = !failed(c, c->cu.cuEventRecord(start, NULL), MEASURE_RUNTIME_ERROR, "recording an event", f);
         for (int64_t i = 0; ok && i < number; i++)
            ok = launchAll(c, p, l, f);
         ok = ok && !failed(c, c->cu.cuEventRecord(stop, NULL), MEASURE_RUNTIME_ERROR, "recording an event", f) &&
              !failed(c, c->cu.cuEventSynchronize(stop), MEASURE_RUNTIME_ERROR, "running the timed launches", f);
         float elapsed = 0;
         ok = ok && !failed(c, c->cu.cuEventElapsedTime(&elapsed, start, stop), MEASURE_RUNTIME_ERROR,
                            "reading the timer", f);
         ms = elapsed;
         zeros += ms <= 0;
      } while (ok && ms < t->minRepeatMs && number < MAX_NUMBER && zeros < MAX_ZERO_TIMES);
      if (ok) {
         double perLaunch = ms / 1e3 / (double)number;
         r->costs[r->ncosts++] = perLaunch > 0 ? perLaunch : 1e-9;
         r->number = number;
      }
   }
   if (start)
      c->cu.cuEventDestroy(start);
   if (stop)
      c->cu.cuEventDestroy(stop);
   return ok;
}

/* One launch of the program for the profiler, which replays each kernel per pass. */
typedef struct {
   Child *c;
   const ProtoProgram *p;
   Loaded *l;
   Failure f;
} ProfiledLaunch;

static int profiledLaunch(void *arg, char **cause) {
   ProfiledLaunch *pl = arg;
   if (launchAll(pl->c, pl->p, pl->l, &pl->f) &&
       !failed(pl->c, pl->c->cu.cuCtxSynchronize(), MEASURE_RUNTIME_ERROR, "the profiled launch", &pl->f))
      return 0;
   return setCause(cause, "%s", pl->f.message);
}

/* The program's counters through CUPTI into r, or why not into r->countersWhy; false
 * (with f) when the profiled launch lost the context. */
static bool readCounters(Child *c, const ProtoProgram *p, Loaded *l, ProtoResult *r, Failure *f) {
   if (!c->cupti && !c->cuptiWhy)
      c->cupti = Cupti_open(c->ctx, c->ordinal, &c->cuptiWhy);
   if (!c->cupti) {
      snprintf(r->countersWhy, sizeof r->countersWhy, "%s", c->cuptiWhy);
      return true;
   }
   /* waves: the grid over the SMs times the blocks the driver fits on one */
   double waves[PROTO_MAX_KERNELS];
   int64_t sms = attr(c, CU_ATTR_SM_COUNT);
   for (int k = 0; k < p->nkernels; k++) {
      int blocks = 0;
      if (c->cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, l->fn[k], (int)p->kernels[k].block,
                                                            (size_t)p->kernels[k].sharedBytes) != CUDA_SUCCESS)
         blocks = 0;
      waves[k] = blocks > 0 && sms > 0 ? (double)p->kernels[k].grid / (double)(sms * blocks) : 0;
   }
   ProfiledLaunch pl = { c, p, l, { MEASURE_OK, "", false } };
   char *why = NULL;
   if (Cupti_profile(c->cupti, profiledLaunch, &pl, p->nkernels, waves, &r->counters, &why) < 0) {
      snprintf(r->countersWhy, sizeof r->countersWhy, "%s", why);
      free(why);
      if (pl.f.dead) {
         *f = pl.f;
         return false;
      }
   }
   return true;
}

static void fail(ProtoResult *r, const Failure *f) {
   r->error = f->error;
   snprintf(r->message, sizeof r->message, "%s", f->message);
   r->ncosts = 0;
}

/* Returns false when the context is lost and the process must end. */
static bool handleRun(Child *c, WireBuf *in, WireBuf *out) {
   ProtoProgram p;
   ProtoTiming t;
   ProtoResult r;
   memset(&r, 0, sizeof r);
   r.registers = -1;
   double t0 = Clock_now();
   Failure f = { MEASURE_OK, "", false };
   Loaded l;
   memset(&l, 0, sizeof l);
   if (Proto_getRun(in, &r.id, &p, &t) < 0) {
      f.error = MEASURE_UNKNOWN_ERROR;
      snprintf(f.message, sizeof f.message, "the runner received a malformed RUN message");
      fail(&r, &f);
   } else if (!c->haveTask) {
      f.error = MEASURE_UNKNOWN_ERROR;
      snprintf(f.message, sizeof f.message, "the runner received a program before its task");
      fail(&r, &f);
   } else if (!load(c, &p, &l, &f) ||
              !checkedLaunch(c, &p, &l, c->reference, t.tolerance, &r.maxRelError, &r.rmsError, &f) ||
              !timeProgram(c, &p, &l, &t, &r, &f) || (t.counters && !readCounters(c, &p, &l, &r, &f))) {
      fail(&r, &f);
   }
   if (l.mod) {
      r.registers = l.registers;
      if (!f.dead)
         unload(c, &p, &l);
   }
   r.seconds = Clock_now() - t0;
   r.exiting = f.dead;
   WireBuf_clear(out);
   Proto_putResult(out, &r);
   Wire_send(c->fd, MSG_RESULT, out, NULL);
   return !f.dead;
}

static bool handleTask(Child *c, WireBuf *in, WireBuf *out) {
   ProtoTask t;
   Failure f = { MEASURE_OK, "", false };
   double relErr = 0, rmsErr = 0, t0 = Clock_now();
   dropTask(c);
   if (Proto_getTask(in, &t) < 0) {
      f.error = MEASURE_UNKNOWN_ERROR;
      snprintf(f.message, sizeof f.message, "the runner received a malformed TASK message");
   } else {
      c->ninputs = t.ninputs;
      for (int i = 0; i < t.ninputs && f.error == MEASURE_OK; i++) {
         size_t bytes = (size_t)t.inputElems[i] * sizeof(float);
         c->inputElems[i] = t.inputElems[i];
         if (!failed(c, c->cu.cuMemAlloc(&c->inputs[i], bytes), MEASURE_RUNTIME_ERROR, "allocating an input", &f))
            failed(c, c->cu.cuMemcpyHtoD(c->inputs[i], t.inputs[i], bytes), MEASURE_RUNTIME_ERROR,
                   "uploading an input", &f);
      }
      c->outElems = t.outputElems;
      c->reference = xMalloc((size_t)t.outputElems * sizeof(float));
      c->got = xMalloc((size_t)t.outputElems * sizeof(float));
      /* the message need not be aligned for floats: copy before reading elements */
      memcpy(c->reference, t.expected, (size_t)t.outputElems * sizeof(float));
      double sum = 0;
      for (int64_t i = 0; i < t.outputElems; i++)
         sum += (double)c->reference[i] * c->reference[i];
      c->rms = sqrt(sum / (double)t.outputElems);
      if (f.error == MEASURE_OK)
         failed(c, c->cu.cuMemAlloc(&c->output, (size_t)t.outputElems * sizeof(float)), MEASURE_RUNTIME_ERROR,
                "allocating the output", &f);
      Loaded l;
      c->haveTask = true;
      if (f.error == MEASURE_OK && load(c, &t.reference, &l, &f)) {
         if (checkedLaunch(c, &t.reference, &l, c->reference, t.tolerance, &relErr, &rmsErr, &f)) {
            /* from now on candidates are compared with what the device computed */
            memcpy(c->reference, c->got, (size_t)c->outElems * sizeof(float));
         } else if (f.error == MEASURE_WRONG_ANSWER) {
            char why[512];
            snprintf(why, sizeof why, "the reference kernel disagrees with the CPU reference: %s", f.message);
            snprintf(f.message, sizeof f.message, "%s", why);
         }
         if (!f.dead)
            unload(c, &t.reference, &l);
      }
      if (f.error != MEASURE_OK && !f.dead)
         dropTask(c);
   }
   ProtoResult r;
   memset(&r, 0, sizeof r);
   r.id = t.id;
   r.error = f.error;
   r.registers = -1;
   r.maxRelError = relErr;
   r.rmsError = rmsErr;
   r.seconds = Clock_now() - t0;
   r.exiting = f.dead;
   snprintf(r.message, sizeof r.message, "%s", f.message);
   WireBuf_clear(out);
   Proto_putResult(out, &r);
   Wire_send(c->fd, MSG_TASK_DONE, out, NULL);
   return !f.dead;
}

int RunnerChild_main(int fd, int ordinal) {
   /* the runner process shows as what it does */
   pthread_setname_np(pthread_self(), "measure");
   Child c;
   memset(&c, 0, sizeof c);
   c.fd = fd;
   c.ordinal = ordinal;
   char *cause = NULL;
   if (CudaDriver_open(&c.cu, &cause) < 0) {
      sendFatal(fd, cause);
      free(cause);
      return 1;
   }
   int count = 0;
   char msg[600];
   if (c.cu.cuDeviceGetCount(&count) != CUDA_SUCCESS || ordinal < 0 || ordinal >= count) {
      snprintf(msg, sizeof msg, "cuda:%d: no such device (the driver sees %d)", ordinal, count);
      CudaDriver_close(&c.cu);
      return sendFatal(fd, msg);
   }
   Failure f;
   if (failed(&c, c.cu.cuDeviceGet(&c.dev, ordinal), MEASURE_UNKNOWN_ERROR, "opening the device", &f) ||
       failed(&c, c.cu.cuDevicePrimaryCtxRetain(&c.ctx, c.dev), MEASURE_UNKNOWN_ERROR, "creating a context", &f) ||
       failed(&c, c.cu.cuCtxSetCurrent(c.ctx), MEASURE_UNKNOWN_ERROR, "creating a context", &f)) {
      snprintf(msg, sizeof msg, "cuda:%d: %s", ordinal, f.message);
      CudaDriver_close(&c.cu);
      return sendFatal(fd, msg);
   }
   ProtoDevice d;
   describeDevice(&c, ordinal, &d);
   WireBuf in, out;
   WireBuf_init(&in);
   WireBuf_init(&out);
   Proto_putDevice(&out, &d);
   int status = 0;
   if (Wire_send(fd, MSG_READY, &out, NULL) != WIRE_OK)
      status = 2;
   while (status == 0) {
      uint32_t type;
      WireStatus st = Wire_recv(fd, -1, &type, &in, NULL);
      if (st == WIRE_EOF)
         break;
      if (st != WIRE_OK) {
         status = 2;
         break;
      }
      if (type == MSG_QUIT)
         break;
      if (type == MSG_TASK) {
         if (!handleTask(&c, &in, &out))
            status = 3;
      } else if (type == MSG_RUN) {
         if (!handleRun(&c, &in, &out))
            status = 3;
      } else {
         status = 2;
      }
   }
   Cupti_close(c.cupti);
   free(c.cuptiWhy);
   if (status != 3) {
      dropTask(&c);
      c.cu.cuDevicePrimaryCtxRelease(c.dev);
   }
   WireBuf_done(&in);
   WireBuf_done(&out);
   CudaDriver_close(&c.cu);
   return status;
}
