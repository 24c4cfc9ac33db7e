#!/bin/sh
# What pruner-tui writes, when writing fails or the target is unusual: a full device,
# a symbolic link, a directory it may not write in, two saves at once, standard output
# that cannot be written; and the checkpoints it reads: damaged, of another kind than
# asked, or not written at all when the records teach nothing. As TAP.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

echo "1..25"

XDG_CONFIG_HOME="$tmp/none"
export XDG_CONFIG_HOME
printf 'network: mm\nbatch: 1\ntasks:\n  - {op: dense, m: 64, n: 64, k: 64, weight: 1}\n' >"$tmp/mm.task"
"$bin" measure "$tmp/mm.task" 0 --device sim:a100_40 --no-compile --samples 6 --records "$tmp/rec.jsonl" \
   >/dev/null 2>&1
session="$src/tests/data/tiny2-session.jsonl"

# train MODEL ARG...: a short training on the records
train() {
   model=$1; shift
   run train --records "$tmp/rec.jsonl" --network "$tmp/mm.task" --model "$model" --epochs 1 "$@"
}
# skip DESCRIPTION WHY
skip() {
   n=$((n + 1))
   echo "ok $n - $1 # SKIP $2"
}
# the lines of stderr that are messages, not training progress
messages() {
   grep -v '^epoch ' "$tmp/err"
}

train mlp --out "$tmp/m.ckpt"
ok "train saves a checkpoint" sh -c '[ "$1" -eq 0 ] && grep -qx "saved $2" "$3" && [ "$(head -c 8 "$2")" = PTUICKPT ]' \
   _ "$rc" "$tmp/m.ckpt" "$tmp/out"

# a full device: the error, no "saved", and the device left as it was
if [ -c /dev/full ]; then
   train mlp --out /dev/full
   ok "train --out /dev/full exits 1 with why" \
      [ "$rc" -eq 1 -a "$(messages)" = "pruner-tui train: /dev/full: No space left on device" ]
   ok "train --out /dev/full does not say saved" sh -c '! grep -q "^saved" "$1"' _ "$tmp/out"
   ok "/dev/full is still a character device" test -c /dev/full
   run export "$session" --curve /dev/full
   ok "export --curve /dev/full exits 1 with why" \
      [ "$rc" -eq 1 -a "$err" = "pruner-tui export: /dev/full: No space left on device" -a -c /dev/full ]
   "$bin" --list "$src/models/resnet_18.task" >/dev/full 2>"$tmp/err"
   rc=$?
   ok "--list to a full standard output exits 1 with why" \
      [ "$rc" -eq 1 -a "$(cat "$tmp/err")" = "pruner-tui: standard output: No space left on device" ]
   "$bin" --help >/dev/full 2>"$tmp/err"
   rc=$?
   ok "--help to a full standard output exits 1 with why" \
      [ "$rc" -eq 1 -a "$(cat "$tmp/err")" = "pruner-tui: standard output: No space left on device" ]
   "$bin" eval --records "$tmp/rec.jsonl" --network "$tmp/mm.task" --model psa >/dev/full 2>"$tmp/err"
   rc=$?
   ok "eval to a full standard output exits 1 with why" \
      [ "$rc" -eq 1 -a "$(cat "$tmp/err")" = "pruner-tui: standard output: No space left on device" ]
   "$bin" export "$session" --curve - >/dev/full 2>"$tmp/err"
   rc=$?
   ok "export --curve - to a full standard output exits 1 with one message, and no summary" \
      [ "$rc" -eq 1 -a "$(cat "$tmp/err")" = "pruner-tui export: standard output: No space left on device" ]
else
   for what in "train --out /dev/full" "train's summary" "/dev/full" "export --curve /dev/full" "--list" "--help" \
               "eval" "export --curve -"; do
      skip "$what on a full device" "no /dev/full"
   done
fi

# a symbolic link stays a link; the file it leads to gets the checkpoint
ln -s real.ckpt "$tmp/link.ckpt"
train mlp --out "$tmp/link.ckpt"
ok "a symbolic link --out stays a link" [ "$rc" -eq 0 -a -L "$tmp/link.ckpt" -a -f "$tmp/real.ckpt" ]
run eval --records "$tmp/rec.jsonl" --network "$tmp/mm.task" --model "$tmp/real.ckpt"
ok "the link's target holds the checkpoint" [ "$rc" -eq 0 -a "$(head -n1 "$tmp/out")" = "mlp on 6 records of 1 tasks" ]
run export "$session" --curve "$tmp/link.ckpt"
ok "export --curve through the link writes the file it leads to" \
   sh -c '[ "$1" -eq 0 ] && [ -L "$2/link.ckpt" ] && [ "$(wc -l <"$2/real.ckpt")" -eq 6 ]' _ "$rc" "$tmp"

# permissions: a replaced file keeps its mode; a new one gets the umask's
chmod 600 "$tmp/m.ckpt"
train mlp --out "$tmp/m.ckpt"
ok "a replaced checkpoint keeps its mode" [ "$rc" -eq 0 -a "$(stat -c %a "$tmp/m.ckpt")" = 600 ]
(umask 027; "$bin" train --records "$tmp/rec.jsonl" --network "$tmp/mm.task" --model mlp --epochs 1 \
    --out "$tmp/new.ckpt" >/dev/null 2>&1)
ok "a new checkpoint gets the mode the umask leaves" [ "$(stat -c %a "$tmp/new.ckpt")" = 640 ]

# directories it cannot write in
train mlp --out "$tmp/nowhere/m.ckpt"
ok "a missing directory is named" \
   [ "$rc" -eq 1 -a "$(messages)" = "pruner-tui train: $tmp/nowhere/m.ckpt: No such file or directory" ]
if [ "$(id -u)" -ne 0 ]; then
   mkdir "$tmp/ro"
   chmod 555 "$tmp/ro"
   train mlp --out "$tmp/ro/m.ckpt"
   ok "a read-only directory is refused, and left empty" \
      [ "$rc" -eq 1 -a "$(messages)" = "pruner-tui train: $tmp/ro/m.ckpt: Permission denied" -a -z "$(ls -A "$tmp/ro")" ]
   chmod 755 "$tmp/ro"
else
   skip "a read-only directory is refused" "root ignores the directory's mode"
fi

# saves at once to one file: each through its own temporary file
for s in 1 2 3 4; do
   "$bin" train --records "$tmp/rec.jsonl" --network "$tmp/mm.task" --model mlp --epochs 1 --seed "$s" \
      --out "$tmp/par.ckpt" >"$tmp/par$s.out" 2>&1 &
done
wait
ok "four saves at once all succeed" sh -c 'for s in 1 2 3 4; do grep -qx "saved $1/par.ckpt" "$1/par$s.out" || exit 1; done' \
   _ "$tmp"
run eval --records "$tmp/rec.jsonl" --network "$tmp/mm.task" --model "$tmp/par.ckpt"
ok "and leave one whole checkpoint, no temporary file" \
   [ "$rc" -eq 0 -a "$(cd "$tmp" && ls -d par.ckpt*)" = "par.ckpt" ]

# damaged checkpoints
cp "$tmp/m.ckpt" "$tmp/flipped.ckpt"
printf '\377' | dd of="$tmp/flipped.ckpt" bs=1 seek=1000 conv=notrunc 2>/dev/null
run eval --records "$tmp/rec.jsonl" --network "$tmp/mm.task" --model "$tmp/flipped.ckpt"
ok "a changed byte is refused" sh -c '[ "$1" -eq 1 ] && grep -q "^pruner-tui eval: $2: checksum mismatch: the file is damaged (its bytes make CRC-32 [0-9a-f]*, its header says [0-9a-f]*)$" "$3"' \
   _ "$rc" "$tmp/flipped.ckpt" "$tmp/err"
run eval --records "$tmp/rec.jsonl" --network "$tmp/mm.task" --model "$src/models/mlp-sim-t4-holdout5.ckpt"
ok "the shipped checkpoints load" [ "$rc" -eq 0 -a "$(head -n1 "$tmp/out")" = "mlp on 6 records of 1 tasks" ]

# the kind --model asks for
train pam --out "$tmp/pam.ckpt"
train mlp --init "$tmp/pam.ckpt" --out "$tmp/x.ckpt"
ok "train --model mlp --init PAM.ckpt names both kinds" \
   [ "$rc" -eq 1 -a "$err" = "pruner-tui train: $tmp/pam.ckpt: holds a pam model, not the mlp that --model asked for" ]
train pam-moa --init "$tmp/m.ckpt" --out "$tmp/x.ckpt"
ok "train --model pam-moa --init MLP.ckpt names both kinds" \
   [ "$rc" -eq 1 -a "$err" = "pruner-tui train: $tmp/m.ckpt: holds an mlp model, not the pam-moa that --model asked for (or a pam, for its slow network)" ]
train pam-moa --init "$tmp/pam.ckpt" --out "$tmp/moa.ckpt"
ok "train --model pam-moa --init PAM.ckpt starts MoA from it" [ "$rc" -eq 0 -a -f "$tmp/moa.ckpt" ]

# records that teach nothing
head -n1 "$tmp/rec.jsonl" >"$tmp/one.jsonl"
run train --records "$tmp/one.jsonl" "$tmp/one.jsonl" --network "$tmp/mm.task" --model mlp --out "$tmp/none.ckpt"
ok "train on one latency refuses and writes nothing" \
   [ "$rc" -eq 1 -a ! -e "$tmp/none.ckpt" -a "$err" = "pruner-tui train: nothing to learn from: no task has two successful measurements of different latencies (2 samples of 1 tasks, 2 measured successfully); no checkpoint written" ]
sed 's/"costs":\[[^]]*\],"error":"ok","error_no":0/"costs":[10000000000],"error":"load error","error_no":3/' \
   "$tmp/rec.jsonl" >"$tmp/failed.jsonl"
run train --records "$tmp/failed.jsonl" --network "$tmp/mm.task" --model mlp --out "$tmp/none.ckpt"
ok "train on failures only refuses and writes nothing" \
   [ "$rc" -eq 1 -a ! -e "$tmp/none.ckpt" -a "$err" = "pruner-tui train: nothing to learn from: no task has two successful measurements of different latencies (6 samples of 1 tasks, 0 measured successfully); no checkpoint written" ]

[ "$failed" -eq 0 ]
