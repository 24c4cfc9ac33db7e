/* From measurements to what the learned cost models read: each record's state is
 * parsed against its task's sketches, lowered, and analysed into feature rows, PAM's
 * pattern block, PSA's estimate and the latency head's roofline (cost/latency.h) for
 * the record's device, and that device's features (Device_features), and added to a
 * Dataset with its cost. The tasks come from task files: a record names its task only
 * by its workload key. */
#ifndef HEADER_featurize
#define HEADER_featurize

#include "cost/dataset.h"
#include "device/device.h"
#include "measure/record.h"
#include "sched/state.h"
#include "te/network.h"

typedef struct Featurizer_ Featurizer;

/* nets (kept by the caller) give the tasks; devices the PSA parameters of each
 * record's device (PSA's estimate is INFINITY for a device PSA cannot use). */
Featurizer *Featurizer_new(const Network *const *nets, int nnets, const DeviceSet *devices);
/* Another featurizer over the same networks and devices with scratch memory of its
 * own: a featurizer is used from one thread at a time, so each thread makes a copy. */
Featurizer *Featurizer_copy(const Featurizer *f);
void Featurizer_free(Featurizer *f);

/* Records of a task on different devices rank among themselves, not together: with on,
 * a record's task group in the dataset is "KEY@DEVICE" instead of its task's key. */
void Featurizer_groupByDevice(Featurizer *f, bool on);
/* Adds record r to d. -1 with *cause ("task KEY is in none of the task files given",
 * "the state does not parse: ...") when it cannot. */
int Featurizer_addRecord(Featurizer *f, const Record *r, Dataset *d, char **cause);

/* Adds state s of task `task` (of one of the networks) to d, unmeasured, for scoring;
 * psaDevice names the device for PSA's estimate (NULL: none). */
void Featurizer_addState(Featurizer *f, const Task *task, const SketchSet *set, const State *s,
                         const char *psaDevice, Dataset *d);

#endif
