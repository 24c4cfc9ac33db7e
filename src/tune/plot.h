/* A session's curves as an SVG image a paper can use: the estimated total latency
 * against trials and against time side by side, and under them each round's draft
 * acceptance rate (and Kendall tau between the draft and the verify model, where the
 * session has it), with real axes (ticks, labels, units), a title naming the network,
 * device, policy and cost model of the session's header, and a legend. The SVG is
 * written as text so that its words stay words an editor can change (no Debian C
 * library draws a chart as editable SVG text: cairo's SVG surface turns text into
 * glyph outlines). */
#ifndef HEADER_plot
#define HEADER_plot

#include "tune/session.h"

/* The image's geometry, in SVG user units (pixels): each plot's frame, as the
 * polylines' coordinates are taken in it. */
#define PLOT_WIDTH 1000
#define PLOT_HEIGHT 720

/* The SVG of the session log's curves (caller frees). A value's point in a plot
 * whose frame is x, y, w, h and whose axes run x0 .. x1 and y0 .. y1 (the first and
 * the last tick) is (x + (v - x0) / (x1 - x0) * w, y + h - (u - y0) / (y1 - y0) * h),
 * written with two decimals. The latency curves show the round ends that have a
 * latency; the acceptance and tau curves the rounds where each is defined. *points
 * (when not NULL) gets the number of points of the curve against trials. */
char *Plot_svg(const SessionLog *log, int *points);

#endif
