/* SPDX-License-Identifier: MIT */
/*
 * io/baseline-file.c: an engine's baselines to JSON and back into another
 * engine; a rule whose definition changed starts afresh; another format or
 * a malformed file loads nothing.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "baseline-file.h"
#include "json-util.h"

static struct jank_engine *engine(int64_t threshold_ns, const char *match)
{
	struct jank_engine_config c;
	struct jank_engine *e;
	struct jank_rule r = { .name = "frame",
			       .begin_event = "jank:action_begin",
			       .end_event = "jank:action_end" };
	struct jank_rule other = { .name = "other",
				   .begin_event = "jank:action_begin",
				   .end_event = "jank:action_end" };

	r.threshold.kind = JANK_THRESHOLD_FIXED;
	r.threshold.ns = threshold_ns;
	other.threshold = r.threshold;
	if (match) {
		r.match_field = "name";
		r.match_value.type = JANK_VALUE_STR;
		r.match_value.s = match;
	}
	jank_engine_config_defaults(&c);
	e = jank_engine_new(&c);
	assert_non_null(e);
	assert_int_equal(jank_engine_add_rule(e, &r), 0);
	assert_int_equal(jank_engine_add_rule(e, &other), 1);
	return e;
}

/* A baseline with every kind of entry, for rule 0. */
static void fill(struct jank_engine *e)
{
	struct jank_baseline b;

	jank_baseline_init(&b);
	b.n = 42;
	b.duration = 4123456.25;
	b.per_state[JANK_STATE_RUNNING] = 3000000.5;
	b.per_state[JANK_STATE_BLOCK_DEVICE] = 1000000.125;
	b.top[0] = (struct jank_baseline_entry){ .key = { JANK_COMP_THREAD, JANK_STATE_RUNNING,
							  jank_comp_identity("app", "ui") },
						 .mean = 2500000.75,
						 .process = "app",
						 .thread = "ui" };
	b.top[1] = (struct jank_baseline_entry){ .key = { JANK_COMP_LOCK, 0, 0x7f00dead0000ull },
						 .mean = 12345.0,
						 .process = "app",
						 .thread = "worker" };
	b.ntop = 2;
	assert_int_equal(jank_engine_set_rule_baseline(e, 0, &b), 0);
}

/* The JSON of e's baselines, through text, as a file would be. */
static struct json_object *through_text(const struct jank_engine *e)
{
	struct json_object *o = jank_baselines_json(e, "net://localhost/host/h/s");
	struct json_object *back;

	assert_non_null(o);
	back = json_tokener_parse(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	assert_non_null(back);
	return back;
}

static void round_trip(void **state)
{
	struct jank_engine *a = engine(16000000, "frame"), *b = engine(16000000, "frame");
	const struct jank_baseline *x, *y;
	struct json_object *doc;
	char err[256];
	size_t n;

	(void)state;
	fill(a);
	doc = through_text(a);
	assert_string_equal(jank_json_get_str(doc, "format"), "jank-baselines/1");
	/* Only the rules that learnt something are saved. */
	assert_int_equal(json_object_array_length(jank_json_get(doc, "rules", json_type_array)), 1);
	assert_int_equal(jank_baselines_load(b, doc, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	x = jank_engine_rule_baseline(a, 0);
	y = jank_engine_rule_baseline(b, 0);
	assert_int_equal(y->n, 42);
	assert_true(fabs(y->duration - x->duration) < 1e-6);
	for (int s = 0; s < JANK_STATE_COUNT; s++)
		assert_true(fabs(y->per_state[s] - x->per_state[s]) < 1e-6);
	assert_int_equal(y->ntop, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_true(jank_comp_key_equal(&y->top[i].key, &x->top[i].key));
		assert_true(fabs(y->top[i].mean - x->top[i].mean) < 1e-6);
		assert_string_equal(y->top[i].process, x->top[i].process);
		assert_string_equal(y->top[i].thread, x->top[i].thread);
	}
	assert_int_equal(jank_engine_rule_baseline(b, 1)->n, 0);
	json_object_put(doc);
	jank_engine_free(a);
	jank_engine_free(b);
}

/* A rule whose threshold or match changed starts afresh; the others are loaded. */
static void definition_changed(void **state)
{
	struct jank_engine *a = engine(16000000, "frame");
	struct jank_engine *t = engine(17000000, "frame"), *m = engine(16000000, "draw");
	struct json_object *doc;
	char err[256];
	size_t n = 99;

	(void)state;
	fill(a);
	doc = through_text(a);
	assert_int_equal(jank_baselines_load(t, doc, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	assert_int_equal(jank_engine_rule_baseline(t, 0)->n, 0);
	assert_int_equal(jank_baselines_load(m, doc, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	assert_int_equal(jank_engine_rule_baseline(m, 0)->n, 0);
	assert_int_not_equal(jank_rule_definition(jank_engine_rule(a, 0)),
			     jank_rule_definition(jank_engine_rule(t, 0)));
	assert_int_not_equal(jank_rule_definition(jank_engine_rule(a, 0)),
			     jank_rule_definition(jank_engine_rule(m, 0)));
	json_object_put(doc);
	jank_engine_free(a);
	jank_engine_free(t);
	jank_engine_free(m);
}

/* Load `text` into a fresh engine: its return, and rule 0's n must stay 0 on error. */
static int load_text(const char *text, char *err, size_t len)
{
	struct jank_engine *e = engine(16000000, "frame");
	struct json_object *doc = json_tokener_parse(text);
	size_t n = 99;
	int r;

	r = jank_baselines_load(e, doc, &n, err, len);
	if (r < 0) {
		assert_int_equal(n, 0);
		assert_int_equal(jank_engine_rule_baseline(e, 0)->n, 0);
	}
	json_object_put(doc);
	jank_engine_free(e);
	return r;
}

static void bad(void **state)
{
	struct jank_engine *a = engine(16000000, "frame");
	struct json_object *doc;
	char err[256], *good, *text;
	const char *def;

	(void)state;
	assert_int_equal(
		load_text("{\"format\":\"jank-baselines/2\",\"rules\":[]}", err, sizeof(err)),
		-EINVAL);
	assert_string_equal(err, "not of format jank-baselines/1 (jank-baselines/2)");
	assert_int_equal(load_text("{\"rules\":[]}", err, sizeof(err)), -EINVAL);
	assert_int_equal(load_text("{\"format\":\"jank-baselines/1\"}", err, sizeof(err)), -EINVAL);
	assert_int_equal(
		load_text("{\"format\":\"jank-baselines/1\",\"rules\":[]}", err, sizeof(err)), 0);
	/* A good file, then spoilt one field at a time: nothing loads. */
	fill(a);
	doc = jank_baselines_json(a, "x");
	def = jank_json_get_str(
		json_object_array_get_idx(jank_json_get(doc, "rules", json_type_array), 0),
		"definition");
	good = strdup(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN));
	assert_int_equal(load_text(good, err, sizeof(err)), 0);
	const char *const spoil[][2] = {
		{ "\"n\":42", "\"n\":-1" },
		{ "\"kind\":\"lock\"", "\"kind\":\"spoon\"" },
		{ "\"state\":\"running\"", "\"state\":\"dancing\"" },
		{ "\"mean\":12345", "\"mean\":-12345" },
		{ "\"thread\":\"worker\"", "\"thread\":\"a-thread-name-too-long\"" },
		{ "\"running\":3000000.5", "\"running\":\"fast\"" },
		{ def, "zz" },
	};
	for (size_t i = 0; i < sizeof(spoil) / sizeof(spoil[0]); i++) {
		char *at = strstr(good, spoil[i][0]);

		assert_non_null(at);
		text = malloc(strlen(good) + strlen(spoil[i][1]) + 1);
		assert_non_null(text);
		memcpy(text, good, (size_t)(at - good));
		strcpy(text + (at - good), spoil[i][1]);
		strcat(text, at + strlen(spoil[i][0]));
		assert_int_equal(load_text(text, err, sizeof(err)), -EINVAL);
		assert_string_equal(err, "rule 1 is malformed");
		free(text);
	}
	free(good);
	json_object_put(doc);
	jank_engine_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(definition_changed),
		cmocka_unit_test(bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
