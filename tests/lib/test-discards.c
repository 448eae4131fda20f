/* SPDX-License-Identifier: MIT */
/* The discarded-events ranges (lib/discards.h): overlap, the ring's merge, GC. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "discards.h"

/* A range counts when it overlaps the interval, bounds included; never otherwise. */
static void overlap(void **state)
{
	struct jank_discards d;

	jank_discards_init(&d);
	assert_int_equal(jank_discards_in(&d, INT64_MIN, INT64_MAX), 0);
	jank_discards_add(&d, 100, 200, 3);
	jank_discards_add(&d, 400, 300, 5); /* reversed: swapped */
	jank_discards_add(&d, 250, 250, 0); /* nothing discarded: not kept */
	assert_int_equal(d.n, 2);
	assert_int_equal(jank_discards_at(&d, 1)->begin, 300);
	assert_int_equal(jank_discards_at(&d, 1)->end, 400);
	assert_null(jank_discards_at(&d, 2));
	assert_int_equal(jank_discards_in(&d, 0, 99), 0);
	assert_int_equal(jank_discards_in(&d, 0, 100), 3);    /* touches its begin */
	assert_int_equal(jank_discards_in(&d, 200, 210), 3);  /* touches its end */
	assert_int_equal(jank_discards_in(&d, 120, 130), 3);  /* inside it */
	assert_int_equal(jank_discards_in(&d, 201, 299), 0);  /* between the two */
	assert_int_equal(jank_discards_in(&d, 150, 350), 8);  /* both */
	assert_int_equal(jank_discards_in(&d, 0, 1000), 8);   /* covers both */
	assert_int_equal(jank_discards_in(&d, 401, 1000), 0); /* after */
	jank_discards_add(&d, 500, 500, UINT64_MAX);
	assert_int_equal(jank_discards_in(&d, 0, 1000), UINT64_MAX); /* saturates */
}

/*
 * Full: each new range merges the two oldest. The total stays exact; a
 * merged range spans both, so that an interval between them now counts it.
 */
static void ring_merge(void **state)
{
	struct jank_discards d;
	uint64_t total = 0;

	jank_discards_init(&d);
	for (int64_t i = 0; i < JANK_DISCARD_RANGES; i++) {
		jank_discards_add(&d, i * 100, i * 100 + 10, (uint64_t)i + 1);
		total += (uint64_t)i + 1;
	}
	assert_int_equal(d.n, JANK_DISCARD_RANGES);
	assert_int_equal(d.merges, 0);
	/* Between the first two ranges: nothing yet. */
	assert_int_equal(jank_discards_in(&d, 50, 60), 0);
	assert_int_equal(jank_discards_in(&d, 100, 100), 2);
	jank_discards_add(&d, 100000, 100010, 1000);
	total += 1000;
	assert_int_equal(d.n, JANK_DISCARD_RANGES);
	assert_int_equal(d.merges, 1);
	assert_int_equal(jank_discards_at(&d, 0)->begin, 0);
	assert_int_equal(jank_discards_at(&d, 0)->end, 110);
	assert_int_equal(jank_discards_at(&d, 0)->count, 3);
	assert_int_equal(jank_discards_in(&d, 50, 60), 3); /* the merged range grew over it */
	assert_int_equal(jank_discards_in(&d, INT64_MIN, INT64_MAX), total);
	/* The newest ones are still exact. */
	assert_int_equal(jank_discards_in(&d, 100000, 100000), 1000);
	assert_int_equal(jank_discards_in(&d, 25500, 25510), 256);
	for (int i = 0; i < 1000; i++) {
		jank_discards_add(&d, 200000 + i, 200000 + i, 2);
		total += 2;
	}
	assert_int_equal(d.n, JANK_DISCARD_RANGES);
	assert_int_equal(d.merges, 1001);
	assert_int_equal(jank_discards_in(&d, INT64_MIN, INT64_MAX), total);
	/* The oldest spans everything merged so far: from 0 to the 745th of the 1000. */
	assert_int_equal(jank_discards_at(&d, 0)->begin, 0);
	assert_int_equal(jank_discards_at(&d, 0)->end, 200000 + 1000 - JANK_DISCARD_RANGES);
	assert_int_equal(jank_discards_in(&d, 200999, 200999), 2);
}

/* Ranges that end before the horizon go, oldest first; the others stay. */
static void gc(void **state)
{
	struct jank_discards d;

	jank_discards_init(&d);
	jank_discards_add(&d, 0, 10, 1);
	jank_discards_add(&d, 20, 30, 2);
	jank_discards_add(&d, 40, 50, 4);
	jank_discards_gc(&d, 30); /* the second ends at the horizon: kept */
	assert_int_equal(d.n, 2);
	assert_int_equal(jank_discards_in(&d, INT64_MIN, INT64_MAX), 6);
	jank_discards_gc(&d, 31);
	assert_int_equal(d.n, 1);
	assert_int_equal(jank_discards_in(&d, 0, 45), 4);
	jank_discards_gc(&d, 1000);
	assert_int_equal(d.n, 0);
	/* Refilled after wrapping: still in order. */
	for (int64_t i = 0; i < JANK_DISCARD_RANGES + 5; i++)
		jank_discards_add(&d, 2000 + i, 2000 + i, 1);
	assert_int_equal(d.n, JANK_DISCARD_RANGES);
	jank_discards_gc(&d, 2000 + JANK_DISCARD_RANGES);
	assert_int_equal(d.n, 5);
	assert_int_equal(jank_discards_at(&d, 0)->begin, 2000 + JANK_DISCARD_RANGES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(overlap),
		cmocka_unit_test(ring_merge),
		cmocka_unit_test(gc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
