/* SPDX-License-Identifier: MIT */
/*
 * lib/state.c: the one table of state names, both ways, and what is a wait.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "state.h"

/* The names users see in JSON and text: a change here breaks their scripts. */
static const char *const expected[JANK_STATE_COUNT] = {
	"unknown",	"running",     "preempted", "blocked",	  "timer",     "network",
	"block_device", "interrupted", "ipi",	    "user_input", "lock_wait",
};

static void names(void **state)
{
	(void)state;
	assert_int_equal(JANK_STATE_COUNT, 11);
	for (int s = 0; s < JANK_STATE_COUNT; s++)
		assert_string_equal(jank_state_name((enum jank_state)s), expected[s]);
}

static void round_trip(void **state)
{
	(void)state;
	for (int s = 0; s < JANK_STATE_COUNT; s++)
		assert_int_equal(jank_state_from_name(jank_state_name((enum jank_state)s)), s);
}

static void out_of_range(void **state)
{
	(void)state;
	assert_string_equal(jank_state_name(JANK_STATE_COUNT), "unknown");
	assert_string_equal(jank_state_name((enum jank_state)1000), "unknown");
	assert_string_equal(jank_state_name((enum jank_state) - 1), "unknown");
}

static void not_a_name(void **state)
{
	(void)state;
	assert_int_equal(jank_state_from_name(""), -1);
	assert_int_equal(jank_state_from_name("Running"), -1);
	assert_int_equal(jank_state_from_name("run"), -1);
	assert_int_equal(jank_state_from_name("running "), -1);
	assert_int_equal(jank_state_from_name("block-device"), -1);
	assert_int_equal(jank_state_from_name("unknown"), JANK_STATE_UNKNOWN);
}

static void is_wait(void **state)
{
	(void)state;
	for (int s = 0; s < JANK_STATE_COUNT; s++)
		assert_int_equal(jank_state_is_wait((enum jank_state)s),
				 s == JANK_STATE_BLOCKED || s == JANK_STATE_LOCK_WAIT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names),	cmocka_unit_test(round_trip),
		cmocka_unit_test(out_of_range), cmocka_unit_test(not_a_name),
		cmocka_unit_test(is_wait),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
