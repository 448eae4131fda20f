/* SPDX-License-Identifier: MIT */
/* lib/graph.c: the per-thread vertex rings. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "graph.h"
#include "state.h"

static void vertex_ring(void **state)
{
	struct jank_graph *g = jank_graph_new();
	struct jank_thread *w = jank_graph_get(g, 5, 0);
	struct jank_graph_stats st;

	for (int i = 0; i < 1000; i++)
		jank_graph_transition(g, w, i * 10,
				      i % 2 ? JANK_STATE_RUNNING : JANK_STATE_PREEMPTED);
	assert_int_equal(w->next - w->base, 1000);
	assert_int_equal(jank_thread_find_before(w, 55), 5);
	assert_int_equal(jank_thread_find_before(w, 50), 4);
	assert_int_equal(jank_thread_find_before(w, 0), UINT64_MAX);
	jank_graph_gc_step(g, 5005, 100);
	assert_int_equal(w->base, 500); /* the vertex at 5000 */
	assert_null(jank_thread_vertex(w, 499));
	assert_int_equal(jank_thread_vertex(w, 500)->ts, 5000);
	jank_graph_gc_step(g, 9990, 100);
	assert_int_equal(w->next - w->base, 1);
	jank_graph_get_stats(g, &st);
	assert_int_equal(st.freed_vertices, 999);
	assert_true(w->cap <= 8);
	/* Same-instant transitions do not store zero-length intervals. */
	jank_graph_transition(g, w, 10000, JANK_STATE_BLOCKED);
	jank_graph_transition(g, w, 10000, JANK_STATE_RUNNING);
	assert_int_equal(w->next - w->base, 2);
	assert_int_equal(jank_thread_vertex(w, w->next - 1)->state, JANK_STATE_RUNNING);
	/* A retired thread goes whole once the horizon passes it. */
	jank_graph_retire(g, 5);
	assert_null(jank_graph_find(g, 5));
	jank_graph_gc_step(g, 20000, 100);
	assert_int_equal(jank_graph_thread_count(g), 0);
	jank_graph_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vertex_ring),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
