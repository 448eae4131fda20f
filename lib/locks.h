/* SPDX-License-Identifier: MIT */
/*
 * User-space mutexes (lttng_ust_pthread:*) as a second source of wait edges.
 * See locks.c.
 */
#ifndef JANK_LOCKS_H
#define JANK_LOCKS_H

#include <stddef.h>
#include <stdint.h>
#include "event.h"
#include "graph.h"

struct jank_locks;

struct jank_locks *jank_locks_new(struct jank_graph *g);
void jank_locks_free(struct jank_locks *l);
/*
 * A mutex event. `kernel` says whether scheduler events are flowing: then
 * they hold the waits and wakers, and lock events only label them.
 */
void jank_locks_process(struct jank_locks *l, enum jank_event_type type,
			const struct jank_event *ev, bool kernel);
/* Its first member, kept current: the engine reads it before every event that may free. */
static inline size_t jank_locks_bytes(const struct jank_locks *l)
{
	return *(const size_t *)(const void *)l;
}

#endif
