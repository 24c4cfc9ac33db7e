/* Formatting into a caller's fixed buffer, snprintf style: text that does not fit is
 * cut, and `len` counts what the whole text needs, so callers can size a second try. */
#ifndef HEADER_textbuf
#define HEADER_textbuf

#include <stddef.h>

#include "util/xalloc.h"

typedef struct TextBuf_ {
   char *buf;
   size_t size;
   size_t len;
} TextBuf;

/* A builder over buf (which may be NULL when size is 0), starting empty. */
TextBuf TextBuf_over(char *buf, size_t size);
void TextBuf_add(TextBuf *t, const char *fmt, ...) ATTR_FORMAT(2, 3);

/* A text that grows as it is added to (s is NULL until the first add; the owner frees
 * it). */
typedef struct TextGrow_ {
   char *s;
   size_t len, cap;
} TextGrow;

void TextGrow_add(TextGrow *t, const char *fmt, ...) ATTR_FORMAT(2, 3);

#endif
