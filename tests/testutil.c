/* Helpers shared by the test binaries. */
#include "config.h"

#include "testutil.h"

#include <dirent.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cost/checkpoint.h"
#include "measure/nvrtc.h"
#include "util/rng.h"
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

int TestUtil_threadsNamed(const char *name) {
   DIR *d = opendir("/proc/self/task");
   assert_non_null(d);
   int n = 0;
   for (struct dirent *e; (e = readdir(d));) {
      if (e->d_name[0] == '.')
         continue;
      char path[300], comm[32] = "";
      snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
      FILE *f = fopen(path, "r");
      if (!f)
         continue;   /* the thread ended meanwhile */
      if (fgets(comm, sizeof comm, f))
         comm[strcspn(comm, "\n")] = '\0';
      fclose(f);
      n += strcmp(comm, name) == 0;
   }
   closedir(d);
   return n;
}

int TestUtil_threadsNamedSettle(const char *name, int want) {
   int n = TestUtil_threadsNamed(name);
   for (int i = 0; i < 10000 && n != want; i++) {
      nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
      n = TestUtil_threadsNamed(name);
   }
   return n;
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

void TestUtil_readSession(SessionLog *log, const char *rel) {
   char *path = TestUtil_srcPath(rel), *notice = NULL, *cause = NULL;
   if (Session_read(path, log, &notice, &cause) < 0)
      fail_msg("%s", cause);
   free(notice);
   free(path);
}

char *TestUtil_tableText(const SchedulerSnapshot *snap, const char *const *descs, double elapsed, int next) {
   char *text = NULL;
   size_t len = 0;
   FILE *f = open_memstream(&text, &len);
   assert_non_null(f);
   assert_int_equal(SchedulerSnapshot_printTable(snap, descs, elapsed, next, f), 0);
   fclose(f);
   return text;
}

void TestUtil_buildTask(Network *net, Dag *g, SketchSet *set, const char *yamlTask) {
   char *text = xAsprintf("network: t\nbatch: 1\ntasks:\n  - %s\n", yamlTask);
   char *cause = NULL;
   if (Network_loadString(net, "t.task", text, strlen(text), &cause) < 0)
      fail_msg("%s", cause);
   free(text);
   Dag_init(g);
   Op_buildDag(&net->tasks[0].op, g);
   SketchSet_generate(set, g);
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

char *TestUtil_groupDir;

int TestUtil_setUpGroupDir(void **state) {
   TestUtil_groupDir = TestUtil_tempDir();
   return 0;
}

int TestUtil_tearDownGroupDir(void **state) {
   TestUtil_removeTree(TestUtil_groupDir);
   free(TestUtil_groupDir);
   TestUtil_groupDir = NULL;
   return 0;
}

char *TestUtil_writeBytes(const char *dir, const char *name, const void *bytes, size_t n) {
   char *path = xAsprintf("%s/%s", dir, name);
   FILE *f = fopen(path, "wb");
   assert_non_null(f);
   assert_int_equal(fwrite(bytes, 1, n, f), n);
   assert_int_equal(fclose(f), 0);
   return path;
}

unsigned char *TestUtil_readBytes(const char *path, size_t *n) {
   FILE *f = fopen(path, "rb");
   assert_non_null(f);
   size_t cap = 1 << 16;
   unsigned char *buf = xMalloc(cap);
   *n = 0;
   size_t got;
   while ((got = fread(buf + *n, 1, cap - *n, f)) > 0) {
      *n += got;
      if (*n == cap)
         buf = xRealloc(buf, cap *= 2);
   }
   fclose(f);
   return buf;
}

char *TestUtil_writeSealed(const char *dir, const char *name, const unsigned char *bytes, size_t n) {
   unsigned char *copy = xMalloc(n + 1);
   memcpy(copy, bytes, n);
   if (n >= CHECKPOINT_HEADER_BYTES) {
      uint32_t crc = Checkpoint_checksum(copy, n);
      for (int i = 0; i < 4; i++)
         copy[CHECKPOINT_CRC_AT + i] = (unsigned char)(crc >> (8 * i));
   }
   char *path = TestUtil_writeBytes(dir, name, copy, n);
   free(copy);
   return path;
}

void TestUtil_assertLoadFails(const char *path, const char *want) {
   char *cause = NULL;
   CostModel *m = CostModel_load(path, &cause);
   assert_null(m);
   assert_non_null(cause);
   char *full = xAsprintf("%s: %s", path, want);
   assert_string_equal(cause, full);
   free(full);
   free(cause);
}

CostModel *TestUtil_saveAndLoad(const CostModel *m, const char *dir, const char *name, size_t wantBytes) {
   char *cause = NULL;
   char *path = xAsprintf("%s/%s", dir, name);
   if (CostModel_save(m, path, &cause) < 0)
      fail_msg("%s", cause);
   size_t n;
   unsigned char *bytes = TestUtil_readBytes(path, &n);
   if (wantBytes)
      assert_int_equal(n, wantBytes);
   assert_memory_equal(bytes, CHECKPOINT_MAGIC, CHECKPOINT_MAGIC_LEN);
   assert_int_equal(bytes[12], m->kind);
   free(bytes);
   CostModel *l = CostModel_load(path, &cause);
   if (!l)
      fail_msg("%s", cause);
   assert_int_equal(l->kind, m->kind);
   free(path);
   return l;
}

void TestUtil_assertSameScores(CostModel *a, CostModel *b, const Dataset *d) {
   size_t size = (size_t)(d->n > 0 ? d->n : 1) * sizeof(float);
   float *sa = xMalloc(size), *sb = xMalloc(size);
   CostModel_predict(a, d, sa);
   CostModel_predict(b, d, sb);
   assert_memory_equal(sa, sb, (size_t)d->n * sizeof *sa);
   free(sa);
   free(sb);
}

#define SYNTHETIC_COLUMNS 10

void TestUtil_synthetic(Dataset *d, const TestSynthetic *spec) {
   Rng rng;
   Rng_seed(&rng, spec->seed);
   Dataset_init(d);
   Features *f = xCalloc(1, sizeof *f);
   for (int t = 0; t < spec->tasks; t++) {
      char key[16];
      snprintf(key, sizeof key, "task%d", t);
      int task = Dataset_task(d, key);
      float workload[WORKLOAD_LEN] = { 0 };
      workload[t % WORKLOAD_LEN] = 1;
      for (int p = 0; p < spec->programs; p++) {
         f->nrows = spec->minRows + (int)Rng_below(&rng, (uint64_t)(5 - spec->minRows));
         double throughput = 0;
         for (int r = 0; r < f->nrows; r++) {
            for (int c = 0; c < SYNTHETIC_COLUMNS; c++)
               f->row[r][c] = (float)Rng_uniform(&rng);
            double x0 = f->row[r][0], x1 = f->row[r][1], x2 = f->row[r][2];
            throughput += 0.2 + 2 * x0 + x1 * x1 + (x2 > 0.5);
         }
         f->patternAt = spec->patterns && p % 2 == 1 ? 0 : -1;
         if (f->patternAt >= 0)
            for (int k = 0; k < PATTERN_LEN; k++)
               for (int c = 0; c < PATTERN_WIDTH; c++)
                  f->pattern[k][c] = (float)Rng_uniform(&rng);
         bool failed = spec->failEvery > 0 && p % spec->failEvery == spec->failEvery - 1;
         Dataset_add(d, task, f, spec->workload ? workload : NULL, INFINITY,
                     failed ? DATASET_FAILED_COST : (1 + t) / throughput);
      }
   }
   free(f);
   Dataset_relabel(d);
}

void TestUtil_successes(const Dataset *d, Dataset *out) {
   Dataset_init(out);
   for (int i = 0; i < d->n; i++)
      if (Dataset_succeeded(d, i))
         Dataset_addFrom(out, d, i);
}

#define FD_STEP 1e-3f

double *TestUtil_numericGradient(const TestObjective *o, float *x, size_t n) {
   double *num = xMalloc((n > 0 ? n : 1) * sizeof(double));
   for (size_t i = 0; i < n; i++) {
      float orig = x[i];
      float up = orig + FD_STEP, down = orig - FD_STEP;
      x[i] = up;
      double lp = o->loss(o->ctx);
      x[i] = down;
      double lm = o->loss(o->ctx);
      x[i] = orig;
      num[i] = (lp - lm) / ((double)up - down);
   }
   return num;
}

static double norm2(const double *a, size_t n) {
   double s = 0;
   for (size_t i = 0; i < n; i++)
      s += a[i] * a[i];
   return sqrt(s);
}

void TestUtil_checkGradient(const char *what, const TestObjective *o, float *x, const float *analytic, size_t n) {
   double *num = TestUtil_numericGradient(o, x, n);
   double *diff = xMalloc((n > 0 ? n : 1) * sizeof(double));
   for (size_t i = 0; i < n; i++) {
      double a = analytic[i];
      diff[i] = a - num[i];
      if (fabs(diff[i]) > 1e-2 * fmax(fabs(a), fabs(num[i])) + 1e-3)
         fail_msg("%s[%zu]: analytic %.6g, numeric %.6g", what, i, a, num[i]);
   }
   double nn = norm2(num, n);
   if (!(nn > 1e-2))
      fail_msg("%s: the gradient's norm %.3g is too small to check", what, nn);
   if (norm2(diff, n) > 1e-2 * nn)
      fail_msg("%s: relative error %.3g", what, norm2(diff, n) / nn);
   free(num);
   free(diff);
}

/* The objective at x + t d (each element rounded to float), and whether it lies on
 * `piece`; x is left as it was. */
static double lossAt(const TestObjective *o, float *x, const float *orig, const double *d, size_t n, double t,
                     uint64_t piece, bool *same) {
   for (size_t i = 0; i < n; i++)
      x[i] = (float)(orig[i] + t * d[i]);
   double l = o->loss(o->ctx);
   *same = !o->piece || o->piece(o->ctx) == piece;
   memcpy(x, orig, n * sizeof(float));
   return l;
}

/* The derivative of the objective at x along d: the central difference of the
 * largest step whose ends lie on x's piece, else, near a kink, the one-sided
 * second-order difference away from it; NAN when kinks lie on both sides. *step
 * gets the step. */
static double derivativeAlong(const TestObjective *o, float *x, const double *d, size_t n, double *step) {
   static const double steps[] = { 1e-2, 3e-3, 1e-3, 3e-4, 1e-4 };
   float *orig = xMalloc(n * sizeof(float));
   memcpy(orig, x, n * sizeof(float));
   double at = o->loss(o->ctx), result = NAN;
   uint64_t piece = o->piece ? o->piece(o->ctx) : 0;
   for (size_t k = 0; k < sizeof steps / sizeof steps[0] && isnan(result); k++) {
      double h = *step = steps[k];
      bool upSame, downSame, farSame;
      double up = lossAt(o, x, orig, d, n, h, piece, &upSame);
      double down = lossAt(o, x, orig, d, n, -h, piece, &downSame);
      if (upSame && downSame) {
         result = (up - down) / (2 * h);
      } else if (h <= 1e-3 && (upSame || downSame)) {
         double side = upSame ? 1 : -1;
         double far = lossAt(o, x, orig, d, n, 2 * side * h, piece, &farSame);
         if (farSame)
            result = side * (4 * (upSame ? up : down) - 3 * at - far) / (2 * h);
      }
   }
   free(orig);
   return result;
}

void TestUtil_checkDirectional(const char *what, const TestObjective *o, float *x, const float *analytic, size_t n,
                               double floor, uint64_t seed) {
   double norm = 0;
   for (size_t i = 0; i < n; i++)
      norm += (double)analytic[i] * analytic[i];
   norm = sqrt(norm);
   double scale = fmax(norm, floor);
   double *d = xMalloc((n > 0 ? n : 1) * sizeof(double));
   float *r = xMalloc((n > 0 ? n : 1) * sizeof(float));
   for (int dir = 0; dir < 3; dir++) {
      /* the gradient's own direction, then two random ones */
      double len = 0, predicted = 0, step;
      if (dir > 0)
         TestUtil_fillRandom(r, n, seed + (uint64_t)dir, -1, 1);
      for (size_t i = 0; i < n; i++) {
         d[i] = dir == 0 && norm > 0 ? analytic[i] : r[i];
         len += d[i] * d[i];
      }
      len = sqrt(len);
      for (size_t i = 0; i < n; i++) {
         d[i] /= len;
         predicted += analytic[i] * d[i];
      }
      double got = derivativeAlong(o, x, d, n, &step);
      if (isnan(got))
         fail_msg("%s: direction %d: kinks on both sides within %g", what, dir, step);
      /* relative to the largest directional derivative, the gradient's norm */
      if (fabs(got - predicted) > 1e-2 * scale)
         fail_msg("%s: direction %d, step %g: the derivative is %.9g, the gradient says %.9g (error %.3g of %.6g, "
                  "the larger of the gradient's norm and the floor)",
                  what, dir, step, got, predicted, fabs(got - predicted) / scale, scale);
   }
   free(d);
   free(r);
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

/* ---- attributes of hand-built graph nodes ---- */

GAttr *TestUtil_addAttr(Graph *g, int node, const char *name, GAttrType type) {
   GNode *n = &g->n[node];
   n->attr = xReallocArray(n->attr, (size_t)n->nattr + 1, sizeof *n->attr);
   GAttr *a = &n->attr[n->nattr++];
   memset(a, 0, sizeof *a);
   a->name = xStrdup(name);
   a->type = type;
   a->tensor = -1;
   return a;
}

void TestUtil_attrInt(Graph *g, int node, const char *name, int64_t v) {
   TestUtil_addAttr(g, node, name, GA_INT)->i = v;
}

void TestUtil_attrFloat(Graph *g, int node, const char *name, double v) {
   TestUtil_addAttr(g, node, name, GA_FLOAT)->f = v;
}

void TestUtil_attrString(Graph *g, int node, const char *name, const char *s) {
   TestUtil_addAttr(g, node, name, GA_STRING)->s = xStrdup(s);
}

void TestUtil_attrInts(Graph *g, int node, const char *name, int count, const int64_t *v) {
   GAttr *a = TestUtil_addAttr(g, node, name, GA_INTS);
   a->n = count;
   a->ints = xMalloc(sizeof(int64_t) * (size_t)(count ? count : 1));
   if (count)
      memcpy(a->ints, v, sizeof(int64_t) * (size_t)count);
}

void TestUtil_attrFloats(Graph *g, int node, const char *name, int count, const double *v) {
   GAttr *a = TestUtil_addAttr(g, node, name, GA_FLOATS);
   a->n = count;
   a->floats = xMalloc(sizeof(double) * (size_t)(count ? count : 1));
   if (count)
      memcpy(a->floats, v, sizeof(double) * (size_t)count);
}
