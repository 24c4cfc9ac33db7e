/* The runner's fault isolation, against the stand-in runner tests/fake-runner: every
 * way a runner can fail ends in the right error kind and message, the next program is
 * measured by a fresh runner that got the task again, and no process or descriptor is
 * left behind. Also the protocol's encoding and the real runner's answer when there is
 * no driver. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "measure/child.h"
#include "measure/protocol.h"
#include "measure/runner.h"
#include "measure/wire.h"
#include "testutil.h"
#include "util/xalloc.h"

static char *fakePath(void) {
   const char *b = getenv("PTUI_BUILDDIR");
   return xAsprintf("%s/tests/fake-runner", b ? b : ".");
}

static int openFds(void) {
   DIR *d = opendir("/proc/self/fd");
   int n = 0;
   for (struct dirent *e; (e = readdir(d));)
      n += e->d_name[0] != '.';
   closedir(d);
   return n - 1;                /* the directory's own descriptor */
}

/* No child of this process, running or zombie, is left. */
static void assertNoChildren(void) {
   errno = 0;
   assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
   assert_int_equal(errno, ECHILD);
}

static float inputData[64], expected[16];
static const char cubin[] = "not really a cubin";

static void program(ProtoProgram *p, const char *how, int64_t grid) {
   memset(p, 0, sizeof *p);
   p->cubin = cubin;
   p->cubinSize = sizeof cubin;
   p->nbuffers = 2;
   p->elems[0] = 64;
   p->role[0] = 0;
   p->elems[1] = 16;
   p->role[1] = BUFFER_OUTPUT;
   p->nkernels = 1;
   snprintf(p->kernels[0].name, sizeof p->kernels[0].name, "%s", how);
   p->kernels[0].grid = grid;
   p->kernels[0].block = 32;
   p->kernels[0].nparams = 2;
   p->kernels[0].params[0] = 0;
   p->kernels[0].params[1] = 1;
}

static void task(ProtoTask *t, const char *refName) {
   memset(t, 0, sizeof *t);
   t->id = 7;
   t->ninputs = 1;
   t->inputElems[0] = 64;
   t->inputs[0] = inputData;
   t->outputElems = 16;
   t->expected = expected;
   t->tolerance = 1e-3;
   program(&t->reference, refName, 1);
}

typedef struct {
   int fds;
   char *path;
   Runner *r;
} Fixture;

static int setup(void **state) {
   Fixture *f = xCalloc(1, sizeof *f);
   f->fds = openFds();
   f->path = fakePath();
   unsetenv("FAKE_RUNNER_START");
   RunnerConfig cfg;
   RunnerConfig_default(&cfg);
   cfg.program = f->path;
   cfg.runTimeout = 1.0;
   cfg.startTimeout = 2.0;
   f->r = Runner_new(&cfg);
   *state = f;
   return 0;
}

static int teardown(void **state) {
   Fixture *f = *state;
   Runner_free(f->r);
   assertNoChildren();
   assert_int_equal(openFds(), f->fds);
   free(f->path);
   free(f);
   return 0;
}

static void startWithTask(Fixture *f) {
   char *cause = NULL;
   ProtoTask t;
   task(&t, "reference");
   assert_int_equal(Runner_start(f->r, &cause), 0);
   assert_string_equal(Runner_device(f->r)->name, "Fake GPU");
   assert_int_equal(Runner_device(f->r)->smCount, 132);
   if (Runner_setTask(f->r, &t, &cause) < 0)
      fail_msg("%s", cause);
}

/* A good program measured right after: by a fresh runner that was given the task. */
static void assertRecovered(Fixture *f, pid_t before, int starts) {
   ProtoProgram p;
   ProtoResult res;
   program(&p, "good", 20);
   Runner_measure(f->r, &p, &res);
   assert_int_equal(res.error, MEASURE_OK);
   assert_string_equal(res.message, "");
   assert_int_equal(res.ncosts, 3);
   assert_true(res.costs[0] == 20.0 * 1e-6 * 1.0);
   assert_true(res.costs[2] == 20.0 * 1e-6 * 1.2);
   assert_int_equal(res.number, 1);
   assert_int_equal(res.registers, 32);
   assert_true(Runner_pid(f->r) > 0 && Runner_pid(f->r) != before);
   assert_int_equal(Runner_starts(f->r), starts);
}

static void measureFault(Fixture *f, const char *how, MeasureError want, const char *message) {
   startWithTask(f);
   pid_t pid = Runner_pid(f->r);
   ProtoProgram p;
   ProtoResult res;
   program(&p, how, 1);
   Runner_measure(f->r, &p, &res);
   assert_int_equal(res.error, want);
   assert_string_equal(res.message, message);
   assert_int_equal(res.ncosts, 0);
   assert_int_equal(Runner_pid(f->r), 0);       /* reaped at once */
   assertRecovered(f, pid, 2);
}

static void test_crash_mid_message(void **state) {
   measureFault(*state, "crash_mid", MEASURE_RUNTIME_ERROR,
                "the runner was killed by signal 11 (Segmentation fault) in the middle of a message, "
                "while measuring the program");
}

static void test_hang(void **state) {
   measureFault(*state, "hang", MEASURE_RUN_TIMEOUT,
                "no answer within 1 s while measuring the program: the runner was killed");
}

static void test_garbage(void **state) {
   measureFault(*state, "garbage", MEASURE_UNKNOWN_ERROR,
                "the runner sent a malformed message while measuring the program (a message length of "
                "4294967295 bytes is out of range (4 to 1073741824)) and was killed");
}

static void test_exit_early(void **state) {
   measureFault(*state, "exit_early", MEASURE_RUNTIME_ERROR,
                "the runner exited with status 0 before answering, while measuring the program");
}

static void test_wrong_type(void **state) {
   measureFault(*state, "wrong_type", MEASURE_UNKNOWN_ERROR,
                "the runner sent a malformed message while measuring the program (type 0x52454459 where "
                "0x52534c54 was expected) and was killed");
}

static void test_bad_id(void **state) {
   measureFault(*state, "bad_id", MEASURE_UNKNOWN_ERROR,
                "the runner sent a malformed message while measuring the program (a RESULT for program 1 "
                "that does not decode) and was killed");
}

static void test_sticky(void **state) {
   measureFault(*state, "sticky", MEASURE_RUNTIME_ERROR,
                "running the kernels: CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered");
}

static void test_slow_answer(void **state) {
   Fixture *f = *state;
   startWithTask(f);
   pid_t pid = Runner_pid(f->r);
   ProtoProgram p;
   ProtoResult res;
   program(&p, "slow", 5);
   Runner_measure(f->r, &p, &res);
   assert_int_equal(res.error, MEASURE_OK);
   assert_true(res.costs[0] == 5.0 * 1e-6);
   assert_true(res.seconds >= 0.3);
   assert_int_equal(Runner_pid(f->r), pid);     /* slow is not dead */
   assert_int_equal(Runner_starts(f->r), 1);
}

/* A batch with faults between good programs: every result is there, in order. */
static void test_batch_keeps_every_result(void **state) {
   Fixture *f = *state;
   startWithTask(f);
   const char *hows[] = { "good", "crash_mid", "good", "hang", "sticky", "good", "exit_early", "good" };
   const MeasureError want[] = { MEASURE_OK, MEASURE_RUNTIME_ERROR, MEASURE_OK, MEASURE_RUN_TIMEOUT,
                                 MEASURE_RUNTIME_ERROR, MEASURE_OK, MEASURE_RUNTIME_ERROR, MEASURE_OK };
   for (int i = 0; i < 8; i++) {
      ProtoProgram p;
      ProtoResult res;
      program(&p, hows[i], i + 1);
      Runner_measure(f->r, &p, &res);
      assert_int_equal(res.error, want[i]);
      assert_int_equal(res.id, i + 1);
      if (want[i] == MEASURE_OK)
         assert_true(res.costs[0] == (double)(i + 1) * 1e-6 * 1.0);
   }
   assert_int_equal(Runner_starts(f->r), 5);
}

static void test_start_failures(void **state) {
   Fixture *f = *state;
   char *cause = NULL;
   setenv("FAKE_RUNNER_START", "fatal", 1);
   assert_int_equal(Runner_start(f->r, &cause), -1);
   assert_string_equal(cause, "no CUDA device: the fake runner was told to have none");
   free(cause);
   assert_int_equal(Runner_pid(f->r), 0);

   setenv("FAKE_RUNNER_START", "die", 1);
   assert_int_equal(Runner_start(f->r, &cause), -1);
   char *want = xAsprintf("the runner exited with status 5 before answering, while starting (%s)", f->path);
   assert_string_equal(cause, want);
   free(want);
   free(cause);

   setenv("FAKE_RUNNER_START", "garbage", 1);
   assert_int_equal(Runner_start(f->r, &cause), -1);
   want = xAsprintf("the runner sent a malformed message while starting (a message length of 2 bytes is out "
                    "of range (4 to 1073741824)) and was killed (%s)", f->path);
   assert_string_equal(cause, want);
   free(want);
   free(cause);

   setenv("FAKE_RUNNER_START", "hang", 1);
   RunnerConfig cfg;
   RunnerConfig_default(&cfg);
   cfg.program = f->path;
   cfg.startTimeout = 0.3;
   Runner *r = Runner_new(&cfg);
   assert_int_equal(Runner_start(r, &cause), -1);
   want = xAsprintf("no answer within 0.3 s while starting: the runner was killed (%s)", f->path);
   assert_string_equal(cause, want);
   free(want);
   free(cause);
   Runner_free(r);
   unsetenv("FAKE_RUNNER_START");

   cfg.program = "/nonexistent/runner";
   r = Runner_new(&cfg);
   assert_int_equal(Runner_start(r, &cause), -1);
   assert_string_equal(cause, "cannot run the runner /nonexistent/runner: No such file or directory");
   free(cause);
   Runner_free(r);
}

static void test_reference_disagrees(void **state) {
   Fixture *f = *state;
   char *cause = NULL;
   ProtoTask t;
   task(&t, "refbad");
   assert_int_equal(Runner_setTask(f->r, &t, &cause), -1);
   assert_string_equal(cause, "the reference kernel disagrees with the CPU reference: fake");
   free(cause);
   ProtoProgram p;
   ProtoResult res;
   program(&p, "good", 1);
   Runner_measure(f->r, &p, &res);
   assert_int_equal(res.error, MEASURE_UNKNOWN_ERROR);
   assert_string_equal(res.message, "the runner has no task");
}

/* The real runner without an NVIDIA driver: the toolkit's stub, or no library. */
static void test_real_runner_without_driver(void **state) {
   (void)state;
   const char *b = getenv("PTUI_BUILDDIR");
   char *prog = xAsprintf("%s/pruner-tui", b ? b : ".");
   RunnerConfig cfg;
   RunnerConfig_default(&cfg);
   cfg.program = prog;
   char *cause = NULL;
   setenv("PRUNER_TUI_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
   Runner *r = Runner_new(&cfg);
   assert_int_equal(Runner_start(r, &cause), -1);
   assert_string_equal(cause, "no CUDA driver: cannot open /nonexistent/libcuda.so.1 (/nonexistent/libcuda.so.1: "
                              "cannot open shared object file: No such file or directory)");
   free(cause);
   Runner_free(r);
#ifdef PTUI_CUDA_DIR
   const char *stub = PTUI_CUDA_DIR "/lib64/stubs/libcuda.so";
   if (access(stub, R_OK) == 0) {
      setenv("PRUNER_TUI_LIBCUDA", stub, 1);
      r = Runner_new(&cfg);
      assert_int_equal(Runner_start(r, &cause), -1);
      if (!strstr(cause, "is the CUDA toolkit's stub library, not an NVIDIA driver (CUDA_ERROR_STUB_LIBRARY (34)"))
         fail_msg("%s", cause);
      assert_non_null(strstr(cause, "is the CUDA toolkit's stub library, not an NVIDIA driver (CUDA_ERROR_STUB_LIBRARY (34)"));
      free(cause);
      Runner_free(r);
   }
#endif
   unsetenv("PRUNER_TUI_LIBCUDA");
   free(prog);
}

/* The runner process's thread is named "measure" (ps, top and htop show the runner
 * so): RunnerChild_main on a thread of this process, without a driver, names its
 * thread, answers that there is none and returns 1. */
typedef struct {
   int fd, rc, named;
} ChildRun;

static void *runChild(void *arg) {
   ChildRun *c = arg;
   c->rc = RunnerChild_main(c->fd, 0);
   c->named = TestUtil_threadsNamed("measure");
   return NULL;
}

static void test_runner_thread_name(void **state) {
   (void)state;
   int sv[2];
   assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
   setenv("PRUNER_TUI_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
   ChildRun c = { .fd = sv[1] };
   pthread_t t;
   assert_int_equal(pthread_create(&t, NULL, runChild, &c), 0);
   assert_int_equal(pthread_join(t, NULL), 0);
   unsetenv("PRUNER_TUI_LIBCUDA");
   assert_int_equal(c.rc, 1);
   assert_int_equal(c.named, 1);
   assert_int_equal(TestUtil_threadsNamedSettle("measure", 0), 0);
   /* what it said: that there is no driver, naming the library */
   WireBuf in;
   WireBuf_init(&in);
   uint32_t type = 0;
   assert_int_equal(Wire_recv(sv[0], -1.0, &type, &in, NULL), WIRE_OK);
   assert_int_equal(type, MSG_FATAL);
   char *why = Wire_getStr(&in);
   assert_string_equal(why, "no CUDA driver: cannot open /nonexistent/libcuda.so.1 (/nonexistent/libcuda.so.1: "
                            "cannot open shared object file: No such file or directory)");
   free(why);
   WireBuf_done(&in);
   close(sv[0]);
   close(sv[1]);
}

/* ---- the protocol's encoding ---- */

static void test_protocol_round_trip(void **state) {
   (void)state;
   ProtoProgram p, q;
   program(&p, "kern", 1234);
   p.kernels[0].sharedBytes = 4096;
   WireBuf b;
   WireBuf_init(&b);
   ProtoTiming t = { 2, 5, 12.5, 1e-3, true }, u;
   Proto_putRun(&b, 99, &p, &t);
   uint64_t id;
   assert_int_equal(Proto_getRun(&b, &id, &q, &u), 0);
   assert_int_equal(id, 99);
   assert_int_equal(u.warmup, 2);
   assert_int_equal(u.repeats, 5);
   assert_true(u.minRepeatMs == 12.5);
   assert_true(u.counters);
   assert_int_equal(q.nbuffers, 2);
   assert_int_equal(q.role[1], BUFFER_OUTPUT);
   assert_int_equal(q.kernels[0].grid, 1234);
   assert_int_equal(q.kernels[0].sharedBytes, 4096);
   assert_string_equal(q.kernels[0].name, "kern");
   assert_int_equal(q.cubinSize, sizeof cubin);
   assert_memory_equal(q.cubin, cubin, sizeof cubin);
   /* every shorter payload is malformed, never read past its end */
   size_t full = b.len;
   for (size_t n = 0; n < full; n++) {
      b.len = n;
      b.pos = 0;
      b.bad = false;
      assert_int_equal(Proto_getRun(&b, &id, &q, &u), -1);
   }
   /* a parameter naming a buffer the program lacks */
   WireBuf_clear(&b);
   p.kernels[0].params[1] = 5;
   Proto_putRun(&b, 1, &p, &t);
   assert_int_equal(Proto_getRun(&b, &id, &q, &u), -1);

   ProtoResult r, s;
   memset(&r, 0, sizeof r);
   r.id = 3;
   r.ncosts = 3;
   r.costs[0] = 3e-5;
   r.costs[1] = 1e-5;
   r.costs[2] = 2e-5;
   r.number = 77;
   r.registers = 40;
   r.maxRelError = 2.5e-7;
   r.counters = (Counters){ .present = true, .known = COUNTER_STALL, .dramGbs = 1500, .gflops = 30000,
                            .bound = "compute", .stall = "math_pipe_throttle", .stallShare = 0.5 };
   snprintf(r.countersWhy, sizeof r.countersWhy, "partly");
   WireBuf_clear(&b);
   Proto_putResult(&b, &r);
   assert_int_equal(Proto_getResult(&b, &s), 0);
   assert_memory_equal(&s.counters, &r.counters, sizeof r.counters);
   assert_string_equal(s.countersWhy, "partly");
   assert_int_equal(s.ncosts, 3);
   assert_true(s.costs[1] == 1e-5);
   assert_int_equal(s.number, 77);
   assert_true(s.maxRelError == 2.5e-7);
   assert_true(ProtoResult_median(&s) == 2e-5);
   assert_true(ProtoResult_spread(&s) == 3e-5 / 1e-5 - 1.0);
   /* a cost must be positive */
   r.costs[1] = 0;
   WireBuf_clear(&b);
   Proto_putResult(&b, &r);
   assert_int_equal(Proto_getResult(&b, &s), -1);
   WireBuf_done(&b);
}

/* A message whose length promises 1 GiB and whose peer then closes is cut short, and
 * the buffer grew only as far as the bytes that came: found by fuzz/fuzz-wire.c. */
static void test_wire_cut_promise(void **state) {
   (void)state;
   int sv[2];
   assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
   const uint32_t head[3] = { WIRE_MAX_MESSAGE, MSG_RESULT, 42 };
   assert_int_equal(write(sv[0], head, sizeof head), (ssize_t)sizeof head);
   close(sv[0]);
   WireBuf b;
   WireBuf_init(&b);
   uint32_t type = 0;
   char *cause = NULL;
   assert_int_equal(Wire_recv(sv[1], -1.0, &type, &b, &cause), WIRE_CUT);
   assert_null(cause);
   assert_int_equal(type, MSG_RESULT);
   assert_int_equal(b.len, 0);
   assert_true(b.cap <= ((size_t)2 << 20));
   /* a message that arrives whole after the cut one is still read */
   int sw[2];
   assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sw), 0);
   WireBuf out;
   WireBuf_init(&out);
   Wire_putU32(&out, 7);
   assert_int_equal(Wire_send(sw[0], MSG_QUIT, &out, &cause), WIRE_OK);
   close(sw[0]);
   assert_int_equal(Wire_recv(sw[1], -1.0, &type, &b, &cause), WIRE_OK);
   assert_int_equal(type, MSG_QUIT);
   assert_int_equal(b.len, 4);
   assert_int_equal(Wire_getU32(&b), 7);
   WireBuf_done(&out);
   WireBuf_done(&b);
   close(sv[1]);
   close(sw[1]);
}

int main(void) {
   for (int i = 0; i < 64; i++)
      inputData[i] = (float)i * 0.5f + 1.0f;
   for (int i = 0; i < 16; i++)
      expected[i] = (float)i;
   const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_crash_mid_message, setup, teardown),
      cmocka_unit_test_setup_teardown(test_hang, setup, teardown),
      cmocka_unit_test_setup_teardown(test_garbage, setup, teardown),
      cmocka_unit_test_setup_teardown(test_exit_early, setup, teardown),
      cmocka_unit_test_setup_teardown(test_wrong_type, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_id, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sticky, setup, teardown),
      cmocka_unit_test_setup_teardown(test_slow_answer, setup, teardown),
      cmocka_unit_test_setup_teardown(test_batch_keeps_every_result, setup, teardown),
      cmocka_unit_test_setup_teardown(test_start_failures, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reference_disagrees, setup, teardown),
      cmocka_unit_test_setup_teardown(test_real_runner_without_driver, setup, teardown),
      cmocka_unit_test(test_runner_thread_name),
      cmocka_unit_test(test_protocol_round_trip),
      cmocka_unit_test(test_wire_cut_promise),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
