/* Tensor-Core sketches: offered only when asked for and only for matrix multiplies,
 * their states' text with the precision, the CPU executor's emulation bit for bit (a
 * hand-rounded reference on shapes that are not multiples of the tile, dense and conv2d
 * as an implicit GEMM with padding and stride, split-K's partial sums in order) and
 * within the rounding bound of the FP32 reference, split-K's two kernels, their sampled
 * check and their simulated gain on a batch-1 convolution, and NVRTC compiles of every
 * precision for sm_80 and sm_90 (when NVRTC is present). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "codegen/cuda.h"
#include "ir/exec.h"
#include "ir/lower.h"
#include "measure/nvrtc.h"
#include "measure/verify.h"
#include "sim/sim.h"
#include "te/network.h"
#include "te/ref.h"
#include "util/xalloc.h"

static SchedLimits limits;

static const SketchOptions everyPrecision = {
   PRECISION_BIT(PRECISION_FP16) | PRECISION_BIT(PRECISION_BF16) | PRECISION_BIT(PRECISION_TF32), false
};

typedef struct {
   Network net;
   SketchSet set;
   LoopNest ln;
   float *inputs[OP_MAX_INPUTS];
   int64_t inElems[OP_MAX_INPUTS];
   int64_t outElems;
} TcTask;

static void loadBatch(TcTask *t, int batch, const char *yamlTask, const SketchOptions *opt) {
   memset(t, 0, sizeof *t);
   char text[512];
   snprintf(text, sizeof text, "network: tc\nbatch: %d\ntasks:\n  - %s\n", batch, yamlTask);
   char *cause = NULL;
   if (Network_loadString(&t->net, "tc.task", text, strlen(text), &cause) < 0)
      fail_msg("%s", cause);
   const OpParams *p = &t->net.tasks[0].op;
   SketchSet_forOpWith(&t->set, p, opt);
   LoopNest_init(&t->ln);
   for (int i = 0; i < Op_numInputs(p); i++) {
      int64_t shape[TE_MAX_DIMS];
      const char *name;
      int r = Op_inputShape(p, i, shape, &name);
      t->inElems[i] = 1;
      for (int d = 0; d < r; d++)
         t->inElems[i] *= shape[d];
      t->inputs[i] = xMalloc((size_t)t->inElems[i] * sizeof(float));
      TestUtil_fillRandom(t->inputs[i], (size_t)t->inElems[i], 40 + (uint64_t)i, -1.0f, 1.0f);
   }
   int64_t shape[TE_MAX_DIMS];
   int r = Op_outputShape(p, shape);
   t->outElems = 1;
   for (int d = 0; d < r; d++)
      t->outElems *= shape[d];
}

static void load(TcTask *t, const char *yamlTask, const SketchOptions *opt) {
   loadBatch(t, 1, yamlTask, opt);
}

static void unload(TcTask *t) {
   for (int i = 0; i < OP_MAX_INPUTS; i++)
      free(t->inputs[i]);
   LoopNest_done(&t->ln);
   SketchSet_done(&t->set);
   Network_done(&t->net);
}

static int tcSketch(const SketchSet *set, Precision p) {
   for (int i = 0; i < set->count; i++)
      if (set->sketches[i].precision == p)
         return i;
   fail_msg("no %s sketch", Precision_name(p));
   return -1;
}

/* Lowers s, runs every kernel over its grid and returns the output (caller frees). */
static float *run(TcTask *t, const State *s) {
   Lower_state(&t->set, s, &t->ln);
   float *globals[IR_MAX_BUFFERS];
   Exec_bindGlobals(&t->ln, t->inputs, globals);
   uint8_t *written = xCalloc((size_t)t->outElems, 1);
   Exec *x = Exec_new(&t->ln);
   char *cause = NULL;
   for (int k = 0; k < t->ln.nkernels; k++)
      if (Exec_run(x, k, globals, NULL, 0, k == t->ln.nkernels - 1 ? written : NULL, &cause) < 0)
         fail_msg("%s", cause);
   for (int64_t i = 0; i < t->outElems; i++)
      if (!written[i])
         fail_msg("output element %lld never written", (long long)i);
   int out = Lower_globalBuffer(&t->ln, Dag_output(&t->set.dag));
   float *result = xMalloc((size_t)t->outElems * sizeof(float));
   memcpy(result, globals[out], (size_t)t->outElems * sizeof(float));
   Exec_free(x);
   free(written);
   Exec_releaseGlobals(&t->ln, globals);
   return result;
}

static void parse(TcTask *t, const char *text, State *s) {
   char *cause = NULL;
   if (State_parse(&t->set, text, &limits, s, &cause) < 0)
      fail_msg("%s", cause);
}

/* The state of t's sketch in precision p with knobs `knobs` (a JSON object). */
static void parseTc(TcTask *t, Precision p, const char *knobs, State *s) {
   char text[512];
   snprintf(text, sizeof text, "{\"v\":1,\"sketch\":%d,\"precision\":\"%s\",\"knobs\":%s}", tcSketch(&t->set, p),
            Precision_name(p), knobs);
   parse(t, text, s);
}

static void test_offered_only_when_asked(void **state) {
   (void)state;
   TcTask t;
   load(&t, "{op: dense, m: 33, n: 47, k: 70, weight: 1}", NULL);
   int ansor = t.set.count;
   for (int i = 0; i < ansor; i++)
      assert_int_equal(t.set.sketches[i].precision, PRECISION_FP32);
   unload(&t);
   load(&t, "{op: dense, m: 33, n: 47, k: 70, weight: 1}", &everyPrecision);
   /* Ansor's sketches keep their numbers; one TC sketch per precision follows */
   assert_int_equal(t.set.count, ansor + 3);
   assert_int_equal(t.set.sketches[ansor].precision, PRECISION_FP16);
   assert_int_equal(t.set.sketches[ansor + 1].precision, PRECISION_BF16);
   assert_int_equal(t.set.sketches[ansor + 2].precision, PRECISION_TF32);
   assert_string_equal(t.set.sketches[ansor].summary, "tensor-core fp16 T_dense");
   assert_int_equal(t.set.sketches[ansor].kernels[0].kind, KERNEL_TC);
   unload(&t);
   /* not a matrix multiply: nothing more */
   load(&t, "{op: softmax, input: [3, 40], weight: 1}", &everyPrecision);
   for (int i = 0; i < t.set.count; i++)
      assert_int_equal(t.set.sketches[i].precision, PRECISION_FP32);
   unload(&t);
   /* the device decides: sm_75 has FP16 only, sm_70 none (m16n8k8 starts with Turing) */
   assert_int_equal(Sketch_tensorCorePrecisions(7, 5), PRECISION_BIT(PRECISION_FP16));
   assert_int_equal(Sketch_tensorCorePrecisions(7, 0), 0);
   assert_int_equal(Sketch_tensorCorePrecisions(9, 0), everyPrecision.tensorCore);
}

/* A bf16 state of the batch_matmul below with m [1,2], n [2,1] and the other knobs
 * `rest`: it parses, and its text is the same. */
static void roundTrip(TcTask *t, int sketch, const char *rest, State *s) {
   char text[512], want[512];
   snprintf(want, sizeof want,
            "{\"v\":1,\"sketch\":%d,\"precision\":\"bf16\",\"knobs\":{\"T_batch_matmul_NT.tc.m\":[1,2],"
            "\"T_batch_matmul_NT.tc.n\":[2,1],%s}}", sketch, rest);
   parse(t, want, s);
   State_format(&t->set, s, text, sizeof text);
   assert_string_equal(text, want);
}

/* A state of sketch `sketch` in `precision` with m knob `m` ("{}": no knobs) must fail
 * to parse with `message`. */
static void expectBad(TcTask *t, int sketch, const char *precision, const char *m, const char *message) {
   char text[512];
   if (strcmp(m, "{}") == 0)
      snprintf(text, sizeof text, "{\"v\":1,\"sketch\":%d,\"precision\":\"%s\",\"knobs\":{}}", sketch, precision);
   else
      snprintf(text, sizeof text,
               "{\"v\":1,\"sketch\":%d,\"precision\":\"%s\",\"knobs\":{\"T_batch_matmul_NT.tc.m\":%s,"
               "\"T_batch_matmul_NT.tc.n\":[1,1],\"T_batch_matmul_NT.tc.k\":1}}", sketch, precision, m);
   State s;
   char *cause = NULL;
   assert_int_equal(State_parse(&t->set, text, &limits, &s, &cause), -1);
   assert_string_equal(cause, message);
   free(cause);
}

static void test_state_text_names_the_precision(void **state) {
   (void)state;
   TcTask t;
   load(&t, "{op: batch_matmul, b: 2, m: 20, n: 24, k: 40, epilogue: [bias], weight: 1}", &everyPrecision);
   int bf = tcSketch(&t.set, PRECISION_BF16);
   State s;
   char text[512], want[512];
   snprintf(want, sizeof want,
            "{\"v\":1,\"sketch\":%d,\"precision\":\"bf16\",\"knobs\":{\"T_batch_matmul_NT.tc.m\":[1,2],"
            "\"T_batch_matmul_NT.tc.n\":[2,1],\"T_batch_matmul_NT.tc.k\":1}}", bf);
   parse(&t, want, &s);
   State_format(&t.set, &s, text, sizeof text);
   assert_string_equal(text, want);
   KernelShape ks;
   State_kernelShape(&t.set, &s, 0, &ks);
   /* 32 x 16 tiles over 20 x 24: 1 x 2 blocks per batch; 2 warps; 2 fragments of 4 */
   assert_int_equal(ks.blocks, 4);
   assert_int_equal(ks.threads, 64);
   assert_int_equal(ks.outputsPerThread, 8);
   /* A 32 x (16 + 8) and B 16 x 24 BF16 elements of 2 bytes */
   assert_int_equal(ks.sharedBytes, 2 * 32 * 24 + 2 * 16 * 24);

   snprintf(want, sizeof want, "state: sketch %d computes in bf16; the state says \"fp16\"", bf);
   expectBad(&t, bf, "fp16", "{}", want);
   expectBad(&t, bf, "bf16", "[3,1]", "state: knob 'T_batch_matmul_NT.tc.m' is [3,1]; every part must be a power of two from 1 to 8");
   /* m is 20: a block tile of 64 rows is larger than the 32 that cover it */
   expectBad(&t, bf, "bf16", "[2,2]", "state: the tensor-core kernel of T_batch_matmul_NT has a block tile of 64 along m, whose extent is 20; at most 32");

   /* split-K: named when above 1 (the unsplit text above leaves it out), 2 blocks per
    * tile of the 3 stages of 16 that k = 40 takes, at most one block a stage */
   roundTrip(&t, bf, "\"T_batch_matmul_NT.tc.k\":1,\"T_batch_matmul_NT.tc.split\":2", &s);
   State_kernelShape(&t.set, &s, 0, &ks);
   assert_int_equal(ks.blocks, 8);
   /* a pipeline: named when 2; a block needs two stages or more (k = 40 split 2 gives 2) */
   roundTrip(&t, bf, "\"T_batch_matmul_NT.tc.k\":1,\"T_batch_matmul_NT.tc.stages\":2", &s);
   roundTrip(&t, bf, "\"T_batch_matmul_NT.tc.k\":1,\"T_batch_matmul_NT.tc.split\":2,\"T_batch_matmul_NT.tc.stages\":2", &s);
   static const struct {
      const char *knobs, *message;
   } bad[] = {
      { "\"T_batch_matmul_NT.tc.k\":1,\"T_batch_matmul_NT.tc.split\":3",
        "state: knob 'T_batch_matmul_NT.tc.split' is 3; every part must be a power of two from 1 to 64" },
      { "\"T_batch_matmul_NT.tc.k\":1,\"T_batch_matmul_NT.tc.split\":4",
        "state: the tensor-core kernel of T_batch_matmul_NT splits its 3 k stages of 16 among 4 blocks; at most one block a stage" },
      { "\"T_batch_matmul_NT.tc.k\":1,\"T_batch_matmul_NT.tc.split\":0",
        "state: knob 'T_batch_matmul_NT.tc.split' is 0; every factor must be at least 1" },
      { "\"T_batch_matmul_NT.tc.k\":1,\"T_batch_matmul_NT.tc.stages\":4",
        "state: knob 'T_batch_matmul_NT.tc.stages' is 4; every part must be a power of two from 1 to 2" },
      { "\"T_batch_matmul_NT.tc.k\":4,\"T_batch_matmul_NT.tc.stages\":2",
        "state: the tensor-core kernel of T_batch_matmul_NT keeps 2 k stages in flight, but each block runs 1; at least 2 for a pipeline" },
      { "\"T_batch_matmul_NT.tc.k\":2,\"T_batch_matmul_NT.tc.split\":2,\"T_batch_matmul_NT.tc.stages\":2",
        "state: the tensor-core kernel of T_batch_matmul_NT keeps 2 k stages in flight, but each block runs 1; at least 2 for a pipeline" },
   };
   for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      snprintf(text, sizeof text,
               "{\"v\":1,\"sketch\":%d,\"precision\":\"bf16\",\"knobs\":{\"T_batch_matmul_NT.tc.m\":[1,2],"
               "\"T_batch_matmul_NT.tc.n\":[2,1],%s}}",
               bf, bad[i].knobs);
      char *cause = NULL;
      assert_int_equal(State_parse(&t.set, text, &limits, &s, &cause), -1);
      assert_string_equal(cause, bad[i].message);
      free(cause);
   }
   unload(&t);
}

/* The sampled CPU check of t's nest, down to the last kernel's first and last block:
 * it passes, over a grid of `grid` blocks, on `compared` elements with some error. */
static void checkSampled(TcTask *t, int64_t grid, int64_t compared) {
   VerifyTask *vt = VerifyTask_new(&t->net.tasks[0].op, 7, VERIFY_TOLERANCE, 0, false);
   VerifyResult res;
   assert_int_equal(Verify_loopNest(vt, &t->ln, 1, &res), 0);
   assert_true(res.ok);
   assert_int_equal(res.grid, grid);
   assert_int_equal(res.blocksRun, 2);
   assert_int_equal(res.compared, compared);
   assert_true(res.maxError > 0);
   VerifyResult_done(&res);
   VerifyTask_free(vt);
}

/* Split-K's two kernels on dense 33x47x700 in FP16 with 16x8 tiles (3 x 6 = 18 tiles; 44
 * stages of 16 over 8 blocks, 6 each): the partials' kernel of 8 x 18 blocks writes
 * 8 x 18 x 16 x 8 floats of scratch, the sum's kernel has a block per tile and gathers
 * 8; the sampled check runs the sampled tiles' partial blocks alone and passes (the sum
 * would read zeros from any other). */
static void test_split_k(void **state) {
   (void)state;
   TcTask t;
   load(&t, "{op: dense, m: 33, n: 47, k: 700, weight: 1}", &everyPrecision);
   State s;
   parseTc(&t, PRECISION_FP16, "{\"T_dense.tc.m\":[1,1],\"T_dense.tc.n\":[1,1],\"T_dense.tc.k\":1,\"T_dense.tc.split\":8}", &s);
   Lower_state(&t.set, &s, &t.ln);
   assert_int_equal(t.ln.nkernels, 2);
   assert_string_equal(t.ln.kernels[0].name, "T_dense_partial_kernel");
   assert_int_equal(t.ln.kernels[0].grid, 8 * 18);
   assert_int_equal(t.ln.kernels[0].block, 32);
   assert_int_equal(t.ln.kernels[0].gathers, 0);
   assert_string_equal(t.ln.kernels[1].name, "T_dense_kernel");
   assert_int_equal(t.ln.kernels[1].grid, 18);
   assert_int_equal(t.ln.kernels[1].block, 128);
   assert_int_equal(t.ln.kernels[1].gathers, 8);
   int scratch = -1;
   for (int b = 0; b < t.ln.nbuffers; b++)
      if (strcmp(t.ln.buffers[b].name, "T_dense_split") == 0)
         scratch = b;
   assert_true(scratch >= 0);
   assert_int_equal(t.ln.buffers[scratch].scope, SCOPE_GLOBAL);
   assert_int_equal(t.ln.buffers[scratch].elems, 8 * 18 * 16 * 8);
   assert_false(t.ln.buffers[scratch].input);
   assert_false(t.ln.buffers[scratch].output);
   /* the partials' kernel reads the operands and writes the scratch; the sum's reads the
    * scratch and writes the output */
   assert_int_equal(t.ln.kernels[0].nparams, 3);
   assert_int_equal(t.ln.kernels[1].nparams, 2);

   /* sampled down to the first and the last tile: 16 x 8 outputs, and 1 x 7 (row 32,
    * columns 40 to 46) */
   checkSampled(&t, 18, 16 * 8 + 7);
   unload(&t);
}

/* The shipped profiles, and the H100 SXM among them. */
static const Device *loadH100(DeviceSet *devices) {
   TestUtil_loadDevices(devices);
   const Device *h100 = DeviceSet_find(devices, "h100_sxm");
   assert_non_null(h100);
   return h100;
}

/* On a simulated H100, ResNet-50's last 3x3 convolution at batch 1 (m = 49, n = 512,
 * k = 4608) has 32 tiles of 32x32, a quarter of the SMs, each running 288 stages in a
 * row: split 8 ways its partials fill 256 blocks and the whole, sum included, runs in
 * less than half the time; the sampled check of the split nest reads the right
 * partials. */
static void test_split_k_fills_the_gpu(void **state) {
   (void)state;
   DeviceSet devices;
   const Device *h100 = loadH100(&devices);
   TcTask t;
   load(&t, "{op: conv2d, input: [512, 7, 7], filters: 512, kernel: 3, pad: 1, epilogue: [bias, relu], weight: 1}",
        &everyPrecision);
   double latency[2];
   for (int i = 0; i < 2; i++) {
      char knobs[256];
      snprintf(knobs, sizeof knobs,
               "{\"conv2d_nchw.tc.m\":[2,1],\"conv2d_nchw.tc.n\":[4,1],\"conv2d_nchw.tc.k\":1,\"conv2d_nchw.tc.split\":%d}",
               i ? 8 : 1);
      State s;
      parseTc(&t, PRECISION_FP16, knobs, &s);
      Lower_state(&t.set, &s, &t.ln);
      SimReport r;
      char *cause = NULL;
      latency[i] = Sim_latency(h100, &t.ln, NULL, 1, &r, &cause);
      if (latency[i] < 0)
         fail_msg("%s", cause);
      assert_int_equal(r.nkernels, i ? 2 : 1);
      assert_int_equal(t.ln.kernels[0].grid, i ? 256 : 32);
   }
   assert_true(latency[1] < 0.5 * latency[0]);
   /* the sum gives each 32x32 tile 8 blocks of 128 threads, a thread an element: 256
    * blocks, and its first and last block (rows 0 to 3 of the first tile; rows 28 to 31
    * of the last, past m = 49, so guarded out) read their tile's 8 partial blocks alone */
   const IrKernel *sum = &t.ln.kernels[1];
   assert_int_equal(sum->grid, 32 * 8);
   assert_int_equal(sum->block, 128);
   assert_int_equal(sum->gathers, 8);
   assert_int_equal(sum->gatherSpan, 8);
   checkSampled(&t, 256, 4 * 32);
   unload(&t);
   DeviceSet_done(&devices);
}

/* A pipeline (tc.stages 2) on ResNet-50's last 1x1 convolution (2048 channels of 7x7
 * to 512), split 8: 16 k stages of 16 a block, each block loading stage 0 into
 * registers before its stages, and stage s + 1 during stage s's mma for all but the
 * last. It moves the same bytes as the state without it, 2 floats a thread a stage of
 * each operand's tile (a register each), and on the simulated H100 the loop's loads
 * (15 of 16 stages' worth of the plain kernel's round trips) wait only for what the
 * rest of the path leaves uncovered, so the kernel's latency falls. */
static void test_pipeline(void **state) {
   (void)state;
   DeviceSet devices;
   const Device *h100 = loadH100(&devices);
   TcTask t;
   load(&t, "{op: conv2d, input: [2048, 7, 7], filters: 512, kernel: 1, epilogue: [bias, relu], weight: 1}",
        &everyPrecision);
   SimGpu gpu;
   char *cause = NULL;
   assert_int_equal(SimGpu_init(&gpu, h100, &cause), 0);
   SimReport r[2];
   SimProgram prog[2];
   double latency[2];
   for (int i = 0; i < 2; i++) {
      char knobs[256];
      snprintf(knobs, sizeof knobs,
               "{\"conv2d_nchw.tc.m\":[2,1],\"conv2d_nchw.tc.n\":[4,1],\"conv2d_nchw.tc.k\":1,\"conv2d_nchw.tc.split\":8%s}",
               i ? ",\"conv2d_nchw.tc.stages\":2" : "");
      State s;
      parseTc(&t, PRECISION_FP16, knobs, &s);
      Lower_state(&t.set, &s, &t.ln);
      latency[i] = Sim_latency(h100, &t.ln, NULL, 1, &r[i], &cause);
      if (latency[i] < 0 || Sim_count(&gpu, &t.ln, NULL, &prog[i], &cause) < 0)
         fail_msg("%s", cause);
      int regs = 0;
      for (int b = 0; b < t.ln.nbuffers; b++)
         if (strstr(t.ln.buffers[b].name, "_prefetch")) {
            assert_int_equal(t.ln.buffers[b].scope, SCOPE_LOCAL);
            assert_int_equal(t.ln.buffers[b].elems, 2);
            regs++;
         }
      assert_int_equal(regs, i ? 2 : 0);
      if (i)
         checkSampled(&t, 256, 4 * 32);
   }
   assert_int_equal(r[1].nkernels, 2);
   assert_true(fabs(r[1].kernels[0].l2Bytes - r[0].kernels[0].l2Bytes) <= 1e-9 * r[0].kernels[0].l2Bytes);
   assert_true(fabs(r[1].kernels[0].dramBytes - r[0].kernels[0].dramBytes) <= 1e-9 * r[0].kernels[0].dramBytes);
   const SimCounts *plain = &prog[0].kernels[0], *piped = &prog[1].kernels[0];
   assert_true(plain->aheadTrips == 0 && plain->memTrips > 0 && piped->memTrips > 0);
   assert_true(fabs(piped->aheadTrips - plain->memTrips * 15 / 16) <= 1e-9 * plain->memTrips);
   assert_true(r[1].kernels[0].latencySeconds < r[0].kernels[0].latencySeconds);
   assert_true(latency[1] < latency[0]);
   unload(&t);
   DeviceSet_done(&devices);
}

/* Where a statement of kernel k's body sits: the loop variables around it, outermost
 * first, for the first LET of variable `name` (*found) and, in *shape, what the index
 * of every load of buffer `buffer` reads: 1 the LET variable, 2 a division or modulo
 * of something other than threadIdx.x. */
typedef struct {
   const LoopNest *ln;
   const char *name;
   int buffer;
   int loops[8], depth;
   int found[8], nfound;
   bool seen;
   int shape;
} Where;

static void indexShape(Where *w, int32_t e) {
   const Expr *x = &w->ln->expr[e];
   if (x->kind == EXPR_AXIS && w->ln->vars[x->ref].kind == VAR_LET && strcmp(w->ln->vars[x->ref].name, w->name) == 0)
      w->shape |= 1;
   if (x->kind == EXPR_FLOORDIV || x->kind == EXPR_FLOORMOD) {
      const Expr *y = &w->ln->expr[x->args[0]];
      if (!(y->kind == EXPR_AXIS && w->ln->vars[y->ref].kind == VAR_THREAD))
         w->shape |= 2;
   }
   for (int i = 0; i < x->nargs; i++)
      indexShape(w, x->args[i]);
}

static void findLoad(Where *w, int32_t e) {
   const Expr *x = &w->ln->expr[e];
   if (x->kind == EXPR_LOAD && x->ref == w->buffer)
      indexShape(w, x->args[0]);
   for (int i = 0; i < x->nargs; i++)
      findLoad(w, x->args[i]);
}

static void walk(Where *w, int32_t s) {
   const IrStmt *st = &w->ln->stmt[s];
   switch ((StmtKind)st->kind) {
   case STMT_SEQ:
      for (int i = 0; i < st->count; i++)
         walk(w, w->ln->list[st->first + i]);
      break;
   case STMT_FOR:
      w->loops[w->depth++] = st->var;
      walk(w, st->body);
      w->depth--;
      break;
   case STMT_IF:
      walk(w, st->body);
      break;
   case STMT_LET:
      if (!w->seen && strcmp(w->ln->vars[st->var].name, w->name) == 0) {
         w->seen = true;
         w->nfound = w->depth;
         memcpy(w->found, w->loops, sizeof w->found);
      }
      break;
   case STMT_STORE:
      findLoad(w, st->value);
      break;
   default:
      break;
   }
}

/* ResNet-50's 3x3 convolution on 14x14 maps in FP16 (k = 256 x 3 x 3, 16 a stage, 256
 * threads staging a 32x16 tile of the image and a 64x16 one of the weights a stage):
 * the weights' index is their row's start plus k (OIHW makes k contiguous), with no
 * division of k into channel, kernel row and column, and the image's gather divides k
 * once a stage, outside its two rounds, where each thread keeps its column. */
static void test_staging_index_arithmetic(void **state) {
   (void)state;
   TcTask t;
   load(&t, "{op: conv2d, input: [256, 14, 14], filters: 256, kernel: 3, pad: 1, epilogue: [bias, relu], weight: 1}",
        &everyPrecision);
   State s;
   parseTc(&t, PRECISION_FP16,
           "{\"conv2d_nchw.tc.m\":[2,1],\"conv2d_nchw.tc.n\":[4,2],\"conv2d_nchw.tc.k\":1,\"conv2d_nchw.tc.split\":4}", &s);
   Lower_state(&t.set, &s, &t.ln);
   int weights = -1;
   for (int b = 0; b < t.ln.nbuffers; b++)
      if (strcmp(t.ln.buffers[b].name, "kernel") == 0)
         weights = b;
   assert_true(weights >= 0);
   static const char *const axes[] = { "rc", "ry", "rx" };
   for (int i = 0; i < 3; i++) {
      Where w = { .ln = &t.ln, .name = axes[i], .buffer = weights };
      walk(&w, t.ln.kernels[0].body);
      assert_int_equal(w.shape, 0);
      assert_true(w.seen);
      assert_int_equal(w.nfound, 1);
      assert_string_equal(t.ln.vars[w.found[0]].name, "k_outer");
   }
   unload(&t);
}

/* Where thread `tid` of block 0 stages at every loop's first iteration (k_outer 0,
 * round 0): the index of its load of global buffer `global` and of its store into the
 * shared tile that load feeds, from the kernel's LETs evaluated on the way. */
typedef struct {
   const LoopNest *ln;
   int global;
   int64_t tid, value[256];
   int64_t loadIndex, storeIndex;
   bool found;
} Staging;

static int64_t evalIndex(const Staging *s, int32_t e) {
   const Expr *x = &s->ln->expr[e];
   int64_t a = x->nargs > 0 ? evalIndex(s, x->args[0]) : 0, b = x->nargs > 1 ? evalIndex(s, x->args[1]) : 0;
   switch ((ExprKind)x->kind) {
   case EXPR_INT: return x->v.i;
   case EXPR_AXIS: {
      const IrVar *v = &s->ln->vars[x->ref];
      return v->kind == VAR_THREAD ? s->tid : v->kind == VAR_LET ? s->value[x->ref] : 0;
   }
   case EXPR_ADD: return a + b;
   case EXPR_SUB: return a - b;
   case EXPR_MUL: return a * b;
   case EXPR_FLOORDIV: return a / b;
   case EXPR_FLOORMOD: return a % b;
   default: fail_msg("an index with expression kind %d", x->kind); return 0;
   }
}

static int32_t globalLoad(const Staging *s, int32_t e) {
   const Expr *x = &s->ln->expr[e];
   if (x->kind == EXPR_LOAD && x->ref == s->global)
      return e;
   for (int i = 0; i < x->nargs; i++) {
      int32_t l = globalLoad(s, x->args[i]);
      if (l >= 0)
         return l;
   }
   return -1;
}

static void stage(Staging *s, int32_t id) {
   const IrStmt *st = &s->ln->stmt[id];
   if (s->found)
      return;
   switch ((StmtKind)st->kind) {
   case STMT_SEQ:
      for (int i = 0; i < st->count; i++)
         stage(s, s->ln->list[st->first + i]);
      break;
   case STMT_FOR:
   case STMT_IF:
      stage(s, st->body);
      break;
   case STMT_LET:
      assert_true(st->var < 256);
      s->value[st->var] = evalIndex(s, st->value);
      break;
   case STMT_STORE: {
      int32_t l = s->ln->buffers[st->buffer].scope == SCOPE_SHARED ? globalLoad(s, st->value) : -1;
      if (l >= 0) {
         s->loadIndex = evalIndex(s, s->ln->expr[l].args[0]);
         s->storeIndex = evalIndex(s, st->index);
         s->found = true;
      }
      break;
   }
   default:
      break;
   }
}

static void staged(const TcTask *t, const char *global, int64_t tid, int64_t *at, int64_t *store) {
   Staging s = { .ln = &t->ln, .global = -1, .tid = tid };
   for (int b = 0; b < t->ln.nbuffers; b++)
      if (strcmp(t->ln.buffers[b].name, global) == 0)
         s.global = b;
   assert_true(s.global >= 0);
   stage(&s, t->ln.kernels[0].body);
   assert_true(s.found);
   *at = s.loadIndex;
   *store = s.storeIndex;
}

/* Staging runs consecutive threads along whichever direction of the tile their global
 * elements lie together on. A 1x1 convolution's image (k is the channel, 196 elements
 * apart; the rows are pixels, adjacent): a warp's 32 threads take the tile's 32 rows of
 * one channel, 32 adjacent floats, and the next warp the next channel. Its weights (OIHW:
 * k adjacent): 16 threads take a row's 16 k. A 3x3 convolution's image keeps threads
 * along k, whose channel, kernel row and column would otherwise be divided out for
 * every element. */
static void test_staging_follows_the_layout(void **state) {
   (void)state;
   TcTask t;
   load(&t, "{op: conv2d, input: [256, 14, 14], filters: 256, kernel: 1, epilogue: [bias, relu], weight: 1}",
        &everyPrecision);
   State s;
   parseTc(&t, PRECISION_FP16, "{\"conv2d_nchw.tc.m\":[2,1],\"conv2d_nchw.tc.n\":[4,2],\"conv2d_nchw.tc.k\":1}", &s);
   Lower_state(&t.set, &s, &t.ln);
   int64_t at, store;
   for (int64_t tid = 0; tid < 64; tid++) {
      staged(&t, "data", tid, &at, &store);
      assert_int_equal(at, (tid / 32) * 196 + tid % 32);
      assert_int_equal(store, (tid % 32) * 24 + tid / 32);
      staged(&t, "kernel", tid, &at, &store);
      assert_int_equal(at, (tid / 16) * 256 + tid % 16);
      assert_int_equal(store, (tid / 16) * 24 + tid % 16);
   }
   unload(&t);

   load(&t, "{op: conv2d, input: [256, 14, 14], filters: 256, kernel: 3, pad: 1, epilogue: [bias, relu], weight: 1}",
        &everyPrecision);
   parseTc(&t, PRECISION_FP16, "{\"conv2d_nchw.tc.m\":[2,1],\"conv2d_nchw.tc.n\":[4,2],\"conv2d_nchw.tc.k\":1}", &s);
   Lower_state(&t.set, &s, &t.ln);
   /* thread 4 of the first row: k = 4 is channel 0, kernel row 1, column 1, so pixel
    * (0, 0) reads the image at (0, 0); thread 16, row 1 (pixel (0, 1)), k 0 at (-1, 0):
    * padding, which the index still computes */
   staged(&t, "data", 4, &at, &store);
   assert_int_equal(store, 4);
   assert_int_equal(at, 0);
   staged(&t, "data", 16, &at, &store);
   assert_int_equal(store, 24);
   assert_int_equal(at, -14);
   unload(&t);
}

/* One output element of a TC state: equal to `rounded`, the hand-rounded reference, and
 * within Precision_dotErrorBound of the FP32 reference for a k-term dot product with
 * sums P and Q; returns the error over that bound. */
static double checkElement(Precision p, const char *knobs, const char *where, float got, float rounded, float fp32,
                           long k, double P, double Q) {
   if (got != rounded)
      fail_msg("%s %s: %s is %.9g, the rounded reference %.9g", Precision_name(p), knobs, where, got, rounded);
   double err = fabs((double)got - fp32), bound = Precision_dotErrorBound(p, k, P, Q);
   if (err > bound)
      fail_msg("%s: %s differs from FP32 by %g, more than the bound %g", Precision_name(p), where, err, bound);
   return err / bound;
}

/* dense 33x47x70 in FP16: the executor equals a reference that rounds each operand to
 * FP16 and adds the products in FP32 in k order, exactly (split-K: each run of splitK
 * terms from zero, then the partials in order; 0 when unsplit); and it lies within
 * Precision_dotErrorBound of the FP32 reference at every output. */
static void checkDense(Precision p, const char *knobs, int splitK) {
   TcTask t;
   load(&t, "{op: dense, m: 33, n: 47, k: 70, weight: 1}", &everyPrecision);
   State s;
   parseTc(&t, p, knobs, &s);
   float *got = run(&t, &s);
   const float *A = t.inputs[0], *B = t.inputs[1];
   float *fp32 = xMalloc(33 * 47 * sizeof(float));
   Ref_run(&t.net.tasks[0].op, (const float *const *)t.inputs, fp32);
   double worst = 0;
   for (int i = 0; i < 33; i++)
      for (int j = 0; j < 47; j++) {
         float acc = 0, part = 0;
         double P = 0, Q = 0;
         for (int k = 0; k < 70; k++) {
            if (splitK && k % splitK == 0) {
               acc += part;
               part = 0;
            }
            part += Precision_round(p, A[i * 70 + k]) * Precision_round(p, B[j * 70 + k]);
            P += fabs((double)A[i * 70 + k] * B[j * 70 + k]);
            Q += fabs(A[i * 70 + k]) + fabs(B[j * 70 + k]);
         }
         acc += part;
         char where[64];
         snprintf(where, sizeof where, "[%d, %d]", i, j);
         worst = fmax(worst, checkElement(p, knobs, where, got[i * 47 + j], acc, fp32[i * 47 + j], 70, P, Q));
      }
   /* the rounding shows: the result is not the FP32 one */
   assert_true(worst > 0);
   free(fp32);
   free(got);
   unload(&t);
}

static void test_executor_rounds_exactly(void **state) {
   (void)state;
   checkDense(PRECISION_FP16, "{\"T_dense.tc.m\":[2,1],\"T_dense.tc.n\":[2,2],\"T_dense.tc.k\":2}", 0);
   checkDense(PRECISION_FP16, "{\"T_dense.tc.m\":[1,4],\"T_dense.tc.n\":[4,1],\"T_dense.tc.k\":4}", 0);
   checkDense(PRECISION_BF16, "{\"T_dense.tc.m\":[1,1],\"T_dense.tc.n\":[1,8],\"T_dense.tc.k\":1}", 0);
   checkDense(PRECISION_TF32, "{\"T_dense.tc.m\":[2,2],\"T_dense.tc.n\":[1,2],\"T_dense.tc.k\":4}", 0);
   /* split-K: 3 stages of 32 over 2 blocks, 2 stages each; 5 stages of 16 over 4 (the
    * last block's 2 stages lie past k = 70 and add zeros); 9 stages of 8 over 8 */
   checkDense(PRECISION_FP16, "{\"T_dense.tc.m\":[2,1],\"T_dense.tc.n\":[2,2],\"T_dense.tc.k\":2,\"T_dense.tc.split\":2}", 64);
   checkDense(PRECISION_BF16, "{\"T_dense.tc.m\":[1,2],\"T_dense.tc.n\":[2,1],\"T_dense.tc.k\":1,\"T_dense.tc.split\":4}", 32);
   checkDense(PRECISION_TF32, "{\"T_dense.tc.m\":[1,1],\"T_dense.tc.n\":[1,1],\"T_dense.tc.k\":1,\"T_dense.tc.split\":8}", 16);
   /* a pipeline: the same sums whichever stage the registers carry */
   checkDense(PRECISION_FP16, "{\"T_dense.tc.m\":[2,1],\"T_dense.tc.n\":[2,2],\"T_dense.tc.k\":1,\"T_dense.tc.stages\":2}", 0);
   checkDense(PRECISION_BF16, "{\"T_dense.tc.m\":[1,2],\"T_dense.tc.n\":[2,1],\"T_dense.tc.k\":1,\"T_dense.tc.split\":2,\"T_dense.tc.stages\":2}", 48);
   checkDense(PRECISION_TF32, "{\"T_dense.tc.m\":[1,1],\"T_dense.tc.n\":[1,1],\"T_dense.tc.k\":1,\"T_dense.tc.split\":4,\"T_dense.tc.stages\":2}", 24);
}

/* conv2d as an implicit GEMM: batch 2, 5 channels of 9x11, 13 filters of 3x3, stride 2,
 * padding 1, so m = (n, y, x) is 2x5x6 = 60, n is 13 filters and k = (c, ky, kx) is 45,
 * none a multiple of the tile. The executor equals a reference that adds the products of
 * rounded operands in FP32 in (c, ky, kx) order, the padding's zeros included, exactly;
 * and it lies within Precision_dotErrorBound of the FP32 reference at every output. */
static void checkConv(Precision p, const char *knobs, int splitK) {
   enum { NB = 2, C = 5, H = 9, W = 11, F = 13, R = 3, STRIDE = 2, PAD = 1, OH = 5, OW = 6 };
   TcTask t;
   loadBatch(&t, NB, "{op: conv2d, input: [5, 9, 11], filters: 13, kernel: 3, stride: 2, pad: 1, weight: 1}",
             &everyPrecision);
   assert_int_equal(t.outElems, NB * F * OH * OW);
   const SketchGemm *gm = &t.set.sketches[tcSketch(&t.set, p)].kernels[0].gemm;
   assert_int_equal(gm->M, NB * OH * OW);
   assert_int_equal(gm->N, F);
   assert_int_equal(gm->K, C * R * R);
   assert_int_equal(gm->nbatch, 0);
   State s;
   parseTc(&t, p, knobs, &s);
   float *got = run(&t, &s);
   const float *D = t.inputs[0], *K = t.inputs[1];
   float *fp32 = xMalloc((size_t)t.outElems * sizeof(float));
   Ref_run(&t.net.tasks[0].op, (const float *const *)t.inputs, fp32);
   double worst = 0;
   for (int n = 0; n < NB; n++)
      for (int f = 0; f < F; f++)
         for (int y = 0; y < OH; y++)
            for (int x = 0; x < OW; x++) {
               float acc = 0, part = 0;
               double P = 0, Q = 0;
               for (int c = 0; c < C; c++)
                  for (int ky = 0; ky < R; ky++)
                     for (int kx = 0; kx < R; kx++) {
                        int iy = y * STRIDE - PAD + ky, ix = x * STRIDE - PAD + kx;
                        float d = iy >= 0 && iy < H && ix >= 0 && ix < W ? D[((n * C + c) * H + iy) * W + ix] : 0.0f;
                        float w = K[((f * C + c) * R + ky) * R + kx];
                        if (splitK && ((c * R + ky) * R + kx) % splitK == 0) {
                           acc += part;
                           part = 0;
                        }
                        part += Precision_round(p, d) * Precision_round(p, w);
                        P += fabs((double)d * w);
                        Q += fabs(d) + fabs(w);
                     }
               acc += part;
               int64_t e = ((n * F + f) * OH + y) * OW + x;
               char where[64];
               snprintf(where, sizeof where, "[%d, %d, %d, %d]", n, f, y, x);
               worst = fmax(worst, checkElement(p, knobs, where, got[e], acc, fp32[e], C * R * R, P, Q));
            }
   assert_true(worst > 0);
   free(fp32);
   free(got);
   unload(&t);
}

static void test_conv2d_as_implicit_gemm(void **state) {
   (void)state;
   checkConv(PRECISION_FP16, "{\"conv2d_nchw.tc.m\":[2,1],\"conv2d_nchw.tc.n\":[1,2],\"conv2d_nchw.tc.k\":2}", 0);
   checkConv(PRECISION_FP16, "{\"conv2d_nchw.tc.m\":[1,4],\"conv2d_nchw.tc.n\":[2,1],\"conv2d_nchw.tc.k\":1}", 0);
   checkConv(PRECISION_BF16, "{\"conv2d_nchw.tc.m\":[4,1],\"conv2d_nchw.tc.n\":[1,1],\"conv2d_nchw.tc.k\":4}", 0);
   checkConv(PRECISION_TF32, "{\"conv2d_nchw.tc.m\":[1,2],\"conv2d_nchw.tc.n\":[2,1],\"conv2d_nchw.tc.k\":4}", 0);
   /* split-K over the windows: k = 45 in 3 stages of 16, 2 blocks of 2 stages; TF32's 6
    * stages of 8 over 2 blocks of 3 */
   checkConv(PRECISION_FP16, "{\"conv2d_nchw.tc.m\":[1,4],\"conv2d_nchw.tc.n\":[2,1],\"conv2d_nchw.tc.k\":1,\"conv2d_nchw.tc.split\":2}", 32);
   checkConv(PRECISION_TF32, "{\"conv2d_nchw.tc.m\":[2,1],\"conv2d_nchw.tc.n\":[1,2],\"conv2d_nchw.tc.k\":1,\"conv2d_nchw.tc.split\":2}", 24);
   checkConv(PRECISION_FP16, "{\"conv2d_nchw.tc.m\":[1,4],\"conv2d_nchw.tc.n\":[2,1],\"conv2d_nchw.tc.k\":1,\"conv2d_nchw.tc.stages\":2}", 0);
   checkConv(PRECISION_TF32, "{\"conv2d_nchw.tc.m\":[2,1],\"conv2d_nchw.tc.n\":[1,2],\"conv2d_nchw.tc.k\":1,\"conv2d_nchw.tc.split\":2,\"conv2d_nchw.tc.stages\":2}", 24);
   /* depthwise and grouped convolutions are no matrix multiply of this kind */
   TcTask t;
   load(&t, "{op: conv2d, input: [12, 7, 7], filters: 12, kernel: 3, pad: 1, groups: 3, weight: 1}", &everyPrecision);
   for (int i = 0; i < t.set.count; i++)
      assert_int_equal(t.set.sketches[i].precision, PRECISION_FP32);
   unload(&t);
}

/* Random and mutated states of each precision, with fused epilogues and a batch, stay
 * within the bound of the FP32 reference (the epilogue's own FP32 rounding on top). */
static void test_random_states_within_bound(void **state) {
   (void)state;
   static const char *const shapes[] = {
      "{op: batch_matmul, b: 3, m: 17, n: 9, k: 30, epilogue: [bias, relu], weight: 1}",
      "{op: dense, m: 64, n: 32, k: 48, epilogue: [bias], weight: 1}",
      "{op: dense, m: 5, n: 3, k: 7, weight: 1}",
      "{op: conv2d, input: [7, 10, 10], filters: 9, kernel: [1, 3], pad: [0, 1], epilogue: [bias, relu], weight: 1}",
      "{op: conv2d, input: [6, 12, 9], filters: 20, kernel: 3, stride: 2, pad: 2, dilation: 2, epilogue: [bias], weight: 1}",
   };
   Rng rng;
   Rng_seed(&rng, 25);
   int checked = 0;
   for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
      TcTask t;
      load(&t, shapes[i], &everyPrecision);
      float *fp32 = xMalloc((size_t)t.outElems * sizeof(float));
      Ref_run(&t.net.tasks[0].op, (const float *const *)t.inputs, fp32);
      long K = (long)t.set.sketches[t.set.count - 1].kernels[0].gemm.K;
      for (int p = PRECISION_FP16; p < PRECISION_COUNT; p++)
         for (int n = 0; n < 6; n++) {
            State s;
            char *cause = NULL;
            if (State_sampleValid(&t.set, tcSketch(&t.set, (Precision)p), &rng, &limits, 10000, &s, &cause) < 0)
               fail_msg("%s", cause);
            for (int m = 0; m < n % 3; m++)
               State_mutate(&t.set, &s, &rng, &limits);
            float *got = run(&t, &s);
            /* inputs in [-1, 1]: P <= K and Q <= 2K bound every output's sums */
            double bound = Precision_dotErrorBound((Precision)p, K, (double)K, 2.0 * (double)K) + 1e-5;
            for (int64_t e = 0; e < t.outElems; e++)
               if (!(fabs((double)got[e] - fp32[e]) <= bound)) {
                  char text[512];
                  State_format(&t.set, &s, text, sizeof text);
                  fail_msg("%s: %s element %lld is %.9g, FP32 %.9g, bound %g", shapes[i], text, (long long)e,
                           got[e], fp32[e], bound);
               }
            free(got);
            checked++;
         }
      free(fp32);
      unload(&t);
   }
   assert_int_equal(checked, 5 * 3 * 6);
}

static void test_simulator_uses_the_tensor_rate(void **state) {
   (void)state;
   assert_true(Sim_tensorFlopsPerClk(9, 0, PRECISION_FP16) == 4096);
   assert_true(Sim_tensorFlopsPerClk(9, 0, PRECISION_TF32) == 2048);
   assert_true(Sim_tensorFlopsPerClk(8, 0, PRECISION_BF16) == 2048);
   assert_true(Sim_tensorFlopsPerClk(7, 0, PRECISION_BF16) == 0);
   assert_true(Sim_tensorFlopsPerClk(7, 5, PRECISION_FP16) == 1024);
   assert_true(Sim_tensorFlopsPerClk(9, 0, PRECISION_FP32) == 0);
}

/* Each precision's kernel of a task, with knobs `knobs`, compiles with NVRTC for sm_80 and sm_90 without spills;
 * returns the compiles. */
static int compileEvery(const char *task, const char *knobs) {
   TcTask t;
   load(&t, task, &everyPrecision);
   int compiled = 0;
   for (int p = PRECISION_FP16; p < PRECISION_COUNT; p++) {
      State s;
      char *cause = NULL;
      parseTc(&t, (Precision)p, knobs, &s);
      Lower_state(&t.set, &s, &t.ln);
      char *src = Cuda_generate(&t.ln, "tensor cores");
      char mma[64];
      static const char *const ptx[PRECISION_COUNT] = { "f32", "f16", "bf16", "tf32" };
      snprintf(mma, sizeof mma, "mma.sync.aligned.m16n8k%d.row.col.f32.%s.%s.f32", Precision_mmaDepth((Precision)p),
               ptx[p], ptx[p]);
      assert_non_null(strstr(src, mma));
      /* TF32 copies floats asynchronously; FP16 and BF16 round what they stage, to 2-byte
       * tiles whose fragment registers are single loads */
      bool pipelined = strstr(knobs, "tc.stages\":2") != NULL;
      assert_true((strstr(src, "_prefetch[") != NULL) == pipelined);
      if (p == PRECISION_TF32) {
         /* ... except through a pipeline's registers */
         assert_true((strstr(src, "cp.async.ca.shared.global") != NULL) == !pipelined);
         assert_null(strstr(src, "unsigned short"));
      } else {
         char round[64];
         snprintf(round, sizeof round, "asm(\"cvt.rn.%s.f32 %%0, %%1;\" : \"=h\"(h) : \"f\"(x));", ptx[p]);
         assert_non_null(strstr(src, round));
         assert_non_null(strstr(src, "__shared__ __align__(16) unsigned short"));
         assert_non_null(strstr(src, "const unsigned r0 = *(const unsigned *)&tc_a[(tc_g + 0) * "));
         assert_null(strstr(src, "cp.async"));
      }
      static const char *const archs[] = { "sm_80", "sm_90" };
      for (int a = 0; a < 2; a++) {
         NvrtcResult r;
         if (Nvrtc_compile(src, "tc.cu", archs[a], &r, &cause) < 0)
            fail_msg("%s\n%s", cause, src);
         assert_int_equal(r.nkernels, t.ln.nkernels);
         for (int k = 0; k < t.ln.nkernels; k++) {
            const NvrtcKernelInfo *ki = NvrtcResult_kernel(&r, t.ln.kernels[k].name);
            assert_non_null(ki);
            assert_int_equal(ki->sharedBytes, t.ln.kernels[k].sharedBytes);
            /* 2x2 fragments per warp fit in registers */
            assert_int_equal(ki->spillStores, 0);
         }
         NvrtcResult_done(&r);
         compiled++;
      }
      free(src);
   }
   unload(&t);
   return compiled;
}

static void test_every_precision_compiles(void **state) {
   (void)state;
   int compiled = compileEvery("{op: batch_matmul, b: 2, m: 33, n: 47, k: 70, epilogue: [bias, relu], weight: 1}",
                               "{\"T_batch_matmul_NT.tc.m\":[1,2],\"T_batch_matmul_NT.tc.n\":[2,2],"
                               "\"T_batch_matmul_NT.tc.k\":2}");
   /* the implicit GEMM gathers the padded windows into the shared tile */
   compiled += compileEvery("{op: conv2d, input: [5, 9, 11], filters: 13, kernel: 3, stride: 2, pad: 1, epilogue: [bias, relu], weight: 1}",
                            "{\"conv2d_nchw.tc.m\":[2,1],\"conv2d_nchw.tc.n\":[1,2],\"conv2d_nchw.tc.k\":2}");
   /* split-K: the partials' kernel and the sum's, both in one module */
   compiled += compileEvery("{op: dense, m: 33, n: 47, k: 700, epilogue: [bias, relu], weight: 1}",
                            "{\"T_dense.tc.m\":[1,2],\"T_dense.tc.n\":[2,2],\"T_dense.tc.k\":1,\"T_dense.tc.split\":4}");
   /* a pipeline: the registers' loads ahead of the mma and their stores to the tiles */
   compiled += compileEvery("{op: dense, m: 33, n: 47, k: 700, epilogue: [bias, relu], weight: 1}",
                            "{\"T_dense.tc.m\":[1,2],\"T_dense.tc.n\":[2,2],\"T_dense.tc.k\":1,\"T_dense.tc.split\":4,"
                            "\"T_dense.tc.stages\":2}");
   assert_int_equal(compiled, 24);
}

int main(void) {
   SchedLimits_default(&limits);
   struct CMUnitTest tests[] = {
      cmocka_unit_test(test_offered_only_when_asked),
      cmocka_unit_test(test_state_text_names_the_precision),
      cmocka_unit_test(test_executor_rounds_exactly),
      cmocka_unit_test(test_conv2d_as_implicit_gemm),
      cmocka_unit_test(test_random_states_within_bound),
      cmocka_unit_test(test_simulator_uses_the_tensor_rate),
      cmocka_unit_test(test_split_k),
      cmocka_unit_test(test_split_k_fills_the_gpu),
      cmocka_unit_test(test_pipeline),
      cmocka_unit_test(test_staging_index_arithmetic),
      cmocka_unit_test(test_staging_follows_the_layout),
      cmocka_unit_test(test_every_precision_compiles),
   };
   size_t n = sizeof tests / sizeof tests[0];
   return TestUtil_runGroup("tensorcore", tests, n, n - 1);
}
