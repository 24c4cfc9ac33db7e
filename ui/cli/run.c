/* `pruner-tui run MODEL.onnx`: runs a model's graph on the op rows' C references, with
 * inputs and expected outputs in ONNX's test_data_set layout (input_N.pb,
 * output_N.pb), and says whether each output matches. */
#include "config.h"

#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "graph/exec.h"
#include "graph/graph.h"
#include "graph/import.h"
#include "graph/netrun.h"
#include "graph/onnx.h"
#include "tune/program.h"
#include "graph/passes.h"
#include "util/clock.h"
#include "util/rng.h"
#include "util/xalloc.h"

#define RUN_MAX_INPUTS 64

static const CliOption runOptions[] = {
   { "input", 'i', "NAME=DIMS",
     "fix the dimensions of the model's input NAME, e.g. --input input=1x3x224x224 (repeat for each input "
     "whose dimensions the model leaves open; with --input-data or --test-data they come from the data)" },
   { "input-data", 'I', "DIR", "read the inputs from DIR/input_0.pb, input_1.pb, ... (serialized TensorProto, "
     "the graph's inputs in order); without it and --test-data, inputs are seeded random values" },
   { "output-data", 'O', "DIR", "write the inputs and outputs as DIR/input_N.pb and DIR/output_N.pb, a folder "
     "that --test-data reads back (the folder must exist)" },
   { "test-data", 't', "DIR",
     "a folder in ONNX's test_data_set layout: read its input_N.pb and compare the outputs with its output_N.pb; "
     "a mismatch exits with status 1 naming the output, the element and the error (a uint16 file where the "
     "model has bfloat16, as ONNX 1.12's test data keeps it, is read as bfloat16 bits)" },
   { "rtol", 'r', "R", "relative tolerance of the comparison (default 1e-3, ONNX's backend tests')" },
   { "atol", 'a', "A", "absolute tolerance of the comparison (default 1e-7)" },
   { "seed", 's', "N", "seed of the random inputs (default 1)" },
   { "simplify", 'S', NULL,
     "run the graph as the import leaves it for fusion (BatchNorm folded into the convolutions, Dropout and "
     "Identity removed, LayerNorm, GELU, hardswish and hardsigmoid as one node each): its outputs should "
     "equal the model's" },
   { "tasks", 'T', NULL,
     "run the network as the import's kernels, in their order: each task occurrence on its op's C reference "
     "(the op, its parameters and epilogue as the task file has them), the other groups on the graph's ops; "
     "print the plan and the activations' memory plan (one arena by liveness, against the lower bound)" },
   { "include-simple-tasks", 'E', NULL,
     "with --tasks or --session, import the model's concat, resize and elementwise groups as tasks too" },
   { "plan", 'P', NULL,
     "with --tasks or --session, print the plan and the memory plan and stop: nothing runs" },
   { "session", 'e', "FILE",
     "run the tasks (as --tasks does) on the kernels of the states the session FILE found best for them, on "
     "the CPU executor, so that the tuned schedules compute the network; a task the session did not measure "
     "runs on the default schedule (a kernel per stage) and is named" },
   { "interpret", 'N', NULL,
     "with --session, run the tuned kernels on the loop-nest interpreter, the reference, instead of compiling "
     "them to native code with the C compiler ($CC, or cc)" },
   { NULL, 0, NULL, NULL },
};

static const CliCommand runCommand = {
   "run",
"MODEL.onnx [--input NAME=DIMS]... [--tasks | --session FILE [--interpret]] [--include-simple-tasks] [--plan]\n[--input-data DIR] [--output-data DIR] [--test-data DIR] [--rtol R] "
   "[--atol A] [--seed N]",
   "Run the model's graph on the CPU with the C reference of each operator (after constant folding), and "
   "print each output's shape and its error against the expected output when --test-data gives one. Exit "
   "status 0 when every output matches within |got - want| <= atol + rtol |want|, 1 when one does not or "
   "the model is refused (the message names the node, its operator and opset, and the reason), 2 on bad "
   "usage.",
   runOptions,
};

typedef struct RunArgs_ {
   const char *model;
   OnnxInputDims dims[RUN_MAX_INPUTS];
   int ndims;
   const char *inputData, *outputData, *testData, *session;
   double rtol, atol;
   long seed;
   bool simplify, tasks, simpleTasks, planOnly, interpret;
} RunArgs;

static void argsDone(RunArgs *a) {
   for (int i = 0; i < a->ndims; i++)
      OnnxInputDims_done(&a->dims[i]);
}

static int parseArgs(int argc, char **argv, RunArgs *a) {
   memset(a, 0, sizeof *a);
   a->rtol = 1e-3;
   a->atol = 1e-7;
   a->seed = 1;
   optind = 1;
   int c;
   char *cause = NULL;
   while ((c = Cli_getopt(&runCommand, argc, argv)) != -1) {
      switch (c) {
      case CLI_OPT_HELP: return CLI_OPT_HELP;
      case CLI_OPT_BAD: return EXIT_USAGE;
      case 'i':
         if (a->ndims == RUN_MAX_INPUTS)
            return Cli_usage("run", "more than %d --input flags", RUN_MAX_INPUTS);
         if (OnnxInputDims_parse(&a->dims[a->ndims], optarg, &cause) < 0) {
            int rc = Cli_usage("run", "%s", cause);
            free(cause);
            return rc;
         }
         a->ndims++;
         break;
      case 'I': a->inputData = optarg; break;
      case 'N': a->interpret = true; break;
      case 'O': a->outputData = optarg; break;
      case 't': a->testData = optarg; break;
      case 'r':
         if (Cli_parseReal("run", "--rtol", optarg, 0, 1, 0, &a->rtol))
            return EXIT_USAGE;
         break;
      case 'a':
         if (Cli_parseReal("run", "--atol", optarg, 0, 1e30, 0, &a->atol))
            return EXIT_USAGE;
         break;
      case 's':
         if (Cli_parseCount("run", "--seed", optarg, 0, 2147483647L, &a->seed))
            return EXIT_USAGE;
         break;
      case 'S': a->simplify = true; break;
      case 'T': a->tasks = true; break;
      case 'E': a->simpleTasks = true; break;
      case 'P': a->planOnly = true; break;
      case 'e': a->session = optarg; a->tasks = true; break;
      }
   }
   if (argc - optind != 1)
      return Cli_usage("run", "expected one MODEL.onnx");
   a->model = argv[optind];
   if (a->inputData && a->testData)
      return Cli_usage("run", "--input-data and --test-data both give the inputs: use one");
   if (a->tasks && a->simplify)
      return Cli_usage("run", "%s runs the imported network, which is simplified already: leave out --simplify",
                       a->session ? "--session" : "--tasks");
   if (a->planOnly && !a->tasks)
      return Cli_usage("run", "--plan prints the plan of --tasks or --session: give one of them");
   if (a->planOnly && (a->inputData || a->testData || a->outputData))
      return Cli_usage("run", "--plan runs nothing: leave out --input-data, --test-data and --output-data");
   if (a->simpleTasks && !a->tasks)
      return Cli_usage("run", "--include-simple-tasks shapes the tasks that --tasks runs: give --tasks too");
   return 0;
}

static bool fileExists(const char *path) {
   struct stat st;
   return stat(path, &st) == 0;
}

/* The message names tensors and nodes of the file: its control characters print as \xNN,
 * as import's do, so that it stays one line. */
static int fail(char *cause) {
   Graph_escapeControls(&cause);
   fprintf(stderr, "pruner-tui run: %s\n", cause);
   free(cause);
   return EXIT_INPUT;
}

/* A name of the file as the output lines show it: control characters as \xNN. */
static char *shownName(const char *name) {
   char *s = xStrdup(name);
   Graph_escapeControls(&s);
   return s;
}

/* Reads DIR/input_N.pb into the graph's inputs, fixing open dimensions from the data. */
static int readInputs(Graph *g, const char *dir, char **cause) {
   int n = 0;
   for (;; n++) {
      char *path = xAsprintf("%s/input_%d.pb", dir, n);
      bool there = fileExists(path);
      free(path);
      if (!there)
         break;
   }
   if (n != g->ninputs)
      return setCause(cause, "%s holds %d input_N.pb files; %s has %d inputs", dir, n, g->path,
                      g->ninputs);
   for (int i = 0; i < n; i++) {
      char *path = xAsprintf("%s/input_%d.pb", dir, i);
      GTensor t;
      memset(&t, 0, sizeof t);
      t.name = xStrdup("");
      int rc = Onnx_readTensor(path, &t, cause);
      GTensor *in = &g->t[g->inputs[i]];
      if (rc == 0 && t.dtype == GT_UINT16 && in->dtype == GT_BFLOAT16)
         t.dtype = GT_BFLOAT16;   /* ONNX 1.12's test data keeps bfloat16 bits as uint16 */
      if (rc == 0 && t.dtype != in->dtype)
         rc = setCause(cause, "%s: %s, where the model's input '%s' is %s", path, GType_name(t.dtype),
                       in->name, GType_name(in->dtype));
      if (rc == 0 && in->ndim >= 0) {
         bool same = in->ndim == t.ndim;
         for (int k = 0; same && k < t.ndim; k++)
            same = in->dims[k] < 0 || in->dims[k] == t.dims[k];
         if (!same) {
            char want[256], got[256];
            GTensor_dimsText(in, want, sizeof want);
            GTensor_dimsText(&t, got, sizeof got);
            rc = setCause(cause, "%s: shape %s, where the model's input '%s' is %s", path, got, in->name,
                          want);
         }
      }
      if (rc == 0) {
         GTensor_setShape(in, t.dtype, t.ndim, t.dims);
         free(in->data);
         in->data = t.data;
         t.data = NULL;
      }
      free(t.name);
      free(t.data);
      free(path);
      if (rc < 0)
         return -1;
   }
   return 0;
}

static void randomInputs(Graph *g, long seed) {
   Rng rng;
   Rng_seed(&rng, (uint64_t)seed);
   for (int i = 0; i < g->ninputs; i++) {
      GTensor *t = &g->t[g->inputs[i]];
      if (t->data)
         continue;
      GTensor_alloc(t);
      if (GType_isFloat(t->dtype))
         for (int64_t k = 0; k < GTensor_elems(t); k++)
            GTensor_set(t, k, 2.0 * Rng_uniform(&rng) - 1.0);
   }
}

/* Compares got with the expected tensor in path; prints the output's line. */
static int compareOutput(const GTensor *got, const char *path, const RunArgs *a, char **cause) {
   GTensor want;
   memset(&want, 0, sizeof want);
   want.name = xStrdup("");
   int rc = Onnx_readTensor(path, &want, cause);
   if (rc == 0 && want.dtype == GT_UINT16 && got->dtype == GT_BFLOAT16)
      want.dtype = GT_BFLOAT16;   /* as for inputs: bfloat16 bits kept as uint16 */
   char gs[256], ws[256];
   GTensor_dimsText(got, gs, sizeof gs);
   GTensor_dimsText(&want, ws, sizeof ws);
   bool sameShape = rc == 0 && got->ndim == want.ndim;
   for (int k = 0; sameShape && k < got->ndim; k++)
      sameShape = got->dims[k] == want.dims[k];
   if (rc == 0 && got->dtype != want.dtype)
      rc = setCause(cause, "output '%s' differs from %s: it is %s where %s was expected", got->name, path,
                    GType_name(got->dtype), GType_name(want.dtype));
   else if (rc == 0 && !sameShape)
      rc = setCause(cause, "output '%s' differs from %s: its shape is %s where %s was expected", got->name,
                    path, gs, ws);
   if (rc == 0) {
      double maxAbs = 0, maxRel = 0;
      int64_t bad = -1, nbad = 0;
      int64_t n = GTensor_elems(got);
      for (int64_t i = 0; i < n; i++) {
         double x = GTensor_get(got, i), y = GTensor_get(&want, i);
         if (isnan(x) || isnan(y)) {
            if (isnan(x) != isnan(y)) {
               nbad++;
               if (bad < 0)
                  bad = i;
            }
            continue;
         }
         if (isinf(x) || isinf(y)) {
            if (x != y) {
               nbad++;
               if (bad < 0)
                  bad = i;
            }
            continue;
         }
         double err = fabs(x - y);
         if (err > maxAbs)
            maxAbs = err;
         if (y != 0 && err / fabs(y) > maxRel)
            maxRel = err / fabs(y);
         if (err > a->atol + a->rtol * fabs(y)) {
            nbad++;
            if (bad < 0)
               bad = i;
         }
      }
      if (bad >= 0)
         rc = setCause(cause, "output '%s' differs from %s: %lld of %lld elements are off; the first, "
                       "element %lld, is %.9g where %.9g was expected (max abs error %.3g, max rel "
                       "error %.3g; rtol %g, atol %g)", got->name, path, (long long)nbad, (long long)n,
                       (long long)bad, GTensor_get(got, bad), GTensor_get(&want, bad), maxAbs, maxRel,
                       a->rtol, a->atol);
      else {
         char *name = shownName(got->name);
         printf("output %s: %s %s, max abs error %.3g, max rel error %.3g: ok\n", name, gs,
                GType_name(got->dtype), maxAbs, maxRel);
         free(name);
      }
   }
   free(want.name);
   free(want.data);
   return rc;
}

/* Writes and compares the outputs g holds, as the options ask. */
static int finishOutputs(const Graph *g, const RunArgs *a, char **cause) {
   int rc = 0;
   for (int i = 0; rc == 0 && i < g->noutputs; i++) {
      const GTensor *out = &g->t[g->outputs[i]];
      if (a->outputData) {
         char *path = xAsprintf("%s/output_%d.pb", a->outputData, i);
         rc = Onnx_writeTensor(path, out, out->name, cause);
         free(path);
      }
      if (rc == 0 && a->testData) {
         char *path = xAsprintf("%s/output_%d.pb", a->testData, i);
         if (!fileExists(path))
            rc = setCause(cause, "%s: missing; the model has %d outputs", path, g->noutputs);
         else
            rc = compareOutput(out, path, a, cause);
         free(path);
      } else if (rc == 0) {
         char dims[256];
         GTensor_dimsText(out, dims, sizeof dims);
         char *name = shownName(out->name);
         printf("output %s: %s %s\n", name, dims, GType_name(out->dtype));
         free(name);
      }
   }
   if (rc == 0 && a->testData) {
      char *path = xAsprintf("%s/output_%d.pb", a->testData, g->noutputs);
      if (fileExists(path))
         rc = setCause(cause, "%s holds more output_N.pb files than the model's %d outputs", a->testData,
                       g->noutputs);
      free(path);
   }
   return rc;
}

static int writeInputs(const Graph *g, const RunArgs *a, char **cause) {
   int rc = 0;
   for (int i = 0; a->outputData && rc == 0 && i < g->ninputs; i++) {
      const GTensor *in = &g->t[g->inputs[i]];
      char *path = xAsprintf("%s/input_%d.pb", a->outputData, i);
      rc = Onnx_writeTensor(path, in, in->name, cause);
      free(path);
   }
   return rc;
}

static void printBytes(int64_t b) {
   if (b >= 1 << 20)
      printf("%.1f MiB", (double)b / (1 << 20));
   else
      printf("%.1f KiB", (double)b / 1024);
}

/* The tasks on the session's best states, on the CPU executor (--session). */
static int runTuned(ImportedModel *m, const char *session, bool interpret, char **cause) {
   DeviceSet devices;
   if (Cli_loadDevices(&devices, NULL)) {
      DeviceSet_done(&devices);
      return setCause(cause, "devices.yaml, which gives the session's device's limits, does not load");
   }
   TunedProgram prog;
   int rc = TunedProgram_fromSession(&prog, &m->net, session, &devices, cause);
   DeviceSet_done(&devices);
   if (rc < 0)
      return -1;
   double sum = 0;
   printf("states: %d of %d tasks from %s (each its best measure on %s%s)", prog.tuned, prog.ntasks, session,
          prog.device, prog.simulated ? ", simulated" : "");
   int untuned = 0;
   for (int i = 0; i < prog.ntasks; i++) {
      sum += (double)m->net.tasks[i].weight * prog.tasks[i].latency;
      if (prog.tasks[i].event < 0)
         printf("%s%d", untuned++ ? ", " : "; on the default schedule, untuned: task ", i);
   }
   printf("\nsum of the task bests, by weight: %.3f ms%s\n", sum * 1e3, untuned ? " (the untuned tasks not counted)" : "");
   if (interpret) {
      printf("kernels: on the interpreter (--interpret)\n");
   } else {
      char *why = NULL;
      double t0 = Clock_now();
      if (TunedProgram_compile(&prog, &why) == 0)
         printf("kernels: %d of %d tasks compiled to native code in %.1f s%s\n", prog.compiled, prog.ntasks,
                Clock_now() - t0, prog.compiled < prog.ntasks ? ", the others on the interpreter" : "");
      else
         printf("kernels: on the interpreter: %s\n", why);
      free(why);
   }
   fflush(stdout);
   rc = NetRun_execute(m, TunedProgram_runTask, &prog, cause);
   TunedProgram_done(&prog);
   return rc;
}

/* The network as the import's kernels (--tasks). */
static int runKernels(const RunArgs *a, char **cause) {
   ImportOptions opt = { a->dims, a->ndims, a->simpleTasks };
   ImportedModel m;
   int rc = Import_model(&m, a->model, &opt, cause);
   if (rc < 0)
      return -1;
   if (a->inputData || a->testData)
      rc = readInputs(&m.g, a->inputData ? a->inputData : a->testData, cause);
   if (rc == 0) {
      randomInputs(&m.g, a->seed);
      rc = writeInputs(&m.g, a, cause);
   }
   if (rc == 0) {
      int occurrences = 0;
      for (int u = 0; u < m.nunits; u++)
         occurrences += m.units[u].task >= 0;
      NetMemoryPlan plan;
      NetMemoryPlan_build(&plan, &m);
      int groups = m.nunits - occurrences;
      printf("plan: %d kernels: %d occurrences of %d tasks (%s), %d group%s of graph ops\n", m.nunits, occurrences,
             m.net.ntasks, a->session ? "tuned states on the CPU executor" : "op C references", groups,
             groups == 1 ? "" : "s");
      printf("memory: %d activations in one arena of ", plan.planned);
      printBytes(plan.peak);
      printf(" (%.3fx the liveness lower bound, ", plan.lowerBound ? (double)plan.peak / (double)plan.lowerBound : 1.0);
      printBytes(plan.lowerBound);
      printf("; ");
      printBytes(plan.unshared);
      printf(" without reuse)\n");
      NetMemoryPlan_done(&plan);
      if (!a->planOnly)
         rc = a->session ? runTuned(&m, a->session, a->interpret, cause) : NetRun_execute(&m, NetRun_reference, NULL, cause);
   }
   if (rc == 0 && !a->planOnly)
      rc = finishOutputs(&m.g, a, cause);
   ImportedModel_done(&m);
   return rc;
}

static int runModel(const RunArgs *a, char **cause) {
   if (a->tasks)
      return runKernels(a, cause);
   Graph g;
   bool fromData = a->inputData || a->testData;
   int rc = Onnx_load(&g, a->model, a->dims, a->ndims, fromData, cause);
   if (rc == 0 && fromData)
      rc = readInputs(&g, a->inputData ? a->inputData : a->testData, cause);
   if (rc == 0)
      rc = Graph_prepare(&g, true, cause);
   if (rc == 0 && a->simplify) {
      PassCounts counts;
      Graph_compact(&g);
      Graph_simplify(&g, &counts);
   }
   if (rc == 0) {
      randomInputs(&g, a->seed);
      /* the inputs too, so that the folder is a whole test_data_set */
      rc = writeInputs(&g, a, cause);
   }
   if (rc == 0)
      rc = Graph_execute(&g, false, cause);
   if (rc == 0)
      rc = finishOutputs(&g, a, cause);
   Graph_done(&g);
   return rc;
}

int Cli_run(int argc, char **argv) {
   RunArgs a;
   int parsed = parseArgs(argc, argv, &a);
   if (parsed) {
      argsDone(&a);
      return parsed == CLI_OPT_HELP ? 0 : parsed;
   }
   char *cause = NULL;
   int rc = runModel(&a, &cause);
   argsDone(&a);
   if (rc < 0)
      return fail(cause);
   return 0;
}
