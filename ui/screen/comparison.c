/* The comparison screen: the curves of several sessions on one braille (or lettered
 * ASCII) plot, the per-task table, the keys and the loop. */
#include "config.h"

#include "comparison.h"

#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "panels.h"
#include "terminal.h"
#include "util/xalloc.h"

/* the series' colour pairs, after the workbench's */
enum { PAIR_SERIES = 16, PAIR_TITLE_BAR = PAIR_SERIES + COMPARE_MAX };

static const short seriesColors[COMPARE_MAX] = {
   COLOR_GREEN, COLOR_CYAN, COLOR_YELLOW, COLOR_MAGENTA, COLOR_RED, COLOR_BLUE, COLOR_WHITE, COLOR_GREEN,
};

/* the fixed columns of a table row: ID, gutters, weight */
#define ROW_FIXED (4 + 2 + 1 + 6)
#define TOO_SMALL_COLS 40
#define TOO_SMALL_ROWS 12
/* from this width the curves against trials and against time stand side by side */
#define BOTH_CURVES_COLS 160

void Comparison_initColors(void) {
   start_color();
   use_default_colors();
   for (int k = 0; k < COMPARE_MAX; k++)
      init_pair((short)(PAIR_SERIES + k), seriesColors[k], -1);
   init_pair(PAIR_TITLE_BAR, COLOR_BLACK, COLOR_CYAN);
}

static int ratioOrder(const void *pa, const void *pb, void *ctx) {
   const CompareSet *set = ((const Comparison *)ctx)->set;
   int a = *(const int *)pa, b = *(const int *)pb;
   double ra = CompareSet_ratio(set, 1, a), rb = CompareSet_ratio(set, 1, b);
   bool fa = isfinite(ra), fb = isfinite(rb);
   if (fa != fb)
      return fa ? -1 : 1;
   if (fa && ra != rb)
      return ra < rb ? -1 : 1;
   return a - b;
}

static void sortTasks(Comparison *c) {
   for (int t = 0; t < c->set->ntasks; t++)
      c->order[t] = t;
   if (c->sort == COMPARISON_BY_RATIO)
      qsort_r(c->order, (size_t)c->set->ntasks, sizeof *c->order, ratioOrder, c);
}

void Comparison_init(Comparison *c, const CompareSet *set, bool color, bool unicode) {
   memset(c, 0, sizeof *c);
   c->set = set;
   c->color = color;
   c->unicode = unicode;
   c->order = xCalloc((size_t)(set->ntasks > 0 ? set->ntasks : 1), sizeof *c->order);
   sortTasks(c);
}

void Comparison_done(Comparison *c) {
   free(c->order);
   c->order = NULL;
}

static attr_t seriesAttr(const Comparison *c, int k) {
   return c->color ? COLOR_PAIR(PAIR_SERIES + k) | A_BOLD : A_BOLD;
}

static void titleBar(WINDOW *w, const Comparison *c, int row, const char *text) {
   attr_t a = c->color ? COLOR_PAIR(PAIR_TITLE_BAR) | A_BOLD : A_REVERSE;
   wattron(w, a);
   wmove(w, row, 0);
   for (int x = 0; x < getmaxx(w); x++)
      waddch(w, ' ');
   mvwaddnstr(w, row, 0, text, getmaxx(w));
   wattroff(w, a);
}

/* The curves against trials or time into rows [top, top + h) and columns [left, left +
 * width) of w. */
static void drawCurves(WINDOW *w, const Comparison *c, int top, int h, int left, int width, bool byTime) {
   const CompareSet *set = c->set;
   char title[96];
   snprintf(title, sizeof title, "estimated total latency (ms%s) / %s", c->logScale ? ", log scale" : "",
            byTime ? "time (m:ss)" : "trials");
   ChartSeries series[COMPARE_MAX];
   attr_t attrs[COMPARE_MAX];
   for (int k = 0; k < set->n; k++) {
      const CompareSide *s = &set->sides[k];
      series[k] = (ChartSeries){ .x = byTime ? s->seconds : s->trials, .y = s->latency, .n = s->npoints,
                                 .joined = true, .mark = (char)('A' + k) };
      attrs[k] = seriesAttr(c, k);
   }
   PlotOptions o = {
      .style = c->unicode && c->color ? CHART_BRAILLE : CHART_ASCII,
      .time = byTime,
      .logY = c->logScale,
      .attrs = attrs,
      .empty = "(no round has a total latency yet)",
   };
   WINDOW *area = derwin(w, h, width, top, left);
   if (!area)
      return;
   Panels_plot(area, 0, h, title, series, set->n, &o);
   delwin(area);
}

/* The task column's width: the text's, or less to fit the terminal. */
static int whatWidth(const CompareSet *set, int cols) {
   int width = cols - 1 - ROW_FIXED - set->n * 10 - (set->n - 1) * 10;
   if (width > COMPARE_WHAT_WIDTH)
      return COMPARE_WHAT_WIDTH;
   return width < 8 ? 8 : width;
}

static int maxTop(const Comparison *c) {
   int top = c->set->ntasks - (c->tableRows > 0 ? c->tableRows : 1);
   return top > 0 ? top : 0;
}

/* The table into rows [top, top + h): its title, head, task rows and total. */
static void drawTable(WINDOW *w, Comparison *c, int top, int h) {
   const CompareSet *set = c->set;
   int cols = getmaxx(w);
   if (!set->sameTasks) {
      mvwaddnstr(w, top, 0, "(no per-task table: the sessions tune different tasks)", cols - 1);
      c->tableRows = 0;
      return;
   }
   char line[512];
   snprintf(line, sizeof line, "best latency per task (us), and each session's over A's; by %s%s%s",
            c->sort == COMPARISON_BY_RATIO ? "B/A" : "ID", set->networkCause ? "; weights 1: " : "",
            set->networkCause ? set->networkCause : "");
   wattron(w, A_BOLD);
   mvwaddnstr(w, top, 0, line, cols - 1);
   wattroff(w, A_BOLD);
   int width = whatWidth(set, cols);
   CompareSet_tableHead(set, width, line, sizeof line);
   wattron(w, A_UNDERLINE);
   mvwaddnstr(w, top + 1, 0, line, cols - 1);
   wattroff(w, A_UNDERLINE);
   c->tableRows = h - 3 > 0 ? h - 3 : 0;
   if (c->top > maxTop(c))
      c->top = maxTop(c);
   if (c->top < 0)
      c->top = 0;
   for (int i = 0; i < c->tableRows && c->top + i < set->ntasks; i++) {
      CompareSet_taskRow(set, c->order[c->top + i], width, line, sizeof line);
      mvwaddnstr(w, top + 2 + i, 0, line, cols - 1);
   }
   CompareSet_totalRow(set, width, line, sizeof line);
   wattron(w, A_BOLD);
   mvwaddnstr(w, top + h - 1, 0, line, cols - 1);
   wattroff(w, A_BOLD);
}

static const char *const helpLines[] = {
   "pruner-tui --compare: the keys",
   "",
   "  q, F10           quit",
   "  t                the curve against trials or against time (from 160 columns",
   "                   both stand side by side)",
   "  L                the latency axis on a log scale or linear",
   "  s                the table by B's ratio to A (smallest first) or by task ID",
   "  Up, Down, j, k   scroll the table a row",
   "  PgUp, PgDn       scroll the table a page",
   "  Home, End, g, G  the table's first or last rows",
   "  F1, ?            this help; any key closes it",
   "",
   "Each session has a colour and its letter (the ASCII plot marks its points with",
   "the letter); ratios are each session's best over A's, below 1 when it is faster.",
};

void Comparison_draw(WINDOW *w, Comparison *c) {
   const CompareSet *set = c->set;
   int rows = getmaxy(w), cols = getmaxx(w);
   werase(w);
   if (cols < TOO_SMALL_COLS || rows < TOO_SMALL_ROWS) {
      mvwprintw(w, 0, 0, "%.*s", cols, "the terminal is too small; q quits");
      wnoutrefresh(w);
      return;
   }
   char line[1024];
   const SessionHeader *a = &set->sides[0].log.events[0].header;
   if (set->sameTasks)
      snprintf(line, sizeof line, "pruner-tui --compare: %d sessions of %s (%d tasks)", set->n, a->network,
               a->ntasks);
   else
      snprintf(line, sizeof line, "pruner-tui --compare: %d sessions of different tasks", set->n);
   titleBar(w, c, 0, line);
   if (c->help) {
      for (size_t i = 0; i < sizeof helpLines / sizeof helpLines[0] && (int)i + 2 < rows; i++)
         mvwaddnstr(w, (int)i + 2, 0, helpLines[i], cols - 1);
      wnoutrefresh(w);
      return;
   }
   for (int k = 0; k < set->n; k++) {
      CompareSet_sideLine(set, k, line, sizeof line);
      mvwaddnstr(w, 1 + k, 0, line, cols - 1);
      mvwchgat(w, 1 + k, 0, 1, A_BOLD, c->color ? (short)(PAIR_SERIES + k) : 0, NULL);
   }
   int top = 1 + set->n + 1, bottom = rows - 1;
   int space = bottom - top;
   int tableH = set->sameTasks ? set->ntasks + 3 : 1;
   if (tableH > space / 2)
      tableH = space / 2;
   int curvesH = space - tableH - 1;
   if (cols >= BOTH_CURVES_COLS) {
      drawCurves(w, c, top, curvesH, 0, cols / 2, false);
      drawCurves(w, c, top, curvesH, cols / 2, cols - cols / 2, true);
   } else {
      drawCurves(w, c, top, curvesH, 0, cols, c->byTime);
   }
   drawTable(w, c, bottom - tableH, tableH);
   mvwaddnstr(w, rows - 1, 0,
              cols >= BOTH_CURVES_COLS ? "q quit  L log scale  s sort  Up/Down PgUp/PgDn scroll  F1 help"
                                       : "q quit  t trials/time  L log scale  s sort  Up/Down PgUp/PgDn scroll  F1 help",
              cols - 1);
   wnoutrefresh(w);
}

bool Comparison_key(Comparison *c, int ch) {
   if (c->help) {
      c->help = false;
      return ch != 'q' && ch != KEY_F(10);
   }
   int page = c->tableRows > 1 ? c->tableRows - 1 : 1;
   switch (ch) {
   case 'q':
   case KEY_F(10): return false;
   case 't': c->byTime = !c->byTime; break;
   case 'L': c->logScale = !c->logScale; break;
   case 's':
      c->sort = c->sort == COMPARISON_BY_ID ? COMPARISON_BY_RATIO : COMPARISON_BY_ID;
      sortTasks(c);
      c->top = 0;
      break;
   case KEY_UP:
   case 'k': c->top--; break;
   case KEY_DOWN:
   case 'j': c->top++; break;
   case KEY_PPAGE: c->top -= page; break;
   case KEY_NPAGE: c->top += page; break;
   case KEY_HOME:
   case 'g': c->top = 0; break;
   case KEY_END:
   case 'G': c->top = maxTop(c); break;
   case KEY_F(1):
   case '?': c->help = true; break;
   default: break;
   }
   if (c->top > maxTop(c))
      c->top = maxTop(c);
   if (c->top < 0)
      c->top = 0;
   return true;
}

static volatile sig_atomic_t stopSignal;

static void onStopSignal(int sig) {
   (void)sig;
   stopSignal = 1;
}

int Comparison_run(const CompareSet *set) {
   setlocale(LC_ALL, "");
   if (Terminal_take(onStopSignal) < 0) {
      fprintf(stderr, "pruner-tui: cannot use the terminal '%s'; try --compare --text\n",
              getenv("TERM") ? getenv("TERM") : "");
      return 1;
   }
   cbreak();
   noecho();
   nonl();
   keypad(stdscr, TRUE);
   curs_set(0);
   set_escdelay(25);
   wtimeout(stdscr, 250);
   const char *noColor = getenv("NO_COLOR");
   bool color = has_colors() && !(noColor && *noColor);
   if (color)
      Comparison_initColors();
   const char *cs = nl_langinfo(CODESET);
   Comparison c;
   Comparison_init(&c, set, color, cs && strcmp(cs, "UTF-8") == 0);
   bool dirty = true;
   while (!stopSignal) {
      if (dirty) {
         Comparison_draw(stdscr, &c);
         doupdate();
         dirty = false;
      }
      int ch = wgetch(stdscr);
      if (ch == ERR)
         continue;
      dirty = true;
      if (ch == KEY_RESIZE)
         continue;
      if (!Comparison_key(&c, ch))
         break;
   }
   Comparison_done(&c);
   Terminal_give();
   return 0;
}
