/* SPDX-License-Identifier: MIT */
/*
 * The online join of several hosts' flows (hostjoin.h): one ring of the
 * flow events the workers reported, a chain per (flow, key) through a hash
 * map of its newest event, and one clock per pair of hosts that exchanged a
 * message.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "hashmap.h"
#include "hostjoin.h"
#include "textsafe.h"

struct hev {
	uint64_t seq; /* 0: empty; the n-th noted event has seq n */
	uint64_t hash;
	uint64_t prev; /* the chain's next older event (its seq), 0: none */
	uint16_t host, from_host;
	bool to;
	bool used; /* a `from` given to a `to`, a `to` paired */
	int32_t tid, from_tid;
	int64_t ts, from_ts;
	char flow[JANK_LABEL_NAME_LEN];
	char key[JANK_LABEL_KEY_LEN];
};

struct hclock {
	uint16_t a, b;
	int64_t last_b; /* the latest message's time on b's clock */
	struct jank_clocksync cs;
};

struct jank_hostjoin {
	char hosts[JANK_HOSTJOIN_MAX_HOSTS][JANK_LABEL_NAME_LEN];
	size_t nhosts;
	struct hev *ring;
	size_t cap;
	uint64_t seq;		 /* the last noted */
	struct jank_hashmap idx; /* hash of (flow, key) -> the chain's newest seq */
	struct hclock *clocks;
	size_t nclocks, clocks_cap;
	jank_hostjoin_allow_fn allow;
	void *allow_data;
	struct jank_hostjoin_stats stats;
};

void jank_hostjoin_set_allow(struct jank_hostjoin *j, jank_hostjoin_allow_fn fn, void *data)
{
	j->allow = fn;
	j->allow_data = data;
}

struct jank_hostjoin *jank_hostjoin_new(size_t max_events)
{
	struct jank_hostjoin *j = calloc(1, sizeof(*j));

	if (max_events < 16)
		max_events = 16;
	if (!j)
		return NULL;
	j->ring = calloc(max_events, sizeof(*j->ring));
	if (!j->ring) {
		free(j);
		return NULL;
	}
	j->cap = max_events;
	jank_hashmap_init(&j->idx);
	return j;
}

void jank_hostjoin_free(struct jank_hostjoin *j)
{
	if (!j)
		return;
	jank_hashmap_fini(&j->idx);
	free(j->ring);
	free(j->clocks);
	free(j);
}

int jank_hostjoin_host(struct jank_hostjoin *j, const char *name)
{
	char n[JANK_LABEL_NAME_LEN];

	jank_utf8_copy(n, sizeof(n), name);
	for (size_t i = 0; i < j->nhosts; i++)
		if (!strcmp(j->hosts[i], n))
			return (int)i;
	if (j->nhosts == JANK_HOSTJOIN_MAX_HOSTS)
		return -E2BIG;
	memcpy(j->hosts[j->nhosts], n, sizeof(n));
	return (int)j->nhosts++;
}

const char *jank_hostjoin_host_name(const struct jank_hostjoin *j, unsigned host)
{
	return host < j->nhosts ? j->hosts[host] : "?";
}

size_t jank_hostjoin_host_count(const struct jank_hostjoin *j)
{
	return j->nhosts;
}

/* FNV-1a over flow, a NUL and key, mixed. */
static uint64_t key_hash(const char *flow, const char *key)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const char *s = flow; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	h *= 0x100000001b3ull;
	for (const char *s = key; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return jank_hash64(h);
}

static struct hev *at_seq(const struct jank_hostjoin *j, uint64_t seq)
{
	struct hev *e = seq ? &j->ring[(seq - 1) % j->cap] : NULL;

	return e && e->seq == seq ? e : NULL;
}

static struct hclock *clock_of(struct jank_hostjoin *j, unsigned a, unsigned b, bool add)
{
	for (size_t i = 0; i < j->nclocks; i++)
		if (j->clocks[i].a == a && j->clocks[i].b == b)
			return &j->clocks[i];
	if (!add || j->nclocks == JANK_HOSTJOIN_MAX_CLOCKS)
		return NULL;
	if (j->nclocks == j->clocks_cap) {
		size_t cap = jank_array_grow(&j->clocks, sizeof(*j->clocks), j->clocks_cap, 4);

		if (!cap)
			return NULL;
		j->clocks_cap = cap;
	}
	j->clocks[j->nclocks] = (struct hclock){ .a = (uint16_t)a, .b = (uint16_t)b };
	jank_clocksync_init(&j->clocks[j->nclocks].cs);
	return &j->clocks[j->nclocks++];
}

/* A message from host `from` at s (its clock) to host `to` at r (its clock). */
static void feed_clock(struct jank_hostjoin *j, unsigned from, int64_t s, unsigned to, int64_t r)
{
	struct hclock *c = clock_of(j, from < to ? from : to, from < to ? to : from, true);

	if (!c) {
		j->stats.refused++;
		return;
	}
	if (from < to) {
		jank_clocksync_a_to_b(&c->cs, s, r);
		c->last_b = r;
	} else {
		jank_clocksync_b_to_a(&c->cs, s, r);
		c->last_b = s;
	}
}

/* The oldest event of e's chain it pairs with: the other role, same flow and key, another host. */
static struct hev *partner(struct jank_hostjoin *j, const struct hev *e)
{
	struct hev *found = NULL;

	if (j->allow && !j->allow(e->flow, j->hosts[e->host], j->allow_data))
		return NULL;
	for (struct hev *o = at_seq(j, e->prev); o; o = at_seq(j, o->prev))
		if (o->to != e->to && !o->used && o->host != e->host && !strcmp(o->key, e->key) &&
		    !strcmp(o->flow, e->flow) &&
		    (!j->allow || j->allow(o->flow, j->hosts[o->host], j->allow_data)))
			found = o;
	return found;
}

static void pair(struct jank_hostjoin *j, struct hev *from, struct hev *to)
{
	from->used = to->used = true;
	to->from_host = from->host;
	to->from_tid = from->tid;
	to->from_ts = from->ts;
	j->stats.pairs++;
	feed_clock(j, from->host, from->ts, to->host, to->ts);
}

/* The slot of the next event: its old event leaves the ring (and its chain, being the oldest). */
static struct hev *take_slot(struct jank_hostjoin *j)
{
	struct hev *e = &j->ring[j->seq % j->cap];

	if (e->seq) {
		void *head = jank_hashmap_get(&j->idx, e->hash);

		if (!e->used)
			j->stats.evicted++;
		if ((uintptr_t)head == e->seq)
			jank_hashmap_remove(&j->idx, e->hash);
		j->stats.kept--;
	}
	return e;
}

void jank_hostjoin_note(struct jank_hostjoin *j, unsigned host, const char *flow, const char *key,
			bool to, int32_t tid, int64_t ts)
{
	struct hev *e, *o;
	uint64_t h;

	if (host >= j->nhosts) {
		j->stats.refused++;
		return;
	}
	h = key_hash(flow, key);
	e = take_slot(j);
	memset(e, 0, sizeof(*e));
	e->seq = ++j->seq;
	e->hash = h;
	e->prev = (uintptr_t)jank_hashmap_get(&j->idx, h);
	e->host = (uint16_t)host;
	e->to = to;
	e->tid = tid;
	e->ts = ts;
	jank_utf8_copy(e->flow, sizeof(e->flow), flow);
	jank_utf8_copy(e->key, sizeof(e->key), key);
	if (jank_hashmap_put(&j->idx, h, (void *)(uintptr_t)e->seq) < 0)
		e->prev = 0; /* out of memory: its chain starts again here */
	j->stats.kept++;
	if (to)
		j->stats.tos++;
	else
		j->stats.froms++;
	o = partner(j, e);
	if (o)
		pair(j, to ? o : e, to ? e : o);
}

/* The segment of p whose (begin, end] holds t, or NULL. */
static const struct jank_segment *segment_at(const struct jank_path *p, int64_t t)
{
	size_t l = 0, h = p->n;

	while (l < h) {
		size_t m = l + (h - l) / 2;

		if (p->segs[m].end < t)
			l = m + 1;
		else
			h = m;
	}
	return l < p->n && p->segs[l].begin < t ? &p->segs[l] : NULL;
}

static void fill(const struct jank_hostjoin *j, const struct hev *e,
		 struct jank_hostjoin_crossing *c)
{
	(void)j;
	memset(c, 0, sizeof(*c));
	c->to_host = e->host;
	c->to_tid = e->tid;
	c->to_ts = e->ts;
	c->paired = e->used;
	c->from_host = e->from_host;
	c->from_tid = e->from_tid;
	c->from_ts = e->from_ts;
	memcpy(c->flow, e->flow, sizeof(c->flow));
	memcpy(c->key, e->key, sizeof(c->key));
}

int jank_hostjoin_crossing(const struct jank_hostjoin *j, unsigned host, const struct jank_path *p,
			   struct jank_hostjoin_crossing *c)
{
	const struct hev *best = NULL;
	size_t n = j->seq < j->cap ? j->seq : j->cap;

	for (size_t i = 0; i < n; i++) {
		const struct hev *e = &j->ring[i];
		const struct jank_segment *s;

		if (!e->seq || !e->to || e->host != host || e->ts <= p->begin || e->ts > p->end ||
		    (best && e->ts <= best->ts) ||
		    (j->allow && !j->allow(e->flow, j->hosts[host], j->allow_data)))
			continue;
		s = segment_at(p, e->ts);
		if (s && s->tid == e->tid)
			best = e;
	}
	if (!best)
		return 0;
	fill(j, best, c);
	return 1;
}

bool jank_hostjoin_refresh(const struct jank_hostjoin *j, struct jank_hostjoin_crossing *c)
{
	uint64_t h = key_hash(c->flow, c->key);

	if (c->paired)
		return true;
	for (const struct hev *e = at_seq(j, (uintptr_t)jank_hashmap_get(&j->idx, h)); e;
	     e = at_seq(j, e->prev))
		if (e->to && e->used && e->host == c->to_host && e->tid == c->to_tid &&
		    e->ts == c->to_ts && !strcmp(e->key, c->key) && !strcmp(e->flow, c->flow)) {
			fill(j, e, c);
			return true;
		}
	return false;
}

void jank_hostjoin_offset(const struct jank_hostjoin *j, unsigned a, unsigned b, int64_t t,
			  struct jank_clock_offset *out)
{
	const struct hclock *c;
	struct jank_clock_offset r;

	memset(out, 0, sizeof(*out));
	out->consistent = true;
	out->lo = INT64_MIN;
	out->hi = INT64_MAX;
	if (a == b) {
		out->lo = out->hi = 0;
		return;
	}
	c = clock_of((struct jank_hostjoin *)j, a < b ? a : b, a < b ? b : a, false);
	if (!c)
		return;
	if (a < b) {
		jank_clocksync_at(&c->cs, t, out);
		return;
	}
	/* b is the pair's reference: a's time = b's - (a's offset to b at a's time). */
	jank_clocksync_at(&c->cs, t, &r);
	jank_clocksync_at(&c->cs, t - r.offset, &r);
	*out = r;
	out->offset = -r.offset;
	out->lo = r.hi == INT64_MAX ? INT64_MIN : -r.hi;
	out->hi = r.lo == INT64_MIN ? INT64_MAX : -r.lo;
	out->a_to_b = r.b_to_a;
	out->b_to_a = r.a_to_b;
}

size_t jank_hostjoin_clock_count(const struct jank_hostjoin *j)
{
	return j->nclocks;
}

void jank_hostjoin_clock_hosts(const struct jank_hostjoin *j, size_t i, unsigned *a, unsigned *b,
			       int64_t *last_b)
{
	*a = i < j->nclocks ? j->clocks[i].a : 0;
	*b = i < j->nclocks ? j->clocks[i].b : 0;
	*last_b = i < j->nclocks ? j->clocks[i].last_b : 0;
}

void jank_hostjoin_get_stats(const struct jank_hostjoin *j, struct jank_hostjoin_stats *out)
{
	*out = j->stats;
	out->max_events = j->cap;
	out->bytes = j->cap * sizeof(*j->ring) + jank_hashmap_bytes(&j->idx) +
		     j->clocks_cap * sizeof(*j->clocks);
}
