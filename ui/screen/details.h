/* The text of one state of a task, as the workbench's details pane and console show
 * it and as the explain and kernel subcommands print it: the task and its state, the
 * lowered loop nest, the CUDA source with its launch configuration, PSA's table, the
 * learned models' features, and what a kernel's counters say with its roofline place.
 * Each Details_ function returns a malloc'd, NUL-terminated string (caller frees) that
 * ends with a newline. */
#ifndef HEADER_details
#define HEADER_details

#include <stdint.h>

#include "device/device.h"
#include "ir/loopnest.h"
#include "measure/counters.h"
#include "sched/state.h"
#include "sim/sim.h"
#include "te/network.h"

/* A task of a loaded network and one valid state of it, lowered. */
typedef struct DetailsSubject_ {
   const Network *net;          /* the caller's; must outlive the subject */
   int task;
   SketchSet set;               /* the task's sketches */
   State state;
   LoopNest ln;                 /* the state lowered */
} DetailsSubject;

/* Task `task` of net with the state parsed from stateText (State_format's text, as
 * sessions store it) and validated under lim. -1 with *cause "task 3: REASON" when it
 * does not parse, or "task 9 is not one of the 8 tasks of NAME"; s then holds nothing. */
int DetailsSubject_init(DetailsSubject *s, const Network *net, int task, const char *stateText,
                        const SchedLimits *lim, char **cause);
/* As DetailsSubject_init, for a caller that names the task itself (the command line,
 * where the user gave it beside the state): *cause is State_parse's reason alone. */
int DetailsSubject_parse(DetailsSubject *s, const Network *net, int task, const char *stateText,
                         const SchedLimits *lim, char **cause);
/* Task `task` of net with a valid state of a random sketch sampled from an Rng seeded
 * with seed, as explain and kernel pick one without --state. -1 with *cause "task 3
 * has no valid state: REASON", or the range error above; s then holds nothing. */
int DetailsSubject_sample(DetailsSubject *s, const Network *net, int task, uint64_t seed,
                          const SchedLimits *lim, char **cause);
void DetailsSubject_done(DetailsSubject *s);

/* The task (index, network, op, shape, epilogue), its sketch and the state's text:
 *   task 3 of resnet_50: conv2d ..., epilogue bias+relu
 *   sketch 0 of 1: tiled conv2d_nchw into T_relu, ...
 *   state: {"v":1,...} */
char *Details_task(const DetailsSubject *s);
/* The lowered loop nest (LoopNest_print). */
char *Details_loops(const DetailsSubject *s);
/* One line per kernel, in launch order: "launch NAME: grid G blocks, B threads per
 * block, S bytes of static shared memory". */
char *Details_launch(const DetailsSubject *s);
/* The CUDA source of every kernel (Cuda_generate), headed by a comment naming the
 * program's version, the task and the state. */
char *Details_source(const DetailsSubject *s);
/* Details_launch, a blank line and Details_source: what `pruner-tui kernel` prints
 * after the task without --arch. */
char *Details_cuda(const DetailsSubject *s);
/* PSA's symbols per stored buffer, its penalties and terms, and its latency estimate
 * on dev. NULL with *cause when PsaParams_fromDevice refuses the device. */
char *Details_psa(const DetailsSubject *s, const Device *dev, char **cause);
/* The simulator's view of the state on dev (sim/sim.h), beside PSA's: per kernel the
 * simulator's compute, shared-memory, memory and latency terms, launch overhead,
 * kernel time and the term that bounds it, with PSA's estimate for the buffers the
 * kernel stores and the ratio; how its blocks fit (blocks per SM and what limits them,
 * occupancy, rounds, waves, registers); the work (flops, DRAM and L2 bytes, beside
 * PSA's flops and DRAM bytes); then the simulated latency, as `measure --device
 * sim:NAME` measures it but for its repeat noise. compiled is as Sim_latency takes it
 * (NULL: registers estimated from the nest); registers says where they come from. A
 * device or program the simulator refuses gives a line saying why, and PSA's column
 * says N/A where PSA refuses the device. */
char *Details_sim(const DetailsSubject *s, const Device *dev, const SimCompiled *const *compiled,
                  const char *registers);
/* What a kernel did on the hardware (counters.h), a line each: DRAM throughput, L1 and
 * L2 hit rates, occupancy, FP32 rate, waves, bank conflicts, instructions, IPC, the top
 * stall reason with its share of the stalled cycles, and what bounds it, "N/A" for what
 * the GPU did not give, under a first line saying whether they are the simulator's or
 * CUPTI's. Then where they put the kernel under dev's roofline (Counters_roofline with
 * its FP32 peak and DRAM bandwidth): the ridge point, the arithmetic intensity, the
 * attained GFLOP/s, the roof at that intensity, the share of it attained, and memory or
 * compute bound; "roofline: N/A: WHY" when there is no position (dev NULL: the device
 * has no profile). When c is not present, only "no counters yet: MISSING". */
char *Details_counters(const Counters *c, const Device *dev, const char *missing);
/* The features the learned models read: each row's non-zero entries by name, the
 * pattern block (PAM) and the workload embedding. */
char *Details_features(const DetailsSubject *s);

#endif
