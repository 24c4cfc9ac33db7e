/* Data and configuration file lookup. */
#include "config.h"

#include "util/paths.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/xalloc.h"

static char *existing(const char *dir, const char *rel) {
   if (!dir || !*dir)
      return NULL;
   char *p = xAsprintf("%s/%s", dir, rel);
   if (access(p, R_OK) == 0)
      return p;
   free(p);
   return NULL;
}

char *Paths_dataFile(const char *rel) {
   char *p = existing(getenv("PRUNER_TUI_DATADIR"), rel);
   if (!p)
      p = existing(PKGDATADIR, rel);
   if (!p)
      p = existing(TOP_SRCDIR, rel);
   return p;
}

char *Paths_findTaskFile(const char *name) {
   if (strchr(name, '/') || access(name, F_OK) == 0)
      return xStrdup(name);
   char *rel = xAsprintf("models/%s", name);
   char *p = Paths_dataFile(rel);
   free(rel);
   return p ? p : xStrdup(name);
}

/* $VAR/pruner-tui/rel, or ~/fallback/pruner-tui/rel when VAR is unset or relative */
static char *xdgFile(const char *var, const char *fallback, const char *rel) {
   const char *xdg = getenv(var);
   if (xdg && *xdg == '/')
      return xAsprintf("%s/pruner-tui/%s", xdg, rel);
   const char *home = getenv("HOME");
   return xAsprintf("%s/%s/pruner-tui/%s", home && *home ? home : ".", fallback, rel);
}

char *Paths_findRecordedTaskFile(const char *named) {
   char *file = Paths_findTaskFile(named);
   const char *base = strrchr(named, '/');
   if (access(file, F_OK) != 0 && base && base[1]) {
      char *other = Paths_findTaskFile(base + 1);
      if (access(other, F_OK) == 0) {
         free(file);
         return other;
      }
      free(other);
   }
   return file;
}

char *Paths_configFile(const char *rel) {
   return xdgFile("XDG_CONFIG_HOME", ".config", rel);
}

char *Paths_userDataFile(const char *rel) {
   return xdgFile("XDG_DATA_HOME", ".local/share", rel);
}

char *Paths_userStateFile(const char *rel) {
   return xdgFile("XDG_STATE_HOME", ".local/state", rel);
}

int Paths_makeDirs(const char *dir) {
   char *path = xStrdup(dir);
   int rc = 0;
   for (char *p = path + 1; rc == 0; p++) {
      bool end = *p == '\0';
      if (*p != '/' && !end)
         continue;
      *p = '\0';
      if (mkdir(path, 0777) != 0 && errno != EEXIST)
         rc = -1;
      if (end)
         break;
      *p = '/';
   }
   free(path);
   return rc;
}

char *Paths_readFile(const char *path, size_t max, const char *what, size_t *len, char **cause) {
   FILE *f = fopen(path, "rb");
   if (!f) {
      setCause(cause, "%s: cannot open: %s", path, strerror(errno));
      return NULL;
   }
   /* a regular file's size says at once when it is too big; a pipe tells by reading */
   struct stat st;
   size_t cap = 4096;
   if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
      if ((uintmax_t)st.st_size > max) {
         fclose(f);
         setCause(cause, "%s: over %zu bytes, the most %s may have", path, max, what);
         return NULL;
      }
      cap = (size_t)st.st_size + 2;
   }
   char *text = xMalloc(cap);
   size_t n = 0, got;
   while ((got = fread(text + n, 1, cap - n - 1, f)) > 0) {
      n += got;
      if (n > max)
         break;
      if (n + 1 == cap)
         text = xRealloc(text, cap = cap * 2 > max + 2 ? max + 2 : cap * 2);
   }
   int err = ferror(f) ? errno : 0;
   fclose(f);
   if (err || n > max) {
      if (err)
         setCause(cause, "%s: cannot read: %s", path, strerror(err));
      else
         setCause(cause, "%s: over %zu bytes, the most %s may have", path, max, what);
      free(text);
      return NULL;
   }
   text[n] = '\0';
   *len = n;
   return text;
}
