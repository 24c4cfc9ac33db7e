#!/bin/sh
# --compare on a terminal, in tmux: two ResNet-50 sessions at 120x40 read back with
# capture-pane (the legend's lines, the table's head and first rows as the text prints
# them, the ratio column), t switching the curve to time, s sorting by the ratio, F1's
# help, the ASCII plot's letters under NO_COLOR, a resize to 90x30, q exiting 0 and a
# crash ending by its signal, both with the terminal sane; --text on a terminal printing the text; a missing file refused
# before any screen; as TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"
. "$src/tests/tmux.sh"

cp "$src/sessions/resnet_50-NVIDIA_H200-ansor-xgb-300.jsonl" "$tmp/a.jsonl"
cp "$src/sessions/resnet_50-NVIDIA_H200-pruner-300.jsonl" "$tmp/b.jsonl"
(cd "$tmp" && "$bin" --compare a.jsonl b.jsonl >"$tmp/text" 2>&1)
ok "the text of the two sessions" grep -qxF "2 sessions of resnet_50 (27 tasks)" "$tmp/text"
text_line() {   # text_line REGEX: the text's first line that matches
   grep -m1 -E -- "$1" "$tmp/text"
}
screen_line() {   # screen_line N: the screen's line N (1 the first)
   sed -n "${1}p" "$tmp/screen"
}
# the table's rows on the screen and in the text: "ID ... B/A", the first one after the head
first_rows() {   # first_rows FILE N: the first N rows after the table's head
   awk -v n="$2" '/^  ID  task/ { on = 1; next } on && $1 ~ /^[0-9]+$/ && k < n { print; k++ }' "$1"
}

start cmp 120x40 --compare a.jsonl b.jsonl
poll cmp 10 shows '^q quit'
ok "the title names the sessions' network" [ "$(screen_line 1)" = "pruner-tui --compare: 2 sessions of resnet_50 (27 tasks)" ]
ok "the legend: A's line as the text's" [ "$(screen_line 2)" = "$(text_line '^A  ')" ]
ok "the legend: B's line as the text's" [ "$(screen_line 3)" = "$(text_line '^B  ')" ]
ok "the curve against trials" shows '^estimated total latency \(ms\) / trials$'
ok "the table's head, with the B/A column, as the text's" [ "$(grep -m1 '^  ID  task' "$tmp/screen")" = "$(text_line '^  ID  task')" ]
first_rows "$tmp/screen" 5 >"$tmp/screen-rows"
first_rows "$tmp/text" 5 >"$tmp/text-rows"
ok "its first 5 rows, ratios included, as the text's" cmp -s "$tmp/screen-rows" "$tmp/text-rows"
ok "the weighted total as the text's" [ "$(grep -m1 'weighted total' "$tmp/screen")" = "$(text_line 'weighted total')" ]

tm send-keys -t cmp t
ok "t: the curve against time" poll cmp 5 shows '^estimated total latency \(ms\) / time \(m:ss\)$'
tm send-keys -t cmp t s
least=$(awk '/^  ID  task/ { on = 1; next } on && $1 ~ /^[0-9]+$/ { print $NF, $0 }' "$tmp/text" | sort -n | head -n 1 | cut -d' ' -f2-)
ok "s: by B/A, the least ratio first" poll cmp 5 sh -c '[ "$(awk "/^  ID  task/ { getline; print; exit }" "$1")" = "$2" ]' - "$tmp/screen" "$least"
tm send-keys -t cmp F1
ok "F1: the keys" poll cmp 5 shows '^pruner-tui --compare: the keys$'
tm send-keys -t cmp Space
ok "any key closes the help" poll cmp 5 shows '^q quit'

tm resize-window -t cmp -x 90 -y 30
head90=$(printf '%4s  %-46s %6s%10s%10s%10s' ID task weight A B B/A)
ok "a resize to 90x30: the task column narrower, the keys on the last row" poll cmp 5 sh -c '
   grep -qxF "$2" "$1" && [ "$(wc -l <"$1")" -eq 30 ] && tail -n 1 "$1" | grep -q "^q quit"' - "$tmp/screen" "$head90"
tm send-keys -t cmp q
poll cmp 10 shows '^EXIT=' && poll cmp 5 stty_shown
ok "q exits 0 (EXIT=$(exit_status))" [ "$(exit_status)" = 0 ]
ok "the terminal is back in canonical mode with echo" sane

# without colours the points are the sessions' letters
tm new-session -d -s mono -x 120 -y 40 -c "$tmp" "NO_COLOR=1 '$bin' --compare a.jsonl b.jsonl; echo EXIT=\$?; sleep 600"
poll mono 10 shows '^q quit'
plot_has() {   # plot_has LETTER: a row of the ASCII plot holds LETTER
   grep -E '^ *[0-9.]*\|' "$tmp/screen" | cut -c 9- | grep -q "$1"
}
ok "NO_COLOR: A's points marked A" plot_has A
ok "NO_COLOR: B's points marked B" plot_has B
tm send-keys -t mono F10
ok "F10 exits 0" poll mono 10 sh -c 'grep -qx "EXIT=0" "$1"' - "$tmp/screen"

# a crash (SIGABRT sent to it, as abort() raises it; sanitizers take SIGSEGV for
# their own): the terminal back in canonical mode with echo, then the
# signal's default action (the shell sees 128 + 6)
start crash 120x40 --compare a.jsonl b.jsonl
poll crash 10 shows '^q quit'
pane=$(tm list-panes -t crash -F '#{pane_pid}')
pid=$(pgrep -P "$pane" -f 'compare a.jsonl b.jsonl')
ok "SIGABRT: found the program ($pid) under the pane's shell ($pane)" [ -n "$pid" ]
kill -ABRT $pid
poll crash 10 shows '^EXIT=' && poll crash 5 stty_shown
ok "SIGABRT: the program ends by the signal (EXIT=$(exit_status))" [ "$(exit_status)" = 134 ]
ok "SIGABRT: the terminal is back in canonical mode with echo" sane

# --text on a terminal: the text, every line of it
start text 120x40 --compare --text a.jsonl b.jsonl
poll text 10 shows '^EXIT='
tm capture-pane -p -J -S - -t text | sed 's/ *$//' | sed '/^EXIT=/,$d' >"$tmp/text-tty"
ok "--text on a terminal prints the text (exit $(exit_status))" sh -c '[ "$1" = 0 ] && cmp -s "$2" "$3"' - \
   "$(exit_status)" "$tmp/text-tty" "$tmp/text"

# a file that cannot be read: the message, and no screen
start bad 120x40 --compare a.jsonl none.jsonl
poll bad 10 shows '^EXIT='
ok "a missing file: its message and exit 1, before any screen" sh -c '[ "$(head -n 1 "$1")" = "pruner-tui --compare: none.jsonl: No such file or directory" ] &&
   grep -qx "EXIT=1" "$1" && ! grep -q "^q quit" "$1"' - "$tmp/screen"

echo "1..$n"
[ $failed -eq 0 ]
