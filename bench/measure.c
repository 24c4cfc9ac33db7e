/* Benchmark of measurement over a network's task mix, in two sections that main runs
 * in turn (either may be left out):
 *
 * - the simulator: per core, on the same valid states of every task (each task in
 *   turn), lowering alone, lowering plus the simulator's latency (no ptxas report, so
 *   registers are estimated), and, on the first few states of each task, lowering plus
 *   the CPU verification that the simulator-backed measurer runs on 1 state in 8.
 *   Times are this thread's CPU time.
 * - the builder: the build pool's compile throughput (kernels per second, NVRTC, cache
 *   off) on one thread and on every core, side by side on the same distinct programs.
 *   Throughput is wall time: the work is spread over threads. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "codegen/cuda.h"
#include "device/device.h"
#include "ir/lower.h"
#include "measure/builder.h"
#include "sim/sim.h"
#include "measure/verify.h"
#include "te/network.h"
#include "util/paths.h"
#include "util/xalloc.h"
#include "mix.h"

/* Every program of the run: up to perTask states of each task, lowered and generated,
 * no two sources alike. */
typedef struct {
   int n;
   char **sources;
   char **names;
} Programs;

static double wallSeconds(void) {
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double processCpuSeconds(void) {
   struct timespec ts;
   clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
   return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static bool seenBefore(const Programs *p, const char *source) {
   for (int i = 0; i < p->n; i++)
      if (strcmp(p->sources[i], source) == 0)
         return true;
   return false;
}

static void Programs_done(Programs *p) {
   for (int i = 0; i < p->n; i++) {
      free(p->sources[i]);
      free(p->names[i]);
   }
   free(p->sources);
   free(p->names);
}

static int Programs_make(Programs *p, const BenchMix *mix, int perTask) {
   const Network *net = &mix->net;
   int cap = net->ntasks * perTask;
   p->n = 0;
   p->sources = xCalloc((size_t)cap, sizeof *p->sources);
   p->names = xCalloc((size_t)cap, sizeof *p->names);
   SchedLimits lim;
   SchedLimits_default(&lim);
   Rng rng;
   Rng_seed(&rng, 1);
   LoopNest ln;
   LoopNest_init(&ln);
   char *cause = NULL;
   for (int t = 0; t < net->ntasks; t++) {
      /* a task with few knobs (the pools) may have fewer distinct programs */
      for (int i = 0, misses = 0; i < perTask && misses < 1000;) {
         State s;
         if (State_sampleValid(&mix->sets[t], -1, &rng, &lim, 1000000, &s, &cause) < 0) {
            fprintf(stderr, "task %d: %s\n", t, cause);
            free(cause);
            LoopNest_done(&ln);
            Programs_done(p);
            return -1;
         }
         Lower_state(&mix->sets[t], &s, &ln);
         char *src = Cuda_generate(&ln, NULL);
         if (seenBefore(p, src)) {
            free(src);
            misses++;
            continue;
         }
         p->sources[p->n] = src;
         p->names[p->n] = xAsprintf("task%d_%d.cu", t, i);
         p->n++;
         i++;
      }
   }
   LoopNest_done(&ln);
   return 0;
}

typedef struct {
   int threads;
   double wall, cpu;
   BuilderStats stats;
} BuildRun;

/* Every program through a fresh pool of `threads` with the cache off; -1 when the pool
 * does not start. */
static int buildAll(const Programs *p, const char *arch, int threads, BuildRun *run) {
   BuilderConfig cfg;
   BuilderConfig_default(&cfg);
   cfg.threads = threads;
   snprintf(cfg.arch, sizeof cfg.arch, "%s", arch);
   cfg.cacheEntries = 0;
   /* long enough that every compile runs to the end: throughput, not Ansor's cut-off */
   cfg.timeoutSeconds = 600;
   char *cause = NULL;
   Builder *b = Builder_new(&cfg, &cause);
   if (!b) {
      printf("builder: not measured: %s\n", cause);
      free(cause);
      return -1;
   }
   BuildRequest *reqs = xCalloc((size_t)p->n, sizeof *reqs);
   for (int i = 0; i < p->n; i++) {
      reqs[i].source = p->sources[i];
      reqs[i].name = p->names[i];
   }
   double w0 = wallSeconds(), c0 = processCpuSeconds();
   Builder_build(b, reqs, p->n);
   run->wall = wallSeconds() - w0;
   run->cpu = processCpuSeconds() - c0;
   run->threads = Builder_threads(b);
   Builder_stats(b, &run->stats);
   bool told = false;
   for (int i = 0; i < p->n; i++) {
      if (reqs[i].error != MEASURE_OK && !told) {
         fprintf(stderr, "first failure: %s\n", reqs[i].message);
         told = true;
      }
      BuildRequest_done(&reqs[i]);
   }
   free(reqs);
   Builder_free(b);
   return 0;
}

static void builderSection(const Programs *p, const char *arch) {
   int major = 0, minor = 0;
   if (Nvrtc_version(&major, &minor) < 0) {
      char *cause = NULL;
      Nvrtc_open(&cause);
      printf("builder: not measured: %s\n", cause);
      free(cause);
      return;
   }
   /* NVRTC's first compile in a process pays for loading its builtins: not timed. */
   BuildRun warm;
   Programs first = { 1, p->sources, p->names };
   if (buildAll(&first, arch, 1, &warm) < 0)
      return;
   long cores = sysconf(_SC_NPROCESSORS_ONLN);
   int counts[2] = { 1, cores > 1 ? (int)cores : 1 };
   BuildRun runs[2];
   for (int k = 0; k < 2; k++)
      if (buildAll(p, arch, counts[k], &runs[k]) < 0)
         return;
   printf("builder: NVRTC %d.%d, %s, %d distinct kernels, cache off\n", major, minor, arch, p->n);
   printf("  %-8s %10s %12s %10s %8s %8s %8s\n", "threads", "wall s", "kernels/s", "CPU s",
          "speedup", "errors", "timeouts");
   for (int k = 0; k < 2; k++) {
      const BuildRun *r = &runs[k];
      printf("  %-8d %10.2f %12.2f %10.2f %7.2fx %8ld %8ld\n", r->threads, r->wall,
             p->n / r->wall, r->cpu, runs[0].wall / r->wall, r->stats.errors, r->stats.timeouts);
   }
   printf("  mean NVRTC wall time per kernel: %.3f s on 1 thread, %.3f s on %d\n",
          runs[0].stats.compileSeconds / p->n, runs[1].stats.compileSeconds / p->n,
          runs[1].threads);
}

/* The simulator's device: the H100 of the builder's default sm_90. */
#define SIM_DEVICE "h100_sxm"
/* As the measurer: blocks of the last kernel the CPU check samples besides the first
 * and last, the inputs' seed, and 1 state in SIM_VERIFY_EVERY checked. */
#define SIM_VERIFY_BLOCKS 4
#define SIM_VERIFY_SEED 1
#define SIM_VERIFY_EVERY 8

typedef struct {
   int perTask;                 /* valid states of each task: lowering and the simulator */
   int verifyPerTask;           /* the first of them that are verified */
   int repeats;                 /* of the lowering and simulator modes; the best counts */
} SimOptions;

static int loadDevice(DeviceSet *set, const Device **d) {
   char *cause = NULL;
   char *path = Paths_dataFile("devices.yaml");
   DeviceSet_init(set);
   if (!path) {
      printf("simulator: not measured: devices.yaml was not found\n");
      return -1;
   }
   int rc = DeviceSet_load(set, path, &cause);
   free(path);
   if (rc < 0) {
      printf("simulator: not measured: %s\n", cause);
      free(cause);
      return -1;
   }
   *d = DeviceSet_find(set, SIM_DEVICE);
   if (!*d) {
      printf("simulator: not measured: devices.yaml has no %s\n", SIM_DEVICE);
      return -1;
   }
   return 0;
}

enum { LOWER_ONLY, WITH_SIM, SIM_MODES };

static int simSection(const BenchMix *mix, const SimOptions *o) {
   const Network *net = &mix->net;
   DeviceSet devices;
   const Device *dev = NULL;
   if (loadDevice(&devices, &dev) < 0) {
      DeviceSet_done(&devices);
      return 0;
   }
   int perTask = o->perTask;
   int verifyPerTask = o->verifyPerTask < perTask ? o->verifyPerTask : perTask;
   size_t n = (size_t)net->ntasks * (size_t)perTask;
   State *states = xCalloc(n, sizeof *states);
   uint64_t *hashes = xCalloc(n, sizeof *hashes);
   SchedLimits lim;
   SchedLimits_default(&lim);
   Rng rng;
   Rng_seed(&rng, 1);
   char *cause = NULL;
   for (int t = 0; t < net->ntasks; t++)
      for (int i = 0; i < perTask; i++) {
         size_t k = (size_t)t * perTask + i;
         if (State_sampleValid(&mix->sets[t], -1, &rng, &lim, 1000000, &states[k], &cause) < 0) {
            fprintf(stderr, "task %d: %s\n", t, cause);
            free(cause);
            free(hashes);
            free(states);
            DeviceSet_done(&devices);
            return -1;
         }
         hashes[k] = State_hash(&states[k]);
      }
   LoopNest ln;
   LoopNest_init(&ln);
   SimReport report;
   double sink = 0;
   long unrunnable = 0;
   char *firstUnrunnable = NULL;
   /* warm the caches and the loop nest's memory once; count the states the device
    * cannot run (Sim_latency's -1: too many threads, registers or shared memory) */
   for (int t = 0; t < net->ntasks; t++)
      for (int i = 0; i < perTask; i++) {
         size_t k = (size_t)t * perTask + i;
         Lower_state(&mix->sets[t], &states[k], &ln);
         char *why = NULL;
         if (Sim_latency(dev, &ln, NULL, hashes[k], &report, &why) < 0) {
            unrunnable++;
            if (!firstUnrunnable)
               firstUnrunnable = why;
            else
               free(why);
         }
      }
   double best[SIM_MODES];
   for (int m = 0; m < SIM_MODES; m++) {
      best[m] = 1e30;
      for (int r = 0; r < o->repeats; r++) {
         double t0 = Bench_cpuSeconds();
         for (int t = 0; t < net->ntasks; t++)
            for (int i = 0; i < perTask; i++) {
               size_t k = (size_t)t * perTask + i;
               Lower_state(&mix->sets[t], &states[k], &ln);
               if (m == LOWER_ONLY) {
                  sink += ln.nstmt;
               } else {
                  char *why = NULL;
                  double lat = Sim_latency(dev, &ln, NULL, hashes[k], &report, &why);
                  if (lat < 0)
                     free(why);
                  else
                     sink += lat;
               }
            }
         double dt = Bench_cpuSeconds() - t0;
         if (dt < best[m])
            best[m] = dt;
      }
   }
   /* the CPU check: each task's inputs and reference made once (not timed per state),
    * then the first verifyPerTask states of each task lowered and verified, once */
   double setup = 0, verifyTime = 0, lowerTime = 0, slowest = 0;
   long verified = 0, mismatches = 0, fullGridTasks = 0;
   int64_t blocksRun = 0, blocksGrid = 0;
   char *firstMismatch = NULL;
   for (int t = 0; t < net->ntasks && verifyPerTask > 0; t++) {
      const Task *task = &net->tasks[t];
      bool full = task->flops <= VERIFY_FULL_FLOPS;
      fullGridTasks += full;
      double s0 = Bench_cpuSeconds();
      VerifyTask *vt = VerifyTask_new(&task->op, SIM_VERIFY_SEED, VERIFY_TOLERANCE, SIM_VERIFY_BLOCKS, full);
      setup += Bench_cpuSeconds() - s0;
      for (int i = 0; i < verifyPerTask; i++) {
         size_t k = (size_t)t * perTask + i;
         double t0 = Bench_cpuSeconds();
         Lower_state(&mix->sets[t], &states[k], &ln);
         double t1 = Bench_cpuSeconds();
         VerifyResult vr;
         memset(&vr, 0, sizeof vr);
         int rc = Verify_loopNest(vt, &ln, SIM_VERIFY_SEED ^ hashes[k], &vr);
         double t2 = Bench_cpuSeconds();
         lowerTime += t1 - t0;
         verifyTime += t2 - t0;
         if (t2 - t0 > slowest)
            slowest = t2 - t0;
         verified++;
         blocksRun += vr.blocksRun;
         blocksGrid += vr.grid;
         if (rc < 0) {
            mismatches++;
            if (!firstMismatch)
               firstMismatch = xAsprintf("task %d state %d: %s", t, i, vr.why);
         }
         VerifyResult_done(&vr);
      }
      VerifyTask_free(vt);
   }

   static const char *const what[SIM_MODES] = { "lowering alone", "lowering + Sim_latency (no ptxas report)" };
   printf("simulator: %s (%s), %d valid states of each task (%zu states), best of %d runs\n", dev->name,
          dev->product, perTask, n, o->repeats);
   for (int m = 0; m < SIM_MODES; m++)
      printf("  %-46s %8.3f s  %9.0f states/s per core\n", what[m], best[m], (double)n / best[m]);
   printf("  the simulator alone: %.2f us per state, %.2fx a lowering\n",
          1e6 * (best[WITH_SIM] - best[LOWER_ONLY]) / (double)n, (best[WITH_SIM] - best[LOWER_ONLY]) / best[LOWER_ONLY]);
   printf("  states the device cannot run (Sim_latency -1): %ld of %zu%s%s\n", unrunnable, n,
          firstUnrunnable ? "; first: " : "", firstUnrunnable ? firstUnrunnable : "");
   if (verified > 0) {
      double perState = verifyTime / (double)verified;
      double checkOnly = (verifyTime - lowerTime) / (double)verified;
      double simPerState = best[WITH_SIM] / (double)n;
      printf("  %-46s %8.3f s  %9.2f states/s per core (%ld states: the first %d of each task)\n",
             "lowering + Verify_loopNest (CPU check)", verifyTime, 1.0 / perState, verified, verifyPerTask);
      printf("  CPU check: mean %.1f ms, slowest %.1f ms per state; %ld of %d tasks over the whole grid, "
             "the others sampled; last-kernel blocks run: %lld of %lld; %ld mismatches%s%s\n",
             1e3 * perState, 1e3 * slowest, fullGridTasks, net->ntasks, (long long)blocksRun, (long long)blocksGrid,
             mismatches, firstMismatch ? "; first: " : "", firstMismatch ? firstMismatch : "");
      printf("  inputs and reference output of the %d tasks (once per task): %.3f s\n", net->ntasks, setup);
      printf("  lowering + Sim_latency + the check on 1 state in %d: %.1f states/s per core "
             "(from the per-state times above)\n",
             SIM_VERIFY_EVERY, 1.0 / (simPerState + checkOnly / SIM_VERIFY_EVERY));
   }
   printf("  (checksum %.3g)\n", sink);
   free(firstUnrunnable);
   free(firstMismatch);
   LoopNest_done(&ln);
   free(hashes);
   free(states);
   DeviceSet_done(&devices);
   return 0;
}

static int usage(void) {
   fprintf(stderr, "usage: bench-measure [--sim-only | --builder-only] [TASK FILE] [programs per task] [arch] "
                   "[simulated states per task] [verified states per task] [repeats]\n");
   return 2;
}

int main(int argc, char **argv) {
   bool doSim = true, doBuilder = true;
   int a = 1;
   for (; a < argc && strncmp(argv[a], "--", 2) == 0; a++) {
      if (strcmp(argv[a], "--sim-only") == 0)
         doBuilder = false;
      else if (strcmp(argv[a], "--builder-only") == 0)
         doSim = false;
      else
         return usage();
   }
   if (!doSim && !doBuilder)
      return usage();
   argc -= a - 1;
   argv += a - 1;
   const char *file = argc > 1 ? argv[1] : "models/resnet_50.task";
   int perTask = argc > 2 ? atoi(argv[2]) : 4;
   const char *arch = argc > 3 ? argv[3] : "sm_90";
   SimOptions so = { argc > 4 ? atoi(argv[4]) : 2000, argc > 5 ? atoi(argv[5]) : 4, argc > 6 ? atoi(argv[6]) : 3 };
   if (perTask < 1 || so.perTask < 1 || so.verifyPerTask < 0 || so.repeats < 1) {
      fprintf(stderr, "bench-measure: programs and simulated states per task, and repeats, must be 1 or more; "
                      "verified states per task 0 or more\n");
      return usage();
   }
   BenchMix mix;
   if (BenchMix_load(&mix, file) < 0)
      return 1;
   printf("task mix: %s, %d tasks\n", mix.net.name, mix.net.ntasks);
   int rc = 0;
   if (doSim && simSection(&mix, &so) < 0)
      rc = 1;
   if (doBuilder && rc == 0) {
      Programs programs;
      if (Programs_make(&programs, &mix, perTask) < 0) {
         rc = 1;
      } else {
         printf("builder: up to %d distinct programs per task: %d programs\n", perTask, programs.n);
         builderSection(&programs, arch);
         Programs_done(&programs);
      }
   }
   BenchMix_done(&mix);
   return rc;
}
