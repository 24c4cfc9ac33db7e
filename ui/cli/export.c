/* `pruner-tui export SESSION`: the session's measure events as records, its tuning
 * curve as Pruner's total_latency.tsv, each task's best kernel as CUDA source with
 * its launch configuration, and its curves as an SVG image. Everything asked for is made before anything is written,
 * so a bad session leaves no output behind. */
#include "config.h"

#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune/export.h"
#include "tune/library.h"
#include "util/xalloc.h"

static bool isStdout(const char *path) {
   return strcmp(path, "-") == 0;
}

static int fail(char *cause) {
   fprintf(stderr, "pruner-tui export: %s\n", cause);
   free(cause);
   return EXIT_INPUT;
}

static const CliOption exportOptions[] = {
   { "records", 'r', "FILE", "append every measurement as a record (pruner-tui-records(5)), for train and eval" },
   { "curve", 'c', "FILE",
     "write the tuning curve, Pruner's total_latency.tsv: elapsed seconds, estimated total latency in ms "
     "and trials, a line per round; the file is replaced" },
   { "kernels", 'k', "DIR", "write each task's best measured state as DIR/task-ID.cu and its launch as DIR/task-ID.json" },
   { "plot", 'p', "FILE.svg",
     "write the curves as an SVG image: the estimated total latency against trials and against time, the draft "
     "acceptance rate and Kendall tau per round, with the session's network, device, policy and model as its "
     "title; the file is replaced" },
   { "front", 'f', "DIR",
     "write the front of latency against error: each task's best state per precision that no faster, no less "
     "accurate one beats, as DIR/task-ID-PRECISION.cu and .json, the fronts as DIR/front.txt, and as "
     "DIR/front.json with the network's total latency per error bound and each task's choice there" },
   { "devices", 'D', "FILE", "also read GPU descriptions from FILE, for --kernels' and --front's device limits" },
   { "network", 'n', "FILE.task", "take the tasks from FILE.task instead of the session's task file" },
   { "library", 'L', "DIR",
     "write the tuned network as a C library over the CUDA driver API: NAME.h and NAME.c (NAME_create, NAME_run, "
     "NAME_destroy, NAME_verify), a CUBIN and the CUDA source of each task's best state, NAME.weights, the launch "
     "and memory plan NAME.plan, a Makefile, example.c, and a test vector (input_N.bin, expected_N.bin); the plan "
     "is first run on the CPU and compared with the graph's reference. Needs the session's ONNX model and NVRTC; "
     "alone, not with the other exports" },
   { "model", 'm', "FILE.onnx", "with --library, the model the session tuned (default: the session's network file)" },
   { "arch", 'a', "sm_NN", "with --library, the GPU architecture of the CUBINs (default: the session's device's)" },
   { "name", 'N', "NAME", "with --library, the library's name (default: the model's file name)" },
   { NULL, 0, NULL, NULL },
};

static const CliCommand exportCommand = {
   "export",
   "SESSION [--records FILE] [--curve FILE] [--kernels DIR]\n[--plot FILE.svg] [--front DIR] [--devices FILE] [--network FILE.task]\n"
   "(or) SESSION --library DIR [--model FILE.onnx] [--arch sm_NN] [--name NAME] [--devices FILE]",
   "Write projections of a session file (what pruner-tui --batch --session writes) without tuning: at "
   "least one of --records, --curve, --kernels, --plot and --front. '-' as FILE sends the records or the curve to "
   "standard output, and the summary lines to standard error.",
   exportOptions,
};

/* 0; CLI_OPT_HELP after printing the help (exit 0); or EXIT_USAGE after reporting. */
static int parseArgs(int argc, char **argv, ExportRequest *a, LibraryRequest *lib, const char **devicesFile) {
   memset(a, 0, sizeof *a);
   memset(lib, 0, sizeof *lib);
   *devicesFile = NULL;
   optind = 1;
   int c;
   while ((c = Cli_getopt(&exportCommand, argc, argv)) != -1) {
      switch (c) {
      case CLI_OPT_HELP: return CLI_OPT_HELP;
      case CLI_OPT_BAD: return EXIT_USAGE;
      case 'r': a->records = optarg; break;
      case 'c': a->curve = optarg; break;
      case 'k': a->kernels = optarg; break;
      case 'p': a->plot = optarg; break;
      case 'f': a->front = optarg; break;
      case 'D': *devicesFile = optarg; break;
      case 'n': a->network = optarg; break;
      case 'L': lib->dir = optarg; break;
      case 'm': lib->model = optarg; break;
      case 'a': lib->arch = optarg; break;
      case 'N': lib->name = optarg; break;
      }
   }
   if (argc - optind != 1)
      return Cli_usage("export", "expected one SESSION file");
   a->session = lib->session = argv[optind];
   if (lib->dir) {
      if (a->records || a->curve || a->kernels || a->plot || a->front || a->network)
         return Cli_usage("export", "--library goes alone: export the other projections in another call");
      if (isStdout(lib->dir))
         return Cli_usage("export", "--library takes a directory, not '-'");
      if (lib->name) {
         bool ok = (lib->name[0] >= 'A' && lib->name[0] <= 'Z') || (lib->name[0] >= 'a' && lib->name[0] <= 'z') ||
                   lib->name[0] == '_';
         for (const char *q = lib->name; *q && ok; q++)
            ok = (*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '_';
         if (!ok || strlen(lib->name) > 64)
            return Cli_usage("export", "--name '%s': expected a C identifier of at most 64 characters", lib->name);
      }
      return 0;
   }
   if (lib->model || lib->arch || lib->name)
      return Cli_usage("export", "--model, --arch and --name go with --library");
   if (!a->records && !a->curve && !a->kernels && !a->plot && !a->front)
      return Cli_usage("export", "nothing to export: give --records FILE, --curve FILE, --kernels DIR, --plot "
                                 "FILE.svg, --front DIR or --library DIR");
   if (a->records && a->curve && isStdout(a->records) && isStdout(a->curve))
      return Cli_usage("export", "--records and --curve cannot both go to standard output ('-')");
   if (a->kernels && isStdout(a->kernels))
      return Cli_usage("export", "--kernels takes a directory, not '-'");
   if (a->plot && isStdout(a->plot))
      return Cli_usage("export", "--plot takes a file, not '-'");
   if (a->front && isStdout(a->front))
      return Cli_usage("export", "--front takes a directory, not '-'");
   return 0;
}

int Cli_export(int argc, char **argv) {
   ExportRequest a;
   LibraryRequest lib;
   const char *devicesFile;
   int parsed = parseArgs(argc, argv, &a, &lib, &devicesFile);
   if (parsed)
      return parsed == CLI_OPT_HELP ? 0 : parsed;
   if (lib.dir) {
      DeviceSet devices;
      if (Cli_loadDevices(&devices, devicesFile)) {
         DeviceSet_done(&devices);
         return EXIT_INPUT;
      }
      char *cause = NULL;
      int rc = Library_export(&lib, &devices, stdout, &cause);
      DeviceSet_done(&devices);
      return rc < 0 ? fail(cause) : 0;
   }
   /* the summary leaves standard output to an export written there */
   bool toStdout = (a.records && isStdout(a.records)) || (a.curve && isStdout(a.curve));
   DeviceSet devices;
   DeviceSet_init(&devices);
   if (a.kernels && Cli_loadDevices(&devices, devicesFile)) {
      DeviceSet_done(&devices);
      return EXIT_INPUT;
   }
   char *cause = NULL;
   int rc = Export_run(&a, &devices, toStdout ? stderr : stdout, &cause);
   DeviceSet_done(&devices);
   if (rc < 0)
      return fail(cause);
   return 0;
}
