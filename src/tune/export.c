/* Exports of a session: its measure events as records, its round ends as the tuning
 * curve, and each task's best state as a kernel with its launch configuration. */
#include "config.h"

#include "tune/export.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "graph/import.h"
#include "codegen/cuda.h"
#include "ir/lower.h"
#include "tune/front.h"
#include "tune/plot.h"
#include "tune/view.h"
#include "tune/scheduler.h"
#include "util/jsonl.h"
#include "util/outfile.h"
#include "util/paths.h"
#include "util/textbuf.h"
#include "measure/measure.h"
#include "util/xalloc.h"

_Static_assert(SESSION_MAX_COSTS <= RECORD_MAX_COSTS, "a measure event's costs fit a record");

#define MAX_EXACT_INTEGER 9007199254740991.0

static const SessionHeader *headerOf(const SessionLog *log) {
   return &log->events[0].header;
}

/* The event's task index, checked against the header's tasks; -1 with the cause. */
static int taskOf(const SessionLog *log, const char *path, const SessionEvent *e, char **cause) {
   int n = headerOf(log)->ntasks;
   if (e->measure.task < n)
      return e->measure.task;
   if (n == 0)
      return setCause(cause, "%s:%d: task %d, but the header lists no tasks", path, e->line,
                      e->measure.task);
   return setCause(cause, "%s:%d: task %d is not one of the header's %d tasks (0 to %d)", path,
                   e->line, e->measure.task, n, n - 1);
}

/* the latency the engine took from it: the median of its costs */
static double latencyOf(const SessionEvent *e) {
   return Measure_median(e->measure.costs, e->measure.ncosts);
}

/* ---- records ---- */

static int unknownError(const char *path, const SessionEvent *e, char **cause) {
   char kinds[256];
   TextBuf t = TextBuf_over(kinds, sizeof kinds);
   for (int k = 0; k < MEASURE_ERROR_COUNT; k++)
      TextBuf_add(&t, "%s\"%s\"", k ? ", " : "", MeasureError_name((MeasureError)k));
   const char *found = e->measure.error ? e->measure.error : "";
   return setCause(cause, "%s:%d: \"error\": expected one of %s, found \"%.40s%s\"", path, e->line, kinds,
                   found, strlen(found) > 40 ? "..." : "");
}

int Export_record(const SessionLog *log, const char *path, const SessionEvent *e, Record *out,
                  char **cause) {
   memset(out, 0, sizeof *out);
   const SessionHeader *h = headerOf(log);
   int task = taskOf(log, path, e, cause);
   if (task < 0)
      return -1;
   int error = e->measure.error ? MeasureError_parse(e->measure.error) : -1;
   if (error < 0)
      return unknownError(path, e, cause);
   Record r = {
      .version = RECORD_FORMAT_VERSION,
      .task = xStrdup(h->tasks[task]),
      .device = xStrdup(h->device),
      .simulated = h->simulated,
      .state = xStrdup(e->measure.state),
      .ncosts = e->measure.ncosts,
      .error = (MeasureError)error,
      .message = xStrdup(e->measure.message ? e->measure.message : ""),
      .registers = -1,
      .compileSeconds = e->measure.buildSeconds,
      .runSeconds = e->measure.runSeconds,
      .throttled = e->measure.throttled,
   };
   memcpy(r.costs, e->measure.costs, (size_t)e->measure.ncosts * sizeof r.costs[0]);
   /* a time past what a record holds stays past it, for Record_validate to name */
   double when = (double)h->startTime + floor(e->elapsed);
   r.timestamp = when <= MAX_EXACT_INTEGER ? (int64_t)when : INT64_MAX;
   char *why = NULL;
   if (Record_validate(&r, &why) < 0) {
      setCause(cause, "%s:%d: not a valid record: %s", path, e->line, why);
      free(why);
      Record_done(&r);
      return -1;
   }
   *out = r;
   return 0;
}

int Export_records(const SessionLog *log, const char *path, RecordSet *out, char **cause) {
   for (int i = 1; i < log->count; i++) {
      const SessionEvent *e = &log->events[i];
      switch (e->kind) {
      case SESSION_MEASURE: {
         Record r;
         if (Export_record(log, path, e, &r, cause) < 0)
            return -1;
         if (out->count == out->cap) {
            out->cap = out->cap ? 2 * out->cap : 64;
            out->records = xReallocArray(out->records, (size_t)out->cap, sizeof *out->records);
         }
         out->records[out->count++] = r;
         break;
      }
      default:
         break;
      }
   }
   return 0;
}

/* ---- the tuning curve ---- */

char *Export_curve(const SessionLog *log, int *lines) {
   size_t len = 0, cap = 256;
   char *text = xMalloc(cap);
   text[0] = '\0';
   *lines = 0;
   for (int i = 1; i < log->count; i++) {
      const SessionEvent *e = &log->events[i];
      switch (e->kind) {
      case SESSION_ROUND_END: {
         size_t need = TaskScheduler_curveLine(NULL, 0, e->elapsed, e->roundEnd.latencyMs,
                                               e->roundEnd.trials);
         if (len + need + 1 > cap) {
            cap = 2 * (len + need + 1);
            text = xRealloc(text, cap);
         }
         len += TaskScheduler_curveLine(text + len, cap - len, e->elapsed, e->roundEnd.latencyMs,
                                        e->roundEnd.trials);
         (*lines)++;
         break;
      }
      default:
         break;
      }
   }
   return text;
}

/* ---- the network ---- */

static int checkTasks(const SessionLog *log, const char *path, const Network *net, char **cause) {
   const SessionHeader *h = headerOf(log);
   int line = log->events[0].line;
   if (h->ntasks != net->ntasks)
      return setCause(cause, "%s:%d: the header lists %d tasks but %s has %d", path, line, h->ntasks,
                      net->path, net->ntasks);
   for (int t = 0; t < h->ntasks; t++)
      if (strcmp(h->tasks[t], net->tasks[t].key) != 0)
         return setCause(cause, "%s:%d: task %d is %s in the header but %s in %s", path, line, t,
                         h->tasks[t], net->tasks[t].key, net->path);
   return 0;
}

int Export_loadNetwork(const SessionLog *log, const char *path, const char *taskFile, Network *out,
                       char **cause) {
   memset(out, 0, sizeof *out);
   char *file = taskFile ? Paths_findTaskFile(taskFile) : Paths_findRecordedTaskFile(headerOf(log)->networkFile);
   char *why = NULL;
   int rc = Model_load(out, file, headerOf(log)->networkInputs, &why);
   free(file);
   if (rc < 0) {
      if (taskFile)
         setCause(cause, "%s", why);
      else
         setCause(cause, "%s:%d: its network file: %s", path, log->events[0].line, why);
      free(why);
      return -1;
   }
   if (checkTasks(log, path, out, cause) < 0) {
      Network_done(out);
      memset(out, 0, sizeof *out);
      return -1;
   }
   return 0;
}

/* ---- kernels ---- */

int Export_bestMeasures(const SessionLog *log, const char *path, int *best, char **cause) {
   int ntasks = headerOf(log)->ntasks;
   double *bestCost = xCalloc(ntasks > 0 ? (size_t)ntasks : 1, sizeof *bestCost);
   for (int t = 0; t < ntasks; t++)
      best[t] = -1;
   int rc = 0;
   for (int i = 1; i < log->count && rc == 0; i++) {
      const SessionEvent *e = &log->events[i];
      switch (e->kind) {
      case SESSION_MEASURE: {
         int t = taskOf(log, path, e, cause);
         if (t < 0) {
            rc = -1;
            break;
         }
         if (!e->measure.error || strcmp(e->measure.error, MeasureError_name(MEASURE_OK)) != 0)
            break;
         double cost = latencyOf(e);
         if (best[t] < 0 || cost < bestCost[t]) {
            best[t] = i;
            bestCost[t] = cost;
         }
         break;
      }
      default:
         break;
      }
   }
   free(bestCost);
   return rc;
}

static void put(cJSON *object, const char *key, cJSON *item) {
   if (!item || !cJSON_AddItemToObject(object, key, item))
      fatal("out of memory building a kernel's launch configuration");
}

static cJSON *newList(void) {
   cJSON *list = cJSON_CreateArray();
   if (!list)
      fatal("out of memory building a kernel's launch configuration");
   return list;
}

/* A new object at the end of list. */
static cJSON *addObject(cJSON *list) {
   cJSON *o = cJSON_CreateObject();
   if (!o || !cJSON_AddItemToArray(list, o))
      fatal("out of memory building a kernel's launch configuration");
   return o;
}

static void putInt(cJSON *object, const char *key, int64_t v) {
   put(object, key, cJSON_CreateNumber((double)v));
}

static void putText(cJSON *object, const char *key, const char *s) {
   put(object, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

/* [x, 1, 1]: the lowering's grids and blocks are one-dimensional */
static cJSON *dim3(int64_t x) {
   const double v[3] = { (double)x, 1, 1 };
   return cJSON_CreateDoubleArray(v, 3);
}

static const char *role(const IrBuffer *b) {
   return b->input ? "input" : b->output ? "output" : "scratch";
}

static cJSON *buffersJson(const LoopNest *ln) {
   cJSON *list = newList();
   for (int b = 0; b < ln->nbuffers; b++) {
      const IrBuffer *buf = &ln->buffers[b];
      if (buf->scope != SCOPE_GLOBAL)
         continue;
      cJSON *o = addObject(list);
      putText(o, "name", buf->name);
      putText(o, "role", role(buf));
      double shape[TE_MAX_DIMS];
      for (int d = 0; d < buf->ndim; d++)
         shape[d] = (double)buf->shape[d];
      put(o, "shape", cJSON_CreateDoubleArray(shape, buf->ndim));
      putInt(o, "elements", buf->elems);
   }
   return list;
}

static cJSON *kernelsJson(const LoopNest *ln) {
   cJSON *list = newList();
   for (int k = 0; k < ln->nkernels; k++) {
      const IrKernel *kn = &ln->kernels[k];
      cJSON *o = addObject(list);
      putText(o, "name", kn->name);
      put(o, "grid", dim3(kn->grid));
      put(o, "block", dim3(kn->block));
      putInt(o, "shared_bytes", kn->sharedBytes);
      putInt(o, "dynamic_shared_bytes", 0);  /* all shared memory is static */
      const char *args[IR_MAX_PARAMS];
      for (int p = 0; p < kn->nparams; p++)
         args[p] = ln->buffers[kn->params[p]].name;
      put(o, "args", cJSON_CreateStringArray(args, kn->nparams));
   }
   return list;
}

static char *launchJson(const SessionLog *log, const Network *net, const SessionEvent *e,
                        const Device *dev, const LoopNest *ln, const ExportedKernel *k) {
   const SessionHeader *h = headerOf(log);
   const Task *task = &net->tasks[k->task];
   cJSON *o = cJSON_CreateObject();
   if (!o)
      fatal("out of memory building a kernel's launch configuration");
   char text[256], arch[16];
   putText(o, "network", h->network);
   putInt(o, "task", k->task);
   putText(o, "key", task->key);
   putText(o, "label", task->label);
   putText(o, "op", Op_name(task->op.kind));
   Op_describe(&task->op, text, sizeof text);
   putText(o, "shape", text);
   Op_epilogueText(&task->op, text, sizeof text);
   putText(o, "epilogue", text);
   putText(o, "device", h->device);
   put(o, "simulated", cJSON_CreateBool(h->simulated));
   bool knownArch = dev && Device_has(dev, DEV_COMPUTE_CAPABILITY);
   if (knownArch)
      Device_arch(dev, arch, sizeof arch);
   putText(o, "arch", knownArch ? arch : NULL);
   put(o, "latency_s", JsonLines_numberItem(k->latency));
   put(o, "gflops", JsonLines_numberItem(k->gflops));
   putInt(o, "round", e->round);
   putText(o, "state", e->measure.state);
   snprintf(text, sizeof text, "%s.cu", k->name);
   putText(o, "source", text);
   put(o, "buffers", buffersJson(ln));
   put(o, "kernels", kernelsJson(ln));
   char *json = cJSON_Print(o);
   cJSON_Delete(o);
   if (!json)
      fatal("out of memory printing a kernel's launch configuration");
   char *line = xAsprintf("%s\n", json);
   cJSON_free(json);
   return line;
}

int Export_kernel(const SessionLog *log, const char *path, const Network *net, int event,
                  const SchedLimits *lim, const Device *dev, ExportedKernel *out, char **cause) {
   memset(out, 0, sizeof *out);
   const SessionHeader *h = headerOf(log);
   const SessionEvent *e = &log->events[event];
   int t = taskOf(log, path, e, cause);
   if (t < 0)
      return -1;
   if (t >= net->ntasks)
      return setCause(cause, "%s:%d: task %d is not one of the %d tasks of %s", path, e->line, t,
                      net->ntasks, net->path);
   const Task *task = &net->tasks[t];
   SketchSet set;
   SketchSet_forOpWith(&set, &task->op, &Sketch_readAny);
   State state;
   char *why = NULL;
   if (State_parse(&set, e->measure.state, lim, &state, &why) < 0) {
      setCause(cause, "%s:%d: task %d: %s", path, e->line, t, why);
      free(why);
      SketchSet_done(&set);
      return -1;
   }
   LoopNest ln;
   LoopNest_init(&ln);
   Lower_state(&set, &state, &ln);

   out->task = t;
   int width = snprintf(NULL, 0, "%d", h->ntasks > 1 ? h->ntasks - 1 : 0);
   snprintf(out->name, sizeof out->name, "task-%0*d", width, t);
   out->latency = latencyOf(e);
   out->gflops = task->flops / out->latency / 1e9;
   out->nkernels = ln.nkernels;
   char *comment = xAsprintf("pruner-tui %s: task %d of %s, %s\n"
                             "measured %.3f us (median of %d), %.1f GFLOPS, on %s%s\n"
                             "from %s, line %d: state %s",
                             PACKAGE_VERSION, t, net->name, task->key, out->latency * 1e6,
                             e->measure.ncosts, out->gflops, h->device, h->simulated ? " (simulated)" : "",
                             path, e->line, e->measure.state);
   out->source = Cuda_generate(&ln, comment);
   free(comment);
   out->launch = launchJson(log, net, e, dev, &ln, out);
   LoopNest_done(&ln);
   SketchSet_done(&set);
   return 0;
}

void ExportedKernel_done(ExportedKernel *k) {
   free(k->source);
   free(k->launch);
   memset(k, 0, sizeof *k);
}

/* The kernels of the tasks with a successful measure, and the tasks without. */
typedef struct {
   int count;
   ExportedKernel *kernels;
   int nmissing;
   int *missing;
} KernelSet;

static void KernelSet_done(KernelSet *s) {
   for (int i = 0; i < s->count; i++)
      ExportedKernel_done(&s->kernels[i]);
   free(s->kernels);
   free(s->missing);
   memset(s, 0, sizeof *s);
}

static bool isStdout(const char *path) {
   return strcmp(path, "-") == 0;
}

/* The device's limits where devices.yaml describes the header's device, as the
 * engine checked the states with them; the defaults otherwise. */
static const Device *sessionDevice(const DeviceSet *devices, const char *name, SchedLimits *lim) {
   const Device *dev = DeviceSet_find(devices, name);
   if (dev)
      SchedLimits_fromDevice(lim, dev);
   else
      SchedLimits_default(lim);
   return dev;
}

/* The session's network and its device's limits, for making kernels. */
static int kernelTarget(const SessionLog *log, const ExportRequest *a, const DeviceSet *devices, Network *net,
                        SchedLimits *lim, const Device **dev, char **cause) {
   if (Export_loadNetwork(log, a->session, a->network, net, cause) < 0)
      return -1;
   *dev = sessionDevice(devices, log->events[0].header.device, lim);
   return 0;
}

static int makeKernels(const SessionLog *log, const ExportRequest *a, const DeviceSet *devices, KernelSet *out,
                       char **cause) {
   memset(out, 0, sizeof *out);
   Network net;
   SchedLimits lim;
   const Device *dev;
   if (kernelTarget(log, a, devices, &net, &lim, &dev, cause) < 0)
      return -1;
   int *best = xCalloc((size_t)net.ntasks + 1, sizeof *best);
   int rc = Export_bestMeasures(log, a->session, best, cause);
   out->kernels = xCalloc((size_t)net.ntasks + 1, sizeof *out->kernels);
   out->missing = xCalloc((size_t)net.ntasks + 1, sizeof *out->missing);
   for (int t = 0; t < net.ntasks && rc == 0; t++) {
      if (best[t] < 0)
         out->missing[out->nmissing++] = t;
      else if (Export_kernel(log, a->session, &net, best[t], &lim, dev, &out->kernels[out->count], cause) < 0)
         rc = -1;
      else
         out->count++;
   }
   free(best);
   Network_done(&net);
   return rc;
}

/* Writes text as the file path, replacing what was there as a whole. */
static int replaceFile(const char *path, const char *text, char **cause) {
   return Outfile_write(path, text, strlen(text), cause);
}

/* Standard output flushed, so that a failure to write it stops the export before its
 * summary says it was written. */
static int flushStdout(char **cause) {
   errno = 0;
   if (fflush(stdout) == 0 && !ferror(stdout))
      return 0;
   return setCause(cause, "standard output: %s", strerror(errno ? errno : EIO));
}

static int writeRecords(const RecordSet *set, const char *path, char **cause) {
   if (isStdout(path)) {
      for (int i = 0; i < set->count; i++) {
         char *line = Record_toJson(&set->records[i]);
         puts(line);
         free(line);
      }
      return flushStdout(cause);
   }
   RecordWriter *w = RecordWriter_open(path, cause);
   if (!w)
      return -1;
   for (int i = 0; i < set->count; i++)
      if (RecordWriter_append(w, &set->records[i], cause) < 0) {
         RecordWriter_close(w, NULL);
         return -1;
      }
   return RecordWriter_close(w, cause);
}

static int writeKernels(const KernelSet *set, const char *dir, char **cause) {
   struct stat st;
   if (mkdir(dir, 0777) != 0 && !(errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)))
      return setCause(cause, "%s: cannot make the directory: %s", dir,
                      errno == EEXIST ? "a file of that name exists" : strerror(errno));
   int rc = 0;
   for (int i = 0; i < set->count && rc == 0; i++) {
      const ExportedKernel *k = &set->kernels[i];
      char *cu = xAsprintf("%s/%s.cu", dir, k->name);
      char *json = xAsprintf("%s/%s.json", dir, k->name);
      rc = replaceFile(cu, k->source, cause) < 0 || replaceFile(json, k->launch, cause) < 0 ? -1 : 0;
      free(cu);
      free(json);
   }
   return rc;
}

/* "; no successful measurement for tasks 3, 7" */
static void printMissing(FILE *out, const KernelSet *set) {
   if (set->nmissing == 0)
      return;
   fprintf(out, "; no successful measurement for task%s", set->nmissing > 1 ? "s" : "");
   for (int i = 0; i < set->nmissing; i++)
      fprintf(out, "%s %d", i ? "," : "", set->missing[i]);
}

/* The front's kernels and its files: each task's front points as kernels named
 * task-ID-PRECISION, front.txt and front.json. */
typedef struct {
   KernelSet kernels;
   char *text;
   char *json;
   int points, bounds;
} FrontFiles;

/* The first ok measure event of task t whose state is `state`. */
static int eventOf(const SessionLog *log, int t, const char *state) {
   for (int i = 1; i < log->count; i++) {
      const SessionEvent *e = &log->events[i];
      if (e->kind == SESSION_MEASURE && e->measure.task == t && e->measure.state &&
          strcmp(e->measure.state, state) == 0 && strcmp(e->measure.error, MeasureError_name(MEASURE_OK)) == 0)
         return i;
   }
   return -1;
}

static int makeFront(const SessionLog *log, const ExportRequest *a, const DeviceSet *devices, FrontFiles *out,
                     char **cause) {
   memset(out, 0, sizeof *out);
   Network net;
   SchedLimits lim;
   const Device *dev;
   if (kernelTarget(log, a, devices, &net, &lim, &dev, cause) < 0)
      return -1;
   TuneView v;
   TuneView_init(&v, &log->events[0].header, &net);
   for (int i = 1; i < log->count; i++)
      TuneView_apply(&v, &log->events[i]);
   out->text = Front_text(&v);
   cJSON *root = cJSON_CreateObject();
   cJSON_AddStringToObject(root, "network", net.name);
   cJSON *tasks = cJSON_AddArrayToObject(root, "tasks");
   out->kernels.kernels = xCalloc((size_t)net.ntasks * PRECISION_COUNT + 1, sizeof *out->kernels.kernels);
   out->kernels.missing = xCalloc((size_t)net.ntasks + 1, sizeof *out->kernels.missing);
   int rc = 0;
   for (int t = 0; t < net.ntasks && rc == 0; t++) {
      FrontPoint pts[PRECISION_COUNT];
      int n = Front_task(&v, t, pts);
      cJSON *task = cJSON_CreateObject();
      cJSON_AddNumberToObject(task, "task", t);
      cJSON_AddStringToObject(task, "key", net.tasks[t].key);
      cJSON *points = cJSON_AddArrayToObject(task, "points");
      cJSON_AddItemToArray(tasks, task);
      if (n == 0)
         out->kernels.missing[out->kernels.nmissing++] = t;
      for (int i = 0; i < n && rc == 0; i++) {
         ExportedKernel *k = &out->kernels.kernels[out->kernels.count];
         int ev = eventOf(log, t, pts[i].state);
         if (ev < 0 || Export_kernel(log, a->session, &net, ev, &lim, dev, k, cause) < 0) {
            if (ev < 0)
               rc = setCause(cause, "%s: task %d: no measure event holds its best %s state", a->session, t,
                             Precision_name(pts[i].precision));
            rc = -1;
            break;
         }
         out->kernels.count++;
         size_t len = strlen(k->name);
         snprintf(k->name + len, sizeof k->name - len, "-%s", Precision_name(pts[i].precision));
         cJSON *p = cJSON_CreateObject();
         cJSON_AddStringToObject(p, "precision", Precision_name(pts[i].precision));
         cJSON_AddItemToObject(p, "latency_ms", JsonLines_numberItem(pts[i].latency * 1e3));
         cJSON_AddItemToObject(p, "error", JsonLines_numberItem(pts[i].error));
         cJSON_AddItemToObject(p, "measured_error", JsonLines_numberItem(pts[i].measured));
         cJSON_AddStringToObject(p, "kernel", k->name);
         cJSON_AddItemToArray(points, p);
         out->points++;
      }
   }
   cJSON *front = cJSON_AddArrayToObject(root, "network_front");
   int nb = 0;
   FrontChoice **choices = rc == 0 ? Front_network(&v, &nb) : NULL;
   for (int i = 0; i < nb; i++) {
      cJSON *c = cJSON_CreateObject();
      cJSON_AddItemToObject(c, "bound", JsonLines_numberItem(choices[i]->bound));
      cJSON_AddItemToObject(c, "latency_ms", JsonLines_numberItem(choices[i]->latencyMs));
      cJSON *pick = cJSON_AddArrayToObject(c, "choice");
      for (int t = 0; t < net.ntasks; t++)
         cJSON_AddItemToArray(pick, cJSON_CreateString(Precision_name(choices[i]->choice[t])));
      cJSON_AddItemToArray(front, c);
   }
   out->bounds = nb;
   Front_free(choices, nb);
   char *json = cJSON_PrintUnformatted(root);
   out->json = xAsprintf("%s\n", json);
   cJSON_free(json);
   cJSON_Delete(root);
   TuneView_done(&v);
   Network_done(&net);
   return rc;
}

static int writeFront(const FrontFiles *f, const char *dir, char **cause) {
   if (writeKernels(&f->kernels, dir, cause) < 0)
      return -1;
   char *txt = xAsprintf("%s/front.txt", dir), *json = xAsprintf("%s/front.json", dir);
   int rc = replaceFile(txt, f->text, cause) < 0 || replaceFile(json, f->json, cause) < 0 ? -1 : 0;
   free(txt);
   free(json);
   return rc;
}

int Export_run(const ExportRequest *args, const DeviceSet *devices, FILE *say, char **cause) {
   ExportRequest a = *args;
   SessionLog log;
   SessionLog_init(&log);
   char *notice = NULL;
   if (Session_read(a.session, &log, &notice, cause) < 0)
      return -1;
   if (notice)
      fprintf(say, "note: %s\n", notice);
   free(notice);

   RecordSet records;
   RecordSet_init(&records);
   KernelSet kernels = { 0 };
   char *curve = NULL, *plot = NULL;
   int curveLines = 0, plotPoints = 0;
   int rc = 0;
   if (a.records && Export_records(&log, a.session, &records, cause) < 0)
      rc = -1;
   if (rc == 0 && a.curve)
      curve = Export_curve(&log, &curveLines);
   if (rc == 0 && a.kernels)
      rc = makeKernels(&log, &a, devices, &kernels, cause);
   if (rc == 0 && a.plot)
      plot = Plot_svg(&log, &plotPoints);
   FrontFiles front;
   memset(&front, 0, sizeof front);
   if (rc == 0 && a.front)
      rc = makeFront(&log, &a, devices, &front, cause);

   if (rc == 0 && a.records) {
      if (writeRecords(&records, a.records, cause) < 0)
         rc = -1;
      else
         fprintf(say, "%s %d records to %s\n", isStdout(a.records) ? "wrote" : "appended", records.count,
                 isStdout(a.records) ? "standard output" : a.records);
   }
   if (rc == 0 && a.curve) {
      if (isStdout(a.curve))
         fputs(curve, stdout);
      if (isStdout(a.curve) ? flushStdout(cause) < 0 : replaceFile(a.curve, curve, cause) < 0)
         rc = -1;
      if (rc == 0)
         fprintf(say, "wrote %d curve lines to %s\n", curveLines, isStdout(a.curve) ? "standard output" : a.curve);
   }
   if (rc == 0 && a.kernels) {
      if (writeKernels(&kernels, a.kernels, cause) < 0) {
         rc = -1;
      } else {
         fprintf(say, "wrote %d kernels to %s", kernels.count, a.kernels);
         printMissing(say, &kernels);
         fprintf(say, "\n");
      }
   }
   if (rc == 0 && a.plot) {
      if (replaceFile(a.plot, plot, cause) < 0)
         rc = -1;
      else
         fprintf(say, "wrote the curves of %d rounds with a latency to %s\n", plotPoints, a.plot);
   }
   if (rc == 0 && a.front) {
      if (writeFront(&front, a.front, cause) < 0) {
         rc = -1;
      } else {
         fprintf(say, "wrote the front to %s: %d points of %d tasks with their kernels, %d bound%s of the network",
                 a.front, front.points, log.events[0].header.ntasks, front.bounds, front.bounds == 1 ? "" : "s");
         printMissing(say, &front.kernels);
         fprintf(say, "\n");
      }
   }
   KernelSet_done(&front.kernels);
   free(front.text);
   free(front.json);
   free(curve);
   free(plot);
   KernelSet_done(&kernels);
   RecordSet_done(&records);
   SessionLog_done(&log);
   return rc;
}
