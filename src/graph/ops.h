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
/* A 2-D ConvTranspose node's window as its attributes give it (pads, output_padding,
 * output_shape, auto_pad): per spatial axis the stride, dilation, the pads at the
 * beginning and end (the end one negative when output_shape reaches past the full
 * output), the output padding and the output size. */
typedef struct {
   int64_t stride[2], dilation[2], padBegin[2], padEnd[2], outputPad[2], out[2];
} ConvTransposeWindow;
int Graph_convTransposeWindow(const Graph *g, const GNode *n, ConvTransposeWindow *w, char **cause);

/* A Resize or Upsample node of an N x C x H x W tensor as its attributes and inputs
 * give it: ONNX's names of its mode, coordinate_transformation_mode and nearest_mode
 * (Upsample's and Resize-10's rounding named as floor or ceil), and for H and W the
 * sizes and the scale the coordinates use. */
typedef struct {
   const char *mode, *coord, *nearest;
   int64_t in[2], out[2];
   double scale[2];
} GraphResize2d;
int Graph_resize2d(const Graph *g, const GNode *n, GraphResize2d *r, char **cause);

const GraphOp *GraphOp_find(const char *name, int opset, bool *known);
const GraphOp *GraphOp_get(int row);
int GraphOp_row(const GraphOp *op);
int GraphOp_count(void);

/* Whether `name` is listed in the row's attrs. */
bool GraphOp_acceptsAttr(const GraphOp *op, const char *name);

/* Input 1's dimensions as a two-input node of a shaped graph broadcasts them onto input
 * 0, padded with 1s to input 0's rank, where the rule is older than numpy's (before
 * opset 7: broadcast 1 lines them up from `axis`; a PRelu slope of one value a channel
 * goes along axis 1); false where numpy's trailing alignment applies. */
bool GraphOp_paddedInput1(const Graph *g, const GNode *n, int64_t *dims);

#endif
