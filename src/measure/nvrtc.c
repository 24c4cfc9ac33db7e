/* NVRTC through dlopen: the loader (once per process, newest soname first), the
 * compile of one program to a CUBIN with ptxas' verbose report in the log, and the
 * parser of that report. Only the entry points used here are declared, with our own
 * types, so that the build needs no CUDA headers and the binary no libnvrtc. */
#include "config.h"

#include "measure/nvrtc.h"

#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/textbuf.h"
#include "util/xalloc.h"

/* nvrtcResult is an enum (int-sized, 0 = NVRTC_SUCCESS); nvrtcProgram is opaque. */
typedef int NvrtcStatus;
typedef struct NvrtcProgramImpl_ *NvrtcProgram;

typedef NvrtcStatus (*NvrtcVersionFn)(int *major, int *minor);
typedef NvrtcStatus (*NvrtcCreateProgramFn)(NvrtcProgram *prog, const char *src,
                                            const char *name, int numHeaders,
                                            const char *const *headers,
                                            const char *const *includeNames);
typedef NvrtcStatus (*NvrtcCompileProgramFn)(NvrtcProgram prog, int numOptions,
                                             const char *const *options);
typedef NvrtcStatus (*NvrtcGetSizeFn)(NvrtcProgram prog, size_t *size);
typedef NvrtcStatus (*NvrtcGetBytesFn)(NvrtcProgram prog, char *bytes);
typedef NvrtcStatus (*NvrtcDestroyProgramFn)(NvrtcProgram *prog);
typedef const char *(*NvrtcGetErrorStringFn)(NvrtcStatus status);
typedef NvrtcStatus (*NvrtcGetNumSupportedArchsFn)(int *count);
typedef NvrtcStatus (*NvrtcGetSupportedArchsFn)(int *archs);

typedef struct NvrtcApi_ {
   NvrtcVersionFn version;
   NvrtcCreateProgramFn createProgram;
   NvrtcCompileProgramFn compileProgram;
   NvrtcGetSizeFn getProgramLogSize;
   NvrtcGetBytesFn getProgramLog;
   NvrtcGetSizeFn getCUBINSize;
   NvrtcGetBytesFn getCUBIN;
   NvrtcDestroyProgramFn destroyProgram;
   NvrtcGetErrorStringFn getErrorString;
   /* Optional (NVRTC 11.2 on): lets a wrong arch be named before compiling. */
   NvrtcGetNumSupportedArchsFn getNumSupportedArchs;
   NvrtcGetSupportedArchsFn getSupportedArchs;
} NvrtcApi;

#define MAX_ARCHS 64

/* Written only inside pthread_once, read-only afterwards: compiles need no lock. */
static struct {
   void *handle;
   char *path;
   NvrtcApi api;
   int major, minor;
   int narchs;                  /* 0 when the library cannot list them */
   int archs[MAX_ARCHS];
   char *error;
} lib;

static pthread_once_t libOnce = PTHREAD_ONCE_INIT;

/* Newest first: an older NVRTC cannot compile for a newer GPU. */
static const char *const sonames[] = {
   "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so.11.1",
   "libnvrtc.so.11.0", "libnvrtc.so",
};
#define NSONAMES (sizeof sonames / sizeof sonames[0])

typedef enum LoadOutcome_ { LOAD_OK, LOAD_NOT_OPENED, LOAD_INCOMPLETE } LoadOutcome;

/* dlsym returns void * and C11 has no conversion to a function pointer: store through
 * the pointer's address, as POSIX's dlsym page does. */
static int loadSymbol(void *handle, const char *name, void **slot, bool required,
                      const char *path, char **why) {
   *slot = dlsym(handle, name);
   if (!*slot && required) {
      free(*why);
      *why = xAsprintf("symbol %s missing in %s", name, path);
      return -1;
   }
   return 0;
}

static char *loadedPath(void *handle, const char *fallback) {
   struct link_map *map = NULL;
   if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && map->l_name[0])
      return xStrdup(map->l_name);
   return xStrdup(fallback);
}

/* Opens path and resolves every entry point. LOAD_NOT_OPENED leaves dlerror's text in
 * *why; LOAD_INCOMPLETE says which symbol or call failed. */
static LoadOutcome tryLoad(const char *path, char **why) {
   void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
   if (!handle) {
      const char *err = dlerror();
      free(*why);
      *why = xStrdup(err ? err : path);
      return LOAD_NOT_OPENED;
   }
   char *real = loadedPath(handle, path);
   NvrtcApi api;
   memset(&api, 0, sizeof api);
   int bad = 0;
#define REQUIRED(field, sym) \
   if (!bad) bad = loadSymbol(handle, sym, (void **)&api.field, true, real, why)
   REQUIRED(version, "nvrtcVersion");
   REQUIRED(createProgram, "nvrtcCreateProgram");
   REQUIRED(compileProgram, "nvrtcCompileProgram");
   REQUIRED(getProgramLogSize, "nvrtcGetProgramLogSize");
   REQUIRED(getProgramLog, "nvrtcGetProgramLog");
   REQUIRED(getCUBINSize, "nvrtcGetCUBINSize");
   REQUIRED(getCUBIN, "nvrtcGetCUBIN");
   REQUIRED(destroyProgram, "nvrtcDestroyProgram");
   REQUIRED(getErrorString, "nvrtcGetErrorString");
#undef REQUIRED
   if (!bad) {
      loadSymbol(handle, "nvrtcGetNumSupportedArchs", (void **)&api.getNumSupportedArchs,
                 false, real, why);
      loadSymbol(handle, "nvrtcGetSupportedArchs", (void **)&api.getSupportedArchs, false,
                 real, why);
   }
   int major = 0, minor = 0;
   if (!bad && api.version(&major, &minor) != 0) {
      free(*why);
      *why = xAsprintf("nvrtcVersion failed in %s", real);
      bad = -1;
   }
   if (bad) {
      dlclose(handle);
      free(real);
      return LOAD_INCOMPLETE;
   }
   lib.handle = handle;
   lib.path = real;
   lib.api = api;
   lib.major = major;
   lib.minor = minor;
   int n = 0;
   if (api.getNumSupportedArchs && api.getSupportedArchs &&
       api.getNumSupportedArchs(&n) == 0 && n > 0 && n <= MAX_ARCHS &&
       api.getSupportedArchs(lib.archs) == 0)
      lib.narchs = n;
   return LOAD_OK;
}

static bool isMissingFile(const char *dlerr) {
   return strstr(dlerr, "No such file") != NULL;
}

static void loadOnce(void) {
   char *why = NULL;
   const char *forced = getenv("PRUNER_TUI_NVRTC");
   if (forced && *forced) {
      LoadOutcome o = tryLoad(forced, &why);
      if (o == LOAD_NOT_OPENED)
         lib.error = xAsprintf("NVRTC not found: cannot load PRUNER_TUI_NVRTC=%s: %s", forced,
                               why);
      else if (o == LOAD_INCOMPLETE)
         lib.error = xStrdup(why);
      free(why);
      return;
   }

   const char *dirs[3];
   int ndirs = 0;
#ifdef PTUI_CUDA_DIR
   char lib64[PATH_MAX], libdir[PATH_MAX];
   snprintf(lib64, sizeof lib64, "%s/lib64", PTUI_CUDA_DIR);
   snprintf(libdir, sizeof libdir, "%s/lib", PTUI_CUDA_DIR);
   dirs[ndirs++] = lib64;
   dirs[ndirs++] = libdir;
#endif
   char home[PATH_MAX];
   const char *cudaHome = getenv("CUDA_HOME");
   if (cudaHome && *cudaHome) {
      snprintf(home, sizeof home, "%s/lib64", cudaHome);
      bool seen = false;
      for (int d = 0; d < ndirs; d++)
         seen = seen || strcmp(dirs[d], home) == 0;
      if (!seen)
         dirs[ndirs++] = home;
   }

   /* A library that opens but lacks an entry point (11.0 has no nvrtcGetCUBIN) does
    * not stop the search; it explains the failure if nothing better turns up. */
   char *incomplete = NULL, *otherError = NULL;
   for (size_t i = 0; i < NSONAMES; i++) {
      for (int d = -1; d < ndirs; d++) {
         char path[PATH_MAX];
         if (d < 0)
            snprintf(path, sizeof path, "%s", sonames[i]);
         else
            snprintf(path, sizeof path, "%s/%s", dirs[d], sonames[i]);
         LoadOutcome o = tryLoad(path, &why);
         if (o == LOAD_OK)
            goto done;
         if (o == LOAD_INCOMPLETE && !incomplete)
            incomplete = xStrdup(why);
         else if (o == LOAD_NOT_OPENED && !otherError && !isMissingFile(why))
            otherError = xStrdup(why);
      }
   }
   if (incomplete) {
      lib.error = incomplete;
      incomplete = NULL;
   } else {
      char msg[2048];
      TextBuf t = TextBuf_over(msg, sizeof msg);
      TextBuf_add(&t, "NVRTC not found: tried");
      for (size_t i = 0; i < NSONAMES; i++)
         TextBuf_add(&t, "%s %s", i ? "," : "", sonames[i]);
      TextBuf_add(&t, " on the loader path");
      for (int d = 0; d < ndirs; d++)
         TextBuf_add(&t, "%s %s", d ? (d == ndirs - 1 ? " and" : ",") : " and in", dirs[d]);
      TextBuf_add(&t, "; set PRUNER_TUI_NVRTC to the library file");
      if (otherError)
         TextBuf_add(&t, " (%s)", otherError);
      lib.error = xStrdup(msg);
   }
done:
   free(incomplete);
   free(otherError);
   free(why);
}

int Nvrtc_open(char **cause) {
   pthread_once(&libOnce, loadOnce);
   if (lib.handle)
      return 0;
   return setCause(cause, "%s", lib.error ? lib.error : "NVRTC could not be loaded");
}

bool Nvrtc_available(void) {
   return Nvrtc_open(NULL) == 0;
}

const char *Nvrtc_libraryPath(void) {
   return Nvrtc_open(NULL) == 0 ? lib.path : NULL;
}

int Nvrtc_version(int *major, int *minor) {
   bool ok = Nvrtc_open(NULL) == 0;
   if (major)
      *major = ok ? lib.major : -1;
   if (minor)
      *minor = ok ? lib.minor : -1;
   return ok ? 0 : -1;
}

void NvrtcResult_done(NvrtcResult *r) {
   if (!r)
      return;
   free(r->cubin);
   free(r->log);
   free(r->kernels);
   memset(r, 0, sizeof *r);
}

const NvrtcKernelInfo *NvrtcResult_kernel(const NvrtcResult *r, const char *name) {
   for (int i = 0; r && name && i < r->nkernels; i++)
      if (strcmp(r->kernels[i].name, name) == 0)
         return &r->kernels[i];
   return NULL;
}

/* ---- ptxas' verbose report ---- */

typedef struct FrameLine_ {
   char *function;
   int stack, spillStores, spillLoads;
} FrameLine;

typedef struct Report_ {
   NvrtcKernelInfo *kernels;
   char **fullNames;            /* kernels[i].name may be cut; matching uses these */
   int n, cap;
   FrameLine *frames;           /* every "stack frame" line, entry function or not */
   int nframes, capFrames;
   char *propertiesOf;          /* the function the next "stack frame" line describes */
} Report;

static void Report_free(Report *rep) {
   for (int i = 0; i < rep->n; i++)
      free(rep->fullNames[i]);
   for (int i = 0; i < rep->nframes; i++)
      free(rep->frames[i].function);
   free(rep->kernels);
   free(rep->fullNames);
   free(rep->frames);
   free(rep->propertiesOf);
}

static const char *skipSpace(const char *s) {
   while (*s == ' ' || *s == '\t')
      s++;
   return s;
}

static bool startsWith(const char *s, const char *prefix) {
   return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* A decimal that fits in an int; *end after it. */
static bool readInt(const char *s, const char **end, int *value) {
   if (*s < '0' || *s > '9')
      return false;
   long v = 0;
   while (*s >= '0' && *s <= '9') {
      v = v * 10 + (*s - '0');
      if (v > INT_MAX)
         return false;
      s++;
   }
   *value = (int)v;
   *end = s;
   return true;
}

/* "N bytes WHAT" or, from old ptxas, "N+M bytes WHAT" (summed). */
static bool readAmount(const char *item, int *bytes, const char **what) {
   const char *s = skipSpace(item);
   int total = 0, v;
   for (;;) {
      if (!readInt(s, &s, &v) || v > INT_MAX - total)
         return false;
      total += v;
      if (*s != '+')
         break;
      s++;
   }
   s = skipSpace(s);
   if (!startsWith(s, "bytes"))
      return false;
   *bytes = total;
   *what = skipSpace(s + strlen("bytes"));
   return true;
}

/* The items of a comma-separated list, one at a time, into a bounded buffer. */
static const char *nextItem(const char *s, char *item, size_t size) {
   const char *comma = strchr(s, ',');
   size_t len = comma ? (size_t)(comma - s) : strlen(s);
   if (len >= size)
      len = size - 1;
   memcpy(item, s, len);
   item[len] = '\0';
   return comma ? comma + 1 : NULL;
}

static int entryFunction(Report *rep, const char *body, int lineNo, char **cause) {
   const char *name = body + strlen("Compiling entry function '");
   const char *close = strstr(name, "' for '");
   if (!close)
      close = strchr(name, '\'');
   if (!close || close == name)
      return setCause(cause, "ptxas report line %d: no function name in \"%s\"", lineNo, body);
   if (rep->n == rep->cap) {
      rep->cap = rep->cap ? 2 * rep->cap : 8;
      rep->kernels = xReallocArray(rep->kernels, (size_t)rep->cap, sizeof *rep->kernels);
      rep->fullNames = xReallocArray(rep->fullNames, (size_t)rep->cap, sizeof *rep->fullNames);
   }
   NvrtcKernelInfo *k = &rep->kernels[rep->n];
   rep->fullNames[rep->n] = xStrndup(name, (size_t)(close - name));
   rep->n++;
   snprintf(k->name, sizeof k->name, "%s", rep->fullNames[rep->n - 1]);
   k->registers = k->sharedBytes = k->constBytes = -1;
   k->stackBytes = k->spillStores = k->spillLoads = -1;
   return 0;
}

static void propertiesFor(Report *rep, const char *body) {
   const char *name = skipSpace(body + strlen("Function properties for "));
   size_t len = strlen(name);
   /* nvlink's form is "'NAME':"; ptxas prints the bare name. */
   if (len && name[len - 1] == ':')
      len--;
   if (len >= 2 && name[0] == '\'' && name[len - 1] == '\'') {
      name++;
      len -= 2;
   }
   free(rep->propertiesOf);
   rep->propertiesOf = xStrndup(name, len);
}

/* "Used N registers[, used N barriers][, N bytes cumulative stack size][, N bytes smem]
 * [, N bytes cmem[K]]..." for the entry function compiled last. */
static int usedLine(Report *rep, const char *body, int lineNo, char **cause) {
   const char *s = body + strlen("Used ");
   int regs;
   if (!readInt(s, &s, &regs) || !startsWith(s, " registers"))
      return setCause(cause, "ptxas report line %d: cannot read \"%s\"", lineNo, body);
   if (rep->n == 0)
      return 0;               /* not for an entry function: nothing to attach it to */
   NvrtcKernelInfo *k = &rep->kernels[rep->n - 1];
   k->registers = regs;
   k->sharedBytes = 0;
   const char *rest = strchr(s, ',');
   rest = rest ? rest + 1 : NULL;
   while (rest) {
      char item[256];
      rest = nextItem(rest, item, sizeof item);
      int bytes;
      const char *what;
      if (!readAmount(item, &bytes, &what))
         continue;             /* "used N barriers" and whatever later versions add */
      if (startsWith(what, "smem"))
         k->sharedBytes = bytes;
      else if (startsWith(what, "cmem["))
         k->constBytes = (k->constBytes < 0 ? 0 : k->constBytes) + bytes;
   }
   return 0;
}

/* "N bytes stack frame, N bytes spill stores, N bytes spill loads" for the function
 * named by the "Function properties for" line before it. */
static int frameLine(Report *rep, const char *body, int lineNo, char **cause) {
   if (!rep->propertiesOf)
      return 0;
   FrameLine f = { NULL, -1, -1, -1 };
   const char *rest = body;
   while (rest) {
      char item[256];
      rest = nextItem(rest, item, sizeof item);
      int bytes;
      const char *what;
      if (!readAmount(item, &bytes, &what))
         return setCause(cause, "ptxas report line %d: cannot read \"%s\"", lineNo, body);
      if (startsWith(what, "stack frame"))
         f.stack = bytes;
      else if (startsWith(what, "spill stores"))
         f.spillStores = bytes;
      else if (startsWith(what, "spill loads"))
         f.spillLoads = bytes;
   }
   if (rep->nframes == rep->capFrames) {
      rep->capFrames = rep->capFrames ? 2 * rep->capFrames : 8;
      rep->frames = xReallocArray(rep->frames, (size_t)rep->capFrames, sizeof *rep->frames);
   }
   f.function = rep->propertiesOf;
   rep->propertiesOf = NULL;
   rep->frames[rep->nframes++] = f;
   return 0;
}

/* ptxas lines are "ptxas info    : TEXT", "ptxas warning : TEXT" and, for the frame
 * line, "ptxas         .     TEXT" (CUDA 12.8 on) or plain indentation (before). */
static int reportLine(Report *rep, const char *line, int lineNo, char **cause) {
   const char *s = skipSpace(line);
   bool indented = s != line;
   const char *body;
   bool info = false;
   if (startsWith(s, "ptxas")) {
      s = skipSpace(s + strlen("ptxas"));
      if (startsWith(s, "info")) {
         s = skipSpace(s + strlen("info"));
         if (*s != ':')
            return 0;
         info = true;
         body = skipSpace(s + 1);
      } else if (*s == '.') {
         body = skipSpace(s + 1);
      } else {
         return 0;            /* warnings, errors */
      }
   } else if (indented) {
      body = s;
   } else {
      return 0;
   }
   if (info && startsWith(body, "Compiling entry function '"))
      return entryFunction(rep, body, lineNo, cause);
   if (info && startsWith(body, "Function properties for "))
      propertiesFor(rep, body);
   else if (info && startsWith(body, "Used "))
      return usedLine(rep, body, lineNo, cause);
   else if (!info && strstr(body, "bytes stack frame"))
      return frameLine(rep, body, lineNo, cause);
   return 0;
}

int Nvrtc_parsePtxasReport(const char *log, NvrtcResult *out, char **cause) {
   free(out->kernels);
   out->kernels = NULL;
   out->nkernels = 0;
   if (!log)
      return setCause(cause, "no ptxas report (the log is NULL)");
   Report rep;
   memset(&rep, 0, sizeof rep);
   int lineNo = 0, rc = 0;
   for (const char *p = log; *p && rc == 0;) {
      const char *nl = strchr(p, '\n');
      size_t len = nl ? (size_t)(nl - p) : strlen(p);
      while (len && (p[len - 1] == '\r' || p[len - 1] == ' '))
         len--;
      char *line = xStrndup(p, len);
      rc = reportLine(&rep, line, ++lineNo, cause);
      free(line);
      p = nl ? nl + 1 : p + strlen(p);
   }
   if (rc == 0) {
      for (int i = 0; i < rep.n; i++) {
         /* The last frame line wins, should a function be reported twice. */
         for (int j = rep.nframes - 1; j >= 0; j--) {
            if (strcmp(rep.frames[j].function, rep.fullNames[i]) == 0) {
               rep.kernels[i].stackBytes = rep.frames[j].stack;
               rep.kernels[i].spillStores = rep.frames[j].spillStores;
               rep.kernels[i].spillLoads = rep.frames[j].spillLoads;
               break;
            }
         }
      }
      out->kernels = rep.kernels;
      out->nkernels = rep.n;
      rep.kernels = NULL;
   }
   Report_free(&rep);
   return rc;
}

/* ---- compiling ---- */

static const char *statusText(NvrtcStatus status) {
   const char *s = lib.api.getErrorString(status);
   return s ? s : "unknown NVRTC error";
}

bool Nvrtc_isArch(const char *arch) {
   const char *d = arch && startsWith(arch, "sm_") ? arch + 3 : NULL;
   size_t nd = d ? strspn(d, "0123456789") : 0;
   return d && (nd == 2 || nd == 3) && d[nd] == '\0' && d[0] != '0';
}

static int checkArch(const char *program, const char *arch, int *number, char **cause) {
   if (!Nvrtc_isArch(arch))
      return setCause(cause,
                      "%s: bad GPU architecture \"%s\": expected sm_ and 2 or 3 digits, "
                      "such as sm_80 or sm_90",
                      program, arch ? arch : "(none)");
   *number = atoi(arch + 3);
   return 0;
}

static int checkSupported(const char *program, const char *arch, int number, char **cause) {
   if (lib.narchs == 0)
      return 0;               /* cannot tell; NVRTC will say */
   for (int i = 0; i < lib.narchs; i++)
      if (lib.archs[i] == number)
         return 0;
   char list[512];
   TextBuf t = TextBuf_over(list, sizeof list);
   for (int i = 0; i < lib.narchs; i++)
      TextBuf_add(&t, "%ssm_%d", i ? " " : "", lib.archs[i]);
   return setCause(cause, "%s%sNVRTC %d.%d cannot compile for %s; it supports %s", program ? program : "",
                   program ? ": " : "", lib.major, lib.minor, arch, list);
}

int Nvrtc_supportsArch(const char *arch, char **cause) {
   int number = 0;
   if (checkArch("NVRTC", arch, &number, cause) < 0)
      return -1;
   return checkSupported(NULL, arch, number, cause);
}

static char *programLog(NvrtcProgram prog) {
   size_t size = 0;
   if (lib.api.getProgramLogSize(prog, &size) != 0 || size == 0)
      return xStrdup("");
   char *log = xMalloc(size + 1);
   if (lib.api.getProgramLog(prog, log) != 0) {
      free(log);
      return xStrdup("");
   }
   log[size] = '\0';
   return log;
}

/* The line a user wants to see first: the first one that says "error", else the first
 * non-blank one. NULL for an empty log. */
static char *firstErrorLine(const char *log) {
   const char *pick = NULL;
   size_t pickLen = 0;
   for (const char *p = log; *p;) {
      const char *nl = strchr(p, '\n');
      size_t len = nl ? (size_t)(nl - p) : strlen(p);
      while (len && (p[len - 1] == '\r' || p[len - 1] == ' ' || p[len - 1] == '\t'))
         len--;
      bool hasError = false;
      for (size_t i = 0; i + 5 <= len; i++)
         if (memcmp(p + i, "error", 5) == 0)
            hasError = true;
      if (hasError)
         return xStrndup(p, len);
      if (!pick && skipSpace(p) < p + len) {
         pick = p;
         pickLen = len;
      }
      p = nl ? nl + 1 : p + len;
   }
   return pick ? xStrndup(pick, pickLen) : NULL;
}

static double secondsSince(const struct timespec *t0) {
   struct timespec t1;
   clock_gettime(CLOCK_MONOTONIC, &t1);
   return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-9;
}

int Nvrtc_compile(const char *source, const char *programName, const char *arch,
                  NvrtcResult *out, char **cause) {
   memset(out, 0, sizeof *out);
   const char *name = programName && *programName ? programName : "program.cu";
   int number = 0;
   if (checkArch(name, arch, &number, cause) < 0)
      return -1;
   if (!source)
      return setCause(cause, "%s: no source", name);
   if (Nvrtc_open(cause) < 0)
      return -1;
   if (checkSupported(name, arch, number, cause) < 0)
      return -1;

   char archOption[32];
   snprintf(archOption, sizeof archOption, "--gpu-architecture=%s", arch);
   /* -default-device: our kernels' helpers need no __device__ on every function.
    * --std=c++17 pins the dialect; NVRTC 11 defaults to C++14. */
   const char *const options[] = { archOption, "--ptxas-options=-v", "-default-device",
                                   "--std=c++17" };
   const int noptions = (int)(sizeof options / sizeof options[0]);

   struct timespec t0;
   clock_gettime(CLOCK_MONOTONIC, &t0);
   NvrtcProgram prog = NULL;
   NvrtcStatus st = lib.api.createProgram(&prog, source, name, 0, NULL, NULL);
   if (st != 0) {
      out->seconds = secondsSince(&t0);
      return setCause(cause, "%s: nvrtcCreateProgram failed: %s", name, statusText(st));
   }
   NvrtcStatus compiled = lib.api.compileProgram(prog, noptions, options);
   out->log = programLog(prog);
   int rc = 0;
   if (compiled != 0) {
      char *first = firstErrorLine(out->log);
      rc = setCause(cause, "%s: compilation failed for %s: %s", name, arch,
                    first ? first : statusText(compiled));
      free(first);
   } else {
      size_t size = 0;
      st = lib.api.getCUBINSize(prog, &size);
      if (st == 0 && size == 0)
         rc = setCause(cause, "%s: NVRTC produced no CUBIN for %s", name, arch);
      else if (st == 0) {
         out->cubin = xMalloc(size);
         out->cubinSize = size;
         st = lib.api.getCUBIN(prog, out->cubin);
      }
      if (rc == 0 && st != 0)
         rc = setCause(cause, "%s: cannot fetch the CUBIN for %s: %s", name, arch,
                       statusText(st));
   }
   lib.api.destroyProgram(&prog);
   out->seconds = secondsSince(&t0);
   if (rc != 0)
      return rc;

   char *why = NULL;
   if (Nvrtc_parsePtxasReport(out->log, out, &why) < 0) {
      rc = setCause(cause, "%s: %s", name, why);
      free(why);
   }
   return rc;
}
