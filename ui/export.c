/* `pruner-tui export SESSION`: the session's measure events as records, its tuning
 * curve as Pruner's total_latency.tsv, and each task's best kernel as CUDA source with
 * its launch configuration. Everything asked for is made before anything is written,
 * so a bad session leaves no output behind. */
#include "config.h"

#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "measure/record.h"
#include "tune/export.h"
#include "tune/session.h"
#include "util/outfile.h"
#include "util/xalloc.h"

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

static int fail(char *cause) {
   fprintf(stderr, "pruner-tui export: %s\n", cause);
   free(cause);
   return EXIT_INPUT;
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

static int makeKernels(const SessionLog *log, const ExportArgs *a, const DeviceSet *devices, KernelSet *out,
                       char **cause) {
   memset(out, 0, sizeof *out);
   Network net;
   if (Export_loadNetwork(log, a->session, a->network, &net, cause) < 0)
      return -1;
   SchedLimits lim;
   const Device *dev = sessionDevice(devices, log->events[0].header.device, &lim);
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

static const CliOption exportOptions[] = {
   { "records", 'r', "FILE", "append every measurement as a record (pruner-tui-records(5)), for train and eval" },
   { "curve", 'c', "FILE",
     "write the tuning curve, Pruner's total_latency.tsv: elapsed seconds, estimated total latency in ms "
     "and trials, a line per round; the file is replaced" },
   { "kernels", 'k', "DIR", "write each task's best measured state as DIR/task-ID.cu and its launch as DIR/task-ID.json" },
   { "devices", 'D', "FILE", "also read GPU descriptions from FILE, for --kernels' device limits" },
   { "network", 'n', "FILE.task", "take the tasks from FILE.task instead of the session's task file" },
   { NULL, 0, NULL, NULL },
};

static const CliCommand exportCommand = {
   "export",
   "SESSION [--records FILE] [--curve FILE] [--kernels DIR]\n[--devices FILE] [--network FILE.task]",
   "Write projections of a session file (what pruner-tui --batch --session writes) without tuning: at "
   "least one of --records, --curve and --kernels. '-' as FILE sends the records or the curve to "
   "standard output, and the summary lines to standard error.",
   exportOptions,
};

/* 0; CLI_OPT_HELP after printing the help (exit 0); or EXIT_USAGE after reporting. */
static int parseArgs(int argc, char **argv, ExportArgs *a) {
   memset(a, 0, sizeof *a);
   optind = 1;
   int c;
   while ((c = Cli_getopt(&exportCommand, argc, argv)) != -1) {
      switch (c) {
      case CLI_OPT_HELP: return CLI_OPT_HELP;
      case CLI_OPT_BAD: return EXIT_USAGE;
      case 'r': a->records = optarg; break;
      case 'c': a->curve = optarg; break;
      case 'k': a->kernels = optarg; break;
      case 'D': a->devices = optarg; break;
      case 'n': a->network = optarg; break;
      }
   }
   if (argc - optind != 1)
      return Cli_usage("export", "expected one SESSION file");
   a->session = argv[optind];
   if (!a->records && !a->curve && !a->kernels)
      return Cli_usage("export", "nothing to export: give --records FILE, --curve FILE or --kernels DIR");
   if (a->records && a->curve && isStdout(a->records) && isStdout(a->curve))
      return Cli_usage("export", "--records and --curve cannot both go to standard output ('-')");
   if (a->kernels && isStdout(a->kernels))
      return Cli_usage("export", "--kernels takes a directory, not '-'");
   return 0;
}

int Cli_exportRun(const ExportArgs *args, const DeviceSet *devices, FILE *say, char **cause) {
   ExportArgs a = *args;
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
   char *curve = NULL;
   int curveLines = 0;
   int rc = 0;
   if (a.records && Export_records(&log, a.session, &records, cause) < 0)
      rc = -1;
   if (rc == 0 && a.curve)
      curve = Export_curve(&log, &curveLines);
   if (rc == 0 && a.kernels)
      rc = makeKernels(&log, &a, devices, &kernels, cause);

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
   free(curve);
   KernelSet_done(&kernels);
   RecordSet_done(&records);
   SessionLog_done(&log);
   return rc;
}

int Cli_export(int argc, char **argv) {
   ExportArgs a;
   int parsed = parseArgs(argc, argv, &a);
   if (parsed)
      return parsed == CLI_OPT_HELP ? 0 : parsed;
   /* the summary leaves standard output to an export written there */
   bool toStdout = (a.records && isStdout(a.records)) || (a.curve && isStdout(a.curve));
   DeviceSet devices;
   DeviceSet_init(&devices);
   if (a.kernels && Cli_loadDevices(&devices, a.devices)) {
      DeviceSet_done(&devices);
      return EXIT_INPUT;
   }
   char *cause = NULL;
   int rc = Cli_exportRun(&a, &devices, toStdout ? stderr : stdout, &cause);
   DeviceSet_done(&devices);
   if (rc < 0)
      return fail(cause);
   return 0;
}
