#!/bin/sh
# pruner-tui --compare: two sessions of one network side by side, the per-task ratios
# checked against those computed from each session's `export --records` (the least
# median of the successful measurements of each task), the curves' last row, the
# sessions' lines, a third session of another network, and the usage and file
# errors; as TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

task="$src/tests/data/tiny2.task"
tune() {   # tune SESSION SEED POLICY MODEL
   "$bin" --batch "$task" --trials 20 --per-round 5 --device sim:h100_sxm --no-compile --seed "$2" \
      --policy "$3" --cost-model "$4" --session "$1" > /dev/null 2>&1
}
tune "$tmp/a.jsonl" 1 ansor random
tune "$tmp/b.jsonl" 2 pruner psa
ok "two sessions of tiny2 to compare" [ -s "$tmp/a.jsonl" ] && [ -s "$tmp/b.jsonl" ]

run --compare "$tmp/a.jsonl" "$tmp/b.jsonl"
ok "--compare exits 0" [ "$rc" -eq 0 ]
ok "it names the network and its tasks" [ "$(printf '%s\n' "$out" | head -n 1)" = "2 sessions of tiny2 (2 tasks)" ]
ok "a line per session: what it ran" sh -c 'printf "%s\n" "$1" | grep -qxF "A  $2: tiny2, ansor + random, h100_sxm (SIMULATED), seed 1, 20 of 20 trials, budget" &&
   printf "%s\n" "$1" | grep -qxF "B  $3: tiny2, pruner + psa, h100_sxm (SIMULATED), seed 2, 20 of 20 trials, budget"' \
   - "$out" "$tmp/a.jsonl" "$tmp/b.jsonl"

# each task's best from the records: the least median of the costs of the "ok" ones
best() {   # best SESSION -> "KEY SECONDS" per task
   "$bin" export "$1" --records "$tmp/r.jsonl" > /dev/null 2>&1
   awk '/"error":"ok"/ {
      key = $0; sub(/.*"task":"/, "", key); sub(/".*/, "", key)
      c = $0; sub(/.*"costs":\[/, "", c); sub(/\].*/, "", c)
      n = split(c, v, ",")
      for (i = 2; i <= n; i++) { x = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
      m = n % 2 ? v[(n + 1) / 2] + 0 : (v[n / 2] + v[n / 2 + 1]) / 2
      if (!(key in b) || m < b[key]) b[key] = m
      if (!(key in seen)) { seen[key] = 1; order[++k] = key }
   } END { for (i = 1; i <= k; i++) printf "%s %.17g\n", order[i], b[order[i]] }' "$tmp/r.jsonl"
   rm -f "$tmp/r.jsonl"
}
best "$tmp/a.jsonl" > "$tmp/a.best"
best "$tmp/b.jsonl" > "$tmp/b.best"
want=$(awk 'NR == FNR { a[NR] = $2; next } { printf "%d %.3f %.3f %.4f\n", FNR - 1, a[FNR] * 1e6, $2 * 1e6, $2 / a[FNR] }' \
   "$tmp/a.best" "$tmp/b.best")
got=$(printf '%s\n' "$out" | awk '/^best latency per task/ { on = 1; next } on && $1 ~ /^[0-9]+$/ { print $1, $(NF - 2), $(NF - 1), $NF }')
ok "per task: the best latencies and B/A, as computed from export --records" [ "$got" = "$want" ]
echo "# want: $want" | tr '\n' ' '; echo
echo "# got:  $got" | tr '\n' ' '; echo
# the weighted total's ratio: sum of weight x B over sum of weight x A, from the rows
ratio=$(printf '%s\n' "$out" | awk '/^best latency per task/ { on = 1; next }
   on && $1 ~ /^[0-9]+$/ { a += $(NF - 3) * $(NF - 2); b += $(NF - 3) * $(NF - 1) }
   on && /weighted total/ { d = b / a - $NF; print (d > -0.0002 && d < 0.0002) ? "agrees" : "differs" }')
ok "the weighted total's ratio is that of the tasks' weighted sums" [ "$ratio" = agrees ]
ok "the curve against trials ends at 20, with A's and B's last totals" sh -c '
   printf "%s\n" "$1" | awk "/against trials/ { on = 1; next } on && /^ *20 / { print; exit }" | grep -q "^ *20 *[0-9.]* *[0-9.]*$"' - "$out"
ok "A reaches its own final latency at its last round" sh -c 'printf "%s\n" "$1" | grep -q "^ *A  20 trials, 0:[0-9][0-9]$"' - "$out"

# a session of another network: the curves, no per-task table
run --compare "$tmp/a.jsonl" "$src/tests/data/tiny2-session.jsonl" "$src/sessions/bert_base-sim_h100_sxm-example.jsonl"
ok "three sessions, one of other tasks: no per-task table" sh -c '[ "$2" -eq 0 ] &&
   printf "%s\n" "$1" | grep -qxF "(no per-task table: the sessions tune different tasks)" &&
   printf "%s\n" "$1" | head -n 1 | grep -qxF "3 sessions of different tasks"' - "$out" "$rc"

run --compare "$tmp/a.jsonl"
ok "one session is a usage error" sh -c '[ "$1" -eq 2 ] && printf "%s\n" "$2" | head -n 1 | grep -qxF "pruner-tui --compare: expected at least two session files, not 1"' - "$rc" "$err"
run --compare "$tmp/a.jsonl" "$tmp/none.jsonl"
ok "a missing file is named" sh -c '[ "$1" -eq 1 ] && [ "$2" = "pruner-tui --compare: $3: No such file or directory" ]' - "$rc" "$err" "$tmp/none.jsonl"
printf '{"event":"header","v":1}\n' > "$tmp/bad.jsonl"
run --compare "$tmp/a.jsonl" "$tmp/bad.jsonl"
ok "a bad header is refused with the file and line" sh -c '[ "$1" -eq 1 ] && printf "%s\n" "$2" | grep -q "^pruner-tui --compare: $3:1: "' - "$rc" "$err" "$tmp/bad.jsonl"
run --compare --help
ok "--compare --help prints its usage" sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | head -n 1 | grep -qxF "Usage: pruner-tui --compare [--text] SESSION SESSION [SESSION]..."' - "$rc" "$out"

echo "1..$n"
[ $failed -eq 0 ]
