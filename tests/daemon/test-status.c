/* SPDX-License-Identifier: MIT */
/*
 * daemon/status.c: what `jankctl status` and sd_notify's STATUS= show.
 * With a hand-made daemon context (an alerter, a fleet whose inputs have no
 * worker); its text formatting, reached through status-int.h, is driven
 * with hand-made figures.
 */
#include <string.h>
#include <unistd.h>
#include "status-int.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define S  1000000000LL
#define MS 1000000LL

/* ---- Pieces of text ---- */

static void bytes(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(status_bytes_text(0, b, sizeof(b)), "0 B");
	assert_string_equal(status_bytes_text(1023, b, sizeof(b)), "1023 B");
	assert_string_equal(status_bytes_text(1024, b, sizeof(b)), "1.0 KiB");
	assert_string_equal(status_bytes_text(1536, b, sizeof(b)), "1.5 KiB");
	assert_string_equal(status_bytes_text((1 << 20) - 1, b, sizeof(b)), "1024.0 KiB");
	assert_string_equal(status_bytes_text(1 << 20, b, sizeof(b)), "1.00 MiB");
	assert_string_equal(status_bytes_text(1 << 30, b, sizeof(b)), "1.00 GiB");
	assert_string_equal(status_bytes_text(11LL << 29, b, sizeof(b)), "5.50 GiB");
	assert_string_equal(status_bytes_text(4096LL << 30, b, sizeof(b)), "4096.00 GiB");
}

static void uptime(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(status_uptime_text(0, b, sizeof(b)), "0s");
	assert_string_equal(status_uptime_text(S - 1, b, sizeof(b)), "0s");
	assert_string_equal(status_uptime_text(59 * S, b, sizeof(b)), "59s");
	assert_string_equal(status_uptime_text(60 * S, b, sizeof(b)), "1m 00s");
	assert_string_equal(status_uptime_text(3599 * S, b, sizeof(b)), "59m 59s");
	assert_string_equal(status_uptime_text(3600 * S, b, sizeof(b)), "1h 00m");
	assert_string_equal(status_uptime_text(86399 * S, b, sizeof(b)), "23h 59m");
	assert_string_equal(status_uptime_text(86400 * S, b, sizeof(b)), "1d 00h");
	assert_string_equal(status_uptime_text(90061 * S, b, sizeof(b)), "1d 01h");
	assert_string_equal(status_uptime_text(400 * 86400 * S, b, sizeof(b)), "400d 00h");
}

static void trace_clock(void **state)
{
	char b[48];

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	/* LTTng's clock: ns since the epoch. */
	assert_string_equal(jank_clock_text(1700000000LL * S + 123456789, b, sizeof(b)),
			    "2023-11-14 22:13:20.123");
	assert_string_equal(jank_clock_text(1000000000LL * S, b, sizeof(b)),
			    "2001-09-09 01:46:40.000");
	/* A clock that is not the epoch's (a trace from boot): seconds. */
	assert_string_equal(jank_clock_text(1500 * MS, b, sizeof(b)), "1.500 s");
	assert_string_equal(jank_clock_text(0, b, sizeof(b)), "0.000 s");
	assert_string_equal(jank_clock_text(1000000000LL * S - 1, b, sizeof(b)),
			    "1000000000.000 s");
}

/* ---- Sections of the text ---- */

/* What `fn` prints of the input `x`. */
static char *render_input(void (*fn)(FILE *, const struct jank_fleet_figures *),
			  const struct jank_fleet_figures *x)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f, x);
	fclose(f);
	return buf;
}

static void check_input(void (*fn)(FILE *, const struct jank_fleet_figures *),
			const struct jank_fleet_figures *x, const char *expected)
{
	char *s = render_input(fn, x);

	assert_string_equal(s, expected);
	free(s);
}

/* An input of the fleet: no figures yet, its worker `pid` started `starts` times. */
static void fleet_input(struct jank_fleet_figures *x, pid_t pid, uint64_t starts)
{
	memset(x, 0, sizeof(*x));
	jank_input_figures_init(&x->fig);
	x->worker.pid = pid;
	x->worker.starts = starts;
}

static void worker(void **state)
{
	struct jank_fleet_figures x;

	(void)state;
	fleet_input(&x, 12, 1);
	check_input(status_worker_text, &x, " (worker pid 12)");
	x.worker.starts = 2;
	x.worker.crashes = 1;
	check_input(status_worker_text, &x, " (worker pid 12, 1 restart: 1 crashed, 0 silent)");
	fleet_input(&x, 0, 4);
	x.worker.crashes = 1;
	x.worker.timeouts = 2;
	x.duplicates_dropped = 5;
	check_input(status_worker_text, &x,
		    " (worker pid 0, 3 restarts: 1 crashed, 2 silent; 5 duplicate verdicts "
		    "dropped)");
	fleet_input(&x, 0, 0);
	check_input(status_worker_text, &x, " (worker pid 0)");
}

static void input(void **state)
{
	struct jank_fleet_figures x;
	struct jank_input_figures *f = &x.fig;
	struct jank_engine_stats *es = &f->engine;

	(void)state;
	fleet_input(&x, 9, 1);
	f->reported = f->counted = true;
	snprintf(f->url, sizeof(f->url), "net://r/host/h/s");
	snprintf(f->state, sizeof(f->state), "connected");
	es->events = 1000;
	f->events_per_sec = 12.5;
	f->events_read = 1001;
	es->discarded_events = 2;
	f->disconnects = 3;
	f->reconnects = 4;
	es->overdue = 5;
	es->overdue_unsure = 6;
	es->actions_open = 7;
	es->actions_expired = 8;
	es->actions_evicted = 9;
	es->paths_truncated = 10;
	es->actions_dropped = 11;
	es->actions_unmatched = 12;
	es->actions_replaced = 13;
	es->memory_bytes = 2048;
	es->memory_peak = 3145728;
	es->budget_forced = 14;
	es->graph.threads = 15;
	es->graph.vertices = 16;
	es->graph.gc_steps = 17;
	es->graph.freed_vertices = 18;
	assert_int_equal(jank_input_figures_set_rules(f, 2), 0);
	snprintf(f->rules[0].action, sizeof(f->rules[0].action), "frame");
	f->rules[0].count = 100;
	f->rules[0].stats.janks = 3;
	f->rules[0].p50_ns = 1000000;
	f->rules[0].p90_ns = 2000000;
	f->rules[0].p99_ns = 16000000;
	f->rules[0].max_ns = 20000000;
	f->rules[0].threshold_ns = 16000000;
	snprintf(f->rules[1].action, sizeof(f->rules[1].action), "a-very-long-action");
	check_input(
		status_input_text, &x,
		"\ninput net://r/host/h/s: connected (worker pid 9)\n"
		"  events 1000 (12.5/s), 1001 read, discarded 2, disconnects 3, reconnects 4\n"
		"  action                count    janks        p50        p90        p99        "
		"max "
		" threshold\n"
		"  frame                   100        3    1.00 ms    2.00 ms    16.0 ms    20.0 "
		"ms "
		"   16.0 ms\n"
		"  a-very-long-action        0        0       0 ns       0 ns       0 ns       0 "
		"ns "
		"  learning\n"
		"  overdue 5 (6 unsure, not reported), open 7, expired 8, evicted by the memory "
		"budget 9, truncated 10, dropped 11, unmatched 12, replaced 13\n"
		"  graph: 15 threads, 16 vertices, memory 2.0 KiB (peak 3.00 MiB); GC 17 steps, 18 "
		"vertices freed, budget forced 14 times\n");
	jank_fleet_figures_fini(&x);
}

static void input_error(void **state)
{
	struct jank_fleet_figures x;
	char *s;

	(void)state;
	fleet_input(&x, 0, 0);
	snprintf(x.fig.url, sizeof(x.fig.url), "u");
	snprintf(x.fig.state, sizeof(x.fig.state), "reconnecting");
	snprintf(x.fig.last_error, sizeof(x.fig.last_error), "relayd went away");
	x.fig.engine.paths_incomplete = 2;
	x.skipped_ranges = 1;
	x.skipped_ns = 1500000000;
	x.actions_lost = 3;
	s = render_input(status_input_text, &x);
	assert_non_null(strstr(s, "\ninput u: reconnecting (last error: relayd went away) (worker "
				  "pid 0)\n"));
	assert_non_null(strstr(s, "\n  2 paths incomplete (out of memory while computing them)\n"));
	assert_non_null(strstr(s, "\n  skipped after worker restarts: 1.5 s of events in 1 gap, 3 "
				  "open actions lost\n"));
	/* No rules: the header alone, at the narrowest width. */
	assert_non_null(strstr(s, "\n  action    count    janks "));
	free(s);
}

/* A failing worker: the input says why and since when (text, JSON), its session's problem else. */
static void input_blind(void **state)
{
	struct jank_fleet_figures x;
	struct jank_fleet_blind b;
	struct json_object *o, *w;
	char *s;

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	fleet_input(&x, 0, 3);
	snprintf(x.fig.url, sizeof(x.fig.url), "u");
	snprintf(x.fig.state, sizeof(x.fig.state), "restarting");
	x.worker.crashes = 3;
	x.worker.failing = true;
	x.worker.failing_since = 1700000000LL * S;
	snprintf(x.worker.error, sizeof(x.worker.error),
		 "worker cannot start: no user 'jank-worker' ([daemon] worker-user)");
	s = render_input(status_input_text, &x);
	assert_non_null(strstr(s, "\ninput u: restarting since 2023-11-14 22:13:20.000 ("));
	assert_non_null(strstr(s,
			       "): worker cannot start: no user 'jank-worker' ([daemon] "
			       "worker-user) (worker pid 0, 2 restarts: 3 crashed, 0 silent)\n"));
	free(s);
	jank_fleet_figures_blind(&x, &b);
	assert_true(b.blind);
	assert_string_equal(b.reason,
			    "worker cannot start: no user 'jank-worker' ([daemon] worker-user)");
	assert_int_equal(b.since, 1700000000LL * S);
	o = jank_fleet_figures_json(&x);
	assert_true(json_object_get_boolean(json_object_object_get(o, "blind")));
	assert_string_equal(json_object_get_string(json_object_object_get(o, "blind_reason")),
			    b.reason);
	assert_int_equal(json_object_get_int64(json_object_object_get(o, "blind_since")),
			 1700000000LL * S);
	w = json_object_object_get(o, "worker");
	assert_string_equal(json_object_get_string(json_object_object_get(w, "last_error")),
			    b.reason);
	json_object_put(o);

	/* A worker that runs, on a session with a problem: the problem and its error. */
	x.worker.pid = 12;
	snprintf(x.fig.state, sizeof(x.fig.state), "reconnecting");
	snprintf(x.fig.problem, sizeof(x.fig.problem), "relayd unreachable");
	snprintf(x.fig.last_error, sizeof(x.fig.last_error), "connection refused");
	x.fig.problem_since = 1700000060LL * S;
	jank_fleet_figures_blind(&x, &b);
	assert_true(b.blind);
	assert_string_equal(b.reason, "relayd unreachable: connection refused");
	assert_int_equal(b.since, 1700000060LL * S);
	s = render_input(status_input_text, &x);
	assert_non_null(strstr(s, "\ninput u: reconnecting: relayd unreachable since 2023-11-14 "
				  "22:14:20.000 ("));
	free(s);

	/* Connected, or let go: not blind. */
	snprintf(x.fig.state, sizeof(x.fig.state), "connected");
	jank_fleet_figures_blind(&x, &b);
	assert_false(b.blind);
	assert_string_equal(b.reason, "");
	snprintf(x.fig.state, sizeof(x.fig.state), "let go");
	jank_fleet_figures_blind(&x, &b);
	assert_false(b.blind);
	o = jank_fleet_figures_json(&x);
	assert_false(json_object_get_boolean(json_object_object_get(o, "blind")));
	assert_false(json_object_object_get_ex(o, "blind_reason", NULL));
	json_object_put(o);
	jank_fleet_figures_fini(&x);
}

/* The head's count of blind inputs: each named with its reason, five at most. */
static void head_blind(void **state)
{
	struct jank_fleet_figures in[7];
	struct status s = { .inputs = in, .n = 7 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	for (int i = 0; i < 7; i++) {
		fleet_input(&in[i], 0, 2);
		snprintf(in[i].fig.url, sizeof(in[i].fig.url), "u%d", i);
		snprintf(in[i].fig.state, sizeof(in[i].fig.state), "%s",
			 i == 0 ? "connected" : "restarting");
		in[i].worker.failing = i > 0;
		snprintf(in[i].worker.error, sizeof(in[i].worker.error), "worker died %d", i);
		s.all.connected += i == 0;
		s.all.blind += status_is_blind(&in[i]);
	}
	assert_int_equal(s.all.blind, 6);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	status_blind_text(f, &s);
	fclose(f);
	assert_string_equal(buf, "inputs: 7, 1 connected, 6 BLIND (seeing no events; retrying):\n"
				 "  u1: restarting: worker died 1\n"
				 "  u2: restarting: worker died 2\n"
				 "  u3: restarting: worker died 3\n"
				 "  u4: restarting: worker died 4\n"
				 "  u5: restarting: worker died 5\n"
				 "  and 1 more (see below)\n");
	free(buf);
	s.n = 1;
	s.all.blind = 0;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	status_blind_text(f, &s);
	fclose(f);
	assert_string_equal(buf, "inputs: 1, 1 connected, none blind\n");
	free(buf);
	for (int i = 0; i < 7; i++)
		jank_fleet_figures_fini(&in[i]);
}

/* What capture_text() prints of the capturer's status `c`. */
static void check_capture(const struct jank_capturer_status *c, const char *expected)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	status_capture_text(f, c);
	fclose(f);
	assert_string_equal(buf, expected);
	free(buf);
}

static void capture(void **state)
{
	struct jank_capturer_status c = { .mode = JANK_CAPTURE_NONE };

	(void)state;
	check_capture(&c, "captures: off ([capture] mode = none)\n");
	c.mode = JANK_CAPTURE_SNAPSHOT;
	check_capture(&c, "captures: off (no rule says capture = yes)\n");
	c = (struct jank_capturer_status){ .mode = JANK_CAPTURE_SNAPSHOT,
					   .has_policy = true,
					   .dir = "/var/c",
					   .session_up = true,
					   .session = "jank-capture",
					   .stats = { .started = 3,
						      .joined = 1,
						      .completed = 2,
						      .failed = 1,
						      .bytes = 1048576 },
					   .reports = 1 };
	c.stats.refused[JANK_CAPTURE_REASON_COOLDOWN] = 5;
	c.stats.refused[JANK_CAPTURE_REASON_QUOTA] = 2;
	c.no_session = 4;
	check_capture(&c, "captures (snapshot, session jank-capture, in /var/c): 3 started, 1 "
			  "joined, 2 complete, 1 failed, 1.00 MiB on disk; refused: cooldown 5, "
			  "quota 2, no-session 4; 1 report written\n");
	/* A session that says less: no refusals at all. */
	c = (struct jank_capturer_status){
		.mode = JANK_CAPTURE_SNAPSHOT, .session_up = true, .session = "s", .dir = "d"
	};
	check_capture(&c, "captures (snapshot, session s, in d): 0 started, 0 joined, 0 "
			  "complete, 0 failed, 0 B on disk; 0 reports written\n");
	/* Rotation's counters, a capture in flight, the session down. */
	c = (struct jank_capturer_status){ .mode = JANK_CAPTURE_ROTATION,
					   .session_error = "no sessiond",
					   .dir = "d",
					   .stats = { .deleted = 4 },
					   .reports = 1,
					   .reports_without_path = 1,
					   .reports_failed = 3,
					   .rotation = true,
					   .chunks_kept = 6,
					   .chunks_deleted = 7,
					   .rotations_waited = 8,
					   .in_flight = "frame-42" };
	check_capture(&c, "captures (rotation, session none, in d): 0 started, 0 joined, 0 "
			  "complete, 0 failed, 0 B on disk, 4 deleted by the quota; 2 reports "
			  "written, 3 failed; chunks: 6 kept, 7 deleted; 8 waited for a scheduled "
			  "rotation; recording frame-42\n  the capture session is down: no "
			  "sessiond\n");
	c.rotations_retried = 1;
	c.rotation = false; /* snapshot mode: no chunks */
	check_capture(&c, "captures (rotation, session none, in d): 0 started, 0 joined, 0 "
			  "complete, 0 failed, 0 B on disk, 4 deleted by the quota; 2 reports "
			  "written, 3 failed; recording frame-42\n  the capture session is down: "
			  "no sessiond\n");
}

/* The "capture" object of the status JSON: every member, in its order. */
static void capture_json(void **state)
{
	struct jank_capturer_status c = { .mode = JANK_CAPTURE_ROTATION,
					  .has_policy = true,
					  .dir = "/var/c",
					  .session_up = true,
					  .session = "jank-capture",
					  .session_owned = true,
					  .session_recreated = 1,
					  .kernel = true,
					  .session_error = "",
					  .stats = { .started = 3, .bytes = 4096 },
					  .no_session = 2,
					  .reports = 1,
					  .rotation = true,
					  .chunks_kept = 6 };
	struct json_object *o;

	(void)state;
	c.stats.refused[JANK_CAPTURE_REASON_QUOTA] = 5;
	c.stats.episodes[JANK_CAPTURE_REASON_QUOTA] = 1;
	o = jank_capturer_status_to_json(&c);
	assert_non_null(o);
	assert_string_equal(
		json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
		"{\"mode\":\"rotation\",\"dir\":\"\\/var\\/c\",\"session\":\"jank-capture\","
		"\"session_owned\":true,\"session_recreated\":1,\"session_recreate_refused\":0,"
		"\"kernel\":true,\"started\":3,\"joined\":0,\"completed\":0,\"failed\":0,"
		"\"failure_episodes\":0,\"refused\":{\"cooldown\":0,\"max-per-hour\":0,"
		"\"disk-full\":0,\"quota\":5,\"error\":0,\"no-session\":2},"
		"\"refusal_episodes\":{\"cooldown\":0,\"max-per-hour\":0,\"disk-full\":0,"
		"\"quota\":1,\"error\":0},\"deleted\":0,\"deleted_bytes\":0,\"bytes\":4096,"
		"\"in_flight\":null,\"reports\":1,\"reports_without_path\":0,"
		"\"reports_failed\":0,\"chunks_kept\":6,\"chunks_deleted\":0,"
		"\"rotations_waited\":0,\"rotations_retried\":0}");
	json_object_put(o);
}

static void recent(void **state)
{
	struct jank_recent a = {
		.kind = JANK_VERDICT_OVERDUE,
		.suppressed = true,
		.end = 1700000000123456789,
		.duration = 250000000,
		.action = "frame",
		.key = "tid=7",
		.host = "web-1",
		.story = "tid 7 blocked 90%",
		.capture = "/c/frame-1",
	};
	struct jank_recent b = {
		.kind = JANK_VERDICT_COMPLETED,
		.end = 5000000000,
		.duration = 1500,
		.action = "io",
		.skipped_ns = 2000000,
	};
	const struct jank_recent *list[] = { &a, &b };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	status_recent_text(f, list, 0);
	status_recent_text(f, list, 2);
	fclose(f);
	assert_string_equal(buf,
			    "\nno jank yet\n"
			    "\nrecent janks, newest first:\n"
			    "  2023-11-14 22:13:20.123  frame [tid=7] on web-1  250 ms (overdue) "
			    "(suppressed)  tid 7 blocked 90%\n"
			    "      capture /c/frame-1\n"
			    "  5.000 s  io  1.50 us  \n"
			    "      2.00 ms of it skipped by a worker restart: path may be "
			    "incomplete\n");
	free(buf);
}

static void discovery(void **state)
{
	static char *hosts[] = { "web-*", "db-?" };
	struct jank_fleet_discovery d = { .relayd = "net://relay:5344",
					  .hosts = hosts,
					  .nhosts = 2,
					  .interval_ns = 2 * S,
					  .sessions_listed = 12,
					  .polls = 40,
					  .errors = 1,
					  .last_error = "refused" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	status_discovery_text(f, &d);
	d.last_error = "";
	d.sessions_refused = 3;
	d.max_inputs = 8;
	d.at_limit = true;
	status_discovery_text(f, &d);
	fclose(f);
	assert_string_equal(buf,
			    "discovery of net://relay:5344 (hosts web-*, db-?; sessions *): 12 "
			    "sessions listed, every 2 s, 40 polls, 1 failed (last error: "
			    "refused)\n"
			    "discovery of net://relay:5344 (hosts web-*, db-?; sessions *): 12 "
			    "sessions listed, every 2 s, 40 polls, 1 failed; 3 sessions not "
			    "watched past max-inputs 8 (at the limit now)\n");
	free(buf);
}

/* Per host: inputs, connected ones, events, and janks with the overdue. */
static void hosts(void **state)
{
	struct jank_fleet_figures in[4];
	static const char *const host[] = { "a", "b", NULL, "a" };
	static const char *const st[] = { "connected", "restarting", "connected", "connecting" };
	static const uint64_t events[] = { 10, 5, 1000, 1 }, janks[] = { 1, 0, 0, 4 };
	static const uint64_t overdue[] = { 2, 0, 0, 0 };
	struct totals t[4];
	struct status s = { .inputs = in, .n = 4, .hosts = t };
	struct json_object *h;

	(void)state;
	for (int i = 0; i < 4; i++) {
		fleet_input(&in[i], 0, 0);
		in[i].host = host[i];
		snprintf(in[i].fig.state, sizeof(in[i].fig.state), "%s", st[i]);
		in[i].fig.engine.events = events[i];
		in[i].fig.engine.janks = janks[i];
		in[i].fig.engine.overdue = overdue[i];
		status_add_host(&s, &in[i]);
	}
	/* An input without a host (none in a fleet) is left out. */
	assert_int_equal(s.nhosts, 2);
	h = status_hosts_json(&s);
	assert_string_equal(json_object_to_json_string_ext(h, JSON_C_TO_STRING_PLAIN),
			    "[{\"host\":\"a\",\"inputs\":2,\"connected\":1,\"events\":11,"
			    "\"janks\":7},{\"host\":\"b\",\"inputs\":1,\"connected\":0,"
			    "\"events\":5,\"janks\":0}]");
	json_object_put(h);
}

/* ---- The whole report, of a daemon context ---- */

struct fixture {
	struct jankd d;
	char *text;
};

static void no_verdict(const struct jank_fleet_input *in, const struct jank_verdict *v, void *data)
{
	(void)in;
	(void)v;
	(void)data;
}

static void no_change(void *data)
{
	(void)data;
}

static int setup(void **state)
{
	struct fixture *x = calloc(1, sizeof(*x));
	struct jank_alert_config ac = {
		.target = JANK_ALERT_STDERR,
		.rate_count = 5,
		.rate_period_ns = 60 * S,
	};
	static struct jank_config_sources src;

	if (!x)
		return -1;
	jank_config_init(&x->d.config);
	x->d.config.alerts.rate_limit_count = 5;
	x->d.config.alerts.rate_limit_period_ns = 60 * S;
	x->d.config.live.worker_timeout_ns = 10 * S;
	x->d.config_path = "/etc/jank/jankd.conf";
	x->d.target = JANK_ALERT_STDERR;
	x->d.start_mono = jank_clock_monotonic_ns() - 125 * S;
	x->d.start_real = jank_clock_realtime_ns() - 125 * S;
	x->d.base = event_base_new();
	x->d.alerter = jank_alerter_new(&ac);
	if (!x->d.base || !x->d.alerter)
		return -1;
	x->d.fleet = jank_fleet_new(x->d.base, no_verdict, no_change, x);
	if (!x->d.fleet || jank_fleet_set_config(x->d.fleet, &x->d.config, &src) < 0 ||
	    jank_fleet_add_url(x->d.fleet, "net://relay/host/web-1/jank") < 0 ||
	    jank_fleet_add_url(x->d.fleet, "net://relay/host/web-2/jank") < 0)
		return -1;
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *x = *state;

	free(x->text);
	jank_fleet_free(x->d.fleet);
	jank_alerter_free(x->d.alerter);
	event_base_free(x->d.base);
	jank_config_fini(&x->d.config);
	free(x);
	return 0;
}

static int64_t field_i64(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v))
		fail_msg("no \"%s\"", k);
	return json_object_get_int64(v);
}

static const char *field_str(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v))
		fail_msg("no \"%s\"", k);
	return json_object_get_string(v);
}

static void status_json(void **state)
{
	struct fixture *x = *state;
	struct json_object *o = jank_status_json(&x->d), *al, *in, *h;

	assert_non_null(o);
	assert_string_equal(field_str(o, "type"), "status");
	assert_string_equal(field_str(o, "version"), JANK_VERSION);
	assert_int_equal(field_i64(o, "pid"), getpid());
	assert_string_equal(field_str(o, "config"), "/etc/jank/jankd.conf");
	assert_true(field_i64(o, "uptime_ns") >= 125 * S && field_i64(o, "uptime_ns") < 185 * S);
	assert_false(json_object_get_boolean(json_object_object_get(o, "ready")));
	assert_int_equal(field_i64(o, "inputs_connected"), 0);
	assert_int_equal(field_i64(o, "events"), 0);
	assert_int_equal(field_i64(o, "janks"), 0);
	assert_true(field_i64(o, "rss_bytes") > 0);
	al = json_object_object_get(o, "alerts");
	assert_string_equal(field_str(al, "target"), "stderr");
	assert_int_equal(field_i64(al, "rate_limit_count"), 5);
	assert_int_equal(field_i64(al, "rate_limit_period_ns"), 60 * S);
	assert_int_equal(field_i64(al, "sent"), 0);
	/* No capturer: no "capture". */
	assert_false(json_object_object_get_ex(o, "capture", NULL));
	assert_int_equal(field_i64(json_object_object_get(o, "fleet"), "workers"), 0);
	in = json_object_object_get(o, "inputs");
	assert_int_equal(json_object_array_length(in), 2);
	assert_string_equal(field_str(json_object_array_get_idx(in, 1), "host"), "web-2");
	assert_string_equal(field_str(json_object_array_get_idx(in, 1), "state"), "connecting");
	assert_int_equal(field_i64(o, "inputs_blind"), 2);
	assert_true(json_object_get_boolean(
		json_object_object_get(json_object_array_get_idx(in, 1), "blind")));
	assert_string_equal(field_str(json_object_array_get_idx(in, 1), "blind_reason"), "");
	h = json_object_object_get(o, "hosts");
	assert_int_equal(json_object_array_length(h), 2);
	assert_string_equal(field_str(json_object_array_get_idx(h, 0), "host"), "web-1");
	assert_int_equal(field_i64(json_object_array_get_idx(h, 0), "inputs"), 1);
	assert_int_equal(json_object_array_length(json_object_object_get(o, "recent")), 0);
	json_object_put(o);
}

static void status_text(void **state)
{
	struct fixture *x = *state;
	char head[256];

	x->text = jank_status_text(&x->d);
	assert_non_null(x->text);
	/* Up 125 s when the context was made, a little more now. */
	snprintf(head, sizeof(head), "jankd %s (pid %ld), up 2m 0", JANK_VERSION, (long)getpid());
	assert_memory_equal(x->text, head, strlen(head));
	assert_non_null(strchr("567", x->text[strlen(head)]));
	/* Second: how many inputs are blind, and each one (no reason yet: connecting). */
	assert_non_null(strstr(x->text,
			       "s, config /etc/jank/jankd.conf\n"
			       "inputs: 2, 0 connected, 2 BLIND (seeing no events; retrying):\n"
			       "  net://relay/host/web-1/jank: connecting\n"
			       "  net://relay/host/web-2/jank: connecting\n"
			       "events 0 (0.0/s), actions 0, janks 0, overdue 0, discarded "
			       "events 0\ngraph memory 0 B, RSS "));
	assert_non_null(strstr(x->text, "\nalerts to stderr: 0 sent, 0 suppressed (0 summaries), "
					"rate limit 5 per 60 s\nreloads 0, rejected 0\n"));
	assert_non_null(strstr(x->text,
			       "\nhost web-1: 1 input, 0 connected, 0 events, 0 janks\n"
			       "\ninput net://relay/host/web-1/jank: connecting (worker pid "
			       "0)\n"));
	assert_non_null(strstr(x->text, "\nhost web-2: 1 input, 0 connected, 0 events, 0 janks\n"));
	assert_null(strstr(x->text, "captures"));
	assert_null(strstr(x->text, "discovery"));
	assert_non_null(strstr(x->text, "\nno jank yet\n"));
	assert_int_equal(x->text[strlen(x->text) - 1], '\n');
}

static void status_line(void **state)
{
	struct fixture *x = *state;
	char line[512], small[16];

	jank_status_line(&x->d, line, sizeof(line));
	assert_string_equal(line, "inputs 0/2 connected, 0 events/s, 0 events, 0 actions, 0 janks, "
				  "0 alerts suppressed, 0 events discarded, graph 0 B; 2 blind: "
				  "net://relay/host/web-1/jank: connecting");
	/* Cut, never overflowed. */
	jank_status_line(&x->d, small, sizeof(small));
	assert_string_equal(small, "inputs 0/2 conn");
}

static void status_metrics(void **state)
{
	struct fixture *x = *state;
	size_t len = 0;

	x->text = jank_status_metrics(&x->d, JANK_METRICS_PROMETHEUS, &len);
	assert_non_null(x->text);
	assert_int_equal(len, strlen(x->text));
	assert_non_null(strstr(x->text, "net://relay/host/web-2/jank"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bytes),
		cmocka_unit_test(uptime),
		cmocka_unit_test(trace_clock),
		cmocka_unit_test(worker),
		cmocka_unit_test(input),
		cmocka_unit_test(input_error),
		cmocka_unit_test(input_blind),
		cmocka_unit_test(head_blind),
		cmocka_unit_test(capture),
		cmocka_unit_test(capture_json),
		cmocka_unit_test(recent),
		cmocka_unit_test(discovery),
		cmocka_unit_test(hosts),
		cmocka_unit_test_setup_teardown(status_json, setup, teardown),
		cmocka_unit_test_setup_teardown(status_text, setup, teardown),
		cmocka_unit_test_setup_teardown(status_line, setup, teardown),
		cmocka_unit_test_setup_teardown(status_metrics, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
