/* Schedule states' JSON (sched/state.c's State_parse) against the tasks of
 * tests/data/every-kind.task: the first byte picks the task, the rest is the text.
 * Any text either parses to a valid state or says why; a parsed state formats to a text
 * that parses to the same state. */
#include "config.h"

#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>

#include "sched/sketch.h"
#include "sched/state.h"
#include "te/network.h"
#include "util/xalloc.h"

static Network net;
static SketchSet *sets;
static SchedLimits limits;

static void setUp(void) {
   char *path = xAsprintf("%s/tests/data/every-kind.task", Fuzz_srcdir());
   char *cause = NULL;
   if (Network_load(&net, path, &cause) < 0)
      fatal("%s", cause);
   free(path);
   sets = xCalloc((size_t)net.ntasks, sizeof *sets);
   for (int i = 0; i < net.ntasks; i++)
      SketchSet_forOp(&sets[i], &net.tasks[i].op);
   SchedLimits_default(&limits);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
   if (!sets)
      setUp();
   if (size < 1)
      return 0;
   const SketchSet *set = &sets[data[0] % net.ntasks];
   char *text = Fuzz_string(data + 1, size - 1);
   State s;
   char *cause = NULL;
   if (State_parse(set, text, &limits, &s, &cause) < 0) {
      if (!cause || !*cause)
         fatal("a state was refused without a reason");
      free(cause);
      free(text);
      return 0;
   }
   if (State_validate(set, &s, &limits, &cause) < 0)
      fatal("a parsed state is not valid: %s\n%s", cause, text);
   char buf[4096];
   size_t need = State_format(set, &s, buf, sizeof buf);
   if (need >= sizeof buf)
      fatal("a state's text needs %zu bytes", need);
   State back;
   if (State_parse(set, buf, &limits, &back, &cause) < 0)
      fatal("a state's own text does not parse: %s\n%s", cause, buf);
   if (!State_equal(&s, &back))
      fatal("a state's own text parses to another state:\n%s\n%s", text, buf);
   free(text);
   return 0;
}
