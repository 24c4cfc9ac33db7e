/* The simulator's instruction count against the machine code nvcc makes. For tuned
 * ResNet-50 convolutions (states the search found on sim:a100_40), the generated CUDA
 * is compiled with NVRTC for sm_80 twice: with `#pragma unroll 1` and `#pragma unroll 2`
 * on the serial loop over the input channels. Every loop inside it is unrolled, so the
 * second image is longer by exactly one iteration's SASS, and since each SASS
 * instruction is 16 bytes, the difference of the .text sections counts the
 * instructions one iteration issues; the rest of the first image runs once. That is
 * what one warp issues, which the simulator counts (Sim_count, with ptxas' registers)
 * from the loop nest alone: the two must agree within 25%. Without NVRTC, nothing is
 * compiled and the test says so. */
#include "config.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "codegen/cuda.h"
#include "ir/lower.h"
#include "measure/nvrtc.h"
#include "sched/sketch.h"
#include "sched/state.h"
#include "sim/sim.h"
#include "util/xalloc.h"

#define SASS_BYTES 16           /* one instruction, from Volta on */
#define TOLERANCE 1.25

static DeviceSet devices;
static const Device *a100;
static Network net;

static int setup(void **state) {
   (void)state;
   TestUtil_loadDevices(&devices);
   a100 = DeviceSet_find(&devices, "a100_40");
   TestUtil_loadNetwork(&net, "models/resnet_50.task");
   return a100 ? 0 : -1;
}

static int teardown(void **state) {
   (void)state;
   Network_done(&net);
   DeviceSet_done(&devices);
   return 0;
}

/* The bytes of the executable sections (.text.KERNEL) of a CUBIN, an ELF64 image. */
static size_t textBytes(const NvrtcResult *r) {
   const unsigned char *img = r->cubin;
   assert_true(r->cubinSize >= sizeof(Elf64_Ehdr));
   Elf64_Ehdr eh;
   memcpy(&eh, img, sizeof eh);
   assert_memory_equal(eh.e_ident, ELFMAG, SELFMAG);
   assert_true(eh.e_ident[EI_CLASS] == ELFCLASS64);
   assert_true(eh.e_shoff + (size_t)eh.e_shnum * sizeof(Elf64_Shdr) <= r->cubinSize);
   Elf64_Shdr names;
   memcpy(&names, img + eh.e_shoff + (size_t)eh.e_shstrndx * sizeof names, sizeof names);
   size_t total = 0;
   for (int i = 0; i < eh.e_shnum; i++) {
      Elf64_Shdr sh;
      memcpy(&sh, img + eh.e_shoff + (size_t)i * sizeof sh, sizeof sh);
      assert_true(names.sh_offset + sh.sh_name < r->cubinSize);
      if (strncmp((const char *)img + names.sh_offset + sh.sh_name, ".text.", 6) == 0)
         total += sh.sh_size;
   }
   return total;
}

/* The source with `#pragma unroll N` before the loop `for (int LOOP = 0; ...`. */
static char *withPragma(const char *src, const char *loop, int unroll) {
   char needle[64];
   snprintf(needle, sizeof needle, "for (int %s = 0;", loop);
   const char *at = strstr(src, needle);
   if (!at)
      fail_msg("no loop %s in the generated source", loop);
   const char *line = at;
   while (line > src && line[-1] != '\n')
      line--;
   return xAsprintf("%.*s#pragma unroll %d\n%s", (int)(line - src), src, unroll, line);
}

typedef struct {
   int task;
   const char *state;
   const char *loop;            /* the serial loop over the input channels */
} Case;

static void checkCase(const Case *c, double *ratio) {
   SketchSet set;
   SketchSet_forOp(&set, &net.tasks[c->task].op);
   SchedLimits lim;
   SchedLimits_fromDevice(&lim, a100);
   State s;
   char *cause = NULL;
   if (State_parse(&set, c->state, &lim, &s, &cause) < 0)
      fail_msg("task %d: %s", c->task, cause);
   LoopNest ln;
   LoopNest_init(&ln);
   Lower_state(&set, &s, &ln);
   assert_int_equal(ln.nkernels, 1);
   int64_t trips = -1;
   for (int v = 0; v < ln.nvars; v++)
      if (strcmp(ln.vars[v].name, c->loop) == 0)
         trips = ln.vars[v].extent;
   assert_true(trips > 1);
   char *src = Cuda_generate(&ln, "");
   size_t text[2];
   NvrtcResult res[2];
   for (int u = 0; u < 2; u++) {
      char *variant = withPragma(src, c->loop, u + 1);
      if (Nvrtc_compile(variant, "sass.cu", "sm_80", &res[u], &cause) < 0)
         fail_msg("task %d: %s", c->task, cause);
      text[u] = textBytes(&res[u]);
      free(variant);
   }
   double body = (double)(text[1] - text[0]) / SASS_BYTES, once = (double)text[0] / SASS_BYTES - body;
   double sass = body * (double)trips + once;
   SimGpu gpu;
   if (SimGpu_init(&gpu, a100, &cause) < 0)
      fail_msg("%s", cause);
   const NvrtcKernelInfo *k = &res[0].kernels[0];
   SimCompiled ptx = { k->registers, k->spillStores, k->spillLoads, k->stackBytes };
   const SimCompiled *per[1] = { &ptx };
   SimProgram *prog = xMalloc(sizeof *prog);
   if (Sim_count(&gpu, &ln, per, prog, &cause) < 0)
      fail_msg("task %d: %s", c->task, cause);
   double sim = prog->kernels[0].instr;
   *ratio = sim / sass;
   printf("# task %2d: SASS %4.0f a %s iteration x %3lld + %4.0f once = %6.0f; simulated %6.0f: %.2f\n", c->task, body,
          c->loop, (long long)trips, once, sass, sim, *ratio);
   free(prog);
   for (int u = 0; u < 2; u++)
      NvrtcResult_done(&res[u]);
   free(src);
   LoopNest_done(&ln);
   SketchSet_done(&set);
}

static void test_instructions_match_nvcc(void **state) {
   (void)state;
   static const Case cases[] = {
      { 3, "{\"v\":1,\"sketch\":0,\"knobs\":{\"conv2d_nchw.nn\":[1,1,1,1],\"conv2d_nchw.ff\":[1,8,1,2],"
           "\"conv2d_nchw.yy\":[1,4,2,1],\"conv2d_nchw.xx\":[1,4,1,1],\"conv2d_nchw.rc\":[2,2],"
           "\"conv2d_nchw.ry\":[3,1],\"conv2d_nchw.rx\":[1,3],\"kernel.shared.vector\":1,"
           "\"pad_temp.shared.vector\":1,\"conv2d_nchw.unroll\":512}}",
        "rc_outer" },
      { 7, "{\"v\":1,\"sketch\":0,\"knobs\":{\"conv2d_nchw.nn\":[1,1,1,1],\"conv2d_nchw.ff\":[1,8,1,2],"
           "\"conv2d_nchw.yy\":[1,2,7,1],\"conv2d_nchw.xx\":[1,2,2,1],\"conv2d_nchw.rc\":[8,1],"
           "\"conv2d_nchw.ry\":[1,1],\"conv2d_nchw.rx\":[1,1],\"data.shared.vector\":4,"
           "\"kernel.shared.vector\":1,\"conv2d_nchw.unroll\":16}}",
        "rc_outer" },
      { 12, "{\"v\":1,\"sketch\":0,\"knobs\":{\"conv2d_nchw.nn\":[1,1,1,1],\"conv2d_nchw.ff\":[1,4,2,1],"
            "\"conv2d_nchw.yy\":[1,4,1,1],\"conv2d_nchw.xx\":[1,2,1,2],\"conv2d_nchw.rc\":[4,1],"
            "\"conv2d_nchw.ry\":[3,1],\"conv2d_nchw.rx\":[3,1],\"kernel.shared.vector\":1,"
            "\"pad_temp.shared.vector\":1,\"conv2d_nchw.unroll\":512}}",
        "rc_outer" },
      { 14, "{\"v\":1,\"sketch\":0,\"knobs\":{\"conv2d_nchw.nn\":[1,1,1,1],\"conv2d_nchw.ff\":[1,8,1,2],"
            "\"conv2d_nchw.yy\":[1,1,1,2],\"conv2d_nchw.xx\":[1,14,1,1],\"conv2d_nchw.rc\":[1,2],"
            "\"conv2d_nchw.ry\":[1,3],\"conv2d_nchw.rx\":[1,3],\"kernel.shared.vector\":1,"
            "\"pad_temp.shared.vector\":1,\"conv2d_nchw.unroll\":1024}}",
        "rc_outer" },
      { 18, "{\"v\":1,\"sketch\":0,\"knobs\":{\"conv2d_nchw.nn\":[1,1,1,1],\"conv2d_nchw.ff\":[1,2,2,1],"
            "\"conv2d_nchw.yy\":[1,2,1,1],\"conv2d_nchw.xx\":[1,14,1,1],\"conv2d_nchw.rc\":[8,1],"
            "\"conv2d_nchw.ry\":[1,3],\"conv2d_nchw.rx\":[1,3],\"kernel.shared.vector\":1,"
            "\"pad_temp.shared.vector\":1,\"conv2d_nchw.unroll\":1024}}",
        "rc_outer" },
      { 20, "{\"v\":1,\"sketch\":0,\"knobs\":{\"conv2d_nchw.nn\":[1,1,1,1],\"conv2d_nchw.ff\":[1,8,1,1],"
            "\"conv2d_nchw.yy\":[1,1,1,1],\"conv2d_nchw.xx\":[1,7,1,1],\"conv2d_nchw.rc\":[8,1],"
            "\"conv2d_nchw.ry\":[3,1],\"conv2d_nchw.rx\":[1,3],\"kernel.shared.vector\":1,"
            "\"pad_temp.shared.vector\":1,\"conv2d_nchw.unroll\":512}}",
        "rc_outer" },
      { 24, "{\"v\":1,\"sketch\":0,\"knobs\":{\"conv2d_nchw.nn\":[1,1,1,1],\"conv2d_nchw.ff\":[1,8,1,1],"
            "\"conv2d_nchw.yy\":[1,1,1,1],\"conv2d_nchw.xx\":[1,7,1,1],\"conv2d_nchw.rc\":[8,1],"
            "\"conv2d_nchw.ry\":[3,1],\"conv2d_nchw.rx\":[1,3],\"kernel.shared.vector\":1,"
            "\"pad_temp.shared.vector\":1,\"conv2d_nchw.unroll\":512}}",
        "rc_outer" },
   };
   int off = 0;
   char failures[1024] = "";
   size_t used = 0;
   for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      double ratio;
      checkCase(&cases[i], &ratio);
      if (!(ratio >= 1 / TOLERANCE && ratio <= TOLERANCE)) {
         off++;
         if (used < sizeof failures)
            used += (size_t)snprintf(failures + used, sizeof failures - used, " task %d: %.2f", cases[i].task,
                                     ratio);
      }
   }
   if (off)
      fail_msg("simulated / SASS instructions outside %.2f-%.2f:%s", 1 / TOLERANCE, TOLERANCE, failures);
}

int main(void) {
   char *cause = NULL;
   if (Nvrtc_open(&cause) < 0) {
      int rc = TestUtil_skipAll(cause);
      free(cause);
      return rc;
   }
   const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_instructions_match_nvcc, setup, teardown),
   };
   return cmocka_run_group_tests_name("sass", tests, NULL, NULL);
}
