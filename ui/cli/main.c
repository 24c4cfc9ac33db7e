/* pruner-tui's entry point: parses the command line and runs one of the front ends. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cost/nn.h"
#include "measure/child.h"
#include "measure/mpi.h"
#include "util/xalloc.h"

static void usage(FILE *out) {
   fprintf(out,
      "Usage: pruner-tui [OPTION]... --list FILE.task\n"
      "       pruner-tui [OPTION]... --list-devices\n"
      "       pruner-tui kernel FILE.task TASK [--seed N | --state JSON|@FILE] [--arch sm_NN]\n"
      "       pruner-tui check FILE.task [--samples N] [--tasks LIST] [--arch LIST] [--seed N]\n"
      "                        [--blocks N] [--jobs N] [--precision LIST] [--max-memory SIZE]\n"
      "       pruner-tui explain FILE.task TASK [--seed N | --state JSON|@FILE]\n"
      "                          [--device NAME] [--devices FILE] [--no-compile]\n"
      "       pruner-tui measure FILE.task TASK|LIST|all [--samples N] [--device D] [OPTION]...\n"
      "       pruner-tui dataset FILE.task... --out RECORDS [--states N] [--device D] [OPTION]...\n"
      "       pruner-tui train --records FILE... --model pam|pam-moa|mlp|xgb [--init CKPT]\n"
      "                        --out FILE [--holdout F] [--epochs N] [--network FILE.task]...\n"
      "       pruner-tui eval --records FILE... --model CKPT|psa|random [--per-task]\n"
      "                       [--network FILE.task]...\n"
      "       pruner-tui predict FILE.task [--device D] [--model CKPT] [--session FILE]\n"
      "       pruner-tui calibrate --records FILE... --device PROFILE --out FILE.yaml\n"
      "                            [--name NAME] [--holdout F] [--seed N] [--network FILE.task]...\n"
      "       pruner-tui export SESSION [--records FILE] [--curve FILE] [--kernels DIR]\n"
      "                         [--devices FILE] [--network FILE.task]\n"
      "       pruner-tui export SESSION --library DIR [--model FILE.onnx] [--arch sm_NN]\n"
      "       pruner-tui import MODEL.onnx [--input NAME=DIMS]... [-o FILE.task]\n"
      "       pruner-tui run MODEL.onnx [--tasks] [--test-data DIR] [--input-data DIR] [--output-data DIR]\n"
      "       pruner-tui FILE.task [--trials N] [OPTION]...   (the workbench)\n"
      "       pruner-tui --batch FILE.task [--trials N] [--per-round M] [--policy pruner|ansor]\n"
      "                  [--cost-model KIND] [--load-model CKPT] [--device D] [--seed S]\n"
      "                  [--session FILE|--no-session] [--no-compile] [--devices FILE] [--jobs N]\n"
      "                  [--precision P[,P]...|auto] [--max-error E] [--error-split task|network]\n"
      "       pruner-tui --resume SESSION [--trials N] [--cost-model KIND] [--no-compile] ...\n"
      "       pruner-tui --replay FILE [--speed X]\n"
      "       pruner-tui --compare [--text] SESSION SESSION [SESSION]...\n"
      "Auto-tune the CUDA kernels of a deep-learning network (Pruner's draft-then-verify\n"
      "search on Ansor's schedule space). This version reads networks and devices,\n"
      "generates and checks kernels, explains what PSA and the features see in them,\n"
      "measures them on a GPU or the simulator, trains and evaluates cost models on the\n"
      "records, tunes a network on the workbench screen or without it (--batch),\n"
      "resumes, plays back (--replay), compares (--compare) and exports tuning sessions.\n"
      "\n"
      "Subcommands (each answers -h, --help with its usage and options):\n"
      "  kernel     print a state of a task (sampled with --seed, default 1, or given with\n"
      "             --state as JSON or @FILE), its launch configuration and its CUDA source;\n"
      "             with --arch, also compile it with NVRTC and print ptxas' report\n"
      "  check      sample --samples states (default 20) of each task (or --tasks 0,3,5),\n"
      "             run each on the CPU executor against the op's C reference (large tasks:\n"
      "             the first, the last and --blocks random blocks, default 4), compile each\n"
      "             with NVRTC for --arch (default sm_80,sm_90) on --jobs threads, and print\n"
      "             a table; a task whose buffers take more than --max-memory SIZE (2G) is\n"
      "             skipped; --precision fp16,bf16,tf32 (or all, with fp32) checks the\n"
      "             Tensor-Core states of each precision within its rounding bound and\n"
      "             prints the error predicted beside the one measured; exit status 1 if\n"
      "             any state failed or any task was skipped\n"
      "  explain    print a state's loop nest, PSA's symbols, penalties and latency\n"
      "             estimate on --device (default a100_40), the simulator's terms per\n"
      "             kernel beside PSA's (--no-compile: registers estimated), and its\n"
      "             feature vectors\n"
      "  measure    sample --samples states (default 10) of the tasks given (an ID, IDs\n"
      "             separated by commas, or all) and measure them: latency, GFLOPS, spread,\n"
      "             registers, spills and errors per state. --device auto (default: CUDA\n"
      "             device 0, else the simulator for --sim-profile, default h100_sxm),\n"
      "             cuda:N or sim:PROFILE. Also --repeats N (3), --min-repeat-ms MS (10),\n"
      "             --timeout S (run timeout, 10), --build-timeout S (15), --jobs N (compile\n"
      "             threads, default one per core), --verify-every N (the simulator checks\n"
      "             1 state in N on the CPU, default 8), --same N (measure each state N\n"
      "             times), --seed N, --records FILE (append one JSON line per state),\n"
      "             --devices FILE, --inject wrong|oob|hang (break every program, to test),\n"
      "             --no-compile (the simulator skips NVRTC and estimates registers),\n"
      "             --max-memory SIZE (2G: a larger task is not checked on the CPU)\n"
      "  dataset    collect training records as TenSet does: --states N (200) per task of\n"
      "             the task files on --device, appended to --out RECORDS; random states,\n"
      "             then with --evolved F (0.5) of each batch mutated from the task's\n"
      "             fastest; --exclude FILE.task leaves that network's tasks out; resumes\n"
      "             where the file stops; progress and ETA on standard error\n"
      "  train      fit a learned cost model to measurement records (their tasks found in\n"
      "             the shipped task files and --network FILE.task) and save a checkpoint;\n"
      "             --holdout 0.2 trains on 80%% of each task's records and reports the\n"
      "             ranking quality on the rest; --init CKPT starts from a checkpoint\n"
      "  eval       score records with a checkpoint, psa or random and print pairwise\n"
      "             ranking accuracy and top-1/top-5 peak scores, weighted over tasks\n"
      "             (--per-task: each task too); for psa also its latency error\n"
      "  predict    the network's end-to-end latency on --device predicted from each task's\n"
      "             schedule (--session's best, else PSA's pick of --samples random states)\n"
      "             by --model's latency head (train --latency-head; default PSA's\n"
      "             estimate), per task and in all, beside the same schedules measured\n"
      "             (simulated on sim:PROFILE; --no-measure: not)\n"
      "  calibrate  fit the simulator's free constants (the sim: keys of devices.yaml) of\n"
      "             --device PROFILE to records measured on that GPU (squared log error plus\n"
      "             --rank-weight times a rank term), print the constants with their standard\n"
      "             errors and the latency error and ranking quality on held-out records\n"
      "             (--holdout, default 0.2) before and after, and write --out FILE.yaml, a\n"
      "             devices.yaml with the profile and its fitted constants for --devices\n"
      "             FILE.yaml\n"
      "  export     project a session file (--batch --session): --records FILE appends\n"
      "             each measurement as a record (for train and eval), --curve FILE writes\n"
      "             the tuning curve (Pruner's total_latency.tsv: elapsed seconds, estimated\n"
      "             total latency, trials per round), --kernels DIR writes each task's best\n"
      "             measured state as DIR/task-ID.cu and its launch configuration as\n"
      "             DIR/task-ID.json; '-' sends records or the curve to standard output.\n"
      "             The tasks come from the session's task file (or --network FILE.task),\n"
      "             the device limits from devices.yaml (and --devices FILE); --library\n"
      "             DIR writes the tuned network as a C library over the CUDA driver API\n"
      "             (its kernels, weights, plan, a Makefile and an example)\n"
      "  import     read an ONNX model, fold its constants and BatchNorms, recognise\n"
      "             LayerNorm, GELU and hardswish, fuse it as TVM's Relay does and write\n"
      "             its tuning tasks and graph as a task file (-o FILE.task); the summary\n"
      "             on standard error\n"
      "  run        run an ONNX model's graph on the operators' C references; --test-data\n"
      "             DIR compares its outputs with DIR/output_N.pb (ONNX's test_data_set\n"
      "             layout), --input-data DIR and --output-data DIR read and write it;\n"
      "             --tasks runs it as the import's kernels (the tasks on their ops'\n"
      "             C references) and prints the activations' memory plan; --session S\n"
      "             runs the session's best states, compiled to native code\n"
      "\n"
      "  Every command that takes FILE.task also takes MODEL.onnx, with --input NAME=DIMS\n"
      "  for each input whose dimensions the model leaves open (e.g. input=1x3x224x224)\n"
      "  and --include-simple-tasks to make its concat, resize and elementwise groups\n"
      "  tasks too.\n"
      "\n"
      "  FILE.task              tune the network on the workbench: the task table,\n"
      "                         curves, draft-vs-verify panel, log and a readline console\n"
      "                         (`:`; `?` lists the keys and commands, `q` quits with the\n"
      "                         session saved); takes --batch's options. When standard\n"
      "                         output is not a terminal it runs as --batch does\n"
      "      --batch FILE.task  tune the network without the screen: a progress line per\n"
      "                         round, the scheduler's table every 10 rounds and at the\n"
      "                         end, then the estimated total latency and the draft\n"
      "                         acceptance. --trials N (budget, default 1000), --per-round M\n"
      "                         (default min(10, N / tasks)), --policy pruner (default) or\n"
      "                         ansor, --cost-model random|psa|xgb|mlp|pam|pam-moa (the\n"
      "                         verify model; default: with pruner, pam from a shipped\n"
      "                         checkpoint that has learned the network's operators, else\n"
      "                         pam) or --load-model CKPT, --device auto|cuda:N|sim:PROFILE\n"
      "                         or several devices: cuda:N,M,..., cuda:all, sim:PROFILE*N\n"
      "                         (one runner or simulator each; a round's measurements\n"
      "                         spread over them), --allow-mixed (devices of different\n"
      "                         models together), --sim-realtime (each simulated\n"
      "                         measurement takes as long as on a GPU), --mpi (under\n"
      "                         mpirun or srun: rank 0 tunes, the other ranks measure\n"
      "                         with their --device), --precision fp32|fp16|bf16|tf32\n"
      "                         (several, comma-separated) or auto (every precision the\n"
      "                         device has: a matrix multiply's Tensor-Core sketches\n"
      "                         beside the FP32 ones), --max-error E (per task: a\n"
      "                         precision predicted to err beyond E, max |out - ref| over\n"
      "                         the reference's RMS, is not searched; measured errors are\n"
      "                         recorded in the session), --error-split network (E\n"
      "                         bounds the network: each task gets E / sqrt(sum of the\n"
      "                         tasks' weights)),\n"      "                         --seed S (1), --session FILE (the session log; never\n"
      "                         overwrites; default NETWORK-DEVICE-DATE-TIME.jsonl in\n"
      "                         $XDG_DATA_HOME/pruner-tui/sessions), --no-session,\n"
      "                         --no-compile (the simulator skips NVRTC), --verify-every N\n"
      "                         (the simulator checks 1 state in N on the CPU, default 8),\n"
      "                         --jobs N (scorer threads). The model trains after each\n"
      "                         round before the next search: a seeded run on the\n"
      "                         simulator writes the same session every time; --overlap\n"
      "                         lets the training run on beside the next round instead\n"
      "                         (faster, not repeatable). Ctrl-C stops it after the\n"
      "                         current round\n"
      "      --resume SESSION   go on with a stopped or killed session: its measurements,\n"
      "                         rounds and applied commands are replayed (nothing is\n"
      "                         measured twice) and tuning goes on to the budget in the\n"
      "                         same file; --trials N and --cost-model KIND change the\n"
      "                         budget and the model (as commands)\n"
      "      --replay FILE      play a session file back on the workbench (space pauses,\n"
      "                         the keys , and . change the speed, e jumps to the end);\n"
      "                         when standard output is not a terminal, as text: the lines\n"
      "                         --batch printed (a line per round, the table every 10\n"
      "                         rounds and at the end, the summary) and the commands, each\n"
      "                         event at its recorded time over --speed X (default 1; 0:\n"
      "                         no waiting)\n"
      "      --compare SESSION SESSION [SESSION]...\n"
      "                         sessions side by side (at most 8): the tuning curves\n"
      "                         against trials and time, the trials each took to reach\n"
      "                         the first's final latency, and per task the best\n"
      "                         latencies with their ratios to the first's; on a\n"
      "                         terminal a screen (the curves overlaid, t trials or\n"
      "                         time, s sort, q quits), else as text\n"
      "      --text             with --compare: print the text even on a terminal\n"
      "  -l, --list FILE.task   print the network's tuning tasks (ID, op, shape, epilogue,\n"
      "                         weight, FLOPs, weight x FLOPs) and the totals\n"
      "      --list-devices     print the GPUs described in devices.yaml\n"
      "      --devices FILE     also read GPU descriptions from FILE; its entries replace\n"
      "                         earlier ones of the same name\n"
      "  -h, --help             show this help and exit\n"
      "  -V, --version          show the version and build features and exit\n"
      "\n"
      "A task file named without a '/' is looked for in the current directory, then in\n"
      "%s/models. GPU descriptions are read from the shipped devices.yaml, then\n"
      "$XDG_CONFIG_HOME/pruner-tui/devices.yaml when it exists, then --devices FILE.\n"
      "Without a GPU, sim:PROFILE simulates any of them (SIMULATED on every line that\n"
      "depends on it). The simulator's constants come from published microbenchmarks,\n"
      "its fact sheet (bench/sim/FACTS.md in the source tree, checked by the tests);\n"
      "calibrate fits them to records of a real GPU.\n"
      "\n"
      "Exit status: 0 on success, 1 for a bad input file, 2 for bad usage.\n"
      "See pruner-tui(1), pruner-tui-task(5), pruner-tui-devices(5) and\n"
      "pruner-tui-records(5).\n",
      PKGDATADIR);
}

static void version(void) {
   printf("pruner-tui %s\n", PACKAGE_VERSION);
#ifdef HAVE_XGBOOST
   const char *xgb = "yes";
#else
   const char *xgb = "no";
#endif
#ifdef HAVE_CUDA_H
   const char *cuda = "yes";
#else
   const char *cuda = "no";
#endif
   printf("features: XGBoost %s, CUDA headers %s (libcuda and NVRTC are loaded at run time), MPI %s\n",
          xgb, cuda, Mpi_built() ? "yes" : "no");
}

static int usageError(const char *fmt, ...) ATTR_FORMAT(1, 2);
static int usageError(const char *fmt, ...) {
   va_list ap;
   va_start(ap, fmt);
   fprintf(stderr, "pruner-tui: ");
   vfprintf(stderr, fmt, ap);
   fprintf(stderr, "\nTry 'pruner-tui --help' for more information.\n");
   va_end(ap);
   return EXIT_USAGE;
}

/* Runs what the command line asks for; its exit status. */
static int dispatch(int argc, char **argv) {
   /* for the tests: whether two sessions agree but for the wall clock */
   if (argc == 4 && strcmp(argv[1], "__session-compare") == 0)
      return Cli_sessionCompare(argv[2], argv[3]);
   for (int i = 1; i < argc; i++)
      if (strcmp(argv[i], "--batch") == 0 || strncmp(argv[i], "--batch=", 8) == 0 ||
          strcmp(argv[i], "--resume") == 0 || strncmp(argv[i], "--resume=", 9) == 0)
         return Cli_tune(argc, argv);
   for (int i = 1; i < argc; i++)
      if (strcmp(argv[i], "--replay") == 0 || strncmp(argv[i], "--replay=", 9) == 0)
         return Cli_replay(argc, argv);
   for (int i = 1; i < argc; i++)
      if (strcmp(argv[i], "--compare") == 0)
         return Cli_compare(argc, argv);
   if (argc > 1 && strcmp(argv[1], "kernel") == 0)
      return Cli_kernel(argc - 1, argv + 1);
   if (argc > 1 && strcmp(argv[1], "check") == 0)
      return Cli_check(argc - 1, argv + 1);
   if (argc > 1 && strcmp(argv[1], "explain") == 0)
      return Cli_explain(argc - 1, argv + 1);
   if (argc > 1 && strcmp(argv[1], "measure") == 0)
      return Cli_measure(argc - 1, argv + 1);
   if (argc > 1 && strcmp(argv[1], "dataset") == 0)
      return Cli_dataset(argc - 1, argv + 1);
   if (argc > 1 && strcmp(argv[1], "train") == 0)
      return Cli_train(argc - 1, argv + 1);
   if (argc > 1 && strcmp(argv[1], "eval") == 0)
      return Cli_eval(argc - 1, argv + 1);
   if (argc > 1 && strcmp(argv[1], "predict") == 0)
      return Cli_predict(argc - 1, argv + 1);
   if (argc > 1 && strcmp(argv[1], "calibrate") == 0)
      return Cli_calibrate(argc - 1, argv + 1);
   if (argc > 1 && strcmp(argv[1], "export") == 0)
      return Cli_export(argc - 1, argv + 1);
   if (argc > 1 && strcmp(argv[1], "import") == 0)
      return Cli_import(argc - 1, argv + 1);
   if (argc > 1 && strcmp(argv[1], "run") == 0)
      return Cli_run(argc - 1, argv + 1);
   /* anything but --list, --list-devices, --help and --version tunes a task file */
   bool other = false;
   for (int i = 1; i < argc; i++)
      other |= strncmp(argv[i], "-l", 2) == 0 || strncmp(argv[i], "--list", 6) == 0 || strcmp(argv[i], "-h") == 0 ||
               strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-V") == 0 || strcmp(argv[i], "--version") == 0;
   if (argc > 1 && !other)
      return Cli_tune(argc, argv);
   enum { OPT_LIST_DEVICES = 256, OPT_DEVICES };
   static const struct option options[] = {
      { "list", required_argument, NULL, 'l' },
      { "input", required_argument, NULL, CLI_OPT_INPUT },
      { "include-simple-tasks", no_argument, NULL, CLI_OPT_SIMPLE_TASKS },
      { "list-devices", no_argument, NULL, OPT_LIST_DEVICES },
      { "devices", required_argument, NULL, OPT_DEVICES },
      { "help", no_argument, NULL, 'h' },
      { "version", no_argument, NULL, 'V' },
      { NULL, 0, NULL, 0 },
   };
   const char *listFile = NULL, *devicesFile = NULL;
   bool listDevices = false;
   opterr = 0;
   int c;
   while ((c = getopt_long(argc, argv, ":l:hV", options, NULL)) != -1) {
      switch (c) {
      case 'l':
         listFile = optarg;
         break;
      case OPT_LIST_DEVICES:
         listDevices = true;
         break;
      case OPT_DEVICES:
         devicesFile = optarg;
         break;
      case CLI_OPT_INPUT:
         if (Cli_addModelInput(NULL, optarg))
            return EXIT_USAGE;
         break;
      case CLI_OPT_SIMPLE_TASKS:
         Cli_addSimpleTasks();
         break;
      case 'h':
         usage(stdout);
         return 0;
      case 'V':
         version();
         return 0;
      case ':':
         return usageError("option '%s' needs an argument", argv[optind - 1]);
      default:
         return usageError("unknown option '%s'", argv[optind - 1]);
      }
   }
   if (optind < argc) {
      if (listFile || listDevices)
         return usageError("unexpected argument '%s'", argv[optind]);
      return usageError("unexpected argument '%s'", argv[optind]);
   }
   if (listFile && listDevices)
      return usageError("--list and --list-devices cannot be combined");
   if (listFile)
      return Cli_list(listFile, stdout);
   if (listDevices)
      return Cli_listDevices(devicesFile, stdout);
   usage(stderr);
   return EXIT_USAGE;
}

/* Standard output written to the end, or exit status 1: a full disk or a file system
 * that failed must not pass for a listing or an export that is complete. A command
 * that failed already has said why; it is not told twice. */
static int closeStdout(int rc) {
   errno = 0;
   bool failed = fflush(stdout) != 0 || ferror(stdout);
   int err = errno;
   /* a large write that failed on its way left nothing to flush and its errno long
    * gone: a byte written after the broken output asks the file system again */
   if (failed && err == 0 && write(STDOUT_FILENO, "\n", 1) < 0)
      err = errno;
   if (fclose(stdout) != 0 && !failed) {
      failed = true;
      err = errno;
   }
   if (!failed || rc != 0)
      return rc;
   fprintf(stderr, "pruner-tui: standard output: %s\n", strerror(err ? err : EIO));
   return EXIT_INPUT;
}

int main(int argc, char **argv) {
   /* the runner process the measurer starts: `pruner-tui __runner FD ORDINAL` */
   if (argc == 4 && strcmp(argv[1], "__runner") == 0)
      return RunnerChild_main(atoi(argv[2]), atoi(argv[3]));
   Nn_restartForKernels(argv);
   int rc = dispatch(argc, argv);
   Mpi_finish();   /* --mpi's rank 0 ends the workers */
   return closeStdout(rc);
}
