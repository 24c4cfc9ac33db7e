/* The worker pool: a generation counter under one mutex wakes the workers for a call;
 * a count of parts still running tells the caller when it is over. */
#include "config.h"

#include "search/pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/xalloc.h"

#define POOL_MAX_THREADS 256

struct WorkPool_ {
   int threads;
   pthread_t *ids;              /* workers 1 .. threads-1 */
   pthread_mutex_t lock;
   pthread_cond_t start, done;
   unsigned long generation;    /* counts calls; a change means a new job */
   int running;                 /* parts of the current job not finished */
   bool stop;
   /* the current job */
   WorkFn fn;
   void *ctx;
   int n;
};

typedef struct {
   WorkPool *pool;
   int worker;
} WorkerArg;

static void runPart(WorkPool *p, int worker) {
   int begin = (int)((long long)p->n * worker / p->threads);
   int end = (int)((long long)p->n * (worker + 1) / p->threads);
   if (begin < end)
      p->fn(p->ctx, worker, begin, end);
}

static void *workerMain(void *arg) {
   WorkerArg *w = arg;
   WorkPool *p = w->pool;
   int worker = w->worker;
   free(w);
   unsigned long seen = 0;
   pthread_mutex_lock(&p->lock);
   for (;;) {
      while (!p->stop && p->generation == seen)
         pthread_cond_wait(&p->start, &p->lock);
      if (p->stop)
         break;
      seen = p->generation;
      pthread_mutex_unlock(&p->lock);
      runPart(p, worker);
      pthread_mutex_lock(&p->lock);
      if (--p->running == 0)
         pthread_cond_signal(&p->done);
   }
   pthread_mutex_unlock(&p->lock);
   return NULL;
}

int WorkPool_onlineCores(void) {
   long cores = sysconf(_SC_NPROCESSORS_ONLN);
   return cores < 1 ? 1 : cores > POOL_MAX_THREADS ? POOL_MAX_THREADS : (int)cores;
}

WorkPool *WorkPool_new(int threads) {
   WorkPool *p = xCalloc(1, sizeof *p);
   p->threads = threads <= 0 ? WorkPool_onlineCores() : threads > POOL_MAX_THREADS ? POOL_MAX_THREADS : threads;
   pthread_mutex_init(&p->lock, NULL);
   pthread_cond_init(&p->start, NULL);
   pthread_cond_init(&p->done, NULL);
   p->ids = xCalloc((size_t)p->threads, sizeof *p->ids);
   for (int t = 1; t < p->threads; t++) {
      WorkerArg *w = xMalloc(sizeof *w);
      w->pool = p;
      w->worker = t;
      if (pthread_create(&p->ids[t], NULL, workerMain, w) != 0)
         fatal("cannot start a search worker thread");
      pthread_setname_np(p->ids[t], "search");
   }
   return p;
}

void WorkPool_free(WorkPool *p) {
   if (!p)
      return;
   pthread_mutex_lock(&p->lock);
   p->stop = true;
   pthread_cond_broadcast(&p->start);
   pthread_mutex_unlock(&p->lock);
   for (int t = 1; t < p->threads; t++)
      pthread_join(p->ids[t], NULL);
   pthread_cond_destroy(&p->done);
   pthread_cond_destroy(&p->start);
   pthread_mutex_destroy(&p->lock);
   free(p->ids);
   free(p);
}

int WorkPool_threads(const WorkPool *p) {
   return p->threads;
}

void WorkPool_run(WorkPool *p, int n, WorkFn fn, void *ctx) {
   if (n <= 0)
      return;
   p->fn = fn;
   p->ctx = ctx;
   p->n = n;
   if (p->threads == 1) {
      runPart(p, 0);
      return;
   }
   pthread_mutex_lock(&p->lock);
   p->running = p->threads - 1;
   p->generation++;
   pthread_cond_broadcast(&p->start);
   pthread_mutex_unlock(&p->lock);
   runPart(p, 0);
   pthread_mutex_lock(&p->lock);
   while (p->running > 0)
      pthread_cond_wait(&p->done, &p->lock);
   pthread_mutex_unlock(&p->lock);
}
