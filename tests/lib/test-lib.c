/* SPDX-License-Identifier: MIT */
/* Small modules: units, histogram, hash map, layouts, the graph's vertex ring. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "graph.h"
#include "hashmap.h"
#include "histogram.h"
#include "layout.h"
#include "state.h"
#include "units.h"

static void durations(void **state)
{
	int64_t ns;

	assert_int_equal(jank_units_parse_duration("16ms", &ns), 0);
	assert_int_equal(ns, 16000000);
	assert_int_equal(jank_units_parse_duration("500us", &ns), 0);
	assert_int_equal(ns, 500000);
	assert_int_equal(jank_units_parse_duration("2s", &ns), 0);
	assert_int_equal(ns, 2000000000);
	assert_int_equal(jank_units_parse_duration("1.5s", &ns), 0);
	assert_int_equal(ns, 1500000000);
	assert_int_equal(jank_units_parse_duration("100ns", &ns), 0);
	assert_int_equal(ns, 100);
	assert_int_equal(jank_units_parse_duration("1min", &ns), 0);
	assert_int_equal(ns, 60000000000LL);
	assert_int_equal(jank_units_parse_duration(" 10 ms ", &ns), 0);
	assert_int_equal(ns, 10000000);
	assert_int_equal(jank_units_parse_duration("10", &ns), -EINVAL);
	assert_int_equal(jank_units_parse_duration("ms", &ns), -EINVAL);
	assert_int_equal(jank_units_parse_duration("-1s", &ns), -EINVAL);
	assert_int_equal(jank_units_parse_duration("1 parsec", &ns), -EINVAL);
	assert_int_equal(jank_units_parse_duration("1e30s", &ns), -EINVAL);
	assert_int_equal(jank_units_parse_duration("", &ns), -EINVAL);
}

static void sizes(void **state)
{
	uint64_t b;

	assert_int_equal(jank_units_parse_size("256MiB", &b), 0);
	assert_int_equal(b, 256ull << 20);
	assert_int_equal(jank_units_parse_size("2GiB", &b), 0);
	assert_int_equal(b, 2ull << 30);
	assert_int_equal(jank_units_parse_size("10MB", &b), 0);
	assert_int_equal(b, 10000000);
	assert_int_equal(jank_units_parse_size("4096", &b), 0);
	assert_int_equal(b, 4096);
	assert_int_equal(jank_units_parse_size("lots", &b), -EINVAL);
	assert_int_equal(jank_units_parse_size("5 furlongs", &b), -EINVAL);
}

static void format(void **state)
{
	char buf[32];

	assert_string_equal(jank_units_duration(870, buf, sizeof(buf)), "870 ns");
	assert_string_equal(jank_units_duration(2100000, buf, sizeof(buf)), "2.10 ms");
	assert_string_equal(jank_units_duration(40300000, buf, sizeof(buf)), "40.3 ms");
	assert_string_equal(jank_units_duration(1500000000, buf, sizeof(buf)), "1.50 s");
}

static void histogram(void **state)
{
	struct jank_histogram *h = malloc(sizeof(*h));

	jank_histogram_init(h);
	assert_int_equal(jank_histogram_percentile(h, 50), 0);
	for (int64_t v = 1; v <= 1000; v++)
		jank_histogram_add(h, v * 1000);
	assert_int_equal(h->count, 1000);
	assert_int_equal(h->max, 1000000);
	assert_int_equal(jank_histogram_percentile(h, 100), 1000000);
	/* Within 1/16 of the exact value. */
	int64_t p50 = jank_histogram_percentile(h, 50);
	int64_t p99 = jank_histogram_percentile(h, 99);

	assert_true(p50 >= 500000 && p50 <= 500000 + 500000 / 16);
	assert_true(p99 >= 990000 && p99 <= 1000000);
	jank_histogram_add(h, -5);
	assert_int_equal(h->min, 0);
	free(h);
}

static void hashmap(void **state)
{
	struct jank_hashmap m;
	static int vals[5000];

	jank_hashmap_init(&m);
	for (int i = 0; i < 5000; i++)
		assert_int_equal(jank_hashmap_put(&m, (uint64_t)i * 7, &vals[i]), 0);
	for (int i = 0; i < 5000; i += 2)
		assert_ptr_equal(jank_hashmap_remove(&m, (uint64_t)i * 7), &vals[i]);
	assert_int_equal(m.count, 2500);
	for (int i = 0; i < 5000; i++)
		assert_ptr_equal(jank_hashmap_get(&m, (uint64_t)i * 7), i % 2 ? &vals[i] : NULL);
	assert_null(jank_hashmap_remove(&m, 3));
	jank_hashmap_fini(&m);
}

static void layouts(void **state)
{
	struct jank_layout l = { 0 };

	jank_layout_from_env(&l, 2, 5);
	assert_int_equal(l.version, JANK_LAYOUT_2_5);
	assert_int_equal(jank_layout_classify(&l, JANK_DOMAIN_KERNEL, "sys_read"),
			 JANK_EVENT_SYSCALL_ENTRY);
	assert_int_equal(jank_layout_classify(&l, JANK_DOMAIN_KERNEL, "exit_syscall"),
			 JANK_EVENT_SYSCALL_EXIT);
	assert_int_equal(jank_layout_classify(&l, JANK_DOMAIN_KERNEL, "softirq_entry"),
			 JANK_EVENT_SOFTIRQ_ENTRY);
	assert_int_equal(jank_layout_classify(&l, JANK_DOMAIN_KERNEL, "hrtimer_expire_entry"),
			 JANK_EVENT_HRTIMER_ENTRY);
	memset(&l, 0, sizeof(l));
	jank_layout_from_env(&l, 2, 13);
	assert_int_equal(l.version, JANK_LAYOUT_2_8);
	assert_int_equal(jank_layout_classify(&l, JANK_DOMAIN_KERNEL, "sys_read"),
			 JANK_EVENT_USER);
	assert_int_equal(jank_layout_classify(&l, JANK_DOMAIN_KERNEL, "syscall_exit_read"),
			 JANK_EVENT_SYSCALL_EXIT);
	assert_int_equal(jank_layout_classify(&l, JANK_DOMAIN_KERNEL, "irq_softirq_entry"),
			 JANK_EVENT_SOFTIRQ_ENTRY);
	assert_int_equal(jank_layout_classify(&l, JANK_DOMAIN_KERNEL, "sched_waking"),
			 JANK_EVENT_SCHED_WAKING);
	assert_int_equal(jank_layout_classify(&l, JANK_DOMAIN_UST, "sched_switch"),
			 JANK_EVENT_USER);
	assert_int_equal(jank_layout_classify(&l, JANK_DOMAIN_UST,
					      "lttng_ust_pthread:pthread_mutex_lock_req"),
			 JANK_EVENT_MUTEX_REQ);
	/* No environment: detected from the names. */
	memset(&l, 0, sizeof(l));
	jank_layout_observe(&l, "sched_switch");
	assert_int_equal(l.version, JANK_LAYOUT_UNKNOWN);
	jank_layout_observe(&l, "exit_syscall");
	assert_int_equal(l.version, JANK_LAYOUT_2_5);
	memset(&l, 0, sizeof(l));
	jank_layout_observe(&l, "syscall_entry_read");
	jank_layout_observe(&l, "irq_softirq_raise");
	assert_int_equal(l.version, JANK_LAYOUT_2_7);
	jank_layout_observe(&l, "sched_waking");
	assert_int_equal(l.version, JANK_LAYOUT_2_8);
	assert_string_equal(jank_state_name(JANK_STATE_BLOCK_DEVICE), "block_device");
	assert_int_equal(jank_state_from_name("lock_wait"), JANK_STATE_LOCK_WAIT);
	assert_int_equal(jank_state_from_name("nope"), -1);
}

/* The ring grows, GC drops old vertices but keeps the one that straddles the horizon. */
static void vertex_ring(void **state)
{
	struct jank_graph *g = jank_graph_new();
	struct jank_worker *w = jank_graph_get(g, 5, 0);
	struct jank_graph_stats st;

	for (int i = 0; i < 1000; i++)
		jank_graph_transition(g, w, i * 10,
				      i % 2 ? JANK_STATE_RUNNING : JANK_STATE_PREEMPTED);
	assert_int_equal(w->next - w->base, 1000);
	assert_int_equal(jank_worker_find_before(w, 55), 5);
	assert_int_equal(jank_worker_find_before(w, 50), 4);
	assert_int_equal(jank_worker_find_before(w, 0), UINT64_MAX);
	jank_graph_gc_step(g, 5005, 100);
	assert_int_equal(w->base, 500); /* the vertex at 5000 */
	assert_null(jank_worker_vertex(w, 499));
	assert_int_equal(jank_worker_vertex(w, 500)->ts, 5000);
	jank_graph_gc_step(g, 9990, 100);
	assert_int_equal(w->next - w->base, 1);
	jank_graph_get_stats(g, &st);
	assert_int_equal(st.freed_vertices, 999);
	assert_true(w->cap <= 8);
	/* Same-instant transitions do not store zero-length intervals. */
	jank_graph_transition(g, w, 10000, JANK_STATE_BLOCKED);
	jank_graph_transition(g, w, 10000, JANK_STATE_RUNNING);
	assert_int_equal(w->next - w->base, 2);
	assert_int_equal(jank_worker_vertex(w, w->next - 1)->state, JANK_STATE_RUNNING);
	/* A retired worker goes whole once the horizon passes it. */
	jank_graph_retire(g, 5);
	assert_null(jank_graph_find(g, 5));
	jank_graph_gc_step(g, 20000, 100);
	assert_int_equal(jank_graph_worker_count(g), 0);
	jank_graph_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(durations),  cmocka_unit_test(sizes),	 cmocka_unit_test(format),
		cmocka_unit_test(histogram),  cmocka_unit_test(hashmap), cmocka_unit_test(layouts),
		cmocka_unit_test(vertex_ring),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
