/* `pruner-tui explain`: what the analyses see in one state of a task: the loop nest,
 * PSA's symbols, penalties and latency estimate for a device, and the features the
 * learned models read, as the details of ui/details.h give them. */
#include "config.h"

#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

/* Pruner's default PSA profile (tune_network.py --psa a100_40). */
#define EXPLAIN_DEFAULT_DEVICE "a100_40"

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
      char *texts[] = { Details_task(d), Details_loops(d), psa, Details_features(d) };
      for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
         printf("%s%s", i ? "\n" : "", texts[i]);
         free(texts[i]);
      }
   }
   Subject_done(&sub);
   DeviceSet_done(&devices);
   return rc;
}
