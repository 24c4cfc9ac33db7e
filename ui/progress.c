/* The progress lines of a tuning run, shared by --batch and --replay. */
#include "config.h"

#include "progress.h"

#include <math.h>

/* ms with the given number of decimals, or "-" when not known */
static void fmtMs(char *buf, size_t size, double ms, int decimals) {
   if (isnan(ms))
      snprintf(buf, size, "-");
   else
      snprintf(buf, size, "%.*f", decimals, ms);
}

void Progress_round(FILE *out, const ProgressRound *r) {
   char best[32], total[32];
   fmtMs(best, sizeof best, r->taskBest * 1e3, 4);
   fmtMs(total, sizeof total, r->latencyMs, 4);
   fprintf(out, "round %4d  task %3d  trials %6d/%d  task best %s ms%s  estimated total %s ms\n", r->round,
           r->task, r->trials, r->budget, best, r->improved ? " *" : "", total);
}

void Progress_finished(FILE *out, SessionEnd why) {
   fprintf(out, "finished: %s\n", SessionEnd_name(why));
}

void Progress_table(FILE *out, const SchedulerSnapshot *snap, const char *const *descs, double elapsed) {
   SchedulerSnapshot_printTable(snap, descs, elapsed, -1, out);
}

void Progress_summary(FILE *out, double latencyMs, int trials, double elapsed, double meanAcceptance,
                      int nAcceptance, double meanTau, int nTau) {
   char total[32];
   fmtMs(total, sizeof total, latencyMs, 3);
   fprintf(out, "Estimated total latency: %s ms  Trials: %d  Used time: %.0f s\n", total, trials, elapsed);
   fprintf(out, "Acceptance: mean %.3f over %d rounds  Kendall tau: mean %.3f over %d rounds\n", meanAcceptance,
           nAcceptance, meanTau, nTau);
}
