/* What the subcommands share: usage errors, counts, loading a task file, a task and
 * a state of it. */
#include "config.h"

#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/paths.h"
#include "util/xalloc.h"

int Cli_usage(const char *cmd, const char *fmt, ...) {
   va_list ap;
   va_start(ap, fmt);
   fprintf(stderr, "pruner-tui%s%s: ", cmd ? " " : "", cmd ? cmd : "");
   vfprintf(stderr, fmt, ap);
   fprintf(stderr, "\nTry 'pruner-tui --help' for more information.\n");
   va_end(ap);
   return EXIT_USAGE;
}

int Cli_parseCount(const char *cmd, const char *what, const char *text, long min, long max, long *out) {
   char *end;
   errno = 0;
   long v = strtol(text, &end, 10);
   if (errno || end == text || *end || v < min || v > max)
      return Cli_usage(cmd, "%s must be an integer from %ld to %ld, not '%s'", what, min, max, text);
   *out = v;
   return 0;
}

int Cli_loadNetwork(const char *file, Network *net) {
   char *path = Paths_findTaskFile(file);
   char *cause = NULL;
   int rc = Network_load(net, path, &cause);
   free(path);
   if (rc < 0) {
      fprintf(stderr, "pruner-tui: %s\n", cause);
      free(cause);
      return EXIT_INPUT;
   }
   return 0;
}


char *Cli_readStateArg(const char *arg, char **cause) {
   if (arg[0] != '@')
      return xStrdup(arg);
   FILE *f = fopen(arg + 1, "rb");
   if (!f) {
      setCause(cause, "%s: cannot open: %s", arg + 1, strerror(errno));
      return NULL;
   }
   size_t cap = 4096, len = 0;
   char *text = xMalloc(cap);
   size_t n;
   while ((n = fread(text + len, 1, cap - len - 1, f)) > 0) {
      len += n;
      if (len + 1 == cap)
         text = xRealloc(text, cap *= 2);
   }
   fclose(f);
   text[len] = '\0';
   return text;
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

int Cli_checkDevice(const char *cmd, const char *device) {
   if (strcmp(device, "auto") == 0 || strncmp(device, "cuda:", 5) == 0 || strncmp(device, "sim:", 4) == 0)
      return 0;
   return Cli_usage(cmd, "--device takes auto, cuda:N or sim:PROFILE, not '%s'", device);
}
