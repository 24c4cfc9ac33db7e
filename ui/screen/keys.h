/* The task table's keys, with htop's habits: the arrows and their letters (j/k, g/G,
 * Ctrl-F/Ctrl-B) for terminals without the navigation keys, the sort and its
 * direction (s or F6, < and >), following the task being tuned (F5), and the search
 * (F3, n) and the filter (/, \ or F4) typed on the console row. Each key changes a
 * board only, so that a test can press them without a terminal; curses gives the key
 * codes. The workbench handles the rest (help, quit, the console, the engine's keys).
 * The mouse's events on the table change the board the same way, from where they
 * fall in the table's rectangle. */
#ifndef HEADER_keys
#define HEADER_keys

#include <stdbool.h>

#include <curses.h>

#include "board.h"
#include "layout.h"

#define KEY_CTRL(c) ((c) & 0x1f)

/* The rows a notch of the mouse's wheel scrolls, as most terminals do. */
#define KEYS_WHEEL_ROWS 3
/* The events Keys_mouse takes (for mousemask). */
#define KEYS_MOUSE_EVENTS (BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED)

/* Does what key does to b's table, the table showing `rows` rows; false, changing
 * nothing, for a key the table does not take. While a search or a filter is being
 * typed (b->prompt) it takes every key: text, Backspace, Enter keeps, Esc goes back,
 * F3 finds the search's next task. */
bool Keys_table(Board *b, int key, int rows);

/* Does what mouse event e (getmouse's, in screen coordinates) does to b's table, the
 * table drawn in rectangle `table` (its title bar, its column heads, its rows): a
 * click on a row selects its task, a double click too, a click on a column's head
 * sorts by the column (again: the other direction) as s and < > do, the wheel
 * scrolls KEYS_WHEEL_ROWS rows a notch, the selection kept in sight. A click on a row
 * and the wheel end following as the navigation keys do. Returns the key the event
 * also stands for, which the caller handles as pressed: KEY_ENTER (the task's
 * details) for a double click on a row; else 0. An event outside the table, on its
 * title or on a head without a sort, or while a search or filter is typed, changes
 * nothing. */
int Keys_mouse(Board *b, const MEVENT *e, Rect table);

/* Closes the search or filter being typed as Esc does (Ctrl-C, say). */
void Keys_cancel(Board *b, int rows);

#endif
