# What the shell tests share, sourced by each: the program and the source tree, a
# temporary directory removed on exit, and ok, which prints a TAP line and counts the
# failures. A test script ends with `[ "$failed" -eq 0 ]`.
bin="${PTUI_BUILDDIR:-.}/pruner-tui"
src="${PTUI_SRCDIR:-.}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

ok() {   # ok DESCRIPTION CONDITION...
   desc=$1; shift
   n=$((n + 1))
   if "$@"; then
      echo "ok $n - $desc"
   else
      echo "not ok $n - $desc"
      failed=$((failed + 1))
   fi
}
