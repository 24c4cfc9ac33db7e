/* Measurement records (measure/record.c): any bytes either read or say why; every
 * record read is valid and writes back to a line that reads again. */
#include "config.h"

#include "fuzz.h"

#include <stdlib.h>

#include "measure/record.h"
#include "util/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
   RecordSet set;
   RecordSet_init(&set);
   char *notice = NULL, *cause = NULL;
   int rc = Records_read(Fuzz_file(data, size), &set, &notice, &cause);
   if (rc < 0 && (!cause || !*cause))
      fatal("a records file was refused without a reason");
   for (int i = 0; i < set.count; i++) {
      const Record *r = &set.records[i];
      char *why = NULL;
      if (Record_validate(r, &why) < 0)
         fatal("record %d (line %d) was read but is not valid: %s", i, r->line, why);
      char *line = Record_toJson(r);
      Record back;
      if (Record_fromJson(line, &back, &why) < 0)
         fatal("record %d (line %d) does not read back from its own line: %s\n%s", i, r->line, why,
                   line);
      Record_done(&back);
      free(line);
   }
   free(notice);
   free(cause);
   RecordSet_done(&set);
   return 0;
}
