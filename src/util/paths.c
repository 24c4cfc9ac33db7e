/* Data and configuration file lookup. */
#include "config.h"

#include "util/paths.h"

#include <stdlib.h>
#include <string.h>
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

char *Paths_configFile(const char *rel) {
   const char *xdg = getenv("XDG_CONFIG_HOME");
   if (xdg && *xdg == '/')
      return xAsprintf("%s/pruner-tui/%s", xdg, rel);
   const char *home = getenv("HOME");
   return xAsprintf("%s/.config/pruner-tui/%s", home && *home ? home : ".", rel);
}
