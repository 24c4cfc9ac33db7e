/* The task table's keys: navigation, sort, follow, search and filter. */
#include "config.h"

#include "keys.h"

#include <stdio.h>
#include <string.h>

#include <curses.h>

#include "panels.h"

/* selects row `row` and scrolls to it */
static void selectRow(Board *b, int row, int rows) {
   int now = Board_rowOf(b, b->selected);
   Board_move(b, row - (now < 0 ? 0 : now), rows);
}

static void noMatch(Board *b, const char *text) {
   snprintf(b->message, sizeof b->message, "no task contains '%s'", text);
}

/* the search's next task from row `from` on; a message when there is none. The
 * selection moves: following the round's task ends. */
static void findFrom(Board *b, const char *text, int from, int rows) {
   int row = Board_find(b, text, from);
   b->follow = false;
   if (row < 0)
      noMatch(b, text);
   else
      selectRow(b, row, rows);
}

static void sorted(Board *b) {
   snprintf(b->message, sizeof b->message, "sorted by %s, %s", SortKey_name(b->sort),
            b->descending ? "descending" : "ascending");
}

static void openPrompt(Board *b, PromptKind kind) {
   BoardPrompt *p = &b->prompt;
   p->kind = kind;
   p->selected = b->selected;
   snprintf(p->filter, sizeof p->filter, "%s", b->filter);
   snprintf(p->text, sizeof p->text, "%s", kind == PROMPT_FILTER ? b->filter : "");
}

/* the text changed: the search goes to its first task from where it started, the
 * filter applies at once */
static void typed(Board *b, int rows) {
   BoardPrompt *p = &b->prompt;
   if (p->kind == PROMPT_FILTER) {
      Board_filter(b, p->text);
      return;
   }
   int from = Board_rowOf(b, p->selected);
   if (*p->text)
      findFrom(b, p->text, from < 0 ? 0 : from, rows);
   else if (from >= 0)
      selectRow(b, from, rows);
}

void Keys_cancel(Board *b, int rows) {
   BoardPrompt *p = &b->prompt;
   if (p->kind == PROMPT_FILTER)
      Board_filter(b, p->filter);
   if (p->kind != PROMPT_NONE && Board_rowOf(b, p->selected) >= 0)
      selectRow(b, Board_rowOf(b, p->selected), rows);
   p->kind = PROMPT_NONE;
}

static void promptKey(Board *b, int key, int rows) {
   BoardPrompt *p = &b->prompt;
   size_t len = strlen(p->text);
   switch (key) {
   case 27: Keys_cancel(b, rows); break;
   case '\n': case '\r': case KEY_ENTER:
      if (p->kind == PROMPT_SEARCH && *p->text) {
         snprintf(b->search, sizeof b->search, "%s", p->text);
         if (Board_find(b, p->text, 0) < 0)
            noMatch(b, p->text);
      }
      p->kind = PROMPT_NONE;
      break;
   case KEY_F(3):
      if (p->kind == PROMPT_SEARCH && *p->text)
         findFrom(b, p->text, Board_rowOf(b, b->selected) + 1, rows);
      break;
   case KEY_BACKSPACE: case 127: case KEY_CTRL('H'):
      /* a whole character: its UTF-8 continuation bytes too */
      while (len > 0 && ((unsigned char)p->text[len - 1] & 0xc0) == 0x80)
         len--;
      if (len > 0)
         len--;
      p->text[len] = '\0';
      typed(b, rows);
      break;
   case KEY_CTRL('U'):
      p->text[0] = '\0';
      typed(b, rows);
      break;
   default:
      if (key >= ' ' && key < 256 && key != 127 && len + 1 < sizeof p->text) {
         p->text[len] = (char)key;
         p->text[len + 1] = '\0';
         typed(b, rows);
      }
      break;
   }
}

/* a key that moves the selection: it ends following the round's task */
static bool navigate(Board *b, int key, int rows) {
   int n = b->view.ntasks;
   switch (key) {
   case KEY_UP: case 'k': Board_move(b, -1, rows); break;
   case KEY_DOWN: case 'j': Board_move(b, 1, rows); break;
   case KEY_PPAGE: case KEY_CTRL('B'): Board_move(b, -rows, rows); break;
   case KEY_NPAGE: case KEY_CTRL('F'): Board_move(b, rows, rows); break;
   case KEY_HOME: case 'g': Board_move(b, -n, rows); break;
   case KEY_END: case 'G': Board_move(b, n, rows); break;
   case 'n':
      if (*b->search)
         findFrom(b, b->search, Board_rowOf(b, b->selected) + 1, rows);
      else
         snprintf(b->message, sizeof b->message, "no search yet (F3 searches)");
      break;
   default: return false;
   }
   b->follow = false;
   return true;
}

bool Keys_table(Board *b, int key, int rows) {
   if (b->prompt.kind != PROMPT_NONE) {
      promptKey(b, key, rows);
      return true;
   }
   if (navigate(b, key, rows))
      return true;
   switch (key) {
   case 's': case KEY_F(6):
      Board_sort(b, (SortKey)((b->sort + 1) % SORT_COUNT));
      sorted(b);
      return true;
   case '<': case '>':
      Board_sortDirection(b, key == '>');
      sorted(b);
      return true;
   case KEY_F(5):
      Board_follow(b, !b->follow);
      snprintf(b->message, sizeof b->message, "%s",
               b->follow ? "following the task being tuned (a navigation key stops)" : "not following");
      return true;
   case KEY_F(3): openPrompt(b, PROMPT_SEARCH); return true;
   case '/': case '\\': case KEY_F(4): openPrompt(b, PROMPT_FILTER); return true;
   default: return false;
   }
}

/* a click on the column heads, x columns from the table's left edge */
static void headClick(Board *b, int x, int cols) {
   int width[COLUMN_COUNT];
   Panels_tableColumns(b, cols, width);
   SortKey k;
   if (!Panels_columnSort(Layout_columnAt(width, x), &k))
      return;
   if (k == b->sort)
      Board_sortDirection(b, !b->descending);
   else
      Board_sort(b, k);
   sorted(b);
}

int Keys_mouse(Board *b, const MEVENT *e, Rect table) {
   int y = e->y - table.y, x = e->x - table.x, rows = Panels_tableRows(table.h);
   if (b->prompt.kind != PROMPT_NONE || y < 0 || y >= table.h || x < 0 || x >= table.w)
      return 0;
   if (e->bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
      Board_scroll(b, e->bstate & BUTTON4_PRESSED ? -KEYS_WHEEL_ROWS : KEYS_WHEEL_ROWS, rows);
      b->follow = false;
      return 0;
   }
   if (!(e->bstate & (BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED)))
      return 0;
   if (y == 1) {
      headClick(b, x, table.w);
      return 0;
   }
   int row = b->top + y - 2;
   if (y < 2 || row >= b->nrows)
      return 0;
   selectRow(b, row, rows);
   b->follow = false;
   return e->bstate & BUTTON1_DOUBLE_CLICKED ? KEY_ENTER : 0;
}
