/* Sketch generation: Ansor's GPU rules (AddCacheRead, AlwaysInline, CrossThreadReduction,
 * AddCacheWrite, MultiLevelTilingWithFusion, SkipStage; ansor.md 1.2-1.4) walked from
 * the last stage to the first. Cross-thread reduction is the one rule that branches
 * (kApply): the search continues both with and without it, which is where a task's
 * several sketches come from. */
#include "config.h"

#include "sched/sketch.h"

#include <stdio.h>
#include <string.h>

#include "util/textbuf.h"
#include "util/xalloc.h"

const int32_t Sketch_unrollSteps[SKETCH_UNROLL_STEPS] = { 0, 16, 64, 512, 1024 };

/* ---- analyses ---- */

int64_t Sketch_spaceLength(const Dag *g, int stage) {
   return Dag_numElements(g, stage);
}

int64_t Sketch_reduceLength(const Dag *g, int stage) {
   const Stage *st = &g->stages[stage];
   int64_t n = 1;
   for (int r = 0; r < st->nreduce; r++)
      n *= st->rextent[r];
   return n;
}

/* Sets bit a of *mask for each axis an expression uses. */
static void axesUsed(const Dag *g, int32_t e, uint32_t *mask) {
   const Expr *x = Dag_expr(g, e);
   if (x->kind == EXPR_AXIS)
      *mask |= 1u << x->ref;
   for (int i = 0; i < x->nargs; i++)
      axesUsed(g, x->args[i], mask);
}

/* For each load of `producer` in e, ORs the axes its indices use into *mask. */
static void loadAxes(const Dag *g, int32_t e, int producer, uint32_t *mask, bool *found) {
   const Expr *x = Dag_expr(g, e);
   if (x->kind == EXPR_LOAD && x->ref == producer) {
      *found = true;
      for (int i = 0; i < x->nargs; i++)
         axesUsed(g, x->args[i], mask);
   }
   for (int i = 0; i < x->nargs; i++)
      loadAxes(g, x->args[i], producer, mask, found);
}

bool Sketch_needsMultiLevelTiling(const Dag *g, int stage) {
   const Stage *st = &g->stages[stage];
   if (st->kind != STAGE_COMPUTE)
      return false;
   int missing = 0;
   for (int p = 0; p < stage; p++) {
      uint32_t used = 0;
      bool found = false;
      loadAxes(g, st->body, p, &used, &found);
      if (!found)
         continue;
      for (int a = 0; a < st->ndim; a++)
         if (st->shape[a] > 1 && !(used & (1u << a))) {
            missing++;
            break;
         }
   }
   return missing >= 2 || (missing >= 1 && st->nreduce > 0);
}

/* Whether every load of `producer` in e reads it at exactly axes 0..ndim-1 in order
 * (the first `prefix` of them when prefix >= 0). */
static bool simpleLoads(const Dag *g, int32_t e, int producer, int prefix) {
   const Expr *x = Dag_expr(g, e);
   if (x->kind == EXPR_LOAD && x->ref == producer) {
      int n = prefix >= 0 ? prefix : x->nargs;
      for (int i = 0; i < n; i++) {
         const Expr *idx = Dag_expr(g, x->args[i]);
         if (idx->kind != EXPR_AXIS || idx->ref != i)
            return false;
      }
   }
   for (int i = 0; i < x->nargs; i++)
      if (!simpleLoads(g, x->args[i], producer, prefix))
         return false;
   return true;
}

static bool sameShape(const Stage *a, const Stage *b) {
   if (a->ndim != b->ndim)
      return false;
   for (int i = 0; i < a->ndim; i++)
      if (a->shape[i] != b->shape[i])
         return false;
   return true;
}

bool Sketch_elementwiseMatch(const Dag *g, int op, int target) {
   int cur = op;
   while (cur != target) {
      int readers[2];
      if (Dag_readers(g, cur, readers, 2) != 1)
         return false;
      int next = readers[0];
      if (next > target || !sameShape(&g->stages[cur], &g->stages[next]) ||
          !simpleLoads(g, g->stages[next].body, cur, -1))
         return false;
      cur = next;
   }
   return true;
}

int Sketch_commonOuterAxes(const Dag *g, int producer, int consumer) {
   const Stage *p = &g->stages[producer], *c = &g->stages[consumer];
   int k = 0;
   while (k < p->ndim && k < c->ndim && p->shape[k] == c->shape[k] &&
          simpleLoads(g, c->body, producer, k + 1))
      k++;
   return k;
}

int64_t Sketch_indexExtent(const Dag *g, int32_t e, const int64_t *axisExtent) {
   const Expr *x = Dag_expr(g, e);
   switch ((ExprKind)x->kind) {
   case EXPR_INT:
      return 1;
   case EXPR_AXIS:
      return axisExtent[x->ref];
   case EXPR_ADD:
   case EXPR_SUB:
      return Sketch_indexExtent(g, x->args[0], axisExtent) +
             Sketch_indexExtent(g, x->args[1], axisExtent) - 1;
   case EXPR_MUL: {
      const Expr *a = Dag_expr(g, x->args[0]), *b = Dag_expr(g, x->args[1]);
      if (b->kind == EXPR_INT || a->kind == EXPR_INT) {
         int64_t c = b->kind == EXPR_INT ? b->v.i : a->v.i;
         int64_t ext = Sketch_indexExtent(g, b->kind == EXPR_INT ? x->args[0] : x->args[1], axisExtent);
         c = c < 0 ? -c : c;
         return c == 0 ? 1 : c * (ext - 1) + 1;
      }
      fatal("index expression multiplies two variables");
   }
   case EXPR_FLOORDIV: {
      const Expr *b = Dag_expr(g, x->args[1]);
      if (b->kind != EXPR_INT || b->v.i <= 0)
         fatal("index expression divides by a non-constant");
      int64_t ext = Sketch_indexExtent(g, x->args[0], axisExtent), c = b->v.i;
      /* worst case over where the range starts */
      return (ext + c - 2) / c + 1;
   }
   case EXPR_FLOORMOD: {
      const Expr *b = Dag_expr(g, x->args[1]);
      int64_t ext = Sketch_indexExtent(g, x->args[0], axisExtent);
      return b->kind == EXPR_INT && b->v.i < ext ? b->v.i : ext;
   }
   case EXPR_MIN:
   case EXPR_MAX: {
      int64_t a = Sketch_indexExtent(g, x->args[0], axisExtent);
      int64_t b = Sketch_indexExtent(g, x->args[1], axisExtent);
      return a > b ? a : b;
   }
   case EXPR_SELECT: {
      int64_t a = Sketch_indexExtent(g, x->args[1], axisExtent);
      int64_t b = Sketch_indexExtent(g, x->args[2], axisExtent);
      return a > b ? a : b;
   }
   default:
      fatal("expression kind %d in an index", x->kind);
   }
}

/* The axes of `stage` that expression e reads, a bit each. */
static unsigned axesRead(const Dag *g, int32_t e) {
   const Expr *x = Dag_expr(g, e);
   if (x->kind == EXPR_AXIS)
      return 1u << x->ref;
   unsigned m = 0;
   for (int i = 0; i < x->nargs; i++)
      m |= axesRead(g, x->args[i]);
   return m;
}

/* A factor a TC kernel stages: a load of a placeholder, or of an elementwise stage that
 * sketches inline (conv2d's padding). */
static bool isStagedLoad(const Dag *g, int32_t e) {
   const Expr *x = Dag_expr(g, e);
   if (x->kind != EXPR_LOAD)
      return false;
   const Stage *src = &g->stages[x->ref];
   return src->kind == STAGE_PLACEHOLDER || (src->nreduce == 0 && x->ref != Dag_output(g));
}

static int64_t groupExtent(const Stage *st, const int *axes, int n) {
   int64_t e = 1;
   for (int i = 0; i < n; i++)
      e *= st->shape[axes[i]];
   return e;
}

bool Sketch_gemm(const Dag *g, int stage, SketchGemm *out) {
   const Stage *st = &g->stages[stage];
   if (st->kind != STAGE_COMPUTE || st->reduce != REDUCE_SUM || st->nreduce < 1)
      return false;
   const Expr *body = Dag_expr(g, st->body);
   if (body->kind != EXPR_MUL || !isStagedLoad(g, body->args[0]) || !isStagedLoad(g, body->args[1]))
      return false;
   unsigned readA = axesRead(g, body->args[0]), readB = axesRead(g, body->args[1]);
   SketchGemm gm;
   memset(&gm, 0, sizeof gm);
   for (int i = 0; i < st->ndim; i++) {
      unsigned bit = 1u << i;
      if ((readA & bit) && (readB & bit))
         gm.batchAxis[gm.nbatch++] = i;
      else if (readB & bit)
         gm.nAxis[gm.nn++] = i;
      else
         gm.mAxis[gm.nm++] = i;
   }
   /* both sides of the product need an axis of their own (depthwise conv2d has no n) */
   if (gm.nm == 0 || gm.nn == 0)
      return false;
   gm.batch = groupExtent(st, gm.batchAxis, gm.nbatch);
   gm.M = groupExtent(st, gm.mAxis, gm.nm);
   gm.N = groupExtent(st, gm.nAxis, gm.nn);
   gm.K = 1;
   for (int r = 0; r < st->nreduce; r++)
      gm.K *= st->rextent[r];
   if (out)
      *out = gm;
   return true;
}

unsigned Sketch_tensorCorePrecisions(int ccMajor, int ccMinor) {
   unsigned mask = 0;
   for (int p = PRECISION_FP16; p < PRECISION_COUNT; p++)
      if (Precision_onTensorCores((Precision)p, ccMajor, ccMinor))
         mask |= PRECISION_BIT(p);
   return mask;
}

/* ---- the rule walk ---- */

#define SHARED_CONSUMER (-2)   /* a stage's reader is a .shared copy */

typedef struct {
   StagePlan plan[TE_MAX_STAGES];
   bool cached[TE_MAX_STAGES];
   bool ctr[TE_MAX_STAGES];
   int consumerOf[TE_MAX_STAGES];   /* ANCHOR: the root it is fused into; ATTACHED: the consumer */
   bool selfAnchor[TE_MAX_STAGES];  /* ROOT that is its own MLT anchor (cache write) */
} Partial;

typedef struct {
   const Dag *g;
   Partial found[SKETCH_MAX_SKETCHES];
   int nfound;
} Walk;

/* Readers of s, looking through inlined stages (Ansor's GetConsumers). */
static int consumers(const Dag *g, const Partial *p, int s, int *out, int n) {
   int readers[TE_MAX_STAGES];
   int nr = Dag_readers(g, s, readers, TE_MAX_STAGES);
   for (int i = 0; i < nr; i++) {
      int r = readers[i];
      if (p->plan[r] == STAGE_PLAN_INLINE) {
         if (p->cached[r]) {
            bool seen = false;
            for (int k = 0; k < n; k++)
               seen |= out[k] == SHARED_CONSUMER;
            if (!seen)
               out[n++] = SHARED_CONSUMER;
         } else {
            n = consumers(g, p, r, out, n);
         }
         continue;
      }
      bool seen = false;
      for (int k = 0; k < n; k++)
         seen |= out[k] == r;
      if (!seen)
         out[n++] = r;
   }
   return n;
}

static bool isOutput(const Dag *g, int s) {
   return s == Dag_output(g);
}

static void walk(Walk *w, Partial p, int s);

static void next(Walk *w, const Partial *p, int s) {
   walk(w, *p, s - 1);
}

static void walk(Walk *w, Partial p, int s) {
   const Dag *g = w->g;
   if (s < 0) {
      if (w->nfound == SKETCH_MAX_SKETCHES)
         fatal("more than %d sketches", SKETCH_MAX_SKETCHES);
      w->found[w->nfound++] = p;
      return;
   }
   const Stage *st = &g->stages[s];
   int cons[TE_MAX_STAGES];
   int ncons = consumers(g, &p, s, cons, 0);

   /* AddCacheRead: the first consumer is multi-level tiled without cross-thread
    * reduction and reads this stage directly */
   if (ncons >= 1 && cons[0] >= 0 && Sketch_needsMultiLevelTiling(g, cons[0]) && !p.ctr[cons[0]] &&
       Dag_exprReads(g, g->stages[cons[0]].body, s))
      p.cached[s] = true;

   if (st->kind == STAGE_PLACEHOLDER) {
      p.plan[s] = STAGE_PLAN_PLACEHOLDER;
      next(w, &p, s);
      return;
   }
   /* AlwaysInline: on GPU, every compute stage that neither reduces nor is the output */
   if (!isOutput(g, s) && st->nreduce == 0) {
      p.plan[s] = STAGE_PLAN_INLINE;
      next(w, &p, s);
      return;
   }
   bool mlt = Sketch_needsMultiLevelTiling(g, s);
   if (st->nreduce > 0) {
      int64_t space = Sketch_spaceLength(g, s), reduce = Sketch_reduceLength(g, s);
      bool apply = mlt ? space <= 1024 && space < reduce : reduce > SKETCH_WARP_SIZE;
      if (apply) {
         /* CrossThreadReduction (kApply): this branch takes it, the walk below goes on
          * without it */
         Partial q = p;
         q.ctr[s] = true;
         if (ncons == 1 && cons[0] >= 0 && !Sketch_needsMultiLevelTiling(g, cons[0]) &&
             Sketch_commonOuterAxes(g, s, cons[0]) > 0) {
            q.plan[s] = STAGE_PLAN_ATTACHED;
            q.consumerOf[s] = cons[0];
         } else {
            q.plan[s] = STAGE_PLAN_ROOT;
         }
         next(w, &q, s);
      }
   }
   if (mlt) {
      bool fuse = ncons == 1 && cons[0] >= 0 && Sketch_elementwiseMatch(g, s, cons[0]) &&
                  !(st->nreduce > 0 && g->stages[cons[0]].nreduce > 0);
      if (fuse) {
         /* MultiLevelTilingWithFusion */
         p.plan[s] = STAGE_PLAN_ANCHOR;
         p.consumerOf[s] = cons[0];
      } else {
         /* AddCacheWrite, then tiling the local stage into this one */
         p.plan[s] = STAGE_PLAN_ROOT;
         p.selfAnchor[s] = true;
      }
      next(w, &p, s);
      return;
   }
   /* SkipStage */
   p.plan[s] = STAGE_PLAN_ROOT;
   next(w, &p, s);
}

/* ---- from a finished walk to kernels and knob slots ---- */

typedef struct {
   SketchSet *set;
   Sketch *sk;
} Build;

static const FactorSchemes *schemesFor(SketchSet *set, int64_t extent, int nparts) {
   for (int i = 0; i < set->nschemes; i++)
      if (set->schemes[i].extent == extent && set->schemes[i].nparts == nparts)
         return &set->schemes[i];
   FactorSchemes *fs = &set->schemes[set->nschemes++];
   FactorSchemes_build(fs, extent, nparts, SKETCH_MAX_INNERMOST);
   return fs;
}

static int addSplit(Build *b, SplitKind kind, int kernel, int stage, int axis, bool reduce,
                    int nparts, int64_t extent, const char *name) {
   Sketch *sk = b->sk;
   if (sk->nsplits == SKETCH_MAX_SPLITS || sk->nknobs + nparts > SKETCH_MAX_KNOBS)
      fatal("sketch has too many knobs");
   SplitSlot *sl = &sk->splits[sk->nsplits];
   memset(sl, 0, sizeof *sl);
   sl->kind = kind;
   sl->kernel = kernel;
   sl->stage = stage;
   sl->axis = axis;
   sl->reduce = reduce;
   sl->nparts = nparts;
   sl->knob = sk->nknobs;
   sl->extent = extent;
   if (kind == SPLIT_TILE)
      sl->schemes = schemesFor(b->set, extent, nparts);
   snprintf(sl->name, sizeof sl->name, "%s", name);
   sk->nknobs += nparts;
   return sk->nsplits++;
}

static void addUnroll(Build *b, int kernel, int stage) {
   Sketch *sk = b->sk;
   if (sk->nunrolls == SKETCH_MAX_UNROLLS || sk->nknobs == SKETCH_MAX_KNOBS)
      fatal("sketch has too many unroll knobs");
   UnrollSlot *u = &sk->unrolls[sk->nunrolls++];
   u->kernel = kernel;
   u->stage = stage;
   u->knob = sk->nknobs++;
   snprintf(u->name, sizeof u->name, "%s.unroll", b->set->dag.stages[stage].name);
}

static void buildMlt(Build *b, KernelPlan *k, int ki, int anchor) {
   const Dag *g = &b->set->dag;
   const Stage *a = &g->stages[anchor];
   char name[SKETCH_KNOB_NAME_MAX];
   k->kind = KERNEL_MLT;
   k->anchor = anchor;
   k->firstTile = b->sk->nsplits;
   for (int i = 0; i < a->ndim + a->nreduce; i++) {
      bool reduce = i >= a->ndim;
      snprintf(name, sizeof name, "%s.%s", a->name, a->axis[i]);
      addSplit(b, SPLIT_TILE, ki, anchor, i, reduce, reduce ? 2 : 4,
               reduce ? a->rextent[i - a->ndim] : a->shape[i], name);
   }
   k->ntiles = b->sk->nsplits - k->firstTile;
   for (int s = 0; s < anchor; s++) {
      if (!b->sk->cached[s] || !Dag_exprReads(g, a->body, s))
         continue;
      if (k->ncache == SKETCH_MAX_CACHES)
         fatal("more than %d shared copies", SKETCH_MAX_CACHES);
      snprintf(name, sizeof name, "%s.shared.vector", g->stages[s].name);
      k->cacheSplit[k->ncache] = addSplit(b, SPLIT_VECTOR, ki, s, -1, false, 1, 0, name);
      k->cache[k->ncache++] = s;
   }
   if (a->nreduce > 0)
      addUnroll(b, ki, anchor);
}

static void buildTc(Build *b, KernelPlan *k, int ki, int anchor) {
   const Stage *a = &b->set->dag.stages[anchor];
   char name[SKETCH_KNOB_NAME_MAX];
   static const char *const parts[SKETCH_TC_KNOBS] = { "m", "n", "k", "split", "stages" };
   static const int nparts[SKETCH_TC_KNOBS] = { 2, 2, 1, 1, 1 };
   static const int64_t largest[SKETCH_TC_KNOBS] = { 8, 8, 4, SKETCH_TC_MAX_SPLIT, 2 };
   k->kind = KERNEL_TC;
   k->anchor = anchor;
   if (!Sketch_gemm(&b->set->dag, anchor, &k->gemm))
      fatal("a tensor-core kernel of %s, which is no matrix multiply", a->name);
   k->firstTile = b->sk->nsplits;
   const int axis[SKETCH_TC_KNOBS] = { k->gemm.mAxis[0], k->gemm.nAxis[0], a->ndim, a->ndim, a->ndim };
   for (int i = 0; i < SKETCH_TC_KNOBS; i++) {
      snprintf(name, sizeof name, "%s.tc.%s", a->name, parts[i]);
      int slot = addSplit(b, SPLIT_TC, ki, anchor, axis[i], i >= 2, nparts[i], largest[i], name);
      /* states from before split-K and the pipeline: unsplit, one stage in flight */
      if (i >= 3)
         b->sk->splits[slot].byDefault = 1;
   }
   k->ntiles = SKETCH_TC_KNOBS;
}

static void buildKernels(Build *b) {
   Sketch *sk = b->sk;
   const Dag *g = &b->set->dag;
   char name[SKETCH_KNOB_NAME_MAX];
   for (int s = 0; s < g->nstages; s++) {
      if (sk->plan[s] != STAGE_PLAN_ROOT)
         continue;
      if (sk->nkernels == SKETCH_MAX_KERNELS)
         fatal("more than %d kernels", SKETCH_MAX_KERNELS);
      int ki = sk->nkernels++;
      KernelPlan *k = &sk->kernels[ki];
      memset(k, 0, sizeof *k);
      k->root = s;
      k->anchor = -1;
      k->threadSplit = -1;
      const Stage *st = &g->stages[s];
      int anchor = sk->selfAnchor[s] ? s : -1;
      for (int a = 0; a < s; a++)
         if (sk->plan[a] == STAGE_PLAN_ANCHOR && sk->consumerOf[a] == s)
            anchor = a;
      snprintf(name, sizeof name, "%s.threads", st->name);
      if (anchor >= 0 && sk->precision != PRECISION_FP32) {
         buildTc(b, k, ki, anchor);
      } else if (anchor >= 0) {
         buildMlt(b, k, ki, anchor);
      } else if (sk->crossThread[s]) {
         k->kind = KERNEL_CTR;
         k->anchor = s;
         k->threadSplit = addSplit(b, SPLIT_THREADS, ki, s, -1, false, 1, Sketch_reduceLength(g, s), name);
         addUnroll(b, ki, s);
      } else {
         for (int a = 0; a < s; a++)
            if (sk->plan[a] == STAGE_PLAN_ATTACHED && sk->consumerOf[a] == s) {
               if (k->nattached == SKETCH_MAX_ATTACHED)
                  fatal("more than %d attached reductions", SKETCH_MAX_ATTACHED);
               k->attached[k->nattached++] = a;
            }
         if (k->nattached > 0) {
            /* the consumer's last axis is split across the threads, and the attached
             * reductions follow that split with their fused reduce axes */
            k->kind = KERNEL_CTR;
            k->threadSplit = addSplit(b, SPLIT_THREADS, ki, s, -1, false, 1, st->shape[st->ndim - 1], name);
            for (int i = 0; i < k->nattached; i++)
               addUnroll(b, ki, k->attached[i]);
         } else {
            k->kind = KERNEL_SIMPLE;
            if (Sketch_spaceLength(g, s) > SKETCH_WARP_SIZE)
               k->threadSplit = addSplit(b, SPLIT_THREADS, ki, s, -1, false, 1, Sketch_spaceLength(g, s), name);
            if (st->nreduce > 0)
               addUnroll(b, ki, s);
         }
      }
   }
}

static void summarize(const Dag *g, Sketch *sk) {
   TextBuf t = TextBuf_over(sk->summary, sizeof sk->summary);
   for (int i = 0; i < sk->nkernels; i++) {
      const KernelPlan *k = &sk->kernels[i];
      const char *root = g->stages[k->root].name;
      if (i)
         TextBuf_add(&t, "; ");
      switch (k->kind) {
      case KERNEL_TC:
         TextBuf_add(&t, "tensor-core %s %s", Precision_name(sk->precision), g->stages[k->anchor].name);
         if (k->anchor != k->root)
            TextBuf_add(&t, " into %s", root);
         break;
      case KERNEL_MLT:
         TextBuf_add(&t, "tiled %s", g->stages[k->anchor].name);
         if (k->anchor != k->root)
            TextBuf_add(&t, " into %s", root);
         for (int c = 0; c < k->ncache; c++)
            TextBuf_add(&t, "%s%s", c ? ", " : ", shared ", g->stages[k->cache[c]].name);
         break;
      case KERNEL_SIMPLE:
         TextBuf_add(&t, "simple %s", root);
         break;
      case KERNEL_CTR:
         if (k->nattached == 0)
            TextBuf_add(&t, "cross-thread %s", root);
         for (int a = 0; a < k->nattached; a++)
            TextBuf_add(&t, "%s%s", a ? ", " : "cross-thread ", g->stages[k->attached[a]].name);
         if (k->nattached)
            TextBuf_add(&t, " in %s", root);
         break;
      }
   }
}

/* Whether the factors of gemm stage s that are not placeholders are inlined. */
static bool operandsInlined(const Dag *g, const Partial *p, int s) {
   const Expr *body = Dag_expr(g, g->stages[s].body);
   for (int i = 0; i < 2; i++) {
      int src = Dag_expr(g, body->args[i])->ref;
      if (g->stages[src].kind != STAGE_PLACEHOLDER && p->plan[src] != STAGE_PLAN_INLINE)
         return false;
   }
   return true;
}

/* The walk's result that tiles a matrix multiply without a cross-thread reduction, the
 * structure a TC sketch takes over; -1 when none has one. */
static int matmulPartial(const Dag *g, const Walk *w) {
   for (int i = 0; i < w->nfound; i++) {
      const Partial *p = &w->found[i];
      for (int s = 0; s < g->nstages; s++) {
         bool tiled = p->plan[s] == STAGE_PLAN_ANCHOR || (p->plan[s] == STAGE_PLAN_ROOT && p->selfAnchor[s]);
         if (tiled && !p->ctr[s] && Sketch_gemm(g, s, NULL) && operandsInlined(g, p, s))
            return i;
      }
   }
   return -1;
}

void SketchSet_generate(SketchSet *set, const Dag *g) {
   SketchSet_generateWith(set, g, NULL);
}

void SketchSet_generateWith(SketchSet *set, const Dag *g, const SketchOptions *opt) {
   memset(set, 0, sizeof *set);
   Dag_copy(&set->dag, g);
   set->outputElements = Dag_numElements(g, Dag_output(g));
   Walk w = { .g = &set->dag };
   Partial start;
   memset(&start, 0, sizeof start);
   for (int i = 0; i < TE_MAX_STAGES; i++)
      start.consumerOf[i] = -1;
   walk(&w, start, g->nstages - 1);
   int nansor = w.nfound;
   int from[SKETCH_MAX_SKETCHES];
   Precision precision[SKETCH_MAX_SKETCHES];
   for (int i = 0; i < nansor; i++) {
      from[i] = i;
      precision[i] = PRECISION_FP32;
   }
   set->offered = (1u << nansor) - 1;
   int tc = opt && (opt->tensorCore || opt->everyPrecision) ? matmulPartial(&set->dag, &w) : -1;
   for (int p = PRECISION_FP16; p < PRECISION_COUNT && tc >= 0; p++) {
      if (w.nfound == SKETCH_MAX_SKETCHES)
         fatal("more than %d sketches", SKETCH_MAX_SKETCHES);
      if (opt->tensorCore & PRECISION_BIT(p))
         set->offered |= 1u << w.nfound;
      from[w.nfound] = tc;
      precision[w.nfound++] = (Precision)p;
   }
   set->count = w.nfound;
   for (int i = 0; i < w.nfound; i++) {
      Sketch *sk = &set->sketches[i];
      const Partial *p = &w.found[from[i]];
      sk->id = i;
      sk->precision = precision[i];
      memcpy(sk->plan, p->plan, sizeof sk->plan);
      memcpy(sk->cached, p->cached, sizeof sk->cached);
      memcpy(sk->crossThread, p->ctr, sizeof sk->crossThread);
      memcpy(sk->consumerOf, p->consumerOf, sizeof sk->consumerOf);
      memcpy(sk->selfAnchor, p->selfAnchor, sizeof sk->selfAnchor);
      Build b = { set, sk };
      buildKernels(&b);
      summarize(&set->dag, sk);
   }
}

const SketchOptions Sketch_readAny = { 0, true };

int SketchSet_offeredCount(const SketchSet *set) {
   int n = 0;
   for (int i = 0; i < set->count; i++)
      n += (set->offered >> i) & 1;
   return n;
}

unsigned SketchSet_offeredPrecisions(const SketchSet *set) {
   unsigned m = 0;
   for (int i = 0; i < set->count; i++)
      if ((set->offered >> i) & 1)
         m |= PRECISION_BIT(set->sketches[i].precision);
   return m;
}

void SketchSet_forOp(SketchSet *set, const OpParams *op) {
   SketchSet_forOpWith(set, op, NULL);
}

void SketchSet_forOpWith(SketchSet *set, const OpParams *op, const SketchOptions *opt) {
   Dag g;
   Dag_init(&g);
   Op_buildDag(op, &g);
   SketchSet_generateWith(set, &g, opt);
   Dag_done(&g);
}

void SketchSet_done(SketchSet *set) {
   for (int i = 0; i < set->nschemes; i++)
      FactorSchemes_done(&set->schemes[i]);
   Dag_done(&set->dag);
   memset(set, 0, sizeof *set);
}
