/* The ONNX reader: a model file (protobuf, through protobuf-c and the onnx.proto that
 * libonnx-dev ships) into a Graph, and TensorProto files (ONNX's test_data_set layout)
 * in and out. Every defect of the file, from truncated bytes to a name that nothing
 * produces, is one message naming the file and the place. */
#ifndef HEADER_graph_onnx
#define HEADER_graph_onnx

#include "graph/graph.h"

/* The oldest and newest opsets of the default domain the importer takes. */
#define ONNX_MIN_OPSET 1
#define ONNX_MAX_OPSET 21
/* A model file larger than this is refused before it is read. */
#define ONNX_MAX_FILE_BYTES ((size_t)2 << 30)

/* A user's fixing of a graph input's dimensions (--input NAME=1x3x224x224). */
typedef struct OnnxInputDims_ {
   char *name;
   int ndim;
   int64_t dims[GRAPH_MAX_DIMS];
} OnnxInputDims;

/* Parses "NAME=D1xD2x..." (dimensions positive); the message names what is wrong. */
int OnnxInputDims_parse(OnnxInputDims *d, const char *text, char **cause);
void OnnxInputDims_done(OnnxInputDims *d);

/* Reads the model at path into g (Graph_init'ed here): inputs (initializers excluded,
 * their dimensions fixed by dims where given), weights (initializers, Constant nodes and
 * external data), nodes resolved against the graph op table, outputs. Checks names:
 * every tensor a node reads exists before it, nothing is written twice. Shapes beyond
 * the inputs' are left to Graph_prepare. An input with an open dimension that dims does
 * not fix is an error naming the input and the --input flag, unless allowOpen is set
 * (the caller fixes it later, as `run` does from its input data). */
int Onnx_load(Graph *g, const char *path, const OnnxInputDims *dims, int ndims,
              bool allowOpen, char **cause);

/* Reads a serialized TensorProto (input_N.pb) into t: dtype, shape and data; t's name
 * is replaced by the file's when it has one. */
int Onnx_readTensor(const char *path, GTensor *t, char **cause);
/* Writes t as a serialized TensorProto named `name`, raw little-endian data. */
int Onnx_writeTensor(const char *path, const GTensor *t, const char *name, char **cause);

#endif
