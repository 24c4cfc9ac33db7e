/* The samples the learned cost models read: growing arrays grouped by task, the
 * per-task labels, and a seeded per-task split into train and test. */
#include "config.h"

#include "cost/dataset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/rng.h"
#include "util/xalloc.h"

void Dataset_init(Dataset *d) {
   memset(d, 0, sizeof *d);
}

void Dataset_done(Dataset *d) {
   free(d->task);
   free(d->rowStart);
   free(d->cost);
   free(d->label);
   free(d->pattern);
   free(d->psaLatency);
   free(d->roofline);
   free(d->device);
   free(d->rows);
   free(d->taskKey);
   free(d->taskWeight);
   Dataset_init(d);
}

void Dataset_clear(Dataset *d) {
   d->n = 0;
   d->nrows = 0;
   d->ntasks = 0;
   if (d->rowStart)
      d->rowStart[0] = 0;
}

static int grown(int cap, int need) {
   int c = cap ? cap : 64;
   while (c < need)
      c *= 2;
   return c;
}

static void reserveSamples(Dataset *d, int need) {
   if (need <= d->cap)
      return;
   int c = grown(d->cap, need);
   bool first = d->rowStart == NULL;
   d->task = xReallocArray(d->task, (size_t)c, sizeof *d->task);
   d->rowStart = xReallocArray(d->rowStart, (size_t)c + 1, sizeof *d->rowStart);
   d->cost = xReallocArray(d->cost, (size_t)c, sizeof *d->cost);
   d->label = xReallocArray(d->label, (size_t)c, sizeof *d->label);
   d->pattern = xReallocArray(d->pattern, (size_t)c * SAMPLE_PATTERN_LEN, sizeof *d->pattern);
   d->psaLatency = xReallocArray(d->psaLatency, (size_t)c, sizeof *d->psaLatency);
   d->roofline = xReallocArray(d->roofline, (size_t)c, sizeof *d->roofline);
   d->device = xReallocArray(d->device, (size_t)c * DEVICE_FEATURE_LEN, sizeof *d->device);
   if (first)
      d->rowStart[0] = 0;
   d->cap = c;
}

static void reserveRows(Dataset *d, int need) {
   if (need <= d->rowCap)
      return;
   int c = grown(d->rowCap, need);
   d->rows = xReallocArray(d->rows, (size_t)c * SAMPLE_ROW_LEN, sizeof *d->rows);
   d->rowCap = c;
}

int Dataset_task(Dataset *d, const char *key) {
   for (int t = 0; t < d->ntasks; t++)
      if (strncmp(d->taskKey[t], key, DATASET_KEY_MAX - 1) == 0)
         return t;
   if (d->ntasks == d->taskCap) {
      int c = grown(d->taskCap, d->ntasks + 1);
      d->taskKey = xReallocArray(d->taskKey, (size_t)c, sizeof *d->taskKey);
      d->taskWeight = xReallocArray(d->taskWeight, (size_t)c, sizeof *d->taskWeight);
      d->taskCap = c;
   }
   int t = d->ntasks++;
   snprintf(d->taskKey[t], DATASET_KEY_MAX, "%s", key);
   d->taskWeight[t] = 1;
   return t;
}

/* A new sample of `task` with nrows rows left for the caller to fill; its index. */
static int appendSample(Dataset *d, int task, int nrows) {
   reserveSamples(d, d->n + 1);
   reserveRows(d, d->nrows + nrows);
   int i = d->n++;
   d->task[i] = task;
   d->rowStart[i] = d->nrows;
   d->nrows += nrows;
   d->rowStart[i + 1] = d->nrows;
   d->label[i] = 0;
   memset(d->device + (int64_t)i * DEVICE_FEATURE_LEN, 0, DEVICE_FEATURE_LEN * sizeof *d->device);
   return i;
}

void Dataset_setDevice(Dataset *d, int i, const float device[DEVICE_FEATURE_LEN]) {
   memcpy(d->device + (int64_t)i * DEVICE_FEATURE_LEN, device, DEVICE_FEATURE_LEN * sizeof *d->device);
}

void Dataset_add(Dataset *d, int task, const Features *f, const float workload[WORKLOAD_LEN], double psaLatencyMs,
                 double cost) {
   int nrows = f ? f->nrows : 0;
   int i = appendSample(d, task, nrows);
   for (int r = 0; r < nrows; r++) {
      float *row = d->rows + (int64_t)(d->rowStart[i] + r) * SAMPLE_ROW_LEN;
      memcpy(row, f->row[r], FEATURE_LEN * sizeof *row);
      if (workload)
         memcpy(row + FEATURE_LEN, workload, WORKLOAD_LEN * sizeof *row);
      else
         memset(row + FEATURE_LEN, 0, WORKLOAD_LEN * sizeof *row);
   }
   float *pattern = d->pattern + (int64_t)i * SAMPLE_PATTERN_LEN;
   if (f && f->patternAt >= 0)
      memcpy(pattern, f->pattern, SAMPLE_PATTERN_LEN * sizeof *pattern);
   else
      memset(pattern, 0, SAMPLE_PATTERN_LEN * sizeof *pattern);
   d->psaLatency[i] = (float)psaLatencyMs;
   d->roofline[i] = (float)psaLatencyMs;
   d->cost[i] = cost;
}

void Dataset_addFrom(Dataset *d, const Dataset *src, int i) {
   int known = d->ntasks;
   int task = Dataset_task(d, src->taskKey[src->task[i]]);
   if (task >= known)
      d->taskWeight[task] = src->taskWeight[src->task[i]];
   int nrows = Dataset_rows(src, i);
   int j = appendSample(d, task, nrows);
   if (nrows > 0)
      memcpy(d->rows + (int64_t)d->rowStart[j] * SAMPLE_ROW_LEN, Dataset_row(src, i, 0),
             (size_t)nrows * SAMPLE_ROW_LEN * sizeof *d->rows);
   memcpy(d->pattern + (int64_t)j * SAMPLE_PATTERN_LEN, src->pattern + (int64_t)i * SAMPLE_PATTERN_LEN,
          SAMPLE_PATTERN_LEN * sizeof *d->pattern);
   d->psaLatency[j] = src->psaLatency[i];
   d->roofline[j] = src->roofline[i];
   d->cost[j] = src->cost[i];
   d->label[j] = src->label[i];
   Dataset_setDevice(d, j, Dataset_device(src, i));
}

bool Dataset_succeeded(const Dataset *d, int i) {
   double c = d->cost[i];
   return c > 0 && c < DATASET_FAILED_COST && isfinite(c);
}

bool Dataset_measured(const Dataset *d, int i) {
   return d->cost[i] != 0;
}

void Dataset_relabel(Dataset *d) {
   double *best = xMalloc((size_t)(d->ntasks > 0 ? d->ntasks : 1) * sizeof *best);
   for (int t = 0; t < d->ntasks; t++)
      best[t] = INFINITY;
   for (int i = 0; i < d->n; i++)
      if (Dataset_succeeded(d, i) && d->cost[i] < best[d->task[i]])
         best[d->task[i]] = d->cost[i];
   for (int i = 0; i < d->n; i++)
      d->label[i] = Dataset_succeeded(d, i) ? (float)(best[d->task[i]] / d->cost[i]) : 0.0f;
   free(best);
}

static void copyTasks(Dataset *to, const Dataset *from) {
   for (int t = 0; t < from->ntasks; t++) {
      int u = Dataset_task(to, from->taskKey[t]);
      to->taskWeight[u] = from->taskWeight[t];
   }
}

void Dataset_split(const Dataset *d, double fraction, uint64_t seed, Dataset *train, Dataset *test) {
   Dataset_clear(train);
   Dataset_clear(test);
   copyTasks(train, d);
   copyTasks(test, d);
   if (!(fraction > 0))
      fraction = 0;
   if (fraction > 1)
      fraction = 1;
   int n = d->n;
   bool *toTrain = xCalloc((size_t)(n > 0 ? n : 1), sizeof *toTrain);
   int *members = xMalloc((size_t)(n > 0 ? n : 1) * sizeof *members);
   Rng rng;
   Rng_seed(&rng, seed);
   for (int t = 0; t < d->ntasks; t++) {
      int m = 0;
      for (int i = 0; i < n; i++)
         if (d->task[i] == t)
            members[m++] = i;
      /* a partial Fisher-Yates shuffle picks the train share of the task */
      int k = (int)floor(fraction * m + 0.5);
      for (int j = 0; j < k; j++) {
         int r = j + (int)Rng_below(&rng, (uint64_t)(m - j));
         int tmp = members[j];
         members[j] = members[r];
         members[r] = tmp;
         toTrain[members[j]] = true;
      }
   }
   for (int i = 0; i < n; i++)
      Dataset_addFrom(toTrain[i] ? train : test, d, i);
   free(members);
   free(toTrain);
}
