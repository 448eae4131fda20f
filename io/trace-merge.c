/* SPDX-License-Identifier: MIT */
/*
 * The time-ordered merge of a graph's streams (see trace-merge.h).
 *
 * Each port keeps the batch of messages its iterator gave last, and the
 * index of its head. The heap holds the ports whose head has a time; a port
 * whose batch is used up is refilled before it goes back in. A consume call
 * delivers up to BATCH messages, so that the reader's per-batch work (and a
 * live reader's return to its event loop) still happens.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace-merge.h"

#define BATCH 512

struct port {
	bt_message_iterator *it;
	bt_message_array_const msgs; /* borrowed from the iterator until the next call */
	uint64_t count;
	uint64_t head; /* index of the next message in msgs */
	int64_t ts;    /* the head's time, when in the heap */
	size_t index;  /* the port's number: ties go to the lower */
	bool ended;
	bool pending; /* neither in the heap nor ended: its next message is not known yet */
};

struct merge {
	const struct jank_trace_merge_ops *ops;
	struct port *ports;
	size_t nports;
	struct port **heap; /* the ports whose head has a time, earliest first */
	size_t nheap;
	size_t npending; /* ports to try again before anything is delivered */
	int64_t last_ts;
};

static bool earlier(const struct port *a, const struct port *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->index < b->index);
}

static void sift_down(struct merge *m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, min = i;
		struct port *t;

		if (l < m->nheap && earlier(m->heap[l], m->heap[min]))
			min = l;
		if (r < m->nheap && earlier(m->heap[r], m->heap[min]))
			min = r;
		if (min == i)
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[min];
		m->heap[min] = t;
		i = min;
	}
}

static void sift_up(struct merge *m, size_t i)
{
	while (i > 0 && earlier(m->heap[i], m->heap[(i - 1) / 2])) {
		struct port *t = m->heap[i];

		m->heap[i] = m->heap[(i - 1) / 2];
		m->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

/* Deliver one message and drop it from its port. */
static int take(struct merge *m, struct port *p, int64_t ts, bool timed)
{
	const bt_message *msg = p->msgs[p->head];
	int r;

	if (timed && ts < m->last_ts) {
		char what[160];

		snprintf(what, sizeof(what),
			 "timestamps go backwards (%lld ns after %lld ns): were these traces "
			 "recorded with the same clock?",
			 (long long)ts, (long long)m->last_ts);
		m->ops->error(what, m->ops->data);
		r = -ERANGE;
	} else {
		if (timed)
			m->last_ts = ts;
		r = m->ops->take(msg, timed ? ts : m->last_ts, timed, m->ops->data);
	}
	bt_message_put_ref(msg);
	p->head++;
	return r;
}

/*
 * Bring the port to a head with a time: deliver the untimed messages before
 * it, refill the batch when it is used up. 1: the port has a timed head; 0:
 * it ended; -EAGAIN: its iterator has nothing yet; -errno.
 */
static int ready(struct merge *m, struct port *p)
{
	for (;;) {
		int r;

		if (p->head == p->count) {
			switch (bt_message_iterator_next(p->it, &p->msgs, &p->count)) {
			case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
				p->head = 0;
				break;
			case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
				p->ended = true;
				p->head = p->count = 0;
				return 0;
			case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
				p->head = p->count = 0;
				return -EAGAIN;
			case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
				p->head = p->count = 0;
				return -ENOMEM;
			case BT_MESSAGE_ITERATOR_NEXT_STATUS_ERROR:
			default:
				p->head = p->count = 0;
				return -EIO;
			}
		}
		r = m->ops->time(p->msgs[p->head], &p->ts, m->ops->data);
		if (r < 0)
			return r;
		if (r > 0)
			return 1;
		r = take(m, p, 0, false);
		if (r < 0)
			return r;
	}
}

/* Put a pending port in the heap once its head has a time. 0, -EAGAIN or -errno. */
static int enter(struct merge *m, struct port *p)
{
	int r = ready(m, p);

	if (r == -EAGAIN)
		return r;
	p->pending = false;
	m->npending--;
	if (r <= 0)
		return r; /* ended, or failed */
	m->heap[m->nheap++] = p;
	sift_up(m, m->nheap - 1);
	return 0;
}

/* Every port's next message must be known before the earliest can go. */
static int enter_pending(struct merge *m)
{
	int again = 0;

	for (size_t i = 0; i < m->nports && m->npending; i++) {
		int r;

		if (!m->ports[i].pending)
			continue;
		r = enter(m, &m->ports[i]);
		if (r == -EAGAIN)
			again = r;
		else if (r < 0)
			return r;
	}
	return again;
}

static bt_component_class_sink_consume_method_status status_of(int r)
{
	switch (r) {
	case 0:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
	case -EAGAIN:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
	case -ENOMEM:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
	default:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
}

static bt_component_class_sink_consume_method_status consume(bt_self_component_sink *self)
{
	struct merge *m =
		bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
	int r = m->npending ? enter_pending(m) : 0;

	for (int n = 0; r == 0 && n < BATCH && m->nheap; n++) {
		struct port *p = m->heap[0];

		r = take(m, p, p->ts, true);
		if (r == 0)
			r = ready(m, p);
		if (r == 1) {
			sift_down(m, 0); /* its new head is no earlier than the old one */
			r = 0;
			continue;
		}
		/* Ended, not known yet, or failed: out of the heap. */
		m->heap[0] = m->heap[--m->nheap];
		sift_down(m, 0);
		if (r == -EAGAIN) {
			p->pending = true;
			m->npending++;
		}
	}
	if (r < 0)
		return status_of(r);
	if (!m->nheap && !m->npending)
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
	return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
}

static bt_component_class_initialize_method_status
init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
     const bt_value *params, void *data)
{
	const struct jank_trace_merge_ops *ops = data;
	uint64_t nports = bt_value_integer_unsigned_get(
		bt_value_map_borrow_entry_value_const(params, "ports"));
	struct merge *m = calloc(1, sizeof(*m));

	(void)config;
	if (!m)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	m->ops = ops;
	m->nports = (size_t)nports;
	m->last_ts = INT64_MIN;
	m->ports = calloc(m->nports ? m->nports : 1, sizeof(*m->ports));
	m->heap = calloc(m->nports ? m->nports : 1, sizeof(*m->heap));
	bt_self_component_set_data(bt_self_component_sink_as_self_component(self), m);
	if (!m->ports || !m->heap)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	for (size_t i = 0; i < m->nports; i++) {
		char name[32];

		snprintf(name, sizeof(name), "in%zu", i);
		m->ports[i].index = i;
		m->ports[i].pending = true;
		m->npending++;
		if (bt_self_component_sink_add_input_port(self, name, NULL, NULL) !=
		    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK)
			return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static bt_component_class_sink_graph_is_configured_method_status
configured(bt_self_component_sink *self)
{
	struct merge *m =
		bt_self_component_get_data(bt_self_component_sink_as_self_component(self));

	for (size_t i = 0; i < m->nports; i++) {
		bt_self_component_port_input *port =
			bt_self_component_sink_borrow_input_port_by_index(self, i);

		if (bt_message_iterator_create_from_sink_component(self, port, &m->ports[i].it) !=
		    BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK)
			return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	}
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

static void fini(bt_self_component_sink *self)
{
	struct merge *m =
		bt_self_component_get_data(bt_self_component_sink_as_self_component(self));

	if (!m)
		return;
	for (size_t i = 0; i < m->nports; i++) {
		struct port *p = &m->ports[i];

		for (uint64_t k = p->head; k < p->count; k++)
			bt_message_put_ref(p->msgs[k]);
		bt_message_iterator_put_ref(p->it);
	}
	free(m->ports);
	free(m->heap);
	free(m);
}

int jank_trace_merge_add(bt_graph *graph, const char *name, size_t nports,
			 const struct jank_trace_merge_ops *ops, const bt_component_sink **sink)
{
	bt_component_class_sink *cls = bt_component_class_sink_create("jank-merge", consume);
	bt_value *params = bt_value_map_create();
	int r = -ENOMEM;

	if (!cls || !params ||
	    bt_component_class_sink_set_initialize_method(cls, init) !=
		    BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK ||
	    bt_component_class_sink_set_graph_is_configured_method(cls, configured) !=
		    BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK ||
	    bt_component_class_sink_set_finalize_method(cls, fini) !=
		    BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK ||
	    bt_value_map_insert_unsigned_integer_entry(params, "ports", nports) !=
		    BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK)
		goto end;
	r = bt_graph_add_sink_component_with_initialize_method_data(
		    graph, cls, name, params, (void *)ops, BT_LOGGING_LEVEL_NONE, sink) ==
			    BT_GRAPH_ADD_COMPONENT_STATUS_OK
		    ? 0
		    : -EIO;
end:
	bt_value_put_ref(params);
	bt_component_class_sink_put_ref(cls);
	return r;
}
