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

int Command_parse(const char *text, int ntasks, Command *out, char **cause) {
   char verb[16], a[64], b[64], extra[2];
   int n = sscanf(text, " %15s %63s %63s %1s", verb, a, b, extra);
   memset(out, 0, sizeof *out);
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
   if (strcmp(verb, "model") == 0 && n == 2) {
      out->kind = COMMAND_MODEL;
      snprintf(out->model, sizeof out->model, "%s", a);
      return 0;
   }
   *cause = xAsprintf("unknown command '%s' (pause, resume, prio, focus, budget, model, stop)", text);
   return -1;
}
