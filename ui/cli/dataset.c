/* `pruner-tui dataset`: TenSet's data collection. For the tasks of one or more task
 * files it samples states, measures them on a GPU or the simulator and appends the
 * records to one file, the training set of `pruner-tui train`.
 *
 * Each task gets --states N records of the device. They are measured in batches: the
 * first batch of a task is random states (a random sketch, Ansor's random annotation);
 * in each later one a share (--evolved) are mutants of the task's fastest measured
 * states, as TenSet adds evolved programs to its random ones, so that the records
 * cover the good end of the space a model has to rank, and the rest are random. No
 * state is measured twice for a task.
 *
 * The records file is the only state: a rerun reads it, counts each task's records of
 * this device, and goes on from there. A batch's generator is seeded from the seed,
 * the task and the number of its records already there, and its parents are the
 * records themselves, so that a run killed at any point and run again neither repeats
 * a record (the states already there are skipped) nor loses one (each batch is
 * flushed and synced before the next starts; RecordWriter removes a line cut short). */
#include "config.h"

#include "cli.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/featurize.h"
#include "measure/measurer.h"
#include "measure/record.h"
#include "search/stateset.h"
#include "util/clock.h"
#include "util/kmeans.h"
#include "util/rng.h"

#define DATASET_MAX_FILES 64
/* Mutations a parent goes through at most to make one evolved state */
#define DATASET_MAX_MUTATIONS 3
/* --select cluster: the pool k-means chooses from, in states per state chosen, and at
 * most */
#define DATASET_POOL 8
#define DATASET_POOL_MAX 4096
/* The fastest measured states of a task that evolved states descend from */
#define DATASET_PARENTS 16
/* The simulator checks 1 state in this many on the CPU executor: practically none, as
 * a check of a large task costs a hundred times its simulation, and pruner-tui check
 * is the tool that tests the generated kernels */
#define DATASET_SIM_VERIFY_EVERY 1000000

/* One task to collect: the first task file that has its key. */
typedef struct DatasetTask_ {
   const Task *task;
   const char *network;         /* the file it is taken from */
   int have;                    /* records of it on this device in the file */
} DatasetTask;

/* A task's measured states on this device, from the file and from this run. */
typedef struct Measured_ {
   StateSet seen;               /* every state, failed ones too */
   int n, cap;
   State *ok;                   /* the successes, with their costs */
   double *cost;
} Measured;

static void Measured_init(Measured *m) {
   memset(m, 0, sizeof *m);
   StateSet_init(&m->seen);
}

static void Measured_done(Measured *m) {
   StateSet_done(&m->seen);
   free(m->ok);
   free(m->cost);
}

static void Measured_add(Measured *m, const State *s, double cost) {
   bool added;
   StateSet_add(&m->seen, s, &added);
   if (!added || cost >= MEASURE_FAILED_COST)
      return;
   if (m->n == m->cap) {
      m->cap = m->cap ? 2 * m->cap : 64;
      m->ok = xRealloc(m->ok, (size_t)m->cap * sizeof *m->ok);
      m->cost = xRealloc(m->cost, (size_t)m->cap * sizeof *m->cost);
   }
   m->ok[m->n] = *s;
   m->cost[m->n++] = cost;
}

/* The indices of the `k` cheapest successes into best[], cheapest first; how many. */
static int Measured_best(const Measured *m, int *best, int k) {
   int n = 0;
   for (int i = 0; i < m->n; i++) {
      if (n == k && !(m->cost[i] < m->cost[best[k - 1]]))
         continue;
      int j = n < k ? n++ : k - 1;
      while (j > 0 && m->cost[i] < m->cost[best[j - 1]]) {
         best[j] = best[j - 1];
         j--;
      }
      best[j] = i;
   }
   return n;
}

/* FNV-1a of the task key: a task's own stream of random numbers, whatever its place */
static uint64_t keyHash(const char *key) {
   uint64_t h = 1469598103934665603ull;
   for (; *key; key++)
      h = (h ^ (unsigned char)*key) * 1099511628211ull;
   return h;
}

/* Up to n new states for the task: evolved ones first (when there are parents), then
 * random ones; none measured before nor twice. Returns how many it found. */
static int makeBatch(const SketchSet *set, const SchedLimits *lim, const Measured *m, double evolved, Rng *rng,
                     State *out, int n) {
   StateSet batch;
   StateSet_init(&batch);
   int best[DATASET_PARENTS];
   int nbest = Measured_best(m, best, DATASET_PARENTS);
   int nevolved = nbest ? (int)lround(evolved * n) : 0;
   int k = 0;
   for (int tries = 0; k < nevolved && tries < 50 * n; tries++) {
      State s = m->ok[best[Rng_below(rng, (uint64_t)nbest)]];
      int steps = 1 + (int)Rng_below(rng, DATASET_MAX_MUTATIONS);
      bool changed = false;
      for (int i = 0; i < steps; i++)
         changed |= State_mutate(set, &s, rng, lim) == 0;
      bool added;
      if (!changed || StateSet_contains(&m->seen, &s) || StateSet_add(&batch, &s, &added) < 0 || !added)
         continue;
      out[k++] = s;
   }
   for (int tries = 0; k < n && tries < 50 * n; tries++) {
      State s;
      char *cause = NULL;
      if (State_sampleValid(set, -1, rng, lim, 100000, &s, &cause) < 0) {
         free(cause);
         break;
      }
      bool added;
      if (StateSet_contains(&m->seen, &s) || StateSet_add(&batch, &s, &added) < 0 || !added)
         continue;
      out[k++] = s;
   }
   StateSet_done(&batch);
   return k;
}

/* --select cluster: up to `want` new states of the task, the representatives that
 * k-means chooses among a pool of DATASET_POOL x want random ones (at most
 * DATASET_POOL_MAX) over their features: each state's feature rows averaged, every
 * column divided by its largest magnitude in the pool. They spread over the space
 * where random ones bunch. Returns how many (the pool's size when it is no larger). */
static int clusterSelect(Featurizer *fz, const Task *task, const SketchSet *set, const SchedLimits *lim,
                         const Measured *m, Rng *rng, State *out, int want) {
   int cap = want > DATASET_POOL_MAX / DATASET_POOL ? DATASET_POOL_MAX : want * DATASET_POOL;
   if (cap < want)
      cap = want;
   State *pool = xCalloc((size_t)cap, sizeof *pool);
   int n = makeBatch(set, lim, m, 0, rng, pool, cap);
   if (n <= want) {
      memcpy(out, pool, (size_t)n * sizeof *pool);
      free(pool);
      return n;
   }
   Dataset d;
   Dataset_init(&d);
   for (int i = 0; i < n; i++)
      Featurizer_addState(fz, task, set, &pool[i], NULL, &d);
   float *x = xCalloc((size_t)n * FEATURE_LEN, sizeof *x), scale[FEATURE_LEN] = { 0 };
   for (int i = 0; i < n; i++) {
      int rows = Dataset_rows(&d, i);
      for (int r = 0; r < rows; r++)
         for (int c = 0; c < FEATURE_LEN; c++)
            x[(size_t)i * FEATURE_LEN + c] += Dataset_row(&d, i, r)[c] / (float)rows;
      for (int c = 0; c < FEATURE_LEN; c++)
         scale[c] = fmaxf(scale[c], fabsf(x[(size_t)i * FEATURE_LEN + c]));
   }
   for (int i = 0; i < n; i++)
      for (int c = 0; c < FEATURE_LEN; c++)
         if (scale[c] > 0)
            x[(size_t)i * FEATURE_LEN + c] /= scale[c];
   int *chosen = xCalloc((size_t)want, sizeof *chosen);
   int k = KMeans_select(x, n, FEATURE_LEN, want, Rng_next(rng), chosen);
   for (int j = 0; j < k; j++)
      out[j] = pool[chosen[j]];
   free(chosen);
   free(x);
   Dataset_done(&d);
   free(pool);
   return k;
}

/* "1h02m", "3m07s", "12s" */
static void formatDuration(double s, char *buf, size_t size) {
   long t = lround(s);
   if (t >= 3600)
      snprintf(buf, size, "%ldh%02ldm", t / 3600, t / 60 % 60);
   else if (t >= 60)
      snprintf(buf, size, "%ldm%02lds", t / 60, t % 60);
   else
      snprintf(buf, size, "%lds", t);
}

/* The progress line: a bar on a terminal, redrawn in place; elsewhere a line per task
 * (final). */
typedef struct DatasetProgress_ {
   bool tty;
   long total, before, done;    /* records wanted, there at the start, written since */
   int tasks, task;
   double t0;
} DatasetProgress;

static void showProgress(const DatasetProgress *p, const char *what, bool final) {
   if (!p->tty && !final)
      return;
   long have = p->before + p->done;
   double frac = p->total ? (double)have / (double)p->total : 1;
   double elapsed = Clock_now() - p->t0;
   char eta[32] = "-";
   if (p->done > 0 && have < p->total)
      formatDuration(elapsed / (double)p->done * (double)(p->total - have), eta, sizeof eta);
   else if (have >= p->total)
      snprintf(eta, sizeof eta, "0s");
   if (p->tty) {
      char bar[25];
      int filled = (int)(frac * 24);
      for (int i = 0; i < 24; i++)
         bar[i] = i < filled ? '#' : '-';
      bar[24] = 0;
      fprintf(stderr, "\r[%s] %5.1f%%  %ld/%ld records  task %d/%d  %.0f/s  ETA %s  %-24.24s\033[K", bar,
              100 * frac, have, p->total, p->task, p->tasks, elapsed > 0 ? (double)p->done / elapsed : 0, eta,
              what);
      if (final)
         fputc('\n', stderr);
   } else {
      fprintf(stderr, "task %d/%d %s: %ld/%ld records (%.1f%%), ETA %s\n", p->task, p->tasks, what, have, p->total,
              100 * frac, eta);
   }
}

static const CliOption datasetOptions[] = {
   { "out", 'o', "FILE", "the records file to append to (pruner-tui-records(5)); made when missing" },
   { "states", 'n', "N", "records per task on the device, those already in the file included (default 200)" },
   { "evolved", 'e', "F",
     "the share of each batch after a task's first made by mutating its fastest measured states (0 to 1, "
     "default 0.5); the rest are random" },
   { "per-batch", 'B', "N", "states measured, then appended and synced, at a time (default 32)" },
   { "select", 'S', "HOW",
     "random (default: random states, and mutants of the fastest after a task's first batch) or cluster: the "
     "states still wanted of each task chosen at once by k-means over the features of 8 times as many random "
     "ones, a representative of each cluster (CDMPP's few-shot choice for a new device)" },
   { "budget", 'u', "N", "the same as --states N: the states per task, as --select cluster's few-shot budget" },
   { "exclude", 'x', "FILE.task",
     "leave out every task that FILE.task also has (held-out networks); repeatable" },
   { "seed", 's', "N", "the seed of the sampling (default 1)" },
   { "precision", 'R', "LIST|auto",
     "also sample the Tensor-Core states of these precisions (fp16, bf16, tf32, separated by commas; auto: "
     "every one) that the device has, beside FP32's; default fp32 alone" },
   { "device", 'd', "D",
     "auto (default: CUDA device 0, else the simulator for --sim-profile), cuda:N, or sim:PROFILE; "
     "several devices of one model share the states: cuda:N,M,..., cuda:all, sim:PROFILE*N" },
   CLI_MEASURER_OPTIONS,
   { "mpi", 'm', NULL,
     "under mpirun or srun: rank 0 collects and writes the records, the other ranks measure with their "
     "--device (built with Open MPI)" },
   { "verify-every", 'v', "N", "the simulator checks 1 state in N on the CPU executor (default 1000000: practically none, as a check costs far more than a simulation; pruner-tui check tests the kernels)" },
   { "no-progress", 'P', NULL, "no progress on standard error" },
   CLI_INPUT_OPTION,
   { NULL, 0, NULL, NULL },
};

static const CliCommand datasetCommand = {
   "dataset",
   "FILE.task... --out RECORDS [--states N] [--device D] [--exclude FILE.task]... [OPTION]...",
   "Collect a training set, as TenSet does: for every task of the task files (a task that two files share is "
   "collected once), sample states, measure them on a GPU or the simulator, and append the records to "
   "RECORDS until the task has N of them on the device. A task's first batch is random states; later ones "
   "mix random states with mutants of its fastest measured ones. Run it again to resume: it counts the "
   "records already there and measures only what is missing, never a state twice.\n"
   "Progress and the ETA go to standard error, the summary to standard output. Exit status 1 when a file "
   "cannot be read or written or a task measured states but none ok.",
   datasetOptions,
};

/* The options, parsed */
typedef struct DatasetArgs_ {
   MeasurerConfig cfg;
   long states, perBatch, seed, jobs, repeats, verifyEvery;
   double evolved;
   const char *out, *devicesFile;
   const char *exclude[DATASET_MAX_FILES];
   int nexclude;
   bool progress;
   bool mpi;
   bool cluster;                /* --select cluster */
   unsigned precisions;         /* --precision: PRECISION_BITs (FP32 always) */
   bool precisionAuto;
} DatasetArgs;

static int parseArgs(int argc, char **argv, DatasetArgs *a) {
   memset(a, 0, sizeof *a);
   MeasurerConfig_default(&a->cfg);
   a->states = 200;
   a->perBatch = 32;
   a->seed = 1;
   a->repeats = a->cfg.runner.timing.repeats;
   a->verifyEvery = DATASET_SIM_VERIFY_EVERY;
   a->evolved = 0.5;
   a->progress = true;
   optind = 1;
   int c;
   while ((c = Cli_getopt(&datasetCommand, argc, argv)) != -1) {
      int bad = 0;
      switch (c) {
      case CLI_OPT_HELP: return -1;
      case CLI_OPT_BAD: return EXIT_USAGE;
      case 'o': a->out = optarg; break;
      case 'n': bad = Cli_parseCount("dataset", "--states", optarg, 1, 1000000, &a->states); break;
      case 'B': bad = Cli_parseCount("dataset", "--per-batch", optarg, 1, 4096, &a->perBatch); break;
      case 's': bad = Cli_parseCount("dataset", "--seed", optarg, 0, 2147483647L, &a->seed); break;
      case 'j': bad = Cli_parseCount("dataset", "--jobs", optarg, 1, 256, &a->jobs); break;
      case 'r': bad = Cli_parseCount("dataset", "--repeats", optarg, 1, PROTO_MAX_COSTS, &a->repeats); break;
      case 'v': bad = Cli_parseCount("dataset", "--verify-every", optarg, 1, 1000000, &a->verifyEvery); break;
      case 'e': bad = Cli_parseReal("dataset", "--evolved", optarg, 0, 1, 0, &a->evolved); break;
      case 't': bad = Cli_parseNumber("dataset", "--timeout", optarg, 0, 3600, &a->cfg.runner.runTimeout); break;
      case 'b': bad = Cli_parseNumber("dataset", "--build-timeout", optarg, 0, 3600, &a->cfg.buildTimeout); break;
      case 'd': a->cfg.device = optarg; break;
      case 'p': a->cfg.simProfile = optarg; break;
      case 'D': a->devicesFile = optarg; break;
      case 'C': a->cfg.simNoCompile = true; break;
      case 'M': bad = Cli_parseSize("dataset", "--max-memory", optarg, &a->cfg.maxMemory); break;
      case 'P': a->progress = false; break;
      case 'm': a->mpi = true; break;
      case 'u': bad = Cli_parseCount("dataset", "--budget", optarg, 1, 1000000, &a->states); break;
      case 'R': {
         char *why = NULL;
         if (Precision_parseSpec(optarg, &a->precisions, &a->precisionAuto, &why) < 0) {
            Cli_usage("dataset", "--precision: %s", why);
            free(why);
            return EXIT_USAGE;
         }
         break;
      }
      case 'S':
         if (strcmp(optarg, "random") != 0 && strcmp(optarg, "cluster") != 0)
            return Cli_usage("dataset", "--select takes random or cluster, not '%s'", optarg);
         a->cluster = strcmp(optarg, "cluster") == 0;
         break;
      case 'x':
         if (a->nexclude == DATASET_MAX_FILES)
            return Cli_usage("dataset", "--exclude is given more than %d times", DATASET_MAX_FILES);
         a->exclude[a->nexclude++] = optarg;
         break;
      }
      if (bad)
         return EXIT_USAGE;
   }
   if (optind == argc)
      return Cli_usage("dataset", "expected one or more task files");
   if (argc - optind > DATASET_MAX_FILES)
      return Cli_usage("dataset", "at most %d task files, not %d", DATASET_MAX_FILES, argc - optind);
   if (!a->out)
      return Cli_usage("dataset", "--out RECORDS is needed: the file the records are appended to");
   if (a->cfg.device && Cli_checkDevice("dataset", a->cfg.device))
      return EXIT_USAGE;
   a->cfg.runner.timing.repeats = (int)a->repeats;
   a->cfg.buildThreads = (int)a->jobs;
   a->cfg.simVerifyEvery = (int)a->verifyEvery;
   a->cfg.seed = (uint64_t)a->seed;
   return 0;
}

/* Whether any of the networks has a task of this key */
static bool anyHas(const Network *nets, int n, const char *key) {
   for (int i = 0; i < n; i++)
      for (int t = 0; t < nets[i].ntasks; t++)
         if (strcmp(nets[i].tasks[t].key, key) == 0)
            return true;
   return false;
}

/* The tasks to collect, in file order, each key once and none an excluded file has. */
static int collectTasks(const Network *nets, int nnets, const Network *excl, int nexcl, DatasetTask **out,
                        int *excluded) {
   int n = 0, cap = 0;
   *out = NULL;
   *excluded = 0;
   for (int i = 0; i < nnets; i++)
      for (int t = 0; t < nets[i].ntasks; t++) {
         const Task *task = &nets[i].tasks[t];
         bool dup = false;
         for (int k = 0; k < n && !dup; k++)
            dup = strcmp((*out)[k].task->key, task->key) == 0;
         if (dup)
            continue;
         if (anyHas(excl, nexcl, task->key)) {
            (*excluded)++;
            continue;
         }
         if (n == cap) {
            cap = cap ? 2 * cap : 32;
            *out = xRealloc(*out, (size_t)cap * sizeof **out);
         }
         (*out)[n++] = (DatasetTask){ task, nets[i].path, 0 };
      }
   return n;
}

/* Whether a record is of the task on this device (a GPU's records and the simulator's
 * of the same profile are kept apart) */
static bool isOf(const Record *r, const Task *task, const Measurer *m) {
   return strcmp(r->task, task->key) == 0 && strcmp(r->device, Measurer_device(m)->name) == 0 &&
          r->simulated == Measurer_simulated(m);
}

/* Collects one task: reads its records of this device from the set (states
 * that no longer parse are still counted), then measures batches until it has
 * a->states. Returns the records written, or -1 after reporting a write failure. */
static long collectTask(const DatasetArgs *a, Measurer *m, RecordWriter *rw, const RecordSet *records,
                        DatasetTask *dt, DatasetProgress *prog, long *okCount, Featurizer *fz) {
   SchedLimits lim;
   SchedLimits_fromDevice(&lim, Measurer_device(m));
   /* the Tensor-Core sketches of the precisions asked for that the device has are
    * sampled beside Ansor's */
   const Device *dev = Measurer_device(m);
   SketchOptions opt = { a->precisions & ~PRECISION_BIT(PRECISION_FP32) &
                            Sketch_tensorCorePrecisions(dev->cc_major, dev->cc_minor),
                         true };
   SketchSet set;
   SketchSet_forOpWith(&set, &dt->task->op, &opt);
   Measured meas;
   Measured_init(&meas);
   for (int r = 0; r < records->count; r++) {
      const Record *rec = &records->records[r];
      if (!isOf(rec, dt->task, m))
         continue;
      State s;
      char *cause = NULL;
      if (State_parse(&set, rec->state, &lim, &s, &cause) == 0)
         Measured_add(&meas, &s, rec->error == MEASURE_OK ? Record_meanCost(rec) : MEASURE_FAILED_COST);
      free(cause);
   }
   long written = 0;
   char *cause = NULL;
   if (dt->have < a->states && Measurer_setTask(m, dt->task, &set, &cause) < 0) {
      fprintf(stderr, "%spruner-tui dataset: %s: %s; left out\n", prog->tty ? "\n" : "", dt->task->key, cause);
      free(cause);
      Measured_done(&meas);
      SketchSet_done(&set);
      return 0;
   }
   if (dt->have < a->states && Measurer_taskNote(m))
      fprintf(stderr, "%spruner-tui dataset: %s\n", prog->tty ? "\n" : "", Measurer_taskNote(m));
   State *batch = xCalloc((size_t)a->perBatch, sizeof *batch);
   MeasureOutcome *outcome = xCalloc((size_t)a->perBatch, sizeof *outcome);
   /* --select cluster: every state still wanted, chosen at once */
   State *selected = NULL;
   int nselected = 0, next = 0;
   if (a->cluster && dt->have < a->states) {
      Rng rng;
      Rng_seed(&rng, (uint64_t)a->seed * 0x9E3779B97F4A7C15ull ^ keyHash(dt->task->key) ^
                        (uint64_t)dt->have * 0xBF58476D1CE4E5B9ull);
      int want = (int)(a->states - dt->have);
      selected = xCalloc((size_t)want, sizeof *selected);
      nselected = clusterSelect(fz, dt->task, &set, &lim, &meas, &rng, selected, want);
   }
   while (dt->have < a->states) {
      Rng rng;
      Rng_seed(&rng, (uint64_t)a->seed * 0x9E3779B97F4A7C15ull ^ keyHash(dt->task->key) ^
                        (uint64_t)dt->have * 0xBF58476D1CE4E5B9ull);
      int want = (int)(a->states - dt->have < a->perBatch ? a->states - dt->have : a->perBatch);
      int n;
      if (a->cluster) {
         n = nselected - next < want ? nselected - next : want;
         memcpy(batch, selected + next, (size_t)n * sizeof *batch);
         next += n;
      } else {
         n = makeBatch(&set, &lim, &meas, a->evolved, &rng, batch, want);
      }
      if (n == 0) {
         fprintf(stderr, "%spruner-tui dataset: %s: no new valid state after %d records; the task stops there\n",
                 prog->tty ? "\n" : "", dt->task->key, dt->have);
         break;
      }
      Measurer_measure(m, batch, n, outcome);
      for (int i = 0; i < n; i++) {
         Record r;
         Measurer_record(m, &batch[i], &outcome[i], &r);
         if (RecordWriter_append(rw, &r, &cause) < 0) {
            fprintf(stderr, "pruner-tui dataset: %s\n", cause);
            free(cause);
            Record_done(&r);
            written = -1;
            goto done;
         }
         Record_done(&r);
         Measured_add(&meas, &batch[i], outcome[i].error == MEASURE_OK ? outcome[i].latency : MEASURE_FAILED_COST);
         *okCount += outcome[i].error == MEASURE_OK;
      }
      if (RecordWriter_flush(rw, &cause) < 0) {
         fprintf(stderr, "%spruner-tui dataset: %s\n", prog->tty ? "\n" : "", cause);
         free(cause);
         written = -1;
         goto done;
      }
      dt->have += n;
      written += n;
      prog->done += n;
      showProgress(prog, dt->task->key, false);
   }
done:
   free(selected);
   free(outcome);
   free(batch);
   Measured_done(&meas);
   SketchSet_done(&set);
   return written;
}

int Cli_dataset(int argc, char **argv) {
   DatasetArgs a;
   int rc = parseArgs(argc, argv, &a);
   if (rc)
      return rc < 0 ? 0 : rc;
   int nfiles = argc - optind, nexcl = a.nexclude;
   Network *nets = xCalloc((size_t)(nfiles + nexcl), sizeof *nets);
   int loaded = 0;
   for (; loaded < nfiles + nexcl; loaded++) {
      const char *file = loaded < nfiles ? argv[optind + loaded] : a.exclude[loaded - nfiles];
      if (Cli_loadNetwork(file, &nets[loaded])) {
         rc = EXIT_INPUT;
         break;
      }
   }
   DeviceSet devices;
   bool haveDevices = false;
   if (rc == 0) {
      if (Cli_loadDevices(&devices, a.devicesFile))
         rc = EXIT_INPUT;
      else
         haveDevices = true;
   }
   /* every rank reads the same files; rank 0 collects, the others measure */
   int rank = 0;
   if (rc == 0 && a.mpi) {
      rc = Cli_startMpi("dataset", &rank);
      a.cfg.devices = &devices;
      if (rc == 0 && rank > 0)
         rc = Cli_mpiWorker(&a.cfg, nets, loaded);
      a.cfg.mpi = true;
   }
   if (rank > 0) {
      DeviceSet_done(&devices);
      for (int i = 0; i < loaded; i++)
         Network_done(&nets[i]);
      free(nets);
      return rc;
   }
   /* what is there already: every line must read (a cut last line is only noted) */
   RecordSet records;
   RecordSet_init(&records);
   char *cause = NULL, *notice = NULL;
   if (rc == 0 && access(a.out, F_OK) == 0 && Records_read(a.out, &records, &notice, &cause) < 0) {
      fprintf(stderr, "pruner-tui dataset: %s\n", cause);
      rc = EXIT_INPUT;
   }
   if (notice) {
      fprintf(stderr, "pruner-tui dataset: %s\n", notice);
      free(notice);
   }
   Measurer *m = NULL;
   RecordWriter *rw = NULL;
   if (rc == 0) {
      a.cfg.devices = &devices;
      m = Measurer_open(&a.cfg, &cause);
      if (!m || !(rw = RecordWriter_open(a.out, &cause))) {
         fprintf(stderr, "pruner-tui dataset: %s\n", cause);
         rc = EXIT_INPUT;
      }
   }
   free(cause);
   cause = NULL;
   DatasetTask *tasks = NULL;
   int ntasks = 0, excluded = 0;
   Featurizer *fz = NULL;             /* --select cluster's */
   if (rc == 0) {
      ntasks = collectTasks(nets, nfiles, nets + nfiles, nexcl, &tasks, &excluded);
      if (a.cluster) {
         const Network **list = xCalloc((size_t)nfiles + 1, sizeof *list);
         for (int i = 0; i < nfiles; i++)
            list[i] = &nets[i];
         fz = Featurizer_new(list, nfiles, &devices);
         free(list);
      }
      const Device *dev = Measurer_device(m);
      bool simulated = Measurer_simulated(m);
      DatasetProgress prog = { a.progress && isatty(2), 0, 0, 0, ntasks, 0, Clock_now() };
      for (int t = 0; t < ntasks; t++) {
         for (int r = 0; r < records.count; r++)
            tasks[t].have += isOf(&records.records[r], tasks[t].task, m);
         prog.before += tasks[t].have < a.states ? tasks[t].have : a.states;
         prog.total += a.states;
      }
      printf("collecting %d tasks of %d task file%s", ntasks, nfiles, nfiles == 1 ? "" : "s");
      if (excluded)
         printf(" (%d left out: in --exclude)", excluded);
      printf(" on %s%s: %ld records each into %s; %ld there already\n", Measurer_describe(m),
             simulated ? ": SIMULATED, not a GPU" : "", a.states, a.out, prog.before);
      if (Measurer_note(m))
         printf("note: %s\n", Measurer_note(m));
      fflush(stdout);
      long written = 0, ok = 0;
      int noOk = 0;
      for (int t = 0; t < ntasks && rc == 0; t++) {
         prog.task = t + 1;
         long okBefore = ok;
         long w = collectTask(&a, m, rw, &records, &tasks[t], &prog, &ok, fz);
         if (w < 0) {
            rc = EXIT_INPUT;
            break;
         }
         written += w;
         /* a task whose space ran out measures nothing new, which is no failure */
         if (w > 0 && ok == okBefore) {
            noOk++;
            fprintf(stderr, "%spruner-tui dataset: %s: no state measured ok\n", prog.tty ? "\n" : "",
                    tasks[t].task->key);
         }
         if (a.progress)
            showProgress(&prog, tasks[t].task->key, !prog.tty || t == ntasks - 1);
      }
      char took[32];
      formatDuration(Clock_now() - prog.t0, took, sizeof took);
      printf("wrote %ld records (%ld ok) in %s; %s now holds %ld records of these tasks on %s%s\n", written, ok,
             took, a.out, prog.before + written, dev->name, simulated ? " (simulated)" : "");
      if (noOk && rc == 0)
         rc = EXIT_INPUT;
   }
   if (rw && RecordWriter_close(rw, &cause) < 0) {
      fprintf(stderr, "pruner-tui dataset: %s\n", cause);
      free(cause);
      rc = EXIT_INPUT;
   }
   free(tasks);
   Featurizer_free(fz);
   Measurer_close(m);
   RecordSet_done(&records);
   if (haveDevices)
      DeviceSet_done(&devices);
   for (int i = 0; i < loaded; i++)
      Network_done(&nets[i]);
   free(nets);
   return rc;
}
