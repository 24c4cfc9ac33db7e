/* The build pool: worker threads taking jobs from one queue under the builder's mutex,
 * callers waiting on a condition variable with the earliest deadline of their running
 * jobs, and an LRU cache of finished builds whose hits are checked against the full
 * text. A job past its deadline is handed to its worker, which frees it when NVRTC
 * returns. */
#include "config.h"

#include "measure/builder.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/xalloc.h"

#define MAX_THREADS 1024

/* ---- artifacts ---- */

BuildArtifact *BuildArtifact_retain(BuildArtifact *a) {
   atomic_fetch_add_explicit(&a->refs, 1, memory_order_relaxed);
   return a;
}

void BuildArtifact_release(BuildArtifact *a) {
   if (!a || atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) != 1)
      return;
   free(a->cubin);
   free(a->kernels);
   free(a->log);
   free(a);
}

/* Takes what r owns into a new artifact with one reference; r is left zeroed. */
static BuildArtifact *artifactOf(NvrtcResult *r) {
   BuildArtifact *a = xCalloc(1, sizeof *a);
   atomic_init(&a->refs, 1);
   a->cubin = r->cubin;
   a->cubinSize = r->cubinSize;
   a->nkernels = r->nkernels;
   a->kernels = r->kernels;
   a->log = r->log ? r->log : xStrdup("");
   a->seconds = r->seconds;
   memset(r, 0, sizeof *r);
   return a;
}

/* ---- the cache: chained hash table plus a list from newest to oldest use ---- */

typedef struct CacheEntry_ {
   struct CacheEntry_ *chain;   /* next in the bucket */
   struct CacheEntry_ *newer, *older;
   uint64_t hash;
   char *arch, *source;
   BuildArtifact *artifact;     /* NULL for a compile error */
   char *message, *log;         /* a compile error's; log may be NULL */
} CacheEntry;

typedef struct Cache_ {
   int capacity, count;
   size_t mask;                 /* buckets - 1, a power of two less one */
   CacheEntry **buckets;
   CacheEntry *newest, *oldest;
} Cache;

/* FNV-1a over the architecture, a NUL and the source. */
static uint64_t keyHash(const char *arch, const char *source) {
   uint64_t h = 14695981039346656037ull;
   for (const char *p = arch;; p++) {
      h = (h ^ (unsigned char)*p) * 1099511628211ull;
      if (!*p)
         break;
   }
   for (const char *p = source; *p; p++)
      h = (h ^ (unsigned char)*p) * 1099511628211ull;
   return h;
}

static void Cache_init(Cache *c, int capacity) {
   memset(c, 0, sizeof *c);
   c->capacity = capacity;
   if (capacity == 0)
      return;
   size_t n = 16;
   while (n < (size_t)capacity)
      n *= 2;
   c->mask = n - 1;
   c->buckets = xCalloc(n, sizeof *c->buckets);
}

static void unlinkUse(Cache *c, CacheEntry *e) {
   if (e->newer)
      e->newer->older = e->older;
   else
      c->newest = e->older;
   if (e->older)
      e->older->newer = e->newer;
   else
      c->oldest = e->newer;
   e->newer = e->older = NULL;
}

static void linkNewest(Cache *c, CacheEntry *e) {
   e->older = c->newest;
   e->newer = NULL;
   if (c->newest)
      c->newest->newer = e;
   else
      c->oldest = e;
   c->newest = e;
}

static void CacheEntry_free(CacheEntry *e) {
   BuildArtifact_release(e->artifact);
   free(e->arch);
   free(e->source);
   free(e->message);
   free(e->log);
   free(e);
}

/* The entry for (arch, source), made the newest; NULL when there is none. A hash match
 * is only a candidate: the key's full text decides. */
static CacheEntry *Cache_find(Cache *c, uint64_t hash, const char *arch, const char *source) {
   if (c->capacity == 0)
      return NULL;
   for (CacheEntry *e = c->buckets[hash & c->mask]; e; e = e->chain) {
      if (e->hash == hash && strcmp(e->arch, arch) == 0 && strcmp(e->source, source) == 0) {
         unlinkUse(c, e);
         linkNewest(c, e);
         return e;
      }
   }
   return NULL;
}

static void Cache_evictOldest(Cache *c) {
   CacheEntry *e = c->oldest;
   unlinkUse(c, e);
   CacheEntry **p = &c->buckets[e->hash & c->mask];
   while (*p != e)
      p = &(*p)->chain;
   *p = e->chain;
   c->count--;
   CacheEntry_free(e);
}

/* Adds e as the newest entry, evicting the least recently used when full. */
static void Cache_insert(Cache *c, CacheEntry *e) {
   if (c->count == c->capacity)
      Cache_evictOldest(c);
   CacheEntry **bucket = &c->buckets[e->hash & c->mask];
   e->chain = *bucket;
   *bucket = e;
   linkNewest(c, e);
   c->count++;
}

static void Cache_done(Cache *c) {
   while (c->oldest)
      Cache_evictOldest(c);
   free(c->buckets);
   memset(c, 0, sizeof *c);
}

/* ---- jobs ---- */

typedef enum { JOB_QUEUED, JOB_RUNNING, JOB_DONE } JobState;

/* One compile. The caller that queued it owns it until it abandons it, then its worker
 * does. state and abandoned change under the lock; rc and what follows it are the
 * worker's until the job is done. */
typedef struct Job_ {
   struct Job_ *next;           /* in the queue */
   char *source, *name, *arch;  /* copies: an abandoned job outlives the request */
   uint64_t hash;
   JobState state;
   bool abandoned;
   double started;              /* monotonic seconds, once running */
   int rc;
   char *cause;
   NvrtcResult result;          /* a compile error's log stays here */
   BuildArtifact *artifact;     /* when rc is 0 */
} Job;

static void Job_free(Job *job) {
   free(job->source);
   free(job->name);
   free(job->arch);
   free(job->cause);
   NvrtcResult_done(&job->result);
   BuildArtifact_release(job->artifact);
   free(job);
}

/* ---- the pool ---- */

struct Builder_ {
   BuilderConfig cfg;
   BuilderCompileFn compile;
   int nthreads;
   pthread_t *threads;
   /* Behind a pointer so that readers holding a const Builder can lock it. Guards
    * everything below. */
   pthread_mutex_t *lock;
   pthread_cond_t work;         /* a job was queued, or the pool is stopping */
   pthread_cond_t progress;     /* a job started or finished (CLOCK_MONOTONIC) */
   Job *head, *tail;
   bool stopping;
   Cache cache;
   BuilderStats stats;
};

static double monotonicNow(void) {
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void waitUntil(pthread_cond_t *cond, pthread_mutex_t *lock, double when) {
   struct timespec ts;
   double whole = floor(when);
   ts.tv_sec = (time_t)whole;
   ts.tv_nsec = (long)((when - whole) * 1e9);
   if (ts.tv_nsec >= 1000000000L)
      ts.tv_nsec = 999999999L;
   pthread_cond_timedwait(cond, lock, &ts);
}

/* Under the lock: a finished job's result goes into the cache, unless the cache is off
 * or another caller's compile of the same key got there first. */
static void remember(Builder *b, Job *job) {
   Cache *c = &b->cache;
   if (c->capacity == 0 || Cache_find(c, job->hash, job->arch, job->source))
      return;
   CacheEntry *e = xCalloc(1, sizeof *e);
   e->hash = job->hash;
   e->arch = xStrdup(job->arch);
   e->source = job->source;
   job->source = NULL;
   if (job->rc == 0) {
      e->artifact = BuildArtifact_retain(job->artifact);
   } else {
      e->message = xStrdup(job->cause);
      e->log = job->result.log ? xStrdup(job->result.log) : NULL;
   }
   Cache_insert(c, e);
}

static void compileJob(Builder *b, Job *job) {
   job->rc = b->compile(job->source, job->name, job->arch, &job->result, &job->cause);
   if (job->rc == 0) {
      job->artifact = artifactOf(&job->result);
   } else if (!job->cause) {
      job->cause = xAsprintf("%s: compilation failed for %s", job->name, job->arch);
   }
}

static void *worker(void *arg) {
   Builder *b = arg;
   pthread_mutex_lock(b->lock);
   for (;;) {
      while (!b->head && !b->stopping)
         pthread_cond_wait(&b->work, b->lock);
      Job *job = b->head;
      if (!job)
         break;
      b->head = job->next;
      if (!b->head)
         b->tail = NULL;
      job->state = JOB_RUNNING;
      job->started = monotonicNow();
      pthread_cond_broadcast(&b->progress);
      pthread_mutex_unlock(b->lock);

      compileJob(b, job);

      pthread_mutex_lock(b->lock);
      if (job->abandoned) {
         pthread_mutex_unlock(b->lock);
         Job_free(job);
         pthread_mutex_lock(b->lock);
         continue;
      }
      remember(b, job);
      job->state = JOB_DONE;
      pthread_cond_broadcast(&b->progress);
   }
   pthread_mutex_unlock(b->lock);
   return NULL;
}

void BuilderConfig_default(BuilderConfig *c) {
   memset(c, 0, sizeof *c);
   c->threads = 0;
   snprintf(c->arch, sizeof c->arch, "sm_90");
   c->timeoutSeconds = 15.0;
   c->cacheEntries = 4096;
   c->compile = NULL;
}

static int checkConfig(const BuilderConfig *cfg, char **cause) {
   if (!memchr(cfg->arch, '\0', sizeof cfg->arch) || !Nvrtc_isArch(cfg->arch))
      return setCause(cause,
                      "builder: bad GPU architecture \"%.*s\": expected sm_ and 2 or 3 "
                      "digits, such as sm_80 or sm_90",
                      (int)sizeof cfg->arch, cfg->arch);
   if (cfg->threads < 0 || cfg->threads > MAX_THREADS)
      return setCause(cause, "builder: threads must be from 0 (one per online core) to %d, not %d",
                      MAX_THREADS, cfg->threads);
   if (!(cfg->timeoutSeconds > 0) || !isfinite(cfg->timeoutSeconds))
      return setCause(cause, "builder: the timeout must be a number of seconds above 0, not %g",
                      cfg->timeoutSeconds);
   if (cfg->cacheEntries < 0)
      return setCause(cause, "builder: cache entries must be 0 (no cache) or more, not %d",
                      cfg->cacheEntries);
   return 0;
}

static void stopThreads(Builder *b, int started) {
   pthread_mutex_lock(b->lock);
   b->stopping = true;
   pthread_cond_broadcast(&b->work);
   pthread_mutex_unlock(b->lock);
   for (int i = 0; i < started; i++)
      pthread_join(b->threads[i], NULL);
}

static void freeBuilder(Builder *b) {
   Cache_done(&b->cache);
   pthread_cond_destroy(&b->work);
   pthread_cond_destroy(&b->progress);
   pthread_mutex_destroy(b->lock);
   free(b->lock);
   free(b->threads);
   free(b);
}

Builder *Builder_new(const BuilderConfig *cfg, char **cause) {
   if (checkConfig(cfg, cause) < 0)
      return NULL;
   if (!cfg->compile && Nvrtc_open(cause) < 0)
      return NULL;
   Builder *b = xCalloc(1, sizeof *b);
   b->cfg = *cfg;
   b->compile = cfg->compile ? cfg->compile : Nvrtc_compile;
   long cores = sysconf(_SC_NPROCESSORS_ONLN);
   b->nthreads = cfg->threads > 0 ? cfg->threads
                 : cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : (int)cores;
   b->lock = xMalloc(sizeof *b->lock);
   pthread_mutex_init(b->lock, NULL);
   pthread_cond_init(&b->work, NULL);
   pthread_condattr_t attr;
   pthread_condattr_init(&attr);
   pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
   pthread_cond_init(&b->progress, &attr);
   pthread_condattr_destroy(&attr);
   Cache_init(&b->cache, cfg->cacheEntries);
   b->threads = xCalloc((size_t)b->nthreads, sizeof *b->threads);
   for (int i = 0; i < b->nthreads; i++) {
      int err = pthread_create(&b->threads[i], NULL, worker, b);
      if (err != 0) {
         setCause(cause, "builder: cannot start build thread %d of %d: %s", i + 1, b->nthreads,
                  strerror(err));
         stopThreads(b, i);
         freeBuilder(b);
         return NULL;
      }
      pthread_setname_np(b->threads[i], "build");
   }
   return b;
}

void Builder_free(Builder *b) {
   if (!b)
      return;
   stopThreads(b, b->nthreads);
   freeBuilder(b);
}

int Builder_threads(const Builder *b) {
   return b->nthreads;
}

void Builder_stats(const Builder *b, BuilderStats *out) {
   pthread_mutex_lock(b->lock);
   *out = b->stats;
   pthread_mutex_unlock(b->lock);
}

int Builder_cached(const Builder *b) {
   pthread_mutex_lock(b->lock);
   int n = b->cache.count;
   pthread_mutex_unlock(b->lock);
   return n;
}

void BuildRequest_done(BuildRequest *r) {
   free(r->message);
   free(r->log);
   BuildArtifact_release(r->artifact);
   r->error = MEASURE_OK;
   r->message = NULL;
   r->log = NULL;
   r->artifact = NULL;
   r->seconds = 0;
   r->cached = false;
}

/* ---- one call ---- */

static void answerFromCache(BuildRequest *r, const CacheEntry *e, BuilderStats *delta) {
   r->cached = true;
   r->seconds = 0;
   delta->cacheHits++;
   if (e->artifact) {
      r->error = MEASURE_OK;
      r->artifact = BuildArtifact_retain(e->artifact);
   } else {
      r->error = MEASURE_COMPILE_ERROR;
      r->message = xStrdup(e->message);
      r->log = e->log ? xStrdup(e->log) : NULL;
      delta->errors++;
   }
}

/* The answer of an identical request of the same call, which got the compile. */
static void answerLikeEarlier(BuildRequest *r, const BuildRequest *first, BuilderStats *delta) {
   r->error = first->error;
   r->message = first->message ? xStrdup(first->message) : NULL;
   r->log = first->log ? xStrdup(first->log) : NULL;
   r->artifact = first->artifact ? BuildArtifact_retain(first->artifact) : NULL;
   if (first->error == MEASURE_BUILD_TIMEOUT) {
      r->seconds = first->seconds;
      delta->timeouts++;
      return;
   }
   r->cached = true;
   delta->cacheHits++;
   if (first->error == MEASURE_COMPILE_ERROR)
      delta->errors++;
}

/* Takes a finished job's result into its request, and frees the job. */
static void answerFromJob(BuildRequest *r, Job *job, BuilderStats *delta) {
   delta->compiled++;
   delta->compileSeconds += job->rc == 0 ? job->artifact->seconds : job->result.seconds;
   if (job->rc == 0) {
      r->error = MEASURE_OK;
      r->artifact = job->artifact;
      r->seconds = job->artifact->seconds;
      job->artifact = NULL;
   } else {
      r->error = MEASURE_COMPILE_ERROR;
      r->message = job->cause;
      r->log = job->result.log;
      r->seconds = job->result.seconds;
      job->cause = NULL;
      job->result.log = NULL;
      delta->errors++;
   }
   Job_free(job);
}

static void addStats(BuilderStats *to, const BuilderStats *d) {
   to->compiled += d->compiled;
   to->cacheHits += d->cacheHits;
   to->errors += d->errors;
   to->timeouts += d->timeouts;
   to->compileSeconds += d->compileSeconds;
}

/* Under the lock: the index of an earlier request of this call with the same key that
 * has a job, or -1. */
static int earlierTwin(BuildRequest *reqs, Job **jobs, int i, uint64_t hash, const char *arch) {
   for (int j = 0; j < i; j++)
      if (jobs[j] && jobs[j]->hash == hash && strcmp(jobs[j]->arch, arch) == 0 &&
          strcmp(reqs[j].source, reqs[i].source) == 0)
         return j;
   return -1;
}

void Builder_build(Builder *b, BuildRequest *reqs, int n) {
   if (n <= 0)
      return;
   Job **jobs = xCalloc((size_t)n, sizeof *jobs);
   int *twin = xMalloc((size_t)n * sizeof *twin);
   uint64_t *hashes = xMalloc((size_t)n * sizeof *hashes);
   for (int i = 0; i < n; i++) {
      BuildRequest *r = &reqs[i];
      r->error = MEASURE_OK;
      r->message = r->log = NULL;
      r->artifact = NULL;
      r->seconds = 0;
      r->cached = false;
      hashes[i] = keyHash(r->arch ? r->arch : b->cfg.arch, r->source);
   }
   BuilderStats delta = { 0, 0, 0, 0, 0.0 };
   bool cacheOn = b->cache.capacity > 0;

   pthread_mutex_lock(b->lock);
   for (int i = 0; i < n; i++) {
      BuildRequest *r = &reqs[i];
      const char *arch = r->arch ? r->arch : b->cfg.arch;
      twin[i] = -1;
      if (cacheOn) {
         CacheEntry *e = Cache_find(&b->cache, hashes[i], arch, r->source);
         if (e) {
            answerFromCache(r, e, &delta);
            continue;
         }
         twin[i] = earlierTwin(reqs, jobs, i, hashes[i], arch);
         if (twin[i] >= 0)
            continue;
      }
      Job *job = xCalloc(1, sizeof *job);
      job->source = xStrdup(r->source);
      job->name = xStrdup(r->name && *r->name ? r->name : "program.cu");
      job->arch = xStrdup(arch);
      job->hash = hashes[i];
      if (b->tail)
         b->tail->next = job;
      else
         b->head = job;
      b->tail = job;
      jobs[i] = job;
   }
   pthread_cond_broadcast(&b->work);

   /* Wait until every job is done or past its deadline; an abandoned job is its
    * worker's from here on, so the request is answered now and the job forgotten. */
   double timeout = b->cfg.timeoutSeconds;
   for (;;) {
      double now = monotonicNow(), deadline = INFINITY;
      bool waiting = false;
      for (int i = 0; i < n; i++) {
         Job *job = jobs[i];
         if (!job || job->state == JOB_DONE)
            continue;
         if (job->state == JOB_RUNNING && now >= job->started + timeout) {
            job->abandoned = true;
            reqs[i].error = MEASURE_BUILD_TIMEOUT;
            reqs[i].message = xAsprintf("%s: build timed out after %g s", job->name, timeout);
            reqs[i].seconds = timeout;
            delta.timeouts++;
            jobs[i] = NULL;
            continue;
         }
         if (job->state == JOB_RUNNING && job->started + timeout < deadline)
            deadline = job->started + timeout;
         waiting = true;
      }
      if (!waiting)
         break;
      if (isfinite(deadline))
         waitUntil(&b->progress, b->lock, deadline);
      else
         pthread_cond_wait(&b->progress, b->lock);
   }
   pthread_mutex_unlock(b->lock);

   for (int i = 0; i < n; i++)
      if (jobs[i])
         answerFromJob(&reqs[i], jobs[i], &delta);
   for (int i = 0; i < n; i++)
      if (twin[i] >= 0)
         answerLikeEarlier(&reqs[i], &reqs[twin[i]], &delta);

   pthread_mutex_lock(b->lock);
   addStats(&b->stats, &delta);
   pthread_mutex_unlock(b->lock);
   free(hashes);
   free(twin);
   free(jobs);
}
