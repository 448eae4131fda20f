/* SPDX-License-Identifier: MIT */
/*
 * What an input has alerted, so that nothing alerts twice: a worker that is
 * restarted, or reconnects, attaches to its session again and may read the
 * last packets again (relayd serves a new viewer from the last index it
 * has), so its engine may judge the same action again.
 *
 * Within one input, completed verdicts come in the order of their ends (the
 * engine reads events in time order). So one that does not end after the
 * last one alerted is a replay, unless it ends much earlier (more than
 * JANK_ALERTED_REPLAY_NS: that is the trace clock moving back, not a
 * replay). Overdue verdicts are reported at tick time: the last
 * JANK_ALERTED_OVERDUE ones are remembered by rule, key and begin.
 */
#ifndef JANK_ALERTED_H
#define JANK_ALERTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "actions.h"
#include "engine.h"

#define JANK_ALERTED_OVERDUE   32
#define JANK_ALERTED_REPLAY_NS (600 * 1000000000LL)
#define JANK_ALERTED_SIG_LEN   (64 + JANK_KEY_LEN + 24)

struct jank_alerted {
	int64_t end; /* of the last completed verdict alerted */
	char last[JANK_ALERTED_SIG_LEN];
	char overdue[JANK_ALERTED_OVERDUE][JANK_ALERTED_SIG_LEN];
	size_t noverdue;
	uint64_t duplicates;
};

/* Nothing alerted yet. */
void jank_alerted_init(struct jank_alerted *a);
/* true: `v` was alerted already (counted in duplicates); false: it is new, and now remembered. */
bool jank_alerted_check(struct jank_alerted *a, const struct jank_verdict *v);

#endif
