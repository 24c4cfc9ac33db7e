/* The screen layout for a terminal size; the arrangement is described in layout.h. */
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
