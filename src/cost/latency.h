/* The latency head: a cost model's estimate of how long a sample runs, in
 * milliseconds, beside the score that only ranks it (issue 24's latency prediction).
 *
 * PSA's closed form (cost/psa.h) already scales with the device's FP32 peak, DRAM
 * bandwidth and SM count, but misses by a factor that depends on the program and the
 * device (on the simulator's profiles its estimate is typically a sixth of the
 * measurement). The head learns that factor: a network of the MLP's shape (cost/
 * neural.h) reading the sample's feature rows, each followed by its device's features
 * (NEURAL_DEVICE_IN inputs), trained by mean squared error on
 *     r = ln(measured latency / PSA's estimate)
 * over the successful samples with a finite estimate; the head's estimate is PSA's
 * times exp(r). Learning the ratio rather than the latency keeps its target in a
 * narrow range on every device, so that what it learned on some devices carries over
 * to one it never saw (CDMPP normalizes its latency targets for the same reason). A
 * sample without rows or without a finite PSA estimate gets INFINITY.
 *
 * Any cost model may carry one (CostModel.latency); `pruner-tui train --latency-head`
 * trains it. In a checkpoint it follows the model's payload: u32 LATENCY_HEAD_TAG,
 * then one network as cost/neural.h lays it out (shape 182, 256, 0, 0, 0, 0, 0). */
#ifndef HEADER_latency
#define HEADER_latency

#include <stdio.h>

#include "cost/dataset.h"
#include "cost/model.h"
#include "cost/neural.h"

#define LATENCY_HEAD_TAG 0x4854414cu   /* "LATH" as little-endian bytes */

/* How the head trains by default: at most 150 epochs, an early stop after 40 without
 * a lower loss, no gradient clipping (a regression's gradients are not LambdaRank's),
 * otherwise TrainConfig_default. It needs more epochs than the ranking models: the
 * latency must come out right, not only the order. */
#define LATENCY_HEAD_EPOCHS 150
#define LATENCY_HEAD_EARLY_STOP 40
void LatencyHead_defaultConfig(TrainConfig *c);

/* A fresh head, its weights drawn from seed. */
NeuralNet *LatencyHead_new(uint64_t seed);
/* The target r of sample i (NAN when it has none: not a success, or no finite PSA
 * estimate above 0). */
float LatencyHead_target(const Dataset *d, int i);
/* Trains a fresh head (LatencyHead_new's) on train's samples, its output bias first
 * set to the mean target (cfg NULL: LatencyHead_defaultConfig); -1 with *cause when
 * fewer than two samples have a target. */
int LatencyHead_fit(NeuralNet *head, const Dataset *train, const TrainConfig *cfg, char **cause);
/* ms[i], the estimated latency of every sample of d. */
void LatencyHead_predict(NeuralNet *head, const Dataset *d, float *ms);
/* Reads the network that follows the tag (the caller has read it); NULL with *cause
 * when it is not a head's. */
NeuralNet *LatencyHead_read(FILE *f, const char *path, char **cause);

#endif
