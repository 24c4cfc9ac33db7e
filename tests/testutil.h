/* Helpers shared by the test binaries: temporary files, source-tree paths, seeded
 * random data, float comparison with a readable failure message and gradient checks
 * against finite differences. */
#ifndef HEADER_testutil
#define HEADER_testutil

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cost/dataset.h"
#include "cost/model.h"
#include "device/device.h"
#include "graph/graph.h"
#include "sched/sketch.h"
#include "te/network.h"
#include "tune/scheduler.h"
#include "tune/session.h"

/* A fresh directory under $TMPDIR (or /tmp); removed by TestUtil_removeTree. */
char *TestUtil_tempDir(void);
/* A cmocka group's setup and teardown that make TestUtil_groupDir a fresh
 * temporary directory for the group's tests, and remove it. */
extern char *TestUtil_groupDir;
int TestUtil_setUpGroupDir(void **state);
int TestUtil_tearDownGroupDir(void **state);
/* Writes text to dir/name and returns the path (caller frees). */
char *TestUtil_writeFile(const char *dir, const char *name, const char *text);
void TestUtil_removeTree(const char *dir);
/* The whole file as a string (caller frees); fails the current test when it cannot be
 * read. */
char *TestUtil_readFile(const char *path);
/* How many of this process's threads have the name `name`, as
 * /proc/self/task/TID/comm (and so top -H and htop) shows them. */
int TestUtil_threadsNamed(const char *name);
/* The same count once it equals `want`, or after 10 s, whichever is first. A joined
 * thread stays listed in /proc for a moment after pthread_join returns (the kernel
 * wakes the joiner before it has reaped the thread), so a count right after a join
 * can still include it. */
int TestUtil_threadsNamedSettle(const char *name, int want);
/* The source tree ($PTUI_SRCDIR, else "."), and a path inside it (caller frees). */
const char *TestUtil_srcdir(void);
char *TestUtil_srcPath(const char *rel);
/* Loads a task file of the source tree (rel to it), failing the test on an error. */
void TestUtil_loadNetwork(Network *net, const char *rel);
/* Reads a session file of the source tree (rel to it) into log (SessionLog_init'ed),
 * failing the test on an error. */
void TestUtil_readSession(SessionLog *log, const char *rel);
/* A network of the one task of a task file's line ("{op: dense, m: 8, ...}") with the
 * task's DAG and sketches, failing the test on an error. */
void TestUtil_buildTask(Network *net, Dag *g, SketchSet *set, const char *yamlTask);
/* SchedulerSnapshot_printTable's text (caller frees); fails the test when it fails.
 * The table's lines before the rows, and the rule after them: */
#define TESTUTIL_TABLE_TITLE \
   "----------------------------------------------------------------------\n" \
   "------------------------------  [ Task Scheduler ]\n" \
   "----------------------------------------------------------------------\n" \
   "|  ID  |                       Task Description                        | Latency (ms) | Speed (GFLOPS) | Trials |\n" \
   "-----------------------------------------------------------------------------------------------------------------\n"
#define TESTUTIL_TABLE_RULE \
   "-----------------------------------------------------------------------------------------------------------------\n"
char *TestUtil_tableText(const SchedulerSnapshot *snap, const char *const *descs, double elapsed, int next);
/* The shipped devices.yaml into a fresh set; fails the current test when it cannot. */
void TestUtil_loadDevices(DeviceSet *set);
/* Deterministic uniform values in [lo, hi). */
void TestUtil_fillRandom(float *buf, size_t n, uint64_t seed, float lo, float hi);
/* Fails the current test, naming the first element where |got - want| exceeds
 * atol + rtol * |want|. */
void TestUtil_assertClose(const float *got, const float *want, size_t n, double rtol,
                          double atol);
/* Writes bytes to dir/name and returns the path (caller frees). */
char *TestUtil_writeBytes(const char *dir, const char *name, const void *bytes, size_t n);
/* The whole file (caller frees); *n its length. */
unsigned char *TestUtil_readBytes(const char *path, size_t *n);
/* A checkpoint's bytes written to dir/name as TestUtil_writeBytes does, with the
 * checksum made right for them first (when n reaches it), so that a test of what the
 * reader says of other damage is not stopped by the checksum. */
char *TestUtil_writeSealed(const char *dir, const char *name, const unsigned char *bytes, size_t n);
/* Loading the checkpoint at path fails with exactly "PATH: <want>". */
void TestUtil_assertLoadFails(const char *path, const char *want);
/* m saved to dir/name (of wantBytes bytes, 0 for any) and loaded back. */
CostModel *TestUtil_saveAndLoad(const CostModel *m, const char *dir, const char *name, size_t wantBytes);
/* a and b give d the same scores, to the bit. */
void TestUtil_assertSameScores(CostModel *a, CostModel *b, const Dataset *d);
/* Synthetic measured programs for the learned models: programs of minRows to 4 rows
 * whose throughput is the sum over rows of 0.2 + 2 x0 + x1^2 + (x2 > 0.5), where xj
 * is the row's feature j; features 3 to 9 are noise and the rest 0. A program of task
 * t costs (1 + t) / throughput, or DATASET_FAILED_COST for every failEvery-th (0:
 * none). With patterns, every other program has a pattern block of noise in [0, 1)
 * (the others none); with workload, the rows' workload embedding is task t's one-hot.
 * Labels are the relabel's: the throughput over the task's best. */
typedef struct TestSynthetic_ {
   int tasks, programs, minRows, failEvery;
   bool patterns, workload;
   uint64_t seed;
} TestSynthetic;
void TestUtil_synthetic(Dataset *d, const TestSynthetic *spec);
/* The successful samples of d, into a fresh dataset. */
void TestUtil_successes(const Dataset *d, Dataset *out);
/* A scalar function of some float buffers the caller perturbs, for gradient checks.
 * piece, for a function with kinks (ReLU) or jumps (a ranking loss's reordering),
 * names the smooth piece its last evaluation fell in; NULL for a smooth function. */
typedef struct TestObjective_ {
   double (*loss)(void *ctx);
   void *ctx;
   uint64_t (*piece)(void *ctx);
} TestObjective;
/* The central differences (step 1e-3) of the objective for every element of x. */
double *TestUtil_numericGradient(const TestObjective *o, float *x, size_t n);
/* Fails the current test unless analytic matches the central differences: every
 * element within 1e-2 relative (plus 1e-3 absolute, for the float noise of the
 * differences near zero), the whole vector within 1e-2 relative, and a gradient that
 * is not zero, so that the comparison means something. */
void TestUtil_checkGradient(const char *what, const TestObjective *o, float *x, const float *analytic, size_t n);
/* For deep networks, whose float noise swamps one element's difference: the
 * derivative of the objective along the analytic gradient's direction and along two
 * random directions (seeded) must match what the analytic gradient predicts within
 * 1e-2 of the gradient's norm (the derivative along the gradient), or of floor when
 * that is larger (for a gradient that is zero or nearly, by an invariance of the
 * function). Each is the central difference of the largest step from 0.1 down to
 * 1e-4 whose ends lie on x's piece (large steps average the float noise out), or,
 * with a kink within 1e-3 on one side only, the second-order one-sided difference
 * from the other. */
void TestUtil_checkDirectional(const char *what, const TestObjective *o, float *x, const float *analytic, size_t n,
                               double floor, uint64_t seed);
/* Runs a cmocka group whose tests after the first `withoutNvrtc` compile with NVRTC:
 * where NVRTC does not load, only those first ones run (cmocka 1.1.5 cannot skip one
 * test cleanly), and a TAP comment says why. */
int TestUtil_runGroup(const char *group, const struct CMUnitTest *tests, size_t n,
                      size_t withoutNvrtc);
/* For a binary that cannot run here: prints the TAP plan that skips it. */
int TestUtil_skipAll(const char *reason);

/* Attributes of a node of a hand-built graph (graph/graph.h), as the ONNX reader would
 * set them. */
GAttr *TestUtil_addAttr(Graph *g, int node, const char *name, GAttrType type);
void TestUtil_attrInt(Graph *g, int node, const char *name, int64_t v);
void TestUtil_attrFloat(Graph *g, int node, const char *name, double v);
void TestUtil_attrString(Graph *g, int node, const char *name, const char *s);
void TestUtil_attrInts(Graph *g, int node, const char *name, int count, const int64_t *v);
void TestUtil_attrFloats(Graph *g, int node, const char *name, int count, const double *v);

#endif
