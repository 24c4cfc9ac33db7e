/* Records to datasets. */
#include "config.h"

#include "measure/featurize.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cost/analysis.h"
#include "cost/latency.h"
#include "cost/psa.h"
#include "ir/lower.h"
#include "sim/sim.h"
#include "util/xalloc.h"

typedef struct {
   const Task *task;
   SketchSet set;
   bool made;
} TaskEntry;

typedef struct {
   char name[32];
   bool usable;
   PsaParams params;
   SchedLimits limits;
   float features[DEVICE_FEATURE_LEN];   /* Device_features; zeros for an unknown device */
   double launchUs;             /* sim.launch_us, else the simulator's default */
} DeviceEntry;

struct Featurizer_ {
   const DeviceSet *devices;
   bool byDevice;               /* a record's group is its task on its device */
   int ntasks;
   TaskEntry *tasks;
   int ndevices;
   DeviceEntry devs[32];
   Analysis *analysis;
   LoopNest ln;
   Features features;
   PsaSymbols psa;
   PsaRowCost psaCosts[IR_MAX_BUFFERS];
};

static Featurizer *alloc(const DeviceSet *devices, int ntasks) {
   Featurizer *f = xCalloc(1, sizeof *f);
   f->devices = devices;
   f->ntasks = ntasks;
   f->tasks = xCalloc((size_t)(ntasks ? ntasks : 1), sizeof *f->tasks);
   f->analysis = Analysis_new();
   LoopNest_init(&f->ln);
   return f;
}

Featurizer *Featurizer_new(const Network *const *nets, int nnets, const DeviceSet *devices) {
   int ntasks = 0;
   for (int n = 0; n < nnets; n++)
      ntasks += nets[n]->ntasks;
   Featurizer *f = alloc(devices, ntasks);
   int k = 0;
   for (int n = 0; n < nnets; n++)
      for (int t = 0; t < nets[n]->ntasks; t++)
         f->tasks[k++].task = &nets[n]->tasks[t];
   return f;
}

Featurizer *Featurizer_copy(const Featurizer *f) {
   Featurizer *c = alloc(f->devices, f->ntasks);
   for (int i = 0; i < f->ntasks; i++)
      c->tasks[i].task = f->tasks[i].task;
   return c;
}

void Featurizer_groupByDevice(Featurizer *f, bool on) {
   f->byDevice = on;
}

void Featurizer_free(Featurizer *f) {
   if (!f)
      return;
   for (int i = 0; i < f->ntasks; i++)
      if (f->tasks[i].made)
         SketchSet_done(&f->tasks[i].set);
   free(f->tasks);
   Analysis_free(f->analysis);
   LoopNest_done(&f->ln);
   free(f);
}

static TaskEntry *findTask(Featurizer *f, const char *key) {
   for (int i = 0; i < f->ntasks; i++)
      if (strcmp(f->tasks[i].task->key, key) == 0) {
         TaskEntry *e = &f->tasks[i];
         if (!e->made) {
            SketchSet_forOpWith(&e->set, &e->task->op, &Sketch_readAny);
            e->made = true;
         }
         return e;
      }
   return NULL;
}

/* The device's PSA parameters and limits; NULL name or an unknown device: defaults,
 * and PSA unusable. */
static DeviceEntry *findDevice(Featurizer *f, const char *name) {
   const char *key = name ? name : "";
   for (int i = 0; i < f->ndevices; i++)
      if (strcmp(f->devs[i].name, key) == 0)
         return &f->devs[i];
   DeviceEntry *e = &f->devs[f->ndevices < 32 ? f->ndevices++ : 31];
   memset(e, 0, sizeof *e);
   snprintf(e->name, sizeof e->name, "%s", key);
   const Device *d = name && f->devices ? DeviceSet_find(f->devices, name) : NULL;
   if (d) {
      SchedLimits_fromDevice(&e->limits, d);
      e->usable = PsaParams_fromDevice(&e->params, d, NULL) == 0;
      Device_features(d, e->features);
      SimParams sim;
      SimParams_fromDevice(&sim, d);
      e->launchUs = sim.v[SIM_LAUNCH_US];
   } else {
      SchedLimits_default(&e->limits);
   }
   return e;
}

static void addLowered(Featurizer *f, Dataset *d, const Task *task, const SketchSet *set, const DeviceEntry *dev,
                       const State *s, double cost, const char *group) {
   bool psaUsable = dev && dev->usable;
   Lower_state(set, s, &f->ln);
   /* PSA's symbols only where there is a device to estimate for */
   Analysis_run(f->analysis, &f->ln, psaUsable ? &f->psa : NULL, &f->features);
   float workload[WORKLOAD_LEN];
   Features_workload(&task->op, workload);
   double psa = psaUsable ? Psa_latency(&f->psa, &dev->params, f->psaCosts) : INFINITY;
   Dataset_add(d, Dataset_task(d, group), &f->features, workload, psa, cost);
   if (psaUsable)
      d->roofline[d->n - 1] =
         (float)LatencyHead_roofline(&f->psa, f->psaCosts, &f->ln, dev->features,
                                     dev->params.partitions, dev->launchUs);
   if (dev)
      Dataset_setDevice(d, d->n - 1, dev->features);
}

int Featurizer_addRecord(Featurizer *f, const Record *r, Dataset *d, char **cause) {
   TaskEntry *e = findTask(f, r->task);
   if (!e)
      return setCause(cause, "task %s is in none of the task files given", r->task);
   DeviceEntry *dev = findDevice(f, r->device);
   State s;
   char *why = NULL;
   if (State_parse(&e->set, r->state, &dev->limits, &s, &why) < 0) {
      setCause(cause, "task %s: the state does not parse: %s", r->task, why);
      free(why);
      return -1;
   }
   char group[DATASET_KEY_MAX];
   if (f->byDevice)
      snprintf(group, sizeof group, "%s@%s", r->task, r->device);
   else
      snprintf(group, sizeof group, "%s", r->task);
   addLowered(f, d, e->task, &e->set, dev, &s, r->error == MEASURE_OK ? Record_meanCost(r) : MEASURE_FAILED_COST,
              group);
   return 0;
}

void Featurizer_addState(Featurizer *f, const Task *task, const SketchSet *set, const State *s,
                         const char *psaDevice, Dataset *d) {
   addLowered(f, d, task, set, psaDevice ? findDevice(f, psaDevice) : NULL, s, 0, task->key);
}
