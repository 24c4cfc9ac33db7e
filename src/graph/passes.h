/* The graph passes that run between shape inference and fusion, as Relay runs them
 * before task extraction: inference-only ops removed (Dropout, Identity), BatchNorm
 * folded into the convolution before it (any other rewritten as x * scale + shift,
 * as SimplifyInference does), and decomposed patterns recognised as the one
 * operator they compute (LayerNorm from ReduceMean/Sub/Pow/Sqrt/Div, GELU from Erf,
 * hardswish and hardsigmoid from Add/Clip/Div/Mul, hardswish from x * HardSigmoid(x),
 * global average pooling from a ReduceMean over H and W). Each pass keeps the graph runnable
 * and equal in value: the reference executor gives the same outputs before and after. */
#ifndef HEADER_graph_passes
#define HEADER_graph_passes

#include "graph/graph.h"

typedef struct PassCounts_ {
   int removed;         /* Dropout and Identity nodes */
   int bnFolded;        /* BatchNormalization nodes folded into a Conv */
   int bnSimplified;    /* the others, each rewritten as a per-channel Mul and Add */
   int affineFolded;    /* per-channel constant Mul and Add nodes folded into a Conv */
   int layerNorms;      /* patterns recognised, by kind */
   int gelus;
   int hardSwishes;
   int hardSigmoids;
   int globalPools;     /* ReduceMean over H and W, as GlobalAveragePool */
   int nodesReplaced;   /* nodes the recognised patterns stood for */
} PassCounts;

/* Runs every pass in order on a prepared graph (Graph_prepare), then compacts it. */
void Graph_simplify(Graph *g, PassCounts *counts);

/* The live nodes that read tensor t, in order, into out (up to max); returns the count
 * (which may exceed max). */
int Graph_readers(const Graph *g, int t, int *out, int max);

#endif
