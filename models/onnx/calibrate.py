# Weight calibration for the CNNs: a numpy forward pass of the graph on a small random
# image (the weights do not depend on the image size), in node order, that rescales
# every Conv and Gemm weight so that the node's output, bias left out, has a root mean
# square of 1. It stands in for what BatchNorm's running statistics do in a trained
# network. Without it, the seeded He-scale weights with the random BN statistics
# (gamma, var ~ U(0.5, 1.5)) let a ResNet-50's residual stream grow to an rms of ~40
# at layer4 (~1e4 with a plain He scale). The rescaling is a deterministic function of
# the seed.
#
# Only the ops the CNN builders write are evaluated (Conv, dilated too,
# BatchNormalization, Relu, Clip, HardSigmoid, HardSwish, Mul, Add, MaxPool,
# AveragePool, GlobalAveragePool, Concat, Flatten, Gemm, and Resize of a 1x1 map); for
# DETR only its backbone and input_proj are calibrated (the transformer has LayerNorm).

import numpy as np
import onnx.mapping
from onnx import helper


def _attr(n, k, d=None):
    for a in n.attribute:
        if a.name == k:
            return helper.get_attribute_value(a)
    return d


def _windows(x, k, s, p, fill=0.0, d=(1, 1)):
    x = np.pad(x, ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])), constant_values=fill)
    ek = (d[0] * (k[0] - 1) + 1, d[1] * (k[1] - 1) + 1)  # the dilated extent
    oh = (x.shape[2] - ek[0]) // s[0] + 1
    ow = (x.shape[3] - ek[1]) // s[1] + 1
    w = np.lib.stride_tricks.sliding_window_view(x, ek, axis=(2, 3))
    return w[:, :, ::s[0], ::s[1], ::d[0], ::d[1]][:, :, :oh, :ow]  # N C OH OW R S


def _conv(x, w, n):
    g = _attr(n, "group", 1)
    cols = _windows(x, w.shape[2:], _attr(n, "strides", [1, 1]), _attr(n, "pads", [0, 0, 0, 0]),
                    d=_attr(n, "dilations", [1, 1]))
    k, cg = w.shape[0], w.shape[1]
    if g == 1:
        return np.einsum("ncyxrs,kcrs->nkyx", cols, w, optimize=True)
    if cg == 1 and k == g:  # depthwise
        return np.einsum("ncyxrs,crs->ncyx", cols, w[:, 0], optimize=True)
    kg = k // g
    out = np.empty((x.shape[0], k) + cols.shape[2:4], np.float32)
    for i in range(g):
        out[:, i * kg:(i + 1) * kg] = np.einsum(
            "ncyxrs,kcrs->nkyx", cols[:, i * cg:(i + 1) * cg], w[i * kg:(i + 1) * kg],
            optimize=True)
    return out


def calibrate(builder, image_size, seed, until=None):
    """Rescale the Conv and Gemm weights of builder's graph in node order; with `until`,
    stop after the node of that name (DETR: its CNN part, up to input_proj)."""
    model = builder._model
    inits = {t.name: t for t in model.graph.initializer}

    def arr(name):
        t = inits[name]
        return np.frombuffer(t.raw_data, dtype=onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[
            t.data_type]).reshape(tuple(t.dims))

    def rescale(name, r):
        t = inits[name]
        t.raw_data = (arr(name) / np.float32(r)).astype(np.float32).tobytes()

    rng = np.random.default_rng(seed + 1)
    env = {builder.inputs[0].name: rng.standard_normal((1, 3, image_size, image_size),
                                                       dtype=np.float32)}

    def val(name):
        return env[name] if name in env else arr(name)

    for n in builder.nodes:
        ins = [val(i) if i else None for i in n.input]
        op = n.op_type
        if op in ("Conv", "Gemm"):
            y = _conv(ins[0], ins[1], n) if op == "Conv" else ins[0] @ ins[1].T
            r = float(np.sqrt(np.mean(np.square(y, dtype=np.float64))))
            if r > 0:
                rescale(n.input[1], r)
                y = y / np.float32(r)
            if len(ins) > 2 and ins[2] is not None:
                y = y + (ins[2][None, :, None, None] if op == "Conv" else ins[2])
        elif op == "BatchNormalization":
            x, sc, b, mu, var = ins
            e = _attr(n, "epsilon", 1e-5)
            f = (sc / np.sqrt(var + e))[None, :, None, None]
            y = (x - mu[None, :, None, None]) * f + b[None, :, None, None]
        elif op == "Relu":
            y = np.maximum(ins[0], 0)
        elif op == "Clip":
            y = np.clip(ins[0], ins[1], ins[2])
        elif op == "HardSigmoid":
            y = np.clip(ins[0] * _attr(n, "alpha") + _attr(n, "beta"), 0, 1)
        elif op == "HardSwish":
            y = ins[0] * np.clip(ins[0] / 6 + 0.5, 0, 1)
        elif op == "Mul":
            y = ins[0] * ins[1]
        elif op == "Add":
            y = ins[0] + ins[1]
        elif op == "MaxPool":
            y = _windows(ins[0], _attr(n, "kernel_shape"), _attr(n, "strides", [1, 1]),
                         _attr(n, "pads", [0, 0, 0, 0]), -np.inf).max(axis=(4, 5))
        elif op == "AveragePool":
            y = _windows(ins[0], _attr(n, "kernel_shape"), _attr(n, "strides", [1, 1]),
                         _attr(n, "pads", [0, 0, 0, 0])).mean(axis=(4, 5))
        elif op == "GlobalAveragePool":
            y = ins[0].mean(axis=(2, 3), keepdims=True)
        elif op == "Concat":
            y = np.concatenate(ins, axis=_attr(n, "axis"))
        elif op == "Flatten":
            y = ins[0].reshape(ins[0].shape[0], -1)
        elif op == "Resize" and ins[0].shape[2:] == (1, 1):
            # DeepLab's image pooling: any resize of a 1x1 map repeats its value
            # (the calibration image is batch 1, sizes has the model's batch)
            y = np.broadcast_to(ins[0], ins[0].shape[:2] + tuple(int(v) for v in ins[3][2:]))
        else:
            raise AssertionError("calibrate: no %s" % op)
        env[n.output[0]] = np.asarray(y, dtype=np.float32)
        if n.name == until:
            break
