#!/usr/bin/env python3
"""Exports torchvision's ResNet-50 and MobileNet-V2 to ONNX with PyTorch's own exporters.

Usage: bench/gpu/export-onnx.py OUTDIR

Runs where PyTorch and torchvision are installed (the GPU machine; no GPU is used).
Each network (random weights, eval mode, batch 1, input 1x3x224x224 named 'input')
goes through both exporters, the dynamo one (torch.export) and the TorchScript one,
each where it works. Every large initializer is moved to external data and the data
file is then deleted: what stays is the exporter's graph (nodes, attributes, opset,
names, shapes, the small constants inline), a few hundred KiB instead of 100 MB of
random numbers. tests/onnx/fill-weights writes a seeded weights file for such a graph.
OUTDIR/manifest.txt lists each file with its producer, opset, node count and the
bytes of the weights that were dropped.
"""
import os
import sys
import traceback

import onnx
import torch
import torchvision


def graph_only(path, name):
    model = onnx.load(path)
    dropped = sum(len(t.raw_data) for t in model.graph.initializer if len(t.raw_data) >= 1024)
    weights = name + ".weights"
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location=weights, size_threshold=1024)
    folder = os.path.dirname(path)
    if os.path.exists(os.path.join(folder, weights)):
        os.remove(os.path.join(folder, weights))
    for leftover in os.listdir(folder):          # the dynamo exporter's own data file
        if leftover.endswith(".data"):
            os.remove(os.path.join(folder, leftover))
    model = onnx.load(path, load_external_data=False)
    ops = {}
    for n in model.graph.node:
        ops[n.op_type] = ops.get(n.op_type, 0) + 1
    opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=0)
    return (f"{os.path.basename(path)}: producer {model.producer_name} {model.producer_version}, "
            f"opset {opset}, {len(model.graph.node)} nodes, {len(model.graph.initializer)} "
            f"initializers, {dropped} bytes of weights dropped; ops "
            + " ".join(f"{k}:{v}" for k, v in sorted(ops.items())))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    lines = [f"torch {torch.__version__}, torchvision {torchvision.__version__}, onnx {onnx.__version__}"]
    nets = [("resnet50", torchvision.models.resnet50), ("mobilenet_v2", torchvision.models.mobilenet_v2)]
    for net, ctor in nets:
        torch.manual_seed(0)
        model = ctor(weights=None).eval()
        x = torch.randn(1, 3, 224, 224)
        for exporter in ("dynamo", "torchscript"):
            name = f"{net}-{exporter}"
            folder = os.path.join(out, name)
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, name + ".onnx")
            try:
                with torch.no_grad():
                    if exporter == "dynamo":
                        prog = torch.onnx.export(model, (x,), dynamo=True, input_names=["input"],
                                                 output_names=["output"])
                        prog.save(path)
                    else:
                        torch.onnx.export(model, (x,), path, dynamo=False, opset_version=17,
                                          input_names=["input"], output_names=["output"])
                lines.append(graph_only(path, name))
            except Exception:
                lines.append(f"{name}: the exporter failed: "
                             + traceback.format_exc().strip().splitlines()[-1])
            print(lines[-1], flush=True)
    with open(os.path.join(out, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
