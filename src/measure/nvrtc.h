/* NVRTC, opened with dlopen at run time: compiles CUDA source to a CUBIN for one real
 * architecture and reads ptxas' verbose report into registers, shared memory and
 * spills per kernel. The binary never links libnvrtc and builds without CUDA headers. */
#ifndef HEADER_nvrtc
#define HEADER_nvrtc

#include <stdbool.h>
#include <stddef.h>

/* What ptxas reported for one __global__ function. -1 where the report has no line
 * for the value (no "Used N registers" line, no "stack frame" line, no cmem bank).
 * sharedBytes is 0, not -1, when the "Used" line is there without smem: ptxas leaves
 * zero out. constBytes is the sum of the cmem[N] banks on the "Used" line (ptxas for
 * sm_90 and newer lists none). */
typedef struct NvrtcKernelInfo_ {
   char name[128];              /* as ptxas prints it: plain for extern "C", else mangled;
                                   cut to 127 bytes */
   int registers;
   int sharedBytes;             /* static __shared__; dynamic shared memory is not in it */
   int constBytes;
   int stackBytes;              /* per-thread stack frame (local memory) */
   int spillStores;             /* bytes */
   int spillLoads;              /* bytes */
} NvrtcKernelInfo;

typedef struct NvrtcResult_ {
   void *cubin;                 /* ELF image, cubinSize bytes */
   size_t cubinSize;
   char *log;                   /* NVRTC's program log, "" when it said nothing */
   int nkernels;
   NvrtcKernelInfo *kernels;    /* in the order ptxas reported them */
   double seconds;              /* wall time of create + compile + fetch */
} NvrtcResult;

/* Frees what the result owns and zeroes it; safe on a zeroed result and twice. */
void NvrtcResult_done(NvrtcResult *r);

/* The kernel called name, or NULL. */
const NvrtcKernelInfo *NvrtcResult_kernel(const NvrtcResult *r, const char *name);

/* Loads NVRTC once per process (later calls return the first answer). The library is
 * $PRUNER_TUI_NVRTC when that is set, else the first of libnvrtc.so.13, .so.12,
 * .so.11.2, .so.11.1, .so.11.0 and libnvrtc.so found on the loader path, in the
 * toolkit found at build time (lib64, lib) or in $CUDA_HOME/lib64. Returns 0, or -1
 * with *cause saying what was tried. */
int Nvrtc_open(char **cause);
bool Nvrtc_available(void);
/* The file that was loaded, or NULL before a successful Nvrtc_open. */
const char *Nvrtc_libraryPath(void);
/* NVRTC's own version (13.0 for CUDA 13.0); -1 when it is not loaded. */
int Nvrtc_version(int *major, int *minor);

/* Whether arch names a real architecture a CUBIN can be built for: "sm_" and a 2- or
 * 3-digit number without a leading zero ("sm_80", "sm_90"). Needs no NVRTC. */
bool Nvrtc_isArch(const char *arch);

/* 0 when the loaded NVRTC can build CUBINs for arch (or cannot tell); else -1 with
 * *cause "NVRTC 13.0 cannot compile for sm_37; it supports sm_75 ...". */
int Nvrtc_supportsArch(const char *arch, char **cause);

/* Compiles source (named programName in messages, e.g. "conv2d_17.cu") to a CUBIN for
 * arch, "sm_" and 2 or 3 digits. out is overwritten, so it need not be initialized;
 * free it with NvrtcResult_done whatever the return value. On a compile error returns
 * -1 with NVRTC's log in out->log and *cause "PROGRAM: compilation failed for ARCH:
 * FIRST ERROR LINE". Threads may compile different programs at the same time. */
int Nvrtc_compile(const char *source, const char *programName, const char *arch,
                  NvrtcResult *out, char **cause);

/* Reads ptxas' verbose report out of an NVRTC log into out->kernels and out->nkernels,
 * freeing the kernels out held before (so out must be zeroed or a previous result).
 * Pure: NVRTC need not be loaded. A log without entry functions gives 0 kernels. */
int Nvrtc_parsePtxasReport(const char *log, NvrtcResult *out, char **cause);

#endif
