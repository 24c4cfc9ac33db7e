/* What the learned cost models read: samples (states of tasks) as their feature rows
 * (Ansor's 164 features of each stored buffer plus the task's 10-float workload
 * embedding: SAMPLE_ROW_LEN floats a row), PAM's 8 x 23 pattern block, PSA's latency
 * estimate, and, for measured samples, the cost and the label (the task's best cost
 * over this one: normalized throughput in (0, 1], 0 for a failed measurement). A batch
 * to score is a Dataset without costs. Samples are grouped by task so that labels and
 * the ranking metrics are per task. */
#ifndef HEADER_dataset
#define HEADER_dataset

#include <stdbool.h>
#include <stdint.h>

#include "cost/features.h"

#define SAMPLE_ROW_LEN (FEATURE_LEN + WORKLOAD_LEN)      /* 174 */
#define SAMPLE_PATTERN_LEN (PATTERN_LEN * PATTERN_WIDTH) /* 184 */
#define DATASET_KEY_MAX 160

typedef struct Dataset_ {
   int n, cap;                  /* samples */
   int *task;                   /* the sample's task group, 0 .. ntasks-1 */
   int *rowStart;               /* rows of sample i: rowStart[i] .. rowStart[i+1]-1 */
   double *cost;                /* seconds; MEASURE_FAILED_COST for a failure; 0 unmeasured */
   float *label;                /* Dataset_relabel's; 0 until then */
   float *pattern;              /* n x SAMPLE_PATTERN_LEN (zeros when not found) */
   float *psaLatency;           /* ms; INFINITY when PSA has no rows */
   int nrows, rowCap;
   float *rows;                 /* nrows x SAMPLE_ROW_LEN */
   int ntasks, taskCap;
   char (*taskKey)[DATASET_KEY_MAX];
   double *taskWeight;          /* for weighted metrics; 1 unless set */
} Dataset;

void Dataset_init(Dataset *d);
void Dataset_done(Dataset *d);
void Dataset_clear(Dataset *d);  /* keeps the memory */
/* The task group named key, added when new. */
int Dataset_task(Dataset *d, const char *key);
/* Appends a sample of task group `task`. cost is 0 for a state to score. */
void Dataset_add(Dataset *d, int task, const Features *f, const float workload[WORKLOAD_LEN], double psaLatencyMs,
                 double cost);
/* Appends sample i of src (its task group by key). */
void Dataset_addFrom(Dataset *d, const Dataset *src, int i);
/* label = (the best cost of the sample's task) / cost; 0 for failures. */
void Dataset_relabel(Dataset *d);
/* Splits the samples of every task at random (seeded) into train (fraction) and test. */
void Dataset_split(const Dataset *d, double fraction, uint64_t seed, Dataset *train, Dataset *test);
static inline int Dataset_rows(const Dataset *d, int i) {
   return d->rowStart[i + 1] - d->rowStart[i];
}
static inline const float *Dataset_row(const Dataset *d, int i, int r) {
   return d->rows + (int64_t)(d->rowStart[i] + r) * SAMPLE_ROW_LEN;
}

#endif
