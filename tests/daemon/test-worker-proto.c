/* SPDX-License-Identifier: MIT */
/*
 * daemon/worker/worker-proto.c, alerted.c and input-figures.c: what the workers
 * and the supervisor say to each other (frames, verdicts), the verdicts
 * that must not be alerted twice, and an input's counters over its workers.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <cmocka.h>
#include "alerted.h"
#include "format.h"
#include "input-figures.h"
#include "json-util.h"
#include "worker-proto.h"

#define MS 1000000LL
#define S  1000000000LL

/* A frame of `len` bytes of `text` into `b`, after emptying it. */
static void raw_frame(struct evbuffer *b, const char *text, size_t len)
{
	uint32_t head = htonl((uint32_t)len);

	evbuffer_drain(b, evbuffer_get_length(b));
	evbuffer_add(b, &head, sizeof(head));
	evbuffer_add(b, text, len);
}

/*
 * Frames: whole ones come out one by one, a partial one waits; one longer
 * than 4 MiB is refused from its length alone, before the rest is there;
 * one that is not exactly one JSON object (blanks aside) is refused.
 */
static void frames(void **state)
{
	struct evbuffer *b = evbuffer_new();
	struct json_object *m = jank_worker_proto_new("status"), *got = NULL;
	uint32_t head = htonl(JANK_PROTO_MAX_FRAME + 1);
	static const char *const bad[] = {
		"[]", "{\"type\":\"status\"}{}", "{\"type\":", "{\"a\":1}\0", "\0{}", "nul",
	};
	static const size_t bad_len[] = { 2, 19, 8, 8, 3, 3 };

	(void)state;
	assert_int_equal(jank_worker_proto_put(b, m), 0);
	assert_int_equal(jank_worker_proto_put(b, m), 0);
	evbuffer_add(b, "\0\0", 2); /* half a header */
	assert_int_equal(jank_worker_proto_take(b, &got), 1);
	assert_string_equal(jank_worker_proto_type(got), "status");
	json_object_put(got);
	assert_int_equal(jank_worker_proto_take(b, &got), 1);
	json_object_put(got);
	assert_int_equal(jank_worker_proto_take(b, &got), 0);
	assert_null(got);
	evbuffer_drain(b, evbuffer_get_length(b));
	evbuffer_add(b, &head, sizeof(head));
	assert_int_equal(jank_worker_proto_take(b, &got), -EMSGSIZE);
	assert_null(got);
	assert_int_equal(JANK_PROTO_MAX_FRAME, 4u << 20);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		raw_frame(b, bad[i], bad_len[i]);
		assert_int_equal(jank_worker_proto_take(b, &got), -EPROTO);
		assert_null(got);
	}
	raw_frame(b, "", 0); /* an empty frame */
	assert_int_equal(jank_worker_proto_take(b, &got), -EPROTO);
	/* The longest frame is taken; the sender refuses a longer one, and adds nothing. */
	{
		static const char pre[] = "{\"type\":\"log\",\"message\":\"";
		size_t n = JANK_PROTO_MAX_FRAME, p = strlen(pre);
		char *text = malloc(n);
		struct json_object *big;

		assert_non_null(text);
		memcpy(text, pre, p);
		memset(text + p, 'x', n - p - 2);
		memcpy(text + n - 2, "\"}", 2);
		raw_frame(b, text, n);
		assert_int_equal(jank_worker_proto_take(b, &got), 1);
		assert_string_equal(jank_worker_proto_type(got), "log");
		json_object_put(got);
		assert_int_equal(evbuffer_get_length(b), 0);
		memset(text, 'x', n - 1);
		text[n - 1] = '\0';
		big = jank_worker_proto_new("log");
		jank_json_add_str(big, "message", text);
		assert_int_equal(jank_worker_proto_put(b, big), -EMSGSIZE);
		assert_int_equal(evbuffer_get_length(b), 0);
		json_object_put(big);
		free(text);
	}
	json_object_put(m);
	evbuffer_free(b);
}

/* A frame of `text` into `b` in pieces of `piece` bytes, each in a chunk of its own. */
static void split_frame(struct evbuffer *b, const char *text, size_t len, size_t piece)
{
	uint32_t head = htonl((uint32_t)len);

	evbuffer_add(b, &head, sizeof(head));
	for (size_t at = 0; at < len; at += piece) {
		struct evbuffer *one = evbuffer_new();

		evbuffer_add(one, text + at, len - at < piece ? len - at : piece);
		evbuffer_add_buffer(b, one); /* moves its chunk: not merged with the last one */
		evbuffer_free(one);
	}
}

/*
 * One reader for a connection's frames: after each refused frame (cut in
 * the middle of a string, of an object, nested past json-c's depth, with
 * something after it) the same reader still refuses the next bad one and
 * takes the next good one whole, as a new parser would; a frame spread over
 * chunks is read as one; a frame past the buffer it keeps leaves none.
 */
static void reader_reused(void **state)
{
	static const char *const bad[] = {
		"{\"type\":\"sta", "{\"type\":", "[[[[[[[[",   "{\"a\":1}\0", "{\"a\":1} {",
		"{\"a\":[1,2",	   "\"x\"",	 "{\"a\":tru", "{\"a\":1.5e",
	};
	static const char good[] = "{\"type\":\"status\",\"n\":[1,[2,3],{\"x\":\"y\"}]}";
	struct jank_worker_proto_reader rd = { 0 };
	struct evbuffer *b = evbuffer_new();
	struct json_object *got = NULL;
	char deep[80];

	(void)state;
	memset(deep, '[', 40);
	memset(deep + 40, ']', 40);
	for (int round = 0; round < 2; round++) {
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			raw_frame(b, bad[i], strlen(bad[i]) + (i == 3));
			assert_int_equal(jank_worker_proto_read(&rd, b, &got), -EPROTO);
			assert_null(got);
			raw_frame(b, good, strlen(good));
			assert_int_equal(jank_worker_proto_read(&rd, b, &got), 1);
			assert_string_equal(jank_worker_proto_type(got), "status");
			assert_string_equal(
				json_object_to_json_string_ext(got, JSON_C_TO_STRING_PLAIN), good);
			json_object_put(got);
		}
		/* Deeper than json-c's 32 levels: refused, each time. */
		raw_frame(b, deep, sizeof(deep));
		assert_int_equal(jank_worker_proto_read(&rd, b, &got), -EPROTO);
		assert_null(got);
	}
	/* In pieces of 3 bytes: taken whole, then the same frame in one piece. */
	evbuffer_drain(b, evbuffer_get_length(b));
	split_frame(b, good, strlen(good), 3);
	split_frame(b, good, strlen(good), strlen(good));
	for (int i = 0; i < 2; i++) {
		assert_int_equal(jank_worker_proto_read(&rd, b, &got), 1);
		assert_string_equal(json_object_to_json_string_ext(got, JSON_C_TO_STRING_PLAIN),
				    good);
		json_object_put(got);
	}
	assert_int_equal(jank_worker_proto_read(&rd, b, &got), 0);
	assert_int_equal(evbuffer_get_length(b), 0);
	/* A bad frame in pieces: refused too. */
	split_frame(b, bad[0], strlen(bad[0]), 2);
	assert_int_equal(jank_worker_proto_read(&rd, b, &got), -EPROTO);
	assert_null(got);
	/* A 1 MiB frame in pieces is taken; the buffer it needed is not kept. */
	{
		static const char pre[] = "{\"type\":\"log\",\"message\":\"";
		size_t n = 1u << 20, p = strlen(pre);
		char *text = malloc(n);

		assert_non_null(text);
		memcpy(text, pre, p);
		memset(text + p, 'x', n - p - 2);
		memcpy(text + n - 2, "\"}", 2);
		evbuffer_drain(b, evbuffer_get_length(b));
		split_frame(b, text, n, 4096);
		assert_int_equal(jank_worker_proto_read(&rd, b, &got), 1);
		assert_int_equal(
			strlen(json_object_get_string(json_object_object_get(got, "message"))),
			n - p - 2);
		json_object_put(got);
		assert_null(rd.buf);
		assert_int_equal(rd.cap, 0);
		free(text);
	}
	jank_worker_proto_reader_fini(&rd);
	assert_null(rd.tok);
	evbuffer_free(b);
}

/* A worker's log line: its priority kept within LOG_ERR..LOG_DEBUG, one line, cut whole. */
static void log_lines(void **state)
{
	struct json_object *m = jank_worker_proto_new("log");
	char line[8];
	int prio;

	(void)state;
	assert_int_equal(jank_worker_proto_log_decode(m, &prio, line, sizeof(line)), -EINVAL);
	jank_json_add_str(m, "message", "a\nb\033c");
	assert_int_equal(jank_worker_proto_log_decode(m, &prio, line, sizeof(line)), 0);
	assert_string_equal(line, "a?b?c");
	assert_int_equal(prio, LOG_INFO);
	jank_json_add_i64(m, "priority", LOG_EMERG);
	assert_int_equal(jank_worker_proto_log_decode(m, &prio, line, sizeof(line)), 0);
	assert_int_equal(prio, LOG_ERR);
	/* Not a priority of syslog's: refused (the worker is restarted). */
	jank_json_add_i64(m, "priority", 1000);
	assert_int_equal(jank_worker_proto_log_decode(m, &prio, line, sizeof(line)), -EINVAL);
	jank_json_add_i64(m, "priority", -1);
	assert_int_equal(jank_worker_proto_log_decode(m, &prio, line, sizeof(line)), -EINVAL);
	jank_json_add_i64(m, "priority", LOG_WARNING);
	jank_json_add_str(m, "message", "abcdef\xc3\xa9"); /* é at bytes 6-7: cut before it */
	assert_int_equal(jank_worker_proto_log_decode(m, &prio, line, sizeof(line)), 0);
	assert_string_equal(line, "abcdef");
	assert_int_equal(prio, LOG_WARNING);
	jank_json_add_str(m, "priority", "4");
	assert_int_equal(jank_worker_proto_log_decode(m, &prio, line, sizeof(line)), -EINVAL);
	json_object_put(m);
}

/* "names": each pair checked, or the whole message refused (the worker is restarted). */
static int names_of(const char *text, struct jank_worker_proto_names *n)
{
	struct json_object *m = json_tokener_parse(text);
	char err[256] = "";
	int r;

	assert_non_null(m);
	r = jank_worker_proto_names_decode(m, n, err, sizeof(err));
	if (r < 0) {
		assert_true(err[0]);
		assert_int_equal(n->n, 0);
	}
	json_object_put(m);
	return r;
}

static void names(void **state)
{
	static struct jank_worker_proto_names n;
	char big[2 * JANK_FRAME_NAME_LEN + 64];

	(void)state;
	assert_int_equal(names_of("{\"names\": [[\"fn-demo+0x2db0\", \"sleep_ns\"], "
				  "[\"libz.so.1+0x1\", \"deflate\"]]}",
				  &n),
			 0);
	assert_int_equal(n.n, 2);
	assert_int_equal(names_of("{\"names\": []}", &n), 0);
	assert_int_equal(n.n, 0);
	assert_int_equal(names_of("{}", &n), -EINVAL);
	assert_int_equal(names_of("{\"names\": {}}", &n), -EINVAL);
	assert_int_equal(names_of("{\"names\": [\"a+0x1\"]}", &n), -EINVAL);
	assert_int_equal(names_of("{\"names\": [[\"a+0x1\"]]}", &n), -EINVAL);
	assert_int_equal(names_of("{\"names\": [[\"a+0x1\", \"f\", \"g\"]]}", &n), -EINVAL);
	assert_int_equal(names_of("{\"names\": [[\"a+0x1\", 7]]}", &n), -EINVAL);
	/* Not a frame as the symbolizer prints one. */
	assert_int_equal(names_of("{\"names\": [[\"main\", \"f\"]]}", &n), -EINVAL);
	assert_int_equal(names_of("{\"names\": [[\"+0x1\", \"f\"]]}", &n), -EINVAL);
	assert_int_equal(names_of("{\"names\": [[\"a+0x\", \"f\"]]}", &n), -EINVAL);
	assert_int_equal(names_of("{\"names\": [[\"a+0x1G\", \"f\"]]}", &n), -EINVAL);
	assert_int_equal(names_of("{\"names\": [[\"a+0xABC\", \"f\"]]}", &n), -EINVAL);
	assert_int_equal(names_of("{\"names\": [[\"a b+0x1\", \"f\"]]}", &n), -EINVAL);
	assert_int_equal(names_of("{\"names\": [[\"/bin/a+0x1\", \"f\"]]}", &n), -EINVAL);
	assert_int_equal(names_of("{\"names\": [[\"a+0x11111111111111111\", \"f\"]]}", &n),
			 -EINVAL);
	/* A name: not empty, no control character, not a frame itself. */
	assert_int_equal(names_of("{\"names\": [[\"a+0x1\", \"\"]]}", &n), -EINVAL);
	assert_int_equal(names_of("{\"names\": [[\"a+0x1\", \"f\\u001b[2J\"]]}", &n), -EINVAL);
	assert_int_equal(names_of("{\"names\": [[\"a+0x1\", \"b+0x2\"]]}", &n), -EINVAL);
	/* Too long: a frame's name at most. */
	memset(big, 0, sizeof(big));
	strcpy(big, "{\"names\": [[\"a+0x1\", \"");
	memset(big + strlen(big), 'f', JANK_FRAME_NAME_LEN);
	strcat(big, "\"]]}");
	assert_int_equal(names_of(big, &n), -EINVAL);
	/* At most JANK_PROTO_MAX_NAMES pairs. */
	{
		struct json_object *m = json_object_new_object(), *a = json_object_new_array();
		char err[256];

		for (int i = 0; i <= JANK_PROTO_MAX_NAMES; i++) {
			struct json_object *p = json_object_new_array();

			json_object_array_add(p, json_object_new_string("a+0x1"));
			json_object_array_add(p, json_object_new_string("f"));
			json_object_array_add(a, p);
		}
		json_object_object_add(m, "names", a);
		assert_int_equal(jank_worker_proto_names_decode(m, &n, err, sizeof(err)), -EINVAL);
		json_object_array_del_idx(a, 0, 1);
		assert_int_equal(jank_worker_proto_names_decode(m, &n, err, sizeof(err)), 0);
		assert_int_equal(n.n, JANK_PROTO_MAX_NAMES);
		json_object_put(m);
	}
}

/* A verdict sent and rebuilt: the same fields, path and breakdown, and the receiver's rule. */
static void verdict_round_trip(void **state)
{
	struct jank_segment segs[2] = {
		{ .tid = 7, .state = JANK_STATE_RUNNING, .begin = 100, .end = 150, .comm = "app" },
		{ .tid = 9,
		  .state = JANK_STATE_LOCK_WAIT,
		  .begin = 150,
		  .end = 400,
		  .lock = 0xab0,
		  .comm = "db" },
	};
	struct jank_path path = { .tid = 7, .begin = 100, .end = 400, .segs = segs, .n = 2 };
	const struct jank_label *l;
	struct jank_breakdown bd;
	struct jank_rule sent_rule, mine[2];
	struct jank_verdict v = {
		.kind = JANK_VERDICT_OVERDUE,
		.key = "name=frame,id=3",
		.begin = 100,
		.end = 400,
		.duration = 300,
		.threshold = 16,
		.over_threshold = true,
		.tid = 7,
		.pid = 5,
		.comm = "app",
		.path = &path,
	};
	struct jank_suspects ss = {
		.ready = true,
		.normal = 40,
		.normal_duration = 2000000,
		.items = {
			{ .comp = { .key = { .kind = JANK_COMP_THREAD, .state = JANK_STATE_BLOCKED },
				    .ns = 40000000, .tid = 9, .process = "db", .thread = "db-io" },
			  .normal = 200000, .delta = 39800000, .ratio = 200 },
			{ .comp = { .key = { .kind = JANK_COMP_LOCK, .id = 0xab0 }, .ns = 250,
				    .tid = 9, .process = "db", .thread = "db" },
			  .normal = 0, .delta = 250, .ratio = 0.25 },
			{ .comp = { .key = { .kind = JANK_COMP_STATE, .state = JANK_STATE_PREEMPTED },
				    .ns = 12000000 },
			  .normal = 100000, .delta = 11900000, .ratio = 120 },
			{ .comp = { .key = { .kind = JANK_COMP_FUNCTION, .id = 1 },
				    .ns = 15000000, .tid = 7, .process = "app", .thread = "app",
				    .fn_state = JANK_STATE_PREEMPTED },
			  .normal = 0, .delta = 15000000, .ratio = 15000, .own = true,
			  .presence_slow = 1, .presence_normal = 0.25, .increase = 0.75,
			  .rank = 26250000, .function = "apply_discounts" },
		},
		.n = 4,
		.ran = { { .tid = 812, .ns = 12000000, .comm = "hog" } },
		.nran = 1,
	};
	struct jank_verdict_decoded pv;
	char err[256];
	struct json_object *o, *a, *b;

	(void)state;
	ss.items[0].comp.key.id = jank_comp_identity("db", "db-io");
	/* db was reached through a flow, in one of its own actions. */
	segs[1].flow = jank_path_label(&path, "queue", "");
	segs[1].span = jank_path_label(&path, "query", "id=4");
	jank_rule_init(&sent_rule);
	sent_rule.name = "frame";
	jank_rule_init(&mine[0]);
	mine[0].name = "io";
	jank_rule_init(&mine[1]);
	mine[1].name = "frame";
	mine[1].capture = true;
	jank_breakdown_init(&bd);
	assert_int_equal(jank_breakdown_compute(&path, &bd), 0);
	v.rule = &sent_rule;
	v.breakdown = &bd;
	o = jank_verdict_to_json(&v, JANK_VERDICT_JSON_FULL);
	assert_int_equal(jank_worker_proto_verdict_decode(o, mine, 2, &pv, err, sizeof(err)), 0);
	assert_ptr_equal(pv.v.rule, &mine[1]);
	assert_int_equal(pv.v.rule_index, 1);
	assert_int_equal(pv.v.kind, JANK_VERDICT_OVERDUE);
	assert_string_equal(pv.v.key, "name=frame,id=3");
	assert_string_equal(pv.v.comm, "app");
	assert_int_equal(pv.v.begin, 100);
	assert_int_equal(pv.v.end, 400);
	assert_int_equal(pv.v.duration, 300);
	assert_int_equal(pv.v.threshold, 16);
	assert_int_equal(pv.v.tid, 7);
	assert_int_equal(pv.v.pid, 5);
	assert_true(pv.v.over_threshold);
	assert_int_equal(pv.path.n, 2);
	assert_int_equal(pv.path.segs[1].lock, 0xab0);
	assert_int_equal(pv.path.segs[1].state, JANK_STATE_LOCK_WAIT);
	assert_string_equal(pv.path.segs[1].comm, "db");
	assert_int_equal(pv.path.segs[0].flow, 0);
	assert_int_equal(pv.path.segs[0].span, 0);
	l = jank_path_label_of(&pv.path, pv.path.segs[1].flow);
	assert_non_null(l);
	assert_string_equal(l->name, "queue");
	l = jank_path_label_of(&pv.path, pv.path.segs[1].span);
	assert_non_null(l);
	assert_string_equal(l->name, "query");
	assert_string_equal(l->key, "id=4");
	assert_int_equal(pv.breakdown.n, bd.n);
	assert_int_equal(pv.breakdown.per_state[JANK_STATE_LOCK_WAIT], 250);
	assert_int_equal(pv.breakdown.nlocks, 1);
	assert_null(pv.v.suspects);
	assert_int_equal(pv.v.discarded_events, 0);
	jank_verdict_decoded_fini(&pv);
	json_object_put(o);
	/* The events discarded in its interval go through; a count is never negative. */
	v.discarded_events = 4000000000ull;
	o = jank_verdict_to_json(&v, JANK_VERDICT_JSON_FULL);
	assert_int_equal(jank_worker_proto_verdict_decode(o, mine, 2, &pv, err, sizeof(err)), 0);
	assert_int_equal(pv.v.discarded_events, 4000000000ull);
	jank_verdict_decoded_fini(&pv);
	json_object_object_add(o, "discarded_events", json_object_new_int64(-1));
	assert_int_equal(jank_worker_proto_verdict_decode(o, mine, 2, &pv, err, sizeof(err)),
			 -EINVAL);
	jank_verdict_decoded_fini(&pv);
	json_object_object_add(o, "discarded_events", json_object_new_string("3"));
	assert_int_equal(jank_worker_proto_verdict_decode(o, mine, 2, &pv, err, sizeof(err)),
			 -EINVAL);
	jank_verdict_decoded_fini(&pv);
	json_object_object_del(o, "discarded_events"); /* an older worker: none */
	assert_int_equal(jank_worker_proto_verdict_decode(o, mine, 2, &pv, err, sizeof(err)), 0);
	assert_int_equal(pv.v.discarded_events, 0);
	jank_verdict_decoded_fini(&pv);
	json_object_put(o);
	v.discarded_events = 0;
	/* Suspects go through whole: the alert's JANK_SUSPECTS and MESSAGE are the worker's. */
	v.suspects = &ss;
	o = jank_verdict_to_json(&v, JANK_VERDICT_JSON_FULL);
	assert_int_equal(jank_worker_proto_verdict_decode(o, mine, 2, &pv, err, sizeof(err)), 0);
	assert_non_null(pv.v.suspects);
	/* A function is known by its name, as in a path rebuilt from names. */
	assert_int_equal(pv.v.suspects->items[3].comp.key.kind, JANK_COMP_FUNCTION);
	assert_int_equal(
		pv.v.suspects->items[3].comp.key.id,
		jank_comp_function_identity(&(struct jank_frame){ .name = "apply_discounts" }));
	assert_string_equal(pv.v.suspects->items[3].function, "apply_discounts");
	a = jank_suspects_to_json(&ss);
	b = jank_suspects_to_json(pv.v.suspects);
	assert_string_equal(json_object_to_json_string(a), json_object_to_json_string(b));
	json_object_put(a);
	json_object_put(b);
	jank_verdict_decoded_fini(&pv);
	/* A rule the receiver no longer has: a stub of that name, which captures nothing. */
	assert_int_equal(jank_worker_proto_verdict_decode(o, mine, 1, &pv, err, sizeof(err)), 0);
	assert_string_equal(pv.v.rule->name, "frame");
	assert_false(pv.v.rule->capture);
	assert_int_equal(pv.v.rule_index, UINT32_MAX);
	jank_verdict_decoded_fini(&pv);
	json_object_put(o);
	o = json_tokener_parse("{\"action\":\"frame\"}");
	assert_int_equal(jank_worker_proto_verdict_decode(o, mine, 2, &pv, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "key: missing");
	jank_verdict_decoded_fini(&pv);
	json_object_put(o);
	jank_breakdown_fini(&bd);
	free(path.labels);
}

static struct jank_verdict completed(const struct jank_rule *r, const char *key, int64_t end)
{
	struct jank_verdict v = {
		.kind = JANK_VERDICT_COMPLETED,
		.rule = r,
		.key = key,
		.begin = end - 50 * MS,
		.end = end,
	};

	return v;
}

/* A replay after a restart: what does not end after the last alert is a duplicate. */
static void alerted(void **state)
{
	struct jank_alerted a;
	struct jank_rule r;
	struct jank_verdict v;

	(void)state;
	jank_rule_init(&r);
	r.name = "frame";
	jank_alerted_init(&a);
	v = completed(&r, "id=1", 10 * S);
	assert_false(jank_alerted_check(&a, &v));
	v = completed(&r, "id=2", 11 * S);
	assert_false(jank_alerted_check(&a, &v));
	/* The worker restarts and reads the last packets again. */
	v = completed(&r, "id=1", 10 * S);
	assert_true(jank_alerted_check(&a, &v));
	v = completed(&r, "id=2", 11 * S);
	assert_true(jank_alerted_check(&a, &v));
	/* Same end, another action: new. */
	v = completed(&r, "id=3", 11 * S);
	assert_false(jank_alerted_check(&a, &v));
	v = completed(&r, "id=4", 12 * S);
	assert_false(jank_alerted_check(&a, &v));
	/* Far back: the clock moved, not a replay. */
	v = completed(&r, "id=5", 12 * S - JANK_ALERTED_REPLAY_NS - 1);
	assert_false(jank_alerted_check(&a, &v));
	assert_int_equal(a.duplicates, 2);
	/* Overdue: by rule, key and begin. */
	v = completed(&r, "id=9", 20 * S);
	v.kind = JANK_VERDICT_OVERDUE;
	assert_false(jank_alerted_check(&a, &v));
	v.end = 21 * S;
	assert_true(jank_alerted_check(&a, &v));
	v.begin++;
	assert_false(jank_alerted_check(&a, &v));
	assert_int_equal(a.duplicates, 3);
}

/* Full figures, as a worker fills them. */
static void some_figures(struct jank_input_figures *f)
{
	jank_input_figures_init(f);
	f->reported = f->counted = true;
	snprintf(f->url, sizeof(f->url), "net://r/host/h/s");
	snprintf(f->state, sizeof(f->state), "connected");
	snprintf(f->last_error, sizeof(f->last_error), "relayd went away");
	f->attached = true;
	f->engine.events = 1000;
	f->events_read = 1001;
	f->events_per_sec = 12.5;
	f->trace_now = 1700000000LL * S;
	f->stalled_since = 1700000001LL * S;
	f->stalls = 2;
	f->engine.first = 10;
	f->last_event_ns = 20;
	f->engine.actions_open = 3;
	f->engine.memory_peak = 1 << 20;
	f->engine.graph.gc_steps = 7;
	assert_int_equal(jank_input_figures_set_rules(f, 2), 0);
	snprintf(f->rules[0].action, sizeof(f->rules[0].action), "frame");
	jank_histogram_add(&f->rules[0].hist, 1000);
	jank_histogram_add(&f->rules[0].hist, 5000000);
	f->rules[0].count = 2;
	f->rules[0].stats.janks = 1;
	f->rules[0].stats.last_jank_ns = 99;
	snprintf(f->rules[0].stats.last_jank_key, JANK_KEY_LEN, "tid=7");
	f->rules[0].threshold_ns = 16000000;
	f->rules[0].p99_ns = 5000000;
	f->rules[0].max_ns = 5000000;
	f->rules[1].threshold_kind = JANK_THRESHOLD_ADAPTIVE;
	/* Rule 0's composition: two names of at most three, "other" one of them. */
	struct jank_composition_entry comp[2] = { { .on = "db/io" }, { .on = "other" } };

	comp[0].ns[JANK_CLASS_SLOW][JANK_STATE_BLOCK_DEVICE] = 7000000;
	comp[0].ns[JANK_CLASS_NORMAL][JANK_STATE_RUNNING] = 200000;
	comp[1].ns[JANK_CLASS_SLOW][JANK_STATE_PREEMPTED] = 1;
	f->rules[0].composition_top = 2;
	assert_int_equal(jank_input_figures_set_composition(&f->rules[0], comp, 2), 0);
}

/* The figures as they travel: JSON text. */
static struct json_object *travel(const struct jank_input_figures *f)
{
	struct json_object *o = jank_input_figures_json(f), *back;

	assert_non_null(o);
	back = json_tokener_parse(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	assert_non_null(back);
	json_object_put(o);
	return back;
}

/* Encoded and decoded: the same figures, field by field. */
static void figures_round_trip(void **state)
{
	struct jank_input_figures f, back;
	struct json_object *o;
	char err[128];

	(void)state;
	some_figures(&f);
	jank_input_figures_init(&back);
	o = travel(&f);
	assert_int_equal(jank_worker_proto_figures_decode(o, &back, err, sizeof(err)), 0);
	assert_true(back.reported && back.counted);
	assert_string_equal(back.url, f.url);
	assert_string_equal(back.state, "connected");
	assert_string_equal(back.last_error, "relayd went away");
	assert_true(back.attached);
	assert_true(back.events_per_sec == 12.5);
	assert_int_equal(back.trace_now, f.trace_now);
	assert_int_equal(back.stalled_since, f.stalled_since);
	assert_int_equal(back.last_event_ns, 20);
	assert_memory_equal(&back.engine, &f.engine, offsetof(struct jank_engine_stats, horizon));
	assert_int_equal(back.engine.first, 10);
	assert_memory_equal(&back.engine.graph, &f.engine.graph, sizeof(f.engine.graph));
	assert_int_equal(back.nrules, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_memory_equal(&back.rules[i], &f.rules[i],
				    offsetof(struct jank_rule_figures, comp));
		assert_int_equal(back.rules[i].ncomp, f.rules[i].ncomp);
		if (f.rules[i].ncomp)
			assert_memory_equal(back.rules[i].comp, f.rules[i].comp,
					    f.rules[i].ncomp * sizeof(*f.rules[i].comp));
	}
	assert_int_equal(back.rules[0].ncomp, 2);
	assert_int_equal(back.rules[0].composition_top, 2);
	json_object_put(o);
	/* The optional ones absent: their "none". */
	f.trace_now = f.engine.first = f.last_event_ns = INT64_MIN;
	f.stalled_since = 0;
	f.last_error[0] = '\0';
	o = travel(&f);
	assert_int_equal(jank_worker_proto_figures_decode(o, &back, err, sizeof(err)), 0);
	assert_int_equal(back.trace_now, INT64_MIN);
	assert_int_equal(back.engine.first, INT64_MIN);
	assert_int_equal(back.last_event_ns, INT64_MIN);
	assert_int_equal(back.stalled_since, 0);
	assert_string_equal(back.last_error, "");
	json_object_put(o);
	jank_input_figures_fini(&f);
	jank_input_figures_fini(&back);
}

/* Set `path` ("key" or "rules.0.key", "rules.0.histogram.key") of o to the JSON `value`. */
static void set(struct json_object *o, const char *path, const char *value)
{
	char buf[128], *key, *dot;

	snprintf(buf, sizeof(buf), "%s", path);
	key = buf;
	while ((dot = strchr(key, '.'))) {
		*dot = '\0';
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(key));
		else
			o = json_object_object_get(o, key);
		assert_non_null(o);
		key = dot + 1;
	}
	if (value)
		json_object_object_add(o, key, json_tokener_parse(value));
	else
		json_object_object_del(o, key);
}

/* Decoding the figures with `path` set to `value` (NULL: removed) fails, saying `why`. */
static void rejected(const char *path, const char *value, const char *why)
{
	struct jank_input_figures f, back;
	struct json_object *o;
	char err[128];

	some_figures(&f);
	jank_input_figures_init(&back);
	o = travel(&f);
	set(o, path, value);
	assert_int_equal(jank_worker_proto_figures_decode(o, &back, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, why);
	/* Nothing half-read is left. */
	assert_false(back.reported);
	assert_int_equal(back.nrules, 0);
	json_object_put(o);
	jank_input_figures_fini(&f);
}

/* The worker is not trusted: a figure missing, mistyped or out of range is no silent 0. */
static void figures_checked(void **state)
{
	char big[JANK_FIGURES_URL_LEN + 8];

	(void)state;
	rejected("events", NULL, "input.events: missing");
	rejected("janks", "\"3\"", "input.janks: not an integer");
	rejected("disconnects", "-1", "input.disconnects: -1 is out of [0, 9223372036854775807]");
	rejected("trace_now", "-5", "input.trace_now: -5 is out of [0, 9223372036854775807]");
	rejected("events_per_sec", "-0.5", "input.events_per_sec: out of [0, 1e+12]");
	rejected("attached", "1", "input.attached: not true or false");
	rejected("state", "\"conn\\nected\"", "input.state: has a control character");
	rejected("state", "\"connected and more\"", "input.state: longer than 15 bytes");
	memset(big, 'u', sizeof(big));
	big[0] = '"';
	big[sizeof(big) - 2] = '"';
	big[sizeof(big) - 1] = '\0';
	rejected("url", big, "input.url: longer than 2047 bytes");
	rejected("graph.vertices", NULL, "input.graph.vertices: missing");
	rejected("graph", "[]", "input.graph: not an object");
	rejected("rules", "{}", "input.rules: not an array");
	rejected("rules", "[3]", "input.rules[0]: not an object");
	rejected("rules.0.threshold_kind", "\"magic\"",
		 "input.rules[0].threshold_kind: not a known value");
	/* The composition: K + 1 names at most, each once, valid text, known states, counts. */
	rejected("rules.0.composition",
		 "[{\"on\":\"a\"},{\"on\":\"b\"},{\"on\":\"c\"},{\"on\":\"d\"}]",
		 "input.rules[0].composition: more names than composition_top + 1");
	rejected("rules.0.composition_top", "33",
		 "input.rules[0].composition: more names than composition_top + 1");
	rejected("rules.0.composition", "[{\"on\":\"a\"},{\"on\":\"a\"}]",
		 "input.rules[0].composition[1].on: a name twice");
	rejected("rules.0.composition", "[{\"on\":\"a\\u0001\"}]",
		 "input.rules[0].composition[0].on: not a name");
	rejected("rules.0.composition", "[{\"on\":\"\"}]",
		 "input.rules[0].composition[0].on: not a name");
	rejected("rules.0.composition", "[{\"on\":\"a\",\"slow\":{\"napping\":1}}]",
		 "input.rules[0].composition[0].slow.napping: not a state");
	rejected("rules.0.composition", "[{\"on\":\"a\",\"slow\":{\"running\":-1}}]",
		 "input.rules[0].composition[0].slow.running: -1 is out of [0, "
		 "9223372036854775807]");
	rejected("rules.0.composition", "[{\"on\":\"a\",\"normal\":[]}]",
		 "input.rules[0].composition[0].normal: not an object");
	rejected("rules.0.composition", "{}", "input.rules[0].composition: not an array");
	rejected("rules.0.count", "3", "input.rules[0].count: differs from its histogram's");
	rejected("rules.0.histogram.buckets", "[[0, 1], [0, 1]]",
		 "input.rules[0].histogram.buckets[1][0]: 0 is out of [1, 975]");
	rejected("rules.0.histogram.buckets", "[[100000, 2]]",
		 "input.rules[0].histogram.buckets[0][0]: 100000 is out of [0, 975]");
	rejected("rules.0.histogram.buckets", "[[3, 0]]",
		 "input.rules[0].histogram.buckets[0][1]: 0 is out of [1, 9223372036854775807]");
	/* Not arrays where arrays are read: json-c asserts on them (SIGABRT). */
	rejected("rules.0.histogram.buckets", "[5]",
		 "input.rules[0].histogram.buckets[0]: not an array");
	rejected("rules.0.histogram.buckets", "[{}]",
		 "input.rules[0].histogram.buckets[0]: not an array");
	rejected("rules.0.histogram.buckets", "[[3]]",
		 "input.rules[0].histogram.buckets[0]: 1 elements, not 2");
	rejected("rules.0.histogram.buckets",
		 "[[1, 9223372036854775807], [2, 9223372036854775807], [3, 9223372036854775807]]",
		 "input.rules[0].histogram.buckets[2][1]: the counts overflow");
	rejected("rules.0.histogram.min", "6000000", "input.rules[0].histogram.min: above max");
	rejected("rules.0.histogram.sum", NULL, "input.rules[0].histogram.sum: missing");
	rejected("rules.1.last_jank_ns", "-1",
		 "input.rules[1].last_jank_ns: -1 is out of [0, 9223372036854775807]");
}

/* A rate that is a whole number may come as an integer; the figures must be an object. */
static void figures_lenient(void **state)
{
	struct jank_input_figures f, back;
	struct json_object *o;
	char err[128];

	(void)state;
	some_figures(&f);
	jank_input_figures_init(&back);
	o = travel(&f);
	set(o, "events_per_sec", "12");
	assert_int_equal(jank_worker_proto_figures_decode(o, &back, err, sizeof(err)), 0);
	assert_true(back.events_per_sec == 12.0);
	/* A tab is no control character a rule's name may not hold. */
	set(o, "rules.0.action", "\"frame\\tfast\"");
	assert_int_equal(jank_worker_proto_figures_decode(o, &back, err, sizeof(err)), 0);
	assert_string_equal(back.rules[0].action, "frame\tfast");
	json_object_put(o);
	o = json_object_new_array();
	assert_int_equal(jank_worker_proto_figures_decode(o, &back, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "input: not an object");
	json_object_put(o);
	jank_input_figures_fini(&f);
	jank_input_figures_fini(&back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(frames),
		cmocka_unit_test(reader_reused),
		cmocka_unit_test(log_lines),
		cmocka_unit_test(names),
		cmocka_unit_test(verdict_round_trip),
		cmocka_unit_test(alerted),
		cmocka_unit_test(figures_round_trip),
		cmocka_unit_test(figures_checked),
		cmocka_unit_test(figures_lenient),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
