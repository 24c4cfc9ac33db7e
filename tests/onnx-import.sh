#!/bin/sh
# ONNX import: the ONNX graphs of resnet_50, mobilenet_v2 and bert_base that
# models/onnx/make-onnx writes import to the tasks, weights and FLOPs of the shipped task
# files; `import` writes a task file that loads back to the same tasks; the import's
# summary counts what it read, folded, recognised and fused; the passes keep the graph's
# values (run --simplify); a model with an open dimension needs --input, names it, and
# then tunes with --batch, resumes without the flag (the session keeps it) and replays;
# as TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

echo "1..34"

/usr/bin/python3 "$src/tests/onnx/make-small" "$tmp" 2>"$tmp/make.err"
ok "tests/onnx/make-small writes its models" [ $? -eq 0 -a -s "$tmp/small.onnx" -a -s "$tmp/decomposed.onnx" ]

# rows NETWORK FILE: the --list table's rows without the ID column, sorted
rows() {
   "$bin" --list "$1" 2>/dev/null | awk '/^ *[0-9]+  /{ $1 = ""; print }' | sort
}

# ---- the shipped networks' graphs ----
for net in resnet_50 mobilenet_v2 bert_base; do
   /usr/bin/python3 "$src/models/onnx/make-onnx" "$net" "$tmp/$net.onnx" --no-check >/dev/null 2>"$tmp/make.err"
   ok "make-onnx writes $net" [ $? -eq 0 -a -s "$tmp/$net.onnx" ]
   rows "$tmp/$net.onnx" >"$tmp/$net.onnx.rows"
   rows "$src/models/$net.task" >"$tmp/$net.task.rows"
   if [ "$net" = bert_base ]; then
      ok "$net: the imported tasks, weights and FLOPs are the task file's" cmp -s "$tmp/$net.onnx.rows" "$tmp/$net.task.rows"
   else
      # ONNX's GlobalAveragePool is global_avg_pool2d, the task file's PyTorch pool an
      # adaptive_avg_pool2d to 1x1: the same work; every other row is equal
      grep -v avg_pool2d "$tmp/$net.onnx.rows" >"$tmp/a"
      grep -v avg_pool2d "$tmp/$net.task.rows" >"$tmp/b"
      ok "$net: the imported tasks, weights and FLOPs are the task file's but for the pool" cmp -s "$tmp/a" "$tmp/b"
      ok "$net: the pool is the same work, named as ONNX names it" sh -c \
         'grep -q "global_avg_pool2d" "$1" && grep -q "adaptive_avg_pool2d" "$2" &&
          [ "$(grep avg_pool2d "$1" | awk "{print \$(NF-2), \$(NF-1), \$NF}")" = \
            "$(grep avg_pool2d "$2" | awk "{print \$(NF-2), \$(NF-1), \$NF}")" ]' _ "$tmp/$net.onnx.rows" "$tmp/$net.task.rows"
   fi
   ok "$net: the totals line is the task file's" [ "$("$bin" --list "$tmp/$net.onnx" 2>/dev/null | tail -n1)" = \
      "$("$bin" --list "$src/models/$net.task" | tail -n1)" ]
done

run import "$tmp/resnet_50.onnx" -o "$tmp/resnet_50.task"
ok "import -o writes a task file" [ "$rc" -eq 0 -a -s "$tmp/resnet_50.task" ]
ok "import prints its summary on stderr" [ "$(sed -n 1p "$tmp/err")" = \
   "import: 175 nodes read (opset 13), 0 folded as constants (0 Constant nodes), 0 removed (Dropout, Identity), 53 BatchNorms folded into convs" ]
rows "$tmp/resnet_50.task" >"$tmp/written.rows"
ok "the written task file loads to the model's tasks" cmp -s "$tmp/written.rows" "$tmp/resnet_50.onnx.rows"
ok "a task is named after the nodes it occurs as" grep -q 'weight: 3, name: "layer1.0.conv2, layer1.1.conv2, layer1.2.conv2"}' \
   "$tmp/resnet_50.task"

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
