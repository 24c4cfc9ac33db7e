/* `pruner-tui --batch FILE.task`: tuning without the screen. The engine runs round
 * after round on this thread; each round prints a progress line, every 10th round and
 * the end print the scheduler's table, and the end prints the estimated total latency
 * and the draft acceptance. Training is synchronous (the engine waits for each round
 * of the verify model's training), so a seeded run on the simulator writes the same
 * session every time. SIGINT stops it after the current round, the session flushed. */
#include "config.h"

#include "cli.h"

#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/model.h"
#include "progress.h"
#include "tune/engine.h"
#include "tune/session.h"
#include "util/paths.h"
#include "util/xalloc.h"

static volatile sig_atomic_t interrupted;

static void onSigint(int sig) {
   (void)sig;
   interrupted = 1;
}

static void printTable(const Engine *e, SchedulerSnapshot *snap, const char *const *descs) {
   TaskScheduler_snapshot(Engine_scheduler(e), snap);
   Progress_table(stdout, snap, descs, Engine_elapsed(e));
}

int Cli_batch(int argc, char **argv) {
   enum { O_BATCH = 256, O_TRIALS, O_PER_ROUND, O_POLICY, O_COST_MODEL, O_LOAD_MODEL, O_DEVICE, O_DEVICES, O_SEED,
          O_SESSION, O_NO_COMPILE, O_JOBS };
   static const struct option options[] = {
      { "batch", required_argument, NULL, O_BATCH },
      { "trials", required_argument, NULL, O_TRIALS },
      { "per-round", required_argument, NULL, O_PER_ROUND },
      { "policy", required_argument, NULL, O_POLICY },
      { "cost-model", required_argument, NULL, O_COST_MODEL },
      { "load-model", required_argument, NULL, O_LOAD_MODEL },
      { "device", required_argument, NULL, O_DEVICE },
      { "devices", required_argument, NULL, O_DEVICES },
      { "seed", required_argument, NULL, O_SEED },
      { "session", required_argument, NULL, O_SESSION },
      { "no-compile", no_argument, NULL, O_NO_COMPILE },
      { "jobs", required_argument, NULL, O_JOBS },
      { NULL, 0, NULL, 0 },
   };
   EngineConfig cfg;
   EngineConfig_default(&cfg);
   long trials = 1000, perRound = 0, seed = 1, jobs = 0;
   const char *taskFile = NULL, *devicesFile = NULL;
   optind = 1;
   opterr = 0;
   int c;
   while ((c = getopt_long(argc, argv, ":", options, NULL)) != -1) {
      int bad = 0;
      switch (c) {
      case O_BATCH: taskFile = optarg; break;
      case O_TRIALS: bad = Cli_parseCount("--batch", "--trials", optarg, 1, 100000000L, &trials); break;
      case O_PER_ROUND: bad = Cli_parseCount("--batch", "--per-round", optarg, 1, 10000, &perRound); break;
      case O_SEED: bad = Cli_parseCount("--batch", "--seed", optarg, 0, 2147483647L, &seed); break;
      case O_JOBS: bad = Cli_parseCount("--batch", "--jobs", optarg, 1, 256, &jobs); break;
      case O_POLICY:
         if (strcmp(optarg, "pruner") != 0 && strcmp(optarg, "ansor") != 0)
            return Cli_usage("--batch", "--policy takes pruner or ansor, not '%s'", optarg);
         cfg.policy = optarg;
         break;
      case O_COST_MODEL: cfg.costModel = optarg; break;
      case O_LOAD_MODEL: cfg.loadModel = optarg; break;
      case O_DEVICE: cfg.device = optarg; break;
      case O_DEVICES: devicesFile = optarg; break;
      case O_SESSION: cfg.sessionPath = optarg; break;
      case O_NO_COMPILE: cfg.noCompile = true; break;
      case ':': return Cli_usage("--batch", "option '%s' needs an argument", argv[optind - 1]);
      default: return Cli_usage("--batch", "unknown option '%s'", argv[optind - 1]);
      }
      if (bad)
         return EXIT_USAGE;
   }
   if (optind < argc)
      return Cli_usage("--batch", "unexpected argument '%s'", argv[optind]);
   if (!taskFile)
      return Cli_usage("--batch", "expected --batch FILE.task");
   if (Cli_checkDevice("--batch", cfg.device))
      return EXIT_USAGE;
   if (ModelKind_parse(cfg.costModel) < 0)
      return Cli_usage("--batch", "--cost-model takes random, psa, xgb, mlp, pam or pam-moa, not '%s'",
                       cfg.costModel);
   cfg.trials = (int)trials;
   cfg.perRound = (int)perRound;
   cfg.seed = (uint64_t)seed;
   cfg.threads = (int)jobs;

   DeviceSet devices;
   DeviceSet_init(&devices);
   if (Cli_loadDevices(&devices, devicesFile)) {
      DeviceSet_done(&devices);
      return EXIT_INPUT;
   }
   cfg.devices = &devices;
   char *path = Paths_findTaskFile(taskFile);
   cfg.taskFile = path;
   char *cause = NULL;
   Engine *e = Engine_new(&cfg, &cause);
   free(path);
   if (!e) {
      fprintf(stderr, "pruner-tui --batch: %s\n", cause);
      free(cause);
      DeviceSet_done(&devices);
      return EXIT_INPUT;
   }
   const Network *net = Engine_network(e);
   const TaskScheduler *sched = Engine_scheduler(e);
   const Measurer *m = Engine_measurer(e);
   printf("tuning %s (%s, %d tasks) on %s%s\n", net->name, net->path, net->ntasks, Measurer_describe(m),
          Measurer_simulated(m) ? ": SIMULATED, not a GPU" : "");
   if (Measurer_note(m))
      printf("note: %s\n", Measurer_note(m));
   printf("policy %s, cost model %s, %d trials, %d per round, seed %ld%s%s\n", Engine_policy(e),
          Engine_costModel(e), TaskScheduler_budget(sched), TaskScheduler_measuresPerRound(sched), seed,
          cfg.sessionPath ? ", session " : "", cfg.sessionPath ? cfg.sessionPath : "");
   fflush(stdout);

   const char **descs = xCalloc((size_t)net->ntasks, sizeof *descs);
   for (int t = 0; t < net->ntasks; t++)
      descs[t] = net->tasks[t].label ? net->tasks[t].label : net->tasks[t].key;
   SchedulerSnapshot snap;
   memset(&snap, 0, sizeof snap);

   struct sigaction sa, old;
   memset(&sa, 0, sizeof sa);
   sa.sa_handler = onSigint;
   sigemptyset(&sa.sa_mask);
   sa.sa_flags = SA_RESTART;
   interrupted = 0;
   sigaction(SIGINT, &sa, &old);

   int rc = 0;
   for (;;) {
      int r = Engine_runRound(e, &cause);
      if (r < 0) {
         fprintf(stderr, "pruner-tui --batch: %s\n", cause);
         free(cause);
         cause = NULL;
         rc = EXIT_INPUT;
         break;
      }
      if (r == 0)
         break;
      EngineRoundInfo info;
      Engine_lastRound(e, &info);
      double best = TaskScheduler_best(sched, info.task);
      ProgressRound line = {
         .round = info.round,
         .task = info.task,
         .trials = TaskScheduler_trials(sched),
         .budget = TaskScheduler_budget(sched),
         .taskBest = best < SCHEDULER_NO_COST ? best : NAN,
         .improved = info.improved,
         .latencyMs = TaskScheduler_latencyMs(sched),
      };
      Progress_round(stdout, &line);
      if (info.round % 10 == 0)
         printTable(e, &snap, descs);
      fflush(stdout);
      if (interrupted) {
         printf("interrupted: stopping after round %d\n", info.round);
         if (Engine_finish(e, SESSION_END_STOPPED, &cause) < 0) {
            fprintf(stderr, "pruner-tui --batch: %s\n", cause);
            free(cause);
            cause = NULL;
            rc = EXIT_INPUT;
         }
         break;
      }
   }
   sigaction(SIGINT, &old, NULL);

   SessionEnd why;
   if (Engine_finished(e, &why))
      Progress_finished(stdout, why);
   printTable(e, &snap, descs);
   double acc, tau;
   int nacc, ntau;
   Engine_acceptance(e, &acc, &nacc, &tau, &ntau);
   Progress_summary(stdout, TaskScheduler_latencyMs(sched), TaskScheduler_trials(sched), Engine_elapsed(e), acc, nacc,
                    tau, ntau);
   SchedulerSnapshot_done(&snap);
   free(descs);
   Engine_free(e);
   DeviceSet_done(&devices);
   return rc;
}

/* `pruner-tui __session-compare A B`: 0 when the two sessions hold the same events,
 * the wall clock aside; 1 when they differ or cannot be read. For the tests. */
int Cli_sessionCompare(const char *a, const char *b) {
   SessionLog la, lb;
   SessionLog_init(&la);
   SessionLog_init(&lb);
   char *notice = NULL, *cause = NULL;
   int rc = 1;
   if (Session_read(a, &la, &notice, &cause) < 0 || (free(notice), notice = NULL, Session_read(b, &lb, &notice, &cause) < 0)) {
      fprintf(stderr, "pruner-tui __session-compare: %s\n", cause);
      free(cause);
   } else if (Session_equalIgnoringTime(&la, &lb)) {
      rc = 0;
   } else {
      printf("the sessions differ\n");
   }
   free(notice);
   SessionLog_done(&la);
   SessionLog_done(&lb);
   return rc;
}
