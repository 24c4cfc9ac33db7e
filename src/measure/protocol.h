/* What the tuner and its runner process say to each other (over wire.h's framing):
 * the device the runner found, the task's inputs and reference, programs to check and
 * time, and their results. The parent side is runner.h, the child side child.h; the
 * test suite's stand-in runner speaks it too.
 *
 *   child  -> parent   READY (device) or FATAL (why there is no device), once at start
 *   parent -> child    TASK: inputs, reference program, CPU reference output
 *   child  -> parent   TASK_DONE: the reference program's agreement with the CPU
 *   parent -> child    RUN: a program and how to time it
 *   child  -> parent   RESULT
 *   parent -> child    QUIT
 *
 * A child that meets an error leaving its CUDA context unusable sends its RESULT and
 * exits; the parent starts a new one. */
#ifndef HEADER_protocol
#define HEADER_protocol

#include <stdbool.h>
#include <stdint.h>

#include "measure/counters.h"
#include "measure/measure.h"
#include "measure/wire.h"

enum {
   MSG_READY = 0x52454459,      /* "REDY" */
   MSG_FATAL = 0x4641544c,      /* "FATL" */
   MSG_TASK = 0x5441534b,       /* "TASK" */
   MSG_TASK_DONE = 0x54444f4e,  /* "TDON" */
   MSG_RUN = 0x52554e21,        /* "RUN!" */
   MSG_RESULT = 0x52534c54,     /* "RSLT" */
   MSG_QUIT = 0x51554954,       /* "QUIT" */
};

#define PROTO_MAX_KERNELS 8
#define PROTO_MAX_PARAMS 16
#define PROTO_MAX_BUFFERS 64
#define PROTO_MAX_COSTS 32

/* What the driver says about the GPU; -1 for what it could not say. */
typedef struct ProtoDevice_ {
   int ordinal;
   char name[128];
   int driverVersion;           /* 13000 for CUDA 13.0 */
   int ccMajor, ccMinor;
   int64_t totalMem;
   int64_t smCount, warpSize, maxThreadsPerBlock, maxThreadsPerSm, maxBlocksPerSm;
   int64_t regsPerSm, maxRegsPerBlock, sharedPerSm, sharedPerBlock, sharedPerBlockOptin;
   int64_t l2Bytes;
   double clockMhz;
   double memBandwidthGbs;      /* from the memory clock and bus width */
   char pciBusId[32];           /* "0000:3B:00.0"; "" when the driver did not say */
} ProtoDevice;

typedef enum {
   BUFFER_OUTPUT = -1,          /* the task's output, checked against the reference */
   BUFFER_SCRATCH = -2,         /* an intermediate result of the program */
} BufferRole;                   /* >= 0: the task's input of that index */

typedef struct ProtoKernel_ {
   char name[64];
   int64_t grid, block;         /* one-dimensional */
   int64_t sharedBytes;         /* dynamic shared memory; static is in the CUBIN */
   int nparams;
   int params[PROTO_MAX_PARAMS];/* buffer indices, in argument order */
} ProtoKernel;

/* A compiled candidate: its CUBIN, its global buffers, and its kernels in launch
 * order. One launch of the program is every kernel once. */
typedef struct ProtoProgram_ {
   const void *cubin;
   size_t cubinSize;
   int nbuffers;
   int64_t elems[PROTO_MAX_BUFFERS];
   int role[PROTO_MAX_BUFFERS];
   int nkernels;
   ProtoKernel kernels[PROTO_MAX_KERNELS];
   /* the largest relative error this program may show (a Tensor-Core program rounds
    * its operands); 0: the timing's. The runner sends it as the RUN's tolerance. */
   double tolerance;
} ProtoProgram;

typedef struct ProtoTiming_ {
   int warmup;                  /* untimed launches before timing */
   int repeats;
   double minRepeatMs;          /* a repeat's launches grow until they last this long */
   double tolerance;            /* largest relative error against the reference */
   bool counters;               /* after timing, one launch under CUPTI's profiler */
} ProtoTiming;

/* A task as the child receives it: pointers into the message. */
typedef struct ProtoTask_ {
   uint64_t id;
   int ninputs;
   int64_t inputElems[PROTO_MAX_BUFFERS];
   const float *inputs[PROTO_MAX_BUFFERS];
   int64_t outputElems;
   const float *expected;       /* the CPU reference output */
   double tolerance;
   ProtoProgram reference;      /* the straightforward kernel */
} ProtoTask;

typedef struct ProtoResult_ {
   uint64_t id;
   MeasureError error;
   char message[512];
   int ncosts;
   double costs[PROTO_MAX_COSTS];  /* seconds per launch, one per repeat */
   int64_t number;              /* launches in the last repeat */
   double maxRelError;          /* of the checked launch against the reference */
   double rmsError;             /* its largest |output - reference| over the reference's RMS */
   int registers;               /* the driver's count for the kernel with most; -1 */
   double seconds;              /* wall time in the runner */
   bool exiting;                /* the runner ends after this message (its context is lost) */
   Counters counters;           /* with ProtoTiming.counters, of an ok program */
   char countersWhy[256];       /* asked for but not read: why ("" otherwise) */
} ProtoResult;

void Proto_putDevice(WireBuf *b, const ProtoDevice *d);
int Proto_getDevice(WireBuf *b, ProtoDevice *d);
void Proto_putProgram(WireBuf *b, const ProtoProgram *p);
/* Points p->cubin into b; -1 when malformed or beyond the limits. */
int Proto_getProgram(WireBuf *b, ProtoProgram *p);
void Proto_putTask(WireBuf *b, const ProtoTask *t);
int Proto_getTask(WireBuf *b, ProtoTask *t);
void Proto_putRun(WireBuf *b, uint64_t id, const ProtoProgram *p, const ProtoTiming *t);
int Proto_getRun(WireBuf *b, uint64_t *id, ProtoProgram *p, ProtoTiming *t);
void Proto_putResult(WireBuf *b, const ProtoResult *r);
/* Counters on the wire (also in MPI's outcomes); the decoder sets b->bad when malformed. */
void Proto_putCounters(WireBuf *b, const Counters *c);
void Proto_getCounters(WireBuf *b, Counters *c);
int Proto_getResult(WireBuf *b, ProtoResult *r);

/* Median and spread (max/min - 1) of a result's costs. */
double ProtoResult_median(const ProtoResult *r);
double ProtoResult_spread(const ProtoResult *r);

#endif
