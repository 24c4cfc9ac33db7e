/* The build pool: a fixed set of threads compiling candidates' CUDA source with NVRTC
 * to CUBINs, ptxas' report attached to each, with a cache of finished builds keyed by
 * (architecture, source). Compile errors come back as MEASURE_COMPILE_ERROR with
 * NVRTC's log, builds that run past the timeout as MEASURE_BUILD_TIMEOUT (Ansor's
 * LocalBuilder: ansor.md 8.1). */
#ifndef HEADER_builder
#define HEADER_builder

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "measure/measure.h"
#include "measure/nvrtc.h"

/* Compiles source to a CUBIN for arch, with the contract of Nvrtc_compile: out is
 * overwritten, 0 or -1 with *cause set (and NVRTC's log in out->log where there is
 * one); the pool frees out with NvrtcResult_done whatever the return value. Called
 * from several threads at once. */
typedef int (*BuilderCompileFn)(const char *source, const char *name, const char *arch,
                                NvrtcResult *out, char **cause);

typedef struct BuilderConfig_ {
   int threads;                 /* 0: the number of online cores */
   char arch[16];               /* requests' default architecture, "sm_NN" */
   double timeoutSeconds;       /* per build, counted from when a thread starts it */
   int cacheEntries;            /* finished builds kept; 0 disables the cache */
   BuilderCompileFn compile;    /* NULL: Nvrtc_compile; tests pass a slow or failing one */
} BuilderConfig;

/* threads 0, arch "sm_90", timeoutSeconds 15 (Ansor's), cacheEntries 4096, compile
 * NULL. */
void BuilderConfig_default(BuilderConfig *c);

/* A compiled program, shared by the cache and every request that got it: read-only
 * once made, freed when the last reference is released. */
typedef struct BuildArtifact_ {
   atomic_int refs;
   void *cubin;                 /* ELF image, cubinSize bytes */
   size_t cubinSize;
   int nkernels;
   NvrtcKernelInfo *kernels;    /* ptxas' report, in its order */
   char *log;                   /* NVRTC's log (the report, warnings); "" when empty */
   double seconds;              /* NVRTC's wall time for the compile that made it */
} BuildArtifact;

/* Adds a reference and returns a. */
BuildArtifact *BuildArtifact_retain(BuildArtifact *a);
/* Drops a reference, freeing a with the last one; NULL is ignored. */
void BuildArtifact_release(BuildArtifact *a);

typedef struct BuildRequest_ {
   /* in: read until Builder_build returns (the pool copies what it keeps) */
   const char *source;          /* required */
   const char *name;            /* program name in messages, e.g. "conv2d_17.cu"; NULL:
                                   "program.cu" */
   const char *arch;            /* NULL: the builder's; one pool may serve several GPUs */
   /* out: Builder_build sets every one of these */
   MeasureError error;          /* MEASURE_OK, MEASURE_COMPILE_ERROR or MEASURE_BUILD_TIMEOUT */
   char *message;               /* why it failed, one line ("NAME: compilation failed for
                                   ARCH: FIRST ERROR LINE"); NULL when ok */
   char *log;                   /* NVRTC's full log on a compile error (NULL where no
                                   compile ran: an architecture NVRTC lacks), else NULL */
   BuildArtifact *artifact;     /* the request's reference; NULL unless ok */
   double seconds;              /* compile wall time: 0 for an answer from the cache, the
                                   timeout for a timeout */
   bool cached;                 /* answered from the cache, or by an identical request
                                   of the same call */
} BuildRequest;

typedef struct Builder_ Builder;

/* Starts the pool's threads, named "build". Fails, with *cause, when the configuration is out of range
 * (arch not "sm_" and 2 or 3 digits, threads or cacheEntries below 0, timeoutSeconds not
 * above 0) or, with no compile hook, when NVRTC cannot be loaded (Nvrtc_open's message). */
Builder *Builder_new(const BuilderConfig *cfg, char **cause);

/* Compiles every request on the pool and returns when each is finished or has run past
 * the timeout. Requests found in the cache are answered at once (a compile error too:
 * the same source fails the same way); with the cache on, a request repeating an
 * earlier one of the same call shares its compile. NVRTC cannot be interrupted, so a
 * build past the timeout is abandoned: its thread finishes it later and throws the
 * result away (a timeout is never cached), and that thread compiles nothing else
 * meanwhile. Outputs are overwritten, not freed: pass fresh or BuildRequest_done'd
 * requests. Several threads may call it at once. */
void Builder_build(Builder *b, BuildRequest *reqs, int n);

/* Frees the outputs and clears them; source, name and arch are left as they were. */
void BuildRequest_done(BuildRequest *r);

/* Since Builder_new: compiles the pool ran to the end for a caller (a compile error
 * too; abandoned ones not), requests answered from the cache, requests that ended in a
 * compile error (from the cache too) or a timeout, and NVRTC's wall time summed over
 * the compiles counted. */
typedef struct BuilderStats_ {
   long compiled, cacheHits, errors, timeouts;
   double compileSeconds;
} BuilderStats;

void Builder_stats(const Builder *b, BuilderStats *out);
int Builder_threads(const Builder *b);
/* Builds in the cache now. */
int Builder_cached(const Builder *b);

/* Waits for the compiles still running, abandoned ones included, stops the threads and
 * frees the cache; artifacts that requests still hold stay valid. NULL is ignored. */
void Builder_free(Builder *b);

#endif
