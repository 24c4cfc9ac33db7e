/* Choosing the device, preparing a task, and measuring batches on a GPU runner or on
 * the simulator. */
#include "config.h"

#include "measure/measurer.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codegen/cuda.h"
#include "ir/lower.h"
#include "measure/builder.h"
#include "measure/nvrtc.h"
#include "measure/gpustate.h"
#include "sim/sim.h"
#include "measure/verify.h"
#include "util/clock.h"
#include "util/rng.h"
#include "util/textbuf.h"
#include "util/xalloc.h"

/* blocks of the last kernel the CPU check runs besides the first and last */
#define SIM_VERIFY_BLOCKS 4
/* how far apart the simulator's repeats are: +-0.2% around the latency */
#define SIM_REPEAT_NOISE 0.004

struct Measurer_ {
   MeasurerConfig cfg;
   bool simulated;
   Device device;
   char describe[256];
   char *note;
   char arch[16];
   Runner *runner;
   GpuState *gpuState;          /* NULL on the simulator and without NVML */
   char *gpuNote;               /* on a GPU, why there is no state */
   Builder *builder;            /* NULL on the simulator when NVRTC is missing */
   SimGpu gpu;                  /* the simulator's hardware and constants */
   SimParams params;
   const Task *task;
   const SketchSet *set;
   VerifyTask *vt;              /* NULL: the task is too large to check on the CPU */
   char *taskNote;
   LoopNest ln;
};

void MeasurerConfig_default(MeasurerConfig *c) {
   memset(c, 0, sizeof *c);
   c->device = "auto";
   c->simProfile = MEASURER_DEFAULT_SIM_PROFILE;
   RunnerConfig_default(&c->runner);
   c->runner.quiet = true;
   c->buildThreads = 0;
   c->buildTimeout = 15;
   c->simVerifyEvery = 8;
   c->seed = 1;
   c->maxMemory = VERIFY_DEFAULT_MAX_MEMORY;
}

static int unknownProfile(const DeviceSet *set, const char *name, const char *where, char **cause) {
   char known[1024] = "none";
   TextBuf t = TextBuf_over(known, sizeof known);
   for (int i = 0; i < set->count; i++)
      TextBuf_add(&t, "%s%s", i ? ", " : "", set->devices[i].name);
   return setCause(cause, "%s: no device profile is called '%s' (known: %s)", where, name, known);
}

/* Fills what the profile lacks from what the driver said; what neither knows stays
 * unknown. */
static void completeFromDriver(Device *d, const ProtoDevice *p) {
#define FILL(field, bit, value)                    \
   do {                                            \
      if (!Device_has(d, bit) && (value) > 0) {    \
         d->field = (value);                       \
         Device_setValid(d, bit);                  \
      }                                            \
   } while (0)
   if (!Device_has(d, DEV_COMPUTE_CAPABILITY) && p->ccMajor > 0) {
      d->cc_major = p->ccMajor;
      d->cc_minor = p->ccMinor;
      Device_setValid(d, DEV_COMPUTE_CAPABILITY);
   }
   FILL(mem_bandwidth_gbs, DEV_MEM_BANDWIDTH_GBS, p->memBandwidthGbs);
   FILL(sm_count, DEV_SM_COUNT, p->smCount);
   FILL(warp_size, DEV_WARP_SIZE, p->warpSize);
   FILL(max_threads_per_sm, DEV_MAX_THREADS_PER_SM, p->maxThreadsPerSm);
   FILL(max_threads_per_block, DEV_MAX_THREADS_PER_BLOCK, p->maxThreadsPerBlock);
   FILL(max_blocks_per_sm, DEV_MAX_BLOCKS_PER_SM, p->maxBlocksPerSm);
   FILL(regs_per_sm, DEV_REGS_PER_SM, p->regsPerSm);
   FILL(shared_per_sm, DEV_SHARED_PER_SM, p->sharedPerSm);
   FILL(shared_per_block, DEV_SHARED_PER_BLOCK, p->sharedPerBlock);
   FILL(shared_per_block_optin, DEV_SHARED_PER_BLOCK_OPTIN, p->sharedPerBlockOptin);
   FILL(l2_bytes, DEV_L2_BYTES, p->l2Bytes);
   FILL(clock_mhz, DEV_CLOCK_MHZ, p->clockMhz);
#undef FILL
}

/* A profile for a GPU devices.yaml does not know: the driver's numbers only, named
 * after the product ("nvidia_rtx_6000_ada"). */
static void profileFromDriver(Device *d, const ProtoDevice *p) {
   memset(d, 0, sizeof *d);
   size_t n = 0;
   for (const char *c = p->name; *c && n + 1 < sizeof d->name; c++) {
      char ch = (char)tolower((unsigned char)*c);
      if (isalnum((unsigned char)ch))
         d->name[n++] = ch;
      else if (n > 0 && d->name[n - 1] != '_')
         d->name[n++] = '_';
   }
   while (n > 0 && d->name[n - 1] == '_')
      n--;
   d->name[n] = '\0';
   snprintf(d->product, sizeof d->product, "%.*s", (int)sizeof d->product - 1, p->name);
   completeFromDriver(d, p);
}

static int openBuilder(Measurer *m, char **cause) {
   BuilderConfig bc;
   BuilderConfig_default(&bc);
   bc.threads = m->cfg.buildThreads;
   bc.timeoutSeconds = m->cfg.buildTimeout;
   snprintf(bc.arch, sizeof bc.arch, "%s", m->arch);
   m->builder = Builder_new(&bc, cause);
   return m->builder ? 0 : -1;
}

static void addNote(Measurer *m, const char *fmt, ...) ATTR_FORMAT(2, 3);
static void addNote(Measurer *m, const char *fmt, ...) {
   va_list ap;
   va_start(ap, fmt);
   char *more = xVasprintf(fmt, ap);
   va_end(ap);
   char *note = m->note ? xAsprintf("%s; %s", m->note, more) : xStrdup(more);
   free(more);
   free(m->note);
   m->note = note;
}

/* The simulator of a profile: refused up front when the profile lacks what the model
 * needs; the fields its compute capability fixes are filled (and the note says which);
 * without NVRTC, or for an architecture NVRTC no longer targets, registers are
 * estimated (and the note says so once). */
static int openSimulator(Measurer *m, const char *profile, const char *where, char **cause) {
   const Device *d = DeviceSet_find(m->cfg.devices, profile);
   if (!d)
      return unknownProfile(m->cfg.devices, profile, where, cause);
   char *why = NULL;
   if (SimGpu_init(&m->gpu, d, cause) < 0)
      return -1;
   m->simulated = true;
   m->device = m->gpu.device;
   SimParams_fromDevice(&m->params, d);
   Device_arch(&m->device, m->arch, sizeof m->arch);
   snprintf(m->describe, sizeof m->describe, "sim:%s (simulated %s)", d->name, d->product);
   if (m->gpu.filled) {
      char fields[512];
      Device_formatFields(m->gpu.filled, fields, sizeof fields);
      addNote(m, "sim:%s has no %s: taken from compute capability %d.%d", d->name, fields, d->cc_major,
              d->cc_minor);
   }
   if (m->cfg.simNoCompile)
      return 0;
   if (Nvrtc_open(&why) < 0 || Nvrtc_supportsArch(m->arch, &why) < 0) {
      addNote(m, "%s: the simulator estimates registers", why);
      free(why);
      return 0;
   }
   if (openBuilder(m, &why) < 0) {
      addNote(m, "NVRTC is not available (%s): the simulator estimates registers", why);
      free(why);
   }
   return 0;
}

static int openGpu(Measurer *m, int ordinal, char **cause) {
   RunnerConfig rc = m->cfg.runner;
   rc.ordinal = ordinal;
   m->runner = Runner_new(&rc);
   if (Runner_start(m->runner, cause) < 0) {
      Runner_free(m->runner);
      m->runner = NULL;
      return -1;
   }
   const ProtoDevice *p = Runner_device(m->runner);
   const Device *match = DeviceSet_matchProduct(m->cfg.devices, p->name);
   if (match) {
      m->device = *match;
      completeFromDriver(&m->device, p);
   } else {
      profileFromDriver(&m->device, p);
   }
   Device_arch(&m->device, m->arch, sizeof m->arch);
   snprintf(m->describe, sizeof m->describe, "cuda:%d %s (%s%s)", ordinal, p->name,
            match ? "profile " : "no profile in devices.yaml; driver values as ", m->device.name);
   char *why = NULL;
   if (openBuilder(m, &why) < 0) {
      setCause(cause, "cuda:%d needs NVRTC to compile kernels: %s", ordinal, why);
      free(why);
      return -1;
   }
   /* CUDA's ordinals and NVML's indices may differ: the bus id names the same GPU */
   m->gpuState = GpuState_open(p->pciBusId, ordinal, &why);
   if (!m->gpuState) {
      addNote(m, "%s", why);
      m->gpuNote = why;
   }
   return 0;
}

Measurer *Measurer_open(const MeasurerConfig *cfg, char **cause) {
   Measurer *m = xCalloc(1, sizeof *m);
   m->cfg = *cfg;
   LoopNest_init(&m->ln);
   const char *dev = cfg->device ? cfg->device : "auto";
   const char *simProfile = cfg->simProfile ? cfg->simProfile : MEASURER_DEFAULT_SIM_PROFILE;
   int rc;
   if (strncmp(dev, "sim:", 4) == 0) {
      rc = openSimulator(m, dev + 4, dev, cause);
   } else if (strncmp(dev, "cuda:", 5) == 0) {
      char *end;
      errno = 0;
      long n = strtol(dev + 5, &end, 10);
      if (errno || end == dev + 5 || *end || n < 0 || n > 255)
         rc = setCause(cause, "--device: '%s' is not cuda:N with N a device number", dev);
      else
         rc = openGpu(m, (int)n, cause);
   } else if (strcmp(dev, "auto") == 0) {
      char *why = NULL;
      rc = openGpu(m, 0, &why);
      if (rc < 0) {
         m->note = xAsprintf("no CUDA GPU (%s): simulating %s", why, simProfile);
         free(why);
         rc = openSimulator(m, simProfile, "--sim-profile", cause);
      }
   } else {
      rc = setCause(cause, "--device takes auto, cuda:N or sim:PROFILE, not '%s'", dev);
   }
   if (rc < 0) {
      Measurer_close(m);
      return NULL;
   }
   return m;
}

void Measurer_close(Measurer *m) {
   if (!m)
      return;
   Runner_free(m->runner);
   GpuState_close(m->gpuState);
   free(m->gpuNote);
   Builder_free(m->builder);
   VerifyTask_free(m->vt);
   LoopNest_done(&m->ln);
   free(m->taskNote);
   free(m->note);
   free(m);
}

bool Measurer_simulated(const Measurer *m) { return m->simulated; }
const Device *Measurer_device(const Measurer *m) { return &m->device; }
const char *Measurer_describe(const Measurer *m) { return m->describe; }
const char *Measurer_note(const Measurer *m) { return m->note; }
const char *Measurer_arch(const Measurer *m) { return m->arch; }
bool Measurer_compiles(const Measurer *m) { return m->builder != NULL; }
GpuState *Measurer_gpuState(const Measurer *m) { return m->gpuState; }
const char *Measurer_gpuNote(const Measurer *m) { return m->gpuNote; }

/* The reasons that slow the GPU now; 0 without NVML. */
static unsigned slowingNow(Measurer *m) {
   if (!m->gpuState)
      return 0;
   GpuSample s;
   GpuState_sample(m->gpuState, &s);
   return GpuSample_slowing(&s);
}

/* ---- programs ---- */

/* The runner's view of a lowered program: its global buffers with their roles and its
 * kernels with their arguments. The CUBIN is added once built. */
static void describeProgram(const LoopNest *ln, ProtoProgram *p) {
   memset(p, 0, sizeof *p);
   int map[IR_MAX_BUFFERS];
   int inputs = 0;
   for (int b = 0; b < ln->nbuffers; b++) {
      const IrBuffer *buf = &ln->buffers[b];
      map[b] = -1;
      if (buf->scope != SCOPE_GLOBAL)
         continue;
      map[b] = p->nbuffers;
      p->elems[p->nbuffers] = buf->elems;
      /* global input buffers are the placeholders in the op's input order */
      p->role[p->nbuffers++] = buf->input ? inputs++ : buf->output ? BUFFER_OUTPUT : BUFFER_SCRATCH;
   }
   p->nkernels = ln->nkernels;
   for (int k = 0; k < ln->nkernels; k++) {
      const IrKernel *kn = &ln->kernels[k];
      ProtoKernel *pk = &p->kernels[k];
      snprintf(pk->name, sizeof pk->name, "%s", kn->name);
      pk->grid = kn->grid;
      pk->block = kn->block;
      pk->sharedBytes = 0;      /* all shared memory is static */
      pk->nparams = kn->nparams;
      for (int i = 0; i < kn->nparams; i++)
         pk->params[i] = map[kn->params[i]];
   }
}

static void ptxasTotals(const BuildArtifact *a, int *registers, int *spills) {
   *registers = -1;
   *spills = a->nkernels ? 0 : -1;
   for (int k = 0; k < a->nkernels; k++) {
      if (a->kernels[k].registers > *registers)
         *registers = a->kernels[k].registers;
      if (a->kernels[k].spillStores > 0)
         *spills += a->kernels[k].spillStores;
      if (a->kernels[k].spillLoads > 0)
         *spills += a->kernels[k].spillLoads;
   }
}

int Measurer_setTask(Measurer *m, const Task *task, const SketchSet *set, char **cause) {
   m->task = task;
   m->set = set;
   VerifyTask_free(m->vt);
   m->vt = NULL;
   free(m->taskNote);
   m->taskNote = NULL;
   char *tooBig = NULL;
   if (VerifyTask_fits(&task->op, task->id, m->cfg.maxMemory, &tooBig) < 0) {
      if (!m->simulated) {
         setCause(cause, "%s: skipped", tooBig);
         free(tooBig);
         return -1;
      }
      m->taskNote = xAsprintf("%s: its states are not checked", tooBig);
      free(tooBig);
      return 0;
   }
   m->vt = VerifyTask_new(&task->op, m->cfg.seed, VERIFY_TOLERANCE, SIM_VERIFY_BLOCKS, task->flops <= VERIFY_FULL_FLOPS);
   if (m->simulated)
      return 0;
   Lower_reference(set, &m->ln);
   char *src = Cuda_generate(&m->ln, NULL);
   BuildRequest req;
   memset(&req, 0, sizeof req);
   req.source = src;
   req.name = "reference.cu";
   Builder_build(m->builder, &req, 1);
   int rc = 0;
   if (req.error != MEASURE_OK) {
      rc = setCause(cause, "task %d: the reference program does not compile: %s", task->id, req.message);
   } else {
      ProtoTask t;
      memset(&t, 0, sizeof t);
      t.id = (uint64_t)task->id;
      t.ninputs = Op_numInputs(&task->op);
      const float *const *inputs = VerifyTask_inputs(m->vt);
      for (int i = 0; i < t.ninputs; i++) {
         int64_t shape[TE_MAX_DIMS], n = 1;
         const char *name;
         int r = Op_inputShape(&task->op, i, shape, &name);
         for (int d = 0; d < r; d++)
            n *= shape[d];
         t.inputElems[i] = n;
         t.inputs[i] = inputs[i];
      }
      t.expected = VerifyTask_reference(m->vt, &t.outputElems);
      t.tolerance = m->cfg.runner.timing.tolerance;
      describeProgram(&m->ln, &t.reference);
      t.reference.cubin = req.artifact->cubin;
      t.reference.cubinSize = req.artifact->cubinSize;
      char *why = NULL;
      if (Runner_setTask(m->runner, &t, &why) < 0) {
         rc = setCause(cause, "task %d: %s", task->id, why);
         free(why);
      }
   }
   BuildRequest_done(&req);
   free(src);
   return rc;
}

/* ---- measuring ---- */

static void outcomeInit(MeasureOutcome *o) {
   memset(o, 0, sizeof *o);
   o->registers = -1;
   o->spillBytes = -1;
   o->latency = MEASURE_FAILED_COST;
}

static void outcomeFail(MeasureOutcome *o, MeasureError e, const char *msg) {
   o->error = e;
   o->ncosts = 0;
   o->latency = MEASURE_FAILED_COST;
   o->spread = 0;
   snprintf(o->message, sizeof o->message, "%.*s", (int)sizeof o->message - 1, msg);
}

static void outcomeCosts(MeasureOutcome *o, const double *costs, int n) {
   ProtoResult r;
   memset(&r, 0, sizeof r);
   r.ncosts = n;
   memcpy(r.costs, costs, (size_t)n * sizeof costs[0]);
   memcpy(o->costs, costs, (size_t)n * sizeof costs[0]);
   o->ncosts = n;
   o->latency = ProtoResult_median(&r);
   o->spread = ProtoResult_spread(&r);
}

/* Takes a build's outcome into o; false when it failed. */
static bool takeBuild(const BuildRequest *req, MeasureOutcome *o) {
   o->compileSeconds = req->seconds;
   o->cached = req->cached;
   if (req->error != MEASURE_OK) {
      outcomeFail(o, req->error, req->message ? req->message : MeasureError_name(req->error));
      return false;
   }
   ptxasTotals(req->artifact, &o->registers, &o->spillBytes);
   return true;
}

static void freeBuilds(BuildRequest *reqs, char **sources, int n) {
   for (int i = 0; reqs && i < n; i++) {
      free(sources[i]);
      BuildRequest_done(&reqs[i]);
   }
   free(reqs);
   free(sources);
}

static void lower(Measurer *m, const State *s) {
   Lower_state(m->set, s, &m->ln);
   Inject_apply(&m->ln, m->cfg.inject);
}

/* Builds every state's program; the caller frees sources[i]. progs (may be NULL)
 * gets each program's launch description while its nest is at hand. */
static void buildAll(Measurer *m, const State *states, int n, BuildRequest *reqs, char **sources,
                     ProtoProgram *progs) {
   memset(reqs, 0, (size_t)n * sizeof *reqs);
   for (int i = 0; i < n; i++) {
      lower(m, &states[i]);
      if (progs)
         describeProgram(&m->ln, &progs[i]);
      sources[i] = Cuda_generate(&m->ln, NULL);
      reqs[i].source = sources[i];
      reqs[i].name = "candidate.cu";
   }
   Builder_build(m->builder, reqs, n);
}

static void measureGpu(Measurer *m, const State *states, int n, MeasureOutcome *out) {
   BuildRequest *reqs = xCalloc((size_t)n, sizeof *reqs);
   char **sources = xCalloc((size_t)n, sizeof *sources);
   ProtoProgram *progs = xCalloc((size_t)n, sizeof *progs);
   buildAll(m, states, n, reqs, sources, progs);
   for (int i = 0; i < n; i++) {
      MeasureOutcome *o = &out[i];
      outcomeInit(o);
      if (!takeBuild(&reqs[i], o))
         continue;
      ProtoProgram *p = &progs[i];
      p->cubin = reqs[i].artifact->cubin;
      p->cubinSize = reqs[i].artifact->cubinSize;
      ProtoResult res;
      unsigned throttled = slowingNow(m);
      Runner_measure(m->runner, p, &res);
      throttled |= slowingNow(m);
      o->runSeconds = res.seconds;
      if (res.error != MEASURE_OK) {
         outcomeFail(o, res.error, res.message);
         o->checked = res.error == MEASURE_WRONG_ANSWER;
         continue;
      }
      o->checked = true;
      o->throttled = throttled;
      outcomeCosts(o, res.costs, res.ncosts);
   }
   free(progs);
   freeBuilds(reqs, sources, n);
}

static uint64_t mix64(uint64_t x) {
   x += 0x9e3779b97f4a7c15ull;
   x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
   x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
   return x ^ (x >> 31);
}

static void measureSim(Measurer *m, const State *states, int n, MeasureOutcome *out) {
   BuildRequest *reqs = NULL;
   char **sources = NULL;
   if (m->builder) {
      reqs = xCalloc((size_t)n, sizeof *reqs);
      sources = xCalloc((size_t)n, sizeof *sources);
      buildAll(m, states, n, reqs, sources, NULL);
   }
   const RunnerConfig *rc = &m->cfg.runner;
   int every = m->cfg.simVerifyEvery > 0 ? m->cfg.simVerifyEvery : 1;
   for (int i = 0; i < n; i++) {
      MeasureOutcome *o = &out[i];
      outcomeInit(o);
      SimCompiled compiled[IR_MAX_KERNELS];
      const SimCompiled *ptxas[IR_MAX_KERNELS] = { NULL };
      if (reqs && !takeBuild(&reqs[i], o))
         continue;
      double t0 = Clock_now();
      lower(m, &states[i]);
      if (reqs)
         for (int k = 0; k < m->ln.nkernels; k++)
            for (int j = 0; j < reqs[i].artifact->nkernels; j++) {
               const NvrtcKernelInfo *ki = &reqs[i].artifact->kernels[j];
               if (strcmp(ki->name, m->ln.kernels[k].name) != 0)
                  continue;
               compiled[k] = (SimCompiled){ ki->registers, ki->spillStores, ki->spillLoads, ki->stackBytes };
               ptxas[k] = &compiled[k];
            }
      uint64_t h = State_hash(&states[i]);
      SimReport report;
      SimProgram prog;
      char *why = NULL;
      memset(&report, 0, sizeof report);
      double lat = Sim_count(&m->gpu, &m->ln, ptxas, &prog, &why) < 0
                      ? -1
                      : Sim_time(&m->gpu, &m->params, &prog, h, &report);
      if (lat < 0) {
         outcomeFail(o, MEASURE_LOAD_ERROR, why);
         free(why);
      } else if (lat * (1 + rc->timing.warmup) > rc->runTimeout) {
         char msg[256];
         snprintf(msg, sizeof msg, "the simulated program runs %.3g s per launch, beyond the run timeout of %g s",
                  lat, rc->runTimeout);
         outcomeFail(o, MEASURE_RUN_TIMEOUT, msg);
      } else {
         bool check = m->vt && (m->cfg.inject != INJECT_NONE || mix64(h ^ m->cfg.seed) % (uint64_t)every == 0);
         VerifyResult vr;
         memset(&vr, 0, sizeof vr);
         if (check && Verify_loopNest(m->vt, &m->ln, m->cfg.seed ^ h, &vr) < 0) {
            bool executor = strncmp(vr.why, "CPU executor:", 13) == 0;
            outcomeFail(o, executor ? MEASURE_RUNTIME_ERROR : MEASURE_WRONG_ANSWER, vr.why);
         } else {
            double costs[PROTO_MAX_COSTS];
            int reps = rc->timing.repeats < PROTO_MAX_COSTS ? rc->timing.repeats : PROTO_MAX_COSTS;
            for (int r = 0; r < reps; r++) {
               double u = (double)(mix64(h + 0x51ed2701u * (uint64_t)(r + 1)) >> 11) * 0x1p-53;
               costs[r] = lat * (1.0 + SIM_REPEAT_NOISE * (u - 0.5));
            }
            outcomeCosts(o, costs, reps);
         }
         o->checked = check;
         VerifyResult_done(&vr);
      }
      if (o->registers < 0 && report.nkernels > 0) {
         for (int k = 0; k < report.nkernels; k++)
            if (report.kernels[k].registers > o->registers)
               o->registers = report.kernels[k].registers;
      }
      o->runSeconds = Clock_now() - t0;
   }
   freeBuilds(reqs, sources, n);
}

const char *Measurer_taskNote(const Measurer *m) {
   return m->taskNote;
}

void Measurer_setInject(Measurer *m, InjectKind k) {
   m->cfg.inject = k;
}

void Measurer_measure(Measurer *m, const State *states, int n, MeasureOutcome *out) {
   if (m->simulated)
      measureSim(m, states, n, out);
   else
      measureGpu(m, states, n, out);
}

void Measurer_record(const Measurer *m, const State *s, const MeasureOutcome *o, Record *r) {
   memset(r, 0, sizeof *r);
   char text[4096];
   State_format(m->set, s, text, sizeof text);
   r->version = RECORD_FORMAT_VERSION;
   r->task = xStrdup(m->task->key);
   r->device = xStrdup(m->device.name);
   r->simulated = m->simulated;
   r->state = xStrdup(text);
   r->error = o->error;
   r->message = xStrdup(o->error == MEASURE_OK ? "" : o->message);
   if (o->error == MEASURE_OK) {
      r->ncosts = o->ncosts;
      memcpy(r->costs, o->costs, (size_t)o->ncosts * sizeof o->costs[0]);
   } else {
      r->ncosts = 1;
      r->costs[0] = MEASURE_FAILED_COST;
   }
   r->registers = o->registers;
   r->compileSeconds = o->compileSeconds;
   r->runSeconds = o->runSeconds;
   r->timestamp = (int64_t)time(NULL);
   r->throttled = o->error == MEASURE_OK ? o->throttled : 0;
}
