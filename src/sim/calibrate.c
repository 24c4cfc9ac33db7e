/* Fitting the simulator's free constants to measured latencies (sim/calibrate.h).
 *
 * The search runs on x = ln(constant) for the constants fitted, so that a step means
 * the same relative change for a latency of 500 cycles and an efficiency of 0.9, and a
 * constant cannot turn negative. Nelder-Mead knows no bounds: outside its range a
 * constant is evaluated at the range's end and the objective grows by PENALTY times
 * the squared distance, which leads the simplex back without the flat regions a
 * squashing transform has at the ends (where a default of 1 for an efficiency sits).
 *
 * The ranking measures are cost/metrics.c's on plain arrays (Metrics_pairwise,
 * Metrics_spearman): statistics, not a cost model, so the simulator stays apart from
 * PSA. */
#include "config.h"

#include "sim/calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multimin.h>

#include "cost/metrics.h"
#include "util/rng.h"
#include "util/xalloc.h"

/* Weight of the squared distance (in ln units) outside a constant's range. */
#define PENALTY 100.0
/* A run ends when the simplex is this small (ln units: a relative change of 1e-7). */
#define SIMPLEX_SIZE 1e-7
/* The first simplex's step, ln units (a change of about 35%). */
#define FIRST_STEP 0.3
/* Where the restarts begin: the best point so far moved by up to this much (ln units)
 * in each constant, less in later restarts. */
#define RESTART_SPREAD 0.7
/* The factor by which sensitivity probes a constant. */
#define PROBE 2.0
/* Pairs the rank term looks at, at most, in each evaluation. */
#define MAX_RANK_PAIRS 20000
/* A range's lower end where devices.yaml allows 0: this share of the default. */
#define ZERO_FLOOR 1e-3

typedef struct {
   int task;
   double measured, lnMeasured;
   uint64_t key;
   bool heldOut;
   SimProgram prog;
} Sample;

struct Calibration_ {
   SimGpu gpu;
   int n, cap;
   Sample *samples;
   int ntasks;
};

void CalibConfig_default(CalibConfig *cfg) {
   memset(cfg, 0, sizeof *cfg);
   cfg->holdout = 0.2;
   cfg->seed = 1;
   cfg->restarts = 4;
   cfg->maxIterations = 4000;
   cfg->minSensitivity = 0.01;
   cfg->rankWeight = 1;
}

Calibration *Calibration_new(const Device *d, char **cause) {
   Calibration *c = xCalloc(1, sizeof *c);
   if (SimGpu_init(&c->gpu, d, cause) < 0) {
      free(c);
      return NULL;
   }
   return c;
}

void Calibration_free(Calibration *c) {
   if (!c)
      return;
   free(c->samples);
   free(c);
}

int Calibration_add(Calibration *c, int task, const LoopNest *ln, int registers, uint64_t jitterKey,
                    double seconds, char **cause) {
   if (!(seconds > 0) || !isfinite(seconds))
      return setCause(cause, "a measured latency must be a positive number of seconds, not %g", seconds);
   if (c->n == c->cap) {
      c->cap = c->cap ? 2 * c->cap : 256;
      c->samples = xReallocArray(c->samples, (size_t)c->cap, sizeof *c->samples);
   }
   Sample *s = &c->samples[c->n];
   memset(s, 0, sizeof *s);
   if (Sim_count(&c->gpu, ln, NULL, &s->prog, cause) < 0)
      return -1;
   /* the record keeps only the largest kernel's count: it says which kernel it is when
    * there is one */
   if (registers >= 0 && s->prog.nkernels == 1 && s->prog.kernels[0].registers != registers) {
      SimCompiled k = { registers, 0, 0, 0 };
      const SimCompiled *per[IR_MAX_KERNELS] = { &k };
      if (Sim_count(&c->gpu, ln, per, &s->prog, cause) < 0)
         return -1;
   }
   s->task = task;
   s->measured = seconds;
   s->lnMeasured = log(seconds);
   s->key = jitterKey;
   if (task + 1 > c->ntasks)
      c->ntasks = task + 1;
   c->n++;
   return 0;
}

int Calibration_count(const Calibration *c) {
   return c->n;
}

double Calibration_simulate(const Calibration *c, int i, const SimParams *p) {
   const Sample *s = &c->samples[i];
   return Sim_time(&c->gpu, p, &s->prog, s->key, NULL);
}

double Calibration_measured(const Calibration *c, int i) {
   return c->samples[i].measured;
}

bool Calibration_heldOut(const Calibration *c, int i) {
   return c->samples[i].heldOut;
}

void Calibration_range(SimParam p, double *lower, double *upper) {
   const DeviceFieldInfo *fi = Device_fieldInfo((DeviceField)(DEV_SIM_FIRST + p));
   double floor = SimParam_default(p) > 0 ? ZERO_FLOOR * SimParam_default(p) : 1e-6 * fi->max;
   *lower = fi->min > 0 ? fi->min : floor;
   *upper = fi->max;
}

/* ---- the split ---- */

/* A partial Fisher-Yates shuffle of each task's samples picks its held-out share. */
static void split(Calibration *c, double holdout, uint64_t seed) {
   int *members = xMalloc((size_t)(c->n > 0 ? c->n : 1) * sizeof *members);
   Rng rng;
   Rng_seed(&rng, seed);
   for (int i = 0; i < c->n; i++)
      c->samples[i].heldOut = false;
   for (int t = 0; t < c->ntasks; t++) {
      int m = 0;
      for (int i = 0; i < c->n; i++)
         if (c->samples[i].task == t)
            members[m++] = i;
      int k = (int)floor(holdout * m + 0.5);
      for (int j = 0; j < k; j++) {
         int r = j + (int)Rng_below(&rng, (uint64_t)(m - j));
         int tmp = members[j];
         members[j] = members[r];
         members[r] = tmp;
         c->samples[members[j]].heldOut = true;
      }
   }
   free(members);
}

/* ---- quality ---- */

static int byValue(const void *pa, const void *pb) {
   double a = *(const double *)pa, b = *(const double *)pb;
   return (a > b) - (a < b);
}

/* The rank term of one pair: how far ln(simulated) orders the measured-faster sample
 * after the slower one, squared; 0 when in order. */
static inline double rankPenalty(double lnSimFaster, double lnSimSlower) {
   double d = lnSimFaster - lnSimSlower;
   return d > 0 ? d * d : 0;
}

/* Whether sample a was measured faster than b by more than rounding. */
static inline bool faster(const Sample *a, const Sample *b) {
   return a->lnMeasured < b->lnMeasured - 1e-9;
}

/* The quality of p on the samples whose heldOut is `heldOut`. */
static void quality(const Calibration *c, const SimParams *p, bool heldOut, CalibQuality *q) {
   int n = c->n > 0 ? c->n : 1;
   double *sim = xMalloc((size_t)n * sizeof *sim), *meas = xMalloc((size_t)n * sizeof *meas);
   double *err = xMalloc((size_t)n * sizeof *err);
   int *task = xMalloc((size_t)n * sizeof *task);
   memset(q, 0, sizeof *q);
   int m = 0;
   double squares = 0;
   for (int i = 0; i < c->n; i++) {
      if (c->samples[i].heldOut != heldOut)
         continue;
      sim[m] = Calibration_simulate(c, i, p);
      meas[m] = c->samples[i].measured;
      task[m] = c->samples[i].task;
      double e = log(sim[m]) - c->samples[i].lnMeasured;
      squares += e * e;
      err[m++] = fabs(e);
   }
   q->samples = m;
   q->meanSquaredLog = m ? squares / m : NAN;
   double rank = 0;
   long rankPairs = 0;
   for (int a = 0; a < m; a++)
      for (int b = 0; b < m; b++)
         if (task[a] == task[b] && meas[a] < meas[b] * (1 - 1e-9)) {
            rank += rankPenalty(log(sim[a]), log(sim[b]));
            rankPairs++;
         }
   q->rankLoss = rankPairs ? rank / (double)rankPairs : 0;
   qsort(err, (size_t)m, sizeof *err, byValue);
   q->medianAbsLog = m == 0 ? NAN : m % 2 ? err[m / 2] : 0.5 * (err[m / 2 - 1] + err[m / 2]);
   /* the ranking measures within each task, averaged over the tasks where defined */
   double sumPairwise = 0, sumSpearman = 0;
   int nPairwise = 0, nSpearman = 0;
   double *ts = xMalloc((size_t)n * sizeof *ts), *tm = xMalloc((size_t)n * sizeof *tm);
   for (int t = 0; t < c->ntasks; t++) {
      int k = 0;
      for (int i = 0; i < m; i++)
         if (task[i] == t) {
            ts[k] = sim[i];
            tm[k++] = meas[i];
         }
      if (k < 2)
         continue;
      q->tasks++;
      double pw = Metrics_pairwise(ts, tm, k), sp = Metrics_spearman(ts, tm, k);
      if (!isnan(pw)) {
         sumPairwise += pw;
         nPairwise++;
      }
      if (!isnan(sp)) {
         sumSpearman += sp;
         nSpearman++;
      }
   }
   q->pairwise = nPairwise ? sumPairwise / nPairwise : NAN;
   q->spearman = nSpearman ? sumSpearman / nSpearman : NAN;
   free(ts);
   free(tm);
   free(task);
   free(err);
   free(meas);
   free(sim);
}

/* ---- the objective ---- */

typedef struct {
   const Calibration *c;
   const int *train;            /* indices of the training samples */
   int ntrain;
   SimParams base;              /* the constants not fitted */
   int nfree;
   int which[SIM_PARAM_COUNT];  /* the constant of each coordinate */
   double lo[SIM_PARAM_COUNT], hi[SIM_PARAM_COUNT];   /* ln of the range, per coordinate */
   double rankWeight;
   int npairs;
   int (*pairs)[2];             /* training positions (faster, slower) of one task */
   double *lnSim;               /* scratch: ln(simulated) of each training sample */
   int evaluations;
} Objective;

/* x's constants, clamped into their ranges; the squared distance outside them. */
static double paramsAt(const Objective *o, const gsl_vector *x, SimParams *p) {
   *p = o->base;
   double outside = 0;
   for (int j = 0; j < o->nfree; j++) {
      double v = gsl_vector_get(x, (size_t)j);
      if (v < o->lo[j]) {
         outside += (o->lo[j] - v) * (o->lo[j] - v);
         v = o->lo[j];
      } else if (v > o->hi[j]) {
         outside += (v - o->hi[j]) * (v - o->hi[j]);
         v = o->hi[j];
      }
      p->v[o->which[j]] = exp(v);
   }
   return outside;
}

/* The mean squared log error over the training samples, plus the weighted rank term. */
static double lossAt(const Objective *o, const SimParams *p) {
   double sum = 0;
   for (int k = 0; k < o->ntrain; k++) {
      const Sample *s = &o->c->samples[o->train[k]];
      o->lnSim[k] = log(Sim_time(&o->c->gpu, p, &s->prog, s->key, NULL));
      double e = o->lnSim[k] - s->lnMeasured;
      sum += e * e;
   }
   double loss = sum / o->ntrain;
   if (o->npairs > 0 && o->rankWeight > 0) {
      double rank = 0;
      for (int k = 0; k < o->npairs; k++)
         rank += rankPenalty(o->lnSim[o->pairs[k][0]], o->lnSim[o->pairs[k][1]]);
      loss += o->rankWeight * rank / o->npairs;
   }
   return loss;
}

/* The training pairs of the rank term: every pair of samples of one task with
 * different measured latencies, or an even spread of MAX_RANK_PAIRS of them. */
static void rankPairs(Objective *o) {
   long all = 0;
   for (int a = 0; a < o->ntrain; a++)
      for (int b = 0; b < o->ntrain; b++) {
         const Sample *x = &o->c->samples[o->train[a]], *y = &o->c->samples[o->train[b]];
         all += x->task == y->task && faster(x, y);
      }
   long cap = all < MAX_RANK_PAIRS ? all : MAX_RANK_PAIRS;
   o->pairs = xMalloc((size_t)(cap > 0 ? cap : 1) * sizeof *o->pairs);
   o->npairs = 0;
   long seen = 0;
   for (int a = 0; a < o->ntrain; a++)
      for (int b = 0; b < o->ntrain; b++) {
         const Sample *x = &o->c->samples[o->train[a]], *y = &o->c->samples[o->train[b]];
         if (x->task != y->task || !faster(x, y))
            continue;
         /* pair number `seen` is kept when it crosses the next of cap even steps */
         if (o->npairs < cap && (seen * cap) / all == o->npairs) {
            o->pairs[o->npairs][0] = a;
            o->pairs[o->npairs][1] = b;
            o->npairs++;
         }
         seen++;
      }
}

static double objectiveAt(const gsl_vector *x, void *ctx) {
   Objective *o = ctx;
   SimParams p;
   double outside = paramsAt(o, x, &p);
   o->evaluations++;
   double f = lossAt(o, &p) + PENALTY * outside;
   /* GSL refuses a simplex with a non-finite value */
   return isfinite(f) ? f : 1e300;
}

/* One Nelder-Mead run from x with the given step; x becomes its best point. */
static double runSimplex(Objective *o, gsl_vector *x, double step, int maxIterations) {
   size_t n = (size_t)o->nfree;
   gsl_multimin_function f = { objectiveAt, n, o };
   gsl_vector *steps = gsl_vector_alloc(n);
   gsl_vector_set_all(steps, step);
   gsl_multimin_fminimizer *s = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, n);
   if (!s || !steps)
      fatal("out of memory");
   gsl_multimin_fminimizer_set(s, &f, x, steps);
   for (int it = 0; it < maxIterations; it++) {
      if (gsl_multimin_fminimizer_iterate(s) != GSL_SUCCESS)
         break;
      if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(s), SIMPLEX_SIZE) == GSL_SUCCESS)
         break;
   }
   gsl_vector_memcpy(x, gsl_multimin_fminimizer_x(s));
   double best = gsl_multimin_fminimizer_minimum(s);
   gsl_multimin_fminimizer_free(s);
   gsl_vector_free(steps);
   return best;
}

/* The slope of each training sample's ln(simulated latency) in ln(constant i), as the
 * secant from p_i / PROBE to p_i x PROBE (within the range): wide, because the model's
 * max() terms make the derivative at one point blind to a regime the constant reaches
 * a little further. */
static void slopes(const Objective *o, const SimParams *p, SimParam i, double *col) {
   double lo, hi;
   Calibration_range(i, &lo, &hi);
   SimParams up = *p, down = *p;
   up.v[i] = fmin(hi, p->v[i] * PROBE);
   down.v[i] = fmax(lo, p->v[i] / PROBE);
   double span = log(up.v[i] / down.v[i]);
   for (int k = 0; k < o->ntrain; k++) {
      const Sample *s = &o->c->samples[o->train[k]];
      col[k] = span > 0 ? (log(Sim_time(&o->c->gpu, &up, &s->prog, s->key, NULL)) -
                           log(Sim_time(&o->c->gpu, &down, &s->prog, s->key, NULL))) / span
                        : 0;
   }
}

static double rms(const double *v, int n) {
   double sum = 0;
   for (int k = 0; k < n; k++)
      sum += v[k] * v[k];
   return sqrt(sum / n);
}

/* Which constants to fit: in order of sensitivity, each whose slopes are not (nearly)
 * a combination of those of the constants taken before it, so that the records pin
 * every constant fitted (two constants the records only see as a sum, such as the
 * launch overhead and a round's fixed cycles in one-round kernels, are not both
 * fitted). */
static void choose(const Objective *o, const SimParams *p, double minSensitivity, CalibResult *out) {
   int n = o->ntrain;
   double *col[SIM_PARAM_COUNT], *basis[SIM_PARAM_COUNT];
   int order[SIM_PARAM_COUNT], nbasis = 0;
   for (int i = 0; i < SIM_PARAM_COUNT; i++) {
      col[i] = xMalloc((size_t)n * sizeof *col[i]);
      slopes(o, p, (SimParam)i, col[i]);
      out->sensitivity[i] = rms(col[i], n);
      order[i] = i;
   }
   for (int a = 1; a < SIM_PARAM_COUNT; a++)
      for (int b = a; b > 0 && out->sensitivity[order[b]] > out->sensitivity[order[b - 1]]; b--) {
         int t = order[b];
         order[b] = order[b - 1];
         order[b - 1] = t;
      }
   for (int j = 0; j < SIM_PARAM_COUNT; j++) {
      int i = order[j];
      double *r = col[i];
      /* Gram-Schmidt against the constants chosen (twice, for round-off) */
      for (int pass = 0; pass < 2; pass++)
         for (int b = 0; b < nbasis; b++) {
            double dot = 0;
            for (int k = 0; k < n; k++)
               dot += r[k] * basis[b][k];
            for (int k = 0; k < n; k++)
               r[k] -= dot * basis[b][k];
         }
      out->distinct[i] = rms(r, n);
      if (out->sensitivity[i] < minSensitivity || out->distinct[i] < minSensitivity)
         continue;
      out->fitted[i] = true;
      double norm = out->distinct[i] * sqrt((double)n);
      for (int k = 0; k < n; k++)
         r[k] /= norm;
      basis[nbasis++] = r;
   }
   for (int i = 0; i < SIM_PARAM_COUNT; i++)
      free(col[i]);
}

/* The standard errors of the fitted constants' logarithms at p (CalibResult.stderrLog):
 * Gauss-Newton's covariance, sigma^2 (J'J)^-1, with sigma^2 the training residuals'
 * variance over n - k degrees of freedom. */
static void standardErrors(const Objective *o, const SimParams *p, CalibResult *out) {
   for (int i = 0; i < SIM_PARAM_COUNT; i++)
      out->stderrLog[i] = NAN;
   int n = o->ntrain, k = o->nfree;
   if (k == 0 || n <= k)
      return;
   gsl_matrix *J = gsl_matrix_alloc((size_t)n, (size_t)k), *A = gsl_matrix_alloc((size_t)k, (size_t)k);
   if (!J || !A)
      fatal("out of memory");
   double ssr = 0;
   for (int r = 0; r < n; r++) {
      const Sample *s = &o->c->samples[o->train[r]];
      double e = log(Sim_time(&o->c->gpu, p, &s->prog, s->key, NULL)) - s->lnMeasured;
      ssr += e * e;
   }
   for (int j = 0; j < k; j++) {
      SimParams up = *p, down = *p;
      int i = o->which[j];
      up.v[i] = p->v[i] * exp(CALIB_SE_STEP);
      down.v[i] = p->v[i] * exp(-CALIB_SE_STEP);
      for (int r = 0; r < n; r++) {
         const Sample *s = &o->c->samples[o->train[r]];
         double d = log(Sim_time(&o->c->gpu, &up, &s->prog, s->key, NULL)) -
                    log(Sim_time(&o->c->gpu, &down, &s->prog, s->key, NULL));
         gsl_matrix_set(J, (size_t)r, (size_t)j, d / (2 * CALIB_SE_STEP));
      }
   }
   gsl_blas_dgemm(CblasTrans, CblasNoTrans, 1.0, J, J, 0.0, A);
   gsl_error_handler_t *old = gsl_set_error_handler_off();
   if (gsl_linalg_cholesky_decomp1(A) == GSL_SUCCESS && gsl_linalg_cholesky_invert(A) == GSL_SUCCESS) {
      double sigma2 = ssr / (double)(n - k);
      for (int j = 0; j < k; j++)
         out->stderrLog[o->which[j]] = sqrt(sigma2 * gsl_matrix_get(A, (size_t)j, (size_t)j));
   }
   gsl_set_error_handler(old);
   gsl_matrix_free(J);
   gsl_matrix_free(A);
}

int Calibration_fit(Calibration *c, const SimParams *start, const CalibConfig *cfg, CalibResult *out,
                    char **cause) {
   memset(out, 0, sizeof *out);
   split(c, cfg->holdout, cfg->seed);
   int *train = xMalloc((size_t)(c->n > 0 ? c->n : 1) * sizeof *train);
   int ntrain = 0;
   for (int i = 0; i < c->n; i++)
      if (!c->samples[i].heldOut)
         train[ntrain++] = i;
   out->ntrain = ntrain;
   out->ntest = c->n - ntrain;
   if (ntrain < CALIB_MIN_TRAIN) {
      free(train);
      return setCause(cause, "%d of the %d samples are left to fit on (%d held out); calibrating needs at least %d",
                      ntrain, c->n, c->n - ntrain, CALIB_MIN_TRAIN);
   }
   out->before = *start;
   Objective o = { .c = c, .train = train, .ntrain = ntrain, .base = *start, .rankWeight = cfg->rankWeight };
   o.lnSim = xMalloc((size_t)ntrain * sizeof *o.lnSim);
   rankPairs(&o);
   for (int i = 0; i < SIM_PARAM_COUNT; i++) {
      Calibration_range((SimParam)i, &out->lower[i], &out->upper[i]);
      o.base.v[i] = fmin(out->upper[i], fmax(out->lower[i], start->v[i]));
   }
   out->minSensitivity = cfg->minSensitivity;
   choose(&o, &o.base, cfg->minSensitivity, out);
   for (int i = 0; i < SIM_PARAM_COUNT; i++)
      if (out->fitted[i]) {
         o.which[o.nfree] = i;
         o.lo[o.nfree] = log(out->lower[i]);
         o.hi[o.nfree] = log(out->upper[i]);
         o.nfree++;
      }
   out->nfitted = o.nfree;
   out->after = *start;
   if (o.nfree > 0) {
      gsl_vector *x = gsl_vector_alloc((size_t)o.nfree), *best = gsl_vector_alloc((size_t)o.nfree);
      if (!x || !best)
         fatal("out of memory");
      for (int j = 0; j < o.nfree; j++)
         gsl_vector_set(best, (size_t)j, log(o.base.v[o.which[j]]));
      gsl_vector_memcpy(x, best);
      int runs = 1 + (cfg->restarts > 0 ? cfg->restarts : 0);
      double bestF = INFINITY;
      Rng rng;
      Rng_seed(&rng, cfg->seed ^ 0x63616c6962726174ull);
      for (int r = 0; r < runs; r++) {
         if (r > 0) {
            /* from the best so far, moved less in each later restart */
            double spread = RESTART_SPREAD * (double)(runs - r) / (double)(runs - 1);
            for (int j = 0; j < o.nfree; j++) {
               double v = gsl_vector_get(best, (size_t)j) + spread * (2 * Rng_uniform(&rng) - 1);
               gsl_vector_set(x, (size_t)j, fmin(o.hi[j], fmax(o.lo[j], v)));
            }
         }
         double f = runSimplex(&o, x, FIRST_STEP, cfg->maxIterations > 0 ? cfg->maxIterations : 4000);
         if (f < bestF) {
            bestF = f;
            gsl_vector_memcpy(best, x);
         }
         if (cfg->progress)
            cfg->progress(cfg->ctx, r + 1, runs, bestF, o.evaluations);
      }
      SimParams fitted;
      paramsAt(&o, best, &fitted);
      for (int j = 0; j < o.nfree; j++) {
         int i = o.which[j];
         out->after.v[i] = fitted.v[i];
         double v = log(fitted.v[i]);
         out->atBound[i] = v - o.lo[j] < 1e-3 || o.hi[j] - v < 1e-3;
      }
      gsl_vector_free(best);
      gsl_vector_free(x);
   }
   standardErrors(&o, &out->after, out);
   out->evaluations = o.evaluations;
   quality(c, &out->before, false, &out->trainBefore);
   quality(c, &out->after, false, &out->trainAfter);
   quality(c, &out->before, true, &out->testBefore);
   quality(c, &out->after, true, &out->testAfter);
   free(o.pairs);
   free(o.lnSim);
   free(train);
   return 0;
}
