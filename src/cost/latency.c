/* The latency head: see cost/latency.h. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "cost/latency.h"
#include "util/xalloc.h"

static const NeuralShape headShape = { NEURAL_DEVICE_IN, 256, 0, 0, 0, 0, 0 };

NeuralNet *LatencyHead_new(uint64_t seed) {
   return NeuralNet_new(&headShape, seed);
}

float LatencyHead_target(const Dataset *d, int i) {
   double psa = d->psaLatency[i];
   if (!Dataset_succeeded(d, i) || !(isfinite(psa) && psa > 0))
      return NAN;
   return (float)log(d->cost[i] * 1e3 / psa);
}

void LatencyHead_defaultConfig(TrainConfig *c) {
   TrainConfig_default(c);
   c->epochs = LATENCY_HEAD_EPOCHS;
   c->earlyStop = LATENCY_HEAD_EARLY_STOP;
   c->clip = 0;
}

int LatencyHead_fit(NeuralNet *head, const Dataset *train, const TrainConfig *cfg, char **cause) {
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
      target[i] = LatencyHead_target(train, i);
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

void LatencyHead_predict(NeuralNet *head, const Dataset *d, float *ms) {
   NeuralNet_predict(head, d, ms);
   for (int i = 0; i < d->n; i++) {
      double psa = d->psaLatency[i];
      ms[i] = isfinite(ms[i]) && isfinite(psa) && psa > 0 ? (float)(psa * exp(ms[i])) : INFINITY;
   }
}

NeuralNet *LatencyHead_read(FILE *f, const char *path, char **cause) {
   NeuralNet *net = NeuralNet_read(f, path, false, cause);
   if (net && net->shape.in != headShape.in) {
      setCause(cause, "%s: the latency head reads %d inputs a row, not %d", path, net->shape.in, headShape.in);
      NeuralNet_free(net);
      return NULL;
   }
   return net;
}
