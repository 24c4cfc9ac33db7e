/* The graph op table: one row per operator the importer accepts, keyed by its ONNX op
 * type, with the opset range it covers, the attributes it reads, its fusion pattern (as
 * Relay's TOpPattern), its shape inference and its plain C reference. An op type,
 * opset or attribute outside the table is refused by name; nothing is dropped. */
#ifndef HEADER_graph_ops
#define HEADER_graph_ops

#include "graph/graph.h"

/* Relay's fusion kinds, compared with <= and combined with max. */
typedef enum {
   PAT_ELEMWISE = 0,
   PAT_BROADCAST = 1,
   PAT_INJECTIVE = 2,
   PAT_COMM_REDUCE = 3,
   PAT_OUT_EWISE_FUSABLE = 4,
   PAT_TUPLE = 7,
   PAT_OPAQUE = 8,
} FusePattern;

typedef struct GraphOp_ {
   const char *name;          /* ONNX op type */
   int minOpset, maxOpset;    /* the default domain's opsets this row covers */
   FusePattern pattern;
   /* attributes the row reads, space separated; any other is refused */
   const char *attrs;
   /* Checks the node's inputs, attributes and types and sets each output's dtype and
    * shape (reading constant inputs' data where the shape depends on it, as Reshape's
    * shape). Inputs' shapes are known. On a bad or unsupported node returns -1 with
    * Graph_nodeError's message. */
   int (*infer)(Graph *g, GNode *n, char **cause);
   /* Computes the outputs' data from the inputs' data (every input present has data;
    * outputs are shaped by infer; eval allocates them with GTensor_alloc). */
   int (*eval)(Graph *g, GNode *n, char **cause);
   /* A bound on the operations eval does, for constant folding's budget (after infer,
    * saturating); NULL where eval is linear in the elements it reads and writes. */
   int64_t (*work)(const Graph *g, const GNode *n);
} GraphOp;

/* The row for op type `name` at `opset`; NULL when none. *known tells whether some row
 * has that name (so the opset alone is out of range). */
const GraphOp *GraphOp_find(const char *name, int opset, bool *known);
const GraphOp *GraphOp_get(int row);
int GraphOp_row(const GraphOp *op);
int GraphOp_count(void);

/* Whether `name` is listed in the row's attrs. */
bool GraphOp_acceptsAttr(const GraphOp *op, const char *name);

#endif
