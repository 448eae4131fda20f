/* SPDX-License-Identifier: MIT */
/*
 * The INI configuration, parsed with inih.
 *
 * inih does the tokenising; we feed it lines through our own reader, which
 * counts them and tracks the section headers, so that every message can name
 * the exact line, and so that sections without keys are validated too. The
 * reader also strips leading blanks, which turns off inih's continuation
 * lines: an indented `key = value` is a key of its own, as users expect.
 *
 * The first error wins; the parse goes on only because inih does.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <dirent.h>
#include <sys/stat.h>
#include <arpa/inet.h>
#include <ini.h>
#include "config-file.h"
#include "units.h"

#define CONFIG_MSG_LEN 512

enum section_kind {
	SECTION_NONE = 0, /* before the first header */
	SECTION_LIVE,
	SECTION_GRAPH,
	SECTION_ALERTS,
	SECTION_CAPTURE,
	SECTION_DAEMON,
	SECTION_METRICS,
	SECTION_ACTION,
	SECTION_BAD, /* an error was reported on its header; its keys are ignored */
	SECTION_KIND_COUNT,
};

static const char *const section_names[SECTION_KIND_COUNT] = {
	[SECTION_LIVE] = "live",       [SECTION_GRAPH] = "graph",   [SECTION_ALERTS] = "alerts",
	[SECTION_CAPTURE] = "capture", [SECTION_DAEMON] = "daemon", [SECTION_METRICS] = "metrics",
};

struct parser;
typedef int (*key_fn)(struct parser *p, const char *key, const char *value);

/* One key of a section: its name and the function that checks and stores its value. */
struct key_def {
	const char *name;
	key_fn set;
};

struct parser {
	struct jank_config *c;
	const char *name; /* the file, in messages */
	const char *text; /* what is left of the file's text */
	const char *end;
	char *line;
	size_t linecap;
	size_t linelen; /* bytes of `line`, a NUL byte among them included */
	unsigned lineno;

	enum section_kind kind;
	char section[128]; /* as users write it: "graph", "action frame" */
	unsigned section_line;
	unsigned section_first_line[SECTION_KIND_COUNT];
	uint64_t seen; /* keys seen in this section, by index in its key table */
	struct jank_rule *rule;
	bool overriding;	 /* this [action NAME] is one of an earlier file */
	unsigned *rule_lines;	 /* header line of each rule ... */
	const char **rule_files; /* ... and its file, for messages */
	bool live_create_seen;
	unsigned fileno; /* 0: the file, then each drop-in */
	/* Where each was last set, for the message when they clash. */
	const char *live_url_file, *live_create_file;
	unsigned live_url_line, live_create_line;
	uint64_t live_url_at, live_create_at; /* fileno << 32 | line */
	unsigned metrics_listen_line;	      /* [metrics] listen, checked at the section's end */
	bool metrics_loopback;
	/* [live] discover, and the first of hosts and sessions, for the checks of the whole. */
	const char *discover_file, *patterns_file;
	unsigned discover_line, patterns_line;
	bool warmup_set; /* [action NAME] warmup, applied at the section's end */
	uint64_t warmup;

	bool failed;
	const char *fail_name; /* the file of the message */
	unsigned fail_line;    /* 0: the message names no line */
	unsigned fail_at;      /* the line being read when the error was found */
	char msg[CONFIG_MSG_LEN];
};

static void fail(struct parser *p, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(struct parser *p, unsigned line, const char *fmt, ...)
{
	va_list ap;

	if (p->failed)
		return;
	p->failed = true;
	p->fail_name = p->name;
	p->fail_line = line;
	p->fail_at = p->lineno;
	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
}

/* ---- Values ---- */

static int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_uint(const char *s, uint64_t *out)
{
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

static int set_duration(struct parser *p, const char *key, const char *v, int64_t *out,
			bool allow_zero)
{
	int64_t ns;

	if (allow_zero && !strcmp(v, "0")) { /* "off": no unit needed */
		*out = 0;
		return 0;
	}
	if (jank_units_parse_duration(v, &ns) < 0 || ns < 0 || (ns == 0 && !allow_zero)) {
		fail(p, p->lineno, "bad duration '%s' for %s", v, key);
		return -EINVAL;
	}
	*out = ns;
	return 0;
}

static int set_size(struct parser *p, const char *key, const char *v, uint64_t *out)
{
	uint64_t bytes;

	if (jank_units_parse_size(v, &bytes) < 0 || bytes == 0) {
		fail(p, p->lineno, "bad size '%s' for %s", v, key);
		return -EINVAL;
	}
	*out = bytes;
	return 0;
}

static int set_bool(struct parser *p, const char *key, const char *v, bool *out)
{
	if (parse_bool(v, out) < 0) {
		fail(p, p->lineno, "bad value '%s' for %s (expected yes or no)", v, key);
		return -EINVAL;
	}
	return 0;
}

static void free_list(char ***list, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		free((*list)[i]);
	free(*list);
	*list = NULL;
	*n = 0;
}

static int set_string(struct parser *p, const char *v, char **out)
{
	char *s = strdup(v);

	if (!s) {
		fail(p, p->lineno, "out of memory");
		return -ENOMEM;
	}
	free(*out);
	*out = s;
	return 0;
}

/* An event name: no blanks, no quotes. */
static int set_event_name(struct parser *p, const char *key, const char *v, char **out)
{
	for (const char *s = v; *s; s++) {
		if (isspace((unsigned char)*s) || *s == '"' || *s == '\'' || *s == ',') {
			fail(p, p->lineno, "bad event name '%s' for %s", v, key);
			return -EINVAL;
		}
	}
	return set_string(p, v, out);
}

/* ---- [live] ---- */

static bool live_url_ok(const char *v)
{
	static const char *const schemes[] = { "net://", "net4://", "net6://" };

	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
		size_t n = strlen(schemes[i]);

		if (!strncmp(v, schemes[i], n) && v[n] && v[n] != '/' && strstr(v + n, "/host/"))
			return true;
	}
	return false;
}

/*
 * The next element of the comma-separated list at *s, blanks trimmed, into
 * buf: 1, or 0 at the list's end, or -EINVAL for an empty or too long one.
 */
static int next_item(const char **s, char *buf, size_t len)
{
	const char *comma, *b = *s;
	size_t n;

	if (!b)
		return 0;
	comma = strchr(b, ',');
	n = comma ? (size_t)(comma - b) : strlen(b);
	while (n && isspace((unsigned char)*b)) {
		b++;
		n--;
	}
	while (n && isspace((unsigned char)b[n - 1]))
		n--;
	if (n == 0 || n >= len)
		return -EINVAL;
	memcpy(buf, b, n);
	buf[n] = '\0';
	*s = comma ? comma + 1 : NULL;
	return 1;
}

/* Append a copy of `v` to the array *list of *n strings. */
static int list_add(struct parser *p, char ***list, size_t *n, const char *v)
{
	char **l = realloc(*list, (*n + 1) * sizeof(*l));

	if (!l) {
		fail(p, p->lineno, "out of memory");
		return -ENOMEM;
	}
	*list = l;
	l[*n] = NULL;
	if (set_string(p, v, &l[*n]) < 0)
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* A comma-separated list of live URLs: one session (or host) each. */
static int live_url(struct parser *p, const char *key, const char *v)
{
	struct jank_config_live *l = &p->c->live;
	char url[JANK_CONFIG_URL_LEN];
	const char *s = v;
	int r;

	(void)key;
	/* A drop-in's url replaces the list of an earlier file. */
	free_list(&l->urls, &l->nurls);
	p->live_url_file = p->name;
	p->live_url_line = p->lineno;
	p->live_url_at = (uint64_t)p->fileno << 32 | p->lineno;
	while ((r = next_item(&s, url, sizeof(url))) > 0) {
		if (!live_url_ok(url)) {
			fail(p, p->lineno,
			     "bad url '%s' (expected net://RELAYD-HOST/host/HOSTNAME/SESSION)",
			     url);
			return -EINVAL;
		}
		for (size_t i = 0; i < l->nurls; i++) {
			if (!strcmp(l->urls[i], url)) {
				fail(p, p->lineno, "url '%s' is listed twice", url);
				return -EINVAL;
			}
		}
		if (list_add(p, &l->urls, &l->nurls, url) < 0)
			return -ENOMEM;
	}
	if (r < 0)
		fail(p, p->lineno, "bad url list '%s' (an element is empty or too long)", v);
	return r;
}

static int live_create(struct parser *p, const char *key, const char *v)
{
	p->live_create_seen = true;
	p->live_create_file = p->name;
	p->live_create_line = p->lineno;
	p->live_create_at = (uint64_t)p->fileno << 32 | p->lineno;
	return set_bool(p, key, v, &p->c->live.create);
}

static int live_timer(struct parser *p, const char *key, const char *v)
{
	return set_duration(p, key, v, &p->c->live.timer_ns, false);
}

/* An lttng session name: letters, digits and _-.: (no '/'), shorter than LTTNG_NAME_MAX. */
static int set_session_name(struct parser *p, const char *v, char *out)
{
	size_t n = strlen(v);
	bool ok = n < JANK_CONFIG_SESSION_LEN && v[0] != '.' && v[0] != '-';

	for (const char *s = v; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-.:", *s))
			ok = false;
	if (!ok) {
		fail(p, p->lineno,
		     "bad session name '%s' (expected letters, digits and _-.:, at most %d)", v,
		     JANK_CONFIG_SESSION_LEN - 1);
		return -EINVAL;
	}
	memcpy(out, v, n + 1);
	return 0;
}

static int live_session(struct parser *p, const char *key, const char *v)
{
	(void)key;
	return set_session_name(p, v, p->c->live.session);
}

/* The lttng output URL of the created session: where relayd listens. */
static int live_relayd(struct parser *p, const char *key, const char *v)
{
	static const char *const schemes[] = { "net://", "net6://", "tcp://", "tcp6://" };
	bool ok = false;

	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
		size_t n = strlen(schemes[i]);

		if (!strncmp(v, schemes[i], n) && v[n] && v[n] != '/' && v[n] != ':')
			ok = true;
	}
	for (const char *s = v; *s; s++)
		if (isspace((unsigned char)*s) || *s == ',')
			ok = false;
	if (!ok || strlen(v) >= sizeof(p->c->live.relayd)) {
		fail(p, p->lineno, "bad relayd '%s' (expected an lttng URL such as net://HOST)", v);
		return -EINVAL;
	}
	memcpy(p->c->live.relayd, v, strlen(v) + 1);
	return 0;
}

static int live_relayd_live_port(struct parser *p, const char *key, const char *v)
{
	uint64_t port;

	if (parse_uint(v, &port) < 0 || port == 0 || port > 65535) {
		fail(p, p->lineno, "bad port '%s' for %s (expected 1 to 65535)", v, key);
		return -EINVAL;
	}
	p->c->live.relayd_live_port = (unsigned)port;
	return 0;
}

static int live_tracefile_size(struct parser *p, const char *key, const char *v)
{
	return set_size(p, key, v, &p->c->live.tracefile_size);
}

static int live_tracefile_count(struct parser *p, const char *key, const char *v)
{
	if (parse_uint(v, &p->c->live.tracefile_count) < 0 || p->c->live.tracefile_count == 0) {
		fail(p, p->lineno, "bad number '%s' for %s (expected 1 or more)", v, key);
		return -EINVAL;
	}
	return 0;
}

/* The relayd whose sessions are discovered: net://HOST[:LIVE-PORT], no path. */
static int live_discover(struct parser *p, const char *key, const char *v)
{
	static const char *const schemes[] = { "net://", "net4://", "net6://" };
	bool ok = false;

	(void)key;
	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
		size_t n = strlen(schemes[i]);

		if (!strncmp(v, schemes[i], n) && v[n] && v[n] != ':')
			ok = !strpbrk(v + n, "/, \t");
	}
	if (!ok || strlen(v) >= sizeof(p->c->live.discover)) {
		fail(p, p->lineno,
		     "bad discover '%s' (expected net://RELAYD-HOST[:LIVE-PORT], without a path)",
		     v);
		return -EINVAL;
	}
	memcpy(p->c->live.discover, v, strlen(v) + 1);
	p->discover_file = p->name;
	p->discover_line = p->lineno;
	return 0;
}

/* Glob patterns (fnmatch) of host or session names: no blanks, no '/'. */
static int set_patterns(struct parser *p, const char *key, const char *v, char ***list, size_t *n)
{
	char pat[JANK_CONFIG_SESSION_LEN];
	const char *s = v;
	int r;

	while ((r = next_item(&s, pat, sizeof(pat))) > 0) {
		if (strpbrk(pat, "/ \t\"'")) {
			fail(p, p->lineno,
			     "bad pattern '%s' for %s (a glob such as web-* : no blanks, quotes "
			     "or '/')",
			     pat, key);
			return -EINVAL;
		}
		if (list_add(p, list, n, pat) < 0)
			return -ENOMEM;
	}
	if (r < 0)
		fail(p, p->lineno, "bad pattern list '%s' for %s (an element is empty or too long)",
		     v, key);
	return r;
}

/* Where hosts or sessions was first set, for the message when there is no discover. */
static void note_patterns(struct parser *p)
{
	if (!p->patterns_line) {
		p->patterns_file = p->name;
		p->patterns_line = p->lineno;
	}
}

static int live_hosts(struct parser *p, const char *key, const char *v)
{
	note_patterns(p);
	free_list(&p->c->live.hosts, &p->c->live.nhosts); /* a drop-in's list replaces */
	return set_patterns(p, key, v, &p->c->live.hosts, &p->c->live.nhosts);
}

static int live_sessions(struct parser *p, const char *key, const char *v)
{
	note_patterns(p);
	free_list(&p->c->live.sessions, &p->c->live.nsessions);
	return set_patterns(p, key, v, &p->c->live.sessions, &p->c->live.nsessions);
}

static int live_discover_interval(struct parser *p, const char *key, const char *v)
{
	return set_duration(p, key, v, &p->c->live.discover_interval_ns, false);
}

/* Workers send something every second: a timeout shorter than 2 s would kill sound ones. */
static int live_worker_timeout(struct parser *p, const char *key, const char *v)
{
	int r = set_duration(p, key, v, &p->c->live.worker_timeout_ns, false);

	if (r == 0 && p->c->live.worker_timeout_ns < 2000000000LL) {
		fail(p, p->lineno, "bad %s '%s' (at least 2s: a worker speaks every second)", key,
		     v);
		r = -EINVAL;
	}
	return r;
}

/* ---- [graph] ---- */

static int graph_retention(struct parser *p, const char *key, const char *v)
{
	return set_duration(p, key, v, &p->c->graph.retention_ns, false);
}

static int graph_memory_limit(struct parser *p, const char *key, const char *v)
{
	return set_size(p, key, v, &p->c->graph.memory_limit);
}

static int graph_action_timeout(struct parser *p, const char *key, const char *v)
{
	return set_duration(p, key, v, &p->c->graph.action_timeout_ns, false);
}

static int graph_overdue_grace(struct parser *p, const char *key, const char *v)
{
	return set_duration(p, key, v, &p->c->graph.overdue_grace_ns, true);
}

/* ---- [alerts] ---- */

static int alerts_target(struct parser *p, const char *key, const char *v)
{
	for (int t = JANK_ALERT_JOURNAL; t <= JANK_ALERT_JSON; t++) {
		if (!strcmp(v, jank_alert_target_name(t))) {
			p->c->alerts.target = t;
			return 0;
		}
	}
	fail(p, p->lineno, "bad value '%s' for target (expected journal, stderr or json)", v);
	return -EINVAL;
}

/* "10/10s": at most 10 alerts per 10 seconds. */
static int alerts_rate_limit(struct parser *p, const char *key, const char *v)
{
	const char *slash = strchr(v, '/');
	char count[32];
	uint64_t n;
	int64_t ns;

	if (!slash || (size_t)(slash - v) >= sizeof(count))
		goto bad;
	memcpy(count, v, slash - v);
	count[slash - v] = '\0';
	if (parse_uint(count, &n) < 0 || n == 0)
		goto bad;
	if (jank_units_parse_duration(slash + 1, &ns) < 0 || ns <= 0)
		goto bad;
	p->c->alerts.rate_limit_count = n;
	p->c->alerts.rate_limit_period_ns = ns;
	return 0;
bad:
	fail(p, p->lineno, "bad rate-limit '%s' (expected COUNT/DURATION, e.g. 10/10s)", v);
	return -EINVAL;
}

/* ---- [capture] ---- */

static int capture_mode(struct parser *p, const char *key, const char *v)
{
	for (int m = JANK_CAPTURE_SNAPSHOT; m <= JANK_CAPTURE_NONE; m++) {
		if (!strcmp(v, jank_capture_mode_name(m))) {
			p->c->capture.mode = m;
			return 0;
		}
	}
	fail(p, p->lineno, "bad value '%s' for mode (expected snapshot, rotation or none)", v);
	return -EINVAL;
}

static int capture_dir(struct parser *p, const char *key, const char *v)
{
	if (v[0] != '/') {
		fail(p, p->lineno, "bad dir '%s' (expected an absolute path)", v);
		return -EINVAL;
	}
	return set_string(p, v, &p->c->capture.dir);
}

static int capture_cooldown(struct parser *p, const char *key, const char *v)
{
	return set_duration(p, key, v, &p->c->capture.cooldown_ns, true);
}

static int capture_max_per_hour(struct parser *p, const char *key, const char *v)
{
	if (parse_uint(v, &p->c->capture.max_per_hour) < 0) {
		fail(p, p->lineno, "bad number '%s' for max-per-hour", v);
		return -EINVAL;
	}
	return 0;
}

static int capture_quota(struct parser *p, const char *key, const char *v)
{
	return set_size(p, key, v, &p->c->capture.quota);
}

/* The capture session to adopt (or to create under that name). */
static int capture_session(struct parser *p, const char *key, const char *v)
{
	(void)key;
	return set_session_name(p, v, p->c->capture.session);
}

/* More events for the capture session, comma-separated: provider:event (user space) or a kernel
 * event name; wildcards allowed. */
static int capture_events(struct parser *p, const char *key, const char *v)
{
	struct jank_config_capture *c = &p->c->capture;
	const char *s = v;
	char name[256];
	char *ev = NULL;
	int r;

	free_list(&c->events, &c->nevents); /* a drop-in's list replaces the earlier one */
	while ((r = next_item(&s, name, sizeof(name))) > 0) {
		if (set_event_name(p, key, name, &ev) < 0)
			return -EINVAL;
		r = list_add(p, &c->events, &c->nevents, ev);
		free(ev);
		ev = NULL;
		if (r < 0)
			return r;
	}
	if (r < 0)
		fail(p, p->lineno, "bad event list '%s' for %s (an element is empty or too long)",
		     v, key);
	return r;
}

static int capture_buffer_size(struct parser *p, const char *key, const char *v)
{
	if (!strcmp(v, "0")) {
		p->c->capture.buffer_size = 0;
		return 0;
	}
	return set_size(p, key, v, &p->c->capture.buffer_size);
}

static int capture_rotation_period(struct parser *p, const char *key, const char *v)
{
	return set_duration(p, key, v, &p->c->capture.rotation_period_ns, true);
}

static int capture_rotation_size(struct parser *p, const char *key, const char *v)
{
	if (!strcmp(v, "0")) {
		p->c->capture.rotation_size = 0;
		return 0;
	}
	return set_size(p, key, v, &p->c->capture.rotation_size);
}

static int capture_retention(struct parser *p, const char *key, const char *v)
{
	return set_duration(p, key, v, &p->c->capture.retention_ns, false);
}

/* "5%" of the filesystem, or a size such as "1GiB"; "0" never refuses. */
static int capture_min_free(struct parser *p, const char *key, const char *v)
{
	struct jank_config_capture *c = &p->c->capture;
	size_t n = strlen(v);

	if (n > 1 && v[n - 1] == '%') {
		char num[32], *end;
		double pct;

		if (n - 1 >= sizeof(num) || !isdigit((unsigned char)v[0]))
			goto bad;
		memcpy(num, v, n - 1);
		num[n - 1] = '\0';
		errno = 0;
		pct = strtod(num, &end);
		if (errno || *end || pct < 0 || pct >= 100)
			goto bad;
		c->min_free = 0;
		c->min_free_percent = pct;
		return 0;
	}
	if (!strcmp(v, "0")) {
		c->min_free = 0;
		c->min_free_percent = 0;
		return 0;
	}
	if (jank_units_parse_size(v, &c->min_free) < 0)
		goto bad;
	c->min_free_percent = 0;
	return 0;
bad:
	fail(p, p->lineno,
	     "bad min-free '%s' (expected a size such as 1GiB or a percentage such as 5%%)", v);
	return -EINVAL;
}

/* ---- [daemon] ---- */

static int daemon_control_socket(struct parser *p, const char *key, const char *v)
{
	if (v[0] != '/' || strlen(v) >= sizeof(p->c->daemon.control_socket)) {
		fail(p, p->lineno,
		     "bad control-socket '%s' (expected an absolute path, at most %zu)", v,
		     sizeof(p->c->daemon.control_socket) - 1);
		return -EINVAL;
	}
	memcpy(p->c->daemon.control_socket, v, strlen(v) + 1);
	return 0;
}

static int daemon_status_interval(struct parser *p, const char *key, const char *v)
{
	return set_duration(p, key, v, &p->c->daemon.status_interval_ns, false);
}

static int daemon_ready_timeout(struct parser *p, const char *key, const char *v)
{
	return set_duration(p, key, v, &p->c->daemon.ready_timeout_ns, true);
}

/* ---- [metrics] ---- */

/* A numeric address, "[v6]" or "localhost": the address into host, and whether it is loopback. */
static int parse_host(const char *s, size_t n, char *host, bool *loopback)
{
	unsigned char a[sizeof(struct in6_addr)];
	char buf[JANK_CONFIG_HOST_LEN];

	if (n == 9 && !strncmp(s, "localhost", 9)) {
		snprintf(host, JANK_CONFIG_HOST_LEN, "127.0.0.1");
		*loopback = true;
		return 0;
	}
	if (n > 2 && s[0] == '[' && s[n - 1] == ']') {
		if (n - 2 >= sizeof(buf))
			return -EINVAL;
		snprintf(buf, sizeof(buf), "%.*s", (int)(n - 2), s + 1);
		if (inet_pton(AF_INET6, buf, a) != 1)
			return -EINVAL;
		/* ::1, or ::ffff:127.x.y.z */
		*loopback = IN6_IS_ADDR_LOOPBACK((struct in6_addr *)a) ||
			    (IN6_IS_ADDR_V4MAPPED((struct in6_addr *)a) && a[12] == 127);
	} else {
		if (n >= sizeof(buf))
			return -EINVAL;
		snprintf(buf, sizeof(buf), "%.*s", (int)n, s);
		if (inet_pton(AF_INET, buf, a) != 1)
			return -EINVAL;
		*loopback = a[0] == 127;
	}
	memcpy(host, buf, strlen(buf) + 1);
	return 0;
}

/* ADDRESS:PORT; whether a non-loopback address is allowed is checked at the section's end. */
static int metrics_listen(struct parser *p, const char *key, const char *v)
{
	struct jank_config_metrics *m = &p->c->metrics;
	const char *colon = strrchr(v, ':');
	uint64_t port;

	if (!colon || parse_uint(colon + 1, &port) < 0 || port == 0 || port > 65535 ||
	    parse_host(v, (size_t)(colon - v), m->host, &p->metrics_loopback) < 0) {
		m->host[0] = '\0';
		fail(p, p->lineno,
		     "bad listen '%s' (expected ADDRESS:PORT: 127.0.0.1:9479, [::1]:9479 or "
		     "localhost:9479)",
		     v);
		return -EINVAL;
	}
	m->port = (unsigned)port;
	p->metrics_listen_line = p->lineno;
	return 0;
}

static int metrics_listen_public(struct parser *p, const char *key, const char *v)
{
	return set_bool(p, key, v, &p->c->metrics.listen_public);
}

/* The endpoint tells about the host's programs: beyond loopback only when asked. */
static void metrics_end(struct parser *p)
{
	const struct jank_config_metrics *m = &p->c->metrics;

	if (!m->host[0] || p->metrics_loopback || m->listen_public)
		return;
	fail(p, p->metrics_listen_line,
	     "[metrics] listen: %s is not a loopback address: whoever reaches it can read "
	     "jankd's metrics (say listen-public = yes to serve it there)",
	     m->host);
}

/* ---- [action NAME] ---- */

static int action_begin(struct parser *p, const char *key, const char *v)
{
	return set_event_name(p, key, v, &p->rule->begin_event);
}

static int action_end(struct parser *p, const char *key, const char *v)
{
	return set_event_name(p, key, v, &p->rule->end_event);
}

static int action_key(struct parser *p, const char *key, const char *v)
{
	if (jank_rule_set_keys(p->rule, v) < 0) {
		fail(p, p->lineno,
		     "bad key '%s' (expected up to %d field names separated by commas)", v,
		     JANK_RULE_MAX_KEYS);
		return -EINVAL;
	}
	return 0;
}

static int action_match(struct parser *p, const char *key, const char *v)
{
	if (jank_rule_set_match(p->rule, v) < 0) {
		fail(p, p->lineno,
		     "bad match '%s' (expected FIELD == \"string\" or FIELD == NUMBER)", v);
		return -EINVAL;
	}
	return 0;
}

static int action_threshold(struct parser *p, const char *key, const char *v)
{
	struct jank_threshold t;

	if (jank_threshold_parse(v, &t) < 0 || (t.kind == JANK_THRESHOLD_FIXED && t.ns <= 0)) {
		if (v[0] == 'p' || v[0] == 'P')
			fail(p, p->lineno,
			     "bad threshold '%s' (expected pPERCENTILE[*FACTOR], e.g. p99*1.5: a "
			     "percentile above 0 and below 100, a factor above 0 and at most 1000)",
			     v);
		else
			fail(p, p->lineno, "bad duration '%s' for threshold", v);
		return -EINVAL;
	}
	p->rule->threshold = t;
	return 0;
}

static int action_capture(struct parser *p, const char *key, const char *v)
{
	return set_bool(p, key, v, &p->rule->capture);
}

/* Samples an adaptive threshold learns from before it applies; kept until the section ends. */
static int action_warmup(struct parser *p, const char *key, const char *v)
{
	if (parse_uint(v, &p->warmup) < 0) {
		fail(p, p->lineno, "bad number '%s' for warmup", v);
		return -EINVAL;
	}
	p->warmup_set = true;
	return 0;
}

/* clang-format off */
static const struct key_def live_keys[] = {
	{ "url", live_url },
	{ "create", live_create },
	{ "timer", live_timer },
	{ "session", live_session },
	{ "relayd", live_relayd },
	{ "relayd-live-port", live_relayd_live_port },
	{ "tracefile-size", live_tracefile_size },
	{ "tracefile-count", live_tracefile_count },
	{ "discover", live_discover },
	{ "hosts", live_hosts },
	{ "sessions", live_sessions },
	{ "discover-interval", live_discover_interval },
	{ "worker-timeout", live_worker_timeout },
	{ NULL, NULL },
};
static const struct key_def graph_keys[] = {
	{ "retention", graph_retention },
	{ "memory-limit", graph_memory_limit },
	{ "action-timeout", graph_action_timeout },
	{ "overdue-grace", graph_overdue_grace },
	{ NULL, NULL },
};
static const struct key_def alerts_keys[] = {
	{ "target", alerts_target },
	{ "rate-limit", alerts_rate_limit },
	{ NULL, NULL },
};
static const struct key_def capture_keys[] = {
	{ "mode", capture_mode },
	{ "dir", capture_dir },
	{ "cooldown", capture_cooldown },
	{ "max-per-hour", capture_max_per_hour },
	{ "quota", capture_quota },
	{ "min-free", capture_min_free },
	{ "session", capture_session },
	{ "events", capture_events },
	{ "buffer-size", capture_buffer_size },
	{ "rotation-period", capture_rotation_period },
	{ "rotation-size", capture_rotation_size },
	{ "retention", capture_retention },
	{ NULL, NULL },
};
static const struct key_def metrics_keys[] = {
	{ "listen", metrics_listen },
	{ "listen-public", metrics_listen_public },
	{ NULL, NULL },
};
static const struct key_def daemon_keys[] = {
	{ "control-socket", daemon_control_socket },
	{ "status-interval", daemon_status_interval },
	{ "ready-timeout", daemon_ready_timeout },
	{ NULL, NULL },
};
enum { ACTION_KEY_BEGIN, ACTION_KEY_END, ACTION_KEY_KEY, ACTION_KEY_MATCH, ACTION_KEY_THRESHOLD };
static const struct key_def action_keys[] = {
	[ACTION_KEY_BEGIN] = { "begin", action_begin },
	[ACTION_KEY_END] = { "end", action_end },
	[ACTION_KEY_KEY] = { "key", action_key },
	[ACTION_KEY_MATCH] = { "match", action_match },
	[ACTION_KEY_THRESHOLD] = { "threshold", action_threshold },
	{ "capture", action_capture },
	{ "warmup", action_warmup },
	{ NULL, NULL },
};
/* clang-format on */

static const struct key_def *section_keys(enum section_kind kind)
{
	switch (kind) {
	case SECTION_LIVE:
		return live_keys;
	case SECTION_GRAPH:
		return graph_keys;
	case SECTION_ALERTS:
		return alerts_keys;
	case SECTION_CAPTURE:
		return capture_keys;
	case SECTION_DAEMON:
		return daemon_keys;
	case SECTION_METRICS:
		return metrics_keys;
	case SECTION_ACTION:
		return action_keys;
	case SECTION_NONE:
	case SECTION_BAD:
	case SECTION_KIND_COUNT:
		break;
	}
	return NULL;
}

/* ---- Sections ---- */

/* Checks that need the whole section: required keys. */
static void section_end(struct parser *p)
{
	static const unsigned required[] = { ACTION_KEY_BEGIN, ACTION_KEY_END,
					     ACTION_KEY_THRESHOLD };

	if (p->kind == SECTION_METRICS)
		metrics_end(p);
	/* A refused value leaves its key marked seen but unset: the first
	 * error is the one to report. */
	if (p->kind != SECTION_ACTION || p->failed)
		return;
	/* A drop-in's [action NAME] of an earlier file changes some of its keys. */
	for (size_t i = 0; !p->overriding && i < sizeof(required) / sizeof(required[0]); i++) {
		if (!(p->seen & (1ull << required[i]))) {
			fail(p, 0, "[%s]: missing '%s'", p->section, action_keys[required[i]].name);
			return;
		}
	}
	if (!strcmp(p->rule->begin_event, p->rule->end_event)) {
		fail(p, p->section_line,
		     "[%s]: begin and end are the same event '%s' (an action needs two)",
		     p->section, p->rule->begin_event);
		return;
	}
	if (p->warmup_set)
		p->rule->threshold.warmup = p->warmup;
}

static bool valid_action_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-.:", *s))
			return false;
	return true;
}

static int add_rule(struct parser *p, const char *name)
{
	struct jank_config *c = p->c;
	struct jank_rule *v;
	unsigned *lines;

	const char **files;

	for (size_t i = 0; i < c->nrules; i++) {
		if (strcmp(c->rules[i].name, name) != 0)
			continue;
		if (p->rule_files[i] == p->name) {
			fail(p, p->lineno, "duplicate action name '%s' (first at line %u)", name,
			     p->rule_lines[i]);
			return -EEXIST;
		}
		p->rule = &c->rules[i];
		p->overriding = true;
		return 0;
	}
	v = realloc(c->rules, (c->nrules + 1) * sizeof(*v));
	if (!v)
		goto nomem;
	c->rules = v;
	lines = realloc(p->rule_lines, (c->nrules + 1) * sizeof(*lines));
	if (!lines)
		goto nomem;
	p->rule_lines = lines;
	files = realloc(p->rule_files, (c->nrules + 1) * sizeof(*files));
	if (!files)
		goto nomem;
	p->rule_files = files;
	jank_rule_init(&v[c->nrules]);
	v[c->nrules].name = strdup(name);
	if (!v[c->nrules].name)
		goto nomem;
	lines[c->nrules] = p->lineno;
	files[c->nrules] = p->name;
	p->rule = &v[c->nrules++];
	return 0;
nomem:
	fail(p, p->lineno, "out of memory");
	return -ENOMEM;
}

/* A header line, "[ name ]" with the brackets stripped: start a section. */
static void section_begin(struct parser *p, char *name)
{
	char *end;

	section_end(p);
	p->kind = SECTION_BAD;
	p->seen = 0;
	p->rule = NULL;
	p->overriding = false;
	p->warmup_set = false;
	p->section_line = p->lineno;
	while (isspace((unsigned char)*name))
		name++;
	end = name + strlen(name);
	while (end > name && isspace((unsigned char)end[-1]))
		*--end = '\0';
	snprintf(p->section, sizeof(p->section), "%s", name);

	if (!strncmp(name, "action", 6) && (name[6] == '\0' || isspace((unsigned char)name[6]))) {
		char *rule = name + 6;

		while (isspace((unsigned char)*rule))
			rule++;
		if (!valid_action_name(rule)) {
			fail(p, p->lineno,
			     "bad action name in [%s] (expected [action NAME], NAME made of "
			     "letters, "
			     "digits and _-.:)",
			     name);
			return;
		}
		snprintf(p->section, sizeof(p->section), "action %s", rule);
		if (add_rule(p, rule) == 0)
			p->kind = SECTION_ACTION;
		return;
	}
	for (int k = SECTION_LIVE; k <= SECTION_METRICS; k++) {
		if (strcmp(name, section_names[k]) != 0)
			continue;
		if (p->section_first_line[k]) {
			fail(p, p->lineno, "duplicate section [%s] (first at line %u)", name,
			     p->section_first_line[k]);
			return;
		}
		p->section_first_line[k] = p->lineno;
		p->kind = k;
		return;
	}
	fail(p, p->lineno,
	     "unknown section [%s] (expected [live], [graph], [alerts], [capture], [daemon], "
	     "[metrics] or [action NAME])",
	     name);
}

/* ---- inih plumbing ---- */

/* Cut an inline comment: '#' or ';' after a blank, outside double quotes. */
static void strip_comment(char *v)
{
	bool quoted = false;
	size_t n;

	for (char *s = v; *s; s++) {
		if (*s == '"')
			quoted = !quoted;
		else if (!quoted && (*s == '#' || *s == ';') && s > v &&
			 isspace((unsigned char)s[-1])) {
			*s = '\0';
			break;
		}
	}
	n = strlen(v);
	while (n && isspace((unsigned char)v[n - 1]))
		v[--n] = '\0';
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parser *p = user;
	const struct key_def *keys;
	char v[CONFIG_MSG_LEN];

	(void)section; /* ours, tracked by the reader, is the same one */
	if (p->kind == SECTION_BAD)
		return 1;
	if (p->kind == SECTION_NONE) {
		fail(p, p->lineno, "key '%s' outside of any section", name);
		return 0;
	}
	snprintf(v, sizeof(v), "%s", value ? value : "");
	strip_comment(v);
	keys = section_keys(p->kind);
	for (unsigned i = 0; keys && keys[i].name; i++) {
		if (strcmp(keys[i].name, name) != 0)
			continue;
		if (p->seen & (1ull << i)) {
			fail(p, p->lineno, "duplicate key '%s' in section [%s]", name, p->section);
			return 0;
		}
		p->seen |= 1ull << i;
		if (!v[0]) {
			fail(p, p->lineno, "empty value for '%s' in section [%s]", name,
			     p->section);
			return 0;
		}
		return keys[i].set(p, name, v) == 0;
	}
	fail(p, p->lineno, "unknown key '%s' in section [%s]", name, p->section);
	return 0;
}

/* The next raw line of the text, without its newline; NULL at the end. */
static char *next_line(struct parser *p)
{
	const char *nl;
	size_t n;

	if (!p->text || p->text >= p->end)
		return NULL;
	nl = memchr(p->text, '\n', (size_t)(p->end - p->text));
	n = nl ? (size_t)(nl - p->text) + 1 : (size_t)(p->end - p->text);
	if (n + 1 > p->linecap) {
		char *l = realloc(p->line, n + 1);

		if (!l)
			return NULL;
		p->line = l;
		p->linecap = n + 1;
	}
	memcpy(p->line, p->text, n);
	p->line[n] = '\0';
	p->text += n;
	while (n && (p->line[n - 1] == '\n' || p->line[n - 1] == '\r'))
		p->line[--n] = '\0';
	p->linelen = (size_t)n;
	return p->line;
}

static char *reader(char *str, int num, void *stream)
{
	struct parser *p = stream;
	char *line = next_line(p);
	size_t n;

	if (!line) {
		section_end(p);
		return NULL;
	}
	p->lineno++;
	if (memchr(line, '\0', p->linelen)) {
		fail(p, p->lineno, "a NUL byte in the line (is this a text file?)");
		line[0] = '\0';
	}
	while (isspace((unsigned char)*line))
		line++;
	n = strlen(line);
	if (n && !strchr("[;#", line[0]) && !strchr(line, '=')) {
		/* inih would take "key: value": one syntax only, key = value. */
		fail(p, p->lineno, "syntax error (expected [section] or key = value)");
		n = 0;
	}
	if (n + 2 > (size_t)num) {
		fail(p, p->lineno, "line too long (at most %d characters)", num - 3);
		line = "";
		n = 0;
	}
	if (line[0] == '[') {
		char *close = strchr(line, ']');

		if (close) {
			char name[CONFIG_MSG_LEN];

			snprintf(name, sizeof(name), "%.*s", (int)(close - line - 1), line + 1);
			section_begin(p, name);
		}
	}
	memcpy(str, line, n);
	str[n] = '\n';
	str[n + 1] = '\0';
	return str;
}

/* Parse one file (or string) into p->c; the first error is kept in p. */
static void parse_file(struct parser *p)
{
	int r;

	/* What is per file: the line count, the sections seen, the open section. */
	p->lineno = 0;
	p->kind = SECTION_NONE;
	p->rule = NULL;
	p->overriding = false;
	memset(p->section_first_line, 0, sizeof(p->section_first_line));
	r = ini_parse_stream(reader, p, handler, p);
	if (!p->failed && r > 0)
		fail(p, (unsigned)r, "syntax error (expected [section] or key = value)");
	else if (p->failed && p->fail_name == p->name && r > 0 &&
		 ((unsigned)r < p->fail_at || ((unsigned)r == p->fail_at && !p->fail_line))) {
		/*
		 * inih found a syntax error before the line of ours: report the
		 * first. On the same line, ours wins (inih counts our refusal
		 * as its error), unless ours names no line: a check at the end of
		 * the file, which came after the last line's syntax error.
		 */
		p->failed = false;
		fail(p, (unsigned)r, "syntax error (expected [section] or key = value)");
	} else if (!p->failed && r < 0)
		fail(p, 0, "out of memory");
}

/* Checks across every file, then the message of the first error, if any. */
static int finish(struct jank_config *c, struct parser *p, char *err, size_t errlen)
{
	if (!p->failed && c->live.nurls && p->live_create_seen && c->live.create) {
		bool create_last = p->live_create_at > p->live_url_at;

		p->name = create_last ? p->live_create_file : p->live_url_file;
		fail(p, create_last ? p->live_create_line : p->live_url_line,
		     "[live]: 'url' and 'create = yes' exclude each other");
	}
	if (!p->failed && p->discover_line && (c->live.nurls || c->live.create)) {
		p->name = p->discover_file;
		fail(p, p->discover_line,
		     "[live]: 'discover' excludes 'url' and 'create = yes' (one jankd watches "
		     "one relayd's sessions)");
	}
	if (!p->failed && p->patterns_line && !p->discover_line) {
		p->name = p->patterns_file;
		fail(p, p->patterns_line, "[live]: 'hosts' and 'sessions' need 'discover'");
	}
	if (!p->failed) {
		const char *ev;
		size_t bad;

		if (jank_rules_check(c->rules, c->nrules, &bad, &ev) < 0) {
			p->name = p->rule_files[bad];
			fail(p, p->rule_lines[bad],
			     "[action %s]: event '%s' cannot serve one more rule: at most %d rules "
			     "begin or end on one event, reading at most %d key and match fields",
			     c->rules[bad].name, ev, JANK_MAX_RULES_PER_EVENT,
			     JANK_MAX_FIELDS_PER_EVENT);
		}
	}
	free(p->line);
	free(p->rule_lines);
	free(p->rule_files);
	if (!p->failed)
		return 0;
	if (p->fail_line)
		snprintf(err, errlen, "%s:%u: %s", p->fail_name, p->fail_line, p->msg);
	else
		snprintf(err, errlen, "%s: %s", p->fail_name, p->msg);
	jank_config_fini(c);
	jank_config_init(c);
	return -EINVAL;
}

#define CONFIG_MAX_BYTES (16 << 20) /* a config is a few KiB: more is not one */

/* Read a whole file into src, or say why not in err. */
static int read_file(const char *path, struct jank_config_source *src, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	size_t cap = 4096, n;
	int r = 0;

	memset(src, 0, sizeof(*src));
	if (!f || fstat(fileno(f), &st) != 0)
		r = -errno;
	else if (S_ISDIR(st.st_mode))
		r = -EISDIR;
	else if (!S_ISREG(st.st_mode))
		r = -EINVAL;
	if (r == 0 && (!(src->name = strdup(path)) || !(src->text = malloc(cap))))
		r = -ENOMEM;
	while (r == 0 && (n = fread(src->text + src->len, 1, cap - src->len - 1, f)) > 0) {
		src->len += n;
		if (src->len + 1 < cap)
			continue;
		if (cap >= CONFIG_MAX_BYTES) {
			r = -EFBIG;
		} else {
			char *t = realloc(src->text, cap *= 2);

			if (!t)
				r = -ENOMEM;
			else
				src->text = t;
		}
	}
	if (r == 0 && ferror(f))
		r = -EIO;
	if (f)
		fclose(f);
	if (r == 0) {
		src->text[src->len] = '\0';
		return 0;
	}
	if (r == -EINVAL)
		snprintf(err, errlen, "%s: not a regular file", path);
	else if (r == -EFBIG)
		snprintf(err, errlen, "%s: larger than %d MiB: not a configuration", path,
			 CONFIG_MAX_BYTES >> 20);
	else
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
	free(src->name);
	free(src->text);
	memset(src, 0, sizeof(*src));
	return r;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The drop-ins of `path`: conf.d/ beside it, its *.conf files in the byte
 * order of their names (hidden files left out). No conf.d is no drop-in.
 */
static int list_dropins(const char *path, char ***names, size_t *count, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	struct dirent *d;
	DIR *dp;
	int r = 0;

	*names = NULL;
	*count = 0;
	if (slash)
		snprintf(dir, sizeof(dir), "%.*s/conf.d", (int)(slash - path), path);
	else
		snprintf(dir, sizeof(dir), "conf.d");
	dp = opendir(dir);
	if (!dp) {
		if (errno == ENOENT)
			return 0;
		r = -errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(-r));
		return r;
	}
	while ((d = readdir(dp))) {
		size_t n = strlen(d->d_name);
		char **v;

		if (d->d_name[0] == '.' || n <= 5 || strcmp(d->d_name + n - 5, ".conf") != 0)
			continue;
		v = realloc(*names, (*count + 1) * sizeof(*v));
		if (v) {
			*names = v;
			v[*count] = malloc(strlen(dir) + n + 2);
		}
		if (!v || !v[*count]) {
			snprintf(err, errlen, "%s: out of memory", dir);
			r = -ENOMEM;
			break;
		}
		sprintf(v[(*count)++], "%s/%s", dir, d->d_name);
	}
	closedir(dp);
	if (*count)
		qsort(*names, *count, sizeof(**names), by_name);
	return r;
}

int jank_config_read(const char *path, struct jank_config_sources *s, char *err, size_t errlen)
{
	char **names = NULL;
	size_t n = 0;
	int r;

	memset(s, 0, sizeof(*s));
	r = list_dropins(path, &names, &n, err, errlen);
	if (r == 0 && !(s->v = calloc(n + 1, sizeof(*s->v))))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i <= n; i++) {
		r = read_file(i ? names[i - 1] : path, &s->v[i], err, errlen);
		if (r == 0)
			s->n = i + 1;
	}
	free_list(&names, &n);
	if (r == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	if (r < 0)
		jank_config_sources_fini(s);
	return r;
}

void jank_config_sources_fini(struct jank_config_sources *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].text);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

int jank_config_load_sources(struct jank_config *c, const struct jank_config_sources *s, char *err,
			     size_t errlen)
{
	struct parser p = { .c = c };

	jank_config_init(c);
	if (s->n == 0) {
		snprintf(err, errlen, "no configuration");
		return -EINVAL;
	}
	c->path = strdup(s->v[0].name);
	c->dropins = calloc(s->n, sizeof(*c->dropins));
	for (size_t i = 1; c->dropins && i < s->n; i++)
		if ((c->dropins[i - 1] = strdup(s->v[i].name)))
			c->ndropins = i;
	if (!c->path || !c->dropins || c->ndropins != s->n - 1) {
		jank_config_fini(c);
		jank_config_init(c);
		snprintf(err, errlen, "%s: out of memory", s->v[0].name);
		return -ENOMEM;
	}
	for (size_t i = 0; !p.failed && i < s->n; i++) {
		/* Names that live as long as the config: the messages keep them. */
		p.name = i ? c->dropins[i - 1] : c->path;
		p.text = s->v[i].text;
		p.end = s->v[i].text + s->v[i].len;
		p.fileno = (unsigned)i;
		parse_file(&p);
	}
	return finish(c, &p, err, errlen);
}

int jank_config_load(struct jank_config *c, const char *path, char *err, size_t errlen)
{
	struct jank_config_sources s;
	int r = jank_config_read(path, &s, err, errlen);

	if (r < 0) {
		jank_config_init(c);
		return r;
	}
	r = jank_config_load_sources(c, &s, err, errlen);
	jank_config_sources_fini(&s);
	return r;
}

int jank_config_load_string(struct jank_config *c, const char *name, const char *text, char *err,
			    size_t errlen)
{
	struct jank_config_source src = { .name = (char *)name, .text = (char *)text };
	struct jank_config_sources s = { .v = &src, .n = 1 };

	src.len = strlen(text);
	return jank_config_load_sources(c, &s, err, errlen);
}

/* ---- The rest ---- */

void jank_config_init(struct jank_config *c)
{
	struct jank_engine_config ec;

	memset(c, 0, sizeof(*c));
	jank_engine_config_defaults(&ec);
	c->live.timer_ns = 100 * 1000000LL;
	snprintf(c->live.session, sizeof(c->live.session), "jankd-live");
	snprintf(c->live.relayd, sizeof(c->live.relayd), "net://127.0.0.1");
	c->live.relayd_live_port = 5344;
	c->live.tracefile_size = 64ull << 20;
	c->live.tracefile_count = 4;
	c->live.discover_interval_ns = 2 * 1000000000LL;
	c->live.worker_timeout_ns = 10 * 1000000000LL;
	c->graph.retention_ns = ec.retention_ns;
	c->graph.memory_limit = ec.memory_limit;
	c->graph.action_timeout_ns = ec.action_timeout_ns;
	c->graph.overdue_grace_ns = 1000000000LL;
	c->alerts.target = JANK_ALERT_JOURNAL;
	c->alerts.rate_limit_count = 10;
	c->alerts.rate_limit_period_ns = 10 * 1000000000LL;
	c->capture.mode = JANK_CAPTURE_SNAPSHOT;
	c->capture.cooldown_ns = 30 * 1000000000LL;
	c->capture.max_per_hour = 20;
	c->capture.quota = 2ull << 30;
	c->capture.min_free_percent = 5;
	c->capture.rotation_period_ns = 10 * 1000000000LL;
	c->capture.retention_ns = 10 * 1000000000LL;
	snprintf(c->daemon.control_socket, sizeof(c->daemon.control_socket), "/run/jankd/control");
	c->daemon.status_interval_ns = 5 * 1000000000LL;
	c->daemon.ready_timeout_ns = 10 * 1000000000LL;
}

void jank_config_fini(struct jank_config *c)
{
	for (size_t i = 0; i < c->nrules; i++)
		jank_rule_fini(&c->rules[i]);
	free(c->rules);
	for (size_t i = 0; i < c->live.nurls; i++)
		free(c->live.urls[i]);
	free(c->live.urls);
	for (size_t i = 0; i < c->live.nhosts; i++)
		free(c->live.hosts[i]);
	free(c->live.hosts);
	for (size_t i = 0; i < c->live.nsessions; i++)
		free(c->live.sessions[i]);
	free(c->live.sessions);
	free(c->capture.dir);
	for (size_t i = 0; i < c->capture.nevents; i++)
		free(c->capture.events[i]);
	free(c->capture.events);
	free(c->path);
	free_list(&c->dropins, &c->ndropins);
	memset(c, 0, sizeof(*c));
}

void jank_config_apply_engine(const struct jank_config *c, struct jank_engine_config *ec)
{
	ec->retention_ns = c->graph.retention_ns;
	ec->memory_limit = c->graph.memory_limit;
	ec->action_timeout_ns = c->graph.action_timeout_ns;
	ec->overdue_grace_ns = c->graph.overdue_grace_ns;
}

int jank_config_add_rules(const struct jank_config *c, struct jank_engine *e)
{
	for (size_t i = 0; i < c->nrules; i++) {
		int r = jank_engine_add_rule(e, &c->rules[i]);

		if (r < 0)
			return r;
	}
	return 0;
}

const char *jank_alert_target_name(enum jank_alert_target t)
{
	switch (t) {
	case JANK_ALERT_JOURNAL:
		return "journal";
	case JANK_ALERT_STDERR:
		return "stderr";
	case JANK_ALERT_JSON:
		return "json";
	}
	return "?";
}

const char *jank_capture_mode_name(enum jank_capture_mode m)
{
	switch (m) {
	case JANK_CAPTURE_SNAPSHOT:
		return "snapshot";
	case JANK_CAPTURE_ROTATION:
		return "rotation";
	case JANK_CAPTURE_NONE:
		return "none";
	}
	return "?";
}

int jank_config_check(const struct jank_config *c, char *err, size_t errlen)
{
	const char *path = c->path ? c->path : "config";

	if (c->nrules == 0) {
		snprintf(err, errlen, "%s: no [action ...] section", path);
		return -EINVAL;
	}
	if (c->capture.mode == JANK_CAPTURE_ROTATION && !c->capture.rotation_period_ns &&
	    !c->capture.rotation_size) {
		snprintf(err, errlen,
			 "%s: [capture] mode = rotation needs a rotation-period or a rotation-size",
			 path);
		return -EINVAL;
	}
	return 0;
}
