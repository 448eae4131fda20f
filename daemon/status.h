/* SPDX-License-Identifier: MIT */
/*
 * What `jankctl status` shows, and the STATUS= line of sd_notify: per-input
 * state and counters, per-rule counts and latency percentiles, recent janks,
 * alert and GC counters. The JSON is the reference; the text is made from it.
 */
#ifndef JANK_STATUS_H
#define JANK_STATUS_H

#include <stddef.h>
#include <json-c/json.h>
#include "jankd.h"

/* A new object (put it), NULL on allocation failure. */
struct json_object *jank_status_json(const struct jankd *d);
/* The same for humans: a malloc'ed string, NULL on allocation failure. */
char *jank_status_text(const struct jankd *d);
/*
 * The metrics (metrics.h) of the endpoint and of `jankctl status --format
 * openmetrics|prometheus`: malloc'ed, its length in *len; NULL on allocation failure.
 */
char *jank_status_metrics(const struct jankd *d, enum jank_metrics_format f, size_t *len);
/* One line for sd_notify STATUS=: "attached 1/1, 250 events/s, ..." */
void jank_status_line(const struct jankd *d, char *buf, size_t len);

#endif
