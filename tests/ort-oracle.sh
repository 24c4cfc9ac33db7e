#!/bin/sh
# ONNX Runtime as the oracle for whole networks, as TVM's ONNX frontend tests hold Relay
# to it: tests/onnx's models and every shipped network (models/onnx/make-onnx, at a
# reduced input size) run on pruner-tui's graph reference with seeded random inputs
# (`run --output-data`) and on onnxruntime-node's CPU provider with no graph
# optimizations (tests/ort/ort-run.js), and each output must match: the same name, type
# and shape, and a relative RMS error, sqrt(sum((ours - ort)^2) / sum(ort^2)), of at
# most 1e-4 (fp32), which each description gives; the same holds for the model run as
# the import's kernels (`run --tasks`: each task on its op's C reference); as TAP. SKIP
# without onnxruntime-node.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

bound=1e-4
ort_run="$src/tests/ort/ort-run.js"

# onnxruntime-node: PTUI_NODE_MODULES, NODE_PATH, or the node_modules folder of the build
# tree or the source tree (where ./quickstart --dev installs it)
if [ -z "${PTUI_NODE_MODULES:-}" ]; then
   for dir in "${PTUI_BUILDDIR:-.}/node_modules" "$src/node_modules"; do
      if [ -d "$dir/onnxruntime-node" ]; then
         PTUI_NODE_MODULES=$dir
         export PTUI_NODE_MODULES
         break
      fi
   done
fi
if ! command -v node >/dev/null 2>&1; then
   echo "1..0 # SKIP Node.js not installed"
   exit 0
fi
version=$(node "$ort_run" --version 2>"$tmp/version.err")
case $? in
0) ;;
77) echo "1..0 # SKIP onnxruntime-node not installed"; exit 0 ;;
*) echo "Bail out! tests/ort/ort-run.js --version: $(cat "$tmp/version.err")"; exit 1 ;;
esac

# the whole list in the plain run; PTUI_TESTS_QUICK (CI's sanitizer and distcheck runs)
# takes one network of each kind: convolutions, hardswish and squeeze-excitation, a
# transformer
networks="resnet_18 resnet_50 wide_resnet_50 resnext_50 mobilenet_v2 mobilenet_v3 densenet_121 inception_v3 deeplabv3_r50 vit_b_16 bert_tiny bert_base detr_r50"
[ -n "${PTUI_TESTS_QUICK:-}" ] && networks="resnet_50 mobilenet_v3 bert_tiny"
small="small layout decomposed batchnorm legacy_bias unet se"
# PyTorch's own exporters' graphs of torchvision models (tests/data/torch), weights
# filled by tests/onnx/fill-weights, at their exported 224x224
# (ResNet-50's TorchScript export imports to models/resnet_50.task's tasks, as
# tests/onnx-import.sh checks, and resnet_50's graph runs below; its dynamo export,
# with its ReduceMean pool, runs here)
torch="mobilenet_v2-dynamo mobilenet_v2-torchscript resnet50-dynamo"
[ -n "${PTUI_TESTS_QUICK:-}" ] && torch="mobilenet_v2-dynamo"
echo "1..$((1 + 2 * $(echo $small | wc -w) + 2 * $(echo $networks | wc -w) + 2 * $(echo $torch | wc -w)))"
echo "# $version"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# compare DIR: ours (DIR/output_N.pb) against ONNX Runtime's (DIR/ort/output_N.pb); prints
# "ok" or "bad" and the relative RMS error of each output, then on lines of their own
# what differs
compare() {
   /usr/bin/python3 - "$1" "$bound" <<'EOF'
import glob, os, sys
import numpy as np
import onnx
from onnx import numpy_helper

d, bound = sys.argv[1], float(sys.argv[2])
ours = sorted(glob.glob(os.path.join(d, "output_*.pb")), key=lambda f: int(f[f.rindex("_") + 1:-3]))
theirs = sorted(glob.glob(os.path.join(d, "ort", "output_*.pb")), key=lambda f: int(f[f.rindex("_") + 1:-3]))
good, parts, notes = True, [], []
if len(ours) != len(theirs) or not ours:
    good = False
    notes.append("%d outputs from pruner-tui, %d from ONNX Runtime" % (len(ours), len(theirs)))
for a_file, b_file in zip(ours, theirs):
    ta, tb = onnx.load_tensor(a_file), onnx.load_tensor(b_file)
    a, b = numpy_helper.to_array(ta), numpy_helper.to_array(tb)
    if ta.name != tb.name or a.dtype != b.dtype or a.shape != b.shape:
        good = False
        notes.append("%s: %s %s %s from pruner-tui, %s %s %s from ONNX Runtime"
                     % (os.path.basename(a_file), ta.name, a.dtype, list(a.shape), tb.name, b.dtype, list(b.shape)))
        continue
    if not np.issubdtype(a.dtype, np.floating):
        same = np.array_equal(a, b)
        parts.append("%s %s" % (ta.name, "equal" if same else "differs"))
        good = good and same
        if not same:
            notes.append("%s: %d of %d elements differ" % (ta.name, np.count_nonzero(a != b), a.size))
        continue
    a, b = a.astype(np.float64), b.astype(np.float64)
    err = np.sqrt(np.sum((a - b) ** 2))
    norm = np.sqrt(np.sum(b ** 2))
    rel = err / norm if norm > 0 else (0.0 if err == 0 else np.inf)
    parts.append("%s %.2g" % (ta.name, rel))
    if not rel <= bound:
        good = False
        i = np.unravel_index(np.argmax(np.abs(a - b)), a.shape)
        notes.append("%s: relative RMS %.3g; largest difference at %s: %.9g from pruner-tui, %.9g from ONNX Runtime"
                     % (ta.name, rel, list(i), a[i], b[i]))
print("ok" if good else "bad", ", ".join(parts) or "no outputs")
for n in notes:
    print(n)
EOF
}

# check NAME MODEL [RUN OPTIONS...]: runs MODEL on both and compares them, one TAP line;
# what failed and the time of each step as comments
# judge WHAT DIR: the TAP line of compare DIR, the notes after it
judge() {
   compare "$2" >"$tmp/compare.out" 2>&1
   set -- "$1" $(sed -n 1p "$tmp/compare.out")
   what=$1 verdict=${2:-}
   shift $(($# > 1 ? 2 : 1))
   ok "$what relative RMS error against ONNX Runtime <= $bound: $*" [ "$verdict" = ok ]
   sed -n '2,$s/^/# /p' "$tmp/compare.out"
}

check() {
   name=$1 model=$2; shift 2
   extra="$*"
   d="$tmp/data.$((n + 1))"
   rm -rf "$d"
   mkdir "$d"
   t=$(now)
   if ! "$bin" run "$model" "$@" --output-data "$d" >/dev/null 2>"$tmp/ours.err"; then
      ok "$name: pruner-tui runs the model" false
      sed 's/^/# /' "$tmp/ours.err"
      return
   fi
   ours_s=$(since "$t")
   t=$(now)
   if ! node "$ort_run" "$model" "$d" 2>"$tmp/ort.err"; then
      ok "$name: ONNX Runtime runs the model" false
      sed 's/^/# /' "$tmp/ort.err"
      return
   fi
   ort_s=$(since "$t")
   judge "$name:" "$d"
   # the same inputs through the import's kernels (run --tasks): the tasks' ops as the
   # task file has them, against ONNX Runtime's outputs
   mkdir "$d/tasks"
   cp -r "$d/ort" "$d/tasks/ort"
   t=$(now)
   if "$bin" run "$model" $extra --tasks --input-data "$d" --output-data "$d/tasks" >"$tmp/tasks.out" 2>"$tmp/tasks.err"; then
      tasks_s=$(since "$t")
      judge "$name: run as its kernels (--tasks)," "$d/tasks"
      sed -n 's/^/# /p' "$tmp/tasks.out" | grep -v "^# output"
   else
      tasks_s=-
      ok "$name: run as its kernels (--tasks)" false
      sed 's/^/# /' "$tmp/tasks.err"
   fi
   echo "# $name: pruner-tui ${ours_s} s (--tasks ${tasks_s} s), ONNX Runtime ${ort_s} s${made_s:+, make-onnx ${made_s} s}"
   rm -rf "$d"
}

# ---- tests/onnx's models ----
/usr/bin/python3 "$src/tests/onnx/make-small" "$tmp" 2>"$tmp/make.err" &&
   /usr/bin/python3 "$src/tests/onnx/make-ops" "$tmp" 2>>"$tmp/make.err"
ok "tests/onnx/make-small and make-ops write their models" [ $? -eq 0 -a -s "$tmp/small.onnx" -a -s "$tmp/se.onnx" ]
made_s=
for m in $small; do
   case $m in
   small) check small.onnx "$tmp/small.onnx" --input image=2x3x16x16 ;;
   # ONNX Runtime implements Add from opset 7 on; tests/onnx-import.sh checks this one
   # against the output numpy computed
   legacy_bias)
      echo "ok $((n += 1)) - legacy_bias.onnx # SKIP ONNX Runtime has no Add before opset 7"
      echo "ok $((n += 1)) - legacy_bias.onnx, --tasks # SKIP ONNX Runtime has no Add before opset 7" ;;
   *) check "$m.onnx" "$tmp/$m.onnx" ;;
   esac
done

# ---- PyTorch's exports ----
for m in $torch; do
   if ! /usr/bin/python3 "$src/tests/onnx/fill-weights" "$src/tests/data/torch/$m.onnx" "$tmp/$m" 2>"$tmp/fill.err"; then
      ok "$m: tests/onnx/fill-weights writes its weights" false
      sed 's/^/# /' "$tmp/fill.err"
      continue
   fi
   check "$m.onnx (PyTorch's export, 224x224)" "$tmp/$m/$m.onnx"
   rm -rf "$tmp/$m"
done

# ---- the shipped networks, at a reduced input size ----
for net in $networks; do
   case $net in
   bert_*) size="--seq-len 16" what="sequence 16" ;;
   inception_v3) size="--image-size 75" what="75x75" ;;   # its smallest
   *) size="--image-size 64" what="64x64" ;;
   esac
   t=$(now)
   if ! /usr/bin/python3 "$src/models/onnx/make-onnx" "$net" "$tmp/$net.onnx" $size --no-check -q 2>"$tmp/make.err"; then
      ok "$net: models/onnx/make-onnx writes it" false
      sed 's/^/# /' "$tmp/make.err"
      continue
   fi
   made_s=$(since "$t")
   check "$net ($what)" "$tmp/$net.onnx"
   rm -f "$tmp/$net.onnx"
done

[ "$failed" -eq 0 ]
