/* FuseOps as Relay runs it (reference/onnx.md §1): a post-dominator tree over the
 * dataflow graph, then three phases over the nodes, producers first, merging each node's
 * group into its post-dominator's where the patterns on every path allow. Every walk is
 * a loop over an explicit stack, and the tree carries jump pointers, so that a chain of
 * a hundred thousand nodes costs neither the C stack nor quadratic time. */
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
   /* each node's output edges: node i's are edge[first[i]] to edge[end[i] - 1] */
   int *first, *end;
   Edge *edge;
   bool *externRef;            /* writes a graph output */
   /* post-dominator tree; jump[i] is an ancestor of i (i itself at a root) chosen so
    * that any climb takes O(log depth) jumps, and jumpPattern[i] the max tree pattern
    * of the nodes from i up to jump[i], i included and jump[i] not */
   int *parent, *depth, *jump;
   FusePattern *treePattern, *jumpPattern;
   /* groups: union-find */
   int *gparent, *gsize;
   FusePattern *gpattern;
   bool *ganchor;
   /* scratch of the path walks */
   int *visited;
   int visitStamp;
   int *stack;
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

/* Calls visit(f, producer, consumer, pattern) for each input of each node that another
 * node writes, consumers in order. */
static void forEachInput(Fuser *f, void (*visit)(Fuser *f, int p, int c, FusePattern ep)) {
   const Graph *g = f->g;
   for (int c = 0; c < f->n; c++) {
      const GNode *cn = &g->n[c];
      for (int k = 0; k < cn->nin; k++) {
         int t = cn->in[k];
         if (t < 0)
            continue;
         int p = g->t[t].producer;
         if (p < 0 || p >= f->n)
            continue;
         FusePattern ep = f->pattern[c];
         if (ep == PAT_BROADCAST && cn->nout > 0 && cn->out[0] >= 0 && sameShape(&g->t[t], &g->t[cn->out[0]]))
            ep = PAT_ELEMWISE;
         visit(f, p, c, ep);
      }
   }
}

static void countInput(Fuser *f, int p, int c, FusePattern ep) {
   (void)c, (void)ep;
   f->first[p + 1]++;
}

/* One edge per producer-consumer pair, the strongest: the consumers come in order, so a
 * pair's edge, when there is one, is the producer's last. */
static void addEdge(Fuser *f, int p, int c, FusePattern ep) {
   Edge *last = f->end[p] > f->first[p] ? &f->edge[f->end[p] - 1] : NULL;
   if (last && last->consumer == c)
      last->pattern = maxPattern(last->pattern, ep);
   else
      f->edge[f->end[p]++] = (Edge){ c, ep };
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
   /* room for every input a node's output feeds, from first[i] on */
   forEachInput(f, countInput);
   for (int i = 0; i < f->n; i++) {
      f->first[i + 1] += f->first[i];
      f->end[i] = f->first[i];
   }
   f->edge = xMalloc(sizeof(Edge) * (size_t)(f->first[f->n] ? f->first[f->n] : 1));
   forEachInput(f, addEdge);
}

static int nedges(const Fuser *f, int i) {
   return f->end[i] - f->first[i];
}

/* The least common ancestor of a and b in the tree built so far, or -1 when they have
 * none; *pat takes the tree patterns of the nodes climbed past on both sides, as Relay's
 * LeastCommonAncestor. */
static int lca(Fuser *f, int a, int b, FusePattern *pat) {
   if (a < 0 || b < 0)
      return -1;
   if (f->depth[a] < f->depth[b]) {
      int t = a;
      a = b;
      b = t;
   }
   while (f->depth[a] > f->depth[b]) {
      if (f->depth[f->jump[a]] >= f->depth[b]) {
         *pat = maxPattern(*pat, f->jumpPattern[a]);
         a = f->jump[a];
      } else {
         *pat = maxPattern(*pat, f->treePattern[a]);
         a = f->parent[a];
      }
   }
   /* equal depths have equal jumps' depths */
   while (a != b) {
      if (f->parent[a] < 0 || f->parent[b] < 0)
         return -1;
      if (f->jump[a] != f->jump[b]) {
         *pat = maxPattern(*pat, maxPattern(f->jumpPattern[a], f->jumpPattern[b]));
         a = f->jump[a];
         b = f->jump[b];
      } else {
         *pat = maxPattern(*pat, maxPattern(f->treePattern[a], f->treePattern[b]));
         a = f->parent[a];
         b = f->parent[b];
      }
   }
   return a;
}

/* Node i joins the tree under parent (-1: a root). The jumps are Myers' skew-binary
 * ones: i jumps where its parent's jump jumps when the parent's jump and that one are
 * of one length, else to its parent. */
static void attach(Fuser *f, int i, int parent, FusePattern pat) {
   f->parent[i] = parent;
   f->treePattern[i] = pat;
   if (parent < 0) {
      f->depth[i] = 1;
      f->jump[i] = i;
      f->jumpPattern[i] = PAT_ELEMWISE;
      return;
   }
   f->depth[i] = f->depth[parent] + 1;
   int j = f->jump[parent], jj = f->jump[j];
   if (f->depth[parent] - f->depth[j] == f->depth[j] - f->depth[jj]) {
      f->jump[i] = jj;
      f->jumpPattern[i] = maxPattern(pat, maxPattern(f->jumpPattern[parent], f->jumpPattern[j]));
   } else {
      f->jump[i] = parent;
      f->jumpPattern[i] = pat;
   }
}

static void postDominators(Fuser *f) {
   for (int i = f->n - 1; i >= 0; i--) {
      if (f->externRef[i] || nedges(f, i) == 0) {
         attach(f, i, -1, PAT_OPAQUE);
         continue;
      }
      const Edge *e = &f->edge[f->first[i]];
      FusePattern pat = maxPattern(PAT_ELEMWISE, e[0].pattern);
      int parent = e[0].consumer;
      for (int k = 1; k < nedges(f, i) && parent >= 0; k++) {
         parent = lca(f, parent, e[k].consumer, &pat);
         pat = maxPattern(pat, e[k].pattern);
      }
      attach(f, i, parent, pat);
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

/* ---- the paths from a node to its post-dominator ---- */

typedef struct {
   Fuser *f;
   int sink;
   int top;
} PathWalk;

/* Starts a walk over the nodes on the paths from src to sink: src's consumers first,
 * each node once, the sink included but not gone past. */
static PathWalk walkFrom(Fuser *f, int src, int sink) {
   PathWalk w = { f, sink, 0 };
   f->visitStamp++;
   f->visited[src] = f->visitStamp;
   f->stack[w.top++] = src;
   return w;
}

/* The next node of the walk, or -1 after the last. */
static int walkNext(PathWalk *w) {
   if (w->top == 0)
      return -1;
   Fuser *f = w->f;
   int x = f->stack[--w->top];
   for (int e = f->first[x]; x != w->sink && e < f->end[x]; e++) {
      int c = f->edge[e].consumer;
      if (f->visited[c] != f->visitStamp) {
         f->visited[c] = f->visitStamp;
         f->stack[w->top++] = c;
      }
   }
   return x;
}

typedef bool (*PathCond)(FusePattern kind, bool isSink);

/* Whether every group on the paths from src to sink, the sink's included, passes cond. */
static bool checkPath(Fuser *f, int src, int sink, PathCond cond) {
   PathWalk w = walkFrom(f, src, sink);
   walkNext(&w);   /* src itself is not checked */
   for (int x; (x = walkNext(&w)) >= 0;)
      if (!cond(f->gpattern[findRoot(f, x)], x == sink))
         return false;
   return true;
}

/* Merges every group on the paths from src up to the sink into the sink's. */
static void commitFuse(Fuser *f, int src, int sink) {
   PathWalk w = walkFrom(f, src, sink);
   for (int x; (x = walkNext(&w)) >= 0;)
      if (x != sink)
         mergeFromTo(f, x, sink);
}

/* Whether the groups on the paths from src to sink, src's and the sink's included, hold
 * more than `limit` nodes: Relay's CountFusedNodesWithNewChild against its max depth.
 * The count stops at the limit, so a walk is never longer than the limit. */
static bool fusedOverLimit(Fuser *f, int src, int sink, int limit) {
   PathWalk w = walkFrom(f, src, sink);
   int n = 0;
   for (int x; (x = walkNext(&w)) >= 0;) {
      n += f->gsize[findRoot(f, x)];
      if (n > limit)
         return true;
   }
   return false;
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
   /* phase 2 fuses injective ops into a tuple: ONNX has no tuple node, Concat reads its
    * inputs */
   if (phase == 2)
      return;
   for (int i = 0; i < f->n; i++) {
      FusePattern own = f->gpattern[i];   /* the node's own group's pattern, root or not */
      if (own == PAT_OPAQUE || f->parent[i] < 0)
         continue;
      int dom = f->parent[i];
      if (findRoot(f, i) == findRoot(f, dom) || fusedOverLimit(f, i, dom, MAX_FUSED_OPS))
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
   size_t n = (size_t)(f.n ? f.n : 1);
   f.pattern = xCalloc(n, sizeof *f.pattern);
   f.first = xCalloc(n + 1, sizeof *f.first);
   f.end = xCalloc(n, sizeof *f.end);
   f.externRef = xCalloc(n, sizeof *f.externRef);
   f.parent = xCalloc(n, sizeof *f.parent);
   f.depth = xCalloc(n, sizeof *f.depth);
   f.jump = xCalloc(n, sizeof *f.jump);
   f.treePattern = xCalloc(n, sizeof *f.treePattern);
   f.jumpPattern = xCalloc(n, sizeof *f.jumpPattern);
   f.gparent = xCalloc(n, sizeof *f.gparent);
   f.gsize = xCalloc(n, sizeof *f.gsize);
   f.gpattern = xCalloc(n, sizeof *f.gpattern);
   f.ganchor = xCalloc(n, sizeof *f.ganchor);
   f.visited = xCalloc(n, sizeof *f.visited);
   f.stack = xCalloc(n, sizeof *f.stack);
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
   int *index = f.stack;
   for (int i = 0; i < f.n; i++)
      index[i] = -1;
   int ngroups = 0;
   for (int i = 0; i < f.n; i++) {
      int r = findRoot(&f, i);
      if (index[r] < 0)
         index[r] = ngroups++;
      groupOf[i] = index[r];
   }
   free(f.pattern);
   free(f.first);
   free(f.end);
   free(f.edge);
   free(f.externRef);
   free(f.parent);
   free(f.depth);
   free(f.jump);
   free(f.treePattern);
   free(f.jumpPattern);
   free(f.gparent);
   free(f.gsize);
   free(f.gpattern);
   free(f.ganchor);
   free(f.visited);
   free(f.stack);
   return ngroups;
}
