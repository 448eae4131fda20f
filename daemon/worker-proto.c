/* SPDX-License-Identifier: MIT */
/*
 * Frames and verdicts between jankd's supervisor and its workers (see
 * worker-proto.h). The verdict travels as io/format.c writes it for
 * `jankctl analyze --format json`, so there is one JSON form of a verdict;
 * this file reads it back.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
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

	if (!text || len > JANK_PROTO_MAX_FRAME)
		return -ENOMEM;
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

	*msg = NULL;
	if (evbuffer_copyout(in, &head, sizeof(head)) < (ev_ssize_t)sizeof(head))
		return 0;
	len = ntohl(head);
	if (len > JANK_PROTO_MAX_FRAME)
		return -EPROTO;
	if (evbuffer_get_length(in) < sizeof(head) + len)
		return 0;
	evbuffer_drain(in, sizeof(head));
	text = (char *)evbuffer_pullup(in, (ev_ssize_t)len);
	tok = json_tokener_new();
	if (text && tok)
		*msg = json_tokener_parse_ex(tok, text, (int)len);
	json_tokener_free(tok);
	evbuffer_drain(in, len);
	if (!*msg || !json_object_is_type(*msg, json_type_object)) {
		json_object_put(*msg);
		*msg = NULL;
		return -EPROTO;
	}
	return 1;
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

static int segment_decode(struct json_object *s, struct jank_segment *out)
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
	return 0;
}

static int path_decode(struct json_object *segs, struct jank_path *p)
{
	size_t n = segs ? json_object_array_length(segs) : 0;

	while (p->cap < n)
		if (!(p->cap = jank_array_grow(&p->segs, sizeof(*p->segs), p->cap, n)))
			return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (segment_decode(json_object_array_get_idx(segs, i), &p->segs[i]) < 0)
			return -EINVAL;
	p->n = n;
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
	return 0;
}

void jank_proto_verdict_fini(struct jank_proto_verdict *pv)
{
	jank_path_fini(&pv->path);
	jank_breakdown_fini(&pv->breakdown);
	jank_rule_fini(&pv->stub);
}
