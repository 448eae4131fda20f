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
#include "clock.h"
#include "debuginfod.h"
#include "fetcher.h"
#include "capturer.h"
#include "jankd.h"
#include "json-util.h"
#include "journal.h"
#include "log.h"
#include "preflight.h"
#include "status.h"
#include "symbols.h"
#include "web.h"
#include "units.h"
#include "worker-launch.h"
#include "worker-proc.h"
#include "worker-spawner.h"
#include "worker.h"

#ifndef JANK_VERSION
#define JANK_VERSION "unknown"
#endif

#define TICK_NS	   100000000LL	/* rate-limit windows close this often */
#define STOP_NS	   5000000000LL /* workers have this long to stop */
#define DRAIN_NS   1000000000LL /* at exit, journald has this long to take what waits */
#define ERR_LEN	   1024
#define STATUS_LEN 512

#ifndef JANK_DEFAULT_CONFIG
#define JANK_DEFAULT_CONFIG "/etc/jankd/jankd.conf"
#endif

static const char usage[] =
	"Usage: jankd --config FILE [--foreground] [--log-target=TARGET]\n"
	"             [--worker-spawner=SOCKET]\n"
	"       jankd --check-config [--config FILE] [--worker-spawner=SOCKET]\n"
	"Watch LTTng live sessions and alert when a user action is too slow.\n"
	"\n"
	"  -c, --config FILE       the configuration (see jankd.conf(5)); with --check-config,\n"
	"                          " JANK_DEFAULT_CONFIG " when not given\n"
	"  -t, --check-config      check the configuration and what it names on this host\n"
	"                          (users, directories, addresses), print each problem with\n"
	"                          its file and line, and exit 0 (good) or 1\n"
	"  -f, --foreground        run in the foreground (jankd does not daemonize: the default)\n"
	"  -l, --log-target=TARGET where alerts and messages go: auto (the default: messages to\n"
	"                          stderr in a terminal, else to the journal; alerts as [alerts]\n"
	"                          target says), journal, stderr (text), or json (alerts as JSON\n"
	"                          Lines on stdout, messages on stderr); all but auto override\n"
	"                          [alerts] target\n"
	"  -w, --worker-spawner=SOCKET\n"
	"                          start the workers through the worker spawner listening on\n"
	"                          SOCKET (jankd-workers.socket), not as jankd's children\n"
	"  -h, --help              show this help\n"
	"  -V, --version           show the version\n"
	"\n"
	"Signals: HUP reloads the configuration, TERM or INT stops.\n"
	"Exit status: 0 stopped cleanly, 1 bad configuration, 2 bad usage, 3 failure while "
	"running.\n"
	"(1 also when this host lacks what the configuration names and will not get it by\n"
	"waiting: the worker user, the state directory, the spawner's socket.)\n";

static void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("jankd: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see jankd --help)\n", stderr);
	exit(JANK_EXIT_USAGE);
}

static int parse_target(const char *s, enum jank_alert_target *t)
{
	for (int i = JANK_ALERT_JOURNAL; i < JANK_ALERT_TARGETS; i++) {
		if (!strcmp(s, jank_alert_target_name(i))) {
			*t = i;
			return 0;
		}
	}
	return -EINVAL;
}

static void parse_options(int argc, char **argv, struct jankd *d)
{
	/* clang-format off */
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' }, { "foreground", no_argument, NULL, 'f' },
		{ "log-target", required_argument, NULL, 'l' }, { "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "worker-spawner", required_argument, NULL, 'w' },
		{ "check-config", no_argument, NULL, 't' }, { NULL, 0, NULL, 0 },
	};
	/* clang-format on */
	int c, say = 0; /* 'h' or 'V': print once every argument is known good */

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:fl:hVw:t", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			d->config_path = optarg;
			break;
		case 'f':
			break;
		case 't':
			d->check_config = true;
			break;
		case 'l':
			if (!strcmp(optarg, "auto")) {
				d->target_from_cmdline = false;
				break;
			}
			if (parse_target(optarg, &d->target) < 0)
				die_usage(
					"bad --log-target '%s' (expected auto, journal, stderr or "
					"json)",
					optarg);
			d->target_from_cmdline = true;
			break;
		case 'w':
			if (optarg[0] != '/' || jank_launch_set_spawner(optarg) < 0)
				die_usage(
					"bad --worker-spawner '%s' (expected the absolute path of "
					"a unix socket, at most 107 bytes)",
					optarg);
			break;
		case 'h':
		case 'V':
			say = c;
			break;
		case ':':
			die_usage("option '%s' needs an argument", argv[optind - 1]);
		case '?':
		default:
			if (optopt)
				die_usage("unknown option '-%c'", optopt);
			die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (say == 'h') {
		fputs(usage, stdout);
		exit(JANK_EXIT_OK);
	}
	if (say == 'V') {
		printf("jankd (jank) %s\n", JANK_VERSION);
		exit(JANK_EXIT_OK);
	}
	if (!d->config_path && d->check_config)
		d->config_path = JANK_DEFAULT_CONFIG;
	if (!d->config_path)
		die_usage("--config FILE is required");
}

/*
 * The checks of a whole file (jank_config_check, which jankctl runs too),
 * and jankd's own: a live session to watch. Returns 0, or -EINVAL with a
 * message.
 */
static int check_config(const struct jank_config *c, char *err, size_t len)
{
	int r = jank_config_check(c, err, len);

	if (r == 0 && c->live.nurls == 0 && !c->live.create && !c->live.discover[0]) {
		snprintf(err, len,
			 "%s: [live]: no 'url' and no 'create = yes' and no 'discover': no live "
			 "session to watch",
			 c->path);
		r = -EINVAL;
	}
	return r;
}

/*
 * Load and check the file and its drop-ins into `c`, keeping their texts in
 * `src`: the workers read their rules from those very texts. Returns 0 or
 * -errno with a message.
 */
static int load_config(struct jank_config *c, struct jank_config_sources *src, const char *path,
		       char *err, size_t len)
{
	int r = jank_config_read(path, src, err, len);

	if (r < 0) {
		memset(c, 0, sizeof(*c));
		return r;
	}
	r = jank_config_load_sources(c, src, err, len);
	if (r == 0)
		r = check_config(c, err, len);
	if (r < 0) {
		jank_config_fini(c);
		jank_config_sources_fini(src);
	}
	return r;
}

/* ---- What the host must have (preflight.h) ---- */

struct said {
	const char *prefix;
	FILE *out;
};

static void say_problem(const char *where, const char *problem, const char *fix, void *data)
{
	const struct said *s = data;

	fprintf(s->out, "%s%s: %s\n", s->prefix, where, problem);
	if (fix)
		fprintf(s->out, "%s  fix: %s\n", s->prefix, fix);
}

/* The checks of the host (`all`: --check-config's); each problem on stderr. Returns how many. */
static size_t preflight(const struct jankd *d, bool all, const char *prefix)
{
	const struct jank_preflight pf = {
		.config = &d->config,
		.sources = &d->config_sources,
		.spawner = jank_launch_spawner(),
		.all = all,
		.as_root = geteuid() == 0,
	};
	struct said s = { prefix, stderr };

	return jank_preflight_run(&pf, say_problem, &s);
}

/*
 * --check-config: the file and its drop-ins parsed and checked as a start
 * would (the first error of the parse stops it: its file and line), then
 * every check of the host. Exit 0, or 1 with each problem on stderr.
 */
static int check_only(struct jankd *d)
{
	char err[ERR_LEN];
	size_t n;

	if (load_config(&d->config, &d->config_sources, d->config_path, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		fprintf(stderr, "%s: bad configuration\n", d->config_path);
		return JANK_EXIT_BAD_INPUT;
	}
	n = preflight(d, true, "");
	if (n)
		fprintf(stderr, "%s: %zu problem%s\n", d->config_path, n, n == 1 ? "" : "s");
	else
		printf("%s: configuration OK (%zu drop-in%s, %zu rule%s, %zu flow%s)\n",
		       d->config_path, d->config.ndropins, d->config.ndropins == 1 ? "" : "s",
		       d->config.nrules, d->config.nrules == 1 ? "" : "s", d->config.nflows,
		       d->config.nflows == 1 ? "" : "s");
	jank_config_fini(&d->config);
	jank_config_sources_fini(&d->config_sources);
	return n ? JANK_EXIT_BAD_INPUT : JANK_EXIT_OK;
}

static void alert_config(const struct jankd *d, struct jank_alert_config *ac)
{
	ac->target = d->target;
	ac->rate_count = d->config.alerts.rate_limit_count;
	ac->rate_period_ns = d->config.alerts.rate_limit_period_ns;
}

/* ---- sd_notify ---- */

static void notify_status(struct jankd *d, bool ready)
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
	notify_status(d, true);
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

/* ---- The web pages' composition history (comp-history.h) ---- */

/* The rules it keeps: the configured ones (a rule gone goes, a new one starts empty). */
static void comp_history_rules(struct jankd *d)
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

static void on_status(evutil_socket_t fd, short what, void *data)
{
	struct jankd *d = data;

	(void)fd;
	(void)what;
	notify_status(d, false);
}

static void on_watchdog(evutil_socket_t fd, short what, void *data)
{
	(void)fd;
	(void)what;
	(void)data;
	sd_notify(0, "WATCHDOG=1");
}

static int add_timer(struct jankd *d, struct event **ev, int64_t ns, event_callback_fn fn)
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

static int metrics_open(struct jankd *d, char *err, size_t len)
{
	const struct jank_config_metrics *m = &d->config.metrics;

	if (!m->host[0])
		return 0;
	d->metrics =
		jank_metrics_server_open(d->base, m->host, m->port, render_metrics, d, err, len);
	if (!d->metrics)
		return -EIO;
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
	comp_history_rules(d);
	d->comp_mono = jank_clock_monotonic_ns();
	d->web = jank_http_server_open(d->base, w->host, w->port, jank_web_handle, d, err, len);
	if (!d->web)
		return -EIO;
	jank_log(LOG_INFO, "web pages at http://%s/", jank_metrics_server_address(d->web));
	return 0;
}

/* ---- Reload ---- */

/* What a reload changes, key by key (the schema of io/config-file.c). */
struct reload_diff {
	bool key[JANK_CONF_MAX_ROWS];	      /* per key of the schema: its value changed */
	bool restart[JANK_CONF_MAX_SECTIONS]; /* per section: a key that needs a restart did */
	bool changed[JANK_CONF_MAX_SECTIONS]; /* per section: a key applied at once did */
};

static void on_diff(const struct jank_conf_section *sec, const struct jank_conf_key *k,
		    const char *instance, void *data)
{
	struct reload_diff *rd = data;
	size_t i = (size_t)(sec - jank_config_schema.sections);

	(void)instance;
	if (k)
		rd->key[k - jank_config_schema.keys] = true;
	if (k && k->reload == JANK_CONF_RESTART)
		rd->restart[i] = true;
	else
		rd->changed[i] = true; /* or an instance added or removed */
}

static bool section_changed(const struct reload_diff *rd, const char *name)
{
	const struct jank_conf_section *sec = jank_conf_section_find(&jank_config_schema, name);

	return rd->changed[sec - jank_config_schema.sections];
}

static bool key_changed(const struct reload_diff *rd, const char *section, const char *name)
{
	const struct jank_conf_key *k = jank_conf_key_find(&jank_config_schema, section, name);

	return rd->key[k - jank_config_schema.keys];
}

/* Whether every key of the section needs a restart: then the message names the section only. */
static bool all_restart(const struct jank_conf_section *sec)
{
	const struct jank_conf_schema *s = &jank_config_schema;

	for (size_t i = 0; i < s->nkeys; i++)
		if (!strcmp(s->keys[i].section, sec->name) &&
		    s->keys[i].reload != JANK_CONF_RESTART)
			return false;
	return true;
}

/* Say which changes of the new config wait for a restart, or lose to the command line. */
static void reload_ignored(const struct jankd *d, const struct jank_config *nc,
			   const struct reload_diff *rd)
{
	const struct jank_conf_schema *s = &jank_config_schema;

	for (size_t i = 0; i < s->nsections; i++) {
		const struct jank_conf_section *sec = &s->sections[i];

		if (!rd->restart[i])
			continue;
		if (all_restart(sec)) {
			jank_log(LOG_WARNING, "reload: changes to [%s] need a restart; ignored",
				 sec->name);
			continue;
		}
		for (size_t k = 0; k < s->nkeys; k++)
			if (rd->key[k] && s->keys[k].reload == JANK_CONF_RESTART &&
			    !strcmp(s->keys[k].section, sec->name))
				jank_log(LOG_WARNING,
					 "reload: changes to [%s] %s need a restart; ignored",
					 sec->name, s->keys[k].name);
	}
	if (d->target_from_cmdline && nc->alerts.target != d->target)
		jank_log(LOG_NOTICE, "reload: [alerts] target ignored: --log-target=%s wins",
			 jank_alert_target_name(d->target));
}

/* Say the [graph] limits of the new config (the workers get them with the rules). */
static void reload_graph(const struct jank_config *nc)
{
	struct jank_engine_config ec;
	char rt[32], to[32], gr[32];

	jank_engine_config_defaults(&ec);
	jank_config_apply_engine(nc, &ec);
	jank_log(LOG_INFO,
		 "reload: [graph] retention %s, memory-limit %" PRIu64
		 " bytes, action-timeout %s, overdue-grace %s",
		 jank_units_duration(ec.retention_ns, rt, sizeof(rt)), ec.memory_limit,
		 jank_units_duration(ec.action_timeout_ns, to, sizeof(to)),
		 jank_units_duration(ec.overdue_grace_ns, gr, sizeof(gr)));
}

/*
 * Take every key of `nc` that applies at once, and every named section
 * (the rules) whole; what was there before goes into `nc`, which the
 * caller frees. Then apply them: the alerter, the workers (the new text:
 * its rules and [graph] limits), the capturer, the status timer.
 */
static void reload_take(struct jankd *d, struct jank_config *nc, struct jank_config_sources *src,
			const struct reload_diff *rd)
{
	const struct jank_conf_schema *s = &jank_config_schema;
	struct jank_config_sources old = d->config_sources;
	struct jank_alert_config ac;

	d->config_sources = *src;
	*src = old;
	for (size_t i = 0; i < s->nkeys; i++)
		if (!jank_conf_section_find(s, s->keys[i].section)->named &&
		    s->keys[i].reload == JANK_CONF_LIVE)
			jank_conf_take(s, &s->keys[i], &d->config, nc);
	for (size_t i = 0; i < s->nsections; i++)
		if (s->sections[i].named)
			jank_conf_take_section(&s->sections[i], &d->config, nc);
	if (!d->target_from_cmdline) {
		d->target = d->config.alerts.target;
		jank_log_set_journal(d->target == JANK_ALERT_JOURNAL && !d->log_stderr);
	}
	alert_config(d, &ac);
	jank_alerter_set_config(d->alerter, &ac);
	if (jank_fleet_set_config(d->fleet, &d->config, &d->config_sources) < 0) {
		jank_log(LOG_ERR, "reload: out of memory: the workers keep their rules");
		d->reload_errors++;
	}
	jank_capturer_reload(d->capturer, &d->config);
	comp_history_rules(d);
	if (key_changed(rd, "daemon", "status-interval"))
		add_timer(d, &d->ev_status, d->config.daemon.status_interval_ns, on_status);
}

/* SIGHUP: a config that loads and passes the checks replaces the old one; else nothing changes. */
static void reload(struct jankd *d)
{
	struct jank_config nc;
	struct jank_config_sources src;
	char err[ERR_LEN];
	int r;

	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%" PRId64, jank_clock_monotonic_ns() / 1000);
	jank_log(LOG_INFO, "reloading %s", d->config_path);
	r = load_config(&nc, &src, d->config_path, err, sizeof(err));
	if (r < 0) {
		jank_log(LOG_ERR, "reload rejected, the previous configuration stays: %s", err);
		d->reload_errors++;
	} else {
		struct reload_diff rd;

		memset(&rd, 0, sizeof(rd));
		jank_conf_diff(&jank_config_schema, &d->config, &nc, on_diff, &rd);
		reload_ignored(d, &nc, &rd);
		if (section_changed(&rd, "graph"))
			reload_graph(&nc);
		reload_take(d, &nc, &src, &rd);
		jank_config_fini(&nc);
		jank_config_sources_fini(&src);
		d->reloads++;
		jank_log(LOG_INFO, "reloaded %s: %zu rule%s", d->config_path, d->config.nrules,
			 d->config.nrules == 1 ? "" : "s");
	}
	if (d->ready)
		notify_status(d, true);
}

/* ---- Signals ---- */

static void on_signal(evutil_socket_t sig, short what, void *data)
{
	struct jankd *d = data;

	(void)what;
	if (sig == SIGHUP) {
		reload(d);
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
	if (add_timer(d, &d->ev_keep, 1000000000LL, on_keep) < 0) {
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
static int debuginfod_start(struct jankd *d, char *err, size_t len)
{
	struct jank_debuginfod_config c;
	int r;

	jank_config_debuginfod(&d->config, &c);
	r = jank_debuginfod_setup(&c, err, len);
	if (r < 0 || !jank_debuginfod_enabled(&c))
		return r;
	d->fetcher = jank_fetcher_new(&c);
	if (!d->fetcher) {
		snprintf(err, len, "cannot start the debuginfod fetcher");
		return -ENOMEM;
	}
	jank_symbols_set_default_fetcher(jank_debuginfod_fetch_fn,
					 (void *)jank_fetcher_config(d->fetcher));
	return 0;
}

/* The inputs, each in its worker: [live] url, the created session, or discovery. */
static int start_inputs(struct jankd *d, char *err, size_t len)
{
	int r = 0;

	jank_proc_set_user(d->config.daemon.worker_user, d->config.daemon.workers_as_root);
	jank_proc_set_open_binaries(d->config.daemon.open_binaries);
	d->fleet = jank_fleet_new(d->base, on_verdict, on_fleet_change, d);
	if (!d->fleet || jank_fleet_set_config(d->fleet, &d->config, &d->config_sources) < 0) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	if (d->fetcher)
		jank_fleet_set_fetch(d->fleet, on_fetch, d);
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
	alert_config(d, &ac);
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
	d->control = jank_control_open(d->base, d->config.daemon.control_socket, on_request, d, err,
				       len);
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
	if (add_timer(d, &d->ev_tick, TICK_NS, on_tick) < 0 ||
	    add_timer(d, &d->ev_status, d->config.daemon.status_interval_ns, on_status) < 0) {
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
		if (add_timer(d, &d->ev_watchdog, watchdog_us * 1000, on_watchdog) < 0) {
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
	jank_control_close(d->control);
	jank_metrics_server_close(d->metrics);
	jank_metrics_server_close(d->web);
	jank_comp_history_free(d->comp_history);
	jank_capturer_free(d->capturer); /* stops it first when start() failed */
	/* After the capturer: its reports download through the fetcher's configuration. */
	jank_symbols_set_default_fetcher(NULL, NULL);
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

	if (argc > 1 && !strcmp(argv[1], JANK_WORKER_ARG))
		return jank_worker_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], JANK_SPAWNER_ARG))
		return jank_worker_spawner_main(argc, argv);
	parse_options(argc, argv, &d);
	if (d.check_config)
		return check_only(&d);
	if (load_config(&d.config, &d.config_sources, d.config_path, err, sizeof(err)) < 0) {
		fprintf(stderr, "jankd: %s\n", err);
		return JANK_EXIT_BAD_INPUT;
	}
	/* What cannot fix itself stops jankd now, with what to do (sshd's way). */
	if (preflight(&d, false, "jankd: ") > 0) {
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
