/* SPDX-License-Identifier: MIT */
/* The one table that maps states to the names users see in JSON and text. */
#include "state.h"

static const char *const jank_state_names[JANK_STATE_COUNT] = {
	[JANK_STATE_UNKNOWN] = "unknown",
	[JANK_STATE_RUNNING] = "running",
	[JANK_STATE_PREEMPTED] = "preempted",
	[JANK_STATE_BLOCKED] = "blocked",
	[JANK_STATE_TIMER] = "timer",
	[JANK_STATE_NETWORK] = "network",
	[JANK_STATE_BLOCK_DEVICE] = "block_device",
	[JANK_STATE_INTERRUPTED] = "interrupted",
	[JANK_STATE_IPI] = "ipi",
	[JANK_STATE_USER_INPUT] = "user_input",
	[JANK_STATE_LOCK_WAIT] = "lock_wait",
};

JANK_STRTABLE_DEFINE(jank_state, enum jank_state, "unknown")
