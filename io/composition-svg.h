/* SPDX-License-Identifier: MIT */
/*
 * The picture of one rule's slow critical-path time over the last
 * JANK_COMP_HISTORY_BARS intervals (comp-history.h), the newest right:
 * stacked by state or, by_on, by the thread waited on (the top 8 names,
 * the rest as "other"). jankd's web page /composition.svg.
 */
#ifndef JANK_COMPOSITION_SVG_H
#define JANK_COMPOSITION_SVG_H

#include <stdbool.h>
#include <stdio.h>
#include "comp-history.h"

/* `action`: the rule's name, in the title. Returns 0 or -EIO. */
int jank_svg_composition(FILE *f, const struct jank_comp_rule *r, const char *action, bool by_on);

#endif
