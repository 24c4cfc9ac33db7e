/* The workbench's screen layout as a pure function of the terminal size and of what
 * the table holds: where the header, the task-scheduler table, the tuning curves, the
 * draft-vs-verify panel, the log and the console go. No curses here, so that every
 * size can be tested.
 *
 * Header: rows 0-1, full width. Console: the last row, full width. The middle is the
 * h = rows - 3 rows between them. The table gets the height first: its title, its
 * heads and a row per task (content.tasks), within what the other panels' minimums
 * leave; the log takes every row the table does not need, so no band stays blank.
 * Side by side (cols >= 120): the left column is the table's natural width
 *   (Layout_tableWidth, every column shown, the description its content's width) but
 *   leaves at least 44 columns on the right; in it the table, clamp(tasks + 2, 3,
 *   h - 3) rows, and the log below it. The right column has the curves on top,
 *   h*3/5 rows, and the drafts below.
 * Stacked (cols < 120): the table on top, clamp(tasks + 2, 3, h - 12) rows, full
 *   width; below it the curves on the left and the drafts on the right, the drafts
 *   max(28, cols*3/8) columns wide, max(9, rest*3/5) rows (rest: the rows under the
 *   table) but leaving the log 3; the log, full width, under them.
 * The rectangles tile the screen exactly. From 80x24 on, these keep every minimum:
 * curves and drafts >= 7 rows, curves >= 40 and drafts >= 28 columns (stacked, the
 * curves keep cols*5/8 >= 50; side by side, the right column is >= 44 wide and the
 * middle >= 21 rows, so the drafts get ceil(21*2/5) = 9), log >= 3 rows. */
#ifndef HEADER_layout
#define HEADER_layout

#include <stdbool.h>

/* h == 0 or w == 0: not shown */
typedef struct Rect_ {
   int y, x, h, w;
} Rect;

typedef struct Layout_ {
   Rect header;    /* 2 rows at the top, full width */
   Rect table;     /* the task-scheduler table (its first row is a title bar, the second the column heads) */
   Rect curves;    /* tuning curves */
   Rect drafts;    /* the draft-vs-verify panel */
   Rect log;       /* the engine's messages */
   Rect console;   /* 1 row at the bottom, full width: key hints or the readline prompt */
   bool wide;      /* the side-by-side arrangement */
} Layout;

#define LAYOUT_MIN_ROWS 24
#define LAYOUT_MIN_COLS 80
#define LAYOUT_WIDE_COLS 120
#define LAYOUT_RIGHT_MIN 44     /* side by side, the curves' and drafts' column */

/* What the layout is fitted to. */
typedef struct LayoutContent_ {
   int tasks;                   /* the rows the table lists */
   int nameWidth;               /* the longest task description, in columns */
   unsigned hidden;             /* the columns not shown: a bit per Column */
} LayoutContent;

/* 0, or -1 when the terminal is smaller than 80x24 (out zeroed). */
int Layout_compute(int rows, int cols, const LayoutContent *content, Layout *out);

/* The task table's columns, left to right. */
typedef enum {
   COLUMN_ID,
   COLUMN_TASK,                 /* the description: the width the others leave */
   COLUMN_WEIGHT,
   COLUMN_LATENCY,
   COLUMN_SHARE,                /* weight x latency over the estimated total (extra) */
   COLUMN_GFLOPS,
   COLUMN_TRIALS,
   COLUMN_ROOF,
   COLUMN_IDLE,                 /* the task's rounds since its best improved (extra) */
   COLUMN_PRIO,
   COLUMN_STATE,
   COLUMN_COUNT
} Column;

typedef struct ColumnSpec_ {
   const char *name;            /* its header */
   int width;                   /* what its values need */
   bool left;                   /* aligned left; else right */
   bool sortable;               /* its header may carry the sort's mark */
   bool extra;                  /* shown only when the description keeps its content's width */
} ColumnSpec;

extern const ColumnSpec Layout_columns[COLUMN_COUNT];

/* Whether the user may hide column c: all but ID and the description. */
bool Layout_hideable(Column c);

/* The description's width for its content: nameWidth within [8, 48]. */
int Layout_nameWidth(int nameWidth);

/* The table's natural width: every column not hidden (a bit per Column), each its
 * values' width (a sortable one's at least its header and the sort's mark, markWidth
 * columns), the description Layout_nameWidth(nameWidth), a space between columns and
 * one at the right end. */
int Layout_tableWidth(int markWidth, int nameWidth, unsigned hidden);

/* The columns' widths in a table `width` columns wide, 0 for a column not shown:
 * each its values' width as in Layout_tableWidth; none of the hidden ones (ID and
 * the description are always shown); the extra columns only when the description
 * still gets Layout_nameWidth(nameWidth); the description what is left of the width
 * after a space between shown columns and one at the right end, but at least 8. */
void Layout_tableColumns(int width, int markWidth, int nameWidth, unsigned hidden, int out[COLUMN_COUNT]);

/* The column at x (0 the table's left edge) of a row laid out in those widths, a
 * space before each shown column but the first; COLUMN_COUNT on a space or past the
 * end. */
Column Layout_columnAt(const int width[COLUMN_COUNT], int x);

#endif
