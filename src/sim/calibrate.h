/* Calibration: fits the simulator's free constants (SimParams) to latencies measured on
 * a GPU. Each measured program is counted once (Sim_count); the fit then times the
 * counted programs under candidate constants (Sim_time, cheap) and minimises, over a
 * training share of the samples, the mean squared ln(simulated / measured) plus a rank
 * term (over pairs of samples of one task, the mean squared amount by which
 * ln(simulated) orders them against their measured order: zero when every pair is in
 * order, so a perfect fit is not pulled away), with GSL's Nelder-Mead simplex, in the
 * logarithm of each constant, inside the range that pruner-tui-devices(5) allows it,
 * with restarts. Only the constants the samples exercise (doubling or halving one
 * moves the simulated latencies measurably) and can tell apart from the others are
 * fitted; the others keep their values. The rest of the samples, held out per task,
 * say how much the fit helps on programs it has not seen.
 *
 * Samples name their task by an index the caller chooses: ranking quality is measured
 * within a task, since only states of one task compete with each other. */
#ifndef HEADER_calibrate
#define HEADER_calibrate

#include <stdbool.h>
#include <stdint.h>

#include "device/device.h"
#include "ir/loopnest.h"
#include "sim/sim.h"

typedef struct Calibration_ Calibration;

typedef struct CalibConfig_ {
   double holdout;              /* share of each task's samples held out, in [0, 1) (0.2) */
   uint64_t seed;               /* of the split and of the restarts' starting points (1) */
   int restarts;                /* Nelder-Mead runs after the first (4) */
   int maxIterations;           /* per run (4000) */
   double rankWeight;           /* the rank term's weight in the objective (1) */
   double minSensitivity;       /* a constant is fitted when its sensitivity and its
                                   distinct sensitivity reach this (0.01: CalibResult) */
   /* Called after each run with the best mean squared ln error so far; may be NULL. */
   void (*progress)(void *ctx, int run, int runs, double best, int evaluations);
   void *ctx;
} CalibConfig;

/* How well constants fit a set of samples. NaN where undefined (no sample; no task
 * with two samples of different latency). */
typedef struct CalibQuality_ {
   int samples;
   int tasks;                   /* with at least two samples: those the ranking covers */
   double medianAbsLog;         /* median of |ln(simulated / measured)| */
   double meanSquaredLog;       /* mean of ln(simulated / measured)^2 */
   double rankLoss;             /* the rank term: over the pairs of samples of one task
                                   with different measured latencies, the mean of
                                   max(0, ln sim(faster) - ln sim(slower))^2 */
   double pairwise;             /* within each task, the share of pairs of samples with
                                   different measured latencies that the simulator
                                   orders alike (a tie counting half), averaged over
                                   tasks */
   double spearman;             /* within each task, Spearman's rank correlation between
                                   simulated and measured latency, averaged over tasks */
} CalibQuality;

typedef struct CalibResult_ {
   SimParams before, after;
   double lower[SIM_PARAM_COUNT], upper[SIM_PARAM_COUNT];  /* the range searched */
   /* The root mean square over the training samples of the slope of ln(simulated
    * latency) in ln(constant), taken from half the constant to twice it: how much the
    * samples say about the constant. A constant below CalibConfig.minSensitivity is
    * not exercised. */
   double sensitivity[SIM_PARAM_COUNT];
   /* The same of the part of its slopes that the constants of higher sensitivity do
    * not explain (their least-squares combination taken away): what the samples say
    * about this constant alone. Below minSensitivity, the records cannot tell it from
    * the others (it is then not fitted either). */
   double distinct[SIM_PARAM_COUNT];
   double minSensitivity;       /* the threshold the fit used */
   bool fitted[SIM_PARAM_COUNT];
   /* Of a fitted constant, the standard error of ln(constant) at the fit: the residual
    * variance times the inverse of J'J, J the training samples' slopes of ln(simulated
    * latency) in the logarithms of the fitted constants (a secant over +-CALIB_SE_STEP).
    * Twice it is about the relative error of the fitted value; above CALIB_LOOSE the
    * records pin the constant only loosely. NaN when not fitted or J'J is singular. */
   double stderrLog[SIM_PARAM_COUNT];
   bool atBound[SIM_PARAM_COUNT];   /* fitted, and ended within 0.1% of its range's end */
   int nfitted;
   int ntrain, ntest;
   CalibQuality trainBefore, trainAfter, testBefore, testAfter;
   int evaluations;             /* of the objective, over all runs */
} CalibResult;

void CalibConfig_default(CalibConfig *cfg);

/* A calibration for the hardware of d (SimGpu_init's errors). */
Calibration *Calibration_new(const Device *d, char **cause);
void Calibration_free(Calibration *c);

/* Adds one measured program: the lowered nest ln of a state of task `task`, measured at
 * `seconds` per launch. registers is the most registers per thread of its kernels as
 * ptxas reported them, -1 when unknown: a one-kernel program whose estimate differs
 * is counted with ptxas' number (its spills unknown), otherwise the simulator's
 * estimates stand. jitterKey is the state's hash (as measuring uses it). -1 with
 * *cause when the simulator cannot run the program (Sim_count's reason). */
int Calibration_add(Calibration *c, int task, const LoopNest *ln, int registers, uint64_t jitterKey,
                    double seconds, char **cause);
int Calibration_count(const Calibration *c);

/* The range a constant is searched in: the devices.yaml range, its lower end raised to
 * a thousandth of the simulator's default where the range starts at 0 (the fit works
 * on logarithms). */
void Calibration_range(SimParam p, double *lower, double *upper);

/* Splits the samples (cfg->holdout of each task's, at random from cfg->seed), fits the
 * exercised constants starting from `start` and fills out. -1 with *cause when fewer
 * than CALIB_MIN_TRAIN samples are left to fit on. */
#define CALIB_MIN_TRAIN 10
#define CALIB_SE_STEP 0.05
#define CALIB_LOOSE 0.025
int Calibration_fit(Calibration *c, const SimParams *start, const CalibConfig *cfg, CalibResult *out,
                    char **cause);

/* The simulated latency of sample i under p, and its measured one. */
double Calibration_simulate(const Calibration *c, int i, const SimParams *p);
double Calibration_measured(const Calibration *c, int i);
/* Whether sample i was held out by the last Calibration_fit. */
bool Calibration_heldOut(const Calibration *c, int i);

#endif
