/* The console line: readline fed a byte at a time, painted by curses. */
#include "config.h"

#include "console.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "util/paths.h"
#include "util/textbuf.h"
#include "util/xalloc.h"

static struct {
   ConsoleConfig cfg;
   char *historyFile;
   FILE *devnull;
   bool active;
   int pending;                 /* the byte readline reads next; -1: none */
   char matches[512];
} console = { .pending = -1 };

/* ---- what readline asks of us ---- */

static int getByte(FILE *in) {
   (void)in;
   int b = console.pending;
   console.pending = -1;
   return b < 0 ? EOF : b;
}

static int inputAvailable(void) {
   return console.pending >= 0;
}

/* readline never paints: Console_draw does, from its buffer */
static void redisplay(void) {
}

static void takeLine(char *line) {
   console.active = false;
   if (line && *line) {
      HIST_ENTRY *last = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;
      if (!last || strcmp(last->line, line) != 0)
         add_history(line);
   }
   if (console.cfg.onLine)
      console.cfg.onLine(console.cfg.ctx, line);
   free(line);
}

/* ---- completion ---- */

static char **candidates;       /* the caller's answer for the word being completed */
static int nextCandidate;

static char *generate(const char *text, int state) {
   (void)text;
   if (state == 0)
      nextCandidate = 0;
   if (!candidates || !candidates[nextCandidate])
      return NULL;
   return candidates[nextCandidate++];
}

static void freeCandidates(void) {
   if (!candidates)
      return;
   /* the ones readline took are its own now; free the rest */
   for (int i = nextCandidate; candidates[i]; i++)
      free(candidates[i]);
   free(candidates);
   candidates = NULL;
}

static char **complete(const char *text, int start, int end) {
   (void)end;
   rl_attempted_completion_over = 1;   /* never file names */
   if (!console.cfg.complete)
      return NULL;
   /* the words before the one being completed */
   char *before = xStrndup(rl_line_buffer, (size_t)start);
   char *words[16], *save = NULL;
   int n = 0;
   for (char *w = strtok_r(before, " \t", &save); w && n < 15; w = strtok_r(NULL, " \t", &save))
      words[n++] = w;
   words[n] = NULL;
   candidates = console.cfg.complete(console.cfg.ctx, text, n, words);
   nextCandidate = 0;
   char **matches = candidates ? rl_completion_matches(text, generate) : NULL;
   freeCandidates();
   free(before);
   return matches;
}

static void showMatches(char **matches, int n, int longest) {
   (void)longest;
   TextBuf t = TextBuf_over(console.matches, sizeof console.matches);
   for (int i = 1; i <= n; i++)
      TextBuf_add(&t, "%s%s", i > 1 ? "  " : "", matches[i]);
}

/* ---- the console ---- */

void Console_init(const ConsoleConfig *cfg) {
   console.cfg = *cfg;
   console.pending = -1;
   console.active = false;
   console.historyFile = cfg->historyFile ? xStrdup(cfg->historyFile) : NULL;
   console.devnull = fopen("/dev/null", "r+");
   rl_readline_name = "pruner-tui";
   rl_catch_signals = 0;
   rl_catch_sigwinch = 0;
   rl_change_environment = 0;
   rl_prep_term_function = NULL;
   rl_deprep_term_function = NULL;
   rl_instream = console.devnull;
   rl_outstream = console.devnull;
   rl_getc_function = getByte;
   rl_input_available_hook = inputAvailable;
   rl_redisplay_function = redisplay;
   rl_attempted_completion_function = complete;
   rl_completion_display_matches_hook = showMatches;
   rl_completion_query_items = -1;
   rl_variable_bind("bell-style", "none");
   rl_variable_bind("page-completions", "off");
   rl_variable_bind("show-all-if-ambiguous", "on");
   using_history();
   stifle_history(cfg->historyMax > 0 ? cfg->historyMax : 500);
   if (console.historyFile)
      read_history(console.historyFile);
   rl_callback_handler_install(cfg->prompt ? cfg->prompt : ":", takeLine);
}

void Console_done(void) {
   rl_callback_handler_remove();
   if (console.historyFile) {
      char *dir = xStrdup(console.historyFile);
      Paths_makeDirs(dirname(dir));
      free(dir);
      write_history(console.historyFile);
      free(console.historyFile);
      console.historyFile = NULL;
   }
   clear_history();
   if (console.devnull)
      fclose(console.devnull);
   console.devnull = NULL;
   console.active = false;
}

static void clearLine(void) {
   rl_callback_sigcleanup();
   rl_replace_line("", 0);
   rl_point = rl_end = 0;
   rl_mark = 0;
   console.matches[0] = '\0';
}

void Console_start(void) {
   clearLine();
   console.active = true;
}

void Console_cancel(void) {
   clearLine();
   console.active = false;
}

bool Console_active(void) {
   return console.active;
}

void Console_feed(int byte) {
   if (!console.active)
      return;
   console.matches[0] = '\0';
   console.pending = byte & 0xff;
   rl_callback_read_char();
   console.pending = -1;
}

void Console_escape(void) {
   bool wasActive = console.active;
   Console_cancel();
   if (wasActive && console.cfg.onLine)
      console.cfg.onLine(console.cfg.ctx, NULL);
}

const char *Console_line(void) {
   return rl_line_buffer ? rl_line_buffer : "";
}

int Console_point(void) {
   return rl_point;
}

const char *Console_matches(void) {
   return console.matches;
}

int Console_width(const char *s, int bytes) {
   mbstate_t st;
   memset(&st, 0, sizeof st);
   int width = 0;
   for (int i = 0; i < bytes && s[i];) {
      wchar_t wc;
      size_t n = mbrtowc(&wc, s + i, (size_t)(bytes - i), &st);
      if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
         memset(&st, 0, sizeof st);
         width++;
         i++;
         continue;
      }
      if (wc == L'\t')
         width = (width / 8 + 1) * 8;
      else if (wc < 32 || wc == 127)
         width += 2;
      else {
         int w = wcwidth(wc);
         width += w < 0 ? 1 : w;
      }
      i += (int)n;
   }
   return width;
}

void Console_draw(WINDOW *w) {
   int cols = getmaxx(w);
   werase(w);
   const char *prompt = rl_display_prompt ? rl_display_prompt : ":";
   const char *line = Console_line();
   int promptWidth = Console_width(prompt, (int)strlen(prompt));
   int cursor = Console_width(line, rl_point);
   /* scroll the line so that the cursor stays inside the window */
   int room = cols - promptWidth - 1;
   int skip = cursor > room ? cursor - room : 0;
   mvwaddstr(w, 0, 0, prompt);
   int col = promptWidth;
   mbstate_t st;
   memset(&st, 0, sizeof st);
   int shown = 0;
   for (int i = 0; line[i] && col < cols;) {
      size_t n = mbrlen(line + i, strlen(line + i), &st);
      if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
         memset(&st, 0, sizeof st);
         n = 1;
      }
      int width = Console_width(line + i, (int)n);
      if (shown >= skip) {
         if ((unsigned char)line[i] < 32)
            mvwprintw(w, 0, col, "^%c", line[i] + '@');
         else
            mvwaddnstr(w, 0, col, line + i, (int)n);
         col += width;
      }
      shown += width;
      i += (int)n;
   }
   if (console.matches[0] && col + 3 < cols) {
      wattron(w, A_DIM);
      mvwaddnstr(w, 0, col + 2, console.matches, cols - col - 3);
      wattroff(w, A_DIM);
   }
   wmove(w, 0, promptWidth + cursor - skip < cols ? promptWidth + cursor - skip : cols - 1);
}
