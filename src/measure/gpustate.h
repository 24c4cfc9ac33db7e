/* The GPU's state as the driver's management library (NVML) reports it: clocks,
 * temperature, power and why the clocks are held down. NVML is opened with dlopen at
 * run time, so the program builds and runs without it; without a driver there is
 * simply no state. Every value carries a valid bit: a driver may not report one. */
#ifndef HEADER_gpustate
#define HEADER_gpustate

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* NVML's clock event ("throttle") reasons, with NVML's bit values. */
enum {
   GPU_THROTTLE_IDLE = 0x1,             /* nothing runs: not a slowdown of a measurement */
   GPU_THROTTLE_APP_CLOCKS = 0x2,       /* the clocks a user set: not a slowdown either */
   GPU_THROTTLE_POWER_CAP = 0x4,
   GPU_THROTTLE_HW_SLOWDOWN = 0x8,
   GPU_THROTTLE_SYNC_BOOST = 0x10,
   GPU_THROTTLE_SW_THERMAL = 0x20,
   GPU_THROTTLE_HW_THERMAL = 0x40,
   GPU_THROTTLE_POWER_BRAKE = 0x80,
   GPU_THROTTLE_DISPLAY_CLOCK = 0x100,
};
/* The reasons that slow a measurement down: all of the above but idle and app clocks. */
#define GPU_THROTTLE_SLOWING 0x1fcu

/* Which values of a sample are valid. */
enum {
   GPU_HAS_SM_CLOCK = 1 << 0,
   GPU_HAS_MEM_CLOCK = 1 << 1,
   GPU_HAS_TEMPERATURE = 1 << 2,
   GPU_HAS_POWER = 1 << 3,
   GPU_HAS_POWER_LIMIT = 1 << 4,
   GPU_HAS_THROTTLE = 1 << 5,
};

typedef struct GpuSample_ {
   unsigned valid;              /* GPU_HAS_*; 0: no sample */
   unsigned smMhz, memMhz;
   unsigned celsius;
   double watts, limitWatts;
   unsigned throttle;           /* GPU_THROTTLE_* bits, as NVML gave them */
} GpuSample;

typedef struct GpuState_ GpuState;

/* Opens NVML ($PRUNER_TUI_LIBNVML when set, else libnvidia-ml.so.1) and finds the GPU:
 * by its PCI bus id when pciBusId is non-empty ("0000:3B:00.0", what the CUDA driver
 * says), else by NVML's index. NULL with *cause: the library is missing, lacks an
 * entry point (named), fails to initialize, or has no such GPU. */
GpuState *GpuState_open(const char *pciBusId, int index, char **cause);
void GpuState_close(GpuState *g);
/* The library's path as opened. */
const char *GpuState_library(const GpuState *g);
/* Reads the values now; what NVML cannot say stays invalid. Safe from any thread. */
void GpuState_sample(GpuState *g, GpuSample *s);

/* The slowing reasons of a sample (GPU_THROTTLE_SLOWING of its bits); 0 without them. */
unsigned GpuSample_slowing(const GpuSample *s);
/* "1980/2619 MHz 54C 312/700W": SM/memory clock, temperature, power/limit; "N/A" for
 * a value NVML did not give; "" for no sample. */
void GpuSample_format(const GpuSample *s, char *buf, size_t size);

/* The name of a reason bit in records and sessions ("power_cap"); NULL for others. */
const char *GpuThrottle_name(unsigned bit);
/* Its word on the screen ("power"); NULL for others. */
const char *GpuThrottle_word(unsigned bit);
/* "THROTTLE: power,hw-thermal" for the slowing reasons among `reasons`; "" for none. */
void GpuThrottle_format(unsigned reasons, char *buf, size_t size);
/* The reasons as a JSON array of names (["power_cap"]); the caller owns it. */
cJSON *GpuThrottle_toJson(unsigned reasons);
/* An array of names back into bits; -1 with *cause "[I]: expected one of \"power_cap\",
 * ..., found X" or "expected an array of reason names, found X" (the caller puts the
 * key in front). */
int GpuThrottle_fromJson(const cJSON *array, unsigned *reasons, char **cause);

#endif
