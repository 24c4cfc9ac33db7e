#!/bin/sh
# pruner-tui dataset: the records it collects (counts per task, no state twice, the
# same states from the same seed, random first batches, --exclude), resuming (a rerun
# adds nothing, a larger --states adds only what is missing, a line cut short is
# removed, a run killed with SIGKILL and run again neither repeats nor loses a record)
# and its errors, as TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

echo "1..31"

tiny="$src/tests/data/tiny2.task"
sim="--device sim:a100_40 --no-compile --no-progress"

# states FILE: the "task state" of every record, one a line, in file order
states() {
   sed 's/.*"task":"\([^"]*\)".*"state":"\(.*\)","costs".*/\1 \2/' "$1"
}
# dups FILE: how many (task, state) pairs occur more than once
dups() {
   states "$1" | sort | uniq -d | wc -l
}
# pertask FILE: "COUNT KEY" per task, sorted by key
pertask() {
   sed 's/.*"task":"\([^"]*\)".*/\1/' "$1" | sort | uniq -c | sed 's/^ *//'
}

run dataset "$tiny" --out "$tmp/a.jsonl" --states 24 --per-batch 8 $sim
ok "a fresh run exits 0" [ "$rc" -eq 0 ]
ok "it says what it collects" sh -c 'echo "$1" | grep -q "^collecting 2 tasks of 1 task file on sim:a100_40 (simulated .*): SIMULATED, not a GPU: 24 records each into .*a.jsonl; 0 there already$"' _ "$out"
ok "it wrote 24 records per task, all ok" sh -c 'echo "$1" | grep -q "^wrote 48 records (48 ok) in [0-9]*s; .* now holds 48 records of these tasks on a100_40 (simulated)$"' _ "$out"
ok "the file holds 24 records of each task" [ "$(pertask "$tmp/a.jsonl" | cut -d' ' -f1 | tr '\n' ' ')" = "24 24 " ]
ok "no state is measured twice for a task" [ "$(dups "$tmp/a.jsonl")" -eq 0 ]
ok "every record reads back (eval)" sh -c '"$1" eval --records "$2" --model psa --network "$3" | grep -q "^psa on 48 records of 2 tasks$"' _ "$bin" "$tmp/a.jsonl" "$tiny"

cp "$tmp/a.jsonl" "$tmp/a0.jsonl"
run dataset "$tiny" --out "$tmp/a.jsonl" --states 24 --per-batch 8 $sim
ok "a rerun adds nothing" sh -c 'echo "$1" | grep -q "^wrote 0 records (0 ok)" && cmp -s "$2" "$3"' _ "$out" "$tmp/a.jsonl" "$tmp/a0.jsonl"
ok "a rerun counts what is there" sh -c 'echo "$1" | grep -q "; 48 there already$"' _ "$out"

run dataset "$tiny" --out "$tmp/a.jsonl" --states 30 --per-batch 8 $sim
ok "a larger --states adds only the missing records" sh -c 'echo "$1" | grep -q "^wrote 12 records (12 ok)" && [ "$(wc -l < "$2")" -eq 60 ]' _ "$out" "$tmp/a.jsonl"
ok "the records already there stay first, unchanged" sh -c 'head -n 48 "$1" | cmp -s - "$2"' _ "$tmp/a.jsonl" "$tmp/a0.jsonl"
ok "still no state twice after resuming" [ "$(dups "$tmp/a.jsonl")" -eq 0 ]

# the same seed gives the same states; the first batch is random, whatever --evolved
"$bin" dataset "$tiny" --out "$tmp/b.jsonl" --states 24 --per-batch 8 $sim >/dev/null 2>&1
states "$tmp/a0.jsonl" > "$tmp/a0.states"
states "$tmp/b.jsonl" > "$tmp/b.states"
ok "the same seed gives the same states in the same order" sh -c '[ "$(wc -l < "$1")" -eq 48 ] && cmp -s "$1" "$2"' _ "$tmp/a0.states" "$tmp/b.states"
"$bin" dataset "$tiny" --out "$tmp/e0.jsonl" --states 24 --per-batch 8 --evolved 0 $sim >/dev/null 2>&1
"$bin" dataset "$tiny" --out "$tmp/e1.jsonl" --states 24 --per-batch 8 --evolved 1 $sim >/dev/null 2>&1
for f in e0 e1; do
   states "$tmp/$f.jsonl" > "$tmp/$f.states"
   awk '{ n[$1]++ } n[$1] <= 8' "$tmp/$f.states" > "$tmp/$f.first"
done
ok "--evolved leaves each task's first batch alone" sh -c '[ "$(wc -l < "$1")" -eq 16 ] && cmp -s "$1" "$2"' _ "$tmp/e0.first" "$tmp/e1.first"
ok "--evolved changes the batches after it" sh -c '[ "$(wc -l < "$1")" -eq 48 ] && ! cmp -s "$1" "$2"' _ "$tmp/e0.states" "$tmp/e1.states"
"$bin" dataset "$tiny" --out "$tmp/s2.jsonl" --states 8 --per-batch 8 --seed 2 $sim >/dev/null 2>&1
states "$tmp/s2.jsonl" > "$tmp/s2.states"
awk '{ n[$1]++ } n[$1] <= 8' "$tmp/a0.states" > "$tmp/a0.first"
ok "another seed gives other states" sh -c '[ "$(wc -l < "$1")" -eq 16 ] && ! cmp -s "$1" "$2"' _ "$tmp/s2.states" "$tmp/a0.first"

# --exclude: resnet_18 without the tasks resnet_50 also has
run dataset "$src/models/resnet_18.task" --out "$tmp/x.jsonl" --states 1 --exclude "$src/models/resnet_50.task" $sim
ok "--exclude leaves out the tasks the held-out network has" sh -c 'echo "$1" | grep -q "^collecting 12 tasks of 1 task file (6 left out: in --exclude) on "' _ "$out"
"$bin" dataset "$src/models/resnet_50.task" --out "$tmp/r50.jsonl" --states 1 $sim >/dev/null 2>&1
pertask "$tmp/r50.jsonl" | cut -d' ' -f2 | sort > "$tmp/r50.keys"
pertask "$tmp/x.jsonl" | cut -d' ' -f2 | sort > "$tmp/x.keys"
ok "none of the 12 records is of one of the 27 tasks of the excluded network" sh -c '[ "$(wc -l < "$1")" -eq 12 ] && [ "$(wc -l < "$2")" -eq 27 ] && [ -z "$(comm -12 "$1" "$2")" ]' _ "$tmp/x.keys" "$tmp/r50.keys"

# a line cut short (a run killed while writing) is removed on the next run
head -c 100 "$tmp/a0.jsonl" > "$tmp/cut.part"
cp "$tmp/a0.jsonl" "$tmp/c.jsonl"
cat "$tmp/cut.part" >> "$tmp/c.jsonl"
run dataset "$tiny" --out "$tmp/c.jsonl" --states 26 --per-batch 8 $sim
ok "a cut last line is noted" sh -c 'echo "$1" | grep -q "c.jsonl:49: the last line is cut short (100 bytes without a newline); it was skipped"' _ "$err"
ok "and removed: 52 whole records follow the 48" sh -c '[ "$(wc -l < "$1")" -eq 52 ] && head -n 48 "$1" | cmp -s - "$2" && "$3" eval --records "$1" --model psa --network "$4" >/dev/null' _ "$tmp/c.jsonl" "$tmp/a0.jsonl" "$bin" "$tiny"

# SIGKILL in the middle, then a rerun: no record repeated, none lost
"$bin" dataset "$tiny" --out "$tmp/k.jsonl" --states 400 --per-batch 4 $sim >/dev/null 2>&1 &
pid=$!
i=0
while [ "$i" -lt 600 ] && [ "$(cat "$tmp/k.jsonl" 2>/dev/null | wc -l)" -lt 60 ]; do sleep 0.05; i=$((i + 1)); done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
whole=$(wc -l < "$tmp/k.jsonl")
head -n "$whole" "$tmp/k.jsonl" > "$tmp/k.before"
run dataset "$tiny" --out "$tmp/k.jsonl" --states 400 --per-batch 4 $sim
ok "killed after $whole records, the rerun finishes" sh -c '[ "$1" -eq 0 ] && [ "$2" -ge 60 ] && [ "$2" -lt 800 ]' _ "$rc" "$whole"
ok "it holds 400 records of each task" [ "$(pertask "$tmp/k.jsonl" | cut -d' ' -f1 | tr '\n' ' ')" = "400 400 " ]
ok "no record is repeated" [ "$(dups "$tmp/k.jsonl")" -eq 0 ]
ok "the records written before the kill are kept, first" sh -c 'head -n "$1" "$2" | cmp -s - "$3"' _ "$whole" "$tmp/k.jsonl" "$tmp/k.before"

# errors
run dataset "$tiny" --out "$tmp/z.jsonl" --evolved 1.5 $sim
ok "--evolved 1.5 is a usage error" sh -c '[ "$1" -eq 2 ] && echo "$2" | grep -q "^pruner-tui dataset: --evolved must be a number at least 0 and at most 1, not .1\.5.$"' _ "$rc" "$err"
printf '%s\n{"v":1,"task":"x"}\n' "$(head -n 1 "$tmp/a0.jsonl")" > "$tmp/bad.jsonl"
run dataset "$tiny" --out "$tmp/bad.jsonl" --states 2 $sim
ok "a records file with a bad line is refused, naming it, and left alone" sh -c '[ "$1" -eq 1 ] && echo "$2" | grep -q "^pruner-tui dataset: .*bad.jsonl:2: " && [ "$(wc -l < "$3")" -eq 2 ]' _ "$rc" "$err" "$tmp/bad.jsonl"

# --select cluster: k-means's representatives of a pool of random states
run dataset "$tiny" --out "$tmp/cl.jsonl" --select cluster --budget 10 $sim
counts=$(pertask "$tmp/cl.jsonl" | cut -d" " -f1 | tr "\n" " ")
ok "--select cluster --budget 10 writes 10 records of each task, all ok" \
   sh -c '[ "$1" -eq 0 ] && [ "$2" = "10 10 " ] && echo "$3" | grep -q "^wrote 20 records (20 ok)"' _ "$rc" "$counts" "$out"
ok "no state twice" [ "$(dups "$tmp/cl.jsonl")" -eq 0 ]
run dataset "$tiny" --out "$tmp/cl2.jsonl" --select cluster --budget 10 $sim
ok "the same seed chooses the same states" [ "$(states "$tmp/cl.jsonl")" = "$(states "$tmp/cl2.jsonl")" ]
run dataset "$tiny" --out "$tmp/cl3.jsonl" --budget 10 $sim
ok "they are not random's choice" [ "$(states "$tmp/cl.jsonl")" != "$(states "$tmp/cl3.jsonl")" ]
run dataset "$tiny" --out "$tmp/cl.jsonl" --select cluster --budget 14 $sim
counts=$(pertask "$tmp/cl.jsonl" | cut -d" " -f1 | tr "\n" " ")
ok "a rerun with a larger budget adds 4 of each, none measured before" \
   [ "$counts" = "14 14 " -a "$(dups "$tmp/cl.jsonl")" -eq 0 ]
run dataset "$tiny" --out "$tmp/cl4.jsonl" --select kmeans $sim
ok "--select takes random or cluster (exit 2)" \
   [ "$rc" -eq 2 -a "$(head -n1 "$tmp/err")" = "pruner-tui dataset: --select takes random or cluster, not 'kmeans'" ]

exit $((failed > 0))
