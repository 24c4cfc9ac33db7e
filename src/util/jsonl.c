/* Exact numbers, cut lines and their repair, for the JSON-lines files. */
#include "config.h"

#include "util/jsonl.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/xalloc.h"

static locale_t cLocale;

static void makeCLocale(void) {
   cLocale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
   if (!cLocale)
      fatal("cannot make the C locale for numbers");
}

void JsonLines_number(double v, char *buf, size_t size) {
   if (!isfinite(v)) {
      snprintf(buf, size, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
      return;
   }
   static pthread_once_t once = PTHREAD_ONCE_INIT;
   pthread_once(&once, makeCLocale);
   locale_t old = uselocale(cLocale);
   for (int precision = 15; precision <= 17; precision++) {
      snprintf(buf, size, "%.*g", precision, v);
      if (strtod(buf, NULL) == v)
         break;
   }
   uselocale(old);
}

cJSON *JsonLines_numberItem(double v) {
   char text[JSONL_NUMBER_SIZE];
   cJSON *item;
   if (isfinite(v)) {
      JsonLines_number(v, text, sizeof text);
      item = cJSON_CreateRaw(text);
   } else {
      item = cJSON_CreateNull();
   }
   if (!item)
      fatal("out of memory building a JSON line");
   return item;
}

bool JsonLines_unfinished(const char *s) {
   int depth = 0;
   bool inString = false, escaped = false;
   for (; *s; s++) {
      if (inString) {
         if (escaped)
            escaped = false;
         else if (*s == '\\')
            escaped = true;
         else if (*s == '"')
            inString = false;
      } else if (*s == '"') {
         inString = true;
      } else if (*s == '{' || *s == '[') {
         depth++;
      } else if ((*s == '}' || *s == ']') && --depth < 0) {
         return false;
      }
   }
   return inString || depth > 0;
}

long JsonLines_tooDeep(const char *s, size_t len) {
   int depth = 0;
   bool inString = false, escaped = false;
   for (size_t i = 0; i < len; i++) {
      if (inString) {
         if (escaped)
            escaped = false;
         else if (s[i] == '\\')
            escaped = true;
         else if (s[i] == '"')
            inString = false;
      } else if (s[i] == '"') {
         inString = true;
      } else if ((s[i] == '{' || s[i] == '[') && ++depth > JSONL_MAX_DEPTH) {
         return (long)i;
      } else if (s[i] == '}' || s[i] == ']') {
         depth--;
      }
   }
   return -1;
}

cJSON *JsonLines_parse(const char *line, size_t len, char **cause) {
   const char *nul = memchr(line, '\0', len);
   if (nul) {
      setCause(cause, "not valid JSON: a NUL byte at byte %zu", (size_t)(nul - line) + 1);
      return NULL;
   }
   long deep = JsonLines_tooDeep(line, len);
   if (deep >= 0) {
      setCause(cause, "nesting deeper than %d at byte %ld", JSONL_MAX_DEPTH, deep + 1);
      return NULL;
   }
   /* cJSON_ParseWithOpts says where parsing stopped without cJSON's global error
    * pointer, so reading is safe from several threads */
   const char *end = NULL;
   cJSON *root = cJSON_ParseWithOpts(line, &end, 1);
   if (root)
      return root;
   if (JsonLines_unfinished(line)) {
      setCause(cause,
               "the line is cut short (%zu bytes, the JSON object is not closed), as "
               "when a run is killed while writing; delete the line",
               len);
      return NULL;
   }
   /* cJSON stops at or just past the fault: show the text on both sides */
   size_t at = end ? (size_t)(end - line) : 0;
   if (at >= len && len > 0)
      at = len - 1;
   size_t from = at > 10 ? at - 10 : 0;
   setCause(cause, "not valid JSON near byte %zu ('%.*s')", at + 1, (int)(at + 11 - from), line + from);
   return NULL;
}

static bool blank(const char *s, size_t len) {
   for (size_t i = 0; i < len; i++)
      if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
         return false;
   return true;
}

/* getline that stops after max bytes: the line's length with its newline, -1 at the
 * end of the file, or max + 1 when the line is longer (its rest is left unread). */
static ssize_t boundedLine(FILE *f, char **buf, size_t *cap, size_t max) {
   size_t n = 0;
   int c;
   while ((c = getc_unlocked(f)) != EOF) {
      if (n + 2 > *cap)
         *buf = xRealloc(*buf, *cap = *cap ? *cap * 2 : 4096);
      (*buf)[n++] = (char)c;
      if (c == '\n' || n > max)
         break;
   }
   if (n == 0)
      return -1;
   (*buf)[n] = '\0';
   return (ssize_t)n;
}

int JsonLines_read(const char *path, bool comments, JsonLinesTake take, void *ctx, char **notice,
                   char **cause) {
   if (notice)
      *notice = NULL;
   FILE *f = fopen(path, "re");
   if (!f)
      return setCause(cause, "%s: %s", path, strerror(errno));
   char *line = NULL;
   size_t cap = 0;
   ssize_t n;
   int lineno = 0, rc = 0;
   while ((n = boundedLine(f, &line, &cap, JSONL_MAX_LINE + 1)) >= 0) {
      lineno++;
      /* a line comes without its newline only at the end of the file */
      bool last = line[n - 1] != '\n';
      if (!last)
         line[--n] = '\0';
      if (n > JSONL_MAX_LINE) {
         rc = setCause(cause, "%s:%d: longer than %d bytes, the most a line may have", path, lineno,
                       JSONL_MAX_LINE);
         break;
      }
      if (blank(line, (size_t)n) || (comments && line[0] == '#'))
         continue;
      long deep = JsonLines_tooDeep(line, (size_t)n);
      if (deep >= 0) {
         rc = setCause(cause, "%s:%d:%ld: nesting deeper than %d", path, lineno, deep + 1, JSONL_MAX_DEPTH);
         break;
      }
      char *why = NULL;
      cJSON *root = JsonLines_parse(line, (size_t)n, &why);
      if (root) {
         int taken = take(ctx, root, lineno, &why);
         cJSON_Delete(root);
         if (taken == 0)
            continue;
         rc = setCause(cause, "%s:%d: %s", path, lineno, why);
      } else if (last) {
         if (notice)
            *notice = xAsprintf(
               "%s:%d: the last line is cut short (%zd bytes without a newline); it was skipped",
               path, lineno, n);
      } else {
         rc = setCause(cause, "%s:%d: %s", path, lineno, why);
      }
      free(why);
      break;
   }
   if (rc == 0 && ferror(f))
      rc = setCause(cause, "%s: %s", path, strerror(errno));
   free(line);
   fclose(f);
   return rc;
}

int JsonLines_writeAll(int fd, const char *buf, size_t len, size_t *done) {
   *done = 0;
   while (*done < len) {
      ssize_t k = write(fd, buf + *done, len - *done);
      if (k < 0 && errno == EINTR)
         continue;
      if (k <= 0) {
         if (k == 0)
            errno = EIO;
         return -1;
      }
      *done += (size_t)k;
   }
   return 0;
}

int JsonLines_endCutLine(int fd, bool (*complete)(const char *line)) {
   struct stat st;
   if (fstat(fd, &st) != 0)
      return -1;
   size_t done;
   if (!S_ISREG(st.st_mode))
      return JsonLines_writeAll(fd, "\n", 1, &done);
   off_t start = st.st_size;
   char chunk[4096];
   bool found = false;
   while (start > 0 && !found) {
      off_t from = start > (off_t)sizeof chunk ? start - (off_t)sizeof chunk : 0;
      ssize_t got = pread(fd, chunk, (size_t)(start - from), from);
      if (got != start - from)
         return -1;
      for (ssize_t i = got; i > 0 && !found; i--)
         if (chunk[i - 1] == '\n') {
            start = from + i;
            found = true;
         }
      if (!found)
         start = from;
   }
   size_t len = (size_t)(st.st_size - start);
   char *tail = xMalloc(len + 1);
   if (pread(fd, tail, len, start) != (ssize_t)len) {
      free(tail);
      return -1;
   }
   tail[len] = '\0';
   bool whole = memchr(tail, '\0', len) == NULL && complete(tail);
   free(tail);
   return whole ? JsonLines_writeAll(fd, "\n", 1, &done) : ftruncate(fd, start);
}
