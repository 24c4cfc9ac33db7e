# DETR-R50 (facebookresearch/detr's detr_resnet50: DETR(backbone, Transformer(d_model
# 256, 8 heads, 6 + 6 layers, FFN 2048, post-norm, return_intermediate_dec=True), 91
# classes, 100 queries, aux_loss off), written the way torch.onnx.export writes it in
# eval mode, batch first dimension B, one unpadded image:
#
#   backbone.0.body: torchvision's ResNet-50 v1.5 up to layer4 (IntermediateLayerGetter,
#     no avgpool or fc), as resnet.py writes resnet50. DETR's FrozenBatchNorm2d is
#     written as BatchNormalization by default (the same function: a per-channel scale
#     and shift of the four buffers, eps 1e-5), which the task file's "folded into the
#     conv" describes; with frozen_bn=True as torch exports the module's own forward,
#     x * scale + shift: Mul and Add by [1, C, 1, 1] initializers KEY.scale, KEY.shift
#     (torch's constant folding computes them from the buffers).
#   input_proj: Conv 1x1 2048 -> 256 with bias; src = flatten(2).permute(2, 0, 1):
#     Reshape [B, 256, HW] and Transpose [2, 0, 1] -> [HW, B, 256] (sequence first).
#   Positional encodings: PositionEmbeddingSine(128, normalize=True) of the all-false
#     mask, computed by numpy here and stored as the constant folded.pos [HW, B, 256]
#     (torch folds the computation; so does TVM's FoldConstant); query_pos =
#     query_embed.weight.unsqueeze(1).repeat(1, B, 1) likewise, folded.query_pos
#     [100, B, 256]. No key padding mask (all false for one unpadded image; left out as
#     the task file and bert_base.task leave it out).
#   nn.MultiheadAttention (torch 1.12's F.multi_head_attention_forward, key is not
#     value): three projections MatMul [L, B, 256] x [256, 256] + Add(bias, .), the
#     packed in_proj_weight's rows 0-255, 256-511, 512-767 transposed
#     (KEY.in_proj_weight.q.T, .k.T, .v.T; biases KEY.in_proj_bias.q, .k, .v); Q, K, V
#     Reshape [L, 8B, 32] and Transpose [1, 0, 2] (K: [1, 2, 0], the transpose for K^T
#     fused in, as torch's peephole pass does); Div(Q, sqrt 32)
#     (_scaled_dot_product_attention's q / math.sqrt(E)); MatMul(Q, K^T) [8B, L, S];
#     Softmax(-1); MatMul(probs, V); Transpose [1, 0, 2], Reshape [L, B, 256]; out_proj
#     MatMul + Add(bias, .). The averaged attention weights (need_weights) are unused,
#     so not exported.
#   encoder layer (post-norm): Add(src, pos) is query and key, src the value;
#     Add(src, attn) -> norm1; linear1 + Relu, linear2, Add(src, ffn) -> norm2.
#   decoder layer (post-norm): self-attention with query = key = Add(tgt, query_pos),
#     value tgt, Add(tgt, attn) -> norm1; cross-attention with query Add(tgt,
#     query_pos), key Add(memory, pos), value memory, Add(tgt, attn) -> norm2; FFN as in
#     the encoder -> norm3; decoder.norm of every layer's output, Unsqueeze(0) + Concat
#     (torch.stack) -> [6, 100, B, 256], Transpose [0, 2, 1, 3] -> [6, B, 100, 256].
#     Decoder layer 0 starts from tgt = zeros, so its self-attention block and the
#     query projection of its cross-attention read constants only: torch's constant
#     folding (and TVM's FoldConstant) computes them, and the graph holds their results
#     (numpy here): folded.decoder.layers.0.norm1 [100, B, 256] (tgt after norm1) and
#     folded.decoder.layers.0.multihead_attn.q [8B, 100, 32] (the query projection,
#     split and divided by sqrt 32). Layer 0's self_attn and norm1 weights and its
#     multihead_attn Q rows are therefore not in the graph.
#   heads on the [6, B, 100, 256] stack: class_embed MatMul + Add -> [6, B, 100, 92];
#     bbox_embed layers 0, 1 MatMul + Add + Relu, layer 2 MatMul + Add, Sigmoid; the
#     outputs pred_logits [B, 100, 92] and pred_boxes [B, 100, 4] are the last layer's,
#     Gather(axis 0, index -1) (out[-1]).
#
# LayerNorm (epsilon 1e-5) is decomposed below opset 17 and LayerNormalization from 17,
# as for BERT.
#
# Node names follow models/detr_r50.task (its module paths without "transformer."):
# backbone.0.body.conv1, backbone.0.body.layerL.B.convN, input_proj,
# encoder.layers.N.self_attn (in_proj, Q) / (in_proj, K) / (in_proj, V),
# encoder.layers.N.self_attn (Q.K^T) / (softmax) / (probs.V),
# encoder.layers.N.self_attn.out_proj, encoder.layers.N.linear1 / linear2,
# encoder.layers.N.norm1/ReduceMean ..., decoder.layers.N.self_attn ...,
# decoder.layers.N.multihead_attn ..., decoder.norm/..., class_embed,
# bbox_embed.layers.K. Initializers use DETR's state_dict keys (transformer.encoder....,
# backbone.0.body.layer1.0.bn1.running_var).

import math

import numpy as np

from common import FLOAT, BuildError, Builder

CONFIGS = {
    # name: (backbone layers, d_model, heads, FFN, encoder layers, decoder layers,
    #        queries, classes + 1)
    "detr_r50": ([3, 4, 6, 3], 256, 8, 2048, 6, 6, 100, 92),
}
EPS = 1e-5


def bottleneck(g, x, cin, planes, stride, prefix, key, frozen):
    width = planes
    cout = planes * 4
    out = g.conv_bn(x, cin, width, 1, prefix + ".conv1", key + ".conv1", key + ".bn1",
                    act="relu", frozen=frozen)
    out = g.conv_bn(out, width, width, 3, prefix + ".conv2", key + ".conv2", key + ".bn2",
                    stride=stride, pad=1, act="relu", frozen=frozen)
    out = g.conv_bn(out, width, cout, 1, prefix + ".conv3", key + ".conv3", key + ".bn3",
                    frozen=frozen)
    identity = x
    if stride != 1 or cin != cout:
        identity = g.conv_bn(x, cin, cout, 1, prefix + ".downsample", key + ".downsample.0",
                             key + ".downsample.1", stride=stride, frozen=frozen)
    out = g.add(out, identity, prefix + ".conv3")
    return g.relu(out, prefix + ".conv3"), cout


def sine_pos(h, w, d, batch):
    """PositionEmbeddingSine(d / 2, temperature 10000, normalize=True) of an all-false
    mask, flattened and permuted as Transformer.forward does: [HW, B, d]."""
    npf = d // 2
    y = np.repeat(np.arange(1, h + 1, dtype=np.float32)[:, None], w, axis=1)
    x = np.repeat(np.arange(1, w + 1, dtype=np.float32)[None, :], h, axis=0)
    eps, scale = np.float32(1e-6), np.float32(2 * math.pi)
    y = y / (y[-1:, :] + eps) * scale
    x = x / (x[:, -1:] + eps) * scale
    dim_t = np.arange(npf, dtype=np.float32)
    dim_t = np.float32(10000) ** (2 * (dim_t // 2) / np.float32(npf))
    px = x[:, :, None] / dim_t
    py = y[:, :, None] / dim_t
    px = np.stack((np.sin(px[:, :, 0::2]), np.cos(px[:, :, 1::2])), axis=3).reshape(h, w, npf)
    py = np.stack((np.sin(py[:, :, 0::2]), np.cos(py[:, :, 1::2])), axis=3).reshape(h, w, npf)
    pos = np.concatenate((py, px), axis=2).reshape(h * w, 1, d)  # [HW, 1, d]
    return np.ascontiguousarray(np.broadcast_to(pos, (h * w, batch, d)), dtype=np.float32)


class Detr:
    def __init__(self, g, batch, d, heads, ffn):
        self.g, self.batch, self.d, self.heads, self.ffn = g, batch, d, heads, ffn
        self.hd = d // heads

    def proj(self, x, key, which, name):
        """One of the three in-projections: rows of KEY.in_proj_weight, transposed."""
        g, d = self.g, self.d
        w = g.rng.standard_normal((d, d), dtype=np.float32)
        w *= np.float32(g.scale_for(x, d))
        b = g.rng.standard_normal((d,), dtype=np.float32)
        b *= np.float32(0.1)
        wn = g.init("%s.in_proj_weight.%s.T" % (key, which), w)
        bn = g.init("%s.in_proj_bias.%s" % (key, which), b)
        y = g.node("MatMul", [x, wn], "%s (in_proj, %s)" % (name, which.upper()))
        return g._set(g.node("Add", [bn, y], "%s (in_proj, %s)/Add" % (name, which.upper())), 1.01)

    def split(self, t, length, name, perm):
        g = self.g
        t = g.node("Reshape", [t, g.const([length, self.batch * self.heads, self.hd], np.int64)],
                   name + "/Reshape")
        return g.node("Transpose", [t], name + "/Transpose", perm=perm)

    def attention(self, q_in, k_in, v, lq, lk, name, key, q_folded=None):
        """nn.MultiheadAttention(q_in, k_in, v) -> out_proj output [lq, B, d]; with
        q_folded, the query after projection, split and scale is that constant."""
        g = self.g
        if q_folded is None:
            q = self.proj(q_in, key, "q", name)
        kk = self.proj(k_in, key, "k", name)
        vv = self.proj(v, key, "v", name)
        if q_folded is None:
            q = self.split(q, lq, name, [1, 0, 2])
            q = g.node("Div", [q, g.const(math.sqrt(self.hd))], name + "/Div")
            g.m2[q] = 1.01 / self.hd
        else:
            q = q_folded
        kk = self.split(kk, lk, name, [1, 2, 0])
        vv = self.split(vv, lk, name, [1, 0, 2])
        s = g.node("MatMul", [q, kk], name + " (Q.K^T)")
        s = g.node("Softmax", [s], name + " (softmax)", axis=-1)
        c = g.node("MatMul", [s, vv], name + " (probs.V)")
        g.m2[c] = g.m2[vv]
        c = g.node("Transpose", [c], name + "/Transpose", perm=[1, 0, 2])
        c = g.node("Reshape", [c, g.const([lq, self.batch, self.d], np.int64)], name + "/Reshape")
        return g.linear(c, self.d, self.d, name + ".out_proj", key + ".out_proj")

    def ffn_block(self, x, name, key):
        g = self.g
        y = g.linear(x, self.d, self.ffn, name + ".linear1", key + ".linear1")
        y = g.relu(y, name + ".linear1")
        y = g.linear(y, self.ffn, self.d, name + ".linear2", key + ".linear2")
        return g.add(x, y, name + ".linear2")  # src + dropout2(src2)


def folded_layer0(g, det, query_pos, lq, key):
    """Decoder layer 0 from tgt = 0: its self-attention output (a constant row: the
    softmax rows sum to 1 over V = the value bias), norm1, and the cross-attention's
    query projection, split and scaled; computed here as torch's (and TVM's) constant
    folding does. Draws the weights in the order the layer uses them."""
    d, hd, b = det.d, det.hd, det.batch
    r = g.rng

    def lin(cin, cout, m2):
        w = r.standard_normal((cin, cout), dtype=np.float32) * np.float32(math.sqrt(1.0 / (cin * m2)))
        bb = r.standard_normal((cout,), dtype=np.float32) * np.float32(0.1)
        return w.astype(np.float64), bb.astype(np.float64)

    # self_attn: Q, K (of query_pos), V (of 0), out_proj
    lin(d, d, 1.0)
    lin(d, d, 1.0)
    _, bv = lin(d, d, 1.0)
    wo, bo = lin(d, d, 0.01)
    o = bv @ wo + bo  # one row, every query's
    gamma = r.random((d,), dtype=np.float32).astype(np.float64) + 0.5
    beta = r.standard_normal((d,), dtype=np.float32).astype(np.float64) * 0.1
    n1 = (o - o.mean()) / np.sqrt(o.var() + EPS) * gamma + beta
    tgt = np.broadcast_to(n1.astype(np.float32), (lq, b, d))
    # multihead_attn's query projection of tgt + query_pos
    wq, bq = lin(d, d, float(np.mean(gamma ** 2) + np.mean(beta ** 2)) + 1.0)
    q = (tgt.astype(np.float64) + query_pos.astype(np.float64)) @ wq + bq  # [lq, B, d]
    q = q.reshape(lq, b * det.heads, hd).transpose(1, 0, 2) / math.sqrt(hd)
    tn = g.init("folded.%s.norm1" % key, np.ascontiguousarray(tgt, dtype=np.float32))
    g.m2[tn] = float(np.mean(n1 ** 2))
    qn = g.init("folded.%s.multihead_attn.q" % key, np.ascontiguousarray(q, dtype=np.float32))
    g.m2[qn] = 1.01 / hd
    return tn, qn


def build(network, opset, seed, batch, image_size, frozen_bn=False):
    layers, d, heads, ffn, n_enc, n_dec, nq, ncls = CONFIGS[network]
    if image_size < 32:
        raise BuildError("%s needs --image-size of at least 32" % network)
    g = Builder(network, opset, seed)
    x = g.input("input", FLOAT, [batch, 3, image_size, image_size])

    # backbone.0.body: ResNet-50 to layer4
    body = "backbone.0.body"
    x = g.conv_bn(x, 3, 64, 7, body + ".conv1", body + ".conv1", body + ".bn1", stride=2, pad=3,
                  act="relu", frozen=frozen_bn)
    x = g.max_pool(x, 3, 2, 1, body + ".maxpool")
    cin = 64
    for li, (n, planes) in enumerate(zip(layers, [64, 128, 256, 512])):
        for b in range(n):
            stride = 2 if (li > 0 and b == 0) else 1
            p = "%s.layer%d.%d" % (body, li + 1, b)
            x, cin = bottleneck(g, x, cin, planes, stride, p, p, frozen_bn)
    fh = image_size
    for k, s, p in ((7, 2, 3), (3, 2, 1), (3, 2, 1), (3, 2, 1), (3, 2, 1)):
        fh = (fh + 2 * p - k) // s + 1
    hw = fh * fh

    x = g.conv(x, cin, d, 1, "input_proj", "input_proj", bias=True)
    x = g.node("Reshape", [x, g.const([batch, d, hw], np.int64)], "transformer/Reshape")
    src = g.node("Transpose", [x], "transformer/Transpose", perm=[2, 0, 1])  # [HW, B, d]
    pos = g.init("folded.pos", sine_pos(fh, fh, d, batch))
    g.m2[pos] = 0.5
    qe = g.rng.standard_normal((nq, d), dtype=np.float32)  # query_embed.weight, N(0, 1)
    query_pos = np.ascontiguousarray(np.broadcast_to(qe[:, None, :], (nq, batch, d)))
    qp = g.init("folded.query_pos", query_pos)
    g.m2[qp] = 1.0
    det = Detr(g, batch, d, heads, ffn)

    # encoder
    for i in range(n_enc):
        n = "encoder.layers.%d" % i
        k = "transformer.encoder.layers.%d" % i
        qk = g.node("Add", [src, pos], n + "/Add")
        g.m2[qk] = g.m2[src] + 0.5
        a = det.attention(qk, qk, src, hw, hw, n + ".self_attn", k + ".self_attn")
        src = g.add(src, a, n + ".self_attn.out_proj")  # src + dropout1(src2)
        src = g.layer_norm(src, d, n + ".norm1", k + ".norm1", EPS)
        src = det.ffn_block(src, n, k)
        src = g.layer_norm(src, d, n + ".norm2", k + ".norm2", EPS)
    memory = src

    # decoder
    outs = []
    tgt = None
    for i in range(n_dec):
        n = "decoder.layers.%d" % i
        k = "transformer.decoder.layers.%d" % i
        qf = None
        if i == 0:
            tgt, qf = folded_layer0(g, det, query_pos, nq, k)
            q_in = None
        else:
            qk = g.node("Add", [tgt, qp], n + "/Add")
            g.m2[qk] = g.m2[tgt] + 1.0
            a = det.attention(qk, qk, tgt, nq, nq, n + ".self_attn", k + ".self_attn")
            tgt = g.add(tgt, a, n + ".self_attn.out_proj")
            tgt = g.layer_norm(tgt, d, n + ".norm1", k + ".norm1", EPS)
            q_in = g.node("Add", [tgt, qp], n + "/Add")
            g.m2[q_in] = g.m2[tgt] + 1.0
        km = g.node("Add", [memory, pos], n + "/Add")
        g.m2[km] = g.m2[memory] + 0.5
        a = det.attention(q_in, km, memory, nq, hw, n + ".multihead_attn", k + ".multihead_attn",
                          q_folded=qf)
        tgt = g.add(tgt, a, n + ".multihead_attn.out_proj")
        tgt = g.layer_norm(tgt, d, n + ".norm2", k + ".norm2", EPS)
        tgt = det.ffn_block(tgt, n, k)
        tgt = g.layer_norm(tgt, d, n + ".norm3", k + ".norm3", EPS)
        # the one decoder.norm on every layer's output (return_intermediate)
        outs.append(g.layer_norm(tgt, d, "decoder.norm", "transformer.decoder.norm", EPS,
                                 reuse=i > 0))

    # torch.stack(intermediate).transpose(1, 2)
    if opset >= 13:
        ax = g.const([0], np.int64)
        us = [g.node("Unsqueeze", [o, ax], "decoder/Unsqueeze") for o in outs]
    else:
        us = [g.node("Unsqueeze", [o], "decoder/Unsqueeze", axes=[0]) for o in outs]
    hs = g.node("Concat", us, "decoder/Concat", axis=0)
    hs = g.node("Transpose", [hs], "transformer/Transpose", perm=[0, 2, 1, 3])  # [6, B, nq, d]

    # heads
    logits = g.linear(hs, d, ncls, "class_embed", "class_embed")
    y = hs
    for j, cout in enumerate((d, d, 4)):
        y = g.linear(y, d, cout, "bbox_embed.layers.%d" % j, "bbox_embed.layers.%d" % j)
        if j < 2:
            y = g.relu(y, "bbox_embed.layers.%d" % j)
    boxes = g.node("Sigmoid", [y], "bbox_embed.layers.2/Sigmoid")
    last = g.const(-1, np.int64)
    logits = g.node("Gather", [logits, last], "class_embed/Gather", axis=0)
    boxes = g.node("Gather", [boxes, last], "bbox_embed/Gather", axis=0)
    g.output(logits, "pred_logits", FLOAT, [batch, nq, ncls])
    g.output(boxes, "pred_boxes", FLOAT, [batch, nq, 4])
    doc = ("%s: facebookresearch/detr detr_resnet50 (%d queries, %d classes + no object) in "
           "eval mode, random weights (seed %d), input [%d, 3, %d, %d] (%d tokens); "
           "FrozenBatchNorm2d as %s; decoder layer 0's self-attention and cross-attention "
           "query folded to constants; outputs pred_logits and pred_boxes; see models/%s.task"
           % (network, nq, ncls - 1, seed, batch, image_size, image_size, hw,
              "Mul + Add (its own forward)" if frozen_bn else "BatchNormalization", network))
    return g, doc
