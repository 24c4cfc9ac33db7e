#!/bin/sh
# Every numeric option of every command refuses junk, nothing, a negative and a number
# too large for it with one message that names the option and what it takes; and the
# options that take several values (FILE..., repeatable ones) use all of them.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"
export XDG_CONFIG_HOME="$tmp/none"
task="$src/tests/data/tiny2.task"

# COMMAND|OPTION|what the message says the option takes ("=" in COMMAND is a space)
options="
measure|--samples|an integer from 1 to 100000
measure|--seed|an integer from 0 to 2147483647
measure|--repeats|an integer from 1 to 32
measure|--timeout|a number above 0 and at most 3600
measure|--build-timeout|a number above 0 and at most 3600
measure|--jobs|an integer from 1 to 256
measure|--min-repeat-ms|a number at least 0 and at most 60000
measure|--same|an integer from 1 to 1000
measure|--verify-every|an integer from 1 to 1000000
measure|--max-memory|a size from 1M to 1024T, like 512M or 4G
dataset|--states|an integer from 1 to 1000000
dataset|--evolved|a number at least 0 and at most 1
dataset|--per-batch|an integer from 1 to 4096
dataset|--seed|an integer from 0 to 2147483647
dataset|--repeats|an integer from 1 to 32
dataset|--timeout|a number above 0 and at most 3600
dataset|--build-timeout|a number above 0 and at most 3600
dataset|--jobs|an integer from 1 to 256
dataset|--verify-every|an integer from 1 to 1000000
dataset|--max-memory|a size from 1M to 1024T, like 512M or 4G
check|--samples|an integer from 1 to 100000
check|--seed|an integer from 0 to 2147483647
check|--blocks|an integer from 1 to 1000000
check|--jobs|an integer from 1 to 256
check|--max-memory|a size from 1M to 1024T, like 512M or 4G
kernel|--seed|an integer from 0 to 2147483647
explain|--seed|an integer from 0 to 2147483647
train|--holdout|a number above 0 and below 1
train|--epochs|an integer from 1 to 10000
train|--seed|an integer from 0 to 2147483647
eval|--seed|an integer from 0 to 2147483647
calibrate|--holdout|a number at least 0 and below 1
calibrate|--rank-weight|a number at least 0 and at most 1000
calibrate|--restarts|an integer from 0 to 100
calibrate|--seed|an integer from 0 to 2147483647
--batch=$task|--trials|an integer from 1 to 100000000
--batch=$task|--per-round|an integer from 1 to 10000
--batch=$task|--seed|an integer from 0 to 2147483647
--batch=$task|--jobs|an integer from 1 to 256
--batch=$task|--verify-every|an integer from 1 to 1000000
--replay=$task|--speed|a number at least 0 and at most 1000000
"
values="12abc|-1|99999999999999999999|| 7"
noptions=$(echo "$options" | grep -c .)
echo "1..$((noptions * 5 + 4))"

echo "$options" | grep . >"$tmp/options"
while IFS='|' read -r cmd opt takes; do
   who=${cmd%%=*}
   [ "$who" = "${who#--}" ] || who="--${who#--}"
   echo "$values" | tr '|' '\n' >"$tmp/values"
   while IFS= read -r v; do
      # shellcheck disable=SC2086
      run $(echo "$cmd" | tr '=' ' ') "$opt" "$v"
      ok "$who $opt '$v' is refused with what it takes" \
         [ "$rc" -eq 2 -a "$(echo "$err" | head -n1)" = "pruner-tui $who: $opt must be $takes, not '$v'" ]
   done <"$tmp/values"
done <"$tmp/options"

# FILE... and repeatable options
"$bin" measure "$task" all --samples 6 --repeats 1 --device sim:t4 --no-compile --records "$tmp/a.jsonl" >/dev/null 2>&1
cp "$tmp/a.jsonl" "$tmp/b.jsonl"
run calibrate --records "$tmp/a.jsonl" "$tmp/b.jsonl" --device t4 --network "$task" --out "$tmp/c.yaml" --restarts 0
ok "calibrate --records FILE... reads every file named after it" \
   sh -c '[ "$1" -eq 0 ] && head -n1 "$2" | grep -q "^calibrating the simulator of t4 (Tesla T4) to 24 records of 2 tasks (read 24:"' \
   _ "$rc" "$tmp/out"
run eval --records "$tmp/a.jsonl" --model psa --network "$src/tests/data/batch4.task" --network "$task"
ok "--network FILE.task... looks the records up in every file given" \
   sh -c '[ "$1" -eq 0 ] && grep -qx "psa on 12 records of 2 tasks" "$2"' _ "$rc" "$tmp/out"
run dataset "$task" "$src/tests/data/batch4.task" --out "$tmp/d.jsonl" --states 1 --device sim:t4 --no-compile --no-progress
ok "dataset FILE.task... collects the tasks of every file" \
   sh -c '[ "$1" -eq 0 ] && [ "$(wc -l <"$2")" -eq 8 ]' _ "$rc" "$tmp/d.jsonl"
run dataset "$task" "$src/tests/data/batch4.task" --exclude "$task" --exclude "$src/tests/data/odd-shapes.task" \
   --out "$tmp/e.jsonl" --states 1 --device sim:t4 --no-compile --no-progress
ok "dataset --exclude FILE.task... leaves out the tasks of every file excluded" \
   sh -c '[ "$1" -eq 0 ] && head -n1 "$2" | grep -q "^collecting 6 tasks of 2 task files (2 left out: in --exclude)" &&
          [ "$(wc -l <"$3")" -eq 6 ]' _ "$rc" "$tmp/out" "$tmp/e.jsonl"
[ "$failed" -eq 0 ]
