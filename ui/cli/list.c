/* `--list` and `--list-devices`: the tables a user checks before tuning. */
#include "config.h"

#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/device.h"
#include "graph/import.h"
#include "te/network.h"
#include "util/paths.h"
#include "util/xalloc.h"

/* 237633536 -> "237.634M" */
static void formatCount(double v, char *buf, size_t size) {
   static const char *const suffix[] = { "", "K", "M", "G", "T" };
   int i = 0;
   while (v >= 1000.0 && i < 4) {
      v /= 1000.0;
      i++;
   }
   if (i == 0)
      snprintf(buf, size, "%.0f", v);
   else
      snprintf(buf, size, "%.3f%s", v, suffix[i]);
}

int Cli_list(const char *taskFile, FILE *out) {
   char *path = Paths_findTaskFile(taskFile);
   Network net;
   char *cause = NULL;
   ImportSummary sum;
   memset(&sum, 0, sizeof sum);
   bool onnx = Import_isOnnx(path);
   int rc;
   if (onnx)
      rc = Import_onnxInputs(&net, path, Cli_modelInputs(), &sum, &cause);
   else
      rc = Network_load(&net, path, &cause);
   if (rc < 0) {
      fprintf(stderr, "pruner-tui: %s\n", cause);
      free(cause);
      free(path);
      ImportSummary_done(&sum);
      return EXIT_INPUT;
   }
   free(path);
   if (onnx) {
      ImportSummary_print(&sum, &net, out);
      fputc('\n', out);
   }
   ImportSummary_done(&sum);
   int shapeWidth = 5, epiWidth = 8;
   for (int i = 0; i < net.ntasks; i++) {
      char buf[160];
      int w = (int)Op_describe(&net.tasks[i].op, buf, sizeof buf);
      shapeWidth = w > shapeWidth ? w : shapeWidth;
      w = (int)Op_epilogueText(&net.tasks[i].op, buf, sizeof buf);
      epiWidth = w > epiWidth ? w : epiWidth;
   }
   fprintf(out, "%s (%s): %d tasks, batch %lld\n\n", net.name, net.path, net.ntasks,
           (long long)net.batch);
   fprintf(out, "%3s  %-19s  %-*s  %-*s  %6s  %10s  %12s\n", "ID", "op", shapeWidth, "shape",
           epiWidth, "epilogue", "weight", "FLOPs", "weight*FLOPs");
   for (int i = 0; i < net.ntasks; i++) {
      const Task *t = &net.tasks[i];
      char shape[160], epi[160], flops[32], total[32];
      Op_describe(&t->op, shape, sizeof shape);
      Op_epilogueText(&t->op, epi, sizeof epi);
      formatCount(t->flops, flops, sizeof flops);
      formatCount(t->flops * (double)t->weight, total, sizeof total);
      fprintf(out, "%3d  %-19s  %-*s  %-*s  %6lld  %10s  %12s\n", t->id, Op_name(t->op.kind),
              shapeWidth, shape, epiWidth, epi, (long long)t->weight, flops, total);
   }
   char total[32];
   double flops = Network_totalFlops(&net);
   formatCount(flops, total, sizeof total);
   fprintf(out, "\nTotal: %d tasks, weight %lld, %sFLOP per inference (%.0f FLOP)\n", net.ntasks,
           (long long)Network_totalWeight(&net), total, flops);
   Network_done(&net);
   return 0;
}

int Cli_loadDevices(DeviceSet *set, const char *devicesFile) {
   DeviceSet_init(set);
   char *cause = NULL;
   char *shipped = Paths_dataFile("devices.yaml");
   int rc = 0;
   if (!shipped && !devicesFile) {
      fprintf(stderr, "pruner-tui: devices.yaml was not found in %s or %s; use --devices FILE\n",
              PKGDATADIR, TOP_SRCDIR);
      return EXIT_INPUT;
   }
   if (shipped)
      rc = DeviceSet_load(set, shipped, &cause);
   free(shipped);
   /* the user's own file, then the one named on the command line: later entries win */
   char *user = Paths_configFile("devices.yaml");
   if (rc == 0 && access(user, R_OK) == 0)
      rc = DeviceSet_load(set, user, &cause);
   free(user);
   if (rc == 0 && devicesFile)
      rc = DeviceSet_load(set, devicesFile, &cause);
   if (rc < 0) {
      fprintf(stderr, "pruner-tui: %s\n", cause);
      free(cause);
      DeviceSet_done(set);
      return EXIT_INPUT;
   }
   return 0;
}

int Cli_listDevices(const char *devicesFile, FILE *out) {
   DeviceSet set;
   DeviceSet_init(&set);
   int rc = Cli_loadDevices(&set, devicesFile);
   if (rc != 0) {
      DeviceSet_done(&set);
      return rc;
   }
   static const DeviceField cols[] = {
      DEV_COMPUTE_CAPABILITY, DEV_SM_COUNT, DEV_PEAK_FP32_GFLOPS, DEV_MEM_BANDWIDTH_GBS,
      DEV_SHARED_PER_BLOCK_OPTIN, DEV_L2_BYTES,
   };
   static const char *const heads[] = { "cc", "SMs", "FP32 peak", "DRAM bandwidth",
                                        "smem/block", "L2" };
   enum { NCOLS = sizeof cols / sizeof cols[0] };
   int width[NCOLS];
   for (int c = 0; c < NCOLS; c++) {
      width[c] = (int)strlen(heads[c]);
      for (int i = 0; i < set.count; i++) {
         char buf[64];
         int w = (int)Device_format(&set.devices[i], cols[c], buf, sizeof buf);
         width[c] = w > width[c] ? w : width[c];
      }
   }
   fprintf(out, "%-10s  %-28s", "name", "product");
   for (int c = 0; c < NCOLS; c++)
      fprintf(out, "  %*s", width[c], heads[c]);
   fputc('\n', out);
   for (int i = 0; i < set.count; i++) {
      const Device *d = &set.devices[i];
      fprintf(out, "%-10s  %-28s", d->name, d->product);
      for (int c = 0; c < NCOLS; c++) {
         char buf[64];
         Device_format(d, cols[c], buf, sizeof buf);
         fprintf(out, "  %*s", width[c], buf);
      }
      fputc('\n', out);
   }
   DeviceSet_done(&set);
   return 0;
}
