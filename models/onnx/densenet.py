# DenseNet-121 (torchvision.models.densenet121), written the way torch.onnx.export
# writes it in eval mode with BatchNorm kept:
#
#   stem: conv0 (7x7/2, no bias) -> norm0 -> relu0 -> pool0 (MaxPool 3x3/2 pad 1);
#   a dense layer: Concat(axis 1) of every feature map before it in its block (a
#     one-input Concat for the first layer, as torch.cat([x], 1) exports), norm1 ->
#     relu1 -> conv1 1x1 -> norm2 -> relu2 -> conv2 3x3 pad 1 (32 new channels);
#   the block's output: Concat of the block input and every layer's new channels;
#   a transition: norm -> relu -> conv 1x1 (half the channels) -> AveragePool 2x2/2;
#   head: norm5 -> Relu (F.relu) -> GlobalAveragePool (F.adaptive_avg_pool2d(., (1, 1)))
#     -> Flatten -> Gemm(transB=1) (classifier).
#
# Node names follow models/densenet_121.task: features.conv0, features.pool0,
# features.denseblockB.denselayerL.conv1 / .conv2, features.transitionT.conv / .pool,
# adaptive_avg_pool2d, classifier. The pre-activation BatchNormalization and Relu nodes
# (no task: elementwise before a conv) are named after their modules
# (features.denseblockB.denselayerL.norm1/BatchNormalization, .relu1/Relu).

from common import FLOAT, BuildError, Builder

CONFIGS = {
    # name: (growth rate, block config, initial features, bottleneck size)
    "densenet_121": (32, (6, 12, 24, 16), 64, 4),
}


def build(network, opset, seed, batch, image_size):
    growth, blocks, init, bn_size = CONFIGS[network]
    if image_size < 32:
        raise BuildError("%s needs --image-size of at least 32" % network)
    g = Builder(network, opset, seed)
    x = g.input("input", FLOAT, [batch, 3, image_size, image_size])
    x = g.conv_bn(x, 3, init, 7, "features.conv0", "features.conv0", "features.norm0",
                  stride=2, pad=3, act="relu")
    x = g.max_pool(x, 3, 2, 1, "features.pool0")
    c = init
    for bi, n in enumerate(blocks, 1):
        blk = "features.denseblock%d" % bi
        feats = [x]
        for li in range(1, n + 1):
            p = "%s.denselayer%d" % (blk, li)
            y = g.node("Concat", feats, p + "/Concat", axis=1)
            cin = c + growth * (li - 1)
            y = g.bn(y, cin, p + ".norm1", p + ".norm1")
            y = g.relu(y, p + ".relu1")
            y = g.conv_bn(y, cin, bn_size * growth, 1, p + ".conv1", p + ".conv1", p + ".norm2",
                          act="relu")
            y = g.conv(y, bn_size * growth, growth, 3, p + ".conv2", p + ".conv2", pad=1)
            feats.append(y)
        x = g.node("Concat", feats, blk + "/Concat", axis=1)
        c += growth * n
        if bi < len(blocks):
            p = "features.transition%d" % bi
            x = g.bn(x, c, p + ".norm", p + ".norm")
            x = g.relu(x, p + ".relu")
            x = g.conv(x, c, c // 2, 1, p + ".conv", p + ".conv")
            c //= 2
            x = g.avg_pool(x, 2, 2, 0, p + ".pool")
    x = g.bn(x, c, "features.norm5", "features.norm5")
    x = g.relu(x, "relu")
    x = g.global_avg_pool(x, "adaptive_avg_pool2d")
    x = g.flatten(x)
    x = g.gemm(x, c, 1000, "classifier", "classifier")
    g.output(x, "output", FLOAT, [batch, 1000])
    doc = ("%s: torchvision.models.densenet121 in eval mode, random weights (seed %d), input "
           "[%d, 3, %d, %d]; see models/%s.task"
           % (network, seed, batch, image_size, image_size, network))
    return g, doc
