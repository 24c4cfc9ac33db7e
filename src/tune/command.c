/* The engine's commands: text into a Command. */
#include "config.h"

#include "tune/command.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* a whole number in [min, max] */
static bool parseLong(const char *text, long min, long max, long *out) {
   char *end;
   errno = 0;
   long v = strtol(text, &end, 10);
   if (end == text || *end || errno || v < min || v > max)
      return false;
   *out = v;
   return true;
}

static bool parseTask(const char *text, int ntasks, int *task) {
   long t;
   if (!parseLong(text, 0, ntasks - 1L, &t))
      return false;
   *task = (int)t;
   return true;
}

static int parseWords(char **w, int n, const char *text, int ntasks, Command *out, char **cause) {
   const char *verb = n > 0 ? w[0] : "", *a = n > 1 ? w[1] : "", *b = n > 2 ? w[2] : "";
   if (n < 1) {
      *cause = xStrdup("an empty command");
      return -1;
   }
   bool pause = strcmp(verb, "pause") == 0, resume = strcmp(verb, "resume") == 0;
   if (strcmp(verb, "stop") == 0 && n == 1) {
      out->kind = COMMAND_STOP;
      return 0;
   }
   if ((pause || resume) && n == 1) {
      out->kind = pause ? COMMAND_PAUSE_ALL : COMMAND_RESUME_ALL;
      return 0;
   }
   if ((pause || resume) && n == 2) {
      if (!parseTask(a, ntasks, &out->task)) {
         *cause = xAsprintf("%s takes a task ID from 0 to %d, not '%s'", verb, ntasks - 1, a);
         return -1;
      }
      out->kind = COMMAND_PRIORITY;
      out->value = pause ? 0.0 : 1.0;
      return 0;
   }
   if (strcmp(verb, "prio") == 0 && n == 3) {
      char *end;
      out->value = strtod(b, &end);
      if (!parseTask(a, ntasks, &out->task) || end == b || *end) {
         *cause = xAsprintf("prio takes a task ID from 0 to %d and a multiplier", ntasks - 1);
         return -1;
      }
      out->kind = COMMAND_PRIORITY;
      return 0;
   }
   if (strcmp(verb, "focus") == 0 && n == 2) {
      if (strcmp(a, "off") == 0) {
         out->kind = COMMAND_FOCUS_OFF;
         return 0;
      }
      if (!parseTask(a, ntasks, &out->task)) {
         *cause = xAsprintf("focus takes a task ID from 0 to %d or off, not '%s'", ntasks - 1, a);
         return -1;
      }
      out->kind = COMMAND_FOCUS;
      return 0;
   }
   if (strcmp(verb, "budget") == 0 && n == 2) {
      long v;
      if (!parseLong(a, 0, 100000000L, &v)) {
         *cause = xAsprintf("budget takes a number of trials, not '%s'", a);
         return -1;
      }
      out->kind = COMMAND_BUDGET;
      out->value = (double)v;
      return 0;
   }
   if (strcmp(verb, "model") == 0 && (n == 2 || n == 3)) {
      if (strlen(a) >= sizeof out->model || strlen(b) >= sizeof out->checkpoint) {
         *cause = xStrdup(strlen(a) >= sizeof out->model ? "model: the kind's name is too long"
                                                          : "model: the checkpoint's path is too long");
         return -1;
      }
      out->kind = COMMAND_MODEL;
      snprintf(out->model, sizeof out->model, "%s", a);
      snprintf(out->checkpoint, sizeof out->checkpoint, "%s", b);
      return 0;
   }
   *cause = xAsprintf("unknown command '%s' (pause, resume, prio, focus, budget, model, stop)", text);
   return -1;
}

/* splits a copy of text at blanks into at most max words; the count, or max + 1 when
 * there are more */
static int words(char *copy, char **w, int max) {
   int n = 0;
   char *save = NULL;
   for (char *t = strtok_r(copy, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
      if (n == max)
         return max + 1;
      w[n++] = t;
   }
   return n;
}

int Command_parse(const char *text, int ntasks, Command *out, char **cause) {
   memset(out, 0, sizeof *out);
   char *copy = xStrdup(text), *w[3];
   int n = words(copy, w, 3);
   int rc = parseWords(w, n, text, ntasks, out, cause);
   free(copy);
   return rc;
}
