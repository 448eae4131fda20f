/* SPDX-License-Identifier: MIT */
/* What an input's worker restarts skipped (see skipped.h). */
#include <string.h>
#include "skipped.h"

void jank_skipped_init(struct jank_skipped *s)
{
	memset(s, 0, sizeof(*s));
	s->last = INT64_MIN;
	s->gap_from = INT64_MIN;
}

/* The new worker's first event at `first` closes the gap opened by a restart. */
static bool close_gap(struct jank_skipped *s, int64_t first, struct jank_skipped_range *out)
{
	int64_t from = s->gap_from;
	uint64_t lost = s->gap_lost;

	s->first_known = true;
	s->gap_from = INT64_MIN;
	s->gap_lost = 0;
	/* Not after the old worker's last event: relayd served it again, nothing was lost. */
	if (from == INT64_MIN || first <= from)
		return false;
	out->from = from;
	out->to = first;
	out->lost = lost;
	s->ranges[s->nranges++ % JANK_SKIPPED_RANGES] = *out;
	s->total_ns += first - from;
	s->lost += lost;
	return true;
}

bool jank_skipped_progress(struct jank_skipped *s, int64_t first, int64_t last, uint64_t open,
			   struct jank_skipped_range *out)
{
	bool gap = false;

	if (first != INT64_MIN && !s->first_known)
		gap = close_gap(s, first, out);
	if (last != INT64_MIN && last > s->last)
		s->last = last;
	s->open = open;
	return gap;
}

void jank_skipped_worker_ended(struct jank_skipped *s)
{
	/* A worker that read nothing leaves the gap of its predecessor open. */
	if (s->first_known && s->last != INT64_MIN) {
		s->gap_from = s->last;
		s->gap_lost = s->open;
	}
	s->last = INT64_MIN;
	s->open = 0;
	s->first_known = false;
}

int64_t jank_skipped_overlap(const struct jank_skipped *s, int64_t begin, int64_t end)
{
	uint64_t n = s->nranges < JANK_SKIPPED_RANGES ? s->nranges : JANK_SKIPPED_RANGES;
	int64_t sum = 0;

	for (uint64_t i = 0; i < n; i++) {
		const struct jank_skipped_range *r = &s->ranges[i];
		int64_t a = begin > r->from ? begin : r->from;
		int64_t b = end < r->to ? end : r->to;

		if (b > a)
			sum += b - a;
	}
	return sum;
}
