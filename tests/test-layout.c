/* The screen layout and the text charts: exact rectangles for three terminal sizes
 * worked out by hand from the rules, the tiling and the minimums for every size from
 * 80x24 to 300x100 and several table sizes (no blank band, every minimum), too small
 * a terminal; the task table's columns with and without room for the sort's mark and
 * for the extra columns; braille and ASCII plots, of one series and of two, sparklines, cuts
 * at whole characters, nice axis ranges and labels, all compared with hand-computed
 * text. */
#include "config.h"

#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "layout.h"
#include "util/axis.h"

/* ---- layout ---- */

static void assertRect(const char *name, Rect got, Rect want) {
   if (got.y != want.y || got.x != want.x || got.h != want.h || got.w != want.w)
      fail_msg("%s: got y %d x %d h %d w %d, want y %d x %d h %d w %d", name, got.y, got.x, got.h, got.w,
               want.y, want.x, want.h, want.w);
}

/* resnet_50: 27 tasks, its longest description "layer2.0.downsample" (19) */
static const LayoutContent resnet50 = { 27, 19, 0 };

/* Worked out by hand from the rules in layout.h, for resnet_50. The table's natural
 * width with a mark of 2: ID 4, Wt 4, Lat(ms) 9, Share 7, GFLOPS 7, Trials 8, Roof 6,
 * Idle 4, Prio 4, State 8 (61), the description 19 and 11 spaces: 91. */
static const struct {
   int rows, cols;
   Layout want;
} exactLayouts[] = {
   /* 80x24, stacked: the middle 21 rows: the table clamp(29, 3, 9) = 9; the 12 rows
    * under it: max(9, 7) = 9 of curves and drafts (drafts max(28, 30) = 30), the log 3 */
   { 24, 80, { .header = { 0, 0, 2, 80 }, .table = { 2, 0, 9, 80 },
       .curves = { 11, 0, 9, 50 }, .drafts = { 11, 50, 9, 30 },
       .log = { 20, 0, 3, 80 }, .console = { 23, 0, 1, 80 }, .wide = false } },
   /* 120x40, side by side: the middle 37 rows; the left column min(91, 120 - 44) = 76
    * wide, the table clamp(29, 3, 34) = 29 rows (every task), the log the other 8; on
    * the right the curves 37*3/5 = 22 rows, the drafts 15 */
   { 40, 120, { .header = { 0, 0, 2, 120 }, .table = { 2, 0, 29, 76 },
       .curves = { 2, 76, 22, 44 }, .drafts = { 24, 76, 15, 44 },
       .log = { 31, 0, 8, 76 }, .console = { 39, 0, 1, 120 }, .wide = true } },
   /* 200x60: the middle 57; the left column 91 wide, the table 29, the log 28; the
    * curves 34, the drafts 23 */
   { 60, 200, { .header = { 0, 0, 2, 200 }, .table = { 2, 0, 29, 91 },
       .curves = { 2, 91, 34, 109 }, .drafts = { 36, 91, 23, 109 },
       .log = { 31, 0, 28, 91 }, .console = { 59, 0, 1, 200 }, .wide = true } },
   /* 250x24: the middle 21; the table clamp(29, 3, 18) = 18, the log 3; the curves
    * 12, the drafts 9 */
   { 24, 250, { .header = { 0, 0, 2, 250 }, .table = { 2, 0, 18, 91 },
       .curves = { 2, 91, 12, 159 }, .drafts = { 14, 91, 9, 159 },
       .log = { 20, 0, 3, 91 }, .console = { 23, 0, 1, 250 }, .wide = true } },
};

static void assertLayout(const Layout *l, const Layout *want) {
   assertRect("header", l->header, want->header);
   assertRect("table", l->table, want->table);
   assertRect("curves", l->curves, want->curves);
   assertRect("drafts", l->drafts, want->drafts);
   assertRect("log", l->log, want->log);
   assertRect("console", l->console, want->console);
   assert_int_equal(l->wide, want->wide);
}

static void test_layoutExact(void **state) {
   (void)state;
   for (size_t i = 0; i < sizeof exactLayouts / sizeof exactLayouts[0]; i++) {
      Layout l;
      assert_int_equal(Layout_compute(exactLayouts[i].rows, exactLayouts[i].cols, &resnet50, &l), 0);
      assertLayout(&l, &exactLayouts[i].want);
   }
   /* bert_tiny's 10 tasks at 200x60: the table its 12 rows, the log the 45 under it */
   Layout l;
   assert_int_equal(Layout_compute(60, 200, &(LayoutContent){ 10, 14, 0 }, &l), 0);
   Layout want = { .header = { 0, 0, 2, 200 }, .table = { 2, 0, 12, 86 }, .curves = { 2, 86, 34, 114 },
                   .drafts = { 36, 86, 23, 114 }, .log = { 14, 0, 45, 86 }, .console = { 59, 0, 1, 200 },
                   .wide = true };
   assertLayout(&l, &want);
   /* before the session's header: no task, the table its title, heads and one row;
    * under it 18 rows: max(9, 10) = 10 of curves and drafts, the log 8 */
   assert_int_equal(Layout_compute(24, 80, &(LayoutContent){ 0, 0, 0 }, &l), 0);
   assert_int_equal(l.table.h, 3);
   assert_int_equal(l.curves.h, 10);
   assert_int_equal(l.log.h, 8);
}

#define MAX_ROWS 100
#define MAX_COLS 300

/* Counts the rectangle's cells in cover; fails when it leaves the screen. */
static void cover(unsigned char cells[MAX_ROWS][MAX_COLS], int rows, int cols, const char *name, Rect r) {
   if (r.y < 0 || r.x < 0 || r.h < 0 || r.w < 0 || r.y + r.h > rows || r.x + r.w > cols)
      fail_msg("%dx%d: %s (y %d x %d h %d w %d) is outside the screen", cols, rows, name, r.y, r.x, r.h, r.w);
   for (int y = r.y; y < r.y + r.h; y++)
      for (int x = r.x; x < r.x + r.w; x++)
         cells[y][x]++;
}

static void assertAtLeast(int rows, int cols, const char *what, int got, int min) {
   if (got < min)
      fail_msg("%dx%d: %s is %d, less than %d", cols, rows, what, got, min);
}

/* For every size from 80x24 to 300x100 and tables of 0, 8, 27 and 417 tasks: the
 * panels tile the screen, keep their minimums, and the table has no blank row (its
 * height is its rows', or what the others leave it, and then the log has its 3). */
static void test_layoutEverySize(void **state) {
   (void)state;
   static unsigned char cells[MAX_ROWS][MAX_COLS];
   static const LayoutContent contents[] = { { 0, 0, 0 }, { 8, 60, 0 }, { 27, 19, 0 }, { 417, 48, 0 } };
   for (size_t ci = 0; ci < sizeof contents / sizeof contents[0]; ci++) {
      const LayoutContent *c = &contents[ci];
      for (int rows = LAYOUT_MIN_ROWS; rows <= MAX_ROWS; rows++) {
         for (int cols = LAYOUT_MIN_COLS; cols <= MAX_COLS; cols++) {
            Layout l;
            assert_int_equal(Layout_compute(rows, cols, c, &l), 0);
            memset(cells, 0, sizeof cells);
            cover(cells, rows, cols, "header", l.header);
            cover(cells, rows, cols, "table", l.table);
            cover(cells, rows, cols, "curves", l.curves);
            cover(cells, rows, cols, "drafts", l.drafts);
            cover(cells, rows, cols, "log", l.log);
            cover(cells, rows, cols, "console", l.console);
            for (int y = 0; y < rows; y++)
               for (int x = 0; x < cols; x++)
                  if (cells[y][x] != 1)
                     fail_msg("%dx%d: row %d column %d is covered %d times", cols, rows, y, x, cells[y][x]);
            assert_int_equal(l.wide, cols >= 120);
            assertRect("header", l.header, (Rect){ 0, 0, 2, cols });
            assertRect("console", l.console, (Rect){ rows - 1, 0, 1, cols });
            assert_int_equal(l.log.w, l.wide ? l.table.w : cols);
            int need = c->tasks + 2 < 3 ? 3 : c->tasks + 2;
            if (l.table.h > need)
               fail_msg("%dx%d, %d tasks: the table is %d rows, %d blank", cols, rows, c->tasks, l.table.h,
                        l.table.h - need);
            if (l.table.h < need && l.log.h != 3)
               fail_msg("%dx%d, %d tasks: the table is cut at %d rows while the log has %d", cols, rows, c->tasks,
                        l.table.h, l.log.h);
            assertAtLeast(rows, cols, "the table's height", l.table.h, 3);
            assertAtLeast(rows, cols, "the curves' height", l.curves.h, 7);
            assertAtLeast(rows, cols, "the curves' width", l.curves.w, 40);
            assertAtLeast(rows, cols, "the drafts' height", l.drafts.h, 7);
            assertAtLeast(rows, cols, "the drafts' width", l.drafts.w, 28);
            assertAtLeast(rows, cols, "the log's height", l.log.h, 3);
         }
      }
   }
}

static void assertTooSmall(int rows, int cols) {
   Layout l, zero;
   memset(&l, 0xff, sizeof l);
   memset(&zero, 0, sizeof zero);
   assert_int_equal(Layout_compute(rows, cols, &resnet50, &l), -1);
   assert_memory_equal(&l, &zero, sizeof l);
}

static void test_layoutTooSmall(void **state) {
   (void)state;
   assertTooSmall(24, 79);
   assertTooSmall(23, 80);
   assertTooSmall(0, 0);
}

/* ---- the task table's columns ---- */

static void assertColumns(int width, int markWidth, int nameWidth, const int *want) {
   int got[COLUMN_COUNT];
   Layout_tableColumns(width, markWidth, nameWidth, 0, got);
   for (int c = 0; c < COLUMN_COUNT; c++)
      if (got[c] != want[c])
         fail_msg("%d columns, a mark of %d: %s is %d wide, want %d", width, markWidth, Layout_columns[c].name,
                  got[c], want[c]);
}

/* ID, Lat(ms), Share, Trials and Roof carry the sort's mark: 1 column (a triangle)
 * makes "ID" 3 wide, "Lat(ms)" 8, "Share" 6, "Trials" 7, "Roof" 5; 2 (" v") makes
 * them 4, 9, 7, 8, 6. Without the extras (Share, Idle): 3 + 4 + 8 + 7 + 7 + 5 + 4 + 8
 * = 46 with a mark of 1, 50 with 2; the description what is left after a space
 * before each column but the first and one at the end, at least 8. The extras come
 * when the description keeps its content's width: 46 + 6 + 4 + 19 + 11 = 86 columns
 * for resnet_50 with a mark of 1. */
static void test_tableColumns(void **state) {
   (void)state;
   /* 80 - 9 - 46 = 25 */
   assertColumns(80, 1, 19, (const int[]){ 3, 25, 4, 8, 0, 7, 7, 5, 0, 4, 8 });
   /* 80 - 9 - 50 = 21 */
   assertColumns(80, 2, 19, (const int[]){ 4, 21, 4, 9, 0, 7, 8, 6, 0, 4, 8 });
   /* 85 is one short of 86: still no extras, the description 85 - 9 - 46 = 30 */
   assertColumns(85, 1, 19, (const int[]){ 3, 30, 4, 8, 0, 7, 7, 5, 0, 4, 8 });
   /* 86: the extras, the description 86 - 11 - 56 = 19 */
   assertColumns(86, 1, 19, (const int[]){ 3, 19, 4, 8, 6, 7, 7, 5, 4, 4, 8 });
   /* the side-by-side table at 200 columns, 91 wide: 91 - 11 - 56 = 24 */
   assertColumns(91, 1, 19, (const int[]){ 3, 24, 4, 8, 6, 7, 7, 5, 4, 4, 8 });
   /* no mark: the values' widths */
   assertColumns(80, 0, 19, (const int[]){ 3, 26, 4, 8, 0, 7, 6, 5, 0, 4, 8 });
   /* too narrow: the description keeps 8 */
   assertColumns(40, 1, 19, (const int[]){ 3, 8, 4, 8, 0, 7, 7, 5, 0, 4, 8 });
   assert_int_equal(Layout_tableWidth(1, 19, 0), 86);
   assert_int_equal(Layout_tableWidth(2, 19, 0), 91);
   /* a description over 48 counts as 48; under 8 as 8 */
   assert_int_equal(Layout_tableWidth(2, 200, 0), 91 - 19 + 48);
   assert_int_equal(Layout_tableWidth(2, 1, 0), 91 - 19 + 8);
   /* every width from 80 to 300 fills the row but its last column */
   for (int width = 80; width <= 300; width++) {
      int w[COLUMN_COUNT], sum = 0;
      Layout_tableColumns(width, 2, 19, 0, w);
      for (int c = 0; c < COLUMN_COUNT; c++)
         sum += w[c] + (w[c] > 0);
      assert_int_equal(sum, width);
   }
}

/* The column under each x of a row at 80 columns, a mark of 1: ID 0-2, Task 4-28,
 * Wt 30-33, Lat(ms) 35-42, GFLOPS 44-50, Trials 52-58, Roof 60-64, Prio 66-69, State
 * 71-78; the spaces between and x 79 and beyond are none's. At 86, with the extras:
 * Task 4-22, Wt 24-27, Lat(ms) 29-36, Share 38-43, GFLOPS 45-51, Trials 53-59, Roof
 * 61-65, Idle 67-70, Prio 72-75, State 77-84. */
static void test_columnAt(void **state) {
   (void)state;
   const char names[COLUMN_COUNT + 1] = "ITWLHGROXPS ";
   static const struct {
      int width;
      const char *want;
   } rows[] = {
      { 80, "III TTTTTTTTTTTTTTTTTTTTTTTTT WWWW LLLLLLLL GGGGGGG RRRRRRR OOOOO PPPP SSSSSSSS  " },
      { 86, "III TTTTTTTTTTTTTTTTTTT WWWW LLLLLLLL HHHHHH GGGGGGG RRRRRRR OOOOO XXXX PPPP SSSSSSSS  " },
   };
   for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
      int w[COLUMN_COUNT];
      Layout_tableColumns(rows[i].width, 1, 19, 0, w);
      const char *want = rows[i].want;
      for (int x = -1; x <= rows[i].width + 1; x++) {
         char c = x < 0 || x >= (int)strlen(want) ? ' ' : want[x];
         Column got = Layout_columnAt(w, x);
         if (names[got] != c)
            fail_msg("%d wide, x %d: column %c, want %c", rows[i].width, x, names[got], c);
      }
   }
}

/* ---- plots ---- */

#define PLOT_MAX_W 8
#define PLOT_MAX_H 4

/* Plots into fresh rows and compares them with want[0..h-1]. */
static void assertPlot(const double *x, const double *y, int n, double x0, double x1, double y0, double y1,
                       int w, int h, ChartStyle style, const char *const *want) {
   char text[PLOT_MAX_H][PLOT_MAX_W * 3 + 1];
   char *rows[PLOT_MAX_H];
   assert_true(w <= PLOT_MAX_W && h <= PLOT_MAX_H);
   for (int r = 0; r < h; r++) {
      memset(text[r], 'X', sizeof text[r]);
      rows[r] = text[r];
   }
   Chart_plot(x, y, n, x0, x1, y0, y1, w, h, style, rows);
   for (int r = 0; r < h; r++)
      assert_string_equal(rows[r], want[r]);
}

/* (0, 0) - (1, 1) in 2x1 cells: dots (column, row) (0, 3) (1, 2) (2, 1) (3, 0): the
 * left cell dots 7 and 6 (0x40 | 0x20 = U+2860), the right dots 2 and 4 (0x02 | 0x08 =
 * U+280A). */
static void test_plotBrailleDiagonal(void **state) {
   (void)state;
   const double x[] = { 0, 1 }, y[] = { 0, 1 };
   const char *const want[] = { "\u2860\u280A" };
   assertPlot(x, y, 2, 0, 1, 0, 1, 2, 1, CHART_BRAILLE, want);
}

/* A line at y1 lights the top dots 1 and 4 (U+2809) of every top cell. */
static void test_plotBrailleTop(void **state) {
   (void)state;
   const double x[] = { 0, 1 }, y[] = { 1, 1 };
   const char *const want[] = { "\u2809\u2809\u2809", "   " };
   assertPlot(x, y, 2, 0, 1, 0, 1, 3, 2, CHART_BRAILLE, want);
}

/* The left column x0 is dots 1, 2, 3, 7 (U+2847), the right x1 dots 4, 5, 6, 8
 * (U+28B8); (0.5, 0.5) in one cell rounds to dot column round(0.5) = 1, row
 * round(1.5) = 2: dot 6 (U+2820). */
static void test_plotBrailleDots(void **state) {
   (void)state;
   const double left[] = { 0, 0 }, right[] = { 1, 1 }, upDown[] = { 0, 1 }, half[] = { 0.5 };
   const char *const wantLeft[] = { "\u2847" }, *const wantRight[] = { "\u28B8" };
   const char *const wantHalf[] = { "\u2820" };
   assertPlot(left, upDown, 2, 0, 1, 0, 1, 1, 1, CHART_BRAILLE, wantLeft);
   assertPlot(right, upDown, 2, 0, 1, 0, 1, 1, 1, CHART_BRAILLE, wantRight);
   assertPlot(half, half, 1, 0, 1, 0, 1, 1, 1, CHART_BRAILLE, wantHalf);
}

/* Two series: ASCII marks each series' points with its letter, a later series' point
 * over an earlier one's segment; braille puts both series' dots in one cell, owned by
 * the later. A: (0, 0) - (4, 0) and B: (2, 0) - (2, 2) over [0, 4] x [0, 2] in 5x3
 * cells; then A (0, 0) and B (1, 1) in one braille cell: dots 7 and 4 (0x40 | 0x08 =
 * U+2848). */
static void test_plotSeries(void **state) {
   (void)state;
   const double ax[] = { 0, 4 }, ay[] = { 0, 0 }, bx[] = { 2, 2 }, by[] = { 0, 2 };
   const ChartSeries series[] = { { .x = ax, .y = ay, .n = 2, .joined = true, .mark = 'A' },
                                   { .x = bx, .y = by, .n = 2, .joined = true, .mark = 'B' } };
   char text[3][5 * 3 + 1];
   char *rows[] = { text[0], text[1], text[2] };
   signed char owner[15];
   Chart_plotSeries(series, 2, 0, 4, 0, 2, 5, 3, CHART_ASCII, rows, owner);
   assert_string_equal(rows[0], "  B  ");
   assert_string_equal(rows[1], "  .  ");
   assert_string_equal(rows[2], "A.B.A");
   const signed char wantOwner[15] = { -1, -1, 1, -1, -1, -1, -1, 1, -1, -1, 0, 0, 1, 0, 0 };
   assert_memory_equal(owner, wantOwner, sizeof owner);

   const double zero[] = { 0 }, one[] = { 1 };
   const ChartSeries dots[] = { { .x = zero, .y = zero, .n = 1, .joined = true, .mark = 'A' },
                                 { .x = one, .y = one, .n = 1, .joined = true, .mark = 'B' } };
   Chart_plotSeries(dots, 2, 0, 1, 0, 1, 1, 1, CHART_BRAILLE, rows, owner);
   assert_string_equal(rows[0], "\u2848");
   assert_int_equal(owner[0], 1);
   /* a cell no series reaches is owned by none */
   Chart_plotSeries(dots, 1, 0, 1, 0, 1, 2, 1, CHART_BRAILLE, rows, owner);
   assert_string_equal(rows[0], "\u2840 ");
   assert_int_equal(owner[0], 0);
   assert_int_equal(owner[1], -1);
}

/* (0, 0) (2, 2) (4, 0) over [0, 4] x [0, 2] in 5x3 cells: the points at columns 0, 2,
 * 4 and rows 2, 0, 2, the segments through (1, 1) and (3, 1). */
static void test_plotAscii(void **state) {
   (void)state;
   const double x[] = { 0, 2, 4 }, y[] = { 0, 2, 0 };
   const char *const want[] = { "  *  ", " . . ", "*   *" };
   assertPlot(x, y, 3, 0, 4, 0, 2, 5, 3, CHART_ASCII, want);
}

/* A NAN y cuts the line: (0, 0) stands alone, (2, 1) - (3, 1) is joined; a NAN x
 * likewise. */
static void test_plotNanGap(void **state) {
   (void)state;
   const double x[] = { 0, 1, 2, 3 }, y[] = { 0, NAN, 1, 1 };
   const char *const want[] = { "  **", "*   " };
   assertPlot(x, y, 4, 0, 3, 0, 1, 4, 2, CHART_ASCII, want);
   const double xGap[] = { 0, NAN, 2, 3 }, yGap[] = { 0, 1, 1, 1 };
   assertPlot(xGap, yGap, 4, 0, 3, 0, 1, 4, 2, CHART_ASCII, want);
   /* braille: (0, 0) is dot 7 of the first cell, (2, 1) - (3, 1) the top dots of the
    * last two columns of the second cell (x 2 -> dot column 2, x 3 -> dot column 3) */
   const char *const wantBraille[] = { "\u2840\u2809" };
   assertPlot(x, y, 4, 0, 3, 0, 1, 2, 1, CHART_BRAILLE, wantBraille);
}

/* Points outside the range are drawn on its edges; no points, blank rows. */
static void test_plotClamped(void **state) {
   (void)state;
   const double x[] = { -5, 10 }, y[] = { 7, 7 };
   const char *const want[] = { "*.*", "   " };
   assertPlot(x, y, 2, 0, 2, 0, 1, 3, 2, CHART_ASCII, want);
   const char *const blank[] = { "  ", "  " };
   assertPlot(x, y, 0, 0, 2, 0, 1, 2, 2, CHART_BRAILLE, blank);
}

/* ---- sparklines ---- */

static void assertSpark(const double *v, int n, double lo, double hi, int width, ChartStyle style, size_t size,
                        const char *want, int wantCells) {
   char buf[64];
   assert_true(size <= sizeof buf);
   memset(buf, 'X', sizeof buf);
   assert_int_equal(Chart_sparkline(v, n, lo, hi, width, style, buf, size), wantCells);
   assert_string_equal(buf, want);
}

/* Over [0, 1]: 0 is level 0 (U+2581), 0.5 level round(3.5) = 4 (U+2585), 1 level 7
 * (U+2588); the newest value last, blanks before. */
static void test_sparkline(void **state) {
   (void)state;
   const double v[] = { 0, 0.5, 1 };
   assertSpark(v, 3, 0, 1, 3, CHART_BRAILLE, 64, "\u2581\u2585\u2588", 3);
   assertSpark(v, 3, 0, 1, 5, CHART_BRAILLE, 64, "  \u2581\u2585\u2588", 5);
   assertSpark(v, 3, 0, 1, 2, CHART_BRAILLE, 64, "\u2585\u2588", 2);
   const double out[] = { -1, NAN, 2 };
   assertSpark(out, 3, 0, 1, 3, CHART_BRAILLE, 64, "\u2581 \u2588", 3);
   assertSpark(v, 0, 0, 1, 2, CHART_BRAILLE, 64, "  ", 2);
   /* an empty range is the lowest level */
   assertSpark(v, 3, 1, 1, 3, CHART_BRAILLE, 64, "\u2581\u2581\u2581", 3);
}

static void test_sparklineAscii(void **state) {
   (void)state;
   double v[8];
   for (int i = 0; i < 8; i++)
      v[i] = i / 7.0;
   assertSpark(v, 8, 0, 1, 8, CHART_ASCII, 64, "_.-:=+*#", 8);
   const double mid[] = { 0, 0.5, NAN, 1 };
   assertSpark(mid, 4, 0, 1, 6, CHART_ASCII, 64, "  _= #", 6);
}

/* Three 3-byte blocks need 10 bytes; less cuts before a whole character. */
static void test_sparklineCut(void **state) {
   (void)state;
   static const struct {
      int width;
      ChartStyle style;
      size_t size;
      const char *want;
      int cells;
   } cuts[] = {
      { 3, CHART_BRAILLE, 10, "\u2581\u2585\u2588", 3 },
      { 3, CHART_BRAILLE, 9, "\u2581\u2585", 2 },
      { 3, CHART_BRAILLE, 7, "\u2581\u2585", 2 },
      { 3, CHART_BRAILLE, 6, "\u2581", 1 },
      { 3, CHART_BRAILLE, 3, "", 0 },
      { 3, CHART_BRAILLE, 1, "", 0 },
      { 5, CHART_BRAILLE, 5, "  ", 2 },
      { 3, CHART_ASCII, 3, "_=", 2 },
   };
   const double v[] = { 0, 0.5, 1 };
   for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
      assertSpark(v, 3, 0, 1, cuts[i].width, cuts[i].style, cuts[i].size, cuts[i].want, cuts[i].cells);
   assert_int_equal(Chart_sparkline(v, 3, 0, 1, 3, CHART_BRAILLE, NULL, 0), 0);
}

/* ---- axis ranges and labels ---- */

static void assertNice(double lo, double hi, double wantLo, double wantHi) {
   double gotLo, gotHi;
   Axis_niceRange(lo, hi, &gotLo, &gotHi, NULL);
   if (gotLo != wantLo || gotHi != wantHi)
      fail_msg("niceRange(%.17g, %.17g): got [%.17g, %.17g], want [%.17g, %.17g]", lo, hi, gotLo, gotHi, wantLo,
               wantHi);
}

/* The step is the smallest 1, 2 or 5 x 10^k >= (hi - lo) / 5. */
static void test_niceRange(void **state) {
   (void)state;
   assertNice(0.93, 2.31, 0.5, 2.5);           /* step 0.5 >= 0.276 */
   assertNice(12, 87, 0, 100);                 /* step 20 >= 15 */
   assertNice(0, 100, 0, 100);                 /* step 20, the ends already on it */
   assertNice(-3.7, 4.2, -4, 6);               /* step 2 >= 1.58 */
   assertNice(1234, 1290, 1220, 1300);         /* step 20 >= 11.2 */
   assertNice(0.0012, 0.0019, 0.0012, 0.002);  /* step 0.0002 >= 0.00014 */
   assertNice(-0.3, -0.1, -0.3, -0.1);         /* step 0.05 >= 0.04 */
   assertNice(5, 5, 4.4, 5.6);                 /* [4.5, 5.5], step 0.2 */
   assertNice(0, 0, -1, 1);                    /* [-1, 1], step 0.5 */
}

static void assertLabel(double v, const char *want) {
   char buf[16];
   Axis_label(v, buf, sizeof buf);
   assert_string_equal(buf, want);
   assert_true(strlen(buf) <= 6);
}

static void test_label(void **state) {
   (void)state;
   assertLabel(2.116, "2.116");
   assertLabel(2.1164, "2.116");
   assertLabel(45.1, "45.1");
   assertLabel(45.14, "45.1");
   assertLabel(1234, "1.2k");
   assertLabel(3.4e6, "3.4M");
   assertLabel(45100, "45.1k");
   assertLabel(-123456, "-123k");
   assertLabel(999999, "1M");
   assertLabel(2.5, "2.5");
   assertLabel(100, "100");
   assertLabel(1000, "1k");
   assertLabel(-0.5, "-0.5");
   assertLabel(0.0123, "0.012");
   assertLabel(0.0004, "4e-4");
   assertLabel(-0.0004, "-4e-4");
   assertLabel(-1.7e21, "-2e21");
   assertLabel(0, "0");
   assertLabel(NAN, "-");
   assertLabel(INFINITY, "inf");
   assertLabel(-INFINITY, "-inf");
   char small[4];
   Axis_label(2.116, small, sizeof small);
   assert_string_equal(small, "2.1");
}

/* The ticks of an axis as their labels, joined by spaces. */
static void assertTicks(double lo, double hi, bool log, int most, const char *want) {
   double ticks[AXIS_MAX_TICKS];
   AxisScale a = Axis_scale(lo, hi, log);
   int n = Axis_ticks(&a, most, ticks);
   char got[256] = "";
   for (int i = 0; i < n; i++) {
      char label[16];
      Axis_label(ticks[i], label, sizeof label);
      snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " " : "", label);
   }
   assert_string_equal(got, want);
}

static void assertLogRange(double lo, double hi, double wantLo, double wantHi) {
   double gotLo, gotHi;
   Axis_logRange(lo, hi, &gotLo, &gotHi);
   if (gotLo != wantLo || gotHi != wantHi)
      fail_msg("logRange(%.17g, %.17g): got [%.17g, %.17g], want [%.17g, %.17g]", lo, hi, gotLo, gotHi, wantLo,
               wantHi);
}

/* The data 0.93 .. 2.31 and 0.012 .. 0.35 on both scales: linear, the multiples of
 * niceRange's step; log, the 1-2-5 values of each decade, or the decades only where
 * there are more of those than asked for. */
static void test_ticks(void **state) {
   (void)state;
   double lo, hi, step;
   Axis_niceRange(0.93, 2.31, &lo, &hi, &step);
   assert_true(step == 0.5);
   assertTicks(0.93, 2.31, false, 10, "0.5 1 1.5 2 2.5");
   assertLogRange(0.93, 2.31, 0.5, 5);
   assertTicks(0.93, 2.31, true, 10, "0.5 1 2 5");
   assertTicks(0.012, 0.35, false, 10, "0 0.1 0.2 0.3 0.4");
   assertLogRange(0.012, 0.35, 0.01, 0.5);
   assertTicks(0.012, 0.35, true, 10, "0.01 0.02 0.05 0.1 0.2 0.5");
   /* 13 values of 2e-4 .. 100: more than 6, so the ends and the decades */
   assertLogRange(3e-4, 80, 2e-4, 100);
   assertTicks(3e-4, 80, true, 6, "2e-4 0.001 0.01 0.1 1 10 100");
   /* a nice range whose ends are not multiples of the step keeps its ends */
   AxisScale odd = { 1, 7, 2, false };
   double ticks[AXIS_MAX_TICKS];
   assert_int_equal(Axis_ticks(&odd, 10, ticks), 5);
   assert_true(ticks[0] == 1 && ticks[1] == 2 && ticks[3] == 6 && ticks[4] == 7);
   /* one value widens to its neighbours; 1-2-5 values stay */
   assertLogRange(2, 2, 1, 5);
   assertLogRange(0.01, 1000, 0.01, 1000);
   /* linear ticks are the decimal values, not their float sums */
   char label[32];
   AxisScale a = Axis_scale(0.0198, 0.0201, false);
   step = a.step;
   assert_int_equal(Axis_ticks(&a, 10, ticks), 4);
   assert_true(ticks[1] == 0.0199);
   Axis_tickLabel(ticks[1], step, label, sizeof label);
   assert_string_equal(label, "0.0199");
   Axis_tickLabel(80, 20, label, sizeof label);
   assert_string_equal(label, "80");
}

/* The y labels, in rows of 8: the ends, then the ticks 2 rows from any label. */
static void assertYLabels(double lo, double hi, bool log, const char *const want[8]) {
   char labels[8][CHART_LABEL_MAX];
   AxisScale a = Axis_scale(lo, hi, log);
   Chart_yLabels(&a, 8, CHART_ASCII, labels);
   for (int r = 0; r < 8; r++)
      if (strcmp(labels[r], want[r]) != 0)
         fail_msg("[%g, %g]%s row %d: got '%s', want '%s'", lo, hi, log ? " log" : "", r, labels[r], want[r]);
}

static void test_yLabels(void **state) {
   (void)state;
   /* linear 0.5 .. 2.5, ascending: 1 on row 5.25, 1.5 on 3.5 (4: next to 1's), 2 on
    * 1.75; one decimal each, as the step has */
   assertYLabels(0.5, 2.5, false, (const char *const[]){ "2.5", "", "2.0", "", "", "1.0", "", "0.5" });
   /* log 0.5 .. 5: 1 is 5.11 rows down (log10 5 = 0.699 of 1 decade's 7 rows), then 2
    * at 2.79 rows */
   assertYLabels(0.5, 5, true, (const char *const[]){ "5", "", "", "2", "", "1", "", "0.5" });
   /* log 0.01 .. 0.5: the decade 0.1 (3.12 rows) first; 0.2, 0.05 and 0.02 too near */
   assertYLabels(0.01, 0.5, true, (const char *const[]){ "0.5", "", "", "0.1", "", "", "", "0.01" });
   /* linear 0.0198 .. 0.0201: the step's decimals */
   assertYLabels(0.0198, 0.0201, false, (const char *const[]){ "0.0201", "", "0.0200", "", "", "0.0199", "", "0.0198" });
}

/* A step line (joined, unmarked) and measurements (marked, not joined) in ASCII: the
 * line '.', each measurement '*', over the line where they meet. */
static void test_plotStepsAndMarks(void **state) {
   (void)state;
   const double sx[] = { 0, 2, 2, 4 }, sy[] = { 3, 3, 1, 1 };
   const double mx[] = { 0, 1, 2, 3, 4 }, my[] = { 3, 2, 1, NAN, 3 };
   ChartSeries series[] = { { sx, sy, 4, true, 0 }, { mx, my, 5, false, '*' } };
   char buf[4][5 * 3 + 1];
   char *rows[] = { buf[0], buf[1], buf[2], buf[3] };
   Chart_plotSeries(series, 2, 0, 4, 0, 3, 5, 4, CHART_ASCII, rows, NULL);
   assert_string_equal(rows[0], "*.. *");
   assert_string_equal(rows[1], " *.  ");
   assert_string_equal(rows[2], "  *..");
   assert_string_equal(rows[3], "     ");
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_layoutExact),
      cmocka_unit_test(test_layoutEverySize),
      cmocka_unit_test(test_layoutTooSmall),
      cmocka_unit_test(test_tableColumns),
      cmocka_unit_test(test_columnAt),
      cmocka_unit_test(test_plotBrailleDiagonal),
      cmocka_unit_test(test_plotBrailleTop),
      cmocka_unit_test(test_plotBrailleDots),
      cmocka_unit_test(test_plotAscii),
      cmocka_unit_test(test_plotNanGap),
      cmocka_unit_test(test_plotClamped),
      cmocka_unit_test(test_plotSeries),
      cmocka_unit_test(test_sparkline),
      cmocka_unit_test(test_sparklineAscii),
      cmocka_unit_test(test_sparklineCut),
      cmocka_unit_test(test_niceRange),
      cmocka_unit_test(test_label),
      cmocka_unit_test(test_ticks),
      cmocka_unit_test(test_yLabels),
      cmocka_unit_test(test_plotStepsAndMarks),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
