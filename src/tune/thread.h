/* The engine on its own thread (DESIGN.md 3.7): the thread runs round after round
 * until tuning is over; the UI thread sends commands (EngineThread_command) and takes
 * the events (EngineThread_take) when the wake descriptor is readable, so that one
 * select() or poll() waits for the keyboard and the engine alike. While the engine is
 * paused as a whole the thread sleeps until the next command. The thread blocks every
 * signal, so that the UI's thread gets them, and is named "engine" (as top -H, htop
 * and /proc/PID/task/TID/comm show it). Only the UI thread calls
 * these functions; nothing else of the engine may be touched while the thread runs. */
#ifndef HEADER_thread
#define HEADER_thread

#include <stdbool.h>

#include "tune/engine.h"
#include "tune/session.h"

typedef struct EngineThread_ EngineThread;

/* Starts running e's rounds (e must not have a listener yet). NULL with *cause when
 * the pipe or the thread cannot be made. */
EngineThread *EngineThread_start(Engine *e, char **cause);
/* Readable when events are waiting, or the thread has ended. */
int EngineThread_fd(const EngineThread *t);
/* Queues a command for the engine (Engine_command) and wakes a paused engine. */
void EngineThread_command(EngineThread *t, const char *text);
/* Moves the events that arrived since the last call into *events (*n of them; the
 * caller frees each with SessionEvent_done and then the array) and empties the wake
 * descriptor. True when the thread has ended and no event is left after these. */
bool EngineThread_take(EngineThread *t, SessionEvent **events, int *n);
/* Waits for the thread to end (send "stop" first to end it early), then frees t and
 * any events not taken. 0, or -1 with *cause when the engine failed (the session
 * could not be written); e is then the caller's again. */
int EngineThread_join(EngineThread *t, char **cause);

#endif
