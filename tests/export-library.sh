#!/bin/sh
# export --library: a tuned U-Net step (tests/onnx/make-ops, its concat and elementwise
# groups as tasks) becomes a C library; its plan, run on the CPU by the export, equals
# the graph; the library and its example build here against the CUDA toolkit's stub
# libcuda; the runtime checks the plan and the weights on the host and refuses a
# corrupted weights file, a truncated one, an edited plan and the weights of another
# export, each with its message; the example says the stub is no driver; the export
# refuses what it cannot run. As TAP; SKIP without NVRTC or the toolkit's cuda.h.
. "${PTUI_SRCDIR:-.}/tests/tap.sh"

cuda=${CUDA_HOME:-/usr/local/cuda}
stub=""
for d in "$cuda/lib64/stubs" "$cuda/targets/x86_64-linux/lib/stubs"; do
   [ -e "$d/libcuda.so" ] && stub=$d/libcuda.so && break
done
if [ ! -e "$cuda/include/cuda.h" ] || [ -z "$stub" ]; then
   echo "1..0 # SKIP no CUDA toolkit (cuda.h and the stub libcuda) at $cuda"
   exit 0
fi
/usr/bin/python3 "$src/tests/onnx/make-ops" "$tmp" >/dev/null 2>&1
"$bin" "$tmp/unet.onnx" --include-simple-tasks --batch --trials 30 --no-compile --session "$tmp/unet.jsonl" >/dev/null 2>&1
run export "$tmp/unet.jsonl" --library "$tmp/lib"
if [ "$rc" -ne 0 ] && grep -q NVRTC "$tmp/err"; then
   echo "1..0 # SKIP $(cat "$tmp/err")"
   exit 0
fi
echo "1..19"
lib=$tmp/lib
ok "export --library writes the U-Net step's library" sh -c '[ "$1" -eq 0 ] &&
   grep -q "^library unet in $2: 7 tasks (7 tuned) compiled for sm_90 in [0-9.]* s; 8 steps (7 launches, 1 copies); arena 0.0 MiB, weights 0.0 MiB$" "$3"' \
   _ "$rc" "$lib" "$tmp/out"
ok "... after its plan, run on the CPU, equals the graph's reference" \
   grep -q "^checked: the plan run on the CPU equals the graph's reference (relative RMS [0-9.e-]*); build it with make -C $lib$" "$tmp/out"
ok "the files: header, runtime, example, Makefile, plan, weights, a CUBIN and source per task, a test vector" [ "$(cd "$lib" && ls | tr '\n' ' ')" = \
   "Makefile example.c expected_0.bin input_0.bin task_0.cu task_0.cubin task_1.cu task_1.cubin task_2.cu task_2.cubin task_3.cu task_3.cubin task_4.cu task_4.cubin task_5.cu task_5.cubin task_6.cu task_6.cubin unet.c unet.h unet.plan unet.weights " ]
ok "the plan: 8 steps, 7 modules, 768 inputs and 4096 outputs" sh -c 'sed -n 3,7p "$1" | tr "\n" "|" | grep -qx "arena 32768|weights 8720 [0-9a-f]*|counts 1 1 7 8|input 0 768 x|output 0 4096 y|"' _ "$lib/unet.plan"
ok "... the last step copies the arena's output to the caller's" [ "$(tail -n 1 "$lib/unet.plan")" = "copy o0 a0 16384" ]
ok "the weights: the header, then the 8720 bytes" [ "$(wc -c < "$lib/unet.weights")" -eq $((32 + 8720)) ]

make -C "$lib" CUDA="$cuda" >"$tmp/make.out" 2>&1
ok "the library and the example build against the CUDA toolkit" [ $? -eq 0 -a -e "$lib/libunet.a" -a -x "$lib/example" ]
# the example links libcuda.so.1: the stub stands in for the driver here
mkdir "$tmp/stub"
ln -s "$stub" "$tmp/stub/libcuda.so.1"
example() {
   LD_LIBRARY_PATH="$tmp/stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$lib/example" "$@" >"$tmp/ex.out" 2>"$tmp/ex.err"
   rc=$?
}
example --check "$lib"
ok "the runtime checks the plan and the weights on the host" [ "$rc" -eq 0 -a "$(cat "$tmp/ex.out")" = \
   "$lib: 8 steps in 7 modules, arena 32768 bytes, weights 8720 bytes: plan and weights agree" ]
example "$lib" "$tmp/y.bin" "$lib/input_0.bin"
ok "without a driver the example says so and exits 1" [ "$rc" -eq 1 -a "$(cat "$tmp/ex.err")" = \
   "example: cuInit: CUDA error 34 (the toolkit's stub libcuda, not a driver: no GPU here)" ]

cp "$lib/unet.weights" "$tmp/w"
printf '\001' | dd of="$lib/unet.weights" bs=1 seek=100 conv=notrunc 2>/dev/null
example --check "$lib"
sum=$(sed -n 's/^weights 8720 //p' "$lib/unet.plan")
ok "a corrupted weights file is refused" [ "$rc" -eq 1 -a "$(cat "$tmp/ex.err")" = \
   "example: $lib/unet.weights: corrupted: the checksum of its 8720 bytes is not the plan's $sum" ]
head -c 1000 "$tmp/w" >"$lib/unet.weights"
example --check "$lib"
ok "a truncated one too" [ "$rc" -eq 1 -a "$(cat "$tmp/ex.err")" = \
   "example: $lib/unet.weights: truncated: 968 bytes where the plan says 8720" ]
cp "$tmp/w" "$lib/unet.weights"
cp "$lib/unet.plan" "$tmp/plan"
sed -i 's/^arena 32768$/arena 32769/' "$lib/unet.plan"
example --check "$lib"
id=$(sed -n 's/^id //p' "$lib/unet.plan")
ok "an edited plan is refused" [ "$rc" -eq 1 -a "$(cat "$tmp/ex.err")" = \
   "example: $lib/unet.plan: corrupted: its content does not match its id $id" ]
# another export's plan beside these weights
"$bin" "$tmp/se.onnx" --include-simple-tasks --batch --trials 20 --no-compile --session "$tmp/se.jsonl" >/dev/null 2>&1
run export "$tmp/se.jsonl" --library "$tmp/lib2" --name unet
ok "another model's library, named unet with --name" [ "$rc" -eq 0 -a -e "$tmp/lib2/unet.plan" ]
cp "$tmp/lib2/unet.plan" "$lib/unet.plan"
example --check "$lib"
ok "a plan from another export is refused: the weights name their plan" [ "$rc" -eq 1 -a "$(cat "$tmp/ex.err")" = \
   "example: $lib/unet.weights: written for the plan $(sed -n 's/^id //p' "$tmp/plan"), not for $lib/unet.plan ($(sed -n 's/^id //p' "$tmp/lib2/unet.plan")): the files come from different exports" ]
cp "$tmp/plan" "$lib/unet.plan"

# what the export refuses
"$bin" "$tmp/unet.onnx" --batch --trials 20 --no-compile --session "$tmp/plain.jsonl" >/dev/null 2>&1
run export "$tmp/plain.jsonl" --library "$tmp/lib3"
ok "a graph op the library has no kernel for is named" [ "$rc" -eq 1 -a "$err" = \
   "pruner-tui export: kernel 4 runs the graph op Concat ('dec.cat'), which the library has no kernel for: it runs tasks and views (the import's --include-simple-tasks makes concat, resize and elementwise groups tasks)" ]
ok "... and nothing is written" [ ! -e "$tmp/lib3" ]
"$bin" --batch "$src/tests/data/tiny2.task" --trials 10 --no-compile --session "$tmp/task.jsonl" >/dev/null 2>&1
run export "$tmp/task.jsonl" --library "$tmp/lib4"
ok "a task file's session needs the ONNX model" [ "$rc" -eq 1 -a "$err" = \
   "pruner-tui export: $tmp/task.jsonl: the session tuned $src/tests/data/tiny2.task, a task file: the library needs the ONNX model (its graph and weights); give it with --model" ]
run export "$tmp/unet.jsonl" --library "$tmp/lib5" --name 9lives
ok "--name must be a C identifier" [ "$rc" -eq 2 -a "$(head -n 1 "$tmp/err")" = \
   "pruner-tui export: --name '9lives': expected a C identifier of at most 64 characters" ]
run export "$tmp/unet.jsonl" --library "$tmp/lib5" --records "$tmp/r.jsonl"
ok "--library goes alone" [ "$rc" -eq 2 -a "$(head -n 1 "$tmp/err")" = \
   "pruner-tui export: --library goes alone: export the other projections in another call" ]

[ "$failed" -eq 0 ]
