/* SPDX-License-Identifier: MIT */
/*
 * Log-scaled latency histogram: 16 linear sub-buckets per power of two, so a
 * percentile is within 1/16 (6.25%) of the true value. Max and sum are exact.
 */
#ifndef JANK_HISTOGRAM_H
#define JANK_HISTOGRAM_H

#include <stdint.h>

#define JANK_HIST_SUB_BITS 4
#define JANK_HIST_BUCKETS  ((64 - JANK_HIST_SUB_BITS + 1) << JANK_HIST_SUB_BITS)

struct jank_histogram {
	uint64_t count;
	int64_t min;
	int64_t max;
	uint64_t sum; /* of the values (negative ones count as 0), saturated */
	uint64_t buckets[JANK_HIST_BUCKETS];
};

void jank_histogram_init(struct jank_histogram *h);
/* p in [0, 100]. Returns 0 for an empty histogram. */
int64_t jank_histogram_percentile(const struct jank_histogram *h, double p);

/* The bucket of value v, and the largest value of bucket b (b < JANK_HIST_BUCKETS). */
unsigned jank_histogram_bucket(uint64_t v);
uint64_t jank_histogram_bucket_high(unsigned b);

/* jank_histogram_bucket(), inline: a few shifts. */
static inline unsigned jank_histogram_bucket_of(uint64_t v)
{
	const unsigned sub = 1u << JANK_HIST_SUB_BITS;
	unsigned e, s;

	if (v < sub)
		return (unsigned)v;
	e = 63 - (unsigned)__builtin_clzll(v); /* e >= SUB_BITS */
	s = (unsigned)(v >> (e - JANK_HIST_SUB_BITS)) & (sub - 1);
	return (e - JANK_HIST_SUB_BITS + 1) * sub + s;
}

/* Record ns (a negative one as 0). Inline: every action's end. */
static inline void jank_histogram_add(struct jank_histogram *h, int64_t ns)
{
	uint64_t v = ns < 0 ? 0 : (uint64_t)ns;

	if (h->count == 0 || (int64_t)v < h->min)
		h->min = (int64_t)v;
	if (h->count == 0 || (int64_t)v > h->max)
		h->max = (int64_t)v;
	h->count++;
	h->sum = h->sum + v < h->sum ? UINT64_MAX : h->sum + v;
	h->buckets[jank_histogram_bucket_of(v)]++;
}

#endif
