/* Choosing the devices, preparing a task, and measuring batches on GPU runners or on
 * simulators, one thread per device when there are several. */
#include "config.h"

#include "measure/measurer.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codegen/cuda.h"
#include "ir/lower.h"
#include "measure/builder.h"
#include "measure/cupti.h"
#include "measure/nvrtc.h"
#include "measure/gpustate.h"
#include "measure/mpi.h"
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

/* One measuring device and what its thread works with. */
typedef struct Unit_ {
   char name[48];               /* "cuda:2", "sim:h100_sxm"; under MPI "cuda:0@3" */
   int rank;                    /* under MPI, the worker rank it is on; 0: this process */
   int slot;                    /* its index among that worker's devices */
   Device device;
   Runner *runner;              /* on a GPU */
   GpuState *gpuState;          /* NULL on the simulator and without NVML */
   SimGpu gpu;                  /* the simulator's hardware and constants */
   SimParams params;
   LoopNest ln;                 /* the nest of the state it measures */
   bool retired;
   int failStreak;              /* runner failures in a row, over batches */
   long okBefore;               /* the fleet's measured programs when the streak began */
   char lastFailure[512];       /* the last one's message */
   /* since the measurer opened; written under the batch's lock */
   long measured, failed;       /* outcomes it gave, and those that were errors */
   double busySeconds;          /* wall clock spent measuring */
   char *retiredWhy;            /* why it is retired, or NULL */
} Unit;

struct Measurer_ {
   MeasurerConfig cfg;
   bool simulated;
   char describe[256];
   char fleet[256];
   char *note;
   char arch[16];
   int nunits;
   Unit *units;                 /* maxUnits of them */
   int maxUnits;
   char *gpuNote;               /* on a GPU, why there is no state */
   Builder *builder;            /* NULL on the simulator when NVRTC is missing, and under MPI */
   bool remote;                 /* the devices are MPI workers' */
   bool remoteCompiles;         /* their NVRTC builds the programs */
   long measuredOk;             /* programs measured ok by any device */
   int nretired;
   char *retiredWhy;
   const Task *task;
   const SketchSet *set;
   VerifyTask *vt;              /* NULL: the task is too large to check on the CPU */
   char *taskNote;
   char countersWhy[256];       /* a GPU's counters asked for but not read: the first why */
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

static void closeUnits(Measurer *m) {
   for (int i = 0; i < m->nunits; i++) {
      Runner_free(m->units[i].runner);
      m->units[i].runner = NULL;
      GpuState_close(m->units[i].gpuState);
      m->units[i].gpuState = NULL;
      free(m->units[i].retiredWhy);
      m->units[i].retiredWhy = NULL;
   }
   m->nunits = 0;
   Builder_free(m->builder);
   m->builder = NULL;
   free(m->gpuNote);
   m->gpuNote = NULL;
}

/* ---- the fleet ---- */

static int badDevice(const char *device, char **cause) {
   return setCause(cause, "--device takes auto, cuda:N, cuda:N,M,..., cuda:all, sim:PROFILE or sim:PROFILE*N, not '%s'",
                   device);
}

static int parseCuda(const char *device, MeasurerFleet *f, char **cause) {
   const char *p = device + 5;
   f->kind = FLEET_CUDA;
   if (strcmp(p, "all") == 0) {
      f->all = true;
      return 0;
   }
   for (;;) {
      char *end;
      errno = 0;
      long n = isdigit((unsigned char)*p) ? strtol(p, &end, 10) : -1;
      if (n < 0 || errno || n > 255 || (*end && *end != ','))
         return setCause(cause, "--device: '%s' is not cuda:all or cuda:N,M,... with N a device number (0 to 255)",
                         device);
      for (int i = 0; i < f->count; i++)
         if (f->ordinals[i] == n)
            return setCause(cause, "--device: '%s' names cuda:%ld twice", device, n);
      if (f->count == MEASURER_MAX_DEVICES)
         return setCause(cause, "--device: '%s' names more than %d devices", device, MEASURER_MAX_DEVICES);
      f->ordinals[f->count++] = (int)n;
      if (!*end)
         return 0;
      p = end + 1;
   }
}

static int parseSim(const char *device, MeasurerFleet *f, char **cause) {
   const char *p = device + 4;
   f->kind = FLEET_SIM;
   for (;;) {
      size_t len = strcspn(p, "*,");
      if (len == 0)
         return setCause(cause, "--device: '%s' has an empty profile name", device);
      if (len >= sizeof f->profiles[0])
         return setCause(cause, "--device: '%s' has a profile name longer than %zu characters", device,
                         sizeof f->profiles[0] - 1);
      long copies = 1;
      const char *next = p + len;
      if (*next == '*') {
         char *end;
         errno = 0;
         copies = isdigit((unsigned char)next[1]) ? strtol(next + 1, &end, 10) : -1;
         if (copies < 1 || errno || copies > MEASURER_MAX_DEVICES || (*end && *end != ','))
            return setCause(cause, "--device: '%s': the count after '*' must be a number from 1 to %d", device,
                            MEASURER_MAX_DEVICES);
         next = end;
      }
      if (f->count + copies > MEASURER_MAX_DEVICES)
         return setCause(cause, "--device: '%s' names more than %d devices", device, MEASURER_MAX_DEVICES);
      for (long i = 0; i < copies; i++)
         snprintf(f->profiles[f->count++], sizeof f->profiles[0], "%.*s", (int)len, p);
      if (!*next)
         return 0;
      p = next + 1;
   }
}

int MeasurerFleet_parse(const char *device, MeasurerFleet *f, char **cause) {
   memset(f, 0, sizeof *f);
   const char *dev = device ? device : "auto";
   if (strcmp(dev, "auto") == 0) {
      f->kind = FLEET_AUTO;
      f->count = 1;
      return 0;
   }
   if (strncmp(dev, "cuda:", 5) == 0)
      return parseCuda(dev, f, cause);
   if (strncmp(dev, "sim:", 4) == 0)
      return parseSim(dev, f, cause);
   return badDevice(dev, cause);
}

/* The simulator of a profile as one device: refused up front when the profile lacks
 * what the model needs; the fields its compute capability fixes are filled (and the
 * first device's note says which). */
static int openSimUnit(Measurer *m, Unit *u, const char *profile, const char *where, char **cause) {
   const Device *d = DeviceSet_find(m->cfg.devices, profile);
   if (!d)
      return unknownProfile(m->cfg.devices, profile, where, cause);
   if (SimGpu_init(&u->gpu, d, cause) < 0)
      return -1;
   u->device = u->gpu.device;
   SimParams_fromDevice(&u->params, d);
   snprintf(u->name, sizeof u->name, "sim:%s", d->name);
   if (u == &m->units[0] && u->gpu.filled) {
      char fields[512];
      Device_formatFields(u->gpu.filled, fields, sizeof fields);
      addNote(m, "sim:%s has no %s: taken from compute capability %d.%d", d->name, fields, d->cc_major,
              d->cc_minor);
   }
   m->nunits++;
   return 0;
}

/* Simulators of the fleet's profiles, and NVRTC for their registers: without it, or
 * for an architecture NVRTC no longer targets, registers are estimated (and the note
 * says so once). */
static int openSimulators(Measurer *m, const MeasurerFleet *f, const char *where, char **cause) {
   m->simulated = true;
   for (int i = 0; i < f->count; i++)
      if (openSimUnit(m, &m->units[i], f->profiles[i], where, cause) < 0)
         return -1;
   const Device *d = &m->units[0].device;
   Device_arch(d, m->arch, sizeof m->arch);
   snprintf(m->describe, sizeof m->describe, "sim:%s (simulated %s)", d->name, d->product);
   if (m->cfg.simNoCompile)
      return 0;
   char *why = NULL;
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

/* One GPU's runner and profile. */
static int openGpuUnit(Measurer *m, Unit *u, int ordinal, char **cause) {
   RunnerConfig rc = m->cfg.runner;
   rc.timing.counters = m->cfg.counters;
   rc.ordinal = ordinal;
   u->runner = Runner_new(&rc);
   if (Runner_start(u->runner, cause) < 0) {
      Runner_free(u->runner);
      u->runner = NULL;
      return -1;
   }
   m->nunits++;
   const ProtoDevice *p = Runner_device(u->runner);
   const Device *match = DeviceSet_matchProduct(m->cfg.devices, p->name);
   if (match) {
      u->device = *match;
      completeFromDriver(&u->device, p);
   } else {
      profileFromDriver(&u->device, p);
   }
   snprintf(u->name, sizeof u->name, "cuda:%d", ordinal);
   if (u == &m->units[0])
      snprintf(m->describe, sizeof m->describe, "cuda:%d %s (%s%s)", ordinal, p->name,
               match ? "profile " : "no profile in devices.yaml; driver values as ", u->device.name);
   /* CUDA's ordinals and NVML's indices may differ: the bus id names the same GPU */
   char *why = NULL;
   u->gpuState = GpuState_open(p->pciBusId, ordinal, &why);
   if (!u->gpuState) {
      if (!m->gpuNote) {
         addNote(m, "%s", why);
         m->gpuNote = why;
      } else {
         free(why);
      }
   }
   return 0;
}

/* The GPUs' runners (cuda:all: from 0 up to the first that cannot start) and the
 * build pool. */
static int openGpus(Measurer *m, const MeasurerFleet *f, char **cause) {
   int count = f->all ? MEASURER_MAX_DEVICES : f->count;
   for (int i = 0; i < count; i++) {
      int ordinal = f->all ? i : f->ordinals[i];
      char *why = NULL;
      if (openGpuUnit(m, &m->units[m->nunits], ordinal, &why) < 0) {
         if (f->all && i > 0) {
            free(why);
            break;
         }
         if (cause)
            *cause = why;
         else
            free(why);
         return -1;
      }
   }
   Device_arch(&m->units[0].device, m->arch, sizeof m->arch);
   char *why = NULL;
   if (openBuilder(m, &why) < 0) {
      setCause(cause, "%s needs NVRTC to compile kernels: %s", m->units[0].name, why);
      free(why);
      return -1;
   }
   return 0;
}

/* Devices of different models do not mix unless asked for; and the fleet's name. */
static int checkFleet(Measurer *m, char **cause) {
   const Unit *first = &m->units[0];
   for (int i = 1; i < m->nunits && !m->cfg.allowMixed; i++) {
      const Unit *u = &m->units[i];
      if (strcmp(u->device.name, first->device.name) != 0)
         return setCause(cause, "%s is %s but %s is %s: their latencies do not mix; --allow-mixed keeps a model per device",
                         first->name, first->device.product, u->name, u->device.product);
   }
   TextBuf t = TextBuf_over(m->fleet, sizeof m->fleet);
   if (m->remote)
      TextBuf_add(&t, "mpi:");
   for (int i = 0; i < m->nunits;) {
      int same = 1;
      while (i + same < m->nunits && strcmp(m->units[i + same].name, m->units[i].name) == 0)
         same++;
      const char *name = m->units[i].name;
      if (i > 0 && !m->remote)
         name = strchr(name, ':') + 1;
      TextBuf_add(&t, "%s%s", i > 0 ? "," : "", name);
      if (same > 1)
         TextBuf_add(&t, "*%d", same);
      i += same;
   }
   if (m->nunits > 1) {
      size_t len = strlen(m->describe);
      snprintf(m->describe + len, sizeof m->describe - len, ", %d devices: %s", m->nunits, m->fleet);
   }
   return 0;
}

/* Rank 0 of an MPI run: every worker's devices, from their hellos, in rank order. */
static int openRemote(Measurer *m, char **cause) {
   int size = Mpi_started() ? Mpi_size() : 1;
   if (size < 2)
      return setCause(cause, "--mpi: this run has %d MPI rank; start it with mpirun -np N (N of 2 or more): rank 0 "
                             "tunes and the others measure", size);
   m->remote = true;
   for (int r = 1; r < size; r++) {
      MpiDevice d[MEASURER_MAX_DEVICES];
      int n;
      char *note;
      if (Mpi_hello(r, d, MEASURER_MAX_DEVICES, &n, &note, cause) < 0)
         return -1;
      if (note && !m->note)
         m->note = xAsprintf("rank %d: %s", r, note);
      free(note);
      for (int k = 0; k < n; k++) {
         if (m->nunits == m->maxUnits)
            return setCause(cause, "--mpi: the workers have more than %d devices in all", m->maxUnits);
         if (m->nunits > 0 && d[k].simulated != m->simulated)
            return setCause(cause, "--mpi: rank %d %s %s but rank 1 %s: simulated and real latencies do not mix", r,
                            d[k].simulated ? "simulates" : "measures on", d[k].name,
                            m->simulated ? "simulates" : "measures on GPUs");
         Unit *u = &m->units[m->nunits];
         u->rank = r;
         u->slot = k;
         u->device = d[k].device;
         const Device *profile = DeviceSet_find(m->cfg.devices, u->device.name);
         u->device.file = profile ? profile->file : NULL;
         snprintf(u->name, sizeof u->name, "%.36s@%d", d[k].name, r);
         if (m->nunits == 0) {
            m->simulated = d[k].simulated;
            m->remoteCompiles = d[k].compiles;
            snprintf(m->arch, sizeof m->arch, "%s", d[k].arch);
            snprintf(m->describe, sizeof m->describe, "MPI rank %d: %s", r, d[k].describe);
         }
         m->nunits++;
      }
   }
   return 0;
}

Measurer *Measurer_open(const MeasurerConfig *cfg, char **cause) {
   Measurer *m = xCalloc(1, sizeof *m);
   m->cfg = *cfg;
   LoopNest_init(&m->ln);
   m->maxUnits = cfg->mpi ? MEASURER_MAX_FLEET : MEASURER_MAX_DEVICES;
   m->units = xCalloc((size_t)m->maxUnits, sizeof *m->units);
   for (int i = 0; i < m->maxUnits; i++)
      LoopNest_init(&m->units[i].ln);
   const char *dev = cfg->device ? cfg->device : "auto";
   MeasurerFleet f;
   int rc = MeasurerFleet_parse(dev, &f, cause);
   if (rc == 0 && cfg->mpi) {
      rc = openRemote(m, cause);
   } else if (rc == 0 && f.kind == FLEET_SIM) {
      rc = openSimulators(m, &f, dev, cause);
   } else if (rc == 0 && f.kind == FLEET_CUDA) {
      rc = openGpus(m, &f, cause);
   } else if (rc == 0) {
      const char *simProfile = cfg->simProfile ? cfg->simProfile : MEASURER_DEFAULT_SIM_PROFILE;
      char *why = NULL;
      rc = openGpus(m, &f, &why);
      if (rc < 0) {
         m->note = xAsprintf("no CUDA GPU (%s): simulating %s", why, simProfile);
         free(why);
         closeUnits(m);
         f.kind = FLEET_SIM;
         snprintf(f.profiles[0], sizeof f.profiles[0], "%s", simProfile);
         rc = openSimulators(m, &f, "--sim-profile", cause);
      }
   }
   if (rc == 0)
      rc = checkFleet(m, cause);
   char *why = NULL;
   if (rc == 0 && cfg->counters && !m->simulated && Cupti_available(&why) < 0) {
      rc = setCause(cause, "--counters: a GPU's counters come from CUPTI's profiling API: %s; the simulator gives its "
                           "modelled ones (--device sim:PROFILE)",
                    why);
      free(why);
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
   closeUnits(m);
   for (int i = 0; i < m->maxUnits; i++)
      LoopNest_done(&m->units[i].ln);
   free(m->units);
   VerifyTask_free(m->vt);
   LoopNest_done(&m->ln);
   free(m->taskNote);
   free(m->retiredWhy);
   free(m->note);
   free(m);
}

bool Measurer_simulated(const Measurer *m) { return m->simulated; }
const Device *Measurer_device(const Measurer *m) { return &m->units[0].device; }
int Measurer_count(const Measurer *m) { return m->nunits; }
const char *Measurer_fleet(const Measurer *m) { return m->fleet; }
const char *Measurer_describe(const Measurer *m) { return m->describe; }
const char *Measurer_note(const Measurer *m) { return m->note; }
const char *Measurer_countersNote(const Measurer *m) { return m->countersWhy[0] ? m->countersWhy : NULL; }
const char *Measurer_arch(const Measurer *m) { return m->arch; }
bool Measurer_compiles(const Measurer *m) { return m->builder != NULL || m->remoteCompiles; }
const char *Measurer_unitName(const Measurer *m, int i) { return m->units[i].name; }
GpuState *Measurer_gpuState(const Measurer *m) { return m->units[0].gpuState; }
const char *Measurer_gpuNote(const Measurer *m) { return m->gpuNote; }

int Measurer_retired(const Measurer *m, const char **why) {
   *why = m->retiredWhy;
   return m->nretired;
}

/* Device i's name in its stats: "cuda:2", or "sim:h100_sxm#2" where devices share a name. */
static void statsName(const Measurer *m, int i, char *buf, size_t size) {
   const Unit *u = &m->units[i];
   bool shared = false;
   for (int k = 0; k < m->nunits; k++)
      shared |= k != i && strcmp(m->units[k].name, u->name) == 0;
   if (shared)
      snprintf(buf, size, "%.43s#%d", u->name, i + 1);
   else
      snprintf(buf, size, "%s", u->name);
}

void Measurer_deviceStats(const Measurer *m, int i, MeasurerDeviceStats *s) {
   const Unit *u = &m->units[i];
   statsName(m, i, s->name, sizeof s->name);
   s->measured = u->measured;
   s->failed = u->failed;
   s->busySeconds = u->busySeconds;
   s->retired = u->retired;
   s->why = u->retiredWhy;
}

bool Measurer_seedDeviceStats(Measurer *m, const MeasurerDeviceStats *from) {
   for (int i = 0; i < m->nunits; i++) {
      char name[sizeof from->name];
      statsName(m, i, name, sizeof name);
      if (strcmp(name, from->name) != 0)
         continue;
      m->units[i].measured += from->measured;
      m->units[i].failed += from->failed;
      m->units[i].busySeconds += from->busySeconds;
      return true;
   }
   return false;
}

/* The reasons that slow the GPU now; 0 without NVML. */
static unsigned slowingNow(Unit *u) {
   if (!u->gpuState)
      return 0;
   GpuSample s;
   GpuState_sample(u->gpuState, &s);
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

/* Under MPI: every live worker device sets the task up; the first that cannot says
 * why, and the first note is the task's. */
static int remoteSetTask(Measurer *m, const Task *task, char **cause) {
   WireBuf out, in;
   WireBuf_init(&out);
   WireBuf_init(&in);
   Wire_putStr(&out, task->key);
   for (int i = 0; i < m->nunits; i++)
      if (!m->units[i].retired)
         Mpi_send(m->units[i].rank, 1 + m->units[i].slot, MSG_MPI_TASK, &out);
   int rc = 0;
   for (int i = 0; i < m->nunits; i++) {
      const Unit *u = &m->units[i];
      if (u->retired)
         continue;
      uint32_t type = 0;
      Mpi_recv(u->rank, 1 + u->slot, &type, &in);
      uint32_t ok = Wire_getU32(&in);
      char *why = Wire_getStr(&in), *note = Wire_getStr(&in);
      if (type != MSG_MPI_TASK_DONE || !why || !note) {
         if (rc == 0)
            rc = setCause(cause, "MPI rank %d sent a malformed reply to task %s", u->rank, task->key);
      } else if (!ok) {
         if (rc == 0)
            rc = setCause(cause, "%s", why);
      } else if (*note && !m->taskNote) {
         m->taskNote = xStrdup(note);
      }
      free(why);
      free(note);
   }
   WireBuf_done(&out);
   WireBuf_done(&in);
   return rc;
}

int Measurer_setTask(Measurer *m, const Task *task, const SketchSet *set, char **cause) {
   m->task = task;
   m->set = set;
   VerifyTask_free(m->vt);
   m->vt = NULL;
   free(m->taskNote);
   m->taskNote = NULL;
   if (m->remote)
      return remoteSetTask(m, task, cause);
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
      for (int i = 0; i < m->nunits && rc == 0; i++) {
         char *why = NULL;
         if (!m->units[i].retired && Runner_setTask(m->units[i].runner, &t, &why) < 0) {
            rc = m->nunits > 1 ? setCause(cause, "task %d: %s: %s", task->id, m->units[i].name, why)
                               : setCause(cause, "task %d: %s", task->id, why);
            free(why);
         }
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
   o->outputError = NAN;
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

static void lower(const Measurer *m, const State *s, LoopNest *ln) {
   Lower_state(m->set, s, ln);
   Inject_apply(ln, m->cfg.inject);
}

/* Builds every state's program; the caller frees sources[i]. progs (may be NULL)
 * gets each program's launch description while its nest is at hand. */
static void buildAll(Measurer *m, const State *states, int n, BuildRequest *reqs, char **sources,
                     ProtoProgram *progs) {
   memset(reqs, 0, (size_t)n * sizeof *reqs);
   for (int i = 0; i < n; i++) {
      lower(m, &states[i], &m->ln);
      if (progs)
         describeProgram(&m->ln, &progs[i]);
      sources[i] = Cuda_generate(&m->ln, NULL);
      reqs[i].source = sources[i];
      reqs[i].name = "candidate.cu";
   }
   Builder_build(m->builder, reqs, n);
}

/* One batch as the devices share it: each takes the next state as it becomes free. */
typedef struct Batch_ {
   Measurer *m;
   const State *states;
   MeasureOutcome *out;
   BuildRequest *reqs;          /* NULL on the simulator without NVRTC */
   ProtoProgram *progs;         /* on a GPU */
   pthread_mutex_t lock;
   int next, n;
   int *retry;                  /* states a device's runner failed, to measure again */
   int nretry;
   int *failedOn;               /* per state: 1 + the device whose runner failed it; 0 */
} Batch;

static void noteCounters(Batch *b, const char *why) {
   pthread_mutex_lock(&b->lock);
   if (!b->m->countersWhy[0])
      snprintf(b->m->countersWhy, sizeof b->m->countersWhy, "%s", why);
   pthread_mutex_unlock(&b->lock);
}

static void measureOnGpu(Batch *b, Unit *u, int i) {
   MeasureOutcome *o = &b->out[i];
   outcomeInit(o);
   if (!takeBuild(&b->reqs[i], o))
      return;
   ProtoProgram *p = &b->progs[i];
   p->cubin = b->reqs[i].artifact->cubin;
   p->cubinSize = b->reqs[i].artifact->cubinSize;
   /* a Tensor-Core program rounds its operands: it may err by its precision's allowance */
   Precision prec = b->m->set->sketches[b->states[i].sketch].precision;
   p->tolerance = prec != PRECISION_FP32 && b->m->vt
                     ? b->m->cfg.runner.timing.tolerance + VerifyTask_allowance(b->m->vt, prec)
                     : 0;
   ProtoResult res;
   unsigned throttled = slowingNow(u);
   Runner_measure(u->runner, p, &res);
   throttled |= slowingNow(u);
   o->runSeconds = res.seconds;
   if (res.error != MEASURE_OK) {
      outcomeFail(o, res.error, res.message);
      o->checked = res.error == MEASURE_WRONG_ANSWER;
      return;
   }
   o->checked = true;
   o->outputError = res.rmsError;
   o->throttled = throttled;
   outcomeCosts(o, res.costs, res.ncosts);
   o->counters = res.counters;
   if (res.countersWhy[0])
      noteCounters(b, res.countersWhy);
}

static uint64_t mix64(uint64_t x) {
   x += 0x9e3779b97f4a7c15ull;
   x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
   x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
   return x ^ (x >> 31);
}

/* How long a GPU would have taken over a program of this latency: the build, the
 * launch and check, the warm-up and the repeats, each at least the minimum time. */
static double realtimeSeconds(const RunnerConfig *rc, double lat) {
   double s = MEASURER_REALTIME_BUILD_S + MEASURER_REALTIME_LAUNCH_S;
   if (lat > 0) {
      double repeat = rc->timing.minRepeatMs * 1e-3;
      s += rc->timing.warmup * lat + rc->timing.repeats * (lat > repeat ? lat : repeat);
   }
   return s;
}

static void sleepFor(double seconds) {
   struct timespec t = { (time_t)seconds, (long)((seconds - floor(seconds)) * 1e9) };
   while (nanosleep(&t, &t) < 0 && errno == EINTR)
      ;
}

/* The simulator's model of the program as counters (counters.h). */
static void simCounters(const SimReport *r, Counters *c) {
   CounterKernel k[IR_MAX_KERNELS];
   memset(k, 0, sizeof k);
   for (int i = 0; i < r->nkernels; i++) {
      const SimKernel *kr = &r->kernels[i];
      k[i] = (CounterKernel){
         .seconds = kr->seconds,
         .flops = kr->flops,
         .dramBytes = kr->dramBytes,
         .l2Requests = kr->l2Bytes,
         .l2Hits = fmax(kr->l2Bytes - kr->dramBytes, 0),
         .l1Requests = kr->l1Bytes,
         .l1Hits = kr->l1HitBytes,
         .sharedWavefronts = kr->sharedWavefronts,
         .sharedConflicts = kr->sharedWavefronts - kr->sharedIdeal,
         .instructions = kr->instructions,
         .ipc = kr->ipc,
         .occupancy = kr->occupancy,
         .waves = kr->waves,
         .bound = kr->bound,
         .known = COUNTERS_ALL_FIELDS,
      };
      for (int s = 0; s < SIM_STALL_COUNT; s++)
         k[i].stalls[Counters_stallIndex(SimStall_name((SimStall)s))] = kr->stallCycles[s];
   }
   Counters_combine(k, r->nkernels, true, c);
}

static void measureOnSim(Batch *b, Unit *u, int i) {
   Measurer *m = b->m;
   const RunnerConfig *rc = &m->cfg.runner;
   int every = m->cfg.simVerifyEvery > 0 ? m->cfg.simVerifyEvery : 1;
   MeasureOutcome *o = &b->out[i];
   outcomeInit(o);
   SimCompiled compiled[IR_MAX_KERNELS];
   const SimCompiled *ptxas[IR_MAX_KERNELS] = { NULL };
   if (b->reqs && !takeBuild(&b->reqs[i], o))
      return;
   double t0 = Clock_now();
   lower(m, &b->states[i], &u->ln);
   if (b->reqs)
      for (int k = 0; k < u->ln.nkernels; k++)
         for (int j = 0; j < b->reqs[i].artifact->nkernels; j++) {
            const NvrtcKernelInfo *ki = &b->reqs[i].artifact->kernels[j];
            if (strcmp(ki->name, u->ln.kernels[k].name) != 0)
               continue;
            compiled[k] = (SimCompiled){ ki->registers, ki->spillStores, ki->spillLoads, ki->stackBytes };
            ptxas[k] = &compiled[k];
         }
   uint64_t h = State_hash(&b->states[i]);
   SimReport report;
   SimProgram prog;
   char *why = NULL;
   memset(&report, 0, sizeof report);
   double lat = Sim_count(&u->gpu, &u->ln, ptxas, &prog, &why) < 0 ? -1
                                                                    : Sim_time(&u->gpu, &u->params, &prog, h, &report);
   if (lat < 0) {
      outcomeFail(o, MEASURE_LOAD_ERROR, why);
      free(why);
   } else if (lat * (1 + rc->timing.warmup) > rc->runTimeout) {
      char msg[256];
      snprintf(msg, sizeof msg, "the simulated program runs %.3g s per launch, beyond the run timeout of %g s", lat,
               rc->runTimeout);
      outcomeFail(o, MEASURE_RUN_TIMEOUT, msg);
   } else {
      bool check = m->vt && (m->cfg.inject != INJECT_NONE || mix64(h ^ m->cfg.seed) % (uint64_t)every == 0);
      VerifyResult vr;
      memset(&vr, 0, sizeof vr);
      if (check && Verify_loopNest(m->vt, &u->ln, m->cfg.seed ^ h, &vr) < 0) {
         bool executor = strncmp(vr.why, "CPU executor:", 13) == 0;
         outcomeFail(o, executor ? MEASURE_RUNTIME_ERROR : MEASURE_WRONG_ANSWER, vr.why);
      } else {
         double costs[PROTO_MAX_COSTS];
         int reps = rc->timing.repeats < PROTO_MAX_COSTS ? rc->timing.repeats : PROTO_MAX_COSTS;
         for (int r = 0; r < reps; r++) {
            double x = (double)(mix64(h + 0x51ed2701u * (uint64_t)(r + 1)) >> 11) * 0x1p-53;
            costs[r] = lat * (1.0 + SIM_REPEAT_NOISE * (x - 0.5));
         }
         outcomeCosts(o, costs, reps);
         if (check)
            o->outputError = vr.maxError;
         if (m->cfg.counters)
            simCounters(&report, &o->counters);
      }
      o->checked = check;
      VerifyResult_done(&vr);
   }
   if (o->registers < 0 && report.nkernels > 0) {
      for (int k = 0; k < report.nkernels; k++)
         if (report.kernels[k].registers > o->registers)
            o->registers = report.kernels[k].registers;
   }
   if (m->cfg.simRealtime) {
      double left = realtimeSeconds(rc, lat) - (Clock_now() - t0);
      if (left > 0)
         sleepFor(left);
   }
   o->runSeconds = Clock_now() - t0;
}

/* Under MPI: the state's text goes to the device's worker, and its outcome comes back. */
static void measureRemote(Batch *b, Unit *u, int i) {
   Measurer *m = b->m;
   MeasureOutcome *o = &b->out[i];
   char small[4096], *text = small;
   size_t need = State_format(m->set, &b->states[i], small, sizeof small);
   if (need >= sizeof small) {
      text = xMalloc(need + 1);
      State_format(m->set, &b->states[i], text, need + 1);
   }
   WireBuf out, in;
   WireBuf_init(&out);
   WireBuf_init(&in);
   Wire_putStr(&out, text);
   Wire_putU32(&out, m->cfg.counters);
   Mpi_send(u->rank, 1 + u->slot, MSG_MPI_STATE, &out);
   uint32_t type = 0;
   Mpi_recv(u->rank, 1 + u->slot, &type, &in);
   if (type != MSG_MPI_OUTCOME || Mpi_getOutcome(&in, o) < 0) {
      outcomeInit(o);
      char msg[128];
      snprintf(msg, sizeof msg, "MPI rank %d sent a malformed outcome", u->rank);
      outcomeFail(o, MEASURE_UNKNOWN_ERROR, msg);
   }
   WireBuf_done(&out);
   WireBuf_done(&in);
   if (text != small)
      free(text);
}

/* Whether the runner failed the program itself (not its build, not its answer). */
static bool runnerFailed(const MeasureOutcome *o) {
   return o->error == MEASURE_RUNTIME_ERROR || o->error == MEASURE_RUN_TIMEOUT || o->error == MEASURE_LOAD_ERROR;
}

static int liveUnits(const Measurer *m) {
   int live = 0;
   for (int i = 0; i < m->nunits; i++)
      live += !m->units[i].retired;
   return live;
}

static void retireFailing(Batch *b, Unit *u);

/* Under the batch's lock: counts the outcome and the device's failures in a row. */
static void tally(Batch *b, Unit *u, int i, double seconds) {
   Measurer *m = b->m;
   u->measured++;
   u->busySeconds += seconds;
   bool runner = !m->simulated && runnerFailed(&b->out[i]);
   if (runner && b->failedOn[i] == 0 && liveUnits(m) >= 2) {
      /* maybe this GPU's fault: another measures the state again, once */
      b->failedOn[i] = (int)(u - m->units) + 1;
      b->retry[b->nretry++] = i;
      u->failed++;
      if (u->failStreak++ == 0)
         u->okBefore = m->measuredOk;
      snprintf(u->lastFailure, sizeof u->lastFailure, "%s", b->out[i].message);
      retireFailing(b, u);
      return;
   }
   u->failed += b->out[i].error != MEASURE_OK;
   if (b->out[i].error == MEASURE_OK)
      m->measuredOk++;
   /* a program that failed on two GPUs is its own fault, not this one's */
   if (!runner)
      u->failStreak = 0;
}

/* Retires u when it has failed at least MEASURER_RETIRE_AFTER programs in a row while
 * another device measured one; the states it failed go to the others again. */
static void retireFailing(Batch *b, Unit *u) {
   Measurer *m = b->m;
   if (u->retired || u->failStreak < MEASURER_RETIRE_AFTER || m->measuredOk == u->okBefore || liveUnits(m) < 2)
      return;
   u->retired = true;
   m->nretired++;
   char *why = xAsprintf("%s is retired: it failed %d or more programs in a row while other GPUs measured theirs "
                         "(last: %s)", u->name, MEASURER_RETIRE_AFTER, u->lastFailure);
   char *all = m->retiredWhy ? xAsprintf("%s; %s", m->retiredWhy, why) : xStrdup(why);
   u->retiredWhy = why;
   free(m->retiredWhy);
   m->retiredWhy = all;
   u->failStreak = 0;
}

/* The next state for u, or -1: first one to measure again that u's runner did not
 * fail (any, when u is the last device), then the batch's next. */
static int takeNext(Batch *b, const Unit *u) {
   if (u->retired)
      return -1;
   int self = (int)(u - b->m->units) + 1;
   bool others = liveUnits(b->m) >= 2;
   for (int k = b->nretry - 1; k >= 0; k--) {
      int i = b->retry[k];
      if (others && b->failedOn[i] == self)
         continue;
      b->retry[k] = b->retry[--b->nretry];
      return i;
   }
   return b->next < b->n ? b->next++ : -1;
}

static void runUnit(Batch *b, Unit *u) {
   for (;;) {
      pthread_mutex_lock(&b->lock);
      int i = takeNext(b, u);
      pthread_mutex_unlock(&b->lock);
      if (i < 0)
         return;
      double t0 = Clock_now();
      if (u->rank > 0)
         measureRemote(b, u, i);
      else if (b->m->simulated)
         measureOnSim(b, u, i);
      else
         measureOnGpu(b, u, i);
      double seconds = Clock_now() - t0;
      b->out[i].device = (int)(u - b->m->units);
      pthread_mutex_lock(&b->lock);
      tally(b, u, i, seconds);
      pthread_mutex_unlock(&b->lock);
   }
}

typedef struct {
   Batch *b;
   Unit *u;
} UnitJob;

static void *unitThread(void *arg) {
   UnitJob *j = arg;
   runUnit(j->b, j->u);
   return NULL;
}

/* Every live device measures on its own thread until the batch is done; a state a
 * device's runner failed goes round again, to another device. */
static void runBatch(Batch *b) {
   Measurer *m = b->m;
   pthread_mutex_init(&b->lock, NULL);
   b->retry = xCalloc((size_t)b->n + 1, sizeof *b->retry);
   b->failedOn = xCalloc((size_t)b->n + 1, sizeof *b->failedOn);
   do {
      if (liveUnits(m) == 1) {
         for (int k = 0; k < m->nunits; k++)
            if (!m->units[k].retired)
               runUnit(b, &m->units[k]);
         continue;
      }
      pthread_t *threads = xCalloc((size_t)m->nunits, sizeof *threads);
      UnitJob *jobs = xCalloc((size_t)m->nunits, sizeof *jobs);
      bool *started = xCalloc((size_t)m->nunits, sizeof *started);
      for (int k = 0; k < m->nunits; k++) {
         if (m->units[k].retired)
            continue;
         jobs[k] = (UnitJob){ b, &m->units[k] };
         started[k] = pthread_create(&threads[k], NULL, unitThread, &jobs[k]) == 0;
         if (started[k])
            pthread_setname_np(threads[k], "measure");   /* top -H, htop */
         else
            runUnit(b, &m->units[k]);
      }
      for (int k = 0; k < m->nunits; k++)
         if (started[k])
            pthread_join(threads[k], NULL);
      free(started);
      free(jobs);
      free(threads);
      /* a device whose streak began before the others measured anything */
      for (int k = 0; k < m->nunits; k++)
         retireFailing(b, &m->units[k]);
   } while (b->nretry > 0 || b->next < b->n);
   free(b->failedOn);
   free(b->retry);
   pthread_mutex_destroy(&b->lock);
}

const char *Measurer_taskNote(const Measurer *m) {
   return m->taskNote;
}

void Measurer_setInject(Measurer *m, InjectKind k) {
   m->cfg.inject = k;
}

bool Measurer_setCounters(Measurer *m, bool on) {
   char *why = NULL;
   /* under MPI every state sent says whether its counters are wanted: the worker's
    * measurer answers for what its devices can give */
   if (on && !m->remote && !m->simulated && Cupti_available(&why) < 0) {
      char *cupti = why;
      why = xAsprintf("a GPU's counters come from CUPTI's profiling API: %s", cupti);
      free(cupti);
   }
   if (why) {
      if (!m->countersWhy[0])
         snprintf(m->countersWhy, sizeof m->countersWhy, "%s", why);
      free(why);
      return false;
   }
   m->cfg.counters = on;
   for (int i = 0; i < m->nunits; i++)
      if (m->units[i].runner)
         Runner_setCounters(m->units[i].runner, on);
   return true;
}

void Measurer_measure(Measurer *m, const State *states, int n, MeasureOutcome *out) {
   Batch b = { .m = m, .states = states, .out = out, .n = n };
   char **sources = NULL;
   if (m->builder) {
      b.reqs = xCalloc((size_t)n, sizeof *b.reqs);
      sources = xCalloc((size_t)n, sizeof *sources);
      if (!m->simulated)
         b.progs = xCalloc((size_t)n, sizeof *b.progs);
      buildAll(m, states, n, b.reqs, sources, b.progs);
   }
   runBatch(&b);
   free(b.progs);
   freeBuilds(b.reqs, sources, n);
}

void Measurer_record(const Measurer *m, const State *s, const MeasureOutcome *o, Record *r) {
   memset(r, 0, sizeof *r);
   char text[4096];
   State_format(m->set, s, text, sizeof text);
   r->version = RECORD_FORMAT_VERSION;
   r->task = xStrdup(m->task->key);
   /* in a mixed fleet, the profile of the device that measured it */
   int d = o->device >= 0 && o->device < m->nunits ? o->device : 0;
   r->device = xStrdup(m->units[d].device.name);
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
   if (o->error == MEASURE_OK)
      r->counters = o->counters;
}
