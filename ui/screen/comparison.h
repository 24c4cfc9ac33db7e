/* The screen of `pruner-tui --compare` on a terminal: the sessions' tuning curves
 * overlaid (a colour and a letter each, with a legend), against trials or time (from
 * 160 columns against both, side by side), and
 * the per-task best latencies side by side with the ratios to the first session's,
 * a scrolling table. The numbers are the CompareSet's, as the text prints them. */
#ifndef HEADER_comparison
#define HEADER_comparison

#include <curses.h>
#include <stdbool.h>

#include "tune/compare.h"

typedef enum { COMPARISON_BY_ID, COMPARISON_BY_RATIO } ComparisonSort;

typedef struct Comparison_ {
   const CompareSet *set;
   bool color;                  /* colour pairs (a terminal with colours, no NO_COLOR) */
   bool unicode;                /* braille dots; else ASCII with each session's letter */
   bool byTime;                 /* the one curve against time, else against trials */
   bool logScale;               /* the latency axis on a log scale */
   bool help;                   /* the keys shown instead */
   ComparisonSort sort;
   int *order;                  /* the tasks in the sort's order */
   int top;                     /* the first row of the table shown */
   int tableRows;               /* task rows the last draw showed */
} Comparison;

/* For set (finished). Comparison_draw's colours need Comparison_initColors after
 * the screen is up when color is set. */
void Comparison_init(Comparison *c, const CompareSet *set, bool color, bool unicode);
void Comparison_done(Comparison *c);
void Comparison_initColors(void);
/* The whole screen into w: the title bar, the legend (CompareSet_sideLine's lines),
 * the curve, the table (CompareSet_tableHead's, a CompareSet_taskRow per task from
 * c->top in the sort's order, the total row) and the keys; or the help. */
void Comparison_draw(WINDOW *w, Comparison *c);
/* One key: q or F10 quit (false); t trials or time, L log scale, s the sort (the
 * table back to its top), arrows j k PgUp PgDn Home End g G scroll, F1 ? the help
 * (any key closes it). */
bool Comparison_key(Comparison *c, int ch);
/* The screen over set until q or F10 (0), or SIGINT, SIGTERM or SIGHUP; the terminal
 * given back on every way out, a crash included (terminal.h). 1 when the terminal
 * cannot be used, after saying why on standard error. */
int Comparison_run(const CompareSet *set);

#endif
