# MobileNet family (torchvision.models.mobilenetv2 / mobilenetv3), written the way
# torch.onnx.export writes them in eval mode with BatchNorm kept: Conv (no bias) ->
# BatchNormalization -> activation; ReLU6 as Clip(x, 0, 6) with min and max as inputs
# (opset 11+); a depthwise conv is Conv with group = channels; the residual
# Add(x, block(x)); the head GlobalAveragePool -> Flatten -> Gemm(transB=1) (Dropout is
# gone in eval mode).
#
# Node names follow models/NETWORK.task: features.0 (stem), features.N.expand / .dw /
# .project (torchvision's features.N.conv.0, .1, .2; .block.* in v3), features.N.se.*
# (v3), the last conv (features.18 in v2, features.16 in v3), avgpool, classifier.K.

from common import FLOAT, BuildError, Builder


def make_divisible(v, divisor=8, min_value=None):
    # torchvision's _make_divisible
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


# --------------------------------------------------------------------- MobileNetV2

V2_SETTING = [
    # t, c, n, s
    [1, 16, 1, 1],
    [6, 24, 2, 2],
    [6, 32, 3, 2],
    [6, 64, 4, 2],
    [6, 96, 3, 1],
    [6, 160, 3, 2],
    [6, 320, 1, 1],
]


def build_v2(network, opset, seed, batch, image_size):
    if image_size < 32:
        raise BuildError("%s needs --image-size of at least 32" % network)
    g = Builder(network, opset, seed)
    x = g.input("input", FLOAT, [batch, 3, image_size, image_size])
    cin = make_divisible(32)
    last = make_divisible(1280)
    x = g.conv_bn(x, 3, cin, 3, "features.0", "features.0.0", "features.0.1", stride=2, pad=1,
                  act="relu6")
    idx = 1
    for t, c, n, s in V2_SETTING:
        cout = make_divisible(c)
        for i in range(n):
            stride = s if i == 0 else 1
            p = "features.%d" % idx
            hidden = int(round(cin * t))
            y = x
            k = 0  # index in torchvision's block.conv Sequential
            if t != 1:
                y = g.conv_bn(y, cin, hidden, 1, p + ".expand", p + ".conv.0.0", p + ".conv.0.1",
                              act="relu6")
                k = 1
            y = g.conv_bn(y, hidden, hidden, 3, p + ".dw", "%s.conv.%d.0" % (p, k),
                          "%s.conv.%d.1" % (p, k), stride=stride, pad=1, groups=hidden,
                          act="relu6")
            y = g.conv_bn(y, hidden, cout, 1, p + ".project", "%s.conv.%d" % (p, k + 1),
                          "%s.conv.%d" % (p, k + 2))
            if stride == 1 and cin == cout:
                # InvertedResidual.forward: x + self.conv(x)
                y = g.add(x, y, p + ".project")
            x = y
            cin = cout
            idx += 1
    p = "features.%d" % idx
    x = g.conv_bn(x, cin, last, 1, p, p + ".0", p + ".1", act="relu6")
    x = g.global_avg_pool(x, "avgpool")
    x = g.flatten(x)
    x = g.gemm(x, last, 1000, "classifier.1", "classifier.1")
    g.output(x, "output", FLOAT, [batch, 1000])
    doc = ("%s: torchvision.models.mobilenet_v2 (width 1.0) in eval mode, random weights "
           "(seed %d), input [%d, 3, %d, %d]; see models/%s.task"
           % (network, seed, batch, image_size, image_size, network))
    return g, doc


# --------------------------------------------------------------------- MobileNetV3

V3_LARGE = [
    # torchvision's bneck_conf rows for mobilenet_v3_large: input, kernel, expanded,
    # out, SE, activation (RE relu, HS hardswish), stride
    (16, 3, 16, 16, False, "RE", 1),
    (16, 3, 64, 24, False, "RE", 2),
    (24, 3, 72, 24, False, "RE", 1),
    (24, 5, 72, 40, True, "RE", 2),
    (40, 5, 120, 40, True, "RE", 1),
    (40, 5, 120, 40, True, "RE", 1),
    (40, 3, 240, 80, False, "HS", 2),
    (80, 3, 200, 80, False, "HS", 1),
    (80, 3, 184, 80, False, "HS", 1),
    (80, 3, 184, 80, False, "HS", 1),
    (80, 3, 480, 112, True, "HS", 1),
    (112, 3, 672, 112, True, "HS", 1),
    (112, 5, 672, 160, True, "HS", 2),
    (160, 5, 960, 160, True, "HS", 1),
    (160, 5, 960, 160, True, "HS", 1),
]


def squeeze_excitation(g, x, c, p, key):
    """torchvision SqueezeExcitation: AdaptiveAvgPool2d(1), fc1 (1x1 conv, bias), ReLU,
    fc2 (1x1 conv, bias), Hardsigmoid, then scale * input."""
    s = make_divisible(c // 4, 8)
    y = g.global_avg_pool(x, p + ".se.avgpool")
    y = g.conv(y, c, s, 1, p + ".se.fc1", key + ".fc1", bias=True)
    y = g.relu(y, p + ".se.fc1")
    y = g.conv(y, s, c, 1, p + ".se.fc2", key + ".fc2", bias=True)
    y = g.hardsigmoid(y, p + ".se.fc2")
    out = g.node("Mul", [y, x], p + ".se/Mul")
    g.m2[out] = g.m2[y] * g.m2[x]
    return out


def build_v3(network, opset, seed, batch, image_size):
    if image_size < 32:
        raise BuildError("%s needs --image-size of at least 32" % network)
    g = Builder(network, opset, seed)
    x = g.input("input", FLOAT, [batch, 3, image_size, image_size])
    x = g.conv_bn(x, 3, 16, 3, "features.0", "features.0.0", "features.0.1", stride=2, pad=1,
                  act="hardswish")
    for idx, (cin, k, exp, cout, se, a, stride) in enumerate(V3_LARGE, 1):
        p = "features.%d" % idx
        act = "relu" if a == "RE" else "hardswish"
        y = x
        b = 0  # index in torchvision's block Sequential
        if exp != cin:
            y = g.conv_bn(y, cin, exp, 1, p + ".expand", "%s.block.%d.0" % (p, b),
                          "%s.block.%d.1" % (p, b), act=act)
            b += 1
        y = g.conv_bn(y, exp, exp, k, p + ".dw", "%s.block.%d.0" % (p, b),
                      "%s.block.%d.1" % (p, b), stride=stride, pad=(k - 1) // 2, groups=exp,
                      act=act)
        b += 1
        if se:
            y = squeeze_excitation(g, y, exp, p, "%s.block.%d" % (p, b))
            b += 1
        y = g.conv_bn(y, exp, cout, 1, p + ".project", "%s.block.%d.0" % (p, b),
                      "%s.block.%d.1" % (p, b))
        if stride == 1 and cin == cout:
            y = g.add(y, x, p + ".project")  # result += input
        x = y
    p = "features.%d" % (len(V3_LARGE) + 1)
    last = 6 * 160
    x = g.conv_bn(x, 160, last, 1, p, p + ".0", p + ".1", act="hardswish")
    x = g.global_avg_pool(x, "avgpool")
    x = g.flatten(x)
    x = g.gemm(x, last, 1280, "classifier.0", "classifier.0")
    x = g.hardswish(x, "classifier.0")
    x = g.gemm(x, 1280, 1000, "classifier.3", "classifier.3")
    g.output(x, "output", FLOAT, [batch, 1000])
    doc = ("%s: torchvision.models.mobilenet_v3_large (width 1.0) in eval mode, random "
           "weights (seed %d), input [%d, 3, %d, %d]; see models/%s.task"
           % (network, seed, batch, image_size, image_size, network))
    return g, doc


def build(network, opset, seed, batch, image_size):
    return {"mobilenet_v2": build_v2, "mobilenet_v3": build_v3}[network](
        network, opset, seed, batch, image_size)
