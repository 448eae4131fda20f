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

/* The figures of every input, gathered once (status_fini() frees them). */
int status_read(const struct jankd *d, struct status *s);
void status_fini(struct status *s);
/* Whether an input's worker is attached to its session. */
bool status_connected(const struct jank_input_figures *f);

/* Pieces of status.c, for its test. */
const char *status_bytes_text(int64_t b, char *buf, size_t len);
const char *status_uptime_text(int64_t ns, char *buf, size_t len);
void status_worker_text(FILE *f, const struct jank_fleet_figures *x);
void status_input_text(FILE *f, const struct jank_fleet_figures *x);
bool status_is_blind(const struct jank_fleet_figures *x);
void status_blind_text(FILE *f, const struct status *s);
void status_capture_text(FILE *f, const struct jank_capturer_status *c);
void status_recent_text(FILE *f, const struct jank_recent *const *recent, size_t n);
void status_discovery_text(FILE *f, const struct jank_fleet_discovery *d);
void status_add_host(struct status *s, const struct jank_fleet_figures *x);
struct json_object *status_hosts_json(const struct status *s);

#endif
