/* The online trainer's worker thread. */
#include "config.h"

#include "cost/online.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cost/nn.h"
#include "util/clock.h"
#include "util/rng.h"
#include "util/xalloc.h"

struct OnlineModel_ {
   pthread_mutex_t lock;        /* guards everything below */
   pthread_cond_t wake, idle;
   pthread_t thread;
   bool stop;
   bool due;                    /* new data since the last round started */
   bool running;
   CostModel *published;        /* what predict uses */
   pthread_mutex_t use;         /* held while predicting with `published` or replacing it
                                   (models keep scratch memory: one prediction at a time) */
   TrainConfig cfg;
   Dataset data;                /* all labelled samples; written only under lock */
   int trained;                 /* samples the last round that succeeded had seen */
   int rounds;
   double lastSeconds;
   char *lastError;
};

/* Into out (initialized, emptied): the samples of all from `trained` on, and `replay`
 * of the earlier ones drawn without repetition (a partial Fisher-Yates shuffle from
 * seed), in their order, every task of all kept in all's order. */
static void replaySubset(const Dataset *all, int trained, int replay, uint64_t seed, Dataset *out) {
   int *pick = xMalloc((size_t)trained * sizeof *pick);
   for (int i = 0; i < trained; i++)
      pick[i] = i;
   Rng rng;
   Rng_seed(&rng, seed);
   for (int k = 0; k < replay; k++) {
      int j = k + (int)Rng_below(&rng, (uint64_t)(trained - k));
      int t = pick[k];
      pick[k] = pick[j];
      pick[j] = t;
   }
   bool *keep = xCalloc((size_t)all->n, sizeof *keep);
   for (int k = 0; k < replay; k++)
      keep[pick[k]] = true;
   for (int i = trained; i < all->n; i++)
      keep[i] = true;
   Dataset_clear(out);
   for (int t = 0; t < all->ntasks; t++) {
      int u = Dataset_task(out, all->taskKey[t]);
      out->taskWeight[u] = all->taskWeight[t];
   }
   for (int i = 0; i < all->n; i++)
      if (keep[i])
         Dataset_addFrom(out, all, i);
   free(keep);
   free(pick);
}

static void *worker(void *arg) {
   OnlineModel *o = arg;
   pthread_mutex_lock(&o->lock);
   for (;;) {
      while (!o->stop && !o->due)
         pthread_cond_wait(&o->wake, &o->lock);
      if (o->stop)
         break;
      o->due = false;
      o->running = true;
      /* train a copy on a snapshot, so that predictions and updates go on meanwhile;
       * only this thread replaces `published`, and cloning only reads its weights */
      Dataset snapshot;
      Dataset_init(&snapshot);
      for (int i = 0; i < o->data.n; i++)
         Dataset_addFrom(&snapshot, &o->data, i);
      char *cause = NULL;
      CostModel *work = CostModel_clone(o->published, &cause);
      TrainConfig cfg = o->cfg;
      int trained = o->trained, round = o->rounds;
      ModelKind kind = o->published->kind;
      pthread_mutex_unlock(&o->lock);

      double t0 = Clock_now();
      int rc = -1;
      if (work) {
         /* labels over all samples (a task's best may be new); then, with a bounded
          * replay, the samples to train on this round */
         Dataset_relabel(&snapshot);
         Dataset part;
         Dataset_init(&part);
         const Dataset *on = &snapshot;
         bool warm = !cfg.fromScratch && trained > 0 &&
                     (kind == MODEL_MLP || kind == MODEL_PAM || kind == MODEL_PAM_MOA);
         if (warm && cfg.roundEpochs > 0)
            cfg.epochs = cfg.roundEpochs;
         if (warm && cfg.replay > 0 && trained > cfg.replay) {
            replaySubset(&snapshot, trained, cfg.replay, cfg.seed ^ (uint64_t)round, &part);
            on = &part;
         }
         rc = CostModel_fit(work, on, &cfg, &cause);
         Dataset_done(&part);
      }
      double seconds = Clock_now() - t0;
      int seen = snapshot.n;
      Dataset_done(&snapshot);

      CostModel *old = NULL;
      if (rc == 0) {
         pthread_mutex_lock(&o->use);
         old = o->published;
         o->published = work;
         pthread_mutex_unlock(&o->use);
      } else {
         old = work;
      }
      CostModel_free(old);
      pthread_mutex_lock(&o->lock);
      free(o->lastError);
      o->lastError = rc == 0 ? NULL : cause;
      if (rc == 0) {
         free(cause);
         o->rounds++;
         o->trained = seen;
      }
      o->lastSeconds = seconds;
      o->running = false;
      pthread_cond_broadcast(&o->idle);
   }
   pthread_mutex_unlock(&o->lock);
   return NULL;
}

OnlineModel *OnlineModel_new(CostModel *m, const TrainConfig *cfg) {
   OnlineModel *o = xCalloc(1, sizeof *o);
   pthread_mutex_init(&o->lock, NULL);
   pthread_cond_init(&o->wake, NULL);
   pthread_cond_init(&o->idle, NULL);
   pthread_mutex_init(&o->use, NULL);
   o->published = m;
   o->cfg = *cfg;
   Dataset_init(&o->data);
   /* training here and predictions on the caller's thread run at once: on one
    * OpenBLAS thread each they share the cores better than on one per core each */
   Nn_setThreads(1);
   if (pthread_create(&o->thread, NULL, worker, o) != 0)
      fatal("cannot start the model trainer's thread");
   pthread_setname_np(o->thread, "train");
   return o;
}

void OnlineModel_free(OnlineModel *o) {
   if (!o)
      return;
   pthread_mutex_lock(&o->lock);
   o->stop = true;
   pthread_cond_signal(&o->wake);
   pthread_mutex_unlock(&o->lock);
   pthread_join(o->thread, NULL);
   CostModel_free(o->published);
   Dataset_done(&o->data);
   free(o->lastError);
   pthread_mutex_destroy(&o->use);
   pthread_cond_destroy(&o->idle);
   pthread_cond_destroy(&o->wake);
   pthread_mutex_destroy(&o->lock);
   free(o);
}

void OnlineModel_predict(OnlineModel *o, const Dataset *batch, float *scores) {
   pthread_mutex_lock(&o->use);
   CostModel_predict(o->published, batch, scores);
   pthread_mutex_unlock(&o->use);
}

void OnlineModel_update(OnlineModel *o, const Dataset *samples) {
   pthread_mutex_lock(&o->lock);
   for (int i = 0; i < samples->n; i++)
      Dataset_addFrom(&o->data, samples, i);
   if (!o->published->frozen) {
      o->due = true;
      pthread_cond_signal(&o->wake);
   }
   pthread_mutex_unlock(&o->lock);
}

double OnlineModel_wait(OnlineModel *o) {
   pthread_mutex_lock(&o->lock);
   while (o->due || o->running)
      pthread_cond_wait(&o->idle, &o->lock);
   double s = o->lastSeconds;
   pthread_mutex_unlock(&o->lock);
   return s;
}

void OnlineModel_status(OnlineModel *o, int *rounds, double *seconds, int *samples, char **error) {
   pthread_mutex_lock(&o->lock);
   *rounds = o->rounds;
   *seconds = o->lastSeconds;
   *samples = o->trained;
   *error = o->lastError ? xStrdup(o->lastError) : NULL;
   pthread_mutex_unlock(&o->lock);
}

int OnlineModel_rounds(OnlineModel *o) {
   pthread_mutex_lock(&o->lock);
   int n = o->rounds;
   pthread_mutex_unlock(&o->lock);
   return n;
}

const char *OnlineModel_lastError(OnlineModel *o) {
   pthread_mutex_lock(&o->lock);
   const char *e = o->lastError;
   pthread_mutex_unlock(&o->lock);
   return e;
}

const Dataset *OnlineModel_data(OnlineModel *o) {
   return &o->data;
}
