/* The simulator and the verification module: bit-identical latencies for one nest and
 * the jitter's bound; blocks per SM computed by hand for the register, shared-memory,
 * thread and block limits; the rankings the model must get right on hand-made nests
 * (coalescing, occupancy, small grids, spills, bank conflicts); every sampled state of
 * ResNet-50 above its roofline bound; the errors for what a device cannot run or a
 * profile does not say; and Verify_loopNest catching a wrong kernel with the element it
 * names. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "ir/exec.h"
#include "ir/lower.h"
#include "sim/sim.h"
#include "measure/verify.h"
#include "te/network.h"
#include "util/xalloc.h"

static DeviceSet devices;
static const Device *h100;
static SchedLimits limits;

static int setupDevices(void **state) {
   (void)state;
   TestUtil_loadDevices(&devices);
   h100 = DeviceSet_find(&devices, "h100_sxm");
   assert_non_null(h100);
   return 0;
}

static int teardownDevices(void **state) {
   (void)state;
   DeviceSet_done(&devices);
   return 0;
}

static double simulate(const Device *d, const LoopNest *ln, const SimCompiled *ptx, SimReport *r) {
   const SimCompiled *per[IR_MAX_KERNELS] = { ptx };
   char *cause = NULL;
   double s = Sim_latency(d, ln, per, 42, r, &cause);
   if (s < 0)
      fail_msg("%s", cause);
   assert_true(isfinite(s) && s > 0);
   return s;
}

static SimCompiled ptxas(int registers, int spillStores, int spillLoads) {
   SimCompiled k;
   memset(&k, 0, sizeof k);
   k.registers = registers;
   k.spillStores = spillStores;
   k.spillLoads = spillLoads;
   return k;
}

/* ---- hand-made nests ---- */

static int globalBuffer(LoopNest *ln, const char *name, int64_t elems, bool input) {
   int b = Ir_buffer(ln, name, SCOPE_GLOBAL, -1, -1, 1, &elems);
   ln->buffers[b].input = input;
   ln->buffers[b].output = !input;
   return b;
}

static int32_t add(LoopNest *ln, int32_t a, int32_t b) {
   return Ir_binary(ln, EXPR_ADD, a, b);
}

static int32_t mul(LoopNest *ln, int32_t a, int64_t c) {
   return Ir_binary(ln, EXPR_MUL, a, Ir_int(ln, c));
}

/* i = blockIdx.x * block + threadIdx.x, as a LET; its statement goes to *let. */
static int32_t globalIndex(LoopNest *ln, const IrKernel *kn, int32_t *let) {
   int v = Ir_var(ln, VAR_LET, "i", 0);
   int32_t i = add(ln, mul(ln, Ir_varRef(ln, kn->blockVar), kn->block), Ir_varRef(ln, kn->threadVar));
   *let = Ir_let(ln, v, i);
   return Ir_varRef(ln, v);
}

/* out[i] = f(in[g(i)]) over n floats in blocks of `block`: f an intrinsic `call`, or
 * none for -1; g(i) = i, or with stride 32 over threadIdx.x, g(i) = (i mod 32) *
 * (n / 32) + i / 32 (the same permutation of the elements, so the same footprint). */
static void mapNest(LoopNest *ln, int64_t n, int64_t block, bool strided, int call) {
   LoopNest_reset(ln);
   int in = globalBuffer(ln, "in", n, true);
   int out = globalBuffer(ln, "out", n, false);
   IrKernel *kn = Ir_kernel(ln, "copy_kernel", -1, n / block, block);
   int32_t let;
   int32_t i = globalIndex(ln, kn, &let);
   int32_t src = i;
   if (strided)
      src = add(ln, mul(ln, Ir_binary(ln, EXPR_FLOORMOD, i, Ir_int(ln, 32)), n / 32),
                Ir_binary(ln, EXPR_FLOORDIV, i, Ir_int(ln, 32)));
   int32_t value = Ir_load(ln, in, src);
   if (call >= 0)
      value = Ir_unary(ln, (ExprKind)call, value);
   int32_t items[2] = { let, Ir_store(ln, out, i, value) };
   kn->body = Ir_seq(ln, items, 2);
}

static void copyNest(LoopNest *ln, int64_t n, int64_t block, bool strided) {
   mapNest(ln, n, block, strided, -1);
}

/* Each thread runs a chain of `steps` FMAs on its element:
 *   acc = in[i]; for r: acc = acc * in[i] + 1; out[i] = acc */
static void chainNest(LoopNest *ln, int64_t grid, int64_t block, int64_t steps) {
   LoopNest_reset(ln);
   int64_t n = grid * block, one = 1;
   int in = globalBuffer(ln, "in", n, true);
   int out = globalBuffer(ln, "out", n, false);
   IrKernel *kn = Ir_kernel(ln, "chain_kernel", -1, grid, block);
   int acc = Ir_buffer(ln, "acc", SCOPE_LOCAL, -1, 0, 1, &one);
   int32_t let;
   int32_t i = globalIndex(ln, kn, &let);
   int32_t zero = Ir_int(ln, 0);
   int r = Ir_var(ln, VAR_LOOP, "r", steps);
   int32_t update = Ir_store(ln, acc, zero,
                             add(ln, Ir_binary(ln, EXPR_MUL, Ir_load(ln, acc, zero), Ir_load(ln, in, i)),
                                 Ir_float(ln, 1.0)));
   int32_t items[4] = { let, Ir_store(ln, acc, zero, Ir_load(ln, in, i)), Ir_for(ln, r, LOOP_SERIAL, update),
                        Ir_store(ln, out, i, Ir_load(ln, acc, zero)) };
   kn->body = Ir_seq(ln, items, 4);
}

/* Blocks of 256 threads stage 8192 floats in shared memory (32 rounds of a coalesced
 * copy), then each thread sums 32 of them: every fourth word of its own row,
 * tile[(t mod 64)*128 + 4j], whose lanes are 128 words apart (all in one bank: 32-way
 * conflicts; 4 apart, no two of a thread's reads merge into a vector load), or a
 * column, tile[j*256 + t], on 32 banks. */
static void bankNest(LoopNest *ln, bool conflicting) {
   LoopNest_reset(ln);
   const int64_t block = 256, grid = 1024, tile = 8192, one = 1;
   int in = globalBuffer(ln, "in", grid * tile, true);
   int out = globalBuffer(ln, "out", grid * block, false);
   IrKernel *kn = Ir_kernel(ln, "bank_kernel", -1, grid, block);
   int sh = Ir_buffer(ln, "tile", SCOPE_SHARED, -1, 0, 1, &tile);
   kn->sharedBytes = tile * 4;
   int acc = Ir_buffer(ln, "acc", SCOPE_LOCAL, -1, 0, 1, &one);
   int32_t t = Ir_varRef(ln, kn->threadVar), zero = Ir_int(ln, 0);
   int j = Ir_var(ln, VAR_LOOP, "j", 32);
   int32_t slot = add(ln, mul(ln, Ir_varRef(ln, j), block), t);
   int32_t fetch = Ir_store(ln, sh, slot,
                            Ir_load(ln, in, add(ln, mul(ln, Ir_varRef(ln, kn->blockVar), tile), slot)));
   int k = Ir_var(ln, VAR_LOOP, "k", 32);
   int32_t at = conflicting ? add(ln, mul(ln, Ir_binary(ln, EXPR_FLOORMOD, t, Ir_int(ln, 64)), 128),
                                  mul(ln, Ir_varRef(ln, k), 4))
                            : add(ln, mul(ln, Ir_varRef(ln, k), block), t);
   int32_t sum = Ir_store(ln, acc, zero, add(ln, Ir_load(ln, acc, zero), Ir_load(ln, sh, at)));
   int32_t items[5] = {
      Ir_for(ln, j, LOOP_SERIAL, fetch),
      Ir_barrier(ln),
      Ir_store(ln, acc, zero, Ir_float(ln, 0)),
      Ir_for(ln, k, LOOP_SERIAL, sum),
      Ir_store(ln, out, add(ln, mul(ln, Ir_varRef(ln, kn->blockVar), block), t), Ir_load(ln, acc, zero)),
   };
   kn->body = Ir_seq(ln, items, 5);
}

/* ---- determinism ---- */

typedef struct {
   Network net;
   Dag g;
   SketchSet set;
} TaskFixture;

/* The DAG and sketches of task `task` of the loaded network. */
static void buildTask(TaskFixture *f, int task) {
   Dag_init(&f->g);
   Op_buildDag(&f->net.tasks[task].op, &f->g);
   SketchSet_generate(&f->set, &f->g);
}

static void freeSketches(TaskFixture *f) {
   SketchSet_done(&f->set);
   Dag_done(&f->g);
}

static void loadTask(TaskFixture *f, const char *file, int task) {
   TestUtil_loadNetwork(&f->net, file);
   buildTask(f, task);
}

/* A valid state drawn with the seed, lowered into ln. */
static void lowerSample(const TaskFixture *f, uint64_t seed, State *s, LoopNest *ln) {
   Rng rng;
   Rng_seed(&rng, seed);
   char *cause = NULL;
   if (State_sampleValid(&f->set, -1, &rng, &limits, 100000, s, &cause) < 0)
      fail_msg("%s", cause);
   Lower_state(&f->set, s, ln);
}

static void freeTask(TaskFixture *f) {
   freeSketches(f);
   Network_done(&f->net);
}

static void test_same_nest_same_bits_and_jitter_bound(void **state) {
   (void)state;
   TaskFixture f;
   loadTask(&f, "models/resnet_50.task", 3);
   Rng rng;
   Rng_seed(&rng, 5);
   LoopNest a, b;
   LoopNest_init(&a);
   LoopNest_init(&b);
   char *cause = NULL;
   for (int i = 0; i < 8; i++) {
      State s;
      if (State_sampleValid(&f.set, -1, &rng, &limits, 100000, &s, &cause) < 0)
         fail_msg("%s", cause);
      Lower_state(&f.set, &s, &a);
      Lower_state(&f.set, &s, &b);
      uint64_t key = State_hash(&s);
      SimReport ra, rb;
      double la = Sim_latency(h100, &a, NULL, key, &ra, &cause);
      double lb = Sim_latency(h100, &b, NULL, key, &rb, &cause);
      assert_true(la > 0);
      assert_memory_equal(&la, &lb, sizeof la);
      assert_memory_equal(&ra.seconds, &la, sizeof la);
      /* other keys move it by at most SIM_JITTER either way */
      double lo = INFINITY, hi = 0;
      for (uint64_t k = 0; k < 64; k++) {
         double l = Sim_latency(h100, &a, NULL, k * 0x9E3779B97F4A7C15ull, NULL, &cause);
         lo = fmin(lo, l);
         hi = fmax(hi, l);
      }
      assert_true(hi / lo <= (1 + SIM_JITTER) / (1 - SIM_JITTER));
      assert_true(hi > lo);   /* the keys do pick different jitters */
      double plain = 0;
      for (int k = 0; k < ra.nkernels; k++)
         plain += ra.kernels[k].seconds;
      assert_true(fabs(la / plain - 1) <= SIM_JITTER);
   }
   LoopNest_done(&a);
   LoopNest_done(&b);
   freeTask(&f);
}

/* ---- occupancy by hand (h100_sxm: 2048 threads, 65536 registers in 4 sub-partitions,
 * 233472 bytes of shared memory and 32 blocks per SM) ---- */

static void test_occupancy_by_hand(void **state) {
   (void)state;
   LoopNest ln;
   LoopNest_init(&ln);
   SimReport r;
   copyNest(&ln, 1 << 22, 256, false);

   /* 256 threads = 8 warps. Threads allow 2048 / 256 = 8 blocks. 64 registers: a warp
    * takes 64 x 32 = 2048 (a multiple of 256), a sub-partition's 16384 hold 8 warps, the
    * SM 32, so 32 / 8 = 4 blocks: registers limit, occupancy 32 / 64 warps. */
   SimCompiled k64 = ptxas(64, 0, 0);
   simulate(h100, &ln, &k64, &r);
   assert_int_equal(r.kernels[0].blocksPerSm, 4);
   assert_string_equal(r.kernels[0].limiter, "registers");
   assert_true(r.kernels[0].registersFromPtxas);
   assert_int_equal(r.kernels[0].registers, 64);
   assert_true(r.kernels[0].occupancy == 0.5);
   /* 16384 blocks over 132 SMs x 4: 31.03 waves */
   assert_true(fabs(r.kernels[0].waves - 16384.0 / (132 * 4)) < 1e-12);

   /* 128 registers: 4096 a warp, 4 warps a sub-partition, 16 an SM: 2 blocks */
   SimCompiled k128 = ptxas(128, 0, 0);
   simulate(h100, &ln, &k128, &r);
   assert_int_equal(r.kernels[0].blocksPerSm, 2);
   assert_string_equal(r.kernels[0].limiter, "registers");

   /* 60 registers round up to 64 per thread (256 per warp): 4 blocks, as with 64 */
   SimCompiled k60 = ptxas(60, 0, 0);
   simulate(h100, &ln, &k60, &r);
   assert_int_equal(r.kernels[0].blocksPerSm, 4);

   /* 32 registers: 1024 a warp, 64 warps, 8 blocks; threads allow 8 too, and threads
    * are named first */
   SimCompiled k32 = ptxas(32, 0, 0);
   simulate(h100, &ln, &k32, &r);
   assert_int_equal(r.kernels[0].blocksPerSm, 8);
   assert_string_equal(r.kernels[0].limiter, "threads");

   /* 40000 bytes of shared memory + 1024 reserved = 41024, allocated in 128-byte units:
    * 41088; 233472 / 41088 = 5.68, so 5 blocks */
   ln.kernels[0].sharedBytes = 40000;
   simulate(h100, &ln, &k32, &r);
   assert_int_equal(r.kernels[0].blocksPerSm, 5);
   assert_string_equal(r.kernels[0].limiter, "shared memory");

   /* 32 threads, 32 registers: threads and registers allow 64 blocks, the SM 32 */
   copyNest(&ln, 1 << 22, 32, false);
   simulate(h100, &ln, &k32, &r);
   assert_int_equal(r.kernels[0].blocksPerSm, 32);
   assert_string_equal(r.kernels[0].limiter, "blocks");

   /* without ptxas, the estimate: 24 base registers and no arrays or reused operands */
   simulate(h100, &ln, NULL, &r);
   assert_false(r.kernels[0].registersFromPtxas);
   assert_int_equal(r.kernels[0].registers, 24 + 1);
   LoopNest_done(&ln);
}

/* ---- rankings ---- */

static void test_coalesced_beats_strided(void **state) {
   (void)state;
   LoopNest ln;
   LoopNest_init(&ln);
   SimReport rc, rs;
   const int64_t n = 1 << 24;   /* 64 MB a buffer: more than H100's L2 holds */
   copyNest(&ln, n, 256, false);
   double coalesced = simulate(h100, &ln, NULL, &rc);
   copyNest(&ln, n, 256, true);
   double strided = simulate(h100, &ln, NULL, &rs);
   /* coalesced: every byte once from DRAM (the 2 x 64 MB footprint) */
   assert_true(fabs(rc.kernels[0].dramBytes - 2.0 * n * 4) < 1);
   /* strided: a lane a sector, so the loads cross L2 as 8 times the sectors (32 a
    * request against 4) and the stores once: 4.5 times the coalesced L2 traffic */
   assert_true(fabs(rs.kernels[0].l2Bytes - 4.5 * rc.kernels[0].l2Bytes) < 1);
   /* the 8 warps of a block share each sector, so the re-reads come within a wave's
    * step and hit in L2: DRAM still serves the footprint once */
   assert_true(fabs(rs.kernels[0].dramBytes - rc.kernels[0].dramBytes) < 1);
   /* and the extra L2 traffic costs: at H100's 4207 B/clk x 1980 MHz, 576 MB take
    * 69 us against the coalesced copy's 128 MB from DRAM at 2.9 TB/s, 46 us */
   assert_true(strided > 1.4 * coalesced);
   /* memory bound: not faster than 128 MB at 3350 GB/s */
   assert_true(coalesced > 2.0 * n * 4 / 3350e9);
   LoopNest_done(&ln);
}

static void test_low_occupancy_is_slower(void **state) {
   (void)state;
   LoopNest ln;
   LoopNest_init(&ln);
   SimReport r;
   copyNest(&ln, 1 << 24, 256, false);
   SimCompiled few = ptxas(32, 0, 0), many = ptxas(255, 0, 0);
   double fast = simulate(h100, &ln, &few, &r);
   assert_int_equal(r.kernels[0].blocksPerSm, 8);
   double slow = simulate(h100, &ln, &many, &r);
   assert_int_equal(r.kernels[0].blocksPerSm, 1);
   assert_true(slow > 1.5 * fast);
   LoopNest_done(&ln);
}

static void test_small_grid_wastes_the_gpu(void **state) {
   (void)state;
   LoopNest ln;
   LoopNest_init(&ln);
   SimReport r;
   chainNest(&ln, 64, 256, 4096);
   double small = simulate(h100, &ln, NULL, &r);
   double smallFlops = r.kernels[0].flops;
   /* 2 FLOPs per step of every thread */
   assert_true(smallFlops == 64.0 * 256 * 4096 * 2);
   assert_true(r.kernels[0].waves < 1);
   chainNest(&ln, 1320, 256, 4096);
   double big = simulate(h100, &ln, NULL, &r);
   assert_true(small / smallFlops > 2 * big / r.kernels[0].flops);
   LoopNest_done(&ln);
}

static void test_spills_are_slower(void **state) {
   (void)state;
   LoopNest ln;
   LoopNest_init(&ln);
   SimReport r;
   chainNest(&ln, 1320, 256, 4096);
   SimCompiled clean = ptxas(64, 0, 0), spilling = ptxas(64, 8, 8);
   double a = simulate(h100, &ln, &clean, &r);
   double b = simulate(h100, &ln, &spilling, &r);
   assert_true(b > 1.2 * a);
   LoopNest_done(&ln);
}

static void test_bank_conflicts_are_slower(void **state) {
   (void)state;
   LoopNest ln;
   LoopNest_init(&ln);
   SimReport r;
   bankNest(&ln, false);
   double clean = simulate(h100, &ln, NULL, &r);
   double cleanShared = r.kernels[0].sharedSeconds;
   bankNest(&ln, true);
   double conflicting = simulate(h100, &ln, NULL, &r);
   assert_true(conflicting > 1.5 * clean);
   assert_true(r.kernels[0].sharedSeconds > 4 * cleanShared);
   LoopNest_done(&ln);
}

/* ---- real states ---- */

/* Bytes the op must move at the least: its output and its inputs, of which a 1x1
 * convolution with stride s reads one element in s x s. */
static double compulsoryBytes(const OpParams *p) {
   double bytes = 4 * (double)Op_outputElems(p);
   for (int i = 0; i < Op_numInputs(p); i++) {
      double n = (double)Op_inputElems(p, i);
      if (i == 0 && p->kind == OP_CONV2D && p->kernel_h == 1 && p->kernel_w == 1)
         n /= (double)(p->stride_h * p->stride_w);
      bytes += 4 * n;
   }
   return bytes;
}

static void test_resnet_states_above_the_roofline(void **state) {
   (void)state;
   TaskFixture f;
   TestUtil_loadNetwork(&f.net, "models/resnet_50.task");
   const Device *devs[2] = { h100, DeviceSet_find(&devices, "a100_40") };
   LoopNest ln;
   LoopNest_init(&ln);
   char *cause = NULL;
   int simulated = 0;
   for (int t = 0; t < f.net.ntasks; t++) {
      const Task *task = &f.net.tasks[t];
      buildTask(&f, t);
      double bytes = compulsoryBytes(&task->op);
      for (int i = 0; i < 6; i++) {
         State s;
         lowerSample(&f, 100 + 6 * (uint64_t)t + (uint64_t)i, &s, &ln);
         for (int d = 0; d < 2; d++) {
            SimReport r;
            double l = Sim_latency(devs[d], &ln, NULL, State_hash(&s), &r, &cause);
            if (l < 0)
               fail_msg("task %d on %s: %s", t, devs[d]->name, cause);
            double bound = fmax(task->flops / (devs[d]->peak_fp32_gflops * 1e9),
                                bytes / (devs[d]->mem_bandwidth_gbs * 1e9));
            if (!(isfinite(l) && l > bound))
               fail_msg("task %d on %s: %g s, the roofline %g s", t, devs[d]->name, l, bound);
            double dram = 0, flops = 0;
            for (int k = 0; k < r.nkernels; k++) {
               dram += r.kernels[k].dramBytes;
               flops += r.kernels[k].flops;
               assert_true(r.kernels[k].blocksPerSm >= 1);
            }
            /* the model's own traffic and work cover the op's */
            assert_true(dram >= 0.999 * bytes);
            assert_true(flops >= 0.999 * task->flops);
            simulated++;
         }
      }
      freeSketches(&f);
   }
   assert_int_equal(simulated, 27 * 6 * 2);
   LoopNest_done(&ln);
   Network_done(&f.net);
}

/* ---- what cannot run ---- */

static void test_out_of_range_kernels(void **state) {
   (void)state;
   LoopNest ln;
   LoopNest_init(&ln);
   char *cause = NULL;
   copyNest(&ln, 1 << 20, 2048, false);
   assert_true(Sim_latency(h100, &ln, NULL, 1, NULL, &cause) == -1);
   assert_string_equal(cause, "kernel copy_kernel has 2048 threads per block; device h100_sxm allows at most 1024");
   free(cause);
   cause = NULL;

   copyNest(&ln, 1 << 20, 256, false);
   ln.kernels[0].sharedBytes = 50000;
   assert_true(Sim_latency(h100, &ln, NULL, 1, NULL, &cause) == -1);
   assert_string_equal(cause,
                       "kernel copy_kernel uses 50000 bytes of shared memory per block; device h100_sxm allows at most 49152");
   free(cause);
   cause = NULL;

   /* 1024 threads of 72 registers: 72 x 32 = 2304 a warp, 32 warps = 73728 > 65536 */
   copyNest(&ln, 1 << 20, 1024, false);
   SimCompiled k72 = ptxas(72, 0, 0);
   const SimCompiled *per[IR_MAX_KERNELS] = { &k72 };
   assert_true(Sim_latency(h100, &ln, per, 1, NULL, &cause) == -1);
   assert_string_equal(cause, "kernel copy_kernel needs 73728 registers per block (72 per thread, allocated 2304 per "
                              "warp, x 32 warps); device h100_sxm has 65536 per SM");
   free(cause);
   cause = NULL;

   /* profiles without a field the model needs */
   static const char text[] = "devices:\n  - name: mygpu\n    product: My GPU\n    compute_capability: \"9.0\"\n";
   DeviceSet set;
   DeviceSet_init(&set);
   assert_int_equal(DeviceSet_loadString(&set, "mine.yaml", text, strlen(text), &cause), 0);
   assert_true(Sim_latency(&set.devices[0], &ln, NULL, 1, NULL, &cause) == -1);
   assert_string_equal(cause, "device mygpu (mine.yaml:2) has no peak_fp32_gflops, which the simulator needs "
                              "(its compute capability does not fix it)");
   free(cause);
   cause = NULL;
   DeviceSet_done(&set);
   /* without a compute capability nothing is filled */
   static const char bare[] = "devices:\n  - name: bare\n    product: Bare\n    peak_fp32_gflops: 1000\n";
   DeviceSet_init(&set);
   assert_int_equal(DeviceSet_loadString(&set, "bare.yaml", bare, strlen(bare), &cause), 0);
   assert_true(Sim_latency(&set.devices[0], &ln, NULL, 1, NULL, &cause) == -1);
   assert_string_equal(cause, "device bare (bare.yaml:2) has no compute_capability, which the simulator needs");
   free(cause);
   DeviceSet_done(&set);
   LoopNest_done(&ln);
}

/* ---- verification ---- */

static void test_verify_catches_a_wrong_kernel(void **state) {
   (void)state;
   TaskFixture f;
   loadTask(&f, "tests/data/every-kind.task", 0);   /* conv2d 5x9x9 -> 8, bias, relu */
   const OpParams *op = &f.net.tasks[0].op;
   State s;
   LoopNest ln;
   LoopNest_init(&ln);
   lowerSample(&f, 11, &s, &ln);
   char *cause = NULL;
   VerifyTask *vt = VerifyTask_new(op, 3, VERIFY_TOLERANCE, 4, true);
   int64_t elems;
   const float *want = VerifyTask_reference(vt, &elems);
   assert_int_equal(elems, 2 * 8 * 5 * 5);

   VerifyResult res;
   assert_int_equal(Verify_loopNest(vt, &ln, 1, &res), 0);
   assert_true(res.ok);
   assert_null(res.why);
   assert_int_equal(res.compared, elems);
   assert_int_equal(res.blocksRun, ln.kernels[ln.nkernels - 1].grid);
   VerifyResult_done(&res);

   /* what the kernel computes, run here directly on copies of the inputs */
   float *inputs[OP_MAX_INPUTS] = { NULL };
   for (int i = 0; i < Op_numInputs(op); i++) {
      size_t bytes = (size_t)Op_inputElems(op, i) * sizeof(float);
      inputs[i] = xMalloc(bytes);
      memcpy(inputs[i], VerifyTask_inputs(vt)[i], bytes);
   }
   float *globals[IR_MAX_BUFFERS];
   Exec_bindGlobals(&ln, inputs, globals);
   Exec *x = Exec_new(&ln);
   for (int k = 0; k < ln.nkernels; k++)
      assert_int_equal(Exec_run(x, k, globals, NULL, 0, NULL, &cause), 0);
   Exec_free(x);
   int out = Lower_globalBuffer(&ln, Dag_output(&f.g));
   float *got = xMalloc((size_t)elems * sizeof *got);
   memcpy(got, globals[out], (size_t)elems * sizeof *got);
   Exec_releaseGlobals(&ln, globals);
   for (int i = 0; i < OP_MAX_INPUTS; i++)
      free(inputs[i]);

   /* the last kernel's store to the output now writes 1.5 times its value */
   int32_t st = -1;
   for (int32_t i = 0; i < ln.nstmt; i++)
      if (ln.stmt[i].kind == STMT_STORE && ln.stmt[i].buffer == out)
         st = i;
   assert_true(st >= 0);
   ln.stmt[st].value = Ir_binary(&ln, EXPR_MUL, ln.stmt[st].value, Ir_float(&ln, 1.5));
   /* the first element whose error exceeds the tolerance (relu zeros stay zero) */
   double sq = 0;
   for (int64_t i = 0; i < elems; i++)
      sq += (double)want[i] * want[i];
   double rms = sqrt(sq / (double)elems);
   int64_t bad = -1;
   for (int64_t i = 0; i < elems && bad < 0; i++) {
      double scale = fmax(fabs(want[i]), rms);
      if (fabs((double)(got[i] * 1.5f) - want[i]) > VERIFY_TOLERANCE * scale)
         bad = i;
   }
   assert_true(bad >= 0);
   double g = got[bad] * 1.5f, w = want[bad], scale = fmax(fabs(w), rms);
   char *expect = xAsprintf("element %lld of the output is %.8g, the reference %.8g (relative error %.2g)",
                            (long long)bad, g, w, fabs(g - w) / scale);
   assert_int_equal(Verify_loopNest(vt, &ln, 1, &res), -1);
   assert_false(res.ok);
   assert_string_equal(res.why, expect);
   /* about half of the value wrong */
   assert_true(fabs(g - w) / scale > 0.3);
   VerifyResult_done(&res);
   free(expect);
   free(got);
   VerifyTask_free(vt);
   LoopNest_done(&ln);
   freeTask(&f);
}

static void test_verify_samples_blocks_of_a_large_task(void **state) {
   (void)state;
   TaskFixture f;
   loadTask(&f, "models/resnet_50.task", 3);   /* 231.6 MFLOP: sampled */
   State s;
   LoopNest ln;
   LoopNest_init(&ln);
   lowerSample(&f, 3, &s, &ln);
   VerifyTask *vt = VerifyTask_new(&f.net.tasks[3].op, 9, VERIFY_TOLERANCE, 2, false);
   VerifyResult res;
   int rc = Verify_loopNest(vt, &ln, 77, &res);
   if (rc < 0)
      fail_msg("%s", res.why);
   int64_t grid = ln.kernels[ln.nkernels - 1].grid;
   assert_int_equal(res.grid, grid);
   assert_true(res.blocksRun <= 4 && (res.blocksRun == grid || res.blocksRun >= 2));
   assert_true(res.compared > 0 && res.compared < 64 * 56 * 56);
   VerifyResult_done(&res);
   VerifyTask_free(vt);
   LoopNest_done(&ln);
   freeTask(&f);
}

/* One warp, 100 serial rounds (a barrier in each, so nothing is hoisted), each reading
 * 8 words of a shared tile, the same for every lane (a broadcast), at tile[s*j + o]
 * for j = 0..7 unrolled. With s = 1 and o = 0 the words are adjacent and 16-byte
 * aligned: nvcc loads them with two LDS.128, 2 loads and 2 wavefronts a round instead
 * of 8. With s = 2 no two are adjacent: 8 loads. With o = 1 the words 1..8 fill one
 * aligned group of 4 (4..7: LDS.128) and leave 1, 2-3 and 8: an LDS.32, an LDS.64
 * and an LDS.32, 4 loads. */
static void vectorNest(LoopNest *ln, int64_t stride, int64_t offset) {
   LoopNest_reset(ln);
   const int64_t tileElems = 64, one = 1;
   int out = globalBuffer(ln, "out", 32, false);
   IrKernel *kn = Ir_kernel(ln, "vector_kernel", -1, 1, 32);
   int sh = Ir_buffer(ln, "tile", SCOPE_SHARED, -1, 0, 1, &tileElems);
   kn->sharedBytes = tileElems * 4;
   int acc = Ir_buffer(ln, "acc", SCOPE_LOCAL, -1, 0, 1, &one);
   int32_t zero = Ir_int(ln, 0);
   int r = Ir_var(ln, VAR_LOOP, "r", 100), j = Ir_var(ln, VAR_LOOP, "j", 8);
   int32_t at = add(ln, mul(ln, Ir_varRef(ln, j), stride), Ir_int(ln, offset));
   int32_t sum = Ir_store(ln, acc, zero, add(ln, Ir_load(ln, acc, zero), Ir_load(ln, sh, at)));
   int32_t round[2] = { Ir_barrier(ln), Ir_for(ln, j, LOOP_UNROLL, sum) };
   int32_t items[3] = {
      Ir_store(ln, acc, zero, Ir_float(ln, 0)),
      Ir_for(ln, r, LOOP_SERIAL, Ir_seq(ln, round, 2)),
      Ir_store(ln, out, Ir_varRef(ln, kn->threadVar), Ir_load(ln, acc, zero)),
   };
   kn->body = Ir_seq(ln, items, 3);
}

/* What the one kernel of ln issues and moves on the H100. */
static SimCounts countOnH100(const LoopNest *ln) {
   SimGpu g;
   char *cause = NULL;
   if (SimGpu_init(&g, h100, &cause) < 0)
      fail_msg("%s", cause);
   SimProgram *p = malloc(sizeof *p);
   assert_non_null(p);
   if (Sim_count(&g, ln, NULL, p, &cause) < 0)
      fail_msg("%s", cause);
   SimCounts c = p->kernels[0];
   free(p);
   return c;
}

static void test_adjacent_shared_loads_merge(void **state) {
   (void)state;
   LoopNest ln;
   LoopNest_init(&ln);
   double instr[3], wave[3];
   const int64_t shape[3][2] = { { 1, 0 }, { 2, 0 }, { 1, 1 } };
   for (int v = 0; v < 3; v++) {
      vectorNest(&ln, shape[v][0], shape[v][1]);
      SimCounts c = countOnH100(&ln);
      instr[v] = c.instr;
      wave[v] = c.wavefronts;
   }
   /* the rest of the code is the same: the loads make the whole difference, one
    * instruction and one wavefront (a broadcast) each, 100 rounds */
   assert_true(fabs((instr[1] - instr[0]) - 100 * (8 - 2)) < 1e-9);
   assert_true(fabs((wave[1] - wave[0]) - 100 * (8 - 2)) < 1e-9);
   assert_true(fabs((instr[2] - instr[0]) - 100 * (4 - 2)) < 1e-9);
   assert_true(fabs((wave[2] - wave[0]) - 100 * (4 - 2)) < 1e-9);
   LoopNest_done(&ln);
}

/* sigmoid, 1 / (1 + exp(-x)), issues what an exp, an add and a division do: 5 FP32
 * and 2 special-function instructions a warp, 3 FLOPs an element */
static void test_sigmoid_costs_exp_add_divide(void **state) {
   (void)state;
   LoopNest ln;
   LoopNest_init(&ln);
   const int64_t n = 1 << 20;
   SimCounts c[2];
   for (int v = 0; v < 2; v++) {
      mapNest(&ln, n, 256, false, v ? EXPR_SIGMOID : -1);
      c[v] = countOnH100(&ln);
   }
   assert_true(fabs((c[1].fp - c[0].fp) - 5) < 1e-9);
   assert_true(fabs((c[1].mufu - c[0].mufu) - 2) < 1e-9);
   assert_true(fabs((c[1].instr - c[0].instr) - 7) < 1e-9);
   assert_true(fabs((c[1].flops - c[0].flops) - 3.0 * n) < 1e-6);
   LoopNest_done(&ln);
}

int main(void) {
   SchedLimits_default(&limits);
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_nest_same_bits_and_jitter_bound),
      cmocka_unit_test(test_occupancy_by_hand),
      cmocka_unit_test(test_coalesced_beats_strided),
      cmocka_unit_test(test_low_occupancy_is_slower),
      cmocka_unit_test(test_small_grid_wastes_the_gpu),
      cmocka_unit_test(test_spills_are_slower),
      cmocka_unit_test(test_bank_conflicts_are_slower),
      cmocka_unit_test(test_adjacent_shared_loads_merge),
      cmocka_unit_test(test_sigmoid_costs_exp_add_divide),
      cmocka_unit_test(test_resnet_states_above_the_roofline),
      cmocka_unit_test(test_out_of_range_kernels),
      cmocka_unit_test(test_verify_catches_a_wrong_kernel),
      cmocka_unit_test(test_verify_samples_blocks_of_a_large_task),
   };
   return cmocka_run_group_tests(tests, setupDevices, teardownDevices);
}
