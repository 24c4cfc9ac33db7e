/* Nice axis ranges, their ticks on a linear or a logarithmic scale, and tick labels. */
#include "config.h"

#include "axis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* q, or the integer it is within rounding error of */
static double snapInteger(double q) {
   double r = round(q);
   return fabs(q - r) < 1e-9 * fmax(1, fabs(q)) ? r : q;
}

/* m * 10^k, exact where 10^|k| is, as m / 10^-k for negative k. */
static double scaled(double m, int k) {
   double p = pow(10, abs(k));
   return k >= 0 ? m * p : m / p;
}

/* the smallest 1, 2 or 5 x 10^k at least raw (> 0), as m and k */
static void niceStep(double raw, int *m, int *k) {
   static const int mults[] = { 1, 2, 5 };
   *k = (int)floor(log10(raw));
   double f = raw / scaled(1, *k);
   for (size_t i = 0; i < sizeof mults / sizeof mults[0]; i++)
      if (f <= mults[i] * (1 + 1e-9)) {
         *m = mults[i];
         return;
      }
   *m = 1;
   (*k)++;
}

void Axis_niceRange(double lo, double hi, double *outLo, double *outHi, double *step) {
   if (hi < lo) {
      double t = lo;
      lo = hi;
      hi = t;
   }
   if (hi == lo) {
      double d = lo != 0 ? fabs(lo) / 10 : 1;
      lo -= d;
      hi += d;
   }
   int m, k;
   niceStep((hi - lo) / 5, &m, &k);
   double s = scaled(m, k);
   /* + 0.0 turns -0 into 0 */
   *outLo = scaled(floor(snapInteger(lo / s)) * m, k) + 0.0;
   *outHi = scaled(ceil(snapInteger(hi / s)) * m, k) + 0.0;
   if (step)
      *step = s;
}

/* The 1-2-5 value at or below v (> 0), or with up the one at or above it. */
static double logNice(double v, bool up) {
   static const int mults[] = { 1, 2, 5, 10 };
   int k = (int)floor(log10(v));
   double f = snapInteger(v / scaled(1, k) * 1e9) / 1e9;
   if (up) {
      for (size_t i = 0; i < 4; i++)
         if (f <= mults[i] * (1 + 1e-9))
            return scaled(mults[i], k);
   }
   for (int i = 3; i >= 0; i--)
      if (f >= mults[i] * (1 - 1e-9))
         return scaled(mults[i], k);
   return scaled(5, k - 1);
}

/* the 1-2-5 value after v (itself one): 1 -> 2 -> 5 -> 10, or before it */
static double logNext(double v, int dir) {
   int k = (int)floor(log10(v) + 1e-9);
   int m = (int)snapInteger(v / scaled(1, k));
   if (dir > 0)
      return m == 1 ? scaled(2, k) : m == 2 ? scaled(5, k) : scaled(1, k + 1);
   return m == 5 ? scaled(2, k) : m == 2 ? scaled(1, k) : scaled(5, k - 1);
}

void Axis_logRange(double lo, double hi, double *outLo, double *outHi) {
   if (hi < lo) {
      double t = lo;
      lo = hi;
      hi = t;
   }
   *outLo = logNice(lo, false);
   *outHi = logNice(hi, true);
   if (*outLo == *outHi) {
      *outLo = logNext(*outLo, -1);
      *outHi = logNext(*outHi, +1);
   }
}

AxisScale Axis_scale(double lo, double hi, bool log) {
   AxisScale a = { .log = log };
   if (log)
      Axis_logRange(lo, hi, &a.lo, &a.hi);
   else
      Axis_niceRange(lo, hi, &a.lo, &a.hi, &a.step);
   return a;
}

int Axis_ticks(const AxisScale *a, int most, double *ticks) {
   int n = 0;
   double lo = a->lo, hi = a->hi;
   if (!a->log) {
      if (!(a->step > 0) || !(hi >= lo))
         return 0;
      double first = ceil(snapInteger(lo / a->step)), last = floor(snapInteger(hi / a->step));
      if (fabs(first * a->step - lo) > 1e-9 * a->step)
         ticks[n++] = lo;
      for (double q = first; n < AXIS_MAX_TICKS - 1 && q <= last; q++) {
         /* q * step as the decimal it stands for */
         char text[32];
         snprintf(text, sizeof text, "%.12g", q * a->step);
         ticks[n++] = strtod(text, NULL) + 0.0;
      }
      if ((n == 0 || fabs(ticks[n - 1] - hi) > 1e-9 * a->step) && n < AXIS_MAX_TICKS)
         ticks[n++] = hi;
      return n;
   }
   if (!(lo > 0) || !(hi >= lo))
      return 0;
   double first = logNice(lo, true);
   int all = 0;
   for (double t = first; t <= hi * (1 + 1e-9); t = logNext(t, +1))
      all++;
   bool decades = all > most;
   int i = 0;
   for (double t = first; t <= hi * (1 + 1e-9) && n < AXIS_MAX_TICKS; t = logNext(t, +1), i++) {
      bool power = fabs(log10(t) - round(log10(t))) < 1e-9;
      if (!decades || power || i == 0 || i == all - 1)
         ticks[n++] = t;
   }
   return n;
}

/* v with the given decimals, trailing zeros dropped, then the suffix */
static void labelNumber(double v, int decimals, const char *suffix, char *buf, size_t size) {
   char num[32];
   snprintf(num, sizeof num, "%.*f", decimals, v);
   if (strchr(num, '.')) {
      size_t len = strlen(num);
      while (num[len - 1] == '0')
         num[--len] = '\0';
      if (num[len - 1] == '.')
         num[--len] = '\0';
   }
   snprintf(buf, size, "%s%s", num, suffix);
}

/* one significant digit and a short exponent: "4e-4", "-1e21" */
static void labelExponent(double v, char *buf, size_t size) {
   char num[32];
   snprintf(num, sizeof num, "%.0e", v);
   char *e = strchr(num, 'e');
   int exponent = atoi(e + 1);
   *e = '\0';
   snprintf(buf, size, "%se%d", num, exponent);
}

void Axis_label(double v, char *buf, size_t size) {
   static const char *const suffixes[] = { "k", "M", "G", "T", "P", "E" };
   double a = fabs(v);
   if (isnan(v)) {
      snprintf(buf, size, "-");
   } else if (isinf(v)) {
      snprintf(buf, size, "%s", v > 0 ? "inf" : "-inf");
   } else if (a < 1e-99) {
      /* "-4e-100" would not fit */
      snprintf(buf, size, "0");
   } else if (a < 0.0005) {
      labelExponent(v, buf, size);
   } else if (a < 9.9995) {
      labelNumber(v, 3, "", buf, size);
   } else if (a < 999.95) {
      labelNumber(v, 1, "", buf, size);
   } else {
      double s = v;
      for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
         s /= 1000;
         if (fabs(s) < 99.95) {
            labelNumber(s, 1, suffixes[i], buf, size);
            return;
         }
         if (fabs(s) < 999.5) {
            labelNumber(s, 0, suffixes[i], buf, size);
            return;
         }
      }
      labelExponent(v, buf, size);
   }
}

void Axis_tickLabel(double v, double step, char *buf, size_t size) {
   int decimals = step > 0 && step < 1 ? (int)ceil(-log10(step) - 1e-9) : 0;
   snprintf(buf, size, "%.*f", decimals, v + 0.0);
}
