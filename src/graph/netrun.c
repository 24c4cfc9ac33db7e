/* An imported network run kernel by kernel, and its activations' memory plan. */
#include "config.h"

#include "graph/netrun.h"

#include <stdlib.h>
#include <string.h>

#include "graph/ops.h"
#include "te/ref.h"
#include "util/xalloc.h"

/* Each tensor's first and last unit: written by `def` (-1 for inputs and weights), read
 * last by `last` (nunits for a graph output); crossing when a unit other than its
 * writer reads it, or it is an output. */
typedef struct {
   int *unitOf;                 /* per node */
   int *def, *last;             /* per tensor */
   bool *crossing;
   /* the tensors each unit reads last: headLast[u] -> nextLast[t] -> ... (-1 ends) */
   int *headLast, *nextLast;
} Liveness;

static void liveness(const ImportedModel *m, Liveness *lv) {
   const Graph *g = &m->g;
   lv->unitOf = xMalloc(sizeof(int) * (size_t)(g->nnodes ? g->nnodes : 1));
   lv->def = xMalloc(sizeof(int) * (size_t)(g->ntensors ? g->ntensors : 1));
   lv->last = xMalloc(sizeof(int) * (size_t)(g->ntensors ? g->ntensors : 1));
   lv->crossing = xCalloc((size_t)(g->ntensors ? g->ntensors : 1), sizeof(bool));
   for (int i = 0; i < g->nnodes; i++)
      lv->unitOf[i] = -1;
   for (int u = 0; u < m->nunits; u++)
      for (int k = 0; k < m->units[u].n; k++)
         lv->unitOf[m->units[u].nodes[k]] = u;
   for (int t = 0; t < g->ntensors; t++) {
      const GTensor *x = &g->t[t];
      bool planned = x->role == GT_ACTIVATION && !x->data && x->producer >= 0 && lv->unitOf[x->producer] >= 0;
      lv->def[t] = planned ? lv->unitOf[x->producer] : -1;
      lv->last[t] = lv->def[t];
      if (planned && x->isOutput) {
         lv->last[t] = m->nunits;
         lv->crossing[t] = true;
      }
   }
   for (int i = 0; i < g->nnodes; i++) {
      const GNode *n = &g->n[i];
      int u = lv->unitOf[i];
      for (int q = 0; q < n->nin; q++) {
         int t = n->in[q];
         if (t < 0 || lv->def[t] < 0 || u < 0)
            continue;
         if (u > lv->last[t])
            lv->last[t] = u;
         if (u != lv->def[t])
            lv->crossing[t] = true;
      }
   }
   size_t nu = (size_t)m->nunits + 1, nt = (size_t)(g->ntensors ? g->ntensors : 1);
   lv->headLast = xMalloc(sizeof(int) * nu);
   lv->nextLast = xMalloc(sizeof(int) * nt);
   for (size_t u = 0; u < nu; u++)
      lv->headLast[u] = -1;
   for (int t = g->ntensors - 1; t >= 0; t--) {
      if (lv->def[t] < 0)
         continue;
      lv->nextLast[t] = lv->headLast[lv->last[t]];
      lv->headLast[lv->last[t]] = t;
   }
}

static void livenessDone(Liveness *lv) {
   free(lv->headLast);
   free(lv->nextLast);
   free(lv->unitOf);
   free(lv->def);
   free(lv->last);
   free(lv->crossing);
}

static int64_t alignedBytes(const GTensor *t) {
   return NetRun_align(GTensor_elems(t) * (int64_t)GType_size(t->dtype));
}

/* Offline placement, greedy by size (as TFLite's arena planner): the largest tensor
 * first, each at the smallest gap between the tensors already placed whose lifetimes
 * overlap its own that holds it, else above them all. */
typedef struct {
   int t;
   int64_t bytes;
   int def, last;
} Item;

static int bySizeDesc(const void *a, const void *b) {
   const Item *x = a, *y = b;
   if (x->bytes != y->bytes)
      return x->bytes < y->bytes ? 1 : -1;
   return x->def != y->def ? x->def - y->def : x->t - y->t;
}

typedef struct {
   int64_t at, end;
} Span;

static int byStart(const void *a, const void *b) {
   const Span *x = a, *y = b;
   return x->at < y->at ? -1 : x->at > y->at;
}

static void placeBySize(Item *items, int n, int64_t *offset, int64_t *peak) {
   qsort(items, (size_t)n, sizeof *items, bySizeDesc);
   Span *busy = xMalloc(sizeof *busy * (size_t)(n ? n : 1));
   for (int i = 0; i < n; i++) {
      int nb = 0;
      for (int j = 0; j < i; j++)
         if (items[j].def <= items[i].last && items[i].def <= items[j].last)
            busy[nb++] = (Span){ offset[items[j].t], offset[items[j].t] + items[j].bytes };
      qsort(busy, (size_t)nb, sizeof *busy, byStart);
      int64_t at = 0, best = -1, bestGap = 0;
      for (int k = 0; k < nb; k++) {
         int64_t gap = busy[k].at - at;
         if (gap >= items[i].bytes && (best < 0 || gap < bestGap)) {
            best = at;
            bestGap = gap;
         }
         if (busy[k].end > at)
            at = busy[k].end;
      }
      offset[items[i].t] = best >= 0 ? best : at;
      if (offset[items[i].t] + items[i].bytes > *peak)
         *peak = offset[items[i].t] + items[i].bytes;
   }
   free(busy);
}

void NetMemoryPlan_build(NetMemoryPlan *p, const ImportedModel *m) {
   const Graph *g = &m->g;
   memset(p, 0, sizeof *p);
   p->offset = xMalloc(sizeof(int64_t) * (size_t)(g->ntensors ? g->ntensors : 1));
   p->bytes = xCalloc((size_t)(g->ntensors ? g->ntensors : 1), sizeof(int64_t));
   Liveness lv;
   liveness(m, &lv);
   /* bytes live at each unit: a difference array over the tensors' lifetimes */
   int64_t *live = xCalloc((size_t)m->nunits + 2, sizeof *live);
   for (int t = 0; t < g->ntensors; t++) {
      p->offset[t] = -1;
      if (lv.def[t] < 0 || !lv.crossing[t])
         continue;
      p->bytes[t] = alignedBytes(&g->t[t]);
      p->unshared += p->bytes[t];
      p->planned++;
      live[lv.def[t]] += p->bytes[t];
      live[lv.last[t] + 1] -= p->bytes[t];
   }
   int64_t now = 0;
   for (int u = 0; u < m->nunits; u++) {
      now += live[u];
      if (now > p->lowerBound)
         p->lowerBound = now;
   }
   Item *items = xMalloc(sizeof *items * (size_t)(p->planned ? p->planned : 1));
   int n = 0;
   for (int t = 0; t < g->ntensors; t++)
      if (lv.def[t] >= 0 && lv.crossing[t])
         items[n++] = (Item){ t, p->bytes[t], lv.def[t], lv.last[t] };
   placeBySize(items, n, p->offset, &p->peak);
   free(items);
   free(live);
   livenessDone(&lv);
}

void NetMemoryPlan_done(NetMemoryPlan *p) {
   free(p->offset);
   free(p->bytes);
   memset(p, 0, sizeof *p);
}

int NetRun_reference(void *ctx, int unit, const Task *task, float *const *inputs, float *out, char **cause) {
   (void)ctx;
   (void)unit;
   (void)cause;
   Ref_run(&task->op, (const float *const *)inputs, out);
   return 0;
}

void NetRun_transposeInto(const GTensor *x, float *t) {
   int64_t rows = x->ndim >= 2 ? x->dims[x->ndim - 2] : 1, cols = x->dims[x->ndim - 1];
   int64_t per = rows * cols > 0 ? rows * cols : 1, mats = GTensor_elems(x) / per;
   const float *s = x->data;
   for (int64_t b = 0; b < mats; b++)
      for (int64_t i = 0; i < rows; i++)
         for (int64_t j = 0; j < cols; j++)
            t[b * rows * cols + j * rows + i] = s[b * rows * cols + i * cols + j];
}

/* x with its last two axes swapped, in a new buffer. */
static float *transposedCopy(const GTensor *x) {
   float *t = xMalloc(sizeof(float) * (size_t)(GTensor_elems(x) ? GTensor_elems(x) : 1));
   NetRun_transposeInto(x, t);
   return t;
}

static int runTask(ImportedModel *m, int u, const Liveness *lv, NetTaskRunner run, void *ctx, char **cause) {
   Graph *g = &m->g;
   const ImportUnit *un = &m->units[u];
   const Task *task = &m->net.tasks[un->task];
   int out = g->n[un->nodes[un->n - 1]].out[0];
   /* the task computes the chain's last value only */
   for (int k = 0; k < un->n; k++) {
      const GNode *n = &g->n[un->nodes[k]];
      for (int q = 0; q < n->nout; q++)
         if (n->out[q] >= 0 && n->out[q] != out && lv->crossing[n->out[q]])
            return setCause(cause, "kernel %d (task %d, '%s'): its intermediate '%s' is read by another kernel",
                            u, un->task, n->name, g->t[n->out[q]].name);
   }
   if (un->nin != Op_numInputs(&task->op))
      return setCause(cause, "kernel %d (task %d): %d tensors for the op's %d inputs", u, un->task, un->nin,
                      Op_numInputs(&task->op));
   float *inputs[OP_MAX_INPUTS];
   float *copies[OP_MAX_INPUTS];
   int ncopies = 0, rc = 0;
   for (int i = 0; i < un->nin && rc == 0; i++) {
      const GTensor *x = &g->t[un->in[i]];
      if (x->dtype != GT_FLOAT || !x->data)
         rc = setCause(cause, "kernel %d (task %d): input '%s' is %s", u, un->task, x->name,
                       x->data ? GType_name(x->dtype) : "not computed");
      else if (GTensor_elems(x) != Op_inputElems(&task->op, i))
         rc = setCause(cause, "kernel %d (task %d): input '%s' has %lld elements where the op reads %lld", u,
                       un->task, x->name, (long long)GTensor_elems(x), (long long)Op_inputElems(&task->op, i));
      else if (un->transposed & (1ull << i))
         inputs[i] = copies[ncopies++] = transposedCopy(x);
      else
         inputs[i] = x->data;
   }
   GTensor *y = &g->t[out];
   if (rc == 0 && (y->dtype != GT_FLOAT || GTensor_elems(y) != Op_outputElems(&task->op)))
      rc = setCause(cause, "kernel %d (task %d): output '%s' is %s of %lld elements where the op writes %lld float32",
                    u, un->task, y->name, GType_name(y->dtype), (long long)GTensor_elems(y),
                    (long long)Op_outputElems(&task->op));
   if (rc == 0)
      rc = run(ctx, u, task, inputs, GTensor_alloc(y), cause);
   for (int i = 0; i < ncopies; i++)
      free(copies[i]);
   return rc;
}

static int runOps(ImportedModel *m, int u, const Liveness *lv, char **cause) {
   Graph *g = &m->g;
   const ImportUnit *un = &m->units[u];
   int rc = 0;
   for (int k = 0; k < un->n && rc == 0; k++) {
      GNode *n = &g->n[un->nodes[k]];
      const GraphOp *op = GraphOp_get(n->op);
      rc = op->eval(g, n, cause);
   }
   /* what stays inside the unit goes with it */
   for (int k = 0; k < un->n; k++) {
      const GNode *n = &g->n[un->nodes[k]];
      for (int q = 0; q < n->nout; q++)
         if (n->out[q] >= 0 && !lv->crossing[n->out[q]]) {
            free(g->t[n->out[q]].data);
            g->t[n->out[q]].data = NULL;
         }
   }
   return rc;
}

int NetRun_execute(ImportedModel *m, NetTaskRunner run, void *ctx, char **cause) {
   Graph *g = &m->g;
   for (int i = 0; i < g->ninputs; i++)
      if (!g->t[g->inputs[i]].data)
         return setCause(cause, "input '%s' holds no data", g->t[g->inputs[i]].name);
   Liveness lv;
   liveness(m, &lv);
   int rc = 0;
   for (int u = 0; u < m->nunits && rc == 0; u++) {
      rc = m->units[u].task >= 0 ? runTask(m, u, &lv, run, ctx, cause) : runOps(m, u, &lv, cause);
      for (int t = lv.headLast[u]; t >= 0; t = lv.nextLast[t])
         if (!g->t[t].isOutput) {
            free(g->t[t].data);
            g->t[t].data = NULL;
         }
   }
   livenessDone(&lv);
   return rc;
}
