/* Factorization schemes of a split (Ansor's GetFactorizationSchemes): every ordered
 * tuple (l1, ..., ln) whose product divides the extent, with the innermost ln at most a
 * limit (64). The outer part is extent / (l1...ln). Sampling a tile size is picking one
 * tuple uniformly, so the list is built once per distinct (extent, n) of a task. */
#ifndef HEADER_factor
#define HEADER_factor

#include <stdint.h>

#define FACTOR_MAX_PARTS 4

typedef struct FactorSchemes_ {
   int64_t extent;
   int nparts;
   int count;
   int32_t *lengths;          /* count x nparts, row-major */
} FactorSchemes;

void FactorSchemes_build(FactorSchemes *fs, int64_t extent, int nparts, int64_t maxInnermost);
void FactorSchemes_done(FactorSchemes *fs);
static inline const int32_t *FactorSchemes_row(const FactorSchemes *fs, int i) {
   return fs->lengths + (int64_t)i * fs->nparts;
}

/* The divisors of n in increasing order; returns how many (at most max are stored). */
int Factor_divisors(int64_t n, int64_t *out, int max);

#endif
