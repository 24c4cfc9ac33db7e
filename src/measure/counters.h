/* What a kernel did on the hardware, as a record keeps it (issue 24's counters): the
 * DRAM throughput, the L2 hit rate, the achieved occupancy, the FP32 rate, the waves of
 * blocks and what bounds the time. On a GPU they come from CUPTI's profiling API; on
 * the simulator from its model of the program, marked simulated. A program of several
 * kernels gives their time-weighted whole: bytes and FLOPs summed over the summed
 * time, occupancy and waves weighted by each kernel's time, the bound of the longest.
 *
 * In a record: "counters":{"source":"simulated","dram_gbs":812.5,"l2_hit_rate":0.62,
 * "occupancy":0.5,"gflops":10422,"waves":1.94,"bound":"memory"}; every key is
 * required, and an unknown one, or one given twice, is an error. */
#ifndef HEADER_counters
#define HEADER_counters

#include <stdbool.h>

#include <cjson/cJSON.h>

typedef struct Counters_ {
   bool present;                /* the record has them */
   bool simulated;              /* "source": "simulated"; false: "cupti" */
   double dramGbs;              /* DRAM bytes over the time, GB/s */
   double l2HitRate;            /* of the bytes asked of L2, the share not going to DRAM */
   double occupancy;            /* resident warps over the SM's most, 0 to 1 */
   double gflops;               /* FP32 FLOPs over the time */
   double waves;                /* blocks over (SMs x blocks resident per SM) */
   char bound[16];              /* "compute", "memory", "shared memory" or "latency" */
} Counters;

/* The object above; NULL when c is not present. */
cJSON *Counters_toJson(const Counters *c);
/* Reads the object; -1 with *cause ("\"occupancy\": expected a number from 0 to 1, found
 * 1.5") when a key is missing, unknown, of the wrong type or out of range. */
int Counters_fromJson(const cJSON *item, Counters *c, char **cause);

#endif
