/* The command line's subcommands, each a front end of the library. */
#ifndef HEADER_cli
#define HEADER_cli

#include <stdio.h>

/* Exit statuses: 0 success, 1 bad input (a file), 2 bad usage (flags). */
enum { EXIT_INPUT = 1, EXIT_USAGE = 2 };

/* `--list FILE.task`: the task table and totals. */
int Cli_list(const char *taskFile, FILE *out);
/* `--list-devices`: the known devices. */
int Cli_listDevices(const char *devicesFile, FILE *out);
/* `kernel FILE.task TASK [--seed N | --state JSON] [--arch sm_NN]`; argv[0] is "kernel". */
int Cli_kernel(int argc, char **argv);
/* `check FILE.task [--samples N] [--tasks LIST] [--arch LIST] ...`; argv[0] is "check". */
int Cli_check(int argc, char **argv);

#endif
