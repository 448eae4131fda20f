/* SPDX-License-Identifier: MIT */
/*
 * Reports, critical paths and graphs as JSON and as text.
 *
 * JSON goes through json-c (it does the escaping); the graph is written one
 * worker at a time, so its JSON never sits whole in memory. Text is written
 * for someone reading an alert at 3 a.m.: a header that says what was slow
 * and by how much, the critical path as a short story ("waiting for tid 77
 * (db): running 18.2 ms"), and where the time went, in a small table.
 *
 * A worker's intervals come from its vertices: vertex i starts an interval of
 * its state that runs to vertex i+1, the last one to the worker's last_seen.
 * Adjacent intervals of the same state are merged; empty ones are dropped.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "array.h"
#include "format.h"
#include "json-util.h"
#include "units.h"

#define STORY_STEPS_TEXT       20
#define BREAKDOWN_THREADS_TEXT 8

/* ---- JSON ---- */

/* Mutexes are named by address, as the pthread wrapper records them. */
static const char *lock_name(uint64_t lock, char *buf, size_t len)
{
	snprintf(buf, len, "0x%" PRIx64, lock);
	return buf;
}

/* The segment's span: {"action", "key"}, the innermost open action of its thread. */
static int add_span(struct json_object *o, const struct jank_label *l)
{
	struct json_object *span = json_object_new_object();
	int r;

	if (!span)
		return -ENOMEM;
	r = jank_json_add_str(span, "action", l->name);
	r |= jank_json_add_str(span, "key", l->key);
	r |= jank_json_add(o, "span", span);
	return r;
}

static struct json_object *segment_json(const struct jank_path *p, const struct jank_segment *s)
{
	struct json_object *o = json_object_new_object();
	const struct jank_label *flow = jank_path_label_of(p, s->flow);
	const struct jank_label *span = jank_path_label_of(p, s->span);
	char buf[24];
	int r = 0;

	if (!o)
		return NULL;
	r |= jank_json_add_i64(o, "tid", s->tid);
	r |= jank_json_add_str(o, "comm", s->comm);
	r |= jank_json_add_str(o, "state", jank_state_name(s->state));
	r |= jank_json_add_i64(o, "begin", s->begin);
	r |= jank_json_add_i64(o, "end", s->end);
	if (s->lock)
		r |= jank_json_add_str(o, "lock", lock_name(s->lock, buf, sizeof(buf)));
	if (flow)
		r |= jank_json_add_str(o, "flow", flow->name);
	if (span)
		r |= add_span(o, span);
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

struct json_object *jank_format_segments_json(const struct jank_path *p)
{
	struct json_object *a = json_object_new_array();

	if (!a)
		return NULL;
	for (size_t i = 0; p && i < p->n; i++) {
		struct json_object *s = segment_json(p, &p->segs[i]);

		if (!s || json_object_array_add(a, s) != 0) {
			json_object_put(s);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

struct json_object *jank_format_breakdown_json(const struct jank_breakdown *b)
{
	struct json_object *o = json_object_new_object();
	struct json_object *states = json_object_new_object();
	struct json_object *threads = json_object_new_array();
	int r = 0;

	if (!o || !states || !threads)
		goto nomem;
	for (int s = 0; b && s < JANK_STATE_COUNT; s++)
		if (b->per_state[s])
			r |= jank_json_add_i64(states, jank_state_name(s), b->per_state[s]);
	for (size_t i = 0; b && i < b->n; i++) {
		const struct jank_breakdown_item *it = &b->items[i];
		struct json_object *t = json_object_new_object();

		if (!t || json_object_array_add(threads, t) != 0) {
			json_object_put(t);
			goto nomem;
		}
		r |= jank_json_add_i64(t, "tid", it->tid);
		r |= jank_json_add_str(t, "comm", it->comm);
		r |= jank_json_add_str(t, "state", jank_state_name(it->state));
		r |= jank_json_add_i64(t, "ns", it->ns);
	}
	r |= jank_json_add(o, "states", states);
	states = NULL;
	r |= jank_json_add(o, "threads", threads);
	threads = NULL;
	if (b && b->nlocks) {
		struct json_object *locks = json_object_new_array();
		char buf[24];

		r |= jank_json_add(o, "locks", locks);
		for (size_t i = 0; locks && i < b->nlocks; i++) {
			struct json_object *l = json_object_new_object();

			if (!l || json_object_array_add(locks, l) != 0) {
				json_object_put(l);
				goto nomem_o;
			}
			r |= jank_json_add_str(l, "lock",
					       lock_name(b->locks[i].lock, buf, sizeof(buf)));
			r |= jank_json_add_i64(l, "ns", b->locks[i].ns);
		}
	}
	if (r)
		goto nomem;
	return o;
nomem:
	json_object_put(states);
	json_object_put(threads);
nomem_o:
	json_object_put(o);
	return NULL;
}

/* ---- Suspects ---- */

static const char *thread(int32_t tid, const char *comm, char *buf, size_t len);

const char *jank_format_names(const char *process, const char *thread, char *buf, size_t len)
{
	const char *t = thread && thread[0] ? thread : "?";

	if (process && process[0] && strcmp(process, t) != 0)
		snprintf(buf, len, "%s/%s", process, t);
	else
		snprintf(buf, len, "%s", t);
	return buf;
}

/* "(normally 200 us, 200x)", "(normally none)" */
static const char *normally(const struct jank_suspect *s, char *buf, size_t len)
{
	char d[32];

	if (s->normal < 0.5)
		snprintf(buf, len, "(normally none)");
	else if (s->normal < 1000.0)
		snprintf(buf, len, "(normally %s)",
			 jank_units_duration((int64_t)(s->normal + 0.5), d, sizeof(d)));
	else
		snprintf(buf, len, "(normally %s, %.*fx)",
			 jank_units_duration((int64_t)(s->normal + 0.5), d, sizeof(d)),
			 s->ratio < 10 ? 1 : 0, s->ratio);
	return buf;
}

/* ", CPU taken by tid 812 (hog) and tid 7 (x)": who ran while the path was preempted. */
static void cpu_taken(const struct jank_suspects *ss, char *buf, size_t len)
{
	char th[64];
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; ss && i < ss->nran && i < 2 && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? " and " : ", CPU taken by ",
					 thread(ss->ran[i].tid, ss->ran[i].comm, th, sizeof(th)));
}

const char *jank_format_suspect(const struct jank_suspect *s, const struct jank_suspects *ss,
				char *buf, size_t len)
{
	char d[32], n[64], who[48], tail[160] = "";
	const struct jank_comp *c = &s->comp;

	jank_units_duration(s->delta, d, sizeof(d));
	normally(s, n, sizeof(n));
	if (c->key.kind != JANK_COMP_LOCK && c->key.state == JANK_STATE_PREEMPTED)
		cpu_taken(ss, tail, sizeof(tail));
	jank_format_names(c->process, c->thread, who, sizeof(who));
	if (c->key.kind == JANK_COMP_LOCK)
		snprintf(buf, len, "+%s waiting for lock 0x%" PRIx64 "%s%s %s", d, c->key.id,
			 c->thread[0] ? " held by " : "", c->thread[0] ? who : "", n);
	else if (c->key.kind == JANK_COMP_THREAD && !s->own)
		snprintf(buf, len, "+%s %s waiting on %s %s%s", d, jank_state_name(c->key.state),
			 who, n, tail);
	else
		snprintf(buf, len, "+%s %s %s%s", d, jank_state_name(c->key.state), n, tail);
	return buf;
}

const char *jank_format_suspects_line(const struct jank_suspects *ss, char *buf, size_t len)
{
	if (!ss->ready)
		snprintf(buf, len, "no baseline yet (%" PRIu64 " of %d normal actions)", ss->normal,
			 JANK_BASELINE_MIN);
	else if (ss->n == 0)
		snprintf(buf, len, "nothing above normal (%" PRIu64 " normal actions)", ss->normal);
	else
		jank_format_suspect(&ss->items[0], ss, buf, len);
	return buf;
}

static struct json_object *suspect_json(const struct jank_suspect *s,
					const struct jank_suspects *ss)
{
	struct json_object *o = json_object_new_object();
	const struct jank_comp *c = &s->comp;
	char buf[256];
	int r = 0;

	if (!o)
		return NULL;
	r |= jank_json_add_str(o, "kind", jank_comp_kind_name(c->key.kind));
	if (c->key.kind == JANK_COMP_LOCK)
		r |= jank_json_add_str(o, "lock", lock_name(c->key.id, buf, sizeof(buf)));
	else
		r |= jank_json_add_str(o, "state", jank_state_name(c->key.state));
	if (c->key.kind == JANK_COMP_THREAD || c->key.kind == JANK_COMP_LOCK) {
		r |= jank_json_add_str(o, "process", c->process);
		r |= jank_json_add_str(o, "thread", c->thread);
		r |= jank_json_add_i64(o, "tid", c->tid);
	}
	if (c->key.kind == JANK_COMP_THREAD)
		r |= jank_json_add_bool(o, "own", s->own);
	r |= jank_json_add_i64(o, "ns", c->ns);
	r |= jank_json_add_i64(o, "normal_ns", (int64_t)(s->normal + 0.5));
	r |= jank_json_add_i64(o, "delta_ns", s->delta);
	r |= jank_json_add(o, "ratio", json_object_new_double(s->ratio));
	r |= jank_json_add_str(o, "text", jank_format_suspect(s, ss, buf, sizeof(buf)));
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *ran_json(const struct jank_suspects *ss)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < ss->nran; i++) {
		struct json_object *o = json_object_new_object();
		int r = 0;

		if (!o || json_object_array_add(a, o) != 0) {
			json_object_put(o);
			json_object_put(a);
			return NULL;
		}
		r |= jank_json_add_i64(o, "tid", ss->ran[i].tid);
		r |= jank_json_add_str(o, "comm", ss->ran[i].comm);
		r |= jank_json_add_i64(o, "ns", ss->ran[i].ns);
		if (r) {
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

struct json_object *jank_format_suspects_json(const struct jank_suspects *ss)
{
	struct json_object *o = json_object_new_object();
	struct json_object *items = json_object_new_array();
	char line[256];
	int r = 0;

	if (!o || !items) {
		json_object_put(o);
		json_object_put(items);
		return NULL;
	}
	r |= jank_json_add_bool(o, "ready", ss->ready);
	r |= jank_json_add_u64(o, "normal_actions", ss->normal);
	r |= jank_json_add_i64(o, "needed", JANK_BASELINE_MIN);
	r |= jank_json_add_i64(o, "normal_duration_ns", (int64_t)(ss->normal_duration + 0.5));
	r |= jank_json_add_str(o, "summary", jank_format_suspects_line(ss, line, sizeof(line)));
	r |= jank_json_add(o, "items", items);
	for (size_t i = 0; r == 0 && i < ss->n; i++) {
		struct json_object *it = suspect_json(&ss->items[i], ss);

		if (!it || json_object_array_add(items, it) != 0) {
			json_object_put(it);
			r = -ENOMEM;
		}
	}
	r |= jank_json_add(o, "cpu_taken_by", ran_json(ss));
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

struct json_object *jank_format_verdict_json(const struct jank_verdict *r)
{
	struct json_object *o = json_object_new_object();
	int e = 0;

	if (!o)
		return NULL;
	e |= jank_json_add_str(o, "type", "action");
	if (r->kind == JANK_VERDICT_OVERDUE)
		e |= jank_json_add_str(o, "kind", "overdue");
	e |= jank_json_add_str(o, "action", r->rule ? r->rule->name : NULL);
	e |= jank_json_add_str(o, "key", r->key);
	e |= jank_json_add_i64(o, "begin", r->begin);
	e |= jank_json_add_i64(o, "end", r->end);
	e |= jank_json_add_i64(o, "duration_ns", r->duration);
	e |= jank_json_add_i64(o, "threshold_ns", r->threshold);
	e |= jank_json_add_i64(o, "tid", r->tid);
	e |= jank_json_add_i64(o, "pid", r->pid);
	e |= jank_json_add_str(o, "comm", r->comm);
	e |= jank_json_add_bool(o, "over_threshold", r->over_threshold);
	if (r->path && r->path->truncated)
		e |= jank_json_add_bool(o, "truncated", true);
	if (r->incomplete)
		e |= jank_json_add_bool(o, "incomplete", true);
	e |= jank_json_add(o, "critical_path", jank_format_segments_json(r->path));
	e |= jank_json_add(o, "breakdown", jank_format_breakdown_json(r->breakdown));
	if (r->suspects)
		e |= jank_json_add(o, "suspects", jank_format_suspects_json(r->suspects));
	if (e) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

struct json_object *jank_format_summary_json(const struct jank_engine *e, size_t rule)
{
	const struct jank_histogram *h = jank_engine_rule_histogram(e, rule);
	const struct jank_rule *ru = jank_engine_rule(e, rule);
	struct json_object *o = json_object_new_object();
	int r = 0;

	if (!o)
		return NULL;
	r |= jank_json_add_str(o, "type", "summary");
	r |= jank_json_add_str(o, "action", ru ? ru->name : NULL);
	r |= jank_json_add_i64(o, "count", h ? (int64_t)h->count : 0);
	r |= jank_json_add_i64(o, "over_threshold", (int64_t)jank_engine_rule_janks(e, rule));
	r |= jank_json_add_i64(o, "p50_ns", h ? jank_histogram_percentile(h, 50) : 0);
	r |= jank_json_add_i64(o, "p90_ns", h ? jank_histogram_percentile(h, 90) : 0);
	r |= jank_json_add_i64(o, "p99_ns", h ? jank_histogram_percentile(h, 99) : 0);
	r |= jank_json_add_i64(o, "max_ns", h && h->count ? h->max : 0);
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

struct json_object *jank_format_critpath_json(const struct jank_path *p,
					      const struct jank_breakdown *b)
{
	struct json_object *o = json_object_new_object();
	int r = 0;

	if (!o)
		return NULL;
	r |= jank_json_add_i64(o, "tid", p->tid);
	r |= jank_json_add_i64(o, "begin", p->begin);
	r |= jank_json_add_i64(o, "end", p->end);
	if (p->truncated)
		r |= jank_json_add_bool(o, "truncated", true);
	if (p->incomplete)
		r |= jank_json_add_bool(o, "incomplete", true);
	r |= jank_json_add(o, "segments", jank_format_segments_json(p));
	r |= jank_json_add(o, "breakdown", jank_format_breakdown_json(b));
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int jank_format_json_print(FILE *f, struct json_object *o)
{
	int r = 0;

	if (!o)
		return -ENOMEM;
	if (fprintf(f, "%s\n",
		    json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							      JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		r = -EIO;
	json_object_put(o);
	return r;
}

/* ---- Graph ---- */

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

/* The worker's state intervals, contiguous from first_seen to last_seen. */
static int worker_intervals(const struct jank_worker *w, struct interval_buf *b)
{
	const struct jank_vertex *v = NULL, *next;
	int r = 0;

	b->n = 0;
	for (uint64_t i = w->base; i < w->next; i++) {
		v = jank_worker_vertex(w, i);
		if (v)
			break;
	}
	if (!v) /* no vertex: one interval in the current state */
		return interval_push(b, w->first_seen, w->last_seen, w->state);
	if (w->first_seen < v->ts)
		r = interval_push(b, w->first_seen, v->ts, JANK_STATE_UNKNOWN);
	for (uint64_t i = w->base; r == 0 && i < w->next; i++) {
		v = jank_worker_vertex(w, i);
		if (!v)
			continue;
		next = i + 1 < w->next ? jank_worker_vertex(w, i + 1) : NULL;
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
	const struct jank_worker **workers;
	size_t nworkers;
	size_t cap;
	struct link *links;
	size_t nlinks;
	size_t links_cap;
	int err;
};

static void collect_worker(const struct jank_worker *w, void *data)
{
	struct graph_dump *d = data;

	if (d->err)
		return;
	if (d->nworkers == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 256;
		const struct jank_worker **v = realloc(d->workers, cap * sizeof(*v));

		if (!v) {
			d->err = -ENOMEM;
			return;
		}
		d->workers = v;
		d->cap = cap;
	}
	d->workers[d->nworkers++] = w;
}

static int cmp_worker(const void *a, const void *b)
{
	const struct jank_worker *x = *(const struct jank_worker *const *)a;
	const struct jank_worker *y = *(const struct jank_worker *const *)b;

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

static int collect_links(struct graph_dump *d, const struct jank_worker *w)
{
	for (uint64_t i = w->base; i < w->next; i++) {
		const struct jank_vertex *v = jank_worker_vertex(w, i);
		const struct jank_vertex *prev;
		const struct jank_worker *from;
		struct link l;

		if (!v || v->from_serial == JANK_NO_WORKER)
			continue;
		from = jank_graph_find_serial(d->g, v->from_serial);
		prev = i > w->base ? jank_worker_vertex(w, i - 1) : NULL;
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
 * Every worker sorted by (tid, first_seen), and the links to keep, sorted by
 * time. With a tid, `workers` keeps only that thread's, but links are looked
 * for on every worker (a link from the thread ends on another worker).
 */
static int graph_dump_collect(struct graph_dump *d, const struct jank_graph *g, int32_t tid)
{
	size_t kept = 0;
	int r;

	memset(d, 0, sizeof(*d));
	d->g = g;
	d->tid = tid;
	jank_graph_foreach(g, collect_worker, d);
	if (d->err)
		return d->err;
	jank_sort(d->workers, d->nworkers, sizeof(*d->workers), cmp_worker);
	for (size_t i = 0; i < d->nworkers; i++) {
		r = collect_links(d, d->workers[i]);
		if (r < 0)
			return r;
		if (tid < 0 || d->workers[i]->tid == tid)
			d->workers[kept++] = d->workers[i];
	}
	d->nworkers = kept;
	if (tid >= 0 && kept == 0)
		return -ENOENT;
	jank_sort(d->links, d->nlinks, sizeof(*d->links), cmp_link);
	return 0;
}

static void graph_dump_fini(struct graph_dump *d)
{
	free(d->workers);
	free(d->links);
}

static struct json_object *worker_json(const struct jank_worker *w, const struct interval_buf *b)
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
 * A graph format: called once before the workers, once per worker with its
 * state intervals, and once after. Each returns 0 or -errno.
 */
struct graph_writer {
	int (*begin)(FILE *f, const struct graph_dump *d);
	int (*worker)(FILE *f, size_t i, const struct jank_worker *w, const struct interval_buf *b);
	int (*end)(FILE *f, const struct graph_dump *d);
};

static int write_graph(FILE *f, const struct jank_graph *g, int32_t tid,
		       const struct graph_writer *wr)
{
	struct interval_buf b = { 0 };
	struct graph_dump d;
	int r = graph_dump_collect(&d, g, tid);

	if (r == 0)
		r = wr->begin(f, &d);
	for (size_t i = 0; r == 0 && i < d.nworkers; i++) {
		r = worker_intervals(d.workers[i], &b);
		if (r == 0)
			r = wr->worker(f, i, d.workers[i], &b);
	}
	if (r == 0)
		r = wr->end(f, &d);
	free(b.v);
	graph_dump_fini(&d);
	return r;
}

static int json_begin(FILE *f, const struct graph_dump *d)
{
	(void)d;
	return fputs("{\"workers\":[", f) < 0 ? -EIO : 0;
}

static int json_worker(FILE *f, size_t i, const struct jank_worker *w, const struct interval_buf *b)
{
	return put_json(f, worker_json(w, b), i > 0);
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
	static const struct graph_writer json = { json_begin, json_worker, json_end };

	return write_graph(f, g, tid, &json);
}

/* ---- Text ---- */

/*
 * A time from the trace clock's origin. LTTng's origin is the Unix epoch, so
 * print it as a local wall-clock time, as babeltrace2 does; small values (a
 * clock without that origin) are printed as seconds.
 */
static const char *wall(int64_t ns, char *buf, size_t len)
{
	int64_t s = ns / 1000000000, frac = ns % 1000000000;
	struct tm tm;
	time_t t;

	if (ns < 0) {
		/* Before the clock's origin: the sign, then the magnitude (no overflow). */
		snprintf(buf, len, "-%" PRIu64 ".%09" PRIu64 " s", (uint64_t)0 - (uint64_t)s,
			 (uint64_t)0 - (uint64_t)frac);
		return buf;
	}
	t = (time_t)s;
	if (s < 1000000000 || !localtime_r(&t, &tm)) {
		snprintf(buf, len, "%" PRId64 ".%09" PRId64 " s", s, frac);
		return buf;
	}
	snprintf(buf, len, "%04d-%02d-%02d %02d:%02d:%02d.%09" PRId64, tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
	return buf;
}

/* "tid 77 (db)", or "tid 77" when the name is unknown. */
static const char *thread(int32_t tid, const char *comm, char *buf, size_t len)
{
	if (comm && comm[0])
		snprintf(buf, len, "tid %" PRId32 " (%s)", tid, comm);
	else
		snprintf(buf, len, "tid %" PRId32, tid);
	return buf;
}

/* A step of the story: consecutive segments on the same thread in the same state. */
struct step {
	int32_t tid;
	uint8_t state;
	int64_t ns;
	uint64_t lock;
	const char *comm;
	const char *flow; /* the flow that brought the path to the thread, NULL */
};

static size_t next_step(const struct jank_path *p, size_t i, struct step *s)
{
	const struct jank_label *flow = jank_path_label_of(p, p->segs[i].flow);

	s->tid = p->segs[i].tid;
	s->state = p->segs[i].state;
	s->comm = p->segs[i].comm;
	s->lock = p->segs[i].lock;
	s->flow = flow ? flow->name : NULL;
	s->ns = 0;
	for (; i < p->n && p->segs[i].tid == s->tid && p->segs[i].state == s->state &&
	       p->segs[i].lock == s->lock;
	     i++)
		s->ns += p->segs[i].end - p->segs[i].begin;
	return i;
}

/* The threads the story has mentioned so far, to say "waiting for" or "back on". */
struct story {
	int32_t seen[32];
	size_t nseen;
	int32_t prev_tid;
	size_t steps;
};

static bool story_seen(struct story *st, int32_t tid)
{
	for (size_t i = 0; i < st->nseen; i++)
		if (st->seen[i] == tid)
			return true;
	if (st->nseen < sizeof(st->seen) / sizeof(st->seen[0]))
		st->seen[st->nseen++] = tid;
	return false;
}

/* One step as a phrase: "waiting for tid 77 (db): running 18.2 ms". */
static void step_phrase(struct story *st, const struct step *s, char *buf, size_t len)
{
	char d[32], th[64];

	jank_units_duration(s->ns, d, sizeof(d));
	thread(s->tid, s->comm, th, sizeof(th));
	if (st->steps == 0)
		snprintf(buf, len, "%s %s %s", th, jank_state_name(s->state), d);
	else if (s->flow && s->tid != st->prev_tid)
		snprintf(buf, len, "via flow %s to %s: %s %s", s->flow, th,
			 jank_state_name(s->state), d);
	else if (s->tid == st->prev_tid)
		snprintf(buf, len, "%s %s", jank_state_name(s->state), d);
	else if (story_seen(st, s->tid))
		snprintf(buf, len, "back on %s: %s %s", th, jank_state_name(s->state), d);
	else if (s->lock)
		snprintf(buf, len, "waiting for lock 0x%" PRIx64 " held by %s: %s %s", s->lock, th,
			 jank_state_name(s->state), d);
	else
		snprintf(buf, len, "waiting for %s: %s %s", th, jank_state_name(s->state), d);
	if (st->steps == 0 || s->flow)
		story_seen(st, s->tid);
	st->prev_tid = s->tid;
	st->steps++;
}

static size_t count_steps(const struct jank_path *p)
{
	struct step s;
	size_t n = 0;

	for (size_t i = 0; i < p->n; i = next_step(p, i, &s))
		n++;
	return n;
}

size_t jank_format_path_story(char *buf, size_t len, const struct jank_path *p, size_t max_steps)
{
	struct story st = { .prev_tid = -1 };
	size_t total = p ? count_steps(p) : 0, used = 0;
	char phrase[160];
	struct step s;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; p && i < p->n && st.steps < max_steps;) {
		i = next_step(p, i, &s);
		step_phrase(&st, &s, phrase, sizeof(phrase));
		used += snprintf(used < len ? buf + used : NULL, used < len ? len - used : 0,
				 "%s%s", st.steps > 1 ? " → " : "", phrase);
	}
	if (total > st.steps)
		used += snprintf(used < len ? buf + used : NULL, used < len ? len - used : 0,
				 " → … (%zu more steps)", total - st.steps);
	return used;
}

static void story_text(FILE *f, const struct jank_path *p, const char *indent)
{
	struct story st = { .prev_tid = -1 };
	size_t total = count_steps(p);
	char phrase[160];
	struct step s;

	if (p->n == 0) {
		fprintf(f, "%s(empty path)\n", indent);
		return;
	}
	for (size_t i = 0; i < p->n && st.steps < STORY_STEPS_TEXT;) {
		i = next_step(p, i, &s);
		step_phrase(&st, &s, phrase, sizeof(phrase));
		fprintf(f, "%s%s %s\n", indent, st.steps == 1 ? " " : "→", phrase);
	}
	if (total > st.steps)
		fprintf(f, "%s→ … %zu more steps (see --format json)\n", indent, total - st.steps);
	if (p->truncated)
		fprintf(f,
			"%s  (the path reached graph memory already freed: that part is "
			"'unknown')\n",
			indent);
	if (p->incomplete)
		fprintf(f,
			"%s  (incomplete: out of memory while computing it; only its end is "
			"here)\n",
			indent);
}

/* "84.2%", and "<0.1%" for a share too small to print but not nothing. */
static const char *pct(int64_t part, int64_t whole, char *buf, size_t len)
{
	double p = whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;

	if (part > 0 && p < 0.05)
		snprintf(buf, len, "<0.1%%");
	else
		snprintf(buf, len, "%.1f%%", p);
	return buf;
}

static void breakdown_text(FILE *f, const struct jank_breakdown *b, int64_t total)
{
	char d[32], th[64], p[16];
	int order[JANK_STATE_COUNT], n = 0;

	if (!b)
		return;
	/* States by time spent, largest first. */
	for (int s = 0; s < JANK_STATE_COUNT; s++)
		if (b->per_state[s] > 0)
			order[n++] = s;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && b->per_state[order[j]] > b->per_state[order[j - 1]]; j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	fprintf(f, "  where the time went:\n");
	for (int i = 0; i < n; i++)
		fprintf(f, "    %-14s %12s %7s\n", jank_state_name(order[i]),
			jank_units_duration(b->per_state[order[i]], d, sizeof(d)),
			pct(b->per_state[order[i]], total, p, sizeof(p)));
	if (b->n == 0)
		return;
	fprintf(f, "  by thread:\n");
	for (size_t i = 0; i < b->n && i < BREAKDOWN_THREADS_TEXT; i++) {
		const struct jank_breakdown_item *it = &b->items[i];

		fprintf(f, "    %-28s %-14s %12s %7s\n", thread(it->tid, it->comm, th, sizeof(th)),
			jank_state_name(it->state), jank_units_duration(it->ns, d, sizeof(d)),
			pct(it->ns, total, p, sizeof(p)));
	}
	if (b->n > BREAKDOWN_THREADS_TEXT)
		fprintf(f, "    … %zu more\n", b->n - BREAKDOWN_THREADS_TEXT);
	if (b->nlocks == 0)
		return;
	fprintf(f, "  waiting for locks:\n");
	for (size_t i = 0; i < b->nlocks; i++)
		fprintf(f, "    mutex 0x%-19" PRIx64 " %12s %7s\n", b->locks[i].lock,
			jank_units_duration(b->locks[i].ns, d, sizeof(d)),
			pct(b->locks[i].ns, total, p, sizeof(p)));
}

/* What was different from the normal actions, largest increase first. */
static void suspects_text(FILE *f, const struct jank_suspects *ss)
{
	char line[256], d[32];

	if (!ss->ready || ss->n == 0) {
		fprintf(f, "  what was different: %s\n",
			jank_format_suspects_line(ss, line, sizeof(line)));
		return;
	}
	fprintf(f, "  what was different (against %" PRIu64 " normal actions, mean %s):\n",
		ss->normal,
		jank_units_duration((int64_t)(ss->normal_duration + 0.5), d, sizeof(d)));
	for (size_t i = 0; i < ss->n; i++)
		fprintf(f, "    %s\n", jank_format_suspect(&ss->items[i], ss, line, sizeof(line)));
}

void jank_format_verdict_text(FILE *f, const struct jank_verdict *r)
{
	char d[32], t[32], th[64], w1[48], w2[48];
	const char *verdict = r->kind == JANK_VERDICT_OVERDUE ? "OVERDUE"
			      : r->over_threshold	      ? "JANK"
							      : "ok";

	fprintf(f, "%s %s", verdict, r->rule ? r->rule->name : "?");
	if (r->key && r->key[0])
		fprintf(f, " [%s]", r->key);
	fprintf(f, ": %s", jank_units_duration(r->duration, d, sizeof(d)));
	if (r->kind == JANK_VERDICT_OVERDUE)
		fprintf(f, " and still open");
	if (r->threshold > 0)
		fprintf(f, " (threshold %s, %.1fx)",
			jank_units_duration(r->threshold, t, sizeof(t)),
			(double)r->duration / (double)r->threshold);
	else
		fprintf(f, " (no threshold yet)");
	fprintf(f, " on %s", thread(r->tid, r->comm, th, sizeof(th)));
	if (r->pid >= 0)
		fprintf(f, " pid %" PRId32, r->pid);
	fprintf(f, "\n  from %s to %s\n", wall(r->begin, w1, sizeof(w1)),
		wall(r->end, w2, sizeof(w2)));
	if (r->path) {
		fprintf(f, "  critical path:\n");
		story_text(f, r->path, "    ");
	}
	breakdown_text(f, r->breakdown, r->path ? r->path->end - r->path->begin : r->duration);
	if (r->suspects)
		suspects_text(f, r->suspects);
	fputc('\n', f);
}

void jank_format_summary_text(FILE *f, const struct jank_engine *e)
{
	size_t n = jank_engine_rule_count(e);
	int w = 6;
	char c[5][32];

	for (size_t i = 0; i < n; i++) {
		const struct jank_rule *r = jank_engine_rule(e, i);
		int l = r && r->name ? (int)strlen(r->name) : 1;

		if (l > w)
			w = l;
	}
	fprintf(f, "%-*s %8s %8s %12s %12s %12s %12s\n", w, "action", "count", "janks", "p50",
		"p90", "p99", "max");
	for (size_t i = 0; i < n; i++) {
		const struct jank_rule *r = jank_engine_rule(e, i);
		const struct jank_histogram *h = jank_engine_rule_histogram(e, i);
		uint64_t count = h ? h->count : 0;

		if (count == 0) {
			fprintf(f, "%-*s %8d %8d %12s %12s %12s %12s\n", w, r ? r->name : "?", 0, 0,
				"-", "-", "-", "-");
			continue;
		}
		fprintf(f, "%-*s %8" PRIu64 " %8" PRIu64 " %12s %12s %12s %12s\n", w,
			r ? r->name : "?", count, jank_engine_rule_janks(e, i),
			jank_units_duration(jank_histogram_percentile(h, 50), c[0], sizeof(c[0])),
			jank_units_duration(jank_histogram_percentile(h, 90), c[1], sizeof(c[1])),
			jank_units_duration(jank_histogram_percentile(h, 99), c[2], sizeof(c[2])),
			jank_units_duration(h->max, c[3], sizeof(c[3])));
	}
}

void jank_format_critpath_text(FILE *f, const struct jank_path *p, const struct jank_breakdown *b)
{
	char d[32], w1[48], w2[48];
	const char *comm = p->n ? NULL : "";

	/* The thread's own name: from its first segment on itself. */
	for (size_t i = 0; !comm && i < p->n; i++)
		if (p->segs[i].tid == p->tid)
			comm = p->segs[i].comm;
	fprintf(f, "critical path of tid %" PRId32 "%s%s%s over %s\n", p->tid,
		comm && comm[0] ? " (" : "", comm && comm[0] ? comm : "",
		comm && comm[0] ? ")" : "", jank_units_duration(p->end - p->begin, d, sizeof(d)));
	fprintf(f, "  from %s to %s\n", wall(p->begin, w1, sizeof(w1)),
		wall(p->end, w2, sizeof(w2)));
	story_text(f, p, "    ");
	breakdown_text(f, b, p->end - p->begin);
}

static int text_begin(FILE *f, const struct graph_dump *d)
{
	(void)d;
	fprintf(f, "%8s  %-16s %-29s %12s %9s %12s %12s\n", "tid", "comm", "first seen", "span",
		"intervals", "running", "waiting");
	return 0;
}

static int text_worker(FILE *f, size_t i, const struct jank_worker *w, const struct interval_buf *b)
{
	int64_t running = 0, waiting = 0;
	char w1[48], s1[32], s2[32], s3[32];

	(void)i;
	for (size_t k = 0; k < b->n; k++) {
		int64_t len = b->v[k].end - b->v[k].begin;

		if (b->v[k].state == JANK_STATE_RUNNING)
			running += len;
		else if (b->v[k].state != JANK_STATE_UNKNOWN &&
			 b->v[k].state != JANK_STATE_PREEMPTED)
			waiting += len;
	}
	fprintf(f, "%8" PRId32 "  %-16s %-29s %12s %9zu %12s %12s\n", w->tid, w->comm,
		wall(w->first_seen, w1, sizeof(w1)),
		jank_units_duration(w->last_seen - w->first_seen, s1, sizeof(s1)), b->n,
		jank_units_duration(running, s2, sizeof(s2)),
		jank_units_duration(waiting, s3, sizeof(s3)));
	return 0;
}

static int text_end(FILE *f, const struct graph_dump *d)
{
	fprintf(f, "%zu threads, %zu wakeup links\n", d->nworkers, d->nlinks);
	return 0;
}

int jank_format_graph_text(FILE *f, const struct jank_graph *g, int32_t tid)
{
	static const struct graph_writer text = { text_begin, text_worker, text_end };

	return write_graph(f, g, tid, &text);
}
