/* The harnesses' shared helpers: the input as a memfd file, as a string, and the
 * source tree. */
#include "config.h"

#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/xalloc.h"

const char *Fuzz_file(const uint8_t *data, size_t size) {
   static int fd = -1;
   static char path[64];
   if (fd < 0) {
      fd = memfd_create("fuzz-input", 0);
      if (fd < 0)
         fatal("memfd_create failed");
      snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
   }
   if (ftruncate(fd, 0) < 0)
      fatal("ftruncate of the input file failed");
   size_t done = 0;
   while (done < size) {
      ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);
      if (n <= 0)
         fatal("writing the input file failed");
      done += (size_t)n;
   }
   return path;
}

char *Fuzz_string(const uint8_t *data, size_t size) {
   char *s = xMalloc(size + 1);
   memcpy(s, data, size);
   s[size] = '\0';
   return s;
}

const char *Fuzz_srcdir(void) {
   const char *dir = getenv("PTUI_SRCDIR");
   return dir && *dir ? dir : TOP_SRCDIR;
}
