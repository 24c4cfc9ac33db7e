/* `pruner-tui --compare A.jsonl B.jsonl [C ...]`: sessions side by side, on the screen
 * (screen/comparison.c) when standard output is a terminal, else (or with --text) as
 * text, both from one CompareSet (tune/compare.c). As text, each
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

#include <unistd.h>

#include "screen/comparison.h"
#include "tune/compare.h"

#define COMPARE_POINTS 10

/* v in a column of 10 with `decimals` digits after the point; "-" when not finite */
static void print_cell(double v, int decimals) {
   if (isfinite(v))
      printf("%10.*f", decimals, v);
   else
      printf("%10s", "-");
}

/* The table of latency against an axis: COMPARE_POINTS rows spread up to its end. */
static void table(const CompareSet *set, bool byTime) {
   double end = CompareSet_axisEnd(set, byTime);
   printf("\nestimated total latency (ms) against %s\n%10s", byTime ? "time (m:ss)" : "trials",
          byTime ? "time" : "trials");
   for (int k = 0; k < set->n; k++)
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
         CompareSet_clock(x, label, sizeof label);
      else
         snprintf(label, sizeof label, "%.0f", x);
      printf("%10s", label);
      for (int k = 0; k < set->n; k++)
         print_cell(CompareSet_at(set, k, byTime, x), 4);
      printf("\n");
   }
}

static void per_task(const CompareSet *set) {
   if (set->networkCause)
      printf("\n(the task file is not found: %s; weights taken as 1)\n", set->networkCause);
   char line[512];
   CompareSet_tableHead(set, COMPARE_WHAT_WIDTH, line, sizeof line);
   printf("\nbest latency per task (us), and each session's over A's\n%s\n", line);
   for (int t = 0; t < set->ntasks; t++) {
      CompareSet_taskRow(set, t, COMPARE_WHAT_WIDTH, line, sizeof line);
      printf("%s\n", line);
   }
   CompareSet_totalRow(set, COMPARE_WHAT_WIDTH, line, sizeof line);
   printf("%s\n", line);
}

static void print_text(const CompareSet *set) {
   const SessionHeader *a = &set->sides[0].log.events[0].header;
   if (set->sameTasks)
      printf("%d sessions of %s (%d tasks)\n", set->n, a->network, a->ntasks);
   else
      printf("%d sessions of different tasks\n", set->n);
   char line[1024];
   for (int k = 0; k < set->n; k++) {
      CompareSet_sideLine(set, k, line, sizeof line);
      printf("%s\n", line);
   }
   table(set, false);
   table(set, true);
   const CompareSide *ref = &set->sides[0];
   if (ref->npoints) {
      double goal = ref->latency[ref->npoints - 1];
      printf("\nto reach A's final %.4f ms\n", goal);
      for (int k = 0; k < set->n; k++) {
         double trials, seconds;
         char clock[32];
         if (CompareSet_reach(set, k, goal, &trials, &seconds)) {
            CompareSet_clock(seconds, clock, sizeof clock);
            printf("%10c  %.0f trials, %s\n", 'A' + k, trials, clock);
         } else {
            printf("%10c  not reached\n", 'A' + k);
         }
      }
   }
   if (set->sameTasks)
      per_task(set);
   else
      printf("\n(no per-task table: the sessions tune different tasks)\n");
}

int Cli_compare(int argc, char **argv) {
   enum { O_COMPARE = 256, O_TEXT };
   static const struct option options[] = {
      { "compare", no_argument, NULL, O_COMPARE },
      { "text", no_argument, NULL, O_TEXT },
      { "help", no_argument, NULL, 'h' },
      { NULL, 0, NULL, 0 },
   };
   static const char usage[] = "Usage: pruner-tui --compare [--text] SESSION SESSION [SESSION]...\n"
                               "Sessions side by side (at most 8): what each ran, the estimated total latency\n"
                               "of each against trials and against time, the trials and time each took to reach\n"
                               "the first session's final latency, and, when they tune the same tasks, each\n"
                               "task's best latency with its ratio to the first session's and the weighted\n"
                               "totals. On a terminal, a screen: the curves overlaid, a colour and a letter\n"
                               "per session, and the per-task table (q quits, t trials or time, L log scale,\n"
                               "s sort by ratio or ID, F1 help); else as text.\n"
                               "\n"
                               "Options:\n"
                               "      --text             print the text even on a terminal\n"
                               "  -h, --help             show this help and exit\n"
                               "\n"
                               "Exit status: 0 on success, 1 for a bad session file, 2 for bad usage.\n"
                               "See pruner-tui(1), section SESSIONS.\n";
   optind = 1;
   opterr = 0;
   bool text = false;
   int c;
   while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
      switch (c) {
      case O_COMPARE: break;
      case O_TEXT: text = true; break;
      case 'h': fputs(usage, stdout); return EXIT_SUCCESS;
      default: return Cli_usage("--compare", "unknown option '%s'", argv[optind - 1]);
      }
   }
   int n = argc - optind;
   if (n < 2)
      return Cli_usage("--compare", "expected at least two session files, not %d", n);
   if (n > COMPARE_MAX)
      return Cli_usage("--compare", "at most %d session files, not %d", COMPARE_MAX, n);
   CompareSet set;
   CompareSet_init(&set);
   int rc = EXIT_SUCCESS;
   for (int k = 0; k < n && rc == EXIT_SUCCESS; k++) {
      char *notice = NULL, *cause = NULL;
      if (CompareSet_add(&set, argv[optind + k], &notice, &cause) < 0) {
         fprintf(stderr, "pruner-tui --compare: %s\n", cause);
         free(cause);
         rc = EXIT_INPUT;
      }
      if (notice) {
         fprintf(stderr, "pruner-tui --compare: %s\n", notice);
         free(notice);
      }
   }
   if (rc == EXIT_SUCCESS) {
      CompareSet_finish(&set);
      if (text || !isatty(STDOUT_FILENO))
         print_text(&set);
      else
         rc = Comparison_run(&set);
   }
   CompareSet_done(&set);
   return rc;
}
