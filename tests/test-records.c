/* Measurement records: every field through a line and through a file to the bit, the
 * exact text of a line, a file cut in its last line, the repair when appending after a
 * cut, a write that fails half way, and the exact message for each kind of bad line. */
#include "config.h"

#include "testutil.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "measure/record.h"
#include "util/textbuf.h"
#include "util/xalloc.h"

/* A record with a value in every field; awkward strings and costs that print long. */
static void sample(Record *r) {
   memset(r, 0, sizeof *r);
   r->version = RECORD_FORMAT_VERSION;
   r->task = xStrdup("[\"conv2d\", 1, 64, 56, 56] \"quoted\" \\back\\slash\\");
   r->device = xStrdup("h100_sxm");
   r->simulated = true;
   r->state = xStrdup("{\"v\":1,\"sketch\":0,\"knobs\":{\"T.i\":[1,2,4,1]}}\nline two\ttab \x01 "
                      "\xc3\xa9t\xc3\xa9 \xe2\x98\x83 \xf0\x9f\x98\x80 \x7f");
   r->ncosts = 3;
   r->costs[0] = 1.2345678901234567e-05;
   r->costs[1] = 0.1;
   r->costs[2] = 0.30000000000000004;
   r->error = MEASURE_OK;
   r->message = xStrdup("");
   r->registers = 255;
   r->compileSeconds = 0.1 + 0.7;
   r->runSeconds = 5e-324;
   r->timestamp = 1700000000;
}

static void sampleFailed(Record *r) {
   sample(r);
   r->ncosts = 1;
   r->costs[0] = MEASURE_FAILED_COST;
   r->error = MEASURE_COMPILE_ERROR;
   free(r->message);
   r->message = xStrdup("kernel.cu(3): error: identifier \"x\" is undefined\n1 error detected");
   r->registers = -1;
   r->simulated = false;
   r->timestamp = 0;
}

/* 32 costs, each a double that needs all 17 digits or is otherwise awkward. */
static void sampleFull(Record *r) {
   sample(r);
   r->ncosts = RECORD_MAX_COSTS;
   for (int i = 0; i < RECORD_MAX_COSTS; i++)
      r->costs[i] = (i + 1) * 1.0000000000000002e-4 / 3.0;
   r->costs[0] = 5e-324;
   r->costs[1] = 9999999999.999998;
   r->costs[2] = 2.2250738585072014e-308;
   r->compileSeconds = 1.7976931348623157e308;
   r->runSeconds = 123456.78901234567;
   r->timestamp = 9007199254740991;
}

static void assertBits(double got, double want, const char *what) {
   if (memcmp(&got, &want, sizeof got) != 0)
      fail_msg("%s: got %.17g, expected %.17g", what, got, want);
}

static void assertSame(const Record *got, const Record *want) {
   assert_int_equal(got->version, RECORD_FORMAT_VERSION);
   assert_string_equal(got->task, want->task);
   assert_string_equal(got->device, want->device);
   assert_int_equal(got->simulated, want->simulated);
   assert_string_equal(got->state, want->state);
   assert_int_equal(got->ncosts, want->ncosts);
   for (int i = 0; i < want->ncosts; i++)
      assertBits(got->costs[i], want->costs[i], "cost");
   assert_int_equal(got->error, want->error);
   assert_non_null(got->message);
   assert_string_equal(got->message, want->message ? want->message : "");
   assert_int_equal(got->registers, want->registers);
   assertBits(got->compileSeconds, want->compileSeconds, "compile_s");
   assertBits(got->runSeconds, want->runSeconds, "run_s");
   assert_true(got->timestamp == want->timestamp);
}

static void roundTrip(const Record *r) {
   char *line = Record_toJson(r);
   assert_null(strchr(line, '\n'));
   Record back;
   char *cause = NULL;
   if (Record_fromJson(line, &back, &cause) != 0)
      fail_msg("%s\nfor %s", cause, line);
   assert_null(cause);
   assertSame(&back, r);
   Record_done(&back);
   free(line);
}

static void test_lineText(void **state) {
   (void)state;
   Record r;
   sample(&r);
   free(r.task);
   free(r.state);
   r.task = xStrdup("dense_b1_m8_n64_k16+bias+relu");
   r.state = xStrdup("{\"v\":1}");
   char *line = Record_toJson(&r);
   assert_string_equal(line,
                       "{\"v\":1,\"task\":\"dense_b1_m8_n64_k16+bias+relu\","
                       "\"device\":\"h100_sxm\","
                       "\"simulated\":true,\"state\":\"{\\\"v\\\":1}\","
                       "\"costs\":[1.2345678901234568e-05,0.1,0.30000000000000004],"
                       "\"error\":\"ok\",\"error_no\":0,\"registers\":255,"
                       "\"compile_s\":0.7999999999999999,\"run_s\":4.94065645841247e-324,"
                       "\"time\":1700000000}");
   free(line);
   Record_done(&r);

   sampleFailed(&r);
   free(r.state);
   r.state = xStrdup("s");
   free(r.task);
   r.task = xStrdup("t");
   r.compileSeconds = 0;
   r.runSeconds = 2;
   line = Record_toJson(&r);
   assert_string_equal(line,
                       "{\"v\":1,\"task\":\"t\",\"device\":\"h100_sxm\",\"simulated\":false,"
                       "\"state\":\"s\",\"costs\":[10000000000],\"error\":\"compile error\","
                       "\"error_no\":2,\"message\":\"kernel.cu(3): error: identifier "
                       "\\\"x\\\" is undefined\\n1 error detected\",\"registers\":-1,"
                       "\"compile_s\":0,\"run_s\":2,\"time\":0}");
   free(line);
   Record_done(&r);
}

/* Two kernels' counters combine: sums over the summed time (4 ms), hit rates and
 * conflicts over the summed requests, rates weighted by time, the stall over the
 * summed stalls, the bound of the longest, what both know. */
static void test_countersCombine(void **state) {
   (void)state;
   CounterKernel k[2];
   memset(k, 0, sizeof k);
   k[0] = (CounterKernel){ .seconds = 0.001, .flops = 4e6, .dramBytes = 2e6, .l2Requests = 8e6, .l2Hits = 6e6,
                           .l1Requests = 100, .l1Hits = 25, .sharedWavefronts = 300, .sharedConflicts = 100,
                           .instructions = 1000, .ipc = 2, .occupancy = 0.5, .waves = 2, .bound = "memory",
                           .known = COUNTERS_ALL_FIELDS };
   k[0].stalls[Counters_stallIndex("long_scoreboard")] = 30;
   k[0].stalls[Counters_stallIndex("barrier")] = 10;
   k[1] = (CounterKernel){ .seconds = 0.003, .flops = 12e6, .dramBytes = 2e6, .l2Requests = 2e6, .l2Hits = 0,
                           .l1Requests = 300, .l1Hits = 75, .sharedWavefronts = 100, .sharedConflicts = 0,
                           .instructions = 3000, .ipc = 1, .occupancy = 0.25, .waves = 1, .bound = "compute",
                           .known = COUNTERS_ALL_FIELDS & ~COUNTER_IPC };
   k[1].stalls[Counters_stallIndex("barrier")] = 40;
   Counters c;
   Counters_combine(k, 2, false, &c);
   assert_true(c.present);
   assert_false(c.simulated);
   assert_int_equal(c.known, COUNTERS_ALL_FIELDS & ~COUNTER_IPC);
   assert_float_equal(c.dramGbs, 1.0, 1e-12);        /* 4e6 B / 4 ms */
   assert_float_equal(c.gflops, 4.0, 1e-12);         /* 16e6 FLOPs / 4 ms */
   assert_float_equal(c.l2HitRate, 0.6, 1e-12);      /* 6e6 / 10e6 */
   assert_float_equal(c.l1HitRate, 0.25, 1e-12);     /* 100 / 400 */
   assert_float_equal(c.bankConflicts, 0.25, 1e-12); /* 100 / 400 */
   assert_float_equal(c.instructions, 4000, 0);
   assert_float_equal(c.ipc, 1.25, 1e-12);           /* (2 x 1 + 1 x 3) / 4 */
   assert_float_equal(c.occupancy, 0.3125, 1e-12);   /* (0.5 x 1 + 0.25 x 3) / 4 */
   assert_float_equal(c.waves, 1.25, 1e-12);         /* (2 x 1 + 1 x 3) / 4 */
   assert_string_equal(c.stall, "barrier");
   assert_float_equal(c.stallShare, 0.625, 1e-12);   /* 50 / 80 */
   assert_string_equal(c.bound, "compute");
   assert_int_equal(Counters_stallIndex("misc"), COUNTERS_NSTALLS - 1);
   assert_int_equal(Counters_stallIndex("selected"), -1);
   /* no time: none */
   k[0].seconds = k[1].seconds = 0;
   Counters_combine(k, 2, true, &c);
   assert_false(c.present);
}

/* The roofline of a GPU of 20000 GFLOP/s and 2000 GB/s (ridge 10 FLOPs a byte): 5000
 * GFLOP/s on 1000 GB/s is 5 FLOPs a byte, under a roof of 10000, at 50%; 15000 on 500
 * is 30 a byte, under the flat roof of 20000, at 75%. */
static void test_roofline(void **state) {
   (void)state;
   Counters c = { .present = true, .dramGbs = 1000, .gflops = 5000 };
   Roofline r;
   char *cause = NULL;
   assert_int_equal(Counters_roofline(&c, 20000, 2000, &r, &cause), 0);
   assert_float_equal(r.intensity, 5, 1e-12);
   assert_float_equal(r.attained, 5000, 1e-9);
   assert_float_equal(r.ridge, 10, 1e-12);
   assert_float_equal(r.roof, 10000, 1e-9);
   assert_float_equal(r.percent, 50, 1e-9);
   assert_true(r.memoryBound);
   c.gflops = 15000;
   c.dramGbs = 500;
   assert_int_equal(Counters_roofline(&c, 20000, 2000, &r, &cause), 0);
   assert_float_equal(r.intensity, 30, 1e-12);
   assert_float_equal(r.roof, 20000, 1e-9);
   assert_float_equal(r.percent, 75, 1e-9);
   assert_false(r.memoryBound);
   static const struct {
      double gflops, dramGbs, peak, bandwidth;
      const char *why;
   } bad[] = {
      { 0, 500, 20000, 2000, "it did no FP32 arithmetic" },
      { 100, 0, 20000, 2000, "it moved nothing through DRAM" },
      { 100, 500, -1, 2000, "the device's FP32 peak is not known" },
      { 100, 500, 20000, 0, "the device's DRAM bandwidth is not known" },
   };
   for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      c.gflops = bad[i].gflops;
      c.dramGbs = bad[i].dramGbs;
      assert_int_equal(Counters_roofline(&c, bad[i].peak, bad[i].bandwidth, &r, &cause), -1);
      assert_string_equal(cause, bad[i].why);
      free(cause);
      cause = NULL;
   }
}

static void test_roundTripLine(void **state) {
   (void)state;
   Record r;
   sample(&r);
   roundTrip(&r);
   /* with counters: their line, and back */
   r.counters = (Counters){ .present = true, .simulated = true, .known = COUNTERS_ALL_FIELDS, .dramGbs = 812.5,
                            .l2HitRate = 0.625, .occupancy = 0.5, .gflops = 10422, .waves = 1.9375,
                            .l1HitRate = 0.125, .bankConflicts = 0.75, .instructions = 12582912, .ipc = 1.375,
                            .bound = "shared memory", .stall = "mio_throttle", .stallShare = 0.4375 };
   char *line = Record_toJson(&r);
   assert_non_null(strstr(line, ",\"time\":1700000000,\"counters\":{\"source\":\"simulated\",\"dram_gbs\":812.5,"
                                "\"l2_hit_rate\":0.625,\"occupancy\":0.5,\"gflops\":10422,\"waves\":1.9375,"
                                "\"l1_hit_rate\":0.125,\"bank_conflicts\":0.75,\"instructions\":12582912,"
                                "\"ipc\":1.375,\"bound\":\"shared memory\",\"stall\":\"mio_throttle\","
                                "\"stall_share\":0.4375}}"));
   Record back;
   char *cause = NULL;
   if (Record_fromJson(line, &back, &cause) < 0)
      fail_msg("%s", cause);
   assert_memory_equal(&back.counters, &r.counters, sizeof r.counters);
   Record_done(&back);
   free(line);
   /* a record written before the later five: the first six keys, read as they were,
    * none of the others known; written back the same */
   r.counters = (Counters){ .present = true, .simulated = false, .dramGbs = 812.5, .l2HitRate = 0.625,
                            .occupancy = 0.5, .gflops = 10422, .waves = 1.9375, .bound = "memory" };
   line = Record_toJson(&r);
   assert_non_null(strstr(line, ",\"counters\":{\"source\":\"cupti\",\"dram_gbs\":812.5,\"l2_hit_rate\":0.625,"
                                "\"occupancy\":0.5,\"gflops\":10422,\"waves\":1.9375,\"bound\":\"memory\"}}"));
   if (Record_fromJson(line, &back, &cause) < 0)
      fail_msg("%s", cause);
   assert_true(back.counters.present);
   assert_int_equal(back.counters.known, 0);
   assert_string_equal(back.counters.bound, "memory");
   assert_string_equal(back.counters.stall, "");
   assert_memory_equal(&back.counters, &r.counters, sizeof r.counters);
   Record_done(&back);
   free(line);
   /* a line without them (every line written before they existed) reads as none */
   r.counters.present = false;
   line = Record_toJson(&r);
   assert_null(strstr(line, "counters"));
   assert_int_equal(Record_fromJson(line, &back, &cause), 0);
   assert_false(back.counters.present);
   Record_done(&back);
   free(line);
   Record_done(&r);
   sampleFailed(&r);
   roundTrip(&r);
   Record_done(&r);
   sampleFull(&r);
   roundTrip(&r);
   /* A NULL message is written as none and read back as "". */
   free(r.message);
   r.message = NULL;
   roundTrip(&r);
   Record_done(&r);
   /* every error kind */
   for (int e = 1; e < MEASURE_ERROR_COUNT; e++) {
      sampleFailed(&r);
      r.error = (MeasureError)e;
      roundTrip(&r);
      Record_done(&r);
   }
}

/* Keys in another order, unknown keys, \u escapes, no "error_no" and no "message". */
static void test_readsWhatItDoesNotWrite(void **state) {
   (void)state;
   Record r;
   char *cause = NULL;
   assert_int_equal(
      Record_fromJson("{\"time\": 12, \"future\": {\"x\": [1, 2]}, \"run_s\": 1.5e-3,"
                      " \"compile_s\": 2,"
                      " \"registers\": 0, \"error\": \"run timeout\", \"costs\": [1e10],"
                      " \"state\": \"\\u00e9\\ud83d\\ude00\", \"simulated\": true,"
                      " \"device\": \"t4\", \"task\": \"k\", \"v\": 1, \"extra\": null}\n",
                      &r, &cause),
      0);
   assert_null(cause);
   assert_int_equal(r.version, 1);
   assert_string_equal(r.task, "k");
   assert_string_equal(r.device, "t4");
   assert_true(r.simulated);
   assert_string_equal(r.state, "\xc3\xa9\xf0\x9f\x98\x80");
   assert_int_equal(r.ncosts, 1);
   assertBits(r.costs[0], 1e10, "cost");
   assert_int_equal(r.error, MEASURE_RUN_TIMEOUT);
   assert_string_equal(r.message, "");
   assert_int_equal(r.registers, 0);
   assertBits(r.compileSeconds, 2, "compile_s");
   assertBits(r.runSeconds, 0.0015, "run_s");
   assert_true(r.timestamp == 12);
   assertBits(Record_meanCost(&r), MEASURE_FAILED_COST, "mean");
   Record_done(&r);
   Record_done(&r);
   assert_null(r.task);
   assert_null(r.message);
   assert_int_equal(r.ncosts, 0);
}

static void test_meanCost(void **state) {
   (void)state;
   Record r;
   sample(&r);
   r.ncosts = 4;
   r.costs[0] = 1;
   r.costs[1] = 2;
   r.costs[2] = 3;
   r.costs[3] = 4.5;
   assertBits(Record_meanCost(&r), 2.625, "mean");
   r.ncosts = 1;
   assertBits(Record_meanCost(&r), 1, "mean");
   r.error = MEASURE_WRONG_ANSWER;
   assertBits(Record_meanCost(&r), MEASURE_FAILED_COST, "mean");
   Record_done(&r);
}

/* Temporary files and the sample records with their lines, for the tests on files. */
typedef struct {
   char *dir;
   Record ok, failed, full;
   char *okLine, *failedLine, *fullLine;
} Fixture;

static int setUp(void **state) {
   Fixture *f = xCalloc(1, sizeof *f);
   f->dir = TestUtil_tempDir();
   sample(&f->ok);
   sampleFailed(&f->failed);
   sampleFull(&f->full);
   f->okLine = Record_toJson(&f->ok);
   f->failedLine = Record_toJson(&f->failed);
   f->fullLine = Record_toJson(&f->full);
   *state = f;
   return 0;
}

static int tearDown(void **state) {
   Fixture *f = *state;
   TestUtil_removeTree(f->dir);
   free(f->dir);
   Record_done(&f->ok);
   Record_done(&f->failed);
   Record_done(&f->full);
   free(f->okLine);
   free(f->failedLine);
   free(f->fullLine);
   free(f);
   return 0;
}

static char *pathIn(const Fixture *f, const char *name) {
   return xAsprintf("%s/%s", f->dir, name);
}

/* Fails unless `got` is the formatted text; frees got. */
static void assertText(char *got, const char *fmt, ...) ATTR_FORMAT(2, 3);
static void assertText(char *got, const char *fmt, ...) {
   va_list ap;
   va_start(ap, fmt);
   char *want = xVasprintf(fmt, ap);
   va_end(ap);
   if (!got || strcmp(got, want) != 0)
      fail_msg("got: %s\nwant: %s", got ? got : "(nothing)", want);
   free(want);
   free(got);
}

static void writeRecords(const char *path, Record *const *records, int n) {
   char *cause = NULL;
   RecordWriter *w = RecordWriter_open(path, &cause);
   if (!w)
      fail_msg("%s", cause);
   for (int i = 0; i < n; i++)
      if (RecordWriter_append(w, records[i], &cause) != 0)
         fail_msg("%s", cause);
   if (RecordWriter_close(w, &cause) != 0)
      fail_msg("%s", cause);
}

static void readOk(const char *path, RecordSet *set) {
   char *cause = NULL, *notice = NULL;
   if (Records_read(path, set, &notice, &cause) != 0)
      fail_msg("%s", cause);
   assert_null(notice);
}

static void test_roundTripFile(void **state) {
   Fixture *f = *state;
   char *path = pathIn(f, "records.jsonl");
   Record *all[] = { &f->ok, &f->failed, &f->full };
   writeRecords(path, all, 2);
   writeRecords(path, all + 2, 1);
   /* the file is exactly the lines of Record_toJson */
   assertText(TestUtil_readFile(path), "%s\n%s\n%s\n", f->okLine, f->failedLine, f->fullLine);
   RecordSet set;
   RecordSet_init(&set);
   readOk(path, &set);
   assert_int_equal(set.count, 3);
   for (int i = 0; i < 3; i++)
      assertSame(&set.records[i], all[i]);
   /* reading again appends to what the set holds */
   readOk(path, &set);
   assert_int_equal(set.count, 6);
   assertSame(&set.records[5], &f->full);
   RecordSet_done(&set);
   assert_int_equal(set.count, 0);
   assert_null(set.records);
   RecordSet_done(&set);
   free(path);
}

/* Comments and blank lines are skipped and still counted in line numbers. */
static void test_commentsAndCutLastLine(void **state) {
   Fixture *f = *state;
   char *text = xAsprintf("# measured on the simulator\n\n%s\n  \t\r\n%s\r\n%.40s", f->okLine,
                          f->failedLine, f->failedLine);
   char *path = TestUtil_writeFile(f->dir, "cut.jsonl", text);
   RecordSet set;
   RecordSet_init(&set);
   char *cause = NULL, *notice = NULL;
   assert_int_equal(Records_read(path, &set, &notice, &cause), 0);
   assert_null(cause);
   assert_int_equal(set.count, 2);
   assertSame(&set.records[0], &f->ok);
   assertSame(&set.records[1], &f->failed);
   assertText(notice,
              "%s:6: the last line is cut short (40 bytes without a newline); it was skipped",
              path);
   RecordSet_done(&set);
   free(path);
   free(text);

   /* A last line without a newline that is whole is a record like any other. */
   text = xAsprintf("%s\n%s", f->okLine, f->failedLine);
   path = TestUtil_writeFile(f->dir, "whole.jsonl", text);
   readOk(path, &set);
   assert_int_equal(set.count, 2);
   assertSame(&set.records[1], &f->failed);
   RecordSet_done(&set);
   free(path);
   free(text);

   /* The shortest cut: a lone "{". */
   text = xAsprintf("%s\n{", f->okLine);
   path = TestUtil_writeFile(f->dir, "brace.jsonl", text);
   assert_int_equal(Records_read(path, &set, &notice, &cause), 0);
   assertText(notice,
              "%s:2: the last line is cut short (1 bytes without a newline); it was skipped",
              path);
   assert_int_equal(set.count, 1);
   RecordSet_done(&set);
   free(path);
   free(text);

   /* An empty file and a file of comments hold no records and say nothing. */
   path = TestUtil_writeFile(f->dir, "empty.jsonl", "");
   readOk(path, &set);
   assert_int_equal(set.count, 0);
   free(path);
   path = TestUtil_writeFile(f->dir, "comments.jsonl", "# one\n#two");
   readOk(path, &set);
   assert_int_equal(set.count, 0);
   free(path);
}

#define GOOD "{\"v\":1,\"task\":\"t\",\"device\":\"d\",\"simulated\":false,\"state\":\"s\"," \
             "\"costs\":[0.5],\"error\":\"ok\",\"registers\":-1,\"compile_s\":0,\"run_s\":0," \
             "\"time\":0}"

static const char *const goodParts[][2] = {
   { "v", "1" },           { "task", "\"t\"" },    { "device", "\"d\"" },
   { "simulated", "false" }, { "state", "\"s\"" }, { "costs", "[0.5]" },
   { "error", "\"ok\"" },  { "registers", "-1" },  { "compile_s", "0" },
   { "run_s", "0" },       { "time", "0" },
};
#define NPARTS (sizeof goodParts / sizeof goodParts[0])

static void setPart(const char **keys, const char **values, size_t *n, const char *key,
                    const char *value) {
   if (!key)
      return;
   for (size_t i = 0; i < *n; i++)
      if (strcmp(keys[i], key) == 0) {
         values[i] = value;
         return;
      }
   keys[*n] = key;
   values[(*n)++] = value;
}

/* GOOD with key k1 set to v1 and k2 to v2: a NULL value drops the key, a key GOOD
 * lacks is added at the end. */
static char *goodWith(const char *k1, const char *v1, const char *k2, const char *v2) {
   const char *keys[NPARTS + 2], *values[NPARTS + 2];
   size_t n = 0;
   for (size_t i = 0; i < NPARTS; i++)
      setPart(keys, values, &n, goodParts[i][0], goodParts[i][1]);
   setPart(keys, values, &n, k1, v1);
   setPart(keys, values, &n, k2, v2);
   char buf[1024];
   TextBuf t = TextBuf_over(buf, sizeof buf);
   TextBuf_add(&t, "{");
   for (size_t i = 0; i < n; i++)
      if (values[i])
         TextBuf_add(&t, "%s\"%s\":%s", t.len > 1 ? "," : "", keys[i], values[i]);
   TextBuf_add(&t, "}");
   assert_true(t.len < sizeof buf);
   return xStrdup(buf);
}

/* Reads GOOD, then `bad`, then GOOD: line 2 must fail with exactly `reason`, and the
 * record of line 1 must be kept. */
static void assertBadLine(const Fixture *f, const char *bad, const char *reason) {
   char *text = xAsprintf("%s\n%s\n%s\n", GOOD, bad, GOOD);
   char *path = TestUtil_writeFile(f->dir, "bad.jsonl", text);
   RecordSet set;
   RecordSet_init(&set);
   char *cause = NULL, *notice = NULL;
   assert_int_equal(Records_read(path, &set, &notice, &cause), -1);
   assertText(cause, "%s:2: %s", path, reason);
   assert_null(notice);
   assert_int_equal(set.count, 1);
   assert_string_equal(set.records[0].task, "t");
   /* Record_fromJson gives the same reason without the place, and leaves out empty */
   Record r;
   assert_int_equal(Record_fromJson(bad, &r, &cause), -1);
   assertText(cause, "%s", reason);
   assert_null(r.task);
   assert_null(r.message);
   RecordSet_done(&set);
   free(path);
   free(text);
}

static void assertBadValue(const Fixture *f, const char *k1, const char *v1, const char *k2,
                           const char *v2, const char *reason) {
   char *line = goodWith(k1, v1, k2, v2);
   assertBadLine(f, line, reason);
   free(line);
}

#define ERROR_KINDS "one of \"ok\", \"instantiation error\", \"compile error\", \"load error\", " \
                    "\"runtime error\", \"wrong answer\", \"build timeout\", \"run timeout\", " \
                    "\"unknown error\""

static void test_missingKeys(void **state) {
   Fixture *f = *state;
   static const char *const expect[NPARTS] = {
      "an integer format version of at least 1",
      "a non-empty string",
      "a non-empty string",
      "true or false",
      "a non-empty string",
      "an array of 1 to 32 numbers",
      ERROR_KINDS,
      "an integer from -1 to 4096",
      "a finite number of seconds, at least 0",
      "a finite number of seconds, at least 0",
      "an integer number of Unix seconds from 0 to 9007199254740991",
   };
   assertText(goodWith(NULL, NULL, NULL, NULL), "%s", GOOD);
   for (size_t i = 0; i < NPARTS; i++) {
      char *reason = xAsprintf("missing key \"%s\": expected %s", goodParts[i][0], expect[i]);
      assertBadValue(f, goodParts[i][0], NULL, NULL, NULL, reason);
      free(reason);
   }
}

static void test_badLines(void **state) {
   Fixture *f = *state;
   assertBadLine(f, "not json", "not valid JSON near byte 1 ('not json')");
   assertBadLine(f, GOOD " x", "not valid JSON near byte 138 ('\"time\":0} x')");
   assertBadLine(f, "{\"v\":1,}", "not valid JSON near byte 8 ('{\"v\":1,}')");
   assertBadLine(f, "{\"v\":1,\"task\":\"t\",}",
                 "not valid JSON near byte 19 ('task\":\"t\",}')");
   assertBadLine(f, "[1,2]", "expected a JSON object, found an array");
   assertBadLine(f, "\"hello\"", "expected a JSON object, found a string");
   assertBadLine(f, "17", "expected a JSON object, found 17");
   assertBadLine(f, "{\"v\":1,\"task\":\"t\",\"v\":1}", "key \"v\" is given twice");
   /* A cut line that is not last: a later run appended after it. */
   assertBadLine(f, "{\"v\":1,\"task\":\"t",
                 "the line is cut short (16 bytes, the JSON object is not closed), as when a "
                 "run is killed while writing; delete the line");
}

/* A counters object with every key, l2_hit_rate and occupancy as given */
#define COUNTERS_WITH(l2, occupancy)                                                                    \
   "{\"source\":\"simulated\",\"dram_gbs\":1,\"l2_hit_rate\":" l2 ",\"occupancy\":" occupancy ",\"gflops\":2," \
   "\"waves\":1,\"bound\":\"memory\"}"

/* A counters object with the required keys and more */
#define COUNTERS_PLUS(more)                                                                                  \
   "{\"source\":\"cupti\",\"dram_gbs\":1,\"l2_hit_rate\":0.5,\"occupancy\":0.5,\"gflops\":2,\"waves\":1," \
   "\"bound\":\"memory\"," more "}"

/* What a stall that is none of Nsight Compute's warp states gets */
#define STALL_EXPECTED                                                                                    \
   "\"counters\": \"stall\": expected \"long_scoreboard\", \"short_scoreboard\", \"barrier\", \"wait\", "          \
   "\"math_pipe_throttle\", \"mio_throttle\", \"lg_throttle\", \"not_selected\", \"no_instruction\", "          \
   "\"branch_resolving\", \"dispatch_stall\", \"drain\", \"membar\", \"sleeping\", \"tex_throttle\", "          \
   "\"imc_miss\" or \"misc\", found "

/* Each row: GOOD with one or two keys changed, and the reason it is rejected. */
static const struct {
   const char *k1, *v1, *k2, *v2, *reason;
} badValues[] = {
   /* the version comes first: a newer file may have other keys */
   { "v", "7", "task", NULL,
     "format version 7 is newer than this program reads (1)" },
   { "v", "0", NULL, NULL,
     "\"v\": expected an integer format version of at least 1, found 0" },
   { "v", "1.5", NULL, NULL,
     "\"v\": expected an integer format version of at least 1, found 1.5" },
   { "v", "\"1\"", NULL, NULL,
     "\"v\": expected an integer format version of at least 1, found a string" },
   { "task", "5", NULL, NULL, "\"task\": expected a non-empty string, found 5" },
   { "task", "\"\"", NULL, NULL,
     "\"task\": expected a non-empty string, found \"\"" },
   { "device", "null", NULL, NULL,
     "\"device\": expected a non-empty string, found null" },
   { "state", "{}", NULL, NULL,
     "\"state\": expected a non-empty string, found an object" },
   { "simulated", "\"yes\"", NULL, NULL,
     "\"simulated\": expected true or false, found a string" },
   { "simulated", "1", NULL, NULL,
     "\"simulated\": expected true or false, found 1" },
   { "costs", "0.5", NULL, NULL,
     "\"costs\": expected an array of 1 to 32 numbers, found 0.5" },
   { "costs", "[]", NULL, NULL,
     "\"costs\": expected an array of 1 to 32 numbers, found an empty array" },
   { "costs",
     "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,"
     "29,30,31,32,33]",
     NULL, NULL,
     "\"costs\": expected an array of 1 to 32 numbers, found an array of 33" },
   { "costs", "[0.5,null]", NULL, NULL,
     "\"costs\"[1]: expected a number, found null" },
   { "costs", "[0.5,\"0.6\"]", NULL, NULL,
     "\"costs\"[1]: expected a number, found a string" },
   { "costs", "[0.5,-0.25]", NULL, NULL,
     "\"costs\"[1]: expected more than 0 and less than 1e10 seconds, found -0.25" },
   { "costs", "[0]", NULL, NULL,
     "\"costs\"[0]: expected more than 0 and less than 1e10 seconds, found 0" },
   { "costs", "[1e999]", NULL, NULL,
     "\"costs\"[0]: expected more than 0 and less than 1e10 seconds, found inf" },
   /* an ok record cannot have the cost of a failed one */
   { "costs", "[0.5,1e10]", NULL, NULL,
     "\"costs\"[1]: expected more than 0 and less than 1e10 seconds, "
     "found 10000000000" },
   /* and a failed one has only that cost */
   { "error", "\"runtime error\"", NULL, NULL,
     "\"costs\": expected [1e10] when \"error\" is \"runtime error\", found [0.5]" },
   { "error", "\"runtime error\"", "costs", "[1e10,1e10]",
     "\"costs\": expected [1e10] when \"error\" is \"runtime error\", "
     "found an array of 2" },
   { "error", "\"segfault\"", NULL, NULL,
     "\"error\": expected " ERROR_KINDS ", found \"segfault\"" },
   { "error", "2", NULL, NULL, "\"error\": expected " ERROR_KINDS ", found 2" },
   { "error", "\"compile error\"", "error_no", "3",
     "\"error_no\": expected 2 (the number of \"compile error\"), found 3" },
   { "error_no", "\"0\"", NULL, NULL,
     "\"error_no\": expected 0 (the number of \"ok\"), found a string" },
   { "message", "\"it went well\"", NULL, NULL,
     "\"message\": expected \"\" when \"error\" is \"ok\", found a non-empty string" },
   { "message", "false", NULL, NULL,
     "\"message\": expected a string, found false" },
   { "registers", "-2", NULL, NULL,
     "\"registers\": expected an integer from -1 to 4096, found -2" },
   { "registers", "40.5", NULL, NULL,
     "\"registers\": expected an integer from -1 to 4096, found 40.5" },
   { "registers", "5000", NULL, NULL,
     "\"registers\": expected an integer from -1 to 4096, found 5000" },
   { "compile_s", "-0.001", NULL, NULL,
     "\"compile_s\": expected a finite number of seconds, at least 0, found -0.001" },
   { "run_s", "-1e999", NULL, NULL,
     "\"run_s\": expected a finite number of seconds, at least 0, found -inf" },
   { "run_s", "[]", NULL, NULL,
     "\"run_s\": expected a finite number of seconds, at least 0, found an array" },
   { "time", "-5", NULL, NULL,
     "\"time\": expected an integer number of Unix seconds from 0 to "
     "9007199254740991, found -5" },
   { "time", "1700000000.5", NULL, NULL,
     "\"time\": expected an integer number of Unix seconds from 0 to "
     "9007199254740991, found 1700000000.5" },
   { "time", "9007199254740992", NULL, NULL,
     "\"time\": expected an integer number of Unix seconds from 0 to "
     "9007199254740991, found 9007199254740992" },
   /* counters: every key, in range */
   { "counters", "[1]", NULL, NULL, "\"counters\": expected an object of counters, found an array" },
   { "counters", "{\"source\":\"simulated\"}", NULL, NULL,
     "\"counters\": missing key \"dram_gbs\": expected a number of GB/s, at least 0" },
   { "counters", COUNTERS_WITH("0.5", "1.5"), NULL, NULL,
     "\"counters\": \"occupancy\": expected a number from 0 to 1, found 1.5" },
   { "counters", COUNTERS_WITH("\"high\"", "0.5"), NULL, NULL,
     "\"counters\": \"l2_hit_rate\": expected a number from 0 to 1, found a string" },
   { "counters", "{\"source\":\"cupti\",\"source\":\"cupti\"}", NULL, NULL,
     "\"counters\": key \"source\" is given twice" },
   { "counters", "{\"source\":\"nsight\"}", NULL, NULL,
     "\"counters\": \"source\": expected \"simulated\" or \"cupti\"" },
   { "counters", "{\"source\":\"cupti\",\"ipc\":2}", NULL, NULL,
     "\"counters\": missing key \"dram_gbs\": expected a number of GB/s, at least 0" },
   { "counters", "{\"dram_gbs\":1}", NULL, NULL,
     "\"counters\": \"source\": expected \"simulated\" or \"cupti\", found nothing" },
   { "counters", "{\"source\":\"cupti\",\"ipc_max\":2}", NULL, NULL,
     "\"counters\": unknown key \"ipc_max\": expected source, dram_gbs, l2_hit_rate, occupancy, gflops, waves, "
     "l1_hit_rate, bank_conflicts, instructions, ipc, bound, stall and stall_share" },
   /* the keys added later: optional, but checked when there */
   { "counters", COUNTERS_PLUS("\"l1_hit_rate\":1.25"), NULL, NULL,
     "\"counters\": \"l1_hit_rate\": expected a number from 0 to 1, found 1.25" },
   { "counters", COUNTERS_PLUS("\"bank_conflicts\":\"none\""), NULL, NULL,
     "\"counters\": \"bank_conflicts\": expected a number from 0 to 1, found a string" },
   { "counters", COUNTERS_PLUS("\"instructions\":-1"), NULL, NULL,
     "\"counters\": \"instructions\": expected a number of instructions, at least 0, found -1" },
   { "counters", COUNTERS_PLUS("\"ipc\":null"), NULL, NULL,
     "\"counters\": \"ipc\": expected a number of instructions per clock, at least 0, found a value that is "
     "not a number" },
   { "counters", COUNTERS_PLUS("\"stall\":\"coffee\",\"stall_share\":0.5"), NULL, NULL,
     STALL_EXPECTED "\"coffee\"" },
   { "counters", COUNTERS_PLUS("\"stall\":3,\"stall_share\":0.5"), NULL, NULL,
     STALL_EXPECTED "a number" },
   { "counters", COUNTERS_PLUS("\"stall\":\"barrier\",\"stall_share\":2"), NULL, NULL,
     "\"counters\": \"stall_share\": expected a number from 0 to 1, found 2" },
   { "counters", COUNTERS_PLUS("\"stall\":\"barrier\""), NULL, NULL,
     "\"counters\": \"stall\" and \"stall_share\" come together, found only \"stall\"" },
   { "counters", COUNTERS_PLUS("\"stall_share\":0.5"), NULL, NULL,
     "\"counters\": \"stall\" and \"stall_share\" come together, found only \"stall_share\"" },
   { "counters", COUNTERS_PLUS("\"l1_hit_rate\":0.5,\"l1_hit_rate\":0.5"), NULL, NULL,
     "\"counters\": key \"l1_hit_rate\" is given twice" },
};

static void test_badValues(void **state) {
   Fixture *f = *state;
   for (size_t i = 0; i < sizeof badValues / sizeof badValues[0]; i++)
      assertBadValue(f, badValues[i].k1, badValues[i].v1, badValues[i].k2, badValues[i].v2,
                     badValues[i].reason);
}

/* A last line without a newline that is JSON but breaks a rule is an error, not a cut. */
static void test_badLastLine(void **state) {
   Fixture *f = *state;
   char *bad = goodWith("task", NULL, NULL, NULL);
   char *text = xAsprintf("%s\n%s", GOOD, bad);
   char *path = TestUtil_writeFile(f->dir, "last.jsonl", text);
   RecordSet set;
   RecordSet_init(&set);
   char *cause = NULL, *notice = NULL;
   assert_int_equal(Records_read(path, &set, &notice, &cause), -1);
   assertText(cause, "%s:2: missing key \"task\": expected a non-empty string", path);
   assert_null(notice);
   assert_int_equal(set.count, 1);
   RecordSet_done(&set);
   free(path);
   free(text);
   free(bad);

   /* a NUL byte in a line that has its newline */
   path = pathIn(f, "nul.jsonl");
   FILE *out = fopen(path, "wb");
   assert_non_null(out);
   fwrite("{\"v\":1\0}\n", 1, 9, out);
   fclose(out);
   assert_int_equal(Records_read(path, &set, &notice, &cause), -1);
   assertText(cause, "%s:1: not valid JSON: a NUL byte at byte 7", path);
   assert_int_equal(set.count, 0);
   free(path);
}

/* Appending after a file whose last line was cut (a run killed while writing) first
 * removes the cut line, which no reader could use, so the file stays readable; a last
 * line that is a whole record without its newline gets the newline instead. Opening
 * alone writes nothing. */
static void test_appendAfterCut(void **state) {
   Fixture *f = *state;
   char *text = xAsprintf("%s\n%.30s", f->okLine, f->okLine);
   char *path = TestUtil_writeFile(f->dir, "cut.jsonl", text);

   char *cause = NULL, *notice = NULL;
   RecordWriter *w = RecordWriter_open(path, &cause);
   assert_non_null(w);
   assert_int_equal(RecordWriter_flush(w, &cause), 0);
   assert_int_equal(RecordWriter_close(w, &cause), 0);
   assertText(TestUtil_readFile(path), "%s", text);

   Record *one[] = { &f->failed };
   writeRecords(path, one, 1);
   assertText(TestUtil_readFile(path), "%s\n%s\n", f->okLine, f->failedLine);

   RecordSet set;
   RecordSet_init(&set);
   assert_int_equal(Records_read(path, &set, &notice, &cause), 0);
   assert_null(notice);
   assert_int_equal(set.count, 2);
   assertSame(&set.records[0], &f->ok);
   assertSame(&set.records[1], &f->failed);
   RecordSet_done(&set);

   /* A file that ends with its newline gets none more. */
   writeRecords(path, one, 1);
   assertText(TestUtil_readFile(path), "%s\n%s\n%s\n", f->okLine, f->failedLine, f->failedLine);
   free(path);
   free(text);

   /* a whole record without its newline is kept */
   text = xAsprintf("%s\n%s", f->okLine, f->okLine);
   path = TestUtil_writeFile(f->dir, "whole.jsonl", text);
   writeRecords(path, one, 1);
   assertText(TestUtil_readFile(path), "%s\n%s\n%s\n", f->okLine, f->okLine, f->failedLine);
   free(path);
   free(text);
}

/* A write that fails half way (here: at the file size limit) leaves only whole lines
 * in the file and keeps the rest queued for the next flush. */
static void test_failedWriteKeepsQueue(void **state) {
   Fixture *f = *state;
   char *path = pathIn(f, "limited.jsonl");
   struct rlimit saved, limit;
   assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
   void (*oldHandler)(int) = signal(SIGXFSZ, SIG_IGN);

   char *cause = NULL;
   RecordWriter *w = RecordWriter_open(path, &cause);
   assert_non_null(w);
   assert_int_equal(RecordWriter_append(w, &f->ok, &cause), 0);
   assert_int_equal(RecordWriter_append(w, &f->failed, &cause), 0);
   limit = saved;
   limit.rlim_cur = strlen(f->okLine) + 1 + 20;
   assert_int_equal(setrlimit(RLIMIT_FSIZE, &limit), 0);
   int rc = RecordWriter_flush(w, &cause);
   setrlimit(RLIMIT_FSIZE, &saved);
   signal(SIGXFSZ, oldHandler);
   assert_int_equal(rc, -1);
   assertText(cause, "%s: File too large", path);
   assertText(TestUtil_readFile(path), "%s\n", f->okLine);

   assert_int_equal(RecordWriter_close(w, &cause), 0);
   assertText(TestUtil_readFile(path), "%s\n%s\n", f->okLine, f->failedLine);
   free(path);
}

static void test_writerRefusesBadRecords(void **state) {
   Fixture *f = *state;
   char *path = pathIn(f, "refused.jsonl");
   char *cause = NULL;
   RecordWriter *w = RecordWriter_open(path, &cause);
   assert_non_null(w);
   Record r;
   sample(&r);
   free(r.device);
   r.device = NULL;
   assert_int_equal(RecordWriter_append(w, &r, &cause), -1);
   assertText(cause,
              "%s: not writing an invalid record: \"device\": expected a non-empty string, "
              "found NULL",
              path);
   r.device = xStrdup("d");
   r.costs[1] = NAN;
   assert_int_equal(RecordWriter_append(w, &r, &cause), -1);
   assertText(cause,
              "%s: not writing an invalid record: \"costs\"[1]: expected more than 0 and less "
              "than 1e10 seconds, found nan",
              path);
   /* Record_toJson still writes valid JSON: NaN becomes null, which a reader rejects */
   char *line = Record_toJson(&r);
   assert_non_null(strstr(line, "\"costs\":[1.2345678901234568e-05,null,"));
   Record back;
   assert_int_equal(Record_fromJson(line, &back, &cause), -1);
   assertText(cause, "\"costs\"[1]: expected a number, found null");
   free(line);
   r.costs[1] = 0.1;
   r.error = MEASURE_ERROR_COUNT;
   assert_int_equal(Record_validate(&r, &cause), -1);
   assertText(cause, "\"error\": expected " ERROR_KINDS ", found the number 9");
   r.error = MEASURE_OK;
   r.timestamp = -1;
   assert_int_equal(Record_validate(&r, &cause), -1);
   assertText(cause, "\"time\": expected an integer number of Unix seconds from 0 to "
                     "9007199254740991, found -1");
   r.timestamp = 0;
   assert_int_equal(Record_validate(&r, &cause), 0);
   assert_int_equal(RecordWriter_close(w, &cause), 0);
   assertText(TestUtil_readFile(path), "%s", "");
   Record_done(&r);
   free(path);
}

static void test_fileErrors(void **state) {
   Fixture *f = *state;
   char *path = pathIn(f, "none.jsonl");
   RecordSet set;
   RecordSet_init(&set);
   char *cause = NULL, *notice = NULL;
   assert_int_equal(Records_read(path, &set, &notice, &cause), -1);
   assertText(cause, "%s: No such file or directory", path);
   assert_null(notice);
   assert_int_equal(set.count, 0);
   free(path);

   path = pathIn(f, "no/such/dir.jsonl");
   assert_null(RecordWriter_open(path, &cause));
   assertText(cause, "%s: No such file or directory", path);
   free(path);

   assert_int_equal(Records_read(f->dir, &set, &notice, &cause), -1);
   assertText(cause, "%s: Is a directory", f->dir);
   assert_null(RecordWriter_open(f->dir, &cause));
   assertText(cause, "%s: Is a directory", f->dir);
}

/* The man page describes every key and every error kind with its number. */
static void test_manPage(void **state) {
   (void)state;
   char *path = TestUtil_srcPath("man/pruner-tui-records.5");
   char *man = TestUtil_readFile(path);
   static const char *const keys[] = { "v",     "task",     "device",  "simulated", "state",
                                       "costs", "error",    "error_no", "message", "registers",
                                       "compile_s", "run_s", "time", "throttled", "counters" };
   for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
      char *want = xAsprintf("\n.TP\n.B %s\n", keys[i]);
      if (!strstr(man, want))
         fail_msg("%s does not describe the key %s", path, keys[i]);
      free(want);
   }
   for (int e = 0; e < MEASURE_ERROR_COUNT; e++) {
      const char *name = MeasureError_name((MeasureError)e);
      char *want = xAsprintf("\n.TP\n.BR \"%s\" \" (%d)\"\n", name, e);
      if (!strstr(man, want))
         fail_msg("%s does not list the error kind %s", path, name);
      free(want);
   }
   free(man);
   free(path);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lineText),
      cmocka_unit_test(test_roundTripLine),
      cmocka_unit_test(test_countersCombine),
      cmocka_unit_test(test_roofline),
      cmocka_unit_test(test_readsWhatItDoesNotWrite),
      cmocka_unit_test(test_meanCost),
      cmocka_unit_test_setup_teardown(test_roundTripFile, setUp, tearDown),
      cmocka_unit_test_setup_teardown(test_commentsAndCutLastLine, setUp, tearDown),
      cmocka_unit_test_setup_teardown(test_missingKeys, setUp, tearDown),
      cmocka_unit_test_setup_teardown(test_badLines, setUp, tearDown),
      cmocka_unit_test_setup_teardown(test_badValues, setUp, tearDown),
      cmocka_unit_test_setup_teardown(test_badLastLine, setUp, tearDown),
      cmocka_unit_test_setup_teardown(test_appendAfterCut, setUp, tearDown),
      cmocka_unit_test_setup_teardown(test_failedWriteKeepsQueue, setUp, tearDown),
      cmocka_unit_test_setup_teardown(test_writerRefusesBadRecords, setUp, tearDown),
      cmocka_unit_test_setup_teardown(test_fileErrors, setUp, tearDown),
      cmocka_unit_test(test_manPage),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
