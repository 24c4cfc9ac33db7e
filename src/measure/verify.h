/* Verification without a GPU: a lowered loop nest runs on the CPU executor (ir/exec.h)
 * over a task's seeded random inputs and its output is compared with the op's C
 * reference. It serves `pruner-tui check` and measurement on the simulator, where no GPU
 * checks the answer, so that a wrong kernel is a wrong answer with or without a GPU.
 *
 * Large tasks are not run in full: the kernels before the last run every block (they
 * produce what the last one may read anywhere), the last one runs its first and last
 * block and up to `sampleBlocks` random ones, fewer when its blocks are so large that
 * they would exceed VERIFY_WORK_BUDGET FLOPs of work. Only the output elements the
 * blocks run wrote are compared.
 *
 * A nest whose matrix multiply runs on the Tensor Cores rounds its operands, so its
 * output may lie further from the FP32 reference than the tolerance: by what
 * VerifyTask_allowance gives its precision, on top. */
#ifndef HEADER_verify
#define HEADER_verify

#include <stdbool.h>
#include <stdint.h>

#include "ir/loopnest.h"
#include "te/op.h"
#include "te/precision.h"

/* The memory a task's CPU check may take unless a command says otherwise: what a
 * laptop can spare. */
#define VERIFY_DEFAULT_MAX_MEMORY (2.0 * (1 << 30))
/* The largest relative error an output element may have against the reference, at the
 * scale max(|reference element|, RMS of the reference output). */
#define VERIFY_TOLERANCE 1e-4
/* Tasks of at most this many FLOPs are worth running over the whole grid. */
#define VERIFY_FULL_FLOPS 2e7
/* About how many FLOPs the sampled blocks of the last kernel may run. */
#define VERIFY_WORK_BUDGET 4e7

/* One task's inputs and reference output; read-only once made, so threads share it. */
typedef struct VerifyTask_ VerifyTask;

/* Makes the inputs of op (seeded values in [-1, 1), in Op_inputShape order), runs the
 * C reference on them, and keeps its output and RMS. fullGrid runs every block of the
 * last kernel; otherwise it is sampled (above). */
VerifyTask *VerifyTask_new(const OpParams *op, uint64_t seed, double tolerance, int sampleBlocks,
                           bool fullGrid);
void VerifyTask_free(VerifyTask *t);
/* The most memory VerifyTask_new and Verify_loopNest hold for op: every tensor of its
 * DAG (inputs, intermediates, output) plus the reference output and its marks. Known
 * before anything is allocated, so that a task too large for the machine is refused. */
double VerifyTask_bytes(const OpParams *op);
/* "task T needs X GiB of buffers for its CPU check, over the limit of Y GiB" into *cause
 * when VerifyTask_bytes(op) exceeds limit bytes (0: no limit); -1 then, else 0. */
int VerifyTask_fits(const OpParams *op, int task, double limit, char **cause);

/* How much further than the tolerance an output element of a nest whose operands are
 * rounded to p may lie from the reference: Precision_dotErrorBound of the task's longest
 * reduction of k terms with P <= k and Q <= 2k (every input lies in [-1, 1)), times the
 * largest slope of the fused epilogue. 0 for FP32. */
double VerifyTask_allowance(const VerifyTask *t, Precision p);

/* The largest error, over the reference's RMS, that `compared` output elements of a nest
 * whose operands are rounded to p are expected to show: Precision_predictError of the
 * task's longest reduction and its epilogue. */
double VerifyTask_predictError(const VerifyTask *t, Precision p, int64_t compared);

/* VerifyTask_predictError over the whole output of op, known before anything is made:
 * what the error bound of a search (--max-error) compares. */
double Verify_predictOpError(const OpParams *op, Precision p);

/* The inputs, in Op_inputShape order. */
const float *const *VerifyTask_inputs(const VerifyTask *t);
/* The reference output and its element count. */
const float *VerifyTask_reference(const VerifyTask *t, int64_t *elems);

typedef struct VerifyResult_ {
   bool ok;
   int64_t blocksRun;           /* blocks of the last kernel that ran */
   int64_t grid;                /* the last kernel's grid */
   int64_t compared;            /* output elements compared */
   Precision precision;         /* the coarsest of the nest's Tensor-Core operands, or FP32 */
   double maxError;             /* the largest |output - reference| compared, over the
                                   reference's RMS */
   double predicted;            /* the largest error expected of the elements compared
                                   (VerifyTask_predictError), on the same scale */
   double bound;                /* what an element of the RMS' size may err by, on that
                                   scale: the tolerance plus the precision's allowance */
   char *why;                   /* when not ok: the executor's error, or the first element
                                   that differs ("element I of the output is G, the
                                   reference W (relative error E)") */
} VerifyResult;

/* Runs ln (lowered from a state of the task, and possibly altered since) on the CPU
 * executor and compares its output (the global buffer marked `output`) with the
 * reference. sampleSeed picks the random blocks (check uses its seed ^ State_hash).
 * Returns 0 when the output matched, -1 with res->why otherwise; res is filled either
 * way. Threads may verify different nests against one task at the same time. */
int Verify_loopNest(const VerifyTask *t, const LoopNest *ln, uint64_t sampleSeed, VerifyResult *res);
/* Frees what the result holds and zeroes it. */
void VerifyResult_done(VerifyResult *r);

#endif
