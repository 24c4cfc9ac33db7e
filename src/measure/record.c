/* Measurement records as JSON lines: writing them exactly, checking them against one
 * table of keys, appending them to a file a batch at a time and reading a file back. */
#include "config.h"

#include "measure/record.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "measure/gpustate.h"
#include "util/jsonl.h"
#include "util/textbuf.h"
#include "util/xalloc.h"

/* ---- the keys ---- */

typedef enum {
   KEY_V,
   KEY_TASK,
   KEY_DEVICE,
   KEY_SIMULATED,
   KEY_STATE,
   KEY_COSTS,
   KEY_ERROR,
   KEY_ERROR_NO,
   KEY_MESSAGE,
   KEY_REGISTERS,
   KEY_COMPILE_S,
   KEY_RUN_S,
   KEY_TIME,
   KEY_THROTTLED,
   KEY_COUNTERS,
   KEY_COUNT
} RecordKey;

/* The largest integer a double holds exactly, and so the largest time. */
#define MAX_EXACT_INTEGER 9007199254740991.0

typedef struct {
   const char *name;
   bool required;
   const char *expect;      /* "expected ..." in messages; NULL where it depends on the line */
   bool integer;            /* for numbers: the range they must lie in */
   double lo, hi;
} KeyInfo;

static const KeyInfo keys[KEY_COUNT] = {
   [KEY_V] = { "v", true, "an integer format version of at least 1", true, 1, DBL_MAX },
   [KEY_TASK] = { "task", true, "a non-empty string", false, 0, 0 },
   [KEY_DEVICE] = { "device", true, "a non-empty string", false, 0, 0 },
   [KEY_SIMULATED] = { "simulated", true, "true or false", false, 0, 0 },
   [KEY_STATE] = { "state", true, "a non-empty string", false, 0, 0 },
   [KEY_COSTS] = { "costs", true, "an array of 1 to 32 numbers", false, 0, 0 },
   [KEY_ERROR] = { "error", true, NULL, false, 0, 0 },
   [KEY_ERROR_NO] = { "error_no", false, NULL, false, 0, 0 },
   [KEY_MESSAGE] = { "message", false, "a string", false, 0, 0 },
   [KEY_REGISTERS] = { "registers", true, "an integer from -1 to 4096", true, -1, 4096 },
   [KEY_COMPILE_S] = { "compile_s", true, "a finite number of seconds, at least 0", false, 0,
                       DBL_MAX },
   [KEY_RUN_S] = { "run_s", true, "a finite number of seconds, at least 0", false, 0, DBL_MAX },
   [KEY_TIME] = { "time", true, "an integer number of Unix seconds from 0 to 9007199254740991",
                  true, 0, MAX_EXACT_INTEGER },
   [KEY_THROTTLED] = { "throttled", false, "an array of throttle reason names", false, 0, 0 },
   [KEY_COUNTERS] = { "counters", false, "an object of counters", false, 0, 0 },
};

_Static_assert(RECORD_MAX_COSTS == 32, "the costs key's message says 32");

/* ---- checking ---- */

static int missing(RecordKey k, const char *expect, char **cause) {
   return setCause(cause, "missing key \"%s\": expected %s", keys[k].name, expect);
}

static int wrong(RecordKey k, const char *expect, const char *found, char **cause) {
   return setCause(cause, "\"%s\": expected %s, found %s", keys[k].name, expect, found);
}

static int wrongNumber(RecordKey k, const char *expect, double v, char **cause) {
   char text[JSONL_NUMBER_SIZE];
   JsonLines_number(v, text, sizeof text);
   return wrong(k, expect, text, cause);
}

/* A number against its key's range, for reading and for writing alike. */
static int checkRange(RecordKey k, double v, char **cause) {
   const KeyInfo *ki = &keys[k];
   if (!(v >= ki->lo && v <= ki->hi) || (ki->integer && v != floor(v)))
      return wrongNumber(k, ki->expect, v, cause);
   return 0;
}

static int checkText(RecordKey k, const char *s, char **cause) {
   if (!s)
      return wrong(k, keys[k].expect, "NULL", cause);
   if (!*s)
      return wrong(k, keys[k].expect, "\"\"", cause);
   return 0;
}

static void describeCount(int n, char *buf, size_t size) {
   if (n == 0)
      snprintf(buf, size, "an empty array");
   else
      snprintf(buf, size, "an array of %d", n);
}

static int checkCostCount(int n, char **cause) {
   if (n >= 1 && n <= RECORD_MAX_COSTS)
      return 0;
   char found[32];
   describeCount(n, found, sizeof found);
   return wrong(KEY_COSTS, keys[KEY_COSTS].expect, found, cause);
}

/* "one of "ok", "instantiation error", ..." */
static void errorKinds(char *buf, size_t size) {
   TextBuf t = TextBuf_over(buf, size);
   TextBuf_add(&t, "one of");
   for (int e = 0; e < MEASURE_ERROR_COUNT; e++)
      TextBuf_add(&t, "%s \"%s\"", e ? "," : "", MeasureError_name((MeasureError)e));
}

static int checkCosts(const Record *r, char **cause) {
   if (checkCostCount(r->ncosts, cause) < 0)
      return -1;
   if (r->error == MEASURE_OK) {
      for (int i = 0; i < r->ncosts; i++)
         if (!(r->costs[i] > 0 && r->costs[i] < MEASURE_FAILED_COST)) {
            char text[JSONL_NUMBER_SIZE];
            JsonLines_number(r->costs[i], text, sizeof text);
            return setCause(cause,
                            "\"costs\"[%d]: expected more than 0 and less than 1e10 seconds, "
                            "found %s",
                            i, text);
         }
      return 0;
   }
   if (r->ncosts == 1 && r->costs[0] == MEASURE_FAILED_COST)
      return 0;
   char found[40], text[32];
   if (r->ncosts == 1) {
      JsonLines_number(r->costs[0], text, sizeof text);
      snprintf(found, sizeof found, "[%s]", text);
   } else {
      describeCount(r->ncosts, found, sizeof found);
   }
   return setCause(cause, "\"costs\": expected [1e10] when \"error\" is \"%s\", found %s",
                   MeasureError_name(r->error), found);
}

int Record_validate(const Record *r, char **cause) {
   if (checkText(KEY_TASK, r->task, cause) < 0 || checkText(KEY_DEVICE, r->device, cause) < 0 ||
       checkText(KEY_STATE, r->state, cause) < 0)
      return -1;
   if (!MeasureError_name(r->error)) {
      char kinds[256];
      errorKinds(kinds, sizeof kinds);
      return setCause(cause, "\"error\": expected %s, found the number %d", kinds, (int)r->error);
   }
   if (checkCosts(r, cause) < 0)
      return -1;
   if (r->error == MEASURE_OK && r->message && *r->message)
      return wrong(KEY_MESSAGE, "\"\" when \"error\" is \"ok\"", "a non-empty string", cause);
   if (checkRange(KEY_REGISTERS, r->registers, cause) < 0 ||
       checkRange(KEY_COMPILE_S, r->compileSeconds, cause) < 0 ||
       checkRange(KEY_RUN_S, r->runSeconds, cause) < 0 ||
       checkRange(KEY_TIME, (double)r->timestamp, cause) < 0)
      return -1;
   if (r->throttled & ~GPU_THROTTLE_SLOWING)
      return setCause(cause, "\"throttled\": expected reasons that slow the GPU, found the bits 0x%x",
                      r->throttled & ~GPU_THROTTLE_SLOWING);
   if (r->throttled && r->simulated)
      return wrong(KEY_THROTTLED, "no reasons when \"simulated\" is true (the simulator has no GPU state)",
                   "some", cause);
   return 0;
}

void Record_done(Record *r) {
   free(r->task);
   free(r->device);
   free(r->state);
   free(r->message);
   memset(r, 0, sizeof *r);
}

double Record_meanCost(const Record *r) {
   if (r->error != MEASURE_OK || r->ncosts < 1)
      return MEASURE_FAILED_COST;
   double sum = 0;
   for (int i = 0; i < r->ncosts; i++)
      sum += r->costs[i];
   return sum / r->ncosts;
}

/* ---- writing a line ---- */

static void put(cJSON *object, RecordKey k, cJSON *item) {
   if (!item || !cJSON_AddItemToObject(object, keys[k].name, item))
      fatal("out of memory building a record");
}

static cJSON *integer(int64_t v) {
   char text[24];
   snprintf(text, sizeof text, "%" PRId64, v);
   return cJSON_CreateRaw(text);
}

static cJSON *string(const char *s) {
   return cJSON_CreateString(s ? s : "");
}

char *Record_toJson(const Record *r) {
   cJSON *o = cJSON_CreateObject();
   if (!o)
      fatal("out of memory building a record");
   put(o, KEY_V, integer(RECORD_FORMAT_VERSION));
   put(o, KEY_TASK, string(r->task));
   put(o, KEY_DEVICE, string(r->device));
   put(o, KEY_SIMULATED, cJSON_CreateBool(r->simulated));
   put(o, KEY_STATE, string(r->state));
   cJSON *costs = cJSON_CreateArray();
   put(o, KEY_COSTS, costs);
   for (int i = 0; i < r->ncosts && i < RECORD_MAX_COSTS; i++)
      if (!cJSON_AddItemToArray(costs, JsonLines_numberItem(r->costs[i])))
         fatal("out of memory building a record");
   const char *name = MeasureError_name(r->error);
   put(o, KEY_ERROR, string(name ? name : "?"));
   put(o, KEY_ERROR_NO, integer(r->error));
   if (r->message && *r->message)
      put(o, KEY_MESSAGE, string(r->message));
   put(o, KEY_REGISTERS, integer(r->registers));
   put(o, KEY_COMPILE_S, JsonLines_numberItem(r->compileSeconds));
   put(o, KEY_RUN_S, JsonLines_numberItem(r->runSeconds));
   put(o, KEY_TIME, integer(r->timestamp));
   if (r->throttled)
      put(o, KEY_THROTTLED, GpuThrottle_toJson(r->throttled));
   if (r->counters.present)
      put(o, KEY_COUNTERS, Counters_toJson(&r->counters));
   char *line = cJSON_PrintUnformatted(o);
   cJSON_Delete(o);
   if (!line)
      fatal("out of memory printing a record");
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

static int wrongType(RecordKey k, const char *expect, const cJSON *item, char **cause) {
   char found[32];
   describe(item, found, sizeof found);
   return wrong(k, expect, found, cause);
}

/* The item of key k, NULL when an optional key is absent; -1 when a required one is,
 * or when the item is not of `type` (a cJSON_IsX test). */
static int member(const cJSON *root, RecordKey k, const char *expect,
                  cJSON_bool (*type)(const cJSON *), const cJSON **out, char **cause) {
   const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, keys[k].name);
   *out = item;
   if (!item)
      return keys[k].required ? missing(k, expect, cause) : 0;
   return type(item) ? 0 : wrongType(k, expect, item, cause);
}

static int getString(const cJSON *root, RecordKey k, char **out, char **cause) {
   const cJSON *item;
   if (member(root, k, keys[k].expect, cJSON_IsString, &item, cause) < 0)
      return -1;
   *out = xStrdup(item ? item->valuestring : "");
   return 0;
}

static int getNumber(const cJSON *root, RecordKey k, double *out, char **cause) {
   const cJSON *item;
   if (member(root, k, keys[k].expect, cJSON_IsNumber, &item, cause) < 0)
      return -1;
   *out = item->valuedouble;
   return checkRange(k, *out, cause);
}

static int getVersion(const cJSON *root, Record *out, char **cause) {
   double v;
   if (getNumber(root, KEY_V, &v, cause) < 0)
      return -1;
   if (v > RECORD_FORMAT_VERSION) {
      char text[JSONL_NUMBER_SIZE];
      JsonLines_number(v, text, sizeof text);
      return setCause(cause, "format version %s is newer than this program reads (%d)", text,
                      RECORD_FORMAT_VERSION);
   }
   out->version = (int)v;
   return 0;
}

static int getCosts(const cJSON *root, Record *out, char **cause) {
   const cJSON *costs;
   if (member(root, KEY_COSTS, keys[KEY_COSTS].expect, cJSON_IsArray, &costs, cause) < 0 ||
       checkCostCount(cJSON_GetArraySize(costs), cause) < 0)
      return -1;
   for (const cJSON *c = costs->child; c; c = c->next) {
      if (!cJSON_IsNumber(c)) {
         char found[32];
         describe(c, found, sizeof found);
         return setCause(cause, "\"costs\"[%d]: expected a number, found %s", out->ncosts, found);
      }
      out->costs[out->ncosts++] = c->valuedouble;
   }
   return 0;
}

static int getError(const cJSON *root, Record *out, char **cause) {
   char expect[256];
   errorKinds(expect, sizeof expect);
   const cJSON *item;
   if (member(root, KEY_ERROR, expect, cJSON_IsString, &item, cause) < 0)
      return -1;
   int e = MeasureError_parse(item->valuestring);
   if (e < 0) {
      char found[64];
      snprintf(found, sizeof found, "\"%.40s%s\"", item->valuestring,
               strlen(item->valuestring) > 40 ? "..." : "");
      return wrong(KEY_ERROR, expect, found, cause);
   }
   out->error = (MeasureError)e;
   snprintf(expect, sizeof expect, "%d (the number of \"%s\")", e, item->valuestring);
   if (member(root, KEY_ERROR_NO, expect, cJSON_IsNumber, &item, cause) < 0)
      return -1;
   if (item && item->valuedouble != e)
      return wrongNumber(KEY_ERROR_NO, expect, item->valuedouble, cause);
   return 0;
}

static int getThrottled(const cJSON *root, Record *out, char **cause) {
   const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, keys[KEY_THROTTLED].name);
   if (!item)
      return 0;
   char *why = NULL;
   if (GpuThrottle_fromJson(item, &out->throttled, &why) < 0) {
      setCause(cause, "\"throttled\"%s%s", *why == '[' ? "" : ": ", why);
      free(why);
      return -1;
   }
   return 0;
}

static int getCounters(const cJSON *root, Record *out, char **cause) {
   const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, keys[KEY_COUNTERS].name);
   if (!item)
      return 0;
   char *why = NULL;
   if (Counters_fromJson(item, &out->counters, &why) < 0) {
      setCause(cause, "\"counters\": %s", why);
      free(why);
      return -1;
   }
   return 0;
}

static int checkDuplicates(const cJSON *root, char **cause) {
   for (const cJSON *a = root->child; a; a = a->next)
      for (const cJSON *b = a->next; b; b = b->next)
         if (strcmp(a->string, b->string) == 0)
            for (int k = 0; k < KEY_COUNT; k++)
               if (strcmp(a->string, keys[k].name) == 0)
                  return setCause(cause, "key \"%s\" is given twice", a->string);
   return 0;
}

static int parseObject(const cJSON *root, Record *out, char **cause) {
   if (!cJSON_IsObject(root)) {
      char found[32];
      describe(root, found, sizeof found);
      return setCause(cause, "expected a JSON object, found %s", found);
   }
   double registers, time;
   const cJSON *simulated;
   if (checkDuplicates(root, cause) < 0 || getVersion(root, out, cause) < 0 ||
       getString(root, KEY_TASK, &out->task, cause) < 0 ||
       getString(root, KEY_DEVICE, &out->device, cause) < 0 ||
       member(root, KEY_SIMULATED, keys[KEY_SIMULATED].expect, cJSON_IsBool, &simulated, cause) <
          0 ||
       getString(root, KEY_STATE, &out->state, cause) < 0 || getCosts(root, out, cause) < 0 ||
       getError(root, out, cause) < 0 || getString(root, KEY_MESSAGE, &out->message, cause) < 0 ||
       getNumber(root, KEY_REGISTERS, &registers, cause) < 0 ||
       getNumber(root, KEY_COMPILE_S, &out->compileSeconds, cause) < 0 ||
       getNumber(root, KEY_RUN_S, &out->runSeconds, cause) < 0 ||
       getNumber(root, KEY_TIME, &time, cause) < 0 || getThrottled(root, out, cause) < 0 ||
       getCounters(root, out, cause) < 0)
      return -1;
   out->simulated = cJSON_IsTrue(simulated);
   out->registers = (int)registers;
   out->timestamp = (int64_t)time;
   return Record_validate(out, cause);
}

/* A parsed line into out; on failure out is left empty. */
static int fromTree(const cJSON *root, Record *out, char **cause) {
   memset(out, 0, sizeof *out);
   int rc = parseObject(root, out, cause);
   if (rc < 0)
      Record_done(out);
   return rc;
}

int Record_fromJson(const char *line, Record *out, char **cause) {
   memset(out, 0, sizeof *out);
   cJSON *root = JsonLines_parse(line, strlen(line), cause);
   if (!root)
      return -1;
   int rc = fromTree(root, out, cause);
   cJSON_Delete(root);
   return rc;
}

/* ---- sets and files ---- */

void RecordSet_init(RecordSet *s) {
   memset(s, 0, sizeof *s);
}

void RecordSet_done(RecordSet *s) {
   for (int i = 0; i < s->count; i++)
      Record_done(&s->records[i]);
   free(s->records);
   RecordSet_init(s);
}

static int takeRecord(void *ctx, const cJSON *root, int line, char **why) {
   RecordSet *s = ctx;
   Record r;
   if (fromTree(root, &r, why) < 0)
      return -1;
   r.line = line;
   if (s->count == s->cap) {
      s->cap = s->cap ? 2 * s->cap : 64;
      s->records = xReallocArray(s->records, (size_t)s->cap, sizeof *s->records);
   }
   s->records[s->count++] = r;
   return 0;
}

int Records_read(const char *path, RecordSet *out, char **notice, char **cause) {
   return JsonLines_read(path, true, takeRecord, out, notice, cause);
}

/* ---- the writer ---- */

struct RecordWriter_ {
   char *path;
   int fd;
   bool needNewline;        /* the file ends in a cut line */
   char *queue;             /* lines appended since the last flush, each with its newline */
   size_t len, cap;
};

RecordWriter *RecordWriter_open(const char *path, char **cause) {
   int fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
   if (fd < 0) {
      setCause(cause, "%s: %s", path, strerror(errno));
      return NULL;
   }
   bool needNewline = false;
   struct stat st;
   if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      char c;
      if (pread(fd, &c, 1, st.st_size - 1) != 1) {
         setCause(cause, "%s: %s", path, strerror(errno));
         close(fd);
         return NULL;
      }
      needNewline = c != '\n';
   }
   RecordWriter *w = xCalloc(1, sizeof *w);
   w->path = xStrdup(path);
   w->fd = fd;
   w->needNewline = needNewline;
   return w;
}

int RecordWriter_append(RecordWriter *w, const Record *r, char **cause) {
   char *why = NULL;
   if (Record_validate(r, &why) < 0) {
      setCause(cause, "%s: not writing an invalid record: %s", w->path, why);
      free(why);
      return -1;
   }
   char *line = Record_toJson(r);
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

static bool completeRecord(const char *line) {
   Record r;
   if (Record_fromJson(line, &r, NULL) < 0)
      return false;
   Record_done(&r);
   return true;
}

int RecordWriter_flush(RecordWriter *w, char **cause) {
   if (w->len > 0) {
      size_t done;
      if (w->needNewline) {
         if (JsonLines_endCutLine(w->fd, completeRecord) < 0)
            return setCause(cause, "%s: %s", w->path, strerror(errno));
         w->needNewline = false;
      }
      struct stat st;
      off_t before = fstat(w->fd, &st) == 0 && S_ISREG(st.st_mode) ? st.st_size : -1;
      if (JsonLines_writeAll(w->fd, w->queue, w->len, &done) < 0) {
         int err = errno;
         size_t whole = done;
         while (whole > 0 && w->queue[whole - 1] != '\n')
            whole--;
         if (done > whole && (before < 0 || ftruncate(w->fd, before + (off_t)whole) != 0))
            w->needNewline = true;
         memmove(w->queue, w->queue + whole, w->len - whole);
         w->len -= whole;
         return setCause(cause, "%s: %s", w->path, strerror(err));
      }
      w->len = 0;
   }
   /* a terminal or a pipe cannot be synced, and has nothing to lose */
   if (fsync(w->fd) != 0 && errno != EINVAL)
      return setCause(cause, "%s: %s", w->path, strerror(errno));
   return 0;
}

int RecordWriter_close(RecordWriter *w, char **cause) {
   int rc = RecordWriter_flush(w, cause);
   if (close(w->fd) != 0 && rc == 0)
      rc = setCause(cause, "%s: %s", w->path, strerror(errno));
   free(w->path);
   free(w->queue);
   free(w);
   return rc;
}
