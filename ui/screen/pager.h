/* The workbench's pager (the help, a task's details, a long answer, the log) with
 * less's keys: the movement keys, and / and ? to search forward and back for a
 * regular expression, n and N for the next and the previous match, every match on
 * the screen highlighted. Its state changes without a terminal, so that a test can
 * press its keys; Pager_draw and Pager_drawStatus draw it into curses windows. */
#ifndef HEADER_pager
#define HEADER_pager

#include <regex.h>
#include <stdbool.h>

#include <curses.h>

/* the longest pattern, with its '\0' */
#define PAGER_PATTERN_MAX 128

typedef struct Pager_ {
   bool open;
   char *title;
   char *source;                /* the text as given, wrapped again on a resize */
   char *text;                  /* the text wrapped to the width */
   int *start;                  /* where each wrapped line starts in text */
   int nlines;
   int width, rows;             /* the text's width and the rows that show it */
   int top;                     /* the first line shown */
   /* the search */
   regex_t re;
   bool compiled;
   bool backward;               /* the last search went back (?) */
   int match;                   /* the line of the last match found, or -1 */
   int prompt;                  /* '/' or '?' while a pattern is typed, else 0 */
   char typed[PAGER_PATTERN_MAX];
   char message[160];           /* "Pattern not found", ... until the next key */
} Pager;

/* Opens text (the pager takes it) under title, wrapped to `width` columns, `rows`
 * rows of it shown, from its first line. */
void Pager_open(Pager *p, const char *title, char *text, int width, int rows);
void Pager_close(Pager *p);
/* The text wrapped again for a new size. */
void Pager_resize(Pager *p, int width, int rows);
/* New text for the open pager (it takes it), the position kept; a pager showing the
 * last line goes on showing the last line, as less +F does. */
void Pager_update(Pager *p, char *text);

/* Does what key does: false when the key closes the pager (q, Q, Esc, F10, Enter),
 * which the caller then closes. While a pattern is typed every key goes to it. */
bool Pager_key(Pager *p, int key);
/* Searches for the extended regular expression pattern (as / or ? and Enter do), from
 * the first line shown (forward) or the line before it (back), or from the last
 * match when it shows; the match's line becomes the first shown. Returns the line, or
 * -1 with the reason in p->message ("Pattern not found", a bad pattern). */
int Pager_search(Pager *p, const char *pattern, bool backward);
/* The last search again, the same way (n) or the other (N); -1 as Pager_search. */
int Pager_next(Pager *p, bool reverse);
/* Scrolls by delta lines, clamped to the text. */
void Pager_scroll(Pager *p, int delta);

/* Line i of the wrapped text (no '\n') and its length in bytes. */
const char *Pager_line(const Pager *p, int i, int *len);

/* The title bar and the lines shown, each match of the last search in reverse video,
 * into w (its first row the title, then p->rows rows). */
void Pager_draw(WINDOW *w, const Pager *p);
/* The pattern being typed or the last message into w's first row; false, drawing
 * nothing, when there is neither. */
bool Pager_drawStatus(WINDOW *w, const Pager *p);

#endif
