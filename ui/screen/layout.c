/* The screen layout for a terminal size, and the task table's columns for a width;
 * the arrangement is described in layout.h. */
#include "config.h"

#include "layout.h"

#include <string.h>

static int maxInt(int a, int b) {
   return a > b ? a : b;
}

static int minInt(int a, int b) {
   return a < b ? a : b;
}

static int clampInt(int v, int lo, int hi) {
   return v < lo ? lo : v > hi ? hi : v;
}

static Rect rect(int y, int x, int h, int w) {
   return (Rect){ .y = y, .x = x, .h = h, .w = w };
}

/* The middle is rows [top, top + h): the table on top, curves and drafts below it,
 * the log under them. */
static void arrangeStacked(Layout *l, const LayoutContent *c, int cols, int top, int h) {
   int tableH = clampInt(c->tasks + 2, 3, h - 12);
   int rest = h - tableH;
   int band = minInt(maxInt(9, rest * 3 / 5), rest - 3);
   int draftsW = maxInt(28, cols * 3 / 8);
   int below = top + tableH;
   l->table = rect(top, 0, tableH, cols);
   l->curves = rect(below, 0, band, cols - draftsW);
   l->drafts = rect(below, cols - draftsW, band, draftsW);
   l->log = rect(below + band, 0, rest - band, cols);
}

/* The table over the log on the left, curves over drafts on the right. */
static void arrangeSideBySide(Layout *l, const LayoutContent *c, int cols, int top, int h) {
   int leftW = minInt(Layout_tableWidth(2, c->nameWidth, c->hidden), cols - LAYOUT_RIGHT_MIN);
   int tableH = clampInt(c->tasks + 2, 3, h - 3);
   int curvesH = h * 3 / 5;
   l->table = rect(top, 0, tableH, leftW);
   l->log = rect(top + tableH, 0, h - tableH, leftW);
   l->curves = rect(top, leftW, curvesH, cols - leftW);
   l->drafts = rect(top + curvesH, leftW, h - curvesH, cols - leftW);
}

int Layout_compute(int rows, int cols, const LayoutContent *content, Layout *out) {
   memset(out, 0, sizeof *out);
   if (rows < LAYOUT_MIN_ROWS || cols < LAYOUT_MIN_COLS)
      return -1;
   LayoutContent c = *content;
   c.tasks = maxInt(c.tasks, 0);
   out->wide = cols >= LAYOUT_WIDE_COLS;
   out->header = rect(0, 0, 2, cols);
   out->console = rect(rows - 1, 0, 1, cols);
   if (out->wide)
      arrangeSideBySide(out, &c, cols, 2, rows - 3);
   else
      arrangeStacked(out, &c, cols, 2, rows - 3);
   return 0;
}

const ColumnSpec Layout_columns[COLUMN_COUNT] = {
   [COLUMN_ID] = { "ID", 3, false, true, false },
   [COLUMN_TASK] = { "Task", 0, true, false, false },
   [COLUMN_WEIGHT] = { "Wt", 4, false, false, false },
   [COLUMN_LATENCY] = { "Lat(ms)", 8, false, true, false },
   [COLUMN_SHARE] = { "Share", 5, false, true, true },
   [COLUMN_GFLOPS] = { "GFLOPS", 7, false, false, false },
   [COLUMN_TRIALS] = { "Trials", 6, false, true, false },
   [COLUMN_ROOF] = { "Roof", 5, false, true, false },
   [COLUMN_IDLE] = { "Idle", 4, false, false, true },
   [COLUMN_PRIO] = { "Prio", 4, false, false, false },
   [COLUMN_STATE] = { "State", 8, true, false, false },
};

int Layout_nameWidth(int nameWidth) {
   return clampInt(nameWidth, 8, 48);
}

static int columnWidth(int c, int markWidth) {
   const ColumnSpec *s = &Layout_columns[c];
   return s->sortable ? maxInt(s->width, (int)strlen(s->name) + markWidth) : s->width;
}

bool Layout_hideable(Column c) {
   return c != COLUMN_ID && c != COLUMN_TASK;
}

static bool hiddenColumn(int c, unsigned hidden) {
   return Layout_hideable((Column)c) && (hidden & (1u << c));
}

int Layout_tableWidth(int markWidth, int nameWidth, unsigned hidden) {
   int sum = 1 + Layout_nameWidth(nameWidth);   /* a space per column shown: the description's too */
   for (int c = 0; c < COLUMN_COUNT; c++)
      if (c != COLUMN_TASK && !hiddenColumn(c, hidden))
         sum += columnWidth(c, markWidth) + 1;
   return sum;
}

void Layout_tableColumns(int width, int markWidth, int nameWidth, unsigned hidden, int out[COLUMN_COUNT]) {
   bool extras = width >= Layout_tableWidth(markWidth, nameWidth, hidden);
   int rest = width;
   for (int c = 0; c < COLUMN_COUNT; c++) {
      bool shown = c != COLUMN_TASK && !hiddenColumn(c, hidden) && (extras || !Layout_columns[c].extra);
      out[c] = shown ? columnWidth(c, markWidth) : 0;
      rest -= out[c] + shown;
   }
   /* the one space left to count is at the right end */
   out[COLUMN_TASK] = maxInt(8, rest - 1);
}

Column Layout_columnAt(const int width[COLUMN_COUNT], int x) {
   int left = 0;
   bool first = true;
   for (int c = 0; c < COLUMN_COUNT; c++) {
      if (width[c] <= 0)
         continue;
      left += !first;
      first = false;
      if (x >= left && x < left + width[c])
         return (Column)c;
      left += width[c];
   }
   return COLUMN_COUNT;
}
