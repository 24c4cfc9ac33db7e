/* The graph op table's rows, in two files by kind, and the helpers their shape
 * inference and references share. Internal to graph/. */
#ifndef HEADER_graph_opsimpl
#define HEADER_graph_opsimpl

#include "graph/ops.h"

/* Elementwise, broadcast and layout ops: activations, arithmetic, Concat, Split, Slice,
 * Pad, Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Gather, Shape, Cast, Identity,
 * Dropout, ... (graph/ops_tensor.c). */
extern const GraphOp GraphOps_tensor[];
extern const int GraphOps_tensorCount;
/* Convolutions, matrix products, normalizations, pools, reductions, Softmax, Resize
 * (graph/ops_nn.c). */
extern const GraphOp GraphOps_nn[];
extern const int GraphOps_nnCount;

#endif
