/* The workbench's panels (DESIGN.md 3.8), each drawn from a board into its own curses
 * window: erase, write, wnoutrefresh; the caller ends the frame with one doupdate. The
 * first row of every panel but the header is its title bar. */
#ifndef HEADER_panels
#define HEADER_panels

#include <curses.h>

#include "board.h"
#include "chart.h"
#include "layout.h"

/* The colour pairs (when the terminal has colours and NO_COLOR is not set); without
 * them every panel uses reverse video and bold only. */
void Panels_initColors(bool color);

/* Network, device and whether simulated, policy and cost model, the run's state;
 * trials done of the budget, elapsed, ETA, estimated total latency, the round. */
void Panels_header(WINDOW *w, const Board *b);
/* The task-scheduler table in the board's order, the selected task highlighted;
 * scrolls the board so that the selection shows. */
void Panels_table(WINDOW *w, Board *b);
/* As many of the curves as fit (1 to 3), from b->curve on. */
void Panels_curves(WINDOW *w, const Board *b);
/* Acceptance per round as a sparkline, PSA-model rank agreement, drafts kept. */
void Panels_drafts(WINDOW *w, const Board *b);
/* The newest log lines. */
void Panels_log(WINDOW *w, const Board *b);
/* The console row while the console is closed: its last answer, else the main keys. */
void Panels_hints(WINDOW *w, const Board *b);

/* How Panels_plot draws: the dots, the x axis as times (seconds) when `time`, the y
 * axis on a log scale when logY, series k's cells in attrs[k], and `empty` when no
 * point has a y. */
typedef struct PlotOptions_ {
   ChartStyle style;
   bool time, logY;
   const attr_t *attrs;
   const char *empty;
} PlotOptions;
/* The series into rows [top, top + h) of w: the title (bold), the plot (Chart_plotSeries)
 * with Chart_yLabels' labels on the left, the x labels under it; the x axis from the
 * first point to the last of any series, y over Axis_scale's range of them (on a log
 * scale, where values of 0 or less do not show); the last column left blank, a gutter
 * before the panel on the right. */
void Panels_plot(WINDOW *w, int top, int h, const char *title, const ChartSeries *series, int nseries,
                 const PlotOptions *o);

/* text wrapped to `width` display columns (caller frees): tabs as spaces to the next
 * multiple of 8; a line too long breaks after its last space that fits, or within a
 * word longer than the width, the continuation indented as the line was (at most
 * width / 2); lines that fit, and the line breaks, stay as they are. */
char *Panels_wrap(const char *text, int width);

/* Rows of tasks the table shows in a window of `height` rows. */
int Panels_tableRows(int height);
/* The widths of the table's columns (Layout_tableColumns) in a window `cols` wide, as
 * Panels_table draws them for b. */
void Panels_tableColumns(const Board *b, int cols, int width[COLUMN_COUNT]);
/* The sort whose values column c shows, which its head marks; false for a column
 * that shows none. */
bool Panels_columnSort(Column c, SortKey *k);
/* The panel's text, row by row, as the terminal would show it (trailing blanks cut);
 * for tests and the screen dump. Caller frees. */
char *Panels_text(WINDOW *w);

#endif
