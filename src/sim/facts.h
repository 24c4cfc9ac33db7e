/* The simulator's fact sheet (bench/sim/FACTS.md) as a table, and the microkernels that
 * hold `sim:PROFILE` to it: for every published microbenchmark fact (a streaming copy's
 * DRAM bandwidth, a pointer chase's latency, a dependent FMA chain, an empty launch, a
 * tiled SGEMM, ...) a loop nest built by hand, simulated, and turned into the fact's
 * unit the way the source measured it. */
#ifndef HEADER_facts
#define HEADER_facts

#include <stdbool.h>
#include <stddef.h>

#include "device/device.h"

/* The profiles FACTS.md holds numbers for, in its order. */
#define FACT_PROFILES 3

typedef enum {
   FACT_DRAM_BW,
   FACT_DRAM_BW_FRAC,
   FACT_L2_BW,
   FACT_SMEM_BW,
   FACT_BANK_CONFLICT_32,
   FACT_DRAM_LATENCY,
   FACT_L2_LATENCY,
   FACT_SMEM_LATENCY,
   FACT_FMA_RATE,
   FACT_FMA_LATENCY,
   FACT_FMA_LATENCY_HIDING,
   FACT_FMA_LATENCY_HIDING_ILP4,
   FACT_LAUNCH_OVERHEAD,
   FACT_SGEMM_EFF,
   FACT_CONV_B1_EFF,
   FACT_COUNT
} FactId;

typedef enum {
   FACT_TOL_NONE,               /* no held value: reported, never asserted */
   FACT_TOL_RELATIVE,           /* value x (1 -+ tol) */
   FACT_TOL_RANGE,              /* [lo, hi] in the fact's unit */
} FactTolKind;

/* What one profile's row of FACTS.md says. */
typedef struct FactHeld_ {
   double value;                /* the source value; NAN where none was found */
   FactTolKind kind;
   double tol;                  /* RELATIVE: the fraction (0.10 for +-10%) */
   double lo, hi;               /* RANGE */
   const char *source;          /* FACTS.md's source keys */
} FactHeld;

typedef struct Fact_ {
   const char *id;              /* FACTS.md's id, "dram_bw" */
   const char *what;            /* what the microkernel measures */
   const char *unit;
   FactHeld held[FACT_PROFILES];
} Fact;

/* "a100_40", "h100_sxm", "v100" for 0 .. FACT_PROFILES-1; the index of a profile name
 * or -1. */
const char *Facts_profile(int p);
int Facts_profileIndex(const char *name);
const Fact *Facts_get(FactId f);

/* The accepted range of a held value ([-inf, inf] when none), whether v lies in it,
 * and the tolerance as FACTS.md writes it ("+-10%", "0.80-0.97", "-"). */
void FactHeld_range(const FactHeld *h, double *lo, double *hi);
bool FactHeld_accepts(const FactHeld *h, double v);
void FactHeld_formatTolerance(const FactHeld *h, char *buf, size_t size);

/* The simulated value of every fact on d (values[FACT_COUNT], in the facts' units),
 * from d's hardware and sim.* constants. A fact whose microkernel d cannot run is NAN.
 * -1 with *cause when d cannot be simulated at all. */
int Facts_simulate(const Device *d, double *values, char **cause);

#endif
