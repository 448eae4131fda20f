/* SPDX-License-Identifier: MIT */
/*
 * The time ranges in which the tracer discarded events, and how many in
 * each: what an action's verdict reads to say that its path may miss a
 * wakeup (the events discarded during its interval).
 *
 * The record is bounded: a ring of JANK_DISCARD_RANGES ranges in arrival
 * order. When it is full, the two oldest are merged into one that spans
 * both, with the sum of their counts: the counts stay exact in total, but a
 * merged range is wider than what was discarded, so that an action
 * overlapping it may be told of events discarded just outside its interval.
 * That needs more than JANK_DISCARD_RANGES discards since the action began.
 * The ranges older than the GC horizon are dropped (jank_discards_gc()).
 */
#ifndef JANK_DISCARDS_H
#define JANK_DISCARDS_H

#include <stddef.h>
#include <stdint.h>

#define JANK_DISCARD_RANGES 256 /* a power of two */

struct jank_discard_range {
	int64_t begin, end; /* begin <= end */
	uint64_t count;
};

struct jank_discards {
	struct jank_discard_range r[JANK_DISCARD_RANGES];
	size_t head; /* the oldest */
	size_t n;
	uint64_t merges; /* times the two oldest were merged */
};

void jank_discards_init(struct jank_discards *d);
/* `count` events were discarded between begin and end (swapped when reversed); 0 is ignored. */
void jank_discards_add(struct jank_discards *d, int64_t begin, int64_t end, uint64_t count);
/* The sum of the counts of the ranges overlapping [begin, end] (saturating). */
uint64_t jank_discards_in(const struct jank_discards *d, int64_t begin, int64_t end);
/*
 * Drop the oldest ranges while they end before the horizon (arrival order:
 * a range behind a younger one stays until the younger one goes).
 */
void jank_discards_gc(struct jank_discards *d, int64_t horizon);
/* The i-th oldest range, NULL past the last. */
const struct jank_discard_range *jank_discards_at(const struct jank_discards *d, size_t i);

#endif
