/* SPDX-License-Identifier: MIT */
/*
 * daemon/fleet/fleet.c: jankd's inputs as the supervisor keeps them, without
 * worker processes. The test reaches the fleet's message handlers through
 * its internal header (fleet-int.h), so that it plays the workers'
 * messages (status, verdict, log, sessions) into them;
 * jank_worker_proc_start and jank_worker_proc_running are wrapped (-Wl,--wrap): no
 * process is ever spawned.
 */
#include "fleet-int.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define S 1000000000LL

/* ---- Fakes ---- */

static unsigned proc_starts;
static bool procs_running;

int __wrap_jank_worker_proc_start(struct jank_proc *p);
int __wrap_jank_worker_proc_start(struct jank_proc *p)
{
	(void)p;
	proc_starts++;
	return 0;
}

/* The worker whose frame could not be read: what it sent, and how often. */
static unsigned refusals;
static char refused_what[512];

void __wrap_jank_worker_proc_refuse(struct jank_proc *p, const char *what);
void __wrap_jank_worker_proc_refuse(struct jank_proc *p, const char *what)
{
	(void)p;
	refusals++;
	snprintf(refused_what, sizeof(refused_what), "%s", what);
}

bool __wrap_jank_worker_proc_running(const struct jank_proc *p);
bool __wrap_jank_worker_proc_running(const struct jank_proc *p)
{
	(void)p;
	return procs_running;
}

struct fixture {
	struct event_base *base;
	struct jank_fleet *f;
	struct jank_config c;
	struct jank_config_sources src;
	char *hosts[1], *sessions[1];
	unsigned changes;
	unsigned verdicts;
	char last_key[64];
	unsigned logs;
	int log_priority;
	char log_line[512];
};

static void on_verdict_cb(const struct jank_fleet_input *in, const struct jank_verdict *v,
			  void *data)
{
	struct fixture *x = data;

	assert_non_null(in);
	x->verdicts++;
	snprintf(x->last_key, sizeof(x->last_key), "%s", v->key);
}

static void on_change_cb(void *data)
{
	struct fixture *x = data;

	x->changes++;
}

static void log_sink(int priority, const char *line, void *data)
{
	struct fixture *x = data;

	x->logs++;
	x->log_priority = priority;
	snprintf(x->log_line, sizeof(x->log_line), "%s", line);
}

static int setup(void **state)
{
	struct fixture *x = calloc(1, sizeof(*x));

	if (!x)
		return -1;
	proc_starts = 0;
	procs_running = false;
	refusals = 0;
	refused_what[0] = '\0';
	x->base = event_base_new();
	if (!x->base)
		return -1;
	jank_config_init(&x->c);
	x->c.live.worker_timeout_ns = 10 * S;
	x->c.live.timer_ns = S;
	x->f = jank_fleet_new(x->base, on_verdict_cb, on_change_cb, x);
	if (!x->f || jank_fleet_set_config(x->f, &x->c, &x->src) < 0)
		return -1;
	jank_log_set_sink(log_sink, x);
	*state = x;
	return 0;
}

/* With [live] discover net://relay:5344, hosts web-*, sessions jank*. */
static int setup_discovery(void **state)
{
	struct fixture *x;

	if (setup(state) < 0)
		return -1;
	x = *state;
	snprintf(x->c.live.discover, sizeof(x->c.live.discover), "net://relay:5344");
	x->hosts[0] = "web-*";
	x->sessions[0] = "jank*";
	x->c.live.hosts = x->hosts;
	x->c.live.nhosts = 1;
	x->c.live.sessions = x->sessions;
	x->c.live.nsessions = 1;
	x->c.live.discover_interval_ns = 2 * S;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *x = *state;

	jank_log_set_sink(NULL, NULL);
	jank_fleet_free(x->f);
	x->c.live.hosts = x->c.live.sessions = NULL;
	x->c.live.nhosts = x->c.live.nsessions = 0;
	jank_config_fini(&x->c);
	event_base_free(x->base);
	free(x);
	return 0;
}

static struct json_object *parse(const char *text)
{
	struct json_object *o = json_tokener_parse(text);

	assert_non_null(o);
	return o;
}

/* Play a message of the worker of input i. */
static void from_worker(struct fixture *x, size_t i, const char *text)
{
	struct json_object *msg = parse(text);
	struct jank_fleet_input *in = x->f->inputs[i];

	fleet_input_message(in->proc, msg, in);
	json_object_put(msg);
}

/* Figures as a worker of input "net://r/host/h/s" makes them (no rule). */
static void figures(struct jank_input_figures *f, const char *state, bool attached, uint64_t events)
{
	jank_input_figures_init(f);
	f->reported = f->counted = true;
	snprintf(f->url, sizeof(f->url), "net://r/host/h/s");
	snprintf(f->state, sizeof(f->state), "%s", state);
	f->attached = attached;
	f->engine.events = events;
}

/* With one rule, "frame": `count` actions of 1 ms, `janks` of them janks. */
static void frame_rule(struct jank_input_figures *f, uint64_t count, uint64_t janks)
{
	assert_int_equal(jank_input_figures_set_rules(f, 1), 0);
	snprintf(f->rules[0].action, sizeof(f->rules[0].action), "frame");
	for (uint64_t i = 0; i < count; i++)
		jank_histogram_add(&f->rules[0].hist, 1000000);
	f->rules[0].count = count;
	f->rules[0].stats.janks = janks;
}

/* Play a status message of the worker of input i, with figures `f` (freed). */
static void status_from_worker(struct fixture *x, size_t i, struct jank_input_figures *f)
{
	struct json_object *msg = json_object_new_object();

	assert_non_null(msg);
	json_object_object_add(msg, "type", json_object_new_string("status"));
	json_object_object_add(msg, "input", jank_input_figures_json(f));
	/* As it travels: printed, then parsed. */
	from_worker(x, i, json_object_to_json_string_ext(msg, JSON_C_TO_STRING_PLAIN));
	json_object_put(msg);
	jank_input_figures_fini(f);
}

/* Play a message of the discovery worker. */
static void from_discovery(struct fixture *x, const char *text)
{
	struct json_object *msg = parse(text);

	fleet_discovery_message(x->f->discovery, msg, x->f);
	json_object_put(msg);
}

/* A new worker for input i: the supervisor makes its start message. */
static struct json_object *restart(struct fixture *x, size_t i)
{
	struct jank_fleet_input *in = x->f->inputs[i];

	return fleet_input_start_msg(in->proc, in);
}

static int64_t num(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v))
		fail_msg("no \"%s\"", k);
	return json_object_get_int64(v);
}

static const char *str(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v))
		fail_msg("no \"%s\"", k);
	return json_object_get_string(v);
}

static struct json_object *input_json(struct fixture *x, size_t i)
{
	struct json_object *o = jank_fleet_input_json(jank_fleet_get(x->f, i));

	assert_non_null(o);
	return o;
}

/* ---- Inputs ---- */

static void add_url(void **state)
{
	struct fixture *x = *state;
	const struct jank_fleet_input *in;
	struct json_object *o, *w;
	size_t waiting = 99;

	assert_int_equal(jank_fleet_add_url(x->f, "net://relay:5344/host/web-1/jank"), 0);
	assert_int_equal(jank_fleet_count(x->f), 1);
	in = jank_fleet_get(x->f, 0);
	assert_non_null(in);
	assert_null(jank_fleet_get(x->f, 1));
	assert_string_equal(jank_fleet_input_url(in), "net://relay:5344/host/web-1/jank");
	assert_string_equal(jank_fleet_input_host(in), "web-1");
	assert_string_equal(jank_fleet_input_session(in), "jank");
	assert_false(jank_fleet_input_attached(in));
	assert_string_equal(jank_fleet_input_state(in), "connecting");
	assert_false(jank_fleet_ready(x->f, &waiting));
	assert_int_equal(waiting, 1);
	assert_false(jank_fleet_discovering(x->f));

	o = input_json(x, 0);
	assert_string_equal(str(o, "url"), "net://relay:5344/host/web-1/jank");
	assert_string_equal(str(o, "state"), "connecting");
	assert_string_equal(str(o, "host"), "web-1");
	assert_string_equal(str(o, "session"), "jank");
	assert_false(json_object_get_boolean(json_object_object_get(o, "discovered")));
	assert_false(json_object_get_boolean(json_object_object_get(o, "attached")));
	assert_int_equal(num(o, "duplicates_dropped"), 0);
	assert_int_equal(json_object_array_length(json_object_object_get(o, "rules")), 0);
	w = json_object_object_get(o, "worker");
	assert_int_equal(num(w, "pid"), 0);
	assert_int_equal(num(w, "starts"), 0);
	assert_int_equal(num(w, "restarts"), 0);
	json_object_put(o);

	/* A session name may hold a slash: all after the host is the session. */
	assert_int_equal(jank_fleet_add_url(x->f, "net://r/host/h/a/b"), 0);
	assert_string_equal(jank_fleet_input_host(jank_fleet_get(x->f, 1)), "h");
	assert_string_equal(jank_fleet_input_session(jank_fleet_get(x->f, 1)), "a/b");
	assert_int_equal(jank_fleet_count(x->f), 2);
}

static void bad_url(void **state)
{
	struct fixture *x = *state;

	assert_true(jank_fleet_add_url(x->f, "net://relay:5344/jank") < 0);
	assert_true(jank_fleet_add_url(x->f, "net://relay:5344/host/web-1") < 0);
	assert_int_equal(jank_fleet_count(x->f), 0);
}

static void fleet_json_plain(void **state)
{
	struct fixture *x = *state;
	struct json_object *o;

	assert_int_equal(jank_fleet_add_url(x->f, "net://r/host/h/s"), 0);
	o = jank_fleet_json(x->f);
	assert_int_equal(num(o, "workers"), 0);
	assert_int_equal(num(o, "restarts"), 0);
	assert_int_equal(num(o, "crashes"), 0);
	assert_int_equal(num(o, "timeouts"), 0);
	assert_int_equal(num(o, "duplicates_dropped"), 0);
	assert_int_equal(num(o, "worker_timeout_ns"), 10 * S);
	assert_false(json_object_object_get_ex(o, "discovery", NULL));
	json_object_put(o);
}

/* ---- What the workers say ---- */

static void status_attaches(void **state)
{
	struct fixture *x = *state;
	struct jank_input_figures f;
	size_t waiting;

	assert_int_equal(jank_fleet_add_url(x->f, "net://r/host/h/s"), 0);
	assert_int_equal(jank_fleet_start(x->f), 0);
	assert_int_equal(proc_starts, 1);
	procs_running = true;
	/* A status without its input object changes nothing. */
	from_worker(x, 0, "{\"type\": \"status\"}");
	assert_string_equal(jank_fleet_input_state(jank_fleet_get(x->f, 0)), "connecting");
	figures(&f, "connecting", false, 0);
	status_from_worker(x, 0, &f);
	assert_int_equal(x->changes, 0);
	assert_false(jank_fleet_input_attached(jank_fleet_get(x->f, 0)));
	figures(&f, "connected", true, 7);
	status_from_worker(x, 0, &f);
	assert_int_equal(x->changes, 1);
	assert_true(jank_fleet_input_attached(jank_fleet_get(x->f, 0)));
	assert_string_equal(jank_fleet_input_state(jank_fleet_get(x->f, 0)), "connected");
	assert_int_equal(jank_fleet_input_status(jank_fleet_get(x->f, 0))->engine.events, 7);
	assert_true(jank_fleet_ready(x->f, &waiting));
	assert_int_equal(waiting, 0);
	/* Attached once: no second change, even after a reconnection. */
	figures(&f, "reconnecting", true, 9);
	status_from_worker(x, 0, &f);
	assert_int_equal(x->changes, 1);
	assert_string_equal(jank_fleet_input_state(jank_fleet_get(x->f, 0)), "reconnecting");
	/* No worker running: its last word no longer holds. */
	procs_running = false;
	assert_string_equal(jank_fleet_input_state(jank_fleet_get(x->f, 0)), "connecting");
}

/* Figures that cannot be read cost the worker a restart, and change nothing. */
static void status_unreadable(void **state)
{
	struct fixture *x = *state;
	struct jank_input_figures f;

	assert_int_equal(jank_fleet_add_url(x->f, "net://r/host/h/s"), 0);
	procs_running = true;
	figures(&f, "connected", true, 7);
	status_from_worker(x, 0, &f);
	x->logs = 0;
	/* A figure missing: not a silent 0. */
	from_worker(x, 0, "{\"type\": \"status\", \"input\": {\"state\": \"connected\"}}");
	assert_int_equal(refusals, 1);
	assert_string_equal(refused_what, "a status that cannot be read (input.url: missing)");
	from_worker(x, 0, "{\"type\": \"status\", \"input\": 3}");
	assert_int_equal(refusals, 2);
	assert_string_equal(refused_what, "a status that cannot be read (input: not an object)");
	assert_int_equal(jank_fleet_input_status(jank_fleet_get(x->f, 0))->engine.events, 7);
	/* What json-c asserts on (an array call on a number): refused, not an abort. */
	from_worker(x, 0,
		    "{\"type\": \"status\", \"input\": {\"rules\": [{\"histogram\": "
		    "{\"sum\": 0, \"min\": 0, \"max\": 0, \"buckets\": [5]}}]}}");
	assert_int_equal(refusals, 3);
	assert_int_equal(jank_fleet_input_status(jank_fleet_get(x->f, 0))->engine.events, 7);
	assert_int_equal(x->logs, 0); /* jank_worker_proc_refuse() logs */
	jank_input_figures_fini(&f);
}

/* A restarted worker starts from zero: the input's figures go on from the past ones. */
static void restart_folds(void **state)
{
	struct fixture *x = *state;
	struct json_object *start, *o;
	struct jank_input_figures f;

	assert_int_equal(jank_fleet_add_url(x->f, "net://r/host/h/s"), 0);
	procs_running = true;
	start = restart(x, 0);
	assert_string_equal(str(start, "type"), "start");
	assert_string_equal(str(start, "mode"), "input");
	assert_string_equal(str(start, "url"), "net://r/host/h/s");
	assert_int_equal(num(start, "margin_ns"), S);
	assert_true(json_object_is_type(json_object_object_get(start, "config"), json_type_array));
	json_object_put(start);
	figures(&f, "connected", true, 100);
	f.engine.janks = 3;
	f.engine.actions_open = 4;
	frame_rule(&f, 10, 3);
	status_from_worker(x, 0, &f);
	/* The worker dies; the new one is started. */
	json_object_put(restart(x, 0));
	assert_string_equal(jank_fleet_input_state(jank_fleet_get(x->f, 0)), "connecting");
	o = input_json(x, 0);
	assert_int_equal(num(o, "events"), 100);
	assert_int_equal(num(o, "janks"), 3);
	/* A gauge of a dead worker is no longer: actions_open is not carried over. */
	assert_false(json_object_object_get_ex(o, "actions_open", NULL));
	json_object_put(o);
	figures(&f, "connected", true, 5);
	f.engine.janks = 1;
	f.engine.actions_open = 1;
	frame_rule(&f, 2, 1);
	status_from_worker(x, 0, &f);
	o = input_json(x, 0);
	assert_int_equal(num(o, "events"), 105);
	assert_int_equal(num(o, "janks"), 4);
	assert_int_equal(num(o, "actions_open"), 1);
	assert_int_equal(
		num(json_object_array_get_idx(json_object_object_get(o, "rules"), 0), "count"), 12);
	json_object_put(o);
	/* Two restarts in a row, the second worker silent: nothing counted twice. */
	json_object_put(restart(x, 0));
	json_object_put(restart(x, 0));
	o = input_json(x, 0);
	assert_int_equal(num(o, "events"), 105);
	assert_int_equal(num(o, "janks"), 4);
	json_object_put(o);
}

static const char verdict_msg[] =
	"{\"type\": \"verdict\", \"verdict\": {\"action\": \"frame\", \"key\": \"tid=1\","
	" \"kind\": \"completed\", \"begin\": 1000, \"end\": 2000, \"duration_ns\": 1000,"
	" \"tid\": 1, \"pid\": 1, \"comm\": \"app\"}}";

/* A verdict read again by a new worker is dropped, and counted. */
static void verdicts_once(void **state)
{
	struct fixture *x = *state;
	struct json_object *o;

	assert_int_equal(jank_fleet_add_url(x->f, "net://r/host/h/s"), 0);
	from_worker(x, 0, verdict_msg);
	assert_int_equal(x->verdicts, 1);
	assert_string_equal(x->last_key, "tid=1");
	json_object_put(restart(x, 0));
	from_worker(x, 0, verdict_msg);
	assert_int_equal(x->verdicts, 1);
	o = input_json(x, 0);
	assert_int_equal(num(o, "duplicates_dropped"), 1);
	json_object_put(o);
	o = jank_fleet_json(x->f);
	assert_int_equal(num(o, "duplicates_dropped"), 1);
	json_object_put(o);
	/* One that cannot be read is not alerted: the worker is restarted. */
	from_worker(x, 0, "{\"type\": \"verdict\", \"verdict\": {\"action\": \"frame\"}}");
	assert_int_equal(x->verdicts, 1);
	assert_int_equal(refusals, 1);
	assert_string_equal(refused_what, "a verdict that cannot be read (key: missing)");
	from_worker(x, 0, "{\"type\": \"verdict\", \"verdict\": []}");
	assert_int_equal(refusals, 2);
	assert_string_equal(refused_what, "a verdict that cannot be read (verdict: not an object)");
	from_worker(x, 0, "{\"type\": \"verdict\", \"first_event_ns\": \"1\", \"verdict\": {}}");
	assert_int_equal(refusals, 3);
	assert_string_equal(refused_what,
			    "a verdict that cannot be read (first_event_ns: not an integer)");
	/* A worker's frame is not trusted: a path segment that ends before it begins. */
	from_worker(x, 0,
		    "{\"type\": \"verdict\", \"verdict\": {\"action\": \"frame\", \"key\": "
		    "\"tid=2\", \"begin\": 1000, \"end\": 2000, \"tid\": 1, \"critical_path\": "
		    "[{\"tid\": 1, \"state\": \"running\", \"begin\": 1500, \"end\": 1200}]}}");
	assert_int_equal(x->verdicts, 1);
	assert_int_equal(refusals, 4);
	assert_string_equal(refused_what, "a verdict that cannot be read (critical_path[0].end: "
					  "1200 is before its begin, 1500)");
}

/* A worker's log line is logged by the supervisor, at its priority. */
static void worker_log(void **state)
{
	struct fixture *x = *state;

	assert_int_equal(jank_fleet_add_url(x->f, "net://r/host/h/s"), 0);
	from_worker(x, 0, "{\"type\": \"log\", \"priority\": 4, \"message\": \"hello\"}");
	assert_int_equal(x->logs, 1);
	assert_int_equal(x->log_priority, 4);
	assert_string_equal(x->log_line, "hello");
	/* Without a priority: info. Without a message: the worker is restarted. */
	from_worker(x, 0, "{\"type\": \"log\", \"message\": \"again\"}");
	assert_int_equal(x->log_priority, LOG_INFO);
	assert_int_equal(refusals, 0);
	from_worker(x, 0, "{\"type\": \"log\"}");
	assert_int_equal(x->logs, 2);
	assert_int_equal(refusals, 1);
	/* So is one of a type no worker sends. */
	from_worker(x, 0, "{\"type\": \"nonsense\", \"message\": \"x\"}");
	assert_int_equal(x->logs, 2);
	assert_int_equal(refusals, 2);
	assert_string_equal(refused_what, "a message of no type an input's worker sends");
}

/* A worker's fetch: the build-id, checked, goes to the fetcher; without one, nothing. */
static uint8_t fetched_id[64];
static size_t fetched_len, fetches;

static void record_fetch(const uint8_t *id, size_t len, void *data)
{
	(void)data;
	memcpy(fetched_id, id, len);
	fetched_len = len;
	fetches++;
}

static void worker_fetch(void **state)
{
	static const uint8_t want[] = {
		0x20, 0x70, 0x40, 0x63, 0xb3, 0x6d, 0xce, 0x3d, 0x25, 0x51
	};
	struct fixture *x = *state;

	fetches = 0;
	assert_int_equal(jank_fleet_add_url(x->f, "net://r/host/h/s"), 0);
	/* No fetcher (no [symbols] debuginfod-urls): taken, and nothing done. */
	from_worker(x, 0, "{\"type\": \"fetch\", \"build_id\": \"20704063b36dce3d2551\"}");
	assert_int_equal(fetches, 0);
	assert_int_equal(refusals, 0);
	jank_fleet_set_fetch(x->f, record_fetch, NULL);
	from_worker(x, 0, "{\"type\": \"fetch\", \"build_id\": \"20704063b36dce3d2551\"}");
	assert_int_equal(fetches, 1);
	assert_int_equal(fetched_len, sizeof(want));
	assert_memory_equal(fetched_id, want, sizeof(want));
	/* Not lowercase hex of 8 to 64 bytes, not a string, missing: refused, not fetched. */
	static const char *const bad[] = {
		"{\"type\": \"fetch\", \"build_id\": \"20704063B36DCE3D2551\"}",
		"{\"type\": \"fetch\", \"build_id\": \"2070406\"}",
		"{\"type\": \"fetch\", \"build_id\": \"20704063b36dce3\"}",
		"{\"type\": \"fetch\", \"build_id\": \"20704063b36dce3d255g\"}",
		"{\"type\": \"fetch\", \"build_id\": \"../../etc/passwd\"}",
		"{\"type\": \"fetch\", \"build_id\": 12345678901234567890}",
		"{\"type\": \"fetch\"}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		from_worker(x, 0, bad[i]);
		assert_int_equal(refusals, i + 1);
	}
	assert_int_equal(fetches, 1);
	assert_string_equal(refused_what, "a fetch that cannot be read (build_id: missing)");
	{
		char big[2 * 65 + 64];

		snprintf(big, sizeof(big), "{\"type\": \"fetch\", \"build_id\": \"%0130d\"}", 0);
		from_worker(x, 0, big);
		assert_int_equal(fetches, 1);
	}
}

/* ---- Discovery ---- */

static void patterns(void **state)
{
	char *pats[] = { "web-*", "db-[0-9]" };

	(void)state;
	assert_true(fleet_match_any(pats, 0, "anything"));
	assert_true(fleet_match_any(pats, 2, "web-1"));
	assert_true(fleet_match_any(pats, 2, "web-"));
	assert_true(fleet_match_any(pats, 2, "db-7"));
	assert_false(fleet_match_any(pats, 2, "db-12"));
	assert_false(fleet_match_any(pats, 2, "xweb-1"));
	assert_false(fleet_match_any(pats, 1, "db-7"));
}

static const char list_all[] = "{\"type\": \"sessions\", \"ok\": true, \"sessions\": ["
			       "[\"web-1\", \"jank\"], [\"db-1\", \"jank\"],"
			       " [\"web-2\", \"other\"], [\"web-3\", \"jank-2\"]]}";

static void discover(void **state)
{
	struct fixture *x = *state;
	struct json_object *o, *d;
	size_t waiting;

	assert_true(jank_fleet_discovering(x->f));
	assert_int_equal(jank_fleet_start(x->f), 0);
	assert_int_equal(proc_starts, 1); /* the discovery worker */
	assert_false(jank_fleet_ready(x->f, &waiting));
	assert_int_equal(waiting, 0);
	/* Its heartbeat (a status with nothing else) is no bad frame. */
	refusals = 0;
	from_discovery(x, "{\"type\": \"status\"}");
	assert_int_equal(refusals, 0);
	from_discovery(x, list_all);
	assert_int_equal(x->changes, 1);
	assert_int_equal(jank_fleet_count(x->f), 2);
	assert_int_equal(proc_starts, 3);
	assert_string_equal(jank_fleet_input_url(jank_fleet_get(x->f, 0)),
			    "net://relay:5344/host/web-1/jank");
	assert_string_equal(jank_fleet_input_url(jank_fleet_get(x->f, 1)),
			    "net://relay:5344/host/web-3/jank-2");
	o = input_json(x, 1);
	assert_true(json_object_get_boolean(json_object_object_get(o, "discovered")));
	assert_string_equal(str(o, "host"), "web-3");
	assert_string_equal(str(o, "session"), "jank-2");
	json_object_put(o);
	/* Listed and found, but not attached yet. */
	assert_false(jank_fleet_ready(x->f, &waiting));
	assert_int_equal(waiting, 2);
	/* The same list again: nothing new, no second change. */
	from_discovery(x, list_all);
	assert_int_equal(jank_fleet_count(x->f), 2);
	assert_int_equal(proc_starts, 3);
	assert_int_equal(x->changes, 1);

	o = jank_fleet_json(x->f);
	d = json_object_object_get(o, "discovery");
	assert_non_null(d);
	assert_string_equal(str(d, "relayd"), "net://relay:5344");
	assert_string_equal(json_object_to_json_string(json_object_object_get(d, "hosts")),
			    "[ \"web-*\" ]");
	assert_string_equal(json_object_to_json_string(json_object_object_get(d, "sessions")),
			    "[ \"jank*\" ]");
	assert_int_equal(num(d, "interval_ns"), 2 * S);
	assert_true(json_object_get_boolean(json_object_object_get(d, "listed")));
	assert_int_equal(num(d, "polls"), 2);
	assert_int_equal(num(d, "errors"), 0);
	assert_int_equal(num(d, "sessions_listed"), 4);
	assert_false(json_object_object_get_ex(d, "last_error", NULL));
	json_object_put(o);
}

/* A session missing from two lists in a row is let go; one list is not enough. */
static void let_go_after_two(void **state)
{
	struct fixture *x = *state;
	static const char without_web3[] = "{\"type\": \"sessions\", \"ok\": true, \"sessions\": "
					   "[[\"web-1\", \"jank\"]]}";
	size_t waiting;

	assert_int_equal(jank_fleet_add_url(x->f, "net://relay:5344/host/web-9/jank"), 0);
	assert_int_equal(jank_fleet_start(x->f), 0);
	from_discovery(x, list_all);
	assert_int_equal(jank_fleet_count(x->f), 3);
	from_discovery(x, without_web3);
	from_discovery(x, list_all);
	from_discovery(x, without_web3);
	assert_string_equal(jank_fleet_input_state(jank_fleet_get(x->f, 2)), "connecting");
	x->logs = 0;
	from_discovery(x, without_web3);
	assert_string_equal(jank_fleet_input_state(jank_fleet_get(x->f, 2)), "let go");
	assert_int_equal(x->logs, 1);
	assert_int_equal(x->log_priority, LOG_NOTICE);
	assert_string_equal(x->log_line, "net://relay:5344/host/web-3/jank-2: relayd no longer "
					 "lists the session (destroyed): let go");
	/* An input let go is waited for by nobody. */
	jank_fleet_ready(x->f, &waiting);
	assert_int_equal(waiting, 2);
	/* Its worker is gone (it had none): freed by the next turn of the loop. */
	event_base_loop(x->base, EVLOOP_NONBLOCK);
	assert_int_equal(jank_fleet_count(x->f), 2);
	/* The input of [live] url is never let go, though no list has it. */
	assert_string_equal(jank_fleet_input_url(jank_fleet_get(x->f, 0)),
			    "net://relay:5344/host/web-9/jank");
	assert_string_equal(jank_fleet_input_url(jank_fleet_get(x->f, 1)),
			    "net://relay:5344/host/web-1/jank");
	/* It comes back: a new input. */
	from_discovery(x, list_all);
	assert_int_equal(jank_fleet_count(x->f), 3);
	assert_string_equal(jank_fleet_input_state(jank_fleet_get(x->f, 2)), "connecting");
}

static void discovery_errors(void **state)
{
	struct fixture *x = *state;
	struct json_object *o, *d;
	size_t waiting;

	assert_int_equal(jank_fleet_start(x->f), 0);
	from_discovery(x, "{\"type\": \"sessions\", \"ok\": false, \"error\": \"refused\"}");
	assert_int_equal(x->logs, 1);
	assert_int_equal(x->log_priority, LOG_WARNING);
	assert_string_equal(x->log_line, "discovery: cannot list the sessions of net://relay:5344: "
					 "refused; retrying");
	/* Logged once per outage; the error made one line. */
	from_discovery(x, "{\"type\": \"sessions\", \"ok\": false, \"error\": \"a\\nb\"}");
	assert_int_equal(x->logs, 1);
	assert_int_equal(x->changes, 0);
	assert_false(jank_fleet_ready(x->f, &waiting));
	o = jank_fleet_json(x->f);
	d = json_object_object_get(o, "discovery");
	assert_int_equal(num(d, "polls"), 2);
	assert_int_equal(num(d, "errors"), 2);
	assert_string_equal(str(d, "last_error"), "a\\x0ab");
	json_object_put(o);
	/* A list that cannot be read: the discovery worker is restarted, nothing counted. */
	from_discovery(x, "{\"type\": \"sessions\", \"ok\": true}");
	assert_int_equal(refusals, 1);
	assert_string_equal(refused_what,
			    "a list of sessions that cannot be read (sessions: missing)");
	from_discovery(x, "{\"type\": \"sessions\", \"ok\": true, \"sessions\": [5]}");
	assert_string_equal(refused_what,
			    "a list of sessions that cannot be read (sessions[0]: not an array)");
	from_discovery(x, "{\"type\": \"sessions\", \"ok\": true, \"sessions\": [[\"h\"]]}");
	assert_string_equal(refused_what, "a list of sessions that cannot be read (sessions[0]: 1 "
					  "elements, not 2)");
	from_discovery(x, "{\"type\": \"sessions\", \"ok\": true, \"sessions\": [[\"h\", 5]]}");
	assert_string_equal(
		refused_what,
		"a list of sessions that cannot be read (sessions[0][1]: not a string)");
	from_discovery(x, "{\"type\": \"sessions\", \"ok\": true, \"sessions\": [[\"h\", "
			  "\"../s\"]]}");
	assert_string_equal(
		refused_what,
		"a list of sessions that cannot be read (sessions[0][1]: not a name (empty, "
		"a '/' or a control character))");
	from_discovery(x, "{\"type\": \"sessions\", \"ok\": 1}");
	assert_int_equal(refusals, 6);
	assert_string_equal(refused_what,
			    "a list of sessions that cannot be read (ok: not true or false)");
	assert_int_equal(jank_fleet_count(x->f), 0);
	o = jank_fleet_json(x->f);
	d = json_object_object_get(o, "discovery");
	assert_int_equal(num(d, "polls"), 2);
	assert_false(json_object_get_boolean(json_object_object_get(d, "listed")));
	json_object_put(o);
	from_discovery(x, "{\"type\": \"sessions\", \"ok\": true, \"sessions\": []}");
	assert_int_equal(x->logs, 2);
	assert_int_equal(x->log_priority, LOG_NOTICE);
	assert_string_equal(x->log_line, "discovery: net://relay:5344 answers again");
	assert_int_equal(x->changes, 1);
	assert_true(jank_fleet_ready(x->f, &waiting));
	o = jank_fleet_json(x->f);
	d = json_object_object_get(o, "discovery");
	assert_false(json_object_object_get_ex(d, "last_error", NULL));
	assert_int_equal(num(d, "sessions_listed"), 0);
	json_object_put(o);
}

/* Stopping: no session listed then is watched. */
static void no_discovery_while_stopping(void **state)
{
	struct fixture *x = *state;

	assert_int_equal(jank_fleet_start(x->f), 0);
	jank_fleet_stop(x->f, 0);
	from_discovery(x, list_all);
	assert_int_equal(jank_fleet_count(x->f), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(add_url, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_url, setup, teardown),
		cmocka_unit_test_setup_teardown(fleet_json_plain, setup, teardown),
		cmocka_unit_test_setup_teardown(status_attaches, setup, teardown),
		cmocka_unit_test_setup_teardown(status_unreadable, setup, teardown),
		cmocka_unit_test_setup_teardown(restart_folds, setup, teardown),
		cmocka_unit_test_setup_teardown(verdicts_once, setup, teardown),
		cmocka_unit_test_setup_teardown(worker_log, setup, teardown),
		cmocka_unit_test_setup_teardown(worker_fetch, setup, teardown),
		cmocka_unit_test(patterns),
		cmocka_unit_test_setup_teardown(discover, setup_discovery, teardown),
		cmocka_unit_test_setup_teardown(let_go_after_two, setup_discovery, teardown),
		cmocka_unit_test_setup_teardown(discovery_errors, setup_discovery, teardown),
		cmocka_unit_test_setup_teardown(no_discovery_while_stopping, setup_discovery,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
