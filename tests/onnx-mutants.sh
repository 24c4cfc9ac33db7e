#!/bin/sh
# ONNX import of malformed models: tests/onnx/make-mutants damages make-small's models
# (truncations, random bytes, byte flips) and builds models wrong in one field (absurd
# dimensions, dangling names, cycles, bad data, unknown ops and attributes, opsets,
# shapes whose arithmetic overflows); `import` takes each within 10 s and either imports
# it (exit 0) or refuses it (exit 1) with one line on stderr, "pruner-tui import: "
# and the reason, without control characters; the field mutants' reasons are exact; as
# TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

/usr/bin/python3 "$src/tests/onnx/make-small" "$tmp" 2>"$tmp/make.err" &&
   /usr/bin/python3 "$src/tests/onnx/make-mutants" "$tmp" >"$tmp/make.out" 2>>"$tmp/make.err"
made=$?
nrandom=$(ls "$tmp/random" 2>/dev/null | wc -l)
nfield=$(wc -l <"$tmp/field/expected" 2>/dev/null || echo 0)
groups=$(((nrandom + 49) / 50))
echo "1..$((2 + groups + nfield))"
ok "tests/onnx/make-mutants writes its models" [ $made -eq 0 -a "$nrandom" -ge 200 -a "$nfield" -ge 15 ]
mkdir -p "$tmp/again"
cp "$tmp/small.onnx" "$tmp/layout.onnx" "$tmp/decomposed.onnx" "$tmp/again/" 2>/dev/null
/usr/bin/python3 "$src/tests/onnx/make-mutants" "$tmp/again" >/dev/null 2>&1
ok "the mutants are the same on every run" sh -c 'diff -r "$1" "$2" >/dev/null' _ "$tmp/random" "$tmp/again/random"

# verdict MODEL: imports MODEL under a 10 s limit; sets $status, $line (the first line
# on stderr) and $why: empty when it imports (exit 0) or is refused well (exit 1, one
# line "pruner-tui import: ..." without control characters), else what went wrong.
verdict() {
   timeout 10 "$bin" import "$1" -o /dev/null >/dev/null 2>"$tmp/err"
   status=$?
   line=$(head -n 1 "$tmp/err")
   why=""
   case $status in
   0) return ;;
   1) ;;
   124) why="timed out"; return ;;
   *) why="exit status $status"; return ;;
   esac
   lines=$(wc -l <"$tmp/err")
   if [ "$lines" -ne 1 ]; then
      why="$lines lines on stderr"
   elif [ "${line#pruner-tui import: }" = "$line" ]; then
      why="stderr does not start with 'pruner-tui import: '"
   elif LC_ALL=C tr -d '\n' <"$tmp/err" | LC_ALL=C grep -q '[[:cntrl:]]'; then
      why="a control character on stderr"
   fi
}

# ---- damaged bytes, in groups of 50 (every third under PTUI_TESTS_QUICK: CI's
# sanitizer and distcheck runs) ----
i=0
bad=""
for m in "$tmp"/random/*.onnx; do
   [ -e "$m" ] || continue
   if [ -z "${PTUI_TESTS_QUICK:-}" ] || [ $((i % 3)) -eq 0 ]; then
      verdict "$m"
      [ -n "$why" ] && bad="$bad ${m##*/} ($why)"
   fi
   i=$((i + 1))
   if [ $((i % 50)) -eq 0 ] || [ "$i" -eq "$nrandom" ]; then
      ok "damaged models $((i - (i - 1) % 50))-$i: each imports or is refused in one line${bad:+; failed:$bad}" [ -z "$bad" ]
      bad=""
   fi
done

# ---- field mutants: the exact refusal ----
tab=$(printf '\t')
while IFS="$tab" read -r name message; do
   m="$tmp/field/$name.onnx"
   want="pruner-tui import: $(printf '%s' "$message" | sed "s|{path}|$m|g; s|{dir}|$tmp/field|g")"
   verdict "$m"
   ok "$name: refused with its reason${why:+ ($why)}" [ -z "$why" -a "$status" -eq 1 -a "$line" = "$want" ]
   [ "$line" = "$want" ] || printf '# got:  %s\n# want: %s\n' "$line" "$want"
done <"$tmp/field/expected"

exit $((failed > 0))
