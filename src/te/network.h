/* A network to tune: the tasks of a .task file (YAML), each an op with its parameters,
 * fused epilogue and weight (how often it occurs in the network). The estimated total
 * latency of the network is the sum over tasks of weight x best latency. */
#ifndef HEADER_network
#define HEADER_network

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "te/netgraph.h"
#include "te/op.h"

#define TASK_KEY_MAX 160

typedef struct Task_ {
   int id;                        /* index in the file, from 0 */
   OpParams op;
   int64_t weight;
   double flops;                  /* of one occurrence */
   char key[TASK_KEY_MAX];        /* workload key, unique within a network */
   char *label;                   /* optional `name:` from the file, or NULL */
   int line;                      /* where the task starts in its file */
} Task;

typedef struct Network_ {
   char *name;
   char *path;
   /* the input dimensions an ONNX model was read with ("x=1x3x224x224;y=..."), or NULL */
   char *inputs;
   int64_t batch;
   int ntasks;
   Task *tasks;
   /* the network's graph when the file carries one (`graph:`), else NULL */
   NetGraph *graph;
} Network;

/* Loads and validates a task file; errors are "FILE:LINE:COL: message". */
int Network_load(Network *net, const char *path, char **cause);
int Network_loadString(Network *net, const char *name, const char *text, size_t len,
                       char **cause);
void Network_done(Network *net);

/* Writes the network as a task file that Network_load reads back to the same tasks
 * (keys, weights and FLOPs): header comment lines (each prefixed with "# "; NULL for
 * none), then `network`, `batch`, `dtype` and one flow mapping per task. Returns 0, or
 * -1 with *cause when a task's leading dimension is not a multiple of the batch. */
int Network_write(const Network *net, const char *comment, FILE *out, char **cause);

int64_t Network_totalWeight(const Network *net);
/* Sum over tasks of weight x FLOPs. */
double Network_totalFlops(const Network *net);

#endif
