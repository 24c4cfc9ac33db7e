/* The workbench's loop: the terminal, the keys, the console, the pager, and the
 * events of an engine or a session file folded into the board. */
#include "config.h"

#include "workbench.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curses.h>

#include "board.h"
#include "commands.h"
#include "console.h"
#include "keys.h"
#include "layout.h"
#include "pager.h"
#include "panels.h"
#include "settings.h"
#include "terminal.h"
#include "tune/thread.h"
#include "util/paths.h"
#include "util/xalloc.h"

/* ---- the signals the loop answers ---- */

static volatile sig_atomic_t quitSignal, interruptSignal;

static void onQuitSignal(int sig) {
   if (sig == SIGINT)
      interruptSignal = 1;
   else
      quitSignal = 1;
}

static double now(void) {
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double threadCpu(void) {
   struct timespec ts;
   clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
   return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- the screen ---- */

typedef struct {
   Layout layout;
   LayoutContent content;       /* what the layout was fitted to */
   bool tooSmall;
   WINDOW *header, *table, *curves, *drafts, *log, *console;
   /* the setup screen (F2): its selected line */
   bool setup;
   int setupRow;
   char *settingsPath;          /* the settings file */
   /* the pager: help, a task's details, stats, the log */
   Pager pager;
   WINDOW *pagerWindow;
   bool logView;                /* the pager shows the log, new lines added as they come */
   int logShown;                /* the log's lines it shows */
} Screen;

static void freeWindows(Screen *s) {
   WINDOW **all[] = { &s->header, &s->table, &s->curves, &s->drafts, &s->log, &s->console, &s->pagerWindow };
   for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
      if (*all[i]) {
         delwin(*all[i]);
         *all[i] = NULL;
      }
}

static WINDOW *windowAt(Rect r) {
   return newwin(r.h, r.w, r.y, r.x);
}

static void layOut(Screen *s, const Board *b) {
   freeWindows(s);
   s->content = Board_content(b);
   s->tooSmall = Layout_compute(LINES, COLS, &s->content, &s->layout) < 0;
   if (s->tooSmall)
      return;
   s->header = windowAt(s->layout.header);
   s->table = windowAt(s->layout.table);
   s->curves = windowAt(s->layout.curves);
   s->drafts = windowAt(s->layout.drafts);
   s->log = windowAt(s->layout.log);
   s->console = windowAt(s->layout.console);
   s->pagerWindow = newwin(LINES - 1, COLS, 0, 0);
   if (s->pager.open)
      Pager_resize(&s->pager, COLS, LINES - 2);
}

/* the task rows the table shows */
static int tableRows(const Screen *s) {
   return s->tooSmall ? 1 : Panels_tableRows(s->layout.table.h);
}

static void closePager(Screen *s) {
   Pager_close(&s->pager);
   s->logView = false;
}

/* the pager over the screen but its last row: a title bar, then the text */
static void openPager(Screen *s, const char *title, char *text) {
   s->logView = false;
   Pager_open(&s->pager, title, text, COLS, LINES - 2);
}

/* the whole log in the pager (l), from its first line */
static void openLog(Screen *s, const Board *b) {
   openPager(s, "log", Board_logText(b));
   s->logView = true;
   s->logShown = b->nlog;
}

/* the log's new lines into the log's pager; at its end it follows them */
static void followLog(Screen *s, const Board *b) {
   if (s->pager.open && s->logView && s->logShown != b->nlog) {
      Pager_update(&s->pager, Board_logText(b));
      s->logShown = b->nlog;
   }
}

/* ---- the setup screen (F2) ---- */

/* its lines: the columns one may hide, then the sort, its order, the curve, its scale,
 * following */
enum { SETUP_SORT = COLUMN_COUNT, SETUP_ORDER, SETUP_CURVE, SETUP_SCALE, SETUP_FOLLOW, SETUP_END };

static const char *const columnHelp[COLUMN_COUNT] = {
   [COLUMN_WEIGHT] = "the task's occurrences in the network",
   [COLUMN_LATENCY] = "the best latency measured",
   [COLUMN_SHARE] = "weight x latency over the estimated total (where the width allows)",
   [COLUMN_GFLOPS] = "the best's FLOPs per second",
   [COLUMN_TRIALS] = "the states measured",
   [COLUMN_ROOF] = "the share of the device's roofline the best reaches",
   [COLUMN_IDLE] = "the task's rounds since its best improved (where the width allows)",
   [COLUMN_PRIO] = "the scheduler's priority",
   [COLUMN_STATE] = "tuning, paused, excluded, focused, waiting or ready",
};

static const char *const curveNames[CURVE_COUNT] = { "total / trials", "total / time", "the task's best" };

/* the setup lines in order: the hideable columns, then SETUP_SORT .. SETUP_FOLLOW */
static int setupItems(int items[SETUP_END]) {
   int n = 0;
   for (int c = 0; c < COLUMN_COUNT; c++)
      if (Layout_hideable((Column)c))
         items[n++] = c;
   for (int i = SETUP_SORT; i < SETUP_END; i++)
      items[n++] = i;
   return n;
}

static void drawSetup(Screen *s, const Board *b) {
   WINDOW *w = s->pagerWindow;
   int cols = getmaxx(w);
   werase(w);
   wattron(w, A_REVERSE);
   mvwhline(w, 0, 0, ' ', cols);
   mvwaddnstr(w, 0, 0, " Setup  up/down choose, space or enter changes, F2 or q saves and closes", cols);
   wattroff(w, A_REVERSE);
   int items[SETUP_END], n = setupItems(items);
   mvwaddnstr(w, 2, 2, "Columns of the task table (ID and Task always show):", cols - 2);
   int y = 3;
   for (int i = 0; i < n; i++) {
      int it = items[i];
      char line[256];
      if (it < COLUMN_COUNT)
         snprintf(line, sizeof line, "[%c] %-8s %s", b->hidden & (1u << it) ? ' ' : 'x', Layout_columns[it].name,
                  columnHelp[it]);
      else if (it == SETUP_SORT)
         snprintf(line, sizeof line, "sort     %s", SortKey_name(b->sort));
      else if (it == SETUP_ORDER)
         snprintf(line, sizeof line, "order    %s", b->descending ? "descending" : "ascending");
      else if (it == SETUP_CURVE)
         snprintf(line, sizeof line, "curve    %s first", curveNames[b->curve]);
      else if (it == SETUP_SCALE)
         snprintf(line, sizeof line, "scale    %s (the curves' y axes; L)", b->logScale ? "log" : "linear");
      else
         snprintf(line, sizeof line, "follow   %s (the selection goes to each round's task)", b->follow ? "yes" : "no");
      if (it == SETUP_SORT) {
         y++;
         mvwaddnstr(w, y++, 2, "The table and the curves:", cols - 2);
      }
      if (i == s->setupRow)
         wattron(w, A_REVERSE);
      mvwaddnstr(w, y++, 4, line, cols - 4);
      if (i == s->setupRow)
         wattroff(w, A_REVERSE);
   }
   y++;
   char where[512];
   snprintf(where, sizeof where, "saved to %s, and read when the workbench starts",
            s->settingsPath ? s->settingsPath : "-");
   mvwaddnstr(w, y, 2, where, cols - 2);
   wnoutrefresh(w);
}

/* space or enter on the setup's selected line */
static void changeSetup(Screen *s, Board *b) {
   int items[SETUP_END], n = setupItems(items);
   if (s->setupRow < 0 || s->setupRow >= n)
      return;
   int it = items[s->setupRow];
   if (it < COLUMN_COUNT)
      b->hidden ^= 1u << it;
   else if (it == SETUP_SORT)
      Board_sort(b, (SortKey)((b->sort + 1) % SORT_COUNT));
   else if (it == SETUP_ORDER)
      Board_sortDirection(b, !b->descending);
   else if (it == SETUP_CURVE)
      b->curve = (CurveKind)((b->curve + 1) % CURVE_COUNT);
   else if (it == SETUP_SCALE)
      b->logScale = !b->logScale;
   else
      Board_follow(b, !b->follow);
}

static void draw(Screen *s, Board *b) {
   /* the tasks arrive with the session's header: fit the layout to them */
   LayoutContent c = Board_content(b);
   if (c.tasks != s->content.tasks || c.nameWidth != s->content.nameWidth || c.hidden != s->content.hidden) {
      layOut(s, b);
      clearok(curscr, TRUE);
   }
   if (s->tooSmall) {
      erase();
      char text[128];
      snprintf(text, sizeof text, "pruner-tui needs at least %dx%d; this terminal is %dx%d", LAYOUT_MIN_COLS,
               LAYOUT_MIN_ROWS, COLS, LINES);
      mvaddnstr(LINES / 2, 0, text, COLS);
      mvaddnstr(LINES / 2 + 1, 0, "(q quits)", COLS);
      wnoutrefresh(stdscr);
      doupdate();
      return;
   }
   if (s->setup) {
      drawSetup(s, b);
   } else if (s->pager.open) {
      followLog(s, b);
      Pager_draw(s->pagerWindow, &s->pager);
   } else {
      Panels_header(s->header, b);
      Panels_table(s->table, b);
      Panels_curves(s->curves, b);
      Panels_drafts(s->drafts, b);
      Panels_log(s->log, b);
   }
   if (s->pager.open && !s->setup && Pager_drawStatus(s->console, &s->pager)) {
      curs_set(s->pager.prompt != 0);
   } else if (Console_active()) {
      Console_draw(s->console);
      wnoutrefresh(s->console);
      curs_set(1);
   } else {
      Panels_hints(s->console, b);
      curs_set(b->prompt.kind != PROMPT_NONE);
   }
   doupdate();
}

/* ---- the run ---- */

#define WORKBENCH_SENT_SECONDS 5.0   /* how long a "sent:" notice stays on the console row */

typedef struct {
   Board board;
   Screen screen;
   bool quit;                   /* leave the loop (live: once the engine ended) */
   bool dirty;
   /* live */
   EngineThread *thread;
   bool ended;
   double clockOffset, clockStart;
   GpuState *gpuState;          /* the measurer's; NULL on the simulator and without NVML */
   double gpuAt;                /* when the header's GPU state was sampled (now()) */
   /* replay */
   const Network *net;          /* the task file the view is built with */
   const SessionLog *log;
   int next;                    /* the next event to show */
   double replayClock;          /* the session's time reached */
   double lastTime, shift;      /* a resumed session's clock starts again from 0 */
   double messageAt;            /* when a console answer became the message (now()) */
} Run;

/* The settings file over the board's defaults; a bad one is named in the log and the
 * defaults stand. */
static void loadSettings(Run *r) {
   r->screen.settingsPath = Paths_configFile("workbench.conf");
   Settings st;
   Settings_fromBoard(&st, &r->board);
   char *cause = NULL;
   if (Settings_load(r->screen.settingsPath, &st, &cause) < 0) {
      Board_log(&r->board, "settings: %s; the defaults stand", cause);
      free(cause);
      return;
   }
   Settings_toBoard(&st, &r->board);
}

/* -1 with the reason in the board's message */
static int saveSettings(Run *r) {
   Settings st;
   Settings_fromBoard(&st, &r->board);
   char *cause = NULL;
   if (Settings_save(r->screen.settingsPath, &st, &cause) < 0) {
      snprintf(r->board.message, sizeof r->board.message, "settings not saved: %s", cause);
      free(cause);
      return -1;
   }
   return 0;
}

static void sendCommand(void *ctx, const char *text) {
   Run *r = ctx;
   EngineThread_command(r->thread, text);
}

static void page(void *ctx, const char *title, char *text) {
   Run *r = ctx;
   openPager(&r->screen, title, text);
}

static void askQuit(void *ctx) {
   Run *r = ctx;
   if (r->thread && !r->ended) {
      if (!r->board.stopping) {
         r->board.stopping = true;
         EngineThread_command(r->thread, "stop");
         snprintf(r->board.message, sizeof r->board.message, "stopping after the current round...");
      }
   } else {
      r->quit = true;
   }
}

/* The keys as curses decodes them (the navigation keys, the mouse) for the
 * workbench, or raw bytes for readline while the console is open. */
static void decodeKeys(bool on) {
   keypad(stdscr, on);
   mousemask(on ? KEYS_MOUSE_EVENTS : 0, NULL);
}

/* A console line: run it, log it and its answer; an answer longer than the screen's
 * width, or of several lines, opens in the pager. The console stays open for the next
 * command until Escape (line NULL). */
static void onLine(void *ctx, const char *line) {
   Run *r = ctx;
   Board *b = &r->board;
   r->dirty = true;
   if (!line) {
      decodeKeys(true);
      return;
   }
   if (*line) {
      char *answer = NULL;
      int rc = Commands_run(b, line, &answer);
      Board_log(b, "> %s", line);
      if (answer) {
         char *shown = xAsprintf("%s%s", rc < 0 ? "error: " : "", answer);
         Board_log(b, "%s", shown);
         snprintf(b->message, sizeof b->message, "%s", shown);
         r->messageAt = now();
         if (strchr(shown, '\n') || (int)strlen(shown) > COLS)
            openPager(&r->screen, line, shown);   /* the pager keeps it */
         else
            free(shown);
      }
      free(answer);
   }
   if (r->quit) {
      decodeKeys(true);
      return;
   }
   Console_start();
   /* a pager opened by the command or for its answer takes the keys, decoded, first */
   if (r->screen.pager.open)
      decodeKeys(true);
}

static char **complete(void *ctx, const char *word, int index, char *const *words) {
   Run *r = ctx;
   return Commands_complete(&r->board, word, index, words);
}

/* a key's command, as the console would run it */
static void keyCommand(Run *r, const char *fmt, ...) ATTR_FORMAT(2, 3);
static void keyCommand(Run *r, const char *fmt, ...) {
   char text[128];
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(text, sizeof text, fmt, ap);
   va_end(ap);
   char *answer = NULL;
   int rc = Commands_run(&r->board, text, &answer);
   if (answer) {
      snprintf(r->board.message, sizeof r->board.message, "%s%s", rc < 0 ? "error: " : "", answer);
      r->messageAt = now();
   }
   free(answer);
}

/* a key that commands the engine (Commands_forKey); false for another */
static bool keyLine(Run *r, int ch) {
   char line[128];
   if (!Commands_forKey(&r->board, ch, line, sizeof line))
      return false;
   keyCommand(r, "%s", line);
   return true;
}

static void replayToEnd(Run *r);
static void replaySeek(Run *r, int round);

static void handleKey(Run *r, int ch);

/* A mouse event: the wheel scrolls the pager; on the table, Keys_mouse. */
static void handleMouse(Run *r) {
   Screen *s = &r->screen;
   MEVENT e;
   if (getmouse(&e) != OK || Console_active() || s->tooSmall || s->setup)
      return;
   r->board.message[0] = '\0';
   if (s->pager.open) {
      if (e.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED))
         Pager_scroll(&s->pager, e.bstate & BUTTON4_PRESSED ? -KEYS_WHEEL_ROWS : KEYS_WHEEL_ROWS);
      return;
   }
   int key = Keys_mouse(&r->board, &e, s->layout.table);
   if (key)
      handleKey(r, key);
}

static void handleKey(Run *r, int ch) {
   Board *b = &r->board;
   Screen *s = &r->screen;
   r->dirty = true;
   if (ch == KEY_MOUSE) {
      handleMouse(r);
      return;
   }
   if (ch == KEY_RESIZE) {
      layOut(s, b);
      clearok(curscr, TRUE);
      return;
   }
   /* the pager first: the console's answers open in it while the console stays open */
   if (s->pager.open) {
      if (!Pager_key(&s->pager, ch)) {
         closePager(s);
         /* back to the console: its keys as the bytes readline reads */
         if (Console_active())
            decodeKeys(false);
      }
      return;
   }
   if (Console_active()) {
      if (ch == 27) {
         /* a lone Escape leaves; one that starts a sequence goes to readline */
         wtimeout(stdscr, 30);
         int next = wgetch(stdscr);
         nodelay(stdscr, TRUE);
         if (next == ERR) {
            Console_escape();
            return;
         }
         Console_feed(27);
         ch = next;
      }
      if (ch >= 0 && ch < 256)
         Console_feed(ch);
      return;
   }
   b->message[0] = '\0';
   if (s->setup) {
      int items[SETUP_END], n = setupItems(items);
      switch (ch) {
      case KEY_UP: case 'k': s->setupRow = s->setupRow > 0 ? s->setupRow - 1 : 0; break;
      case KEY_DOWN: case 'j': s->setupRow = s->setupRow < n - 1 ? s->setupRow + 1 : n - 1; break;
      case ' ': case '\n': case '\r': case KEY_ENTER: changeSetup(s, b); break;
      case 'q': case KEY_F(2): case KEY_F(10): case 27:
         s->setup = false;
         if (saveSettings(r) == 0)
            snprintf(b->message, sizeof b->message, "settings saved to %s", s->settingsPath);
         break;
      default: break;
      }
      return;
   }
   if (s->tooSmall && ch != 'q' && ch != KEY_F(10))
      return;
   int rows = tableRows(s);
   if (!s->tooSmall && Keys_table(b, ch, rows))
      return;
   switch (ch) {
   case 'q': case KEY_F(10): askQuit(r); break;
   case 'c': b->curve = (CurveKind)((b->curve + 1) % CURVE_COUNT); break;
   case 'L': b->logScale = !b->logScale; break;
   case '?': case 'h': case KEY_F(1): openPager(s, "help", Commands_help()); break;
   case 'l': openLog(s, b); break;
   case KEY_F(2):
      s->setup = true;
      s->setupRow = 0;
      break;
   case ':':
      decodeKeys(false);
      Console_start();
      break;
   case ' ':
      if (b->replay)
         b->replayPaused = !b->replayPaused;
      else
         keyLine(r, ch);
      break;
   case '.':
      if (b->replay && b->replaySpeed < 1024)
         b->replaySpeed *= 2;
      break;
   case ',':
      if (b->replay && b->replaySpeed > 1.0 / 64)
         b->replaySpeed /= 2;
      break;
   case 'e':
      if (b->replay)
         replayToEnd(r);
      break;
   case '[': case ']':
      if (b->replay)
         replaySeek(r, b->view.rounds + (ch == ']' ? 1 : -1));
      break;
   case 'R':
      if (b->replay)
         replaySeek(r, 0);
      break;
   default:
      r->dirty = keyLine(r, ch);
      break;
   }
}

static void readKeys(Run *r) {
   int ch;
   while ((ch = wgetch(stdscr)) != ERR)
      handleKey(r, ch);
}

/* ---- the replay's clock ---- */

/* the replay time of the next event */
static double peekTime(const Run *r) {
   const SessionEvent *e = &r->log->events[r->next];
   double shift = r->shift + (e->elapsed < r->lastTime ? r->lastTime - e->elapsed : 0);
   return e->elapsed + shift;
}

/* the next event of the file onto the board, at its replay time */
static void applyNext(Run *r) {
   double t = peekTime(r);
   const SessionEvent *e = &r->log->events[r->next++];
   r->shift = t - e->elapsed;
   r->lastTime = e->elapsed;
   r->board.clock = t;
   Board_apply(&r->board, e);
   r->dirty = true;
}

static void showDue(Run *r) {
   while (r->next < r->log->count && peekTime(r) <= r->replayClock)
      applyNext(r);
   if (r->next >= r->log->count && !r->board.replayDone) {
      r->board.replayDone = true;
      r->dirty = true;
   }
}

static void replayToEnd(Run *r) {
   r->replayClock = INFINITY;
   showDue(r);
   r->replayClock = r->board.clock;
}

/* The replay from the file's start again, nothing shown (the table's sort,
 * selection, columns and filter stay). */
static void replayRestart(Run *r) {
   Board *b = &r->board;
   TuneView_done(&b->view);
   TuneView_init(&b->view, &r->log->events[0].header, r->net);
   Board_logClear(b);
   b->replayDone = false;
   r->next = 1;
   r->shift = r->lastTime = 0;
   b->clock = 0;
}

/* what a seek folded in, paused there */
static void replayPause(Run *r) {
   if (r->next >= r->log->count)
      r->board.replayDone = true;
   r->replayClock = r->board.clock;
   r->board.replayPaused = true;
   r->dirty = true;
}

/* The replay as it stood at the end of round `round` (0: before the first), paused
 * there. */
static void replaySeek(Run *r, int round) {
   Board *b = &r->board;
   round = round < 0 ? 0 : round > b->replayRounds ? b->replayRounds : round;
   replayRestart(r);
   while (r->next < r->log->count && r->log->events[r->next].round <= round)
      applyNext(r);
   replayPause(r);
}

static void seekRound(void *ctx, int round) {
   replaySeek(ctx, round);
}

/* The replay as it stood at its time `seconds`, paused there; the clock shows it. */
static void seekTime(void *ctx, double seconds) {
   Run *r = ctx;
   replayRestart(r);
   r->replayClock = seconds;
   showDue(r);
   replayPause(r);
   if (!r->board.replayDone)
      r->board.clock = r->replayClock = seconds;
}

/* ---- the loop ---- */

static bool utf8Locale(void) {
   const char *cs = nl_langinfo(CODESET);
   return cs && strcmp(cs, "UTF-8") == 0;
}

static int startScreen(Run *r) {
   setlocale(LC_ALL, "");
   if (Terminal_take(onQuitSignal) < 0) {
      fprintf(stderr, "pruner-tui: cannot use the terminal '%s'; try --batch\n", getenv("TERM") ? getenv("TERM") : "");
      return -1;
   }
   set_escdelay(25);
   cbreak();
   noecho();
   nonl();
   decodeKeys(true);
   nodelay(stdscr, TRUE);
   curs_set(0);
   const char *noColor = getenv("NO_COLOR");
   r->board.color = has_colors() && !(noColor && *noColor);
   Panels_initColors(r->board.color);
   r->board.unicode = utf8Locale();
   loadSettings(r);
   char *history = Paths_userStateFile("history");
   ConsoleConfig cc = { .prompt = ":", .historyFile = history, .onLine = onLine, .complete = complete, .ctx = r };
   Console_init(&cc);
   free(history);
   layOut(&r->screen, &r->board);
   return 0;
}

static void stopScreen(Run *r) {
   /* the sort, the columns, the curve, its scale and following, for the next start */
   bool unsaved = r->screen.settingsPath && saveSettings(r) < 0;
   free(r->screen.settingsPath);
   r->screen.settingsPath = NULL;
   mousemask(0, NULL);
   Console_done();
   closePager(&r->screen);
   freeWindows(&r->screen);
   Terminal_give();
   if (unsaved)
      fprintf(stderr, "pruner-tui: %s\n", r->board.message);
}

/* Waits for a key, the engine, or the timeout (ms); then reads what came. */
static void waitInput(Run *r, int timeoutMs) {
   struct pollfd fds[2] = { { .fd = STDIN_FILENO, .events = POLLIN }, { .fd = -1, .events = POLLIN } };
   int n = 1;
   if (r->thread && !r->ended) {
      fds[1].fd = EngineThread_fd(r->thread);
      n = 2;
   }
   if (poll(fds, (nfds_t)n, timeoutMs) < 0 && errno != EINTR)
      return;
   readKeys(r);
}

static void takeEvents(Run *r) {
   SessionEvent *events;
   int n;
   bool ended = EngineThread_take(r->thread, &events, &n);
   for (int i = 0; i < n; i++) {
      Board_apply(&r->board, &events[i]);
      SessionEvent_done(&events[i]);
   }
   free(events);
   if (n > 0)
      r->dirty = true;
   if (ended && !r->ended) {
      r->ended = true;
      r->dirty = true;
      if (r->board.stopping)
         r->quit = true;
   }
}

static void handleSignals(Run *r) {
   if (interruptSignal) {
      interruptSignal = 0;
      r->dirty = true;
      if (Console_active()) {
         Console_cancel();
         decodeKeys(true);
      } else if (r->board.prompt.kind != PROMPT_NONE) {
         Keys_cancel(&r->board, tableRows(&r->screen));
      } else {
         askQuit(r);
      }
   }
   if (quitSignal) {
      quitSignal = 0;
      askQuit(r);
   }
}

static void loop(Run *r) {
   double lastDraw = 0, lastTick = now();
   r->dirty = true;
   while (!r->quit) {
      handleSignals(r);
      double t = now();
      int timeout = 1000;
      if (r->thread) {
         takeEvents(r);
         if (!r->ended)
            r->board.clock = r->clockOffset + t - r->clockStart;
      } else {
         if (!r->board.replayPaused && !r->board.replayDone)
            r->replayClock += (t - lastTick) * r->board.replaySpeed;
         showDue(r);
         if (!r->board.replayPaused && !r->board.replayDone) {
            double due = (peekTime(r) - r->replayClock) / r->board.replaySpeed;
            timeout = due < 0 ? 0 : due > 1 ? 1000 : (int)(due * 1000) + 1;
         }
      }
      lastTick = t;
      /* the GPU's state for the header: a few NVML reads once a second */
      if (r->gpuState && floor(t) != floor(r->gpuAt)) {
         GpuState_sample(r->gpuState, &r->board.gpu);
         r->gpuAt = t;
         r->dirty = true;
      }
      if (floor(t) != floor(lastDraw))
         r->dirty = true;   /* the clock in the header */
      /* a "sent:" notice goes after a while: the header and the table show the rest */
      if (strncmp(r->board.message, "sent: ", 6) == 0 && t - r->messageAt > WORKBENCH_SENT_SECONDS) {
         r->board.message[0] = '\0';
         r->dirty = true;
      }
      if (r->dirty && !r->quit) {
         r->board.uiCpuSeconds = threadCpu();
         draw(&r->screen, &r->board);
         lastDraw = t;
         r->dirty = false;
      }
      if (r->quit)
         break;
      waitInput(r, timeout);
   }
}

/* ---- live and replay ---- */

static void printSummary(const Board *b, double wall) {
   const TuneView *v = &b->view;
   char total[32];
   if (isnan(v->latencyMs))
      snprintf(total, sizeof total, "-");
   else
      snprintf(total, sizeof total, "%.3f ms", v->latencyMs);
   printf("%s on %s%s: %d trials in %d rounds, estimated total latency %s%s%s\n", v->network, v->device,
          v->simulated ? " (SIMULATED)" : "", v->trials, v->rounds, total, v->finished ? ", finished: " : "",
          v->finished ? SessionEnd_name(v->why) : "");
   if (b->sessionPath)
      printf("session: %s\n", b->sessionPath);
   if (wall > 0)
      printf("screen thread: %.3f s of CPU in %.1f s (%.2f%% of a core)\n", b->uiCpuSeconds, wall,
             100 * b->uiCpuSeconds / wall);
}

int Workbench_live(Engine *e, const SessionLog *past, const DeviceSet *devices) {
   Run *r = xCalloc(1, sizeof *r);
   Board *b = &r->board;
   Board_init(b, Engine_header(e), Engine_network(e), devices);
   b->sessionPath = Engine_sessionPath(e);
   b->actions = (BoardActions){ .ctx = r, .send = sendCommand, .page = page, .quit = askQuit };
   for (int i = 1; past && i < past->count; i++)
      Board_apply(b, &past->events[i]);
   r->clockOffset = b->view.elapsed;
   const Measurer *m = Engine_measurer(e);
   r->gpuState = Measurer_gpuState(m);
   if (Measurer_gpuNote(m))
      Board_log(b, "%s", Measurer_gpuNote(m));
   char *cause = NULL;
   if (startScreen(r) < 0) {
      Board_done(b);
      free(r);
      return 1;
   }
   r->thread = EngineThread_start(e, &cause);
   int rc = 0;
   double t0 = now();
   r->clockStart = t0;
   if (r->thread) {
      loop(r);
      if (!r->ended) {
         /* the loop ended without the engine: a signal during the stop */
         EngineThread_command(r->thread, "stop");
      }
      rc = EngineThread_join(r->thread, &cause) < 0;
   } else {
      rc = 1;
   }
   b->uiCpuSeconds = threadCpu();
   stopScreen(r);
   if (rc) {
      fprintf(stderr, "pruner-tui: %s\n", cause);
      free(cause);
   }
   printSummary(b, now() - t0);
   Board_done(b);
   free(r);
   return rc;
}

int Workbench_replay(const char *path, const SessionLog *log, const Network *net, const DeviceSet *devices,
                     double speed) {
   Run *r = xCalloc(1, sizeof *r);
   Board *b = &r->board;
   Board_init(b, &log->events[0].header, net, devices);
   b->sessionPath = path;
   b->replay = true;
   b->replaySpeed = speed > 0 ? speed : 1;
   b->actions = (BoardActions){ .ctx = r, .send = NULL, .page = page, .quit = askQuit, .seekRound = seekRound,
                                .seekTime = seekTime };
   r->log = log;
   r->net = net;
   r->next = 1;
   for (int i = 1; i < log->count; i++)
      b->replayRounds = log->events[i].round > b->replayRounds ? log->events[i].round : b->replayRounds;
   if (startScreen(r) < 0) {
      Board_done(b);
      free(r);
      return 1;
   }
   if (speed == 0)
      replayToEnd(r);
   double t0 = now();
   loop(r);
   b->uiCpuSeconds = threadCpu();
   stopScreen(r);
   printSummary(b, now() - t0);
   Board_done(b);
   free(r);
   return 0;
}
