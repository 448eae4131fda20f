/* SPDX-License-Identifier: MIT */
/*
 * TCP segments for the kernel network matching (netmatch.h), told to the
 * engine's net listener (jank_engine_set_net_cb).
 *
 * A send is told where a thread's own context queues it (net_dev_queue at
 * depth 0): that thread sent it. One queued from an interrupt (an ACK, a
 * retransmission by timer) has no sender thread to follow and is left out.
 * A reception is remembered per CPU with its context (the softirq it came
 * in, or the thread that processed it, ksoftirqd); a wakeup in that same
 * context is a reception waking its reader: the segment is told with the
 * woken thread, once per thread.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "engine-int.h"

#define NET_MAX_CPUS 4096

struct engine_net_rx {
	bool valid;
	uint32_t depth;	  /* the context's: interrupt depth, */
	int64_t entry_ts; /* its entry (depth > 0) */
	int32_t tid;	  /* or the thread (depth 0) */
	int32_t woken;	  /* the last thread told, -1 */
	struct jank_tcp_seg seg;
};

void engine_net_free(struct jank_engine *e)
{
	free(e->net_rx);
	e->net_rx = NULL;
	e->net_rx_n = 0;
}

static struct engine_net_rx *rx_of(struct jank_engine *e, int32_t cpu, bool add)
{
	if (cpu < 0 || cpu >= NET_MAX_CPUS)
		return NULL;
	if ((uint32_t)cpu >= e->net_rx_n) {
		uint32_t n = (uint32_t)cpu + 1;
		void *v;

		if (!add)
			return NULL;
		v = realloc(e->net_rx, n * sizeof(*e->net_rx));
		if (!v)
			return NULL;
		e->net_rx = v;
		memset(e->net_rx + e->net_rx_n, 0, (n - e->net_rx_n) * sizeof(*e->net_rx));
		e->net_rx_n = n;
	}
	return &e->net_rx[cpu];
}

/* The context an event of this CPU is in: (depth, entry time of the innermost, thread). */
static void context_of(const struct jank_engine *e, int32_t cpu, uint32_t *depth, int64_t *entry,
		       int32_t *tid)
{
	const struct jank_cpu *c =
		cpu >= 0 && (uint32_t)cpu < e->model.ncpus ? &e->model.cpus[cpu] : NULL;

	*depth = c ? c->depth : 0;
	*entry = c && c->depth && c->depth <= JANK_IRQ_STACK_MAX ? c->stack[c->depth - 1].entry_ts
								 : 0;
	*tid = c ? c->cur_tid : -1;
}

static void tell(struct jank_engine *e, bool recv, int32_t tid, int64_t ts,
		 const struct jank_tcp_seg *seg)
{
	struct jank_net_note n = { recv, tid, ts, seg };

	e->net_note(&n, e->net_note_data);
}

void engine_on_net(struct jank_engine *e, enum jank_event_type type, const struct jank_event *ev)
{
	struct engine_net_rx *rx;
	struct jank_tcp_seg seg;
	uint32_t depth;
	int64_t entry, woken;
	int32_t tid;

	switch (type) {
	case JANK_EVENT_NET_SEND:
		context_of(e, ev->cpu, &depth, &entry, &tid);
		tid = ev->tid >= 0 ? ev->tid : tid;
		if (depth == 0 && tid > 0 && jank_tcp_seg_from_event(ev, &seg))
			tell(e, false, tid, ev->ts, &seg);
		break;
	case JANK_EVENT_NET_RECV:
		rx = rx_of(e, ev->cpu, true);
		if (!rx)
			break;
		rx->valid = jank_tcp_seg_from_event(ev, &rx->seg);
		context_of(e, ev->cpu, &rx->depth, &rx->entry_ts, &rx->tid);
		rx->woken = -1;
		break;
	case JANK_EVENT_SCHED_WAKEUP:
	case JANK_EVENT_SCHED_WAKING:
		rx = rx_of(e, ev->cpu, false);
		if (!rx || !rx->valid)
			break;
		context_of(e, ev->cpu, &depth, &entry, &tid);
		if (depth != rx->depth || (depth ? entry != rx->entry_ts : tid != rx->tid))
			break;
		/* The woken tid: a field a hostile trace may leave out or put out of range. */
		woken = ev->nfields > JANK_F_WAKEUP_TID
				? jank_value_as_int(&ev->fields[JANK_F_WAKEUP_TID], -1)
				: -1;
		if (woken <= 0 || woken > INT32_MAX || woken == rx->woken)
			break;
		tid = (int32_t)woken;
		rx->woken = tid;
		tell(e, true, tid, ev->ts + 1, &rx->seg);
		break;
	default:
		break;
	}
}
