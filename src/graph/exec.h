/* Shape inference, constant folding and the reference executor of a graph: every node
 * through its op row's infer, in order; nodes whose inputs are all constants evaluated
 * at once (as TVM's importer folds shape arithmetic); and the whole graph run on the op
 * rows' C references. */
#ifndef HEADER_graph_exec
#define HEADER_graph_exec

#include "graph/graph.h"

/* Infers every node's outputs in order and, with fold, evaluates the nodes whose
 * inputs are all constants, turning their outputs into weights (the nodes die). Every
 * input's shape must be known. */
int Graph_prepare(Graph *g, bool fold, char **cause);

/* Runs the live nodes on their C references; every input must hold data. Outputs
 * keep their data; an activation's data is freed after its last reader when
 * keepActivations is false. */
int Graph_execute(Graph *g, bool keepActivations, char **cause);

#endif
