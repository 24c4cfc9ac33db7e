/* Ranking and latency-estimate quality of cost models (cost/metrics.h). */
#include "config.h"

#include "cost/metrics.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* The samples of `task` that keep(d, i) accepts; the caller frees. */
static int members(const Dataset *d, int task, bool (*keep)(const Dataset *, int), int **out) {
   int *idx = xMalloc((size_t)(d->n > 0 ? d->n : 1) * sizeof *idx);
   int m = 0;
   for (int i = 0; i < d->n; i++)
      if (d->task[i] == task && keep(d, i))
         idx[m++] = i;
   *out = idx;
   return m;
}

static double scoreOf(const float *scores, int i) {
   return isnan(scores[i]) ? -INFINITY : scores[i];
}

/* ---- ranking ---- */

typedef struct {
   double score, label;
} Ranked;

/* highest score first; among equal scores the lower label first (against the model) */
static int byScoreThenLabel(const void *pa, const void *pb) {
   const Ranked *a = pa, *b = pb;
   if (a->score != b->score)
      return a->score > b->score ? -1 : 1;
   return (a->label > b->label) - (a->label < b->label);
}

static double topK(const Ranked *r, int m, int k, double best) {
   double got = 0;
   for (int i = 0; i < m && i < k; i++)
      got = fmax(got, r[i].label);
   return got / best;
}

/* the share of the pairs of distinct labels that the scores order the same way, a tie
 * in score counting half; NaN without such a pair */
static double pairwise(const Ranked *r, int m, long *npairs) {
   long pairs = 0;
   double right = 0;
   for (int a = 0; a < m; a++)
      for (int b = a + 1; b < m; b++) {
         if (r[a].label == r[b].label)
            continue;
         pairs++;
         if (r[a].score == r[b].score)
            right += 0.5;
         else if ((r[a].score > r[b].score) == (r[a].label > r[b].label))
            right += 1;
      }
   *npairs = pairs;
   return pairs > 0 ? right / (double)pairs : NAN;
}

double Metrics_pairwise(const double *score, const double *label, int n) {
   Ranked *r = xMalloc((size_t)(n > 0 ? n : 1) * sizeof *r);
   for (int i = 0; i < n; i++) {
      r[i].score = score[i];
      r[i].label = label[i];
   }
   long pairs;
   double acc = pairwise(r, n, &pairs);
   free(r);
   return acc;
}

void Metrics_task(const Dataset *d, const float *scores, int task, RankMetrics *out) {
   int *idx;
   int m = members(d, task, Dataset_measured, &idx);
   Ranked *r = xMalloc((size_t)(m > 0 ? m : 1) * sizeof *r);
   double best = 0;
   for (int j = 0; j < m; j++) {
      r[j].score = scoreOf(scores, idx[j]);
      r[j].label = d->label[idx[j]];
      best = fmax(best, r[j].label);
   }
   long pairs;
   out->pairwise = pairwise(r, m, &pairs);
   qsort(r, (size_t)m, sizeof *r, byScoreThenLabel);
   out->samples = m;
   out->pairs = pairs;
   out->top1 = best > 0 ? topK(r, m, 1, best) : NAN;
   out->top5 = best > 0 ? topK(r, m, 5, best) : NAN;
   free(r);
   free(idx);
}

/* Sets the doubles at `fields` of *out (a metrics struct) to the taskWeight-weighted
 * mean of the same fields over the per-task structs (ntasks of `size` bytes), skipping
 * the tasks where a field is undefined (NaN). */
static void weightedFields(const Dataset *d, const void *perTask, size_t size, const size_t *fields, int nfields,
                           void *out) {
   for (int k = 0; k < nfields; k++) {
      double sum = 0, weight = 0;
      for (int t = 0; t < d->ntasks; t++) {
         double v;
         memcpy(&v, (const char *)perTask + (size_t)t * size + fields[k], sizeof v);
         if (!isnan(v)) {
            sum += d->taskWeight[t] * v;
            weight += d->taskWeight[t];
         }
      }
      double mean = weight > 0 ? sum / weight : NAN;
      memcpy((char *)out + fields[k], &mean, sizeof mean);
   }
}

void Metrics_weighted(const Dataset *d, const float *scores, RankMetrics *perTask, RankMetrics *weighted) {
   static const size_t averaged[] = { offsetof(RankMetrics, pairwise), offsetof(RankMetrics, top1),
                                      offsetof(RankMetrics, top5) };
   RankMetrics *per = perTask ? perTask : xMalloc((size_t)(d->ntasks > 0 ? d->ntasks : 1) * sizeof *per);
   weighted->samples = 0;
   weighted->pairs = 0;
   for (int t = 0; t < d->ntasks; t++) {
      Metrics_task(d, scores, t, &per[t]);
      weighted->samples += per[t].samples;
      weighted->pairs += per[t].pairs;
   }
   weightedFields(d, per, sizeof *per, averaged, 3, weighted);
   if (per != perTask)
      free(per);
}

/* ---- latency estimates ---- */

static int byValue(const void *pa, const void *pb) {
   double a = *(const double *)pa, b = *(const double *)pb;
   return (a > b) - (a < b);
}

static double median(double *v, int n) {
   qsort(v, (size_t)n, sizeof *v, byValue);
   return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

typedef struct {
   double value;
   int at;
} Indexed;

static int byIndexedValue(const void *pa, const void *pb) {
   const Indexed *a = pa, *b = pb;
   return (a->value > b->value) - (a->value < b->value);
}

/* 1-based ranks of v, ties sharing their average rank */
static void ranks(const double *v, int n, double *rank) {
   Indexed *s = xMalloc((size_t)n * sizeof *s);
   for (int i = 0; i < n; i++)
      s[i] = (Indexed){ v[i], i };
   qsort(s, (size_t)n, sizeof *s, byIndexedValue);
   for (int i = 0; i < n;) {
      int j = i;
      while (j + 1 < n && s[j + 1].value == s[i].value)
         j++;
      for (int k = i; k <= j; k++)
         rank[s[k].at] = (i + j) / 2.0 + 1;
      i = j + 1;
   }
   free(s);
}

static double pearson(const double *x, const double *y, int n) {
   double mx = 0, my = 0;
   for (int i = 0; i < n; i++) {
      mx += x[i];
      my += y[i];
   }
   mx /= n;
   my /= n;
   double sxy = 0, sxx = 0, syy = 0;
   for (int i = 0; i < n; i++) {
      sxy += (x[i] - mx) * (y[i] - my);
      sxx += (x[i] - mx) * (x[i] - mx);
      syy += (y[i] - my) * (y[i] - my);
   }
   return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

double Metrics_spearman(const double *x, const double *y, int n) {
   if (n < 2)
      return NAN;
   double *rx = xMalloc((size_t)n * sizeof *rx), *ry = xMalloc((size_t)n * sizeof *ry);
   ranks(x, n, rx);
   ranks(y, n, ry);
   double r = pearson(rx, ry, n);
   free(rx);
   free(ry);
   return r;
}

static int sign(double v) {
   return (v > 0) - (v < 0);
}

double Metrics_kendallTau(const double *x, const double *y, int n) {
   double concordant = 0, discordant = 0, tiedX = 0, tiedY = 0;
   for (int i = 0; i < n; i++)
      for (int j = i + 1; j < n; j++) {
         int s = sign(x[i] - x[j]) * sign(y[i] - y[j]);
         concordant += s > 0;
         discordant += s < 0;
         tiedX += x[i] == x[j];
         tiedY += y[i] == y[j];
      }
   double pairs = (double)n * (n - 1) / 2;
   double denominator = sqrt((pairs - tiedX) * (pairs - tiedY));
   return denominator > 0 ? (concordant - discordant) / denominator : NAN;
}

void Metrics_latencyTask(const Dataset *d, const float *estimateMs, int task, LatencyMetrics *out) {
   int *idx;
   int all = members(d, task, Dataset_succeeded, &idx);
   double *est = xMalloc((size_t)(all > 0 ? all : 1) * sizeof *est);
   double *meas = xMalloc((size_t)(all > 0 ? all : 1) * sizeof *meas);
   double *absLog = xMalloc((size_t)(all > 0 ? all : 1) * sizeof *absLog);
   int n = 0;
   double sumLog = 0, sumAbs = 0, sumRel = 0;
   for (int j = 0; j < all; j++) {
      double e = estimateMs[idx[j]];
      if (!(isfinite(e) && e > 0))
         continue;
      est[n] = e;
      meas[n] = d->cost[idx[j]] * 1e3;
      double l = log(est[n] / meas[n]);
      sumLog += l;
      sumAbs += fabs(l);
      sumRel += fabs(est[n] - meas[n]) / meas[n];
      absLog[n++] = fabs(l);
   }
   out->samples = n;
   out->meanLog = n > 0 ? sumLog / n : NAN;
   out->meanAbsLog = n > 0 ? sumAbs / n : NAN;
   out->medianAbsLog = n > 0 ? median(absLog, n) : NAN;
   out->mape = n > 0 ? sumRel / n : NAN;
   out->spearman = Metrics_spearman(est, meas, n);
   out->kendall = Metrics_kendallTau(est, meas, n);
   free(absLog);
   free(meas);
   free(est);
   free(idx);
}

void Metrics_latencyWeighted(const Dataset *d, const float *estimateMs, LatencyMetrics *perTask,
                             LatencyMetrics *weighted) {
   static const size_t averaged[] = { offsetof(LatencyMetrics, medianAbsLog), offsetof(LatencyMetrics, meanAbsLog),
                                      offsetof(LatencyMetrics, meanLog), offsetof(LatencyMetrics, spearman),
                                      offsetof(LatencyMetrics, kendall), offsetof(LatencyMetrics, mape) };
   LatencyMetrics *per = perTask ? perTask : xMalloc((size_t)(d->ntasks > 0 ? d->ntasks : 1) * sizeof *per);
   weighted->samples = 0;
   for (int t = 0; t < d->ntasks; t++) {
      Metrics_latencyTask(d, estimateMs, t, &per[t]);
      weighted->samples += per[t].samples;
   }
   weightedFields(d, per, sizeof *per, averaged, 6, weighted);
   if (per != perTask)
      free(per);
}
