/* The graph op table: the rows of ops_tensor.c and ops_nn.c (and Constant, which the
 * importer turns into a weight), looked up by op type and opset. */
#include "config.h"

#include "graph/ops.h"

#include <string.h>

#include "graph/opsimpl.h"

/* Constant nodes never reach a pass: the importer stores their value as a weight. The
 * row holds their opset range and attributes. */
static const GraphOp constantRow[] = {
   { "Constant", 1, 21, PAT_OPAQUE,
     "value value_float value_floats value_int value_ints", NULL, NULL, NULL },
};

static const GraphOp *rowAt(int row) {
   if (row < 0)
      return NULL;
   if (row < GraphOps_tensorCount)
      return &GraphOps_tensor[row];
   row -= GraphOps_tensorCount;
   if (row < GraphOps_nnCount)
      return &GraphOps_nn[row];
   row -= GraphOps_nnCount;
   return row < 1 ? &constantRow[row] : NULL;
}

int GraphOp_count(void) {
   return GraphOps_tensorCount + GraphOps_nnCount + 1;
}

const GraphOp *GraphOp_get(int row) {
   return rowAt(row);
}

int GraphOp_row(const GraphOp *op) {
   for (int i = 0; i < GraphOp_count(); i++)
      if (rowAt(i) == op)
         return i;
   return -1;
}

const GraphOp *GraphOp_find(const char *name, int opset, bool *known) {
   if (known)
      *known = false;
   for (int i = 0; i < GraphOp_count(); i++) {
      const GraphOp *op = rowAt(i);
      if (strcmp(op->name, name) != 0)
         continue;
      if (known)
         *known = true;
      if (opset >= op->minOpset && opset <= op->maxOpset)
         return op;
   }
   return NULL;
}

bool GraphOp_acceptsAttr(const GraphOp *op, const char *name) {
   size_t len = strlen(name);
   for (const char *p = op->attrs; p && *p;) {
      while (*p == ' ')
         p++;
      const char *end = strchr(p, ' ');
      size_t w = end ? (size_t)(end - p) : strlen(p);
      if (w == len && w && strncmp(p, name, len) == 0)
         return true;
      p += w;
   }
   return false;
}
