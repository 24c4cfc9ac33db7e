/* `pruner-tui --batch FILE.task`: tuning without the screen. The engine runs round
 * after round on this thread; each round prints a progress line, every 10th round and
 * the end print the scheduler's table, and the end prints the estimated total latency
 * and the draft acceptance. A device of a fleet that is retired is said on standard
 * error at the end of its round. Training is synchronous (the engine waits for each round
 * of the verify model's training), so a seeded run on the simulator writes the same
 * session every time. SIGINT, SIGTERM and SIGHUP stop it after the current round, the
 * session flushed. */
#include "config.h"

#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost/model.h"
#include "progress.h"
#include "tune/engine.h"
#include "tune/session.h"
#include "tune/thread.h"
#include "tune/view.h"
#include "util/paths.h"
#include "util/xalloc.h"
#include "screen/workbench.h"

static volatile sig_atomic_t interrupted;

/* Says on standard error, once, that device i was retired in round `round`, after the
 * lines printed so far; told[i] keeps whether it was said. */
static void tellRetired(bool *told, int i, int round, const char *why) {
   if (told[i])
      return;
   told[i] = true;
   fflush(stdout);
   fprintf(stderr, "pruner-tui --batch: round %d: %s\n", round, why);
}

static void onSignal(int sig) {
   interrupted = sig;
}

/* Runs the engine on its thread to the end, printing what its events show; SIGINT,
 * SIGTERM and SIGHUP send it `stop`, which ends the run after the current round. */
static int run(Engine *e, TuneView *view) {
   struct sigaction sa;
   memset(&sa, 0, sizeof sa);
   sa.sa_handler = onSignal;
   sigemptyset(&sa.sa_mask);
   interrupted = 0;
   /* kill, a service stop and a dropped terminal stop it as ^C does */
   int sigs[] = { SIGINT, SIGTERM, SIGHUP };
   struct sigaction olds[3];
   for (int i = 0; i < 3; i++)
      sigaction(sigs[i], &sa, &olds[i]);
   char *cause = NULL;
   EngineThread *t = EngineThread_start(e, &cause);
   if (!t) {
      for (int i = 0; i < 3; i++)
         sigaction(sigs[i], &olds[i], NULL);
      fprintf(stderr, "pruner-tui --batch: %s\n", cause);
      free(cause);
      return EXIT_INPUT;
   }
   Progress p;
   Progress_init(&p, stdout, view);
   bool ended = false, stopping = false;
   const Measurer *m = Engine_measurer(e);
   int ndevices = Measurer_count(m);
   bool *told = xCalloc((size_t)ndevices + 1, sizeof *told);   /* whose retirement was said */
   while (!ended) {
      struct pollfd pfd = { .fd = EngineThread_fd(t), .events = POLLIN };
      if (poll(&pfd, 1, 250) < 0 && errno != EINTR)
         break;
      if (interrupted && !stopping) {
         printf("%s: stopping after the current round\n", interrupted == SIGINT ? "interrupted" : strsignal(interrupted));
         EngineThread_command(t, "stop");
         stopping = true;
      }
      SessionEvent *events;
      int n;
      ended = EngineThread_take(t, &events, &n);
      for (int i = 0; i < n; i++) {
         TuneView_apply(view, &events[i]);
         Progress_event(&p, &events[i]);
         /* a retirement at the end of its round, after the round's line */
         for (int d = 0; events[i].kind == SESSION_ROUND_END && d < events[i].roundEnd.ndevices && d < ndevices; d++)
            if (events[i].roundEnd.devices[d].retired)
               tellRetired(told, d, events[i].round, events[i].roundEnd.devices[d].why);
         SessionEvent_done(&events[i]);
      }
      free(events);
      fflush(stdout);
   }
   int rc = 0;
   if (EngineThread_join(t, &cause) < 0) {
      fprintf(stderr, "pruner-tui --batch: %s\n", cause);
      free(cause);
      rc = EXIT_INPUT;
   }
   for (int i = 0; i < 3; i++)
      sigaction(sigs[i], &olds[i], NULL);
   /* the engine has stopped: its measurer can be read for a retirement in a round
    * that did not end (an error cut it short) */
   for (int d = 0; d < ndevices; d++) {
      MeasurerDeviceStats st;
      Measurer_deviceStats(m, d, &st);
      if (st.retired)
         tellRetired(told, d, view->round, st.why);
   }
   free(told);
   Progress_end(&p, Engine_elapsed(e));
   Progress_done(&p);
   return rc;
}

/* An MPI worker rank of this run: the network, then measuring what rank 0 asks. */
static int workerRank(const EngineConfig *cfg, const char *path) {
   Network net;
   char *why = NULL;
   if (Network_load(&net, path, &why) < 0) {
      int rc = Cli_mpiRefuse(why);
      free(why);
      return rc;
   }
   MeasurerConfig mc;
   EngineConfig_measurer(cfg, &mc);
   int rc = Cli_mpiWorker(&mc, &net, 1);
   Network_done(&net);
   return rc;
}

/* What a session read back has come to: its measurements, its trial budget (budget
 * commands applied), and whether its last run finished (and why) with nothing after. */
static bool sessionState(const SessionLog *log, int *done, int *budget, SessionEnd *why) {
   *done = 0;
   *budget = log->events[0].header.trialBudget;
   bool over = false;
   for (int i = 1; i < log->count; i++) {
      const SessionEvent *ev = &log->events[i];
      if (ev->kind == SESSION_RESUMED)
         continue;
      over = ev->kind == SESSION_FINISHED;
      if (over)
         *why = ev->finished.why;
      *done += ev->kind == SESSION_MEASURE;
      SessionEvent_budget(ev, log->events[0].header.ntasks, budget);
   }
   return over;
}

int Cli_tune(int argc, char **argv) {
   enum { O_BATCH = 256, O_TRIALS, O_PER_ROUND, O_POLICY, O_COST_MODEL, O_LOAD_MODEL, O_DEVICE, O_DEVICES, O_SEED,
          O_SESSION, O_NO_COMPILE, O_JOBS, O_RESUME, O_NO_SESSION, O_OVERLAP, O_VERIFY_EVERY,
          O_ALLOW_MIXED, O_SIM_REALTIME, O_MPI, O_PRECISION, O_MAX_ERROR, O_ERROR_SPLIT };
   _Static_assert(O_ERROR_SPLIT < CLI_OPT_INPUT, "option values apart");
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
      { "resume", required_argument, NULL, O_RESUME },
      { "no-session", no_argument, NULL, O_NO_SESSION },
      { "overlap", no_argument, NULL, O_OVERLAP },
      { "verify-every", required_argument, NULL, O_VERIFY_EVERY },
      { "allow-mixed", no_argument, NULL, O_ALLOW_MIXED },
      { "sim-realtime", no_argument, NULL, O_SIM_REALTIME },
      { "mpi", no_argument, NULL, O_MPI },
      { "precision", required_argument, NULL, O_PRECISION },
      { "max-error", required_argument, NULL, O_MAX_ERROR },
      { "error-split", required_argument, NULL, O_ERROR_SPLIT },
      { "input", required_argument, NULL, CLI_OPT_INPUT },
      { "include-simple-tasks", no_argument, NULL, CLI_OPT_SIMPLE_TASKS },
      { NULL, 0, NULL, 0 },
   };
   /* messages name the mode the user asked for */
   const char *cmd = NULL;
   /* `--batch` with no file after it (`pruner-tui MODEL --batch --trials N`): the model is
    * the positional argument */
   static char batchAlone[] = "--batch=";
   for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
      if (strcmp(argv[i], "--batch") == 0 && (i + 1 == argc || argv[i + 1][0] == '-'))
         argv[i] = batchAlone;
      if (strncmp(argv[i], "--batch", 7) == 0 || strncmp(argv[i], "--resume", 8) == 0)
         cmd = argv[i][2] == 'b' ? "--batch" : "--resume";
   }
   EngineConfig cfg;
   EngineConfig_default(&cfg);
   long trials = 1000, perRound = 0, seed = 1, jobs = 0;
   const char *taskFile = NULL, *devicesFile = NULL, *resume = NULL;
   bool noSession = false, policyGiven = false, trialsGiven = false, perRoundGiven = false, seedGiven = false;
   bool deviceGiven = false, modelGiven = false, batch = false, mpi = false, precisionGiven = false;
   bool splitGiven = false;
   int rank = 0;
   optind = 1;
   opterr = 0;
   int c;
   while ((c = getopt_long(argc, argv, ":", options, NULL)) != -1) {
      int bad = 0;
      switch (c) {
      case O_BATCH:
         if (*optarg)
            taskFile = optarg;
         batch = true;
         break;
      case CLI_OPT_INPUT:
         bad = Cli_addModelInput(cmd, optarg);
         break;
      case CLI_OPT_SIMPLE_TASKS:
         Cli_addSimpleTasks();
         break;
      case O_TRIALS:
         bad = Cli_parseCount(cmd, "--trials", optarg, 1, 100000000L, &trials);
         trialsGiven = true;
         break;
      case O_PER_ROUND:
         bad = Cli_parseCount(cmd, "--per-round", optarg, 1, 10000, &perRound);
         perRoundGiven = true;
         break;
      case O_SEED:
         bad = Cli_parseCount(cmd, "--seed", optarg, 0, 2147483647L, &seed);
         seedGiven = true;
         break;
      case O_JOBS: bad = Cli_parseCount(cmd, "--jobs", optarg, 1, 256, &jobs); break;
      case O_POLICY:
         if (strcmp(optarg, "pruner") != 0 && strcmp(optarg, "ansor") != 0)
            return Cli_usage(cmd, "--policy takes pruner or ansor, not '%s'", optarg);
         cfg.policy = optarg;
         policyGiven = true;
         break;
      case O_COST_MODEL:
         cfg.costModel = optarg;
         modelGiven = true;
         break;
      case O_LOAD_MODEL: cfg.loadModel = optarg; break;
      case O_DEVICE:
         cfg.device = optarg;
         deviceGiven = true;
         break;
      case O_RESUME: resume = optarg; break;
      case O_NO_SESSION: noSession = true; break;
      case O_DEVICES: devicesFile = optarg; break;
      case O_SESSION: cfg.sessionPath = optarg; break;
      case O_NO_COMPILE: cfg.noCompile = true; break;
      case O_OVERLAP: cfg.overlap = true; break;
      case O_ALLOW_MIXED: cfg.allowMixed = true; break;
      case O_SIM_REALTIME: cfg.simRealtime = true; break;
      case O_MPI: mpi = true; break;
      case O_PRECISION: {
         char *why = NULL;
         if (Precision_parseSpec(optarg, &cfg.precisions, &cfg.precisionAuto, &why) < 0) {
            Cli_usage(cmd, "--precision: %s", why);
            free(why);
            return EXIT_USAGE;
         }
         precisionGiven = true;
         break;
      }
      case O_MAX_ERROR:
         bad = Cli_parseReal(cmd, "--max-error", optarg, 0, 1, CLI_ABOVE_MIN, &cfg.maxError);
         precisionGiven = true;
         break;
      case O_ERROR_SPLIT:
         if (strcmp(optarg, "task") != 0 && strcmp(optarg, "network") != 0)
            return Cli_usage(cmd, "--error-split takes task or network, not '%s'", optarg);
         cfg.errorOverNetwork = strcmp(optarg, "network") == 0;
         splitGiven = precisionGiven = true;
         break;
      case O_VERIFY_EVERY: {
         long every;
         bad = Cli_parseCount(cmd, "--verify-every", optarg, 1, 1000000, &every);
         cfg.simVerifyEvery = (int)every;
         break;
      }
      case ':': return Cli_usage(cmd, "option '%s' needs an argument", argv[optind - 1]);
      default: return Cli_usage(cmd, "unknown option '%s'", argv[optind - 1]);
      }
      if (bad)
         return EXIT_USAGE;
   }
   if (optind < argc && !taskFile && !resume)
      taskFile = argv[optind++];
   if (optind < argc)
      return Cli_usage(cmd, "unexpected argument '%s'", argv[optind]);
   /* every rank reads the same options; rank 0 tunes, the others measure */
   if (mpi && Cli_startMpi(cmd, &rank))
      return EXIT_USAGE;
   if (!batch && !isatty(STDOUT_FILENO)) {
      if (rank == 0)
         fprintf(stderr, "pruner-tui: standard output is not a terminal: tuning without the screen, as --batch does\n");
      batch = true;
   } else if (!batch && mpi && !isatty(STDIN_FILENO)) {
      /* mpirun gives rank 0 a pseudo-terminal for its output, but its input is a pipe */
      if (rank == 0)
         fprintf(stderr, "pruner-tui: standard input is not a terminal: tuning without the screen, as --batch does\n");
      batch = true;
   }
   if (noSession && (cfg.sessionPath || resume))
      return Cli_usage(cmd, "--no-session and %s contradict each other", resume ? "--resume" : "--session");
   if (resume) {
      if (cfg.sessionPath)
         return Cli_usage(cmd, "--resume goes on writing its own session; --session cannot name another");
      if (perRoundGiven || seedGiven)
         return Cli_usage(cmd, "--resume goes on with the session's %s; it cannot change",
                          perRoundGiven ? "measures per round" : "seed");
      if (policyGiven)
         return Cli_usage(cmd, "--resume goes on with the session's policy; --policy cannot change it");
      if (precisionGiven)
         return Cli_usage(cmd, "--resume goes on with the session's precisions and error bound; --precision, "
                               "--max-error and --error-split cannot change them");
   } else if (splitGiven && !(cfg.maxError > 0)) {
      return Cli_usage(cmd, "--error-split splits the bound of --max-error, which is not given");
   } else if (!taskFile)
      return Cli_usage(cmd, "expected FILE.task, --batch FILE.task or --resume SESSION");
   if (Cli_checkDevice(cmd, cfg.device))
      return EXIT_USAGE;
   if (ModelKind_parse(cfg.costModel) < 0)
      return Cli_usage(cmd, "--cost-model takes random, psa, xgb, mlp, pam or pam-moa, not '%s'",
                       cfg.costModel);
   /* with a checkpoint and no --cost-model, the checkpoint's kind; with neither, the
    * pruner policy starts from a shipped checkpoint when one knows the network */
   if (cfg.loadModel && !modelGiven && !resume)
      cfg.costModel = NULL;
   if (!cfg.loadModel && !modelGiven && !resume && (!cfg.policy || strcmp(cfg.policy, "pruner") == 0)) {
      cfg.costModel = NULL;
      cfg.pretrained = true;
   }
   cfg.trials = (int)trials;
   cfg.perRound = (int)perRound;
   cfg.seed = (uint64_t)seed;
   cfg.threads = (int)jobs;

   SessionLog log;
   SessionLog_init(&log);
   char *notice = NULL, *cause = NULL, simDevice[256];
   const char *userModel = NULL;
   if (resume) {
      if (Session_read(resume, &log, &notice, &cause) < 0) {
         fprintf(stderr, "pruner-tui%s%s: %s\n", cmd ? " " : "", cmd ? cmd : "", cause);
         free(cause);
         return EXIT_INPUT;
      }
      if (notice && rank == 0)
         fprintf(stderr, "pruner-tui%s%s: %s\n", cmd ? " " : "", cmd ? cmd : "", notice);
      /* the session's own settings; --trials and --cost-model become commands */
      const SessionHeader *h = &log.events[0].header;
      int done, budget;
      SessionEnd why = SESSION_END_BUDGET;
      bool over = sessionState(&log, &done, &budget, &why);
      if (trialsGiven && trials < done) {
         SessionLog_done(&log);
         free(notice);
         return Cli_usage(cmd, "--trials %ld is below the %d trials %s has done", trials, done, resume);
      }
      if (over && why != SESSION_END_STOPPED && !(trialsGiven && trials > done) && !modelGiven) {
         if (rank == 0)
            printf("%s is finished (%s, %d of %d trials): nothing to do; --trials N above %d goes on with it\n",
                   resume, SessionEnd_name(why), done, budget, done);
         SessionLog_done(&log);
         free(notice);
         return 0;
      }
      if (!taskFile)
         taskFile = h->networkFile;
      if (h->simulated && !deviceGiven) {
         /* a simulated fleet again when the header names one */
         if (strncmp(h->fleet, "sim:", 4) == 0)
            snprintf(simDevice, sizeof simDevice, "%s", h->fleet);
         else
            snprintf(simDevice, sizeof simDevice, "sim:%s", h->device);
         cfg.device = simDevice;
      }
      cfg.policy = h->policy;
      userModel = cfg.costModel;
      cfg.costModel = h->costModel;
      /* the model starts again from the checkpoint the session started from */
      if (h->checkpoint && *h->checkpoint && !cfg.loadModel)
         cfg.loadModel = h->checkpoint;
      if (h->precision && *h->precision) {
         char *bad = NULL;
         if (Precision_parseSpec(h->precision, &cfg.precisions, &cfg.precisionAuto, &bad) < 0) {
            fprintf(stderr, "pruner-tui%s%s: %s:1: \"precision\": %s\n", cmd ? " " : "", cmd ? cmd : "", resume, bad);
            free(bad);
            SessionLog_done(&log);
            free(notice);
            return EXIT_INPUT;
         }
      }
      cfg.maxError = h->maxError;
      cfg.errorOverNetwork = h->errorSplit && strcmp(h->errorSplit, "network") == 0;
      cfg.trials = h->trialBudget;
      cfg.perRound = h->measuresPerRound;
      cfg.seed = (uint64_t)h->seed;
      seed = (long)h->seed;
      cfg.sessionPath = resume;
      cfg.resume = &log;
      cfg.resumeNotice = notice;
   }

   DeviceSet devices;
   DeviceSet_init(&devices);
   if (Cli_loadDevices(&devices, devicesFile)) {
      DeviceSet_done(&devices);
      SessionLog_done(&log);
      free(notice);
      return EXIT_INPUT;
   }
   char *sessionDir = noSession || cfg.sessionPath || resume ? NULL : Paths_userDataFile("sessions");
   cfg.sessionDir = sessionDir;
   cfg.devices = &devices;
   /* a resumed session's own task file may have moved with it */
   char *path = resume && taskFile == log.events[0].header.networkFile ? Paths_findRecordedTaskFile(taskFile)
                                                                       : Paths_findTaskFile(taskFile);
   cfg.taskFile = path;
   cfg.modelInputs = Cli_modelInputs();
   if (resume && !cfg.modelInputs && log.events[0].header.networkInputs && *log.events[0].header.networkInputs)
      cfg.modelInputs = log.events[0].header.networkInputs;
   if (rank > 0) {
      int rc = workerRank(&cfg, path);
      free(path);
      free(sessionDir);
      free(notice);
      SessionLog_done(&log);
      DeviceSet_done(&devices);
      return rc;
   }
   cfg.mpi = mpi;
   Engine *e = Engine_new(&cfg, &cause);
   free(path);
   free(sessionDir);
   free(notice);
   if (!e) {
      fprintf(stderr, "pruner-tui%s%s: %s\n", cmd ? " " : "", cmd ? cmd : "", cause);
      free(cause);
      SessionLog_done(&log);
      DeviceSet_done(&devices);
      return EXIT_INPUT;
   }
   const Network *net = Engine_network(e);
   const TaskScheduler *sched = Engine_scheduler(e);
   /* --trials and --cost-model on a resumed session: commands, applied first */
   if (resume) {
      char text[64];
      if (trialsGiven && trials != TaskScheduler_budget(sched)) {
         snprintf(text, sizeof text, "budget %ld", trials);
         Engine_command(e, text);
      }
      if (modelGiven && strcmp(userModel, Engine_costModel(e)) != 0) {
         snprintf(text, sizeof text, "model %s", userModel);
         Engine_command(e, text);
      }
   }
   int rc;
   if (!batch) {
      rc = Workbench_live(e, resume ? &log : NULL, &devices);
      SessionLog_done(&log);
      Engine_free(e);
      DeviceSet_done(&devices);
      return rc;
   }
   const Measurer *m = Engine_measurer(e);
   printf("tuning %s (%s, %d tasks) on %s%s\n", net->name, net->path, net->ntasks, Measurer_describe(m),
          Measurer_simulated(m) ? ": SIMULATED, not a GPU" : "");
   if (Measurer_note(m))
      printf("note: %s\n", Measurer_note(m));
   if (*Engine_modelNote(e))
      printf("note: %s\n", Engine_modelNote(e));
   if (*Engine_precisionNote(e))
      printf("note: %s\n", Engine_precisionNote(e));
   printf("policy %s, cost model %s%s%s%s, %d trials, %d per round, seed %ld%s%s\n", Engine_policy(e),
          Engine_costModel(e), *Engine_checkpoint(e) ? " (from " : "", Engine_checkpoint(e),
          *Engine_checkpoint(e) ? ")" : "", TaskScheduler_budget(sched), TaskScheduler_measuresPerRound(sched), seed,
          Engine_sessionPath(e) ? ", session " : "", Engine_sessionPath(e) ? Engine_sessionPath(e) : "");

   /* the view: the resumed session's events first, without printing them */
   TuneView view;
   TuneView_init(&view, Engine_header(e), net);
   for (int i = 1; i < log.count; i++)
      TuneView_apply(&view, &log.events[i]);
   SessionLog_done(&log);
   if (resume)
      printf("resuming %s: %d trials done in %d rounds\n", resume, view.trials, view.rounds);
   fflush(stdout);
   rc = run(e, &view);
   TuneView_done(&view);
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
   } else {
      int i, j;
      if (Session_compare(&la, &lb, &i, &j))
         rc = 0;
      else
         printf("the sessions differ: %s:%d against %s:%d\n", a, i < la.count ? la.events[i].line : -1, b,
                j < lb.count ? lb.events[j].line : -1);
   }
   free(notice);
   SessionLog_done(&la);
   SessionLog_done(&lb);
   return rc;
}
