/* SPDX-License-Identifier: MIT */
/* lib/histogram.c: the log-scaled latency histogram and its percentiles. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "histogram.h"

static void histogram(void **state)
{
	struct jank_histogram *h = malloc(sizeof(*h));

	jank_histogram_init(h);
	assert_int_equal(jank_histogram_percentile(h, 50), 0);
	for (int64_t v = 1; v <= 1000; v++)
		jank_histogram_add(h, v * 1000);
	assert_int_equal(h->count, 1000);
	assert_int_equal(h->max, 1000000);
	assert_int_equal(jank_histogram_percentile(h, 100), 1000000);
	/* Within 1/16 of the exact value. */
	int64_t p50 = jank_histogram_percentile(h, 50);
	int64_t p99 = jank_histogram_percentile(h, 99);

	assert_true(p50 >= 500000 && p50 <= 500000 + 500000 / 16);
	assert_true(p99 >= 990000 && p99 <= 1000000);
	jank_histogram_add(h, -5);
	assert_int_equal(h->min, 0);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(histogram),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
