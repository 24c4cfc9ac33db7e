/* The progress lines of a tuning run, shared by --batch and --replay. */
#include "config.h"

#include "progress.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* ms with the given number of decimals, or "-" when not known */
static void fmtMs(char *buf, size_t size, double ms, int decimals) {
   if (isnan(ms))
      snprintf(buf, size, "-");
   else
      snprintf(buf, size, "%.*f", decimals, ms);
}

void Progress_init(Progress *p, FILE *out, const TuneView *view) {
   memset(p, 0, sizeof *p);
   p->out = out;
   p->view = view;
   p->descs = xCalloc(view->ntasks > 0 ? (size_t)view->ntasks : 1, sizeof *p->descs);
   for (int t = 0; t < view->ntasks; t++)
      p->descs[t] = TuneView_describe(view, t);
}

void Progress_done(Progress *p) {
   free(p->descs);
   SchedulerSnapshot_done(&p->snap);
}

static void table(Progress *p) {
   TuneView_snapshot(p->view, &p->snap);
   SchedulerSnapshot_printTable(&p->snap, p->descs, p->view->elapsed, -1, p->out);
}

static void roundLine(Progress *p) {
   const TuneView *v = p->view;
   char best[32], total[32];
   fmtMs(best, sizeof best, v->tasks[v->roundTask].best * 1e3, 4);
   fmtMs(total, sizeof total, v->latencyMs, 4);
   fprintf(p->out, "round %4d  task %3d  trials %6d/%d  task best %s ms%s  estimated total %s ms\n", v->round,
           v->roundTask, v->trials, v->budget, best, v->roundImproved ? " *" : "", total);
}

void Progress_event(Progress *p, const SessionEvent *e) {
   const TuneView *v = p->view;
   switch (e->kind) {
   case SESSION_COMMAND:
      fprintf(p->out, "command: %s (%s)\n", e->command.text, e->command.applied ? "applied" : "refused");
      break;
   case SESSION_ROUND_END:
      if (v->roundTask < 0)
         break;
      roundLine(p);
      if (v->round % 10 == 0)
         table(p);
      break;
   case SESSION_RESUMED:
      fprintf(p->out, "resumed: %d trials done%s%s\n", e->resumed.trials,
              e->resumed.notice && *e->resumed.notice ? "; " : "", e->resumed.notice ? e->resumed.notice : "");
      break;
   case SESSION_FINISHED: fprintf(p->out, "finished: %s\n", SessionEnd_name(e->finished.why)); break;
   default: break;
   }
}

/* A mean with three decimals, or "-" over no rounds (buf: 16 bytes). */
static const char *meanText(const TuneMean *m, char *buf) {
   double v = TuneMean_value(m);
   if (m->rounds == 0 || isnan(v))
      return "-";
   snprintf(buf, 16, "%.3f", v);
   return buf;
}

void Progress_end(Progress *p, double elapsed) {
   const TuneView *v = p->view;
   table(p);
   char total[32];
   fmtMs(total, sizeof total, v->latencyMs, 3);
   fprintf(p->out, "Estimated total latency: %s ms  Trials: %d  Used time: %.0f s\n", total, v->trials, elapsed);
   if (isnan(v->latencyMs)) {
      /* which tasks keep the total unknown */
      int missing = 0;
      char list[256] = "";
      for (int i = 0; i < v->ntasks; i++)
         if (isnan(v->tasks[i].best)) {
            size_t used = strlen(list);
            if (used < sizeof list - 16)
               snprintf(list + used, sizeof list - used, "%s%d", missing ? ", " : "", i);
            else if (used < sizeof list - 4)
               snprintf(list + used, sizeof list - used, "...");
            missing++;
         }
      if (missing > 0)
         fprintf(p->out, "No total: no successful measurement yet for task%s %s\n", missing > 1 ? "s" : "", list);
   }
   char acc[16], tau[16], draft[16], verify[16];
   fprintf(p->out, "Acceptance: mean %s over %d rounds  Kendall tau: mean %s over %d rounds\n",
           meanText(&v->acceptance, acc), v->acceptance.rounds, meanText(&v->tau, tau), v->tau.rounds);
   fprintf(p->out, "Pairwise accuracy on the measured: draft %s over %d rounds  verify %s over %d rounds\n",
           meanText(&v->draftRank, draft), v->draftRank.rounds, meanText(&v->verifyRank, verify),
           v->verifyRank.rounds);
}
