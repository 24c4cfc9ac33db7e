#!/bin/sh
# `pruner-tui --replay`: a session tuned with --batch on the simulator plays back the
# lines --batch printed, under the fleet that measured it; a handmade session with
# commands (and no fleet) plays back to the letter; --speed paces it and refuses what
# is not a number >= 0; a session cut in its last line plays with a notice; as TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

# replay ARGS...: sets $rc, with the output in $tmp/out and $tmp/err
replay() {
   "$bin" --replay "$@" >"$tmp/out" 2>"$tmp/err"
   rc=$?
}

# same A B: the two files are equal and not empty
same() {
   [ -s "$1" ] && cmp -s "$1" "$2"
}

echo "1..$((23 + $(ls "$src"/sessions/*.jsonl | wc -l)))"

# 12 rounds of 2 (mlp needs no optional library), so the table also comes at round 10
"$bin" --batch "$src/tests/data/tiny2.task" --device sim:h100_sxm --no-compile --trials 24 --per-round 2 \
   --cost-model mlp --session "$tmp/s.jsonl" >"$tmp/batch" 2>"$tmp/batch.err"
ok "--batch makes a session" [ $? -eq 0 ]

replay "$tmp/s.jsonl" --speed 0
ok "--replay exits 0" [ "$rc" -eq 0 ]
ok "the first line says what is replayed, where it was recorded and how" [ "$(head -n1 "$tmp/out")" = \
   "replay of $tmp/s.jsonl: tiny2 ($src/tests/data/tiny2.task, 2 tasks) recorded on h100_sxm (SIMULATED, not a GPU), policy pruner, cost model mlp, 24 trials, 2 per round, seed 1" ]
ok "the second line names the fleet the header records: one simulated GPU" \
   [ "$(sed -n 2p "$tmp/out")" = "fleet: sim:h100_sxm (1 device)" ]
grep '^round ' "$tmp/batch" >"$tmp/batch.rounds"
grep '^round ' "$tmp/out" >"$tmp/replay.rounds"
ok "the progress lines are --batch's (12)" \
   sh -c '[ "$(wc -l <"$1")" -eq 12 ] && cmp -s "$1" "$2"' _ "$tmp/batch.rounds" "$tmp/replay.rounds"
grep '^|' "$tmp/batch" >"$tmp/batch.rows"
grep '^|' "$tmp/out" >"$tmp/replay.rows"
ok "the tables at round 10 and at the end are --batch's" \
   sh -c '[ "$(grep -c "^|    1 " "$1")" -eq 2 ] && cmp -s "$1" "$2"' _ "$tmp/batch.rows" "$tmp/replay.rows"
sed -n 's/^\(Estimated total latency: [0-9.]* ms  Trials: [0-9]*\)  Used time: .*/\1/p' "$tmp/batch" >"$tmp/batch.total"
sed -n 's/^\(Estimated total latency: [0-9.]* ms  Trials: [0-9]*\)  Used time: .*/\1/p' "$tmp/out" >"$tmp/replay.total"
ok "the estimated total latency and trials are --batch's" same "$tmp/batch.total" "$tmp/replay.total"
ok "so are the finished line and the acceptance summary" \
   sh -c 'grep -E "^(finished|Acceptance):" "$1" >"$3.a"; grep -E "^(finished|Acceptance):" "$2" >"$3.b";
          [ "$(wc -l <"$3.a")" -eq 2 ] && cmp -s "$3.a" "$3.b"' _ "$tmp/batch" "$tmp/out" "$tmp/fin"
ok "nothing on stderr" [ ! -s "$tmp/err" ]

# commands, a budget changed, a refused command, GFLOPS from the task file
(cd "$src" && "$bin" --replay tests/data/replay-commands.jsonl --speed 0 >"$tmp/out" 2>"$tmp/err")
ok "a session with commands plays back to the letter" same "$src/tests/data/replay-commands.txt" "$tmp/out"
ok "a session from before the header's fleet prints no fleet line" [ "$(grep -c '^fleet' "$tmp/out")" -eq 0 ]
"$bin" --batch "$src/tests/data/tiny2.task" --device 'sim:h100_sxm*4' --no-compile --trials 4 --per-round 2 \
   --cost-model mlp --session "$tmp/four.jsonl" >/dev/null 2>&1
replay "$tmp/four.jsonl" --speed 0
ok "a fleet of four: its --device words and size under the first line" \
   [ "$rc" -eq 0 -a "$(sed -n 2p "$tmp/out")" = "fleet: sim:h100_sxm*4 (4 devices)" ]

# paced: its last event is at 2 s, so 4 times as fast takes at least half a second
start=$(date +%s%N)
(cd "$src" && "$bin" --replay tests/data/replay-commands.jsonl --speed 4 >"$tmp/out" 2>"$tmp/err")
ms=$((($(date +%s%N) - start) / 1000000))
ok "--speed 4 plays 2 s of events in at least 500 ms (took $ms ms)" [ "$ms" -ge 500 ]
ok "--speed does not change what is printed" same "$src/tests/data/replay-commands.txt" "$tmp/out"

replay "$tmp/s.jsonl" --speed -1
ok "--speed -1 is a usage error (exit 2)" [ "$rc" -eq 2 ]
ok "it says what --speed takes" [ "$(cat "$tmp/err")" = "pruner-tui --replay: --speed must be a number at least 0 and at most 1000000, not '-1'
Try 'pruner-tui --help' for more information." ]
replay "$tmp/s.jsonl" --speed fast
ok "--speed fast is a usage error too" \
   [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui --replay: --speed must be a number at least 0 and at most 1000000, not 'fast'" ]

# a killed run: the finished line cut short
head -c -12 "$tmp/s.jsonl" >"$tmp/cut.jsonl"
lines=$(($(wc -l <"$tmp/cut.jsonl") + 1))
bytes=$(tail -n1 "$tmp/cut.jsonl" | wc -c)
replay "$tmp/cut.jsonl" --speed 0
ok "a cut session plays, with Session_read's notice on stderr" [ "$rc" -eq 0 -a "$(cat "$tmp/err")" = \
   "pruner-tui --replay: $tmp/cut.jsonl:$lines: the last line is cut short ($bytes bytes without a newline); it was skipped" ]
grep '^round ' "$tmp/out" >"$tmp/cut.rounds"
ok "it plays every round and says the session ended without a finished event" \
   sh -c 'cmp -s "$1" "$2" && ! grep -q "^finished:" "$3" &&
          grep -qx "the session ends without a finished event: the run was killed, or is still going" "$3"' \
   _ "$tmp/batch.rounds" "$tmp/cut.rounds" "$tmp/out"

# the example shipped in sessions/ plays: 20 rounds of 8 tasks, simulated, to its end
example="$src/sessions/bert_base-sim_h100_sxm-example.jsonl"
"$bin" --replay "$example" --speed 0 >"$tmp/out" 2>"$tmp/err"
rc=$?
ok "the shipped example session plays (exit 0, nothing on stderr)" sh -c '[ "$1" -eq 0 ] && [ ! -s "$2" ]' _ "$rc" "$tmp/err"
ok "the example is labelled simulated, plays 20 rounds and ends at its budget" \
   sh -c 'head -n1 "$1" | grep -q "recorded on h100_sxm (SIMULATED, not a GPU)" &&
          [ "$(grep -c "^round  *[0-9]*  task" "$1")" -eq 20 ] && grep -qx "finished: budget" "$1" &&
          grep -q "^Estimated total latency: [0-9.]* ms  Trials: 200  Used time: " "$1" &&
          grep -q "\"simulated\":true" "$2"' _ "$tmp/out" "$example"

# every session shipped in sessions/ plays to its last round's trials
for f in "$src"/sessions/*.jsonl; do
   "$bin" --replay "$f" --speed 0 >"$tmp/out" 2>"$tmp/err"
   rc=$?
   last=$(grep '"event":"round_end"' "$f" | tail -n1 | sed 's/.*"trials":\([0-9]*\).*/\1/')
   ok "sessions/$(basename "$f") plays to its $last trials" \
      sh -c '[ "$1" -eq 0 ] && [ ! -s "$2" ] && grep -q "^Estimated total latency: [0-9.]* ms  Trials: $4  Used time: " "$3"' \
      _ "$rc" "$tmp/err" "$tmp/out" "$last"
done

# the H200 sessions are labelled with the GPU, not as simulated; a policy that drafts
# nothing says so with "-", not "nan"
h200="$src/sessions/resnet_50-NVIDIA_H200-ansor-xgb-700.jsonl"
"$bin" --replay "$h200" --speed 0 >"$tmp/out" 2>"$tmp/err"
ok "the H200 session says where it was recorded, not simulated" \
   sh -c 'head -n1 "$1" | grep -q "recorded on h200, policy ansor, cost model xgb, 700 trials" && ! grep -q SIMULATED "$1"' _ "$tmp/out"
ok "ansor's summary has no Kendall tau and no draft accuracy: '-' over 0 rounds" \
   sh -c 'tail -n2 "$1" | grep -q "Kendall tau: mean - over 0 rounds\$" && tail -n1 "$1" | grep -q "draft - over 0 rounds  verify 0.487 over 69 rounds\$"' _ "$tmp/out"

[ "$failed" -eq 0 ]
