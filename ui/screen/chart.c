/* Plots of series on a braille or ASCII dot grid, their y labels, and sparklines. */
#include "config.h"

#include "chart.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/axis.h"
#include "util/xalloc.h"

#define BRAILLE_BLANK 0x2800u
#define BLOCK_LOWEST 0x2581u

/* Text written into a caller's buffer a whole character at a time, room kept for the
 * NUL. */
typedef struct CellWriter_ {
   char *buf;
   size_t size;
   size_t len;
   int cells;
} CellWriter;

static CellWriter CellWriter_over(char *buf, size_t size) {
   if (size)
      buf[0] = '\0';
   return (CellWriter){ .buf = buf, .size = size };
}

/* Appends one cell's bytes; false (and nothing written) when they do not fit. */
static bool CellWriter_put(CellWriter *cw, const char *text, size_t len) {
   if (cw->len + len + 1 > cw->size)
      return false;
   memcpy(cw->buf + cw->len, text, len);
   cw->len += len;
   cw->buf[cw->len] = '\0';
   cw->cells++;
   return true;
}

/* A code point of U+0800..U+FFFF as its 3 bytes of UTF-8. */
static bool CellWriter_putCodePoint(CellWriter *cw, unsigned cp) {
   char text[3] = {
      (char)(0xE0 | (cp >> 12)),
      (char)(0x80 | ((cp >> 6) & 0x3F)),
      (char)(0x80 | (cp & 0x3F)),
   };
   return CellWriter_put(cw, text, sizeof text);
}

/* ---- plots ---- */

/* The cells of a plot: braille dot bits, or for ASCII one of these marks. */
enum { MARK_NONE, MARK_SEGMENT, MARK_POINT };

typedef struct Grid_ {
   unsigned char *cells;
   char *glyphs;                /* ASCII: the mark of the point in each cell */
   signed char *owner;          /* the series drawn last into each cell, or NULL */
   int w;
   int dotsW, dotsH;
   ChartStyle style;
   int series;                  /* the one being drawn */
   char mark;                   /* its points' mark */
} Grid;

/* The standard braille numbering, [dot row][dot column]: dots 1-3 and 7 on the left,
 * 4-6 and 8 on the right. */
static const unsigned char brailleBits[4][2] = {
   { 0x01, 0x08 },
   { 0x02, 0x10 },
   { 0x04, 0x20 },
   { 0x40, 0x80 },
};

static void Grid_mark(Grid *g, int col, int row, unsigned char mark) {
   int at = g->style == CHART_BRAILLE ? (row / 4) * g->w + col / 2 : row * g->w + col;
   if (g->style == CHART_BRAILLE) {
      g->cells[at] |= brailleBits[row % 4][col % 2];
   } else {
      /* a segment does not cover a point */
      if (g->cells[at] > mark)
         return;
      g->cells[at] = mark;
      g->glyphs[at] = g->mark;
   }
   if (g->owner)
      g->owner[at] = (signed char)g->series;
}

/* Bresenham's line, both ends included. */
static void Grid_segment(Grid *g, int c0, int r0, int c1, int r1) {
   int dc = abs(c1 - c0), dr = -abs(r1 - r0);
   int sc = c0 < c1 ? 1 : -1, sr = r0 < r1 ? 1 : -1;
   int err = dc + dr;
   for (;;) {
      Grid_mark(g, c0, r0, MARK_SEGMENT);
      if (c0 == c1 && r0 == r1)
         return;
      int e2 = 2 * err;
      if (e2 >= dr) {
         err += dr;
         c0 += sc;
      }
      if (e2 <= dc) {
         err += dc;
         r0 += sr;
      }
   }
}

/* v's dot on an axis of ndots dots from `from` (dot 0) to `to` (the last), rounded
 * and clamped; an empty range gives the middle. */
static int dotOf(double v, double from, double to, int ndots) {
   double t = to != from ? (v - from) / (to - from) : 0.5;
   double d = round(t * (ndots - 1));
   if (!(d > 0))
      return 0;
   if (d >= ndots - 1)
      return ndots - 1;
   return (int)d;
}

static void Grid_row(const Grid *g, int r, char *out) {
   CellWriter cw = CellWriter_over(out, (size_t)g->w * 3 + 1);
   for (int c = 0; c < g->w; c++) {
      int at = r * g->w + c;
      unsigned char cell = g->cells[at];
      if (g->style == CHART_BRAILLE && cell)
         CellWriter_putCodePoint(&cw, BRAILLE_BLANK + cell);
      else
         CellWriter_put(&cw, cell == MARK_POINT ? &g->glyphs[at] : cell == MARK_SEGMENT ? "." : " ", 1);
   }
}

/* One series' dots: its segments where joined, each point alone where not. */
static void Grid_lines(Grid *g, const ChartSeries *s, double x0, double x1, double y0, double y1) {
   int prevCol = 0, prevRow = 0;
   bool prev = false;
   for (int i = 0; i < s->n; i++) {
      if (isnan(s->x[i]) || isnan(s->y[i])) {
         prev = false;
         continue;
      }
      int col = dotOf(s->x[i], x0, x1, g->dotsW);
      int row = dotOf(s->y[i], y1, y0, g->dotsH);
      if (prev && s->joined)
         Grid_segment(g, prevCol, prevRow, col, row);
      else
         Grid_mark(g, col, row, MARK_SEGMENT);
      prevCol = col;
      prevRow = row;
      prev = true;
   }
}

/* One series' marks, over every segment (for ASCII's marks). */
static void Grid_marks(Grid *g, const ChartSeries *s, double x0, double x1, double y0, double y1) {
   for (int i = 0; i < s->n; i++)
      if (!isnan(s->x[i]) && !isnan(s->y[i]))
         Grid_mark(g, dotOf(s->x[i], x0, x1, g->dotsW), dotOf(s->y[i], y1, y0, g->dotsH), MARK_POINT);
}

void Chart_plotSeries(const ChartSeries *series, int nseries, double x0, double x1, double y0, double y1, int w,
                      int h, ChartStyle style, char **rows, signed char *owner) {
   if (h <= 0)
      return;
   if (w <= 0) {
      for (int r = 0; r < h; r++)
         rows[r][0] = '\0';
      return;
   }
   bool braille = style == CHART_BRAILLE;
   size_t ncells = (size_t)w * (size_t)h;
   Grid g = {
      .cells = xCalloc(ncells, 1),
      .glyphs = xCalloc(ncells, 1),
      .owner = owner,
      .w = w,
      .dotsW = braille ? 2 * w : w,
      .dotsH = braille ? 4 * h : h,
      .style = style,
   };
   if (owner)
      memset(owner, -1, ncells);
   for (int k = 0; k < nseries; k++) {
      g.series = k;
      Grid_lines(&g, &series[k], x0, x1, y0, y1);
   }
   for (int k = 0; k < nseries; k++) {
      if (!series[k].mark)
         continue;
      g.series = k;
      g.mark = series[k].mark;
      Grid_marks(&g, &series[k], x0, x1, y0, y1);
   }
   for (int r = 0; r < h; r++)
      Grid_row(&g, r, rows[r]);
   free(g.cells);
   free(g.glyphs);
}

void Chart_plot(const double *x, const double *y, int n, double x0, double x1, double y0, double y1,
                int w, int h, ChartStyle style, char **rows) {
   ChartSeries one = { .x = x, .y = y, .n = n, .joined = true, .mark = '*' };
   Chart_plotSeries(&one, 1, x0, x1, y0, y1, w, h, style, rows, NULL);
}

/* ---- the y axis' labels ---- */

/* a linear tick with the decimals its step needs where that fits, else Axis_label's */
static void yLabel(double t, double step, bool log, char *buf) {
   char text[32];
   Axis_tickLabel(t, step, text, sizeof text);
   if (log || strlen(text) >= CHART_LABEL_MAX - 1)
      Axis_label(t, buf, CHART_LABEL_MAX);
   else
      snprintf(buf, CHART_LABEL_MAX, "%s", text);
}

void Chart_yLabels(const AxisScale *a, int h, ChartStyle style, char (*labels)[CHART_LABEL_MAX]) {
   bool log = a->log;
   if (h <= 0)
      return;
   for (int r = 0; r < h; r++)
      labels[r][0] = '\0';
   double ticks[AXIS_MAX_TICKS];
   int n = Axis_ticks(a, h / 2 + 1, ticks);
   int perCell = style == CHART_BRAILLE ? 4 : 1;
   double top = log ? log10(a->hi) : a->hi, bottom = log ? log10(a->lo) : a->lo;
   /* the ends, then (log) the powers of ten, then the rest */
   int order[AXIS_MAX_TICKS + 2], norder = 0;
   order[norder++] = n - 1;
   order[norder++] = 0;
   for (int pass = log ? 0 : 1; pass < 2; pass++)
      for (int i = 1; i < n - 1; i++) {
         bool power = fabs(log10(ticks[i]) - round(log10(ticks[i]))) < 1e-9;
         if (pass == 1 || power) {
            if (pass == 1 && log && power)
               continue;
            order[norder++] = i;
         }
      }
   for (int j = 0; j < norder && n > 0; j++) {
      double t = ticks[order[j]];
      int row = dotOf(log ? log10(t) : t, top, bottom, h * perCell) / perCell;
      bool room = j < 2 ? labels[row][0] == '\0' : true;
      for (int r = row - 1; r <= row + 1 && j >= 2; r++)
         if (r >= 0 && r < h && labels[r][0])
            room = false;
      if (room)
         yLabel(t, a->step, log, labels[row]);
   }
}

/* ---- sparklines ---- */

static int sparkLevel(double v, double lo, double hi) {
   if (!(hi > lo))
      return 0;
   double level = round(7 * (v - lo) / (hi - lo));
   if (!(level > 0))
      return 0;
   return level < 7 ? (int)level : 7;
}

int Chart_sparkline(const double *v, int n, double lo, double hi, int width, ChartStyle style, char *buf,
                    size_t size) {
   static const char asciiLevels[] = "_.-:=+*#";
   CellWriter cw = CellWriter_over(buf, size);
   int blanks = n < width ? width - n : 0;
   for (int c = 0; c < width; c++) {
      int i = n - width + c;
      bool fits;
      if (c < blanks || isnan(v[i]))
         fits = CellWriter_put(&cw, " ", 1);
      else if (style == CHART_BRAILLE)
         fits = CellWriter_putCodePoint(&cw, BLOCK_LOWEST + (unsigned)sparkLevel(v[i], lo, hi));
      else
         fits = CellWriter_put(&cw, &asciiLevels[sparkLevel(v[i], lo, hi)], 1);
      if (!fits)
         break;
   }
   return cw.cells;
}
