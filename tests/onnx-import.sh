#!/bin/sh
# ONNX import: the ONNX graph of every shipped network that models/onnx/make-onnx
# writes imports to the tasks, weights and FLOPs of its task file; `import` writes a
# task file that loads back to the same tasks, with the graph, which the loader checks;
# the import's summary counts what it read, folded, recognised and fused; the passes keep the graph's
# values (run --simplify), a BatchNorm no conv takes becoming a Mul and an Add fused with its
# neighbours; an opset-6 per-channel Add is a conv's bias; a 100000-node chain imports in
# bounded time; a model with an open dimension needs --input, names it, and
# then tunes with --batch, resumes without the flag (the session keeps it) and replays;
# as TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

# the whole list in the plain run; PTUI_TESTS_QUICK (CI's sanitizer and distcheck runs)
# takes one network of each kind: convolutions, hardswish and squeeze-excitation, a
# transformer
networks="resnet_50 mobilenet_v2 bert_base resnet_18 wide_resnet_50 resnext_50 bert_tiny vit_b_16 mobilenet_v3 densenet_121 inception_v3 deeplabv3_r50 detr_r50"
[ -n "${PTUI_TESTS_QUICK:-}" ] && networks="resnet_50 mobilenet_v3 bert_tiny"
densenet=$(echo " $networks " | grep -c ' densenet_121 ')
echo "1..$((45 + 2 * $(echo $networks | wc -w) + 2 * densenet))"

/usr/bin/python3 "$src/tests/onnx/make-small" "$tmp" 2>"$tmp/make.err"
ok "tests/onnx/make-small writes its models" [ $? -eq 0 -a -s "$tmp/small.onnx" -a -s "$tmp/decomposed.onnx" -a \
   -s "$tmp/batchnorm.onnx" -a -s "$tmp/legacy_bias.onnx" -a -s "$tmp/legacy_bias/output_0.pb" ]

# rows NETWORK FILE: the --list table's rows without the ID column, sorted
rows() {
   "$bin" --list "$1" 2>/dev/null | awk '/^ *[0-9]+  /{ $1 = ""; print }' | sort
}

# ---- the shipped networks' graphs: every row and the totals are the task file's ----
for net in $networks; do
   /usr/bin/python3 "$src/models/onnx/make-onnx" "$net" "$tmp/$net.onnx" --no-check -q 2>"$tmp/make.err"
   made=$?
   rows "$tmp/$net.onnx" >"$tmp/$net.onnx.rows"
   rows "$src/models/$net.task" >"$tmp/$net.task.rows"
   ok "$net: the ONNX graph imports to the task file's tasks, weights and FLOPs" sh -c \
      '[ "$1" -eq 0 ] && [ -s "$2" ] && cmp -s "$2" "$3"' _ "$made" "$tmp/$net.onnx.rows" "$tmp/$net.task.rows"
   ok "$net: the totals line is the task file's" [ "$("$bin" --list "$tmp/$net.onnx" 2>/dev/null | tail -n1)" = \
      "$("$bin" --list "$src/models/$net.task" | tail -n1)" ]
   if [ "$net" = densenet_121 ]; then
      "$bin" import "$tmp/$net.onnx" -o "$tmp/$net.task" 2>"$tmp/$net.err"
      ok "densenet_121: the BatchNorms no conv takes (after each Concat) are counted as Mul and Add, none left" \
         sh -c '[ "$(sed -n 1p "$1")" = "import: 431 nodes read (opset 13), 0 folded as constants (0 Constant nodes), 0 removed (Dropout, Identity), 59 BatchNorms folded into convs, 62 others as a Mul and an Add" ] &&
                ! grep -q "not a task" "$1"' _ "$tmp/$net.err"
      ok "densenet_121: each fuses with the Concat before it and the Relu after it" sh -c \
         '[ "$(sed -n "s/^    - {ops: \"\([^\"]*\)\".*/\1/p" "$1" | sort | uniq -c | tr -s " ")" = " 62 Concat, Mul, Add, Relu
 1 Flatten" ]' _ "$tmp/$net.task"
   fi
   [ "$net" = resnet_50 ] || rm -f "$tmp/$net.onnx"
done
ok "the global pool is named as the task files name it" grep -q 'adaptive_avg_pool2d  *1x2048x7x7 -> 1x1' "$tmp/resnet_50.onnx.rows"

run import "$tmp/resnet_50.onnx" -o "$tmp/resnet_50.task"
ok "import -o writes a task file" [ "$rc" -eq 0 -a -s "$tmp/resnet_50.task" ]
ok "import prints its summary on stderr" [ "$(sed -n 1p "$tmp/err")" = \
   "import: 175 nodes read (opset 13), 0 folded as constants (0 Constant nodes), 0 removed (Dropout, Identity), 53 BatchNorms folded into convs" ]
rows "$tmp/resnet_50.task" >"$tmp/written.rows"
ok "the written task file loads to the model's tasks" cmp -s "$tmp/written.rows" "$tmp/resnet_50.onnx.rows"
ok "a task is named after the nodes it occurs as" grep -q 'weight: 3, name: "layer1.0.conv2, layer1.1.conv2, layer1.2.conv2"}' \
   "$tmp/resnet_50.task"

# ---- the graph a task file carries ----
"$bin" import "$tmp/small.onnx" --input image=1x3x16x16 -o "$tmp/small.task" 2>/dev/null
ok "the imported task file carries the graph: 16 tensors, 7 kernels in order" sh -c \
   '[ "$(grep -c "^    - {name: " "$1")" -eq 16 ] && [ "$(grep -c "^    - {task: \|^    - {ops: " "$1")" -eq 7 ] &&
    grep -q "^    - {ops: \"Flatten\", name: \"flatten\", inputs: \[\"gap\"\], outputs: \[\"flat\"\]}" "$1"' _ "$tmp/small.task"
ok "a task's occurrence reads the op's inputs in order, the residual last" grep -q \
   '{task: 3, name: "block.conv2, block.conv2.bn, block.add, block.relu", inputs: \["block.conv1.relu", "block.conv2.folded_weight", "block.conv2.folded_bias", "pool"\], outputs: \["block.relu"\]}' "$tmp/small.task"
line=$(grep -n '{task: 4, name: "gap"' "$tmp/small.task" | cut -d: -f1)
# gap before the conv that writes what it reads
awk -v l="$line" 'NR == l - 1 { held = $0; next } { print } NR == l { print held }' "$tmp/small.task" >"$tmp/swapped.task"
run --list "$tmp/swapped.task"
ok "a node that reads before the write is refused where it stands" [ "$rc" -eq 1 -a "$err" = \
   "pruner-tui: $tmp/swapped.task:$((line - 1)):7: reads 'block.relu' before any node writes it" ]
sed 's/{task: 1, name: "pool", inputs: \["stem.relu"\]/{task: 1, name: "pool", inputs: ["image"]/' "$tmp/small.task" >"$tmp/elems.task"
run --list "$tmp/elems.task"
ok "an occurrence whose input has the wrong size is refused" [ "$rc" -eq 1 -a "$err" = \
   "pruner-tui: $tmp/elems.task:40:7: input 0 ('image') holds 768 elements; task 1's data holds 2048" ]
sed 's/{task: 1, name: "pool"/{ops: "MaxPool", name: "pool"/' "$tmp/small.task" >"$tmp/count.task"
run --list "$tmp/count.task"
nodes=$(($(grep -n '^  nodes:$' "$tmp/count.task" | cut -d: -f1) + 1))
ok "a task that occurs other than weight times is refused" [ "$rc" -eq 1 -a "$err" = \
   "pruner-tui: $tmp/count.task:$nodes:5: task 1 occurs 0 times in the graph; its weight is 1" ]
sed '/{task: 4, name: "gap"/d' "$tmp/small.task" >"$tmp/missing.task"
run --list "$tmp/missing.task"
ok "a tensor that no node writes is refused where it is read" [ "$rc" -eq 1 -a "$err" = \
   "pruner-tui: $tmp/missing.task:43:7: reads 'gap' before any node writes it" ]

# ---- the summary of a small model ----
run --list "$tmp/small.onnx" --input image=2x3x16x16
ok "--list of a model exits 0" [ "$rc" -eq 0 ]
ok "--list counts what the import read and folded" [ "$(sed -n 1p "$tmp/out")" = \
   "import: 14 nodes read (opset 13), 0 folded as constants (0 Constant nodes), 0 removed (Dropout, Identity), 3 BatchNorms folded into convs" ]
ok "--list counts the groups" [ "$(sed -n 3p "$tmp/out")" = \
   "import: 11 nodes fused into 7 groups: 6 task occurrences, 1 elementwise or layout groups (not tasks), 0 without a task op" ]
ok "the residual add and its relu fuse into the second conv" grep -q 'conv2d .*2x8x8x8 -> 8x8x8, 3x3 s1 p1  *bias+add+relu' "$tmp/out"
ok "the batch is the input's" grep -q '^small ([^)]*): 6 tasks, batch 2$' "$tmp/out"

run --list "$tmp/decomposed.onnx"
ok "LayerNorm, GELU and hardswish are recognised, the Dropout removed" [ "$(sed -n 1,2p "$tmp/out")" = \
"import: 21 nodes read (opset 13), 0 folded as constants (0 Constant nodes), 1 removed (Dropout, Identity), 0 BatchNorms folded into convs
import: patterns recognised: 1 LayerNorm, 1 GELU, 1 hardswish, 0 hardsigmoid (18 nodes)" ]
ok "the GELU and hardswish fuse into the matrix product as its epilogue" grep -q 'dense  *m16 n32 k16  *bias+gelu+hardswish' "$tmp/out"

# ---- the passes keep the values ----
mkdir "$tmp/d1" "$tmp/d2"
"$bin" run "$tmp/decomposed.onnx" --output-data "$tmp/d1" >/dev/null 2>&1 &&
   run run "$tmp/decomposed.onnx" --simplify --test-data "$tmp/d1" --rtol 1e-4 --atol 1e-6
ok "the recognised patterns compute the decomposed ones" [ "$rc" -eq 0 ]
"$bin" run "$tmp/small.onnx" --input image=2x3x16x16 --output-data "$tmp/d2" >/dev/null 2>&1 &&
   run run "$tmp/small.onnx" --simplify --test-data "$tmp/d2" --rtol 1e-4 --atol 1e-6
ok "the folded BatchNorms compute the unfolded ones" [ "$rc" -eq 0 ]

# ---- a BatchNormalization that no conv takes: SimplifyInference's x * scale + shift ----
run --list "$tmp/batchnorm.onnx"
ok "BatchNorms after a Concat and after a Flatten become a Mul and an Add each, counted" [ "$rc" -eq 0 -a \
   "$(sed -n 1p "$tmp/out")" = "import: 8 nodes read (opset 13), 0 folded as constants (0 Constant nodes), 0 removed (Dropout, Identity), 0 BatchNorms folded into convs, 2 others as a Mul and an Add" ]
"$bin" import "$tmp/batchnorm.onnx" -o "$tmp/batchnorm.task" 2>"$tmp/batchnorm.err"
ok "the Mul and the Add fuse with the Concat and the Relu, and with the Flatten, reading per-channel constants" sh -c \
   'grep -qxF "    - {ops: \"Concat, Mul, Add, Relu\", name: \"concat, bn, relu\", inputs: [\"conv.out\", \"x\", \"bn.out.bn_scale\", \"bn.out.bn_shift\"], outputs: [\"relu\"]}" "$1" &&
    grep -qxF "    - {ops: \"Flatten, Mul, Add\", name: \"flatten, bn2\", inputs: [\"gap\", \"y.bn_scale\", \"y.bn_shift\"], outputs: [\"y\"]}" "$1" &&
    grep -qxF "    - {name: \"bn.out.bn_scale\", kind: weight, shape: [7, 1, 1]}" "$1" &&
    ! grep -q "not a task" "$2"' _ "$tmp/batchnorm.task" "$tmp/batchnorm.err"
mkdir "$tmp/d3"
"$bin" run "$tmp/batchnorm.onnx" --output-data "$tmp/d3" >/dev/null 2>&1 &&
   run run "$tmp/batchnorm.onnx" --simplify --test-data "$tmp/d3" --rtol 1e-5 --atol 1e-6
ok "the Mul and the Add compute the BatchNorms" [ "$rc" -eq 0 ]

# ---- a per-channel bias written before opset 7: Add with broadcast 1 and axis 1 ----
"$bin" import "$tmp/legacy_bias.onnx" -o "$tmp/legacy_bias.task" 2>"$tmp/legacy_bias.err"
ok "an opset-6 Add of a [C] bias along axis 1 is the conv's bias epilogue" sh -c \
   '[ "$(grep -c "^  - {op: " "$1")" -eq 1 ] &&
    grep -qxF "  - {op: conv2d, input: [3, 8, 8], filters: 4, kernel: 3, stride: 1, pad: 1, epilogue: [bias, relu], weight: 1, name: \"conv\"}" "$1" &&
    grep -qxF "    - {task: 0, name: \"conv, bias, relu\", inputs: [\"x\", \"w\", \"b\"], outputs: [\"y\"]}" "$1"' _ "$tmp/legacy_bias.task"
run run "$tmp/legacy_bias.onnx" --test-data "$tmp/legacy_bias" --rtol 1e-5 --atol 1e-5
ok "the opset-6 model runs to numpy's conv + bias + relu" [ "$rc" -eq 0 ]

# ---- a chain of 100000 nodes and a residual around it: the conv's post-dominator is
# the Add 100001 nodes on, and no walk of the import recurses or goes quadratic ----
/usr/bin/python3 - "$tmp/chain.onnx" <<'EOF' 2>"$tmp/make.err"
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

n = 100000
nodes = [helper.make_node("Conv", ["x", "w"], ["conv"], name="conv")]
for i in range(n):
    nodes.append(helper.make_node("Relu", ["conv" if i == 0 else "r%d" % (i - 1)], ["r%d" % i], name="relu%d" % i))
nodes.append(helper.make_node("Add", ["r%d" % (n - 1), "conv"], ["y"], name="add"))
graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 4, 4])],
                          [numpy_helper.from_array(np.full((2, 2, 1, 1), 0.5, np.float32), "w")])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
EOF
timeout 60 "$bin" --list "$tmp/chain.onnx" >"$tmp/out" 2>"$tmp/err"
rc=$?
ok "a Conv, a chain of 100000 Relus and a residual Add import within a minute" [ "$rc" -eq 0 ]
# the conv's paths to the Add hold more than Relay's 256 nodes: it stays alone; the Relus
# and the Add fill groups of 256 (100001 = 390 * 256 + 161)
ok "the conv stays alone and the rest fuses into 391 groups of at most 256 nodes" sh -c \
   '[ "$(sed -n 1,5p "$1")" = "import: 100002 nodes read (opset 13), 0 folded as constants (0 Constant nodes), 0 removed (Dropout, Identity), 0 BatchNorms folded into convs
import: patterns recognised: 0 LayerNorm, 0 GELU, 0 hardswish, 0 hardsigmoid (0 nodes)
import: 100002 nodes fused into 392 groups: 1 task occurrences, 391 elementwise or layout groups (not tasks), 0 without a task op
import: 1 tasks, weights summing to 1; 4 weight elements" ] && [ "$(awk "/^ *[0-9]+  /{ \$1 = \"\"; print }" "$1")" = " conv2d 1x2x4x4 -> 2x4x4, 1x1 s1 p0 - 1 128 128" ]' _ "$tmp/out"

# ---- PyTorch's own exporters (tests/data/torch: torchvision's models, the graphs kept
# without their weights, filled here by tests/onnx/fill-weights) ----
# the task rows of --list without their ids, sorted, and the file's total
rows() { "$bin" --list "$1" | tail -n +4 | awk '{ $1 = ""; print }' | sort; }
for m in resnet50-torchscript mobilenet_v2-torchscript resnet50-dynamo; do
   /usr/bin/python3 "$src/tests/onnx/fill-weights" "$src/tests/data/torch/$m.onnx" "$tmp/$m" 2>"$tmp/fill.err" &&
      "$bin" import "$tmp/$m/$m.onnx" -o "$tmp/$m.task" >"$tmp/$m.import" 2>&1
   ok "$m.onnx: filled and imported" [ $? -eq 0 ]
done
rows "$tmp/resnet50-torchscript.task" >"$tmp/a"
rows "$src/models/resnet_50.task" >"$tmp/b"
ok "torch.onnx.export's ResNet-50 gives models/resnet_50.task's 27 tasks, epilogues and weights" cmp -s "$tmp/a" "$tmp/b"
rows "$tmp/mobilenet_v2-torchscript.task" >"$tmp/a"
rows "$src/models/mobilenet_v2.task" >"$tmp/b"
ok "torch.onnx.export's MobileNet-V2 gives models/mobilenet_v2.task's 32 tasks" cmp -s "$tmp/a" "$tmp/b"
ok "the dynamo exporter's ReduceMean over H and W is recognised as the global pool" grep -qxF \
   "import: patterns recognised: 0 LayerNorm, 0 GELU, 0 hardswish, 0 hardsigmoid, 1 global average pool (a ReduceMean over H and W) (1 nodes)" \
   "$tmp/resnet50-dynamo.import"
ok "... so that all of its 56 occurrences are tasks, as the TorchScript export's" grep -qxF \
   "import: 122 nodes fused into 57 groups: 56 task occurrences, 1 elementwise or layout groups (not tasks), 0 without a task op" \
   "$tmp/resnet50-dynamo.import"
ok "... among them the pool" sh -c "'$bin' --list '$tmp/resnet50-dynamo.task' | grep -q '^ 25  adaptive_avg_pool2d  *1x2048x7x7 -> 1x1 '"
rm -rf "$tmp/resnet50-torchscript" "$tmp/mobilenet_v2-torchscript" "$tmp/resnet50-dynamo"

# ---- an open dimension ----
run --list "$tmp/small.onnx"
ok "an open dimension without --input is one error naming the input and the flag" [ "$rc" -eq 1 -a "$err" = \
   "pruner-tui: $tmp/small.onnx: input 'image' has open dimensions (Nx3x16x16); fix them with --input image=DIMS, e.g. --input image=1x3x16x16" ]
run --list "$tmp/small.onnx" --input picture=1x3x16x16
ok "--input of a name the model lacks lists its inputs" [ "$rc" -eq 1 -a "$err" = \
   "pruner-tui: --input picture: the model has no input of that name (its inputs: image)" ]
run --list "$tmp/small.onnx" --input image=1x3x17x16
ok "--input against a fixed dimension says which" [ "$rc" -eq 1 -a "$err" = \
   "pruner-tui: --input image: dimension 2 is 17; the model fixes it at 16 (Nx3x16x16)" ]
run --list "$tmp/small.onnx" --input image=1x3xAx16
ok "a malformed --input is a usage error" [ "$rc" -eq 2 -a "$(echo "$err" | head -n1)" = \
   "pruner-tui: --input 'image=1x3xAx16': dimension 3 is not a positive integer; expected DIMS like 1x3x224x224" ]

# ---- tune, resume, replay ----
"$bin" "$tmp/small.onnx" --input image=1x3x16x16 --batch --trials 24 --device sim:h100_sxm --no-compile \
   --session "$tmp/s.jsonl" >"$tmp/batch" 2>"$tmp/batch.err"
ok "--batch tunes a model on the simulator" [ $? -eq 0 ]
ok "the session keeps the model and its input dimensions" sh -c \
   'head -n1 "$1" | grep -q "\"network_file\":\"$2/small.onnx\",\"network_inputs\":\"image=1x3x16x16\""' _ "$tmp/s.jsonl" "$tmp"
"$bin" --resume "$tmp/s.jsonl" --trials 36 --no-compile >"$tmp/resume" 2>"$tmp/resume.err"
ok "--resume goes on without --input" [ $? -eq 0 ]
ok "the resumed session reaches its new budget" grep -q 'Trials: 36' "$tmp/resume"
"$bin" --replay "$tmp/s.jsonl" --speed 0 >"$tmp/replay" 2>&1 </dev/null
ok "--replay plays the session back" [ $? -eq 0 ]
