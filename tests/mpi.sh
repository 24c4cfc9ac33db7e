#!/bin/sh
# Measuring through MPI (--mpi under mpirun): rank 0 tunes, the other ranks measure
# with their simulated GPUs. The same seed gives the same session on one GPU, on a
# local fleet of four and under mpirun -np 3; a worker rank killed mid-run loses no
# recorded measurement and --resume with the ranks left repeats none; dataset collects
# the same records through MPI; as TAP. Skipped without MPI in the build or mpirun.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

if ! "$bin" --version | grep -q "MPI yes"; then
   echo "1..0 # SKIP this build has no MPI (configure found no Open MPI)"
   exit 0
fi
if ! command -v mpirun >/dev/null 2>&1; then
   echo "1..0 # SKIP mpirun is not installed (Debian package openmpi-bin)"
   exit 0
fi
if ! "$bin" --version | grep -q "XGBoost yes"; then
   echo "1..0 # SKIP XGBoost is not built in (the tests tune with xgb, the quickest learned model)"
   exit 0
fi

# mpirun as the test user may be (root in a container), with more ranks than cores,
# and without the sanitizer's leak report on Open MPI's own allocations
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
task="$src/tests/data/tiny2.task"
# measure events in a session (0 while it is not there)
measures() { if [ -f "$1" ]; then grep -c '"event":"measure"' "$1"; else echo 0; fi; }
settings="--no-compile --seed 3 --trials 40 --per-round 5 --policy ansor --cost-model xgb"

echo "1..15"

# shellcheck disable=SC2086
"$bin" --batch "$task" --device sim:h100_sxm $settings --session "$tmp/one.jsonl" >/dev/null 2>&1
# shellcheck disable=SC2086
"$bin" --batch "$task" --device 'sim:h100_sxm*4' $settings --session "$tmp/four.jsonl" >/dev/null 2>&1
# shellcheck disable=SC2086
mpirun -np 3 "$bin" --batch "$task" --mpi --device sim:h100_sxm $settings --session "$tmp/mpi.jsonl" \
   </dev/null >"$tmp/out" 2>"$tmp/err"
rc=$?
ok "mpirun -np 3 --batch --mpi exits 0" [ "$rc" -eq 0 ]
ok "under mpirun -np 3 the session is one GPU's, the clock and the fleet aside" \
   "$bin" __session-compare "$tmp/one.jsonl" "$tmp/mpi.jsonl"
ok "under mpirun -np 3 the session is four local GPUs', the clock and the fleet aside" \
   "$bin" __session-compare "$tmp/four.jsonl" "$tmp/mpi.jsonl"
ok "the header names the two worker ranks' devices" \
   sh -c 'head -n1 "$1" | grep -q ",\"fleet\":\"mpi:sim:h100_sxm@1,sim:h100_sxm@2\",\"fleet_size\":2,\"tasks\":"' _ "$tmp/mpi.jsonl"
ok "the last round end's counts of the two ranks sum to the 40 trials" \
   [ "$(($(grep '"event":"round_end"' "$tmp/mpi.jsonl" | tail -n1 | grep -o '"n":[0-9]*' | cut -d: -f2 | paste -sd+)))" -eq 40 ]
ok "--batch says it tunes on rank 1's and rank 2's devices" \
   grep -q "^tuning tiny2 (.*) on MPI rank 1: sim:h100_sxm (simulated NVIDIA H100 80GB HBM3), 2 devices: mpi:sim:h100_sxm@1,sim:h100_sxm@2: SIMULATED, not a GPU$" "$tmp/out"

# shellcheck disable=SC2086
"$bin" --batch "$task" --mpi --device sim:h100_sxm $settings --no-session </dev/null >"$tmp/out" 2>"$tmp/err"
rc=$?
ok "--mpi without mpirun (one rank) is refused (exit 1) with how to start it" \
   [ "$rc" -eq 1 -a "$(cat "$tmp/err")" = "pruner-tui --batch: --mpi: this run has 1 MPI rank; start it with mpirun -np N (N of 2 or more): rank 0 tunes and the others measure" ]

# a worker rank killed mid-run: mpirun ends the job; the session keeps what it wrote
# and --resume goes on with the ranks that are left
# shellcheck disable=SC2086
mpirun -np 3 "$bin" --batch "$task" --mpi --device sim:h100_sxm --sim-realtime $settings \
   --session "$tmp/cut.jsonl" </dev/null >"$tmp/cut.out" 2>&1 &
job=$!
tries=0
while [ "$(measures "$tmp/cut.jsonl")" -lt 12 ] && [ $tries -lt 600 ]; do
   sleep 0.1
   tries=$((tries + 1))
done
for pid in $(pgrep -f "pruner-tui --batch $task --mpi"); do
   if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=2'; then
      kill -9 "$pid"
   fi
done
wait $job
rc=$?
kept=$(grep -c '"event":"measure"' "$tmp/cut.jsonl")
cp "$tmp/cut.jsonl" "$tmp/cut0.jsonl"
ok "killing worker rank 2 ends the run (mpirun exits non-zero)" [ "$rc" -ne 0 ]
ok "the cut session holds between 12 and 39 measurements ($kept)" [ "$kept" -ge 12 -a "$kept" -lt 40 ]
mpirun -np 2 "$bin" --resume "$tmp/cut.jsonl" --mpi --sim-realtime --no-compile </dev/null >"$tmp/out" 2>"$tmp/err"
rc=$?
ok "--resume under mpirun -np 2 (the ranks left) exits 0" [ "$rc" -eq 0 ]
ok "every line the cut session had is still the start of the session" \
   sh -c 'head -n "$(wc -l <"$1")" "$2" | cmp -s - "$1"' _ "$tmp/cut0.jsonl" "$tmp/cut.jsonl"
# shellcheck disable=SC2086
"$bin" --batch "$task" --device sim:h100_sxm --sim-realtime $settings --session "$tmp/whole.jsonl" >/dev/null 2>&1
ok "the resumed session is the uninterrupted run's, the clock and the fleet aside" \
   "$bin" __session-compare "$tmp/whole.jsonl" "$tmp/cut.jsonl"
ok "40 measurements in all, no state of a task twice" \
   [ "$(grep -c '"event":"measure"' "$tmp/cut.jsonl")" -eq 40 -a \
     "$(grep '"event":"measure"' "$tmp/cut.jsonl" | sed 's/.*"task":\([0-9]*\),"state":\("[^}]*}\).*/\1 \2/' | sort -u | wc -l)" -eq 40 ]

# dataset: rank 0 collects the records the workers measure
"$bin" dataset "$task" --device sim:h100_sxm --no-compile --states 20 --no-progress --out "$tmp/one.records" \
   >/dev/null 2>&1
mpirun -np 3 "$bin" dataset "$task" --mpi --device sim:h100_sxm --no-compile --states 20 --no-progress \
   --out "$tmp/mpi.records" </dev/null >"$tmp/out" 2>"$tmp/err"
rc=$?
ok "mpirun -np 3 dataset --mpi exits 0" [ "$rc" -eq 0 ]
for f in one mpi; do
   sed -E 's/,"(compile_s|run_s|time)":[0-9.e+-]+//g' "$tmp/$f.records" >"$tmp/$f.cut"
done
ok "dataset through MPI writes one GPU's 40 records, the clock aside" \
   sh -c '[ "$(wc -l <"$1")" -eq 40 ] && cmp -s "$1" "$2"' _ "$tmp/one.cut" "$tmp/mpi.cut"

[ "$failed" -eq 0 ]
