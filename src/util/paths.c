/* Data and configuration file lookup. */
#include "config.h"

#include "util/paths.h"

#include <errno.h>
#include <stdbool.h>
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
