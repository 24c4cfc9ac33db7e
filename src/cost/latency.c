/* The latency head: see cost/latency.h. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "cost/latency.h"
#include "util/xalloc.h"

static const NeuralShape headShape = { SAMPLE_ROW_LEN, 256, 0, 0, 0, 0, 0 };

NeuralNet *LatencyHead_new(uint64_t seed) {
   return NeuralNet_new(&headShape, seed);
}

float LatencyHead_target(const Dataset *d, LatencyBase base, int i) {
   double ms = LatencyHead_base(d, base, i);
   if (!Dataset_succeeded(d, i) || !(isfinite(ms) && ms > 0))
      return NAN;
   return (float)log(d->cost[i] * 1e3 / ms);
}

double LatencyHead_roofline(const PsaSymbols *psa, const PsaRowCost *costs, const LoopNest *ln,
                            const float device[DEVICE_FEATURE_LEN], double partitions, double launchUs) {
   double dram = device[DEVICE_DRAM_GBS], l2 = device[DEVICE_L2_GBS];
   if (psa->nrows == 0 || !(dram > 0 && l2 > 0))
      return INFINITY;
   /* FP32 lanes per sub-partition, from the peak; past LATENCY_HEAD_ISSUE_LANES the
    * CUDA cores' rows take that much longer */
   double lanes = device[DEVICE_PEAK_GFLOPS] /
                  (2 * device[DEVICE_SMS] * partitions * device[DEVICE_CLOCK_MHZ] * 1e-3);
   double issue = isfinite(lanes) && lanes > LATENCY_HEAD_ISSUE_LANES ? lanes / LATENCY_HEAD_ISSUE_LANES : 1;
   double onChip = 0;
   for (int r = 0; r < psa->nrows; r++) {
      double comp = costs[r].tComp * (psa->rows[r].precision == PRECISION_FP32 ? issue : 1);
      onChip += fmax(comp, psa->rows[r].sym[PSA_DRAM_WORKLOAD] / (l2 * 1e6));
   }
   double compulsory = 0;
   for (int k = 0; k < ln->nkernels; k++)
      for (int p = 0; p < ln->kernels[k].nparams; p++) {
         const IrBuffer *b = &ln->buffers[ln->kernels[k].params[p]];
         compulsory += (double)Ir_elemBytes(b) * (double)b->elems;
      }
   return fmax(onChip, compulsory / (dram * 1e6)) + ln->nkernels * launchUs * 1e-3;
}

void LatencyHead_defaultConfig(TrainConfig *c) {
   TrainConfig_default(c);
   c->epochs = LATENCY_HEAD_EPOCHS;
   c->earlyStop = LATENCY_HEAD_EARLY_STOP;
   c->clip = 0;
}

int LatencyHead_fit(NeuralNet *head, LatencyBase base, const Dataset *train, const TrainConfig *cfg,
                    char **cause) {
   TrainConfig c;
   if (cfg)
      c = *cfg;
   else
      LatencyHead_defaultConfig(&c);
   c.fromScratch = false;   /* the head is fresh: its output bias is set below */
   float *target = xMalloc((size_t)(train->n > 0 ? train->n : 1) * sizeof *target);
   double sum = 0;
   int n = 0;
   for (int i = 0; i < train->n; i++) {
      target[i] = LatencyHead_target(train, base, i);
      if (isfinite(target[i]) && Dataset_rows(train, i) > 0) {
         sum += target[i];
         n++;
      }
   }
   /* the output starts at the mean target: the network learns what departs from it */
   if (n > 0)
      head->out.b.w[0] = (float)(sum / n);
   int rc = NeuralNet_fitRegression(head, train, target, &c, true, "the latency head", cause);
   free(target);
   return rc;
}

void LatencyHead_predict(NeuralNet *head, LatencyBase base, const Dataset *d, float *ms) {
   NeuralNet_predict(head, d, ms);
   for (int i = 0; i < d->n; i++) {
      double b = LatencyHead_base(d, base, i);
      ms[i] = isfinite(ms[i]) && isfinite(b) && b > 0 ? (float)(b * exp(ms[i])) : INFINITY;
   }
}

NeuralNet *LatencyHead_read(FILE *f, const char *path, char **cause) {
   NeuralNet *net = NeuralNet_read(f, path, false, cause);
   /* a head of an older checkpoint reads the device's features too */
   if (net && net->shape.in != SAMPLE_ROW_LEN && net->shape.in != NEURAL_DEVICE_IN) {
      setCause(cause, "%s: the latency head reads %d or %d inputs a row, not %d", path, SAMPLE_ROW_LEN,
               NEURAL_DEVICE_IN, net->shape.in);
      NeuralNet_free(net);
      return NULL;
   }
   return net;
}
