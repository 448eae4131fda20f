/* SPDX-License-Identifier: MIT */
/*
 * io/capture-list.c: the names of capture directories.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "capture-list.h"

#define MS  1000000LL
#define S   1000000000LL
#define MiB (1024ull * 1024)
/* 2024-05-01T12:00:00Z */
#define T0 (1714564800LL * S)

static void names(void **state)
{
	int64_t t;
	char action[64];
	int32_t tid;

	(void)state;
	assert_int_equal(jank_capture_parse_name("20240501T120000Z-frame-4312", &t, action,
						 sizeof(action), &tid),
			 0);
	assert_int_equal(t, T0);
	assert_string_equal(action, "frame");
	assert_int_equal(tid, 4312);
	assert_int_equal(jank_capture_parse_name("20240501T120000Z-ros2-callback-7.2", &t, action,
						 sizeof(action), &tid),
			 0);
	assert_string_equal(action, "ros2-callback");
	assert_int_equal(tid, 7);
	assert_int_equal(jank_capture_parse_name("20240501T120000Z-frame", NULL, NULL, 0, NULL),
			 -EINVAL);
	assert_int_equal(jank_capture_parse_name("20241301T120000Z-frame-1", NULL, NULL, 0, NULL),
			 -EINVAL);
	assert_int_equal(jank_capture_parse_name("notes.txt", NULL, NULL, 0, NULL), -EINVAL);
	assert_int_equal(jank_capture_parse_name("20240501T120000Z-frame-12x", NULL, NULL, 0, NULL),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
