/* NVRTC: the ptxas report parser on logs captured from CUDA 13.0's NVRTC (always run),
 * then, where NVRTC loads, real compiles: CUBIN images, registers, shared memory,
 * stack, compile errors, the loader's messages and concurrent compiles. */
#include "config.h"

#include "testutil.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "measure/nvrtc.h"
#include "util/xalloc.h"

extern char **environ;

static const NvrtcKernelInfo *kernel(const NvrtcResult *r, const char *name) {
   const NvrtcKernelInfo *k = NvrtcResult_kernel(r, name);
   if (!k)
      fail_msg("no kernel '%s' among the %d reported", name, r->nkernels);
   return k;
}

static void assertKernel(const NvrtcKernelInfo *k, int registers, int sharedBytes,
                         int constBytes, int stackBytes, int spillStores, int spillLoads) {
   assert_int_equal(k->registers, registers);
   assert_int_equal(k->sharedBytes, sharedBytes);
   assert_int_equal(k->constBytes, constBytes);
   assert_int_equal(k->stackBytes, stackBytes);
   assert_int_equal(k->spillStores, spillStores);
   assert_int_equal(k->spillLoads, spillLoads);
}

static void parseOk(const char *log, NvrtcResult *r) {
   char *cause = NULL;
   memset(r, 0, sizeof *r);
   if (Nvrtc_parsePtxasReport(log, r, &cause) != 0)
      fail_msg("%s", cause ? cause : "(no message)");
   assert_null(cause);
}

/* ---- the parser, on real logs ---- */

/* NVRTC 13.0, sm_80, the four kernels of `fourKernels` below (ptxas reports them last
 * first); cmem[0] is there for sm_80. */
static const char logSm80[] =
   "ptxas info    : 0 bytes gmem\n"
   "ptxas info    : Compiling entry function '_Z7mangledPf' for 'sm_80'\n"
   "ptxas info    : Function properties for _Z7mangledPf\n"
   "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
   "ptxas info    : Used 8 registers, used 0 barriers, 360 bytes cmem[0]\n"
   "ptxas info    : Compile time = 1.928 ms\n"
   "ptxas info    : Compiling entry function 'local' for 'sm_80'\n"
   "ptxas info    : Function properties for local\n"
   "ptxas         .     1024 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
   "ptxas info    : Used 32 registers, used 0 barriers, 1024 bytes cumulative stack size, "
   "372 bytes cmem[0]\n"
   "ptxas info    : Compile time = 40.915 ms\n"
   "ptxas info    : Compiling entry function 'tiled' for 'sm_80'\n"
   "ptxas info    : Function properties for tiled\n"
   "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
   "ptxas info    : Used 12 registers, used 1 barriers, 4096 bytes smem, 368 bytes cmem[0]\n"
   "ptxas info    : Compile time = 1.762 ms\n"
   "ptxas info    : Compiling entry function 'add' for 'sm_80'\n"
   "ptxas info    : Function properties for add\n"
   "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
   "ptxas info    : Used 12 registers, used 0 barriers, 380 bytes cmem[0]\n"
   "ptxas info    : Compile time = 1.413 ms\n";

/* The same source for sm_90: no cmem banks listed. */
static const char logSm90[] =
   "ptxas info    : 0 bytes gmem\n"
   "ptxas info    : Compiling entry function '_Z7mangledPf' for 'sm_90'\n"
   "ptxas info    : Function properties for _Z7mangledPf\n"
   "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
   "ptxas info    : Used 10 registers, used 0 barriers\n"
   "ptxas info    : Compile time = 1.789 ms\n"
   "ptxas info    : Compiling entry function 'local' for 'sm_90'\n"
   "ptxas info    : Function properties for local\n"
   "ptxas         .     1024 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
   "ptxas info    : Used 32 registers, used 0 barriers, 1024 bytes cumulative stack size\n"
   "ptxas info    : Compile time = 39.458 ms\n"
   "ptxas info    : Compiling entry function 'tiled' for 'sm_90'\n"
   "ptxas info    : Function properties for tiled\n"
   "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
   "ptxas info    : Used 14 registers, used 1 barriers, 4096 bytes smem\n"
   "ptxas info    : Compile time = 2.139 ms\n"
   "ptxas info    : Compiling entry function 'add' for 'sm_90'\n"
   "ptxas info    : Function properties for add\n"
   "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
   "ptxas info    : Used 12 registers, used 0 barriers\n"
   "ptxas info    : Compile time = 1.762 ms\n";

/* NVRTC 13.0, sm_80 with --maxrregcount=24: a kernel that spills, a __noinline__
 * helper whose properties come after every entry function and must not become a
 * kernel, and a module-level __constant__ (cmem[3] on the gmem line, not a kernel's). */
static const char logSpill[] =
   "ptxas info    : Overriding maximum register limit 256 for 'dyn' with  24 of maxrregcount "
   "option\n"
   "ptxas info    : Overriding maximum register limit 256 for 'spill' with  24 of "
   "maxrregcount option\n"
   "ptxas info    : 0 bytes gmem, 16 bytes cmem[3]\n"
   "ptxas info    : Compiling entry function 'dyn' for 'sm_80'\n"
   "ptxas info    : Function properties for dyn\n"
   "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
   "ptxas info    : Used 10 registers, used 1 barriers, 32 bytes smem, 360 bytes cmem[0]\n"
   "ptxas info    : Compile time = 3.306 ms\n"
   "ptxas info    : Compiling entry function 'spill' for 'sm_80'\n"
   "ptxas info    : Function properties for spill\n"
   "ptxas         .     1552 bytes stack frame, 1284 bytes spill stores, 2624 bytes spill "
   "loads\n"
   "ptxas info    : Used 24 registers, used 0 barriers, 1552 bytes cumulative stack size, "
   "372 bytes cmem[0]\n"
   "ptxas info    : Compile time = 111.863 ms\n"
   "ptxas info    : Function properties for _Z6helperPKfi\n"
   "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n";

/* The shape that CUDA 11 and early 12 print (not captured here: no such toolkit on this
 * machine): frame lines indented without "ptxas .", no "used N barriers", two cmem
 * banks, CRLF line ends, and a warning between the lines. */
static const char logOldStyle[] =
   "ptxas info    : 0 bytes gmem\r\n"
   "ptxas info    : Compiling entry function 'gemm_tile' for 'sm_80'\r\n"
   "ptxas info    : Function properties for gemm_tile\r\n"
   "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\r\n"
   "ptxas warning : Registers are spilled to local memory in function 'gemm_tile'\r\n"
   "ptxas info    : Used 255 registers, 8192 bytes smem, 400 bytes cmem[0], 8 bytes "
   "cmem[2]\r\n";

static void test_parseFourKernelsSm80(void **state) {
   (void)state;
   NvrtcResult r;
   parseOk(logSm80, &r);
   assert_int_equal(r.nkernels, 4);
   /* The report's order, which is the reverse of the source's. */
   assert_string_equal(r.kernels[0].name, "_Z7mangledPf");
   assert_string_equal(r.kernels[1].name, "local");
   assert_string_equal(r.kernels[2].name, "tiled");
   assert_string_equal(r.kernels[3].name, "add");
   assertKernel(kernel(&r, "_Z7mangledPf"), 8, 0, 360, 0, 0, 0);
   assertKernel(kernel(&r, "local"), 32, 0, 372, 1024, 0, 0);
   assertKernel(kernel(&r, "tiled"), 12, 4096, 368, 0, 0, 0);
   assertKernel(kernel(&r, "add"), 12, 0, 380, 0, 0, 0);
   assert_null(NvrtcResult_kernel(&r, "mangled"));
   NvrtcResult_done(&r);
   assert_null(r.kernels);
   assert_int_equal(r.nkernels, 0);
}

static void test_parseSm90WithoutCmem(void **state) {
   (void)state;
   NvrtcResult r;
   parseOk(logSm90, &r);
   assert_int_equal(r.nkernels, 4);
   assertKernel(kernel(&r, "_Z7mangledPf"), 10, 0, -1, 0, 0, 0);
   assertKernel(kernel(&r, "local"), 32, 0, -1, 1024, 0, 0);
   assertKernel(kernel(&r, "tiled"), 14, 4096, -1, 0, 0, 0);
   assertKernel(kernel(&r, "add"), 12, 0, -1, 0, 0, 0);
   NvrtcResult_done(&r);
}

static void test_parseSpillsAndHelper(void **state) {
   (void)state;
   NvrtcResult r;
   parseOk(logSpill, &r);
   assert_int_equal(r.nkernels, 2);
   assertKernel(kernel(&r, "dyn"), 10, 32, 360, 0, 0, 0);
   assertKernel(kernel(&r, "spill"), 24, 0, 372, 1552, 1284, 2624);
   assert_null(NvrtcResult_kernel(&r, "_Z6helperPKfi"));
   /* Parsing again into the same result replaces the kernels (ASan sees no leak). */
   assert_int_equal(Nvrtc_parsePtxasReport(logSm90, &r, NULL), 0);
   assert_int_equal(r.nkernels, 4);
   NvrtcResult_done(&r);
}

static void test_parseOldStyle(void **state) {
   (void)state;
   NvrtcResult r;
   parseOk(logOldStyle, &r);
   assert_int_equal(r.nkernels, 1);
   assertKernel(kernel(&r, "gemm_tile"), 255, 8192, 408, 8, 4, 4);
   NvrtcResult_done(&r);
}

static void test_parseVariants(void **state) {
   (void)state;
   NvrtcResult r;
   /* No "Used" line and no frame line: everything unknown. */
   parseOk("ptxas info    : Compiling entry function 'k' for 'sm_90'\n", &r);
   assert_int_equal(r.nkernels, 1);
   assertKernel(&r.kernels[0], -1, -1, -1, -1, -1, -1);
   NvrtcResult_done(&r);
   /* Pre-Fermi "N+M bytes" forms are summed; no trailing newline. */
   parseOk("ptxas info    : Compiling entry function 'old' for 'sm_13'\n"
           "ptxas info    : Used 4 registers, 8+0 bytes lmem, 16+16 bytes smem, 4 bytes cmem[1]",
           &r);
   assertKernel(kernel(&r, "old"), 4, 32, 4, -1, -1, -1);
   NvrtcResult_done(&r);
   /* A name longer than the field is cut, and its frame line still matches. */
   char longName[300];
   memset(longName, 'x', 200);
   longName[200] = '\0';
   char *log = xAsprintf("ptxas info    : Compiling entry function '%s' for 'sm_90'\n"
                         "ptxas info    : Function properties for %s\n"
                         "ptxas         .     16 bytes stack frame, 0 bytes spill stores, "
                         "0 bytes spill loads\n"
                         "ptxas info    : Used 40 registers, used 1 barriers\n",
                         longName, longName);
   parseOk(log, &r);
   assert_int_equal(r.nkernels, 1);
   assert_int_equal(strlen(r.kernels[0].name), 127);
   assertKernel(&r.kernels[0], 40, 0, -1, 16, 0, 0);
   NvrtcResult_done(&r);
   free(log);
   /* Nothing to report. */
   parseOk("", &r);
   assert_int_equal(r.nkernels, 0);
   assert_null(r.kernels);
   parseOk("ptxas info    : 0 bytes gmem\n", &r);
   assert_int_equal(r.nkernels, 0);
}

static void test_parseErrors(void **state) {
   (void)state;
   NvrtcResult r;
   memset(&r, 0, sizeof r);
   char *cause = NULL;
   assert_int_equal(Nvrtc_parsePtxasReport("ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
                                           "ptxas info    : Used many registers\n",
                                           &r, &cause),
                    -1);
   assert_string_equal(cause, "ptxas report line 2: cannot read \"Used many registers\"");
   assert_int_equal(r.nkernels, 0);
   assert_null(r.kernels);
   free(cause);
   cause = NULL;
   assert_int_equal(Nvrtc_parsePtxasReport("ptxas info    : Compiling entry function 'k\n", &r,
                                           &cause),
                    -1);
   assert_string_equal(cause, "ptxas report line 1: no function name in \"Compiling entry "
                              "function 'k\"");
   free(cause);
   cause = NULL;
   assert_int_equal(Nvrtc_parsePtxasReport("ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
                                           "ptxas info    : Function properties for k\n"
                                           "    99999999999 bytes stack frame\n",
                                           &r, &cause),
                    -1);
   assert_string_equal(cause, "ptxas report line 3: cannot read \"99999999999 bytes stack "
                              "frame\"");
   free(cause);
   cause = NULL;
   assert_int_equal(Nvrtc_parsePtxasReport(NULL, &r, &cause), -1);
   assert_string_equal(cause, "no ptxas report (the log is NULL)");
   free(cause);
}

/* Rejected before NVRTC is even loaded, so this runs where NVRTC is missing too. */
static void test_badArch(void **state) {
   (void)state;
   static const char *const bad[] = { "sm_9x", "sm_9", "sm_1000", "sm_090", "compute_90",
                                      "SM_90", "sm_90a", "" };
   for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      NvrtcResult r;
      memset(&r, 0xA5, sizeof r);   /* Nvrtc_compile must not read what was there */
      char *cause = NULL;
      assert_int_equal(Nvrtc_compile("__global__ void k() {}", "k.cu", bad[i], &r, &cause), -1);
      char *want = xAsprintf("k.cu: bad GPU architecture \"%s\": expected sm_ and 2 or 3 "
                             "digits, such as sm_80 or sm_90", bad[i]);
      assert_string_equal(cause, want);
      assert_null(r.cubin);
      assert_null(r.log);
      assert_int_equal(r.nkernels, 0);
      free(want);
      free(cause);
      NvrtcResult_done(&r);
   }
   char *cause = NULL;
   NvrtcResult r;
   assert_int_equal(Nvrtc_compile("", NULL, NULL, &r, &cause), -1);
   assert_string_equal(cause, "program.cu: bad GPU architecture \"(none)\": expected sm_ and "
                              "2 or 3 digits, such as sm_80 or sm_90");
   free(cause);
   NvrtcResult_done(&r);
}

/* ---- real compiles ---- */

static const char elementwise[] =
   "extern \"C\" __global__ void add(const float *a, const float *b, float *c, int n) {\n"
   "   int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
   "   if (i < n) c[i] = a[i] + b[i];\n"
   "}\n";

static const char tiled[] =
   "extern \"C\" __global__ void tiled(const float *a, float *c) {\n"
   "   __shared__ float tile[1024];\n"
   "   tile[threadIdx.x] = a[blockIdx.x * 1024 + threadIdx.x];\n"
   "   __syncthreads();\n"
   "   c[blockIdx.x * 1024 + threadIdx.x] = tile[1023 - threadIdx.x];\n"
   "}\n";

/* The runtime index keeps a[] out of registers: it lives in local memory. */
static const char local[] =
   "extern \"C\" __global__ void local(const float *in, float *out, int k) {\n"
   "   float a[256];\n"
   "   for (int j = 0; j < 256; j++) a[j] = in[j * k + threadIdx.x];\n"
   "   out[threadIdx.x] = a[(threadIdx.x * k) % 256];\n"
   "}\n";

/* Sixteen live accumulators: more registers than the others. */
static const char horner[] =
   "extern \"C\" __global__ void horner(const float *x, const float *coef, float *y) {\n"
   "   float acc[16];\n"
   "#pragma unroll\n"
   "   for (int j = 0; j < 16; j++) acc[j] = x[16 * threadIdx.x + j];\n"
   "   float r[16] = {0};\n"
   "   for (int c = 0; c < 32; c++) {\n"
   "      float k = coef[c];\n"
   "#pragma unroll\n"
   "      for (int j = 0; j < 16; j++) r[j] = r[j] * acc[j] + k;\n"
   "   }\n"
   "#pragma unroll\n"
   "   for (int j = 0; j < 16; j++) y[16 * threadIdx.x + j] = r[j];\n"
   "}\n";

static void compileOk(const char *source, const char *name, const char *arch,
                      NvrtcResult *r) {
   char *cause = NULL;
   if (Nvrtc_compile(source, name, arch, r, &cause) != 0)
      fail_msg("%s\n%s", cause ? cause : "(no message)", r->log ? r->log : "");
   assert_null(cause);
   assert_non_null(r->log);
   assert_true(r->seconds > 0.0 && r->seconds < 120.0);
}

/* A CUDA ELF: magic, 64-bit, little-endian, e_machine EM_CUDA (190). */
static void assertCubin(const NvrtcResult *r) {
   const unsigned char *e = r->cubin;
   assert_non_null(e);
   assert_true(r->cubinSize > 64);
   assert_memory_equal(e, "\x7f" "ELF", 4);
   assert_int_equal(e[4], 2);
   assert_int_equal(e[5], 1);
   assert_int_equal(e[18] | (e[19] << 8), 190);
}

static void test_loaded(void **state) {
   (void)state;
   int major = 0, minor = -1;
   assert_true(Nvrtc_available());
   assert_int_equal(Nvrtc_version(&major, &minor), 0);
   assert_true(major >= 11);
   assert_true(minor >= 0);
   const char *path = Nvrtc_libraryPath();
   assert_non_null(path);
   assert_non_null(strstr(path, "libnvrtc"));
   assert_true(path[0] == '/');
}

static void test_elementwise(void **state) {
   (void)state;
   static const char *const archs[] = { "sm_80", "sm_90" };
   for (int i = 0; i < 2; i++) {
      NvrtcResult r;
      compileOk(elementwise, "add.cu", archs[i], &r);
      assertCubin(&r);
      assert_int_equal(r.nkernels, 1);
      const NvrtcKernelInfo *k = kernel(&r, "add");
      assert_true(k->registers > 0 && k->registers <= 255);
      assert_int_equal(k->sharedBytes, 0);
      assert_int_equal(k->stackBytes, 0);
      assert_int_equal(k->spillStores, 0);
      assert_int_equal(k->spillLoads, 0);
      char *want = xAsprintf("Compiling entry function 'add' for '%s'", archs[i]);
      assert_non_null(strstr(r.log, want));
      free(want);
      NvrtcResult_done(&r);
   }
}

static void test_sharedMemory(void **state) {
   (void)state;
   NvrtcResult r;
   compileOk(tiled, "tiled.cu", "sm_90", &r);
   assertCubin(&r);
   const NvrtcKernelInfo *k = kernel(&r, "tiled");
   assert_int_equal(k->sharedBytes, 4096);
   assert_true(k->registers > 0 && k->registers <= 255);
   assert_int_equal(k->spillStores, 0);
   NvrtcResult_done(&r);
}

static void test_localMemory(void **state) {
   (void)state;
   NvrtcResult r;
   compileOk(local, "local.cu", "sm_80", &r);
   const NvrtcKernelInfo *k = kernel(&r, "local");
   assert_true(k->stackBytes >= 1024);  /* the 256 floats */
   assert_true(k->registers > 0 && k->registers <= 255);
   NvrtcResult_done(&r);
}

static void test_twoKernels(void **state) {
   (void)state;
   char *source = xAsprintf("%s%s", elementwise, tiled);
   NvrtcResult r;
   compileOk(source, "two.cu", "sm_90", &r);
   assertCubin(&r);
   assert_int_equal(r.nkernels, 2);
   assert_int_equal(kernel(&r, "add")->sharedBytes, 0);
   assert_int_equal(kernel(&r, "tiled")->sharedBytes, 4096);
   assert_string_not_equal(r.kernels[0].name, r.kernels[1].name);
   NvrtcResult_done(&r);
   free(source);
}

static void test_syntaxError(void **state) {
   (void)state;
   static const char bad[] = "extern \"C\" __global__ void f(float *c) {\n"
                             "   c[0] = 1.0f;\n"
                             "   int x = ;\n"
                             "}\n";
   NvrtcResult r;
   char *cause = NULL;
   assert_int_equal(Nvrtc_compile(bad, "bad.cu", "sm_90", &r, &cause), -1);
   const char *prefix = "bad.cu: compilation failed for sm_90: ";
   assert_non_null(cause);
   assert_memory_equal(cause, prefix, strlen(prefix));
   /* NVRTC names the line: "bad.cu(3): error: expected an expression" or similar. */
   assert_non_null(strstr(cause, "bad.cu(3)"));
   assert_null(strchr(cause, '\n'));
   assert_non_null(r.log);
   assert_non_null(strstr(r.log, "error"));
   assert_null(r.cubin);
   assert_int_equal(r.cubinSize, 0);
   assert_int_equal(r.nkernels, 0);
   free(cause);
   NvrtcResult_done(&r);
}

static void test_unsupportedArch(void **state) {
   (void)state;
   NvrtcResult r;
   char *cause = NULL;
   int major, minor;
   Nvrtc_version(&major, &minor);
   assert_int_equal(Nvrtc_compile(elementwise, "add.cu", "sm_99", &r, &cause), -1);
   if (major > 11 || (major == 11 && minor >= 2)) {
      /* NVRTC lists its targets: said before compiling. */
      char *want = xAsprintf("add.cu: NVRTC %d.%d cannot compile for sm_99; it supports ",
                             major, minor);
      assert_memory_equal(cause, want, strlen(want));
      assert_non_null(strstr(cause, " sm_80 "));
      assert_non_null(strstr(cause, " sm_90"));
      assert_null(r.log);
      free(want);
   } else {
      assert_non_null(strstr(cause, "add.cu: compilation failed for sm_99: "));
   }
   free(cause);
   NvrtcResult_done(&r);
}

/* Loading is once per process, so each case runs this binary again with
 * PRUNER_TUI_NVRTC set; the child prints Nvrtc_open's message (see main). */
static char *openInChild(const char *library) {
   size_t n = 0;
   while (environ[n])
      n++;
   char **env = xCalloc(n + 2, sizeof *env);
   size_t m = 0;
   for (size_t i = 0; i < n; i++)
      if (strncmp(environ[i], "PRUNER_TUI_NVRTC=", 17) != 0)
         env[m++] = environ[i];
   char *setting = xAsprintf("PRUNER_TUI_NVRTC=%s", library);
   env[m++] = setting;
   env[m] = NULL;
   static char arg0[] = "test-nvrtc", arg1[] = "--open-child";
   char *const argv[] = { arg0, arg1, NULL };

   int fds[2];
   assert_int_equal(pipe(fds), 0);
   pid_t pid = fork();
   assert_true(pid >= 0);
   if (pid == 0) {
      dup2(fds[1], STDOUT_FILENO);
      close(fds[0]);
      close(fds[1]);
      execve("/proc/self/exe", argv, env);
      _exit(127);
   }
   close(fds[1]);
   char buf[4096];
   size_t len = 0;
   ssize_t got;
   while ((got = read(fds[0], buf + len, sizeof buf - 1 - len)) > 0)
      len += (size_t)got;
   buf[len] = '\0';
   close(fds[0]);
   int status = 0;
   assert_int_equal(waitpid(pid, &status, 0), pid);
   assert_true(WIFEXITED(status));
   assert_int_equal(WEXITSTATUS(status), 0);
   free(setting);
   free(env);
   return xStrdup(buf);
}

static void test_loaderMessages(void **state) {
   (void)state;
   char *msg = openInChild("/nonexistent/libnvrtc-ptui.so");
   assert_memory_equal(msg,
                       "NVRTC not found: cannot load "
                       "PRUNER_TUI_NVRTC=/nonexistent/libnvrtc-ptui.so: "
                       "/nonexistent/libnvrtc-ptui.so: ",
                       strlen("NVRTC not found: cannot load "
                              "PRUNER_TUI_NVRTC=/nonexistent/libnvrtc-ptui.so: "
                              "/nonexistent/libnvrtc-ptui.so: "));
   assert_non_null(strstr(msg, "No such file"));
   free(msg);

   /* A library that loads but is not NVRTC: the first missing entry point is named. */
   msg = openInChild("libc.so.6");
   const char *prefix = "symbol nvrtcVersion missing in /";
   assert_memory_equal(msg, prefix, strlen(prefix));
   assert_string_equal(msg + strlen(msg) - strlen("/libc.so.6"), "/libc.so.6");
   free(msg);

   /* The file this process loaded, named directly. */
   char *want = xAsprintf("ok %s", Nvrtc_libraryPath());
   msg = openInChild(Nvrtc_libraryPath());
   assert_string_equal(msg, want);
   free(msg);
   free(want);
}

typedef struct Job_ {
   const char *source, *program, *kernel;
   NvrtcResult result[2];
   int rc[2];
   char *cause[2];
} Job;

static void *compileJob(void *arg) {
   Job *job = arg;
   for (int round = 0; round < 2; round++)
      job->rc[round] = Nvrtc_compile(job->source, job->program, "sm_90", &job->result[round],
                                     &job->cause[round]);
   return NULL;
}

static void test_concurrent(void **state) {
   (void)state;
   Job jobs[4] = {
      { elementwise, "add.cu", "add", { { 0 } }, { 0 }, { NULL } },
      { tiled, "tiled.cu", "tiled", { { 0 } }, { 0 }, { NULL } },
      { local, "local.cu", "local", { { 0 } }, { 0 }, { NULL } },
      { horner, "horner.cu", "horner", { { 0 } }, { 0 }, { NULL } },
   };
   /* What each kernel gets when compiled alone. */
   int want[4];
   for (int i = 0; i < 4; i++) {
      NvrtcResult r;
      compileOk(jobs[i].source, jobs[i].program, "sm_90", &r);
      want[i] = kernel(&r, jobs[i].kernel)->registers;
      assert_true(want[i] > 0 && want[i] <= 255);
      NvrtcResult_done(&r);
   }
   /* Distinct counts, so that a report landing in the wrong result would show. */
   for (int i = 0; i < 4; i++)
      for (int j = i + 1; j < 4; j++)
         if (want[i] == want[j])
            fail_msg("%s and %s both use %d registers", jobs[i].kernel, jobs[j].kernel,
                     want[i]);

   pthread_t threads[4];
   for (int i = 0; i < 4; i++)
      assert_int_equal(pthread_create(&threads[i], NULL, compileJob, &jobs[i]), 0);
   for (int i = 0; i < 4; i++)
      assert_int_equal(pthread_join(threads[i], NULL), 0);
   for (int i = 0; i < 4; i++) {
      for (int round = 0; round < 2; round++) {
         NvrtcResult *r = &jobs[i].result[round];
         if (jobs[i].rc[round] != 0)
            fail_msg("%s: %s", jobs[i].program, jobs[i].cause[round]);
         assertCubin(r);
         assert_int_equal(r->nkernels, 1);
         assert_string_equal(r->kernels[0].name, jobs[i].kernel);
         assert_int_equal(r->kernels[0].registers, want[i]);
         NvrtcResult_done(r);
      }
   }
}

int main(int argc, char **argv) {
   if (argc == 2 && strcmp(argv[1], "--open-child") == 0) {
      char *cause = NULL;
      if (Nvrtc_open(&cause) == 0)
         printf("ok %s", Nvrtc_libraryPath());
      else
         printf("%s", cause);
      free(cause);
      return 0;
   }

   struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parseFourKernelsSm80),
      cmocka_unit_test(test_parseSm90WithoutCmem),
      cmocka_unit_test(test_parseSpillsAndHelper),
      cmocka_unit_test(test_parseOldStyle),
      cmocka_unit_test(test_parseVariants),
      cmocka_unit_test(test_parseErrors),
      cmocka_unit_test(test_badArch),
      /* From here on NVRTC is needed. */
      cmocka_unit_test(test_loaded),
      cmocka_unit_test(test_elementwise),
      cmocka_unit_test(test_sharedMemory),
      cmocka_unit_test(test_localMemory),
      cmocka_unit_test(test_twoKernels),
      cmocka_unit_test(test_syntaxError),
      cmocka_unit_test(test_unsupportedArch),
      cmocka_unit_test(test_loaderMessages),
      cmocka_unit_test(test_concurrent),
   };
   return TestUtil_runGroup("nvrtc", tests, sizeof tests / sizeof tests[0], 7);
}
