/* The latency head: a cost model's estimate of how long a sample runs, in
 * milliseconds, beside the score that only ranks it (issue 24's latency prediction).
 *
 * PSA's closed form (cost/psa.h) already scales with the device's FP32 peak, DRAM
 * bandwidth and SM count, but misses by a factor that depends on the program and the
 * device (on the simulator's profiles its estimate is typically a third to a sixth of
 * the measurement). The head starts from a roofline built on PSA's rows
 * (LatencyHead_roofline below: the L2 serving what every block loads, the DRAM
 * the compulsory bytes, and the launches) and learns the factor that remains: a
 * network of the MLP's shape (cost/neural.h) reading the sample's feature rows
 * (SAMPLE_ROW_LEN inputs), trained by mean squared error on
 *     r = ln(measured latency / the roofline)
 * over the successful samples with a finite roofline; the head's estimate is the
 * roofline times exp(r). Learning the ratio rather than the latency keeps its target
 * in a narrow range on every device (CDMPP normalizes its latency targets for the
 * same reason).
 *
 * The device enters only through the roofline, its bandwidths and launch overhead:
 * the head does not read the device's features. Trained on records of five simulated
 * GPUs and asked about a sixth, a head that read them extrapolated from five points
 * in the space of devices and missed by a factor of two where the sixth lay outside
 * them (bench/RESULTS.md, bench/cross-device); the program's part of the factor carries
 * over from device to device, what the device adds is left to the roofline's physics.
 * A sample without rows or without a finite roofline gets INFINITY.
 *
 * Any cost model may carry one (CostModel.latency); `pruner-tui train --latency-head`
 * trains it. In a checkpoint it follows the model's payload: u32 LATENCY_HEAD_TAG_ROOFLINE,
 * then one network as cost/neural.h lays it out (shape 174, 256, 0, 0, 0, 0, 0). A
 * checkpoint written before the roofline has u32 LATENCY_HEAD_TAG and a head that read
 * the device's features too (shape 182, ...) over PSA's estimate: it still reads, and
 * estimates as it did. */
#ifndef HEADER_latency
#define HEADER_latency

#include <stdio.h>

#include "cost/dataset.h"
#include "cost/model.h"
#include "cost/neural.h"
#include "cost/psa.h"
#include "ir/loopnest.h"

#define LATENCY_HEAD_TAG 0x4854414cu           /* "LATH": a head on PSA's estimate */
#define LATENCY_HEAD_TAG_ROOFLINE 0x5254414cu  /* "LATR": a head on the roofline */

/* What a head's ratio is taken over: PSA's estimate (Dataset.psaLatency; the heads of
 * checkpoints written before the roofline) or the roofline (Dataset.roofline; every
 * head trained now). */
typedef enum { LATENCY_BASE_PSA, LATENCY_BASE_ROOFLINE } LatencyBase;

/* How the head trains by default: at most 150 epochs, an early stop after 40 without
 * a lower loss, no gradient clipping (a regression's gradients are not LambdaRank's),
 * otherwise TrainConfig_default. It needs more epochs than the ranking models: the
 * latency must come out right, not only the order. */
#define LATENCY_HEAD_EPOCHS 150
#define LATENCY_HEAD_EARLY_STOP 40
void LatencyHead_defaultConfig(TrainConfig *c);

/* The FP32 lanes of a sub-partition that a kernel keeps busy: its scheduler issues one
 * warp instruction a clock, so 32 lanes (GH100, GA10x, AD10x) are full only when every
 * instruction is an FP32 one, and a kernel issues loads, address arithmetic and
 * branches too. Taking every other instruction as FP32, 16 lanes (a warp's FP32
 * instruction every two clocks) are what any part reaches. */
#define LATENCY_HEAD_ISSUE_LANES 16.0

/* The roofline baseline (Dataset.roofline), in ms, from PSA's rows and costs (psa,
 * costs as Psa_latency filled them), the nest ln they came from, the device's
 * features (Device_features), its sub-partitions per SM and its launch overhead in
 * microseconds:
 *     max(sum over rows of max(t_comp x i, B / L2),  C / DRAM) + kernels x launch
 * where t_comp is PSA's row compute time, i the device's FP32 lanes per sub-partition
 * (its peak over 2 x SMs x sub-partitions x clock) over LATENCY_HEAD_ISSUE_LANES when
 * above (2 on the parts with 128 lanes an SM, else 1; Tensor-Core rows 1), B the row's
 * DRAM_workload bytes (what every block loads, which the L2 serves: PSA divides it by
 * the DRAM bandwidth), L2 and DRAM the device's L2 and DRAM bandwidths, and C the
 * compulsory DRAM bytes, each kernel's global buffers once. PSA
 * alone times a kernel bound by the L2 as if the DRAM served it, takes a peak that
 * dual FP32 lanes reach only in a kernel of FP32 instructions alone, and leaves out
 * the launch, which is most of a small kernel's time; its error then depends on the
 * device (its DRAM-to-L2 balance, its lanes per scheduler) and on the kernel's size,
 * which the head would otherwise have to learn device by device. INFINITY when there
 * are no rows or the device's bandwidths are unknown. */
double LatencyHead_roofline(const PsaSymbols *psa, const PsaRowCost *costs, const LoopNest *ln,
                            const float device[DEVICE_FEATURE_LEN], double partitions, double launchUs);

/* A fresh head, its weights drawn from seed. */
NeuralNet *LatencyHead_new(uint64_t seed);
/* Sample i's baseline, in ms. */
static inline float LatencyHead_base(const Dataset *d, LatencyBase base, int i) {
   return base == LATENCY_BASE_PSA ? d->psaLatency[i] : d->roofline[i];
}
/* The target r = ln(measured / baseline) of sample i (NAN when it has none: not a
 * success, or no finite baseline above 0). */
float LatencyHead_target(const Dataset *d, LatencyBase base, int i);
/* Trains a fresh head (LatencyHead_new's) on train's samples, its output bias first
 * set to the mean target (cfg NULL: LatencyHead_defaultConfig); -1 with *cause when
 * fewer than two samples have a target. */
int LatencyHead_fit(NeuralNet *head, LatencyBase base, const Dataset *train, const TrainConfig *cfg,
                    char **cause);
/* ms[i], the estimated latency of every sample of d. */
void LatencyHead_predict(NeuralNet *head, LatencyBase base, const Dataset *d, float *ms);
/* Reads the network that follows the tag (the caller has read it); NULL with *cause
 * when it is not a head's. */
NeuralNet *LatencyHead_read(FILE *f, const char *path, char **cause);

#endif
