/* SPDX-License-Identifier: MIT */
/*
 * Execution graph storage and garbage collection.
 *
 * Thread records are found by tid (live threads) and by serial (every
 * record, including retired ones, so that vertical edges can name a waker
 * without holding a pointer that GC could free). Each thread's vertices sit in a
 * power-of-two ring addressed by absolute index.
 *
 * Invariants:
 *  - vertex timestamps never decrease along a thread (late timestamps are
 *    clamped to the previous vertex);
 *  - GC never frees the last vertex at or before the horizon, so the edge
 *    that straddles the horizon keeps its state;
 *  - g->h.bytes is the exact sum of the rings, thread records, span lists,
 *    spans, maps and the record itself (its caches aside), kept as they change;
 *  - GC never frees the last span change at or before the horizon either, so
 *    the innermost span of any instant after it is the same as without GC.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "graph.h"
#include "hashmap.h"
#include "textsafe.h"

#define RING_MIN 4u
/*
 * Besides its allocation, an open span holds its place in the open list, two
 * changes, and may be why its thread has a span record at all.
 */
#define OPEN_SPAN_EXTRA                                                                            \
	(sizeof(struct jank_spans) + sizeof(struct jank_span *) +                                  \
	 2 * sizeof(struct jank_span_change))

/*
 * Spans come from slabs, and freed ones are kept for reuse, by size rounded
 * up to SPAN_GRAIN (one action's begin allocates one: glibc's malloc and
 * free were a tenth of the engine on traces of short actions, and freeing
 * each span at the end as much again). What a span counts (its size) is
 * unchanged: the budget sees the same bytes. The slabs go back to the system
 * when no span is left (a GC step), and with the graph.
 */
#define SPAN_GRAIN 32u
#define SPAN_HEAD  offsetof(struct jank_span, name)
#define SPAN_MAX   (SPAN_HEAD + JANK_LABEL_NAME_LEN + JANK_LABEL_KEY_LEN)
#define SPAN_BINS  ((SPAN_MAX + SPAN_GRAIN - 1) / SPAN_GRAIN)
#define SPAN_SLAB  (64u << 10)
_Static_assert(SPAN_MAX <= UINT8_MAX && JANK_LABEL_NAME_LEN <= UINT8_MAX,
	       "a span's sizes are bytes");

struct span_slab {
	struct span_slab *next;
	uint64_t pad; /* the spans after it are 16-byte aligned, as malloc's */
	unsigned char mem[];
};

/*
 * Its head first (graph.h's inline functions read it in place), then the
 * caches: jank_graph_bytes() leaves them out, and the head's cache too.
 */
struct jank_graph {
	struct jank_graph_head h;
	void *span_free[SPAN_BINS]; /* a freed span's first bytes link to the next */
	struct span_slab *slabs;    /* the newest first: spans are carved from its end down */
	size_t slab_left;	    /* bytes not yet carved of the newest */
	uint64_t spans_live;
	bool closing; /* jank_graph_free(): the slabs go whole, no span is put back */
	struct jank_hashmap by_tid;
	struct jank_hashmap by_serial;
	uint32_t next_serial;
	size_t gc_cursor; /* slot of by_serial where the next GC step starts */
	uint64_t freed_vertices;
	uint64_t freed_threads;
	uint64_t gc_steps;
	uint64_t retired;
	uint64_t open_span_bytes; /* what open spans hold (jank_graph_open_span_bytes) */
	struct jank_stacks stacks;
	char (*flow_names)[JANK_LABEL_NAME_LEN]; /* flow id i + 1 */
	uint32_t nflows;
	uint32_t flows_cap;
	jank_graph_free_fn free_hook;
	void *free_data;
};
_Static_assert(offsetof(struct jank_graph, h) == 0, "graph.h reads its head in place");

/* The record as accounted: its caches (and the head's) aside. */
#define GRAPH_SELF_BYTES                                                                           \
	(sizeof(struct jank_graph) - offsetof(struct jank_graph, by_tid) +                         \
	 offsetof(struct jank_graph_head, last))

/* What the maps by tid and by serial hold (they grow, never shrink). */
static uint64_t maps_bytes(const struct jank_graph *g)
{
	return jank_hashmap_bytes(&g->by_tid) + jank_hashmap_bytes(&g->by_serial);
}

struct jank_graph *jank_graph_new(void)
{
	struct jank_graph *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	jank_hashmap_init(&g->by_tid);
	jank_hashmap_init(&g->by_serial);
	jank_stacks_init(&g->stacks, 1u << 20);
	g->next_serial = 1;
	g->h.stacks = &g->stacks;
	g->h.bytes = GRAPH_SELF_BYTES;
	return g;
}

/* The free list of spans of `size` bytes (at most SPAN_MAX). */
static void **span_bin(struct jank_graph *g, size_t size)
{
	return &g->span_free[(size - 1) / SPAN_GRAIN];
}

static struct jank_span *span_alloc(struct jank_graph *g, size_t size)
{
	void **b = span_bin(g, size);
	void *s = *b;
	size_t n = (size + SPAN_GRAIN - 1) / SPAN_GRAIN * SPAN_GRAIN;

	if (s) {
		memcpy(b, s, sizeof(*b));
	} else {
		if (g->slab_left < n) {
			struct span_slab *sl = malloc(sizeof(*sl) + SPAN_SLAB);

			if (!sl)
				return NULL;
			sl->next = g->slabs;
			g->slabs = sl;
			g->slab_left = SPAN_SLAB;
		}
		g->slab_left -= n;
		s = g->slabs->mem + g->slab_left;
	}
	g->spans_live++;
	return s;
}

static void span_put(struct jank_graph *g, struct jank_span *s)
{
	void **b;

	if (!s || --s->refs)
		return;
	g->h.bytes -= s->size;
	b = span_bin(g, s->size);
	memcpy(s, b, sizeof(*b));
	*b = s;
	g->spans_live--;
}

/* All spans are free: the slabs go. */
static void span_slabs_free(struct jank_graph *g)
{
	struct span_slab *sl, *next;

	for (sl = g->slabs; sl; sl = next) {
		next = sl->next;
		free(sl);
	}
	g->slabs = NULL;
	g->slab_left = 0;
	memset(g->span_free, 0, sizeof(g->span_free));
}

static void spans_free(struct jank_graph *g, struct jank_thread *w)
{
	struct jank_spans *sp = w->spans;

	if (!sp)
		return;
	for (uint32_t i = 0; i < sp->n && !g->closing; i++)
		span_put(g, sp->v[i].span);
	for (uint32_t i = 0; i < sp->nopen && !g->closing; i++) {
		g->open_span_bytes -= sp->open[i]->size + OPEN_SPAN_EXTRA;
		span_put(g, sp->open[i]);
	}
	g->h.bytes -= (uint64_t)(sp->cap + sp->off) * sizeof(*sp->v);
	g->h.bytes -= (uint64_t)sp->open_cap * sizeof(*sp->open);
	g->h.bytes -= sizeof(*sp);
	if (sp->v)
		free(sp->v - sp->off);
	free(sp->open);
	free(sp);
	w->spans = NULL;
}

static void thread_free(struct jank_graph *g, struct jank_thread *w)
{
	g->h.bytes -= (uint64_t)w->cap * sizeof(struct jank_vertex);
	g->h.bytes -= (uint64_t)w->notes_cap * sizeof(struct jank_lock_note);
	g->h.bytes -= sizeof(*w);
	spans_free(g, w);
	if (w->fn) {
		g->h.bytes -= (uint64_t)w->fn->cap * sizeof(*w->fn->v) + sizeof(*w->fn);
		free(w->fn->v);
		free(w->fn);
	}
	free(w->notes);
	free(w->ring);
	free(w);
}

void jank_graph_free(struct jank_graph *g)
{
	if (!g)
		return;
	g->closing = true;
	for (size_t i = 0; i < g->by_serial.cap; i++)
		if (g->by_serial.slots[i].value)
			thread_free(g, g->by_serial.slots[i].value);
	jank_hashmap_fini(&g->by_tid);
	jank_hashmap_fini(&g->by_serial);
	jank_stacks_fini(&g->stacks);
	span_slabs_free(g);
	free(g->flow_names);
	free(g);
}

struct jank_thread *jank_graph_find(const struct jank_graph *g, int32_t tid)
{
	return jank_hashmap_get(&g->by_tid, (uint64_t)(uint32_t)tid);
}

struct jank_thread *jank_graph_find_any(const struct jank_graph *g, int32_t tid)
{
	struct jank_thread *best = jank_graph_find(g, tid);

	if (best)
		return best;
	for (size_t i = 0; i < g->by_serial.cap; i++) {
		struct jank_thread *w = g->by_serial.slots[i].value;

		if (w && w->tid == tid && (!best || w->first_seen > best->first_seen))
			best = w;
	}
	return best;
}

struct jank_thread *jank_graph_find_serial(const struct jank_graph *g, uint32_t serial)
{
	if (serial == JANK_NO_THREAD)
		return NULL;
	return jank_hashmap_get(&g->by_serial, serial);
}

struct jank_thread *jank_graph_lookup_slow(struct jank_graph *g, int32_t tid)
{
	struct jank_thread *w = jank_graph_find(g, tid);

	if (w)
		g->h.last = w;
	return w;
}

struct jank_thread *jank_graph_get_slow(struct jank_graph *g, int32_t tid, int64_t ts)
{
	struct jank_thread *w = jank_graph_lookup(g, tid);
	uint64_t maps;

	if (w)
		return w;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->tid = tid;
	w->pid = -1;
	w->cpu = -1;
	w->on_cpu = -1;
	w->serial = g->next_serial++;
	if (g->next_serial == JANK_NO_THREAD)
		g->next_serial = 1;
	w->state = JANK_STATE_UNKNOWN;
	w->since = ts;
	w->first_seen = ts;
	w->last_seen = ts;
	w->ust_last = INT64_MIN;
	maps = maps_bytes(g);
	if (jank_hashmap_put(&g->by_serial, w->serial, w) < 0) {
		free(w);
		return NULL;
	}
	if (jank_hashmap_put(&g->by_tid, (uint64_t)(uint32_t)tid, w) < 0) {
		jank_hashmap_remove(&g->by_serial, w->serial);
		g->h.bytes += maps_bytes(g) - maps;
		free(w);
		return NULL;
	}
	g->h.bytes += maps_bytes(g) - maps + sizeof(*w);
	g->h.last = w;
	return w;
}

void jank_graph_retire(struct jank_graph *g, int32_t tid)
{
	struct jank_thread *w = jank_hashmap_remove(&g->by_tid, (uint64_t)(uint32_t)tid);

	g->h.last = NULL;
	if (w && !w->retired) {
		w->retired = true;
		g->retired++;
	}
}

static struct jank_vertex *slot(const struct jank_thread *w, uint64_t idx)
{
	return &w->ring[idx & (w->cap - 1)];
}

/*
 * A full ring doubles in place: realloc() keeps slot p's vertex at p (a
 * large ring is mapped memory that the kernel moves without a copy, and
 * only the new half is touched), and the vertices whose index has the bit
 * `cap` set move up by cap, one run (of cap consecutive indices, those with
 * that bit set are consecutive, and so are their slots in both rings).
 * A thread with a busy user space grew its ring seventeen times, each a
 * copy of all of it into fresh pages, in the first seconds of a load. Only
 * rings of RING_DOUBLE_MIN vertices and more (192 KiB: glibc maps them
 * apart): smaller ones are copied (realloc() of a small block in the heap
 * cost malloc more than it saved, on kernel traces of many threads).
 */
#define RING_DOUBLE_MIN 8192u
static __attribute__((noinline)) int ring_double(struct jank_graph *g, struct jank_thread *w)
{
	uint32_t cap = w->cap, ncap = cap * 2;
	struct jank_vertex *nring = realloc(w->ring, (size_t)ncap * sizeof(*nring));
	uint64_t first = w->base, last = w->next; /* [first, last): those that move */

	if (!nring)
		return -ENOMEM;
	if (!(first & cap))
		first = (first | (cap - 1)) + 1; /* the next multiple of cap: an odd one */
	if (first < last) {
		if ((first | (cap - 1)) + 1 < last)
			last = (first | (cap - 1)) + 1; /* where the bit clears again */
		memcpy(&nring[first & (ncap - 1)], &nring[first & (cap - 1)],
		       (size_t)(last - first) * sizeof(*nring));
	}
	g->h.bytes += (uint64_t)cap * sizeof(*nring);
	w->ring = nring;
	w->cap = ncap;
	return 0;
}

static int ring_resize(struct jank_graph *g, struct jank_thread *w, uint32_t ncap)
{
	struct jank_vertex *nring = malloc((size_t)ncap * sizeof(*nring));
	uint64_t i = w->base;

	if (!nring)
		return -ENOMEM;
	/* In runs that wrap neither ring: at most three. */
	while (i < w->next) {
		uint64_t from = i & (w->cap - 1), to = i & (ncap - 1), n = w->next - i;

		if (n > w->cap - from)
			n = w->cap - from;
		if (n > ncap - to)
			n = ncap - to;
		memcpy(&nring[to], &w->ring[from], n * sizeof(*nring));
		i += n;
	}
	free(w->ring);
	g->h.bytes += ((uint64_t)ncap - w->cap) * sizeof(*nring);
	w->ring = nring;
	w->cap = ncap;
	return 0;
}

const struct jank_vertex *jank_thread_vertex(const struct jank_thread *w, uint64_t idx)
{
	if (idx < w->base || idx >= w->next)
		return NULL;
	return slot(w, idx);
}

uint64_t jank_thread_find_before(const struct jank_thread *w, int64_t t)
{
	uint64_t lo = w->base, hi = w->next; /* answer in [lo, hi) */

	if (lo == hi || slot(w, lo)->ts >= t)
		return UINT64_MAX;
	/* Invariant: ts(lo) < t; ts(hi) >= t or hi == next. */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (slot(w, mid)->ts < t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Append a vertex. A vertex at the same instant as the last one replaces its
 * state instead, so that no zero-length interval is stored.
 */
static uint64_t append(struct jank_graph *g, struct jank_thread *w, int64_t ts,
		       enum jank_state state, uint32_t from_serial, uint64_t from_idx,
		       uint16_t flow)
{
	struct jank_vertex *v;

	/* w->since is the last vertex's ts: later events need not read the ring. */
	if (w->next > w->base && ts <= w->since) {
		struct jank_vertex *last = slot(w, w->next - 1);

		if (ts < last->ts)
			ts = last->ts;
		if (ts == last->ts && !(from_serial && last->from_serial)) {
			last->state = state;
			if (from_serial) {
				last->from_serial = from_serial;
				last->from_idx = from_idx;
				last->flow = flow;
			}
			goto done;
		}
	}
	if (w->next - w->base == w->cap &&
	    (w->cap >= RING_DOUBLE_MIN ? ring_double(g, w)
				       : ring_resize(g, w, w->cap ? w->cap * 2 : RING_MIN)) < 0)
		return UINT64_MAX;
	v = slot(w, w->next++);
	v->ts = ts;
	v->state = state;
	v->from_serial = from_serial;
	v->from_idx = from_idx;
	v->flow = flow;
done:
	w->state = state;
	w->since = ts;
	jank_thread_seen(w, ts);
	return w->next - 1;
}

uint64_t jank_graph_transition(struct jank_graph *g, struct jank_thread *w, int64_t ts,
			       enum jank_state state)
{
	if (w->next > w->base && w->state == state)
		return UINT64_MAX;
	return append(g, w, ts, state, JANK_NO_THREAD, 0, JANK_NO_FLOW);
}

void jank_graph_relabel_open(struct jank_thread *w, enum jank_state state)
{
	if (w->next > w->base)
		slot(w, w->next - 1)->state = state;
	w->state = state;
}

void jank_graph_link(struct jank_graph *g, struct jank_thread *waker, struct jank_thread *wakee,
		     int64_t ts, enum jank_state wakee_state)
{
	uint64_t from;

	/* A vertex at ts on the waker splits its edge; its state goes on. */
	if (waker->next > waker->base && slot(waker, waker->next - 1)->ts >= ts)
		from = waker->next - 1;
	else
		from = append(g, waker, ts, waker->state, JANK_NO_THREAD, 0, JANK_NO_FLOW);
	if (from == UINT64_MAX) {
		jank_graph_transition(g, wakee, ts, wakee_state);
		return;
	}
	if (append(g, wakee, ts, wakee_state, waker->serial, from, JANK_NO_FLOW) == UINT64_MAX)
		jank_graph_transition(g, wakee, ts, wakee_state);
}

uint64_t jank_graph_split_slow(struct jank_graph *g, struct jank_thread *w, int64_t ts)
{
	if (w->next > w->base && slot(w, w->next - 1)->ts >= ts)
		return w->next - 1;
	return append(g, w, ts, w->state, JANK_NO_THREAD, 0, JANK_NO_FLOW);
}

void jank_graph_link_from(struct jank_graph *g, struct jank_thread *waker, uint64_t waker_idx,
			  struct jank_thread *wakee, int64_t ts, enum jank_state wakee_state)
{
	if (!jank_thread_vertex(waker, waker_idx) ||
	    append(g, wakee, ts, wakee_state, waker->serial, waker_idx, JANK_NO_FLOW) == UINT64_MAX)
		jank_graph_transition(g, wakee, ts, wakee_state);
}

void jank_graph_flow(struct jank_graph *g, struct jank_thread *from, uint64_t from_idx,
		     struct jank_thread *to, int64_t ts, uint16_t flow)
{
	if (flow != JANK_NO_FLOW && from != to && jank_thread_vertex(from, from_idx))
		append(g, to, ts, to->state, from->serial, from_idx, flow);
}

uint16_t jank_graph_flow_id(struct jank_graph *g, const char *name)
{
	size_t n = strnlen(name, JANK_LABEL_NAME_LEN - 1);

	if (name[n])
		n = jank_utf8_cut(name, n);
	for (uint32_t i = 0; i < g->nflows; i++)
		if (strncmp(g->flow_names[i], name, n) == 0 && g->flow_names[i][n] == '\0')
			return (uint16_t)(i + 1);
	if (g->nflows == UINT16_MAX - 1)
		return JANK_NO_FLOW;
	if (g->nflows == g->flows_cap) {
		size_t ncap =
			jank_array_grow(&g->flow_names, sizeof(*g->flow_names), g->flows_cap, 4);

		if (!ncap)
			return JANK_NO_FLOW;
		g->h.bytes += (uint64_t)(ncap - g->flows_cap) * sizeof(*g->flow_names);
		g->flows_cap = (uint32_t)ncap;
	}
	memcpy(g->flow_names[g->nflows], name, n);
	g->flow_names[g->nflows][n] = '\0';
	return (uint16_t)++g->nflows;
}

const char *jank_graph_flow_name(const struct jank_graph *g, uint16_t flow)
{
	return flow && flow <= g->nflows ? g->flow_names[flow - 1] : "";
}

/* From ts on, the innermost span of w is s (a reference is taken). */
static void span_change_slow(struct jank_graph *g, struct jank_thread *w, int64_t ts,
			     struct jank_span *s)
{
	struct jank_spans *sp = w->spans;
	struct jank_span_change *last = sp->n ? &sp->v[sp->n - 1] : NULL;

	if (last && last->span == s)
		return;
	if (last && ts <= last->ts) {
		/* The same instant: no zero-length span is kept. */
		span_put(g, last->span);
		last->span = s;
		if (s)
			s->refs++;
		if (sp->n >= 2 && sp->v[sp->n - 2].span == s) {
			span_put(g, s);
			sp->n--;
		}
		return;
	}
	if (!last && !s)
		return; /* none before, none now */
	if (sp->n == sp->cap && sp->off && sp->off >= sp->n) {
		/* At least half of the allocation dropped: move the changes back to its start. */
		memmove(sp->v - sp->off, sp->v, sp->n * sizeof(*sp->v));
		sp->v -= sp->off;
		sp->cap += sp->off;
		sp->off = 0;
	}
	if (sp->n == sp->cap) {
		struct jank_span_change *base = sp->v ? sp->v - sp->off : NULL;
		size_t total = (size_t)sp->cap + sp->off;
		size_t ncap = jank_array_grow(&base, sizeof(*base), total, 2);

		if (!ncap || ncap > UINT32_MAX)
			return;
		g->h.bytes += (uint64_t)(ncap - total) * sizeof(*sp->v);
		sp->v = base + sp->off;
		sp->cap = (uint32_t)(ncap - sp->off);
	}
	sp->v[sp->n].ts = ts;
	sp->v[sp->n].span = s;
	sp->n++;
	if (s)
		s->refs++;
}

/* span_change_slow()'s common case inline: a later change with room for it. */
static inline void span_change(struct jank_graph *g, struct jank_thread *w, int64_t ts,
			       struct jank_span *s)
{
	struct jank_spans *sp = w->spans;

	if (!sp->n || sp->n == sp->cap || ts <= sp->v[sp->n - 1].ts || sp->v[sp->n - 1].span == s) {
		span_change_slow(g, w, ts, s);
		return;
	}
	sp->v[sp->n].ts = ts;
	sp->v[sp->n].span = s;
	sp->n++;
	if (s)
		s->refs++;
}

struct jank_span *jank_graph_span_open(struct jank_graph *g, struct jank_thread *w, int64_t ts,
				       const char *name, const char *key)
{
	return jank_graph_span_open_n(g, w, ts, name, strnlen(name, JANK_LABEL_NAME_LEN), key,
				      strnlen(key, JANK_LABEL_KEY_LEN));
}

struct jank_span *jank_graph_span_open_n(struct jank_graph *g, struct jank_thread *w, int64_t ts,
					 const char *name, size_t nlen, const char *key,
					 size_t klen)
{
	struct jank_span *s;
	struct jank_spans *sp = w->spans;
	char *k;

	if (nlen > JANK_LABEL_NAME_LEN - 1)
		nlen = jank_utf8_cut(name, JANK_LABEL_NAME_LEN - 1); /* on a character boundary */
	if (klen > JANK_LABEL_KEY_LEN - 1)
		klen = jank_utf8_cut(key, JANK_LABEL_KEY_LEN - 1);
	if (!sp) {
		sp = w->spans = calloc(1, sizeof(*sp));
		if (!sp)
			return NULL;
		g->h.bytes += sizeof(*sp);
	}
	if (sp->nopen >= JANK_SPAN_DEPTH)
		return NULL;
	if (sp->nopen == sp->open_cap) {
		size_t ncap = jank_array_grow(&sp->open, sizeof(*sp->open), sp->open_cap, 1);

		if (!ncap || ncap > UINT32_MAX)
			return NULL;
		g->h.bytes += (uint64_t)(ncap - sp->open_cap) * sizeof(*sp->open);
		sp->open_cap = (uint32_t)ncap;
	}
	s = span_alloc(g, SPAN_HEAD + nlen + klen + 2);
	if (!s)
		return NULL;
	s->size = (uint8_t)(SPAN_HEAD + nlen + klen + 2);
	g->h.bytes += s->size;
	jank_copy_short(s->name, name, nlen);
	s->name[nlen] = '\0';
	k = s->name + nlen + 1;
	jank_copy_short(k, key, klen);
	k[klen] = '\0';
	s->key_at = (uint8_t)(nlen + 1);
	s->refs = 2; /* the thread's open list, and the caller */
	sp->open[sp->nopen++] = s;
	g->open_span_bytes += s->size + OPEN_SPAN_EXTRA;
	span_change(g, w, ts, s);
	return s;
}

void jank_graph_span_close(struct jank_graph *g, uint32_t serial, struct jank_span *s, int64_t ts)
{
	/* Mostly the thread that ends the action, just found by tid. */
	struct jank_thread *w = g->h.last && g->h.last->serial == serial
					? g->h.last
					: jank_graph_find_serial(g, serial);
	struct jank_spans *sp = w ? w->spans : NULL;

	/* Normally the innermost: look from the top. */
	for (uint32_t i = sp ? sp->nopen : 0; i-- > 0;) {
		if (sp->open[i] != s)
			continue;
		if (i + 1 < sp->nopen)
			memmove(&sp->open[i], &sp->open[i + 1],
				(sp->nopen - i - 1) * sizeof(*sp->open));
		sp->nopen--;
		g->open_span_bytes -= s->size + OPEN_SPAN_EXTRA;
		if (i == sp->nopen) /* it was the innermost */
			span_change(g, w, ts, sp->nopen ? sp->open[sp->nopen - 1] : NULL);
		s->refs--; /* the open list's: the caller's is still held */
		break;
	}
	span_put(g, s);
}

const struct jank_span *jank_thread_span_before(const struct jank_thread *w, int64_t t,
						int64_t *since)
{
	const struct jank_spans *sp = w->spans;
	uint32_t lo = 0, hi = sp ? sp->n : 0;

	*since = INT64_MIN;
	if (!hi || sp->v[0].ts >= t)
		return NULL;
	/* The last change with ts < t: ts(lo) < t; ts(hi) >= t or hi == nspans. */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sp->v[mid].ts < t)
			lo = mid;
		else
			hi = mid;
	}
	*since = sp->v[lo].ts;
	return sp->v[lo].span;
}

struct jank_stacks *jank_graph_stacks(struct jank_graph *g)
{
	return &g->stacks;
}

const struct jank_stacks *jank_graph_stacks_const(const struct jank_graph *g)
{
	return &g->stacks;
}

struct jank_thread_stacks *jank_thread_stacks_of(struct jank_graph *g, struct jank_thread *w)
{
	if (!w->fn) {
		w->fn = calloc(1, sizeof(*w->fn));
		if (w->fn)
			g->h.bytes += sizeof(*w->fn);
	}
	return w->fn;
}

/* Called for every function entry and exit: no allocation but the list's doubling. */
void jank_graph_stack_set(struct jank_graph *g, struct jank_thread *w, int64_t ts, uint32_t stack)
{
	struct jank_thread_stacks *f = w->fn;
	struct jank_stack_change *last = f && f->n ? &f->v[f->n - 1] : NULL;

	if (last ? last->stack == stack : stack == JANK_NO_STACK)
		return;
	if (!f && !(f = jank_thread_stacks_of(g, w)))
		return;
	if (last && ts <= last->ts) {
		/* The same instant (or a late one): no zero-length stack is kept. */
		last->stack = stack;
		if (f->n >= 2 && f->v[f->n - 2].stack == stack)
			f->n--;
		else if (f->n == 1 && stack == JANK_NO_STACK)
			f->n = 0;
		return;
	}
	if (f->n == f->cap) {
		size_t ncap = jank_array_grow(&f->v, sizeof(*f->v), f->cap, 4);

		if (!ncap || ncap > UINT32_MAX)
			return;
		g->h.bytes += (uint64_t)(ncap - f->cap) * sizeof(*f->v);
		f->cap = (uint32_t)ncap;
	}
	f->v[f->n].ts = ts;
	f->v[f->n].stack = stack;
	f->n++;
}

uint32_t jank_thread_stack_before(const struct jank_thread *w, int64_t t, int64_t *since)
{
	const struct jank_thread_stacks *f = w->fn;
	uint32_t lo = 0, hi = f ? f->n : 0;

	*since = INT64_MIN;
	if (!hi || f->v[0].ts >= t)
		return JANK_NO_STACK;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (f->v[mid].ts < t)
			lo = mid;
		else
			hi = mid;
	}
	*since = f->v[lo].ts;
	return f->v[lo].stack;
}

uint32_t jank_graph_collect_stacks(struct jank_graph *g, bool force)
{
	struct jank_stacks *t = &g->stacks;

	if (!t->live || (!force && !jank_stacks_want_collect(t)))
		return 0;
	for (size_t i = 0; i < g->by_serial.cap; i++) {
		const struct jank_thread *w = g->by_serial.slots[i].value;
		const struct jank_thread_stacks *f = w ? w->fn : NULL;

		if (!f)
			continue;
		jank_stacks_mark(t, f->shadow);
		jank_stacks_mark(t, f->ctx);
		for (uint32_t k = 0; k < f->n; k++)
			jank_stacks_mark(t, f->v[k].stack);
	}
	return jank_stacks_sweep(t);
}

/*
 * As spans: keep the last change at or before the horizon; a quarter-full
 * list shrinks; a thread with no stack now and none to remember frees its
 * record.
 */
static void gc_stacks(struct jank_graph *g, struct jank_thread *w, int64_t horizon)
{
	struct jank_thread_stacks *f = w->fn;
	uint32_t drop = 0, ncap = f->cap;

	while (drop + 1 < f->n && f->v[drop + 1].ts <= horizon)
		drop++;
	if (drop) {
		memmove(f->v, f->v + drop, (f->n - drop) * sizeof(*f->v));
		f->n -= drop;
	}
	if (f->n == 1 && f->v[0].stack == JANK_NO_STACK && f->v[0].ts <= horizon)
		f->n = 0;
	while (ncap > 4 && f->n * 4 <= ncap)
		ncap /= 2;
	if (f->n == 0)
		ncap = 0;
	if (ncap != f->cap) {
		if (ncap == 0) {
			free(f->v);
			f->v = NULL;
		} else {
			struct jank_stack_change *v = realloc(f->v, ncap * sizeof(*v));

			if (!v)
				return;
			f->v = v;
		}
		g->h.bytes -= (uint64_t)(f->cap - ncap) * sizeof(*f->v);
		f->cap = ncap;
	}
	if (!f->n && !f->shadow && !f->ctx && !f->over) {
		g->h.bytes -= sizeof(*f);
		free(f);
		w->fn = NULL;
	}
}

void jank_graph_note_lock(struct jank_graph *g, struct jank_thread *w, uint64_t idx, uint64_t mutex)
{
	if (w->nnotes == w->notes_cap) {
		size_t ncap = jank_array_grow(&w->notes, sizeof(*w->notes), w->notes_cap, 4);

		if (!ncap || ncap > UINT32_MAX)
			return;
		g->h.bytes += (uint64_t)(ncap - w->notes_cap) * sizeof(*w->notes);
		w->notes_cap = (uint32_t)ncap;
	}
	w->notes[w->nnotes].idx = idx;
	w->notes[w->nnotes].mutex = mutex;
	w->nnotes++;
}

uint64_t jank_thread_lock_of(const struct jank_thread *w, uint64_t idx)
{
	/* Notes are appended in vertex order: search from the newest. */
	for (uint32_t i = w->nnotes; i-- > 0;) {
		if (w->notes[i].idx == idx)
			return w->notes[i].mutex;
		if (w->notes[i].idx < idx)
			break;
	}
	return 0;
}

unsigned jank_graph_relabel_waits(struct jank_graph *g, struct jank_thread *w, int64_t since,
				  uint64_t mutex)
{
	unsigned n = 0;
	uint64_t first = w->next;

	/* Walk back to the first vertex at or after `since`, then relabel forwards. */
	while (first > w->base && slot(w, first - 1)->ts >= since)
		first--;
	for (uint64_t i = first; i < w->next; i++) {
		struct jank_vertex *v = slot(w, i);

		if (v->state != JANK_STATE_BLOCKED || i + 1 == w->next)
			continue;
		v->state = JANK_STATE_LOCK_WAIT;
		jank_graph_note_lock(g, w, i, mutex);
		n++;
	}
	return n;
}

unsigned jank_graph_relabel_since(struct jank_thread *w, int64_t since, enum jank_state from,
				  enum jank_state to)
{
	uint64_t first = w->next;
	unsigned n = 0;

	while (first > w->base && slot(w, first - 1)->ts >= since)
		first--;
	for (uint64_t i = first; i < w->next; i++) {
		struct jank_vertex *v = slot(w, i);

		if (v->state != from)
			continue;
		v->state = (uint8_t)to;
		n++;
		if (i + 1 == w->next)
			w->state = to;
	}
	return n;
}

void jank_graph_foreach(const struct jank_graph *g, jank_graph_thread_fn fn, void *data)
{
	for (size_t i = 0; i < g->by_serial.cap; i++)
		if (g->by_serial.slots[i].value)
			fn(g->by_serial.slots[i].value, data);
}

void jank_graph_foreach_mut(struct jank_graph *g, jank_graph_thread_mut_fn fn, void *data)
{
	for (size_t i = 0; i < g->by_serial.cap; i++)
		if (g->by_serial.slots[i].value)
			fn(g->by_serial.slots[i].value, data);
}

/*
 * After the changes before the horizon went: a last "none" says no more than
 * no change at all, and a list a quarter full shrinks, as rings do.
 */
static void gc_spans(struct jank_graph *g, struct jank_thread *w, int64_t horizon)
{
	struct jank_spans *sp = w->spans;
	uint32_t total = sp->cap + sp->off, ncap = total;

	if (sp->n == 1 && !sp->v[0].span && sp->v[0].ts <= horizon)
		sp->n = 0;
	while (ncap > 2 && sp->n * 4 <= ncap)
		ncap /= 2;
	if (sp->n == 0 && sp->nopen == 0) {
		spans_free(g, w); /* nothing to say any more */
		return;
	}
	if (sp->n == 0)
		ncap = 0;
	if (ncap == total)
		return;
	if (ncap == 0) {
		free(sp->v - sp->off);
		sp->v = NULL;
	} else {
		struct jank_span_change *v;

		memmove(sp->v - sp->off, sp->v, sp->n * sizeof(*sp->v));
		sp->v -= sp->off;
		sp->cap = total;
		sp->off = 0;
		v = realloc(sp->v, ncap * sizeof(*v));
		if (!v)
			return;
		sp->v = v;
	}
	g->h.bytes -= (uint64_t)(total - ncap) * sizeof(*sp->v);
	sp->cap = ncap;
	sp->off = 0;
}

/* Free a thread's vertices before the horizon; true when the whole record may go. */
static bool gc_thread(struct jank_graph *g, struct jank_thread *w, int64_t horizon)
{
	struct jank_spans *sp = w->spans;
	uint64_t old_base = w->base;

	/*
	 * Gone for good: retired (past its final switch, freed by the kernel,
	 * or its tid reused). A thread that exited without a final switch seen
	 * keeps its last state like a live one, whatever that state is: an
	 * action that ends on its tid reads it, or its pid, with GC as without.
	 */
	if (w->retired && w->last_seen < horizon)
		return true;
	while (w->next - w->base >= 2 && slot(w, w->base + 1)->ts <= horizon)
		w->base++;
	g->freed_vertices += w->base - old_base;
	if (sp && sp->n >= 2 && sp->v[1].ts <= horizon) {
		uint32_t drop = 1;

		while (drop + 1 < sp->n && sp->v[drop + 1].ts <= horizon)
			drop++;
		for (uint32_t i = 0; i < drop; i++)
			span_put(g, sp->v[i].span);
		sp->v += drop;
		sp->off += drop;
		sp->cap -= drop;
		sp->n -= drop;
	}
	if (sp)
		gc_spans(g, w, horizon);
	if (w->fn)
		gc_stacks(g, w, horizon);
	if (w->nnotes && w->notes[0].idx < w->base) {
		uint32_t keep = 0;

		for (uint32_t i = 0; i < w->nnotes; i++)
			if (w->notes[i].idx >= w->base)
				w->notes[keep++] = w->notes[i];
		w->nnotes = keep;
	}
	if (w->cap > RING_MIN && (w->next - w->base) * 4 <= w->cap) {
		uint32_t ncap = w->cap;

		while (ncap > RING_MIN && (w->next - w->base) * 4 <= ncap)
			ncap /= 2;
		ring_resize(g, w, ncap);
	}
	return false;
}

size_t jank_graph_gc_step(struct jank_graph *g, int64_t horizon, size_t budget)
{
	size_t visited = 0, scanned = 0;

	if (g->by_serial.cap == 0)
		return 0;
	g->gc_steps++;
	while (visited < budget && scanned < g->by_serial.cap) {
		size_t i = g->gc_cursor;
		struct jank_thread *w = g->by_serial.slots[i].value;

		scanned++;
		g->gc_cursor = (i + 1) & (g->by_serial.cap - 1);
		if (!w)
			continue;
		visited++;
		if (!gc_thread(g, w, horizon))
			continue;
		/* Free the record: the backward shift may move a later one into slot i. */
		g->freed_vertices += w->next - w->base;
		if (jank_hashmap_get(&g->by_tid, (uint64_t)(uint32_t)w->tid) == w)
			jank_hashmap_remove(&g->by_tid, (uint64_t)(uint32_t)w->tid);
		if (g->h.last == w)
			g->h.last = NULL;
		jank_hashmap_remove(&g->by_serial, w->serial);
		if (w->retired)
			g->retired--;
		if (g->free_hook)
			g->free_hook(w, g->free_data);
		thread_free(g, w);
		g->freed_threads++;
		g->gc_cursor = i;
	}
	if (!g->spans_live && g->slabs)
		span_slabs_free(g);
	return visited;
}

void jank_graph_set_free_hook(struct jank_graph *g, jank_graph_free_fn fn, void *data)
{
	g->free_hook = fn;
	g->free_data = data;
}

size_t jank_graph_thread_count(const struct jank_graph *g)
{
	return g->by_serial.count;
}

void jank_graph_get_stats(const struct jank_graph *g, struct jank_graph_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->threads = g->by_serial.count;
	out->retired_threads = g->retired;
	for (size_t i = 0; i < g->by_serial.cap; i++) {
		const struct jank_thread *w = g->by_serial.slots[i].value;

		if (w)
			out->vertices += w->next - w->base;
	}
	out->bytes = jank_graph_bytes(g);
	out->freed_vertices = g->freed_vertices;
	out->freed_threads = g->freed_threads;
	out->gc_steps = g->gc_steps;
}

uint64_t jank_graph_open_span_bytes(const struct jank_graph *g)
{
	return g->open_span_bytes;
}
