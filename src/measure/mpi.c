/* MPI's transport, the outcome's wire form, and the worker ranks (see mpi.h). Built
 * without Open MPI, --mpi says so and nothing here is called. */
#include "config.h"

#include "measure/mpi.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "measure/protocol.h"
#include "sched/sketch.h"
#include "sched/state.h"
#include "util/xalloc.h"

#ifdef HAVE_MPI
#include <mpi.h>
#endif

/* ---- the outcome in the wire format (no MPI needed) ---- */

void Mpi_putOutcome(WireBuf *b, const MeasureOutcome *o) {
   Wire_putU32(b, (uint32_t)o->error);
   Wire_putStr(b, o->message);
   Wire_putU32(b, (uint32_t)o->ncosts);
   for (int i = 0; i < o->ncosts; i++)
      Wire_putF64(b, o->costs[i]);
   Wire_putF64(b, o->latency);
   Wire_putF64(b, o->spread);
   Wire_putI64(b, o->registers);
   Wire_putI64(b, o->spillBytes);
   Wire_putF64(b, o->compileSeconds);
   Wire_putF64(b, o->runSeconds);
   Wire_putU32(b, (uint32_t)o->cached | (uint32_t)o->checked << 1);
   Wire_putU32(b, o->throttled);
   Wire_putF64(b, o->outputError);
   Proto_putCounters(b, &o->counters);
}

int Mpi_getOutcome(WireBuf *b, MeasureOutcome *o) {
   memset(o, 0, sizeof *o);
   uint32_t error = Wire_getU32(b);
   char *msg = Wire_getStr(b);
   uint32_t ncosts = Wire_getU32(b);
   if (!msg || error >= MEASURE_ERROR_COUNT || ncosts > PROTO_MAX_COSTS) {
      free(msg);
      return -1;
   }
   o->error = (MeasureError)error;
   snprintf(o->message, sizeof o->message, "%s", msg);
   free(msg);
   o->ncosts = (int)ncosts;
   for (int i = 0; i < o->ncosts; i++)
      o->costs[i] = Wire_getF64(b);
   o->latency = Wire_getF64(b);
   o->spread = Wire_getF64(b);
   o->registers = (int)Wire_getI64(b);
   o->spillBytes = (int)Wire_getI64(b);
   o->compileSeconds = Wire_getF64(b);
   o->runSeconds = Wire_getF64(b);
   uint32_t flags = Wire_getU32(b);
   o->cached = flags & 1;
   o->checked = flags >> 1 & 1;
   o->throttled = Wire_getU32(b);
   o->outputError = Wire_getF64(b);
   Proto_getCounters(b, &o->counters);
   return b->bad || b->pos != b->len ? -1 : 0;
}

#ifndef HAVE_MPI

bool Mpi_built(void) { return false; }
int Mpi_start(int *argc, char ***argv, int *rank, int *size, char **cause) {
   (void)argc, (void)argv;
   *rank = 0;
   *size = 1;
   return setCause(cause, "this pruner-tui was built without MPI (configure found no Open MPI: install the Debian "
                          "packages libopenmpi-dev and openmpi-bin and build again)");
}
bool Mpi_started(void) { return false; }
int Mpi_size(void) { return 1; }
void Mpi_finish(void) {}
void Mpi_send(int rank, int tag, uint32_t type, const WireBuf *payload) {
   (void)rank, (void)tag, (void)type, (void)payload;
}
int Mpi_recv(int rank, int tag, uint32_t *type, WireBuf *payload) {
   (void)rank, (void)tag, (void)type, (void)payload;
   return -1;
}
int Mpi_hello(int rank, MpiDevice *d, int max, int *n, char **note, char **cause) {
   (void)rank, (void)d, (void)max, (void)note;
   *n = 0;
   return setCause(cause, "built without MPI");
}
int MpiWorker_run(const MeasurerConfig *cfg, const Network *const *nets, int nnets) {
   (void)cfg, (void)nets, (void)nnets;
   return 1;
}
void MpiWorker_refuse(const char *why) {
   (void)why;
}

#else

static pthread_mutex_t mpiLock = PTHREAD_MUTEX_INITIALIZER;
static bool started;
static int myRank, mySize;
static volatile int ending;     /* a worker was told END */

bool Mpi_built(void) { return true; }
bool Mpi_started(void) { return started; }
int Mpi_size(void) { return mySize; }

int Mpi_start(int *argc, char ***argv, int *rank, int *size, char **cause) {
   int provided = 0;
   if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
      return setCause(cause, "MPI_Init_thread failed");
   if (provided < MPI_THREAD_SERIALIZED) {
      MPI_Finalize();
      return setCause(cause, "this MPI gives threads level %d; --mpi needs MPI_THREAD_SERIALIZED (%d)", provided,
                      MPI_THREAD_SERIALIZED);
   }
   MPI_Comm_rank(MPI_COMM_WORLD, &myRank);
   MPI_Comm_size(MPI_COMM_WORLD, &mySize);
   started = true;
   *rank = myRank;
   *size = mySize;
   return 0;
}

/* The wait between polls: short at first, since most replies come quickly, then up to
 * 2 ms, so that a rank waiting long (a worker while rank 0 searches) leaves the cores
 * to the others. */
static void nap(int *round) {
   long ns = *round < 20 ? 0 : *round < 100 ? 50000 : *round < 300 ? 500000 : 2000000;
   (*round)++;
   if (ns == 0) {
      sched_yield();
      return;
   }
   struct timespec t = { 0, ns };
   while (nanosleep(&t, &t) < 0 && errno == EINTR)
      ;
}

void Mpi_send(int rank, int tag, uint32_t type, const WireBuf *payload) {
   size_t n = 4 + payload->len;
   uint8_t *buf = xMalloc(n);
   memcpy(buf, &type, 4);
   if (payload->len)
      memcpy(buf + 4, payload->data, payload->len);
   MPI_Request req;
   pthread_mutex_lock(&mpiLock);
   MPI_Isend(buf, (int)n, MPI_BYTE, rank, tag, MPI_COMM_WORLD, &req);
   pthread_mutex_unlock(&mpiLock);
   for (int round = 0;;) {
      int done = 0;
      pthread_mutex_lock(&mpiLock);
      MPI_Test(&req, &done, MPI_STATUS_IGNORE);
      pthread_mutex_unlock(&mpiLock);
      if (done)
         break;
      nap(&round);
   }
   free(buf);
}

int Mpi_recv(int rank, int tag, uint32_t *type, WireBuf *payload) {
   WireBuf_clear(payload);
   for (int round = 0;;) {
      int flag = 0;
      MPI_Status st;
      pthread_mutex_lock(&mpiLock);
      MPI_Iprobe(rank, tag, MPI_COMM_WORLD, &flag, &st);
      if (flag) {
         int count = 0;
         MPI_Get_count(&st, MPI_BYTE, &count);
         uint8_t *buf = xMalloc(count > 0 ? (size_t)count : 1);
         MPI_Recv(buf, count, MPI_BYTE, st.MPI_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
         pthread_mutex_unlock(&mpiLock);
         *type = 0;
         if (count >= 4) {
            memcpy(type, buf, 4);
            size_t len = (size_t)count - 4;
            if (payload->cap < len) {
               payload->data = xRealloc(payload->data, len);
               payload->cap = len;
            }
            if (len)
               memcpy(payload->data, buf + 4, len);
            payload->len = len;
         }
         free(buf);
         return 0;
      }
      pthread_mutex_unlock(&mpiLock);
      if (ending)
         return -1;
      nap(&round);
   }
}

void Mpi_finish(void) {
   if (!started)
      return;
   if (myRank == 0) {
      WireBuf none;
      WireBuf_init(&none);
      for (int r = 1; r < mySize; r++)
         Mpi_send(r, 0, MSG_MPI_END, &none);
      WireBuf_done(&none);
   }
   MPI_Finalize();
   started = false;
}

/* ---- rank 0: a worker's hello ---- */

int Mpi_hello(int rank, MpiDevice *d, int max, int *n, char **note, char **cause) {
   *n = 0;
   *note = NULL;
   WireBuf in;
   WireBuf_init(&in);
   uint32_t type = 0;
   int rc = -1;
   Mpi_recv(rank, 0, &type, &in);
   if (type != MSG_MPI_HELLO) {
      setCause(cause, "MPI rank %d sent message 0x%08x where its hello was expected", rank, type);
      goto done;
   }
   uint32_t ok = Wire_getU32(&in);
   char *text = Wire_getStr(&in);
   if (!ok) {
      setCause(cause, "MPI rank %d has no device: %s", rank, text ? text : "(no reason given)");
      free(text);
      goto done;
   }
   *note = text && *text ? xStrdup(text) : NULL;
   free(text);
   uint32_t count = Wire_getU32(&in);
   if (count == 0 || count > (uint32_t)max) {
      setCause(cause, "MPI rank %d reports %u devices; 1 to %d were expected", rank, count, max);
      goto done;
   }
   for (uint32_t i = 0; i < count; i++) {
      MpiDevice *x = &d[i];
      memset(x, 0, sizeof *x);
      char *name = Wire_getStr(&in), *arch = Wire_getStr(&in), *describe = Wire_getStr(&in);
      size_t len = 0;
      const void *dev = Wire_getBytes(&in, &len);
      uint32_t flags = Wire_getU32(&in);
      if (name && arch && describe && dev && len == sizeof x->device) {
         snprintf(x->name, sizeof x->name, "%s", name);
         snprintf(x->arch, sizeof x->arch, "%s", arch);
         snprintf(x->describe, sizeof x->describe, "%s", describe);
         memcpy(&x->device, dev, sizeof x->device);
         x->device.file = NULL;
         x->simulated = flags & 1;
         x->compiles = flags >> 1 & 1;
      } else {
         in.bad = true;
      }
      free(name);
      free(arch);
      free(describe);
   }
   if (in.bad) {
      setCause(cause, "MPI rank %d sent a malformed hello (a build of pruner-tui other than rank 0's?)", rank);
      goto done;
   }
   *n = (int)count;
   rc = 0;
done:
   if (rc < 0) {
      free(*note);
      *note = NULL;
   }
   WireBuf_done(&in);
   return rc;
}

/* ---- a worker rank ---- */

typedef struct Worker_ Worker;

/* One device of the worker and its thread. */
typedef struct {
   Worker *w;
   int slot;                    /* its tag is 1 + slot */
   Measurer *m;
   const Task *task;            /* the task set last, or NULL */
   SketchSet set;
   bool haveSet;
   SchedLimits limits;
   bool counters;               /* its measurer gives counters (as the last state asked) */
} Slot;

struct Worker_ {
   const MeasurerConfig *cfg;
   const Network *const *nets;
   int nnets;
   int nslots;
   Slot slots[MEASURER_MAX_DEVICES];
};

static const Task *findTask(const Worker *w, const char *key) {
   for (int i = 0; i < w->nnets; i++)
      for (int t = 0; t < w->nets[i]->ntasks; t++)
         if (strcmp(w->nets[i]->tasks[t].key, key) == 0)
            return &w->nets[i]->tasks[t];
   return NULL;
}

/* TASK: sets the task up on this device; the reply says ok or why not, and the
 * measurer's note on the task. */
static void setTask(Slot *s, WireBuf *in, WireBuf *out) {
   char *key = Wire_getStr(in), *cause = NULL;
   const Task *task = key ? findTask(s->w, key) : NULL;
   if (!key)
      cause = xAsprintf("rank %d got a malformed task message", myRank);
   else if (!task)
      cause = xAsprintf("rank %d has no task '%s': it loaded other task files than rank 0", myRank, key);
   else {
      if (s->haveSet)
         SketchSet_done(&s->set);
      SketchSet_forOpWith(&s->set, &task->op, &Sketch_readAny);
      s->haveSet = true;
      s->task = task;
      if (Measurer_setTask(s->m, task, &s->set, &cause) < 0)
         s->task = NULL;
   }
   free(key);
   const char *note = cause ? NULL : Measurer_taskNote(s->m);
   Wire_putU32(out, cause == NULL);
   Wire_putStr(out, cause ? cause : "");
   Wire_putStr(out, note ? note : "");
   free(cause);
}

/* STATE: measures it on this device. */
static void measureState(Slot *s, WireBuf *in, WireBuf *out) {
   MeasureOutcome o;
   memset(&o, 0, sizeof o);
   o.registers = o.spillBytes = -1;
   o.latency = MEASURE_FAILED_COST;
   o.error = MEASURE_INSTANTIATION_ERROR;
   char *text = Wire_getStr(in), *cause = NULL;
   bool counters = Wire_getU32(in) != 0;
   State st;
   if (!text || in->bad)
      snprintf(o.message, sizeof o.message, "rank %d got a malformed state message", myRank);
   else if (!s->task)
      snprintf(o.message, sizeof o.message, "rank %d has no task set up", myRank);
   else if (State_parse(&s->set, text, &s->limits, &st, &cause) < 0)
      snprintf(o.message, sizeof o.message, "rank %d cannot read the state: %s", myRank, cause);
   else {
      if (counters != s->counters)
         s->counters = Measurer_setCounters(s->m, counters) && counters;
      Measurer_measure(s->m, &st, 1, &o);
   }
   free(cause);
   free(text);
   Mpi_putOutcome(out, &o);
}

static void *slotThread(void *arg) {
   Slot *s = arg;
   WireBuf in, out;
   WireBuf_init(&in);
   WireBuf_init(&out);
   uint32_t type;
   while (Mpi_recv(0, 1 + s->slot, &type, &in) == 0) {
      WireBuf_clear(&out);
      if (type == MSG_MPI_TASK) {
         setTask(s, &in, &out);
         Mpi_send(0, 1 + s->slot, MSG_MPI_TASK_DONE, &out);
      } else if (type == MSG_MPI_STATE) {
         measureState(s, &in, &out);
         Mpi_send(0, 1 + s->slot, MSG_MPI_OUTCOME, &out);
      }
   }
   WireBuf_done(&in);
   WireBuf_done(&out);
   return NULL;
}

/* Opens the fleet of cfg->device to learn its devices, then one measurer per device,
 * each with its share of the build threads. The hello says what came of it. */
static int openSlots(Worker *w, WireBuf *hello) {
   char *cause = NULL;
   Measurer *all = Measurer_open(w->cfg, &cause);
   if (!all) {
      Wire_putU32(hello, 0);
      Wire_putStr(hello, cause);
      free(cause);
      return -1;
   }
   int n = Measurer_count(all);
   char names[MEASURER_MAX_DEVICES][48];
   for (int i = 0; i < n; i++)
      snprintf(names[i], sizeof names[i], "%s", Measurer_unitName(all, i));
   char *note = Measurer_note(all) ? xStrdup(Measurer_note(all)) : NULL;
   Measurer_close(all);
   long cores = sysconf(_SC_NPROCESSORS_ONLN);
   MeasurerConfig one = *w->cfg;
   if (one.buildThreads <= 0)
      one.buildThreads = cores > n ? (int)(cores / n) : 1;
   for (int i = 0; i < n; i++) {
      Slot *s = &w->slots[i];
      s->w = w;
      s->slot = i;
      one.device = names[i];
      s->m = Measurer_open(&one, &cause);
      if (!s->m) {
         Wire_putU32(hello, 0);
         Wire_putStr(hello, cause);
         free(cause);
         free(note);
         return -1;
      }
      SchedLimits_fromDevice(&s->limits, Measurer_device(s->m));
      s->counters = one.counters;
      w->nslots++;
   }
   Wire_putU32(hello, 1);
   Wire_putStr(hello, note ? note : "");
   free(note);
   Wire_putU32(hello, (uint32_t)n);
   for (int i = 0; i < n; i++) {
      const Measurer *m = w->slots[i].m;
      Wire_putStr(hello, names[i]);
      Wire_putStr(hello, Measurer_arch(m));
      Wire_putStr(hello, Measurer_describe(m));
      Wire_putBytes(hello, Measurer_device(m), sizeof(Device));
      Wire_putU32(hello, (uint32_t)Measurer_simulated(m) | (uint32_t)Measurer_compiles(m) << 1);
   }
   return 0;
}

/* Until rank 0 says END; then MPI ends. */
static void awaitEnd(void) {
   WireBuf in;
   WireBuf_init(&in);
   uint32_t type = 0;
   while (type != MSG_MPI_END && Mpi_recv(0, 0, &type, &in) == 0)
      ;
   WireBuf_done(&in);
   ending = 1;
}

void MpiWorker_refuse(const char *why) {
   WireBuf hello;
   WireBuf_init(&hello);
   Wire_putU32(&hello, 0);
   Wire_putStr(&hello, why);
   Mpi_send(0, 0, MSG_MPI_HELLO, &hello);
   WireBuf_done(&hello);
   awaitEnd();
   MPI_Finalize();
   started = false;
}

int MpiWorker_run(const MeasurerConfig *cfg, const Network *const *nets, int nnets) {
   Worker w = { .cfg = cfg, .nets = nets, .nnets = nnets };
   WireBuf hello;
   WireBuf_init(&hello);
   int rc = openSlots(&w, &hello) < 0 ? 1 : 0;
   Mpi_send(0, 0, MSG_MPI_HELLO, &hello);
   WireBuf_done(&hello);
   pthread_t threads[MEASURER_MAX_DEVICES];
   bool running[MEASURER_MAX_DEVICES] = { false };
   for (int i = 0; i < w.nslots; i++) {
      running[i] = pthread_create(&threads[i], NULL, slotThread, &w.slots[i]) == 0;
      if (running[i])
         pthread_setname_np(threads[i], "measure");
   }
   awaitEnd();
   for (int i = 0; i < w.nslots; i++) {
      if (running[i])
         pthread_join(threads[i], NULL);
      if (w.slots[i].haveSet)
         SketchSet_done(&w.slots[i].set);
      Measurer_close(w.slots[i].m);
   }
   MPI_Finalize();
   started = false;
   return rc;
}

#endif
