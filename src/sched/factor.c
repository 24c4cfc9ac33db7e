/* Enumerating factorization schemes for tile-size sampling. */
#include "config.h"

#include "sched/factor.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

int Factor_divisors(int64_t n, int64_t *out, int max) {
   int count = 0, high = 0;
   int64_t upper[128];
   for (int64_t d = 1; d * d <= n; d++) {
      if (n % d)
         continue;
      if (count < max)
         out[count] = d;
      count++;
      if (d != n / d && high < 128)
         upper[high++] = n / d;
   }
   for (int i = high - 1; i >= 0; i--) {
      if (count < max)
         out[count] = upper[i];
      count++;
   }
   return count;
}

typedef struct {
   FactorSchemes *fs;
   int cap;
   int32_t cur[FACTOR_MAX_PARTS];
   int64_t maxInnermost;
} Builder;

static void emit(Builder *b) {
   FactorSchemes *fs = b->fs;
   if (fs->count == b->cap) {
      b->cap = b->cap ? 2 * b->cap : 64;
      fs->lengths = xReallocArray(fs->lengths, (size_t)b->cap * (size_t)fs->nparts, sizeof(int32_t));
   }
   memcpy(fs->lengths + (int64_t)fs->count * fs->nparts, b->cur, (size_t)fs->nparts * sizeof(int32_t));
   fs->count++;
}

/* Part `level` takes a divisor of what the earlier parts left. */
static void walk(Builder *b, int level, int64_t remaining) {
   int64_t divs[512];
   int n = Factor_divisors(remaining, divs, 512);
   if (n > 512)
      fatal("extent %lld has more than 512 divisors", (long long)remaining);
   for (int i = 0; i < n; i++) {
      if (level == b->fs->nparts - 1 && divs[i] > b->maxInnermost)
         break;
      b->cur[level] = (int32_t)divs[i];
      if (level == b->fs->nparts - 1)
         emit(b);
      else
         walk(b, level + 1, remaining / divs[i]);
   }
}

void FactorSchemes_build(FactorSchemes *fs, int64_t extent, int nparts, int64_t maxInnermost) {
   if (nparts < 1 || nparts > FACTOR_MAX_PARTS || extent < 1)
      fatal("factorization of %lld into %d parts", (long long)extent, nparts);
   memset(fs, 0, sizeof *fs);
   fs->extent = extent;
   fs->nparts = nparts;
   Builder b = { .fs = fs, .maxInnermost = maxInnermost };
   walk(&b, 0, extent);
}

void FactorSchemes_done(FactorSchemes *fs) {
   free(fs->lengths);
   memset(fs, 0, sizeof *fs);
}
