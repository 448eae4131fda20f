/* SPDX-License-Identifier: MIT */
/*
 * What an input's worker restarts skipped (fleet.h).
 *
 * A new worker attaches to its live session where relayd's newest packets
 * are (babeltrace2's lttng-live source has no way to ask for an earlier
 * position: a viewer is served from the last index of each stream), so the
 * events between the old worker's last one and its successor's first one
 * are never read. The supervisor knows both ends: the old worker reports
 * the time of the last event it read in its status (and each verdict it
 * sends ends at an event it read); the new one reports its first. The
 * range between them is a skipped range: logged once, summed, and kept (the
 * last JANK_SKIPPED_RANGES of them) so that an alert whose action overlaps
 * one can say its path may be incomplete.
 *
 * When the new worker's first event is not after the old worker's last one,
 * nothing was skipped (relayd served packets the old worker had read: the
 * duplicates are dropped by alerted.h). A worker that ends before reading
 * any event leaves the gap open for the next one.
 *
 * Pure bookkeeping: no clock, no I/O. Times are trace times in ns.
 */
#ifndef JANK_SKIPPED_H
#define JANK_SKIPPED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JANK_SKIPPED_RANGES 16

struct jank_skipped_range {
	int64_t from;  /* the last event read before the restart */
	int64_t to;    /* the first event read after it */
	uint64_t lost; /* actions open in the old worker: their ends will not match */
};

struct jank_skipped {
	/* The current worker. */
	int64_t last;	  /* the latest event it read, INT64_MIN: none yet */
	uint64_t open;	  /* its open actions, as last reported */
	bool first_known; /* its first event was seen (and any gap before it closed) */
	/* The workers that ended. */
	int64_t gap_from;  /* the last event before the restart; INT64_MIN: no gap open */
	uint64_t gap_lost; /* the actions open when it ended */
	/* What was skipped. */
	struct jank_skipped_range ranges[JANK_SKIPPED_RANGES]; /* a ring of the latest */
	uint64_t nranges;				       /* ever */
	int64_t total_ns;
	uint64_t lost; /* open actions lost in all */
};

void jank_skipped_init(struct jank_skipped *s);

/*
 * The current worker read events from `first` to `last` (INT64_MIN: not
 * known) and has `open` actions open. When this is the first event of a
 * worker that follows another, returns true and the skipped range in *out
 * (counted): say it once. Otherwise false.
 */
bool jank_skipped_progress(struct jank_skipped *s, int64_t first, int64_t last, uint64_t open,
			   struct jank_skipped_range *out);

/* The current worker ended (died, was killed): its successor starts a gap. */
void jank_skipped_worker_ended(struct jank_skipped *s);

/*
 * How much of the action [begin, end] falls in the skipped ranges still
 * remembered, in ns; 0: none of it.
 */
int64_t jank_skipped_overlap(const struct jank_skipped *s, int64_t begin, int64_t end);

#endif
