/* The evolutionary search: generations, the score memo, the heap, selection. */
#include "config.h"

#include "search/evolution.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "util/xalloc.h"

/* After this many invalid mutants per child of a generation, the rest of it are
 * copies: a population whose states have no valid mutant must not spin forever. */
#define EVOLUTION_MAX_INVALID_PER_CHILD 16

typedef struct {
   Candidate cand;
   float score;
   int seq;                     /* the order states were met in: ties keep the first */
} HeapEntry;

struct Evolution_ {
   int cap;                     /* of the per-member arrays below */
   Candidate *pop, *next;
   float *score;
   int *seen;                   /* the member's index in `met` */
   double *prefix;
   StateSet met;                /* every distinct state of this run */
   int metCap;
   float *metScore;
   int batchCap;
   State *batch;                /* states met for the first time this generation */
   int *batchMember;            /* the first member holding it */
   float *batchScore;
   int heapCap;
   HeapEntry *heap;
};

static const char *const lineageNames[LINEAGE_COUNT] = { "random", "draft", "measured", "mutant" };

const char *Lineage_name(Lineage l) {
   return (unsigned)l < LINEAGE_COUNT ? lineageNames[l] : "?";
}

void Candidate_make(Candidate *c, const State *s, Lineage origin) {
   c->state = *s;
   c->origin = origin;
   c->root = origin;
   c->draftScore = NAN;
   c->verifyScore = NAN;
}

Evolution *Evolution_new(void) {
   Evolution *e = xCalloc(1, sizeof *e);
   StateSet_init(&e->met);
   return e;
}

void Evolution_free(Evolution *e) {
   if (!e)
      return;
   free(e->pop);
   free(e->next);
   free(e->score);
   free(e->seen);
   free(e->prefix);
   StateSet_done(&e->met);
   free(e->metScore);
   free(e->batch);
   free(e->batchMember);
   free(e->batchScore);
   free(e->heap);
   free(e);
}

static void reserve(Evolution *e, int n) {
   if (n <= e->cap)
      return;
   e->cap = n;
   e->pop = xReallocArray(e->pop, (size_t)n, sizeof *e->pop);
   e->next = xReallocArray(e->next, (size_t)n, sizeof *e->next);
   e->score = xReallocArray(e->score, (size_t)n, sizeof *e->score);
   e->seen = xReallocArray(e->seen, (size_t)n, sizeof *e->seen);
   e->prefix = xReallocArray(e->prefix, (size_t)n, sizeof *e->prefix);
   e->batch = xReallocArray(e->batch, (size_t)n, sizeof *e->batch);
   e->batchMember = xReallocArray(e->batchMember, (size_t)n, sizeof *e->batchMember);
   e->batchScore = xReallocArray(e->batchScore, (size_t)n, sizeof *e->batchScore);
}

/* ---- selection ---- */

void Evolution_weights(const float *scores, int n, double *prefix) {
   double total = 0;
   for (int i = 0; i < n; i++) {
      total += scores[i] > 0 ? scores[i] : 0;   /* NaN and -inf weigh nothing */
      prefix[i] = total;
   }
   if (total > 0)
      return;
   for (int i = 0; i < n; i++)
      prefix[i] = i + 1;
}

int Evolution_pick(const double *prefix, int n, Rng *rng) {
   double total = prefix[n - 1];
   double u = Rng_uniform(rng) * total;
   if (u >= total)
      u = nextafter(total, 0);
   /* the first index whose prefix exceeds u: never one of weight 0 */
   int lo = 0, hi = n - 1;
   while (lo < hi) {
      int mid = lo + (hi - lo) / 2;
      if (prefix[mid] > u)
         hi = mid;
      else
         lo = mid + 1;
   }
   return lo;
}

/* ---- the heap: the worst entry on top; of equal scores, the one met last ---- */

static bool worse(const HeapEntry *a, const HeapEntry *b) {
   return a->score < b->score || (a->score == b->score && a->seq > b->seq);
}

static void siftUp(HeapEntry *h, int i) {
   while (i > 0) {
      int parent = (i - 1) / 2;
      if (!worse(&h[i], &h[parent]))
         break;
      HeapEntry t = h[i];
      h[i] = h[parent];
      h[parent] = t;
      i = parent;
   }
}

static void siftDown(HeapEntry *h, int n, int i) {
   for (;;) {
      int l = 2 * i + 1, r = l + 1, m = i;
      if (l < n && worse(&h[l], &h[m]))
         m = l;
      if (r < n && worse(&h[r], &h[m]))
         m = r;
      if (m == i)
         return;
      HeapEntry t = h[i];
      h[i] = h[m];
      h[m] = t;
      i = m;
   }
}

/* Offers a state met for the first time. */
static void offer(Evolution *e, int *n, int outSize, const Candidate *c, float score, int seq) {
   if (!(score > -INFINITY))   /* unscorable (NaN included) */
      return;
   if (*n < outSize) {
      e->heap[*n] = (HeapEntry){ *c, score, seq };
      siftUp(e->heap, (*n)++);
   } else if (outSize > 0 && score > e->heap[0].score) {
      e->heap[0] = (HeapEntry){ *c, score, seq };
      siftDown(e->heap, *n, 0);
   }
}

static int bestFirst(const void *a, const void *b) {
   const HeapEntry *x = a, *y = b;
   return worse(y, x) ? -1 : worse(x, y) ? 1 : 0;
}

/* ---- the run ---- */

/* Scores the states of the population met for the first time (one scorer call), gives
 * every member its score, and offers the new states to the heap. */
static void scoreGeneration(Evolution *e, const SearchSpace *space, int npop, const EvolutionParams *p,
                            Scorer *scorer, const StateSet *measured, int *nheap, EvolutionStats *stats) {
   int nbatch = 0;
   for (int i = 0; i < npop; i++) {
      bool added;
      int m = StateSet_add(&e->met, &e->pop[i].state, &added);
      e->seen[i] = m;
      if (added) {
         e->batch[nbatch] = e->pop[i].state;
         e->batchMember[nbatch++] = i;
      }
   }
   if (StateSet_count(&e->met) > e->metCap) {
      e->metCap = e->met.cap;
      e->metScore = xReallocArray(e->metScore, (size_t)e->metCap, sizeof *e->metScore);
   }
   if (nbatch > 0) {
      double t0 = Clock_now();
      Scorer_score(scorer, space->task, space->set, e->batch, nbatch, e->batchScore);
      stats->scoreSeconds += Clock_now() - t0;
      stats->scorerCalls++;
      stats->scored += nbatch;
   }
   for (int b = 0; b < nbatch; b++)
      e->metScore[e->seen[e->batchMember[b]]] = e->batchScore[b];
   for (int i = 0; i < npop; i++) {
      e->score[i] = e->metScore[e->seen[i]];
      *Candidate_score(&e->pop[i], p->slot) = e->score[i];
   }
   for (int b = 0; b < nbatch; b++) {
      const Candidate *c = &e->pop[e->batchMember[b]];
      if (measured && StateSet_contains(measured, &c->state))
         continue;
      offer(e, nheap, p->outSize, c, e->batchScore[b], e->seen[e->batchMember[b]]);
   }
}

/* The next generation from the scored population. */
static int breed(Evolution *e, const SearchSpace *space, int npop, const EvolutionParams *p, Rng *rng,
                 EvolutionStats *stats) {
   Evolution_weights(e->score, npop, e->prefix);
   long invalid = 0, maxInvalid = (long)EVOLUTION_MAX_INVALID_PER_CHILD * p->population;
   int n = 0;
   while (n < p->population) {
      const Candidate *parent = &e->pop[Evolution_pick(e->prefix, npop, rng)];
      Candidate *child = &e->next[n];
      *child = *parent;
      if (invalid < maxInvalid && Rng_uniform(rng) < p->mutationProb) {
         if (State_mutate(space->set, &child->state, rng, &space->limits) < 0) {
            invalid++;
            continue;
         }
         child->origin = LINEAGE_MUTANT;
         child->draftScore = NAN;
         child->verifyScore = NAN;
         stats->mutantsValid++;
      } else {
         stats->copies++;
      }
      n++;
   }
   stats->mutantsInvalid += (int)invalid;
   Candidate *t = e->pop;
   e->pop = e->next;
   e->next = t;
   return n;
}

int Evolution_run(Evolution *e, const SearchSpace *space, Candidate *init, int ninit, const EvolutionParams *p,
                  Scorer *scorer, const StateSet *measured, Rng *rng, Candidate *out, EvolutionStats *stats) {
   double start = Clock_now(), scoring = stats->scoreSeconds;
   reserve(e, ninit > p->population ? ninit : p->population);
   if (p->outSize > e->heapCap) {
      e->heapCap = p->outSize;
      e->heap = xReallocArray(e->heap, (size_t)e->heapCap, sizeof *e->heap);
   }
   StateSet_clear(&e->met);
   memcpy(e->pop, init, (size_t)ninit * sizeof *init);
   int npop = ninit, nheap = 0;
   for (int k = 0; npop > 0; k++) {
      scoreGeneration(e, space, npop, p, scorer, measured, &nheap, stats);
      if (k == 0)
         for (int i = 0; i < ninit; i++)
            *Candidate_score(&init[i], p->slot) = e->score[i];
      if (k >= p->generations)
         break;
      npop = breed(e, space, npop, p, rng, stats);
   }
   qsort(e->heap, (size_t)nheap, sizeof *e->heap, bestFirst);
   for (int i = 0; i < nheap; i++)
      out[i] = e->heap[i].cand;
   stats->evolveSeconds += (Clock_now() - start) - (stats->scoreSeconds - scoring);
   return nheap;
}
