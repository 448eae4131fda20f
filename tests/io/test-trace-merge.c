/* SPDX-License-Identifier: MIT */
/*
 * io/trace-merge.c: the merging sink in a babeltrace2 graph of synthetic
 * sources in memory (no trace). Each source plays a script: messages with
 * a time or without, a pause (its iterator says "again"), an error. The
 * messages are inactivity messages whose clock value carries the script's
 * time, port and kind; the ops callbacks read them back and log what the
 * merge delivers.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "trace-merge.h"

enum kind {
	TIMED = 0,
	UNTIMED,  /* the time callback says it has none */
	AGAIN,	  /* the iterator returns "again" once, nothing else */
	FAIL,	  /* the iterator returns an error */
	BAD_TIME, /* the time callback fails with -EINVAL */
	BAD_TAKE, /* the take callback fails with -ENOSPC */
	END = 15, /* the script's end */
};

struct step {
	enum kind kind;
	int64_t ts;
};

#define MAX_STEPS 32
#define MAX_LOG	  64
#define PER_CALL  2 /* messages a source gives per call: ports refill often */

struct source {
	struct step steps[MAX_STEPS];
	size_t port; /* the merge's input port it feeds */
	size_t next;
	bt_clock_class *clock;
};

struct taken {
	size_t port;
	int64_t ts;
	bool timed;
};

struct log {
	struct taken v[MAX_LOG];
	size_t n;
	char error[256];
	int errors;
};

static uint64_t encode(const struct source *s, const struct step *st)
{
	return ((uint64_t)st->ts << 8) | (s->port << 4) | (uint64_t)st->kind;
}

static uint64_t raw_of(const bt_message *msg)
{
	return bt_clock_snapshot_get_value(
		bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(msg));
}

static bt_message_iterator_class_next_method_status src_next(bt_self_message_iterator *self,
							     bt_message_array_const msgs,
							     uint64_t capacity, uint64_t *count)
{
	struct source *s =
		bt_self_component_get_data(bt_self_message_iterator_borrow_component(self));
	uint64_t n = 0;

	while (n < capacity && n < PER_CALL) {
		const struct step *st = &s->steps[s->next];

		if (st->kind == END)
			break;
		if (st->kind == AGAIN || st->kind == FAIL) {
			if (n)
				break; /* give what is there first */
			s->next++;
			return st->kind == AGAIN
				       ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN
				       : BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}
		msgs[n] = bt_message_message_iterator_inactivity_create(self, s->clock,
									encode(s, st));
		assert_non_null(msgs[n]);
		n++;
		s->next++;
	}
	*count = n;
	return n ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK
		 : BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
}

static bt_component_class_initialize_method_status
src_init(bt_self_component_source *self, bt_self_component_source_configuration *config,
	 const bt_value *params, void *data)
{
	bt_self_component *c = bt_self_component_source_as_self_component(self);
	struct source *s = data;

	(void)config;
	(void)params;
	s->clock = bt_clock_class_create(c);
	if (!s->clock)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	bt_self_component_set_data(c, s);
	if (bt_self_component_source_add_output_port(self, "out", NULL, NULL) !=
	    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void src_fini(bt_self_component_source *self)
{
	struct source *s =
		bt_self_component_get_data(bt_self_component_source_as_self_component(self));

	bt_clock_class_put_ref(s->clock);
	s->clock = NULL;
}

static int merge_time(const bt_message *msg, int64_t *ts, void *data)
{
	uint64_t raw = raw_of(msg);

	(void)data;
	switch (raw & 15) {
	case UNTIMED:
		return 0;
	case BAD_TIME:
		return -EINVAL;
	default:
		*ts = (int64_t)(raw >> 8);
		return 1;
	}
}

static int merge_take(const bt_message *msg, int64_t ts, bool timed, void *data)
{
	struct log *l = data;
	uint64_t raw = raw_of(msg);

	assert_true(l->n < MAX_LOG);
	l->v[l->n++] = (struct taken){ (raw >> 4) & 15, ts, timed };
	if (timed)
		assert_int_equal(ts, (int64_t)(raw >> 8));
	return (raw & 15) == BAD_TAKE ? -ENOSPC : 0;
}

static void merge_error(const char *what, void *data)
{
	struct log *l = data;

	snprintf(l->error, sizeof(l->error), "%s", what);
	l->errors++;
}

/* Run a graph of `n` sources into the merge; the graph's final status. */
static bt_graph_run_status run(struct source *srcs, size_t n, struct log *l)
{
	const struct jank_trace_merge_ops ops = { merge_time, merge_take, merge_error, l };
	bt_message_iterator_class *ic = bt_message_iterator_class_create(src_next);
	bt_component_class_source *cls;
	const bt_component_sink *sink;
	bt_graph *g = bt_graph_create(0);
	bt_graph_run_status st;
	int again = 0;

	assert_non_null(ic);
	assert_non_null(g);
	cls = bt_component_class_source_create("script", ic);
	assert_non_null(cls);
	assert_int_equal(bt_component_class_source_set_initialize_method(cls, src_init),
			 BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK);
	assert_int_equal(bt_component_class_source_set_finalize_method(cls, src_fini),
			 BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK);
	memset(l, 0, sizeof(*l));
	assert_int_equal(jank_trace_merge_add(g, "merge", n, &ops, &sink), 0);
	for (size_t i = 0; i < n; i++) {
		const bt_component_source *src;
		char name[16];

		snprintf(name, sizeof(name), "src%zu", i);
		srcs[i].port = i;
		srcs[i].next = 0;
		assert_int_equal(bt_graph_add_source_component_with_initialize_method_data(
					 g, cls, name, NULL, &srcs[i], BT_LOGGING_LEVEL_NONE, &src),
				 BT_GRAPH_ADD_COMPONENT_STATUS_OK);
		assert_int_equal(
			bt_graph_connect_ports(
				g, bt_component_source_borrow_output_port_by_index_const(src, 0),
				bt_component_sink_borrow_input_port_by_index_const(sink, i), NULL),
			BT_GRAPH_CONNECT_PORTS_STATUS_OK);
	}
	while ((st = bt_graph_run(g)) == BT_GRAPH_RUN_STATUS_AGAIN)
		assert_true(++again < 1000);
	bt_graph_put_ref(g);
	bt_component_class_source_put_ref(cls);
	bt_message_iterator_class_put_ref(ic);
	bt_current_thread_clear_error();
	return st;
}

static void check_log(const struct log *l, const struct taken *want, size_t n)
{
	for (size_t i = 0; i < n && i < l->n; i++)
		if (l->v[i].port != want[i].port || l->v[i].ts != want[i].ts ||
		    l->v[i].timed != want[i].timed)
			fail_msg("message %zu: port %zu ts %lld%s, want port %zu ts %lld%s", i,
				 l->v[i].port, (long long)l->v[i].ts,
				 l->v[i].timed ? "" : " untimed", want[i].port,
				 (long long)want[i].ts, want[i].timed ? "" : " untimed");
	assert_int_equal(l->n, n);
}

#define T(t)                                                                                       \
	{                                                                                          \
		TIMED, t                                                                           \
	}
#define U                                                                                          \
	{                                                                                          \
		UNTIMED, 0                                                                         \
	}
#define STOP                                                                                       \
	{                                                                                          \
		END, 0                                                                             \
	}
#define W(p, t)                                                                                    \
	{                                                                                          \
		p, t, true                                                                         \
	}
#define WU(p, t)                                                                                   \
	{                                                                                          \
		p, t, false                                                                        \
	}

static void order(void **state)
{
	struct source srcs[3] = {
		{ .steps = { T(1), T(4), T(7), T(10), STOP } },
		{ .steps = { T(2), T(5), T(8), STOP } },
		{ .steps = { T(3), T(6), T(9), T(11), T(12), T(1000000000000LL), STOP } },
	};
	const struct taken want[] = {
		W(0, 1),
		W(1, 2),
		W(2, 3),
		W(0, 4),
		W(1, 5),
		W(2, 6),
		W(0, 7),
		W(1, 8),
		W(2, 9),
		W(0, 10),
		W(2, 11),
		W(2, 12),
		W(2, 1000000000000LL),
	};
	struct log l;

	(void)state;
	assert_int_equal(run(srcs, 3, &l), BT_GRAPH_RUN_STATUS_OK);
	check_log(&l, want, sizeof(want) / sizeof(want[0]));
	assert_int_equal(l.errors, 0);
}

/* Equal times go by port, the lower first, even when the lower port is refilled. */
static void ties(void **state)
{
	struct source srcs[3] = {
		{ .steps = { T(5), T(5), T(5), T(6), STOP } },
		{ .steps = { T(0), T(5), STOP } },
		{ .steps = { T(5), T(6), STOP } },
	};
	const struct taken want[] = {
		W(1, 0), W(0, 5), W(0, 5), W(0, 5), W(1, 5), W(2, 5), W(0, 6), W(2, 6),
	};
	struct log l;

	(void)state;
	assert_int_equal(run(srcs, 3, &l), BT_GRAPH_RUN_STATUS_OK);
	check_log(&l, want, sizeof(want) / sizeof(want[0]));
}

/* A message without a time goes as soon as it heads its port, with the last time. */
static void untimed(void **state)
{
	struct source srcs[2] = {
		{ .steps = { U, T(10), U, U, T(20), U, STOP } },
		{ .steps = { U, T(15), STOP } },
	};
	const struct taken want[] = {
		WU(0, INT64_MIN), WU(1, INT64_MIN), W(0, 10), WU(0, 10),
		WU(0, 10),	  W(1, 15),	    W(0, 20), WU(0, 20),
	};
	struct log l;

	(void)state;
	assert_int_equal(run(srcs, 2, &l), BT_GRAPH_RUN_STATUS_OK);
	check_log(&l, want, sizeof(want) / sizeof(want[0]));
}

/* Sources that give nothing, or run out long before the others. */
static void empty_and_exhausted(void **state)
{
	struct source srcs[4] = {
		{ .steps = { STOP } },
		{ .steps = { T(3), STOP } },
		{ .steps = { STOP } },
		{ .steps = { T(1), T(2), T(4), T(5), T(6), STOP } },
	};
	const struct taken want[] = {
		W(3, 1), W(3, 2), W(1, 3), W(3, 4), W(3, 5), W(3, 6),
	};
	struct log l;

	(void)state;
	assert_int_equal(run(srcs, 4, &l), BT_GRAPH_RUN_STATUS_OK);
	check_log(&l, want, sizeof(want) / sizeof(want[0]));
	assert_int_equal(run(srcs, 1, &l), BT_GRAPH_RUN_STATUS_OK);
	assert_int_equal(l.n, 0);
	assert_int_equal(run(srcs, 3, &l), BT_GRAPH_RUN_STATUS_OK);
	check_log(&l, (const struct taken[]){ W(1, 3) }, 1);
	assert_int_equal(run(srcs, 0, &l), BT_GRAPH_RUN_STATUS_OK);
	assert_int_equal(l.n, 0);
}

/* A source with nothing yet holds the others back: nothing later goes before its next. */
static void again(void **state)
{
	struct source srcs[2] = {
		{ .steps = { T(1), { AGAIN, 0 }, { AGAIN, 0 }, T(2), T(4), STOP } },
		{ .steps = { { AGAIN, 0 }, T(3), STOP } },
	};
	const struct taken want[] = { W(0, 1), W(0, 2), W(1, 3), W(0, 4) };
	struct log l;

	(void)state;
	assert_int_equal(run(srcs, 2, &l), BT_GRAPH_RUN_STATUS_OK);
	check_log(&l, want, sizeof(want) / sizeof(want[0]));
	assert_int_equal(l.errors, 0);
}

static void source_error(void **state)
{
	struct source srcs[2] = {
		{ .steps = { T(1), T(2), { FAIL, 0 }, T(9), STOP } },
		{ .steps = { T(5), STOP } },
	};
	const struct taken want[] = { W(0, 1), W(0, 2) };
	struct log l;

	(void)state;
	assert_int_equal(run(srcs, 2, &l), BT_GRAPH_RUN_STATUS_ERROR);
	check_log(&l, want, sizeof(want) / sizeof(want[0]));
	/* Before anything was delivered. */
	srcs[0].steps[0] = (struct step){ FAIL, 0 };
	assert_int_equal(run(srcs, 2, &l), BT_GRAPH_RUN_STATUS_ERROR);
	assert_int_equal(l.n, 0);
}

static void callback_errors(void **state)
{
	struct source srcs[2] = {
		{ .steps = { T(1), { BAD_TIME, 2 }, T(3), STOP } },
		{ .steps = { T(2), STOP } },
	};
	struct log l;

	(void)state;
	assert_int_equal(run(srcs, 2, &l), BT_GRAPH_RUN_STATUS_ERROR);
	check_log(&l, (const struct taken[]){ W(0, 1) }, 1);
	srcs[0].steps[1] = (struct step){ BAD_TAKE, 2 };
	assert_int_equal(run(srcs, 2, &l), BT_GRAPH_RUN_STATUS_ERROR);
	check_log(&l, (const struct taken[]){ W(0, 1), W(0, 2) }, 2); /* the failed one: tried */
	assert_int_equal(l.errors, 0);
}

/* A port going back in time fails the merge, with words for it. */
static void backwards(void **state)
{
	struct source srcs[2] = {
		{ .steps = { T(5), T(7), T(3), T(8), STOP } },
		{ .steps = { T(6), STOP } },
	};
	struct log l;

	(void)state;
	assert_int_equal(run(srcs, 2, &l), BT_GRAPH_RUN_STATUS_ERROR);
	check_log(&l, (const struct taken[]){ W(0, 5), W(1, 6), W(0, 7) }, 3);
	assert_int_equal(l.errors, 1);
	assert_string_equal(l.error, "timestamps go backwards (3 ns after 7 ns): were these "
				     "traces recorded with the same clock?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(order),	   cmocka_unit_test(ties),
		cmocka_unit_test(untimed),	   cmocka_unit_test(empty_and_exhausted),
		cmocka_unit_test(again),	   cmocka_unit_test(source_error),
		cmocka_unit_test(callback_errors), cmocka_unit_test(backwards),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
