/* How good a cost model's output is on measured samples: how well its scores rank a
 * task's samples (against the labels, Dataset_relabel's), and how close a latency
 * estimate such as PSA's comes to the measured cost. Each metric is per task and
 * over tasks, weighted by Dataset.taskWeight.
 *
 * Ranking (RankMetrics), over the task's measured samples (failures included, with
 * label 0; samples to score, with cost 0, are left out). A NaN score counts as -inf.
 *   pairwise  over the pairs of samples with different labels, the share whose scores
 *             are ordered as their labels are; a tie in score counts half, so a
 *             constant model scores 0.5.
 *   top1, top5  TenSet's top-k peak score: the best label among the k samples of
 *             highest score, over the best label of the task (1 after a relabel of
 *             the whole data, less on a split's test side). Ties in score are broken
 *             against the model (the lower label first): a tie earns nothing. A task
 *             with fewer than k samples uses them all.
 * Latency (LatencyMetrics), over the task's successful samples whose estimate is
 * finite and more than 0; e = ln(estimate / measured), both in ms:
 *   medianAbsLog, meanAbsLog  median and mean of |e| (0 when every estimate is
 *             exact): exp(medianAbsLog) is the factor by which a typical estimate
 *             is off;
 *   meanLog   mean of e: the bias (exp(meanLog) is the geometric mean of
 *             estimate / measured; > 0 over-estimates);
 *   mape      the mean absolute percentage error, mean of |estimate - measured| /
 *             measured (as a fraction: 0.15 is 15%), CDMPP's measure;
 *   spearman  Spearman's rank correlation between estimate and measured latency
 *             (ties get their average rank);
 *   kendall   Kendall's tau-b between them.
 * Undefined values are NaN (isnan is their valid bit): pairwise without a pair,
 * top-k when no sample of the task succeeded, latency errors without a sample,
 * correlations with fewer than two samples or a constant side. Over tasks, each value
 * is the taskWeight-weighted mean over the tasks where it is defined (NaN when it is
 * nowhere); samples and pairs are sums. */
#ifndef HEADER_metrics
#define HEADER_metrics

#include "cost/dataset.h"

typedef struct RankMetrics_ {
   int samples;                 /* measured samples */
   long pairs;                  /* pairs of them with different labels */
   double pairwise;             /* share of pairs ordered right */
   double top1, top5;           /* top-k peak score */
} RankMetrics;

typedef struct LatencyMetrics_ {
   int samples;                 /* successful samples with a finite estimate */
   double medianAbsLog, meanAbsLog, meanLog;
   double mape;                 /* a fraction */
   double spearman, kendall;
} LatencyMetrics;

/* scores[i] for every sample of d */
void Metrics_task(const Dataset *d, const float *scores, int task, RankMetrics *out);
/* perTask (d->ntasks entries) may be NULL */
void Metrics_weighted(const Dataset *d, const float *scores, RankMetrics *perTask, RankMetrics *weighted);

/* estimateMs[i] for every sample of d, e.g. d->psaLatency */
void Metrics_latencyTask(const Dataset *d, const float *estimateMs, int task, LatencyMetrics *out);
void Metrics_latencyWeighted(const Dataset *d, const float *estimateMs, LatencyMetrics *perTask,
                             LatencyMetrics *weighted);

/* The pairwise accuracy of score against label (higher is better on both): the share
 * of the pairs of distinct labels that the scores order alike, a tie in score counting
 * half; NaN without such a pair. */
double Metrics_pairwise(const double *score, const double *label, int n);
/* Spearman's rank correlation between x and y (n values each; ties share their average
 * rank); NaN with fewer than two values or a constant side. */
double Metrics_spearman(const double *x, const double *y, int n);
/* Kendall's tau-b between x and y (n values each); NaN with fewer than two values or
 * a constant side. */
double Metrics_kendallTau(const double *x, const double *y, int n);

#endif
