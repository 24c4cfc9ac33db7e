/* `pruner-tui calibrate`: fits the simulator's free constants of a device profile to
 * records measured on that GPU (sim/calibrate.h), prints how well the simulator ranks
 * and times held-out records before and after, and writes a devices.yaml with the
 * profile and its fitted `sim:` constants.
 *
 * Which records it takes: successful measurements of the profile's own device (a
 * record names its device; another device's records are refused, or taken with
 * --any-device), all measured on a GPU or all by the simulator (never a mix; simulated
 * ones only test the fit, and a note says so). Failed measurements and programs the
 * simulator cannot run are skipped and counted. */
#include "config.h"

#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ir/lower.h"
#include "measure/record.h"
#include "sim/calibrate.h"
#include "util/clock.h"
#include "util/outfile.h"
#include "util/xalloc.h"

#define MAX_FILES 64
#define MIN_RECORDS 10

static const CliOption calibrateOptions[] = {
   { "records", 'r', "FILE...", "measurement records to fit (pruner-tui-records(5)): one or more files" },
   { "device", 'd', "PROFILE",
     "the devices.yaml profile whose simulator is fitted (NAME or sim:NAME), the GPU the records were "
     "measured on" },
   { "out", 'o', "FILE.yaml", "write a devices.yaml with the profile and its fitted sim: constants" },
   { "name", 'N', "NAME", "the name of the entry written (default: PROFILE's, so that --devices FILE.yaml "
     "replaces it)" },
   { "holdout", 'H', "FRACTION", "share of each task's records held out of the fit to judge it (default 0.2)" },
   { "seed", 's', "N", "seed of the held-out split and of the restarts (default 1)" },
   { "restarts", 'R', "N", "Nelder-Mead runs after the first, each from the best point moved (default 4)" },
   { "rank-weight", 'W', "W",
     "weight of the rank term beside the squared log error (default 1; 0 leaves it out)" },
   { "network", 'n', "FILE.task", "a task file that defines records' tasks besides the shipped ones" },
   { "devices", 'D', "FILE", "also read GPU descriptions from FILE (see pruner-tui --help)" },
   { "any-device", 'A', NULL, "take records of another device too (the profile's hardware is used for all)" },
   { NULL, 0, NULL, NULL },
};

static const CliCommand calibrateCommand = {
   "calibrate",
   "--records FILE... --device PROFILE --out FILE.yaml\n"
   "[--name NAME] [--holdout FRACTION] [--seed N] [--restarts N] [--rank-weight W]\n"
   "[--network FILE.task]... [--devices FILE] [--any-device]",
   "Fit the simulator's free constants (latencies, overheads, efficiencies: the sim: keys of "
   "pruner-tui-devices(5)) to records measured on a GPU: each record's program is counted once and the "
   "mean squared ln(simulated / measured latency), plus --rank-weight times a rank term (over pairs of "
   "records of one task, the mean squared amount by which the simulator orders them against their "
   "measured order; zero when all are in order), is minimised with the Nelder-Mead simplex in the "
   "logarithm of each constant, within its documented range. Only the constants the records exercise are "
   "fitted; the others keep their values. Prints the constants before and after, and the median "
   "|ln(simulated / measured)|, pairwise ranking accuracy and Spearman correlation (within each task) "
   "before and after, on the held-out records and on the training ones; writes --out, which --devices "
   "FILE.yaml --device sim:NAME then uses.\n"
   "Records of another device than PROFILE are refused (--any-device takes them), simulated and real "
   "records are never mixed, failed measurements are skipped. At least 10 records must be left to fit "
   "on.",
   calibrateOptions,
};

/* The tasks of the networks, each with its sketches once a record needs them. */
typedef struct {
   int nnets;
   Network nets[MAX_FILES + CLI_SHIPPED_NETWORKS];
   int ntasks;
   const Task **tasks;
   SketchSet *sets;
   bool *made;
} Tasks;

static int loadTasks(Tasks *t, const char *const *files, int nfiles) {
   memset(t, 0, sizeof *t);
   if (Cli_loadNetworks(files, nfiles, t->nets, &t->nnets))
      return EXIT_INPUT;
   for (int n = 0; n < t->nnets; n++)
      t->ntasks += t->nets[n].ntasks;
   size_t m = (size_t)(t->ntasks ? t->ntasks : 1);
   t->tasks = xCalloc(m, sizeof *t->tasks);
   t->sets = xCalloc(m, sizeof *t->sets);
   t->made = xCalloc(m, sizeof *t->made);
   int k = 0;
   for (int n = 0; n < t->nnets; n++)
      for (int i = 0; i < t->nets[n].ntasks; i++)
         t->tasks[k++] = &t->nets[n].tasks[i];
   return 0;
}

/* The index of the task with key, its sketches made; -1 when no network has it. */
static int findTask(Tasks *t, const char *key) {
   for (int i = 0; i < t->ntasks; i++)
      if (strcmp(t->tasks[i]->key, key) == 0) {
         if (!t->made[i]) {
            SketchSet_forOp(&t->sets[i], &t->tasks[i]->op);
            t->made[i] = true;
         }
         return i;
      }
   return -1;
}

static void freeTasks(Tasks *t) {
   for (int i = 0; i < t->ntasks; i++)
      if (t->made[i])
         SketchSet_done(&t->sets[i]);
   free(t->made);
   free(t->sets);
   free(t->tasks);
   for (int n = 0; n < t->nnets; n++)
      Network_done(&t->nets[n]);
}

/* What reading the records found. */
typedef struct {
   int records, used, failed, unrunnable, otherDevice, ntasksUsed;
   char *firstUnrunnable;       /* "FILE:LINE: reason" of the first program skipped */
   int simulated, real;
   char otherName[32];
   char simulatedDevice[32];
} Intake;

/* Reads one file's records into cal; 0, or EXIT_INPUT after reporting. */
static int takeFile(const char *path, const Device *profile, bool anyDevice, Tasks *tasks, bool *taskUsed,
                    Calibration *cal, LoopNest *ln, Intake *in) {
   RecordSet set;
   RecordSet_init(&set);
   char *notice = NULL, *cause = NULL;
   int rc = 0;
   if (Records_read(path, &set, &notice, &cause) < 0) {
      fprintf(stderr, "pruner-tui calibrate: %s\n", cause);
      free(cause);
      rc = EXIT_INPUT;
   }
   if (notice) {
      fprintf(stderr, "pruner-tui calibrate: %s\n", notice);
      free(notice);
   }
   if (rc == 0 && set.count == 0) {
      fprintf(stderr, "pruner-tui calibrate: %s: holds no record\n", path);
      rc = EXIT_INPUT;
   }
   SchedLimits lim;
   SchedLimits_fromDevice(&lim, profile);
   for (int i = 0; i < set.count && rc == 0; i++) {
      const Record *r = &set.records[i];
      in->records++;
      if (strcmp(r->device, profile->name) != 0) {
         if (!anyDevice) {
            fprintf(stderr,
                    "pruner-tui calibrate: %s:%d: a record of device '%s', expected one of %s: the simulator of a "
                    "profile is fitted to records of its own GPU (--any-device takes others too)\n",
                    path, r->line, r->device, profile->name);
            rc = EXIT_INPUT;
            break;
         }
         in->otherDevice++;
         snprintf(in->otherName, sizeof in->otherName, "%s", r->device);
      }
      if ((r->simulated && in->real) || (!r->simulated && in->simulated)) {
         fprintf(stderr,
                 "pruner-tui calibrate: %s:%d: a %s record among %s ones: expected records all measured on a GPU "
                 "(or all simulated, to test the fit)\n",
                 path, r->line, r->simulated ? "simulated" : "GPU-measured", r->simulated ? "GPU-measured" : "simulated");
         rc = EXIT_INPUT;
         break;
      }
      if (r->simulated && !in->simulated)
         snprintf(in->simulatedDevice, sizeof in->simulatedDevice, "%s", r->device);
      in->simulated += r->simulated;
      in->real += !r->simulated;
      if (r->error != MEASURE_OK) {
         in->failed++;
         continue;
      }
      int t = findTask(tasks, r->task);
      if (t < 0) {
         fprintf(stderr,
                 "pruner-tui calibrate: %s:%d: task %s is in none of the task files (the shipped ones and "
                 "--network FILE.task); expected a task of one of them: add its task file with --network\n",
                 path, r->line, r->task);
         rc = EXIT_INPUT;
         break;
      }
      State s;
      char *why = NULL;
      if (State_parse(&tasks->sets[t], r->state, &lim, &s, &why) < 0) {
         fprintf(stderr, "pruner-tui calibrate: %s:%d: task %s: expected a state of the task: %s\n", path, r->line,
                 r->task, why);
         free(why);
         rc = EXIT_INPUT;
         break;
      }
      Lower_state(&tasks->sets[t], &s, ln);
      if (Calibration_add(cal, t, ln, r->registers, State_hash(&s), Record_meanCost(r), &why) < 0) {
         if (!in->firstUnrunnable)
            in->firstUnrunnable = xAsprintf("%s:%d: %s", path, r->line, why);
         free(why);
         in->unrunnable++;
         continue;
      }
      in->ntasksUsed += !taskUsed[t];
      taskUsed[t] = true;
      in->used++;
   }
   RecordSet_done(&set);
   return rc;
}

static bool validName(const char *s) {
   if (!*s || strlen(s) > 31)
      return false;
   for (; *s; s++)
      if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
         return false;
   return true;
}

static void progress(void *ctx, int run, int runs, double best, int evaluations) {
   const double *t0 = ctx;
   fprintf(stderr, "run %d of %d: objective (mean squared ln error + rank term) %.6g after %d evaluations (%.1f s)\n",
           run, runs, best, evaluations, Clock_now() - *t0);
}

/* "0.1234", or "n/a" for NaN */
static const char *num(char *buf, size_t size, double v) {
   if (isnan(v))
      snprintf(buf, size, "n/a");
   else if (v != 0 && fabs(v) < 1e-3)
      snprintf(buf, size, "%.2e", v);   /* the rank term of nearly ordered records */
   else
      snprintf(buf, size, "%.4f", v);
   return buf;
}

static void printQuality(const char *what, double trainB, double trainA, double testB, double testA) {
   char a[16], b[16], c[16], d[16];
   printf("%-26s  %9s  %9s    %9s  %9s\n", what, num(a, sizeof a, testB), num(b, sizeof b, testA),
          num(c, sizeof c, trainB), num(d, sizeof d, trainA));
}

/* What became of constant i. */
static const char *outcome(const CalibResult *res, int i) {
   if (res->fitted[i] && res->atBound[i])
      return "fitted, at its range's end";
   if (res->fitted[i])
      return !(res->stderrLog[i] <= CALIB_LOOSE) ? "fitted loosely: the records pin it to no better than 5%"
                                                  : "fitted";
   return res->sensitivity[i] < res->minSensitivity ? "not exercised: kept" : "not told apart from those above: kept";
}

static void printResult(const CalibResult *res) {
   printf("\n%-16s  %10s  %10s  %7s  %-16s  %11s  %8s  %s\n", "constant", "before", "after", "+-2se", "range",
          "sensitivity", "distinct", "result");
   for (int i = 0; i < SIM_PARAM_COUNT; i++) {
      char range[48], se[16] = "-";
      snprintf(range, sizeof range, "%g to %g", res->lower[i], res->upper[i]);
      if (res->fitted[i] && isfinite(res->stderrLog[i]))
         snprintf(se, sizeof se, exp(2 * res->stderrLog[i]) < 1.1 ? "%.2g%%" : "%.0f%%",
                  100 * (exp(2 * res->stderrLog[i]) - 1));
      printf("%-16s  %10.6g  %10.6g  %7s  %-16s  %11.4f  %8.4f  %s\n", SimParam_name((SimParam)i), res->before.v[i],
             res->after.v[i], se, range, res->sensitivity[i], res->distinct[i], outcome(res, i));
   }
   printf("(+-2se: about how far the fitted value may be from the true one, from the residuals and the\n"
          "records' slopes in each fitted constant)\n");
   printf("\n%-26s  %9s  %9s    %9s  %9s\n", "", "held out", "", "training", "");
   printf("%-26s  %9s  %9s    %9s  %9s\n", "", "before", "after", "before", "after");
   printf("%-26s  %9d  %9s    %9d  %9s\n", "records", res->testBefore.samples, "", res->trainBefore.samples, "");
   printQuality("median |ln(sim/measured)|", res->trainBefore.medianAbsLog, res->trainAfter.medianAbsLog,
                res->testBefore.medianAbsLog, res->testAfter.medianAbsLog);
   printQuality("rank term", res->trainBefore.rankLoss, res->trainAfter.rankLoss, res->testBefore.rankLoss,
                res->testAfter.rankLoss);
   printQuality("mean ln(sim/measured)^2", res->trainBefore.meanSquaredLog, res->trainAfter.meanSquaredLog,
                res->testBefore.meanSquaredLog, res->testAfter.meanSquaredLog);
   printQuality("pairwise accuracy", res->trainBefore.pairwise, res->trainAfter.pairwise, res->testBefore.pairwise,
                res->testAfter.pairwise);
   printQuality("Spearman (per task)", res->trainBefore.spearman, res->trainAfter.spearman,
                res->testBefore.spearman, res->testAfter.spearman);
}

/* The YAML text of a double-quoted string. */
static void putQuoted(FILE *f, const char *s) {
   fputc('"', f);
   for (; *s; s++) {
      if (*s == '"' || *s == '\\')
         fputc('\\', f);
      fputc(*s, f);
   }
   fputc('"', f);
}

typedef struct {
   const char *const *files;
   int nfiles;
   const Intake *in;
   double holdout;
   long seed;
} Provenance;

/* The profile d (its sim constants those of res) as a devices.yaml document named
 * `name`, with a header saying where the constants came from. */
static void writeYaml(FILE *f, const Device *profile, const char *name, const CalibResult *res,
                      const Provenance *pv) {
   char when[64];
   time_t now = time(NULL);
   strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
   fprintf(f, "# devices.yaml entry written by pruner-tui calibrate on %s (pruner-tui-devices(5)).\n", when);
   fprintf(f, "# The simulator's constants of profile %s fitted to %d %s records of %d tasks from:\n",
           profile->name, pv->in->used, pv->in->simulated ? "SIMULATED" : "GPU-measured", pv->in->ntasksUsed);
   for (int i = 0; i < pv->nfiles; i++)
      fprintf(f, "#   %s\n", pv->files[i]);
   fprintf(f, "# On the %d records held out (%g of each task's, seed %ld), before -> after:\n", res->ntest,
           pv->holdout, pv->seed);
   char a[16], b[16];
   fprintf(f, "#   median |ln(simulated / measured)| %s -> %s\n", num(a, sizeof a, res->testBefore.medianAbsLog),
           num(b, sizeof b, res->testAfter.medianAbsLog));
   fprintf(f, "#   pairwise ranking accuracy %s -> %s\n", num(a, sizeof a, res->testBefore.pairwise),
           num(b, sizeof b, res->testAfter.pairwise));
   fprintf(f, "#   Spearman rank correlation %s -> %s\n", num(a, sizeof a, res->testBefore.spearman),
           num(b, sizeof b, res->testAfter.spearman));
   fprintf(f, "devices:\n  - name: %s\n    product: ", name);
   putQuoted(f, profile->product);
   fputc('\n', f);
   Device d = *profile;
   for (int i = 0; i < SIM_PARAM_COUNT; i++)
      if (res->fitted[i]) {
         d.sim[i] = res->after.v[i];
         Device_setValid(&d, (DeviceField)(DEV_SIM_FIRST + i));
      }
   char group[32] = "";
   for (int fi = 0; fi < DEV_FIELD_COUNT; fi++) {
      const char *key = Device_fieldInfo((DeviceField)fi)->key;
      const char *dot = strchr(key, '.');
      bool sim = fi >= DEV_SIM_FIRST;
      if (!Device_has(&d, (DeviceField)fi) && !sim)
         continue;
      const char *indent = "    ";
      if (dot) {
         size_t len = (size_t)(dot - key);
         if (strlen(group) != len || strncmp(group, key, len) != 0) {
            snprintf(group, sizeof group, "%.*s", (int)len, key);
            fprintf(f, "    %s:\n", group);
         }
         indent = "      ";
         key = dot + 1;
      }
      char value[64];
      if (!Device_has(&d, (DeviceField)fi)) {
         int p = fi - DEV_SIM_FIRST;
         fprintf(f, "%s# %s: %s: the simulator's default (%g) applies\n", indent, key, outcome(res, p),
                 res->after.v[p]);
         continue;
      }
      Device_formatValue(&d, (DeviceField)fi, value, sizeof value);
      if (!sim) {
         fprintf(f, "%s%s: %s\n", indent, key, value);
         continue;
      }
      int p = fi - DEV_SIM_FIRST;
      char was[32];
      snprintf(was, sizeof was, ", was %.6g", res->before.v[p]);
      fprintf(f, "%s%s: %s   # %s%s\n", indent, key, value, outcome(res, p), res->fitted[p] ? was : "");
   }
}

/* Writes the document to path (util/outfile.h), then reads it back as --devices
 * would. 0, or -1 with *cause. */
static int writeOut(const char *path, const Device *profile, const char *name, const CalibResult *res,
                    const Provenance *pv, char **cause) {
   Outfile out;
   Outfile_open(&out, path);
   writeYaml(out.f, profile, name, res, pv);
   if (Outfile_commit(&out, cause) < 0)
      return -1;
   DeviceSet check;
   DeviceSet_init(&check);
   int rc = DeviceSet_load(&check, path, cause);
   DeviceSet_done(&check);
   return rc;
}

int Cli_calibrate(int argc, char **argv) {
   const char *recordFiles[MAX_FILES], *networkFiles[MAX_FILES];
   int nrecords = 0, nnetworks = 0;
   const char *deviceArg = NULL, *out = NULL, *name = NULL, *devicesFile = NULL;
   long seed = 1, restarts = 4;
   double holdout = 0.2, rankWeight = 1;
   bool anyDevice = false;
   optind = 1;
   int c;
   while ((c = Cli_getopt(&calibrateCommand, argc, argv)) != -1) {
      int bad = 0;
      switch (c) {
      case CLI_OPT_HELP: return 0;
      case CLI_OPT_BAD: return EXIT_USAGE;
      case 'r':
      case 'n': {
         const char **files = c == 'r' ? recordFiles : networkFiles;
         int *n = c == 'r' ? &nrecords : &nnetworks;
         if (*n == MAX_FILES)
            return Cli_usage("calibrate", "at most %d %s files", MAX_FILES, c == 'r' ? "records" : "task");
         files[(*n)++] = optarg;
         break;
      }
      case 'd': deviceArg = strncmp(optarg, "sim:", 4) == 0 ? optarg + 4 : optarg; break;
      case 'o': out = optarg; break;
      case 'N': name = optarg; break;
      case 'D': devicesFile = optarg; break;
      case 'A': anyDevice = true; break;
      case 's': bad = Cli_parseCount("calibrate", "--seed", optarg, 0, 2147483647L, &seed); break;
      case 'R': bad = Cli_parseCount("calibrate", "--restarts", optarg, 0, 100, &restarts); break;
      case 'W': bad = Cli_parseReal("calibrate", "--rank-weight", optarg, 0, 1000, 0, &rankWeight); break;
      case 'H': bad = Cli_parseReal("calibrate", "--holdout", optarg, 0, 1, CLI_BELOW_MAX, &holdout); break;
      }
      if (bad)
         return EXIT_USAGE;
   }
   /* --records FILE...: the words after it are more records files */
   for (; optind < argc; optind++) {
      if (nrecords == 0)
         return Cli_usage("calibrate", "unexpected argument '%s'", argv[optind]);
      if (nrecords == MAX_FILES)
         return Cli_usage("calibrate", "at most %d records files", MAX_FILES);
      recordFiles[nrecords++] = argv[optind];
   }
   if (nrecords == 0)
      return Cli_usage("calibrate", "--records FILE is needed (one or more)");
   if (!deviceArg)
      return Cli_usage("calibrate", "--device PROFILE is needed: the profile of the GPU the records come from");
   if (!out)
      return Cli_usage("calibrate", "--out FILE.yaml is needed");
   if (name && !validName(name))
      return Cli_usage("calibrate", "--name takes a device name of a-z, 0-9 and _, at most 31 characters, not '%s'",
                       name);

   DeviceSet devices;
   DeviceSet_init(&devices);
   if (Cli_loadDevices(&devices, devicesFile)) {
      DeviceSet_done(&devices);
      return EXIT_INPUT;
   }
   const Device *profile = DeviceSet_find(&devices, deviceArg);
   if (!profile) {
      fprintf(stderr, "pruner-tui calibrate: --device: no device profile is called '%s' (pruner-tui --list-devices "
                      "lists them)\n", deviceArg);
      DeviceSet_done(&devices);
      return EXIT_INPUT;
   }
   char *cause = NULL;
   Calibration *cal = Calibration_new(profile, &cause);
   if (!cal) {
      fprintf(stderr, "pruner-tui calibrate: %s\n", cause);
      free(cause);
      DeviceSet_done(&devices);
      return EXIT_INPUT;
   }
   Tasks tasks;
   int rc = loadTasks(&tasks, networkFiles, nnetworks);
   Intake in;
   memset(&in, 0, sizeof in);
   bool *taskUsed = xCalloc((size_t)(tasks.ntasks ? tasks.ntasks : 1), sizeof *taskUsed);
   LoopNest ln;
   LoopNest_init(&ln);
   double t0 = Clock_now();
   for (int i = 0; i < nrecords && rc == 0; i++)
      rc = takeFile(recordFiles[i], profile, anyDevice, &tasks, taskUsed, cal, &ln, &in);
   LoopNest_done(&ln);
   if (rc == 0 && in.used < MIN_RECORDS) {
      fprintf(stderr,
              "pruner-tui calibrate: %s%s: %d usable records (of %d: %d failed, %d the simulator cannot run); "
              "expected at least %d\n",
              recordFiles[0], nrecords > 1 ? " and the other files" : "", in.used, in.records, in.failed,
              in.unrunnable, MIN_RECORDS);
      rc = EXIT_INPUT;
   }
   CalibResult res;
   if (rc == 0) {
      printf("calibrating the simulator of %s (%s) to %d records of %d tasks (read %d: %d failed, %d the simulator "
             "cannot run; counted in %.1f s)\n",
             profile->name, profile->product, in.used, in.ntasksUsed, in.records, in.failed, in.unrunnable,
             Clock_now() - t0);
      if (in.simulated)
         printf("note: the records are SIMULATED (by sim:%s), not measured on a GPU: the fit can only recover "
                "the constants they were simulated with\n",
                in.simulatedDevice);
      if (in.otherDevice)
         printf("note: records of another device than %s (%d, such as %s) were taken with --any-device; the "
                "hardware of %s is used for all\n",
                profile->name, in.otherDevice, in.otherName, profile->name);
      if (in.firstUnrunnable)
         printf("note: skipped %d records whose program the simulator cannot run on %s, the first: %s\n",
                in.unrunnable, profile->name, in.firstUnrunnable);
      CalibConfig cfg;
      CalibConfig_default(&cfg);
      cfg.holdout = holdout;
      cfg.seed = (uint64_t)seed;
      cfg.restarts = (int)restarts;
      cfg.rankWeight = rankWeight;
      double t1 = Clock_now();
      cfg.progress = progress;
      cfg.ctx = &t1;
      SimParams start;
      SimParams_fromDevice(&start, profile);
      fflush(stdout);
      if (Calibration_fit(cal, &start, &cfg, &res, &cause) < 0) {
         fprintf(stderr, "pruner-tui calibrate: %s: %s\n", recordFiles[0], cause);
         free(cause);
         rc = EXIT_INPUT;
      } else {
         printf("fitted %d of %d constants on %d records, %d held out (%g of each task's, seed %ld), in %.1f s "
                "(%d evaluations)\n",
                res.nfitted, SIM_PARAM_COUNT, res.ntrain, res.ntest, holdout, seed, Clock_now() - t1,
                res.evaluations);
         printResult(&res);
         Provenance pv = { recordFiles, nrecords, &in, holdout, seed };
         const char *entry = name ? name : profile->name;
         if (writeOut(out, profile, entry, &res, &pv, &cause) < 0) {
            fprintf(stderr, "pruner-tui calibrate: %s\n", cause);
            free(cause);
            rc = EXIT_INPUT;
         } else {
            printf("\nwrote %s: use it with --devices %s --device sim:%s\n", out, out, entry);
         }
      }
   }
   free(in.firstUnrunnable);
   free(taskUsed);
   freeTasks(&tasks);
   Calibration_free(cal);
   DeviceSet_done(&devices);
   return rc;
}
