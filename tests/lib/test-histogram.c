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
	assert_int_equal(h->sum, 1000ull * 1001 / 2 * 1000);
	jank_histogram_add(h, -5);
	assert_int_equal(h->min, 0);
	assert_int_equal(h->sum, 1000ull * 1001 / 2 * 1000);
	free(h);
}

/* Each bucket ends where the next begins; a value lies within its bucket. */
static void bucket_edges(void **state)
{
	uint64_t values[] = { 0,	 1,    15,	 16,	   17,	     31,
			      32,	 1000, 16000000, 16252927, 16252928, (1ull << 36) - 1,
			      1ull << 62 };

	for (unsigned b = 1; b < JANK_HIST_BUCKETS; b++)
		assert_int_equal(jank_histogram_bucket(jank_histogram_bucket_high(b - 1) + 1), b);
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		unsigned b = jank_histogram_bucket(values[i]);

		assert_true(values[i] <= jank_histogram_bucket_high(b));
		assert_true(b == 0 || values[i] > jank_histogram_bucket_high(b - 1));
	}
	/* Powers of two end an octave's last sub-bucket: 2^k - 1 is an edge. */
	assert_int_equal(jank_histogram_bucket_high(jank_histogram_bucket((1ull << 24) - 1)),
			 (1ull << 24) - 1);
}

static void sum_saturates(void **state)
{
	struct jank_histogram *h = malloc(sizeof(*h));

	jank_histogram_init(h);
	jank_histogram_add(h, INT64_MAX);
	jank_histogram_add(h, INT64_MAX);
	jank_histogram_add(h, INT64_MAX);
	assert_int_equal(h->sum, UINT64_MAX);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(histogram),
		cmocka_unit_test(bucket_edges),
		cmocka_unit_test(sum_saturates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
