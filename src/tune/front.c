/* The front of latency against error: per task from the view's best per precision, for
 * the network by sweeping the bound over every point's error. */
#include "config.h"

#include "tune/front.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/xalloc.h"

static int byError(const void *a, const void *b) {
   const FrontPoint *x = a, *y = b;
   if (x->error != y->error)
      return x->error < y->error ? -1 : 1;
   return x->latency < y->latency ? -1 : x->latency > y->latency ? 1 : (int)x->precision - (int)y->precision;
}

int Front_task(const TuneView *v, int t, FrontPoint out[PRECISION_COUNT]) {
   FrontPoint all[PRECISION_COUNT];
   int n = 0;
   for (int p = 0; p < PRECISION_COUNT; p++) {
      const TunePrecisionBest *b = &v->tasks[t].byPrecision[p];
      if (isnan(b->median))
         continue;
      all[n++] = (FrontPoint){ (Precision)p, b->median, isnan(b->predicted) ? 0 : b->predicted, b->measured,
                               b->state };
   }
   qsort(all, (size_t)n, sizeof all[0], byError);
   /* a point stays when it is faster than every more accurate one */
   int k = 0;
   for (int i = 0; i < n; i++)
      if (k == 0 || all[i].latency < out[k - 1].latency)
         out[k++] = all[i];
   return k;
}

void Front_free(FrontChoice **f, int n) {
   for (int i = 0; i < n; i++)
      free(f[i]);
   free(f);
}

static int ascending(const void *a, const void *b) {
   double x = *(const double *)a, y = *(const double *)b;
   return x < y ? -1 : x > y ? 1 : 0;
}

FrontChoice **Front_network(const TuneView *v, int *n) {
   *n = 0;
   int nt = v->ntasks;
   FrontPoint(*pts)[PRECISION_COUNT] = xCalloc((size_t)(nt ? nt : 1), sizeof *pts);
   int *np = xCalloc((size_t)(nt ? nt : 1), sizeof *np);
   double *bounds = xMalloc(((size_t)nt * PRECISION_COUNT + 1) * sizeof *bounds);
   int nb = 0;
   for (int t = 0; t < nt; t++) {
      np[t] = Front_task(v, t, pts[t]);
      if (np[t] == 0) {
         free(pts);
         free(np);
         free(bounds);
         return NULL;
      }
      for (int i = 0; i < np[t]; i++)
         bounds[nb++] = pts[t][i].error;
   }
   qsort(bounds, (size_t)nb, sizeof *bounds, ascending);
   FrontChoice **out = xCalloc((size_t)(nb ? nb : 1), sizeof *out);
   double last = INFINITY;
   for (int b = 0; b < nb; b++) {
      if (b > 0 && bounds[b] == bounds[b - 1])
         continue;
      FrontChoice *c = xCalloc(1, sizeof *c + (size_t)nt * sizeof c->choice[0]);
      double total = 0, worst = 0;
      bool every = true;
      for (int t = 0; t < nt && every; t++) {
         /* the last point within the bound is the fastest of them */
         int pick = -1;
         for (int i = 0; i < np[t] && pts[t][i].error <= bounds[b]; i++)
            pick = i;
         every = pick >= 0;
         if (!every)
            break;
         c->choice[t] = pts[t][pick].precision;
         total += v->tasks[t].weight * pts[t][pick].latency;
         worst = pts[t][pick].error > worst ? pts[t][pick].error : worst;
      }
      if (!every || !(total * 1e3 < last)) {
         free(c);
         continue;
      }
      c->bound = worst;
      c->latencyMs = total * 1e3;
      last = c->latencyMs;
      out[(*n)++] = c;
   }
   free(pts);
   free(np);
   free(bounds);
   return out;
}

char *Front_taskText(const TuneView *v, int t) {
   bool other = false;
   for (int p = PRECISION_FP16; p < PRECISION_COUNT; p++)
      other |= v->tasks[t].byPrecision[p].ok > 0;
   if (!other)
      return NULL;
   FrontPoint pts[PRECISION_COUNT];
   int n = Front_task(v, t, pts);
   char *text = NULL;
   size_t len = 0;
   FILE *f = open_memstream(&text, &len);
   if (!f)
      fatal("out of memory");
   for (int i = 0; i < n; i++) {
      fprintf(f, "%-4s  %.4f ms  error %.2e", Precision_name(pts[i].precision), pts[i].latency * 1e3, pts[i].error);
      if (!isnan(pts[i].measured))
         fprintf(f, "  measured %.2e", pts[i].measured);
      fprintf(f, "\n");
   }
   fclose(f);
   return text;
}

char *Front_text(const TuneView *v) {
   char *text = NULL;
   size_t len = 0;
   FILE *f = open_memstream(&text, &len);
   if (!f)
      fatal("out of memory");
   fprintf(f, "the front of latency against error: error is the precision's predicted largest |output -\n"
              "reference| over the reference's RMS; measured, the largest of its states compared\n\n");
   fprintf(f, "%4s  %-32s  %-4s  %12s  %9s  %9s\n", "ID", "task", "prec", "latency (ms)", "error", "measured");
   for (int t = 0; t < v->ntasks; t++) {
      FrontPoint pts[PRECISION_COUNT];
      int n = Front_task(v, t, pts);
      if (n == 0)
         fprintf(f, "%4d  %-32.32s  nothing measured ok\n", t, TuneView_describe(v, t));
      for (int i = 0; i < n; i++) {
         char measured[32] = "-";
         if (!isnan(pts[i].measured))
            snprintf(measured, sizeof measured, "%9.2e", pts[i].measured);
         if (i == 0)
            fprintf(f, "%4d  %-32.32s", t, TuneView_describe(v, t));
         else
            fprintf(f, "%4s  %-32s", "", "");
         fprintf(f, "  %-4s  %12.4f  %9.2e  %9s\n", Precision_name(pts[i].precision), pts[i].latency * 1e3,
                 pts[i].error, measured);
      }
   }
   int n = 0;
   FrontChoice **net = Front_network(v, &n);
   if (!net) {
      fprintf(f, "\nthe network's front: not yet (some task has nothing measured ok)\n");
   } else {
      fprintf(f, "\nthe network's front (the weighted sum of the tasks' latencies each bound allows):\n");
      fprintf(f, "%9s  %14s  %s\n", "bound", "total (ms)", "tasks per precision");
      for (int i = 0; i < n; i++) {
         int count[PRECISION_COUNT] = { 0 };
         for (int t = 0; t < v->ntasks; t++)
            count[net[i]->choice[t]]++;
         fprintf(f, "%9.2e  %14.4f ", net[i]->bound, net[i]->latencyMs);
         for (int p = 0; p < PRECISION_COUNT; p++)
            if (count[p])
               fprintf(f, " %s %d", Precision_name((Precision)p), count[p]);
         fprintf(f, "\n");
      }
      Front_free(net, n);
   }
   fclose(f);
   return text;
}
