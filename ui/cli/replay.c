/* `pruner-tui --replay FILE`: a session played back on the workbench when standard
 * output is a terminal, else as text. As text, the events go through the view model at their recorded times
 * (divided by --speed) and the view prints what --batch printed when it ran: a line per
 * round, the commands, the scheduler's table every 10 rounds and at the end, and the
 * summary. */
#include "config.h"

#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"
#include "tune/session.h"
#include "tune/view.h"
#include "util/xalloc.h"
#include "screen/workbench.h"

/* Plays the session's times: an event recorded at t seconds is shown at t / speed after
 * the replay began. A resumed run's clock starts again from 0; its times are shifted
 * to go on from where the earlier part ended. */
typedef struct Pacer_ {
   double speed;                /* 0: no waiting */
   struct timespec start;       /* CLOCK_MONOTONIC */
   double last, shift;          /* the session's last time, and what it is shifted by */
} Pacer;

static void Pacer_start(Pacer *p, double speed) {
   p->speed = speed;
   p->last = p->shift = 0;
   clock_gettime(CLOCK_MONOTONIC, &p->start);
}

static void Pacer_waitFor(Pacer *p, double t) {
   if (t < p->last)
      p->shift += p->last - t;
   p->last = t;
   if (p->speed == 0)
      return;
   double offset = (t + p->shift) / p->speed;
   if (!(offset < 1e9))
      offset = 1e9;
   double whole = floor(offset);
   struct timespec due = {
      .tv_sec = p->start.tv_sec + (time_t)whole,
      .tv_nsec = p->start.tv_nsec + (long)((offset - whole) * 1e9),
   };
   if (due.tv_nsec >= 1000000000L) {
      due.tv_sec++;
      due.tv_nsec -= 1000000000L;
   }
   while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL) == EINTR)
      ;
}

/* What is replayed, and the fleet that measured it when the header names one (older
 * sessions do not). */
static void printHeader(const char *path, const TuneView *v, const SessionHeader *h) {
   printf("replay of %s: %s (%s, %d tasks) recorded on %s%s, policy %s, cost model %s, %d trials, %d per round, "
          "seed %lld\n",
          path, v->network, v->networkFile, v->ntasks, v->device, v->simulated ? " (SIMULATED, not a GPU)" : "",
          v->policy, v->costModel, v->budget, v->measuresPerRound, (long long)v->seed);
   if (!h->fleet || !*h->fleet)
      return;
   if (h->fleetSize > 0)
      printf("fleet: %s (%d device%s)\n", h->fleet, h->fleetSize, h->fleetSize == 1 ? "" : "s");
   else
      printf("fleet: %s\n", h->fleet);
}

/* Folds the events in and prints what each shows. */
static void play(const SessionLog *log, TuneView *v, double speed) {
   Progress p;
   Progress_init(&p, stdout, v);
   Pacer pacer;
   Pacer_start(&pacer, speed);
   for (int i = 1; i < log->count; i++) {
      const SessionEvent *e = &log->events[i];
      Pacer_waitFor(&pacer, e->elapsed);
      TuneView_apply(v, e);
      Progress_event(&p, e);
      fflush(stdout);
   }
   if (!v->finished)
      printf("the session ends without a finished event: the run was killed, or is still going\n");
   Progress_end(&p, v->elapsed);
   Progress_done(&p);
}

int Cli_replay(int argc, char **argv) {
   enum { O_REPLAY = 256, O_SPEED };
   static const struct option options[] = {
      { "replay", required_argument, NULL, O_REPLAY },
      { "speed", required_argument, NULL, O_SPEED },
      { NULL, 0, NULL, 0 },
   };
   const char *path = NULL;
   double speed = 1;
   optind = 1;
   opterr = 0;
   int c;
   while ((c = getopt_long(argc, argv, ":", options, NULL)) != -1) {
      switch (c) {
      case O_REPLAY: path = optarg; break;
      case O_SPEED:
         if (Cli_parseReal("--replay", "--speed", optarg, 0, 1e6, 0, &speed))
            return EXIT_USAGE;
         break;
      case ':': return Cli_usage("--replay", "option '%s' needs an argument", argv[optind - 1]);
      default: return Cli_usage("--replay", "unknown option '%s'", argv[optind - 1]);
      }
   }
   if (optind < argc)
      return Cli_usage("--replay", "unexpected argument '%s'", argv[optind]);
   if (!path)
      return Cli_usage("--replay", "expected --replay FILE");

   SessionLog log;
   SessionLog_init(&log);
   char *notice = NULL, *cause = NULL;
   if (Session_read(path, &log, &notice, &cause) < 0) {
      fprintf(stderr, "pruner-tui --replay: %s\n", cause);
      free(cause);
      return EXIT_INPUT;
   }
   if (notice) {
      fprintf(stderr, "pruner-tui --replay: %s\n", notice);
      free(notice);
   }
   const SessionHeader *h = &log.events[0].header;
   Network net;
   bool haveNet = TuneView_findNetwork(h, &net, &cause) == 0;
   if (isatty(STDOUT_FILENO)) {
      DeviceSet devices;
      DeviceSet_init(&devices);
      int rc = Cli_loadDevices(&devices, NULL);
      if (rc == 0)
         rc = Workbench_replay(path, &log, haveNet ? &net : NULL, &devices, speed);
      free(cause);
      DeviceSet_done(&devices);
      if (haveNet)
         Network_done(&net);
      SessionLog_done(&log);
      return rc;
   }
   TuneView view;
   TuneView_init(&view, h, haveNet ? &net : NULL);
   printHeader(path, &view, h);
   if (!haveNet) {
      printf("note: %s; the table shows no GFLOPS\n", cause);
      free(cause);
   }
   fflush(stdout);
   play(&log, &view, speed);
   TuneView_done(&view);
   if (haveNet)
      Network_done(&net);
   SessionLog_done(&log);
   return 0;
}
