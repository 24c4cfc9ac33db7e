/* k-means++ and Lloyd's iterations (see kmeans.h). */
#include "config.h"

#include "util/kmeans.h"

#include <float.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/rng.h"
#include "util/xalloc.h"

static double dist2(const float *a, const double *c, int d) {
   double s = 0;
   for (int j = 0; j < d; j++) {
      double t = a[j] - c[j];
      s += t * t;
   }
   return s;
}

static void setCentre(double *c, const float *p, int d) {
   for (int j = 0; j < d; j++)
      c[j] = p[j];
}

/* k-means++: the first centre a point drawn uniformly, each next one a point drawn
 * with probability proportional to its squared distance to the nearest centre. */
static void seedCentres(const float *x, int n, int d, int k, Rng *rng, double *centre) {
   double *near = xMalloc((size_t)n * sizeof *near);
   int first = (int)Rng_below(rng, (uint64_t)n);
   setCentre(centre, x + (size_t)first * d, d);
   for (int i = 0; i < n; i++)
      near[i] = dist2(x + (size_t)i * d, centre, d);
   for (int c = 1; c < k; c++) {
      double total = 0;
      for (int i = 0; i < n; i++)
         total += near[i];
      int pick = 0;
      if (total > 0) {
         double r = Rng_uniform(rng) * total;
         for (pick = 0; pick < n - 1 && r >= near[pick]; pick++)
            r -= near[pick];
      } else {
         pick = (int)Rng_below(rng, (uint64_t)n);   /* every point is a centre already */
      }
      double *cc = centre + (size_t)c * d;
      setCentre(cc, x + (size_t)pick * d, d);
      for (int i = 0; i < n; i++) {
         double t = dist2(x + (size_t)i * d, cc, d);
         if (t < near[i])
            near[i] = t;
      }
   }
   free(near);
}

static int nearestCentre(const float *p, const double *centre, int k, int d, double *best) {
   int at = 0;
   *best = DBL_MAX;
   for (int c = 0; c < k; c++) {
      double t = dist2(p, centre + (size_t)c * d, d);
      if (t < *best) {
         *best = t;
         at = c;
      }
   }
   return at;
}

int KMeans_select(const float *x, int n, int d, int k, uint64_t seed, int *chosen) {
   if (k >= n) {
      for (int i = 0; i < n; i++)
         chosen[i] = i;
      return n < 0 ? 0 : n;
   }
   if (k <= 0)
      return 0;
   Rng rng;
   Rng_seed(&rng, seed);
   double *centre = xCalloc((size_t)k * d, sizeof *centre);
   int *assign = xMalloc((size_t)n * sizeof *assign), *count = xMalloc((size_t)k * sizeof *count);
   double *gap = xMalloc((size_t)n * sizeof *gap);
   seedCentres(x, n, d, k, &rng, centre);
   for (int i = 0; i < n; i++)
      assign[i] = -1;
   for (int it = 0; it < KMEANS_MAX_ITERATIONS; it++) {
      bool moved = false;
      for (int i = 0; i < n; i++) {
         int c = nearestCentre(x + (size_t)i * d, centre, k, d, &gap[i]);
         moved |= c != assign[i];
         assign[i] = c;
      }
      if (!moved && it > 0)
         break;
      memset(centre, 0, (size_t)k * d * sizeof *centre);
      memset(count, 0, (size_t)k * sizeof *count);
      for (int i = 0; i < n; i++) {
         count[assign[i]]++;
         for (int j = 0; j < d; j++)
            centre[(size_t)assign[i] * d + j] += x[(size_t)i * d + j];
      }
      for (int c = 0; c < k; c++) {
         if (count[c] > 0) {
            for (int j = 0; j < d; j++)
               centre[(size_t)c * d + j] /= count[c];
            continue;
         }
         /* an empty cluster takes the point farthest from its own centre */
         int far = 0;
         for (int i = 1; i < n; i++)
            if (gap[i] > gap[far])
               far = i;
         setCentre(centre + (size_t)c * d, x + (size_t)far * d, d);
         gap[far] = 0;
      }
   }
   /* each cluster's member nearest its centre */
   int m = 0;
   for (int c = 0; c < k; c++) {
      int best = -1;
      double bestD = DBL_MAX;
      for (int i = 0; i < n; i++) {
         if (assign[i] != c)
            continue;
         double t = dist2(x + (size_t)i * d, centre + (size_t)c * d, d);
         if (t < bestD) {
            bestD = t;
            best = i;
         }
      }
      if (best >= 0)
         chosen[m++] = best;
   }
   /* clusters that ended empty (points that coincide): the points farthest from their
    * centres not chosen yet */
   bool *taken = xCalloc((size_t)n, sizeof *taken);
   for (int i = 0; i < m; i++)
      taken[chosen[i]] = true;
   while (m < k) {
      int far = -1;
      for (int i = 0; i < n; i++)
         if (!taken[i] && (far < 0 || gap[i] > gap[far]))
            far = i;
      taken[far] = true;
      chosen[m++] = far;
   }
   free(taken);
   free(gap);
   free(count);
   free(assign);
   free(centre);
   return m;
}
