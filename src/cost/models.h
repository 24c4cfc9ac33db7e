/* The cost models' own files, as model.c's table lists them: each kind has a
 * constructor and, when its checkpoint has a payload, a loader that reads it. A new
 * model adds its two declarations here and its line to the table. */
#ifndef HEADER_models
#define HEADER_models

#include <stdint.h>
#include <stdio.h>

#include "cost/checkpoint.h"
#include "cost/model.h"
#include "cost/neural.h"

/* A model of that kind with those operations, not frozen nor trained. */
CostModel *CostModel_alloc(ModelKind kind, const CostModelOps *ops, uint64_t seed, void *impl);
/* What every model's save ends with: m's latency head, when it has one, after the
 * payload, then Checkpoint_commit. */
int CostModel_commit(const CostModel *m, CheckpointWriter *w, char **cause);

/* cost/random_model.c: uniform scores (Ansor's RandomModel). Payload: u64 seed. */
CostModel *RandomModel_new(uint64_t seed, char **cause);
CostModel *RandomModel_load(FILE *f, const char *path, char **cause);

/* cost/psa_model.c: 1 / the samples' PSA latency. No payload. */
CostModel *PsaModel_new(uint64_t seed, char **cause);

/* cost/mlp_model.c: TenSet's MLP. Payload: one network (cost/neural.h). */
CostModel *MlpModel_new(uint64_t seed, char **cause);
CostModel *MlpModel_newDevice(uint64_t seed, char **cause);   /* reading the device too */
CostModel *MlpModel_load(FILE *f, const char *path, char **cause);

/* cost/pam_model.c: Pruner's PAM. Payload: one network (cost/neural.h). */
CostModel *PamModel_new(uint64_t seed, char **cause);
CostModel *PamModel_newDevice(uint64_t seed, char **cause);
CostModel *PamModel_load(FILE *f, const char *path, char **cause);
/* cost/pam_model.c: MoA-Pruner's pam-moa. PamMoa_new's slow copy is a fresh network
 * from the seed; PamMoa_fromPretrained copies the network of a pam model (which the
 * caller keeps) as the slow copy, and NULL with *cause when pam is another kind. */
CostModel *PamMoa_new(uint64_t seed, char **cause);
CostModel *PamMoa_newDevice(uint64_t seed, char **cause);
CostModel *PamMoa_load(FILE *f, const char *path, char **cause);
CostModel *PamMoa_fromPretrained(const CostModel *pam, char **cause);
/* A pam-moa model's networks (fast NULL before the first fit) and its count of
 * updates, for tests and displays. */
void PamMoa_state(const CostModel *m, NeuralNet **slow, NeuralNet **fast, uint32_t *updates);

#ifdef HAVE_XGBOOST
/* cost/xgb_model.c: Ansor's XGBModel. */
CostModel *XgbModel_new(uint64_t seed, char **cause);
CostModel *XgbModel_newDevice(uint64_t seed, char **cause);
CostModel *XgbModel_load(FILE *f, const char *path, char **cause);
#endif

#endif
