/* The CUDA driver API, opened with dlopen at run time: only the runner process loads
 * it, so the tuner itself never initializes CUDA and can fork runners freely. Our own
 * minimal types stand in for cuda.h, and every entry point is looked up by its
 * explicit versioned name, so the binary builds without CUDA and runs on any driver
 * since CUDA 11. */
#ifndef HEADER_cudadrv
#define HEADER_cudadrv

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;

enum {
   CUDA_SUCCESS = 0,
   CUDA_ERROR_NOT_INITIALIZED = 3,
   CUDA_ERROR_STUB_LIBRARY = 34,
   CUDA_ERROR_NO_DEVICE = 100,
   CUDA_ERROR_INVALID_DEVICE = 101,
   CUDA_ERROR_ILLEGAL_ADDRESS = 700,
   CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
   CUDA_ERROR_LAUNCH_TIMEOUT = 702,
   CUDA_ERROR_LAUNCH_FAILED = 719,
};

/* The attributes the runner reads (values from cuda.h's CUdevice_attribute). */
enum {
   CU_ATTR_MAX_THREADS_PER_BLOCK = 1,
   CU_ATTR_MAX_SHARED_PER_BLOCK = 8,
   CU_ATTR_WARP_SIZE = 10,
   CU_ATTR_MAX_REGS_PER_BLOCK = 12,
   CU_ATTR_CLOCK_RATE_KHZ = 13,
   CU_ATTR_SM_COUNT = 16,
   CU_ATTR_MEMORY_CLOCK_KHZ = 36,
   CU_ATTR_MEMORY_BUS_BITS = 37,
   CU_ATTR_L2_BYTES = 38,
   CU_ATTR_MAX_THREADS_PER_SM = 39,
   CU_ATTR_CC_MAJOR = 75,
   CU_ATTR_CC_MINOR = 76,
   CU_ATTR_MAX_SHARED_PER_SM = 81,
   CU_ATTR_MAX_REGS_PER_SM = 82,
   CU_ATTR_MAX_SHARED_PER_BLOCK_OPTIN = 97,
   CU_ATTR_MAX_BLOCKS_PER_SM = 106,
};

enum {
   CU_FUNC_ATTR_NUM_REGS = 4,
   CU_FUNC_ATTR_MAX_DYNAMIC_SHARED = 8,
};

typedef struct CudaDriver_ {
   void *lib;
   char path[256];
   CUresult (*cuInit)(unsigned flags);
   CUresult (*cuDriverGetVersion)(int *version);
   CUresult (*cuDeviceGetCount)(int *count);
   CUresult (*cuDeviceGet)(CUdevice *dev, int ordinal);
   CUresult (*cuDeviceGetName)(char *name, int len, CUdevice dev);
   CUresult (*cuDeviceGetPCIBusId)(char *busId, int len, CUdevice dev);
   CUresult (*cuDeviceGetAttribute)(int *value, int attr, CUdevice dev);
   CUresult (*cuDeviceTotalMem)(size_t *bytes, CUdevice dev);
   CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
   CUresult (*cuDevicePrimaryCtxRelease)(CUdevice dev);
   CUresult (*cuCtxSetCurrent)(CUcontext ctx);
   CUresult (*cuCtxSynchronize)(void);
   CUresult (*cuModuleLoadData)(CUmodule *mod, const void *image);
   CUresult (*cuModuleGetFunction)(CUfunction *fn, CUmodule mod, const char *name);
   CUresult (*cuModuleUnload)(CUmodule mod);
   CUresult (*cuFuncGetAttribute)(int *value, int attr, CUfunction fn);
   CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes);
   CUresult (*cuMemFree)(CUdeviceptr ptr);
   CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
   CUresult (*cuMemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
   CUresult (*cuMemsetD32)(CUdeviceptr dst, unsigned value, size_t count);
   CUresult (*cuLaunchKernel)(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                              unsigned by, unsigned bz, unsigned shared, CUstream stream,
                              void **params, void **extra);
   CUresult (*cuEventCreate)(CUevent *ev, unsigned flags);
   CUresult (*cuEventRecord)(CUevent ev, CUstream stream);
   CUresult (*cuEventSynchronize)(CUevent ev);
   CUresult (*cuEventElapsedTime)(float *ms, CUevent start, CUevent end);
   CUresult (*cuEventDestroy)(CUevent ev);
   CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *blocks, CUfunction fn, int blockSize,
                                                          size_t dynamicShared);
   CUresult (*cuGetErrorName)(CUresult err, const char **name);
   CUresult (*cuGetErrorString)(CUresult err, const char **text);
} CudaDriver;

/* Opens the driver ($PRUNER_TUI_LIBCUDA when set, else libcuda.so.1; never the
 * unversioned name, which may be the toolkit's stub) and calls cuInit. Returns 0, or
 * -1 with *cause: the library is missing, is the toolkit's stub (error 34: no NVIDIA
 * driver), or finds no device. */
int CudaDriver_open(CudaDriver *d, char **cause);
void CudaDriver_close(CudaDriver *d);
/* "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered". */
void CudaDriver_describe(const CudaDriver *d, CUresult err, char *buf, size_t size);
/* Whether the error leaves the context unusable (the process must end). */
int CudaDriver_isSticky(CUresult err);

#endif
