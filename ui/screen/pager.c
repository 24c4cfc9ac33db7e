/* The pager: a text wrapped to the screen, scrolled and searched with less's keys. */
#include "config.h"

#include "pager.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "panels.h"
#include "util/xalloc.h"

/* ---- the text ---- */

/* the text wrapped to the width, where each line starts */
static void wrap(Pager *p) {
   free(p->text);
   free(p->start);
   p->text = Panels_wrap(p->source, p->width > 1 ? p->width : 80);
   size_t len = strlen(p->text);
   int cap = 16;
   p->start = xMalloc((size_t)cap * sizeof *p->start);
   p->nlines = 0;
   for (size_t at = 0; at < len;) {
      if (p->nlines + 1 >= cap) {
         cap *= 2;
         p->start = xReallocArray(p->start, (size_t)cap, sizeof *p->start);
      }
      p->start[p->nlines++] = (int)at;
      const char *end = strchr(p->text + at, '\n');
      at = end ? (size_t)(end - p->text) + 1 : len;
   }
   p->start[p->nlines] = (int)len;
   if (p->match >= p->nlines)
      p->match = -1;
   Pager_scroll(p, 0);
}

static int lastTop(const Pager *p) {
   return p->nlines - p->rows > 0 ? p->nlines - p->rows : 0;
}

void Pager_open(Pager *p, const char *title, char *text, int width, int rows) {
   Pager_close(p);
   p->open = true;
   p->title = xStrdup(title);
   p->source = text;
   p->width = width;
   p->rows = rows > 1 ? rows : 1;
   p->match = -1;
   wrap(p);
}

void Pager_close(Pager *p) {
   free(p->title);
   free(p->source);
   free(p->text);
   free(p->start);
   if (p->compiled)
      regfree(&p->re);
   memset(p, 0, sizeof *p);
}

void Pager_resize(Pager *p, int width, int rows) {
   p->width = width;
   p->rows = rows > 1 ? rows : 1;
   wrap(p);
}

void Pager_update(Pager *p, char *text) {
   bool atEnd = p->top >= lastTop(p);
   free(p->source);
   p->source = text;
   wrap(p);
   if (atEnd)
      p->top = lastTop(p);
}

const char *Pager_line(const Pager *p, int i, int *len) {
   if (i < 0 || i >= p->nlines) {
      *len = 0;
      return "";
   }
   int end = p->start[i + 1];
   if (end > p->start[i] && p->text[end - 1] == '\n')
      end--;
   *len = end - p->start[i];
   return p->text + p->start[i];
}

void Pager_scroll(Pager *p, int delta) {
   int top = p->top + delta, last = lastTop(p);
   p->top = top > last ? last : top < 0 ? 0 : top;
}

/* ---- the search ---- */

/* where the first match of the compiled pattern on line i starts and ends (bytes);
 * false when there is none from byte `from` on */
static bool matchIn(const Pager *p, int i, int from, int *so, int *eo) {
   int len;
   const char *s = Pager_line(p, i, &len);
   if (from > len)
      return false;
   regmatch_t m = { .rm_so = from, .rm_eo = len };
   if (regexec(&p->re, s, 1, &m, REG_STARTEND | (from > 0 ? REG_NOTBOL : 0)) != 0)
      return false;
   *so = (int)m.rm_so;
   *eo = (int)m.rm_eo;
   return true;
}

/* the line to search from: the last match where it shows, else the first shown */
static int findFrom(Pager *p, bool backward) {
   bool shown = p->match >= p->top && p->match < p->top + p->rows;
   int at = shown ? p->match : p->top;
   int step = backward ? -1 : 1;
   if (shown || backward)
      at += step;
   for (int so, eo; at >= 0 && at < p->nlines; at += step)
      if (matchIn(p, at, 0, &so, &eo)) {
         p->match = at;
         p->top = at > lastTop(p) ? lastTop(p) : at;
         return at;
      }
   snprintf(p->message, sizeof p->message, "Pattern not found");
   return -1;
}

int Pager_search(Pager *p, const char *pattern, bool backward) {
   regex_t re;
   int rc = regcomp(&re, pattern, REG_EXTENDED);
   if (rc != 0) {
      char why[128];
      regerror(rc, &re, why, sizeof why);
      snprintf(p->message, sizeof p->message, "Invalid pattern '%s': %s", pattern, why);
      return -1;
   }
   if (p->compiled)
      regfree(&p->re);
   p->re = re;
   p->compiled = true;
   p->backward = backward;
   p->match = -1;
   return findFrom(p, backward);
}

int Pager_next(Pager *p, bool reverse) {
   if (!p->compiled) {
      snprintf(p->message, sizeof p->message, "No previous regular expression");
      return -1;
   }
   return findFrom(p, p->backward != reverse);
}

/* ---- the keys ---- */

/* a key while the pattern is typed after / or ? */
static void promptKey(Pager *p, int key) {
   size_t n = strlen(p->typed);
   switch (key) {
   case '\n': case '\r': case KEY_ENTER: {
      bool backward = p->prompt == '?';
      p->prompt = 0;
      /* an empty pattern: the last search again, as less does */
      if (n == 0)
         Pager_next(p, p->compiled && backward != p->backward);
      else
         Pager_search(p, p->typed, backward);
      break;
   }
   case KEY_BACKSPACE: case 127: case 8:
      if (n == 0)
         p->prompt = 0;
      else
         p->typed[n - 1] = '\0';
      break;
   case 27: case KEY_CTRL('C'): case KEY_CTRL('G'): p->prompt = 0; break;
   default:
      if (key >= ' ' && key < 256 && key != 127 && n + 1 < sizeof p->typed) {
         p->typed[n] = (char)key;
         p->typed[n + 1] = '\0';
      }
      break;
   }
}

bool Pager_key(Pager *p, int key) {
   if (p->prompt) {
      promptKey(p, key);
      return true;
   }
   p->message[0] = '\0';
   int page = p->rows, half = p->rows / 2 > 0 ? p->rows / 2 : 1;
   switch (key) {
   case KEY_DOWN: case 'j': case 'e': case KEY_CTRL('E'): case KEY_CTRL('N'): Pager_scroll(p, 1); break;
   case KEY_UP: case 'k': case 'y': case KEY_CTRL('Y'): case KEY_CTRL('P'): Pager_scroll(p, -1); break;
   case KEY_NPAGE: case ' ': case 'f': case KEY_CTRL('F'): case KEY_CTRL('V'): Pager_scroll(p, page); break;
   case KEY_PPAGE: case 'b': case KEY_CTRL('B'): Pager_scroll(p, -page); break;
   case 'd': case KEY_CTRL('D'): Pager_scroll(p, half); break;
   case 'u': case KEY_CTRL('U'): Pager_scroll(p, -half); break;
   case KEY_HOME: case 'g': case '<': Pager_scroll(p, -p->nlines); break;
   case KEY_END: case 'G': case '>': Pager_scroll(p, p->nlines); break;
   case '/': case '?':
      p->prompt = key;
      p->typed[0] = '\0';
      break;
   case 'n': Pager_next(p, false); break;
   case 'N': Pager_next(p, true); break;
   case 'q': case 'Q': case KEY_F(10): case 27: case '\n': case '\r': case KEY_ENTER: return false;
   default: break;
   }
   return true;
}

/* ---- drawing ---- */

/* display columns of n bytes of UTF-8 */
static int columns(const char *s, int n) {
   int c = 0;
   for (int i = 0; i < n; i++)
      c += ((unsigned char)s[i] & 0xc0) != 0x80;
   return c;
}

void Pager_draw(WINDOW *w, const Pager *p) {
   int cols = getmaxx(w);
   werase(w);
   wattron(w, A_REVERSE);
   mvwhline(w, 0, 0, ' ', cols);
   /* the title bar is one row: what does not fit is cut (the text below never is) */
   int last = p->top + p->rows < p->nlines ? p->top + p->rows : p->nlines;
   char *bar = xAsprintf(" %s  (lines %d-%d of %d)  / ? search, n N next, q closes", p->title,
                         p->nlines ? p->top + 1 : 0, last, p->nlines);
   mvwaddnstr(w, 0, 0, bar, cols);
   free(bar);
   wattroff(w, A_REVERSE);
   for (int i = p->top; i < last; i++) {
      int len;
      const char *s = Pager_line(p, i, &len);
      int y = 1 + i - p->top;
      mvwaddnstr(w, y, 0, s, len);
      /* each match again in reverse video */
      int so, eo;
      for (int from = 0; p->compiled && matchIn(p, i, from, &so, &eo); from = eo > so ? eo : eo + 1) {
         wattron(w, A_REVERSE);
         mvwaddnstr(w, y, columns(s, so), s + so, eo - so);
         wattroff(w, A_REVERSE);
         if (eo >= len)
            break;
      }
   }
   wnoutrefresh(w);
}

bool Pager_drawStatus(WINDOW *w, const Pager *p) {
   if (!p->prompt && !p->message[0])
      return false;
   werase(w);
   if (p->prompt) {
      mvwprintw(w, 0, 0, "%c%s", p->prompt, p->typed);
   } else {
      wattron(w, A_REVERSE);
      mvwaddnstr(w, 0, 0, p->message, getmaxx(w));
      wattroff(w, A_REVERSE);
   }
   wnoutrefresh(w);
   return true;
}
