/* The CPU executor: runs a loop nest's kernels on the CPU with each block's threads in
 * lockstep (every statement for all threads of the block, then the next), which is
 * exact for race-free kernels whose loops have uniform trip counts, so lowering can be
 * checked against the ops' C references without a GPU. Out-of-bounds accesses are
 * reported, not performed. */
#ifndef HEADER_exec
#define HEADER_exec

#include <stdint.h>

#include "ir/loopnest.h"

typedef struct Exec_ Exec;

Exec *Exec_new(const LoopNest *ln);
void Exec_free(Exec *x);

/* Runs kernel k for the given blocks (all blocks when blocks is NULL). globals[b] is
 * the storage of global buffer b (buffers[b].elems floats); entries of other scopes are
 * ignored. When written is not NULL, written[i] is set for every element i of the
 * task's output buffer that a store reaches. Returns -1 with *cause on an out-of-bounds
 * access or a cross-thread reduction under a condition that splits the block. */
int Exec_run(Exec *x, int k, float *const *globals, const int64_t *blocks, int64_t nblocks,
             uint8_t *written, char **cause);

/* Storage for every global buffer of ln: inputs[i] for the task's i-th input (global
 * input buffers are the placeholders, in the op's input order), and a fresh zeroed array
 * for every other one (intermediate results, the output). Other scopes get NULL. */
void Exec_bindGlobals(const LoopNest *ln, float *const *inputs, float **globals);
/* Frees the arrays Exec_bindGlobals allocated; the inputs stay the caller's. */
void Exec_releaseGlobals(const LoopNest *ln, float **globals);

#endif
