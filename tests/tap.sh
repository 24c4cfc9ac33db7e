# What the shell tests share, sourced by each: the program and the source tree, a
# temporary directory removed on exit, ok to print a TAP line per check and count the
# failures, and run to keep a command's output and exit status.
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

# run ARGS...: sets $out, $err, $rc
run() {
   "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
   rc=$?
   out=$(cat "$tmp/out")
   err=$(cat "$tmp/err")
}
