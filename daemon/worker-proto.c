/* SPDX-License-Identifier: MIT */
/*
 * Frames and verdicts between jankd's supervisor and its workers (see
 * worker-proto.h). The verdict travels as io/format-verdict.c writes it for
 * `jankctl analyze --format json`, so there is one JSON form of a verdict;
 * this file reads it back.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include "array.h"
#include "input-figures.h"
#include "json-util.h"
#include "state.h"
#include "worker-proto.h"

struct json_object *jank_proto_new(const char *type)
{
	struct json_object *o = json_object_new_object();

	if (o && jank_json_add_str(o, "type", type) < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

const char *jank_proto_type(struct json_object *msg)
{
	const char *t = jank_json_get_str(msg, "type");

	return t ? t : "";
}

int jank_proto_put(struct evbuffer *out, struct json_object *msg)
{
	size_t len = 0;
	const char *text = json_object_to_json_string_length(
		msg, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	uint32_t head;

	if (!text)
		return -ENOMEM;
	if (len > JANK_PROTO_MAX_FRAME)
		return -EMSGSIZE;
	head = htonl((uint32_t)len);
	if (evbuffer_add(out, &head, sizeof(head)) != 0 || evbuffer_add(out, text, len) != 0)
		return -ENOMEM;
	return 0;
}

int jank_proto_take(struct evbuffer *in, struct json_object **msg)
{
	struct json_tokener *tok;
	uint32_t head;
	size_t len;
	char *text;

	bool whole = false;

	*msg = NULL;
	if (evbuffer_copyout(in, &head, sizeof(head)) < (ev_ssize_t)sizeof(head))
		return 0;
	/* The length is checked before anything is allocated or waited for. */
	len = ntohl(head);
	if (len > JANK_PROTO_MAX_FRAME)
		return -EMSGSIZE;
	if (evbuffer_get_length(in) < sizeof(head) + len)
		return 0;
	evbuffer_drain(in, sizeof(head));
	text = len ? (char *)evbuffer_pullup(in, (ev_ssize_t)len) : NULL;
	tok = text ? json_tokener_new() : NULL;
	if (tok) {
		/* Strict JSON: what json-c writes, and nothing a lenient parser guesses at. */
		json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
		*msg = json_tokener_parse_ex(tok, text, (int)len);
		/* One object, and nothing after it. */
		whole = json_tokener_get_error(tok) == json_tokener_success &&
			json_tokener_get_parse_end(tok) == len;
		json_tokener_free(tok); /* not NULL: json-c would crash */
	}
	evbuffer_drain(in, len);
	if (!*msg || !whole || !json_object_is_type(*msg, json_type_object)) {
		json_object_put(*msg);
		*msg = NULL;
		return -EPROTO;
	}
	return 1;
}

/* ---- Log lines ---- */

int jank_proto_log_decode(struct json_object *msg, int *priority, char *line, size_t len)
{
	struct json_object *m = jank_json_get(msg, "message", json_type_string);
	struct json_object *p;
	const char *s;
	size_t n, i;

	*priority = LOG_INFO;
	if (len)
		line[0] = '\0';
	if (!m || !len)
		return -EINVAL;
	if (json_object_object_get_ex(msg, "priority", &p)) {
		int64_t v;

		if (!json_object_is_type(p, json_type_int))
			return -EINVAL;
		v = json_object_get_int64(p);
		*priority = v < LOG_ERR ? LOG_ERR : v > LOG_DEBUG ? LOG_DEBUG : (int)v;
	}
	s = json_object_get_string(m);
	n = (size_t)json_object_get_string_len(m);
	if (n > len - 1) {
		n = len - 1;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80) /* a continuation byte */
			n--;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		line[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	line[n] = '\0';
	return 0;
}

/* ---- Figures ---- */

/*
 * The worker is not trusted: a figure that is missing, of another type or
 * out of its range makes the whole status unreadable (it is the same
 * program: a bug, or a worker gone astray), rather than a silent 0.
 */
static int bad(char *err, size_t len, const char *what, const char *key)
{
	snprintf(err, len, "\"%s\" %s", key, what);
	return -EINVAL;
}

/* A string of the table: shorter than its buffer, no control character but tabs. */
static int str_decode(struct json_object *v, const struct jank_figure_field *d, char *to, char *err,
		      size_t len)
{
	const char *s = json_object_get_string(v);
	size_t n = (size_t)json_object_get_string_len(v);

	if (n >= d->size || strlen(s) != n)
		return bad(err, len, "is too long", d->key);
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)
			return bad(err, len, "has a control character", d->key);
	memcpy(to, s, n + 1);
	return 0;
}

static int enum_decode(struct json_object *v, const struct jank_figure_field *d, int *to, char *err,
		       size_t len)
{
	const char *s = json_object_get_string(v);

	for (int i = 0; d->names[i]; i++) {
		if (!strcmp(s, d->names[i])) {
			*to = i;
			return 0;
		}
	}
	return bad(err, len, "has an unknown value", d->key);
}

/* [[index, count], ...]: indexes ascending and in range, counts positive, their sum exact. */
static int buckets_decode(struct json_object *a, struct jank_histogram *h, char *err, size_t len)
{
	int64_t last = -1;

	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *p = json_object_array_get_idx(a, i);
		struct json_object *idx = json_object_array_get_idx(p, 0);
		struct json_object *n = json_object_array_get_idx(p, 1);
		int64_t b, c;

		if (!json_object_is_type(p, json_type_array) || json_object_array_length(p) != 2 ||
		    !json_object_is_type(idx, json_type_int) ||
		    !json_object_is_type(n, json_type_int))
			return bad(err, len, "has a bucket that is not [index, count]", "buckets");
		b = json_object_get_int64(idx);
		c = json_object_get_int64(n);
		if (b <= last || b >= JANK_HIST_BUCKETS || c <= 0 ||
		    h->count + (uint64_t)c < h->count)
			return bad(err, len, "has a bucket out of range", "buckets");
		h->buckets[b] = (uint64_t)c;
		h->count += (uint64_t)c;
		last = b;
	}
	return 0;
}

static int histogram_decode(struct json_object *o, struct jank_histogram *h, char *err, size_t len)
{
	struct json_object *sum = jank_json_get(o, "sum", json_type_int);
	struct json_object *min = jank_json_get(o, "min", json_type_int);
	struct json_object *max = jank_json_get(o, "max", json_type_int);
	struct json_object *b = jank_json_get(o, "buckets", json_type_array);
	int r;

	jank_histogram_init(h);
	if (!sum || !min || !max || !b)
		return bad(err, len, "lacks sum, min, max or buckets", "histogram");
	if (json_object_get_int64(sum) < 0)
		return bad(err, len, "is out of range", "sum");
	r = buckets_decode(b, h, err, len);
	if (r < 0)
		return r;
	h->sum = (uint64_t)json_object_get_int64(sum);
	if (h->count) {
		h->min = json_object_get_int64(min);
		h->max = json_object_get_int64(max);
		if (h->min > h->max)
			return bad(err, len, "is above max", "min");
	}
	return 0;
}

static int rules_decode(struct json_object *a, struct jank_input_figures *f, char *err, size_t len);

/* The fields d[0..n) of `o` into `base`; `f`: the input's figures (for "rules"). */
static int fields_decode(struct json_object *o, const struct jank_figure_field *d, size_t n,
			 void *base, struct jank_input_figures *f, char *err, size_t len)
{
	static const enum json_type types[] = {
		[JANK_FIGURE_U64] = json_type_int,	 [JANK_FIGURE_I64] = json_type_int,
		[JANK_FIGURE_RATE] = json_type_double,	 [JANK_FIGURE_BOOL] = json_type_boolean,
		[JANK_FIGURE_STR] = json_type_string,	 [JANK_FIGURE_ENUM] = json_type_string,
		[JANK_FIGURE_OBJECT] = json_type_object, [JANK_FIGURE_HISTOGRAM] = json_type_object,
		[JANK_FIGURE_RULES] = json_type_array,
	};
	int r = 0;

	for (size_t i = 0; i < n && r == 0; i++) {
		char *p = (char *)base + d[i].offset;
		struct json_object *v = NULL;
		int64_t x;
		double y;

		if (!json_object_object_get_ex(o, d[i].key, &v)) {
			if (!(d[i].flags & JANK_FIGURE_OPTIONAL))
				return bad(err, len, "is missing", d[i].key);
			if (d[i].type == JANK_FIGURE_I64)
				*(int64_t *)p = d[i].absent;
			continue;
		}
		/* A rate that is a whole number may come as an integer. */
		if (!json_object_is_type(v, types[d[i].type]) &&
		    !(d[i].type == JANK_FIGURE_RATE && json_object_is_type(v, json_type_int)))
			return bad(err, len, "is of the wrong type", d[i].key);
		switch (d[i].type) {
		case JANK_FIGURE_U64:
			x = json_object_get_int64(v);
			if (x < 0)
				return bad(err, len, "is negative", d[i].key);
			*(uint64_t *)p = (uint64_t)x;
			break;
		case JANK_FIGURE_I64:
			x = json_object_get_int64(v);
			if (x < d[i].min || x > d[i].max)
				return bad(err, len, "is out of range", d[i].key);
			*(int64_t *)p = x;
			break;
		case JANK_FIGURE_RATE:
			y = json_object_get_double(v);
			if (!isfinite(y) || y < 0 || y > (double)d[i].max)
				return bad(err, len, "is out of range", d[i].key);
			*(double *)p = y;
			break;
		case JANK_FIGURE_BOOL:
			*(bool *)p = json_object_get_boolean(v);
			break;
		case JANK_FIGURE_STR:
			r = str_decode(v, &d[i], p, err, len);
			break;
		case JANK_FIGURE_ENUM:
			r = enum_decode(v, &d[i], (int *)p, err, len);
			break;
		case JANK_FIGURE_OBJECT:
			r = fields_decode(v, d + i + 1, d[i].size, base, f, err, len);
			i += d[i].size;
			break;
		case JANK_FIGURE_HISTOGRAM:
			r = histogram_decode(v, (struct jank_histogram *)p, err, len);
			break;
		case JANK_FIGURE_RULES:
			r = rules_decode(v, f, err, len);
			break;
		}
	}
	return r;
}

static int rules_decode(struct json_object *a, struct jank_input_figures *f, char *err, size_t len)
{
	size_t n = json_object_array_length(a);

	if (n > JANK_FIGURES_MAX_RULES)
		return bad(err, len, "are too many", "rules");
	if (jank_figures_set_rules(f, n) < 0) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(a, i);
		struct jank_rule_figures *r = &f->rules[i];
		int e;

		if (!json_object_is_type(o, json_type_object))
			return bad(err, len, "holds a rule that is not an object", "rules");
		e = fields_decode(o, jank_figures_rule_fields, jank_figures_rule_nfields, r, NULL,
				  err, len);
		if (e < 0)
			return e;
		/* The worker counts its actions in the histogram. */
		if (r->count != r->hist.count)
			return bad(err, len, "differs from its histogram's", "count");
	}
	return 0;
}

int jank_proto_figures_decode(struct json_object *o, struct jank_input_figures *out, char *err,
			      size_t len)
{
	int r;

	jank_figures_fini(out);
	if (!json_object_is_type(o, json_type_object)) {
		snprintf(err, len, "the figures are not an object");
		return -EINVAL;
	}
	r = fields_decode(o, jank_figures_input_fields, jank_figures_input_nfields, out, out, err,
			  len);
	if (r < 0) {
		jank_figures_fini(out);
		return r;
	}
	out->reported = true;
	out->counted = true;
	return 0;
}

/* ---- Verdicts ---- */

static int64_t get_i64(struct json_object *o, const char *k)
{
	int64_t v = 0;

	jank_json_get_i64(o, k, &v);
	return v;
}

static bool get_bool(struct json_object *o, const char *k)
{
	struct json_object *v = jank_json_get(o, k, json_type_boolean);

	return v && json_object_get_boolean(v);
}

/* The segment's stack (function names, outermost first), as frames of p. */
static int stack_decode(struct json_object *s, struct jank_path *p, struct jank_segment *out)
{
	struct json_object *a = jank_json_get(s, "stack", json_type_array);
	size_t n = a ? json_object_array_length(a) : 0;
	uint32_t frames[JANK_STACK_DEPTH];

	if (!n)
		return 0;
	if (n > JANK_STACK_DEPTH)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(a, i);

		if (!json_object_is_type(v, json_type_string))
			return -EINVAL;
		frames[i] = jank_path_frame(p, 0, -1, false, json_object_get_string(v));
		if (!frames[i])
			return -ENOMEM;
	}
	/* Consecutive segments mostly share their stack. */
	if (p->nstacks) {
		uint32_t m;
		const uint32_t *last = jank_path_stack_of(p, (uint32_t)p->nstacks, &m);

		if (m == n && !memcmp(last, frames, n * sizeof(*frames))) {
			out->stack = (uint32_t)p->nstacks;
			return 0;
		}
	}
	out->stack = jank_path_stack(p, frames, (uint32_t)n);
	return out->stack ? 0 : -ENOMEM;
}

/* The segment's flow and span, as labels of p (0: none, UINT32_MAX: no memory). */
static int labels_decode(struct json_object *s, struct jank_path *p, struct jank_segment *out)
{
	const char *flow = jank_json_get_str(s, "flow");
	struct json_object *span = jank_json_get(s, "span", json_type_object);
	const char *action = span ? jank_json_get_str(span, "action") : NULL;
	const char *key = span ? jank_json_get_str(span, "key") : NULL;

	if (flow && !(out->flow = jank_path_label(p, flow, "")))
		return -ENOMEM;
	if (action && !(out->span = jank_path_label(p, action, key ? key : "")))
		return -ENOMEM;
	return stack_decode(s, p, out);
}

static int segment_decode(struct json_object *s, struct jank_path *p, struct jank_segment *out)
{
	const char *comm = jank_json_get_str(s, "comm");
	const char *state = jank_json_get_str(s, "state");
	const char *lock = jank_json_get_str(s, "lock");
	int st = state ? jank_state_from_name(state) : -1;

	if (st < 0)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->tid = (int32_t)get_i64(s, "tid");
	out->state = (uint8_t)st;
	out->begin = get_i64(s, "begin");
	out->end = get_i64(s, "end");
	out->lock = lock ? strtoull(lock, NULL, 16) : 0;
	snprintf(out->comm, sizeof(out->comm), "%s", comm ? comm : "");
	return labels_decode(s, p, out);
}

static int path_decode(struct json_object *segs, struct jank_path *p)
{
	size_t n = segs ? json_object_array_length(segs) : 0;

	while (p->cap < n)
		if (!(p->cap = jank_array_grow(&p->segs, sizeof(*p->segs), p->cap, n)))
			return -ENOMEM;
	p->nlabels = 0;
	p->nframes = p->nstacks = p->nstack_frames = 0;
	if (p->frame_index)
		memset(p->frame_index, 0, p->frame_index_cap * sizeof(*p->frame_index));
	for (size_t i = 0; i < n; i++) {
		int r = segment_decode(json_object_array_get_idx(segs, i), p, &p->segs[i]);

		if (r < 0)
			return r;
	}
	p->n = n;
	return 0;
}

static double get_double(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_double(v) : 0;
}

static void copy_str(char *dst, size_t len, struct json_object *o, const char *key)
{
	const char *v = jank_json_get_str(o, key);

	snprintf(dst, len, "%s", v ? v : "");
}

/* One item of jank_format_suspects_json(); -EINVAL when its kind or state is unknown. */
static int suspect_decode(struct json_object *o, struct jank_suspect *s)
{
	const char *kind = jank_json_get_str(o, "kind");
	const char *state = jank_json_get_str(o, "state");
	const char *lock = jank_json_get_str(o, "lock");
	struct jank_comp *c = &s->comp;
	int k = -1, st = state ? jank_state_from_name(state) : 0;

	for (int i = 0; kind && i < JANK_COMP_KIND_COUNT; i++)
		if (!strcmp(kind, jank_comp_kind_name(i)))
			k = i;
	if (k < 0 || st < 0)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	c->key.kind = (uint8_t)k;
	c->key.state = k == JANK_COMP_LOCK || k == JANK_COMP_FUNCTION ? 0 : (uint8_t)st;
	copy_str(c->process, sizeof(c->process), o, "process");
	copy_str(c->thread, sizeof(c->thread), o, "thread");
	if (k == JANK_COMP_LOCK) {
		c->key.id = lock ? strtoull(lock, NULL, 16) : 0;
	} else if (k == JANK_COMP_THREAD) {
		c->key.id = jank_comp_identity(c->process, c->thread);
	} else if (k == JANK_COMP_FUNCTION) {
		/* By name, as a frame of a path rebuilt from names is. */
		struct jank_frame f = { 0 };

		copy_str(f.name, sizeof(f.name), o, "function");
		memcpy(s->function, f.name, sizeof(s->function));
		c->key.id = jank_comp_function_identity(&f);
		c->fn_state = (uint8_t)st;
		s->increase = get_double(o, "increase");
		s->presence_slow = get_double(o, "slow_presence");
		s->presence_normal = get_double(o, "normal_presence");
		s->rank = (double)get_i64(o, "rank_ns");
	}
	c->tid = (int32_t)get_i64(o, "tid");
	c->ns = get_i64(o, "ns");
	s->own = get_bool(o, "own");
	s->normal = (double)get_i64(o, "normal_ns");
	s->delta = get_i64(o, "delta_ns");
	s->ratio = get_double(o, "ratio");
	if (k != JANK_COMP_FUNCTION)
		s->rank = (double)s->delta;
	return 0;
}

/* The inverse of jank_format_suspects_json(), for the alert the supervisor sends. */
static int suspects_decode(struct json_object *o, struct jank_suspects *ss)
{
	struct json_object *items = jank_json_get(o, "items", json_type_array);
	struct json_object *ran = jank_json_get(o, "cpu_taken_by", json_type_array);

	memset(ss, 0, sizeof(*ss));
	ss->ready = get_bool(o, "ready");
	ss->normal = (uint64_t)get_i64(o, "normal_actions");
	ss->normal_duration = (double)get_i64(o, "normal_duration_ns");
	for (size_t i = 0;
	     items && i < json_object_array_length(items) && ss->n < JANK_SUSPECTS_MAX; i++)
		if (suspect_decode(json_object_array_get_idx(items, i), &ss->items[ss->n]) == 0)
			ss->n++;
	for (size_t i = 0; ran && i < json_object_array_length(ran) && ss->nran < JANK_RAN_MAX;
	     i++) {
		struct json_object *r = json_object_array_get_idx(ran, i);
		struct jank_ran *to = &ss->ran[ss->nran++];

		to->tid = (int32_t)get_i64(r, "tid");
		to->ns = get_i64(r, "ns");
		copy_str(to->comm, sizeof(to->comm), r, "comm");
	}
	return 0;
}

/* The receiver's own rule of that name, or a stub that only names it. */
static const struct jank_rule *rule_find(struct jank_proto_verdict *pv, const char *name,
					 const struct jank_rule *rules, size_t n, uint32_t *index)
{
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(rules[i].name, name)) {
			*index = (uint32_t)i;
			return &rules[i];
		}
	}
	pv->stub.name = strdup(name);
	*index = UINT32_MAX;
	return pv->stub.name ? &pv->stub : NULL;
}

int jank_proto_verdict_decode(struct json_object *o, const struct jank_rule *rules, size_t nrules,
			      struct jank_proto_verdict *pv)
{
	const char *action = jank_json_get_str(o, "action");
	const char *key = jank_json_get_str(o, "key");
	const char *comm = jank_json_get_str(o, "comm");
	const char *kind = jank_json_get_str(o, "kind");
	struct jank_verdict *v = &pv->v;
	int r;

	memset(pv, 0, sizeof(*pv));
	jank_rule_init(&pv->stub);
	jank_path_init(&pv->path);
	jank_breakdown_init(&pv->breakdown);
	if (!action || !jank_json_get(o, "begin", json_type_int) ||
	    !jank_json_get(o, "end", json_type_int))
		return -EINVAL;
	v->rule = rule_find(pv, action, rules, nrules, &v->rule_index);
	if (!v->rule)
		return -ENOMEM;
	snprintf(pv->key, sizeof(pv->key), "%s", key ? key : "");
	snprintf(pv->comm, sizeof(pv->comm), "%s", comm ? comm : "");
	v->kind = kind && !strcmp(kind, "overdue") ? JANK_VERDICT_OVERDUE : JANK_VERDICT_COMPLETED;
	v->key = pv->key;
	v->comm = pv->comm;
	v->begin = get_i64(o, "begin");
	v->end = get_i64(o, "end");
	v->duration = get_i64(o, "duration_ns");
	v->threshold = get_i64(o, "threshold_ns");
	v->tid = (int32_t)get_i64(o, "tid");
	v->pid = (int32_t)get_i64(o, "pid");
	v->over_threshold = get_bool(o, "over_threshold");
	v->incomplete = get_bool(o, "incomplete");
	r = path_decode(jank_json_get(o, "critical_path", json_type_array), &pv->path);
	if (r < 0)
		return r;
	pv->path.tid = v->tid;
	pv->path.begin = v->begin;
	pv->path.end = v->end;
	pv->path.truncated = get_bool(o, "truncated");
	pv->path.incomplete = v->incomplete;
	if (jank_breakdown_compute(&pv->path, &pv->breakdown) == -ENOMEM)
		v->incomplete = true;
	v->path = &pv->path;
	v->breakdown = &pv->breakdown;
	if (jank_json_get(o, "suspects", json_type_object) &&
	    suspects_decode(jank_json_get(o, "suspects", json_type_object), &pv->suspects) == 0)
		v->suspects = &pv->suspects;
	return 0;
}

void jank_proto_verdict_fini(struct jank_proto_verdict *pv)
{
	jank_path_fini(&pv->path);
	jank_breakdown_fini(&pv->breakdown);
	jank_rule_fini(&pv->stub);
}
