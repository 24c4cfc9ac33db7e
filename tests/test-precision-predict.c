/* The predicted rounding error of Tensor-Core states against the error they show: for
 * every shipped network, the first dense, batch_matmul and conv2d task of each op and
 * epilogue it has, one sampled state in each of FP16, BF16 and TF32 runs on the CPU
 * executor as `check` runs it, and its largest error over the reference's RMS lies
 * within a factor 2 of Precision_predictError for it. */
#include "config.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "ir/lower.h"
#include "measure/verify.h"
#include "te/network.h"
#include "util/rng.h"
#include "util/xalloc.h"

static const Precision tensorCore[] = { PRECISION_FP16, PRECISION_BF16, PRECISION_TF32 };

typedef struct {
   int states;
   double low, high;           /* of measured over predicted */
} Ratios;

static bool sameEpilogue(const OpParams *a, const OpParams *b) {
   if (a->kind != b->kind || a->nepilogue != b->nepilogue)
      return false;
   for (int i = 0; i < a->nepilogue; i++)
      if (a->epilogue[i].kind != b->epilogue[i].kind)
         return false;
   return true;
}

/* The first task of its op and epilogue in the network. */
static bool firstOfItsKind(const Network *net, int t) {
   for (int s = 0; s < t; s++)
      if (sameEpilogue(&net->tasks[s].op, &net->tasks[t].op))
         return false;
   return true;
}

static void checkTask(const char *file, const Task *task, int t, Ratios *r) {
   SketchOptions opt = { PRECISION_BIT(PRECISION_FP16) | PRECISION_BIT(PRECISION_BF16) | PRECISION_BIT(PRECISION_TF32), false };
   SketchSet set;
   SketchSet_forOpWith(&set, &task->op, &opt);
   VerifyTask *vt = VerifyTask_new(&task->op, 7919 + (uint64_t)t, VERIFY_TOLERANCE, 1, task->flops <= VERIFY_FULL_FLOPS);
   SchedLimits lim;
   SchedLimits_default(&lim);
   LoopNest ln;
   LoopNest_init(&ln);
   for (size_t i = 0; i < sizeof tensorCore / sizeof *tensorCore; i++) {
      Precision p = tensorCore[i];
      int sketch = -1;
      for (int s = 0; s < set.count; s++)
         if (set.sketches[s].precision == p)
            sketch = s;
      if (sketch < 0)
         continue;
      Rng rng;
      Rng_seed(&rng, 1 + 104729ull * (uint64_t)t + 15485863ull * (uint64_t)p);
      State st;
      char *cause = NULL;
      if (State_sampleValid(&set, sketch, &rng, &lim, 100000, &st, &cause) < 0)
         fail_msg("%s task %d: no valid %s state: %s", file, t, Precision_name(p), cause);
      Lower_state(&set, &st, &ln);
      VerifyResult v;
      if (Verify_loopNest(vt, &ln, State_hash(&st), &v) < 0)
         fail_msg("%s task %d in %s: %s", file, t, Precision_name(p), v.why);
      double ratio = v.maxError / v.predicted;
      printf("# %-22s task %3d  %-12s %-4s  compared %8lld  error %.3e  predicted %.3e  ratio %.2f\n", file,
             t, Op_name(task->op.kind), Precision_name(p), (long long)v.compared, v.maxError, v.predicted,
             ratio);
      if (!(ratio >= 0.5 && ratio <= 2))
         fail_msg("%s task %d in %s: largest error %.3e, predicted %.3e (ratio %.2f, outside [0.5, 2])", file, t,
                  Precision_name(p), v.maxError, v.predicted, ratio);
      r->low = r->states == 0 || ratio < r->low ? ratio : r->low;
      r->high = ratio > r->high ? ratio : r->high;
      r->states++;
      VerifyResult_done(&v);
   }
   LoopNest_done(&ln);
   VerifyTask_free(vt);
   SketchSet_done(&set);
}

static int byName(const struct dirent **a, const struct dirent **b) {
   return strcmp((*a)->d_name, (*b)->d_name);
}

static int taskFile(const struct dirent *e) {
   size_t n = strlen(e->d_name);
   return n > 5 && strcmp(e->d_name + n - 5, ".task") == 0;
}

static void test_predicted_within_factor_two(void **state) {
   (void)state;
   char *dir = TestUtil_srcPath("models");
   struct dirent **names;
   int nfiles = scandir(dir, &names, taskFile, byName);
   free(dir);
   assert_int_equal(nfiles, 13);
   Ratios r = { 0 };
   int tasks = 0;
   for (int f = 0; f < nfiles; f++) {
      char *rel = xAsprintf("models/%s", names[f]->d_name);
      Network net;
      TestUtil_loadNetwork(&net, rel);
      for (int t = 0; t < net.ntasks; t++) {
         OpKind kind = net.tasks[t].op.kind;
         if ((kind == OP_DENSE || kind == OP_BATCH_MATMUL || kind == OP_CONV2D) && firstOfItsKind(&net, t)) {
            checkTask(names[f]->d_name, &net.tasks[t], t, &r);
            tasks++;
         }
      }
      Network_done(&net);
      free(rel);
      free(names[f]);
   }
   free(names);
   printf("# %d tasks, %d states: error over predicted %.2f to %.2f\n", tasks, r.states, r.low, r.high);
   assert_true(r.states >= 2 * tasks);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_predicted_within_factor_two),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
