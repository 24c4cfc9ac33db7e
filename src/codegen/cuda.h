/* CUDA code generation: one extern "C" __global__ function per kernel of a loop nest,
 * with __launch_bounds__, shared and register arrays named after the buffers, #pragma
 * unroll where the auto-unroll step allows, float2/float4 accesses where lowering
 * proved a fetch contiguous and aligned, and warp shuffles or a shared-memory tree for
 * cross-thread reductions. */
#ifndef HEADER_cuda
#define HEADER_cuda

#include <stddef.h>

#include "ir/loopnest.h"

/* Returns the source of every kernel of ln (caller frees). `header` (may be NULL) is put
 * at the top as // comment lines, one per line of it. */
char *Cuda_generate(const LoopNest *ln, const char *header);

#endif
