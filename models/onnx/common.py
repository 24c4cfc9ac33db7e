# Shared graph builder for make-onnx: a thin layer over onnx.helper that writes the
# nodes the way torch.onnx.export does (op by op, attributes as torch sets them), names
# them after the task file's module paths and fills the weights with seeded random
# numbers (numpy, vectorized).
#
# Naming: the node that a task is built around (its Conv, MatMul, Gemm, pool, Softmax)
# is named exactly like one instance of the task's `name:` in models/NETWORK.task
# ("layer1.0.conv1", "features.3.dw", "layer.0.attention.self.query"). A node that
# fuses into that task (BatchNormalization, Relu, Clip, bias or residual Add, the GELU
# ops) is named "ANCHOR/OpType", with _1, _2, ... when the same anchor has two of one
# op type; a node that belongs to no task is named "MODULE/OpType" after the module
# that runs it (embeddings, flatten, layer.0.attention.self). The nodes of a decomposed
# LayerNorm are "MODULE.LayerNorm/OpType". A node's output tensor is named
# "NODE_output_0", with characters other than letters, digits and _ . / : - replaced
# by _.
#
# Weights: He-style fan-in scaling, calibrated so that activations stay O(1) through
# the network. The builder tracks an estimate of the mean square (second moment) of
# every activation it writes (from the actual BN and LayerNorm parameters drawn, 1/2
# for a ReLU, the sum for a residual Add, ...), and draws a conv or linear weight as
# N(0, 1 / (fan_in x mean square of its input)), so that its output has mean square
# about 1. This stands in for what BatchNorm's running statistics do in a trained
# network, where they are those of the conv's actual output: with the BN statistics
# drawn at random (gamma, var ~ U(0.5, 1.5), beta, mean ~ N(0, 0.1)) and a plain He
# scale, a ResNet's residual stream doubles its variance in every block (rms ~1e4 at
# layer4). Biases are N(0, 0.1).
#
# Initializers are named after the PyTorch state_dict keys of the module (torchvision
# or HuggingFace), so real weights could be put in their place; a MatMul weight is the
# transpose of the Linear weight, [in, out], and is named KEY.weight.T.

import math
import re

import numpy as np
import onnx
import onnx.mapping
from onnx import TensorProto, helper

# what the command accepts; onnx 1.12 (Debian's python3-onnx) knows opsets up to 17
MIN_OPSET = 11
MAX_OPSET = 17


class BuildError(Exception):
    """A shape or option the network cannot be built with (the command exits 2)."""


def pair(v):
    if isinstance(v, (list, tuple)):
        return int(v[0]), int(v[1])
    return int(v), int(v)


def conv_out(size, k, s, p0, p1, d=1):
    return (size + p0 + p1 - d * (k - 1) - 1) // s + 1


class Builder:
    def __init__(self, name, opset, seed):
        if not MIN_OPSET <= opset <= MAX_OPSET:
            raise BuildError("opset %d not supported (%d to %d)" % (opset, MIN_OPSET, MAX_OPSET))
        self.name = name
        self.opset = opset
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        # the model from the start: the initializers go straight into its graph, so a
        # 440 MB model is not copied by numpy_helper, make_graph and make_model
        self._model = helper.make_model(onnx.GraphProto(),
                                        opset_imports=[helper.make_opsetid("", opset)],
                                        producer_name="pruner-tui make-onnx",
                                        producer_version="1")
        self.inputs = []
        self.outputs = []
        self._node_names = set()
        self._tensor_names = set()
        self._init_names = set()
        self._consts = {}
        self.m2 = {}  # tensor -> estimated mean square of its elements

    # ---------------------------------------------------------------- naming

    def _unique_node(self, name):
        if name not in self._node_names:
            self._node_names.add(name)
            return name
        # "x/Relu" -> "x/Relu_1", "x/Relu_2", ... as torch numbers repeated ops
        i = 1
        while "%s_%d" % (name, i) in self._node_names:
            i += 1
        name = "%s_%d" % (name, i)
        self._node_names.add(name)
        return name

    def _tensor(self, node_name, i):
        t = re.sub(r"[^A-Za-z0-9_./:-]", "_", node_name) + "_output_%d" % i
        base, n = t, 1
        while t in self._tensor_names or t in self._init_names:
            t = "%s_%d" % (base, n)
            n += 1
        self._tensor_names.add(t)
        return t

    # ----------------------------------------------------------------- nodes

    def node(self, op, inputs, name, n_out=1, **attrs):
        """Append a node; return its output name (or the list of them)."""
        name = self._unique_node(name)
        outs = [self._tensor(name, i) for i in range(n_out)]
        self.nodes.append(helper.make_node(op, list(inputs), outs, name=name, **attrs))
        # by default an output is as large as the first activation input (layout ops,
        # pools, Concat of like inputs); the helpers below set it where it differs
        m = next((self.m2[i] for i in inputs if i in self.m2), 1.0)
        for o in outs:
            self.m2[o] = m
        return outs[0] if n_out == 1 else outs

    def input(self, name, elem_type, shape):
        self.inputs.append(helper.make_tensor_value_info(name, elem_type, list(shape)))
        self._tensor_names.add(name)
        if elem_type == TensorProto.FLOAT:
            self.m2[name] = 1.0
        return name

    def output(self, tensor, name, elem_type, shape):
        """Rename the last node's output `tensor` to the graph output `name`."""
        for n in reversed(self.nodes):
            for i, o in enumerate(n.output):
                if o == tensor:
                    n.output[i] = name
                    self.outputs.append(helper.make_tensor_value_info(name, elem_type, list(shape)))
                    return name
        raise AssertionError("output %s is not a node's output" % tensor)

    # ---------------------------------------------------------- initializers

    def init(self, name, array):
        if name in self._init_names:
            raise AssertionError("initializer %s twice" % name)
        array = np.asarray(array)
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        self._init_names.add(name)
        t = self._model.graph.initializer.add()
        t.name = name
        t.data_type = onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[array.dtype]
        t.dims.extend(array.shape)
        t.raw_data = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
        return name

    def normal(self, name, shape, std, mean=0.0):
        a = self.rng.standard_normal(shape, dtype=np.float32)
        if std != 1.0:
            a *= np.float32(std)
        if mean:
            a += np.float32(mean)
        return self.init(name, a)

    def uniform(self, name, shape, lo, hi):
        a = self.rng.random(shape, dtype=np.float32)
        a *= np.float32(hi - lo)
        a += np.float32(lo)
        return self.init(name, a)

    def const(self, value, dtype=np.float32, shape=None):
        """A constant initializer (shared between the nodes that use the same value)."""
        a = np.array(value, dtype=dtype)
        if shape is not None:
            a = a.reshape(shape)
        key = (a.dtype.str, a.shape, a.tobytes())
        if key in self._consts:
            return self._consts[key]
        tag = "_".join(str(v) for v in a.reshape(-1)[:8].tolist())
        if a.size > 8:
            tag += "_etc"
        elif a.size == 0:
            tag = "empty"
        name = "const.%s%s.%s" % ({"<f4": "f", "<i8": "i"}.get(a.dtype.str, a.dtype.str),
                                  "x".join(str(d) for d in a.shape) if a.shape else "",
                                  tag)
        base, n = name, 1
        while name in self._init_names:
            name = "%s_%d" % (base, n)
            n += 1
        self.init(name, a)
        self._consts[key] = name
        return name

    # ------------------------------------------------------- layer helpers

    def scale_for(self, x, fan_in):
        """The weight std that gives an output of mean square about 1 from input x."""
        return math.sqrt(1.0 / (fan_in * self.m2.get(x, 1.0)))

    def conv(self, x, cin, cout, k, name, key, stride=1, pad=0, groups=1, bias=False,
             dilation=1):
        """Conv as torch exports nn.Conv2d: weight KEY.weight [K, C/G, R, S]."""
        kh, kw = pair(k)
        sh, sw = pair(stride)
        ph, pw = pair(pad)
        dh, dw = pair(dilation)
        fan_in = (cin // groups) * kh * kw
        w = self.normal(key + ".weight", (cout, cin // groups, kh, kw), self.scale_for(x, fan_in))
        ins = [x, w]
        if bias:
            ins.append(self.normal(key + ".bias", (cout,), 0.1))
        y = self.node("Conv", ins, name, dilations=[dh, dw], group=groups,
                      kernel_shape=[kh, kw], pads=[ph, pw, ph, pw], strides=[sh, sw])
        self.m2[y] = 1.0 + (0.01 if bias else 0.0)
        return y

    def bn(self, x, c, name, key, eps=1e-5):
        """BatchNormalization (inference) as torch exports nn.BatchNorm2d in eval mode."""
        ins = [x,
               self.uniform(key + ".weight", (c,), 0.5, 1.5),
               self.normal(key + ".bias", (c,), 0.1),
               self.normal(key + ".running_mean", (c,), 0.1),
               self.uniform(key + ".running_var", (c,), 0.5, 1.5)]
        y = self.node("BatchNormalization", ins, name + "/BatchNormalization",
                      epsilon=eps, momentum=0.9)
        self.m2[y] = self._affine_m2(self.m2.get(x, 1.0), ins[1:], eps)
        return y

    def frozen_bn(self, x, c, name, key, eps=1e-5):
        """DETR's FrozenBatchNorm2d as torch exports it: x * scale + shift, the scale
        w * rsqrt(running_var + eps) and the shift b - running_mean * scale computed from
        the four buffers (KEY.weight, .bias, .running_mean, .running_var, drawn as for
        bn()) and folded by torch's constant folding into [1, C, 1, 1] initializers
        KEY.scale and KEY.shift; Mul then Add."""
        w = self.rng.random((c,), dtype=np.float32) * np.float32(1.0) + np.float32(0.5)
        b = self.rng.standard_normal((c,), dtype=np.float32) * np.float32(0.1)
        rm = self.rng.standard_normal((c,), dtype=np.float32) * np.float32(0.1)
        rv = self.rng.random((c,), dtype=np.float32) * np.float32(1.0) + np.float32(0.5)
        scale = (w / np.sqrt(rv + np.float32(eps))).astype(np.float32)
        shift = (b - rm * scale).astype(np.float32)
        sn = self.init(key + ".scale", scale.reshape(1, c, 1, 1))
        hn = self.init(key + ".shift", shift.reshape(1, c, 1, 1))
        y = self.node("Mul", [x, sn], name + "/Mul")
        y = self.node("Add", [y, hn], name + "/Add")
        m = self.m2.get(x, 1.0)
        return self._set(y, float(np.mean(scale.astype(np.float64) ** 2) * m
                                  + np.mean(shift.astype(np.float64) ** 2)))

    def _affine_m2(self, m2, params, eps):
        gamma, beta, mean, var = [self.array(p) for p in params]
        return float(np.mean(gamma.astype(np.float64) ** 2 * (m2 + mean.astype(np.float64) ** 2)
                             / (var + eps)) + np.mean(beta.astype(np.float64) ** 2))

    def array(self, name):
        for t in reversed(self._model.graph.initializer):
            if t.name == name:
                return np.frombuffer(t.raw_data, dtype=onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[
                    t.data_type]).reshape(tuple(t.dims))
        raise KeyError(name)

    def _set(self, y, m2):
        self.m2[y] = m2
        return y

    def relu(self, x, name):
        return self._set(self.node("Relu", [x], name + "/Relu"), self.m2.get(x, 1.0) / 2)

    def relu6(self, x, name):
        # torch exports nn.ReLU6 (hardtanh 0..6) at opset 11+ as Clip with min and max
        # as inputs
        y = self.node("Clip", [x, self.const(0.0), self.const(6.0)], name + "/Clip")
        return self._set(y, min(self.m2.get(x, 1.0) / 2, 36.0))

    def hardsigmoid(self, x, name):
        y = self.node("HardSigmoid", [x], name + "/HardSigmoid", alpha=1.0 / 6, beta=0.5)
        return self._set(y, 0.25 + self.m2.get(x, 1.0) / 36)

    def hardswish(self, x, name):
        # torch: HardSwish from opset 14; x * HardSigmoid(x) below
        m = self.m2.get(x, 1.0)
        if self.opset >= 14:
            y = self.node("HardSwish", [x], name + "/HardSwish")
        else:
            y = self.node("Mul", [x, self.hardsigmoid(x, name)], name + "/Mul")
        # N(0, m): m/4 + 3 m^2/36, and about m/2 when m is large
        return self._set(y, min(m / 4 + m * m / 12, m / 2))

    def add(self, a, b, name):
        y = self.node("Add", [a, b], name + "/Add")
        return self._set(y, self.m2.get(a, 1.0) + self.m2.get(b, 1.0))

    def conv_bn(self, x, cin, cout, k, name, conv_key, bn_key, stride=1, pad=0, groups=1,
                act=None, eps=1e-5, dilation=1, frozen=False):
        y = self.conv(x, cin, cout, k, name, conv_key, stride=stride, pad=pad, groups=groups,
                      dilation=dilation)
        y = (self.frozen_bn if frozen else self.bn)(y, cout, name, bn_key, eps=eps)
        if act == "relu":
            y = self.relu(y, name)
        elif act == "relu6":
            y = self.relu6(y, name)
        elif act == "hardswish":
            y = self.hardswish(y, name)
        elif act is not None:
            raise AssertionError(act)
        return y

    def gemm(self, x, cin, cout, name, key):
        """nn.Linear on a [N, in] matrix: Gemm(transB=1) with KEY.weight [out, in]."""
        w = self.normal(key + ".weight", (cout, cin), self.scale_for(x, cin))
        b = self.normal(key + ".bias", (cout,), 0.1)
        y = self.node("Gemm", [x, w, b], name, alpha=1.0, beta=1.0, transB=1)
        return self._set(y, 1.01)

    def linear(self, x, cin, cout, name, key, scale=None):
        """nn.Linear on a [.., in] tensor of rank 3 as torch exports it: MatMul by the
        transposed weight KEY.weight.T [in, out], then Add(KEY.bias, product) with the
        bias first. `scale` multiplies weight and bias (a folded constant)."""
        s = 1.0 if scale is None else scale
        w = self.rng.standard_normal((cin, cout), dtype=np.float32)
        w *= np.float32(self.scale_for(x, cin) * s)
        b = self.rng.standard_normal((cout,), dtype=np.float32)
        b *= np.float32(0.1 * s)
        wn = self.init(key + ".weight.T", w)
        bn = self.init(key + ".bias", b)
        y = self.node("MatMul", [x, wn], name)
        return self._set(self.node("Add", [bn, y], name + "/Add"), 1.01 * s * s)

    def layer_norm(self, x, c, name, key, eps, reuse=False):
        """nn.LayerNorm over the last axis as torch exports it: decomposed below opset
        17, LayerNormalization from 17. reuse: the module ran before (DETR's
        decoder.norm), its KEY.weight and KEY.bias are read again."""
        if reuse:
            g, b = key + ".weight", key + ".bias"
        else:
            g = self.uniform(key + ".weight", (c,), 0.5, 1.5)
            b = self.normal(key + ".bias", (c,), 0.1)
        m2 = float(np.mean(self.array(g).astype(np.float64) ** 2)
                   + np.mean(self.array(b).astype(np.float64) ** 2))
        if self.opset >= 17:
            y = self.node("LayerNormalization", [x, g, b], name, axis=-1, epsilon=eps)
            return self._set(y, m2)
        mean = self.node("ReduceMean", [x], name + "/ReduceMean", axes=[-1], keepdims=1)
        d = self.node("Sub", [x, mean], name + "/Sub")
        sq = self.node("Pow", [d, self.const(2.0)], name + "/Pow")
        var = self.node("ReduceMean", [sq], name + "/ReduceMean", axes=[-1], keepdims=1)
        ve = self.node("Add", [var, self.const(eps)], name + "/Add")
        sd = self.node("Sqrt", [ve], name + "/Sqrt")
        y = self.node("Div", [d, sd], name + "/Div")
        y = self.node("Mul", [y, g], name + "/Mul")
        return self._set(self.node("Add", [y, b], name + "/Add"), m2)

    def gelu(self, x, name):
        """Exact GELU as torch exports it (opset < 20): x * (erf(x / sqrt 2) + 1) * 0.5."""
        t = self.node("Div", [x, self.const(math.sqrt(2.0))], name + "/Div")
        t = self.node("Erf", [t], name + "/Erf")
        t = self.node("Add", [t, self.const(1.0)], name + "/Add")
        t = self.node("Mul", [x, t], name + "/Mul")
        m = self.m2.get(x, 1.0)
        # N(0, 1): E[gelu^2] = 0.425; about m/2 when m is large
        return self._set(self.node("Mul", [t, self.const(0.5)], name + "/Mul"),
                         min(0.425 * m, m / 2))

    def flatten(self, x, name="flatten"):
        return self.node("Flatten", [x], name + "/Flatten", axis=1)

    def global_avg_pool(self, x, name):
        # torch exports AdaptiveAvgPool2d((1, 1)) and adaptive_avg_pool2d(x, 1) so
        return self.node("GlobalAveragePool", [x], name)

    def max_pool(self, x, k, s, p, name):
        kh, kw = pair(k)
        sh, sw = pair(s)
        ph, pw = pair(p)
        return self.node("MaxPool", [x], name, ceil_mode=0, kernel_shape=[kh, kw],
                         pads=[ph, pw, ph, pw], strides=[sh, sw])

    def avg_pool(self, x, k, s, p, name, count_include_pad=1):
        kh, kw = pair(k)
        sh, sw = pair(s)
        ph, pw = pair(p)
        return self.node("AveragePool", [x], name, ceil_mode=0,
                         count_include_pad=count_include_pad, kernel_shape=[kh, kw],
                         pads=[ph, pw, ph, pw], strides=[sh, sw])

    # ---------------------------------------------------------------- model

    def model(self, doc, metadata):
        m = self._model
        m.doc_string = doc
        g = m.graph
        g.name = self.name
        g.node.extend(self.nodes)
        g.input.extend(self.inputs)
        g.output.extend(self.outputs)
        for k, v in metadata.items():
            p = m.metadata_props.add()
            p.key = k
            p.value = str(v)
        return m


FLOAT = TensorProto.FLOAT
INT64 = TensorProto.INT64
