/* SPDX-License-Identifier: MIT */
/*
 * Threads of containers: the numbers of PID namespaces (pidns.h says why).
 * A lookup tries the namespace found last, then the table (511 at most, a
 * scan only when the namespace changes from one event to the next).
 */
#include "pidns.h"

uint32_t jank_pidns_home;

void jank_pidns_set_home(uint32_t ns)
{
	jank_pidns_home = ns;
}

static uint32_t number(struct jank_pidns *t, uint32_t ns, int64_t ts)
{
	uint32_t i, oldest = 1;

	if (t->last && t->ns[t->last] == ns)
		return t->last;
	for (i = 1; i <= t->n; i++)
		if (t->ns[i] == ns)
			return i;
	if (t->n < JANK_PIDNS_MAX) {
		i = ++t->n;
	} else {
		for (i = 2; i <= t->n; i++)
			if (t->seen[i] < t->seen[oldest])
				oldest = i;
		i = oldest;
		t->reused++;
	}
	t->ns[i] = ns;
	t->seen[i] = ts;
	return i;
}

int32_t jank_pidns_tid(struct jank_pidns *t, uint32_t ns, int32_t vtid, int64_t ts)
{
	uint32_t i;

	if (jank_pidns_is_host(ns) || vtid < 0)
		return vtid;
	if (vtid >= 1 << JANK_PIDNS_SHIFT)
		return -1;
	i = number(t, ns, ts);
	t->last = i;
	if (ts > t->seen[i])
		t->seen[i] = ts;
	return (int32_t)(i << JANK_PIDNS_SHIFT | (uint32_t)vtid);
}
