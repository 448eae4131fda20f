/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz-check.h"

void fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, what);
	abort();
}

void fuzz_check_path(const struct jank_path *p)
{
	int64_t sum = 0;
	bool unknown = false;

	FUZZ_ASSERT(p->end >= p->begin);
	FUZZ_ASSERT(p->n <= p->cap);
	if (p->n == 0) {
		/* Nothing to tile, or out of memory before the first segment. */
		FUZZ_ASSERT(p->end == p->begin || p->incomplete);
		return;
	}
	FUZZ_ASSERT(p->segs[p->n - 1].end == p->end);
	FUZZ_ASSERT(p->incomplete || p->segs[0].begin == p->begin);
	FUZZ_ASSERT(p->segs[0].begin >= p->begin);
	for (size_t i = 0; i < p->n; i++) {
		const struct jank_segment *s = &p->segs[i];

		FUZZ_ASSERT(s->end > s->begin);
		FUZZ_ASSERT(s->state < JANK_STATE_COUNT);
		FUZZ_ASSERT(memchr(s->comm, '\0', sizeof(s->comm)));
		if (i)
			FUZZ_ASSERT(s->begin == p->segs[i - 1].end);
		unknown |= s->state == JANK_STATE_UNKNOWN;
		sum += s->end - s->begin;
	}
	FUZZ_ASSERT(sum == p->end - p->segs[0].begin);
	/* critpath.h: a truncated path reached freed graph, which it says as `unknown`. */
	FUZZ_ASSERT(!p->truncated || unknown);
}

void fuzz_check_breakdown(const struct jank_path *p, const struct jank_breakdown *b)
{
	int64_t states = 0, items = 0, locks = 0;

	if (p->incomplete)
		return;
	for (int s = 0; s < JANK_STATE_COUNT; s++) {
		FUZZ_ASSERT(b->per_state[s] >= 0);
		states += b->per_state[s];
	}
	for (size_t i = 0; i < b->n; i++) {
		FUZZ_ASSERT(b->items[i].ns > 0);
		FUZZ_ASSERT(i == 0 || b->items[i - 1].ns >= b->items[i].ns);
		items += b->items[i].ns;
	}
	for (size_t i = 0; i < b->nlocks; i++) {
		FUZZ_ASSERT(b->locks[i].ns > 0);
		FUZZ_ASSERT(i == 0 || b->locks[i - 1].ns >= b->locks[i].ns);
		locks += b->locks[i].ns;
	}
	FUZZ_ASSERT(states == p->end - p->begin);
	FUZZ_ASSERT(items == states);
	FUZZ_ASSERT(locks <= states);
}

void fuzz_check_verdict(const struct jank_engine *e, const struct jank_verdict *r)
{
	FUZZ_ASSERT(r->rule_index < jank_engine_rule_count(e));
	FUZZ_ASSERT(r->rule == jank_engine_rule(e, r->rule_index));
	FUZZ_ASSERT(r->key && strnlen(r->key, JANK_KEY_LEN) < JANK_KEY_LEN);
	FUZZ_ASSERT(!r->comm || strnlen(r->comm, JANK_COMM_LEN) < JANK_COMM_LEN);
	FUZZ_ASSERT(r->end >= r->begin);
	FUZZ_ASSERT(r->duration == r->end - r->begin);
	FUZZ_ASSERT(r->threshold >= 0);
	if (r->kind == JANK_VERDICT_COMPLETED)
		FUZZ_ASSERT(r->over_threshold == (r->threshold > 0 && r->duration > r->threshold));
	else
		FUZZ_ASSERT(r->kind == JANK_VERDICT_OVERDUE && r->over_threshold &&
			    r->threshold > 0 && r->duration > r->threshold);
	FUZZ_ASSERT(r->path && r->breakdown);
	FUZZ_ASSERT(r->path->begin == r->begin && r->path->end == r->end);
	if (r->incomplete)
		return;
	FUZZ_ASSERT(!r->path->incomplete);
	fuzz_check_path(r->path);
	fuzz_check_breakdown(r->path, r->breakdown);
}

struct pick {
	const struct jank_thread **w;
	size_t n, max;
};

static void pick_thread(const struct jank_thread *w, void *data)
{
	struct pick *p = data;

	if (p->n < p->max)
		p->w[p->n++] = w;
}

/* One query: 0 or -ENOMEM, or -ENOENT for a thread the graph does not have. */
static void query(const struct jank_graph *g, const struct jank_thread *w, int32_t tid,
		  int64_t begin, int64_t end)
{
	struct jank_breakdown b;
	struct jank_path p;
	int r;

	jank_path_init(&p);
	jank_breakdown_init(&b);
	if (w)
		r = jank_critpath_compute_thread(g, w, begin, end, &p);
	else
		r = jank_critpath_compute(g, tid, begin, end, &p);
	FUZZ_ASSERT(r == 0 || r == -ENOMEM || (r == -ENOENT && !jank_graph_find(g, tid)));
	FUZZ_ASSERT(p.begin == begin && p.end == end);
	if (r == -ENOENT)
		FUZZ_ASSERT(end == begin ||
			    (p.n == 1 && p.segs[0].state == JANK_STATE_UNKNOWN && !p.truncated));
	if (r != -ENOMEM) {
		fuzz_check_path(&p);
		if (jank_breakdown_compute(&p, &b) == 0)
			fuzz_check_breakdown(&p, &b);
	}
	jank_breakdown_fini(&b);
	jank_path_fini(&p);
}

size_t fuzz_check_queries(const struct jank_graph *g, size_t max, int64_t begin, int64_t end)
{
	const struct jank_thread *ws[16];
	struct pick pk = { .w = ws, .max = max < 16 ? max : 16 };

	jank_graph_foreach(g, pick_thread, &pk);
	for (size_t i = 0; i < pk.n; i++) {
		const struct jank_thread *w = ws[i], *any = jank_graph_find_any(g, w->tid);

		FUZZ_ASSERT(w->first_seen <= w->last_seen);
		FUZZ_ASSERT(any && any->tid == w->tid);
		/* jankctl critpath's default interval: the thread's life in the trace. */
		query(g, w, w->tid, w->first_seen, w->last_seen);
		if (begin <= end)
			query(g, NULL, w->tid, begin, end);
	}
	/* A thread that never ran: one `unknown` segment. */
	if (begin <= end && !jank_graph_find(g, 999999))
		query(g, NULL, 999999, begin, end);
	return pk.n;
}
