/* An imported network run as its kernels: the units of the import in order, each task
 * occurrence through a runner (the op's C reference, or a tuned state's loop nest on
 * the CPU executor), the groups that are not tasks through the graph's op rows; and
 * the memory plan a device runs it with: every activation that crosses kernels placed
 * in one arena by liveness. */
#ifndef HEADER_graph_netrun
#define HEADER_graph_netrun

#include <stdint.h>

#include "graph/import.h"

/* Buffers are placed on this alignment (cudaMalloc's). */
#define NETRUN_ALIGN 256

/* bytes rounded up to NETRUN_ALIGN. */
static inline int64_t NetRun_align(int64_t bytes) {
   return (bytes + NETRUN_ALIGN - 1) / NETRUN_ALIGN * NETRUN_ALIGN;
}

/* x's float32 values with its last two axes swapped, into t (GTensor_elems(x) floats):
 * a matrix product's input the import marked transposed. */
void NetRun_transposeInto(const GTensor *x, float *t);

typedef struct NetMemoryPlan_ {
   int64_t *offset;             /* per graph tensor: in the arena, -1 for a tensor not
                                 * planned (inputs, weights, the tensors inside a kernel) */
   int64_t *bytes;              /* each planned tensor's size, aligned */
   int planned;                 /* how many tensors are planned */
   int64_t peak;                /* the arena's size */
   int64_t lowerBound;          /* the most bytes live at once: no plan needs less */
   int64_t unshared;            /* every planned tensor a buffer of its own */
} NetMemoryPlan;

/* Plans the activations of m's units: each crossing tensor lives from the unit that
 * writes it to the last unit that reads it (a graph output to the end), and is placed
 * greedily by size: the largest first, each in the smallest gap that holds it between
 * the tensors placed whose lifetimes overlap its own. */
void NetMemoryPlan_build(NetMemoryPlan *p, const ImportedModel *m);
void NetMemoryPlan_done(NetMemoryPlan *p);

/* Computes one task occurrence: out = the task's op over inputs (Op_inputShape order,
 * float32; read, never written). 0, or -1 with *cause. */
typedef int (*NetTaskRunner)(void *ctx, int unit, const Task *task, float *const *inputs, float *out,
                             char **cause);

/* The runner that calls the op's C reference (te/ref.h). */
int NetRun_reference(void *ctx, int unit, const Task *task, float *const *inputs, float *out, char **cause);

/* Runs m on its inputs' data (every graph input must hold data): the outputs hold
 * theirs after, the activations are freed after their last reader. 0, or -1 with
 * *cause naming the kernel. */
int NetRun_execute(ImportedModel *m, NetTaskRunner run, void *ctx, char **cause);

#endif
