#!/bin/sh
# Cost models that read the device: records of tiny2 collected on two simulated GPUs,
# `train --device-features` (its summary, its checkpoint's 182 inputs, a task's records
# ranked per device), `eval` of that checkpoint, the refusal with --init, and xgb
# with them; as TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

task="$src/tests/data/tiny2.task"
echo "1..7"
for d in h100_sxm a100_40; do
   "$bin" dataset "$task" --device "sim:$d" --no-compile --states 30 --no-progress --out "$tmp/rec.jsonl" >/dev/null 2>&1
done
ok "the records hold 120 measurements, 60 on each device" \
   [ "$(grep -c '"device":"h100_sxm"' "$tmp/rec.jsonl")" -eq 60 -a "$(grep -c '"device":"a100_40"' "$tmp/rec.jsonl")" -eq 60 ]

run train --records "$tmp/rec.jsonl" --network "$task" --model pam --device-features --epochs 2 --holdout 0.25 \
   --per-task --out "$tmp/dev.ckpt"
ok "train --device-features trains a pam that reads the device, on each task of each device (4 groups)" \
   sh -c '[ "$1" -eq 0 ] && grep -qx "training pam (with the device'"'"'s features) on 92 samples of 4 tasks" "$2"' \
   _ "$rc" "$tmp/out"
ok "a task's records rank per device: its held-out groups are named with the device" \
   sh -c '[ "$(grep -c "^dense_b1_m16_n64_k32+bias@h100_sxm \|^dense_b1_m16_n64_k32+bias@a100_40 " "$1")" -eq 2 ]' \
   _ "$tmp/out"
# the checkpoint: "PTUICKPT", version, kind, op kinds..., then the shape's first field
ok "the checkpoint's network reads 182 floats a row (174 and the device's 8)" \
   [ "$(od -An -tu4 -j28 -N4 "$tmp/dev.ckpt" | tr -d ' ')" -eq 182 ]
run eval --records "$tmp/rec.jsonl" --network "$task" --model "$tmp/dev.ckpt"
ok "eval reads it back and ranks the 4 groups" \
   sh -c '[ "$1" -eq 0 ] && grep -q "^weighted over 4 tasks (120 samples): pairwise accuracy 0\.[0-9]*, " "$2"' _ "$rc" "$tmp/out"
run train --records "$tmp/rec.jsonl" --network "$task" --model pam --init "$tmp/dev.ckpt" --device-features \
   --out "$tmp/again.ckpt"
ok "--device-features with --init is refused (exit 2): the checkpoint decides" \
   [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui train: --device-features makes a fresh model; --init's checkpoint says whether it reads the device" ]
if "$bin" --version | grep -q "XGBoost yes"; then
   run train --records "$tmp/rec.jsonl" --network "$task" --model xgb --device-features --out "$tmp/x.ckpt"
   rc1=$rc
   grep -c "^training xgb (with the device's features) on 120 samples of 4 tasks$" "$tmp/out" >"$tmp/said"
   run eval --records "$tmp/rec.jsonl" --network "$task" --model "$tmp/x.ckpt"
   ok "xgb trains with them too, and its checkpoint reads back" \
      [ "$rc1" -eq 0 -a "$(cat "$tmp/said")" -eq 1 -a "$rc" -eq 0 ]
else
   n=$((n + 1))
   echo "ok $n # SKIP XGBoost is not built in"
fi

[ "$failed" -eq 0 ]
