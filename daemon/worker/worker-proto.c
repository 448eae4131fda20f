/* SPDX-License-Identifier: MIT */
/*
 * Frames and verdicts between jankd's supervisor and its workers (see
 * worker-proto.h). The verdict travels in its one JSON form
 * (io/verdict-json.c, as `jankctl analyze --format json` prints it), which
 * the supervisor reads back as the untrusted input a worker's frame is.
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
#include "config-file.h"
#include "json-read.h"
#include "json-util.h"
#include "state.h"
#include "textsafe.h"
#include "worker-proto.h"

struct json_object *jank_worker_proto_new(const char *type)
{
	struct json_object *o = json_object_new_object();

	if (o && jank_json_add_str(o, "type", type) < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* The longest type a frame has, with its NUL: longer is no type. */
#define PROTO_TYPE_LEN 16

const char *jank_worker_proto_type(struct json_object *msg)
{
	const char *t = NULL;
	struct jank_jr jr;

	jank_json_read_init(&jr);
	return jank_json_read_str(&jr, msg, "type", true, PROTO_TYPE_LEN, &t) == 0 ? t : "";
}

int jank_worker_proto_put(struct evbuffer *out, struct json_object *msg)
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

/* A buffer this large or smaller is kept for the next frame; a larger one is freed. */
#define READER_KEEP (64u << 10)

/* The frame text[0..len): one JSON object, strict, and nothing after it. */
static struct json_object *reader_parse(struct json_tokener *tok, const char *text, size_t len)
{
	struct json_object *o;

	/* Every frame from the start: nothing of the last one (or of its error) stays. */
	json_tokener_reset(tok);
	o = json_tokener_parse_ex(tok, text, (int)len);
	if (json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != len || !o ||
	    !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* The frame's len bytes at the front of `in`, contiguous: in place, or copied into rd->buf. */
static const char *reader_text(struct jank_worker_proto_reader *rd, struct evbuffer *in, size_t len)
{
	struct evbuffer_iovec v;

	if (evbuffer_peek(in, (ev_ssize_t)len, NULL, &v, 1) == 1 && v.iov_len >= len)
		return v.iov_base;
	if (rd->cap < len) {
		char *b = realloc(rd->buf, len);

		if (!b)
			return NULL;
		rd->buf = b;
		rd->cap = len;
	}
	if (evbuffer_copyout(in, rd->buf, len) != (ev_ssize_t)len)
		return NULL;
	return rd->buf;
}

int jank_worker_proto_read(struct jank_worker_proto_reader *rd, struct evbuffer *in,
			   struct json_object **msg)
{
	const char *text;
	uint32_t head;
	size_t len;

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
	if (len && !rd->tok) {
		rd->tok = json_tokener_new();
		/* Strict JSON: what json-c writes, and nothing a lenient parser guesses at. */
		if (rd->tok)
			json_tokener_set_flags(rd->tok, JSON_TOKENER_STRICT);
	}
	text = len && rd->tok ? reader_text(rd, in, len) : NULL;
	if (text)
		*msg = reader_parse(rd->tok, text, len);
	evbuffer_drain(in, len);
	if (rd->cap > READER_KEEP) {
		free(rd->buf);
		rd->buf = NULL;
		rd->cap = 0;
	}
	return *msg ? 1 : -EPROTO;
}

void jank_worker_proto_reader_fini(struct jank_worker_proto_reader *rd)
{
	if (rd->tok)
		json_tokener_free(rd->tok); /* not NULL: json-c would crash */
	free(rd->buf);
	memset(rd, 0, sizeof(*rd));
}

int jank_worker_proto_take(struct evbuffer *in, struct json_object **msg)
{
	struct jank_worker_proto_reader rd = { 0 };
	int r = jank_worker_proto_read(&rd, in, msg);

	jank_worker_proto_reader_fini(&rd);
	return r;
}

/* ---- Log lines ---- */

int jank_worker_proto_log_decode(struct json_object *msg, int *priority, char *line, size_t len)
{
	struct jank_jr jr;
	const char *s;
	int64_t p;
	size_t n, i;

	*priority = LOG_INFO;
	if (len)
		line[0] = '\0';
	jank_json_read_init(&jr);
	if (!len || jank_json_read_str(&jr, msg, "message", true, JANK_PROTO_MAX_FRAME, &s) < 0 ||
	    jank_json_read_int(&jr, msg, "priority", false, LOG_EMERG, LOG_DEBUG, LOG_INFO, &p) < 0)
		return -EINVAL;
	/* A worker's line is never more urgent than an error. */
	*priority = p < LOG_ERR ? LOG_ERR : (int)p;
	n = strlen(s);
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
 * program: a bug, or a worker gone astray), and the worker is restarted
 * (fleet.c), rather than a silent 0. Every member goes through the strict
 * reader (json-read.h), which checks its type before json-c is asked for it.
 */

/* A string of the table: shorter than its buffer, no control character but tabs. */
static int str_decode(struct jank_jr *jr, struct json_object *o, const struct jank_figure_field *d,
		      bool required, char *to)
{
	const char *s;
	int r = jank_json_read_str(jr, o, d->key, required, d->size, &s);

	if (r != 0)
		return r;
	for (const char *c = s; *c; c++)
		if (((unsigned char)*c < 0x20 && *c != '\t') || *c == 0x7f)
			return jank_json_read_fail(jr, d->key, "has a control character");
	memcpy(to, s, strlen(s) + 1);
	return 0;
}

static int enum_decode(struct jank_jr *jr, struct json_object *o, const struct jank_figure_field *d,
		       bool required, int *to)
{
	const char *s;
	int r = jank_json_read_str(jr, o, d->key, required, 64, &s);

	if (r != 0)
		return r;
	for (int i = 0; d->names[i]; i++) {
		if (!strcmp(s, d->names[i])) {
			*to = i;
			return 0;
		}
	}
	return jank_json_read_fail(jr, d->key, "not a known value");
}

/*
 * One [index, count] pair that is as it must be: 0 and *b, *c; else -1, and
 * the strict reader says what is wrong (bucket_decode()). A status has many:
 * the good ones are read without the reader's place names made for them.
 */
static int bucket_quick(struct json_object *p, int64_t last, const struct jank_histogram *h,
			int64_t *b, int64_t *c)
{
	struct json_object *idx, *n;

	if (!json_object_is_type(p, json_type_array) || json_object_array_length(p) != 2)
		return -1;
	idx = json_object_array_get_idx(p, 0);
	n = json_object_array_get_idx(p, 1);
	if (!json_object_is_type(idx, json_type_int) || !json_object_is_type(n, json_type_int))
		return -1;
	*b = json_object_get_int64(idx);
	*c = json_object_get_int64(n);
	if (*b < last + 1 || *b > JANK_HIST_BUCKETS - 1 || *c < 1 ||
	    h->count + (uint64_t)*c < h->count)
		return -1;
	return 0;
}

/* Pair `i` of "buckets", read by the strict reader with its place said: 0, or -EINVAL. */
static int bucket_decode(struct jank_jr *jr, struct json_object *a, size_t i, int64_t last,
			 const struct jank_histogram *h, int64_t *b, int64_t *c)
{
	struct json_object *p, *idx, *n;
	size_t at;
	int e;

	if (jank_json_read_elem(jr, a, "buckets", i, json_type_array, &p) < 0)
		return -EINVAL;
	at = jank_json_read_push(jr, "buckets[%zu]", i);
	e = jank_json_read_array_value(jr, p, "", 2, 2);
	if (e == 0)
		e = jank_json_read_elem(jr, p, "", 0, json_type_int, &idx);
	if (e == 0)
		e = jank_json_read_elem(jr, p, "", 1, json_type_int, &n);
	if (e == 0)
		e = jank_json_read_int_value(jr, idx, "[0]", last + 1, JANK_HIST_BUCKETS - 1, b);
	if (e == 0)
		e = jank_json_read_int_value(jr, n, "[1]", 1, INT64_MAX, c);
	if (e == 0 && h->count + (uint64_t)*c < h->count)
		e = jank_json_read_fail(jr, "[1]", "the counts overflow");
	jank_json_read_pop(jr, at);
	return e;
}

/* [[index, count], ...]: indexes ascending and in range, counts positive, their sum exact. */
static int buckets_decode(struct jank_jr *jr, struct json_object *a, struct jank_histogram *h)
{
	int64_t last = -1;

	for (size_t i = 0; i < json_object_array_length(a); i++) {
		int64_t b, c;

		if (bucket_quick(json_object_array_get_idx(a, i), last, h, &b, &c) < 0 &&
		    bucket_decode(jr, a, i, last, h, &b, &c) < 0)
			return -EINVAL;
		h->buckets[b] = (uint64_t)c;
		h->count += (uint64_t)c;
		last = b;
	}
	return 0;
}

static int histogram_decode(struct jank_jr *jr, struct json_object *o, struct jank_histogram *h)
{
	struct json_object *b;
	int64_t sum, min, max;

	jank_histogram_init(h);
	if (jank_json_read_int(jr, o, "sum", true, 0, INT64_MAX, 0, &sum) < 0 ||
	    jank_json_read_int(jr, o, "min", true, INT64_MIN, INT64_MAX, 0, &min) < 0 ||
	    jank_json_read_int(jr, o, "max", true, INT64_MIN, INT64_MAX, 0, &max) < 0 ||
	    jank_json_read_array(jr, o, "buckets", true, JANK_HIST_BUCKETS, &b) < 0 ||
	    buckets_decode(jr, b, h) < 0)
		return -EINVAL;
	h->sum = (uint64_t)sum;
	if (h->count) {
		if (min > max)
			return jank_json_read_fail(jr, "min", "above max");
		h->min = min;
		h->max = max;
	}
	return 0;
}

static int rules_decode(struct jank_jr *jr, struct json_object *a, struct jank_input_figures *f);

/* {state: ns}: known states, times. */
static int class_decode(struct jank_jr *jr, struct json_object *o, uint64_t *ns)
{
	json_object_object_foreach(o, key, v)
	{
		int s = jank_state_from_name(key);
		int64_t t;

		if (s < 0)
			return jank_json_read_fail(jr, key, "not a state");
		if (jank_json_read_int_value(jr, v, key, 0, INT64_MAX, &t) < 0)
			return -EINVAL;
		ns[s] = (uint64_t)t;
	}
	return 0;
}

/* One name of a composition: valid UTF-8 text, not empty, not one of v[0..i). */
static int composition_entry(struct jank_jr *jr, struct json_object *o,
			     struct jank_composition_entry *v, size_t i)
{
	const char *name;

	if (jank_json_read_str(jr, o, "on", true, sizeof(v[i].on), &name) < 0)
		return -EINVAL;
	if (!name[0] || !jank_text_is_safe(name, strlen(name)))
		return jank_json_read_fail(jr, "on", "not a name");
	for (size_t k = 0; k < i; k++)
		if (!strcmp(v[k].on, name))
			return jank_json_read_fail(jr, "on", "a name twice");
	for (int c = 0; c < JANK_CLASS_COUNT; c++) {
		const char *cn = jank_composition_class_name(c);
		struct json_object *cls;
		size_t at;
		int e = jank_json_read_member(jr, o, cn, json_type_object, false, &cls);

		if (e < 0)
			return e;
		if (e == 1)
			continue;
		at = jank_json_read_push(jr, "%s.", cn);
		e = class_decode(jr, cls, v[i].ns[c]);
		jank_json_read_pop(jr, at);
		if (e < 0)
			return e;
	}
	memcpy(v[i].on, name, strlen(name) + 1);
	return 0;
}

/* A rule's composition: at most composition_top + 1 names. */
static int composition_decode(struct jank_jr *jr, struct json_object *a,
			      struct jank_rule_figures *r)
{
	size_t n = json_object_array_length(a);
	struct jank_composition_entry *v;

	if (r->composition_top > JANK_COMPOSITION_TOP_MAX || n > r->composition_top + 1)
		return jank_json_read_fail(jr, "composition",
					   "more names than composition_top + 1");
	v = n ? calloc(n, sizeof(*v)) : NULL;
	if (n && !v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *o;
		size_t at;
		int e = jank_json_read_elem(jr, a, "composition", i, json_type_object, &o);

		if (e == 0) {
			at = jank_json_read_push(jr, "composition[%zu].", i);
			e = composition_entry(jr, o, v, i);
			jank_json_read_pop(jr, at);
		}
		if (e < 0) {
			free(v);
			return e;
		}
	}
	free(r->comp);
	r->comp = v;
	r->ncomp = n;
	return 0;
}

/* A member that is an object or an array: read by `fn` with the place said. */
static int nested(struct jank_jr *jr, struct json_object *o, const struct jank_figure_field *d,
		  bool required, enum json_type type, size_t max, struct json_object **out)
{
	int r = type == json_type_array ? jank_json_read_array(jr, o, d->key, required, max, out)
					: jank_json_read_member(jr, o, d->key, type, required, out);

	return r;
}

static int field_decode(struct jank_jr *jr, struct json_object *o,
			const struct jank_figure_field *d, void *base,
			struct jank_input_figures *f);

/* The fields d[0..n) of `o` into `base`; `f`: the input's figures (for "rules"). */
static int fields_decode(struct jank_jr *jr, struct json_object *o,
			 const struct jank_figure_field *d, size_t n, void *base,
			 struct jank_input_figures *f)
{
	for (size_t i = 0; i < n; i++) {
		int r = field_decode(jr, o, &d[i], base, f);

		if (r < 0)
			return r;
		if (d[i].type == JANK_FIGURE_OBJECT)
			i += d[i].size; /* read by field_decode(), present or not */
	}
	return 0;
}

static int field_decode(struct jank_jr *jr, struct json_object *o,
			const struct jank_figure_field *d, void *base, struct jank_input_figures *f)
{
	bool req = !(d->flags & JANK_FIGURE_OPTIONAL);
	char *p = (char *)base + d->offset;
	struct json_object *v = NULL;
	size_t at;
	int64_t x;
	int r = 0;

	switch (d->type) {
	case JANK_FIGURE_U64:
		r = jank_json_read_int(jr, o, d->key, req, 0, INT64_MAX, 0, &x);
		if (r == 0)
			*(uint64_t *)p = (uint64_t)x;
		break;
	case JANK_FIGURE_I64:
		r = jank_json_read_int(jr, o, d->key, req, d->min, d->max, d->absent, &x);
		if (r >= 0)
			*(int64_t *)p = x;
		break;
	case JANK_FIGURE_RATE:
		r = jank_json_read_real(jr, o, d->key, req, 0, (double)d->max, (double *)p);
		break;
	case JANK_FIGURE_BOOL:
		r = jank_json_read_bool(jr, o, d->key, req, false, (bool *)p);
		break;
	case JANK_FIGURE_STR:
		r = str_decode(jr, o, d, req, p);
		break;
	case JANK_FIGURE_ENUM:
		r = enum_decode(jr, o, d, req, (int *)p);
		break;
	case JANK_FIGURE_OBJECT:
	case JANK_FIGURE_HISTOGRAM:
		r = nested(jr, o, d, req, json_type_object, 0, &v);
		break;
	case JANK_FIGURE_RULES:
		r = nested(jr, o, d, req, json_type_array, JANK_FIGURES_MAX_RULES, &v);
		break;
	case JANK_FIGURE_COMPOSITION:
		r = nested(jr, o, d, req, json_type_array, JANK_COMPOSITION_TOP_MAX + 1, &v);
		break;
	}
	if (r != 0 || !v)
		return r < 0 ? r : 0;
	switch (d->type) {
	case JANK_FIGURE_OBJECT:
		at = jank_json_read_push(jr, "%s.", d->key);
		r = fields_decode(jr, v, d + 1, d->size, base, f);
		jank_json_read_pop(jr, at);
		break;
	case JANK_FIGURE_HISTOGRAM:
		at = jank_json_read_push(jr, "%s.", d->key);
		r = histogram_decode(jr, v, (struct jank_histogram *)p);
		jank_json_read_pop(jr, at);
		break;
	case JANK_FIGURE_RULES:
		r = rules_decode(jr, v, f);
		break;
	case JANK_FIGURE_COMPOSITION:
		r = composition_decode(jr, v, base);
		break;
	default:
		break;
	}
	return r;
}

static int rules_decode(struct jank_jr *jr, struct json_object *a, struct jank_input_figures *f)
{
	size_t n = json_object_array_length(a);

	if (jank_input_figures_set_rules(f, n) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct jank_rule_figures *r = &f->rules[i];
		struct json_object *o;
		size_t at;
		int e = jank_json_read_elem(jr, a, "rules", i, json_type_object, &o);

		if (e < 0)
			return e;
		at = jank_json_read_push(jr, "rules[%zu].", i);
		e = fields_decode(jr, o, jank_input_figures_rule_fields,
				  jank_input_figures_rule_nfields, r, NULL);
		/* The worker counts its actions in the histogram. */
		if (e == 0 && r->count != r->hist.count)
			e = jank_json_read_fail(jr, "count", "differs from its histogram's");
		jank_json_read_pop(jr, at);
		if (e < 0)
			return e;
	}
	return 0;
}

/* The reader's error into err[len]; -ENOMEM said as such. */
static int said(const struct jank_jr *jr, int r, char *err, size_t len)
{
	if (r == -ENOMEM)
		snprintf(err, len, "out of memory");
	else
		jank_json_read_error(jr, err, len);
	return r;
}

int jank_worker_proto_figures_decode(struct json_object *o, struct jank_input_figures *out,
				     char *err, size_t len)
{
	struct jank_jr jr;
	int r;

	jank_json_read_init(&jr);
	jank_input_figures_fini(out);
	r = jank_json_read_is(&jr, o, "input", json_type_object);
	if (r == 0) {
		jank_json_read_push(&jr, "input.");
		r = fields_decode(&jr, o, jank_input_figures_input_fields,
				  jank_input_figures_input_nfields, out, out);
	}
	if (r < 0) {
		jank_input_figures_fini(out);
		return said(&jr, r, err, len);
	}
	out->reported = true;
	out->counted = true;
	return 0;
}

/* ---- Discovery ---- */

/* A host or session name relayd lists: text that fits, no '/' (it goes into a URL). */
static int name_decode(struct jank_jr *jr, struct json_object *pair, size_t i, size_t size,
		       const char **out)
{
	struct json_object *v;
	const char *s;
	char key[8];

	snprintf(key, sizeof(key), "[%zu]", i);
	if (jank_json_read_elem(jr, pair, "", i, json_type_string, &v) < 0 ||
	    jank_json_read_str_value(jr, v, key, size, &s) < 0)
		return -EINVAL;
	if (!s[0] || strchr(s, '/') || !jank_text_is_safe(s, strlen(s)))
		return jank_json_read_fail(jr, key,
					   "not a name (empty, a '/' or a control character)");
	*out = s;
	return 0;
}

int jank_worker_proto_sessions_decode(struct json_object *msg,
				      struct jank_worker_proto_sessions *out, char *err, size_t len)
{
	struct json_object *list = NULL;
	struct jank_jr jr;
	const char *why;
	size_t n;
	int r;

	memset(out, 0, sizeof(*out));
	jank_json_read_init(&jr);
	r = jank_json_read_bool(&jr, msg, "ok", true, false, &out->ok);
	if (r == 0 && !out->ok) {
		r = jank_json_read_str(&jr, msg, "error", false, JANK_PROTO_SESSIONS_ERROR_LEN,
				       &why);
		if (r >= 0)
			jank_text(out->error, sizeof(out->error), why ? why : "no list");
		return r < 0 ? said(&jr, r, err, len) : 0;
	}
	if (r == 0)
		r = jank_json_read_array(&jr, msg, "sessions", true, JANK_PROTO_MAX_SESSIONS,
					 &list);
	if (r < 0)
		return said(&jr, r, err, len);
	n = json_object_array_length(list);
	out->v = n ? calloc(n, sizeof(*out->v)) : NULL;
	if (n && !out->v)
		return said(&jr, -ENOMEM, err, len);
	for (size_t i = 0; i < n; i++) {
		struct json_object *pair;
		size_t at;

		r = jank_json_read_elem(&jr, list, "sessions", i, json_type_array, &pair);
		at = jank_json_read_push(&jr, "sessions[%zu]", i);
		if (r == 0)
			r = jank_json_read_array_value(&jr, pair, "", 2, 2);
		if (r == 0)
			r = name_decode(&jr, pair, 0, JANK_PROTO_HOST_LEN, &out->v[i].host);
		if (r == 0)
			r = name_decode(&jr, pair, 1, JANK_CONFIG_SESSION_LEN, &out->v[i].session);
		jank_json_read_pop(&jr, at);
		if (r < 0) {
			jank_worker_proto_sessions_fini(out);
			return said(&jr, r, err, len);
		}
	}
	out->n = n;
	return 0;
}

void jank_worker_proto_sessions_fini(struct jank_worker_proto_sessions *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* ---- Verdicts ---- */

int jank_worker_proto_verdict_decode(struct json_object *o, const struct jank_rule *rules,
				     size_t nrules, struct jank_verdict_decoded *out, char *err,
				     size_t errlen)
{
	struct jank_verdict_json_error why;
	int r = jank_verdict_from_json(o, out, &why);

	if (r == -EINVAL)
		snprintf(err, errlen, "%s%s%s", why.field, why.field[0] ? ": " : "", why.why);
	else if (r < 0)
		snprintf(err, errlen, "%s", strerror(-r));
	if (r < 0)
		return r;
	/* The supervisor's own rule of that name; else the stub, which captures nothing. */
	for (size_t i = 0; i < nrules; i++) {
		if (!strcmp(rules[i].name, out->rule.name)) {
			out->v.rule = &rules[i];
			out->v.rule_index = (uint32_t)i;
			break;
		}
	}
	return 0;
}

/* ---- Flows and paths across hosts ---- */

/* flows[i]: [flow, key, to, tid, ts], the strings kept as the message holds them. */
static const char hexdigits[] = "0123456789abcdef";

struct json_object *jank_worker_proto_tcp_json(const struct jank_tcp_seg *s)
{
	struct json_object *a = json_object_new_array_ext(9);
	size_t n = s->family == 4 ? 4 : 16;
	char sa[33], da[33];

	for (size_t i = 0; i < n; i++) {
		sa[2 * i] = hexdigits[s->saddr[i] >> 4];
		sa[2 * i + 1] = hexdigits[s->saddr[i] & 15];
		da[2 * i] = hexdigits[s->daddr[i] >> 4];
		da[2 * i + 1] = hexdigits[s->daddr[i] & 15];
	}
	sa[2 * n] = da[2 * n] = '\0';
	if (!a || json_object_array_add(a, json_object_new_int(s->family)) ||
	    json_object_array_add(a, json_object_new_string(sa)) ||
	    json_object_array_add(a, json_object_new_int(s->sport)) ||
	    json_object_array_add(a, json_object_new_string(da)) ||
	    json_object_array_add(a, json_object_new_int(s->dport)) ||
	    json_object_array_add(a, json_object_new_int64(s->seq)) ||
	    json_object_array_add(a, json_object_new_int64(s->ack_seq)) ||
	    json_object_array_add(a, json_object_new_int(s->flags)) ||
	    json_object_array_add(a, json_object_new_int64(s->len))) {
		json_object_put(a);
		return NULL;
	}
	return a;
}

/* An address of `bytes` bytes in hex, exactly. */
static int addr_decode(struct jank_jr *jr, struct json_object *a, size_t i, size_t bytes,
		       uint8_t out[16])
{
	struct json_object *v;
	const char *s;

	if (jank_json_read_elem(jr, a, "", i, json_type_string, &v) < 0 ||
	    jank_json_read_str_value(jr, v, "[5][]", 33, &s) < 0)
		return -EINVAL;
	if (strlen(s) != 2 * bytes)
		return jank_json_read_fail(jr, "[5]", "an address of %zu bytes in hex", bytes);
	memset(out, 0, 16);
	for (size_t k = 0; k < 2 * bytes; k++) {
		const char *d = strchr(hexdigits, s[k]);

		if (!s[k] || !d)
			return jank_json_read_fail(jr, "[5]", "an address in lower-case hex");
		out[k / 2] = (uint8_t)(out[k / 2] << 4 | (d - hexdigits));
	}
	return 0;
}

/* The sixth element of a "flows" entry: [family, saddr, sport, daddr, dport, seq, ack, flags, len].
 */
static int tcp_decode(struct jank_jr *jr, struct json_object *a, struct jank_tcp_seg *out)
{
	static const int64_t max[9] = { 6,	    0,		0xffff, 0,	   0xffff,
					0xffffffff, 0xffffffff, 0x1ff,	0xffffffff };
	int64_t n[9];

	if (jank_json_read_array_value(jr, a, "[5]", 9, 9) < 0)
		return -EINVAL;
	for (size_t i = 0; i < 9; i++) {
		struct json_object *v;

		if (i == 1 || i == 3)
			continue;
		if (jank_json_read_elem(jr, a, "[5]", i, json_type_int, &v) < 0 ||
		    jank_json_read_int_value(jr, v, "[5][]", 0, max[i], &n[i]) < 0)
			return -EINVAL;
	}
	if (n[0] != 4 && n[0] != 6)
		return jank_json_read_fail(jr, "[5]", "a family other than 4 or 6");
	memset(out, 0, sizeof(*out));
	out->family = (uint8_t)n[0];
	if (addr_decode(jr, a, 1, n[0] == 4 ? 4 : 16, out->saddr) < 0 ||
	    addr_decode(jr, a, 3, n[0] == 4 ? 4 : 16, out->daddr) < 0)
		return -EINVAL;
	out->sport = (uint16_t)n[2];
	out->dport = (uint16_t)n[4];
	out->seq = (uint32_t)n[5];
	out->ack_seq = (uint32_t)n[6];
	out->flags = (uint16_t)n[7];
	out->len = (uint32_t)n[8];
	return 0;
}

static int flow_decode(struct jank_jr *jr, struct json_object *a,
		       struct jank_worker_proto_flow *out)
{
	struct json_object *v;
	int64_t n;

	if (jank_json_read_array_value(jr, a, "", SIZE_MAX, 6) < 0)
		return -EINVAL;
	if (json_object_array_length(a) < 5)
		return jank_json_read_fail(jr, "", "fewer than 5 elements");
	if (jank_json_read_elem(jr, a, "", 0, json_type_string, &v) < 0 ||
	    jank_json_read_str_value(jr, v, "[0]", JANK_LABEL_NAME_LEN, &out->flow) < 0 ||
	    jank_json_read_elem(jr, a, "", 1, json_type_string, &v) < 0 ||
	    jank_json_read_str_value(jr, v, "[1]", JANK_LABEL_KEY_LEN, &out->key) < 0 ||
	    jank_json_read_elem(jr, a, "", 2, json_type_boolean, &v) < 0)
		return -EINVAL;
	out->to = json_object_get_boolean(v);
	if (jank_json_read_elem(jr, a, "", 3, json_type_int, &v) < 0 ||
	    jank_json_read_int_value(jr, v, "[3]", INT32_MIN, INT32_MAX, &n) < 0)
		return -EINVAL;
	out->tid = (int32_t)n;
	if (jank_json_read_elem(jr, a, "", 4, json_type_int, &v) < 0 ||
	    jank_json_read_int_value(jr, v, "[4]", -JANK_VERDICT_TIME_MAX, JANK_VERDICT_TIME_MAX,
				     &out->ts) < 0)
		return -EINVAL;
	out->is_tcp = json_object_array_length(a) == 6;
	if (out->is_tcp && (jank_json_read_elem(jr, a, "", 5, json_type_array, &v) < 0 ||
			    tcp_decode(jr, v, &out->tcp) < 0))
		return -EINVAL;
	return 0;
}

int jank_worker_proto_flows_decode(struct json_object *msg, struct jank_worker_proto_flows *out,
				   char *err, size_t len)
{
	struct json_object *list = NULL;
	struct jank_jr jr;
	int64_t dropped;
	size_t n;
	int r;

	memset(out, 0, sizeof(*out));
	jank_json_read_init(&jr);
	r = jank_json_read_int(&jr, msg, "dropped", true, 0, INT64_MAX, 0, &dropped);
	if (r == 0)
		r = jank_json_read_array(&jr, msg, "flows", true, JANK_PROTO_MAX_FLOWS, &list);
	if (r < 0)
		return said(&jr, r, err, len);
	out->dropped = (uint64_t)dropped;
	n = json_object_array_length(list);
	out->v = n ? calloc(n, sizeof(*out->v)) : NULL;
	if (n && !out->v)
		return said(&jr, -ENOMEM, err, len);
	for (size_t i = 0; i < n; i++) {
		struct json_object *a;
		size_t at;

		r = jank_json_read_elem(&jr, list, "flows", i, json_type_array, &a);
		at = jank_json_read_push(&jr, "flows[%zu]", i);
		if (r == 0)
			r = flow_decode(&jr, a, &out->v[i]);
		jank_json_read_pop(&jr, at);
		if (r < 0) {
			jank_worker_proto_flows_fini(out);
			return said(&jr, r, err, len);
		}
	}
	out->n = n;
	return 0;
}

void jank_worker_proto_flows_fini(struct jank_worker_proto_flows *f)
{
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

int jank_worker_proto_path_decode(struct json_object *msg, int64_t *id, bool *answered,
				  struct jank_verdict_decoded *out, char *err, size_t len)
{
	struct json_object *v = NULL;
	struct jank_jr jr;
	int r;

	memset(out, 0, sizeof(*out));
	jank_rule_init(&out->rule);
	jank_path_init(&out->path);
	jank_breakdown_init(&out->breakdown);
	jank_json_read_init(&jr);
	r = jank_json_read_int(&jr, msg, "id", true, 0, INT64_MAX, 0, id);
	if (r == 0)
		r = jank_json_read_bool(&jr, msg, "answered", true, false, answered);
	if (r == 0 && *answered)
		r = jank_json_read_member(&jr, msg, "verdict", json_type_object, true, &v);
	if (r < 0)
		return said(&jr, r, err, len);
	if (!*answered)
		return 0;
	jank_verdict_decoded_fini(out);
	return jank_worker_proto_verdict_decode(v, NULL, 0, out, err, len);
}

/* ---- Names of frames that came late ---- */

bool jank_worker_proto_is_offset_frame(const char *text)
{
	const char *plus = strrchr(text, '+');
	size_t hex;

	if (!plus || plus == text || strncmp(plus, "+0x", 3) != 0)
		return false;
	for (const char *c = text; c < plus; c++)
		if ((unsigned char)*c <= 0x20 || *c == 0x7f || *c == '/')
			return false;
	hex = strspn(plus + 3, "0123456789abcdef");
	return hex >= 1 && hex <= 16 && plus[3 + hex] == '\0';
}

/* A text of a "names" pair: a string, not empty, shorter than a frame's name, no control byte. */
static int name_text(struct jank_jr *jr, struct json_object *a, size_t i, const char **out)
{
	struct json_object *v;

	if (jank_json_read_elem(jr, a, "", i, json_type_string, &v) < 0 ||
	    jank_json_read_str_value(jr, v, i ? "[1]" : "[0]", JANK_FRAME_NAME_LEN, out) < 0)
		return -EINVAL;
	if (!**out)
		return jank_json_read_fail(jr, i ? "[1]" : "[0]", "empty");
	for (const char *c = *out; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return jank_json_read_fail(jr, i ? "[1]" : "[0]", "a control character");
	return 0;
}

int jank_worker_proto_names_decode(struct json_object *msg, struct jank_worker_proto_names *out,
				   char *err, size_t len)
{
	struct json_object *list = NULL;
	struct jank_jr jr;
	size_t n;
	int r;

	out->n = 0;
	jank_json_read_init(&jr);
	r = jank_json_read_array(&jr, msg, "names", true, JANK_PROTO_MAX_NAMES, &list);
	if (r < 0)
		return said(&jr, r, err, len);
	n = json_object_array_length(list);
	for (size_t i = 0; i < n; i++) {
		struct jank_worker_proto_name *p = &out->v[i];
		struct json_object *a;
		size_t at;

		r = jank_json_read_elem(&jr, list, "names", i, json_type_array, &a);
		at = jank_json_read_push(&jr, "names[%zu]", i);
		if (r == 0)
			r = jank_json_read_array_value(&jr, a, "", 2, 2);
		if (r == 0)
			r = name_text(&jr, a, 0, &p->frame);
		if (r == 0)
			r = name_text(&jr, a, 1, &p->name);
		if (r == 0 && !jank_worker_proto_is_offset_frame(p->frame))
			r = jank_json_read_fail(&jr, "[0]", "not a frame BINARY+0xHEX");
		if (r == 0 && jank_worker_proto_is_offset_frame(p->name))
			r = jank_json_read_fail(&jr, "[1]", "a frame BINARY+0xHEX, not a name");
		jank_json_read_pop(&jr, at);
		if (r < 0)
			return said(&jr, -EINVAL, err, len);
	}
	out->n = n;
	return 0;
}
