/* The cost-model interface (DESIGN 3.4): a struct of operations every model fills in,
 * as nvtop does for GPU vendors. A model scores a batch of samples of one or more
 * tasks (higher is better; -INFINITY for a sample without feature rows), learns from
 * measured samples, and saves itself to a checkpoint that CostModel_load reads back.
 * A frozen model never learns. Models: random, psa (Pruner's draft model, from the
 * samples' PSA estimate), xgb (XGBoost, pack-sum objective), mlp (TenSet's MLP), pam
 * (Pruner's verify model) and pam-moa (PAM with MoA's momentum-updated slow copy).
 * A checkpoint is a little-endian file: the magic "PTUICKPT", u32 format version (2),
 * u32 model kind (the ModelKind number), u32 header bytes (28), u32 op kinds, u32
 * CRC-32 of the rest, then the model's own payload and, when the model has one, its
 * latency head (cost/latency.h); cost/checkpoint.h has the details and the readers
 * and writers. Each model
 * lives in its own file and is listed once in model.c's table (cost/models.h). A model
 * is used from one thread at a time. */
#ifndef HEADER_model
#define HEADER_model

#include <stdbool.h>
#include <stdint.h>

#include "cost/dataset.h"

/* The numbers are part of the checkpoint format (cost/checkpoint.h): append only. */
typedef enum {
   MODEL_RANDOM,
   MODEL_PSA,
   MODEL_XGB,
   MODEL_MLP,
   MODEL_PAM,
   MODEL_PAM_MOA,
   MODEL_KIND_COUNT
} ModelKind;

/* "random", "psa", "xgb", "mlp", "pam", "pam-moa"; "?" out of range */
const char *ModelKind_name(ModelKind k);
int ModelKind_parse(const char *name);      /* -1 when unknown */

/* How a learned model trains (pruner.md 2.4, ansor.md 5.3-5.4 for the defaults). */
typedef struct TrainConfig_ {
   int epochs;                  /* at most; 50 */
   int earlyStop;               /* epochs without a better training loss; 16 */
   int batch;                   /* 512 */
   double lr;                   /* 7e-4 */
   double weightDecay;          /* 1e-6 */
   double clip;                 /* gradient-norm clipping; 0.5 */
   bool fromScratch;            /* re-initialize before training (else warm start) */
   int replay;                  /* online rounds after the first: train on the samples
                                   new since the last round and at most this many of the
                                   earlier ones, drawn at random (0: on all samples) */
   int roundEpochs;             /* online rounds after the first: at most this many
                                   epochs (0: `epochs`). Both bounds apply to the models
                                   that warm-start (mlp, pam, pam-moa); the others
                                   retrain on every sample each round */
   uint64_t seed;
   /* called after every epoch, when set; return false to stop early */
   bool (*progress)(void *ctx, int epoch, int epochs, double loss);
   void *ctx;
} TrainConfig;

void TrainConfig_default(TrainConfig *c);

typedef struct CostModel_ CostModel;

typedef struct CostModelOps_ {
   /* scores[i] for every sample of batch */
   void (*predict)(CostModel *m, const Dataset *batch, float *scores);
   /* learns from the labelled samples of train; -1 with *cause when it cannot */
   int (*fit)(CostModel *m, const Dataset *train, const TrainConfig *cfg, char **cause);
   int (*save)(const CostModel *m, const char *path, char **cause);   /* NULL: nothing to save */
   /* an exact copy; NULL: CostModel_clone goes through a checkpoint */
   CostModel *(*clone)(const CostModel *m, char **cause);
   void (*free)(CostModel *m);
} CostModelOps;

struct CostModel_ {
   ModelKind kind;
   const CostModelOps *ops;
   bool frozen;                 /* fit does nothing */
   bool trained;                /* has learned from data (or was loaded) */
   bool readsDevice;            /* its input includes the sample's device features */
   uint32_t opKinds;            /* bit k: learned from tasks of OpKind k (te/op.h), as
                                   pruner-tui train records it; 0 unknown */
   uint64_t seed;
   void *impl;
   struct NeuralNet_ *latency;  /* the latency head (cost/latency.h); NULL without one */
   int latencyBase;             /* its LatencyBase: what its ratio is over */
};

/* A fresh model of that kind. NULL with *cause for a kind this build lacks (xgb when
 * XGBoost was not built in). random and psa start frozen: they never learn. */
CostModel *CostModel_new(ModelKind kind, uint64_t seed, char **cause);
/* A fresh model of that kind whose input includes the features of the sample's device
 * (Dataset_device), for training on records of several devices: xgb, mlp, pam and
 * pam-moa.
 * NULL with *cause for the others. */
CostModel *CostModel_newDevice(ModelKind kind, uint64_t seed, char **cause);
/* A model saved by CostModel_save; the file says its kind (cost/checkpoint.h). */
CostModel *CostModel_load(const char *path, char **cause);
/* Whether this build has the kind; *why says what it lacks when not (static text). */
bool CostModel_available(ModelKind kind, const char **why);
void CostModel_predict(CostModel *m, const Dataset *batch, float *scores);
/* Learns from the labels of train (Dataset_relabel's); cfg NULL for the defaults.
 * Does nothing and returns 0 when m is frozen; sets trained when it learned. */
int CostModel_fit(CostModel *m, const Dataset *train, const TrainConfig *cfg, char **cause);
/* A checkpoint of m at path; for a model without state (ops->save NULL), the header
 * alone, which CostModel_load turns into a fresh model of the kind. */
int CostModel_save(const CostModel *m, const char *path, char **cause);
/* A copy that predicts exactly as m does (the model's own copy, else through a
 * checkpoint in $TMPDIR); NULL with *cause when it cannot be made. */
CostModel *CostModel_clone(const CostModel *m, char **cause);
void CostModel_free(CostModel *m);  /* NULL is fine */

/* Trains m's latency head on train (a fresh one, from m's seed, replacing any it had;
 * cfg NULL for the head's defaults): cost/latency.h. -1 with *cause when it cannot
 * learn. */
int CostModel_fitLatency(CostModel *m, const Dataset *train, const TrainConfig *cfg, char **cause);
/* ms[i], the latency head's estimate for every sample of batch; false (ms untouched)
 * when m has no head. */
bool CostModel_predictLatency(CostModel *m, const Dataset *batch, float *ms);

#endif
