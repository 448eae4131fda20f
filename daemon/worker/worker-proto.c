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
#include "json-util.h"
#include "state.h"
#include "textsafe.h"
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

/* {state: ns}: known states, counts. */
static int class_decode(struct json_object *o, uint64_t *ns, char *err, size_t len)
{
	json_object_object_foreach(o, key, v)
	{
		int s = jank_state_from_name(key);

		if (s < 0)
			return bad(err, len, "has an unknown state", "composition");
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
			return bad(err, len, "has a time out of range", "composition");
		ns[s] = (uint64_t)json_object_get_int64(v);
	}
	return 0;
}

/* A rule's composition: at most composition_top + 1 names, distinct, each valid UTF-8 text. */
static int composition_decode(struct json_object *a, struct jank_rule_figures *r, char *err,
			      size_t len)
{
	size_t n = json_object_array_length(a);
	struct jank_composition_entry *v;

	if (r->composition_top > JANK_COMPOSITION_TOP_MAX || n > r->composition_top + 1)
		return bad(err, len, "has too many names", "composition");
	v = n ? calloc(n, sizeof(*v)) : NULL;
	if (n && !v) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(a, i);
		struct json_object *on = jank_json_get(o, "on", json_type_string);
		const char *name = on ? json_object_get_string(on) : NULL;
		size_t nl = on ? (size_t)json_object_get_string_len(on) : 0;
		int e = 0;

		if (!json_object_is_type(o, json_type_object) || !name || !nl ||
		    nl >= sizeof(v[i].on) || strlen(name) != nl || !jank_text_is_safe(name, nl))
			e = bad(err, len, "has a bad name", "composition");
		for (size_t k = 0; e == 0 && k < i; k++)
			if (!strcmp(v[k].on, name))
				e = bad(err, len, "has a name twice", "composition");
		for (int c = 0; e == 0 && c < JANK_CLASS_COUNT; c++) {
			struct json_object *cls = NULL;

			if (!json_object_object_get_ex(o, jank_composition_class_name(c), &cls))
				continue;
			if (!json_object_is_type(cls, json_type_object))
				e = bad(err, len, "has a class that is not an object",
					"composition");
			else
				e = class_decode(cls, v[i].ns[c], err, len);
		}
		if (e < 0) {
			free(v);
			return e;
		}
		memcpy(v[i].on, name, nl + 1);
	}
	free(r->comp);
	r->comp = v;
	r->ncomp = n;
	return 0;
}

/* The fields d[0..n) of `o` into `base`; `f`: the input's figures (for "rules"). */
static int fields_decode(struct json_object *o, const struct jank_figure_field *d, size_t n,
			 void *base, struct jank_input_figures *f, char *err, size_t len)
{
	static const enum json_type types[] = {
		[JANK_FIGURE_U64] = json_type_int,
		[JANK_FIGURE_I64] = json_type_int,
		[JANK_FIGURE_RATE] = json_type_double,
		[JANK_FIGURE_BOOL] = json_type_boolean,
		[JANK_FIGURE_STR] = json_type_string,
		[JANK_FIGURE_ENUM] = json_type_string,
		[JANK_FIGURE_OBJECT] = json_type_object,
		[JANK_FIGURE_HISTOGRAM] = json_type_object,
		[JANK_FIGURE_RULES] = json_type_array,
		[JANK_FIGURE_COMPOSITION] = json_type_array,
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
		case JANK_FIGURE_COMPOSITION:
			r = composition_decode(v, base, err, len);
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

int jank_proto_verdict_decode(struct json_object *o, const struct jank_rule *rules, size_t nrules,
			      struct jank_verdict_decoded *out, char *err, size_t errlen)
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
