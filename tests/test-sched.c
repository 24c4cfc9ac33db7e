/* The schedule space: sketch counts and structure from Ansor's rules for every op kind,
 * the analyses they use, derived kernel shapes against hand computation, sampling,
 * mutation, hashing and the state text form. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "sched/state.h"
#include "te/network.h"
#include "util/xalloc.h"

static SchedLimits limits;

static void build(const char *yamlTask, Dag *g, SketchSet *set) {
   Network net;
   TestUtil_buildTask(&net, g, set, yamlTask);
   Network_done(&net);
}

static void done(Dag *g, SketchSet *set) {
   SketchSet_done(set);
   Dag_done(g);
}

static int countOf(const char *task) {
   Dag g;
   SketchSet set;
   build(task, &g, &set);
   int n = set.count;
   done(&g, &set);
   return n;
}

static void test_sketch_counts_follow_ansor(void **state) {
   (void)state;
   assert_int_equal(countOf("{op: conv2d, input: [64, 56, 56], filters: 64, kernel: 3, pad: 1, epilogue: [bias, relu], weight: 1}"), 1);
   /* space 1000 <= 1024 and < reduce 2048: cross-thread reduction too */
   assert_int_equal(countOf("{op: dense, n: 1000, k: 2048, epilogue: [bias], weight: 1}"), 2);
   assert_int_equal(countOf("{op: dense, m: 128, n: 768, k: 768, epilogue: [bias], weight: 1}"), 1);
   assert_int_equal(countOf("{op: batch_matmul, b: 12, m: 128, n: 128, k: 64, weight: 1}"), 1);
   /* reduce 9 <= 32: no cross-thread reduction */
   assert_int_equal(countOf("{op: max_pool2d, input: [64, 112, 112], kernel: 3, stride: 2, pad: 1, weight: 1}"), 1);
   assert_int_equal(countOf("{op: avg_pool2d, input: [64, 112, 112], kernel: 3, stride: 2, pad: 1, weight: 1}"), 1);
   /* reduce 49 > 32 */
   assert_int_equal(countOf("{op: adaptive_avg_pool2d, input: [2048, 7, 7], output: 1, weight: 1}"), 2);
   assert_int_equal(countOf("{op: global_avg_pool2d, input: [2048, 7, 7], weight: 1}"), 2);
   /* two reductions, each with and without cross-thread reduction */
   assert_int_equal(countOf("{op: softmax, input: [12, 128, 128], weight: 1}"), 4);
   assert_int_equal(countOf("{op: layer_norm, input: [128, 768], weight: 1}"), 4);
   /* a conv whose space (8) is below its reduction (512) */
   assert_int_equal(countOf("{op: conv2d, input: [512, 1, 1], filters: 8, kernel: 1, weight: 1}"), 2);
}

static void test_conv_sketch_structure(void **state) {
   (void)state;
   Dag g;
   SketchSet set;
   build("{op: conv2d, input: [64, 56, 56], filters: 64, kernel: 3, pad: 1, epilogue: [bias, relu], weight: 1}", &g, &set);
   const Sketch *sk = &set.sketches[0];
   /* data kernel pad_temp conv2d_nchw bias T_bias T_relu */
   assert_int_equal(sk->plan[2], STAGE_PLAN_INLINE);
   assert_int_equal(sk->plan[3], STAGE_PLAN_ANCHOR);
   assert_int_equal(sk->consumerOf[3], 6);
   assert_int_equal(sk->plan[5], STAGE_PLAN_INLINE);
   assert_int_equal(sk->plan[6], STAGE_PLAN_ROOT);
   assert_false(sk->cached[0]);
   assert_true(sk->cached[1]);
   assert_true(sk->cached[2]);
   assert_int_equal(sk->nkernels, 1);
   const KernelPlan *k = &sk->kernels[0];
   assert_int_equal(k->kind, KERNEL_MLT);
   assert_int_equal(k->anchor, 3);
   assert_int_equal(k->root, 6);
   assert_int_equal(k->ncache, 2);
   assert_int_equal(k->ntiles, 7);
   /* 4 spatial x 4 + 3 reduce x 2 + 2 vectors + 1 unroll */
   assert_int_equal(sk->nknobs, 25);
   assert_string_equal(sk->splits[1].name, "conv2d_nchw.ff");
   assert_string_equal(sk->splits[4].name, "conv2d_nchw.rc");
   assert_string_equal(sk->splits[7].name, "kernel.shared.vector");
   assert_string_equal(sk->splits[8].name, "pad_temp.shared.vector");
   assert_string_equal(sk->unrolls[0].name, "conv2d_nchw.unroll");
   assert_string_equal(sk->summary, "tiled conv2d_nchw into T_relu, shared kernel, pad_temp");
   done(&g, &set);
}

static void test_multi_kernel_sketches(void **state) {
   (void)state;
   Dag g;
   SketchSet set;
   build("{op: softmax, input: [12, 128, 128], weight: 1}", &g, &set);
   assert_string_equal(set.sketches[0].summary, "cross-thread T_softmax_maxelem; cross-thread T_softmax_expsum in T_softmax_norm");
   assert_string_equal(set.sketches[3].summary, "simple T_softmax_maxelem; simple T_softmax_expsum; simple T_softmax_norm");
   const KernelPlan *k = &set.sketches[0].kernels[1];
   assert_int_equal(k->kind, KERNEL_CTR);
   assert_int_equal(k->nattached, 1);
   assert_int_equal(set.sketches[3].nkernels, 3);
   done(&g, &set);
   build("{op: dense, n: 1000, k: 2048, epilogue: [bias], weight: 1}", &g, &set);
   assert_string_equal(set.sketches[0].summary, "cross-thread T_dense in T_bias");
   assert_string_equal(set.sketches[1].summary, "tiled T_dense into T_bias, shared data, weight");
   done(&g, &set);
   build("{op: avg_pool2d, input: [64, 112, 112], kernel: 3, stride: 2, pad: 1, weight: 1}", &g, &set);
   assert_string_equal(set.sketches[0].summary, "simple pool_sum; simple pool_avg");
   done(&g, &set);
}

static void test_analyses(void **state) {
   (void)state;
   Dag g;
   SketchSet set;
   build("{op: conv2d, input: [8, 9, 9], filters: 4, kernel: 3, stride: 2, pad: 1, epilogue: [bias, relu], weight: 1}", &g, &set);
   assert_true(Sketch_needsMultiLevelTiling(&g, 3));
   assert_false(Sketch_needsMultiLevelTiling(&g, 2));
   assert_true(Sketch_elementwiseMatch(&g, 3, 6));
   assert_false(Sketch_elementwiseMatch(&g, 2, 6));
   /* pad_temp's row index yy*2 + ry over 4 rows and 3 taps: (4-1)*2 + (3-1) + 1 = 9 */
   int64_t tiles[TE_MAX_AXES] = { 1, 2, 4, 1, 1, 3, 3 };
   const Expr *load = NULL;
   for (int32_t e = 0; e < g.nexpr; e++)
      if (g.expr[e].kind == EXPR_LOAD && g.expr[e].ref == 2)
         load = &g.expr[e];
   assert_non_null(load);
   assert_int_equal(Sketch_indexExtent(&g, load->args[2], tiles), 9);
   assert_int_equal(Sketch_indexExtent(&g, load->args[3], tiles), 3);
   done(&g, &set);
   build("{op: dense, n: 1000, k: 2048, epilogue: [bias], weight: 1}", &g, &set);
   assert_int_equal(Sketch_commonOuterAxes(&g, 2, 4), 2);
   assert_int_equal(Sketch_spaceLength(&g, 2), 1000);
   assert_int_equal(Sketch_reduceLength(&g, 2), 2048);
   done(&g, &set);
   /* grouped channel index floordiv(ff, 4)*2 + rc: worst case over alignment */
   build("{op: conv2d, input: [8, 5, 5], filters: 16, kernel: 1, groups: 4, weight: 1}", &g, &set);
   for (int32_t e = 0; e < g.nexpr; e++)
      if (g.expr[e].kind == EXPR_LOAD && g.expr[e].ref == 0)
         load = &g.expr[e];
   int64_t t2[TE_MAX_AXES] = { 1, 8, 1, 1, 2, 1, 1 };
   /* 8 filters span (8 + 4 - 2)/4 + 1 = 3 groups at worst: (3-1)*2 + 2 = 6 channels */
   assert_int_equal(Sketch_indexExtent(&g, load->args[1], t2), 6);
   done(&g, &set);
}

static void setTile(const Sketch *sk, State *s, const char *name, const int32_t *v) {
   for (int i = 0; i < sk->nsplits; i++)
      if (strcmp(sk->splits[i].name, name) == 0) {
         memcpy(&s->knob[sk->splits[i].knob], v, (size_t)sk->splits[i].nparts * sizeof *v);
         return;
      }
   fail_msg("no knob %s", name);
}

static void test_kernel_shape_by_hand(void **state) {
   (void)state;
   Dag g;
   SketchSet set;
   build("{op: conv2d, input: [64, 56, 56], filters: 64, kernel: 3, pad: 1, epilogue: [bias, relu], weight: 1}", &g, &set);
   const Sketch *sk = &set.sketches[0];
   State s;
   memset(&s, 0, sizeof s);
   s.nknobs = (uint16_t)sk->nknobs;
   setTile(sk, &s, "conv2d_nchw.nn", (int32_t[]){ 1, 1, 1, 1 });
   setTile(sk, &s, "conv2d_nchw.ff", (int32_t[]){ 2, 8, 2, 1 });    /* block 32 of 64 filters */
   setTile(sk, &s, "conv2d_nchw.yy", (int32_t[]){ 1, 7, 1, 2 });    /* block 14 of 56 rows */
   setTile(sk, &s, "conv2d_nchw.xx", (int32_t[]){ 1, 2, 7, 1 });    /* block 14 of 56 columns */
   setTile(sk, &s, "conv2d_nchw.rc", (int32_t[]){ 2, 4 });          /* 8 channels per step */
   setTile(sk, &s, "conv2d_nchw.ry", (int32_t[]){ 1, 3 });
   setTile(sk, &s, "conv2d_nchw.rx", (int32_t[]){ 3, 1 });
   setTile(sk, &s, "kernel.shared.vector", (int32_t[]){ 4 });
   setTile(sk, &s, "pad_temp.shared.vector", (int32_t[]){ 1 });
   s.knob[sk->unrolls[0].knob] = 512;
   char *cause = NULL;
   if (State_validate(&set, &s, &limits, &cause) < 0)
      fail_msg("%s", cause);
   KernelShape ks;
   State_kernelShape(&set, &s, 0, &ks);
   assert_int_equal(ks.threads, 8 * 7 * 2);                 /* thread factors */
   assert_int_equal(ks.vthreads, 2);                        /* vthread factors */
   assert_int_equal(ks.blocks, 2 * 4 * 4);                  /* 64/32, 56/14, 56/14 */
   assert_int_equal(ks.outputsPerThread, 2 * 2 * 2 * 7);    /* vthread x inner x innermost */
   int64_t dims[TE_MAX_DIMS];
   /* pad_temp: 1 x 8 channels x (14-1)+(3-1)+1 = 16 rows x 16 columns */
   assert_int_equal(State_cacheShape(&set, &s, 0, 1, dims), 1 * 8 * 16 * 16);
   assert_int_equal(dims[2], 16);
   /* kernel: 32 filters x 8 channels x 3 x 3 */
   assert_int_equal(State_cacheShape(&set, &s, 0, 0, dims), 32 * 8 * 9);
   assert_int_equal(ks.sharedBytes, 4 * (2048 + 2304));
   char text[1024];
   State_format(&set, &s, text, sizeof text);
   assert_string_equal(text, "{\"v\":1,\"sketch\":0,\"knobs\":{\"conv2d_nchw.nn\":[1,1,1,1],\"conv2d_nchw.ff\":[2,8,2,1],"
                             "\"conv2d_nchw.yy\":[1,7,1,2],\"conv2d_nchw.xx\":[1,2,7,1],\"conv2d_nchw.rc\":[2,4],"
                             "\"conv2d_nchw.ry\":[1,3],\"conv2d_nchw.rx\":[3,1],\"kernel.shared.vector\":4,"
                             "\"pad_temp.shared.vector\":1,\"conv2d_nchw.unroll\":512}}");
   done(&g, &set);
}

/* The tasks of the shipped networks and shapes that appear in none of them. */
static const char *const taskMix[] = {
   "{op: conv2d, input: [3, 224, 224], filters: 64, kernel: 7, stride: 2, pad: 3, epilogue: [bias, relu], weight: 1}",
   "{op: conv2d, input: [64, 56, 56], filters: 64, kernel: 3, pad: 1, epilogue: [bias, relu], weight: 1}",
   "{op: conv2d, input: [256, 56, 56], filters: 512, kernel: 1, stride: 2, epilogue: [bias], weight: 1}",
   "{op: conv2d, input: [144, 56, 56], filters: 144, kernel: 3, stride: 2, pad: 1, groups: 144, epilogue: [bias, relu6], weight: 1}",
   "{op: conv2d, input: [7, 149, 149], filters: 17, kernel: [1, 7], pad: [0, 3], epilogue: [bias, add, relu], weight: 1}",
   "{op: conv2d, input: [16, 35, 35], filters: 16, kernel: 3, dilation: 2, pad: 2, weight: 1}",
   "{op: max_pool2d, input: [64, 112, 112], kernel: 3, stride: 2, pad: 1, weight: 1}",
   "{op: avg_pool2d, input: [17, 35, 35], kernel: 3, stride: 1, pad: 1, count_include_pad: false, weight: 1}",
   "{op: adaptive_avg_pool2d, input: [2048, 7, 7], output: 1, weight: 1}",
   "{op: adaptive_avg_pool2d, input: [8, 17, 17], output: [5, 3], weight: 1}",
   "{op: dense, n: 1000, k: 2048, epilogue: [bias], weight: 1}",
   "{op: dense, m: 128, n: 3072, k: 768, epilogue: [bias, gelu], weight: 1}",
   "{op: batch_matmul, b: 12, m: 128, n: 64, k: 128, weight: 1}",
   "{op: softmax, input: [12, 128, 128], weight: 1}",
   "{op: layer_norm, input: [128, 768], epsilon: 1e-12, epilogue: [add], weight: 1}",
};
enum { NMIX = sizeof taskMix / sizeof taskMix[0] };

static void test_samples_are_valid(void **state) {
   (void)state;
   Rng rng;
   Rng_seed(&rng, 7);
   int total = 0;
   for (int t = 0; t < NMIX; t++) {
      Dag g;
      SketchSet set;
      build(taskMix[t], &g, &set);
      for (int i = 0; i < 700; i++) {
         State s;
         char *cause = NULL;
         if (State_sampleValid(&set, -1, &rng, &limits, 10000, &s, &cause) < 0)
            fail_msg("%s: %s", taskMix[t], cause);
         if (State_validate(&set, &s, &limits, &cause) < 0)
            fail_msg("%s: %s", taskMix[t], cause);
         total++;
      }
      done(&g, &set);
   }
   assert_true(total >= 10000);
}

static void assertProductsPreserved(const SketchSet *set, const State *a, const State *b) {
   const Sketch *sk = &set->sketches[a->sketch];
   for (int i = 0; i < sk->nsplits; i++) {
      const SplitSlot *sl = &sk->splits[i];
      if (sl->kind != SPLIT_TILE)
         continue;
      /* the outer part is extent / product, so the product of all parts is the extent */
      int64_t pa = State_blockTile(set, a, sl), pb = State_blockTile(set, b, sl);
      assert_int_equal(sl->extent % pa, 0);
      assert_int_equal(sl->extent % pb, 0);
   }
}

static void test_mutations_preserve_products_and_validity(void **state) {
   (void)state;
   Rng rng;
   Rng_seed(&rng, 11);
   int ok = 0, tried = 0, changedTile = 0;
   for (int t = 0; t < NMIX; t++) {
      Dag g;
      SketchSet set;
      build(taskMix[t], &g, &set);
      for (int i = 0; i < 200; i++) {
         State s;
         assert_int_equal(State_sampleValid(&set, -1, &rng, &limits, 10000, &s, NULL), 0);
         for (int m = 0; m < 5; m++) {
            State before = s;
            tried++;
            if (State_mutate(&set, &s, &rng, &limits) < 0) {
               assert_true(State_equal(&before, &s));
               continue;
            }
            ok++;
            assertProductsPreserved(&set, &before, &s);
            char *cause = NULL;
            if (State_validate(&set, &s, &limits, &cause) < 0)
               fail_msg("mutant invalid: %s", cause);
            const Sketch *sk = &set.sketches[s.sketch];
            for (int k = 0; k < sk->nsplits; k++)
               if (memcmp(&before.knob[sk->splits[k].knob], &s.knob[sk->splits[k].knob],
                          (size_t)sk->splits[k].nparts * sizeof(int32_t)) != 0) {
                  changedTile++;
                  break;
               }
         }
      }
      done(&g, &set);
   }
   /* most mutations succeed, and tile mutations do move factors */
   assert_true(ok > tried / 2);
   assert_true(changedTile > ok / 2);
}

static void test_tile_mutation_moves_one_factor(void **state) {
   (void)state;
   Dag g;
   SketchSet set;
   build("{op: dense, m: 64, n: 64, k: 64, weight: 1}", &g, &set);
   Rng rng;
   Rng_seed(&rng, 3);
   for (int i = 0; i < 500; i++) {
      State s, m;
      assert_int_equal(State_sampleValid(&set, 0, &rng, &limits, 1000, &s, NULL), 0);
      m = s;
      if (State_mutateTileSize(&set, &m, &rng, &limits) < 0)
         continue;
      /* exactly one split changed, by moving a factor f between two of its parts */
      int changed = 0;
      const Sketch *sk = &set.sketches[0];
      for (int k = 0; k < sk->nsplits; k++) {
         const SplitSlot *sl = &sk->splits[k];
         if (memcmp(&s.knob[sl->knob], &m.knob[sl->knob], (size_t)sl->nparts * sizeof(int32_t)))
            changed++;
      }
      assert_int_equal(changed, 1);
   }
   done(&g, &set);
}

static void test_text_round_trip(void **state) {
   (void)state;
   Rng rng;
   Rng_seed(&rng, 5);
   int n = 0;
   for (int t = 0; n < 10000; t = (t + 1) % NMIX) {
      Dag g;
      SketchSet set;
      build(taskMix[t], &g, &set);
      for (int i = 0; i < 250; i++, n++) {
         State s, back;
         assert_int_equal(State_sampleValid(&set, -1, &rng, &limits, 10000, &s, NULL), 0);
         State_mutate(&set, &s, &rng, &limits);
         char text[2048];
         size_t len = State_format(&set, &s, text, sizeof text);
         assert_true(len < sizeof text);
         char *cause = NULL;
         if (State_parse(&set, text, &limits, &back, &cause) < 0)
            fail_msg("%s: %s", text, cause);
         assert_true(State_equal(&s, &back));
         assert_true(State_hash(&s) == State_hash(&back));
      }
      done(&g, &set);
   }
}

static int compareState(const void *a, const void *b) {
   const State *x = a, *y = b;
   if (x->sketch != y->sketch)
      return x->sketch < y->sketch ? -1 : 1;
   return memcmp(x->knob, y->knob, sizeof x->knob);
}

static int compareHash(const void *a, const void *b) {
   uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
   return x < y ? -1 : x > y;
}

static void test_hashes_of_distinct_states_differ(void **state) {
   (void)state;
   Dag g;
   SketchSet set;
   build("{op: conv2d, input: [64, 56, 56], filters: 64, kernel: 3, pad: 1, epilogue: [bias, relu], weight: 1}", &g, &set);
   enum { WANT = 100000, DRAW = 130000 };
   State *all = xCalloc(DRAW, sizeof(State));
   Rng rng;
   Rng_seed(&rng, 9);
   for (int i = 0; i < DRAW; i++)
      State_sample(&set, 0, &rng, &all[i]);
   qsort(all, DRAW, sizeof(State), compareState);
   int distinct = 0;
   for (int i = 0; i < DRAW; i++)
      if (i == 0 || compareState(&all[i - 1], &all[i]) != 0)
         all[distinct++] = all[i];
   assert_true(distinct >= WANT);
   uint64_t *h = xCalloc((size_t)distinct, sizeof(uint64_t));
   for (int i = 0; i < distinct; i++)
      h[i] = State_hash(&all[i]);
   qsort(h, (size_t)distinct, sizeof(uint64_t), compareHash);
   for (int i = 1; i < distinct; i++)
      assert_true(h[i] != h[i - 1]);
   free(h);
   free(all);
   done(&g, &set);
}

static void test_sampling_is_deterministic(void **state) {
   (void)state;
   Dag g;
   SketchSet set;
   build(taskMix[1], &g, &set);
   Rng a, b;
   Rng_seed(&a, 42);
   Rng_seed(&b, 42);
   for (int i = 0; i < 200; i++) {
      State x, y;
      State_sampleValid(&set, -1, &a, &limits, 10000, &x, NULL);
      State_sampleValid(&set, -1, &b, &limits, 10000, &y, NULL);
      assert_true(State_equal(&x, &y));
      State_mutate(&set, &x, &a, &limits);
      State_mutate(&set, &y, &b, &limits);
      assert_true(State_equal(&x, &y));
   }
   done(&g, &set);
}

static void test_task_without_valid_state_says_so(void **state) {
   (void)state;
   Dag g;
   SketchSet set;
   /* 1031 is prime: a block runs 1 or 1031 threads, never 32 to 1024 */
   build("{op: dense, n: 1031, k: 16, weight: 1}", &g, &set);
   assert_int_equal(set.count, 1);
   Rng rng;
   Rng_seed(&rng, 1);
   State s;
   char *cause = NULL;
   assert_int_equal(State_sampleValid(&set, -1, &rng, &limits, 200, &s, &cause), -1);
   assert_non_null(strstr(cause, "no valid state in 200 samples; the last was rejected with: state: the tiled kernel of T_dense has"));
   free(cause);
   done(&g, &set);
}

static void expectParseError(const SketchSet *set, const char *text, const char *message) {
   State s;
   char *cause = NULL;
   assert_int_equal(State_parse(set, text, &limits, &s, &cause), -1);
   if (strcmp(cause, message) != 0)
      fail_msg("for %s\n  got      %s\n  expected %s", text, cause, message);
   free(cause);
}

static void test_bad_states_name_the_knob(void **state) {
   (void)state;
   Dag g;
   SketchSet set;
   build("{op: dense, m: 64, n: 64, k: 64, epilogue: [bias], weight: 1}", &g, &set);
#define KNOBS(i, j, k, va, vb, u) "{\"v\":1,\"sketch\":0,\"knobs\":{\"T_dense.i\":" i ",\"T_dense.j\":" j \
   ",\"T_dense.k\":" k ",\"data.shared.vector\":" va ",\"weight.shared.vector\":" vb ",\"T_dense.unroll\":" u "}}"
   State s;
   char *cause = NULL;
   if (State_parse(&set, KNOBS("[1,8,2,1]", "[1,4,2,2]", "[4,2]", "1", "2", "64"), &limits, &s, &cause) < 0)
      fail_msg("%s", cause);
   expectParseError(&set, "{\"v\":1,", "state: not valid JSON: the text ends before the object is complete");
   expectParseError(&set, "{\"v\":1,,}", "state: not valid JSON: parsing stopped at character 9 ('}')");
   expectParseError(&set, "[1,2]", "state: expected a JSON object {\"v\":1,\"sketch\":N,\"knobs\":{...}}");
   expectParseError(&set, "{\"v\":2,\"sketch\":0,\"knobs\":{}}", "state: text version 2 is not supported; expected 1");
   expectParseError(&set, "{\"v\":1,\"sketch\":3,\"knobs\":{}}", "state: sketch 3 does not exist; this task has 1 sketch (0 to 0)");
   expectParseError(&set, "{\"v\":1,\"sketch\":0,\"knobs\":{},\"x\":1}", "state: unknown key 'x'; expected v, sketch, precision and knobs");
   expectParseError(&set, "{\"v\":1,\"sketch\":0,\"knobs\":{\"T_dense.z\":1}}",
                    "state: unknown knob 'T_dense.z'; sketch 0 has: T_dense.i, T_dense.j, T_dense.k, data.shared.vector, weight.shared.vector, T_dense.unroll");
   expectParseError(&set, "{\"v\":1,\"sketch\":0,\"knobs\":{}}", "state: missing knob 'T_dense.i'");
   expectParseError(&set, KNOBS("[1,8,2]", "[1,4,2,2]", "[4,2]", "1", "2", "64"), "state: knob 'T_dense.i' must be a list of 4 integers");
   expectParseError(&set, KNOBS("[1,8,2,3]", "[1,4,2,2]", "[4,2]", "1", "2", "64"),
                    "state: knob 'T_dense.i' is [1,8,2,3]; its product 48 does not divide the extent 64 of axis i");
   expectParseError(&set, KNOBS("[1,8,2,0]", "[1,4,2,2]", "[4,2]", "1", "2", "64"),
                    "state: knob 'T_dense.i' is [1,8,2,0]; every factor must be at least 1");
   expectParseError(&set, KNOBS("[1,1,1,64]", "[1,1,1,64]", "[1,64]", "1", "2", "64"),
                    "state: the tiled kernel of T_dense has 1 threads per block (the product of the thread factors); at least 32 unless the output has at most 64 elements");
   expectParseError(&set, KNOBS("[1,32,2,1]", "[1,64,1,1]", "[4,2]", "1", "2", "64"),
                    "state: the tiled kernel of T_dense has 2048 threads per block; the device allows 1024");
   expectParseError(&set, KNOBS("[4,8,1,1]", "[4,4,1,1]", "[4,2]", "1", "2", "64"),
                    "state: the tiled kernel of T_dense has 16 virtual threads (the product of the vthread factors); at most 8");
   expectParseError(&set, KNOBS("[1,8,2,1]", "[1,4,2,2]", "[4,2]", "8", "2", "64"),
                    "state: knob 'data.shared.vector' is 8; a vector of 8 floats is 32 bytes, more than 16");
   expectParseError(&set, KNOBS("[1,8,2,1]", "[1,4,2,2]", "[4,2]", "1", "2", "100"),
                    "state: knob 'T_dense.unroll' is 100; expected one of 0, 16, 64, 512, 1024");
   expectParseError(&set, KNOBS("[1,8,2,1]", "[1,4,2,2]", "[4,2]", "1.5", "2", "64"),
                    "state: knob 'data.shared.vector' must be an integer");
   done(&g, &set);
   build("{op: dense, m: 256, n: 256, k: 256, weight: 1}", &g, &set);
   expectParseError(&set, "{\"v\":1,\"sketch\":0,\"knobs\":{\"T_dense.i\":[1,4,4,4],\"T_dense.j\":[1,8,4,4],\"T_dense.k\":[1,256],"
                          "\"data.shared.vector\":1,\"weight.shared.vector\":1,\"T_dense.unroll\":0}}",
                    "state: knob 'T_dense.k' is [1,256]; its innermost factor 256 exceeds 64");
   expectParseError(&set, "{\"v\":1,\"sketch\":0,\"knobs\":{\"T_dense.i\":[1,4,4,4],\"T_dense.j\":[1,8,4,4],\"T_dense.k\":[4,64],"
                          "\"data.shared.vector\":1,\"weight.shared.vector\":1,\"T_dense.unroll\":0}}",
                    "state: the tiled kernel of T_dense needs 196608 bytes of shared memory per block; the device allows 49152");
   done(&g, &set);
}

int main(void) {
   SchedLimits_default(&limits);
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sketch_counts_follow_ansor),
      cmocka_unit_test(test_conv_sketch_structure),
      cmocka_unit_test(test_multi_kernel_sketches),
      cmocka_unit_test(test_analyses),
      cmocka_unit_test(test_kernel_shape_by_hand),
      cmocka_unit_test(test_samples_are_valid),
      cmocka_unit_test(test_mutations_preserve_products_and_validity),
      cmocka_unit_test(test_tile_mutation_moves_one_factor),
      cmocka_unit_test(test_text_round_trip),
      cmocka_unit_test(test_hashes_of_distinct_states_differ),
      cmocka_unit_test(test_sampling_is_deterministic),
      cmocka_unit_test(test_task_without_valid_state_says_so),
      cmocka_unit_test(test_bad_states_name_the_knob),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
