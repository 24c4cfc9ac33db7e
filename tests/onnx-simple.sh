#!/bin/sh
# The op library's newer tasks on import: a ConvTranspose is a conv2d_transpose task
# with its bias and activation; with --include-simple-tasks the groups without a complex
# op become tasks of their own (a Concat, a Resize and the elementwise stages that
# follow each, a squeeze-excitation's channel scale), reshape-only groups are views and
# a layout op stays out with its reason; the tasks verify and compile (check), tune with
# --batch, and the session keeps the flag for --resume; an attention's Div by a constant
# fuses into its batch_matmul; as TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

echo "1..19"

/usr/bin/python3 "$src/tests/onnx/make-ops" "$tmp" 2>"$tmp/make.err" &&
   /usr/bin/python3 "$src/tests/onnx/make-small" "$tmp" 2>>"$tmp/make.err"
ok "tests/onnx/make-ops and make-small write their models" [ $? -eq 0 -a -s "$tmp/unet.onnx" -a -s "$tmp/se.onnx" -a \
   -s "$tmp/layout.onnx" ]

# rows FILE: the task rows of a task file, as import writes them
rows() {
   sed -n 's/^  - \({op: .*\)$/\1/p' "$1"
}

# ---- a U-Net step: conv2d_transpose; concat and resize2d as simple tasks ----
run import "$tmp/unet.onnx" -o "$tmp/unet.task"
ok "ConvTranspose + bias + Relu is a conv2d_transpose task" sh -c '[ "$1" -eq 0 ] && grep -qxF "  - {op: conv2d_transpose, input: [16, 8, 8], filters: 8, kernel: 2, stride: 2, pad: 0, epilogue: [bias, relu], weight: 1, name: \"dec.up\"}" "$2"' \
   _ "$rc" "$tmp/unet.task"
ok "without --include-simple-tasks the Concat and the Resize are not tasks" \
   grep -qxF "import: 11 nodes fused into 7 groups: 5 task occurrences, 2 elementwise or layout groups (not tasks), 0 without a task op" "$tmp/err"

run import "$tmp/unet.onnx" --include-simple-tasks -o "$tmp/unet-simple.task"
ok "with it they are" sh -c '[ "$1" -eq 0 ] &&
   grep -qxF "import: simple tasks: 2 occurrences of concat, resize2d and elementwise tasks; 0 views (reshape only, no kernel)" "$2" &&
   grep -qxF "import: 7 tasks, weights summing to 7; 1984 weight elements" "$2"' _ "$rc" "$tmp/err"
rows "$tmp/unet-simple.task" >"$tmp/unet.rows"
ok "the Concat of the skip connection is a concat task" \
   grep -qxF '{op: concat, inputs: [[8, 16, 16], [8, 16, 16]], axis: 1, weight: 1, name: "dec.cat"}' "$tmp/unet.rows"
ok "the Resize with the Sigmoid after it is a resize2d task with a sigmoid epilogue" \
   grep -qxF '{op: resize2d, input: [4, 16, 16], output: 32, mode: nearest, coord: asymmetric, nearest: floor, epilogue: [sigmoid], weight: 1, name: "head.resize"}' \
   "$tmp/unet.rows"
ok "the graph runs the seven tasks in order, the concat reading the up-sampled and the skip tensors" sh -c \
   '[ "$(grep -c "^    - {task: " "$1")" -eq 7 ] &&
    grep -qF "{task: 4, name: \"dec.cat\", inputs: [\"ur\", \"r1\"], outputs: [\"cat\"]}" "$1" &&
    grep -qF "{task: 6, name: \"head.resize, head.sigmoid\", inputs: [\"h\"], outputs: [\"y\"]}" "$1"' _ "$tmp/unet-simple.task"
run check "$tmp/unet-simple.task" --samples 2 --jobs 2
ok "every task of it verifies against its C reference and compiles" sh -c '[ "$1" -eq 0 ] &&
   tail -n1 "$2" | grep -qE "^checked 14 states: 14 verified, (14|0) compiled, 0 failed$"' _ "$rc" "$tmp/out"

# ---- a squeeze-excitation block: channel_mul, add and mul_const ----
run import "$tmp/se.onnx" --include-simple-tasks -o "$tmp/se.task"
ok "the SE scale, the branch add and the Mul by 0.5 are one elementwise task" sh -c '[ "$1" -eq 0 ] &&
   grep -qxF "  - {op: elementwise, input: [8, 6, 6], epilogue: [channel_mul, add, {mul_const: 0.5}], weight: 1, name: \"se.scale\"}" "$2" &&
   grep -qF "{task: 5, name: \"se.scale, merge, halve\", inputs: [\"a\", \"s4\", \"side\"], outputs: [\"y\"]}" "$2"' \
   _ "$rc" "$tmp/se.task"
ok "and the batch of 2 is the file's" grep -qx "batch: 2" "$tmp/se.task"
run check "$tmp/se.task" --tasks 5 --samples 3
ok "which verifies and compiles" sh -c '[ "$1" -eq 0 ] && tail -n1 "$2" | grep -qE "^checked 3 states: 3 verified, (3|0) compiled, 0 failed$"' \
   _ "$rc" "$tmp/out"

# ---- layout ops: views, and the reason an op is no task ----
run import "$tmp/layout.onnx" --include-simple-tasks -o "$tmp/layout.task"
ok "a layout op stays out of the tasks, with the reason" sh -c '[ "$1" -eq 0 ] &&
   grep -q "^import: not a task: node .* (Transpose): the op library has no task op for Transpose (a layout change)" "$2"' \
   _ "$rc" "$tmp/err"
run import "$tmp/small.onnx" --input image=2x3x16x16 --include-simple-tasks -o "$tmp/small.task"
ok "a Flatten alone is a view, not a task" sh -c '[ "$1" -eq 0 ] &&
   grep -qxF "import: simple tasks: 0 occurrences of concat, resize2d and elementwise tasks; 1 view (reshape only, no kernel)" "$2"' \
   _ "$rc" "$tmp/err"

# ---- tuning: the flag is part of the model's import, kept by the session ----
run "$tmp/unet.onnx" --include-simple-tasks --batch --trials 24 --no-compile --session "$tmp/unet.jsonl"
ok "--batch tunes the seven tasks" sh -c '[ "$1" -eq 0 ] && grep -q "^Estimated total latency: .* Trials: 24 " "$2"' _ "$rc" "$tmp/out"
ok "the session keeps --include-simple-tasks with the model" grep -q '"network_inputs":"include-simple-tasks"' "$tmp/unet.jsonl"
run --resume "$tmp/unet.jsonl" --trials 32 --no-compile
ok "--resume needs it no more, and goes on to the new budget" sh -c '[ "$1" -eq 0 ] &&
   [ "$(sed -n "s/^Estimated total latency: .* Trials: \([0-9]*\) .*/\1/p" "$2" | tail -n1)" -ge 32 ]' _ "$rc" "$tmp/out"
run --list "$tmp/unet.onnx" --include-simple-tasks
ok "--list takes it too" sh -c '[ "$1" -eq 0 ] && [ "$(grep -cE "^ +[0-9]+  (concat|resize2d) " "$2")" -eq 2 ]' _ "$rc" "$tmp/out"

# ---- an attention's scale ----
/usr/bin/python3 "$src/models/onnx/make-onnx" bert_tiny "$tmp/bert.onnx" --attention-scale --no-check -q
run --list "$tmp/bert.onnx"
ok "Q.K^T / 8 is a batch_matmul task with a div_const(8) epilogue" sh -c '[ "$1" -eq 0 ] &&
   grep -qE "^ +[0-9]+  batch_matmul +b2 m128 n128 k64 +div_const\(8\) +2 " "$2"' _ "$rc" "$tmp/out"
run import "$tmp/bert.onnx" -o "$tmp/bert.task"
ok "written as {div_const: 8}, and the file loads back" sh -c '[ "$1" -eq 0 ] &&
   grep -q "epilogue: \[{div_const: 8}\]" "$2" && "$3" --list "$2" >/dev/null' _ "$rc" "$tmp/bert.task" "$bin"

[ "$failed" -eq 0 ]
