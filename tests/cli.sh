#!/bin/sh
# The command line: --help (the main one and each subcommand's, against the man
# page), --version, --list, --list-devices, kernel, check, explain (PSA and the
# simulator), measure, train and eval output and exit statuses (0 success, 1 bad input
# file, 2 bad usage), as TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

# The subcommands: those the main --help lists and those ui/cli/main.c dispatches, so that
# one added to either without its own --help fails here.
subcommands=$( { "$bin" --help | sed -n '/^Subcommands/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p'
                 sed -n 's/.*strcmp(argv\[1\], "\([a-z][a-z]*\)").*/\1/p' "$src/ui/cli/main.c"; } | sort -u)
nsub=$(echo "$subcommands" | wc -w)

echo "1..$((64 + 4 * nsub))"

run --help
ok "--help exits 0" [ "$rc" -eq 0 ]
ok "--help lists --list, --list-devices and --devices" sh -c 'grep -q -- "--list FILE.task" "$1" && grep -q -- "--list-devices" "$1" && grep -q -- "--devices FILE" "$1"' _ "$tmp/out"

# manOptions SUBCOMMAND: the long options its SYNOPSIS line and its SUBCOMMANDS entry
# in man/pruner-tui.1 name, one a line
manOptions() {
   awk -v name="$1" '
      /^\.SH/ { sect = $2; insyn = 0; inent = 0 }
      sect == "SYNOPSIS" && /^\.B pruner-tui / { insyn = ($3 == name) }
      sect == "SYNOPSIS" && /^\.br/ { insyn = 0 }
      sect == "SUBCOMMANDS" && prev == ".TP" && /^\.B [a-z]/ { inent = ($2 == name) }
      insyn || inent { print }
      { prev = $0 }' "$src/man/pruner-tui.1" | grep -oE '\\-\\-[a-z0-9]+(\\-[a-z0-9]+)*' | sed 's/\\-/-/g' | sort -u
}
# missingFrom FILE WORD...: the words FILE does not contain as a whole option
missingFrom() {
   f=$1; shift
   for w in "$@"; do grep -qE -- "$w([^a-z0-9-]|\$)" "$f" || printf ' %s' "$w"; done
}

ok "the subcommands are found ($(echo $subcommands))" sh -c 'for s in kernel check explain measure train eval export; do echo " $1 " | grep -q " $s "; done' _ "$(echo $subcommands)"
for sub in $subcommands; do
   run "$sub" --help
   cp "$tmp/out" "$tmp/help"
   ok "$sub --help exits 0 with its usage on standard output" \
      sh -c '[ "$1" -eq 0 ] && [ ! -s "$3" ] && head -n1 "$2" | grep -q "^Usage: pruner-tui $4 " && grep -q "^  -h, --help " "$2"' _ "$rc" "$tmp/help" "$tmp/err" "$sub"
   run "$sub" -h
   ok "$sub -h prints the same" sh -c '[ "$1" -eq 0 ] && cmp -s "$2" "$3"' _ "$rc" "$tmp/out" "$tmp/help"
   inMan=$(manOptions "$sub")
   missing=$(missingFrom "$tmp/help" $inMan)
   [ -n "$inMan" ] || missing=" (man/pruner-tui.1 has no entry for $sub)"
   ok "$sub --help names every long option of its man page entry (missing:${missing:- none})" \
      [ -n "$inMan" -a -z "$missing" ]
   manOptions "$sub" | sed 's/^/ /' > "$tmp/man"
   inHelp=$(grep -oE -- '--[a-z0-9]+(-[a-z0-9]+)*' "$tmp/help" | grep -vx -- --help | sort -u)
   missing=$(missingFrom "$tmp/man" $inHelp)
   ok "$sub's man page entry names every long option of its --help (missing:${missing:- none})" [ -z "$missing" ]
done
run measure --bogus
ok "a subcommand's usage error points to its own --help" [ "$rc" -eq 2 -a "$err" = "pruner-tui measure: unknown option '--bogus'
Try 'pruner-tui measure --help' for more information." ]

run --version
ok "--version names the package and version" [ "$rc" -eq 0 -a "$(head -n1 "$tmp/out")" = "pruner-tui 0.1.0" ]

run --list "$src/models/resnet_50.task"
ok "--list resnet_50 exits 0" [ "$rc" -eq 0 ]
rows=$(grep -cE '^ *[0-9]+  ' "$tmp/out")
ok "--list resnet_50 shows 27 task rows (got $rows)" [ "$rows" -eq 27 ]
ok "--list resnet_50 totals: weight 56, 8,206,520,296 FLOP" \
   grep -qx "Total: 27 tasks, weight 56, 8.207GFLOP per inference (8206520296 FLOP)" "$tmp/out"
ok "--list shows the stem conv row" \
   grep -qE '^ +0  conv2d +1x3x224x224 -> 64x112x112, 7x7 s2 p3 +bias\+relu +1 +237\.634M +237\.634M$' "$tmp/out"

(cd "$tmp" && PRUNER_TUI_DATADIR="$src" "$bin" --list bert_base.task >"$tmp/out2" 2>&1)
ok "a task file named without a folder is found in the data directory" grep -q "^bert_base (" "$tmp/out2"

run --bogus
ok "an unknown option exits 2 and says which" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui: unknown option '--bogus'" ]

run --list
ok "--list without a file exits 2" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui: option '--list' needs an argument" ]

run
ok "no arguments prints usage and exits 2" sh -c '[ "$1" -eq 2 ] && grep -q "^Usage: pruner-tui" "$2"' _ "$rc" "$tmp/err"

run "$src/models/resnet_50.task" --trials 0
ok "tuning a file checks its flags first: --trials 0 exits 2" [ "$rc" -eq 2 ]

run "$src/tests/data/tiny2.task" --trials 4 --no-compile --no-session
ok "tuning a file with standard output not a terminal falls back to batch mode, with a notice" \
   [ "$rc" -eq 0 -a "$(head -n1 "$tmp/err")" = \
     "pruner-tui: standard output is not a terminal: tuning without the screen, as --batch does" ]
ok "and prints what --batch prints" grep -q "^Estimated total latency" "$tmp/out"

printf 'network: x\nbatch: 1\ntasks:\n  - {op: conv3d, weight: 1}\n' > "$tmp/bad.task"
run --list "$tmp/bad.task"
ok "a bad task file exits 1 with FILE:LINE:COL" [ "$rc" -eq 1 -a "$err" = "pruner-tui: $tmp/bad.task:4:10: unknown op 'conv3d'; expected one of: conv2d, dense, batch_matmul, max_pool2d, avg_pool2d, adaptive_avg_pool2d, global_avg_pool2d, softmax, layer_norm, conv2d_transpose, resize2d, concat, elementwise" ]

run --list "$tmp/missing.task"
ok "a missing task file exits 1" [ "$rc" -eq 1 -a "$err" = "pruner-tui: $tmp/missing.task: cannot open: No such file or directory" ]

XDG_CONFIG_HOME="$tmp/none" run --list-devices
rows=$(grep -cE '^[a-z0-9_]+ ' "$tmp/out")
ok "--list-devices exits 0 and shows 13 devices after the header (got $((rows - 1)))" [ "$rc" -eq 0 -a "$rows" -eq 14 ]

printf 'devices:\n  - name: mygpu\n    product: My GPU\n    sm_count: 0\n' > "$tmp/bad.yaml"
run --list-devices --devices "$tmp/bad.yaml"
ok "a bad devices file exits 1 naming file, line and column" sh -c '[ "$1" -eq 1 ] && grep -q "^pruner-tui: $2:4:15: " "$3"' _ "$rc" "$tmp/bad.yaml" "$tmp/err"

printf 'devices:\n  - name: mygpu\n    product: My GPU\n    sm_count: 7\n' > "$tmp/mine.yaml"
run --list-devices --devices "$tmp/mine.yaml"
ok "--devices adds the user's entries to the shipped ones" sh -c '[ "$1" -eq 0 ] && grep -qE "^mygpu +My GPU " "$2"' _ "$rc" "$tmp/out"

run kernel "$src/tests/data/every-kind.task" 8 --seed 3
ok "kernel prints the task, the sketch, the state and a launch line" sh -c '[ "$1" -eq 0 ] && grep -q "^task 8 of every_kind: dense m2 n40 k96, epilogue bias+gelu$" "$2" && grep -q "^sketch [01] of 5: " "$2" && grep -q "^state: {\"v\":1," "$2" && grep -q "^launch T_gelu_kernel: grid [0-9]* blocks, [0-9]* threads per block" "$2"' _ "$rc" "$tmp/out"
ok "kernel prints CUDA source" grep -q '^extern "C" __global__ void __launch_bounds__' "$tmp/out"

state='{"v":1,"sketch":0,"knobs":{"T_gelu.threads":32,"T_dense.unroll":16}}'
run kernel "$src/tests/data/every-kind.task" 8 --state "$state"
ok "kernel --state uses the given state" sh -c '[ "$1" -eq 0 ] && grep -qF "state: $3" "$2"' _ "$rc" "$tmp/out" "$state"

printf '%s\n' '{"v":1,"sketch":0,"knobs":{"T_gelu.threads":0,"T_dense.unroll":16}}' > "$tmp/bad.json"
run kernel "$src/tests/data/every-kind.task" 8 --state "@$tmp/bad.json"
ok "kernel rejects a bad state read from a file, naming the knob" [ "$rc" -eq 1 -a "$err" = "pruner-tui: state: knob 'T_gelu.threads' is 0; every factor must be at least 1" ]

run kernel "$src/tests/data/every-kind.task" 25
ok "kernel rejects a task that does not exist" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui kernel: TASK must be an integer from 0 to 24, not '25'" ]

run kernel "$src/tests/data/every-kind.task" 9 --reference
ok "kernel --reference prints the reference program: a kernel per stage, dense's axis i renamed beside the flat index" \
   sh -c '[ "$1" -eq 0 ] && grep -qx "the reference program: 2 kernels" "$2" &&
          grep -qx "launch T_dense_kernel: grid 6 blocks, 128 threads per block, 0 bytes of static shared memory" "$2" &&
          grep -qx "  const int i = (int)blockIdx.x \* 128 + (int)threadIdx.x;" "$2" &&
          grep -qx "  const int i_1 = i / 24;" "$2" && ! grep -q "^state:" "$2"' _ "$rc" "$tmp/out"

run kernel "$src/tests/data/every-kind.task" 8 --reference --seed 2
ok "kernel refuses --reference with --seed" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui kernel: --reference prints the reference program, not a state: leave out --seed" ]

run kernel "$src/tests/data/every-kind.task" 0 --seed 2 --state "$state"
ok "kernel refuses --seed with --state" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui kernel: --seed and --state cannot be combined" ]

run check "$src/tests/data/every-kind.task" --samples 2 --jobs 2
last=$(tail -n1 "$tmp/out")
ok "check verifies every state of every sketch kind ($last)" sh -c '[ "$1" -eq 0 ] && echo "$2" | grep -qE "^checked 50 states: 50 verified, (50|0) compiled, 0 failed$"' _ "$rc" "$last"

run check "$src/tests/data/every-kind.task" --tasks 1,x
ok "check rejects a bad task list" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui check: --tasks takes task IDs from 0 to 24 separated by commas, or all, not '1,x'" ]

run check "$src/tests/data/every-kind.task" --arch sm_80,sm_090
ok "check refuses an architecture NVRTC would refuse" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui check: --arch takes sm_NN names separated by commas, like sm_80,sm_90; 'sm_090' is not one" ]

printf 'network: mm\nbatch: 1\ntasks:\n  - {op: dense, m: 64, n: 64, k: 64, weight: 1}\n' > "$tmp/mm.task"
mm='{"v":1,"sketch":0,"knobs":{"T_dense.i":[1,8,1,2],"T_dense.j":[1,8,1,2],"T_dense.k":[2,4],"data.shared.vector":2,"weight.shared.vector":1,"T_dense.unroll":16}}'
XDG_CONFIG_HOME="$tmp/none" run explain "$tmp/mm.task" 0 --state "$mm"
ok "explain prints the loop nest, PSA's rows and its estimate on a100_40" sh -c '[ "$1" -eq 0 ] && grep -q "^kernel T_dense_kernel: grid 16, block 64, shared 1024 bytes$" "$2" && grep -qE "^T_dense_local +local +512 +524288 +8 +36 +0 +0 +15.2222 +16 +64 +1$" "$2" && grep -qx "PSA latency estimate: 0.000482 ms (score 2075.3831)" "$2"' _ "$rc" "$tmp/out"
ok "explain finds the tiling pattern and names the features" sh -c 'grep -qx "Pattern block (PAM, 8 x 23): 20101112 found at access 0 of 10" "$1" && grep -q "^row 0: T_dense_local (local)$" "$1" && grep -q "float_addsub=18 " "$1"' _ "$tmp/out"

# the simulator beside PSA: fixed values where they follow from the task (flops,
# grid, PSA's numbers) and the device (waves, occupancy), relations elsewhere
XDG_CONFIG_HOME="$tmp/none" run explain "$tmp/mm.task" 0 --state "$mm" --no-compile
cp "$tmp/out" "$tmp/explain"
ok "explain prints the simulator's terms beside PSA's, with the bound" sh -c '[ "$1" -eq 0 ] && grep -qx "Simulator on a100_40 (NVIDIA A100-SXM4-40GB), beside PSA; registers estimated from the loop nest (--no-compile)" "$2" && grep -qE "^T_dense_kernel( +[0-9]+\.[0-9]{6}){6}  (compute|shared memory|memory|latency) +0\.000482 +[0-9]+\.[0-9]{2}$" "$2"' _ "$rc" "$tmp/explain"
ok "explain's sim/PSA column is the kernel's time over PSA's" sh -c 'grep -E "^T_dense_kernel .* 0\.000482 " "$1" | awk "{ r = \$7 / \$(NF - 1); exit !(r / \$NF > 0.995 && r / \$NF < 1.005) }"' _ "$tmp/explain"
ok "explain's occupancy row: grid 16 of 64 threads, the limiter, waves over 108 SMs, estimated registers" sh -c 'grep -E "^T_dense_kernel +16 +64 +[0-9]+ +(threads|registers|shared memory|blocks) +[0-9.]+ +[0-9.]+ +[0-9.e-]+ +[0-9]+ nest$" "$1" | sed "s/shared memory/shared_memory/" | awk "{ w = 16 / (108 * \$4); o = \$4 * 2 / 64; exit !(NR == 1 && \$8 / w > 0.999 && \$8 / w < 1.001 && \$6 == sprintf(\"%.4f\", o)) }"' _ "$tmp/explain"
ok "explain's work row: 2 x 64^3 flops as PSA counts them, DRAM bytes at least the 3 matrices, PSA's 147456" grep -qE "^T_dense_kernel +524288 +524288 +([5-9][0-9]{4}|49152|[0-9]{6,}) +147456 +[0-9]+$" "$tmp/explain"
ok "explain sums the kernels into the simulated latency" sh -c 'k=$(grep -E "^T_dense_kernel .* 0\.000482 " "$1" | awk "{ print \$7 }"); grep -qE "^Simulated latency: [0-9.]+ ms \(the kernels. $k ms times the state.s jitter [0-9.]+\); PSA 0\.000482 ms: simulator/PSA [0-9.]+$" "$1"' _ "$tmp/explain"

# what explain simulates is what measure measures on the same profile
XDG_CONFIG_HOME="$tmp/none" run measure "$tmp/mm.task" 0 --device sim:a100_40 --no-compile --samples 1 --records "$tmp/one.jsonl"
measured=$(awk '$1 == "0" && $NF ~ /ok|checked\)/ { print $2 }' "$tmp/out")
state=$(sed -n 's/.*"state":"\(.*\)","costs".*/\1/p' "$tmp/one.jsonl" | sed 's/\\"/"/g')
XDG_CONFIG_HOME="$tmp/none" run explain "$tmp/mm.task" 0 --state "$state" --device sim:a100_40 --no-compile
simulated=$(sed -n 's/^Simulated latency: \([0-9.]*\) ms .*/\1/p' "$tmp/out")
ok "explain --device sim:a100_40 gives measure's latency of the same state, within its repeat noise ($simulated ms, measured $measured us)" \
   sh -c '[ "$1" -eq 0 ] && [ -n "$2" ] && [ -n "$3" ] && awk -v s="$2" -v m="$3" "BEGIN { r = s * 1000 / m; exit !(r > 0.997 && r < 1.003) }"' _ "$rc" "$simulated" "$measured"

XDG_CONFIG_HOME="$tmp/none" run explain "$tmp/mm.task" 0 --device h100_sxm
ok "explain --device picks the device, for PSA and the simulator" sh -c '[ "$1" -eq 0 ] && grep -q "^PSA on h100_sxm: peak 67000 GFLOP/s, 3350 GB/s, 132 SMs" "$2" && grep -qE "^Simulator on h100_sxm \(NVIDIA H100 80GB HBM3\), beside PSA; registers (from ptxas \(NVRTC [0-9.]+, sm_90\)|estimated from the loop nest \(.*\))$" "$2"' _ "$rc" "$tmp/out"

XDG_CONFIG_HOME="$tmp/none" run explain "$tmp/mm.task" 0 --device nosuch
ok "explain rejects an unknown device" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui explain: no device named 'nosuch' (see pruner-tui --list-devices)" ]

XDG_CONFIG_HOME="$tmp/none" run explain "$tmp/mm.task" 0 --devices "$tmp/mine.yaml" --device mygpu
ok "explain refuses a device PSA cannot use, naming the field" [ "$rc" -eq 1 -a "$err" = "pruner-tui: device mygpu ($tmp/mine.yaml:2) has no peak_fp32_gflops, which PSA needs" ]

# measure: the simulator stands in for a GPU, labelled as such; records are written
XDG_CONFIG_HOME="$tmp/none" PRUNER_TUI_LIBCUDA=/nonexistent/libcuda.so.1 run measure "$tmp/mm.task" 0 --samples 2 --verify-every 1 --records "$tmp/rec.jsonl"
ok "measure falls back to the simulator and says so" sh -c '[ "$1" -eq 0 ] && grep -q "^measuring mm (.*) on sim:h100_sxm (simulated NVIDIA H100 80GB HBM3): SIMULATED, not a GPU$" "$2" && grep -q "^note: no CUDA GPU (no CUDA driver: cannot open /nonexistent/libcuda.so.1 " "$2"' _ "$rc" "$tmp/out"
ok "measure prints a row per state and the totals" sh -c '[ "$(grep -cE "^ +[01] +[0-9.]+ +[0-9.]+ +[0-9.]+% .* ok$" "$1")" -eq 2 ] && tail -n1 "$1" | grep -qx "measured 2 states: 2 ok (simulated)"' _ "$tmp/out"
ok "measure appends one record per state" sh -c '[ "$(wc -l < "$1")" -eq 2 ] && grep -c "\"simulated\":true" "$1" | grep -qx 2' _ "$tmp/rec.jsonl"

XDG_CONFIG_HOME="$tmp/none" run measure "$tmp/mm.task" all --device sim:a100 --samples 1 --inject wrong
ok "measure catches a wrong kernel without a GPU, and exits 1 when nothing measured ok" sh -c '[ "$1" -eq 1 ] && grep -qx "pruner-tui measure: no state was measured ok" "$3" && grep -q " wrong answer: element [0-9]* of the output is " "$2" && tail -n1 "$2" | grep -qx "measured 1 states: 0 ok, 1 wrong answer (simulated)"' _ "$rc" "$tmp/out" "$tmp/err"

XDG_CONFIG_HOME="$tmp/none" run measure "$tmp/mm.task" 0 --device sim:a100 --samples 1 --inject hang
ok "measure reports an endless kernel as a run timeout" sh -c 'grep -q " run timeout: the simulated program runs .* s per launch, beyond the run timeout of 10 s$" "$1"' _ "$tmp/out"

run measure "$tmp/mm.task" 1
ok "measure rejects a task that does not exist" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui measure: TASK takes task IDs from 0 to 0 separated by commas, or all, not '1'" ]
run measure "$tmp/mm.task" 0 --device gpu0
ok "measure rejects a bad --device" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui measure: --device takes auto, cuda:N, cuda:N,M,..., cuda:all, sim:PROFILE or sim:PROFILE*N, not 'gpu0'" ]
XDG_CONFIG_HOME="$tmp/none" run measure "$tmp/mm.task" 0 --device sim:b200
ok "measure rejects an unknown profile" sh -c '[ "$1" -eq 1 ] && head -n1 "$2" | grep -q "^pruner-tui measure: sim:b200: no device profile is called .b200. (known: .*h100_sxm"' _ "$rc" "$tmp/err"
XDG_CONFIG_HOME="$tmp/none" PRUNER_TUI_LIBCUDA=/nonexistent/libcuda.so.1 run measure "$tmp/mm.task" 0 --device cuda:0
ok "measure on cuda:0 without a driver says why" [ "$rc" -eq 1 -a "$(head -n1 "$tmp/err")" = "pruner-tui measure: no CUDA driver: cannot open /nonexistent/libcuda.so.1 (/nonexistent/libcuda.so.1: cannot open shared object file: No such file or directory)" ]
run measure "$tmp/mm.task" 0 --repeats 0
ok "measure checks its counts" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui measure: --repeats must be an integer from 1 to 32, not '0'" ]
run measure "$tmp/mm.task" 0 --inject sometimes
ok "measure names the injections" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui measure: --inject takes none, wrong, oob or hang, not 'sometimes'" ]
run measure "$tmp/mm.task" 0 --records /nonexistent/dir/r.jsonl
ok "measure names a records file it cannot write" [ "$rc" -eq 1 -a "$(head -n1 "$tmp/err")" = "pruner-tui measure: /nonexistent/dir/r.jsonl: No such file or directory" ]

# train and eval: records of a task file that --network names
run eval --records "$tmp/rec.jsonl" --model psa
ok "eval names a record whose task it does not know" [ "$rc" -eq 1 -a "$(head -n1 "$tmp/err")" = "pruner-tui eval: $tmp/rec.jsonl: record 1: task dense_b1_m64_n64_k64 is in none of the task files given (add its task file with --network)" ]
run eval --records "$tmp/rec.jsonl" --model psa --network "$tmp/mm.task"
ok "eval scores records with PSA and reports its latency error" sh -c '[ "$1" -eq 0 ] && grep -qx "psa on 2 records of 1 tasks" "$2" && grep -q "^weighted over 1 tasks (2 samples): pairwise accuracy " "$2" && grep -q "^PSA.s latency estimate against the measured latency (2 samples" "$2"' _ "$rc" "$tmp/out"
run eval --records "$tmp/rec.jsonl" --model "$tmp/none.ckpt" --network "$tmp/mm.task"
ok "eval names a checkpoint it cannot open" [ "$rc" -eq 1 -a "$(head -n1 "$tmp/err")" = "pruner-tui eval: $tmp/none.ckpt: cannot open: No such file or directory" ]
run train --model mlp --out "$tmp/m.ckpt"
ok "train needs records" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui train: --records FILE is needed (one or more)" ]
run train --records "$tmp/rec.jsonl" --model linear --out "$tmp/m.ckpt"
ok "train names the models it trains" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui train: --model takes pam, pam-moa, mlp or xgb" ]
run train --records "$tmp/rec.jsonl" --model xgb --network "$tmp/mm.task" --holdout 1.5 --out "$tmp/m.ckpt"
ok "train checks --holdout" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui train: --holdout must be a number above 0 and below 1, not '1.5'" ]
cp "$tmp/rec.jsonl" "$tmp/rec2.jsonl"
run eval --records "$tmp/rec.jsonl" "$tmp/rec2.jsonl" --model psa --network "$tmp/mm.task"
ok "eval --records FILE... reads every file named after it" sh -c '[ "$1" -eq 0 ] && grep -qx "psa on 4 records of 1 tasks" "$2"' _ "$rc" "$tmp/out"
run train --records "$tmp/rec.jsonl" "$tmp/rec2.jsonl" --model xgb --network "$tmp/mm.task" --out "$tmp/m.ckpt"
ok "train --records FILE... reads every file named after it" sh -c '[ "$1" -eq 0 ] && grep -q "^on the training samples: weighted over 1 tasks (4 samples)" "$2"' _ "$rc" "$tmp/out"
run train "$tmp/rec.jsonl" --model xgb --network "$tmp/mm.task" --out "$tmp/m.ckpt"
ok "train takes files as records only after --records" [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui train: unexpected argument '$tmp/rec.jsonl'" ]

[ "$failed" -eq 0 ]
