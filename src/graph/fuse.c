/* FuseOps as Relay runs it (reference/onnx.md §1): a post-dominator tree over the
 * dataflow graph, then three phases over the nodes, producers first, merging each node's
 * group into its post-dominator's where the patterns on every path allow. */
#include "config.h"

#include "graph/fuse.h"

#include <stdlib.h>
#include <string.h>

#include "graph/ops.h"
#include "util/xalloc.h"

#define MAX_FUSED_OPS 256

typedef struct {
   int consumer;
   FusePattern pattern;
} Edge;

typedef struct {
   const Graph *g;
   int n;
   FusePattern *pattern;       /* each node's op pattern */
   Edge **edges;               /* each node's output edges */
   int *nedges;
   bool *externRef;            /* writes a graph output */
   /* post-dominator tree */
   int *parent, *depth;
   FusePattern *treePattern;
   /* groups: union-find */
   int *gparent, *gsize;
   FusePattern *gpattern;
   bool *ganchor;
   /* scratch */
   int *visited;
   int visitStamp;
} Fuser;

static FusePattern maxPattern(FusePattern a, FusePattern b) {
   return a > b ? a : b;
}

static bool sameShape(const GTensor *a, const GTensor *b) {
   if (a->ndim != b->ndim)
      return false;
   for (int i = 0; i < a->ndim; i++)
      if (a->dims[i] != b->dims[i])
         return false;
   return true;
}

static void buildEdges(Fuser *f) {
   const Graph *g = f->g;
   for (int i = 0; i < f->n; i++) {
      const GraphOp *op = GraphOp_get(g->n[i].op);
      f->pattern[i] = op ? op->pattern : PAT_OPAQUE;
      for (int k = 0; k < g->n[i].nout; k++)
         if (g->n[i].out[k] >= 0 && g->t[g->n[i].out[k]].isOutput)
            f->externRef[i] = true;
   }
   for (int c = 0; c < f->n; c++) {
      const GNode *cn = &g->n[c];
      for (int k = 0; k < cn->nin; k++) {
         int t = cn->in[k];
         if (t < 0)
            continue;
         int p = g->t[t].producer;
         if (p < 0 || p >= f->n)
            continue;
         /* one edge per producer-consumer pair, the strongest */
         FusePattern ep = f->pattern[c];
         if (ep == PAT_BROADCAST && cn->nout > 0 && cn->out[0] >= 0 && sameShape(&g->t[t], &g->t[cn->out[0]]))
            ep = PAT_ELEMWISE;
         bool merged = false;
         for (int e = 0; e < f->nedges[p]; e++)
            if (f->edges[p][e].consumer == c) {
               f->edges[p][e].pattern = maxPattern(f->edges[p][e].pattern, ep);
               merged = true;
            }
         if (merged)
            continue;
         f->edges[p] = xReallocArray(f->edges[p], (size_t)f->nedges[p] + 1, sizeof(Edge));
         f->edges[p][f->nedges[p]++] = (Edge){ c, ep };
      }
   }
}

static int lca(Fuser *f, int a, int b, FusePattern *pat) {
   while (a != b) {
      if (a < 0 || b < 0)
         return -1;
      if (f->depth[a] < f->depth[b]) {
         *pat = maxPattern(*pat, f->treePattern[b]);
         b = f->parent[b];
      } else if (f->depth[b] < f->depth[a]) {
         *pat = maxPattern(*pat, f->treePattern[a]);
         a = f->parent[a];
      } else {
         *pat = maxPattern(*pat, maxPattern(f->treePattern[a], f->treePattern[b]));
         a = f->parent[a];
         b = f->parent[b];
      }
   }
   return a;
}

static void postDominators(Fuser *f) {
   for (int i = f->n - 1; i >= 0; i--) {
      if (f->externRef[i] || f->nedges[i] == 0) {
         f->parent[i] = -1;
         f->depth[i] = 1;
         f->treePattern[i] = PAT_OPAQUE;
         continue;
      }
      FusePattern pat = PAT_ELEMWISE;
      int parent = f->edges[i][0].consumer;
      pat = maxPattern(pat, f->edges[i][0].pattern);
      for (int e = 1; e < f->nedges[i] && parent >= 0; e++) {
         parent = lca(f, parent, f->edges[i][e].consumer, &pat);
         pat = maxPattern(pat, f->edges[i][e].pattern);
      }
      f->parent[i] = parent;
      f->depth[i] = parent >= 0 ? f->depth[parent] + 1 : 1;
      f->treePattern[i] = pat;
   }
}

static int findRoot(Fuser *f, int x) {
   while (f->gparent[x] != x) {
      f->gparent[x] = f->gparent[f->gparent[x]];
      x = f->gparent[x];
   }
   return x;
}

static void mergeFromTo(Fuser *f, int child, int parent) {
   child = findRoot(f, child);
   parent = findRoot(f, parent);
   if (child == parent)
      return;
   if (f->ganchor[child] && f->ganchor[parent])
      fatal("fuse: two complex groups merged");
   f->gsize[parent] += f->gsize[child];
   f->gparent[child] = parent;
   if (f->ganchor[child])
      f->ganchor[parent] = true;
   f->gpattern[parent] = maxPattern(f->gpattern[child], f->gpattern[parent]);
}

typedef bool (*PathCond)(FusePattern kind, bool isSink);

static bool checkPathFrom(Fuser *f, int src, int sink, PathCond cond) {
   if (f->visited[src] == f->visitStamp)
      return true;
   f->visited[src] = f->visitStamp;
   int root = findRoot(f, src);
   if (!cond(f->gpattern[root], src == sink))
      return false;
   if (src == sink)
      return true;
   for (int e = 0; e < f->nedges[src]; e++)
      if (!checkPathFrom(f, f->edges[src][e].consumer, sink, cond))
         return false;
   return true;
}

static bool checkPath(Fuser *f, int src, int sink, PathCond cond) {
   f->visitStamp++;
   for (int e = 0; e < f->nedges[src]; e++)
      if (!checkPathFrom(f, f->edges[src][e].consumer, sink, cond))
         return false;
   return true;
}

static void commitFrom(Fuser *f, int src, int sink, int target) {
   if (src == sink || f->visited[src] == f->visitStamp)
      return;
   f->visited[src] = f->visitStamp;
   mergeFromTo(f, src, target);
   for (int e = 0; e < f->nedges[src]; e++)
      commitFrom(f, f->edges[src][e].consumer, sink, target);
}

static void commitFuse(Fuser *f, int src, int sink) {
   f->visitStamp++;
   commitFrom(f, src, sink, sink);
}

/* Groups on the paths from src to sink, the sink's included, with src's: Relay's
 * CountFusedNodesWithNewChild. */
static int countFrom(Fuser *f, int src, int sink) {
   if (f->visited[src] == f->visitStamp)
      return 0;
   f->visited[src] = f->visitStamp;
   int n = f->gsize[findRoot(f, src)];
   if (src == sink)
      return n;
   for (int e = 0; e < f->nedges[src]; e++)
      n += countFrom(f, f->edges[src][e].consumer, sink);
   return n;
}

static int fusedCount(Fuser *f, int src, int sink) {
   f->visitStamp++;
   f->visited[src] = f->visitStamp;
   int n = f->gsize[findRoot(f, src)];
   for (int e = 0; e < f->nedges[src]; e++)
      n += countFrom(f, f->edges[src][e].consumer, sink);
   return n;
}

static bool uptoBroadcast(FusePattern k, bool isSink) {
   (void)isSink;
   return k <= PAT_BROADCAST;
}

static bool uptoInjective(FusePattern k, bool isSink) {
   (void)isSink;
   return k <= PAT_INJECTIVE;
}

static bool elemwiseIntoSink(FusePattern k, bool isSink) {
   if (!isSink)
      return k <= PAT_INJECTIVE;
   return k <= PAT_BROADCAST || k == PAT_COMM_REDUCE || k == PAT_INJECTIVE || k == PAT_OUT_EWISE_FUSABLE;
}

static void runPhase(Fuser *f, int phase) {
   for (int i = 0; i < f->n; i++) {
      FusePattern own = f->gpattern[i];   /* the node's own group's pattern, root or not */
      if (own == PAT_OPAQUE || f->parent[i] < 0)
         continue;
      int dom = f->parent[i];
      if (fusedCount(f, i, dom) > MAX_FUSED_OPS)
         continue;
      if (phase == 2) {
         /* injective ops into a tuple: ONNX has no tuple node, Concat reads its inputs */
         continue;
      }
      if (findRoot(f, i) == findRoot(f, dom))
         continue;
      if (f->gpattern[dom] == PAT_TUPLE)
         continue;
      if (own == PAT_OUT_EWISE_FUSABLE) {
         if (phase != 0)
            continue;
         if (f->treePattern[i] == PAT_ELEMWISE && checkPath(f, i, dom, uptoBroadcast))
            commitFuse(f, i, dom);
      } else if (own <= PAT_BROADCAST) {
         if ((f->treePattern[i] <= PAT_INJECTIVE || f->treePattern[i] == PAT_COMM_REDUCE) &&
             checkPath(f, i, dom, elemwiseIntoSink))
            commitFuse(f, i, dom);
      } else if (own == PAT_INJECTIVE || own == PAT_TUPLE) {
         if (phase != 1)
            continue;
         if (checkPath(f, i, dom, uptoInjective))
            commitFuse(f, i, dom);
      }
   }
}

int Graph_fuse(const Graph *g, int *groupOf) {
   Fuser f;
   memset(&f, 0, sizeof f);
   f.g = g;
   f.n = g->nnodes;
   int n = f.n ? f.n : 1;
   f.pattern = xCalloc((size_t)n, sizeof *f.pattern);
   f.edges = xCalloc((size_t)n, sizeof *f.edges);
   f.nedges = xCalloc((size_t)n, sizeof *f.nedges);
   f.externRef = xCalloc((size_t)n, sizeof *f.externRef);
   f.parent = xCalloc((size_t)n, sizeof *f.parent);
   f.depth = xCalloc((size_t)n, sizeof *f.depth);
   f.treePattern = xCalloc((size_t)n, sizeof *f.treePattern);
   f.gparent = xCalloc((size_t)n, sizeof *f.gparent);
   f.gsize = xCalloc((size_t)n, sizeof *f.gsize);
   f.gpattern = xCalloc((size_t)n, sizeof *f.gpattern);
   f.ganchor = xCalloc((size_t)n, sizeof *f.ganchor);
   f.visited = xCalloc((size_t)n, sizeof *f.visited);
   buildEdges(&f);
   postDominators(&f);
   for (int i = 0; i < f.n; i++) {
      f.gparent[i] = i;
      f.gsize[i] = 1;
      f.gpattern[i] = f.pattern[i];
      f.ganchor[i] = f.pattern[i] == PAT_OUT_EWISE_FUSABLE;
   }
   for (int phase = 0; phase < 3; phase++)
      runPhase(&f, phase);
   /* number the groups in the order of their first node */
   int *index = xMalloc(sizeof(int) * (size_t)n);
   for (int i = 0; i < f.n; i++)
      index[i] = -1;
   int ngroups = 0;
   for (int i = 0; i < f.n; i++) {
      int r = findRoot(&f, i);
      if (index[r] < 0)
         index[r] = ngroups++;
      groupOf[i] = index[r];
   }
   free(index);
   for (int i = 0; i < f.n; i++)
      free(f.edges[i]);
   free(f.pattern);
   free(f.edges);
   free(f.nedges);
   free(f.externRef);
   free(f.parent);
   free(f.depth);
   free(f.treePattern);
   free(f.gparent);
   free(f.gsize);
   free(f.gpattern);
   free(f.ganchor);
   free(f.visited);
   return ngroups;
}
