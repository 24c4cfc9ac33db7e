/* The xgb model: Ansor's XGBModel (ansor.md 5.3) through XGBoost's C API.
 *
 * Input: the 164 Ansor features of each feature row, as Ansor; the 10 workload floats
 * are left out, since they are the same for every sample of a task and the labels are
 * relative to the task. A program's score is the sum of its rows' predictions
 * (pack-sum); a sample without rows scores -inf.
 *
 * Training follows Ansor's: from scratch on all of the training data at every fit,
 * with the pack-sum square-error objective as custom gradients. For each row of
 * program P with label y (Dataset_relabel's) and weight w = y:
 *   grad = (sum of P's row predictions - y) w,  hess = w,
 * so failed programs (y = 0) count with weight 0; samples never measured (cost 0)
 * are left out. Parameters as Ansor's: max_depth 10, gamma 0.001, min_child_weight 0,
 * eta 0.2, seed 43, base score 0.5 (XGBoost's default); nthread = the cores online
 * (Ansor takes half). One change: tree_method hist (XGBoost 2's default) instead of
 * 1.7's exact, which was some 50 times slower on two cores (a 1,300-row fit: 90 ms a
 * round against under 2). Ansor boosts up to 10000 rounds and stops after 50 without
 * a better training pack-sum RMSE (evaluated every other round: the RMSE of the
 * summed score against y over programs, failures included, unweighted); here the
 * bound is XGB_MAX_ROUNDS (300) so that a fit stays affordable on two cores. As in
 * Ansor, the model keeps every round it boosted, not only those up to the best.
 * TrainConfig's progress hook is called at each evaluation (epoch = rounds so far,
 * epochs = XGB_MAX_ROUNDS, loss = the RMSE) and may stop it; its other fields are for
 * the neural models.
 *
 * Made with CostModel_newDevice, each row is followed by its sample's device features
 * (Dataset_device): 172 columns. XGBoost keeps the column count in its model, which is
 * how a loaded checkpoint knows (an untrained one, which holds no model, loads as the
 * plain kind).
 *
 * Before its first fit the model scores uniformly at random from a generator seeded
 * with its seed, as Ansor's does before it has data.
 *
 * Checkpoint payload: u64 n, then n bytes of XGBoost's model in UBJSON
 * (XGBoosterSaveModelToBuffer, {"format": "ubj"}); n = 0 for a model that had not
 * learned. UBJSON keeps every split and leaf as the same binary32, so a loaded model
 * predicts bit for bit what the saved one did. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xgboost/c_api.h>

#include "cost/checkpoint.h"
#include "cost/models.h"
#include "util/rng.h"
#include "util/xalloc.h"

#define XGB_MAX_MODEL_BYTES (1 << 30)
#define XGB_MAX_ROUNDS 300
#define XGB_EARLY_STOP 50
#define XGB_EVAL_EVERY 2

typedef struct XgbModel_ {
   BoosterHandle booster;       /* NULL before the first fit */
   Rng rng;                     /* scores until then */
   int width;                   /* columns: FEATURE_LEN, + DEVICE_FEATURE_LEN with the device */
} XgbModel;

/* The programs to score or learn from (samples with rows; for learning, measured
 * ones only) and their rows' 164 features as one matrix. */
typedef struct {
   int nprograms, nrows;
   int *sample;                 /* nprograms: each program's sample */
   int *program;                /* nrows: each row's program */
   int width;                   /* XgbModel's */
   float *x;                    /* nrows x width */
} Rows;

static void Rows_gather(Rows *r, const Dataset *d, bool measuredOnly, int width) {
   r->width = width;
   r->sample = xMalloc((size_t)(d->n > 0 ? d->n : 1) * sizeof *r->sample);
   r->program = xMalloc((size_t)(d->nrows > 0 ? d->nrows : 1) * sizeof *r->program);
   r->x = xMalloc((size_t)(d->nrows > 0 ? d->nrows : 1) * (size_t)width * sizeof *r->x);
   r->nprograms = r->nrows = 0;
   for (int i = 0; i < d->n; i++) {
      if (Dataset_rows(d, i) == 0 || (measuredOnly && !Dataset_measured(d, i)))
         continue;
      int p = r->nprograms++;
      r->sample[p] = i;
      for (int j = 0; j < Dataset_rows(d, i); j++) {
         int k = r->nrows++;
         float *row = r->x + (int64_t)k * width;
         memcpy(row, Dataset_row(d, i, j), FEATURE_LEN * sizeof *r->x);
         if (width > FEATURE_LEN)
            memcpy(row + FEATURE_LEN, Dataset_device(d, i), DEVICE_FEATURE_LEN * sizeof *r->x);
         r->program[k] = p;
      }
   }
}

static void Rows_done(Rows *r) {
   free(r->sample);
   free(r->program);
   free(r->x);
}

/* XGBoost's last error in one line: its first, without the time and the source
 * location it starts with ("[20:18:09] ./src/learner.cc:1008: "), bytes that do not
 * print (from a damaged model) as '?'. The stack trace after it is for XGBoost's
 * developers. Caller frees. */
static char *xgbLastError(void) {
   const char *e = XGBGetLastError();
   const char *close = e[0] == '[' ? strstr(e, "] ") : NULL;
   if (close && close < e + strcspn(e, "\n"))
      e = close + 2;
   size_t len = strcspn(e, "\n");
   for (const char *c = e; c < e + len; c++)
      if (*c == ':' && c[1] >= '0' && c[1] <= '9') {
         const char *d = c + 1 + strspn(c + 1, "0123456789");
         if (d[0] == ':' && d[1] == ' ' && d + 2 <= e + len) {
            len -= (size_t)(d + 2 - e);
            e = d + 2;
            break;
         }
      }
   char *line = xStrndup(e, len);
   for (char *c = line; *c; c++)
      if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
         *c = '?';
   return line;
}

static int xgbError(char **cause, const char *what) {
   char *why = xgbLastError();
   setCause(cause, "XGBoost could not %s: %s", what, why);
   free(why);
   return -1;
}

static int setParams(BoosterHandle b, char **cause) {
   char threads[32];
   long cores = sysconf(_SC_NPROCESSORS_ONLN);
   snprintf(threads, sizeof threads, "%ld", cores > 0 ? cores : 1);
   const char *params[][2] = {
      { "max_depth", "10" },  { "gamma", "0.001" },  { "min_child_weight", "0" },
      { "eta", "0.2" },       { "nthread", threads }, { "seed", "43" },
      { "disable_default_eval_metric", "1" },         { "verbosity", "0" },
      { "tree_method", "hist" },
   };
   for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
      if (XGBoosterSetParam(b, params[i][0], params[i][1]) != 0)
         return xgbError(cause, "take its parameters");
   return 0;
}

/* The booster's raw prediction of every row of dm. The result is XGBoost's, valid
 * until its next call. */
static int predictRows(BoosterHandle b, DMatrixHandle dm, bool training, const float **out, char **cause) {
   const char *config = training
                           ? "{\"type\": 1, \"training\": true, \"iteration_begin\": 0, \"iteration_end\": 0, "
                             "\"strict_shape\": false}"
                           : "{\"type\": 1, \"training\": false, \"iteration_begin\": 0, \"iteration_end\": 0, "
                             "\"strict_shape\": false}";
   const bst_ulong *shape;
   bst_ulong dim;
   if (XGBoosterPredictFromDMatrix(b, dm, config, &shape, &dim, out) != 0)
      return xgbError(cause, "predict");
   return 0;
}

/* Pack-sum: a program's score is the sum over its rows. */
static void packSum(const Rows *r, const float *rowPred, double *sum) {
   for (int p = 0; p < r->nprograms; p++)
      sum[p] = 0;
   for (int k = 0; k < r->nrows; k++)
      sum[r->program[k]] += rowPred[k];
}

static void xgbPredict(CostModel *m, const Dataset *batch, float *scores) {
   XgbModel *x = m->impl;
   for (int i = 0; i < batch->n; i++)
      scores[i] = -INFINITY;
   if (!x->booster) {
      for (int i = 0; i < batch->n; i++)
         if (Dataset_rows(batch, i) > 0)
            scores[i] = (float)Rng_uniform(&x->rng);
      return;
   }
   if (batch->nrows == 0)
      return;
   Rows r;
   Rows_gather(&r, batch, false, x->width);
   DMatrixHandle dm;
   const float *pred;
   char *cause = NULL;
   if (XGDMatrixCreateFromMat(r.x, (bst_ulong)r.nrows, (bst_ulong)r.width, NAN, &dm) != 0)
      fatal("XGBoost could not take a batch of %d rows: %s", r.nrows, xgbLastError());
   /* a booster that trained and a matrix just made: only running out of memory fails */
   if (predictRows(x->booster, dm, false, &pred, &cause) < 0)
      fatal("%s", cause);
   double *sum = xMalloc((size_t)r.nprograms * sizeof *sum);
   packSum(&r, pred, sum);
   for (int p = 0; p < r.nprograms; p++)
      scores[r.sample[p]] = (float)sum[p];
   free(sum);
   XGDMatrixFree(dm);
   Rows_done(&r);
}

/* The training pack-sum RMSE over programs, and the gradients for the next round. */
static double rmseAndGradients(const Rows *r, const Dataset *d, const float *rowPred, double *sum, float *grad,
                               float *hess) {
   packSum(r, rowPred, sum);
   double se = 0;
   for (int p = 0; p < r->nprograms; p++) {
      double e = sum[p] - d->label[r->sample[p]];
      se += e * e;
   }
   for (int k = 0; k < r->nrows; k++) {
      int p = r->program[k];
      double y = d->label[r->sample[p]];
      grad[k] = (float)((sum[p] - y) * y);
      hess[k] = (float)y;
   }
   return sqrt(se / r->nprograms);
}

static int boost(BoosterHandle b, DMatrixHandle dm, const Rows *r, const Dataset *d, const TrainConfig *cfg,
                 char **cause) {
   double *sum = xMalloc((size_t)r->nprograms * sizeof *sum);
   float *grad = xMalloc((size_t)r->nrows * sizeof *grad);
   float *hess = xMalloc((size_t)r->nrows * sizeof *hess);
   double best = INFINITY;
   int bestRound = 0, rc = 0;
   const float *pred;
   if (predictRows(b, dm, true, &pred, cause) < 0)
      rc = -1;
   for (int round = 0; rc == 0 && round < XGB_MAX_ROUNDS; round++) {
      rmseAndGradients(r, d, pred, sum, grad, hess);
      if (XGBoosterBoostOneIter(b, dm, grad, hess, (bst_ulong)r->nrows) != 0) {
         rc = xgbError(cause, "boost a round");
         break;
      }
      /* the prediction cache makes this cheap: only the new tree is evaluated */
      if (predictRows(b, dm, true, &pred, cause) < 0) {
         rc = -1;
         break;
      }
      if (round % XGB_EVAL_EVERY != 0)
         continue;
      double rmse = rmseAndGradients(r, d, pred, sum, grad, hess);
      if (cfg->progress && !cfg->progress(cfg->ctx, round + 1, XGB_MAX_ROUNDS, rmse))
         break;
      if (rmse < best) {
         best = rmse;
         bestRound = round;
      } else if (round - bestRound >= XGB_EARLY_STOP) {
         break;
      }
   }
   free(hess);
   free(grad);
   free(sum);
   return rc;
}

static int xgbFit(CostModel *m, const Dataset *train, const TrainConfig *cfg, char **cause) {
   XgbModel *x = m->impl;
   bool learnable = false;
   for (int i = 0; i < train->n && !learnable; i++)
      learnable = train->label[i] > 0 && Dataset_rows(train, i) > 0;
   if (!learnable)
      return setCause(cause, "xgb: nothing to learn from: none of the %d samples has feature rows and a "
                             "successful measurement",
                      train->n);
   Rows r;
   Rows_gather(&r, train, true, x->width);
   float *label = xMalloc((size_t)r.nrows * sizeof *label);
   for (int k = 0; k < r.nrows; k++)
      label[k] = train->label[r.sample[r.program[k]]];
   DMatrixHandle dm = NULL;
   BoosterHandle b = NULL;
   int rc = 0;
   if (XGDMatrixCreateFromMat(r.x, (bst_ulong)r.nrows, (bst_ulong)r.width, NAN, &dm) != 0 ||
       XGDMatrixSetFloatInfo(dm, "label", label, (bst_ulong)r.nrows) != 0 ||
       XGDMatrixSetFloatInfo(dm, "weight", label, (bst_ulong)r.nrows) != 0)
      rc = xgbError(cause, "take the training data");
   else if (XGBoosterCreate(&dm, 1, &b) != 0)
      rc = xgbError(cause, "make a booster");
   else if (setParams(b, cause) < 0 || boost(b, dm, &r, train, cfg, cause) < 0)
      rc = -1;
   if (rc == 0) {
      if (x->booster)
         XGBoosterFree(x->booster);
      x->booster = b;
   } else if (b) {
      XGBoosterFree(b);
   }
   if (dm)
      XGDMatrixFree(dm);
   free(label);
   Rows_done(&r);
   return rc;
}

static int xgbSave(const CostModel *m, const char *path, char **cause) {
   const XgbModel *x = m->impl;
   bst_ulong len = 0;
   const char *bytes = NULL;
   if (x->booster && XGBoosterSaveModelToBuffer(x->booster, "{\"format\": \"ubj\"}", &len, &bytes) != 0)
      return xgbError(cause, "save the model");
   CheckpointWriter w;
   Checkpoint_create(&w, path, m->kind, m->opKinds);
   Checkpoint_putU64(w.f, (uint64_t)len);
   if (len > 0)
      Checkpoint_putBytes(w.f, bytes, (size_t)len);
   return CostModel_commit(m, &w, cause);
}

static void xgbFree(CostModel *m) {
   XgbModel *x = m->impl;
   if (x->booster)
      XGBoosterFree(x->booster);
   free(x);
}

static const CostModelOps xgbOps = {
   .predict = xgbPredict,
   .fit = xgbFit,
   .save = xgbSave,
   .free = xgbFree,
};

CostModel *XgbModel_new(uint64_t seed, char **cause) {
   XgbModel *x = xCalloc(1, sizeof *x);
   Rng_seed(&x->rng, seed);
   x->width = FEATURE_LEN;
   return CostModel_alloc(MODEL_XGB, &xgbOps, seed, x);
}

CostModel *XgbModel_newDevice(uint64_t seed, char **cause) {
   CostModel *m = XgbModel_new(seed, cause);
   ((XgbModel *)m->impl)->width = FEATURE_LEN + DEVICE_FEATURE_LEN;
   m->readsDevice = true;
   return m;
}

/* ---- the model's UBJSON, checked before XGBoost reads it ----
 *
 * XGBoost's parser allocates what a length or count in its input says before it looks
 * for the bytes, so a damaged checkpoint of a few bytes could make it ask for
 * gigabytes. Every length, count and nesting of the UBJSON (its draft 12, as XGBoost
 * writes it) is checked against the bytes left first. */

#define UBJSON_MAX_DEPTH 64

typedef struct {
   const unsigned char *p, *start, *end;
   int depth;
} Ubjson;

static size_t ubLeft(const Ubjson *u) {
   return (size_t)(u->end - u->p);
}

static bool ubSkip(Ubjson *u, uint64_t n) {
   if (n > ubLeft(u))
      return false;
   u->p += n;
   return true;
}

/* An integer with its marker (a length or a count), big-endian. */
static bool ubInt(Ubjson *u, int64_t *v) {
   if (ubLeft(u) < 1)
      return false;
   int m = *u->p++;
   int bytes = m == 'i' || m == 'U' ? 1 : m == 'I' ? 2 : m == 'l' ? 4 : m == 'L' ? 8 : 0;
   if (bytes == 0 || ubLeft(u) < (size_t)bytes)
      return false;
   uint64_t x = 0;
   for (int i = 0; i < bytes; i++)
      x = x << 8 | u->p[i];
   u->p += bytes;
   if (m == 'U')
      *v = (int64_t)x;
   else if (bytes < 8 && (x >> (8 * bytes - 1)) & 1)
      *v = (int64_t)x - ((int64_t)1 << (8 * bytes));
   else
      *v = (int64_t)x;
   return true;
}

/* The payload bytes of a fixed-size type, 0 for a type without any, -1 for one whose
 * size is in its payload (strings, containers) or that is not a type. */
static int ubFixed(int m) {
   switch (m) {
   case 'Z': case 'N': case 'T': case 'F': return 0;
   case 'i': case 'U': case 'C': return 1;
   case 'I': return 2;
   case 'l': case 'd': return 4;
   case 'L': case 'D': return 8;
   default: return -1;
   }
}

static bool ubContainer(Ubjson *u, bool object);

static bool ubPayload(Ubjson *u, int m) {
   int fixed = ubFixed(m);
   if (fixed >= 0)
      return ubSkip(u, (uint64_t)fixed);
   int64_t len;
   switch (m) {
   case 'S':
   case 'H': return ubInt(u, &len) && len >= 0 && ubSkip(u, (uint64_t)len);
   case '[': return ubContainer(u, false);
   case '{': return ubContainer(u, true);
   default: return false;
   }
}

static bool ubElement(Ubjson *u, bool object, int type) {
   int64_t len;
   if (object && !(ubInt(u, &len) && len >= 0 && ubSkip(u, (uint64_t)len)))
      return false;
   if (type)
      return ubPayload(u, type);
   return ubLeft(u) >= 1 && ubPayload(u, *u->p++);
}

static bool ubContainer(Ubjson *u, bool object) {
   if (++u->depth > UBJSON_MAX_DEPTH)
      return false;
   int type = 0;
   int64_t count = -1;
   if (ubLeft(u) >= 2 && *u->p == '$') {
      type = u->p[1];
      u->p += 2;
      if (ubLeft(u) < 1 || *u->p != '#')
         return false;
   }
   if (ubLeft(u) >= 1 && *u->p == '#') {
      u->p++;
      /* each element takes a byte at least, a fixed-size one its size */
      int fixed = type ? ubFixed(type) : -1;
      if (!ubInt(u, &count) || count < 0 || (uint64_t)count > ubLeft(u) ||
          (fixed > 0 && (uint64_t)count > ubLeft(u) / (uint64_t)fixed))
         return false;
      for (int64_t i = 0; i < count; i++)
         if (!ubElement(u, object, type))
            return false;
   } else {
      for (;;) {
         if (ubLeft(u) < 1)
            return false;
         if (*u->p == (object ? '}' : ']')) {
            u->p++;
            break;
         }
         if (!ubElement(u, object, 0))
            return false;
      }
   }
   u->depth--;
   return true;
}

/* Whether bytes are one UBJSON value whose lengths and counts all fit; -1 with the
 * offset where it goes wrong in *at otherwise. */
static int ubjsonCheck(const char *bytes, size_t len, size_t *at) {
   Ubjson u = { (const unsigned char *)bytes, (const unsigned char *)bytes, (const unsigned char *)bytes + len, 0 };
   bool ok = ubLeft(&u) >= 1 && ubPayload(&u, *u.p++);
   *at = (size_t)(u.p - u.start);
   return ok ? 0 : -1;
}

CostModel *XgbModel_load(FILE *f, const char *path, char **cause) {
   uint64_t len;
   if (Checkpoint_getU64(f, path, "the length of the XGBoost model", &len, cause) < 0)
      return NULL;
   if (Checkpoint_expect(f, path, "the XGBoost model", len, cause) < 0)
      return NULL;
   /* a pipe has no size to check the length against before it is allocated */
   if (len > XGB_MAX_MODEL_BYTES) {
      setCause(cause, "%s: the XGBoost model is %llu bytes long (at most %d)", path, (unsigned long long)len,
               XGB_MAX_MODEL_BYTES);
      return NULL;
   }
   CostModel *m = XgbModel_new(0, cause);
   if (len == 0)
      return m;
   XgbModel *x = m->impl;
   char *bytes = xMalloc((size_t)len);
   int rc = Checkpoint_getBytes(f, path, "the XGBoost model", bytes, (size_t)len, cause);
   size_t at = 0;
   if (rc == 0 && ubjsonCheck(bytes, (size_t)len, &at) < 0)
      rc = setCause(cause, "%s: the XGBoost model is not well-formed UBJSON: a marker, length or count at its byte %zu "
                           "does not fit in its %llu bytes",
                    path, at, (unsigned long long)len);
   if (rc == 0 && (XGBoosterCreate(NULL, 0, &x->booster) != 0 ||
                   XGBoosterLoadModelFromBuffer(x->booster, bytes, (bst_ulong)len) != 0)) {
      char *why = xgbLastError();
      rc = setCause(cause, "%s: XGBoost cannot read the model: %s", path, why);
      free(why);
   }
   bst_ulong columns = 0;
   if (rc == 0 && XGBoosterGetNumFeature(x->booster, &columns) != 0)
      rc = xgbError(cause, "say how many columns the model reads");
   else if (rc == 0 && columns != FEATURE_LEN && columns != FEATURE_LEN + DEVICE_FEATURE_LEN)
      rc = setCause(cause, "%s: the XGBoost model reads %llu columns; this program gives it %d (%d with the device's "
                           "features)", path, (unsigned long long)columns, FEATURE_LEN, FEATURE_LEN + DEVICE_FEATURE_LEN);
   if (rc == 0) {
      x->width = (int)columns;
      m->readsDevice = columns > FEATURE_LEN;
      rc = setParams(x->booster, cause);
   }
   free(bytes);
   if (rc < 0) {
      CostModel_free(m);
      return NULL;
   }
   m->trained = true;
   return m;
}
