/* SPDX-License-Identifier: MIT */
/* lib/units.c: durations and sizes, parsed and printed. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "units.h"

static void durations(void **state)
{
	int64_t ns;

	assert_int_equal(jank_units_parse_duration("16ms", &ns), 0);
	assert_int_equal(ns, 16000000);
	assert_int_equal(jank_units_parse_duration("500us", &ns), 0);
	assert_int_equal(ns, 500000);
	assert_int_equal(jank_units_parse_duration("2s", &ns), 0);
	assert_int_equal(ns, 2000000000);
	assert_int_equal(jank_units_parse_duration("1.5s", &ns), 0);
	assert_int_equal(ns, 1500000000);
	assert_int_equal(jank_units_parse_duration("100ns", &ns), 0);
	assert_int_equal(ns, 100);
	assert_int_equal(jank_units_parse_duration("1min", &ns), 0);
	assert_int_equal(ns, 60000000000LL);
	assert_int_equal(jank_units_parse_duration(" 10 ms ", &ns), 0);
	assert_int_equal(ns, 10000000);
	assert_int_equal(jank_units_parse_duration("10", &ns), -EINVAL);
	assert_int_equal(jank_units_parse_duration("ms", &ns), -EINVAL);
	assert_int_equal(jank_units_parse_duration("-1s", &ns), -EINVAL);
	assert_int_equal(jank_units_parse_duration("1 parsec", &ns), -EINVAL);
	assert_int_equal(jank_units_parse_duration("1e30s", &ns), -EINVAL);
	assert_int_equal(jank_units_parse_duration("", &ns), -EINVAL);
}

static void sizes(void **state)
{
	uint64_t b;

	assert_int_equal(jank_units_parse_size("256MiB", &b), 0);
	assert_int_equal(b, 256ull << 20);
	assert_int_equal(jank_units_parse_size("2GiB", &b), 0);
	assert_int_equal(b, 2ull << 30);
	assert_int_equal(jank_units_parse_size("10MB", &b), 0);
	assert_int_equal(b, 10000000);
	assert_int_equal(jank_units_parse_size("4096", &b), 0);
	assert_int_equal(b, 4096);
	assert_int_equal(jank_units_parse_size("lots", &b), -EINVAL);
	assert_int_equal(jank_units_parse_size("5 furlongs", &b), -EINVAL);
}

static void format(void **state)
{
	char buf[32];

	assert_string_equal(jank_units_duration(870, buf, sizeof(buf)), "870 ns");
	assert_string_equal(jank_units_duration(2100000, buf, sizeof(buf)), "2.10 ms");
	assert_string_equal(jank_units_duration(40300000, buf, sizeof(buf)), "40.3 ms");
	assert_string_equal(jank_units_duration(1500000000, buf, sizeof(buf)), "1.50 s");
	assert_string_equal(jank_units_size(512, buf, sizeof(buf)), "512 B");
	assert_string_equal(jank_units_size(1536, buf, sizeof(buf)), "1.5 KiB");
	assert_string_equal(jank_units_size(2ull << 30, buf, sizeof(buf)), "2.0 GiB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(durations),
		cmocka_unit_test(sizes),
		cmocka_unit_test(format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
