/* Measurement on many machines through MPI (Open MPI, `mpirun` or `srun`). Rank 0
 * runs the engine; every other rank is a worker that measures with its own devices
 * (its --device: cuda:all, a simulated fleet, ...), one thread and one measurer per
 * device. Rank 0's measurer sees each worker's device as one device of its fleet.
 *
 * A message is a 32-bit type and a payload in the runner's wire format (wire.h), sent
 * as MPI bytes; tag 0 carries a worker's hello and rank 0's end, tag 1 + K the
 * requests to and the replies from a worker's device K:
 *
 *   worker -> 0   HELLO: its devices (or why it has none), once at start      tag 0
 *   0 -> worker   TASK: a task's key; TASK_DONE back (ok, or why not)       tag 1+K
 *   0 -> worker   STATE: a state's text form and whether its counters are
 *                 wanted (u32); OUTCOME back                               tag 1+K
 *   0 -> worker   END: the run is over                                        tag 0
 *
 * A worker builds its programs itself (its own NVRTC pool), so that what crosses the
 * network is a state's text out and an outcome back. Every MPI call is made under one
 * lock and never blocks while holding it (MPI_THREAD_SERIALIZED is enough). */
#ifndef HEADER_mpi
#define HEADER_mpi

#include <stdbool.h>
#include <stdint.h>

#include "measure/measurer.h"
#include "measure/wire.h"
#include "te/network.h"

enum {
   MSG_MPI_HELLO = 0x48454c4f,      /* "HELO" */
   MSG_MPI_TASK = 0x4d54534b,       /* "MTSK" */
   MSG_MPI_TASK_DONE = 0x4d54444e,  /* "MTDN" */
   MSG_MPI_STATE = 0x53544154,      /* "STAT" */
   MSG_MPI_OUTCOME = 0x4f555443,    /* "OUTC" */
   MSG_MPI_END = 0x454e4421,        /* "END!" */
};

/* Whether this build has MPI (configure found Open MPI). */
bool Mpi_built(void);
/* Starts MPI; rank and size of this process. -1 with *cause without MPI in the build,
 * or when MPI cannot start. */
int Mpi_start(int *argc, char ***argv, int *rank, int *size, char **cause);
bool Mpi_started(void);
int Mpi_size(void);
/* Ends MPI: rank 0 first sends every worker END. Nothing when MPI did not start. */
void Mpi_finish(void);

/* Sends one message and waits until MPI has taken it. */
void Mpi_send(int rank, int tag, uint32_t type, const WireBuf *payload);
/* Receives the next message from rank with tag into payload (read position 0); -1 once
 * this worker is told to end. */
int Mpi_recv(int rank, int tag, uint32_t *type, WireBuf *payload);

/* An outcome in the wire format, and back (-1 when malformed). */
void Mpi_putOutcome(WireBuf *b, const MeasureOutcome *o);
int Mpi_getOutcome(WireBuf *b, MeasureOutcome *o);

/* A worker's device as rank 0 learns it from the hello. */
typedef struct MpiDevice_ {
   char name[48];               /* the worker's own name for it: "cuda:0", "sim:h100_sxm" */
   Device device;               /* its profile (file is NULL) */
   bool simulated;
   bool compiles;               /* NVRTC builds its programs */
   char arch[16];
   char describe[256];
} MpiDevice;

/* Rank 0: the hello of worker `rank`: up to max devices into d. -1 with *cause (naming
 * the rank) when the worker has none, or the message is malformed. */
int Mpi_hello(int rank, MpiDevice *d, int max, int *n, char **note, char **cause);

/* A worker rank's whole life: opens a measurer per device of cfg->device, sends its
 * hello, measures what rank 0 asks until END, and ends MPI. The tasks are looked up
 * by key in nets. Returns the process's exit status. */
int MpiWorker_run(const MeasurerConfig *cfg, const Network *const *nets, int nnets);
/* A worker rank that cannot measure: its hello says why; then it waits for END and
 * ends MPI. */
void MpiWorker_refuse(const char *why);

#endif
