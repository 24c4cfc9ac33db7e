#!/bin/sh
# The workbench end to end, in tmux: the screen of a live run on ResNet-50 (simulator,
# no NVRTC) read back with capture-pane, the console's commands and their effect after
# the next round, q and SIGTERM leaving the terminal sane; htop's keys at 80x24 (the
# letters for the arrows, pages and ends, F3 and n searching, /conv filtering to the
# conv2d tasks, F6 and < > sorting, F5 following the task being tuned, F1's help, F10
# quitting) and the threads' names; the message on a terminal below 80x24, and
# --replay showing the final table that --batch printed; as TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"
. "${PTUI_SRCDIR:-.}/tests/tmux.sh"

trials() {   # the header's trial count
   sed -n 's/^ trials \([0-9]*\)\/.*/\1/p' "$tmp/screen"
}

more_trials() {   # more_trials N: the header counts more than N trials
   t=$(trials)
   [ -n "$t" ] && [ "$t" -gt "$1" ]
}

# rows: the task table's rows as "ID Lat(ms) Trials Prio State", one a line, in $tmp/rows
# (the column heads: "ID Task", a sort's mark after a head; the columns shown are the
# width's and the settings' choice, so each is found by its head)
rows() {
   awk '/^ *ID[^ ]* +Task / { on = 1
                              for (i = 1; i <= NF; i++) { h = $i; sub(/(▲|▼)$/, "", h); if (!(h in at)) at[h] = i }
                              next }
        on && $1 ~ /^[0-9]+$/ { print $1, $at["Lat(ms)"], $at["Trials"], $at["Prio"], $at["State"]; next }
        on { exit }' "$tmp/screen" >"$tmp/rows"
}

rows_are() {   # rows_are N: the table shows N rows
   rows
   [ "$(wc -l <"$tmp/rows")" -eq "$1" ]
}

task_prio_is() {   # task_prio_is ID PRIO
   rows
   awk -v id="$1" -v prio="$2" '$1 == id { found = $4 == prio } END { exit !found }' "$tmp/rows"
}

task_row_is() {   # task_row_is ID PRIO STATE
   rows
   awk -v id="$1" -v prio="$2" -v state="$3" '$1 == id { found = $4 == prio && $5 == state } END { exit !found }' \
      "$tmp/rows"
}

# stopped NAME HOW SESSION: once the pane's program has gone, three checks: it exited 0
# after HOW, the terminal is back in canonical mode with echo, and the session ends
# with a finished event (stopped)
stopped() {
   poll "$1" 30 shows '^EXIT=' && poll "$1" 10 stty_shown
   ok "$2: pruner-tui exits 0 (EXIT=$(exit_status))" [ "$(exit_status)" = 0 ]
   ok "$2: the terminal is back in canonical mode with echo" sane
   tail -n1 "$3" >"$3.last"
   ok "$2: the session ends with a finished event (stopped)" \
      grep -q '^{"event":"finished",.*"why":"stopped"}$' "$3.last"
}

running_past() {   # running_past N: [running] and more than N trials
   more_trials "$1" && shows '\[running\]$'
}

summary_counts() {   # summary_counts N: the summary after the screen: N or more trials, stopped
   t=$(sed -n 's/^resnet_50 on h100_sxm (SIMULATED): \([0-9]*\) trials in [0-9]* rounds, .*, finished: stopped$/\1/p' \
      "$tmp/screen")
   [ -n "$t" ] && [ "$t" -ge "$1" ]
}

# screen_thread_line: "screen thread: X s of CPU in Y s (Z% of a core)" with 0 < X < Y and
# Y at least the 5 s the live run lasts at the least
screen_thread_line() {
   awk '/^screen thread: [0-9.]+ s of CPU in [0-9.]+ s \([0-9.]+% of a core\)$/ {
           found = $3 > 0 && $3 < $7 && $7 >= 5 }
        END { exit !found }' "$tmp/screen"
}

echo "1..81"

# the session --replay plays at the end, made meanwhile: 30 rounds of 2 over the 27
# ResNet-50 tasks (the random model: the quickest to tune with)
"$bin" --batch "$src/models/resnet_50.task" --trials 60 --per-round 2 --seed 3 --no-compile --cost-model random \
   --session "$tmp/replay.jsonl" >"$tmp/batch.out" 2>"$tmp/batch.err" &
batchpid=$!

# the model to switch to: xgb where built in, else mlp
model=xgb
"$bin" --version | grep -q "XGBoost yes" || model=mlp

# ---- a live run ----
start live 200x40 "$src/models/resnet_50.task" --trials 100000 --no-compile --session "$tmp/live.jsonl"
poll live 30 shows '^ +26 fc ' && poll live 20 more_trials 0
rows
ids=$(cut -d' ' -f1 "$tmp/rows" | tr '\n' ' ')
ok "the table shows the 27 ResNet-50 tasks, IDs 0 to 26 in order ($(wc -l <"$tmp/rows") rows)" \
   sh -c '[ "$1" = "$(seq 0 26 | tr "\n" " ")" ]' _ "$ids"
a=$(trials)
poll live 20 more_trials "$a"
b=$(trials)
ok "the header's trial count goes up while it runs ($a, then $b)" [ "${b:-0}" -gt "${a:-0}" ]

console live pause
poll live 20 shows '\[paused\]$'
ok "pause: the header says [paused] after the round" shows '^ pruner-tui  resnet_50 on h100_sxm SIMULATED .*\[paused\]$'
rows
ok "paused: no task says tuning ($(awk '$5 == "tuning"' "$tmp/rows" | wc -l) rows do)" \
   awk '$5 == "tuning" { n++ } END { exit n > 0 }' "$tmp/rows"
a=$(trials)
sleep 1.6
capture live
b=$(trials)
ok "paused: the trial count stays ($a, then $b 1.6 s later)" [ -n "$a" -a "$a" = "$b" ]
console live resume
poll live 20 more_trials "$b"
ok "resume: [running] and the count goes on ($b, then $(trials))" running_past "$b"

console live "prio 3 0"
poll live 20 task_row_is 3 0 paused
ok "prio 3 0: after the round task 3 shows priority 0, paused ($(awk '$1 == 3' "$tmp/rows"))" task_row_is 3 0 paused
# keys act on what was asked for and not yet applied: both presses count
tm send-keys -t live -l '++'
poll live 30 task_prio_is 0 4
ok "+ + in one round: task 0's priority is 4 after the round ($(awk '$1 == 0' "$tmp/rows"))" task_prio_is 0 4
tm send-keys -t live -l -- '-----'
poll live 30 task_row_is 0 0 paused
ok "- five times from 4 (2, 1, 0.5, 0.25, 0): task 0 paused ($(awk '$1 == 0' "$tmp/rows"))" task_row_is 0 0 paused
console live "model $model"
poll live 20 shows "^ pruner-tui  .*  model $model "
ok "model $model: the header shows it after the round" \
   shows "^ pruner-tui  resnet_50 on h100_sxm SIMULATED  policy pruner  model $model "

console live "frob 3"
poll live 5 last_row_is "error: unknown command 'frob' (help lists them)"
ok "an unknown command is named on the console row ($(tail -n1 "$tmp/screen"))" \
   last_row_is "error: unknown command 'frob' (help lists them)"
console live "prio 99 1"
poll live 5 last_row_is "error: prio: no task '99' (task IDs go from 0 to 26)"
ok "prio 99 1 names the task IDs there are ($(tail -n1 "$tmp/screen"))" \
   last_row_is "error: prio: no task '99' (task IDs go from 0 to 26)"

capture live
seen=$(trials)
tm send-keys -t live q
poll live 30 shows '^EXIT=' && poll live 10 stty_shown
ok "q: pruner-tui exits 0 after the round (EXIT=$(exit_status))" [ "$(exit_status)" = 0 ]
ok "q: the terminal is back in canonical mode with echo" sane
ok "q: the summary counts at least the $seen trials seen, stopped" summary_counts "$seen"
ok "q: the summary says the screen thread's CPU ($(grep '^screen thread:' "$tmp/screen"))" screen_thread_line

# ---- htop's keys, at 80x24: the table shows 7 rows ----
# the conv2d tasks' IDs, as --list shows them
"$bin" --list "$src/models/resnet_50.task" | awk '$2 == "conv2d" { print $1 }' >"$tmp/conv.ids"

title_starts() {   # title_starts TEXT: the task table's title bar (the screen's 3rd row) starts with TEXT
   case "$(sed -n 3p "$tmp/screen")" in "$1"*) true ;; *) false ;; esac
}

# selected NAME: the selected row (reverse video), its escapes taken out, in $tmp/selected
selected() {
   tm capture-pane -e -p -J -t "$1" | sed -E 's/\x1b\[([0-9]*;)*7m/@REVERSE@/g; s/\x1b\[[0-9;]*m//g' |
      sed -n 's/^@REVERSE@//p' >"$tmp/selected"
}

selected_is() {   # selected_is NAME ID: the selected row is task ID's
   selected "$1"
   [ "$(awk '{ print $1 }' "$tmp/selected")" = "$2" ]
}

# keys_move NAME KEYS ID TITLE: sends KEYS (tmux key names), then waits for the title to
# start with TITLE and the selection to be task ID's
keys_move() {
   name=$1 keys=$2 id=$3 want=$4
   tm send-keys -t "$name" $keys
   poll "$name" 20 title_starts "$want" && selected_is "$name" "$id"
}

all_conv() {   # every row shown is a conv2d task's (7 rows)
   rows_are 7 && ! cut -d' ' -f1 "$tmp/rows" | grep -vqxFf "$tmp/conv.ids"
}

# latencies_sorted desc|asc: the rows' latencies in that order, "-" (none yet) last
latencies_sorted() {
   rows
   awk -v dir="$1" '{ if ($2 == "-") { dash = 1; next }
                      if (dash || (n && (dir == "desc" ? $2 > last : $2 < last))) bad = 1
                      last = $2; n++ }
                    END { exit bad || n == 0 }' "$tmp/rows"
}

# follows NAME: the selected row is the task being tuned; its ID is added to $tmp/followed
follows() {
   selected "$1"
   [ "$(awk '{ print $NF }' "$tmp/selected")" = tuning ] || return 1
   awk '{ print $1 }' "$tmp/selected" >>"$tmp/followed"
   [ "$(sort -u "$tmp/followed" | wc -l)" -ge 2 ]
}

start keys 80x24 "$src/models/resnet_50.task" --device sim:a100_40 --trials 100000 --no-compile \
   --session "$tmp/keys.jsonl"
poll keys 30 more_trials 0 && poll keys 10 title_starts ' Tasks 1-7/27  sort: id▲'
ok "80x24: the title shows rows 1-7 of 27, sorted by ID, ascending ($(sed -n 3p "$tmp/screen" | cut -c1-30))" \
   title_starts ' Tasks 1-7/27  sort: id▲'
ok "80x24: the ID column's head is marked ascending" shows '^ID▲ Task +Wt +Lat\(ms\) +GFLOPS +Trials +Roof +Prio +State$'
ok "j 13 times: task 13 selected, the title says rows 8-14 of 27" keys_move keys "j j j j j j j j j j j j j" 13 \
   ' Tasks 8-14/27  '
ok "k: task 12" keys_move keys k 12 ' Tasks 8-14/27  '
ok "G: the last task, rows 21-27" keys_move keys G 26 ' Tasks 21-27/27  '
ok "g: the first task, rows 1-7" keys_move keys g 0 ' Tasks 1-7/27  '
ok "Ctrl-F: a page down, task 7, rows 2-8" keys_move keys C-f 7 ' Tasks 2-8/27  '
ok "Ctrl-B: a page up, task 0, rows 1-7" keys_move keys C-b 0 ' Tasks 1-7/27  '
ok "End: the last task, rows 21-27" keys_move keys End 26 ' Tasks 21-27/27  '
ok "Home: the first task, rows 1-7" keys_move keys Home 0 ' Tasks 1-7/27  '

# the search: F3, the text, Enter; n the next
tm send-keys -t keys F3
tm send-keys -t keys -l layer3
poll keys 20 last_row_is "search: layer3  Enter: done  F3: next  Esc: back"
ok "F3 layer3: the console row is the search's prompt" \
   last_row_is "search: layer3  Enter: done  F3: next  Esc: back"
ok "F3 layer3 Enter: task 13 (layer3.0.conv1) selected, rows 8-14" keys_move keys Enter 13 ' Tasks 8-14/27  '
ok "n: the next layer3 task, 14, rows 9-15" keys_move keys n 14 ' Tasks 9-15/27  '

# the filter: /conv Enter shows the conv2d tasks only; task 14 stays selected, the 14th
# of them
tm send-keys -t keys -l /conv
poll keys 20 last_row_is "filter: conv  Enter: done (empty: every task)  Esc: back"
tm send-keys -t keys Enter
poll keys 20 title_starts ' Tasks 9-15/24  filter: conv (24 of 27)  sort: id▲'
ok "/conv Enter: the title says 24 of the 27 tasks match ($(sed -n 3p "$tmp/screen" | cut -c1-45))" \
   title_starts ' Tasks 9-15/24  filter: conv (24 of 27)  sort: id▲'
poll keys 20 all_conv
ok "/conv: the 7 rows shown are conv2d tasks ($(cut -d' ' -f1 "$tmp/rows" | tr '\n' ' '))" all_conv
tm send-keys -t keys G
poll keys 20 title_starts ' Tasks 18-24/24  filter: conv' && poll keys 20 all_conv
ok "/conv, G: rows 18-24 of 24, conv2d tasks all ($(rows; cut -d' ' -f1 "$tmp/rows" | tr '\n' ' '))" all_conv
tm send-keys -t keys -l '\'
tm send-keys -t keys C-u Enter
poll keys 20 title_starts ' Tasks 19-25/27  sort: id▲'
ok "\\, nothing, Enter: the filter is off, task 24 still selected in rows 19-25 of 27" \
   keys_move keys '' 24 ' Tasks 19-25/27  sort: id▲'

# the sort: F6 twice is latency, descending; < and > set the direction
tm send-keys -t keys F6 F6
poll keys 20 title_starts ' Tasks 1-7/27  sort: latency▼'
ok "F6 F6: sorted by latency, descending, shown from the top" title_starts ' Tasks 1-7/27  sort: latency▼'
ok "F6 F6: the latency column's head says descending" shows '^ ID Task +Wt Lat\(ms\)▼ +GFLOPS '
poll keys 20 latencies_sorted desc
ok "F6 F6: the rows' latencies go down ($(rows; awk '{ print $2 }' "$tmp/rows" | tr '\n' ' '))" latencies_sorted desc
tm send-keys -t keys '<'
poll keys 20 title_starts ' Tasks 1-7/27  sort: latency▲'
ok "<: ascending, the head says so" shows '^ ID Task +Wt Lat\(ms\)▲ +GFLOPS '
poll keys 20 latencies_sorted asc
ok "<: the rows' latencies go up ($(rows; awk '{ print $2 }' "$tmp/rows" | tr '\n' ' '))" latencies_sorted asc
tm send-keys -t keys '>'
poll keys 20 title_starts ' Tasks 1-7/27  sort: latency▼' && poll keys 20 latencies_sorted desc
ok ">: descending again" latencies_sorted desc

# F5: the selection follows the task being tuned, round after round, until j
: >"$tmp/followed"
tm send-keys -t keys F5
poll keys 60 follows keys
ok "F5: the selection is the tuning task in round after round ($(sort -u "$tmp/followed" | tr '\n' ' '))" \
   sh -c '[ "$(sort -u "$1" | wc -l)" -ge 2 ]' _ "$tmp/followed"
ok "F5: the title says following" shows '^ Tasks [0-9]+-[0-9]+/27  sort: latency▼  following'
tm send-keys -t keys j
poll keys 20 sh -c '! grep -q "  following" "$1"' _ "$tmp/screen"
selected keys
stay=$(awk '{ print $1 }' "$tmp/selected")
capture keys
seen=$(trials)
poll keys 30 more_trials $((seen + 20))
ok "j ends following: task $stay stays selected while $seen trials become $(trials)" selected_is keys "$stay"

# the threads, by name, as top -H and htop show them
pane=$(tm list-panes -t keys -F '#{pane_pid}')
pid=$(pgrep -P "$pane" -f "$tmp/keys.jsonl")
cat /proc/"$pid"/task/*/comm >"$tmp/comm" 2>/dev/null
named() {   # named NAME: how many of the program's threads are called NAME
   grep -cx "$1" "$tmp/comm"
}
ok "threads: the screen keeps the program's name, an engine, a trainer ($(sort "$tmp/comm" | uniq -c | tr -s ' \n' '  '))" \
   sh -c '[ "$1" = pruner-tui ] && [ "$2" -ge 1 ] && [ "$3" -ge 1 ]' _ "$(cat /proc/"$pid"/comm)" "$(named engine)" "$(named train)"
ok "threads: the search's workers, $(named search) (cores: $(nproc))" \
   sh -c '[ "$1" -le 1 ] || [ "$2" -ge 1 ]' _ "$(nproc)" "$(named search)"

# the console stays open for several commands until Escape; an answer longer than the
# width opens in the pager, wrapped at word boundaries, readable in full
far="$tmp/no/such/directory/with/a/name/long/enough/to/pass/the/width/of/the/screen.jsonl"
# the engine paused first: a round's lines would push the answer out of the two rows
# the log has at 80x24
tm send-keys -t keys Space
poll keys 60 shows '\[paused\]$'
tm send-keys -t keys -l ":best"
tm send-keys -t keys Enter
open_with_answer() {   # the prompt on the last row, best's answer in the log
   shows '^estimated total latency ' && tail -n1 "$tmp/screen" | grep -q "^:" && shows '^> best$'
}
poll keys 20 open_with_answer
ok "the console stays open after a command: the prompt on the last row, the answer in the log" open_with_answer
tm send-keys -t keys -l "export records $far"
tm send-keys -t keys Enter
poll keys 20 shows '^ export records '
ok "a long answer opens in the pager, wrapped, the whole path readable, no line over 80" \
   sh -c 'tr -d "\n" <"$1" | tr -d " " | grep -qF "$(echo "$2" | tr -d " ")" &&
          ! awk "length(\$0) > 80 { bad = 1 } END { exit !bad }" "$1"' _ "$tmp/screen" "$far"
tm send-keys -t keys q
poll keys 20 sh -c 'tail -n1 "$1" | grep -q "^:"' _ "$tmp/screen"
ok "q closes the pager and the console is still open" sh -c 'tail -n1 "$1" | grep -q "^:"' _ "$tmp/screen"
tm send-keys -t keys Escape
poll keys 20 sh -c '! tail -n1 "$1" | grep -q "^:"' _ "$tmp/screen"
ok "Escape closes the console; its last answer is on the row" sh -c 'tail -n1 "$1" | grep -q "^error: export: "' _ "$tmp/screen"

# F1 opens the help, F10 quits
tm send-keys -t keys F1
poll keys 20 shows '^ help  \(lines 1-'
# the keys come after the commands: a page down (space) at a time until F1 shows
for page in 1 2 3 4; do
   shows '^  F1, \?, h +this help$' && break
   tm send-keys -t keys ' '
   sleep 0.3
   capture keys
done
ok "F1: the help, which lists F1, its lines wrapped under their column, none cut" \
   sh -c 'grep -Eq "^  F1, \?, h +this help$" "$1" && ! awk "length(\$0) > 80 { bad = 1 } END { exit !bad }" "$1"' _ "$tmp/screen"
tm send-keys -t keys q
poll keys 20 title_starts ' Tasks '
ok "q closes the help" title_starts ' Tasks '
# F2: the setup screen; space on its first line hides Wt, q saves and closes
tm send-keys -t keys F2
poll keys 20 shows '^ Setup  up/down choose'
ok "F2: the setup screen lists the columns, Wt shown" shows '^    \[x\] Wt +the task.s occurrences in the network$'
tm send-keys -t keys ' '
poll keys 20 shows '^    \[ \] Wt '
ok "space hides Wt" shows '^    \[ \] Wt '
tm send-keys -t keys q
poll keys 20 last_row_is "settings saved to $tmp/config/pruner-tui/workbench.conf"
ok "q: the settings are saved, and the table has no Wt column" \
   sh -c 'grep -Eq "^ ID Task +Lat\(ms\)▼ +GFLOPS " "$1" && grep -qx "columns = Lat(ms) Share GFLOPS Trials Roof Idle Prio State" "$2"' \
   _ "$tmp/screen" "$tmp/config/pruner-tui/workbench.conf"
tm send-keys -t keys F10
stopped keys F10 "$tmp/keys.jsonl"
ok "F10 saved the sort and its direction, and following off" \
   sh -c 'grep -qx "sort = latency" "$1" && grep -qx "order = descending" "$1" && grep -qx "follow = no" "$1"' \
   _ "$tmp/config/pruner-tui/workbench.conf"

# ---- SIGTERM ----
start term 200x40 "$src/models/resnet_50.task" --trials 100000 --no-compile --session "$tmp/term.jsonl"
poll term 30 more_trials 0
ok "the next start reads the settings back: sorted by latency, descending, no Wt column" \
   sh -c 'grep -q "^ Tasks 1-27/27  sort: latency▼ " "$1" && grep -Eq "^ ID Task +Lat\(ms\)▼ +Share +GFLOPS " "$1"' _ "$tmp/screen"
pane=$(tm list-panes -t term -F '#{pane_pid}')
pid=$(pgrep -P "$pane" -f "$tmp/term.jsonl")
ok "SIGTERM: found the program ($pid) under the pane's shell ($pane)" [ -n "$pid" ]
kill -TERM $pid
stopped term SIGTERM "$tmp/term.jsonl"

# ---- --resume of the stopped session ----
start resumed 200x40 --resume "$tmp/term.jsonl" --trials 600 --no-compile
poll resumed 60 shows '\[running\]$'
ok "--resume of a stopped session: the header says [running]" \
   shows '^ pruner-tui  resnet_50 on h100_sxm SIMULATED .*\[running\]$'
ok "--resume: the header's ETA is a time ($(sed -n 's/.*\(ETA [^ ]*\).*/\1/p' "$tmp/screen" | head -n1))" \
   shows '^ trials [0-9]+/[0-9]+  round [0-9]+  elapsed [0-9]+:[0-9]{2}:[0-9]{2}  ETA [0-9]+:[0-9]{2}:[0-9]{2}  '
tm send-keys -t resumed Space
poll resumed 30 shows '\[paused\]$'
ok "--resume: space pauses it, the header says [paused]" shows '^ pruner-tui  resnet_50 on h100_sxm SIMULATED .*\[paused\]$'
seen=$(trials)
tm send-keys -t resumed q
poll resumed 30 shows '^EXIT=' && poll resumed 10 stty_shown
ok "--resume: q exits 0 (EXIT=$(exit_status))" [ "$(exit_status)" = 0 ]
ok "--resume: the summary counts the $seen trials, finished again: stopped" summary_counts "$seen"

# ---- too small ----
start small 70x20 "$src/models/resnet_50.task" --trials 100000 --no-compile --session "$tmp/small.jsonl"
poll small 20 shows 'needs at least'
ok "70x20: the screen says what it needs" shows '^pruner-tui needs at least 80x24; this terminal is 70x20$'
tm send-keys -t small q
poll small 30 shows '^EXIT='
ok "70x20: q still quits (EXIT=$(exit_status))" [ "$(exit_status)" = 0 ]

# ---- replay ----
wait "$batchpid"
rc=$?
batchpid=
ok "--batch made the session to replay (exit $rc)" [ "$rc" -eq 0 ]
# the final table: the last 27 rows "| ID | description | latency | GFLOPS | trials |"
grep '^|  *[0-9]' "$tmp/batch.out" | tail -n 27 | awk -F'|' '{ print $2 + 0, $4 + 0, $6 + 0 }' >"$tmp/batch.rows"
start replay 200x40 --replay "$tmp/replay.jsonl" --speed 0
# the whole frame: the header, then all 27 rows (tmux may show a frame half written)
poll replay 20 shows 'replay ended' && poll replay 20 rows_are 27
ok "--replay --speed 0: the header says the replay ended at the budget" \
   shows '^ pruner-tui  resnet_50 on h100_sxm SIMULATED  policy pruner  model random .*\[replay ended: budget\]$'
ok "--replay --speed 0: the header counts 60 of 60 trials in 30 rounds" shows '^ trials 60/60  round 30 '

rows
# The screen shows the latency with 4 decimals, --batch with 3: as integers of 0.1 us
# and 1 us, the screen's value is within 5 of ten times --batch's (5 only when the 4
# decimals end in 5, where rounding again may go either way).
ok "the replay's latencies are --batch's final table's (27 tasks)" \
   awk 'NR == FNR { lat[$1] = $2; n++; next }
        { s = $2; sub(/\./, "", s); b = sprintf("%.0f", lat[$1] * 1000); d = s - 10 * b
          if ($1 in lat && d <= 5 && d >= -5) same++ }
        END { exit !(n == 27 && same == 27) }' "$tmp/batch.rows" "$tmp/rows"
# --batch's Trials column is the task's rounds times the measurements per round; the
# screen counts the task's measure events. They agree when every round measured its 2
# states, which the session shows for this seed (27 tasks, 30 rounds, 60 measures).
sed -n 's/^{"event":"measure","round":[0-9]*,"t":[^,]*,"task":\([0-9]*\),.*/\1/p' "$tmp/replay.jsonl" | sort -n |
   uniq -c | awk '{ print $2, $1 }' >"$tmp/trials.session"
# (the rows in the saved sort's order: by ID here)
awk '{ print $1, $3 }' "$tmp/batch.rows" | sort -n >"$tmp/trials.batch"
awk '{ print $1, $3 }' "$tmp/rows" | sort -n >"$tmp/trials.screen"
ok "the replay's trials per task are --batch's ($(wc -l <"$tmp/trials.screen") tasks)" \
   sh -c '[ "$(wc -l <"$1")" -eq 27 ] && cmp -s "$1" "$2"' _ "$tmp/trials.screen" "$tmp/trials.batch"
ok "and the session's measure events per task" cmp -s "$tmp/trials.session" "$tmp/trials.screen"

# at 120x40 the table stands beside the curves with all 27 rows of resnet_50; from the
# default settings (sorted by ID), not those saved above
rm -f "$tmp/config/pruner-tui/workbench.conf"
start fit 120x40 --replay "$tmp/replay.jsonl" --speed 0
poll fit 20 shows 'replay ended' && poll fit 20 rows_are 27
rows
ok "at 120x40 all 27 task rows show ($(wc -l <"$tmp/rows") rows), beside the curves" \
   sh -c '[ "$(wc -l <"$1")" -eq 27 ] && grep -q "^ Tasks 1-27/27 .* Curves" "$2"' _ "$tmp/rows" "$tmp/screen"
# s: the first sort after ID is the share of the estimated total, heaviest first; the
# view goes to the top. The heaviest task is the one whose weight (--list's) times
# latency is the most, over all 27 rows.
"$bin" --list "$src/models/resnet_50.task" | awk '$1 ~ /^[0-9]+$/ { print $1, $(NF - 2) }' >"$tmp/weights"
heaviest_first() {
   rows
   awk 'NR == FNR { wt[$1] = $2; next }
        $2 != "-" { n++; w = wt[$1] * $2; if (n == 1) first = w; if (w > most) most = w }
        END { exit !(n == 27 && first == most && most > 0) }' "$tmp/weights" "$tmp/rows"
}
tm send-keys -t fit s
poll fit 20 title_starts ' Tasks 1-27/27  sort: share▼' && poll fit 20 heaviest_first
ok "s: sorted by share, descending, from the top; the first row is the heaviest task" heaviest_first
ok "s: the first row is selected" selected_is fit "$(rows; head -n1 "$tmp/rows" | cut -d' ' -f1)"
# replay navigation: [ a round back, R to the start, ] a round on; paused where it lands
tm send-keys -t fit '['
poll fit 20 shows '\[replay paused round 29/30\]$'
ok "[: back to the end of round 29 of 30, paused, 58 trials" \
   sh -c 'grep -q "\[replay paused round 29/30\]$" "$1" && grep -q "^ trials 58/60  round 29 " "$1"' _ "$tmp/screen"
tm send-keys -t fit R
poll fit 20 shows '\[replay paused round 0/30\]$'
ok "R: the start, nothing measured, the log empty" \
   sh -c 'grep -q "^ trials 0/60  round 0 " "$1" && ! grep -q "^round [0-9]* task" "$1"' _ "$tmp/screen"
tm send-keys -t fit ']'
poll fit 20 shows '\[replay paused round 1/30\]$'
ok "]: round 1 shown, 2 trials" shows '^ trials 2/60  round 1 '

[ "$failed" -eq 0 ]
