/* SPDX-License-Identifier: MIT */
/*
 * io/time-limit.c: the watchdog calls the handler once an armed call
 * outlives its limit, and never for a call that ended in time. It checks
 * once a second, so these tests take a few seconds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "time-limit.h"

static atomic_int calls;
static atomic_uint seconds_seen;
static char what_seen[1024];
static atomic_int other_calls;

static void on_expiry(const char *what, unsigned seconds)
{
	snprintf(what_seen, sizeof(what_seen), "%s", what);
	atomic_store(&seconds_seen, seconds);
	atomic_fetch_add(&calls, 1);
}

static void on_expiry_other(const char *what, unsigned seconds)
{
	(void)what;
	atomic_store(&seconds_seen, seconds);
	atomic_fetch_add(&other_calls, 1);
}

/* Wait up to `ms` for `*n` to reach `want`. */
static bool wait_for(atomic_int *n, int want, int ms)
{
	for (int i = 0; i < ms / 50; i++) {
		if (atomic_load(n) >= want)
			return true;
		usleep(50000);
	}
	return atomic_load(n) >= want;
}

static void off(void **state)
{
	(void)state;
	/* No handler yet: arming is a no-op. */
	jank_time_limit_begin("nothing");
	jank_time_limit_end();
	jank_time_limit_end();
}

static void expires(void **state)
{
	static char what[600];

	(void)state;
	assert_int_equal(jank_time_limit_set(1, on_expiry), 0);
	jank_time_limit_begin("reading the metadata of /x");
	assert_true(wait_for(&calls, 1, 5000));
	jank_time_limit_end();
	assert_string_equal(what_seen, "reading the metadata of /x");
	assert_int_equal(atomic_load(&seconds_seen), 1);
	/* Called once per arming, not once a second. */
	usleep(2200000);
	assert_int_equal(atomic_load(&calls), 1);
	/* A long description reaches the handler cut, not overflowing. */
	memset(what, 'w', sizeof(what) - 1);
	jank_time_limit_begin(what);
	assert_true(wait_for(&calls, 2, 5000));
	jank_time_limit_end();
	assert_int_equal(strlen(what_seen), 511);
	assert_int_equal(what_seen[0], 'w');
}

static void ends_in_time(void **state)
{
	int before = atomic_load(&calls);

	(void)state;
	assert_int_equal(jank_time_limit_set(2, on_expiry), 0);
	for (int i = 0; i < 10; i++) {
		jank_time_limit_begin("quick");
		usleep(100000);
		jank_time_limit_end();
	}
	jank_time_limit_begin("quick");
	jank_time_limit_end();
	usleep(3500000);
	assert_int_equal(atomic_load(&calls), before);
}

static void set_again(void **state)
{
	(void)state;
	/* A second set changes the limit and the handler, with the same watchdog. */
	assert_int_equal(jank_time_limit_set(1, on_expiry_other), 0);
	jank_time_limit_begin("other");
	assert_true(wait_for(&other_calls, 1, 5000));
	jank_time_limit_end();
	assert_int_equal(atomic_load(&seconds_seen), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(off),
		cmocka_unit_test(expires),
		cmocka_unit_test(ends_in_time),
		cmocka_unit_test(set_again),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
