/* The task table's keys, with htop's habits: the arrows and their letters (j/k, g/G,
 * Ctrl-F/Ctrl-B) for terminals without the navigation keys, the sort and its
 * direction (s or F6, < and >), following the task being tuned (F5), and the search
 * (F3, n) and the filter (/, \ or F4) typed on the console row. Each key changes a
 * board only, so that a test can press them without a terminal; curses gives the key
 * codes. The workbench handles the rest (help, quit, the console, the engine's keys). */
#ifndef HEADER_keys
#define HEADER_keys

#include <stdbool.h>

#include "board.h"

#define KEY_CTRL(c) ((c) & 0x1f)

/* Does what key does to b's table, the table showing `rows` rows; false, changing
 * nothing, for a key the table does not take. While a search or a filter is being
 * typed (b->prompt) it takes every key: text, Backspace, Enter keeps, Esc goes back,
 * F3 finds the search's next task. */
bool Keys_table(Board *b, int key, int rows);

/* Closes the search or filter being typed as Esc does (Ctrl-C, say). */
void Keys_cancel(Board *b, int rows);

#endif
