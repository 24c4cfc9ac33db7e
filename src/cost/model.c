/* The cost-model registry (one table line per kind) and the dispatch every caller
 * goes through. */
#include "config.h"

#include "cost/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost/checkpoint.h"
#include "cost/latency.h"
#include "cost/models.h"
#include "util/xalloc.h"

typedef struct ModelEntry_ {
   const char *name;
   /* NULL: not in this build, for the reason in `missing` */
   CostModel *(*create)(uint64_t seed, char **cause);
   /* NULL: the checkpoint has no payload, and loading makes a fresh model */
   CostModel *(*load)(FILE *f, const char *path, char **cause);
   const char *missing;
   /* the kind reading the device's features too; NULL: it cannot */
   CostModel *(*createDevice)(uint64_t seed, char **cause);
} ModelEntry;

static const ModelEntry models[MODEL_KIND_COUNT] = {
   [MODEL_RANDOM] = { "random", RandomModel_new, RandomModel_load, NULL },
   [MODEL_PSA] = { "psa", PsaModel_new, NULL, NULL },
#ifdef HAVE_XGBOOST
   [MODEL_XGB] = { "xgb", XgbModel_new, XgbModel_load, NULL, XgbModel_newDevice },
#else
   [MODEL_XGB] = { "xgb", NULL, NULL, "XGBoost was not found when it was configured (libxgboost-dev)" },
#endif
   [MODEL_MLP] = { "mlp", MlpModel_new, MlpModel_load, NULL, MlpModel_newDevice },
   [MODEL_PAM] = { "pam", PamModel_new, PamModel_load, NULL, PamModel_newDevice },
   [MODEL_PAM_MOA] = { "pam-moa", PamMoa_new, PamMoa_load, NULL, PamMoa_newDevice },
};

const char *ModelKind_name(ModelKind k) {
   return (unsigned)k < MODEL_KIND_COUNT ? models[k].name : "?";
}

int ModelKind_parse(const char *name) {
   for (int k = 0; k < MODEL_KIND_COUNT; k++)
      if (strcmp(models[k].name, name) == 0)
         return k;
   return -1;
}

void TrainConfig_default(TrainConfig *c) {
   memset(c, 0, sizeof *c);
   c->epochs = 50;
   c->earlyStop = 16;
   c->batch = 512;
   c->lr = 7e-4;
   c->weightDecay = 1e-6;
   c->clip = 0.5;
   c->fromScratch = false;
   c->seed = 0;
}

CostModel *CostModel_alloc(ModelKind kind, const CostModelOps *ops, uint64_t seed, void *impl) {
   CostModel *m = xCalloc(1, sizeof *m);
   m->kind = kind;
   m->ops = ops;
   m->seed = seed;
   m->impl = impl;
   return m;
}

bool CostModel_available(ModelKind kind, const char **why) {
   if ((unsigned)kind >= MODEL_KIND_COUNT) {
      if (why)
         *why = "no such model";
      return false;
   }
   if (why)
      *why = models[kind].missing;
   return models[kind].create != NULL;
}

CostModel *CostModel_new(ModelKind kind, uint64_t seed, char **cause) {
   const char *why;
   if (!CostModel_available(kind, &why)) {
      setCause(cause, "model %s is not available in this build: %s", ModelKind_name(kind), why);
      return NULL;
   }
   return models[kind].create(seed, cause);
}

CostModel *CostModel_newDevice(ModelKind kind, uint64_t seed, char **cause) {
   const char *why;
   if (!CostModel_available(kind, &why)) {
      setCause(cause, "model %s is not available in this build: %s", ModelKind_name(kind), why);
      return NULL;
   }
   if (!models[kind].createDevice) {
      setCause(cause, "model %s does not read the device's features (xgb, mlp, pam and pam-moa do)", ModelKind_name(kind));
      return NULL;
   }
   return models[kind].createDevice(seed, cause);
}

/* The latency head after the payload, when the next bytes are its tag. */
static int readLatencyHead(CostModel *m, FILE *f, const char *path, char **cause) {
   if (Checkpoint_remaining(f) < 4)
      return 0;
   off_t at = ftello(f);
   uint32_t tag;
   if (Checkpoint_getU32(f, path, "the latency head's tag", &tag, cause) < 0)
      return -1;
   if (tag != LATENCY_HEAD_TAG && tag != LATENCY_HEAD_TAG_ROOFLINE) {
      fseeko(f, at, SEEK_SET);   /* not a head: Checkpoint_getEnd names the bytes */
      return 0;
   }
   m->latencyBase = tag == LATENCY_HEAD_TAG ? LATENCY_BASE_PSA : LATENCY_BASE_ROOFLINE;
   m->latency = LatencyHead_read(f, path, cause);
   return m->latency ? 0 : -1;
}

CostModel *CostModel_load(const char *path, char **cause) {
   ModelKind kind;
   uint32_t opKinds;
   FILE *f = Checkpoint_open(path, &kind, &opKinds, cause);
   if (!f)
      return NULL;
   const char *why;
   CostModel *m = NULL;
   if (!CostModel_available(kind, &why))
      setCause(cause, "%s: model %s is not available in this build: %s", path, ModelKind_name(kind), why);
   else if (models[kind].load)
      m = models[kind].load(f, path, cause);
   else
      m = models[kind].create(0, cause);
   if (m && readLatencyHead(m, f, path, cause) < 0) {
      CostModel_free(m);
      m = NULL;
   }
   if (m && Checkpoint_getEnd(f, path, cause) < 0) {
      CostModel_free(m);
      m = NULL;
   }
   if (m)
      m->opKinds = opKinds;
   fclose(f);
   return m;
}

void CostModel_predict(CostModel *m, const Dataset *batch, float *scores) {
   m->ops->predict(m, batch, scores);
}

int CostModel_fit(CostModel *m, const Dataset *train, const TrainConfig *cfg, char **cause) {
   if (m->frozen)
      return 0;
   TrainConfig defaults;
   if (!cfg) {
      TrainConfig_default(&defaults);
      cfg = &defaults;
   }
   if (m->ops->fit(m, train, cfg, cause) < 0)
      return -1;
   m->trained = true;
   return 0;
}

int CostModel_save(const CostModel *m, const char *path, char **cause) {
   if (m->ops->save)
      return m->ops->save(m, path, cause);
   CheckpointWriter w;
   Checkpoint_create(&w, path, m->kind, m->opKinds);
   return CostModel_commit(m, &w, cause);
}

int CostModel_commit(const CostModel *m, CheckpointWriter *w, char **cause) {
   if (m->latency) {
      if (NeuralNet_checkSave(m->latency, w->out.path, cause) < 0) {
         Checkpoint_abandon(w);
         return -1;
      }
      Checkpoint_putU32(w->f, m->latencyBase == LATENCY_BASE_PSA ? LATENCY_HEAD_TAG : LATENCY_HEAD_TAG_ROOFLINE);
      NeuralNet_write(m->latency, w->f);
   }
   return Checkpoint_commit(w, cause);
}

int CostModel_fitLatency(CostModel *m, const Dataset *train, const TrainConfig *cfg, char **cause) {
   NeuralNet *head = LatencyHead_new(m->seed);
   if (LatencyHead_fit(head, LATENCY_BASE_ROOFLINE, train, cfg, cause) < 0) {
      NeuralNet_free(head);
      return -1;
   }
   NeuralNet_free(m->latency);
   m->latency = head;
   m->latencyBase = LATENCY_BASE_ROOFLINE;
   return 0;
}

bool CostModel_predictLatency(CostModel *m, const Dataset *batch, float *ms) {
   if (!m->latency)
      return false;
   LatencyHead_predict(m->latency, (LatencyBase)m->latencyBase, batch, ms);
   return true;
}

CostModel *CostModel_clone(const CostModel *m, char **cause) {
   if (m->ops->clone) {
      CostModel *copy = m->ops->clone(m, cause);
      if (copy) {
         copy->opKinds = m->opKinds;
         copy->latency = m->latency ? NeuralNet_copy(m->latency) : NULL;
         copy->latencyBase = m->latencyBase;
      }
      return copy;
   }
   /* through a checkpoint: what save and load keep is the whole model, so a copy made
    * this way predicts as the original does */
   const char *dir = getenv("TMPDIR");
   char *path = xAsprintf("%s/pruner-tui-clone-XXXXXX", dir && *dir ? dir : "/tmp");
   int fd = mkstemp(path);
   CostModel *copy = NULL;
   if (fd < 0) {
      setCause(cause, "%s: %s", path, strerror(errno));
   } else {
      close(fd);
      if (CostModel_save(m, path, cause) == 0 && (copy = CostModel_load(path, cause))) {
         copy->frozen = m->frozen;
         copy->trained = m->trained;
         copy->seed = m->seed;
      }
      unlink(path);
   }
   free(path);
   return copy;
}

void CostModel_free(CostModel *m) {
   if (!m)
      return;
   NeuralNet_free(m->latency);
   m->ops->free(m);
   free(m);
}
