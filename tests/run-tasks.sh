#!/bin/sh
# `run --tasks`: a model run as the import's kernels, each task occurrence on its op's C
# reference and the other groups on the graph's ops, gives the graph's own outputs
# (the graph reference that ONNX's backend tests check); the memory plan of the
# activations meets the liveness lower bound; `run --session` runs the tasks on the
# kernels of a tuning session's best states (the CPU executor), an unmeasured task on
# the default schedule, with the same outputs; as TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

# three of the shipped networks at reduced sizes (the C references are plain loops):
# convolutions, hardswish and squeeze-excitation, a transformer; tests/ort-oracle.sh
# runs all of them as their kernels against ONNX Runtime
networks="resnet_18:--image-size=64 mobilenet_v3:--image-size=64 bert_tiny:--seq-len=16"
echo "1..$((19 + $(echo $networks | wc -w)))"

/usr/bin/python3 "$src/tests/onnx/make-ops" "$tmp" 2>"$tmp/make.err" &&
   /usr/bin/python3 "$src/tests/onnx/make-small" "$tmp" 2>>"$tmp/make.err"
ok "tests/onnx/make-ops and make-small write their models" [ $? -eq 0 -a -s "$tmp/unet.onnx" -a -s "$tmp/small.onnx" ]

# same MODEL DIR [FLAGS]: the kernels' outputs equal the graph's on the same inputs
same() {
   model=$1 dir=$2
   shift 2
   mkdir -p "$dir"
   "$bin" run "$model" "$@" --output-data "$dir" >/dev/null 2>"$dir.err" &&
      "$bin" run "$model" --tasks "$@" --test-data "$dir" --rtol 1e-3 --atol 1e-5 >"$dir.out" 2>>"$dir.err"
}

same "$tmp/unet.onnx" "$tmp/unet"
ok "a U-Net step run as its 7 kernels equals the graph" sh -c '[ "$1" -eq 0 ] &&
   grep -qx "plan: 7 kernels: 5 occurrences of 5 tasks (op C references), 2 groups of graph ops" "$2" &&
   grep -q "^output y: 1x4x32x32 float32, .*: ok$" "$2"' _ $? "$tmp/unet.out"
# the activations, each unit's output in order: r1 8 KiB (read last by the concat, unit
# 4), p1 2 KiB (1-2), r2 4 KiB (2-3), ur 8 KiB (3-4), cat 16 KiB (4-5), h 4 KiB (5-6), y
# 16 KiB (an output: to the end); at the concat r1 + ur + cat = 32 KiB are live, the most
# at any unit; 58 KiB in all
ok "its memory plan meets the liveness bound worked out by hand" grep -qxF \
   "memory: 7 activations in one arena of 32.0 KiB (1.000x the liveness lower bound, 32.0 KiB; 58.0 KiB without reuse)" \
   "$tmp/unet.out"
"$bin" run "$tmp/unet.onnx" --tasks --include-simple-tasks --test-data "$tmp/unet" --rtol 1e-3 --atol 1e-5 >"$tmp/unet2.out" 2>&1
ok "with --include-simple-tasks every kernel is a task, and the outputs stay the graph's" sh -c '[ "$1" -eq 0 ] &&
   grep -qx "plan: 7 kernels: 7 occurrences of 7 tasks (op C references), 0 groups of graph ops" "$2"' _ $? "$tmp/unet2.out"
mkdir "$tmp/se"
"$bin" run "$tmp/se.onnx" --output-data "$tmp/se" >/dev/null 2>&1 &&
   "$bin" run "$tmp/se.onnx" --tasks --include-simple-tasks --test-data "$tmp/se" --rtol 1e-3 --atol 1e-5 >"$tmp/se.out" 2>&1
ok "a squeeze-excitation block's channel_mul, add and mul_const task computes the graph's" sh -c '[ "$1" -eq 0 ] &&
   grep -qx "plan: 6 kernels: 6 occurrences of 6 tasks (op C references), 0 groups of graph ops" "$2"' _ $? "$tmp/se.out"
same "$tmp/small.onnx" "$tmp/small" --input image=2x3x16x16
ok "a batch of 2 through the residual net, --input fixing the open batch" [ $? -eq 0 ]
same "$tmp/batchnorm.onnx" "$tmp/bn"
ok "BatchNorms after a Concat and a Flatten, run as graph ops, and the convs as tasks" [ $? -eq 0 ]
same "$tmp/legacy_bias.onnx" "$tmp/legacy"
ok "an opset-6 conv with its broadcast bias" [ $? -eq 0 ]

run run "$tmp/unet.onnx" --include-simple-tasks
ok "run refuses --include-simple-tasks without --tasks" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = \
   "pruner-tui run: --include-simple-tasks shapes the tasks that --tasks runs: give --tasks too" ]

# ---- the tuned states ----
"$bin" "$tmp/unet.onnx" --batch --trials 30 --no-compile --session "$tmp/unet.jsonl" >/dev/null 2>&1
run run "$tmp/unet.onnx" --session "$tmp/unet.jsonl" --test-data "$tmp/unet" --rtol 1e-4 --atol 1e-5
ok "the U-Net on its session's best states, on the CPU executor, equals the graph" sh -c '[ "$1" -eq 0 ] &&
   grep -qx "plan: 7 kernels: 5 occurrences of 5 tasks (tuned states on the CPU executor), 2 groups of graph ops" "$2" &&
   grep -qx "states: 5 of 5 tasks from $3 (each its best measure on h100_sxm, simulated)" "$2" &&
   grep -q "^sum of the task bests, by weight: [0-9.]* ms$" "$2"' _ "$rc" "$tmp/out" "$tmp/unet.jsonl"
# the same session without task 4's measures
grep -v '"event":"measure","round":[0-9]*,"t":[0-9.e-]*,"task":4,' "$tmp/unet.jsonl" >"$tmp/unet-4.jsonl"
run run "$tmp/unet.onnx" --session "$tmp/unet-4.jsonl" --test-data "$tmp/unet" --rtol 1e-4 --atol 1e-5
ok "a task the session never measured runs on the default schedule, named" sh -c '[ "$1" -eq 0 ] &&
   grep -qx "states: 4 of 5 tasks from $3 (each its best measure on h100_sxm, simulated); on the default schedule, untuned: task 4" "$2" &&
   grep -q "^sum of the task bests, by weight: [0-9.]* ms (the untuned tasks not counted)$" "$2"' _ "$rc" "$tmp/out" "$tmp/unet-4.jsonl"
run run "$tmp/se.onnx" --session "$tmp/unet.jsonl"
ok "another model's session is refused, naming the first task it lacks" [ "$rc" -eq 1 -a "$(head -n1 "$tmp/err")" = \
   "pruner-tui run: $tmp/unet.jsonl: task 0 of $tmp/se.onnx, conv2d_n2_c8_h6_w6_k8_g1_r3x3_s1x1_p1,1,1,1_d1x1+bias+relu, is not among the session's tasks" ]
run run "$tmp/unet.onnx" --session "$tmp/missing.jsonl"
ok "a missing session is named" [ "$rc" -eq 1 -a "$(head -n1 "$tmp/err")" = "pruner-tui run: $tmp/missing.jsonl: No such file or directory" ]
/usr/bin/python3 "$src/models/onnx/make-onnx" bert_tiny "$tmp/bert.onnx" --seq-len 16 --no-check -q 2>"$tmp/make.err"
mkdir "$tmp/bert"
"$bin" run "$tmp/bert.onnx" --output-data "$tmp/bert" >/dev/null 2>&1
"$bin" "$tmp/bert.onnx" --batch --trials 40 --no-compile --session "$tmp/bert.jsonl" >/dev/null 2>&1
run run "$tmp/bert.onnx" --session "$tmp/bert.jsonl" --test-data "$tmp/bert" --rtol 1e-3 --atol 1e-5
ok "bert_tiny on its tuned states (dense, batch_matmul, softmax, layer_norm kernels) equals the graph" sh -c \
   '[ "$1" -eq 0 ] && grep -qx "states: 8 of 8 tasks from $3 (each its best measure on h100_sxm, simulated)" "$2"' \
   _ "$rc" "$tmp/out" "$tmp/bert.jsonl"
# the same kernels compiled to native code (the default) and on the interpreter
mkdir "$tmp/bert-native" "$tmp/bert-interp"
run run "$tmp/bert.onnx" --session "$tmp/bert.jsonl" --input-data "$tmp/bert" --output-data "$tmp/bert-native"
ok "bert_tiny's 8 tasks compiled to native code" grep -q "^kernels: 8 of 8 tasks compiled to native code in [0-9.]* s$" "$tmp/out"
run run "$tmp/bert.onnx" --session "$tmp/bert.jsonl" --input-data "$tmp/bert" --output-data "$tmp/bert-interp" --interpret
ok "--interpret runs them on the interpreter" grep -qx "kernels: on the interpreter (--interpret)" "$tmp/out"
ok "... and gives the compiled kernels' output byte for byte" cmp -s "$tmp/bert-native/output_0.pb" "$tmp/bert-interp/output_0.pb"
oldcc=${CC-}
CC=/nonexistent/cc
export CC
run run "$tmp/bert.onnx" --session "$tmp/bert.jsonl" --test-data "$tmp/bert" --rtol 1e-3 --atol 1e-5
if [ -n "$oldcc" ]; then CC=$oldcc; else unset CC; fi
ok "without a C compiler the interpreter runs them, and says why" sh -c '[ "$1" -eq 0 ] &&
   grep -q "^kernels: on the interpreter: native code: the C compiler (/nonexistent/cc) failed" "$2"' _ "$rc" "$tmp/out"
run run "$tmp/unet.onnx" --session "$tmp/unet.jsonl" --simplify
ok "--session with --simplify is refused" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = \
   "pruner-tui run: --session runs the imported network, which is simplified already: leave out --simplify" ]

for spec in $networks; do
   net=${spec%%:*}
   /usr/bin/python3 "$src/models/onnx/make-onnx" "$net" "$tmp/$net.onnx" ${spec#*:} --no-check -q 2>"$tmp/make.err"
   same "$tmp/$net.onnx" "$tmp/$net"
   rc=$?
   ok "$net (${spec#*:}) run as its kernels equals the graph: $(grep -h '^memory' "$tmp/$net.out" 2>/dev/null | sed 's/ in one arena of.*(\([0-9.]*x\) the liveness.*/, \1 the liveness lower bound/')" \
      [ "$rc" -eq 0 ]
   rm -rf "$tmp/$net.onnx" "$tmp/$net"
done

[ "$failed" -eq 0 ]
