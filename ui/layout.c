/* The screen layout for a terminal size, and the task table's columns for a width;
 * the arrangement is described in layout.h. */
#include "config.h"

#include "layout.h"

#include <string.h>

static int maxInt(int a, int b) {
   return a > b ? a : b;
}

static Rect rect(int y, int x, int h, int w) {
   return (Rect){ .y = y, .x = x, .h = h, .w = w };
}

/* The middle is rows [top, top + h): the table on top, curves and drafts below it. */
static void arrangeNarrow(Layout *l, int cols, int top, int h) {
   int tableH = maxInt(8, (h + 1) / 2);
   int draftsW = maxInt(28, cols * 3 / 8);
   int below = top + tableH;
   l->table = rect(top, 0, tableH, cols);
   l->curves = rect(below, 0, h - tableH, cols - draftsW);
   l->drafts = rect(below, cols - draftsW, h - tableH, draftsW);
}

/* The table on the left over the whole middle, curves over drafts on the right. */
static void arrangeWide(Layout *l, int cols, int top, int h) {
   int tableW = cols * 11 / 20;
   int curvesH = h * 3 / 5;
   l->table = rect(top, 0, h, tableW);
   l->curves = rect(top, tableW, curvesH, cols - tableW);
   l->drafts = rect(top + curvesH, tableW, h - curvesH, cols - tableW);
}

int Layout_compute(int rows, int cols, Layout *out) {
   memset(out, 0, sizeof *out);
   if (rows < LAYOUT_MIN_ROWS || cols < LAYOUT_MIN_COLS)
      return -1;
   out->wide = cols >= LAYOUT_WIDE_COLS;
   int logH = out->wide ? maxInt(4, rows / 6) : maxInt(3, rows / 8);
   int logY = rows - 1 - logH;
   out->header = rect(0, 0, 2, cols);
   out->log = rect(logY, 0, logH, cols);
   out->console = rect(rows - 1, 0, 1, cols);
   if (out->wide)
      arrangeWide(out, cols, 2, logY - 2);
   else
      arrangeNarrow(out, cols, 2, logY - 2);
   return 0;
}

const ColumnSpec Layout_columns[COLUMN_COUNT] = {
   [COLUMN_ID] = { "ID", 3, false, true },
   [COLUMN_TASK] = { "Task", 0, true, false },
   [COLUMN_WEIGHT] = { "Wt", 4, false, false },
   [COLUMN_LATENCY] = { "Lat(ms)", 8, false, true },
   [COLUMN_GFLOPS] = { "GFLOPS", 7, false, false },
   [COLUMN_TRIALS] = { "Trials", 6, false, true },
   [COLUMN_ROOF] = { "Roof", 5, false, true },
   [COLUMN_PRIO] = { "Prio", 4, false, false },
   [COLUMN_STATE] = { "State", 8, true, false },
};

void Layout_tableColumns(int width, int markWidth, int out[COLUMN_COUNT]) {
   int rest = width - COLUMN_COUNT;
   for (int c = 0; c < COLUMN_COUNT; c++) {
      const ColumnSpec *s = &Layout_columns[c];
      out[c] = s->sortable ? maxInt(s->width, (int)strlen(s->name) + markWidth) : s->width;
      rest -= out[c];
   }
   out[COLUMN_TASK] = maxInt(8, rest);
}

Column Layout_columnAt(const int width[COLUMN_COUNT], int x) {
   int left = 0;
   for (int c = 0; c < COLUMN_COUNT; c++) {
      left += c > 0;
      if (x >= left && x < left + width[c])
         return (Column)c;
      left += width[c];
   }
   return COLUMN_COUNT;
}
