/* Starting, feeding, watching and replacing runner processes. */
#include "config.h"

#include "measure/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/xalloc.h"

#define RUNNER_FD 3             /* the socket's descriptor in the runner */
#define QUIT_GRACE 1.0          /* seconds a runner gets to quit before it is killed */

struct Runner_ {
   RunnerConfig cfg;
   char program[PATH_MAX];
   pid_t pid;
   int fd;
   int starts;
   ProtoDevice device;
   WireBuf task;                /* the encoded TASK message, for restarted runners */
   bool haveTask;
   uint64_t nextId;
   WireBuf in, out;
};

void RunnerConfig_default(RunnerConfig *c) {
   memset(c, 0, sizeof *c);
   c->startTimeout = 30;
   c->taskTimeout = 60;
   c->runTimeout = 10;
   c->timing.warmup = 1;
   c->timing.repeats = 3;
   c->timing.minRepeatMs = 10;
   c->timing.tolerance = 1e-3;
}

Runner *Runner_new(const RunnerConfig *cfg) {
   Runner *r = xCalloc(1, sizeof *r);
   r->cfg = *cfg;
   r->fd = -1;
   const char *env = getenv("PRUNER_TUI_RUNNER");
   const char *program = cfg->program ? cfg->program : env && *env ? env : NULL;
   if (program) {
      snprintf(r->program, sizeof r->program, "%s", program);
   } else {
      ssize_t n = readlink("/proc/self/exe", r->program, sizeof r->program - 1);
      r->program[n > 0 ? n : 0] = '\0';
   }
   r->cfg.program = NULL;
   WireBuf_init(&r->task);
   WireBuf_init(&r->in);
   WireBuf_init(&r->out);
   return r;
}

/* "exited with status 3" or "was killed by signal 11 (Segmentation fault)" */
static void describeStatus(int status, char *buf, size_t size) {
   if (WIFSIGNALED(status))
      snprintf(buf, size, "was killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
   else if (WIFEXITED(status))
      snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
   else
      snprintf(buf, size, "ended with wait status %d", status);
}

/* Waits for the runner to end, killing it first when `kill` is set or when it has
 * not ended within the grace time; closes the socket. */
static void reap(Runner *r, bool killFirst, char *how, size_t size) {
   if (r->fd >= 0)
      close(r->fd);
   r->fd = -1;
   if (r->pid <= 0)
      return;
   int status = 0;
   if (killFirst)
      kill(r->pid, SIGKILL);
   double deadline = Clock_now() + QUIT_GRACE;
   for (;;) {
      pid_t w = waitpid(r->pid, &status, killFirst ? 0 : WNOHANG);
      if (w == r->pid)
         break;
      if (w < 0 && errno != EINTR) {
         status = 0;
         break;
      }
      if (w == 0 && Clock_now() > deadline) {
         kill(r->pid, SIGKILL);
         killFirst = true;
      } else if (w == 0) {
         usleep(2000);
      }
   }
   if (how)
      describeStatus(status, how, size);
   r->pid = 0;
}

static int spawn(Runner *r, char **cause) {
   if (access(r->program, X_OK) != 0)
      return setCause(cause, "cannot run the runner %s: %s", r->program, strerror(errno));
   int sv[2];
   if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
      return setCause(cause, "cannot make the runner's socket: %s", strerror(errno));
   char ordinal[16];
   snprintf(ordinal, sizeof ordinal, "%d", r->cfg.ordinal);
   char fdText[8];
   snprintf(fdText, sizeof fdText, "%d", RUNNER_FD);
   char subcommand[] = "__runner";
   char *argv[] = { r->program, subcommand, fdText, ordinal, NULL };
   int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
   pid_t pid = fork();
   if (pid < 0) {
      int e = errno;
      close(sv[0]);
      close(sv[1]);
      if (devnull >= 0)
         close(devnull);
      return setCause(cause, "cannot start the runner: %s", strerror(e));
   }
   if (pid == 0) {
      /* only async-signal-safe calls until exec: the tuner has threads */
      if (sv[1] == RUNNER_FD)
         fcntl(RUNNER_FD, F_SETFD, 0);
      else if (dup2(sv[1], RUNNER_FD) < 0)
         _exit(127);
      if (devnull >= 0) {
         dup2(devnull, 0);
         dup2(devnull, 1);
         if (r->cfg.quiet)
            dup2(devnull, 2);
      }
      if (close_range(RUNNER_FD + 1, ~0u, 0) != 0)
         for (int fd = RUNNER_FD + 1; fd < 65536; fd++)
            close(fd);
      signal(SIGPIPE, SIG_DFL);
      /* the engine's thread blocks the signals the UI handles; the runner has its own */
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, NULL);
      execv(r->program, argv);
      _exit(127);
   }
   close(sv[1]);
   if (devnull >= 0)
      close(devnull);
   r->pid = pid;
   r->fd = sv[0];
   r->starts++;
   return 0;
}

/* Describes why a wait for the runner's message failed, and reaps the runner. */
static MeasureError lost(Runner *r, WireStatus st, const char *waiting, double timeout, const char *why,
                         char *msg, size_t size) {
   char how[128] = "";
   switch (st) {
   case WIRE_TIMEOUT:
      reap(r, true, how, sizeof how);
      snprintf(msg, size, "no answer within %g s while %s: the runner was killed", timeout, waiting);
      return MEASURE_RUN_TIMEOUT;
   case WIRE_MALFORMED:
      reap(r, true, how, sizeof how);
      snprintf(msg, size, "the runner sent a malformed message while %s (%s) and was killed", waiting, why ? why : "");
      return MEASURE_UNKNOWN_ERROR;
   case WIRE_EOF:
   case WIRE_CUT:
      reap(r, false, how, sizeof how);
      snprintf(msg, size, "the runner %s %s, while %s", how,
               st == WIRE_CUT ? "in the middle of a message" : "before answering", waiting);
      return MEASURE_RUNTIME_ERROR;
   default:
      reap(r, true, how, sizeof how);
      snprintf(msg, size, "%s while %s; the runner was killed", why ? why : "lost the runner", waiting);
      return MEASURE_RUNTIME_ERROR;
   }
}

/* Waits for one message of type `want` (or, when want is MSG_READY, MSG_FATAL). */
static MeasureError await(Runner *r, uint32_t want, double timeout, const char *waiting, uint32_t *type,
                          char *msg, size_t size) {
   char *why = NULL;
   WireStatus st = Wire_recv(r->fd, Clock_now() + timeout, type, &r->in, &why);
   MeasureError e = MEASURE_OK;
   if (st != WIRE_OK) {
      e = lost(r, st, waiting, timeout, why, msg, size);
   } else if (*type != want && !(want == MSG_READY && *type == MSG_FATAL)) {
      char what[64];
      snprintf(what, sizeof what, "type 0x%08x where 0x%08x was expected", *type, want);
      e = lost(r, WIRE_MALFORMED, waiting, timeout, what, msg, size);
   }
   free(why);
   return e;
}

static int startRunner(Runner *r, char **cause) {
   if (spawn(r, cause) < 0)
      return -1;
   char msg[512];
   uint32_t type;
   if (await(r, MSG_READY, r->cfg.startTimeout, "starting", &type, msg, sizeof msg) != MEASURE_OK)
      return setCause(cause, "%s (%s)", msg, r->program);
   if (type == MSG_FATAL) {
      char *why = Wire_getStr(&r->in);
      setCause(cause, "%s", why ? why : "the runner found no device");
      free(why);
      reap(r, false, NULL, 0);
      return -1;
   }
   if (Proto_getDevice(&r->in, &r->device) < 0) {
      reap(r, true, NULL, 0);
      return setCause(cause, "the runner sent a malformed READY message and was killed (%s)", r->program);
   }
   return 0;
}

/* Sends the kept task to the runner and waits for its verdict. */
static MeasureError sendTask(Runner *r, char *msg, size_t size) {
   char *why = NULL;
   if (Wire_send(r->fd, MSG_TASK, &r->task, &why) != WIRE_OK) {
      MeasureError e = lost(r, WIRE_IO, "loading the task", 0, why, msg, size);
      free(why);
      return e;
   }
   uint32_t type;
   MeasureError e = await(r, MSG_TASK_DONE, r->cfg.taskTimeout, "loading the task", &type, msg, size);
   if (e != MEASURE_OK)
      return e;
   ProtoResult res;
   if (Proto_getResult(&r->in, &res) < 0) {
      return lost(r, WIRE_MALFORMED, "loading the task", 0, "a TASK_DONE that does not decode", msg,
                  size);
   }
   if (res.exiting)
      reap(r, false, NULL, 0);
   if (res.error != MEASURE_OK)
      snprintf(msg, size, "%s", res.message);
   return res.error;
}

int Runner_start(Runner *r, char **cause) {
   if (r->pid > 0)
      return 0;
   return startRunner(r, cause);
}

const ProtoDevice *Runner_device(const Runner *r) {
   return &r->device;
}

int Runner_setTask(Runner *r, const ProtoTask *task, char **cause) {
   WireBuf_clear(&r->task);
   Proto_putTask(&r->task, task);
   r->haveTask = false;
   if (r->pid <= 0 && startRunner(r, cause) < 0)
      return -1;
   char msg[512];
   if (sendTask(r, msg, sizeof msg) != MEASURE_OK)
      return setCause(cause, "%s", msg);
   r->haveTask = true;
   return 0;
}

/* A runner that ended on its own since the last message is replaced before the next
 * program, so that its end is not blamed on that program. */
static bool alive(Runner *r) {
   if (r->pid <= 0)
      return false;
   int status;
   if (waitpid(r->pid, &status, WNOHANG) == r->pid) {
      r->pid = 0;
      close(r->fd);
      r->fd = -1;
      return false;
   }
   return true;
}

static void failResult(ProtoResult *res, MeasureError e, const char *msg) {
   res->error = e;
   res->ncosts = 0;
   snprintf(res->message, sizeof res->message, "%.*s", (int)sizeof res->message - 1, msg);
}

void Runner_measure(Runner *r, const ProtoProgram *p, ProtoResult *res) {
   memset(res, 0, sizeof *res);
   res->registers = -1;
   uint64_t id = ++r->nextId;
   res->id = id;
   double t0 = Clock_now();
   char msg[512];
   char *why = NULL;
   if (!r->haveTask) {
      failResult(res, MEASURE_UNKNOWN_ERROR, "the runner has no task");
      return;
   }
   if (!alive(r)) {
      if (startRunner(r, &why) < 0) {
         snprintf(msg, sizeof msg, "cannot restart the runner: %s", why);
         free(why);
         failResult(res, MEASURE_RUNTIME_ERROR, msg);
         return;
      }
      MeasureError e = sendTask(r, msg, sizeof msg);
      if (e != MEASURE_OK) {
         char again[600];
         snprintf(again, sizeof again, "the restarted runner failed its task: %s", msg);
         failResult(res, e, again);
         return;
      }
   }
   WireBuf_clear(&r->out);
   ProtoTiming timing = r->cfg.timing;
   if (p->tolerance > 0)
      timing.tolerance = p->tolerance;
   Proto_putRun(&r->out, id, p, &timing);
   uint32_t type;
   MeasureError e;
   if (Wire_send(r->fd, MSG_RUN, &r->out, &why) != WIRE_OK)
      e = lost(r, WIRE_IO, "measuring the program", 0, why, msg, sizeof msg);
   else
      e = await(r, MSG_RESULT, r->cfg.runTimeout, "measuring the program", &type, msg, sizeof msg);
   free(why);
   if (e == MEASURE_OK) {
      if (Proto_getResult(&r->in, res) < 0 || res->id != id || (res->error == MEASURE_OK && res->ncosts == 0)) {
         char what[96];
         snprintf(what, sizeof what, "a RESULT for program %llu that does not decode", (unsigned long long)id);
         e = lost(r, WIRE_MALFORMED, "measuring the program", 0, what, msg, sizeof msg);
         memset(res, 0, sizeof *res);
         res->registers = -1;
         res->id = id;
      } else if (res->exiting) {
         reap(r, false, NULL, 0);
      }
   }
   if (e != MEASURE_OK)
      failResult(res, e, msg);
   if (res->error == MEASURE_OK)
      res->seconds = Clock_now() - t0;
   else if (res->seconds <= 0)
      res->seconds = Clock_now() - t0;
}

void Runner_setCounters(Runner *r, bool on) {
   r->cfg.timing.counters = on;
}

pid_t Runner_pid(const Runner *r) {
   return r->pid;
}

int Runner_starts(const Runner *r) {
   return r->starts;
}

void Runner_free(Runner *r) {
   if (!r)
      return;
   if (r->pid > 0) {
      Wire_send(r->fd, MSG_QUIT, NULL, NULL);
      shutdown(r->fd, SHUT_WR);
      reap(r, false, NULL, 0);
   }
   WireBuf_done(&r->task);
   WireBuf_done(&r->in);
   WireBuf_done(&r->out);
   free(r);
}
