/* xoshiro256** seeded through splitmix64, as its authors recommend. */
#include "config.h"

#include "util/rng.h"

static uint64_t splitmix(uint64_t *x) {
   uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
   z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
   return z ^ (z >> 31);
}

void Rng_seed(Rng *r, uint64_t seed) {
   for (int i = 0; i < 4; i++)
      r->s[i] = splitmix(&seed);
}

static uint64_t rotl(uint64_t x, int k) {
   return (x << k) | (x >> (64 - k));
}

uint64_t Rng_next(Rng *r) {
   uint64_t *s = r->s;
   uint64_t result = rotl(s[1] * 5, 7) * 9;
   uint64_t t = s[1] << 17;
   s[2] ^= s[0];
   s[3] ^= s[1];
   s[1] ^= s[2];
   s[0] ^= s[3];
   s[2] ^= t;
   s[3] = rotl(s[3], 45);
   return result;
}

uint64_t Rng_below(Rng *r, uint64_t n) {
   /* reject the top partial block so every value is equally likely */
   uint64_t limit = UINT64_MAX - UINT64_MAX % n;
   uint64_t x;
   do
      x = Rng_next(r);
   while (x >= limit);
   return x % n;
}

double Rng_uniform(Rng *r) {
   return (double)(Rng_next(r) >> 11) * 0x1.0p-53;
}
