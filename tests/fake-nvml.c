/* A stand-in for NVML (libnvidia-ml.so.1) that the tests load through
 * $PRUNER_TUI_LIBNVML: one GPU at PCI bus id 0000:3B:00.0 (index 0) with fixed values,
 * its throttle reasons from $FAKE_NVML_REASONS (default 0x5: idle and the power cap).
 * Built without nvmlDeviceGetCurrentClocksThrottleReasons when FAKE_NVML_PARTIAL is
 * defined, to stand for a library that lacks an entry point. */
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;

#define NVML_SUCCESS 0
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_FOUND 6

static int device;
static int initialized;

/* exported under NVML's names */
nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlShutdown(void);
const char *nvmlErrorString(nvmlReturn_t result);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned index, nvmlDevice_t *out);
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *out);
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned *mhz);
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned *celsius);
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned *milliwatts);
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned *milliwatts);
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d, unsigned long long *reasons);

nvmlReturn_t nvmlInit_v2(void) {
   initialized++;
   return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) {
   initialized--;
   return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t result) {
   return result == NVML_ERROR_NOT_FOUND ? "Not Found" : result == NVML_ERROR_INVALID_ARGUMENT ? "Invalid Argument" : "Unknown Error";
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned index, nvmlDevice_t *out) {
   if (index != 0)
      return NVML_ERROR_INVALID_ARGUMENT;
   *out = (nvmlDevice_t)&device;
   return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *out) {
   if (strcmp(pciBusId, "0000:3B:00.0") != 0)
      return NVML_ERROR_NOT_FOUND;
   *out = (nvmlDevice_t)&device;
   return NVML_SUCCESS;
}

static int bad(nvmlDevice_t d) {
   return d != (nvmlDevice_t)&device || initialized <= 0;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned *mhz) {
   if (bad(d) || (type != 1 && type != 2))
      return NVML_ERROR_INVALID_ARGUMENT;
   *mhz = type == 1 ? 1980 : 2619;
   return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned *celsius) {
   if (bad(d) || sensor != 0)
      return NVML_ERROR_INVALID_ARGUMENT;
   *celsius = 54;
   return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned *milliwatts) {
   if (bad(d))
      return NVML_ERROR_INVALID_ARGUMENT;
   *milliwatts = 312400;
   return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned *milliwatts) {
   if (bad(d))
      return NVML_ERROR_INVALID_ARGUMENT;
   *milliwatts = 700000;
   return NVML_SUCCESS;
}

#ifndef FAKE_NVML_PARTIAL
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d, unsigned long long *reasons) {
   if (bad(d))
      return NVML_ERROR_INVALID_ARGUMENT;
   const char *env = getenv("FAKE_NVML_REASONS");
   *reasons = env ? strtoull(env, NULL, 0) : 0x5;
   return NVML_SUCCESS;
}
#endif
