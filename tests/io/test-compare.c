/* SPDX-License-Identifier: MIT */
/*
 * io/compare.c: two groups of hand-made profiles compared component by
 * component: means, nearest-rank percentiles with the implicit zeros, the
 * order of the rows, their labels, the table and the JSON.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "compare.h"

#define MS 1000000LL

static struct jank_comp comp(enum jank_comp_kind kind, enum jank_state s, uint64_t id, int64_t ns,
			     const char *process, const char *thread)
{
	struct jank_comp c = { 0 };

	c.key.kind = (uint8_t)kind;
	c.key.state = (uint8_t)s;
	c.key.id = id;
	c.ns = ns;
	snprintf(c.process, sizeof(c.process), "%s", process);
	snprintf(c.thread, sizeof(c.thread), "%s", thread);
	return c;
}

static struct jank_profile profile(int64_t duration, struct jank_comp *comps, size_t n)
{
	struct jank_profile pf = { 0 };

	pf.duration = duration;
	pf.per_state[JANK_STATE_RUNNING] = 10 * MS;
	pf.comps = comps;
	pf.n = n;
	return pf;
}

/*
 * A (slow): 30 ms and 10 ms; B (normal): three of 10 ms. A's first spends
 * 20 ms on the disk (a hop) and 5 ms behind db; B's first 1 ms on the disk.
 * Lock 0x10: 2 ms in one A, 3 ms in one B, equal means. B's second is
 * preempted 6 ms. A's first has 1 us on "tiny": under the table's floor.
 */
static struct jank_compare *filled(void)
{
	struct jank_compare *c = jank_compare_new("slow", "normal");
	struct jank_comp a1[] = {
		comp(JANK_COMP_THREAD, JANK_STATE_BLOCKED, 7, 5 * MS, "r", "db"),
		comp(JANK_COMP_THREAD, JANK_STATE_RUNNING, 9, 1000, "", "tiny"),
	};
	struct jank_comp a2[] = { comp(JANK_COMP_LOCK, 0, 0x10, 2 * MS, "", "") };
	struct jank_comp b1[] = { comp(JANK_COMP_LOCK, 0, 0x10, 3 * MS, "db", "db") };
	struct jank_profile pf;

	assert_non_null(c);
	pf = profile(30 * MS, a1, 2);
	pf.per_state[JANK_STATE_BLOCK_DEVICE] = 20 * MS;
	assert_int_equal(jank_compare_add(c, JANK_CMP_A, &pf), 0);
	pf = profile(10 * MS, a2, 1);
	assert_int_equal(jank_compare_add(c, JANK_CMP_A, &pf), 0);
	pf = profile(10 * MS, b1, 1);
	pf.per_state[JANK_STATE_BLOCK_DEVICE] = 1 * MS;
	assert_int_equal(jank_compare_add(c, JANK_CMP_B, &pf), 0);
	pf = profile(10 * MS, NULL, 0);
	pf.per_state[JANK_STATE_PREEMPTED] = 6 * MS;
	assert_int_equal(jank_compare_add(c, JANK_CMP_B, &pf), 0);
	pf = profile(10 * MS, NULL, 0);
	assert_int_equal(jank_compare_add(c, JANK_CMP_B, &pf), 0);
	assert_int_equal(jank_compare_finish(c), 0);
	return c;
}

static void check_stats(const struct jank_cmp_stats *s, double mean, int64_t p50, int64_t p99)
{
	assert_true(s->mean > mean - 0.01 && s->mean < mean + 0.01);
	assert_int_equal(s->p50, p50);
	assert_int_equal(s->p99, p99);
}

static void empty(void **state)
{
	struct jank_compare *c = jank_compare_new("after", "before");
	size_t n = 99;

	(void)state;
	assert_non_null(c);
	assert_string_equal(jank_compare_name(c, JANK_CMP_A), "after");
	assert_string_equal(jank_compare_name(c, JANK_CMP_B), "before");
	assert_null(jank_compare_rows(c, &n)); /* not finished */
	assert_int_equal(n, 0);
	assert_int_equal(jank_compare_finish(c), 0);
	assert_int_equal(jank_compare_count(c, JANK_CMP_A), 0);
	check_stats(jank_compare_duration(c, JANK_CMP_A), 0, 0, 0);
	check_stats(jank_compare_duration(c, JANK_CMP_B), 0, 0, 0);
	assert_non_null(jank_compare_rows(c, &n));
	assert_int_equal(n, 0);
	jank_compare_free(c);
	jank_compare_free(NULL);
}

static void stats(void **state)
{
	struct jank_compare *c = filled();
	const struct jank_cmp_row *rows;
	size_t n;

	(void)state;
	assert_int_equal(jank_compare_count(c, JANK_CMP_A), 2);
	assert_int_equal(jank_compare_count(c, JANK_CMP_B), 3);
	check_stats(jank_compare_duration(c, JANK_CMP_A), 20 * MS, 10 * MS, 30 * MS);
	check_stats(jank_compare_duration(c, JANK_CMP_B), 10 * MS, 10 * MS, 10 * MS);
	rows = jank_compare_rows(c, &n);
	assert_int_equal(n, 6);
	/* Largest increase first; equal ones by kind (lock before state). */
	assert_int_equal(rows[0].key.kind, JANK_COMP_HOP);
	assert_int_equal(rows[0].key.state, JANK_STATE_BLOCK_DEVICE);
	check_stats(&rows[0].g[0], 10 * MS, 0, 20 * MS); /* one zero, one 20 ms */
	check_stats(&rows[0].g[1], MS / 3.0, 0, 1 * MS);
	assert_true(rows[0].diff > 9666666.66 && rows[0].diff < 9666666.67);
	assert_int_equal(rows[1].key.kind, JANK_COMP_THREAD);
	assert_int_equal(rows[1].key.id, 7);
	check_stats(&rows[1].g[0], 2.5 * MS, 0, 5 * MS);
	check_stats(&rows[1].g[1], 0, 0, 0);
	assert_string_equal(rows[1].process, "r");
	assert_string_equal(rows[1].thread, "db");
	assert_int_equal(rows[2].key.id, 9);
	assert_true(rows[2].diff == 500.0);
	assert_int_equal(rows[3].key.kind, JANK_COMP_LOCK);
	assert_true(rows[3].diff == 0.0);
	assert_string_equal(rows[3].thread, "db"); /* the first name seen */
	assert_int_equal(rows[4].key.kind, JANK_COMP_STATE);
	assert_int_equal(rows[4].key.state, JANK_STATE_RUNNING);
	check_stats(&rows[4].g[0], 10 * MS, 10 * MS, 10 * MS);
	assert_true(rows[4].diff == 0.0);
	assert_int_equal(rows[5].key.state, JANK_STATE_PREEMPTED);
	check_stats(&rows[5].g[1], 2 * MS, 0, 6 * MS);
	assert_true(rows[5].diff == -2.0 * MS);
	/* Finishing again gives the same rows. */
	assert_int_equal(jank_compare_finish(c), 0);
	rows = jank_compare_rows(c, &n);
	assert_int_equal(n, 6);
	assert_int_equal(rows[0].key.kind, JANK_COMP_HOP);
	jank_compare_free(c);
}

static void percentiles(void **state)
{
	struct jank_compare *c = jank_compare_new("a", "b");
	const struct jank_cmp_row *rows;
	struct jank_profile pf;
	size_t n;

	(void)state;
	/* 100 actions of 1..100 ms: p50 the 50th, p99 the 99th. */
	for (int i = 100; i >= 1; i--) {
		pf = profile(i * MS, NULL, 0);
		pf.per_state[JANK_STATE_RUNNING] = i <= 98 ? 0 : i; /* two nonzero of 100 */
		assert_int_equal(jank_compare_add(c, JANK_CMP_A, &pf), 0);
	}
	pf = profile(INT64_MAX, NULL, 0);
	assert_int_equal(jank_compare_add(c, JANK_CMP_B, &pf), 0);
	assert_int_equal(jank_compare_finish(c), 0);
	check_stats(jank_compare_duration(c, JANK_CMP_A), 50.5 * MS, 50 * MS, 99 * MS);
	assert_int_equal(jank_compare_duration(c, JANK_CMP_B)->p50, INT64_MAX);
	assert_int_equal(jank_compare_duration(c, JANK_CMP_B)->p99, INT64_MAX);
	rows = jank_compare_rows(c, &n);
	assert_int_equal(n, 1);
	check_stats(&rows[0].g[0], 1.99, 0, 99);
	check_stats(&rows[0].g[1], 10 * MS, 10 * MS, 10 * MS);
	jank_compare_free(c);
}

static void labels(void **state)
{
	struct jank_cmp_row r = { 0 };
	char buf[64];

	(void)state;
	r.key.kind = JANK_COMP_HOP;
	r.key.state = JANK_STATE_BLOCK_DEVICE;
	assert_string_equal(jank_compare_label(&r, buf, sizeof(buf)), "hop block_device");
	r.key.kind = JANK_COMP_STATE;
	r.key.state = JANK_STATE_RUNNING;
	assert_string_equal(jank_compare_label(&r, buf, sizeof(buf)), "state running");
	r.key.kind = JANK_COMP_THREAD;
	r.key.state = JANK_STATE_BLOCK_DEVICE;
	assert_string_equal(jank_compare_label(&r, buf, sizeof(buf)), "thread ?: block_device");
	strcpy(r.process, "renderer");
	strcpy(r.thread, "db");
	assert_string_equal(jank_compare_label(&r, buf, sizeof(buf)),
			    "thread renderer/db: block_device");
	assert_string_equal(jank_compare_label(&r, buf, 7), "thread");
	r.key.kind = JANK_COMP_LOCK;
	r.key.state = 0;
	r.key.id = 0x55d0;
	assert_string_equal(jank_compare_label(&r, buf, sizeof(buf)),
			    "lock 0x55d0 (held by renderer/db)");
	r.thread[0] = '\0';
	assert_string_equal(jank_compare_label(&r, buf, sizeof(buf)), "lock 0x55d0");
	r.key.id = UINT64_MAX;
	assert_string_equal(jank_compare_label(&r, buf, sizeof(buf)), "lock 0xffffffffffffffff");
}

static char *table(const struct jank_compare *c, size_t max_rows)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	jank_compare_text(f, c, "frame: 2 slow against 3 normal", max_rows);
	assert_int_equal(fclose(f), 0);
	return buf;
}

#define HEAD                                                                                       \
	"frame: 2 slow against 3 normal\n\n"                                                       \
	"                                         slow (2)                       normal (3)\n"     \
	"component                                     mean       p50       p99       mean       " \
	"p50       p99  difference\n"                                                              \
	"duration                                   20.0 ms   10.0 ms   30.0 ms    10.0 ms   "     \
	"10.0 ms   10.0 ms    +10.0 ms\n"
#define ROW_HOP                                                                                    \
	"hop block_device                           10.0 ms         0   20.0 ms     333 us       " \
	"  "                                                                                       \
	"0   1.00 ms    +9.67 ms\n"
#define ROW_THREAD                                                                                 \
	"thread r/db: blocked                       2.50 ms         0   5.00 ms          0       " \
	"  "                                                                                       \
	"0         0    +2.50 ms\n"

static void text(void **state)
{
	struct jank_compare *c = filled();
	char *t;

	(void)state;
	t = table(c, 10);
	assert_string_equal(
		t, HEAD ROW_HOP ROW_THREAD
		"lock 0x10 (held by db)                     1.00 ms         0   2.00 ms    "
		"1.00 ms         0   3.00 ms           0\n"
		"state running                              10.0 ms   10.0 ms   10.0 ms    "
		"10.0 ms   10.0 ms   10.0 ms           0\n"
		"state preempted                                  0         0         0    "
		"2.00 ms         0   6.00 ms    -2.00 ms\n");
	free(t);
	t = table(c, 2);
	assert_string_equal(t, HEAD ROW_HOP ROW_THREAD "… 3 more components (see --format json)\n");
	free(t);
	t = table(c, 0);
	assert_string_equal(t, HEAD "… 5 more components (see --format json)\n");
	free(t);
	jank_compare_free(c);
}

static void json(void **state)
{
	struct jank_compare *c = filled();
	struct json_object *o = jank_compare_json(c, "frame");

	(void)state;
	assert_non_null(o);
	assert_string_equal(
		json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
		"{\"type\":\"compare\",\"action\":\"frame\",\"groups\":[{\"name\":\"slow\","
		"\"count\":2,\"duration\":{\"mean_ns\":20000000,\"p50_ns\":10000000,\"p99_ns\":"
		"30000000}},{\"name\":\"normal\",\"count\":3,\"duration\":{\"mean_ns\":10000000,"
		"\"p50_ns\":10000000,\"p99_ns\":10000000}}],\"components\":[{\"kind\":\"hop\","
		"\"state\":\"block_device\",\"slow\":{\"mean_ns\":10000000,\"p50_ns\":0,"
		"\"p99_ns\":20000000},\"normal\":{\"mean_ns\":333333,\"p50_ns\":0,\"p99_ns\":"
		"1000000},\"difference_ns\":9666667},{\"kind\":\"thread\",\"state\":\"blocked\","
		"\"process\":\"r\",\"thread\":\"db\",\"slow\":{\"mean_ns\":2500000,\"p50_ns\":0,"
		"\"p99_ns\":5000000},\"normal\":{\"mean_ns\":0,\"p50_ns\":0,\"p99_ns\":0},"
		"\"difference_ns\":2500000},{\"kind\":\"thread\",\"state\":\"running\","
		"\"process\":\"\",\"thread\":\"tiny\",\"slow\":{\"mean_ns\":500,\"p50_ns\":0,"
		"\"p99_ns\":1000},\"normal\":{\"mean_ns\":0,\"p50_ns\":0,\"p99_ns\":0},"
		"\"difference_ns\":500},{\"kind\":\"lock\",\"lock\":\"0x10\",\"process\":\"db\","
		"\"thread\":\"db\",\"slow\":{\"mean_ns\":1000000,\"p50_ns\":0,\"p99_ns\":2000000},"
		"\"normal\":{\"mean_ns\":1000000,\"p50_ns\":0,\"p99_ns\":3000000},"
		"\"difference_ns\":0},{\"kind\":\"state\",\"state\":\"running\",\"slow\":{"
		"\"mean_ns\":10000000,\"p50_ns\":10000000,\"p99_ns\":10000000},\"normal\":{"
		"\"mean_ns\":10000000,\"p50_ns\":10000000,\"p99_ns\":10000000},"
		"\"difference_ns\":0},{\"kind\":\"state\",\"state\":\"preempted\",\"slow\":{"
		"\"mean_ns\":0,\"p50_ns\":0,\"p99_ns\":0},\"normal\":{\"mean_ns\":2000000,"
		"\"p50_ns\":0,\"p99_ns\":6000000},\"difference_ns\":-2000000}]}");
	json_object_put(o);
	jank_compare_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty),  cmocka_unit_test(stats), cmocka_unit_test(percentiles),
		cmocka_unit_test(labels), cmocka_unit_test(text),  cmocka_unit_test(json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
