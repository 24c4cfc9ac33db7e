/* Task files: the shipped networks load with the right tasks and totals, shapes scale
 * with the batch, shorthand forms mean what the man page says, and every kind of
 * malformed file gets its one exact message naming file, line and column. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "te/network.h"

static void test_resnet_50(void **state) {
   (void)state;
   Network net;
   TestUtil_loadNetwork(&net, "models/resnet_50.task");
   assert_string_equal(net.name, "resnet_50");
   assert_int_equal(net.batch, 1);
   assert_int_equal(net.ntasks, 27);
   assert_int_equal(Network_totalWeight(&net), 56);
   /* ansor.md 7: sum of weight x FLOPs = 8,206,520,296 */
   assert_true(Network_totalFlops(&net) == 8206520296.0);
   /* the stem: 2*64*112*112*3*49 + 2*64*112*112 */
   assert_int_equal(net.tasks[0].op.kind, OP_CONV2D);
   assert_true(net.tasks[0].flops == 237633536.0);
   assert_int_equal(net.tasks[0].op.out_h, 112);
   /* conv3 of a layer3 block: bias + add + relu, weight 6 */
   const Task *t = &net.tasks[16];
   assert_int_equal(t->weight, 6);
   assert_true(t->flops == 103362560.0);
   assert_string_equal(t->key, "conv2d_n1_c256_h14_w14_k1024_g1_r1x1_s1x1_p0,0,0,0_d1x1+bias+add+relu");
   assert_int_equal(net.tasks[1].op.kind, OP_MAX_POOL2D);
   assert_true(net.tasks[1].flops == 1806336.0);
   assert_true(net.tasks[25].flops == 102400.0);
   assert_true(net.tasks[26].flops == 4097000.0);
   Network_done(&net);
}

/* Totals of the other shipped networks, derived independently of this loader (from the
 * architectures, by the FLOP rules of pruner-tui-task(5)) and stated in each header. */
static void test_other_networks(void **state) {
   (void)state;
   static const struct {
      const char *file, *name;
      int ntasks;
      int64_t weight;
      double flops;
   } nets[] = {
#include "network-totals.inc"
   };
   for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
      Network net;
      TestUtil_loadNetwork(&net, nets[i].file);
      assert_string_equal(net.name, nets[i].name);
      assert_int_equal(net.ntasks, nets[i].ntasks);
      assert_int_equal(Network_totalWeight(&net), nets[i].weight);
      if (Network_totalFlops(&net) != nets[i].flops)
         fail_msg("%s: %.0f FLOPs, expected %.0f", nets[i].file, Network_totalFlops(&net),
                  nets[i].flops);
      Network_done(&net);
   }
}

/* Representative tasks of the networks added after the first four, by hand from the
 * architectures: conv2d = 2*N*K*OH*OW*(C/G)*R*S + e*N*K*OH*OW, with e = 1 per bias,
 * add and relu, 5 per hardswish, 4 per hardsigmoid, 0 per sigmoid; dense = 2*M*n*k +
 * e*M*n, with e = 4 for gelu; batch_matmul = 2*B*m*n*k; softmax 4 and layer_norm 14
 * per element. */
static void test_added_networks_by_hand(void **state) {
   (void)state;
   Network net;

   /* wide_resnet_50: layer1.0-2.conv2 is 3x3 128 -> 128 at 56x56, twice ResNet-50's
    * width; the block outputs stay 256 channels */
   TestUtil_loadNetwork(&net, "models/wide_resnet_50.task");
   assert_int_equal(net.tasks[3].weight, 3);
   assert_true(net.tasks[3].flops == 2.0 * 128 * 56 * 56 * 128 * 9 + 2.0 * 128 * 56 * 56);
   assert_int_equal(net.tasks[5].op.out_c, 256);
   assert_true(net.tasks[5].flops == 2.0 * 256 * 56 * 56 * 128 + 3.0 * 256 * 56 * 56);
   Network_done(&net);

   /* resnext_50: the same 3x3 128 -> 128, but 32 groups of 4 channels */
   TestUtil_loadNetwork(&net, "models/resnext_50.task");
   const Task *g = &net.tasks[3];
   assert_int_equal(g->op.groups, 32);
   assert_string_equal(g->key, "conv2d_n1_c128_h56_w56_k128_g32_r3x3_s1x1_p1,1,1,1_d1x1+bias+relu");
   assert_true(g->flops == 2.0 * 128 * 56 * 56 * (128 / 32) * 9 + 2.0 * 128 * 56 * 56);
   /* layer4.0.conv2: 32 groups of 32, stride 2, 14x14 -> 7x7 */
   assert_true(net.tasks[20].flops == 2.0 * 1024 * 7 * 7 * 32 * 9 + 2.0 * 1024 * 7 * 7);
   Network_done(&net);

   /* deeplabv3_r50: output stride 8, so layer4 and the ASPP run at 28x28 */
   TestUtil_loadNetwork(&net, "models/deeplabv3_r50.task");
   /* backbone.layer4.1-2.conv2: dilation 4, pad 4 keeps 28x28 */
   const Task *d4 = &net.tasks[24];
   assert_int_equal(d4->weight, 2);
   assert_int_equal(d4->op.dilation_h, 4);
   assert_int_equal(d4->op.out_h, 28);
   assert_true(d4->flops == 2.0 * 512 * 28 * 28 * 512 * 9 + 2.0 * 512 * 28 * 28);
   /* the ASPP's dilation-36 branch: every tap counted, padding included */
   const Task *a36 = &net.tasks[28];
   assert_int_equal(a36->op.dilation_w, 36);
   assert_int_equal(a36->op.pad_left, 36);
   assert_int_equal(a36->op.out_w, 28);
   assert_true(a36->flops == 2.0 * 256 * 28 * 28 * 2048 * 9 + 2.0 * 256 * 28 * 28);
   /* image pooling: 784 adds + 1 divide per channel */
   assert_int_equal(net.tasks[29].op.kind, OP_ADAPTIVE_AVG_POOL2D);
   assert_true(net.tasks[29].flops == 2048.0 * (28 * 28 + 1));
   /* the head's 3x3 conv is backbone.layer3.0.conv2's workload: merged, weight 2 */
   assert_int_equal(net.tasks[14].weight, 2);
   assert_true(net.tasks[14].flops == 2.0 * 256 * 28 * 28 * 256 * 9 + 2.0 * 256 * 28 * 28);
   /* the classifier: 1x1 256 -> 21 classes, bias only */
   assert_true(net.tasks[32].flops == 2.0 * 21 * 28 * 28 * 256 + 21.0 * 28 * 28);
   Network_done(&net);

   /* bert_tiny: the whole total, task by task (hidden 128, 2 heads of 64, FFN 512,
    * sequence 128, 2 layers) */
   TestUtil_loadNetwork(&net, "models/bert_tiny.task");
   const double s = 128, h = 128, ffn = 512, heads = 2, hd = 64;
   const double total = 5 * (14 * s * h)                     /* LayerNorm x 5 */
                      + 6 * (2 * s * h * h + s * h)           /* Q, K, V + bias */
                      + 2 * (2 * heads * s * s * hd)          /* Q.K^T */
                      + 2 * (4 * heads * s * s)               /* softmax */
                      + 2 * (2 * heads * s * hd * s)          /* probs.V */
                      + 2 * (2 * s * h * h + 2 * s * h)       /* attention output + bias, add */
                      + 2 * (2 * s * ffn * h + 5 * s * ffn)   /* FFN1 + bias, gelu */
                      + 2 * (2 * s * h * ffn + 2 * s * h);    /* FFN2 + bias, add */
   assert_true(total == 119734272.0);
   assert_true(Network_totalFlops(&net) == total);
   assert_true(net.tasks[6].flops == 2 * s * ffn * h + 5 * s * ffn);
   Network_done(&net);

   /* inception_v3: the 1x7 conv of channels_7x7 160, in Mixed_6c and 6d twice each */
   TestUtil_loadNetwork(&net, "models/inception_v3.task");
   const Task *c17 = &net.tasks[31];
   assert_int_equal(c17->weight, 4);
   assert_int_equal(c17->op.kernel_h, 1);
   assert_int_equal(c17->op.kernel_w, 7);
   assert_int_equal(c17->op.pad_left, 3);
   assert_int_equal(c17->op.out_w, 17);
   assert_true(c17->flops == 2.0 * 160 * 17 * 17 * 160 * 7 + 2.0 * 160 * 17 * 17);
   /* the branch pool of Mixed_6b-6e: 9 adds + 1 divide per output */
   assert_int_equal(net.tasks[29].weight, 4);
   assert_true(net.tasks[29].flops == 768.0 * 17 * 17 * (9 + 1));
   Network_done(&net);

   /* vit_b_16 at 256x256: 16x16 patches + the class token = 257 tokens */
   TestUtil_loadNetwork(&net, "models/vit_b_16.task");
   assert_true(net.tasks[0].flops == 2.0 * 768 * 16 * 16 * 3 * 16 * 16 + 768.0 * 16 * 16);
   assert_int_equal(net.tasks[1].weight, 25);
   assert_true(net.tasks[1].flops == 14.0 * 257 * 768);
   assert_true(net.tasks[3].flops == 2.0 * 12 * 257 * 257 * 64);
   assert_true(net.tasks[4].flops == 4.0 * 12 * 257 * 257);
   Network_done(&net);
}

/* DenseNet-121: the conv2 of every block, a conv1 deep in block 3, a transition. */
static void test_densenet_121_by_hand(void **state) {
   (void)state;
   Network net;
   /* each block's 3x3 conv2 (128 -> 32, no epilogue: its output goes to the next concat)
    * is one task per block, weights 6, 12, 24, 16 */
   TestUtil_loadNetwork(&net, "models/densenet_121.task");
   static const int conv2Task[4] = { 3, 12, 27, 54 }, layers[4] = { 6, 12, 24, 16 }, side[4] = { 56, 28, 14, 7 };
   for (int b = 0; b < 4; b++) {
      const Task *c2 = &net.tasks[conv2Task[b]];
      assert_int_equal(c2->weight, layers[b]);
      assert_int_equal(c2->op.nepilogue, 0);
      assert_true(c2->flops == 2.0 * 32 * side[b] * side[b] * 128 * 9);
   }
   /* denseblock3.denselayer24.conv1 reads 256 + 23*32 = 992 channels: 1x1 -> 128, bias, relu */
   const Task *l24 = &net.tasks[50];
   assert_int_equal(l24->op.in_c, 992);
   assert_true(l24->flops == 2.0 * 128 * 14 * 14 * 992 + 2.0 * 128 * 14 * 14);
   /* transition1: 1x1 256 -> 128 without epilogue, then avg pool 2x2/2, 4 adds + 1 divide */
   assert_true(net.tasks[9].flops == 2.0 * 128 * 56 * 56 * 256);
   assert_true(net.tasks[10].flops == 128.0 * 28 * 28 * (4 + 1));
   assert_true(net.tasks[70].flops == 1024.0 * (49 + 1));
   Network_done(&net);
}

/* MobileNetV3-Large: hardswish and the squeeze-excitation convs with hardsigmoid. */
static void test_mobilenet_v3_by_hand(void **state) {
   (void)state;
   Network net;
   /* the stem with hardswish (5 per output after the bias) */
   TestUtil_loadNetwork(&net, "models/mobilenet_v3.task");
   assert_int_equal(net.tasks[0].op.epilogue[1].kind, EPI_HARDSWISH);
   assert_true(net.tasks[0].flops == 2.0 * 16 * 112 * 112 * 3 * 9 + (1 + 5) * 16.0 * 112 * 112);
   /* features.4.se.fc2: 1x1 over the pooled 1x1 map, 24 -> 72, bias + hardsigmoid (4) */
   const Task *fc2 = &net.tasks[12];
   assert_int_equal(fc2->op.in_h, 1);
   assert_int_equal(fc2->op.epilogue[1].kind, EPI_HARDSIGMOID);
   assert_true(fc2->flops == 2.0 * 72 * 24 + (1 + 4) * 72.0);
   /* features.14-15.dw: depthwise 5x5 over 960 channels at 7x7 */
   const Task *dw = &net.tasks[45];
   assert_int_equal(dw->weight, 2);
   assert_int_equal(dw->op.groups, 960);
   assert_true(dw->flops == 2.0 * 960 * 7 * 7 * 25 + (1 + 5) * 960.0 * 7 * 7);
   /* the 960x7x7 pool: the SE pools of features.14 and 15 and the head's */
   assert_int_equal(net.tasks[46].weight, 3);
   assert_true(net.tasks[46].flops == 960.0 * (49 + 1));
   /* classifier.0: dense 960 -> 1280, bias + hardswish */
   assert_true(net.tasks[50].flops == 2.0 * 1280 * 960 + (1 + 5) * 1280.0);
   Network_done(&net);
}

/* DETR-R50 at 256x256: the backbone's ends, then the transformer and heads whole. */
static void test_detr_r50_by_hand(void **state) {
   (void)state;
   Network net;
   /* the backbone's stem at 128x128, the input projection at 8x8 */
   TestUtil_loadNetwork(&net, "models/detr_r50.task");
   assert_true(net.tasks[0].flops == 2.0 * 64 * 128 * 128 * 3 * 49 + 2.0 * 64 * 128 * 128);
   assert_true(net.tasks[25].flops == 2.0 * 256 * 8 * 8 * 2048 + 256.0 * 8 * 8);
   /* the transformer and heads, tasks 26-47, layer by layer: 64 tokens, 100 queries, d 256,
    * 8 heads of 32, FFN 2048, 6 x 100 rows into the heads */
   const double T = 64, Q = 100, d = 256, nh = 8, hd = 32, ffn = 2048, rows = 600;
   const double encoder = 6 * (3 * (2 * T * d * d + T * d)           /* Q, K, V + bias */
                               + 2 * nh * T * T * hd + 4 * nh * T * T  /* Q.K^T, softmax */
                               + 2 * nh * T * hd * T                   /* probs.V */
                               + (2 * T * d * d + 2 * T * d)           /* out_proj + bias, add */
                               + 2 * 14 * T * d                        /* norm1, norm2 */
                               + (2 * T * ffn * d + 2 * T * ffn)       /* linear1 + bias, relu */
                               + (2 * T * d * ffn + 2 * T * d));       /* linear2 + bias, add */
   const double cross = 6 * (2 * (2 * T * d * d + T * d)             /* K, V of the memory */
                             + 2 * nh * Q * T * hd + 4 * nh * Q * T + 2 * nh * Q * hd * T
                             + (2 * Q * d * d + 2 * Q * d)             /* out_proj + bias, add */
                             + 3 * 14 * Q * d                          /* norm2, norm3, decoder.norm */
                             + (2 * Q * ffn * d + 2 * Q * ffn) + (2 * Q * d * ffn + 2 * Q * d));
   const double self = 5 * (4 * (2 * Q * d * d + Q * d)             /* Q, K, V and the cross Q */
                            + 2 * nh * Q * Q * hd + 4 * nh * Q * Q + 2 * nh * Q * hd * Q
                            + (2 * Q * d * d + 2 * Q * d) + 14 * Q * d);
   const double heads = (2 * rows * 92 * d + rows * 92)              /* class_embed */
                      + 2 * (2 * rows * d * d + 2 * rows * d)        /* box layers 0, 1 + relu */
                      + (2 * rows * 4 * d + rows * 4);               /* box layer 2 + sigmoid (0) */
   double transformer = 0;
   for (int t = 26; t < net.ntasks; t++)
      transformer += (double)net.tasks[t].weight * net.tasks[t].flops;
   assert_true(encoder + cross + self + heads == 3095956224.0);
   assert_true(transformer == encoder + cross + self + heads);
   /* the last box layer: 256 -> 4 with bias and sigmoid */
   const Task *box = &net.tasks[47];
   assert_int_equal(box->op.epilogue[1].kind, EPI_SIGMOID);
   assert_true(box->flops == 2 * rows * 4 * d + rows * 4);
   /* decoder layer 0's self-attention is folded at compile time: 5 of each */
   assert_int_equal(net.tasks[42].weight, 5);
   assert_true(net.tasks[42].flops == 2 * nh * Q * Q * hd);
   Network_done(&net);
}

static Network loadText(const char *text) {
   Network net;
   char *cause = NULL;
   if (Network_loadString(&net, "t.task", text, strlen(text), &cause) < 0)
      fail_msg("%s", cause);
   return net;
}

static void test_batch_scales_every_op(void **state) {
   (void)state;
   Network net = loadText(
      "network: scaled\n"
      "batch: 4\n"
      "tasks:\n"
      "  - {op: conv2d, input: [3, 17, 17], filters: 8, kernel: 3, weight: 1}\n"
      "  - {op: dense, m: 2, n: 10, k: 20, weight: 1}\n"
      "  - {op: batch_matmul, b: 3, m: 5, n: 6, k: 7, weight: 1}\n"
      "  - {op: softmax, input: [12, 9], weight: 1}\n"
      "  - {op: layer_norm, input: [9, 16], epsilon: 1e-12, weight: 2}\n");
   assert_int_equal(net.tasks[0].op.batch, 4);
   assert_int_equal(net.tasks[0].op.out_h, 15);
   assert_int_equal(net.tasks[1].op.m, 8);
   assert_int_equal(net.tasks[2].op.b, 12);
   const OpParams *s = &net.tasks[3].op;
   assert_int_equal(s->ndim, 3);
   assert_int_equal(s->shape[0], 4);
   assert_int_equal(s->shape[1], 12);
   assert_int_equal(s->shape[2], 9);
   assert_true(net.tasks[4].op.epsilon == 1e-12);
   /* 2*4*8*15*15*3*9 ; 2*8*10*20 ; 2*12*5*6*7 ; 4*4*12*9 ; 2 x 14*4*9*16 */
   assert_true(net.tasks[0].flops == 388800.0);
   assert_true(net.tasks[1].flops == 3200.0);
   assert_true(net.tasks[2].flops == 5040.0);
   assert_true(net.tasks[3].flops == 1728.0);
   assert_true(Network_totalFlops(&net) == 388800.0 + 3200 + 5040 + 1728 + 2 * 8064.0);
   Network_done(&net);
}

static void test_shorthand_forms(void **state) {
   (void)state;
   Network net = loadText(
      "network: forms\n"
      "batch: 1\n"
      "dtype: float32\n"
      "tasks:\n"
      "  - {op: conv2d, input: [8, 35, 35], filters: 8, kernel: [1, 7], pad: [0, 3], name: branch7x7, weight: 1}\n"
      "  - {op: conv2d, input: [8, 35, 35], filters: 8, kernel: 3, pad: [1, 0, 2, 1], dilation: 2, epilogue: [{clip: [-1, 1.5]}], weight: 1}\n"
      "  - {op: max_pool2d, input: [8, 35, 35], kernel: 3, weight: 1}\n"
      "  - {op: avg_pool2d, input: [8, 35, 35], kernel: 3, stride: 2, pad: 1, count_include_pad: false, weight: 1}\n"
      "  - {op: adaptive_avg_pool2d, input: [8, 35, 35], output: [5, 7], weight: 1}\n");
   const OpParams *a = &net.tasks[0].op, *b = &net.tasks[1].op, *c = &net.tasks[2].op;
   assert_string_equal(net.tasks[0].label, "branch7x7");
   assert_int_equal(a->kernel_h, 1);
   assert_int_equal(a->kernel_w, 7);
   assert_int_equal(a->pad_top, 0);
   assert_int_equal(a->pad_bottom, 0);
   assert_int_equal(a->pad_left, 3);
   assert_int_equal(a->pad_right, 3);
   assert_int_equal(a->out_h, 35);
   assert_int_equal(a->out_w, 35);
   assert_int_equal(b->pad_top, 1);
   assert_int_equal(b->pad_left, 0);
   assert_int_equal(b->pad_bottom, 2);
   assert_int_equal(b->pad_right, 1);
   /* (35 + 3 - 5)/1 + 1 = 34 ; (35 + 1 - 5) + 1 = 32 */
   assert_int_equal(b->out_h, 34);
   assert_int_equal(b->out_w, 32);
   assert_true(b->epilogue[0].lo == -1.0 && b->epilogue[0].hi == 1.5);
   /* a pool's stride defaults to its window, as in PyTorch: (35 - 3)/3 + 1 = 11 */
   assert_int_equal(c->stride_h, 3);
   assert_int_equal(c->out_h, 11);
   assert_false(net.tasks[3].op.count_include_pad);
   assert_int_equal(net.tasks[3].op.out_h, 18);
   assert_int_equal(net.tasks[4].op.out_h, 5);
   assert_int_equal(net.tasks[4].op.out_w, 7);
   Network_done(&net);
}

/* ---- malformed files: one exact message each ---- */

typedef struct {
   const char *text;
   const char *message;
} BadCase;

#define HEAD "network: bad\nbatch: 1\ntasks:\n"

static const BadCase badCases[] = {
   /* 1 */ { "", "t.task:1:1: empty file; expected a YAML mapping" },
   /* 2 */ { "# only a comment\n", "t.task:1:1: empty file; expected a YAML mapping" },
   /* 3 */ { "network: x\ntasks: [\n", "t.task:3:1: YAML syntax error: did not find expected node content (while parsing a flow node at line 3)" },
   /* 4 */ { "- a\n- b\n", "t.task:1:1: expected a task file as a mapping of keys to values, found a list" },
   /* 5 */ { "batch: 1\ntasks: []\n", "t.task:1:1: missing key 'network'; a task file needs network, batch and tasks" },
   /* 6 */ { "network: x\nbatch: 1\nmodel: y\ntasks: []\n", "t.task:3:1: unknown key 'model' in a task file; expected one of: network, batch, dtype, tasks, graph" },
   /* 7 */ { "network: x\nbatch: 0\ntasks: []\n", "t.task:2:8: batch must be between 1 and 65536, found 0" },
   /* 8 */ { "network: x\nbatch: one\ntasks: []\n", "t.task:2:8: expected an integer for batch, found 'one'" },
   /* 9 */ { "network: x\nbatch: 1\ntasks: []\n", "t.task:3:8: tasks is empty; expected at least one task" },
   /* 10 */ { "network: x\nbatch: 1\ntasks: 3\n", "t.task:3:8: expected tasks as a list, found '3'" },
   /* 11 */ { HEAD "  - {op: conv3d, weight: 1}\n", "t.task:4:10: unknown op 'conv3d'; expected one of: conv2d, dense, batch_matmul, max_pool2d, avg_pool2d, adaptive_avg_pool2d, global_avg_pool2d, softmax, layer_norm, conv2d_transpose, resize2d, concat, elementwise" },
   /* 12 */ { HEAD "  - {input: [3, 8, 8], weight: 1}\n", "t.task:4:5: missing key 'op' in task; expected an op name" },
   /* 13 */ { HEAD "  - {op: conv2d, input: [3, 8, 8], kernel: 3, weight: 1}\n", "t.task:4:5: missing key 'filters' in a conv2d task; it needs input, filters, kernel and weight" },
   /* 14 */ { HEAD "  - {op: dense, n: 4, k: 4, weight: 0}\n", "t.task:4:37: weight must be between 1 and 1000000, found 0" },
   /* 15 */ { HEAD "  - {op: dense, n: 4, k: 4, weight: -2}\n", "t.task:4:37: weight must be between 1 and 1000000, found -2" },
   /* 16 */ { HEAD "  - {op: dense, n: 4, k: 4}\n", "t.task:4:5: missing key 'weight' in a dense task; it needs n, k and weight" },
   /* 17 */ { HEAD "  - {op: conv2d, input: [64, 56], filters: 64, kernel: 3, weight: 1}\n", "t.task:4:25: input of conv2d has 2 dimensions; expected [C, H, W] (the batch comes from the file's batch)" },
   /* 18 */ { HEAD "  - {op: conv2d, input: [0, 56, 56], filters: 64, kernel: 3, weight: 1}\n", "t.task:4:26: a size in input must be between 1 and 1048576, found 0" },
   /* 19 */ { HEAD "  - {op: conv2d, input: [3, 5, 5], filters: 8, kernel: 7, weight: 1}\n", "t.task:4:56: kernel 7x7 does not fit the 5x5 input padded to 5x5" },
   /* 20 */ { HEAD "  - {op: conv2d, input: [3, 5, 5], filters: 8, kernel: 1, stride: 9, weight: 1}\n", "t.task:4:67: stride 9x9 is larger than the 5x5 padded input" },
   /* 21 */ { HEAD "  - {op: conv2d, input: [64, 8, 8], filters: 64, kernel: 3, groups: 3, weight: 1}\n", "t.task:4:69: groups 3 does not divide the 64 input channels" },
   /* 22 */ { HEAD "  - {op: conv2d, input: [3, 8, 8], filters: 8, kernel: 3, padding: 1, weight: 1}\n", "t.task:4:59: unknown key 'padding' in a conv2d task; expected one of: op, weight, epilogue, name, input, filters, kernel, stride, pad, dilation, groups" },
   /* 23 */ { HEAD "  - {op: dense, n: 4, k: 4, weight: \"3\"}\n", "t.task:4:37: expected an integer for weight, found the quoted string '3'" },
   /* 24 */ { HEAD "  - {op: dense, n: 4, k: 4, epilogue: [bias, tanh], weight: 1}\n", "t.task:4:46: unknown epilogue 'tanh'; expected one of: bias, add, relu, relu6, clip, gelu, hardswish, hardsigmoid, sigmoid, mul, scale, channel_mul, mul_const, div_const" },
   /* 25 */ { HEAD "  - {op: softmax, input: [4, 8], epilogue: [bias], weight: 1}\n", "t.task:4:45: epilogue 'bias' applies to an op with a channel axis (conv2d, conv2d_transpose, dense, batch_matmul, resize2d, concat, elementwise), not softmax" },
   /* 26 */ { HEAD "  - {op: dense, n: 4, k: 4, epilogue: [clip], weight: 1}\n", "t.task:4:40: epilogue 'clip' needs bounds: write {clip: [lo, hi]}" },
   /* 27 */ { HEAD "  - {op: max_pool2d, input: [3, 8, 8], kernel: 3, pad: [1, 1, 1], weight: 1}\n", "t.task:4:56: expected pad as p, [ph, pw] or [top, left, bottom, right], found 3 values" },
   /* 28 */ { HEAD "  - {op: dense, n: 4, k: 4, weight: 1}\n  - {op: dense, n: 8, k: 4, weight: 1}\n  - {op: dense, n: 4, k: 4, weight: 2}\n", "t.task:6:5: task 2 repeats the workload of task 0 (line 4); merge them and add their weights" },
   /* 29 */ { HEAD "  - {op: dense, n: 4, k: 4, n: 5, weight: 1}\n", "t.task:4:29: key 'n' appears twice in a dense task (first at line 4)" },
   /* 30 */ { "network: x\nbatch: 1\ndtype: float16\ntasks: []\n", "t.task:3:8: unsupported dtype 'float16'; only float32 is supported" },
   /* 31 */ { "network: x\nbatch: 1\ntasks: []\n---\nnetwork: y\n", "t.task:4:1: a second YAML document; expected one document per file" },
   /* 32 */ { HEAD "  - {op: conv2d, input: [3, 8, 8], filters: 8, kernel: 3, pad: -1, weight: 1}\n", "t.task:4:64: pad must be between 0 and 1048576, found -1" },
   /* 33 */ { HEAD "  - {op: adaptive_avg_pool2d, input: [8, 7, 7], output: 9, weight: 1}\n", "t.task:4:57: output 9x9 is larger than the 7x7 input" },
   /* 34 */ { HEAD "  - {op: conv2d, input: [3, 8, 8], filters: 8, kernel: three, weight: 1}\n", "t.task:4:56: expected an integer for kernel, found 'three'" },
   /* 35 */ { HEAD "  - {op: layer_norm, input: [4, 8], epsilon: 0, weight: 1}\n", "t.task:4:46: epsilon must be between 1e-30 and 1, found 0" },
   /* 36 */ { "network: res/net\nbatch: 1\ntasks: []\n", "t.task:1:10: network name 'res/net' has characters other than letters, digits, '_', '-' and '.'" },
   /* 37 */ { HEAD "  - conv2d\n", "t.task:4:5: expected a task as a mapping of keys to values, found 'conv2d'" },
   /* 38 */ { HEAD "  - {op: max_pool2d, input: [3, 8, 8], kernel: 3, pad: 2, weight: 1}\n", "t.task:4:56: pad 2,2,2,2 is more than half the 3x3 window" },
   /* 39 */ { HEAD "  - {op: dense, n: 4, k: 4, epilogue: [{clip: [6, 0]}], weight: 1}\n", "t.task:4:40: clip bounds [6, 0] are reversed; expected lo <= hi" },
   /* 40 */ { HEAD "  - {op: dense, n: 65536, m: 65536, k: 4, weight: 1}\n", "t.task:4:10: the output has more than 2^31-1 elements" },
};

static void test_malformed_files(void **state) {
   (void)state;
   for (size_t i = 0; i < sizeof badCases / sizeof badCases[0]; i++) {
      Network net;
      char *cause = NULL;
      const char *text = badCases[i].text;
      int rc = Network_loadString(&net, "t.task", text, strlen(text), &cause);
      if (rc != -1 || !cause || strcmp(cause, badCases[i].message) != 0)
         fail_msg("case %zu:\n  got      %s\n  expected %s", i + 1, cause ? cause : "(success)",
                  badCases[i].message);
      assert_int_equal(net.ntasks, 0);
      assert_null(net.tasks);
      free(cause);
   }
}

/* The same path as the command line: real files, missing files, unreadable bytes. */
static void test_files_on_disk(void **state) {
   (void)state;
   char *dir = TestUtil_tempDir();
   Network net;
   char *cause = NULL;
   char *missing = TestUtil_srcPath("models/no-such-network.task");
   assert_int_equal(Network_load(&net, missing, &cause), -1);
   char *want = NULL;
   want = malloc(strlen(missing) + 64);
   sprintf(want, "%s: cannot open: No such file or directory", missing);
   assert_string_equal(cause, want);
   free(want);
   free(cause);
   free(missing);

   char *bin = TestUtil_writeFile(dir, "binary.task", "network: \xff\xfe\n");
   assert_int_equal(Network_load(&net, bin, &cause), -1);
   want = malloc(strlen(bin) + 128);
   sprintf(want, "%s: invalid leading UTF-8 octet (byte 9); expected UTF-8 text", bin);
   assert_string_equal(cause, want);
   free(want);
   free(cause);
   free(bin);

   char *good = TestUtil_writeFile(dir, "one.task", HEAD "  - {op: dense, n: 4, k: 4, weight: 3}\n");
   assert_int_equal(Network_load(&net, good, &cause), 0);
   assert_string_equal(net.path, good);
   assert_int_equal(net.tasks[0].weight, 3);
   assert_int_equal(net.tasks[0].line, 4);
   Network_done(&net);
   free(good);
   TestUtil_removeTree(dir);
   free(dir);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_resnet_50),
      cmocka_unit_test(test_other_networks),
      cmocka_unit_test(test_added_networks_by_hand),
      cmocka_unit_test(test_densenet_121_by_hand),
      cmocka_unit_test(test_mobilenet_v3_by_hand),
      cmocka_unit_test(test_detr_r50_by_hand),
      cmocka_unit_test(test_batch_scales_every_op),
      cmocka_unit_test(test_shorthand_forms),
      cmocka_unit_test(test_malformed_files),
      cmocka_unit_test(test_files_on_disk),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
