/* The workbench's panels, drawn from a board. */
#include "config.h"

#include "panels.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "chart.h"
#include "layout.h"
#include "util/axis.h"
#include "util/textbuf.h"
#include "util/xalloc.h"

enum { PAIR_TITLE = 1, PAIR_GOOD, PAIR_WARN, PAIR_BAD, PAIR_ACCENT };

static bool colors;

void Panels_initColors(bool color) {
   colors = color;
   if (!color)
      return;
   start_color();
   use_default_colors();
   init_pair(PAIR_TITLE, COLOR_BLACK, COLOR_CYAN);
   init_pair(PAIR_GOOD, COLOR_GREEN, -1);
   init_pair(PAIR_WARN, COLOR_YELLOW, -1);
   init_pair(PAIR_BAD, COLOR_RED, -1);
   init_pair(PAIR_ACCENT, COLOR_CYAN, -1);
}

static attr_t titleAttr(void) {
   return colors ? COLOR_PAIR(PAIR_TITLE) | A_BOLD : A_REVERSE;
}

static attr_t pairAttr(int pair) {
   return colors ? COLOR_PAIR(pair) : A_NORMAL;
}


/* a title bar across the panel's first row */
static void titleBar(WINDOW *w, const char *fmt, ...) ATTR_FORMAT(2, 3);
static void titleBar(WINDOW *w, const char *fmt, ...) {
   int cols = getmaxx(w);
   char text[512];
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(text, sizeof text, fmt, ap);
   va_end(ap);
   /* cut at a column, not a byte: a sort's mark takes 3 bytes */
   wchar_t wide[512];
   size_t n = mbstowcs(wide, text, sizeof wide / sizeof wide[0] - 1);
   wattron(w, titleAttr());
   mvwhline(w, 0, 0, ' ', cols);
   if (n == (size_t)-1)
      mvwaddnstr(w, 0, 0, text, cols);
   else
      mvwaddnwstr(w, 0, 0, wide, cols);
   wattroff(w, titleAttr());
}

static void ms(char *buf, size_t size, double seconds, int decimals) {
   if (isnan(seconds))
      snprintf(buf, size, "-");
   else
      snprintf(buf, size, "%.*f", decimals, seconds * 1e3);
}

/* ---- header ---- */

void Panels_header(WINDOW *w, const Board *b) {
   const TuneView *v = &b->view;
   int cols = getmaxx(w);
   werase(w);
   char state[64], line[512], elapsed[32], eta[32], total[32];
   Board_runState(b, state, sizeof state);
   /* the run's state keeps its place at the right end; when the row is short of
    * room the brand goes first, then the checkpoint's name, never cut in its middle */
   char what[256];
   const char *ckpt = strrchr(v->checkpoint, '/') ? strrchr(v->checkpoint, '/') + 1 : v->checkpoint;
   snprintf(what, sizeof what, "%s on %s%s  policy %s  model %s%s%s%s", v->network, v->device,
            v->simulated ? " SIMULATED" : "", v->policy, v->costModel, *ckpt ? " (" : "", ckpt, *ckpt ? ")" : "");
   int room = cols - (int)strlen(state) - 3;
   snprintf(line, sizeof line, " pruner-tui  %s", what);
   if ((int)strlen(line) > room)
      snprintf(line, sizeof line, " %s", what);
   if ((int)strlen(line) > room && *ckpt)
      snprintf(line, sizeof line, " %s on %s%s  policy %s  model %s", v->network, v->device,
               v->simulated ? " SIMULATED" : "", v->policy, v->costModel);
   wattron(w, titleAttr());
   mvwhline(w, 0, 0, ' ', cols);
   mvwaddnstr(w, 0, 0, line, room > 0 ? room : cols);
   if (room > 0)
      mvwprintw(w, 0, room + 1, "[%s]", state);
   wattroff(w, titleAttr());
   Board_duration(b->clock, elapsed, sizeof elapsed);
   Board_duration(Board_eta(b), eta, sizeof eta);
   if (isnan(v->latencyMs))
      snprintf(total, sizeof total, "-");
   else
      snprintf(total, sizeof total, "%.3f ms", v->latencyMs);
   snprintf(line, sizeof line, " trials %d/%d  round %d  elapsed %s  ETA %s  est. total %s", v->trials, v->budget,
            v->rounds, elapsed, eta, total);
   mvwaddnstr(w, 1, 0, line, cols);
   int used = (int)strlen(line), room2 = cols - used - 3;
   /* the GPU's state at the right end, its throttle flag first to stay when short */
   char gpu[96], flag[96];
   GpuSample_format(&b->gpu, gpu, sizeof gpu);
   GpuThrottle_format(GpuSample_slowing(&b->gpu), flag, sizeof flag);
   int gpuW = (int)strlen(gpu), flagW = (int)strlen(flag);
   if (flagW && room2 < gpuW + 2 + flagW)
      gpuW = 0;
   if (gpuW + (gpuW && flagW ? 2 : 0) + flagW > room2)
      gpuW = flagW = 0;
   int right = gpuW + (gpuW && flagW ? 2 : 0) + flagW;
   if (gpuW)
      mvwaddstr(w, 1, cols - 1 - right, gpu);
   if (flagW) {
      wattron(w, pairAttr(PAIR_BAD) | A_BOLD);
      mvwaddstr(w, 1, cols - 1 - flagW, flag);
      wattroff(w, pairAttr(PAIR_BAD) | A_BOLD);
   }
   if (right)
      room2 -= right + 3;
   /* where the row has room: the budget's progress as a bar and a percentage */
   if (room2 >= 16 && v->budget > 0) {
      int barW = room2 - 6 > 30 ? 30 : room2 - 6;
      double done = (double)v->trials / v->budget;
      done = done < 0 ? 0 : done > 1 ? 1 : done;
      int fill = (int)(done * barW + 0.5);
      int x = cols - barW - 7 - (right ? right + 3 : 0);
      mvwaddch(w, 1, x, '[');
      for (int i = 0; i < barW; i++)
         mvwaddch(w, 1, x + 1 + i, i < fill ? '#' : '.');
      mvwprintw(w, 1, x + 1 + barW, "]%4.0f%%", done * 100);
   }
   wnoutrefresh(w);
}

/* ---- the task table ---- */

int Panels_tableRows(int height) {
   return height > 2 ? height - 2 : 0;
}

/* the sort's mark after its column's header and its name in the title: a triangle,
 * or " ^" and " v" without UTF-8 */
static const char *sortMark(const Board *b) {
   if (b->unicode)
      return b->descending ? "\u25bc" : "\u25b2";
   return b->descending ? " v" : " ^";
}

static int sortMarkWidth(const Board *b) {
   return b->unicode ? 1 : 2;
}

/* the column that shows the value the table is sorted on; COLUMN_COUNT for none */
static Column sortedColumn(SortKey k) {
   switch (k) {
   case SORT_ID: return COLUMN_ID;
   case SORT_SHARE: return COLUMN_SHARE;
   case SORT_LATENCY: return COLUMN_LATENCY;
   case SORT_TRIALS: return COLUMN_TRIALS;
   case SORT_ROOFLINE: return COLUMN_ROOF;
   default: return COLUMN_COUNT;
   }
}

bool Panels_columnSort(Column c, SortKey *k) {
   for (int s = 0; s < SORT_COUNT && c < COLUMN_COUNT; s++)
      if (sortedColumn((SortKey)s) == c) {
         *k = (SortKey)s;
         return true;
      }
   return false;
}

void Panels_tableColumns(const Board *b, int cols, int width[COLUMN_COUNT]) {
   Layout_tableColumns(cols, sortMarkWidth(b), Board_content(b).nameWidth, b->hidden, width);
}

/* Appends text (of `cols` display columns) to t in column c, `width` wide, aligned as
 * the column is, after a space from the column before; nothing for a column not
 * shown (width 0). */
static void addCell(TextBuf *t, Column c, int width, const char *text, int cols) {
   if (width <= 0)
      return;
   int pad = width > cols ? width - cols : 0;
   const char *space = c > 0 ? " " : "";
   if (Layout_columns[c].left)
      TextBuf_add(t, "%s%s%*s", space, text, pad, "");
   else
      TextBuf_add(t, "%s%*s%s", space, pad, "", text);
}

/* the row of column heads, the sorted one marked */
static void headRow(const Board *b, const int *width, char *line, size_t size) {
   TextBuf t = TextBuf_over(line, size);
   for (int c = 0; c < COLUMN_COUNT; c++) {
      const char *name = Layout_columns[c].name;
      char head[32];
      int cols = (int)strlen(name);
      if ((Column)c == sortedColumn(b->sort)) {
         snprintf(head, sizeof head, "%s%s", name, sortMark(b));
         cols += sortMarkWidth(b);
      } else {
         snprintf(head, sizeof head, "%s", name);
      }
      addCell(&t, (Column)c, width[c], head, cols);
   }
}

/* task t's row; the cells are ASCII, the description cut to its width with '~';
 * total is Board_weightedTotal's, which the share is taken of */
static void taskRow(const Board *b, int t, double total, const int *width, char *line, size_t size) {
   const TuneTaskView *tv = &b->view.tasks[t];
   char cell[COLUMN_COUNT][256];
   snprintf(cell[COLUMN_ID], sizeof cell[0], "%d", t);
   snprintf(cell[COLUMN_TASK], sizeof cell[0], "%s", TuneView_describe(&b->view, t));
   int desc = width[COLUMN_TASK];
   if ((int)strlen(cell[COLUMN_TASK]) > desc && desc < (int)sizeof cell[0]) {
      cell[COLUMN_TASK][desc - 1] = '~';
      cell[COLUMN_TASK][desc] = '\0';
   }
   snprintf(cell[COLUMN_WEIGHT], sizeof cell[0], "%g", tv->weight);
   ms(cell[COLUMN_LATENCY], sizeof cell[0], tv->best, 4);
   /* the best was measured while the GPU slowed down: it may be better than it looks */
   if (tv->bestThrottled)
      strcat(cell[COLUMN_LATENCY], "!");
   double g = tv->flops / tv->best / 1e9;
   if (isnan(g))
      snprintf(cell[COLUMN_GFLOPS], sizeof cell[0], "-");
   else
      snprintf(cell[COLUMN_GFLOPS], sizeof cell[0], "%.0f", g);
   snprintf(cell[COLUMN_TRIALS], sizeof cell[0], "%d", tv->trials);
   double share = Board_roofline(b, t);
   if (isnan(share))
      snprintf(cell[COLUMN_ROOF], sizeof cell[0], "-");
   else
      snprintf(cell[COLUMN_ROOF], sizeof cell[0], "%.0f%%", share * 100);
   double part = tv->weight * tv->best / total;
   if (isnan(part))
      snprintf(cell[COLUMN_SHARE], sizeof cell[0], "-");
   else
      snprintf(cell[COLUMN_SHARE], sizeof cell[0], "%.0f%%", part * 100);
   int idle = Board_idleRounds(b, t);
   if (idle < 0)
      snprintf(cell[COLUMN_IDLE], sizeof cell[0], "-");
   else
      snprintf(cell[COLUMN_IDLE], sizeof cell[0], "%d", idle);
   snprintf(cell[COLUMN_PRIO], sizeof cell[0], "%g", tv->priority);
   snprintf(cell[COLUMN_STATE], sizeof cell[0], "%s", Board_taskState(b, t));
   /* a weight or priority such as 0.125 shows its first digits */
   cell[COLUMN_WEIGHT][width[COLUMN_WEIGHT]] = '\0';
   cell[COLUMN_PRIO][width[COLUMN_PRIO]] = '\0';
   TextBuf text = TextBuf_over(line, size);
   for (int c = 0; c < COLUMN_COUNT; c++)
      addCell(&text, (Column)c, width[c], cell[c], (int)strlen(cell[c]));
}

void Panels_table(WINDOW *w, Board *b) {
   const TuneView *v = &b->view;
   int rows = getmaxy(w), cols = getmaxx(w);
   werase(w);
   int shown = Panels_tableRows(rows);
   Board_move(b, 0, shown);
   int last = b->top + shown < b->nrows ? b->top + shown : b->nrows;
   char filter[BOARD_TEXT_MAX + 48] = "";
   if (*b->filter)
      snprintf(filter, sizeof filter, "  filter: %s (%d of %d)", b->filter, b->nrows, v->ntasks);
   /* a replay has no engine: only the keys that work in it */
   titleBar(w, " Tasks %d-%d/%d%s  sort: %s%s%s  [s]ort [enter] details%s", b->nrows ? b->top + 1 : 0, last,
            b->nrows, filter, SortKey_name(b->sort), sortMark(b), b->follow ? "  following" : "",
            b->replay ? "" : " [+/-] priority [f]ocus");
   int width[COLUMN_COUNT];
   Panels_tableColumns(b, cols, width);
   double total = Board_weightedTotal(b);
   char line[1024];
   headRow(b, width, line, sizeof line);
   wattron(w, A_BOLD);
   mvwaddstr(w, 1, 0, line);
   wattroff(w, A_BOLD);
   if (b->nrows == 0 && *b->filter && shown > 0)
      mvwprintw(w, 2, 0, "no task contains '%s' (/ or F4 changes the filter)", b->filter);
   for (int r = 0; r < shown && b->top + r < b->nrows; r++) {
      int t = b->order[b->top + r];
      const char *state = Board_taskState(b, t);
      attr_t a = t == b->selected ? A_REVERSE : A_NORMAL;
      if (t != b->selected && strcmp(state, "tuning") == 0)
         a = pairAttr(PAIR_ACCENT) | A_BOLD;
      else if (t != b->selected && (strcmp(state, "paused") == 0 || strcmp(state, "excluded") == 0))
         a = A_DIM;
      taskRow(b, t, total, width, line, sizeof line);
      wattron(w, a);
      mvwaddnstr(w, 2 + r, 0, line, cols);
      if (t == b->selected)
         mvwchgat(w, 2 + r, 0, cols, A_REVERSE, 0, NULL);
      wattroff(w, a);
   }
   wnoutrefresh(w);
}

/* ---- curves ---- */

static const char *const curveTitles[CURVE_COUNT] = {
   "estimated total latency (ms) / trials",
   "estimated total latency (ms) / time (m:ss)",
   "best (ms) and each measurement / its trials",
};

/* a plot row of cells, each in the attribute of the series that owns it */
static void plotRow(WINDOW *w, int y, int x, const char *text, const signed char *owner, int cells,
                    const attr_t *attrs) {
   wmove(w, y, x);
   const char *p = text;
   for (int i = 0; i < cells && *p; i++) {
      int len = 1;
      while (p[len] && (p[len] & 0xC0) == 0x80)
         len++;
      attr_t a = owner[i] >= 0 ? attrs[owner[i]] : A_NORMAL;
      wattron(w, a);
      waddnstr(w, p, len);
      wattroff(w, a);
      p += len;
   }
}

/* An x axis' label: Axis_label's, or for time m:ss under an hour, h:mm and an h
 * from one on. */
static void axisLabel(double x, bool time, char *buf, size_t size) {
   if (!time) {
      Axis_label(x, buf, size);
      return;
   }
   long t = (long)(x + 0.5);
   if (t < 3600)
      snprintf(buf, size, "%ld:%02ld", t / 60, t % 60);
   else
      snprintf(buf, size, "%ld:%02ldh", t / 3600, t / 60 % 60);
}

void Panels_plot(WINDOW *w, int top, int h, const char *title, const ChartSeries *series, int nseries,
                 const PlotOptions *o) {
   int cols = getmaxx(w);
   wattron(w, A_BOLD);
   mvwaddnstr(w, top, 0, title, cols - 1);
   wattroff(w, A_BOLD);
   int ph = h - 2, pw = cols - 9;
   if (ph < 1 || pw < 4)
      return;
   double ylo = INFINITY, yhi = -INFINITY, xlo = INFINITY, xhi = -INFINITY;
   for (int k = 0; k < nseries; k++)
      for (int i = 0; i < series[k].n; i++) {
         double y = series[k].y[i];
         if (isnan(y) || (o->logY && !(y > 0)))
            continue;
         ylo = fmin(ylo, y);
         yhi = fmax(yhi, y);
         xlo = fmin(xlo, series[k].x[i]);
         xhi = fmax(xhi, series[k].x[i]);
      }
   if (!(ylo <= yhi)) {
      mvwaddnstr(w, top + 1 + ph / 2, 8, o->empty, pw);
      return;
   }
   AxisScale scale = Axis_scale(ylo, yhi, o->logY);
   double y0 = scale.lo, y1 = scale.hi;
   if (!(xhi > xlo))
      xhi = xlo + 1;
   /* a log scale plots log10 of the values */
   ChartSeries *shown = xCalloc((size_t)nseries + 1, sizeof *shown);
   double **logs = xCalloc((size_t)nseries + 1, sizeof *logs);
   for (int k = 0; k < nseries; k++) {
      shown[k] = series[k];
      if (!o->logY)
         continue;
      logs[k] = xCalloc((size_t)series[k].n + 1, sizeof *logs[k]);
      for (int i = 0; i < series[k].n; i++)
         logs[k][i] = series[k].y[i] > 0 ? log10(series[k].y[i]) : NAN;
      shown[k].y = logs[k];
   }
   char **rowText = xCalloc((size_t)ph, sizeof *rowText);
   for (int r = 0; r < ph; r++)
      rowText[r] = xMalloc((size_t)pw * 3 + 1);
   signed char *owner = xMalloc((size_t)pw * (size_t)ph);
   Chart_plotSeries(shown, nseries, xlo, xhi, o->logY ? log10(y0) : y0, o->logY ? log10(y1) : y1, pw, ph, o->style,
                    rowText, owner);
   char (*labels)[CHART_LABEL_MAX] = xCalloc((size_t)ph, sizeof *labels);
   Chart_yLabels(&scale, ph, o->style, labels);
   for (int r = 0; r < ph; r++) {
      if (labels[r][0])
         mvwprintw(w, top + 1 + r, 0, "%6s", labels[r]);
      mvwaddch(w, top + 1 + r, 6, o->style == CHART_BRAILLE ? ' ' : '|');
      plotRow(w, top + 1 + r, 8, rowText[r], owner + (size_t)r * (size_t)pw, pw, o->attrs);
      free(rowText[r]);
   }
   free(rowText);
   free(owner);
   free(labels);
   for (int k = 0; k < nseries; k++)
      free(logs[k]);
   free(logs);
   free(shown);
   char label[48];
   axisLabel(xlo, o->time, label, sizeof label);
   mvwaddstr(w, top + 1 + ph, 8, label);
   axisLabel(xhi, o->time, label, sizeof label);
   mvwaddstr(w, top + 1 + ph, cols - 1 - (int)strlen(label), label);
}

/* Series in the colour of good news. */
static void plot(WINDOW *w, int top, int h, const char *title, const ChartSeries *series, int nseries,
                 ChartStyle style, bool time, bool log) {
   attr_t good[2] = { pairAttr(PAIR_GOOD), pairAttr(PAIR_GOOD) };
   PlotOptions o = { .style = style, .time = time, .logY = log, .attrs = good, .empty = "(no point yet)" };
   Panels_plot(w, top, h, title, series, nseries > 2 ? 2 : nseries, &o);
}

/* The task's best so far (ms) as steps over its measurements: each improvement, at
 * the trial that measured it, holds until the next one and to the last trial. */
static int steps(const TuneTaskView *t, double *x, double *y) {
   int n = 0;
   double best = NAN;
   for (int i = 0; i < t->trials; i++) {
      double ms = t->measured[i] * 1e3;
      if (!(ms < best || (isnan(best) && !isnan(ms))))
         continue;
      if (n > 0) {
         x[n] = i + 1;
         y[n++] = best;
      }
      x[n] = i + 1;
      y[n++] = best = ms;
   }
   if (n > 0 && x[n - 1] < t->trials) {
      x[n] = t->trials;
      y[n++] = best;
   }
   return n;
}

/* the task's measurements, ms against the task's trials (a failed one NAN) */
static int measurements(const TuneTaskView *t, double *x, double *y) {
   for (int i = 0; i < t->trials; i++) {
      x[i] = i + 1;
      y[i] = t->measured[i] * 1e3;
   }
   return t->trials;
}

void Panels_curves(WINDOW *w, const Board *b) {
   const TuneView *v = &b->view;
   int rows = getmaxy(w);
   werase(w);
   titleBar(w, " Curves%s  [c] next  [L] %s scale", b->logScale ? " (log)" : "", b->logScale ? "linear" : "log");
   ChartStyle style = b->unicode ? CHART_BRAILLE : CHART_ASCII;
   int count = (rows - 1) / 7;
   count = count < 1 ? 1 : count > CURVE_COUNT ? CURVE_COUNT : count;
   int each = (rows - 1) / count;
   const TuneTaskView *task = &v->tasks[b->selected];
   int cap = 2 * task->trials + 2;
   cap = v->nseries > cap ? v->nseries : cap;
   double *x = xCalloc((size_t)cap + 1, sizeof *x), *y = xCalloc((size_t)cap + 1, sizeof *y);
   double *mx = xCalloc((size_t)task->trials + 1, sizeof *mx), *my = xCalloc((size_t)task->trials + 1, sizeof *my);
   for (int i = 0; i < count; i++) {
      CurveKind k = (CurveKind)((b->curve + i) % CURVE_COUNT);
      ChartSeries series[2] = { { x, y, 0, true, '*' } };
      int nseries = 1;
      char title[128];
      if (k == CURVE_TASK) {
         /* the best as steps under each measurement's mark */
         series[0] = (ChartSeries){ x, y, steps(task, x, y), true, 0 };
         series[nseries++] = (ChartSeries){ mx, my, measurements(task, mx, my), false, '*' };
         snprintf(title, sizeof title, "task %d %s", b->selected, curveTitles[k]);
      } else {
         for (int p = 0; p < v->nseries; p++) {
            x[series[0].n] = k == CURVE_TRIALS ? v->series[p].trials : v->series[p].elapsed;
            y[series[0].n++] = v->series[p].latencyMs;
         }
         snprintf(title, sizeof title, "%s", curveTitles[k]);
      }
      plot(w, 1 + i * each, each, title, series, nseries, style, k == CURVE_TIME, b->logScale);
   }
   free(x);
   free(y);
   free(mx);
   free(my);
   wnoutrefresh(w);
}

/* ---- draft vs verify ---- */

static void num(char *buf, size_t size, double v) {
   if (isnan(v))
      snprintf(buf, size, "-");
   else
      snprintf(buf, size, "%.2f", v);
}

static void squeezeSpaces(char *s) {
   char *to = s;
   for (const char *from = s; *from; from++)
      if (!(from[0] == ' ' && from[1] == ' '))
         *to++ = *from;
   *to = '\0';
}

void Panels_drafts(WINDOW *w, const Board *b) {
   const TuneView *v = &b->view;
   int rows = getmaxy(w), cols = getmaxx(w);
   werase(w);
   titleBar(w, " Draft vs verify");
   int row = 1;
   if (v->acceptance.rounds == 0 && v->haveSearch && v->lastSearch.drafts == 0 && strcmp(v->policy, "pruner") != 0) {
      mvwprintw(w, row++, 0, "no drafts: policy %s", v->policy);
   } else {
      double acc[512];
      int n = 0, from = v->nseries > 512 ? v->nseries - 512 : 0;
      for (int i = from; i < v->nseries; i++)
         acc[n++] = v->series[i].acceptance;
      char spark[2048], last[16], mean[16];
      int width = cols - 16;
      Chart_sparkline(acc, n, 0, 1, width > 0 ? width : 1, b->unicode ? CHART_BRAILLE : CHART_ASCII, spark,
                      sizeof spark);
      num(last, sizeof last, n ? acc[n - 1] : NAN);
      num(mean, sizeof mean, TuneMean_value(&v->acceptance));
      mvwaddstr(w, row, 0, "acceptance ");
      wattron(w, pairAttr(PAIR_ACCENT));
      waddstr(w, spark);
      wattroff(w, pairAttr(PAIR_ACCENT));
      wprintw(w, " %s", last);
      row++;
      if (row < rows)
         mvwprintw(w, row++, 0, "  mean %s over %d rounds", mean, v->acceptance.rounds);
   }
   char tau[16], tauMean[16], draft[16], verify[16];
   num(tau, sizeof tau, v->nseries ? v->series[v->nseries - 1].tau : NAN);
   num(tauMean, sizeof tauMean, TuneMean_value(&v->tau));
   num(draft, sizeof draft, TuneMean_value(&v->draftRank));
   num(verify, sizeof verify, TuneMean_value(&v->verifyRank));
   if (row < rows)
      mvwprintw(w, row++, 0, "tau PSA/%s %s mean %s", v->costModel, tau, tauMean);
   if (row < rows)
      mvwprintw(w, row++, 0, "pairs PSA %s %s %s", draft, v->costModel, verify);
   if (row < rows && v->haveSearch)
      mvwprintw(w, row++, 0, "round %d: %d/%d from drafts", v->searchRound, v->lastSearch.fromDrafts,
                v->lastSearch.picks);
   if (row < rows && v->haveSearch)
      mvwprintw(w, row++, 0, "kept %d/%d, %d%s drafts", v->lastSearch.kept, v->lastSearch.population,
                v->lastSearch.drafts, v->lastSearch.drafted ? " new" : "");
   if (row < rows && v->modelFits > 0) {
      if (*v->modelError)
         wattron(w, pairAttr(PAIR_BAD));
      mvwprintw(w, row++, 0, "model: %d fits, %d samples%s", v->modelFits, v->modelSamples,
                *v->modelError ? ", failing" : "");
      if (*v->modelError)
         wattroff(w, pairAttr(PAIR_BAD));
   }
   for (int i = 0; i < Board_fleetLines(b) && row < rows; i++) {
      char line[512];
      Board_fleetLine(b, i, line, sizeof line);
      bool retired = strncmp(line, "  retired", 9) == 0;
      if (!retired && (int)strlen(line) > cols)
         squeezeSpaces(line);   /* "a  b" to "a b": the counts before the panel's edge */
      if (retired)
         wattron(w, pairAttr(PAIR_BAD));
      mvwaddnstr(w, row++, 0, line, cols);
      if (retired)
         wattroff(w, pairAttr(PAIR_BAD));
   }
   wnoutrefresh(w);
}

/* ---- log and hints ---- */

void Panels_log(WINDOW *w, const Board *b) {
   int rows = getmaxy(w), cols = getmaxx(w);
   werase(w);
   titleBar(w, " Log");
   int shown = rows - 1, first = b->nlog > shown ? b->nlog - shown : 0;
   for (int i = first; i < b->nlog; i++) {
      const char *line = Board_logLine(b, i);
      bool bad = strncmp(line, "refused", 7) == 0 || strstr(line, "failed") != NULL;
      if (bad)
         wattron(w, pairAttr(PAIR_BAD));
      mvwaddnstr(w, 1 + i - first, 0, line, cols);
      if (bad)
         wattroff(w, pairAttr(PAIR_BAD));
   }
   wnoutrefresh(w);
}

/* the search or filter being typed, the cursor after it */
static void prompt(WINDOW *w, const Board *b) {
   int cols = getmaxx(w);
   const BoardPrompt *p = &b->prompt;
   bool search = p->kind == PROMPT_SEARCH;
   mvwprintw(w, 0, 0, "%s: %s", search ? "search" : "filter", p->text);
   int x = getcurx(w);
   const char *help = search ? "Enter: done  F3: next  Esc: back" : "Enter: done (empty: every task)  Esc: back";
   wattron(w, A_DIM);
   if (x + 3 < cols)
      mvwaddnstr(w, 0, x + 2, b->message[0] ? b->message : help, cols - x - 3);
   wattroff(w, A_DIM);
   wmove(w, 0, x < cols ? x : cols - 1);
}

void Panels_hints(WINDOW *w, const Board *b) {
   int cols = getmaxx(w);
   werase(w);
   if (b->prompt.kind != PROMPT_NONE) {
      prompt(w, b);
   } else if (b->message[0]) {
      wattron(w, A_BOLD);
      mvwaddnstr(w, 0, 0, b->message, cols);
      wattroff(w, A_BOLD);
   } else if (b->replay) {
      mvwaddnstr(w, 0, 0, "F1:help  F3:search  F4:filter  F6:sort  F10:quit  space:pause  ,/.:speed  [/]:round  "
                 "R:restart  e:end  l:log  ::console", cols);
   } else {
      mvwaddnstr(w, 0, 0, "F1:help  F3:search  F4:filter  F5:follow  F6:sort  F10:quit  space:pause  +/-:prio  "
                 "f:focus  m:model  enter:details  l:log  ::console", cols);
   }
   wnoutrefresh(w);
}

/* ---- wrapping ---- */

/* display columns of the first n bytes of a UTF-8 string without tabs */
static int columnsOf(const char *s, size_t n) {
   int c = 0;
   for (size_t i = 0; i < n; i++)
      c += ((unsigned char)s[i] & 0xc0) != 0x80;
   return c;
}

/* the byte length of s's first `cols` display columns (s has no tabs or newlines) */
static size_t bytesFor(const char *s, size_t len, int cols) {
   size_t i = 0;
   for (int c = 0; i < len; i++) {
      if (((unsigned char)s[i] & 0xc0) != 0x80) {
         if (c == cols)
            break;
         c++;
      }
   }
   return i;
}

char *Panels_wrap(const char *text, int width) {
   if (width < 2)
      width = 2;
   char *buf = NULL;
   size_t size = 0;
   FILE *out = open_memstream(&buf, &size);
   if (!out)
      fatal("cannot wrap text: out of memory");
   const char *p = text;
   for (;;) {
      const char *end = strchr(p, '\n');
      size_t len = end ? (size_t)(end - p) : strlen(p);
      /* the line with its tabs expanded */
      size_t cap = len * 8 + 1, n = 0;
      char *line = xMalloc(cap);
      int col = 0;
      for (size_t i = 0; i < len; i++) {
         if (p[i] == '\t') {
            do
               line[n++] = ' ';
            while (++col % 8);
            continue;
         }
         line[n++] = p[i];
         col += ((unsigned char)p[i] & 0xc0) != 0x80;
      }
      line[n] = '\0';
      /* the continuation's indentation: a table's second column (after the last gap
       * of two spaces or more within the width), else the line's own */
      int indent = 0;
      while (indent < (int)n && line[indent] == ' ')
         indent++;
      if (columnsOf(line, n) > width) {
         size_t lim = bytesFor(line, n, width);
         for (size_t i = (size_t)indent + 1; i + 1 < lim; i++)
            if (line[i] == ' ' && line[i - 1] == ' ' && line[i + 1] != ' ' &&
                columnsOf(line, i + 1) <= width / 2)
               indent = columnsOf(line, i + 1);
      }
      if (indent > width / 2)
         indent = width / 2;
      const char *rest = line;
      size_t restLen = n;
      bool first = true;
      while (first || restLen > 0) {
         int room = first ? width : width - indent;
         if (!first)
            fprintf(out, "%*s", indent, "");
         if (columnsOf(rest, restLen) <= room) {
            fprintf(out, "%.*s", (int)restLen, rest);
            break;
         }
         size_t fit = bytesFor(rest, restLen, room), cut = fit;
         /* the last space that fits, and not the indentation's */
         while (cut > 0 && rest[cut] != ' ')
            cut--;
         size_t skip = 0;
         if (cut > 0 && !(first && (int)cut <= indent)) {
            skip = 1;
         } else {
            cut = fit;
         }
         fprintf(out, "%.*s\n", (int)cut, rest);
         rest += cut + skip;
         restLen -= cut + skip;
         while (restLen > 0 && *rest == ' ') {
            rest++;
            restLen--;
         }
         first = false;
      }
      free(line);
      if (!end)
         break;
      fprintf(out, "\n");
      p = end + 1;
   }
   if (fclose(out) != 0 || !buf)
      fatal("cannot wrap text: out of memory");
   return buf;
}

char *Panels_text(WINDOW *w) {
   int rows = getmaxy(w), cols = getmaxx(w);
   size_t cap = (size_t)rows * ((size_t)cols * 4 + 2) + 1, len = 0;
   char *out = xMalloc(cap);
   wchar_t *line = xCalloc((size_t)cols + 1, sizeof *line);
   for (int r = 0; r < rows; r++) {
      int n = mvwinnwstr(w, r, 0, line, cols);
      if (n < 0)
         n = 0;
      line[n] = 0;
      while (n > 0 && line[n - 1] == L' ')
         line[--n] = 0;
      for (int i = 0; i < n; i++) {
         char mb[MB_LEN_MAX];
         int k = wctomb(mb, line[i]);
         if (k <= 0) {
            mb[0] = '?';
            k = 1;
         }
         memcpy(out + len, mb, (size_t)k);
         len += (size_t)k;
      }
      out[len++] = '\n';
   }
   out[len] = '\0';
   free(line);
   return out;
}
