/* A fixed pool of worker threads that splits a range of items into one contiguous part
 * per thread: part t is items [n*t/T, n*(t+1)/T), part 0 runs on the calling thread.
 * The split depends only on n and T, and the callers keep results in item order, so
 * what they compute does not depend on which thread ran what. One lock per call,
 * none per item. */
#ifndef HEADER_pool
#define HEADER_pool

/* Runs items [begin, end) as thread `worker` (0 .. threads-1). */
typedef void (*WorkFn)(void *ctx, int worker, int begin, int end);

typedef struct WorkPool_ WorkPool;

/* threads <= 0: one per online core. The threads it starts are named "search". */
WorkPool *WorkPool_new(int threads);
void WorkPool_free(WorkPool *p);   /* NULL is fine */
int WorkPool_threads(const WorkPool *p);
/* Runs fn over [0, n) split into WorkPool_threads parts and returns when all are done.
 * Called from one thread at a time. */
void WorkPool_run(WorkPool *p, int n, WorkFn fn, void *ctx);

/* The number of online cores (at least 1). */
int WorkPool_onlineCores(void);

#endif
