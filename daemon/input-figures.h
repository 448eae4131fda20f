/* SPDX-License-Identifier: MIT */
/*
 * An input's figures over all its workers. A restarted worker starts a new
 * engine whose counters start at zero: the supervisor folds the last status
 * of each worker that ended into a sum of the past (its counters, and each
 * rule's count and janks), and `jankctl status` and the final summary show
 * the current status plus that sum. The latency percentiles, the graph and
 * the rates are the current worker's.
 */
#ifndef JANK_INPUT_FIGURES_H
#define JANK_INPUT_FIGURES_H

#include <stdbool.h>
#include <json-c/json.h>
#include "histogram.h"

/* Add the counters of `status` (an input-status.h object) to `past`, an object (may be empty). */
void jank_figures_fold(struct json_object *past, struct json_object *status);
/* A new object: `status` with the counters of `past` added; NULL on allocation failure. */
struct json_object *jank_figures_merge(struct json_object *status, struct json_object *past);

/*
 * A rule's latency histogram as a worker sends it (input-status.c: sum,
 * min, max and the non-empty buckets) into h, its count the buckets' sum.
 * False when the rule has none (h is then empty).
 */
bool jank_figures_histogram(struct json_object *rule, struct jank_histogram *h);

#endif
