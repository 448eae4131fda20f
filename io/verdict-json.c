/* SPDX-License-Identifier: MIT */
/*
 * A verdict as JSON, both ways (see verdict-json.h). Each part has its
 * encoder and its decoder next to each other: the head, a path segment, a
 * suspect, who had the CPU, the suspects, the verdict.
 *
 * The decoder never trusts what it reads. An integer is a JSON integer in
 * its range; a string fits its buffer whole (a name cut short would no
 * longer match) and holds no NUL; a name (kind, state) is one of its
 * table's. Decoding what the encoder wrote gives back what it was given,
 * so that encoding again writes the same bytes (tests/io/test-verdict-json.c,
 * tests/fuzz/fuzz-verdict.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "format-int.h"
#include "format.h"
#include "json-read.h"
#include "json-util.h"
#include "state.h"
#include "textsafe.h"
#include "verdict-json.h"

#define TIME_MAX    JANK_VERDICT_TIME_MAX
#define EXACT_MAX   (INT64_C(1) << 53) /* a mean in ns, read back as a double exactly */
#define TID_RANGE   -1, INT32_MAX      /* -1: the trace did not say */
#define LOCK_DIGITS 16

/* ---- Decoding: the checks every member goes through (json-read.h) ---- */

struct dec {
	struct jank_jr jr; /* jr.at: "", "critical_path[3].", "suspects.items[0]." */
};

#define fail(d, key, ...) jank_json_read_fail(&(d)->jr, key, __VA_ARGS__)

/*
 * A value read, to quote in an error: at most 32 bytes of it, control
 * characters as '?', so that a message stays one short line (a log line,
 * a journald field) whatever the input holds.
 */
static const char *quote(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	for (; *s && n + 4 < len && n < 32; s++)
		buf[n++] = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
	if (*s && n + 4 <= len)
		buf[n++] = '.', buf[n++] = '.', buf[n++] = '.';
	buf[n] = '\0';
	return buf;
}

/* An integer in [lo, hi]: 0 (set), 1 (absent: *out = dflt), or -EINVAL. */
static int get_int(struct dec *d, struct json_object *o, const char *key, int64_t lo, int64_t hi,
		   int64_t dflt, int64_t *out)
{
	return jank_json_read_int(&d->jr, o, key, false, lo, hi, dflt, out);
}

/* The same, required. */
static int need_int(struct dec *d, struct json_object *o, const char *key, int64_t lo, int64_t hi,
		    int64_t *out)
{
	return jank_json_read_int(&d->jr, o, key, true, lo, hi, 0, out);
}

/* A thread or process id, -1 when the trace did not say; `dflt` when absent. */
static int get_id(struct dec *d, struct json_object *o, const char *key, int32_t dflt, int32_t *out)
{
	int64_t v;
	int r = get_int(d, o, key, TID_RANGE, dflt, &v);

	*out = (int32_t)v;
	return r < 0 ? r : 0;
}

static int get_bool(struct dec *d, struct json_object *o, const char *key, bool dflt, bool *out)
{
	return jank_json_read_bool(&d->jr, o, key, false, dflt, out);
}

/* A string that fits `len` bytes with its NUL: 0 (set), 1 (absent: *out = NULL), or -EINVAL. */
static int get_str(struct dec *d, struct json_object *o, const char *key, size_t len,
		   const char **out)
{
	return jank_json_read_str(&d->jr, o, key, false, len, out);
}

/*
 * s[0..n) into buf[len] as valid UTF-8 (each invalid byte U+FFFD, as the
 * encoder writes it), cut on a character boundary when it does not fit.
 * Returns 0 or -ENOMEM.
 */
static int text_copy(char *buf, size_t len, const char *s, size_t n)
{
	char *tmp;

	if (jank_utf8_valid(s, n)) {
		jank_utf8_copy(buf, len, s);
		return 0;
	}
	tmp = malloc(n * 3 + 4);
	if (!tmp)
		return -ENOMEM;
	jank_utf8_sanitize(tmp, n * 3 + 4, s, n, 0);
	jank_utf8_copy(buf, len, tmp);
	free(tmp);
	return 0;
}

/*
 * A traced string (a comm, a key, a function's name) into buf[len]; ""
 * when absent. The encoder made it valid UTF-8 (json-util.h), each invalid
 * byte of the engine's string three bytes of U+FFFD: so the JSON may hold up
 * to JANK_VERDICT_TEXT_LEN(len) bytes of it, and what does not fit buf is
 * cut on a character boundary (textsafe.h). It is copied valid
 * UTF-8, so that encoding it again writes the same bytes.
 */
static int copy_str(struct dec *d, struct json_object *o, const char *key, char *buf, size_t len)
{
	const char *s;
	int r = get_str(d, o, key, JANK_VERDICT_TEXT_LEN(len), &s);

	if (r < 0)
		return r;
	return text_copy(buf, len, s ? s : "", s ? strlen(s) : 0);
}

/* A name of a table (kind, state): its value, or -EINVAL. Absent: `dflt` (-1: required). */
static int get_name(struct dec *d, struct json_object *o, const char *key,
		    int (*from_name)(const char *), int dflt)
{
	const char *s;
	int r = get_str(d, o, key, 64, &s), v;
	char q[40];

	if (r < 0)
		return r;
	if (r == 1)
		return dflt >= 0 ? dflt : fail(d, key, "missing");
	v = from_name(s);
	return v >= 0 ? v : fail(d, key, "unknown name '%s'", quote(s, q, sizeof(q)));
}

/* A mutex as format_lock() names it, "0x55d0". */
static int get_lock(struct dec *d, struct json_object *o, const char *key, bool required,
		    uint64_t *out)
{
	const char *s;
	int r = get_str(d, o, key, 3 + LOCK_DIGITS, &s);
	char q[40];
	size_t n;

	*out = 0;
	if (r < 0)
		return r;
	if (r == 1)
		return required ? fail(d, key, "missing") : 0;
	n = strlen(s);
	if (n < 3 || strncmp(s, "0x", 2) != 0 || strspn(s + 2, "0123456789abcdef") != n - 2)
		return fail(d, key, "'%s' is not an address in lowercase hex (0x55d0)",
			    quote(s, q, sizeof(q)));
	for (const char *p = s + 2; *p; p++)
		*out = *out * 16 + (uint64_t)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
	return 0;
}

/* A member of type `type`, NULL when absent: *r 0 or -EINVAL. */
static struct json_object *get_typed(struct dec *d, struct json_object *o, const char *key,
				     enum json_type type, int *r)
{
	struct json_object *v;
	int e = jank_json_read_member(&d->jr, o, key, type, false, &v);

	*r = e < 0 ? e : 0;
	return v;
}

/* ---- A path segment ---- */

/* The segment's span: {"action", "key"}, the innermost open action of its thread. */
static int span_to_json(struct json_object *o, const struct jank_label *l)
{
	struct json_object *span = json_object_new_object();
	int r;

	if (!span)
		return -ENOMEM;
	r = jank_json_add_str(span, "action", l->name);
	r |= jank_json_add_str(span, "key", l->key);
	if (r) {
		json_object_put(span);
		return r;
	}
	return jank_json_add(o, "span", span);
}

/* "stack": the function names of the segment's call stack, outermost first. */
static int stack_to_json(struct json_object *o, const struct jank_path *p, uint32_t stack)
{
	uint32_t n;
	const uint32_t *f = jank_path_stack_of(p, stack, &n);
	struct json_object *a;
	int r;

	if (!f || !n)
		return 0;
	a = json_object_new_array();
	if (!a)
		return -ENOMEM;
	r = jank_json_add(o, "stack", a);
	for (uint32_t k = 0; !r && k < n; k++) {
		const struct jank_frame *fr = jank_path_frame_of(p, f[k]);
		struct json_object *name = jank_json_new_untrusted_string(fr ? fr->name : "?");

		if (!name || json_object_array_add(a, name) != 0) {
			json_object_put(name);
			r = -ENOMEM;
		}
	}
	return r;
}

static struct json_object *segment_to_json(const struct jank_path *p, const struct jank_segment *s)
{
	struct json_object *o = json_object_new_object();
	const struct jank_label *flow = jank_path_label_of(p, s->flow);
	const struct jank_label *span = jank_path_label_of(p, s->span);
	const struct jank_label *host = jank_path_label_of(p, s->host);
	char buf[24];
	int r = 0;

	if (!o)
		return NULL;
	if (host)
		r |= jank_json_add_str(o, "host", host->name);
	r |= jank_json_add_i64(o, "tid", s->tid);
	r |= jank_json_add_str(o, "comm", s->comm);
	r |= jank_json_add_str(o, "state", jank_state_name(s->state));
	r |= jank_json_add_i64(o, "begin", s->begin);
	r |= jank_json_add_i64(o, "end", s->end);
	if (s->lock)
		r |= jank_json_add_str(o, "lock", format_lock(s->lock, buf, sizeof(buf)));
	if (flow)
		r |= jank_json_add_str(o, "flow", flow->name);
	if (span)
		r |= span_to_json(o, span);
	if (s->stack)
		r |= stack_to_json(o, p, s->stack);
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/*
 * The segment's labels, added to the path's: "flow", a flow's name, and
 * "span", {"action", "key"}. Names and keys fit the graph's labels whole
 * (it cuts longer ones when it records them); a name is never empty.
 */
static int labels_from_json(struct dec *d, struct json_object *o, struct jank_path *p,
			    struct jank_segment *s)
{
	struct json_object *span;
	const char *flow, *action, *host;
	char key[JANK_LABEL_KEY_LEN], name[JANK_LABEL_NAME_LEN];
	size_t at;
	int r;

	/* The host of a path that crosses hosts: a name, as flows have. */
	if ((r = get_str(d, o, "host", JANK_VERDICT_TEXT_LEN(JANK_LABEL_NAME_LEN), &host)) < 0)
		return r;
	if (host && !host[0])
		return fail(d, "host", "empty");
	if (host && (text_copy(name, sizeof(name), host, strlen(host)) < 0 ||
		     !(s->host = jank_path_host(p, name))))
		return -ENOMEM;

	/* Names as the encoder writes them: valid UTF-8 (which may be longer), cut to fit. */
	if ((r = get_str(d, o, "flow", JANK_VERDICT_TEXT_LEN(JANK_LABEL_NAME_LEN), &flow)) < 0)
		return r;
	if (flow && !flow[0])
		return fail(d, "flow", "empty");
	if (flow && (text_copy(name, sizeof(name), flow, strlen(flow)) < 0 ||
		     !(s->flow = jank_path_label(p, name, ""))))
		return -ENOMEM;
	span = get_typed(d, o, "span", json_type_object, &r);
	if (r < 0 || !span)
		return r;
	/* Its members are named "critical_path[3].span.action" in an error. */
	at = jank_json_read_push(&d->jr, "span.");
	if ((r = get_str(d, span, "action", JANK_VERDICT_TEXT_LEN(JANK_LABEL_NAME_LEN), &action)) <
		    0 ||
	    (r = copy_str(d, span, "key", key, sizeof(key))) < 0)
		return r;
	if (!action || !action[0])
		return fail(d, "action", action ? "empty" : "missing");
	jank_json_read_pop(&d->jr, at);
	if (text_copy(name, sizeof(name), action, strlen(action)) < 0 ||
	    !(s->span = jank_path_label(p, name, key)))
		return -ENOMEM;
	return 0;
}

/*
 * The segment's call stack, "stack": 1 to JANK_STACK_DEPTH function names,
 * outermost first, each non-empty and shorter than JANK_FRAME_NAME_LEN (the
 * engine names every frame it puts on a path). They become frames of the
 * path by name (address 0), as the engine's would be after naming.
 */
static int stack_from_json(struct dec *d, struct json_object *o, struct jank_path *p,
			   struct jank_segment *s)
{
	uint32_t frames[JANK_STACK_DEPTH], m;
	struct json_object *a;
	const uint32_t *last;
	char key[32];
	size_t n;
	int r;

	a = get_typed(d, o, "stack", json_type_array, &r);
	if (r < 0 || !a)
		return r;
	n = json_object_array_length(a);
	if (n == 0)
		return fail(d, "stack", "empty");
	if (n > JANK_STACK_DEPTH)
		return fail(d, "stack", "more than %d functions", JANK_STACK_DEPTH);
	for (size_t i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(a, i);
		char name[JANK_FRAME_NAME_LEN];
		const char *raw;
		size_t len;

		snprintf(key, sizeof(key), "stack[%zu]", i);
		/* A traced name, as copy_str() reads one. */
		if (jank_json_read_str_value(&d->jr, v, key,
					     JANK_VERDICT_TEXT_LEN(JANK_FRAME_NAME_LEN), &raw) < 0)
			return -EINVAL;
		len = strlen(raw);
		if (len == 0)
			return fail(d, key, "empty");
		if (text_copy(name, sizeof(name), raw, len) < 0)
			return -ENOMEM;
		if (!(frames[i] = jank_path_frame(p, 0, -1, false, name)))
			return -ENOMEM;
	}
	/* Consecutive segments mostly share their stack. */
	last = p->nstacks ? jank_path_stack_of(p, (uint32_t)p->nstacks, &m) : NULL;
	if (last && m == n && !memcmp(last, frames, n * sizeof(*frames))) {
		s->stack = (uint32_t)p->nstacks;
		return 0;
	}
	s->stack = jank_path_stack(p, frames, (uint32_t)n);
	return s->stack ? 0 : -ENOMEM;
}

/* One segment of p, which must begin at or after `from` and end by `to`. */
static int segment_from_json(struct dec *d, struct json_object *o, int64_t from, int64_t to,
			     struct jank_path *p, struct jank_segment *s)
{
	int64_t b, e;
	int r, st;

	memset(s, 0, sizeof(*s));
	if (!json_object_is_type(o, json_type_object))
		return fail(d, "", "not an object");
	if ((r = get_id(d, o, "tid", -1, &s->tid)) < 0 ||
	    (r = copy_str(d, o, "comm", s->comm, sizeof(s->comm))) < 0 ||
	    (r = need_int(d, o, "begin", -TIME_MAX, TIME_MAX, &b)) < 0 ||
	    (r = need_int(d, o, "end", -TIME_MAX, TIME_MAX, &e)) < 0 ||
	    (r = get_lock(d, o, "lock", false, &s->lock)) < 0)
		return r;
	if ((st = get_name(d, o, "state", jank_state_from_name, -1)) < 0)
		return st;
	if (e < b)
		return fail(d, "end", "%" PRId64 " is before its begin, %" PRId64, e, b);
	if (b < from)
		return fail(d, "begin", "%" PRId64 " is before %" PRId64 " (%s)", b, from,
			    "the end of the segment before it, or the action's begin");
	if (e > to)
		return fail(d, "end", "%" PRId64 " is after the action's end, %" PRId64, e, to);
	s->state = (uint8_t)st;
	s->begin = b;
	s->end = e;
	if ((r = labels_from_json(d, o, p, s)) < 0)
		return r;
	return stack_from_json(d, o, p, s);
}

struct json_object *jank_segments_to_json(const struct jank_path *p)
{
	struct json_object *a = json_object_new_array();

	if (!a)
		return NULL;
	for (size_t i = 0; p && i < p->n; i++) {
		struct json_object *s = segment_to_json(p, &p->segs[i]);

		if (!s || json_object_array_add(a, s) != 0) {
			json_object_put(s);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

struct json_object *jank_critpath_to_json(const struct jank_path *p, const struct jank_breakdown *b)
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
	r |= jank_json_add(o, "segments", jank_segments_to_json(p));
	r |= jank_json_add(o, "breakdown", jank_format_breakdown_json(b));
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/*
 * The verdict's path: its segments lie within [begin, end] of the action,
 * in time order and without overlap, so that their durations add up to at
 * most end - begin. Then its breakdown, computed as the engine does.
 */
static int path_from_json(struct dec *d, struct json_object *o, struct jank_verdict_decoded *out)
{
	struct jank_path *p = &out->path;
	struct json_object *segs;
	int64_t from = out->v.begin;
	size_t n;
	int r;

	segs = get_typed(d, o, "critical_path", json_type_array, &r);
	if (r < 0 || (r = get_bool(d, o, "truncated", false, &p->truncated)) < 0)
		return r;
	n = segs ? json_object_array_length(segs) : 0;
	if (n > JANK_VERDICT_MAX_SEGMENTS)
		return fail(d, "critical_path", "more than %u segments", JANK_VERDICT_MAX_SEGMENTS);
	while (p->cap < n)
		if (!(p->cap = jank_array_grow(&p->segs, sizeof(*p->segs), p->cap, n)))
			return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		jank_json_read_pop(&d->jr, 0);
		jank_json_read_push(&d->jr, "critical_path[%zu].", i);
		r = segment_from_json(d, json_object_array_get_idx(segs, i), from, out->v.end, p,
				      &p->segs[i]);
		if (r < 0)
			return r;
		from = p->segs[i].end;
		p->n = i + 1;
	}
	jank_json_read_pop(&d->jr, 0);
	p->tid = out->v.tid;
	p->begin = out->v.begin;
	p->end = out->v.end;
	p->incomplete = out->v.incomplete;
	if (jank_breakdown_compute(p, &out->breakdown) == -ENOMEM)
		out->v.incomplete = true; /* as the engine says of a partial breakdown */
	out->v.path = p;
	out->v.breakdown = &out->breakdown;
	return 0;
}

/* ---- A suspect ---- */

static struct json_object *suspect_to_json(const struct jank_suspect *s,
					   const struct jank_suspects *ss)
{
	struct json_object *o = json_object_new_object();
	const struct jank_comp *c = &s->comp;
	char buf[JANK_FORMAT_SUSPECT_LEN];
	int r = 0;

	if (!o)
		return NULL;
	r |= jank_json_add_str(o, "kind", jank_comp_kind_name(c->key.kind));
	if (c->key.kind == JANK_COMP_LOCK)
		r |= jank_json_add_str(o, "lock", format_lock(c->key.id, buf, sizeof(buf)));
	else if (c->key.kind == JANK_COMP_FUNCTION)
		r |= jank_json_add_str(o, "function", s->function);
	if (c->key.kind != JANK_COMP_LOCK)
		r |= jank_json_add_str(o, "state",
				       jank_state_name(c->key.kind == JANK_COMP_FUNCTION
							       ? c->fn_state
							       : c->key.state));
	if (c->key.kind >= JANK_COMP_THREAD) { /* thread, lock, function */
		r |= jank_json_add_str(o, "process", c->process);
		r |= jank_json_add_str(o, "thread", c->thread);
		r |= jank_json_add_i64(o, "tid", c->tid);
	}
	if (c->key.kind == JANK_COMP_THREAD || c->key.kind == JANK_COMP_FUNCTION)
		r |= jank_json_add_bool(o, "own", s->own);
	if (c->key.kind == JANK_COMP_FUNCTION) {
		r |= jank_json_add(o, "increase", json_object_new_double(s->increase));
		r |= jank_json_add(o, "slow_presence", json_object_new_double(s->presence_slow));
		r |= jank_json_add(o, "normal_presence",
				   json_object_new_double(s->presence_normal));
		r |= jank_json_add_i64(o, "rank_ns", (int64_t)(s->rank + 0.5));
	}
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

/* A number in [lo, hi] (hi: INFINITY for none); 0 when absent. */
static int get_real(struct dec *d, struct json_object *o, const char *key, double lo, double hi,
		    double *out)
{
	struct json_object *v = NULL;

	*out = 0;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return fail(d, key, "not a number");
	*out = json_object_get_double(v);
	if (!isfinite(*out) || *out < lo || *out > hi) {
		*out = 0;
		return isinf(hi) ? fail(d, key, "not a finite number, at least %g", lo)
				 : fail(d, key, "not a number in [%g, %g]", lo, hi);
	}
	return 0;
}

/* A ratio: a finite number, not negative. */
static int get_ratio(struct dec *d, struct json_object *o, double *out)
{
	return get_real(d, o, "ratio", 0, INFINITY, out);
}

/*
 * A function suspect's own members: its name (by which it is known, as a
 * frame of a path rebuilt from names is), P(f | slow) and P(f | normal) in
 * [0, 1], their difference, the increase, in [-1, 1], and its rank.
 */
static int function_from_json(struct dec *d, struct json_object *o, struct jank_suspect *s)
{
	struct jank_frame f = { 0 };
	int64_t rank;
	int r;

	if ((r = copy_str(d, o, "function", f.name, sizeof(f.name))) < 0 ||
	    (r = get_real(d, o, "increase", -1, 1, &s->increase)) < 0 ||
	    (r = get_real(d, o, "slow_presence", 0, 1, &s->presence_slow)) < 0 ||
	    (r = get_real(d, o, "normal_presence", 0, 1, &s->presence_normal)) < 0 ||
	    (r = get_int(d, o, "rank_ns", -EXACT_MAX, EXACT_MAX, 0, &rank)) < 0)
		return r;
	memcpy(s->function, f.name, sizeof(s->function));
	s->comp.key.id = jank_comp_function_identity(&f);
	s->rank = (double)rank;
	return 0;
}

/* The inverse of suspect_to_json(); "text" is written from the numbers, not read. */
static int suspect_from_json(struct dec *d, struct json_object *o, struct jank_suspect *s)
{
	struct jank_comp *c = &s->comp;
	int64_t normal;
	int k, r;

	memset(s, 0, sizeof(*s));
	if (!json_object_is_type(o, json_type_object))
		return fail(d, "", "not an object");
	if ((k = get_name(d, o, "kind", jank_comp_kind_from_name, -1)) < 0)
		return k;
	c->key.kind = (uint8_t)k;
	if (k == JANK_COMP_LOCK) {
		if ((r = get_lock(d, o, "lock", true, &c->key.id)) < 0)
			return r;
	} else if (k == JANK_COMP_FUNCTION) {
		/* The state most of its time was in; the key's state is 0. */
		if ((r = get_name(d, o, "state", jank_state_from_name, -1)) < 0)
			return r;
		c->fn_state = (uint8_t)r;
		if ((r = function_from_json(d, o, s)) < 0)
			return r;
	} else {
		if ((r = get_name(d, o, "state", jank_state_from_name, -1)) < 0)
			return r;
		c->key.state = (uint8_t)r;
	}
	if (k >= JANK_COMP_THREAD) { /* thread, lock, function */
		if ((r = copy_str(d, o, "process", c->process, sizeof(c->process))) < 0 ||
		    (r = copy_str(d, o, "thread", c->thread, sizeof(c->thread))) < 0 ||
		    (r = get_id(d, o, "tid", 0, &c->tid)) < 0)
			return r;
	}
	if (k == JANK_COMP_THREAD)
		c->key.id = jank_comp_identity(c->process, c->thread);
	if (k == JANK_COMP_THREAD || k == JANK_COMP_FUNCTION) {
		if ((r = get_bool(d, o, "own", false, &s->own)) < 0)
			return r;
	}
	if ((r = get_int(d, o, "ns", 0, INT64_MAX, 0, &c->ns)) < 0 ||
	    (r = get_int(d, o, "normal_ns", 0, EXACT_MAX, 0, &normal)) < 0 ||
	    (r = get_int(d, o, "delta_ns", -EXACT_MAX, INT64_MAX, 0, &s->delta)) < 0 ||
	    (r = get_ratio(d, o, &s->ratio)) < 0)
		return r;
	s->normal = (double)normal;
	if (k != JANK_COMP_FUNCTION)
		s->rank = (double)s->delta; /* weighed by an increase only functions have */
	return 0;
}

/* ---- Who had the CPU while the path was preempted ---- */

static struct json_object *ran_to_json(const struct jank_suspects *ss)
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

static int ran_from_json(struct dec *d, struct json_object *o, struct jank_ran *to)
{
	int r;

	memset(to, 0, sizeof(*to));
	if (!json_object_is_type(o, json_type_object))
		return fail(d, "", "not an object");
	if ((r = get_id(d, o, "tid", -1, &to->tid)) < 0 ||
	    (r = copy_str(d, o, "comm", to->comm, sizeof(to->comm))) < 0 ||
	    (r = get_int(d, o, "ns", 0, INT64_MAX, 0, &to->ns)) < 0)
		return r;
	return 0;
}

/* ---- The suspects ---- */

/* "baseline": whether they were compared with the normal actions before the action or all. */
static const char *const baseline_names[] = { "before", "trace" };

static const char *jank_suspects_baseline_name(bool whole)
{
	return baseline_names[whole];
}

static int jank_suspects_baseline_from_name(const char *name)
{
	return jank_strtable_lookup(baseline_names, JANK_STRTABLE_LEN(baseline_names), name);
}

struct json_object *jank_suspects_to_json(const struct jank_suspects *ss)
{
	struct json_object *o = json_object_new_object();
	struct json_object *items = json_object_new_array();
	char line[JANK_FORMAT_SUSPECT_LEN];
	int r = 0;

	if (!o || !items) {
		json_object_put(o);
		json_object_put(items);
		return NULL;
	}
	r |= jank_json_add_bool(o, "ready", ss->ready);
	r |= jank_json_add_u64(o, "normal_actions", ss->normal);
	r |= jank_json_add_i64(o, "needed", JANK_BASELINE_MIN);
	/* The normal actions compared with: those "before" the action, or the whole "trace"'s. */
	if (ss->ready || ss->whole)
		r |= jank_json_add_str(o, "baseline", jank_suspects_baseline_name(ss->whole));
	r |= jank_json_add_i64(o, "normal_duration_ns", (int64_t)(ss->normal_duration + 0.5));
	r |= jank_json_add_str(o, "summary", jank_format_suspects_line(ss, line, sizeof(line)));
	r |= jank_json_add(o, "items", items);
	for (size_t i = 0; r == 0 && i < ss->n; i++) {
		struct json_object *it = suspect_to_json(&ss->items[i], ss);

		if (!it || json_object_array_add(items, it) != 0) {
			json_object_put(it);
			r = -ENOMEM;
		}
	}
	r |= jank_json_add(o, "cpu_taken_by", ran_to_json(ss));
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* An array member of at most `max` elements; NULL when absent. */
static struct json_object *get_array(struct dec *d, struct json_object *o, const char *key,
				     size_t max, int *r)
{
	struct json_object *a;
	int e = jank_json_read_array(&d->jr, o, key, false, max, &a);

	*r = e < 0 ? e : 0;
	return e == 0 ? a : NULL;
}

/* The inverse of jank_suspects_to_json(); "needed" and "summary" are not read. */
static int suspects_from_json(struct dec *d, struct json_object *o, struct jank_suspects *ss)
{
	struct json_object *items, *ran;
	int64_t normal, mean;
	int r;

	memset(ss, 0, sizeof(*ss));
	jank_json_read_pop(&d->jr, 0);
	jank_json_read_push(&d->jr, "suspects.");
	if ((r = get_name(d, o, "baseline", jank_suspects_baseline_from_name, 0)) < 0)
		return r;
	ss->whole = r == 1;
	if ((r = get_bool(d, o, "ready", false, &ss->ready)) < 0 ||
	    (r = get_int(d, o, "normal_actions", 0, INT64_MAX, 0, &normal)) < 0 ||
	    (r = get_int(d, o, "normal_duration_ns", 0, EXACT_MAX, 0, &mean)) < 0)
		return r;
	ss->normal = (uint64_t)normal;
	ss->normal_duration = (double)mean;
	items = get_array(d, o, "items", JANK_SUSPECTS_MAX, &r);
	if (r < 0)
		return r;
	ran = get_array(d, o, "cpu_taken_by", JANK_RAN_MAX, &r);
	if (r < 0)
		return r;
	for (size_t i = 0; items && i < json_object_array_length(items); i++, ss->n++) {
		jank_json_read_pop(&d->jr, 0);
		jank_json_read_push(&d->jr, "suspects.items[%zu].", i);
		r = suspect_from_json(d, json_object_array_get_idx(items, i), &ss->items[i]);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; ran && i < json_object_array_length(ran); i++, ss->nran++) {
		jank_json_read_pop(&d->jr, 0);
		jank_json_read_push(&d->jr, "suspects.cpu_taken_by[%zu].", i);
		r = ran_from_json(d, json_object_array_get_idx(ran, i), &ss->ran[i]);
		if (r < 0)
			return r;
	}
	jank_json_read_pop(&d->jr, 0);
	return 0;
}

/* ---- The verdict ---- */

static int head_to_json(struct json_object *o, const struct jank_verdict *v)
{
	int e = 0;

	e |= jank_json_add_str(o, "type", "action");
	e |= jank_json_add_str(o, "kind", jank_verdict_kind_name(v->kind));
	e |= jank_json_add_str(o, "action", v->rule ? v->rule->name : NULL);
	e |= jank_json_add_str(o, "key", v->key);
	e |= jank_json_add_i64(o, "begin", v->begin);
	e |= jank_json_add_i64(o, "end", v->end);
	e |= jank_json_add_i64(o, "duration_ns", v->duration);
	e |= jank_json_add_i64(o, "threshold_ns", v->threshold);
	e |= jank_json_add_i64(o, "tid", v->tid);
	e |= jank_json_add_i64(o, "pid", v->pid);
	e |= jank_json_add_str(o, "comm", v->comm);
	e |= jank_json_add_bool(o, "over_threshold", v->over_threshold);
	return e;
}

/* What the action was, when, and on which thread: all a capture.json needs. */
static int head_from_json(struct dec *d, struct json_object *o, struct jank_verdict_decoded *out)
{
	struct jank_verdict *v = &out->v;
	const char *type, *action, *key, *comm;
	char q[40];
	int64_t x;
	int r, kind;

	if ((r = get_str(d, o, "type", 16, &type)) < 0)
		return r;
	if (type && strcmp(type, "action") != 0)
		return fail(d, "type", "'%s', not 'action'", quote(type, q, sizeof(q)));
	if ((kind = get_name(d, o, "kind", jank_verdict_kind_from_name, JANK_VERDICT_COMPLETED)) <
	    0)
		return kind;
	v->kind = (enum jank_verdict_kind)kind;
	if ((r = get_str(d, o, "action", JANK_VERDICT_ACTION_LEN, &action)) < 0)
		return r;
	if (!action || !action[0])
		return fail(d, "action", action ? "empty" : "missing");
	if (!(out->rule.name = strdup(action)))
		return -ENOMEM;
	v->rule = &out->rule;
	v->rule_index = UINT32_MAX;
	if ((r = get_str(d, o, "key", sizeof(out->key), &key)) < 0)
		return r;
	if (!key)
		return fail(d, "key", "missing");
	if (text_copy(out->key, sizeof(out->key), key, strlen(key)) < 0)
		return -ENOMEM;
	v->key = out->key;
	if ((r = need_int(d, o, "begin", -TIME_MAX, TIME_MAX, &v->begin)) < 0 ||
	    (r = need_int(d, o, "end", -TIME_MAX, TIME_MAX, &v->end)) < 0)
		return r;
	if (v->end < v->begin)
		return fail(d, "end", "%" PRId64 " is before its begin, %" PRId64, v->end,
			    v->begin);
	v->duration = v->end - v->begin; /* no overflow: both within ±TIME_MAX */
	r = get_int(d, o, "duration_ns", 0, INT64_MAX, v->duration, &x);
	if (r < 0)
		return r;
	if (x != v->duration)
		return fail(d, "duration_ns", "%" PRId64 " is not end - begin, %" PRId64, x,
			    v->duration);
	if ((r = get_int(d, o, "threshold_ns", 0, TIME_MAX, 0, &v->threshold)) < 0 ||
	    (r = need_int(d, o, "tid", TID_RANGE, &x)) < 0)
		return r;
	v->tid = (int32_t)x;
	if ((r = get_id(d, o, "pid", -1, &v->pid)) < 0 ||
	    (r = get_str(d, o, "comm", sizeof(out->comm), &comm)) < 0)
		return r;
	if (comm) {
		if (text_copy(out->comm, sizeof(out->comm), comm, strlen(comm)) < 0)
			return -ENOMEM;
		v->comm = out->comm;
	}
	r = get_bool(d, o, "over_threshold", v->threshold > 0 && v->duration > v->threshold,
		     &v->over_threshold);
	if (r < 0 || (r = get_bool(d, o, "incomplete", false, &v->incomplete)) < 0)
		return r;
	/* A count, never negative (the encoder clamps to INT64_MAX); absent (an older writer): 0.
	 */
	if ((r = get_int(d, o, "discarded_events", 0, INT64_MAX, 0, &x)) < 0)
		return r;
	v->discarded_events = (uint64_t)x;
	return 0;
}

struct json_object *jank_verdict_to_json(const struct jank_verdict *v,
					 enum jank_verdict_parts parts)
{
	struct json_object *o = json_object_new_object();
	int e;

	if (!o)
		return NULL;
	e = head_to_json(o, v);
	if (parts == JANK_VERDICT_JSON_FULL) {
		/* Events the tracer discarded in [begin, end], 0 included. */
		e |= jank_json_add_u64(o, "discarded_events", v->discarded_events);
		if (v->path && v->path->truncated)
			e |= jank_json_add_bool(o, "truncated", true);
		if (v->incomplete)
			e |= jank_json_add_bool(o, "incomplete", true);
		e |= jank_json_add(o, "critical_path", jank_segments_to_json(v->path));
		e |= jank_json_add(o, "breakdown", jank_format_breakdown_json(v->breakdown));
		if (v->suspects)
			e |= jank_json_add(o, "suspects", jank_suspects_to_json(v->suspects));
	}
	if (e) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int verdict_from_json(struct dec *d, struct json_object *o, struct jank_verdict_decoded *out)
{
	struct json_object *sus;
	int r;

	if (!o || !json_object_is_type(o, json_type_object))
		return fail(d, "", "not a JSON object");
	r = head_from_json(d, o, out);
	if (r == 0)
		r = path_from_json(d, o, out);
	if (r < 0)
		return r;
	sus = get_typed(d, o, "suspects", json_type_object, &r);
	if (r < 0 || !sus)
		return r;
	r = suspects_from_json(d, sus, &out->suspects);
	if (r == 0)
		out->v.suspects = &out->suspects;
	return r;
}

int jank_verdict_from_json(struct json_object *o, struct jank_verdict_decoded *out,
			   struct jank_verdict_json_error *err)
{
	struct dec d;
	int r;

	memset(out, 0, sizeof(*out));
	memset(err, 0, sizeof(*err));
	jank_json_read_init(&d.jr);
	jank_rule_init(&out->rule);
	jank_path_init(&out->path);
	jank_breakdown_init(&out->breakdown);
	out->v.path = &out->path;
	out->v.breakdown = &out->breakdown;
	r = verdict_from_json(&d, o, out);
	if (r == -EINVAL) {
		snprintf(err->field, sizeof(err->field), "%s", d.jr.field);
		snprintf(err->why, sizeof(err->why), "%s", d.jr.why);
	}
	return r;
}

void jank_verdict_decoded_fini(struct jank_verdict_decoded *d)
{
	jank_path_fini(&d->path);
	jank_breakdown_fini(&d->breakdown);
	jank_rule_fini(&d->rule);
}
