/* Online training that does not stall the search (DESIGN 3.4): a background worker
 * owns a working copy of the model; each round's measurements are added to the
 * training data, the worker warm-starts from the current weights and trains a bounded
 * number of epochs on all data, and the trained copy then replaces the model that
 * predictions use, in one step under a lock. Predictions never wait for training. */
#ifndef HEADER_online
#define HEADER_online

#include <stdbool.h>

#include "cost/dataset.h"
#include "cost/model.h"

typedef struct OnlineModel_ OnlineModel;

/* Takes ownership of m and starts the worker, a thread named "train". cfg bounds each round's training (its epochs; fromScratch
 * makes every round a full retrain, for comparison). A frozen model never trains.
 * Sets OpenBLAS to one thread (Nn_setThreads), since training and predictions then
 * run at once. */
OnlineModel *OnlineModel_new(CostModel *m, const TrainConfig *cfg);
void OnlineModel_free(OnlineModel *o);

/* Scores with the model published last. */
void OnlineModel_predict(OnlineModel *o, const Dataset *batch, float *scores);
/* Adds labelled samples (their costs; labels are recomputed over all data) and starts
 * a round of training unless one is running, in which case the next round starts when
 * it ends. */
void OnlineModel_update(OnlineModel *o, const Dataset *samples);
/* Waits until no training is running or due; returns the seconds the last round took. */
double OnlineModel_wait(OnlineModel *o);
/* Without waiting: the rounds finished so far, the last one's seconds, the samples the
 * last round that succeeded had seen, and its error (a copy the caller frees; NULL
 * when none). */
void OnlineModel_status(OnlineModel *o, int *rounds, double *seconds, int *samples, char **error);
/* Rounds finished and published so far; the last round's error, NULL when none. */
int OnlineModel_rounds(OnlineModel *o);
const char *OnlineModel_lastError(OnlineModel *o);
/* The data it trains on (read it only after OnlineModel_wait). */
const Dataset *OnlineModel_data(OnlineModel *o);

#endif
