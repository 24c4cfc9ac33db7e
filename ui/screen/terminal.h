/* A curses screen's hold on the terminal, given back on every way out: the screen's
 * own end, SIGINT, SIGTERM and SIGHUP (which the screen handles as it likes: the
 * handler only notes them), a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT: the
 * terminal back to the shell, then the signal's default action) or exit(). One screen
 * at a time: the workbench's or --compare's. */
#ifndef HEADER_terminal
#define HEADER_terminal

/* newterm on standard output and input; then the signals above go to onStop (SIGINT,
 * SIGTERM, SIGHUP) or give the terminal back. -1, doing nothing, when curses cannot
 * use the terminal. */
int Terminal_take(void (*onStop)(int sig));
/* endwin, once, and every signal above back to its default action. */
void Terminal_give(void);

#endif
