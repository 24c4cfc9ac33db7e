/* A record's counters in JSON (see counters.h). */
#include "config.h"

#include "measure/counters.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "util/jsonl.h"
#include "util/xalloc.h"

static const char *const bounds[] = { "compute", "memory", "shared memory", "latency" };
#define NBOUNDS (sizeof bounds / sizeof bounds[0])

typedef struct {
   const char *name;
   size_t offset;               /* of the double in Counters */
   double lo, hi;
   const char *expect;
} NumberKey;

static const NumberKey numbers[] = {
   { "dram_gbs", offsetof(Counters, dramGbs), 0, DBL_MAX, "a number of GB/s, at least 0" },
   { "l2_hit_rate", offsetof(Counters, l2HitRate), 0, 1, "a number from 0 to 1" },
   { "occupancy", offsetof(Counters, occupancy), 0, 1, "a number from 0 to 1" },
   { "gflops", offsetof(Counters, gflops), 0, DBL_MAX, "a number of GFLOP/s, at least 0" },
   { "waves", offsetof(Counters, waves), 0, DBL_MAX, "a number, at least 0" },
};
#define NNUMBERS (sizeof numbers / sizeof numbers[0])

cJSON *Counters_toJson(const Counters *c) {
   if (!c->present)
      return NULL;
   cJSON *o = cJSON_CreateObject();
   if (!o || !cJSON_AddStringToObject(o, "source", c->simulated ? "simulated" : "cupti"))
      fatal("out of memory building counters");
   for (size_t i = 0; i < NNUMBERS; i++) {
      double v = *(const double *)((const char *)c + numbers[i].offset);
      if (!cJSON_AddItemToObject(o, numbers[i].name, JsonLines_numberItem(v)))
         fatal("out of memory building counters");
   }
   if (!cJSON_AddStringToObject(o, "bound", c->bound))
      fatal("out of memory building counters");
   return o;
}

static int known(const char *name) {
   if (strcmp(name, "source") == 0 || strcmp(name, "bound") == 0)
      return 1;
   for (size_t i = 0; i < NNUMBERS; i++)
      if (strcmp(name, numbers[i].name) == 0)
         return 1;
   return 0;
}

int Counters_fromJson(const cJSON *item, Counters *c, char **cause) {
   memset(c, 0, sizeof *c);
   if (!cJSON_IsObject(item))
      return setCause(cause, "expected an object of counters, found %s",
                      cJSON_IsArray(item) ? "an array" : cJSON_IsString(item) ? "a string" : "a value");
   for (const cJSON *m = item->child; m; m = m->next)
      for (const cJSON *n = m->next; n; n = n->next)
         if (strcmp(m->string, n->string) == 0)
            return setCause(cause, "key \"%.40s\" is given twice", m->string);
   for (const cJSON *m = item->child; m; m = m->next)
      if (!known(m->string))
         return setCause(cause, "unknown key \"%.40s\": expected source, dram_gbs, l2_hit_rate, occupancy, gflops, "
                                "waves and bound",
                         m->string);
   const cJSON *source = cJSON_GetObjectItemCaseSensitive(item, "source");
   if (!cJSON_IsString(source) || (strcmp(source->valuestring, "simulated") != 0 &&
                                   strcmp(source->valuestring, "cupti") != 0))
      return setCause(cause, "\"source\": expected \"simulated\" or \"cupti\"%s", source ? "" : ", found nothing");
   c->simulated = strcmp(source->valuestring, "simulated") == 0;
   for (size_t i = 0; i < NNUMBERS; i++) {
      const cJSON *v = cJSON_GetObjectItemCaseSensitive(item, numbers[i].name);
      if (!v)
         return setCause(cause, "missing key \"%s\": expected %s", numbers[i].name, numbers[i].expect);
      char found[JSONL_NUMBER_SIZE];
      if (!cJSON_IsNumber(v))
         return setCause(cause, "\"%s\": expected %s, found %s", numbers[i].name, numbers[i].expect,
                         cJSON_IsString(v) ? "a string" : "a value that is not a number");
      if (!(v->valuedouble >= numbers[i].lo && v->valuedouble <= numbers[i].hi) || !isfinite(v->valuedouble)) {
         JsonLines_number(v->valuedouble, found, sizeof found);
         return setCause(cause, "\"%s\": expected %s, found %s", numbers[i].name, numbers[i].expect, found);
      }
      *(double *)((char *)c + numbers[i].offset) = v->valuedouble;
   }
   const cJSON *bound = cJSON_GetObjectItemCaseSensitive(item, "bound");
   for (size_t i = 0; cJSON_IsString(bound) && i < NBOUNDS; i++)
      if (strcmp(bound->valuestring, bounds[i]) == 0) {
         snprintf(c->bound, sizeof c->bound, "%s", bounds[i]);
         c->present = true;
         return 0;
      }
   return setCause(cause, "\"bound\": expected \"compute\", \"memory\", \"shared memory\" or \"latency\"%s",
                   bound ? "" : ", found nothing");
}
