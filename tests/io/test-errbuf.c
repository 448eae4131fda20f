/* SPDX-License-Identifier: MIT */
/*
 * io/errbuf.c: messages written into the caller's buffer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "errbuf.h"

static void formats(void **state)
{
	char err[64];

	(void)state;
	jank_errf(err, sizeof(err), "cannot open %s: %d", "/x", -2);
	assert_string_equal(err, "cannot open /x: -2");
	jank_errf(err, sizeof(err), "%s", "");
	assert_string_equal(err, "");
}

static void truncates(void **state)
{
	char err[8];

	(void)state;
	memset(err, 'X', sizeof(err));
	jank_errf(err, 4, "%s", "abcdef");
	assert_string_equal(err, "abc");
	assert_int_equal(err[4], 'X'); /* nothing past len */
	jank_errf(err, 1, "%s", "abcdef");
	assert_string_equal(err, "");
	assert_int_equal(err[1], 'b');
}

static void nowhere(void **state)
{
	char err[4] = "old";

	(void)state;
	jank_errf(NULL, 16, "ignored %d", 1);
	jank_errf(err, 0, "ignored %d", 2);
	assert_string_equal(err, "old");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(formats),
		cmocka_unit_test(truncates),
		cmocka_unit_test(nowhere),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
