#!/bin/sh
# Every shipped device profile simulates: every state of resnet_18 measures ok on each
# (registers estimated), and every kind of operator measures ok with NVRTC compiling
# for each profile's architecture (or, for an architecture NVRTC no longer targets, with
# a note that registers are estimated). A profile the simulator cannot use is refused
# up front with the field it lacks, and a run that measures nothing exits 1.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"
export XDG_CONFIG_HOME="$tmp/none"

profiles=$("$bin" --list-devices | awk 'NR > 1 { print $1 }')
count=$(echo "$profiles" | wc -l)
echo "1..$((2 * count + 3))"

quick="--samples 1 --repeats 1 --verify-every 1000000"
for d in $profiles; do
   run measure "$src/models/resnet_18.task" all $quick --device "sim:$d" --no-compile
   ok "sim:$d measures every state of resnet_18 (--no-compile)" \
      sh -c '[ "$1" -eq 0 ] && tail -n1 "$2" | grep -qx "measured 18 states: 18 ok (simulated)"' _ "$rc" "$tmp/out"
   run measure "$src/tests/data/every-kind.task" all $quick --device "sim:$d"
   ok "sim:$d measures every kind of operator with NVRTC or says it estimates registers" \
      sh -c '[ "$1" -eq 0 ] && tail -n1 "$2" | grep -qx "measured 25 states: 25 ok (simulated)" &&
             { grep -q "compiled for sm_[0-9]*;" "$2" || grep -q "^note: .*NVRTC.*: the simulator estimates registers" "$2"; }' \
      _ "$rc" "$tmp/out"
done

run measure "$src/tests/data/every-kind.task" 0 $quick --device sim:k80
ok "sim:k80 says once, up front, that NVRTC cannot target sm_37" \
   sh -c '[ "$(grep -c "cannot compile for sm_37" "$1")" -eq 1 ] || [ "$(grep -c "NVRTC is not available" "$1")" -eq 1 ]' _ "$tmp/out"

cat >"$tmp/partial.yaml" <<'YAML'
devices:
  - name: partial
    product: Partial GPU
    compute_capability: "8.6"
    peak_fp32_gflops: 10000
    mem_bandwidth_gbs: 500
    sm_count: 40
  - name: nol2
    product: No L2 GPU
    compute_capability: "8.6"
    peak_fp32_gflops: 10000
    mem_bandwidth_gbs: 500
    sm_count: 40
    l2_bytes: 4194304
YAML
run measure "$src/tests/data/every-kind.task" 0 $quick --device sim:partial --devices "$tmp/partial.yaml" --no-compile
ok "a profile without l2_bytes is refused with the field named" \
   [ "$rc" -eq 1 -a "$err" = "pruner-tui measure: device partial ($tmp/partial.yaml:2) has no l2_bytes, which the simulator needs (its compute capability does not fix it)" ]
run measure "$src/tests/data/every-kind.task" 0 $quick --device sim:nol2 --devices "$tmp/partial.yaml" --no-compile
ok "the per-SM limits come from the compute capability, and the note names them" \
   sh -c '[ "$1" -eq 0 ] && grep -qx "note: sim:nol2 has no sm_partitions, warp_size, max_threads_per_sm, max_threads_per_block, max_blocks_per_sm, regs_per_sm, max_regs_per_thread, shared_per_sm, shared_per_block, shared_per_block_optin: taken from compute capability 8.6" "$2"' \
   _ "$rc" "$tmp/out"
[ "$failed" -eq 0 ]
