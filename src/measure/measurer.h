/* Measurement as the rest of the tuner sees it: a device (a CUDA GPU through a runner
 * process, or the simulator standing in for a devices.yaml profile), a task, and
 * batches of states that come back as outcomes and records. One batch is lowered,
 * compiled on the build pool, then checked and timed one program at a time (programs
 * never share the GPU). The simulator checks correctness too: a sampled share of the
 * states runs on the CPU executor against the C reference. */
#ifndef HEADER_measurer
#define HEADER_measurer

#include <stdbool.h>
#include <stdint.h>

#include "device/device.h"
#include "measure/gpustate.h"
#include "measure/inject.h"
#include "measure/measure.h"
#include "measure/protocol.h"
#include "measure/record.h"
#include "measure/runner.h"
#include "sched/state.h"
#include "te/network.h"

#define MEASURER_DEFAULT_SIM_PROFILE "h100_sxm"

typedef struct MeasurerConfig_ {
   const char *device;          /* "auto" (NULL too), "cuda:N" or "sim:PROFILE" */
   const char *simProfile;      /* auto without a GPU simulates this; NULL: h100_sxm */
   const DeviceSet *devices;    /* profiles; must outlive the measurer */
   RunnerConfig runner;         /* timing and timeouts of the GPU runner */
   int buildThreads;            /* 0: one per core */
   double buildTimeout;         /* seconds per compile */
   int simVerifyEvery;          /* the simulator runs 1 state in N on the CPU executor */
   bool simNoCompile;           /* the simulator skips NVRTC (registers estimated): fast */
   InjectKind inject;           /* break every program this way (tests) */
   uint64_t seed;               /* of the task's input values */
   double maxMemory;            /* bytes a task's CPU check may hold; 0: no limit */
} MeasurerConfig;

void MeasurerConfig_default(MeasurerConfig *c);

/* What measuring one state gave. */
typedef struct MeasureOutcome_ {
   MeasureError error;
   char message[512];
   int ncosts;
   double costs[PROTO_MAX_COSTS];  /* seconds per launch, one per repeat */
   double latency;              /* their median; MEASURE_FAILED_COST on error */
   double spread;               /* max/min - 1 of the costs */
   int registers;               /* per thread, of the kernel with most; -1 unknown */
   int spillBytes;              /* ptxas' spill stores + loads over the kernels; -1 unknown */
   double compileSeconds;
   double runSeconds;
   bool cached;                 /* the CUBIN came from the build cache */
   bool checked;                /* the output was compared with the reference */
   unsigned throttled;          /* of an ok one on a GPU, the reasons that slowed the GPU
                                   (GPU_THROTTLE_SLOWING) before or after its timed runs;
                                   0 without NVML and on the simulator */
} MeasureOutcome;

typedef struct Measurer_ Measurer;

/* Picks and opens the device. "auto" tries CUDA device 0 and falls back to the
 * simulator (Measurer_note says why). -1 with *cause: an unknown profile, or a CUDA
 * device that was asked for and cannot be used. */
Measurer *Measurer_open(const MeasurerConfig *cfg, char **cause);
void Measurer_close(Measurer *m);

bool Measurer_simulated(const Measurer *m);
/* The device profile in use: from devices.yaml, completed from the driver on a GPU. */
const Device *Measurer_device(const Measurer *m);
/* "cuda:0 NVIDIA H100 80GB HBM3 (profile h100_sxm)" or "sim:h100_sxm (simulated)" */
const char *Measurer_describe(const Measurer *m);
/* Why auto fell back to the simulator, or NULL. */
const char *Measurer_note(const Measurer *m);
/* The architecture programs are compiled for ("sm_90"). */
const char *Measurer_arch(const Measurer *m);
/* Whether NVRTC compiles the programs (always on a GPU; on the simulator when found). */
bool Measurer_compiles(const Measurer *m);
/* The GPU's state through NVML: NULL on the simulator, and on a GPU whose NVML could
 * not be opened (Measurer_note says why). Its samples may be taken from any thread. */
GpuState *Measurer_gpuState(const Measurer *m);
/* On a GPU without that state, why ("no GPU state: NVML ... lacks ..."); else NULL. */
const char *Measurer_gpuNote(const Measurer *m);

/* Prepares task `task` (of a network; its sketches in set, both kept by the caller
 * until the next call): inputs, the CPU reference and, on a GPU, the reference
 * program checked against it. -1 with *cause when the GPU disagrees with the CPU, or
 * on a GPU when the task's buffers exceed cfg.maxMemory (nothing is allocated then).
 * On the simulator such a task is measured without the CPU check; Measurer_taskNote
 * says so. */
int Measurer_setTask(Measurer *m, const Task *task, const SketchSet *set, char **cause);
/* Why the states of the task set last are not checked on the CPU, or NULL. */
const char *Measurer_taskNote(const Measurer *m);

/* Breaks the programs of the batches that follow this way (tests; INJECT_NONE stops). */
void Measurer_setInject(Measurer *m, InjectKind k);

/* Measures n states of the current task into out[0..n). */
void Measurer_measure(Measurer *m, const State *states, int n, MeasureOutcome *out);

/* The record of one outcome (the caller frees it with Record_done). */
void Measurer_record(const Measurer *m, const State *s, const MeasureOutcome *o, Record *r);

#endif
