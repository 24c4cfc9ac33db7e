/* Message framing over a stream socket, with deadlines through poll(). */
#include "config.h"

#include "measure/wire.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/xalloc.h"

void WireBuf_init(WireBuf *b) {
   memset(b, 0, sizeof *b);
}

void WireBuf_done(WireBuf *b) {
   free(b->data);
   WireBuf_init(b);
}

void WireBuf_clear(WireBuf *b) {
   b->len = b->pos = 0;
   b->bad = false;
}

static void reserve(WireBuf *b, size_t more) {
   if (b->len + more <= b->cap)
      return;
   size_t cap = b->cap ? b->cap : 256;
   while (cap < b->len + more)
      cap *= 2;
   b->data = xRealloc(b->data, cap);
   b->cap = cap;
}

static void put(WireBuf *b, const void *p, size_t n) {
   reserve(b, n);
   if (n)
      memcpy(b->data + b->len, p, n);
   b->len += n;
}

void Wire_putU32(WireBuf *b, uint32_t v) { put(b, &v, sizeof v); }
void Wire_putI64(WireBuf *b, int64_t v) { put(b, &v, sizeof v); }
void Wire_putF64(WireBuf *b, double v) { put(b, &v, sizeof v); }

void Wire_putBytes(WireBuf *b, const void *p, size_t n) {
   if (n >= WIRE_MAX_MESSAGE)
      fatal("a message field of %zu bytes is beyond the wire's limit", n);
   Wire_putU32(b, (uint32_t)n);
   put(b, p, n);
}

void Wire_putStr(WireBuf *b, const char *s) {
   Wire_putBytes(b, s, strlen(s));
}

static const void *get(WireBuf *b, size_t n) {
   if (b->bad || n > b->len - b->pos) {
      b->bad = true;
      return NULL;
   }
   const void *p = b->data + b->pos;
   b->pos += n;
   return p;
}

uint32_t Wire_getU32(WireBuf *b) {
   uint32_t v = 0;
   const void *p = get(b, sizeof v);
   if (p)
      memcpy(&v, p, sizeof v);
   return v;
}

int64_t Wire_getI64(WireBuf *b) {
   int64_t v = 0;
   const void *p = get(b, sizeof v);
   if (p)
      memcpy(&v, p, sizeof v);
   return v;
}

double Wire_getF64(WireBuf *b) {
   double v = 0;
   const void *p = get(b, sizeof v);
   if (p)
      memcpy(&v, p, sizeof v);
   return v;
}

const void *Wire_getBytes(WireBuf *b, size_t *n) {
   *n = Wire_getU32(b);
   const void *p = get(b, *n);
   if (!p)
      *n = 0;
   return p;
}

char *Wire_getStr(WireBuf *b) {
   size_t n;
   const char *p = Wire_getBytes(b, &n);
   if (!p || memchr(p, '\0', n)) {
      b->bad = true;
      return NULL;
   }
   return xStrndup(p, n);
}

/* ---- the socket ---- */

static WireStatus sendAll(int fd, const void *p, size_t n, char **cause) {
   const uint8_t *q = p;
   while (n > 0) {
      ssize_t w = send(fd, q, n, MSG_NOSIGNAL);
      if (w < 0) {
         if (errno == EINTR)
            continue;
         setCause(cause, "sending to the runner: %s", strerror(errno));
         return WIRE_IO;
      }
      q += w;
      n -= (size_t)w;
   }
   return WIRE_OK;
}

WireStatus Wire_send(int fd, uint32_t type, const WireBuf *payload, char **cause) {
   size_t n = payload ? payload->len : 0;
   if (n > WIRE_MAX_MESSAGE - 4)
      fatal("a message of %zu bytes is beyond the wire's limit", n);
   uint32_t head[2] = { (uint32_t)(n + 4), type };
   WireStatus st = sendAll(fd, head, sizeof head, cause);
   return st == WIRE_OK && n ? sendAll(fd, payload->data, n, cause) : st;
}

/* How much of a message Wire_recv reads (and makes room for) at a time. */
#define WIRE_RECV_STEP ((size_t)1 << 20)

/* Reads exactly n bytes; *got says how many arrived before a problem. */
static WireStatus recvAll(int fd, double deadline, void *p, size_t n, size_t *got, char **cause) {
   uint8_t *q = p;
   *got = 0;
   while (*got < n) {
      int wait = -1;
      if (deadline >= 0) {
         double left = deadline - Clock_now();
         if (left <= 0)
            return WIRE_TIMEOUT;
         wait = (int)(left * 1000.0) + 1;
      }
      struct pollfd pfd = { .fd = fd, .events = POLLIN };
      int r = poll(&pfd, 1, wait);
      if (r < 0) {
         if (errno == EINTR)
            continue;
         setCause(cause, "waiting for the runner: %s", strerror(errno));
         return WIRE_IO;
      }
      if (r == 0)
         continue;              /* the deadline check above ends it */
      ssize_t got1 = recv(fd, q + *got, n - *got, 0);
      if (got1 < 0) {
         if (errno == EINTR || errno == EAGAIN)
            continue;
         if (errno == ECONNRESET)
            return WIRE_EOF;
         setCause(cause, "reading from the runner: %s", strerror(errno));
         return WIRE_IO;
      }
      if (got1 == 0)
         return WIRE_EOF;
      *got += (size_t)got1;
   }
   return WIRE_OK;
}

WireStatus Wire_recv(int fd, double deadline, uint32_t *type, WireBuf *payload, char **cause) {
   uint32_t head[2];
   size_t got;
   WireBuf_clear(payload);
   WireStatus st = recvAll(fd, deadline, head, sizeof head, &got, cause);
   if (st == WIRE_EOF && got > 0)
      st = WIRE_CUT;
   if (st != WIRE_OK)
      return st;
   if (head[0] < 4 || head[0] > WIRE_MAX_MESSAGE) {
      setCause(cause, "a message length of %u bytes is out of range (4 to %u)", head[0], WIRE_MAX_MESSAGE);
      return WIRE_MALFORMED;
   }
   *type = head[1];
   /* The buffer grows as the bytes arrive, so a length that the peer never follows
    * with its bytes costs no more memory than it sent. */
   size_t n = head[0] - 4, have = 0;
   while (st == WIRE_OK && have < n) {
      size_t step = n - have < WIRE_RECV_STEP ? n - have : WIRE_RECV_STEP;
      reserve(payload, have + step);
      st = recvAll(fd, deadline, payload->data + have, step, &got, cause);
      have += got;
   }
   if (st == WIRE_EOF)
      st = WIRE_CUT;
   payload->len = st == WIRE_OK ? n : 0;
   return st;
}
