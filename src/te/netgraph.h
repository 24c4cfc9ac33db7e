/* A network's graph, as a task file may carry it: the tensors (inputs, weights,
 * activations, outputs, with their shapes) and the nodes in execution order, each node
 * an occurrence of one of the file's tasks or a group of layout and elementwise ops
 * that is not a task, with the tensors it reads and writes. It knows no model format;
 * graph/ builds it from ONNX. */
#ifndef HEADER_netgraph
#define HEADER_netgraph

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define NETGRAPH_MAX_DIMS 8

typedef enum {
   NT_INPUT,
   NT_WEIGHT,
   NT_ACTIVATION,
   NT_OUTPUT,
   NT_KIND_COUNT
} NetTensorKind;

typedef struct NetTensor_ {
   char *name;
   NetTensorKind kind;
   int ndim;
   int64_t dims[NETGRAPH_MAX_DIMS];
} NetTensor;

typedef struct NetNode_ {
   int task;                  /* the task it occurs as, or -1 */
   char *ops;                 /* for a node that is not a task: its ops ("Reshape, Transpose") */
   char *name;                /* where it came from: the model's node names */
   int nin, nout;
   int *in, *out;             /* tensor indices */
} NetNode;

typedef struct NetGraph_ {
   int ntensors, captensors;
   NetTensor *t;
   int nnodes, capnodes;
   NetNode *n;
   int *nameIndex;            /* open addressing over the tensors' names: index + 1, 0 empty */
   int indexCap;              /* a power of two, at least twice ntensors */
} NetGraph;

const char *NetTensorKind_name(NetTensorKind k);

void NetGraph_init(NetGraph *g);
void NetGraph_done(NetGraph *g);
/* Adds a tensor (the name is copied) and returns its index. */
int NetGraph_addTensor(NetGraph *g, const char *name, NetTensorKind kind, int ndim, const int64_t *dims);
int NetGraph_findTensor(const NetGraph *g, const char *name);
/* Adds a node (name and ops copied; ops NULL for a task's occurrence). */
int NetGraph_addNode(NetGraph *g, int task, const char *ops, const char *name, int nin, const int *in,
                     int nout, const int *out);

int64_t NetTensor_elems(const NetTensor *t);

/* Writes the graph as the task file's `graph:` section. */
void NetGraph_write(const NetGraph *g, FILE *out);

#endif
