/* SPDX-License-Identifier: MIT */
/*
 * lib/strtable.h: an enum's names both ways, with holes, a NULL end, values
 * out of range and names that are not in the table; and the tables of
 * lib/ built with it, whose names users see in JSON, alerts and metrics.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "actions.h"
#include "baseline.h"
#include "engine.h"
#include "layout.h"
#include "strtable.h"

enum fruit {
	FRUIT_APPLE = 0,
	FRUIT_PEAR,
	FRUIT_NONE,
	FRUIT_FIG,
	FRUIT_COUNT
};

/* FRUIT_NONE has no name; the table ends with a NULL, as the config schema wants. */
static const char *const test_fruit_names[] = {
	[FRUIT_APPLE] = "apple",
	[FRUIT_PEAR] = "pear",
	[FRUIT_FIG] = "fig",
	[FRUIT_COUNT] = NULL,
};

JANK_STRTABLE_DECLARE(test_fruit, enum fruit);
JANK_STRTABLE_DEFINE(test_fruit, enum fruit, "?")

static void both_ways(void **state)
{
	(void)state;
	assert_string_equal(test_fruit_name(FRUIT_APPLE), "apple");
	assert_string_equal(test_fruit_name(FRUIT_FIG), "fig");
	for (int v = 0; v < FRUIT_COUNT; v++)
		if (v != FRUIT_NONE)
			assert_int_equal(test_fruit_from_name(test_fruit_name((enum fruit)v)), v);
}

static void holes_and_range(void **state)
{
	(void)state;
	assert_string_equal(test_fruit_name(FRUIT_NONE), "?");
	assert_string_equal(test_fruit_name(FRUIT_COUNT), "?");
	assert_string_equal(test_fruit_name((enum fruit)1000), "?");
	assert_string_equal(test_fruit_name((enum fruit) - 1), "?");
	assert_int_equal(test_fruit_from_name("?"), -1);
	assert_int_equal(test_fruit_from_name(""), -1);
	assert_int_equal(test_fruit_from_name("Apple"), -1);
	assert_int_equal(test_fruit_from_name("apple "), -1);
	assert_int_equal(test_fruit_from_name(NULL), -1);
}

/* The names of lib/'s tables: scripts read them, so a change here is a change for users. */
static void lib_tables(void **state)
{
	(void)state;
	assert_string_equal(jank_verdict_kind_name(JANK_VERDICT_COMPLETED), "completed");
	assert_string_equal(jank_verdict_kind_name(JANK_VERDICT_OVERDUE), "overdue");
	assert_int_equal(jank_verdict_kind_from_name("overdue"), JANK_VERDICT_OVERDUE);
	assert_string_equal(jank_verdict_kind_name((enum jank_verdict_kind)2), "?");
	assert_string_equal(jank_threshold_kind_name(JANK_THRESHOLD_FIXED), "fixed");
	assert_string_equal(jank_threshold_kind_name(JANK_THRESHOLD_ADAPTIVE), "adaptive");
	assert_int_equal(jank_threshold_kind_from_name("adaptive"), JANK_THRESHOLD_ADAPTIVE);
	assert_string_equal(jank_comp_kind_name(JANK_COMP_LOCK), "lock");
	assert_int_equal(jank_comp_kind_from_name("hop"), JANK_COMP_HOP);
	assert_string_equal(jank_comp_kind_name(JANK_COMP_KIND_COUNT), "?");
	assert_string_equal(jank_layout_name(JANK_LAYOUT_2_8), "lttng-modules >= 2.8");
	assert_string_equal(jank_layout_name((enum jank_layout_version)99), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(both_ways),
		cmocka_unit_test(holes_and_range),
		cmocka_unit_test(lib_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
