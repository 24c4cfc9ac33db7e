/* The evolutionary search of Ansor (ansor.md 3.3), parameterized by its scorer
 * (DESIGN 3.6). Generation 0 is the initial population; each generation is scored in
 * one scorer call, and a min-heap keeps the out_size best distinct states that are
 * not measured. The next generation, of `population` states, draws each parent with
 * probability proportional to max(score, 0) (uniformly when no score is above 0); a
 * child is a mutant of its parent (State_mutate) with the mutation probability, else
 * a copy; an invalid mutant is drawn again, parent included. After the last
 * generation the heap is returned best first.
 *
 * Each distinct state is scored once per run: a copy, or a mutant that comes back to
 * a state seen before, keeps the score it had. With a scorer that gives a state the
 * same score every time (all but the random model) this is Ansor's search, saving
 * its repeated predictions; it also makes the heap's rule exact: a state enters when
 * the heap has room or when it beats the heap's minimum strictly, so among equal
 * scores the state met first stays.
 *
 * Every candidate carries its lineage: where it came from (origin) and where its
 * first ancestor that is not a mutant came from (root), so that a mutant of a draft
 * still counts as drafted. */
#ifndef HEADER_evolution
#define HEADER_evolution

#include "sched/state.h"
#include "search/scorer.h"
#include "search/stateset.h"
#include "te/network.h"
#include "util/rng.h"

typedef enum {
   LINEAGE_RANDOM,              /* sampled */
   LINEAGE_DRAFT,               /* came out of the PSA draft search */
   LINEAGE_MEASURED,            /* a measured state used as a seed */
   LINEAGE_MUTANT,              /* a mutant made by this search */
   LINEAGE_COUNT
} Lineage;

/* "random", "draft", "measured", "mutant" */
const char *Lineage_name(Lineage l);

typedef struct Candidate_ {
   State state;
   Lineage origin;
   Lineage root;                /* never LINEAGE_MUTANT */
   float draftScore;            /* PSA's; NAN when the draft scorer has not seen it */
   float verifyScore;           /* the verify model's; NAN likewise */
} Candidate;

/* A candidate of the given lineage (root = origin), not yet scored. */
void Candidate_make(Candidate *c, const State *s, Lineage origin);

/* Which score of the candidates a search fills in. */
typedef enum { SCORE_DRAFT, SCORE_VERIFY } ScoreSlot;

static inline float *Candidate_score(Candidate *c, ScoreSlot slot) {
   return slot == SCORE_DRAFT ? &c->draftScore : &c->verifyScore;
}

/* One task's schedule space. */
typedef struct SearchSpace_ {
   const Task *task;            /* for scorers that need it (the learned models) */
   const SketchSet *set;
   SchedLimits limits;
} SearchSpace;

typedef struct EvolutionParams_ {
   int population;              /* states in each generation after the first */
   int generations;             /* after the first: generations + 1 scoring passes */
   double mutationProb;         /* 0.85 */
   int outSize;                 /* the heap's size */
   ScoreSlot slot;
} EvolutionParams;

/* Added to by each run (the caller zeroes it). */
typedef struct EvolutionStats_ {
   int scorerCalls;
   int scored;                  /* distinct states scored */
   int mutantsValid, mutantsInvalid;
   int copies;
   double scoreSeconds;         /* in the scorer */
   double evolveSeconds;        /* the rest: selection, mutation, the heap */
} EvolutionStats;

/* A search's scratch, reused from run to run. */
typedef struct Evolution_ Evolution;

Evolution *Evolution_new(void);
void Evolution_free(Evolution *e);   /* NULL is fine */

/* Runs the search from the ninit candidates of init, whose scores (slot) it fills in;
 * measured states (may be NULL) never enter the heap. Writes at most p->outSize
 * candidates to out, by descending score (ties: the first met first), and returns
 * their number. */
int Evolution_run(Evolution *e, const SearchSpace *space, Candidate *init, int ninit, const EvolutionParams *p,
                  Scorer *scorer, const StateSet *measured, Rng *rng, Candidate *out, EvolutionStats *stats);

/* Selection: prefix[i] = the sum of max(scores[j], 0) for j <= i, or i + 1 when no
 * score is above 0 (uniform). Evolution_pick draws an index with probability
 * proportional to its weight. */
void Evolution_weights(const float *scores, int n, double *prefix);
int Evolution_pick(const double *prefix, int n, Rng *rng);

#endif
