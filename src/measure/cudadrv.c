/* Loading the CUDA driver with dlopen. */
#include "config.h"

#include "measure/cudadrv.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

typedef struct {
   size_t offset;
   const char *symbol;
   const char *fallback;        /* an older name with the same signature, or NULL */
} DriverSymbol;

#define SYM(field, name, old) { offsetof(CudaDriver, field), name, old }
static const DriverSymbol symbols[] = {
   SYM(cuInit, "cuInit", NULL),
   SYM(cuDriverGetVersion, "cuDriverGetVersion", NULL),
   SYM(cuDeviceGetCount, "cuDeviceGetCount", NULL),
   SYM(cuDeviceGet, "cuDeviceGet", NULL),
   SYM(cuDeviceGetName, "cuDeviceGetName", NULL),
   SYM(cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId", NULL),
   SYM(cuDeviceGetAttribute, "cuDeviceGetAttribute", NULL),
   SYM(cuDeviceTotalMem, "cuDeviceTotalMem_v2", NULL),
   SYM(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL),
   SYM(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"),
   SYM(cuCtxSetCurrent, "cuCtxSetCurrent", NULL),
   SYM(cuCtxSynchronize, "cuCtxSynchronize", NULL),
   SYM(cuModuleLoadData, "cuModuleLoadData", NULL),
   SYM(cuModuleGetFunction, "cuModuleGetFunction", NULL),
   SYM(cuModuleUnload, "cuModuleUnload", NULL),
   SYM(cuFuncGetAttribute, "cuFuncGetAttribute", NULL),
   SYM(cuMemAlloc, "cuMemAlloc_v2", NULL),
   SYM(cuMemFree, "cuMemFree_v2", NULL),
   SYM(cuMemcpyHtoD, "cuMemcpyHtoD_v2", NULL),
   SYM(cuMemcpyDtoH, "cuMemcpyDtoH_v2", NULL),
   SYM(cuMemsetD32, "cuMemsetD32_v2", NULL),
   SYM(cuLaunchKernel, "cuLaunchKernel", NULL),
   SYM(cuEventCreate, "cuEventCreate", NULL),
   SYM(cuEventRecord, "cuEventRecord", NULL),
   SYM(cuEventSynchronize, "cuEventSynchronize", NULL),
   SYM(cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
   SYM(cuEventDestroy, "cuEventDestroy_v2", NULL),
   SYM(cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor", NULL),
   SYM(cuGetErrorName, "cuGetErrorName", NULL),
   SYM(cuGetErrorString, "cuGetErrorString", NULL),
};

int CudaDriver_open(CudaDriver *d, char **cause) {
   memset(d, 0, sizeof *d);
   const char *env = getenv("PRUNER_TUI_LIBCUDA");
   const char *name = env && *env ? env : "libcuda.so.1";
   snprintf(d->path, sizeof d->path, "%s", name);
   d->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
   if (!d->lib)
      return setCause(cause, "no CUDA driver: cannot open %s (%s)", name, dlerror());
   for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
      void *fn = dlsym(d->lib, symbols[i].symbol);
      if (!fn && symbols[i].fallback)
         fn = dlsym(d->lib, symbols[i].fallback);
      if (!fn) {
         setCause(cause, "the CUDA driver %s lacks %s: it is older than CUDA 11", name, symbols[i].symbol);
         CudaDriver_close(d);
         return -1;
      }
      memcpy((char *)d + symbols[i].offset, &fn, sizeof fn);
   }
   CUresult rc = d->cuInit(0);
   if (rc != CUDA_SUCCESS) {
      char what[160];
      CudaDriver_describe(d, rc, what, sizeof what);
      if (rc == CUDA_ERROR_STUB_LIBRARY)
         setCause(cause, "no CUDA driver: %s is the CUDA toolkit's stub library, not an NVIDIA driver (%s)",
                  name, what);
      else if (rc == CUDA_ERROR_NO_DEVICE)
         setCause(cause, "no CUDA device: the driver %s sees none (%s)", name, what);
      else
         setCause(cause, "the CUDA driver %s failed to initialize: %s", name, what);
      CudaDriver_close(d);
      return -1;
   }
   return 0;
}

void CudaDriver_close(CudaDriver *d) {
   if (d->lib)
      dlclose(d->lib);
   memset(d, 0, sizeof *d);
}

void CudaDriver_describe(const CudaDriver *d, CUresult err, char *buf, size_t size) {
   const char *name = NULL, *text = NULL;
   if (d->cuGetErrorName && d->cuGetErrorName(err, &name) != CUDA_SUCCESS)
      name = NULL;
   if (d->cuGetErrorString && d->cuGetErrorString(err, &text) != CUDA_SUCCESS)
      text = NULL;
   /* the stub library cannot name its own errors: name the ones we rely on */
   static const struct { CUresult err; const char *name; } known[] = {
      { CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED" },
      { CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY" },
      { CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE" },
      { CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE" },
      { CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS" },
      { CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES" },
      { CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT" },
      { CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED" },
   };
   for (size_t i = 0; !name && i < sizeof known / sizeof known[0]; i++)
      if (known[i].err == err)
         name = known[i].name;
   if (name && text)
      snprintf(buf, size, "%s (%d): %s", name, err, text);
   else if (name)
      snprintf(buf, size, "%s (%d)", name, err);
   else
      snprintf(buf, size, "CUDA error %d", err);
}

int CudaDriver_isSticky(CUresult err) {
   /* errors that corrupt the context: every later call fails too */
   switch (err) {
   case CUDA_ERROR_ILLEGAL_ADDRESS:
   case CUDA_ERROR_LAUNCH_TIMEOUT:
   case 710:                    /* device-side assert */
   case 714:                    /* hardware stack error */
   case 715:                    /* illegal instruction */
   case 716:                    /* misaligned address */
   case 717:                    /* invalid address space */
   case 718:                    /* invalid program counter */
   case CUDA_ERROR_LAUNCH_FAILED:
      return 1;
   default:
      return 0;
   }
}
