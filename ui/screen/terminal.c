/* The terminal restored on every way out of a curses screen. */
#include "config.h"

#include "terminal.h"

#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h>

static volatile sig_atomic_t cursesOn;

static void restore(void) {
   if (cursesOn) {
      cursesOn = 0;
      endwin();
   }
}

/* a crash: the terminal back to the shell, then the default action */
static void onFatalSignal(int sig) {
   restore();
   signal(sig, SIG_DFL);
   raise(sig);
}

static const int stopSignals[] = { SIGINT, SIGTERM, SIGHUP };
static const int fatalSignals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

int Terminal_take(void (*onStop)(int sig)) {
   static bool registered;
   if (!newterm(NULL, stdout, stdin))
      return -1;
   cursesOn = 1;
   struct sigaction sa;
   memset(&sa, 0, sizeof sa);
   sigemptyset(&sa.sa_mask);
   sa.sa_handler = onStop;
   for (size_t i = 0; i < sizeof stopSignals / sizeof stopSignals[0]; i++)
      sigaction(stopSignals[i], &sa, NULL);
   sa.sa_handler = onFatalSignal;
   sa.sa_flags = SA_RESETHAND;
   for (size_t i = 0; i < sizeof fatalSignals / sizeof fatalSignals[0]; i++)
      sigaction(fatalSignals[i], &sa, NULL);
   if (!registered)
      atexit(restore);
   registered = true;
   return 0;
}

void Terminal_give(void) {
   restore();
   for (size_t i = 0; i < sizeof stopSignals / sizeof stopSignals[0]; i++)
      signal(stopSignals[i], SIG_DFL);
   for (size_t i = 0; i < sizeof fatalSignals / sizeof fatalSignals[0]; i++)
      signal(fatalSignals[i], SIG_DFL);
}
