/* Measurement as the rest of the tuner sees it: a fleet of measuring devices (CUDA
 * GPUs, each through its own runner process, or simulators standing in for
 * devices.yaml profiles), a task, and batches of states that come back as outcomes and
 * records. One batch is lowered, compiled on the one build pool, then checked and timed
 * one program at a time per device (programs never share a GPU): each device takes
 * the next program as it becomes free, and the outcomes come back in the batch's
 * order. The simulator checks correctness too: a sampled share of the
 * states runs on the CPU executor against the C reference. */
#ifndef HEADER_measurer
#define HEADER_measurer

#include <stdbool.h>
#include <stdint.h>

#include "device/device.h"
#include "measure/counters.h"
#include "measure/gpustate.h"
#include "measure/inject.h"
#include "measure/measure.h"
#include "measure/protocol.h"
#include "measure/record.h"
#include "measure/runner.h"
#include "sched/state.h"
#include "te/network.h"

#define MEASURER_DEFAULT_SIM_PROFILE "h100_sxm"
#define MEASURER_MAX_DEVICES 16
/* devices in all under MPI, every worker's together */
#define MEASURER_MAX_FLEET 256
/* a GPU whose runner failed this many programs in a row (each measured again on
 * another GPU) while another GPU measured one is retired */
#define MEASURER_RETIRE_AFTER 3
/* --sim-realtime's cost of one measurement besides its timed launches: NVRTC's median
 * build (0.052 s) and the runner's median run (0.130 s) less its 3 timed repeats of
 * 10 ms, as measured on an H200 (bench/gpu/RESULTS.md) */
#define MEASURER_REALTIME_BUILD_S 0.052
#define MEASURER_REALTIME_LAUNCH_S 0.100

typedef enum { FLEET_AUTO, FLEET_CUDA, FLEET_SIM } FleetKind;

/* A --device argument taken apart: auto; cuda:N, cuda:N,M,... or cuda:all; sim:PROFILE,
 * sim:PROFILE*N or a list of them (sim:h100_sxm*2,a100_40). */
typedef struct MeasurerFleet_ {
   FleetKind kind;
   bool all;                    /* cuda:all: every GPU the driver has */
   int count;                   /* of what follows; 1 for auto */
   int ordinals[MEASURER_MAX_DEVICES];
   char profiles[MEASURER_MAX_DEVICES][32];
} MeasurerFleet;

/* -1 with *cause ("--device: ...") when the text is none of the forms above. */
int MeasurerFleet_parse(const char *device, MeasurerFleet *f, char **cause);

typedef struct MeasurerConfig_ {
   const char *device;          /* "auto" (NULL too) or a fleet (MeasurerFleet_parse) */
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
   bool allowMixed;             /* devices of different models may measure together */
   bool simRealtime;            /* a simulated measurement lasts as long as on a GPU */
   bool mpi;                    /* rank 0 of an MPI run: the devices are the other ranks'
                                   (mpi.h); device then says what those open */
   bool counters;               /* an ok outcome carries its counters (the simulator's
                                   modelled ones; a GPU's through CUPTI, cupti.h: one
                                   more launch of each program, replayed per pass) */
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
   /* of a checked ok one: the largest |output - reference| compared, over the
    * reference's RMS (the CPU's on the simulator, the device's FP32 reference kernel's
    * on a GPU); NAN when the output was not compared */
   double outputError;
   int device;                  /* the device of the fleet that gave it (0 to count - 1) */
   Counters counters;           /* with cfg.counters, of an ok one; else not present */
   unsigned throttled;          /* of an ok one on a GPU, the reasons that slowed the GPU
                                   (GPU_THROTTLE_SLOWING) before or after its timed runs;
                                   0 without NVML and on the simulator */
} MeasureOutcome;

typedef struct Measurer_ Measurer;

/* Picks and opens the devices. "auto" tries CUDA device 0 and falls back to the
 * simulator (Measurer_note says why). -1 with *cause: an unknown profile, a CUDA
 * device that was asked for and cannot be used, or devices of different models
 * without cfg.allowMixed. With cfg.mpi, waits for every worker rank's hello instead
 * (-1 when one has no device, or the run has no worker). */
Measurer *Measurer_open(const MeasurerConfig *cfg, char **cause);
void Measurer_close(Measurer *m);

bool Measurer_simulated(const Measurer *m);
/* The device profile in use (the first device's in a mixed fleet): from
 * devices.yaml, completed from the driver on a GPU. */
const Device *Measurer_device(const Measurer *m);
/* How many devices measure, retired ones included. */
int Measurer_count(const Measurer *m);
/* The fleet in --device's words, cuda:all and auto resolved: "sim:h100_sxm*4",
 * "cuda:0,2,3", "sim:h100_sxm". */
const char *Measurer_fleet(const Measurer *m);
/* Device i's name as --device takes it alone ("cuda:2", "sim:h100_sxm"); under MPI,
 * the worker's name and its rank ("cuda:0@3"). */
const char *Measurer_unitName(const Measurer *m, int i);
/* How many devices are retired, and why, one sentence each joined by "; " (NULL while
 * none is). */
int Measurer_retired(const Measurer *m, const char **why);

/* What one device of the fleet did since the measurer opened (with what
 * Measurer_seedDeviceStats added). A state that a device's
 * runner failed and another measured again counts as the first one's failure and
 * again on the other. */
typedef struct MeasurerDeviceStats_ {
   char name[56];               /* "cuda:2"; "sim:h100_sxm#2" where devices share a name */
   long measured;               /* outcomes it gave */
   long failed;                 /* of them, errors */
   double busySeconds;          /* wall clock spent measuring */
   bool retired;
   const char *why;             /* why it is retired (the measurer's), or NULL */
} MeasurerDeviceStats;

/* Device i (0 to Measurer_count - 1); read between batches, from the thread that
 * calls Measurer_measure. */
void Measurer_deviceStats(const Measurer *m, int i, MeasurerDeviceStats *s);
/* Adds from's measured, failed and busy seconds to the device that
 * Measurer_deviceStats names from->name, so that a resumed session's counts go on from
 * where they stood; false when no device has that name. Its retired and why are not
 * taken: a new run opens every device afresh (a runner's context that failed may work
 * again), and one still broken is retired again after MEASURER_RETIRE_AFTER failures,
 * each measured again on another. Between batches. */
bool Measurer_seedDeviceStats(Measurer *m, const MeasurerDeviceStats *from);
/* "cuda:0 NVIDIA H100 80GB HBM3 (profile h100_sxm)" or "sim:h100_sxm (simulated)" */
const char *Measurer_describe(const Measurer *m);
/* Why auto fell back to the simulator, or NULL. */
const char *Measurer_note(const Measurer *m);
/* With counters on (cfg.counters, Measurer_setCounters) on a GPU: why CUPTI gave no
 * counters for some program (the first reason: a driver that keeps them for
 * administrators, a metric the GPU lacks), or why Measurer_setCounters could not turn
 * them on; NULL when it gave every one asked for. */
const char *Measurer_countersNote(const Measurer *m);
/* The architecture programs are compiled for ("sm_90"). */
const char *Measurer_arch(const Measurer *m);
/* Whether NVRTC compiles the programs (always on a GPU; on the simulator when found). */
bool Measurer_compiles(const Measurer *m);
/* The (first) GPU's state through NVML: NULL on the simulator, and on a GPU whose NVML could
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

/* Whether the ok outcomes of the batches that follow carry their counters; cfg.counters
 * chose it at open. The engine turns them on for one state at a time on a GPU, where
 * every program profiled costs a launch replayed per pass. False when on cannot be
 * had, and Measurer_countersNote says why: on a GPU without CUPTI (Cupti_available).
 * Under MPI the setting goes with every state to the worker, whose own measurer gives
 * the counters where its devices can (a worker's GPU without CUPTI gives none). */
bool Measurer_setCounters(Measurer *m, bool on);

/* Measures n states of the current task into out[0..n). */
void Measurer_measure(Measurer *m, const State *states, int n, MeasureOutcome *out);

/* The record of one outcome (the caller frees it with Record_done). */
void Measurer_record(const Measurer *m, const State *s, const MeasureOutcome *o, Record *r);

#endif
