#!/bin/sh
# pruner-tui check --precision: the Tensor-Core states of every precision of an odd-shape
# file (extents that are not multiples of the fragments, conv2d with stride, padding and
# dilation, a grouped conv2d that has none) verify within their rounding bound and
# compile where NVRTC is present, with a row per task and precision and a summary per
# precision; a subset of the shipped networks' tasks does too (on the CPU only, to stay
# quick); and a bad --precision is refused. As TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

echo "1..27"

run check "$src/tests/data/tc-odd.task" --precision fp16,bf16,tf32 --samples 1 --jobs 2
last=$(echo "$out" | tail -n 1)
ok "check passes every Tensor-Core state of the odd shapes ($last)" sh -c '[ "$1" -eq 0 ] && echo "$2" | grep -qE "^checked 15 states: 15 verified, (15|0) compiled, 0 failed$"' _ "$rc" "$last"
ok "a row per task and precision: 5 tasks in 3 precisions" [ "$(echo "$out" | grep -cE '^ +[0-9]+ +(conv2d|dense|batch_matmul) +(fp16|bf16|tf32) ')" -eq 15 ]
for p in fp16 bf16 tf32; do
   ok "the $p summary line" sh -c 'echo "$1" | grep -qE "^$2: 5 tasks, 5 states, 0 failed; the largest error against its bound: [0-9.e+-]+ of the RMS, bound [0-9.e+-]+ \(task [0-4]\); error over predicted [0-9.]+ to [0-9.]+$"' _ "$out" "$p"
done
ok "the grouped conv2d has no Tensor-Core sketch" sh -c 'echo "$1" | grep -qx "no tensor-core sketch (not a matrix multiply of two staged operands): task 5"' _ "$out"
# every largest error lies below its bound
ok "each row's largest error is within its bound" sh -c 'echo "$1" | awk "\$3 ~ /^(fp16|bf16|tf32)\$/ { if (\$9 + 0 > \$11 + 0 || \$9 + 0 == 0) bad++ } END { exit bad > 0 }"' _ "$out"
# and within a factor 2 of the error predicted for its state
ok "each row's largest error is within a factor 2 of its prediction" sh -c 'echo "$1" | awk "\$3 ~ /^(fp16|bf16|tf32)\$/ { n++; if (\$9 + 0 < \$10 / 2 || \$9 + 0 > 2 * \$10) bad++ } END { exit bad > 0 || n != 15 }"' _ "$out"

# the shipped networks: a stem conv 7x7/2 with padding 3, 3x3/2 convs down to 7x7 and
# the classifier of ResNet-50; BERT's dense and batch_matmul tasks
export PRUNER_TUI_NVRTC=/nonexistent/libnvrtc.so
run check "$src/models/resnet_50.task" --tasks 0,20,26 --precision fp16,bf16,tf32 --samples 1 --blocks 1 --jobs 2
last=$(echo "$out" | tail -n 1)
ok "ResNet-50's Tensor-Core states verify ($last)" sh -c '[ "$1" -eq 0 ] && [ "$2" = "checked 9 states: 9 verified, 0 compiled, 0 failed" ]' _ "$rc" "$last"
run check "$src/models/bert_tiny.task" --tasks 2,6 --precision all --samples 1 --blocks 1 --jobs 2
last=$(echo "$out" | tail -n 1)
ok "BERT's dense and batch_matmul verify in every precision ($last)" sh -c '[ "$1" -eq 0 ] && [ "$2" = "checked 8 states: 8 verified, 0 compiled, 0 failed" ]' _ "$rc" "$last"
unset PRUNER_TUI_NVRTC

run check "$src/tests/data/tc-odd.task" --precision fp16,fp8
ok "check refuses a precision it does not know" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui check: --precision takes fp32, tf32, fp16, bf16 or all, or several separated by commas; 'fp8' is not one" ]

# tuning under a bound: the start line says what each task was left, the header keeps
# the precisions and the bound, and TC states' events carry their predicted error
run --batch "$src/models/bert_tiny.task" --device sim:a100_40 --precision auto --max-error 3e-3 --trials 20 --per-round 5 --no-compile --session "$tmp/tc.jsonl"
ok "--precision auto --max-error: the note names what each task was left" sh -c '[ "$1" -eq 0 ] && grep -qx "note: precision auto, max error 0.003: fp16 on 6, bf16 on 0, tf32 on 6 of 6 tasks with a matrix multiply (2 have none); the verify model'"'"'s checkpoint learned no fp16, tf32 state: the tasks that offer one verify by PSA until this run has measured 10 of each" "$2"' _ "$rc" "$tmp/out"
ok "the header keeps the precision and the bound" sh -c 'head -n1 "$1" | grep -q ",\"precision\":\"auto\",\"max_error\":0.003,\"tasks\":"' _ "$tmp/tc.jsonl"
ok "every measure event has a predicted error; states compute in fp16, none in bf16" sh -c '[ "$(grep -c "\"event\":\"measure\"" "$1")" -eq 20 ] && [ "$(grep "\"event\":\"measure\"" "$1" | grep -c "\"predicted_error\":")" -eq 20 ] && grep -q "fp16" "$1" && ! grep -q "bf16" "$1"' _ "$tmp/tc.jsonl"
run check --session "$tmp/tc.jsonl"
last=$(echo "$out" | tail -n 1)
ok "check --session checks each task's best state within the session's bound ($last)" sh -c '[ "$1" -eq 0 ] && echo "$2" | grep -qE "^checked 8 best states: 8 within the bound, 0 beyond it, 0 failed; the largest error is 0\.[0-9]+ of its bound \(task [0-7]\)$" && [ "$(echo "$3" | grep -cE "^ +[0-7] +[a-z_]+ +(fp32|fp16|tf32) +[0-9.]+ +[0-9.e+-]+ +[0-9.e+-]+ +3\.00e-03 +all +ok$")" -eq 8 ]' _ "$rc" "$last" "$out"
# the same states against a bound of 1e-5, which only FP32 meets
sed '1s/"max_error":0.003/"max_error":1e-05/' "$tmp/tc.jsonl" > "$tmp/tight.jsonl"
run check --session "$tmp/tight.jsonl"
tc=$(echo "$out" | grep -cE " (fp16|tf32) .* BEYOND THE BOUND$")
ok "check --session names each state beyond a tighter bound and exits 1 ($tc)" sh -c '[ "$1" -eq 1 ] && [ "$2" -ge 1 ] && echo "$3" | tail -n 1 | grep -qE "^checked 8 best states: [0-9] within the bound, $2 beyond it, 0 failed; "' _ "$rc" "$tc" "$out"
run export "$tmp/tc.jsonl" --front "$tmp/front"
ok "export --front writes each task's front with its kernels" sh -c '[ "$1" -eq 0 ] && echo "$2" | grep -qE "^wrote the front to .*/front: [0-9]+ points of 8 tasks with their kernels, [0-9]+ bounds? of the network$" && [ -s "$3/front.txt" ] && [ "$(ls "$3" | grep -c "^task-[0-7]-\(fp32\|fp16\|tf32\)\.cu$")" -eq "$(echo "$2" | sed -n "s/.*: \([0-9]*\) points.*/\1/p")" ]' _ "$rc" "$out" "$tmp/front"
kernels=$(grep -o '"kernel":"task-[0-9]*-[a-z0-9]*"' "$tmp/front/front.json" | sed 's/.*:"\(.*\)"/\1/')
choices=$(grep -o '"choice":\[[^]]*\]' "$tmp/front/front.json")
ok "front.json names each point's kernel and each bound's choice of all 8 tasks" sh -c 'n=0; for k in $1; do [ -s "$2/$k.json" ] || exit 1; n=$((n + 1)); done; [ "$n" -eq "$(ls "$2" | grep -c "\.cu$")" ] && [ -n "$3" ] && echo "$3" | awk -F, "NF != 8 { bad = 1 } END { exit bad }"' _ "$kernels" "$tmp/front" "$choices"
run check --session "$tmp/tc.jsonl" --precision fp16
ok "check --session refuses --precision" sh -c '[ "$1" -eq 2 ] && [ "$(head -n1 "$2")" = "pruner-tui check: --session checks the session'"'"'s best states: not with --precision" ]' _ "$rc" "$tmp/err"
run --resume "$tmp/tc.jsonl" --trials 30 --precision fp16
ok "--resume keeps the session's precisions" sh -c '[ "$1" -eq 2 ] && grep -qxF "pruner-tui --resume: --resume goes on with the session'"'"'s precisions and error bound; --precision, --max-error and --error-split cannot change them" "$2"' _ "$rc" "$tmp/err"
run --batch "$src/models/bert_tiny.task" --precision fp16,fp8 --no-session
ok "--precision refuses a name it does not know" sh -c '[ "$1" -eq 2 ] && [ "$(head -n1 "$2")" = "pruner-tui --batch: --precision: '"'"'fp8'"'"' is not a precision: expected auto, fp32, fp16, bf16 or tf32" ]' _ "$rc" "$tmp/err"
# the bound over the network: BERT-tiny's weights sum to 23, so each task gets 1e-2 / sqrt(23)
run --batch "$src/models/bert_tiny.task" --device sim:a100_40 --precision auto --max-error 1e-2 --error-split network --trials 8 --per-round 1 --no-compile --session "$tmp/split.jsonl"
ok "--error-split network splits the bound over the tasks in quadrature" sh -c '[ "$1" -eq 0 ] && grep -qx "note: precision auto, max error 0.01 over the network (0.00209 a task): fp16 on 6, bf16 on 0, tf32 on 6 of 6 tasks with a matrix multiply (2 have none); the verify model'"'"'s checkpoint learned no fp16, tf32 state: the tasks that offer one verify by PSA until this run has measured 10 of each" "$2" && head -n1 "$3" | grep -q ",\"max_error\":0.01,\"error_split\":\"network\","' _ "$rc" "$tmp/out" "$tmp/split.jsonl"
run --batch "$src/models/bert_tiny.task" --error-split network --no-session
ok "--error-split needs --max-error" sh -c '[ "$1" -eq 2 ] && [ "$(head -n1 "$2")" = "pruner-tui --batch: --error-split splits the bound of --max-error, which is not given" ]' _ "$rc" "$tmp/err"
# models that learn Tensor-Core states: dataset samples them, train records their
# precisions, and the engine ranks by the model what it learned
run dataset "$src/models/bert_tiny.task" --out "$tmp/tcrec.jsonl" --states 12 --per-batch 12 --device sim:a100_40 --no-compile --no-progress --precision fp16,tf32
ok "dataset --precision samples Tensor-Core states of those precisions" sh -c '[ "$1" -eq 0 ] && grep -q "fp16" "$2" && grep -q "tf32" "$2" && ! grep -q "bf16" "$2"' _ "$rc" "$tmp/tcrec.jsonl"
run train --records "$tmp/tcrec.jsonl" --network "$src/models/bert_tiny.task" --model mlp --epochs 1 --out "$tmp/tc.ckpt"
ok "train records the precisions of its states" sh -c '[ "$1" -eq 0 ] && grep -qx "learned from tasks of: dense batch_matmul softmax layer_norm; states in: fp32 fp16 tf32" "$2"' _ "$rc" "$tmp/out"
run --batch "$src/models/bert_tiny.task" --device sim:a100_40 --precision auto --max-error 3e-3 --load-model "$tmp/tc.ckpt" --trials 8 --per-round 1 --no-compile --no-session
ok "a checkpoint that learned fp16 and tf32 verifies them itself" sh -c '[ "$1" -eq 0 ] && grep -qx "note: precision auto, max error 0.003: fp16 on 6, bf16 on 0, tf32 on 6 of 6 tasks with a matrix multiply (2 have none)" "$2"' _ "$rc" "$tmp/out"
run --batch "$src/models/bert_tiny.task" --max-error 0 --no-session
ok "--max-error must be above 0" sh -c '[ "$1" -eq 2 ] && [ "$(head -n1 "$2")" = "pruner-tui --batch: --max-error must be a number above 0 and at most 1, not '"'"'0'"'"'" ]' _ "$rc" "$tmp/err"

[ "$failed" -eq 0 ]
