#!/bin/sh
# pruner-tui calibrate end to end: records written by `measure` on the simulator of a
# perturbed a100_40 (a --devices file) are fitted from the shipped a100_40; the fitted
# constants come back within 5%, the held-out error falls, and the file written is a
# devices.yaml that measure takes. Also --help, and bad input's messages and exit
# statuses (1 bad input, 2 bad usage), as TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"
export XDG_CONFIG_HOME="$tmp/none"

echo "1..18"

run calibrate --help
ok "calibrate --help exits 0 with its usage" \
   sh -c '[ "$1" -eq 0 ] && grep -q "^Usage: pruner-tui calibrate --records FILE" "$2" && grep -q -- "--holdout FRACTION" "$2"' \
   _ "$rc" "$tmp/out"

cat >"$tmp/slow.yaml" <<'YAML'
devices:
  - name: a100_40
    product: "NVIDIA A100-SXM4-40GB"
    compute_capability: "8.0"
    peak_fp32_gflops: 19490
    mem_bandwidth_gbs: 1555
    sm_count: 108
    l2_bytes: 41943040
    clock_mhz: 1410
    sim: {dram_latency: 650, l2_latency: 160, launch_us: 2.1, dram_efficiency: 0.9, fp32_efficiency: 0.85}
YAML
quick="--no-compile --repeats 1 --verify-every 1000000"
"$bin" measure "$src/models/resnet_18.task" all --samples 8 $quick --devices "$tmp/slow.yaml" \
   --device sim:a100_40 --records "$tmp/r.jsonl" >"$tmp/measure.out" 2>&1
ok "measure writes 144 records of the perturbed a100_40" [ "$(wc -l <"$tmp/r.jsonl")" -eq 144 ]

run calibrate --records "$tmp/r.jsonl" --device sim:a100_40 --out "$tmp/cal.yaml"
ok "calibrate exits 0" [ "$rc" -eq 0 ]
ok "it says the records are simulated" grep -q "^note: the records are SIMULATED" "$tmp/out"
# the constant's row: NAME BEFORE AFTER ... RESULT
within() {   # within NAME WANT: the row says fitted and AFTER is within 5% of WANT
   awk -v name="$1" -v want="$2" '$1 == name && /fitted$/ { found = 1; d = $3 / want - 1; ok = d < 0.05 && d > -0.05 }
      END { exit !(found && ok) }' "$tmp/out"
}
for c in "dram_latency 650" "l2_latency 160" "launch_us 2.1" "dram_efficiency 0.9" "fp32_efficiency 0.85"; do
   set -- $c
   ok "$1 is fitted within 5% of $2" within "$1" "$2"
done
# held out: the median |ln(sim/measured)| row's before and after
ok "the held-out median |ln(sim/measured)| falls to below 0.003 and a quarter of what it was" \
   awk '/^median \|ln/ { found = 1; ok = $4 < 0.003 && $4 < $3 / 4 } END { exit !(found && ok) }' "$tmp/out"
ok "the file written says where its constants come from" \
   sh -c 'head -n1 "$1" | grep -q "^# devices.yaml entry written by pruner-tui calibrate" && grep -q "r.jsonl" "$1"' \
   _ "$tmp/cal.yaml"

run measure "$src/tests/data/tiny2.task" all --samples 2 $quick --devices "$tmp/cal.yaml" --device sim:a100_40
ok "measure takes the file written with --devices" \
   sh -c '[ "$1" -eq 0 ] && tail -n1 "$2" | grep -qx "measured 4 states: 4 ok (simulated)"' _ "$rc" "$tmp/out"

run calibrate --records "$tmp/r.jsonl" --device a100_40 --out "$tmp/named.yaml" --name a100_mine --holdout 0.3 --seed 7
run --list-devices --devices "$tmp/named.yaml"
ok "--name names the entry written" grep -q "^a100_mine " "$tmp/out"

"$bin" measure "$src/tests/data/tiny2.task" all --samples 6 $quick --device sim:h100_sxm \
   --records "$tmp/h100.jsonl" >/dev/null 2>&1
run calibrate --records "$tmp/h100.jsonl" --device a100_40 --out "$tmp/x.yaml"
ok "records of another device are refused with FILE:LINE, exit 1" \
   [ "$rc" -eq 1 -a "$err" = "pruner-tui calibrate: $tmp/h100.jsonl:1: a record of device 'h100_sxm', expected one of a100_40: the simulator of a profile is fitted to records of its own GPU (--any-device takes others too)" ]

head -n 5 "$tmp/r.jsonl" >"$tmp/few.jsonl"
run calibrate --records "$tmp/few.jsonl" --device a100_40 --out "$tmp/x.yaml"
ok "fewer than 10 records exit 1 and say so" \
   [ "$rc" -eq 1 -a "$err" = "pruner-tui calibrate: $tmp/few.jsonl: 5 usable records (of 5: 0 failed, 0 the simulator cannot run); expected at least 10" ]

run calibrate --records "$tmp/r.jsonl" --device nosuch --out "$tmp/x.yaml"
ok "an unknown profile exits 1" \
   [ "$rc" -eq 1 -a "$err" = "pruner-tui calibrate: --device: no device profile is called 'nosuch' (pruner-tui --list-devices lists them)" ]

run calibrate --records "$tmp/r.jsonl" --device a100_40
ok "without --out it exits 2" \
   [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui calibrate: --out FILE.yaml is needed" ]

ok "nothing was written where calibrate failed" [ ! -e "$tmp/x.yaml" ]

[ "$failed" -eq 0 ]
