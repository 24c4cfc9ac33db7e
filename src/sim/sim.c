/* The analytical GPU model behind `sim:PROFILE`. One walk per kernel counts what one
 * thread (so one warp) issues and what one block moves; the occupancy calculation says
 * how many blocks share an SM; the busiest SM's time is then a sum of rounds, each the
 * larger of the throughput bound of its resident blocks and one warp's own latency
 * path. The walk never runs the kernel: addresses are evaluated for the lanes of a few
 * sample warps, at the first iteration of every loop, to count 32-byte sectors and
 * shared-memory bank conflicts.
 *
 * The model was written from the hardware's documented behaviour (the CUDA C++
 * Programming Guide's occupancy rules and throughput table, the architecture
 * whitepapers' cache and bandwidth figures), not from PSA: nothing here reads PSA's
 * symbols or shares its formulas, so that simulated measurements can judge the draft
 * model rather than echo it.
 *
 * A kernel of T threads (W = ceil(T / 32) warps) in G blocks, on P sub-partitions:
 *   walk      per warp: I issued instructions, F FP32-pipe and U special-function
 *             instructions, M global load round trips, X other latency (cycles); per
 *             block: S shared/L1 wavefronts and, per global buffer, its sectors
 *   registers R = ptxas' count, else 24 + register arrays + loaded operands (at most
 *             64), at most what __launch_bounds__(T) leaves; the rest spills
 *   occupancy B = min(floor(maxWarpsPerSm / W), floor(warpsByRegs / W),
 *             floor(sharedPerSm / alloc), maxBlocksPerSm), where warpsByRegs =
 *             P x floor(regsPerSm / P / (ceil(32 R / 256) x 256)) and alloc = the
 *             shared bytes + 1 KB reserved (cc >= 8.0) in 128-byte units
 *   traffic   L2 = 32 x sectors x G (+ local memory beyond L1); footprint
 *             Fp = sum over buffers of min(their traffic, their size); DRAM =
 *             Fp + (L2 - Fp) x (1 - h), h = min(1, 0.5 x l2_bytes / Fp)
 *   a round   of b resident blocks while `a` SMs are busy, in cycles:
 *             compute = ceil(bW / P) x max(I x icache, P x F / fpRate, P x U / 0.5): a
 *             warp issues on, and uses the FP32 and special-function lanes of, its own
 *             sub-partition, so the busiest partition sets the time
 *             shared = b x S;  memory = max(b x L2 / G / 48, b x DRAM / G / (BW / a / clock))
 *             on-chip = max(compute, shared) + min(compute, shared) / (1 + bW)
 *             thr = max(on-chip, memory) + min(on-chip, memory) / (1 + (barriers ? b : bW))
 *             lat = I + X + M x (200 + 300 x DRAM / L2)
 *             round = max(thr, lat') + 0.2 x min(thr, lat'), lat' = lat + 200 (starting
 *             the blocks is latency, hidden under a throughput-bound round's work)
 *   kernel    the busiest SM runs n = ceil(G / SMs) blocks: floor(n / B) rounds of B
 *             (a = min(SMs, G)), then one of n mod B (a = the SMs left with blocks);
 *             seconds = cycles / clock + 3 us of launch
 *   latency   the sum over kernels x (1 + 0.01 x (2u - 1)), u uniform from the key.
 *   counters  (what a profiler would read; the model's own counterparts) instructions
 *             = I x W x G, IPC = instructions / SMs / cycles; shared wavefronts and
 *             those a conflict-free request would take (one per 32 distinct words);
 *             L1: every global sector misses (no global data is kept there), local
 *             memory hits where the frames fit; a warp's stalls per round: its path's
 *             parts (loads: long or short scoreboard, barriers, dependencies: wait) and
 *             the throughput bound's excess over the path, charged to its busiest part.
 * The clock is the profile's, or the peak over 2 x SMs x the FP32 lanes per SM of its
 * compute capability; fpRate = peak / (2 x SMs x clock x 32) warp instructions per
 * clock. The kernel's unrollStep is not read again: lowering already turned it into
 * the loops' kinds (LOOP_UNROLL), which the walk honours. */
#include "config.h"

#include "sim/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sketch.h"
#include "util/rng.h"
#include "util/xalloc.h"

/* ---- occupancy (CUDA occupancy calculator rules) ---- */
/* Registers are allocated per warp in units of 256 (cc 3.0 to 9.0), each warp from
 * the register file of its own sub-partition. */
#define REG_ALLOC_UNIT 256
/* Shared memory is allocated per block in units of 128 bytes from cc 7.0 on, 256
 * before; from cc 8.0 on the runtime reserves 1 KB of every block's shared memory. */
#define SHARED_ALLOC_UNIT 128
#define SHARED_ALLOC_UNIT_OLD 256
#define SHARED_RESERVED_CC8 1024

/* ---- throughputs per SM and clock ---- */
/* Special-function unit (exp, rsqrt, reciprocal, int-to-float): 16 lanes per SM per
 * clock on every architecture since Maxwell (Programming Guide throughput table). */
#define MUFU_LANES 16
/* One shared-memory wavefront per SM per clock: 32 banks of 4 bytes. */
#define SHARED_BANKS 32
/* Fraction of the L2 that holds distinct data: A100 and H100 split the L2 into two
 * partitions and may keep a line in both, so about half is the working capacity. */
#define L2_USABLE 0.5
/* Instructions the instruction caches hold (128 KB of 16-byte instructions); code
 * beyond this is fetched again each time it runs. */
#define ICACHE_INSTR 8192.0

/* ---- fixed latencies in cycles (the free ones are SimParams) ---- */
#define FP_LATENCY 4.0          /* a dependent FP32 instruction after an FMA (Volta, Turing
                                   tuning guides; 4.07 measured on Hopper) */
#define SHUFFLE_CYCLES 30.0     /* a warp shuffle and the operation on its result */

/* ---- code shape ---- */
/* Per iteration of a loop left serial: increment, compare, branch. */
#define LOOP_INSTR 3.0
/* nvcc unrolls a constant-trip loop without a pragma by up to 4 ... */
#define NVCC_UNROLL 4
/* ... and fully when the loop's unrolled body is at most this many statements, which
 * also lets it keep a local array indexed by that loop in registers. */
#define NVCC_FULL_UNROLL 64
/* Independent loads one warp keeps in flight at most. */
#define MLP_MAX 8.0
/* Registers a thread needs besides its register arrays and loaded operands: indices,
 * pointers, loop counters, the block's coordinates. */
#define REG_BASE 24
/* Loaded operands held in registers at once at most (the compiler schedules loads to
 * stay within this when more are loaded per iteration). */
#define OPERAND_REGS_MAX 64.0

#define MAX_DEPTH 32
#define VECTOR_COPIES 4096      /* unrolled copies of a load vectorLoads enumerates at most */
#define MAX_CONDS 16
#define SAMPLE_WARPS 4
#define WARP_LANES 32           /* the lanes of a warp (warp_size is 32 on every profile) */
#define MAX_LANES 128           /* 32 threads x a vector of up to 4 */
#define EVAL_SLOTS 128          /* nodes of one index and its conditions, to start with
                                   (the largest lowering makes has 72); doubled when short */
#define VAR_WORDS ((IR_MAX_VARS + 63) / 64)
#define FLOAT_BYTES 4
#define SECTOR_BYTES 32

typedef struct {
   uint64_t w[VAR_WORDS];
} VarSet;

typedef struct {
   int var;
   uint8_t kind;                 /* effective LoopKind */
   int64_t extent;
} Loop;

typedef struct {
   double cost;                  /* issue slots per execution */
   bool varying;                 /* depends on a serial loop's variable */
   bool nonAffine;               /* contains a varying division, modulo, min, max, comparison or select */
   bool unrolled;                /* depends on an unrolled loop's variable */
   double once;                  /* issue slots of the terms no serial loop changes but an
                                    unrolled one does: computed once per unrolled copy,
                                    before the serial loops */
} IntCost;

/* The device numbers the model uses, in its units. */
typedef struct {
   double sms, partitions, warp;
   double maxWarpsPerSm, maxBlocksPerSm, regsPerSm, maxRegs, sharedPerSm;
   double sharedUnit, sharedReserved;
   double clock;                 /* Hz */
   double fpPerClk;              /* FP32 warp instructions per SM per clock */
   double dramBytesPerSec, l2Bytes;
} Hw;

typedef struct {
   const LoopNest *ln;
   const IrKernel *kn;
   int64_t threads, warps;
   /* per nest */
   uint8_t kindOf[IR_MAX_VARS];  /* effective kind of each loop variable */
   bool setDone[IR_MAX_VARS];
   VarSet letSet[IR_MAX_VARS];   /* loop, block and thread variables a LET reads */
   VarSet loopVars;
   VarSet serialVars;            /* the loops left serial */
   bool inMemory[IR_MAX_BUFFERS];/* a local array the compiler must keep in local memory */
   bool fenced[IR_MAX_VARS];     /* the loop's body has a barrier: shared loads stay inside */
   uint64_t writtenBy[IR_MAX_KERNELS];   /* buffers each kernel stores to */
   uint64_t written;             /* those of the kernel at hand */
   /* the loop stack */
   int depth;
   Loop loop[MAX_DEPTH];
   double trip;                  /* executions per thread of the statement at hand */
   double staticMult;            /* its copies in the code */
   double copies;                /* virtual-thread copies around it */
   int ncond;
   int32_t cond[MAX_CONDS];
   int vecVar;
   int64_t vecWidth;
   /* lane evaluation */
   int64_t env[IR_MAX_VARS];
   const int64_t *letVal[IR_MAX_VARS];   /* a LET's lanes, valid when its stamp is current */
   uint32_t letStamp[IR_MAX_VARS];
   uint32_t stamp;
   int64_t tid0;                 /* the warp's first thread */
   int nslots, capslots;
   bool overflow;                /* an evaluation ran out of slots */
   int64_t (*slots)[WARP_LANES];
   int64_t spare[WARP_LANES];    /* what an evaluation that ran out writes to */
   /* per thread, so per warp */
   double instr, fp, mufu, flops;
   double tcFlops;               /* per warp */
   Precision tcPrecision;
   double memTrips;              /* global load round trips */
   double aheadTrips;            /* those issued ahead of their use (IrStmt.prefetch) */
   bool ahead;                   /* walking a prefetch's value */
   double path;                  /* other latency on the warp's own path, cycles */
   double sharedTrips;           /* shared loads on that path, each SHARED latency */
   double l1Trips;               /* local-memory loads on it, each L1 latency */
   double barrierWaits;          /* barriers on it, each BARRIER cycles */
   double barriers;
   double staticInstr;
   double operands, operandMax;  /* loaded values live per serial iteration */
   double steps;                 /* serial iterations around the global loads, at most */
   /* per block */
   double sectors[IR_MAX_BUFFERS];
   double wavefronts;
   double sharedWaves, sharedIdeal;   /* of the wavefronts, shared memory's; without conflicts */
   double localBytes;
} Walk;

/* ---- variables an expression reads ---- */

static inline bool hasVar(const VarSet *s, int v) {
   return (s->w[v / 64] >> (v % 64)) & 1;
}

static inline bool meets(const VarSet *a, const VarSet *b) {
   for (int i = 0; i < VAR_WORDS; i++)
      if (a->w[i] & b->w[i])
         return true;
   return false;
}

static void varsOf(Walk *w, int32_t e, VarSet *out);

static const VarSet *letVars(Walk *w, int var) {
   if (!w->setDone[var]) {
      VarSet s;
      memset(&s, 0, sizeof s);
      varsOf(w, w->ln->vars[var].value, &s);
      w->letSet[var] = s;
      w->setDone[var] = true;
   }
   return &w->letSet[var];
}

/* Adds the loop, block and thread variables e reads, through LET values, to out. */
static void varsOf(Walk *w, int32_t e, VarSet *out) {
   const Expr *x = &w->ln->expr[e];
   if (x->kind == EXPR_INT || x->kind == EXPR_FLOAT)
      return;
   if (x->kind == EXPR_AXIS) {
      if (w->ln->vars[x->ref].kind == VAR_LET) {
         const VarSet *s = letVars(w, x->ref);
         for (int i = 0; i < VAR_WORDS; i++)
            out->w[i] |= s->w[i];
      } else {
         out->w[x->ref / 64] |= UINT64_C(1) << (x->ref % 64);
      }
      return;
   }
   for (int i = 0; i < x->nargs; i++)
      varsOf(w, x->args[i], out);
}

/* Whether a LET's value changes with a serial loop, and with any loop. */
static bool letVarying(Walk *w, int var) {
   return meets(letVars(w, var), &w->serialVars);
}

static bool letLooped(Walk *w, int var) {
   return meets(letVars(w, var), &w->loopVars);
}

/* The iterations of the serial loops around the statement at hand, all together. */
static double serialTrips(const Walk *w) {
   double serial = 1;
   for (int i = 0; i < w->depth; i++)
      if (w->loop[i].kind == LOOP_SERIAL)
         serial *= (double)w->loop[i].extent;
   return serial;
}

/* The executions per thread of a computation hoisted out of the serial loops around the
 * statement at hand: one per unrolled copy. */
static double hoistedExecs(const Walk *w) {
   return w->trip / serialTrips(w);
}

/* ---- evaluating an index for the lanes of a warp ---- */

/* Scratch lanes for one evaluation: a slot per expression node evaluated. */
static int64_t *slot(Walk *w) {
   if (w->nslots == w->capslots) {
      w->overflow = true;
      return w->spare;
   }
   return w->slots[w->nslots++];
}

/* e's value in every lane of the warp at hand (threads w->tid0 + lane) with every loop
 * variable at w->env (its first iteration, or the vector lane). Both sides of a select
 * are evaluated: indices have no effects, and division by zero gives 0. */
static const int64_t *evalWarp(Walk *w, int32_t e) {
   const Expr *x = &w->ln->expr[e];
   int64_t *r;
   switch ((ExprKind)x->kind) {
   case EXPR_INT:
      r = slot(w);
      for (int l = 0; l < WARP_LANES; l++)
         r[l] = x->v.i;
      return r;
   case EXPR_AXIS: {
      const IrVar *v = &w->ln->vars[x->ref];
      if (v->kind == VAR_LET) {
         if (w->letStamp[x->ref] != w->stamp) {
            w->letVal[x->ref] = evalWarp(w, v->value);
            w->letStamp[x->ref] = w->stamp;
         }
         return w->letVal[x->ref];
      }
      r = slot(w);
      for (int l = 0; l < WARP_LANES; l++)
         r[l] = v->kind == VAR_THREAD ? w->tid0 + l : v->kind == VAR_LOOP ? w->env[x->ref] : 0;
      return r;
   }
   case EXPR_SELECT: {
      const int64_t *c = evalWarp(w, x->args[0]), *p = evalWarp(w, x->args[1]), *q = evalWarp(w, x->args[2]);
      r = slot(w);
      for (int l = 0; l < WARP_LANES; l++)
         r[l] = c[l] ? p[l] : q[l];
      return r;
   }
   default:
      break;
   }
   r = slot(w);
   if (x->nargs != 2 || w->ln->expr[x->args[0]].dtype == TE_FLOAT32) {
      for (int l = 0; l < WARP_LANES; l++)
         r[l] = 1;               /* a float comparison in a condition: taken */
      return r;
   }
   const int64_t *a = evalWarp(w, x->args[0]), *b = evalWarp(w, x->args[1]);
#define LANEWISE(expr)                          \
   for (int l = 0; l < WARP_LANES; l++) {       \
      int64_t p = a[l], q = b[l];               \
      r[l] = (expr);                            \
   }                                            \
   return r
   switch ((ExprKind)x->kind) {
   case EXPR_ADD: LANEWISE(p + q);
   case EXPR_SUB: LANEWISE(p - q);
   case EXPR_MUL: LANEWISE(p * q);
   case EXPR_FLOORDIV: LANEWISE(q ? Expr_floorDiv(p, q) : 0);
   case EXPR_FLOORMOD: LANEWISE(q ? Expr_floorMod(p, q) : 0);
   case EXPR_MIN: LANEWISE(p < q ? p : q);
   case EXPR_MAX: LANEWISE(p > q ? p : q);
   case EXPR_LT: LANEWISE(p < q);
   case EXPR_LE: LANEWISE(p <= q);
   case EXPR_GE: LANEWISE(p >= q);
   case EXPR_GT: LANEWISE(p > q);
   case EXPR_EQ: LANEWISE(p == q);
   case EXPR_AND: LANEWISE(p && q);
   default: LANEWISE(0 * p * q);
   }
#undef LANEWISE
}

static void sortInts(int64_t *v, int n) {
   for (int i = 1; i < n; i++) {
      int64_t x = v[i];
      int j = i - 1;
      while (j >= 0 && v[j] > x) {
         v[j + 1] = v[j];
         j--;
      }
      v[j + 1] = x;
   }
}

/* Sectors (global) or wavefronts (shared) one warp's request takes, from the element
 * indices of its active lanes. Shared: the most distinct 4-byte words that fall into
 * one bank (words read by several lanes are broadcast); *ideal, when not NULL, gets
 * the wavefronts the same words would take without a conflict, one per 32 of them. */
static int requestUnits(int64_t *idx, int n, BufferScope scope, int *ideal) {
   if (ideal)
      *ideal = 0;
   if (n == 0)
      return 0;
   if (scope == SCOPE_GLOBAL)
      for (int i = 0; i < n; i++)
         idx[i] = Expr_floorDiv(idx[i] * FLOAT_BYTES, SECTOR_BYTES);
   sortInts(idx, n);
   if (scope == SCOPE_GLOBAL) {
      int distinct = 1;
      for (int i = 1; i < n; i++)
         distinct += idx[i] != idx[i - 1];
      return distinct;
   }
   int perBank[SHARED_BANKS] = { 0 }, most = 0, words = 0;
   for (int i = 0; i < n; i++) {
      if (i > 0 && idx[i] == idx[i - 1])
         continue;
      words++;
      int b = (int)Expr_floorMod(idx[i], SHARED_BANKS);
      if (++perBank[b] > most)
         most = perBank[b];
   }
   if (ideal)
      *ideal = (words + SHARED_BANKS - 1) / SHARED_BANKS;
   return most;
}

/* The index of an access in the warp's lanes, and in active[] whether each lane takes
 * part: whether every enclosing condition holds for it. An evaluation that runs out of
 * slots is done again with twice as many. */
static const int64_t *evalAccess(Walk *w, int32_t index, int lanes, bool *active) {
   for (;;) {
      w->stamp++;
      w->nslots = 0;
      w->overflow = false;
      for (int l = 0; l < lanes; l++)
         active[l] = true;
      for (int c = 0; c < w->ncond; c++) {
         const int64_t *ok = evalWarp(w, w->cond[c]);
         for (int l = 0; l < lanes; l++)
            active[l] = active[l] && ok[l];
      }
      const int64_t *at = evalWarp(w, index);
      if (!w->overflow)
         return at;
      w->capslots *= 2;
      w->slots = xReallocArray(w->slots, (size_t)w->capslots, sizeof *w->slots);
   }
}

/* The units (requestUnits) of one access summed over the block's warps, from up to
 * SAMPLE_WARPS warps spread over the block: the full warps share the weight of the
 * samples among them, the last (possibly partial) warp counts once. A lane takes part
 * when every enclosing condition holds for it at the loops' first iteration. *ideal,
 * when not NULL, gets the conflict-free wavefronts summed the same way. */
static double blockUnits(Walk *w, int32_t index, BufferScope scope, double *ideal) {
   int64_t W = w->warps, T = w->threads;
   int n = W < SAMPLE_WARPS ? (int)W : SAMPLE_WARPS;
   double total = 0;
   if (ideal)
      *ideal = 0;
   for (int k = 0; k < n; k++) {
      int64_t warp = n == 1 ? 0 : (int64_t)k * (W - 1) / (n - 1);
      double weight = k == n - 1 ? 1.0 : (double)(W - 1) / (n - 1);
      int64_t idx[MAX_LANES];
      int m = 0;
      w->tid0 = warp * WARP_LANES;
      int lanes = T - w->tid0 < WARP_LANES ? (int)(T - w->tid0) : WARP_LANES;
      for (int64_t v = 0; v < w->vecWidth; v++) {
         if (w->vecVar >= 0)
            w->env[w->vecVar] = v;
         bool active[WARP_LANES];
         const int64_t *at = evalAccess(w, index, lanes, active);
         for (int l = 0; l < lanes; l++)
            if (active[l])
               idx[m++] = at[l];
      }
      if (w->vecVar >= 0)
         w->env[w->vecVar] = 0;
      int least;
      total += weight * requestUnits(idx, m, scope, &least);
      if (ideal)
         *ideal += weight * least;
   }
   return total;
}

/* ---- counting ---- */

static inline void issue(Walk *w, double perExec, double execs, double copies) {
   w->instr += perExec * execs;
   w->staticInstr += perExec * copies;
}

static int64_t gcdOf(int64_t a, int64_t b) {
   a = a < 0 ? -a : a;
   b = b < 0 ? -b : b;
   while (b) {
      int64_t t = a % b;
      a = b;
      b = t;
   }
   return a;
}

static inline bool isPow2(int64_t v) {
   return v > 0 && (v & (v - 1)) == 0;
}

/* The integer arithmetic of an index or condition that runs each time the statement
 * does. Affine arithmetic of loop variables costs nothing: unrolled copies fold it into
 * the address offset and serial loops advance a pointer instead (counted per access).
 * What does not fold: division and modulo by a constant (a multiply-high and a shift,
 * one shift or mask for a power of two), min, max, comparisons and selects, and the
 * additions and multiplications applied to their results. A term no serial loop
 * changes is loop-invariant: the compiler computes it before the serial loops, once
 * per unrolled copy when an unrolled loop's variable is in it (`once`; in every copy
 * that variable is a constant), and once for the thread when only the thread's and the
 * block's indices are (free, as shared by every statement). */
static IntCost intCost(Walk *w, int32_t e) {
   const Expr *x = &w->ln->expr[e];
   IntCost r = { 0, false, false, false, 0 };
   switch ((ExprKind)x->kind) {
   case EXPR_INT:
   case EXPR_FLOAT:
      return r;
   case EXPR_AXIS: {
      VarKind k = w->ln->vars[x->ref].kind;
      if (k == VAR_LOOP) {
         r.varying = w->kindOf[x->ref] == LOOP_SERIAL;
         r.unrolled = !r.varying;
      } else if (k == VAR_LET) {
         r.varying = letVarying(w, x->ref);
         r.unrolled = !r.varying && letLooped(w, x->ref);
      }
      return r;
   }
   default:
      break;
   }
   for (int i = 0; i < x->nargs; i++) {
      IntCost a = intCost(w, x->args[i]);
      r.cost += a.cost;
      r.once += a.once;
      r.varying |= a.varying;
      r.unrolled |= a.unrolled;
      r.nonAffine |= a.nonAffine;
   }
   if (!r.varying && !r.unrolled)
      return (IntCost){ 0, false, false, false, 0 };
   switch ((ExprKind)x->kind) {
   case EXPR_ADD:
   case EXPR_SUB:
   case EXPR_MUL:
      r.cost += r.nonAffine ? 1 : 0;
      break;
   case EXPR_FLOORDIV:
   case EXPR_FLOORMOD: {
      const Expr *d = &w->ln->expr[x->args[1]];
      r.cost += d->kind == EXPR_INT && isPow2(d->v.i) ? 1 : 2;
      r.nonAffine = true;
      break;
   }
   default:
      r.cost += 1;
      r.nonAffine = true;
      break;
   }
   if (!r.varying) {
      /* hoisted: a register the serial loops read, added where it is used */
      r.once += r.cost;
      r.cost = 0;
   }
   return r;
}

/* Every operation of a LET's value: it runs each time the LET does. */
static double letCost(const LoopNest *ln, int32_t e) {
   const Expr *x = &ln->expr[e];
   double c = 0;
   for (int i = 0; i < x->nargs; i++)
      c += letCost(ln, x->args[i]);
   switch ((ExprKind)x->kind) {
   case EXPR_INT:
   case EXPR_FLOAT:
   case EXPR_AXIS:
      return c;
   case EXPR_FLOORDIV:
   case EXPR_FLOORMOD:
      return c + (ln->expr[x->args[1]].kind == EXPR_INT && isPow2(ln->expr[x->args[1]].v.i) ? 1 : 2);
   default:
      return c + 1;
   }
}

/* The unrolled loops between the statement and its innermost serial loop: their
 * extents' product `all` (the copies in one serial iteration) and the position of that
 * serial loop (-1 when none). With vs, also the product `invariant` of the extents of
 * loops whose variable vs does not contain: unrolled copies of a load that do not
 * differ are one load (value numbering), and a load that no loop from some serial
 * loop inwards changes is hoisted out of it when nothing in the loop can change what
 * it reads (hoistable: a read-only global buffer, or shared memory in a loop without
 * barriers). */
static void innerRun(const Walk *w, const VarSet *vs, bool hoistable, bool sharedLoad, double *all,
                     double *invariant, int *serial) {
   *all = *invariant = 1;
   int i = w->depth - 1;
   bool used = false;
   for (; i >= 0 && w->loop[i].kind != LOOP_SERIAL; i--) {
      *all *= (double)w->loop[i].extent;
      if (vs && !hasVar(vs, w->loop[i].var))
         *invariant *= (double)w->loop[i].extent;
      else
         used = true;
   }
   *serial = i;
   if (!vs || !hoistable)
      return;
   for (int j = i; j >= 0 && !used; j--) {
      const Loop *l = &w->loop[j];
      used = hasVar(vs, l->var) || (sharedLoad && w->fenced[l->var]);
      if (!used)
         *invariant *= (double)l->extent;
   }
}

/* Whether e reads a buffer: an address computed from a loaded value (a pointer chase). */
static bool loadsMemory(const LoopNest *ln, int32_t e) {
   const Expr *x = &ln->expr[e];
   if (x->kind == EXPR_LOAD)
      return true;
   for (int i = 0; i < x->nargs; i++)
      if (loadsMemory(ln, x->args[i]))
         return true;
   return false;
}

/* nvcc merges the unrolled copies of a shared-memory load whose elements are adjacent
 * and whose address it can prove aligned (the arrays are 16-byte aligned; every lane,
 * every warp and every serial iteration moves the address by a multiple of the vector)
 * into 64- and 128-bit loads (LDS.64, LDS.128): of each aligned group of 4 elements
 * the copies read, all 4 take one load, and each aligned pair otherwise one (so do
 * its single elements). Returns how many loads the copies of one serial iteration
 * take (`distinct` when nothing merges) and in *waves the wavefronts they take per
 * block (each lane reading the load's 1, 2 or 4 elements, the first warp's pattern
 * for every warp), and in *ideal those they would take without a conflict. Up to VECTOR_COPIES copies are enumerated; beyond, nothing merges. */
static double vectorLoads(Walk *w, int32_t index, int serial, double distinct, double *waves, double *ideal) {
   *waves = *ideal = -1;
   int first = serial + 1, lanes = w->threads < WARP_LANES ? (int)w->threads : WARP_LANES;
   double total = 1;
   for (int i = first; i < w->depth; i++)
      total *= (double)w->loop[i].extent;
   if (distinct < 2 || total > VECTOR_COPIES)
      return distinct;
   bool active[WARP_LANES];
   int64_t saved[MAX_DEPTH];
   for (int i = 0; i < w->depth; i++)
      saved[i] = w->env[w->loop[i].var];
   int64_t tid0 = w->tid0;
   w->tid0 = 0;
   for (int i = first; i < w->depth; i++)
      w->env[w->loop[i].var] = 0;
   /* the alignment every lane, warp and serial iteration keeps */
   int64_t lane[WARP_LANES];
   memcpy(lane, evalAccess(w, index, lanes, active), (size_t)lanes * sizeof *lane);
   int64_t base = lane[0], g = 0;
   for (int l = 1; l < lanes; l++)
      g = gcdOf(g, lane[l] - base);
   if (w->threads > WARP_LANES) {
      w->tid0 = WARP_LANES;
      g = gcdOf(g, evalAccess(w, index, 1, active)[0] - base);
      w->tid0 = 0;
   }
   for (int i = 0; i < first; i++)
      if (w->loop[i].kind == LOOP_SERIAL && w->loop[i].extent > 1) {
         w->env[w->loop[i].var]++;
         g = gcdOf(g, evalAccess(w, index, 1, active)[0] - base);
         w->env[w->loop[i].var]--;
      }
   int64_t v = g % 4 == 0 ? 4 : g % 2 == 0 ? 2 : 1;
   double loads = distinct;
   if (v > 1) {
      int n = (int)total;
      int64_t *at = xMalloc((size_t)n * sizeof *at);
      for (int c = 0; c < n; c++) {
         int rest = c;
         for (int i = w->depth - 1; i >= first; i--) {
            w->env[w->loop[i].var] = rest % w->loop[i].extent;
            rest /= (int)w->loop[i].extent;
         }
         at[c] = evalAccess(w, index, 1, active)[0];
      }
      sortInts(at, n);
      /* the wavefronts of a warp's load of k = 1, 2, 4 elements a lane */
      double units[5] = { 0, 0, 0, 0, 0 }, least[5] = { 0, 0, 0, 0, 0 };
      for (int k = 1; k <= 4; k *= 2) {
         int64_t idx[MAX_LANES];
         int m = 0;
         for (int l = 0; l < lanes && m + k <= MAX_LANES; l++)
            for (int64_t e = 0; e < k; e++)
               idx[m++] = lane[l] - base + e;
         int fewest;
         units[k] = requestUnits(idx, m, SCOPE_SHARED, &fewest);
         least[k] = fewest;
      }
      double count = 0, wave = 0, leastWave = 0;
      for (int c = 0; c < n;) {
         int64_t group = (at[c] - (((at[c] % v) + v) % v)) / v;
         unsigned mask = 0;
         for (; c < n && (at[c] - (((at[c] % v) + v) % v)) / v == group; c++)
            mask |= 1u << (at[c] - group * v);
         if (v == 4 && mask == 0xF) {
            count += 1;
            wave += units[4];
            leastWave += least[4];
            continue;
         }
         for (int pair = 0; pair < v / 2; pair++) {
            unsigned bits = mask >> (2 * pair) & 3;
            count += bits != 0;
            wave += bits == 3 ? units[2] : bits ? units[1] : 0;
            leastWave += bits == 3 ? least[2] : bits ? least[1] : 0;
         }
      }
      free(at);
      if (count < distinct) {
         loads = count;
         *waves = wave * (double)w->warps;
         *ideal = leastWave * (double)w->warps;
      }
   }
   for (int i = 0; i < w->depth; i++)
      w->env[w->loop[i].var] = saved[i];
   w->tid0 = tid0;
   return loads;
}

/* One load or store of buffer at index. Local arrays in registers cost nothing; the
 * others cost an issue slot per execution (one for a whole vector), their index
 * arithmetic, a pointer step per serial iteration, and their traffic: sectors for
 * global memory, wavefronts for shared and local memory. Loads also add to the warp's
 * latency path, divided by how many the warp has in flight at once. */
static void access(Walk *w, int buffer, int32_t index, bool load) {
   const IrBuffer *b = &w->ln->buffers[buffer];
   if (b->scope == SCOPE_LOCAL && !w->inMemory[buffer])
      return;
   VarSet vs;
   memset(&vs, 0, sizeof vs);
   varsOf(w, index, &vs);
   double all, invariant;
   int serial;
   bool hoistable = b->scope == SCOPE_SHARED || (b->scope == SCOPE_GLOBAL && !(w->written >> buffer & 1));
   /* a chased address (computed from a load) changes with every load it waits for:
    * its copies are never one value and it is never hoisted, whatever loops it names */
   bool chase = loadsMemory(w->ln, index);
   innerRun(w, load && !chase ? &vs : NULL, hoistable, b->scope == SCOPE_SHARED, &all, &invariant, &serial);
   double execs = w->trip / invariant;
   double distinct = fmax(all / invariant, 1);
   double mlp = distinct * w->copies * (serial >= 0 ? fmin(NVCC_UNROLL, (double)w->loop[serial].extent) : 1);
   mlp = fmin(fmax(mlp, 1), MLP_MAX);
   if (chase)
      mlp = 1;                  /* its address waits for the load it is computed from */
   /* shared loads of adjacent, aligned elements merge into vector loads */
   double vecWaves = -1, vecIdeal = -1, loads = distinct;
   if (load && b->scope == SCOPE_SHARED && !chase && w->vecWidth == 1)
      loads = vectorLoads(w, index, serial, distinct, &vecWaves, &vecIdeal);
   double merged = loads / distinct;
   IntCost ic = intCost(w, index);
   issue(w, 1 + ic.cost, execs * merged, w->staticMult / invariant * merged);
   issue(w, ic.once, hoistedExecs(w) / invariant * merged, w->staticMult / invariant * merged);
   if (ic.varying && serial >= 0)
      issue(w, 1, w->trip / all, 1);
   double vec = (double)w->vecWidth;
   switch (b->scope) {
   case SCOPE_LOCAL:
      w->wavefronts += execs * (double)w->warps * vec;
      w->localBytes += execs * (double)w->threads * FLOAT_BYTES * vec;
      if (load)
         w->l1Trips += execs / mlp;
      break;
   case SCOPE_SHARED: {
      double ideal;
      double units = blockUnits(w, index, SCOPE_SHARED, &ideal);
      if (merged < 1 && vecWaves > 0) {
         units = vecWaves / distinct;   /* fewer, wider loads: their wavefronts a copy */
         ideal = vecIdeal / distinct;
      }
      w->wavefronts += execs * units;
      w->sharedWaves += execs * units;
      w->sharedIdeal += execs * ideal;
      if (load) {
         w->sharedTrips += execs / mlp;
         w->path += execs * fmax(units / (double)w->warps - 1, 0) / mlp;
      }
      break;
   }
   case SCOPE_GLOBAL:
      w->steps = fmax(w->steps, serialTrips(w));
      w->sectors[buffer] += execs * blockUnits(w, index, SCOPE_GLOBAL, NULL);
      if (load && w->ahead)
         w->aheadTrips += execs / mlp;
      else if (load)
         w->memTrips += execs / mlp;
      break;
   }
   if (load)
      w->operands += distinct * vec;
}

typedef struct {
   double fp, mufu, flops, other;
} ValueCost;

/* The arithmetic of a value, per execution; its loads are counted as accesses. An add
 * or subtract of a product is one FMA (2 FLOPs). Division is a reciprocal on the
 * special-function unit and two FMAs to refine it; exp, tanh, sqrt and rsqrt one
 * special-function operation and the FMAs around it; erf a polynomial of about ten;
 * sigmoid, 1 / (1 + exp(-x)), an exp, an add and a division. */
static void valueCost(Walk *w, int32_t e, ValueCost *c) {
   const Expr *x = &w->ln->expr[e];
   bool isFloat = x->dtype == TE_FLOAT32;
   switch ((ExprKind)x->kind) {
   case EXPR_INT:
   case EXPR_FLOAT:
   case EXPR_AXIS:
      return;
   case EXPR_LOAD:
      access(w, x->ref, x->args[0], true);
      return;
   case EXPR_ADD:
   case EXPR_SUB:
      if (isFloat) {
         for (int i = 0; i < 2; i++) {
            const Expr *m = &w->ln->expr[x->args[i]];
            if (m->kind == EXPR_MUL && m->dtype == TE_FLOAT32) {
               valueCost(w, m->args[0], c);
               valueCost(w, m->args[1], c);
               valueCost(w, x->args[1 - i], c);
               c->fp += 1;
               c->flops += 2;
               return;
            }
         }
      }
      break;
   case EXPR_SELECT: {
      IntCost ic = intCost(w, x->args[0]);
      c->other += ic.cost + 1;
      issue(w, ic.once, hoistedExecs(w), w->staticMult);
      valueCost(w, x->args[1], c);
      valueCost(w, x->args[2], c);
      return;
   }
   case EXPR_CAST: {
      IntCost ic = intCost(w, x->args[0]);
      c->other += ic.cost;
      issue(w, ic.once, hoistedExecs(w), w->staticMult);
      c->mufu += 1;
      return;
   }
   default:
      break;
   }
   for (int i = 0; i < x->nargs; i++)
      valueCost(w, x->args[i], c);
   switch ((ExprKind)x->kind) {
   case EXPR_ADD: case EXPR_SUB: case EXPR_MUL: case EXPR_MIN: case EXPR_MAX:
      if (isFloat) {
         c->fp += 1;
         c->flops += 1;
      } else {
         c->other += 1;
      }
      return;
   case EXPR_DIV: c->fp += 2; c->mufu += 1; c->flops += 1; return;
   case EXPR_EXP: case EXPR_TANH: c->fp += 2; c->mufu += 1; c->flops += 1; return;
   case EXPR_SQRT: case EXPR_RSQRT: c->fp += 1; c->mufu += 1; c->flops += 1; return;
   case EXPR_ERF: c->fp += 10; c->flops += 1; return;
   case EXPR_SIGMOID: c->fp += 5; c->mufu += 2; c->flops += 3; return;
   default:
      c->other += 1;        /* comparisons and logic in a value */
      return;
   }
}

/* Counts a statement's value each time the statement runs. */
static ValueCost arithmetic(Walk *w, int32_t value) {
   ValueCost c = { 0, 0, 0, 0 };
   valueCost(w, value, &c);
   issue(w, c.fp + c.mufu + c.other, w->trip, w->staticMult);
   w->fp += c.fp * w->trip;
   w->mufu += c.mufu * w->trip;
   w->flops += c.flops * w->trip;
   return c;
}

static bool readsBuffer(const LoopNest *ln, int32_t e, int buffer) {
   const Expr *x = &ln->expr[e];
   if (x->kind == EXPR_LOAD && x->ref == buffer)
      return true;
   for (int i = 0; i < x->nargs; i++)
      if (readsBuffer(ln, x->args[i], buffer))
         return true;
   return false;
}

/* A store and the arithmetic of its value. An update of an accumulator waits for the
 * previous update of the same accumulator: the unrolled copies and virtual threads that
 * update different accumulators (the store's index differs) overlap, and a chain
 * shorter than FP_LATENCY stalls the warp for the rest. */
static void store(Walk *w, const IrStmt *st) {
   w->ahead = st->prefetch != 0;
   ValueCost c = arithmetic(w, st->value);
   w->ahead = false;
   if (Ir_elemBytes(&w->ln->buffers[st->buffer]) == 2)
      issue(w, 1, w->trip, w->staticMult);   /* the cvt to a 16-bit tile's precision */
   access(w, st->buffer, st->index, false);
   if (c.fp <= 0)
      return;
   VarSet vs;
   memset(&vs, 0, sizeof vs);
   varsOf(w, st->index, &vs);
   double all, invariant;
   int serial;
   innerRun(w, &vs, false, false, &all, &invariant, &serial);
   double ilp = (readsBuffer(w->ln, st->value, st->buffer) ? all / invariant : all) * w->copies;
   if (ilp < FP_LATENCY)
      w->path += c.fp * w->trip * (FP_LATENCY / ilp - 1);
}

/* A warp's mma.sync: each thread loads its 6 operand registers from shared memory
 * (conflict-free) and issues the mma; a 16-bit tile holds them rounded and packed (one
 * 4-byte load a register), a TF32 register is a float rounded on its bits (about 2 more
 * instructions); the Tensor Cores do 2 x 16 x 8 x depth FLOPs. */
static void mma(Walk *w, const IrStmt *st) {
   Precision p = (Precision)st->precision;
   int depth = Precision_mmaDepth(p);
   double loads = 6;
   issue(w, (p == PRECISION_TF32 ? 3 * loads : loads) + 1, w->trip, w->staticMult);
   w->wavefronts += loads * w->trip * (double)w->warps;
   w->sharedTrips += w->trip;
   double flops = 2.0 * SKETCH_MMA_M * SKETCH_MMA_N * depth * w->trip;
   w->tcFlops += flops;
   w->tcPrecision = p;
   w->flops += flops / WARP_LANES;
}

/* A reduction over the block's threads: shuffles within a warp (a step per halving,
 * and a broadcast), or a tree in shared memory with a barrier per step. */
static void allreduce(Walk *w, const IrStmt *st) {
   arithmetic(w, st->value);
   double steps = ceil(log2((double)w->threads));
   if (Sketch_reduceWithShuffles(w->threads)) {
      issue(w, 2 * steps + 1, w->trip, w->staticMult);
      w->fp += steps * w->trip;
      w->path += (steps + 1) * SHUFFLE_CYCLES * w->trip;
   } else {
      issue(w, 4 * steps + 3, w->trip, w->staticMult);
      w->fp += steps * w->trip;
      w->barriers += (steps + 2) * w->trip;
      w->wavefronts += (3 * steps + 2) * w->trip * (double)w->warps;
      w->sharedWaves += (3 * steps + 2) * w->trip * (double)w->warps;
      w->sharedIdeal += (3 * steps + 2) * w->trip * (double)w->warps;
      w->barrierWaits += (steps + 2) * w->trip;
      w->sharedTrips += (steps + 2) * w->trip;
   }
   access(w, st->buffer, st->index, false);
}

/* The share of an enclosing loop's iterations that take a condition of the form
 * var < c on that loop's variable (a pipeline's "not the last stage"); 1 for any other
 * condition, which the lane masks account for. */
static double takenShare(const Walk *w, int32_t cond) {
   const Expr *x = &w->ln->expr[cond];
   if (x->kind != EXPR_LT)
      return 1;
   const Expr *v = &w->ln->expr[x->args[0]], *c = &w->ln->expr[x->args[1]];
   if (v->kind != EXPR_AXIS || c->kind != EXPR_INT)
      return 1;
   for (int i = 0; i < w->depth; i++)
      if (w->loop[i].var == v->ref)
         return fmin(fmax((double)c->v.i, 0), (double)w->loop[i].extent) / (double)w->loop[i].extent;
   return 1;
}

static void walkStmt(Walk *w, int32_t s) {
   const IrStmt *st = &w->ln->stmt[s];
   switch ((StmtKind)st->kind) {
   case STMT_SEQ: {
      double copies = w->copies;
      if (st->vthread)
         w->copies *= st->count;
      for (int i = 0; i < st->count; i++)
         walkStmt(w, w->ln->list[st->first + i]);
      w->copies = copies;
      return;
   }
   case STMT_FOR: {
      uint8_t kind = w->kindOf[st->var];
      if (kind == LOOP_VECTOR) {
         /* one access for all lanes: the lanes only widen the addresses */
         w->vecVar = st->var;
         w->vecWidth = st->extent;
         walkStmt(w, st->body);
         w->vecVar = -1;
         w->vecWidth = 1;
         return;
      }
      if (w->depth == MAX_DEPTH)
         fatal("simulator: loops nested deeper than %d", MAX_DEPTH);
      w->loop[w->depth++] = (Loop){ st->var, kind, st->extent };
      double trip = w->trip, mult = w->staticMult, operands = w->operands;
      w->trip *= (double)st->extent;
      if (kind == LOOP_UNROLL) {
         w->staticMult *= (double)st->extent;
      } else {
         issue(w, LOOP_INSTR / fmin(NVCC_UNROLL, (double)st->extent), w->trip, w->staticMult);
         w->operands = 0;
      }
      walkStmt(w, st->body);
      if (kind != LOOP_UNROLL) {
         w->operandMax = fmax(w->operandMax, w->operands);
         w->operands = operands;
      }
      w->trip = trip;
      w->staticMult = mult;
      w->depth--;
      return;
   }
   case STMT_LET: {
      /* computed where no serial loop it does not read can repeat it */
      VarSet vs;
      memset(&vs, 0, sizeof vs);
      varsOf(w, st->value, &vs);
      issue(w, letCost(w->ln, st->value), meets(&vs, &w->serialVars) ? w->trip : hoistedExecs(w), w->staticMult);
      return;
   }
   case STMT_STORE:
      store(w, st);
      return;
   case STMT_IF: {
      /* the condition and a branch; the body as if taken (the mask decides which
       * lanes' addresses count) */
      IntCost ic = intCost(w, st->value);
      /* an invariant condition is a predicate computed before the serial loops */
      issue(w, ic.cost + (ic.varying ? 1 : 0), w->trip, w->staticMult);
      issue(w, ic.once + (ic.varying ? 0 : 1), hoistedExecs(w), w->staticMult);
      if (w->ncond == MAX_CONDS)
         fatal("simulator: conditions nested deeper than %d", MAX_CONDS);
      w->cond[w->ncond++] = st->value;
      double trip = w->trip;
      w->trip *= takenShare(w, st->value);
      walkStmt(w, st->body);
      w->trip = trip;
      w->ncond--;
      return;
   }
   case STMT_BARRIER:
      issue(w, 1, w->trip, w->staticMult);
      w->barriers += w->trip;
      w->barrierWaits += w->trip;
      return;
   case STMT_ALLREDUCE:
      allreduce(w, st);
      return;
   case STMT_MMA:
      mma(w, st);
      return;
   }
}

/* ---- what the compiler decides ---- */

/* Statements of s in the code once loops are unrolled, and the effective kind of every
 * loop: unrolled as marked, a vector only of 2 or 4 lanes (code generation writes
 * other widths as unrolled loops), and a serial loop unrolled when nvcc would do it
 * fully by itself. */
static double decideLoops(Walk *w, int k, int32_t s, bool *barrier) {
   const IrStmt *st = &w->ln->stmt[s];
   switch ((StmtKind)st->kind) {
   case STMT_SEQ: {
      double n = 0;
      for (int i = 0; i < st->count; i++)
         n += decideLoops(w, k, w->ln->list[st->first + i], barrier);
      return n;
   }
   case STMT_FOR: {
      bool inside = false;
      double body = decideLoops(w, k, st->body, &inside);
      w->fenced[st->var] = inside;
      *barrier |= inside;
      uint8_t kind = st->loop;
      if (kind == LOOP_VECTOR && st->extent != 2 && st->extent != 4)
         kind = LOOP_UNROLL;
      if (kind == LOOP_SERIAL && (double)st->extent * body <= NVCC_FULL_UNROLL)
         kind = LOOP_UNROLL;
      w->kindOf[st->var] = kind;
      return kind == LOOP_SERIAL ? body : body * (double)st->extent;
   }
   case STMT_IF:
      return decideLoops(w, k, st->body, barrier);
   case STMT_ALLREDUCE:
      *barrier = true;
      /* fall through */
   case STMT_STORE:
      w->writtenBy[k] |= UINT64_C(1) << st->buffer;
      return 1;
   case STMT_BARRIER:
      *barrier = true;
      return 0;
   default:
      return 0;
   }
}

/* A local array stays in registers only when every index is a constant once loops are
 * unrolled; one indexed by a serial loop lives in local memory (ptxas' stack frame). */
static void markLocalArray(Walk *w, int buffer, int32_t index) {
   if (w->ln->buffers[buffer].scope != SCOPE_LOCAL)
      return;
   VarSet vs;
   memset(&vs, 0, sizeof vs);
   varsOf(w, index, &vs);
   for (int v = 0; v < w->ln->nvars; v++)
      if (hasVar(&vs, v) && w->ln->vars[v].kind == VAR_LOOP && w->kindOf[v] == LOOP_SERIAL)
         w->inMemory[buffer] = true;
}

static void prepareNest(Walk *w, const LoopNest *ln) {
   memset(w, 0, sizeof *w);
   w->ln = ln;
   for (int v = 0; v < ln->nvars; v++)
      if (ln->vars[v].kind == VAR_LOOP)
         w->loopVars.w[v / 64] |= UINT64_C(1) << (v % 64);
   for (int k = 0; k < ln->nkernels; k++) {
      bool barrier = false;
      decideLoops(w, k, ln->kernels[k].body, &barrier);
   }
   for (int v = 0; v < ln->nvars; v++)
      if (ln->vars[v].kind == VAR_LOOP && w->kindOf[v] == LOOP_SERIAL)
         w->serialVars.w[v / 64] |= UINT64_C(1) << (v % 64);
   for (int32_t s = 0; s < ln->nstmt; s++)
      if (ln->stmt[s].kind == STMT_STORE || ln->stmt[s].kind == STMT_ALLREDUCE)
         markLocalArray(w, ln->stmt[s].buffer, ln->stmt[s].index);
   for (int32_t e = 0; e < ln->nexpr; e++)
      if (ln->expr[e].kind == EXPR_LOAD)
         markLocalArray(w, ln->expr[e].ref, ln->expr[e].args[0]);
}

static void walkKernel(Walk *w, int k) {
   const IrKernel *kn = &w->ln->kernels[k];
   w->kn = kn;
   w->written = w->writtenBy[k];
   w->threads = kn->block;
   w->warps = (kn->block + WARP_LANES - 1) / WARP_LANES;
   w->depth = 0;
   w->trip = w->staticMult = w->copies = 1;
   w->ncond = 0;
   w->vecVar = -1;
   w->vecWidth = 1;
   w->instr = w->fp = w->mufu = w->flops = w->memTrips = w->aheadTrips = w->path = w->barriers = 0;
   w->ahead = false;
   w->tcFlops = 0;
   w->tcPrecision = PRECISION_FP32;
   w->sharedTrips = w->l1Trips = w->barrierWaits = 0;
   w->staticInstr = w->operands = w->operandMax = 0;
   memset(w->sectors, 0, sizeof w->sectors);
   w->wavefronts = w->localBytes = w->sharedWaves = w->sharedIdeal = 0;
   w->steps = 1;
   memset(w->env, 0, sizeof w->env);
   memset(w->letStamp, 0, sizeof w->letStamp);
   w->stamp = 0;
   walkStmt(w, kn->body);
   w->operandMax = fmax(w->operandMax, w->operands);
}

/* ---- the free constants ---- */

/* The model's own values where a profile sets none: latencies of the order that
 * microbenchmarks of Volta, Ampere and Hopper give (bench/sim/FACTS.md), the whole
 * bandwidths, and L2 at 48 bytes per clock per SM (the A100 whitepaper's 5120 bytes per
 * clock over its 108 SMs is 47). */
static const struct {
   const char *name;
   double value;
} paramDefaults[SIM_PARAM_COUNT] = {
   [SIM_DRAM_LATENCY] = { "dram_latency", 500 },
   [SIM_L2_LATENCY] = { "l2_latency", 200 },
   [SIM_SHARED_LATENCY] = { "shared_latency", 30 },
   [SIM_L1_LATENCY] = { "l1_latency", 35 },
   [SIM_BARRIER_CYCLES] = { "barrier_cycles", 20 },
   [SIM_BLOCK_CYCLES] = { "block_cycles", 200 },
   [SIM_LAUNCH_US] = { "launch_us", 3 },
   [SIM_DRAM_EFFICIENCY] = { "dram_efficiency", 1 },
   [SIM_L2_BYTES_PER_CLK] = { "l2_bytes_per_clk", 0 },      /* 0: 48 per SM */
   [SIM_FP32_EFFICIENCY] = { "fp32_efficiency", 1 },
   [SIM_OVERLAP_LOSS] = { "overlap_loss", 0.2 },
};

const char *SimParam_name(SimParam p) {
   return paramDefaults[p].name;
}

double SimParam_default(SimParam p) {
   return paramDefaults[p].value;
}

void SimParams_fromDevice(SimParams *p, const Device *d) {
   for (int i = 0; i < SIM_PARAM_COUNT; i++)
      p->v[i] = Device_has(d, (DeviceField)(DEV_SIM_FIRST + i)) ? d->sim[i] : paramDefaults[i].value;
   if (p->v[SIM_L2_BYTES_PER_CLK] <= 0)
      p->v[SIM_L2_BYTES_PER_CLK] = DEVICE_L2_BYTES_PER_CLK_PER_SM * (Device_has(d, DEV_SM_COUNT) ? (double)d->sm_count : 1);
}

/* ---- the device ---- */

int SimGpu_init(SimGpu *g, const Device *d, char **cause) {
   static const DeviceField needed[] = {
      DEV_COMPUTE_CAPABILITY, DEV_PEAK_FP32_GFLOPS, DEV_MEM_BANDWIDTH_GBS, DEV_SM_COUNT,
      DEV_SM_PARTITIONS, DEV_WARP_SIZE, DEV_MAX_THREADS_PER_SM, DEV_MAX_THREADS_PER_BLOCK,
      DEV_MAX_BLOCKS_PER_SM, DEV_REGS_PER_SM, DEV_MAX_REGS_PER_THREAD, DEV_SHARED_PER_SM,
      DEV_SHARED_PER_BLOCK, DEV_L2_BYTES,
   };
   memset(g, 0, sizeof *g);
   /* what the compute capability fixes, on a copy: the profile stays as written */
   g->device = *d;
   Device full = *d;
   g->filled = Device_completeFromCC(&full);
   for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
      if (!Device_has(&full, needed[i]))
         return setCause(cause, "device %s (%s:%d) has no %s, which the simulator needs%s", d->name,
                         d->file ? d->file : "?", d->line, Device_fieldInfo(needed[i])->key,
                         Device_has(d, DEV_COMPUTE_CAPABILITY) ? " (its compute capability does not fix it)" : "");
   if (full.warp_size != WARP_LANES)
      return setCause(cause, "device %s (%s:%d) has warps of %lld threads; the simulator models warps of %d",
                      d->name, d->file ? d->file : "?", d->line, (long long)full.warp_size, WARP_LANES);
   g->device = full;
   g->sms = (double)full.sm_count;
   g->partitions = (double)full.sm_partitions;
   g->warp = (double)full.warp_size;
   g->maxWarpsPerSm = floor((double)full.max_threads_per_sm / g->warp);
   g->maxBlocksPerSm = (double)full.max_blocks_per_sm;
   g->regsPerSm = (double)full.regs_per_sm;
   g->maxRegs = (double)full.max_regs_per_thread;
   g->sharedPerSm = (double)full.shared_per_sm;
   g->sharedUnit = full.cc_major >= 7 ? SHARED_ALLOC_UNIT : SHARED_ALLOC_UNIT_OLD;
   g->sharedReserved = full.cc_major >= 8 ? SHARED_RESERVED_CC8 : 0;
   double peak = full.peak_fp32_gflops * 1e9;
   if (Device_has(&full, DEV_CLOCK_MHZ)) {
      g->clock = full.clock_mhz * 1e6;
   } else {
      /* the peak is 2 FLOPs per FMA x lanes x SMs x clock */
      int lanes = Device_fp32Lanes(full.cc_major, full.cc_minor);
      if (lanes == 0)
         return setCause(cause,
                         "device %s (%s:%d) has no %s, which the simulator needs for compute capability %d.%d",
                         d->name, d->file ? d->file : "?", d->line, Device_fieldInfo(DEV_CLOCK_MHZ)->key,
                         full.cc_major, full.cc_minor);
      g->clock = peak / (2.0 * g->sms * lanes);
   }
   g->fpPerClk = peak / (2.0 * g->sms * g->clock * g->warp);
   for (int p = 0; p < PRECISION_COUNT; p++)
      g->tcFlopsPerClk[p] = Device_tensorFlopsPerClk(full.cc_major, full.cc_minor, (Precision)p);
   g->dramBytesPerSec = full.mem_bandwidth_gbs * 1e9;
   g->l2Bytes = (double)full.l2_bytes;
   return 0;
}

/* ---- one kernel ---- */

static const char *const limiterNames[] = { "threads", "registers", "shared memory", "blocks" };

/* Blocks per SM and what limits them; -1 with *cause when none fits. */
static int occupancy(const SimGpu *h, const IrKernel *kn, int regs, int *bps, const char **limiter, char **cause) {
   const Device *d = &h->device;
   double W = ceil((double)kn->block / h->warp);
   double regsPerWarp = ceil(regs * h->warp / REG_ALLOC_UNIT) * REG_ALLOC_UNIT;
   double warpsByRegs = floor(h->regsPerSm / h->partitions / regsPerWarp) * h->partitions;
   if (warpsByRegs < W)
      return setCause(cause,
                      "kernel %s needs %.0f registers per block (%d per thread, allocated %.0f per warp, "
                      "x %.0f warps); device %s has %.0f per SM",
                      kn->name, regsPerWarp * W, regs, regsPerWarp, W, d->name, h->regsPerSm);
   double sharedAlloc = ceil(((double)kn->sharedBytes + h->sharedReserved) / h->sharedUnit) * h->sharedUnit;
   double limit[4] = {
      floor(h->maxWarpsPerSm / W),
      floor(warpsByRegs / W),
      sharedAlloc > 0 ? floor(h->sharedPerSm / sharedAlloc) : INFINITY,
      h->maxBlocksPerSm,
   };
   int at = 0;
   for (int i = 1; i < 4; i++)
      if (limit[i] < limit[at])
         at = i;
   if (limit[at] < 1)
      return setCause(cause, "kernel %s fits no block on an SM of device %s (%s)", kn->name, d->name,
                      limiterNames[at]);
   *bps = (int)limit[at];
   *limiter = limiterNames[at];
   return 0;
}

static int checkLimits(const SimGpu *h, const IrKernel *kn, int regs, char **cause) {
   const Device *d = &h->device;
   if (kn->block > d->max_threads_per_block)
      return setCause(cause, "kernel %s has %lld threads per block; device %s allows at most %lld", kn->name,
                      (long long)kn->block, d->name, (long long)d->max_threads_per_block);
   if (kn->sharedBytes > d->shared_per_block)
      return setCause(cause, "kernel %s uses %lld bytes of shared memory per block; device %s allows at most %lld",
                      kn->name, (long long)kn->sharedBytes, d->name, (long long)d->shared_per_block);
   if (regs > d->max_regs_per_thread)
      return setCause(cause, "kernel %s uses %d registers per thread; device %s allows at most %lld", kn->name, regs,
                      d->name, (long long)d->max_regs_per_thread);
   return 0;
}

/* The most registers per thread ptxas gives a kernel of W warps: code generation
 * declares __launch_bounds__(block), so one block must fit, each warp's registers
 * coming from its sub-partition's share of the file. */
static double launchBoundsRegs(const SimGpu *h, double W) {
   double perPartition = h->regsPerSm / h->partitions;
   double perWarp = floor(perPartition / ceil(W / h->partitions) / REG_ALLOC_UNIT) * REG_ALLOC_UNIT;
   return fmin(h->maxRegs, floor(perWarp / h->warp));
}

/* The DRAM bytes of a kernel's re-reads: its L2 traffic beyond the footprint (each
 * buffer's bytes read once). The resident blocks of a wave advance through their serial
 * loops together, so a re-read by another block of the same wave comes about a step
 * later, after the wave's traffic of one step; one by a block of a later wave comes a
 * wave later, after the wave's share of the footprint. A re-read hits when what came
 * between fits in the usable L2. Of a byte's r reads, spread evenly over the grid,
 * min(r, waves) are the first of their wave; the rest are within a wave. */
static double rereads(const SimGpu *h, double l2, double footprint, double G, double waveBlocks, double steps) {
   if (footprint <= 0 || l2 <= footprint)
      return 0;
   double usable = L2_USABLE * h->l2Bytes;
   double reads = l2 / footprint, waves = G / waveBlocks;
   double across = fmin(reads, fmax(waves, 1)) - 1, within = reads - 1 - across;
   double stepSet = l2 / G * waveBlocks / fmax(steps, 1);
   double waveSet = footprint * fmin(1, waveBlocks / G);
   double missWithin = 1 - fmin(1, usable / stepSet), missAcross = 1 - fmin(1, usable / waveSet);
   return footprint * (within * missWithin + across * missAcross);
}

static int countKernel(const SimGpu *h, Walk *w, int k, const SimCompiled *ptx, SimCounts *out, char **cause) {
   const LoopNest *ln = w->ln;
   const IrKernel *kn = &ln->kernels[k];
   bool fromPtxas = ptx && ptx->registers >= 0;
   if (checkLimits(h, kn, fromPtxas ? ptx->registers : 0, cause) < 0)
      return -1;
   walkKernel(w, k);
   double T = (double)kn->block, G = (double)kn->grid;

   /* registers: ptxas' count, or the register arrays, the operands loaded per serial
    * iteration and a base; past what __launch_bounds__ allows the rest spills (a store
    * and a load of each value) */
   double spillBytes, regs;
   if (fromPtxas) {
      regs = ptx->registers;
      spillBytes = (double)(ptx->spillStores > 0 ? ptx->spillStores : 0) +
                   (double)(ptx->spillLoads > 0 ? ptx->spillLoads : 0);
   } else {
      double need = REG_BASE + fmin(w->operandMax, OPERAND_REGS_MAX);
      for (int b = 0; b < ln->nbuffers; b++)
         if (ln->buffers[b].scope == SCOPE_LOCAL && ln->buffers[b].kernel == k && !w->inMemory[b])
            need += (double)ln->buffers[b].elems;
      regs = fmin(need, launchBoundsRegs(h, (double)w->warps));
      spillBytes = (need - regs) * FLOAT_BYTES * 2;
   }
   if (spillBytes > 0) {
      /* ptxas gives the spill code's size, not how often it runs: it is taken to run as
       * often as the kernel's average instruction, a 4-byte local access per 4 bytes */
      double accesses = spillBytes / FLOAT_BYTES * w->instr / fmax(w->staticInstr, 1);
      w->instr += accesses;
      w->wavefronts += accesses * (double)w->warps;
      w->localBytes += accesses * FLOAT_BYTES * T;
      w->l1Trips += accesses / 2 / (MLP_MAX / 2);
   }
   int bps = 0;
   const char *limiter = NULL;
   if (occupancy(h, kn, (int)regs, &bps, &limiter, cause) < 0)
      return -1;

   /* global traffic: every sector requested crosses L2; DRAM serves each buffer's
    * footprint once, and the re-reads that L2 cannot hold: when the kernel's
    * footprint exceeds the usable L2, a re-read hits with probability usable /
    * footprint */
   double l2 = 0, footprint = 0;
   for (int b = 0; b < ln->nbuffers; b++) {
      if (ln->buffers[b].scope != SCOPE_GLOBAL || w->sectors[b] <= 0)
         continue;
      double traffic = w->sectors[b] * SECTOR_BYTES * G;
      l2 += traffic;
      footprint += fmin(traffic, (double)ln->buffers[b].elems * FLOAT_BYTES);
   }
   /* through L1: every global sector (the model keeps no global data in L1, so each
    * misses) and the local memory, which hits where the frames fit */
   double l1 = l2 + w->localBytes * G, l1Hits = w->localBytes * G;
   double dram = footprint + rereads(h, l2, footprint, G, fmin(G, h->sms * bps), w->steps);
   /* local memory (each thread's frame: arrays kept there and spill slots) lives in
    * the L1 part of the SM's unified memory, what the resident blocks' shared memory
    * leaves of it; the share of the frames that does not fit is served by L2 */
   double frame = spillBytes / 2;
   for (int b = 0; b < ln->nbuffers; b++)
      if (ln->buffers[b].scope == SCOPE_LOCAL && ln->buffers[b].kernel == k && w->inMemory[b])
         frame += (double)ln->buffers[b].elems * FLOAT_BYTES;
   if (ptx && ptx->stackBytes > frame)
      frame = ptx->stackBytes;
   double localFoot = bps * T * frame;
   if (localFoot > 0 && w->localBytes > 0) {
      double room = fmax(h->sharedPerSm - bps * (double)kn->sharedBytes, 0);
      double over = localFoot > room ? 1 - room / localFoot : 0;
      l2 += over * w->localBytes * G;
      l1Hits -= over * w->localBytes * G;
   }

   memset(out, 0, sizeof *out);
   out->grid = G;
   out->W = (double)w->warps;
   out->blocksPerSm = bps;
   out->limiter = limiter;
   out->registers = (int)regs;
   out->registersFromPtxas = fromPtxas;
   out->instr = w->instr;
   out->fp = w->fp;
   out->mufu = w->mufu;
   out->tcFlops = w->tcFlops;
   out->tcPrecision = w->tcPrecision;
   out->wavefronts = w->wavefronts;
   out->sharedWavefronts = w->sharedWaves;
   out->sharedIdeal = fmin(w->sharedIdeal, w->sharedWaves);
   out->l1Bytes = l1 / G;
   out->l1HitBytes = l1Hits / G;
   out->l2Bytes = l2 / G;
   out->dramBytes = dram / G;
   out->barriers = w->barriers;
   out->pathFixed = w->instr + w->path;
   out->memTrips = w->memTrips;
   out->aheadTrips = w->aheadTrips;
   out->sharedTrips = w->sharedTrips;
   out->l1Trips = w->l1Trips;
   out->barrierWaits = w->barrierWaits;
   out->dramShare = l2 > 0 ? dram / l2 : 0;
   out->icache = 1 + fmax(0, w->staticInstr - ICACHE_INSTR) / fmax(w->staticInstr, 1);
   out->flops = w->flops * T * G;
   return 0;
}

/* A global load's round trip under p, in cycles. */
static double memLatency(const SimParams *p, const SimCounts *c) {
   return p->v[SIM_L2_LATENCY] + c->dramShare * (p->v[SIM_DRAM_LATENCY] - p->v[SIM_L2_LATENCY]);
}

/* Of the round trips of loads issued ahead of their use (a pipeline's prefetch into
 * registers: the next k stage's operands loaded while the warps multiply this one's),
 * what the rest of the warp's path, `rest` cycles, leaves uncovered. */
static double aheadCycles(const SimParams *p, const SimCounts *c, double rest) {
   return fmax(c->aheadTrips * memLatency(p, c) - rest, 0);
}

/* One warp's own latency path under p, in cycles. */
static double pathCycles(const SimParams *p, const SimCounts *c) {
   const double *v = p->v;
   double rest = c->pathFixed + c->memTrips * memLatency(p, c) + c->sharedTrips * v[SIM_SHARED_LATENCY] +
                 c->l1Trips * v[SIM_L1_LATENCY] + c->barrierWaits * v[SIM_BARRIER_CYCLES];
   return rest + aheadCycles(p, c, rest);
}

/* One warp's latency path under p split by what it waits on (SimStall), in cycles:
 * global and local loads (long scoreboard), shared loads (short scoreboard), barriers,
 * and the fixed dependencies (FP chains, shuffles, conflict replays: wait). Issuing
 * itself is no stall; neither is starting the block. */
static void pathStalls(const SimParams *p, const SimCounts *c, double *stall) {
   const double *v = p->v;
   stall[SIM_STALL_LONG_SCOREBOARD] = c->memTrips * memLatency(p, c) + c->l1Trips * v[SIM_L1_LATENCY];
   stall[SIM_STALL_SHORT_SCOREBOARD] = c->sharedTrips * v[SIM_SHARED_LATENCY];
   stall[SIM_STALL_BARRIER] = c->barrierWaits * v[SIM_BARRIER_CYCLES];
   stall[SIM_STALL_WAIT] = fmax(c->pathFixed - c->instr, 0);
   stall[SIM_STALL_MATH_PIPE_THROTTLE] = stall[SIM_STALL_MIO_THROTTLE] = 0;
   double rest = c->pathFixed;
   for (int i = 0; i < SIM_STALL_COUNT; i++)
      rest += i == SIM_STALL_WAIT ? 0 : stall[i];
   stall[SIM_STALL_LONG_SCOREBOARD] += aheadCycles(p, c, rest);
}

/* Cycles of one round on an SM holding b blocks while `active` SMs share DRAM; parts
 * gets the compute, shared and memory time of the round, then its throughput bound and
 * its latency bound. */
static double roundCycles(const SimGpu *h, const SimParams *p, const SimCounts *c, double path, double b,
                          double active, double *parts) {
   const double *v = p->v;
   double warpsPerPartition = ceil(b * c->W / h->partitions);
   double issueC = warpsPerPartition * c->instr * c->icache;
   /* each sub-partition has 1/P of the FP32 and special-function lanes, and a warp uses
    * only its own partition's: 4 warps at ILP 4 fill an A100 (FACTS.md
    * fma_latency_hiding_ilp4), 2 use half of it */
   double fpC = warpsPerPartition * c->fp / (h->fpPerClk / h->partitions * v[SIM_FP32_EFFICIENCY]);
   double mufuC = warpsPerPartition * c->mufu / (MUFU_LANES / h->partitions / h->warp);
   double compute = fmax(issueC, fmax(fpC, mufuC));
   if (c->tcFlops > 0) {
      /* a precision the device lacks runs at the FP32 rate (as if emulated) */
      double rate = h->tcFlopsPerClk[c->tcPrecision];
      if (rate <= 0)
         rate = 2 * h->fpPerClk * h->warp * v[SIM_FP32_EFFICIENCY];
      compute = fmax(compute, warpsPerPartition * c->tcFlops / (rate / h->partitions));
   }
   double shared = b * c->wavefronts;
   double dramPerClk = h->dramBytesPerSec * v[SIM_DRAM_EFFICIENCY] / active / h->clock;
   double l2PerClk = v[SIM_L2_BYTES_PER_CLK] / h->sms;
   double memory = fmax(b * c->l2Bytes / l2PerClk, b * c->dramBytes / dramPerClk);
   parts[0] = compute;
   parts[1] = shared;
   parts[2] = memory;
   /* the parts overlap across warps. Shared-memory loads and the arithmetic on them
    * run in the same phase, so every resident warp fills the other's gaps; barriers
    * hold a block's warps in one phase (staging from global memory, or computing), so
    * only other resident blocks fill the gaps between memory and the rest, unless the
    * next phase's loads are in flight during this one's arithmetic (a pipeline) */
   double warps = b * c->W;
   double onChip = fmax(compute, shared) + fmin(compute, shared) / (1 + warps);
   double others = c->barriers > 0 && c->aheadTrips <= 0 ? b : warps;
   double throughput = fmax(onChip, memory) + fmin(onChip, memory) / (1 + others);
   /* retiring and starting blocks is on the latency side: blocks end and start one by
    * one, so in a throughput-bound round the others' work hides it (a streaming copy
    * reaches its attainable bandwidth, FACTS.md dram_bw) */
   double latency = path + v[SIM_BLOCK_CYCLES];
   parts[3] = throughput;
   parts[4] = latency;
   return fmax(throughput, latency) + v[SIM_OVERLAP_LOSS] * fmin(throughput, latency);
}

/* A round's stalls: the warp's latency path, and where the throughput bound exceeds it,
 * the excess waiting on the busiest of the parts (the FP32 and special-function pipes:
 * math pipe throttle; shared memory: MIO throttle; memory: long scoreboard, loads
 * queued behind the others'). */
static void roundStalls(const double *path, const double *parts, double times, double *stall) {
   static const SimStall throttle[3] = { SIM_STALL_MATH_PIPE_THROTTLE, SIM_STALL_MIO_THROTTLE,
                                         SIM_STALL_LONG_SCOREBOARD };
   for (int i = 0; i < SIM_STALL_COUNT; i++)
      stall[i] += times * path[i];
   int most = 0;
   for (int i = 1; i < 3; i++)
      if (parts[i] > parts[most])
         most = i;
   stall[throttle[most]] += times * fmax(parts[3] - parts[4], 0);
}

/* The busiest SM gets ceil(grid / SMs) blocks, blocksPerSm at a time; the last round
 * holds the rest, on as many SMs as have blocks left. */
static double timeKernel(const SimGpu *h, const SimParams *p, const SimCounts *c, SimKernel *out) {
   double G = c->grid, bps = c->blocksPerSm;
   double path = pathCycles(p, c);
   double perSm = ceil(G / h->sms);
   double full = floor(perSm / bps), rest = perSm - full * bps;
   double parts[5], sum[3] = { 0, 0, 0 };
   double pathStall[SIM_STALL_COUNT], stall[SIM_STALL_COUNT] = { 0 };
   pathStalls(p, c, pathStall);
   double cycles = 0;
   if (full > 0) {
      cycles += full * roundCycles(h, p, c, path, bps, fmin(h->sms, G), parts);
      for (int i = 0; i < 3; i++)
         sum[i] += full * parts[i];
      roundStalls(pathStall, parts, full, stall);
   }
   if (rest > 0) {
      double tail = G - full * bps * h->sms;
      cycles += roundCycles(h, p, c, path, rest, fmin(h->sms, tail), parts);
      for (int i = 0; i < 3; i++)
         sum[i] += parts[i];
      roundStalls(pathStall, parts, 1, stall);
   }
   double rounds = full + (rest > 0);
   double launch = p->v[SIM_LAUNCH_US] * 1e-6;
   double seconds = cycles / h->clock + launch;
   if (out) {
      memset(out, 0, sizeof *out);
      out->seconds = seconds;
      out->blocksPerSm = c->blocksPerSm;
      out->occupancy = bps * c->W / h->maxWarpsPerSm;
      out->waves = G / (h->sms * bps);
      out->registers = c->registers;
      out->registersFromPtxas = c->registersFromPtxas;
      out->flops = c->flops;
      out->dramBytes = c->dramBytes * G;
      out->l2Bytes = c->l2Bytes * G;
      out->rounds = rounds;
      out->computeSeconds = sum[0] / h->clock;
      out->sharedSeconds = sum[1] / h->clock;
      out->memorySeconds = sum[2] / h->clock;
      out->latencySeconds = rounds * path / h->clock;
      out->launchSeconds = launch;
      out->instructions = c->instr * c->W * G;
      out->ipc = cycles > 0 ? out->instructions / h->sms / cycles : 0;
      out->sharedWavefronts = c->sharedWavefronts * G;
      out->sharedIdeal = c->sharedIdeal * G;
      out->l1Bytes = c->l1Bytes * G;
      out->l1HitBytes = c->l1HitBytes * G;
      memcpy(out->stallCycles, stall, sizeof stall);
      out->limiter = c->limiter;
      static const char *const bounds[] = { "compute", "shared memory", "memory", "latency" };
      double part[4] = { out->computeSeconds, out->sharedSeconds, out->memorySeconds, out->latencySeconds };
      int most = 0;
      for (int i = 1; i < 4; i++)
         if (part[i] > part[most])
            most = i;
      out->bound = bounds[most];
   }
   return seconds;
}

/* ---- the program ---- */

const char *SimStall_name(SimStall s) {
   static const char *const names[SIM_STALL_COUNT] = {
      [SIM_STALL_LONG_SCOREBOARD] = "long_scoreboard", [SIM_STALL_SHORT_SCOREBOARD] = "short_scoreboard",
      [SIM_STALL_BARRIER] = "barrier", [SIM_STALL_WAIT] = "wait",
      [SIM_STALL_MATH_PIPE_THROTTLE] = "math_pipe_throttle", [SIM_STALL_MIO_THROTTLE] = "mio_throttle",
   };
   return s >= 0 && s < SIM_STALL_COUNT ? names[s] : "?";
}

int Sim_count(const SimGpu *g, const LoopNest *ln, const SimCompiled *const *compiled, SimProgram *out,
              char **cause) {
   Walk *w = xMalloc(sizeof *w);
   prepareNest(w, ln);
   w->capslots = EVAL_SLOTS;
   w->slots = xMalloc(EVAL_SLOTS * sizeof *w->slots);
   memset(out, 0, sizeof *out);
   int rc = 0;
   for (int k = 0; k < ln->nkernels && rc == 0; k++) {
      rc = countKernel(g, w, k, compiled ? compiled[k] : NULL, &out->kernels[k], cause);
      out->nkernels += rc == 0;
   }
   free(w->slots);
   free(w);
   return rc;
}

double Sim_time(const SimGpu *g, const SimParams *p, const SimProgram *prog, uint64_t jitterKey, SimReport *report) {
   if (report)
      memset(report, 0, sizeof *report);
   double total = 0;
   for (int k = 0; k < prog->nkernels; k++)
      total += timeKernel(g, p, &prog->kernels[k], report ? &report->kernels[k] : NULL);
   /* a deterministic jitter in [1 - SIM_JITTER, 1 + SIM_JITTER), so that ties between
    * equal estimates break the same way every run */
   Rng rng;
   Rng_seed(&rng, jitterKey);
   total *= 1 + SIM_JITTER * (2 * Rng_uniform(&rng) - 1);
   if (report) {
      report->nkernels = prog->nkernels;
      report->seconds = total;
   }
   return total;
}

double Sim_latency(const Device *d, const LoopNest *ln, const SimCompiled *const *compiled, uint64_t jitterKey,
                   SimReport *report, char **cause) {
   if (report)
      memset(report, 0, sizeof *report);
   SimGpu g;
   if (SimGpu_init(&g, d, cause) < 0)
      return -1;
   SimProgram *prog = xMalloc(sizeof *prog);
   double seconds = -1;
   if (Sim_count(&g, ln, compiled, prog, cause) == 0) {
      SimParams p;
      SimParams_fromDevice(&p, d);
      seconds = Sim_time(&g, &p, prog, jitterKey, report);
   }
   free(prog);
   return seconds;
}
