/* Loop nests compiled to native code (ir/native.h) against the interpreter, their
 * reference: for every task of tests/data/every-kind.task, sampled and mutated states
 * of every sketch and the reference program give the same output bit for bit; an
 * access outside a buffer is reported as a failure; a nest with a Tensor Core mma is
 * left to the interpreter; the C compiler's failure is a message. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "ir/exec.h"
#include "ir/lower.h"
#include "ir/native.h"
#include "te/network.h"
#include "util/rng.h"
#include "util/xalloc.h"

/* The output of every kernel of ln run in order, on the interpreter or (lib's nest i)
 * compiled; inputs filled from seed. Returns the output buffer (caller frees) and its
 * length in *n; NULL when a run failed. */
static float *runNest(const LoopNest *ln, const NativeLib *lib, int i, uint64_t seed, int64_t *n) {
   float *inputs[IR_MAX_BUFFERS] = { 0 };
   int in = 0, out = -1;
   for (int b = 0; b < ln->nbuffers; b++) {
      const IrBuffer *bf = &ln->buffers[b];
      if (bf->scope != SCOPE_GLOBAL)
         continue;
      if (bf->output)
         out = b;
      if (bf->input) {
         inputs[in] = xMalloc((size_t)bf->elems * sizeof(float));
         TestUtil_fillRandom(inputs[in], (size_t)bf->elems, seed + (uint64_t)in, -1.0f, 1.0f);
         in++;
      }
   }
   float *globals[IR_MAX_BUFFERS];
   Exec_bindGlobals(ln, inputs, globals);
   bool ok = true;
   Exec *x = lib ? NULL : Exec_new(ln);
   for (int k = 0; k < ln->nkernels && ok; k++) {
      if (lib) {
         NativeKernel f = NativeLib_kernel(lib, i, k);
         assert_non_null(f);
         ok = f(globals) == 0;
      } else {
         char *cause = NULL;
         ok = Exec_run(x, k, globals, NULL, 0, NULL, &cause) == 0;
         free(cause);
      }
   }
   Exec_free(x);
   assert_true(out >= 0);
   *n = ln->buffers[out].elems;
   float *r = ok ? xMalloc((size_t)*n * sizeof(float)) : NULL;
   if (r)
      memcpy(r, globals[out], (size_t)*n * sizeof(float));
   Exec_releaseGlobals(ln, globals);
   for (int k = 0; k < in; k++)
      free(inputs[k]);
   return r;
}

#define STATES_PER_SKETCH 3

static void test_compiled_equals_interpreted(void **state) {
   (void)state;
   Network net;
   TestUtil_loadNetwork(&net, "tests/data/every-kind.task");
   SchedLimits lim;
   SchedLimits_default(&lim);
   Rng rng;
   Rng_seed(&rng, 39);
   /* every nest first, then one compile of them all */
   int cap = 0, n = 0;
   LoopNest *nests = NULL;
   int *taskOf = NULL;
   for (int t = 0; t < net.ntasks; t++) {
      SketchSet set;
      SketchSet_forOp(&set, &net.tasks[t].op);
      int want = set.count * STATES_PER_SKETCH + 1;
      if (n + want > cap) {
         cap = (n + want) * 2;
         nests = xReallocArray(nests, (size_t)cap, sizeof *nests);
         taskOf = xReallocArray(taskOf, (size_t)cap, sizeof *taskOf);
      }
      LoopNest_init(&nests[n]);
      Lower_reference(&set, &nests[n]);
      taskOf[n++] = t;
      for (int i = 0; i < set.count * STATES_PER_SKETCH; i++) {
         State s;
         char *cause = NULL;
         if (State_sampleValid(&set, i % set.count, &rng, &lim, 10000, &s, &cause) < 0)
            fail_msg("task %d: %s", t, cause);
         for (int m = 0; m < i % 3; m++)
            State_mutate(&set, &s, &rng, &lim);
         LoopNest_init(&nests[n]);
         Lower_state(&set, &s, &nests[n]);
         taskOf[n++] = t;
      }
      SketchSet_done(&set);
   }
   const LoopNest **ptrs = xMalloc((size_t)n * sizeof *ptrs);
   for (int i = 0; i < n; i++)
      ptrs[i] = &nests[i];
   char *cause = NULL;
   NativeLib *lib = NativeLib_build(ptrs, n, &cause);
   if (!lib)
      fail_msg("%s", cause);
   int compared = 0;
   for (int i = 0; i < n; i++) {
      if (!NativeLib_kernel(lib, i, 0))
         fail_msg("nest %d (task %d) was not compiled", i, taskOf[i]);
      int64_t na, nb;
      float *a = runNest(&nests[i], NULL, i, 7 + (uint64_t)taskOf[i], &na);
      float *b = runNest(&nests[i], lib, i, 7 + (uint64_t)taskOf[i], &nb);
      if (!a || !b)
         fail_msg("nest %d (task %d): the %s failed", i, taskOf[i], !a ? "interpreter" : "compiled code");
      assert_int_equal(na, nb);
      for (int64_t e = 0; e < na; e++)
         if (memcmp(&a[e], &b[e], sizeof(float)) != 0)
            fail_msg("nest %d (task %d, %s): element %lld is %.9g compiled, %.9g interpreted", i, taskOf[i],
                     net.tasks[taskOf[i]].key, (long long)e, (double)b[e], (double)a[e]);
      compared++;
      free(a);
      free(b);
   }
   /* 25 tasks, each with its reference program and 3 states of each sketch */
   assert_true(compared > 25 * 4);
   NativeLib_free(lib);
   for (int i = 0; i < n; i++)
      LoopNest_done(&nests[i]);
   free(nests);
   free(ptrs);
   free(taskOf);
   Network_done(&net);
}

/* A hand-made kernel of one block of `threads` threads: out[threadIdx.x] = value, for
 * an output of 4 elements. */
static void storeKernel(LoopNest *ln, int64_t threads, double value) {
   LoopNest_init(ln);
   int64_t shape[1] = { 4 };
   int out = Ir_buffer(ln, "out", SCOPE_GLOBAL, 0, -1, 1, shape);
   ln->buffers[out].output = true;
   IrKernel *k = Ir_kernel(ln, "store", 0, 1, threads);
   k->body = Ir_store(ln, out, Ir_varRef(ln, k->threadVar), Ir_float(ln, value));
}

/* A kernel that stores past its buffer's end: the compiled function fails, as the
 * interpreter does, and stores nothing outside. */
static void test_out_of_bounds_fails(void **state) {
   (void)state;
   LoopNest ln;
   storeKernel(&ln, 8, 1.0);
   const LoopNest *p = &ln;
   char *cause = NULL;
   NativeLib *lib = NativeLib_build(&p, 1, &cause);
   if (!lib)
      fail_msg("%s", cause);
   float buf[8] = { 0 };
   float *globals[IR_MAX_BUFFERS] = { buf };
   assert_int_equal(NativeLib_kernel(lib, 0, 0)(globals), -1);
   for (int i = 0; i < 4; i++)
      assert_true(buf[i] == 1.0f);
   for (int i = 4; i < 8; i++)
      assert_true(buf[i] == 0.0f);
   NativeLib_free(lib);
   LoopNest_done(&ln);
}

static void test_compiler_failure_is_a_message(void **state) {
   (void)state;
   LoopNest ln;
   storeKernel(&ln, 4, 2.0);
   const char *old = getenv("CC");
   char *saved = old ? xStrdup(old) : NULL;
   setenv("CC", "/nonexistent/cc", 1);
   const LoopNest *p = &ln;
   char *cause = NULL;
   assert_null(NativeLib_build(&p, 1, &cause));
   assert_non_null(cause);
   assert_true(strncmp(cause, "native code: the C compiler (/nonexistent/cc) failed", 52) == 0);
   free(cause);
   if (saved)
      setenv("CC", saved, 1);
   else
      unsetenv("CC");
   free(saved);
   LoopNest_done(&ln);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_compiled_equals_interpreted),
      cmocka_unit_test(test_out_of_bounds_fails),
      cmocka_unit_test(test_compiler_failure_is_a_message),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
