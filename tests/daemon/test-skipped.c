/* SPDX-License-Identifier: MIT */
/*
 * daemon/fleet/skipped.c: what a worker restart skipped (the range between the
 * old worker's last event and its successor's first), and which actions
 * overlap it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "skipped.h"

#define S    1000000000LL
#define MS   1000000LL
#define NONE INT64_MIN

static void first_worker_skips_nothing(void **state)
{
	struct jank_skipped s;
	struct jank_skipped_range r;

	(void)state;
	jank_skipped_init(&s);
	assert_false(jank_skipped_progress(&s, 10 * S, 11 * S, 3, &r));
	assert_false(jank_skipped_progress(&s, 10 * S, 12 * S, 2, &r));
	assert_int_equal(s.total_ns, 0);
	assert_int_equal(s.nranges, 0);
	assert_int_equal(jank_skipped_overlap(&s, 0, 100 * S), 0);
}

/* Killed at its last event 12 s; the new one starts at 14.3 s: 2.3 s, 2 open actions lost. */
static void restart_skips_the_gap(void **state)
{
	struct jank_skipped s;
	struct jank_skipped_range r;

	(void)state;
	jank_skipped_init(&s);
	jank_skipped_progress(&s, 10 * S, 12 * S, 2, &r);
	jank_skipped_worker_ended(&s);
	/* The new worker has not read anything yet: nothing to say. */
	assert_false(jank_skipped_progress(&s, NONE, NONE, 0, &r));
	assert_true(jank_skipped_progress(&s, 14 * S + 300 * MS, 15 * S, 1, &r));
	assert_int_equal(r.from, 12 * S);
	assert_int_equal(r.to, 14 * S + 300 * MS);
	assert_int_equal(r.lost, 2);
	assert_int_equal(s.total_ns, 2 * S + 300 * MS);
	assert_int_equal(s.lost, 2);
	assert_int_equal(s.nranges, 1);
	/* Said once. */
	assert_false(jank_skipped_progress(&s, 14 * S + 300 * MS, 16 * S, 0, &r));
	assert_int_equal(s.total_ns, 2 * S + 300 * MS);
}

/* The old worker's verdicts count as read: the range starts at the latest event seen. */
static void last_is_the_latest_seen(void **state)
{
	struct jank_skipped s;
	struct jank_skipped_range r;

	(void)state;
	jank_skipped_init(&s);
	jank_skipped_progress(&s, 10 * S, 12 * S, 0, &r);
	jank_skipped_progress(&s, NONE, 12 * S + 200 * MS, 0, &r); /* a verdict's end */
	jank_skipped_progress(&s, NONE, 11 * S, 0, &r);		   /* an older one */
	jank_skipped_worker_ended(&s);
	assert_true(jank_skipped_progress(&s, 13 * S, 13 * S, 0, &r));
	assert_int_equal(r.from, 12 * S + 200 * MS);
	assert_int_equal(s.total_ns, 800 * MS);
}

/* relayd served packets the old worker had read: no gap, nothing counted. */
static void replay_is_no_gap(void **state)
{
	struct jank_skipped s;
	struct jank_skipped_range r;

	(void)state;
	jank_skipped_init(&s);
	jank_skipped_progress(&s, 10 * S, 12 * S, 4, &r);
	jank_skipped_worker_ended(&s);
	assert_false(jank_skipped_progress(&s, 11 * S, 13 * S, 0, &r));
	assert_int_equal(s.total_ns, 0);
	assert_int_equal(s.lost, 0);
	/* A later restart is measured from the new worker's events. */
	jank_skipped_worker_ended(&s);
	assert_true(jank_skipped_progress(&s, 14 * S, 14 * S, 0, &r));
	assert_int_equal(r.from, 13 * S);
	assert_int_equal(s.total_ns, 1 * S);
}

/* A worker that read nothing before it died: the gap runs from the last worker that did. */
static void empty_worker_keeps_the_gap(void **state)
{
	struct jank_skipped s;
	struct jank_skipped_range r;

	(void)state;
	jank_skipped_init(&s);
	jank_skipped_progress(&s, 10 * S, 12 * S, 5, &r);
	jank_skipped_worker_ended(&s);
	jank_skipped_progress(&s, NONE, NONE, 0, &r);
	jank_skipped_worker_ended(&s);
	assert_true(jank_skipped_progress(&s, 20 * S, 21 * S, 0, &r));
	assert_int_equal(r.from, 12 * S);
	assert_int_equal(r.to, 20 * S);
	assert_int_equal(r.lost, 5);
	assert_int_equal(s.total_ns, 8 * S);
}

/* Overlap: what of [begin, end] lies in the ranges; touching is not overlapping. */
static void overlap(void **state)
{
	struct jank_skipped s;
	struct jank_skipped_range r;

	(void)state;
	jank_skipped_init(&s);
	jank_skipped_progress(&s, 10 * S, 12 * S, 0, &r);
	jank_skipped_worker_ended(&s);
	jank_skipped_progress(&s, 14 * S, 20 * S, 0, &r);
	jank_skipped_worker_ended(&s);
	jank_skipped_progress(&s, 21 * S, 22 * S, 0, &r);
	assert_int_equal(s.nranges, 2);
	assert_int_equal(jank_skipped_overlap(&s, 11 * S, 12 * S), 0);
	assert_int_equal(jank_skipped_overlap(&s, 14 * S, 15 * S), 0);
	assert_int_equal(jank_skipped_overlap(&s, 11 * S, 13 * S), 1 * S);
	assert_int_equal(jank_skipped_overlap(&s, 13 * S, 15 * S), 1 * S);
	assert_int_equal(jank_skipped_overlap(&s, 12 * S + 500 * MS, 13 * S), 500 * MS);
	assert_int_equal(jank_skipped_overlap(&s, 0, 30 * S), 3 * S);
	assert_int_equal(jank_skipped_overlap(&s, 15 * S, 20 * S), 0);
}

/* Only the last JANK_SKIPPED_RANGES ranges are remembered; the sums count them all. */
static void ring_of_ranges(void **state)
{
	struct jank_skipped s;
	struct jank_skipped_range r;
	int n = JANK_SKIPPED_RANGES + 4;

	(void)state;
	jank_skipped_init(&s);
	jank_skipped_progress(&s, 0, 1 * S, 1, &r);
	for (int i = 1; i <= n; i++) {
		jank_skipped_worker_ended(&s);
		assert_true(jank_skipped_progress(&s, (2 * i) * S, (2 * i + 1) * S, 1, &r));
	}
	assert_int_equal(s.nranges, (uint64_t)n);
	assert_int_equal(s.total_ns, (int64_t)n * S);
	assert_int_equal(s.lost, (uint64_t)n);
	/* The first ranges are forgotten, the last are there. */
	assert_int_equal(jank_skipped_overlap(&s, 1 * S, 2 * S), 0);
	assert_int_equal(jank_skipped_overlap(&s, (2 * n - 1) * S, (2 * n) * S), 1 * S);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(first_worker_skips_nothing),
		cmocka_unit_test(restart_skips_the_gap),
		cmocka_unit_test(last_is_the_latest_seen),
		cmocka_unit_test(replay_is_no_gap),
		cmocka_unit_test(empty_worker_keeps_the_gap),
		cmocka_unit_test(overlap),
		cmocka_unit_test(ring_of_ranges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
