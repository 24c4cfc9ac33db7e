#!/bin/sh
# ONNX conformance: bench/onnx/conformance runs ONNX's backend tests (Debian's
# libonnx-testdata) through `pruner-tui run --test-data`; no test gets a wrong answer
# or crashes (the script exits 0), at least 95% of the tests whose models use only the
# listed operators pass, and the report's totals line is well formed; as TAP. Skipped
# when the test data or /usr/bin/python3's onnx is missing.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

data=/usr/share/libonnx-testdata/data
if [ ! -d "$data" ]; then
   echo "1..0 # SKIP libonnx-testdata is not installed"
   exit 0
fi
if ! /usr/bin/python3 -c 'import onnx' 2>/dev/null; then
   echo "1..0 # SKIP /usr/bin/python3 cannot import onnx"
   exit 0
fi

echo "1..3"

# PTUI_TESTS_QUICK (CI's sanitizer and distcheck runs): the listed operators' tests only
quick=
[ -n "${PTUI_TESTS_QUICK:-}" ] && quick=--listed-only
"$src/bench/onnx/conformance" --bin "$bin" --data "$data" --out "$tmp/RESULTS.md" --jobs 2 $quick \
   --cache "$tmp/optypes.tsv" >"$tmp/out" 2>"$tmp/err"
rc=$?
ok "bench/onnx/conformance exits 0: no wrong answer, no crash (exit status $rc)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || sed -n '/^## Wrong answers and crashes/,/^## /p' "$tmp/RESULTS.md" 2>/dev/null | grep '^- ' | sed 's/^/# /'
[ -s "$tmp/err" ] && sed 's/^/# /' "$tmp/err"

totals=$(grep '^Totals: ' "$tmp/RESULTS.md" 2>/dev/null | head -n1)
# the counts add up to the tests and the rate is passed / tests, to a tenth of a percent
well_formed() {
   echo "$totals" | grep -Eq '^Totals: [0-9]+ tests of the listed operators: [0-9]+ passed, [0-9]+ failed, [0-9]+ disputed, [0-9]+ refused, [0-9]+ crashed; pass rate [0-9]+\.[0-9]% \([0-9]+/[0-9]+\)$' &&
   echo "$totals" | awk '{ gsub(/[^0-9.]/, " "); $0 = $0
      # tests passed failed disputed refused crashed rate passed tests
      exit !(NF == 9 && $1 > 0 && $2 + $3 + $4 + $5 + $6 == $1 && $8 == $2 && $9 == $1 &&
             sprintf("%.1f", 100 * $2 / $1) == $7) }'
}
ok "the totals line is well formed: $totals" well_formed

rate=$(echo "$totals" | sed -nE 's/.*pass rate ([0-9.]+)%.*/\1/p')
ok "the pass rate over the listed operators is ${rate:-?}% (at least 95%)" \
   awk -v r="${rate:-0}" 'BEGIN { exit !(r + 0 >= 95) }'

[ "$failed" -eq 0 ]
