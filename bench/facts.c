/* The simulator's fact table (bench/sim/FACTS.md): per profile held there, every fact
 * with its source value, the simulated value, their ratio and whether the simulated
 * value lies within the tolerance. Arguments: profiles (default a100_40 h100_sxm
 * v100); other profiles of devices.yaml print the simulated values against the
 * same-named column of none. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "device/device.h"
#include "sim/facts.h"
#include "util/paths.h"

static void printProfile(const Device *d) {
   double v[FACT_COUNT];
   char *cause = NULL;
   if (Facts_simulate(d, v, &cause) < 0) {
      fprintf(stderr, "bench-facts: %s\n", cause);
      free(cause);
      return;
   }
   int p = Facts_profileIndex(d->name);
   printf("\n### sim:%s\n\n", d->name);
   printf("| fact | unit | source value | simulated | ratio | tolerance | within |\n");
   printf("|---|---|---|---|---|---|---|\n");
   for (int f = 0; f < FACT_COUNT; f++) {
      const Fact *fact = Facts_get((FactId)f);
      const FactHeld *h = p >= 0 ? &fact->held[p] : NULL;
      char tol[32] = "-", held[32] = "-", ratio[32] = "-", sim[32] = "-";
      const char *within = "-";
      if (isfinite(v[f]))
         snprintf(sim, sizeof sim, "%.4g", v[f]);
      if (h && h->kind != FACT_TOL_NONE) {
         FactHeld_formatTolerance(h, tol, sizeof tol);
         snprintf(held, sizeof held, "%g", h->value);
         if (isfinite(v[f]))
            snprintf(ratio, sizeof ratio, "%.3f", v[f] / h->value);
         within = FactHeld_accepts(h, v[f]) ? "yes" : "**no**";
      }
      printf("| %s | %s | %s | %s | %s | %s | %s |\n", fact->id, fact->unit, held, sim, ratio, tol, within);
   }
}

int main(int argc, char **argv) {
   char *path = Paths_dataFile("devices.yaml");
   char *cause = NULL;
   DeviceSet set;
   DeviceSet_init(&set);
   if (DeviceSet_load(&set, path, &cause) < 0) {
      fprintf(stderr, "bench-facts: %s\n", cause);
      return 1;
   }
   free(path);
   int rc = 0;
   int n = argc > 1 ? argc - 1 : FACT_PROFILES;
   for (int i = 0; i < n; i++) {
      const char *name = argc > 1 ? argv[i + 1] : Facts_profile(i);
      const Device *d = DeviceSet_find(&set, name);
      if (!d) {
         fprintf(stderr, "bench-facts: no profile %s in devices.yaml\n", name);
         rc = 1;
         continue;
      }
      printProfile(d);
   }
   DeviceSet_done(&set);
   return rc;
}
