# Inception-V3 (torchvision.models.inception_v3) in eval mode, written the way
# torch.onnx.export writes it with BatchNorm kept: every BasicConv2d is Conv (no bias)
# -> BatchNormalization (epsilon 0.001) -> Relu; an Inception block's branch pool is
# AveragePool 3x3, stride 1, pad 1, count_include_pad 1 (F.avg_pool2d's default), then
# a 1x1 BasicConv2d; the reduction blocks' branch pool MaxPool 3x3/2; the branches
# joined by Concat(axis 1) in torchvision's order; the head GlobalAveragePool ->
# Flatten -> Gemm(transB=1) (fc; Dropout is gone in eval mode).
#
# Left out, as in models/inception_v3.task: AuxLogits (training mode only) and
# transform_input (an elementwise scale and shift of the input).
#
# Node names follow the task file: Conv2d_1a_3x3 ..., maxpool1, maxpool2,
# Mixed_5b.branch1x1 (torchvision's Mixed_5b.branch1x1.conv), Mixed_5b.avg_pool2d,
# Mixed_6a.max_pool2d, avgpool, fc; initializers torchvision's keys
# (Mixed_5b.branch1x1.conv.weight, Mixed_5b.branch1x1.bn.running_mean, ...).

from common import FLOAT, BuildError, Builder

EPS = 0.001


class Net:
    def __init__(self, g):
        self.g = g

    def basic(self, x, cin, cout, k, name, stride=1, pad=0):
        return self.g.conv_bn(x, cin, cout, k, name, name + ".conv", name + ".bn", stride=stride,
                              pad=pad, act="relu", eps=EPS)

    def inception_a(self, x, cin, pool_features, p):
        b1 = self.basic(x, cin, 64, 1, p + ".branch1x1")
        b5 = self.basic(x, cin, 48, 1, p + ".branch5x5_1")
        b5 = self.basic(b5, 48, 64, 5, p + ".branch5x5_2", pad=2)
        b3 = self.basic(x, cin, 64, 1, p + ".branch3x3dbl_1")
        b3 = self.basic(b3, 64, 96, 3, p + ".branch3x3dbl_2", pad=1)
        b3 = self.basic(b3, 96, 96, 3, p + ".branch3x3dbl_3", pad=1)
        bp = self.g.avg_pool(x, 3, 1, 1, p + ".avg_pool2d")
        bp = self.basic(bp, cin, pool_features, 1, p + ".branch_pool")
        return self.g.node("Concat", [b1, b5, b3, bp], p + "/Concat", axis=1), \
            64 + 64 + 96 + pool_features

    def inception_b(self, x, cin, p):
        b3 = self.basic(x, cin, 384, 3, p + ".branch3x3", stride=2)
        bd = self.basic(x, cin, 64, 1, p + ".branch3x3dbl_1")
        bd = self.basic(bd, 64, 96, 3, p + ".branch3x3dbl_2", pad=1)
        bd = self.basic(bd, 96, 96, 3, p + ".branch3x3dbl_3", stride=2)
        bp = self.g.max_pool(x, 3, 2, 0, p + ".max_pool2d")
        return self.g.node("Concat", [b3, bd, bp], p + "/Concat", axis=1), 384 + 96 + cin

    def inception_c(self, x, cin, c7, p):
        b1 = self.basic(x, cin, 192, 1, p + ".branch1x1")
        b7 = self.basic(x, cin, c7, 1, p + ".branch7x7_1")
        b7 = self.basic(b7, c7, c7, (1, 7), p + ".branch7x7_2", pad=(0, 3))
        b7 = self.basic(b7, c7, 192, (7, 1), p + ".branch7x7_3", pad=(3, 0))
        bd = self.basic(x, cin, c7, 1, p + ".branch7x7dbl_1")
        bd = self.basic(bd, c7, c7, (7, 1), p + ".branch7x7dbl_2", pad=(3, 0))
        bd = self.basic(bd, c7, c7, (1, 7), p + ".branch7x7dbl_3", pad=(0, 3))
        bd = self.basic(bd, c7, c7, (7, 1), p + ".branch7x7dbl_4", pad=(3, 0))
        bd = self.basic(bd, c7, 192, (1, 7), p + ".branch7x7dbl_5", pad=(0, 3))
        bp = self.g.avg_pool(x, 3, 1, 1, p + ".avg_pool2d")
        bp = self.basic(bp, cin, 192, 1, p + ".branch_pool")
        return self.g.node("Concat", [b1, b7, bd, bp], p + "/Concat", axis=1), 4 * 192

    def inception_d(self, x, cin, p):
        b3 = self.basic(x, cin, 192, 1, p + ".branch3x3_1")
        b3 = self.basic(b3, 192, 320, 3, p + ".branch3x3_2", stride=2)
        b7 = self.basic(x, cin, 192, 1, p + ".branch7x7x3_1")
        b7 = self.basic(b7, 192, 192, (1, 7), p + ".branch7x7x3_2", pad=(0, 3))
        b7 = self.basic(b7, 192, 192, (7, 1), p + ".branch7x7x3_3", pad=(3, 0))
        b7 = self.basic(b7, 192, 192, 3, p + ".branch7x7x3_4", stride=2)
        bp = self.g.max_pool(x, 3, 2, 0, p + ".max_pool2d")
        return self.g.node("Concat", [b3, b7, bp], p + "/Concat", axis=1), 320 + 192 + cin

    def inception_e(self, x, cin, p):
        g = self.g
        b1 = self.basic(x, cin, 320, 1, p + ".branch1x1")
        b3 = self.basic(x, cin, 384, 1, p + ".branch3x3_1")
        b3a = self.basic(b3, 384, 384, (1, 3), p + ".branch3x3_2a", pad=(0, 1))
        b3b = self.basic(b3, 384, 384, (3, 1), p + ".branch3x3_2b", pad=(1, 0))
        b3 = g.node("Concat", [b3a, b3b], p + "/Concat", axis=1)
        bd = self.basic(x, cin, 448, 1, p + ".branch3x3dbl_1")
        bd = self.basic(bd, 448, 384, 3, p + ".branch3x3dbl_2", pad=1)
        bda = self.basic(bd, 384, 384, (1, 3), p + ".branch3x3dbl_3a", pad=(0, 1))
        bdb = self.basic(bd, 384, 384, (3, 1), p + ".branch3x3dbl_3b", pad=(1, 0))
        bd = g.node("Concat", [bda, bdb], p + "/Concat", axis=1)
        bp = g.avg_pool(x, 3, 1, 1, p + ".avg_pool2d")
        bp = self.basic(bp, cin, 192, 1, p + ".branch_pool")
        return g.node("Concat", [b1, b3, bd, bp], p + "/Concat", axis=1), 320 + 768 + 768 + 192


def build(network, opset, seed, batch, image_size):
    if image_size < 75:
        raise BuildError("%s needs --image-size of at least 75" % network)
    g = Builder(network, opset, seed)
    n = Net(g)
    x = g.input("input", FLOAT, [batch, 3, image_size, image_size])
    x = n.basic(x, 3, 32, 3, "Conv2d_1a_3x3", stride=2)
    x = n.basic(x, 32, 32, 3, "Conv2d_2a_3x3")
    x = n.basic(x, 32, 64, 3, "Conv2d_2b_3x3", pad=1)
    x = g.max_pool(x, 3, 2, 0, "maxpool1")
    x = n.basic(x, 64, 80, 1, "Conv2d_3b_1x1")
    x = n.basic(x, 80, 192, 3, "Conv2d_4a_3x3")
    x = g.max_pool(x, 3, 2, 0, "maxpool2")
    c = 192
    x, c = n.inception_a(x, c, 32, "Mixed_5b")
    x, c = n.inception_a(x, c, 64, "Mixed_5c")
    x, c = n.inception_a(x, c, 64, "Mixed_5d")
    x, c = n.inception_b(x, c, "Mixed_6a")
    x, c = n.inception_c(x, c, 128, "Mixed_6b")
    x, c = n.inception_c(x, c, 160, "Mixed_6c")
    x, c = n.inception_c(x, c, 160, "Mixed_6d")
    x, c = n.inception_c(x, c, 192, "Mixed_6e")
    x, c = n.inception_d(x, c, "Mixed_7a")
    x, c = n.inception_e(x, c, "Mixed_7b")
    x, c = n.inception_e(x, c, "Mixed_7c")
    x = g.global_avg_pool(x, "avgpool")
    x = g.flatten(x)
    x = g.gemm(x, c, 1000, "fc", "fc")
    g.output(x, "output", FLOAT, [batch, 1000])
    doc = ("%s: torchvision.models.inception_v3 in eval mode (no AuxLogits, no "
           "transform_input), random weights (seed %d), input [%d, 3, %d, %d]; see "
           "models/%s.task" % (network, seed, batch, image_size, image_size, network))
    return g, doc
