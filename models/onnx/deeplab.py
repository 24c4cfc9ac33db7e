# DeepLabV3-ResNet-50 (torchvision.models.segmentation.deeplabv3_resnet50, 21 classes,
# no aux classifier), output "out" before the final upsampling, written the way
# torch.onnx.export writes it in eval mode with BatchNorm kept:
#
#   backbone: torchvision's ResNet-50 v1.5 with replace_stride_with_dilation [False,
#     True, True] (output stride 8), as resnet.py writes resnet50 up to layer4: Conv (no
#     bias) -> BatchNormalization -> Relu, MaxPool 3x3/2 pad 1, bottlenecks with
#     Add(conv3 branch, identity) -> Relu; in layer3 and layer4 the stride 2 of block 0
#     (3x3 and downsample) is 1 and the 3x3 convs are dilated: a layer's block 0 keeps
#     the previous dilation, its other blocks take the new one (layer3 1 then 2, layer4
#     2 then 4), padding = dilation. No avgpool, no fc.
#   classifier (DeepLabHead): classifier.0 = ASPP: convs.0 1x1 + BN + Relu; convs.1-3
#     3x3 with dilation and padding 12, 24, 36 + BN + Relu; convs.4 the image pooling:
#     GlobalAveragePool (AdaptiveAvgPool2d(1)) -> 1x1 conv + BN + Relu -> Resize back to
#     the feature size (F.interpolate bilinear, align_corners=False: mode linear,
#     coordinate_transformation_mode pytorch_half_pixel; roi and scales empty, sizes a
#     constant); Concat(axis 1) of the five (1280 channels); project.0 1x1 -> 256 + BN +
#     Relu (Dropout gone); classifier.1 3x3 256 -> 256 + BN (classifier.2) + Relu;
#     classifier.4 1x1 256 -> 21 with bias.
#
# Left out, as models/deeplabv3_r50.task leaves them out: the final F.interpolate to the
# input size (the output "out" is the [B, 21, H/8, W/8] logits) and the aux classifier.
# The image pooling's Resize stays: the Concat needs its 28x28 (it is no task: an
# injective op).
#
# Node names follow models/deeplabv3_r50.task: backbone.conv1, backbone.maxpool,
# backbone.layerL.B.convN / .downsample, classifier.0.convs.K (K = 0..3),
# "classifier.0.convs.4.0 (image pooling)" (the GlobalAveragePool),
# classifier.0.convs.4.1, classifier.0.project.0, classifier.1, classifier.4.
# Initializers use torchvision's state_dict keys (backbone.layer3.0.bn2.running_var,
# classifier.0.convs.1.0.weight, classifier.0.convs.4.2.bias, classifier.2.weight).

import numpy as np

from common import FLOAT, BuildError, Builder

CONFIGS = {
    # name: (layers, ASPP rates, classes)
    "deeplabv3_r50": ([3, 4, 6, 3], (12, 24, 36), 21),
}
ASPP_CH = 256


def bottleneck(g, x, cin, planes, stride, dilation, prefix):
    """torchvision Bottleneck: conv1x1-bn-relu, conv3x3(stride, dilation)-bn-relu,
    conv1x1-bn, (+ downsample), add, relu."""
    width = planes
    cout = planes * 4
    out = g.conv_bn(x, cin, width, 1, prefix + ".conv1", prefix + ".conv1", prefix + ".bn1",
                    act="relu")
    out = g.conv_bn(out, width, width, 3, prefix + ".conv2", prefix + ".conv2",
                    prefix + ".bn2", stride=stride, pad=dilation, dilation=dilation, act="relu")
    out = g.conv_bn(out, width, cout, 1, prefix + ".conv3", prefix + ".conv3", prefix + ".bn3")
    identity = x
    if stride != 1 or cin != cout:
        identity = g.conv_bn(x, cin, cout, 1, prefix + ".downsample",
                             prefix + ".downsample.0", prefix + ".downsample.1", stride=stride)
    out = g.add(out, identity, prefix + ".conv3")
    return g.relu(out, prefix + ".conv3"), cout


def build(network, opset, seed, batch, image_size):
    layers, rates, classes = CONFIGS[network]
    # the stem and layer2 stride 8 in all: 32 leaves a 4x4 feature map
    if image_size < 32:
        raise BuildError("%s needs --image-size of at least 32" % network)

    g = Builder(network, opset, seed)
    x = g.input("input", FLOAT, [batch, 3, image_size, image_size])
    x = g.conv_bn(x, 3, 64, 7, "backbone.conv1", "backbone.conv1", "backbone.bn1", stride=2,
                  pad=3, act="relu")
    x = g.max_pool(x, 3, 2, 1, "backbone.maxpool")
    cin = 64
    dilation = 1
    # replace_stride_with_dilation [False, True, True]
    for li, (n, planes, dilate) in enumerate(zip(layers, [64, 128, 256, 512],
                                                 [False, False, True, True])):
        stride = 2 if li > 0 else 1
        previous = dilation
        if dilate:
            dilation *= stride
            stride = 1
        for b in range(n):
            prefix = "backbone.layer%d.%d" % (li + 1, b)
            x, cin = bottleneck(g, x, cin, planes, stride if b == 0 else 1,
                                previous if b == 0 else dilation, prefix)
    # the feature map's size: the stem's conv and pool, then layer2's stride
    fh = (image_size + 6 - 7) // 2 + 1
    fh = (fh + 2 - 3) // 2 + 1
    fh = (fh + 2 - 3) // 2 + 1

    # ASPP (classifier.0)
    feats = x
    branches = []
    y = g.conv_bn(feats, cin, ASPP_CH, 1, "classifier.0.convs.0", "classifier.0.convs.0.0",
                  "classifier.0.convs.0.1", act="relu")
    branches.append(y)
    for i, r in enumerate(rates):
        key = "classifier.0.convs.%d" % (i + 1)
        y = g.conv_bn(feats, cin, ASPP_CH, 3, key, key + ".0", key + ".1", pad=r, dilation=r,
                      act="relu")
        branches.append(y)
    y = g.global_avg_pool(feats, "classifier.0.convs.4.0 (image pooling)")
    y = g.conv_bn(y, cin, ASPP_CH, 1, "classifier.0.convs.4.1", "classifier.0.convs.4.1",
                  "classifier.0.convs.4.2", act="relu")
    # F.interpolate(x, size=(fh, fh), mode="bilinear", align_corners=False), as torch
    # writes it at opset 11+: empty roi and scales, constant sizes
    y = g.node("Resize", [y, g.const(np.zeros(0, np.float32)), g.const(np.zeros(0, np.float32)),
                          g.const([batch, ASPP_CH, fh, fh], np.int64)],
               "classifier.0.convs.4/Resize", coordinate_transformation_mode="pytorch_half_pixel",
               cubic_coeff_a=-0.75, mode="linear", nearest_mode="floor")
    branches.append(y)
    y = g.node("Concat", branches, "classifier.0/Concat", axis=1)
    g.m2[y] = float(np.mean([g.m2.get(b_, 1.0) for b_ in branches]))
    y = g.conv_bn(y, len(branches) * ASPP_CH, ASPP_CH, 1, "classifier.0.project.0",
                  "classifier.0.project.0", "classifier.0.project.1", act="relu")
    # DeepLabHead's 3x3 conv, BN, ReLU and the classifier conv
    y = g.conv_bn(y, ASPP_CH, ASPP_CH, 3, "classifier.1", "classifier.1", "classifier.2", pad=1,
                  act="relu")
    y = g.conv(y, ASPP_CH, classes, 1, "classifier.4", "classifier.4", bias=True)
    g.output(y, "out", FLOAT, [batch, classes, fh, fh])
    doc = ("%s: torchvision.models.segmentation.deeplabv3_resnet50 (%d classes, no aux "
           "classifier) in eval mode, random weights (seed %d), input [%d, 3, %d, %d]; output "
           "'out' before the final upsampling, [%d, %d, %d, %d]; see models/%s.task"
           % (network, classes, seed, batch, image_size, image_size, batch, classes, fh, fh,
              network))
    return g, doc
