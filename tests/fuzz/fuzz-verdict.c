/* SPDX-License-Identifier: MIT */
/*
 * fuzz-verdict: the verdict decoder (io/verdict-json.c) on arbitrary bytes,
 * as jankd's supervisor reads a worker's frame and jankctl report reads a
 * capture.json: untrusted.
 *
 * The bytes are parsed as JSON (json-c, as jank_worker_proto_take() does) and
 * decoded. What the decoder accepts must be safe to use: the action within
 * [begin, end], duration = end - begin, the path's segments within it in
 * time order (their flows and spans labels of the path, their stacks its
 * named frames), its breakdown summing to no more than the action lasted,
 * strings within their buffers. It then goes where a verdict goes: the
 * text of jankctl analyze, the one-line story of an alert, capture.json's
 * head. And its JSON is a fixed point: encoded, decoded again (which must
 * succeed: the decoder accepts what the encoder writes) and encoded again,
 * it is the same text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"
#include "textsafe.h"
#include "verdict-json.h"
#include "fuzz-check.h"

static FILE *devnull;

static const char *plain(struct json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								  JSON_C_TO_STRING_NOSLASHESCAPE);

	FUZZ_ASSERT(s);
	return s;
}

/* What the decoder promises of a verdict it accepted. */
static void check_decoded(const struct jank_verdict_decoded *d)
{
	const struct jank_verdict *v = &d->v;
	const struct jank_path *p = v->path;
	const struct jank_label *flow, *span;
	const uint32_t *frames;
	uint32_t n;
	int64_t at = v->begin, sum = 0;

	FUZZ_ASSERT(v->rule && v->rule->name && v->rule->name[0]);
	/* As JSON has them: valid UTF-8, a bad byte of the engine's three bytes (U+FFFD). */
	FUZZ_ASSERT(v->key && strlen(v->key) < sizeof(d->key));
	FUZZ_ASSERT(jank_utf8_valid(v->key, strlen(v->key)));
	FUZZ_ASSERT(!v->comm || strlen(v->comm) < sizeof(d->comm));
	FUZZ_ASSERT(v->begin <= v->end && v->duration == v->end - v->begin);
	FUZZ_ASSERT(v->begin >= -JANK_VERDICT_TIME_MAX && v->end <= JANK_VERDICT_TIME_MAX);
	FUZZ_ASSERT(v->threshold >= 0 && v->tid >= -1 && v->pid >= -1);
	FUZZ_ASSERT(v->kind == JANK_VERDICT_COMPLETED || v->kind == JANK_VERDICT_OVERDUE);
	FUZZ_ASSERT(p && v->breakdown);
	for (size_t i = 0; i < p->n; i++) {
		FUZZ_ASSERT(p->segs[i].begin >= at && p->segs[i].begin <= p->segs[i].end);
		FUZZ_ASSERT(p->segs[i].state < JANK_STATE_COUNT);
		/* Its labels: none, or a flow's name (no key), an action's name and key. */
		flow = jank_path_label_of(p, p->segs[i].flow);
		span = jank_path_label_of(p, p->segs[i].span);
		FUZZ_ASSERT(!p->segs[i].flow || (flow && flow->name[0] && !flow->key[0]));
		FUZZ_ASSERT(!p->segs[i].span || (span && span->name[0]));
		/* Its stack: none, or 1 to JANK_STACK_DEPTH named frames of the path. */
		frames = jank_path_stack_of(p, p->segs[i].stack, &n);
		FUZZ_ASSERT(!p->segs[i].stack || (frames && n >= 1 && n <= JANK_STACK_DEPTH));
		for (uint32_t k = 0; k < n; k++)
			FUZZ_ASSERT(jank_path_frame_of(p, frames[k]) &&
				    jank_path_frame_of(p, frames[k])->name[0]);
		at = p->segs[i].end;
	}
	FUZZ_ASSERT(at <= v->end);
	for (int s = 0; s < JANK_STATE_COUNT; s++) {
		FUZZ_ASSERT(v->breakdown->per_state[s] >= 0);
		sum += v->breakdown->per_state[s];
	}
	FUZZ_ASSERT(sum <= v->duration);
	if (v->suspects) {
		FUZZ_ASSERT(v->suspects->n <= JANK_SUSPECTS_MAX);
		FUZZ_ASSERT(v->suspects->nran <= JANK_RAN_MAX);
	}
}

/* Where a verdict goes: analyze's text, an alert's story and suspects line, capture.json. */
static void use(const struct jank_verdict *v)
{
	struct jank_verdict_json_error err;
	struct jank_verdict_decoded head;
	struct json_object *o;
	char story[4096], line[256];

	jank_format_verdict_text(devnull, v);
	jank_format_path_story(story, sizeof(story), v->path, 16);
	if (v->suspects)
		jank_format_suspects_line(v->suspects, line, sizeof(line));
	o = jank_verdict_to_json(v, JANK_VERDICT_JSON_HEAD);
	FUZZ_ASSERT(o);
	FUZZ_ASSERT(jank_verdict_from_json(o, &head, &err) == 0);
	jank_verdict_decoded_fini(&head);
	json_object_put(o);
}

/* Encoded, decoded and encoded again: the same text. */
static void fixed_point(const struct jank_verdict *v)
{
	struct jank_verdict_json_error err;
	struct jank_verdict_decoded again;
	struct json_object *a = jank_verdict_to_json(v, JANK_VERDICT_JSON_FULL), *b;
	int r;

	FUZZ_ASSERT(a);
	r = jank_verdict_from_json(a, &again, &err);
	if (r != 0)
		fprintf(stderr, "fuzz-verdict: its own JSON refused: %s: %s\n", err.field, err.why);
	FUZZ_ASSERT(r == 0);
	b = jank_verdict_to_json(&again.v, JANK_VERDICT_JSON_FULL);
	FUZZ_ASSERT(b);
	FUZZ_ASSERT(!strcmp(plain(a), plain(b)));
	json_object_put(a);
	json_object_put(b);
	jank_verdict_decoded_fini(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jank_verdict_json_error err;
	struct jank_verdict_decoded d;
	struct json_tokener *tok;
	struct json_object *o;
	int r;

	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	if (size > (size_t)INT32_MAX)
		return 0;
	tok = json_tokener_new();
	FUZZ_ASSERT(tok);
	o = json_tokener_parse_ex(tok, (const char *)data, (int)size);
	json_tokener_free(tok);
	r = jank_verdict_from_json(o, &d, &err);
	FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r == -EINVAL)
		FUZZ_ASSERT(err.why[0] && !strchr(err.why, '\n'));
	if (r == 0) {
		check_decoded(&d);
		use(&d.v);
		fixed_point(&d.v);
	}
	jank_verdict_decoded_fini(&d);
	json_object_put(o);
	return 0;
}
