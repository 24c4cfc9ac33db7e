/* Exports of a session file, each a projection of its log (DESIGN.md §3.7): the
 * measure events as measurement records, the round ends as Pruner's tuning curve
 * (total_latency.tsv), and each task's best measured state as CUDA source with its
 * launch configuration. The log is Session_read's and `path` the file it came from:
 * a bad event is reported as "PATH:LINE: reason", LINE being the event's. */
#ifndef HEADER_export
#define HEADER_export

#include "device/device.h"
#include "measure/record.h"
#include "sched/state.h"
#include "te/network.h"
#include "tune/session.h"

/* The record of measure event e: the header's task key, device and simulated flag,
 * the event's state, costs, error kind and message, and the time start + t (whole
 * seconds), its build and run seconds and throttle reasons. The session keeps no
 * register count: it is -1. Fails on a task index outside the header's tasks, an error kind this
 * program does not know, or what Record_validate refuses; `out` is then zeroed. */
int Export_record(const SessionLog *log, const char *path, const SessionEvent *e, Record *out,
                  char **cause);
/* Every measure event's record, in the log's order, appended to out; on failure out
 * keeps the records of the events before the bad one. */
int Export_records(const SessionLog *log, const char *path, RecordSet *out, char **cause);

/* The tuning curve: one TaskScheduler_curveLine per round_end event, in order (caller
 * frees; "" when there is none). *lines gets their number. */
char *Export_curve(const SessionLog *log, int *lines);

/* Loads the session's network: taskFile when not NULL, else the header's
 * "network_file" as Paths_findTaskFile finds it (or, when no file has that name any
 * more, its base name in the data directories). Its tasks must be the header's, in
 * order: "PATH:LINE: the header lists N tasks but FILE has M", or "...: task I is KEY
 * in the header but KEY2 in FILE". */
int Export_loadNetwork(const SessionLog *log, const char *path, const char *taskFile, Network *out,
                       char **cause);

/* For each of the header's tasks, the index in log->events of its best measure event:
 * the least latency (the median of the costs, as the engine takes it) among those with
 * the error "ok", the earliest on ties; -1 for a task with none. best has header.ntasks entries. Fails on a measure event whose task
 * index is not one of the header's. */
int Export_bestMeasures(const SessionLog *log, const char *path, int *best, char **cause);

#define EXPORT_NAME_MAX 32

typedef struct ExportedKernel_ {
   int task;
   char name[EXPORT_NAME_MAX];  /* "task-ID", ID zero-padded to the width of the last */
   double latency;              /* seconds: the median of the measure's costs */
   double gflops;               /* the task's FLOPs over the latency */
   int nkernels;
   char *source;                /* CUDA source of every kernel (Cuda_generate) */
   char *launch;                /* JSON, newline ended: the task (key, label, op),
                                   device, latency, GFLOPS and state, the global buffers,
                                   and per kernel in launch order its name, grid, block,
                                   static and dynamic shared bytes and arguments */
} ExportedKernel;

/* Measure event `event` of the log (its task's best, usually) made into a kernel: its
 * state parsed into a State of the task's sketches in net (Export_loadNetwork's)
 * under lim, lowered and generated. dev (NULL when unknown) gives the architecture in
 * the JSON. A state that does not parse: "PATH:LINE: task I: REASON". */
int Export_kernel(const SessionLog *log, const char *path, const Network *net, int event,
                  const SchedLimits *lim, const Device *dev, ExportedKernel *out, char **cause);
void ExportedKernel_done(ExportedKernel *k);

/* What `pruner-tui export` and the console's export write of the session file
 * `session`: the records appended to `records`, the curve to `curve`, the kernels into
 * the directory `kernels`, the curves as an SVG image (Plot_svg) to `plot` (each NULL
 * when not asked for; "-" for records and curve is standard output); `network` the
 * task file instead of the header's. */
typedef struct ExportRequest_ {
   const char *session, *records, *curve, *kernels, *plot, *network;
   /* a directory: the front of latency against error (front.h) as front.txt, as
    * front.json (each task's points with their kernels' files, and the network's
    * bounds with each task's choice), and each point's kernel as
    * task-ID-PRECISION.cu and .json */
   const char *front;
} ExportRequest;
/* Makes everything r asks for, then writes it (devices: the GPUs known, for the
 * kernels' limits). The summary lines ("appended N records to FILE", "wrote a plot of
 * N rounds to FILE", ...) go to `say`;
 * -1 with *cause when the session or an output fails (nothing is written then but what
 * was written before the failing one). */
int Export_run(const ExportRequest *r, const DeviceSet *devices, FILE *say, char **cause);

#endif
