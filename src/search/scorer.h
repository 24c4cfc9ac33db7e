/* Scorers: what the evolutionary search ranks states of one task with, higher is
 * better, -INFINITY for a state the scorer cannot score. One call scores a whole batch
 * (a generation), so a scorer can spread the work over its threads:
 *   psa     Pruner's draft model: each state lowered, PSA's symbols, 1 / latency
 *           (cost/psa.h), split over a fixed pool of threads, each with its own loop
 *           nest and Analysis; no allocation per state;
 *   model   a learned model: the features of each state (measure/featurize.h) made on
 *           the pool, each thread into its own Dataset, the parts joined in order and
 *           scored by one predict call on the calling thread (models are used from one
 *           thread at a time);
 *   fn      a function of the caller's, for tests and stand-ins.
 * The pool's split and the joins are in state order, so scores do not depend on the
 * number of threads. A scorer is used from one thread at a time. */
#ifndef HEADER_scorer
#define HEADER_scorer

#include "cost/dataset.h"
#include "cost/model.h"
#include "cost/psa.h"
#include "measure/featurize.h"
#include "sched/state.h"
#include "search/pool.h"
#include "te/network.h"

typedef struct Scorer_ Scorer;

/* scores[i] for states[i], i < n, of task (which a stand-in may not need) */
typedef void (*ScoreFn)(void *ctx, const Task *task, const SketchSet *set, const State *states, int n,
                        float *scores);
/* scores[i] for every sample of batch, as CostModel_predict */
typedef void (*PredictFn)(void *ctx, const Dataset *batch, float *scores);

/* threads <= 0: one per online core. */
Scorer *Scorer_psa(const PsaParams *params, int threads);
/* model is kept by the caller; the scorer makes its threads' copies of featurizer
 * (Featurizer_copy), which the caller may go on using. psaDevice names the device of
 * the samples' PSA estimate (the psa model reads it), NULL for none. */
Scorer *Scorer_model(CostModel *model, const Featurizer *featurizer, const char *psaDevice, int threads);
/* As Scorer_model, with a predict function of the caller's (an OnlineModel, say). */
Scorer *Scorer_predictor(PredictFn predict, void *ctx, const char *name, const Featurizer *featurizer,
                         const char *psaDevice, int threads);
/* Calls fn on the calling thread. */
Scorer *Scorer_fn(ScoreFn fn, void *ctx, const char *name);
void Scorer_free(Scorer *s);   /* NULL is fine */

/* Another model for a model scorer, from its next call on; the caller keeps it. */
void Scorer_setModel(Scorer *s, CostModel *model);

void Scorer_score(Scorer *s, const Task *task, const SketchSet *set, const State *states, int n, float *scores);

/* "psa", the model's kind name, or the name given */
const char *Scorer_name(const Scorer *s);
int Scorer_threads(const Scorer *s);
/* The scorer's threads, for the caller's own work between calls (a search samples on
 * them); NULL for a function scorer. */
WorkPool *Scorer_pool(Scorer *s);

/* Wall seconds spent since the scorer was made: preparing states on the pool (lowering
 * and the analyses: all of a psa scorer's work) and in the model's predict or the
 * function. */
typedef struct ScorerTimes_ {
   double prepareSeconds;
   double predictSeconds;
} ScorerTimes;
void Scorer_times(const Scorer *s, ScorerTimes *out);

#endif
