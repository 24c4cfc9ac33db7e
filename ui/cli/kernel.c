/* `pruner-tui kernel` prints the CUDA source of one state of a task; `pruner-tui check`
 * samples states of every task, runs them on the CPU executor against the ops' C
 * references and compiles them with NVRTC. */
#include "config.h"

#include "cli.h"

#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codegen/cuda.h"
#include "ir/lower.h"
#include "measure/nvrtc.h"
#include "measure/verify.h"
#include "te/network.h"
#include "tune/engine.h"
#include "tune/export.h"
#include "tune/session.h"
#include "util/paths.h"
#include "util/xalloc.h"

/* "sm_80,sm_90" into a list; each must be an architecture NVRTC's rule accepts. */
static int parseArchs(const char *cmd, const char *text, char archs[][16], int max, int *n) {
   *n = 0;
   const char *p = text;
   while (*p) {
      const char *end = strchr(p, ',');
      size_t len = end ? (size_t)(end - p) : strlen(p);
      bool ok = len < 16 && *n < max;
      if (ok) {
         memcpy(archs[*n], p, len);
         archs[*n][len] = '\0';
         ok = Nvrtc_isArch(archs[*n]);
      }
      if (!ok)
         return Cli_usage(cmd, "--arch takes sm_NN names separated by commas, like sm_80,sm_90; '%.*s' is not one",
                      (int)len, p);
      (*n)++;
      p += len + (end ? 1 : 0);
   }
   return *n ? 0 : Cli_usage(cmd, "--arch needs at least one architecture");
}

/* ---- kernel ---- */

static const CliOption kernelOptions[] = {
   CLI_STATE_OPTIONS,
   { "arch", 'a', "sm_NN", "also compile the source with NVRTC for sm_NN and print ptxas' report per kernel" },
   { "reference", 'r', NULL,
     "the task's reference program instead of a state: the plain kernels whose output on the GPU is checked "
     "against the C reference before any state of the task is measured" },
   CLI_INPUT_OPTION,
   { NULL, 0, NULL, NULL },
};

static const CliCommand kernelCommand = {
   "kernel",
   "FILE.task TASK [--seed N | --state JSON|@FILE | --reference] [--arch sm_NN]",
   "Print one state of task TASK (its ID in pruner-tui --list FILE.task): the task, the sketch, the "
   "state, each kernel's launch configuration and the CUDA source. With --reference, the task's "
   "reference program in its place.",
   kernelOptions,
};

int Cli_kernel(int argc, char **argv) {
   long seed = 1;
   const char *stateArg = NULL, *arch = NULL;
   bool seedGiven = false, reference = false;
   optind = 1;
   int c;
   while ((c = Cli_getopt(&kernelCommand, argc, argv)) != -1) {
      switch (c) {
      case CLI_OPT_HELP: return 0;
      case CLI_OPT_BAD: return EXIT_USAGE;
      case 's':
         if (Cli_parseCount("kernel", "--seed", optarg, 0, 2147483647L, &seed))
            return EXIT_USAGE;
         seedGiven = true;
         break;
      case 'S': stateArg = optarg; break;
      case 'a': arch = optarg; break;
      case 'r': reference = true; break;
      }
   }
   if (argc - optind != 2)
      return Cli_usage("kernel", "expected FILE.task TASK");
   if (reference && (seedGiven || stateArg))
      return Cli_usage("kernel", "--reference prints the reference program, not a state: leave out %s",
                       stateArg ? "--state" : "--seed");
   char archs[1][16];
   int narchs = 0;
   if (arch && parseArchs("kernel", arch, archs, 1, &narchs))
      return EXIT_USAGE;
   Subject sub;
   int rc = Cli_loadSubject("kernel", argv[optind], argv[optind + 1], seed, seedGiven, stateArg, &sub);
   if (rc)
      return rc;
   DetailsSubject *d = &sub.details;
   char *task, *launch, *src;
   if (reference) {
      Lower_reference(&d->set, &d->ln);
      const Task *t = &d->net->tasks[d->task];
      char shape[160], epi[160];
      Op_describe(&t->op, shape, sizeof shape);
      Op_epilogueText(&t->op, epi, sizeof epi);
      task = xAsprintf("task %d of %s: %s %s, epilogue %s\nthe reference program: %d kernel%s\n", d->task,
                       d->net->name, Op_name(t->op.kind), shape, epi, d->ln.nkernels, d->ln.nkernels == 1 ? "" : "s");
      char *header = xAsprintf("pruner-tui %s: task %d of %s, %s\nthe reference program", PACKAGE_VERSION,
                               d->task, d->net->name, t->key);
      src = Cuda_generate(&d->ln, header);
      free(header);
   } else {
      task = Details_task(d);
      src = Details_source(d);
   }
   launch = Details_launch(d);
   printf("%s%s", task, launch);
   if (narchs) {
      char *cause = NULL;
      NvrtcResult r;
      if (Nvrtc_compile(src, "kernel.cu", archs[0], &r, &cause) < 0) {
         printf("NVRTC %s: %s\n", archs[0], cause);
         free(cause);
         rc = EXIT_INPUT;
      } else {
         for (int k = 0; k < r.nkernels; k++)
            printf("ptxas %s %s: %d registers, %d bytes shared, %d bytes stack, %d/%d bytes spilled (stores/loads)\n",
                   archs[0], r.kernels[k].name, r.kernels[k].registers, r.kernels[k].sharedBytes,
                   r.kernels[k].stackBytes, r.kernels[k].spillStores, r.kernels[k].spillLoads);
      }
      NvrtcResult_done(&r);
   }
   printf("\n%s", src);
   free(src);
   free(launch);
   free(task);
   Subject_done(&sub);
   return rc;
}

/* ---- check ---- */

typedef struct {
   State state;
   bool verified, compiled, failed;
   int64_t blocksRun, grid;
   double maxError, predicted, bound; /* over the reference's RMS (VerifyResult) */
   int registers;               /* of the last kernel, first architecture; -1 unknown */
   char *why;                   /* why it failed */
} CheckResult;

typedef struct {
   const SketchSet *set;
   const VerifyTask *task;
   uint64_t seed;
   char (*archs)[16];
   int narchs;
   bool compile;
   CheckResult *results;
   int nresults;
   int next;
   pthread_mutex_t lock;
} CheckJob;

static void checkState(CheckJob *job, CheckResult *res, LoopNest *ln) {
   Lower_state(job->set, &res->state, ln);
   VerifyResult v;
   Verify_loopNest(job->task, ln, job->seed ^ State_hash(&res->state), &v);
   res->verified = v.ok;
   res->blocksRun = v.blocksRun;
   res->grid = v.grid;
   res->maxError = v.maxError;
   res->predicted = v.predicted;
   res->bound = v.bound;
   res->why = v.why;
   v.why = NULL;
   VerifyResult_done(&v);

   res->registers = -1;
   if (job->compile && !res->why) {
      char *cause = NULL;
      char *src = Cuda_generate(ln, NULL);
      bool all = true;
      for (int a = 0; a < job->narchs && all; a++) {
         NvrtcResult r;
         if (Nvrtc_compile(src, "check.cu", job->archs[a], &r, &cause) < 0) {
            res->why = xAsprintf("NVRTC: %s", cause);
            free(cause);
            all = false;
         } else if (a == 0 && r.nkernels > 0) {
            const NvrtcKernelInfo *ki = NvrtcResult_kernel(&r, ln->kernels[ln->nkernels - 1].name);
            res->registers = ki ? ki->registers : -1;
         }
         NvrtcResult_done(&r);
      }
      res->compiled = all;
      free(src);
   }
   res->failed = res->why != NULL;
}

static void *checkWorker(void *arg) {
   CheckJob *job = arg;
   LoopNest ln;
   LoopNest_init(&ln);
   for (;;) {
      pthread_mutex_lock(&job->lock);
      int i = job->next < job->nresults ? job->next++ : -1;
      pthread_mutex_unlock(&job->lock);
      if (i < 0)
         break;
      checkState(job, &job->results[i], &ln);
   }
   LoopNest_done(&ln);
   return NULL;
}

/* "fp16,bf16", "all" or one name into a set of PRECISION_BITs. */
static int parsePrecisions(const char *text, unsigned *mask) {
   *mask = 0;
   if (strcmp(text, "all") == 0) {
      *mask = (1u << PRECISION_COUNT) - 1;
      return 0;
   }
   const char *bad;
   size_t len;
   if (Precision_parseList(text, mask, &bad, &len) < 0)
      return Cli_usage("check", "--precision takes fp32, tf32, fp16, bf16 or all, or several separated by commas; '%.*s' is not one",
                       (int)len, bad);
   return 0;
}

/* What the rows of one precision found, for the summary. */
typedef struct {
   long tasks, states, failed;
   double worstShare;           /* the largest error over its bound */
   double worstError, worstBound;
   int worstTask;
   double lowRatio, highRatio;  /* of the largest error over its prediction, over states */
} PrecisionSummary;

/* What check reports across tasks. */
typedef struct {
   long total, verified, compiled, failed, skipped;
   char *failures;
   bool precisionColumns;       /* --precision given: a precision, error and bound per row */
   PrecisionSummary summary[PRECISION_COUNT];
   char *noTensorCore;          /* the IDs of tasks without a TC sketch */
   int lastNoTensorCore;
} CheckTotals;

static void addFailure(CheckTotals *c, const char *fmt, ...) ATTR_FORMAT(2, 3);

static void addFailure(CheckTotals *c, const char *fmt, ...) {
   va_list ap;
   va_start(ap, fmt);
   char *line = xVasprintf(fmt, ap);
   va_end(ap);
   char *more = xAsprintf("%s%s", c->failures, line);
   free(c->failures);
   free(line);
   c->failures = more;
}

/* What every row of a check shares. */
typedef struct {
   long samples, seed, jobs;
   char (*archs)[16];
   int narchs;
   bool compile;
   SchedLimits lim;
} CheckConfig;

static int tensorCoreSketch(const SketchSet *set, Precision p) {
   for (int i = 0; i < set->count; i++)
      if (set->sketches[i].precision == p)
         return i;
   return -1;
}

/* Samples, verifies and compiles the states of task t in precision p (FP32: Ansor's
 * sketches; else its Tensor-Core sketch, where it has one) and prints the row. */
static void checkRow(const CheckConfig *cfg, const Task *task, int t, Precision p, const VerifyTask *vt,
                     CheckTotals *c) {
   SketchOptions opt = { p == PRECISION_FP32 ? 0 : PRECISION_BIT(p), false };
   SketchSet set;
   SketchSet_forOpWith(&set, &task->op, &opt);
   int sketch = p == PRECISION_FP32 ? -1 : tensorCoreSketch(&set, p);
   if (p != PRECISION_FP32 && sketch < 0) {
      if (c->lastNoTensorCore != t) {
         char *more = xAsprintf("%s%s%d", c->noTensorCore, *c->noTensorCore ? ", " : "", t);
         free(c->noTensorCore);
         c->noTensorCore = more;
         c->lastNoTensorCore = t;
      }
      SketchSet_done(&set);
      return;
   }
   CheckJob job = { .set = &set, .task = vt, .seed = (uint64_t)cfg->seed, .archs = cfg->archs,
                    .narchs = cfg->narchs, .compile = cfg->compile };
   pthread_mutex_init(&job.lock, NULL);
   job.results = xCalloc((size_t)cfg->samples, sizeof(CheckResult));
   char *cause = NULL;
   Rng srng;
   /* FP32 rows sample as check always has; each precision from a stream of its own */
   Rng_seed(&srng, (uint64_t)cfg->seed + 104729ull * (uint64_t)t + 15485863ull * (uint64_t)p);
   for (long i = 0; i < cfg->samples; i++) {
      if (State_sampleValid(&set, sketch, &srng, &cfg->lim, 100000, &job.results[i].state, &cause) < 0)
         break;
      job.nresults++;
   }
   int nthreads = (int)(cfg->jobs < job.nresults ? cfg->jobs : job.nresults);
   pthread_t *th = xCalloc((size_t)(nthreads ? nthreads : 1), sizeof *th);
   for (int i = 0; i < nthreads; i++)
      if (pthread_create(&th[i], NULL, checkWorker, &job) == 0)
         pthread_setname_np(th[i], "check");
   for (int i = 0; i < nthreads; i++)
      pthread_join(th[i], NULL);
   free(th);
   long tv = 0, tc = 0, tf = 0;
   int regMin = 1 << 30, regMax = -1;
   int64_t runMax = 0, gridMax = 0;
   bool allRun = true;
   double maxError = 0, predicted = 0, bound = 0;
   PrecisionSummary *ps = &c->summary[p];
   for (int i = 0; i < job.nresults; i++) {
      CheckResult *r = &job.results[i];
      tv += r->verified;
      tc += r->compiled;
      tf += r->failed;
      if (r->registers >= 0) {
         regMin = r->registers < regMin ? r->registers : regMin;
         regMax = r->registers > regMax ? r->registers : regMax;
      }
      runMax = r->blocksRun > runMax ? r->blocksRun : runMax;
      gridMax = r->grid > gridMax ? r->grid : gridMax;
      allRun &= r->blocksRun == r->grid;
      if (r->maxError >= maxError) {
         maxError = r->maxError;
         predicted = r->predicted;
      }
      if (r->predicted > 0 && r->verified) {
         double ratio = r->maxError / r->predicted;
         ps->lowRatio = ps->highRatio == 0 || ratio < ps->lowRatio ? ratio : ps->lowRatio;
         ps->highRatio = ratio > ps->highRatio ? ratio : ps->highRatio;
      }
      bound = r->bound;
      if (r->bound > 0 && r->maxError / r->bound >= ps->worstShare) {
         ps->worstShare = r->maxError / r->bound;
         ps->worstError = r->maxError;
         ps->worstBound = r->bound;
         ps->worstTask = t;
      }
      if (r->why) {
         char text[4096];
         State_format(&set, &r->state, text, sizeof text);
         addFailure(c, "task %d, state %s:\n  %s\n", t, text, r->why);
         free(r->why);
      }
   }
   if (job.nresults < cfg->samples) {
      tf++;
      addFailure(c, "task %d%s%s: only %d valid states: %s\n", t, p == PRECISION_FP32 ? "" : " in ",
                 p == PRECISION_FP32 ? "" : Precision_name(p), job.nresults, cause);
   }
   free(cause);
   char blocksText[64], regs[64];
   if (job.nresults == 0)
      snprintf(blocksText, sizeof blocksText, "-");
   else if (allRun)
      snprintf(blocksText, sizeof blocksText, "all");
   else
      snprintf(blocksText, sizeof blocksText, "<=%lld of <=%lld", (long long)runMax, (long long)gridMax);
   if (regMax >= 0)
      snprintf(regs, sizeof regs, "%d-%d (%s)", regMin, regMax, cfg->archs[0]);
   else
      snprintf(regs, sizeof regs, "-");
   if (c->precisionColumns)
      printf("%3d  %-19s  %-4s  %8d  %6d  %8ld  %8ld  %6ld  %9.2e  %9.2e  %8.2e  %-17s  %s\n", t,
             Op_name(task->op.kind), Precision_name(p), set.count, job.nresults, tv, tc, tf, maxError, predicted,
             bound, blocksText, regs);
   else
      printf("%3d  %-19s  %8d  %6d  %8ld  %8ld  %6ld  %-17s  %s\n", t, Op_name(task->op.kind), set.count,
             job.nresults, tv, tc, tf, blocksText, regs);
   fflush(stdout);
   ps->tasks++;
   ps->states += job.nresults;
   ps->failed += tf;
   c->total += job.nresults;
   c->verified += tv;
   c->compiled += tc;
   c->failed += tf;
   free(job.results);
   pthread_mutex_destroy(&job.lock);
   SketchSet_done(&set);
}

/* check --session: the best state of each task of the session, checked as a sampled
 * state is, a row each: its precision, latency, error, predicted error and the bound
 * (the session's --max-error, else the verification's); exit 1 when one fails or errs
 * beyond the session's bound. */
static int checkSession(const CheckConfig *cfg, const char *path, const char *taskFile, long blocks,
                        double maxMemory) {
   SessionLog log;
   SessionLog_init(&log);
   char *notice = NULL, *cause = NULL;
   Network net;
   int *best = NULL;
   if (Session_read(path, &log, &notice, &cause) < 0 || Export_loadNetwork(&log, path, taskFile, &net, &cause) < 0) {
      fprintf(stderr, "pruner-tui check: %s\n", cause);
      free(cause);
      free(notice);
      SessionLog_done(&log);
      return EXIT_INPUT;
   }
   if (notice)
      fprintf(stderr, "pruner-tui check: %s\n", notice);
   free(notice);
   const SessionHeader *h = &log.events[0].header;
   best = xCalloc((size_t)h->ntasks, sizeof *best);
   if (Export_bestMeasures(&log, path, best, &cause) < 0) {
      fprintf(stderr, "pruner-tui check: %s\n", cause);
      free(cause);
      free(best);
      Network_done(&net);
      SessionLog_done(&log);
      return EXIT_INPUT;
   }
   bool overNetwork = h->errorSplit && strcmp(h->errorSplit, "network") == 0;
   double bound = Engine_taskBound(h->maxError, overNetwork, &net);
   printf("checking the best state of each task of %s (%s, %s) on the CPU executor against the C reference\n", path,
          net.name, h->precision && *h->precision ? h->precision : "fp32");
   printf("error: the largest |output - reference| over the reference's RMS; predicted: the largest expected of\n"
          "the elements compared; bound: the session's --max-error%s\n\n",
          isnan(bound)  ? " (none: the verification's own bound)"
          : overNetwork ? ", split over the network's tasks"
                        : "");
   printf("%3s  %-19s  %-4s  %12s  %9s  %9s  %9s  %-17s  %s\n", "ID", "op", "prec", "latency (ms)", "error",
          "predicted", "bound", "blocks run", "verdict");
   int checked = 0, failed = 0, over = 0, none = 0, worstTask = -1;
   double worst = 0;
   LoopNest ln;
   LoopNest_init(&ln);
   for (int t = 0; t < net.ntasks; t++) {
      const Task *task = &net.tasks[t];
      if (best[t] < 0) {
         printf("%3d  %-19s  no state measured ok\n", t, Op_name(task->op.kind));
         none++;
         continue;
      }
      const SessionEvent *ev = &log.events[best[t]];
      char *tooBig = NULL;
      if (VerifyTask_fits(&task->op, t, maxMemory, &tooBig) < 0) {
         printf("%3d  %-19s  %s: skipped\n", t, Op_name(task->op.kind), tooBig);
         free(tooBig);
         failed++;
         continue;
      }
      SketchSet set;
      SketchSet_forOpWith(&set, &task->op, &Sketch_readAny);
      CheckResult r;
      memset(&r, 0, sizeof r);
      if (State_parse(&set, ev->measure.state, &cfg->lim, &r.state, &cause) < 0) {
         printf("%3d  %-19s  %s:%d: the state does not parse: %s\n", t, Op_name(task->op.kind), path, ev->line, cause);
         free(cause);
         cause = NULL;
         SketchSet_done(&set);
         failed++;
         continue;
      }
      VerifyTask *vt = VerifyTask_new(&task->op, (uint64_t)cfg->seed * 7919 + (uint64_t)t, VERIFY_TOLERANCE,
                                      (int)blocks, task->flops <= VERIFY_FULL_FLOPS);
      CheckJob job = { .set = &set, .task = vt, .seed = (uint64_t)cfg->seed };
      checkState(&job, &r, &ln);
      Precision p = set.sketches[r.state.sketch].precision;
      double rowBound = isnan(bound) ? r.bound : bound;
      bool beyond = !r.failed && r.maxError > rowBound;
      char blocksText[64];
      if (r.blocksRun == r.grid)
         snprintf(blocksText, sizeof blocksText, "all");
      else
         snprintf(blocksText, sizeof blocksText, "%lld of %lld", (long long)r.blocksRun, (long long)r.grid);
      printf("%3d  %-19s  %-4s  %12.4f  %9.2e  %9.2e  %9.2e  %-17s  %s\n", t, Op_name(task->op.kind),
             Precision_name(p), Measure_median(ev->measure.costs, ev->measure.ncosts) * 1e3, r.maxError, r.predicted,
             rowBound, blocksText, r.failed ? "FAILED" : beyond ? "BEYOND THE BOUND" : "ok");
      if (r.why)
         printf("     %s\n", r.why);
      checked++;
      failed += r.failed;
      over += beyond;
      if (!r.failed && r.maxError / rowBound >= worst) {
         worst = r.maxError / rowBound;
         worstTask = t;
      }
      free(r.why);
      VerifyTask_free(vt);
      SketchSet_done(&set);
   }
   LoopNest_done(&ln);
   printf("\nchecked %d best states: %d within the bound, %d beyond it, %d failed", checked, checked - over - failed,
          over, failed);
   if (none)
      printf("; %d task%s with none", none, none == 1 ? "" : "s");
   if (worstTask >= 0)
      printf("; the largest error is %.2f of its bound (task %d)", worst, worstTask);
   printf("\n");
   free(best);
   Network_done(&net);
   SessionLog_done(&log);
   return failed || over ? EXIT_INPUT : 0;
}

static const CliOption checkOptions[] = {
   { "samples", 'n', "N", "valid states sampled per task (default 20)" },
   { "tasks", 't', "LIST", "only these tasks: IDs separated by commas, like 0,3,5, or all (the default)" },
   { "arch", 'a', "LIST", "compile each state with NVRTC for these architectures (default sm_80,sm_90)" },
   { "seed", 's', "N", "the seed of the sampling and of the inputs (default 1)" },
   { "blocks", 'b', "N",
     "tasks over 20 MFLOP run the first, the last and N random blocks of their output kernel (default 4)" },
   { "jobs", 'j', "N", "threads (default the number of processors, at most 64)" },
   { "precision", 'p', "LIST",
     "check these precisions: fp32 (Ansor's sketches), tf32, fp16, bf16 (the Tensor-Core sketches of "
     "the dense, batch_matmul and conv2d tasks, against the FP32 reference within the bound that the "
     "precision's rounding allows), separated by commas, or all; a row per task and precision" },
   CLI_MAX_MEMORY_OPTION,
   { "session", 'S', "FILE",
     "instead of sampling, check the best state of each task of the session FILE (FILE.task, when "
     "given, stands for its network file): a row per task with its precision, latency, error, predicted "
     "error and the session's --max-error; exit status 1 when one fails or errs beyond it" },
   CLI_INPUT_OPTION,
   { NULL, 0, NULL, NULL },
};

static const CliCommand checkCommand = {
   "check",
   "FILE.task [--samples N] [--tasks LIST] [--arch LIST] [--seed N]\n[--blocks N] [--jobs N] [--precision LIST] [--max-memory SIZE]\n"
   "       pruner-tui check --session FILE [FILE.task] [--blocks N] [--seed N] [--max-memory SIZE]",
   "Sample states of each task, run each on the CPU executor against the operator's C reference, "
   "compile each with NVRTC when it is present, and print a table per task and each failure. A task "
   "whose buffers would take more than --max-memory is skipped, before anything is allocated. With "
   "--precision, a row per task and precision with the largest error, the error predicted for its "
   "state and the bound, all over the reference output's RMS, and a summary per precision. Exit status 1 when any state failed or any "
   "task was skipped.",
   checkOptions,
};

int Cli_check(int argc, char **argv) {
   CheckConfig cfg = { .samples = 20, .seed = 1, .jobs = sysconf(_SC_NPROCESSORS_ONLN) };
   long blocks = 4;
   double maxMemory = VERIFY_DEFAULT_MAX_MEMORY;
   const char *tasksArg = NULL, *archArg = "sm_80,sm_90", *precisionArg = NULL, *sessionArg = NULL;
   cfg.jobs = cfg.jobs < 1 ? 1 : cfg.jobs > 64 ? 64 : cfg.jobs;
   optind = 1;
   int c;
   while ((c = Cli_getopt(&checkCommand, argc, argv)) != -1) {
      switch (c) {
      case CLI_OPT_HELP: return 0;
      case CLI_OPT_BAD: return EXIT_USAGE;
      case 'n': if (Cli_parseCount("check", "--samples", optarg, 1, 100000, &cfg.samples)) return EXIT_USAGE; break;
      case 's': if (Cli_parseCount("check", "--seed", optarg, 0, 2147483647L, &cfg.seed)) return EXIT_USAGE; break;
      case 'b': if (Cli_parseCount("check", "--blocks", optarg, 1, 1000000, &blocks)) return EXIT_USAGE; break;
      case 'j': if (Cli_parseCount("check", "--jobs", optarg, 1, 256, &cfg.jobs)) return EXIT_USAGE; break;
      case 'M': if (Cli_parseSize("check", "--max-memory", optarg, &maxMemory)) return EXIT_USAGE; break;
      case 't': tasksArg = optarg; break;
      case 'a': archArg = optarg; break;
      case 'p': precisionArg = optarg; break;
      case 'S': sessionArg = optarg; break;
      }
   }
   if (sessionArg) {
      if (argc - optind > 1)
         return Cli_usage("check", "unexpected argument '%s'", argv[optind + 1]);
      if (tasksArg || precisionArg)
         return Cli_usage("check", "--session checks the session's best states: not with %s",
                          tasksArg ? "--tasks" : "--precision");
      SchedLimits_default(&cfg.lim);
      return checkSession(&cfg, sessionArg, optind < argc ? argv[optind] : NULL, blocks, maxMemory);
   }
   if (argc - optind != 1)
      return Cli_usage("check", "expected FILE.task");
   char archs[8][16];
   if (parseArchs("check", archArg, archs, 8, &cfg.narchs))
      return EXIT_USAGE;
   cfg.archs = archs;
   unsigned precisions = PRECISION_BIT(PRECISION_FP32);
   if (precisionArg && parsePrecisions(precisionArg, &precisions))
      return EXIT_USAGE;
   Network net;
   if (Cli_loadNetwork(argv[optind], &net))
      return EXIT_INPUT;
   bool *selected = xCalloc((size_t)net.ntasks, sizeof *selected);
   if (tasksArg) {
      if (Cli_parseTaskList("check", "--tasks", tasksArg, &net, selected)) {
         free(selected);
         Network_done(&net);
         return EXIT_USAGE;
      }
   } else {
      for (int i = 0; i < net.ntasks; i++)
         selected[i] = true;
   }
   char *why = NULL;
   cfg.compile = Nvrtc_open(&why) == 0;
   int major = 0, minor = 0;
   Nvrtc_version(&major, &minor);
   printf("checking %s (%s): %ld states per task", net.name, net.path, cfg.samples);
   if (precisionArg) {
      printf(" and precision (");
      for (int p = 0, n = 0; p < PRECISION_COUNT; p++)
         if (precisions & PRECISION_BIT(p))
            printf("%s%s", n++ ? ", " : "", Precision_name((Precision)p));
      printf(")");
   }
   printf(" on the CPU executor against the C reference");
   if (cfg.compile) {
      printf(", compiled by NVRTC %d.%d for", major, minor);
      for (int a = 0; a < cfg.narchs; a++)
         printf(" %s", archs[a]);
      printf("\n");
   } else {
      printf("; not compiled: %s\n", why);
   }
   free(why);
   printf("tasks over %.0f MFLOP run the first, the last and up to %ld random blocks of their output kernel\n"
          "(about %.0f MFLOP of work per state); kernels before it run in full\n",
          VERIFY_FULL_FLOPS / 1e6, blocks, VERIFY_WORK_BUDGET / 1e6);
   if (precisionArg)
      printf("max error: the largest |output - reference| over the reference's RMS; predicted: the largest\n"
             "error expected of that state from its precision, reduction length, epilogue and the elements\n"
             "compared, on that scale; bound: what an element of the RMS' size may err by on that scale (%.0e,\n"
             "plus the precision's rounding bound for the task's reduction with inputs in [-1, 1))\n",
             VERIFY_TOLERANCE);
   printf("\n");
   CheckTotals totals = { .failures = xStrdup(""), .precisionColumns = precisionArg != NULL,
                          .noTensorCore = xStrdup(""), .lastNoTensorCore = -1 };
   if (precisionArg)
      printf("%3s  %-19s  %-4s  %8s  %6s  %8s  %8s  %6s  %9s  %9s  %8s  %-17s  %s\n", "ID", "op", "prec",
             "sketches", "states", "verified", "compiled", "failed", "max error", "predicted", "bound", "blocks run",
             "registers");
   else
      printf("%3s  %-19s  %8s  %6s  %8s  %8s  %6s  %-17s  %s\n", "ID", "op", "sketches", "states", "verified",
             "compiled", "failed", "blocks run", "registers");
   SchedLimits_default(&cfg.lim);
   for (int t = 0; t < net.ntasks; t++) {
      if (!selected[t])
         continue;
      const Task *task = &net.tasks[t];
      char *tooBig = NULL;
      if (VerifyTask_fits(&task->op, t, maxMemory, &tooBig) < 0) {
         printf("%3d  %-19s  %s: skipped\n", t, Op_name(task->op.kind), tooBig);
         addFailure(&totals, "%s: skipped\n", tooBig);
         free(tooBig);
         totals.skipped++;
         continue;
      }
      /* small tasks run every block; the rest a sample */
      VerifyTask *vt = VerifyTask_new(&task->op, (uint64_t)cfg.seed * 7919 + (uint64_t)t, VERIFY_TOLERANCE,
                                      (int)blocks, task->flops <= VERIFY_FULL_FLOPS);
      for (int p = 0; p < PRECISION_COUNT; p++)
         if (precisions & PRECISION_BIT(p))
            checkRow(&cfg, task, t, (Precision)p, vt, &totals);
      VerifyTask_free(vt);
   }
   if (*totals.failures)
      printf("\nfailures:\n%s", totals.failures);
   free(totals.failures);
   if (precisionArg) {
      printf("\n");
      for (int p = 0; p < PRECISION_COUNT; p++) {
         const PrecisionSummary *ps = &totals.summary[p];
         if (!(precisions & PRECISION_BIT(p)))
            continue;
         printf("%s: %ld task%s, %ld states, %ld failed", Precision_name((Precision)p), ps->tasks,
                ps->tasks == 1 ? "" : "s", ps->states, ps->failed);
         if (ps->worstBound > 0)
            printf("; the largest error against its bound: %.2e of the RMS, bound %.2e (task %d)", ps->worstError,
                   ps->worstBound, ps->worstTask);
         if (ps->highRatio > 0)
            printf("; error over predicted %.2f to %.2f", ps->lowRatio, ps->highRatio);
         printf("\n");
      }
      if (*totals.noTensorCore)
         printf("no tensor-core sketch (not a matrix multiply of two staged operands): task%s %s\n",
                strchr(totals.noTensorCore, ',') ? "s" : "", totals.noTensorCore);
   }
   free(totals.noTensorCore);
   printf("\nchecked %ld states: %ld verified, %ld compiled, %ld failed", totals.total, totals.verified,
          totals.compiled, totals.failed);
   if (totals.skipped)
      printf("; %ld task%s skipped, over --max-memory", totals.skipped, totals.skipped == 1 ? "" : "s");
   printf("\n");
   free(selected);
   Network_done(&net);
   return totals.failed || totals.skipped ? EXIT_INPUT : 0;
}
