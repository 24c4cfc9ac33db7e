/* What a kernel did on the hardware, as a record keeps it (issue 24's counters): the
 * DRAM throughput, the L1 and L2 hit rates, the achieved occupancy, the FP32 rate, the
 * waves of blocks, shared memory's bank conflicts, the instructions issued and their
 * rate, the stall reason that held the warps most, and what bounds the time. On a GPU
 * they come from CUPTI's profiling API (cupti.h); on the simulator from its model of
 * the program, marked simulated. A program of several kernels gives their whole:
 * bytes, FLOPs and instructions summed over the summed time, the hit rates and the
 * conflicts over the summed requests, occupancy, waves and IPC weighted by each
 * kernel's time, the stall reason over the summed stalls, the bound of the longest.
 *
 * In a record: "counters":{"source":"simulated","dram_gbs":812.5,"l2_hit_rate":0.62,
 * "occupancy":0.5,"gflops":10422,"waves":1.94,"l1_hit_rate":0.1,"bank_conflicts":0.25,
 * "instructions":1.2e7,"ipc":1.5,"bound":"memory","stall":"long_scoreboard",
 * "stall_share":0.6}. The keys up to "waves" and "bound" are required. The later five
 * (l1_hit_rate, bank_conflicts, instructions, ipc, and stall with stall_share, which
 * come together) were added after the first records were written: a reader takes each
 * as optional, so that older records load, and marks what it found in `known`; a
 * writer writes each that is known, which for every measurement made now is all of
 * them unless the GPU did not give one. An unknown key, or one given twice, is an
 * error. */
#ifndef HEADER_counters
#define HEADER_counters

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* The counters a record may lack (bits of Counters.known). */
typedef enum {
   COUNTER_L1_HIT_RATE = 1u << 0,
   COUNTER_BANK_CONFLICTS = 1u << 1,
   COUNTER_INSTRUCTIONS = 1u << 2,
   COUNTER_IPC = 1u << 3,
   COUNTER_STALL = 1u << 4,     /* stall and stallShare */
} CounterField;
#define COUNTERS_ALL_FIELDS 0x1fu

/* The stall reasons a record may name: Nsight Compute's warp states, without
 * "selected" (issuing is no stall). */
#define COUNTERS_STALLS                                                                                      \
   "long_scoreboard", "short_scoreboard", "barrier", "wait", "math_pipe_throttle", "mio_throttle",           \
      "lg_throttle", "not_selected", "no_instruction", "branch_resolving", "dispatch_stall", "drain", "membar", \
      "sleeping", "tex_throttle", "imc_miss", "misc"
#define COUNTERS_NSTALLS 17

typedef struct Counters_ {
   bool present;                /* the record has them */
   bool simulated;              /* "source": "simulated"; false: "cupti" */
   unsigned known;              /* CounterField: which of the optional ones it has */
   double dramGbs;              /* DRAM bytes over the time, GB/s */
   double l2HitRate;            /* of the bytes asked of L2, the share not going to DRAM */
   double occupancy;            /* resident warps over the SM's most, 0 to 1 */
   double gflops;               /* FP32 FLOPs over the time */
   double waves;                /* blocks over (SMs x blocks resident per SM) */
   double l1HitRate;            /* of the sectors asked of L1, the share it served */
   double bankConflicts;        /* of shared memory's wavefronts, the share that bank
                                   conflicts added (0: none; 0.5: twice the ideal) */
   double instructions;         /* warp instructions issued */
   double ipc;                  /* of them per SM and clock */
   char bound[16];              /* "compute", "memory", "shared memory" or "latency" */
   char stall[24];              /* what the warps waited on most (COUNTERS_STALLS) */
   double stallShare;           /* its share of the warps' stalled cycles, 0 to 1 */
} Counters;

/* One kernel's counters before a program's are combined: sums, and rates with what
 * weighs them. The simulator and CUPTI both fill these. */
typedef struct CounterKernel_ {
   double seconds;
   double flops, dramBytes;
   double l2Requests, l2Hits;   /* in any unit, the same for both */
   double l1Requests, l1Hits;
   double sharedWavefronts, sharedConflicts;   /* conflicts: the wavefronts they added */
   double instructions;         /* warp instructions issued */
   double ipc, occupancy, waves;
   double stalls[COUNTERS_NSTALLS];   /* in COUNTERS_STALLS' order, in any unit */
   const char *bound;           /* "compute", "memory", "shared memory" or "latency" */
   unsigned known;              /* the CounterField bits it gives */
} CounterKernel;

/* The counters of a program of n kernels (see the top of this file); not present when
 * the kernels took no time. known: what every kernel gives. */
void Counters_combine(const CounterKernel *k, int n, bool simulated, Counters *c);
/* The index of a stall reason in COUNTERS_STALLS; -1 when it is none. */
int Counters_stallIndex(const char *name);

/* The object above; NULL when c is not present. */
cJSON *Counters_toJson(const Counters *c);
/* Reads the object; -1 with *cause ("\"occupancy\": expected a number from 0 to 1, found
 * 1.5") when a required key is missing, a key is unknown, of the wrong type or out of
 * range, or stall comes without stall_share or the other way round. */
int Counters_fromJson(const cJSON *item, Counters *c, char **cause);

/* One line of them: "DRAM 812.5 GB/s, L2 hit rate 62.0%, ..., memory bound"; what is
 * not known is left out. */
void Counters_describe(const Counters *c, char *buf, size_t size);

/* Where the counters put a kernel under the roofline of a GPU that peaks at peakGflops
 * (FP32) and streams bandwidthGbs from DRAM. */
typedef struct Roofline_ {
   double intensity;            /* FLOPs per DRAM byte: gflops / dramGbs */
   double attained;             /* GFLOP/s */
   double ridge;                /* peakGflops / bandwidthGbs: where the roofs meet */
   double roof;                 /* min(peakGflops, intensity x bandwidthGbs) */
   double percent;              /* attained / roof x 100 */
   bool memoryBound;            /* intensity below the ridge: under the slanted roof */
} Roofline;

/* -1 with *cause when there is no position: no FLOPs ("it did no FP32 arithmetic"), no
 * DRAM traffic, or a peak of the device that is not known (not above 0). */
int Counters_roofline(const Counters *c, double peakGflops, double bandwidthGbs, Roofline *r, char **cause);

#endif
