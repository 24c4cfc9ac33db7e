#!/bin/sh
# The tuning engine through `pruner-tui --batch`: a tiny two-task network tuned on the
# simulator (no NVRTC), its output, its session file, and that the same seed gives the
# same session; as TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

# batch SESSION [ARGS...]: tunes tiny2 with the test's settings; sets $rc
batch() {
   session=$1; shift
   "$bin" --batch "$src/tests/data/tiny2.task" --device sim:h100_sxm --no-compile --trials 20 --per-round 5 \
      --cost-model xgb --session "$session" "$@" >"$tmp/out" 2>"$tmp/err"
   rc=$?
}

echo "1..14"

if ! "$bin" --version | grep -q "XGBoost yes"; then
   # the tests tune with xgb, the quickest learned model, which this build lacks
   for i in $(seq 1 14); do echo "ok $i # SKIP XGBoost is not built in"; done
   exit 0
fi

batch "$tmp/a.jsonl"
ok "--batch exits 0" [ "$rc" -eq 0 ]
ok "--batch prints a progress line per round (4)" [ "$(grep -c '^round  *[0-9]*  task  *[01]  trials ' "$tmp/out")" -eq 4 ]
ok "--batch says it simulates" grep -q "SIMULATED, not a GPU" "$tmp/out"
ok "--batch prints the scheduler table" grep -q "Task Scheduler" "$tmp/out"
ok "--batch ends with the total latency and trials" \
   grep -qE '^Estimated total latency: [0-9]+\.[0-9]{3} ms  Trials: 20  Used time: [0-9]+ s$' "$tmp/out"
ok "the last line is the acceptance summary" \
   sh -c 'tail -n1 "$1" | grep -qE "^Acceptance: mean [0-9.]+ over [0-9]+ rounds  Kendall tau: mean -?[0-9.]+ over [0-9]+ rounds$"' _ "$tmp/out"
ok "the session starts with its header" sh -c 'head -n1 "$1" | grep -q "^{\"event\":\"header\",\"v\":1,\"network\":\"tiny2\""' _ "$tmp/a.jsonl"
ok "the session has one header" [ "$(grep -c '"event":"header"' "$tmp/a.jsonl")" -eq 1 ]
ok "the session has 4 rounds and 4 round ends" \
   [ "$(grep -c '"event":"round",' "$tmp/a.jsonl")" -eq 4 -a "$(grep -c '"event":"round_end"' "$tmp/a.jsonl")" -eq 4 ]
ok "the session has 20 measure events" [ "$(grep -c '"event":"measure"' "$tmp/a.jsonl")" -eq 20 ]
ok "the session ends with finished budget" sh -c 'tail -n1 "$1" | grep -q "\"event\":\"finished\".*\"why\":\"budget\""' _ "$tmp/a.jsonl"

batch "$tmp/b.jsonl"
ok "a second run with the same seed writes the same session, the clock aside" \
   "$bin" __session-compare "$tmp/a.jsonl" "$tmp/b.jsonl"

batch "$tmp/b.jsonl"
ok "--batch refuses to overwrite a session (exit 1)" [ "$rc" -eq 1 ]

batch "$tmp/c.jsonl" --seed 2
ok "another seed writes another session" sh -c '! "$1" __session-compare "$2" "$3" >/dev/null' _ "$bin" "$tmp/a.jsonl" "$tmp/c.jsonl"

[ "$failed" -eq 0 ]
