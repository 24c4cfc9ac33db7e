/* A record's counters in JSON, and their roofline position (see counters.h). */
#include "config.h"

#include "measure/counters.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "util/jsonl.h"
#include "util/xalloc.h"

static const char *const bounds[] = { "compute", "memory", "shared memory", "latency", NULL };
static const char *const stalls[] = { COUNTERS_STALLS, NULL };

/* The keys after "source", in the order they are written. A number is a double at
 * offset in [lo, hi]; a word a char array at offset holding one of words. optional:
 * the CounterField bit that says it is there, 0 when every record has it. */
typedef struct {
   const char *name;
   size_t offset;
   double lo, hi;
   const char *expect;
   const char *const *words;
   size_t size;                 /* of the char array */
   unsigned optional;
} Key;

#define NUMBER(name, field, lo, hi, expect, optional) { name, offsetof(Counters, field), lo, hi, expect, NULL, 0, optional }
#define WORD(name, field, words, optional) { name, offsetof(Counters, field), 0, 0, NULL, words, sizeof((Counters *)0)->field, optional }

static const Key keys[] = {
   NUMBER("dram_gbs", dramGbs, 0, DBL_MAX, "a number of GB/s, at least 0", 0),
   NUMBER("l2_hit_rate", l2HitRate, 0, 1, "a number from 0 to 1", 0),
   NUMBER("occupancy", occupancy, 0, 1, "a number from 0 to 1", 0),
   NUMBER("gflops", gflops, 0, DBL_MAX, "a number of GFLOP/s, at least 0", 0),
   NUMBER("waves", waves, 0, DBL_MAX, "a number, at least 0", 0),
   NUMBER("l1_hit_rate", l1HitRate, 0, 1, "a number from 0 to 1", COUNTER_L1_HIT_RATE),
   NUMBER("bank_conflicts", bankConflicts, 0, 1, "a number from 0 to 1", COUNTER_BANK_CONFLICTS),
   NUMBER("instructions", instructions, 0, DBL_MAX, "a number of instructions, at least 0", COUNTER_INSTRUCTIONS),
   NUMBER("ipc", ipc, 0, DBL_MAX, "a number of instructions per clock, at least 0", COUNTER_IPC),
   WORD("bound", bound, bounds, 0),
   WORD("stall", stall, stalls, COUNTER_STALL),
   NUMBER("stall_share", stallShare, 0, 1, "a number from 0 to 1", COUNTER_STALL),
};
#define NKEYS (sizeof keys / sizeof keys[0])

cJSON *Counters_toJson(const Counters *c) {
   if (!c->present)
      return NULL;
   cJSON *o = cJSON_CreateObject();
   if (!o || !cJSON_AddStringToObject(o, "source", c->simulated ? "simulated" : "cupti"))
      fatal("out of memory building counters");
   for (size_t i = 0; i < NKEYS; i++) {
      const Key *k = &keys[i];
      if (k->optional && !(c->known & k->optional))
         continue;
      const char *at = (const char *)c + k->offset;
      cJSON *v = k->words ? cJSON_CreateString(at) : JsonLines_numberItem(*(const double *)at);
      if (!v || !cJSON_AddItemToObject(o, k->name, v))
         fatal("out of memory building counters");
   }
   return o;
}

/* "source, dram_gbs, ... and stall_share" */
static void keyList(char *buf, size_t size) {
   int n = snprintf(buf, size, "source");
   for (size_t i = 0; i < NKEYS && n >= 0 && (size_t)n < size; i++)
      n += snprintf(buf + n, size - (size_t)n, "%s%s", i + 1 < NKEYS ? ", " : " and ", keys[i].name);
}

/* "\"compute\", \"memory\" or \"latency\"" */
static void wordList(const char *const *words, char *buf, size_t size) {
   int n = 0;
   buf[0] = '\0';
   for (size_t i = 0; words[i] && n >= 0 && (size_t)n < size; i++)
      n += snprintf(buf + n, size - (size_t)n, "%s\"%s\"", i == 0 ? "" : words[i + 1] ? ", " : " or ", words[i]);
}

static const char *kindOf(const cJSON *v) {
   return cJSON_IsString(v) ? "a string" : cJSON_IsNumber(v) ? "a number" : "a value that is not a number";
}

static int readKey(const Key *k, const cJSON *v, Counters *c, char **cause) {
   char *at = (char *)c + k->offset;
   if (k->words) {
      for (size_t i = 0; cJSON_IsString(v) && k->words[i]; i++)
         if (strcmp(v->valuestring, k->words[i]) == 0) {
            snprintf(at, k->size, "%s", k->words[i]);
            return 0;
         }
      char list[512];
      wordList(k->words, list, sizeof list);
      if (cJSON_IsString(v))
         return setCause(cause, "\"%s\": expected %s, found \"%.40s\"", k->name, list, v->valuestring);
      return setCause(cause, "\"%s\": expected %s, found %s", k->name, list, v ? kindOf(v) : "nothing");
   }
   if (!v)
      return setCause(cause, "missing key \"%s\": expected %s", k->name, k->expect);
   if (!cJSON_IsNumber(v))
      return setCause(cause, "\"%s\": expected %s, found %s", k->name, k->expect, kindOf(v));
   if (!(v->valuedouble >= k->lo && v->valuedouble <= k->hi) || !isfinite(v->valuedouble)) {
      char found[JSONL_NUMBER_SIZE];
      JsonLines_number(v->valuedouble, found, sizeof found);
      return setCause(cause, "\"%s\": expected %s, found %s", k->name, k->expect, found);
   }
   *(double *)at = v->valuedouble;
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
   for (const cJSON *m = item->child; m; m = m->next) {
      bool known = strcmp(m->string, "source") == 0;
      for (size_t i = 0; i < NKEYS && !known; i++)
         known = strcmp(m->string, keys[i].name) == 0;
      if (!known) {
         char list[512];
         keyList(list, sizeof list);
         return setCause(cause, "unknown key \"%.40s\": expected %s", m->string, list);
      }
   }
   const cJSON *source = cJSON_GetObjectItemCaseSensitive(item, "source");
   if (!cJSON_IsString(source) || (strcmp(source->valuestring, "simulated") != 0 &&
                                   strcmp(source->valuestring, "cupti") != 0))
      return setCause(cause, "\"source\": expected \"simulated\" or \"cupti\"%s", source ? "" : ", found nothing");
   c->simulated = strcmp(source->valuestring, "simulated") == 0;
   for (size_t i = 0; i < NKEYS; i++) {
      const cJSON *v = cJSON_GetObjectItemCaseSensitive(item, keys[i].name);
      if (!v && keys[i].optional)
         continue;
      if (readKey(&keys[i], v, c, cause) < 0)
         return -1;
      c->known |= keys[i].optional;
   }
   bool stall = cJSON_GetObjectItemCaseSensitive(item, "stall") != NULL;
   if (stall != (cJSON_GetObjectItemCaseSensitive(item, "stall_share") != NULL))
      return setCause(cause, "\"stall\" and \"stall_share\" come together, found only \"%s\"",
                      stall ? "stall" : "stall_share");
   c->present = true;
   return 0;
}

void Counters_describe(const Counters *c, char *buf, size_t size) {
   int n = snprintf(buf, size, "DRAM %.1f GB/s, L2 hit rate %.1f%%", c->dramGbs, 100 * c->l2HitRate);
#define MORE(...) (n >= 0 && (size_t)n < size ? n += snprintf(buf + n, size - (size_t)n, __VA_ARGS__) : n)
   if (c->known & COUNTER_L1_HIT_RATE)
      MORE(", L1 hit rate %.1f%%", 100 * c->l1HitRate);
   MORE(", occupancy %.1f%%, %.1f GFLOP/s, %.2f waves", 100 * c->occupancy, c->gflops, c->waves);
   if (c->known & COUNTER_BANK_CONFLICTS)
      MORE(", bank conflicts %.1f%%", 100 * c->bankConflicts);
   if (c->known & COUNTER_INSTRUCTIONS)
      MORE(", %.4g instructions", c->instructions);
   if (c->known & COUNTER_IPC)
      MORE(", IPC %.2f", c->ipc);
   MORE(", %s bound", c->bound);
   if (c->known & COUNTER_STALL)
      MORE(", stalled most on %s (%.1f%%)", c->stall, 100 * c->stallShare);
#undef MORE
}

int Counters_stallIndex(const char *name) {
   for (int i = 0; i < COUNTERS_NSTALLS; i++)
      if (strcmp(name, stalls[i]) == 0)
         return i;
   return -1;
}

static double share(double part, double whole) {
   return whole > 0 ? fmin(1, fmax(0, part / whole)) : 0;
}

void Counters_combine(const CounterKernel *k, int n, bool simulated, Counters *c) {
   memset(c, 0, sizeof *c);
   CounterKernel sum;
   memset(&sum, 0, sizeof sum);
   sum.known = COUNTERS_ALL_FIELDS;
   double longest = -1;
   for (int i = 0; i < n; i++) {
      const CounterKernel *x = &k[i];
      sum.seconds += x->seconds;
      sum.flops += x->flops;
      sum.dramBytes += x->dramBytes;
      sum.l2Requests += x->l2Requests;
      sum.l2Hits += x->l2Hits;
      sum.l1Requests += x->l1Requests;
      sum.l1Hits += x->l1Hits;
      sum.sharedWavefronts += x->sharedWavefronts;
      sum.sharedConflicts += x->sharedConflicts;
      sum.instructions += x->instructions;
      sum.ipc += x->ipc * x->seconds;
      sum.occupancy += x->occupancy * x->seconds;
      sum.waves += x->waves * x->seconds;
      for (int s = 0; s < COUNTERS_NSTALLS; s++)
         sum.stalls[s] += x->stalls[s];
      sum.known &= x->known;
      if (x->seconds > longest) {
         longest = x->seconds;
         snprintf(c->bound, sizeof c->bound, "%s", x->bound ? x->bound : "latency");
      }
   }
   if (!(sum.seconds > 0))
      return;
   c->present = true;
   c->simulated = simulated;
   c->known = sum.known;
   c->dramGbs = sum.dramBytes / sum.seconds * 1e-9;
   c->l2HitRate = share(sum.l2Hits, sum.l2Requests);
   c->occupancy = fmin(1, sum.occupancy / sum.seconds);
   c->gflops = sum.flops / sum.seconds * 1e-9;
   c->waves = sum.waves / sum.seconds;
   c->l1HitRate = share(sum.l1Hits, sum.l1Requests);
   c->bankConflicts = share(sum.sharedConflicts, sum.sharedWavefronts);
   c->instructions = sum.instructions;
   c->ipc = sum.ipc / sum.seconds;
   int most = 0;
   double stalled = 0;
   for (int s = 0; s < COUNTERS_NSTALLS; s++) {
      stalled += sum.stalls[s];
      if (sum.stalls[s] > sum.stalls[most])
         most = s;
   }
   snprintf(c->stall, sizeof c->stall, "%s", stalls[most]);
   c->stallShare = share(sum.stalls[most], stalled);
}

int Counters_roofline(const Counters *c, double peakGflops, double bandwidthGbs, Roofline *r, char **cause) {
   memset(r, 0, sizeof *r);
   if (!(peakGflops > 0) || !(bandwidthGbs > 0))
      return setCause(cause, "the device's %s is not known", !(peakGflops > 0) ? "FP32 peak" : "DRAM bandwidth");
   if (!(c->gflops > 0))
      return setCause(cause, "it did no FP32 arithmetic");
   if (!(c->dramGbs > 0))
      return setCause(cause, "it moved nothing through DRAM");
   r->intensity = c->gflops / c->dramGbs;
   r->attained = c->gflops;
   r->ridge = peakGflops / bandwidthGbs;
   r->memoryBound = r->intensity < r->ridge;
   r->roof = r->memoryBound ? r->intensity * bandwidthGbs : peakGflops;
   r->percent = r->attained / r->roof * 100;
   return 0;
}
