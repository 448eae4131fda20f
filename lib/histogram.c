/* SPDX-License-Identifier: MIT */
/*
 * Log-scaled histogram. Values below 2^SUB_BITS get one bucket each; above,
 * each power of two is split into 2^SUB_BITS linear sub-buckets. Recording is
 * a few shifts; percentiles walk the buckets.
 */
#include <string.h>
#include "histogram.h"

#define SUB (1u << JANK_HIST_SUB_BITS)

unsigned jank_histogram_bucket(uint64_t v)
{
	return jank_histogram_bucket_of(v);
}

uint64_t jank_histogram_bucket_high(unsigned b)
{
	if (b < SUB)
		return b;
	unsigned e = b / SUB + JANK_HIST_SUB_BITS - 1;
	unsigned sub = b % SUB;
	uint64_t low = ((uint64_t)(SUB + sub)) << (e - JANK_HIST_SUB_BITS);

	return low + (1ull << (e - JANK_HIST_SUB_BITS)) - 1;
}

void jank_histogram_init(struct jank_histogram *h)
{
	memset(h, 0, sizeof(*h));
}

int64_t jank_histogram_percentile(const struct jank_histogram *h, double p)
{
	if (h->count == 0)
		return 0;
	if (!(p > 0)) /* NaN too: a rank must come from a number */
		return h->min;
	if (!(p < 100))
		return h->max;
	/* Rank of the sample at percentile p (nearest-rank method). */
	uint64_t rank = (uint64_t)((p / 100.0) * (double)h->count + 0.999999);
	uint64_t seen = 0;

	if (rank == 0)
		rank = 1;
	for (unsigned b = 0; b < JANK_HIST_BUCKETS; b++) {
		seen += h->buckets[b];
		if (seen >= rank) {
			int64_t v = (int64_t)jank_histogram_bucket_high(b);

			if (v > h->max)
				v = h->max;
			if (v < h->min)
				v = h->min;
			return v;
		}
	}
	return h->max;
}
