/* SPDX-License-Identifier: MIT */
/*
 * Kernel network matching (netmatch.h): a ring of the latest segments of
 * all hosts, two chains per segment through hash maps of their newest
 * event (the connection and sequence bucket; the NAT fallback key).
 */
#include <stdlib.h>
#include <string.h>
#include "hashmap.h"
#include "netmatch.h"

#define MAX_HOST    1024
#define SEQ_BUCKET  16 /* bits: a send's payload (at most 64 KiB) spans two buckets at most */
#define BUCKET_MASK ((1u << (32 - SEQ_BUCKET)) - 1) /* the buckets wrap with the sequence */

struct nev {
	uint64_t seq; /* 0: empty; the n-th noted event has seq n */
	uint64_t h_tuple, h_fb;
	uint64_t prev_tuple, prev_fb; /* the chains' next older event (its seq), 0: none */
	uint16_t host;
	bool recv;
	bool used; /* a receive matched; a send matched at least once */
	int32_t tid;
	int64_t ts;
	struct jank_tcp_seg s;
};

struct jank_netmatch {
	struct nev *ring;
	size_t cap;
	uint64_t seq;
	struct jank_hashmap tuple, fb;
	struct jank_hashmap addrs;	 /* an address's hash -> its host + 1, or ADDR_SHARED */
	uint8_t addressed[MAX_HOST / 8]; /* hosts with an address learned */
	struct jank_netmatch_stats stats;
};

#define ADDR_SHARED ((uintptr_t)MAX_HOST + 1) /* an address more than one host sends from */

/* ---- Decoding ---- */

static bool field_uint(const struct jank_event *ev, unsigned i, uint64_t max, uint64_t *v)
{
	const struct jank_value *f = i < ev->nfields ? &ev->fields[i] : NULL;

	if (!f || (f->type != JANK_VALUE_UINT && f->type != JANK_VALUE_INT))
		return false;
	if (f->type == JANK_VALUE_INT && f->i < 0)
		return false;
	*v = f->type == JANK_VALUE_UINT ? f->u : (uint64_t)f->i;
	return *v <= max;
}

/* An address: 4 bytes (IPv4), 16 bytes or 8 16-bit words (IPv6). 0: none, else the family. */
static int field_addr(const struct jank_event *ev, unsigned i, uint8_t out[16])
{
	const struct jank_value *f = i < ev->nfields ? &ev->fields[i] : NULL;

	memset(out, 0, 16);
	if (!f || f->type != JANK_VALUE_ARRAY || !f->a.v)
		return 0;
	if (f->a.n == 4 || f->a.n == 16) {
		for (uint32_t k = 0; k < f->a.n; k++) {
			if (f->a.v[k] > 0xff)
				return 0;
			out[k] = (uint8_t)f->a.v[k];
		}
		return f->a.n == 4 ? 4 : 6;
	}
	if (f->a.n == 8) {
		for (uint32_t k = 0; k < 8; k++) {
			if (f->a.v[k] > 0xffff)
				return 0;
			out[2 * k] = (uint8_t)(f->a.v[k] >> 8);
			out[2 * k + 1] = (uint8_t)f->a.v[k];
		}
		return 6;
	}
	return 0;
}

bool jank_tcp_seg_from_event(const struct jank_event *ev, struct jank_tcp_seg *out)
{
	uint64_t sport, dport, seq, ack, doff, flags, tot, ihl, hdr;
	int fs = field_addr(ev, JANK_F_NET_SADDR, out->saddr);
	int fd = field_addr(ev, JANK_F_NET_DADDR, out->daddr);

	/* Only a TCP header has a sequence number (UDP's and ICMP's options have none). */
	if (!fs || fs != fd || !field_uint(ev, JANK_F_NET_SPORT, 0xffff, &sport) ||
	    !field_uint(ev, JANK_F_NET_DPORT, 0xffff, &dport) ||
	    !field_uint(ev, JANK_F_NET_SEQ, 0xffffffffu, &seq) ||
	    !field_uint(ev, JANK_F_NET_ACK_SEQ, 0xffffffffu, &ack) ||
	    !field_uint(ev, JANK_F_NET_DATA_OFFSET, 15, &doff) ||
	    !field_uint(ev, JANK_F_NET_FLAGS, 0x1ff, &flags) || doff < 5)
		return false;
	if (fs == 4) {
		if (!field_uint(ev, JANK_F_NET_TOT_LEN, 0xffff, &tot))
			return false;
		if (!field_uint(ev, JANK_F_NET_IHL, 15, &ihl))
			ihl = 5;
		if (ihl < 5)
			return false;
		hdr = 4 * ihl + 4 * doff;
	} else {
		if (!field_uint(ev, JANK_F_NET_PAYLOAD_LEN, 0xffff, &tot))
			return false;
		hdr = 4 * doff; /* extension headers: none on the TCP segments we match */
	}
	out->family = (uint8_t)fs;
	out->sport = (uint16_t)sport;
	out->dport = (uint16_t)dport;
	out->seq = (uint32_t)seq;
	out->ack_seq = (uint32_t)ack;
	out->flags = (uint16_t)flags;
	/* GSO and TSO packets carry 0 or a truncated length: at least what the headers say. */
	out->len = tot > hdr ? (uint32_t)(tot - hdr) : 0;
	return true;
}

/* ---- Keys ---- */

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t tuple_hash(const struct jank_tcp_seg *s, uint32_t bucket)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = mix(h, &s->family, 1);
	h = mix(h, s->saddr, 16);
	h = mix(h, s->daddr, 16);
	h = mix(h, &s->sport, 2);
	h = mix(h, &s->dport, 2);
	h = mix(h, &bucket, 4);
	return jank_hash64(h);
}

static uint64_t fb_hash(const struct jank_tcp_seg *s)
{
	uint64_t h = 0x84222325cbf29ce4ull;

	h = mix(h, &s->seq, 4);
	h = mix(h, &s->ack_seq, 4);
	h = mix(h, &s->flags, 2);
	return jank_hash64(h);
}

static bool same_tuple(const struct jank_tcp_seg *a, const struct jank_tcp_seg *b)
{
	return a->family == b->family && a->sport == b->sport && a->dport == b->dport &&
	       !memcmp(a->saddr, b->saddr, 16) && !memcmp(a->daddr, b->daddr, 16);
}

/* Whether the receive r is of the send s: in its range, or the same header without payload. */
static bool in_range(const struct jank_tcp_seg *s, const struct jank_tcp_seg *r)
{
	if (!s->len)
		return r->seq == s->seq && r->ack_seq == s->ack_seq && r->flags == s->flags;
	return (uint32_t)(r->seq - s->seq) < s->len;
}

static bool same_fb(const struct jank_tcp_seg *s, const struct jank_tcp_seg *r)
{
	return s->seq == r->seq && s->ack_seq == r->ack_seq && s->flags == r->flags;
}

/* ---- The hosts' addresses ---- */

static bool loopback(const struct jank_tcp_seg *s, const uint8_t *a)
{
	static const uint8_t v6[16] = { [15] = 1 };

	return s->family == 4 ? a[0] == 127 : !memcmp(a, v6, 16);
}

static uint64_t addr_hash(const struct jank_tcp_seg *s, const uint8_t *a)
{
	return jank_hash64(mix(mix(0x9e3779b97f4a7c15ull, &s->family, 1), a, 16));
}

/* Address a is host's (it sends from it, or a NAT shows its sends from it). */
static void learn(struct jank_netmatch *m, unsigned host, const struct jank_tcp_seg *s,
		  const uint8_t *a)
{
	uint64_t h = addr_hash(s, a);
	uintptr_t was = (uintptr_t)jank_hashmap_get(&m->addrs, h);

	if (loopback(s, a) || was == host + 1 || was == ADDR_SHARED)
		return;
	if (!was && m->addrs.count >= JANK_NETMATCH_ADDRS) {
		m->stats.addrs_refused++;
		return;
	}
	if (jank_hashmap_put(&m->addrs, h, (void *)(was ? ADDR_SHARED : host + 1)) == 0 && !was) {
		m->stats.addrs++;
		m->addressed[host / 8] |= (uint8_t)(1u << (host % 8));
	}
}

/* ---- The ring ---- */

struct jank_netmatch *jank_netmatch_new(size_t max_events)
{
	struct jank_netmatch *m = calloc(1, sizeof(*m));

	if (max_events < 16)
		max_events = 16;
	if (!m)
		return NULL;
	m->ring = calloc(max_events, sizeof(*m->ring));
	if (!m->ring) {
		free(m);
		return NULL;
	}
	m->cap = max_events;
	jank_hashmap_init(&m->tuple);
	jank_hashmap_init(&m->fb);
	jank_hashmap_init(&m->addrs);
	return m;
}

void jank_netmatch_free(struct jank_netmatch *m)
{
	if (!m)
		return;
	jank_hashmap_fini(&m->tuple);
	jank_hashmap_fini(&m->fb);
	jank_hashmap_fini(&m->addrs);
	free(m->ring);
	free(m);
}

static struct nev *at_seq(const struct jank_netmatch *m, uint64_t seq)
{
	struct nev *e = seq ? &m->ring[(seq - 1) % m->cap] : NULL;

	return e && e->seq == seq ? e : NULL;
}

/* The slot of the next event: its old event leaves the ring (and its chains, being the oldest). */
static struct nev *take_slot(struct jank_netmatch *m)
{
	struct nev *e = &m->ring[m->seq % m->cap];

	if (!e->seq)
		return e;
	if (!e->used) {
		if (e->recv)
			m->stats.evicted_recvs++;
		else
			m->stats.evicted_sends++;
	}
	if ((uintptr_t)jank_hashmap_get(&m->tuple, e->h_tuple) == e->seq)
		jank_hashmap_remove(&m->tuple, e->h_tuple);
	if ((uintptr_t)jank_hashmap_get(&m->fb, e->h_fb) == e->seq)
		jank_hashmap_remove(&m->fb, e->h_fb);
	m->stats.kept--;
	return e;
}

static size_t tell(struct jank_netmatch *m, const struct nev *snd, struct nev *rcv, bool fallback,
		   struct jank_netmatch_pair *out, size_t max, size_t told)
{
	rcv->used = true;
	((struct nev *)snd)->used = true;
	m->stats.pairs++;
	m->stats.fallback += fallback;
	if (fallback) /* the sender's address as the receiver sees it (NAT) */
		learn(m, snd->host, &rcv->s, rcv->s.saddr);
	if (told >= max)
		return told;
	out[told] = (struct jank_netmatch_pair){ .from_host = snd->host,
						 .to_host = rcv->host,
						 .from_tid = snd->tid,
						 .to_tid = rcv->tid,
						 .from_ts = snd->ts,
						 .to_ts = rcv->ts,
						 .fallback = fallback,
						 .recv_id = rcv->seq };
	return told + 1;
}

/* The newest send of another host that the receive e is of, by its connection, then by NAT's key.
 */
static struct nev *send_of(struct jank_netmatch *m, const struct nev *e, bool *fallback)
{
	unsigned walked = 0;

	for (int k = 0; k < 2; k++) {
		uint32_t b = ((e->s.seq >> SEQ_BUCKET) - (uint32_t)k) & BUCKET_MASK;
		uint64_t h = tuple_hash(&e->s, b);

		for (struct nev *o = at_seq(m, (uintptr_t)jank_hashmap_get(&m->tuple, h)); o;
		     o = at_seq(m, o->prev_tuple)) {
			if (++walked > JANK_NETMATCH_WALK) {
				m->stats.walks_cut++;
				break;
			}
			if (!o->recv && o->host != e->host && o->h_tuple == h &&
			    same_tuple(&o->s, &e->s) && in_range(&o->s, &e->s)) {
				*fallback = false;
				return o;
			}
		}
	}
	walked = 0;
	for (struct nev *o = at_seq(m, (uintptr_t)jank_hashmap_get(&m->fb, e->h_fb)); o;
	     o = at_seq(m, o->prev_fb)) {
		if (++walked > JANK_NETMATCH_WALK) {
			m->stats.walks_cut++;
			break;
		}
		if (!o->recv && o->host != e->host && same_fb(&o->s, &e->s)) {
			*fallback = true;
			return o;
		}
	}
	return NULL;
}

/* The receives of other hosts, not matched yet, that the send e carried. */
static size_t recvs_of(struct jank_netmatch *m, struct nev *e, struct jank_netmatch_pair *out,
		       size_t max)
{
	size_t told = 0;
	unsigned walked = 0;

	for (int k = 0; k < 2; k++) {
		uint32_t b = ((e->s.seq >> SEQ_BUCKET) + (uint32_t)k) & BUCKET_MASK;
		uint64_t h = tuple_hash(&e->s, b);

		for (struct nev *o = at_seq(m, (uintptr_t)jank_hashmap_get(&m->tuple, h)); o;
		     o = at_seq(m, o->prev_tuple)) {
			if (++walked > JANK_NETMATCH_WALK) {
				m->stats.walks_cut++;
				break;
			}
			if (o->recv && !o->used && o->host != e->host && o->h_tuple == h &&
			    same_tuple(&o->s, &e->s) && in_range(&e->s, &o->s))
				told = tell(m, e, o, false, out, max, told);
		}
	}
	walked = 0;
	for (struct nev *o = at_seq(m, (uintptr_t)jank_hashmap_get(&m->fb, e->h_fb)); o;
	     o = at_seq(m, o->prev_fb)) {
		if (++walked > JANK_NETMATCH_WALK) {
			m->stats.walks_cut++;
			break;
		}
		if (o->recv && !o->used && o->host != e->host && same_fb(&e->s, &o->s))
			told = tell(m, e, o, true, out, max, told);
	}
	return told;
}

size_t jank_netmatch_note(struct jank_netmatch *m, unsigned host, bool recv, int32_t tid,
			  int64_t ts, const struct jank_tcp_seg *seg,
			  struct jank_netmatch_pair *out, size_t max)
{
	struct nev *e;
	bool fallback = false;
	size_t told;

	if (host >= MAX_HOST || (seg->family != 4 && seg->family != 6)) {
		m->stats.refused++;
		return 0;
	}
	e = take_slot(m);
	memset(e, 0, sizeof(*e));
	e->seq = ++m->seq;
	e->host = (uint16_t)host;
	e->recv = recv;
	e->tid = tid;
	e->ts = ts;
	e->s = *seg;
	e->h_tuple = tuple_hash(seg, seg->seq >> SEQ_BUCKET);
	e->h_fb = fb_hash(seg);
	m->stats.kept++;
	if (recv) {
		m->stats.recvs++;
	} else {
		m->stats.sends++;
		learn(m, host, seg, seg->saddr);
	}
	/* Look before this event joins its chains: it does not match itself. */
	if (recv) {
		struct nev *snd = send_of(m, e, &fallback);

		told = snd ? tell(m, snd, e, fallback, out, max, 0) : 0;
	} else {
		told = recvs_of(m, e, out, max);
	}
	e->prev_tuple = (uintptr_t)jank_hashmap_get(&m->tuple, e->h_tuple);
	e->prev_fb = (uintptr_t)jank_hashmap_get(&m->fb, e->h_fb);
	if (jank_hashmap_put(&m->tuple, e->h_tuple, (void *)(uintptr_t)e->seq) < 0)
		e->prev_tuple = 0; /* out of memory: its chain starts again here */
	if (jank_hashmap_put(&m->fb, e->h_fb, (void *)(uintptr_t)e->seq) < 0)
		e->prev_fb = 0;
	return told;
}

bool jank_netmatch_host_addressed(const struct jank_netmatch *m, unsigned host)
{
	return host < MAX_HOST && (m->addressed[host / 8] & (1u << (host % 8)));
}

bool jank_netmatch_recv_untraced(const struct jank_netmatch *m, uint64_t recv_id)
{
	const struct nev *e = at_seq(m, recv_id);
	uintptr_t who;

	if (!e || !e->recv || e->used)
		return false;
	if (loopback(&e->s, e->s.saddr))
		return true;
	who = (uintptr_t)jank_hashmap_get(&m->addrs, addr_hash(&e->s, e->s.saddr));
	return !who || who == (uintptr_t)e->host + 1;
}

uint64_t jank_netmatch_last_id(const struct jank_netmatch *m)
{
	return m->seq;
}

void jank_netmatch_get_stats(const struct jank_netmatch *m, struct jank_netmatch_stats *out)
{
	*out = m->stats;
	out->max_events = m->cap;
	out->bytes = m->cap * sizeof(*m->ring) + jank_hashmap_bytes(&m->tuple) +
		     jank_hashmap_bytes(&m->fb) + jank_hashmap_bytes(&m->addrs);
}
