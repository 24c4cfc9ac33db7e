/* `pruner-tui explain`: what the analyses see in one state of a task: the loop nest,
 * PSA's symbols, penalties and latency estimate for a device, and the features the
 * learned models read. */
#include "config.h"

#include "cli.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cost/analysis.h"
#include "ir/lower.h"

/* Pruner's default PSA profile (tune_network.py --psa a100_40). */
#define EXPLAIN_DEFAULT_DEVICE "a100_40"

static void printPsa(const LoopNest *ln, const PsaSymbols *psa, const PsaParams *p, const Device *d) {
   PsaRowCost costs[IR_MAX_BUFFERS];
   double latency = Psa_latency(psa, p, costs);
   printf("\nPSA on %s: peak %.0f GFLOP/s, %.0f GB/s, %.0f SMs x %.0f sub-partitions, warp %.0f, "
          "%.0f active block(s) per SM, reg_cap %.0f\n",
          d->name, p->peakGflops, p->bandwidthGBs, p->sms, p->partitions, p->warpSize, p->activeBlocksPerSm,
          p->regCap);
   printf("%-22s %-6s %14s %14s %9s %10s %10s %14s %9s %7s %6s %3s\n", "stored buffer", "scope",
          "flops/thread", "flops", "RegUsage", "MemWork", "SharedFP", "DRAM bytes", "DataReuse", "grid",
          "block", "vt");
   for (int i = 0; i < psa->nrows; i++) {
      const PsaRow *r = &psa->rows[i];
      const IrBuffer *b = &ln->buffers[r->buffer];
      printf("%-22s %-6s %14.0f %14.0f %9.0f %10.0f %10.0f %14.0f %9.4f %7.0f %6.0f %3.0f\n", b->name,
             Ir_scopeName(b->scope), r->sym[PSA_FLOAT_WORKLOAD_THREAD], r->sym[PSA_COMPUTE_WORKLOAD],
             r->sym[PSA_REG_USAGE], r->sym[PSA_MEM_WORKLOAD], r->sym[PSA_SHARED_FOOTPRINT],
             r->sym[PSA_DRAM_WORKLOAD], r->sym[PSA_DATA_REUSE], r->sym[PSA_GRID], r->sym[PSA_BLOCK],
             r->sym[PSA_VTHREAD]);
   }
   printf("\n%-22s %8s %8s %8s %8s %12s %12s %12s\n", "stored buffer", "warp", "thread", "reg", "peak",
          "t_comp ms", "t_mem ms", "row ms");
   for (int i = 0; i < psa->nrows; i++) {
      const PsaRowCost *c = &costs[i];
      printf("%-22s %8.4f %8.4f %8.4f %8.4f %12.6f %12.6f %12.6f\n", ln->buffers[psa->rows[i].buffer].name,
             c->warpPenalty, c->threadPenalty, c->regPenalty, c->peakPenalty, c->tComp, c->tMem,
             fmax(c->tComp, c->tMem));
   }
   if (psa->nrows == 0)
      printf("(no stored buffer: score -inf)\n");
   else
      printf("PSA latency estimate: %.6f ms (score %.4f)\n", latency, 1 / latency);
}

/* name=value for every non-zero entry in [from, to), wrapped. */
static void printEntries(const float *v, int from, int to, const char *indent) {
   int col = (int)strlen(indent);
   printf("%s", indent);
   bool any = false;
   for (int i = from; i < to; i++) {
      if (v[i] == 0)
         continue;
      char name[64], item[96];
      Features_name(i, name, sizeof name);
      int n = snprintf(item, sizeof item, "%s=%.4g", name, v[i]);
      if (any && col + n + 2 > 100) {
         printf("\n%s", indent);
         col = (int)strlen(indent);
      } else if (any) {
         printf("  ");
         col += 2;
      }
      printf("%s", item);
      col += n;
      any = true;
   }
   printf("%s\n", any ? "" : "(all zero)");
}

static void printFeatures(const LoopNest *ln, const Features *f, const float *workload) {
   printf("\nFeatures: %d row(s) of %d (Ansor's per-store features, slog'd; non-zero entries)\n", f->nrows,
          FEATURE_LEN);
   for (int r = 0; r < f->nrows; r++) {
      const IrBuffer *b = &ln->buffers[f->buffer[r]];
      printf("row %d: %s (%s)\n", r, b->name, Ir_scopeName(b->scope));
      printf("  computation:\n");
      printEntries(f->row[r], FEAT_GROUP1, FEAT_GROUP2, "    ");
      printf("  buffer accesses:\n");
      for (int k = 0; k < FEATURE_MAX_BUFS; k++) {
         int at = FEAT_GROUP2 + k * FEATURE_BUF_LEN;
         bool used = false;
         for (int i = 0; i < FEATURE_BUF_LEN; i++)
            used |= f->row[r][at + i] != 0;
         if (used)
            printEntries(f->row[r], at, at + FEATURE_BUF_LEN, "    ");
      }
      printf("  arithmetic intensity, allocation, outer scope:\n");
      printEntries(f->row[r], FEAT_GROUP3, FEATURE_LEN, "    ");
   }
   printf("\nPattern block (PAM, %d x %d): ", PATTERN_LEN, PATTERN_WIDTH);
   if (f->patternAt < 0) {
      printf("the access sequence (%d accesses) has no %s: all zero\n", f->sequenceLength, PATTERN_NEEDLE);
   } else {
      printf("%s found at access %d of %d\n", PATTERN_NEEDLE, f->patternAt, f->sequenceLength);
      for (int i = 0; i < PATTERN_LEN; i++) {
         printf("  %d:", i);
         for (int j = 0; j < PATTERN_WIDTH; j++)
            printf(" %.3g", f->pattern[i][j]);
         printf("\n");
      }
   }
   printf("Workload embedding:");
   for (int i = 0; i < WORKLOAD_LEN; i++)
      printf(" %.0f", workload[i]);
   printf("  (max min add conv winograd depthwise dense softmax batch_matmul pad)\n");
}

int Cli_explain(int argc, char **argv) {
   enum { OPT_DEVICES = 256 };
   static const struct option options[] = {
      { "seed", required_argument, NULL, 's' },
      { "state", required_argument, NULL, 'S' },
      { "device", required_argument, NULL, 'd' },
      { "devices", required_argument, NULL, OPT_DEVICES },
      { NULL, 0, NULL, 0 },
   };
   long seed = 1;
   bool seedGiven = false;
   const char *stateArg = NULL, *deviceName = EXPLAIN_DEFAULT_DEVICE, *devicesFile = NULL;
   optind = 1;
   opterr = 0;
   int c;
   while ((c = getopt_long(argc, argv, ":", options, NULL)) != -1) {
      switch (c) {
      case 's':
         if (Cli_parseCount("explain", "--seed", optarg, 0, 2147483647L, &seed))
            return EXIT_USAGE;
         seedGiven = true;
         break;
      case 'S': stateArg = optarg; break;
      case 'd': deviceName = optarg; break;
      case OPT_DEVICES: devicesFile = optarg; break;
      case ':': return Cli_usage("explain", "option '%s' needs an argument", argv[optind - 1]);
      default: return Cli_usage("explain", "unknown option '%s'", argv[optind - 1]);
      }
   }
   if (argc - optind != 2)
      return Cli_usage("explain", "expected FILE.task TASK");
   DeviceSet devices;
   DeviceSet_init(&devices);
   int rc = Cli_loadDevices(&devices, devicesFile);
   if (rc) {
      DeviceSet_done(&devices);
      return rc;
   }
   const Device *dev = DeviceSet_find(&devices, deviceName);
   if (!dev) {
      DeviceSet_done(&devices);
      return Cli_usage("explain", "no device named '%s' (see pruner-tui --list-devices)", deviceName);
   }
   PsaParams params;
   char *cause = NULL;
   if (PsaParams_fromDevice(&params, dev, &cause) < 0) {
      fprintf(stderr, "pruner-tui: %s\n", cause);
      free(cause);
      DeviceSet_done(&devices);
      return EXIT_INPUT;
   }
   Subject sub;
   rc = Cli_loadSubject("explain", argv[optind], argv[optind + 1], seed, seedGiven, stateArg, &sub);
   if (rc) {
      DeviceSet_done(&devices);
      return rc;
   }
   char text[4096];
   Subject_describe(&sub, text, sizeof text);
   printf("\n");

   LoopNest ln;
   LoopNest_init(&ln);
   Lower_state(&sub.set, &sub.state, &ln);
   LoopNest_print(&ln, stdout);

   Analysis *a = Analysis_new();
   PsaSymbols *psa = xMalloc(sizeof *psa);
   Features *features = xMalloc(sizeof *features);
   Analysis_run(a, &ln, psa, features);
   printPsa(&ln, psa, &params, dev);
   float workload[WORKLOAD_LEN];
   Features_workload(&sub.net.tasks[sub.task].op, workload);
   printFeatures(&ln, features, workload);

   free(features);
   free(psa);
   Analysis_free(a);
   LoopNest_done(&ln);
   Subject_done(&sub);
   DeviceSet_done(&devices);
   return 0;
}
