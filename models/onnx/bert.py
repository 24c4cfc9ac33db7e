# BERT encoders (HuggingFace transformers' BertModel, up to last_hidden_state; no
# pooler): bert_base (bert-base-uncased) and bert_tiny (google/bert_uncased_L-2_H-128_A-2),
# written the way torch.onnx.export writes BertModel with static shapes:
#
#   embeddings: Gather(word_embeddings, input_ids), Gather(token_type_embeddings,
#     token_type_ids), Add, Gather(position_embeddings, position_ids) with position_ids
#     a constant [1, S] initializer 0..S-1 (no Range), Add, LayerNorm;
#   a layer: query, key, value as MatMul [B, S, H] x [H, H] then Add(bias, .); Reshape
#     to [B, S, heads, 64]; Transpose perm [0, 2, 1, 3] for Q and V, perm [0, 2, 3, 1]
#     for K (the heads transpose and K^T in one); MatMul(Q, K^T) [B, heads, S, S];
#     Softmax(axis -1); MatMul(probs, V); Transpose [0, 2, 1, 3] and Reshape back to
#     [B, S, H]; output dense MatMul + Add(bias), Add(., residual), LayerNorm;
#     intermediate dense MatMul + Add(bias), exact GELU (Div sqrt 2, Erf, Add 1, Mul x,
#     Mul 0.5); output dense MatMul + Add(bias), Add(., residual), LayerNorm.
#   LayerNorm: ReduceMean(-1), Sub, Pow 2, ReduceMean(-1), Add eps, Sqrt, Div, Mul
#     gamma, Add beta below opset 17 (as torch decomposes it); LayerNormalization at 17.
#
# As models/bert_base.task counts it, the 1/sqrt(64) = 0.125 score scale is folded into
# the query projection's weight and bias (exact: a power of two) and there is no
# attention mask (batch 1, unpadded: the additive mask is all zeros). With
# attention_scale=True the query projection is left unscaled and the graph has HF's
# Div(scores, 8) after Q.K^T instead: TVM fuses that Div into the Q.K^T batch_matmul
# task, a workload the task file does not have.
#
# Node names follow models/NETWORK.task: layer.N.attention.self.query (N for
# encoder.layer.N), layer.N.attention (Q.K^T), layer.N.attention (softmax),
# layer.N.attention (probs.V), layer.N.attention.output.dense,
# layer.N.intermediate.dense, layer.N.output.dense, and the LayerNorm nodes
# embeddings.LayerNorm/..., layer.N.attention.output.LayerNorm/...,
# layer.N.output.LayerNorm/...  Initializers use the full HuggingFace keys
# (encoder.layer.N....).

import math

import numpy as np

from common import FLOAT, INT64, BuildError, Builder

CONFIGS = {
    # name: (layers, hidden, heads, intermediate, HF model id)
    "bert_base": (12, 768, 12, 3072, "bert-base-uncased"),
    "bert_tiny": (2, 128, 2, 512, "google/bert_uncased_L-2_H-128_A-2"),
}
VOCAB = 30522
MAX_POSITIONS = 512
TYPE_VOCAB = 2
EPS = 1e-12


def build(network, opset, seed, batch, seq_len, attention_scale=False):
    layers, hidden, heads, inter, hf_id = CONFIGS[network]
    head_dim = hidden // heads
    if not 1 <= seq_len <= MAX_POSITIONS:
        raise BuildError("%s needs --seq-len from 1 to %d" % (network, MAX_POSITIONS))
    scale = 1.0 / math.sqrt(head_dim)
    g = Builder(network, opset, seed)
    ids = g.input("input_ids", INT64, [batch, seq_len])
    tt = g.input("token_type_ids", INT64, [batch, seq_len])

    # embeddings
    we = g.normal("embeddings.word_embeddings.weight", (VOCAB, hidden), 1.0)
    pe = g.normal("embeddings.position_embeddings.weight", (MAX_POSITIONS, hidden), 1.0)
    te = g.normal("embeddings.token_type_embeddings.weight", (TYPE_VOCAB, hidden), 1.0)
    pos = g.init("embeddings.position_ids", np.arange(seq_len, dtype=np.int64).reshape(1, seq_len))
    x = g.node("Gather", [we, ids], "embeddings.word_embeddings/Gather", axis=0)
    t = g.node("Gather", [te, tt], "embeddings.token_type_embeddings/Gather", axis=0)
    x = g.node("Add", [x, t], "embeddings/Add")
    p = g.node("Gather", [pe, pos], "embeddings.position_embeddings/Gather", axis=0)
    x = g.node("Add", [x, p], "embeddings/Add")
    h = g.layer_norm(x, hidden, "embeddings.LayerNorm", "embeddings.LayerNorm", EPS)

    split = g.const([batch, seq_len, heads, head_dim], np.int64)
    merge = g.const([batch, seq_len, hidden], np.int64)
    for i in range(layers):
        n = "layer.%d" % i
        k = "encoder.layer.%d" % i
        sa = n + ".attention.self"
        # HF computes the query projection first, then key and value, and splits the
        # query into heads last
        q = g.linear(h, hidden, hidden, sa + ".query", k + ".attention.self.query",
                     scale=None if attention_scale else scale)
        kk = g.linear(h, hidden, hidden, sa + ".key", k + ".attention.self.key")
        kk = g.node("Reshape", [kk, split], sa + "/Reshape")
        kk = g.node("Transpose", [kk], sa + "/Transpose", perm=[0, 2, 3, 1])
        v = g.linear(h, hidden, hidden, sa + ".value", k + ".attention.self.value")
        v = g.node("Reshape", [v, split], sa + "/Reshape")
        v = g.node("Transpose", [v], sa + "/Transpose", perm=[0, 2, 1, 3])
        q = g.node("Reshape", [q, split], sa + "/Reshape")
        q = g.node("Transpose", [q], sa + "/Transpose", perm=[0, 2, 1, 3])
        s = g.node("MatMul", [q, kk], n + ".attention (Q.K^T)")
        if attention_scale:
            s = g.node("Div", [s, g.const(math.sqrt(head_dim))], n + ".attention (Q.K^T)/Div")
        s = g.node("Softmax", [s], n + ".attention (softmax)", axis=-1)
        c = g.node("MatMul", [s, v], n + ".attention (probs.V)")
        g.m2[c] = g.m2[v]  # averages of V's rows
        c = g.node("Transpose", [c], sa + "/Transpose", perm=[0, 2, 1, 3])
        c = g.node("Reshape", [c, merge], sa + "/Reshape")
        o = g.linear(c, hidden, hidden, n + ".attention.output.dense",
                     k + ".attention.output.dense")
        o = g.add(o, h, n + ".attention.output.dense")
        h = g.layer_norm(o, hidden, n + ".attention.output.LayerNorm",
                         k + ".attention.output.LayerNorm", EPS)
        f = g.linear(h, hidden, inter, n + ".intermediate.dense", k + ".intermediate.dense")
        f = g.gelu(f, n + ".intermediate.dense")
        o = g.linear(f, inter, hidden, n + ".output.dense", k + ".output.dense")
        o = g.add(o, h, n + ".output.dense")
        h = g.layer_norm(o, hidden, n + ".output.LayerNorm", k + ".output.LayerNorm", EPS)
    g.output(h, "last_hidden_state", FLOAT, [batch, seq_len, hidden])
    doc = ("%s: HuggingFace BertModel (%s configuration) up to last_hidden_state, eval mode, "
           "random weights (seed %d), input_ids and token_type_ids [%d, %d]; %s; see "
           "models/%s.task"
           % (network, hf_id, seed, batch, seq_len,
              "score scale as Div(Q.K^T, %g)" % math.sqrt(head_dim) if attention_scale else
              "score scale %g folded into the query projection, no attention mask" % scale,
              network))
    return g, doc
