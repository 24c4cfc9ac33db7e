/* The workbench without a terminal: a fixed session (tests/data/tiny2-session.jsonl,
 * 6 rounds of the two tiny2 tasks) folded into a board, its panels drawn on a curses
 * screen over /dev/null at 80x24, 120x40 and 200x60 and read back, the board's log,
 * sort, selection and states, the console's commands on it (what they send to the
 * engine, what they answer, what they refuse), their completion, and readline fed a
 * byte at a time; the table's keys (navigation, sort and direction, filter, search,
 * follow) pressed on a board of ResNet-50's 27 tasks, and what the title, the column
 * heads and the rows then show; the mouse's clicks, double clicks and wheel on that
 * table, one of them through curses' own queue (ungetmouse); the pager's keys on the
 * help (less's movement, / ? n N and the match in reverse video), the board's whole
 * log past 2500 lines, the console's goto in a replay, and a replay's table title; the
 * comparison screen of two ResNet-50 sessions of sessions/ at 120x40 and 90 columns:
 * its legend, its lettered curves, the per-task rows as the text prints them, and its
 * keys (sort, scroll, time axis, log scale, help, quit). */
#include "config.h"

#include "testutil.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curses.h>

#include "board.h"
#include "commands.h"
#include "comparison.h"
#include "console.h"
#include "keys.h"
#include "layout.h"
#include "pager.h"
#include "panels.h"
#include "settings.h"
#include "util/paths.h"
#include "util/xalloc.h"

/* ---- the fixture: the session, its network and the devices ---- */

typedef struct {
   SessionLog log;
   Network net;
   DeviceSet devices;
   Board board;
   char sent[8][128];           /* what the commands sent to the engine */
   int nsent;
   char *pageTitle, *pageText;  /* what they paged */
   int quits;
   int seekRound;               /* a replay's last seek: the round, or -1 */
   double seekTime;             /* ... or the time, or -1 */
} Fixture;

static void fakeSend(void *ctx, const char *text) {
   Fixture *f = ctx;
   snprintf(f->sent[f->nsent++ % 8], sizeof f->sent[0], "%s", text);
}

static void fakePage(void *ctx, const char *title, char *text) {
   Fixture *f = ctx;
   free(f->pageTitle);
   free(f->pageText);
   f->pageTitle = xStrdup(title);
   f->pageText = text;
}

static void fakeQuit(void *ctx) {
   ((Fixture *)ctx)->quits++;
}

/* a replay's seeks, recorded; the board says where they went */
static void fakeSeekRound(void *ctx, int round) {
   Fixture *f = ctx;
   f->seekRound = round;
   f->board.view.rounds = round;
   f->board.clock = round * 2.0;
}

static void fakeSeekTime(void *ctx, double seconds) {
   Fixture *f = ctx;
   f->seekTime = seconds;
   f->board.view.rounds = 3;
   f->board.clock = seconds;
}

static int setUp(void **state) {
   Fixture *f = xCalloc(1, sizeof *f);
   SessionLog_init(&f->log);
   TestUtil_readSession(&f->log, "tests/data/tiny2-session.jsonl");
   TestUtil_loadNetwork(&f->net, "tests/data/tiny2.task");
   TestUtil_loadDevices(&f->devices);
   Board_init(&f->board, &f->log.events[0].header, &f->net, &f->devices);
   f->board.sessionPath = "tiny2-session.jsonl";
   f->board.actions = (BoardActions){ .ctx = f, .send = fakeSend, .page = fakePage, .quit = fakeQuit };
   for (int i = 1; i < f->log.count; i++)
      Board_apply(&f->board, &f->log.events[i]);
   f->board.clock = 3.0;
   *state = f;
   return 0;
}

static int tearDown(void **state) {
   Fixture *f = *state;
   Board_done(&f->board);
   Network_done(&f->net);
   DeviceSet_done(&f->devices);
   SessionLog_done(&f->log);
   free(f->pageTitle);
   free(f->pageText);
   free(f);
   return 0;
}

/* ---- events the fixture's session goes on with ---- */

static void apply(Board *b, SessionEvent e) {
   Board_apply(b, &e);
   SessionEvent_done(&e);
}

/* --resume went on at t */
static void resumed(Board *b, double t) {
   apply(b, (SessionEvent){ .kind = SESSION_RESUMED, .round = 6, .elapsed = t,
                            .resumed = { .trials = 12, .notice = xStrdup("") } });
}

/* the engine applied a command at t */
static void applied(Board *b, double t, const char *text) {
   apply(b, (SessionEvent){ .kind = SESSION_COMMAND, .round = 6, .elapsed = t,
                            .command = { .text = xStrdup(text), .applied = true, .why = xStrdup("") } });
}

/* ---- drawing on a screen over /dev/null ---- */

static SCREEN *screen;
static FILE *devnull;

static void openScreen(void) {
   setlocale(LC_ALL, "C.UTF-8");
   devnull = fopen("/dev/null", "r+");
   setenv("TERM", "xterm-256color", 1);
   screen = newterm("xterm-256color", devnull, devnull);
   assert_non_null(screen);
   set_term(screen);
   Panels_initColors(false);
}

static void closeScreen(void) {
   endwin();
   delscreen(screen);
   fclose(devnull);
}

static int setUpScreen(void **state) {
   openScreen();
   return setUp(state);
}

static int tearDownScreen(void **state) {
   closeScreen();
   return tearDown(state);
}

/* The text of the panel drawn by fn in rectangle r of a rows x cols screen. */
typedef void (*DrawFn)(WINDOW *w, Board *b);

/* w's text (dumped to standard error when TEST_SCREEN_DUMP is set); w deleted */
static char *windowText(WINDOW *w) {
   char *text = Panels_text(w);
   delwin(w);
   if (getenv("TEST_SCREEN_DUMP"))
      fprintf(stderr, "----\n%s", text);
   return text;
}

static char *drawn(Board *b, Rect r, DrawFn fn) {
   WINDOW *w = newwin(r.h, r.w, r.y, r.x);
   fn(w, b);
   return windowText(w);
}

static void header(WINDOW *w, Board *b) { Panels_header(w, b); }
static void table(WINDOW *w, Board *b) { Panels_table(w, b); }
static void curves(WINDOW *w, Board *b) { Panels_curves(w, b); }
static void drafts(WINDOW *w, Board *b) { Panels_drafts(w, b); }
static void logPanel(WINDOW *w, Board *b) { Panels_log(w, b); }
static void hints(WINDOW *w, Board *b) { Panels_hints(w, b); }

/* the n-th line of text (0 the first), copied */
static char *lineOf(const char *text, int n) {
   for (int i = 0; i < n && text; i++) {
      text = strchr(text, '\n');
      text = text ? text + 1 : NULL;
   }
   if (!text)
      return xStrdup("");
   const char *end = strchr(text, '\n');
   return xStrndup(text, end ? (size_t)(end - text) : strlen(text));
}

static void assertLine(const char *text, int n, const char *want) {
   char *line = lineOf(text, n);
   if (strcmp(line, want) != 0)
      fail_msg("line %d:\n got  '%s'\n want '%s'", n, line, want);
   free(line);
}

static void assertRect(Rect got, Rect want) {
   if (got.y != want.y || got.x != want.x || got.h != want.h || got.w != want.w)
      fail_msg("got y %d x %d h %d w %d, want y %d x %d h %d w %d", got.y, got.x, got.h, got.w, want.y, want.x,
               want.h, want.w);
}

static int countLines(const char *text) {
   int n = 0;
   for (; *text; text++)
      n += *text == '\n';
   return n;
}

/* The header: everything the issue asks of it, at every size. */
static void testHeader(void **state) {
   Fixture *f = *state;
   int sizes[][2] = { { 24, 80 }, { 40, 120 }, { 60, 200 } };
   for (int s = 0; s < 3; s++) {
      resizeterm(sizes[s][0], sizes[s][1]);
      Layout l;
      assert_int_equal(Layout_compute(sizes[s][0], sizes[s][1], &(LayoutContent){ 2, 59, 0 }, &l), 0);
      char *text = drawn(&f->board, l.header, header);
      char *row0 = lineOf(text, 0);
      assert_string_equal(strstr(row0, "tiny2 on h100_sxm SIMULATED  policy pruner  model pam") ? "ok" : row0, "ok");
      /* the state at the right end */
      assert_string_equal(row0 + strlen(row0) - strlen("[finished: budget]"), "[finished: budget]");
      free(row0);
      /* finished: no ETA; 3 s elapsed; the last round's estimate 0.0124998 ms */
      char *row1 = lineOf(text, 1);
      assert_non_null(strstr(row1, " trials 12/12  round 6  elapsed 0:00:03  ETA -  est. total 0.012 ms"));
      /* where there is room, the budget's progress at the right end: 12 of 12, a bar
       * of min(30, cols - 68 - 9) */
      if (sizes[s][1] >= 120)
         assert_string_equal(row1 + strlen(row1) - 37, "[##############################] 100%");
      else
         assert_null(strchr(row1, '#'));
      free(row1);
      free(text);
   }
   /* a checkpoint's name shows where it fits, and is left out, never cut, where not */
   free(f->board.view.checkpoint);
   f->board.view.checkpoint = xStrdup("models/pam-sim-t4-holdout5.ckpt");
   resizeterm(40, 120);
   char *text = drawn(&f->board, (Rect){ 0, 0, 2, 120 }, header);
   /* "[finished: budget]" at column room + 1, room = 120 - 16 - 3 = 101 */
   assertLine(text, 0, " pruner-tui  tiny2 on h100_sxm SIMULATED  policy pruner  model pam (pam-sim-t4-holdout5.ckpt)"
                       "         [finished: budget]");
   free(text);
   resizeterm(24, 80);
   text = drawn(&f->board, (Rect){ 0, 0, 2, 80 }, header);
   /* room = 80 - 16 - 3 = 61 */
   assertLine(text, 0, " tiny2 on h100_sxm SIMULATED  policy pruner  model pam        [finished: budget]");
   free(text);
}

/* The table at 80x24: 8 rows of which 2 tasks; hand-computed values. */
static void testTable(void **state) {
   Fixture *f = *state;
   resizeterm(24, 80);
   Layout l;
   LayoutContent c = Board_content(&f->board);
   /* two tasks; the longest key conv2d_n1_c8_h8_w8_k16_g1_r3x3_s1x1_p1,1,1,1_d1x1+bias+relu */
   assert_int_equal(c.tasks, 2);
   assert_int_equal(c.nameWidth, 59);
   Layout_compute(24, 80, &c, &l);
   /* the table its title, its heads and its 2 rows: no blank row */
   assert_int_equal(l.table.h, 4);
   char *text = drawn(&f->board, l.table, table);
   assert_int_equal(countLines(text), 4);
   /* rows 1 to 2 of 2; sorted by ID, ascending: the ID column's head is marked */
   assertLine(text, 0, " Tasks 1-2/2  sort: id\u25b2  [s]ort [enter] details [+/-] priority [f]ocus");
   /* the description 80 - 9 - 46 = 25 columns wide (Layout_tableColumns); the task
    * file names no task, so the table shows their keys, cut with '~' */
   assertLine(text, 1, "ID\u25b2 Task                        Wt  Lat(ms)  GFLOPS  Trials  Roof Prio State");
   /* task 0: best 4.1606e-6 s; 66560 FLOP / 4.1606e-6 s = 16.0 GFLOPS; roofline floor
    * max(66560 / 67e12, 4 * (1024 + 512 + 2048 + 64) / 3350e9) = 4.356e-9 s: 0% */
   assertLine(text, 2, "  0 dense_b1_m16_n64_k32+bias    2   0.0042      16       6    0%    1 ready");
   /* task 1: 7.48e-6 then 4.1786e-6 s: 149504 / 4.1786e-6 = 35.8 GFLOPS */
   assertLine(text, 3, "  1 conv2d_n1_c8_h8_w8_k16_g~    1   0.0042      36       6    0%    1 ready");
   free(text);
   /* at 120 columns the table is 76 wide: still no room for Share and Idle with the
    * description at 58 (the natural width 61 + 48 + 11 = 120) */
   resizeterm(40, 120);
   Layout_compute(40, 120, &c, &l);
   assertRect(l.table, (Rect){ 2, 0, 4, 76 });
   /* at 200: 120 wide, every column, the description 120 - 11 - 56 = 53; the shares
    * 2 x 4.1606 / (2 x 4.1606 + 4.1786) = 67% and 33% */
   resizeterm(60, 200);
   Layout_compute(60, 200, &c, &l);
   assertRect(l.table, (Rect){ 2, 0, 4, 120 });
   text = drawn(&f->board, l.table, table);
   assertLine(text, 1, "ID\u25b2 Task                                                    Wt  Lat(ms)  Share  GFLOPS  Trials  Roof "
                       "Idle Prio State");
   assertLine(text, 2, "  0 dense_b1_m16_n64_k32+bias                                2   0.0042    67%      16       6    0%    0    1 ready");
   /* each task's last round improved its best: idle 0 */
   assertLine(text, 3, "  1 conv2d_n1_c8_h8_w8_k16_g1_r3x3_s1x1_p1,1,1,1_d1x1+bi~    1   0.0042    33%      36       6    0%    0    1 ready");
   free(text);
   /* two more rounds of task 0 without a better best: idle 2; task 1 stays 0 */
   apply(&f->board, (SessionEvent){ .kind = SESSION_ROUND, .round = 7, .elapsed = 3.1,
                                    .roundStart = { .task = 0, .trials = 12 } });
   apply(&f->board, (SessionEvent){ .kind = SESSION_ROUND, .round = 8, .elapsed = 3.2,
                                    .roundStart = { .task = 0, .trials = 12 } });
   assert_int_equal(Board_idleRounds(&f->board, 0), 2);
   assert_int_equal(Board_idleRounds(&f->board, 1), 0);
}

/* The draft-vs-verify panel: the acceptance of the 6 rounds 0.5 0.5 1 0 1 0.5 as
 * levels round(7v): 4 4 7 0 7 4, i.e. U+2585 U+2585 U+2588 U+2581 U+2588 U+2585. */
static void testDrafts(void **state) {
   Fixture *f = *state;
   int sizes[][2] = { { 24, 80 }, { 40, 120 }, { 60, 200 } };
   for (int s = 0; s < 3; s++) {
      resizeterm(sizes[s][0], sizes[s][1]);
      Layout l;
      Layout_compute(sizes[s][0], sizes[s][1], &(LayoutContent){ 2, 59, 0 }, &l);
      char *text = drawn(&f->board, l.drafts, drafts);
      assertLine(text, 0, " Draft vs verify");
      char *acc = lineOf(text, 1);
      assert_string_equal(acc + strlen(acc) - strlen("▅▅█▁█▅ 0.50"), "▅▅█▁█▅ 0.50");
      assert_int_equal(strncmp(acc, "acceptance ", 11), 0);
      free(acc);
      assertLine(text, 2, "  mean 0.58 over 6 rounds");
      /* tau 0.0902 last, mean 0.0612; PSA's pairwise accuracy never defined here */
      assertLine(text, 3, "tau PSA/pam 0.09 mean 0.06");
      assertLine(text, 4, "pairs PSA - pam 0.83");
      assertLine(text, 5, "round 6: 1/2 from drafts");
      assertLine(text, 6, "kept 4/2052, 512 new drafts");
      assertLine(text, 7, "model: 6 fits, 12 samples");
      free(text);
   }
}

/* round r's end at t: two simulated devices, the second retired when retired is set */
static void fleetEnd(Board *b, int r, double t, bool retired) {
   SessionDevice *d = xCalloc(2, sizeof *d);
   d[0] = (SessionDevice){ xStrdup("sim:h100_sxm#1"), 31, 7.4, 0, false, xStrdup("") };
   d[1] = (SessionDevice){ xStrdup("sim:h100_sxm#2"), 9, 2.5, 3, retired,
                           xStrdup(retired ? "sim:h100_sxm is retired: it failed 3 or more programs in a row" : "") };
   apply(b, (SessionEvent){ .kind = SESSION_ROUND_END, .round = r, .elapsed = t,
                            .roundEnd = { .trials = 12, .latencyMs = NAN, .acceptance = NAN, .tau = NAN,
                                          .draftRank = NAN, .verifyRank = NAN, .ndevices = 2, .devices = d } });
}

/* A fleet's devices under the draft-vs-verify panel, as a round end tells them: what
 * each measured, its busy share of the run's time, its failures, and why one was
 * retired; the retirement goes into the log once. One device shows none. */
static void testFleet(void **state) {
   Fixture *f = *state;
   Board *b = &f->board;
   assert_int_equal(Board_fleetLines(b), 0);
   int nlog = b->nlog;
   fleetEnd(b, 7, 10.0, false);
   assert_int_equal(Board_fleetLines(b), 2);
   assert_int_equal(b->nlog, nlog);
   fleetEnd(b, 8, 10.0, true);
   assert_int_equal(Board_fleetLines(b), 3);
   char line[256];
   Board_fleetLine(b, 0, line, sizeof line);
   assert_string_equal(line, "sim:h100_sxm#1  measured 31  busy 74%  failed 0");
   Board_fleetLine(b, 1, line, sizeof line);
   assert_string_equal(line, "sim:h100_sxm#2  measured 9  busy 25%  failed 3");
   Board_fleetLine(b, 2, line, sizeof line);
   assert_string_equal(line, "  retired: it failed 3 or more programs in a row");
   assert_int_equal(b->nlog, nlog + 1);
   assert_string_equal(Board_logLine(b, b->nlog - 1),
                       "round 8: sim:h100_sxm is retired: it failed 3 or more programs in a row");
   fleetEnd(b, 9, 10.0, true);
   assert_int_equal(b->nlog, nlog + 1);

   resizeterm(40, 120);
   char *text = drawn(b, (Rect){ 0, 0, 12, 60 }, drafts);
   assertLine(text, 7, "model: 6 fits, 12 samples");
   assertLine(text, 8, "sim:h100_sxm#1  measured 31  busy 74%  failed 0");
   assertLine(text, 9, "sim:h100_sxm#2  measured 9  busy 25%  failed 3");
   assertLine(text, 10, "  retired: it failed 3 or more programs in a row");
   free(text);
   /* a panel narrower than a line: the counts still show, a space apart */
   text = drawn(b, (Rect){ 0, 0, 12, 44 }, drafts);
   assertLine(text, 8, "sim:h100_sxm#1 measured 31 busy 74% failed 0");
   free(text);
}

/* The curves: the estimated total against trials from 4 to 12 trials, 0.0201 down to
 * 0.0125 ms: the axis 0.012 .. 0.022 (Axis_niceRange: a step of 0.002), braille dots;
 * 0.0201 is 3.8 of 19 dot rows below the top: the second row's top dots (U+2809),
 * flat until the estimate first improves. */
static void testCurves(void **state) {
   Fixture *f = *state;
   /* a curves panel of 16 rows, 75 columns (the stacked layout's at 119x37 for
    * 27 tasks) */
   resizeterm(40, 120);
   Layout l = { .curves = { 18, 0, 16, 75 } };
   char *text = drawn(&f->board, l.curves, curves);
   assertLine(text, 0, " Curves  [c] next  [L] log scale");
   assertLine(text, 1, "estimated total latency (ms) / trials");
   assertLine(text, 2, " 0.022");
   char *row = lineOf(text, 3);
   /* the x axis from the first point to the last, 4 to 12 trials: the first point in
    * the first cell after the 8 columns of labels */
   assert_int_equal(strncmp(row, "        \xe2\xa0\x89", 11), 0);
   free(row);
   row = lineOf(text, 6);
   assert_int_equal(strncmp(row, " 0.012 ", 7), 0);
   free(row);
   /* the labels of the ends; the last column (74) left blank before the next panel */
   assertLine(text, 7, "        4                                                               12");
   /* two plots fit in 16 rows: the second is against time, 1 to 3 s as m:ss */
   assertLine(text, 8, "estimated total latency (ms) / time (m:ss)");
   assertLine(text, 14, "        0:01                                                          0:03");
   free(text);
   /* the ASCII fallback draws '*' and no braille */
   f->board.unicode = false;
   text = drawn(&f->board, l.curves, curves);
   assert_non_null(strchr(text, '*'));
   assert_null(strstr(text, "\xe2\xa0"));
   free(text);
   f->board.unicode = true;
   /* the third curve: the selected task's best as steps and each measurement marked.
    * Task 1's six medians (ms) 0.00752 0.01222 0.00749 0.00745 0.00418 0.00481 at its
    * trials 1 to 6, the best improving at trials 1, 3, 4 and 5: in ASCII on 0.004 ..
    * 0.014 over 5 rows, trials 1 .. 6 over 66 columns (trial x in column 13 (x - 1)),
    * the medians fall on rows 3 1 3 3 4 4 and the line holds row 3 from trial 1 to 5,
    * then row 4 to trial 6. */
   f->board.unicode = false;
   f->board.curve = CURVE_TASK;
   f->board.selected = 1;
   text = drawn(&f->board, l.curves, curves);
   assertLine(text, 1, "task 1 best (ms) and each measurement / its trials");
   char want[80];
   assertLine(text, 2, " 0.014|");
   snprintf(want, sizeof want, "      | %13s*", "");
   assertLine(text, 3, want);
   assertLine(text, 4, " 0.008|");
   snprintf(want, sizeof want, "      | *%s*%s*%s", ".........................", "............", ".............");
   assertLine(text, 5, want);
   snprintf(want, sizeof want, " 0.004| %52s*%s*", "", "............");
   assertLine(text, 6, want);
   assertLine(text, 7, "        1                                                                6");
   free(text);
   /* on a log scale: 0.002 .. 0.02 over the 5 rows; the decade 0.01 falls on row 1,
    * next to the top's label, so only the ends show; the fifth median, 2.72 rows
    * down, on row 3 with the best from then on, the sixth (2.48) on row 2 with the
    * bests before it */
   f->board.logScale = true;
   text = drawn(&f->board, l.curves, curves);
   assertLine(text, 0, " Curves (log)  [c] next  [L] linear scale");
   row = lineOf(text, 2);
   assert_int_equal(strncmp(row, "  0.02|", 7), 0);
   free(row);
   snprintf(want, sizeof want, "      | *%s*%s*%s%12s*", ".........................", "............", ".............",
            "");
   assertLine(text, 4, want);
   row = lineOf(text, 6);
   assert_int_equal(strncmp(row, " 0.002|", 7), 0);
   free(row);
   free(text);
   f->board.logScale = false;
   f->board.unicode = true;
}

/* The log: bests and the end, the newest at the bottom; the console row's hints. */
static void testLogAndHints(void **state) {
   Fixture *f = *state;
   resizeterm(60, 200);
   Layout l;
   Layout_compute(60, 200, &(LayoutContent){ 2, 59, 0 }, &l);
   /* under the table's 4 rows, on the left: the other 53 rows, 120 wide */
   assertRect(l.log, (Rect){ 6, 0, 53, 120 });
   char *text = drawn(&f->board, l.log, logPanel);
   assertLine(text, 0, " Log");
   /* 7 lines of log: 6 bests and the end; 9 rows show them all */
   assertLine(text, 1, "round 1 task 0: best 0.0063 ms (dense_b1_m16_n64_k32+bias)");
   assertLine(text, 6, "round 6 task 1: best 0.0042 ms (conv2d_n1_c8_h8_w8_k16_g1_r3x3_s1x1_p1,1,1,1_d1x1+bias+relu)");
   assertLine(text, 7, "finished: budget after 12 trials");
   free(text);
   text = drawn(&f->board, l.console, hints);
   assertLine(text, 0, "F1:help  F3:search  F4:filter  F5:follow  F6:sort  F10:quit  space:pause  +/-:prio  f:focus  "
                       "m:model  enter:details  l:log  ::console");
   free(text);
   snprintf(f->board.message, sizeof f->board.message, "error: unknown command 'frob' (help lists them)");
   text = drawn(&f->board, l.console, hints);
   assertLine(text, 0, "error: unknown command 'frob' (help lists them)");
   free(text);
   f->board.message[0] = '\0';
}

/* ---- the board ---- */

/* ---- wrapping ---- */

static void assertWrap(const char *text, int width, const char *want) {
   char *got = Panels_wrap(text, width);
   assert_string_equal(got, want);
   free(got);
}

static void testWrap(void **state) {
   (void)state;
   /* what fits stays, line breaks and empty lines too */
   assertWrap("short line\n\nx", 20, "short line\n\nx");
   /* at word boundaries */
   assertWrap("the quick brown fox jumps", 10, "the quick\nbrown fox\njumps");
   /* the continuation indented as the line: "  error: a" fits 12, then 10 a row */
   assertWrap("  error: a long message here", 12, "  error: a\n  long\n  message\n  here");
   /* a word longer than the width breaks inside */
   assertWrap("abcdefghijkl", 5, "abcde\nfghij\nkl");
   /* tabs to the next multiple of 8 */
   assertWrap("a\tb", 20, "a       b");
   /* UTF-8 counts by characters, not bytes */
   assertWrap("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9\xc3\xa9", 6,
              "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n\xc3\xa9\xc3\xa9\xc3\xa9");
   assertWrap("", 10, "");
}

/* ---- the settings file ---- */

static void assertBadSettings(const char *text, const char *want) {
   Settings s;
   Settings_default(&s);
   char *cause = NULL;
   assert_int_equal(Settings_parse(text, "w.conf", &s, &cause), -1);
   assert_string_equal(cause, want);
   free(cause);
}

static void testSettings(void **state) {
   (void)state;
   Settings s;
   Settings_default(&s);
   /* the defaults: every column, by ID ascending, the first curve, not following */
   char *text = Settings_format(&s);
   assert_string_equal(text, "# pruner-tui's workbench settings, written by the setup screen (F2) and on quitting\n"
                             "columns = Wt Lat(ms) Share GFLOPS Trials Roof Idle Prio State\n"
                             "sort = id\n"
                             "order = ascending\n"
                             "curve = trials\n"
                             "scale = linear\n"
                             "follow = no\n");
   free(text);
   /* comments, blanks, spaces and CRs; a later key wins; unnamed keys keep theirs */
   char *cause = NULL;
   assert_int_equal(Settings_parse("# mine\n\n  columns =Lat(ms)  Trials,State  # three\r\nsort = trials\n"
                                   "order = descending\nsort = roofline\ncurve = task\nscale = log\n",
                                   "w.conf", &s, &cause), 0);
   assert_int_equal(s.hidden, (1u << COLUMN_WEIGHT) | (1u << COLUMN_SHARE) | (1u << COLUMN_GFLOPS) |
                              (1u << COLUMN_ROOF) | (1u << COLUMN_IDLE) | (1u << COLUMN_PRIO));
   assert_int_equal(s.sort, SORT_ROOFLINE);
   assert_true(s.descending);
   assert_int_equal(s.curve, CURVE_TASK);
   assert_true(s.logScale);
   assert_false(s.follow);
   /* formatted and parsed again: the same */
   text = Settings_format(&s);
   Settings t;
   Settings_default(&t);
   assert_int_equal(Settings_parse(text, "w.conf", &t, &cause), 0);
   assert_memory_equal(&s, &t, sizeof s);
   free(text);
   /* each bad line named with its file and line, and what was expected */
   assertBadSettings("sort = id\nsort = speed\n", "w.conf:2: sort: expected id, share, latency, trials or roofline, found 'speed'");
   assertBadSettings("order = up", "w.conf:1: order: expected ascending or descending, found 'up'");
   assertBadSettings("\n\ncurve = x", "w.conf:3: curve: expected trials, time or task, found 'x'");
   assertBadSettings("scale = ln", "w.conf:1: scale: expected linear or log, found 'ln'");
   assertBadSettings("follow = 1", "w.conf:1: follow: expected yes or no, found '1'");
   assertBadSettings("columns = Wt Speed", "w.conf:1: columns: 'Speed' is not a column (Wt Lat(ms) Share GFLOPS Trials Roof Idle Prio State)");
   assertBadSettings("colour = red", "w.conf:1: unknown key 'colour' (columns, sort, order, curve, scale, follow)");
   assertBadSettings("sort id", "w.conf:1: expected KEY = VALUE, found 'sort id'");
   /* saved into a directory that does not exist yet, and loaded back; a missing file
    * is the defaults, a bad one names itself */
   char *dir = TestUtil_tempDir();
   char *path = xAsprintf("%s/pruner-tui/workbench.conf", dir);
   Settings_default(&t);
   assert_int_equal(Settings_load(path, &t, &cause), 0);
   Settings d;
   Settings_default(&d);
   assert_memory_equal(&t, &d, sizeof t);
   if (Settings_save(path, &s, &cause) < 0)
      fail_msg("%s", cause);
   assert_int_equal(Settings_load(path, &t, &cause), 0);
   assert_memory_equal(&s, &t, sizeof s);
   FILE *f = fopen(path, "w");
   fputs("sort = id\norder = sideways\n", f);
   fclose(f);
   assert_int_equal(Settings_load(path, &t, &cause), -1);
   char *want = xAsprintf("%s:2: order: expected ascending or descending, found 'sideways'", path);
   assert_string_equal(cause, want);
   free(want);
   free(cause);
   free(path);
   TestUtil_removeTree(dir);
   free(dir);
}

static void testBoard(void **state) {
   Fixture *f = *state;
   Board *b = &f->board;
   assert_int_equal(b->view.trials, 12);
   /* roofline: 4.3558e-9 / 4.1606e-6 for task 0 */
   assert_true(fabs(Board_roofline(b, 0) - (4.0 * 3648 / 3350e9) / 4.160606083350772e-06) < 1e-12);
   /* sorted by share (weight x best): task 0 (2 x 4.16e-6) before task 1 */
   Board_sort(b, SORT_SHARE);
   assert_int_equal(b->order[0], 0);
   Board_sort(b, SORT_LATENCY);   /* 4.1786e-6 > 4.1606e-6 */
   assert_int_equal(b->order[0], 1);
   assert_int_equal(b->order[1], 0);
   b->selected = 0;
   Board_move(b, -1, 8);          /* up from the last row */
   assert_int_equal(b->selected, 1);
   Board_move(b, -5, 8);          /* clamped */
   assert_int_equal(b->selected, 1);
   Board_sort(b, SORT_ID);
   char run[64];
   Board_runState(b, run, sizeof run);
   assert_string_equal(run, "finished: budget");
   assert_true(isnan(Board_eta(b)));
   assert_string_equal(Board_taskState(b, 0), "ready");
   b->replay = true;
   b->replayDone = true;
   Board_runState(b, run, sizeof run);
   assert_string_equal(run, "replay ended: budget");
   b->replay = false;
}

/* The state column tells what each task is doing: the round's task paused with the
 * whole run, the tasks outside a focus excluded. */
static void testStates(void **state) {
   Fixture *f = *state;
   Board *b = &f->board;
   resumed(b, 3.1);
   /* the last round tuned task 1 */
   assert_string_equal(Board_taskState(b, 1), "tuning");
   assert_string_equal(Board_taskState(b, 0), "ready");
   applied(b, 3.2, "pause");
   assert_string_equal(Board_taskState(b, 1), "paused");
   assert_string_equal(Board_taskState(b, 0), "ready");
   applied(b, 3.3, "resume");
   assert_string_equal(Board_taskState(b, 1), "tuning");
   applied(b, 3.4, "focus 1");
   assert_string_equal(Board_taskState(b, 0), "excluded");
   assert_string_equal(Board_taskState(b, 1), "tuning");
   /* at 80x24 the column holds the longest */
   resizeterm(24, 80);
   Layout l;
   Layout_compute(24, 80, &(LayoutContent){ 2, 59, 0 }, &l);
   char *text = drawn(b, l.table, table);
   assertLine(text, 2, "  0 dense_b1_m16_n64_k32+bias    2   0.0042      16       6    0%    1 excluded");
   free(text);
   applied(b, 3.5, "focus 0");
   assert_string_equal(Board_taskState(b, 0), "focused");
   applied(b, 3.6, "prio 0 0");
   assert_string_equal(Board_taskState(b, 0), "paused");
   applied(b, 3.7, "focus off");
   assert_string_equal(Board_taskState(b, 1), "tuning");
}

/* The ETA: the trials left at the rate of the time not spent paused. */
static void testEta(void **state) {
   Fixture *f = *state;
   Board *b = &f->board;
   resumed(b, 3.1);
   applied(b, 3.1, "budget 24");
   /* 12 trials in 3.1 s, 12 to go */
   assert_true(fabs(Board_eta(b) - 3.1) < 1e-9);
   applied(b, 4.1, "pause");
   assert_true(fabs(Board_eta(b) - 4.1) < 1e-9);
   /* a command applied while paused moves the run's time on, not the ETA */
   applied(b, 10.1, "prio 0 2");
   assert_true(fabs(Board_eta(b) - 4.1) < 1e-9);
   applied(b, 14.1, "resume");
   assert_true(fabs(Board_eta(b) - 4.1) < 1e-9);
   /* stopped while paused, then resumed: 1 s more paused */
   applied(b, 15.1, "pause");
   apply(b, (SessionEvent){ .kind = SESSION_FINISHED, .round = 6, .elapsed = 16.1,
                            .finished = { .why = SESSION_END_STOPPED } });
   resumed(b, 16.1);
   assert_true(fabs(Board_eta(b) - 5.1) < 1e-9);
}

/* ---- the table's keys, on ResNet-50's 27 tasks ---- */

/* The fixture over a board of models/resnet_50.task's tasks (no session), with no
 * round yet, but bests: task t's is ((7t mod 27) + 1) us, but for task 5, which has
 * none. 7 x 4 = 28 = 1 (mod 27), so task 23 (7 x 23 = 161 = 26 mod 27) has the
 * largest, 27 us, and task 0 the least, 1 us. Task t has t trials. Drawn at 80x24: 7
 * rows of tasks. */
#define RESNET_ROWS 7

static int setUpResnet(void **state) {
   openScreen();
   resizeterm(24, 80);
   Fixture *r = xCalloc(1, sizeof *r);
   SessionLog_init(&r->log);
   TestUtil_loadNetwork(&r->net, "models/resnet_50.task");
   TestUtil_loadDevices(&r->devices);
   char *keys[27];
   for (int t = 0; t < r->net.ntasks; t++)
      keys[t] = r->net.tasks[t].key;
   char network[] = "resnet_50", device[] = "a100_40", policy[] = "pruner", model[] = "pam", none[] = "";
   SessionHeader h = { .network = network, .networkFile = r->net.path, .device = device, .simulated = true,
                       .policy = policy, .costModel = model, .checkpoint = none, .trialBudget = 1000,
                       .measuresPerRound = 10, .ntasks = r->net.ntasks, .tasks = keys };
   assert_int_equal(h.ntasks, 27);
   Board_init(&r->board, &h, &r->net, &r->devices);
   for (int t = 0; t < 27; t++) {
      for (int i = 0; i < t; i++)
         apply(&r->board, (SessionEvent){ .kind = SESSION_MEASURE, .measure = { .task = t, .ncosts = 1,
               .costs = { 1 }, .error = xStrdup("compile_error"), .state = xStrdup(""),
               .message = xStrdup(""), .lineage = xStrdup("") } });
      if (t != 5)
         apply(&r->board, (SessionEvent){ .kind = SESSION_BEST,
                                          .best = { .task = t, .latency = (t * 7 % 27 + 1) * 1e-6 } });
   }
   *state = r;
   return 0;
}

/* presses the keys of text one by one (the table showing RESNET_ROWS rows); each
 * must be the table's */
static void press(Board *b, const char *text) {
   for (const char *k = text; *k; k++)
      assert_true(Keys_table(b, (unsigned char)*k, RESNET_ROWS));
}

static void pressKey(Board *b, int key) {
   assert_true(Keys_table(b, key, RESNET_ROWS));
}

static Rect resnetTable(void) {
   Layout l;
   Layout_compute(24, 80, &(LayoutContent){ 27, 19, 0 }, &l);
   assert_int_equal(Panels_tableRows(l.table.h), RESNET_ROWS);
   return l.table;
}

/* the table's title bar, drawn: want as far as 80 columns hold it */
static void assertTitle(Board *b, const char *want) {
   char *text = drawn(b, resnetTable(), table);
   char cut[256];
   size_t n = 0;
   for (int cols = 0; want[n] && cols < 80 && n + 4 < sizeof cut; cols++)
      do
         n++;
      while (((unsigned char)want[n] & 0xc0) == 0x80);
   memcpy(cut, want, n);
   while (n > 0 && cut[n - 1] == ' ')
      n--;
   cut[n] = '\0';
   assertLine(text, 0, cut);
   free(text);
}

/* the IDs of the rows drawn, space-separated */
static void assertRowsShown(Board *b, const char *want) {
   char *text = drawn(b, resnetTable(), table);
   char ids[256] = "";
   for (int r = 2; r < 2 + RESNET_ROWS; r++) {
      char *line = lineOf(text, r);
      if (*line)
         snprintf(ids + strlen(ids), sizeof ids - strlen(ids), "%s%d", *ids ? " " : "", atoi(line));
      free(line);
   }
   free(text);
   assert_string_equal(ids, want);
}

/* the console row at 80x24 */
static void assertConsoleRow(Board *b, const char *want) {
   char *text = drawn(b, (Rect){ 23, 0, 1, 80 }, hints);
   assertLine(text, 0, want);
   free(text);
}

#define TITLE_KEYS "  [s]ort [enter] details [+/-] priority [f]ocus"

/* Navigation: the arrows and their letters, pages, the ends; the title says which
 * rows show. */
static void testNavigation(void **state) {
   Fixture *r = *state;
   Board *b = &r->board;
   assertTitle(b, " Tasks 1-7/27  sort: id\u25b2" TITLE_KEYS);
   press(b, "jjjjjjjjjjjjj");
   assert_int_equal(b->selected, 13);
   assertTitle(b, " Tasks 8-14/27  sort: id\u25b2" TITLE_KEYS);
   assertRowsShown(b, "7 8 9 10 11 12 13");
   press(b, "k");
   assert_int_equal(b->selected, 12);
   pressKey(b, KEY_DOWN);
   assert_int_equal(b->selected, 13);
   pressKey(b, KEY_CTRL('F'));
   assert_int_equal(b->selected, 20);
   assertTitle(b, " Tasks 15-21/27  sort: id\u25b2" TITLE_KEYS);
   pressKey(b, KEY_NPAGE);
   assert_int_equal(b->selected, 26);
   assertTitle(b, " Tasks 21-27/27  sort: id\u25b2" TITLE_KEYS);
   pressKey(b, KEY_CTRL('B'));
   assert_int_equal(b->selected, 19);
   press(b, "g");
   assert_int_equal(b->selected, 0);
   assertTitle(b, " Tasks 1-7/27  sort: id\u25b2" TITLE_KEYS);
   press(b, "G");
   assert_int_equal(b->selected, 26);
   pressKey(b, KEY_HOME);
   assert_int_equal(b->selected, 0);
   pressKey(b, KEY_UP);
   assert_int_equal(b->selected, 0);
   pressKey(b, KEY_END);
   assert_int_equal(b->selected, 26);
   pressKey(b, KEY_PPAGE);
   assert_int_equal(b->selected, 19);
   /* the rest is the workbench's */
   assert_false(Keys_table(b, 'q', RESNET_ROWS));
   assert_false(Keys_table(b, '+', RESNET_ROWS));
   assert_false(Keys_table(b, KEY_F(10), RESNET_ROWS));
   assert_false(Keys_table(b, KEY_F(1), RESNET_ROWS));
}

/* The sort: s and F6 go on to the next in its own direction, < and > set the
 * direction; the first row is selected and shows at the top; the sorted column's head
 * and the title carry the mark, ASCII without UTF-8. */
static void testSortKeys(void **state) {
   Fixture *r = *state;
   Board *b = &r->board;
   press(b, "jjjjjjjjjjjjj");
   press(b, "ss");
   assert_int_equal(b->sort, SORT_LATENCY);
   assert_true(b->descending);
   assert_string_equal(b->message, "sorted by latency, descending");
   /* 27 us first; no best last */
   assert_int_equal(b->order[0], 23);
   assert_int_equal(b->order[26], 5);
   assert_int_equal(b->selected, 23);
   assert_int_equal(b->top, 0);
   char *text = drawn(b, resnetTable(), table);
   assertLine(text, 0, " Tasks 1-7/27  sort: latency\u25bc" TITLE_KEYS);
   assertLine(text, 1, " ID Task                        Wt Lat(ms)\u25bc  GFLOPS  Trials  Roof Prio State");
   /* task 23, layer4.1-2.conv1: 27 us; 102.811 MFLOP / 27 us = 3808 GFLOPS; 23 trials;
    * a100_40's floor: max(102.811e6 / 19.5e12, 4 x (2048x7x7 + 512x2048 + 512x7x7 +
    * 512) / 1555e9) = 5.27e-6 s of 27e-6: 20% */
   assertLine(text, 2, " 23 layer4.1-2.conv1             2   0.0270    3808      23   20%    1 waiting");
   free(text);
   press(b, "<");
   assert_false(b->descending);
   assert_string_equal(b->message, "sorted by latency, ascending");
   assert_int_equal(b->order[0], 0);
   assert_int_equal(b->order[25], 23);
   assert_int_equal(b->order[26], 5);
   assert_int_equal(b->selected, 0);
   press(b, ">");
   assert_int_equal(b->order[0], 23);
   /* a measurement alone (before the round's best event) gives task 5 its best, 30
    * us: it goes first at once, and the selection stays */
   apply(b, (SessionEvent){ .kind = SESSION_MEASURE, .measure = { .task = 5, .ncosts = 1, .costs = { 30e-6 },
         .error = xStrdup("ok"), .state = xStrdup(""), .message = xStrdup(""), .lineage = xStrdup("") } });
   assert_int_equal(b->order[0], 5);
   assert_int_equal(b->order[1], 23);
   assert_int_equal(b->selected, 23);
   /* after a scroll, a sort shows the first row at the top again */
   press(b, "G");
   assertTitle(b, " Tasks 21-27/27  sort: latency\u25bc" TITLE_KEYS);
   pressKey(b, KEY_F(6));
   assert_int_equal(b->sort, SORT_TRIALS);
   assert_true(b->descending);
   assert_int_equal(b->order[0], 26);
   assert_int_equal(b->selected, 26);
   assertTitle(b, " Tasks 1-7/27  sort: trials\u25bc" TITLE_KEYS);
   assertRowsShown(b, "26 25 24 23 22 21 20");
   /* the roofline's least first; then share, which has no column of its own */
   press(b, "s");
   assert_int_equal(b->sort, SORT_ROOFLINE);
   assert_false(b->descending);
   press(b, "ss");
   assert_int_equal(b->sort, SORT_SHARE);
   /* ASCII: " v" and " ^", and the sortable columns one wider */
   b->unicode = false;
   text = drawn(b, resnetTable(), table);
   assertLine(text, 0, " Tasks 1-7/27  sort: share v" TITLE_KEYS);
   assertLine(text, 1, "  ID Task                    Wt   Lat(ms)  GFLOPS   Trials   Roof Prio State");
   free(text);
   press(b, "s<");
   assert_string_equal(b->message, "sorted by latency, ascending");
   text = drawn(b, resnetTable(), table);
   assertLine(text, 0, " Tasks 1-7/27  sort: latency ^" TITLE_KEYS);
   assertLine(text, 1, "  ID Task                    Wt Lat(ms) ^  GFLOPS   Trials   Roof Prio State");
   free(text);
}

/* The filter: / (or \ or F4), text, Enter; the title says how many of the tasks it
 * shows; an empty one shows every task again, Esc puts the one before back. */
static void testFilterKeys(void **state) {
   Fixture *r = *state;
   Board *b = &r->board;
   press(b, "jj");
   press(b, "/conv");
   assert_int_equal(b->prompt.kind, PROMPT_FILTER);
   /* applied as it is typed */
   assert_int_equal(b->nrows, 24);
   assertConsoleRow(b, "filter: conv  Enter: done (empty: every task)  Esc: back");
   press(b, "\r");
   assert_int_equal(b->prompt.kind, PROMPT_NONE);
   assert_string_equal(b->filter, "conv");
   /* every conv2d: tasks 0 and 2 to 24 */
   assertTitle(b, " Tasks 1-7/24  filter: conv (24 of 27)  sort: id\u25b2" TITLE_KEYS);
   assertRowsShown(b, "0 2 3 4 5 6 7");
   for (int row = 0; row < b->nrows; row++)
      assert_int_equal(strncmp(b->view.tasks[b->order[row]].key, "conv2d_", 7), 0);
   assert_int_equal(b->order[0], 0);
   assert_int_equal(b->order[1], 2);
   /* the selection, task 2, stays; G goes to the last match */
   assert_int_equal(b->selected, 2);
   press(b, "G");
   assert_int_equal(b->selected, 24);
   /* the name: downsample; case does not matter */
   pressKey(b, KEY_F(4));
   assert_string_equal(b->prompt.text, "conv");
   pressKey(b, KEY_CTRL('U'));
   press(b, "DownSample\r");
   assert_int_equal(b->nrows, 4);
   assertRowsShown(b, "4 9 15 21");
   /* the selection was hidden: the first row */
   assert_int_equal(b->selected, 4);
   /* Esc puts the filter before back */
   press(b, "\\xyz");
   assert_int_equal(b->nrows, 0);
   assertTitle(b, " Tasks 0-0/0  filter: DownSamplexyz (0 of 27)  sort: id\u25b2" TITLE_KEYS);
   char *text = drawn(b, resnetTable(), table);
   assertLine(text, 2, "no task contains 'DownSamplexyz' (/ or F4 changes the filter)");
   free(text);
   pressKey(b, 27);
   assert_string_equal(b->filter, "DownSample");
   assert_int_equal(b->nrows, 4);
   assert_int_equal(b->selected, 4);
   /* the state: a round of task 7 makes it the one tuning */
   apply(b, (SessionEvent){ .kind = SESSION_ROUND, .round = 1, .roundStart = { .task = 7 } });
   press(b, "/");
   pressKey(b, KEY_CTRL('U'));
   press(b, "tuning\r");
   assertRowsShown(b, "7");
   /* backspace, to nothing, and Enter: every task */
   press(b, "/");
   for (int i = 0; i < 6; i++)
      pressKey(b, KEY_BACKSPACE);
   assert_string_equal(b->prompt.text, "");
   press(b, "\r");
   assert_string_equal(b->filter, "");
   assert_int_equal(b->nrows, 27);
   assert_int_equal(b->selected, 7);
   assertTitle(b, " Tasks 2-8/27  sort: id\u25b2" TITLE_KEYS);
   /* while typing, every key is the prompt's */
   press(b, "/q");
   assert_string_equal(b->prompt.text, "q");
   Keys_cancel(b, RESNET_ROWS);
   assert_int_equal(b->prompt.kind, PROMPT_NONE);
   assert_int_equal(b->nrows, 27);
}

/* The search: F3, text (the selection goes to the first task from where it was that
 * contains it), F3 the next, Enter keeps it, n the next after; Esc goes back. */
static void testSearchKeys(void **state) {
   Fixture *r = *state;
   Board *b = &r->board;
   pressKey(b, KEY_F(3));
   assert_int_equal(b->prompt.kind, PROMPT_SEARCH);
   press(b, "layer3");
   /* layer3.0.conv1 is task 13 */
   assert_int_equal(b->selected, 13);
   assertConsoleRow(b, "search: layer3  Enter: done  F3: next  Esc: back");
   pressKey(b, KEY_F(3));
   assert_int_equal(b->selected, 14);
   press(b, "\r");
   assert_string_equal(b->search, "layer3");
   assert_int_equal(b->nrows, 27);
   press(b, "n");
   assert_int_equal(b->selected, 15);
   /* layer3 is tasks 13 to 18: n wraps around to the first */
   press(b, "nnn");
   assert_int_equal(b->selected, 18);
   press(b, "n");
   assert_int_equal(b->selected, 13);
   /* the op and shapes: the dense task's key */
   pressKey(b, KEY_F(3));
   press(b, "DENSE_b1");
   assert_int_equal(b->selected, 26);
   assertTitle(b, " Tasks 21-27/27  sort: id\u25b2" TITLE_KEYS);
   /* Esc: back to where the search started */
   pressKey(b, 27);
   assert_int_equal(b->selected, 13);
   assert_string_equal(b->search, "layer3");
   /* nothing found: the selection stays, the row says so */
   pressKey(b, KEY_F(3));
   press(b, "winograd");
   assert_int_equal(b->selected, 13);
   assertConsoleRow(b, "search: winograd  no task contains 'winograd'");
   b->message[0] = '\0';
   press(b, "\r");
   assert_string_equal(b->message, "no task contains 'winograd'");
   b->message[0] = '\0';
   press(b, "n");
   assert_string_equal(b->message, "no task contains 'winograd'");
   assert_int_equal(b->selected, 13);
}

/* F5: the selection follows each round's task until a key moves it. */
static void testFollow(void **state) {
   Fixture *r = *state;
   Board *b = &r->board;
   apply(b, (SessionEvent){ .kind = SESSION_ROUND, .round = 1, .roundStart = { .task = 3 } });
   assert_int_equal(b->selected, 0);
   pressKey(b, KEY_F(5));
   assert_true(b->follow);
   assert_int_equal(b->selected, 3);
   assert_string_equal(b->message, "following the task being tuned (a navigation key stops)");
   apply(b, (SessionEvent){ .kind = SESSION_ROUND, .round = 2, .roundStart = { .task = 20 } });
   assert_int_equal(b->selected, 20);
   assertTitle(b, " Tasks 15-21/27  sort: id\u25b2  following" TITLE_KEYS);
   /* a sort or a filter keeps following */
   press(b, "s");
   apply(b, (SessionEvent){ .kind = SESSION_ROUND, .round = 3, .roundStart = { .task = 11 } });
   assert_int_equal(b->selected, 11);
   /* a task the filter hides is not selected: the downsamples by latency are tasks
    * 15 (25 us), 21, 9 and 4 */
   press(b, "/downsample\r");
   assert_int_equal(b->selected, 15);
   apply(b, (SessionEvent){ .kind = SESSION_ROUND, .round = 4, .roundStart = { .task = 12 } });
   assert_int_equal(b->selected, 15);
   apply(b, (SessionEvent){ .kind = SESSION_ROUND, .round = 5, .roundStart = { .task = 9 } });
   assert_int_equal(b->selected, 9);
   press(b, "/");
   pressKey(b, KEY_CTRL('U'));
   press(b, "\r");
   /* a navigation key stops it */
   press(b, "j");
   assert_false(b->follow);
   int selected = b->selected;
   apply(b, (SessionEvent){ .kind = SESSION_ROUND, .round = 6, .roundStart = { .task = 2 } });
   assert_int_equal(b->selected, selected);
   pressKey(b, KEY_F(5));
   assert_int_equal(b->selected, 2);
   pressKey(b, KEY_F(5));
   assert_false(b->follow);
   assert_string_equal(b->message, "not following");
}

/* ---- the mouse on the table ---- */

/* a mouse event of kind `bstate` at row y, column x of the screen */
static int mouse(Board *b, int y, int x, mmask_t bstate) {
   MEVENT e = { .id = 0, .x = x, .y = y, .z = 0, .bstate = bstate };
   return Keys_mouse(b, &e, resnetTable());
}

/* the screen column of the first character of `head` in the drawn table's row of
 * heads (the sort's mark before it is one column of 3 bytes) */
static int headColumn(Board *b, const char *head) {
   char *text = drawn(b, resnetTable(), table);
   char *line = lineOf(text, 1);
   const char *at = strstr(line, head);
   assert_non_null(at);
   int x = 0;
   for (const char *c = line; c < at; c++)
      x += ((unsigned char)*c & 0xc0) != 0x80;
   free(line);
   free(text);
   return x;
}

/* At 80x24 the table's title is screen row 2, its heads row 3, its first task row 4:
 * a click selects a row, a click on a sortable head sorts (again: the other way), the
 * wheel scrolls 3 rows, a double click asks for the details (Enter's "show"); outside
 * the table, on its title, on a head without a sort or between heads nothing
 * changes. */
static void testMouse(void **state) {
   Fixture *r = *state;
   Board *b = &r->board;
   Rect t = resnetTable();
   assert_int_equal(t.y, 2);
   r->board.actions = (BoardActions){ .ctx = r, .send = fakeSend, .page = fakePage, .quit = fakeQuit };
   /* the 3rd row shown, task 2; following ends */
   pressKey(b, KEY_F(5));
   assert_int_equal(mouse(b, 6, 10, BUTTON1_CLICKED), 0);
   assert_int_equal(b->selected, 2);
   assert_false(b->follow);
   /* a notch down: rows 4-10, the selection kept in sight; up again: 1-7 */
   assert_int_equal(mouse(b, 8, 40, BUTTON5_PRESSED), 0);
   assert_int_equal(b->top, 3);
   assert_int_equal(b->selected, 3);
   assertTitle(b, " Tasks 4-10/27  sort: id\u25b2" TITLE_KEYS);
   assertRowsShown(b, "3 4 5 6 7 8 9");
   assert_int_equal(mouse(b, 6, 10, BUTTON1_CLICKED), 0);
   assert_int_equal(b->selected, 5);
   mouse(b, 8, 40, BUTTON5_PRESSED);
   assertTitle(b, " Tasks 7-13/27  sort: id\u25b2" TITLE_KEYS);
   assert_int_equal(b->selected, 6);
   mouse(b, 8, 40, BUTTON4_PRESSED);
   mouse(b, 8, 40, BUTTON4_PRESSED);
   mouse(b, 8, 40, BUTTON4_PRESSED);
   assertTitle(b, " Tasks 1-7/27  sort: id\u25b2" TITLE_KEYS);
   assert_int_equal(b->selected, 6);
   /* the latency's head: by latency, descending, the first row selected at the top */
   mouse(b, 8, 40, BUTTON5_PRESSED);
   /* Lat(ms) right-aligned in its 8 columns, 35 to 42, the first one for the mark */
   assert_int_equal(headColumn(b, "Lat(ms)"), 36);
   int lat = 35;
   assert_int_equal(mouse(b, 3, lat + 3, BUTTON1_CLICKED), 0);
   assert_int_equal(b->sort, SORT_LATENCY);
   assert_true(b->descending);
   assert_string_equal(b->message, "sorted by latency, descending");
   assert_int_equal(b->top, 0);
   assert_int_equal(b->selected, 23);
   char *text = drawn(b, t, table);
   assertLine(text, 1, " ID Task                        Wt Lat(ms)\u25bc  GFLOPS  Trials  Roof Prio State");
   free(text);
   /* 27, 26, 25, 24, 23, 22 and 21 us */
   assertRowsShown(b, "23 19 15 11 7 3 26");
   /* again, on its last column: ascending, 1 to 7 us */
   assert_int_equal(mouse(b, 3, lat + 7, BUTTON1_CLICKED), 0);
   assert_false(b->descending);
   assert_string_equal(b->message, "sorted by latency, ascending");
   assert_int_equal(b->selected, 0);
   assertRowsShown(b, "0 4 8 12 16 20 24");
   text = drawn(b, t, table);
   assertLine(text, 1, " ID Task                        Wt Lat(ms)\u25b2  GFLOPS  Trials  Roof Prio State");
   free(text);
   /* the trials' head sorts by trials; the ID's by ID */
   mouse(b, 3, headColumn(b, "Trials"), BUTTON1_CLICKED);
   assert_int_equal(b->sort, SORT_TRIALS);
   assertRowsShown(b, "26 25 24 23 22 21 20");
   mouse(b, 3, 1, BUTTON1_CLICKED);
   assert_int_equal(b->sort, SORT_ID);
   assert_false(b->descending);
   mouse(b, 3, lat, BUTTON1_CLICKED);
   mouse(b, 3, lat, BUTTON1_CLICKED);
   /* nothing changes: Task's head, GFLOPS's, the space before Lat(ms), the title, below
    * the table, the drafts beside it, a right click */
   b->message[0] = '\0';
   mouse(b, 5, 10, BUTTON1_CLICKED);
   assert_int_equal(b->selected, 4);
   int nothing[][3] = { { 3, 10, BUTTON1_CLICKED }, { 3, headColumn(b, "GFLOPS"), BUTTON1_CLICKED },
                        { 3, lat - 1, BUTTON1_CLICKED }, { 2, 10, BUTTON1_CLICKED }, { 11, 10, BUTTON1_CLICKED },
                        { 15, 70, BUTTON1_DOUBLE_CLICKED }, { 1, 10, BUTTON5_PRESSED },
                        { 6, 10, BUTTON3_CLICKED } };
   for (size_t i = 0; i < sizeof nothing / sizeof nothing[0]; i++) {
      assert_int_equal(mouse(b, nothing[i][0], nothing[i][1], (mmask_t)nothing[i][2]), 0);
      assert_int_equal(b->sort, SORT_LATENCY);
      assert_false(b->descending);
      assert_int_equal(b->selected, 4);
      assert_int_equal(b->top, 0);
      assert_string_equal(b->message, "");
   }
   /* nor while a filter is typed */
   press(b, "/");
   mouse(b, 6, 10, BUTTON1_CLICKED);
   assert_int_equal(b->selected, 4);
   Keys_cancel(b, RESNET_ROWS);
   /* a double click on the 3rd row selects task 8 and stands for Enter: "show 8" */
   int key = mouse(b, 6, 10, BUTTON1_DOUBLE_CLICKED);
   assert_int_equal(key, KEY_ENTER);
   assert_int_equal(b->selected, 8);
   char line[64];
   assert_true(Commands_forKey(b, key, line, sizeof line));
   assert_string_equal(line, "show 8");
   char *answer = NULL;
   assert_int_equal(Commands_run(b, line, &answer), 0);
   assert_null(answer);
   assert_string_equal(r->pageTitle, "task 8");
   assert_non_null(strstr(r->pageText, "layer2.0.conv2"));
   /* through curses: an event put back (ungetmouse) comes as KEY_MOUSE, and
    * getmouse's event does the same: a click on the 5th row selects task 16 */
   assert_int_equal(mousemask(KEYS_MOUSE_EVENTS, NULL), KEYS_MOUSE_EVENTS);
   keypad(stdscr, TRUE);
   MEVENT put = { .x = 10, .y = 8, .bstate = BUTTON1_CLICKED }, got;
   assert_int_equal(ungetmouse(&put), OK);
   assert_int_equal(wgetch(stdscr), KEY_MOUSE);
   assert_int_equal(getmouse(&got), OK);
   assert_int_equal(Keys_mouse(b, &got, t), 0);
   assert_int_equal(b->selected, 16);
   mousemask(0, NULL);
}

/* ---- the console's commands ---- */

static void expectAnswer(Fixture *f, const char *line, int rc, const char *answer) {
   char *got = NULL;
   int r = Commands_run(&f->board, line, &got);
   if (r != rc || strcmp(got ? got : "", answer) != 0)
      fail_msg("'%s': got %d '%s', want %d '%s'", line, r, got ? got : "", rc, answer);
   free(got);
}

static void testCommands(void **state) {
   Fixture *f = *state;
   Board *b = &f->board;
   /* a finished run takes no engine command */
   expectAnswer(f, "pause", -1, "pause: tuning is over");
   b->view.finished = false;
   expectAnswer(f, "pause", 0, "sent: pause (applied before the next round)");
   assert_string_equal(f->sent[0], "pause");
   expectAnswer(f, "prio 1 0.5", 0, "sent: prio 1 0.5 (applied before the next round)");
   assert_string_equal(f->sent[1], "prio 1 0.5");
   expectAnswer(f, "focus off", 0, "sent: focus off (applied before the next round)");
   expectAnswer(f, "model xgb", 0, "sent: model xgb (applied before the next round)");
   expectAnswer(f, "trials 40", 0, "sent: budget 40 (applied before the next round)");
   assert_string_equal(f->sent[4], "budget 40");
   assert_int_equal(f->nsent, 5);
   /* refusals change nothing and send nothing */
   expectAnswer(f, "prio 2 1", -1, "prio: no task '2' (task IDs go from 0 to 1)");
   expectAnswer(f, "prio 1 -1", -1, "prio: the multiplier must be a number >= 0 (0 pauses the task), not '-1'");
   expectAnswer(f, "prio 1", -1, "usage: prio TASK N");
   expectAnswer(f, "focus x", -1, "focus: takes a task ID from 0 to 1 or off, not 'x'");
   expectAnswer(f, "model gbm", -1, "model: no cost model 'gbm' (random, psa, xgb, mlp, pam or pam-moa)");
   expectAnswer(f, "model pam /nonexistent/ckpt", -1, "model: /nonexistent/ckpt: No such file or directory");
   expectAnswer(f, "trials 5", -1, "trials: 5 is less than the 12 trials done");
   expectAnswer(f, "trials many", -1, "trials: takes a trial budget from 1 to 100000000, not 'many'");
   expectAnswer(f, "frob 3", -1, "unknown command 'frob' (help lists them)");
   expectAnswer(f, "show 5", -1, "show: no task '5' (task IDs go from 0 to 1)");
   expectAnswer(f, "show 0 --asm", -1, "show: takes --cuda, --loops or --state, not '--asm'");
   expectAnswer(f, "export pictures x", -1, "export: takes records, curve, kernels, plot or front, not 'pictures'");
   /* the curves as SVG, from the session file; a directory that is not there refused */
   char *session = TestUtil_srcPath("tests/data/tiny2-session.jsonl"), *dir = TestUtil_tempDir();
   b->sessionPath = session;
   char *line = xAsprintf("export plot %s/p.svg", dir);
   char *want = xAsprintf("wrote the curves of 5 rounds with a latency to %s/p.svg", dir);
   expectAnswer(f, line, 0, want);
   free(line);
   free(want);
   char *svg = xAsprintf("%s/p.svg", dir);
   size_t svgLen = 0;
   char *text = Paths_readFile(svg, 1 << 20, "an SVG", &svgLen, NULL);
   assert_non_null(text);
   assert_int_equal(strncmp(text, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44), 0);
   free(text);
   free(svg);
   line = xAsprintf("export plot %s/none/p.svg", dir);
   want = xAsprintf("export: %s/none/p.svg: No such file or directory", dir);
   expectAnswer(f, line, -1, want);
   free(line);
   free(want);
   b->sessionPath = "tiny2-session.jsonl";
   TestUtil_removeTree(dir);
   free(dir);
   free(session);
   expectAnswer(f, "", 0, "");
   assert_int_equal(f->nsent, 5);
   /* queries */
   expectAnswer(f, "best 1", 0,
                "task 1: best 0.0042 ms, 36 GFLOPS, 0% of the roofline (round 6; 6 trials, 0 failed)");
   expectAnswer(f, "best", 0, "estimated total latency 0.012 ms after 12 trials; task 0 weighs most (67%)");
   expectAnswer(f, "help prio", 0, "prio TASK N: the task's priority multiplier (0 pauses it, 2 doubles its urgency)");
   expectAnswer(f, "show 0 --state", 0, "");
   assert_string_equal(f->pageTitle, "task 0: state");
   assert_int_equal(strncmp(f->pageText, "== best state (median 0.0042 ms, trial 9) ==\n{\"v\":1", 45), 0);
   expectAnswer(f, "show 0 --cuda", 0, "");
   assert_non_null(strstr(f->pageText, "__global__"));
   assert_non_null(strstr(f->pageText, "launch T_bias_kernel: grid"));
   expectAnswer(f, "show 1", 0, "");
   assert_string_equal(f->pageTitle, "task 1");
   assert_non_null(strstr(f->pageText, "6 trials (6 ok, 0 failed)"));
   assert_non_null(strstr(f->pageText, "== history: best against the task's trials =="));
   assert_non_null(strstr(f->pageText, "== loop nest =="));
   assert_non_null(strstr(f->pageText, "== PSA =="));
   assert_non_null(strstr(f->pageText, "PSA latency estimate:"));
   /* the session predates the counters */
   assert_non_null(strstr(f->pageText, "\n== counters of the best kernel ==\nno counters yet: its best was measured "
                                       "without them (a session written before they were kept, or a GPU whose "
                                       "CUPTI could not profile it)\n"));
   expectAnswer(f, "explain 1", 0, "");
   assert_non_null(strstr(f->pageText, "== features =="));
   expectAnswer(f, "stats", 0, "");
   assert_non_null(strstr(f->pageText, "trials 12 of 12 in 6 rounds (2 per round)"));
   assert_non_null(strstr(f->pageText, "draft acceptance: mean 0.583 over 6 rounds"));
   /* an FP32 run's front: a point a task, of no predicted error */
   expectAnswer(f, "front", 0, "");
   assert_string_equal(f->pageTitle, "front");
   assert_non_null(strstr(f->pageText, "the front of latency against error"));
   assert_non_null(strstr(f->pageText, "\nthe network's front (the weighted sum of the tasks' latencies each bound "
                                       "allows):\n    bound      total (ms)  tasks per precision\n 0.00e+00  "));
   /* a best with counters: 16750 GFLOP/s over 1675 GB/s is 10 FLOP/B, below h100_sxm's
    * ridge of 67000 / 3350 = 20, under the slanted roof of 33500 GFLOP/s: half of it */
   SessionEvent best = { .kind = SESSION_BEST, .round = 7, .elapsed = 9,
                         .best = { .task = 1, .latency = 4e-6,
                                   .counters = { .present = true, .simulated = true, .dramGbs = 1675,
                                                 .l2HitRate = 0.5, .occupancy = 0.75, .gflops = 16750,
                                                 .waves = 2, .bound = "memory" } } };
   Board_apply(b, &best);
   expectAnswer(f, "show 1", 0, "");
   assert_non_null(strstr(f->pageText, "\n== counters of the best kernel ==\ncounters: simulated (the simulator's "
                                       "model of the program, not a GPU's)\n  DRAM throughput       1675.0 GB/s\n"));
   assert_non_null(strstr(f->pageText, "\nroofline on h100_sxm: FP32 peak 67000 GFLOP/s, DRAM 3350 GB/s\n"
                                       "  ridge point           20.00 FLOP/B\n"
                                       "  arithmetic intensity  10.00 FLOP/B\n"
                                       "  attained              16750.0 GFLOP/s\n"
                                       "  roof there            33500.0 GFLOP/s (intensity x DRAM bandwidth)\n"
                                       "  of the roof           50.0%\n"
                                       "  position              memory bound (intensity below the ridge)\n"));
   expectAnswer(f, "quit", 0, "");
   assert_int_equal(f->quits, 1);
   /* a replay has no engine */
   b->actions.send = NULL;
   b->replay = true;
   expectAnswer(f, "prio 0 2", -1, "prio: a replay has no engine to command");
   expectAnswer(f, "save", -1, "save: a replay writes nothing; the session is tiny2-session.jsonl");
   b->replay = false;
   b->actions.send = fakeSend;
   b->view.finished = true;
}

/* --resume of a finished session: the commands go to the engine again, until the
 * resumed run ends */
static void testResumed(void **state) {
   Fixture *f = *state;
   Board *b = &f->board;
   char run[64];
   expectAnswer(f, "pause", -1, "pause: tuning is over");
   resumed(b, 3.1);
   assert_string_equal(Board_logLine(b, b->nlog - 1), "resumed: 12 trials done");
   Board_runState(b, run, sizeof run);
   assert_string_equal(run, "running");
   assert_false(isnan(Board_eta(b)));
   expectAnswer(f, "pause", 0, "sent: pause (applied before the next round)");
   applied(b, 3.2, "pause");
   Board_runState(b, run, sizeof run);
   assert_string_equal(run, "paused");
   apply(b, (SessionEvent){ .kind = SESSION_FINISHED, .round = 6, .elapsed = 3.3,
                            .finished = { .why = SESSION_END_STOPPED } });
   Board_runState(b, run, sizeof run);
   assert_string_equal(run, "finished: stopped");
   assert_true(isnan(Board_eta(b)));
   expectAnswer(f, "resume", -1, "resume: tuning is over");
}

/* The keys' commands: each acts on what the commands sent before it asked for, so
 * that keys pressed within a round add up; '-' goes from 0.25 to 0. */
static void testKeys(void **state) {
   Fixture *f = *state;
   Board *b = &f->board;
   resumed(b, 3.1);
   static const struct {
      int key;
      const char *line;
   } presses[] = {
      { '+', "prio 0 2" }, { '+', "prio 0 4" }, { '-', "prio 0 2" }, { 'm', "model xgb" }, { 'm', "model mlp" },
      { ' ', "pause" },    { ' ', "resume" },   { ' ', "pause" },    { 'f', "focus 0" },   { 'f', "focus off" },
      { '+', "prio 0 4" }, { '-', "prio 0 2" }, { '-', "prio 0 1" }, { '-', "prio 0 0.5" }, { '-', "prio 0 0.25" },
      { '-', "prio 0 0" }, { '-', "prio 0 0" }, { '+', "prio 0 1" },
   };
   int n = (int)(sizeof presses / sizeof presses[0]);
   char line[128];
   for (int i = 0; i < n; i++) {
      assert_true(Commands_forKey(b, presses[i].key, line, sizeof line));
      assert_string_equal(line, presses[i].line);
      char *want = xAsprintf("sent: %s (applied before the next round)", line);
      expectAnswer(f, line, 0, want);
      free(want);
   }
   assert_false(Commands_forKey(b, 'x', line, sizeof line));
   assert_int_equal(b->npending, n);
   expectAnswer(f, "pause", -1, "pause: sent already (applied before the next round)");
   /* the view has none of them yet; the engine applies them in their order */
   BoardPending p;
   Board_pending(b, 0, &p);
   assert_true(b->view.tasks[0].priority == 1);
   assert_true(p.priority == 1);
   assert_string_equal(p.costModel, "mlp");
   assert_true(p.pausedAll);
   assert_false(p.focused);
   for (int i = 0; i < 8; i++)
      applied(b, 3.2, presses[i].line);
   assert_int_equal(b->npending, n - 8);
   assert_string_equal(b->view.costModel, "mlp");
   assert_true(b->pausedAll);
   applied(b, 3.2, "focus 0");
   Board_pending(b, 1, &p);
   assert_false(p.focused);
   Board_pending(b, 0, &p);
   assert_false(p.focused);
   assert_true(b->view.tasks[0].focused);
   for (int i = 9; i < n; i++)
      applied(b, 3.2, presses[i].line);
   assert_int_equal(b->npending, 0);
   assert_true(b->view.tasks[0].priority == 1);
   assert_false(b->view.tasks[0].focused);
   /* what is sent as the run ends is never applied */
   assert_true(Commands_forKey(b, '+', line, sizeof line));
   expectAnswer(f, line, 0, "sent: prio 0 2 (applied before the next round)");
   apply(b, (SessionEvent){ .kind = SESSION_FINISHED, .round = 6, .elapsed = 3.3,
                            .finished = { .why = SESSION_END_STOPPED } });
   assert_int_equal(b->npending, 0);
}

static char *joined(char **words) {
   char buf[512] = "";
   for (int i = 0; words && words[i]; i++) {
      strcat(buf, i ? " " : "");
      strcat(buf, words[i]);
      free(words[i]);
   }
   free(words);
   return xStrdup(buf);
}

static void expectCompletion(const Board *b, const char *word, int index, char *const *words, const char *want) {
   char *got = joined(Commands_complete(b, word, index, words));
   assert_string_equal(got, want);
   free(got);
}

static void testCompletion(void **state) {
   Fixture *f = *state;
   char *none[] = { NULL };
   expectCompletion(&f->board, "p", 0, none, "pause prio");
   expectCompletion(&f->board, "s", 0, none, "show stats save");
   char wPrio[] = "prio", wFocus[] = "focus", wModel[] = "model", wShow[] = "show", w1[] = "1", wExport[] = "export",
        wHelp[] = "help";
   char *prio[] = { wPrio, NULL };
   expectCompletion(&f->board, "", 1, prio, "0 1");
   char *focus[] = { wFocus, NULL };
   expectCompletion(&f->board, "", 1, focus, "off 0 1");
   char *model[] = { wModel, NULL };
   expectCompletion(&f->board, "pa", 1, model, "pam pam-moa");
   char *show[] = { wShow, w1, NULL };
   expectCompletion(&f->board, "--", 2, show, "--cuda --loops --state");
   char *export[] = { wExport, NULL };
   expectCompletion(&f->board, "c", 1, export, "curve");
   expectCompletion(&f->board, "p", 1, export, "plot");
   char *help[] = { wHelp, NULL };
   expectCompletion(&f->board, "ex", 1, help, "explain export");
   expectCompletion(&f->board, "zz", 0, none, "");
}

/* ---- readline, a byte at a time ---- */

static char lastLine[256];
static int lines, closes;

static void onLine(void *ctx, const char *line) {
   (void)ctx;
   if (line) {
      snprintf(lastLine, sizeof lastLine, "%s", line);
      lines++;
   } else {
      closes++;
   }
}

static char **completeFromBoard(void *ctx, const char *word, int index, char *const *words) {
   return Commands_complete(ctx, word, index, words);
}

static void feed(const char *bytes) {
   for (const char *p = bytes; *p; p++)
      Console_feed((unsigned char)*p);
}

static void testConsole(void **state) {
   Fixture *f = *state;
   char *dir = TestUtil_tempDir();
   char *history = xAsprintf("%s/state/history", dir);
   ConsoleConfig cc = { .prompt = ":", .historyFile = history, .onLine = onLine, .complete = completeFromBoard,
                        .ctx = &f->board };
   Console_init(&cc);
   assert_false(Console_active());
   Console_start();
   feed("prio 1 2\r");
   assert_int_equal(lines, 1);
   assert_string_equal(lastLine, "prio 1 2");
   assert_false(Console_active());
   /* completion of a command's name, then of its argument */
   Console_start();
   feed("sh\t");
   assert_string_equal(Console_line(), "show ");
   feed("1 --c\t");
   assert_string_equal(Console_line(), "show 1 --cuda ");
   /* editing: two left arrows, a character inserted */
   Console_cancel();
   Console_start();
   feed("bst");
   feed("\x1b[D\x1b[D");
   assert_int_equal(Console_point(), 1);
   feed("e");
   assert_string_equal(Console_line(), "best");
   assert_int_equal(Console_width(Console_line(), Console_point()), 2);
   feed("\r");
   assert_string_equal(lastLine, "best");
   /* history: up recalls the last line */
   Console_start();
   feed("\x1b[A");
   assert_string_equal(Console_line(), "best");
   Console_escape();
   assert_int_equal(closes, 1);
   assert_false(Console_active());
   /* several candidates are listed */
   Console_start();
   feed("p\t");
   assert_string_equal(Console_matches(), "pause  prio");
   Console_cancel();
   /* UTF-8 arrives a byte at a time; the width counts characters */
   Console_start();
   feed("\xc3\xa9t\xc3\xa9");
   assert_string_equal(Console_line(), "\xc3\xa9t\xc3\xa9");
   assert_int_equal(Console_width(Console_line(), (int)strlen(Console_line())), 3);
   Console_cancel();
   Console_done();
   /* the history is written between runs */
   char *saved = TestUtil_readFile(history);
   assert_non_null(strstr(saved, "prio 1 2\nbest\n"));
   free(saved);
   free(history);
   TestUtil_removeTree(dir);
   free(dir);
}

/* ---- the pager ---- */

/* the line of text that contains needle, or -1 */
static int lineWith(const Pager *p, const char *needle) {
   for (int i = 0; i < p->nlines; i++) {
      int len;
      const char *s = Pager_line(p, i, &len);
      char *line = xStrndup(s, (size_t)len);
      bool found = strstr(line, needle) != NULL;
      free(line);
      if (found)
         return i;
   }
   return -1;
}

static void typeKeys(Pager *p, const char *keys) {
   for (const char *k = keys; *k; k++)
      assert_true(Pager_key(p, (unsigned char)*k));
}

/* The help in the pager at 80x24 (22 rows of text): less's keys move it, / ? n N
 * search it, the match shows on the first row, highlighted. */
static void testPager(void **state) {
   (void)state;
   resizeterm(24, 80);
   Pager p = { 0 };
   Pager_open(&p, "help", Commands_help(), 80, 22);
   int f10 = lineWith(&p, "q, F10"), last = p.nlines - 22;
   assert_true(f10 > 22);
   assert_int_equal(lineWith(&p, "F10"), f10);   /* F10 is on one line only */
   /* the movement keys */
   typeKeys(&p, " ");
   assert_int_equal(p.top, 22);
   typeKeys(&p, "b");
   assert_int_equal(p.top, 0);
   typeKeys(&p, "dd");
   assert_int_equal(p.top, 22);
   typeKeys(&p, "ujjjk");
   assert_int_equal(p.top, 13);
   typeKeys(&p, "G");
   assert_int_equal(p.top, last);
   typeKeys(&p, "g");
   assert_int_equal(p.top, 0);
   typeKeys(&p, "f");
   assert_int_equal(p.top, 22);
   typeKeys(&p, "<");
   /* /F10 Enter: its line first on the screen (or the last page, which shows it) */
   typeKeys(&p, "/F10");
   assert_int_equal(p.prompt, '/');
   assert_string_equal(p.typed, "F10");
   assert_true(Pager_key(&p, '\r'));
   assert_int_equal(p.prompt, 0);
   assert_int_equal(p.match, f10);
   assert_int_equal(p.top, f10 < last ? f10 : last);
   assert_string_equal(p.message, "");
   /* drawn: the title counts the lines, the match in reverse video */
   WINDOW *w = newwin(23, 80, 0, 0);
   Pager_draw(w, &p);
   char *text = Panels_text(w);
   int row = 1 + f10 - p.top, len;
   const char *line = Pager_line(&p, f10, &len);
   char *want = xStrndup(line, (size_t)len);
   assertLine(text, row, want);
   char *title = xAsprintf(" help  (lines %d-%d of %d)  / ? search, n N next, q closes", p.top + 1, p.top + 22,
                           p.nlines);
   assertLine(text, 0, title);
   int col = (int)(strstr(want, "F10") - want);
   for (int c = 0; c < 3; c++)
      assert_true(mvwinch(w, row, col + c) & A_REVERSE);
   assert_false(mvwinch(w, row, col + 3) & A_REVERSE);
   assert_false(mvwinch(w, row, 0) & A_REVERSE);
   free(title);
   free(want);
   free(text);
   /* n: no other F10; the message as less says it, on the status row */
   typeKeys(&p, "n");
   assert_string_equal(p.message, "Pattern not found");
   WINDOW *status = newwin(1, 80, 23, 0);
   assert_true(Pager_drawStatus(status, &p));
   text = Panels_text(status);
   assertLine(text, 0, "Pattern not found");
   free(text);
   typeKeys(&p, "g");
   assert_string_equal(p.message, "");
   assert_false(Pager_drawStatus(status, &p));
   /* ? back from the end for "task", n goes on back, N forward again */
   typeKeys(&p, "G?task");
   Pager_drawStatus(status, &p);
   text = Panels_text(status);
   assertLine(text, 0, "?task");
   free(text);
   assert_true(Pager_key(&p, KEY_ENTER));
   int back = p.match;
   assert_true(back >= 0 && back < last);
   assert_int_equal(p.top, back);
   typeKeys(&p, "n");
   assert_true(p.match < back);
   typeKeys(&p, "N");
   assert_int_equal(p.match, back);
   typeKeys(&p, "N");
   assert_true(p.match > back);
   /* a pattern nothing has, a bad one, Backspace, Escape */
   assert_int_equal(Pager_search(&p, "no such words", false), -1);
   assert_string_equal(p.message, "Pattern not found");
   assert_int_equal(Pager_search(&p, "F1[", false), -1);
   assert_string_equal(p.message, "Invalid pattern 'F1[': Invalid regular expression");
   typeKeys(&p, "/ab");
   assert_true(Pager_key(&p, KEY_BACKSPACE));
   assert_string_equal(p.typed, "a");
   assert_true(Pager_key(&p, 27));
   assert_int_equal(p.prompt, 0);
   /* a regular expression: the first of the sort keys' line */
   typeKeys(&p, "g/^  s, F6 +the next sort\r");
   assert_int_equal(p.match, lineWith(&p, "s, F6"));
   /* q, Esc, F10 and Enter close it */
   assert_false(Pager_key(&p, 'q'));
   assert_false(Pager_key(&p, KEY_F(10)));
   delwin(status);
   delwin(w);
   Pager_close(&p);
   assert_false(p.open);
}

/* The board keeps every log line of the run; the log's pager shows them all, the
 * first intact, and follows new lines at its end. */
static void testWholeLog(void **state) {
   Fixture *f = *state;
   Board *b = &f->board;
   int before = b->nlog;
   assert_int_equal(before, 7);
   for (int i = 0; i < 2500; i++)
      Board_log(b, "line %d of the run", i);
   assert_int_equal(b->nlog, 2507);
   assert_string_equal(Board_logLine(b, 0), "round 1 task 0: best 0.0063 ms (dense_b1_m16_n64_k32+bias)");
   assert_string_equal(Board_logLine(b, 7), "line 0 of the run");
   assert_string_equal(Board_logLine(b, 2506), "line 2499 of the run");
   char *text = Board_logText(b);
   assert_int_equal(countLines(text), 2507);
   assertLine(text, 0, "round 1 task 0: best 0.0063 ms (dense_b1_m16_n64_k32+bias)");
   assertLine(text, 2506, "line 2499 of the run");
   Pager p = { 0 };
   Pager_open(&p, "log", text, 200, 20);
   assert_int_equal(p.nlines, 2507);
   assert_int_equal(Pager_search(&p, "^line 1234 ", false), 1241);
   /* at the end it follows new lines; elsewhere it stays */
   Pager_key(&p, 'G');
   assert_int_equal(p.top, 2487);
   Board_log(b, "one more");
   Pager_update(&p, Board_logText(b));
   assert_int_equal(p.nlines, 2508);
   assert_int_equal(p.top, 2488);
   Pager_key(&p, 'g');
   Board_log(b, "and another");
   Pager_update(&p, Board_logText(b));
   assert_int_equal(p.top, 0);
   Pager_close(&p);
   Board_logClear(b);
   assert_int_equal(b->nlog, 0);
   assert_string_equal(Board_logLine(b, 0), "");
}

/* goto: a replay's round or time, refused on a live run and for a bad argument. */
static void testGoto(void **state) {
   Fixture *f = *state;
   Board *b = &f->board;
   f->seekRound = -1;
   f->seekTime = -1;
   expectAnswer(f, "goto 5", -1, "goto: only in a replay");
   b->replay = true;
   b->replayRounds = 30;
   b->actions.send = NULL;
   expectAnswer(f, "goto 5", -1, "goto: only in a replay");   /* no seek to do it with */
   b->actions.seekRound = fakeSeekRound;
   b->actions.seekTime = fakeSeekTime;
   expectAnswer(f, "goto 5", 0, "round 5 of 30 at 0:00:10, paused (space plays on)");
   assert_int_equal(f->seekRound, 5);
   expectAnswer(f, "goto 0", 0, "round 0 of 30 at 0:00:00, paused (space plays on)");
   assert_int_equal(f->seekRound, 0);
   expectAnswer(f, "goto 0:10", 0, "round 3 of 30 at 0:00:10, paused (space plays on)");
   assert_true(f->seekTime == 10);
   expectAnswer(f, "goto 1:02:03", 0, "round 3 of 30 at 1:02:03, paused (space plays on)");
   assert_true(f->seekTime == 3723);
   expectAnswer(f, "goto 75:00", 0, "round 3 of 30 at 1:15:00, paused (space plays on)");
   assert_true(f->seekTime == 4500);
   f->seekRound = -1;
   f->seekTime = -1;
   const char *bad[] = { "x", "-1", "1:5", "1:60", "1:00:60", "1:2:03", ":10", "1:", "1:00:00:00", "2.5", "5x" };
   for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      char line[32], want[128];
      snprintf(line, sizeof line, "goto %s", bad[i]);
      snprintf(want, sizeof want, "goto: takes a round from 0 to 30 or a time as M:SS or H:MM:SS, not '%s'", bad[i]);
      expectAnswer(f, line, -1, want);
   }
   expectAnswer(f, "goto 31", -1, "goto: the replay has rounds 0 to 30, not 31");
   expectAnswer(f, "goto", -1, "usage: goto ROUND|M:SS|H:MM:SS");
   assert_int_equal(f->seekRound, -1);
   assert_true(f->seekTime == -1);
   b->replay = false;
   b->actions.send = fakeSend;
}

/* A replay's table title names only the keys that work without an engine. */
static void testReplayTitle(void **state) {
   Fixture *f = *state;
   Rect r = { 0, 0, 10, 120 };
   resizeterm(24, 120);
   char *text = drawn(&f->board, r, table);
   char *title = lineOf(text, 0);
   assert_non_null(strstr(title, "[s]ort [enter] details [+/-] priority [f]ocus"));
   free(title);
   free(text);
   f->board.replay = true;
   text = drawn(&f->board, r, table);
   title = lineOf(text, 0);
   assert_non_null(strstr(title, "[s]ort [enter] details"));
   assert_null(strstr(title, "priority"));
   assert_null(strstr(title, "[f]ocus"));
   free(title);
   free(text);
   f->board.replay = false;
}

/* ---- the comparison screen (--compare on a terminal) ---- */

/* ResNet-50's sessions A (ansor + xgb, 300 trials) and B (pruner + pam-moa, 300 trials)
 * of sessions/, read from the source tree so that their task file is found. */
static void loadResnetPair(CompareSet *set) {
   char cwd[4096];
   assert_non_null(getcwd(cwd, sizeof cwd));
   assert_int_equal(chdir(TestUtil_srcdir()), 0);
   CompareSet_init(set);
   const char *paths[] = { "sessions/resnet_50-NVIDIA_H200-ansor-xgb-300.jsonl",
                           "sessions/resnet_50-NVIDIA_H200-pruner-300.jsonl" };
   for (int k = 0; k < 2; k++) {
      char *notice = NULL, *cause = NULL;
      assert_int_equal(CompareSet_add(set, paths[k], &notice, &cause), 0);
      assert_null(notice);
   }
   CompareSet_finish(set);
   assert_int_equal(chdir(cwd), 0);
   assert_null(set->networkCause);
}

static char *drawnComparison(Comparison *c, int rows, int cols) {
   WINDOW *w = newwin(rows, cols, 0, 0);
   Comparison_draw(w, c);
   return windowText(w);
}

/* the rows of the text output (the same numbers as `--compare --text` prints) */
static const char *const resnetRow0 =
   "   0  conv2d 1x3x224x224 -> 64x112x112, 7x7 s2 p3 bias+relu         1    49.296    19.258    0.3907";
static const char *const resnetRow1 =
   "   1  max_pool2d 1x64x112x112 -> 56x56, 3x3 s2 p1                   1     3.873     4.003    1.0335";
static const char *const resnetRow13 =
   "  13  conv2d 1x512x28x28 -> 256x28x28, 1x1 s1 p0 bias+relu          1    23.037    39.622    1.7200";
static const char *const resnetRow26 =
   "  26  dense m1 n1000 k2048 bias                                     1   154.576    29.120    0.1884";

static void testComparison(void **state) {
   (void)state;
   CompareSet set;
   loadResnetPair(&set);
   Comparison c;
   Comparison_init(&c, &set, false, false);
   /* 120x40: title, legend A and B, a blank, the curve in rows 4-20, the table's title
    * at 22, its head, 14 task rows (24-37), the total (38), the keys (39) */
   char *text = drawnComparison(&c, 40, 120);
   assertLine(text, 0, "pruner-tui --compare: 2 sessions of resnet_50 (27 tasks)");
   assertLine(text, 1, "A  sessions/resnet_50-NVIDIA_H200-ansor-xgb-300.jsonl: resnet_50, ansor + xgb, h200, seed 1, "
                       "300 of 300 trials, budget");
   char *legendB = lineOf(text, 2);
   assert_string_equal(legendB, "B  sessions/resnet_50-NVIDIA_H200-pruner-300.jsonl: resnet_50, pruner + pam-moa from "
                                "pam-sim-t4-holdout5.ckpt, h200, se");
   free(legendB);
   assertLine(text, 4, "estimated total latency (ms) / trials");
   /* the ASCII plot marks A's points with A and B's with B */
   int marksA = 0, marksB = 0;
   for (int r = 5; r <= 19; r++) {
      char *line = lineOf(text, r);
      if (strlen(line) > 8) {
         marksA += strchr(line + 8, 'A') != NULL;
         marksB += strchr(line + 8, 'B') != NULL;
      }
      free(line);
   }
   assert_true(marksA > 0);
   assert_true(marksB > 0);
   assertLine(text, 20, "        270                                                                                     "
                        "                    300");
   assertLine(text, 22, "best latency per task (us), and each session's over A's; by ID");
   assertLine(text, 23, "  ID  task                                                     weight         A         B       B/A");
   assertLine(text, 24, resnetRow0);
   assertLine(text, 25, resnetRow1);
   assertLine(text, 37, resnetRow13);
   assertLine(text, 38, "      weighted total (ms)                                                2.3111    2.4345    1.0534");
   assertLine(text, 39, "q quit  t trials/time  L log scale  s sort  Up/Down PgUp/PgDn scroll  F1 help");
   free(text);

   /* s: by B/A, smallest first; j, G, g scroll */
   assert_true(Comparison_key(&c, 's'));
   text = drawnComparison(&c, 40, 120);
   assertLine(text, 22, "best latency per task (us), and each session's over A's; by B/A");
   assertLine(text, 24, resnetRow26);
   assertLine(text, 25, resnetRow0);
   free(text);
   assert_true(Comparison_key(&c, 's'));
   assert_true(Comparison_key(&c, 'j'));
   text = drawnComparison(&c, 40, 120);
   assertLine(text, 24, resnetRow1);
   free(text);
   assert_true(Comparison_key(&c, 'G'));
   text = drawnComparison(&c, 40, 120);
   assertLine(text, 24, resnetRow13);
   assertLine(text, 37, resnetRow26);
   free(text);
   assert_true(Comparison_key(&c, KEY_NPAGE));
   assert_int_equal(c.top, 13);
   assert_true(Comparison_key(&c, 'g'));
   assert_int_equal(c.top, 0);

   /* t: against time; L: on a log scale, its ends at 1, 2 or 5 times a power of ten */
   assert_true(Comparison_key(&c, 't'));
   text = drawnComparison(&c, 40, 120);
   assertLine(text, 4, "estimated total latency (ms) / time (m:ss)");
   free(text);
   assert_true(Comparison_key(&c, 't'));
   assert_true(Comparison_key(&c, 'L'));
   text = drawnComparison(&c, 40, 120);
   assertLine(text, 4, "estimated total latency (ms, log scale) / trials");
   assertLine(text, 5, "     5|");
   free(text);

   /* 90 columns: the task column narrows to 46 */
   text = drawnComparison(&c, 40, 90);
   assertLine(text, 24, "   0  conv2d 1x3x224x224 -> 64x112x112, 7x7 s2 p3 bi      1    49.296    19.258    0.3907");
   free(text);
   /* 200 columns: against trials and against time side by side, each half its own
    * plot with its own x labels; no t on the keys line */
   assert_true(Comparison_key(&c, 'L'));
   text = drawnComparison(&c, 40, 200);
   char *curves = lineOf(text, 4);
   assert_int_equal(strncmp(curves, "estimated total latency (ms) / trials", 37), 0);
   assert_string_equal(curves + 100, "estimated total latency (ms) / time (m:ss)");
   free(curves);
   char *xLabels = lineOf(text, 20);
   assert_int_equal(strncmp(xLabels, "        270 ", 12), 0);
   assert_int_equal(strncmp(xLabels + 96, "300         ", 12), 0);
   free(xLabels);
   assertLine(text, 39, "q quit  L log scale  s sort  Up/Down PgUp/PgDn scroll  F1 help");
   free(text);
   assert_true(Comparison_key(&c, 'L'));
   /* too small */
   text = drawnComparison(&c, 11, 90);
   assertLine(text, 0, "the terminal is too small; q quits");
   free(text);

   /* F1: the help; any key closes it; q and F10 quit */
   assert_true(Comparison_key(&c, KEY_F(1)));
   text = drawnComparison(&c, 40, 120);
   assertLine(text, 2, "pruner-tui --compare: the keys");
   free(text);
   assert_true(Comparison_key(&c, ' '));
   assert_false(c.help);
   assert_false(Comparison_key(&c, 'q'));
   assert_false(Comparison_key(&c, KEY_F(10)));
   Comparison_done(&c);
   CompareSet_done(&set);
}

static SessionEvent frontMeasure(int task, const char *p, double cost, double predicted) {
   char *state = strcmp(p, "fp32") == 0 ? xAsprintf("{\"v\":1,\"sketch\":0,\"knobs\":{\"k\":%g}}", cost)
                                        : xAsprintf("{\"v\":1,\"sketch\":2,\"precision\":\"%s\",\"knobs\":{\"k\":%g}}", p,
                                                    cost);
   return (SessionEvent){ .kind = SESSION_MEASURE, .round = 1, .elapsed = 1,
                          .measure = { .task = task, .state = state, .ncosts = 1, .costs = { cost },
                                       .error = xStrdup("ok"), .message = xStrdup(""), .lineage = xStrdup("random"),
                                       .draftScore = NAN, .verifyScore = NAN, .predictedError = predicted,
                                       .outputError = NAN } };
}

/* The console's front chart: task 0 at 8 us in FP32 (error 1e-6), 5 us in FP16 (1e-3)
 * and 4 us in BF16 (8e-3), task 1 at 20 us in FP32 (2e-6): the network's total is
 * 0.028 ms from the bound 2e-6, 0.025 from 1e-3 and 0.024 from 8e-3. On a log axis
 * from 2e-6 to 1e-2 (3.70 decades over columns 0 to 59) the points sit in columns 0,
 * round(59 x 2.70 / 3.70) = 43 and round(59 x 3.60 / 3.70) = 57, and on rows 0,
 * round(11 x 3 / 4) = 8 and 11 of 0 to 11 (0.028 down to 0.024 ms). A run in FP32
 * alone has nothing to chart. */
static void testFrontChart(void **state) {
   (void)state;
   SessionHeader h = { .version = SESSION_FORMAT_VERSION, .network = xStrdup("net"),
                       .networkFile = xStrdup("nowhere/net.task"), .device = xStrdup("h100_sxm"), .simulated = true,
                       .policy = xStrdup("pruner"), .costModel = xStrdup("pam"), .trialBudget = 20,
                       .measuresPerRound = 2, .seed = 7, .startTime = 1700000000, .ntasks = 2,
                       .tasks = xCalloc(2, sizeof(char *)) };
   h.tasks[0] = xStrdup("a");
   h.tasks[1] = xStrdup("b");
   TuneView v;
   TuneView_init(&v, &h, NULL);
   static const struct {
      int task;
      const char *precision;
      double cost, predicted;
   } measures[] = { { 0, "fp32", 8e-6, 1e-6 }, { 1, "fp32", 20e-6, 2e-6 } , { 0, "fp16", 5e-6, 1e-3 },
                    { 0, "bf16", 4e-6, 8e-3 } };
   for (int i = 0; i < 4; i++) {
      if (i == 2)
         assert_null(Commands_frontChart(&v));
      SessionEvent e = frontMeasure(measures[i].task, measures[i].precision, measures[i].cost, measures[i].predicted);
      TuneView_apply(&v, &e);
      SessionEvent_done(&e);
   }
   char *chart = Commands_frontChart(&v);
   assert_string_equal(chart, "the network's front: estimated total latency (ms) against the error bound (log scale)\n"
                       "  0.028 |o...........................................                \n"
                       "        |                                           .                \n"
                       "        |                                           .                \n"
                       "  0.027 |                                           .                \n"
                       "        |                                           .                \n"
                       "        |                                           .                \n"
                       "  0.026 |                                           .                \n"
                       "        |                                           .                \n"
                       "  0.025 |                                           o..............  \n"
                       "        |                                                         .  \n"
                       "        |                                                         .  \n"
                       "  0.024 |                                                         o  \n"
                       "        +------------------------------------------------------------\n"
                       "         2e-6                                                    0.01\n");
   free(chart);
   TuneView_done(&v);
   SessionEvent he = { .kind = SESSION_HEADER, .header = h };
   SessionEvent_done(&he);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(testHeader, setUpScreen, tearDownScreen),
      cmocka_unit_test_setup_teardown(testTable, setUpScreen, tearDownScreen),
      cmocka_unit_test_setup_teardown(testDrafts, setUpScreen, tearDownScreen),
      cmocka_unit_test_setup_teardown(testFleet, setUpScreen, tearDownScreen),
      cmocka_unit_test_setup_teardown(testCurves, setUpScreen, tearDownScreen),
      cmocka_unit_test_setup_teardown(testLogAndHints, setUpScreen, tearDownScreen),
      cmocka_unit_test(testWrap),
      cmocka_unit_test(testSettings),
      cmocka_unit_test_setup_teardown(testBoard, setUp, tearDown),
      cmocka_unit_test_setup_teardown(testStates, setUpScreen, tearDownScreen),
      cmocka_unit_test_setup_teardown(testEta, setUp, tearDown),
      cmocka_unit_test_setup_teardown(testNavigation, setUpResnet, tearDownScreen),
      cmocka_unit_test_setup_teardown(testSortKeys, setUpResnet, tearDownScreen),
      cmocka_unit_test_setup_teardown(testFilterKeys, setUpResnet, tearDownScreen),
      cmocka_unit_test_setup_teardown(testSearchKeys, setUpResnet, tearDownScreen),
      cmocka_unit_test_setup_teardown(testFollow, setUpResnet, tearDownScreen),
      cmocka_unit_test_setup_teardown(testMouse, setUpResnet, tearDownScreen),
      cmocka_unit_test_setup_teardown(testCommands, setUp, tearDown),
      cmocka_unit_test_setup_teardown(testPager, setUpScreen, tearDownScreen),
      cmocka_unit_test_setup_teardown(testWholeLog, setUp, tearDown),
      cmocka_unit_test_setup_teardown(testGoto, setUp, tearDown),
      cmocka_unit_test_setup_teardown(testReplayTitle, setUpScreen, tearDownScreen),
      cmocka_unit_test_setup_teardown(testResumed, setUp, tearDown),
      cmocka_unit_test_setup_teardown(testKeys, setUp, tearDown),
      cmocka_unit_test_setup_teardown(testCompletion, setUp, tearDown),
      cmocka_unit_test_setup_teardown(testConsole, setUp, tearDown),
      cmocka_unit_test_setup_teardown(testComparison, setUpScreen, tearDownScreen),
      cmocka_unit_test(testFrontChart),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
