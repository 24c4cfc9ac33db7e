/* Bounded text building. */
#include "config.h"

#include "util/textbuf.h"

#include <stdarg.h>
#include <stdio.h>

TextBuf TextBuf_over(char *buf, size_t size) {
   if (size)
      buf[0] = '\0';
   return (TextBuf){ buf, size, 0 };
}

void TextBuf_add(TextBuf *t, const char *fmt, ...) {
   va_list ap;
   va_start(ap, fmt);
   size_t room = t->len < t->size ? t->size - t->len : 0;
   int n = vsnprintf(room ? t->buf + t->len : NULL, room, fmt, ap);
   va_end(ap);
   if (n > 0)
      t->len += (size_t)n;
}

void TextGrow_add(TextGrow *t, const char *fmt, ...) {
   for (;;) {
      va_list ap;
      va_start(ap, fmt);
      int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
      va_end(ap);
      if (n < 0)
         fatal("formatting text failed");
      if (t->s && t->len + (size_t)n < t->cap) {
         t->len += (size_t)n;
         return;
      }
      t->cap = (t->cap + (size_t)n + 1) * 2;
      t->s = xRealloc(t->s, t->cap);
   }
}
