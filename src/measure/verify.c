/* Verification of loop nests on the CPU executor: a task's inputs and reference output
 * made once, then any number of nests run and compared against them. */
#include "config.h"

#include "measure/verify.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/exec.h"
#include "te/dag.h"
#include "te/ref.h"
#include "util/rng.h"
#include "util/xalloc.h"

struct VerifyTask_ {
   int ninputs;
   float *inputs[OP_MAX_INPUTS];   /* Op_inputShape order */
   float *want;
   int64_t outElems;
   double rms;                     /* of the reference output; 1 when it is all zeros */
   double flops;                   /* of the task */
   double tolerance;
   int sampleBlocks;
   bool fullGrid;
   long reduceLength;              /* the longest reduction of the task's DAG */
   double slope;                   /* how much the fused epilogue may stretch an error */
   int nepilogue;
   Epilogue epilogue[OP_MAX_EPILOGUE];
};

/* The largest slope of an epilogue, |f(x) - f(y)| <= slope |x - y|: GELU's derivative
 * peaks at 1.129 (x = sqrt 2), hardswish's (2x + 3) / 6 at 1.5 (x = 3), the sigmoid's at
 * 1/4, the hard sigmoid's is 1/6; the additions and clamps pass an error unchanged. */
static double epilogueSlope(EpilogueKind k) {
   switch (k) {
   case EPI_GELU: return 1.13;
   case EPI_HARDSWISH: return 1.5;
   case EPI_SIGMOID: return 0.25;
   case EPI_HARDSIGMOID: return 1.0 / 6;
   default: return 1;
   }
}

static long longestReduction(const OpParams *op) {
   Dag g;
   Dag_init(&g);
   Op_buildDag(op, &g);
   long longest = 0;
   for (int s = 0; s < g.nstages; s++) {
      long k = g.stages[s].nreduce ? 1 : 0;
      for (int r = 0; r < g.stages[s].nreduce; r++)
         k *= (long)g.stages[s].rextent[r];
      longest = k > longest ? k : longest;
   }
   Dag_done(&g);
   return longest;
}

double Verify_predictOpError(const OpParams *op, Precision p) {
   return Precision_predictError(p, longestReduction(op), (double)Op_outputElems(op), op->epilogue, op->nepilogue);
}

VerifyTask *VerifyTask_new(const OpParams *op, uint64_t seed, double tolerance, int sampleBlocks,
                           bool fullGrid) {
   VerifyTask *t = xCalloc(1, sizeof *t);
   t->tolerance = tolerance;
   t->sampleBlocks = sampleBlocks;
   t->fullGrid = fullGrid;
   t->flops = Op_flops(op);
   t->reduceLength = longestReduction(op);
   t->slope = 1;
   t->nepilogue = op->nepilogue;
   memcpy(t->epilogue, op->epilogue, sizeof t->epilogue);
   for (int i = 0; i < op->nepilogue; i++)
      t->slope *= epilogueSlope(op->epilogue[i].kind);
   /* values in [-1, 1): an all-zero input would let many wrong kernels pass */
   Rng rng;
   Rng_seed(&rng, seed);
   t->ninputs = Op_numInputs(op);
   for (int i = 0; i < t->ninputs; i++) {
      int64_t n = Op_inputElems(op, i);
      t->inputs[i] = xMalloc((size_t)n * sizeof(float));
      for (int64_t e = 0; e < n; e++)
         t->inputs[i][e] = (float)(2.0 * Rng_uniform(&rng) - 1.0);
   }
   t->outElems = Op_outputElems(op);
   t->want = xMalloc((size_t)t->outElems * sizeof(float));
   Ref_run(op, (const float *const *)t->inputs, t->want);
   double sq = 0;
   for (int64_t e = 0; e < t->outElems; e++)
      sq += (double)t->want[e] * t->want[e];
   t->rms = sqrt(sq / (double)t->outElems);
   if (t->rms == 0)
      t->rms = 1;
   return t;
}

double VerifyTask_bytes(const OpParams *op) {
   Dag g;
   Dag_init(&g);
   Op_buildDag(op, &g);
   double elems = 0;
   for (int s = 0; s < g.nstages; s++) {
      double n = 1;
      for (int d = 0; d < g.stages[s].ndim; d++)
         n *= (double)g.stages[s].shape[d];
      elems += n;
   }
   Dag_done(&g);
   return elems * sizeof(float) + (double)Op_outputElems(op) * (sizeof(float) + 1);
}

int VerifyTask_fits(const OpParams *op, int task, double limit, char **cause) {
   double bytes = VerifyTask_bytes(op);
   if (limit <= 0 || bytes <= limit)
      return 0;
   return setCause(cause, "task %d needs %.1f GiB of buffers for its CPU check, over the limit of %.1f GiB", task,
                   bytes / (1 << 30), limit / (1 << 30));
}

void VerifyTask_free(VerifyTask *t) {
   if (!t)
      return;
   for (int i = 0; i < t->ninputs; i++)
      free(t->inputs[i]);
   free(t->want);
   free(t);
}

const float *const *VerifyTask_inputs(const VerifyTask *t) {
   return (const float *const *)t->inputs;
}

const float *VerifyTask_reference(const VerifyTask *t, int64_t *elems) {
   if (elems)
      *elems = t->outElems;
   return t->want;
}

void VerifyResult_done(VerifyResult *r) {
   free(r->why);
   memset(r, 0, sizeof *r);
}

/* The last kernel's blocks to run: the first, the last and random ones in between, as
 * many as --blocks asks and the work budget allows (a grid of a few big blocks would
 * otherwise run most of the task on the CPU). Returns how many it wrote. */
static int pickBlocks(const VerifyTask *t, int64_t grid, uint64_t seed, int64_t *blocks) {
   int n = 0;
   blocks[n++] = 0;
   blocks[n++] = grid - 1;
   double perBlock = t->flops / (double)grid;
   int64_t affordable = (int64_t)(VERIFY_WORK_BUDGET / perBlock) - 2;
   int extra = affordable < t->sampleBlocks ? (int)(affordable > 0 ? affordable : 0) : t->sampleBlocks;
   Rng rng;
   Rng_seed(&rng, seed);
   for (int i = 0; i < extra; i++)
      blocks[n++] = 1 + (int64_t)Rng_below(&rng, (uint64_t)(grid - 2));
   return n;
}

double VerifyTask_allowance(const VerifyTask *t, Precision p) {
   if (p == PRECISION_FP32)
      return 0;
   long k = t->reduceLength;
   return t->slope * Precision_dotErrorBound(p, k, (double)k, 2.0 * (double)k);
}

double VerifyTask_predictError(const VerifyTask *t, Precision p, int64_t compared) {
   return Precision_predictError(p, t->reduceLength, (double)compared, t->epilogue, t->nepilogue);
}

/* The coarsest precision of the nest's Tensor-Core operands; FP32 when it has none. */
static Precision nestPrecision(const LoopNest *ln) {
   Precision p = PRECISION_FP32;
   for (int32_t s = 0; s < ln->nstmt; s++) {
      const IrStmt *st = &ln->stmt[s];
      if (st->kind == STMT_MMA && Precision_unitRoundoff((Precision)st->precision) > Precision_unitRoundoff(p))
         p = (Precision)st->precision;
   }
   return p;
}

/* Compares the written output elements with the reference, allowing `allowance` more
 * than the tolerance at each; the first that differs becomes res->why. */
static void compare(const VerifyTask *t, const float *got, const uint8_t *written, double allowance,
                    VerifyResult *res) {
   res->bound = t->tolerance + allowance / t->rms;
   for (int64_t i = 0; i < t->outElems && !res->why; i++) {
      if (!written[i])
         continue;
      res->compared++;
      double g = got[i], w = t->want[i];
      /* relative error at the scale of the output: an element that cancels to nearly
       * zero is judged against the output's RMS, not against itself */
      double scale = fabs(w) > t->rms ? fabs(w) : t->rms;
      double err = fabs(g - w);
      if (err / t->rms > res->maxError || isnan(err))
         res->maxError = err / t->rms;
      if (!(err <= t->tolerance * scale + allowance))
         res->why = allowance > 0 ? xAsprintf("element %lld of the output is %.8g, the reference %.8g: off by %.3g, over the %s bound %.3g",
                                              (long long)i, g, w, err, Precision_name(res->precision),
                                              t->tolerance * scale + allowance)
                                  : xAsprintf("element %lld of the output is %.8g, the reference %.8g (relative error %.2g)",
                                              (long long)i, g, w, err / scale);
   }
   if (!res->why && res->compared == 0)
      res->why = xStrdup("the blocks run wrote no output element");
}

int Verify_loopNest(const VerifyTask *t, const LoopNest *ln, uint64_t sampleSeed, VerifyResult *res) {
   memset(res, 0, sizeof *res);
   int out = -1;
   for (int b = 0; b < ln->nbuffers; b++)
      if (ln->buffers[b].scope == SCOPE_GLOBAL && ln->buffers[b].output)
         out = b;
   if (out < 0 || ln->nkernels == 0 || ln->buffers[out].elems != t->outElems) {
      res->why = xStrdup("the loop nest has no output buffer of the task's output size");
      return -1;
   }
   float *globals[IR_MAX_BUFFERS];
   Exec_bindGlobals(ln, (float *const *)t->inputs, globals);
   uint8_t *written = xCalloc((size_t)t->outElems, 1);
   Exec *x = Exec_new(ln);
   char *cause = NULL;
   int rc = 0;
   int last = ln->nkernels - 1;
   const IrKernel *lk = &ln->kernels[last];
   res->grid = lk->grid;
   bool sample = !t->fullGrid && lk->grid > t->sampleBlocks + 2;
   int64_t *blocks = NULL, *fed = NULL;
   int n = 0, nfed = 0;
   if (sample) {
      blocks = xCalloc((size_t)t->sampleBlocks + 2, sizeof *blocks);
      n = pickBlocks(t, lk->grid, sampleSeed, blocks);
      if (lk->gathers > 0 && last > 0) {
         /* a split-K sum reads only its own tile's partials: those blocks alone run */
         fed = xCalloc((size_t)n * (size_t)lk->gathers, sizeof *fed);
         int64_t tiles = lk->grid / lk->gatherSpan;
         for (int b = 0; b < n; b++)
            for (int64_t i = 0; i < lk->gathers; i++)
               fed[nfed++] = blocks[b] / lk->gatherSpan + i * tiles;
      }
   }
   for (int k = 0; k < ln->nkernels && rc == 0; k++) {
      if (k == last && sample) {
         rc = Exec_run(x, k, globals, blocks, n, written, &cause);
         res->blocksRun = n;
      } else if (k == last - 1 && fed) {
         rc = Exec_run(x, k, globals, fed, nfed, NULL, &cause);
      } else {
         /* kernels before the last produce what the last one reads anywhere */
         rc = Exec_run(x, k, globals, NULL, 0, k == last ? written : NULL, &cause);
         if (k == last)
            res->blocksRun = lk->grid;
      }
   }
   free(blocks);
   free(fed);
   if (rc < 0) {
      res->why = xAsprintf("CPU executor: %s", cause);
      free(cause);
   } else {
      res->precision = nestPrecision(ln);
      compare(t, globals[out], written, VerifyTask_allowance(t, res->precision), res);
      res->predicted = VerifyTask_predictError(t, res->precision, res->compared);
   }
   Exec_free(x);
   free(written);
   Exec_releaseGlobals(ln, globals);
   res->ok = !res->why;
   return res->ok ? 0 : -1;
}
