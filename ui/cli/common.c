/* What the subcommands share: usage errors, counts, loading a task file, a task and
 * a state of it. */
#include "config.h"

#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "graph/import.h"
#include "measure/measurer.h"
#include "measure/mpi.h"
#include "util/jsonl.h"
#include "util/paths.h"
#include "util/xalloc.h"

int Cli_usage(const char *cmd, const char *fmt, ...) {
   va_list ap;
   va_start(ap, fmt);
   fprintf(stderr, "pruner-tui%s%s: ", cmd ? " " : "", cmd ? cmd : "");
   vfprintf(stderr, fmt, ap);
   /* a subcommand has its own help; --batch and the like are in the main one */
   bool sub = cmd && cmd[0] != '-';
   fprintf(stderr, "\nTry 'pruner-tui %s%s--help' for more information.\n", sub ? cmd : "", sub ? " " : "");
   va_end(ap);
   return EXIT_USAGE;
}

/* ---- the subcommands' options and help ---- */

#define CLI_MAX_OPTIONS 32
#define CLI_HELP_WIDTH 80
#define CLI_HELP_COLUMN 25   /* where an option's text starts, as in the main --help */

static const CliOption helpOption = { "help", 'h', NULL, "show this help and exit" };

static char *modelInputs;

static void freeModelInputs(void) {
   free(modelInputs);
   modelInputs = NULL;
}

int Cli_addModelInput(const char *cmd, const char *text) {
   OnnxInputDims d;
   char *cause = NULL;
   if (OnnxInputDims_parse(&d, text, &cause) < 0 || strchr(text, ';')) {
      int rc = Cli_usage(cmd, "%s", cause ? cause : "--input: one NAME=DIMS per flag");
      free(cause);
      return rc;
   }
   OnnxInputDims_done(&d);
   if (!modelInputs)
      atexit(freeModelInputs);
   char *more = xAsprintf("%s%s%s", modelInputs ? modelInputs : "", modelInputs ? ";" : "", text);
   free(modelInputs);
   modelInputs = more;
   return 0;
}

void Cli_addSimpleTasks(void) {
   if (modelInputs && strstr(modelInputs, IMPORT_SIMPLE_TASKS))
      return;
   if (!modelInputs)
      atexit(freeModelInputs);
   char *more = xAsprintf("%s%s%s", modelInputs ? modelInputs : "", modelInputs ? ";" : "", IMPORT_SIMPLE_TASKS);
   free(modelInputs);
   modelInputs = more;
}

const char *Cli_modelInputs(void) {
   return modelInputs;
}

int Cli_getopt(const CliCommand *cmd, int argc, char **argv) {
   struct option options[CLI_MAX_OPTIONS + 2];
   int n = 0;
   for (const CliOption *o = cmd->options; o->name; o++) {
      if (n == CLI_MAX_OPTIONS || o->val == 'h')
         fatal("%s: option table: too many options, or one returns 'h'", cmd->name);
      options[n++] = (struct option){ o->name, o->arg ? required_argument : no_argument, NULL, o->val };
   }
   options[n++] = (struct option){ helpOption.name, no_argument, NULL, 'h' };
   options[n] = (struct option){ NULL, 0, NULL, 0 };
   opterr = 0;
   int c = getopt_long(argc, argv, ":h", options, NULL);
   while (c == CLI_OPT_INPUT || c == CLI_OPT_SIMPLE_TASKS) {
      if (c == CLI_OPT_SIMPLE_TASKS)
         Cli_addSimpleTasks();
      else if (Cli_addModelInput(cmd->name, optarg))
         return CLI_OPT_BAD;
      c = getopt_long(argc, argv, ":h", options, NULL);
   }
   switch (c) {
   case -1:
      return -1;
   case 'h':
      Cli_help(cmd, stdout);
      return CLI_OPT_HELP;
   case ':':
      Cli_usage(cmd->name, "option '%s' needs an argument", argv[optind - 1]);
      return CLI_OPT_BAD;
   case '?':
      Cli_usage(cmd->name, "unknown option '%s'", argv[optind - 1]);
      return CLI_OPT_BAD;
   default:
      return c;
   }
}

/* text from column `col` on, its words wrapped to CLI_HELP_WIDTH at `indent`. */
static void printWrapped(FILE *out, const char *text, int col, int indent) {
   const char *p = text;
   while (*p) {
      while (*p == ' ')
         p++;
      size_t len = strcspn(p, " ");
      if (col > indent && col + 1 + (int)len > CLI_HELP_WIDTH) {
         fprintf(out, "\n%*s", indent, "");
         col = indent;
      } else if (col > indent) {
         fputc(' ', out);
         col++;
      }
      fprintf(out, "%.*s", (int)len, p);
      col += (int)len;
      p += len;
   }
   fputc('\n', out);
}

static void printOption(FILE *out, const CliOption *o) {
   char label[96];
   int n = snprintf(label, sizeof label, "  %s--%s%s%s", o->val == 'h' ? "-h, " : "    ", o->name,
                    o->arg ? " " : "", o->arg ? o->arg : "");
   fputs(label, out);
   if (n + 2 > CLI_HELP_COLUMN) {
      fprintf(out, "\n%*s", CLI_HELP_COLUMN, "");
   } else {
      fprintf(out, "%*s", CLI_HELP_COLUMN - n, "");
   }
   printWrapped(out, o->help, CLI_HELP_COLUMN, CLI_HELP_COLUMN);
}

void Cli_help(const CliCommand *cmd, FILE *out) {
   const char *prefix = "Usage: pruner-tui ";
   int indent = (int)(strlen(prefix) + strlen(cmd->name) + 1);
   for (const char *line = cmd->usage; *line;) {
      size_t len = strcspn(line, "\n");
      if (line == cmd->usage)
         fprintf(out, "%s%s %.*s\n", prefix, cmd->name, (int)len, line);
      else
         fprintf(out, "%*s%.*s\n", indent, "", (int)len, line);
      line += len + (line[len] == '\n');
   }
   for (const char *para = cmd->about; *para;) {
      size_t len = strcspn(para, "\n");
      char *text = xStrndup(para, len);
      printWrapped(out, text, 0, 0);
      free(text);
      para += len + (para[len] == '\n');
   }
   fprintf(out, "\nOptions:\n");
   for (const CliOption *o = cmd->options; o->name; o++)
      printOption(out, o);
   printOption(out, &helpOption);
   fprintf(out, "\nExit status: 0 on success, 1 for a bad input file, 2 for bad usage.\n"
                "See pruner-tui(1), section SUBCOMMANDS.\n");
}

int Cli_parseCount(const char *cmd, const char *what, const char *text, long min, long max, long *out) {
   char *end;
   errno = 0;
   long v = strtol(text, &end, 10);
   if (errno || end == text || *end || isspace((unsigned char)*text) || v < min || v > max)
      return Cli_usage(cmd, "%s must be an integer from %ld to %ld, not '%s'", what, min, max, text);
   *out = v;
   return 0;
}

int Cli_parseReal(const char *cmd, const char *what, const char *text, double min, double max, int bounds,
                  double *out) {
   char *end;
   double v = strtod(text, &end);
   bool aboveMin = bounds & CLI_ABOVE_MIN, belowMax = bounds & CLI_BELOW_MAX;
   if (end == text || *end || isspace((unsigned char)*text) || !isfinite(v) || (aboveMin ? v <= min : v < min) ||
       (belowMax ? v >= max : v > max))
      return Cli_usage(cmd, "%s must be a number %s %.10g and %s %.10g, not '%s'", what, aboveMin ? "above" : "at least", min,
                       belowMax ? "below" : "at most", max, text);
   *out = v;
   return 0;
}

int Cli_parseNumber(const char *cmd, const char *what, const char *text, double min, double max, double *out) {
   return Cli_parseReal(cmd, what, text, min, max, CLI_ABOVE_MIN, out);
}

int Cli_parseSize(const char *cmd, const char *what, const char *text, double *out) {
   static const char units[] = "KMGT";
   char *end;
   double v = strtod(text, &end);
   if (isspace((unsigned char)*text))
      end = NULL;
   const char *unit = end && *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
   if (unit)
      for (v *= 1024, end++; unit > units; unit--)
         v *= 1024;
   if (!end || end == text || *end || !(v >= 1 << 20 && v <= 0x1p50))
      return Cli_usage(cmd, "%s must be a size from 1M to 1024T, like 512M or 4G, not '%s'", what, text);
   *out = v;
   return 0;
}

int Cli_loadNetwork(const char *file, Network *net) {
   char *path = Paths_findTaskFile(file);
   char *cause = NULL;
   int rc = Model_load(net, path, Cli_modelInputs(), &cause);
   free(path);
   if (rc < 0) {
      fprintf(stderr, "pruner-tui: %s\n", cause);
      free(cause);
      return EXIT_INPUT;
   }
   return 0;
}

static const char *const shippedNetworks[CLI_SHIPPED_NETWORKS] = {
   "resnet_50.task",      "resnet_18.task",  "mobilenet_v2.task", "bert_base.task", "bert_tiny.task",
   "wide_resnet_50.task", "resnext_50.task", "inception_v3.task", "vit_b_16.task",  "deeplabv3_r50.task",
   "densenet_121.task",   "mobilenet_v3.task", "detr_r50.task",
};

int Cli_loadNetworks(const char *const *files, int nfiles, Network *nets, int *n) {
   *n = 0;
   for (int i = 0; i < CLI_SHIPPED_NETWORKS; i++) {
      char *path = Paths_findTaskFile(shippedNetworks[i]);
      char *cause = NULL;
      if (Network_load(&nets[*n], path, &cause) == 0)
         (*n)++;
      free(cause);
      free(path);
   }
   for (int i = 0; i < nfiles; i++) {
      if (Cli_loadNetwork(files[i], &nets[*n]))
         return EXIT_INPUT;
      (*n)++;
   }
   return 0;
}

char *Cli_readStateArg(const char *arg, char **cause) {
   if (arg[0] != '@')
      return xStrdup(arg);
   size_t len;
   return Paths_readFile(arg + 1, JSONL_MAX_LINE, "a state", &len, cause);
}

int Cli_loadSubject(const char *cmd, const char *file, const char *taskArg, long seed, bool seedGiven,
                    const char *stateArg, Subject *out) {
   if (seedGiven && stateArg)
      return Cli_usage(cmd, "--seed and --state cannot be combined");
   memset(out, 0, sizeof *out);
   if (Cli_loadNetwork(file, &out->net))
      return EXIT_INPUT;
   long task;
   if (Cli_parseCount(cmd, "TASK", taskArg, 0, out->net.ntasks - 1, &task)) {
      Network_done(&out->net);
      return EXIT_USAGE;
   }
   SchedLimits lim;
   SchedLimits_default(&lim);
   char *cause = NULL;
   int rc;
   if (stateArg) {
      char *text = Cli_readStateArg(stateArg, &cause);
      rc = text ? DetailsSubject_parse(&out->details, &out->net, (int)task, text, &lim, &cause) : -1;
      free(text);
   } else {
      rc = DetailsSubject_sample(&out->details, &out->net, (int)task, (uint64_t)(seedGiven ? seed : 1), &lim,
                                 &cause);
   }
   if (rc < 0) {
      fprintf(stderr, "pruner-tui: %s\n", cause);
      free(cause);
      Network_done(&out->net);
      return EXIT_INPUT;
   }
   return 0;
}

void Subject_done(Subject *s) {
   DetailsSubject_done(&s->details);
   Network_done(&s->net);
}

int Cli_parseTaskList(const char *cmd, const char *what, const char *text, const Network *net, bool *selected) {
   if (strcmp(text, "all") == 0) {
      for (int i = 0; i < net->ntasks; i++)
         selected[i] = true;
      return 0;
   }
   const char *p = text;
   while (*p) {
      char *end;
      errno = 0;
      long v = strtol(p, &end, 10);
      if (errno || end == p || (*end && *end != ',') || v < 0 || v >= net->ntasks)
         return Cli_usage(cmd, "%s takes task IDs from 0 to %d separated by commas, or all, not '%s'", what,
                          net->ntasks - 1, text);
      selected[v] = true;
      p = *end ? end + 1 : end;
   }
   return 0;
}

int Cli_startMpi(const char *cmd, int *rank) {
   int size;
   char *cause = NULL;
   if (Mpi_start(NULL, NULL, rank, &size, &cause) == 0)
      return 0;
   Cli_usage(cmd, "--mpi: %s", cause);
   free(cause);
   return EXIT_USAGE;
}

int Cli_mpiWorker(const MeasurerConfig *cfg, const Network *nets, int nnets) {
   const Network **list = xCalloc((size_t)nnets + 1, sizeof *list);
   for (int i = 0; i < nnets; i++)
      list[i] = &nets[i];
   MeasurerConfig mc = *cfg;
   mc.mpi = false;
   int rc = MpiWorker_run(&mc, list, nnets);
   free(list);
   return rc;
}

int Cli_mpiRefuse(const char *why) {
   MpiWorker_refuse(why);
   return EXIT_INPUT;
}

int Cli_checkDevice(const char *cmd, const char *device) {
   MeasurerFleet f;
   char *cause = NULL;
   if (MeasurerFleet_parse(device, &f, &cause) == 0)
      return 0;
   Cli_usage(cmd, "%s", cause);
   free(cause);
   return EXIT_USAGE;
}
