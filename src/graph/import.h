/* From a model file to the tuning tasks of te/: read (graph/onnx.h), infer shapes and
 * fold constants (graph/exec.h), simplify (graph/passes.h), fuse (graph/fuse.h), then
 * each fused group with a complex op becomes a task (its op, parameters and epilogue),
 * identical workloads merged into one task weighted by their count, as TVM's
 * extract_tasks does. */
#ifndef HEADER_graph_import
#define HEADER_graph_import

#include <stdio.h>

#include "graph/onnx.h"
#include "graph/passes.h"
#include "te/network.h"

typedef struct ImportOptions_ {
   const OnnxInputDims *dims;   /* --input NAME=DIMS */
   int ndims;
   bool simpleTasks;            /* --include-simple-tasks */
} ImportOptions;

/* The import options as one string, as sessions keep them: "NAME=DIMS;NAME=DIMS", with
 * this item among them for --include-simple-tasks. */
#define IMPORT_SIMPLE_TASKS "include-simple-tasks"

/* What the import did, for --list and `import`. */
typedef struct ImportSummary_ {
   int opset;
   int nodesRead;               /* nodes in the file, Constant nodes included */
   int constants;               /* Constant nodes, now weights */
   int folded;                  /* nodes evaluated at import (all inputs constant) */
   PassCounts passes;
   int nodesFused;              /* nodes after the passes */
   int groups;                  /* fused groups (kernels) */
   int taskGroups;              /* of which occurrences of a task */
   int simpleGroups;            /* elementwise and layout groups: not tasks */
   int simpleTasks;             /* of the groups without a complex op, the tasks made of them
                                 * (--include-simple-tasks; a group may give several) */
   int views;                   /* reshape-only groups: views, no kernel */
   int unmappedGroups;          /* groups with a complex op the op library lacks */
   int64_t weightElems;         /* elements of the weights */
   char *unmapped;              /* one line per unmapped group ("node 'x' (Op): reason"), or NULL */
} ImportSummary;

void ImportSummary_done(ImportSummary *s);
void ImportSummary_print(const ImportSummary *s, const Network *net, FILE *out);

/* Imports the model at path into net (its tasks; net->path is the model's). */
int Import_onnx(Network *net, const char *path, const ImportOptions *opt, ImportSummary *sum,
                char **cause);

/* One kernel of an imported network, as net.graph's node of the same index runs it:
 * the graph's nodes it computes and, for a task's occurrence, the graph tensors the
 * op reads in its input order (transposed: bit i set where the op reads input i with
 * its last two axes swapped, as dense and batch_matmul take a MatMul's B). */
typedef struct ImportUnit_ {
   int task;                    /* -1: the nodes run as graph ops */
   int *nodes;
   int n;
   int *in;
   int nin;
   uint64_t transposed;
} ImportUnit;

/* A model imported with what running it needs: the network, the graph after the
 * passes (weights, shapes, and the ops of the groups that are not tasks) and the
 * units, in execution order. */
typedef struct ImportedModel_ {
   Network net;
   Graph g;
   ImportUnit *units;
   int nunits;
   ImportSummary sum;
} ImportedModel;

int Import_model(ImportedModel *m, const char *path, const ImportOptions *opt, char **cause);
void ImportedModel_done(ImportedModel *m);

/* Import_onnx with the input dimensions as Model_load takes them ("NAME=DIMS;...", or
 * NULL); kept in net->inputs. */
int Import_onnxInputs(Network *net, const char *path, const char *inputs, ImportSummary *sum, char **cause);

/* The op one node maps to on its own, as the import maps it when it heads a group: a
 * complex op (Conv, ConvTranspose, MatMul, Gemm, the pools, Softmax,
 * LayerNormalization) with its own bias, or a Concat, Resize or Upsample; the node's
 * shapes inferred. Finished with Op_finish. 0, or -1 with *cause. */
int Import_mapNode(const Graph *g, const GNode *n, OpParams *p, char **cause);

/* Whether n only relabels its input's elements (Reshape, Flatten, Squeeze, Unsqueeze,
 * Identity): a group of such nodes alone is a view, with no kernel. */
bool Import_isView(const GNode *n);

/* Whether path names an ONNX model (by its extension). */
bool Import_isOnnx(const char *path);

/* A network from a task file or an ONNX model, by the path's extension; inputs fixes
 * the model's input dimensions ("NAME=DIMS;NAME=DIMS", or NULL) and is kept in
 * net->inputs. */
int Model_load(Network *net, const char *path, const char *inputs, char **cause);

/* Parses "NAME=DIMS;NAME=DIMS" into *dims (caller frees each and the array), and
 * *simpleTasks from IMPORT_SIMPLE_TASKS among them. */
int ImportOptions_parseInputs(const char *inputs, OnnxInputDims **dims, int *n, bool *simpleTasks,
                              char **cause);

#endif
