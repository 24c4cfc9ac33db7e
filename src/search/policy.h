/* The search policies (DESIGN 3.6): one round of a task's search, from sampling to the
 * states to measure.
 *   pruner  Pruner's draft-then-verify round (pruner.md 4.2): sample `population`
 *           valid states; on every redraftEvery-th round of the task, starting with its
 *           first (or when there is no draft yet), a draft search scored by PSA
 *           (draftGenerations generations) whose best draftsKept distinct unmeasured
 *           states become the task's drafts, reused on the rounds between; the verify
 *           search (verifyGenerations generations, the learned model) starts from the
 *           drafts, the sample and the best measured states (at most measuredRatio x
 *           population, by throughput) and keeps 2 x numMeasure; the picks are
 *           numMeasure - int(eps x numMeasure) of its best in score order and the rest
 *           at random from the 3 x int(eps x numMeasure) states drawn beforehand from
 *           the verify search's initial population (Ansor's PickStatesWithEpsGreedy:
 *           each side falls back on the other when it runs out; never a measured state
 *           nor one picked twice).
 *   ansor   Ansor's round (ansor.md 3.2): no draft; the sample without duplicates,
 *           population 2048, 4 generations, measured ratio 0.2, eps 0.05.
 * Before the verify model has learned anything it may score every state alike; then
 * the verify search keeps the first states it meets, the best drafts, and PSA chooses
 * what is measured (Pruner's cold start).
 *
 * Everything random comes from the task's generator, and the scorers' results do not
 * depend on their thread counts: the same seed, scorers and measured history give the
 * same picks in the same order. */
#ifndef HEADER_policy
#define HEADER_policy

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "search/evolution.h"
#include "search/scorer.h"
#include "search/stateset.h"

typedef struct SearchParams_ {
   bool draft;                  /* draft with PSA (pruner) or not (ansor) */
   int population;              /* 1536 | 2048: the sample and each later generation */
   int draftGenerations;        /* 2 */
   int draftsKept;              /* 512 */
   int redraftEvery;            /* 2: rounds of the task between drafts */
   int verifyGenerations;       /* 1 | 4 */
   double mutationProb;         /* 0.85 */
   double measuredRatio;        /* 0.1 | 0.2 */
   double eps;                  /* 0.1 | 0.05 */
   bool uniqueSample;           /* drop duplicates from the sample: false | true */
   int sampleTries;             /* draws per valid state before a round gives up: 100000 */
} SearchParams;

void SearchParams_pruner(SearchParams *p);
void SearchParams_ansor(SearchParams *p);
/* The defaults of policy "pruner" or "ansor"; -1 with *cause for another name. */
int SearchParams_byName(SearchParams *p, const char *name, char **cause);

/* The settable parameters, one table (name, type, range, help) that setting, listing
 * and help all read. */
typedef enum { SEARCH_PARAM_BOOL, SEARCH_PARAM_INT, SEARCH_PARAM_DOUBLE } SearchParamType;

typedef struct SearchParamInfo_ {
   const char *name;            /* "population", "draft-generations", ... */
   SearchParamType type;
   size_t offset;               /* in SearchParams */
   double min, max;
   const char *help;
} SearchParamInfo;

extern const SearchParamInfo SearchParams_table[];
extern const int SearchParams_count;

/* Sets parameter `name` from text ("0.05", "1536", "on"); -1 with *cause naming the
 * parameter and its range when the name or the value is wrong. */
int SearchParams_set(SearchParams *p, const char *name, const char *value, char **cause);
/* The parameter's value as text. */
void SearchParams_format(const SearchParams *p, const SearchParamInfo *info, char *buf, size_t size);

/* A measured state and its cost (seconds). */
typedef struct SearchMeasured_ {
   State state;
   double cost;
} SearchMeasured;

/* One task's search. */
typedef struct SearchTask_ {
   SearchSpace space;
   Rng rng;
   StateSet measured;           /* every state measured, failures included */
   int nbest, bestCap;
   SearchMeasured *best;        /* the successes, cheapest first (ties: measured first) */
   int ndrafts, draftCap;
   Candidate *drafts;           /* the draft cache, best first */
   int round;                   /* rounds done */
} SearchTask;

/* task (may be NULL for scorers that do not need it) and set are kept by the caller.
 * seed is the task's own: the caller derives one per task. */
void SearchTask_init(SearchTask *t, const Task *task, const SketchSet *set, const SchedLimits *limits,
                     uint64_t seed);
void SearchTask_done(SearchTask *t);
/* After measuring a state: cost in seconds, MEASURE_FAILED_COST (1e10) or more for a
 * failure. A state measured before is ignored. */
void SearchTask_addMeasured(SearchTask *t, const State *s, double cost);

typedef struct SearchRoundStats_ {
   int round;                   /* the task's round this was, from 0 */
   bool drafted;                /* the draft search ran this round */
   int sampled;                 /* valid states sampled */
   int drafts;                  /* drafts in the verify population */
   int seeds;                   /* measured states in it */
   int population;              /* the verify search's initial population */
   int randomPool;              /* states drawn for eps-greedy */
   int draftCalls, draftScored; /* draft scorer calls and states scored */
   int verifyCalls, verifyScored;
   int mutantsValid, mutantsInvalid;   /* both searches */
   int verifyKept;              /* the verify search's output */
   int picks, picksGood, picksRandom;
   int picksFromDrafts;         /* picks whose root lineage is DRAFT */
   int bestDraftRank;           /* on a draft round: 1 + the drafts PSA scores above the
                                   task's best measured state (1 .. drafts + 1); 0 on
                                   other rounds and before a success */
   double acceptance;           /* picksFromDrafts / picks; NaN without picks */
   double kendallTau;           /* PSA against the verify model over the drafts; NaN when undefined */
   /* wall seconds of each phase */
   double sampleSeconds;
   double draftScoreSeconds, draftEvolveSeconds;
   double verifyScoreSeconds, verifyEvolveSeconds;
   double verifyPrepareSeconds, verifyPredictSeconds;   /* the scorer's split (Scorer_times) */
   double pickSeconds;
   double totalSeconds;
} SearchRoundStats;

/* One round: samples on the verify scorer's threads (else the draft scorer's, else the
 * calling thread); writes at most numMeasure picks (fewer only when the space runs
 * out) and *npicks; stats may be NULL. draft may be NULL when p->draft is false.
 * Fails, with *cause, when no valid state can be sampled or a draft scorer is
 * missing. */
int Search_round(SearchTask *t, const SearchParams *p, Scorer *draft, Scorer *verify, int numMeasure,
                 Candidate *picks, int *npicks, SearchRoundStats *stats, char **cause);

/* The share of the picks whose root lineage is DRAFT; NaN for none. */
double Search_acceptance(const Candidate *picks, int n);
/* Kendall's tau-b between the draft and verify scores of the candidates; NaN when
 * undefined. */
double Search_draftAgreement(const Candidate *c, int n);

#endif
