/* SPDX-License-Identifier: MIT */
/*
 * daemon/fleet/crossing.c: the supervisor's join of paths across hosts, fed
 * with the frames two workers would send. A client on alpha (tid 100) calls
 * a server on beta (tid 200, beta's clock 37 ms ahead); request 5 is slow
 * on beta. Its verdict from alpha is held, beta's worker is asked for its
 * path of tid 200 back from its send (in its clock), an answer from another
 * host is ignored, beta's answer is spliced in: most of the path on beta,
 * each segment naming its host. Without an answer in time, the path says
 * beta was not seen. A frame that is not right is refused; a flood of
 * unmatched sends stays bounded and counted; status shows the clock. With no
 * [flow], the kernel's TCP segments link the hosts the same way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "crosshost.h"
#include "crossing.h"
#include "format.h"
#include "json-util.h"
#include "worker-proto.h"

#define MS   1000000LL
#define T0   (1000 * MS)
#define SKEW (37 * MS)

struct rec {
	void *in_check; /* the input expected, when not the rec itself */
	int delivered;
	char story[4096];
	int64_t on_beta, duration;
	bool hosts_named;
	int asked;
	char asked_host[64];
	int64_t id, tid, begin, end;
};

static void deliver(void *in, const struct jank_verdict *v, void *data)
{
	struct rec *r = data;
	const struct jank_path *p = v->path;

	assert_ptr_equal(in, r->in_check ? r->in_check : (void *)r);
	r->delivered++;
	jank_format_path_story(r->story, sizeof(r->story), p, 16);
	r->on_beta = 0;
	r->hosts_named = true;
	r->duration = v->end - v->begin;
	for (size_t i = 0; i < p->n; i++) {
		const struct jank_label *l = jank_path_label_of(p, p->segs[i].host);

		r->hosts_named &= l != NULL;
		if (l && !strcmp(l->name, "beta"))
			r->on_beta += p->segs[i].end - p->segs[i].begin;
	}
}

static bool ask(const char *host, struct json_object *msg, void *data)
{
	struct rec *r = data;

	r->asked++;
	snprintf(r->asked_host, sizeof(r->asked_host), "%s", host);
	assert_string_equal(jank_worker_proto_type(msg), "path");
	assert_true(jank_json_get_i64(msg, "id", &r->id));
	assert_true(jank_json_get_i64(msg, "tid", &r->tid));
	assert_true(jank_json_get_i64(msg, "begin", &r->begin));
	assert_true(jank_json_get_i64(msg, "end", &r->end));
	json_object_put(msg);
	return true;
}

static void add_flow(struct json_object *a, const char *flow, const char *key, bool to, int tid,
		     int64_t ts)
{
	struct json_object *f = json_object_new_array();

	json_object_array_add(f, json_object_new_string(flow));
	json_object_array_add(f, json_object_new_string(key));
	json_object_array_add(f, json_object_new_boolean(to));
	json_object_array_add(f, json_object_new_int(tid));
	json_object_array_add(f, json_object_new_int64(ts));
	json_object_array_add(a, f);
}

static int send_flows(struct jank_crossing *c, const char *host, struct json_object *a)
{
	struct json_object *msg = jank_worker_proto_new("flows");
	char err[256];
	int r;

	jank_json_add(msg, "flows", a);
	jank_json_add_u64(msg, "dropped", 0);
	r = jank_crossing_flows(c, host, msg, err, sizeof(err));
	json_object_put(msg);
	return r;
}

/* Ten requests: each sent by alpha's client, taken by beta's server, replied; 5 and 9 slow. */
static void traffic(struct jank_crossing *c, bool reply5)
{
	struct json_object *alpha = json_object_new_array(), *beta = json_object_new_array();

	for (int i = 0; i < 10; i++) {
		int64_t t = T0 + i * 100 * MS, work = i == 5 || i == 9 ? 60 * MS : 2 * MS;
		char key[16];

		snprintf(key, sizeof(key), "id=%d", i);
		add_flow(alpha, "request", key, false, 100, t);
		add_flow(alpha, "reply", key, true, 100, t + 2 * MS + work);
		add_flow(beta, "request", key, true, 200, t + MS + SKEW);
		if (i != 5 || reply5)
			add_flow(beta, "reply", key, false, 200, t + MS + work + SKEW);
	}
	/* alpha's stream first: its `to`s wait for beta's `from`s. */
	assert_int_equal(send_flows(c, "alpha", alpha), 0);
	assert_int_equal(send_flows(c, "beta", beta), 0);
}

/* A verdict's JSON: tid 100 over [begin, end], running 10 us then blocked, or `seg` given. */
static struct json_object *verdict_json(int32_t tid, int64_t begin, int64_t end,
					const struct jank_segment *segs, size_t n)
{
	static struct jank_rule rule = { .name = (char *)"request" };
	struct jank_segment def[2] = {
		{ .tid = tid, .state = JANK_STATE_RUNNING, .begin = begin, .end = begin + 10000 },
		{ .tid = tid, .state = JANK_STATE_BLOCKED, .begin = begin + 10000, .end = end },
	};
	struct jank_verdict v = { .rule = &rule,
				  .key = "id=5",
				  .begin = begin,
				  .end = end,
				  .duration = end - begin,
				  .tid = tid,
				  .over_threshold = true };
	struct jank_breakdown bd;
	struct jank_path p;
	struct json_object *o;

	jank_path_init(&p);
	jank_breakdown_init(&bd);
	if (!segs) {
		segs = def;
		n = 2;
	}
	p.segs = calloc(n, sizeof(*p.segs));
	assert_non_null(p.segs);
	memcpy(p.segs, segs, n * sizeof(*segs));
	p.n = p.cap = n;
	p.tid = tid;
	p.begin = begin;
	p.end = end;
	assert_int_equal(jank_breakdown_compute(&p, &bd), 0);
	v.path = &p;
	v.breakdown = &bd;
	o = jank_verdict_to_json(&v, JANK_VERDICT_JSON_FULL);
	assert_non_null(o);
	jank_breakdown_fini(&bd);
	jank_path_fini(&p);
	return o;
}

/* alpha's verdict of request 5, through the crossing: 1 when held. */
static int verdict5(struct jank_crossing *c, struct rec *r)
{
	struct json_object *o = verdict_json(100, T0 + 500 * MS, T0 + 562 * MS, NULL, 0);
	struct jank_verdict_decoded pv;
	char err[256];
	int held;

	assert_int_equal(jank_worker_proto_verdict_decode(o, NULL, 0, &pv, err, sizeof(err)), 0);
	held = jank_crossing_verdict(c, r, "alpha", &pv);
	if (!held)
		deliver(r, &pv.v, r);
	jank_verdict_decoded_fini(&pv);
	json_object_put(o);
	return held;
}

static int answer(struct jank_crossing *c, const char *host, int64_t id, bool answered)
{
	struct json_object *msg = jank_worker_proto_new("path");
	struct jank_segment segs[2] = {
		{ .tid = 200,
		  .state = JANK_STATE_BLOCKED,
		  .begin = T0 + 500 * MS + SKEW,
		  .end = T0 + 501 * MS + SKEW },
		{ .tid = 200,
		  .state = JANK_STATE_RUNNING,
		  .begin = T0 + 501 * MS + SKEW,
		  .end = T0 + 561 * MS + SKEW },
	};
	char err[256];
	int r;

	jank_json_add_i64(msg, "id", id);
	jank_json_add_bool(msg, "answered", answered);
	if (answered)
		jank_json_add(msg, "verdict",
			      verdict_json(200, segs[0].begin, segs[1].end, segs, 2));
	r = jank_crossing_path(c, host, msg, err, sizeof(err));
	json_object_put(msg);
	return r;
}

static void joined(void **state)
{
	struct rec r = { 0 };
	struct jank_crossing *c = jank_crossing_new(deliver, ask, &r);
	struct jank_crossing_stats st;

	(void)state;
	assert_non_null(c);
	traffic(c, true);
	assert_int_equal(verdict5(c, &r), 1);
	assert_int_equal(r.delivered, 0);
	assert_int_equal(r.asked, 1);
	assert_string_equal(r.asked_host, "beta");
	assert_int_equal(r.tid, 200);
	assert_int_equal(r.end, T0 + 561 * MS + SKEW);
	/* The verdict's begin on beta's clock, to within the clock's bracket. */
	assert_true(r.begin > T0 + 500 * MS + SKEW - MS && r.begin < T0 + 500 * MS + SKEW + MS);
	/* Another host's answer, or an unknown id: ignored. */
	assert_int_equal(answer(c, "gamma", r.id, true), 0);
	assert_int_equal(answer(c, "beta", r.id + 1, true), 0);
	assert_int_equal(r.delivered, 0);
	assert_int_equal(answer(c, "beta", r.id, true), 0);
	assert_int_equal(r.delivered, 1);
	assert_true(r.hosts_named);
	assert_true(r.on_beta * 10 >= r.duration * 8);
	print_message("joined: %.1f%% of the path on beta: %s\n",
		      100.0 * (double)r.on_beta / (double)r.duration, r.story);
	assert_non_null(strstr(r.story, "tid 200 on beta"));
	assert_non_null(strstr(r.story, "on alpha"));
	jank_crossing_get_stats(c, &st);
	assert_int_equal(st.held, 1);
	assert_int_equal(st.joined, 1);
	assert_int_equal(st.pending, 0);
	assert_int_equal(st.join.pairs, 20);
	/* A path that crosses nowhere goes on at once. */
	{
		struct json_object *o = verdict_json(100, T0 + 2000 * MS, T0 + 2100 * MS, NULL, 0);
		struct jank_verdict_decoded pv;
		char err[64];

		assert_int_equal(
			jank_worker_proto_verdict_decode(o, NULL, 0, &pv, err, sizeof(err)), 0);
		assert_int_equal(jank_crossing_verdict(c, &r, "alpha", &pv), 0);
		jank_verdict_decoded_fini(&pv);
		json_object_put(o);
	}
	jank_crossing_free(c);
}

static void not_seen(void **state)
{
	struct rec r = { 0 };
	struct jank_crossing *c = jank_crossing_new(deliver, ask, &r);
	struct jank_crossing_stats st;

	(void)state;
	/* beta's reply to request 5 is not in its stream yet: nothing to ask. */
	traffic(c, false);
	jank_crossing_set_timeout(c, 20 * MS);
	assert_int_equal(verdict5(c, &r), 1);
	assert_int_equal(r.asked, 0);
	jank_crossing_tick(c);
	assert_int_equal(r.delivered, 0);
	usleep(30000);
	jank_crossing_tick(c);
	assert_int_equal(r.delivered, 1);
	assert_non_null(strstr(r.story, "waiting on beta (not yet seen)"));
	print_message("not seen: %s\n", r.story);
	/* Asked, but beta's worker answers without a path: not seen either. */
	r = (struct rec){ 0 };
	jank_crossing_set_timeout(c, 5000 * MS);
	{
		struct json_object *a = json_object_new_array();

		add_flow(a, "reply", "id=5", false, 200, T0 + 561 * MS + SKEW);
		assert_int_equal(send_flows(c, "beta", a), 0);
	}
	/* The earlier verdict was sent; a new one of the same request is asked at once. */
	assert_int_equal(verdict5(c, &r), 1);
	assert_int_equal(r.asked, 1);
	assert_int_equal(answer(c, "beta", r.id, false), 0);
	assert_int_equal(r.delivered, 1);
	assert_non_null(strstr(r.story, "waiting on beta (not yet seen)"));
	jank_crossing_get_stats(c, &st);
	assert_int_equal(st.timed_out, 2);
	/* An input that goes: its held verdicts go out with it. */
	r = (struct rec){ 0 };
	assert_int_equal(verdict5(c, &r), 1);
	jank_crossing_input_gone(c, &r);
	assert_int_equal(r.delivered, 1);
	jank_crossing_free(c);
}

/* A flow whose hosts = leaves beta out pairs nothing with beta, and names no host it did not see.
 */
static void restricted(void **state)
{
	static struct jank_flow_rule flows[] = {
		{ .name = (char *)"request" },
		{ .name = (char *)"reply", .hosts = (char *)"alpha,gamma" },
	};
	struct rec r = { 0 };
	struct jank_crossing *c = jank_crossing_new(deliver, ask, &r);
	struct jank_crossing_stats st;

	(void)state;
	jank_crossing_set_flows(c, flows, 2);
	jank_crossing_set_timeout(c, 10 * MS);
	traffic(c, true);
	jank_crossing_get_stats(c, &st);
	assert_int_equal(st.join.pairs, 10);
	assert_int_equal(verdict5(c, &r), 1);
	assert_int_equal(r.asked, 0);
	usleep(20000);
	jank_crossing_tick(c);
	assert_int_equal(r.delivered, 1);
	assert_null(strstr(r.story, "beta"));
	/* Without the restriction, beta is the other host. */
	flows[1].hosts = NULL;
	r = (struct rec){ 0 };
	assert_int_equal(verdict5(c, &r), 1);
	usleep(20000);
	jank_crossing_tick(c);
	assert_non_null(strstr(r.story, "waiting on beta (not yet seen)"));
	jank_crossing_free(c);
}

static void refused(void **state)
{
	struct rec r = { 0 };
	struct jank_crossing *c = jank_crossing_new(deliver, ask, &r);
	struct json_object *msg = jank_worker_proto_new("flows"), *a = json_object_new_array(), *f;
	char err[256];

	(void)state;
	f = json_object_new_array();
	json_object_array_add(f, json_object_new_string("request"));
	json_object_array_add(f, json_object_new_string("id=1"));
	json_object_array_add(f, json_object_new_boolean(false));
	json_object_array_add(f, json_object_new_string("100"));
	json_object_array_add(f, json_object_new_int64(T0));
	json_object_array_add(a, f);
	jank_json_add(msg, "flows", a);
	jank_json_add_u64(msg, "dropped", 0);
	assert_int_equal(jank_crossing_flows(c, "alpha", msg, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "flows[0]"));
	json_object_put(msg);
	/* A path answer without its id. */
	msg = jank_worker_proto_new("path");
	jank_json_add_bool(msg, "answered", false);
	assert_int_equal(jank_crossing_path(c, "beta", msg, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "id"));
	json_object_put(msg);
	jank_crossing_free(c);
}

static void flood(void **state)
{
	struct rec r = { 0 };
	struct jank_crossing *c = jank_crossing_new(deliver, ask, &r);
	struct jank_crossing_stats st;
	struct json_object *o, *clocks, *k;
	size_t bytes = 0;

	(void)state;
	for (int b = 0; b < 50; b++) {
		struct json_object *a = json_object_new_array();

		for (int i = 0; i < 4096; i++) {
			char key[32];

			snprintf(key, sizeof(key), "flood=%d", b * 4096 + i);
			add_flow(a, "request", key, false, 100, T0 + b * 4096 + i);
		}
		assert_int_equal(send_flows(c, "alpha", a), 0);
		jank_crossing_get_stats(c, &st);
		if (b == 20)
			bytes = st.join.bytes;
	}
	jank_crossing_get_stats(c, &st);
	assert_int_equal(st.join.froms, 50 * 4096);
	assert_int_equal(st.join.kept, JANK_CROSSING_EVENTS);
	assert_int_equal(st.join.evicted, 50 * 4096 - JANK_CROSSING_EVENTS);
	assert_true(st.join.bytes <= bytes);
	print_message("flood: %d unmatched sends, %zu kept, %zu bytes\n", 50 * 4096, st.join.kept,
		      st.join.bytes);
	/* Then real traffic: the clock of beta against alpha in status. */
	traffic(c, true);
	o = jank_crossing_json(c);
	assert_non_null(o);
	clocks = json_object_object_get(o, "clocks");
	assert_int_equal(json_object_array_length(clocks), 1);
	k = json_object_array_get_idx(clocks, 0);
	assert_string_equal(json_object_get_string(json_object_object_get(k, "host")), "beta");
	assert_string_equal(json_object_get_string(json_object_object_get(k, "reference")),
			    "alpha");
	assert_true(json_object_get_int64(json_object_object_get(k, "lo_ns")) <= -SKEW);
	assert_true(json_object_get_int64(json_object_object_get(k, "hi_ns")) >= -SKEW);
	assert_int_equal(json_object_get_int64(json_object_object_get(k, "messages_to")), 10);
	assert_int_equal(json_object_get_int64(json_object_object_get(o, "flow_events_evicted")),
			 50 * 4096 - JANK_CROSSING_EVENTS + 40);
	json_object_put(o);
	jank_crossing_free(c);
}

/* ---- Three hosts: the server on beta waits for its database on gamma ---- */

#define US 1000LL

/* Each host's clock: the true time plus its skew. */
static int64_t skew_of(const char *host)
{
	return !strcmp(host, "beta") ? SKEW : !strcmp(host, "gamma") ? -5 * MS : 0;
}

/* A thread's life, in true time: blocked, but over [run[2i], run[2i + 1]). */
struct life {
	int64_t run[8];
	size_t n;
};

/* Request i at T0 + i * 100 ms: beta runs 1 ms, asks gamma, which works `db`, then 4 ms more. */
static int64_t req_t(int i)
{
	return T0 + i * 100 * MS;
}

static int64_t db_of(int i)
{
	return i == 5 ? 55 * MS : MS;
}

static struct life life_of(const char *host, int i)
{
	int64_t t = req_t(i), db = db_of(i);
	struct life l = { .n = 0 };

	if (!strcmp(host, "beta")) {
		l.run[0] = t + MS, l.run[1] = t + 2 * MS;
		l.run[2] = t + 2200 * US + db + 200 * US, l.run[3] = t + 2400 * US + db + 3600 * US;
		l.n = 4;
	} else if (!strcmp(host, "gamma")) {
		l.run[0] = t + 2200 * US, l.run[1] = t + 2200 * US + db;
		l.n = 2;
	}
	return l;
}

/* The path of host's thread over [begin, end] (its clock), as its worker would answer. */
static struct json_object *answer3(const char *host, int64_t begin, int64_t end)
{
	int64_t sk = skew_of(host), at = begin;
	struct jank_segment segs[64];
	size_t n = 0;
	int32_t tid = !strcmp(host, "beta") ? 200 : 300;

	for (int i = 0; i < 10; i++) {
		struct life l = life_of(host, i);

		for (size_t k = 0; k < l.n; k += 2) {
			int64_t b = l.run[k] + sk, e = l.run[k + 1] + sk;

			if (e <= at || b >= end)
				continue;
			if (b > at)
				segs[n++] = (struct jank_segment){ .tid = tid,
								   .state = JANK_STATE_BLOCKED,
								   .begin = at,
								   .end = b };
			b = b > at ? b : at;
			e = e < end ? e : end;
			segs[n++] = (struct jank_segment){
				.tid = tid, .state = JANK_STATE_RUNNING, .begin = b, .end = e
			};
			at = e;
		}
	}
	if (at < end)
		segs[n++] = (struct jank_segment){
			.tid = tid, .state = JANK_STATE_BLOCKED, .begin = at, .end = end
		};
	return verdict_json(tid, begin, end, segs, n);
}

/* The flows of alpha and beta, and gamma's unless `late` (then *late holds them, to send). */
static void traffic3(struct jank_crossing *c, struct json_object **late)
{
	struct json_object *a = json_object_new_array(), *b = json_object_new_array(),
			   *g = json_object_new_array();

	for (int i = 0; i < 10; i++) {
		int64_t t = req_t(i), db = db_of(i);
		char key[16];

		snprintf(key, sizeof(key), "id=%d", i);
		add_flow(a, "request", key, false, 100, t);
		add_flow(b, "request", key, true, 200, t + MS + SKEW);
		add_flow(b, "db", key, false, 200, t + 2 * MS + SKEW);
		add_flow(g, "db", key, true, 300, t + 2200 * US - 5 * MS);
		add_flow(g, "dbreply", key, false, 300, t + 2200 * US + db - 5 * MS);
		add_flow(b, "dbreply", key, true, 200, t + 2400 * US + db + SKEW);
		add_flow(b, "reply", key, false, 200, t + 6 * MS + db + SKEW);
		add_flow(a, "reply", key, true, 100, t + 7 * MS + db);
	}
	assert_int_equal(send_flows(c, "alpha", a), 0);
	assert_int_equal(send_flows(c, "beta", b), 0);
	if (late)
		*late = g;
	else
		assert_int_equal(send_flows(c, "gamma", g), 0);
}

struct rec3 {
	struct rec r;
	char hosts[16][JANK_LABEL_NAME_LEN]; /* the path's hosts, in order, each change once */
	size_t nhosts;
	int64_t on_gamma;
};

static void deliver3(void *in, const struct jank_verdict *v, void *data)
{
	struct rec3 *r = data;
	const struct jank_path *p = v->path;

	deliver(in, v, &r->r);
	r->nhosts = 0;
	r->on_gamma = 0;
	for (size_t i = 0; i < p->n; i++) {
		const char *h = jank_path_label_of(p, p->segs[i].host)->name;

		if (!strcmp(h, "gamma"))
			r->on_gamma += p->segs[i].end - p->segs[i].begin;
		if ((r->nhosts == 0 || strcmp(r->hosts[r->nhosts - 1], h)) && r->nhosts < 16)
			snprintf(r->hosts[r->nhosts++], JANK_LABEL_NAME_LEN, "%s", h);
	}
}

/*
 * The server on beta waits on gamma; gamma's flows come when `late` (its
 * stream read later than beta's: after beta answered), else first.
 */
static void three_hosts_run(bool late)
{
	struct rec3 r = { 0 };
	struct jank_crossing *c = jank_crossing_new(deliver3, ask, &r);
	struct json_object *o = verdict_json(100, req_t(5), req_t(5) + 62 * MS, NULL, 0);
	struct json_object *g = NULL;
	struct jank_verdict_decoded pv;
	char err[256], route[128] = "";
	int asked = 0;

	jank_crossing_add_host(c, "gamma");
	traffic3(c, late ? &g : NULL);
	assert_int_equal(jank_worker_proto_verdict_decode(o, NULL, 0, &pv, err, sizeof(err)), 0);
	r.r.in_check = &r;
	assert_int_equal(jank_crossing_verdict(c, &r, "alpha", &pv), 1);
	jank_verdict_decoded_fini(&pv);
	json_object_put(o);
	/* Answer every request as the asked host's worker would, until the verdict goes. */
	while (r.r.delivered == 0 && asked < 8) {
		struct json_object *msg = jank_worker_proto_new("path");

		assert_true(r.r.asked > asked);
		asked = r.r.asked;
		jank_json_add_i64(msg, "id", r.r.id);
		jank_json_add_bool(msg, "answered", true);
		jank_json_add(msg, "verdict", answer3(r.r.asked_host, r.r.begin, r.r.end));
		assert_int_equal(jank_crossing_path(c, r.r.asked_host, msg, err, sizeof(err)), 0);
		json_object_put(msg);
		if (g && r.r.asked == asked) {
			/* beta answered; gamma's `from` is not known yet: held, not delivered */
			assert_int_equal(r.r.delivered, 0);
			assert_int_equal(send_flows(c, "gamma", g), 0);
			g = NULL;
		}
	}
	assert_null(g);
	assert_int_equal(r.r.delivered, 1);
	for (size_t i = 0; i < r.nhosts; i++)
		snprintf(route + strlen(route), sizeof(route) - strlen(route), "%s%s", i ? ">" : "",
			 r.hosts[i]);
	print_message("three hosts%s: %s, %.1f%% on gamma, %d requests: %s\n",
		      late ? " (gamma late)" : "", route,
		      100.0 * (double)r.on_gamma / (double)r.r.duration, asked, r.r.story);
	assert_string_equal(route, "beta>gamma>beta>alpha");
	assert_true(r.on_gamma * 10 >= r.r.duration * 8);
	assert_true(r.r.hosts_named);
	jank_crossing_free(c);
}

/* A TCP segment of the kernel's, as a worker sends it (worker-hosts.c). */
static void add_tcp(struct json_object *a, bool recv, int tid, int64_t ts, uint32_t src,
		    uint16_t sport, uint32_t dst, uint16_t dport, uint32_t seq, uint32_t ack,
		    uint32_t len)
{
	struct json_object *f = json_object_new_array();
	struct jank_tcp_seg sg = { .family = 4,
				   .sport = sport,
				   .dport = dport,
				   .seq = seq,
				   .ack_seq = ack,
				   .flags = 0x18,
				   .len = len };

	for (int i = 0; i < 4; i++) {
		sg.saddr[i] = (uint8_t)(src >> (24 - 8 * i));
		sg.daddr[i] = (uint8_t)(dst >> (24 - 8 * i));
	}
	json_object_array_add(f, json_object_new_string(""));
	json_object_array_add(f, json_object_new_string(""));
	json_object_array_add(f, json_object_new_boolean(recv));
	json_object_array_add(f, json_object_new_int(tid));
	json_object_array_add(f, json_object_new_int64(ts));
	json_object_array_add(f, jank_worker_proto_tcp_json(&sg));
	json_object_array_add(a, f);
}

/*
 * The same story with no [flow]: the kernel's TCP segments alone link the
 * hosts (alpha 10.0.0.1:40000, beta 10.0.0.2:8080), beta's worker first
 * this time. The slow request's verdict is held, beta asked, its answer
 * spliced; the segments are counted in status. A reception that no send
 * matches goes out as its host saw it: at once when no traced host sends
 * from its source. A bad segment is refused.
 */
static void tcp(void **state)
{
	struct rec r = { 0 };
	struct jank_crossing *c = jank_crossing_new(deliver, ask, &r);
	struct json_object *alpha = json_object_new_array(), *beta = json_object_new_array(), *o,
			   *t;
	struct jank_crossing_stats st;
	char err[256];
	int64_t v;

	(void)state;
	for (int i = 0; i < 10; i++) {
		int64_t tt = T0 + i * 100 * MS, work = i == 5 || i == 9 ? 60 * MS : 2 * MS;
		uint32_t seq = 1000 + (uint32_t)i * 100, ack = 5000 + (uint32_t)i * 50;

		add_tcp(alpha, false, 100, tt, 0x0a000001, 40000, 0x0a000002, 8080, seq, ack, 100);
		add_tcp(beta, true, 200, tt + MS + SKEW, 0x0a000001, 40000, 0x0a000002, 8080, seq,
			ack, 100);
		add_tcp(beta, false, 200, tt + MS + work + SKEW, 0x0a000002, 8080, 0x0a000001,
			40000, ack, seq + 100, 50);
		add_tcp(alpha, true, 100, tt + 2 * MS + work, 0x0a000002, 8080, 0x0a000001, 40000,
			ack, seq + 100, 50);
	}
	assert_int_equal(send_flows(c, "beta", beta), 0);
	assert_int_equal(send_flows(c, "alpha", alpha), 0);
	assert_int_equal(verdict5(c, &r), 1);
	assert_int_equal(r.asked, 1);
	assert_string_equal(r.asked_host, "beta");
	assert_int_equal(r.tid, 200);
	assert_int_equal(r.end, T0 + 561 * MS + SKEW);
	assert_int_equal(answer(c, "beta", r.id, true), 0);
	assert_int_equal(r.delivered, 1);
	assert_true(r.hosts_named);
	assert_true(r.on_beta * 10 >= r.duration * 8);
	print_message("tcp: %.1f%% of the path on beta: %s\n",
		      100.0 * (double)r.on_beta / (double)r.duration, r.story);
	assert_non_null(strstr(r.story, "tid 200 on beta"));
	jank_crossing_get_stats(c, &st);
	assert_int_equal(st.tcp.sends, 20);
	assert_int_equal(st.tcp.recvs, 20);
	assert_int_equal(st.tcp.pairs, 20);
	assert_int_equal(st.join.pairs, 20);
	o = jank_crossing_json(c);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "tcp_segments", &t));
	assert_true(jank_json_get_i64(t, "pairs", &v));
	assert_int_equal(v, 20);
	json_object_put(o);
	/*
	 * A reception no send matched, from an address beta sends from: held
	 * while beta's send may come, then sent as alpha saw it, not "waiting
	 * on beta".
	 */
	jank_crossing_free(c);
	r = (struct rec){ 0 };
	c = jank_crossing_new(deliver, ask, &r);
	beta = json_object_new_array();
	add_tcp(beta, false, 300, T0, 0x0a000002, 9, 0x0a000001, 40000, 1, 2, 10);
	assert_int_equal(send_flows(c, "beta", beta), 0);
	alpha = json_object_new_array();
	add_tcp(alpha, true, 100, T0 + 560 * MS, 0x0a000002, 9, 0x0a000001, 40000, 777, 2, 10);
	assert_int_equal(send_flows(c, "alpha", alpha), 0);
	jank_crossing_set_timeout(c, 20 * MS);
	assert_int_equal(verdict5(c, &r), 1);
	assert_int_equal(r.asked, 0);
	usleep(30000);
	jank_crossing_tick(c);
	assert_int_equal(r.delivered, 1);
	assert_null(strstr(r.story, "beta"));
	assert_int_equal(r.on_beta, 0);
	/*
	 * From a peer no traced host sends from (a client outside the fleet),
	 * or from loopback, once beta's sends showed its address: no host's
	 * stream will pair it, nothing waits. Before beta's first send (its
	 * stream read late), it waits as any reception.
	 */
	for (int k = 0; k < 3; k++) {
		uint32_t peer = k == 1 ? 0x7f000001 : 0x0a090909;

		jank_crossing_free(c);
		r = (struct rec){ 0 };
		c = jank_crossing_new(deliver, ask, &r);
		jank_crossing_add_host(c, "beta");
		if (k < 2) {
			beta = json_object_new_array();
			add_tcp(beta, false, 300, T0, 0x0a000002, 9, 0x0a000001, 40000, 1, 2, 10);
			add_tcp(beta, false, 300, T0, 0x7f000001, 9, 0x7f000001, 40000, 1, 2, 10);
			assert_int_equal(send_flows(c, "beta", beta), 0);
		}
		alpha = json_object_new_array();
		add_tcp(alpha, true, 100, T0 + 560 * MS, peer, 9, 0x0a000001, 40000, 777, 2, 10);
		assert_int_equal(send_flows(c, "alpha", alpha), 0);
		jank_crossing_get_stats(c, &st);
		assert_int_equal(st.tcp.addrs, k < 2 ? 1 : 0); /* 10.0.0.2; loopback is no host's */
		if (k == 2) {
			assert_int_equal(verdict5(c, &r), 1);
			break;
		}
		assert_int_equal(verdict5(c, &r), 0);
		assert_int_equal(r.delivered, 1);
		assert_int_equal(r.asked, 0);
		jank_crossing_get_stats(c, &st);
		assert_int_equal(st.held, 0);
		assert_int_equal(st.untraced, 1);
	}
	/* A segment whose address is not hex, or of a family neither 4 nor 6: refused. */
	for (int k = 0; k < 2; k++) {
		struct json_object *msg = jank_worker_proto_new("flows"),
				   *a = json_object_new_array();
		struct json_object *f, *seg;

		add_tcp(a, true, 100, T0, 1, 2, 3, 4, 5, 6, 7);
		f = json_object_array_get_idx(a, 0);
		seg = json_object_array_get_idx(f, 5);
		if (k == 0)
			json_object_array_put_idx(seg, 1, json_object_new_string("0a00000g"));
		else
			json_object_array_put_idx(seg, 0, json_object_new_int(5));
		jank_json_add(msg, "flows", a);
		jank_json_add_u64(msg, "dropped", 0);
		assert_int_equal(jank_crossing_flows(c, "alpha", msg, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "flows[0]"));
		json_object_put(msg);
	}
	jank_crossing_free(c);
}

static void three_hosts(void **state)
{
	(void)state;
	three_hosts_run(false);
}

static void three_hosts_late(void **state)
{
	(void)state;
	three_hosts_run(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(joined),      cmocka_unit_test(not_seen),
		cmocka_unit_test(refused),     cmocka_unit_test(flood),
		cmocka_unit_test(three_hosts), cmocka_unit_test(three_hosts_late),
		cmocka_unit_test(restricted),  cmocka_unit_test(tcp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
