/* Helpers shared by the test binaries. */
#include "config.h"

#include "testutil.h"

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/nvrtc.h"
#include "util/xalloc.h"

char *TestUtil_tempDir(void) {
   const char *base = getenv("TMPDIR");
   char *path = xAsprintf("%s/ptui-test-XXXXXX", base && *base ? base : "/tmp");
   if (!mkdtemp(path))
      fatal("mkdtemp %s failed", path);
   return path;
}

char *TestUtil_writeFile(const char *dir, const char *name, const char *text) {
   char *path = xAsprintf("%s/%s", dir, name);
   FILE *f = fopen(path, "wb");
   if (!f)
      fatal("cannot write %s", path);
   fwrite(text, 1, strlen(text), f);
   fclose(f);
   return path;
}

char *TestUtil_readFile(const char *path) {
   FILE *f = fopen(path, "rb");
   if (!f)
      fail_msg("cannot open %s", path);
   char *text = NULL;
   size_t len = 0, cap = 0, n;
   char chunk[4096];
   while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
      if (len + n + 1 > cap) {
         cap = 2 * (len + n + 1);
         text = xRealloc(text, cap);
      }
      memcpy(text + len, chunk, n);
      len += n;
   }
   fclose(f);
   text = xRealloc(text, len + 1);
   text[len] = '\0';
   return text;
}

static int removeEntry(const char *path, const struct stat *sb, int type, struct FTW *ftw) {
   (void)sb; (void)type; (void)ftw;
   return remove(path);
}

void TestUtil_removeTree(const char *dir) {
   nftw(dir, removeEntry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *TestUtil_srcdir(void) {
   const char *s = getenv("PTUI_SRCDIR");
   return s && *s ? s : ".";
}

char *TestUtil_srcPath(const char *rel) {
   return xAsprintf("%s/%s", TestUtil_srcdir(), rel);
}

void TestUtil_loadNetwork(Network *net, const char *rel) {
   char *path = TestUtil_srcPath(rel);
   char *cause = NULL;
   if (Network_load(net, path, &cause) < 0)
      fail_msg("%s", cause);
   free(path);
}

void TestUtil_loadDevices(DeviceSet *set) {
   char *path = TestUtil_srcPath("devices.yaml");
   char *cause = NULL;
   DeviceSet_init(set);
   if (DeviceSet_load(set, path, &cause) < 0)
      fail_msg("%s", cause);
   free(path);
}

void TestUtil_fillRandom(float *buf, size_t n, uint64_t seed, float lo, float hi) {
   uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
   for (size_t i = 0; i < n; i++) {
      /* splitmix64 */
      x += 0x9E3779B97F4A7C15ull;
      uint64_t z = x;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      double u = (double)(z >> 11) / 9007199254740992.0;
      buf[i] = lo + (float)(u * (hi - lo));
   }
}

void TestUtil_assertClose(const float *got, const float *want, size_t n, double rtol,
                          double atol) {
   for (size_t i = 0; i < n; i++) {
      double g = got[i], w = want[i];
      bool ok = (isinf(w) && g == w) || fabs(g - w) <= atol + rtol * fabs(w);
      if (!ok)
         fail_msg("element %zu of %zu: got %.9g, expected %.9g (rtol %g, atol %g)", i, n, g, w,
                  rtol, atol);
   }
}

int TestUtil_runGroup(const char *group, const struct CMUnitTest *tests, size_t n,
                      size_t withoutNvrtc) {
   char *cause = NULL;
   if (Nvrtc_open(&cause) != 0) {
      fprintf(stderr, "# only the tests that need no NVRTC: %s\n", cause);
      free(cause);
      n = withoutNvrtc;
   }
   return _cmocka_run_group_tests(group, tests, n, NULL, NULL);
}

int TestUtil_skipAll(const char *reason) {
   printf("1..0 # SKIP %s\n", reason);
   return 0;
}
