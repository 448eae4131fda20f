/* SPDX-License-Identifier: MIT */
/* The state vocabulary of graph edges and path segments, spelled as users see it. */
#ifndef JANK_STATE_H
#define JANK_STATE_H

#include "strtable.h"

enum jank_state {
	JANK_STATE_UNKNOWN = 0,
	JANK_STATE_RUNNING,
	JANK_STATE_PREEMPTED,
	JANK_STATE_BLOCKED,
	JANK_STATE_TIMER,
	JANK_STATE_NETWORK,
	JANK_STATE_BLOCK_DEVICE,
	JANK_STATE_INTERRUPTED,
	JANK_STATE_IPI,
	JANK_STATE_USER_INPUT,
	JANK_STATE_LOCK_WAIT,
	JANK_STATE_COUNT,
};

/* jank_state_name(): "unknown" out of range; jank_state_from_name(): -1 for no state. */
JANK_STRTABLE_DECLARE(jank_state, enum jank_state);
/* A wait is an interval that can end with a wakeup (blocked or lock_wait). */
static inline int jank_state_is_wait(enum jank_state s)
{
	return s == JANK_STATE_BLOCKED || s == JANK_STATE_LOCK_WAIT;
}

#endif
