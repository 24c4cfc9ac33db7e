/* The text of one state of a task, for the workbench and the explain and kernel
 * subcommands alike, so that what they show cannot drift apart: the printers write to
 * a FILE * and each text is one captured through open_memstream. */
#include "config.h"

#include "details.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cuda.h"
#include "cost/analysis.h"
#include "ir/lower.h"
#include "util/rng.h"
#include "util/xalloc.h"

/* How many samples DetailsSubject_sample draws before it gives up. */
#define DETAILS_SAMPLE_TRIES 100000

/* ---- the subject ---- */

static int openTask(DetailsSubject *s, const Network *net, int task, char **cause) {
   memset(s, 0, sizeof *s);
   if (task < 0 || task >= net->ntasks)
      return setCause(cause, "task %d is not one of the %d tasks of %s", task, net->ntasks, net->name);
   s->net = net;
   s->task = task;
   SketchSet_forOpWith(&s->set, &net->tasks[task].op, &Sketch_readAny);
   return 0;
}

/* Ends an open subject: lowers the state it got, or drops it all when it got none. */
static int closeTask(DetailsSubject *s, int rc) {
   if (rc < 0) {
      SketchSet_done(&s->set);
      memset(s, 0, sizeof *s);
      return -1;
   }
   LoopNest_init(&s->ln);
   Lower_state(&s->set, &s->state, &s->ln);
   return 0;
}

int DetailsSubject_parse(DetailsSubject *s, const Network *net, int task, const char *stateText,
                         const SchedLimits *lim, char **cause) {
   if (openTask(s, net, task, cause) < 0)
      return -1;
   return closeTask(s, State_parse(&s->set, stateText, lim, &s->state, cause));
}

int DetailsSubject_init(DetailsSubject *s, const Network *net, int task, const char *stateText,
                        const SchedLimits *lim, char **cause) {
   if (openTask(s, net, task, cause) < 0)
      return -1;
   char *why = NULL;
   int rc = State_parse(&s->set, stateText, lim, &s->state, &why);
   if (rc < 0) {
      setCause(cause, "task %d: %s", task, why);
      free(why);
   }
   return closeTask(s, rc);
}

int DetailsSubject_sample(DetailsSubject *s, const Network *net, int task, uint64_t seed,
                          const SchedLimits *lim, char **cause) {
   if (openTask(s, net, task, cause) < 0)
      return -1;
   Rng rng;
   Rng_seed(&rng, seed);
   char *why = NULL;
   int rc = State_sampleValid(&s->set, -1, &rng, lim, DETAILS_SAMPLE_TRIES, &s->state, &why);
   if (rc < 0) {
      setCause(cause, "task %d has no valid state: %s", task, why);
      free(why);
   }
   return closeTask(s, rc);
}

void DetailsSubject_done(DetailsSubject *s) {
   LoopNest_done(&s->ln);
   SketchSet_done(&s->set);
   memset(s, 0, sizeof *s);
}

/* ---- capturing what printers write ---- */

typedef struct {
   FILE *f;
   char *text;
   size_t len;
} Capture;

static FILE *beginCapture(Capture *c) {
   c->text = NULL;
   c->len = 0;
   c->f = open_memstream(&c->text, &c->len);
   if (!c->f)
      fatal("open_memstream: out of memory");
   return c->f;
}

static char *endCapture(Capture *c) {
   if (fclose(c->f) != 0)
      fatal("open_memstream: out of memory");
   return c->text;
}

/* State_format's text, whatever its length (caller frees). */
static char *stateText(const DetailsSubject *s) {
   size_t size = State_format(&s->set, &s->state, NULL, 0) + 1;
   char *text = xMalloc(size);
   State_format(&s->set, &s->state, text, size);
   return text;
}

/* ---- the task, the loops, the CUDA source ---- */

char *Details_task(const DetailsSubject *s) {
   const Task *t = &s->net->tasks[s->task];
   char shape[160], epi[160];
   Op_describe(&t->op, shape, sizeof shape);
   Op_epilogueText(&t->op, epi, sizeof epi);
   char *state = stateText(s);
   char *text = xAsprintf("task %d of %s: %s %s, epilogue %s\n"
                          "sketch %d of %d: %s\n"
                          "state: %s\n",
                          s->task, s->net->name, Op_name(t->op.kind), shape, epi, (int)s->state.sketch,
                          s->set.count, s->set.sketches[s->state.sketch].summary, state);
   free(state);
   return text;
}

char *Details_loops(const DetailsSubject *s) {
   Capture c;
   LoopNest_print(&s->ln, beginCapture(&c));
   return endCapture(&c);
}

char *Details_launch(const DetailsSubject *s) {
   Capture c;
   FILE *out = beginCapture(&c);
   for (int k = 0; k < s->ln.nkernels; k++) {
      const IrKernel *kn = &s->ln.kernels[k];
      fprintf(out, "launch %s: grid %lld blocks, %lld threads per block, %lld bytes of static shared memory\n",
              kn->name, (long long)kn->grid, (long long)kn->block, (long long)kn->sharedBytes);
   }
   return endCapture(&c);
}

char *Details_source(const DetailsSubject *s) {
   char *state = stateText(s);
   char *header = xAsprintf("pruner-tui %s: task %d of %s, %s\nstate %s", PACKAGE_VERSION, s->task,
                            s->net->name, s->net->tasks[s->task].key, state);
   char *src = Cuda_generate(&s->ln, header);
   free(header);
   free(state);
   return src;
}

char *Details_cuda(const DetailsSubject *s) {
   char *launch = Details_launch(s);
   char *src = Details_source(s);
   char *text = xAsprintf("%s\n%s", launch, src);
   free(src);
   free(launch);
   return text;
}

/* ---- PSA ---- */

static void printPsa(FILE *out, const LoopNest *ln, const PsaSymbols *psa, const PsaParams *p, const Device *d) {
   PsaRowCost costs[IR_MAX_BUFFERS];
   double latency = Psa_latency(psa, p, costs);
   fprintf(out, "PSA on %s: peak %.0f GFLOP/s, %.0f GB/s, %.0f SMs x %.0f sub-partitions, warp %.0f, "
           "%.0f active block(s) per SM, reg_cap %.0f\n",
           d->name, p->peakGflops, p->bandwidthGBs, p->sms, p->partitions, p->warpSize, p->activeBlocksPerSm,
           p->regCap);
   fprintf(out, "%-22s %-6s %14s %14s %9s %10s %10s %14s %9s %7s %6s %3s\n", "stored buffer", "scope",
           "flops/thread", "flops", "RegUsage", "MemWork", "SharedFP", "DRAM bytes", "DataReuse", "grid",
           "block", "vt");
   for (int i = 0; i < psa->nrows; i++) {
      const PsaRow *r = &psa->rows[i];
      const IrBuffer *b = &ln->buffers[r->buffer];
      fprintf(out, "%-22s %-6s %14.0f %14.0f %9.0f %10.0f %10.0f %14.0f %9.4f %7.0f %6.0f %3.0f\n", b->name,
              Ir_scopeName(b->scope), r->sym[PSA_FLOAT_WORKLOAD_THREAD], r->sym[PSA_COMPUTE_WORKLOAD],
              r->sym[PSA_REG_USAGE], r->sym[PSA_MEM_WORKLOAD], r->sym[PSA_SHARED_FOOTPRINT],
              r->sym[PSA_DRAM_WORKLOAD], r->sym[PSA_DATA_REUSE], r->sym[PSA_GRID], r->sym[PSA_BLOCK],
              r->sym[PSA_VTHREAD]);
   }
   fprintf(out, "\n%-22s %8s %8s %8s %8s %12s %12s %12s\n", "stored buffer", "warp", "thread", "reg", "peak",
           "t_comp ms", "t_mem ms", "row ms");
   for (int i = 0; i < psa->nrows; i++) {
      const PsaRowCost *c = &costs[i];
      fprintf(out, "%-22s %8.4f %8.4f %8.4f %8.4f %12.6f %12.6f %12.6f\n", ln->buffers[psa->rows[i].buffer].name,
              c->warpPenalty, c->threadPenalty, c->regPenalty, c->peakPenalty, c->tComp, c->tMem,
              fmax(c->tComp, c->tMem));
   }
   if (psa->nrows == 0)
      fprintf(out, "(no stored buffer: score -inf)\n");
   else
      fprintf(out, "PSA latency estimate: %.6f ms (score %.4f)\n", latency, 1 / latency);
}

char *Details_psa(const DetailsSubject *s, const Device *dev, char **cause) {
   PsaParams params;
   if (PsaParams_fromDevice(&params, dev, cause) < 0)
      return NULL;
   Analysis *a = Analysis_new();
   PsaSymbols *psa = xMalloc(sizeof *psa);
   Analysis_run(a, &s->ln, psa, NULL);
   Capture c;
   printPsa(beginCapture(&c), &s->ln, psa, &params, dev);
   free(psa);
   Analysis_free(a);
   return endCapture(&c);
}

/* ---- the simulator beside PSA ---- */

/* Whether statement st stores into buffer. */
static bool storesInto(const LoopNest *ln, int32_t st, int buffer) {
   const IrStmt *s = &ln->stmt[st];
   switch (s->kind) {
   case STMT_STORE:
   case STMT_ALLREDUCE:
      return s->buffer == buffer;
   case STMT_SEQ:
      for (int32_t i = 0; i < s->count; i++)
         if (storesInto(ln, ln->list[s->first + i], buffer))
            return true;
      return false;
   case STMT_FOR:
   case STMT_IF:
      return storesInto(ln, s->body, buffer);
   default:
      return false;
   }
}

/* The kernel that stores a PSA row's buffer; -1 when none does. */
static int kernelOfBuffer(const LoopNest *ln, int buffer) {
   if (ln->buffers[buffer].kernel >= 0)
      return ln->buffers[buffer].kernel;
   for (int k = 0; k < ln->nkernels; k++)
      if (storesInto(ln, ln->kernels[k].body, buffer))
         return k;
   return -1;
}

/* PSA's estimate, flops and DRAM bytes summed over the rows each kernel stores. */
typedef struct {
   bool valid;                  /* PSA can use the device */
   double ms[IR_MAX_KERNELS], flops[IR_MAX_KERNELS], dram[IR_MAX_KERNELS];
   double totalMs;
} PsaByKernel;

static void psaByKernel(const LoopNest *ln, const Device *dev, PsaByKernel *out) {
   memset(out, 0, sizeof *out);
   PsaParams params;
   char *cause = NULL;
   if (PsaParams_fromDevice(&params, dev, &cause) < 0) {
      free(cause);
      return;
   }
   Analysis *a = Analysis_new();
   PsaSymbols *psa = xMalloc(sizeof *psa);
   Analysis_run(a, ln, psa, NULL);
   PsaRowCost costs[IR_MAX_BUFFERS];
   out->valid = psa->nrows > 0;
   out->totalMs = Psa_latency(psa, &params, costs);
   for (int i = 0; i < psa->nrows; i++) {
      int k = kernelOfBuffer(ln, psa->rows[i].buffer);
      if (k < 0)
         continue;
      out->ms[k] += fmax(costs[i].tComp, costs[i].tMem);
      out->flops[k] += psa->rows[i].sym[PSA_COMPUTE_WORKLOAD];
      out->dram[k] += psa->rows[i].sym[PSA_DRAM_WORKLOAD];
   }
   free(psa);
   Analysis_free(a);
}

/* v in width columns with prec decimals, or N/A when PSA has no value */
static void printPsaValue(FILE *out, bool valid, int width, int prec, double v) {
   if (valid)
      fprintf(out, "%*.*f", width, prec, v);
   else
      fprintf(out, "%*s", width, "N/A");
}

static void printSim(FILE *out, const LoopNest *ln, const Device *dev, const SimReport *r, const PsaByKernel *psa,
                     const char *registers, const char *note) {
   fprintf(out, "Simulator on %s (%s), beside PSA; registers %s\n", dev->name, dev->product, registers);
   if (note)
      fprintf(out, "note: %s\n", note);
   fprintf(out, "%-22s %11s %11s %11s %11s %11s %11s  %-13s %11s %8s\n", "kernel", "compute ms", "shared ms",
           "memory ms", "latency ms", "launch ms", "kernel ms", "bound", "PSA ms", "sim/PSA");
   double sum = 0;
   for (int k = 0; k < r->nkernels; k++) {
      const SimKernel *sk = &r->kernels[k];
      sum += sk->seconds;
      fprintf(out, "%-22s %11.6f %11.6f %11.6f %11.6f %11.6f %11.6f  %-13s ", ln->kernels[k].name,
              sk->computeSeconds * 1e3, sk->sharedSeconds * 1e3, sk->memorySeconds * 1e3, sk->latencySeconds * 1e3,
              sk->launchSeconds * 1e3, sk->seconds * 1e3, sk->bound);
      bool valid = psa->valid && psa->ms[k] > 0;
      printPsaValue(out, valid, 11, 6, psa->ms[k]);
      fprintf(out, " ");
      printPsaValue(out, valid, 8, 2, valid ? sk->seconds * 1e3 / psa->ms[k] : 0);
      fprintf(out, "\n");
   }
   fprintf(out, "\n%-22s %9s %6s %9s %-13s %9s %8s %8s %5s %s\n", "kernel", "grid", "block", "blocks/SM",
           "limiter", "occupancy", "rounds", "waves", "regs", "from");
   for (int k = 0; k < r->nkernels; k++) {
      const SimKernel *sk = &r->kernels[k];
      fprintf(out, "%-22s %9lld %6lld %9d %-13s %9.4f %8.4g %8.4g %5d %s\n", ln->kernels[k].name,
              (long long)ln->kernels[k].grid, (long long)ln->kernels[k].block, sk->blocksPerSm, sk->limiter,
              sk->occupancy, sk->rounds, sk->waves, sk->registers, sk->registersFromPtxas ? "ptxas" : "nest");
   }
   fprintf(out, "\n%-22s %14s %14s %14s %14s %14s\n", "kernel", "flops", "PSA flops", "DRAM bytes",
           "PSA DRAM bytes", "L2 bytes");
   for (int k = 0; k < r->nkernels; k++) {
      const SimKernel *sk = &r->kernels[k];
      fprintf(out, "%-22s %14.0f ", ln->kernels[k].name, sk->flops);
      printPsaValue(out, psa->valid, 14, 0, psa->flops[k]);
      fprintf(out, " %14.0f ", sk->dramBytes);
      printPsaValue(out, psa->valid, 14, 0, psa->dram[k]);
      fprintf(out, " %14.0f\n", sk->l2Bytes);
   }
   fprintf(out, "Simulated latency: %.6f ms (the kernels' %.6f ms times the state's jitter %.4f); PSA ", r->seconds * 1e3,
           sum * 1e3, sum > 0 ? r->seconds / sum : 1);
   if (psa->valid)
      fprintf(out, "%.6f ms: simulator/PSA %.2f\n", psa->totalMs, r->seconds * 1e3 / psa->totalMs);
   else
      fprintf(out, "N/A\n");
}

char *Details_sim(const DetailsSubject *s, const Device *dev, const SimCompiled *const *compiled,
                  const char *registers) {
   Capture c;
   FILE *out = beginCapture(&c);
   char *cause = NULL, *note = NULL;
   SimGpu gpu;
   if (SimGpu_init(&gpu, dev, &cause) < 0) {
      fprintf(out, "Simulator on %s: N/A: %s\n", dev->name, cause);
      free(cause);
      return endCapture(&c);
   }
   if (gpu.filled) {
      char fields[512];
      Device_formatFields(gpu.filled, fields, sizeof fields);
      note = xAsprintf("%s has no %s: the simulator takes them from compute capability %d.%d", dev->name, fields,
                       dev->cc_major, dev->cc_minor);
   }
   SimReport report;
   memset(&report, 0, sizeof report);
   if (Sim_latency(dev, &s->ln, compiled, State_hash(&s->state), &report, &cause) < 0) {
      fprintf(out, "Simulator on %s: N/A: %s\n", dev->name, cause);
      free(cause);
   } else {
      PsaByKernel psa;
      psaByKernel(&s->ln, dev, &psa);
      printSim(out, &s->ln, dev, &report, &psa, registers, note);
   }
   free(note);
   return endCapture(&c);
}

/* ---- counters and the roofline ---- */

static void printRow(FILE *out, const char *label, bool known, const char *fmt, ...)
   __attribute__((format(printf, 4, 5)));

/* "  LABEL  VALUE", or N/A for what the GPU did not give */
static void printRow(FILE *out, const char *label, bool known, const char *fmt, ...) {
   fprintf(out, "  %-22s", label);
   if (!known) {
      fprintf(out, "N/A\n");
      return;
   }
   va_list ap;
   va_start(ap, fmt);
   vfprintf(out, fmt, ap);
   va_end(ap);
   fprintf(out, "\n");
}

static void printCounters(FILE *out, const Counters *c) {
   bool has[COUNTERS_ALL_FIELDS + 1];
   for (unsigned bit = 1; bit <= COUNTERS_ALL_FIELDS; bit <<= 1)
      has[bit] = (c->known & bit) != 0;
   fprintf(out, "counters: %s\n",
           c->simulated ? "simulated (the simulator's model of the program, not a GPU's)"
                        : "measured on the GPU (CUPTI's range profiler)");
   printRow(out, "DRAM throughput", true, "%.1f GB/s", c->dramGbs);
   printRow(out, "L1 hit rate", has[COUNTER_L1_HIT_RATE], "%.1f%%", 100 * c->l1HitRate);
   printRow(out, "L2 hit rate", true, "%.1f%%", 100 * c->l2HitRate);
   printRow(out, "occupancy", true, "%.1f%% of the SM's warps", 100 * c->occupancy);
   printRow(out, "FP32 rate", true, "%.1f GFLOP/s", c->gflops);
   printRow(out, "waves", true, "%.2f", c->waves);
   printRow(out, "bank conflicts", has[COUNTER_BANK_CONFLICTS], "%.1f%% more shared-memory wavefronts",
            100 * c->bankConflicts);
   printRow(out, "instructions", has[COUNTER_INSTRUCTIONS], "%.4g warp instructions", c->instructions);
   printRow(out, "IPC", has[COUNTER_IPC], "%.2f per SM and clock", c->ipc);
   printRow(out, "top stall", has[COUNTER_STALL], "%s, %.1f%% of the stalled cycles", c->stall, 100 * c->stallShare);
   printRow(out, "bound", true, "%s", c->bound);
}

static void printRoofline(FILE *out, const Counters *c, const Device *dev) {
   if (!dev) {
      fprintf(out, "roofline: N/A: the device has no profile in devices.yaml\n");
      return;
   }
   Roofline r;
   char *why = NULL;
   if (Counters_roofline(c, dev->peak_fp32_gflops, dev->mem_bandwidth_gbs, &r, &why) < 0) {
      fprintf(out, "roofline on %s: N/A: %s\n", dev->name, why);
      free(why);
      return;
   }
   fprintf(out, "roofline on %s: FP32 peak %.0f GFLOP/s, DRAM %.0f GB/s\n", dev->name, dev->peak_fp32_gflops,
           dev->mem_bandwidth_gbs);
   printRow(out, "ridge point", true, "%.2f FLOP/B", r.ridge);
   printRow(out, "arithmetic intensity", true, "%.2f FLOP/B", r.intensity);
   printRow(out, "attained", true, "%.1f GFLOP/s", r.attained);
   printRow(out, "roof there", true, "%.1f GFLOP/s (%s)", r.roof,
            r.memoryBound ? "intensity x DRAM bandwidth" : "the FP32 peak");
   printRow(out, "of the roof", true, "%.1f%%", r.percent);
   printRow(out, "position", true, "%s bound (intensity %s the ridge)", r.memoryBound ? "memory" : "compute",
            r.memoryBound ? "below" : "at or above");
}

char *Details_counters(const Counters *c, const Device *dev, const char *missing) {
   Capture cap;
   FILE *out = beginCapture(&cap);
   if (!c->present) {
      fprintf(out, "no counters yet: %s\n", missing);
      return endCapture(&cap);
   }
   printCounters(out, c);
   printRoofline(out, c, dev);
   return endCapture(&cap);
}

/* ---- features ---- */

/* name=value for every non-zero entry in [from, to), wrapped. */
static void printEntries(FILE *out, const float *v, int from, int to, const char *indent) {
   int col = (int)strlen(indent);
   fprintf(out, "%s", indent);
   bool any = false;
   for (int i = from; i < to; i++) {
      if (v[i] == 0)
         continue;
      char name[64], item[96];
      Features_name(i, name, sizeof name);
      int n = snprintf(item, sizeof item, "%s=%.4g", name, v[i]);
      if (any && col + n + 2 > 100) {
         fprintf(out, "\n%s", indent);
         col = (int)strlen(indent);
      } else if (any) {
         fprintf(out, "  ");
         col += 2;
      }
      fprintf(out, "%s", item);
      col += n;
      any = true;
   }
   fprintf(out, "%s\n", any ? "" : "(all zero)");
}

static void printFeatures(FILE *out, const LoopNest *ln, const Features *f, const float *workload) {
   fprintf(out, "Features: %d row(s) of %d (Ansor's per-store features, slog'd; non-zero entries)\n", f->nrows,
           FEATURE_LEN);
   for (int r = 0; r < f->nrows; r++) {
      const IrBuffer *b = &ln->buffers[f->buffer[r]];
      fprintf(out, "row %d: %s (%s)\n", r, b->name, Ir_scopeName(b->scope));
      fprintf(out, "  computation:\n");
      printEntries(out, f->row[r], FEAT_GROUP1, FEAT_GROUP2, "    ");
      fprintf(out, "  buffer accesses:\n");
      for (int k = 0; k < FEATURE_MAX_BUFS; k++) {
         int at = FEAT_GROUP2 + k * FEATURE_BUF_LEN;
         bool used = false;
         for (int i = 0; i < FEATURE_BUF_LEN; i++)
            used |= f->row[r][at + i] != 0;
         if (used)
            printEntries(out, f->row[r], at, at + FEATURE_BUF_LEN, "    ");
      }
      fprintf(out, "  arithmetic intensity, allocation, outer scope:\n");
      printEntries(out, f->row[r], FEAT_GROUP3, FEATURE_LEN, "    ");
   }
   fprintf(out, "\nPattern block (PAM, %d x %d): ", PATTERN_LEN, PATTERN_WIDTH);
   if (f->patternAt < 0) {
      fprintf(out, "the access sequence (%d accesses) has no %s: all zero\n", f->sequenceLength, PATTERN_NEEDLE);
   } else {
      fprintf(out, "%s found at access %d of %d\n", PATTERN_NEEDLE, f->patternAt, f->sequenceLength);
      for (int i = 0; i < PATTERN_LEN; i++) {
         fprintf(out, "  %d:", i);
         for (int j = 0; j < PATTERN_WIDTH; j++)
            fprintf(out, " %.3g", f->pattern[i][j]);
         fprintf(out, "\n");
      }
   }
   fprintf(out, "Workload embedding:");
   for (int i = 0; i < WORKLOAD_LEN; i++)
      fprintf(out, " %.0f", workload[i]);
   fprintf(out, "  (max min add conv winograd depthwise dense softmax batch_matmul pad)\n");
}

char *Details_features(const DetailsSubject *s) {
   Analysis *a = Analysis_new();
   Features *features = xMalloc(sizeof *features);
   Analysis_run(a, &s->ln, NULL, features);
   float workload[WORKLOAD_LEN];
   Features_workload(&s->net->tasks[s->task].op, workload);
   Capture c;
   printFeatures(beginCapture(&c), &s->ln, features, workload);
   free(features);
   Analysis_free(a);
   return endCapture(&c);
}
