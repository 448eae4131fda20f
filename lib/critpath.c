/* SPDX-License-Identifier: MIT */
/*
 * Critical path: the bounded backward algorithm (Giraldeau & Dagenais).
 *
 * Walk the thread's edges backwards from `end` to `begin`. A non-wait edge
 * goes on the path as it is. A wait edge that ends at a vertex with an
 * incoming vertical edge is replaced by the waker's own path over the same
 * interval, resolved the same way, bounded below by the wait's start. A wait
 * with no waker stays on the thread. Where the graph has no vertex (before a
 * thread was first seen, or freed by GC) the path says `unknown`.
 *
 * The walk uses an explicit stack of (worker, lo, hi) frames, so a long
 * chain of wakers cannot overflow the C stack. Every step either emits a
 * segment that ends at the frame's `hi` and lowers `hi`, or pushes a frame
 * over a strictly shorter suffix, so the walk terminates and the emitted
 * segments tile [begin, end] exactly.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "critpath.h"

#define MAX_DEPTH 100000

struct frame {
	const struct jank_worker *w;
	int64_t lo;
	int64_t hi;
	uint64_t lock; /* mutex waited for, for frames entered through a lock handoff */
};

void jank_path_init(struct jank_path *p)
{
	memset(p, 0, sizeof(*p));
}

void jank_path_fini(struct jank_path *p)
{
	free(p->segs);
	jank_path_init(p);
}

/* Emit [b, e) on w in backward order, merging with the previous emission. */
static int emit(struct jank_path *p, const struct jank_worker *w, int32_t tid,
		enum jank_state state, int64_t b, int64_t e, uint64_t lock)
{
	struct jank_segment *s;

	if (e <= b)
		return 0;
	if (p->n > 0) {
		s = &p->segs[p->n - 1];
		if (s->tid == tid && s->state == state && s->begin == e && s->lock == lock) {
			s->begin = b;
			return 0;
		}
	}
	if (p->n == p->cap) {
		size_t ncap = jank_array_grow(&p->segs, sizeof(*p->segs), p->cap, 16);

		if (!ncap)
			return -ENOMEM;
		p->cap = ncap;
	}
	s = &p->segs[p->n++];
	memset(s, 0, sizeof(*s));
	s->tid = tid;
	s->state = (uint8_t)state;
	s->begin = b;
	s->end = e;
	s->lock = lock;
	if (w)
		memcpy(s->comm, w->comm, JANK_COMM_LEN);
	return 0;
}

static void reverse(struct jank_path *p)
{
	for (size_t i = 0, j = p->n ? p->n - 1 : 0; i < j; i++, j--) {
		struct jank_segment t = p->segs[i];

		p->segs[i] = p->segs[j];
		p->segs[j] = t;
	}
}

static int push(struct frame **stack, size_t *n, size_t *cap, const struct jank_worker *w,
		int64_t lo, int64_t hi, uint64_t lock)
{
	if (*n == *cap) {
		size_t ncap = jank_array_grow(stack, sizeof(**stack), *cap, 16);

		if (!ncap)
			return -ENOMEM;
		*cap = ncap;
	}
	(*stack)[(*n)++] = (struct frame){ .w = w, .lo = lo, .hi = hi, .lock = lock };
	return 0;
}

/* One backward step on the top frame. */
static int step(const struct jank_graph *g, struct jank_path *p, struct frame **stack, size_t *n,
		size_t *cap)
{
	struct frame *f = &(*stack)[*n - 1];
	const struct jank_worker *w = f->w, *waker;
	const struct jank_vertex *v, *nv;
	uint64_t idx, lock;
	int64_t t1, hi = f->hi;
	int r;

	idx = jank_worker_find_before(w, hi);
	if (idx == UINT64_MAX && w->born && w->base == 0) {
		/*
		 * Before a child's birth, the time was its parent's (forking it).
		 * The parent's serial is older than the child's: this ends.
		 */
		waker = jank_graph_find_serial(g, w->parent_serial);
		if (waker && waker->serial < w->serial) {
			f->w = waker;
			return 0;
		}
	}
	if (idx == UINT64_MAX) {
		/* Nothing known before hi: not seen yet, or freed by GC. */
		if (w->base > 0)
			p->truncated = true;
		r = emit(p, w, w->tid, JANK_STATE_UNKNOWN, f->lo, hi, f->lock);
		(*n)--;
		return r;
	}
	v = jank_worker_vertex(w, idx);
	t1 = v->ts > f->lo ? v->ts : f->lo;
	nv = jank_worker_vertex(w, idx + 1);
	lock = v->state == JANK_STATE_LOCK_WAIT ? jank_worker_lock_of(w, idx) : f->lock;
	if (jank_state_is_wait(v->state) && nv && nv->ts == hi && nv->from_serial &&
	    *n < MAX_DEPTH) {
		f->hi = t1;
		waker = jank_graph_find_serial(g, nv->from_serial);
		if (!waker || !jank_worker_vertex(waker, nv->from_idx)) {
			p->truncated = true;
			return emit(p, waker, waker ? waker->tid : w->tid, JANK_STATE_UNKNOWN, t1,
				    hi, lock);
		}
		return push(stack, n, cap, waker, t1, hi, lock);
	}
	r = emit(p, w, w->tid, v->state, t1, hi, lock);
	f->hi = t1;
	return r;
}

/* An empty path of tid over [begin, end]: 0, or -EINVAL when end < begin. */
static int path_reset(struct jank_path *p, int32_t tid, int64_t begin, int64_t end)
{
	p->n = 0;
	p->tid = tid;
	p->begin = begin;
	p->end = end;
	p->truncated = false;
	p->incomplete = false;
	return end < begin ? -EINVAL : 0;
}

int jank_critpath_compute(const struct jank_graph *g, int32_t tid, int64_t begin, int64_t end,
			  struct jank_path *out)
{
	const struct jank_worker *w = jank_graph_find(g, tid);
	int r;

	if (w)
		return jank_critpath_compute_worker(g, w, begin, end, out);
	r = path_reset(out, tid, begin, end);
	if (r < 0)
		return r;
	r = emit(out, NULL, tid, JANK_STATE_UNKNOWN, begin, end, 0);
	out->incomplete = r < 0;
	return r < 0 ? r : -ENOENT;
}

int jank_critpath_compute_worker(const struct jank_graph *g, const struct jank_worker *w,
				 int64_t begin, int64_t end, struct jank_path *out)
{
	struct frame *stack = NULL;
	size_t n = 0, cap = 0;
	int r = 0;

	r = path_reset(out, w->tid, begin, end);
	if (r < 0)
		return r;
	r = push(&stack, &n, &cap, w, begin, end, 0);
	while (r == 0 && n > 0) {
		struct frame *f = &stack[n - 1];

		if (f->hi <= f->lo) {
			n--;
			continue;
		}
		r = step(g, out, &stack, &n, &cap);
	}
	free(stack);
	/* The segments were found from the end backwards: put them in time order. */
	reverse(out);
	out->incomplete = r < 0;
	return r;
}

void jank_breakdown_init(struct jank_breakdown *b)
{
	memset(b, 0, sizeof(*b));
}

void jank_breakdown_fini(struct jank_breakdown *b)
{
	free(b->items);
	free(b->index);
	free(b->locks);
	jank_breakdown_init(b);
}

static int cmp_lock(const void *a, const void *b)
{
	const struct jank_breakdown_lock *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->lock < y->lock ? -1 : x->lock > y->lock;
}

static int add_lock(struct jank_breakdown *out, uint64_t lock, int64_t d)
{
	size_t j;

	for (j = 0; j < out->nlocks; j++)
		if (out->locks[j].lock == lock)
			break;
	if (j == out->nlocks) {
		if (out->nlocks == out->locks_cap) {
			size_t ncap = jank_array_grow(&out->locks, sizeof(*out->locks),
						      out->locks_cap, 4);

			if (!ncap)
				return -ENOMEM;
			out->locks_cap = ncap;
		}
		out->locks[j].lock = lock;
		out->locks[j].ns = 0;
		out->nlocks++;
	}
	out->locks[j].ns += d;
	return 0;
}

static int cmp_item(const void *a, const void *b)
{
	const struct jank_breakdown_item *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (int)x->state - (int)y->state;
}

static size_t item_slot(const struct jank_breakdown *b, int32_t tid, uint8_t state)
{
	uint64_t k = (((uint64_t)(uint32_t)tid << 8) | state) * 0x9e3779b97f4a7c15ull;
	size_t mask = b->index_cap - 1;

	for (size_t h = (size_t)(k >> 32) & mask;; h = (h + 1) & mask) {
		uint32_t v = b->index[h];

		if (!v || (b->items[v - 1].tid == tid && b->items[v - 1].state == state))
			return h;
	}
}

/* Room for one more item, in the items and in the index (rebuilt when it grows). */
static int item_reserve(struct jank_breakdown *b)
{
	if (b->n == b->cap) {
		size_t ncap = jank_array_grow(&b->items, sizeof(*b->items), b->cap, 8);

		if (!ncap)
			return -ENOMEM;
		b->cap = ncap;
	}
	if ((b->n + 1) * 2 > b->index_cap) {
		size_t ncap = jank_array_grow(&b->index, sizeof(*b->index), b->index_cap, 16);

		if (!ncap)
			return -ENOMEM;
		memset(b->index, 0, ncap * sizeof(*b->index));
		b->index_cap = ncap;
		for (size_t i = 0; i < b->n; i++)
			b->index[item_slot(b, b->items[i].tid, b->items[i].state)] =
				(uint32_t)i + 1;
	}
	return 0;
}

int jank_breakdown_compute(const struct jank_path *p, struct jank_breakdown *out)
{
	memset(out->per_state, 0, sizeof(out->per_state));
	out->n = 0;
	out->nlocks = 0;
	if (out->index)
		memset(out->index, 0, out->index_cap * sizeof(*out->index));
	for (size_t i = 0; i < p->n; i++) {
		const struct jank_segment *s = &p->segs[i];
		int64_t d = s->end - s->begin;
		size_t h, j;

		out->per_state[s->state] += d;
		if (s->lock && add_lock(out, s->lock, d) < 0)
			return -ENOMEM;
		/* A path may cross thousands of threads: (tid, state) is hashed. */
		if (item_reserve(out) < 0)
			return -ENOMEM;
		h = item_slot(out, s->tid, s->state);
		if (out->index[h]) {
			j = out->index[h] - 1;
		} else {
			j = out->n++;
			memset(&out->items[j], 0, sizeof(out->items[j]));
			out->items[j].tid = s->tid;
			out->items[j].state = s->state;
			memcpy(out->items[j].comm, s->comm, JANK_COMM_LEN);
			out->index[h] = (uint32_t)j + 1;
		}
		out->items[j].ns += d;
	}
	if (out->n > 1)
		jank_sort(out->items, out->n, sizeof(*out->items), cmp_item);
	if (out->nlocks > 1)
		jank_sort(out->locks, out->nlocks, sizeof(*out->locks), cmp_lock);
	return 0;
}
