/* Loop nests compiled to native code: each kernel printed as a C function that runs the
 * CPU executor's semantics (ir/exec.h: a block's threads in lockstep, statement by
 * statement, under a mask of active threads; shared and local memory zeroed once per
 * call; loads and stores outside a buffer not performed) and compiled with the
 * system's C compiler (TVM's C host target does the same for CPU code), so that the
 * tuned kernels of a whole network run at compiled speed. The interpreter stays the
 * reference: the compiled functions give the same floats, bit for bit (the same
 * operations in the same order, the compiler told not to contract them into fused
 * multiply-adds), and on an access outside a buffer the caller reruns the kernel on
 * the interpreter for its message. A nest with a Tensor Core mma or 16-bit shared
 * buffers is not printed (the interpreter runs it). */
#ifndef HEADER_native
#define HEADER_native

#include <stdbool.h>
#include <stdint.h>

#include "ir/loopnest.h"

/* The C source of ln's kernels, each `int PREFIX_kK(float *const *globals)` running
 * every block, returning 0, or -1 after an access outside a buffer or a cross-thread
 * reduction under a condition that splits the block; NULL (with *cause) for a nest the
 * printer does not take. The caller frees it. */
char *Native_source(const LoopNest *ln, const char *prefix, char **cause);

typedef int (*NativeKernel)(float *const *globals);

typedef struct NativeLib_ NativeLib;

/* Compiles the nests lns[0..n) into one shared object with the C compiler ($CC, or
 * cc) and loads it; a nest the printer does not take gets no functions. NULL with
 * *cause when the compiler is missing or fails. */
NativeLib *NativeLib_build(const LoopNest *const *lns, int n, char **cause);
/* Kernel k of nest i, or NULL when that nest was not compiled. */
NativeKernel NativeLib_kernel(const NativeLib *lib, int i, int k);
void NativeLib_free(NativeLib *lib);

#endif
