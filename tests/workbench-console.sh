#!/bin/sh
# The workbench's pager, log view and replay navigation end to end, in tmux at 80x24:
# the help searched with less's keys (/F10 shows and highlights the F10 line, n says
# "Pattern not found"), l opening the whole log from its first line, and the console's
# goto in a replay of 30 rounds (a round, a time, a bad argument) and on a live run;
# as TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"
. "${PTUI_SRCDIR:-.}/tests/tmux.sh"

echo "1..16"

# the session to replay: 30 rounds of 2 over the 27 ResNet-50 tasks
"$bin" --batch "$src/models/resnet_50.task" --trials 60 --per-round 2 --seed 3 --no-compile --cost-model random \
   --session "$tmp/replay.jsonl" >"$tmp/batch.out" 2>"$tmp/batch.err"
ok "--batch made the session to replay (exit $?)" grep -q '^{"event":"finished","round":30,.*"why":"budget"}$' \
   "$tmp/replay.jsonl"

start rp 80x24 --replay "$tmp/replay.jsonl" --speed 0
poll rp 20 shows 'replay ended'

# ---- the help, searched ----
tm send-keys -t rp F1
poll rp 20 shows '^ help  \(lines 1-22 of '
tm send-keys -t rp -l '/F10'
see rp "/ in the pager: the pattern typed on the last row" last_row_is '/F10'
tm send-keys -t rp Enter
poll rp 20 shows '^  q, F10 +quit \(the session is saved\)$'
ok "/F10 Enter: the pager moved down to the F10 line ($(sed -n 1p "$tmp/screen" | cut -c1-30))" \
   sh -c 'grep -Eq "^  q, F10 +quit \(the session is saved\)$" "$1" && ! grep -q "^ help  (lines 1-" "$1"' \
   _ "$tmp/screen"
tm capture-pane -p -e -t rp >"$tmp/colors"
ok "the match is highlighted in reverse video" grep -q "$(printf '^  q, \033\\[7mF10\033\\[0m')" "$tmp/colors"
tm send-keys -t rp n
see rp "n: no other F10, and the last row says so as less does" last_row_is 'Pattern not found'
tm send-keys -t rp q
see rp "q closes the help" shows '^ Tasks 1-7/27  sort: id.  \[s\]ort \[enter\] details$'

# ---- the whole log ----
# the replay logs each best and the end: more lines than the log panel's rows
first=$(sed -n 's/^{"event":"best","round":\([0-9]*\),"t":[^,]*,"task":\([0-9]*\),.*/round \1 task \2: best/p' \
   "$tmp/replay.jsonl" | head -n1)
lines=$(($(grep -c '"event":"best"' "$tmp/replay.jsonl") + 1))
tm send-keys -t rp l
poll rp 20 shows '^ log  \(lines 1-'
ok "l: the log in the pager, all its $lines lines" shows "^ log  \\(lines 1-22 of $lines\\)"
ok "its first line is the replay's first best ($first)" sh -c 'sed -n 2p "$1" | grep -q "^$2 "' _ "$tmp/screen" "$first"
tm send-keys -t rp G
poll rp 20 shows "^ log  \\(lines $((lines - 21))-$lines of $lines\\)"
ok "G: its last line, the end of the run" sh -c 'sed -n 23p "$1" | grep -q "^finished: budget after 60 trials$"' \
   _ "$tmp/screen"
tm send-keys -t rp q

# ---- goto ----
console rp "goto 5"
poll rp 20 sh -c 'grep -q "\[replay paused round 5/30\]$" "$1" && tail -n1 "$1" | grep -q "^round 5 of 30 "' \
   _ "$tmp/screen"
ok ":goto 5: paused at round 5 of 30, 10 trials" \
   sh -c 'grep -q "\[replay paused round 5/30\]$" "$1" && grep -q "^ trials 10/60  round 5 " "$1"' _ "$tmp/screen"
ok "and the answer on the console row" \
   sh -c 'tail -n1 "$1" | grep -Eq "^round 5 of 30 at 0:00:[0-9]{2}, paused \(space plays on\)$"' _ "$tmp/screen"
# round_at S: the rounds begun by the session's second S
round_at() {
   awk -F'[:,]' -v s="$1" '/"event":"round"/ { if ($6 + 0 <= s) n = $4 } END { print n + 0 }' "$tmp/replay.jsonl"
}
# halfway through the session (its last event's time over 2, in whole seconds)
half=$(awk -F'[:,]' 'END { print int($6 / 2) }' "$tmp/replay.jsonl")
at=$(round_at "$half")
mss=$(printf '%d:%02d' $((half / 60)) $((half % 60)))
clock=$(printf '0:%02d:%02d' $((half / 60)) $((half % 60)))
console rp "goto $mss"
poll rp 20 shows "\\[replay paused round $at/30\\]\$"
ok ":goto $mss (halfway): round $at of 30, the clock at $clock" \
   sh -c 'grep -q "\[replay paused round $2/30\]$" "$1" && grep -q "^ trials [0-9]*/60  round $2  elapsed $3 " "$1"' \
   _ "$tmp/screen" "$at" "$clock"
# at 10 s: the same, or the end when the session took less
at10=$(round_at 10)
console rp "goto 0:10"
if [ "$(awk -F'[:,]' 'END { print ($6 + 0 <= 10) }' "$tmp/replay.jsonl")" = 1 ]; then
   see rp ":goto 0:10: the session is shorter, the replay at its end" shows '\[replay ended: budget\]$'
else
   poll rp 20 shows "\\[replay paused round $at10/30\\]\$"
   ok ":goto 0:10: round $at10 of 30, the clock at 0:00:10" \
      sh -c 'grep -q "\[replay paused round $2/30\]$" "$1" && grep -q "^ trials [0-9]*/60  round $2  elapsed 0:00:10 " "$1"' \
      _ "$tmp/screen" "$at10"
fi
console rp "goto x"
see rp ":goto x: the exact error" \
   last_row_is "error: goto: takes a round from 0 to 30 or a time as M:SS or H:MM:SS, not 'x'"
tm send-keys -t rp q

# ---- a live run: no goto ----
start live 80x24 "$src/tests/data/tiny2.task" --trials 100000 --no-compile --no-session
poll live 20 shows '\[running\]$'
console live "goto 5"
see live ":goto on a live run: refused" last_row_is "error: goto: only in a replay"
ok "a live run's table names the engine's keys" shows '^ Tasks .*\[s\]ort \[enter\] details \[\+/-\] priority \[f\]ocus'
tm send-keys -t live q

[ "$failed" -eq 0 ]
