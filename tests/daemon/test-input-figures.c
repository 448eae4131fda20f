/* SPDX-License-Identifier: MIT */
/*
 * daemon/input-figures.c: an input's counters across its workers. The last
 * status of each worker that ended is folded into a sum of the past, which
 * is added to the current worker's status; histograms add up bucket by bucket.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>
#include "histogram.h"
#include "input-figures.h"

static struct json_object *parse(const char *text)
{
	struct json_object *o = json_tokener_parse(text);

	assert_non_null(o);
	return o;
}

static int64_t get(struct json_object *o, const char *k)
{
	struct json_object *v;

	assert_true(json_object_object_get_ex(o, k, &v));
	return json_object_get_int64(v);
}

static bool has(struct json_object *o, const char *k)
{
	return json_object_object_get_ex(o, k, NULL);
}

static struct json_object *rule_at(struct json_object *status, size_t i)
{
	struct json_object *rules;

	assert_true(json_object_object_get_ex(status, "rules", &rules));
	return json_object_array_get_idx(rules, i);
}

static struct json_object *past_rule(struct json_object *past, const char *name)
{
	struct json_object *rules, *r;

	assert_true(json_object_object_get_ex(past, "rules", &rules));
	assert_true(json_object_object_get_ex(rules, name, &r));
	return r;
}

/* A worker's status (input-status.c), trimmed to what matters here. */
static const char *const worker1 =
	"{\"url\": \"net://r/host/h/s\", \"state\": \"connected\", \"events\": 100,"
	" \"events_read\": 110, \"discarded_events\": 2, \"disconnects\": 1, \"reconnects\": 1,"
	" \"actions_completed\": 10, \"janks\": 3, \"overdue\": 1, \"overdue_unsure\": 0,"
	" \"actions_expired\": 4, \"actions_replaced\": 5, \"actions_unmatched\": 6,"
	" \"actions_dropped\": 7, \"actions_evicted\": 8, \"paths_truncated\": 9,"
	" \"paths_incomplete\": 11, \"budget_forced\": 12, \"actions_open\": 3,"
	" \"memory_bytes\": 4096, \"p99_ns\": 7,"
	" \"rules\": [{\"action\": \"frame\", \"count\": 3, \"janks\": 2, \"overdue\": 1,"
	"   \"expired\": 1, \"evicted\": 0, \"p99_ns\": 5000,"
	"   \"histogram\": {\"sum\": 600, \"min\": 100, \"max\": 300,"
	"     \"buckets\": [[10, 1], [20, 2]]}}]}";

static const char *const worker2 =
	"{\"url\": \"net://r/host/h/s\", \"state\": \"reconnecting\", \"events\": 50,"
	" \"events_read\": 50, \"janks\": 2, \"actions_open\": 1, \"memory_bytes\": 100,"
	" \"rules\": [{\"action\": \"frame\", \"count\": 1, \"janks\": 1,"
	"   \"histogram\": {\"sum\": 50, \"min\": 50, \"max\": 50, \"buckets\": [[5, 1]]}},"
	"  {\"action\": \"io\", \"count\": 0, \"janks\": 0, \"evicted\": 4}]}";

static void fold_once(void **state)
{
	struct json_object *past = json_object_new_object(), *st = parse(worker1), *r;

	(void)state;
	jank_figures_fold(past, st);
	assert_int_equal(get(past, "events"), 100);
	assert_int_equal(get(past, "events_read"), 110);
	assert_int_equal(get(past, "discarded_events"), 2);
	assert_int_equal(get(past, "disconnects"), 1);
	assert_int_equal(get(past, "reconnects"), 1);
	assert_int_equal(get(past, "actions_completed"), 10);
	assert_int_equal(get(past, "janks"), 3);
	assert_int_equal(get(past, "overdue"), 1);
	assert_int_equal(get(past, "overdue_unsure"), 0);
	assert_int_equal(get(past, "actions_expired"), 4);
	assert_int_equal(get(past, "actions_replaced"), 5);
	assert_int_equal(get(past, "actions_unmatched"), 6);
	assert_int_equal(get(past, "actions_dropped"), 7);
	assert_int_equal(get(past, "actions_evicted"), 8);
	assert_int_equal(get(past, "paths_truncated"), 9);
	assert_int_equal(get(past, "paths_incomplete"), 11);
	assert_int_equal(get(past, "budget_forced"), 12);
	/* Gauges and the worker's own figures are not summed. */
	assert_false(has(past, "actions_open"));
	assert_false(has(past, "memory_bytes"));
	assert_false(has(past, "url"));
	assert_false(has(past, "state"));
	assert_false(has(past, "p99_ns"));
	r = past_rule(past, "frame");
	assert_int_equal(get(r, "count"), 3);
	assert_int_equal(get(r, "janks"), 2);
	assert_int_equal(get(r, "overdue"), 1);
	assert_int_equal(get(r, "expired"), 1);
	assert_int_equal(get(r, "evicted"), 0);
	assert_false(has(r, "p99_ns"));
	json_object_put(st);
	json_object_put(past);
}

static void fold_twice(void **state)
{
	struct json_object *past = json_object_new_object(), *a = parse(worker1),
			   *b = parse(worker2);
	struct jank_histogram *h = malloc(sizeof(*h));

	(void)state;
	assert_non_null(h);
	jank_figures_fold(past, a);
	jank_figures_fold(past, b);
	assert_int_equal(get(past, "events"), 150);
	assert_int_equal(get(past, "events_read"), 160);
	assert_int_equal(get(past, "janks"), 5);
	/* Absent from the second: unchanged. */
	assert_int_equal(get(past, "budget_forced"), 12);
	assert_int_equal(get(past_rule(past, "frame"), "count"), 4);
	assert_int_equal(get(past_rule(past, "frame"), "janks"), 3);
	assert_int_equal(get(past_rule(past, "frame"), "overdue"), 1);
	/* A rule new in the second worker (a reload added it). */
	assert_int_equal(get(past_rule(past, "io"), "evicted"), 4);
	assert_int_equal(get(past_rule(past, "io"), "count"), 0);
	/* The histograms add up. */
	assert_true(jank_figures_histogram(past_rule(past, "frame"), h));
	assert_int_equal(h->count, 4);
	assert_int_equal(h->sum, 650);
	assert_int_equal(h->min, 50);
	assert_int_equal(h->max, 300);
	assert_int_equal(h->buckets[5], 1);
	assert_int_equal(h->buckets[10], 1);
	assert_int_equal(h->buckets[20], 2);
	/* io had no histogram, and gets none. */
	assert_false(jank_figures_histogram(past_rule(past, "io"), h));
	free(h);
	json_object_put(a);
	json_object_put(b);
	json_object_put(past);
}

/* The current status plus the past: counters added, the rest the current worker's. */
static void merge(void **state)
{
	struct json_object *past = json_object_new_object(), *a = parse(worker1),
			   *b = parse(worker2);
	struct json_object *m, *frame, *io;
	struct jank_histogram *h = malloc(sizeof(*h));

	(void)state;
	assert_non_null(h);
	jank_figures_fold(past, a);
	m = jank_figures_merge(b, past);
	assert_non_null(m);
	assert_int_equal(get(m, "events"), 150);
	assert_int_equal(get(m, "janks"), 5);
	assert_int_equal(get(m, "actions_evicted"), 8);
	assert_int_equal(get(m, "actions_open"), 1);
	assert_int_equal(get(m, "memory_bytes"), 100);
	assert_string_equal(json_object_get_string(json_object_object_get(m, "state")),
			    "reconnecting");
	frame = rule_at(m, 0);
	assert_int_equal(get(frame, "count"), 4);
	assert_int_equal(get(frame, "janks"), 3);
	assert_int_equal(get(frame, "overdue"), 1);
	assert_true(jank_figures_histogram(frame, h));
	assert_int_equal(h->count, 4);
	assert_int_equal(h->sum, 650);
	assert_int_equal(h->min, 50);
	assert_int_equal(h->max, 300);
	io = rule_at(m, 1);
	assert_int_equal(get(io, "evicted"), 4);
	assert_int_equal(json_object_array_length(json_object_object_get(m, "rules")), 2);
	/* The status itself is left as it was. */
	assert_int_equal(get(b, "events"), 50);
	assert_int_equal(get(rule_at(b, 0), "count"), 1);
	free(h);
	json_object_put(m);
	json_object_put(a);
	json_object_put(b);
	json_object_put(past);
}

/* A past rule the current worker no longer has (a reload removed it): not shown. */
static void merge_rule_gone(void **state)
{
	struct json_object *past = json_object_new_object(), *b = parse(worker2), *m;
	struct json_object *a =
		parse("{\"events\": 1, \"rules\": [{\"action\": \"old\", \"count\": 9}]}");

	(void)state;
	jank_figures_fold(past, a);
	m = jank_figures_merge(b, past);
	assert_non_null(m);
	assert_int_equal(json_object_array_length(json_object_object_get(m, "rules")), 2);
	assert_int_equal(get(rule_at(m, 0), "count"), 1);
	assert_int_equal(get(m, "events"), 51);
	json_object_put(m);
	json_object_put(a);
	json_object_put(b);
	json_object_put(past);
}

/* No past: the status as it is (a copy). */
static void merge_empty_past(void **state)
{
	struct json_object *past = json_object_new_object(), *b = parse(worker2), *m;

	(void)state;
	m = jank_figures_merge(b, past);
	assert_non_null(m);
	assert_ptr_not_equal(m, b);
	assert_true(json_object_equal(m, b));
	json_object_put(m);
	m = jank_figures_merge(b, NULL);
	assert_non_null(m);
	assert_true(json_object_equal(m, b));
	json_object_put(m);
	json_object_put(b);
	json_object_put(past);
}

/* The first status of an input, before its worker says anything: no counters. */
static void fold_first_status(void **state)
{
	struct json_object *past = json_object_new_object();
	struct json_object *st =
		parse("{\"url\": \"u\", \"state\": \"connecting\", \"rules\": []}");

	(void)state;
	jank_figures_fold(past, st);
	assert_false(has(past, "events"));
	assert_int_equal(json_object_object_length(json_object_object_get(past, "rules")), 0);
	json_object_put(st);
	json_object_put(past);
}

static void histogram_read(void **state)
{
	struct jank_histogram *h = malloc(sizeof(*h));
	struct json_object *r = parse("{\"histogram\": {\"sum\": 1000, \"min\": 7, \"max\": 900,"
				      " \"buckets\": [[3, 2], [-1, 5], [99999, 5], [4, 0],"
				      " [4, -3], [50, 1]]}}");

	(void)state;
	assert_non_null(h);
	assert_true(jank_figures_histogram(r, h));
	/* Out-of-range indexes and non-positive counts are ignored. */
	assert_int_equal(h->count, 3);
	assert_int_equal(h->buckets[3], 2);
	assert_int_equal(h->buckets[4], 0);
	assert_int_equal(h->buckets[50], 1);
	assert_int_equal(h->sum, 1000);
	assert_int_equal(h->min, 7);
	assert_int_equal(h->max, 900);
	json_object_put(r);
	free(h);
}

static void histogram_absent(void **state)
{
	struct jank_histogram *h = malloc(sizeof(*h)), *empty = malloc(sizeof(*empty));
	struct json_object *r = parse("{\"action\": \"x\"}");
	struct json_object *nob = parse("{\"histogram\": {\"sum\": 5}}");

	(void)state;
	assert_non_null(h);
	assert_non_null(empty);
	jank_histogram_init(empty);
	memset(h, 0x77, sizeof(*h));
	assert_false(jank_figures_histogram(r, h));
	assert_memory_equal(h, empty, sizeof(*h));
	memset(h, 0x77, sizeof(*h));
	assert_false(jank_figures_histogram(nob, h));
	assert_memory_equal(h, empty, sizeof(*h));
	assert_false(jank_figures_histogram(NULL, h));
	json_object_put(r);
	json_object_put(nob);
	free(h);
	free(empty);
}

/* min and max of an empty side do not count (its 0s are no values). */
static void histogram_min_max(void **state)
{
	struct json_object *past = json_object_new_object();
	struct json_object *a = parse("{\"rules\": [{\"action\": \"f\", \"histogram\": {\"sum\": 0,"
				      " \"min\": 0, \"max\": 0, \"buckets\": []}}]}");
	struct json_object *b =
		parse("{\"rules\": [{\"action\": \"f\", \"histogram\": {\"sum\": 900,"
		      " \"min\": 400, \"max\": 500, \"buckets\": [[30, 2]]}}]}");
	struct jank_histogram *h = malloc(sizeof(*h));

	(void)state;
	assert_non_null(h);
	jank_figures_fold(past, a);
	jank_figures_fold(past, b);
	assert_true(jank_figures_histogram(past_rule(past, "f"), h));
	assert_int_equal(h->count, 2);
	assert_int_equal(h->min, 400);
	assert_int_equal(h->max, 500);
	assert_int_equal(h->sum, 900);
	json_object_put(a);
	json_object_put(b);
	json_object_put(past);
	free(h);
}

/* A sum that would overflow stays at its largest value. */
static void histogram_sum_saturates(void **state)
{
	struct json_object *past = json_object_new_object();
	struct json_object *a = parse("{\"rules\": [{\"action\": \"f\", \"histogram\": {\"sum\":"
				      " 9223372036854775807, \"min\": 1, \"max\": 1,"
				      " \"buckets\": [[1, 1]]}}]}");
	struct jank_histogram *h = malloc(sizeof(*h));

	(void)state;
	assert_non_null(h);
	jank_figures_fold(past, a);
	jank_figures_fold(past, a);
	jank_figures_fold(past, a);
	assert_true(jank_figures_histogram(past_rule(past, "f"), h));
	assert_int_equal(h->count, 3);
	assert_int_equal(h->sum, (uint64_t)INT64_MAX);
	json_object_put(a);
	json_object_put(past);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fold_once),
		cmocka_unit_test(fold_twice),
		cmocka_unit_test(merge),
		cmocka_unit_test(merge_rule_gone),
		cmocka_unit_test(merge_empty_past),
		cmocka_unit_test(fold_first_status),
		cmocka_unit_test(histogram_read),
		cmocka_unit_test(histogram_absent),
		cmocka_unit_test(histogram_min_max),
		cmocka_unit_test(histogram_sum_saturates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
