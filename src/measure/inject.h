/* Deliberately broken programs, for testing that measurement catches them on the GPU
 * and in the simulator alike: the fault is put into the loop nest, so both the CUDA
 * source and the CPU executor see it. Only tests and `measure --inject` use it. */
#ifndef HEADER_inject
#define HEADER_inject

#include "ir/loopnest.h"

typedef enum {
   INJECT_NONE,
   INJECT_WRONG,                /* the output is scaled by 1.5 */
   INJECT_OOB,                  /* every thread of the last kernel stores 256 GiB past the output */
   INJECT_HANG,                 /* the last kernel repeats its work 2^30 times */
} InjectKind;

/* "none", "wrong", "oob", "hang" */
const char *Inject_name(InjectKind k);
/* The kind named `name`, or -1. */
int Inject_parse(const char *name);
/* Alters ln, a lowered program, as k says. */
void Inject_apply(LoopNest *ln, InjectKind k);

#endif
