/* Session events as JSON lines: one table of keys per kind of event drives writing,
 * reading and checking alike; a writer that appends a round at a time, and a reader
 * of the whole file. */
#include "config.h"

#include "tune/session.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "measure/gpustate.h"
#include "tune/command.h"
#include "util/jsonl.h"
#include "util/textbuf.h"
#include "util/xalloc.h"

/* ---- the keys of each kind of event ---- */

typedef enum {
   F_VERSION,                   /* int, at least 1, at most SESSION_FORMAT_VERSION */
   F_INT,                       /* int, 0 to INT_MAX */
   F_INT53,                     /* int64_t, 0 to 2^53 - 1 */
   F_START,                     /* int64_t, 0 to 2^53 - 1; wall clock */
   F_SECONDS,                   /* double, finite, at least 0 */
   F_CLOCK,                     /* double, finite, at least 0; wall clock */
   F_SPENT,                     /* as F_CLOCK, read as 0 when absent (files before the key) */
   F_OPTIONAL,                  /* double or null (NAN) */
   F_LATER,                     /* as F_OPTIONAL, NAN when absent (a key added later) */
   F_KNOWN,                     /* a finite double, left out when NAN (not known) and read
                                   as NAN when absent */
   F_BOUND,                     /* as F_KNOWN, above 0; left out when not above 0 (none) */
   F_STRING,                    /* char *, required */
   F_MESSAGE,                   /* char *, left out when "" and read as "" when absent */
   F_BOOL,
   F_COSTS,                     /* measure.ncosts and measure.costs */
   F_TASKS,                     /* header.ntasks and header.tasks */
   F_WHY,                       /* SessionEnd by name */
   F_THROTTLED,                 /* unsigned GPU_THROTTLE_* bits as names; left out when 0,
                                   read as 0 when absent */
   F_FLEET,                     /* as F_MESSAGE; how the measurements were spread */
   F_FLEET_SIZE,                /* int, 1 to INT_MAX, left out when 0 (unknown) and read as 0
                                   when absent; as F_FLEET */
   F_DEVICES,                   /* roundEnd.ndevices and roundEnd.devices; left out when
                                   none and read as none when absent; as F_FLEET */
   F_COUNTERS                   /* Counters as a record's (counters.h); left out when not
                                   present and read as not present when absent */
} FieldType;

typedef struct {
   const char *key;
   FieldType type;
   size_t offset;               /* in SessionEvent */
} Field;

#define MAX_EXACT_INTEGER 9007199254740991.0
#define AT(member) offsetof(SessionEvent, member)

static const Field headerFields[] = {
   { "v", F_VERSION, AT(header.version) },
   { "network", F_STRING, AT(header.network) },
   { "network_file", F_STRING, AT(header.networkFile) },
   { "network_inputs", F_MESSAGE, AT(header.networkInputs) },
   { "device", F_STRING, AT(header.device) },
   { "simulated", F_BOOL, AT(header.simulated) },
   { "policy", F_STRING, AT(header.policy) },
   { "cost_model", F_STRING, AT(header.costModel) },
   { "checkpoint", F_MESSAGE, AT(header.checkpoint) },
   { "trials", F_INT, AT(header.trialBudget) },
   { "per_round", F_INT, AT(header.measuresPerRound) },
   { "seed", F_INT53, AT(header.seed) },
   { "start", F_START, AT(header.startTime) },
   { "fleet", F_FLEET, AT(header.fleet) },
   { "fleet_size", F_FLEET_SIZE, AT(header.fleetSize) },
   { "precision", F_MESSAGE, AT(header.precision) },
   { "max_error", F_BOUND, AT(header.maxError) },
   { "error_split", F_MESSAGE, AT(header.errorSplit) },
   { "tasks", F_TASKS, 0 },
};

/* every event but the header starts with these */
#define COMMON { "round", F_INT, AT(round) }, { "t", F_CLOCK, AT(elapsed) }

static const Field roundFields[] = {
   COMMON,
   { "task", F_INT, AT(roundStart.task) },
   { "trials", F_INT, AT(roundStart.trials) },
};

static const Field measureFields[] = {
   COMMON,
   { "task", F_INT, AT(measure.task) },
   { "state", F_STRING, AT(measure.state) },
   { "costs", F_COSTS, 0 },
   { "error", F_STRING, AT(measure.error) },
   { "message", F_MESSAGE, AT(measure.message) },
   { "lineage", F_STRING, AT(measure.lineage) },
   { "draft", F_OPTIONAL, AT(measure.draftScore) },
   { "verify", F_OPTIONAL, AT(measure.verifyScore) },
   { "build_s", F_SPENT, AT(measure.buildSeconds) },
   { "run_s", F_SPENT, AT(measure.runSeconds) },
   { "throttled", F_THROTTLED, AT(measure.throttled) },
   { "predicted_error", F_KNOWN, AT(measure.predictedError) },
   { "output_error", F_KNOWN, AT(measure.outputError) },
};

static const Field modelFields[] = {
   COMMON,
   { "seconds", F_CLOCK, AT(model.seconds) },
   { "samples", F_INT, AT(model.samples) },
   { "error", F_MESSAGE, AT(model.error) },
};

static const Field bestFields[] = {
   COMMON,
   { "task", F_INT, AT(best.task) },
   { "latency", F_SECONDS, AT(best.latency) },
   { "counters", F_COUNTERS, AT(best.counters) },
};

static const Field commandFields[] = {
   COMMON,
   { "text", F_STRING, AT(command.text) },
   { "applied", F_BOOL, AT(command.applied) },
   { "why", F_MESSAGE, AT(command.why) },
};

static const Field searchFields[] = {
   COMMON,
   { "task", F_INT, AT(search.task) },
   { "drafted", F_BOOL, AT(search.drafted) },
   { "sampled", F_INT, AT(search.sampled) },
   { "drafts", F_INT, AT(search.drafts) },
   { "population", F_INT, AT(search.population) },
   { "kept", F_INT, AT(search.kept) },
   { "picks", F_INT, AT(search.picks) },
   { "from_drafts", F_INT, AT(search.fromDrafts) },
   { "random", F_INT, AT(search.random) },
   { "seconds", F_SPENT, AT(search.seconds) },
   { "best_rank", F_LATER, AT(search.bestRank) },
};

static const Field roundEndFields[] = {
   COMMON,
   { "trials", F_INT, AT(roundEnd.trials) },
   { "latency_ms", F_OPTIONAL, AT(roundEnd.latencyMs) },
   { "acceptance", F_OPTIONAL, AT(roundEnd.acceptance) },
   { "tau", F_OPTIONAL, AT(roundEnd.tau) },
   { "draft_rank", F_OPTIONAL, AT(roundEnd.draftRank) },
   { "verify_rank", F_OPTIONAL, AT(roundEnd.verifyRank) },
   { "devices", F_DEVICES, 0 },
};

static const Field resumedFields[] = {
   COMMON,
   { "trials", F_INT, AT(resumed.trials) },
   { "notice", F_MESSAGE, AT(resumed.notice) },
};

static const Field finishedFields[] = {
   COMMON,
   { "why", F_WHY, AT(finished.why) },
};

typedef struct {
   const char *name;
   const Field *fields;
   int nfields;
} KindInfo;

#define KIND(name, fields) { name, fields, (int)(sizeof fields / sizeof fields[0]) }

static const KindInfo kinds[SESSION_EVENT_COUNT] = {
   [SESSION_HEADER] = KIND("header", headerFields),
   [SESSION_ROUND] = KIND("round", roundFields),
   [SESSION_MEASURE] = KIND("measure", measureFields),
   [SESSION_MODEL] = KIND("model", modelFields),
   [SESSION_BEST] = KIND("best", bestFields),
   [SESSION_COMMAND] = KIND("command", commandFields),
   [SESSION_ROUND_END] = KIND("round_end", roundEndFields),
   [SESSION_FINISHED] = KIND("finished", finishedFields),
   [SESSION_SEARCH] = KIND("search", searchFields),
   [SESSION_RESUMED] = KIND("resumed", resumedFields),
};

static const char *const endNames[SESSION_END_COUNT] = {
   [SESSION_END_BUDGET] = "budget",
   [SESSION_END_STOPPED] = "stopped",
   [SESSION_END_ALL_DEAD] = "all dead",
};

const char *SessionEventKind_name(SessionEventKind k) {
   return (unsigned)k < SESSION_EVENT_COUNT ? kinds[k].name : NULL;
}

const char *SessionEnd_name(SessionEnd e) {
   return (unsigned)e < SESSION_END_COUNT ? endNames[e] : NULL;
}

static const char *expectation(FieldType t) {
   switch (t) {
   case F_VERSION: return "an integer format version of at least 1";
   case F_INT: return "an integer from 0 to 2147483647";
   case F_FLEET_SIZE: return "an integer from 1 to 2147483647";
   case F_INT53:
   case F_START: return "an integer from 0 to 9007199254740991";
   case F_SECONDS:
   case F_CLOCK:
   case F_SPENT: return "a finite number of seconds, at least 0";
   case F_OPTIONAL:
   case F_LATER: return "a finite number or null";
   case F_KNOWN: return "a finite number";
   case F_BOUND: return "a finite number above 0";
   case F_STRING:
   case F_MESSAGE:
   case F_FLEET: return "a string";
   case F_BOOL: return "true or false";
   case F_COSTS: return "an array of 1 to 32 finite numbers";
   case F_TASKS: return "an array of strings";
   case F_WHY: return "one of \"budget\", \"stopped\", \"all dead\"";
   case F_THROTTLED: return "an array of throttle reason names";
   case F_DEVICES: return "an array of 2 to 16 device objects";
   case F_COUNTERS: return "an object of counters";
   }
   return "?";
}

_Static_assert(SESSION_MAX_COSTS == 32, "the costs key's message says 32");

static bool isClock(FieldType t) {
   return t == F_CLOCK || t == F_SPENT || t == F_START;
}

/* keys that two runs with the same seed may differ in: the clock's and the fleet's */
static bool isCircumstance(FieldType t) {
   return isClock(t) || t == F_FLEET || t == F_FLEET_SIZE || t == F_DEVICES;
}

static bool isText(FieldType t) {
   return t == F_STRING || t == F_MESSAGE || t == F_FLEET;
}

/* a name for char *, so that const applies to the pointer in CSLOT */
typedef char *Text;

#define SLOT(e, f, type) ((type *)((char *)(e) + (f)->offset))
#define CSLOT(e, f, type) ((const type *)((const char *)(e) + (f)->offset))

/* ---- events ---- */

void SessionEvent_done(SessionEvent *e) {
   if ((unsigned)e->kind < SESSION_EVENT_COUNT) {
      const KindInfo *ki = &kinds[e->kind];
      for (int i = 0; i < ki->nfields; i++) {
         const Field *f = &ki->fields[i];
         if (isText(f->type))
            free(*SLOT(e, f, char *));
         else if (f->type == F_TASKS) {
            for (int t = 0; t < e->header.ntasks; t++)
               free(e->header.tasks[t]);
            free(e->header.tasks);
         } else if (f->type == F_DEVICES) {
            for (int d = 0; d < e->roundEnd.ndevices; d++) {
               free(e->roundEnd.devices[d].name);
               free(e->roundEnd.devices[d].why);
            }
            free(e->roundEnd.devices);
         }
      }
   }
   memset(e, 0, sizeof *e);
}

void SessionEvent_copy(SessionEvent *dst, const SessionEvent *src) {
   *dst = *src;
   if ((unsigned)src->kind >= SESSION_EVENT_COUNT)
      return;
   const KindInfo *ki = &kinds[src->kind];
   for (int i = 0; i < ki->nfields; i++) {
      const Field *f = &ki->fields[i];
      if (isText(f->type)) {
         const char *text = *CSLOT(src, f, Text);
         *SLOT(dst, f, char *) = text ? xStrdup(text) : NULL;
      } else if (f->type == F_TASKS) {
         dst->header.tasks = xCalloc((size_t)src->header.ntasks + 1, sizeof *dst->header.tasks);
         for (int t = 0; t < src->header.ntasks; t++)
            dst->header.tasks[t] = xStrdup(src->header.tasks[t]);
      } else if (f->type == F_DEVICES && src->roundEnd.ndevices > 0) {
         dst->roundEnd.devices = xCalloc((size_t)src->roundEnd.ndevices, sizeof *dst->roundEnd.devices);
         for (int d = 0; d < src->roundEnd.ndevices; d++) {
            const SessionDevice *from = &src->roundEnd.devices[d];
            SessionDevice *to = &dst->roundEnd.devices[d];
            *to = *from;
            to->name = xStrdup(from->name ? from->name : "");
            to->why = xStrdup(from->why ? from->why : "");
         }
      }
   }
}

/* ---- writing a line ---- */

static void put(cJSON *object, const char *key, cJSON *item) {
   if (!item || !cJSON_AddItemToObject(object, key, item))
      fatal("out of memory building a session event");
}

static cJSON *integer(int64_t v) {
   char text[24];
   snprintf(text, sizeof text, "%" PRId64, v);
   return cJSON_CreateRaw(text);
}

static void putDevices(cJSON *o, const Field *f, const SessionEvent *e) {
   if (e->roundEnd.ndevices == 0)
      return;
   cJSON *a = cJSON_CreateArray();
   put(o, f->key, a);
   for (int i = 0; i < e->roundEnd.ndevices; i++) {
      const SessionDevice *d = &e->roundEnd.devices[i];
      cJSON *item = cJSON_CreateObject();
      if (!item || !cJSON_AddItemToArray(a, item))
         fatal("out of memory building a session event");
      put(item, "name", cJSON_CreateString(d->name ? d->name : ""));
      put(item, "n", integer(d->measured));
      put(item, "busy_s", JsonLines_numberItem(d->busySeconds));
      put(item, "failed", integer(d->failed));
      put(item, "retired", cJSON_CreateBool(d->retired));
      if (d->why && *d->why)
         put(item, "why", cJSON_CreateString(d->why));
   }
}

static void putField(cJSON *o, const SessionEvent *e, const Field *f) {
   switch (f->type) {
   case F_VERSION: put(o, f->key, integer(SESSION_FORMAT_VERSION)); break;
   case F_INT: put(o, f->key, integer(*CSLOT(e, f, int))); break;
   case F_FLEET_SIZE:
      if (*CSLOT(e, f, int) > 0)
         put(o, f->key, integer(*CSLOT(e, f, int)));
      break;
   case F_INT53:
   case F_START: put(o, f->key, integer(*CSLOT(e, f, int64_t))); break;
   case F_SECONDS:
   case F_CLOCK:
   case F_SPENT:
   case F_OPTIONAL:
   case F_LATER: put(o, f->key, JsonLines_numberItem(*CSLOT(e, f, double))); break;
   case F_KNOWN:
   case F_BOUND:
      if (f->type == F_KNOWN ? !isnan(*CSLOT(e, f, double)) : *CSLOT(e, f, double) > 0)
         put(o, f->key, JsonLines_numberItem(*CSLOT(e, f, double)));
      break;
   case F_STRING: {
      const char *s = *CSLOT(e, f, Text);
      put(o, f->key, cJSON_CreateString(s ? s : ""));
      break;
   }
   case F_MESSAGE:
   case F_FLEET: {
      const char *s = *CSLOT(e, f, Text);
      if (s && *s)
         put(o, f->key, cJSON_CreateString(s));
      break;
   }
   case F_BOOL: put(o, f->key, cJSON_CreateBool(*CSLOT(e, f, bool))); break;
   case F_COSTS: {
      cJSON *a = cJSON_CreateArray();
      put(o, f->key, a);
      for (int i = 0; i < e->measure.ncosts && i < SESSION_MAX_COSTS; i++)
         if (!cJSON_AddItemToArray(a, JsonLines_numberItem(e->measure.costs[i])))
            fatal("out of memory building a session event");
      break;
   }
   case F_TASKS: {
      cJSON *a = cJSON_CreateArray();
      put(o, f->key, a);
      for (int i = 0; i < e->header.ntasks; i++) {
         const char *s = e->header.tasks[i];
         if (!cJSON_AddItemToArray(a, cJSON_CreateString(s ? s : "")))
            fatal("out of memory building a session event");
      }
      break;
   }
   case F_WHY: {
      const char *name = SessionEnd_name(*CSLOT(e, f, SessionEnd));
      put(o, f->key, cJSON_CreateString(name ? name : "?"));
      break;
   }
   case F_THROTTLED:
      if (*CSLOT(e, f, unsigned))
         put(o, f->key, GpuThrottle_toJson(*CSLOT(e, f, unsigned)));
      break;
   case F_DEVICES: putDevices(o, f, e); break;
   case F_COUNTERS:
      if (CSLOT(e, f, Counters)->present)
         put(o, f->key, Counters_toJson(CSLOT(e, f, Counters)));
      break;
   }
}

char *SessionEvent_toJson(const SessionEvent *e, bool withClock) {
   cJSON *o = cJSON_CreateObject();
   if (!o)
      fatal("out of memory building a session event");
   const char *name = SessionEventKind_name(e->kind);
   put(o, "event", cJSON_CreateString(name ? name : "?"));
   if (name) {
      const KindInfo *ki = &kinds[e->kind];
      for (int i = 0; i < ki->nfields; i++)
         if (withClock || !isCircumstance(ki->fields[i].type))
            putField(o, e, &ki->fields[i]);
   }
   char *line = cJSON_PrintUnformatted(o);
   cJSON_Delete(o);
   if (!line)
      fatal("out of memory printing a session event");
   return line;
}

/* ---- reading a line ---- */

static void describe(const cJSON *item, char *buf, size_t size) {
   if (cJSON_IsNumber(item))
      JsonLines_number(item->valuedouble, buf, size);
   else
      snprintf(buf, size, "%s",
               cJSON_IsString(item) ? "a string"
               : cJSON_IsArray(item) ? "an array"
               : cJSON_IsObject(item) ? "an object"
               : cJSON_IsTrue(item) ? "true"
               : cJSON_IsFalse(item) ? "false"
               : "null");
}

static int wrong(const Field *f, const cJSON *item, char **cause) {
   char found[JSONL_NUMBER_SIZE];
   describe(item, found, sizeof found);
   return setCause(cause, "\"%s\": expected %s, found %s", f->key, expectation(f->type), found);
}

static int getInteger(const Field *f, const cJSON *item, double hi, double *out, char **cause) {
   double v = item->valuedouble;
   if (!cJSON_IsNumber(item) || !(v >= 0 && v <= hi) || v != floor(v))
      return wrong(f, item, cause);
   *out = v;
   return 0;
}

static int getCosts(const Field *f, const cJSON *item, SessionEvent *out, char **cause) {
   if (!cJSON_IsArray(item))
      return wrong(f, item, cause);
   int n = cJSON_GetArraySize(item);
   if (n == 0)
      return setCause(cause, "\"%s\": expected %s, found an empty array", f->key,
                      expectation(f->type));
   if (n > SESSION_MAX_COSTS)
      return setCause(cause, "\"%s\": expected %s, found an array of %d", f->key,
                      expectation(f->type), n);
   for (const cJSON *c = item->child; c; c = c->next) {
      if (!cJSON_IsNumber(c) || !isfinite(c->valuedouble)) {
         char found[JSONL_NUMBER_SIZE];
         describe(c, found, sizeof found);
         return setCause(cause, "\"%s\"[%d]: expected a finite number, found %s", f->key,
                         out->measure.ncosts, found);
      }
      out->measure.costs[out->measure.ncosts++] = c->valuedouble;
   }
   return 0;
}

static int getTasks(const Field *f, const cJSON *item, SessionEvent *out, char **cause) {
   if (!cJSON_IsArray(item))
      return wrong(f, item, cause);
   int n = cJSON_GetArraySize(item);
   out->header.tasks = xCalloc(n > 0 ? (size_t)n : 1, sizeof *out->header.tasks);
   for (const cJSON *c = item->child; c; c = c->next) {
      if (!cJSON_IsString(c)) {
         char found[JSONL_NUMBER_SIZE];
         describe(c, found, sizeof found);
         return setCause(cause, "\"%s\"[%d]: expected a string, found %s", f->key,
                         out->header.ntasks, found);
      }
      out->header.tasks[out->header.ntasks++] = xStrdup(c->valuestring);
   }
   return 0;
}

/* the keys of one of round_end's "devices" */
typedef enum { D_NAME, D_COUNT, D_SECONDS, D_BOOL, D_WHY } DeviceKeyType;

static const struct {
   const char *key;
   DeviceKeyType type;
   size_t offset;               /* in SessionDevice */
   const char *expect;
} deviceKeys[] = {
   { "name", D_NAME, offsetof(SessionDevice, name), "a string" },
   { "n", D_COUNT, offsetof(SessionDevice, measured), "an integer from 0 to 2147483647" },
   { "busy_s", D_SECONDS, offsetof(SessionDevice, busySeconds), "a finite number of seconds, at least 0" },
   { "failed", D_COUNT, offsetof(SessionDevice, failed), "an integer from 0 to 2147483647" },
   { "retired", D_BOOL, offsetof(SessionDevice, retired), "true or false" },
   { "why", D_WHY, offsetof(SessionDevice, why), "a string" },   /* "" when absent */
};

static int getDevice(const cJSON *item, int i, SessionDevice *d, char **cause) {
   for (size_t k = 0; k < sizeof deviceKeys / sizeof deviceKeys[0]; k++) {
      DeviceKeyType type = deviceKeys[k].type;
      void *slot = (char *)d + deviceKeys[k].offset;
      const cJSON *v = cJSON_GetObjectItemCaseSensitive(item, deviceKeys[k].key);
      if (!v && type == D_WHY) {
         *(char **)slot = xStrdup("");
         continue;
      }
      if (!v)
         return setCause(cause, "\"devices\"[%d]: missing key \"%s\": expected %s", i, deviceKeys[k].key,
                         deviceKeys[k].expect);
      double x = v->valuedouble;
      bool number = cJSON_IsNumber(v) && x >= 0 && isfinite(x);
      bool good = type == D_NAME || type == D_WHY ? cJSON_IsString(v)
                  : type == D_BOOL                ? cJSON_IsBool(v)
                  : type == D_SECONDS             ? number
                                                  : number && x <= INT_MAX && x == floor(x);
      if (!good) {
         char found[JSONL_NUMBER_SIZE];
         describe(v, found, sizeof found);
         return setCause(cause, "\"devices\"[%d].\"%s\": expected %s, found %s", i, deviceKeys[k].key,
                         deviceKeys[k].expect, found);
      }
      switch (type) {
      case D_NAME:
      case D_WHY: *(char **)slot = xStrdup(v->valuestring); break;
      case D_COUNT: *(int *)slot = (int)x; break;
      case D_SECONDS: *(double *)slot = x; break;
      case D_BOOL: *(bool *)slot = cJSON_IsTrue(v); break;
      }
   }
   return 0;
}

static int getDevices(const Field *f, const cJSON *item, SessionEvent *out, char **cause) {
   if (!cJSON_IsArray(item))
      return wrong(f, item, cause);
   int n = cJSON_GetArraySize(item);
   if (n < 2 || n > SESSION_MAX_DEVICES)
      return setCause(cause, "\"%s\": expected %s, found an array of %d", f->key, expectation(f->type), n);
   out->roundEnd.devices = xCalloc((size_t)n, sizeof *out->roundEnd.devices);
   for (const cJSON *c = item->child; c; c = c->next) {
      int i = out->roundEnd.ndevices++;
      if (!cJSON_IsObject(c)) {
         char found[JSONL_NUMBER_SIZE];
         describe(c, found, sizeof found);
         return setCause(cause, "\"%s\"[%d]: expected an object, found %s", f->key, i, found);
      }
      if (getDevice(c, i, &out->roundEnd.devices[i], cause) < 0)
         return -1;
   }
   return 0;
}

static int getField(const cJSON *root, const Field *f, SessionEvent *out, char **cause) {
   const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, f->key);
   if (!item) {
      if (f->type == F_MESSAGE || f->type == F_FLEET) {
         *SLOT(out, f, char *) = xStrdup("");
         return 0;
      }
      if (f->type == F_FLEET_SIZE) {
         *SLOT(out, f, int) = 0;
         return 0;
      }
      if (f->type == F_SPENT || f->type == F_LATER || f->type == F_KNOWN || f->type == F_BOUND) {
         *SLOT(out, f, double) = f->type == F_SPENT ? 0 : NAN;
         return 0;
      }
      if (f->type == F_THROTTLED) {
         *SLOT(out, f, unsigned) = 0;
         return 0;
      }
      if (f->type == F_DEVICES || f->type == F_COUNTERS)
         return 0;
      return setCause(cause, "missing key \"%s\": expected %s", f->key, expectation(f->type));
   }
   double v;
   switch (f->type) {
   case F_VERSION:
      if (getInteger(f, item, MAX_EXACT_INTEGER, &v, cause) < 0)
         return -1;
      if (v < 1)
         return wrong(f, item, cause);
      if (v > SESSION_FORMAT_VERSION)
         return setCause(cause, "format version %.0f is newer than this program reads (%d)", v,
                         SESSION_FORMAT_VERSION);
      *SLOT(out, f, int) = (int)v;
      return 0;
   case F_INT:
   case F_FLEET_SIZE:
      if (getInteger(f, item, INT_MAX, &v, cause) < 0)
         return -1;
      if (f->type == F_FLEET_SIZE && v < 1)
         return wrong(f, item, cause);
      *SLOT(out, f, int) = (int)v;
      return 0;
   case F_INT53:
   case F_START:
      if (getInteger(f, item, MAX_EXACT_INTEGER, &v, cause) < 0)
         return -1;
      *SLOT(out, f, int64_t) = (int64_t)v;
      return 0;
   case F_SECONDS:
   case F_CLOCK:
   case F_SPENT:
      if (!cJSON_IsNumber(item) || !(item->valuedouble >= 0 && isfinite(item->valuedouble)))
         return wrong(f, item, cause);
      *SLOT(out, f, double) = item->valuedouble;
      return 0;
   case F_KNOWN:
   case F_BOUND:
      if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) || (f->type == F_BOUND && !(item->valuedouble > 0)))
         return wrong(f, item, cause);
      *SLOT(out, f, double) = item->valuedouble;
      return 0;
   case F_OPTIONAL:
   case F_LATER:
      if (cJSON_IsNull(item)) {
         *SLOT(out, f, double) = NAN;
         return 0;
      }
      if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble))
         return wrong(f, item, cause);
      *SLOT(out, f, double) = item->valuedouble;
      return 0;
   case F_STRING:
   case F_MESSAGE:
   case F_FLEET:
      if (!cJSON_IsString(item))
         return wrong(f, item, cause);
      *SLOT(out, f, char *) = xStrdup(item->valuestring);
      return 0;
   case F_BOOL:
      if (!cJSON_IsBool(item))
         return wrong(f, item, cause);
      *SLOT(out, f, bool) = cJSON_IsTrue(item);
      return 0;
   case F_COSTS: return getCosts(f, item, out, cause);
   case F_TASKS: return getTasks(f, item, out, cause);
   case F_DEVICES: return getDevices(f, item, out, cause);
   case F_COUNTERS: {
      char *why = NULL;
      if (Counters_fromJson(item, SLOT(out, f, Counters), &why) == 0)
         return 0;
      setCause(cause, "\"%s\": %s", f->key, why);
      free(why);
      return -1;
   }
   case F_THROTTLED: {
      char *why = NULL;
      if (GpuThrottle_fromJson(item, SLOT(out, f, unsigned), &why) == 0)
         return 0;
      setCause(cause, "\"%s\"%s%s", f->key, *why == '[' ? "" : ": ", why);
      free(why);
      return -1;
   }
   case F_WHY:
      if (cJSON_IsString(item))
         for (int w = 0; w < SESSION_END_COUNT; w++)
            if (strcmp(item->valuestring, endNames[w]) == 0) {
               *SLOT(out, f, SessionEnd) = (SessionEnd)w;
               return 0;
            }
      break;
   }
   if (cJSON_IsString(item))
      return setCause(cause, "\"%s\": expected %s, found \"%.40s%s\"", f->key,
                      expectation(f->type), item->valuestring,
                      strlen(item->valuestring) > 40 ? "..." : "");
   return wrong(f, item, cause);
}

/* "one of "header", "round", ..." */
static void kindNames(char *buf, size_t size) {
   TextBuf t = TextBuf_over(buf, size);
   TextBuf_add(&t, "one of");
   for (int k = 0; k < SESSION_EVENT_COUNT; k++)
      TextBuf_add(&t, "%s \"%s\"", k ? "," : "", kinds[k].name);
}

static int getKind(const cJSON *root, SessionEventKind *out, char **cause) {
   char expect[160];
   kindNames(expect, sizeof expect);
   const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, "event");
   if (!item)
      return setCause(cause, "missing key \"event\": expected %s", expect);
   if (cJSON_IsString(item)) {
      for (int k = 0; k < SESSION_EVENT_COUNT; k++)
         if (strcmp(item->valuestring, kinds[k].name) == 0) {
            *out = (SessionEventKind)k;
            return 0;
         }
      return setCause(cause, "\"event\": expected %s, found \"%.40s%s\"", expect,
                      item->valuestring, strlen(item->valuestring) > 40 ? "..." : "");
   }
   char found[JSONL_NUMBER_SIZE];
   describe(item, found, sizeof found);
   return setCause(cause, "\"event\": expected %s, found %s", expect, found);
}

static bool knownKey(const KindInfo *ki, const char *key) {
   if (strcmp(key, "event") == 0)
      return true;
   for (int i = 0; i < ki->nfields; i++)
      if (strcmp(key, ki->fields[i].key) == 0)
         return true;
   return false;
}

static int parseObject(const cJSON *root, SessionEvent *out, char **cause) {
   if (!cJSON_IsObject(root)) {
      char found[JSONL_NUMBER_SIZE];
      describe(root, found, sizeof found);
      return setCause(cause, "expected a JSON object, found %s", found);
   }
   if (getKind(root, &out->kind, cause) < 0)
      return -1;
   const KindInfo *ki = &kinds[out->kind];
   for (const cJSON *a = root->child; a; a = a->next)
      for (const cJSON *b = a->next; b; b = b->next)
         if (strcmp(a->string, b->string) == 0 && knownKey(ki, a->string))
            return setCause(cause, "key \"%s\" is given twice", a->string);
   for (int i = 0; i < ki->nfields; i++)
      if (getField(root, &ki->fields[i], out, cause) < 0)
         return -1;
   return 0;
}

/* A parsed line into out; on failure out is left zeroed. */
static int fromTree(const cJSON *root, SessionEvent *out, char **cause) {
   memset(out, 0, sizeof *out);
   int rc = parseObject(root, out, cause);
   if (rc < 0)
      SessionEvent_done(out);
   return rc;
}

int SessionEvent_fromJson(const char *line, SessionEvent *out, char **cause) {
   memset(out, 0, sizeof *out);
   cJSON *root = JsonLines_parse(line, strlen(line), cause);
   if (!root)
      return -1;
   int rc = fromTree(root, out, cause);
   cJSON_Delete(root);
   return rc;
}

/* ---- logs and files ---- */

void SessionLog_init(SessionLog *log) {
   memset(log, 0, sizeof *log);
}

void SessionLog_done(SessionLog *log) {
   for (int i = 0; i < log->count; i++)
      SessionEvent_done(&log->events[i]);
   free(log->events);
   SessionLog_init(log);
}

/* The header first, and only there. */
static int takeEvent(void *ctx, const cJSON *root, int line, char **why) {
   SessionLog *log = ctx;
   SessionEvent e;
   if (fromTree(root, &e, why) < 0)
      return -1;
   e.line = line;
   bool header = e.kind == SESSION_HEADER;
   if (header != (log->count == 0)) {
      setCause(why, header ? "a second header; only the first line is the header"
                           : "expected the header first, found a \"%s\" event",
               SessionEventKind_name(e.kind));
      SessionEvent_done(&e);
      return -1;
   }
   if (log->count == log->cap) {
      log->cap = log->cap ? 2 * log->cap : 64;
      log->events = xReallocArray(log->events, (size_t)log->cap, sizeof *log->events);
   }
   log->events[log->count++] = e;
   return 0;
}

bool SessionEvent_budget(const SessionEvent *e, int ntasks, int *trials) {
   Command c;
   char *why = NULL;
   if (e->kind != SESSION_COMMAND || !e->command.applied || !e->command.text ||
       Command_parse(e->command.text, ntasks, &c, &why) < 0) {
      free(why);
      return false;
   }
   if (c.kind == COMMAND_BUDGET)
      *trials = (int)c.value;
   return c.kind == COMMAND_BUDGET;
}

/* The way out of a session that breaks the order: the whole lines before the bad one. */
static int refuseFrom(char **cause, const char *path, int line, const char *what) {
   return setCause(cause,
                   "%s:%d: %s; two runs may have written it at once. The lines before this one are a whole "
                   "session: head -n %d %s > FIXED.jsonl keeps them",
                   path, line, what, line - 1, path);
}

/* The order one run after another writes: rounds numbered up and never back, no round
 * measuring more than its size, no round started with the budget spent, and after a
 * finished event only a resumed one. */
static int checkOrder(const SessionLog *log, const char *path, char **cause) {
   const SessionHeader *h = &log->events[0].header;
   int lastRound = 0, roundNo = 0, openTask = -1, inRound = 0, measures = 0, budget = h->trialBudget;
   bool finished = false;
   char what[200];
   for (int i = 1; i < log->count; i++) {
      const SessionEvent *e = &log->events[i];
      if (finished && e->kind != SESSION_RESUMED) {
         snprintf(what, sizeof what, "a \"%s\" event after the run finished, with no resumed event between",
                  SessionEventKind_name(e->kind));
         return refuseFrom(cause, path, e->line, what);
      }
      if (e->round < lastRound) {
         snprintf(what, sizeof what, "round %d comes after round %d", e->round, lastRound);
         return refuseFrom(cause, path, e->line, what);
      }
      lastRound = e->round;
      switch (e->kind) {
      case SESSION_ROUND:
         if (e->round <= roundNo) {
            snprintf(what, sizeof what, "round %d starts again after round %d", e->round, roundNo);
            return refuseFrom(cause, path, e->line, what);
         }
         if (e->roundStart.trials >= budget && budget > 0 && measures >= budget) {
            snprintf(what, sizeof what, "round %d starts with %d of its %d trials done", e->round, measures, budget);
            return refuseFrom(cause, path, e->line, what);
         }
         roundNo = e->round;
         openTask = e->roundStart.task;
         inRound = 0;
         break;
      case SESSION_MEASURE:
         /* (one outside a round is the readers' to refuse, with its reason) */
         if (e->measure.task == openTask && e->round == roundNo && ++inRound > h->measuresPerRound) {
            snprintf(what, sizeof what, "round %d measures more than its %d states", e->round, h->measuresPerRound);
            return refuseFrom(cause, path, e->line, what);
         }
         measures++;
         break;
      case SESSION_ROUND_END: openTask = -1; break;
      case SESSION_COMMAND: SessionEvent_budget(e, h->ntasks, &budget); break;
      case SESSION_FINISHED: finished = true; break;
      case SESSION_RESUMED: finished = false; break;
      default: break;
      }
   }
   return 0;
}

int Session_read(const char *path, SessionLog *out, char **notice, char **cause) {
   SessionLog_done(out);
   int rc = JsonLines_read(path, false, takeEvent, out, notice, cause);
   if (rc == 0 && out->count == 0)
      rc = setCause(cause, "%s: no header line", path);
   if (rc == 0)
      rc = checkOrder(out, path, cause);
   if (rc < 0)
      SessionLog_done(out);
   return rc;
}

/* The index of the next event from i on that is not a resumed marker; count at the end. */
static int skipMarkers(const SessionLog *log, int i) {
   while (i < log->count && log->events[i].kind == SESSION_RESUMED)
      i++;
   return i;
}

bool Session_compare(const SessionLog *a, const SessionLog *b, int *ia, int *ib) {
   int i = 0, j = 0;
   for (;;) {
      i = skipMarkers(a, i);
      j = skipMarkers(b, j);
      if (i == a->count || j == b->count)
         break;
      char *x = SessionEvent_toJson(&a->events[i], false);
      char *y = SessionEvent_toJson(&b->events[j], false);
      bool same = strcmp(x, y) == 0;
      free(x);
      free(y);
      if (!same)
         break;
      i++;
      j++;
   }
   *ia = i;
   *ib = j;
   return i == a->count && j == b->count;
}

bool Session_equalIgnoringTime(const SessionLog *a, const SessionLog *b) {
   int i, j;
   return Session_compare(a, b, &i, &j);
}

/* ---- the writer ---- */

struct SessionWriter_ {
   char *path;
   int fd;
   bool needRepair;             /* a failed write left part of a line at the end */
   char *queue;                 /* lines since the last flush, each with its newline */
   size_t len, cap;
};

static SessionWriter *newWriter(const char *path, int fd) {
   SessionWriter *w = xCalloc(1, sizeof *w);
   w->path = xStrdup(path);
   w->fd = fd;
   return w;
}

static void freeWriter(SessionWriter *w) {
   free(w->path);
   free(w->queue);
   free(w);
}

/* Checks an event by writing it and reading it back: one set of rules for both. */
static int queue(SessionWriter *w, const SessionEvent *e, char **cause) {
   char *line = SessionEvent_toJson(e, true);
   SessionEvent back;
   char *why = NULL;
   if (SessionEvent_fromJson(line, &back, &why) < 0) {
      setCause(cause, "%s: not writing an invalid \"%s\" event: %s", w->path,
               SessionEventKind_name(e->kind) ? SessionEventKind_name(e->kind) : "?", why);
      free(why);
      free(line);
      return -1;
   }
   SessionEvent_done(&back);
   size_t n = strlen(line);
   if (w->len + n + 1 > w->cap) {
      w->cap = 2 * (w->len + n + 1);
      w->queue = xRealloc(w->queue, w->cap);
   }
   memcpy(w->queue + w->len, line, n);
   w->queue[w->len + n] = '\n';
   w->len += n + 1;
   free(line);
   return 0;
}

/* The process holding a flock on the file of fd, from /proc/locks; -1 when unknown. */
static long lockHolder(int fd) {
   struct stat st;
   FILE *f = fstat(fd, &st) == 0 ? fopen("/proc/locks", "r") : NULL;
   if (!f)
      return -1;
   char line[256];
   long holder = -1;
   while (holder < 0 && fgets(line, sizeof line, f)) {
      char type[16];
      long pid;
      unsigned maj, min;
      unsigned long long ino;
      /* "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; waiters have "->" */
      if (sscanf(line, "%*d: %15s %*s %*s %ld %x:%x:%llu", type, &pid, &maj, &min, &ino) == 5 &&
          strcmp(type, "FLOCK") == 0 && maj == major(st.st_dev) && min == minor(st.st_dev) &&
          ino == (unsigned long long)st.st_ino)
         holder = pid;
   }
   fclose(f);
   return holder;
}

/* One writer per session: an advisory lock for as long as the file is open. */
static int lockSession(int fd, const char *path, char **cause) {
   if (flock(fd, LOCK_EX | LOCK_NB) == 0)
      return 0;
   if (errno != EWOULDBLOCK)
      return setCause(cause, "%s: cannot lock the session: %s", path, strerror(errno));
   long pid = lockHolder(fd);
   if (pid > 0)
      return setCause(cause, "%s: another run is writing this session (process %ld); wait for it to end or stop it",
                      path, pid);
   return setCause(cause, "%s: another run is writing this session; wait for it to end or stop it", path);
}

SessionWriter *SessionWriter_open(const char *path, const SessionHeader *header, char **cause) {
   int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
   if (fd < 0) {
      setCause(cause, "%s: %s", path, strerror(errno));
      return NULL;
   }
   if (lockSession(fd, path, cause) < 0) {
      close(fd);
      return NULL;
   }
   SessionWriter *w = newWriter(path, fd);
   SessionEvent e = { .kind = SESSION_HEADER, .header = *header };
   if (queue(w, &e, cause) < 0 || SessionWriter_flush(w, cause) < 0) {
      close(fd);
      unlink(path);
      freeWriter(w);
      return NULL;
   }
   return w;
}

static bool completeEvent(const char *line) {
   SessionEvent e;
   if (SessionEvent_fromJson(line, &e, NULL) < 0)
      return false;
   SessionEvent_done(&e);
   return true;
}

SessionWriter *SessionWriter_append(const char *path, char **cause) {
   int fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC);
   if (fd < 0) {
      setCause(cause, "%s: %s", path, strerror(errno));
      return NULL;
   }
   /* before anything is cut off: the cut line may be another run's, still writing */
   if (lockSession(fd, path, cause) < 0) {
      close(fd);
      return NULL;
   }
   struct stat st;
   char c = '\n';
   if (fstat(fd, &st) != 0 ||
       (S_ISREG(st.st_mode) && st.st_size > 0 && pread(fd, &c, 1, st.st_size - 1) != 1) ||
       (c != '\n' && JsonLines_endCutLine(fd, completeEvent) < 0)) {
      setCause(cause, "%s: %s", path, strerror(errno));
      close(fd);
      return NULL;
   }
   return newWriter(path, fd);
}

int SessionWriter_add(SessionWriter *w, const SessionEvent *e, char **cause) {
   if (e->kind == SESSION_HEADER)
      return setCause(cause, "%s: a header is only written when the session is created",
                      w->path);
   return queue(w, e, cause);
}

int SessionWriter_flush(SessionWriter *w, char **cause) {
   if (w->len > 0) {
      if (w->needRepair) {
         if (JsonLines_endCutLine(w->fd, completeEvent) < 0)
            return setCause(cause, "%s: %s", w->path, strerror(errno));
         w->needRepair = false;
      }
      struct stat st;
      off_t before = fstat(w->fd, &st) == 0 && S_ISREG(st.st_mode) ? st.st_size : -1;
      size_t done;
      if (JsonLines_writeAll(w->fd, w->queue, w->len, &done) < 0) {
         int err = errno;
         size_t whole = done;
         while (whole > 0 && w->queue[whole - 1] != '\n')
            whole--;
         if (done > whole && (before < 0 || ftruncate(w->fd, before + (off_t)whole) != 0))
            w->needRepair = true;
         memmove(w->queue, w->queue + whole, w->len - whole);
         w->len -= whole;
         return setCause(cause, "%s: %s", w->path, strerror(err));
      }
      w->len = 0;
   }
   if (fsync(w->fd) != 0 && errno != EINVAL)
      return setCause(cause, "%s: %s", w->path, strerror(errno));
   return 0;
}

int SessionWriter_close(SessionWriter *w, char **cause) {
   int rc = SessionWriter_flush(w, cause);
   if (close(w->fd) != 0 && rc == 0)
      rc = setCause(cause, "%s: %s", w->path, strerror(errno));
   freeWriter(w);
   return rc;
}
