/* The command line's subcommands, each a front end of the library. */
#ifndef HEADER_cli
#define HEADER_cli

#include <stdbool.h>
#include <stdio.h>

#include "screen/details.h"
#include "device/device.h"
#include "measure/measurer.h"
#include "sched/state.h"
#include "te/network.h"
#include "util/xalloc.h"

/* Exit statuses: 0 success, 1 bad input (a file), 2 bad usage (flags). */
enum { EXIT_INPUT = 1, EXIT_USAGE = 2 };

/* One option of a subcommand, for getopt_long and for --help alike, so that what a
 * subcommand accepts and what its help says come from one table. */
typedef struct CliOption_ {
   const char *name;            /* the long name, without "--" */
   int val;                     /* what Cli_getopt returns for it; not 'h' */
   const char *arg;             /* its argument as the help writes it ("N"); NULL: none */
   const char *help;            /* what it does, wrapped by Cli_help */
} CliOption;

/* A subcommand's help: "Usage: pruner-tui NAME USAGE", what it does, its options
 * (ended by a NULL name) and -h, --help. */
typedef struct CliCommand_ {
   const char *name;
   const char *usage;           /* lines separated by '\n' */
   const char *about;           /* paragraphs separated by '\n', each wrapped */
   const CliOption *options;
} CliCommand;

/* What Cli_getopt returns besides an option's val, and -1 after the last option. */
enum {
   CLI_OPT_HELP = -2,           /* -h or --help: the help is on stdout; exit 0 */
   CLI_OPT_BAD = -3,            /* an unknown option or a missing argument, reported */
};
/* getopt_long over cmd's options and -h/--help; the caller sets optind = 1 before the
 * first call. */
int Cli_getopt(const CliCommand *cmd, int argc, char **argv);
/* The help of cmd, wrapped to 80 columns. */
void Cli_help(const CliCommand *cmd, FILE *out);

/* "pruner-tui CMD: message" ("pruner-tui: message" for a NULL cmd) and the hint to
 * `pruner-tui CMD --help` (a subcommand's) or `pruner-tui --help` (NULL, or an option
 * like "--batch") on stderr; returns EXIT_USAGE. */
int Cli_usage(const char *cmd, const char *fmt, ...) ATTR_FORMAT(2, 3);
/* Parses an integer argument in [min, max] into *out, or reports a usage error. */
int Cli_parseCount(const char *cmd, const char *what, const char *text, long min, long max, long *out);
/* Which ends of a range Cli_parseReal leaves out. */
enum { CLI_ABOVE_MIN = 1, CLI_BELOW_MAX = 2 };
/* Parses a number ("2.5") from min to max into *out, each end included unless bounds
 * says otherwise, or reports "WHAT must be a number above|at least MIN and below|at most
 * MAX, not 'TEXT'". */
int Cli_parseReal(const char *cmd, const char *what, const char *text, double min, double max, int bounds,
                  double *out);
/* Parses a number in (min, max] ("2.5") into *out, or reports a usage error. */
int Cli_parseNumber(const char *cmd, const char *what, const char *text, double min, double max, double *out);
/* Parses a size in bytes, a number with an optional K, M, G or T (powers of 1024):
 * "512M", "1.5G"; at least 1 MiB. 0, or EXIT_USAGE after reporting. */
int Cli_parseSize(const char *cmd, const char *what, const char *text, double *out);
/* --max-memory, shared by the commands that check states on the CPU */
#define CLI_MAX_MEMORY_OPTION                                                                          \
   { "max-memory", 'M', "SIZE",                                                                        \
     "the most memory a task's CPU check may take, like 512M or 4G (default 2G); a larger task is " \
     "not checked on the CPU" }
/* --input NAME=DIMS, shared by every command that reads a model: Cli_getopt takes it
 * itself (checking it) and keeps each for Cli_loadNetwork. */
#define CLI_OPT_INPUT 0x1001
#define CLI_OPT_SIMPLE_TASKS 0x1002
/* with --include-simple-tasks, which Cli_getopt takes the same way */
#define CLI_INPUT_OPTION                                                                              \
   { "input", CLI_OPT_INPUT, "NAME=DIMS",                                                             \
     "an ONNX model's input NAME with its dimensions, e.g. --input input=1x3x224x224 (repeat for each " \
     "input the model leaves open)" },                                                                 \
   { "include-simple-tasks", CLI_OPT_SIMPLE_TASKS, NULL,                                               \
     "make an ONNX model's elementwise, concat and resize groups tasks too (TVM's include_simple_tasks)" }
/* Adds an --input to those the model is read with; 0, or EXIT_USAGE after reporting. */
int Cli_addModelInput(const char *cmd, const char *text);
/* Adds --include-simple-tasks to the import options. */
void Cli_addSimpleTasks(void);
/* The --input flags given, "NAME=DIMS;NAME=DIMS" (with IMPORT_SIMPLE_TASKS for
 * --include-simple-tasks), or NULL. */
const char *Cli_modelInputs(void);
/* Loads a task file or an ONNX model (looked up as Paths_findTaskFile does), with the
 * --input flags given; 0 or EXIT_INPUT. */
int Cli_loadNetwork(const char *file, Network *net);
/* The task files that ship in models/, which records' tasks are looked up in. */
#define CLI_SHIPPED_NETWORKS 13
/* Loads the shipped task files (one that is missing is left out quietly) and then
 * files[0..nfiles) into nets, which has room for CLI_SHIPPED_NETWORKS + nfiles; *n gets
 * how many. 0, or EXIT_INPUT after reporting a file of files. */
int Cli_loadNetworks(const char *const *files, int nfiles, Network *nets, int *n);
/* "3", "0,4,7" or "all" into selected[0..ntasks); 0, or EXIT_USAGE after reporting
 * "CMD: WHAT takes task IDs ...". */
int Cli_parseTaskList(const char *cmd, const char *what, const char *text, const Network *net, bool *selected);
/* The options of measure and dataset that set up the measurer, after --device */
#define CLI_MEASURER_OPTIONS                                                                           \
   { "sim-profile", 'p', "NAME", "the profile --device auto simulates without a GPU (default h100_sxm)" }, \
   { "devices", 'D', "FILE", "also read GPU descriptions from FILE (see pruner-tui --help)" },          \
   { "repeats", 'r', "N", "timed repeats per state; the latency is their median (default 3)" },         \
   { "timeout", 't', "S", "a run past S seconds is a run timeout (default 10)" },                       \
   { "build-timeout", 'b', "S", "a build past S seconds is a build timeout (default 15)" },             \
   { "jobs", 'j', "N", "NVRTC compile threads (default one per core)" },                                \
   { "no-compile", 'C', NULL, "the simulator skips NVRTC and estimates registers from the loop nest: faster" }, \
   CLI_MAX_MEMORY_OPTION
/* A --device argument must be one MeasurerFleet_parse takes (the measurer checks the
 * GPUs and the profiles); 0, or EXIT_USAGE after reporting. */
int Cli_checkDevice(const char *cmd, const char *device);
/* --mpi: starts MPI (mpi.h); *rank is this process's. 0, or EXIT_USAGE after reporting
 * (a build without MPI, or MPI that cannot start). */
int Cli_startMpi(const char *cmd, int *rank);
/* A worker rank of --mpi: measures what rank 0 asks with cfg's devices, looking tasks
 * up in nets, until rank 0 ends the run. Its exit status. */
int Cli_mpiWorker(const MeasurerConfig *cfg, const Network *nets, int nnets);
/* A worker rank that cannot serve (its task file did not load): tells rank 0 why and
 * waits for the end. EXIT_INPUT. */
int Cli_mpiRefuse(const char *why);
/* A --state argument: the JSON itself, or @FILE for a file holding it. */
char *Cli_readStateArg(const char *arg, char **cause);
/* Loads the shipped devices.yaml, the user's, then `devicesFile` if not NULL, into
 * `set`, which it initializes; on failure the set is left empty. */
int Cli_loadDevices(DeviceSet *set, const char *devicesFile);

/* A task file and one state of one of its tasks. */
typedef struct Subject_ {
   Network net;
   DetailsSubject details;
} Subject;

/* The options of kernel and explain that pick the state for Cli_loadSubject: --seed
 * returns 's', --state 'S'. */
#define CLI_STATE_OPTIONS                                                                              \
   { "seed", 's', "N", "sample the state from seed N (default 1)" },                                  \
   { "state", 'S', "JSON|@FILE",                                                                       \
     "the state itself, as its JSON text (a session's or a record's) or read from FILE; not with --seed" }

/* Loads FILE, picks task TASK, and parses --state or samples a valid state with the
 * seed (1 when not given). Returns 0, or the exit status after reporting. */
int Cli_loadSubject(const char *cmd, const char *file, const char *taskArg, long seed, bool seedGiven,
                    const char *stateArg, Subject *out);
void Subject_done(Subject *s);

/* `--list FILE.task`: the task table and totals. */
int Cli_list(const char *taskFile, FILE *out);
/* `--list-devices`: the known devices. */
int Cli_listDevices(const char *devicesFile, FILE *out);
/* `kernel FILE.task TASK [--seed N | --state JSON] [--arch sm_NN]`; argv[0] is "kernel". */
int Cli_kernel(int argc, char **argv);
/* `check FILE.task [--samples N] [--tasks LIST] [--arch LIST] ...`; argv[0] is "check". */
int Cli_check(int argc, char **argv);
/* `explain FILE.task TASK [--seed N | --state JSON] [--device NAME] [--devices FILE]
 * [--no-compile]`; argv[0] is "explain". */
int Cli_explain(int argc, char **argv);

/* `measure FILE.task TASK [--samples N] [--device D] ...`; argv[0] is "measure". */
int Cli_measure(int argc, char **argv);
/* `dataset FILE.task... --out RECORDS [--states N] [--device D] ...`; argv[0] is
 * "dataset". */
int Cli_dataset(int argc, char **argv);

/* `train --records FILE... --model KIND --out FILE ...`; argv[0] is "train". */
int Cli_train(int argc, char **argv);
/* `eval --records FILE... --model FILE|psa|random ...`; argv[0] is "eval". */
int Cli_eval(int argc, char **argv);
/* `predict FILE.task [--device D] [--model CKPT] ...`; argv[0] is "predict". */
int Cli_predict(int argc, char **argv);
/* `calibrate --records FILE... --device PROFILE --out FILE.yaml ...`; argv[0] is
 * "calibrate". */
int Cli_calibrate(int argc, char **argv);

/* `export SESSION [--records FILE] [--curve FILE] [--kernels DIR] [--devices FILE]
 * [--network FILE.task]`; argv[0] is "export". */
int Cli_export(int argc, char **argv);
/* `pruner-tui import MODEL.onnx`: the model's tasks as a task file. */
int Cli_import(int argc, char **argv);
/* `pruner-tui run MODEL.onnx`: the graph on the C references, checked against data. */
int Cli_run(int argc, char **argv);

/* `FILE.task [--trials N] [--per-round M] ...` on the workbench, `--batch FILE.task ...`
 * (or standard output not a terminal) without the screen, `--resume SESSION` either
 * way; argv is main's (the options may come in any order). */
int Cli_tune(int argc, char **argv);
/* `--replay FILE [--speed X]`: a session played back as text, at its recorded pace
 * times X (0: no waiting); argv is main's. */
int Cli_replay(int argc, char **argv);
/* compare.c: pruner-tui --compare SESSION SESSION [SESSION]... */
int Cli_compare(int argc, char **argv);
/* `__session-compare A B`: exit status 0 when the sessions agree but for the clock. */
int Cli_sessionCompare(const char *a, const char *b);

#endif
