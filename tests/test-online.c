/* The online trainer, with a stand-in model whose "training" is slow on purpose and
 * whose score says which round made it: predictions never wait for training, a round
 * trains on every sample added before it began, updates that arrive during a round
 * make one more round, a failed round keeps the model in use, and a frozen model
 * never trains. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost/model.h"
#include "cost/models.h"
#include "cost/online.h"
#include "testutil.h"
#include "util/clock.h"
#include "util/xalloc.h"

typedef struct {
   int generation;              /* rounds that made this copy */
   int seen;                    /* samples its last fit saw */
   double sleep;                /* seconds a fit takes */
   bool fail;
} Standin;

static void standinPredict(CostModel *m, const Dataset *batch, float *scores) {
   const Standin *s = m->impl;
   for (int i = 0; i < batch->n; i++)
      scores[i] = (float)(s->generation * 100000 + s->seen);
}

static int standinFit(CostModel *m, const Dataset *train, const TrainConfig *cfg, char **cause) {
   (void)cfg;
   Standin *s = m->impl;
   usleep((useconds_t)(s->sleep * 1e6));
   if (s->fail)
      return setCause(cause, "the stand-in was told to fail");
   /* labels were made over all the data the round saw */
   for (int i = 0; i < train->n; i++)
      if (!(train->label[i] > 0 && train->label[i] <= 1))
         return setCause(cause, "sample %d has label %g", i, train->label[i]);
   s->generation++;
   s->seen = train->n;
   return 0;
}

static void standinFree(CostModel *m) {
   free(m->impl);
}

static CostModel *standinClone(const CostModel *m, char **cause);

static const CostModelOps standinOps = {
   .predict = standinPredict,
   .fit = standinFit,
   .clone = standinClone,
   .free = standinFree,
};

static CostModel *standin(double sleep, bool fail) {
   Standin *s = xCalloc(1, sizeof *s);
   s->sleep = sleep;
   s->fail = fail;
   return CostModel_alloc(MODEL_MLP, &standinOps, 1, s);
}

static CostModel *standinClone(const CostModel *m, char **cause) {
   (void)cause;
   Standin *s = xMalloc(sizeof *s);
   *s = *(const Standin *)m->impl;
   CostModel *c = CostModel_alloc(m->kind, &standinOps, m->seed, s);
   c->frozen = m->frozen;
   return c;
}

/* n measured samples of one task, costs 1..n ms */
static void samples(Dataset *d, int n, int first) {
   Dataset_clear(d);
   int t = Dataset_task(d, "t");
   for (int i = 0; i < n; i++)
      Dataset_add(d, t, NULL, NULL, INFINITY, (double)(first + i + 1) * 1e-3);
}

static float scoreOf(OnlineModel *o) {
   Dataset one;
   Dataset_init(&one);
   samples(&one, 1, 0);
   float s;
   OnlineModel_predict(o, &one, &s);
   Dataset_done(&one);
   return s;
}

static void test_round_publishes(void **state) {
   (void)state;
   TrainConfig cfg;
   TrainConfig_default(&cfg);
   OnlineModel *o = OnlineModel_new(standin(0.0, false), &cfg);
   /* the worker shows as "train" in /proc (top -H, htop) */
   assert_int_equal(TestUtil_threadsNamedSettle("train", 1), 1);
   assert_true(scoreOf(o) == 0);
   Dataset d;
   Dataset_init(&d);
   samples(&d, 30, 0);
   OnlineModel_update(o, &d);
   OnlineModel_wait(o);
   assert_int_equal(OnlineModel_rounds(o), 1);
   assert_true(scoreOf(o) == 100030);
   assert_int_equal(OnlineModel_data(o)->n, 30);
   assert_null(OnlineModel_lastError(o));
   Dataset_done(&d);
   OnlineModel_free(o);
   assert_int_equal(TestUtil_threadsNamedSettle("train", 0), 0);
}

static void test_predictions_do_not_wait(void **state) {
   (void)state;
   TrainConfig cfg;
   TrainConfig_default(&cfg);
   OnlineModel *o = OnlineModel_new(standin(0.5, false), &cfg);
   Dataset d;
   Dataset_init(&d);
   samples(&d, 10, 0);
   OnlineModel_update(o, &d);
   usleep(50000);               /* the round is under way */
   double t0 = Clock_now();
   float s = scoreOf(o);
   assert_true(Clock_now() - t0 < 0.2);
   assert_true(s == 0);         /* the old model, while the new one trains */
   /* two more updates during the round: one more round, over all 30 samples */
   samples(&d, 10, 10);
   OnlineModel_update(o, &d);
   samples(&d, 10, 20);
   OnlineModel_update(o, &d);
   double last = OnlineModel_wait(o);
   assert_true(last >= 0.45);
   assert_int_equal(OnlineModel_rounds(o), 2);
   assert_true(scoreOf(o) == 200030);
   Dataset_done(&d);
   OnlineModel_free(o);
}

static void test_failed_round_keeps_the_model(void **state) {
   (void)state;
   TrainConfig cfg;
   TrainConfig_default(&cfg);
   OnlineModel *o = OnlineModel_new(standin(0.0, true), &cfg);
   Dataset d;
   Dataset_init(&d);
   samples(&d, 5, 0);
   OnlineModel_update(o, &d);
   OnlineModel_wait(o);
   assert_int_equal(OnlineModel_rounds(o), 0);
   assert_string_equal(OnlineModel_lastError(o), "the stand-in was told to fail");
   assert_true(scoreOf(o) == 0);
   Dataset_done(&d);
   OnlineModel_free(o);
}

static void test_frozen_never_trains(void **state) {
   (void)state;
   TrainConfig cfg;
   TrainConfig_default(&cfg);
   CostModel *m = standin(0.0, false);
   m->frozen = true;
   OnlineModel *o = OnlineModel_new(m, &cfg);
   Dataset d;
   Dataset_init(&d);
   samples(&d, 5, 0);
   OnlineModel_update(o, &d);
   OnlineModel_wait(o);
   assert_int_equal(OnlineModel_rounds(o), 0);
   assert_int_equal(OnlineModel_data(o)->n, 5);
   assert_true(scoreOf(o) == 0);
   Dataset_done(&d);
   OnlineModel_free(o);
}

/* With a bounded replay of 25: the first round trains on all 30 samples; a round after
 * it on the 10 new ones and 25 of the 30 earlier (35), and once 60 are in, on the 10
 * new and 25 of the 50 earlier (35 again): the round's cost stays bounded. The samples
 * are labelled over all the data (the stand-in checks every label is in (0, 1]). */
static void test_bounded_replay(void **state) {
   (void)state;
   TrainConfig cfg;
   TrainConfig_default(&cfg);
   cfg.replay = 25;
   OnlineModel *o = OnlineModel_new(standin(0.0, false), &cfg);
   Dataset d;
   Dataset_init(&d);
   samples(&d, 30, 0);
   OnlineModel_update(o, &d);
   OnlineModel_wait(o);
   assert_true(scoreOf(o) == 100030);
   samples(&d, 10, 30);
   OnlineModel_update(o, &d);
   OnlineModel_wait(o);
   assert_true(scoreOf(o) == 200035);
   samples(&d, 10, 40);
   OnlineModel_update(o, &d);
   OnlineModel_wait(o);
   samples(&d, 10, 50);
   OnlineModel_update(o, &d);
   OnlineModel_wait(o);
   assert_true(scoreOf(o) == 400035);
   assert_int_equal(OnlineModel_data(o)->n, 60);
   assert_null(OnlineModel_lastError(o));
   /* fewer earlier samples than the replay: all of them */
   OnlineModel *small = OnlineModel_new(standin(0.0, false), &cfg);
   samples(&d, 20, 0);
   OnlineModel_update(small, &d);
   OnlineModel_wait(small);
   samples(&d, 10, 20);
   OnlineModel_update(small, &d);
   OnlineModel_wait(small);
   assert_true(scoreOf(small) == 200030);
   OnlineModel_free(small);
   /* pam-moa warm-starts within the same bounds: 30, then 10 new and 25 earlier, then
    * 20 new and 25 earlier */
   CostModel *m = standin(0.0, false);
   m->kind = MODEL_PAM_MOA;
   OnlineModel *moa = OnlineModel_new(m, &cfg);
   samples(&d, 30, 0);
   OnlineModel_update(moa, &d);
   OnlineModel_wait(moa);
   assert_true(scoreOf(moa) == 100030);
   samples(&d, 10, 30);
   OnlineModel_update(moa, &d);
   OnlineModel_wait(moa);
   assert_true(scoreOf(moa) == 200035);
   samples(&d, 20, 40);
   OnlineModel_update(moa, &d);
   OnlineModel_wait(moa);
   assert_true(scoreOf(moa) == 300045);
   OnlineModel_free(moa);
   Dataset_done(&d);
   OnlineModel_free(o);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_publishes),
      cmocka_unit_test(test_bounded_replay),
      cmocka_unit_test(test_predictions_do_not_wait),
      cmocka_unit_test(test_failed_round_keeps_the_model),
      cmocka_unit_test(test_frozen_never_trains),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
