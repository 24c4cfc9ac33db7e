/* The analyses against values computed by hand: PSA's symbols and latency and Ansor's
 * features of a tiled 64x64x64 matmul state and of a small tiled convolution with
 * virtual threads, padding and an epilogue; the PAM pattern block's position; a max
 * pooling state and a softmax state (cross-thread reductions) without a pattern; a
 * Tensor-Core dense state (its mma as a compute store, PSA at the Tensor-Core peak) and
 * sampled Tensor-Core states of three ops in every precision; and,
 * for states of every sketch kind, finite values that are the same in two runs and on
 * two threads. The derivations are in the comments next to the numbers. */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "cost/analysis.h"
#include "ir/lower.h"
#include "te/network.h"
#include "util/xalloc.h"

static SchedLimits limits;

typedef struct {
   Network net;
   Dag g;
   SketchSet set;
   LoopNest ln;
   State s;
   Analysis *a;
   PsaSymbols psa;
   Features f;
} Fixture;

static void setUpWith(Fixture *f, const char *task, const char *state, const SketchOptions *opt) {
   TestUtil_buildTask(&f->net, &f->g, &f->set, task);
   if (opt) {
      SketchSet_done(&f->set);
      SketchSet_generateWith(&f->set, &f->g, opt);
   }
   char *cause = NULL;
   LoopNest_init(&f->ln);
   if (State_parse(&f->set, state, &limits, &f->s, &cause) < 0)
      fail_msg("%s", cause);
   Lower_state(&f->set, &f->s, &f->ln);
   f->a = Analysis_new();
   Analysis_run(f->a, &f->ln, &f->psa, &f->f);
}

static void setUp(Fixture *f, const char *task, const char *state) {
   setUpWith(f, task, state, NULL);
}

static void tearDown(Fixture *f) {
   Analysis_free(f->a);
   LoopNest_done(&f->ln);
   SketchSet_done(&f->set);
   Dag_done(&f->g);
   Network_done(&f->net);
}

/* ---- expectations ---- */

typedef struct {
   int at;
   double raw;                  /* before slog (one-hots and is_gpu are taken as they are) */
} Entry;

/* One buffer's slot of group 2, by hand. */
typedef struct {
   int type;                    /* 0 read, 1 write, 2 readwrite */
   double bytes, uniqueBytes, lines, uniqueLines;
   int reuse;                   /* 0 loop-multiple-read, 1 serial, 2 none */
   double disIter, disBytes, ct, stride;
} Slot;

typedef struct {
   const char *buffer;
   Entry entries[40];           /* groups 1, 4, 5: every non-zero entry; ends at {0, 0} after the first */
   int nslots;
   Slot slots[FEATURE_MAX_BUFS];
} RowExpect;

static bool isOneHot(int i) {
   if ((i >= 19 && i <= 26) || (i >= 30 && i <= 37) || (i >= 41 && i <= 48) || i == FEAT_IS_GPU)
      return true;
   if (i >= FEAT_GROUP2 && i < FEAT_GROUP3) {
      int k = (i - FEAT_GROUP2) % FEATURE_BUF_LEN;
      return k <= FBUF_ACC_READWRITE || (k >= FBUF_REUSE_LOOP && k <= FBUF_REUSE_NONE);
   }
   return false;
}

static void expectEntry(float *want, int at, double raw) {
   want[at] = isOneHot(at) ? (float)raw : Features_slog(raw);
}

static int rowOf(const Fixture *f, const char *name) {
   for (int r = 0; r < f->f.nrows; r++)
      if (strcmp(f->ln.buffers[f->f.buffer[r]].name, name) == 0)
         return r;
   fail_msg("no feature row for %s", name);
   return -1;
}

/* The entries every GPU row has: no vectorize/unroll/parallel position unless listed,
 * is_gpu, the grid, block and virtual threads. */
static void gpuEntries(float *want, double grid, double block, double vthreads) {
   want[19] = 1;
   want[30] = 1;
   want[41] = 1;
   want[FEAT_IS_GPU] = 1;
   expectEntry(want, FEAT_BLOCK_X, grid);
   expectEntry(want, FEAT_BLOCK_X + 1, 1);
   expectEntry(want, FEAT_BLOCK_X + 2, 1);
   expectEntry(want, FEAT_THREAD_X, block);
   expectEntry(want, FEAT_THREAD_X + 1, 1);
   expectEntry(want, FEAT_THREAD_X + 2, 1);
   expectEntry(want, FEAT_VTHREAD, vthreads);
}

/* Checks groups 1, 2, 4 and 5 of a row: the listed entries, zeros elsewhere. */
static void checkRow(const Fixture *f, const RowExpect *e, double grid, double block, double vthreads) {
   int r = rowOf(f, e->buffer);
   float want[FEATURE_LEN] = { 0 };
   gpuEntries(want, grid, block, vthreads);
   for (int i = 0; i < 40 && (i == 0 || e->entries[i].at != 0); i++) {
      int at = e->entries[i].at;
      /* a position one-hot replaces "none" */
      if (at == 26 || at == 37)
         want[at == 26 ? 19 : 30] = 0;
      expectEntry(want, at, e->entries[i].raw);
   }
   for (int k = 0; k < e->nslots; k++) {
      const Slot *s = &e->slots[k];
      float *w = &want[FEAT_GROUP2 + k * FEATURE_BUF_LEN];
      w[FBUF_ACC_READ + s->type] = 1;
      w[FBUF_BYTES] = Features_slog(s->bytes);
      w[FBUF_UNIQUE_BYTES] = Features_slog(s->uniqueBytes);
      w[FBUF_LINES] = Features_slog(s->lines);
      w[FBUF_UNIQUE_LINES] = Features_slog(s->uniqueLines);
      w[FBUF_REUSE_LOOP + s->reuse] = 1;
      w[FBUF_REUSE_DIS_ITER] = Features_slog(s->disIter);
      w[FBUF_REUSE_DIS_BYTES] = Features_slog(s->disBytes);
      w[FBUF_REUSE_CT] = Features_slog(s->ct);
      double div = s->ct > 0.5 ? s->ct : 0.5;
      w[FBUF_BYTES_D_REUSE] = Features_slog(s->bytes / div);
      w[FBUF_UNIQUE_BYTES_D_REUSE] = Features_slog(s->uniqueBytes / div);
      w[FBUF_LINES_D_REUSE] = Features_slog(s->lines / div);
      w[FBUF_UNIQUE_LINES_D_REUSE] = Features_slog(s->uniqueLines / div);
      w[FBUF_STRIDE] = Features_slog(s->stride);
   }
   const float *got = f->f.row[r];
   for (int i = 0; i < FEATURE_LEN; i++) {
      if (i >= FEAT_GROUP3 && i < FEAT_GROUP4)
         continue;
      if (fabsf(got[i] - want[i]) > 1e-4f) {
         char name[64];
         fail_msg("%s row, entry %d (%s): got %.6f, want %.6f", e->buffer, i, Features_name(i, name, sizeof name),
                  got[i], want[i]);
      }
   }
}

static const PsaRow *psaRow(const Fixture *f, const char *name) {
   for (int r = 0; r < f->psa.nrows; r++)
      if (strcmp(f->ln.buffers[f->psa.rows[r].buffer].name, name) == 0)
         return &f->psa.rows[r];
   fail_msg("no PSA row for %s", name);
   return NULL;
}

static void checkPsaRow(const Fixture *f, const char *name, const double *want) {
   const PsaRow *r = psaRow(f, name);
   for (int i = 0; i < PSA_SYMBOLS; i++)
      if (fabs(r->sym[i] - want[i]) > 1e-9 * fmax(1, fabs(want[i])))
         fail_msg("%s PSA %s: got %.9g, want %.9g", name, Psa_symbolName(i), r->sym[i], want[i]);
}

/* Pruner's a100_40 profile. */
static const PsaParams a100 = { 19490, 1555, 108, 1, 4, 32, 128, { 0 } };

/* ---- a 64x64x64 matmul ----
 * i and j tiles [vthread 1, threads 8, 1, 2], k [2, 4]: grid 16, block 64, a 2x2
 * register tile, k_outer 8, k_mid 2, k_inner 4; data fetched 2 floats at a time (one
 * round), weight 1 at a time (two rounds); auto-unroll 16 unrolls k_inner, i and j. */
#define MATMUL_TASK "{op: dense, m: 64, n: 64, k: 64, weight: 1}"
#define MATMUL_STATE "{\"v\":1,\"sketch\":0,\"knobs\":{\"T_dense.i\":[1,8,1,2],\"T_dense.j\":[1,8,1,2]," \
                     "\"T_dense.k\":[2,4],\"data.shared.vector\":2,\"weight.shared.vector\":1,\"T_dense.unroll\":16}}"

static void test_matmul_psa(void **state) {
   (void)state;
   Fixture f;
   setUp(&f, MATMUL_TASK, MATMUL_STATE);
   assert_int_equal(f.psa.nrows, 4);
   /* update: per thread 8 x 2 x 4 x 2 x 2 = 256 runs of one add and one mul: 512;
    * x 16 blocks x 64 threads = 524288 = 2 x 64^3. S = {i, j}: the register tile 2 x 2,
    * data 2 (i), weight 2 (j): 8. MemWorkload: tile 4 + data (k_mid, k_inner, i) 16 +
    * weight 16 = 36. DataReuse 1 + 512 / 36. */
   double local[PSA_SYMBOLS] = { 512, 524288, 8, 36, 0, 0, 1 + 512.0 / 36, 1, 16, 64, 1 };
   checkPsaRow(&f, "T_dense_local", local);
   /* data copy: S = {lane} (2) x 64 threads = 128 floats per fill; 8 k_outer steps x 16
    * blocks x 4 bytes = 65536 bytes = 64 x 64 x 4 bytes read by each of the 4 block
    * columns */
   double data[PSA_SYMBOLS] = { 0, 0, 0, 0, 128, 65536, 1, 1, 16, 64, 1 };
   checkPsaRow(&f, "data_shared", data);
   /* weight copy: S = {weight_round} (2) x 64 = 128, the same traffic */
   checkPsaRow(&f, "weight_shared", data);
   /* the output store computes nothing: 2 x 2 per thread x 16 x 64 x 4 bytes */
   double out[PSA_SYMBOLS] = { 0, 0, 0, 0, 0, 16384, 1, 1, 16, 64, 1 };
   checkPsaRow(&f, "T_dense", out);

   /* latency: 16 blocks < 108 SMs, 2 warps each: units 16 x 2 = 32 of 4 x 108 = 432;
    * full warps */
   PsaRowCost c[4];
   double lat = Psa_latency(&f.psa, &a100, c);
   double peak = 32.0 / 432;
   double tComp = 524288 * (1 + 36.0 / 548) / (19490 * peak) / 1e6;
   double tMem = 65536 / (1555 * 1e6);
   double tOut = 16384 / (1555 * 1e6);
   assert_true(fabs(c[0].peakPenalty - peak) < 1e-12);
   assert_true(fabs(c[0].warpPenalty - 1) < 1e-12);
   assert_true(fabs(c[0].threadPenalty - (1 + 36.0 / 548)) < 1e-12);
   assert_true(fabs(c[0].regPenalty - 1) < 1e-12);
   assert_true(fabs(c[0].tComp - tComp) < 1e-15);
   assert_true(fabs(c[1].tMem - tMem) < 1e-15);
   assert_true(fabs(lat - (tComp + 2 * tMem + tOut)) < 1e-15);
   assert_true(fabs(lat - 4.818387e-4) < 1e-9);
   assert_true(fabs(Psa_score(&f.psa, &a100) - 1 / lat) < 1e-9);
   tearDown(&f);
}

static void test_matmul_features(void **state) {
   (void)state;
   Fixture f;
   setUp(&f, MATMUL_TASK, MATMUL_STATE);
   assert_int_equal(f.f.nrows, 4);
   /* update, stack block 16, thread 64, k_outer 8, k_mid 2, k_inner 4, i 2, j 2:
    * outer_prod 2^18. Ops per run: float add, float mul; index arithmetic: data
    * (i_thread = tx / 8, x 2, + i; k_mid x 4 + k_inner), weight likewise, the tile
    * index i x 2 + j: 5 int adds, 5 int muls, 2 int divisions. */
   RowExpect local = {
      "T_dense_local",
      { { 1, 262144 }, { 2, 262144 }, { 8, 5 * 262144 }, { 9, 5 * 262144 }, { 10, 2 * 262144 },
        { 27, 3 }, { 28, 16 }, { 29, 2 }, { 37, 1 },                       /* unrolled k_inner, i, j */
        { 157, 16 }, { 158, 4 * 1024 }, { 159, 1024 }, { 160, 256 },       /* tile allocated per thread */
        { 161, 262144 }, { 162, 7 }, { 163, 16 } },
      3,
      {
         /* weight: j moves it by 8 (its dimension 0, row of 8) at the innermost loop:
          * lines 2^18 x min(1, 32/64); all 128 floats of the copy; contiguous rows of 8
          * floats: 512 / 32 lines; reuse at i (2 iterations of j touching 20 bytes) */
         { 0, 1 << 20, 512, 131072, 16, 0, 2, 20, 2, 8 },
         /* data: j does not move it (ratio 2), i moves it by 8: 2^17 x 1/2; reuse at j,
          * the innermost loop: 3 accesses x 4 bytes */
         { 0, 1 << 20, 512, 65536, 16, 0, 1, 12, 2, 0 },
         /* the tile: stride 1, 16 bytes, one line; reused over k_inner (4) after i and j
          * (4 iterations, 32 bytes) */
         { 2, 1 << 20, 16, 16384, 1, 0, 4, 32, 4, 1 },
      },
   };
   checkRow(&f, &local, 16, 64, 1);
   /* data fetch, stack block, thread, k_outer, lane (vectorized 2): outer 2^14. The
    * source index: i_block = bx / 4 (x 16, +), data_i = tx x 2 + lane in both
    * dimensions, / 8 and % 8, k_outer x 8 +: 4 adds, 4 muls, 3 divisions. */
   RowExpect data = {
      "data_shared",
      { { 8, 4 * 16384 }, { 9, 4 * 16384 }, { 10, 3 * 16384 },
        { 16, 1 }, { 17, 2 }, { 18, 2 }, { 26, 1 },
        { 157, 512 }, { 158, 128 * 8192 }, { 159, 8192 }, { 160, 2 },     /* per k_outer step */
        { 161, 16384 }, { 162, 4 }, { 163, 16 } },
      2,
      {
         /* the shared copy: lane moves it by 1: lines 2^14 / 16; 16 x 8 floats; reuse
          * over k_outer (8) after lane (2 iterations, 16 bytes) */
         { 1, 65536, 512, 1024, 16, 0, 2, 16, 8, 1 },
         /* the global rows: 64 x 64 floats over the kernel, lines of 64 bytes; every
          * loop moves it: no reuse */
         { 0, 65536, 16384, 1024, 256, 2, 0, 0, 0, 1 },
      },
   };
   checkRow(&f, &data, 16, 64, 1);
   /* weight fetch, stack ..., weight_round 2: weight_i = round x 64 + tx: Ansor's
    * coefficient of round is 64 (a line per access); the bounds of round x 64 over
    * [0, 64] cover 9 rows x 8 columns: 72 floats of each buffer per round step */
   RowExpect weight = {
      "weight_shared",
      { { 8, 4 * 16384 }, { 9, 4 * 16384 }, { 10, 3 * 16384 },
        { 157, 512 }, { 158, 128 * 8192 }, { 159, 8192 }, { 160, 2 },
        { 161, 16384 }, { 162, 4 }, { 163, 16 } },
      2,
      {
         { 1, 65536, 512, 16384, 16, 0, 2, 576, 8, 64 },
         { 0, 65536, 16384, 16384, 256, 2, 0, 0, 0, 64 },
      },
   };
   checkRow(&f, &weight, 16, 64, 1);
   /* output store, stack block, thread, i, j (unrolled): outer 4096; the tile index
    * i x 2 + j */
   RowExpect out = {
      "T_dense",
      { { 8, 4096 }, { 9, 4096 }, { 27, 2 }, { 28, 4 }, { 29, 2 }, { 37, 1 },
        { 161, 4096 }, { 162, 4 }, { 163, 16 } },
      2,
      {
         /* 64 x 64 outputs, stride 1 along j, moved by every loop */
         { 1, 16384, 16384, 256, 256, 2, 0, 0, 0, 1 },
         /* the tile: reused by the 64 threads after i and j (4 iterations, 32 bytes) */
         { 0, 16384, 16, 256, 1, 0, 4, 32, 64, 1 },
      },
   };
   checkRow(&f, &out, 16, 64, 1);

   /* arithmetic intensity of the update, from the innermost loop out: operations
    * 4, 8, 32, 64, 512, 32768, 524288 over bytes 20, 32, 80, 144, 144, 1040, 1040 */
   static const double comp[] = { 4, 8, 32, 64, 512, 32768, 524288 };
   static const double mem[] = { 20, 32, 80, 144, 144, 1040, 1040 };
   int r = rowOf(&f, "T_dense_local");
   int pt = 0;
   for (int s = 0; s < 10; s++) {
      double target = comp[6] * (s + 1) / 10;
      while (comp[pt] < target - 1e-4)
         pt++;
      double v = pt == 0 ? comp[0] / mem[0]
                         : comp[pt - 1] / mem[pt - 1] + (comp[pt] / mem[pt] - comp[pt - 1] / mem[pt - 1]) /
                                                           (comp[pt] - comp[pt - 1]) * (target - comp[pt - 1]);
      assert_true(fabsf(f.f.row[r][FEAT_GROUP3 + s] - Features_slog(v)) < 1e-4f);
   }
   tearDown(&f);
}

/* The output store of the same state with an epilogue: its arithmetic per run, 4096
 * runs (stack block, thread, i, j), counted in group 1 */
static void test_epilogue_operation_counts(void **state) {
   (void)state;
   static const struct {
      const char *task, *buffer;
      double addsub, mul, divmod, cmp, math;
   } cases[] = {
      /* x + 3, max, min, / 6, x * */
      { "{op: dense, m: 64, n: 64, k: 64, epilogue: [hardswish], weight: 1}", "T_hardswish", 1, 1, 1, 2, 0 },
      { "{op: dense, m: 64, n: 64, k: 64, epilogue: [hardsigmoid], weight: 1}", "T_hardsigmoid", 1, 0, 1, 2, 0 },
      /* one math function */
      { "{op: dense, m: 64, n: 64, k: 64, epilogue: [sigmoid], weight: 1}", "T_sigmoid", 0, 0, 0, 0, 1 },
   };
   for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      Fixture f;
      setUp(&f, cases[i].task, MATMUL_STATE);
      const float *row = f.f.row[rowOf(&f, cases[i].buffer)];
      const double want[6] = { 0, cases[i].addsub, cases[i].mul, cases[i].divmod, cases[i].cmp, cases[i].math };
      for (int k = 0; k < 6; k++)
         if (fabsf(row[k] - Features_slog(want[k] * 4096)) > 1e-4f)
            fail_msg("%s: entry %d is %f, want slog(%g)", cases[i].buffer, k, row[k], want[k] * 4096);
      tearDown(&f);
   }
}

static void test_matmul_pattern(void **state) {
   (void)state;
   Fixture f;
   setUp(&f, MATMUL_TASK, MATMUL_STATE);
   /* init (2), data copy (0 1), weight copy (0 1), update (1 1 2), store (2 0) */
   assert_int_equal(f.f.sequenceLength, 10);
   assert_int_equal(f.f.patternAt, 0);
   /* entry 0: the tile's init, a local write of 16 x 64 x 4 stores */
   const float *e = f.f.pattern[0];
   float want0[PATTERN_WIDTH] = { 0, 0, 0, 1, 0, 1, 0 };
   want0[7] = Features_slog(4096 * 4);
   for (int i = 0; i < 7; i++)
      assert_true(e[i] == want0[i]);
   assert_true(fabsf(e[7] - want0[7]) < 1e-5f);
   assert_true(fabsf(e[22] - Features_slog(16)) < 1e-5f);    /* the tile's 16 bytes */
   /* entries 1-2: global data, then its shared copy (write, 512 bytes allocated) */
   assert_true(f.f.pattern[1][1] == 1 && f.f.pattern[1][4] == 1 && f.f.pattern[1][22] == 0);
   assert_true(f.f.pattern[2][2] == 1 && f.f.pattern[2][5] == 1);
   assert_true(fabsf(f.f.pattern[2][22] - Features_slog(512)) < 1e-5f);
   /* entries 5-7: the update reads both copies and updates the tile; its float
    * operations are 2 x 2^18 */
   for (int i = 5; i < 8; i++)
      assert_true(fabsf(f.f.pattern[i][0] - Features_slog(2 * 262144)) < 1e-4f);
   assert_true(f.f.pattern[5][2] == 1 && f.f.pattern[6][2] == 1 && f.f.pattern[7][3] == 1);
   assert_true(f.f.pattern[7][6] == 1);                      /* readwrite */
   /* entries match the group-2 slots of their statements: entry 7 is the tile's slot,
    * the third by lines */
   int r = rowOf(&f, "T_dense_local");
   const float *slot = &f.f.row[r][FEAT_GROUP2 + 2 * FEATURE_BUF_LEN];
   assert_true(f.f.pattern[7][7] == slot[FBUF_BYTES] && f.f.pattern[7][9] == slot[FBUF_LINES]);
   assert_true(f.f.pattern[7][16] == slot[FBUF_REUSE_CT] && f.f.pattern[7][21] == slot[FBUF_STRIDE]);
   tearDown(&f);
}

/* ---- a small convolution ----
 * 2x4x4 input, 4 filters 3x3, pad 1, bias and relu fused. ff [1, 1, 4, 1], yy
 * [1, 2, 1, 2], xx [2, 1, 1, 2] (two virtual threads along x), rc, ry, rx [n, 1]:
 * grid 1, block 2, a tile of 2 x 4 x 4 = 32 floats; both copies take 36 rounds of 2
 * threads, the input's through the padding select. */
#define CONV_TASK "{op: conv2d, input: [2, 4, 4], filters: 4, kernel: 3, pad: 1, epilogue: [bias, relu], weight: 1}"
#define CONV_STATE "{\"v\":1,\"sketch\":0,\"knobs\":{\"conv2d_nchw.nn\":[1,1,1,1],\"conv2d_nchw.ff\":[1,1,4,1]," \
                   "\"conv2d_nchw.yy\":[1,2,1,2],\"conv2d_nchw.xx\":[2,1,1,2],\"conv2d_nchw.rc\":[2,1]," \
                   "\"conv2d_nchw.ry\":[3,1],\"conv2d_nchw.rx\":[3,1],\"kernel.shared.vector\":1," \
                   "\"pad_temp.shared.vector\":1,\"conv2d_nchw.unroll\":0}}"

static void test_conv_psa(void **state) {
   (void)state;
   Fixture f;
   setUp(&f, CONV_TASK, CONV_STATE);
   assert_int_equal(f.psa.nrows, 4);
   /* update: vthread 2 x rc 2 x ry 3 x rx 3 x ff 4 x yy 2 x xx 2 = 576 runs of 2 flops;
    * x 1 block x 2 threads = 2304 = 2 x 4 x 2 x 9 x 16. S = {vthread, ff, yy, xx}:
    * tile 32, input copy (vthread, yy, xx) 8, weights (ff) 4; over every loop: 32,
    * input (vthread, rc, ry, rx, yy, xx) 144, weights (rc, ry, rx, ff) 72 */
   double local[PSA_SYMBOLS] = { 1152, 2304, 44, 248, 0, 0, 1 + 1152.0 / 248, 1, 1, 2, 2 };
   checkPsaRow(&f, "conv2d_nchw_local", local);
   /* copies: S = {round} (36) x 2 threads = 72 floats, one fill, 288 bytes */
   double copy[PSA_SYMBOLS] = { 0, 0, 0, 0, 72, 288, 1, 1, 1, 2, 2 };
   checkPsaRow(&f, "kernel_shared", copy);
   checkPsaRow(&f, "pad_temp_shared", copy);
   /* output: the bias add, 2 x 4 x 2 x 2 = 32 per thread; S = {vthread, ff, yy, xx}:
    * output 32, tile 32, bias (ff) 4 */
   double out[PSA_SYMBOLS] = { 32, 64, 68, 68, 0, 0, 1 + 32.0 / 68, 1, 1, 2, 2 };
   checkPsaRow(&f, "T_relu", out);
   /* one block of 2 threads: a sixteenth of a warp, one of 432 sub-partitions */
   PsaRowCost c[4];
   double lat = Psa_latency(&f.psa, &a100, c);
   double tp = 19490 * (1.0 / 432) * (2.0 / 32);
   double t0 = 2304 * (1 + 248.0 / 1400) / tp / 1e6;
   double t3 = 64 * (1 + 68.0 / 100) / tp / 1e6;
   double tm = 288 / (1555 * 1e6);
   assert_true(fabs(c[0].warpPenalty - 0.0625) < 1e-12);
   assert_true(fabs(c[0].peakPenalty - 1.0 / 432) < 1e-12);
   assert_true(fabs(c[0].tComp - t0) < 1e-15 && fabs(c[3].tComp - t3) < 1e-15);
   assert_true(fabs(lat - (t0 + 2 * tm + t3)) < 1e-15);
   tearDown(&f);
}

static void test_conv_features(void **state) {
   (void)state;
   Fixture f;
   setUp(&f, CONV_TASK, CONV_STATE);
   assert_int_equal(f.f.nrows, 4);
   /* update: block 1, vthread 2, thread 2, rc 2, ry 3, rx 3, ff 4, yy 2, xx 2: outer
    * 1152. Index arithmetic: tile ff x 4 + yy x 2 + xx (2 adds, 2 muls); input copy
    * [0, rc, tx x 2 + yy + ry, xx + rx] (3 adds, 1 mul); weights [ff, rc, ry, rx]. */
   RowExpect local = {
      "conv2d_nchw_local",
      { { 1, 1152 }, { 2, 1152 }, { 8, 5 * 1152 }, { 9, 3 * 1152 },
        { 157, 128 }, { 158, 32 * 4 }, { 159, 4 }, { 160, 288 },          /* per thread: 1 x 2 x 2 */
        { 161, 1152 }, { 162, 9 }, { 163, 0 } },
      3,
      {
         /* weights: x and y do not move them, ff does by 2 x 3 x 3 = 18 floats:
          * 1152 / (2 x 2) lines; 72 floats, rows of 3; reused at x (3 accesses) */
         { 0, 4608, 288, 288, 24, 0, 1, 12, 2, 0 },
         /* the tile: both virtual threads' halves, 32 floats in 2 lines; reused over rx
          * after ff, yy, xx (16 iterations, 96 bytes) */
         { 2, 4608, 128, 72, 2, 0, 16, 96, 3, 1 },
         /* the input copy: the union of the two virtual threads' columns is all 6;
          * reused over ff after yy, xx (4 iterations, 36 bytes) */
         { 0, 4608, 288, 72, 12, 0, 4, 36, 4, 1 },
      },
   };
   checkRow(&f, &local, 1, 2, 2);
   /* weight copy: kernel_i = round x 2 + tx read in 4 dimensions: kernel_i / 18,
    * kernel_i / 9 % 2, kernel_i / 3 % 3, kernel_i % 3: 4 adds, 4 muls, 6 divisions per
    * store; outer 1 x 2 x 2 x 36 = 144 */
   RowExpect weights = {
      "kernel_shared",
      { { 8, 4 * 144 }, { 9, 4 * 144 }, { 10, 6 * 144 },
        { 157, 288 }, { 158, 72 * 4 }, { 159, 4 }, { 160, 36 },
        { 161, 144 }, { 162, 4 }, { 163, 0 } },
      2,
      {
         /* Ansor's stride of round in kernel_i % 3 is its factor 2: 144 x 8 / 64 lines;
          * reused over the virtual threads (2) after round and tx (72 iterations; 640
          * bytes recorded under threadIdx: the tile's init 64, this copy 576) */
         { 1, 576, 288, 18, 24, 0, 72, 640, 2, 2 },
         { 0, 576, 288, 18, 24, 0, 72, 640, 2, 2 },
      },
   };
   checkRow(&f, &weights, 1, 2, 2);
   /* input copy: the select's condition (4 comparisons, 3 ands, a = pad_i / 6 % 6 and
    * b = pad_i % 6 twice each) and the load [0, pad_i / 36, a - 1, b - 1]: 9 adds and
    * subtractions, 7 muls, 10 divisions, 4 comparisons, 3 ands, 1 select per store */
   RowExpect input = {
      "pad_temp_shared",
      { { 8, 9 * 144 }, { 9, 7 * 144 }, { 10, 10 * 144 }, { 11, 4 * 144 }, { 14, 3 * 144 },
        { 15, 144 },
        { 157, 288 }, { 158, 72 * 4 }, { 159, 4 }, { 160, 36 },
        { 161, 144 }, { 162, 4 }, { 163, 0 } },
      2,
      {
         /* 1216 bytes under threadIdx: init 64, the weight copy 576, this copy 576 */
         { 1, 576, 288, 18, 12, 0, 72, 1216, 2, 2 },
         /* the input: the copy's rows run one past each edge (6 of 4), so only the
          * channel dimension is whole: lines of 2 x 4 bytes, 288 / 8 */
         { 0, 576, 288, 18, 36, 0, 72, 1216, 2, 2 },
      },
   };
   checkRow(&f, &input, 1, 2, 2);
   /* output: outer 1 x 2 x 2 x 4 x 2 x 2 = 64; max(tile + bias, 0): a float add and
    * a comparison; the tile index (2 adds, 2 muls) */
   RowExpect out = {
      "T_relu",
      { { 1, 64 }, { 4, 64 }, { 8, 128 }, { 9, 128 }, { 161, 64 }, { 162, 6 }, { 163, 0 } },
      3,
      {
         /* 4 x 4 x 4 outputs; moved by every loop but blockIdx (grid 1): reuse 1 there
          * after 64 iterations and 2384 bytes (every access of the kernel, with both
          * virtual threads) */
         { 1, 256, 256, 4, 16, 0, 64, 2384, 1, 1 },
         /* the tile: reused by the 2 threads after ff, yy, xx (16, 144 bytes) */
         { 0, 256, 128, 4, 2, 0, 16, 144, 2, 1 },
         /* bias: moved only by ff (ratio 2 x 2): one line; reused at x */
         { 0, 256, 16, 1, 1, 0, 1, 12, 2, 0 },
      },
   };
   checkRow(&f, &out, 1, 2, 2);
   /* the pattern: init (2), weight copy (0 1), input copy (0 1), update (1 1 2) */
   assert_int_equal(f.f.patternAt, 0);
   assert_int_equal(f.f.sequenceLength, 11);
   static const int loc[PATTERN_LEN] = { 2, 0, 1, 0, 1, 1, 1, 2 };
   for (int i = 0; i < PATTERN_LEN; i++)
      for (int k = 0; k < 3; k++)
         assert_true(f.f.pattern[i][1 + k] == (k == loc[i]));
   tearDown(&f);
}

/* ---- states without the pattern ---- */

static void test_pool_has_no_pattern(void **state) {
   (void)state;
   Fixture f;
   /* 2x4x4, window 2 stride 2: 2 x 2 x 2 outputs, one thread each, one block */
   setUp(&f, "{op: max_pool2d, input: [2, 4, 4], kernel: 2, stride: 2, weight: 1}",
         "{\"v\":1,\"sketch\":0,\"knobs\":{\"pool_max.unroll\":0}}");
   assert_int_equal(f.f.patternAt, -1);
   for (int i = 0; i < PATTERN_LEN; i++)
      for (int j = 0; j < PATTERN_WIDTH; j++)
         assert_true(f.f.pattern[i][j] == 0);
   /* rows: the running max (init, update) and the output */
   assert_int_equal(f.psa.nrows, 2);
   /* update: per thread rv0 2 x rv1 2 runs of a max, which PSA does not count: not a
    * compute store, and not shared: 4 x 1 block x 8 threads x 4 bytes */
   double acc[PSA_SYMBOLS] = { 0, 0, 0, 0, 0, 128, 1, 1, 1, 8, 1 };
   checkPsaRow(&f, "pool_max_local", acc);
   double out[PSA_SYMBOLS] = { 0, 0, 0, 0, 0, 32, 1, 1, 1, 8, 1 };
   checkPsaRow(&f, "pool_max", out);
   /* the update: outer 1 x 8 x 2 x 2 = 32; a float max per run; the input's index
    * [ax1, ax2 x 2 + rv0, ax3 x 2 + rv1] with ax1 = tx / 4, ax2 = tx / 2 % 2,
    * ax3 = tx % 2: 2 adds, 2 muls, 4 divisions */
   RowExpect update = {
      "pool_max_local",
      { { 4, 32 }, { 8, 64 }, { 9, 64 }, { 10, 128 }, { 157, 4 }, { 158, 8 }, { 159, 8 }, { 160, 4 },
        { 161, 32 }, { 162, 4 }, { 163, 0 } },
      2,
      {
         /* the input: all 2 x 4 x 4 floats; rv1 moves it by 1: 32 x 4 / 64 lines; rows
          * of 4 whole: 128 / 16 lines; every loop but blockIdx (grid 1) moves it: reuse 1
          * there after 32 iterations and every byte of the kernel (init 4, input 128,
          * running max 4) */
         { 0, 128, 128, 2, 8, 0, 32, 136, 1, 1 },
         /* the running max: reused at rv1, the innermost loop (2 accesses x 4 bytes) */
         { 2, 128, 4, 1, 1, 0, 1, 8, 2, 0 },
      },
   };
   checkRow(&f, &update, 1, 8, 1);
   tearDown(&f);
}

static void test_softmax_has_no_pattern(void **state) {
   (void)state;
   Fixture f;
   /* 4 rows of 64, both reductions across 32 threads: a max kernel of 4 blocks, and
    * the sum attached to the normalization, 2 blocks per row */
   setUp(&f, "{op: softmax, input: [4, 64], weight: 1}",
         "{\"v\":1,\"sketch\":0,\"knobs\":{\"T_softmax_maxelem.threads\":32,\"T_softmax_norm.threads\":32,"
         "\"T_softmax_maxelem.unroll\":0,\"T_softmax_expsum.unroll\":0}}");
   assert_int_equal(f.f.patternAt, -1);
   for (int i = 0; i < PATTERN_LEN; i++)
      for (int j = 0; j < PATTERN_WIDTH; j++)
         assert_true(f.f.pattern[i][j] == 0);
   assert_int_equal(f.psa.nrows, 6);
   /* max: 2 rounds of a max per thread (not counted): 2 x 4 x 32 x 4 bytes; the
    * cross-thread combine and the store of one value per block's threads */
   double maxLocal[PSA_SYMBOLS] = { 0, 0, 0, 0, 0, 1024, 1, 1, 4, 32, 1 };
   double maxRed[PSA_SYMBOLS] = { 0, 0, 0, 0, 0, 512, 1, 1, 4, 32, 1 };
   checkPsaRow(&f, "T_softmax_maxelem_local", maxLocal);
   checkPsaRow(&f, "T_softmax_maxelem_red", maxRed);
   checkPsaRow(&f, "T_softmax_maxelem", maxRed);
   /* sum: acc + exp(x - max), an add and a subtraction, 2 rounds: 4 per thread, x 8
    * blocks x 32; S = {} (the accumulator is one register): 1 + 1 + 1; the input moves
    * with the rounds: 1 + 2 + 1 */
   double sumLocal[PSA_SYMBOLS] = { 4, 1024, 3, 4, 0, 0, 2, 1, 8, 32, 1 };
   checkPsaRow(&f, "T_softmax_expsum_local", sumLocal);
   /* the combine, one add per thread */
   double sumRed[PSA_SYMBOLS] = { 1, 256, 2, 2, 0, 0, 1.5, 1, 8, 32, 1 };
   checkPsaRow(&f, "T_softmax_expsum_red", sumRed);
   /* exp(x - max) / sum: a subtraction and a division */
   double norm[PSA_SYMBOLS] = { 2, 512, 4, 4, 0, 0, 1.5, 1, 8, 32, 1 };
   checkPsaRow(&f, "T_softmax_norm", norm);
   /* features of the sum: outer 8 x 32 x 2 = 512: add, subtraction and exp per run;
    * indices [ax1, round x 32 + tx] and [ax1], ax1 = bx / 2 */
   RowExpect sum = {
      "T_softmax_expsum_local",
      { { 1, 1024 }, { 5, 512 }, { 8, 512 }, { 9, 512 }, { 10, 1024 },
        { 157, 4 }, { 158, 256 }, { 159, 256 }, { 160, 2 }, { 161, 512 }, { 162, 3 }, { 163, 0 } },
      3,
      {
         /* the input: 4 x 64 floats; round moves it by 32 (a line each); every loop
          * moves it */
         { 0, 2048, 1024, 512, 16, 2, 0, 0, 0, 32 },
         /* the row max: only blockIdx moves it (bx / 2 reads as coefficient 1 to
          * Ansor's extractor, which sees no multiplication or addition):
          * 512 / (2 x 2) x 4 / 64 = 8 lines; one line of 4 floats; reused at round, the
          * innermost loop (3 accesses x 4 bytes) */
         { 0, 2048, 16, 8, 1, 0, 1, 12, 2, 0 },
         /* the accumulator: no loop moves it: one line; reused at round */
         { 2, 2048, 4, 1, 1, 0, 1, 12, 2, 0 },
      },
   };
   checkRow(&f, &sum, 8, 32, 1);
   tearDown(&f);
}

/* ---- every sketch kind: finite, deterministic, thread-safe ---- */

typedef struct {
   const SketchSet *set;
   const State *states;
   int n;
   float (*rows)[FEATURE_LEN];   /* row 0 of each state */
   double *psa;
} Job;

static void *runJob(void *arg) {
   Job *j = arg;
   Analysis *a = Analysis_new();
   LoopNest ln;
   LoopNest_init(&ln);
   PsaSymbols *psa = xMalloc(sizeof *psa);
   Features *f = xMalloc(sizeof *f);
   for (int i = 0; i < j->n; i++) {
      Lower_state(j->set, &j->states[i], &ln);
      Analysis_run(a, &ln, psa, f);
      memcpy(j->rows[i], f->row[f->nrows - 1], sizeof j->rows[i]);
      j->psa[i] = Psa_score(psa, &a100);
   }
   free(f);
   free(psa);
   LoopNest_done(&ln);
   Analysis_free(a);
   return NULL;
}

static void test_every_kind_is_finite_and_deterministic(void **state) {
   (void)state;
   Network net;
   char *cause = NULL;
   TestUtil_loadNetwork(&net, "tests/data/every-kind.task");
   Analysis *a = Analysis_new();
   LoopNest ln;
   LoopNest_init(&ln);
   PsaSymbols *psa = xMalloc(sizeof *psa), *psa2 = xMalloc(sizeof *psa2);
   Features *f = xMalloc(sizeof *f), *f2 = xMalloc(sizeof *f2);
   bool kinds[3] = { false, false, false };
   for (int t = 0; t < net.ntasks; t++) {
      Dag g;
      Dag_init(&g);
      Op_buildDag(&net.tasks[t].op, &g);
      SketchSet set;
      SketchSet_generate(&set, &g);
      enum { N = 12 };
      State states[N];
      Rng rng;
      Rng_seed(&rng, 40 + (uint64_t)t);
      for (int i = 0; i < N; i++) {
         if (State_sampleValid(&set, i % set.count, &rng, &limits, 100000, &states[i], &cause) < 0)
            fail_msg("task %d: %s", t, cause);
         for (int k = 0; k < set.sketches[states[i].sketch].nkernels; k++)
            kinds[set.sketches[states[i].sketch].kernels[k].kind] = true;
         Lower_state(&set, &states[i], &ln);
         Analysis_run(a, &ln, psa, f);
         assert_true(f->nrows > 0 && f->nrows == psa->nrows);
         for (int r = 0; r < f->nrows; r++) {
            for (int k = 0; k < FEATURE_LEN; k++)
               if (!isfinite(f->row[r][k]))
                  fail_msg("task %d state %d row %d entry %d is %f", t, i, r, k, f->row[r][k]);
            for (int k = 0; k < PSA_SYMBOLS; k++)
               assert_true(isfinite(psa->rows[r].sym[k]));
         }
         double score = Psa_score(psa, &a100);
         assert_true(isfinite(score) && score > 0);
         /* a second run of the same nest, after other states, is bit-identical */
         Analysis_run(a, &ln, psa2, f2);
         assert_int_equal(f2->nrows, f->nrows);
         assert_memory_equal(f2->row, f->row, (size_t)f->nrows * sizeof f->row[0]);
         assert_memory_equal(f2->pattern, f->pattern, sizeof f->pattern);
         assert_memory_equal(psa2->rows, psa->rows, (size_t)psa->nrows * sizeof psa->rows[0]);
      }
      /* two threads over the same states give the same vectors */
      Job jobs[2];
      pthread_t th[2];
      for (int k = 0; k < 2; k++) {
         jobs[k] = (Job){ &set, states, N, xCalloc(N, sizeof(float[FEATURE_LEN])), xCalloc(N, sizeof(double)) };
         pthread_create(&th[k], NULL, runJob, &jobs[k]);
      }
      for (int k = 0; k < 2; k++)
         pthread_join(th[k], NULL);
      assert_memory_equal(jobs[0].rows, jobs[1].rows, N * sizeof(float[FEATURE_LEN]));
      assert_memory_equal(jobs[0].psa, jobs[1].psa, N * sizeof(double));
      for (int k = 0; k < 2; k++) {
         free(jobs[k].rows);
         free(jobs[k].psa);
      }
      SketchSet_done(&set);
      Dag_done(&g);
   }
   assert_true(kinds[KERNEL_MLT] && kinds[KERNEL_SIMPLE] && kinds[KERNEL_CTR]);
   free(f);
   free(f2);
   free(psa);
   free(psa2);
   LoopNest_done(&ln);
   Analysis_free(a);
   Network_done(&net);
}

/* ---- a Tensor-Core dense state ----
 * dense 32x32x32 in fp16, one warp of one 16x8 fragment per block, k tile 16: grid
 * 2 x 4 = 8 blocks of 32 threads, k_outer 2; the shared tiles have rows of 16 + 4
 * padding floats (data_shared 16 x 20, weight_shared 8 x 20). The warp's one mma per k
 * step reads data_shared from 0 and weight_shared from 0: its indices are constants. */
#define TC_TASK "{op: dense, m: 32, n: 32, k: 32, weight: 1}"
#define TC_STATE "{\"v\":1,\"sketch\":%d,\"precision\":\"fp16\",\"knobs\":{\"T_dense.tc.m\":[1,1]," \
                 "\"T_dense.tc.n\":[1,1],\"T_dense.tc.k\":1}}"
/* an FP32 state of the same block tile (16 x 8 of 32 threads, a 2 x 2 register tile) and
 * k tile (16) */
#define TC_FP32_STATE "{\"v\":1,\"sketch\":0,\"knobs\":{\"T_dense.i\":[1,8,1,2],\"T_dense.j\":[1,4,1,2]," \
                      "\"T_dense.k\":[2,8],\"data.shared.vector\":1,\"weight.shared.vector\":1,\"T_dense.unroll\":0}}"

static void setUpTc(Fixture *f) {
   static const SketchOptions fp16 = { PRECISION_BIT(PRECISION_FP16), false };
   /* the fp16 sketch follows Ansor's */
   TestUtil_buildTask(&f->net, &f->g, &f->set, TC_TASK);
   int sketch = f->set.count;
   SketchSet_done(&f->set);
   Dag_done(&f->g);
   Network_done(&f->net);
   char text[256];
   snprintf(text, sizeof text, TC_STATE, sketch);
   setUpWith(f, TC_TASK, text, &fp16);
}

static void psaParams(PsaParams *p, const char *device) {
   DeviceSet devices;
   TestUtil_loadDevices(&devices);
   char *cause = NULL;
   if (PsaParams_fromDevice(p, DeviceSet_find(&devices, device), &cause) < 0)
      fail_msg("%s", cause);
   DeviceSet_done(&devices);
}

static void test_tensor_core_psa(void **state) {
   (void)state;
   Fixture f;
   setUpTc(&f);
   assert_int_equal(f.psa.nrows, 4);
   /* the mma: 16 x 8 x 16 multiply-adds per warp, 64 adds and 64 muls per thread, twice
    * (k_outer): 256; x 8 blocks x 32 threads = 65536 = 2 x 32^3, the dense's FLOPs.
    * S = {} (the accumulator index is constant): 1 per buffer, 3; MemWorkload: k_outer
    * moves none of the three: 3. DataReuse 1 + 256 / 3. */
   double local[PSA_SYMBOLS] = { 256, 65536, 3, 3, 0, 0, 1 + 256.0 / 3, 1, 8, 32, 1 };
   checkPsaRow(&f, "T_dense_local", local);
   assert_int_equal(psaRow(&f, "T_dense_local")->precision, PRECISION_FP16);
   /* data copy: 8 rounds x 32 threads = 256 floats per stage, x 2 stages x 8 blocks x 4
    * bytes = 16384 (the 4 KiB of data read by each of the 4 block columns); weight 4
    * rounds: 128, 8192 */
   double data[PSA_SYMBOLS] = { 0, 0, 0, 0, 256, 16384, 1, 1, 8, 32, 1 };
   checkPsaRow(&f, "data_shared", data);
   assert_int_equal(psaRow(&f, "data_shared")->precision, PRECISION_FP32);
   double weight[PSA_SYMBOLS] = { 0, 0, 0, 0, 128, 8192, 1, 1, 8, 32, 1 };
   checkPsaRow(&f, "weight_shared", weight);
   /* the output: 4 per thread x 8 x 32 x 4 bytes */
   double out[PSA_SYMBOLS] = { 0, 0, 0, 0, 0, 4096, 1, 1, 8, 32, 1 };
   checkPsaRow(&f, "T_dense", out);

   /* a100_40 (cc 8.0, 108 SMs at 1410 MHz): FP16 Tensor Cores 2048 FLOPs per SM per
    * clock, 2048 x 108 x 1.41 = 311869.44 GFLOP/s */
   PsaParams p;
   psaParams(&p, "a100_40");
   assert_true(fabs(p.tensorPeakGflops[PRECISION_FP16] - 311869.44) < 1e-6);
   assert_true(fabs(p.tensorPeakGflops[PRECISION_TF32] - 155934.72) < 1e-6);
   assert_true(p.tensorPeakGflops[PRECISION_FP32] == 0);
   /* 8 blocks < 108 SMs, one warp each: units 8 of 4 x 108 = 432; DataReuse 259 / 3,
    * thread penalty 1 + 3 / 259; t_comp = 65536 x 262 / 259 / (311869.44 x 8 / 432)
    * / 10^6 = 1.147896e-5 ms */
   PsaRowCost c[4];
   double lat = Psa_latency(&f.psa, &p, c);
   double threadPenalty = 1 + 3.0 / 259;
   double tComp = 65536 * threadPenalty / (311869.44 * 8 / 432) / 1e6;
   assert_true(fabs(c[0].threadPenalty - threadPenalty) < 1e-12);
   assert_true(fabs(c[0].peakPenalty - 8.0 / 432) < 1e-12);
   assert_true(fabs(c[0].tComp - tComp) < 1e-15);
   assert_true(fabs(tComp - 1.147896e-5) < 1e-10);
   double tMem = (16384 + 8192 + 4096) / (1555 * 1e6);
   assert_true(fabs(lat - (tComp + tMem)) < 1e-15);
   /* with the FP32 peak instead (a device without Tensor Cores in fp16): 16 times slower */
   PsaParams noTc = p;
   noTc.tensorPeakGflops[PRECISION_FP16] = 0;
   Psa_latency(&f.psa, &noTc, c);
   assert_true(fabs(c[0].tComp - tComp * 311869.44 / 19490) < 1e-15);
   tearDown(&f);
}

static void test_tensor_core_features(void **state) {
   (void)state;
   Fixture f;
   setUpTc(&f);
   /* outer_prod of the mma: 8 x 32 x 2 = 512. Per execution 64 float adds and 64 muls
    * (its indices are constants: no integer operations): 32768 each. The zero fill
    * computes nothing. The FP16 tiles hold 2-byte elements in rows of 16 + 8. Accesses
    * of the last store, the mma, sorted by (lines, bytes), ties in buffer order: every
    * stride is 0, so 1 line each; the accumulators (readwrite, made first) 4 floats per
    * execution, 512 x 4 x 4 = 8192 bytes, 4 elements = 16 bytes, the whole buffer (one
    * line); data_shared reads 16 x 16 / 32 = 8 elements per execution, 512 x 8 x 2 =
    * 8192 bytes, over the region 0 .. 15 x 24 + 15 (376 elements, 752 bytes; the row is
    * not covered whole: 376 unique lines); weight_shared 8 x 16 / 32 = 4 per execution,
    * 4096 bytes, 7 x 24 + 16 = 184 elements, 368 bytes. Each is reused by k_outer (2),
    * which moves none of them: at 7 recorded accesses x 4 bytes under it (the two
    * copies' 2 each and the mma's 3; Ansor counts a float an access there whatever the
    * element). Allocation of T_dense_local: 4 floats, live under blockIdx.x and
    * threadIdx.x (256), the mma's 512 over 256: 2. */
   RowExpect local = {
      "T_dense_local",
      { { 1, 32768 }, { 2, 32768 },
        { FEAT_GROUP4, 16 }, { FEAT_GROUP4 + 1, 1024 }, { FEAT_GROUP4 + 2, 256 }, { FEAT_GROUP4 + 3, 2 },
        { FEAT_GROUP5, 512 }, { FEAT_GROUP5 + 1, 3 }, { 0, 0 } },
      3,
      { { 2, 8192, 16, 1, 1, 0, 1, 28, 2, 0 },
        { 0, 8192, 752, 1, 376, 0, 1, 28, 2, 0 },
        { 0, 4096, 368, 1, 184, 0, 1, 28, 2, 0 } },
   };
   checkRow(&f, &local, 8, 32, 1);
   /* arithmetic intensity: 128 operations per mma over 376 x 2 + 4 x 4 + 184 x 2 = 1136
    * bytes at every level (no loop moves an access); the last point, over the whole
    * kernel, 65536 / 1136 */
   const float *row = f.f.row[rowOf(&f, "T_dense_local")];
   assert_true(fabsf(row[FEAT_GROUP3 + 9] - Features_slog(65536.0 / 1136)) < 1e-5f);
   assert_true(fabsf(row[FEAT_GROUP3] - Features_slog(256.0 / 1136 + (8192.0 / 1136 - 256.0 / 1136) *
                                                                         (6553.6 - 256) / (8192 - 256))) < 1e-5f);
   tearDown(&f);
}

/* The FP32 state of the same tiles: the same FLOPs, its rows take the FP32 peak whatever
 * the Tensor-Core peaks, so PSA ranks the fp16 state first on a100_40; and the FP32
 * 64x64x64 state's latency is the same bits with or without the Tensor-Core peaks. */
static void test_tensor_core_ranks_first(void **state) {
   (void)state;
   PsaParams p, noTc;
   psaParams(&p, "a100_40");
   noTc = p;
   memset(noTc.tensorPeakGflops, 0, sizeof noTc.tensorPeakGflops);
   Fixture tc, fp32, matmul;
   setUpTc(&tc);
   setUp(&fp32, TC_TASK, TC_FP32_STATE);
   setUp(&matmul, MATMUL_TASK, MATMUL_STATE);
   assert_true(psaRow(&fp32, "T_dense_local")->sym[PSA_COMPUTE_WORKLOAD] == 65536);
   for (int r = 0; r < fp32.psa.nrows; r++)
      assert_int_equal(fp32.psa.rows[r].precision, PRECISION_FP32);
   PsaRowCost cTc[IR_MAX_BUFFERS], cFp32[IR_MAX_BUFFERS];
   Psa_latency(&tc.psa, &p, cTc);
   Psa_latency(&fp32.psa, &p, cFp32);
   int rTc = (int)(psaRow(&tc, "T_dense_local") - tc.psa.rows);
   int rFp32 = (int)(psaRow(&fp32, "T_dense_local") - fp32.psa.rows);
   assert_true(cTc[rTc].tComp * 4 < cFp32[rFp32].tComp);
   assert_true(Psa_score(&tc.psa, &p) > Psa_score(&fp32.psa, &p));
   assert_true(Psa_latency(&fp32.psa, &p, NULL) == Psa_latency(&fp32.psa, &noTc, NULL));
   assert_true(Psa_latency(&matmul.psa, &p, NULL) == Psa_latency(&matmul.psa, &a100, NULL));
   tearDown(&tc);
   tearDown(&fp32);
   tearDown(&matmul);
}

/* Two analyses of each nest, to check that a second run is bit-identical. */
typedef struct {
   Analysis *a;
   LoopNest ln;
   PsaSymbols psa[2];
   Features f[2];
} Twice;

/* Lowers s, runs the analysis twice and checks that every value is finite and the same
 * in both runs; the results are in tw->psa[0] and tw->f[0]. */
static void analyseTwice(Twice *tw, const SketchSet *set, const State *s) {
   Lower_state(set, s, &tw->ln);
   for (int k = 0; k < 2; k++)
      Analysis_run(tw->a, &tw->ln, &tw->psa[k], &tw->f[k]);
   const PsaSymbols *psa = &tw->psa[0];
   const Features *f = &tw->f[0];
   for (int r = 0; r < psa->nrows; r++)
      for (int k = 0; k < PSA_SYMBOLS; k++)
         assert_true(isfinite(psa->rows[r].sym[k]));
   for (int r = 0; r < f->nrows; r++)
      for (int k = 0; k < FEATURE_LEN; k++)
         assert_true(isfinite(f->row[r][k]));
   assert_memory_equal(tw->f[1].row, f->row, (size_t)f->nrows * sizeof f->row[0]);
   assert_memory_equal(tw->psa[1].rows, psa->rows, (size_t)psa->nrows * sizeof psa->rows[0]);
}

/* Sampled Tensor-Core states of dense, batch_matmul and an implicit-GEMM conv2d in every
 * precision: the mma row is a compute row in its precision whose ComputeWorkload is
 * 2 x the padded tile volume (batch x gridM blockM x gridN blockN x stagesK blockK),
 * every value is finite and a second run is bit-identical. */
static void test_tensor_core_states(void **state) {
   (void)state;
   static const SketchOptions every = { PRECISION_BIT(PRECISION_FP16) | PRECISION_BIT(PRECISION_BF16) |
                                        PRECISION_BIT(PRECISION_TF32), false };
   static const char *const tasks[] = {
      "{op: dense, m: 33, n: 47, k: 70, weight: 1}",
      "{op: batch_matmul, b: 3, m: 17, n: 9, k: 30, epilogue: [bias, relu], weight: 1}",
      "{op: conv2d, input: [7, 10, 10], filters: 9, kernel: 3, pad: 1, weight: 1}",
   };
   Twice *tw = xCalloc(1, sizeof *tw);
   tw->a = Analysis_new();
   LoopNest_init(&tw->ln);
   for (size_t t = 0; t < sizeof tasks / sizeof tasks[0]; t++) {
      Network net;
      Dag g;
      SketchSet set;
      TestUtil_buildTask(&net, &g, &set, tasks[t]);
      SketchSet_done(&set);
      SketchSet_generateWith(&set, &g, &every);
      Rng rng;
      Rng_seed(&rng, 70 + (uint64_t)t);
      int seen = 0;
      for (int sk = 0; sk < set.count; sk++) {
         if (set.sketches[sk].precision == PRECISION_FP32)
            continue;
         for (int n = 0; n < 4; n++) {
            State st;
            char *cause = NULL;
            if (State_sampleValid(&set, sk, &rng, &limits, 100000, &st, &cause) < 0)
               fail_msg("task %zu sketch %d: %s", t, sk, cause);
            analyseTwice(tw, &set, &st);
            const PsaSymbols *psa = &tw->psa[0];
            int tcRows = 0;
            for (int r = 0; r < psa->nrows; r++) {
               if (psa->rows[r].precision == PRECISION_FP32)
                  continue;
               tcRows++;
               assert_int_equal(psa->rows[r].precision, set.sketches[sk].precision);
               for (int k = 0; k < set.sketches[sk].nkernels; k++) {
                  if (set.sketches[sk].kernels[k].kind != KERNEL_TC)
                     continue;
                  TcTile tile;
                  State_tcTile(&set, &st, k, &tile);
                  /* the padded work: split-K's blocks each run stagesPerSplit stages */
                  double volume = (double)tile.batch * tile.gridM * tile.blockM * tile.gridN * tile.blockN *
                                  tile.split * tile.stagesPerSplit * tile.blockK;
                  assert_true(psa->rows[r].sym[PSA_COMPUTE_WORKLOAD] == 2 * volume);
               }
            }
            assert_int_equal(tcRows, 1);
            seen++;
         }
      }
      assert_int_equal(seen, 12);
      SketchSet_done(&set);
      Dag_done(&g);
      Network_done(&net);
   }
   LoopNest_done(&tw->ln);
   Analysis_free(tw->a);
   free(tw);
}

static void test_workload_embedding(void **state) {
   (void)state;
   static const struct {
      OpKind op;
      int64_t groups;
      EpilogueKind epilogue;
      float want[WORKLOAD_LEN];
   } cases[] = {
      /* depthwise (8 groups of the 8 channels): relu6 is a max and a min */
      { OP_CONV2D, 8, EPI_RELU6, { 1, 1, 0, 0, 0, 1, 0, 0, 0, 0 } },
      { OP_BATCH_MATMUL, 1, EPI_BIAS, { 0, 0, 1, 0, 0, 0, 0, 0, 1, 0 } },
      /* hardswish and hardsigmoid clip x + 3 to [0, 6]: a max, a min and an add */
      { OP_CONV2D, 1, EPI_HARDSWISH, { 1, 1, 1, 1, 0, 0, 0, 0, 0, 0 } },
      { OP_CONV2D, 1, EPI_HARDSIGMOID, { 1, 1, 1, 1, 0, 0, 0, 0, 0, 0 } },
      /* sigmoid is a call, none of the three */
      { OP_DENSE, 1, EPI_SIGMOID, { 0, 0, 0, 0, 0, 0, 1, 0, 0, 0 } },
   };
   for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      OpParams p;
      Op_defaults(&p, cases[i].op);
      p.in_c = 8;
      p.groups = cases[i].groups;
      p.nepilogue = 1;
      p.epilogue[0].kind = cases[i].epilogue;
      float w[WORKLOAD_LEN];
      Features_workload(&p, w);
      assert_memory_equal(w, cases[i].want, sizeof w);
   }
}

int main(void) {
   SchedLimits_default(&limits);
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matmul_psa),
      cmocka_unit_test(test_matmul_features),
      cmocka_unit_test(test_epilogue_operation_counts),
      cmocka_unit_test(test_matmul_pattern),
      cmocka_unit_test(test_conv_psa),
      cmocka_unit_test(test_conv_features),
      cmocka_unit_test(test_pool_has_no_pattern),
      cmocka_unit_test(test_softmax_has_no_pattern),
      cmocka_unit_test(test_every_kind_is_finite_and_deterministic),
      cmocka_unit_test(test_workload_embedding),
      cmocka_unit_test(test_tensor_core_psa),
      cmocka_unit_test(test_tensor_core_features),
      cmocka_unit_test(test_tensor_core_ranks_first),
      cmocka_unit_test(test_tensor_core_states),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
