/* SPDX-License-Identifier: MIT */
/*
 * daemon/worker-proto.c, alerted.c and input-figures.c: what the workers
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
#include <string.h>
#include <cmocka.h>
#include "alerted.h"
#include "format.h"
#include "input-figures.h"
#include "json-util.h"
#include "worker-proto.h"

#define MS 1000000LL
#define S  1000000000LL

/* Frames: whole ones come out one by one, a partial one waits, a huge one is refused. */
static void frames(void **state)
{
	struct evbuffer *b = evbuffer_new();
	struct json_object *m = jank_proto_new("status"), *got = NULL;
	uint32_t head = htonl(JANK_PROTO_MAX_FRAME + 1);

	(void)state;
	assert_int_equal(jank_proto_put(b, m), 0);
	assert_int_equal(jank_proto_put(b, m), 0);
	evbuffer_add(b, "\0\0", 2); /* half a header */
	assert_int_equal(jank_proto_take(b, &got), 1);
	assert_string_equal(jank_proto_type(got), "status");
	json_object_put(got);
	assert_int_equal(jank_proto_take(b, &got), 1);
	json_object_put(got);
	assert_int_equal(jank_proto_take(b, &got), 0);
	assert_null(got);
	evbuffer_drain(b, evbuffer_get_length(b));
	evbuffer_add(b, &head, sizeof(head));
	assert_int_equal(jank_proto_take(b, &got), -EPROTO);
	evbuffer_drain(b, evbuffer_get_length(b));
	head = htonl(2);
	evbuffer_add(b, &head, sizeof(head));
	evbuffer_add(b, "[]", 2); /* JSON, not an object */
	assert_int_equal(jank_proto_take(b, &got), -EPROTO);
	json_object_put(m);
	evbuffer_free(b);
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
		},
		.n = 3,
		.ran = { { .tid = 812, .ns = 12000000, .comm = "hog" } },
		.nran = 1,
	};
	struct jank_verdict_decoded pv;
	char err[256];
	struct json_object *o, *a, *b;

	(void)state;
	ss.items[0].comp.key.id = jank_comp_identity("db", "db-io");
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
	assert_int_equal(jank_proto_verdict_decode(o, mine, 2, &pv, err, sizeof(err)), 0);
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
	assert_int_equal(pv.breakdown.n, bd.n);
	assert_int_equal(pv.breakdown.per_state[JANK_STATE_LOCK_WAIT], 250);
	assert_int_equal(pv.breakdown.nlocks, 1);
	assert_null(pv.v.suspects);
	jank_verdict_decoded_fini(&pv);
	json_object_put(o);
	/* Suspects go through whole: the alert's JANK_SUSPECTS and MESSAGE are the worker's. */
	v.suspects = &ss;
	o = jank_verdict_to_json(&v, JANK_VERDICT_JSON_FULL);
	assert_int_equal(jank_proto_verdict_decode(o, mine, 2, &pv, err, sizeof(err)), 0);
	assert_non_null(pv.v.suspects);
	a = jank_suspects_to_json(&ss);
	b = jank_suspects_to_json(pv.v.suspects);
	assert_string_equal(json_object_to_json_string(a), json_object_to_json_string(b));
	json_object_put(a);
	json_object_put(b);
	jank_verdict_decoded_fini(&pv);
	/* A rule the receiver no longer has: a stub of that name, which captures nothing. */
	assert_int_equal(jank_proto_verdict_decode(o, mine, 1, &pv, err, sizeof(err)), 0);
	assert_string_equal(pv.v.rule->name, "frame");
	assert_false(pv.v.rule->capture);
	assert_int_equal(pv.v.rule_index, UINT32_MAX);
	jank_verdict_decoded_fini(&pv);
	json_object_put(o);
	o = json_tokener_parse("{\"action\":\"frame\"}");
	assert_int_equal(jank_proto_verdict_decode(o, mine, 2, &pv, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "key: missing");
	jank_verdict_decoded_fini(&pv);
	json_object_put(o);
	jank_breakdown_fini(&bd);
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

/* Two workers ended, a third runs: the counters add up, the percentiles are the third's. */
static void figures(void **state)
{
	struct json_object *past = json_object_new_object(), *now, *m, *r;
	const char *w1 = "{\"events\":100,\"janks\":2,\"state\":\"connected\",\"rules\":"
			 "[{\"action\":\"frame\",\"count\":50,\"janks\":2,\"p99_ns\":9}]}";
	const char *w2 = "{\"events\":10,\"rules\":[{\"action\":\"frame\",\"count\":5,"
			 "\"janks\":0},{\"action\":\"gone\",\"count\":7}]}";
	int64_t v;

	(void)state;
	m = json_tokener_parse(w1);
	jank_figures_fold(past, m);
	json_object_put(m);
	m = json_tokener_parse(w2);
	jank_figures_fold(past, m);
	json_object_put(m);
	now = json_tokener_parse("{\"events\":1,\"state\":\"connected\",\"rules\":"
				 "[{\"action\":\"frame\",\"count\":1,\"janks\":1,\"p99_ns\":3}]}");
	m = jank_figures_merge(now, past);
	assert_true(jank_json_get_i64(m, "events", &v));
	assert_int_equal(v, 111);
	assert_true(jank_json_get_i64(m, "janks", &v));
	assert_int_equal(v, 2);
	assert_string_equal(jank_json_get_str(m, "state"), "connected");
	r = json_object_array_get_idx(jank_json_get(m, "rules", json_type_array), 0);
	assert_true(jank_json_get_i64(r, "count", &v));
	assert_int_equal(v, 56);
	assert_true(jank_json_get_i64(r, "janks", &v));
	assert_int_equal(v, 3);
	assert_true(jank_json_get_i64(r, "p99_ns", &v));
	assert_int_equal(v, 3);
	assert_int_equal(json_object_array_length(jank_json_get(m, "rules", json_type_array)), 1);
	/* The current status is not changed. */
	assert_true(jank_json_get_i64(now, "events", &v));
	assert_int_equal(v, 1);
	json_object_put(m);
	json_object_put(now);
	json_object_put(past);
}

/*
 * The metrics of an input outlive its workers: each rule's histogram (sum,
 * min, max, buckets) and its overdue, expired and evicted counts add up.
 */
static void figures_histograms(void **state)
{
	struct json_object *past = json_object_new_object(), *now, *m, *r;
	unsigned b1 = jank_histogram_bucket(1000), b2 = jank_histogram_bucket(5000000);
	struct jank_histogram h;
	char w1[512], w2[512];
	int64_t v;

	(void)state;
	snprintf(w1, sizeof(w1),
		 "{\"rules\":[{\"action\":\"frame\",\"count\":3,\"overdue\":1,\"expired\":2,"
		 "\"histogram\":{\"sum\":5002000,\"min\":1000,\"max\":5000000,"
		 "\"buckets\":[[%u,2],[%u,1]]}}]}",
		 b1, b2);
	snprintf(w2, sizeof(w2),
		 "{\"rules\":[{\"action\":\"frame\",\"count\":1,\"evicted\":4,"
		 "\"histogram\":{\"sum\":900,\"min\":900,\"max\":900,\"buckets\":[[%u,1]]}}]}",
		 jank_histogram_bucket(900));
	m = json_tokener_parse(w1);
	jank_figures_fold(past, m);
	json_object_put(m);
	now = json_tokener_parse(w2);
	m = jank_figures_merge(now, past);
	r = json_object_array_get_idx(jank_json_get(m, "rules", json_type_array), 0);
	assert_true(jank_figures_histogram(r, &h));
	assert_int_equal(h.count, 4);
	assert_int_equal(h.sum, 5002900);
	assert_int_equal(h.min, 900);
	assert_int_equal(h.max, 5000000);
	assert_int_equal(h.buckets[b1], 2 + (jank_histogram_bucket(900) == b1));
	assert_true(h.buckets[jank_histogram_bucket(900)] >= 1);
	assert_int_equal(h.buckets[b2], 1);
	assert_true(jank_json_get_i64(r, "overdue", &v) && v == 1);
	assert_true(jank_json_get_i64(r, "expired", &v) && v == 2);
	assert_true(jank_json_get_i64(r, "evicted", &v) && v == 4);
	/* A rule without a histogram reads as an empty one. */
	assert_false(jank_figures_histogram(now, &h));
	assert_int_equal(h.count, 0);
	json_object_put(m);
	json_object_put(now);
	json_object_put(past);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(frames),
		cmocka_unit_test(verdict_round_trip),
		cmocka_unit_test(alerted),
		cmocka_unit_test(figures),
		cmocka_unit_test(figures_histograms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
