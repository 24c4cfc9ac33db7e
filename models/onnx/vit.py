# ViT-B/16 (torchvision.models.vit_b_16's architecture) at models/vit_b_16.task's input
# size, 3x256x256 by default (257 tokens), written in the style of torch.onnx.export:
#
#   conv_proj: Conv 16x16/16 with bias -> Reshape [B, 768, P] -> Transpose [0, 2, 1];
#   class_token [1, 1, 768] -> Expand [B, 1, 768] -> Concat(axis 1) before the patches;
#   Add(x, encoder.pos_embedding);
#   an encoder layer (pre-norm): ln_1; nn.MultiheadAttention's packed in-projection as
#     MatMul [B, T, 768] x [768, 2304] + Add(bias, .); Reshape [B, T, 3, 12, 64],
#     Transpose [2, 0, 3, 1, 4], Gather(axis 0) 0, 1, 2 for Q, K, V ([B, 12, T, 64]);
#     K^T by Transpose [0, 1, 3, 2]; MatMul(Q, K^T); Softmax(-1); MatMul(probs, V);
#     Transpose [0, 2, 1, 3], Reshape [B, T, 768]; out_proj MatMul + Add(bias);
#     Add(., input); ln_2; mlp.0 MatMul + Add, exact GELU (Div sqrt 2, Erf, Add 1, Mul x,
#     Mul 0.5); mlp.3 MatMul + Add; Add(x, .);
#   encoder.ln; the class token by Gather(axis 1, index 0); heads.head as Gemm(transB=1).
#
# LayerNorm (epsilon 1e-6) is decomposed below opset 17 and LayerNormalization from 17,
# as for BERT. The 1/sqrt(64) = 0.125 score scale is folded into the query rows of the
# packed in-projection's weight and bias, as the task file counts it; with
# attention_scale=True it is a Div(Q.K^T, 8) instead. (torch's own export of
# nn.MultiheadAttention depends on the torch version -- scaled_dot_product_attention
# scales Q and K by sqrt(0.125) each -- so this graph is the plain equivalent.)
#
# Node names follow models/vit_b_16.task with each layer's own index:
# conv_proj, encoder.layers.N.ln_1/..., encoder.layers.N.self_attention (in_proj, Q/K/V),
# encoder.layers.N.self_attention (Q.K^T) / (softmax) / (probs.V),
# encoder.layers.N.self_attention.out_proj, encoder.layers.N.mlp.0, encoder.layers.N.mlp.3,
# encoder.ln/..., heads.head. Initializers use torchvision's keys
# (encoder.layers.encoder_layer_N....).

import math

import numpy as np

from common import FLOAT, BuildError, Builder

CONFIGS = {
    # name: (patch, layers, hidden, heads, mlp)
    "vit_b_16": (16, 12, 768, 12, 3072),
}
EPS = 1e-6


def build(network, opset, seed, batch, image_size, attention_scale=False):
    patch, layers, hidden, heads, mlp = CONFIGS[network]
    if image_size < patch or image_size % patch:
        raise BuildError("%s needs an --image-size that is a multiple of %d" % (network, patch))
    head_dim = hidden // heads
    side = image_size // patch
    tokens = side * side + 1
    scale = 1.0 / math.sqrt(head_dim)
    g = Builder(network, opset, seed)
    x = g.input("input", FLOAT, [batch, 3, image_size, image_size])

    x = g.conv(x, 3, hidden, patch, "conv_proj", "conv_proj", stride=patch, bias=True)
    x = g.node("Reshape", [x, g.const([batch, hidden, side * side], np.int64)],
               "encoder/Reshape")
    x = g.node("Transpose", [x], "encoder/Transpose", perm=[0, 2, 1])
    ct = g.normal("class_token", (1, 1, hidden), 1.0)
    ct = g.node("Expand", [ct, g.const([batch, 1, hidden], np.int64)], "class_token/Expand")
    x = g.node("Concat", [ct, x], "encoder/Concat", axis=1)
    pos = g.normal("encoder.pos_embedding", (1, tokens, hidden), 1.0)
    x = g.node("Add", [x, pos], "encoder/Add")

    split = g.const([batch, tokens, 3, heads, head_dim], np.int64)
    merge = g.const([batch, tokens, hidden], np.int64)
    idx = [g.const(i, np.int64) for i in range(3)]
    for i in range(layers):
        n = "encoder.layers.%d" % i
        k = "encoder.layers.encoder_layer_%d" % i
        sa = n + ".self_attention"
        h = g.layer_norm(x, hidden, n + ".ln_1", k + ".ln_1", EPS)
        # packed in-projection, [in, 3 x out]: Q columns first, scaled by 0.125 unless
        # the Div is written
        w = g.rng.standard_normal((hidden, 3 * hidden), dtype=np.float32)
        w *= np.float32(g.scale_for(h, hidden))
        b = g.rng.standard_normal((3 * hidden,), dtype=np.float32)
        b *= np.float32(0.1)
        if not attention_scale:
            w[:, :hidden] *= np.float32(scale)
            b[:hidden] *= np.float32(scale)
        wn = g.init(k + ".self_attention.in_proj_weight.T", w)
        bn = g.init(k + ".self_attention.in_proj_bias", b)
        p = g.node("MatMul", [h, wn], sa + " (in_proj, Q/K/V)")
        p = g.node("Add", [bn, p], sa + " (in_proj, Q/K/V)/Add")
        g.m2[p] = 1.01
        p = g.node("Reshape", [p, split], sa + "/Reshape")
        p = g.node("Transpose", [p], sa + "/Transpose", perm=[2, 0, 3, 1, 4])
        q = g.node("Gather", [p, idx[0]], sa + "/Gather", axis=0)
        kk = g.node("Gather", [p, idx[1]], sa + "/Gather", axis=0)
        v = g.node("Gather", [p, idx[2]], sa + "/Gather", axis=0)
        kk = g.node("Transpose", [kk], sa + "/Transpose", perm=[0, 1, 3, 2])
        s = g.node("MatMul", [q, kk], sa + " (Q.K^T)")
        if attention_scale:
            s = g.node("Div", [s, g.const(math.sqrt(head_dim))], sa + " (Q.K^T)/Div")
        s = g.node("Softmax", [s], sa + " (softmax)", axis=-1)
        c = g.node("MatMul", [s, v], sa + " (probs.V)")
        g.m2[c] = g.m2[p]  # averages of V's rows
        c = g.node("Transpose", [c], sa + "/Transpose", perm=[0, 2, 1, 3])
        c = g.node("Reshape", [c, merge], sa + "/Reshape")
        o = g.linear(c, hidden, hidden, sa + ".out_proj", k + ".self_attention.out_proj")
        x = g.add(o, x, sa + ".out_proj")  # x = x + input
        y = g.layer_norm(x, hidden, n + ".ln_2", k + ".ln_2", EPS)
        y = g.linear(y, hidden, mlp, n + ".mlp.0", k + ".mlp.0")
        y = g.gelu(y, n + ".mlp.0")
        y = g.linear(y, mlp, hidden, n + ".mlp.3", k + ".mlp.3")
        x = g.add(x, y, n + ".mlp.3")  # return x + y
    x = g.layer_norm(x, hidden, "encoder.ln", "encoder.ln", EPS)
    x = g.node("Gather", [x, g.const(0, np.int64)], "encoder/Gather", axis=1)
    x = g.gemm(x, hidden, 1000, "heads.head", "heads.head")
    g.output(x, "output", FLOAT, [batch, 1000])
    doc = ("%s: torchvision.models.vit_b_16's architecture at %dx%d (%d tokens), eval mode, "
           "random weights (seed %d), batch %d; %s; see models/%s.task"
           % (network, image_size, image_size, tokens, seed, batch,
              "score scale as Div(Q.K^T, %g)" % math.sqrt(head_dim) if attention_scale else
              "score scale %g folded into the query rows of in_proj" % scale, network))
    return g, doc
