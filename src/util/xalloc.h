/* Allocation wrappers that never return NULL: running out of memory is fatal, so
 * callers never check. Also the few string helpers every module needs. */
#ifndef HEADER_xalloc
#define HEADER_xalloc

#include <stdarg.h>
#include <stddef.h>

#if defined(__GNUC__)
#define ATTR_FORMAT(f, a) __attribute__((format(printf, f, a)))
#define ATTR_NORETURN __attribute__((noreturn))
#define ATTR_MALLOC __attribute__((malloc))
#else
#define ATTR_FORMAT(f, a)
#define ATTR_NORETURN
#define ATTR_MALLOC
#endif

void *xMalloc(size_t size) ATTR_MALLOC;
void *xCalloc(size_t nmemb, size_t size) ATTR_MALLOC;
void *xRealloc(void *ptr, size_t size);
void *xReallocArray(void *ptr, size_t nmemb, size_t size);
char *xStrdup(const char *s) ATTR_MALLOC;
char *xStrndup(const char *s, size_t n) ATTR_MALLOC;
char *xAsprintf(const char *fmt, ...) ATTR_FORMAT(1, 2) ATTR_MALLOC;
char *xVasprintf(const char *fmt, va_list ap) ATTR_FORMAT(1, 0) ATTR_MALLOC;

/* Prints "pruner-tui: fatal: ..." and aborts; for states that cannot happen. */
void fatal(const char *fmt, ...) ATTR_FORMAT(1, 2) ATTR_NORETURN;

/* Sets *cause (when cause is not NULL) to a newly allocated message; returns -1 so
 * that failing functions can end with `return setCause(cause, ...)`. */
int setCause(char **cause, const char *fmt, ...) ATTR_FORMAT(2, 3);

#endif
