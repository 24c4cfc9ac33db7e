/* A set of states keyed by State_hash and State_equal: a task's measured states, the
 * states a search has scored, the picks of a round. Members are kept in the order they
 * were added, each with an index, so a set also maps a state to a slot of the
 * caller's (a score, say). Adding reuses the memory of earlier contents after a
 * clear: a search adds thousands of states a round without allocating. */
#ifndef HEADER_stateset
#define HEADER_stateset

#include <stdbool.h>
#include <stdint.h>

#include "sched/state.h"

typedef struct StateSet_ {
   int n, cap;                  /* members */
   State *states;               /* in the order added */
   uint64_t *hashes;
   int nslots;                  /* 4 x cap, a power of two */
   int32_t *slots;              /* open addressing, linear probing: member index or -1 */
} StateSet;

void StateSet_init(StateSet *s);
void StateSet_done(StateSet *s);
void StateSet_clear(StateSet *s);     /* keeps the memory */

/* The member's index, or -1. */
int StateSet_find(const StateSet *s, const State *st);
static inline bool StateSet_contains(const StateSet *s, const State *st) {
   return StateSet_find(s, st) >= 0;
}
/* Adds st unless it is a member; returns its index either way, *added (may be NULL)
 * says which. */
int StateSet_add(StateSet *s, const State *st, bool *added);
static inline int StateSet_count(const StateSet *s) {
   return s->n;
}
static inline const State *StateSet_at(const StateSet *s, int i) {
   return &s->states[i];
}

#endif
