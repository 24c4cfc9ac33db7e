/* The workbench's console line: GNU Readline's callback interface driven by keys the
 * screen reads (c-anchors.md §2). Readline never reads the terminal nor writes to it:
 * the screen forwards each byte with Console_feed, and Console_draw paints the prompt,
 * the line and the cursor into a curses window. History is kept between runs in a
 * file; completion asks the caller for the words that fit. Readline is one per
 * process, so there is one console. Only the UI thread may call these. */
#ifndef HEADER_console
#define HEADER_console

#include <stdbool.h>

#include <curses.h>

/* A finished line (the caller owns nothing: it is valid during the call), or NULL when
 * the user closed the console (Ctrl-D on an empty line, or Escape). */
typedef void (*ConsoleLineFn)(void *ctx, const char *line);
/* The candidates for the word being completed: `word` is its text so far and `index`
 * the number of words before it on the line (0: the command's name), `words` those
 * words. Returns a NULL-terminated array of malloc'd strings, all starting with
 * `word` (the caller frees them), or NULL for none. */
typedef char **(*ConsoleCompleteFn)(void *ctx, const char *word, int index, char *const *words);

typedef struct ConsoleConfig_ {
   const char *prompt;          /* e.g. ":" */
   const char *historyFile;     /* read at open, written at close; NULL: none */
   int historyMax;              /* lines kept; <= 0: 500 */
   ConsoleLineFn onLine;
   ConsoleCompleteFn complete;  /* NULL: no completion */
   void *ctx;
} ConsoleConfig;

/* Sets readline up (its terminal handling, signals and environment switched off, its
 * output to /dev/null) and reads the history. */
void Console_init(const ConsoleConfig *cfg);
/* Writes the history (the directory is made when missing) and lets readline go. */
void Console_done(void);

/* Starts a line: the console has the keys until the line ends. */
void Console_start(void);
/* Ends the line being edited without running it. */
void Console_cancel(void);
bool Console_active(void);
/* Gives readline one byte of input (UTF-8 and escape sequences a byte at a time). A
 * lone Escape, when no byte follows within the caller's wait, closes the console: the
 * caller calls Console_escape then. */
void Console_feed(int byte);
void Console_escape(void);

/* The line as edited now, and the cursor's byte offset in it. */
const char *Console_line(void);
int Console_point(void);
/* When completion listed several candidates: them, space-separated, until the next
 * key; "" otherwise. */
const char *Console_matches(void);

/* Paints the prompt and the line into w's first row (scrolled so that the cursor shows)
 * and leaves the cursor there. */
void Console_draw(WINDOW *w);

/* The display width of the first `bytes` bytes of s (UTF-8; a tab to the next multiple
 * of 8, a control character as ^X). */
int Console_width(const char *s, int bytes);

#endif
