/* FuseOps: which nodes of a simplified graph run as one kernel, by Relay's rules
 * (post-dominator tree, three phases; at most one complex op in a group). */
#ifndef HEADER_graph_fuse
#define HEADER_graph_fuse

#include "graph/graph.h"

/* groupOf[i] (room for g->nnodes) gets node i's group, numbered in the order of each
 * group's first node; returns the number of groups. */
int Graph_fuse(const Graph *g, int *groupOf);

#endif
