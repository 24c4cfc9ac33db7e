/* The dataset the learned models read and the metrics of their output: rows and
 * patterns as added, labels by hand, a per-task split that keeps every sample once,
 * and pairwise accuracy, top-k and latency-estimate errors on small examples worked
 * out in the comments. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "cost/dataset.h"
#include "cost/metrics.h"
#include "measure/measure.h"
#include "util/kmeans.h"

_Static_assert(DATASET_FAILED_COST == MEASURE_FAILED_COST, "a failure costs the same in cost/ and measure/");

#define FAILED DATASET_FAILED_COST

/* Features with `nrows` rows whose entries are base + row * 1000 + column. */
static void fakeFeatures(Features *f, int nrows, float base, bool withPattern) {
   memset(f, 0, sizeof *f);
   f->nrows = nrows;
   for (int r = 0; r < nrows; r++)
      for (int c = 0; c < FEATURE_LEN; c++)
         f->row[r][c] = base + (float)(r * 1000 + c);
   f->patternAt = withPattern ? 3 : -1;
   for (int a = 0; a < PATTERN_LEN; a++)
      for (int c = 0; c < PATTERN_WIDTH; c++)
         f->pattern[a][c] = (float)(a * 100 + c + 1);
}

/* A sample of `task` with one row, the given cost and PSA estimate. */
static void addCost(Dataset *d, int task, double cost, double psaMs) {
   Features f;
   fakeFeatures(&f, 1, 0, false);
   Dataset_add(d, task, &f, NULL, psaMs, cost);
}

static void test_add_keeps_rows_and_pattern(void **state) {
   Dataset d;
   Dataset_init(&d);
   int a = Dataset_task(&d, "conv");
   int b = Dataset_task(&d, "dense");
   assert_int_equal(a, 0);
   assert_int_equal(b, 1);
   assert_int_equal(Dataset_task(&d, "conv"), 0);
   assert_int_equal(d.ntasks, 2);
   assert_true(d.taskWeight[1] == 1);

   float workload[WORKLOAD_LEN] = { 1, 0, 1, 0, 0, 0, 0, 0, 0, 7 };
   Features f;
   fakeFeatures(&f, 3, 0.5f, true);
   Dataset_add(&d, b, &f, workload, 2.5, 1e-3);
   fakeFeatures(&f, 0, 0, false);
   Dataset_add(&d, a, &f, workload, INFINITY, 0);
   Dataset_add(&d, a, NULL, NULL, INFINITY, FAILED);
   /* enough samples and rows to make the arrays grow more than once */
   for (int i = 0; i < 300; i++) {
      fakeFeatures(&f, 2, (float)i, false);
      Dataset_add(&d, a, &f, NULL, 1, 1);
   }
   assert_int_equal(d.n, 303);
   assert_int_equal(d.nrows, 3 + 600);
   assert_int_equal(Dataset_rows(&d, 0), 3);
   assert_int_equal(Dataset_rows(&d, 1), 0);
   assert_int_equal(Dataset_rows(&d, 2), 0);
   assert_int_equal(Dataset_rows(&d, 302), 2);
   const float *row = Dataset_row(&d, 0, 2);
   assert_true(row[0] == 2000.5f && row[163] == 2163.5f);
   assert_memory_equal(row + FEATURE_LEN, workload, sizeof workload);
   row = Dataset_row(&d, 302, 1);
   assert_true(row[5] == 299 + 1005.0f && row[FEATURE_LEN + 9] == 0);
   assert_true(d.pattern[0] == 1 && d.pattern[SAMPLE_PATTERN_LEN - 1] == 723);
   for (int k = 0; k < SAMPLE_PATTERN_LEN; k++)
      assert_true(d.pattern[SAMPLE_PATTERN_LEN + k] == 0);
   assert_true(d.psaLatency[0] == 2.5f && isinf(d.psaLatency[1]));
   assert_true(d.cost[0] == 1e-3 && d.cost[2] == FAILED && d.label[0] == 0);
   assert_true(Dataset_succeeded(&d, 0) && !Dataset_succeeded(&d, 1) && !Dataset_succeeded(&d, 2));
   assert_true(Dataset_measured(&d, 0) && !Dataset_measured(&d, 1) && Dataset_measured(&d, 2));

   /* addFrom finds the task by key, with the source's weight when it is new */
   d.taskWeight[b] = 4;
   Dataset e;
   Dataset_init(&e);
   Dataset_task(&e, "other");
   Dataset_addFrom(&e, &d, 0);
   Dataset_addFrom(&e, &d, 302);
   assert_int_equal(e.ntasks, 3);
   assert_string_equal(e.taskKey[1], "dense");
   assert_true(e.taskWeight[1] == 4 && e.taskWeight[2] == 1);
   assert_int_equal(e.task[0], 1);
   assert_int_equal(e.nrows, 5);
   assert_memory_equal(Dataset_row(&e, 0, 0), Dataset_row(&d, 0, 0), 3 * SAMPLE_ROW_LEN * sizeof(float));
   assert_memory_equal(Dataset_row(&e, 1, 0), Dataset_row(&d, 302, 0), 2 * SAMPLE_ROW_LEN * sizeof(float));
   assert_memory_equal(e.pattern, d.pattern, SAMPLE_PATTERN_LEN * sizeof(float));

   /* a cleared dataset starts over with its memory */
   int cap = d.cap;
   Dataset_clear(&d);
   assert_int_equal(d.n, 0);
   assert_int_equal(d.ntasks, 0);
   assert_int_equal(d.cap, cap);
   addCost(&d, Dataset_task(&d, "again"), 1, 1);
   assert_int_equal(d.rowStart[0], 0);
   assert_int_equal(Dataset_rows(&d, 0), 1);

   /* keys longer than the limit are cut, and compared as cut */
   char longKey[2 * DATASET_KEY_MAX];
   memset(longKey, 'k', sizeof longKey - 1);
   longKey[sizeof longKey - 1] = '\0';
   int t = Dataset_task(&d, longKey);
   assert_int_equal(strlen(d.taskKey[t]), DATASET_KEY_MAX - 1);
   assert_int_equal(Dataset_task(&d, longKey), t);
   Dataset_done(&e);
   Dataset_done(&d);
}

/* Each sample's device features: zeros until set, and copied with the sample by
 * Dataset_addFrom and Dataset_split, through the arrays' growth. */
static void test_device_columns(void **state) {
   (void)state;
   Dataset d;
   Dataset_init(&d);
   int t = Dataset_task(&d, "conv");
   Features f;
   fakeFeatures(&f, 1, 1, false);
   float dev[DEVICE_FEATURE_LEN];
   for (int i = 0; i < 200; i++) {
      Dataset_add(&d, t, &f, NULL, 1, 1e-3 * (i + 1));
      for (int k = 0; k < DEVICE_FEATURE_LEN; k++)
         dev[k] = (float)(i * 10 + k);
      if (i % 3)
         Dataset_setDevice(&d, i, dev);
   }
   static const float zero[DEVICE_FEATURE_LEN] = { 0 };
   assert_memory_equal(Dataset_device(&d, 0), zero, sizeof zero);
   assert_true(Dataset_device(&d, 199)[0] == 1990 && Dataset_device(&d, 199)[7] == 1997);
   Dataset copy, train, test;
   Dataset_init(&copy);
   Dataset_init(&train);
   Dataset_init(&test);
   for (int i = 0; i < d.n; i++)
      Dataset_addFrom(&copy, &d, i);
   assert_memory_equal(copy.device, d.device, (size_t)d.n * DEVICE_FEATURE_LEN * sizeof(float));
   Dataset_split(&d, 0.5, 3, &train, &test);
   assert_int_equal(train.n + test.n, 200);
   /* the costs are distinct: each split sample finds its original's features */
   for (int s = 0; s < 2; s++) {
      const Dataset *part = s ? &test : &train;
      for (int i = 0; i < part->n; i++) {
         int orig = (int)lround(part->cost[i] / 1e-3) - 1;
         assert_memory_equal(Dataset_device(part, i), Dataset_device(&d, orig), sizeof dev);
      }
   }
   Dataset_done(&copy);
   Dataset_done(&train);
   Dataset_done(&test);
   Dataset_done(&d);
}

/* k-means's representatives: three squares of five points (corners and centre) far
 * apart give their three centres, whatever the seed; k >= n gives every point; points
 * that coincide still give k distinct ones. */
static void test_kmeans_select(void **state) {
   (void)state;
   static const float square[5][2] = { { 0, 0 }, { 0, 2 }, { 2, 0 }, { 2, 2 }, { 1, 1 } };
   static const float offset[3][2] = { { 0, 0 }, { 100, 0 }, { 0, 100 } };
   /* interleaved, so that no cluster is a run of the array */
   float x[15][2];
   for (int i = 0; i < 15; i++) {
      x[i][0] = square[i / 3][0] + offset[i % 3][0];
      x[i][1] = square[i / 3][1] + offset[i % 3][1];
   }
   /* the centres (1,1) + offset are points 12, 13 and 14 */
   for (uint64_t seed = 1; seed <= 5; seed++) {
      int chosen[3], seen[15] = { 0 };
      assert_int_equal(KMeans_select(&x[0][0], 15, 2, 3, seed, chosen), 3);
      for (int j = 0; j < 3; j++)
         seen[chosen[j]]++;
      assert_int_equal(seen[12] + seen[13] + seen[14], 3);
   }
   int a[3], b[3];
   KMeans_select(&x[0][0], 15, 2, 3, 9, a);
   KMeans_select(&x[0][0], 15, 2, 3, 9, b);
   assert_memory_equal(a, b, sizeof a);
   int all[15];
   assert_int_equal(KMeans_select(&x[0][0], 15, 2, 20, 1, all), 15);
   for (int i = 0; i < 15; i++)
      assert_int_equal(all[i], i);
   static const float same[4][2] = { { 5, 5 }, { 5, 5 }, { 5, 5 }, { 5, 5 } };
   int three[3];
   assert_int_equal(KMeans_select(&same[0][0], 4, 2, 3, 1, three), 3);
   assert_true(three[0] != three[1] && three[0] != three[2] && three[1] != three[2]);
   assert_int_equal(KMeans_select(&x[0][0], 15, 2, 0, 1, three), 0);
}

static void test_relabel(void **state) {
   Dataset d;
   Dataset_init(&d);
   int a = Dataset_task(&d, "a"), b = Dataset_task(&d, "b"), c = Dataset_task(&d, "c");
   /* task a: best 1 ms; b: best 3 ms; c: nothing succeeded */
   addCost(&d, a, 2e-3, 1);
   addCost(&d, b, 3e-3, 1);
   addCost(&d, a, 1e-3, 1);
   addCost(&d, a, 4e-3, 1);
   addCost(&d, a, FAILED, 1);
   addCost(&d, a, 0, 1);
   addCost(&d, b, 6e-3, 1);
   addCost(&d, c, FAILED, 1);
   addCost(&d, b, FAILED, 1);
   Dataset_relabel(&d);
   static const float want[] = { 0.5f, 1, 1, 0.25f, 0, 0, 0.5f, 0, 0 };
   assert_int_equal(d.n, 9);
   for (int i = 0; i < d.n; i++)
      assert_float_equal(d.label[i], want[i], 1e-7);
   Dataset_done(&d);
}

static void test_split_per_task(void **state) {
   Dataset d, train, test;
   Dataset_init(&d);
   Dataset_init(&train);
   Dataset_init(&test);
   static const int sizes[] = { 10, 7, 1, 0 };
   /* interleaved tasks; each sample's cost names it */
   for (int t = 0; t < 4; t++) {
      char key[16];
      snprintf(key, sizeof key, "task%d", t);
      Dataset_task(&d, key);
      d.taskWeight[t] = t + 1;
   }
   int id = 1;
   for (int round = 0; round < 10; round++)
      for (int t = 0; t < 4; t++)
         if (round < sizes[t])
            addCost(&d, t, id++, 1);
   Dataset_relabel(&d);

   Dataset_split(&d, 0.7, 42, &train, &test);
   /* round(0.7 x 10) = 7, round(4.9) = 5, round(0.7) = 1, 0 */
   static const int wantTrain[] = { 7, 5, 1, 0 };
   int count[2][4] = { { 0 } };
   bool seen[64] = { false };
   for (int side = 0; side < 2; side++) {
      const Dataset *s = side ? &test : &train;
      assert_int_equal(s->ntasks, 4);
      for (int t = 0; t < 4; t++) {
         assert_string_equal(s->taskKey[t], d.taskKey[t]);
         assert_true(s->taskWeight[t] == t + 1);
      }
      double last = 0;
      for (int i = 0; i < s->n; i++) {
         int sample = (int)s->cost[i];
         assert_false(seen[sample]);
         seen[sample] = true;
         assert_true(s->cost[i] > last); /* in d's order */
         last = s->cost[i];
         /* the same task and label as in d */
         assert_int_equal(s->task[i], d.task[sample - 1]);
         assert_true(s->label[i] == d.label[sample - 1]);
         count[side][s->task[i]]++;
      }
   }
   for (int t = 0; t < 4; t++) {
      assert_int_equal(count[0][t], wantTrain[t]);
      assert_int_equal(count[1][t], sizes[t] - wantTrain[t]);
   }
   for (int i = 1; i < id; i++)
      assert_true(seen[i]);

   /* the same seed splits the same way; others differ */
   Dataset again, rest;
   Dataset_init(&again);
   Dataset_init(&rest);
   Dataset_split(&d, 0.7, 42, &again, &rest);
   assert_int_equal(again.n, train.n);
   assert_memory_equal(again.cost, train.cost, (size_t)train.n * sizeof(double));
   bool differs = false;
   for (uint64_t seed = 1; seed < 5 && !differs; seed++) {
      Dataset_split(&d, 0.7, seed, &again, &rest);
      differs = memcmp(again.cost, train.cost, (size_t)train.n * sizeof(double)) != 0;
   }
   assert_true(differs);
   /* fractions outside [0, 1] are clamped */
   Dataset_split(&d, 1.5, 1, &again, &rest);
   assert_int_equal(again.n, d.n);
   assert_int_equal(rest.n, 0);
   Dataset_split(&d, -1, 1, &again, &rest);
   assert_int_equal(again.n, 0);
   assert_int_equal(rest.n, d.n);
   Dataset_done(&again);
   Dataset_done(&rest);
   Dataset_done(&train);
   Dataset_done(&test);
   Dataset_done(&d);
}

/* One task's samples with the given labels (cost = 1 / label, failures for 0), then
 * the relabel that gives those labels back. */
static int addLabelled(Dataset *d, const char *key, const float *labels, int n) {
   int t = Dataset_task(d, key);
   for (int i = 0; i < n; i++)
      addCost(d, t, labels[i] > 0 ? 1.0 / labels[i] : FAILED, 1);
   Dataset_relabel(d);
   return t;
}

static void test_pairwise_and_topk(void **state) {
   Dataset d;
   Dataset_init(&d);
   static const float labels[] = { 1, 0.5f, 0.25f, 0 };
   int t = addLabelled(&d, "t", labels, 4);
   for (int i = 0; i < 4; i++)
      assert_float_equal(d.label[i], labels[i], 1e-7);
   /* pairs by label: (1, .5) (1, .25) (1, 0) ordered right; (.5, .25) and (.5, 0)
    * ordered wrong (0.1 < 0.5); (.25, 0) tied in score: half. 3.5 of 6. */
   const float scores[] = { 0.9f, 0.1f, 0.5f, 0.5f };
   RankMetrics m;
   Metrics_task(&d, scores, t, &m);
   assert_int_equal(m.samples, 4);
   assert_int_equal(m.pairs, 6);
   assert_float_equal(m.pairwise, 3.5 / 6, 1e-12);
   assert_float_equal(m.top1, 1, 1e-12);
   assert_float_equal(m.top5, 1, 1e-12);

   /* a tie at the top goes against the model: label .25 is taken before 1 */
   const float tied[] = { 0.5f, 0.1f, 0.5f, NAN };
   Metrics_task(&d, tied, t, &m);
   assert_float_equal(m.top1, 0.25, 1e-12);
   /* (1, .5) right, (1, .25) half, (1, 0) right, (.5, .25) wrong, (.5, 0) right
    * (NaN is -inf), (.25, 0) right: 4.5 of 6 */
   assert_float_equal(m.pairwise, 4.5 / 6, 1e-12);
   /* a constant model is a coin toss and earns the worst top-1 */
   const float constant[] = { 1, 1, 1, 1 };
   Metrics_task(&d, constant, t, &m);
   assert_float_equal(m.pairwise, 0.5, 1e-12);
   assert_float_equal(m.top1, 0, 1e-12);
   assert_float_equal(m.top5, 1, 1e-12);
   Dataset_done(&d);

   /* top-5 among seven: the best sample is ranked sixth */
   Dataset_init(&d);
   static const float seven[] = { 0.1f, 0.2f, 0.3f, 0.4f, 0.8f, 1, 0.5f };
   t = addLabelled(&d, "seven", seven, 7);
   const float ranked[] = { 7, 6, 5, 4, 3, 2, 1 };
   Metrics_task(&d, ranked, t, &m);
   assert_float_equal(m.top1, 0.1, 1e-6);
   assert_float_equal(m.top5, 0.8, 1e-6);
   /* the 21 pairs all differ in label; the scores put the earlier sample first, which
    * is right only where it has the higher label: (0.8, 0.5) and (1, 0.5) */
   assert_int_equal(m.pairs, 21);
   assert_float_equal(m.pairwise, 2.0 / 21, 1e-12);
   Dataset_done(&d);
}

static void test_weighted_over_tasks(void **state) {
   Dataset d;
   Dataset_init(&d);
   static const float a[] = { 1, 0.5f };         /* ordered right: 1, top 1 */
   static const float b[] = { 0.5f, 1, 0.25f };  /* (.5,1) wrong, (.5,.25) right, (1,.25) right */
   static const float c[] = { 0, 0 };            /* nothing succeeded: undefined */
   int ta = addLabelled(&d, "a", a, 2);
   int tb = addLabelled(&d, "b", b, 3);
   int tc = addLabelled(&d, "c", c, 2);
   /* a sample to score, not measured: not counted */
   addCost(&d, tb, 0, 1);
   d.taskWeight[ta] = 1;
   d.taskWeight[tb] = 3;
   d.taskWeight[tc] = 100;
   const float scores[] = { 2, 1, 3, 2, 1, 5, 6, 99 };
   RankMetrics per[3], w;
   Metrics_weighted(&d, scores, per, &w);
   assert_float_equal(per[0].pairwise, 1, 1e-12);
   assert_float_equal(per[1].pairwise, 2.0 / 3, 1e-12);
   assert_int_equal(per[1].samples, 3);
   assert_float_equal(per[1].top1, 0.5, 1e-12);
   assert_int_equal(per[2].pairs, 0);
   assert_true(isnan(per[2].pairwise) && isnan(per[2].top1) && isnan(per[2].top5));
   assert_int_equal(w.samples, 7);
   assert_int_equal(w.pairs, 4);
   assert_float_equal(w.pairwise, (1 * 1 + 3 * (2.0 / 3)) / 4, 1e-12);
   assert_float_equal(w.top1, (1 * 1 + 3 * 0.5) / 4, 1e-12);
   assert_float_equal(w.top5, 1, 1e-12);
   /* per-task results are optional */
   RankMetrics w2;
   Metrics_weighted(&d, scores, NULL, &w2);
   assert_int_equal(w2.samples, w.samples);
   assert_int_equal(w2.pairs, w.pairs);
   assert_true(w2.pairwise == w.pairwise && w2.top1 == w.top1 && w2.top5 == w.top5);
   Dataset_done(&d);
}

static void test_latency_errors(void **state) {
   Dataset d;
   Dataset_init(&d);
   int t = Dataset_task(&d, "t");
   /* measured 1, 2, 4 ms; estimated 2, 2, 8 ms: e = ln 2, 0, ln 2 */
   addCost(&d, t, 1e-3, 2);
   addCost(&d, t, 2e-3, 2);
   addCost(&d, t, 4e-3, 8);
   addCost(&d, t, 3e-3, INFINITY); /* no estimate: left out */
   addCost(&d, t, FAILED, 1);      /* no measurement: left out */
   LatencyMetrics m;
   Metrics_latencyTask(&d, d.psaLatency, t, &m);
   assert_int_equal(m.samples, 3);
   assert_float_equal(m.medianAbsLog, log(2), 1e-12);
   assert_float_equal(m.meanAbsLog, 2 * log(2) / 3, 1e-12);
   assert_float_equal(m.meanLog, 2 * log(2) / 3, 1e-12);
   /* |2 - 1| / 1, |2 - 2| / 2, |8 - 4| / 4 */
   assert_float_equal(m.mape, 2.0 / 3, 1e-12);
   /* ranks of the estimates 1.5 1.5 3, of the measurements 1 2 3: centred
    * (-.5 -.5 1) and (-1 0 1): 1.5 / sqrt(1.5 x 2) */
   assert_float_equal(m.spearman, 1.5 / sqrt(3), 1e-12);
   /* two concordant pairs, one tied in the estimate: 2 / sqrt(2 x 3) */
   assert_float_equal(m.kendall, 2 / sqrt(6), 1e-12);

   /* an estimate half the measurement: bias -ln 2; even count: median of 2 */
   int u = Dataset_task(&d, "u");
   addCost(&d, u, 2e-3, 1);
   addCost(&d, u, 4e-3, 2);
   LatencyMetrics per[2], w;
   Metrics_latencyWeighted(&d, d.psaLatency, per, &w);
   assert_float_equal(per[1].meanLog, -log(2), 1e-12);
   assert_float_equal(per[1].medianAbsLog, log(2), 1e-12);
   assert_float_equal(per[1].spearman, 1, 1e-12);
   assert_float_equal(per[1].kendall, 1, 1e-12);
   assert_float_equal(per[1].mape, 0.5, 1e-12);
   assert_int_equal(w.samples, 5);
   assert_float_equal(w.mape, (2.0 / 3 + 0.5) / 2, 1e-12);
   assert_float_equal(w.meanLog, (2 * log(2) / 3 - log(2)) / 2, 1e-12);
   assert_float_equal(w.kendall, (2 / sqrt(6) + 1) / 2, 1e-12);

   /* one sample: errors but no correlation */
   int v = Dataset_task(&d, "v");
   addCost(&d, v, 1e-3, 1);
   Metrics_latencyTask(&d, d.psaLatency, v, &m);
   assert_int_equal(m.samples, 1);
   assert_float_equal(m.medianAbsLog, 0, 1e-12);
   assert_true(isnan(m.spearman) && isnan(m.kendall));
   Dataset_done(&d);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_add_keeps_rows_and_pattern),
      cmocka_unit_test(test_device_columns),
      cmocka_unit_test(test_kmeans_select),
      cmocka_unit_test(test_relabel),
      cmocka_unit_test(test_split_per_task),
      cmocka_unit_test(test_pairwise_and_topk),
      cmocka_unit_test(test_weighted_over_tasks),
      cmocka_unit_test(test_latency_errors),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
