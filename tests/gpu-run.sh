#!/bin/sh
# bench/gpu/run --dry-run: every part of the GPU script against the simulator and the
# stub driver, so that the script the device machine runs cannot rot; its usage
# errors, its time budget, bench/gpu/pack's folder, and bench/gpu/report's tables
# from the dry run's folder; as TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
script="$src/bench/gpu/run"
export PTUI_BIN="$bin"

"$script" --part 8 > "$tmp/o" 2> "$tmp/e"
ok "--part 8 is refused with status 2" [ $? -eq 2 ]
ok "... and says which parts there are" grep -qx "bench/gpu/run: there is no part 8 (1 to 7)" "$tmp/e"
"$script" --budget 5m > "$tmp/o" 2> "$tmp/e"
ok "--budget 5m is refused: whole seconds" grep -qx "bench/gpu/run: --budget takes whole seconds, not '5m'" "$tmp/e"

r=$tmp/dry
# part 7 builds a library and checks its plan on the CPU: tests/export-library.sh covers
# the library itself, so the quick runs (sanitizers, distcheck) leave the part out
args="--dry-run --out $r"
[ -n "${PTUI_TESTS_QUICK:-}" ] && args="--dry-run --part 1,2,3,4,5,6 --out $r"
"$script" $args > "$tmp/dry.out" 2>&1
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
if [ -n "${PTUI_TESTS_QUICK:-}" ]; then
   for i in 1 2 3; do echo "ok $((n += 1)) - part 7 # SKIP not in the quick runs"; done
elif /usr/bin/python3 -c 'import onnx' 2>/dev/null && [ -e "${CUDA_HOME:-/usr/local/cuda}/include/cuda.h" ]; then
   ok "part 7: resnet_18 (64x64) exported as a library, its plan checked on the CPU" \
      grep -q "^  checked: the plan run on the CPU equals the graph's reference (relative RMS [0-9.e-]*); build it with make -C $r/library/lib\$" "$s"
   ok "part 7: the library built, its runtime agrees with the plan and the weights" \
      has "  lib: 26 steps in 18 modules, arena 329728 bytes, weights 46738848 bytes: plan and weights agree"
   ok "part 7: the weights are not kept in the results" [ ! -e "$r/library/lib/resnet_18.weights" ]
else
   for i in 1 2 3; do echo "ok $((n += 1)) - part 7 # SKIP no python3 onnx or no CUDA toolkit"; done
fi

# the records, in the form bench/gpu/records/ keeps them
rd=$r/records
ok "records: an INDEX.tsv with its columns" \
   [ "$(head -n 1 "$rd/INDEX.tsv")" = "$(printf 'file\trecords\tgpu\tdriver\tdate\tpart\tcommand')" ]
day=$(date -u +%Y-%m-%d)
ok "records: part 2's 39 records in one file, named by date and device" \
   [ "$(grep -c . "$rd/$day-dryrun-h100_sxm-correctness.jsonl")" -eq 39 ]
ok "records: its row says the records, the device, the part and the command" grep -qxF \
   "$(printf '%s\t39\tnone (DRY RUN: sim:h100_sxm)\tnone\t%s\t2 correctness: measure every task, --verify-every 1\tbench/gpu/run %s' "$day-dryrun-h100_sxm-correctness.jsonl" "$day" "$args")" \
   "$rd/INDEX.tsv"
ok "records: part 4's sessions as records, 20 each" \
   [ "$(cat "$rd/$day-dryrun-h100_sxm-resnet_18-pruner-20.jsonl" "$rd/$day-dryrun-h100_sxm-resnet_18-ansor-xgb-20.jsonl" | grep -c '"simulated":true')" -eq 40 ]
ok "records: four files (parts 2, 3 and 4; no ncu in a dry run)" [ "$(tail -n +2 "$rd/INDEX.tsv" | wc -l)" -eq 4 ]
"$bin" calibrate --records "$rd/$day-dryrun-h100_sxm-resnet_18-pruner-20.jsonl" --device h100_sxm --out "$tmp/cal.yaml" > "$tmp/cal.out" 2>&1
ok "records: read back by calibrate" [ -s "$tmp/cal.yaml" ]
"$src/bench/gpu/keep" "$r" --records-dir "$tmp/kept" --sessions-dir "$tmp/ksess" > /dev/null 2> "$tmp/e"
ok "keep: a dry run's records are refused" grep -qxF \
   "bench/gpu/keep: $r is a dry run's folder: its records are simulated, not a GPU's" "$tmp/e"
# the same folder as if a GPU had written it
cp -r "$r" "$tmp/real"
sed -i 's/none (DRY RUN: sim:h100_sxm)/none (test)/' "$tmp/real/records/INDEX.tsv"
"$src/bench/gpu/keep" "$tmp/real" --records-dir "$tmp/kept" --sessions-dir "$tmp/ksess" > "$tmp/k1" 2>&1
ok "keep: exits 0" [ $? -eq 0 ]
ok "keep: the four files and their rows" [ "$(ls "$tmp/kept"/*.jsonl | wc -l)" -eq 4 ] && \
   [ "$(grep -c . "$tmp/kept/INDEX.tsv")" -eq 5 ]
ok "keep: the sessions, renamed network first with the date" \
   [ -s "$tmp/ksess/resnet_18-sim_h100_sxm-pruner-20-$(echo "$day" | tr -d -).jsonl" ]
"$src/bench/gpu/keep" "$tmp/real" --records-dir "$tmp/kept" --sessions-dir "$tmp/ksess" > "$tmp/k2" 2>&1
ok "keep: a second time keeps nothing twice" [ "$(grep -c '^already kept: ' "$tmp/k2")" -eq 4 ] && \
   [ "$(grep -c . "$tmp/kept/INDEX.tsv")" -eq 5 ]
echo '{}' >> "$tmp/real/records/$day-dryrun-h100_sxm-timing.jsonl"
"$src/bench/gpu/keep" "$tmp/real" --records-dir "$tmp/kept" --sessions-dir "$tmp/ksess" > /dev/null 2> "$tmp/e"
ok "keep: a kept file is never overwritten by other records" grep -qxF \
   "bench/gpu/keep: $tmp/kept/$day-dryrun-h100_sxm-timing.jsonl exists with other records: not overwritten" "$tmp/e"

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

# bench/gpu/sample: records of every task of the networks given, in the same form
"$src/bench/gpu/sample" --dry-run --samples 2 --networks "bert_tiny resnet_18" --out "$tmp/smp" > "$tmp/smp.out" 2>&1
ok "sample: exits 0" [ $? -eq 0 ]
ok "sample: 2 states of each of bert_tiny's 8 tasks" grep -qxF "  bert_tiny: measured 16 states: 16 ok (simulated)" "$tmp/smp/summary.txt"
ok "sample: a file and a row per network" [ "$(grep -c "	sample: measure every task of .*, --samples 2 --seed 2	" "$tmp/smp/records/INDEX.tsv")" -eq 2 ] && \
   [ "$(grep -c . "$tmp/smp/records/$day-dryrun-h100_sxm-sample-resnet_18.jsonl")" -eq 36 ]
"$src/bench/gpu/sample" --samples x > /dev/null 2> "$tmp/e"
ok "sample: a bad number is refused" grep -qxF "bench/gpu/sample: 'x' is not a whole number" "$tmp/e"

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
   ok "pack: the folder packed in one file" sh -c "tar tzf '$tmp/carry.tgz' | grep -qx 'carry/bin/pruner-tui'"
   PTUI_BIN="$tmp/carry/pruner-tui" "$script" --dry-run --part 1 --out "$tmp/packed" > /dev/null 2>&1
   ok "run: through pack's wrapper" grep -q "^program: $tmp/carry/pruner-tui (pruner-tui " "$tmp/packed/summary.txt"
fi

echo "1..$n"
[ $failed -eq 0 ]
