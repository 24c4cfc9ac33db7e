/* Length-prefixed messages between the tuner and its runner process over a stream
 * socket. A message is a 32-bit length (of what follows), a 32-bit type and the
 * payload; numbers are in host byte order, since both ends run on one machine. A
 * payload is built and read with the Wire_put and Wire_get functions; a read past the
 * end or a length out of range marks the message malformed instead of reading
 * garbage. */
#ifndef HEADER_wire
#define HEADER_wire

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest message either side accepts: a task's inputs and reference output. */
#define WIRE_MAX_MESSAGE (1u << 30)

typedef struct WireBuf_ {
   uint8_t *data;
   size_t len, cap;
   size_t pos;                  /* read position */
   bool bad;                    /* a Wire_get ran past the end or met a bad length */
} WireBuf;

void WireBuf_init(WireBuf *b);
void WireBuf_done(WireBuf *b);
void WireBuf_clear(WireBuf *b);

void Wire_putU32(WireBuf *b, uint32_t v);
void Wire_putI64(WireBuf *b, int64_t v);
void Wire_putF64(WireBuf *b, double v);
/* A 32-bit length, then the bytes. */
void Wire_putBytes(WireBuf *b, const void *p, size_t n);
void Wire_putStr(WireBuf *b, const char *s);

/* Each returns 0 (and sets b->bad) when the payload is too short. */
uint32_t Wire_getU32(WireBuf *b);
int64_t Wire_getI64(WireBuf *b);
double Wire_getF64(WireBuf *b);
/* Points into the buffer (valid until it changes); *n is the length. NULL when bad. */
const void *Wire_getBytes(WireBuf *b, size_t *n);
/* A newly allocated copy with a terminating NUL; NULL when bad or when it holds a NUL. */
char *Wire_getStr(WireBuf *b);

typedef enum {
   WIRE_OK,
   WIRE_EOF,                    /* the peer closed before sending any byte of a message */
   WIRE_CUT,                    /* the peer closed in the middle of a message */
   WIRE_TIMEOUT,                /* the deadline passed */
   WIRE_MALFORMED,              /* a length out of range */
   WIRE_IO,                     /* a read or write failed (errno in the cause) */
} WireStatus;

/* Sends one message; never raises SIGPIPE. */
WireStatus Wire_send(int fd, uint32_t type, const WireBuf *payload, char **cause);
/* Receives one message into payload (read position 0). deadline is a Clock_now() time,
 * or a negative number for none. */
WireStatus Wire_recv(int fd, double deadline, uint32_t *type, WireBuf *payload, char **cause);

#endif
