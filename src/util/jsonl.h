/* What the JSON-lines files (measurement records, session logs) share: numbers written
 * so that they read back to the same double, telling a line cut short by a killed
 * writer from other broken JSON, and repairing a file that ends in such a line. */
#ifndef HEADER_jsonl
#define HEADER_jsonl

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* What a reader takes before it refuses a line. */
#define JSONL_MAX_LINE (1 << 20) /* bytes in one line, its newline left out */
#define JSONL_MAX_DEPTH 64       /* arrays and objects inside each other */

/* Enough for any number JsonLines_number writes. */
#define JSONL_NUMBER_SIZE 32

/* The shortest of %.15g, %.16g and %.17g that reads back to v, with '.' as the
 * decimal point whatever the locale; "inf", "-inf" and "nan" for the rest. */
void JsonLines_number(double v, char *buf, size_t size);
/* v as a cJSON item printed by JsonLines_number (cJSON's own printing keeps only 15
 * digits where they come close enough); null for NaN and infinities, which JSON has
 * not. Aborts when out of memory. */
cJSON *JsonLines_numberItem(double v);
/* Whether the text stops inside a string, object or array: what a line cut short by a
 * killed writer looks like, as opposed to other broken JSON. */
bool JsonLines_unfinished(const char *s);
/* The byte offset in s of the first bracket nested deeper than JSONL_MAX_DEPTH, or -1. */
long JsonLines_tooDeep(const char *s, size_t len);
/* Parses one line of len bytes. NULL with *cause (the reason alone, no file or line)
 * when it is not JSON: a NUL byte, nesting deeper than JSONL_MAX_DEPTH, a line cut
 * short as a killed writer leaves it, or other broken text, shown around where parsing
 * stopped. Safe from several threads. */
cJSON *JsonLines_parse(const char *line, size_t len, char **cause);

/* Takes one parsed line, numbered from 1: 0, or -1 with *why (the reason alone). */
typedef int (*JsonLinesTake)(void *ctx, const cJSON *root, int line, char **why);

/* Reads a JSON-lines file whole, handing each line's tree to take. Blank lines are
 * skipped, and lines starting with '#' too when comments is set. A line longer than
 * JSONL_MAX_LINE gives "FILE:LINE: longer than N bytes" without being read whole, one
 * nested too deep "FILE:LINE:COL: nesting deeper than 64". A last line without
 * its newline that is not JSON (a killed writer's) ends the reading with *notice
 * "FILE:LINE: the last line is cut short (N bytes without a newline); it was skipped"
 * (notice may be NULL); any other bad line, or one take refuses, gives -1 with *cause
 * "FILE:LINE: REASON"; a file that cannot be read "FILE: strerror". */
int JsonLines_read(const char *path, bool comments, JsonLinesTake take, void *ctx, char **notice,
                   char **cause);

/* Writes all of buf, or fails with errno set; *done says how much went out. */
int JsonLines_writeAll(int fd, const char *buf, size_t len, size_t *done);
/* The file of fd ends in a line without its newline. When `complete` says that line
 * is whole, it gets its newline; otherwise it is cut off the file, since no reader
 * could use it and the next line must not be glued to it. -1 with errno on failure. */
int JsonLines_endCutLine(int fd, bool (*complete)(const char *line));

#endif
