/* The workbench's state, folded from events. */
#include "config.h"

#include "board.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "te/op.h"
#include "tune/command.h"

static const struct {
   const char *name;
   bool descending;
} sorts[SORT_COUNT] = {
   [SORT_ID] = { "id", false },
   [SORT_SHARE] = { "share", true },
   [SORT_LATENCY] = { "latency", true },
   [SORT_TRIALS] = { "trials", true },
   [SORT_ROOFLINE] = { "roofline", false },
};

const char *SortKey_name(SortKey k) {
   return (unsigned)k < SORT_COUNT ? sorts[k].name : "?";
}

bool SortKey_descending(SortKey k) {
   return (unsigned)k < SORT_COUNT && sorts[k].descending;
}

static double product(const int64_t *shape, int rank) {
   double n = 1;
   for (int i = 0; i < rank; i++)
      n *= (double)shape[i];
   return n;
}

/* FLOPs over peak or the bytes every tensor must move over bandwidth, the larger */
static double floorOf(const Task *t, const Device *d) {
   if (!d || !(d->peak_fp32_gflops > 0) || !(d->mem_bandwidth_gbs > 0))
      return NAN;
   int64_t shape[8];
   double elements = product(shape, Op_outputShape(&t->op, shape));
   for (int in = 0; in < Op_numInputs(&t->op); in++) {
      const char *name;
      elements += product(shape, Op_inputShape(&t->op, in, shape, &name));
   }
   double compute = t->flops / (d->peak_fp32_gflops * 1e9);
   double memory = elements * 4 / (d->mem_bandwidth_gbs * 1e9);
   return fmax(compute, memory);
}

void Board_init(Board *b, const SessionHeader *h, const Network *net, const DeviceSet *devices) {
   memset(b, 0, sizeof *b);
   TuneView_init(&b->view, h, net);
   b->net = b->view.fromTaskFile ? net : NULL;
   b->devices = devices;
   b->device = devices ? DeviceSet_find(devices, h->device) : NULL;
   int n = h->ntasks > 0 ? h->ntasks : 1;
   b->floor = xCalloc((size_t)n, sizeof *b->floor);
   b->order = xCalloc((size_t)n, sizeof *b->order);
   for (int t = 0; t < h->ntasks; t++) {
      b->floor[t] = b->net ? floorOf(&b->net->tasks[t], b->device) : NAN;
      b->order[t] = t;
   }
   b->nrows = h->ntasks > 0 ? h->ntasks : 0;
   b->replaySpeed = 1;
   b->unicode = true;
}

void Board_done(Board *b) {
   TuneView_done(&b->view);
   free(b->floor);
   free(b->order);
   Board_logClear(b);
   free(b->log);
   for (int i = 0; i < b->npending; i++)
      free(b->pending[i]);
   free(b->pending);
   memset(b, 0, sizeof *b);
}

/* ---- the commands sent ---- */

void Board_sent(Board *b, const char *command) {
   b->pending = xReallocArray(b->pending, (size_t)b->npending + 1, sizeof *b->pending);
   b->pending[b->npending++] = xStrdup(command);
}

/* the oldest n pending commands are applied or refused */
static void dropPending(Board *b, int n) {
   if (n <= 0)
      return;   /* pending may be NULL then, which memmove must not get */
   for (int i = 0; i < n; i++)
      free(b->pending[i]);
   b->npending -= n;
   memmove(b->pending, b->pending + n, (size_t)b->npending * sizeof *b->pending);
}

void Board_pending(const Board *b, int task, BoardPending *out) {
   const TuneView *v = &b->view;
   out->priority = v->tasks[task].priority;
   out->focused = v->tasks[task].focused;
   out->pausedAll = b->pausedAll;
   snprintf(out->costModel, sizeof out->costModel, "%s", v->costModel);
   for (int i = 0; i < b->npending; i++) {
      Command c;
      char *why = NULL;
      if (Command_parse(b->pending[i], v->ntasks, &c, &why) < 0) {
         free(why);
         continue;
      }
      switch (c.kind) {
      case COMMAND_PAUSE_ALL: out->pausedAll = true; break;
      case COMMAND_RESUME_ALL: out->pausedAll = false; break;
      case COMMAND_PRIORITY:
         if (c.task == task)
            out->priority = c.value;
         break;
      case COMMAND_FOCUS: out->focused |= c.task == task; break;
      case COMMAND_FOCUS_OFF: out->focused = false; break;
      case COMMAND_MODEL: snprintf(out->costModel, sizeof out->costModel, "%s", c.model); break;
      default: break;
      }
   }
}

/* ---- the log ---- */

static void logLine(Board *b, const char *line) {
   if (b->nlog == b->logCap) {
      b->logCap = b->logCap ? 2 * b->logCap : 256;
      b->log = xReallocArray(b->log, (size_t)b->logCap, sizeof *b->log);
   }
   b->log[b->nlog++] = xStrdup(line);
}

void Board_logClear(Board *b) {
   for (int i = 0; i < b->nlog; i++)
      free(b->log[i]);
   b->nlog = 0;
}

void Board_log(Board *b, const char *fmt, ...) {
   va_list ap;
   va_start(ap, fmt);
   char *text = xVasprintf(fmt, ap);
   va_end(ap);
   char *save = NULL;
   for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
      logLine(b, line);
   free(text);
}

const char *Board_logLine(const Board *b, int i) {
   return i >= 0 && i < b->nlog ? b->log[i] : "";
}

char *Board_logText(const Board *b) {
   size_t len = 0;
   for (int i = 0; i < b->nlog; i++)
      len += strlen(b->log[i]) + 1;
   char *text = xMalloc(len + 1), *at = text;
   for (int i = 0; i < b->nlog; i++) {
      size_t n = strlen(b->log[i]);
      memcpy(at, b->log[i], n);
      at[n] = '\n';
      at += n + 1;
   }
   *at = '\0';
   return text;
}

/* ---- the table's rows ---- */

static const Board *sorting;

/* the sort's value of task t; NAN when the task has none */
static double sortValue(const Board *b, int t) {
   const TuneTaskView *tv = &b->view.tasks[t];
   switch (b->sort) {
   case SORT_SHARE: return tv->weight * tv->best;
   case SORT_LATENCY: return tv->best;
   case SORT_TRIALS: return tv->trials;
   case SORT_ROOFLINE: return Board_roofline(b, t);
   default: return t;
   }
}

static int compareTasks(const void *pa, const void *pb) {
   int a = *(const int *)pa, c = *(const int *)pb;
   double va = sortValue(sorting, a), vc = sortValue(sorting, c);
   if (isnan(va) != isnan(vc))
      return isnan(va) ? 1 : -1;
   if (va != vc && !isnan(va))
      return (va > vc) == sorting->descending ? -1 : 1;
   return a - c;
}

bool Board_matches(const Board *b, int task, const char *text) {
   if (!*text)
      return true;
   const TuneTaskView *t = &b->view.tasks[task];
   return strcasestr(t->key, text) || (t->label && strcasestr(t->label, text)) ||
          strcasestr(Board_taskState(b, task), text);
}

/* the rows anew from the filter and the sort; a hidden selection goes to the first */
static void arrange(Board *b) {
   b->nrows = 0;
   for (int t = 0; t < b->view.ntasks; t++)
      if (Board_matches(b, t, b->filter))
         b->order[b->nrows++] = t;
   sorting = b;
   qsort(b->order, (size_t)b->nrows, sizeof *b->order, compareTasks);
   sorting = NULL;
   if (b->nrows > 0 && Board_rowOf(b, b->selected) < 0)
      b->selected = b->order[0];
   if (b->top > b->nrows - 1)
      b->top = b->nrows > 0 ? b->nrows - 1 : 0;
}

static void sortAnew(Board *b, SortKey k, bool descending) {
   b->sort = k;
   b->descending = descending;
   arrange(b);
   b->top = 0;
   if (b->nrows > 0)
      b->selected = b->order[0];
}

void Board_sort(Board *b, SortKey k) {
   sortAnew(b, k, SortKey_descending(k));
}

void Board_sortDirection(Board *b, bool descending) {
   sortAnew(b, b->sort, descending);
}

void Board_filter(Board *b, const char *text) {
   snprintf(b->filter, sizeof b->filter, "%s", text);
   arrange(b);
}

int Board_find(const Board *b, const char *text, int from) {
   for (int i = 0; i < b->nrows; i++) {
      int row = ((from + i) % b->nrows + b->nrows) % b->nrows;
      if (Board_matches(b, b->order[row], text))
         return row;
   }
   return -1;
}

int Board_rowOf(const Board *b, int task) {
   for (int r = 0; r < b->nrows; r++)
      if (b->order[r] == task)
         return r;
   return -1;
}

void Board_move(Board *b, int delta, int rows) {
   int n = b->nrows;
   if (n == 0)
      return;
   int row = Board_rowOf(b, b->selected);
   row = (row < 0 ? 0 : row) + delta;
   row = row < 0 ? 0 : row >= n ? n - 1 : row;
   b->selected = b->order[row];
   if (rows < 1)
      rows = 1;
   if (row < b->top)
      b->top = row;
   if (row >= b->top + rows)
      b->top = row - rows + 1;
   if (b->top > n - rows)
      b->top = n - rows > 0 ? n - rows : 0;
}

void Board_scroll(Board *b, int delta, int rows) {
   int n = b->nrows;
   if (n == 0)
      return;
   if (rows < 1)
      rows = 1;
   int last = n - rows > 0 ? n - rows : 0, top = b->top + delta;
   b->top = top < 0 ? 0 : top > last ? last : top;
   int row = Board_rowOf(b, b->selected);
   if (row < b->top)
      b->selected = b->order[b->top];
   else if (row >= b->top + rows)
      b->selected = b->order[b->top + rows - 1 < n ? b->top + rows - 1 : n - 1];
}

/* a following selection goes to the round's task, when the filter shows it */
static void followRound(Board *b) {
   if (b->follow && b->view.roundTask >= 0 && Board_rowOf(b, b->view.roundTask) >= 0)
      b->selected = b->view.roundTask;
}

void Board_follow(Board *b, bool on) {
   b->follow = on;
   followRound(b);
}

/* ---- the fleet ---- */

int Board_fleetLines(const Board *b) {
   const TuneView *v = &b->view;
   int n = 0;
   for (int i = 0; i < v->ndevices; i++)
      n += 1 + v->devices[i].retired;
   return v->ndevices >= 2 ? n : 0;
}

void Board_fleetLine(const Board *b, int line, char *buf, size_t size) {
   const TuneView *v = &b->view;
   snprintf(buf, size, "%s", "");
   for (int i = 0; i < v->ndevices; i++) {
      const SessionDevice *d = &v->devices[i];
      if (line == 0) {
         double share = TuneView_busyShare(v, i);
         char busy[16];
         if (isnan(share))
            snprintf(busy, sizeof busy, "-");
         else
            snprintf(busy, sizeof busy, "%.0f%%", share * 100);
         snprintf(buf, size, "%s  measured %d  busy %s  failed %d", d->name, d->measured, busy, d->failed);
         return;
      }
      line--;
      if (d->retired && line-- == 0) {
         /* the measurer's sentence less its "NAME is retired: " */
         const char *why = strstr(d->why, " is retired: ");
         snprintf(buf, size, "  retired: %s", why ? why + 13 : d->why);
         return;
      }
   }
}

/* ---- events ---- */

static const char *taskName(const Board *b, int t) {
   return t >= 0 && t < b->view.ntasks ? TuneView_describe(&b->view, t) : "?";
}

static void logEvent(Board *b, const SessionEvent *e) {
   const TuneView *v = &b->view;
   switch (e->kind) {
   case SESSION_ROUND:
      memset(&b->errors, 0, sizeof b->errors);
      b->errors.round = e->round;
      break;
   case SESSION_MEASURE:
      if (b->errors.round != e->round) {
         memset(&b->errors, 0, sizeof b->errors);
         b->errors.round = e->round;
      }
      b->errors.measured++;
      if (e->measure.error && strcmp(e->measure.error, "ok") != 0 && b->errors.failed++ == 0)
         snprintf(b->errors.first, sizeof b->errors.first, "%s%s%s", e->measure.error,
                  e->measure.message && *e->measure.message ? ": " : "",
                  e->measure.message ? e->measure.message : "");
      break;
   case SESSION_COMMAND:
      if (e->command.applied)
         Board_log(b, "command: %s", e->command.text);
      else
         Board_log(b, "refused: %s%s%s", e->command.text, e->command.why && *e->command.why ? ": " : "",
                   e->command.why ? e->command.why : "");
      break;
   case SESSION_MODEL:
      if (e->model.error && *e->model.error)
         Board_log(b, "round %d: the %s model failed to train: %s", e->round, v->costModel, e->model.error);
      break;
   case SESSION_BEST:
      Board_log(b, "round %d task %d: best %.4f ms (%s)", e->round, e->best.task, e->best.latency * 1e3,
                taskName(b, e->best.task));
      break;
   case SESSION_ROUND_END:
      /* a round's failed measurements: "round 12 task 3: 2 of 10 failed (compile: ...)" */
      if (b->errors.round == e->round && b->errors.failed > 0)
         Board_log(b, "round %d task %d: %d of %d failed (%s)", e->round, v->roundTask, b->errors.failed,
                   b->errors.measured, b->errors.first);
      /* once, when a device is retired: "round 7: cuda:1 is retired: it failed ..." */
      for (int i = 0; i < v->ndevices; i++)
         if (v->newlyRetired & (1u << i))
            Board_log(b, "round %d: %s", e->round, v->devices[i].why);
      break;
   case SESSION_RESUMED:
      Board_log(b, "resumed: %d trials done%s%s", e->resumed.trials,
                e->resumed.notice && *e->resumed.notice ? "; " : "", e->resumed.notice ? e->resumed.notice : "");
      break;
   case SESSION_FINISHED:
      Board_log(b, "finished: %s after %d trials", SessionEnd_name(e->finished.why), v->trials);
      break;
   default: break;
   }
}

/* the whole engine's pause ends at the run's time t */
static void endPause(Board *b, double t) {
   if (b->pausedAll)
      b->pausedSeconds += t - b->pausedSince;
   b->pausedAll = false;
}

void Board_apply(Board *b, const SessionEvent *e) {
   /* the engine applies or refuses the commands in the order they were sent, and none
    * after its run ended */
   if (e->kind == SESSION_COMMAND && b->npending > 0 &&
       strcmp(b->pending[0], e->command.text ? e->command.text : "") == 0)
      dropPending(b, 1);
   if (e->kind == SESSION_FINISHED)
      dropPending(b, b->npending);
   if (e->kind == SESSION_COMMAND && e->command.applied) {
      Command c;
      char *why = NULL;
      if (Command_parse(e->command.text ? e->command.text : "", b->view.ntasks, &c, &why) == 0) {
         if (c.kind == COMMAND_PAUSE_ALL && !b->pausedAll) {
            b->pausedAll = true;
            b->pausedSince = e->elapsed;
         } else if (c.kind == COMMAND_RESUME_ALL) {
            endPause(b, e->elapsed);
         }
      }
      free(why);
   }
   TuneView_apply(&b->view, e);
   /* a whole-engine pause ends with its run */
   if (e->kind == SESSION_FINISHED || e->kind == SESSION_RESUMED)
      endPause(b, e->elapsed);
   logEvent(b, e);
   /* a measurement changes a task's trials and best, a command or a round its state:
    * the rows are sorted and filtered anew after every event */
   arrange(b);
   if (e->kind == SESSION_ROUND)
      followRound(b);
}

/* ---- what the header and the table show ---- */

LayoutContent Board_content(const Board *b) {
   LayoutContent c = { .tasks = b->view.ntasks, .nameWidth = 0, .hidden = b->hidden };
   for (int t = 0; t < b->view.ntasks; t++) {
      int w = (int)strlen(TuneView_describe(&b->view, t));
      c.nameWidth = w > c.nameWidth ? w : c.nameWidth;
   }
   return c;
}

double Board_weightedTotal(const Board *b) {
   double total = 0;
   for (int t = 0; t < b->view.ntasks; t++)
      total += b->view.tasks[t].weight * b->view.tasks[t].best;
   return total > 0 ? total : NAN;
}

int Board_idleRounds(const Board *b, int task) {
   const TuneTaskView *tv = &b->view.tasks[task];
   return isnan(tv->best) ? -1 : tv->rounds - tv->roundsAtBest;
}

double Board_roofline(const Board *b, int task) {
   double best = b->view.tasks[task].best;
   if (isnan(best) || !(best > 0) || isnan(b->floor[task]))
      return NAN;
   return b->floor[task] / best;
}

const char *Board_taskState(const Board *b, int task) {
   const TuneView *v = &b->view;
   const TuneTaskView *t = &v->tasks[task];
   bool focus = false;
   for (int i = 0; i < v->ntasks; i++)
      focus |= v->tasks[i].focused;
   if (t->priority == 0)
      return "paused";
   if (focus && !t->focused)
      return "excluded";
   if (task == v->roundTask && !v->finished)
      return b->pausedAll ? "paused" : "tuning";
   if (t->focused)
      return "focused";
   return t->rounds == 0 ? "waiting" : "ready";
}

void Board_runState(const Board *b, char *buf, size_t size) {
   const TuneView *v = &b->view;
   if (b->replay) {
      /* where the replay is: round k of n */
      char at[48] = "";
      if (b->replayRounds > 0 && !b->replayDone)
         snprintf(at, sizeof at, " round %d/%d", v->rounds, b->replayRounds);
      if (b->replayDone)
         snprintf(buf, size, "replay ended%s%s", v->finished ? ": " : "", v->finished ? SessionEnd_name(v->why) : "");
      else if (b->replayPaused)
         snprintf(buf, size, "replay paused%s", at);
      else
         snprintf(buf, size, "replay x%g%s", b->replaySpeed, at);
   } else if (v->finished) {
      snprintf(buf, size, "finished: %s", SessionEnd_name(v->why));
   } else if (b->stopping) {
      snprintf(buf, size, "stopping");
   } else if (b->pausedAll) {
      snprintf(buf, size, "paused");
   } else if (v->paused) {
      snprintf(buf, size, "paused: no task can run");
   } else {
      snprintf(buf, size, "running");
   }
}

double Board_eta(const Board *b) {
   const TuneView *v = &b->view;
   double running = (b->pausedAll ? b->pausedSince : v->elapsed) - b->pausedSeconds;
   if (v->finished || v->trials <= 0 || !(running > 0))
      return NAN;
   int left = v->budget - v->trials;
   return left <= 0 ? 0 : left * (running / v->trials);
}

void Board_duration(double s, char *buf, size_t size) {
   if (isnan(s) || s < 0) {
      snprintf(buf, size, "-");
      return;
   }
   long t = (long)(s + 0.5);
   snprintf(buf, size, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}
