/* The state set: members in a growing array, an index table of twice their number or
 * more, rebuilt when it grows. */
#include "config.h"

#include "search/stateset.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void StateSet_init(StateSet *s) {
   memset(s, 0, sizeof *s);
}

void StateSet_done(StateSet *s) {
   free(s->states);
   free(s->hashes);
   free(s->slots);
   memset(s, 0, sizeof *s);
}

void StateSet_clear(StateSet *s) {
   s->n = 0;
   if (s->slots)
      memset(s->slots, 0xff, (size_t)s->nslots * sizeof *s->slots);
}

static int findSlot(const StateSet *s, const State *st, uint64_t h) {
   int mask = s->nslots - 1;
   for (int i = (int)(h & (uint64_t)mask);; i = (i + 1) & mask) {
      int32_t m = s->slots[i];
      if (m < 0 || (s->hashes[m] == h && State_equal(&s->states[m], st)))
         return i;
   }
}

int StateSet_find(const StateSet *s, const State *st) {
   if (s->n == 0)
      return -1;
   return s->slots[findSlot(s, st, State_hash(st))];
}

static void grow(StateSet *s) {
   s->cap = s->cap ? 2 * s->cap : 256;
   s->states = xReallocArray(s->states, (size_t)s->cap, sizeof *s->states);
   s->hashes = xReallocArray(s->hashes, (size_t)s->cap, sizeof *s->hashes);
   s->nslots = 4 * s->cap;
   free(s->slots);
   s->slots = xMalloc((size_t)s->nslots * sizeof *s->slots);
   memset(s->slots, 0xff, (size_t)s->nslots * sizeof *s->slots);
   int mask = s->nslots - 1;
   for (int m = 0; m < s->n; m++) {
      int i = (int)(s->hashes[m] & (uint64_t)mask);
      while (s->slots[i] >= 0)
         i = (i + 1) & mask;
      s->slots[i] = m;
   }
}

int StateSet_add(StateSet *s, const State *st, bool *added) {
   uint64_t h = State_hash(st);
   if (s->n == s->cap)
      grow(s);
   int i = findSlot(s, st, h);
   if (s->slots[i] >= 0) {
      if (added)
         *added = false;
      return s->slots[i];
   }
   int m = s->n++;
   s->states[m] = *st;
   s->hashes[m] = h;
   s->slots[i] = m;
   if (added)
      *added = true;
   return m;
}
