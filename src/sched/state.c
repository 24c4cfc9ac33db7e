/* States: derived kernel shapes, validity, sampling, mutation, hashing and text. */
#include "config.h"

#include "sched/state.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/jsonl.h"
#include "util/textbuf.h"
#include "util/xalloc.h"

void SchedLimits_default(SchedLimits *l) {
   l->maxThreadsPerBlock = 1024;
   l->maxSharedPerBlock = 49152;
   l->maxVthread = 8;
   l->warpSize = SKETCH_WARP_SIZE;
   l->maxVectorBytes = 16;
}

void SchedLimits_fromDevice(SchedLimits *l, const Device *d) {
   SchedLimits_default(l);
   if (Device_has(d, DEV_MAX_THREADS_PER_BLOCK))
      l->maxThreadsPerBlock = d->max_threads_per_block;
   if (Device_has(d, DEV_SHARED_PER_BLOCK))
      l->maxSharedPerBlock = d->shared_per_block;
   if (Device_has(d, DEV_WARP_SIZE)) {
      l->warpSize = d->warp_size;
      l->maxVthread = d->warp_size / 4;
   }
}

/* ---- derived shapes ---- */

static int64_t ceilDiv(int64_t a, int64_t b) {
   return (a + b - 1) / b;
}

static const Sketch *sketchOf(const SketchSet *set, const State *s) {
   return &set->sketches[s->sketch];
}

static int64_t knobProduct(const State *s, const SplitSlot *sl, int from, int to) {
   int64_t p = 1;
   for (int i = from; i < to; i++)
      p *= s->knob[sl->knob + i];
   return p;
}

int64_t State_blockTile(const SketchSet *set, const State *s, const SplitSlot *tile) {
   (void)set;
   return knobProduct(s, tile, 0, tile->nparts);
}

static void anchorTiles(const SketchSet *set, const State *s, const KernelPlan *k, int64_t *tiles) {
   const Sketch *sk = sketchOf(set, s);
   for (int a = 0; a < TE_MAX_AXES; a++)
      tiles[a] = 1;
   for (int i = 0; i < k->ntiles; i++) {
      const SplitSlot *sl = &sk->splits[k->firstTile + i];
      tiles[sl->axis] = State_blockTile(set, s, sl);
   }
}

static void loadExtents(const Dag *g, int32_t e, int stage, const int64_t *tiles, int64_t *dims) {
   const Expr *x = Dag_expr(g, e);
   if (x->kind == EXPR_LOAD && x->ref == stage)
      for (int d = 0; d < x->nargs; d++) {
         int64_t ext = Sketch_indexExtent(g, x->args[d], tiles);
         dims[d] = ext > dims[d] ? ext : dims[d];
      }
   for (int i = 0; i < x->nargs; i++)
      loadExtents(g, x->args[i], stage, tiles, dims);
}

int64_t State_cacheShape(const SketchSet *set, const State *s, int kernel, int c, int64_t *dims) {
   const KernelPlan *k = &sketchOf(set, s)->kernels[kernel];
   const Dag *g = &set->dag;
   int cs = k->cache[c];
   int64_t tiles[TE_MAX_AXES];
   anchorTiles(set, s, k, tiles);
   int n = g->stages[cs].ndim;
   for (int d = 0; d < n; d++)
      dims[d] = 0;
   loadExtents(g, g->stages[k->anchor].body, cs, tiles, dims);
   int64_t total = 1;
   for (int d = 0; d < n; d++)
      total *= dims[d];
   return total;
}

int64_t State_splitExtent(const SketchSet *set, const State *s, const SplitSlot *slot) {
   if (slot->kind != SPLIT_VECTOR)
      return slot->extent;
   const KernelPlan *k = &sketchOf(set, s)->kernels[slot->kernel];
   int64_t dims[TE_MAX_DIMS];
   for (int c = 0; c < k->ncache; c++)
      if (k->cache[c] == slot->stage)
         return State_cacheShape(set, s, slot->kernel, c, dims);
   fatal("vector slot %s has no cache", slot->name);
}


static void kernelShape(const SketchSet *set, const State *s, int kernel, KernelShape *out, bool shared);

void State_tcTile(const SketchSet *set, const State *s, int kernel, TcTile *out) {
   const Sketch *sk = sketchOf(set, s);
   const KernelPlan *k = &sk->kernels[kernel];
   const int32_t *m = &s->knob[sk->splits[k->firstTile].knob];
   const int32_t *n = &s->knob[sk->splits[k->firstTile + 1].knob];
   const int32_t *kk = &s->knob[sk->splits[k->firstTile + 2].knob];
   int32_t split = s->knob[sk->splits[k->firstTile + 3].knob];
   int32_t inFlight = s->knob[sk->splits[k->firstTile + 4].knob];
   out->precision = sk->precision;
   out->batch = k->gemm.batch;
   out->M = k->gemm.M;
   out->N = k->gemm.N;
   out->K = k->gemm.K;
   out->warpsM = m[0];
   out->fragsM = m[1];
   out->warpsN = n[0];
   out->fragsN = n[1];
   out->mmaK = Precision_mmaDepth(sk->precision);
   out->stepsK = kk[0];
   out->blockM = SKETCH_MMA_M * out->warpsM * out->fragsM;
   out->blockN = SKETCH_MMA_N * out->warpsN * out->fragsN;
   out->blockK = out->mmaK * out->stepsK;
   out->ld = out->blockK + (Precision_storageBytes(sk->precision) == 2 ? SKETCH_TC_ROW_PAD16 : SKETCH_TC_ROW_PAD);
   out->gridM = ceilDiv(out->M, out->blockM);
   out->gridN = ceilDiv(out->N, out->blockN);
   out->stagesK = ceilDiv(out->K, out->blockK);
   out->split = split > 1 ? split : 1;
   out->stagesPerSplit = ceilDiv(out->stagesK, out->split);
   out->inFlight = inFlight > 1 ? inFlight : 1;
}

void State_kernelShape(const SketchSet *set, const State *s, int kernel, KernelShape *out) {
   kernelShape(set, s, kernel, out, true);
}

/* Shared memory needs the copies' shapes, a walk of the anchor's loads: the validity
 * check asks for it only after the cheap thread counts pass. */
static void kernelShape(const SketchSet *set, const State *s, int kernel, KernelShape *out, bool shared) {
   const Sketch *sk = sketchOf(set, s);
   const KernelPlan *k = &sk->kernels[kernel];
   const Dag *g = &set->dag;
   const Stage *root = &g->stages[k->root];
   memset(out, 0, sizeof *out);
   out->vthreads = 1;
   out->outputsPerThread = 1;
   int64_t threads = k->threadSplit >= 0 ? s->knob[sk->splits[k->threadSplit].knob] : 0;
   switch (k->kind) {
   case KERNEL_TC: {
      TcTile t;
      State_tcTile(set, s, kernel, &t);
      out->blocks = t.split * t.batch * t.gridM * t.gridN;
      out->threads = SKETCH_WARP_SIZE * t.warpsM * t.warpsN;
      out->outputsPerThread = t.fragsM * t.fragsN * 4;
      if (shared) {
         int64_t e = Precision_storageBytes(t.precision);
         out->sharedBytes = Sketch_sharedAfter(Sketch_sharedAfter(0, e * t.blockM * t.ld), e * t.blockN * t.ld);
      }
      break;
   }
   case KERNEL_MLT:
      out->blocks = out->threads = 1;
      for (int i = 0; i < k->ntiles; i++) {
         const SplitSlot *sl = &sk->splits[k->firstTile + i];
         if (sl->reduce)
            continue;
         out->blocks *= sl->extent / State_blockTile(set, s, sl);
         out->vthreads *= s->knob[sl->knob];
         out->threads *= s->knob[sl->knob + 1];
         out->outputsPerThread *= s->knob[sl->knob] * s->knob[sl->knob + 2] * s->knob[sl->knob + 3];
      }
      for (int c = 0; c < k->ncache && shared; c++) {
         int64_t dims[TE_MAX_DIMS];
         out->sharedBytes = Sketch_sharedAfter(out->sharedBytes, 4 * State_cacheShape(set, s, kernel, c, dims));
      }
      break;
   case KERNEL_SIMPLE:
      out->threads = threads ? threads : Sketch_spaceLength(g, k->root);
      out->blocks = threads ? ceilDiv(Sketch_spaceLength(g, k->root), threads) : 1;
      break;
   case KERNEL_CTR:
      out->threads = threads;
      /* the reductions of a kernel share one tree buffer */
      out->sharedBytes = Sketch_reduceWithShuffles(threads) ? 0 : 4 * threads;
      if (k->nattached == 0) {
         out->blocks = Sketch_spaceLength(g, k->root);
      } else {
         int64_t last = root->shape[root->ndim - 1];
         out->blocks = Sketch_spaceLength(g, k->root) / last * ceilDiv(last, threads);
      }
      break;
   }
}

/* ---- validity ---- */

static void formatKnob(const State *s, const SplitSlot *sl, char *buf, size_t size) {
   TextBuf t = TextBuf_over(buf, size);
   if (sl->nparts == 1) {
      TextBuf_add(&t, "%d", (int)s->knob[sl->knob]);
      return;
   }
   TextBuf_add(&t, "[");
   for (int i = 0; i < sl->nparts; i++)
      TextBuf_add(&t, "%s%d", i ? "," : "", (int)s->knob[sl->knob + i]);
   TextBuf_add(&t, "]");
}

static bool isUnrollStep(int32_t v) {
   for (int i = 0; i < SKETCH_UNROLL_STEPS; i++)
      if (Sketch_unrollSteps[i] == v)
         return true;
   return false;
}

/* The knob's text is formatted only for a message: validation runs on every sample. */
#define KNOB_ERROR(fmt, ...)                                                        \
   do {                                                                             \
      if (!cause)                                                                   \
         return -1;                                                                 \
      char text[96];                                                                \
      formatKnob(s, sl, text, sizeof text);                                         \
      return setCause(cause, "state: knob '%s' is %s; " fmt, sl->name, text, __VA_ARGS__); \
   } while (0)

static int checkSplit(const SketchSet *set, const State *s, const SplitSlot *sl,
                      const SchedLimits *lim, char **cause) {
   const Dag *g = &set->dag;
   for (int i = 0; i < sl->nparts; i++)
      if (s->knob[sl->knob + i] < 1)
         KNOB_ERROR("every factor must be at least %d", 1);
   int32_t inner = s->knob[sl->knob + sl->nparts - 1];
   if (inner > SKETCH_MAX_INNERMOST)
      KNOB_ERROR("its innermost factor %d exceeds %d", (int)inner, SKETCH_MAX_INNERMOST);
   if (sl->kind == SPLIT_TILE) {
      int64_t p = knobProduct(s, sl, 0, sl->nparts);
      if (sl->extent % p != 0)
         KNOB_ERROR("its product %lld does not divide the extent %lld of axis %s", (long long)p,
                    (long long)sl->extent, g->stages[sl->stage].axis[sl->axis]);
   }
   if (sl->kind == SPLIT_TC)
      for (int i = 0; i < sl->nparts; i++) {
         int32_t v = s->knob[sl->knob + i];
         if (v > sl->extent || (v & (v - 1)) != 0)
            KNOB_ERROR("every part must be a power of two from 1 to %lld", (long long)sl->extent);
      }
   if (sl->kind == SPLIT_VECTOR && 4 * (int64_t)inner > lim->maxVectorBytes)
      KNOB_ERROR("a vector of %d floats is %d bytes, more than %lld", (int)inner, 4 * (int)inner,
                 (long long)lim->maxVectorBytes);
   return 0;
}

static const char *kernelName(const SketchSet *set, const KernelPlan *k) {
   return set->dag.stages[k->anchor >= 0 ? k->anchor : k->root].name;
}

/* The smallest power of two at least n. */
static int64_t pow2Above(int64_t n) {
   int64_t p = 1;
   while (p < n)
      p *= 2;
   return p;
}

/* A TC tile holds at most 128 accumulators per thread, and no axis' block tile is
 * larger than it must be to cover the axis in one block (a power of two at least the
 * extent): a larger one only multiplies the padding. */
static int checkTc(const SketchSet *set, const State *s, int ki, const char *name, char **cause) {
   TcTile t;
   State_tcTile(set, s, ki, &t);
   if (t.fragsM * t.fragsN > 32)
      return setCause(cause, "state: the tensor-core kernel of %s gives each warp %lld fragments of 16x8 (%lld accumulators per thread); at most 32",
                      name, (long long)(t.fragsM * t.fragsN), (long long)(4 * t.fragsM * t.fragsN));
   const struct {
      const char *axis;
      int64_t tile, extent, fragment;
   } axes[3] = { { "m", t.blockM, t.M, SKETCH_MMA_M }, { "n", t.blockN, t.N, SKETCH_MMA_N },
                 { "k", t.blockK, t.K, t.mmaK } };
   if (t.split > t.stagesK)
      return setCause(cause, "state: the tensor-core kernel of %s splits its %lld k stage%s of %lld among %lld blocks; at most one block a stage",
                      name, (long long)t.stagesK, t.stagesK == 1 ? "" : "s", (long long)t.blockK, (long long)t.split);
   if (t.inFlight > 1 && t.stagesPerSplit < 2)
      return setCause(cause, "state: the tensor-core kernel of %s keeps %lld k stages in flight, but each block runs %lld; at least 2 for a pipeline",
                      name, (long long)t.inFlight, (long long)t.stagesPerSplit);
   for (int i = 0; i < 3; i++) {
      int64_t most = pow2Above(axes[i].extent);
      most = most > axes[i].fragment ? most : axes[i].fragment;
      if (axes[i].tile > most)
         return setCause(cause, "state: the tensor-core kernel of %s has a block tile of %lld along %s, whose extent is %lld; at most %lld",
                         name, (long long)axes[i].tile, axes[i].axis, (long long)axes[i].extent, (long long)most);
   }
   return 0;
}

static int checkKernel(const SketchSet *set, const State *s, int ki, const SchedLimits *lim,
                       char **cause) {
   const KernelPlan *k = &sketchOf(set, s)->kernels[ki];
   KernelShape ks;
   kernelShape(set, s, ki, &ks, false);
   const char *name = kernelName(set, k);
   const char *kind = k->kind == KERNEL_MLT ? "tiled" : k->kind == KERNEL_CTR ? "cross-thread"
                      : k->kind == KERNEL_TC ? "tensor-core" : "simple";
   if (ks.threads > lim->maxThreadsPerBlock)
      return setCause(cause, "state: the %s kernel of %s has %lld threads per block; the device allows %lld",
                      kind, name, (long long)ks.threads, (long long)lim->maxThreadsPerBlock);
   if (k->kind == KERNEL_MLT) {
      /* Ansor lets a tiny problem (output of at most two warps) run fewer threads */
      int64_t output = Sketch_spaceLength(&set->dag, k->root);
      if (ks.threads < lim->warpSize && output > 2 * lim->warpSize)
         return setCause(cause, "state: the tiled kernel of %s has %lld threads per block (the product of the thread factors); at least %lld unless the output has at most %lld elements",
                         name, (long long)ks.threads, (long long)lim->warpSize,
                         (long long)(2 * lim->warpSize));
      if (ks.vthreads > lim->maxVthread)
         return setCause(cause, "state: the tiled kernel of %s has %lld virtual threads (the product of the vthread factors); at most %lld",
                         name, (long long)ks.vthreads, (long long)lim->maxVthread);
   }
   if (k->kind == KERNEL_TC && checkTc(set, s, ki, name, cause) < 0)
      return -1;
   kernelShape(set, s, ki, &ks, true);
   if (ks.sharedBytes > lim->maxSharedPerBlock)
      return setCause(cause, "state: the %s kernel of %s needs %lld bytes of shared memory per block; the device allows %lld",
                      kind, name, (long long)ks.sharedBytes, (long long)lim->maxSharedPerBlock);
   return 0;
}

int State_validate(const SketchSet *set, const State *s, const SchedLimits *lim, char **cause) {
   if (s->sketch >= set->count)
      return setCause(cause, "state: sketch %d does not exist; this task has %d sketch%s (0 to %d)",
                      (int)s->sketch, set->count, set->count == 1 ? "" : "es", set->count - 1);
   const Sketch *sk = sketchOf(set, s);
   if (s->nknobs != sk->nknobs)
      return setCause(cause, "state: %d knobs given; sketch %d has %d", (int)s->nknobs, sk->id, sk->nknobs);
   for (int i = 0; i < sk->nsplits; i++)
      if (checkSplit(set, s, &sk->splits[i], lim, cause) < 0)
         return -1;
   for (int i = 0; i < sk->nunrolls; i++)
      if (!isUnrollStep(s->knob[sk->unrolls[i].knob]))
         return setCause(cause, "state: knob '%s' is %d; expected one of 0, 16, 64, 512, 1024",
                         sk->unrolls[i].name, (int)s->knob[sk->unrolls[i].knob]);
   for (int k = 0; k < sk->nkernels; k++)
      if (checkKernel(set, s, k, lim, cause) < 0)
         return -1;
   return 0;
}

/* ---- sampling ---- */

static int log2Of(int64_t v) {
   int n = 0;
   while (((int64_t)1 << (n + 1)) <= v)
      n++;
   return n;
}

void State_sample(const SketchSet *set, int sketch, Rng *rng, State *out) {
   const Sketch *sk = &set->sketches[sketch];
   memset(out, 0, sizeof *out);
   out->sketch = (uint16_t)sketch;
   out->nknobs = (uint16_t)sk->nknobs;
   for (int i = 0; i < sk->nsplits; i++) {
      const SplitSlot *sl = &sk->splits[i];
      switch (sl->kind) {
      case SPLIT_TILE: {
         const int32_t *row = FactorSchemes_row(sl->schemes, (int)Rng_below(rng, (uint64_t)sl->schemes->count));
         memcpy(&out->knob[sl->knob], row, (size_t)sl->nparts * sizeof *row);
         break;
      }
      case SPLIT_THREADS:
         out->knob[sl->knob] = SKETCH_WARP_SIZE;
         break;
      case SPLIT_VECTOR:
         out->knob[sl->knob] = 1;
         break;
      case SPLIT_TC: {
         int64_t most = sl->extent;
         if (sl->byDefault) {
            /* split-K: a power of two up to the k stages the tile parts drawn give; a
             * pipeline where each block has two k stages or more */
            TcTile t;
            State_tcTile(set, out, sl->kernel, &t);
            int64_t stages = sl == &sk->splits[sk->kernels[sl->kernel].firstTile + 3] ? t.stagesK : t.stagesPerSplit;
            most = stages < most ? stages : most;
         }
         for (int p = 0; p < sl->nparts; p++)
            out->knob[sl->knob + p] = (int32_t)1 << Rng_below(rng, (uint64_t)log2Of(most) + 1);
         break;
      }
      }
   }
   for (int i = 0; i < sk->nunrolls; i++)
      out->knob[sk->unrolls[i].knob] = Sketch_unrollSteps[Rng_below(rng, SKETCH_UNROLL_STEPS)];
}

/* One of the sketches the set offers, each as likely. */
static int drawSketch(const SketchSet *set, Rng *rng) {
   int n = SketchSet_offeredCount(set);
   if (n == set->count)
      return (int)Rng_below(rng, (uint64_t)set->count);
   int pick = n > 0 ? (int)Rng_below(rng, (uint64_t)n) : 0;
   for (int i = 0; i < set->count; i++)
      if (((set->offered >> i) & 1) && pick-- == 0)
         return i;
   return 0;
}

int State_sampleValid(const SketchSet *set, int sketch, Rng *rng, const SchedLimits *lim,
                      int maxTries, State *out, char **cause) {
   /* most draws are rejected: only the last one's reason is worth a message */
   for (int i = 0; i < maxTries; i++) {
      int sk = sketch >= 0 ? sketch : drawSketch(set, rng);
      State_sample(set, sk, rng, out);
      if (State_validate(set, out, lim, NULL) == 0)
         return 0;
   }
   if (!cause)
      return -1;
   char *last = NULL;
   if (maxTries > 0)
      State_validate(set, out, lim, &last);
   setCause(cause, "no valid state in %d samples; the last was rejected with: %s", maxTries,
            last ? last : "nothing");
   free(last);
   return -1;
}

/* ---- mutation ---- */

int State_mutateTileSize(const SketchSet *set, State *s, Rng *rng, const SchedLimits *lim) {
   const Sketch *sk = sketchOf(set, s);
   if (sk->nsplits == 0)
      return -1;
   State m = *s;
   const SplitSlot *sl = NULL;
   int64_t extent = 0;
   for (int tries = 0; tries < 4 * sk->nsplits; tries++) {
      const SplitSlot *c = &sk->splits[Rng_below(rng, (uint64_t)sk->nsplits)];
      int64_t e = State_splitExtent(set, s, c);
      if (e > 1) {
         sl = c;
         extent = e;
         break;
      }
   }
   if (!sl)
      return -1;
   if (sl->kind == SPLIT_TC) {
      /* a TC tile part doubles or halves */
      int32_t *v = &m.knob[sl->knob + Rng_below(rng, (uint64_t)sl->nparts)];
      bool up = *v == 1 || (*v < sl->extent && Rng_below(rng, 2) == 0);
      *v = up ? *v * 2 : *v / 2;
      if (*v > sl->extent || State_validate(set, &m, lim, NULL) < 0)
         return -1;
      *s = m;
      return 0;
   }
   int n = sl->nparts + 1;
   int64_t lengths[FACTOR_MAX_PARTS + 1];
   lengths[0] = extent / knobProduct(s, sl, 0, sl->nparts);
   for (int i = 1; i < n; i++)
      lengths[i] = s->knob[sl->knob + i - 1];
   int perm[FACTOR_MAX_PARTS + 1];
   for (int i = 0; i < n; i++)
      perm[i] = i;
   for (int i = n - 1; i > 0; i--) {
      int j = (int)Rng_below(rng, (uint64_t)i + 1);
      int t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
   }
   bool moved = false;
   for (int pos = 0; pos < n && !moved; pos++) {
      int src = perm[pos], dst = perm[(pos + 1) % n];
      if (lengths[src] <= 1)
         continue;
      int64_t divs[256];
      int nd = Factor_divisors(lengths[src], divs, 256);
      nd = nd < 256 ? nd : 256;
      int64_t ok[256];
      int nok = 0;
      for (int i = 0; i < nd; i++) {
         if (divs[i] <= 1)
            continue;
         if (dst == n - 1 && divs[i] * lengths[dst] > SKETCH_MAX_INNERMOST)
            continue;
         ok[nok++] = divs[i];
      }
      if (nok == 0)
         continue;
      int64_t f = ok[Rng_below(rng, (uint64_t)nok)];
      lengths[src] /= f;
      lengths[dst] *= f;
      moved = true;
   }
   if (!moved)
      return -1;
   for (int i = 1; i < n; i++)
      m.knob[sl->knob + i - 1] = (int32_t)lengths[i];
   if (State_validate(set, &m, lim, NULL) < 0)
      return -1;
   *s = m;
   return 0;
}

int State_mutateUnroll(const SketchSet *set, State *s, Rng *rng, const SchedLimits *lim) {
   const Sketch *sk = sketchOf(set, s);
   if (sk->nunrolls == 0)
      return -1;
   State m = *s;
   const UnrollSlot *u = &sk->unrolls[Rng_below(rng, (uint64_t)sk->nunrolls)];
   m.knob[u->knob] = Sketch_unrollSteps[Rng_below(rng, SKETCH_UNROLL_STEPS)];
   if (State_validate(set, &m, lim, NULL) < 0)
      return -1;
   *s = m;
   return 0;
}

int State_mutate(const SketchSet *set, State *s, Rng *rng, const SchedLimits *lim) {
   const Sketch *sk = sketchOf(set, s);
   bool tiles = sk->nsplits > 0, unrolls = sk->nunrolls > 0;
   if (!tiles && !unrolls)
      return -1;
   bool tile = tiles && (!unrolls || Rng_uniform(rng) < 0.9);
   return tile ? State_mutateTileSize(set, s, rng, lim) : State_mutateUnroll(set, s, rng, lim);
}

/* ---- identity ---- */

uint64_t State_hash(const State *s) {
   uint64_t h = 0xcbf29ce484222325ull;
   h = (h ^ s->sketch) * 0x100000001b3ull;
   for (int i = 0; i < s->nknobs; i++)
      h = (h ^ (uint32_t)s->knob[i]) * 0x100000001b3ull;
   /* FNV's low bits mix poorly; finish with splitmix's avalanche */
   h ^= h >> 30;
   h *= 0xBF58476D1CE4E5B9ull;
   h ^= h >> 27;
   h *= 0x94D049BB133111EBull;
   return h ^ (h >> 31);
}

bool State_equal(const State *a, const State *b) {
   return a->sketch == b->sketch && a->nknobs == b->nknobs &&
          memcmp(a->knob, b->knob, (size_t)a->nknobs * sizeof a->knob[0]) == 0;
}

/* ---- text ---- */

size_t State_format(const SketchSet *set, const State *s, char *buf, size_t size) {
   const Sketch *sk = sketchOf(set, s);
   TextBuf t = TextBuf_over(buf, size);
   TextBuf_add(&t, "{\"v\":%d,\"sketch\":%d,", STATE_TEXT_VERSION, (int)s->sketch);
   if (sk->precision != PRECISION_FP32)
      TextBuf_add(&t, "\"precision\":\"%s\",", Precision_name(sk->precision));
   TextBuf_add(&t, "\"knobs\":{");
   int named = 0;
   for (int i = 0; i < sk->nsplits; i++) {
      const SplitSlot *sl = &sk->splits[i];
      if (sl->byDefault && s->knob[sl->knob] == sl->byDefault)
         continue;
      char knob[96];
      formatKnob(s, sl, knob, sizeof knob);
      TextBuf_add(&t, "%s\"%s\":%s", named++ ? "," : "", sl->name, knob);
   }
   for (int i = 0; i < sk->nunrolls; i++)
      TextBuf_add(&t, "%s\"%s\":%d", named++ ? "," : "", sk->unrolls[i].name,
                  (int)s->knob[sk->unrolls[i].knob]);
   TextBuf_add(&t, "}}");
   return t.len;
}

static int jsonInt(const cJSON *item, int32_t *out) {
   if (!cJSON_IsNumber(item))
      return -1;
   double v = item->valuedouble;
   if (v != floor(v) || v < -2147483648.0 || v > 2147483647.0)
      return -1;
   *out = (int32_t)v;
   return 0;
}

static int knobNames(const Sketch *sk, char *buf, size_t size) {
   TextBuf t = TextBuf_over(buf, size);
   for (int i = 0; i < sk->nsplits; i++)
      TextBuf_add(&t, "%s%s", i ? ", " : "", sk->splits[i].name);
   for (int i = 0; i < sk->nunrolls; i++)
      TextBuf_add(&t, "%s%s", sk->nsplits || i ? ", " : "", sk->unrolls[i].name);
   return (int)t.len;
}

static bool knownKnob(const Sketch *sk, const char *name) {
   for (int i = 0; i < sk->nsplits; i++)
      if (strcmp(sk->splits[i].name, name) == 0)
         return true;
   for (int i = 0; i < sk->nunrolls; i++)
      if (strcmp(sk->unrolls[i].name, name) == 0)
         return true;
   return false;
}

Precision State_textPrecision(const char *text) {
   cJSON *root = cJSON_Parse(text);
   const cJSON *prec = cJSON_GetObjectItemCaseSensitive(root, "precision");
   Precision p = PRECISION_FP32;
   if (!cJSON_IsString(prec) || Precision_parse(prec->valuestring, &p) < 0)
      p = PRECISION_FP32;
   cJSON_Delete(root);
   return p;
}

static int parseDoc(const SketchSet *set, const cJSON *root, const SchedLimits *lim, State *out,
                    char **cause) {
   if (!cJSON_IsObject(root))
      return setCause(cause, "state: expected a JSON object {\"v\":%d,\"sketch\":N,\"knobs\":{...}}",
                      STATE_TEXT_VERSION);
   for (const cJSON *it = root->child; it; it = it->next)
      if (strcmp(it->string, "v") && strcmp(it->string, "sketch") && strcmp(it->string, "knobs") &&
          strcmp(it->string, "precision"))
         return setCause(cause, "state: unknown key '%s'; expected v, sketch, precision and knobs", it->string);
   int32_t v, sketch;
   if (jsonInt(cJSON_GetObjectItemCaseSensitive(root, "v"), &v) < 0)
      return setCause(cause, "state: missing or non-integer \"v\" (the text version, %d)", STATE_TEXT_VERSION);
   if (v != STATE_TEXT_VERSION)
      return setCause(cause, "state: text version %d is not supported; expected %d", (int)v, STATE_TEXT_VERSION);
   if (jsonInt(cJSON_GetObjectItemCaseSensitive(root, "sketch"), &sketch) < 0)
      return setCause(cause, "state: missing or non-integer \"sketch\"");
   if (sketch < 0 || sketch >= set->count)
      return setCause(cause, "state: sketch %d does not exist; this task has %d sketch%s (0 to %d)",
                      (int)sketch, set->count, set->count == 1 ? "" : "es", set->count - 1);
   const Sketch *sk = &set->sketches[sketch];
   const cJSON *prec = cJSON_GetObjectItemCaseSensitive(root, "precision");
   const char *said = cJSON_IsString(prec) ? prec->valuestring : prec ? "" : "fp32";
   if (strcmp(said, Precision_name(sk->precision)) != 0)
      return setCause(cause, "state: sketch %d computes in %s; the state says %s%s%s", (int)sketch,
                      Precision_name(sk->precision), prec ? "\"" : "", prec ? said : "nothing (fp32)",
                      prec ? "\"" : "");
   const cJSON *knobs = cJSON_GetObjectItemCaseSensitive(root, "knobs");
   if (!cJSON_IsObject(knobs))
      return setCause(cause, "state: missing \"knobs\" object");
   char names[1024];
   for (const cJSON *it = knobs->child; it; it = it->next)
      if (!knownKnob(sk, it->string)) {
         knobNames(sk, names, sizeof names);
         return setCause(cause, "state: unknown knob '%s'; sketch %d has: %s", it->string, (int)sketch, names);
      }
   memset(out, 0, sizeof *out);
   out->sketch = (uint16_t)sketch;
   out->nknobs = (uint16_t)sk->nknobs;
   for (int i = 0; i < sk->nsplits; i++) {
      const SplitSlot *sl = &sk->splits[i];
      const cJSON *item = cJSON_GetObjectItemCaseSensitive(knobs, sl->name);
      if (!item && sl->byDefault) {
         out->knob[sl->knob] = sl->byDefault;
         continue;
      }
      if (!item)
         return setCause(cause, "state: missing knob '%s'", sl->name);
      if (sl->nparts == 1) {
         if (jsonInt(item, &out->knob[sl->knob]) < 0)
            return setCause(cause, "state: knob '%s' must be an integer", sl->name);
         continue;
      }
      if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != sl->nparts)
         return setCause(cause, "state: knob '%s' must be a list of %d integers", sl->name, sl->nparts);
      for (int p = 0; p < sl->nparts; p++)
         if (jsonInt(cJSON_GetArrayItem(item, p), &out->knob[sl->knob + p]) < 0)
            return setCause(cause, "state: knob '%s' must be a list of %d integers", sl->name, sl->nparts);
   }
   for (int i = 0; i < sk->nunrolls; i++) {
      const cJSON *item = cJSON_GetObjectItemCaseSensitive(knobs, sk->unrolls[i].name);
      if (!item)
         return setCause(cause, "state: missing knob '%s'", sk->unrolls[i].name);
      if (jsonInt(item, &out->knob[sk->unrolls[i].knob]) < 0)
         return setCause(cause, "state: knob '%s' must be an integer", sk->unrolls[i].name);
   }
   return State_validate(set, out, lim, cause);
}

int State_parse(const SketchSet *set, const char *text, const SchedLimits *lim, State *out,
                char **cause) {
   /* cJSON_ParseWithOpts reports where parsing stopped without cJSON's global error
    * pointer, so parsing is safe from several threads */
   long deep = JsonLines_tooDeep(text, strlen(text));
   if (deep >= 0)
      return setCause(cause, "state: nesting deeper than %d at character %ld", JSONL_MAX_DEPTH, deep + 1);
   const char *end = NULL;
   cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
   if (!root) {
      if (!end || *end == '\0')
         return setCause(cause, "state: not valid JSON: the text ends before the object is complete");
      return setCause(cause, "state: not valid JSON: parsing stopped at character %zu ('%.12s')", (size_t)(end - text) + 1, end);
   }
   int rc = parseDoc(set, root, lim, out, cause);
   cJSON_Delete(root);
   return rc;
}
