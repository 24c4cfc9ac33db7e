/* A stand-in runner for the fault tests: speaks the runner protocol without a GPU and
 * misbehaves on request. How it starts comes from $FAKE_RUNNER_START (ok, fatal, die,
 * hang, garbage); how it answers a program comes from the program's first kernel name:
 *   good        a result whose costs are grid x 1e-6, 1.1x and 1.2x that, 32 registers
 *   slow        the same after 0.3 s
 *   crash_mid   half a result, then SIGSEGV
 *   hang        never answers
 *   garbage     a message length of 0xffffffff
 *   exit_early  exits with status 0 without answering
 *   wrong_type  a READY message instead of a result
 *   bad_id      a result for another program
 *   sticky      a runtime error result marked exiting, then exit status 3
 *   failing     a runtime error result, and the runner goes on
 * $FAKE_RUNNER_ANSWER, when set, stands for every program's kernel name (so that a
 * measurer's generated kernels can be answered "good"). A fleet of stand-ins: with
 * $FAKE_RUNNER_GPUS=N an ordinal of N or more has no device (cuda:all stops there), the
 * ordinal in $FAKE_RUNNER_BROKEN answers every program "failing", and odd ordinals are
 * called $FAKE_RUNNER_ODD_NAME when it is set. The device it reports has PCI
 * bus id 0000:3B:00.0, the one tests/fake-nvml.c knows.
 * A good result's `number` is how many tasks this process received, so the tests can
 * tell that a restarted runner was given the task again. With $FAKE_RUNNER_MARK=DIR, a
 * runner answering "slow" holds the file DIR/busy-ORDINAL while it waits (so that a
 * test can kill it in the middle of a program). */
#include "config.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/protocol.h"
#include "measure/wire.h"

static void crash(void) {
   signal(SIGSEGV, SIG_DFL);
   raise(SIGSEGV);
   _exit(99);
}

static void answer(int fd, uint32_t type, const ProtoResult *r) {
   WireBuf b;
   WireBuf_init(&b);
   Proto_putResult(&b, r);
   Wire_send(fd, type, &b, NULL);
   WireBuf_done(&b);
}

int main(int argc, char **argv) {
   if (argc != 4 || strcmp(argv[1], "__runner") != 0)
      return 64;
   int fd = atoi(argv[2]);
   const char *start = getenv("FAKE_RUNNER_START");
   start = start ? start : "ok";
   WireBuf b;
   WireBuf_init(&b);
   if (strcmp(start, "fatal") == 0) {
      Wire_putStr(&b, "no CUDA device: the fake runner was told to have none");
      Wire_send(fd, MSG_FATAL, &b, NULL);
      WireBuf_done(&b);
      return 1;
   }
   if (strcmp(start, "die") == 0)
      _exit(5);
   if (strcmp(start, "hang") == 0)
      for (;;)
         pause();
   if (strcmp(start, "garbage") == 0) {
      uint32_t junk[2] = { 2, MSG_READY };
      return write(fd, junk, sizeof junk) == sizeof junk ? 0 : 1;
   }
   ProtoDevice d;
   memset(&d, 0, sizeof d);
   d.ordinal = atoi(argv[3]);
   if (getenv("FAKE_RUNNER_GPUS") && d.ordinal >= atoi(getenv("FAKE_RUNNER_GPUS"))) {
      Wire_putStr(&b, "no CUDA device: the fake runner has no such ordinal");
      Wire_send(fd, MSG_FATAL, &b, NULL);
      WireBuf_done(&b);
      return 1;
   }
   bool broken = getenv("FAKE_RUNNER_BROKEN") && d.ordinal == atoi(getenv("FAKE_RUNNER_BROKEN"));
   const char *oddName = getenv("FAKE_RUNNER_ODD_NAME");
   snprintf(d.name, sizeof d.name, "%s", oddName && d.ordinal % 2 ? oddName : "Fake GPU");
   snprintf(d.pciBusId, sizeof d.pciBusId, "0000:3B:00.0");
   d.ccMajor = 9;
   d.smCount = 132;
   Proto_putDevice(&b, &d);
   Wire_send(fd, MSG_READY, &b, NULL);
   int tasks = 0;
   for (;;) {
      uint32_t type;
      if (Wire_recv(fd, -1, &type, &b, NULL) != WIRE_OK || type == MSG_QUIT)
         break;
      ProtoResult r;
      memset(&r, 0, sizeof r);
      r.registers = -1;
      if (type == MSG_TASK) {
         ProtoTask t;
         tasks++;
         if (Proto_getTask(&b, &t) < 0)
            return 2;
         r.id = t.id;
         if (strcmp(t.reference.kernels[0].name, "refbad") == 0) {
            r.error = MEASURE_WRONG_ANSWER;
            snprintf(r.message, sizeof r.message, "the reference kernel disagrees with the CPU reference: fake");
         }
         answer(fd, MSG_TASK_DONE, &r);
         continue;
      }
      if (type != MSG_RUN)
         return 2;
      ProtoProgram p;
      ProtoTiming timing;
      if (Proto_getRun(&b, &r.id, &p, &timing) < 0)
         return 2;
      const char *how = getenv("FAKE_RUNNER_ANSWER") ? getenv("FAKE_RUNNER_ANSWER") : p.kernels[0].name;
      if (broken)
         how = "failing";
      if (strcmp(how, "slow") == 0) {
         char mark[4096] = "";
         if (getenv("FAKE_RUNNER_MARK")) {
            snprintf(mark, sizeof mark, "%s/busy-%d", getenv("FAKE_RUNNER_MARK"), d.ordinal);
            FILE *f = fopen(mark, "w");
            if (f)
               fclose(f);
         }
         usleep(300000);
         if (*mark)
            unlink(mark);
      }
      if (strcmp(how, "good") == 0 || strcmp(how, "slow") == 0) {
         r.ncosts = timing.repeats;
         for (int i = 0; i < r.ncosts; i++)
            r.costs[i] = (double)p.kernels[0].grid * 1e-6 * (1.0 + 0.1 * i);
         r.number = tasks;
         r.registers = 32;
         answer(fd, MSG_RESULT, &r);
      } else if (strcmp(how, "crash_mid") == 0) {
         uint32_t head[3] = { 200, MSG_RESULT, (uint32_t)r.id };
         if (write(fd, head, sizeof head) == sizeof head)
            crash();
         return 98;
      } else if (strcmp(how, "hang") == 0) {
         for (;;)
            pause();
      } else if (strcmp(how, "garbage") == 0) {
         uint32_t junk[2] = { 0xffffffffu, MSG_RESULT };
         if (write(fd, junk, sizeof junk) != sizeof junk)
            return 1;
         for (;;)
            pause();
      } else if (strcmp(how, "exit_early") == 0) {
         _exit(0);              /* as a process that dies does: no clean-up, no leak report */
      } else if (strcmp(how, "wrong_type") == 0) {
         answer(fd, MSG_READY, &r);
      } else if (strcmp(how, "bad_id") == 0) {
         r.id += 1000;
         r.ncosts = 1;
         r.costs[0] = 1e-3;
         answer(fd, MSG_RESULT, &r);
      } else if (strcmp(how, "failing") == 0) {
         r.error = MEASURE_RUNTIME_ERROR;
         snprintf(r.message, sizeof r.message, "running the kernels: CUDA_ERROR_LAUNCH_FAILED (719): fake");
         answer(fd, MSG_RESULT, &r);
      } else if (strcmp(how, "sticky") == 0) {
         r.error = MEASURE_RUNTIME_ERROR;
         r.exiting = true;
         snprintf(r.message, sizeof r.message,
                  "running the kernels: CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered");
         answer(fd, MSG_RESULT, &r);
         _exit(3);
      } else {
         return 2;
      }
   }
   WireBuf_done(&b);
   return 0;
}
