/* `pruner-tui explain`: what the analyses see in one state of a task: the loop nest,
 * PSA's symbols, penalties and latency estimate for a device, the simulator's terms
 * for the same device beside PSA's, and the features the learned models read, as the
 * details of screen/details.h give them. */
#include "config.h"

#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/nvrtc.h"
#include "util/xalloc.h"

/* Pruner's default PSA profile (tune_network.py --psa a100_40). */
#define EXPLAIN_DEFAULT_DEVICE "a100_40"

enum { OPT_DEVICES = 256, OPT_NO_COMPILE };

static const CliOption explainOptions[] = {
   CLI_STATE_OPTIONS,
   { "device", 'd', "NAME",
     "the device PSA and the simulator model: a name from pruner-tui --list-devices, or sim:NAME as "
     "measure takes it (default a100_40)" },
   { "devices", OPT_DEVICES, "FILE", "also read GPU descriptions from FILE (see pruner-tui --help)" },
   { "no-compile", OPT_NO_COMPILE, NULL,
     "the simulator estimates registers from the loop nest instead of compiling with NVRTC, as measure "
     "--no-compile does" },
   CLI_INPUT_OPTION,
   { NULL, 0, NULL, NULL },
};

static const CliCommand explainCommand = {
   "explain",
   "FILE.task TASK [--seed N | --state JSON|@FILE]\n[--device NAME] [--devices FILE] [--no-compile]",
   "Print what the cost models see in one state of task TASK: the task, sketch and state, the loop nest, "
   "PSA's symbols, penalties and latency estimate on the device, the simulator's terms per kernel beside "
   "PSA's estimate (the simulated latency is what measure --device sim:NAME measures, but for its repeat "
   "noise), and the feature rows the learned models read.",
   explainOptions,
};

/* ptxas' report of each kernel for the simulator, as measure gets it: the state's
 * source compiled for dev's architecture. Returns where the registers come from
 * (caller frees); compiled[k] stays NULL for a kernel ptxas did not report. */
static char *compileForSim(const DetailsSubject *d, const Device *dev, SimCompiled *reports,
                           const SimCompiled **compiled) {
   char arch[16], *why = NULL;
   Device_arch(dev, arch, sizeof arch);
   if (Nvrtc_open(&why) < 0 || Nvrtc_supportsArch(arch, &why) < 0) {
      char *text = xAsprintf("estimated from the loop nest (%s)", why);
      free(why);
      return text;
   }
   char *src = Details_source(d);
   NvrtcResult r;
   char *text;
   if (Nvrtc_compile(src, "explain.cu", arch, &r, &why) < 0) {
      text = xAsprintf("estimated from the loop nest (NVRTC %s: %s)", arch, why);
      free(why);
   } else {
      int major = 0, minor = 0;
      Nvrtc_version(&major, &minor);
      for (int k = 0; k < d->ln.nkernels; k++) {
         const NvrtcKernelInfo *ki = NvrtcResult_kernel(&r, d->ln.kernels[k].name);
         if (ki) {
            reports[k] = (SimCompiled){ ki->registers, ki->spillStores, ki->spillLoads, ki->stackBytes };
            compiled[k] = &reports[k];
         }
      }
      text = xAsprintf("from ptxas (NVRTC %d.%d, %s)", major, minor, arch);
   }
   NvrtcResult_done(&r);
   free(src);
   return text;
}

int Cli_explain(int argc, char **argv) {
   long seed = 1;
   bool seedGiven = false, noCompile = false;
   const char *stateArg = NULL, *deviceName = EXPLAIN_DEFAULT_DEVICE, *devicesFile = NULL;
   optind = 1;
   int c;
   while ((c = Cli_getopt(&explainCommand, argc, argv)) != -1) {
      switch (c) {
      case CLI_OPT_HELP: return 0;
      case CLI_OPT_BAD: return EXIT_USAGE;
      case 's':
         if (Cli_parseCount("explain", "--seed", optarg, 0, 2147483647L, &seed))
            return EXIT_USAGE;
         seedGiven = true;
         break;
      case 'S': stateArg = optarg; break;
      case 'd': deviceName = optarg; break;
      case OPT_DEVICES: devicesFile = optarg; break;
      case OPT_NO_COMPILE: noCompile = true; break;
      }
   }
   if (argc - optind != 2)
      return Cli_usage("explain", "expected FILE.task TASK");
   /* every profile is one the simulator can model: sim:NAME is NAME */
   if (strncmp(deviceName, "sim:", 4) == 0)
      deviceName += 4;
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
   Subject sub;
   rc = Cli_loadSubject("explain", argv[optind], argv[optind + 1], seed, seedGiven, stateArg, &sub);
   if (rc) {
      DeviceSet_done(&devices);
      return rc;
   }
   const DetailsSubject *d = &sub.details;
   char *cause = NULL;
   char *psa = Details_psa(d, dev, &cause);
   if (!psa) {
      fprintf(stderr, "pruner-tui: %s\n", cause);
      free(cause);
      rc = EXIT_INPUT;
   } else {
      SimCompiled reports[IR_MAX_KERNELS];
      const SimCompiled *compiled[IR_MAX_KERNELS] = { NULL };
      char *registers = noCompile ? xStrdup("estimated from the loop nest (--no-compile)")
                                  : compileForSim(d, dev, reports, compiled);
      char *texts[] = { Details_task(d), Details_loops(d), psa, Details_sim(d, dev, compiled, registers),
                        Details_features(d) };
      for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
         printf("%s%s", i ? "\n" : "", texts[i]);
         free(texts[i]);
      }
      free(registers);
   }
   Subject_done(&sub);
   DeviceSet_done(&devices);
   return rc;
}
