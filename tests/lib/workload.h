/* SPDX-License-Identifier: MIT */
/*
 * A deterministic pseudo-random kernel + user-space workload: threads that
 * run, get preempted, block, and are woken by other threads or from
 * interrupt contexts, and emit actions that sometimes end on another
 * thread. The same seed always gives the same event stream.
 */
#ifndef JANK_TEST_WORKLOAD_H
#define JANK_TEST_WORKLOAD_H

#include "scenario.h"

struct workload_params {
	uint64_t seed;
	unsigned cpus;
	unsigned threads;
	unsigned events;
	unsigned short_lived; /* threads forked and freed along the way */
	/*
	 * Every that many events (0: never), the tracer discards some on a CPU,
	 * in a range that begins now and ends up to discard_span ns later (as
	 * babeltrace2 tells it: at the end of the packet before, with the end
	 * of the packet that counted them).
	 */
	unsigned discard_every;
	unsigned discard_span;
};

/* Feeds the workload into the scenario's engine. Returns the last timestamp. */
int64_t workload_run(struct scn *s, const struct workload_params *p);

#endif
