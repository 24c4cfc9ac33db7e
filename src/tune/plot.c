/* The session's curves as SVG text: three plots, each a frame with ticks, labels and
 * a legend, and its curves as polylines. */
#include "config.h"

#include "tune/plot.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune/view.h"
#include "util/axis.h"
#include "util/xalloc.h"

#define FONT "font-family=\"Helvetica, Arial, sans-serif\""

/* A plot: its frame in the image, its axes, and the text around it. */
typedef struct Frame_ {
   double x, y, w, h;
   AxisScale xs, ys;
   const char *title, *xLabel, *yLabel;
} Frame;

/* A curve of a plot: its points, the legend's name, its colour and dashes. */
typedef struct Curve_ {
   const double *x, *y;
   int n;
   const char *name, *color, *dash;
} Curve;

/* text with &, <, > and " as XML entities */
static void putEscaped(FILE *o, const char *text) {
   for (const char *p = text; *p; p++) {
      switch (*p) {
      case '&': fputs("&amp;", o); break;
      case '<': fputs("&lt;", o); break;
      case '>': fputs("&gt;", o); break;
      case '"': fputs("&quot;", o); break;
      default: fputc(*p, o);
      }
   }
}

static double xOf(const Frame *f, double v) {
   return f->x + (v - f->xs.lo) / (f->xs.hi - f->xs.lo) * f->w;
}

static double yOf(const Frame *f, double u) {
   return f->y + f->h - (u - f->ys.lo) / (f->ys.hi - f->ys.lo) * f->h;
}

/* The axis over the defined values of the curves' x (or y), from 0 when `zero`;
 * its ends become its first and last ticks. */
static AxisScale scaleOf(const Curve *c, int nc, bool ofY, bool zero) {
   double lo = zero ? 0 : INFINITY, hi = zero ? 0 : -INFINITY;
   for (int k = 0; k < nc; k++)
      for (int i = 0; i < c[k].n; i++) {
         double v = ofY ? c[k].y[i] : c[k].x[i];
         if (!isnan(c[k].x[i]) && !isnan(c[k].y[i])) {
            lo = fmin(lo, v);
            hi = fmax(hi, v);
         }
      }
   if (!(lo <= hi))
      lo = hi = 0;
   AxisScale a = Axis_scale(lo, hi, false);
   double ticks[AXIS_MAX_TICKS];
   int n = Axis_ticks(&a, AXIS_MAX_TICKS, ticks);
   a.lo = ticks[0];
   a.hi = ticks[n - 1];
   return a;
}

static void drawAxes(FILE *o, const Frame *f) {
   fprintf(o, "<g class=\"plot\">\n");
   fprintf(o, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\" %s>", f->x + f->w / 2,
           f->y - 12, FONT);
   putEscaped(o, f->title);
   fprintf(o, "</text>\n");
   double ticks[AXIS_MAX_TICKS];
   char label[32];
   int n = Axis_ticks(&f->xs, AXIS_MAX_TICKS, ticks);
   for (int i = 0; i < n; i++) {
      double x = xOf(f, ticks[i]);
      Axis_tickLabel(ticks[i], f->xs.step, label, sizeof label);
      fprintf(o, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#000000\"/>\n", x, f->y + f->h, x,
              f->y + f->h + 5);
      fprintf(o, "<text class=\"xtick\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" font-size=\"12\" %s>%s</text>\n", x,
              f->y + f->h + 18, FONT, label);
   }
   n = Axis_ticks(&f->ys, AXIS_MAX_TICKS, ticks);
   /* the grid under the frame */
   for (int i = 1; i < n - 1; i++)
      fprintf(o, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#dddddd\"/>\n", f->x,
              yOf(f, ticks[i]), f->x + f->w, yOf(f, ticks[i]));
   fprintf(o, "<rect class=\"frame\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" "
              "stroke=\"#000000\" stroke-width=\"1\"/>\n",
           f->x, f->y, f->w, f->h);
   for (int i = 0; i < n; i++) {
      double y = yOf(f, ticks[i]);
      Axis_tickLabel(ticks[i], f->ys.step, label, sizeof label);
      fprintf(o, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#000000\"/>\n", f->x - 5, y, f->x, y);
      fprintf(o, "<text class=\"ytick\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\" font-size=\"12\" %s>%s</text>\n",
              f->x - 8, y + 4, FONT, label);
   }
   fprintf(o, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" font-size=\"13\" %s>", f->x + f->w / 2,
           f->y + f->h + 38, FONT);
   putEscaped(o, f->xLabel);
   fprintf(o, "</text>\n");
   double yx = f->x - 62, yy = f->y + f->h / 2;
   fprintf(o, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" font-size=\"13\" transform=\"rotate(-90 %.2f %.2f)\" %s>",
           yx, yy, yx, yy, FONT);
   putEscaped(o, f->yLabel);
   fprintf(o, "</text>\n");
}

/* The curves as polylines (their defined points) with a marker at each point, then
 * their legend under the plot. */
static void drawCurves(FILE *o, const Frame *f, const Curve *c, int nc) {
   for (int k = 0; k < nc; k++) {
      fprintf(o, "<polyline class=\"curve\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s%s%s points=\"",
              c[k].color, c[k].dash ? " stroke-dasharray=\"" : "", c[k].dash ? c[k].dash : "", c[k].dash ? "\"" : "");
      bool first = true;
      for (int i = 0; i < c[k].n; i++) {
         if (isnan(c[k].x[i]) || isnan(c[k].y[i]))
            continue;
         fprintf(o, "%s%.2f,%.2f", first ? "" : " ", xOf(f, c[k].x[i]), yOf(f, c[k].y[i]));
         first = false;
      }
      fprintf(o, "\"/>\n");
      for (int i = 0; i < c[k].n; i++)
         if (!isnan(c[k].x[i]) && !isnan(c[k].y[i]))
            fprintf(o, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"2\" fill=\"%s\"/>\n", xOf(f, c[k].x[i]),
                    yOf(f, c[k].y[i]), c[k].color);
   }
   /* a line and a name a curve, in a row under the x axis' label, centred */
   double width = 0;
   for (int k = 0; k < nc; k++)
      width += 24 + 6.5 * (double)strlen(c[k].name) + (k ? 20 : 0);
   double lx = f->x + (f->w - width) / 2, ly = f->y + f->h + 58;
   fprintf(o, "<g class=\"legend\">\n");
   for (int k = 0; k < nc; k++) {
      fprintf(o, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" stroke-width=\"1.5\"%s%s%s/>\n", lx,
              ly - 4, lx + 20, ly - 4, c[k].color, c[k].dash ? " stroke-dasharray=\"" : "", c[k].dash ? c[k].dash : "",
              c[k].dash ? "\"" : "");
      fprintf(o, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"12\" %s>", lx + 24, ly, FONT);
      putEscaped(o, c[k].name);
      fprintf(o, "</text>\n");
      lx += 24 + 6.5 * (double)strlen(c[k].name) + 20;
   }
   fprintf(o, "</g>\n</g>\n");
}

char *Plot_svg(const SessionLog *log, int *points) {
   const SessionHeader *h = &log->events[0].header;
   TuneView v;
   TuneView_init(&v, h, NULL);
   for (int i = 1; i < log->count; i++)
      TuneView_apply(&v, &log->events[i]);
   int n = v.nseries;
   double *trials = xCalloc((size_t)n + 1, sizeof *trials), *seconds = xCalloc((size_t)n + 1, sizeof *seconds);
   double *latency = xCalloc((size_t)n + 1, sizeof *latency), *rounds = xCalloc((size_t)n + 1, sizeof *rounds);
   double *acceptance = xCalloc((size_t)n + 1, sizeof *acceptance), *tau = xCalloc((size_t)n + 1, sizeof *tau);
   double longest = 0;
   bool haveTau = false;
   int defined = 0;
   for (int i = 0; i < n; i++)
      longest = fmax(longest, v.series[i].elapsed);
   /* time in the unit that keeps its numbers short */
   double unit = longest > 36000 ? 3600 : longest > 600 ? 60 : 1;
   const char *unitName = unit == 3600 ? "h" : unit == 60 ? "min" : "s";
   for (int i = 0; i < n; i++) {
      const TuneRoundPoint *p = &v.series[i];
      trials[i] = p->trials;
      seconds[i] = p->elapsed / unit;
      latency[i] = p->latencyMs;
      rounds[i] = p->round;
      acceptance[i] = p->acceptance;
      tau[i] = p->tau;
      haveTau = haveTau || !isnan(p->tau);
      defined += !isnan(p->latencyMs);
   }
   if (points)
      *points = defined;

   char *buf = NULL;
   size_t len = 0;
   FILE *o = open_memstream(&buf, &len);
   if (!o)
      fatal("open_memstream: out of memory");
   fprintf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
   fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
              "viewBox=\"0 0 %d %d\">\n",
           PLOT_WIDTH, PLOT_HEIGHT, PLOT_WIDTH, PLOT_HEIGHT);
   /* the checkpoint by its file's name: the directory it was in says nothing on paper */
   const char *ckpt = h->checkpoint && *h->checkpoint ? h->checkpoint : NULL;
   const char *slash = ckpt ? strrchr(ckpt, '/') : NULL;
   char *title = xAsprintf("%s on %s%s, policy %s, cost model %s%s%s%s", h->network, h->device,
                           h->simulated ? " (simulated)" : "", h->policy, h->costModel, ckpt ? " (from " : "",
                           slash ? slash + 1 : ckpt ? ckpt : "", ckpt ? ")" : "");
   fprintf(o, "<title>");
   putEscaped(o, title);
   fprintf(o, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", PLOT_WIDTH, PLOT_HEIGHT);
   fprintf(o, "<text x=\"%d\" y=\"26\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\" %s>", PLOT_WIDTH / 2,
           FONT);
   putEscaped(o, title);
   fprintf(o, "</text>\n");
   free(title);

   const char *blue = "#1f77b4", *orange = "#d62728";
   Curve byTrials = { trials, latency, n, "estimated total latency", blue, NULL };
   Curve byTime = { seconds, latency, n, "estimated total latency", blue, NULL };
   Frame left = { 90, 70, 370, 260, scaleOf(&byTrials, 1, false, true), scaleOf(&byTrials, 1, true, false),
                  "estimated total latency against trials", "trials (measurements)", "estimated total latency (ms)" };
   char *timeLabel = xAsprintf("time since the start (%s)", unitName);
   Frame right = { 600, 70, 370, 260, scaleOf(&byTime, 1, false, true), left.ys,
                   "estimated total latency against time", timeLabel, "estimated total latency (ms)" };
   drawAxes(o, &left);
   drawCurves(o, &left, &byTrials, 1);
   drawAxes(o, &right);
   drawCurves(o, &right, &byTime, 1);
   free(timeLabel);

   Curve drafts[2] = {
      { rounds, acceptance, n, "draft acceptance rate", blue, NULL },
      { rounds, tau, n, "Kendall tau, draft vs verify model", orange, "6 3" },
   };
   int ndrafts = haveTau ? 2 : 1;
   AxisScale share = Axis_scale(haveTau ? -1 : 0, 1, false);
   Frame bottom = { 90, 430, 880, 200, scaleOf(drafts, ndrafts, false, false), share,
                    haveTau ? "draft acceptance and Kendall tau per round" : "draft acceptance per round", "round",
                    haveTau ? "rate; tau" : "rate" };
   drawAxes(o, &bottom);
   drawCurves(o, &bottom, drafts, ndrafts);
   fprintf(o, "</svg>\n");
   fclose(o);
   free(trials);
   free(seconds);
   free(latency);
   free(rounds);
   free(acceptance);
   free(tau);
   TuneView_done(&v);
   return buf;
}
