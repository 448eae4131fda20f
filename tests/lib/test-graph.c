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
#include "array.h"
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
 * A full ring doubles in place (graph.c ring_double()): whatever slot its
 * oldest vertex sits at (GC moved the base), every vertex keeps its index
 * and its time, through several doublings, and the bytes follow the ring.
 */
static void vertex_ring_doubles(void **state)
{
	/* Where the base sits in a ring of 8192 (graph.c RING_DOUBLE_MIN) when it is full. */
	static const uint64_t drops[] = { 0, 1, 3000, 4095, 4096, 6000, 8191 };

	for (size_t d = 0; d < sizeof(drops) / sizeof(drops[0]); d++) {
		struct jank_graph *g = jank_graph_new();
		struct jank_thread *w = jank_graph_get(g, 5, 0);
		uint64_t bytes;
		int64_t t = 0;

		/* Fill 8192 slots, free `drop` of them (the base moves), then refill past 4x. */
		for (int i = 0; i < 8192; i++, t += 10)
			jank_graph_split(g, w, t);
		assert_int_equal(w->cap, 8192);
		jank_graph_gc_step(g, (int64_t)drops[d] * 10, 1);
		assert_int_equal(w->base, drops[d]);
		bytes = jank_graph_bytes(g) - (uint64_t)w->cap * sizeof(struct jank_vertex);
		for (int i = 0; i < 3 * 8192 + 7; i++, t += 10)
			jank_graph_split(g, w, t);
		assert_true(w->cap >= 32768 && w->cap >= w->next - w->base);
		for (uint64_t i = w->base; i < w->next; i++)
			assert_int_equal(jank_thread_vertex(w, i)->ts, (int64_t)i * 10);
		assert_int_equal(jank_graph_bytes(g),
				 bytes + (uint64_t)w->cap * sizeof(struct jank_vertex));
		jank_graph_free(g);
	}
	(void)state;
}

/*
 * A span keeps its name and key after its six-byte head (graph.h): the
 * longest ones cut to JANK_LABEL_NAME_LEN - 1 and JANK_LABEL_KEY_LEN - 1
 * bytes, each counted as allocated; a freed span's slot, reused, says only
 * the new span's name and key; and the span of an instant reads back.
 */
static void span_record(void **state)
{
	struct jank_graph *g = jank_graph_new();
	struct jank_thread *w = jank_graph_get(g, 7, 0);
	char name[200], key[200];
	struct jank_span *s, *t, *keep;
	const struct jank_span *at;
	uintptr_t old;
	uint64_t b0;
	int64_t since;

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	memset(key, 'k', sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	s = jank_graph_span_open(g, w, 10, "", "");
	assert_non_null(s);
	assert_string_equal(s->name, "");
	assert_string_equal(jank_span_key(s), "");
	b0 = jank_graph_bytes(g);
	t = jank_graph_span_open(g, w, 20, name, key);
	assert_non_null(t);
	assert_int_equal(strlen(t->name), JANK_LABEL_NAME_LEN - 1);
	assert_int_equal(strlen(jank_span_key(t)), JANK_LABEL_KEY_LEN - 1);
	assert_int_equal(t->size, offsetof(struct jank_span, name) + JANK_LABEL_NAME_LEN +
					  JANK_LABEL_KEY_LEN);
	assert_true(jank_graph_bytes(g) >= b0 + t->size);
	jank_graph_span_close(g, w->serial, t, 30);
	jank_graph_span_close(g, w->serial, s, 40);
	at = jank_thread_span_before(w, 25, &since);
	assert_ptr_equal(at, t);
	assert_int_equal(since, 20);
	assert_int_equal(strlen(jank_span_key(at)), JANK_LABEL_KEY_LEN - 1);
	at = jank_thread_span_before(w, 35, &since);
	assert_ptr_equal(at, s);
	assert_string_equal(jank_span_key(at), "");
	/*
	 * GC drops the changes: the spans go back to the slab (kept: another
	 * thread's span is open), and a new one reuses the last slot freed.
	 */
	keep = jank_graph_span_open(g, jank_graph_get(g, 8, 0), 50, "keep", "k");
	assert_non_null(keep);
	old = (uintptr_t)s;
	jank_graph_gc_step(g, 1000, 10);
	assert_null(jank_thread_span_before(w, 2000, &since));
	s = jank_graph_span_open(g, w, 2000, "load", "name=load,id=199999");
	assert_non_null(s);
	assert_int_equal((uintptr_t)s, old);
	assert_string_equal(keep->name, "keep");
	assert_string_equal(jank_span_key(keep), "k");
	assert_string_equal(s->name, "load");
	assert_string_equal(jank_span_key(s), "name=load,id=199999");
	assert_int_equal(s->size, offsetof(struct jank_span, name) + 4 + 19 + 2);
	jank_graph_span_close(g, w->serial, s, 2010);
	at = jank_thread_span_before(w, 2005, &since);
	assert_ptr_equal(at, s);
	assert_string_equal(jank_span_key(at), "name=load,id=199999");
	jank_graph_free(g);
	(void)state;
}

/*
 * jank_copy_short() (array.h), which spans and actions copy their names
 * and keys with: every length to past its last case, the bytes copied
 * exactly and none written around them (the source is a block of exactly
 * n bytes: under ASan, a byte read past it fails too).
 */
static void copy_short(void **state)
{
	for (size_t n = 0; n <= 70; n++) {
		char *src = malloc(n ? n : 1), dst[16 + 70 + 16];

		assert_non_null(src);
		for (size_t i = 0; i < n; i++)
			src[i] = (char)(i * 7 + n + 1);
		memset(dst, 0x5a, sizeof(dst));
		jank_copy_short(dst + 16, src, n);
		assert_memory_equal(dst + 16, src, n);
		for (size_t i = 0; i < sizeof(dst); i++)
			if (i < 16 || i >= 16 + n)
				assert_int_equal(dst[i], 0x5a);
		free(src);
	}
	(void)state;
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
		cmocka_unit_test(vertex_ring),	 cmocka_unit_test(vertex_ring_doubles),
		cmocka_unit_test(span_record),	 cmocka_unit_test(copy_short),
		cmocka_unit_test(bytes_balance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
