/* The fact sheet of bench/sim/FACTS.md as a table, and a microkernel per fact that the
 * simulator runs to give the fact's simulated value. Every nest is built by hand with
 * the IR API, counted once (Sim_count) and timed without jitter (the sum of the
 * report's kernel times), and the value is derived the way its source measured it:
 *
 *   bandwidths   bytes moved over the difference of the times of two sizes, so that
 *                launch and start-up costs drop out as in a fitted slope;
 *   latencies    a pointer chase of one warp (each address is the value the previous
 *                load returned): the difference of two chase lengths over the
 *                difference of their loads, in SM cycles;
 *   FMA          independent chains at full occupancy (flop/clk/SM), one dependent
 *                chain in one warp (cycles per FMA), and the fewest warps per SM whose
 *                rate reaches 90% of the full-occupancy rate (ILP 1 and 4);
 *   launch       the whole time of a kernel of one warp that stores a word;
 *   SGEMM        a 128x128-tiled 4096^3 SGEMM over the profile's datasheet peak.
 *
 * The IR holds float buffers only; a chase's index is the loaded value itself, which
 * the simulator reads only as "this address waits for a load". */
#include "config.h"

#include "sim/facts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/loopnest.h"
#include "sim/sim.h"
#include "util/xalloc.h"

/* ---- the table (bench/sim/FACTS.md; profiles a100_40, h100_sxm, v100) ---- */

static const char *const profiles[FACT_PROFILES] = { "a100_40", "h100_sxm", "v100" };

#define REL(v, t, src) { (v), FACT_TOL_RELATIVE, (t), 0, 0, (src) }
#define RANGE(v, l, h, src) { (v), FACT_TOL_RANGE, 0, (l), (h), (src) }
#define NONE { NAN, FACT_TOL_NONE, 0, 0, 0, "-" }

static const Fact facts[FACT_COUNT] = {
   [FACT_DRAM_BW] = { "dram_bw", "streaming copy (1 load + 1 store stream), full occupancy", "GB/s",
                      { REL(1381, 0.10, "GB-stream"), REL(2900, 0.10, "AZ"), REL(795, 0.10, "GPUI") } },
   [FACT_DRAM_BW_FRAC] = { "dram_bw_frac", "dram_bw / the datasheet bandwidth", "fraction",
                           { RANGE(0.888, 0.82, 0.96, "GB-stream, derived"), RANGE(0.866, 0.78, 0.95, "AZ, HOP, derived"),
                             RANGE(0.883, 0.82, 0.97, "GPUI, GB-stream, derived") } },
   [FACT_L2_BW] = { "l2_bw", "L2 read bandwidth, a 1.5 MB data set re-read by every block", "B/clk",
                    { REL(3262, 0.20, "GB-cache (proxy A100 80GB)"), REL(4207, 0.20, "HOP"),
                      REL(1776, 0.20, "GB-cache (V100 PCIe)") } },
   [FACT_SMEM_BW] = { "smem_bw", "shared-memory reads per SM, conflict-free", "B/clk/SM",
                      { REL(128, 0.10, "CPG; GB-cache L1 (proxy)"), REL(127.5, 0.10, "HOP; CPG"),
                        REL(128, 0.10, "CPG; GB-cache L1") } },
   [FACT_BANK_CONFLICT_32] = { "bank_conflict_32", "32-way conflicting shared reads over conflict-free",
                               "x conflict-free time",
                               { REL(32, 0.15, "CPG-bank"), REL(32, 0.15, "CPG-bank"), REL(32, 0.15, "CPG-bank") } },
   [FACT_DRAM_LATENCY] = { "dram_latency", "pointer chase, one warp, 1.5 GB array", "cycles",
                           { REL(575, 0.30, "GB-lat"), REL(484, 0.30, "HOP"), REL(437, 0.30, "GB-lat") } },
   [FACT_L2_LATENCY] = { "l2_latency", "pointer chase, one warp, 1 MB array (L2 hits)", "cycles",
                         { REL(213, 0.25, "GB-lat"), REL(272, 0.25, "HOP"), REL(215, 0.25, "GB-lat") } },
   [FACT_SMEM_LATENCY] = { "smem_latency", "pointer chase, one warp, shared memory", "cycles",
                           { REL(23, 0.30, "PPT-A"), REL(29.0, 0.30, "HOP"), REL(20, 0.35, "PMC-T3") } },
   [FACT_FMA_RATE] = { "fma_rate", "independent FMA chains (ILP 8), full occupancy", "flop/clk/SM",
                       { REL(125.4, 0.05, "GPUI"), REL(248.3, 0.05, "HOP"), REL(126.6, 0.05, "GPUI") } },
   [FACT_FMA_LATENCY] = { "fma_latency", "one warp, one dependent FMA chain", "cycles",
                          { REL(4, 0.25, "KZ-A, PPT-A"), REL(4.07, 0.25, "HOP"), REL(4, 0.25, "VTG") } },
   [FACT_FMA_LATENCY_HIDING] = { "fma_latency_hiding", "fewest warps/SM at 90% of fma_rate, ILP 1", "warps/SM",
                                 { RANGE(16, 8, 16, "TTG/VTG (proxy)"), RANGE(16, 12, 20, "derived from HOP"),
                                   RANGE(16, 8, 16, "TTG") } },
   [FACT_FMA_LATENCY_HIDING_ILP4] = { "fma_latency_hiding_ilp4", "fewest warps/SM at 90% of fma_rate, ILP 4",
                                      "warps/SM",
                                      { RANGE(4, 4, 6, "VTG (proxy)"), RANGE(4, 4, 6, "derived from HOP"),
                                        RANGE(4, 4, 6, "VTG") } },
   [FACT_LAUNCH_OVERHEAD] = { "launch_overhead", "a kernel of one warp storing a word", "us",
                              { REL(2.56, 0.40, "GB-small (proxy A100 80GB); NVF"),
                                REL(2.43, 0.40, "GB-small (proxy H200); NVF"), REL(3, 0.40, "NVF") } },
   [FACT_SGEMM_EFF] = { "sgemm_eff", "4096^3 SGEMM, 128x128 block tile, 8x8 per thread, over the peak",
                        "fraction",
                        { RANGE(0.90, 0.80, 0.97, "TPT-A100, YHS"), RANGE(0.70, 0.50, 0.80, "WTK, TPT-H100, H100-study"),
                          RANGE(0.90, 0.85, 0.95, "TPT-V100, LAB") } },
   [FACT_CONV_B1_EFF] = { "conv_b1_eff", "batch-1 direct / implicit-GEMM conv efficiency (no source: not simulated)",
                          "fraction",
                          { NONE, NONE, NONE } },
};

const char *Facts_profile(int p) {
   return p >= 0 && p < FACT_PROFILES ? profiles[p] : NULL;
}

int Facts_profileIndex(const char *name) {
   for (int p = 0; p < FACT_PROFILES; p++)
      if (strcmp(profiles[p], name) == 0)
         return p;
   return -1;
}

const Fact *Facts_get(FactId f) {
   return &facts[f];
}

void FactHeld_range(const FactHeld *h, double *lo, double *hi) {
   switch (h->kind) {
   case FACT_TOL_RELATIVE:
      *lo = h->value * (1 - h->tol);
      *hi = h->value * (1 + h->tol);
      return;
   case FACT_TOL_RANGE:
      *lo = h->lo;
      *hi = h->hi;
      return;
   case FACT_TOL_NONE:
      break;
   }
   *lo = -INFINITY;
   *hi = INFINITY;
}

bool FactHeld_accepts(const FactHeld *h, double v) {
   double lo, hi;
   FactHeld_range(h, &lo, &hi);
   return isfinite(v) && v >= lo && v <= hi;
}

void FactHeld_formatTolerance(const FactHeld *h, char *buf, size_t size) {
   switch (h->kind) {
   case FACT_TOL_RELATIVE:
      snprintf(buf, size, "+-%g%%", h->tol * 100);
      return;
   case FACT_TOL_RANGE:
      snprintf(buf, size, "%g-%g", h->lo, h->hi);
      return;
   case FACT_TOL_NONE:
      break;
   }
   snprintf(buf, size, "-");
}

/* ---- building nests ---- */

static int globalBuffer(LoopNest *ln, const char *name, int64_t elems, bool input) {
   int b = Ir_buffer(ln, name, SCOPE_GLOBAL, -1, -1, 1, &elems);
   ln->buffers[b].input = input;
   ln->buffers[b].output = !input;
   return b;
}

static int scopedBuffer(LoopNest *ln, const char *name, BufferScope scope, int64_t elems) {
   return Ir_buffer(ln, name, scope, -1, 0, 1, &elems);
}

static int32_t add(LoopNest *ln, int32_t a, int32_t b) {
   return Ir_binary(ln, EXPR_ADD, a, b);
}

static int32_t mulc(LoopNest *ln, int32_t a, int64_t c) {
   return Ir_binary(ln, EXPR_MUL, a, Ir_int(ln, c));
}

static int32_t var(LoopNest *ln, int v) {
   return Ir_varRef(ln, v);
}

/* blockIdx.x * block + threadIdx.x */
static int32_t globalThread(LoopNest *ln, const IrKernel *kn) {
   return add(ln, mulc(ln, var(ln, kn->blockVar), kn->block), var(ln, kn->threadVar));
}

/* for v in [0, extent) of the kind: body */
static int32_t loop(LoopNest *ln, int v, LoopKind kind, int32_t body) {
   return Ir_for(ln, v, kind, body);
}

/* acc[i] = 0 for i < n, unrolled */
static int32_t zeroArray(LoopNest *ln, int acc, int64_t n) {
   int i = Ir_var(ln, VAR_LOOP, "z", n);
   return loop(ln, i, LOOP_UNROLL, Ir_store(ln, acc, var(ln, i), Ir_float(ln, 0)));
}

/* acc[0] += acc[i + 1] for i < n - 1, then out[at] = acc[0] */
static int32_t reduceAndStore(LoopNest *ln, int acc, int64_t n, int out, int32_t at) {
   int32_t zero = Ir_int(ln, 0);
   int32_t store = Ir_store(ln, out, at, Ir_load(ln, acc, zero));
   if (n == 1)
      return store;
   int i = Ir_var(ln, VAR_LOOP, "s", n - 1);
   int32_t sum = Ir_store(ln, acc, zero,
                          add(ln, Ir_load(ln, acc, zero), Ir_load(ln, acc, add(ln, var(ln, i), Ir_int(ln, 1)))));
   int32_t items[2] = { loop(ln, i, LOOP_UNROLL, sum), store };
   return Ir_seq(ln, items, 2);
}

/* A streaming copy out[i] = in[i] of n floats, blocks of 256 threads. */
static void copyKernel(LoopNest *ln, int64_t n) {
   const int64_t block = 256;
   LoopNest_reset(ln);
   int in = globalBuffer(ln, "in", n, true);
   int out = globalBuffer(ln, "out", n, false);
   IrKernel *kn = Ir_kernel(ln, "copy", -1, n / block, block);
   int32_t i = globalThread(ln, kn);
   kn->body = Ir_store(ln, out, i, Ir_load(ln, in, i));
}

/* L2 reads: `grid` blocks of 256 threads each read the same data set of ROWS =
 * L2_REPS x L2_UNROLL rows of 256 floats (1 MB: inside the usable half of every L2
 * here, V100's 3 MB the smallest), one coalesced row per load, into L2_UNROLL
 * independent sums; one float per thread goes out, so that the output stays small
 * beside the set in the simulator's L2 footprint. */
#define L2_REPS 128
#define L2_UNROLL 8
#define L2_ROW 256
static void l2Kernel(LoopNest *ln, int64_t grid) {
   const int64_t rows = L2_REPS * L2_UNROLL;
   LoopNest_reset(ln);
   int in = globalBuffer(ln, "in", rows * L2_ROW, true);
   int out = globalBuffer(ln, "out", grid * L2_ROW, false);
   IrKernel *kn = Ir_kernel(ln, "l2_read", -1, grid, L2_ROW);
   int acc = scopedBuffer(ln, "acc", SCOPE_LOCAL, L2_UNROLL);
   int r = Ir_var(ln, VAR_LOOP, "r", L2_REPS), u = Ir_var(ln, VAR_LOOP, "u", L2_UNROLL);
   int32_t row = add(ln, mulc(ln, var(ln, r), L2_UNROLL), var(ln, u));
   int32_t at = add(ln, mulc(ln, row, L2_ROW), var(ln, kn->threadVar));
   int32_t sum = Ir_store(ln, acc, var(ln, u), add(ln, Ir_load(ln, acc, var(ln, u)), Ir_load(ln, in, at)));
   int32_t items[3] = {
      zeroArray(ln, acc, L2_UNROLL),
      loop(ln, r, LOOP_SERIAL, loop(ln, u, LOOP_UNROLL, sum)),
      reduceAndStore(ln, acc, L2_UNROLL, out, globalThread(ln, kn)),
   };
   kn->body = Ir_seq(ln, items, 3);
}

/* Shared-memory reads: blocks of 256 threads stage a tile of SMEM_ROWS x 256 floats,
 * each thread the words it reads later (so no barrier is needed), then `reps` times
 * read half the tile, SMEM_HALF words each, into SMEM_HALF sums. Conflict-free, thread
 * t's word of row j is j*256 + t (a warp reads 32 consecutive words); conflicting, it
 * is (t mod 64)*128 + 4j (the warp's words are 128 apart: all in one bank; and a
 * thread's rows 4 words apart, so that no two of its reads merge into one vector load:
 * the fact is about 32-bit reads). The half alternates with the repetition, so the
 * reads are not loop-invariant. */
#define SMEM_ROWS 32
#define SMEM_HALF 16
#define SMEM_BLOCK 256
static void smemKernel(LoopNest *ln, int64_t grid, int64_t reps, bool conflicting) {
   const int64_t tile = SMEM_ROWS * SMEM_BLOCK;
   LoopNest_reset(ln);
   int in = globalBuffer(ln, "in", tile, true);
   int out = globalBuffer(ln, "out", grid * SMEM_BLOCK, false);
   IrKernel *kn = Ir_kernel(ln, "smem_read", -1, grid, SMEM_BLOCK);
   int sh = scopedBuffer(ln, "tile", SCOPE_SHARED, tile);
   kn->sharedBytes = tile * 4;
   int acc = scopedBuffer(ln, "acc", SCOPE_LOCAL, SMEM_HALF);
   int32_t t = var(ln, kn->threadVar);
   /* word(row) = row * 256 + t, or (t mod 64) * 128 + 4 row */
   int32_t tPart = conflicting ? mulc(ln, Ir_binary(ln, EXPR_FLOORMOD, t, Ir_int(ln, 64)), 128) : t;
   int64_t rowStride = conflicting ? 4 : SMEM_BLOCK;
   int j = Ir_var(ln, VAR_LOOP, "j", SMEM_ROWS);
   int32_t stage = Ir_store(ln, sh, add(ln, tPart, mulc(ln, var(ln, j), rowStride)),
                            Ir_load(ln, in, add(ln, mulc(ln, var(ln, j), SMEM_BLOCK), t)));
   int rep = Ir_var(ln, VAR_LOOP, "rep", reps), k = Ir_var(ln, VAR_LOOP, "k", SMEM_HALF);
   int base = Ir_var(ln, VAR_LET, "base", 0);
   int32_t half = Ir_binary(ln, EXPR_FLOORMOD, var(ln, rep), Ir_int(ln, 2));
   int32_t baseValue = add(ln, tPart, mulc(ln, half, SMEM_HALF * rowStride));
   int32_t read = Ir_store(ln, acc, var(ln, k),
                           add(ln, Ir_load(ln, acc, var(ln, k)),
                               Ir_load(ln, sh, add(ln, var(ln, base), mulc(ln, var(ln, k), rowStride)))));
   int32_t body[2] = { Ir_let(ln, base, baseValue), loop(ln, k, LOOP_UNROLL, read) };
   int32_t items[4] = {
      loop(ln, j, LOOP_UNROLL, stage),
      zeroArray(ln, acc, SMEM_HALF),
      loop(ln, rep, LOOP_SERIAL, Ir_seq(ln, body, 2)),
      reduceAndStore(ln, acc, SMEM_HALF, out, globalThread(ln, kn)),
   };
   kn->body = Ir_seq(ln, items, 4);
}

/* A pointer chase of one warp: p = buf[p], `steps` times (CHASE_UNROLL per iteration
 * of a serial loop), over a global array of `elems` floats or a shared one. */
#define CHASE_UNROLL 8
static void chaseKernel(LoopNest *ln, BufferScope scope, int64_t elems, int64_t steps) {
   const int64_t block = 32;
   LoopNest_reset(ln);
   int out = globalBuffer(ln, "out", block, false);
   int src = -1, buf;
   if (scope == SCOPE_SHARED)
      src = globalBuffer(ln, "in", elems, true);
   IrKernel *kn = Ir_kernel(ln, "chase", -1, 1, block);
   if (scope == SCOPE_SHARED) {
      buf = scopedBuffer(ln, "ring", SCOPE_SHARED, elems);
      kn->sharedBytes = elems * 4;
   } else {
      buf = globalBuffer(ln, "ring", elems, true);
   }
   int p = scopedBuffer(ln, "p", SCOPE_LOCAL, 1);
   int32_t zero = Ir_int(ln, 0), t = var(ln, kn->threadVar);
   int r = Ir_var(ln, VAR_LOOP, "r", steps / CHASE_UNROLL), u = Ir_var(ln, VAR_LOOP, "u", CHASE_UNROLL);
   int32_t step = Ir_store(ln, p, zero, Ir_load(ln, buf, Ir_load(ln, p, zero)));
   int32_t items[4];
   int n = 0;
   if (scope == SCOPE_SHARED) {
      /* the ring, filled by the warp: one word per thread per pass (a barrier-free
       * fill, as one warp both writes and reads it) */
      int j = Ir_var(ln, VAR_LOOP, "j", elems / block);
      int32_t at = add(ln, mulc(ln, var(ln, j), block), t);
      items[n++] = loop(ln, j, LOOP_SERIAL, Ir_store(ln, buf, at, Ir_load(ln, src, at)));
   }
   items[n++] = Ir_store(ln, p, zero, Ir_float(ln, 0));
   items[n++] = loop(ln, r, LOOP_SERIAL, loop(ln, u, LOOP_UNROLL, step));
   items[n++] = Ir_store(ln, out, t, Ir_load(ln, p, zero));
   kn->body = Ir_seq(ln, items, n);
}

/* FMA chains: `grid` blocks of `block` threads; each thread runs ilp independent chains
 * acc[c] = acc[c] * a + b, FMA_UNROLL steps of each per iteration of a serial loop of
 * `reps`. */
#define FMA_UNROLL 16
static void fmaKernel(LoopNest *ln, int64_t grid, int64_t block, int64_t ilp, int64_t reps) {
   LoopNest_reset(ln);
   int out = globalBuffer(ln, "out", grid * block, false);
   IrKernel *kn = Ir_kernel(ln, "fma", -1, grid, block);
   int acc = scopedBuffer(ln, "acc", SCOPE_LOCAL, ilp);
   int r = Ir_var(ln, VAR_LOOP, "r", reps), u = Ir_var(ln, VAR_LOOP, "u", FMA_UNROLL);
   int c = Ir_var(ln, VAR_LOOP, "c", ilp);
   int32_t fma = Ir_store(ln, acc, var(ln, c),
                          add(ln, Ir_binary(ln, EXPR_MUL, Ir_load(ln, acc, var(ln, c)), Ir_float(ln, 0.999)),
                              Ir_float(ln, 0.001)));
   int32_t items[3] = {
      zeroArray(ln, acc, ilp),
      loop(ln, r, LOOP_SERIAL, loop(ln, u, LOOP_UNROLL, loop(ln, c, LOOP_UNROLL, fma))),
      reduceAndStore(ln, acc, ilp, out, globalThread(ln, kn)),
   };
   kn->body = Ir_seq(ln, items, 3);
}

/* One warp storing a word: all that is left is the launch. */
static void tinyKernel(LoopNest *ln) {
   LoopNest_reset(ln);
   int out = globalBuffer(ln, "out", 32, false);
   IrKernel *kn = Ir_kernel(ln, "tiny", -1, 1, 32);
   kn->body = Ir_store(ln, out, var(ln, kn->threadVar), Ir_float(ln, 0));
}

/* C[M,N] = A[M,K] B[K,N], row-major, the classic CUDA-core SGEMM: blocks of 256
 * threads own a 128x128 tile of C, 8x8 outputs per thread (rows ty*4 + {0..3} and
 * 64 + ty*4 + {0..3}, columns likewise with tx, so that the register fetches are
 * conflict-free float4 reads); per step of 8 along K the block stages A's 128x8 slice
 * transposed (As[k][m]) and B's 8x128 slice (Bs[k][n]) in shared memory with float4
 * loads, a barrier, 8 rank-1 updates from registers, a barrier. */
#define GEMM_TILE 128
#define GEMM_BK 8
static void sgemmKernel(LoopNest *ln, int64_t M, int64_t N, int64_t K) {
   const int64_t T = 256, tilesN = N / GEMM_TILE, half = GEMM_TILE / 2;
   const int64_t sliceElems = GEMM_BK * GEMM_TILE;
   LoopNest_reset(ln);
   int A = globalBuffer(ln, "A", M * K, true);
   int B = globalBuffer(ln, "B", K * N, true);
   int C = globalBuffer(ln, "C", M * N, false);
   IrKernel *kn = Ir_kernel(ln, "sgemm", -1, (M / GEMM_TILE) * tilesN, T);
   int As = scopedBuffer(ln, "As", SCOPE_SHARED, sliceElems);
   int Bs = scopedBuffer(ln, "Bs", SCOPE_SHARED, sliceElems);
   kn->sharedBytes = 2 * sliceElems * 4;
   int acc = scopedBuffer(ln, "acc", SCOPE_LOCAL, 64);
   int ra = scopedBuffer(ln, "ra", SCOPE_LOCAL, 8);
   int rb = scopedBuffer(ln, "rb", SCOPE_LOCAL, 8);
   int32_t t = var(ln, kn->threadVar), blk = var(ln, kn->blockVar);

   int bm = Ir_var(ln, VAR_LET, "bm", 0), bn = Ir_var(ln, VAR_LET, "bn", 0);
   int tx = Ir_var(ln, VAR_LET, "tx", 0), ty = Ir_var(ln, VAR_LET, "ty", 0);
   int32_t lets[4] = {
      Ir_let(ln, bm, mulc(ln, Ir_binary(ln, EXPR_FLOORDIV, blk, Ir_int(ln, tilesN)), GEMM_TILE)),
      Ir_let(ln, bn, mulc(ln, Ir_binary(ln, EXPR_FLOORMOD, blk, Ir_int(ln, tilesN)), GEMM_TILE)),
      Ir_let(ln, tx, Ir_binary(ln, EXPR_FLOORMOD, t, Ir_int(ln, 16))),
      Ir_let(ln, ty, Ir_binary(ln, EXPR_FLOORDIV, t, Ir_int(ln, 16))),
   };

   int ko = Ir_var(ln, VAR_LOOP, "ko", K / GEMM_BK);
   /* A's slice: thread t loads row t/2, columns (t%2)*4 + v */
   int va = Ir_var(ln, VAR_LOOP, "va", 4);
   int32_t am = Ir_binary(ln, EXPR_FLOORDIV, t, Ir_int(ln, 2));
   int32_t ak = add(ln, mulc(ln, Ir_binary(ln, EXPR_FLOORMOD, t, Ir_int(ln, 2)), 4), var(ln, va));
   int32_t aAt = add(ln, mulc(ln, add(ln, var(ln, bm), am), K), add(ln, mulc(ln, var(ln, ko), GEMM_BK), ak));
   int32_t stageA = loop(ln, va, LOOP_VECTOR, Ir_store(ln, As, add(ln, mulc(ln, ak, GEMM_TILE), am), Ir_load(ln, A, aAt)));
   /* B's slice: thread t loads row t/32, columns (t%32)*4 + v */
   int vb = Ir_var(ln, VAR_LOOP, "vb", 4);
   int32_t bk = Ir_binary(ln, EXPR_FLOORDIV, t, Ir_int(ln, 32));
   int32_t bc = add(ln, mulc(ln, Ir_binary(ln, EXPR_FLOORMOD, t, Ir_int(ln, 32)), 4), var(ln, vb));
   int32_t bAt = add(ln, mulc(ln, add(ln, mulc(ln, var(ln, ko), GEMM_BK), bk), N), add(ln, var(ln, bn), bc));
   int32_t stageB = loop(ln, vb, LOOP_VECTOR, Ir_store(ln, Bs, add(ln, mulc(ln, bk, GEMM_TILE), bc), Ir_load(ln, B, bAt)));

   /* per k: ra[h*4 + v] = As[k][h*64 + ty*4 + v], rb likewise from Bs with tx */
   int k = Ir_var(ln, VAR_LOOP, "k", GEMM_BK);
   int ha = Ir_var(ln, VAR_LOOP, "ha", 2), wa = Ir_var(ln, VAR_LOOP, "wa", 4);
   int hb = Ir_var(ln, VAR_LOOP, "hb", 2), wb = Ir_var(ln, VAR_LOOP, "wb", 4);
   int32_t kRow = mulc(ln, var(ln, k), GEMM_TILE);
   int32_t fetchA = Ir_store(ln, ra, add(ln, mulc(ln, var(ln, ha), 4), var(ln, wa)),
                             Ir_load(ln, As, add(ln, kRow, add(ln, mulc(ln, var(ln, ha), half),
                                                                add(ln, mulc(ln, var(ln, ty), 4), var(ln, wa))))));
   int32_t fetchB = Ir_store(ln, rb, add(ln, mulc(ln, var(ln, hb), 4), var(ln, wb)),
                             Ir_load(ln, Bs, add(ln, kRow, add(ln, mulc(ln, var(ln, hb), half),
                                                                add(ln, mulc(ln, var(ln, tx), 4), var(ln, wb))))));
   int i = Ir_var(ln, VAR_LOOP, "i", 8), jj = Ir_var(ln, VAR_LOOP, "j", 8);
   int32_t cAt = add(ln, mulc(ln, var(ln, i), 8), var(ln, jj));
   int32_t update = Ir_store(ln, acc, cAt,
                             add(ln, Ir_load(ln, acc, cAt),
                                 Ir_binary(ln, EXPR_MUL, Ir_load(ln, ra, var(ln, i)), Ir_load(ln, rb, var(ln, jj)))));
   int32_t perK[3] = {
      loop(ln, ha, LOOP_UNROLL, loop(ln, wa, LOOP_VECTOR, fetchA)),
      loop(ln, hb, LOOP_UNROLL, loop(ln, wb, LOOP_VECTOR, fetchB)),
      loop(ln, i, LOOP_UNROLL, loop(ln, jj, LOOP_UNROLL, update)),
   };
   int32_t step[5] = { stageA, stageB, Ir_barrier(ln), loop(ln, k, LOOP_UNROLL, Ir_seq(ln, perK, 3)),
                       Ir_barrier(ln) };

   /* C: rows bm + hc*64 + ty*4 + wc, columns bn + gc*64 + tx*4 + vc (float4 stores) */
   int hc = Ir_var(ln, VAR_LOOP, "hc", 2), wc = Ir_var(ln, VAR_LOOP, "wc", 4);
   int gc = Ir_var(ln, VAR_LOOP, "gc", 2), vc = Ir_var(ln, VAR_LOOP, "vc", 4);
   int32_t cRow = add(ln, var(ln, bm), add(ln, mulc(ln, var(ln, hc), half), add(ln, mulc(ln, var(ln, ty), 4), var(ln, wc))));
   int32_t cCol = add(ln, var(ln, bn), add(ln, mulc(ln, var(ln, gc), half), add(ln, mulc(ln, var(ln, tx), 4), var(ln, vc))));
   int32_t accAt = add(ln, mulc(ln, add(ln, mulc(ln, var(ln, hc), 4), var(ln, wc)), 8),
                       add(ln, mulc(ln, var(ln, gc), 4), var(ln, vc)));
   int32_t write = Ir_store(ln, C, add(ln, mulc(ln, cRow, N), cCol), Ir_load(ln, acc, accAt));
   int32_t epilogue = loop(ln, hc, LOOP_UNROLL,
                           loop(ln, wc, LOOP_UNROLL, loop(ln, gc, LOOP_UNROLL, loop(ln, vc, LOOP_VECTOR, write))));

   int32_t items[8] = { lets[0], lets[1], lets[2], lets[3], zeroArray(ln, acc, 64),
                        loop(ln, ko, LOOP_SERIAL, Ir_seq(ln, step, 5)), epilogue };
   kn->body = Ir_seq(ln, items, 7);
}

/* ---- simulating ---- */

typedef struct {
   SimGpu gpu;
   SimParams params;
   LoopNest ln;
   SimProgram prog;
} Bench;

/* The seconds of the nest in b->ln, launch included and jitter left out; -1 when the
 * simulator refuses it (the profile cannot run the kernel). */
static double secondsAs(Bench *b, const SimCompiled *ptx) {
   const SimCompiled *per[IR_MAX_KERNELS] = { ptx };
   char *cause = NULL;
   if (Sim_count(&b->gpu, &b->ln, per, &b->prog, &cause) < 0) {
      free(cause);
      return -1;
   }
   SimReport r;
   Sim_time(&b->gpu, &b->params, &b->prog, 0, &r);
   double s = 0;
   for (int k = 0; k < r.nkernels; k++)
      s += r.kernels[k].seconds;
   return s;
}

static double seconds(Bench *b) {
   return secondsAs(b, NULL);
}

/* Blocks per SM of the nest in b->ln (0 when it cannot run): grids of whole rounds
 * keep a partial last round out of the differences. */
static int64_t residentBlocks(Bench *b) {
   char *cause = NULL;
   if (Sim_count(&b->gpu, &b->ln, NULL, &b->prog, &cause) < 0) {
      free(cause);
      return 0;
   }
   return b->prog.kernels[0].blocksPerSm;
}

static double cycles(const Bench *b, double s) {
   return s * b->gpu.clock;
}

/* GB/s of a streaming copy: 8 bytes per element over the time two sizes differ by. */
static double dramBandwidth(Bench *b) {
   const int64_t n1 = INT64_C(1) << 25, n2 = INT64_C(1) << 26;   /* 128 and 256 MB a buffer */
   copyKernel(&b->ln, n1);
   double t1 = seconds(b);
   copyKernel(&b->ln, n2);
   double t2 = seconds(b);
   if (t1 < 0 || t2 < 0)
      return NAN;
   return 8.0 * (double)(n2 - n1) / (t2 - t1) / 1e9;
}

/* B/clk of L2 reads: the grid grows by whole rounds of resident blocks. */
static double l2Bandwidth(Bench *b) {
   l2Kernel(&b->ln, (int64_t)b->gpu.sms);
   int64_t g1 = (int64_t)b->gpu.sms * residentBlocks(b) * 2, g2 = 2 * g1;
   l2Kernel(&b->ln, g1);
   double t1 = seconds(b);
   l2Kernel(&b->ln, g2);
   double t2 = seconds(b);
   if (t1 < 0 || t2 < 0)
      return NAN;
   double bytes = (double)(g2 - g1) * L2_REPS * L2_UNROLL * L2_ROW * 4;
   return bytes / cycles(b, t2 - t1);
}

/* Cycles per repetition of the shared-memory kernel, per SM: the slope in reps. */
static double smemSlope(Bench *b, bool conflicting, double *bytesPerRep) {
   const int64_t r1 = 256, r2 = 512;
   smemKernel(&b->ln, (int64_t)b->gpu.sms, r1, conflicting);
   int64_t grid = (int64_t)b->gpu.sms * residentBlocks(b) * 2;
   smemKernel(&b->ln, grid, r1, conflicting);
   double t1 = seconds(b);
   smemKernel(&b->ln, grid, r2, conflicting);
   double t2 = seconds(b);
   if (t1 < 0 || t2 < 0)
      return NAN;
   /* bytes read per SM per repetition */
   *bytesPerRep = (double)grid / b->gpu.sms * SMEM_BLOCK * SMEM_HALF * 4;
   return cycles(b, t2 - t1) / (double)(r2 - r1);
}

/* Cycles per step of a chase over `elems` floats in scope. */
static double chaseCycles(Bench *b, BufferScope scope, int64_t elems) {
   const int64_t s1 = 1 << 16, s2 = 1 << 17;
   chaseKernel(&b->ln, scope, elems, s1);
   double t1 = seconds(b);
   chaseKernel(&b->ln, scope, elems, s2);
   double t2 = seconds(b);
   if (t1 < 0 || t2 < 0)
      return NAN;
   return cycles(b, t2 - t1) / (double)(s2 - s1);
}

/* flop/clk/SM of FMA chains over grid x block threads: the slope in repetitions. */
static double fmaRate(Bench *b, int64_t grid, int64_t block, int64_t ilp) {
   const int64_t r1 = 64, r2 = 128;
   fmaKernel(&b->ln, grid, block, ilp, r1);
   double t1 = seconds(b);
   fmaKernel(&b->ln, grid, block, ilp, r2);
   double t2 = seconds(b);
   if (t1 < 0 || t2 < 0)
      return NAN;
   double flops = 2.0 * (double)grid * (double)block * (double)(r2 - r1) * FMA_UNROLL * (double)ilp;
   return flops / cycles(b, t2 - t1) / b->gpu.sms;
}

/* The fewest warps per SM (one block per SM, two past 32 warps) whose FMA rate at
 * the ILP reaches 90% of full: NAN when 64 do not. */
static double latencyHiding(Bench *b, int64_t ilp, double full) {
   for (int64_t w = 1; w <= 64; w++) {
      int64_t blocks = w <= 32 ? 1 : 2;
      if (w % blocks)
         continue;
      double rate = fmaRate(b, (int64_t)b->gpu.sms * blocks, 32 * w / blocks, ilp);
      if (rate >= 0.9 * full)
         return (double)w;
   }
   return NAN;
}

int Facts_simulate(const Device *d, double *values, char **cause) {
   Bench *b = xCalloc(1, sizeof *b);
   if (SimGpu_init(&b->gpu, d, cause) < 0) {
      free(b);
      return -1;
   }
   SimParams_fromDevice(&b->params, d);
   LoopNest_init(&b->ln);
   /* a microkernel the profile cannot run gives NAN, not an error: the others stand */
   for (int f = 0; f < FACT_COUNT; f++)
      values[f] = NAN;

   values[FACT_DRAM_BW] = dramBandwidth(b);
   values[FACT_DRAM_BW_FRAC] = values[FACT_DRAM_BW] / d->mem_bandwidth_gbs;
   values[FACT_L2_BW] = l2Bandwidth(b);
   double freeBytes = 0, conflictBytes = 0;
   double freeSlope = smemSlope(b, false, &freeBytes), conflictSlope = smemSlope(b, true, &conflictBytes);
   values[FACT_SMEM_BW] = freeBytes / freeSlope;
   values[FACT_BANK_CONFLICT_32] = conflictSlope / freeSlope;
   /* 1.5 GB, far past any L2; 1 MB, well inside the usable half of the smallest L2
    * here (V100: 3 MB); a 4 KB ring in shared memory */
   values[FACT_DRAM_LATENCY] = chaseCycles(b, SCOPE_GLOBAL, INT64_C(375) << 20);
   values[FACT_L2_LATENCY] = chaseCycles(b, SCOPE_GLOBAL, INT64_C(1) << 18);
   values[FACT_SMEM_LATENCY] = chaseCycles(b, SCOPE_SHARED, 1024);
   /* full occupancy: blocks of 256 threads filling every SM, 4 rounds */
   fmaKernel(&b->ln, (int64_t)b->gpu.sms, 256, 8, 1);
   double full = fmaRate(b, (int64_t)b->gpu.sms * residentBlocks(b) * 4, 256, 8);
   values[FACT_FMA_RATE] = full;
   /* one warp, one chain: a warp's FMA is 64 FLOPs */
   values[FACT_FMA_LATENCY] = 64.0 / (fmaRate(b, 1, 32, 1) * b->gpu.sms);
   values[FACT_FMA_LATENCY_HIDING] = latencyHiding(b, 1, full);
   values[FACT_FMA_LATENCY_HIDING_ILP4] = latencyHiding(b, 4, full);
   tinyKernel(&b->ln);
   double tiny = seconds(b);
   values[FACT_LAUNCH_OVERHEAD] = tiny < 0 ? NAN : tiny * 1e6;
   const int64_t n = 4096;
   sgemmKernel(&b->ln, n, n, n);
   /* the kernel asks for two blocks per SM (__launch_bounds__(256, 2)): ptxas holds it
    * to 128 registers, which the 8x8 tile, its 16 operands and the addresses fit
    * without spilling; the simulator's own estimate (168) would allow one */
   SimCompiled twoBlocks = { .registers = 128, .spillStores = 0, .spillLoads = 0, .stackBytes = 0 };
   double gemm = secondsAs(b, &twoBlocks);
   values[FACT_SGEMM_EFF] = gemm < 0 ? NAN : 2.0 * n * n * n / gemm / (d->peak_fp32_gflops * 1e9);

   LoopNest_done(&b->ln);
   free(b);
   return 0;
}
