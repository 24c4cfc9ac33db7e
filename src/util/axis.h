/* Axes for plots, on the screen and in the exported SVG: "nice" ranges and their
 * ticks, on a linear scale (steps of 1, 2 or 5 times a power of ten) or a logarithmic
 * one (the 1-2-5 values of each decade), and short labels for the ticks. */
#ifndef HEADER_axis
#define HEADER_axis

#include <stdbool.h>
#include <stddef.h>

/* The most ticks Axis_ticks gives. */
#define AXIS_MAX_TICKS 64

/* A "nice" linear range covering [lo, hi] (finite; swapped when hi < lo): the step is
 * the smallest 1, 2 or 5 times a power of ten that is at least (hi - lo) / 5, and the
 * ends are lo rounded down and hi rounded up to multiples of it; so (0.93, 2.31)
 * gives [0.5, 2.5] and (12, 87) gives [0, 100]. lo == hi widens to lo -+ |lo| / 10
 * first (-+ 1 for 0) and so gives a small range around it. *step (when not NULL)
 * gets the step. */
void Axis_niceRange(double lo, double hi, double *outLo, double *outHi, double *step);

/* A logarithmic range covering [lo, hi] (0 < lo <= hi, finite): lo rounded down and
 * hi rounded up to a 1, 2 or 5 times a power of ten; so (0.012, 0.35) gives
 * [0.01, 0.5]. lo == hi on such a value widens to the values on either side of it:
 * (2, 2) gives [1, 5]. */
void Axis_logRange(double lo, double hi, double *outLo, double *outHi);

/* An axis: its ends, and on a linear scale the step between its ticks. */
typedef struct AxisScale_ {
   double lo, hi;
   double step;                 /* linear; 0 on a log scale */
   bool log;
} AxisScale;

/* The axis of data from lo to hi: Axis_niceRange's, or with `log` (0 < lo)
 * Axis_logRange's. */
AxisScale Axis_scale(double lo, double hi, bool log);

/* The axis' ticks, ascending, into ticks (room for AXIS_MAX_TICKS); returns their
 * number; the ends are the first and the last. Linear: lo, hi and the multiples of
 * the step between them, each the decimal value it stands for (0.3, not
 * 0.30000000000000004). Log: the 1, 2 and 5 times a power of ten from lo to hi; where
 * there are more than `most` of them, the first, the last and the powers of ten. */
int Axis_ticks(const AxisScale *a, int most, double *ticks);

/* A short label for a value, at most 6 characters, for axis labels and times:
 * "0.0004" -> "4e-4", "2.116", "45.1", "1.2k", "45.1k", "3.4M" (k, M, G, T, P, E);
 * three decimals below 10, one below 1000, one on the scaled value below 100 and none
 * above, trailing zeros dropped ("2.5", "100", "1k"); "0" for zero, "-" for NAN,
 * "inf" and "-inf"; below 0.0005 one digit and an exponent, and beyond "E" too
 * ("-2e21"); below 1e-99 "0". Cut snprintf style when size is smaller than 7. */
void Axis_label(double v, char *buf, size_t size);

/* A tick's label with as many decimals as the step between ticks needs (none for a
 * step of 1 or more, 4 for 0.0002), trailing zeros kept so that the labels of an
 * axis line up: 0.0195 with step 0.0001 is "0.0195", 20 with step 5 is "20". */
void Axis_tickLabel(double v, double step, char *buf, size_t size);

#endif
