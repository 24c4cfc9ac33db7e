/* `pruner-tui --compare A.jsonl B.jsonl [C ...]`: sessions side by side, as text. Each
 * session gets a letter (A, B, ...) and a line saying what it ran; then the estimated
 * total latency of each against trials and against time, at ten points spread over the
 * longest; the trials and seconds each took to reach A's final latency; and, when
 * every session tunes the same tasks, each task's best latency (the least median of
 * its successful measurements, as export and the engine take it) with each session's
 * over A's, and the weighted totals. A session that is being written can be read: its
 * cut last line is left out, with the reader's notice. */
#include "config.h"

#include "cli.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/measure.h"
#include "tune/export.h"
#include "tune/session.h"
#include "util/xalloc.h"

#define COMPARE_MAX 8
#define COMPARE_POINTS 10

typedef struct Side_ {
   const char *path;
   SessionLog log;
   int npoints;
   double *trials, *seconds, *latency;  /* per round_end with a latency */
   double *best;                /* per task, seconds; NAN when none */
   const char *end;             /* "budget", "stopped", ... or "running" */
} Side;

static const SessionHeader *headerOf(const Side *s) {
   return &s->log.events[0].header;
}

/* The round ends with a known latency, on a clock that goes on across resumes. */
static void curve(Side *s) {
   int n = s->log.count;
   s->trials = xMalloc((size_t)n * sizeof *s->trials);
   s->seconds = xMalloc((size_t)n * sizeof *s->seconds);
   s->latency = xMalloc((size_t)n * sizeof *s->latency);
   s->end = "running";
   double last = 0, shift = 0;
   for (int i = 1; i < n; i++) {
      const SessionEvent *e = &s->log.events[i];
      if (e->kind == SESSION_RESUMED)
         shift = last;
      double t = e->elapsed + shift;
      if (t > last)
         last = t;
      if (e->kind == SESSION_FINISHED)
         s->end = SessionEnd_name(e->finished.why);
      if (e->kind == SESSION_RESUMED)
         s->end = "running";
      if (e->kind != SESSION_ROUND_END || !isfinite(e->roundEnd.latencyMs))
         continue;
      s->trials[s->npoints] = e->roundEnd.trials;
      s->seconds[s->npoints] = t;
      s->latency[s->npoints] = e->roundEnd.latencyMs;
      s->npoints++;
   }
}

/* The latency at x: that of the last point at or before it on the axis (trials or
 * seconds); NAN before the first. */
static double at(const Side *s, const double *axis, double x) {
   double v = NAN;
   for (int i = 0; i < s->npoints && axis[i] <= x + 1e-9; i++)
      v = s->latency[i];
   return v;
}

static void side_done(Side *s) {
   SessionLog_done(&s->log);
   free(s->trials);
   free(s->seconds);
   free(s->latency);
   free(s->best);
}

static void clock_text(double s, char *buf, size_t size) {
   long t = lround(fmin(s, 1e12));
   if (t >= 3600)
      snprintf(buf, size, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
   else
      snprintf(buf, size, "%ld:%02ld", t / 60, t % 60);
}

/* v in a column of 10 with `decimals` digits after the point; "-" when not finite */
static void print_cell(double v, int decimals) {
   if (isfinite(v))
      printf("%10.*f", decimals, v);
   else
      printf("%10s", "-");
}

/* The table of latency against an axis: COMPARE_POINTS rows spread up to its end. */
static void table(Side *sides, int n, bool byTime) {
   double end = 0;
   for (int k = 0; k < n; k++) {
      const Side *s = &sides[k];
      if (s->npoints)
         end = fmax(end, byTime ? s->seconds[s->npoints - 1] : s->trials[s->npoints - 1]);
   }
   printf("\nestimated total latency (ms) against %s\n%10s", byTime ? "time (m:ss)" : "trials",
          byTime ? "time" : "trials");
   for (int k = 0; k < n; k++)
      printf("%10c", 'A' + k);
   printf("\n");
   if (end <= 0) {
      printf("%10s  (no round has a total latency yet)\n", "-");
      return;
   }
   for (int p = 1; p <= COMPARE_POINTS; p++) {
      double x = byTime ? end * p / COMPARE_POINTS : round(end * p / COMPARE_POINTS);
      char label[32];
      if (byTime)
         clock_text(x, label, sizeof label);
      else
         snprintf(label, sizeof label, "%.0f", x);
      printf("%10s", label);
      for (int k = 0; k < n; k++)
         print_cell(at(&sides[k], byTime ? sides[k].seconds : sides[k].trials, x), 4);
      printf("\n");
   }
}

/* The first point at or below y: its trials and seconds; false when none is. */
static bool reach(const Side *s, double y, double *trials, double *seconds) {
   for (int i = 0; i < s->npoints; i++)
      if (s->latency[i] <= y) {
         *trials = s->trials[i];
         *seconds = s->seconds[i];
         return true;
      }
   return false;
}

static bool same_tasks(const Side *sides, int n) {
   const SessionHeader *a = headerOf(&sides[0]);
   for (int k = 1; k < n; k++) {
      const SessionHeader *b = headerOf(&sides[k]);
      if (b->ntasks != a->ntasks)
         return false;
      for (int t = 0; t < a->ntasks; t++)
         if (strcmp(a->tasks[t], b->tasks[t]) != 0)
            return false;
   }
   return true;
}

static int best_latencies(Side *s, char **cause) {
   int ntasks = headerOf(s)->ntasks;
   int *best = xMalloc((size_t)(ntasks > 0 ? ntasks : 1) * sizeof *best);
   s->best = xMalloc((size_t)(ntasks > 0 ? ntasks : 1) * sizeof *s->best);
   if (Export_bestMeasures(&s->log, s->path, best, cause) < 0) {
      free(best);
      return -1;
   }
   for (int t = 0; t < ntasks; t++) {
      const SessionEvent *e = best[t] >= 0 ? &s->log.events[best[t]] : NULL;
      s->best[t] = e ? Measure_median(e->measure.costs, e->measure.ncosts) : NAN;
   }
   free(best);
   return 0;
}

static void per_task(Side *sides, int n) {
   const SessionHeader *h = headerOf(&sides[0]);
   Network net;
   char *cause = NULL;
   bool haveNet = Export_loadNetwork(&sides[0].log, sides[0].path, NULL, &net, &cause) == 0;
   if (!haveNet) {
      printf("\n(the task file is not found: %s; weights taken as 1)\n", cause);
      free(cause);
   }
   printf("\nbest latency per task (us), and each session's over A's\n%4s  %-56s %6s", "ID", "task", "weight");
   for (int k = 0; k < n; k++)
      printf("%10c", 'A' + k);
   for (int k = 1; k < n; k++)
      printf("%8c/A", 'A' + k);
   printf("\n");
   double *total = xCalloc((size_t)n, sizeof *total);
   bool *whole = xMalloc((size_t)n * sizeof *whole);
   for (int k = 0; k < n; k++)
      whole[k] = true;
   for (int t = 0; t < h->ntasks; t++) {
      char what[224];
      int64_t weight = 1;
      if (haveNet) {
         const Task *task = &net.tasks[t];
         char shape[96], epilogue[64];
         Op_describe(&task->op, shape, sizeof shape);
         Op_epilogueText(&task->op, epilogue, sizeof epilogue);
         snprintf(what, sizeof what, "%s %s%s%s", Op_name(task->op.kind), shape, strcmp(epilogue, "-") ? " " : "",
                  strcmp(epilogue, "-") ? epilogue : "");
         weight = task->weight;
      } else {
         snprintf(what, sizeof what, "%s", h->tasks[t]);
      }
      printf("%4d  %-56.56s %6lld", t, what, (long long)weight);
      for (int k = 0; k < n; k++) {
         print_cell(sides[k].best[t] * 1e6, 3);
         if (isfinite(sides[k].best[t]))
            total[k] += (double)weight * sides[k].best[t];
         else
            whole[k] = false;
      }
      for (int k = 1; k < n; k++)
         print_cell(sides[k].best[t] / sides[0].best[t], 4);
      printf("\n");
   }
   printf("%4s  %-56s %6s", "", "weighted total (ms)", "");
   for (int k = 0; k < n; k++)
      print_cell(whole[k] ? total[k] * 1e3 : NAN, 4);
   for (int k = 1; k < n; k++)
      print_cell(whole[k] && whole[0] ? total[k] / total[0] : NAN, 4);
   printf("\n");
   free(total);
   free(whole);
   if (haveNet)
      Network_done(&net);
}

int Cli_compare(int argc, char **argv) {
   enum { O_COMPARE = 256 };
   static const struct option options[] = {
      { "compare", no_argument, NULL, O_COMPARE },
      { "help", no_argument, NULL, 'h' },
      { NULL, 0, NULL, 0 },
   };
   static const char usage[] = "Usage: pruner-tui --compare SESSION SESSION [SESSION]...\n"
                               "Sessions side by side (at most 8): what each ran, the estimated total latency\n"
                               "of each against trials and against time, the trials and time each took to reach\n"
                               "the first session's final latency, and, when they tune the same tasks, each\n"
                               "task's best latency with its ratio to the first session's and the weighted\n"
                               "totals.\n"
                               "\n"
                               "Options:\n"
                               "  -h, --help             show this help and exit\n"
                               "\n"
                               "Exit status: 0 on success, 1 for a bad session file, 2 for bad usage.\n"
                               "See pruner-tui(1), section SESSIONS.\n";
   optind = 1;
   opterr = 0;
   int c;
   while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
      switch (c) {
      case O_COMPARE: break;
      case 'h': fputs(usage, stdout); return EXIT_SUCCESS;
      default: return Cli_usage("--compare", "unknown option '%s'", argv[optind - 1]);
      }
   }
   int n = argc - optind;
   if (n < 2)
      return Cli_usage("--compare", "expected at least two session files, not %d", n);
   if (n > COMPARE_MAX)
      return Cli_usage("--compare", "at most %d session files, not %d", COMPARE_MAX, n);
   Side sides[COMPARE_MAX];
   memset(sides, 0, sizeof sides);
   int rc = EXIT_SUCCESS, opened = 0;
   for (int k = 0; k < n && rc == EXIT_SUCCESS; k++) {
      Side *s = &sides[k];
      s->path = argv[optind + k];
      SessionLog_init(&s->log);
      opened++;
      char *notice = NULL, *cause = NULL;
      if (Session_read(s->path, &s->log, &notice, &cause) < 0 || best_latencies(s, &cause) < 0) {
         fprintf(stderr, "pruner-tui --compare: %s\n", cause);
         free(cause);
         rc = EXIT_INPUT;
      } else {
         curve(s);
      }
      if (notice) {
         fprintf(stderr, "pruner-tui --compare: %s\n", notice);
         free(notice);
      }
   }
   if (rc == EXIT_SUCCESS) {
      bool same = same_tasks(sides, n);
      const SessionHeader *a = headerOf(&sides[0]);
      if (same)
         printf("%d sessions of %s (%d tasks)\n", n, a->network, a->ntasks);
      else
         printf("%d sessions of different tasks\n", n);
      for (int k = 0; k < n; k++) {
         const Side *s = &sides[k];
         const SessionHeader *h = headerOf(s);
         const char *ckpt = h->checkpoint && *h->checkpoint ? strrchr(h->checkpoint, '/') : NULL;
         ckpt = ckpt ? ckpt + 1 : h->checkpoint;
         double done = s->npoints ? s->trials[s->npoints - 1] : 0;
         printf("%c  %s: %s, %s + %s%s%s, %s%s, seed %lld, %.0f of %d trials, %s\n", 'A' + k, s->path, h->network,
                h->policy, h->costModel, ckpt && *ckpt ? " from " : "", ckpt && *ckpt ? ckpt : "", h->device,
                h->simulated ? " (SIMULATED)" : "", (long long)h->seed, done, h->trialBudget, s->end);
      }
      table(sides, n, false);
      table(sides, n, true);
      const Side *ref = &sides[0];
      if (ref->npoints) {
         double goal = ref->latency[ref->npoints - 1];
         printf("\nto reach A's final %.4f ms\n", goal);
         for (int k = 0; k < n; k++) {
            double trials, seconds;
            char clock[32];
            if (reach(&sides[k], goal, &trials, &seconds)) {
               clock_text(seconds, clock, sizeof clock);
               printf("%10c  %.0f trials, %s\n", 'A' + k, trials, clock);
            } else {
               printf("%10c  not reached\n", 'A' + k);
            }
         }
      }
      if (same)
         per_task(sides, n);
      else
         printf("\n(no per-task table: the sessions tune different tasks)\n");
   }
   for (int k = 0; k < opened; k++)
      side_done(&sides[k]);
   return rc;
}
