/* The cost models' own files, as model.c's table lists them: each kind has a
 * constructor and, when its checkpoint has a payload, a loader that reads it. A new
 * model adds its two declarations here and its line to the table. */
#ifndef HEADER_models
#define HEADER_models

#include <stdint.h>
#include <stdio.h>

#include "cost/model.h"

/* A model of that kind with those operations, not frozen nor trained. */
CostModel *CostModel_alloc(ModelKind kind, const CostModelOps *ops, uint64_t seed, void *impl);

/* cost/random_model.c: uniform scores (Ansor's RandomModel). Payload: u64 seed. */
CostModel *RandomModel_new(uint64_t seed, char **cause);
CostModel *RandomModel_load(FILE *f, const char *path, char **cause);

/* cost/psa_model.c: 1 / the samples' PSA latency. No payload. */
CostModel *PsaModel_new(uint64_t seed, char **cause);

#ifdef HAVE_XGBOOST
/* cost/xgb_model.c: Ansor's XGBModel. */
CostModel *XgbModel_new(uint64_t seed, char **cause);
CostModel *XgbModel_load(FILE *f, const char *path, char **cause);
#endif

#endif
