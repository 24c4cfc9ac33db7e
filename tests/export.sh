#!/bin/sh
# `pruner-tui export`: a session tuned on the simulator exported as records (read back
# by eval), as the tuning curve, as kernels and as an SVG plot of the curves; '-' for standard output; what is
# appended and what replaced; usage errors (exit 2) and bad sessions (exit 1, one
# message, nothing written); as TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

echo "1..40"

"$bin" --batch "$src/tests/data/tiny2.task" --device sim:h100_sxm --no-compile --trials 20 --per-round 5 \
   --cost-model random --session "$tmp/s.jsonl" >/dev/null 2>&1
grep '"event":"measure"' "$tmp/s.jsonl" >"$tmp/measures"
ok "the session to export has 20 measure events" [ "$(wc -l <"$tmp/measures")" -eq 20 ]

run export "$tmp/s.jsonl" --records "$tmp/r.jsonl" --curve "$tmp/curve.tsv" --kernels "$tmp/k"
ok "export writes all three and exits 0" [ "$rc" -eq 0 -a -z "$err" ]
ok "export says what it wrote, a line each" [ "$out" = "appended 20 records to $tmp/r.jsonl
wrote 4 curve lines to $tmp/curve.tsv
wrote 2 kernels to $tmp/k" ]

ok "one record per measure event" [ "$(wc -l <"$tmp/r.jsonl")" -eq 20 ]
sed -n 's/.*\("state":".*"\),"costs":.*/\1/p' "$tmp/measures" >"$tmp/want-states"
sed -n 's/.*\("state":".*"\),"costs":.*/\1/p' "$tmp/r.jsonl" >"$tmp/got-states"
ok "the records' states are the events', in order" \
   sh -c '[ "$(wc -l <"$1")" -eq 20 ] && cmp -s "$1" "$2"' _ "$tmp/want-states" "$tmp/got-states"
sed -n 's/.*\("costs":\[[^]]*\]\).*/\1/p' "$tmp/measures" >"$tmp/want-costs"
sed -n 's/.*\("costs":\[[^]]*\]\).*/\1/p' "$tmp/r.jsonl" >"$tmp/got-costs"
ok "the records' costs are the events', to the digit" \
   sh -c '[ "$(wc -l <"$1")" -eq 20 ] && cmp -s "$1" "$2"' _ "$tmp/want-costs" "$tmp/got-costs"
ok "each record names the header's device and the simulator" \
   [ "$(grep -c '"device":"h100_sxm","simulated":true,' "$tmp/r.jsonl")" -eq 20 ]
run eval --records "$tmp/r.jsonl" --model psa --network "$src/tests/data/tiny2.task"
ok "eval reads the exported records" sh -c '[ "$1" -eq 0 ] && grep -qx "psa on 20 records of 2 tasks" "$2"' _ "$rc" "$tmp/out"

ok "the curve has a line per round_end" [ "$(wc -l <"$tmp/curve.tsv")" -eq 4 ]
tab=$(printf '\t')
ok "the curve's lines are Pruner's total_latency.tsv, the first without a latency" \
   sh -c '[ "$(grep -cE "^ElapsedTime\(s\)$2[0-9]+${2}EstimatedLatency\(ms\)$2([0-9]+\.[0-9]{3}|N/A)${2}Trials$2[0-9]+$" "$1")" -eq 4 ] &&
          head -n1 "$1" | grep -q "${2}N/A${2}Trials${2}5$"' _ "$tmp/curve.tsv" "$tab"
ok "the curve's trials are the round ends'" \
   [ "$(cut -f6 "$tmp/curve.tsv" | tr '\n' ' ')" = \
     "$(sed -n 's/^{"event":"round_end",.*"trials":\([0-9]*\),.*/\1/p' "$tmp/s.jsonl" | tr '\n' ' ')" ]

ok "a .cu and a .json per task" [ "$(cd "$tmp/k" && echo *)" = "task-0.cu task-0.json task-1.cu task-1.json" ]
ok "the .cu names its task and holds the kernel" \
   sh -c 'grep -q "^// pruner-tui .*: task 1 of tiny2, conv2d_" "$1" && grep -q "^extern \"C\" __global__ " "$1"' _ "$tmp/k/task-1.cu"
ok "the .json gives the grid and block in three dimensions" \
   sh -c 'grep -q "\"grid\":.*\[[0-9]*, 1, 1\]" "$1" && grep -q "\"block\":.*\[[0-9]*, 1, 1\]" "$1"' _ "$tmp/k/task-0.json"

run export "$tmp/s.jsonl" --curve - --records "$tmp/r.jsonl" --kernels "$tmp/k"
ok "--curve - prints the curve alone on standard output, the summary on standard error" \
   sh -c '[ "$1" -eq 0 ] && cmp -s "$2" "$3" && grep -qx "wrote 4 curve lines to standard output" "$4"' \
   _ "$rc" "$tmp/out" "$tmp/curve.tsv" "$tmp/err"
ok "records are appended, as every records writer does" [ "$(wc -l <"$tmp/r.jsonl")" -eq 40 ]
ok "kernels are replaced" [ "$(cd "$tmp/k" && echo *)" = "task-0.cu task-0.json task-1.cu task-1.json" ]

run export "$tmp/s.jsonl" --records -
ok "--records - prints the records" sh -c '[ "$1" -eq 0 ] && head -n20 "$2" | cmp -s - "$3"' _ "$rc" "$tmp/r.jsonl" "$tmp/out"

run --help
ok "--help shows export's usage" grep -q "^       pruner-tui export SESSION \[--records FILE\] \[--curve FILE\] \[--kernels DIR\]$" "$tmp/out"

run export "$tmp/s.jsonl"
ok "nothing to export is a usage error" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = \
   "pruner-tui export: nothing to export: give --records FILE, --curve FILE, --kernels DIR, --plot FILE.svg, --front DIR or --library DIR" ]
run export "$tmp/s.jsonl" --records - --curve -
ok "records and curve cannot share standard output" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = \
   "pruner-tui export: --records and --curve cannot both go to standard output ('-')" ]
run export --curve -
ok "a session is needed" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui export: expected one SESSION file" ]

run export "$tmp/none.jsonl" --curve "$tmp/none.tsv"
ok "an unreadable session exits 1 and names it" \
   [ "$rc" -eq 1 -a "$err" = "pruner-tui export: $tmp/none.jsonl: No such file or directory" -a ! -e "$tmp/none.tsv" ]

# a measure of task 0 whose state is not a state, after the engine's header
head -n1 "$tmp/s.jsonl" >"$tmp/g.jsonl"
echo '{"event":"measure","round":1,"t":0.5,"task":0,"state":"garbage","costs":[1e-05],"error":"ok","lineage":"random","draft":null,"verify":null}' >>"$tmp/g.jsonl"
run export "$tmp/g.jsonl" --records "$tmp/g-records" --kernels "$tmp/g-kernels"
ok "a state that does not parse: file, line, task and why; exit 1" [ "$rc" -eq 1 -a "$err" = \
   "pruner-tui export: $tmp/g.jsonl:2: task 0: state: not valid JSON: parsing stopped at character 1 ('garbage')" ]
ok "and nothing is written" [ ! -e "$tmp/g-records" -a ! -e "$tmp/g-kernels" ]

sed 's/"task":0,/"task":7,/' "$tmp/g.jsonl" >"$tmp/t.jsonl"
run export "$tmp/t.jsonl" --records "$tmp/t-records"
ok "an unknown task index: file, line and the tasks there are; exit 1" [ "$rc" -eq 1 -a "$err" = \
   "pruner-tui export: $tmp/t.jsonl:2: task 7 is not one of the header's 2 tasks (0 to 1)" ]

sed "s|\"network_file\":\"[^\"]*\"|\"network_file\":\"$tmp/gone/tiny2.task\"|" "$tmp/s.jsonl" >"$tmp/moved.jsonl"
run export "$tmp/moved.jsonl" --kernels "$tmp/m"
ok "a network file that is gone: the session's line and the file; exit 1" [ "$rc" -eq 1 -a "$err" = \
   "pruner-tui export: $tmp/moved.jsonl:1: its network file: $tmp/gone/tiny2.task: cannot open: No such file or directory" ]
run export "$tmp/moved.jsonl" --kernels "$tmp/m" --network "$src/tests/data/tiny2.task"
ok "--network names it instead" [ "$rc" -eq 0 -a "$out" = "wrote 2 kernels to $tmp/m" ]

# the curves as SVG, of tests/data's tiny session (6 rounds, the first without a
# latency), checked against its curve
tiny="$src/tests/data/tiny2-session.jsonl"
run export "$tiny" --plot "$tmp/p.svg" --curve "$tmp/p.tsv"
ok "--plot writes the SVG and says so" [ "$rc" -eq 0 -a "$out" = "wrote 6 curve lines to $tmp/p.tsv
wrote the curves of 5 rounds with a latency to $tmp/p.svg" ]
if command -v xmllint >/dev/null 2>&1; then
   ok "the SVG is well-formed XML (xmllint)" xmllint --noout "$tmp/p.svg"
else
   ok "the SVG is well-formed XML (python3's xml.etree)" \
      python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$tmp/p.svg"
fi
ok "its title names the network, device, policy and model" \
   grep -qx '<title>tiny2 on h100_sxm (simulated), policy pruner, cost model pam</title>' "$tmp/p.svg"
# a checkpoint by its file's name, not the directory the run took it from
"$bin" export "$src/sessions/resnet_50-NVIDIA_H200-pruner-700.jsonl" --plot "$tmp/h200.svg" >/dev/null 2>&1
ok "the title names a checkpoint by its file's name" \
   grep -qx '<title>resnet_50 on h200, policy pruner, cost model pam-moa (from pam-sim-t4-holdout5.ckpt)</title>' \
   "$tmp/h200.svg"
# the first plot (against trials): its frame, its axes' ends (the first and last tick
# labels) and its polyline's points
awk '/<g class="plot">/ { plot++ } plot == 1' "$tmp/p.svg" >"$tmp/plot1"
frame=$(sed -n 's/.*<rect class="frame" x="\([^"]*\)" y="\([^"]*\)" width="\([^"]*\)" height="\([^"]*\)".*/\1 \2 \3 \4/p' "$tmp/plot1")
xticks=$(sed -n 's/.*class="xtick"[^>]*>\([^<]*\)<.*/\1/p' "$tmp/plot1" | tr '\n' ' ')
yticks=$(sed -n 's/.*class="ytick"[^>]*>\([^<]*\)<.*/\1/p' "$tmp/plot1" | tr '\n' ' ')
ok "the trials axis runs 0 to 15 in 5s, the latency axis 0.012 to 0.022 ms in 0.002s" \
   [ "$frame" = "90.00 70.00 370.00 260.00" -a "$xticks" = "0 5 10 15 " -a "$yticks" = "0.012 0.014 0.016 0.018 0.020 0.022 " ]
sed -n 's/.*<polyline class="curve"[^>]* points="\([^"]*\)".*/\1/p' "$tmp/plot1" | tr ' ' '\n' >"$tmp/points"
ok "a point per curve line with a latency: 5" \
   [ "$(wc -l <"$tmp/points")" -eq 5 -a "$(grep -vc 'N/A' "$tmp/p.tsv")" -eq 5 ]
# where each point must be: the curve's trials, the round ends' latencies (the curve
# rounds them to 3 decimals, too coarse for a plot of 0.0125 .. 0.0201 ms)
grep -v 'N/A' "$tmp/p.tsv" | cut -f6 >"$tmp/trials"
sed -n 's/^{"event":"round_end",.*"latency_ms":\([0-9.e-]*\),.*/\1/p' "$tiny" >"$tmp/latencies"
paste "$tmp/trials" "$tmp/latencies" | awk -v f="$frame" 'BEGIN { split(f, r, " ") }
   { printf "%.2f,%.2f\n", r[1] + ($1 - 0) / (15 - 0) * r[3], r[2] + r[4] - ($2 - 0.012) / (0.022 - 0.012) * r[4] }' \
   >"$tmp/want-points"
ok "the first point, 4 trials at 0.02011 ms (90 + 4/15 x 370, 330 - 0.00811/0.01 x 260), is where the axes put it" \
   [ "$(head -n1 "$tmp/points")" = "$(head -n1 "$tmp/want-points")" -a "$(head -n1 "$tmp/points")" = "188.67,119.11" ]
ok "the last point, 12 trials at 0.0125 ms, too" \
   [ "$(tail -n1 "$tmp/points")" = "$(tail -n1 "$tmp/want-points")" -a "$(tail -n1 "$tmp/points")" = "386.00,317.00" ]
ok "and every point between" cmp -s "$tmp/points" "$tmp/want-points"
ok "the rounds plot has acceptance and Kendall tau in its legend" \
   [ "$(awk '/<g class="plot">/ { plot++ } plot == 3' "$tmp/p.svg" | sed -n 's/.*<text [^>]*>\(.*\)<\/text>/\1/p' | tail -n2 | tr '\n' '|')" = \
     "draft acceptance rate|Kendall tau, draft vs verify model|" ]

run export "$tiny" --plot "$tmp/no/such/dir/p.svg"
ok "a plot into a directory that is not there: exit 1, the path and why" \
   [ "$rc" -eq 1 -a "$err" = "pruner-tui export: $tmp/no/such/dir/p.svg: No such file or directory" ]
run export "$tiny" --plot -
ok "--plot - is a usage error" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui export: --plot takes a file, not '-'" ]

[ "$failed" -eq 0 ]
