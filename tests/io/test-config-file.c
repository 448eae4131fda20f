/* SPDX-License-Identifier: MIT */
/*
 * io/config-file.c: the [capture] and [metrics] keys, [symbols] memory-limit, [live] discovery
 * and [flow NAME] (the
 * other sections are tested end to end through jankctl,
 * tests/trace/test-config.sh).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "config-file.h"

#define S   1000000000LL
#define MiB (1024ull * 1024)
/* 2024-05-01T12:00:00Z */
#define T0 (1714564800LL * S)

/* [capture] min-free in the config file. */
static void config_min_free(void **state)
{
	struct jank_config c;
	char err[512];

	(void)state;
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[capture]\nmode = snapshot\n", err,
						 sizeof(err)),
			 0);
	assert_int_equal(c.capture.min_free, 0);
	assert_true(c.capture.min_free_percent == 5.0);
	jank_config_fini(&c);
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[capture]\nmin-free = 2.5%\n", err,
						 sizeof(err)),
			 0);
	assert_true(c.capture.min_free_percent == 2.5);
	jank_config_fini(&c);
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[capture]\nmin-free = 1GiB\n", err,
						 sizeof(err)),
			 0);
	assert_int_equal(c.capture.min_free, 1024 * MiB);
	assert_true(c.capture.min_free_percent == 0);
	jank_config_fini(&c);
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[capture]\nmin-free = 0\n", err,
						 sizeof(err)),
			 0);
	assert_int_equal(c.capture.min_free, 0);
	assert_true(c.capture.min_free_percent == 0);
	jank_config_fini(&c);
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[capture]\n\nmin-free = 120%\n",
						 err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:3: bad min-free '120%' (expected a size such as 1GiB or "
				 "a percentage such as 5%)");
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[capture]\nmin-free = lots\n", err,
						 sizeof(err)),
			 -EINVAL);
}

/* [capture] session, events and buffer-size: what jankd's capture session is made of. */
static void config_session(void **state)
{
	struct jank_config c;
	char err[512];

	(void)state;
	assert_int_equal(
		jank_config_load_string(&c, "t.conf", "[capture]\nmode = none\n", err, sizeof(err)),
		0);
	assert_string_equal(c.capture.session, "");
	assert_int_equal(c.capture.nevents, 0);
	assert_int_equal(c.capture.buffer_size, 0);
	jank_config_fini(&c);
	assert_int_equal(jank_config_load_string(&c, "t.conf",
						 "[capture]\nsession = my-snap.1\n"
						 "events = lttng_ust_libc:* , block_rq_issue,x:y\n"
						 "buffer-size = 4MiB\n",
						 err, sizeof(err)),
			 0);
	assert_string_equal(c.capture.session, "my-snap.1");
	assert_int_equal(c.capture.nevents, 3);
	assert_string_equal(c.capture.events[0], "lttng_ust_libc:*");
	assert_string_equal(c.capture.events[1], "block_rq_issue");
	assert_string_equal(c.capture.events[2], "x:y");
	assert_int_equal(c.capture.buffer_size, 4 * MiB);
	/* The rotation defaults. */
	assert_int_equal(c.capture.rotation_period_ns, 10 * S);
	assert_int_equal(c.capture.rotation_size, 0);
	assert_int_equal(c.capture.retention_ns, 10 * S);
	jank_config_fini(&c);
	assert_int_equal(jank_config_load_string(&c, "t.conf",
						 "[capture]\nmode = rotation\nrotation-period = 0\n"
						 "rotation-size = 64MiB\nretention = 2s\n",
						 err, sizeof(err)),
			 0);
	assert_int_equal(c.capture.mode, JANK_CAPTURE_ROTATION);
	assert_int_equal(c.capture.rotation_period_ns, 0);
	assert_int_equal(c.capture.rotation_size, 64 * MiB);
	assert_int_equal(c.capture.retention_ns, 2 * S);
	jank_config_fini(&c);
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[capture]\nretention = 0\n", err,
						 sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:2: bad duration '0' for retention");
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[capture]\nsession = a/b\n", err,
						 sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:2: bad session name 'a/b' (expected letters, digits and "
				 "_-.:, at most 255)");
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[capture]\nevents = a:b,,c\n", err,
						 sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:2: bad event list 'a:b,,c' for events (an element is "
				 "empty or too long)");
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[capture]\nevents = a b\n", err,
						 sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:2: bad event name 'a b' for events");
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[capture]\nbuffer-size = big\n",
						 err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:2: bad size 'big' for buffer-size");
}

/* config: one line per key after [metrics]; 0 or -EINVAL, the message in err. */
static int load_metrics(struct jank_config *c, const char *keys, char *err, size_t len)
{
	char text[256];
	int r;

	snprintf(text, sizeof(text), "[metrics]\n%s", keys);
	r = jank_config_load_string(c, "t.conf", text, err, len);
	if (r == 0)
		jank_config_fini(c);
	return r;
}

/* [metrics] listen: off by default; loopback unless listen-public = yes. */
static void config_metrics(void **state)
{
	struct jank_config c;
	char err[512];

	(void)state;
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[metrics]\n", err, sizeof(err)), 0);
	assert_string_equal(c.metrics.host, "");
	jank_config_fini(&c);
	assert_int_equal(jank_config_load_string(&c, "t.conf",
						 "[metrics]\nlisten = 127.0.0.1:9479\n", err,
						 sizeof(err)),
			 0);
	assert_string_equal(c.metrics.host, "127.0.0.1");
	assert_int_equal(c.metrics.port, 9479);
	jank_config_fini(&c);
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[metrics]\nlisten = [::1]:80\n",
						 err, sizeof(err)),
			 0);
	assert_string_equal(c.metrics.host, "::1");
	jank_config_fini(&c);
	assert_int_equal(load_metrics(&c, "listen = localhost:1\n", err, sizeof(err)), 0);
	assert_int_equal(load_metrics(&c, "listen = 127.9.9.9:1\n", err, sizeof(err)), 0);
	assert_int_equal(load_metrics(&c, "listen = [::ffff:127.0.0.1]:1\n", err, sizeof(err)), 0);
	/* Beyond loopback, only when asked for; the error names the listen line. */
	assert_int_equal(
		load_metrics(&c, "listen = 0.0.0.0:9479\nlisten-public = yes\n", err, sizeof(err)),
		0);
	assert_int_equal(
		load_metrics(&c, "listen-public = on\nlisten = [::]:9479\n", err, sizeof(err)), 0);
	assert_int_equal(load_metrics(&c, "listen = 0.0.0.0:9479\n", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "t.conf:2: [metrics] listen: 0.0.0.0 is not a loopback address: "
				 "whoever reaches it can read jankd's metrics (say listen-public = "
				 "yes to serve it there)");
	assert_int_equal(load_metrics(&c, "\nlisten = [2001:db8::1]:9479\nlisten-public = no\n",
				      err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:3: [metrics] listen: 2001:db8::1 is not a loopback "
				 "address: whoever reaches it can read jankd's metrics (say "
				 "listen-public = yes to serve it there)");
	/* Malformed */
	static const char *const bad[] = { "listen = 127.0.0.1\n",	 "listen = 127.0.0.1:0\n",
					   "listen = 127.0.0.1:65536\n", "listen = ::1:9479\n",
					   "listen = host.example:80\n", "listen = :80\n",
					   "listen-public = maybe\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(load_metrics(&c, bad[i], err, sizeof(err)), -EINVAL);
	assert_int_equal(load_metrics(&c, "listen = 127.0.0.1:x\n", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "t.conf:2: bad listen '127.0.0.1:x' (expected ADDRESS:PORT: "
				 "127.0.0.1:9479, [::1]:9479 or localhost:9479)");
}

/* [web] listen: off by default; loopback unless listen-public = yes, like [metrics]. */
static void config_web(void **state)
{
	struct jank_config c;
	char err[512];

	(void)state;
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[web]\n", err, sizeof(err)), 0);
	assert_string_equal(c.web.host, "");
	jank_config_fini(&c);
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[web]\nlisten = 127.0.0.1:8479\n",
						 err, sizeof(err)),
			 0);
	assert_string_equal(c.web.host, "127.0.0.1");
	assert_int_equal(c.web.port, 8479);
	assert_string_equal(c.metrics.host, "");
	jank_config_fini(&c);
	assert_int_equal(
		jank_config_load_string(&c, "t.conf",
					"[web]\nlisten = 0.0.0.0:8479\nlisten-public = yes\n", err,
					sizeof(err)),
		0);
	assert_string_equal(c.web.host, "0.0.0.0");
	jank_config_fini(&c);
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[web]\n\nlisten = [::]:8479\n", err,
						 sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:3: [web] listen: :: is not a loopback address: whoever "
				 "reaches it can read the janks of the traced programs (say "
				 "listen-public = yes to serve them there)");
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[web]\nlisten = 127.0.0.1\n", err,
						 sizeof(err)),
			 -EINVAL);
}

/* [symbols] memory-limit: the symbolizer's budget, 64 MiB by default, 1 MiB to 64 GiB. */
static void config_symbols_limit(void **state)
{
	static const char *const bad[] = { "0", "1023KiB", "65GiB", "lots", "-1MiB", "" };
	struct jank_config c;
	char err[512], text[128];

	(void)state;
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[symbols]\n", err, sizeof(err)), 0);
	assert_int_equal(c.symbols.memory_limit, 64 * MiB);
	jank_config_fini(&c);
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[symbols]\nmemory-limit = 1MiB\n",
						 err, sizeof(err)),
			 0);
	assert_int_equal(c.symbols.memory_limit, MiB);
	jank_config_fini(&c);
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[symbols]\nmemory-limit = 64GiB\n",
						 err, sizeof(err)),
			 0);
	assert_int_equal(c.symbols.memory_limit, 64 * 1024 * MiB);
	jank_config_fini(&c);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "[symbols]\nmemory-limit = %s\n", bad[i]);
		assert_int_equal(jank_config_load_string(&c, "t.conf", text, err, sizeof(err)),
				 -EINVAL);
	}
	assert_int_equal(jank_config_load_string(&c, "t.conf",
						 "[symbols]\n\nmemory-limit = 65GiB\n", err,
						 sizeof(err)),
			 -EINVAL);
	assert_string_equal(err,
			    "t.conf:3: bad size '65GiB' for memory-limit (expected 1MiB to 64GiB)");
}

/* [live] discover, hosts, sessions: the relayd of a fleet, and which of its sessions. */
static void config_discover(void **state)
{
	struct jank_config c;
	char err[512];

	(void)state;
	assert_int_equal(
		jank_config_load_string(&c, "t.conf", "[live]\ncreate = yes\n", err, sizeof(err)),
		0);
	assert_string_equal(c.live.discover, "");
	assert_int_equal(c.live.nhosts, 0);
	assert_int_equal(c.live.discover_interval_ns, 2 * S);
	assert_int_equal(c.live.worker_timeout_ns, 10 * S);
	assert_int_equal(c.live.crossing_timeout_ns, 5 * S);
	jank_config_fini(&c);
	assert_int_equal(jank_config_load_string(&c, "t.conf",
						 "[live]\ndiscover = net://relay:5344\n"
						 "hosts = web-*, db-?\nsessions = jank\n"
						 "discover-interval = 500ms\nworker-timeout = 3s\n",
						 err, sizeof(err)),
			 0);
	assert_string_equal(c.live.discover, "net://relay:5344");
	assert_int_equal(c.live.nhosts, 2);
	assert_string_equal(c.live.hosts[0], "web-*");
	assert_string_equal(c.live.hosts[1], "db-?");
	assert_int_equal(c.live.nsessions, 1);
	assert_string_equal(c.live.sessions[0], "jank");
	assert_int_equal(c.live.discover_interval_ns, S / 2);
	assert_int_equal(c.live.worker_timeout_ns, 3 * S);
	jank_config_fini(&c);
	assert_int_equal(jank_config_load_string(&c, "t.conf",
						 "[live]\ndiscover = net://relay/host/h/s\n", err,
						 sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:2: bad discover 'net://relay/host/h/s' (expected "
				 "net://RELAYD-HOST[:LIVE-PORT], without a path)");
	assert_int_equal(jank_config_load_string(&c, "t.conf",
						 "[live]\ndiscover = net://r\nhosts = a b\n", err,
						 sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:3: bad pattern 'a b' for hosts (a glob such as web-* : "
				 "no blanks, quotes or '/')");
	assert_int_equal(jank_config_load_string(&c, "t.conf",
						 "[live]\ndiscover = net://r\nsessions = a,,b\n",
						 err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:3: bad pattern list 'a,,b' for sessions (an element is "
				 "empty or too long)");
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[live]\n\nhosts = web-*\n", err,
						 sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:3: [live]: 'hosts' and 'sessions' need 'discover'");
	assert_int_equal(jank_config_load_string(&c, "t.conf",
						 "[live]\ncreate = yes\ndiscover = net://r\n", err,
						 sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:3: [live]: 'discover' excludes 'url' and 'create = yes' "
				 "(one jankd watches one relayd's sessions)");
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[live]\nworker-timeout = 0\n", err,
						 sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:2: bad duration '0' for worker-timeout");
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[live]\nworker-timeout = 1s\n", err,
						 sizeof(err)),
			 -EINVAL);
	assert_string_equal(
		err,
		"t.conf:2: bad worker-timeout '1s' (at least 2s: a worker speaks every second)");
	/* The TCP segments' kernel events: on unless said otherwise. */
	assert_int_equal(
		jank_config_load_string(&c, "t.conf", "[live]\ncreate = yes\n", err, sizeof(err)),
		0);
	assert_true(c.live.network);
	jank_config_fini(&c);
	assert_int_equal(
		jank_config_load_string(&c, "t.conf", "[live]\nnetwork = no\n", err, sizeof(err)),
		0);
	assert_false(c.live.network);
	jank_config_fini(&c);
	assert_int_equal(
		jank_config_load_string(&c, "t.conf", "[live]\nnetwork = some\n", err, sizeof(err)),
		-EINVAL);
	/* How long an alert waits for another host's part of its path: within bounds. */
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[live]\ncrossing-timeout = 20s\n",
						 err, sizeof(err)),
			 0);
	assert_int_equal(c.live.crossing_timeout_ns, 20 * S);
	jank_config_fini(&c);
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[live]\ncrossing-timeout = 100ms\n",
						 err, sizeof(err)),
			 0);
	assert_int_equal(c.live.crossing_timeout_ns, S / 10);
	jank_config_fini(&c);
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[live]\ncrossing-timeout = 99ms\n",
						 err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:2: bad crossing-timeout '99ms' (from 100ms to 10min)");
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[live]\ncrossing-timeout = 601s\n",
						 err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:2: bad crossing-timeout '601s' (from 100ms to 10min)");
	assert_int_equal(jank_config_load_string(&c, "t.conf", "[live]\ncrossing-timeout = soon\n",
						 err, sizeof(err)),
			 -EINVAL);
}

/* [flow NAME]: its keys, its checks, and the engine that gets it. */
static void config_flows(void **state)
{
	static const char ok[] = "[action req]\nbegin = a:b\nend = a:e\nthreshold = 1ms\n"
				 "[flow queue]\nfrom = app:post\nto = app:run\nkey = vpid, task\n"
				 "match = queue == \"io\"\n";
	struct jank_engine_config ec;
	struct jank_engine *e;
	struct jank_config c;
	char err[512], many[2048];
	size_t n = 0;

	(void)state;
	assert_int_equal(jank_config_load_string(&c, "t.conf", ok, err, sizeof(err)), 0);
	assert_int_equal(c.nflows, 1);
	assert_string_equal(c.flows[0].name, "queue");
	assert_string_equal(c.flows[0].from_event, "app:post");
	assert_string_equal(c.flows[0].to_event, "app:run");
	assert_int_equal(c.flows[0].nkeys, 2);
	assert_string_equal(c.flows[0].keys[1], "task");
	assert_string_equal(c.flows[0].match_field, "queue");
	assert_string_equal(c.flows[0].match_value.s, "io");
	jank_engine_config_defaults(&ec);
	e = jank_engine_new(&ec);
	assert_non_null(e);
	assert_int_equal(jank_config_add_rules(&c, e, err, sizeof(err)), 0);
	assert_int_equal(jank_engine_rule_count(e), 1);
	assert_int_equal(jank_engine_flow_count(e), 1);
	assert_string_equal(jank_engine_flow(e, 0)->to_event, "app:run");
	/* A reload without the flow, and with it again. */
	jank_config_fini(&c);
	assert_int_equal(jank_config_load_string(&c, "t.conf",
						 "[action req]\nbegin = a:b\nend = a:e\n"
						 "threshold = 1ms\n",
						 err, sizeof(err)),
			 0);
	assert_int_equal(jank_config_replace_rules(&c, e), 0);
	assert_int_equal(jank_engine_flow_count(e), 0);
	jank_config_fini(&c);
	assert_int_equal(jank_config_load_string(&c, "t.conf", ok, err, sizeof(err)), 0);
	assert_int_equal(jank_config_replace_rules(&c, e), 0);
	assert_int_equal(jank_engine_flow_count(e), 1);
	jank_config_fini(&c);
	jank_engine_free(e);

	/* to-key: the `to` event's own fields, as many as key's. */
	assert_int_equal(jank_config_load_string(&c, "t.conf",
						 "[flow ros2]\nfrom = ros2:rmw_publish\n"
						 "to = ros2:rmw_take\nkey = timestamp\n"
						 "to-key = source_timestamp\n",
						 err, sizeof(err)),
			 0);
	assert_int_equal(c.flows[0].nto_keys, 1);
	assert_string_equal(c.flows[0].to_keys[0], "source_timestamp");
	jank_config_fini(&c);
	assert_int_equal(jank_config_load_string(&c, "t.conf",
						 "[flow ros2]\nfrom = a:x\nto = a:y\n"
						 "key = vpid, id\nto-key = id\n",
						 err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:1: [flow ros2]: to-key names 1 fields and key 2 (to-key "
				 "gives the `to` event's field for each field of key, in the same "
				 "order)");

	/* A flow needs its key: the thread cannot be one. */
	assert_int_equal(jank_config_load_string(&c, "t.conf",
						 "[flow q]\nfrom = app:post\nto = app:run\n", err,
						 sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf: [flow q]: missing 'key'");
	assert_int_equal(jank_config_load_string(&c, "t.conf",
						 "[flow q]\nfrom = app:x\nto = app:x\nkey = id\n",
						 err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:1: [flow q]: from and to are the same event 'app:x' (a "
				 "flow needs two: one where a thread hands the work over, one "
				 "where another picks it up)");
	assert_int_equal(jank_config_load_string(&c, "t.conf",
						 "[flow q]\nfrom = app:x\nto = app:y\nkey = id\n"
						 "bogus = 1\n",
						 err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:5: unknown key 'bogus' in section [flow q]");
	/* Actions and flows share the limit of roles per event: 8 on app:x. */
	for (int i = 0; i < 4; i++)
		n += (size_t)snprintf(many + n, sizeof(many) - n,
				      "[action a%d]\nbegin = app:x\nend = app:e%d\n"
				      "threshold = 1ms\n",
				      i, i);
	for (int i = 0; i < 5; i++)
		n += (size_t)snprintf(many + n, sizeof(many) - n,
				      "[flow f%d]\nfrom = app:x\nto = app:t%d\nkey = id\n", i, i);
	assert_int_equal(jank_config_load_string(&c, "t.conf", many, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "t.conf:33: [flow f4]: event 'app:x' cannot serve one more flow: "
				 "at most 8 actions and flows begin, end, hand over or pick up on "
				 "one event, reading at most 7 key and match fields");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(config_min_free),	cmocka_unit_test(config_session),
		cmocka_unit_test(config_metrics),	cmocka_unit_test(config_web),
		cmocka_unit_test(config_symbols_limit), cmocka_unit_test(config_discover),
		cmocka_unit_test(config_flows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
