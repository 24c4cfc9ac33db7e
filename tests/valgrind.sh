#!/usr/bin/env bash
# Runs pruner-tui under valgrind on small inputs, one command after another, each of
# which must exit 0 with no memory error and no definite leak. Not part of make check
# (it takes minutes); CI runs it after the sanitizer build.
#
#   tests/valgrind.sh [--list] [NAME...]
#
# NAMEs pick commands of the list below (default: all of them, in order; later ones use
# what earlier ones wrote). Run from a built tree, or set PTUI_BUILDDIR and
# PTUI_SRCDIR. Exit status 1 when any command failed.
set -uo pipefail

# NAME|ARGUMENTS, in order; $T is the scratch directory. Adjust the set here. The
# tuning runs use the two tasks of tests/data/tiny2.task and XGBoost: a round of the
# search is about 40 times slower under valgrind, and PAM's training through OpenBLAS
# far more (40 trials of tiny2 with PAM took 50 minutes; 10 with XGBoost take 15 s).
# The resume re-runs the session's rounds before it goes on.
COMMANDS='
list|--list models/resnet_18.task
measure|measure models/resnet_18.task 0,17 --samples 2 --device sim:a100_40 --no-compile --records $T/records.jsonl
dataset|dataset tests/data/tiny2.task --out $T/records.jsonl --states 12 --device sim:a100_40 --no-compile
batch|--batch tests/data/tiny2.task --trials 20 --per-round 5 --cost-model xgb --no-compile --device sim:a100_40 --session $T/session.jsonl
resume|--resume $T/session.jsonl --trials 30 --no-compile
replay|--replay $T/session.jsonl --speed 0
train|train --records $T/records.jsonl --network tests/data/tiny2.task --model mlp --out $T/mlp.ckpt --epochs 2 --holdout 0.25
eval|eval --records $T/records.jsonl --network tests/data/tiny2.task --model $T/mlp.ckpt
export|export $T/session.jsonl --records $T/export.jsonl --curve $T/curve.csv --kernels $T/kernels
import|import fuzz/corpus/onnx/small.onnx -o $T/small.task
run|run fuzz/corpus/onnx/decomposed.onnx --simplify
tasks|run fuzz/corpus/onnx/small.onnx --tasks --include-simple-tasks
'

srcdir=${PTUI_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=${PTUI_BUILDDIR:-$PWD}
prog=$builddir/pruner-tui

if [ "${1:-}" = --list ]; then
   printf '%s\n' "$COMMANDS" | sed '/^$/d; s/|/: pruner-tui /'
   exit 0
fi
[ -x "$prog" ] || { echo "valgrind.sh: no $prog: build first (make)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "valgrind.sh: valgrind was not found: install the Debian package valgrind" >&2; exit 2; }

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# the shipped data from the source tree; one BLAS thread; a core type that valgrind
# emulates (without it, OpenBLAS on some CPUs makes pruner-tui start itself again, and
# that process would run outside valgrind)
export PRUNER_TUI_DATADIR=$srcdir OPENBLAS_NUM_THREADS=1 OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-Haswell}
cd "$srcdir" || exit 2

names=("$@")
failed=0 ran=0
while IFS='|' read -r name args; do
   [ -z "$name" ] && continue
   if [ ${#names[@]} -gt 0 ] && ! printf '%s\n' "${names[@]}" | grep -qx "$name"; then
      continue
   fi
   args=${args//\$T/$T}
   ran=$((ran + 1))
   start=$SECONDS
   # shellcheck disable=SC2086 # the arguments are words
   valgrind --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite \
      --show-leak-kinds=definite -q \
      --log-file="$T/$name.valgrind" "$prog" $args </dev/null >"$T/$name.out" 2>&1
   status=$?
   if [ $status -eq 0 ] && [ ! -s "$T/$name.valgrind" ]; then
      printf 'ok    %-8s %4ss  pruner-tui %s\n' "$name" $((SECONDS - start)) "$args"
   else
      failed=$((failed + 1))
      printf 'FAIL  %-8s %4ss  pruner-tui %s (exit status %d%s)\n' "$name" $((SECONDS - start)) "$args" \
         $status "$([ $status -eq 9 ] && echo ': valgrind found errors')"
      sed 's/^/   valgrind: /' "$T/$name.valgrind" | head -n 60
      tail -n 15 "$T/$name.out" | sed 's/^/   output: /'
   fi
done <<<"$COMMANDS"
for n in "${names[@]}"; do
   printf '%s\n' "$COMMANDS" | grep -q "^$n|" || { echo "valgrind.sh: no command '$n' (--list shows them)" >&2; exit 2; }
done
echo "valgrind: $((ran - failed)) of $ran commands clean"
[ $failed -eq 0 ]
