#!/bin/sh
# The workbench's curves end to end, in tmux: tests/data's tiny session replayed at
# 120x40, L putting the curves' y axes on a log scale (the title says so, the labels
# are 1-2-5 values) and back, the scale saved in workbench.conf on quitting and read
# at the next start; as TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

. "$src/tests/tmux.sh"

# y_labels: the first curve's y labels (the 6 columns from the curves panel's left
# edge, column 77 at 120x40) on its 5 rows, joined by '|'
y_labels() {
   sed -n '5,9p' "$tmp/screen" | cut -c77-82 | sed 's/^ *//' | tr '\n' '|'
}

conf="$tmp/config/pruner-tui/workbench.conf"

echo "1..8"

cp "$src/tests/data/tiny2-session.jsonl" "$tmp/s.jsonl"
start lin 120x40 --replay "$tmp/s.jsonl" --speed 0
poll lin 20 shows 'replay ended'
ok "at the start the curves are linear, and the title offers L" shows ' Curves  \[c\] next  \[L\] log scale$'
ok "the total's linear y labels: 0.022, 0.016 and 0.012 ms" [ "$(y_labels)" = "0.022||0.016||0.012|" ]

tm send-keys -t lin L
poll lin 10 shows ' Curves \(log\)  \[c\] next  \[L\] linear scale$'
ok "L: the title says (log) and offers the linear scale back" shows ' Curves \(log\)  \[c\] next  \[L\] linear scale$'
ok "the total's log y labels are 1-2-5 values: 0.05, 0.02 and 0.01 ms" [ "$(y_labels)" = "0.05||0.02||0.01|" ]

tm send-keys -t lin q
poll lin 20 shows '^EXIT='
ok "q saves the scale: scale = log" grep -qx 'scale = log' "$conf"

start again 120x40 --replay "$tmp/s.jsonl" --speed 0
poll again 20 shows 'replay ended'
ok "the next start reads it: the curves are on a log scale at once" shows ' Curves \(log\)  \[c\] next  \[L\] linear scale$'
tm send-keys -t again L
poll again 10 shows ' Curves  \[c\] next  \[L\] log scale$'
tm send-keys -t again q
poll again 20 shows '^EXIT='
ok "L again and q: scale = linear" grep -qx 'scale = linear' "$conf"
ok "and nothing else in the file changed: one scale line, the first curve still trials" \
   [ "$(grep -c '^scale = ' "$conf")" -eq 1 -a "$(grep -x 'curve = .*' "$conf")" = "curve = trials" ]

[ "$failed" -eq 0 ]
