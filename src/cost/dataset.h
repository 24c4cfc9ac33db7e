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
#include "device/device.h"

#define SAMPLE_ROW_LEN (FEATURE_LEN + WORKLOAD_LEN)      /* 174 */
#define SAMPLE_PATTERN_LEN (PATTERN_LEN * PATTERN_WIDTH) /* 184 */
#define DATASET_KEY_MAX 160
/* The cost of a failed measurement: MEASURE_FAILED_COST (measure/measure.h), which
 * cost/ does not include (DESIGN 2); tests/test-dataset.c checks that they agree. */
#define DATASET_FAILED_COST 1e10

typedef struct Dataset_ {
   int n, cap;                  /* samples */
   int *task;                   /* the sample's task group, 0 .. ntasks-1 */
   int *rowStart;               /* rows of sample i: rowStart[i] .. rowStart[i+1]-1 */
   double *cost;                /* seconds; DATASET_FAILED_COST for a failure; 0 unmeasured */
   float *label;                /* Dataset_relabel's; 0 until then */
   float *pattern;              /* n x SAMPLE_PATTERN_LEN (zeros when not found) */
   float *psaLatency;           /* ms; INFINITY when PSA has no rows */
   float *roofline;             /* ms, the latency head's baseline (LatencyHead_roofline);
                                   Dataset_add sets it to psaLatency */
   float *device;               /* n x DEVICE_FEATURE_LEN: Device_features of the device
                                   it was measured on (or is scored for); zeros unknown */
   int nrows, rowCap;
   float *rows;                 /* nrows x SAMPLE_ROW_LEN */
   int ntasks, taskCap;
   char (*taskKey)[DATASET_KEY_MAX];
   double *taskWeight;          /* for weighted metrics; 1 unless set */
} Dataset;

void Dataset_init(Dataset *d);
void Dataset_done(Dataset *d);
void Dataset_clear(Dataset *d);  /* keeps the memory */
/* The task group named key, added when new (with weight 1). Keys are compared on
 * their first DATASET_KEY_MAX - 1 bytes. */
int Dataset_task(Dataset *d, const char *key);
/* Appends a sample of task group `task`. cost is 0 for a state to score. f NULL (or
 * without rows) adds a sample without rows; workload NULL appends zeros. */
void Dataset_add(Dataset *d, int task, const Features *f, const float workload[WORKLOAD_LEN], double psaLatencyMs,
                 double cost);
/* The device features of sample i (Device_features). */
void Dataset_setDevice(Dataset *d, int i, const float device[DEVICE_FEATURE_LEN]);
static inline const float *Dataset_device(const Dataset *d, int i) {
   return d->device + (int64_t)i * DEVICE_FEATURE_LEN;
}
/* Appends sample i of src (its task group by key, with src's weight when new), label
 * and device features included. */
void Dataset_addFrom(Dataset *d, const Dataset *src, int i);
/* label = (the best cost of the sample's task) / cost, the best over the task's
 * successful samples; 0 for failures and unmeasured samples. */
void Dataset_relabel(Dataset *d);
/* Splits the samples of every task at random (seeded) into train (round(fraction x the
 * task's samples), fraction clamped to [0, 1]) and test. train and test are
 * initialized datasets whose contents are replaced; both get every task of d, in d's
 * order and with its weight, so task numbers agree across the three. Samples keep
 * their order and labels. */
void Dataset_split(const Dataset *d, double fraction, uint64_t seed, Dataset *train, Dataset *test);
/* Measured without failure: 0 < cost < DATASET_FAILED_COST. */
bool Dataset_succeeded(const Dataset *d, int i);
/* Measured at all (cost != 0): a success or a failure. */
bool Dataset_measured(const Dataset *d, int i);
static inline int Dataset_rows(const Dataset *d, int i) {
   return d->rowStart[i + 1] - d->rowStart[i];
}
static inline const float *Dataset_row(const Dataset *d, int i, int r) {
   return d->rows + (int64_t)(d->rowStart[i] + r) * SAMPLE_ROW_LEN;
}

#endif
