/* Breaking a lowered program on purpose. */
#include "config.h"

#include "measure/inject.h"

#include <string.h>

static const char *const names[] = { "none", "wrong", "oob", "hang" };

const char *Inject_name(InjectKind k) {
   return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

int Inject_parse(const char *name) {
   for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      if (strcmp(names[i], name) == 0)
         return (int)i;
   return -1;
}

static int outputBuffer(const LoopNest *ln) {
   for (int b = 0; b < ln->nbuffers; b++)
      if (ln->buffers[b].scope == SCOPE_GLOBAL && ln->buffers[b].output)
         return b;
   return -1;
}

void Inject_apply(LoopNest *ln, InjectKind k) {
   int out = outputBuffer(ln);
   if (k == INJECT_NONE || out < 0 || ln->nkernels == 0)
      return;
   IrKernel *last = &ln->kernels[ln->nkernels - 1];
   switch (k) {
   case INJECT_WRONG: {
      int32_t n = ln->nstmt;
      for (int32_t s = 0; s < n; s++)
         if (ln->stmt[s].kind == STMT_STORE && ln->stmt[s].buffer == out)
            ln->stmt[s].value = Ir_binary(ln, EXPR_MUL, ln->stmt[s].value, Ir_float(ln, 1.5));
      break;
   }
   case INJECT_OOB: {
      int64_t far = ln->buffers[out].elems + ((int64_t)1 << 36);
      int32_t items[2] = { Ir_store(ln, out, Ir_int(ln, far), Ir_float(ln, 0.0)), last->body };
      last->body = Ir_seq(ln, items, 2);
      break;
   }
   case INJECT_HANG: {
      int v = Ir_var(ln, VAR_LOOP, "injected_hang", (int64_t)1 << 30);
      last->body = Ir_for(ln, v, LOOP_SERIAL, last->body);
      break;
   }
   default:
      break;
   }
}
