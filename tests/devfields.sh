#!/bin/sh
# A devices.yaml entry with any one field left out, in every command that takes a
# device: each command either works or refuses with the file, the entry and the field
# it lacks, never a signal. The entry is a100_40's, renamed cut; the records and the
# session come from its whole copy.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"
export XDG_CONFIG_HOME="$tmp/none"

awk '/^  - name: a100_40$/ { on = 1 } on && /^$/ { exit } on && !/^ *#/' "$src/devices.yaml" |
   sed 's/name: a100_40/name: cut/' >"$tmp/entry"
{ echo "devices:"; cat "$tmp/entry"; } >"$tmp/full.yaml"
fields=$(awk '/^    [a-z_0-9]*:/ { sub(":.*", "", $1); if ($1 != "name") print $1 }' "$tmp/entry")
commands="list explain measure batch dataset eval calibrate export"
echo "1..$((2 + $(echo $fields | wc -w) * $(echo $commands | wc -w)))"

task="$src/tests/data/tiny2.task"
"$bin" dataset "$task" --out "$tmp/r.jsonl" --states 6 --device sim:cut --devices "$tmp/full.yaml" --no-compile \
   --no-progress >/dev/null 2>&1
ok "the whole entry gives 12 records" [ "$(wc -l <"$tmp/r.jsonl")" -eq 12 ]
"$bin" --batch "$task" --trials 2 --per-round 1 --device sim:cut --devices "$tmp/full.yaml" --no-compile \
   --session "$tmp/s.jsonl" >/dev/null 2>&1
ok "and a session of 2 measurements" [ "$(grep -c '"event":"measure"' "$tmp/s.jsonl")" -eq 2 ]

# expected FIELD COMMAND: what the command says on standard error without FIELD ("" when it works)
expected() {
   prefix="pruner-tui $2: "
   case $2 in list|explain) prefix="pruner-tui: " ;; batch) prefix="pruner-tui --batch: " ;; esac
   case $1 in
   product) echo "pruner-tui: $tmp/cut.yaml:2:5: missing key 'product' in device 'cut'"; return ;;
   compute_capability) sim=" which the simulator needs"; psa= ;;
   peak_fp32_gflops) sim=; psa=yes ;;
   mem_bandwidth_gbs|sm_count) sim=" which the simulator needs (its compute capability does not fix it)"; psa=yes ;;
   l2_bytes) sim=" which the simulator needs (its compute capability does not fix it)"; psa= ;;
   *) sim=; psa= ;;
   esac
   case $2 in
   explain) [ -n "$psa" ] && echo "${prefix}device cut ($tmp/cut.yaml:2) has no $1, which PSA needs" ;;
   measure|batch|dataset|calibrate) [ -n "$sim" ] && echo "${prefix}device cut ($tmp/cut.yaml:2) has no $1,$sim" ;;
   esac
}

for f in $fields; do
   awk -v f="$f" '$1 == f ":" { skip = 1; next } skip && /^      / { next } { skip = 0; print }' "$tmp/entry" >"$tmp/e"
   { echo "devices:"; cat "$tmp/e"; } >"$tmp/cut.yaml"
   for c in $commands; do
      rm -rf "$tmp/d.jsonl" "$tmp/k" "$tmp/c.yaml"
      case $c in
      list) set -- --list-devices ;;
      explain) set -- explain "$task" 1 --device cut --no-compile ;;
      measure) set -- measure "$task" 1 --samples 1 --repeats 1 --device sim:cut --no-compile ;;
      batch) set -- --batch "$task" --trials 2 --per-round 1 --device sim:cut --no-compile --no-session ;;
      dataset) set -- dataset "$task" --out "$tmp/d.jsonl" --states 1 --device sim:cut --no-compile --no-progress ;;
      eval) set -- eval --records "$tmp/r.jsonl" --model psa --network "$task" ;;
      calibrate) set -- calibrate --records "$tmp/r.jsonl" --device cut --network "$task" --out "$tmp/c.yaml" ;;
      export) set -- export "$tmp/s.jsonl" --kernels "$tmp/k" ;;
      esac
      run "$@" --devices "$tmp/cut.yaml"
      want=$(expected "$f" "$c")
      last=$(echo "$err" | tail -n1)
      if [ -z "$want" ]; then
         ok "without $f, $c works" [ "$rc" -eq 0 ]
      else
         ok "without $f, $c says why it cannot" [ "$rc" -eq 1 -a "$last" = "$want" ]
      fi
   done
done
[ "$failed" -eq 0 ]
