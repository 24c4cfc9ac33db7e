/* One walk over a loop nest that computes PSA's symbols (cost/psa.h) and the
 * learned models' features (cost/features.h). The search runs it on thousands of
 * states per round, so an Analysis holds all of its scratch memory: make one per
 * thread, reuse it for every state; a run allocates nothing and takes no lock. */
#ifndef HEADER_analysis
#define HEADER_analysis

#include "cost/features.h"
#include "cost/psa.h"
#include "ir/loopnest.h"

typedef struct Analysis_ Analysis;

Analysis *Analysis_new(void);
void Analysis_free(Analysis *a);

/* Analyses ln. Either output may be NULL: PSA alone skips the region analysis that
 * only the features need. */
void Analysis_run(Analysis *a, const LoopNest *ln, PsaSymbols *psa, Features *features);

#endif
