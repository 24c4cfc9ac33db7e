# ResNet family (torchvision.models.resnet): resnet_18 (basic blocks), resnet_50
# (bottleneck v1.5), wide_resnet_50 (wide_resnet50_2) and resnext_50 (resnext50_32x4d),
# written the way torch.onnx.export writes them in eval mode with BatchNorm kept
# (do_constant_folding off for BN): Conv (no bias) -> BatchNormalization -> Relu;
# MaxPool 3x3/2 pad 1; the residual Add(out, identity) then Relu; GlobalAveragePool
# (AdaptiveAvgPool2d((1, 1))) -> Flatten(axis 1) -> Gemm(transB=1).
#
# Node names follow models/NETWORK.task: conv1, maxpool, layerL.B.convN,
# layerL.B.downsample, avgpool, fc; the BN, Relu and Add nodes of a conv's task are
# "CONV/BatchNormalization", "CONV/Relu", "CONV/Add".

from common import FLOAT, BuildError, Builder

CONFIGS = {
    # name: (block, layers, groups, width_per_group, torchvision constructor)
    "resnet_18": ("basic", [2, 2, 2, 2], 1, 64, "resnet18"),
    "resnet_50": ("bottleneck", [3, 4, 6, 3], 1, 64, "resnet50"),
    "wide_resnet_50": ("bottleneck", [3, 4, 6, 3], 1, 128, "wide_resnet50_2"),
    "resnext_50": ("bottleneck", [3, 4, 6, 3], 32, 4, "resnext50_32x4d"),
}


def basic_block(g, x, cin, planes, stride, prefix):
    """torchvision BasicBlock: conv3x3(stride)-bn-relu, conv3x3-bn, (+ downsample), add,
    relu."""
    out = g.conv_bn(x, cin, planes, 3, prefix + ".conv1", prefix + ".conv1", prefix + ".bn1",
                    stride=stride, pad=1, act="relu")
    out = g.conv_bn(out, planes, planes, 3, prefix + ".conv2", prefix + ".conv2",
                    prefix + ".bn2", pad=1)
    identity = x
    if stride != 1 or cin != planes:
        identity = g.conv_bn(x, cin, planes, 1, prefix + ".downsample",
                             prefix + ".downsample.0", prefix + ".downsample.1", stride=stride)
    out = g.add(out, identity, prefix + ".conv2")
    return g.relu(out, prefix + ".conv2"), planes


def bottleneck(g, x, cin, planes, stride, groups, base_width, prefix):
    """torchvision Bottleneck (v1.5: the stride on conv2): conv1x1-bn-relu,
    conv3x3(stride, groups)-bn-relu, conv1x1-bn, (+ downsample), add, relu."""
    width = int(planes * (base_width / 64.0)) * groups
    cout = planes * 4
    out = g.conv_bn(x, cin, width, 1, prefix + ".conv1", prefix + ".conv1", prefix + ".bn1",
                    act="relu")
    out = g.conv_bn(out, width, width, 3, prefix + ".conv2", prefix + ".conv2",
                    prefix + ".bn2", stride=stride, pad=1, groups=groups, act="relu")
    out = g.conv_bn(out, width, cout, 1, prefix + ".conv3", prefix + ".conv3", prefix + ".bn3")
    identity = x
    if stride != 1 or cin != cout:
        identity = g.conv_bn(x, cin, cout, 1, prefix + ".downsample",
                             prefix + ".downsample.0", prefix + ".downsample.1", stride=stride)
    out = g.add(out, identity, prefix + ".conv3")
    return g.relu(out, prefix + ".conv3"), cout


def build(network, opset, seed, batch, image_size):
    block, layers, groups, base_width, ctor = CONFIGS[network]
    # the stem halves the size twice and layer2..4 once each: 32 leaves 1x1 at layer4
    if image_size < 32:
        raise BuildError("%s needs --image-size of at least 32" % network)

    g = Builder(network, opset, seed)
    x = g.input("input", FLOAT, [batch, 3, image_size, image_size])
    x = g.conv_bn(x, 3, 64, 7, "conv1", "conv1", "bn1", stride=2, pad=3, act="relu")
    x = g.max_pool(x, 3, 2, 1, "maxpool")
    cin = 64
    for li, (n, planes) in enumerate(zip(layers, [64, 128, 256, 512])):
        for b in range(n):
            stride = 2 if (li > 0 and b == 0) else 1
            prefix = "layer%d.%d" % (li + 1, b)
            if block == "basic":
                x, cin = basic_block(g, x, cin, planes, stride, prefix)
            else:
                x, cin = bottleneck(g, x, cin, planes, stride, groups, base_width, prefix)
    x = g.global_avg_pool(x, "avgpool")
    x = g.flatten(x)
    x = g.gemm(x, cin, 1000, "fc", "fc")
    g.output(x, "output", FLOAT, [batch, 1000])
    doc = ("%s: torchvision.models.%s in eval mode, random weights (seed %d), input "
           "[%d, 3, %d, %d]; see models/%s.task" % (network, ctor, seed, batch, image_size,
                                                      image_size, network))
    return g, doc
