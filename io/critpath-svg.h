/* SPDX-License-Identifier: MIT */
/*
 * The critical path of an action as an SVG picture (critical-path.svg of a
 * capture report): one lane per thread on the path, coloured state segments,
 * wakeup arrows from the waker's lane to the woken thread's lane, the
 * action's begin, end and threshold marked, a time axis in readable units,
 * and a legend with the time spent per state. 1200 px wide, in the style
 * of svg.h.
 */
#ifndef JANK_CRITPATH_SVG_H
#define JANK_CRITPATH_SVG_H

#include <stdio.h>
#include "engine.h"
#include "svg.h"

/*
 * The picture of r->path. `g` (may be NULL) is the graph the path was
 * computed on: it tells wakeups from the start of a wait; without it the
 * order of the path decides. `subtitle` (may be NULL) is a line under the
 * title. Returns 0, -EINVAL (no path), -ENOMEM or -EIO.
 */
int jank_svg_critpath(FILE *f, const struct jank_verdict *r, const struct jank_graph *g,
		      const char *subtitle);

#endif
