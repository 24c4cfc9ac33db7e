/* The cost models and their checkpoints: kind names, the dispatch (a frozen model
 * never learns), the random and psa models, the kinds this build has, the checkpoint
 * format's bytes and every error its reader gives, and, where XGBoost is built in, the
 * xgb model learning a synthetic task well enough to rank held-out programs and
 * predicting bit for bit the same after a save and a load. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "cost/checkpoint.h"
#include "cost/metrics.h"
#include "cost/model.h"
#include "cost/models.h"
#include "util/rng.h"
#include "util/xalloc.h"


static char *pathOf(const char *name) {
   return xAsprintf("%s/%s", TestUtil_groupDir, name);
}

static char *writeBytes(const char *name, const void *bytes, size_t n) {
   return TestUtil_writeBytes(TestUtil_groupDir, name, bytes, n);
}

/* A batch of n one-row samples of one task (the last without rows), with PSA
 * estimates 1, 2, ... ms (the row-less one INFINITY). */
static void smallBatch(Dataset *d, int n) {
   Dataset_init(d);
   int t = Dataset_task(d, "t");
   Features f;
   memset(&f, 0, sizeof f);
   f.patternAt = -1;
   for (int i = 0; i < n; i++) {
      f.nrows = i < n - 1 ? 1 : 0;
      f.row[0][0] = (float)i;
      Dataset_add(d, t, &f, NULL, i < n - 1 ? i + 1 : INFINITY, 0);
   }
}

static void test_kind_names(void **state) {
   static const char *const names[] = { "random", "psa", "xgb", "mlp", "pam", "pam-moa" };
   assert_int_equal(MODEL_KIND_COUNT, 6);
   for (int k = 0; k < MODEL_KIND_COUNT; k++) {
      assert_string_equal(ModelKind_name((ModelKind)k), names[k]);
      assert_int_equal(ModelKind_parse(names[k]), k);
   }
   assert_int_equal(ModelKind_parse("xgboost"), -1);
   assert_int_equal(ModelKind_parse(""), -1);
   assert_string_equal(ModelKind_name(MODEL_KIND_COUNT), "?");
   assert_string_equal(ModelKind_name((ModelKind)-1), "?");
}

static void test_train_defaults(void **state) {
   TrainConfig c;
   TrainConfig_default(&c);
   assert_int_equal(c.epochs, 50);
   assert_int_equal(c.earlyStop, 16);
   assert_int_equal(c.batch, 512);
   assert_float_equal(c.lr, 7e-4, 0);
   assert_float_equal(c.weightDecay, 1e-6, 0);
   assert_float_equal(c.clip, 0.5, 0);
   assert_false(c.fromScratch);
   assert_null(c.progress);
}

/* ---- the dispatch, with a model that counts its fits ---- */

static int fits;

static void countingPredict(CostModel *m, const Dataset *batch, float *scores) {
   for (int i = 0; i < batch->n; i++)
      scores[i] = (float)fits;
}

static int countingFit(CostModel *m, const Dataset *train, const TrainConfig *cfg, char **cause) {
   assert_non_null(cfg); /* the defaults when the caller gives none */
   if (train->n == 0)
      return setCause(cause, "no data");
   fits++;
   return 0;
}

static void countingFree(CostModel *m) {
}

static const CostModelOps countingOps = { .predict = countingPredict, .fit = countingFit, .free = countingFree };

static void test_fit_dispatch(void **state) {
   Dataset d, empty;
   smallBatch(&d, 3);
   Dataset_init(&empty);
   CostModel *m = CostModel_alloc(MODEL_MLP, &countingOps, 7, NULL);
   assert_false(m->frozen || m->trained);
   assert_int_equal(m->seed, 7);
   char *cause = NULL;
   fits = 0;
   assert_int_equal(CostModel_fit(m, &empty, NULL, &cause), -1);
   assert_string_equal(cause, "no data");
   free(cause);
   assert_false(m->trained);
   assert_int_equal(CostModel_fit(m, &d, NULL, NULL), 0);
   assert_true(m->trained);
   assert_int_equal(fits, 1);
   /* frozen: fit returns 0 and the model is not asked */
   m->frozen = true;
   m->trained = false;
   assert_int_equal(CostModel_fit(m, &d, NULL, NULL), 0);
   assert_int_equal(fits, 1);
   assert_false(m->trained);
   float s[3];
   CostModel_predict(m, &d, s);
   assert_true(s[0] == 1);
   CostModel_free(m);
   CostModel_free(NULL);
   Dataset_done(&empty);
   Dataset_done(&d);
}

/* ---- random and psa ---- */

/* Models of `kind` score uniformly in [0, 1) from their seed, and -inf without rows:
 * the same seed the same scores, another seed others. */
static void assertSeededUniform(ModelKind kind, const Dataset *d) {
   char *cause = NULL;
   CostModel *a = CostModel_new(kind, 5, &cause);
   CostModel *b = CostModel_new(kind, 5, &cause);
   CostModel *c = CostModel_new(kind, 6, &cause);
   assert_non_null(a);
   assert_int_equal(a->kind, kind);
   int n = d->n;
   float *sa = xMalloc((size_t)n * sizeof *sa), *sb = xMalloc((size_t)n * sizeof *sb);
   float *sc = xMalloc((size_t)n * sizeof *sc);
   CostModel_predict(a, d, sa);
   CostModel_predict(b, d, sb);
   CostModel_predict(c, d, sc);
   assert_memory_equal(sa, sb, (size_t)n * sizeof *sa);
   assert_true(memcmp(sa, sc, (size_t)n * sizeof *sa) != 0);
   for (int i = 0; i < n; i++)
      if (Dataset_rows(d, i) > 0)
         assert_true(sa[i] >= 0 && sa[i] < 1);
      else
         assert_true(isinf(sa[i]) && sa[i] < 0);
   /* the scores keep coming from the same generator */
   CostModel_predict(a, d, sb);
   assert_true(memcmp(sa, sb, (size_t)n * sizeof *sa) != 0);
   free(sa);
   free(sb);
   free(sc);
   CostModel_free(a);
   CostModel_free(b);
   CostModel_free(c);
}

static CostModel *saveAndLoad(const CostModel *m, const char *name, size_t wantBytes) {
   return TestUtil_saveAndLoad(m, TestUtil_groupDir, name, wantBytes);
}

static void test_random_model(void **state) {
   Dataset d;
   smallBatch(&d, 50);
   assertSeededUniform(MODEL_RANDOM, &d);
   char *cause = NULL;
   CostModel *m = CostModel_new(MODEL_RANDOM, 6, &cause);
   assert_true(m->frozen);
   /* unfrozen, fit still learns nothing */
   m->frozen = false;
   assert_int_equal(CostModel_fit(m, &d, NULL, &cause), 0);
   /* a checkpoint holds the seed: the loaded model starts the same sequence again */
   CostModel *l = saveAndLoad(m, "random.ckpt", 36);
   assert_int_equal(l->seed, 6);
   TestUtil_assertSameScores(m, l, &d);
   CostModel_free(l);
   CostModel_free(m);
   Dataset_done(&d);
}

static void test_psa_model(void **state) {
   Dataset d;
   smallBatch(&d, 5);
   d.psaLatency[2] = 0; /* an empty estimate is no estimate */
   char *cause = NULL;
   CostModel *m = CostModel_new(MODEL_PSA, 0, &cause);
   assert_non_null(m);
   assert_true(m->frozen);
   float s[5];
   CostModel_predict(m, &d, s);
   assert_float_equal(s[0], 1, 0);
   assert_float_equal(s[1], 0.5, 0);
   assert_true(isinf(s[2]) && s[2] < 0);
   assert_float_equal(s[3], 0.25, 0);
   assert_true(isinf(s[4]) && s[4] < 0);
   /* frozen by nature; unfrozen, its fit still learns nothing */
   assert_int_equal(CostModel_fit(m, &d, NULL, &cause), 0);
   m->frozen = false;
   assert_int_equal(CostModel_fit(m, &d, NULL, &cause), 0);
   float again[5];
   CostModel_predict(m, &d, again);
   assert_memory_equal(s, again, sizeof s);
   /* its checkpoint is the header alone, the op kinds it learned from included */
   m->opKinds = 1u << OP_DENSE | 1u << OP_SOFTMAX;
   CostModel *l = saveAndLoad(m, "psa.ckpt", CHECKPOINT_HEADER_BYTES);
   assert_int_equal(CHECKPOINT_HEADER_BYTES, 28);
   assert_int_equal(l->opKinds, 1u << OP_DENSE | 1u << OP_SOFTMAX);
   TestUtil_assertSameScores(m, l, &d);
   CostModel_free(l);
   CostModel_free(m);
   Dataset_done(&d);
}

static void test_available_kinds(void **state) {
   static const ModelKind always[] = { MODEL_RANDOM, MODEL_PSA, MODEL_MLP, MODEL_PAM, MODEL_PAM_MOA };
   for (size_t i = 0; i < sizeof always / sizeof always[0]; i++) {
      const char *why = "unset";
      assert_true(CostModel_available(always[i], &why));
      assert_null(why);
   }
   const char *why = NULL;
   assert_false(CostModel_available(MODEL_KIND_COUNT, &why));
   assert_string_equal(why, "no such model");
#ifdef HAVE_XGBOOST
   assert_true(CostModel_available(MODEL_XGB, NULL));
#else
   char *cause = NULL;
   assert_null(CostModel_new(MODEL_XGB, 1, &cause));
   assert_non_null(strstr(cause, "model xgb is not available in this build"));
   free(cause);
#endif
}

/* ---- the checkpoint format ---- */

static void test_checkpoint_values(void **state) {
   char *path = pathOf("values.bin");
   FILE *f = fopen(path, "wb");
   assert_non_null(f);
   int32_t ints[2] = { -2, 0x12345678 };
   float floats[2] = { 1.0f, -0.5f };
   assert_int_equal(Checkpoint_putU32(f, 0x01020304u), 0);
   assert_int_equal(Checkpoint_putU64(f, 0x0102030405060708ull), 0);
   assert_int_equal(Checkpoint_putI32s(f, ints, 2), 0);
   assert_int_equal(Checkpoint_putF32s(f, floats, 2), 0);
   /* more than one chunk's worth */
   enum { BIG = 3001 };
   float *big = xMalloc(BIG * sizeof *big);
   TestUtil_fillRandom(big, BIG, 3, -1e6f, 1e6f);
   big[7] = NAN;
   big[8] = -INFINITY;
   assert_int_equal(Checkpoint_putF32s(f, big, BIG), 0);
   fclose(f);
   size_t n;
   unsigned char *bytes = TestUtil_readBytes(path, &n);
   static const unsigned char want[28] = { 4,    3,    2,    1,    8,    7,    6,    5,    4,    3,
                                           2,    1,    0xfe, 0xff, 0xff, 0xff, 0x78, 0x56, 0x34, 0x12,
                                           0,    0,    0x80, 0x3f, 0,    0,    0,    0xbf };
   assert_int_equal(n, sizeof want + 4 * BIG);
   assert_memory_equal(bytes, want, sizeof want);
   free(bytes);

   f = fopen(path, "rb");
   char *cause = NULL;
   uint32_t u;
   uint64_t v;
   int32_t i2[2];
   float f2[2];
   float *back = xMalloc(BIG * sizeof *back);
   assert_int_equal(Checkpoint_getU32(f, path, "u", &u, &cause), 0);
   assert_int_equal(Checkpoint_getU64(f, path, "v", &v, &cause), 0);
   assert_int_equal(Checkpoint_getI32s(f, path, "i", i2, 2, &cause), 0);
   assert_int_equal(Checkpoint_getF32s(f, path, "f", f2, 2, &cause), 0);
   assert_int_equal(Checkpoint_getF32s(f, path, "big", back, BIG, &cause), 0);
   assert_int_equal(u, 0x01020304u);
   assert_true(v == 0x0102030405060708ull);
   assert_memory_equal(i2, ints, sizeof ints);
   assert_memory_equal(f2, floats, sizeof floats);
   assert_memory_equal(back, big, BIG * sizeof *big);
   assert_int_equal(Checkpoint_getEnd(f, path, &cause), 0);
   /* reading past the end names the byte and the value */
   assert_int_equal(Checkpoint_getU32(f, path, "one more", &u, &cause), -1);
   char *msg = xAsprintf("%s: cut short at byte %d (expected one more, 4 bytes from byte %d)", path,
                         28 + 4 * BIG, 28 + 4 * BIG);
   assert_string_equal(cause, msg);
   free(msg);
   free(cause);
   fclose(f);
   free(back);
   free(big);
   free(path);
}

/* The header fields of version 1 with these values, then `payload`. */
static char *headerFile(const char *name, const char *magic, uint32_t version, uint32_t kind, uint32_t headerBytes,
                        const void *payload, size_t n) {
   unsigned char buf[256];
   memcpy(buf, magic, 8);
   uint32_t fields[3] = { version, kind, headerBytes };
   for (int i = 0; i < 3; i++)
      for (int b = 0; b < 4; b++)
         buf[8 + 4 * i + b] = (unsigned char)(fields[i] >> (8 * b));
   memcpy(buf + 20, payload, n);
   return writeBytes(name, buf, 20 + n);
}

static void test_checkpoint_errors(void **state) {
   static const unsigned char seed[8] = { 9 };
   char *path = headerFile("good.ckpt", "PTUICKPT", 1, MODEL_RANDOM, 20, seed, 8);
   char *cause = NULL;
   CostModel *m = CostModel_load(path, &cause);
   assert_non_null(m);
   assert_int_equal(m->seed, 9);
   assert_int_equal(m->opKinds, 0);   /* a header of 20 bytes ends before them */
   CostModel_free(m);
   size_t n;
   unsigned char *good = TestUtil_readBytes(path, &n);
   assert_int_equal(n, 28);
   free(path);

   /* the file ends early: where, and what was expected there */
   static const struct {
      size_t length;
      const char *message;
   } cut[] = {
      { 0, "cut short at byte 0 (expected the magic \"PTUICKPT\", 8 bytes from byte 0)" },
      { 5, "cut short at byte 5 (expected the magic \"PTUICKPT\", 8 bytes from byte 0)" },
      { 10, "cut short at byte 10 (expected the format version, 4 bytes from byte 8)" },
      { 12, "cut short at byte 12 (expected the model kind, 4 bytes from byte 12)" },
      { 18, "cut short at byte 18 (expected the header's length, 4 bytes from byte 16)" },
      { 24, "cut short at byte 24 (expected the random model's seed, 8 bytes from byte 20)" },
   };
   for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
      path = writeBytes("cut.ckpt", good, cut[i].length);
      TestUtil_assertLoadFails(path, cut[i].message);
      free(path);
   }
   unsigned char longer[30];
   memcpy(longer, good, 28);
   longer[28] = longer[29] = 0;
   path = writeBytes("long.ckpt", longer, 30);
   TestUtil_assertLoadFails(path, "2 bytes after the end of the model (a damaged or foreign file?)");
   free(path);

   path = writeBytes("text.ckpt", "hello", 5);
   TestUtil_assertLoadFails(path, "not a pruner-tui checkpoint (bad magic)");
   free(path);
   /* headers with one field wrong */
   static const struct {
      const char *magic;
      uint32_t version, kind, headerBytes;
      const char *message;
   } bad[] = {
      { "PTUICKPX", 1, MODEL_RANDOM, 20, "not a pruner-tui checkpoint (bad magic)" },
      { "PTUICKPT", 9, MODEL_RANDOM, 20, "checkpoint format version 9 is newer than this program reads (versions 1 and 2)" },
      { "PTUICKPT", 0, MODEL_RANDOM, 20, "checkpoint format version 0 is not one this program reads (versions 1 and 2)" },
      { "PTUICKPT", 1, 17, 20, "unknown model kind 17" },
      { "PTUICKPT", 1, MODEL_RANDOM, 12, "a header of 12 bytes is not one of format version 1 (20 or 24)" },
      { "PTUICKPT", 1, MODEL_RANDOM, 28, "a header of 28 bytes is not one of format version 1 (20 or 24)" },
      { "PTUICKPT", 1, MODEL_RANDOM, 60, "a header of 60 bytes is not one of format version 1 (20 or 24)" },
   };
   for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      path = headerFile("bad.ckpt", bad[i].magic, bad[i].version, bad[i].kind, bad[i].headerBytes, seed, 8);
      TestUtil_assertLoadFails(path, bad[i].message);
      free(path);
   }
   /* the op kinds at byte 20 */
   static const unsigned char withKinds[12] = { 0x05, 0x01, 0, 0, 4 };
   path = headerFile("kinds.ckpt", "PTUICKPT", 1, MODEL_RANDOM, 24, withKinds, 12);
   m = CostModel_load(path, &cause);
   assert_non_null(m);
   assert_int_equal(m->seed, 4);
   assert_int_equal(m->opKinds, 0x105);
   CostModel_free(m);
   free(path);
   /* version 2: the checksum at 24, header fields it does not know skipped */
   static const unsigned char extended[] = {
      'P', 'T', 'U', 'I', 'C', 'K', 'P', 'T', 2, 0, 0, 0, MODEL_RANDOM, 0, 0, 0, 32, 0, 0, 0,
      0x02, 0, 0, 0, 0, 0, 0, 0, 0xaa, 0xbb, 0xcc, 0xdd, 6, 0, 0, 0, 0, 0, 0, 0,
   };
   path = TestUtil_writeSealed(TestUtil_groupDir, "extended.ckpt", extended, sizeof extended);
   m = CostModel_load(path, &cause);
   assert_non_null(m);
   assert_int_equal(m->seed, 6);
   assert_int_equal(m->opKinds, 2);
   CostModel_free(m);
   free(path);
   /* and the same file with a wrong checksum, or a header shorter than version 2's */
   path = writeBytes("unsealed.ckpt", extended, sizeof extended);
   TestUtil_assertLoadFails(path, "checksum mismatch: the file is damaged (its bytes make CRC-32 3c63a81e, its "
                                  "header says 00000000)");
   free(path);
   unsigned char shorter[sizeof extended];
   memcpy(shorter, extended, sizeof extended);
   shorter[16] = 24;
   path = TestUtil_writeSealed(TestUtil_groupDir, "short.ckpt", shorter, sizeof shorter);
   TestUtil_assertLoadFails(path, "a header of 24 bytes is shorter than the 28 of format version 2");
   free(path);
   path = TestUtil_writeSealed(TestUtil_groupDir, "cut.ckpt", extended, 26);
   TestUtil_assertLoadFails(path, "cut short at byte 26 (expected the checksum, 4 bytes from byte 24)");
   free(path);

   path = pathOf("missing.ckpt");
   m = CostModel_load(path, &cause);
   assert_null(m);
   char *want = xAsprintf("%s: cannot open: No such file or directory", path);
   assert_string_equal(cause, want);
   free(want);
   free(cause);
   free(path);
   free(good);
}

static void test_checkpoint_save_keeps_old_on_failure(void **state) {
   char *cause = NULL;
   CostModel *m = CostModel_new(MODEL_RANDOM, 3, &cause);
   char *path = pathOf("nowhere/model.ckpt");
   assert_int_equal(CostModel_save(m, path, &cause), -1);
   char *want = xAsprintf("%s: No such file or directory", path);
   assert_string_equal(cause, want);
   free(want);
   free(cause);
   free(path);
   /* an abandoned checkpoint writes nothing, and leaves the old one as it was */
   path = pathOf("kept.ckpt");
   assert_int_equal(CostModel_save(m, path, &cause), 0);
   CheckpointWriter w;
   Checkpoint_create(&w, path, MODEL_RANDOM, 0);
   Checkpoint_putU32(w.f, 1);
   Checkpoint_abandon(&w);
   CostModel *l = CostModel_load(path, &cause);
   assert_non_null(l);
   assert_int_equal(l->seed, 3);
   CostModel_free(l);
   /* a save that fails (a full device) leaves nothing behind either */
   FILE *full = fopen("/dev/full", "wb");
   if (full) {
      fclose(full);
      assert_int_equal(CostModel_save(m, "/dev/full", &cause), -1);
      assert_string_equal(cause, "/dev/full: No space left on device");
      free(cause);
   }
   free(path);
   CostModel_free(m);
}

#ifdef HAVE_XGBOOST
/* ---- xgb ---- */

/* Programs of 2 to 4 rows (TestUtil_synthetic), a failure every 10th. */
static void synthetic(Dataset *d, int tasks, int programs, int failEvery, uint64_t seed) {
   TestSynthetic spec = { .tasks = tasks, .programs = programs, .minRows = 2, .failEvery = failEvery, .seed = seed };
   TestUtil_synthetic(d, &spec);
}

static int evaluations;

static bool countEvaluations(void *ctx, int epoch, int epochs, double loss) {
   assert_int_equal(epochs, 300);
   assert_true(epoch >= 1 && epoch <= epochs && loss >= 0);
   evaluations++;
   return true;
}

/* xgb with the device's features: 172 columns, the device of each sample after its
 * row; the checkpoint says so when it loads, and scores the same. */
static void test_xgb_device_features(void **state) {
   (void)state;
   Dataset d;
   synthetic(&d, 2, 200, 10, 12);
   float a[DEVICE_FEATURE_LEN] = { 132, 1982, 67000, 3350, 8341, 51200, 228, 65.5f };
   float b[DEVICE_FEATURE_LEN] = { 108, 1410, 19500, 1555, 5000, 40960, 164, 65.5f };
   for (int i = 0; i < d.n; i++)
      Dataset_setDevice(&d, i, i % 2 ? b : a);
   char *cause = NULL;
   CostModel *m = CostModel_newDevice(MODEL_XGB, 1, &cause);
   assert_non_null(m);
   assert_true(m->readsDevice);
   if (CostModel_fit(m, &d, NULL, &cause) < 0)
      fail_msg("%s", cause);
   CostModel *l = saveAndLoad(m, "xgb-device.ckpt", 0);
   assert_true(l->readsDevice && l->trained);
   TestUtil_assertSameScores(m, l, &d);
   CostModel_free(l);
   /* a plain one reads back plain */
   CostModel *p = CostModel_new(MODEL_XGB, 1, &cause);
   if (CostModel_fit(p, &d, NULL, &cause) < 0)
      fail_msg("%s", cause);
   l = saveAndLoad(p, "xgb-plain.ckpt", 0);
   assert_false(l->readsDevice);
   CostModel_free(l);
   CostModel_free(p);
   CostModel_free(m);
   Dataset_done(&d);
}

static void test_xgb_learns_and_reloads(void **state) {
   Dataset all, train, test, held;
   synthetic(&all, 2, 1500, 10, 11);
   Dataset_init(&train);
   Dataset_init(&test);
   Dataset_split(&all, 0.7, 5, &train, &test);
   TestUtil_successes(&test, &held);
   char *cause = NULL;
   CostModel *m = CostModel_new(MODEL_XGB, 1, &cause);
   assert_non_null(m);
   assert_false(m->frozen || m->trained);
   TrainConfig cfg;
   TrainConfig_default(&cfg);
   cfg.progress = countEvaluations;
   evaluations = 0;
   if (CostModel_fit(m, &train, &cfg, &cause) < 0)
      fail_msg("%s", cause);
   assert_true(m->trained);
   assert_true(evaluations > 0);

   float *scores = xMalloc((size_t)held.n * sizeof *scores);
   CostModel_predict(m, &held, scores);
   RankMetrics w;
   Metrics_weighted(&held, scores, NULL, &w);
   printf("# xgb on held-out programs: %d samples, %ld pairs, pairwise %.4f, top-1 %.4f, top-5 %.4f "
          "(%d evaluations)\n",
          w.samples, w.pairs, w.pairwise, w.top1, w.top5, evaluations);
   fflush(stdout);
   assert_true(w.pairwise >= 0.9);
   assert_true(w.top5 >= 0.9);

   /* a sample without rows scores -inf */
   Dataset one;
   Dataset_init(&one);
   Dataset_add(&one, Dataset_task(&one, "x"), NULL, NULL, INFINITY, 0);
   float s;
   CostModel_predict(m, &one, &s);
   assert_true(isinf(s) && s < 0);
   Dataset_done(&one);

   /* save and load: the same scores to the bit */
   CostModel *l = saveAndLoad(m, "xgb.ckpt", 0);
   assert_true(l->trained);
   TestUtil_assertSameScores(m, l, &held);
   float *again = xMalloc((size_t)held.n * sizeof *again);

   /* frozen, it does not learn from other data */
   Dataset other;
   synthetic(&other, 1, 40, 0, 99);
   l->frozen = true;
   assert_int_equal(CostModel_fit(l, &other, NULL, &cause), 0);
   CostModel_predict(l, &held, again);
   assert_memory_equal(again, scores, (size_t)held.n * sizeof *again);
   /* unfrozen it does, from scratch */
   l->frozen = false;
   if (CostModel_fit(l, &other, NULL, &cause) < 0)
      fail_msg("%s", cause);
   CostModel_predict(l, &held, again);
   assert_true(memcmp(again, scores, (size_t)held.n * sizeof *again) != 0);

   /* the checkpoint cut inside XGBoost's bytes */
   char *path = pathOf("xgb.ckpt");
   size_t n;
   unsigned char *bytes = TestUtil_readBytes(path, &n);
   free(path);
   path = TestUtil_writeSealed(TestUtil_groupDir, "xgb-cut.ckpt", bytes, n - 10);
   char *want = xAsprintf("cut short at byte %zu (expected the XGBoost model, %zu bytes from byte 36)", n - 10,
                          n - 36);
   TestUtil_assertLoadFails(path, want);
   free(want);
   free(path);
   /* UBJSON refused before XGBoost allocates what any length says: a key whose length
    * marker is not an integer's, and a key 2^32 bytes long in a model of a few hundred */
   static const struct {
      const char *ubjson;
      size_t len, at;
   } malformed[] = {
      { "{\x01\x02\xff garbage", 12, 2 },
      { "{L\x00\x00\x00\x01\x00\x00\x00\x00", 10, 10 },
   };
   for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
      memcpy(bytes + 36, malformed[i].ubjson, malformed[i].len);
      path = TestUtil_writeSealed(TestUtil_groupDir, "xgb-bad.ckpt", bytes, n);
      assert_null(CostModel_load(path, &cause));
      want = xAsprintf("%s: the XGBoost model is not well-formed UBJSON: a marker, length or count at its byte %zu "
                       "does not fit in its %zu bytes", path, malformed[i].at, n - 36);
      assert_string_equal(cause, want);
      free(want);
      free(cause);
      free(path);
   }
   /* well-formed UBJSON that is not a model: XGBoost's error in one line, without its
    * stack trace and without the bytes */
   memcpy(bytes + 36, "{}", 2);
   path = TestUtil_writeSealed(TestUtil_groupDir, "xgb-bad.ckpt", bytes, n);
   assert_null(CostModel_load(path, &cause));
   want = xAsprintf("%s: XGBoost cannot read the model: ", path);
   assert_true(strncmp(cause, want, strlen(want)) == 0);
   assert_null(strchr(cause, '\n'));
   assert_null(strstr(cause, "Stack trace"));
   assert_true(strlen(cause) < strlen(want) + 100);
   free(want);
   free(cause);
   free(path);
   free(bytes);

   CostModel_free(l);
   CostModel_free(m);
   free(again);
   free(scores);
   Dataset_done(&other);
   Dataset_done(&held);
   Dataset_done(&train);
   Dataset_done(&test);
   Dataset_done(&all);
}

static void test_xgb_before_training(void **state) {
   Dataset d;
   smallBatch(&d, 20);
   assertSeededUniform(MODEL_XGB, &d);
   char *cause = NULL;
   CostModel *a = CostModel_new(MODEL_XGB, 8, &cause);

   /* nothing measured (or only failures): nothing to learn */
   assert_int_equal(CostModel_fit(a, &d, NULL, &cause), -1);
   assert_string_equal(cause, "xgb: nothing to learn from: none of the 20 samples has feature rows and a "
                              "successful measurement");
   free(cause);
   assert_false(a->trained);

   /* an untrained model saves and loads as untrained */
   CostModel *l = saveAndLoad(a, "untrained.ckpt", 36);
   assert_false(l->trained);
   CostModel_free(l);
   CostModel_free(a);
   Dataset_done(&d);
}
#endif

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kind_names),
      cmocka_unit_test(test_train_defaults),
      cmocka_unit_test(test_fit_dispatch),
      cmocka_unit_test(test_random_model),
      cmocka_unit_test(test_psa_model),
      cmocka_unit_test(test_available_kinds),
      cmocka_unit_test(test_checkpoint_values),
      cmocka_unit_test(test_checkpoint_errors),
      cmocka_unit_test(test_checkpoint_save_keeps_old_on_failure),
#ifdef HAVE_XGBOOST
      cmocka_unit_test(test_xgb_before_training),
      cmocka_unit_test(test_xgb_learns_and_reloads),
      cmocka_unit_test(test_xgb_device_features),
#endif
   };
#ifndef HAVE_XGBOOST
   printf("# the xgb tests are left out: XGBoost is not built in\n");
#endif
   return cmocka_run_group_tests(tests, TestUtil_setUpGroupDir, TestUtil_tearDownGroupDir);
}
