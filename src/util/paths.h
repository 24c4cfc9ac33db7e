/* Where pruner-tui finds its files: shipped data (devices.yaml, models/) and the
 * user's own configuration, following the XDG base directories. */
#ifndef HEADER_paths
#define HEADER_paths

#include <stddef.h>

/* The first existing of $PRUNER_TUI_DATADIR/rel, the installed data directory and the
 * source tree this binary was built from; NULL when none exists. Caller frees. */
char *Paths_dataFile(const char *rel);
/* A task file as named on the command line: a name with a '/' or one that exists in
 * the current directory is used as is; otherwise models/NAME in the data directories.
 * Returns the name unchanged when nothing is found, so that the error names it. */
char *Paths_findTaskFile(const char *name);
/* The task file a session or record names: as Paths_findTaskFile, but when it is gone
 * (the session was moved, or made in another directory), the task file of that base
 * name, in the current directory or the data directories, when one exists. */
char *Paths_findRecordedTaskFile(const char *named);
/* $XDG_CONFIG_HOME/pruner-tui/rel (default ~/.config), whether or not it exists. */
char *Paths_configFile(const char *rel);
/* $XDG_DATA_HOME/pruner-tui/rel (default ~/.local/share), whether or not it exists. */
char *Paths_userDataFile(const char *rel);
/* $XDG_STATE_HOME/pruner-tui/rel (default ~/.local/state), whether or not it exists. */
char *Paths_userStateFile(const char *rel);
/* Reads a whole file (or a pipe) of at most max bytes, with a NUL after its last byte;
 * *len gets its length. NULL with *cause "PATH: strerror" when it cannot be read, or
 * "PATH: over MAX bytes, the most WHAT may have" before reading past max. */
char *Paths_readFile(const char *path, size_t max, const char *what, size_t *len, char **cause);
/* Makes the directory and its missing parents (mkdir -p); -1 with errno. */
int Paths_makeDirs(const char *dir);

#endif
