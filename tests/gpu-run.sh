#!/bin/sh
# bench/gpu/run --dry-run: every part of the GPU script against the simulator and the
# stub driver, so that the script the device machine runs cannot rot; its usage
# errors, its time budget, bench/gpu/pack's folder, and bench/gpu/report's tables
# from the dry run's folder; as TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
script="$src/bench/gpu/run"
export PTUI_BIN="$bin"

"$script" --part 7 > "$tmp/o" 2> "$tmp/e"
ok "--part 7 is refused with status 2" [ $? -eq 2 ]
ok "... and says which parts there are" grep -qx "bench/gpu/run: there is no part 7 (1 to 6)" "$tmp/e"
"$script" --budget 5m > "$tmp/o" 2> "$tmp/e"
ok "--budget 5m is refused: whole seconds" grep -qx "bench/gpu/run: --budget takes whole seconds, not '5m'" "$tmp/e"

r=$tmp/dry
"$script" --dry-run --out "$r" > "$tmp/dry.out" 2>&1
ok "--dry-run exits 0" [ $? -eq 0 ]
s=$r/summary.txt
has() { grep -qxF -- "$1" "$s"; }
ok "it says it is a dry run on sim:h100_sxm" grep -q "^bench/gpu/run: DRY RUN on sim:h100_sxm" "$s"
ok "part 1: the stub driver's answer for cuda:0" grep -q "^cuda:0: pruner-tui measure: no CUDA driver" "$s"
ok "part 2: bert_tiny's 8 tasks, one state each, all ok" has "  bert_tiny: measured 8 states: 8 ok (simulated)"
ok "part 2: bench/gpu/odd.task's 15 tasks" has "  odd: measured 15 states: 15 ok (simulated)"
ok "part 2: tests/data/odd-shapes.task's 16 tasks" has "  odd-shapes: measured 16 states: 16 ok (simulated)"
ok "part 2: 39 states with a result, 0 wrong answers" has "  states with a result: 39; wrong answers: 0"
ok "part 2: a planted hang is a run timeout each time" has "  planted hang: measured 3 states: 0 ok, 3 run timeout (simulated)"
ok "part 2: a planted out-of-bounds store is a runtime error" has "  planted oob: measured 3 states: 0 ok, 3 runtime error (simulated)"
ok "part 2: a planted wrong output is a wrong answer" has "  planted wrong: measured 3 states: 0 ok, 3 wrong answer (simulated)"
ok "part 2: a clean run after the faults" has "  after the faults: measured 4 states: 4 ok (simulated)"
ok "part 3: six resnet_50 tasks timed with 10 repeats" \
   has "  resnet_50 tasks 0,2,3,5,14,25, 1 state(s) each: measured 6 states: 6 ok (simulated)"
ok "part 3: the repeats' spread over the six" grep -q "^  spread of the repeats over 6 states: median " "$s"
ok "part 3: ncu is not run in a dry run" has "  ncu: not run (dry run)"
for cfg in pruner ansor-xgb; do
   f=$r/sessions/sim_h100_sxm-resnet_18-$cfg-20.jsonl
   ok "part 4: the $cfg session finished its 20 trials" sh -c "tail -n 1 '$f' | grep -q '\"event\":\"finished\".*\"why\":\"budget\"'"
done
ok "part 5: 27 resnet_50 tasks, none timed without PyTorch" has "  27 tasks, 0 timed"
ok "part 5: the vendor script counted each task's bytes (conv1: 3,851,264)" \
   grep -qxF "$(printf 'task\tresnet_50\t0\tconv2d\t3851264\t-\t\t-')" "$r/vendor.tsv"
ok "part 6: calibrate fitted and wrote its profile" [ -s "$r/calibrated.yaml" ]
ok "part 6: on the 45 records of parts 2 and 3" grep -q "^  profile h100_sxm, 45 records:" "$s"
ok "it ends with its time" grep -q "^bench/gpu/run: done in [0-9]* s; results in $r\$" "$s"

if command -v python3 > /dev/null 2>&1; then
   "$src/bench/gpu/report" "$r" > "$tmp/report.md"
   ok "report: exits 0 on the dry run's folder" [ $? -eq 0 ]
   ok "report: labelled a dry run" grep -qx "## no GPU (DRY RUN: simulator, no GPU)" "$tmp/report.md"
   ok "report: the odd shapes' correctness row" grep -qxF "| odd | 15 | 15 | 0 | 0 |" "$tmp/report.md"
   ok "report: the planted hang's row" grep -qxF "| hang | 3 | 0 ok, 3 run timeout |" "$tmp/report.md"
   ok "report: a tuning row per session" [ "$(grep -c '^| sim_h100_sxm-resnet_18-' "$tmp/report.md")" -eq 2 ]
   ok "report: a vendor row per resnet_50 task" [ "$(grep -c '^| [0-9]* | [a-z_0-9]* | ' "$tmp/report.md")" -eq 27 ]
   "$src/bench/gpu/report" "$tmp" > /dev/null 2> "$tmp/e"
   ok "report: a folder without summary.txt is refused" grep -qxF \
      "bench/gpu/report: $tmp has no summary.txt: not a bench/gpu/run results folder" "$tmp/e"
else
   echo "# python3 missing: bench/gpu/report not checked"
fi

# a budget too small for anything: nothing starts, and it says so
"$script" --dry-run --part 3 --budget 1 --out "$tmp/short" > /dev/null 2>&1
ok "--budget 1: the timing part's measure is not started" \
   grep -qx "bench/gpu/run: not started, the run's 1 s are spent: .* measure .*" "$tmp/short/timing.txt"

# bench/gpu/pack's folder runs on its own
if ldd "$bin" > /dev/null 2>&1; then
   "$src/bench/gpu/pack" --bin "$bin" --out "$tmp/carry" > "$tmp/pack.out" 2>&1
   ok "pack: exits 0" [ $? -eq 0 ]
   ok "pack: the libraries, XGBoost's among them" [ -e "$tmp/carry/lib/libxgboost.so.0" ]
   ok "pack: not the C library" [ ! -e "$tmp/carry/lib/libc.so.6" ]
   PTUI_BIN="$tmp/carry/pruner-tui" "$script" --dry-run --part 1 --out "$tmp/packed" > /dev/null 2>&1
   ok "run: through pack's wrapper" grep -q "^program: $tmp/carry/pruner-tui (pruner-tui " "$tmp/packed/summary.txt"
fi

echo "1..$n"
[ $failed -eq 0 ]
