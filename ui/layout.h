/* The workbench's screen layout as a pure function of the terminal size: where the
 * header, the task-scheduler table, the tuning curves, the draft-vs-verify panel, the
 * log and the console go. No curses here, so that every size can be tested.
 *
 * Header: rows 0-1, full width. Console: the last row, full width.
 * Narrow (cols < 160): the log sits above the console, max(3, rows/8) rows high. The
 *   middle (between header and log) has the table on top, ceil(middle/2) rows but at
 *   least 8, and below it the curves on the left and the drafts on the right, the
 *   drafts max(28, cols*3/8) columns wide.
 * Wide (cols >= 160): the log is max(4, rows/6) rows high. The table takes the left
 *   cols*11/20 columns of the whole middle; the right column has the curves on top,
 *   floor(middle*3/5) rows, and the drafts below.
 * The rectangles tile the screen exactly. From 80x24 on, these formulas keep every
 * minimum (table >= 8 rows; curves >= 7 rows, >= 40 cols; drafts >= 7 rows, >= 28
 * cols; log >= 3 rows) without adjustment: narrow, the middle is at least 18 rows (so
 * the lower half is at least 9) and the curves keep at least cols*5/8 >= 50 columns;
 * wide, the middle is at least 17 rows (so the drafts get ceil(17*2/5) = 7) and the
 * right column is at least 160 - 88 = 72 columns wide. */
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
#define LAYOUT_WIDE_COLS 160

/* 0, or -1 when the terminal is smaller than 80x24 (out zeroed). */
int Layout_compute(int rows, int cols, Layout *out);

/* The task table's columns, left to right. */
typedef enum {
   COLUMN_ID,
   COLUMN_TASK,                 /* the description: the width the others leave */
   COLUMN_WEIGHT,
   COLUMN_LATENCY,
   COLUMN_GFLOPS,
   COLUMN_TRIALS,
   COLUMN_ROOF,
   COLUMN_PRIO,
   COLUMN_STATE,
   COLUMN_COUNT
} Column;

typedef struct ColumnSpec_ {
   const char *name;            /* its header */
   int width;                   /* what its values need */
   bool left;                   /* aligned left; else right */
   bool sortable;               /* its header may carry the sort's mark */
} ColumnSpec;

extern const ColumnSpec Layout_columns[COLUMN_COUNT];

/* The columns' widths in a table `width` columns wide: each its values' width, a
 * sortable one's at least its header and the sort's mark (markWidth columns), the
 * description what is left of the width after a space between columns and one at
 * the right end, but at least 8. */
void Layout_tableColumns(int width, int markWidth, int out[COLUMN_COUNT]);

/* The column at x (0 the table's left edge) of a row laid out in those widths, a
 * space before each column but the first; COLUMN_COUNT on a space or past the end. */
Column Layout_columnAt(const int width[COLUMN_COUNT], int x);

#endif
