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
 * A flow is followed differently: reaching the vertex at t1 where thread B
 * picked up work that thread A handed over at t0 <= t1, the path stays on B
 * back to t0 (what B did while the work waited, labelled with the flow),
 * then goes on through A from t0. A flow from before the bound changes
 * nothing; one from the bound itself labels B's segments, and so does one
 * that A handed over in the run that ended in the wait that B's frame
 * resolves (A posts a task, then waits for the reply; B wakes it).
 *
 * The walk uses an explicit stack of (thread, lo, hi) frames, so a long
 * chain of wakers cannot overflow the C stack. Every step either emits a
 * segment that ends at the frame's `hi` and lowers `hi`, or replaces the
 * frame by two frames over the same interval split at the flow's source
 * time (each flow vertex once per frame; a flow whose source is at hi hands
 * over a frame that follows no flow at hi), or pushes a frame over a strictly
 * shorter suffix, so the walk terminates and the emitted segments tile
 * [begin, end] exactly. Segments are cut where their thread's innermost span
 * changes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "critpath.h"
#include "hashmap.h"
#include "textsafe.h"

#define MAX_DEPTH   100000
#define LABEL_CACHE 8

struct frame {
	const struct jank_thread *w;
	int64_t lo;
	int64_t hi;
	uint64_t lock;	/* mutex waited for, for frames entered through a lock handoff */
	uint16_t flow;	/* graph flow id labelling this frame's own segments */
	bool flow_done; /* the flow into the vertex at hi was dealt with */
};

/* One walk: the path it fills, its stack, and label ids already made. */
struct walk {
	const struct jank_graph *g;
	const struct jank_stacks *stacks;
	int64_t grain; /* pieces shorter than this in a row make one segment */
	struct jank_path *p;
	struct frame *stack;
	size_t n;
	size_t cap;
	struct {
		const void *what; /* a span, or a flow id + 1 cast to a pointer */
		uint32_t id;
	} cache[LABEL_CACHE];
	unsigned next_slot;
};

void jank_path_init(struct jank_path *p)
{
	memset(p, 0, sizeof(*p));
}

void jank_path_fini(struct jank_path *p)
{
	free(p->segs);
	free(p->labels);
	free(p->frames);
	free(p->frame_index);
	free(p->stack_frames);
	free(p->stacks);
	jank_path_init(p);
}

static uint64_t frame_hash(uint64_t addr, int32_t pid, uint32_t code, bool kernel, const char *name)
{
	uint64_t h = 1469598103934665603ull;

	if (!addr) {
		for (; name && *name; name++)
			h = (h ^ (unsigned char)*name) * 1099511628211ull;
		return jank_hash64(h);
	}
	return jank_hash64(addr ^ jank_hash64(((uint32_t)pid | ((uint64_t)kernel << 32)) ^
					      ((uint64_t)code << 33)));
}

static bool frame_is(const struct jank_frame *f, uint64_t addr, int32_t pid, uint32_t code,
		     bool kernel, const char *name)
{
	if (f->addr != addr)
		return false;
	if (!addr)
		return !strcmp(f->name, name ? name : "");
	return f->pid == pid && f->code == code && f->kernel == kernel;
}

static size_t frame_slot(const struct jank_path *p, uint64_t addr, int32_t pid, uint32_t code,
			 bool kernel, const char *name)
{
	size_t mask = p->frame_index_cap - 1;

	for (size_t h = (size_t)frame_hash(addr, pid, code, kernel, name) & mask;;
	     h = (h + 1) & mask) {
		uint32_t id = p->frame_index[h];

		if (!id || frame_is(&p->frames[id - 1], addr, pid, code, kernel, name))
			return h;
	}
}

uint32_t jank_path_frame(struct jank_path *p, uint64_t addr, int32_t pid, bool kernel,
			 const char *name)
{
	return jank_path_frame_in(p, addr, pid, 0, kernel, name);
}

uint32_t jank_path_frame_in(struct jank_path *p, uint64_t addr, int32_t pid, uint32_t code,
			    bool kernel, const char *name)
{
	struct jank_frame *f;
	size_t h;

	if (p->frame_index_cap) {
		h = frame_slot(p, addr, pid, code, kernel, name);
		if (p->frame_index[h])
			return p->frame_index[h];
	}
	if (p->nframes == p->frames_cap) {
		size_t ncap = jank_array_grow(&p->frames, sizeof(*p->frames), p->frames_cap, 8);

		if (!ncap || ncap > UINT32_MAX)
			return 0;
		p->frames_cap = ncap;
	}
	if ((p->nframes + 1) * 2 > p->frame_index_cap) {
		size_t ncap = jank_array_grow(&p->frame_index, sizeof(*p->frame_index),
					      p->frame_index_cap, 32);

		if (!ncap)
			return 0;
		p->frame_index_cap = ncap;
		memset(p->frame_index, 0, ncap * sizeof(*p->frame_index));
		for (size_t i = 0; i < p->nframes; i++) {
			const struct jank_frame *o = &p->frames[i];

			p->frame_index[frame_slot(p, o->addr, o->pid, o->code, o->kernel,
						  o->name)] = (uint32_t)i + 1;
		}
	}
	f = &p->frames[p->nframes++];
	memset(f, 0, sizeof(*f));
	f->addr = addr;
	f->pid = pid;
	f->code = code;
	f->kernel = kernel;
	if (name)
		jank_utf8_copy(f->name, sizeof(f->name), name);
	p->frame_index[frame_slot(p, addr, pid, code, kernel, name)] = (uint32_t)p->nframes;
	return (uint32_t)p->nframes;
}

const struct jank_frame *jank_path_frame_of(const struct jank_path *p, uint32_t id)
{
	return id && id <= p->nframes ? &p->frames[id - 1] : NULL;
}

uint32_t jank_path_stack(struct jank_path *p, const uint32_t *frames, uint32_t n)
{
	struct jank_path_stack *st;

	if (p->nstacks == p->stacks_cap) {
		size_t ncap = jank_array_grow(&p->stacks, sizeof(*p->stacks), p->stacks_cap, 8);

		if (!ncap || ncap > UINT32_MAX)
			return 0;
		p->stacks_cap = ncap;
	}
	while (p->nstack_frames + n > p->stack_frames_cap) {
		size_t ncap = jank_array_grow(&p->stack_frames, sizeof(*p->stack_frames),
					      p->stack_frames_cap, 32);

		if (!ncap || ncap > UINT32_MAX)
			return 0;
		p->stack_frames_cap = ncap;
	}
	st = &p->stacks[p->nstacks++];
	st->first = (uint32_t)p->nstack_frames;
	st->n = n;
	memcpy(p->stack_frames + p->nstack_frames, frames, n * sizeof(*frames));
	p->nstack_frames += n;
	return (uint32_t)p->nstacks;
}

const uint32_t *jank_path_stack_of(const struct jank_path *p, uint32_t id, uint32_t *n)
{
	*n = 0;
	if (!id || id > p->nstacks)
		return NULL;
	*n = p->stacks[id - 1].n;
	return p->stack_frames + p->stacks[id - 1].first;
}

uint32_t jank_path_innermost(const struct jank_path *p, uint32_t stack)
{
	uint32_t n;
	const uint32_t *f = jank_path_stack_of(p, stack, &n);

	return f && n ? f[n - 1] : 0;
}

void jank_path_name_frames(struct jank_path *p, jank_frame_namer namer, void *data)
{
	for (size_t i = 0; i < p->nframes; i++) {
		struct jank_frame *f = &p->frames[i];

		if (f->name[0])
			continue;
		if (namer)
			namer(f, f->name, sizeof(f->name), data);
		if (!f->name[0])
			snprintf(f->name, sizeof(f->name), "0x%" PRIx64, f->addr);
	}
}

uint32_t jank_path_label(struct jank_path *p, const char *name, const char *key)
{
	struct jank_label *l;

	/* Recent labels first: a path goes back and forth between few. */
	for (size_t i = p->nlabels, k = 0; i-- > 0 && k < 16; k++)
		if (!strcmp(p->labels[i].name, name) && !strcmp(p->labels[i].key, key))
			return (uint32_t)i + 1;
	if (p->nlabels == p->labels_cap) {
		size_t ncap = jank_array_grow(&p->labels, sizeof(*p->labels), p->labels_cap, 4);

		if (!ncap || ncap > UINT32_MAX)
			return 0;
		p->labels_cap = ncap;
	}
	l = &p->labels[p->nlabels++];
	memset(l, 0, sizeof(*l));
	jank_utf8_copy(l->name, sizeof(l->name), name);
	jank_utf8_copy(l->key, sizeof(l->key), key);
	return (uint32_t)p->nlabels;
}

/* A host is a label of its own kind: its key is one no action key looks like. */
uint32_t jank_path_host(struct jank_path *p, const char *host)
{
	return jank_path_label(p, host, "(host)");
}

/* dst's array *dv (capacity *dcap) holds n elements of src's. */
static int copy_array(void *dv, size_t *dcap, const void *sv, size_t n, size_t elem)
{
	void *v;

	memcpy(&v, dv, sizeof(v));
	if (*dcap < n) {
		void *nv = realloc(v, n * elem);

		if (!nv)
			return -ENOMEM;
		v = nv;
		memcpy(dv, &v, sizeof(v));
		*dcap = n;
	}
	if (n)
		memcpy(v, sv, n * elem);
	return 0;
}

int jank_path_copy(struct jank_path *dst, const struct jank_path *src)
{
	if (copy_array(&dst->segs, &dst->cap, src->segs, src->n, sizeof(*src->segs)) < 0 ||
	    copy_array(&dst->labels, &dst->labels_cap, src->labels, src->nlabels,
		       sizeof(*src->labels)) < 0 ||
	    copy_array(&dst->frames, &dst->frames_cap, src->frames, src->nframes,
		       sizeof(*src->frames)) < 0 ||
	    copy_array(&dst->frame_index, &dst->frame_index_cap, src->frame_index,
		       src->frame_index_cap, sizeof(*src->frame_index)) < 0 ||
	    copy_array(&dst->stack_frames, &dst->stack_frames_cap, src->stack_frames,
		       src->nstack_frames, sizeof(*src->stack_frames)) < 0 ||
	    copy_array(&dst->stacks, &dst->stacks_cap, src->stacks, src->nstacks,
		       sizeof(*src->stacks)) < 0)
		return -ENOMEM;
	/* The index is a copy of src's: the same capacity, or rebuilt empty. */
	if (dst->frame_index_cap != src->frame_index_cap) {
		free(dst->frame_index);
		dst->frame_index = NULL;
		dst->frame_index_cap = 0;
		if (src->frame_index_cap &&
		    copy_array(&dst->frame_index, &dst->frame_index_cap, src->frame_index,
			       src->frame_index_cap, sizeof(*src->frame_index)) < 0)
			return -ENOMEM;
	}
	dst->n = src->n;
	dst->nlabels = src->nlabels;
	dst->nframes = src->nframes;
	dst->nstack_frames = src->nstack_frames;
	dst->nstacks = src->nstacks;
	dst->tid = src->tid;
	dst->begin = src->begin;
	dst->end = src->end;
	dst->truncated = src->truncated;
	dst->incomplete = src->incomplete;
	return 0;
}

const struct jank_label *jank_path_label_of(const struct jank_path *p, uint32_t id)
{
	return id && id <= p->nlabels ? &p->labels[id - 1] : NULL;
}

/* The label id of a span or of a flow (flow id + 1 as a key); 0: none. -ENOMEM as UINT32_MAX. */
static uint32_t cached_label(struct walk *wk, const void *what, const char *name, const char *key)
{
	unsigned slot;

	for (unsigned i = 0; i < LABEL_CACHE; i++)
		if (wk->cache[i].what == what)
			return wk->cache[i].id;
	slot = wk->next_slot++ % LABEL_CACHE;
	wk->cache[slot].what = what;
	wk->cache[slot].id = jank_path_label(wk->p, name, key);
	return wk->cache[slot].id ? wk->cache[slot].id : UINT32_MAX;
}

static uint32_t flow_label(struct walk *wk, uint16_t flow)
{
	if (flow == JANK_NO_FLOW)
		return 0;
	return cached_label(wk, (const void *)((uintptr_t)flow + 1),
			    jank_graph_flow_name(wk->g, flow), "");
}

/*
 * Emit [b, e) on w in backward order, merging with the previous emission
 * (stack: the graph's id until localize()). Short pieces in a row merge
 * whatever their stacks: the segment keeps what the stacks share.
 */
static int emit_one(struct walk *wk, const struct jank_thread *w, int32_t tid,
		    enum jank_state state, int64_t b, int64_t e, uint64_t lock, uint32_t flow,
		    uint32_t span, uint32_t stack)
{
	struct jank_path *p = wk->p;
	struct jank_segment *s;

	if (e <= b)
		return 0;
	if (flow == UINT32_MAX || span == UINT32_MAX)
		return -ENOMEM;
	if (p->n > 0) {
		s = &p->segs[p->n - 1];
		if (s->tid == tid && s->state == state && s->begin == e && s->lock == lock &&
		    s->flow == flow && s->span == span) {
			if (s->stack == stack) {
				s->begin = b;
				return 0;
			}
			if (e - b < wk->grain && s->end - s->begin < wk->grain) {
				s->stack = jank_stacks_common(wk->stacks, s->stack, stack);
				s->begin = b;
				return 0;
			}
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
	s->flow = flow;
	s->span = span;
	s->stack = stack;
	if (w)
		memcpy(s->comm, w->comm, JANK_COMM_LEN);
	return 0;
}

/* Emit [b, e) of w's own time, cut where its innermost span or its stack changes. */
static int emit(struct walk *wk, const struct jank_thread *w, int32_t tid, enum jank_state state,
		int64_t b, int64_t e, uint64_t lock, uint16_t flow)
{
	uint32_t fl = flow_label(wk, flow);

	while (e > b) {
		int64_t since = INT64_MIN, stack_since = INT64_MIN;
		const struct jank_span *s = w ? jank_thread_span_before(w, e, &since) : NULL;
		uint32_t stack = w && w->fn ? jank_thread_stack_before(w, e, &stack_since) : 0;
		int64_t sb = since > b ? since : b;
		uint32_t sl = s ? cached_label(wk, s, s->name, jank_span_key(s)) : 0;
		int r;

		if (stack_since > sb)
			sb = stack_since;
		r = emit_one(wk, w, tid, state, sb, e, lock, fl, sl, stack);

		if (r < 0)
			return r;
		e = sb;
	}
	return 0;
}

/* A graph stack as a stack of the path: its frames, outermost first. */
static uint32_t local_stack(const struct jank_stacks *t, struct jank_path *p, uint32_t id)
{
	uint32_t frames[JANK_STACK_DEPTH];
	unsigned n = jank_stacks_depth(t, id);

	if (n > JANK_STACK_DEPTH)
		return 0;
	for (unsigned i = n; i-- > 0; id = jank_stacks_parent(t, id)) {
		const struct jank_stack_node *node = jank_stacks_node(t, id);

		frames[i] = node->kernel ? jank_path_frame(p, node->addr, -1, true, NULL)
					 : jank_path_frame_in(p, node->addr, node->pid, node->code,
							      false, NULL);
		if (!frames[i])
			return 0;
	}
	return jank_path_stack(p, frames, n);
}

/*
 * The segments' stacks, graph ids during the walk, become the path's own
 * (frames it keeps, so that they outlive the graph and can be named).
 */
static int localize(const struct jank_stacks *t, struct jank_path *p)
{
	struct {
		uint32_t graph, local;
	} *map = NULL;
	size_t cap = 16, mask;
	int r = 0;

	for (size_t i = 0; i < p->n; i++)
		if (p->segs[i].stack)
			goto some;
	return 0;
some:
	while (cap < p->n * 2)
		cap *= 2;
	map = calloc(cap, sizeof(*map));
	if (!map)
		return -ENOMEM;
	mask = cap - 1;
	for (size_t i = 0; i < p->n; i++) {
		uint32_t g = p->segs[i].stack;
		size_t h;

		if (!g)
			continue;
		for (h = (size_t)jank_hash64(g) & mask; map[h].graph && map[h].graph != g;
		     h = (h + 1) & mask)
			;
		if (!map[h].graph) {
			map[h].graph = g;
			map[h].local = local_stack(t, p, g);
			if (!map[h].local)
				r = -ENOMEM;
		}
		p->segs[i].stack = map[h].local;
	}
	free(map);
	return r;
}

static void reverse(struct jank_path *p)
{
	for (size_t i = 0, j = p->n ? p->n - 1 : 0; i < j; i++, j--) {
		struct jank_segment t = p->segs[i];

		p->segs[i] = p->segs[j];
		p->segs[j] = t;
	}
}

static int push(struct walk *wk, const struct jank_thread *w, int64_t lo, int64_t hi, uint64_t lock,
		uint16_t flow, bool flow_done)
{
	if (wk->n == wk->cap) {
		size_t ncap = jank_array_grow(&wk->stack, sizeof(*wk->stack), wk->cap, 16);

		if (!ncap)
			return -ENOMEM;
		wk->cap = ncap;
	}
	wk->stack[wk->n++] = (struct frame){
		.w = w, .lo = lo, .hi = hi, .lock = lock, .flow = flow, .flow_done = flow_done
	};
	return 0;
}

/*
 * Among the vertices of w at exactly t from idx on, the first with an
 * incoming flow (flow) or an incoming wakeup (!flow); NULL when none.
 */
static const struct jank_vertex *incoming(const struct jank_thread *w, uint64_t idx, int64_t t,
					  bool flow)
{
	for (const struct jank_vertex *v; (v = jank_thread_vertex(w, idx)) && v->ts == t; idx++)
		if (v->from_serial != JANK_NO_THREAD && (v->flow != JANK_NO_FLOW) == flow)
			return v;
	return NULL;
}

/*
 * Whether the top frame resolves a wait of src that began at lo, and src
 * handed the work over (its vertex idx) in the run that ended in that wait:
 * nothing but running or preempted between the hand-over and lo. Such as a
 * task posted to a pool just before waiting for its reply, when no reply
 * flow comes back: the wakeup leads to the pool, and the post labels it.
 */
static bool handed_over_by_waiter(const struct walk *wk, const struct jank_thread *src,
				  uint64_t idx, int64_t lo)
{
	const struct frame *below = wk->n >= 2 ? &wk->stack[wk->n - 2] : NULL;
	const struct jank_vertex *v;

	if (!below || below->w != src || below->hi != lo)
		return false;
	for (; (v = jank_thread_vertex(src, idx)) && v->ts < lo; idx++)
		if (jank_state_is_wait(v->state))
			return false;
	return true;
}

/*
 * The flow into the vertex at the frame's hi, if any: true when the frame
 * was split at the flow's source time (the caller steps again).
 */
static int follow_flow(struct walk *wk, uint64_t idx, bool *split)
{
	struct frame *f = &wk->stack[wk->n - 1];
	const struct jank_thread *w = f->w, *src;
	const struct jank_vertex *fv = incoming(w, idx, f->hi, true), *sv;
	int64_t t0, hi = f->hi;
	uint16_t flow;

	*split = false;
	f->flow_done = true;
	if (!fv || wk->n >= MAX_DEPTH)
		return 0;
	src = jank_graph_find_serial(wk->g, fv->from_serial);
	sv = src ? jank_thread_vertex(src, fv->from_idx) : NULL;
	/*
	 * Freed by GC: the work was handed over before the horizon, so before the bound.
	 * Handed over at the bound itself (a wait that began at the `from`, such as a
	 * condition wait for the reply), the flow still labels what w did meanwhile.
	 */
	if (!sv)
		return 0;
	if (sv->ts < f->lo) {
		/* The waiter's own hand-over, just before its wait: w's time is the flow's. */
		if (handed_over_by_waiter(wk, src, fv->from_idx, f->lo))
			f->flow = fv->flow;
		return 0;
	}
	t0 = sv->ts < hi ? sv->ts : hi;
	flow = fv->flow;
	if (t0 == hi) {
		/* Handed over and picked up at once: the label goes on what follows on w. */
		struct jank_segment *last = wk->p->n ? &wk->p->segs[wk->p->n - 1] : NULL;

		if (last && last->tid == w->tid && last->begin == hi && !last->flow) {
			last->flow = flow_label(wk, flow);
			if (last->flow == UINT32_MAX)
				return -ENOMEM;
		}
	}
	/* Before t0 the path is the source's; from t0 to hi it stays on w, labelled. */
	*split = true;
	f->w = src;
	f->hi = t0;
	f->flow = JANK_NO_FLOW;
	/* A flow into src at that same instant is not followed: flows could go round. */
	f->flow_done = t0 == hi;
	return push(wk, w, t0, hi, f->lock, flow, true);
}

/*
 * Where the wait whose last edge starts at vertex idx began, from lo on: a
 * vertex that nothing came into (another thread's split, a relabelled
 * interval) between two edges of the same wait state does not end it.
 */
static int64_t wait_start(const struct jank_thread *w, uint64_t idx, int64_t lo)
{
	const struct jank_vertex *v = jank_thread_vertex(w, idx), *prev;

	while (v->ts > lo && v->from_serial == JANK_NO_THREAD &&
	       (prev = jank_thread_vertex(w, idx - 1)) && prev->state == v->state) {
		v = prev;
		idx--;
	}
	return v->ts > lo ? v->ts : lo;
}

/* One backward step on the top frame. */
static int step(struct walk *wk)
{
	struct frame *f = &wk->stack[wk->n - 1];
	const struct jank_thread *w = f->w, *waker;
	const struct jank_vertex *v, *nv;
	uint64_t idx, lock;
	int64_t t1, hi = f->hi;
	bool split;
	int r;

	idx = jank_thread_find_before(w, hi);
	if (idx == UINT64_MAX && w->born && w->base == 0) {
		/*
		 * Before a child's birth, the time was its parent's (forking it).
		 * The parent's serial is older than the child's: this ends.
		 */
		waker = jank_graph_find_serial(wk->g, w->parent_serial);
		if (waker && waker->serial < w->serial) {
			f->w = waker;
			f->flow = JANK_NO_FLOW;
			f->flow_done = false;
			return 0;
		}
	}
	if (idx == UINT64_MAX) {
		/* Nothing known before hi: not seen yet, or freed by GC. */
		if (w->base > 0)
			wk->p->truncated = true;
		r = emit(wk, w, w->tid, JANK_STATE_UNKNOWN, f->lo, hi, f->lock, f->flow);
		wk->n--;
		return r;
	}
	if (!f->flow_done) {
		r = follow_flow(wk, idx + 1, &split);
		if (r < 0 || split)
			return r;
	}
	v = jank_thread_vertex(w, idx);
	t1 = v->ts > f->lo ? v->ts : f->lo;
	nv = incoming(w, idx + 1, hi, false);
	lock = v->state == JANK_STATE_LOCK_WAIT ? jank_thread_lock_of(w, idx) : f->lock;
	if (jank_state_is_wait(v->state) && nv && wk->n < MAX_DEPTH) {
		t1 = wait_start(w, idx, f->lo);
		f->hi = t1;
		f->flow_done = false;
		waker = jank_graph_find_serial(wk->g, nv->from_serial);
		if (!waker || !jank_thread_vertex(waker, nv->from_idx)) {
			wk->p->truncated = true;
			return emit_one(wk, waker, waker ? waker->tid : w->tid, JANK_STATE_UNKNOWN,
					t1, hi, lock, 0, 0, 0);
		}
		return push(wk, waker, t1, hi, lock, JANK_NO_FLOW, false);
	}
	r = emit(wk, w, w->tid, v->state, t1, hi, lock, f->flow);
	f->hi = t1;
	f->flow_done = false;
	return r;
}

/* An empty path of tid over [begin, end]: 0, or -EINVAL when end < begin. */
static int path_reset(struct jank_path *p, int32_t tid, int64_t begin, int64_t end)
{
	p->n = 0;
	p->nlabels = 0;
	p->nframes = 0;
	p->nstack_frames = 0;
	p->nstacks = 0;
	if (p->frame_index)
		memset(p->frame_index, 0, p->frame_index_cap * sizeof(*p->frame_index));
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
	const struct jank_thread *w = jank_graph_find(g, tid);
	int r;

	if (w)
		return jank_critpath_compute_thread(g, w, begin, end, out);
	struct walk wk;

	r = path_reset(out, tid, begin, end);
	if (r < 0)
		return r;
	memset(&wk, 0, sizeof(wk));
	wk.p = out;
	r = emit_one(&wk, NULL, tid, JANK_STATE_UNKNOWN, begin, end, 0, 0, 0, 0);
	out->incomplete = r < 0;
	return r < 0 ? r : -ENOENT;
}

int jank_critpath_compute_thread(const struct jank_graph *g, const struct jank_thread *w,
				 int64_t begin, int64_t end, struct jank_path *out)
{
	struct walk wk;
	int r = 0;

	r = path_reset(out, w->tid, begin, end);
	if (r < 0)
		return r;
	memset(&wk, 0, sizeof(wk));
	wk.g = g;
	wk.stacks = jank_graph_stacks_const(g);
	wk.grain = (end - begin) / JANK_PATH_FN_GRAIN;
	wk.p = out;
	r = push(&wk, w, begin, end, 0, JANK_NO_FLOW, false);
	while (r == 0 && wk.n > 0) {
		struct frame *f = &wk.stack[wk.n - 1];

		if (f->hi <= f->lo) {
			wk.n--;
			continue;
		}
		r = step(&wk);
	}
	free(wk.stack);
	/* The segments were found from the end backwards: put them in time order. */
	reverse(out);
	if (r == 0)
		r = localize(wk.stacks, out);
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
	free(b->functions);
	jank_breakdown_init(b);
}

static int cmp_fn(const void *a, const void *b)
{
	const struct jank_breakdown_fn *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

/* Time in the innermost frame `frame`; *hint: where the last one was. */
static int add_fn(struct jank_breakdown *out, uint32_t frame, int64_t d, size_t *hint)
{
	size_t j = *hint;

	if (j >= out->nfunctions || out->functions[j].frame != frame)
		for (j = 0; j < out->nfunctions; j++)
			if (out->functions[j].frame == frame)
				break;
	if (j == out->nfunctions) {
		if (out->nfunctions == out->functions_cap) {
			size_t ncap = jank_array_grow(&out->functions, sizeof(*out->functions),
						      out->functions_cap, 8);

			if (!ncap)
				return -ENOMEM;
			out->functions_cap = ncap;
		}
		out->functions[j].frame = frame;
		out->functions[j].ns = 0;
		out->nfunctions++;
	}
	out->functions[j].ns += d;
	*hint = j;
	return 0;
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
	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (int)x->state - (int)y->state;
}

static size_t item_slot(const struct jank_breakdown *b, uint32_t host, int32_t tid, uint8_t state)
{
	uint64_t k = (((uint64_t)(uint32_t)tid << 8) | state) * 0x9e3779b97f4a7c15ull;
	size_t mask = b->index_cap - 1;

	k ^= (uint64_t)host << 40;
	for (size_t h = (size_t)(k >> 32) & mask;; h = (h + 1) & mask) {
		uint32_t v = b->index[h];

		if (!v || (b->items[v - 1].tid == tid && b->items[v - 1].state == state &&
			   b->items[v - 1].host == host))
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
			b->index[item_slot(b, b->items[i].host, b->items[i].tid,
					   b->items[i].state)] = (uint32_t)i + 1;
	}
	return 0;
}

int jank_breakdown_compute(const struct jank_path *p, struct jank_breakdown *out)
{
	size_t hint = 0;

	memset(out->per_state, 0, sizeof(out->per_state));
	out->n = 0;
	out->nlocks = 0;
	out->nfunctions = 0;
	out->path = p;
	if (out->index)
		memset(out->index, 0, out->index_cap * sizeof(*out->index));
	for (size_t i = 0; i < p->n; i++) {
		const struct jank_segment *s = &p->segs[i];
		int64_t d = s->end - s->begin;
		size_t h, j;

		out->per_state[s->state] += d;
		if (s->lock && add_lock(out, s->lock, d) < 0)
			return -ENOMEM;
		if (s->stack && add_fn(out, jank_path_innermost(p, s->stack), d, &hint) < 0)
			return -ENOMEM;
		/* A path may cross thousands of threads: (tid, state) is hashed. */
		if (item_reserve(out) < 0)
			return -ENOMEM;
		h = item_slot(out, s->host, s->tid, s->state);
		if (out->index[h]) {
			j = out->index[h] - 1;
		} else {
			j = out->n++;
			memset(&out->items[j], 0, sizeof(out->items[j]));
			out->items[j].tid = s->tid;
			out->items[j].host = s->host;
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
	if (out->nfunctions > 1)
		jank_sort(out->functions, out->nfunctions, sizeof(*out->functions), cmp_fn);
	return 0;
}
