/* SPDX-License-Identifier: MIT */
/* lib/graph.c: the per-thread vertex rings. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "graph.h"
#include "hashmap.h"
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

/*
 * Threads with vertices (rings grown and shrunk), spans open, closed and
 * changed at the same instant, lock notes, a flow; then all retired and
 * collected. What it adds, jank_graph_bytes() at the end of the round.
 */
static uint64_t bytes_round(struct jank_graph *g, int64_t t0)
{
	struct jank_span *open[8];
	char key[32];

	for (int32_t tid = 1; tid <= 40; tid++) {
		struct jank_thread *w = jank_graph_get(g, tid, t0);
		int64_t t = t0;

		assert_non_null(w);
		for (int i = 0; i < 300; i++, t += 10) {
			jank_graph_transition(g, w, t,
					      i % 3 ? JANK_STATE_RUNNING : JANK_STATE_BLOCKED);
			if (i % 7 == 0)
				jank_graph_note_lock(g, w, w->next - 1, (uint64_t)i);
			jank_graph_split(g, w, t + 5);
			if (i % 40 < 8) {
				snprintf(key, sizeof(key), "id=%d", i);
				open[i % 40] =
					jank_graph_span_open(g, w, t + (i % 3 ? 5 : 0),
							     i % 2 ? "load" : "a longer name", key);
				assert_non_null(open[i % 40]);
			} else if (i % 40 < 16) {
				/* Outermost first on odd rounds: the open list moves. */
				int k = tid % 2 ? i % 40 - 8 : 15 - i % 40;

				jank_graph_span_close(g, w->serial, open[k], t + (i % 4 ? 7 : 5));
			}
		}
		if (tid == 3)
			jank_graph_flow(g, jank_graph_find(g, 2), 5, w, t,
					jank_graph_flow_id(g, "f"));
		jank_graph_gc_step(g, t - 1000, 40); /* some rings and span lists shrink */
	}
	for (int32_t tid = 1; tid <= 40; tid++)
		jank_graph_retire(g, tid);
	for (int n = 0; n < 10 && jank_graph_thread_count(g); n++)
		jank_graph_gc_step(g, t0 + 1000000, 1000);
	assert_int_equal(jank_graph_thread_count(g), 0);
	return jank_graph_bytes(g);
}

/*
 * The graph's byte count is kept as it goes (graph.h): every growth and
 * every release must be told, or a round that leaves nothing would not
 * bring it back where it was (the maps by tid and serial, and the flow
 * names, grow in the first round and stay).
 */
static void bytes_balance(void **state)
{
	struct jank_graph *g = jank_graph_new();
	uint64_t b0 = jank_graph_bytes(g), b1, b2;
	struct jank_hashmap m;

	/* What two maps of 40 threads take, and four flow names. */
	jank_hashmap_init(&m);
	for (uint64_t k = 1; k <= 40; k++)
		assert_int_equal(jank_hashmap_put(&m, k, &m), 0);
	b1 = bytes_round(g, 0);
	assert_int_equal(b1 - b0, 2 * jank_hashmap_bytes(&m) + 4 * JANK_LABEL_NAME_LEN);
	jank_hashmap_fini(&m);
	b2 = bytes_round(g, 10000000);
	assert_int_equal(b2, b1);
	assert_int_equal(bytes_round(g, 20000000), b1);
	jank_graph_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vertex_ring),
		cmocka_unit_test(bytes_balance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
