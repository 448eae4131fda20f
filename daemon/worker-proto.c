/* SPDX-License-Identifier: MIT */
/*
 * Frames and verdicts between jankd's supervisor and its workers (see
 * worker-proto.h). The verdict travels in its one JSON form
 * (io/verdict-json.c, as `jankctl analyze --format json` prints it), which
 * the supervisor reads back as the untrusted input a worker's frame is.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json-util.h"
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
