/* The build pool: its configuration checks, timeouts, concurrency, request order, the
 * cache's LRU eviction and repeats within one call on a stand-in compiler (always run),
 * then, where NVRTC loads, real compiles: a generated kernel's CUBIN and ptxas report,
 * cache hits per architecture, cached compile errors and many requests at once. */
#include "config.h"

#include "testutil.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "measure/builder.h"
#include "util/xalloc.h"

static double now(void) {
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleepMs(long ms) {
   struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
   while (nanosleep(&ts, &ts) != 0) {
   }
}

/* ---- a stand-in compiler ----
 * "// sleep MS" as the first line makes it take that long; "FAIL" anywhere fails it
 * with a log of two lines and no cause; otherwise the "cubin" is the source itself and
 * the one kernel, "fake", has as many registers as the source has bytes. */

static atomic_int fakeCalls, fakeInFlight, fakeMostInFlight, fakeSleepsEnded;

static void resetFake(void) {
   atomic_store(&fakeCalls, 0);
   atomic_store(&fakeInFlight, 0);
   atomic_store(&fakeMostInFlight, 0);
   atomic_store(&fakeSleepsEnded, 0);
}

static int fakeCompile(const char *source, const char *name, const char *arch,
                       NvrtcResult *out, char **cause) {
   (void)name;
   (void)arch;
   (void)cause;
   memset(out, 0, sizeof *out);
   atomic_fetch_add(&fakeCalls, 1);
   int inFlight = atomic_fetch_add(&fakeInFlight, 1) + 1;
   int most = atomic_load(&fakeMostInFlight);
   while (inFlight > most && !atomic_compare_exchange_weak(&fakeMostInFlight, &most, inFlight)) {
   }
   long ms = 0;
   if (sscanf(source, "// sleep %ld", &ms) == 1) {
      sleepMs(ms);
      atomic_fetch_add(&fakeSleepsEnded, 1);
   }
   atomic_fetch_sub(&fakeInFlight, 1);
   out->seconds = 1e-3 * (double)ms;
   if (strstr(source, "FAIL")) {
      out->log = xStrdup("fake.cu(1): error: FAIL\n1 error detected\n");
      return -1;
   }
   out->log = xStrdup("");
   out->cubin = xStrdup(source);
   out->cubinSize = strlen(source) + 1;
   out->nkernels = 1;
   out->kernels = xCalloc(1, sizeof *out->kernels);
   snprintf(out->kernels[0].name, sizeof out->kernels[0].name, "fake");
   out->kernels[0].registers = (int)strlen(source);
   return 0;
}

static Builder *newBuilder(int threads, double timeout, int cacheEntries, BuilderCompileFn fn) {
   BuilderConfig cfg;
   BuilderConfig_default(&cfg);
   cfg.threads = threads;
   cfg.timeoutSeconds = timeout;
   cfg.cacheEntries = cacheEntries;
   cfg.compile = fn;
   char *cause = NULL;
   Builder *b = Builder_new(&cfg, &cause);
   if (!b)
      fail_msg("%s", cause);
   assert_int_equal(Builder_threads(b), threads);
   return b;
}

static void buildOne(Builder *b, BuildRequest *r, const char *source, const char *name) {
   memset(r, 0, sizeof *r);
   r->source = source;
   r->name = name;
   Builder_build(b, r, 1);
}

static void assertFakeOk(const BuildRequest *r, const char *source, bool cached) {
   if (r->error != MEASURE_OK)
      fail_msg("%s: %s", r->name, r->message ? r->message : MeasureError_name(r->error));
   assert_null(r->message);
   assert_null(r->log);
   assert_non_null(r->artifact);
   assert_string_equal(r->artifact->cubin, source);
   assert_int_equal(r->artifact->cubinSize, strlen(source) + 1);
   assert_int_equal(r->artifact->nkernels, 1);
   assert_int_equal(r->artifact->kernels[0].registers, (int)strlen(source));
   assert_int_equal(r->cached, cached);
}

/* Checks every count of the pool's statistics; returns them. */
static BuilderStats assertStats(const Builder *b, long compiled, long cacheHits, long errors,
                                long timeouts) {
   BuilderStats st;
   Builder_stats(b, &st);
   assert_int_equal(st.compiled, compiled);
   assert_int_equal(st.cacheHits, cacheHits);
   assert_int_equal(st.errors, errors);
   assert_int_equal(st.timeouts, timeouts);
   return st;
}

/* ---- without NVRTC ---- */

/* The pool's threads show as "build" in /proc (top -H, htop), and end with it. */
static void test_threadNames(void **state) {
   (void)state;
   assert_int_equal(TestUtil_threadsNamedSettle("build", 0), 0);
   Builder *b = newBuilder(3, 15, 0, fakeCompile);
   assert_int_equal(TestUtil_threadsNamedSettle("build", 3), 3);
   Builder_free(b);
   assert_int_equal(TestUtil_threadsNamedSettle("build", 0), 0);
}

static void test_config(void **state) {
   (void)state;
   BuilderConfig cfg;
   BuilderConfig_default(&cfg);
   assert_int_equal(cfg.threads, 0);
   assert_string_equal(cfg.arch, "sm_90");
   assert_true(cfg.timeoutSeconds == 15.0);
   assert_int_equal(cfg.cacheEntries, 4096);
   assert_null(cfg.compile);

   cfg.compile = fakeCompile;
   char *cause = NULL;
   Builder *b = Builder_new(&cfg, &cause);
   assert_non_null(b);
   assert_int_equal(Builder_threads(b), (int)sysconf(_SC_NPROCESSORS_ONLN));
   assertStats(b, 0, 0, 0, 0);
   Builder_build(b, NULL, 0);
   Builder_free(b);
   Builder_free(NULL);

   static const struct {
      const char *arch;
      int threads;
      double timeout;
      int cacheEntries;
      const char *message;
   } bad[] = {
      { "compute_90", 0, 15, 16,
        "builder: bad GPU architecture \"compute_90\": expected sm_ and 2 or 3 digits, such "
        "as sm_80 or sm_90" },
      { "sm_090", 0, 15, 16,
        "builder: bad GPU architecture \"sm_090\": expected sm_ and 2 or 3 digits, such as "
        "sm_80 or sm_90" },
      { "", 0, 15, 16,
        "builder: bad GPU architecture \"\": expected sm_ and 2 or 3 digits, such as sm_80 "
        "or sm_90" },
      { "sm_80", -1, 15, 16, "builder: threads must be from 0 (one per online core) to 1024, not -1" },
      { "sm_80", 2000, 15, 16, "builder: threads must be from 0 (one per online core) to 1024, not 2000" },
      { "sm_80", 1, 0, 16, "builder: the timeout must be a number of seconds above 0, not 0" },
      { "sm_80", 1, -2.5, 16, "builder: the timeout must be a number of seconds above 0, not -2.5" },
      { "sm_80", 1, 15, -1, "builder: cache entries must be 0 (no cache) or more, not -1" },
   };
   for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      BuilderConfig_default(&cfg);
      cfg.compile = fakeCompile;
      snprintf(cfg.arch, sizeof cfg.arch, "%s", bad[i].arch);
      cfg.threads = bad[i].threads;
      cfg.timeoutSeconds = bad[i].timeout;
      cfg.cacheEntries = bad[i].cacheEntries;
      cause = NULL;
      assert_null(Builder_new(&cfg, &cause));
      assert_string_equal(cause, bad[i].message);
      free(cause);
   }
   /* An arch that fills the field without a terminating NUL. */
   BuilderConfig_default(&cfg);
   cfg.compile = fakeCompile;
   memset(cfg.arch, '9', sizeof cfg.arch);
   cause = NULL;
   assert_null(Builder_new(&cfg, &cause));
   assert_string_equal(cause, "builder: bad GPU architecture \"9999999999999999\": expected sm_ "
                              "and 2 or 3 digits, such as sm_80 or sm_90");
   free(cause);
}

static void test_timeout(void **state) {
   (void)state;
   resetFake();
   Builder *b = newBuilder(2, 0.1, 16, fakeCompile);
   static const char slow[] = "// sleep 2000\nslow";
   BuildRequest r;
   double t0 = now();
   buildOne(b, &r, slow, "slow.cu");
   double waited = now() - t0;
   assert_int_equal(r.error, MEASURE_BUILD_TIMEOUT);
   assert_string_equal(r.message, "slow.cu: build timed out after 0.1 s");
   assert_null(r.log);
   assert_null(r.artifact);
   assert_false(r.cached);
   assert_true(r.seconds == 0.1);
   assert_true(waited >= 0.1 && waited < 1.5);
   assert_int_equal(atomic_load(&fakeSleepsEnded), 0);
   BuildRequest_done(&r);

   /* The other thread takes the next request. */
   buildOne(b, &r, "fast", "fast.cu");
   assertFakeOk(&r, "fast", false);
   BuildRequest_done(&r);
   assertStats(b, 1, 0, 0, 1);
   assert_int_equal(Builder_cached(b), 1);   /* "fast" only: a timeout is not cached */

   /* Freeing waits for the abandoned compile, which ends 2 s after it started. */
   Builder_free(b);
   assert_int_equal(atomic_load(&fakeSleepsEnded), 1);
   assert_true(now() - t0 >= 2.0);
   assert_int_equal(atomic_load(&fakeCalls), 2);
}

/* The timeout counts from when a thread starts a build, not from when it was asked. */
static void test_queueTimeNotCounted(void **state) {
   (void)state;
   resetFake();
   Builder *b = newBuilder(1, 0.6, 16, fakeCompile);
   BuildRequest r[3];
   memset(r, 0, sizeof r);
   r[0].source = "// sleep 300\nfirst";
   r[1].source = "// sleep 300\nsecond";
   r[2].source = "// sleep 300\nthird";
   double t0 = now();
   Builder_build(b, r, 3);
   assert_true(now() - t0 >= 0.9);
   for (int i = 0; i < 3; i++) {
      assertFakeOk(&r[i], r[i].source, false);
      assert_true(r[i].seconds == 0.3);
      BuildRequest_done(&r[i]);
   }
   assert_int_equal(atomic_load(&fakeMostInFlight), 1);
   Builder_free(b);
}

/* Four threads compile four programs at once; results come back in request order. */
static void test_concurrentInOrder(void **state) {
   (void)state;
   resetFake();
   Builder *b = newBuilder(4, 15, 0, fakeCompile);
   enum { N = 12 };
   BuildRequest r[N];
   char *sources[N];
   memset(r, 0, sizeof r);
   for (int i = 0; i < N; i++) {
      /* later requests are quicker, so they finish out of order */
      sources[i] = xAsprintf("// sleep %d\nprogram %d", 150 - 10 * i, i);
      r[i].source = sources[i];
   }
   Builder_build(b, r, N);
   assert_int_equal(atomic_load(&fakeMostInFlight), 4);
   assert_int_equal(atomic_load(&fakeCalls), N);
   for (int i = 0; i < N; i++) {
      assertFakeOk(&r[i], sources[i], false);
      BuildRequest_done(&r[i]);
      free(sources[i]);
   }
   BuilderStats st = assertStats(b, N, 0, 0, 0);
   assert_true(st.compileSeconds > 1.1 && st.compileSeconds < 1.2);  /* the sleeps' sum */
   assert_int_equal(Builder_cached(b), 0);
   Builder_free(b);
}

/* Two entries, least recently used out first. */
static void test_eviction(void **state) {
   (void)state;
   resetFake();
   Builder *b = newBuilder(1, 15, 2, fakeCompile);
   static const struct {
      const char *source;
      bool cached;
   } steps[] = {
      { "A", false }, { "B", false }, { "A", true },  /* A is now the newer */
      { "C", false },                                 /* evicts B */
      { "A", true },  { "B", false },                 /* evicts C */
      { "C", false },                                 /* evicts A */
      { "A", false },
   };
   BuildArtifact *firstA = NULL;
   for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
      BuildRequest r;
      buildOne(b, &r, steps[i].source, NULL);
      assertFakeOk(&r, steps[i].source, steps[i].cached);
      if (i == 0)
         firstA = BuildArtifact_retain(r.artifact);
      if (steps[i].source[0] == 'A' && steps[i].cached)
         assert_ptr_equal(r.artifact, firstA);
      if (i == 7)
         assert_ptr_not_equal(r.artifact, firstA);
      BuildRequest_done(&r);
   }
   /* Evicted from the cache, the artifact lives on while held. */
   assert_int_equal(atomic_load(&firstA->refs), 1);
   assert_string_equal(firstA->cubin, "A");
   BuildArtifact_release(firstA);
   assertStats(b, 6, 2, 0, 0);
   assert_int_equal(atomic_load(&fakeCalls), 6);
   assert_int_equal(Builder_cached(b), 2);
   Builder_free(b);
}

/* A request repeating an earlier one of the same call shares its compile, failure
 * included; with the cache off each is compiled. */
static void test_repeatsInOneCall(void **state) {
   (void)state;
   static const char *const sources[] = { "A", "B FAIL", "A", "B FAIL", "C" };
   enum { N = 5 };
   for (int cacheEntries = 16; cacheEntries >= 0; cacheEntries -= 16) {
      resetFake();
      Builder *b = newBuilder(2, 15, cacheEntries, fakeCompile);
      BuildRequest r[N];
      memset(r, 0, sizeof r);
      for (int i = 0; i < N; i++)
         r[i].source = sources[i];
      r[1].name = r[3].name = "b.cu";
      Builder_build(b, r, N);
      bool shared = cacheEntries > 0;
      assert_int_equal(atomic_load(&fakeCalls), shared ? 3 : 5);
      assertFakeOk(&r[0], "A", false);
      assertFakeOk(&r[2], "A", shared);
      assertFakeOk(&r[4], "C", false);
      if (shared)
         assert_ptr_equal(r[2].artifact, r[0].artifact);
      else
         assert_ptr_not_equal(r[2].artifact, r[0].artifact);
      for (int i = 1; i <= 3; i += 2) {
         assert_int_equal(r[i].error, MEASURE_COMPILE_ERROR);
         /* the stand-in gives no cause: the pool says what failed */
         assert_string_equal(r[i].message, "b.cu: compilation failed for sm_90");
         assert_string_equal(r[i].log, "fake.cu(1): error: FAIL\n1 error detected\n");
         assert_null(r[i].artifact);
         assert_int_equal(r[i].cached, shared && i == 3);
      }
      assertStats(b, shared ? 3 : 5, shared ? 2 : 0, 2, 0);
      for (int i = 0; i < N; i++)
         BuildRequest_done(&r[i]);
      Builder_free(b);
   }
}

/* ---- with NVRTC ---- */

static Builder *nvrtcBuilder(int threads, int cacheEntries) {
   return newBuilder(threads, 120, cacheEntries, NULL);
}

/* A kernel from the code generator: tiled dense 8x64x16 with bias and relu. */
static void test_generatedKernel(void **state) {
   (void)state;
   char *path = TestUtil_srcPath("tests/data/dense-8x64x16.cu");
   char *source = TestUtil_readFile(path);
   free(path);
   Builder *b = nvrtcBuilder(2, 16);
   BuildRequest r;
   buildOne(b, &r, source, "dense.cu");
   if (r.error != MEASURE_OK)
      fail_msg("%s\n%s", r.message, r.log ? r.log : "");
   assert_false(r.cached);
   assert_null(r.message);
   const BuildArtifact *a = r.artifact;
   assert_true(a->cubinSize > 64);
   assert_memory_equal(a->cubin, "\x7f" "ELF", 4);
   assert_int_equal(a->nkernels, 1);
   assert_string_equal(a->kernels[0].name, "T_relu_kernel");
   assert_int_equal(a->kernels[0].sharedBytes, 1152);  /* 32 + 256 floats */
   assert_true(a->kernels[0].registers > 0);
   assert_non_null(strstr(a->log, "Compiling entry function 'T_relu_kernel' for 'sm_90'"));
   assert_true(r.seconds > 0 && r.seconds == a->seconds);

   NvrtcResult direct;
   char *cause = NULL;
   if (Nvrtc_compile(source, "dense.cu", "sm_90", &direct, &cause) != 0)
      fail_msg("%s", cause);
   assert_int_equal(a->kernels[0].registers, direct.kernels[0].registers);
   assert_int_equal(a->kernels[0].stackBytes, direct.kernels[0].stackBytes);
   assert_int_equal(a->cubinSize, direct.cubinSize);
   NvrtcResult_done(&direct);

   BuilderStats st = assertStats(b, 1, 0, 0, 0);
   assert_true(st.compileSeconds == r.seconds);
   BuildRequest_done(&r);
   Builder_free(b);
   free(source);
}

static const char elementwise[] =
   "extern \"C\" __global__ void add(const float *a, const float *b, float *c, int n) {\n"
   "   int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
   "   if (i < n) c[i] = a[i] + b[i];\n"
   "}\n";

static void test_cacheHitPerArch(void **state) {
   (void)state;
   Builder *b = nvrtcBuilder(2, 16);
   BuildRequest first, again, other, otherAgain;
   buildOne(b, &first, elementwise, "add.cu");
   buildOne(b, &again, elementwise, "add.cu");
   assert_int_equal(first.error, MEASURE_OK);
   assert_int_equal(again.error, MEASURE_OK);
   assert_false(first.cached);
   assert_true(again.cached);
   assert_ptr_equal(again.artifact, first.artifact);
   assert_true(again.seconds == 0);
   assert_int_equal(atomic_load(&first.artifact->refs), 3);  /* the cache and two requests */
   assertStats(b, 1, 1, 0, 0);

   /* The same text for another architecture is another program. */
   memset(&other, 0, sizeof other);
   other.source = elementwise;
   other.name = "add.cu";
   other.arch = "sm_80";
   otherAgain = other;
   Builder_build(b, &other, 1);
   Builder_build(b, &otherAgain, 1);
   assert_int_equal(other.error, MEASURE_OK);
   assert_false(other.cached);
   assert_ptr_not_equal(other.artifact, first.artifact);
   assert_non_null(strstr(other.artifact->log, "for 'sm_80'"));
   assert_non_null(strstr(first.artifact->log, "for 'sm_90'"));
   assert_true(otherAgain.cached);
   assert_ptr_equal(otherAgain.artifact, other.artifact);
   assertStats(b, 2, 2, 0, 0);
   assert_int_equal(Builder_cached(b), 2);

   BuildRequest_done(&first);
   BuildRequest_done(&again);
   BuildRequest_done(&other);
   Builder_free(b);
   /* The request's reference outlives the pool. */
   assert_int_equal(atomic_load(&otherAgain.artifact->refs), 1);
   assert_memory_equal(otherAgain.artifact->cubin, "\x7f" "ELF", 4);
   BuildRequest_done(&otherAgain);
   assert_null(otherAgain.artifact);
   assert_string_equal(otherAgain.source, elementwise);
}

static void test_compileError(void **state) {
   (void)state;
   static const char bad[] = "extern \"C\" __global__ void f(float *c) {\n"
                             "   c[0] = undeclared;\n"
                             "}\n";
   NvrtcResult direct;
   char *directCause = NULL;
   assert_int_equal(Nvrtc_compile(bad, "bad.cu", "sm_90", &direct, &directCause), -1);

   Builder *b = nvrtcBuilder(1, 16);
   for (int round = 0; round < 2; round++) {
      BuildRequest r;
      buildOne(b, &r, bad, "bad.cu");
      assert_int_equal(r.error, MEASURE_COMPILE_ERROR);
      assert_int_equal(r.cached, round == 1);
      assert_null(r.artifact);
      const char *prefix = "bad.cu: compilation failed for sm_90: ";
      assert_memory_equal(r.message, prefix, strlen(prefix));
      assert_non_null(strstr(r.message, "bad.cu(2): error: identifier \"undeclared\" is undefined"));
      assert_null(strchr(r.message, '\n'));
      assert_string_equal(r.message, directCause);
      assert_string_equal(r.log, direct.log);
      assert_non_null(strstr(r.log, "error"));
      if (round == 0)
         assert_true(r.seconds > 0);
      else
         assert_true(r.seconds == 0);
      BuildRequest_done(&r);
   }
   assertStats(b, 1, 1, 2, 0);
   Builder_free(b);
   free(directCause);
   NvrtcResult_done(&direct);
}

/* 64 distinct programs on three threads: each result is its own request's. */
static void test_manyRequests(void **state) {
   (void)state;
   enum { N = 64 };
   Builder *b = nvrtcBuilder(3, 4096);
   BuildRequest r[N];
   char *sources[N], *names[N];
   memset(r, 0, sizeof r);
   for (int i = 0; i < N; i++) {
      sources[i] = xAsprintf("extern \"C\" __global__ void k_%d(const float *a, float *c) {\n"
                             "   int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                             "   c[i] = a[i] * %d.0f + a[i + %d];\n"
                             "}\n",
                             i, i + 1, i);
      names[i] = xAsprintf("k_%d.cu", i);
      r[i].source = sources[i];
      r[i].name = names[i];
   }
   Builder_build(b, r, N);
   for (int i = 0; i < N; i++) {
      if (r[i].error != MEASURE_OK)
         fail_msg("%s: %s", names[i], r[i].message);
      assert_false(r[i].cached);
      assert_memory_equal(r[i].artifact->cubin, "\x7f" "ELF", 4);
      assert_int_equal(r[i].artifact->nkernels, 1);
      char want[16];
      snprintf(want, sizeof want, "k_%d", i);
      assert_string_equal(r[i].artifact->kernels[0].name, want);
      BuildRequest_done(&r[i]);
      free(sources[i]);
      free(names[i]);
   }
   assertStats(b, N, 0, 0, 0);
   assert_int_equal(Builder_cached(b), N);
   Builder_free(b);
}

int main(void) {
   struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threadNames),
      cmocka_unit_test(test_config),
      cmocka_unit_test(test_timeout),
      cmocka_unit_test(test_queueTimeNotCounted),
      cmocka_unit_test(test_concurrentInOrder),
      cmocka_unit_test(test_eviction),
      cmocka_unit_test(test_repeatsInOneCall),
      /* From here on NVRTC is needed. */
      cmocka_unit_test(test_generatedKernel),
      cmocka_unit_test(test_cacheHitPerArch),
      cmocka_unit_test(test_compileError),
      cmocka_unit_test(test_manyRequests),
   };
   return TestUtil_runGroup("builder", tests, sizeof tests / sizeof tests[0], 6);
}
