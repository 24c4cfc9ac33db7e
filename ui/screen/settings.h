/* The workbench's settings: the table's hidden columns, the sort and its direction,
 * the first curve, the curves' scale and following the round's task, read from and saved to
 * $XDG_CONFIG_HOME/pruner-tui/workbench.conf. The file is lines of `key = value`;
 * '#' starts a comment:
 *   columns = Wt Lat(ms) Share GFLOPS Trials Roof Idle Prio State   (those shown)
 *   sort = id | share | latency | trials | roofline
 *   order = ascending | descending
 *   curve = trials | time | task
 *   scale = linear | log   (the curves' y axes)
 *   follow = yes | no */
#ifndef HEADER_settings
#define HEADER_settings

#include <stdbool.h>

#include "board.h"

typedef struct Settings_ {
   unsigned hidden;             /* a bit per Column: hidden; ID and Task never */
   SortKey sort;
   bool descending;
   CurveKind curve;
   bool logScale;
   bool follow;
} Settings;

/* Every column shown, sorted by ID ascending, the first curve on a linear scale, not
 * following. */
void Settings_default(Settings *s);
/* The board's. */
void Settings_fromBoard(Settings *s, const Board *b);
/* Onto the board: the columns, the sort (Board_sort, then the direction), the curve,
 * its scale and following. */
void Settings_toBoard(const Settings *s, Board *b);

/* Parses text, the contents of file, over s: each key it names replaces s's. -1 with
 * *cause "FILE:LINE: WHAT" at the first line that is not one of the keys with one of
 * its values; s then holds the lines before it. */
int Settings_parse(const char *text, const char *file, Settings *s, char **cause);
/* The file's text for s: every key (caller frees). */
char *Settings_format(const Settings *s);

/* Settings_parse of the file at path over s; a missing file is no error (s stays).
 * -1 with *cause when it cannot be read or does not parse. */
int Settings_load(const char *path, Settings *s, char **cause);
/* Writes s to path (its directory made), through a temporary file renamed over it so
 * that a crash leaves the old file or the new. -1 with *cause "PATH: strerror". */
int Settings_save(const char *path, const Settings *s, char **cause);

#endif
