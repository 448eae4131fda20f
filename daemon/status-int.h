/* SPDX-License-Identifier: MIT */
/*
 * Inside jankd's status report: the figures gathered once per request,
 * and the pieces of text status.c renders them with, for its test. Not
 * for use outside daemon/status.c and tests/daemon/test-status.c.
 */
#ifndef JANK_STATUS_INT_H
#define JANK_STATUS_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "clock.h"
#include "capturer.h"
#include "format.h"
#include "input-figures.h"
#include "journal.h"
#include "live-keeper.h"
#include "status.h"
#include "json-util.h"
#include "metrics.h"
#include "textsafe.h"
#include "units.h"

/* The figures that add up over the inputs (or a host's inputs). */
struct totals {
	const char *host;
	uint64_t inputs, events, actions, janks, overdue, memory, discarded, connected, blind;
	double rate;
};

struct status {
	struct jank_fleet_figures *inputs;
	size_t n;
	struct totals all;
	struct totals *hosts; /* in the order of their first input */
	size_t nhosts;
};

/*
 * The metrics of the inputs come from the figures their workers sent last
 * (the current worker's plus those of the workers before it), not from
 * engines: those live in the workers. They point into `s`.
 */
struct metrics_inputs {
	struct status s;
	struct jank_metrics_input *inputs;
	struct jank_fleet_blind *blind; /* the inputs' blind_reason point here */
	struct jank_metrics_rule *rules;
	int64_t workers_cpu_ns; /* of the running workers */
};

/* Pieces of status.c, for its test. */
const char *bytes_text(int64_t b, char *buf, size_t len);
const char *uptime_text(int64_t ns, char *buf, size_t len);
void worker_text(FILE *f, const struct jank_fleet_figures *x);
void input_text(FILE *f, const struct jank_fleet_figures *x);
bool is_blind(const struct jank_fleet_figures *x);
void blind_text(FILE *f, const struct status *s);
void capture_text(FILE *f, struct json_object *c);
void recent_text(FILE *f, const struct jank_recent *const *recent, size_t n);
void discovery_text(FILE *f, struct json_object *disc);
void add_host(struct status *s, const struct jank_fleet_figures *x);
struct json_object *hosts_json(const struct status *s);

#endif
