/* SPDX-License-Identifier: MIT */
/*
 * daemon/clock.c: the monotonic and wall clocks in ns, and durations as
 * libevent's timeval.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <cmocka.h>
#include "clock.h"

#define S 1000000000LL

static void timeval_whole(void **state)
{
	struct timeval tv;

	(void)state;
	tv = jank_clock_timeval(0);
	assert_int_equal(tv.tv_sec, 0);
	assert_int_equal(tv.tv_usec, 0);
	tv = jank_clock_timeval(30 * S);
	assert_int_equal(tv.tv_sec, 30);
	assert_int_equal(tv.tv_usec, 0);
}

static void timeval_fraction(void **state)
{
	struct timeval tv;

	(void)state;
	tv = jank_clock_timeval(1500000000LL);
	assert_int_equal(tv.tv_sec, 1);
	assert_int_equal(tv.tv_usec, 500000);
	tv = jank_clock_timeval(250000000LL);
	assert_int_equal(tv.tv_sec, 0);
	assert_int_equal(tv.tv_usec, 250000);
	/* Below a microsecond: truncated, never rounded up to a second. */
	tv = jank_clock_timeval(S - 1);
	assert_int_equal(tv.tv_sec, 0);
	assert_int_equal(tv.tv_usec, 999999);
	tv = jank_clock_timeval(999);
	assert_int_equal(tv.tv_sec, 0);
	assert_int_equal(tv.tv_usec, 0);
	tv = jank_clock_timeval(2 * S + 1000);
	assert_int_equal(tv.tv_sec, 2);
	assert_int_equal(tv.tv_usec, 1);
}

static void timeval_large(void **state)
{
	struct timeval tv;

	(void)state;
	/* A day and a bit: no overflow of the 32-bit kind. */
	tv = jank_clock_timeval(86400 * S + 7000);
	assert_int_equal(tv.tv_sec, 86400);
	assert_int_equal(tv.tv_usec, 7);
}

static void monotonic(void **state)
{
	struct timespec ts;
	int64_t a, b, ref;

	(void)state;
	a = jank_clock_monotonic_ns();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ref = (int64_t)ts.tv_sec * S + ts.tv_nsec;
	b = jank_clock_monotonic_ns();
	assert_true(a > 0);
	assert_true(a <= ref);
	assert_true(ref <= b);
}

static void realtime(void **state)
{
	struct timespec ts;
	int64_t a, b, ref;

	(void)state;
	a = jank_clock_realtime_ns();
	clock_gettime(CLOCK_REALTIME, &ts);
	ref = (int64_t)ts.tv_sec * S + ts.tv_nsec;
	b = jank_clock_realtime_ns();
	/* ns since the epoch, not s or us: after 2020. */
	assert_true(a > 1577836800LL * S);
	/* The wall clock may step, but not by a second within a few calls. */
	assert_true(ref - a < S && a - ref < S);
	assert_true(b - ref < S && ref - b < S);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(timeval_whole), cmocka_unit_test(timeval_fraction),
		cmocka_unit_test(timeval_large), cmocka_unit_test(monotonic),
		cmocka_unit_test(realtime),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
