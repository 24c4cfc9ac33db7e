/* A network's graph: containers and the task file's `graph:` section as written. The
 * section is read and checked against the tasks by te/network.c's loader. */
#include "config.h"

#include "te/netgraph.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "util/yamldoc.h"

static const char *const kindNames[NT_KIND_COUNT] = {
   [NT_INPUT] = "input", [NT_WEIGHT] = "weight", [NT_ACTIVATION] = "activation", [NT_OUTPUT] = "output",
};

const char *NetTensorKind_name(NetTensorKind k) {
   return k < NT_KIND_COUNT ? kindNames[k] : "?";
}

void NetGraph_init(NetGraph *g) {
   memset(g, 0, sizeof *g);
}

void NetGraph_done(NetGraph *g) {
   for (int i = 0; i < g->ntensors; i++)
      free(g->t[i].name);
   for (int i = 0; i < g->nnodes; i++) {
      free(g->n[i].ops);
      free(g->n[i].name);
      free(g->n[i].in);
      free(g->n[i].out);
   }
   free(g->t);
   free(g->n);
   free(g->nameIndex);
   memset(g, 0, sizeof *g);
}

/* FNV-1a */
static uint32_t nameHash(const char *s) {
   uint32_t h = 2166136261u;
   for (; *s; s++)
      h = (h ^ (uint8_t)*s) * 16777619u;
   return h;
}

static void indexTensor(NetGraph *g, int i) {
   uint32_t mask = (uint32_t)g->indexCap - 1;
   for (uint32_t h = nameHash(g->t[i].name) & mask;; h = (h + 1) & mask)
      if (!g->nameIndex[h]) {
         g->nameIndex[h] = i + 1;
         return;
      }
}

int NetGraph_addTensor(NetGraph *g, const char *name, NetTensorKind kind, int ndim, const int64_t *dims) {
   if (g->ntensors == g->captensors) {
      g->captensors = g->captensors ? 2 * g->captensors : 16;
      g->t = xReallocArray(g->t, (size_t)g->captensors, sizeof *g->t);
   }
   NetTensor *t = &g->t[g->ntensors];
   memset(t, 0, sizeof *t);
   t->name = xStrdup(name);
   t->kind = kind;
   t->ndim = ndim;
   for (int i = 0; i < ndim && i < NETGRAPH_MAX_DIMS; i++)
      t->dims[i] = dims[i];
   int at = g->ntensors++;
   if (2 * g->ntensors > g->indexCap) {
      g->indexCap = g->indexCap ? 2 * g->indexCap : 64;
      free(g->nameIndex);
      g->nameIndex = xCalloc((size_t)g->indexCap, sizeof *g->nameIndex);
      for (int i = 0; i < g->ntensors; i++)
         indexTensor(g, i);
   } else {
      indexTensor(g, at);
   }
   return at;
}

int NetGraph_findTensor(const NetGraph *g, const char *name) {
   if (!g->indexCap)
      return -1;
   uint32_t mask = (uint32_t)g->indexCap - 1;
   for (uint32_t h = nameHash(name) & mask; g->nameIndex[h]; h = (h + 1) & mask)
      if (strcmp(g->t[g->nameIndex[h] - 1].name, name) == 0)
         return g->nameIndex[h] - 1;
   return -1;
}

int NetGraph_addNode(NetGraph *g, int task, const char *ops, const char *name, int nin, const int *in,
                     int nout, const int *out) {
   if (g->nnodes == g->capnodes) {
      g->capnodes = g->capnodes ? 2 * g->capnodes : 16;
      g->n = xReallocArray(g->n, (size_t)g->capnodes, sizeof *g->n);
   }
   NetNode *n = &g->n[g->nnodes];
   memset(n, 0, sizeof *n);
   n->task = task;
   n->ops = ops ? xStrdup(ops) : NULL;
   n->name = xStrdup(name ? name : "");
   n->nin = nin;
   n->nout = nout;
   n->in = xMalloc(sizeof(int) * (size_t)(nin ? nin : 1));
   n->out = xMalloc(sizeof(int) * (size_t)(nout ? nout : 1));
   memcpy(n->in, in, sizeof(int) * (size_t)nin);
   memcpy(n->out, out, sizeof(int) * (size_t)nout);
   return g->nnodes++;
}

int64_t NetTensor_elems(const NetTensor *t) {
   int64_t e = 1;
   for (int i = 0; i < t->ndim; i++)
      e *= t->dims[i];
   return e;
}

static void nameList(FILE *out, const NetGraph *g, int n, const int *idx) {
   fputc('[', out);
   for (int i = 0; i < n; i++) {
      if (i)
         fprintf(out, ", ");
      YamlDoc_writeQuoted(out, g->t[idx[i]].name);
   }
   fputc(']', out);
}

void NetGraph_write(const NetGraph *g, FILE *out) {
   fprintf(out, "graph:\n  tensors:\n");
   for (int i = 0; i < g->ntensors; i++) {
      const NetTensor *t = &g->t[i];
      fprintf(out, "    - {name: ");
      YamlDoc_writeQuoted(out, t->name);
      fprintf(out, ", kind: %s, shape: [", NetTensorKind_name(t->kind));
      for (int k = 0; k < t->ndim; k++)
         fprintf(out, "%s%lld", k ? ", " : "", (long long)t->dims[k]);
      fprintf(out, "]}\n");
   }
   fprintf(out, "  nodes:\n");
   for (int i = 0; i < g->nnodes; i++) {
      const NetNode *n = &g->n[i];
      if (n->task >= 0) {
         fprintf(out, "    - {task: %d", n->task);
      } else {
         fprintf(out, "    - {ops: ");
         YamlDoc_writeQuoted(out, n->ops ? n->ops : "");
      }
      fprintf(out, ", name: ");
      YamlDoc_writeQuoted(out, n->name);
      fprintf(out, ", inputs: ");
      nameList(out, g, n->nin, n->in);
      fprintf(out, ", outputs: ");
      nameList(out, g, n->nout, n->out);
      fprintf(out, "}\n");
   }
}
