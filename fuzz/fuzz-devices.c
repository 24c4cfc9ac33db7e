/* devices.yaml (device/device.c): any bytes either load or say why; every field of a
 * loaded device formats, and every device is found by its name. */
#include "config.h"

#include "fuzz.h"

#include <stdlib.h>

#include "device/device.h"
#include "util/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
   DeviceSet set;
   DeviceSet_init(&set);
   char *cause = NULL;
   if (DeviceSet_loadString(&set, "devices.yaml", (const char *)data, size, &cause) < 0) {
      if (!cause || !*cause)
         fatal("a devices file was refused without a reason");
      free(cause);
      DeviceSet_done(&set);
      return 0;
   }
   for (int i = 0; i < set.count; i++) {
      const Device *d = &set.devices[i];
      if (DeviceSet_find(&set, d->name) == NULL)
         fatal("device '%s' loaded but is not found by its name", d->name);
      char buf[128];
      for (int f = 0; f < DEV_FIELD_COUNT; f++)
         Device_format(d, (DeviceField)f, buf, sizeof buf);
      Device_arch(d, buf, sizeof buf);
      DeviceSet_matchProduct(&set, d->product);
   }
   DeviceSet_done(&set);
   return 0;
}
