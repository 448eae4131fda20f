/* SPDX-License-Identifier: MIT */
/*
 * Log-scaled histogram. Values below 2^SUB_BITS get one bucket each; above,
 * each power of two is split into 2^SUB_BITS linear sub-buckets. Recording is
 * a few shifts; percentiles walk the buckets.
 */
#include <string.h>
#include "histogram.h"

#define SUB (1u << JANK_HIST_SUB_BITS)

/* Inline: jank_histogram_add() runs at every action's end. */
static inline unsigned bucket_of(uint64_t v)
{
	if (v < SUB)
		return (unsigned)v;
	unsigned e = 63 - (unsigned)__builtin_clzll(v); /* e >= SUB_BITS */
	unsigned sub = (unsigned)(v >> (e - JANK_HIST_SUB_BITS)) & (SUB - 1);

	return (e - JANK_HIST_SUB_BITS + 1) * SUB + sub;
}

unsigned jank_histogram_bucket(uint64_t v)
{
	return bucket_of(v);
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

void jank_histogram_add(struct jank_histogram *h, int64_t ns)
{
	uint64_t v = ns < 0 ? 0 : (uint64_t)ns;

	if (h->count == 0 || (int64_t)v < h->min)
		h->min = (int64_t)v;
	if (h->count == 0 || (int64_t)v > h->max)
		h->max = (int64_t)v;
	h->count++;
	h->sum = h->sum + v < h->sum ? UINT64_MAX : h->sum + v;
	h->buckets[bucket_of(v)]++;
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
