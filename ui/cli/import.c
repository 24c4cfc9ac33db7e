/* `pruner-tui import MODEL.onnx`: a model's tuning tasks as a task file. */
#include "config.h"

#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/import.h"
#include "util/outfile.h"
#include "util/xalloc.h"

static const CliOption importOptions[] = {
   CLI_INPUT_OPTION,
   { "output", 'o', "FILE.task", "(or -o) write the task file to FILE.task (replaced) instead of standard output" },
   { NULL, 0, NULL, NULL },
};

static const CliCommand importCommand = {
   "import",
   "MODEL.onnx [--input NAME=DIMS]... [-o FILE.task]",
   "Read an ONNX model, fix its open input dimensions (--input), fold its constants and BatchNorms, "
   "recognise LayerNorm, GELU, hardswish and hardsigmoid, fuse it as TVM's Relay does (FuseOps), and write "
   "its tuning tasks as a task file (pruner-tui-task(5)): each fused group with a convolution, matrix "
   "product, pool or normalization is a task, identical ones merged with their count as the weight. The "
   "summary (nodes read, folded, fused; tasks; groups that are not tasks and why) goes to standard error. "
   "Every command that takes a task file also takes the model itself.",
   importOptions,
};

static char *summaryText(const ImportSummary *sum, const Network *net) {
   char *text = NULL;
   size_t len = 0;
   FILE *f = open_memstream(&text, &len);
   if (!f)
      fatal("out of memory");
   ImportSummary_print(sum, net, f);
   fclose(f);
   return text;
}

int Cli_import(int argc, char **argv) {
   const char *output = NULL;
   /* -o, the short form the usage shows, is --output */
   static char longOutput[] = "--output";
   for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
      if (strcmp(argv[i], "-o") == 0)
         argv[i] = longOutput;
   optind = 1;
   int c;
   while ((c = Cli_getopt(&importCommand, argc, argv)) != -1) {
      switch (c) {
      case CLI_OPT_HELP: return 0;
      case CLI_OPT_BAD: return EXIT_USAGE;
      case 'o': output = optarg; break;
      }
   }
   if (argc - optind != 1)
      return Cli_usage("import", "expected one MODEL.onnx");
   const char *model = argv[optind];
   if (!Import_isOnnx(model))
      return Cli_usage("import", "'%s' is not an ONNX model (FILE.onnx)", model);
   char *cause = NULL;
   ImportSummary sum;
   memset(&sum, 0, sizeof sum);
   Network net;
   memset(&net, 0, sizeof net);
   int rc = Import_onnxInputs(&net, model, Cli_modelInputs(), &sum, &cause);
   if (rc < 0) {
      fprintf(stderr, "pruner-tui import: %s\n", cause);
      free(cause);
      ImportSummary_done(&sum);
      return EXIT_INPUT;
   }
   char *summary = summaryText(&sum, &net);
   fputs(summary, stderr);
   char *comment = xAsprintf("%s: tuning tasks of the ONNX model %s, written by pruner-tui import%s%s.\n"
                             "Totals: %d tasks; sum of weights %lld; sum of weight x FLOPs %.0f.\n\n%s",
                             net.name, model, Cli_modelInputs() ? " --input " : "",
                             Cli_modelInputs() ? Cli_modelInputs() : "", net.ntasks,
                             (long long)Network_totalWeight(&net), Network_totalFlops(&net), summary);
   free(summary);
   Outfile of;
   FILE *out = stdout;
   if (output) {
      Outfile_open(&of, output);
      out = of.f;
   }
   rc = Network_write(&net, comment, out, &cause);
   if (output && rc == 0)
      rc = Outfile_commit(&of, &cause);
   else if (output)
      Outfile_abandon(&of);
   else if (fflush(stdout) != 0)
      rc = setCause(&cause, "standard output: %s", strerror(errno));
   free(comment);
   Network_done(&net);
   ImportSummary_done(&sum);
   if (rc < 0) {
      fprintf(stderr, "pruner-tui import: %s\n", cause);
      free(cause);
      return EXIT_INPUT;
   }
   return 0;
}
