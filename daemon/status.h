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
/*
 * The same in two steps, so that the page is not rendered on the loop: a
 * snapshot (on the loop: the figures copied, /proc read; NULL: out of
 * memory), rendered then on any thread (it reads nothing but the snapshot),
 * and freed.
 */
void *jank_status_metrics_snapshot(const struct jankd *d, enum jank_metrics_format f);
char *jank_status_metrics_render(void *snap, size_t *len);
void jank_status_metrics_free(void *snap);
/* One line for sd_notify STATUS=: "attached 1/1, 250 events/s, ..." */
void jank_status_line(const struct jankd *d, char *buf, size_t len);

#endif
