/* SPDX-License-Identifier: MIT */
/*
 * fuzz-capture: the capture.json decoder (io/capture-json.c) on arbitrary
 * bytes, as jankctl report, jankctl captures and jankd's analyst read a
 * capture directory: untrusted.
 *
 * The bytes are parsed as JSON (json-c, as jank_json_load_bounded() does)
 * and decoded. What the decoder accepts must be safe to use: a rule with a
 * name, its events and at most JANK_RULE_MAX_KEYS keys (or none, {}), flows that pair by
 * key, actions within their bounds (begin <= end, duration = end - begin),
 * at most 64 joined janks, strings within their bounds. The flagged action
 * then goes where the report takes it (a verdict's head, encoded). And the
 * record is a fixed point: encoded, decoded again (which must succeed: the
 * decoder accepts what the encoder writes) and encoded again, it is the
 * same text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture-json.h"
#include "textsafe.h"
#include "fuzz-check.h"

static FILE *devnull;

static const char *plain(struct json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								  JSON_C_TO_STRING_NOSLASHESCAPE);

	FUZZ_ASSERT(s);
	return s;
}

static void check_str(const char *s)
{
	FUZZ_ASSERT(!s || strlen(s) < JANK_CAPTURE_TEXT_LEN);
}

static void check_action(const struct jank_capture_action *a)
{
	FUZZ_ASSERT(!a->action || a->action[0]); /* NULL: a verdict without a rule */
	FUZZ_ASSERT(strlen(a->key) < sizeof(a->key) && jank_utf8_valid(a->key, strlen(a->key)));
	FUZZ_ASSERT(strlen(a->comm) < sizeof(a->comm));
	FUZZ_ASSERT(a->begin <= a->end && a->duration == a->end - a->begin);
	FUZZ_ASSERT(a->threshold >= 0 && a->tid >= -1 && a->pid >= -1);
	FUZZ_ASSERT(a->kind == JANK_VERDICT_COMPLETED || a->kind == JANK_VERDICT_OVERDUE);
	check_str(a->live_critical_path);
}

/* What the decoder promises of a record it accepted. */
static void check_decoded(const struct jank_capture_record *c)
{
	const char *strs[] = { c->format,   c->name,	c->mode,	  c->state, c->time,
			       c->hostname, c->session, c->jankd_version, c->error };

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		check_str(strs[i]);
	FUZZ_ASSERT(!c->format || !strncmp(c->format, "jank-capture/", 13));
	/* A rule, or none ({}: a verdict without a rule). */
	FUZZ_ASSERT(!c->rule.name || (c->rule.begin_event && c->rule.end_event));
	FUZZ_ASSERT(c->rule.nkeys <= JANK_RULE_MAX_KEYS);
	FUZZ_ASSERT(!c->rule.match_field || c->rule.match_value.type == JANK_VALUE_INT ||
		    (c->rule.match_value.type == JANK_VALUE_STR && c->rule.match_value.s));
	for (size_t i = 0; i < c->nflows; i++)
		FUZZ_ASSERT(c->flows[i].nkeys >= 1 && jank_flow_rule_ok(&c->flows[i]));
	check_action(&c->action);
	FUZZ_ASSERT(c->njoined <= JANK_CAPTURE_JOINED_MAX);
	for (size_t i = 0; i < c->njoined; i++)
		check_action(&c->joined[i]);
	FUZZ_ASSERT(c->nchunks <= JANK_CAPTURE_CHUNKS_MAX);
	for (size_t i = 0; i < c->nchunks; i++)
		FUZZ_ASSERT(c->chunks[i].name);
	FUZZ_ASSERT(c->json);
}

/* The flagged action as the report uses it: a verdict's head. */
static void use(const struct jank_capture_record *c)
{
	struct jank_rule stub;
	struct jank_verdict v;
	struct json_object *o;

	jank_capture_action_verdict(&c->action, &stub, &v);
	FUZZ_ASSERT(c->action.action ? v.rule && !strcmp(v.rule->name, c->action.action) : !v.rule);
	o = jank_verdict_to_json(&v, JANK_VERDICT_JSON_HEAD);
	FUZZ_ASSERT(o);
	json_object_put(o);
	FUZZ_ASSERT(jank_capture_record_print(devnull, c) == 0);
}

/* Encoded, decoded and encoded again: the same text. */
static void fixed_point(const struct jank_capture_record *c)
{
	struct jank_capture_record again;
	struct json_object *a = jank_capture_record_to_json(c), *b;
	char err[256];
	int r;

	FUZZ_ASSERT(a);
	r = jank_capture_record_from_json(a, &again, err, sizeof(err));
	if (r != 0)
		fprintf(stderr, "fuzz-capture: its own JSON refused: %s\n", err);
	FUZZ_ASSERT(r == 0);
	b = jank_capture_record_to_json(&again);
	FUZZ_ASSERT(b);
	FUZZ_ASSERT(!strcmp(plain(a), plain(b)));
	json_object_put(a);
	json_object_put(b);
	jank_capture_record_fini(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jank_capture_record c;
	struct json_tokener *tok;
	struct json_object *o;
	char err[256];
	int r;

	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	if (size > (size_t)INT32_MAX)
		return 0;
	tok = json_tokener_new();
	FUZZ_ASSERT(tok);
	o = json_tokener_parse_ex(tok, (const char *)data, (int)size);
	json_tokener_free(tok);
	err[0] = '\0';
	r = jank_capture_record_from_json(o, &c, err, sizeof(err));
	FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r == -EINVAL)
		FUZZ_ASSERT(err[0] && !strchr(err, '\n'));
	if (r == 0) {
		check_decoded(&c);
		use(&c);
		fixed_point(&c);
	}
	jank_capture_record_fini(&c);
	json_object_put(o);
	return 0;
}
