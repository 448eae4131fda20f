/* SPDX-License-Identifier: MIT */
/*
 * The execution graph, as JSON and as a table: each thread's state
 * intervals and the wakeup links between threads, written one thread at a
 * time, so that a big graph never sits whole in memory as JSON. Both
 * formats are writers behind one walk (struct graph_writer).
 *
 * A thread's intervals come from its vertices: vertex i starts an interval of
 * its state that runs to vertex i+1, the last one to the thread's last_seen.
 * Adjacent intervals of the same state are merged; empty ones are dropped.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include "array.h"
#include "format-int.h"
#include "format.h"
#include "textsafe.h"
#include "json-util.h"
#include "units.h"

struct interval {
	int64_t begin;
	int64_t end;
	uint8_t state;
};

struct interval_buf {
	struct interval *v;
	size_t n;
	size_t cap;
};

static int interval_push(struct interval_buf *b, int64_t begin, int64_t end, uint8_t state)
{
	struct interval *last = b->n ? &b->v[b->n - 1] : NULL;

	if (end <= begin)
		return 0;
	if (last && last->state == state && last->end == begin) {
		last->end = end;
		return 0;
	}
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		struct interval *v = realloc(b->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n++] = (struct interval){ begin, end, state };
	return 0;
}

/* The thread's state intervals, contiguous from first_seen to last_seen. */
static int thread_intervals(const struct jank_thread *w, struct interval_buf *b)
{
	const struct jank_vertex *v = NULL, *next;
	int r = 0;

	b->n = 0;
	for (uint64_t i = w->base; i < w->next; i++) {
		v = jank_thread_vertex(w, i);
		if (v)
			break;
	}
	if (!v) /* no vertex: one interval in the current state */
		return interval_push(b, w->first_seen, w->last_seen, w->state);
	if (w->first_seen < v->ts)
		r = interval_push(b, w->first_seen, v->ts, JANK_STATE_UNKNOWN);
	for (uint64_t i = w->base; r == 0 && i < w->next; i++) {
		v = jank_thread_vertex(w, i);
		if (!v)
			continue;
		next = i + 1 < w->next ? jank_thread_vertex(w, i + 1) : NULL;
		r = interval_push(b, v->ts, next ? next->ts : w->last_seen, v->state);
	}
	return r;
}

struct link {
	int32_t from_tid;
	int32_t to_tid;
	int64_t ts;
	uint8_t state;
};

struct graph_dump {
	const struct jank_graph *g;
	int32_t tid;
	const struct jank_thread **threads;
	size_t nthreads;
	size_t cap;
	struct link *links;
	size_t nlinks;
	size_t links_cap;
	int err;
};

static void collect_thread(const struct jank_thread *w, void *data)
{
	struct graph_dump *d = data;

	if (d->err)
		return;
	if (d->nthreads == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 256;
		const struct jank_thread **v = realloc(d->threads, cap * sizeof(*v));

		if (!v) {
			d->err = -ENOMEM;
			return;
		}
		d->threads = v;
		d->cap = cap;
	}
	d->threads[d->nthreads++] = w;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct jank_thread *x = *(const struct jank_thread *const *)a;
	const struct jank_thread *y = *(const struct jank_thread *const *)b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->first_seen != y->first_seen)
		return x->first_seen < y->first_seen ? -1 : 1;
	return x->serial < y->serial ? -1 : x->serial > y->serial;
}

static int cmp_link(const void *a, const void *b)
{
	const struct link *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->from_tid != y->from_tid)
		return x->from_tid < y->from_tid ? -1 : 1;
	return x->to_tid < y->to_tid ? -1 : x->to_tid > y->to_tid;
}

static int collect_links(struct graph_dump *d, const struct jank_thread *w)
{
	for (uint64_t i = w->base; i < w->next; i++) {
		const struct jank_vertex *v = jank_thread_vertex(w, i);
		const struct jank_vertex *prev;
		const struct jank_thread *from;
		struct link l;

		if (!v || v->from_serial == JANK_NO_THREAD)
			continue;
		from = jank_graph_find_serial(d->g, v->from_serial);
		prev = i > w->base ? jank_thread_vertex(w, i - 1) : NULL;
		l.from_tid = from ? from->tid : -1;
		l.to_tid = w->tid;
		l.ts = v->ts;
		l.state = prev ? prev->state : JANK_STATE_UNKNOWN;
		if (d->tid >= 0 && l.from_tid != d->tid && l.to_tid != d->tid)
			continue;
		if (d->nlinks == d->links_cap) {
			size_t cap = d->links_cap ? d->links_cap * 2 : 1024;
			struct link *nv = realloc(d->links, cap * sizeof(*nv));

			if (!nv)
				return -ENOMEM;
			d->links = nv;
			d->links_cap = cap;
		}
		d->links[d->nlinks++] = l;
	}
	return 0;
}

/*
 * Every thread record sorted by (tid, first_seen), and the links to keep,
 * sorted by time. With a tid, `threads` keeps only that tid's, but links are
 * looked for on every thread (a link from the thread ends on another one).
 */
static int graph_dump_collect(struct graph_dump *d, const struct jank_graph *g, int32_t tid)
{
	size_t kept = 0;
	int r;

	memset(d, 0, sizeof(*d));
	d->g = g;
	d->tid = tid;
	jank_graph_foreach(g, collect_thread, d);
	if (d->err)
		return d->err;
	jank_sort(d->threads, d->nthreads, sizeof(*d->threads), cmp_thread);
	for (size_t i = 0; i < d->nthreads; i++) {
		r = collect_links(d, d->threads[i]);
		if (r < 0)
			return r;
		if (tid < 0 || d->threads[i]->tid == tid)
			d->threads[kept++] = d->threads[i];
	}
	d->nthreads = kept;
	if (tid >= 0 && kept == 0)
		return -ENOENT;
	jank_sort(d->links, d->nlinks, sizeof(*d->links), cmp_link);
	return 0;
}

static void graph_dump_fini(struct graph_dump *d)
{
	free(d->threads);
	free(d->links);
}

static struct json_object *thread_json(const struct jank_thread *w, const struct interval_buf *b)
{
	struct json_object *o = json_object_new_object();
	struct json_object *a = json_object_new_array_ext((int)b->n);
	int r = 0;

	if (!o || !a)
		goto nomem;
	for (size_t i = 0; i < b->n; i++) {
		struct json_object *it = json_object_new_object();

		if (!it || json_object_array_add(a, it) != 0) {
			json_object_put(it);
			goto nomem;
		}
		r |= jank_json_add_i64(it, "begin", b->v[i].begin);
		r |= jank_json_add_i64(it, "end", b->v[i].end);
		r |= jank_json_add_str(it, "state", jank_state_name(b->v[i].state));
	}
	r |= jank_json_add_i64(o, "tid", w->tid);
	r |= jank_json_add_str(o, "comm", w->comm);
	r |= jank_json_add(o, "intervals", a);
	a = NULL;
	if (r)
		goto nomem;
	return o;
nomem:
	json_object_put(a);
	json_object_put(o);
	return NULL;
}

static struct json_object *link_json(const struct link *l)
{
	struct json_object *o = json_object_new_object();
	int r = 0;

	if (!o)
		return NULL;
	r |= jank_json_add_i64(o, "from_tid", l->from_tid);
	r |= jank_json_add_i64(o, "to_tid", l->to_tid);
	r |= jank_json_add_i64(o, "ts", l->ts);
	r |= jank_json_add_str(o, "state", jank_state_name(l->state));
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int put_json(FILE *f, struct json_object *o, bool comma)
{
	int r = 0;

	if (!o)
		return -ENOMEM;
	if (fprintf(f, "%s%s", comma ? "," : "",
		    json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							      JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		r = -EIO;
	json_object_put(o);
	return r;
}

/*
 * A graph format: `before` is called before the threads, `thread` once per
 * thread with its state intervals, and `end` after the last. Each returns 0
 * or -errno.
 */
struct graph_writer {
	int (*before)(FILE *f, const struct graph_dump *d);
	int (*thread)(FILE *f, size_t i, const struct jank_thread *w, const struct interval_buf *b);
	int (*end)(FILE *f, const struct graph_dump *d);
};

static int write_graph(FILE *f, const struct jank_graph *g, int32_t tid,
		       const struct graph_writer *wr)
{
	struct interval_buf b = { 0 };
	struct graph_dump d;
	int r = graph_dump_collect(&d, g, tid);

	if (r == 0)
		r = wr->before(f, &d);
	for (size_t i = 0; r == 0 && i < d.nthreads; i++) {
		r = thread_intervals(d.threads[i], &b);
		if (r == 0)
			r = wr->thread(f, i, d.threads[i], &b);
	}
	if (r == 0)
		r = wr->end(f, &d);
	free(b.v);
	graph_dump_fini(&d);
	return r;
}

/* ---- JSON ---- */

/* {"threads":[...],"links":[...]}: the threads as they come, then the links. */
static int json_before(FILE *f, const struct graph_dump *d)
{
	(void)d;
	return fputs("{\"threads\":[", f) < 0 ? -EIO : 0;
}

static int json_thread(FILE *f, size_t i, const struct jank_thread *w, const struct interval_buf *b)
{
	return put_json(f, thread_json(w, b), i > 0);
}

static int json_end(FILE *f, const struct graph_dump *d)
{
	int r = fputs("],\"links\":[", f) < 0 ? -EIO : 0;

	for (size_t i = 0; r == 0 && i < d->nlinks; i++)
		r = put_json(f, link_json(&d->links[i]), i > 0);
	if (r == 0 && fputs("]}\n", f) < 0)
		r = -EIO;
	return r;
}

int jank_format_graph_json(FILE *f, const struct jank_graph *g, int32_t tid)
{
	static const struct graph_writer json = { json_before, json_thread, json_end };

	return write_graph(f, g, tid, &json);
}

/* ---- Text ---- */

static int text_before(FILE *f, const struct graph_dump *d)
{
	(void)d;
	fprintf(f, "%8s  %-16s %-29s %12s %9s %12s %12s\n", "tid", "comm", "first seen", "span",
		"intervals", "running", "waiting");
	return 0;
}

static int text_thread(FILE *f, size_t i, const struct jank_thread *w, const struct interval_buf *b)
{
	int64_t running = 0, waiting = 0;
	char w1[48], s1[32], s2[32], s3[32], c[JANK_TEXT_SIZE(JANK_COMM_LEN)];

	(void)i;
	for (size_t k = 0; k < b->n; k++) {
		int64_t len = b->v[k].end - b->v[k].begin;

		if (b->v[k].state == JANK_STATE_RUNNING)
			running += len;
		else if (b->v[k].state != JANK_STATE_UNKNOWN &&
			 b->v[k].state != JANK_STATE_PREEMPTED)
			waiting += len;
	}
	fprintf(f, "%8" PRId32 "  %-16s %-29s %12s %9zu %12s %12s\n", w->tid,
		jank_text(c, sizeof(c), w->comm), /* a traced name: escaped */
		format_wall(w->first_seen, w1, sizeof(w1)),
		jank_units_duration(w->last_seen - w->first_seen, s1, sizeof(s1)), b->n,
		jank_units_duration(running, s2, sizeof(s2)),
		jank_units_duration(waiting, s3, sizeof(s3)));
	return 0;
}

static int text_end(FILE *f, const struct graph_dump *d)
{
	fprintf(f, "%zu threads, %zu wakeup links\n", d->nthreads, d->nlinks);
	return 0;
}

int jank_format_graph_text(FILE *f, const struct jank_graph *g, int32_t tid)
{
	static const struct graph_writer text = { text_before, text_thread, text_end };

	return write_graph(f, g, tid, &text);
}
