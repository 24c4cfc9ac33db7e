#!/bin/sh
# Exact resume: a seeded simulator run cut short at 20 points (after every kind of
# event, and in the middle of lines as a kill during a write leaves them) and resumed
# to the end writes the session the uninterrupted run writes, the clock and the
# resumed markers aside; the same after a real kill -9, after SIGTERM, SIGHUP and
# SIGINT, and after a write that failed (a full disk); a second writer is refused with
# the holder's process ID; a session two runs wrote at once is refused by every
# reader; as TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

task="$src/tests/data/tiny2.task"
# tune SESSION ARGS...: tiny2 on the simulated H100, 5 measurements a round
tune() {
   session=$1; shift
   "$bin" --batch "$task" --device sim:h100_sxm --no-compile --per-round 5 --session "$session" "$@" \
      >"$tmp/out" 2>"$tmp/err"
}
# cut FULL N BYTES OUT: the first N lines of FULL and BYTES bytes of the next one
cut_at() {
   head -n "$2" "$1" >"$4"
   if [ "$3" -gt 0 ]; then
      sed -n "$(($2 + 1))p" "$1" | head -c "$3" >>"$4"
   fi
}
# line FILE KIND [NTH]: the line number of the NTH (default 1st) event of that kind
line() {
   grep -n "^{\"event\":\"$2\"" "$1" | sed -n "${3:-1}p" | cut -d: -f1
}
# measured FILE: its measure events so far (0 before it exists)
measured() {
   c=$(grep -c '"event":"measure"' "$1" 2>/dev/null)
   echo "${c:-0}"
}
# wait_for FILE N: until FILE holds N measurements (30 s at most)
wait_for() {
   tries=0
   while [ "$(measured "$1")" -lt "$2" ] && [ $tries -lt 1500 ]; do
      sleep 0.02
      tries=$((tries + 1))
   done
}
# resumes SESSION (ARGS... for --resume) and compares it with FULL
resumed_equal() {
   full=$1; session=$2; shift 2
   "$bin" --resume "$session" --no-compile "$@" >"$tmp/rout" 2>"$tmp/rerr" &&
      "$bin" __session-compare "$full" "$session" >"$tmp/cmp" 2>&1
}

echo "1..31"

if ! "$bin" --version | grep -q "XGBoost yes"; then
   for i in $(seq 1 30); do echo "ok $i # SKIP XGBoost is not built in"; done
   exit 0
fi

# A: the default policy and model (MoA from the shipped PAM checkpoint)
tune "$tmp/a.jsonl" --trials 30 --seed 3
a="$tmp/a.jsonl"
# B: xgb, 20 trials, then resumed to 40: a finished, a resumed and a budget command
tune "$tmp/b.jsonl" --trials 20 --seed 5 --cost-model xgb
"$bin" --resume "$tmp/b.jsonl" --no-compile --trials 40 >/dev/null 2>&1
b="$tmp/b.jsonl"
ok "the two reference runs ran to their budgets (30, 40 measurements)" \
   [ "$(grep -c '"event":"measure"' "$a")" -eq 30 -a "$(grep -c '"event":"measure"' "$b")" -eq 40 ]

# NAME FULL LINES BYTES [ARGS...]: cut FULL there, resume, compare
point() {
   name=$1; full=$2; lines=$3; bytes=$4; shift 4
   cut_at "$full" "$lines" "$bytes" "$tmp/cut.jsonl"
   if resumed_equal "$full" "$tmp/cut.jsonl" "$@"; then
      ok "cut $name (line $lines + $bytes bytes): the resumed session is the uninterrupted one" true
   else
      ok "cut $name (line $lines + $bytes bytes): the resumed session is the uninterrupted one ($(cat "$tmp/cmp" "$tmp/rerr" | head -n 3))" false
   fi
}
point "after the header" "$a" 1 0
point "after a round's start" "$a" "$(line "$a" round 2)" 0
point "after a search" "$a" "$(line "$a" search 2)" 0
point "after 3 of a round's measurements" "$a" "$(($(line "$a" search 3) + 3))" 0
point "after a round's last measurement" "$a" "$(($(line "$a" model 3) - 1))" 0
point "after a model event" "$a" "$(line "$a" model 4)" 0
point "after a best event" "$a" "$(line "$a" best 2)" 0
point "after a round's end" "$a" "$(line "$a" round_end 4)" 0
point "after the last round's end" "$a" "$(line "$a" round_end 6)" 0
point "inside a measurement line" "$a" "$(line "$a" search 2)" 57
point "inside a round_end line" "$a" "$(($(line "$a" round_end 3) - 1))" 30
point "inside a search line" "$a" "$(($(line "$a" search 5) - 1))" 11
point "after the first run finished" "$b" "$(line "$b" finished)" 0 --trials 40
point "after the resumed event" "$b" "$(line "$b" resumed)" 0 --trials 40
point "after the budget command" "$b" "$(line "$b" command)" 0
point "after the resumed run's first round start" "$b" "$(line "$b" round 5)" 0
point "after 2 of the resumed run's measurements" "$b" "$(($(line "$b" search 5) + 2))" 0
point "inside the resumed run's measurement line" "$b" "$(($(line "$b" search 6) + 1))" 40
point "after the resumed run's last round end" "$b" "$(line "$b" round_end 8)" 0
head -n "$(line "$b" finished)" "$b" >"$tmp/b20.jsonl"
point "after a round's end in B's first run" "$tmp/b20.jsonl" "$(line "$b" round_end 2)" 0

# resuming a finished session: nothing to do unless the budget grows
cp "$a" "$tmp/done.jsonl"
run --resume "$tmp/done.jsonl" --no-compile
ok "--resume of a finished session says there is nothing to do and writes nothing" \
   sh -c '[ "$1" -eq 0 ] && grep -q "is finished (budget, 30 of 30 trials): nothing to do; --trials N above 30 goes on with it" "$2" &&
          cmp -s "$3" "$4"' _ "$rc" "$tmp/out" "$a" "$tmp/done.jsonl"
run --resume "$tmp/done.jsonl" --no-compile --trials 10
ok "--trials below the trials done is refused" \
   sh -c '[ "$1" -eq 2 ] && grep -q -- "--trials 10 is below the 30 trials $2 has done" "$3"' _ "$rc" "$tmp/done.jsonl" "$tmp/err"

# a real kill -9 at some point of the run, then --resume
"$bin" --batch "$task" --device sim:h100_sxm --no-compile --per-round 5 --session "$tmp/k.jsonl" --trials 30 \
   --seed 3 >/dev/null 2>&1 &
pid=$!
wait_for "$tmp/k.jsonl" 12
kill -9 $pid
wait $pid 2>/dev/null
ok "kill -9, then --resume: the session is the uninterrupted one" resumed_equal "$a" "$tmp/k.jsonl"

# SIGTERM, SIGHUP, SIGINT: the run stops after the round; resumed, it is the
# uninterrupted run but for the stop
for sig in TERM HUP INT; do
   "$bin" --batch "$task" --device sim:h100_sxm --no-compile --per-round 5 --session "$tmp/s$sig.jsonl" \
      --trials 30 --seed 3 >"$tmp/s$sig.out" 2>&1 &
   pid=$!
   wait_for "$tmp/s$sig.jsonl" 7
   kill -$sig $pid
   wait $pid
   src_rc=$?
   "$bin" --resume "$tmp/s$sig.jsonl" --no-compile >/dev/null 2>&1
   grep -v -e '"text":"stop"' -e '"why":"stopped"' "$tmp/s$sig.jsonl" >"$tmp/s$sig-cmp.jsonl"
   ok "SIG$sig: exit 0, stops after the round, resumes to the uninterrupted session" \
      sh -c '[ "$1" -eq 0 ] && grep -q "stopping after the current round" "$2" &&
             grep -q "\"event\":\"finished\".*\"why\":\"stopped\"" "$3" &&
             "$4" __session-compare "$5" "$6" >/dev/null' \
      _ "$src_rc" "$tmp/s$sig.out" "$tmp/s$sig.jsonl" "$bin" "$a" "$tmp/s$sig-cmp.jsonl"
done

# a full disk (a file size limit: writes fail with EFBIG, as with ENOSPC): exit 1 with
# the file named, the session whole to its last line; resumed, the uninterrupted one.
# (The random model: a learned one's training copies it through a temporary file,
# which the limit would fail too, and the re-run without the limit could not match.)
tune "$tmp/fr.jsonl" --trials 30 --seed 3 --cost-model random
sh -c 'trap "" XFSZ; ulimit -f 16; exec "$@"' _ "$bin" --batch "$task" --device sim:h100_sxm --no-compile \
   --per-round 5 --session "$tmp/f.jsonl" --trials 30 --seed 3 --cost-model random >"$tmp/f.out" 2>"$tmp/f.err"
f_rc=$?
ok "a write that fails: exit 1 with the file and the reason, whole lines kept, then resumed to the end" \
   sh -c '[ "$1" -eq 1 ] && [ "$(cat "$2")" = "pruner-tui --batch: $3: File too large" ] &&
          [ -z "$(tail -c1 "$3")" ] && [ "$(grep -c "\"event\":\"measure\"" "$3")" -lt 30 ] &&
          "$4" --resume "$3" --no-compile >/dev/null 2>&1 && "$4" __session-compare "$5" "$3" >/dev/null' \
   _ "$f_rc" "$tmp/f.err" "$tmp/f.jsonl" "$bin" "$tmp/fr.jsonl"

# one writer: a second run on a session being written is refused, naming the first
"$bin" --batch "$task" --device sim:h100_sxm --no-compile --per-round 5 --session "$tmp/l.jsonl" --trials 5000 \
   --cost-model random >/dev/null 2>&1 &
pid=$!
wait_for "$tmp/l.jsonl" 1
run --resume "$tmp/l.jsonl" --no-compile --trials 6000
kill -INT $pid
wait $pid
ok "a second writer is refused with the holder's process ID" \
   [ "$rc" -eq 1 -a "$(tail -n1 "$tmp/err")" = "pruner-tui --resume: $tmp/l.jsonl: another run is writing this session (process $pid); wait for it to end or stop it" ]

# a session two runs wrote at once: refused by every reader, the way out named
n1=$(line "$b" round 3)
{ cat "$b"; sed -n "${n1},\$p" "$b"; } | grep -v '"event":"finished"' >"$tmp/two.jsonl"
bad=$(($(grep -c '' "$b") - $(grep -c '"event":"finished"' "$b") + 1))
want="$tmp/two.jsonl:$bad: round 3 comes after round 8; two runs may have written it at once. The lines before this one are a whole session: head -n $((bad - 1)) $tmp/two.jsonl > FIXED.jsonl keeps them"
run --replay "$tmp/two.jsonl"
r1=$rc; e1=$err
run export "$tmp/two.jsonl" --records "$tmp/two-rec.jsonl"
ok "rounds going back are refused by --replay and export with the line and the way out" \
   [ "$r1" -eq 1 -a "$e1" = "pruner-tui --replay: $want" -a "$rc" -eq 1 -a "$err" = "pruner-tui export: $want" ]

# a task renamed with its kernels the same (a global pool and an adaptive one to 1x1
# are one DAG): the re-run would not notice, the session's task list does
printf 'network: pools\nbatch: 1\ntasks:\n  - {op: global_avg_pool2d, input: [64, 7, 7], weight: 1}\n  - {op: dense, m: 1, n: 16, k: 64, weight: 1}\n' >"$tmp/pools.task"
"$bin" --batch "$tmp/pools.task" --trials 4 --per-round 2 --no-compile --device sim:h100_sxm --cost-model random \
   --session "$tmp/pools.jsonl" >/dev/null 2>&1
sed -i 's/{op: global_avg_pool2d, input: \[64, 7, 7\]/{op: adaptive_avg_pool2d, input: [64, 7, 7], output: 1/' "$tmp/pools.task"
run --resume "$tmp/pools.jsonl" --trials 6 --no-compile
ok "--resume refuses a session whose task was renamed, even where the re-run would match" \
   [ "$rc" -eq 1 -a "$(tail -n1 "$tmp/err")" = "pruner-tui --resume: $tmp/pools.jsonl: task 0 of the session is global_avg_pool2d_n1_c64_h7_w7, but in $tmp/pools.task it is adaptive_avg_pool2d_n1_c64_h7_w7_o1x1" ]

exit $((failed > 0))
