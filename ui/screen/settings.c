/* The workbench's settings file: parsing, formatting, loading and saving. */
#include "config.h"

#include "settings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/paths.h"
#include "util/xalloc.h"

#define SETTINGS_MAX_BYTES 65536

static const char *const curveNames[CURVE_COUNT] = { "trials", "time", "task" };

void Settings_default(Settings *s) {
   memset(s, 0, sizeof *s);
   s->sort = SORT_ID;
   s->descending = SortKey_descending(SORT_ID);
   s->curve = CURVE_TRIALS;
}

void Settings_fromBoard(Settings *s, const Board *b) {
   Settings_default(s);
   s->hidden = b->hidden;
   s->sort = b->sort;
   s->descending = b->descending;
   s->curve = b->curve;
   s->logScale = b->logScale;
   s->follow = b->follow;
}

void Settings_toBoard(const Settings *s, Board *b) {
   b->hidden = s->hidden;
   Board_sort(b, s->sort);
   if (b->descending != s->descending)
      Board_sortDirection(b, s->descending);
   b->curve = s->curve;
   b->logScale = s->logScale;
   Board_follow(b, s->follow);
}

static char *trim(char *p) {
   while (*p == ' ' || *p == '\t')
      p++;
   char *end = p + strlen(p);
   while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
      *--end = '\0';
   return p;
}

/* value's columns as the hidden bits; -1 with *bad the first word that names none */
static int parseColumns(char *value, unsigned *hidden, char **bad) {
   unsigned shown = 0;
   for (char *save = NULL, *w = strtok_r(value, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
      int found = -1;
      for (int c = 0; c < COLUMN_COUNT && found < 0; c++)
         if (strcmp(w, Layout_columns[c].name) == 0)
            found = c;
      if (found < 0) {
         *bad = w;
         return -1;
      }
      shown |= 1u << found;
   }
   *hidden = 0;
   for (int c = 0; c < COLUMN_COUNT; c++)
      if (Layout_hideable((Column)c) && !(shown & (1u << c)))
         *hidden |= 1u << c;
   return 0;
}

static int parseLine(char *line, Settings *s, char **why) {
   char *eq = strchr(line, '=');
   if (!eq) {
      *why = xAsprintf("expected KEY = VALUE, found '%s'", line);
      return -1;
   }
   *eq = '\0';
   char *key = trim(line), *value = trim(eq + 1);
   if (strcmp(key, "columns") == 0) {
      char *bad = NULL;
      if (parseColumns(value, &s->hidden, &bad) < 0) {
         *why = xAsprintf("columns: '%s' is not a column (Wt Lat(ms) Share GFLOPS Trials Roof Idle Prio State)",
                          bad);
         return -1;
      }
      return 0;
   }
   if (strcmp(key, "sort") == 0) {
      for (int k = 0; k < SORT_COUNT; k++)
         if (strcmp(value, SortKey_name((SortKey)k)) == 0) {
            s->sort = (SortKey)k;
            return 0;
         }
      *why = xAsprintf("sort: expected id, share, latency, trials or roofline, found '%s'", value);
      return -1;
   }
   if (strcmp(key, "order") == 0) {
      if (strcmp(value, "ascending") == 0 || strcmp(value, "descending") == 0) {
         s->descending = value[0] == 'd';
         return 0;
      }
      *why = xAsprintf("order: expected ascending or descending, found '%s'", value);
      return -1;
   }
   if (strcmp(key, "curve") == 0) {
      for (int k = 0; k < CURVE_COUNT; k++)
         if (strcmp(value, curveNames[k]) == 0) {
            s->curve = (CurveKind)k;
            return 0;
         }
      *why = xAsprintf("curve: expected trials, time or task, found '%s'", value);
      return -1;
   }
   if (strcmp(key, "scale") == 0) {
      if (strcmp(value, "linear") == 0 || strcmp(value, "log") == 0) {
         s->logScale = value[1] == 'o';
         return 0;
      }
      *why = xAsprintf("scale: expected linear or log, found '%s'", value);
      return -1;
   }
   if (strcmp(key, "follow") == 0) {
      if (strcmp(value, "yes") == 0 || strcmp(value, "no") == 0) {
         s->follow = value[0] == 'y';
         return 0;
      }
      *why = xAsprintf("follow: expected yes or no, found '%s'", value);
      return -1;
   }
   *why = xAsprintf("unknown key '%s' (columns, sort, order, curve, scale, follow)", key);
   return -1;
}

int Settings_parse(const char *text, const char *file, Settings *s, char **cause) {
   char *copy = xStrdup(text);
   int lineNo = 0, rc = 0;
   for (char *p = copy; p && *p && rc == 0;) {
      char *end = strchr(p, '\n');
      if (end)
         *end = '\0';
      lineNo++;
      char *hash = strchr(p, '#');
      if (hash)
         *hash = '\0';
      char *line = trim(p);
      char *why = NULL;
      if (*line && parseLine(line, s, &why) < 0) {
         *cause = xAsprintf("%s:%d: %s", file, lineNo, why);
         free(why);
         rc = -1;
      }
      p = end ? end + 1 : NULL;
   }
   free(copy);
   return rc;
}

char *Settings_format(const Settings *s) {
   char columns[256] = "";
   size_t used = 0;
   for (int c = 0; c < COLUMN_COUNT; c++)
      if (Layout_hideable((Column)c) && !(s->hidden & (1u << c)))
         used += (size_t)snprintf(columns + used, sizeof columns - used, "%s%s", used ? " " : "",
                                  Layout_columns[c].name);
   return xAsprintf("# pruner-tui's workbench settings, written by the setup screen (F2) and on quitting\n"
                    "columns = %s\n"
                    "sort = %s\n"
                    "order = %s\n"
                    "curve = %s\n"
                    "scale = %s\n"
                    "follow = %s\n",
                    columns, SortKey_name(s->sort), s->descending ? "descending" : "ascending",
                    curveNames[s->curve], s->logScale ? "log" : "linear", s->follow ? "yes" : "no");
}

int Settings_load(const char *path, Settings *s, char **cause) {
   if (access(path, F_OK) != 0 && errno == ENOENT)
      return 0;
   size_t len;
   char *text = Paths_readFile(path, SETTINGS_MAX_BYTES, "a settings file", &len, cause);
   if (!text)
      return -1;
   int rc = Settings_parse(text, path, s, cause);
   free(text);
   return rc;
}

int Settings_save(const char *path, const Settings *s, char **cause) {
   char *dir = xStrdup(path);
   char *slash = strrchr(dir, '/');
   if (slash && slash != dir) {
      *slash = '\0';
      if (Paths_makeDirs(dir) < 0) {
         *cause = xAsprintf("%s: %s", dir, strerror(errno));
         free(dir);
         return -1;
      }
   }
   free(dir);
   char *tmp = xAsprintf("%s.tmp.%ld", path, (long)getpid());
   char *text = Settings_format(s);
   FILE *f = fopen(tmp, "w");
   bool ok = f && fputs(text, f) >= 0;
   ok = f && fclose(f) == 0 && ok;
   if (!ok || rename(tmp, path) != 0) {
      *cause = xAsprintf("%s: %s", ok ? path : tmp, strerror(errno));
      unlink(tmp);
      free(tmp);
      free(text);
      return -1;
   }
   free(tmp);
   free(text);
   return 0;
}
