/* Allocation wrappers that abort on out-of-memory, and the error-message helper. */
#include "config.h"

#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fatal(const char *fmt, ...) {
   va_list ap;
   va_start(ap, fmt);
   fputs("pruner-tui: fatal: ", stderr);
   vfprintf(stderr, fmt, ap);
   fputc('\n', stderr);
   va_end(ap);
   abort();
}

static void *checked(void *p, size_t size) {
   if (!p && size)
      fatal("out of memory allocating %zu bytes", size);
   return p;
}

void *xMalloc(size_t size) {
   return checked(malloc(size ? size : 1), size ? size : 1);
}

void *xCalloc(size_t nmemb, size_t size) {
   if (!nmemb || !size)
      nmemb = size = 1;
   return checked(calloc(nmemb, size), nmemb * size);
}

void *xRealloc(void *ptr, size_t size) {
   return checked(realloc(ptr, size ? size : 1), size ? size : 1);
}

void *xReallocArray(void *ptr, size_t nmemb, size_t size) {
   if (size && nmemb > (size_t)-1 / size)
      fatal("array of %zu elements of %zu bytes overflows", nmemb, size);
   return xRealloc(ptr, nmemb * size);
}

char *xStrdup(const char *s) {
   return xStrndup(s, strlen(s));
}

char *xStrndup(const char *s, size_t n) {
   char *d = xMalloc(n + 1);
   memcpy(d, s, n);
   d[n] = '\0';
   return d;
}

char *xVasprintf(const char *fmt, va_list ap) {
   va_list copy;
   va_copy(copy, ap);
   int n = vsnprintf(NULL, 0, fmt, copy);
   va_end(copy);
   if (n < 0)
      fatal("bad format string \"%s\"", fmt);
   char *s = xMalloc((size_t)n + 1);
   vsnprintf(s, (size_t)n + 1, fmt, ap);
   return s;
}

char *xAsprintf(const char *fmt, ...) {
   va_list ap;
   va_start(ap, fmt);
   char *s = xVasprintf(fmt, ap);
   va_end(ap);
   return s;
}

int setCause(char **cause, const char *fmt, ...) {
   if (cause) {
      va_list ap;
      va_start(ap, fmt);
      *cause = xVasprintf(fmt, ap);
      va_end(ap);
   }
   return -1;
}
