/* SPDX-License-Identifier: MIT */
/*
 * The supervisor's join of paths across hosts (see crossing.h). Held
 * verdicts are a short list, advanced when flows or answers come and at
 * each check; every answer is matched by its request's id and host, so a
 * worker can answer only what it was asked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "crosshost.h"
#include "crossing.h"
#include "json-util.h"
#include "log.h"
#include "worker-proto.h"

struct held {
	struct held *next;
	void *in;
	unsigned host;
	struct jank_verdict_decoded *pv;
	struct jank_hostjoin_crossing x;
	int64_t id;
	bool asked;
	int64_t deadline;
};

struct jank_crossing {
	jank_crossing_deliver_fn deliver;
	jank_crossing_ask_fn ask;
	void *data;
	int64_t timeout;
	struct jank_hostjoin *join;
	struct held *held;
	int64_t next_id;
	struct jank_crossing_stats stats;
};

struct jank_crossing *jank_crossing_new(jank_crossing_deliver_fn deliver, jank_crossing_ask_fn ask,
					void *data)
{
	struct jank_crossing *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->join = jank_hostjoin_new(JANK_CROSSING_EVENTS);
	if (!c->join) {
		free(c);
		return NULL;
	}
	c->deliver = deliver;
	c->ask = ask;
	c->data = data;
	c->timeout = JANK_CROSSING_TIMEOUT_NS;
	c->next_id = 1;
	return c;
}

static void held_free(struct held *h)
{
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
	free(c);
}

void jank_crossing_set_timeout(struct jank_crossing *c, int64_t ns)
{
	c->timeout = ns;
}

/* The offset of host b's clock to a's (a's time = b's + offset) around t (b's clock). */
static int64_t offset(const struct jank_crossing *c, unsigned a, unsigned b, int64_t t)
{
	struct jank_clock_offset o;

	jank_hostjoin_offset(c->join, a, b, t, &o);
	return o.offset;
}

/*
 * The held verdict with its path joined: the other host's part (answer,
 * NULL: not seen), spliced in; then delivered and freed.
 */
static void finish(struct jank_crossing *c, struct held *h, const struct jank_path *answer)
{
	const char *host = jank_hostjoin_host_name(c->join, h->host);
	const char *from = jank_hostjoin_host_name(c->join, h->x.from_host);
	struct jank_verdict v = h->pv->v;
	struct jank_breakdown bd;
	struct jank_path out;
	int64_t off = 0, t0;
	int r = 0;

	/* Its `from` never came: the other host is known only when there is one. */
	if (!h->x.paired && jank_hostjoin_host_count(c->join) == 2)
		from = jank_hostjoin_host_name(c->join, h->host == 0);
	else if (!h->x.paired)
		r = -ENOENT;
	if (h->x.paired)
		off = offset(c, h->host, h->x.from_host, h->x.from_ts);
	/* Not paired in time: the other host's part is all that is not known of this one's. */
	t0 = h->x.paired ? h->x.from_ts + off : h->x.to_ts;
	jank_path_init(&out);
	jank_breakdown_init(&bd);
	if (r == 0)
		r = jank_crosshost_splice(v.path, host, answer, from, off, t0, h->x.to_ts,
					  h->x.flow, &out);
	if (r == 0)
		r = jank_breakdown_compute(&out, &bd);
	if (r == 0) {
		v.path = &out;
		v.breakdown = &bd;
		/* What differs from normal actions was measured on this host's part only. */
		v.profile = NULL;
		v.suspects = NULL;
		v.incomplete |= out.incomplete;
	} else if (r == -ENOMEM) {
		jank_log(LOG_ERR, "out of memory: a path is not joined across hosts");
	}
	if (answer)
		c->stats.joined++;
	else
		c->stats.timed_out++;
	c->deliver(h->in, &v, c->data);
	jank_breakdown_fini(&bd);
	jank_path_fini(&out);
	held_free(h);
}

/* Ask the other host's worker for its path of the sending thread, once the `from` is known. */
static void advance(struct jank_crossing *c, struct held *h)
{
	struct json_object *msg;
	int64_t begin, e;

	if (h->asked || !jank_hostjoin_refresh(c->join, &h->x))
		return;
	/* The verdict's begin on the other host's clock, never after the send. */
	begin = h->pv->v.begin - offset(c, h->host, h->x.from_host, h->x.from_ts);
	if (begin > h->x.from_ts)
		begin = h->x.from_ts;
	msg = jank_proto_new("path");
	e = !msg;
	e = e || jank_json_add_i64(msg, "id", h->id) < 0;
	e = e || jank_json_add_i64(msg, "tid", h->x.from_tid) < 0;
	e = e || jank_json_add_i64(msg, "begin", begin) < 0;
	e = e || jank_json_add_i64(msg, "end", h->x.from_ts) < 0;
	if (e) {
		json_object_put(msg);
		return;
	}
	h->asked = c->ask(jank_hostjoin_host_name(c->join, h->x.from_host), msg, c->data);
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
			finish(c, h, NULL);
			continue;
		}
		advance(c, h);
		pp = &h->next;
	}
}

int jank_crossing_flows(struct jank_crossing *c, const char *host, struct json_object *msg,
			char *err, size_t len)
{
	struct jank_proto_flows f;
	int h = jank_hostjoin_host(c->join, host), r;

	r = jank_proto_flows_decode(msg, &f, err, len);
	if (r < 0)
		return r;
	c->stats.dropped += f.dropped;
	for (size_t i = 0; h >= 0 && i < f.n; i++)
		jank_hostjoin_note(c->join, (unsigned)h, f.v[i].flow, f.v[i].key, f.v[i].to,
				   f.v[i].tid, f.v[i].ts);
	jank_proto_flows_fini(&f);
	if (c->held)
		advance_all(c, jank_clock_monotonic_ns());
	return 0;
}

int jank_crossing_verdict(struct jank_crossing *c, void *in, const char *host,
			  struct jank_verdict_decoded *pv)
{
	struct jank_hostjoin_crossing x;
	struct held *h;
	int hi = jank_hostjoin_host(c->join, host);

	if (hi < 0 || !pv->v.path ||
	    jank_hostjoin_crossing(c->join, (unsigned)hi, pv->v.path, &x) <= 0)
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
	h->x = x;
	h->id = c->next_id++;
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
	int r = jank_proto_path_decode(msg, &id, &answered, &d, err, len);

	if (r < 0) {
		jank_verdict_decoded_fini(&d);
		return r;
	}
	for (pp = &c->held; *pp; pp = &(*pp)->next) {
		struct held *h = *pp;

		/* Only the host asked answers: another's answer is ignored. */
		if (h->id != id || !h->asked ||
		    strcmp(host, jank_hostjoin_host_name(c->join, h->x.from_host)))
			continue;
		*pp = h->next;
		c->stats.pending--;
		finish(c, h, answered ? &d.path : NULL);
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
		finish(c, h, NULL);
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
	e |= jank_json_add_u64(o, "memory_bytes", s.join.bytes);
	if (e) {
		json_object_put(o);
		return NULL;
	}
	return o;
}
