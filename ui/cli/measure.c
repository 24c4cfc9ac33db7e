/* `pruner-tui measure`: samples states of tasks and measures them on the chosen
 * device (a GPU, or the simulator), printing latency, GFLOPS, registers and errors per
 * state, and appending records when asked. */
#include "config.h"

#include "cli.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/measurer.h"
#include "measure/record.h"
#include "util/rng.h"
#include "util/xalloc.h"

static void printOutcome(int i, const Task *task, const MeasureOutcome *o) {
   char regs[16] = "-", spills[16] = "-";
   if (o->registers >= 0)
      snprintf(regs, sizeof regs, "%d", o->registers);
   if (o->spillBytes >= 0)
      snprintf(spills, sizeof spills, "%d", o->spillBytes);
   if (o->error == MEASURE_OK)
      printf("%5d  %12.3f  %8.1f  %7.2f%%  %4s  %6s  %9.1f  %8.1f  ok%s\n", i, o->latency * 1e6,
             task->flops / o->latency / 1e9, 100.0 * o->spread, regs, spills, o->compileSeconds * 1e3,
             o->runSeconds * 1e3, o->checked ? "" : " (not checked)");
   else
      printf("%5d  %12s  %8s  %8s  %4s  %6s  %9.1f  %8.1f  %s: %s\n", i, "-", "-", "-", regs, spills,
             o->compileSeconds * 1e3, o->runSeconds * 1e3, MeasureError_name(o->error), o->message);
   const Counters *c = &o->counters;
   if (c->present) {
      char line[512];
      Counters_describe(c, line, sizeof line);
      printf("%5s  %s counters: %s\n", "", c->simulated ? "simulated" : "CUPTI", line);
   }
}

static const CliOption measureOptions[] = {
   { "samples", 'n', "N", "states sampled per task (default 10)" },
   { "seed", 's', "N", "the seed of the sampling and of the inputs (default 1)" },
   { "device", 'd', "D",
     "auto (default: CUDA device 0, else the simulator for --sim-profile), cuda:N, or sim:PROFILE to "
     "simulate any entry of pruner-tui --list-devices; several devices of one model share the states: "
     "cuda:N,M,..., cuda:all, sim:PROFILE*N" },
   CLI_MEASURER_OPTIONS,
   { "min-repeat-ms", 'm', "MS", "launches per repeat: as many as last MS milliseconds (default 10)" },
   { "records", 'R', "FILE", "append one JSON line per measurement to FILE (pruner-tui-records(5))" },
   { "same", 'S', "N", "measure each state N times and print how far its medians are apart" },
   { "counters", 'c', NULL,
     "print each state's counters (DRAM throughput, L1 and L2 hit rates, occupancy, FP32 rate, waves, bank "
     "conflicts, instructions and IPC, what bounds it, the top stall reason) "
     "and keep them in its record: on a GPU through CUPTI's range profiler (one more launch of each program, "
     "replayed per pass), on the simulator its modelled ones, labelled simulated" },
   { "verify-every", 'v', "N", "the simulator checks 1 state in N on the CPU executor (default 8)" },
   { "inject", 'i', "KIND",
     "break every program on purpose, to see that measuring catches it: wrong (its output scaled), oob "
     "(a store out of bounds), hang (no end), or none" },
   CLI_INPUT_OPTION,
   { NULL, 0, NULL, NULL },
};

static const CliCommand measureCommand = {
   "measure",
   "FILE.task TASK|LIST|all [--samples N] [--device D] [OPTION]...",
   "Sample states of the tasks given (an ID, IDs separated by commas, or all) and measure them on a GPU "
   "or the simulator: per state its latency, GFLOPS, spread, registers, spills, build and run times and "
   "ok or the error. Exit status 1 when no state was measured ok.",
   measureOptions,
};

int Cli_measure(int argc, char **argv) {
   MeasurerConfig cfg;
   MeasurerConfig_default(&cfg);
   long samples = 10, seed = 1, jobs = 0, repeats = cfg.runner.timing.repeats, same = 1;
   long verifyEvery = cfg.simVerifyEvery;
   const char *devicesFile = NULL, *recordsFile = NULL;
   optind = 1;
   int c;
   while ((c = Cli_getopt(&measureCommand, argc, argv)) != -1) {
      int bad = 0;
      switch (c) {
      case CLI_OPT_HELP: return 0;
      case CLI_OPT_BAD: return EXIT_USAGE;
      case 'n': bad = Cli_parseCount("measure", "--samples", optarg, 1, 100000, &samples); break;
      case 's': bad = Cli_parseCount("measure", "--seed", optarg, 0, 2147483647L, &seed); break;
      case 'j': bad = Cli_parseCount("measure", "--jobs", optarg, 1, 256, &jobs); break;
      case 'r': bad = Cli_parseCount("measure", "--repeats", optarg, 1, PROTO_MAX_COSTS, &repeats); break;
      case 'S': bad = Cli_parseCount("measure", "--same", optarg, 1, 1000, &same); break;
      case 'v': bad = Cli_parseCount("measure", "--verify-every", optarg, 1, 1000000, &verifyEvery); break;
      case 'm': bad = Cli_parseReal("measure", "--min-repeat-ms", optarg, 0, 60000, 0, &cfg.runner.timing.minRepeatMs); break;
      case 't': bad = Cli_parseNumber("measure", "--timeout", optarg, 0, 3600, &cfg.runner.runTimeout); break;
      case 'b': bad = Cli_parseNumber("measure", "--build-timeout", optarg, 0, 3600, &cfg.buildTimeout); break;
      case 'd': cfg.device = optarg; break;
      case 'p': cfg.simProfile = optarg; break;
      case 'D': devicesFile = optarg; break;
      case 'R': recordsFile = optarg; break;
      case 'c': cfg.counters = true; break;
      case 'C': cfg.simNoCompile = true; break;
      case 'M': bad = Cli_parseSize("measure", "--max-memory", optarg, &cfg.maxMemory); break;
      case 'i': {
         int k = Inject_parse(optarg);
         if (k < 0)
            return Cli_usage("measure", "--inject takes none, wrong, oob or hang, not '%s'", optarg);
         cfg.inject = (InjectKind)k;
         break;
      }
      }
      if (bad)
         return EXIT_USAGE;
   }
   if (argc - optind != 2)
      return Cli_usage("measure", "expected FILE.task TASK (a task ID, IDs separated by commas, or all)");
   if (cfg.device && Cli_checkDevice("measure", cfg.device))
      return EXIT_USAGE;
   cfg.runner.timing.repeats = (int)repeats;
   cfg.buildThreads = (int)jobs;
   cfg.simVerifyEvery = (int)verifyEvery;
   cfg.seed = (uint64_t)seed;
   Network net;
   if (Cli_loadNetwork(argv[optind], &net))
      return EXIT_INPUT;
   bool *selected = xCalloc((size_t)net.ntasks, sizeof *selected);
   if (Cli_parseTaskList("measure", "TASK", argv[optind + 1], &net, selected)) {
      free(selected);
      Network_done(&net);
      return EXIT_USAGE;
   }
   DeviceSet devices;
   if (Cli_loadDevices(&devices, devicesFile)) {
      free(selected);
      Network_done(&net);
      return EXIT_INPUT;
   }
   cfg.devices = &devices;
   char *cause = NULL;
   int rc = 0;
   RecordWriter *rw = NULL;
   if (recordsFile && !(rw = RecordWriter_open(recordsFile, &cause))) {
      fprintf(stderr, "pruner-tui measure: %s\n", cause);
      rc = EXIT_INPUT;
   }
   Measurer *m = rc ? NULL : Measurer_open(&cfg, &cause);
   if (!rc && !m) {
      fprintf(stderr, "pruner-tui measure: %s\n", cause);
      rc = EXIT_INPUT;
   }
   if (rc) {
      free(cause);
      if (rw)
         RecordWriter_close(rw, NULL);
      DeviceSet_done(&devices);
      free(selected);
      Network_done(&net);
      return rc;
   }
   printf("measuring %s (%s) on %s%s\n", net.name, net.path, Measurer_describe(m),
          Measurer_simulated(m) ? ": SIMULATED, not a GPU" : "");
   if (Measurer_note(m))
      printf("note: %s\n", Measurer_note(m));
   printf("%ld states per task", samples);
   if (same > 1)
      printf(", each %ld times", same);
   printf(", %d repeats of at least %g ms, run timeout %g s, compiled for %s%s", cfg.runner.timing.repeats,
          cfg.runner.timing.minRepeatMs, cfg.runner.runTimeout, Measurer_arch(m),
          Measurer_compiles(m) ? "" : cfg.simNoCompile ? " (not compiled: --no-compile)" : " (not compiled: no NVRTC)");
   if (Measurer_simulated(m))
      printf("; 1 state in %d checked on the CPU executor", cfg.simVerifyEvery);
   if (cfg.inject != INJECT_NONE)
      printf("; every program broken on purpose (--inject %s)", Inject_name(cfg.inject));
   printf("\n");
   SchedLimits lim;
   SchedLimits_fromDevice(&lim, Measurer_device(m));
   long total = 0, ok = 0, errors[MEASURE_ERROR_COUNT] = { 0 }, badTasks = 0;
   double worstSpread = 0;
   for (int t = 0; t < net.ntasks; t++) {
      if (!selected[t])
         continue;
      const Task *task = &net.tasks[t];
      SketchSet set;
      SketchSet_forOpWith(&set, &task->op, &Sketch_readAny);
      printf("\ntask %d: %s, %.1f MFLOP\n", t, task->key, task->flops / 1e6);
      if (Measurer_setTask(m, task, &set, &cause) < 0) {
         printf("  %s\n", cause);
         free(cause);
         cause = NULL;
         badTasks++;
         SketchSet_done(&set);
         continue;
      }
      if (Measurer_taskNote(m))
         printf("note: %s\n", Measurer_taskNote(m));
      Rng rng;
      Rng_seed(&rng, (uint64_t)seed + 104729ull * (uint64_t)t);
      int n = 0;
      State *states = xCalloc((size_t)(samples * same), sizeof *states);
      for (long i = 0; i < samples; i++) {
         State s;
         if (State_sampleValid(&set, -1, &rng, &lim, 100000, &s, &cause) < 0) {
            printf("  only %ld valid states: %s\n", i, cause);
            free(cause);
            cause = NULL;
            break;
         }
         for (long k = 0; k < same; k++)
            states[n++] = s;
      }
      MeasureOutcome *out = xCalloc((size_t)(n ? n : 1), sizeof *out);
      Measurer_measure(m, states, n, out);
      printf("%5s  %12s  %8s  %8s  %4s  %6s  %9s  %8s  %s\n", "state", "latency (us)", "GFLOPS", "spread",
             "regs", "spills", "build (ms)", "run (ms)", "result");
      for (int i = 0; i < n; i++) {
         printOutcome(i, task, &out[i]);
         total++;
         ok += out[i].error == MEASURE_OK;
         errors[out[i].error]++;
         if (rw) {
            Record r;
            Measurer_record(m, &states[i], &out[i], &r);
            if (RecordWriter_append(rw, &r, &cause) < 0) {
               fprintf(stderr, "pruner-tui measure: %s\n", cause);
               free(cause);
               cause = NULL;
               rc = EXIT_INPUT;
            }
            Record_done(&r);
         }
      }
      /* the same state measured again: how far apart its medians are */
      for (int i = 0; same > 1 && i + same <= n; i += (int)same) {
         double lo = INFINITY, hi = 0;
         for (int k = 0; k < same; k++)
            if (out[i + k].error == MEASURE_OK) {
               lo = fmin(lo, out[i + k].latency);
               hi = fmax(hi, out[i + k].latency);
            }
         if (hi > 0) {
            printf("  state %d measured %ld times: median latencies %.3f to %.3f us, spread %.2f%%\n", i, same,
                   lo * 1e6, hi * 1e6, 100.0 * (hi / lo - 1));
            worstSpread = fmax(worstSpread, hi / lo - 1);
         }
      }
      if (rw && RecordWriter_flush(rw, &cause) < 0) {
         fprintf(stderr, "pruner-tui measure: %s\n", cause);
         free(cause);
         cause = NULL;
         rc = EXIT_INPUT;
      }
      fflush(stdout);
      free(out);
      free(states);
      SketchSet_done(&set);
   }
   printf("\nmeasured %ld states: %ld ok", total, ok);
   for (int e = 1; e < MEASURE_ERROR_COUNT; e++)
      if (errors[e])
         printf(", %ld %s", errors[e], MeasureError_name((MeasureError)e));
   if (badTasks)
      printf("; %ld tasks could not be set up", badTasks);
   if (same > 1)
      printf("; largest spread of a state measured %ld times: %.2f%%", same, 100.0 * worstSpread);
   printf("%s\n", Measurer_simulated(m) ? " (simulated)" : "");
   if (Measurer_countersNote(m))
      fprintf(stderr, "pruner-tui measure: --counters: CUPTI gave no counters for some states: %s\n",
              Measurer_countersNote(m));
   if (ok == 0 && rc == 0) {
      /* a run that measured nothing is a failure, whatever each state's reason */
      fprintf(stderr, "pruner-tui measure: no state was measured ok\n");
      rc = EXIT_INPUT;
   }
   if (rw && RecordWriter_close(rw, &cause) < 0) {
      fprintf(stderr, "pruner-tui measure: %s\n", cause);
      free(cause);
      rc = EXIT_INPUT;
   }
   Measurer_close(m);
   DeviceSet_done(&devices);
   free(selected);
   Network_done(&net);
   return rc;
}
