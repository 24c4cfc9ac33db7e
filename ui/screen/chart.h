/* Plots, sparklines and axis labels as text, for the curves and draft panels: pure
 * functions that fill caller buffers with UTF-8 (braille or block characters) or plain
 * ASCII, so that they can be tested without a terminal. */
#ifndef HEADER_chart
#define HEADER_chart

#include <stdbool.h>
#include <stddef.h>

#include "util/axis.h"

typedef enum { CHART_BRAILLE, CHART_ASCII } ChartStyle;

/* A line plot of points (x[i], y[i]), i < n, sorted by x, in a grid of w x h cells
 * covering [x0, x1] x [y0, y1] (y grows upwards: y1 on the top row). Each point is
 * joined to the next by a straight segment (Bresenham on the dot grid). Points with a
 * NAN x or y are skipped (no segment to or from them); a point without neighbours is
 * still drawn.
 * Dots: x maps to dot columns 0..D-1 (x0 the first, x1 the last) and y to dot rows
 * 0..E-1 (y1 the top, y0 the bottom), linearly and rounded to the nearest; points
 * outside the range are clamped to the edges, and an empty range (x0 == x1, y0 == y1)
 * puts every point in its middle.
 * Braille: D = 2w, E = 4h; each cell holds 2x4 dots as U+2800 + the dot bits, in the
 * standard numbering: the left column top to bottom 0x01, 0x02, 0x04, 0x40, the right
 * column 0x08, 0x10, 0x20, 0x80. A cell without dots is a space.
 * ASCII: D = w, E = h, one dot per cell: a point is '*', the rest of a segment '.'.
 * rows[r] (r = 0 the top, r < h) receives a NUL-terminated UTF-8 string of exactly w
 * cells; each rows[r] must have room for w * 3 + 1 bytes. */
void Chart_plot(const double *x, const double *y, int n, double x0, double x1, double y0, double y1,
                int w, int h, ChartStyle style, char **rows);

/* A series of points for Chart_plotSeries: each point joined to the next by a segment
 * or not, and marked or not: in ASCII each point is `mark` (Chart_plot's is '*'), over
 * any segment; 0 leaves the points unmarked (in braille a point is its dot either
 * way). */
typedef struct ChartSeries_ {
   const double *x, *y;
   int n;
   bool joined;
   char mark;
} ChartSeries;

/* Several series on one grid and ranges, as Chart_plot draws one: the segments of
 * every series first, then their marks, a later series over an earlier one; in
 * braille their dots together. owner (NULL, or w * h entries, row by row) receives
 * for each cell the index of the series drawn last into it, marks over segments; -1
 * for an empty cell: the screen colours the cell by it. */
void Chart_plotSeries(const ChartSeries *series, int nseries, double x0, double x1, double y0, double y1, int w,
                      int h, ChartStyle style, char **rows, signed char *owner);

#define CHART_LABEL_MAX 8

/* The labels of the y axis a of a plot h rows high (on a log scale the plot takes
 * log10 of the values): Axis_ticks' ticks (on a log scale at most h / 2 + 1 of them), each on the
 * row where Chart_plot draws its value, as Axis_tickLabel writes it where that is at
 * most 6 characters (linear), else as Axis_label does. The ends always
 * show; the other ticks, ascending (on a log scale the powers of ten first), where
 * their row is at least 2 rows from every labelled row. labels[r] (r = 0 the top) is
 * "" on a row without a label. */
void Chart_yLabels(const AxisScale *a, int h, ChartStyle style, char (*labels)[CHART_LABEL_MAX]);

/* The last `width` values of v as a sparkline over [lo, hi], right-aligned: the newest
 * value in the last column, blanks before it when n < width. A value's level is
 * round(7 * (v - lo) / (hi - lo)), halves away from zero, clamped to 0..7 (every
 * value is level 0 when hi <= lo); so over [0, 1], 0 is level 0, 0.5 level 4 (3.5
 * rounded up) and 1 level 7. CHART_BRAILLE, the Unicode style, shows level L as
 * U+2581 + L (U+2581 "▁" .. U+2588 "█"), CHART_ASCII as "_.-:=+*#"[L]; NAN is a
 * space.
 * Writes a NUL-terminated string into buf (size bytes; when it does not fit, the end
 * is cut before the first character that would not fit whole, snprintf style) and
 * returns the number of cells written, blanks included. */
int Chart_sparkline(const double *v, int n, double lo, double hi, int width, ChartStyle style, char *buf,
                    size_t size);

#endif
