/* Sessions side by side: the sessions read, their curves, the per-task bests, the
 * ratios and the weighted totals, and the lines the text and the screen share. */
#include "config.h"

#include "tune/compare.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/measure.h"
#include "te/network.h"
#include "tune/export.h"
#include "util/xalloc.h"

static const SessionHeader *headerOf(const CompareSide *s) {
   return &s->log.events[0].header;
}

void CompareSet_init(CompareSet *set) {
   memset(set, 0, sizeof *set);
}

/* The round ends with a known latency, on a clock that goes on across resumes. */
static void curve(CompareSide *s) {
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

static int bestLatencies(CompareSide *s, char **cause) {
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

int CompareSet_add(CompareSet *set, const char *path, char **notice, char **cause) {
   CompareSide *s = &set->sides[set->n++];
   s->path = path;
   SessionLog_init(&s->log);
   if (Session_read(path, &s->log, notice, cause) < 0 || bestLatencies(s, cause) < 0)
      return -1;
   curve(s);
   return 0;
}

static bool sameTasks(const CompareSet *set) {
   const SessionHeader *a = headerOf(&set->sides[0]);
   for (int k = 1; k < set->n; k++) {
      const SessionHeader *b = headerOf(&set->sides[k]);
      if (b->ntasks != a->ntasks)
         return false;
      for (int t = 0; t < a->ntasks; t++)
         if (strcmp(a->tasks[t], b->tasks[t]) != 0)
            return false;
   }
   return true;
}

/* Each task's description and weight, from the task file when it is found. */
static void describeTasks(CompareSet *set) {
   const CompareSide *a = &set->sides[0];
   const SessionHeader *h = headerOf(a);
   set->tasks = xCalloc((size_t)(h->ntasks > 0 ? h->ntasks : 1), sizeof *set->tasks);
   Network net;
   bool haveNet = Export_loadNetwork(&a->log, a->path, NULL, &net, &set->networkCause) == 0;
   for (int t = 0; t < h->ntasks; t++) {
      CompareTask *ct = &set->tasks[t];
      ct->weight = 1;
      if (!haveNet) {
         snprintf(ct->what, sizeof ct->what, "%s", h->tasks[t]);
         continue;
      }
      const Task *task = &net.tasks[t];
      char shape[96], epilogue[64];
      Op_describe(&task->op, shape, sizeof shape);
      Op_epilogueText(&task->op, epilogue, sizeof epilogue);
      bool hasEpilogue = strcmp(epilogue, "-") != 0;
      snprintf(ct->what, sizeof ct->what, "%s %s%s%s", Op_name(task->op.kind), shape, hasEpilogue ? " " : "",
               hasEpilogue ? epilogue : "");
      ct->weight = task->weight;
   }
   if (haveNet)
      Network_done(&net);
}

void CompareSet_finish(CompareSet *set) {
   set->sameTasks = sameTasks(set);
   if (!set->sameTasks)
      return;
   set->ntasks = headerOf(&set->sides[0])->ntasks;
   describeTasks(set);
   for (int k = 0; k < set->n; k++) {
      const CompareSide *s = &set->sides[k];
      set->total[k] = 0;
      set->whole[k] = true;
      for (int t = 0; t < set->ntasks; t++) {
         if (isfinite(s->best[t]))
            set->total[k] += (double)set->tasks[t].weight * s->best[t];
         else
            set->whole[k] = false;
      }
   }
}

void CompareSet_done(CompareSet *set) {
   for (int k = 0; k < set->n; k++) {
      CompareSide *s = &set->sides[k];
      SessionLog_done(&s->log);
      free(s->trials);
      free(s->seconds);
      free(s->latency);
      free(s->best);
   }
   free(set->tasks);
   free(set->networkCause);
   memset(set, 0, sizeof *set);
}

double CompareSet_axisEnd(const CompareSet *set, bool byTime) {
   double end = 0;
   for (int k = 0; k < set->n; k++) {
      const CompareSide *s = &set->sides[k];
      if (s->npoints)
         end = fmax(end, byTime ? s->seconds[s->npoints - 1] : s->trials[s->npoints - 1]);
   }
   return end;
}

double CompareSet_at(const CompareSet *set, int k, bool byTime, double x) {
   const CompareSide *s = &set->sides[k];
   const double *axis = byTime ? s->seconds : s->trials;
   double v = NAN;
   for (int i = 0; i < s->npoints && axis[i] <= x + 1e-9; i++)
      v = s->latency[i];
   return v;
}

bool CompareSet_reach(const CompareSet *set, int k, double y, double *trials, double *seconds) {
   const CompareSide *s = &set->sides[k];
   for (int i = 0; i < s->npoints; i++)
      if (s->latency[i] <= y) {
         *trials = s->trials[i];
         *seconds = s->seconds[i];
         return true;
      }
   return false;
}

double CompareSet_ratio(const CompareSet *set, int k, int t) {
   return set->sides[k].best[t] / set->sides[0].best[t];
}

double CompareSet_totalRatio(const CompareSet *set, int k) {
   return set->whole[k] && set->whole[0] ? set->total[k] / set->total[0] : NAN;
}

void CompareSet_sideLine(const CompareSet *set, int k, char *buf, size_t size) {
   const CompareSide *s = &set->sides[k];
   const SessionHeader *h = headerOf(s);
   const char *ckpt = h->checkpoint && *h->checkpoint ? strrchr(h->checkpoint, '/') : NULL;
   ckpt = ckpt ? ckpt + 1 : h->checkpoint;
   double done = s->npoints ? s->trials[s->npoints - 1] : 0;
   snprintf(buf, size, "%c  %s: %s, %s + %s%s%s, %s%s, seed %lld, %.0f of %d trials, %s", 'A' + k, s->path,
            h->network, h->policy, h->costModel, ckpt && *ckpt ? " from " : "", ckpt && *ckpt ? ckpt : "",
            h->device, h->simulated ? " (SIMULATED)" : "", (long long)h->seed, done, h->trialBudget, s->end);
}

/* Text appended to buf as snprintf would, never past size. */
typedef struct Line_ {
   char *buf;
   size_t size, len;
} Line;

static void Line_add(Line *l, const char *fmt, ...) ATTR_FORMAT(2, 3);
static void Line_add(Line *l, const char *fmt, ...) {
   if (l->len + 1 >= l->size)
      return;
   va_list ap;
   va_start(ap, fmt);
   int n = vsnprintf(l->buf + l->len, l->size - l->len, fmt, ap);
   va_end(ap);
   if (n > 0)
      l->len = l->len + (size_t)n < l->size ? l->len + (size_t)n : l->size - 1;
}

/* v in a column of 10 with `decimals` digits after the point; "-" when not finite */
static void Line_cell(Line *l, double v, int decimals) {
   if (isfinite(v))
      Line_add(l, "%10.*f", decimals, v);
   else
      Line_add(l, "%10s", "-");
}

static Line Line_over(char *buf, size_t size) {
   if (size)
      buf[0] = '\0';
   return (Line){ .buf = buf, .size = size };
}

void CompareSet_tableHead(const CompareSet *set, int whatWidth, char *buf, size_t size) {
   Line l = Line_over(buf, size);
   Line_add(&l, "%4s  %-*s %6s", "ID", whatWidth, "task", "weight");
   for (int k = 0; k < set->n; k++)
      Line_add(&l, "%10c", 'A' + k);
   for (int k = 1; k < set->n; k++)
      Line_add(&l, "%8c/A", 'A' + k);
}

void CompareSet_taskRow(const CompareSet *set, int t, int whatWidth, char *buf, size_t size) {
   Line l = Line_over(buf, size);
   Line_add(&l, "%4d  %-*.*s %6lld", t, whatWidth, whatWidth, set->tasks[t].what, (long long)set->tasks[t].weight);
   for (int k = 0; k < set->n; k++)
      Line_cell(&l, set->sides[k].best[t] * 1e6, 3);
   for (int k = 1; k < set->n; k++)
      Line_cell(&l, CompareSet_ratio(set, k, t), 4);
}

void CompareSet_totalRow(const CompareSet *set, int whatWidth, char *buf, size_t size) {
   Line l = Line_over(buf, size);
   Line_add(&l, "%4s  %-*.*s %6s", "", whatWidth, whatWidth, "weighted total (ms)", "");
   for (int k = 0; k < set->n; k++)
      Line_cell(&l, set->whole[k] ? set->total[k] * 1e3 : NAN, 4);
   for (int k = 1; k < set->n; k++)
      Line_cell(&l, CompareSet_totalRatio(set, k), 4);
}

void CompareSet_clock(double s, char *buf, size_t size) {
   long t = lround(fmin(s, 1e12));
   if (t >= 3600)
      snprintf(buf, size, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
   else
      snprintf(buf, size, "%ld:%02ld", t / 60, t % 60);
}
