#!/bin/sh
# The latency head and predict: `train --latency-head` on records of two simulated
# GPUs (the checkpoint's section, the MAPE lines of train and eval), and `predict`
# from a session's best states and from PSA's picks: per-task rows whose sums are the
# end-to-end lines, the measured latencies those of the session, and the messages for
# a checkpoint without a head and a session of another network; as TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

task="$src/tests/data/tiny2.task"
echo "1..11"
for d in h100_sxm a100_40; do
   "$bin" dataset "$task" --device "sim:$d" --no-compile --states 30 --no-progress --out "$tmp/rec.jsonl" >/dev/null 2>&1
done

run train --records "$tmp/rec.jsonl" --network "$task" --model mlp --device-features --latency-head --epochs 2 \
   --head-epochs 5 --out "$tmp/head.ckpt"
ok "train --latency-head trains the head and reports its MAPE on the 120 training records" \
   sh -c '[ "$1" -eq 0 ] && grep -q "^latency head trained in [0-9.]* s$" "$2" &&
          grep -q "^the latency head'"'"'s estimate against the measured latency (120 samples, weighted over tasks): MAPE [0-9.]*%, " "$2"' \
   _ "$rc" "$tmp/out"
# the mlp's payload ends where its parameters do; the head's tag follows it
ok "the checkpoint holds the head's section, tagged LATR (a head over the roofline), once" \
   [ "$(grep -c LATR "$tmp/head.ckpt")" -eq 1 -a "$(grep -c LATH "$tmp/head.ckpt")" -eq 0 ]
run eval --records "$tmp/rec.jsonl" --network "$task" --model "$tmp/head.ckpt"
ok "eval prints the head's MAPE beside the ranking" \
   sh -c '[ "$1" -eq 0 ] && grep -q "^the latency head'"'"'s estimate against the measured latency (120 samples, weighted over tasks): MAPE " "$2"' \
   _ "$rc" "$tmp/out"
run eval --records "$tmp/rec.jsonl" --network "$task" --model psa
ok "eval of psa prints PSA's MAPE and the roofline's" \
   sh -c '[ "$1" -eq 0 ] && grep -q "^PSA'"'"'s latency estimate against the measured latency (120 samples, weighted over tasks): MAPE [0-9.]*%, typically off by a factor " "$2" &&
          grep -q "^the roofline (the latency head'"'"'s baseline) against the measured latency (120 samples, weighted over tasks): MAPE [0-9.]*%, " "$2"' \
   _ "$rc" "$tmp/out"
# per task: the 4 task groups (2 tasks on 2 devices), 30 samples each, under the header
run eval --records "$tmp/rec.jsonl" --network "$task" --model "$tmp/head.ckpt" --per-task
ok "eval --per-task prints each task's MAPE and bias under the head's header" \
   sh -c '[ "$1" -eq 0 ] && grep -q "^the latency head'"'"'s estimate  *samples  *MAPE  *bias$" "$2" &&
          [ "$(sed -n "/^the latency head'"'"'s estimate  *samples/,/^the latency head'"'"'s estimate against/p" "$2" |
               grep -c "^[^ ]*  *30  *[0-9.]*%  *[-+][0-9.]*$")" -eq 4 ]' _ "$rc" "$tmp/out"

"$bin" --batch "$task" --trials 8 --no-compile --device sim:h100_sxm --cost-model random --session "$tmp/s.jsonl" \
   >"$tmp/batch" 2>&1
run predict "$task" --device sim:h100_sxm --session "$tmp/s.jsonl" --no-compile --model "$tmp/head.ckpt"
cp "$tmp/out" "$tmp/predict"
ok "predict from the session's best states with the head: a row for each of the 2 tasks" \
   sh -c '[ "$1" -eq 0 ] && grep -qx "estimate: the latency head of the model given" "$2" &&
          [ "$(grep -c "^ *[01]  *[12]  *[0-9.]*  *[0-9.]*  *[-+][0-9.]*%  " "$2")" -eq 2 ]' _ "$rc" "$tmp/predict"
# the end-to-end lines are the weighted sums of the rows, and the error their ratio
ok "the end-to-end latencies are the sums of weight x latency, the error their ratio" \
   awk '/^ *[01]  *[12]  /{ p += $2 * $3; m += $2 * $4 }
        /^over the 2 tasks measured ok:/{ gp = $8; gm = $11; ge = $14 }
        END { e = 100 * (p / m - 1); sub(/%/, "", ge)
              exit !(p > 0 && m > 0 && (gp * 1000 - p) ^ 2 < (p * 1e-3) ^ 2 + 1e-4 &&
                     (gm * 1000 - m) ^ 2 < (m * 1e-3) ^ 2 + 1e-4 && (ge - e) ^ 2 < 0.01) }' "$tmp/predict"
# the session's best latencies, as batch's table printed them (ms), against the rows (us)
ok "the measured latencies are the session's best, measured again" \
   awk 'FNR == NR && /^\| *[01] \|/ { best[$2] = $(NF - 5) * 1000; next }
        FNR != NR && /^ *[01]  *[12]  / { d = $4 - best[$1]; if (d < 0) d = -d; if (d > 1) bad = 1; seen++ }
        END { exit !(seen == 2 && !bad) }' "$tmp/batch" "$tmp/predict"

run train --records "$tmp/rec.jsonl" --network "$task" --model mlp --epochs 1 --out "$tmp/plain.ckpt"
run predict "$task" --device sim:h100_sxm --model "$tmp/plain.ckpt" --no-compile
ok "predict refuses a checkpoint without a head (exit 1)" \
   [ "$rc" -eq 1 -a "$err" = "pruner-tui predict: $tmp/plain.ckpt: the mlp model there has no latency head (pruner-tui train --latency-head trains one)" ]

run predict "$src/models/resnet_18.task" --device sim:h100_sxm --session "$tmp/s.jsonl" --no-compile
ok "a session of another network is refused, naming both (exit 1)" \
   [ "$rc" -eq 1 -a "$err" = "pruner-tui predict: $tmp/s.jsonl:1: the header lists 2 tasks but $src/models/resnet_18.task has 18" ]

run predict "$task" --device sim:a100_40 --samples 8 --no-measure
ok "without a session PSA picks the schedules; --no-measure only predicts" \
   sh -c '[ "$1" -eq 0 ] && grep -qx "schedules: the state PSA ranks first of 8 random valid states of each task (seed 1)" "$2" &&
          grep -q "^end to end (the sum over tasks of weight x latency): predicted [0-9.e-]* ms over 2 of 2 tasks$" "$2" &&
          ! grep -q "^over the" "$2"' _ "$rc" "$tmp/out"
[ "$failed" -eq 0 ]
