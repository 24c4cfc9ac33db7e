/* Lowering and the CPU executor: random and mutated states of every op and every sketch
 * kind, lowered and run on the CPU over the whole grid, equal the op's C reference;
 * structural facts of a hand-picked tiled state; the executor's bounds checks. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "ir/exec.h"
#include "ir/lower.h"
#include "te/network.h"
#include "te/ref.h"
#include "util/xalloc.h"

static SchedLimits limits;

/* Small shapes of every op, sketch kind and epilogue kind (batch 2), odd sizes and guards
 * included. */
static const char *const tasks =
   "network: lowering\n"
   "batch: 2\n"
   "tasks:\n"
   "  - {op: conv2d, input: [5, 9, 9], filters: 8, kernel: 3, stride: 2, pad: 1, epilogue: [bias, relu], weight: 1}\n"
   "  - {op: conv2d, input: [8, 7, 7], filters: 8, kernel: 3, pad: 1, groups: 8, epilogue: [bias, relu6], weight: 1}\n"
   "  - {op: conv2d, input: [4, 6, 6], filters: 6, kernel: [1, 3], pad: [0, 1], groups: 2, epilogue: [bias, add, relu], weight: 1}\n"
   "  - {op: conv2d, input: [3, 11, 11], filters: 4, kernel: 3, dilation: 2, pad: 2, weight: 1}\n"
   "  - {op: conv2d, input: [3, 7, 7], filters: 5, kernel: [7, 1], pad: [3, 0], epilogue: [bias], weight: 1}\n"
   "  - {op: conv2d, input: [96, 1, 1], filters: 4, kernel: 1, epilogue: [bias, relu], weight: 1}\n"
   "  - {op: max_pool2d, input: [3, 9, 9], kernel: 3, stride: 2, pad: 1, weight: 1}\n"
   "  - {op: avg_pool2d, input: [3, 7, 7], kernel: 3, stride: 2, pad: 1, count_include_pad: false, weight: 1}\n"
   "  - {op: avg_pool2d, input: [2, 17, 17], kernel: 7, stride: 3, weight: 1}\n"
   "  - {op: adaptive_avg_pool2d, input: [6, 7, 7], output: 1, weight: 1}\n"
   "  - {op: adaptive_avg_pool2d, input: [4, 7, 5], output: [3, 2], weight: 1}\n"
   "  - {op: dense, n: 40, k: 96, epilogue: [bias, gelu], weight: 1}\n"
   "  - {op: dense, m: 16, n: 24, k: 32, epilogue: [bias, add], weight: 1}\n"
   "  - {op: dense, n: 8, k: 12, weight: 1}\n"
   "  - {op: batch_matmul, b: 3, m: 8, n: 12, k: 16, epilogue: [bias], weight: 1}\n"
   "  - {op: softmax, input: [3, 40], weight: 1}\n"
   "  - {op: softmax, input: [2, 3, 64], weight: 1}\n"
   "  - {op: layer_norm, input: [5, 48], epilogue: [{clip: [-1, 1]}], weight: 1}\n"
   "  - {op: layer_norm, input: [4, 64], weight: 1}\n"
   "  - {op: conv2d, input: [6, 7, 7], filters: 6, kernel: 5, stride: 2, pad: 2, groups: 6, epilogue: [bias, hardswish], weight: 1}\n"
   "  - {op: conv2d, input: [12, 1, 1], filters: 20, kernel: 1, epilogue: [bias, hardsigmoid], weight: 1}\n"
   "  - {op: dense, m: 12, n: 4, k: 24, epilogue: [bias, sigmoid], weight: 1}\n";

typedef struct {
   const OpParams *p;
   float *inputs[OP_MAX_INPUTS];
   float *want;
   int64_t outElems;
} Case;

static void prepare(Case *c, const OpParams *p, uint64_t seed) {
   memset(c, 0, sizeof *c);
   c->p = p;
   for (int i = 0; i < Op_numInputs(p); i++) {
      int64_t shape[TE_MAX_DIMS];
      const char *name;
      int r = Op_inputShape(p, i, shape, &name);
      int64_t n = 1;
      for (int d = 0; d < r; d++)
         n *= shape[d];
      c->inputs[i] = xMalloc((size_t)n * sizeof(float));
      TestUtil_fillRandom(c->inputs[i], (size_t)n, seed + (uint64_t)i, -1.0f, 1.0f);
   }
   int64_t shape[TE_MAX_DIMS];
   int r = Op_outputShape(p, shape);
   c->outElems = 1;
   for (int d = 0; d < r; d++)
      c->outElems *= shape[d];
   c->want = xMalloc((size_t)c->outElems * sizeof(float));
   Ref_run(p, (const float *const *)c->inputs, c->want);
}

static void release(Case *c) {
   for (int i = 0; i < OP_MAX_INPUTS; i++)
      free(c->inputs[i]);
   free(c->want);
}

/* Runs every kernel of ln over its whole grid and compares with the reference; `text`
 * names what ln is in messages. */
static void runLowered(const SketchSet *set, const LoopNest *ln, const Case *c, const char *text) {
   float *globals[IR_MAX_BUFFERS];
   Exec_bindGlobals(ln, c->inputs, globals);
   int out = Lower_globalBuffer(ln, Dag_output(&set->dag));
   uint8_t *written = xCalloc((size_t)c->outElems, 1);
   Exec *x = Exec_new(ln);
   char *cause = NULL;
   for (int k = 0; k < ln->nkernels; k++)
      if (Exec_run(x, k, globals, NULL, 0, k == ln->nkernels - 1 ? written : NULL, &cause) < 0)
         fail_msg("%s: %s", text, cause);
   for (int64_t i = 0; i < c->outElems; i++)
      if (!written[i])
         fail_msg("%s: output element %lld never written", text, (long long)i);
   for (int64_t i = 0; i < c->outElems; i++) {
      double g = globals[out][i], w = c->want[i];
      if (!(fabs(g - w) <= 1e-4 * fabs(w) + 1e-5))
         fail_msg("%s: element %lld is %.8g, the reference %.8g", text, (long long)i, g, w);
   }
   Exec_free(x);
   free(written);
   Exec_releaseGlobals(ln, globals);
}

/* Lowers s and checks it as runLowered does. */
static void runAndCompare(const SketchSet *set, const State *s, const Case *c, LoopNest *ln) {
   char text[2048];
   State_format(set, s, text, sizeof text);
   Lower_state(set, s, ln);
   runLowered(set, ln, c, text);
}

static void test_every_sketch_matches_the_reference(void **state) {
   (void)state;
   Network net;
   char *cause = NULL;
   if (Network_loadString(&net, "lowering.task", tasks, strlen(tasks), &cause) < 0)
      fail_msg("%s", cause);
   LoopNest ln;
   LoopNest_init(&ln);
   Rng rng;
   Rng_seed(&rng, 2026);
   int checked = 0, kinds[3] = { 0 };
   for (int t = 0; t < net.ntasks; t++) {
      Dag g;
      Dag_init(&g);
      Op_buildDag(&net.tasks[t].op, &g);
      SketchSet set;
      SketchSet_generate(&set, &g);
      Case c;
      prepare(&c, &net.tasks[t].op, 100 + (uint64_t)t);
      for (int i = 0; i < 8 * set.count; i++) {
         State s;
         if (State_sampleValid(&set, i % set.count, &rng, &limits, 10000, &s, &cause) < 0)
            fail_msg("task %d: %s", t, cause);
         /* mutants reach thread counts and vector widths that samples never start at */
         for (int m = 0; m < i % 4; m++)
            State_mutate(&set, &s, &rng, &limits);
         runAndCompare(&set, &s, &c, &ln);
         for (int k = 0; k < set.sketches[s.sketch].nkernels; k++)
            kinds[set.sketches[s.sketch].kernels[k].kind]++;
         checked++;
      }
      release(&c);
      SketchSet_done(&set);
      Dag_done(&g);
   }
   assert_true(checked >= 200);
   assert_true(kinds[KERNEL_MLT] > 0 && kinds[KERNEL_SIMPLE] > 0 && kinds[KERNEL_CTR] > 0);
   LoopNest_done(&ln);
   Network_done(&net);
}

/* The reference program the GPU runner checks candidates against: right for every
 * op, one thread per output element, elementwise epilogues inlined. */
static void test_reference_program(void **state) {
   (void)state;
   Network net;
   char *cause = NULL;
   if (Network_loadString(&net, "lowering.task", tasks, strlen(tasks), &cause) < 0)
      fail_msg("%s", cause);
   LoopNest ln;
   LoopNest_init(&ln);
   int kernels[32];
   for (int t = 0; t < net.ntasks; t++) {
      Dag g;
      Dag_init(&g);
      Op_buildDag(&net.tasks[t].op, &g);
      SketchSet set;
      SketchSet_generate(&set, &g);
      Case c;
      prepare(&c, &net.tasks[t].op, 300 + (uint64_t)t);
      Lower_reference(&set, &ln);
      char text[64];
      snprintf(text, sizeof text, "reference of task %d", t);
      runLowered(&set, &ln, &c, text);
      for (int k = 0; k < ln.nkernels; k++) {
         int64_t space = Sketch_spaceLength(&g, ln.kernels[k].root);
         assert_int_equal(ln.kernels[k].block, space < 128 ? space : 128);
         assert_int_equal(ln.kernels[k].grid, (space + ln.kernels[k].block - 1) / ln.kernels[k].block);
         assert_int_equal(ln.kernels[k].sharedBytes, 0);
      }
      kernels[t] = ln.nkernels;
      release(&c);
      SketchSet_done(&set);
      Dag_done(&g);
   }
   /* conv2d + bias + relu: padding inlined, the convolution, then the epilogue */
   assert_int_equal(kernels[0], 2);
   /* a plain convolution and a plain dense: one kernel */
   assert_int_equal(kernels[3], 1);
   assert_int_equal(kernels[13], 1);
   /* avg pool: sum, then divide; softmax: max, sum of exponentials, normalize */
   assert_int_equal(kernels[7], 2);
   assert_int_equal(kernels[15], 3);
   assert_int_equal(kernels[18], 3);
   LoopNest_done(&ln);
   Network_done(&net);
}

/* Every task of the shipped networks has a reference program within the nest's limits,
 * its last kernel computing the output. */
static void test_reference_program_of_every_network(void **state) {
   (void)state;
   const char *files[] = { "models/resnet_50.task",      "models/resnet_18.task",
                           "models/mobilenet_v2.task",   "models/bert_base.task",
                           "models/wide_resnet_50.task", "models/resnext_50.task",
                           "models/deeplabv3_r50.task",  "models/bert_tiny.task",
                           "models/inception_v3.task",   "models/vit_b_16.task",
                           "models/densenet_121.task",   "models/mobilenet_v3.task",
                           "models/detr_r50.task" };
   LoopNest ln;
   LoopNest_init(&ln);
   int programs = 0;
   for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
      Network net;
      TestUtil_loadNetwork(&net, files[f]);
      for (int t = 0; t < net.ntasks; t++) {
         Dag g;
         Dag_init(&g);
         Op_buildDag(&net.tasks[t].op, &g);
         SketchSet set;
         SketchSet_generate(&set, &g);
         Lower_reference(&set, &ln);
         assert_true(ln.nkernels >= 1 && ln.nkernels <= IR_MAX_KERNELS);
         const IrKernel *last = &ln.kernels[ln.nkernels - 1];
         assert_int_equal(last->root, Dag_output(&g));
         assert_true(last->grid * last->block >= Dag_numElements(&g, Dag_output(&g)));
         programs++;
         SketchSet_done(&set);
         Dag_done(&g);
      }
      Network_done(&net);
   }
   assert_int_equal(programs, 417);   /* every task of the 13 files */
   LoopNest_done(&ln);
}

/* One task, built from its YAML line, and a state of it (as text) lowered. */
typedef struct {
   Network net;
   Dag g;
   SketchSet set;
   State s;
   LoopNest ln;
} Lowered;

static void lowerText(Lowered *l, const char *yamlTask, const char *stateText) {
   TestUtil_buildTask(&l->net, &l->g, &l->set, yamlTask);
   char *cause = NULL;
   if (State_parse(&l->set, stateText, &limits, &l->s, &cause) < 0)
      fail_msg("%s", cause);
   LoopNest_init(&l->ln);
   Lower_state(&l->set, &l->s, &l->ln);
}

static void releaseLowered(Lowered *l) {
   LoopNest_done(&l->ln);
   SketchSet_done(&l->set);
   Dag_done(&l->g);
   Network_done(&l->net);
}

static void test_tiled_conv_structure(void **state) {
   (void)state;
   Lowered l;
   lowerText(&l, "{op: conv2d, input: [64, 56, 56], filters: 64, kernel: 3, pad: 1, epilogue: [bias, relu], weight: 1}",
             "{\"v\":1,\"sketch\":0,\"knobs\":{\"conv2d_nchw.nn\":[1,1,1,1],\"conv2d_nchw.ff\":[1,4,4,1],"
             "\"conv2d_nchw.yy\":[2,14,1,1],\"conv2d_nchw.xx\":[1,1,2,1],\"conv2d_nchw.rc\":[4,16],"
             "\"conv2d_nchw.ry\":[1,3],\"conv2d_nchw.rx\":[1,1],\"kernel.shared.vector\":1,"
             "\"pad_temp.shared.vector\":1,\"conv2d_nchw.unroll\":512}}");
   assert_int_equal(l.ln.nkernels, 1);
   const IrKernel *k = &l.ln.kernels[0];
   assert_string_equal(k->name, "T_relu_kernel");
   /* 64/16 filter blocks x 56/28 row blocks x 56/2 column blocks; 4 x 14 threads */
   assert_int_equal(k->grid, 4 * 2 * 28);
   assert_int_equal(k->block, 56);
   /* kernel.shared 16x64x3x1 and pad_temp.shared 1x64x30x2 floats */
   assert_int_equal(k->sharedBytes, 4 * (3072 + 3840));
   KernelShape ks;
   State_kernelShape(&l.set, &l.s, 0, &ks);
   assert_int_equal(ks.sharedBytes, k->sharedBytes);
   assert_int_equal(ks.threads, k->block);
   assert_int_equal(ks.blocks, k->grid);
   /* the kernel reads data, kernel and bias and writes T_relu */
   assert_int_equal(k->nparams, 4);
   assert_string_equal(l.ln.buffers[k->params[0]].name, "data");
   assert_string_equal(l.ln.buffers[k->params[3]].name, "T_relu");
   releaseLowered(&l);
}

/* A squeeze-excitation conv (1x1 over a 1x1 map) stages 2 floats of data per round
 * before 80 of its kernel: the second buffer starts at 16 bytes, as ptxas places it */
static void test_shared_buffers_start_aligned(void **state) {
   (void)state;
   Lowered l;
   lowerText(&l, "{op: conv2d, input: [16, 1, 1], filters: 40, kernel: 1, epilogue: [bias, relu], weight: 1}",
             "{\"v\":1,\"sketch\":0,\"knobs\":{\"conv2d_nchw.nn\":[1,1,1,1],\"conv2d_nchw.ff\":[1,1,8,5],"
             "\"conv2d_nchw.yy\":[1,1,1,1],\"conv2d_nchw.xx\":[1,1,1,1],\"conv2d_nchw.rc\":[1,2],"
             "\"conv2d_nchw.ry\":[1,1],\"conv2d_nchw.rx\":[1,1],\"data.shared.vector\":1,"
             "\"kernel.shared.vector\":1,\"conv2d_nchw.unroll\":0}}");
   const IrKernel *k = &l.ln.kernels[0];
   assert_string_equal(k->name, "T_relu_kernel");
   /* data.shared 2 floats, padded to 16 bytes; kernel.shared 40 x 2 floats */
   assert_int_equal(k->sharedBytes, 16 + 4 * 80);
   KernelShape ks;
   State_kernelShape(&l.set, &l.s, 0, &ks);
   assert_int_equal(ks.sharedBytes, k->sharedBytes);
   releaseLowered(&l);
}

static void test_executor_reports_out_of_bounds(void **state) {
   (void)state;
   LoopNest ln;
   LoopNest_init(&ln);
   int64_t four = 4;
   int buf = Ir_buffer(&ln, "out", SCOPE_GLOBAL, 0, -1, 1, &four);
   ln.buffers[buf].output = true;
   IrKernel *k = &ln.kernels[ln.nkernels++];
   memset(k, 0, sizeof *k);
   snprintf(k->name, sizeof k->name, "broken_kernel");
   k->grid = 2;
   k->block = 3;
   k->blockVar = Ir_var(&ln, VAR_BLOCK, "blockIdx.x", 2);
   k->threadVar = Ir_var(&ln, VAR_THREAD, "threadIdx.x", 3);
   /* out[blockIdx.x*3 + threadIdx.x] = 1 overruns a 4-element buffer in block 1 */
   int32_t idx = Ir_binary(&ln, EXPR_ADD, Ir_binary(&ln, EXPR_MUL, Ir_varRef(&ln, k->blockVar), Ir_int(&ln, 3)),
                           Ir_varRef(&ln, k->threadVar));
   k->body = Ir_store(&ln, buf, idx, Ir_float(&ln, 1.0));
   float data[4] = { 0 };
   float *globals[IR_MAX_BUFFERS] = { data };
   Exec *x = Exec_new(&ln);
   char *cause = NULL;
   assert_int_equal(Exec_run(x, 0, globals, NULL, 0, NULL, &cause), -1);
   assert_string_equal(cause, "kernel broken_kernel, block 1, thread 1: store to out[4] outside 0..3");
   free(cause);
   /* block 0 alone is fine */
   int64_t first = 0;
   assert_int_equal(Exec_run(x, 0, globals, &first, 1, NULL, &cause), 0);
   assert_true(data[0] == 1.0f && data[2] == 1.0f);
   Exec_free(x);
   LoopNest_done(&ln);
}

int main(void) {
   SchedLimits_default(&limits);
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_sketch_matches_the_reference),
      cmocka_unit_test(test_reference_program),
      cmocka_unit_test(test_reference_program_of_every_network),
      cmocka_unit_test(test_tiled_conv_structure),
      cmocka_unit_test(test_shared_buffers_start_aligned),
      cmocka_unit_test(test_executor_reports_out_of_bounds),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
