/* Key latency of the workbench: runs pruner-tui on a pseudo-terminal (forkpty, 120x40,
 * TERM=xterm-256color), waits for its first full frame and 5 s of tuning, then presses
 * keys while the engine runs and times each one from its write to the master until
 * the first bytes of the redraw come back, and until the bytes that show the key's
 * effect have come. The keys go at least 150 ms apart in blocks of twelve: s five
 * times (the sort goes round id, share, latency, trials, roofline and back to id),
 * five arrows (down, or up near the end, so that each one moves the selection), then
 * ? (the help pager) and q (which closes it). Before each key the output has been
 * quiet for 50 ms and the monotonic clock is away from a whole second, when the
 * header's clock redraws, so that the first bytes are the key's.
 * Usage: bench-ui-keys KEYS TASKS PROGRAM [ARGS...] */
#include "config.h"

#include <math.h>
#include <poll.h>
#include <pty.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/clock.h"

#define COLS 120
#define ROWS 40
#define KEY_TIMEOUT 2.0     /* s: a key not answered by then counts as this */
#define QUIET 0.05          /* s without output before a key */
#define GAP 0.15            /* s at least between keys, to spread them over the engine's rounds */
#define WARMUP 5.0          /* s of tuning before the first key */

static int master = -1;
static char out[1 << 16];   /* the output since the last mark, its start dropped when full */
static size_t outLen;
static double lastOutput;
static bool ended;

static void mark(void) {
   outLen = 0;
}

static bool seen(const char *text) {
   return memmem(out, outLen, text, strlen(text)) != NULL;
}

/* Waits up to `seconds` for output and reads one chunk; true when bytes came. */
static bool readSome(double seconds) {
   if (ended)
      return false;
   struct pollfd p = { .fd = master, .events = POLLIN };
   int ms = seconds > 0 ? (int)ceil(seconds * 1000) : 0;
   if (poll(&p, 1, ms) <= 0)
      return false;
   char chunk[8192];
   ssize_t n = read(master, chunk, sizeof chunk);
   if (n <= 0) {
      /* EIO: the program closed the terminal */
      ended = true;
      return false;
   }
   lastOutput = Clock_now();
   if (outLen + (size_t)n > sizeof out) {
      size_t keep = sizeof out / 4;
      memmove(out, out + outLen - keep, keep);
      outLen = keep;
   }
   memcpy(out + outLen, chunk, (size_t)n);
   outLen += (size_t)n;
   return true;
}

static void readFor(double seconds) {
   double end = Clock_now() + seconds;
   for (double left = seconds; left > 0 && !ended; left = end - Clock_now())
      readSome(left);
}

/* Reads until `text` has come; false after `seconds`. */
static bool readUntil(const char *text, double seconds) {
   double end = Clock_now() + seconds;
   while (!seen(text) && !ended && Clock_now() < end)
      readSome(end - Clock_now());
   return seen(text);
}

/* Reads until the output has been quiet for `quiet` s and the clock is away from a
 * whole second (or `cap` s have passed). */
static void settle(double quiet, double cap) {
   double end = Clock_now() + cap;
   while (!ended && Clock_now() < end) {
      double now = Clock_now(), frac = now - floor(now);
      if (now - lastOutput < quiet)
         readSome(quiet - (now - lastOutput));
      else if (frac < 0.03 || frac > 0.90)
         readFor(frac > 0.90 ? 1.03 - frac : 0.03 - frac);
      else
         return;
   }
}

static const char *const kinds[] = { "s (sort)", "arrow (select)", "? (open the help pager)", "q (close the pager)" };
#define NKINDS (int)(sizeof kinds / sizeof kinds[0])

typedef struct {
   int kind;
   double first, answered;   /* ms; the timeout when nothing came */
   bool ok;
} Sample;

static int byValue(const void *a, const void *b) {
   double x = *(const double *)a, y = *(const double *)b;
   return (x > y) - (x < y);
}

/* median, 95th percentile (nearest rank) and max of n values, sorted in place */
static void stats(double *v, int n, double *median, double *p95, double *max) {
   qsort(v, (size_t)n, sizeof *v, byValue);
   *median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
   int rank = (int)ceil(0.95 * n);
   *p95 = v[rank > 0 ? rank - 1 : 0];
   *max = v[n - 1];
}

/* kind < 0: every key */
static void report(const Sample *s, int n, int kind, bool answered) {
   double *v = malloc((size_t)n * sizeof *v);
   if (!v)
      abort();
   int m = 0;
   for (int i = 0; i < n; i++)
      if (kind < 0 || s[i].kind == kind)
         v[m++] = answered ? s[i].answered : s[i].first;
   if (m > 0) {
      double median, p95, max;
      stats(v, m, &median, &p95, &max);
      printf("  %-24s %4d keys  median %7.2f ms  p95 %7.2f ms  max %7.2f ms\n", kind < 0 ? "all keys" : kinds[kind], m,
             median, p95, max);
   }
   free(v);
}

int main(int argc, char **argv) {
   if (argc < 4) {
      fprintf(stderr, "usage: %s KEYS TASKS PROGRAM [ARGS...]\n", argv[0]);
      return 2;
   }
   int keys = atoi(argv[1]), tasks = atoi(argv[2]);
   if (keys < 1 || tasks < 2) {
      fprintf(stderr, "%s: KEYS must be >= 1 and TASKS >= 2\n", argv[0]);
      return 2;
   }
   struct winsize ws = { .ws_row = ROWS, .ws_col = COLS };
   pid_t pid = forkpty(&master, NULL, NULL, &ws);
   if (pid < 0) {
      perror("forkpty");
      return 1;
   }
   if (pid == 0) {
      setenv("TERM", "xterm-256color", 1);
      execvp(argv[3], argv + 3);
      perror(argv[3]);
      _exit(127);
   }
   double start = Clock_now();
   if (!readUntil("F10:quit", 60)) {
      fprintf(stderr, "bench-ui-keys: no first frame (the hints row) in 60 s\n");
      kill(pid, SIGTERM);
      return 1;
   }
   printf("first frame after %.0f ms\n", (Clock_now() - start) * 1e3);
   readFor(WARMUP);
   double keysStart = Clock_now();

   static const char *const sortNames[] = { "id", "share", "latency", "trials", "roofline" };
   Sample *samples = calloc((size_t)keys, sizeof *samples);
   if (!samples)
      abort();
   int sorts = 0, row = 0, step = 1, unanswered = 0, done = 0;
   for (int k = 0; k < keys && !ended; k++) {
      const char *bytes, *marker;
      int slot = k % 12;
      if (slot < 5) {
         bytes = "s";
         marker = sortNames[++sorts % 5];
         row = 0;   /* a sort selects the first row */
         samples[k].kind = 0;
      } else if (slot < 10) {
         if (row + step < 0 || row + step >= tasks)
            step = -step;
         row += step;
         bytes = step > 0 ? "\033OB" : "\033OA";
         marker = "7m";   /* the selected row's reverse video */
         samples[k].kind = 1;
      } else if (slot == 10) {
         bytes = "?";
         marker = "(lines 1-";
         samples[k].kind = 2;
      } else {
         bytes = "q";
         marker = " Tasks 1-";   /* the table's title, its rows counted */
         samples[k].kind = 3;
      }
      readFor(GAP);
      settle(QUIET, 3);
      mark();
      if (write(master, bytes, strlen(bytes)) != (ssize_t)strlen(bytes)) {
         perror("write");
         break;
      }
      double t0 = Clock_now(), end = t0 + KEY_TIMEOUT;
      samples[k].first = samples[k].answered = KEY_TIMEOUT * 1e3;
      done = k + 1;
      for (bool first = true; !ended && Clock_now() < end;) {
         if (!readSome(end - Clock_now()))
            continue;
         if (first)
            samples[k].first = (lastOutput - t0) * 1e3;
         first = false;
         if (seen(marker)) {
            samples[k].answered = (lastOutput - t0) * 1e3;
            samples[k].ok = true;
            break;
         }
      }
      if (!samples[k].ok) {
         unanswered++;
         if (slot == 10) {
            /* the pager may not be open: q would quit */
            fprintf(stderr, "bench-ui-keys: ? was not answered in %.0f s; stopping\n", KEY_TIMEOUT);
            break;
         }
      }
   }
   double keysDone = Clock_now();

   /* quit, and keep the summary the program prints after the screen */
   settle(QUIET, 3);
   mark();
   if (write(master, "q", 1) != 1)
      perror("write");
   double end = Clock_now() + 120;
   while (!ended && Clock_now() < end)
      readSome(end - Clock_now());
   int status = 0;
   waitpid(pid, &status, 0);

   printf("keys: %d from %.1f s to %.1f s after the start, while the engine ran; %d not answered within %.0f ms%s\n",
          done, keysStart - start, keysDone - start, unanswered, KEY_TIMEOUT * 1e3,
          unanswered ? " (counted as that)" : "");
   for (int answered = 0; answered < 2; answered++) {
      printf(answered ? "from the key's write to the bytes that show its effect:\n"
                      : "from the key's write to the first bytes of the redraw:\n");
      for (int kind = -1; kind < NKINDS; kind++)
         report(samples, done, kind, answered);
   }
   const char *line = memmem(out, outLen, "screen thread:", 14);
   if (line) {
      const char *eol = memchr(line, '\r', (size_t)(out + outLen - line));
      printf("%.*s\n", (int)((eol ? eol : out + outLen) - line), line);
   }
   printf("program exit status: %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
   free(samples);
   return unanswered > 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}
