/* Helpers shared by the test binaries: temporary files, source-tree paths, seeded
 * random data and float comparison with a readable failure message. */
#ifndef HEADER_testutil
#define HEADER_testutil

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "device/device.h"
#include "te/network.h"

/* A fresh directory under $TMPDIR (or /tmp); removed by TestUtil_removeTree. */
char *TestUtil_tempDir(void);
/* Writes text to dir/name and returns the path (caller frees). */
char *TestUtil_writeFile(const char *dir, const char *name, const char *text);
void TestUtil_removeTree(const char *dir);
/* The whole file as a string (caller frees); fails the current test when it cannot be
 * read. */
char *TestUtil_readFile(const char *path);
/* The source tree ($PTUI_SRCDIR, else "."), and a path inside it (caller frees). */
const char *TestUtil_srcdir(void);
char *TestUtil_srcPath(const char *rel);
/* Loads a task file of the source tree (rel to it), failing the test on an error. */
void TestUtil_loadNetwork(Network *net, const char *rel);
/* The shipped devices.yaml into a fresh set; fails the current test when it cannot. */
void TestUtil_loadDevices(DeviceSet *set);
/* Deterministic uniform values in [lo, hi). */
void TestUtil_fillRandom(float *buf, size_t n, uint64_t seed, float lo, float hi);
/* Fails the current test, naming the first element where |got - want| exceeds
 * atol + rtol * |want|. */
void TestUtil_assertClose(const float *got, const float *want, size_t n, double rtol,
                          double atol);
/* Runs a cmocka group whose tests after the first `withoutNvrtc` compile with NVRTC:
 * where NVRTC does not load, only those first ones run (cmocka 1.1.5 cannot skip one
 * test cleanly), and a TAP comment says why. */
int TestUtil_runGroup(const char *group, const struct CMUnitTest *tests, size_t n,
                      size_t withoutNvrtc);
/* For a binary that cannot run here: prints the TAP plan that skips it. */
int TestUtil_skipAll(const char *reason);

#endif
