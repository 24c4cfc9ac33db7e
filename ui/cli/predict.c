/* pruner-tui predict: a network's end-to-end latency on a device, estimated by a cost
 * model's latency head (cost/latency.h) from each task's schedule, with the per-task
 * breakdown, and beside it the latency of the same schedules measured on the device
 * (simulated on sim:PROFILE). The end-to-end latency is the sum over tasks of weight x
 * latency, as the tuner's estimated total is.
 *
 * A task's schedule is the session's best measured state (--session), else the state
 * PSA ranks first on the device among --samples valid random states (seeded): a
 * schedule a draft would pick, which no measurement chose. */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cost/dataset.h"
#include "cost/model.h"
#include "measure/featurize.h"
#include "tune/export.h"
#include "tune/session.h"
#include "util/rng.h"

static const CliOption predictOptions[] = {
   { "device", 'd', "D",
     "auto (default: CUDA device 0, else the simulator for --sim-profile), cuda:N, or sim:PROFILE: the device "
     "to predict for and to measure on" },
   { "model", 'm', "CKPT", "a checkpoint with a latency head (pruner-tui train --latency-head); default: PSA's estimate" },
   { "session", 'S', "FILE", "take each task's best measured state of this session (of FILE.task's network)" },
   { "samples", 'n', "N", "without --session: random valid states per task, of which PSA's first is the schedule "
                          "(default 64)" },
   { "seed", 's', "N", "the seed of those states and of the inputs (default 1)" },
   { "no-measure", 'N', NULL, "only predict: do not measure the schedules" },
   { "sim-profile", 'P', "NAME", "the profile that --device auto simulates without a GPU (default h100_sxm)" },
   { "no-compile", 'C', NULL, "the simulator skips NVRTC (registers estimated): fast" },
   { "devices", 'D', "FILE", "also read GPU descriptions from FILE" },
   CLI_INPUT_OPTION,
   { NULL, 0, NULL, NULL },
};

static const CliCommand predictCommand = {
   "predict",
   "FILE.task [--device D] [--model CKPT] [--session FILE]\n"
   "[--samples N] [--seed N] [--no-measure] [--no-compile] [--devices FILE]",
   "Predict the network's end-to-end latency on a device (the sum over tasks of weight x latency) from each "
   "task's schedule, with a latency per task, and measure the same schedules on the device to compare (on "
   "sim:PROFILE the simulator's measurement). A task's schedule is --session's best measured state, else "
   "the state PSA ranks first among --samples random valid states. The prediction is the --model "
   "checkpoint's latency head, or PSA's estimate without one.",
   predictOptions,
};

typedef struct Prediction_ {
   bool have;                   /* a schedule was found */
   State state;
   double predictedMs;          /* INFINITY when the model cannot say */
   double measuredMs;           /* NAN when not measured or failed */
   char why[600];               /* no schedule, or the measurement's error */
} Prediction;

/* The session's network into net and its best state of every task into *out (one
 * Prediction a task, which the caller frees); 0 or EXIT_INPUT after reporting. */
static int sessionSchedules(const char *sessionFile, const char *taskFile, const SchedLimits *lim, Network *net,
                            Prediction **out, bool *loaded) {
   SessionLog log;
   SessionLog_init(&log);
   char *notice = NULL, *cause = NULL;
   int rc = 0;
   int *best = NULL;
   if (Session_read(sessionFile, &log, &notice, &cause) < 0 ||
       Export_loadNetwork(&log, sessionFile, taskFile, net, &cause) < 0) {
      rc = EXIT_INPUT;
      goto done;
   }
   *loaded = true;
   Prediction *p = *out = xCalloc((size_t)net->ntasks + 1, sizeof *p);
   best = xCalloc((size_t)log.events[0].header.ntasks + 1, sizeof *best);
   if (Export_bestMeasures(&log, sessionFile, best, &cause) < 0) {
      rc = EXIT_INPUT;
      goto done;
   }
   for (int t = 0; t < net->ntasks; t++) {
      if (best[t] < 0) {
         snprintf(p[t].why, sizeof p[t].why, "no state measured ok in the session");
         continue;
      }
      const SessionEvent *e = &log.events[best[t]];
      SketchSet set;
      SketchSet_forOpWith(&set, &net->tasks[t].op, &Sketch_readAny);
      char *why = NULL;
      if (State_parse(&set, e->measure.state, lim, &p[t].state, &why) < 0) {
         cause = xAsprintf("%s:%d: task %d: %s", sessionFile, e->line, t, why);
         free(why);
         SketchSet_done(&set);
         rc = EXIT_INPUT;
         goto done;
      }
      p[t].have = true;
      SketchSet_done(&set);
   }
done:
   if (cause)
      fprintf(stderr, "pruner-tui predict: %s\n", cause);
   free(cause);
   free(notice);
   free(best);
   SessionLog_done(&log);
   return rc;
}

/* For each task, the state PSA ranks first among `samples` valid random states. */
static void draftSchedules(const Network *net, const SchedLimits *lim, Featurizer *fz, const char *device,
                           long samples, long seed, Prediction *p) {
   State *states = xCalloc((size_t)samples, sizeof *states);
   for (int t = 0; t < net->ntasks; t++) {
      const Task *task = &net->tasks[t];
      SketchSet set;
      SketchSet_forOpWith(&set, &task->op, &Sketch_readAny);
      Rng rng;
      Rng_seed(&rng, (uint64_t)seed + 104729ull * (uint64_t)t);
      Dataset d;
      Dataset_init(&d);
      int n = 0;
      char *cause = NULL;
      for (; n < samples; n++) {
         if (State_sampleValid(&set, -1, &rng, lim, 100000, &states[n], &cause) < 0)
            break;
         Featurizer_addState(fz, task, &set, &states[n], device, &d);
      }
      int first = -1;
      for (int i = 0; i < n; i++)
         if (isfinite(d.psaLatency[i]) && (first < 0 || d.psaLatency[i] < d.psaLatency[first]))
            first = i;
      if (first >= 0) {
         p[t].have = true;
         p[t].state = states[first];
      } else {
         snprintf(p[t].why, sizeof p[t].why, "%s", n == 0 && cause ? cause : "no state that PSA can estimate");
      }
      free(cause);
      Dataset_done(&d);
      SketchSet_done(&set);
   }
   free(states);
}

/* The estimate of every task's schedule: the model's latency head, or PSA's. */
static void estimate(const Network *net, Featurizer *fz, const char *device, CostModel *model, Prediction *p) {
   Dataset d;
   Dataset_init(&d);
   int *at = xCalloc((size_t)net->ntasks + 1, sizeof *at);
   for (int t = 0; t < net->ntasks; t++) {
      at[t] = -1;
      if (!p[t].have)
         continue;
      SketchSet set;
      SketchSet_forOpWith(&set, &net->tasks[t].op, &Sketch_readAny);
      at[t] = d.n;
      Featurizer_addState(fz, &net->tasks[t], &set, &p[t].state, device, &d);
      SketchSet_done(&set);
   }
   float *ms = xCalloc((size_t)d.n + 1, sizeof *ms);
   if (!model || !CostModel_predictLatency(model, &d, ms))
      for (int i = 0; i < d.n; i++)
         ms[i] = d.psaLatency[i];
   for (int t = 0; t < net->ntasks; t++)
      p[t].predictedMs = at[t] >= 0 ? ms[at[t]] : INFINITY;
   free(ms);
   free(at);
   Dataset_done(&d);
}

/* Measures every task's schedule on m. */
static void measureAll(Measurer *m, const Network *net, Prediction *p) {
   for (int t = 0; t < net->ntasks; t++) {
      p[t].measuredMs = NAN;
      if (!p[t].have)
         continue;
      SketchSet set;
      SketchSet_forOpWith(&set, &net->tasks[t].op, &Sketch_readAny);
      char *cause = NULL;
      if (Measurer_setTask(m, &net->tasks[t], &set, &cause) < 0) {
         snprintf(p[t].why, sizeof p[t].why, "%s", cause);
         free(cause);
      } else {
         MeasureOutcome out;
         Measurer_measure(m, &p[t].state, 1, &out);
         if (out.error == MEASURE_OK)
            p[t].measuredMs = out.latency * 1e3;
         else
            snprintf(p[t].why, sizeof p[t].why, "%s: %s", MeasureError_name(out.error), out.message);
      }
      SketchSet_done(&set);
   }
}

static void printTable(const Network *net, const Prediction *p, bool measured) {
   printf("\n%4s  %6s  %14s  %14s  %8s  %s\n", "task", "weight", "predicted (us)", measured ? "measured (us)" : "",
          measured ? "error" : "", "task key");
   double predicted = 0, actual = 0, predictedAll = 0;
   int both = 0, predictedTasks = 0;
   for (int t = 0; t < net->ntasks; t++) {
      const Task *task = &net->tasks[t];
      if (!p[t].have || !isfinite(p[t].predictedMs)) {
         printf("%4d  %6lld  %14s  %14s  %8s  %s (%s)\n", t, (long long)task->weight, "-", "", "", task->key,
                p[t].have ? "no estimate" : p[t].why);
         continue;
      }
      predictedAll += (double)task->weight * p[t].predictedMs;
      predictedTasks++;
      if (!measured) {
         printf("%4d  %6lld  %14.2f  %14s  %8s  %s\n", t, (long long)task->weight, 1e3 * p[t].predictedMs, "", "",
                task->key);
      } else if (isnan(p[t].measuredMs)) {
         printf("%4d  %6lld  %14.2f  %14s  %8s  %s (%s)\n", t, (long long)task->weight, 1e3 * p[t].predictedMs,
                "failed", "", task->key, p[t].why);
      } else {
         predicted += (double)task->weight * p[t].predictedMs;
         actual += (double)task->weight * p[t].measuredMs;
         both++;
         printf("%4d  %6lld  %14.2f  %14.2f  %+7.1f%%  %s\n", t, (long long)task->weight, 1e3 * p[t].predictedMs,
                1e3 * p[t].measuredMs, 100 * (p[t].predictedMs / p[t].measuredMs - 1), task->key);
      }
   }
   printf("\nend to end (the sum over tasks of weight x latency): predicted %.4g ms over %d of %d tasks\n",
          predictedAll, predictedTasks, net->ntasks);
   if (measured && both > 0)
      printf("over the %d tasks measured ok: predicted %.4g ms, measured %.4g ms, error %+.1f%%\n", both, predicted,
             actual, 100 * (predicted / actual - 1));
}

int Cli_predict(int argc, char **argv) {
   MeasurerConfig cfg;
   MeasurerConfig_default(&cfg);
   const char *devicesFile = NULL, *modelFile = NULL, *sessionFile = NULL;
   long samples = 64, seed = 1;
   bool measure = true;
   optind = 1;
   int c;
   while ((c = Cli_getopt(&predictCommand, argc, argv)) != -1) {
      int bad = 0;
      switch (c) {
      case CLI_OPT_HELP: return 0;
      case CLI_OPT_BAD: return EXIT_USAGE;
      case 'd': cfg.device = optarg; break;
      case 'm': modelFile = optarg; break;
      case 'S': sessionFile = optarg; break;
      case 'n': bad = Cli_parseCount("predict", "--samples", optarg, 1, 100000, &samples); break;
      case 's': bad = Cli_parseCount("predict", "--seed", optarg, 0, 2147483647L, &seed); break;
      case 'N': measure = false; break;
      case 'P': cfg.simProfile = optarg; break;
      case 'C': cfg.simNoCompile = true; break;
      case 'D': devicesFile = optarg; break;
      }
      if (bad)
         return EXIT_USAGE;
   }
   if (argc - optind != 1)
      return Cli_usage("predict", "expected one FILE.task");
   if (cfg.device && Cli_checkDevice("predict", cfg.device))
      return EXIT_USAGE;
   const char *taskFile = argv[optind];
   cfg.seed = (uint64_t)seed;
   char *cause = NULL;
   CostModel *model = NULL;
   if (modelFile) {
      model = CostModel_load(modelFile, &cause);
      if (model && !model->latency) {
         cause = xAsprintf("%s: the %s model there has no latency head (pruner-tui train --latency-head trains one)",
                           modelFile, ModelKind_name(model->kind));
         CostModel_free(model);
         model = NULL;
      }
      if (!model) {
         fprintf(stderr, "pruner-tui predict: %s\n", cause);
         free(cause);
         return EXIT_INPUT;
      }
   }
   DeviceSet devices;
   if (Cli_loadDevices(&devices, devicesFile)) {
      CostModel_free(model);
      return EXIT_INPUT;
   }
   cfg.devices = &devices;
   Measurer *m = Measurer_open(&cfg, &cause);
   if (!m) {
      fprintf(stderr, "pruner-tui predict: %s\n", cause);
      free(cause);
      DeviceSet_done(&devices);
      CostModel_free(model);
      return EXIT_INPUT;
   }
   const Device *dev = Measurer_device(m);
   SchedLimits lim;
   SchedLimits_fromDevice(&lim, dev);
   Network net;
   memset(&net, 0, sizeof net);
   bool loaded = false;
   int rc = 0;
   Prediction *p = NULL;
   if (sessionFile) {
      rc = sessionSchedules(sessionFile, taskFile, &lim, &net, &p, &loaded);
   } else if (Cli_loadNetwork(taskFile, &net)) {
      rc = EXIT_INPUT;
   } else {
      loaded = true;
      p = xCalloc((size_t)net.ntasks + 1, sizeof *p);
   }
   if (rc == 0) {
      const Network *nets[] = { &net };
      Featurizer *fz = Featurizer_new(nets, 1, &devices);
      printf("predicting %s (%s) on %s%s\n", net.name, net.path, Measurer_describe(m),
             Measurer_simulated(m) ? ": SIMULATED, not a GPU" : "");
      if (Measurer_note(m))
         printf("note: %s\n", Measurer_note(m));
      printf("estimate: %s\n", model ? "the latency head of the model given" : "PSA's (no --model)");
      if (model)
         printf("model: %s (%s%s)\n", modelFile, ModelKind_name(model->kind),
                model->readsDevice ? ", with the device's features" : "");
      if (sessionFile)
         printf("schedules: the best measured state of each task in %s\n", sessionFile);
      else
         printf("schedules: the state PSA ranks first of %ld random valid states of each task (seed %ld)\n", samples,
                seed);
      if (!sessionFile)
         draftSchedules(&net, &lim, fz, dev->name, samples, seed, p);
      estimate(&net, fz, dev->name, model, p);
      if (measure)
         measureAll(m, &net, p);
      printTable(&net, p, measure);
      Featurizer_free(fz);
   }
   free(p);
   if (loaded)
      Network_done(&net);
   Measurer_close(m);
   DeviceSet_done(&devices);
   CostModel_free(model);
   return rc;
}
