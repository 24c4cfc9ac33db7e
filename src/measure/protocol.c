/* Encoding and decoding of the runner's messages. Decoders check every count against
 * the limits, so a malformed message is rejected rather than read out of bounds. */
#include "config.h"

#include "measure/protocol.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void getName(WireBuf *b, char *out, size_t size) {
   size_t n;
   const char *p = Wire_getBytes(b, &n);
   if (!p || n >= size || memchr(p, '\0', n)) {
      b->bad = true;
      out[0] = '\0';
      return;
   }
   memcpy(out, p, n);
   out[n] = '\0';
}

static int64_t getCount(WireBuf *b, int64_t max) {
   int64_t n = Wire_getU32(b);
   if (n > max)
      b->bad = true;
   return b->bad ? 0 : n;
}

void Proto_putDevice(WireBuf *b, const ProtoDevice *d) {
   Wire_putU32(b, (uint32_t)d->ordinal);
   Wire_putStr(b, d->name);
   Wire_putI64(b, d->driverVersion);
   Wire_putI64(b, d->ccMajor);
   Wire_putI64(b, d->ccMinor);
   const int64_t v[] = { d->totalMem, d->smCount, d->warpSize, d->maxThreadsPerBlock, d->maxThreadsPerSm,
                         d->maxBlocksPerSm, d->regsPerSm, d->maxRegsPerBlock, d->sharedPerSm,
                         d->sharedPerBlock, d->sharedPerBlockOptin, d->l2Bytes };
   for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
      Wire_putI64(b, v[i]);
   Wire_putF64(b, d->clockMhz);
   Wire_putF64(b, d->memBandwidthGbs);
   Wire_putStr(b, d->pciBusId);
}

int Proto_getDevice(WireBuf *b, ProtoDevice *d) {
   memset(d, 0, sizeof *d);
   d->ordinal = (int)Wire_getU32(b);
   getName(b, d->name, sizeof d->name);
   d->driverVersion = (int)Wire_getI64(b);
   d->ccMajor = (int)Wire_getI64(b);
   d->ccMinor = (int)Wire_getI64(b);
   int64_t *v[] = { &d->totalMem, &d->smCount, &d->warpSize, &d->maxThreadsPerBlock, &d->maxThreadsPerSm,
                    &d->maxBlocksPerSm, &d->regsPerSm, &d->maxRegsPerBlock, &d->sharedPerSm,
                    &d->sharedPerBlock, &d->sharedPerBlockOptin, &d->l2Bytes };
   for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
      *v[i] = Wire_getI64(b);
   d->clockMhz = Wire_getF64(b);
   d->memBandwidthGbs = Wire_getF64(b);
   getName(b, d->pciBusId, sizeof d->pciBusId);
   return b->bad ? -1 : 0;
}

void Proto_putProgram(WireBuf *b, const ProtoProgram *p) {
   Wire_putU32(b, (uint32_t)p->nbuffers);
   for (int i = 0; i < p->nbuffers; i++) {
      Wire_putI64(b, p->elems[i]);
      Wire_putI64(b, p->role[i]);
   }
   Wire_putU32(b, (uint32_t)p->nkernels);
   for (int k = 0; k < p->nkernels; k++) {
      const ProtoKernel *kn = &p->kernels[k];
      Wire_putStr(b, kn->name);
      Wire_putI64(b, kn->grid);
      Wire_putI64(b, kn->block);
      Wire_putI64(b, kn->sharedBytes);
      Wire_putU32(b, (uint32_t)kn->nparams);
      for (int i = 0; i < kn->nparams; i++)
         Wire_putU32(b, (uint32_t)kn->params[i]);
   }
   Wire_putBytes(b, p->cubin, p->cubinSize);
}

int Proto_getProgram(WireBuf *b, ProtoProgram *p) {
   memset(p, 0, sizeof *p);
   p->nbuffers = (int)getCount(b, PROTO_MAX_BUFFERS);
   for (int i = 0; i < p->nbuffers; i++) {
      p->elems[i] = Wire_getI64(b);
      int64_t role = Wire_getI64(b);
      if (p->elems[i] <= 0 || role < BUFFER_SCRATCH || role >= PROTO_MAX_BUFFERS)
         b->bad = true;
      p->role[i] = (int)role;
   }
   p->nkernels = (int)getCount(b, PROTO_MAX_KERNELS);
   for (int k = 0; k < p->nkernels && !b->bad; k++) {
      ProtoKernel *kn = &p->kernels[k];
      getName(b, kn->name, sizeof kn->name);
      kn->grid = Wire_getI64(b);
      kn->block = Wire_getI64(b);
      kn->sharedBytes = Wire_getI64(b);
      kn->nparams = (int)getCount(b, PROTO_MAX_PARAMS);
      for (int i = 0; i < kn->nparams; i++) {
         kn->params[i] = (int)Wire_getU32(b);
         if (kn->params[i] >= p->nbuffers)
            b->bad = true;
      }
      if (kn->grid < 1 || kn->grid > INT32_MAX || kn->block < 1 || kn->block > 1024 || kn->sharedBytes < 0)
         b->bad = true;
   }
   p->cubin = Wire_getBytes(b, &p->cubinSize);
   return b->bad ? -1 : 0;
}

void Proto_putTask(WireBuf *b, const ProtoTask *t) {
   Wire_putI64(b, (int64_t)t->id);
   Wire_putF64(b, t->tolerance);
   Wire_putU32(b, (uint32_t)t->ninputs);
   for (int i = 0; i < t->ninputs; i++)
      Wire_putBytes(b, t->inputs[i], (size_t)t->inputElems[i] * sizeof(float));
   Wire_putBytes(b, t->expected, (size_t)t->outputElems * sizeof(float));
   Proto_putProgram(b, &t->reference);
}

int Proto_getTask(WireBuf *b, ProtoTask *t) {
   memset(t, 0, sizeof *t);
   t->id = (uint64_t)Wire_getI64(b);
   t->tolerance = Wire_getF64(b);
   t->ninputs = (int)getCount(b, PROTO_MAX_BUFFERS);
   for (int i = 0; i < t->ninputs; i++) {
      size_t n;
      t->inputs[i] = Wire_getBytes(b, &n);
      t->inputElems[i] = (int64_t)(n / sizeof(float));
      if (n % sizeof(float) || n == 0)
         b->bad = true;
   }
   size_t n;
   t->expected = Wire_getBytes(b, &n);
   t->outputElems = (int64_t)(n / sizeof(float));
   if (n % sizeof(float) || n == 0)
      b->bad = true;
   if (!b->bad)
      Proto_getProgram(b, &t->reference);
   return b->bad || !(t->tolerance > 0) ? -1 : 0;
}

void Proto_putRun(WireBuf *b, uint64_t id, const ProtoProgram *p, const ProtoTiming *t) {
   Wire_putI64(b, (int64_t)id);
   Wire_putU32(b, (uint32_t)t->warmup);
   Wire_putU32(b, (uint32_t)t->repeats);
   Wire_putF64(b, t->minRepeatMs);
   Wire_putF64(b, t->tolerance);
   Wire_putU32(b, t->counters);
   Proto_putProgram(b, p);
}

int Proto_getRun(WireBuf *b, uint64_t *id, ProtoProgram *p, ProtoTiming *t) {
   *id = (uint64_t)Wire_getI64(b);
   t->warmup = (int)getCount(b, 1000);
   t->repeats = (int)getCount(b, PROTO_MAX_COSTS);
   t->minRepeatMs = Wire_getF64(b);
   t->tolerance = Wire_getF64(b);
   t->counters = Wire_getU32(b) != 0;
   if (t->repeats < 1 || !(t->minRepeatMs >= 0 && t->minRepeatMs <= 60000) || !(t->tolerance > 0))
      b->bad = true;
   if (!b->bad)
      Proto_getProgram(b, p);
   return b->bad ? -1 : 0;
}

void Proto_putResult(WireBuf *b, const ProtoResult *r) {
   Wire_putI64(b, (int64_t)r->id);
   Wire_putU32(b, (uint32_t)r->error);
   Wire_putStr(b, r->message);
   Wire_putU32(b, (uint32_t)r->ncosts);
   for (int i = 0; i < r->ncosts; i++)
      Wire_putF64(b, r->costs[i]);
   Wire_putI64(b, r->number);
   Wire_putF64(b, r->maxRelError);
   Wire_putF64(b, r->rmsError);
   Wire_putI64(b, r->registers);
   Wire_putF64(b, r->seconds);
   Wire_putU32(b, r->exiting);
   Proto_putCounters(b, &r->counters);
   Wire_putStr(b, r->countersWhy);
}

void Proto_putCounters(WireBuf *b, const Counters *c) {
   Wire_putU32(b, (uint32_t)c->present | (uint32_t)c->simulated << 1);
   if (!c->present)
      return;
   Wire_putU32(b, c->known);
   const double v[] = { c->dramGbs, c->l2HitRate, c->occupancy, c->gflops,      c->waves,
                        c->l1HitRate, c->bankConflicts, c->instructions, c->ipc, c->stallShare };
   for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
      Wire_putF64(b, v[i]);
   Wire_putStr(b, c->bound);
   Wire_putStr(b, c->stall);
}

void Proto_getCounters(WireBuf *b, Counters *c) {
   memset(c, 0, sizeof *c);
   uint32_t flags = Wire_getU32(b);
   c->present = flags & 1;
   c->simulated = flags >> 1 & 1;
   if (!c->present)
      return;
   c->known = Wire_getU32(b) & COUNTERS_ALL_FIELDS;
   double *v[] = { &c->dramGbs, &c->l2HitRate, &c->occupancy, &c->gflops,      &c->waves,
                   &c->l1HitRate, &c->bankConflicts, &c->instructions, &c->ipc, &c->stallShare };
   for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
      *v[i] = Wire_getF64(b);
   getName(b, c->bound, sizeof c->bound);
   getName(b, c->stall, sizeof c->stall);
}

int Proto_getResult(WireBuf *b, ProtoResult *r) {
   memset(r, 0, sizeof *r);
   r->id = (uint64_t)Wire_getI64(b);
   uint32_t e = Wire_getU32(b);
   if (e >= MEASURE_ERROR_COUNT)
      b->bad = true;
   r->error = (MeasureError)e;
   getName(b, r->message, sizeof r->message);
   r->ncosts = (int)getCount(b, PROTO_MAX_COSTS);
   for (int i = 0; i < r->ncosts; i++) {
      r->costs[i] = Wire_getF64(b);
      if (!(r->costs[i] > 0) || !isfinite(r->costs[i]))
         b->bad = true;
   }
   r->number = Wire_getI64(b);
   r->maxRelError = Wire_getF64(b);
   r->rmsError = Wire_getF64(b);
   r->registers = (int)Wire_getI64(b);
   r->seconds = Wire_getF64(b);
   r->exiting = Wire_getU32(b) != 0;
   Proto_getCounters(b, &r->counters);
   getName(b, r->countersWhy, sizeof r->countersWhy);
   return b->bad ? -1 : 0;
}

double ProtoResult_median(const ProtoResult *r) {
   return Measure_median(r->costs, r->ncosts);
}

double ProtoResult_spread(const ProtoResult *r) {
   if (r->ncosts == 0)
      return 0;
   double lo = r->costs[0], hi = r->costs[0];
   for (int i = 1; i < r->ncosts; i++) {
      lo = r->costs[i] < lo ? r->costs[i] : lo;
      hi = r->costs[i] > hi ? r->costs[i] : hi;
   }
   return hi / lo - 1.0;
}
