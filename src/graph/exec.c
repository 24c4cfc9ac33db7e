/* Shape inference, constant folding and the reference executor. */
#include "config.h"

#include "graph/exec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ops.h"
#include "util/xalloc.h"

/* A tensor past this many elements is refused (kernels index with 32 bits). */
#define MAX_TENSOR_ELEMS ((int64_t)INT32_MAX)
/* Nodes whose outputs hold more than this many elements are not folded at import. */
#define MAX_FOLD_ELEMS ((int64_t)1 << 26)
/* Folding stops making constants once everything folded holds this many elements, or
 * the references' work passes this many operations, each grown by the weights the file
 * holds: a few bytes of ConstantOfShape, Tile or MatMul must not cost gigabytes or
 * minutes at import. A node past the budget stays a node. */
#define FOLD_ELEMS_BUDGET ((int64_t)1 << 22)
#define FOLD_WORK_BUDGET ((int64_t)1 << 24)

/* The element count of t's shape, or -1 past MAX_TENSOR_ELEMS, with a dimension past it
 * (where another is 0) or with a negative dimension. */
static int64_t checkedElems(const GTensor *t) {
   bool empty = false;
   for (int i = 0; i < t->ndim; i++) {
      if (t->dims[i] < 0 || t->dims[i] > MAX_TENSOR_ELEMS)
         return -1;
      empty |= t->dims[i] == 0;
   }
   if (empty)
      return 0;
   int64_t e = 1;
   for (int i = 0; i < t->ndim; i++) {
      if (e > MAX_TENSOR_ELEMS / t->dims[i])
         return -1;
      e *= t->dims[i];
   }
   return e;
}

/* The operations folding node n costs: its row's bound, else the spans of what it reads
 * and writes (an empty tensor's other dimensions still bound a reference's loops). */
static int64_t foldWork(const Graph *g, const GNode *n, const GraphOp *op) {
   if (op->work)
      return op->work(g, n);
   int64_t w = 0;
   for (int k = 0; k < n->nin; k++)
      if (n->in[k] >= 0)
         w = Graph_addDims(w, GTensor_span(&g->t[n->in[k]]));
   for (int k = 0; k < n->nout; k++)
      if (n->out[k] >= 0)
         w = Graph_addDims(w, GTensor_span(&g->t[n->out[k]]));
   return w;
}

static bool allInputsConstant(const Graph *g, const GNode *n) {
   for (int i = 0; i < n->nin; i++)
      if (n->in[i] >= 0 && (!g->t[n->in[i]].data || g->t[n->in[i]].role != GT_WEIGHT))
         return false;
   return true;
}

int Graph_prepare(Graph *g, bool fold, char **cause) {
   int64_t weights = 0;
   for (int i = 0; i < g->ntensors; i++)
      if (g->t[i].role == GT_WEIGHT)
         weights = Graph_addDims(weights, GTensor_elems(&g->t[i]));
   int64_t elemsLeft = Graph_addDims(FOLD_ELEMS_BUDGET, Graph_mulDims(weights, 2));
   int64_t workLeft = Graph_addDims(FOLD_WORK_BUDGET, Graph_mulDims(weights, 16));
   for (int i = 0; i < g->ninputs; i++) {
      const GTensor *t = &g->t[g->inputs[i]];
      for (int k = 0; k < t->ndim; k++)
         if (t->dims[k] < 0)
            return setCause(cause, "%s: input '%s' has an open dimension %d; fix it with --input %s=DIMS",
                            g->path, t->name, k, t->name);
      if (t->ndim < 0)
         return setCause(cause, "%s: input '%s' has no shape; set it with --input %s=DIMS", g->path,
                         t->name, t->name);
   }
   for (int i = 0; i < g->nnodes; i++) {
      GNode *n = &g->n[i];
      if (n->dead)
         continue;
      const GraphOp *op = GraphOp_get(n->op);
      if (!op || !op->infer)
         return Graph_nodeError(g, n, cause, "no shape inference for this operator");
      for (int k = 0; k < n->nin; k++)
         if (n->in[k] >= 0 && g->t[n->in[k]].ndim < 0)
            return Graph_nodeError(g, n, cause, "input %d ('%s') has no known shape", k,
                                   g->t[n->in[k]].name);
      if (op->infer(g, n, cause) < 0)
         return -1;
      int64_t outElems = 0;
      for (int k = 0; k < n->nout; k++) {
         GTensor *t = GNode_output(g, n, k);
         if (t && t->ndim < 0)
            return Graph_nodeError(g, n, cause, "output %d ('%s') got no shape", k, t->name);
         int64_t e = t ? checkedElems(t) : 0;
         if (e < 0) {
            char dims[256];
            GTensor_dimsText(t, dims, sizeof dims);
            bool empty = false;
            for (int d = 0; d < t->ndim; d++)
               empty |= t->dims[d] == 0;
            if (empty)
               return Graph_nodeError(g, n, cause, "output %d ('%s') would be %s, a dimension over %lld", k,
                                      t->name, dims, (long long)MAX_TENSOR_ELEMS);
            return Graph_nodeError(g, n, cause, "output %d ('%s') would be %s, over %lld elements", k, t->name,
                                   dims, (long long)MAX_TENSOR_ELEMS);
         }
         outElems += e;
      }
      /* Shape reads only its input's shape, which is known: static shape arithmetic
       * (Shape, Gather, Concat, Reshape chains) folds away as TVM's importer folds it */
      bool shapeOnly = strcmp(n->opType, "Shape") == 0;
      if (fold && op->eval && strcmp(n->opType, "Dropout") != 0 && outElems <= MAX_FOLD_ELEMS &&
          (shapeOnly || allInputsConstant(g, n))) {
         int64_t work = shapeOnly ? outElems : foldWork(g, n, op);
         if (outElems > elemsLeft || work > workLeft)
            continue;
         elemsLeft -= outElems;
         workLeft -= work;
         if (op->eval(g, n, cause) < 0)
            return -1;
         for (int k = 0; k < n->nout; k++) {
            GTensor *t = GNode_output(g, n, k);
            if (t) {
               t->role = GT_WEIGHT;
               t->producer = -1;
            }
         }
         n->dead = true;
      }
   }
   return 0;
}

int Graph_execute(Graph *g, bool keepActivations, char **cause) {
   int *lastUse = NULL;
   if (!keepActivations) {
      lastUse = xMalloc(sizeof(int) * (size_t)(g->ntensors ? g->ntensors : 1));
      for (int i = 0; i < g->ntensors; i++)
         lastUse[i] = -1;
      for (int i = 0; i < g->nnodes; i++)
         for (int k = 0; k < g->n[i].nin; k++)
            if (g->n[i].in[k] >= 0)
               lastUse[g->n[i].in[k]] = i;
   }
   int rc = 0;
   for (int i = 0; i < g->nnodes && rc == 0; i++) {
      GNode *n = &g->n[i];
      if (n->dead)
         continue;
      const GraphOp *op = GraphOp_get(n->op);
      for (int k = 0; k < n->nin; k++)
         if (n->in[k] >= 0 && !g->t[n->in[k]].data) {
            rc = Graph_nodeError(g, n, cause, "input %d ('%s') holds no data", k, g->t[n->in[k]].name);
            break;
         }
      if (rc == 0 && (!op || !op->eval))
         rc = Graph_nodeError(g, n, cause, "no reference implementation for this operator");
      if (rc == 0)
         rc = op->eval(g, n, cause);
      if (lastUse)
         for (int k = 0; k < n->nin; k++) {
            GTensor *t = n->in[k] >= 0 ? &g->t[n->in[k]] : NULL;
            if (t && t->role == GT_ACTIVATION && !t->isOutput && lastUse[n->in[k]] == i) {
               free(t->data);
               t->data = NULL;
            }
         }
   }
   free(lastUse);
   return rc;
}
