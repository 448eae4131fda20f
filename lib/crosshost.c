/* SPDX-License-Identifier: MIT */
/*
 * The join of several hosts' engines (crosshost.h): flow events kept in one
 * bounded array, paired by (flow, key) across hosts, one clock per pair of
 * hosts fed by the pairs, and the paths joined where they reach a pair's `to`.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "crosshost.h"
#include "stacks.h"
#include "textsafe.h"

struct xevent {
	uint32_t host;
	uint32_t flow;
	bool to;
	int32_t tid;
	int64_t ts;
	uint64_t seq; /* the order it was noted in: ties */
	char key[JANK_LABEL_KEY_LEN];
};

/* A `to` on one host joined with its `from` on another. */
struct xpair {
	uint32_t to_host;
	int32_t to_tid;
	int64_t to_ts;
	uint32_t from_host;
	int32_t from_tid;
	int64_t from_ts;
	uint32_t flow;
};

struct xflow {
	char name[JANK_LABEL_NAME_LEN];
	char hosts[256]; /* "a,b": the hosts it pairs between; "": any */
};

struct xhost {
	char name[JANK_LABEL_NAME_LEN];
	const struct jank_graph *g;
	jank_frame_namer namer;
	void *namer_data;
};

struct jank_crosshost {
	struct xhost hosts[JANK_CROSSHOST_MAX_HOSTS];
	size_t nhosts;
	struct xevent *ev;
	size_t nev, ev_cap, max_events;
	struct xpair *pairs; /* by (to_host, to_tid, to_ts) */
	size_t npairs, pairs_cap;
	struct jank_clocksync *sync; /* [a * nsync + b], a < b: a's clock is the reference */
	size_t nsync;
	struct xflow *flows; /* by flow index: the hosts' engines have the same flows */
	size_t nflows;
	struct jank_crosshost_stats stats;
};

struct jank_crosshost *jank_crosshost_new(size_t max_events)
{
	struct jank_crosshost *x = calloc(1, sizeof(*x));

	if (x)
		x->max_events = max_events;
	return x;
}

void jank_crosshost_free(struct jank_crosshost *x)
{
	if (!x)
		return;
	free(x->ev);
	free(x->pairs);
	free(x->sync);
	free(x->flows);
	free(x);
}

int jank_crosshost_add_host(struct jank_crosshost *x, const char *name)
{
	if (x->nhosts == JANK_CROSSHOST_MAX_HOSTS)
		return -E2BIG;
	jank_utf8_copy(x->hosts[x->nhosts].name, JANK_LABEL_NAME_LEN, name);
	x->stats.hosts++;
	return (int)x->nhosts++;
}

void jank_crosshost_set_graph(struct jank_crosshost *x, unsigned host, const struct jank_graph *g,
			      jank_frame_namer namer, void *namer_data)
{
	if (host >= x->nhosts)
		return;
	x->hosts[host].g = g;
	x->hosts[host].namer = namer;
	x->hosts[host].namer_data = namer_data;
}

size_t jank_crosshost_host_count(const struct jank_crosshost *x)
{
	return x->nhosts;
}

const char *jank_crosshost_host_name(const struct jank_crosshost *x, unsigned host)
{
	return host < x->nhosts ? x->hosts[host].name : "";
}

/* Remember flow i's name and hosts (the hosts' engines have the same flows). */
static void note_flow(struct jank_crosshost *x, uint32_t flow, const char *name, const char *hosts)
{
	if (flow >= x->nflows) {
		size_t n = (size_t)flow + 1;
		void *v = realloc(x->flows, n * sizeof(*x->flows));

		if (!v)
			return;
		x->flows = v;
		memset(x->flows + x->nflows, 0, (n - x->nflows) * sizeof(*x->flows));
		x->nflows = n;
	}
	if (!x->flows[flow].name[0]) {
		jank_utf8_copy(x->flows[flow].name, JANK_LABEL_NAME_LEN, name);
		jank_utf8_copy(x->flows[flow].hosts, sizeof(x->flows[flow].hosts),
			       hosts ? hosts : "");
	}
}

/* Whether flow i may pair on host h: its hosts name it, or it names none. */
static bool flow_on(const struct jank_crosshost *x, uint32_t flow, unsigned h)
{
	const char *list = flow < x->nflows ? x->flows[flow].hosts : "", *name = x->hosts[h].name;
	size_t n = strlen(name);

	if (!list[0])
		return true;
	for (const char *s = list; s; s = strchr(s, ','), s = s ? s + 1 : NULL)
		if (!strncmp(s, name, n) && (s[n] == ',' || s[n] == '\0'))
			return true;
	return false;
}

void jank_crosshost_note(struct jank_crosshost *x, unsigned host, const struct jank_flow_note *n,
			 const char *flow_name, const char *hosts)
{
	struct xevent *e;

	/* A `to` its own engine paired is within one host. */
	if (host >= x->nhosts || (n->to && n->paired))
		return;
	note_flow(x, n->flow, flow_name, hosts);
	if (x->nev == x->max_events) {
		x->stats.dropped++;
		return;
	}
	if (x->nev == x->ev_cap) {
		size_t cap = jank_array_grow(&x->ev, sizeof(*x->ev), x->ev_cap, 256);

		if (!cap) {
			x->stats.dropped++;
			return;
		}
		x->ev_cap = cap;
	}
	e = &x->ev[x->nev];
	*e = (struct xevent){ host, n->flow, n->to, n->tid, n->ts, x->nev, "" };
	jank_utf8_copy(e->key, sizeof(e->key), n->key ? n->key : "");
	x->nev++;
	if (n->to)
		x->stats.tos++;
	else
		x->stats.froms++;
}

/* By (flow, key, role), then in each host's order. */
static int cmp_event(const void *a, const void *b)
{
	const struct xevent *x = a, *y = b;
	int c;

	if (x->flow != y->flow)
		return x->flow < y->flow ? -1 : 1;
	c = strcmp(x->key, y->key);
	if (c)
		return c;
	if (x->to != y->to)
		return x->to ? 1 : -1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_pair(const void *a, const void *b)
{
	const struct xpair *x = a, *y = b;

	if (x->to_host != y->to_host)
		return x->to_host < y->to_host ? -1 : 1;
	if (x->to_tid != y->to_tid)
		return x->to_tid < y->to_tid ? -1 : 1;
	return x->to_ts < y->to_ts ? -1 : x->to_ts > y->to_ts;
}

static struct jank_clocksync *sync_of(const struct jank_crosshost *x, unsigned a, unsigned b)
{
	return &x->sync[(size_t)a * x->nsync + b];
}

/* A message from host `from` at s to host `to` at r, into their pair's clock. */
static void feed_clock(struct jank_crosshost *x, unsigned from, int64_t s, unsigned to, int64_t r)
{
	if (from < to)
		jank_clocksync_a_to_b(sync_of(x, from, to), s, r);
	else
		jank_clocksync_b_to_a(sync_of(x, to, from), s, r);
}

static int add_pair(struct jank_crosshost *x, const struct xevent *from, const struct xevent *to)
{
	if (x->npairs == x->pairs_cap) {
		size_t cap = jank_array_grow(&x->pairs, sizeof(*x->pairs), x->pairs_cap, 64);

		if (!cap)
			return -ENOMEM;
		x->pairs_cap = cap;
	}
	x->pairs[x->npairs++] = (struct xpair){ to->host,  to->tid,  to->ts,  from->host,
						from->tid, from->ts, to->flow };
	feed_clock(x, from->host, from->ts, to->host, to->ts);
	return 0;
}

/* One (flow, key): its n-th `to` with its n-th `from`, when they are on different hosts. */
static int pair_group(struct jank_crosshost *x, size_t first, size_t end)
{
	size_t tos = first, nfrom;

	while (tos < end && !x->ev[tos].to)
		tos++;
	nfrom = tos - first;
	for (size_t i = 0; tos + i < end; i++) {
		const struct xevent *to = &x->ev[tos + i];

		if (i >= nfrom || x->ev[first + i].host == to->host ||
		    !flow_on(x, to->flow, to->host) ||
		    !flow_on(x, to->flow, x->ev[first + i].host)) {
			x->stats.unpaired++;
			continue;
		}
		if (add_pair(x, &x->ev[first + i], to) < 0)
			return -ENOMEM;
	}
	return 0;
}

int jank_crosshost_pair(struct jank_crosshost *x)
{
	size_t n = x->nhosts ? x->nhosts : 1;

	free(x->sync);
	x->sync = calloc(n * n, sizeof(*x->sync));
	if (!x->sync)
		return -ENOMEM;
	x->nsync = n;
	for (size_t i = 0; i < n * n; i++)
		jank_clocksync_init(&x->sync[i]);
	x->npairs = 0;
	x->stats.unpaired = 0;
	if (x->nev > 1)
		jank_sort(x->ev, x->nev, sizeof(*x->ev), cmp_event);
	for (size_t i = 0, j; i < x->nev; i = j) {
		for (j = i + 1; j < x->nev && x->ev[j].flow == x->ev[i].flow &&
				!strcmp(x->ev[j].key, x->ev[i].key);
		     j++)
			;
		if (pair_group(x, i, j) < 0)
			return -ENOMEM;
	}
	x->stats.pairs = x->npairs;
	if (x->npairs > 1)
		jank_sort(x->pairs, x->npairs, sizeof(*x->pairs), cmp_pair);
	return 0;
}

void jank_crosshost_offset(const struct jank_crosshost *x, unsigned a, unsigned b, int64_t t,
			   struct jank_clock_offset *out)
{
	memset(out, 0, sizeof(*out));
	out->consistent = true;
	if (a == b || a >= x->nsync || b >= x->nsync) {
		out->lo = out->hi = 0;
		return;
	}
	if (a < b) {
		jank_clocksync_at(sync_of(x, a, b), t, out);
		return;
	}
	/* b is the pair's reference: a's time = b's - (b's offset at a's time). */
	{
		struct jank_clock_offset r;
		int64_t ta;

		jank_clocksync_at(sync_of(x, b, a), t, &r);
		ta = t - r.offset;
		jank_clocksync_at(sync_of(x, b, a), ta, &r);
		*out = r;
		out->offset = -r.offset;
		out->lo = r.hi == INT64_MAX ? INT64_MIN : -r.hi;
		out->hi = r.lo == INT64_MIN ? INT64_MAX : -r.lo;
		out->a_to_b = r.b_to_a;
		out->b_to_a = r.a_to_b;
	}
}

int64_t jank_crosshost_convert(const struct jank_crosshost *x, unsigned a, unsigned b, int64_t t)
{
	struct jank_clock_offset o;

	if (a == b)
		return t;
	jank_crosshost_offset(x, a, b, t, &o);
	return t + o.offset;
}

/* The latest pair whose `to` is on (host, tid) within (lo, hi]; NULL when none. */
static const struct xpair *find_pair(const struct jank_crosshost *x, unsigned host, int32_t tid,
				     int64_t lo, int64_t hi)
{
	struct xpair key = { .to_host = host, .to_tid = tid, .to_ts = hi };
	const struct xpair *p;
	size_t l = 0, h = x->npairs;

	/* The first pair after key. */
	while (l < h) {
		size_t m = l + (h - l) / 2;

		if (cmp_pair(&x->pairs[m], &key) <= 0)
			l = m + 1;
		else
			h = m;
	}
	if (l == 0)
		return NULL;
	p = &x->pairs[l - 1];

	if (p->to_host != host || p->to_tid != tid || p->to_ts <= lo)
		return NULL;
	return p;
}

/* ---- Joining paths ---- */

static uint32_t copy_label(struct jank_path *dst, const struct jank_path *src, uint32_t id,
			   int *err)
{
	const struct jank_label *l = jank_path_label_of(src, id);
	uint32_t r;

	if (!l)
		return 0;
	r = jank_path_label(dst, l->name, l->key);
	if (!r)
		*err = -ENOMEM;
	return r;
}

/* A stack of src as one of dst, its frames by name (addresses of two hosts may coincide). */
static uint32_t copy_stack(struct jank_path *dst, const struct jank_path *src, uint32_t id,
			   int *err)
{
	uint32_t n, ids[JANK_STACK_DEPTH], r;
	const uint32_t *f = jank_path_stack_of(src, id, &n);

	if (!f)
		return 0;
	if (n > JANK_STACK_DEPTH)
		n = JANK_STACK_DEPTH;
	for (uint32_t k = 0; k < n; k++) {
		const struct jank_frame *fr = jank_path_frame_of(src, f[k]);

		ids[k] = jank_path_frame(dst, 0, fr ? fr->pid : -1, fr && fr->kernel,
					 fr && fr->name[0] ? fr->name : "?");
		if (!ids[k]) {
			*err = -ENOMEM;
			return 0;
		}
	}
	r = jank_path_stack(dst, ids, n);
	if (!r)
		*err = -ENOMEM;
	return r;
}

/*
 * Segment s of src over [b, e) appended to dst, its labels and stack copied;
 * its host `host` (NULL: src's label), its flow `flow` when it has none (0: none).
 */
static int append(struct jank_path *dst, const struct jank_path *src, const struct jank_segment *s,
		  int64_t b, int64_t e, const char *host, uint32_t flow)
{
	struct jank_segment *d;
	int err = 0;

	if (e <= b)
		return 0;
	if (dst->n == dst->cap) {
		size_t cap = jank_array_grow(&dst->segs, sizeof(*dst->segs), dst->cap, 16);

		if (!cap)
			return -ENOMEM;
		dst->cap = cap;
	}
	d = &dst->segs[dst->n];
	*d = *s;
	d->begin = b;
	d->end = e;
	d->flow = s->flow ? copy_label(dst, src, s->flow, &err) : flow;
	d->span = copy_label(dst, src, s->span, &err);
	d->host = host ? jank_path_host(dst, host) : copy_label(dst, src, s->host, &err);
	d->stack = copy_stack(dst, src, s->stack, &err);
	if (err || !d->host)
		return -ENOMEM;
	dst->n++;
	return 0;
}

static int join(struct jank_crosshost *x, unsigned host, const struct jank_path *p, unsigned depth,
		struct jank_path *out);

/* The latest crossing on p: the pair, or NULL. */
static const struct xpair *crossing(const struct jank_crosshost *x, unsigned host,
				    const struct jank_path *p)
{
	for (size_t i = p->n; i-- > 0;) {
		const struct jank_segment *s = &p->segs[i];
		const struct xpair *pr = find_pair(x, host, s->tid, s->begin, s->end);

		if (pr && x->hosts[pr->from_host].g)
			return pr;
	}
	return NULL;
}

/* The path of the pair's `from` thread on its host, back to `begin` (host's clock), joined. */
static int remote_part(struct jank_crosshost *x, unsigned host, const struct xpair *pr,
		       int64_t begin, unsigned depth, struct jank_path *sub)
{
	const struct xhost *rh = &x->hosts[pr->from_host];
	int64_t b = jank_crosshost_convert(x, pr->from_host, host, begin);
	const struct jank_thread *w = jank_graph_find_any(rh->g, pr->from_tid);
	struct jank_path q;
	int r;

	if (b > pr->from_ts)
		b = pr->from_ts;
	jank_path_init(&q);
	r = w ? jank_critpath_compute_thread(rh->g, w, b, pr->from_ts, &q)
	      : jank_critpath_compute(rh->g, pr->from_tid, b, pr->from_ts, &q);
	if (r == -ENOMEM) {
		jank_path_fini(&q);
		return r;
	}
	jank_path_name_frames(&q, rh->namer, rh->namer_data);
	r = join(x, pr->from_host, &q, depth + 1, sub);
	jank_path_fini(&q);
	return r < 0 ? r : 0;
}

/* sub (on host `from`'s clock) onto out over [begin, t0] of host's clock, in order, tiling. */
static int append_converted(struct jank_crosshost *x, unsigned host, unsigned from,
			    const struct jank_path *sub, int64_t begin, int64_t t0,
			    struct jank_path *out)
{
	static const struct jank_segment unknown = { .state = JANK_STATE_UNKNOWN, .tid = -1 };
	int64_t at = begin;
	int r = 0;

	if (sub->n == 0)
		return append(out, sub, &unknown, begin, t0, x->hosts[from].name, 0);
	for (size_t i = 0; r == 0 && i < sub->n; i++) {
		int64_t e = i + 1 == sub->n
				    ? t0
				    : jank_crosshost_convert(x, host, from, sub->segs[i].end);

		if (e > t0)
			e = t0;
		if (e > at) {
			r = append(out, sub, &sub->segs[i], at, e, NULL, 0);
			at = e;
		}
	}
	return r;
}

static int join(struct jank_crosshost *x, unsigned host, const struct jank_path *p, unsigned depth,
		struct jank_path *out)
{
	const struct xpair *pr = depth < JANK_CROSSHOST_MAX_HOPS ? crossing(x, host, p) : NULL;
	const char *name = x->hosts[host].name;
	int64_t t0 = p->begin, t1 = p->begin;
	uint32_t flow = 0;
	int r = 0;

	out->tid = p->tid;
	out->begin = p->begin;
	out->end = p->end;
	out->truncated |= p->truncated;
	out->incomplete |= p->incomplete;
	if (pr) {
		t1 = pr->to_ts;
		/* A segment never begins before its cause: the `from` is at or before the `to`. */
		t0 = jank_crosshost_convert(x, host, pr->from_host, pr->from_ts);
		if (t0 > t1)
			t0 = t1;
		if (t0 <= p->begin) /* handed over before the bound: nothing changes */
			pr = NULL;
	}
	if (pr) {
		struct jank_path sub;

		jank_path_init(&sub);
		r = remote_part(x, host, pr, p->begin, depth, &sub);
		if (r == 0)
			r = append_converted(x, host, pr->from_host, &sub, p->begin, t0, out);
		out->truncated |= sub.truncated;
		out->incomplete |= sub.incomplete;
		jank_path_fini(&sub);
		if (pr->flow < x->nflows && r == 0 &&
		    !(flow = jank_path_label(out, x->flows[pr->flow].name, "")))
			r = -ENOMEM;
		x->stats.crossings++;
	} else {
		t0 = p->begin;
	}
	for (size_t i = 0; r == 0 && i < p->n; i++) {
		const struct jank_segment *s = &p->segs[i];
		int64_t b = s->begin > t0 ? s->begin : t0;

		if (s->end <= t0)
			continue;
		/* From t0 to t1 the thread waited for the work the flow brought: labelled. */
		if (b < t1 && s->end > t1) {
			r = append(out, p, s, b, t1, name, flow);
			b = t1;
		}
		if (r == 0)
			r = append(out, p, s, b, s->end, name, b < t1 ? flow : 0);
	}
	if (r < 0)
		out->incomplete = true;
	return r < 0 ? r : pr != NULL;
}

int jank_crosshost_splice(const struct jank_path *local, const char *host,
			  const struct jank_path *remote, const char *from_host, int64_t offset,
			  int64_t t0, int64_t t1, const char *flow, struct jank_path *out)
{
	static const struct jank_segment unseen = { .state = JANK_STATE_UNKNOWN, .tid = -1 };
	int64_t at = local->begin;
	uint32_t fl = 0;
	int r = 0;

	out->n = 0;
	out->tid = local->tid;
	out->begin = local->begin;
	out->end = local->end;
	out->truncated = local->truncated || (remote && remote->truncated);
	out->incomplete = local->incomplete || (remote && remote->incomplete);
	if (t1 > local->end)
		t1 = local->end;
	if (t0 > t1) /* a segment never begins before its cause */
		t0 = t1;
	if (t0 < local->begin)
		t0 = local->begin;
	if (t0 > local->begin && (!remote || remote->n == 0))
		r = append(out, local, &unseen, local->begin, t0, from_host, 0);
	for (size_t i = 0; r == 0 && remote && i < remote->n && at < t0; i++) {
		int64_t e = i + 1 == remote->n ? t0 : remote->segs[i].end + offset;

		if (e > t0)
			e = t0;
		if (e > at) {
			/* A segment of a third host, joined already, keeps its host. */
			r = append(out, remote, &remote->segs[i], at, e,
				   remote->segs[i].host ? NULL : from_host, 0);
			at = e;
		}
	}
	if (r == 0 && t0 < t1 && !(fl = jank_path_label(out, flow, "")))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < local->n; i++) {
		const struct jank_segment *s = &local->segs[i];
		int64_t b = s->begin > t0 ? s->begin : t0;

		if (s->end <= t0)
			continue;
		if (b < t1 && s->end > t1) {
			r = append(out, local, s, b, t1, host, fl);
			b = t1;
		}
		if (r == 0)
			r = append(out, local, s, b, s->end, host, b < t1 ? fl : 0);
	}
	if (r < 0)
		out->incomplete = true;
	return r;
}

/* Whether live's segment s is on a host other than `host`. */
static bool elsewhere(const struct jank_path *live, const struct jank_segment *s, const char *host)
{
	const struct jank_label *l = s->host ? jank_path_label_of(live, s->host) : NULL;

	return l && strcmp(l->name, host) != 0;
}

/* The end of the run of live's segments elsewhere from i on; *next: the segment after it. */
static int64_t run_end(const struct jank_path *live, size_t i, const char *host, size_t *next)
{
	while (i < live->n && elsewhere(live, &live->segs[i], host))
		i++;
	*next = i;
	return live->segs[i - 1].end;
}

/* local's segments over [from, to), on host. */
static int append_local(struct jank_path *out, const struct jank_path *local, const char *host,
			int64_t from, int64_t to)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < local->n; i++) {
		const struct jank_segment *s = &local->segs[i];
		int64_t b = s->begin > from ? s->begin : from, e = s->end < to ? s->end : to;

		r = append(out, local, s, b, e, host, 0);
	}
	return r;
}

int jank_crosshost_overlay(const struct jank_path *local, const char *host,
			   const struct jank_path *live, struct jank_path *out)
{
	int64_t at = local->begin;
	bool crossed = false;
	size_t i = 0;
	int r = 0;

	out->n = 0;
	out->tid = local->tid;
	out->begin = local->begin;
	out->end = local->end;
	out->truncated = local->truncated;
	out->incomplete = local->incomplete;
	while (r == 0 && i < live->n) {
		size_t next;
		int64_t b, e;

		if (!elsewhere(live, &live->segs[i], host)) {
			i++;
			continue;
		}
		b = live->segs[i].begin > at ? live->segs[i].begin : at;
		e = run_end(live, i, host, &next);
		if (e > local->end)
			e = local->end;
		if (e > b) {
			r = append_local(out, local, host, at, b);
			for (; r == 0 && i < next; i++) {
				const struct jank_segment *s = &live->segs[i];
				int64_t sb = s->begin > b ? s->begin : b,
					se = s->end < e ? s->end : e;

				r = append(out, live, s, sb, se, NULL, 0);
			}
			at = e;
			crossed = true;
		}
		i = next;
	}
	if (r == 0)
		r = append_local(out, local, host, at, local->end);
	if (r < 0)
		out->incomplete = true;
	return r < 0 ? r : crossed;
}

int jank_crosshost_path(struct jank_crosshost *x, unsigned host, const struct jank_path *local,
			struct jank_path *out)
{
	out->n = 0;
	out->truncated = false;
	out->incomplete = false;
	if (host >= x->nhosts)
		return -EINVAL;
	return join(x, host, local, 0, out);
}

void jank_crosshost_get_stats(const struct jank_crosshost *x, struct jank_crosshost_stats *out)
{
	*out = x->stats;
}
