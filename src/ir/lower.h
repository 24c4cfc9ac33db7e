/* Lowering: a state of a task's sketch to a loop nest (ir/loopnest.h). */
#ifndef HEADER_lower
#define HEADER_lower

#include "ir/loopnest.h"
#include "sched/state.h"

/* Resets ln and lowers s into it. The state must be valid for its sketch. Global
 * buffers are the task's placeholders, every kernel root in between (intermediate
 * results) and the output, in stage order. */
void Lower_state(const SketchSet *set, const State *s, LoopNest *ln);

/* Threads per block of the reference program's kernels. */
#define LOWER_REFERENCE_THREADS 128

/* Resets ln and lowers the task the most straightforward way, for checking candidates
 * on the GPU: a kernel per stage that is not inlined, one thread per output element,
 * reductions in a plain loop. Global buffers as Lower_state makes them. */
void Lower_reference(const SketchSet *set, LoopNest *ln);

/* The global buffer holding stage `stage`, or -1. */
int Lower_globalBuffer(const LoopNest *ln, int stage);

#endif
