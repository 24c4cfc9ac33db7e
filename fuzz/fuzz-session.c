/* Session files (tune/session.c's reader): any bytes either read or say why; every
 * event read writes back to a line that reads as the same event. */
#include "config.h"

#include "fuzz.h"

#include <stdlib.h>

#include "tune/session.h"
#include "util/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
   SessionLog log;
   SessionLog_init(&log);
   char *notice = NULL, *cause = NULL;
   if (Session_read(Fuzz_file(data, size), &log, &notice, &cause) < 0) {
      if (!cause || !*cause)
         fatal("a session file was refused without a reason");
      if (log.count != 0)
         fatal("a refused session file left %d events", log.count);
      free(cause);
      free(notice);
      SessionLog_done(&log);
      return 0;
   }
   free(notice);
   for (int i = 0; i < log.count; i++) {
      char *line = SessionEvent_toJson(&log.events[i], true);
      SessionEvent e;
      char *why = NULL;
      if (SessionEvent_fromJson(line, &e, &why) < 0)
         fatal("event %d (line %d) was read but its own line does not read back: %s\n%s", i,
                   log.events[i].line, why, line);
      SessionEvent_done(&e);
      free(line);
   }
   SessionLog_done(&log);
   return 0;
}
