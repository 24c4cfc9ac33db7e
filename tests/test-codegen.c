/* CUDA code generation: the exact source of a small tiled dense state (vectorized
 * fetches, a register tile, unrolled loops, the fused epilogue), which fetches are
 * vectorized and which are not, both cross-thread reduction forms, the reference
 * program's names, and NVRTC compiles of every sketch kind and of the reference
 * programs for sm_80 and sm_90 when NVRTC is present. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "codegen/cuda.h"
#include "ir/lower.h"
#include "measure/nvrtc.h"
#include "te/network.h"
#include "util/xalloc.h"

static SchedLimits limits;

typedef struct {
   Network net;
   Dag g;
   SketchSet set;
   LoopNest ln;
} Fixture;

static void setUp(Fixture *f, const char *task) {
   TestUtil_buildTask(&f->net, &f->g, &f->set, task);
   LoopNest_init(&f->ln);
}

static void tearDown(Fixture *f) {
   LoopNest_done(&f->ln);
   SketchSet_done(&f->set);
   Dag_done(&f->g);
   Network_done(&f->net);
}

static char *sourceOf(Fixture *f, const char *stateText) {
   State s;
   char *cause = NULL;
   if (State_parse(&f->set, stateText, &limits, &s, &cause) < 0)
      fail_msg("%s", cause);
   Lower_state(&f->set, &s, &f->ln);
   return Cuda_generate(&f->ln, NULL);
}

#define DENSE_STATE "{\"v\":1,\"sketch\":0,\"knobs\":{\"T_dense.i\":[1,2,1,2],\"T_dense.j\":[2,16,1,1]," \
                    "\"T_dense.k\":[2,4],\"data.shared.vector\":4,\"weight.shared.vector\":2,\"T_dense.unroll\":16}}"

static void test_dense_source_is_exact(void **state) {
   (void)state;
   Fixture f;
   setUp(&f, "{op: dense, m: 8, n: 64, k: 16, epilogue: [bias, relu], weight: 1}");
   char *src = sourceOf(&f, DENSE_STATE);
   char *path = TestUtil_srcPath("tests/data/dense-8x64x16.cu");
   char *want = TestUtil_readFile(path);
   free(path);
   assert_string_equal(src, want);
   free(want);
   free(src);
   tearDown(&f);
}

/* The new elementwise forms as the epilogue of the same state: the store of its first
 * register, bias added, then the epilogue's expression */
static void test_epilogue_expressions(void **state) {
   (void)state;
   static const struct {
      const char *epilogue, *store;
   } cases[] = {
      { "sigmoid", "T_sigmoid[(i_block * 4 + (i_thread * 2 + i_innermost)) * 64 + (j_block * 32 + j_thread)] = "
                   "(1.0f / (1.0f + expf(-(T_dense_local[i_innermost] + bias[j_block * 32 + j_thread]))));" },
      { "hardsigmoid", "T_hardsigmoid[(i_block * 4 + (i_thread * 2 + i_innermost)) * 64 + (j_block * 32 + j_thread)] = "
                       "fminf(fmaxf(T_dense_local[i_innermost] + bias[j_block * 32 + j_thread] + 3.0f, 0.0f), 6.0f) / 6.0f;" },
      { "hardswish", "T_hardswish[(i_block * 4 + (i_thread * 2 + i_innermost)) * 64 + (j_block * 32 + j_thread)] = "
                     "(T_dense_local[i_innermost] + bias[j_block * 32 + j_thread]) * (fminf(fmaxf(T_dense_local[i_innermost] + "
                     "bias[j_block * 32 + j_thread] + 3.0f, 0.0f), 6.0f) / 6.0f);" },
   };
   for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      Fixture f;
      char task[128];
      snprintf(task, sizeof task, "{op: dense, m: 8, n: 64, k: 16, epilogue: [bias, %s], weight: 1}", cases[i].epilogue);
      setUp(&f, task);
      char *src = sourceOf(&f, DENSE_STATE);
      if (!strstr(src, cases[i].store))
         fail_msg("%s: no line\n  %s\nin\n%s", cases[i].epilogue, cases[i].store, src);
      free(src);
      tearDown(&f);
   }
}

static void test_vector_fetch_only_when_aligned(void **state) {
   (void)state;
   Fixture f;
   setUp(&f, "{op: dense, m: 8, n: 64, k: 16, epilogue: [bias, relu], weight: 1}");
   char *src = sourceOf(&f, DENSE_STATE);
   assert_non_null(strstr(src, "*(float4 *)(data_shared + data_i) = *(const float4 *)(data + "));
   assert_non_null(strstr(src, "*(float2 *)(weight_shared + weight_i) = *(const float2 *)(weight + "));
   free(src);
   tearDown(&f);
   /* k = 18: rows of 18 floats do not start on 16-byte boundaries, so the lanes stay scalar */
   setUp(&f, "{op: dense, m: 8, n: 64, k: 18, weight: 1}");
   src = sourceOf(&f, "{\"v\":1,\"sketch\":0,\"knobs\":{\"T_dense.i\":[1,2,1,2],\"T_dense.j\":[2,16,1,1],"
                      "\"T_dense.k\":[3,3],\"data.shared.vector\":4,\"weight.shared.vector\":2,\"T_dense.unroll\":0}}");
   assert_null(strstr(src, "float4"));
   assert_null(strstr(src, "float2"));
   assert_non_null(strstr(src, "for (int lane = 0; lane < 4; ++lane)"));
   free(src);
   tearDown(&f);
   /* a padded input is fetched through the padding select: never a vector load; a 3x3
    * kernel's rows of 3 floats cannot be either */
   setUp(&f, "{op: conv2d, input: [16, 8, 8], filters: 16, kernel: 3, pad: 1, weight: 1}");
   src = sourceOf(&f, "{\"v\":1,\"sketch\":0,\"knobs\":{\"conv2d_nchw.nn\":[1,1,1,1],\"conv2d_nchw.ff\":[1,4,1,1],"
                      "\"conv2d_nchw.yy\":[1,8,1,1],\"conv2d_nchw.xx\":[1,1,8,1],\"conv2d_nchw.rc\":[1,4],"
                      "\"conv2d_nchw.ry\":[1,3],\"conv2d_nchw.rx\":[1,3],\"kernel.shared.vector\":4,"
                      "\"pad_temp.shared.vector\":4,\"conv2d_nchw.unroll\":64}}");
   assert_null(strstr(src, "float4"));
   assert_non_null(strstr(src, " ? data["));
   free(src);
   tearDown(&f);
   /* an unpadded 1x1 conv reads rows of 8 aligned floats of its input */
   setUp(&f, "{op: conv2d, input: [16, 8, 8], filters: 16, kernel: 1, weight: 1}");
   src = sourceOf(&f, "{\"v\":1,\"sketch\":0,\"knobs\":{\"conv2d_nchw.nn\":[1,1,1,1],\"conv2d_nchw.ff\":[1,4,1,1],"
                      "\"conv2d_nchw.yy\":[1,8,1,1],\"conv2d_nchw.xx\":[1,1,8,1],\"conv2d_nchw.rc\":[1,4],"
                      "\"conv2d_nchw.ry\":[1,1],\"conv2d_nchw.rx\":[1,1],\"data.shared.vector\":4,"
                      "\"kernel.shared.vector\":1,\"conv2d_nchw.unroll\":64}}");
   assert_non_null(strstr(src, "*(float4 *)(data_shared + data_i) = *(const float4 *)(data + "));
   free(src);
   tearDown(&f);
}

static void test_cross_thread_reductions(void **state) {
   (void)state;
   Fixture f;
   setUp(&f, "{op: softmax, input: [4, 100], weight: 1}");
   /* 32 threads: warp shuffles; 64 threads: a tree in shared memory */
   char *src = sourceOf(&f, "{\"v\":1,\"sketch\":0,\"knobs\":{\"T_softmax_maxelem.threads\":32,"
                            "\"T_softmax_norm.threads\":64,\"T_softmax_maxelem.unroll\":0,\"T_softmax_expsum.unroll\":0}}");
   assert_non_null(strstr(src, "red = fmaxf(red, __shfl_down_sync(0xffffffffu, red, offset, 32));"));
   assert_non_null(strstr(src, "__shared__ float red_buf[64];"));
   assert_non_null(strstr(src, "red_buf[threadIdx.x] += red_buf[threadIdx.x + stride];"));
   assert_int_equal(f.ln.nkernels, 2);
   assert_int_equal(f.ln.kernels[1].sharedBytes, 4 * 64);
   free(src);
   tearDown(&f);
}

/* Every sketch kind and every epilogue kind, compiled for both architectures. */
static const char *const kinds[] = {
   "{op: conv2d, input: [8, 9, 9], filters: 16, kernel: 3, stride: 2, pad: 1, epilogue: [bias, relu], weight: 1}",
   "{op: conv2d, input: [16, 7, 7], filters: 16, kernel: 3, pad: 1, groups: 16, epilogue: [bias, relu6], weight: 1}",
   "{op: max_pool2d, input: [8, 17, 17], kernel: 3, stride: 2, pad: 1, weight: 1}",
   "{op: avg_pool2d, input: [8, 7, 7], kernel: 3, pad: 1, count_include_pad: false, weight: 1}",
   "{op: adaptive_avg_pool2d, input: [32, 7, 7], output: 1, weight: 1}",
   "{op: adaptive_avg_pool2d, input: [8, 17, 17], output: 5, weight: 1}",
   "{op: dense, n: 100, k: 512, epilogue: [bias, gelu], weight: 1}",
   "{op: dense, m: 12, n: 4, k: 24, epilogue: [bias, sigmoid], weight: 1}",
   "{op: conv2d, input: [24, 14, 14], filters: 24, kernel: 5, stride: 2, pad: 2, groups: 24, epilogue: [bias, hardswish], weight: 1}",
   "{op: conv2d, input: [16, 1, 1], filters: 40, kernel: 1, epilogue: [bias, hardsigmoid], weight: 1}",
   "{op: batch_matmul, b: 2, m: 16, n: 16, k: 8, weight: 1}",
   "{op: softmax, input: [4, 100], weight: 1}",
   "{op: layer_norm, input: [8, 64], epilogue: [{clip: [-2, 2]}], weight: 1}",
};

/* The reference program's flat index is `i`, and dense's first axis is `i` too: the
 * axis is printed as i_1, never as a second `i` (redeclared at one level, or shadowing
 * the flat index inside the bound check, where `const int i = i / 101` reads itself). */
static void test_reference_names_are_unique(void **state) {
   (void)state;
   Fixture f;
   setUp(&f, "{op: dense, m: 21, n: 101, k: 53, epilogue: [bias, gelu], weight: 1}");
   Lower_reference(&f.set, &f.ln);
   char *src = Cuda_generate(&f.ln, NULL);
   const char *want =
      "  float T_dense_local[1];\n"
      "  const int i = (int)blockIdx.x * 128 + (int)threadIdx.x;\n"
      "  if (i < 2121) {\n"
      "    const int i_1 = i / 101;\n"
      "    const int j = i % 101;\n"
      "    T_dense_local[0] = 0.0f;\n"
      "    for (int k = 0; k < 53; ++k) {\n"
      "      T_dense_local[0] += data[i_1 * 53 + k] * weight[j * 53 + k];\n"
      "    }\n"
      "    T_dense[i] = T_dense_local[0];\n"
      "  }\n";
   if (!strstr(src, want))
      fail_msg("the dense kernel of the reference program is not as expected:\n%s", src);
   /* the epilogue kernel's axes are ax0 and ax1: nothing to rename */
   assert_non_null(strstr(src, "    const int ax0 = i / 101;\n    const int ax1 = i % 101;\n"));
   free(src);
   tearDown(&f);
}

/* The reference program of one task per operator and epilogue of every shipped network
 * and of the odd shapes compiles for sm_80 and sm_90: measuring on a GPU starts with it. */
static void test_reference_programs_compile(void **state) {
   (void)state;
   const char *files[] = { "models/resnet_50.task",      "models/resnet_18.task",     "models/mobilenet_v2.task",
                           "models/bert_base.task",      "models/wide_resnet_50.task", "models/resnext_50.task",
                           "models/deeplabv3_r50.task",  "models/bert_tiny.task",     "models/inception_v3.task",
                           "models/vit_b_16.task",       "models/densenet_121.task",  "models/mobilenet_v3.task",
                           "models/detr_r50.task",       "tests/data/odd-shapes.task", "bench/gpu/odd.task",
                           "tests/data/every-kind.task" };
   char seen[256][200];
   int nseen = 0, compiled = 0;
   LoopNest ln;
   LoopNest_init(&ln);
   for (size_t fi = 0; fi < sizeof files / sizeof files[0]; fi++) {
      Network net;
      TestUtil_loadNetwork(&net, files[fi]);
      for (int t = 0; t < net.ntasks; t++) {
         char kind[200], epi[160];
         Op_epilogueText(&net.tasks[t].op, epi, sizeof epi);
         snprintf(kind, sizeof kind, "%s %s", Op_name(net.tasks[t].op.kind), epi);
         bool known = false;
         for (int i = 0; i < nseen && !known; i++)
            known = strcmp(seen[i], kind) == 0;
         if (known || nseen == 256)
            continue;
         snprintf(seen[nseen++], sizeof seen[0], "%s", kind);
         Dag g;
         Dag_init(&g);
         Op_buildDag(&net.tasks[t].op, &g);
         SketchSet set;
         SketchSet_generate(&set, &g);
         Lower_reference(&set, &ln);
         char *src = Cuda_generate(&ln, kind);
         static const char *const archs[] = { "sm_80", "sm_90" };
         for (int a = 0; a < 2; a++) {
            NvrtcResult r;
            char *cause = NULL;
            if (Nvrtc_compile(src, "reference.cu", archs[a], &r, &cause) < 0)
               fail_msg("%s task %d (%s): %s\n%s", files[fi], t, kind, cause, src);
            assert_int_equal(r.nkernels, ln.nkernels);
            NvrtcResult_done(&r);
            compiled++;
         }
         free(src);
         SketchSet_done(&set);
         Dag_done(&g);
      }
      Network_done(&net);
   }
   LoopNest_done(&ln);
   /* dense, batch_matmul, conv2d, pools, softmax, layer_norm, ... each with its epilogues */
   assert_true(nseen >= 20);
   assert_int_equal(compiled, 2 * nseen);
}

static void test_every_sketch_kind_compiles(void **state) {
   (void)state;
   Rng rng;
   Rng_seed(&rng, 17);
   int compiled = 0;
   for (size_t t = 0; t < sizeof kinds / sizeof kinds[0]; t++) {
      Fixture f;
      setUp(&f, kinds[t]);
      for (int sk = 0; sk < f.set.count; sk++) {
         State s;
         char *cause = NULL;
         if (State_sampleValid(&f.set, sk, &rng, &limits, 10000, &s, &cause) < 0)
            fail_msg("%s", cause);
         State_mutate(&f.set, &s, &rng, &limits);
         Lower_state(&f.set, &s, &f.ln);
         char *src = Cuda_generate(&f.ln, "test");
         static const char *const archs[] = { "sm_80", "sm_90" };
         for (int a = 0; a < 2; a++) {
            NvrtcResult r;
            if (Nvrtc_compile(src, "kind.cu", archs[a], &r, &cause) < 0)
               fail_msg("%s\n%s", cause, src);
            /* one ptxas report per kernel of the loop nest */
            assert_int_equal(r.nkernels, f.ln.nkernels);
            for (int k = 0; k < f.ln.nkernels; k++) {
               const NvrtcKernelInfo *ki = NvrtcResult_kernel(&r, f.ln.kernels[k].name);
               assert_non_null(ki);
               assert_true(ki->registers > 0 && ki->registers <= 255);
               assert_int_equal(ki->sharedBytes, f.ln.kernels[k].sharedBytes);
            }
            NvrtcResult_done(&r);
            compiled++;
         }
         free(src);
      }
      tearDown(&f);
   }
   assert_true(compiled >= 2 * 18);
}

int main(void) {
   SchedLimits_default(&limits);
   struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dense_source_is_exact),
      cmocka_unit_test(test_epilogue_expressions),
      cmocka_unit_test(test_vector_fetch_only_when_aligned),
      cmocka_unit_test(test_cross_thread_reductions),
      cmocka_unit_test(test_reference_names_are_unique),
      cmocka_unit_test(test_every_sketch_kind_compiles),
      cmocka_unit_test(test_reference_programs_compile),
   };
   size_t n = sizeof tests / sizeof tests[0];
   return TestUtil_runGroup("codegen", tests, n, n - 2);
}
