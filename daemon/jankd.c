/* SPDX-License-Identifier: MIT */
/*
 * jankd: the live daemon. It watches LTTng live sessions through relayd,
 * runs the engine on their events, and alerts (journald, stderr or JSON
 * Lines) when a user action is too slow or still open past its threshold.
 *
 * The supervisor: one libevent loop that never waits for an input. Each
 * input runs in a worker process of its own (fleet.c, worker.c), which
 * sends its verdicts, status and log lines; the loop alerts, captures,
 * answers the control socket, sends sd_notify's status and watchdog, and
 * handles the signals (HUP reloads, TERM/INT stop).
 *
 * Exit status (io/exit-status.h, shared with jankctl): 0 clean stop; 1 bad
 * config at start; 2 bad usage (systemd's unit keeps 1 and 2 out of its
 * restarts: they will not get better by themselves); 3 failure while running.
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>
#include "binary-opener.h"
#include "debuginfod.h"
#include "fetcher.h"
#include "pidns-home.h"
#include "format.h"
#include "jankd-int.h"
#include "symbols.h"
#include "worker-launch.h"

void jankd_alert_config(const struct jankd *d, struct jank_alert_config *ac)
{
	ac->target = d->target;
	ac->rate_count = d->config.alerts.rate_limit_count;
	ac->rate_period_ns = d->config.alerts.rate_limit_period_ns;
}

/* ---- sd_notify ---- */

void jankd_notify_status(struct jankd *d, bool ready)
{
	char line[STATUS_LEN];

	jank_status_line(d, line, sizeof(line));
	sd_notifyf(0, "%sSTATUS=%s", ready ? "READY=1\n" : "", line);
}

/* READY=1, once: every input is attached, or `waiting` of them are not yet. */
static void become_ready(struct jankd *d, size_t waiting)
{
	size_t n = jank_fleet_count(d->fleet);
	char note[48] = "";

	d->ready = true;
	jankd_notify_status(d, true);
	if (waiting)
		snprintf(note, sizeof(note), " (%zu not attached yet)", waiting);
	jank_log(LOG_INFO, "ready: watching %zu live session%s%s, %zu rule%s", n, n == 1 ? "" : "s",
		 note, d->config.nrules, d->config.nrules == 1 ? "" : "s");
}

/* An input attached, or relayd's first list came: is everything there? */
static void on_fleet_change(void *data)
{
	struct jankd *d = data;
	size_t waiting;

	if (!d->ready && jank_fleet_ready(d->fleet, &waiting))
		become_ready(d, 0);
}

/*
 * [daemon] ready-timeout: an input still not attached (its session does not
 * exist yet) must not keep systemd waiting for READY=1 until it gives up on
 * the service. Say which, and be ready; it is attached when it appears.
 */
static void on_ready_timeout(evutil_socket_t fd, short what, void *data)
{
	struct jankd *d = data;
	size_t waiting = 0;

	(void)fd;
	(void)what;
	if (d->ready)
		return;
	if (jank_fleet_discovering(d->fleet) && !jank_fleet_ready(d->fleet, &waiting) && !waiting)
		jank_log(LOG_WARNING,
			 "%s: relayd has not listed its sessions yet; watching for them",
			 d->config.live.discover);
	waiting = 0;
	for (size_t i = 0; i < jank_fleet_count(d->fleet); i++) {
		const struct jank_fleet_input *in = jank_fleet_get(d->fleet, i);
		const char *err = jank_fleet_input_status(in)->last_error;

		if (jank_fleet_input_attached(in))
			continue;
		waiting++;
		jank_log(LOG_WARNING, "%s: not attached yet (%s); watching for it",
			 jank_fleet_input_url(in), err[0] ? err : "no such live session yet");
	}
	become_ready(d, waiting);
}

/* ---- Verdicts from the workers ---- */

/* Captures record this host: a jank of another host gets none. */
static const char *capture_hook(const struct jank_verdict *r, const char **failed, void *data)
{
	struct jankd *d = data;

	return d->capture_here ? jank_capturer_jank(r, failed, d->capturer) : NULL;
}

static void on_verdict(const struct jank_fleet_input *in, const struct jank_verdict *r, void *data)
{
	struct jankd *d = data;
	const struct jank_alert_origin o = {
		.input = jank_fleet_input_url(in),
		.host = jank_fleet_input_host(in),
		.session = jank_fleet_input_session(in),
		.skipped_ns = jank_fleet_input_skipped(in, r->begin, r->end),
	};

	d->capture_here = !strcmp(o.host, d->hostname);
	jank_alerter_report_from(d->alerter, r, &o);
}

/* Frames an input's alerts said binary+0xOFFSET, named since: the recent janks say the name. */
static void on_names(const struct jank_fleet_input *in, const char *frame, const char *name,
		     void *data)
{
	struct jankd *d = data;
	size_t n = jank_alerter_rename(d->alerter, jank_fleet_input_url(in), frame, name);
	char f[JANK_FORMAT_FRAME_TEXT_LEN], t[JANK_FORMAT_FRAME_TEXT_LEN];

	/* Both come from the traced binary: escaped. */
	if (n)
		jank_log(LOG_INFO, "%s: %s is %s (%zu recent janks say it now)",
			 jank_fleet_input_url(in),
			 jank_format_frame_text(frame, true, f, sizeof(f)),
			 jank_format_frame_text(name, true, t, sizeof(t)), n);
}

/* ---- The web pages' composition history (comp-history.h) ---- */

/* The rules it keeps: the configured ones (a rule gone goes, a new one starts empty). */
void jankd_comp_history_rules(struct jankd *d)
{
	const char **names;

	if (!d->comp_history)
		return;
	names = calloc(d->config.nrules ? d->config.nrules : 1, sizeof(*names));
	if (!names) {
		jank_log(LOG_ERR, "out of memory: the composition history keeps its rules");
		return;
	}
	for (size_t i = 0; i < d->config.nrules; i++)
		names[i] = d->config.rules[i].name;
	if (jank_comp_history_set_rules(d->comp_history, names, d->config.nrules) < 0)
		jank_log(LOG_ERR, "out of memory: the composition history lost some rules");
	free(names);
}

/* Each input's cumulative composition, per rule, as the metrics page reads it: one bar more. */
static void comp_history_sample(struct jankd *d)
{
	bool short_of_memory = false;

	jank_comp_history_begin(d->comp_history);
	for (size_t i = 0; i < jank_fleet_count(d->fleet); i++) {
		const struct jank_fleet_input *in = jank_fleet_get(d->fleet, i);
		const char *url = jank_fleet_input_url(in);
		struct jank_fleet_figures x;

		if (jank_comp_history_input(d->comp_history, url) < 0) {
			short_of_memory = true;
			continue;
		}
		if (jank_fleet_input_figures(in, &x) < 0) {
			short_of_memory = true;
			jank_fleet_figures_fini(&x);
			continue;
		}
		for (size_t r = 0; r < x.fig.nrules; r++)
			if (jank_comp_history_add(d->comp_history, url, x.fig.rules[r].action,
						  x.fig.rules[r].comp, x.fig.rules[r].ncomp) < 0)
				short_of_memory = true;
		jank_fleet_figures_fini(&x);
	}
	jank_comp_history_end(d->comp_history);
	if (short_of_memory)
		jank_log(LOG_WARNING, "out of memory: the composition history missed some figures");
}

/* ---- Timers ---- */

static void on_tick(evutil_socket_t fd, short what, void *data)
{
	struct jankd *d = data;

	(void)fd;
	(void)what;
	jank_alerter_tick(d->alerter);
	if (d->fetcher)
		jank_fetcher_flush_log(d->fetcher);
	if (d->comp_history && d->fleet) {
		int64_t now = jank_clock_monotonic_ns();

		if (now - d->comp_mono >= JANK_COMP_HISTORY_INTERVAL_NS) {
			d->comp_mono = now;
			comp_history_sample(d);
		}
	}
	/* What journald did not take yet (journal.c): it never waits for journald. */
	jank_journal_retry();
}

void jankd_on_status(evutil_socket_t fd, short what, void *data)
{
	struct jankd *d = data;

	(void)fd;
	(void)what;
	jankd_notify_status(d, false);
}

static void on_watchdog(evutil_socket_t fd, short what, void *data)
{
	(void)fd;
	(void)what;
	(void)data;
	sd_notify(0, "WATCHDOG=1");
}

int jankd_add_timer(struct jankd *d, struct event **ev, int64_t ns, event_callback_fn fn)
{
	struct timeval tv = jank_clock_timeval(ns);

	if (!*ev)
		*ev = event_new(d->base, -1, EV_PERSIST, fn, d);
	if (!*ev || event_add(*ev, &tv) != 0)
		return -ENOMEM;
	return 0;
}

/* ---- Control socket ---- */

static char *on_request(const char *req, void *data)
{
	struct jankd *d = data;
	char *reply = NULL;
	size_t len;

	while (*req == ' ' || *req == '\t')
		req++;
	if (!strcmp(req, "status")) {
		return jank_status_text(d);
	} else if (!strcmp(req, "status openmetrics")) {
		return jank_status_metrics(d, JANK_METRICS_OPENMETRICS, &len);
	} else if (!strcmp(req, "status prometheus")) {
		return jank_status_metrics(d, JANK_METRICS_PROMETHEUS, &len);
	} else if (!strcmp(req, "status json")) {
		struct json_object *o = jank_status_json(d);

		if (o && asprintf(&reply, "%s\n",
				  json_object_to_json_string_ext(
					  o, JSON_C_TO_STRING_PLAIN |
						     JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
			reply = NULL;
		json_object_put(o);
		return reply;
	}
	if (asprintf(&reply,
		     "error: unknown request '%.64s' (expected status, status json, status "
		     "openmetrics or status prometheus)\n",
		     req) < 0)
		return NULL;
	return reply;
}

/* ---- Metrics endpoint ---- */

static char *render_metrics(enum jank_metrics_format f, size_t *len, void *data)
{
	return jank_status_metrics(data, f, len);
}

static void *snapshot_metrics(enum jank_metrics_format f, void *data)
{
	return jank_status_metrics_snapshot(data, f);
}

static const struct jank_metrics_async metrics_async = {
	.snapshot = snapshot_metrics,
	.render = jank_status_metrics_render,
	.free = jank_status_metrics_free,
};

static int metrics_open(struct jankd *d, char *err, size_t len)
{
	const struct jank_config_metrics *m = &d->config.metrics;

	if (!m->host[0])
		return 0;
	d->metrics =
		jank_metrics_server_open(d->base, m->host, m->port, render_metrics, d, err, len);
	if (!d->metrics)
		return -EIO;
	/* Rendered off the loop: a scrape of 64 inputs costs it about 1 ms, not 150. */
	if (jank_metrics_server_set_async(d->metrics, &metrics_async) < 0)
		jank_log(LOG_WARNING, "metrics: rendered on the loop (no eventfd)");
	jank_log(LOG_INFO, "metrics at http://%s/metrics", jank_metrics_server_address(d->metrics));
	return 0;
}

static int web_open(struct jankd *d, char *err, size_t len)
{
	const struct jank_config_web *w = &d->config.web;

	if (!w->host[0])
		return 0;
	d->comp_history = jank_comp_history_new();
	if (!d->comp_history) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	jankd_comp_history_rules(d);
	d->comp_mono = jank_clock_monotonic_ns();
	d->web = jank_metrics_server_open_web(d->base, w->host, w->port, jank_web_handle, d, err,
					      len);
	if (!d->web)
		return -EIO;
	jank_log(LOG_INFO, "web pages at http://%s/", jank_metrics_server_address(d->web));
	return 0;
}

/* ---- Signals ---- */

static void on_signal(evutil_socket_t sig, short what, void *data)
{
	struct jankd *d = data;

	(void)what;
	if (sig == SIGHUP) {
		jankd_reload(d);
		return;
	}
	jank_log(LOG_INFO, "%s: stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
	event_base_loopbreak(d->base);
}

/* ---- Start and stop ---- */

/*
 * [live] create = yes: the live session jankd owns (live-keeper.c), created
 * now and again whenever lttng-sessiond or lttng-relayd lost it. The config
 * stays as written, so that a reload compares like with like.
 */
static void on_keeper_retry(const char *url, void *data)
{
	struct jankd *d = data;

	if (d->fleet)
		jank_fleet_retry(d->fleet, url);
}

/* Every second: the keeper learns what the session's input says (relayd's side). */
static void on_keep(evutil_socket_t fd, short what, void *data)
{
	struct jankd *d = data;
	const char *url = jank_live_keeper_url(d->keeper);

	(void)fd;
	(void)what;
	for (size_t i = 0; d->fleet && i < jank_fleet_count(d->fleet); i++) {
		const struct jank_fleet_input *in = jank_fleet_get(d->fleet, i);
		const struct jank_input_figures *st = jank_fleet_input_status(in);
		int p;

		if (strcmp(jank_fleet_input_url(in), url))
			continue;
		/* A name the worker should not have sent is no problem the keeper knows. */
		p = jank_live_input_problem_from_name(st->problem);
		jank_live_keeper_input(d->keeper,
				       p < 0 ? JANK_LIVE_INPUT_OK : (enum jank_live_input_problem)p,
				       st->problem_since);
	}
}

static int live_create(struct jankd *d, char *err, size_t len)
{
	int r;

	d->keeper = jank_live_keeper_new(d->base, &d->config, on_keeper_retry, d);
	if (!d->keeper) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	r = jank_live_keeper_start(d->keeper, err, len);
	if (r < 0)
		return r;
	if (jankd_add_timer(d, &d->ev_keep, 1000000000LL, on_keep) < 0) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* A worker's binary to fetch by build-id (fetcher.h). */
static void on_fetch(const uint8_t *id, size_t len, void *data)
{
	struct jankd *d = data;

	jank_fetcher_request(d->fetcher, id, len);
}

/*
 * [symbols] debuginfod: the client's environment (set or cleared), and with
 * servers listed, the fetcher's thread, and the capture reports' downloads.
 * Before any other thread starts.
 */
/*
 * Who the fetcher process runs as: [daemon] worker-user, as the workers
 * jankd starts itself (their seccomp filter lets them open files read-only
 * only: they cannot write the cache that user owns); jankd's own user when
 * it cannot change it (not root, or under systemd, without capabilities).
 */
static int fetcher_user(const struct jankd *d, struct jank_fetcher_user *u, char *err, size_t len)
{
	struct passwd *pw;

	memset(u, 0, sizeof(*u));
	if (geteuid() != 0 || jank_worker_launch_spawner()) {
		u->same = true;
		return 0;
	}
	errno = 0;
	pw = getpwnam(d->config.daemon.worker_user);
	if (!pw) {
		snprintf(err, len,
			 "cannot start the debuginfod fetcher: no user '%s' ([daemon] worker-user)",
			 d->config.daemon.worker_user);
		return -ENOENT;
	}
	if (pw->pw_uid == 0 && !d->config.daemon.workers_as_root) {
		snprintf(err, len,
			 "cannot start the debuginfod fetcher: [daemon] worker-user '%s' is root, "
			 "and workers-as-root is not set",
			 d->config.daemon.worker_user);
		return -EPERM;
	}
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	return 0;
}

static int debuginfod_start(struct jankd *d, char *err, size_t len)
{
	struct jank_debuginfod_config c;
	struct jank_fetcher_user u;
	int r;

	/* The capture reports' symbolizers too: [symbols] memory-limit. */
	jank_symbols_set_default_limit((size_t)d->config.symbols.memory_limit);
	jank_config_debuginfod(&d->config, &c);
	r = jank_debuginfod_setup(&c, err, len);
	if (r < 0 || !jank_debuginfod_enabled(&c))
		return r;
	r = fetcher_user(d, &u, err, len);
	if (r < 0)
		return r;
	r = jank_fetcher_own_cache(c.cache, &u);
	if (r < 0) {
		snprintf(err, len, "cannot give %s to the debuginfod fetcher's user: %s", c.cache,
			 strerror(-r));
		return r;
	}
	d->fetcher = jank_fetcher_new(&c, &u);
	if (!d->fetcher) {
		snprintf(err, len, "cannot start the debuginfod fetcher");
		return -ENOMEM;
	}
	/* The capture reports wait for the fetcher process: jankd downloads nothing itself. */
	jank_symbols_set_default_fetcher(jank_fetcher_fetch_fn, d->fetcher);
	return 0;
}

/* The inputs, each in its worker: [live] url, the created session, or discovery. */
static int start_inputs(struct jankd *d, char *err, size_t len)
{
	int r = 0;

	jank_worker_proc_set_user(d->config.daemon.worker_user, d->config.daemon.workers_as_root);
	jank_worker_proc_set_open_binaries(d->config.daemon.open_binaries);
	d->fleet = jank_fleet_new(d->base, on_verdict, on_fleet_change, d);
	if (!d->fleet || jank_fleet_set_config(d->fleet, &d->config, &d->config_sources) < 0) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	if (d->fetcher)
		jank_fleet_set_fetch(d->fleet, on_fetch, d);
	jank_fleet_set_names(d->fleet, on_names, d);
	for (size_t i = 0; r == 0 && i < d->config.live.nurls; i++)
		r = jank_fleet_add_url(d->fleet, d->config.live.urls[i]);
	if (r == 0 && d->keeper)
		r = jank_fleet_add_url(d->fleet, jank_live_keeper_url(d->keeper));
	if (r == 0)
		r = jank_fleet_start(d->fleet);
	if (r < 0) {
		snprintf(err, len, "cannot start the inputs: %s", strerror(-r));
		return r;
	}
	return 0;
}

static int start(struct jankd *d, char *err, size_t len)
{
	struct jank_alert_config ac;
	int64_t watchdog_us = 0;
	uint64_t usec = 0;
	int r;

	d->base = event_base_new();
	if (!d->base) {
		snprintf(err, len, "cannot create the event loop");
		return -ENOMEM;
	}
	/* First: it sets the environment, which no other thread may be reading. */
	r = debuginfod_start(d, err, len);
	if (r < 0)
		return r;
	jankd_alert_config(d, &ac);
	d->alerter = jank_alerter_new(&ac);
	d->ev_hup = evsignal_new(d->base, SIGHUP, on_signal, d);
	d->ev_term = evsignal_new(d->base, SIGTERM, on_signal, d);
	d->ev_int = evsignal_new(d->base, SIGINT, on_signal, d);
	if (!d->alerter || !d->ev_hup || !d->ev_term || !d->ev_int ||
	    evsignal_add(d->ev_hup, NULL) || evsignal_add(d->ev_term, NULL) ||
	    evsignal_add(d->ev_int, NULL)) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	d->control = jank_control_socket_open(d->base, d->config.daemon.control_socket, on_request,
					      d, err, len);
	if (!d->control)
		return -EIO;
	r = metrics_open(d, err, len);
	if (r < 0)
		return r;
	r = web_open(d, err, len);
	if (r < 0)
		return r;
	if (d->config.live.create) {
		r = live_create(d, err, len);
		if (r < 0)
			return r;
	}
	/* Captures before the inputs: a jank may come as soon as they attach. */
	d->capturer = jank_capturer_new(d->base, &jank_capture_session_lttng_ops);
	if (!d->capturer) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	r = jank_capturer_start(d->capturer, &d->config, d->alerter, err, len);
	if (r < 0)
		return r;
	jank_alerter_set_capture(d->alerter, capture_hook, d);
	r = start_inputs(d, err, len);
	if (r < 0)
		return r;
	if (jankd_add_timer(d, &d->ev_tick, TICK_NS, on_tick) < 0 ||
	    jankd_add_timer(d, &d->ev_status, d->config.daemon.status_interval_ns,
			    jankd_on_status) < 0) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	if (d->config.daemon.ready_timeout_ns > 0) {
		struct timeval tv = jank_clock_timeval(d->config.daemon.ready_timeout_ns);

		d->ev_ready = evtimer_new(d->base, on_ready_timeout, d);
		if (!d->ev_ready || evtimer_add(d->ev_ready, &tv) != 0) {
			snprintf(err, len, "out of memory");
			return -ENOMEM;
		}
	}
	if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
		watchdog_us = (int64_t)usec / 2;
		if (jankd_add_timer(d, &d->ev_watchdog, watchdog_us * 1000, on_watchdog) < 0) {
			snprintf(err, len, "out of memory");
			return -ENOMEM;
		}
		sd_notify(0, "WATCHDOG=1");
	}
	jank_log(LOG_INFO, "jankd %s started: %s, %zu rule%s, %zu input%s, alerts to %s%s",
		 JANK_VERSION, d->config_path, d->config.nrules, d->config.nrules == 1 ? "" : "s",
		 jank_fleet_count(d->fleet), jank_fleet_count(d->fleet) == 1 ? "" : "s",
		 jank_alert_target_name(d->target), watchdog_us ? ", watchdog on" : "");
	return 0;
}

/* The summary lines of one input, from its workers' last figures. */
static void input_summary(const struct jank_fleet_input *in, bool named)
{
	const char *of = named ? " of " : "", *url = named ? jank_fleet_input_url(in) : "";
	const struct jank_engine_stats *es;
	struct jank_fleet_figures x;

	if (jank_fleet_input_figures(in, &x) < 0) {
		jank_fleet_figures_fini(&x);
		return;
	}
	for (size_t r = 0; r < x.fig.nrules; r++) {
		const struct jank_rule_figures *ru = &x.fig.rules[r];
		char p50[32], p99[32], max[32];

		jank_log(LOG_INFO,
			 "summary%s%s: %s: %" PRIu64 " actions, %" PRIu64
			 " janks, p50 %s, p99 %s, max %s",
			 of, url, ru->action, ru->count, ru->stats.janks,
			 jank_units_duration(ru->p50_ns, p50, sizeof(p50)),
			 jank_units_duration(ru->p99_ns, p99, sizeof(p99)),
			 jank_units_duration(ru->max_ns, max, sizeof(max)));
	}
	es = &x.fig.engine;
	jank_log(LOG_INFO,
		 "summary%s%s: %" PRIu64 " events, %" PRIu64 " overdue (%" PRIu64
		 " unsure, not reported), %" PRIu64 " discarded events, %" PRIu64
		 " expired, %" PRIu64 " evicted by the memory budget, %" PRIu64
		 " truncated, %" PRIu64 " dropped, %" PRIu64 " disconnects",
		 of, url, es->events, es->overdue, es->overdue_unsure, es->discarded_events,
		 es->actions_expired, es->actions_evicted, es->paths_truncated, es->actions_dropped,
		 x.fig.disconnects);
	jank_fleet_figures_fini(&x);
}

/* One line per rule (and input), then the counters. */
static void final_summary(struct jankd *d)
{
	size_t n = jank_fleet_count(d->fleet);
	struct jank_alerter_stats as;
	struct jank_fleet_stats fs;

	jank_alerter_get_stats(d->alerter, &as);
	for (size_t i = 0; i < n; i++)
		input_summary(jank_fleet_get(d->fleet, i), n > 1);
	jank_fleet_get_stats(d->fleet, &fs);
	if (fs.restarts || fs.duplicates_dropped)
		jank_log(LOG_INFO,
			 "summary: %" PRIu64 " worker restarts (%" PRIu64 " crashed, %" PRIu64
			 " silent), %" PRIu64 " duplicate verdicts dropped",
			 fs.restarts, fs.crashes, fs.timeouts, fs.duplicates_dropped);
	jank_log(LOG_INFO, "summary: %" PRIu64 " alerts sent, %" PRIu64 " suppressed", as.sent,
		 as.suppressed);
}

static void stop(struct jankd *d)
{
	sd_notify(0, "STOPPING=1");
	/* Its session is not created again while the workers stop. */
	jank_live_keeper_halt(d->keeper);
	/* The workers' last verdicts are alerted, and their last figures kept. */
	if (d->fleet)
		jank_fleet_stop(d->fleet, STOP_NS);
	/* The snapshot in flight and the reports not written yet finish first. */
	jank_capturer_stop(d->capturer);
	if (d->alerter && d->fleet) {
		jank_alerter_flush(d->alerter);
		final_summary(d);
	}
	/* The keeper stops recreating, and destroys the session (or says it was gone). */
	jank_live_keeper_stop(d->keeper);
}

static void cleanup(struct jankd *d)
{
	jank_fleet_free(d->fleet);
	jank_control_socket_close(d->control);
	jank_metrics_server_close(d->metrics);
	jank_metrics_server_close(d->web);
	jank_comp_history_free(d->comp_history);
	jank_capturer_free(d->capturer); /* stops it first when start() failed */
	/* After the capturer: its reports download through the fetcher's configuration. */
	jank_symbols_set_default_fetcher(NULL, NULL);
	if (d->fetcher)
		jank_fetcher_flush_log(d->fetcher);
	jank_fetcher_free(d->fetcher);
	jank_alerter_free(d->alerter);
	if (d->ev_hup)
		event_free(d->ev_hup);
	if (d->ev_term)
		event_free(d->ev_term);
	if (d->ev_int)
		event_free(d->ev_int);
	if (d->ev_tick)
		event_free(d->ev_tick);
	if (d->ev_status)
		event_free(d->ev_status);
	if (d->ev_watchdog)
		event_free(d->ev_watchdog);
	if (d->ev_ready)
		event_free(d->ev_ready);
	if (d->ev_keep)
		event_free(d->ev_keep);
	jank_live_keeper_free(d->keeper);
	if (d->base)
		event_base_free(d->base);
	jank_config_fini(&d->config);
	jank_config_sources_fini(&d->config_sources);
	libevent_global_shutdown();
}

int main(int argc, char **argv)
{
	struct jankd d = { .target = JANK_ALERT_JOURNAL, .exit_status = JANK_EXIT_OK };
	char err[ERR_LEN];
	int r;

	jank_pidns_home_init(); /* before a worker's sandbox */
	if (argc > 1 && !strcmp(argv[1], JANK_WORKER_ARG))
		return jank_worker_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], JANK_SPAWNER_ARG))
		return jank_worker_spawner_main(argc, argv);
	/* Alone: the opener's service (with a SOCKET, jankd's option). */
	if (argc == 2 && !strcmp(argv[1], JANK_OPENER_ARG))
		return jank_binary_opener_service_main(argc, argv);
	jankd_parse_options(argc, argv, &d);
	if (d.check_config)
		return jankd_check_only(&d);
	if (jankd_load_config(&d.config, &d.config_sources, d.config_path, err, sizeof(err)) < 0) {
		fprintf(stderr, "jankd: %s\n", err);
		return JANK_EXIT_BAD_INPUT;
	}
	/* What cannot fix itself stops jankd now, with what to do (sshd's way). */
	if (jankd_preflight(&d, false, "jankd: ") > 0) {
		jank_config_fini(&d.config);
		jank_config_sources_fini(&d.config_sources);
		return JANK_EXIT_BAD_INPUT;
	}
	if (!d.target_from_cmdline)
		d.target = d.config.alerts.target;
	d.log_stderr = !d.target_from_cmdline && jank_log_on_terminal();
	jank_log_set_journal(d.target == JANK_ALERT_JOURNAL && !d.log_stderr);
	signal(SIGPIPE, SIG_IGN);
	d.start_mono = jank_clock_monotonic_ns();
	d.start_real = jank_clock_realtime_ns();
	if (gethostname(d.hostname, sizeof(d.hostname) - 1) < 0)
		d.hostname[0] = '\0';

	r = start(&d, err, sizeof(err));
	if (r < 0) {
		jank_log(LOG_ERR, "cannot start: %s", err);
		d.exit_status = JANK_EXIT_FAILURE;
		jank_live_keeper_stop(d.keeper);
		goto end;
	}
	if (event_base_dispatch(d.base) < 0) {
		jank_log(LOG_ERR, "the event loop failed");
		d.exit_status = JANK_EXIT_FAILURE;
	}
	stop(&d);
end:
	cleanup(&d);
	/* Entries still waiting for journald: a second more, then stderr. */
	jank_journal_drain(DRAIN_NS);
	return d.exit_status;
}
