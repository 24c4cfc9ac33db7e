/* The policies' round, the parameter table and the task's search state. */
#include "config.h"

#include "search/policy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cost/metrics.h"
#include "util/clock.h"
#include "util/xalloc.h"

/* Ansor's and Pruner's cost of a failed measurement (MEASURE_FAILED_COST, which this
 * stage does not include): such states are measured but never seeds. */
#define SEARCH_FAILED_COST 1e10

/* ---- parameters ---- */

void SearchParams_pruner(SearchParams *p) {
   *p = (SearchParams){
      .draft = true,
      .population = 1536,
      .draftGenerations = 2,
      .draftsKept = 512,
      .redraftEvery = 2,
      .verifyGenerations = 1,
      .mutationProb = 0.85,
      .measuredRatio = 0.1,
      .eps = 0.1,
      .uniqueSample = false,
      .sampleTries = 100000,
   };
}

void SearchParams_ansor(SearchParams *p) {
   SearchParams_pruner(p);
   p->draft = false;
   p->population = 2048;
   p->verifyGenerations = 4;
   p->measuredRatio = 0.2;
   p->eps = 0.05;
   p->uniqueSample = true;
}

int SearchParams_byName(SearchParams *p, const char *name, char **cause) {
   if (strcmp(name, "pruner") == 0)
      SearchParams_pruner(p);
   else if (strcmp(name, "ansor") == 0)
      SearchParams_ansor(p);
   else
      return setCause(cause, "no search policy '%s'; the policies are pruner and ansor", name);
   return 0;
}

#define FIELD(f) offsetof(SearchParams, f)

const SearchParamInfo SearchParams_table[] = {
   { "draft", SEARCH_PARAM_BOOL, FIELD(draft), 0, 1, "draft with PSA before the learned model verifies" },
   { "population", SEARCH_PARAM_INT, FIELD(population), 1, 1 << 20, "states sampled, and in each generation" },
   { "draft-generations", SEARCH_PARAM_INT, FIELD(draftGenerations), 0, 100, "generations of the PSA draft search" },
   { "drafts-kept", SEARCH_PARAM_INT, FIELD(draftsKept), 1, 1 << 20, "best states the draft search keeps" },
   { "redraft-every", SEARCH_PARAM_INT, FIELD(redraftEvery), 1, 1000, "rounds of a task between drafts" },
   { "verify-generations", SEARCH_PARAM_INT, FIELD(verifyGenerations), 0, 100,
     "generations of the search on the learned model" },
   { "mutation-prob", SEARCH_PARAM_DOUBLE, FIELD(mutationProb), 0, 1, "chance that a child is a mutant, not a copy" },
   { "measured-ratio", SEARCH_PARAM_DOUBLE, FIELD(measuredRatio), 0, 1,
     "best measured states seeding the search, as a share of the population" },
   { "eps", SEARCH_PARAM_DOUBLE, FIELD(eps), 0, 1, "share of each round's measurements picked at random" },
   { "unique-sample", SEARCH_PARAM_BOOL, FIELD(uniqueSample), 0, 1, "drop duplicate states from the sample" },
   { "sample-tries", SEARCH_PARAM_INT, FIELD(sampleTries), 1, 1e9, "draws per valid state before a round gives up" },
};
const int SearchParams_count = (int)(sizeof SearchParams_table / sizeof SearchParams_table[0]);

static int parseBool(const char *v, bool *out) {
   static const char *const yes[] = { "on", "true", "yes", "1" }, *const no[] = { "off", "false", "no", "0" };
   for (int i = 0; i < 4; i++) {
      if (strcasecmp(v, yes[i]) == 0)
         return *out = true, 0;
      if (strcasecmp(v, no[i]) == 0)
         return *out = false, 0;
   }
   return -1;
}

int SearchParams_set(SearchParams *p, const char *name, const char *value, char **cause) {
   const SearchParamInfo *info = NULL;
   for (int i = 0; i < SearchParams_count; i++)
      if (strcmp(SearchParams_table[i].name, name) == 0)
         info = &SearchParams_table[i];
   if (!info)
      return setCause(cause, "no search parameter '%s'", name);
   char *field = (char *)p + info->offset;
   char *end = NULL;
   switch (info->type) {
   case SEARCH_PARAM_BOOL: {
      bool b;
      if (parseBool(value, &b) < 0)
         return setCause(cause, "search parameter '%s' is on or off, not '%s'", name, value);
      memcpy(field, &b, sizeof b);
      return 0;
   }
   case SEARCH_PARAM_INT: {
      long v = strtol(value, &end, 10);
      if (end == value || *end || v < info->min || v > info->max)
         return setCause(cause, "search parameter '%s' takes a whole number from %.0f to %.0f, not '%s'", name,
                         info->min, info->max, value);
      int i = (int)v;
      memcpy(field, &i, sizeof i);
      return 0;
   }
   case SEARCH_PARAM_DOUBLE: {
      double v = strtod(value, &end);
      if (end == value || *end || !(v >= info->min && v <= info->max))
         return setCause(cause, "search parameter '%s' takes a number from %g to %g, not '%s'", name, info->min,
                         info->max, value);
      memcpy(field, &v, sizeof v);
      return 0;
   }
   }
   fatal("search parameter '%s' has no type", name);
}

void SearchParams_format(const SearchParams *p, const SearchParamInfo *info, char *buf, size_t size) {
   const char *field = (const char *)p + info->offset;
   switch (info->type) {
   case SEARCH_PARAM_BOOL: {
      bool b;
      memcpy(&b, field, sizeof b);
      snprintf(buf, size, "%s", b ? "on" : "off");
      return;
   }
   case SEARCH_PARAM_INT: {
      int i;
      memcpy(&i, field, sizeof i);
      snprintf(buf, size, "%d", i);
      return;
   }
   case SEARCH_PARAM_DOUBLE: {
      double d;
      memcpy(&d, field, sizeof d);
      snprintf(buf, size, "%g", d);
      return;
   }
   }
}

/* ---- the task ---- */

void SearchTask_init(SearchTask *t, const Task *task, const SketchSet *set, const SchedLimits *limits,
                     uint64_t seed) {
   memset(t, 0, sizeof *t);
   t->space.task = task;
   t->space.set = set;
   t->space.limits = *limits;
   Rng_seed(&t->rng, seed);
   StateSet_init(&t->measured);
}

void SearchTask_done(SearchTask *t) {
   StateSet_done(&t->measured);
   free(t->best);
   free(t->drafts);
   memset(t, 0, sizeof *t);
}

void SearchTask_addMeasured(SearchTask *t, const State *s, double cost) {
   bool added;
   StateSet_add(&t->measured, s, &added);
   if (!added || !(cost > 0 && cost < SEARCH_FAILED_COST))
      return;
   if (t->nbest == t->bestCap) {
      t->bestCap = t->bestCap ? 2 * t->bestCap : 64;
      t->best = xReallocArray(t->best, (size_t)t->bestCap, sizeof *t->best);
   }
   /* after every entry that is not dearer: among equals, the first measured first */
   int lo = 0, hi = t->nbest;
   while (lo < hi) {
      int mid = lo + (hi - lo) / 2;
      if (t->best[mid].cost <= cost)
         lo = mid + 1;
      else
         hi = mid;
   }
   memmove(&t->best[lo + 1], &t->best[lo], (size_t)(t->nbest - lo) * sizeof *t->best);
   t->best[lo] = (SearchMeasured){ *s, cost };
   t->nbest++;
}

/* ---- statistics ---- */

double Search_acceptance(const Candidate *picks, int n) {
   if (n <= 0)
      return NAN;
   int drafted = 0;
   for (int i = 0; i < n; i++)
      drafted += picks[i].root == LINEAGE_DRAFT;
   return (double)drafted / n;
}

double Search_draftAgreement(const Candidate *c, int n) {
   double *x = xMalloc((size_t)(n > 0 ? n : 1) * sizeof *x);
   double *y = xMalloc((size_t)(n > 0 ? n : 1) * sizeof *y);
   int m = 0;
   for (int i = 0; i < n; i++)
      if (isfinite(c[i].draftScore) && isfinite(c[i].verifyScore)) {
         x[m] = c[i].draftScore;
         y[m++] = c[i].verifyScore;
      }
   double tau = Metrics_kendallTau(x, y, m);
   free(y);
   free(x);
   return tau;
}

/* ---- the round ---- */

/* Sampling on a pool: state i comes from a generator seeded with the i-th number the
 * task's generator gives, so the sample does not depend on the split. */
typedef struct {
   const SearchTask *t;
   int tries;
   const uint64_t *seeds;
   State *states;
   bool *failed;
} SampleJob;

static void samplePart(void *ctx, int worker, int begin, int end) {
   (void)worker;
   SampleJob *j = ctx;
   for (int i = begin; i < end; i++) {
      Rng rng;
      Rng_seed(&rng, j->seeds[i]);
      j->failed[i] = State_sampleValid(j->t->space.set, -1, &rng, &j->t->space.limits, j->tries, &j->states[i],
                                       NULL) < 0;
   }
}

/* population valid states (without duplicates when asked), as random candidates. */
static int sample(SearchTask *t, const SearchParams *p, WorkPool *pool, Candidate *out, int *n, char **cause) {
   int want = p->population;
   uint64_t *seeds = xMalloc((size_t)want * sizeof *seeds);
   State *states = xMalloc((size_t)want * sizeof *states);
   bool *failed = xMalloc((size_t)want * sizeof *failed);
   for (int i = 0; i < want; i++)
      seeds[i] = Rng_next(&t->rng);
   SampleJob job = { t, p->sampleTries, seeds, states, failed };
   if (pool)
      WorkPool_run(pool, want, samplePart, &job);
   else
      samplePart(&job, 0, 0, want);
   StateSet unique;
   StateSet_init(&unique);
   int k = 0, rc = 0;
   for (int i = 0; i < want && rc == 0; i++) {
      if (failed[i]) {
         /* again, for the message */
         Rng rng;
         Rng_seed(&rng, seeds[i]);
         rc = State_sampleValid(t->space.set, -1, &rng, &t->space.limits, p->sampleTries, &states[i], cause);
         break;
      }
      bool added = true;
      if (p->uniqueSample)
         StateSet_add(&unique, &states[i], &added);
      if (added)
         Candidate_make(&out[k++], &states[i], LINEAGE_RANDOM);
   }
   StateSet_done(&unique);
   free(failed);
   free(states);
   free(seeds);
   *n = k;
   return rc;
}

static void draftSearch(SearchTask *t, const SearchParams *p, Evolution *e, Scorer *draft, Candidate *sampled,
                        int nsampled, EvolutionStats *stats) {
   if (p->draftsKept > t->draftCap) {
      t->draftCap = p->draftsKept;
      t->drafts = xReallocArray(t->drafts, (size_t)t->draftCap, sizeof *t->drafts);
   }
   EvolutionParams ep = {
      .population = p->population,
      .generations = p->draftGenerations,
      .mutationProb = p->mutationProb,
      .outSize = p->draftsKept,
      .slot = SCORE_DRAFT,
   };
   t->ndrafts = Evolution_run(e, &t->space, sampled, nsampled, &ep, draft, &t->measured, &t->rng, t->drafts, stats);
   for (int i = 0; i < t->ndrafts; i++) {
      t->drafts[i].origin = LINEAGE_DRAFT;
      t->drafts[i].root = LINEAGE_DRAFT;
   }
}

/* Ansor's PickStatesWithEpsGreedy: numGood from the best in order, the rest from the
 * random pool, each falling back on the other; never a measured state or a repeat. */
static int pick(const SearchTask *t, int numMeasure, int numGood, const Candidate *best, int nbest,
                const Candidate *init, const int *pool, int npool, Candidate *picks, SearchRoundStats *st) {
   StateSet picked;
   StateSet_init(&picked);
   int n = 0, ob = 0, orand = 0;
   while (n < numMeasure) {
      bool hasBest = ob < nbest, hasRandom = orand < npool;
      const Candidate *c;
      bool good;
      if (n < numGood ? hasBest : !hasRandom && hasBest) {
         c = &best[ob++];
         good = true;
      } else if (hasRandom) {
         c = &init[pool[orand++]];
         good = false;
      } else {
         break;
      }
      if (StateSet_contains(&t->measured, &c->state))
         continue;
      bool added;
      StateSet_add(&picked, &c->state, &added);
      if (!added)
         continue;
      picks[n++] = *c;
      if (good)
         st->picksGood++;
      else
         st->picksRandom++;
   }
   StateSet_done(&picked);
   return n;
}

int Search_round(SearchTask *t, const SearchParams *p, Scorer *draft, Scorer *verify, int numMeasure,
                 Candidate *picks, int *npicks, SearchRoundStats *stats, char **cause) {
   double start = Clock_now();
   *npicks = 0;
   if (p->draft && !draft)
      return setCause(cause, "the search drafts with PSA but has no draft scorer");
   if (!verify)
      return setCause(cause, "the search has no verify scorer");
   if (numMeasure < 0)
      numMeasure = 0;
   SearchRoundStats st;
   memset(&st, 0, sizeof st);
   st.round = t->round;
   int population = p->population > 0 ? p->population : 1;
   int maxSeeds = (int)(p->measuredRatio * population);
   int nseeds = t->nbest < maxSeeds ? t->nbest : maxSeeds;
   int maxDrafts = p->draft ? (p->draftsKept > t->ndrafts ? p->draftsKept : t->ndrafts) : 0;

   /* 1. the random sample */
   Candidate *init = xMalloc((size_t)(maxDrafts + population + nseeds + 1) * sizeof *init);
   Candidate *sampled = init + maxDrafts;
   int nsampled;
   WorkPool *pool = Scorer_pool(verify) ? Scorer_pool(verify) : draft ? Scorer_pool(draft) : NULL;
   if (sample(t, p, pool, sampled, &nsampled, cause) < 0) {
      free(init);
      return -1;
   }
   st.sampled = nsampled;
   st.sampleSeconds = Clock_now() - start;

   /* 2. the drafts: a new draft search, or the cache */
   Evolution *e = Evolution_new();
   EvolutionStats ds = { 0 }, vs = { 0 };
   int ndrafts = 0;
   if (p->draft) {
      int every = p->redraftEvery > 0 ? p->redraftEvery : 1;
      st.drafted = t->ndrafts == 0 || t->round % every == 0;
      if (st.drafted)
         draftSearch(t, p, e, draft, sampled, nsampled, &ds);
      ndrafts = t->ndrafts;
      /* where PSA puts the best state measured so far among its new drafts (Pruner's
       * recall of the best: is it inside the drafted space?) */
      if (st.drafted && t->nbest > 0 && ndrafts > 0) {
         float s;
         Scorer_score(draft, t->space.task, t->space.set, &t->best[0].state, 1, &s);
         st.bestDraftRank = 1;
         for (int i = 0; i < ndrafts; i++)
            st.bestDraftRank += t->drafts[i].draftScore > s;
      }
   }

   /* 3. the verify search's population: drafts, the sample, the best measured states;
    * the sample comes after the drafts already */
   Candidate *draftsAt = init + maxDrafts - ndrafts;
   if (ndrafts > 0)
      memcpy(draftsAt, t->drafts, (size_t)ndrafts * sizeof *draftsAt);
   for (int i = 0; i < nseeds; i++)
      Candidate_make(&sampled[nsampled + i], &t->best[i].state, LINEAGE_MEASURED);
   int ninit = ndrafts + nsampled + nseeds;
   st.drafts = ndrafts;
   st.seeds = nseeds;
   st.population = ninit;

   /* 4. the eps-greedy pool, drawn from that population */
   int numRandom = (int)(p->eps * numMeasure);
   int npool = ninit > 0 ? 3 * numRandom : 0;
   int *randomPool = xMalloc((size_t)(npool + 1) * sizeof *randomPool);
   for (int i = 0; i < npool; i++)
      randomPool[i] = (int)Rng_below(&t->rng, (uint64_t)ninit);
   st.randomPool = npool;

   /* 5. the verify search */
   ScorerTimes before, after;
   Scorer_times(verify, &before);
   int outSize = 2 * numMeasure;
   Candidate *best = xMalloc((size_t)(outSize + 1) * sizeof *best);
   EvolutionParams vp = {
      .population = population,
      .generations = p->verifyGenerations,
      .mutationProb = p->mutationProb,
      .outSize = outSize,
      .slot = SCORE_VERIFY,
   };
   int nbest = Evolution_run(e, &t->space, draftsAt, ninit, &vp, verify, &t->measured, &t->rng, best, &vs);
   st.verifyKept = nbest;
   Scorer_times(verify, &after);
   st.verifyPrepareSeconds = after.prepareSeconds - before.prepareSeconds;
   st.verifyPredictSeconds = after.predictSeconds - before.predictSeconds;

   /* 6. the picks */
   double t6 = Clock_now();
   *npicks = pick(t, numMeasure, numMeasure - numRandom, best, nbest, draftsAt, randomPool, npool, picks, &st);
   st.pickSeconds = Clock_now() - t6;

   st.picks = *npicks;
   for (int i = 0; i < *npicks; i++)
      st.picksFromDrafts += picks[i].root == LINEAGE_DRAFT;
   st.acceptance = Search_acceptance(picks, *npicks);
   st.kendallTau = Search_draftAgreement(draftsAt, ndrafts);
   st.draftCalls = ds.scorerCalls;
   st.draftScored = ds.scored;
   st.verifyCalls = vs.scorerCalls;
   st.verifyScored = vs.scored;
   st.mutantsValid = ds.mutantsValid + vs.mutantsValid;
   st.mutantsInvalid = ds.mutantsInvalid + vs.mutantsInvalid;
   st.draftScoreSeconds = ds.scoreSeconds;
   st.draftEvolveSeconds = ds.evolveSeconds;
   st.verifyScoreSeconds = vs.scoreSeconds;
   st.verifyEvolveSeconds = vs.evolveSeconds;
   free(best);
   free(randomPool);
   Evolution_free(e);
   free(init);
   t->round++;
   st.totalSeconds = Clock_now() - start;
   if (stats)
      *stats = st;
   return 0;
}
