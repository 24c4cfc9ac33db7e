/* The runner's wire format (measure/wire.c's framing, measure/protocol.c's messages):
 * the input is what the other end of the socket sent. Every message is received, cut
 * short or refused with a reason, and every payload is read as each message kind, either whole
 * or marked bad. */
#include "config.h"

#include "fuzz.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "measure/protocol.h"
#include "measure/wire.h"
#include "util/xalloc.h"

/* The socket's buffer holds the whole input: the harness writes before it reads. */
#define MAX_INPUT 65536

/* Reads the payload as each kind of message in turn; a kind it is not is marked bad. */
static void readAll(WireBuf *p) {
   ProtoDevice dev;
   ProtoProgram prog;
   ProtoTask task;
   ProtoTiming timing;
   ProtoResult result;
   uint64_t id;
   p->pos = 0, p->bad = false;
   Proto_getDevice(p, &dev);
   p->pos = 0, p->bad = false;
   Proto_getProgram(p, &prog);
   p->pos = 0, p->bad = false;
   Proto_getTask(p, &task);
   p->pos = 0, p->bad = false;
   Proto_getRun(p, &id, &prog, &timing);
   p->pos = 0, p->bad = false;
   if (Proto_getResult(p, &result) == 0) {
      ProtoResult_median(&result);
      ProtoResult_spread(&result);
   }
   p->pos = 0, p->bad = false;
   free(Wire_getStr(p));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
   if (size > MAX_INPUT)
      return 0;
   int sv[2];
   if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
      fatal("socketpair failed");
   int buf = 2 * MAX_INPUT;
   setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
   setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
   size_t done = 0;
   while (done < size) {
      ssize_t n = write(sv[0], data + done, size - done);
      if (n <= 0)
         fatal("writing the input to the socket failed");
      done += (size_t)n;
   }
   close(sv[0]);
   WireBuf p;
   WireBuf_init(&p);
   for (;;) {
      uint32_t type;
      char *cause = NULL;
      WireStatus st = Wire_recv(sv[1], -1.0, &type, &p, &cause);
      if (st != WIRE_OK) {
         /* a length out of range says why; the end of the input (cut or not) is the
          * caller's to word */
         if (st == WIRE_MALFORMED && (!cause || !*cause))
            fatal("a malformed message was refused without a reason");
         if (st != WIRE_MALFORMED && st != WIRE_EOF && st != WIRE_CUT)
            fatal("reading from a closed socket ended with status %d", (int)st);
         free(cause);
         break;
      }
      readAll(&p);
   }
   WireBuf_done(&p);
   close(sv[1]);
   return 0;
}
