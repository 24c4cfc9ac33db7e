/* A network's dataflow graph as a model file gives it: tensors (inputs, weights,
 * activations, outputs) and nodes in execution order, each node an operator of the
 * graph op table (graph/ops.h) named by its ONNX op type, with its attributes. The
 * importer builds it, the graph passes rewrite it in place, the reference executor
 * runs it, and task extraction cuts it into the tuning tasks of te/. */
#ifndef HEADER_graph
#define HEADER_graph

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GRAPH_MAX_DIMS 8

/* Element types, numbered as ONNX's TensorProto.DataType. */
typedef enum {
   GT_UNDEFINED = 0,
   GT_FLOAT = 1,
   GT_UINT8 = 2,
   GT_INT8 = 3,
   GT_UINT16 = 4,
   GT_INT16 = 5,
   GT_INT32 = 6,
   GT_INT64 = 7,
   GT_STRING = 8,
   GT_BOOL = 9,
   GT_FLOAT16 = 10,
   GT_DOUBLE = 11,
   GT_UINT32 = 12,
   GT_UINT64 = 13,
   GT_BFLOAT16 = 16,
} GType;

typedef enum {
   GT_ACTIVATION,    /* written by a node */
   GT_INPUT,         /* fed by the user */
   GT_WEIGHT,        /* an initializer, a Constant node's value, or a folded constant */
} GTensorRole;

typedef struct GTensor_ {
   char *name;
   GType dtype;               /* GT_UNDEFINED until shape inference sets it */
   int ndim;                  /* -1 while unknown */
   int64_t dims[GRAPH_MAX_DIMS];   /* -1 for a dimension the file leaves open */
   char *dimParam[GRAPH_MAX_DIMS]; /* the open dimension's symbolic name, or NULL */
   GTensorRole role;
   bool isOutput;             /* a graph output */
   int producer;              /* node index, -1 for inputs and weights */
   void *data;                /* row-major values of dtype, or NULL; owned */
} GTensor;

/* Attribute types, numbered as ONNX's AttributeProto.AttributeType. */
typedef enum {
   GA_UNDEFINED = 0,
   GA_FLOAT = 1,
   GA_INT = 2,
   GA_STRING = 3,
   GA_TENSOR = 4,
   GA_GRAPH = 5,
   GA_FLOATS = 6,
   GA_INTS = 7,
   GA_STRINGS = 8,
} GAttrType;

typedef struct GAttr_ {
   char *name;
   GAttrType type;
   double f;
   int64_t i;
   char *s;
   int n;                     /* entries of ints, floats or strings */
   int64_t *ints;
   double *floats;
   char **strings;
   int tensor;                /* GA_TENSOR: a tensor of the graph (role weight), else -1 */
} GAttr;

typedef struct GNode_ {
   char *name;                /* the file's node name, or "OpType_N" when it has none */
   char *opType;
   int op;                    /* row of the graph op table, -1 before resolution */
   int nin, nout;
   int *in;                   /* tensor indices; -1 for an optional input left out ("") */
   int *out;
   int nattr;
   GAttr *attr;
   bool dead;                 /* removed by a pass; compacted by Graph_compact */
   /* the names of the file's nodes that a pass folded into this one, comma separated,
    * or NULL: where a task came from */
   char *origin;
} GNode;

typedef struct Graph_ {
   char *path;                /* the model file, for messages */
   char *name;                /* the graph's name, or the file's base name */
   int64_t irVersion;
   int opset;                 /* of the default domain */
   int constantNodes;         /* Constant nodes of the file, read as weights */
   int ntensors, captensors;
   int *nameIndex;            /* open addressing over the tensors' names: index + 1, 0 empty */
   int nameIndexCap;          /* a power of two, at least twice ntensors */
   GTensor *t;
   int nnodes, capnodes;
   GNode *n;
   int ninputs, noutputs;
   int *inputs;               /* user inputs (initializers excluded), file order */
   int *outputs;
} Graph;

void Graph_init(Graph *g, const char *path);
void Graph_done(Graph *g);

/* The tensor called `name`, or -1. */
int Graph_findTensor(const Graph *g, const char *name);
/* Adds a tensor (role activation, shape unknown) and returns its index; the name must
 * be new. Pointers into g->t are invalidated by any add. */
int Graph_addTensor(Graph *g, const char *name);
/* A new tensor with a name made unique from `stem`. */
int Graph_newTensor(Graph *g, const char *stem);
/* Adds a node; copies the name and op type. Returns its index. Pointers into g->n are
 * invalidated by any add. */
int Graph_addNode(Graph *g, const char *name, const char *opType, int nin, const int *in,
                  int nout, const int *out);
/* Drops dead nodes and the tensors nothing reads or writes any more, renumbering. */
void Graph_compact(Graph *g);

/* Element size in bytes of dtype, 0 for the types the executor does not hold. */
size_t GType_size(GType t);
const char *GType_name(GType t);
bool GType_isFloat(GType t);

/* The element count; 0 when a dimension is 0, whatever the others are. */
int64_t GTensor_elems(const GTensor *t);
/* The product of the dimensions with each 0 counted as 1 (saturating): a bound on any
 * loop over part of the shape, which a 0 elsewhere does not end. */
int64_t GTensor_span(const GTensor *t);
size_t GTensor_bytes(const GTensor *t);
/* "1x3x224x224"; an open dimension prints its parameter name (or "?"). */
size_t GTensor_dimsText(const GTensor *t, char *buf, size_t size);
/* GTensor_dimsText of a shape given as its dimensions. */
size_t Graph_shapeText(int ndim, const int64_t *dims, char *buf, size_t size);
/* Sets the shape. */
void GTensor_setShape(GTensor *t, GType dtype, int ndim, const int64_t *dims);
/* Allocates zeroed data for the tensor's shape (replacing any). */
void *GTensor_alloc(GTensor *t);
/* Element i as a double and its inverse (rounding to the element type; integers
 * truncate toward zero, bools are != 0). */
double GTensor_get(const GTensor *t, int64_t i);
void GTensor_set(GTensor *t, int64_t i, double v);
/* Element i as an int64 (exact for the integer types). */
int64_t GTensor_getInt(const GTensor *t, int64_t i);

/* Attributes. The getters return the default when the node lacks the attribute. */
const GAttr *GNode_attr(const GNode *n, const char *name);
int64_t GNode_attrInt(const GNode *n, const char *name, int64_t def);
double GNode_attrFloat(const GNode *n, const char *name, double def);
const char *GNode_attrString(const GNode *n, const char *name, const char *def);
/* The ints of an INTS attribute, or NULL (with *count 0) when absent. */
const int64_t *GNode_attrInts(const GNode *n, const char *name, int *count);
/* Input i's tensor, or NULL where the input is absent or left out. */
GTensor *GNode_input(const Graph *g, const GNode *n, int i);
GTensor *GNode_output(const Graph *g, const GNode *n, int i);

/* "FILE: node 'NAME' (OpType, opset N): " prefix for messages about a node, in buf. */
void Graph_nodeWhere(const Graph *g, const GNode *n, char *buf, size_t size);
/* Sets *cause to that prefix followed by the formatted message; returns -1. */
int Graph_nodeError(const Graph *g, const GNode *n, char **cause, const char *fmt, ...)
   __attribute__((format(printf, 4, 5)));

/* Rewrites a message in place (replacing *msg) so that each control character in it, as a
 * name from a file may hold, prints as \xNN: the message stays one line and the terminal
 * takes no escape sequence from the file. */
void Graph_escapeControls(char **msg);

/* Shape arithmetic on values a file sets: a result past INT64_MAX (or below INT64_MIN)
 * sticks at that bound instead of wrapping, so that a check after it (Graph_prepare's
 * element cap, a sum compared with a size) refuses it. */
int64_t Graph_addDims(int64_t a, int64_t b);
int64_t Graph_mulDims(int64_t a, int64_t b);

/* Numpy broadcasting of two shapes into out (rank = the larger); -1 when they do not
 * broadcast. */
int Graph_broadcastShape(int na, const int64_t *a, int nb, const int64_t *b, int64_t *out);
/* The flat index into a tensor of shape (n, dims), broadcast to out (rank nout), of the
 * output element whose coordinates are idx. */
int64_t Graph_broadcastIndex(int n, const int64_t *dims, int nout, const int64_t *idx);
/* Advances a row-major coordinate vector; returns false after the last. */
bool Graph_nextIndex(int n, const int64_t *dims, int64_t *idx);

#endif
