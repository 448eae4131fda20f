/* SPDX-License-Identifier: MIT */
/*
 * The supervisor's join of paths across hosts (see crossing.h). Held
 * verdicts are a short list, advanced when flows or answers come and at
 * each check; every answer is matched by its request's id and host, so a
 * worker can answer only what it was asked.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "crosshost.h"
#include "crossing.h"
#include "json-util.h"
#include "log.h"
#include "worker-proto.h"

/*
 * A verdict held for the other hosts' parts of its path. Level 0 is the
 * verdict's path (on host `host`); level k + 1 is the answer to the request
 * made at x[k], the crossing of level k (on the host of x[k]'s `from`).
 */
struct held {
	struct held *next;
	void *in;
	unsigned host;
	struct jank_verdict_decoded *pv;
	struct jank_hostjoin_crossing x[JANK_CROSSING_HOPS];
	struct jank_path answer[JANK_CROSSING_HOPS];
	unsigned n;	   /* crossings found: x[0..n-1] */
	unsigned answered; /* answers: answer[0..answered-1] */
	int64_t id;	   /* of the request for x[n-1], once asked */
	bool asked;
	int64_t deadline;
};

struct jank_crossing {
	jank_crossing_deliver_fn deliver;
	jank_crossing_ask_fn ask;
	void *data;
	int64_t timeout;
	struct jank_hostjoin *join;
	struct jank_netmatch *net; /* the kernel's TCP segments, matched into the join */
	struct held *held;
	int64_t next_id;
	const struct jank_flow_rule *flows;
	size_t nflows;
	struct jank_crossing_stats stats;
};

/* Whether flow `flow` pairs on host `host`: its hosts = names it, or it names none. */
static bool allow(const char *flow, const char *host, void *data)
{
	const struct jank_crossing *c = data;
	size_t n = strlen(host);

	for (size_t i = 0; i < c->nflows; i++) {
		const char *list = c->flows[i].hosts;

		if (strcmp(c->flows[i].name, flow))
			continue;
		if (!list || !list[0])
			return true;
		for (const char *s = list; s; s = strchr(s, ','), s = s ? s + 1 : NULL) {
			while (*s == ' ')
				s++;
			if (!strncmp(s, host, n) && (s[n] == ',' || s[n] == ' ' || s[n] == '\0'))
				return true;
		}
		return false;
	}
	return true;
}

void jank_crossing_set_flows(struct jank_crossing *c, const struct jank_flow_rule *flows, size_t n)
{
	if (!c)
		return;
	c->flows = flows;
	c->nflows = n;
}

struct jank_crossing *jank_crossing_new(jank_crossing_deliver_fn deliver, jank_crossing_ask_fn ask,
					void *data)
{
	struct jank_crossing *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->join = jank_hostjoin_new(JANK_CROSSING_EVENTS);
	c->net = jank_netmatch_new(JANK_CROSSING_SEGMENTS);
	if (!c->join || !c->net) {
		jank_hostjoin_free(c->join);
		jank_netmatch_free(c->net);
		free(c);
		return NULL;
	}
	jank_hostjoin_set_allow(c->join, allow, c);
	c->deliver = deliver;
	c->ask = ask;
	c->data = data;
	c->timeout = JANK_CROSSING_TIMEOUT_NS;
	c->next_id = 1;
	return c;
}

static void held_free(struct held *h)
{
	for (unsigned i = 0; i < JANK_CROSSING_HOPS; i++)
		jank_path_fini(&h->answer[i]);
	jank_verdict_decoded_fini(h->pv);
	free(h->pv);
	free(h);
}

void jank_crossing_free(struct jank_crossing *c)
{
	if (!c)
		return;
	while (c->held) {
		struct held *h = c->held;

		c->held = h->next;
		held_free(h);
	}
	jank_hostjoin_free(c->join);
	jank_netmatch_free(c->net);
	free(c);
}

void jank_crossing_set_timeout(struct jank_crossing *c, int64_t ns)
{
	c->timeout = ns > 0 ? ns : JANK_CROSSING_TIMEOUT_NS;
}

/* The offset of host b's clock to a's (a's time = b's + offset) around t (b's clock). */
static int64_t offset(const struct jank_crossing *c, unsigned a, unsigned b, int64_t t)
{
	struct jank_clock_offset o;

	jank_hostjoin_offset(c->join, a, b, t, &o);
	return o.offset;
}

/* Level k's path and host. */
static const struct jank_path *level_path(const struct held *h, unsigned k)
{
	return k == 0 ? h->pv->v.path : &h->answer[k - 1];
}

static unsigned level_host(const struct held *h, unsigned k)
{
	return k == 0 ? h->host : h->x[k - 1].from_host;
}

/*
 * Level k joined with the levels below it into out: the crossing's part,
 * the deeper levels' joined path (NULL past the answers: not seen), then
 * level k's own segments, every segment naming its host. 0, -ENOENT (its
 * `from` never came and the other host cannot be told), -ENOMEM.
 */
static int join_level(struct jank_crossing *c, const struct held *h, unsigned k,
		      const struct jank_path *below, struct jank_path *out)
{
	const struct jank_path *p = level_path(h, k);
	const char *host = jank_hostjoin_host_name(c->join, level_host(h, k));
	const struct jank_hostjoin_crossing *x = &h->x[k];
	const char *from;
	int64_t off = 0;

	if (k >= h->n) /* the deepest level: its own segments, named */
		return jank_crosshost_splice(p, host, NULL, "", 0, p->begin, p->begin, "", out);
	from = jank_hostjoin_host_name(c->join, x->from_host);
	/* A reception no traced host's send matched may come from anywhere: as its host saw it. */
	if (!x->paired && !strcmp(x->flow, "tcp"))
		return -ENOENT;
	if (!x->paired) {
		/* Its `from` never came: the other host is known only when there is one. */
		from = jank_hostjoin_host_name(c->join, level_host(h, k) == 0);
		if (k > 0 && (jank_hostjoin_host_count(c->join) != 2 || !allow(x->flow, from, c)))
			/* An answer's: the level as its host saw it, joined above. */
			return jank_crosshost_splice(p, host, NULL, "", 0, p->begin, p->begin, "",
						     out);
		if (jank_hostjoin_host_count(c->join) != 2 || !allow(x->flow, from, c))
			return -ENOENT;
		return jank_crosshost_splice(p, host, NULL, from, 0, x->to_ts, x->to_ts, x->flow,
					     out);
	}
	off = offset(c, level_host(h, k), x->from_host, x->from_ts);
	return jank_crosshost_splice(p, host, below, from, off, x->from_ts + off, x->to_ts, x->flow,
				     out);
}

/*
 * The held verdict with its path joined across the levels answered (the
 * next one, if asked, not seen); then delivered and freed.
 */
static void finish(struct jank_crossing *c, struct held *h)
{
	struct jank_verdict v = h->pv->v;
	struct jank_path out[2];
	struct jank_breakdown bd;
	const struct jank_path *below = NULL;
	unsigned cur = 0;
	int r = 0;

	jank_path_init(&out[0]);
	jank_path_init(&out[1]);
	jank_breakdown_init(&bd);
	for (unsigned k = h->answered + 1; r == 0 && k-- > 0;) {
		r = join_level(c, h, k, below, &out[cur]);
		below = &out[cur];
		cur ^= 1;
	}
	if (r == 0)
		r = jank_breakdown_compute(below, &bd);
	if (r == 0) {
		v.path = below;
		v.breakdown = &bd;
		/* What differs from normal actions was measured on this host's part only. */
		v.profile = NULL;
		v.suspects = NULL;
		v.incomplete |= below->incomplete;
	} else if (r == -ENOMEM) {
		jank_log(LOG_ERR, "out of memory: a path is not joined across hosts");
	}
	if (h->answered == h->n)
		c->stats.joined++;
	else
		c->stats.timed_out++;
	c->deliver(h->in, &v, c->data);
	jank_breakdown_fini(&bd);
	jank_path_fini(&out[0]);
	jank_path_fini(&out[1]);
	held_free(h);
}

/* Whether crossing x (paired) of host's path p was sent after p's begin. */
static bool matters(const struct jank_crossing *c, unsigned host, const struct jank_path *p,
		    const struct jank_hostjoin_crossing *x)
{
	return x->from_ts + offset(c, host, x->from_host, x->from_ts) > p->begin;
}

/*
 * A reception of the kernel's no send matched yet, from a peer that no
 * traced host sends from (a client outside the fleet, loopback), once
 * every other host's sends have shown its addresses: no other host's
 * stream will pair it, so nothing waits for one. Until then (a host's
 * stream read late, at the start) it waits as any reception.
 */
static bool untraced_tcp(struct jank_crossing *c, const struct jank_hostjoin_crossing *x)
{
	unsigned long long id;
	char end;

	if (x->paired || strcmp(x->flow, "tcp") || sscanf(x->key, "tcp#%llu%c", &id, &end) != 1 ||
	    !jank_netmatch_recv_untraced(c->net, id))
		return false;
	for (size_t i = 0; i < jank_hostjoin_host_count(c->join); i++)
		if (i != x->to_host && !jank_netmatch_host_addressed(c->net, (unsigned)i))
			return false;
	c->stats.untraced++;
	return true;
}

/* Ask the other host's worker for its path of the sending thread, once the `from` is known. */
static void advance(struct jank_crossing *c, struct held *h)
{
	struct jank_hostjoin_crossing *x = &h->x[h->n - 1];
	unsigned host = level_host(h, h->n - 1);
	struct json_object *msg;
	int64_t begin, e;

	if (h->asked || !jank_hostjoin_refresh(c->join, x))
		return;
	/* An answer's crossing paired late, sent before that level's begin: it does not matter. */
	if (h->n > 1 && !matters(c, host, level_path(h, h->n - 1), x)) {
		h->n--;
		h->deadline = 0; /* joined as it is, at the next check */
		return;
	}
	/* The level's begin on the other host's clock, never after the send. */
	begin = level_path(h, h->n - 1)->begin - offset(c, host, x->from_host, x->from_ts);
	if (begin > x->from_ts)
		begin = x->from_ts;
	h->id = c->next_id++;
	msg = jank_worker_proto_new("path");
	e = !msg;
	e = e || jank_json_add_i64(msg, "id", h->id) < 0;
	e = e || jank_json_add_i64(msg, "tid", x->from_tid) < 0;
	e = e || jank_json_add_i64(msg, "begin", begin) < 0;
	e = e || jank_json_add_i64(msg, "end", x->from_ts) < 0;
	if (e) {
		json_object_put(msg);
		return;
	}
	h->asked = c->ask(jank_hostjoin_host_name(c->join, x->from_host), msg, c->data);
}

/*
 * The answer of level k + 1 came: its own crossing, if it has one that
 * matters (a `from` after its begin), is the next request, now or once its
 * `from` is known (the third host's stream may be read later than the
 * answering host's). Returns true when there is one.
 */
static bool deeper(struct jank_crossing *c, struct held *h)
{
	unsigned k = h->answered, host = level_host(h, k);
	const struct jank_path *p = level_path(h, k);
	struct jank_hostjoin_crossing y;

	if (h->n == JANK_CROSSING_HOPS || jank_hostjoin_crossing(c->join, host, p, &y) <= 0 ||
	    (y.paired && !matters(c, host, p, &y)) || untraced_tcp(c, &y))
		return false;
	h->x[h->n++] = y;
	h->asked = false;
	advance(c, h);
	return true;
}

/* Each held verdict: asked when it can be, finished when its time is up (now < 0: all). */
static void advance_all(struct jank_crossing *c, int64_t now)
{
	struct held **pp = &c->held;

	while (*pp) {
		struct held *h = *pp;

		if (now < 0 || now >= h->deadline) {
			*pp = h->next;
			c->stats.pending--;
			finish(c, h);
			continue;
		}
		advance(c, h);
		pp = &h->next;
	}
}

/*
 * A TCP segment into the kernel matching, and into the flows' join as the
 * flow "tcp": a reception that woke a thread is at once a `to` of its own
 * key (its id), so that a verdict whose path reaches it is held while the
 * sending host's stream lags; each send it matches (now or when it comes)
 * is the `from` of that key.
 */
static void note_tcp(struct jank_crossing *c, unsigned h, const struct jank_worker_proto_flow *f)
{
	struct jank_netmatch_pair p[16];
	size_t n = jank_netmatch_note(c->net, h, f->to, f->tid, f->ts, &f->tcp, p, 16);
	char key[32];

	if (f->to) {
		snprintf(key, sizeof(key), "tcp#%" PRIu64, jank_netmatch_last_id(c->net));
		jank_hostjoin_note(c->join, h, "tcp", key, true, f->tid, f->ts);
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "tcp#%" PRIu64, p[i].recv_id);
		jank_hostjoin_note(c->join, p[i].from_host, "tcp", key, false, p[i].from_tid,
				   p[i].from_ts);
	}
}

int jank_crossing_flows(struct jank_crossing *c, const char *host, struct json_object *msg,
			char *err, size_t len)
{
	struct jank_worker_proto_flows f;
	int h = host ? jank_hostjoin_host(c->join, host) : -EINVAL, r;

	r = jank_worker_proto_flows_decode(msg, &f, err, len);
	if (r < 0)
		return r;
	c->stats.dropped += f.dropped;
	for (size_t i = 0; h >= 0 && i < f.n; i++) {
		if (f.v[i].is_tcp)
			note_tcp(c, (unsigned)h, &f.v[i]);
		else
			jank_hostjoin_note(c->join, (unsigned)h, f.v[i].flow, f.v[i].key, f.v[i].to,
					   f.v[i].tid, f.v[i].ts);
	}
	jank_worker_proto_flows_fini(&f);
	if (c->held)
		advance_all(c, jank_clock_monotonic_ns());
	return 0;
}

void jank_crossing_add_host(struct jank_crossing *c, const char *host)
{
	/* Past the most hosts the join keeps, a host is left out, as when its flows come. */
	(void)jank_hostjoin_host(c->join, host);
}

int jank_crossing_verdict(struct jank_crossing *c, void *in, const char *host,
			  struct jank_verdict_decoded *pv)
{
	struct jank_hostjoin_crossing x;
	struct held *h;
	int hi = host ? jank_hostjoin_host(c->join, host) : -EINVAL;

	/* One host (so far): its `to`s that found no `from` have nowhere else to look. */
	if (hi < 0 || jank_hostjoin_host_count(c->join) < 2 || !pv->v.path ||
	    jank_hostjoin_crossing(c->join, (unsigned)hi, pv->v.path, &x) <= 0 ||
	    untraced_tcp(c, &x))
		return 0;
	if (c->stats.pending == JANK_CROSSING_HELD) {
		c->stats.overflow++;
		return 0;
	}
	h = calloc(1, sizeof(*h));
	if (h)
		h->pv = malloc(sizeof(*h->pv));
	if (!h || !h->pv) {
		free(h);
		return 0;
	}
	/* The verdict points into itself: it moves whole, its pointers made again. */
	*h->pv = *pv;
	h->pv->v.path = &h->pv->path;
	h->pv->v.breakdown = &h->pv->breakdown;
	if (pv->v.suspects == &pv->suspects)
		h->pv->v.suspects = &h->pv->suspects;
	if (pv->v.rule == &pv->rule)
		h->pv->v.rule = &h->pv->rule;
	if (pv->v.key == pv->key)
		h->pv->v.key = h->pv->key;
	if (pv->v.comm == pv->comm)
		h->pv->v.comm = h->pv->comm;
	h->pv->breakdown.path = &h->pv->path;
	memset(pv, 0, sizeof(*pv));
	jank_rule_init(&pv->rule);
	jank_path_init(&pv->path);
	jank_breakdown_init(&pv->breakdown);
	h->in = in;
	h->host = (unsigned)hi;
	h->x[0] = x;
	h->n = 1;
	for (unsigned i = 0; i < JANK_CROSSING_HOPS; i++)
		jank_path_init(&h->answer[i]);
	h->deadline = jank_clock_monotonic_ns() + c->timeout;
	h->next = c->held;
	c->held = h;
	c->stats.held++;
	c->stats.pending++;
	advance(c, h);
	return 1;
}

int jank_crossing_path(struct jank_crossing *c, const char *host, struct json_object *msg,
		       char *err, size_t len)
{
	struct jank_verdict_decoded d;
	struct held **pp;
	bool answered;
	int64_t id;
	int r = jank_worker_proto_path_decode(msg, &id, &answered, &d, err, len);

	if (r < 0) {
		jank_verdict_decoded_fini(&d);
		return r;
	}
	for (pp = &c->held; *pp; pp = &(*pp)->next) {
		struct held *h = *pp;

		/* Only the host asked answers: another's answer is ignored. */
		if (h->id != id || !h->asked || !host ||
		    strcmp(host, jank_hostjoin_host_name(c->join, h->x[h->n - 1].from_host)))
			continue;
		if (answered && jank_path_copy(&h->answer[h->answered], &d.path) == 0) {
			h->answered++;
			if (deeper(c, h))
				break;
		}
		*pp = h->next;
		c->stats.pending--;
		finish(c, h);
		break;
	}
	jank_verdict_decoded_fini(&d);
	return 0;
}

void jank_crossing_tick(struct jank_crossing *c)
{
	if (c && c->held)
		advance_all(c, jank_clock_monotonic_ns());
}

void jank_crossing_input_gone(struct jank_crossing *c, void *in)
{
	struct held **pp = c ? &c->held : NULL;

	while (pp && *pp) {
		struct held *h = *pp;

		if (h->in != in) {
			pp = &h->next;
			continue;
		}
		*pp = h->next;
		c->stats.pending--;
		finish(c, h);
	}
}

const struct jank_hostjoin *jank_crossing_join(const struct jank_crossing *c)
{
	return c->join;
}

void jank_crossing_get_stats(const struct jank_crossing *c, struct jank_crossing_stats *out)
{
	*out = c->stats;
	jank_hostjoin_get_stats(c->join, &out->join);
	jank_netmatch_get_stats(c->net, &out->tcp);
}

void jank_crossing_clock(const struct jank_crossing *c, size_t i, const char **host,
			 const char **reference, struct jank_clock_offset *o)
{
	unsigned a, b;
	int64_t last;

	jank_hostjoin_clock_hosts(c->join, i, &a, &b, &last);
	*host = jank_hostjoin_host_name(c->join, b);
	*reference = jank_hostjoin_host_name(c->join, a);
	jank_hostjoin_offset(c->join, a, b, last, o);
}

size_t jank_crossing_clock_count(const struct jank_crossing *c)
{
	return c ? jank_hostjoin_clock_count(c->join) : 0;
}

struct json_object *jank_crossing_json(const struct jank_crossing *c)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	struct jank_crossing_stats s;
	int e = !o || !a;

	jank_crossing_get_stats(c, &s);
	for (size_t i = 0; !e && i < jank_crossing_clock_count(c); i++) {
		struct json_object *k = json_object_new_object();
		struct jank_clock_offset off;
		const char *host, *ref;

		jank_crossing_clock(c, i, &host, &ref, &off);
		e |= !k || json_object_array_add(a, k);
		if (e) {
			json_object_put(k);
			break;
		}
		e |= jank_json_add_str(k, "host", host);
		e |= jank_json_add_str(k, "reference", ref);
		e |= jank_json_add_i64(k, "offset_ns", off.offset);
		if (off.lo != INT64_MIN)
			e |= jank_json_add_i64(k, "lo_ns", off.lo);
		if (off.hi != INT64_MAX)
			e |= jank_json_add_i64(k, "hi_ns", off.hi);
		e |= jank_json_add_u64(k, "messages_to", off.a_to_b);
		e |= jank_json_add_u64(k, "messages_from", off.b_to_a);
		e |= jank_json_add_bool(k, "consistent", off.consistent);
	}
	if (!e && o)
		e |= jank_json_add(o, "clocks", a);
	else
		json_object_put(a);
	if (!o)
		return NULL;
	e |= jank_json_add_i64(o, "timeout_ns", c->timeout);
	e |= jank_json_add_u64(o, "held", s.held);
	e |= jank_json_add_u64(o, "joined", s.joined);
	e |= jank_json_add_u64(o, "timed_out", s.timed_out);
	e |= jank_json_add_u64(o, "overflow", s.overflow);
	e |= jank_json_add_u64(o, "pending", s.pending);
	e |= jank_json_add_u64(o, "flow_events", s.join.froms + s.join.tos);
	e |= jank_json_add_u64(o, "flow_events_kept", s.join.kept);
	e |= jank_json_add_u64(o, "flow_events_max", s.join.max_events);
	e |= jank_json_add_u64(o, "flow_events_evicted", s.join.evicted);
	e |= jank_json_add_u64(o, "flow_events_dropped", s.dropped);
	e |= jank_json_add_u64(o, "pairs", s.join.pairs);
	{
		struct json_object *t = json_object_new_object();

		e |= !t || jank_json_add(o, "tcp_segments", t);
		if (t && !e) {
			e |= jank_json_add_u64(t, "sends", s.tcp.sends);
			e |= jank_json_add_u64(t, "receives", s.tcp.recvs);
			e |= jank_json_add_u64(t, "pairs", s.tcp.pairs);
			e |= jank_json_add_u64(t, "pairs_fallback", s.tcp.fallback);
			e |= jank_json_add_u64(t, "receptions_untraced", s.untraced);
			e |= jank_json_add_u64(t, "addresses", s.tcp.addrs);
			e |= jank_json_add_u64(t, "sends_evicted", s.tcp.evicted_sends);
			e |= jank_json_add_u64(t, "receives_evicted", s.tcp.evicted_recvs);
			e |= jank_json_add_u64(t, "kept", s.tcp.kept);
			e |= jank_json_add_u64(t, "max", s.tcp.max_events);
		}
	}
	e |= jank_json_add_u64(o, "memory_bytes", s.join.bytes + s.tcp.bytes);
	if (e) {
		json_object_put(o);
		return NULL;
	}
	return o;
}
