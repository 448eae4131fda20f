/* SPDX-License-Identifier: MIT */
/* The time ranges of discarded events (discards.h). */
#include "discards.h"

#define SLOT(d, i) (&(d)->r[((d)->head + (i)) & (JANK_DISCARD_RANGES - 1)])

void jank_discards_init(struct jank_discards *d)
{
	d->head = 0;
	d->n = 0;
	d->merges = 0;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void jank_discards_add(struct jank_discards *d, int64_t begin, int64_t end, uint64_t count)
{
	struct jank_discard_range *r;

	if (!count)
		return;
	if (begin > end) {
		int64_t t = begin;

		begin = end;
		end = t;
	}
	if (d->n == JANK_DISCARD_RANGES) {
		/* Full: the oldest goes into the second oldest, which spans both. */
		struct jank_discard_range *a = SLOT(d, 0), *b = SLOT(d, 1);

		if (a->begin < b->begin)
			b->begin = a->begin;
		if (a->end > b->end)
			b->end = a->end;
		b->count = add_sat(b->count, a->count);
		d->head = (d->head + 1) & (JANK_DISCARD_RANGES - 1);
		d->n--;
		d->merges++;
	}
	r = SLOT(d, d->n);
	r->begin = begin;
	r->end = end;
	r->count = count;
	d->n++;
}

uint64_t jank_discards_in(const struct jank_discards *d, int64_t begin, int64_t end)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < d->n; i++) {
		const struct jank_discard_range *r = SLOT(d, i);

		if (r->begin <= end && r->end >= begin)
			sum = add_sat(sum, r->count);
	}
	return sum;
}

void jank_discards_gc(struct jank_discards *d, int64_t horizon)
{
	while (d->n && SLOT(d, 0)->end < horizon) {
		d->head = (d->head + 1) & (JANK_DISCARD_RANGES - 1);
		d->n--;
	}
}

const struct jank_discard_range *jank_discards_at(const struct jank_discards *d, size_t i)
{
	return i < d->n ? SLOT(d, i) : NULL;
}
