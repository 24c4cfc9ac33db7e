/* The screen layout and the text charts: exact rectangles for three terminal sizes
 * worked out by hand from the rules, the tiling and the minimums for every size from
 * 80x24 to 300x100, too small a terminal; the task table's columns with and without
 * room for the sort's mark; braille and ASCII plots, sparklines, cuts
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

/* ---- layout ---- */

static void assertRect(const char *name, Rect got, Rect want) {
   if (got.y != want.y || got.x != want.x || got.h != want.h || got.w != want.w)
      fail_msg("%s: got y %d x %d h %d w %d, want y %d x %d h %d w %d", name, got.y, got.x, got.h, got.w,
               want.y, want.x, want.h, want.w);
}

/* Worked out by hand from the rules in layout.h. */
static const struct {
   int rows, cols;
   Layout want;
} exactLayouts[] = {
   /* 80x24, narrow: log max(3, 3) = 3 rows at 20; the middle rows 2-19 (18): the
    * table max(8, 9) = 9, then 9 rows of curves and drafts, drafts max(28, 30) = 30 */
   { 24, 80, { .header = { 0, 0, 2, 80 }, .table = { 2, 0, 9, 80 },
       .curves = { 11, 0, 9, 50 }, .drafts = { 11, 50, 9, 30 },
       .log = { 20, 0, 3, 80 }, .console = { 23, 0, 1, 80 }, .wide = false } },
   /* 120x40, narrow: log max(3, 5) = 5 rows at 34; the middle rows 2-33 (32): the
    * table 16, then 16 rows of curves and drafts, drafts max(28, 45) = 45 */
   { 40, 120, { .header = { 0, 0, 2, 120 }, .table = { 2, 0, 16, 120 },
       .curves = { 18, 0, 16, 75 }, .drafts = { 18, 75, 16, 45 },
       .log = { 34, 0, 5, 120 }, .console = { 39, 0, 1, 120 }, .wide = false } },
   /* 200x60, wide: log max(4, 10) = 10 rows at 49; the middle rows 2-48 (47): the
    * table 200*11/20 = 110 wide, on its right the curves 47*3/5 = 28 rows, the
    * drafts 19 */
   { 60, 200, { .header = { 0, 0, 2, 200 }, .table = { 2, 0, 47, 110 },
       .curves = { 2, 110, 28, 90 }, .drafts = { 30, 110, 19, 90 },
       .log = { 49, 0, 10, 200 }, .console = { 59, 0, 1, 200 }, .wide = true } },
};

static void test_layoutExact(void **state) {
   (void)state;
   for (size_t i = 0; i < sizeof exactLayouts / sizeof exactLayouts[0]; i++) {
      const Layout *want = &exactLayouts[i].want;
      Layout l;
      assert_int_equal(Layout_compute(exactLayouts[i].rows, exactLayouts[i].cols, &l), 0);
      assertRect("header", l.header, want->header);
      assertRect("table", l.table, want->table);
      assertRect("curves", l.curves, want->curves);
      assertRect("drafts", l.drafts, want->drafts);
      assertRect("log", l.log, want->log);
      assertRect("console", l.console, want->console);
      assert_int_equal(l.wide, want->wide);
   }
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

static void test_layoutEverySize(void **state) {
   (void)state;
   static unsigned char cells[MAX_ROWS][MAX_COLS];
   for (int rows = LAYOUT_MIN_ROWS; rows <= MAX_ROWS; rows++) {
      for (int cols = LAYOUT_MIN_COLS; cols <= MAX_COLS; cols++) {
         Layout l;
         assert_int_equal(Layout_compute(rows, cols, &l), 0);
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
         assert_int_equal(l.wide, cols >= 160);
         assertRect("header", l.header, (Rect){ 0, 0, 2, cols });
         assertRect("console", l.console, (Rect){ rows - 1, 0, 1, cols });
         assert_int_equal(l.log.w, cols);
         assertAtLeast(rows, cols, "the table's height", l.table.h, 8);
         assertAtLeast(rows, cols, "the curves' height", l.curves.h, 7);
         assertAtLeast(rows, cols, "the curves' width", l.curves.w, 40);
         assertAtLeast(rows, cols, "the drafts' height", l.drafts.h, 7);
         assertAtLeast(rows, cols, "the drafts' width", l.drafts.w, 28);
         assertAtLeast(rows, cols, "the log's height", l.log.h, 3);
      }
   }
}

static void assertTooSmall(int rows, int cols) {
   Layout l, zero;
   memset(&l, 0xff, sizeof l);
   memset(&zero, 0, sizeof zero);
   assert_int_equal(Layout_compute(rows, cols, &l), -1);
   assert_memory_equal(&l, &zero, sizeof l);
}

static void test_layoutTooSmall(void **state) {
   (void)state;
   assertTooSmall(24, 79);
   assertTooSmall(23, 80);
   assertTooSmall(0, 0);
}

/* ---- the task table's columns ---- */

static void assertColumns(int width, int markWidth, const int *want) {
   int got[COLUMN_COUNT];
   Layout_tableColumns(width, markWidth, got);
   for (int c = 0; c < COLUMN_COUNT; c++)
      if (got[c] != want[c])
         fail_msg("%d columns, a mark of %d: %s is %d wide, want %d", width, markWidth, Layout_columns[c].name,
                  got[c], want[c]);
}

/* ID, Lat(ms), Trials and Roof carry the sort's mark: 1 column (a triangle) makes
 * "ID" 3 wide, "Lat(ms)" 8, "Trials" 7, "Roof" 5, i.e. 3 + 4 + 8 + 7 + 7 + 5 + 4 + 8 =
 * 46 without the description; 2 (" v") makes them 4, 9, 8, 6: 50. The description is
 * what is left after 9 spaces (8 between, 1 at the end), at least 8. */
static void test_tableColumns(void **state) {
   (void)state;
   /* 80 - 9 - 46 = 25 */
   assertColumns(80, 1, (const int[]){ 3, 25, 4, 8, 7, 7, 5, 4, 8 });
   /* 80 - 9 - 50 = 21 */
   assertColumns(80, 2, (const int[]){ 4, 21, 4, 9, 7, 8, 6, 4, 8 });
   /* the wide layout's table at 200 columns: 110 - 9 - 46 = 55 */
   assertColumns(110, 1, (const int[]){ 3, 55, 4, 8, 7, 7, 5, 4, 8 });
   /* no mark: the values' widths, as before marks */
   assertColumns(80, 0, (const int[]){ 3, 26, 4, 8, 7, 6, 5, 4, 8 });
   /* too narrow: the description keeps 8 */
   assertColumns(40, 1, (const int[]){ 3, 8, 4, 8, 7, 7, 5, 4, 8 });
   /* every width from 80 to 300 fills the row but its last column */
   for (int width = 80; width <= 300; width++) {
      int w[COLUMN_COUNT], sum = COLUMN_COUNT;
      Layout_tableColumns(width, 2, w);
      for (int c = 0; c < COLUMN_COUNT; c++)
         sum += w[c];
      assert_int_equal(sum, width);
   }
}

/* The column under each x of the row at 80 columns, a mark of 1: ID 0-2, Task 4-28,
 * Wt 30-33, Lat(ms) 35-42, GFLOPS 44-50, Trials 52-58, Roof 60-64, Prio 66-69, State
 * 71-78; the spaces between and x 79 and beyond are none's. */
static void test_columnAt(void **state) {
   (void)state;
   int w[COLUMN_COUNT];
   Layout_tableColumns(80, 1, w);
   const char *want = "III TTTTTTTTTTTTTTTTTTTTTTTTT WWWW LLLLLLLL GGGGGGG RRRRRRR OOOOO PPPP SSSSSSSS  ";
   const char names[COLUMN_COUNT + 1] = "ITWLGROPS ";
   for (int x = -1; x <= 81; x++) {
      char c = x < 0 || x >= (int)strlen(want) ? ' ' : want[x];
      Column got = Layout_columnAt(w, x);
      if (names[got] != c)
         fail_msg("x %d: column %c, want %c", x, names[got], c);
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
   Chart_niceRange(lo, hi, &gotLo, &gotHi);
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
   Chart_label(v, buf, sizeof buf);
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
   Chart_label(2.116, small, sizeof small);
   assert_string_equal(small, "2.1");
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
      cmocka_unit_test(test_sparkline),
      cmocka_unit_test(test_sparklineAscii),
      cmocka_unit_test(test_sparklineCut),
      cmocka_unit_test(test_niceRange),
      cmocka_unit_test(test_label),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
