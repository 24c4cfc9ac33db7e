/* Tensor-Core sketches: offered only when asked for and only for matrix multiplies,
 * their states' text with the precision, the CPU executor's emulation bit for bit (a
 * hand-rounded reference on shapes that are not multiples of the tile) and within the
 * rounding bound of the FP32 reference, and NVRTC compiles of every precision for sm_80
 * and sm_90 (when NVRTC is present). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "codegen/cuda.h"
#include "ir/exec.h"
#include "ir/lower.h"
#include "measure/nvrtc.h"
#include "sim/sim.h"
#include "te/network.h"
#include "te/ref.h"
#include "util/xalloc.h"

static SchedLimits limits;

static const SketchOptions everyPrecision = {
   PRECISION_BIT(PRECISION_FP16) | PRECISION_BIT(PRECISION_BF16) | PRECISION_BIT(PRECISION_TF32)
};

typedef struct {
   Network net;
   SketchSet set;
   LoopNest ln;
   float *inputs[OP_MAX_INPUTS];
   int64_t inElems[OP_MAX_INPUTS];
   int64_t outElems;
} TcTask;

static void load(TcTask *t, const char *yamlTask, const SketchOptions *opt) {
   memset(t, 0, sizeof *t);
   char text[512];
   snprintf(text, sizeof text, "network: tc\nbatch: 1\ntasks:\n  - %s\n", yamlTask);
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
   /* A 32 x (16 + 4) and B 16 x 20 floats */
   assert_int_equal(ks.sharedBytes, 4 * 32 * 20 + 4 * 16 * 20);

   snprintf(want, sizeof want, "state: sketch %d computes in bf16; the state says \"fp16\"", bf);
   expectBad(&t, bf, "fp16", "{}", want);
   expectBad(&t, bf, "bf16", "[3,1]", "state: knob 'T_batch_matmul_NT.tc.m' is [3,1]; every part must be a power of two from 1 to 8");
   /* m is 20: a block tile of 64 rows is larger than the 32 that cover it */
   expectBad(&t, bf, "bf16", "[2,2]", "state: the tensor-core kernel of T_batch_matmul_NT has a block tile of 64 along m, whose extent is 20; at most 32");
   unload(&t);
}

/* dense 33x47x70 in FP16: the executor equals a reference that rounds each operand to
 * FP16 and adds the products in FP32 in k order, exactly; and it lies within
 * Precision_dotErrorBound of the FP32 reference at every output. */
static void checkDense(Precision p, const char *knobs) {
   TcTask t;
   load(&t, "{op: dense, m: 33, n: 47, k: 70, weight: 1}", &everyPrecision);
   char text[512];
   snprintf(text, sizeof text, "{\"v\":1,\"sketch\":%d,\"precision\":\"%s\",\"knobs\":%s}", tcSketch(&t.set, p),
            Precision_name(p), knobs);
   State s;
   parse(&t, text, &s);
   float *got = run(&t, &s);
   const float *A = t.inputs[0], *B = t.inputs[1];
   float *fp32 = xMalloc(33 * 47 * sizeof(float));
   Ref_run(&t.net.tasks[0].op, (const float *const *)t.inputs, fp32);
   double worst = 0;
   for (int i = 0; i < 33; i++)
      for (int j = 0; j < 47; j++) {
         float acc = 0;
         double P = 0, Q = 0;
         for (int k = 0; k < 70; k++) {
            acc += Precision_round(p, A[i * 70 + k]) * Precision_round(p, B[j * 70 + k]);
            P += fabs((double)A[i * 70 + k] * B[j * 70 + k]);
            Q += fabs(A[i * 70 + k]) + fabs(B[j * 70 + k]);
         }
         float g = got[i * 47 + j];
         if (g != acc)
            fail_msg("%s %s: [%d, %d] is %.9g, the rounded reference %.9g", Precision_name(p), knobs, i, j, g, acc);
         double err = fabs((double)g - fp32[i * 47 + j]), bound = Precision_dotErrorBound(p, 70, P, Q);
         if (err > bound)
            fail_msg("%s: [%d, %d] differs from FP32 by %g, more than the bound %g", Precision_name(p), i, j, err, bound);
         worst = fmax(worst, err / bound);
      }
   /* the rounding shows: the result is not the FP32 one */
   assert_true(worst > 0);
   free(fp32);
   free(got);
   unload(&t);
}

static void test_executor_rounds_exactly(void **state) {
   (void)state;
   checkDense(PRECISION_FP16, "{\"T_dense.tc.m\":[2,1],\"T_dense.tc.n\":[2,2],\"T_dense.tc.k\":2}");
   checkDense(PRECISION_FP16, "{\"T_dense.tc.m\":[1,4],\"T_dense.tc.n\":[4,1],\"T_dense.tc.k\":4}");
   checkDense(PRECISION_BF16, "{\"T_dense.tc.m\":[1,1],\"T_dense.tc.n\":[1,8],\"T_dense.tc.k\":1}");
   checkDense(PRECISION_TF32, "{\"T_dense.tc.m\":[2,2],\"T_dense.tc.n\":[1,2],\"T_dense.tc.k\":4}");
}

/* Random and mutated states of each precision, with fused epilogues and a batch, stay
 * within the bound of the FP32 reference (the epilogue's own FP32 rounding on top). */
static void test_random_states_within_bound(void **state) {
   (void)state;
   static const char *const shapes[] = {
      "{op: batch_matmul, b: 3, m: 17, n: 9, k: 30, epilogue: [bias, relu], weight: 1}",
      "{op: dense, m: 64, n: 32, k: 48, epilogue: [bias], weight: 1}",
      "{op: dense, m: 5, n: 3, k: 7, weight: 1}",
   };
   Rng rng;
   Rng_seed(&rng, 25);
   int checked = 0;
   for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
      TcTask t;
      load(&t, shapes[i], &everyPrecision);
      float *fp32 = xMalloc((size_t)t.outElems * sizeof(float));
      Ref_run(&t.net.tasks[0].op, (const float *const *)t.inputs, fp32);
      const Stage *mm = &t.set.dag.stages[t.set.sketches[t.set.count - 1].kernels[0].anchor];
      long K = (long)mm->rextent[0];
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
   assert_int_equal(checked, 3 * 3 * 6);
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

static void test_every_precision_compiles(void **state) {
   (void)state;
   TcTask t;
   load(&t, "{op: batch_matmul, b: 2, m: 33, n: 47, k: 70, epilogue: [bias, relu], weight: 1}", &everyPrecision);
   int compiled = 0;
   for (int p = PRECISION_FP16; p < PRECISION_COUNT; p++) {
      State s;
      char *cause = NULL;
      char text[512];
      snprintf(text, sizeof text,
               "{\"v\":1,\"sketch\":%d,\"precision\":\"%s\",\"knobs\":{\"T_batch_matmul_NT.tc.m\":[1,2],"
               "\"T_batch_matmul_NT.tc.n\":[2,2],\"T_batch_matmul_NT.tc.k\":2}}",
               tcSketch(&t.set, (Precision)p), Precision_name((Precision)p));
      parse(&t, text, &s);
      Lower_state(&t.set, &s, &t.ln);
      char *src = Cuda_generate(&t.ln, "tensor cores");
      char mma[64];
      static const char *const ptx[PRECISION_COUNT] = { "f32", "f16", "bf16", "tf32" };
      snprintf(mma, sizeof mma, "mma.sync.aligned.m16n8k%d.row.col.f32.%s.%s.f32", Precision_mmaDepth((Precision)p),
               ptx[p], ptx[p]);
      assert_non_null(strstr(src, mma));
      assert_non_null(strstr(src, "cp.async.ca.shared.global"));
      static const char *const archs[] = { "sm_80", "sm_90" };
      for (int a = 0; a < 2; a++) {
         NvrtcResult r;
         if (Nvrtc_compile(src, "tc.cu", archs[a], &r, &cause) < 0)
            fail_msg("%s\n%s", cause, src);
         assert_int_equal(r.nkernels, 1);
         const NvrtcKernelInfo *ki = NvrtcResult_kernel(&r, t.ln.kernels[0].name);
         assert_non_null(ki);
         assert_int_equal(ki->sharedBytes, t.ln.kernels[0].sharedBytes);
         /* 2x2 fragments per warp fit in registers */
         assert_int_equal(ki->spillStores, 0);
         NvrtcResult_done(&r);
         compiled++;
      }
      free(src);
   }
   assert_int_equal(compiled, 6);
   unload(&t);
}

int main(void) {
   SchedLimits_default(&limits);
   struct CMUnitTest tests[] = {
      cmocka_unit_test(test_offered_only_when_asked),
      cmocka_unit_test(test_state_text_names_the_precision),
      cmocka_unit_test(test_executor_rounds_exactly),
      cmocka_unit_test(test_random_states_within_bound),
      cmocka_unit_test(test_simulator_uses_the_tensor_rate),
      cmocka_unit_test(test_every_precision_compiles),
   };
   size_t n = sizeof tests / sizeof tests[0];
   return TestUtil_runGroup("tensorcore", tests, n, n - 1);
}
