#!/bin/sh
# The loaders of user files stop at their limits: a task file, a devices file, a
# records file and a state nested 100,000 deep are refused at the 65th level (the
# times go to the log as comments; bench/limits measures them), and a file or line past its size, a task
# file past its task count and a devices file past its device count are refused with
# the limit named. A task whose buffers exceed --max-memory is not run on the CPU:
# measure on the simulator measures it unchecked, check skips it and exits 1, before
# anything is allocated.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"
export XDG_CONFIG_HOME="$tmp/none"
echo "1..15"

brackets() {   # brackets N: N '[' on one line
   awk -v n="$1" 'BEGIN { s = "["; while (length(s) < n) s = s s; print substr(s, 1, n) }'
}

# timed ARGS...: run, and set $ms to the milliseconds it took
timed() {
   t0=$(date +%s%N)
   run "$@"
   ms=$(( ($(date +%s%N) - t0) / 1000000 ))
}

brackets 100000 >"$tmp/deep.task"
timed --list "$tmp/deep.task"
echo "# a task file 100,000 deep: refused in $ms ms"
ok "a task file nested 100,000 deep is refused at the 65th level" \
   [ "$rc" -eq 1 -a "$err" = "pruner-tui: $tmp/deep.task:1:65: nesting deeper than 64" ]

{ printf 'devices: '; brackets 100000; } >"$tmp/deep.yaml"
timed --devices "$tmp/deep.yaml" --list-devices
echo "# a devices file 100,000 deep: refused in $ms ms"
ok "a devices file nested 100,000 deep is refused at the 65th level" \
   [ "$rc" -eq 1 -a "$err" = "pruner-tui: $tmp/deep.yaml:1:73: nesting deeper than 64" ]

awk 'BEGIN { s = "- "; for (i = 0; i < 17; i++) s = s s; print s "x" }' >"$tmp/block.task"
run --list "$tmp/block.task"
ok "block lists nested 131,072 deep are refused at the 65th" \
   [ "$rc" -eq 1 -a "$err" = "pruner-tui: $tmp/block.task:1:129: nesting deeper than 64" ]

{ printf '{"task": '; brackets 100000; } >"$tmp/deep.jsonl"
timed eval --records "$tmp/deep.jsonl" --model random
echo "# a records line 100,000 deep: refused in $ms ms"
ok "a records line nested 100,000 deep is refused at the 65th level" \
   [ "$rc" -eq 1 -a "$err" = "pruner-tui eval: $tmp/deep.jsonl:1:73: nesting deeper than 64" ]

brackets 100000 >"$tmp/deep.json"
run kernel "$src/tests/data/tiny2.task" 0 --state "@$tmp/deep.json"
ok "a state nested 100,000 deep is refused" \
   [ "$rc" -eq 1 -a "$err" = "pruner-tui: state: nesting deeper than 64 at character 65" ]

awk 'BEGIN { s = "x"; for (i = 0; i < 20; i++) s = s s; print "{\"task\": \"" s "\"}" }' >"$tmp/long.jsonl"
run eval --records "$tmp/long.jsonl" --model random
ok "a records line over 1 MiB is refused" \
   [ "$rc" -eq 1 -a "$err" = "pruner-tui eval: $tmp/long.jsonl:1: longer than 1048576 bytes, the most a line may have" ]

head -c 16777217 /dev/zero | tr '\0' '#' >"$tmp/big.task"
run --list "$tmp/big.task"
ok "a task file over 16 MiB is refused before it is read" \
   [ "$rc" -eq 1 -a "$err" = "pruner-tui: $tmp/big.task: over 16777216 bytes, the most a YAML file may have" ]

awk 'BEGIN { printf "x: ["; for (i = 0; i < 1000000; i++) printf "1,"; print "1]" }' >"$tmp/wide.task"
run --list "$tmp/wide.task"
ok "a task file of more than 1,000,000 values is refused" \
   [ "$rc" -eq 1 -a "$err" = "pruner-tui: $tmp/wide.task:1:1999999: more than 1000000 values" ]

awk 'BEGIN { print "network: many\nbatch: 1\ntasks:"; for (i = 0; i < 4097; i++) print "  - {op: softmax, input: [" i + 1 "], weight: 1}" }' >"$tmp/many.task"
run --list "$tmp/many.task"
ok "a task file of 4097 tasks is refused" \
   [ "$rc" -eq 1 -a "$err" = "pruner-tui: $tmp/many.task:4:3: 4097 tasks; a task file may have at most 4096" ]

awk 'BEGIN { print "devices:"; for (i = 0; i < 257; i++) print "  - {name: d" i ", product: D" i "}" }' >"$tmp/many.yaml"
run --devices "$tmp/many.yaml" --list-devices
ok "a devices file of 257 devices is refused" \
   [ "$rc" -eq 1 -a "$err" = "pruner-tui: $tmp/many.yaml:2:3: 257 devices; a devices file may have at most 256" ]
cat >"$tmp/huge.task" <<'TASK'
network: huge
batch: 1
tasks:
  - {op: dense, m: 16, n: 64, k: 32, weight: 1}
  - {op: conv2d, input: [64, 65536, 56], filters: 64, kernel: 3, pad: 1, weight: 1}
TASK
note="task 1 needs 3.8 GiB of buffers for its CPU check, over the limit of 2.0 GiB"
timed measure "$tmp/huge.task" all --samples 1 --device sim:a100_40 --no-compile --verify-every 1
echo "# measure of a task of 3.8 GiB of buffers: $ms ms"
ok "measure says a task over --max-memory is not checked, and measures it" \
   sh -c '[ "$1" -eq 0 ] && grep -qx "note: $2: its states are not checked" "$3" &&
          grep -c "ok (not checked)" "$3" | grep -qx 1 && grep -c " ok\$" "$3" | grep -qx 1 &&
          tail -n1 "$3" | grep -qx "measured 2 states: 2 ok (simulated)"' _ "$rc" "$note" "$tmp/out"
ok "... at once" [ "$ms" -lt 5000 ]
run check "$tmp/huge.task" --samples 1 --arch sm_80 --jobs 1
ok "check skips a task over --max-memory and exits 1" \
   sh -c '[ "$1" -eq 1 ] && grep -qx "  1  conv2d               $2: skipped" "$3" &&
          tail -n1 "$3" | grep -qx "checked 1 states: 1 verified, [01] compiled, 0 failed; 1 task skipped, over --max-memory"' \
   _ "$rc" "$note" "$tmp/out"
run check "$tmp/huge.task" --tasks 0 --samples 1 --arch sm_80 --max-memory 1M
ok "check --max-memory 1M checks a task of less" \
   sh -c '[ "$1" -eq 0 ] && tail -n1 "$2" | grep -qx "checked 1 states: 1 verified, [01] compiled, 0 failed"' _ "$rc" "$tmp/out"
run measure "$tmp/huge.task" 0 --max-memory 2X
ok "--max-memory names what it takes" \
   [ "$rc" -eq 2 -a "$(echo "$err" | head -n1)" = "pruner-tui measure: --max-memory must be a size from 1M to 1024T, like 512M or 4G, not '2X'" ]
[ "$failed" -eq 0 ]
