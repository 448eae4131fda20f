/* SPDX-License-Identifier: MIT */
/*
 * A worker's flows and paths for the supervisor's join across hosts (see
 * worker-hosts.h). The flow callback only copies the event into a batch
 * (it runs inside the engine); messages go out from the tick or before a
 * verdict, so that the supervisor knows a verdict's `to` before the verdict.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "critpath.h"
#include "engine.h"
#include "json-util.h"
#include "log.h"
#include "textsafe.h"
#include "verdict-json.h"
#include "worker-hosts.h"
#include "worker-proto.h"

/* A batch is one "flows" message, which the supervisor reads up to its bound. */
_Static_assert(JANK_WHOSTS_BATCH <= JANK_PROTO_MAX_FLOWS, "a batch longer than a message");

struct wflow {
	char flow[JANK_LABEL_NAME_LEN];
	char key[JANK_LABEL_KEY_LEN];
	bool to;
	int32_t tid;
	int64_t ts;
	bool is_tcp; /* a TCP segment of the kernel's (the supervisor matches them) */
	struct jank_tcp_seg tcp;
};

struct wrequest {
	int64_t id;
	int32_t tid;
	int64_t begin, end;
	int64_t since_mono;
};

struct jank_whosts {
	struct jank_live_input *in;
	jank_whosts_send_fn send;
	void *data;
	struct wflow *batch; /* JANK_WHOSTS_BATCH */
	size_t n;
	uint64_t dropped; /* since the last message */
	struct wrequest req[JANK_WHOSTS_PENDING];
	size_t nreq;
	bool on;
};

void jank_whosts_set_on(struct jank_whosts *wh, bool on)
{
	if (wh)
		wh->on = on;
}

static void on_flow(const struct jank_flow_note *n, void *data)
{
	struct jank_whosts *wh = data;
	const struct jank_flow_rule *f;
	struct wflow *b;

	/* A `to` its own engine paired stays on this host; one host alone joins nothing. */
	if (!wh->on || (n->to && n->paired))
		return;
	if (wh->n == JANK_WHOSTS_BATCH) {
		wh->dropped++;
		return;
	}
	f = jank_engine_flow(jank_live_input_engine(wh->in), n->flow);
	b = &wh->batch[wh->n++];
	jank_utf8_copy(b->flow, sizeof(b->flow), f ? f->name : "");
	jank_utf8_copy(b->key, sizeof(b->key), n->key ? n->key : "");
	b->to = n->to;
	b->tid = n->tid;
	b->ts = n->ts;
	b->is_tcp = false;
}

/* A TCP segment sent, or received and waking a thread: to the supervisor's matching. */
static void on_net(const struct jank_net_note *n, void *data)
{
	struct jank_whosts *wh = data;
	struct wflow *b;

	if (!wh->on)
		return;
	if (wh->n == JANK_WHOSTS_BATCH) {
		wh->dropped++;
		return;
	}
	b = &wh->batch[wh->n++];
	b->flow[0] = b->key[0] = '\0';
	b->to = n->recv;
	b->tid = n->tid;
	b->ts = n->ts;
	b->is_tcp = true;
	b->tcp = *n->seg;
}

struct jank_whosts *jank_whosts_new(struct jank_live_input *in, jank_whosts_send_fn send,
				    void *data)
{
	struct jank_whosts *wh = calloc(1, sizeof(*wh));

	if (!wh || !(wh->batch = calloc(JANK_WHOSTS_BATCH, sizeof(*wh->batch)))) {
		free(wh);
		return NULL;
	}
	wh->in = in;
	wh->send = send;
	wh->data = data;
	jank_engine_set_flow_cb(jank_live_input_engine_mut(in), on_flow, wh);
	jank_engine_set_net_cb(jank_live_input_engine_mut(in), on_net, wh);
	return wh;
}

void jank_whosts_free(struct jank_whosts *wh)
{
	if (!wh)
		return;
	jank_engine_set_flow_cb(jank_live_input_engine_mut(wh->in), NULL, NULL);
	jank_engine_set_net_cb(jank_live_input_engine_mut(wh->in), NULL, NULL);
	free(wh->batch);
	free(wh);
}

/* [flow, key, to, tid, ts], and a TCP segment's headers (worker-proto.h) */
static struct json_object *flow_json(const struct wflow *f)
{
	struct json_object *a = json_object_new_array_ext(6), *t = NULL;

	if (!a || json_object_array_add(a, json_object_new_string(f->flow)) ||
	    json_object_array_add(a, json_object_new_string(f->key)) ||
	    json_object_array_add(a, json_object_new_boolean(f->to)) ||
	    json_object_array_add(a, json_object_new_int(f->tid)) ||
	    json_object_array_add(a, json_object_new_int64(f->ts)) ||
	    (f->is_tcp &&
	     (!(t = jank_worker_proto_tcp_json(&f->tcp)) || json_object_array_add(a, t)))) {
		json_object_put(t);
		json_object_put(a);
		return NULL;
	}
	return a;
}

void jank_whosts_flush(struct jank_whosts *wh)
{
	struct json_object *msg, *a;
	int e = 0;

	if (!wh || (wh->n == 0 && wh->dropped == 0))
		return;
	msg = jank_worker_proto_new("flows");
	a = json_object_new_array_ext((int)wh->n);
	for (size_t i = 0; a && !e && i < wh->n; i++) {
		struct json_object *f = flow_json(&wh->batch[i]);

		e = !f || json_object_array_add(a, f);
		if (e)
			json_object_put(f);
	}
	if (e) {
		json_object_put(a);
		a = NULL;
	}
	if (!msg)
		json_object_put(a);
	if (!msg || jank_json_add(msg, "flows", a) < 0 ||
	    jank_json_add_u64(msg, "dropped", wh->dropped) < 0) {
		json_object_put(msg);
		wh->dropped += wh->n; /* out of memory: counted as dropped, next time */
		wh->n = 0;
		return;
	}
	wh->n = 0;
	wh->dropped = 0;
	wh->send(msg, wh->data);
}

/* The answer to request r: its path, or none (answered false). */
static void answer(struct jank_whosts *wh, const struct wrequest *r, bool path)
{
	struct json_object *msg = jank_worker_proto_new("path");
	/* A verdict of no rule of the configuration: the decoder wants an action's name. */
	static const struct jank_rule stub = { .name = (char *)"(path)" };
	struct jank_verdict v = {
		.rule = &stub, .begin = r->begin, .end = r->end, .tid = r->tid, .key = ""
	};
	struct jank_breakdown bd;
	struct jank_path p;
	int e = 0;

	if (!msg)
		return;
	jank_path_init(&p);
	jank_breakdown_init(&bd);
	if (path && r->end >= r->begin &&
	    jank_live_input_path(wh->in, r->tid, r->begin, r->end, &p) != -EINVAL &&
	    jank_breakdown_compute(&p, &bd) == 0) {
		v.duration = r->end - r->begin;
		v.path = &p;
		v.breakdown = &bd;
		v.incomplete = p.incomplete;
		e |= jank_json_add(msg, "verdict",
				   jank_verdict_to_json(&v, JANK_VERDICT_JSON_FULL));
	} else {
		path = false;
	}
	e |= jank_json_add_i64(msg, "id", r->id);
	e |= jank_json_add_bool(msg, "answered", path);
	if (!e)
		wh->send(msg, wh->data);
	else
		json_object_put(msg);
	jank_breakdown_fini(&bd);
	jank_path_fini(&p);
}

void jank_whosts_request(struct jank_whosts *wh, struct json_object *msg)
{
	struct wrequest r = { 0 };
	int64_t tid = 0;

	if (!wh || !jank_json_get_i64(msg, "id", &r.id) || !jank_json_get_i64(msg, "tid", &tid) ||
	    !jank_json_get_i64(msg, "begin", &r.begin) || !jank_json_get_i64(msg, "end", &r.end))
		return;
	r.tid = (int32_t)tid;
	r.since_mono = jank_clock_monotonic_ns();
	if (wh->nreq == JANK_WHOSTS_PENDING) {
		answer(wh, &r, false);
		return;
	}
	wh->req[wh->nreq++] = r;
	jank_whosts_tick(wh);
}

void jank_whosts_tick(struct jank_whosts *wh)
{
	struct jank_engine_stats st;
	int64_t mono = jank_clock_monotonic_ns();
	size_t k = 0;

	if (!wh)
		return;
	jank_whosts_flush(wh);
	jank_engine_get_stats(jank_live_input_engine(wh->in), &st);
	for (size_t i = 0; i < wh->nreq; i++) {
		const struct wrequest *r = &wh->req[i];

		/* The stream passed the time in question: the graph has all it will have. */
		if (st.now != INT64_MIN && st.now >= r->end)
			answer(wh, r, true);
		else if (mono - r->since_mono > JANK_WHOSTS_WAIT_NS)
			answer(wh, r, false);
		else
			wh->req[k++] = *r;
	}
	wh->nreq = k;
}
