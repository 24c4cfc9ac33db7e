/* NVML opened with dlopen, nvtop's way: our own minimal types, every entry point looked
 * up by its explicit versioned name, and one table of the throttle reasons' names. */
#include "config.h"

#include "measure/gpustate.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/textbuf.h"
#include "util/xalloc.h"

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;

enum { NVML_SUCCESS = 0 };
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
enum { NVML_TEMPERATURE_GPU = 0 };

struct GpuState_ {
   void *lib;
   char path[256];
   nvmlDevice_t device;
   nvmlReturn_t (*nvmlInit)(void);
   nvmlReturn_t (*nvmlShutdown)(void);
   const char *(*nvmlErrorString)(nvmlReturn_t result);
   nvmlReturn_t (*nvmlDeviceGetHandleByIndex)(unsigned index, nvmlDevice_t *device);
   nvmlReturn_t (*nvmlDeviceGetHandleByPciBusId)(const char *pciBusId, nvmlDevice_t *device);
   nvmlReturn_t (*nvmlDeviceGetClockInfo)(nvmlDevice_t device, int type, unsigned *mhz);
   nvmlReturn_t (*nvmlDeviceGetTemperature)(nvmlDevice_t device, int sensor, unsigned *celsius);
   nvmlReturn_t (*nvmlDeviceGetPowerUsage)(nvmlDevice_t device, unsigned *milliwatts);
   nvmlReturn_t (*nvmlDeviceGetEnforcedPowerLimit)(nvmlDevice_t device, unsigned *milliwatts);
   nvmlReturn_t (*nvmlDeviceGetCurrentClocksThrottleReasons)(nvmlDevice_t device,
                                                             unsigned long long *reasons);
};

typedef struct {
   size_t offset;
   const char *symbol;
} NvmlSymbol;

#define SYM(field, name) { offsetof(GpuState, field), name }
static const NvmlSymbol symbols[] = {
   SYM(nvmlInit, "nvmlInit_v2"),
   SYM(nvmlShutdown, "nvmlShutdown"),
   SYM(nvmlErrorString, "nvmlErrorString"),
   SYM(nvmlDeviceGetHandleByIndex, "nvmlDeviceGetHandleByIndex_v2"),
   SYM(nvmlDeviceGetHandleByPciBusId, "nvmlDeviceGetHandleByPciBusId_v2"),
   SYM(nvmlDeviceGetClockInfo, "nvmlDeviceGetClockInfo"),
   SYM(nvmlDeviceGetTemperature, "nvmlDeviceGetTemperature"),
   SYM(nvmlDeviceGetPowerUsage, "nvmlDeviceGetPowerUsage"),
   SYM(nvmlDeviceGetEnforcedPowerLimit, "nvmlDeviceGetEnforcedPowerLimit"),
   SYM(nvmlDeviceGetCurrentClocksThrottleReasons, "nvmlDeviceGetCurrentClocksThrottleReasons"),
};

static void unload(GpuState *g) {
   if (g->lib)
      dlclose(g->lib);
   free(g);
}

GpuState *GpuState_open(const char *pciBusId, int index, char **cause) {
   GpuState *g = xCalloc(1, sizeof *g);
   const char *env = getenv("PRUNER_TUI_LIBNVML");
   const char *name = env && *env ? env : "libnvidia-ml.so.1";
   snprintf(g->path, sizeof g->path, "%s", name);
   g->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
   if (!g->lib) {
      setCause(cause, "no GPU state: cannot open NVML %s (%s)", name, dlerror());
      unload(g);
      return NULL;
   }
   for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
      void *fn = dlsym(g->lib, symbols[i].symbol);
      if (!fn) {
         setCause(cause, "no GPU state: NVML %s lacks %s", name, symbols[i].symbol);
         unload(g);
         return NULL;
      }
      memcpy((char *)g + symbols[i].offset, &fn, sizeof fn);
   }
   nvmlReturn_t rc = g->nvmlInit();
   if (rc != NVML_SUCCESS) {
      setCause(cause, "no GPU state: NVML %s failed to initialize (%s)", name, g->nvmlErrorString(rc));
      unload(g);
      return NULL;
   }
   if (pciBusId && *pciBusId)
      rc = g->nvmlDeviceGetHandleByPciBusId(pciBusId, &g->device);
   else
      rc = g->nvmlDeviceGetHandleByIndex((unsigned)index, &g->device);
   if (rc != NVML_SUCCESS) {
      if (pciBusId && *pciBusId)
         setCause(cause, "no GPU state: NVML has no GPU at PCI bus id %s (%s)", pciBusId,
                  g->nvmlErrorString(rc));
      else
         setCause(cause, "no GPU state: NVML has no GPU %d (%s)", index, g->nvmlErrorString(rc));
      g->nvmlShutdown();
      unload(g);
      return NULL;
   }
   return g;
}

void GpuState_close(GpuState *g) {
   if (!g)
      return;
   g->nvmlShutdown();
   unload(g);
}

const char *GpuState_library(const GpuState *g) {
   return g->path;
}

void GpuState_sample(GpuState *g, GpuSample *s) {
   memset(s, 0, sizeof *s);
   unsigned v;
   unsigned long long reasons;
   if (g->nvmlDeviceGetClockInfo(g->device, NVML_CLOCK_SM, &s->smMhz) == NVML_SUCCESS)
      s->valid |= GPU_HAS_SM_CLOCK;
   if (g->nvmlDeviceGetClockInfo(g->device, NVML_CLOCK_MEM, &s->memMhz) == NVML_SUCCESS)
      s->valid |= GPU_HAS_MEM_CLOCK;
   if (g->nvmlDeviceGetTemperature(g->device, NVML_TEMPERATURE_GPU, &s->celsius) == NVML_SUCCESS)
      s->valid |= GPU_HAS_TEMPERATURE;
   if (g->nvmlDeviceGetPowerUsage(g->device, &v) == NVML_SUCCESS) {
      s->watts = v / 1000.0;
      s->valid |= GPU_HAS_POWER;
   }
   if (g->nvmlDeviceGetEnforcedPowerLimit(g->device, &v) == NVML_SUCCESS) {
      s->limitWatts = v / 1000.0;
      s->valid |= GPU_HAS_POWER_LIMIT;
   }
   if (g->nvmlDeviceGetCurrentClocksThrottleReasons(g->device, &reasons) == NVML_SUCCESS) {
      s->throttle = (unsigned)(reasons & 0xffffffffu);
      s->valid |= GPU_HAS_THROTTLE;
   }
}

unsigned GpuSample_slowing(const GpuSample *s) {
   return s->valid & GPU_HAS_THROTTLE ? s->throttle & GPU_THROTTLE_SLOWING : 0;
}

/* A whole number and its unit, or N/A */
static void value(TextBuf *t, unsigned valid, double v, const char *unit) {
   if (valid)
      TextBuf_add(t, "%.0f%s", v, unit);
   else
      TextBuf_add(t, "N/A%s", unit);
}

void GpuSample_format(const GpuSample *s, char *buf, size_t size) {
   TextBuf t = TextBuf_over(buf, size);
   if (!s->valid)
      return;
   value(&t, s->valid & GPU_HAS_SM_CLOCK, s->smMhz, "/");
   value(&t, s->valid & GPU_HAS_MEM_CLOCK, s->memMhz, " MHz ");
   value(&t, s->valid & GPU_HAS_TEMPERATURE, s->celsius, "C ");
   value(&t, s->valid & GPU_HAS_POWER, s->watts, "/");
   value(&t, s->valid & GPU_HAS_POWER_LIMIT, s->limitWatts, "W");
}

/* ---- the reasons ---- */

static const struct {
   unsigned bit;
   const char *name;            /* in records and sessions */
   const char *word;            /* on the screen */
} reasonNames[] = {
   { GPU_THROTTLE_POWER_CAP, "power_cap", "power" },
   { GPU_THROTTLE_HW_SLOWDOWN, "hw_slowdown", "hw-slowdown" },
   { GPU_THROTTLE_SYNC_BOOST, "sync_boost", "sync-boost" },
   { GPU_THROTTLE_SW_THERMAL, "sw_thermal", "thermal" },
   { GPU_THROTTLE_HW_THERMAL, "hw_thermal", "hw-thermal" },
   { GPU_THROTTLE_POWER_BRAKE, "power_brake", "power-brake" },
   { GPU_THROTTLE_DISPLAY_CLOCK, "display_clock", "display" },
};
#define NREASONS (sizeof reasonNames / sizeof reasonNames[0])

const char *GpuThrottle_name(unsigned bit) {
   for (size_t i = 0; i < NREASONS; i++)
      if (reasonNames[i].bit == bit)
         return reasonNames[i].name;
   return NULL;
}

const char *GpuThrottle_word(unsigned bit) {
   for (size_t i = 0; i < NREASONS; i++)
      if (reasonNames[i].bit == bit)
         return reasonNames[i].word;
   return NULL;
}

void GpuThrottle_format(unsigned reasons, char *buf, size_t size) {
   TextBuf t = TextBuf_over(buf, size);
   const char *sep = "THROTTLE: ";
   for (size_t i = 0; i < NREASONS; i++)
      if (reasons & reasonNames[i].bit) {
         TextBuf_add(&t, "%s%s", sep, reasonNames[i].word);
         sep = ",";
      }
}

cJSON *GpuThrottle_toJson(unsigned reasons) {
   cJSON *a = cJSON_CreateArray();
   if (!a)
      fatal("out of memory building a list of throttle reasons");
   for (size_t i = 0; i < NREASONS; i++)
      if ((reasons & reasonNames[i].bit) && !cJSON_AddItemToArray(a, cJSON_CreateString(reasonNames[i].name)))
         fatal("out of memory building a list of throttle reasons");
   return a;
}

static void expected(TextBuf *t) {
   TextBuf_add(t, "expected one of");
   for (size_t i = 0; i < NREASONS; i++)
      TextBuf_add(t, "%s \"%s\"", i ? "," : "", reasonNames[i].name);
}

int GpuThrottle_fromJson(const cJSON *array, unsigned *reasons, char **cause) {
   *reasons = 0;
   if (!cJSON_IsArray(array))
      return setCause(cause, "expected an array of throttle reason names, found %s",
                      cJSON_IsObject(array) ? "an object" : cJSON_IsString(array) ? "a string" : "a value");
   int i = 0;
   for (const cJSON *c = array->child; c; c = c->next, i++) {
      unsigned bit = 0;
      for (size_t k = 0; cJSON_IsString(c) && k < NREASONS; k++)
         if (strcmp(c->valuestring, reasonNames[k].name) == 0)
            bit = reasonNames[k].bit;
      if (!bit) {
         char msg[256];
         TextBuf t = TextBuf_over(msg, sizeof msg);
         expected(&t);
         if (cJSON_IsString(c))
            return setCause(cause, "[%d]: %s, found \"%.40s\"", i, msg, c->valuestring);
         return setCause(cause, "[%d]: %s, found %s", i, msg, cJSON_IsNumber(c) ? "a number" : "a value");
      }
      *reasons |= bit;
   }
   return 0;
}
