/* The workbench (DESIGN.md 3.8): the screen over a tuning run. One loop on the UI
 * thread waits in poll() for the keyboard and the engine's wake descriptor, folds the
 * new events into the board, and redraws the panels with one doupdate. A replay is
 * the same screen fed from a session file at its recorded pace. While the screen is
 * up its thread is named "screen" (top -H, htop). The terminal is restored on every
 * way out: q or F10, the console's quit, SIGINT, SIGTERM, SIGHUP, a fatal signal or
 * exit(). */
#ifndef HEADER_workbench
#define HEADER_workbench

#include "device/device.h"
#include "te/network.h"
#include "tune/engine.h"
#include "tune/session.h"

/* Runs the engine on its thread under the screen until the user quits (the engine
 * stops after its round and the session gets its finished event) or the error of the
 * engine. `past` (NULL for a new run) holds a resumed session's events, shown first.
 * Prints a summary on standard output after the screen is gone. 0, or 1 after
 * printing why on standard error. */
int Workbench_live(Engine *e, const SessionLog *past, const DeviceSet *devices);

/* Plays the session `path` (read into log) on the screen, at its recorded pace times
 * speed (0: at once). net is the session's task file, or NULL when it was not found. */
int Workbench_replay(const char *path, const SessionLog *log, const Network *net, const DeviceSet *devices,
                     double speed);

#endif
