/* `pruner-tui train` fits a learned cost model to measurement records and saves it;
 * `pruner-tui eval` scores records with a model (a checkpoint, psa or random) and
 * prints how well it ranks them, per task and weighted over tasks. */
#include "config.h"

#include "cli.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost/checkpoint.h"
#include "cost/latency.h"
#include "cost/metrics.h"
#include "cost/model.h"
#include "cost/models.h"
#include "measure/featurize.h"
#include "measure/record.h"
#include "sched/state.h"
#include "te/op.h"
#include "util/clock.h"
#include "util/xalloc.h"

#define MAX_FILES 64

/* What train and eval share: the records, the networks that define their tasks, the
 * devices, and the dataset made from them. */
typedef struct {
   const char *cmd;
   int nrecordFiles, nnetworkFiles;
   const char *recordFiles[MAX_FILES];
   const char *networkFiles[MAX_FILES];
   const char *devicesFile;
   int nnets;
   Network nets[MAX_FILES + CLI_SHIPPED_NETWORKS];
   DeviceSet devices;
   Dataset data;
   unsigned precisions;         /* PRECISION_BITs of the records' states */
} Offline;

static int addFile(const char *cmd, const char *what, const char **files, int *n, const char *arg) {
   if (*n == MAX_FILES)
      return Cli_usage(cmd, "at most %d %s files", MAX_FILES, what);
   files[(*n)++] = arg;
   return 0;
}

/* Loads everything; returns 0 or the exit status after reporting. */
static int offlineLoad(Offline *o) {
   Dataset_init(&o->data);
   DeviceSet_init(&o->devices);
   if (o->nrecordFiles == 0)
      return Cli_usage(o->cmd, "--records FILE is needed (one or more)");
   if (Cli_loadDevices(&o->devices, o->devicesFile))
      return EXIT_INPUT;
   if (Cli_loadNetworks(o->networkFiles, o->nnetworkFiles, o->nets, &o->nnets))
      return EXIT_INPUT;
   const Network *nets[MAX_FILES + CLI_SHIPPED_NETWORKS];
   for (int i = 0; i < o->nnets; i++)
      nets[i] = &o->nets[i];
   Featurizer *fz = Featurizer_new(nets, o->nnets, &o->devices);
   /* records of several devices: a task's latencies compare on one device only */
   Featurizer_groupByDevice(fz, true);
   int rc = 0;
   for (int i = 0; i < o->nrecordFiles && rc == 0; i++) {
      RecordSet set;
      RecordSet_init(&set);
      char *notice = NULL, *cause = NULL;
      if (Records_read(o->recordFiles[i], &set, &notice, &cause) < 0) {
         fprintf(stderr, "pruner-tui %s: %s\n", o->cmd, cause);
         free(cause);
         rc = EXIT_INPUT;
      }
      if (notice) {
         fprintf(stderr, "pruner-tui %s: %s\n", o->cmd, notice);
         free(notice);
      }
      for (int r = 0; r < set.count; r++)
         o->precisions |= PRECISION_BIT(State_textPrecision(set.records[r].state));
      for (int r = 0; r < set.count && rc == 0; r++)
         if (Featurizer_addRecord(fz, &set.records[r], &o->data, &cause) < 0) {
            fprintf(stderr, "pruner-tui %s: %s: record %d: %s (add its task file with --network)\n", o->cmd,
                    o->recordFiles[i], r + 1, cause);
            free(cause);
            rc = EXIT_INPUT;
         }
      RecordSet_done(&set);
   }
   Featurizer_free(fz);
   if (rc == 0 && o->data.n == 0) {
      fprintf(stderr, "pruner-tui %s: the records hold no measurement\n", o->cmd);
      rc = EXIT_INPUT;
   }
   Dataset_relabel(&o->data);
   return rc;
}

static void offlineDone(Offline *o) {
   Dataset_done(&o->data);
   DeviceSet_done(&o->devices);
   for (int i = 0; i < o->nnets; i++)
      Network_done(&o->nets[i]);
}

/* Scores d with m and prints the metrics: one row per task when perTask, then the
 * weighted totals. */
static void printMetrics(CostModel *m, const Dataset *d, bool perTask) {
   float *scores = xCalloc((size_t)d->n + 1, sizeof *scores);
   CostModel_predict(m, d, scores);
   RankMetrics *rows = xCalloc((size_t)d->ntasks, sizeof *rows);
   RankMetrics all;
   Metrics_weighted(d, scores, rows, &all);
   if (perTask) {
      printf("%-64s  %7s  %8s  %6s  %6s\n", "task", "samples", "pairwise", "top-1", "top-5");
      for (int t = 0; t < d->ntasks; t++)
         printf("%-64.64s  %7d  %8.4f  %6.4f  %6.4f\n", d->taskKey[t], rows[t].samples, rows[t].pairwise,
                rows[t].top1, rows[t].top5);
   }
   printf("weighted over %d tasks (%d samples): pairwise accuracy %.4f, top-1 %.4f, top-5 %.4f\n", d->ntasks,
          d->n, all.pairwise, all.top1, all.top5);
   free(rows);
   free(scores);
}

/* How far an estimate of the latency (ms[i] for every sample of d) is from the
 * measured latency, on one line after "WHO against the measured latency"; after a
 * row per task (its MAPE and bias) when perTask. */
static void printLatency(const char *who, const Dataset *d, const float *ms, bool perTask) {
   LatencyMetrics le;
   LatencyMetrics *rows = xCalloc((size_t)d->ntasks + 1, sizeof *rows);
   Metrics_latencyWeighted(d, ms, rows, &le);
   if (perTask) {
      printf("%-64s  %7s  %7s  %7s\n", who, "samples", "MAPE", "bias");
      for (int t = 0; t < d->ntasks; t++)
         printf("%-64.64s  %7d  %6.1f%%  %+7.3f\n", d->taskKey[t], rows[t].samples, 100 * rows[t].mape,
                rows[t].meanLog);
   }
   free(rows);
   printf("%s against the measured latency (%d samples, weighted over tasks): MAPE %.1f%%, typically off by a "
          "factor %.2f (median |ln(estimate/measured)| %.3f, mean %.3f, bias %+.3f); Spearman %.4f, Kendall tau "
          "%.4f\n",
          who, le.samples, 100 * le.mape, exp(le.medianAbsLog), le.medianAbsLog, le.meanAbsLog, le.meanLog,
          le.spearman, le.kendall);
}

/* The latency head's line for d, when m has a head. */
static void printHeadLatency(CostModel *m, const Dataset *d, bool perTask) {
   float *ms = xCalloc((size_t)d->n + 1, sizeof *ms);
   if (CostModel_predictLatency(m, d, ms))
      printLatency("the latency head's estimate", d, ms, perTask);
   free(ms);
}

/* On a terminal one line redrawn every epoch; elsewhere a line every 10 epochs. */
static bool showProgress(void *ctx, int epoch, int epochs, double loss) {
   double *t0 = ctx;
   bool tty = isatty(2);
   if (tty || epoch % 10 == 0 || epoch == epochs)
      fprintf(stderr, "%sepoch %d of at most %d: loss %.6g (%.1f s)%s", tty ? "\r" : "", epoch, epochs, loss,
              Clock_now() - *t0, tty ? "" : "\n");
   return true;
}

/* The options train and eval share: what the records are and where their tasks are. */
#define OFFLINE_OPTIONS                                                                                    \
   { "records", 'r', "FILE...", "measurement records (pruner-tui-records(5)): one or more files" },        \
   { "network", 'n', "FILE.task",                                                                          \
     "also look the records' tasks up in FILE.task (the shipped task files always are); repeatable" },   \
   { "devices", 'D', "FILE", "also read GPU descriptions from FILE, for the records' devices" }

static const CliOption trainOptions[] = {
   OFFLINE_OPTIONS,
   { "model", 'm', "KIND", "a fresh model: pam, pam-moa (from --init's PAM), mlp or xgb (where built in)" },
   { "init", 'i', "CKPT", "start from a saved checkpoint instead" },
   { "device-features", 'F', NULL,
     "a fresh xgb, mlp or pam also reads each record's device (its SM count, clock, FP32 peak, DRAM and L2 "
     "bandwidth, L2 and shared memory, registers), to learn from records of several devices" },
   { "latency-head", 'L', NULL,
     "also train a latency head, which estimates each state's latency in milliseconds (for predict and the "
     "MAPE that eval prints): a network that reads the state and learns how far a roofline built on PSA's "
     "estimate for its device (L2 and DRAM traffic, the launches) is from the measurement" },
   { "head-epochs", 'E', "N",
     "the latency head's epochs at most (default 150, with an early stop after 40 without a better loss)" },
   { "out", 'o', "FILE", "save the trained model to FILE (needed)" },
   { "holdout", 'H', "F",
     "train on 1 - F of each task's records (0 < F < 1, like 0.2) and report the ranking quality on the "
     "F held out" },
   { "epochs", 'e', "N", "at most N epochs (default 50, with an early stop after 16 without a better loss)" },
   { "seed", 's', "N", "the seed of the model's initialization, the split and the training (default 1)" },
   { "per-task", 'p', NULL, "with --holdout, also print each task's ranking quality on the records held out" },
   { NULL, 0, NULL, NULL },
};

static const CliCommand trainCommand = {
   "train",
   "--records FILE... --model pam|pam-moa|mlp|xgb [--init CKPT] [--device-features]\n"
   "[--latency-head [--head-epochs N]] "
   "--out FILE [--holdout F] [--epochs N] [--seed N] [--per-task]\n"
   "[--network FILE.task]... [--devices FILE]",
   "Fit a learned cost model to measurement records and save it as a checkpoint, then print its ranking "
   "quality on the training records. Progress goes to standard error.",
   trainOptions,
};

/* Whether some task of d has successful measurements of two different latencies, the
 * least a ranking is learned from; *cause says what the records hold when not. */
static bool learnable(const Dataset *d, char **cause) {
   double *seen = xCalloc((size_t)d->ntasks + 1, sizeof *seen);
   int succeeded = 0;
   bool two = false;
   for (int i = 0; i < d->n; i++) {
      if (!Dataset_succeeded(d, i))
         continue;
      succeeded++;
      double *first = &seen[d->task[i]];
      two |= *first != 0 && *first != d->cost[i];
      if (*first == 0)
         *first = d->cost[i];
   }
   free(seen);
   if (!two)
      setCause(cause, "nothing to learn from: no task has two successful measurements of different latencies (%d "
               "samples of %d tasks, %d measured successfully); no checkpoint written", d->n, d->ntasks, succeeded);
   return two;
}

/* "a pam", "an xgb" */
static const char *withArticle(ModelKind k) {
   static const char *const names[MODEL_KIND_COUNT] = { "a random", "a psa", "an xgb", "an mlp", "a pam",
                                                        "a pam-moa" };
   return names[k];
}

/* The model to train: a fresh one of kind `kind` (-1: none asked), or init's
 * checkpoint, which must hold a model of that kind (or a pam for pam-moa, which
 * becomes MoA's slow network); NULL with *cause. */
static CostModel *startModel(int kind, const char *modelName, const char *init, long seed, bool device,
                             char **cause) {
   if (!init && kind == MODEL_PAM_MOA) {
      *cause = xStrdup("pam-moa starts from a pretrained model: give its PAM checkpoint with --init");
      return NULL;
   }
   if (!init)
      return device ? CostModel_newDevice((ModelKind)kind, (uint64_t)seed, cause)
                    : CostModel_new((ModelKind)kind, (uint64_t)seed, cause);
   CostModel *m = CostModel_load(init, cause);
   if (!m || kind < 0 || (int)m->kind == kind)
      return m;
   if (kind == MODEL_PAM_MOA && m->kind == MODEL_PAM) {
      /* MoA starts from a pretrained PAM: its slow copy */
      CostModel *moa = PamMoa_fromPretrained(m, cause);
      CostModel_free(m);
      return moa;
   }
   *cause = xAsprintf("%s: holds %s model, not the %s that --model asked for%s", init, withArticle(m->kind),
                      modelName, kind == MODEL_PAM_MOA ? " (or a pam, for its slow network)" : "");
   CostModel_free(m);
   return NULL;
}

int Cli_train(int argc, char **argv) {
   Offline o;
   memset(&o, 0, sizeof o);
   o.cmd = "train";
   const char *modelName = NULL, *init = NULL, *out = NULL;
   double holdout = 0;
   long epochs = -1, headEpochs = -1, seed = 1;
   bool perTask = false, device = false, latencyHead = false;
   optind = 1;
   int c;
   while ((c = Cli_getopt(&trainCommand, argc, argv)) != -1) {
      int bad = 0;
      switch (c) {
      case CLI_OPT_HELP: return 0;
      case CLI_OPT_BAD: return EXIT_USAGE;
      case 'r': bad = addFile("train", "records", o.recordFiles, &o.nrecordFiles, optarg); break;
      case 'n': bad = addFile("train", "task", o.networkFiles, &o.nnetworkFiles, optarg); break;
      case 'D': o.devicesFile = optarg; break;
      case 'm': modelName = optarg; break;
      case 'i': init = optarg; break;
      case 'o': out = optarg; break;
      case 'p': perTask = true; break;
      case 'F': device = true; break;
      case 'L': latencyHead = true; break;
      case 'E': bad = Cli_parseCount("train", "--head-epochs", optarg, 1, 10000, &headEpochs); break;
      case 'e': bad = Cli_parseCount("train", "--epochs", optarg, 1, 10000, &epochs); break;
      case 's': bad = Cli_parseCount("train", "--seed", optarg, 0, 2147483647L, &seed); break;
      case 'H': bad = Cli_parseReal("train", "--holdout", optarg, 0, 1, CLI_ABOVE_MIN | CLI_BELOW_MAX, &holdout); break;
      }
      if (bad)
         return EXIT_USAGE;
   }
   /* --records FILE...: the words after it are more records files */
   for (; optind < argc; optind++) {
      if (o.nrecordFiles == 0)
         return Cli_usage("train", "unexpected argument '%s'", argv[optind]);
      if (addFile("train", "records", o.recordFiles, &o.nrecordFiles, argv[optind]))
         return EXIT_USAGE;
   }
   int kind = modelName ? ModelKind_parse(modelName) : -1;
   if (!init && (kind < 0 || kind == MODEL_RANDOM || kind == MODEL_PSA))
      return Cli_usage("train", "--model takes pam, pam-moa, mlp or xgb%s", modelName ? "" : " (or --init CHECKPOINT)");
   if (!out)
      return Cli_usage("train", "--out FILE is needed");
   if (device && init)
      return Cli_usage("train", "--device-features makes a fresh model; --init's checkpoint says whether it reads the "
                                "device");
   int rc = offlineLoad(&o);
   if (rc) {
      offlineDone(&o);
      return rc;
   }
   Dataset train, test;
   Dataset_init(&train);
   Dataset_init(&test);
   if (holdout > 0)
      Dataset_split(&o.data, 1 - holdout, (uint64_t)seed, &train, &test);
   const Dataset *fitOn = holdout > 0 ? &train : &o.data;
   char *cause = NULL;
   CostModel *m = learnable(fitOn, &cause) ? startModel(kind, modelName, init, seed, device, &cause) : NULL;
   if (!m) {
      fprintf(stderr, "pruner-tui train: %s\n", cause);
      free(cause);
      Dataset_done(&train);
      Dataset_done(&test);
      offlineDone(&o);
      return EXIT_INPUT;
   }
   TrainConfig cfg;
   TrainConfig_default(&cfg);
   cfg.seed = (uint64_t)seed;
   if (epochs > 0)
      cfg.epochs = (int)epochs;
   double t0 = Clock_now();
   cfg.progress = showProgress;
   cfg.ctx = &t0;
   printf("training %s%s on %d samples of %d tasks%s\n", ModelKind_name(m->kind),
          m->readsDevice ? " (with the device's features)" : "", fitOn->n, fitOn->ntasks,
          init ? " from the checkpoint given" : "");
   fflush(stdout);
   /* for pam-moa, one update: its fast network trained on everything, the slow copy
    * kept as it was until a 4th update */
   if (CostModel_fit(m, fitOn, &cfg, &cause) < 0) {
      fprintf(stderr, "\npruner-tui train: %s\n", cause);
      free(cause);
      rc = EXIT_INPUT;
   } else {
      fprintf(stderr, isatty(2) ? "\n" : "");
      printf("trained in %.1f s\n", Clock_now() - t0);
      if (latencyHead) {
         t0 = Clock_now();
         TrainConfig head;
         LatencyHead_defaultConfig(&head);
         head.seed = cfg.seed;
         head.progress = cfg.progress;
         head.ctx = cfg.ctx;
         if (headEpochs > 0)
            head.epochs = (int)headEpochs;
         if (CostModel_fitLatency(m, fitOn, &head, &cause) < 0) {
            fprintf(stderr, "\npruner-tui train: %s; no checkpoint written\n", cause);
            free(cause);
            CostModel_free(m);
            Dataset_done(&train);
            Dataset_done(&test);
            offlineDone(&o);
            return EXIT_INPUT;
         }
         fprintf(stderr, isatty(2) ? "\n" : "");
         printf("latency head trained in %.1f s\n", Clock_now() - t0);
      }
      /* the checkpoint says which operators it has seen (with --init's too), for
       * pruner-tui to know the networks it can start from it */
      for (int t = 0; t < fitOn->ntasks; t++) {
         int k = Op_kindOfKey(fitOn->taskKey[t]);
         if (k >= 0)
            m->opKinds |= 1u << k;
      }
      /* and the precisions of the states: a model that has seen no Tensor-Core state
       * says so to the engine, which ranks those by PSA until it has */
      m->opKinds |= (uint32_t)o.precisions << CHECKPOINT_PRECISION_SHIFT;
      printf("learned from tasks of:");
      for (int k = 0; k < OP_KIND_COUNT; k++)
         if (m->opKinds & 1u << k)
            printf(" %s", Op_name((OpKind)k));
      printf("; states in:");
      for (int p = 0; p < PRECISION_COUNT; p++)
         if (Checkpoint_precisions(m->opKinds) & PRECISION_BIT(p))
            printf(" %s", Precision_name((Precision)p));
      printf("\n");
      if (CostModel_save(m, out, &cause) < 0) {
         fprintf(stderr, "pruner-tui train: %s\n", cause);
         free(cause);
         rc = EXIT_INPUT;
      } else {
         printf("saved %s\n", out);
      }
      printf("on the training samples: ");
      printMetrics(m, fitOn, false);
      printHeadLatency(m, fitOn, false);
      if (holdout > 0) {
         printf("on the %.0f%% held out: ", 100 * holdout);
         printMetrics(m, &test, perTask);
         printHeadLatency(m, &test, false);
      }
   }
   CostModel_free(m);
   Dataset_done(&train);
   Dataset_done(&test);
   offlineDone(&o);
   return rc;
}

static const CliOption evalOptions[] = {
   OFFLINE_OPTIONS,
   { "model", 'm', "CKPT|psa|random",
     "a checkpoint of pruner-tui train, psa (Pruner's draft model, on each record's device) or random" },
   { "seed", 's', "N", "the seed of the random model (default 1)" },
   { "per-task", 'p', NULL, "also print each task's ranking quality" },
   { NULL, 0, NULL, NULL },
};

static const CliCommand evalCommand = {
   "eval",
   "--records FILE... --model CKPT|psa|random [--per-task]\n"
   "[--seed N] [--network FILE.task]... [--devices FILE]",
   "Score measurement records with a model and print the pairwise ranking accuracy and the top-1 and "
   "top-5 peak scores, weighted over tasks; for psa, and for a checkpoint with a latency head (see train), "
   "also how far "
   "the latency estimate is from the measured latency (MAPE and more).",
   evalOptions,
};

int Cli_eval(int argc, char **argv) {
   Offline o;
   memset(&o, 0, sizeof o);
   o.cmd = "eval";
   const char *modelArg = NULL;
   long seed = 1;
   bool perTask = false;
   optind = 1;
   int c;
   while ((c = Cli_getopt(&evalCommand, argc, argv)) != -1) {
      int bad = 0;
      switch (c) {
      case CLI_OPT_HELP: return 0;
      case CLI_OPT_BAD: return EXIT_USAGE;
      case 'r': bad = addFile("eval", "records", o.recordFiles, &o.nrecordFiles, optarg); break;
      case 'n': bad = addFile("eval", "task", o.networkFiles, &o.nnetworkFiles, optarg); break;
      case 'D': o.devicesFile = optarg; break;
      case 'm': modelArg = optarg; break;
      case 's': bad = Cli_parseCount("eval", "--seed", optarg, 0, 2147483647L, &seed); break;
      case 'p': perTask = true; break;
      }
      if (bad)
         return EXIT_USAGE;
   }
   /* --records FILE...: the words after it are more records files */
   for (; optind < argc; optind++) {
      if (o.nrecordFiles == 0)
         return Cli_usage("eval", "unexpected argument '%s'", argv[optind]);
      if (addFile("eval", "records", o.recordFiles, &o.nrecordFiles, argv[optind]))
         return EXIT_USAGE;
   }
   if (!modelArg)
      return Cli_usage("eval", "--model takes a checkpoint file, psa or random");
   int rc = offlineLoad(&o);
   if (rc) {
      offlineDone(&o);
      return rc;
   }
   char *cause = NULL;
   int kind = ModelKind_parse(modelArg);
   CostModel *m = kind == MODEL_PSA || kind == MODEL_RANDOM ? CostModel_new((ModelKind)kind, (uint64_t)seed, &cause)
                                                           : CostModel_load(modelArg, &cause);
   if (!m) {
      fprintf(stderr, "pruner-tui eval: %s\n", cause);
      free(cause);
      offlineDone(&o);
      return EXIT_INPUT;
   }
   printf("%s on %d records of %d tasks\n", ModelKind_name(m->kind), o.data.n, o.data.ntasks);
   printMetrics(m, &o.data, perTask);
   if (m->kind == MODEL_PSA) {
      printLatency("PSA's latency estimate", &o.data, o.data.psaLatency, perTask);
      printLatency("the roofline (the latency head's baseline)", &o.data, o.data.roofline, perTask);
   }
   printHeadLatency(m, &o.data, perTask);
   CostModel_free(m);
   offlineDone(&o);
   return rc;
}
