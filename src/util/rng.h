/* A small seeded random generator (xoshiro256**). Every random choice in the tuner comes
 * from one of these, owned by its task, so a run with the same seed repeats itself. */
#ifndef HEADER_rng
#define HEADER_rng

#include <stdint.h>

typedef struct Rng_ {
   uint64_t s[4];
} Rng;

void Rng_seed(Rng *r, uint64_t seed);
uint64_t Rng_next(Rng *r);
/* Uniform in [0, n), without modulo bias; n > 0. */
uint64_t Rng_below(Rng *r, uint64_t n);
/* Uniform in [0, 1). */
double Rng_uniform(Rng *r);

#endif
