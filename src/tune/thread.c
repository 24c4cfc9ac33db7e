/* The engine's thread: rounds in a loop, events handed over under a mutex with a byte
 * in a pipe to wake the UI's select(). */
#include "config.h"

#include "tune/thread.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/xalloc.h"

struct EngineThread_ {
   Engine *engine;
   pthread_t thread;
   pthread_mutex_t lock;
   pthread_cond_t commanded;    /* a command arrived: a paused engine looks again */
   int pipe[2];                 /* [0] the UI waits on, [1] the engine writes */
   int nevents, cap;            /* events not yet taken */
   SessionEvent *events;
   bool ended;
   int rc;
   char *cause;
};

static void wake(EngineThread *t) {
   char byte = 1;
   /* the pipe is non-blocking: full means it is readable already */
   while (write(t->pipe[1], &byte, 1) < 0 && errno == EINTR)
      ;
}

static void onEvents(void *ctx, const SessionEvent *events, int n) {
   EngineThread *t = ctx;
   pthread_mutex_lock(&t->lock);
   if (t->nevents + n > t->cap) {
      t->cap = 2 * (t->nevents + n);
      t->events = xReallocArray(t->events, (size_t)t->cap, sizeof *t->events);
   }
   for (int i = 0; i < n; i++)
      SessionEvent_copy(&t->events[t->nevents++], &events[i]);
   pthread_mutex_unlock(&t->lock);
   wake(t);
}

static void *run(void *arg) {
   EngineThread *t = arg;
   char *cause = NULL;
   int rc = 0;
   for (;;) {
      int r = Engine_runRound(t->engine, &cause);
      if (r < 0) {
         rc = -1;
         break;
      }
      if (r == 0)
         break;
      if (r == ENGINE_PAUSED) {
         pthread_mutex_lock(&t->lock);
         while (!Engine_hasCommands(t->engine))
            pthread_cond_wait(&t->commanded, &t->lock);
         pthread_mutex_unlock(&t->lock);
      }
   }
   pthread_mutex_lock(&t->lock);
   t->ended = true;
   t->rc = rc;
   t->cause = cause;
   pthread_mutex_unlock(&t->lock);
   wake(t);
   return NULL;
}

static void destroy(EngineThread *t) {
   for (int i = 0; i < t->nevents; i++)
      SessionEvent_done(&t->events[i]);
   free(t->events);
   close(t->pipe[0]);
   close(t->pipe[1]);
   pthread_cond_destroy(&t->commanded);
   pthread_mutex_destroy(&t->lock);
   free(t);
}

EngineThread *EngineThread_start(Engine *e, char **cause) {
   EngineThread *t = xCalloc(1, sizeof *t);
   t->engine = e;
   if (pipe2(t->pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
      *cause = xAsprintf("cannot make the engine's wake pipe: %s", strerror(errno));
      free(t);
      return NULL;
   }
   pthread_mutex_init(&t->lock, NULL);
   pthread_cond_init(&t->commanded, NULL);
   Engine_setListener(e, onEvents, t);
   /* signals (Ctrl-C, a resized terminal) go to the UI's thread, never to the engine */
   sigset_t all, old;
   sigfillset(&all);
   pthread_sigmask(SIG_SETMASK, &all, &old);
   int err = pthread_create(&t->thread, NULL, run, t);
   pthread_sigmask(SIG_SETMASK, &old, NULL);
   if (err != 0) {
      *cause = xAsprintf("cannot start the engine's thread: %s", strerror(err));
      Engine_setListener(e, NULL, NULL);
      destroy(t);
      return NULL;
   }
   pthread_setname_np(t->thread, "engine");
   return t;
}

int EngineThread_fd(const EngineThread *t) {
   return t->pipe[0];
}

void EngineThread_command(EngineThread *t, const char *text) {
   Engine_command(t->engine, text);
   /* the engine checks for commands under this lock before it sleeps, so the signal
    * cannot fall between its check and its wait */
   pthread_mutex_lock(&t->lock);
   pthread_cond_signal(&t->commanded);
   pthread_mutex_unlock(&t->lock);
}

bool EngineThread_take(EngineThread *t, SessionEvent **events, int *n) {
   char buf[64];
   while (read(t->pipe[0], buf, sizeof buf) > 0)
      ;
   pthread_mutex_lock(&t->lock);
   *events = t->events;
   *n = t->nevents;
   t->events = NULL;
   t->nevents = t->cap = 0;
   bool ended = t->ended;
   pthread_mutex_unlock(&t->lock);
   return ended;
}

int EngineThread_join(EngineThread *t, char **cause) {
   pthread_join(t->thread, NULL);
   Engine_setListener(t->engine, NULL, NULL);
   int rc = t->rc;
   if (rc < 0)
      *cause = t->cause;
   else
      free(t->cause);
   destroy(t);
   return rc;
}
