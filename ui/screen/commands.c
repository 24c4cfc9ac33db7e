/* The console's command table and its handlers. */
#include "config.h"

#include "commands.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curses.h>

#include "tune/export.h"
#include "tune/front.h"
#include "cost/model.h"
#include "chart.h"
#include "details.h"
#include "tune/command.h"
#include "util/textbuf.h"
#include "util/xalloc.h"

/* ---- arguments ---- */

static int refuse(char **answer, const char *fmt, ...) ATTR_FORMAT(2, 3);
static int refuse(char **answer, const char *fmt, ...) {
   va_list ap;
   va_start(ap, fmt);
   *answer = xVasprintf(fmt, ap);
   va_end(ap);
   return -1;
}

static bool parseTask(const Board *b, const char *text, int *task) {
   char *end;
   errno = 0;
   long t = strtol(text, &end, 10);
   if (end == text || *end || errno || t < 0 || t >= b->view.ntasks)
      return false;
   *task = (int)t;
   return true;
}

static int badTask(const Board *b, const char *cmd, const char *text, char **answer) {
   return refuse(answer, "%s: no task '%s' (task IDs go from 0 to %d)", cmd, text, b->view.ntasks - 1);
}

/* Sends an engine command after Command_parse agrees with it. */
static int sendCommand(Board *b, const char *text, char **answer) {
   Command c;
   char *why = NULL;
   if (Command_parse(text, b->view.ntasks, &c, &why) < 0) {
      *answer = why;
      return -1;
   }
   b->actions.send(b->actions.ctx, text);
   Board_sent(b, text);
   *answer = xAsprintf("sent: %s (applied before the next round)", text);
   return 0;
}

/* ---- the engine's commands ---- */

static int runPause(Board *b, int argc, char **argv, char **answer) {
   int task;
   if (argc == 2 && !parseTask(b, argv[1], &task))
      return badTask(b, argv[0], argv[1], answer);
   BoardPending p;
   Board_pending(b, 0, &p);
   if (argc == 1 && (strcmp(argv[0], "pause") == 0) == p.pausedAll) {
      if (p.pausedAll != b->pausedAll)
         return refuse(answer, "%s: sent already (applied before the next round)", argv[0]);
      return refuse(answer, "%s: tuning is %s", argv[0], b->pausedAll ? "paused already" : "not paused");
   }
   char text[64];
   snprintf(text, sizeof text, argc == 2 ? "%s %d" : "%s", argv[0], argc == 2 ? task : 0);
   return sendCommand(b, text, answer);
}

static int runPrio(Board *b, int argc, char **argv, char **answer) {
   (void)argc;
   int task;
   if (!parseTask(b, argv[1], &task))
      return badTask(b, "prio", argv[1], answer);
   char *end;
   double m = strtod(argv[2], &end);
   if (end == argv[2] || *end || !isfinite(m) || m < 0)
      return refuse(answer, "prio: the multiplier must be a number >= 0 (0 pauses the task), not '%s'", argv[2]);
   char text[64];
   snprintf(text, sizeof text, "prio %d %s", task, argv[2]);
   return sendCommand(b, text, answer);
}

static int runFocus(Board *b, int argc, char **argv, char **answer) {
   (void)argc;
   int task;
   if (strcmp(argv[1], "off") != 0 && !parseTask(b, argv[1], &task))
      return refuse(answer, "focus: takes a task ID from 0 to %d or off, not '%s'", b->view.ntasks - 1, argv[1]);
   char text[64];
   snprintf(text, sizeof text, "focus %s", argv[1]);
   return sendCommand(b, text, answer);
}

static int runModel(Board *b, int argc, char **argv, char **answer) {
   if (ModelKind_parse(argv[1]) < 0)
      return refuse(answer, "model: no cost model '%s' (random, psa, xgb, mlp, pam or pam-moa)", argv[1]);
   if (argc == 3 && access(argv[2], R_OK) != 0)
      return refuse(answer, "model: %s: %s", argv[2], strerror(errno));
   char text[600];
   snprintf(text, sizeof text, "model %s%s%s", argv[1], argc == 3 ? " " : "", argc == 3 ? argv[2] : "");
   return sendCommand(b, text, answer);
}

static int runTrials(Board *b, int argc, char **argv, char **answer) {
   (void)argc;
   char *end;
   errno = 0;
   long n = strtol(argv[1], &end, 10);
   if (end == argv[1] || *end || errno || n < 1 || n > 100000000L)
      return refuse(answer, "trials: takes a trial budget from 1 to 100000000, not '%s'", argv[1]);
   if (n < b->view.trials)
      return refuse(answer, "trials: %ld is less than the %d trials done", n, b->view.trials);
   char text[64];
   snprintf(text, sizeof text, "budget %ld", n);
   return sendCommand(b, text, answer);
}

/* ---- queries ---- */

static void describeBest(const Board *b, int t, TextBuf *out) {
   const TuneTaskView *tv = &b->view.tasks[t];
   if (isnan(tv->best)) {
      TextBuf_add(out, "task %d: no successful measurement yet (%d trials)", t, tv->trials);
      return;
   }
   TextBuf_add(out, "task %d: best %.4f ms", t, tv->best * 1e3);
   if (!isnan(tv->flops))
      TextBuf_add(out, ", %.0f GFLOPS", tv->flops / tv->best / 1e9);
   double roof = Board_roofline(b, t);
   if (!isnan(roof))
      TextBuf_add(out, ", %.0f%% of the roofline", roof * 100);
   TextBuf_add(out, " (round %d; %d trials, %d failed)", tv->bestRound, tv->trials, tv->errors);
}

static int runBest(Board *b, int argc, char **argv, char **answer) {
   char line[256];
   TextBuf t = TextBuf_over(line, sizeof line);
   const TuneView *v = &b->view;
   if (argc == 2) {
      int task;
      if (!parseTask(b, argv[1], &task))
         return badTask(b, "best", argv[1], answer);
      describeBest(b, task, &t);
   } else {
      /* the task that weighs most in the estimated total */
      int top = -1;
      double share = 0, total = 0;
      for (int i = 0; i < v->ntasks; i++) {
         double s = isnan(v->tasks[i].best) ? 0 : v->tasks[i].weight * v->tasks[i].best;
         total += s;
         if (s > share) {
            share = s;
            top = i;
         }
      }
      if (isnan(v->latencyMs))
         TextBuf_add(&t, "no estimate yet: %d trials, not every task measured", v->trials);
      else
         TextBuf_add(&t, "estimated total latency %.3f ms after %d trials", v->latencyMs, v->trials);
      if (top >= 0)
         TextBuf_add(&t, "; task %d weighs most (%.0f%%)", top, 100 * share / total);
   }
   *answer = xStrdup(line);
   return 0;
}

static void addSection(FILE *out, const char *title, char *body) {
   fprintf(out, "\n== %s ==\n%s", title, body);
   free(body);
}

/* The summary and the history: what needs no state. */
static void summary(const Board *b, int task, FILE *out) {
   const TuneView *v = &b->view;
   const TuneTaskView *tv = &v->tasks[task];
   fprintf(out, "task %d: %s\n", task, TuneView_describe(v, task));
   fprintf(out, "key %s, weight %g", tv->key, tv->weight);
   if (!isnan(tv->flops))
      fprintf(out, ", %.4g GFLOP per run", tv->flops / 1e9);
   fprintf(out, "\n%d rounds, %d trials (%d ok, %d failed), priority %g%s, %s\n", tv->rounds, tv->trials, tv->ok,
           tv->errors, tv->priority, tv->focused ? ", focused" : "", Board_taskState(b, task));
   char best[256];
   TextBuf bt = TextBuf_over(best, sizeof best);
   describeBest(b, task, &bt);
   fprintf(out, "%s\n", best);
   if (!isnan(b->floor[task]))
      fprintf(out, "roofline floor %.4f ms on %s\n", b->floor[task] * 1e3, b->device->name);
   fprintf(out, "\n== history: best against the task's trials ==\n");
   fprintf(out, "%8s %8s %10s %12s\n", "trials", "run", "time (s)", "best (ms)");
   for (int i = 0; i < tv->ncurve; i++)
      fprintf(out, "%8d %8d %10.1f %12.4f\n", tv->curve[i].taskTrials, tv->curve[i].trials, tv->curve[i].elapsed,
              tv->curve[i].latency * 1e3);
   if (tv->ncurve == 0)
      fprintf(out, "(no improvement yet)\n");
   if (b->net && b->net->graph && task < b->net->ntasks) {
      /* where the task came from: the model's nodes of each of its occurrences */
      const NetGraph *g = b->net->graph;
      fprintf(out, "\n== where it occurs in the model: the nodes of each kernel ==\n");
      for (int i = 0; i < g->nnodes; i++)
         if (g->n[i].task == task)
            fprintf(out, "%s\n", g->n[i].name);
   }
   const char *missing = isnan(tv->best) ? "the task has no successful measurement yet"
                                         : "its best was measured without them (a session written before they were "
                                           "kept, or a GPU whose CUPTI could not profile it)";
   addSection(out, "counters of the best kernel", Details_counters(&tv->bestCounters, b->device, missing));
   char *front = Front_taskText(v, task);
   if (front)
      addSection(out, "front: each precision's best that no faster, no less accurate one beats", front);
}

/* The parts of the best state's text that `what` asks for; -1 with *cause when one
 * part alone was asked for and cannot be given. */
static int stateParts(const Board *b, int task, const char *what, bool all, FILE *out, char **cause) {
   const TuneView *v = &b->view;
   const TuneTaskView *tv = &v->tasks[task];
   if (!tv->bestState) {
      if (!all) {
         *cause = xAsprintf("task %d has no measured state yet", task);
         return -1;
      }
      fprintf(out, "\n(no measured state yet)\n");
      return 0;
   }
   if (all || strcmp(what, "state") == 0)
      fprintf(out, "%s== best state (median %.4f ms, trial %d) ==\n%s\n", all ? "\n" : "", tv->bestMedian * 1e3,
              tv->bestTrial, tv->bestState);
   if (strcmp(what, "state") == 0)
      return 0;
   if (!b->net) {
      if (!all) {
         *cause = xAsprintf("the session's task file %s was not found: no loop nest or source", v->networkFile);
         return -1;
      }
      fprintf(out, "\n(the task file %s was not found: no loop nest or source)\n", v->networkFile);
      return 0;
   }
   SchedLimits lim;
   if (b->device)
      SchedLimits_fromDevice(&lim, b->device);
   else
      SchedLimits_default(&lim);
   DetailsSubject s;
   if (DetailsSubject_init(&s, b->net, task, tv->bestState, &lim, cause) < 0)
      return -1;
   if (all || strcmp(what, "loops") == 0)
      addSection(out, "loop nest", Details_loops(&s));
   if (all || strcmp(what, "cuda") == 0)
      addSection(out, "CUDA", Details_cuda(&s));
   if (all || strcmp(what, "explain") == 0) {
      char *why = NULL;
      char *psa = b->device ? Details_psa(&s, b->device, &why) : NULL;
      if (psa)
         addSection(out, "PSA", psa);
      else
         fprintf(out, "\n== PSA ==\n%s\n", why ? why : "the session's device is not in devices.yaml");
      free(why);
   }
   if (strcmp(what, "explain") == 0)
      addSection(out, "features", Details_features(&s));
   DetailsSubject_done(&s);
   return 0;
}

char *Commands_details(const Board *b, int task, const char *what, char **cause) {
   bool all = strcmp(what, "all") == 0;
   char *text = NULL;
   size_t len = 0;
   FILE *out = open_memstream(&text, &len);
   if (!out)
      fatal("out of memory");
   if (all)
      summary(b, task, out);
   int rc = stateParts(b, task, what, all, out, cause);
   fclose(out);
   if (rc < 0) {
      free(text);
      return NULL;
   }
   return text;
}

static int runShow(Board *b, int argc, char **argv, char **answer) {
   int task;
   if (!parseTask(b, argv[1], &task))
      return badTask(b, argv[0], argv[1], answer);
   const char *what = "all";
   if (strcmp(argv[0], "explain") == 0)
      what = "explain";
   else if (argc == 3) {
      if (strcmp(argv[2], "--cuda") == 0)
         what = "cuda";
      else if (strcmp(argv[2], "--loops") == 0)
         what = "loops";
      else if (strcmp(argv[2], "--state") == 0)
         what = "state";
      else
         return refuse(answer, "show: takes --cuda, --loops or --state, not '%s'", argv[2]);
   }
   char *cause = NULL;
   char *text = Commands_details(b, task, what, &cause);
   if (!text) {
      *answer = xAsprintf("%s: %s", argv[0], cause);
      free(cause);
      return -1;
   }
   char title[128];
   snprintf(title, sizeof title, "task %d%s%s", task, strcmp(what, "all") ? ": " : "", strcmp(what, "all") ? what : "");
   b->actions.page(b->actions.ctx, title, text);
   return 0;
}

enum { FRONT_CHART_W = 60, FRONT_CHART_H = 12 };

char *Commands_frontChart(const TuneView *v) {
   int n = 0;
   FrontChoice **f = Front_network(v, &n);
   double *sx = xCalloc(2 * (size_t)n + 1, sizeof *sx), *sy = xCalloc(2 * (size_t)n + 1, sizeof *sy);
   double *px = xCalloc((size_t)n + 1, sizeof *px), *py = xCalloc((size_t)n + 1, sizeof *py);
   int np = 0, ns = 0;
   double lo = INFINITY, hi = -INFINITY;
   for (int i = 0; i < n; i++) {
      if (!(f[i]->bound > 0))
         continue;
      if (ns > 0) {
         sx[ns] = log10(f[i]->bound);
         sy[ns] = sy[ns - 1];
         ns++;
      }
      px[np] = sx[ns] = log10(f[i]->bound);
      py[np++] = sy[ns++] = f[i]->latencyMs;
      lo = fmin(lo, f[i]->latencyMs);
      hi = fmax(hi, f[i]->latencyMs);
   }
   char *text = NULL;
   if (np >= 2) {
      AxisScale xs = Axis_scale(pow(10, px[0]), pow(10, px[np - 1]), true), ys = Axis_scale(lo, hi, false);
      ChartSeries series[2] = { { sx, sy, ns, true, 0 }, { px, py, np, false, 'o' } };
      char *rows[FRONT_CHART_H];
      char labels[FRONT_CHART_H][CHART_LABEL_MAX];
      for (int r = 0; r < FRONT_CHART_H; r++)
         rows[r] = xMalloc(3 * FRONT_CHART_W + 1);
      Chart_plotSeries(series, 2, log10(xs.lo), log10(xs.hi), ys.lo, ys.hi, FRONT_CHART_W, FRONT_CHART_H,
                       CHART_ASCII, rows, NULL);
      Chart_yLabels(&ys, FRONT_CHART_H, CHART_ASCII, labels);
      char buf[(FRONT_CHART_W + 16) * (FRONT_CHART_H + 4)];
      TextBuf t = TextBuf_over(buf, sizeof buf);
      TextBuf_add(&t, "the network's front: estimated total latency (ms) against the error bound (log scale)\n");
      for (int r = 0; r < FRONT_CHART_H; r++) {
         TextBuf_add(&t, "%7s |%s\n", labels[r], rows[r]);
         free(rows[r]);
      }
      char left[16], right[16];
      Axis_label(xs.lo, left, sizeof left);
      Axis_label(xs.hi, right, sizeof right);
      TextBuf_add(&t, "        +");
      for (int c = 0; c < FRONT_CHART_W; c++)
         TextBuf_add(&t, "-");
      TextBuf_add(&t, "\n         %-*s%s\n", FRONT_CHART_W - (int)strlen(right), left, right);
      text = xStrdup(buf);
   }
   free(sx);
   free(sy);
   free(px);
   free(py);
   Front_free(f, n);
   return text;
}

static int runFront(Board *b, int argc, char **argv, char **answer) {
   (void)argc;
   (void)argv;
   (void)answer;
   char *chart = Commands_frontChart(&b->view), *tables = Front_text(&b->view);
   if (chart) {
      char *both = xAsprintf("%s\n%s", chart, tables);
      free(chart);
      free(tables);
      tables = both;
   }
   b->actions.page(b->actions.ctx, "front", tables);
   return 0;
}

static int runStats(Board *b, int argc, char **argv, char **answer) {
   (void)argc;
   (void)argv;
   (void)answer;
   const TuneView *v = &b->view;
   char *text = NULL;
   size_t len = 0;
   FILE *out = open_memstream(&text, &len);
   if (!out)
      fatal("out of memory");
   char elapsed[32];
   fprintf(out, "%s (%s) on %s%s, policy %s, cost model %s%s%s, seed %lld\n", v->network, v->networkFile,
           v->device, v->simulated ? " (SIMULATED, not a GPU)" : "", v->policy, v->costModel,
           *v->checkpoint ? " from " : "", v->checkpoint, (long long)v->seed);
   Board_duration(v->elapsed, elapsed, sizeof elapsed);
   fprintf(out, "trials %d of %d in %d rounds (%d per round), %s\n", v->trials, v->budget, v->rounds,
           v->measuresPerRound, elapsed);
   if (isnan(v->latencyMs))
      fprintf(out, "estimated total latency: not yet (some task has no cost)\n");
   else
      fprintf(out, "estimated total latency %.3f ms\n", v->latencyMs);
   int ok = 0, failed = 0;
   for (int t = 0; t < v->ntasks; t++) {
      ok += v->tasks[t].ok;
      failed += v->tasks[t].errors;
   }
   fprintf(out, "measurements: %d ok, %d failed\n", ok, failed);
   fprintf(out, "draft acceptance: mean %.3f over %d rounds\n", TuneMean_value(&v->acceptance), v->acceptance.rounds);
   fprintf(out, "Kendall tau (PSA against %s): mean %.3f over %d rounds\n", v->costModel, TuneMean_value(&v->tau),
           v->tau.rounds);
   fprintf(out, "pairwise accuracy on the measured: PSA %.3f over %d rounds, verify %.3f over %d rounds\n",
           TuneMean_value(&v->draftRank), v->draftRank.rounds, TuneMean_value(&v->verifyRank), v->verifyRank.rounds);
   fprintf(out, "measured states by lineage:");
   for (int l = 0; l <= LINEAGE_COUNT; l++)
      if (v->lineages[l])
         fprintf(out, " %s %d", l < LINEAGE_COUNT ? Lineage_name((Lineage)l) : "other", v->lineages[l]);
   fprintf(out, "\nverify model: %d fits, %d failed, last on %d samples", v->modelFits, v->modelFailures,
           v->modelSamples);
   if (!isnan(v->modelSeconds))
      fprintf(out, " in %.2f s", v->modelSeconds);
   fprintf(out, "%s%s\n", *v->modelError ? "; last error: " : "", v->modelError);
   fprintf(out, "commands: %d applied, %d refused\n", v->commandsApplied, v->commandsRefused);
   if (b->sessionPath)
      fprintf(out, "session: %s\n", b->sessionPath);
   if (b->uiCpuSeconds > 0 && b->clock > 0)
      fprintf(out, "screen thread: %.2f s of CPU in %.0f s (%.2f%% of a core)\n", b->uiCpuSeconds, b->clock,
              100 * b->uiCpuSeconds / b->clock);
   fclose(out);
   b->actions.page(b->actions.ctx, "stats", text);
   return 0;
}

static int runExport(Board *b, int argc, char **argv, char **answer) {
   (void)argc;
   if (!b->sessionPath)
      return refuse(answer, "export: this run writes no session (--no-session)");
   ExportRequest a = { .session = b->sessionPath };
   if (strcmp(argv[1], "records") == 0)
      a.records = argv[2];
   else if (strcmp(argv[1], "curve") == 0)
      a.curve = argv[2];
   else if (strcmp(argv[1], "kernels") == 0)
      a.kernels = argv[2];
   else if (strcmp(argv[1], "plot") == 0)
      a.plot = argv[2];
   else if (strcmp(argv[1], "front") == 0)
      a.front = argv[2];
   else
      return refuse(answer, "export: takes records, curve, kernels, plot or front, not '%s'", argv[1]);
   if (strcmp(argv[2], "-") == 0)
      return refuse(answer, "export: takes a file, not '-' (standard output is the screen)");
   char *said = NULL, *cause = NULL;
   size_t len = 0;
   FILE *say = open_memstream(&said, &len);
   if (!say)
      fatal("out of memory");
   int rc = Export_run(&a, b->devices, say, &cause);
   fclose(say);
   if (rc < 0) {
      *answer = xAsprintf("export: %s", cause);
      free(cause);
      free(said);
      return -1;
   }
   /* the last line says what was written */
   while (len > 0 && said[len - 1] == '\n')
      said[--len] = '\0';
   char *last = strrchr(said, '\n');
   *answer = xStrdup(last ? last + 1 : said);
   free(said);
   return 0;
}

static int runSave(Board *b, int argc, char **argv, char **answer) {
   (void)argc;
   (void)argv;
   if (b->replay)
      return refuse(answer, "save: a replay writes nothing; the session is %s", b->sessionPath);
   if (!b->sessionPath)
      return refuse(answer, "save: this run writes no session (--no-session)");
   *answer = xAsprintf("saved: %s holds every event so far (%d trials); it is written after every round",
                       b->sessionPath, b->view.trials);
   return 0;
}

/* ---- the replay ---- */

/* digits only, at most 9 of them, into *n */
static bool parseDigits(const char *s, size_t len, long *n) {
   if (len == 0 || len > 9 || strspn(s, "0123456789") < len)
      return false;
   *n = strtol(s, NULL, 10);
   return true;
}

/* M:SS or H:MM:SS into seconds; false for anything else */
static bool parseTime(const char *text, double *seconds) {
   long part[3];
   int n = 0;
   for (const char *p = text;; n++) {
      size_t len = strcspn(p, ":");
      if (n == 3 || !parseDigits(p, len, &part[n]))
         return false;
      if (n > 0 && (len != 2 || part[n] >= 60))
         return false;
      if (!p[len]) {
         n++;
         break;
      }
      p += len + 1;
   }
   if (n < 2)
      return false;
   *seconds = n == 2 ? part[0] * 60.0 + part[1] : part[0] * 3600.0 + part[1] * 60.0 + part[2];
   return true;
}

static int runGoto(Board *b, int argc, char **argv, char **answer) {
   (void)argc;
   if (!b->replay || !b->actions.seekRound)
      return refuse(answer, "goto: only in a replay");
   long round;
   double seconds;
   char clock[32];
   if (parseDigits(argv[1], strlen(argv[1]), &round)) {
      if (round > b->replayRounds)
         return refuse(answer, "goto: the replay has rounds 0 to %d, not %ld", b->replayRounds, round);
      b->actions.seekRound(b->actions.ctx, (int)round);
   } else if (parseTime(argv[1], &seconds)) {
      b->actions.seekTime(b->actions.ctx, seconds);
   } else {
      return refuse(answer, "goto: takes a round from 0 to %d or a time as M:SS or H:MM:SS, not '%s'",
                    b->replayRounds, argv[1]);
   }
   Board_duration(b->clock, clock, sizeof clock);
   *answer = xAsprintf("round %d of %d at %s, paused (space plays on)", b->view.rounds, b->replayRounds, clock);
   return 0;
}

static int runQuit(Board *b, int argc, char **argv, char **answer) {
   (void)argc;
   (void)argv;
   (void)answer;
   b->actions.quit(b->actions.ctx);
   return 0;
}

static int runHelp(Board *b, int argc, char **argv, char **answer) {
   if (argc == 2) {
      for (int i = 0; i < Commands_count; i++) {
         const ConsoleCommand *c = &Commands_table[i];
         if (strcmp(c->name, argv[1]) == 0) {
            *answer = xAsprintf("%s%s%s: %s", c->name, *c->args ? " " : "", c->args, c->help);
            return 0;
         }
      }
      return refuse(answer, "help: no command '%s'", argv[1]);
   }
   b->actions.page(b->actions.ctx, "help", Commands_help());
   return 0;
}

const ConsoleCommand Commands_table[] = {
   { "help", "[COMMAND]", "the commands and keys, or one command's usage", 0, 1, { ARG_COMMAND }, false, runHelp },
   { "pause", "[TASK]", "pause the tuning after this round, or never pick TASK", 0, 1, { ARG_TASK }, true,
     runPause },
   { "resume", "[TASK]", "go on tuning, or let TASK be picked again", 0, 1, { ARG_TASK }, true, runPause },
   { "prio", "TASK N", "the task's priority multiplier (0 pauses it, 2 doubles its urgency)", 2, 2,
     { ARG_TASK, ARG_NUMBER }, true, runPrio },
   { "focus", "TASK|off", "tune only the focused tasks; off ends the focus", 1, 1, { ARG_TASK_OR_OFF }, true,
     runFocus },
   { "model", "NAME [CHECKPOINT]", "swap the verify model (random psa xgb mlp pam pam-moa), trained on every "
     "measurement so far", 1, 2, { ARG_MODEL, ARG_FILE }, true, runModel },
   { "trials", "N", "a new trial budget", 1, 1, { ARG_NUMBER }, true, runTrials },
   { "best", "[TASK]", "the estimated total latency, or a task's best", 0, 1, { ARG_TASK }, false, runBest },
   { "show", "TASK [--cuda|--loops|--state]", "a task's details: summary, history, best state, loop nest, CUDA, "
     "PSA", 1, 2, { ARG_TASK, ARG_SHOW }, false, runShow },
   { "explain", "TASK", "PSA's terms and the features of the task's best state", 1, 1, { ARG_TASK }, false,
     runShow },
   { "stats", "", "the run's statistics", 0, 0, { ARG_NONE }, false, runStats },
   { "front", "", "the front of latency against error: a chart of the network's total latency against the error "
     "bound, then per task each precision's best that no faster, no less accurate one beats, and the network's total "
     "latency per error bound", 0, 0, { ARG_NONE }, false, runFront },
   { "export", "WHAT FILE", "write the session's records, curve, kernels (a directory), front (a directory) or plot (the curves as "
     "SVG) to FILE", 2, 2,
     { ARG_EXPORT, ARG_FILE }, false, runExport },
   { "goto", "ROUND|M:SS|H:MM:SS", "a replay: to the end of a round, or to a time, paused there", 1, 1,
     { ARG_NONE }, false, runGoto },
   { "save", "", "make sure the session is on disk", 0, 0, { ARG_NONE }, false, runSave },
   { "quit", "", "leave (the session is saved; the engine stops after its round)", 0, 0, { ARG_NONE }, false,
     runQuit },
};

const int Commands_count = (int)(sizeof Commands_table / sizeof Commands_table[0]);

static const char *const keys[][2] = {
   { "F1, ?, h", "this help" },
   { "F2", "setup: the table's columns, the sort, the first curve, its scale, following;" },
   { "", "saved" },
   { "", "to $XDG_CONFIG_HOME/pruner-tui/workbench.conf and read at the next start" },
   { "up/down, k/j", "select the task above or below" },
   { "PgUp/PgDn, Ctrl-B/Ctrl-F", "a page up or down" },
   { "Home/End, g/G", "the first or the last task" },
   { "F3", "search: type, the selection goes to the first task that contains it" },
   { "", "(its op and shapes, name or state); F3 the next, Enter keeps it, Esc goes back" },
   { "n", "the next task the last search finds" },
   { "/, \\, F4", "filter: type, the table shows only the tasks that contain it; Enter" },
   { "", "keeps it (an empty filter shows every task), Esc goes back" },
   { "F5", "follow the task being tuned, each round, until a key moves the selection" },
   { "s, F6", "the next sort: id, share, latency, trials, roofline; the first row selected" },
   { "< / >", "sort ascending / descending" },
   { "space", "pause or resume the tuning (a replay: the playback)" },
   { "+ / -", "double or halve the selected task's priority (a half below 0.25 is 0: paused)" },
   { "f", "focus on the selected task, or end the focus" },
   { "m", "the next cost model (pam, xgb, mlp, random, psa, pam-moa)" },
   { "c", "the next curve" },
   { "L", "the curves' y axes on a log scale or back to linear (saved)" },
   { "enter", "the selected task's details" },
   { "mouse", "click a row to select, a header to sort, wheel to scroll," },
   { "", "double click for details" },
   { ":", "the console (Tab completes, Up/Down history; open until Esc)" },
   { ", / .", "a replay: slower or faster" },
   { "e", "a replay: jump to the end" },
   { "[ / ], R", "a replay: a round back or on, or to the start, paused there" },
   { "", "(:goto goes to any round, or to a time)" },
   { "l", "the whole log in the pager" },
   { "pager: / and ?", "search forward, back (regular expression)" },
   { "pager: n and N", "the next match, the previous" },
   { "pager: space f b d u j k g G", "scroll as less does; q closes" },
   { "q, F10", "quit (the session is saved)" },
};

/* ---- keys ---- */

static const char *const modelCycle[] = { "pam", "xgb", "mlp", "random", "psa", "pam-moa" };

/* the least priority '-' halves to; below it the task is paused */
#define LEAST_PRIORITY 0.25

bool Commands_forKey(const Board *b, int key, char *line, size_t size) {
   int t = b->selected;
   BoardPending p;
   Board_pending(b, t, &p);
   switch (key) {
   case ' ': snprintf(line, size, "%s", p.pausedAll ? "resume" : "pause"); return true;
   case '\n': case '\r': case KEY_ENTER: snprintf(line, size, "show %d", t); return true;
   case '+': case '=': snprintf(line, size, "prio %d %g", t, p.priority > 0 ? p.priority * 2 : 1); return true;
   case '-': snprintf(line, size, "prio %d %g", t, p.priority / 2 < LEAST_PRIORITY ? 0 : p.priority / 2); return true;
   case 'f':
      if (p.focused)
         snprintf(line, size, "focus off");
      else
         snprintf(line, size, "focus %d", t);
      return true;
   case 'm': {
      size_t n = sizeof modelCycle / sizeof modelCycle[0], i = 0;
      while (i < n && strcmp(modelCycle[i], p.costModel) != 0)
         i++;
      snprintf(line, size, "model %s", modelCycle[(i + 1) % n]);
      return true;
   }
   default: return false;
   }
}

char *Commands_help(void) {
   char *text = NULL;
   size_t len = 0;
   FILE *out = open_memstream(&text, &len);
   if (!out)
      fatal("out of memory");
   fprintf(out, "Console commands (press : first)\n\n");
   for (int i = 0; i < Commands_count; i++) {
      const ConsoleCommand *c = &Commands_table[i];
      char usage[64];
      snprintf(usage, sizeof usage, "%s %s", c->name, c->args);
      fprintf(out, "  %-34s %s\n", usage, c->help);
   }
   fprintf(out, "\nKeys\n\n");
   for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
      fprintf(out, "  %-34s %s\n", keys[i][0], keys[i][1]);
   fprintf(out, "\nspace, +, -, f and m act on what the keys before them asked for, applied or not:\n"
                "pressed within a round they add up (+ + quadruples a priority).\n");
   fclose(out);
   return text;
}

/* ---- running a line ---- */

int Commands_run(Board *b, const char *line, char **answer) {
   *answer = NULL;
   char *copy = xStrdup(line), *argv[8], *save = NULL;
   int argc = 0;
   for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
      if (argc == 8) {
         free(copy);
         return refuse(answer, "too many words");
      }
      argv[argc++] = w;
   }
   int rc = 0;
   if (argc == 0)
      goto done;
   const ConsoleCommand *c = NULL;
   for (int i = 0; i < Commands_count && !c; i++)
      if (strcmp(Commands_table[i].name, argv[0]) == 0)
         c = &Commands_table[i];
   if (!c) {
      rc = refuse(answer, "unknown command '%s' (help lists them)", argv[0]);
   } else if (argc - 1 < c->minArgs || argc - 1 > c->maxArgs) {
      rc = refuse(answer, "usage: %s%s%s", c->name, *c->args ? " " : "", c->args);
   } else if (c->engine && !b->actions.send) {
      rc = refuse(answer, "%s: a replay has no engine to command", c->name);
   } else if (c->engine && (b->view.finished || b->stopping)) {
      rc = refuse(answer, "%s: tuning is over", c->name);
   } else {
      rc = c->run(b, argc, argv, answer);
   }
done:
   free(copy);
   return rc;
}

/* ---- completion ---- */

typedef struct {
   char **items;
   int n, cap;
} Words;

static void addIf(Words *w, const char *word, const char *candidate) {
   if (strncmp(candidate, word, strlen(word)) != 0)
      return;
   if (w->n + 2 > w->cap) {
      w->cap = w->cap ? 2 * w->cap : 16;
      w->items = xReallocArray(w->items, (size_t)w->cap, sizeof *w->items);
   }
   w->items[w->n++] = xStrdup(candidate);
   w->items[w->n] = NULL;
}

char **Commands_complete(const Board *b, const char *word, int index, char *const *words) {
   Words w = { 0 };
   if (index == 0) {
      for (int i = 0; i < Commands_count; i++)
         addIf(&w, word, Commands_table[i].name);
      return w.items;
   }
   const ConsoleCommand *c = NULL;
   for (int i = 0; i < Commands_count && !c; i++)
      if (strcmp(Commands_table[i].name, words[0]) == 0)
         c = &Commands_table[i];
   if (!c || index > 2)
      return NULL;
   char id[16];
   switch (c->arg[index - 1]) {
   case ARG_TASK_OR_OFF: addIf(&w, word, "off"); /* fall through */
   case ARG_TASK:
      for (int t = 0; t < b->view.ntasks; t++) {
         snprintf(id, sizeof id, "%d", t);
         addIf(&w, word, id);
      }
      break;
   case ARG_MODEL:
      for (int k = 0; k < MODEL_KIND_COUNT; k++)
         addIf(&w, word, ModelKind_name((ModelKind)k));
      break;
   case ARG_SHOW:
      addIf(&w, word, "--cuda");
      addIf(&w, word, "--loops");
      addIf(&w, word, "--state");
      break;
   case ARG_EXPORT:
      addIf(&w, word, "records");
      addIf(&w, word, "curve");
      addIf(&w, word, "kernels");
      addIf(&w, word, "plot");
      addIf(&w, word, "front");
      break;
   case ARG_COMMAND:
      for (int i = 0; i < Commands_count; i++)
         addIf(&w, word, Commands_table[i].name);
      break;
   default: break;
   }
   return w.items;
}
