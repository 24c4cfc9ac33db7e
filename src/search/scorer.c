/* The scorers and their per-thread scratch. */
#include "config.h"

#include "search/scorer.h"

#include <stdio.h>
#include <stdlib.h>

#include "cost/analysis.h"
#include "ir/lower.h"
#include "util/clock.h"
#include "util/xalloc.h"

typedef enum { SCORER_PSA, SCORER_FEATURES, SCORER_FN } ScorerKind;

/* One thread's scratch. */
typedef struct {
   LoopNest ln;                 /* psa */
   Analysis *analysis;
   PsaSymbols psa;
   Featurizer *featurizer;      /* features */
   Dataset part;
} ScorerThread;

struct Scorer_ {
   ScorerKind kind;
   char name[32];
   WorkPool *pool;              /* psa, features */
   int nthreads;
   ScorerThread *threads;
   PsaParams params;            /* psa */
   PredictFn predict;           /* features */
   void *predictCtx;
   char *psaDevice;
   Dataset joined;              /* the parts in order, when there is more than one */
   ScoreFn fn;                  /* fn */
   void *fnCtx;
   ScorerTimes times;
   /* the call in progress */
   const Task *task;
   const SketchSet *set;
   const State *states;
   float *scores;
};

static Scorer *alloc(ScorerKind kind, const char *name, int threads) {
   Scorer *s = xCalloc(1, sizeof *s);
   s->kind = kind;
   snprintf(s->name, sizeof s->name, "%s", name ? name : "?");
   if (kind != SCORER_FN) {
      s->pool = WorkPool_new(threads);
      s->nthreads = WorkPool_threads(s->pool);
      s->threads = xCalloc((size_t)s->nthreads, sizeof *s->threads);
   }
   return s;
}

Scorer *Scorer_psa(const PsaParams *params, int threads) {
   Scorer *s = alloc(SCORER_PSA, "psa", threads);
   s->params = *params;
   for (int t = 0; t < s->nthreads; t++) {
      LoopNest_init(&s->threads[t].ln);
      s->threads[t].analysis = Analysis_new();
   }
   return s;
}

Scorer *Scorer_predictor(PredictFn predict, void *ctx, const char *name, const Featurizer *featurizer,
                         const char *psaDevice, int threads) {
   Scorer *s = alloc(SCORER_FEATURES, name, threads);
   s->predict = predict;
   s->predictCtx = ctx;
   s->psaDevice = psaDevice ? xStrdup(psaDevice) : NULL;
   for (int t = 0; t < s->nthreads; t++) {
      s->threads[t].featurizer = Featurizer_copy(featurizer);
      Dataset_init(&s->threads[t].part);
   }
   Dataset_init(&s->joined);
   return s;
}

static void modelPredict(void *ctx, const Dataset *batch, float *scores) {
   CostModel_predict(ctx, batch, scores);
}

Scorer *Scorer_model(CostModel *model, const Featurizer *featurizer, const char *psaDevice, int threads) {
   return Scorer_predictor(modelPredict, model, ModelKind_name(model->kind), featurizer, psaDevice, threads);
}

void Scorer_setModel(Scorer *s, CostModel *model) {
   if (s->kind != SCORER_FEATURES || s->predict != modelPredict)
      fatal("Scorer_setModel on a scorer that is not a model's");
   s->predictCtx = model;
   snprintf(s->name, sizeof s->name, "%s", ModelKind_name(model->kind));
}

Scorer *Scorer_fn(ScoreFn fn, void *ctx, const char *name) {
   Scorer *s = alloc(SCORER_FN, name, 1);
   s->fn = fn;
   s->fnCtx = ctx;
   return s;
}

void Scorer_free(Scorer *s) {
   if (!s)
      return;
   WorkPool_free(s->pool);
   for (int t = 0; t < s->nthreads; t++) {
      ScorerThread *th = &s->threads[t];
      if (s->kind == SCORER_PSA) {
         LoopNest_done(&th->ln);
         Analysis_free(th->analysis);
      } else {
         Featurizer_free(th->featurizer);
         Dataset_done(&th->part);
      }
   }
   if (s->kind == SCORER_FEATURES)
      Dataset_done(&s->joined);
   free(s->threads);
   free(s->psaDevice);
   free(s);
}

static void psaPart(void *ctx, int worker, int begin, int end) {
   Scorer *s = ctx;
   ScorerThread *th = &s->threads[worker];
   for (int i = begin; i < end; i++) {
      Lower_state(s->set, &s->states[i], &th->ln);
      Analysis_run(th->analysis, &th->ln, &th->psa, NULL);
      s->scores[i] = (float)Psa_score(&th->psa, &s->params);
   }
}

static void featuresPart(void *ctx, int worker, int begin, int end) {
   Scorer *s = ctx;
   ScorerThread *th = &s->threads[worker];
   Dataset_clear(&th->part);
   for (int i = begin; i < end; i++)
      Featurizer_addState(th->featurizer, s->task, s->set, &s->states[i], s->psaDevice, &th->part);
}

void Scorer_score(Scorer *s, const Task *task, const SketchSet *set, const State *states, int n, float *scores) {
   if (n <= 0)
      return;
   double t0 = Clock_now();
   if (s->kind == SCORER_FN) {
      s->fn(s->fnCtx, task, set, states, n, scores);
      s->times.predictSeconds += Clock_now() - t0;
      return;
   }
   s->task = task;
   s->set = set;
   s->states = states;
   s->scores = scores;
   if (s->kind == SCORER_PSA) {
      WorkPool_run(s->pool, n, psaPart, s);
      s->times.prepareSeconds += Clock_now() - t0;
      return;
   }
   /* a part is empty when its thread had nothing to do: clear them all first */
   for (int t = 0; t < s->nthreads; t++)
      Dataset_clear(&s->threads[t].part);
   WorkPool_run(s->pool, n, featuresPart, s);
   const Dataset *batch = &s->threads[0].part;
   if (s->nthreads > 1) {
      Dataset_clear(&s->joined);
      for (int t = 0; t < s->nthreads; t++) {
         const Dataset *part = &s->threads[t].part;
         for (int i = 0; i < part->n; i++)
            Dataset_addFrom(&s->joined, part, i);
      }
      batch = &s->joined;
   }
   double t1 = Clock_now();
   s->times.prepareSeconds += t1 - t0;
   s->predict(s->predictCtx, batch, scores);
   s->times.predictSeconds += Clock_now() - t1;
}

const char *Scorer_name(const Scorer *s) {
   return s->name;
}

int Scorer_threads(const Scorer *s) {
   return s->kind == SCORER_FN ? 1 : s->nthreads;
}

WorkPool *Scorer_pool(Scorer *s) {
   return s->pool;
}

void Scorer_times(const Scorer *s, ScorerTimes *out) {
   *out = s->times;
}
