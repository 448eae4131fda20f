/* SPDX-License-Identifier: MIT */
/*
 * The picture of a comparison (`jankctl compare --svg`): two stacked bars
 * side by side, the mean time per action of each group split by thread and
 * state (the same components in the same order in both, coloured by state,
 * the largest increase at the bottom), a time axis, the states' legend and
 * the largest differences in words. 1200 px wide, in the style of svg.h.
 */
#ifndef JANK_COMPARE_SVG_H
#define JANK_COMPARE_SVG_H

#include <stdio.h>
#include "compare.h"

/* `title`: the first line. Returns 0, -ENOMEM or -EIO. */
int jank_svg_compare(FILE *f, const struct jank_compare *c, const char *title);

#endif
