/* export --library: the plan, the weights, the CUBINs and the runtime (tune/library.h). */
#include "config.h"

#include "tune/library.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "codegen/cuda.h"
#include "graph/import.h"
#include "graph/netrun.h"
#include "measure/nvrtc.h"
#include "tune/program.h"
#include "tune/session.h"
#include "util/rng.h"
#include "util/textbuf.h"
#include "util/xalloc.h"

#define FNV_START 14695981039346656037ULL

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
   const unsigned char *s = p;
   for (size_t i = 0; i < n; i++) {
      h ^= s[i];
      h *= 1099511628211ULL;
   }
   return h;
}

/* ---- the plan ---- */

typedef enum { SRC_NONE, SRC_ARENA, SRC_WEIGHTS, SRC_INPUT, SRC_OUTPUT } SrcKind;

typedef struct {
   SrcKind kind;
   int64_t v;                   /* bytes into the arena or the weights; an input's or output's index */
} Src;

typedef struct {
   bool copy;
   int task, kernel;            /* a launch: kernel `kernel` of the task's nest */
   Src buf[IR_MAX_BUFFERS];     /* a launch: where each global buffer of the nest is */
   Src dst, src;                /* a copy */
   int64_t bytes;
} Step;

typedef struct {
   Step *steps;
   int nsteps, cap;
   unsigned char *weights;
   int64_t weightBytes;
   int64_t arenaBytes;
   int *weightOf;               /* per graph tensor: its offset in the weights + 1, 0 when not there */
} Plan;

static Step *addStep(Plan *p) {
   if (p->nsteps == p->cap) {
      p->cap = p->cap ? 2 * p->cap : 64;
      p->steps = xReallocArray(p->steps, (size_t)p->cap, sizeof *p->steps);
   }
   Step *s = &p->steps[p->nsteps++];
   memset(s, 0, sizeof *s);
   return s;
}

/* The weights' offset of constant tensor t (transposed: its last two axes swapped),
 * added to the blob the first time. */
static int64_t weightOffset(Plan *p, const GTensor *x, int t, bool transposed) {
   int slot = 2 * t + (transposed ? 1 : 0);
   if (p->weightOf[slot])
      return p->weightOf[slot] - 1;
   int64_t at = NetRun_align(p->weightBytes), bytes = GTensor_elems(x) * (int64_t)sizeof(float);
   p->weights = xRealloc(p->weights, (size_t)(at + bytes > 0 ? at + bytes : 1));
   memset(p->weights + p->weightBytes, 0, (size_t)(at - p->weightBytes));
   if (transposed)
      NetRun_transposeInto(x, (float *)(void *)(p->weights + at));
   else
      memcpy(p->weights + at, x->data, (size_t)bytes);
   p->weightBytes = at + bytes;
   if (at + 1 > INT32_MAX)
      fatal("library: weights past 2 GiB");
   p->weightOf[slot] = (int)(at + 1);
   return at;
}

static int graphInputIndex(const Graph *g, int t) {
   for (int i = 0; i < g->ninputs; i++)
      if (g->inputs[i] == t)
         return i;
   return -1;
}

/* Where tensor t lives for the plan: a graph input, a weight, or the arena. */
static int tensorSource(Plan *p, const ImportedModel *m, const NetMemoryPlan *mp, int t, bool transposed,
                        int unit, Src *out, char **cause) {
   const GTensor *x = &m->g.t[t];
   int in = graphInputIndex(&m->g, t);
   if (in >= 0 && !transposed) {
      *out = (Src){ SRC_INPUT, in };
      return 0;
   }
   if (x->role == GT_WEIGHT && x->data) {
      if (x->dtype != GT_FLOAT)
         return setCause(cause, "kernel %d reads the weight '%s' of type %s; the library holds float32", unit,
                         x->name, GType_name(x->dtype));
      *out = (Src){ SRC_WEIGHTS, weightOffset(p, x, t, transposed) };
      return 0;
   }
   if (transposed)
      return setCause(cause, "kernel %d reads '%s' transposed; the library transposes weights only", unit, x->name);
   if (mp->offset[t] < 0)
      return setCause(cause, "kernel %d reads '%s', which has no place in the memory plan", unit, x->name);
   *out = (Src){ SRC_ARENA, mp->offset[t] };
   return 0;
}

static int buildPlan(Plan *p, const ImportedModel *m, const TunedProgram *prog, char **cause) {
   const Graph *g = &m->g;
   NetMemoryPlan mp;
   NetMemoryPlan_build(&mp, m);
   memset(p, 0, sizeof *p);
   p->weightOf = xCalloc((size_t)(2 * g->ntensors + 2), sizeof *p->weightOf);
   /* the scratch of a task's nest (the intermediates between its kernels) after the
    * activations: one unit at a time, so every task shares it */
   int64_t scratchBase = NetRun_align(mp.peak), scratchMax = 0;
   int rc = 0;
   for (int u = 0; u < m->nunits && rc == 0; u++) {
      const ImportUnit *un = &m->units[u];
      int out = g->n[un->nodes[un->n - 1]].out[0];
      if (un->task < 0) {
         int src = g->n[un->nodes[0]].in[0];
         for (int k = 0; k < un->n; k++)
            if (!Import_isView(&g->n[un->nodes[k]]))
               rc = setCause(cause, "kernel %d runs the graph op %s ('%s'), which the library has no kernel for: it "
                             "runs tasks and views (the import's --include-simple-tasks makes concat, resize and "
                             "elementwise groups tasks)", u, g->n[un->nodes[k]].opType, g->n[un->nodes[k]].name);
         if (rc < 0)
            break;
         Step *s = addStep(p);
         s->copy = true;
         s->bytes = GTensor_elems(&g->t[out]) * (int64_t)sizeof(float);
         if (GTensor_elems(&g->t[src]) * (int64_t)sizeof(float) != s->bytes || g->t[out].dtype != GT_FLOAT)
            rc = setCause(cause, "kernel %d: the view '%s' changes the number of float32 elements", u,
                          g->n[un->nodes[0]].name);
         if (rc == 0)
            rc = tensorSource(p, m, &mp, src, false, u, &s->src, cause);
         if (rc == 0)
            rc = tensorSource(p, m, &mp, out, false, u, &s->dst, cause);
         continue;
      }
      const LoopNest *ln = &prog->tasks[un->task].ln;
      Src bufs[IR_MAX_BUFFERS];
      memset(bufs, 0, sizeof bufs);
      int in = 0;
      int64_t scratch = 0;
      for (int b = 0; b < ln->nbuffers && rc == 0; b++) {
         const IrBuffer *bf = &ln->buffers[b];
         if (bf->scope != SCOPE_GLOBAL)
            continue;
         if (bf->input) {
            if (in >= un->nin) {
               rc = setCause(cause, "kernel %d (task %d): the nest reads more inputs than the unit's %d", u,
                             un->task, un->nin);
               break;
            }
            rc = tensorSource(p, m, &mp, un->in[in], (un->transposed >> in) & 1, u, &bufs[b], cause);
            in++;
         } else if (bf->output) {
            rc = tensorSource(p, m, &mp, out, false, u, &bufs[b], cause);
         } else {
            bufs[b] = (Src){ SRC_ARENA, scratchBase + scratch };
            scratch += NetRun_align(bf->elems * (int64_t)sizeof(float));
         }
      }
      if (scratch > scratchMax)
         scratchMax = scratch;
      for (int k = 0; k < ln->nkernels && rc == 0; k++) {
         Step *s = addStep(p);
         s->task = un->task;
         s->kernel = k;
         memcpy(s->buf, bufs, sizeof bufs);
      }
   }
   /* the outputs, from the arena to the caller's buffers */
   for (int o = 0; o < g->noutputs && rc == 0; o++) {
      Step *s = addStep(p);
      s->copy = true;
      s->dst = (Src){ SRC_OUTPUT, o };
      s->bytes = GTensor_elems(&g->t[g->outputs[o]]) * (int64_t)sizeof(float);
      rc = tensorSource(p, m, &mp, g->outputs[o], false, -1, &s->src, cause);
      if (rc == 0 && s->src.kind != SRC_ARENA)
         rc = setCause(cause, "output '%s' is not computed by a kernel", g->t[g->outputs[o]].name);
   }
   p->arenaBytes = scratchBase + scratchMax;
   if (p->arenaBytes == 0)
      p->arenaBytes = NETRUN_ALIGN;
   NetMemoryPlan_done(&mp);
   return rc;
}

static void planDone(Plan *p) {
   free(p->steps);
   free(p->weights);
   free(p->weightOf);
   memset(p, 0, sizeof *p);
}

/* ---- the plan run on the CPU ---- */

static float *at(unsigned char *arena, unsigned char *weights, float *const *in, float *const *out, Src s) {
   switch (s.kind) {
   case SRC_ARENA: return (float *)(void *)(arena + s.v);
   case SRC_WEIGHTS: return (float *)(void *)(weights + s.v);
   case SRC_INPUT: return in[s.v];
   case SRC_OUTPUT: return out[s.v];
   default: return NULL;
   }
}

static int runOnCpu(const Plan *p, const TunedProgram *prog, float *const *in, float *const *out, char **cause) {
   unsigned char *arena = xCalloc((size_t)p->arenaBytes, 1);
   int rc = 0;
   for (int i = 0; i < p->nsteps && rc == 0; i++) {
      const Step *s = &p->steps[i];
      if (s->copy) {
         memmove(at(arena, p->weights, in, out, s->dst), at(arena, p->weights, in, out, s->src), (size_t)s->bytes);
         continue;
      }
      const LoopNest *ln = &prog->tasks[s->task].ln;
      float *globals[IR_MAX_BUFFERS] = { 0 };
      for (int b = 0; b < ln->nbuffers; b++)
         if (ln->buffers[b].scope == SCOPE_GLOBAL)
            globals[b] = at(arena, p->weights, in, out, s->buf[b]);
      char *why = NULL;
      if (TunedProgram_runKernel(prog, s->task, s->kernel, globals, &why) < 0)
         rc = setCause(cause, "step %d (task %d, kernel %d) on the CPU: %s", i + 1, s->task, s->kernel, why);
      free(why);
   }
   free(arena);
   return rc;
}

/* ---- writing ---- */

static char *substitute(const char *text, const char *name) {
   size_t n = 0, len = strlen(name);
   for (const char *s = text; (s = strstr(s, "PTNET")); s += 5)
      n++;
   char *r = xMalloc(strlen(text) + n * (len + 1) + 1), *w = r;
   for (const char *s = text;;) {
      const char *hit = strstr(s, "PTNET");
      if (!hit) {
         strcpy(w, s);
         break;
      }
      memcpy(w, s, (size_t)(hit - s));
      w += hit - s;
      memcpy(w, name, len);
      w += len;
      s = hit + 5;
   }
   return r;
}

static int writeFile(const char *dir, const char *file, const void *data, size_t n, char **cause) {
   char *path = xAsprintf("%s/%s", dir, file);
   FILE *f = fopen(path, "wb");
   int rc = 0;
   if (!f || fwrite(data, 1, n, f) != n)
      rc = setCause(cause, "%s: %s", path, strerror(errno));
   if (f && fclose(f) != 0 && rc == 0)
      rc = setCause(cause, "%s: %s", path, strerror(errno));
   free(path);
   return rc;
}

static void srcText(TextGrow *t, Src s) {
   static const char kinds[] = "-awio";
   TextGrow_add(t, " %c%lld", kinds[s.kind], (long long)s.v);
}

/* The plan's text after its first two lines; its id is the FNV-1a hash of this. */
static char *planBody(const Plan *p, const ImportedModel *m, const TunedProgram *prog, uint64_t checksum) {
   TextGrow b = { NULL, 0, 0 };
   const Graph *g = &m->g;
   TextGrow_add(&b, "arena %lld\n", (long long)p->arenaBytes);
   TextGrow_add(&b, "weights %lld %016llx\n", (long long)p->weightBytes, (unsigned long long)checksum);
   TextGrow_add(&b, "counts %d %d %d %d\n", g->ninputs, g->noutputs, prog->ntasks, p->nsteps);
   for (int i = 0; i < g->ninputs; i++)
      TextGrow_add(&b, "input %d %lld %s\n", i, (long long)GTensor_elems(&g->t[g->inputs[i]]), g->t[g->inputs[i]].name);
   for (int i = 0; i < g->noutputs; i++)
      TextGrow_add(&b, "output %d %lld %s\n", i, (long long)GTensor_elems(&g->t[g->outputs[i]]),
              g->t[g->outputs[i]].name);
   for (int t = 0; t < prog->ntasks; t++)
      TextGrow_add(&b, "module %d task_%d.cubin\n", t, t);
   for (int i = 0; i < p->nsteps; i++) {
      const Step *s = &p->steps[i];
      if (s->copy) {
         TextGrow_add(&b, "copy");
         srcText(&b, s->dst);
         srcText(&b, s->src);
         TextGrow_add(&b, " %lld\n", (long long)s->bytes);
         continue;
      }
      const LoopNest *ln = &prog->tasks[s->task].ln;
      const IrKernel *kn = &ln->kernels[s->kernel];
      TextGrow_add(&b, "launch %d %s %lld %lld %lld %d", s->task, kn->name, (long long)kn->grid,
              (long long)kn->block, (long long)kn->sharedBytes, kn->nparams);
      for (int q = 0; q < kn->nparams; q++)
         srcText(&b, s->buf[kn->params[q]]);
      TextGrow_add(&b, "\n");
   }
   return b.s;
}

/* A C identifier from the model's file name: letters, digits and '_'. */
static char *libraryName(const char *model) {
   const char *base = strrchr(model, '/');
   base = base ? base + 1 : model;
   char *n = xStrdup(base);
   char *dot = strrchr(n, '.');
   if (dot && dot != n)
      *dot = 0;
   for (char *c = n; *c; c++)
      if (!isalnum((unsigned char)*c) && *c != '_')
         *c = '_';
   if (!*n || isdigit((unsigned char)n[0])) {
      char *m = xAsprintf("net_%s", n);
      free(n);
      n = m;
   }
   return n;
}

/* ---- the export ---- */

static int relError(const float *got, const float *want, int64_t n, double *rel) {
   double err = 0, norm = 0;
   for (int64_t i = 0; i < n; i++) {
      double d = (double)got[i] - (double)want[i];
      err += d * d;
      norm += (double)want[i] * (double)want[i];
   }
   *rel = norm > 0 ? sqrt(err / norm) : sqrt(err);
   return isfinite(*rel) ? 0 : -1;
}

typedef struct {
   void *cubin;
   size_t cubinSize;
   char *source;
} Module;

int Library_export(const LibraryRequest *r, const DeviceSet *devices, FILE *log, char **cause) {
   SessionLog slog;
   SessionLog_init(&slog);
   char *notice = NULL;
   if (Session_read(r->session, &slog, &notice, cause) < 0) {
      free(notice);
      SessionLog_done(&slog);
      return -1;
   }
   free(notice);
   const SessionHeader *h = &slog.events[0].header;
   const char *model = r->model ? r->model : h->networkFile;
   int rc = 0;
   char *arch = NULL;
   if (!model || !Import_isOnnx(model))
      rc = setCause(cause, "%s: the session tuned %s, a task file: the library needs the ONNX model (its graph and "
                    "weights); give it with --model", r->session, model ? model : "no file");
   if (rc == 0 && r->arch) {
      if (!Nvrtc_isArch(r->arch))
         rc = setCause(cause, "--arch '%s': expected a real architecture like sm_90", r->arch);
      arch = xStrdup(r->arch);
   } else if (rc == 0) {
      const Device *dev = DeviceSet_find(devices, h->device);
      if (!dev)
         rc = setCause(cause, "%s: its device '%s' is not in devices.yaml: give --arch", r->session, h->device);
      else
         arch = xAsprintf("sm_%d%d", dev->cc_major, dev->cc_minor);
   }
   OnnxInputDims *dims = NULL;
   int ndims = 0;
   bool simple = false;
   if (rc == 0)
      rc = ImportOptions_parseInputs(h->networkInputs, &dims, &ndims, &simple, cause);
   ImportedModel m;
   memset(&m, 0, sizeof m);
   bool imported = false;
   if (rc == 0) {
      ImportOptions opt = { dims, ndims, simple };
      rc = Import_model(&m, model, &opt, cause);
      imported = rc == 0;
   }
   TunedProgram prog;
   memset(&prog, 0, sizeof prog);
   if (rc == 0)
      rc = TunedProgram_fromSession(&prog, &m.net, r->session, devices, cause);
   Plan plan;
   memset(&plan, 0, sizeof plan);
   if (rc == 0)
      rc = buildPlan(&plan, &m, &prog, cause);
   /* the kernels, one module per task */
   Module *mods = xCalloc((size_t)(prog.ntasks ? prog.ntasks : 1), sizeof *mods);
   double compileSeconds = 0;
   if (rc == 0)
      rc = Nvrtc_open(cause) == 0 ? Nvrtc_supportsArch(arch, cause) : -1;
   for (int t = 0; rc == 0 && t < prog.ntasks; t++) {
      char *head = xAsprintf("%s, task %d: %s\n%s", model, t, m.net.tasks[t].key,
                             prog.tasks[t].event >= 0 ? "the session's best state" : "the default schedule (untuned)");
      mods[t].source = Cuda_generate(&prog.tasks[t].ln, head);
      free(head);
      char name[32];
      snprintf(name, sizeof name, "task_%d.cu", t);
      NvrtcResult res;
      if (Nvrtc_compile(mods[t].source, name, arch, &res, cause) == 0) {
         mods[t].cubin = res.cubin;
         mods[t].cubinSize = res.cubinSize;
         res.cubin = NULL;
         compileSeconds += res.seconds;
      } else {
         rc = -1;
      }
      NvrtcResult_done(&res);
   }
   /* the plan run on the CPU against the graph's reference */
   const Graph *g = &m.g;
   float **ins = NULL, **outs = NULL;
   double worst = 0;
   if (rc == 0) {
      char *why = NULL;
      if (TunedProgram_compile(&prog, &why) < 0)
         fprintf(log, "library: the CPU check runs on the interpreter: %s\n", why);
      free(why);
      ins = xCalloc((size_t)g->ninputs + 1, sizeof *ins);
      outs = xCalloc((size_t)g->noutputs + 1, sizeof *outs);
      Rng rng;
      Rng_seed(&rng, 1);
      for (int i = 0; i < g->ninputs; i++) {
         GTensor *x = &m.g.t[g->inputs[i]];
         if (x->dtype != GT_FLOAT) {
            rc = setCause(cause, "input '%s' is %s; the library takes float32", x->name, GType_name(x->dtype));
            break;
         }
         int64_t n = GTensor_elems(x);
         ins[i] = xMalloc(sizeof(float) * (size_t)(n ? n : 1));
         float *d = GTensor_alloc(x);
         for (int64_t k = 0; k < n; k++)
            d[k] = ins[i][k] = (float)(2.0 * Rng_uniform(&rng) - 1.0);
      }
      for (int o = 0; o < g->noutputs && rc == 0; o++)
         outs[o] = xCalloc((size_t)GTensor_elems(&g->t[g->outputs[o]]) + 1, sizeof(float));
      if (rc == 0)
         rc = runOnCpu(&plan, &prog, ins, outs, cause);
      if (rc == 0)
         rc = NetRun_execute(&m, NetRun_reference, NULL, cause);
      for (int o = 0; o < g->noutputs && rc == 0; o++) {
         const GTensor *y = &g->t[g->outputs[o]];
         double rel;
         if (relError(outs[o], y->data, GTensor_elems(y), &rel) < 0 || rel > 1e-4)
            rc = setCause(cause, "the plan run on the CPU gives output '%s' a relative RMS error of %.3g against "
                          "the graph's reference (at most 1e-4)", y->name, rel);
         if (rel > worst)
            worst = rel;
      }
   }
   /* every file made; now write them */
   char *name = rc == 0 ? (r->name ? xStrdup(r->name) : libraryName(model)) : NULL;
   if (rc == 0 && mkdir(r->dir, 0777) < 0 && errno != EEXIST)
      rc = setCause(cause, "%s: %s", r->dir, strerror(errno));
   int launches = 0, copies = 0;
   if (rc == 0) {
      uint64_t checksum = fnv(FNV_START, plan.weights, (size_t)plan.weightBytes);
      char *body = planBody(&plan, &m, &prog, checksum);
      uint64_t id = fnv(FNV_START, body, strlen(body));
      char *text = xAsprintf("pruner-tui-plan 1\nid %016llx\n%s", (unsigned long long)id, body);
      char *file = xAsprintf("%s.plan", name);
      rc = writeFile(r->dir, file, text, strlen(text), cause);
      free(file);
      free(text);
      free(body);
      /* the weights: magic, the plan's id, the size and the checksum (little-endian), the bytes */
      size_t total = 32 + (size_t)plan.weightBytes;
      unsigned char *w = xMalloc(total);
      memcpy(w, "PTUIWTS1", 8);
      uint64_t head[3] = { id, (uint64_t)plan.weightBytes, checksum };
      for (int k = 0; k < 3; k++)
         for (int i = 0; i < 8; i++)
            w[8 + 8 * k + i] = (unsigned char)(head[k] >> (8 * i));
      if (plan.weightBytes)
         memcpy(w + 32, plan.weights, (size_t)plan.weightBytes);
      file = xAsprintf("%s.weights", name);
      if (rc == 0)
         rc = writeFile(r->dir, file, w, total, cause);
      free(file);
      free(w);
   }
   for (int t = 0; rc == 0 && t < prog.ntasks; t++) {
      char file[40];
      snprintf(file, sizeof file, "task_%d.cubin", t);
      rc = writeFile(r->dir, file, mods[t].cubin, mods[t].cubinSize, cause);
      snprintf(file, sizeof file, "task_%d.cu", t);
      if (rc == 0)
         rc = writeFile(r->dir, file, mods[t].source, strlen(mods[t].source), cause);
   }
   static const char *const files[4] = { "PTNET.h", "PTNET.c", "example.c", "Makefile" };
   const char *texts[4] = { Library_header, Library_runtime, Library_example, Library_makefile };
   for (int i = 0; rc == 0 && i < 4; i++) {
      char *file = substitute(files[i], name), *text = substitute(texts[i], name);
      rc = writeFile(r->dir, file, text, strlen(text), cause);
      free(file);
      free(text);
   }
   /* a test vector: the CPU reference's outputs for seeded inputs */
   for (int i = 0; rc == 0 && i < g->ninputs; i++) {
      char file[32];
      snprintf(file, sizeof file, "input_%d.bin", i);
      rc = writeFile(r->dir, file, ins[i], sizeof(float) * (size_t)GTensor_elems(&g->t[g->inputs[i]]), cause);
   }
   for (int o = 0; rc == 0 && o < g->noutputs; o++) {
      char file[32];
      snprintf(file, sizeof file, "expected_%d.bin", o);
      rc = writeFile(r->dir, file, g->t[g->outputs[o]].data,
                     sizeof(float) * (size_t)GTensor_elems(&g->t[g->outputs[o]]), cause);
   }
   for (int i = 0; i < plan.nsteps; i++)
      plan.steps[i].copy ? copies++ : launches++;
   if (rc == 0)
      fprintf(log,
              "library %s in %s: %d tasks (%d tuned) compiled for %s in %.1f s; %d steps (%d launches, %d copies); "
              "arena %.1f MiB, weights %.1f MiB\n"
              "checked: the plan run on the CPU equals the graph's reference (relative RMS %.2g); build it with "
              "make -C %s\n",
              name, r->dir, prog.ntasks, prog.tuned, arch, compileSeconds, plan.nsteps, launches, copies,
              (double)plan.arenaBytes / (1 << 20), (double)plan.weightBytes / (1 << 20), worst, r->dir);
   for (int i = 0; ins && i < g->ninputs; i++)
      free(ins[i]);
   for (int o = 0; outs && o < g->noutputs; o++)
      free(outs[o]);
   free(ins);
   free(outs);
   for (int t = 0; t < prog.ntasks; t++) {
      free(mods[t].cubin);
      free(mods[t].source);
   }
   free(mods);
   free(name);
   planDone(&plan);
   TunedProgram_done(&prog);
   if (imported)
      ImportedModel_done(&m);
   for (int i = 0; i < ndims; i++)
      OnnxInputDims_done(&dims[i]);
   free(dims);
   free(arch);
   SessionLog_done(&slog);
   return rc;
}
