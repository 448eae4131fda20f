/* SPDX-License-Identifier: MIT */
/*
 * The state of the jankd daemon: one context, owned by main() and passed
 * down to the loop's callbacks and to the status report.
 */
#ifndef JANKD_H
#define JANKD_H

#include <stdbool.h>
#include <stdint.h>
#include <event2/event.h>
#include "alert.h"
#include "comp-history.h"
#include "config-file.h"
#include "control-socket.h"
#include "exit-status.h"
#include "fleet.h"
#include "live-keeper.h"
#include "metrics-server.h"

struct jankd {
	const char *config_path;
	struct jank_config config;
	struct jank_config_sources config_sources; /* the files as read: what the workers get */
	enum jank_alert_target target;
	bool target_from_cmdline;
	bool log_stderr;   /* --log-target=auto (the default) in a terminal: messages to stderr */
	bool check_config; /* --check-config: check, say, exit */

	struct event_base *base;
	struct jank_alerter *alerter;
	struct jank_capturer *capturer;
	struct jank_fleet *fleet;     /* the inputs, each in a worker process */
	struct jank_fetcher *fetcher; /* [symbols] debuginfod's downloads; NULL: none listed */
	struct jank_control *control;
	struct jank_metrics_server *metrics; /* NULL: no [metrics] listen */
	struct jank_metrics_server *web;     /* the pages (web.h); NULL: no [web] listen */
	/* The pages' composition over time, sampled on the tick; NULL: no [web] listen. */
	struct jank_comp_history *comp_history;
	int64_t comp_mono; /* when it was sampled last */
	struct event *ev_hup, *ev_term, *ev_int;
	struct event *ev_tick, *ev_status, *ev_watchdog, *ev_ready;

	bool ready; /* READY=1 was sent */
	int64_t start_mono;
	int64_t start_real; /* wall clock at start: process_start_time_seconds */
	uint64_t reloads;
	uint64_t reload_errors;
	struct jank_live_keeper *keeper;	/* [live] create = yes: the session jankd owns */
	struct event *ev_keep;			/* tells the keeper what its input says */
	char hostname[JANK_CONFIG_SESSION_LEN]; /* captures record this host only */
	bool capture_here;			/* the verdict being alerted is of this host */
	int exit_status;
};

#endif
