/* The search: the worker pool's split, the state set, the evolutionary search's heap
 * (exactly the best distinct unmeasured states), selection in proportion to
 * max(score, 0), lineage through mutation, the rounds of both policies with stand-in
 * scorers (eps-greedy counts, never a measured state or a repeat, the cold start
 * that measures the best drafts, redrafting every other round), the statistics
 * (acceptance, Kendall's tau), the parameter table, the same picks on 1 and 2
 * threads, and a real round on a ResNet-50 task with PSA and a random model. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "search/policy.h"
#include "search/pool.h"
#include "te/network.h"
#include "util/xalloc.h"

static SchedLimits limits;

/* cmocka 1.1.5 has no double comparison */
#define assertNear(got, want, tol)                                                                    \
   do {                                                                                               \
      double got_ = (got), want_ = (want);                                                            \
      if (!(fabs(got_ - want_) <= (tol)))                                                             \
         fail_msg("%s is %.17g, not %.17g", #got, got_, want_);                                       \
   } while (0)

/* ---- a task built from one line of a task file ---- */

typedef struct {
   Network net;
   Dag dag;
   SketchSet set;
} OneTask;

static void buildTask(OneTask *t, const char *yamlTask) {
   TestUtil_buildTask(&t->net, &t->dag, &t->set, yamlTask);
}

static void doneTask(OneTask *t) {
   SketchSet_done(&t->set);
   Dag_done(&t->dag);
   Network_done(&t->net);
}

#define DENSE "{op: dense, m: 128, n: 128, k: 128, weight: 1}"
/* two sketches: multi-level tiling and a cross-thread reduction */
#define DENSE_TWO_SKETCHES "{op: dense, n: 1000, k: 2048, epilogue: [bias], weight: 1}"

static void sampleStates(const SketchSet *set, int sketch, uint64_t seed, State *out, int n) {
   Rng rng;
   Rng_seed(&rng, seed);
   StateSet distinct;
   StateSet_init(&distinct);
   char *cause = NULL;
   for (int i = 0; i < n;) {
      if (State_sampleValid(set, sketch, &rng, &limits, 100000, &out[i], &cause) < 0)
         fail_msg("%s", cause);
      bool added;
      StateSet_add(&distinct, &out[i], &added);
      i += added;
   }
   StateSet_done(&distinct);
}

/* ---- stand-in scorers ---- */

/* Scores from a table of states (others get `otherwise`), or from the state's hash;
 * records every state it is given. */
typedef struct {
   StateSet table;
   float *tableScore;
   float otherwise;
   bool byHash;
   uint64_t salt;
   int calls;
   StateSet given;              /* every state scored, in order */
   int repeats;                 /* states given twice */
   int callStart[64];           /* where each call's states begin in `given` */
} Standin;

static void standinInit(Standin *s) {
   memset(s, 0, sizeof *s);
   StateSet_init(&s->table);
   StateSet_init(&s->given);
}

static void standinDone(Standin *s) {
   StateSet_done(&s->table);
   StateSet_done(&s->given);
   free(s->tableScore);
}

static void standinSet(Standin *s, const State *st, float score) {
   int i = StateSet_add(&s->table, st, NULL);
   s->tableScore = xReallocArray(s->tableScore, (size_t)StateSet_count(&s->table), sizeof *s->tableScore);
   s->tableScore[i] = score;
}

/* A positive score from the state's hash; another salt, unrelated scores. */
static float hashScore(const State *st, uint64_t salt) {
   uint64_t h = State_hash(st) + salt * 0x9E3779B97F4A7C15ull;
   h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
   h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
   h ^= h >> 31;
   return (float)(h >> 40) / (float)(1 << 24) + 0.001f;
}

static void standinScore(void *ctx, const Task *task, const SketchSet *set, const State *states, int n,
                         float *scores) {
   (void)task;
   (void)set;
   Standin *s = ctx;
   if (s->calls < 64)
      s->callStart[s->calls] = StateSet_count(&s->given);
   s->calls++;
   for (int i = 0; i < n; i++) {
      bool added;
      StateSet_add(&s->given, &states[i], &added);
      s->repeats += !added;
      int k = StateSet_find(&s->table, &states[i]);
      scores[i] = k >= 0 ? s->tableScore[k] : s->byHash ? hashScore(&states[i], s->salt) : s->otherwise;
   }
}

/* ---- the worker pool and the state set ---- */

typedef struct {
   int *visits;
   int *worker;
} PoolProbe;

static void probePart(void *ctx, int worker, int begin, int end) {
   PoolProbe *p = ctx;
   for (int i = begin; i < end; i++) {
      p->visits[i]++;
      p->worker[i] = worker;
   }
}

static void test_pool_splits_in_contiguous_parts(void **state) {
   (void)state;
   enum { N = 1000 };
   int visits[N], worker[N];
   PoolProbe probe = { visits, worker };
   for (int threads = 1; threads <= 3; threads++) {
      WorkPool *pool = WorkPool_new(threads);
      assert_int_equal(WorkPool_threads(pool), threads);
      /* the calling thread runs part 0; the others show as "search" in /proc */
      assert_int_equal(TestUtil_threadsNamedSettle("search", threads - 1), threads - 1);
      for (int round = 0; round < 3; round++) {
         memset(visits, 0, sizeof visits);
         WorkPool_run(pool, N, probePart, &probe);
         /* part t is [N t / T, N (t + 1) / T) */
         for (int w = 0; w < threads; w++)
            for (int i = N * w / threads; i < N * (w + 1) / threads; i++) {
               assert_int_equal(visits[i], 1);
               assert_int_equal(worker[i], w);
            }
      }
      /* fewer items than threads, and none */
      memset(visits, 0, sizeof visits);
      WorkPool_run(pool, 2, probePart, &probe);
      WorkPool_run(pool, 0, probePart, &probe);
      assert_int_equal(visits[0] + visits[1] + visits[2], 2);
      WorkPool_free(pool);
      assert_int_equal(TestUtil_threadsNamedSettle("search", 0), 0);
   }
   WorkPool *pool = WorkPool_new(0);
   assert_int_equal(WorkPool_threads(pool), WorkPool_onlineCores());
   WorkPool_free(pool);
}

static void test_state_set(void **state) {
   (void)state;
   OneTask t;
   buildTask(&t, DENSE);
   enum { N = 700 };
   State *s = xCalloc(N, sizeof *s);
   sampleStates(&t.set, -1, 3, s, N);
   StateSet set;
   StateSet_init(&set);
   assert_int_equal(StateSet_find(&set, &s[0]), -1);
   for (int i = 0; i < N; i++) {
      bool added;
      assert_int_equal(StateSet_add(&set, &s[i], &added), i);
      assert_true(added);
   }
   /* grown past its first capacity, every member still found at its index */
   assert_int_equal(StateSet_count(&set), N);
   for (int i = 0; i < N; i++) {
      bool added = true;
      assert_int_equal(StateSet_add(&set, &s[i], &added), i);
      assert_false(added);
      assert_int_equal(StateSet_find(&set, &s[i]), i);
      assert_true(State_equal(StateSet_at(&set, i), &s[i]));
   }
   StateSet_clear(&set);
   assert_int_equal(StateSet_count(&set), 0);
   assert_false(StateSet_contains(&set, &s[5]));
   assert_int_equal(StateSet_add(&set, &s[5], NULL), 0);
   assert_true(StateSet_contains(&set, &s[5]));
   StateSet_done(&set);
   free(s);
   doneTask(&t);
}

/* ---- the evolutionary search ---- */

static SearchSpace spaceOf(const OneTask *t) {
   return (SearchSpace){ &t->net.tasks[0], &t->set, limits };
}

static void test_heap_keeps_the_best_distinct_unmeasured(void **state) {
   (void)state;
   OneTask t;
   buildTask(&t, DENSE);
   SearchSpace space = spaceOf(&t);
   enum { N = 11 };
   State s[N];
   sampleStates(&t.set, -1, 5, s, N);
   static const float score[N] = { 5, 9, 1, 7, 7, 3, 8, 2, 6, 4, -INFINITY };
   Standin sc;
   standinInit(&sc);
   for (int i = 0; i < N; i++)
      standinSet(&sc, &s[i], score[i]);
   Scorer *scorer = Scorer_fn(standinScore, &sc, "standin");
   /* the population repeats s6 and s1; s1, the best, is measured */
   Candidate init[N + 2];
   for (int i = 0; i < N; i++)
      Candidate_make(&init[i], &s[i], LINEAGE_RANDOM);
   Candidate_make(&init[N], &s[6], LINEAGE_RANDOM);
   Candidate_make(&init[N + 1], &s[1], LINEAGE_RANDOM);
   StateSet measured;
   StateSet_init(&measured);
   StateSet_add(&measured, &s[1], NULL);
   Evolution *e = Evolution_new();
   Rng rng;
   Rng_seed(&rng, 1);
   EvolutionParams p = { .population = 0, .generations = 0, .mutationProb = 0.85, .outSize = 4, .slot = SCORE_VERIFY };
   EvolutionStats stats = { 0 };
   Candidate out[N + 2];
   int n = Evolution_run(e, &space, init, N + 2, &p, scorer, &measured, &rng, out, &stats);
   /* 8, then the two 7s in the order met, then 6 */
   static const int want[] = { 6, 3, 4, 8 };
   assert_int_equal(n, 4);
   for (int i = 0; i < n; i++) {
      assert_true(State_equal(&out[i].state, &s[want[i]]));
      assert_true(out[i].verifyScore == score[want[i]]);
   }
   /* every member got its score; each distinct state was scored once, in one call */
   for (int i = 0; i < N; i++)
      assert_memory_equal(&init[i].verifyScore, &score[i], sizeof(float));
   assert_true(init[N].verifyScore == 8 && init[N + 1].verifyScore == 9);
   assert_true(isnan(init[0].draftScore));
   assert_int_equal(sc.calls, 1);
   assert_int_equal(stats.scored, N);
   assert_int_equal(sc.repeats, 0);
   /* room for all: the nine finite unmeasured ones, best first; never the -inf one */
   p.outSize = N + 2;
   n = Evolution_run(e, &space, init, N + 2, &p, scorer, &measured, &rng, out, &stats);
   static const int all[] = { 6, 3, 4, 8, 0, 9, 5, 7, 2 };
   assert_int_equal(n, 9);
   for (int i = 0; i < n; i++)
      assert_true(State_equal(&out[i].state, &s[all[i]]));

   /* many generations from a sample: the output is exactly the top 30 of every distinct
    * unmeasured state met, by score */
   enum { INIT = 200, OUT = 30 };
   State *pool = xCalloc(INIT, sizeof *pool);
   sampleStates(&t.set, -1, 9, pool, INIT);
   Candidate *start = xCalloc(INIT, sizeof *start);
   for (int i = 0; i < INIT; i++)
      Candidate_make(&start[i], &pool[i], LINEAGE_RANDOM);
   Standin hs;
   standinInit(&hs);
   hs.byHash = true;
   Scorer *hashed = Scorer_fn(standinScore, &hs, "hash");
   StateSet_clear(&measured);
   for (int i = 0; i < INIT; i += 4)      /* a quarter of the sample is measured */
      StateSet_add(&measured, &pool[i], NULL);
   EvolutionParams q = { .population = 300, .generations = 4, .mutationProb = 0.85, .outSize = OUT,
                         .slot = SCORE_DRAFT };
   memset(&stats, 0, sizeof stats);
   Candidate best[OUT];
   n = Evolution_run(e, &space, start, INIT, &q, hashed, &measured, &rng, best, &stats);
   assert_int_equal(n, OUT);
   assert_int_equal(hs.calls, 5);
   assert_int_equal(hs.repeats, 0);
   assert_int_equal(stats.scored, StateSet_count(&hs.given));
   assert_int_equal(stats.mutantsValid + stats.copies, 4 * 300);
   assert_true(stats.mutantsValid > 3 * stats.copies);
   int met = StateSet_count(&hs.given), above = 0;
   for (int i = 0; i < OUT; i++) {
      if (i > 0)
         assert_true(best[i].draftScore <= best[i - 1].draftScore);
      assert_false(StateSet_contains(&measured, &best[i].state));
      assert_true(best[i].draftScore == hashScore(&best[i].state, 0));
      for (int j = 0; j < i; j++)
         assert_false(State_equal(&best[i].state, &best[j].state));
   }
   /* no unmeasured state met scores above the heap's last */
   for (int i = 0; i < met; i++) {
      const State *st = StateSet_at(&hs.given, i);
      if (!StateSet_contains(&measured, st) && hashScore(st, 0) > best[OUT - 1].draftScore)
         above++;
   }
   assert_int_equal(above, OUT - 1);
   free(start);
   free(pool);
   Scorer_free(hashed);
   standinDone(&hs);
   Evolution_free(e);
   StateSet_done(&measured);
   Scorer_free(scorer);
   standinDone(&sc);
   doneTask(&t);
}

static void test_selection_follows_positive_scores(void **state) {
   (void)state;
   Rng rng;
   Rng_seed(&rng, 2);
   double prefix[6];
   const float one[6] = { 0, -3, 0, 5, -INFINITY, NAN };
   Evolution_weights(one, 6, prefix);
   for (int i = 0; i < 1000; i++)
      assert_int_equal(Evolution_pick(prefix, 6, &rng), 3);
   /* weights 1 : 3 */
   const float two[3] = { 1, 0, 3 };
   Evolution_weights(two, 3, prefix);
   int count[3] = { 0 };
   for (int i = 0; i < 40000; i++)
      count[Evolution_pick(prefix, 3, &rng)]++;
   assert_int_equal(count[1], 0);
   assert_in_range(count[0], 9400, 10600);
   /* nothing above 0: uniform */
   const float none[4] = { 0, -1, 0, -INFINITY };
   Evolution_weights(none, 4, prefix);
   int uniform[4] = { 0 };
   for (int i = 0; i < 40000; i++)
      uniform[Evolution_pick(prefix, 4, &rng)]++;
   for (int i = 0; i < 4; i++)
      assert_in_range(uniform[i], 9400, 10600);

   /* in a search: the one state scored above 0 is every parent, so every later
    * generation descends from it (its sketch; mutation keeps the sketch) */
   OneTask t;
   buildTask(&t, DENSE_TWO_SKETCHES);
   assert_int_equal(t.set.count, 2);
   SearchSpace space = spaceOf(&t);
   enum { OTHERS = 40 };
   State chosen, others[OTHERS];
   sampleStates(&t.set, 0, 11, &chosen, 1);
   sampleStates(&t.set, 1, 12, others, OTHERS);
   Candidate init[OTHERS + 1];
   for (int i = 0; i < OTHERS; i++)
      Candidate_make(&init[i], &others[i], LINEAGE_RANDOM);
   Candidate_make(&init[OTHERS], &chosen, LINEAGE_DRAFT);
   Standin sc;
   standinInit(&sc);
   standinSet(&sc, &chosen, 1);
   Scorer *scorer = Scorer_fn(standinScore, &sc, "one");
   Evolution *e = Evolution_new();
   EvolutionParams p = { .population = 64, .generations = 3, .mutationProb = 1, .outSize = 8, .slot = SCORE_VERIFY };
   EvolutionStats stats = { 0 };
   Candidate out[8];
   Evolution_run(e, &space, init, OTHERS + 1, &p, scorer, NULL, &rng, out, &stats);
   assert_true(sc.calls >= 2);
   assert_int_equal(sc.callStart[1], OTHERS + 1);
   for (int i = sc.callStart[1]; i < StateSet_count(&sc.given); i++)
      assert_int_equal(StateSet_at(&sc.given, i)->sketch, 0);
   assert_int_equal(stats.copies, 0);
   assert_int_equal(stats.mutantsValid, 3 * 64);
   /* without mutation, every child is a copy of it: nothing new to score */
   sc.calls = 0;
   p.mutationProb = 0;
   memset(&stats, 0, sizeof stats);
   Evolution_run(e, &space, init, OTHERS + 1, &p, scorer, NULL, &rng, out, &stats);
   assert_int_equal(sc.calls, 1);
   assert_int_equal(stats.copies, 3 * 64);
   assert_true(State_equal(&out[0].state, &chosen));
   Evolution_free(e);
   Scorer_free(scorer);
   standinDone(&sc);
   doneTask(&t);
}

static void test_lineage_follows_descent(void **state) {
   (void)state;
   OneTask t;
   buildTask(&t, DENSE_TWO_SKETCHES);
   SearchSpace space = spaceOf(&t);
   State a, b;
   sampleStates(&t.set, 0, 21, &a, 1);
   sampleStates(&t.set, 1, 22, &b, 1);
   Candidate init[2];
   Candidate_make(&init[0], &a, LINEAGE_DRAFT);
   init[0].draftScore = 0.5f;
   Candidate_make(&init[1], &b, LINEAGE_MEASURED);
   Standin sc;
   standinInit(&sc);
   sc.byHash = true;
   Scorer *scorer = Scorer_fn(standinScore, &sc, "hash");
   Evolution *e = Evolution_new();
   Rng rng;
   Rng_seed(&rng, 4);
   EvolutionParams p = { .population = 100, .generations = 3, .mutationProb = 0.85, .outSize = 60,
                         .slot = SCORE_VERIFY };
   EvolutionStats stats = { 0 };
   Candidate out[60];
   int n = Evolution_run(e, &space, init, 2, &p, scorer, NULL, &rng, out, &stats);
   assert_true(n >= 40);   /* the distinct states met, fewer than 60 in this small space */
   int mutants[2] = { 0 };
   for (int i = 0; i < n; i++) {
      /* a's descendants keep sketch 0 and root DRAFT, b's sketch 1 and root MEASURED */
      Lineage root = out[i].state.sketch == 0 ? LINEAGE_DRAFT : LINEAGE_MEASURED;
      assert_int_equal(out[i].root, root);
      bool original = State_equal(&out[i].state, out[i].state.sketch == 0 ? &a : &b);
      assert_int_equal(out[i].origin, original ? root : LINEAGE_MUTANT);
      if (!original) {
         mutants[out[i].state.sketch]++;
         assert_true(isnan(out[i].draftScore));
      } else if (root == LINEAGE_DRAFT) {
         assert_true(out[i].draftScore == 0.5f);
      }
      assert_true(out[i].verifyScore == hashScore(&out[i].state, 0));
   }
   assert_true(mutants[0] > 0 && mutants[1] > 0);
   assert_string_equal(Lineage_name(LINEAGE_DRAFT), "draft");
   assert_string_equal(Lineage_name(LINEAGE_MUTANT), "mutant");
   Evolution_free(e);
   Scorer_free(scorer);
   standinDone(&sc);
   doneTask(&t);
}

/* ---- statistics ---- */

static void setScores(Candidate *c, const float *draft, const float *verify, int n) {
   for (int i = 0; i < n; i++) {
      memset(&c[i], 0, sizeof c[i]);
      c[i].draftScore = draft[i];
      c[i].verifyScore = verify[i];
   }
}

static void test_acceptance_and_kendall(void **state) {
   (void)state;
   Candidate c[5];
   memset(c, 0, sizeof c);
   const Lineage roots[5] = { LINEAGE_DRAFT, LINEAGE_RANDOM, LINEAGE_DRAFT, LINEAGE_MEASURED, LINEAGE_DRAFT };
   const Lineage origins[5] = { LINEAGE_DRAFT, LINEAGE_RANDOM, LINEAGE_MUTANT, LINEAGE_MEASURED, LINEAGE_MUTANT };
   for (int i = 0; i < 5; i++) {
      c[i].root = roots[i];
      c[i].origin = origins[i];
   }
   assertNear(Search_acceptance(c, 5), 0.6, 1e-12);
   assertNear(Search_acceptance(c + 1, 1), 0, 0);
   assert_true(isnan(Search_acceptance(c, 0)));

   const float d[4] = { 4, 3, 2, 1 };
   const float same[4] = { 40, 30, 20, 10 }, reversed[4] = { 1, 2, 3, 4 }, swapped[4] = { 4, 3, 1, 2 };
   const float flat[4] = { 0, 0, 0, 0 };
   setScores(c, d, same, 4);
   assertNear(Search_draftAgreement(c, 4), 1, 1e-12);
   setScores(c, d, reversed, 4);
   assertNear(Search_draftAgreement(c, 4), -1, 1e-12);
   /* one swap of 4: 5 concordant pairs, 1 discordant */
   setScores(c, d, swapped, 4);
   assertNear(Search_draftAgreement(c, 4), 2.0 / 3.0, 1e-12);
   setScores(c, d, flat, 4);
   assert_true(isnan(Search_draftAgreement(c, 4)));
   /* candidates without both scores are left out */
   const float holes[5] = { 4, 3, NAN, 2, 1 };
   const float verify[5] = { 4, 3, 9, 1, 2 };
   setScores(c, holes, verify, 5);
   assertNear(Search_draftAgreement(c, 5), 2.0 / 3.0, 1e-12);
}

/* ---- rounds with stand-in scorers ---- */

typedef struct {
   OneTask t;
   Standin draftSc, verifySc;
   Scorer *draft, *verify;
   SearchTask task;
} Fixture;

static void fixtureInit(Fixture *b, uint64_t seed) {
   buildTask(&b->t, DENSE);
   standinInit(&b->draftSc);
   b->draftSc.byHash = true;
   standinInit(&b->verifySc);
   b->verifySc.byHash = true;
   b->verifySc.salt = 1;
   b->draft = Scorer_fn(standinScore, &b->draftSc, "draft");
   b->verify = Scorer_fn(standinScore, &b->verifySc, "verify");
   SearchTask_init(&b->task, &b->t.net.tasks[0], &b->t.set, &limits, seed);
}

static void fixtureDone(Fixture *b) {
   SearchTask_done(&b->task);
   Scorer_free(b->draft);
   Scorer_free(b->verify);
   standinDone(&b->draftSc);
   standinDone(&b->verifySc);
   doneTask(&b->t);
}

static void runRound(Fixture *b, const SearchParams *p, int numMeasure, Candidate *picks, int *n, SearchRoundStats *st) {
   char *cause = NULL;
   if (Search_round(&b->task, p, p->draft ? b->draft : NULL, b->verify, numMeasure, picks, n, st, &cause) < 0)
      fail_msg("%s", cause);
}

static void test_eps_greedy_pick_counts(void **state) {
   (void)state;
   Fixture b;
   fixtureInit(&b, 31);
   SearchParams p;
   SearchParams_pruner(&p);
   Candidate picks[64];
   int n;
   SearchRoundStats st;
   runRound(&b, &p, 10, picks, &n, &st);
   assert_int_equal(n, 10);
   assert_int_equal(st.picks, 10);
   assert_int_equal(st.picksGood, 9);
   assert_int_equal(st.picksRandom, 1);
   assert_int_equal(st.randomPool, 3);
   assert_int_equal(st.verifyKept, 20);
   assert_int_equal(st.sampled, 1536);
   assert_int_equal(st.drafts, 512);
   assert_int_equal(st.population, 512 + 1536);
   /* the good picks are the verify search's best, in score order */
   for (int i = 1; i < 9; i++)
      assert_true(picks[i].verifyScore <= picks[i - 1].verifyScore);
   for (int i = 0; i < n; i++)
      assert_int_equal(State_validate(&b.t.set, &picks[i].state, &limits, NULL), 0);
   /* measured: the next rounds never pick them again, nor anything twice */
   StateSet measured;
   StateSet_init(&measured);
   for (int r = 0; r < 3; r++) {
      for (int i = 0; i < n; i++) {
         SearchTask_addMeasured(&b.task, &picks[i].state, 1e-3 * (i + 1));
         StateSet_add(&measured, &picks[i].state, NULL);
      }
      runRound(&b, &p, 10, picks, &n, &st);
      assert_int_equal(n, 10);
      assert_int_equal(st.picksGood + st.picksRandom, 10);
      assert_int_equal(st.seeds, StateSet_count(&measured));
      for (int i = 0; i < n; i++) {
         assert_false(StateSet_contains(&measured, &picks[i].state));
         for (int j = 0; j < i; j++)
            assert_false(State_equal(&picks[i].state, &picks[j].state));
      }
   }
   StateSet_done(&measured);
   fixtureDone(&b);

   /* Ansor's: eps 0.05 of 64 */
   fixtureInit(&b, 32);
   SearchParams_ansor(&p);
   runRound(&b, &p, 64, picks, &n, &st);
   assert_int_equal(n, 64);
   assert_int_equal(st.picksGood, 61);
   assert_int_equal(st.picksRandom, 3);
   assert_int_equal(st.randomPool, 9);
   assert_int_equal(st.verifyKept, 128);
   assert_false(st.drafted);
   assert_int_equal(st.drafts, 0);
   assert_int_equal(st.draftCalls, 0);
   assert_int_equal(b.draftSc.calls, 0);
   assert_int_equal(b.verifySc.calls, 5);
   assert_true(st.sampled <= 2048 && st.sampled > 1900);
   assert_int_equal(st.picksFromDrafts, 0);
   assertNear(st.acceptance, 0, 0);
   assert_true(isnan(st.kendallTau));
   for (int i = 0; i < n; i++)
      for (int j = 0; j < i; j++)
         assert_false(State_equal(&picks[i].state, &picks[j].state));
   fixtureDone(&b);
}

/* When the verify model scores everything alike, the picks are the best drafts. */
static void test_cold_start_measures_the_best_drafts(void **state) {
   (void)state;
   Fixture b;
   fixtureInit(&b, 41);
   b.verifySc.byHash = false;
   b.verifySc.otherwise = 0;
   SearchParams p;
   SearchParams_pruner(&p);
   Candidate picks[10];
   int n;
   SearchRoundStats st;
   runRound(&b, &p, 10, picks, &n, &st);
   assert_int_equal(n, 10);
   assert_true(st.drafted);
   assert_int_equal(b.task.ndrafts, 512);
   for (int i = 0; i < 9; i++) {
      assert_true(State_equal(&picks[i].state, &b.task.drafts[i].state));
      assert_int_equal(picks[i].origin, LINEAGE_DRAFT);
      assert_int_equal(picks[i].root, LINEAGE_DRAFT);
      assert_true(picks[i].draftScore == b.task.drafts[i].draftScore);
      assert_true(picks[i].verifyScore == 0);
   }
   /* the drafts are PSA's best first */
   for (int i = 1; i < 512; i++)
      assert_true(b.task.drafts[i].draftScore <= b.task.drafts[i - 1].draftScore);
   assert_int_equal(st.picksFromDrafts, 9 + (picks[9].root == LINEAGE_DRAFT));
   assertNear(st.acceptance, st.picksFromDrafts / 10.0, 1e-12);
   assertNear(st.acceptance, Search_acceptance(picks, n), 1e-12);
   /* a constant verify score ranks nothing */
   assert_true(isnan(st.kendallTau));

   /* without eps, all ten */
   p.eps = 0;
   runRound(&b, &p, 10, picks, &n, &st);
   assert_false(st.drafted);
   assert_int_equal(st.picksRandom, 0);
   for (int i = 0; i < 10; i++)
      assert_true(State_equal(&picks[i].state, &b.task.drafts[i].state));
   assertNear(st.acceptance, 1, 0);
   fixtureDone(&b);
}

static void test_redraft_every_other_round(void **state) {
   (void)state;
   Fixture b;
   fixtureInit(&b, 51);
   SearchParams p;
   SearchParams_pruner(&p);
   Candidate picks[10];
   Candidate *before = xCalloc(512, sizeof *before);
   int n;
   SearchRoundStats st;
   for (int r = 0; r < 5; r++) {
      int calls = b.draftSc.calls;
      if (b.task.drafts)
         memcpy(before, b.task.drafts, 512 * sizeof *before);
      runRound(&b, &p, 10, picks, &n, &st);
      assert_int_equal(st.round, r);
      assert_int_equal(b.task.round, r + 1);
      bool even = r % 2 == 0;
      assert_int_equal(st.drafted, even);
      /* 2 generations: 3 scoring passes, and after the first round one more for the
       * best measured state's rank among the drafts */
      assert_int_equal(b.draftSc.calls - calls, even ? (r > 0 ? 4 : 3) : 0);
      assert_int_equal(st.draftCalls, even ? 3 : 0);
      if (even && r > 0) {
         float best = hashScore(&b.task.best[0].state, 0);
         int above = 0;
         for (int i = 0; i < 512; i++)
            above += b.task.drafts[i].draftScore > best;
         assert_int_equal(st.bestDraftRank, 1 + above);
      } else {
         assert_int_equal(st.bestDraftRank, 0);
      }
      assert_int_equal(st.drafts, 512);
      if (!even)
         assert_memory_equal(before, b.task.drafts, 512 * sizeof *before);
      else if (r > 0)
         assert_true(memcmp(before, b.task.drafts, 512 * sizeof *before) != 0);
      /* the two stand-ins' scores are unrelated: tau near 0 over the 512 drafts */
      if (!(st.kendallTau > -0.2 && st.kendallTau < 0.2))
         fail_msg("round %d: tau %g", r, st.kendallTau);
      assert_int_equal(st.verifyCalls, 2);
      for (int i = 0; i < n; i++)
         SearchTask_addMeasured(&b.task, &picks[i].state, 1e-3);
   }
   free(before);
   fixtureDone(&b);
}

static void test_measured_seeds_by_throughput(void **state) {
   (void)state;
   OneTask t;
   buildTask(&t, DENSE);
   State s[5];
   sampleStates(&t.set, -1, 61, s, 5);
   SearchTask task;
   SearchTask_init(&task, &t.net.tasks[0], &t.set, &limits, 1);
   SearchTask_addMeasured(&task, &s[0], 3e-3);
   SearchTask_addMeasured(&task, &s[1], 1e-3);
   SearchTask_addMeasured(&task, &s[2], 1e10);     /* failed */
   SearchTask_addMeasured(&task, &s[3], 2e-3);
   SearchTask_addMeasured(&task, &s[4], 1e-3);
   SearchTask_addMeasured(&task, &s[0], 1e-6);     /* again: ignored */
   assert_int_equal(StateSet_count(&task.measured), 5);
   assert_int_equal(task.nbest, 4);
   static const int order[] = { 1, 4, 3, 0 };
   for (int i = 0; i < 4; i++)
      assert_true(State_equal(&task.best[i].state, &s[order[i]]));
   assert_true(task.best[3].cost == 3e-3);
   SearchTask_done(&task);
   doneTask(&t);
}

static void test_params_table(void **state) {
   (void)state;
   SearchParams p, q;
   SearchParams_pruner(&p);
   assert_true(p.draft);
   assert_int_equal(p.population, 1536);
   assert_int_equal(p.draftGenerations, 2);
   assert_int_equal(p.draftsKept, 512);
   assert_int_equal(p.redraftEvery, 2);
   assert_int_equal(p.verifyGenerations, 1);
   assertNear(p.mutationProb, 0.85, 0);
   assertNear(p.measuredRatio, 0.1, 0);
   assertNear(p.eps, 0.1, 0);
   char *cause = NULL;
   assert_int_equal(SearchParams_byName(&q, "ansor", &cause), 0);
   assert_false(q.draft);
   assert_int_equal(q.population, 2048);
   assert_int_equal(q.verifyGenerations, 4);
   assertNear(q.measuredRatio, 0.2, 0);
   assertNear(q.eps, 0.05, 0);
   assert_int_equal(SearchParams_byName(&q, "tvm", &cause), -1);
   assert_string_equal(cause, "no search policy 'tvm'; the policies are pruner and ansor");
   free(cause);

   assert_int_equal(SearchParams_set(&p, "eps", "0.05", NULL), 0);
   assertNear(p.eps, 0.05, 0);
   assert_int_equal(SearchParams_set(&p, "population", "1024", NULL), 0);
   assert_int_equal(p.population, 1024);
   assert_int_equal(SearchParams_set(&p, "draft", "off", NULL), 0);
   assert_false(p.draft);
   assert_int_equal(SearchParams_set(&p, "eps", "1.5", &cause), -1);
   assert_string_equal(cause, "search parameter 'eps' takes a number from 0 to 1, not '1.5'");
   free(cause);
   assert_int_equal(SearchParams_set(&p, "population", "12x", &cause), -1);
   assert_string_equal(cause, "search parameter 'population' takes a whole number from 1 to 1048576, not '12x'");
   free(cause);
   assert_int_equal(SearchParams_set(&p, "speed", "1", &cause), -1);
   assert_string_equal(cause, "no search parameter 'speed'");
   free(cause);
   /* every entry formats and sets back to the same value */
   SearchParams_pruner(&q);
   for (int i = 0; i < SearchParams_count; i++) {
      char buf[32], back[32];
      SearchParams_format(&p, &SearchParams_table[i], buf, sizeof buf);
      assert_int_equal(SearchParams_set(&q, SearchParams_table[i].name, buf, NULL), 0);
      SearchParams_format(&q, &SearchParams_table[i], back, sizeof back);
      assert_string_equal(back, buf);
   }
   assert_false(q.draft);
   assert_int_equal(q.population, 1024);
   assertNear(q.eps, 0.05, 0);
}

/* ---- real scorers on a ResNet-50 task ---- */

typedef struct {
   Network net;
   Dag dag;
   SketchSet set;
   DeviceSet devices;
   PsaParams psa;
   Featurizer *featurizer;
} Resnet;

static void resnetInit(Resnet *r, int task) {
   TestUtil_loadNetwork(&r->net, "models/resnet_50.task");
   Dag_init(&r->dag);
   Op_buildDag(&r->net.tasks[task].op, &r->dag);
   SketchSet_generate(&r->set, &r->dag);
   TestUtil_loadDevices(&r->devices);
   char *cause = NULL;
   if (PsaParams_fromDevice(&r->psa, DeviceSet_find(&r->devices, "a100_40"), &cause) < 0)
      fail_msg("%s", cause);
   const Network *nets[1] = { &r->net };
   r->featurizer = Featurizer_new(nets, 1, &r->devices);
}

static void resnetDone(Resnet *r) {
   Featurizer_free(r->featurizer);
   DeviceSet_done(&r->devices);
   SketchSet_done(&r->set);
   Dag_done(&r->dag);
   Network_done(&r->net);
}

/* Two rounds of a task with PSA and a random model on `threads` threads. */
static int twoRounds(Resnet *r, const SearchParams *p, int threads, Candidate *picks) {
   CostModel *model = CostModel_new(MODEL_RANDOM, 7, NULL);
   Scorer *draft = Scorer_psa(&r->psa, threads);
   Scorer *verify = Scorer_model(model, r->featurizer, NULL, threads);
   assert_int_equal(Scorer_threads(draft), threads);
   assert_string_equal(Scorer_name(verify), "random");
   SearchTask task;
   SearchTask_init(&task, &r->net.tasks[3], &r->set, &limits, 99);
   int total = 0;
   char *cause = NULL;
   for (int round = 0; round < 2; round++) {
      int n;
      if (Search_round(&task, p, draft, verify, 10, picks + total, &n, NULL, &cause) < 0)
         fail_msg("%s", cause);
      for (int i = 0; i < n; i++)
         SearchTask_addMeasured(&task, &picks[total + i].state, 1e-3 / (1 + i));
      total += n;
   }
   SearchTask_done(&task);
   Scorer_free(verify);
   Scorer_free(draft);
   CostModel_free(model);
   return total;
}

static void test_same_picks_on_any_thread_count(void **state) {
   (void)state;
   Resnet r;
   resnetInit(&r, 3);
   SearchParams p;
   SearchParams_pruner(&p);
   p.population = 512;
   p.draftsKept = 128;
   Candidate one[20], two[20];
   memset(one, 0, sizeof one);
   memset(two, 0, sizeof two);
   assert_int_equal(twoRounds(&r, &p, 1, one), 20);
   assert_int_equal(twoRounds(&r, &p, 2, two), 20);
   for (int i = 0; i < 20; i++)
      assert_memory_equal(&one[i].state, &two[i].state, sizeof(State));
   assert_memory_equal(one, two, sizeof one);
   resnetDone(&r);
}

static void test_real_round_on_resnet(void **state) {
   (void)state;
   Resnet r;
   resnetInit(&r, 3);
   CostModel *model = CostModel_new(MODEL_RANDOM, 5, NULL);
   Scorer *draft = Scorer_psa(&r.psa, 0);
   Scorer *verify = Scorer_model(model, r.featurizer, NULL, 0);
   SearchParams p;
   SearchParams_pruner(&p);
   SearchTask task;
   SearchTask_init(&task, &r.net.tasks[3], &r.set, &limits, 2026);
   Candidate picks[10];
   int n;
   SearchRoundStats st;
   char *cause = NULL;
   if (Search_round(&task, &p, draft, verify, 10, picks, &n, &st, &cause) < 0)
      fail_msg("%s", cause);
   assert_int_equal(n, 10);
   for (int i = 0; i < n; i++) {
      assert_int_equal(State_validate(&r.set, &picks[i].state, &limits, NULL), 0);
      assert_true(isfinite(picks[i].verifyScore));
      for (int j = 0; j < i; j++)
         assert_false(State_equal(&picks[i].state, &picks[j].state));
   }
   assert_true(st.drafted);
   assert_int_equal(st.sampled, 1536);
   assert_int_equal(st.drafts, 512);
   assert_int_equal(st.draftCalls, 3);
   assert_int_equal(st.verifyCalls, 2);
   /* PSA scored the sample and two generations, fewer where states repeat */
   assert_in_range(st.draftScored, 2000, 3 * 1536);
   assert_in_range(st.verifyScored, 1536, 512 + 1536 + 1536);
   /* drafts have PSA's score, a finite one */
   for (int i = 0; i < task.ndrafts; i++)
      assert_true(isfinite(task.drafts[i].draftScore) && task.drafts[i].draftScore > 0);
   assert_true(st.kendallTau > -0.3 && st.kendallTau < 0.3);  /* random scores agree with nothing */
   assert_true(st.totalSeconds >= st.sampleSeconds + st.draftScoreSeconds + st.verifyScoreSeconds);
   SearchTask_done(&task);
   Scorer_free(verify);
   Scorer_free(draft);
   CostModel_free(model);
   resnetDone(&r);
}

int main(void) {
   SchedLimits_default(&limits);
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pool_splits_in_contiguous_parts),
      cmocka_unit_test(test_state_set),
      cmocka_unit_test(test_heap_keeps_the_best_distinct_unmeasured),
      cmocka_unit_test(test_selection_follows_positive_scores),
      cmocka_unit_test(test_lineage_follows_descent),
      cmocka_unit_test(test_acceptance_and_kendall),
      cmocka_unit_test(test_eps_greedy_pick_counts),
      cmocka_unit_test(test_cold_start_measures_the_best_drafts),
      cmocka_unit_test(test_redraft_every_other_round),
      cmocka_unit_test(test_measured_seeds_by_throughput),
      cmocka_unit_test(test_params_table),
      cmocka_unit_test(test_same_picks_on_any_thread_count),
      cmocka_unit_test(test_real_round_on_resnet),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
