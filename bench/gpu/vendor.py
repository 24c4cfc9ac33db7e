#!/usr/bin/env python3
"""The vendor's side of bench/gpu/run: every task of the task files given run through
PyTorch (cuDNN for the convolutions, cuBLAS for dense and batch_matmul) in float32 with
TF32 off, as PyTorch's eager mode runs the fused task (the operator, then each epilogue
stage as its own kernel), timed with CUDA events twice: eager, one call between the
events (the CPU's launch overhead included, as an eager program pays it), and as a CUDA
graph of 20 calls replayed between the events, divided by 20 (the GPU's time alone,
the launch gaps between the task's kernels included); the device's measured ceilings (a
device-to-device copy, an FP32 matrix product); and torchvision's ResNet-50 at batch 1,
eager and as a CUDA graph.

Usage: vendor.py [--dry-run] [--out FILE] [--budget SECONDS] [--e2e] TASKFILE...

Writes tab-separated lines:
  task  NETWORK ID OP BYTES TORCH_US NOTE GRAPH_US   (BYTES: inputs, weights and output,
                                                   once; TORCH_US eager; GRAPH_US "-" when
                                                   the capture failed, the reason in NOTE)
  ceiling copy_gbs VALUE | ceiling fp32_gflops VALUE
  e2e resnet50_eager_ms VALUE | e2e resnet50_graph_ms VALUE
  info KEY VALUE
With --dry-run, or without PyTorch or a GPU, nothing is run: the shapes are checked and
the bytes counted, and the times are "-". The task files are read with PyYAML.
"""
import argparse
import math
import statistics
import sys
import time

import yaml


def pair(v, default):
    if v is None:
        v = default
    if isinstance(v, list):
        return (v[0], v[1]) if len(v) == 2 else None
    return (v, v)


def pads(v):
    """pad: p, [ph, pw] or [top, left, bottom, right] -> (top, left, bottom, right)"""
    if v is None:
        return (0, 0, 0, 0)
    if isinstance(v, list):
        if len(v) == 2:
            return (v[0], v[1], v[0], v[1])
        return tuple(v)
    return (v, v, v, v)


def out_extent(size, lo, hi, dil, k, stride):
    return (size + lo + hi - dil * (k - 1) - 1) // stride + 1


class Task:
    """The tensors of one task and what PyTorch runs for it."""

    def __init__(self, spec, batch):
        self.spec = spec
        self.op = spec["op"]
        self.epilogue = spec.get("epilogue", [])
        self.shapes = {}          # name -> shape, every tensor read or written
        self.note = ""
        n = batch
        op = self.op
        if op == "conv2d":
            c, h, w = spec["input"]
            k = spec["filters"]
            r, s = pair(spec["kernel"], 1)
            sh, sw = pair(spec.get("stride"), 1)
            dh, dw = pair(spec.get("dilation"), 1)
            g = spec.get("groups", 1)
            top, left, bottom, right = pads(spec.get("pad"))
            oh = out_extent(h, top, bottom, dh, r, sh)
            ow = out_extent(w, left, right, dw, s, sw)
            self.geometry = dict(stride=(sh, sw), dilation=(dh, dw), groups=g, pad=(top, left, bottom, right))
            self.shapes = {"data": (n, c, h, w), "kernel": (k, c // g, r, s), "out": (n, k, oh, ow)}
            self.channels = k
        elif op == "dense":
            m = spec.get("m", 1) * n
            self.shapes = {"data": (m, spec["k"]), "kernel": (spec["n"], spec["k"]), "out": (m, spec["n"])}
            self.channels = spec["n"]
        elif op == "batch_matmul":
            b = spec["b"] * n
            self.shapes = {"A": (b, spec["m"], spec["k"]), "B": (b, spec["n"], spec["k"]),
                           "out": (b, spec["m"], spec["n"])}
            self.channels = spec["n"]
        elif op in ("max_pool2d", "avg_pool2d"):
            c, h, w = spec["input"]
            r, s = pair(spec["kernel"], 1)
            sh, sw = pair(spec["stride"], 1) if spec.get("stride") is not None else (r, s)
            top, left, bottom, right = pads(spec.get("pad"))
            oh = out_extent(h, top, bottom, 1, r, sh)
            ow = out_extent(w, left, right, 1, s, sw)
            self.geometry = dict(kernel=(r, s), stride=(sh, sw), pad=(top, left, bottom, right),
                                 include=spec.get("count_include_pad", True))
            self.shapes = {"data": (n, c, h, w), "out": (n, c, oh, ow)}
        elif op in ("adaptive_avg_pool2d", "global_avg_pool2d"):
            c, h, w = spec["input"]
            o = pair(spec.get("output", 1), 1)
            self.geometry = dict(output=o)
            self.shapes = {"data": (n, c, h, w), "out": (n, c) + o}
        elif op in ("softmax", "layer_norm"):
            shape = (n,) + tuple(spec["input"])
            self.shapes = {"data": shape, "out": shape}
            if op == "layer_norm":
                self.shapes["gamma"] = (shape[-1],)
                self.shapes["beta"] = (shape[-1],)
        else:
            raise ValueError("no PyTorch equivalent for operator %s" % op)
        for stage in self.epilogue:
            if stage == "bias":
                self.shapes["bias"] = (self.channels,)
            elif stage == "add":
                self.shapes["residual"] = self.shapes["out"]

    def bytes(self):
        return 4 * sum(math.prod(s) for s in self.shapes.values())

    def build(self, torch):
        """A callable that runs the task on tensors of random values."""
        F = torch.nn.functional
        t = {name: torch.rand(shape, device="cuda") * 2 - 1 for name, shape in self.shapes.items() if name != "out"}
        op = self.op
        if op == "conv2d":
            geo = self.geometry
            top, left, bottom, right = geo["pad"]
            symmetric = top == bottom and left == right
            first_bias = self.epilogue[:1] == ["bias"]
            bias = t["bias"] if first_bias else None

            def main():
                x = t["data"]
                if symmetric:
                    return F.conv2d(x, t["kernel"], bias, geo["stride"], (top, left), geo["dilation"], geo["groups"])
                x = F.pad(x, (left, right, top, bottom))
                return F.conv2d(x, t["kernel"], bias, geo["stride"], 0, geo["dilation"], geo["groups"])
        elif op == "dense":
            first_bias = self.epilogue[:1] == ["bias"]
            bias = t["bias"] if first_bias else None

            def main():
                return F.linear(t["data"], t["kernel"], bias)
        elif op == "batch_matmul":
            first_bias = False

            def main():
                return torch.bmm(t["A"], t["B"].transpose(1, 2))
        elif op in ("max_pool2d", "avg_pool2d"):
            first_bias = False
            geo = self.geometry
            top, left, bottom, right = geo["pad"]
            symmetric = top == bottom and left == right
            if not symmetric and op == "avg_pool2d" and not geo["include"]:
                raise ValueError("asymmetric padding without count_include_pad has no PyTorch equivalent")

            def main():
                x = t["data"]
                pad = (top, left)
                if not symmetric:
                    x = F.pad(x, (left, right, top, bottom), value=-math.inf if op == "max_pool2d" else 0.0)
                    pad = 0
                if op == "max_pool2d":
                    return F.max_pool2d(x, geo["kernel"], geo["stride"], pad)
                return F.avg_pool2d(x, geo["kernel"], geo["stride"], pad, count_include_pad=geo["include"])
        elif op in ("adaptive_avg_pool2d", "global_avg_pool2d"):
            first_bias = False

            def main():
                return F.adaptive_avg_pool2d(t["data"], self.geometry["output"])
        elif op == "softmax":
            first_bias = False

            def main():
                return torch.softmax(t["data"], -1)
        else:
            first_bias = False
            eps = float(self.spec.get("epsilon", 1e-5))

            def main():
                return F.layer_norm(t["data"], (self.shapes["data"][-1],), t["gamma"], t["beta"], eps)

        stages = self.epilogue[1:] if first_bias else self.epilogue
        view = (1, -1, 1, 1) if op == "conv2d" else (-1,)

        unary = {"relu": F.relu, "relu6": F.relu6, "gelu": F.gelu, "hardswish": F.hardswish,
                 "hardsigmoid": F.hardsigmoid, "sigmoid": torch.sigmoid}

        def run():
            y = main()
            for stage in stages:
                if stage == "bias":
                    y = y + t["bias"].view(view)
                elif stage == "add":
                    y = y + t["residual"]
                elif isinstance(stage, str) and stage in unary:
                    y = unary[stage](y)
                elif isinstance(stage, dict) and "clip" in stage:
                    y = torch.clamp(y, stage["clip"][0], stage["clip"][1])
                else:
                    raise ValueError("epilogue stage %r has no PyTorch equivalent" % (stage,))
            return y
        return run


def median_ms(torch, fn, budget_s=0.5, min_reps=20, max_reps=1000):
    """The median over repeats of fn's time in ms, each timed with CUDA events after
    warm-up; as many repeats as fit in budget_s, within [min_reps, max_reps]."""
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    t0 = time.time()
    while len(times) < max_reps and (len(times) < min_reps or time.time() - t0 < budget_s):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


GRAPH_CALLS = 20


def graph_us(torch, fn, budget_s):
    """fn's time in microseconds as a CUDA graph of GRAPH_CALLS calls, per call."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(GRAPH_CALLS):
            fn()
    return 1000 * median_ms(torch, graph.replay, budget_s=budget_s, min_reps=10) / GRAPH_CALLS


def ceilings(torch, emit):
    n = 1 << 28                                   # 1 GiB of float32
    src = torch.rand(n, device="cuda")
    dst = torch.empty_like(src)
    ms = median_ms(torch, lambda: dst.copy_(src), budget_s=1.0, min_reps=10)
    emit("ceiling", "copy_gbs", "%.1f" % (2 * 4 * n / (ms * 1e-3) / 1e9))
    del src, dst
    m = 8192
    a = torch.rand(m, m, device="cuda")
    b = torch.rand(m, m, device="cuda")
    ms = median_ms(torch, lambda: a @ b, budget_s=1.0, min_reps=5)
    emit("ceiling", "fp32_gflops", "%.1f" % (2 * m ** 3 / (ms * 1e-3) / 1e9))


def resnet50(torch, emit):
    import torchvision
    model = torchvision.models.resnet50(weights=None).eval().cuda()
    x = torch.rand(1, 3, 224, 224, device="cuda")
    with torch.no_grad():
        emit("e2e", "resnet50_eager_ms", "%.4f" % median_ms(torch, lambda: model(x), budget_s=2.0))
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                model(x)
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            model(x)
        emit("e2e", "resnet50_graph_ms", "%.4f" % median_ms(torch, graph.replay, budget_s=2.0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", metavar="TASKFILE")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--out")
    ap.add_argument("--budget", type=float, default=0.3, help="seconds of repeats per task (default 0.3)")
    ap.add_argument("--e2e", action="store_true", help="also the ceilings and torchvision's ResNet-50")
    args = ap.parse_args()
    out = open(args.out, "w") if args.out else sys.stdout

    def emit(*fields):
        print("\t".join(str(f) for f in fields), file=out, flush=True)

    torch = None
    if not args.dry_run:
        try:
            import torch as torch_module
            torch = torch_module if torch_module.cuda.is_available() else None
        except ImportError:
            torch = None
    if torch is None:
        emit("info", "torch", "not run (%s)" % ("--dry-run" if args.dry_run else "no PyTorch with a GPU"))
    else:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cudnn.benchmark = True
        emit("info", "torch", torch.__version__)
        emit("info", "cudnn", torch.backends.cudnn.version())
        emit("info", "gpu", torch.cuda.get_device_name(0))
    bad = 0
    for path in args.files:
        with open(path) as f:
            doc = yaml.safe_load(f)
        network = doc["network"]
        for i, spec in enumerate(doc["tasks"]):
            try:
                task = Task(spec, doc.get("batch", 1))
                us, note, gus = "-", "", "-"
                if torch is not None:
                    fn = task.build(torch)
                    us = "%.3f" % (1000 * median_ms(torch, fn, budget_s=args.budget))
                    try:
                        gus = "%.3f" % graph_us(torch, fn, args.budget)
                    except Exception as e:
                        note = "no graph: %s: %s" % (type(e).__name__, e)
                emit("task", network, i, task.op, task.bytes(), us, note, gus)
            except Exception as e:     # one task's failure is its note; the others go on
                emit("task", network, i, spec.get("op"), "-", "-", "%s: %s" % (type(e).__name__, e), "-")
                bad += 1
    if torch is not None and args.e2e:
        for part in (ceilings, resnet50):
            try:
                part(torch, emit)
            except Exception as e:
                emit("info", part.__name__, "failed: %s: %s" % (type(e).__name__, e))
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
