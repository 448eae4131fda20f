/* SPDX-License-Identifier: MIT */
/*
 * io/capture-json.c: a capture's record encoded, decoded and encoded again
 * gives the same bytes, whatever it carries (a rule with a match, a fixed or
 * an adaptive threshold, flows with their own to-key, the flagged action
 * with its live path, joined janks past the 64 listed, chunks, a failure,
 * a verdict whose rule jankd did not know);
 * a capture.json of an older jankd (no flows, mode or joined) still reads;
 * the decoder refuses what is not a capture's, naming the member and why;
 * and a file past its bounds is refused before it is parsed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "capture-json.h"

#define MS 1000000LL
#define S  1000000000LL

static char *keys2[] = { "name", "id" };
static char *to_keys2[] = { "src", "seq" };

/* The flagged action: "frame" [name=f,id=3] on tid 4312, 40 ms over a 16 ms threshold. */
static void verdict_of(struct jank_verdict *v, const struct jank_rule *ru, int64_t begin)
{
	memset(v, 0, sizeof(*v));
	v->kind = JANK_VERDICT_COMPLETED;
	v->rule = ru;
	v->key = "name=f,id=3";
	v->begin = begin;
	v->end = begin + 40 * MS;
	v->duration = 40 * MS;
	v->threshold = 16 * MS;
	v->over_threshold = true;
	v->tid = 4312;
	v->pid = 4300;
	v->comm = "render";
}

/* A record as jankd's capture policy fills it. */
static void record_fill(struct jank_capture_record *c, bool adaptive)
{
	struct jank_rule ru = { .name = "frame",
				.begin_event = "app:frame_begin",
				.end_event = "app:frame_end",
				.keys = { "name", "id" },
				.nkeys = 2,
				.match_field = "name",
				.match_value = { .type = JANK_VALUE_STR, .s = "f" } };
	struct jank_flow_rule fl = { .name = "handoff",
				     .from_event = "app:send",
				     .to_event = "app:recv",
				     .nkeys = 2,
				     .nto_keys = 2,
				     .match_field = "id",
				     .match_value = { .type = JANK_VALUE_INT, .i = -7 } };
	struct jank_verdict v;

	memcpy(fl.keys, keys2, sizeof(keys2));
	memcpy(fl.to_keys, to_keys2, sizeof(to_keys2));
	if (adaptive)
		ru.threshold = (struct jank_threshold){ .kind = JANK_THRESHOLD_ADAPTIVE,
							.percentile = 99.5,
							.factor = 1.5,
							.warmup = 200 };
	else
		ru.threshold =
			(struct jank_threshold){ .kind = JANK_THRESHOLD_FIXED, .ns = 16 * MS };
	jank_capture_record_init(c);
	assert_int_equal(jank_capture_set_str(&c->format, JANK_CAPTURE_FORMAT), 0);
	assert_int_equal(jank_capture_set_str(&c->name, "20240501T120000Z-frame-4312"), 0);
	assert_int_equal(jank_capture_set_str(&c->mode, "snapshot"), 0);
	assert_int_equal(jank_capture_set_str(&c->state, "recording"), 0);
	assert_int_equal(jank_capture_set_str(&c->time, "2024-05-01T12:00:00Z"), 0);
	c->time_ns = 1714564800 * S;
	assert_int_equal(jank_capture_set_str(&c->hostname, "host\x01\xff"), 0);
	assert_int_equal(jank_capture_set_str(&c->jankd_version, "0.1.0"), 0);
	assert_int_equal(jank_rule_copy(&c->rule, &ru), 0);
	c->flows = calloc(1, sizeof(*c->flows));
	assert_non_null(c->flows);
	assert_int_equal(jank_flow_rule_copy(&c->flows[0], &fl), 0);
	c->nflows = 1;
	verdict_of(&v, &ru, 1 * S);
	assert_int_equal(jank_capture_action_set(&c->action, &v, "render 30 ms in block_device"),
			 0);
}

static char *encode(const struct jank_capture_record *c)
{
	struct json_object *o = jank_capture_record_to_json(c);
	char *s;

	assert_non_null(o);
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	assert_non_null(s);
	return s;
}

/* Encode, decode, encode: the same bytes. Returns the first encoding (free it). */
static char *round_trip(const struct jank_capture_record *c, struct jank_capture_record *back)
{
	char *a = encode(c), *b, err[256] = "";
	struct json_object *o = json_tokener_parse(a);
	int r;

	assert_non_null(o);
	r = jank_capture_record_from_json(o, back, err, sizeof(err));
	json_object_put(o);
	if (r != 0)
		fail_msg("decoding what the encoder wrote: %d, %s\n%s", r, err, a);
	b = encode(back);
	assert_string_equal(a, b);
	free(b);
	return a;
}

static void full(void **state)
{
	struct jank_capture_record c, back;
	struct jank_verdict v;
	struct jank_rule stub;
	char *s;

	(void)state;
	record_fill(&c, false);
	/* 70 janks joined: 64 listed, 6 counted. */
	for (int i = 0; i < 70; i++) {
		verdict_of(&v, &c.rule, 2 * S + i * MS);
		v.comm = i % 2 ? NULL : "render";
		assert_int_equal(jank_capture_record_join(&c, &v), 0);
	}
	assert_int_equal(c.njoined, JANK_CAPTURE_JOINED_MAX);
	assert_int_equal(c.joined_more, 70 - JANK_CAPTURE_JOINED_MAX);
	assert_int_equal(
		jank_capture_record_add_chunk(&c, "20240501T120000+0200-1", 1, 5 * S, 6 * S), 0);
	assert_int_equal(
		jank_capture_record_add_chunk(&c, "20240501T120001+0200-2", 2, 6 * S, 7 * S), 0);
	assert_int_equal(jank_capture_set_str(&c.state, "failed"), 0);
	assert_int_equal(jank_capture_set_str(&c.error, "lttng snapshot record: timed out"), 0);
	s = round_trip(&c, &back);
	/* What the report and the list read. */
	assert_string_equal(back.name, "20240501T120000Z-frame-4312");
	assert_string_equal(back.state, "failed");
	assert_string_equal(back.rule.name, "frame");
	assert_int_equal(back.rule.nkeys, 2);
	assert_string_equal(back.rule.match_value.s, "f");
	assert_int_equal(back.rule.threshold.ns, 16 * MS);
	assert_int_equal(back.nflows, 1);
	assert_int_equal(back.flows[0].nto_keys, 2);
	assert_string_equal(back.flows[0].to_keys[1], "seq");
	assert_int_equal(back.flows[0].match_value.i, -7);
	assert_string_equal(back.action.action, "frame");
	assert_string_equal(back.action.key, "name=f,id=3");
	assert_string_equal(back.action.live_critical_path, "render 30 ms in block_device");
	assert_int_equal(back.njoined, 64);
	assert_false(back.joined[1].has_comm);
	assert_null(back.joined[1].live_critical_path);
	assert_int_equal(back.joined_more, 6);
	assert_int_equal(back.nchunks, 2);
	assert_int_equal(back.chunks[1].index, 2);
	assert_non_null(back.json);
	/* A record read back takes more joined janks, as the policy's does. */
	assert_int_equal(jank_capture_record_join(&back, &v), 0);
	assert_int_equal(back.joined_more, 7);
	jank_capture_action_verdict(&back.action, &stub, &v);
	assert_string_equal(v.rule->name, "frame");
	assert_int_equal(v.tid, 4312);
	assert_int_equal(v.duration, 40 * MS);
	assert_string_equal(v.comm, "render");
	/* Invalid UTF-8 is written as U+FFFD, control characters escaped. */
	assert_non_null(strstr(s, "\"hostname\":\"host\\u0001\xef\xbf\xbd\""));
	free(s);
	jank_capture_record_fini(&back);
	jank_capture_record_fini(&c);
}

static void adaptive_and_bare(void **state)
{
	struct jank_capture_record c, back;
	struct jank_verdict v;
	char *s;

	(void)state;
	record_fill(&c, true);
	s = round_trip(&c, &back);
	assert_int_equal(back.njoined, 0);
	verdict_of(&v, &back.rule, 2 * S);
	assert_int_equal(jank_capture_record_join(&back, &v), 0);
	assert_int_equal(jank_capture_record_join(&back, &v), 0);
	assert_int_equal(back.njoined, 2);
	assert_int_equal(back.rule.threshold.kind, JANK_THRESHOLD_ADAPTIVE);
	assert_true(back.rule.threshold.percentile == 99.5);
	assert_int_equal(back.rule.threshold.warmup, 200);
	assert_null(strstr(s, "\"chunks\""));
	assert_null(strstr(s, "\"error\""));
	free(s);
	jank_capture_record_fini(&back);
	jank_capture_record_fini(&c);
}

/* A verdict whose rule jankd did not know: "rule": {}, "action": null; read back as such. */
static void no_rule(void **state)
{
	struct jank_capture_record c, back;
	struct jank_verdict v;
	struct jank_rule stub;
	char *s;

	(void)state;
	jank_capture_record_init(&c);
	verdict_of(&v, NULL, 3 * S);
	assert_int_equal(jank_capture_action_set(&c.action, &v, NULL), 0);
	assert_int_equal(jank_capture_record_join(&c, &v), 0);
	s = round_trip(&c, &back);
	assert_non_null(strstr(s, "\"rule\":{\n  }"));
	assert_null(back.rule.name);
	assert_null(back.action.action);
	assert_null(back.joined[0].action);
	assert_string_equal(back.action.key, "name=f,id=3");
	for (int i = 0; i < 70; i++)
		assert_int_equal(jank_capture_record_join(&back, &v), 0);
	assert_int_equal(back.njoined, JANK_CAPTURE_JOINED_MAX);
	assert_int_equal(back.joined_more, 71 - JANK_CAPTURE_JOINED_MAX);
	jank_capture_action_verdict(&back.action, &stub, &v);
	assert_null(v.rule);
	free(s);
	jank_capture_record_fini(&back);
	jank_capture_record_fini(&c);
}

/* A capture.json of an older jankd: no format, mode, flows, joined; still a capture. */
static void older(void **state)
{
	struct jank_capture_record c;
	char err[256] = "";
	struct json_object *o = json_tokener_parse(
		"{\"rule\":{\"name\":\"req\",\"begin\":\"b\",\"end\":\"e\"},"
		"\"action\":{\"action\":\"req\",\"key\":\"k\",\"tid\":7,\"begin\":1,\"end\":9}}");

	(void)state;
	assert_int_equal(jank_capture_record_from_json(o, &c, err, sizeof(err)), 0);
	assert_null(c.state);
	assert_int_equal(c.nflows, 0);
	assert_int_equal(c.njoined, 0);
	assert_int_equal(c.action.duration, 8);
	assert_false(c.action.has_comm);
	jank_capture_record_fini(&c);
	json_object_put(o);
}

static const char *const base =
	"{\"format\":\"jank-capture/1\",\"state\":\"complete\","
	"\"rule\":{\"name\":\"req\",\"begin\":\"b\",\"end\":\"e\",\"key\":[\"id\"]},"
	"\"action\":{\"action\":\"req\",\"key\":\"k\",\"tid\":7,\"begin\":1,\"end\":9}";

/* base's members, then `more` and "}": refused with `want` in the message. */
static void refused_one(const char *more, const char *want)
{
	struct jank_capture_record c;
	char text[2048], err[256] = "";
	struct json_object *o;
	int r;

	snprintf(text, sizeof(text), "%s%s}", base, more);
	o = json_tokener_parse(text);
	if (!o)
		fail_msg("not JSON: %s", text);
	r = jank_capture_record_from_json(o, &c, err, sizeof(err));
	jank_capture_record_fini(&c);
	json_object_put(o);
	if (r != -EINVAL || !strstr(err, want))
		fail_msg("%s: %d, '%s'; expected '%s'", more, r, err, want);
}

static void refused(void **state)
{
	struct jank_capture_record c;
	char err[256];
	struct json_object *o = json_object_new_array();

	(void)state;
	assert_int_equal(jank_capture_record_from_json(o, &c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "not a JSON object");
	jank_capture_record_fini(&c);
	json_object_put(o);
	refused_one(",\"format\":\"other/2\"",
		    "unknown format 'other/2' (expected jank-capture/1)");
	refused_one(",\"format\":3", "bad 'format': not a string");
	refused_one(",\"state\":[]", "bad 'state': not a string");
	refused_one(",\"time_ns\":\"now\"", "bad 'time_ns': not an integer");
	refused_one(",\"rule\":[]", "bad 'rule': not an object");
	refused_one(",\"rule\":{\"begin\":\"b\",\"end\":\"e\"}", "bad 'rule.name': missing");
	refused_one(",\"rule\":{\"name\":\"r\",\"begin\":\"b\",\"end\":\"e\",\"key\":[\"a\",2]}",
		    "bad 'rule.key[1]': not a string");
	refused_one(",\"rule\":{\"name\":\"r\",\"begin\":\"b\",\"end\":\"e\",\"key\":"
		    "[\"a\",\"b\",\"c\",\"d\",\"e\"]}",
		    "bad 'rule.key': ");
	refused_one(",\"rule\":{\"name\":\"r\",\"begin\":\"b\",\"end\":\"e\",\"match\":"
		    "{\"field\":\"f\",\"value\":1.5}}",
		    "bad 'rule.match.value': not a string or an integer");
	refused_one(",\"rule\":{\"name\":\"r\",\"begin\":\"b\",\"end\":\"e\",\"threshold\":"
		    "{\"kind\":\"p99\"}}",
		    "bad 'rule.threshold.kind': not fixed or adaptive");
	refused_one(",\"rule\":{\"name\":\"r\",\"begin\":\"b\",\"end\":\"e\",\"threshold\":"
		    "{\"kind\":\"adaptive\",\"percentile\":150,\"factor\":2}}",
		    "bad 'rule.threshold.percentile': ");
	refused_one(",\"flows\":[{\"name\":\"f\",\"from\":\"a\",\"to\":\"b\"}]",
		    "bad 'flows[0].key': empty");
	refused_one(",\"flows\":[{\"name\":\"f\",\"from\":\"a\",\"to\":\"b\",\"key\":[\"x\"],"
		    "\"to_key\":[\"y\",\"z\"]}]",
		    "bad 'flows[0].to_key': not as many fields as key");
	refused_one(",\"flows\":[7]", "bad 'flows[0]': not an object");
	refused_one(",\"action\":{\"action\":\"req\",\"key\":\"k\",\"begin\":1,\"end\":9}",
		    "bad 'action.tid': missing");
	refused_one(
		",\"action\":{\"action\":\"req\",\"key\":\"k\",\"tid\":1,\"begin\":5,\"end\":2}",
		"bad 'action.end': 2 is before its begin, 5");
	refused_one(",\"action\":{\"action\":\"req\",\"key\":\"k\",\"tid\":1,\"begin\":1,\"end\":2,"
		    "\"live_critical_path\":{}}",
		    "bad 'live_critical_path': not a string");
	refused_one(",\"joined\":[0]", "bad 'joined[0]': not an object");
	refused_one(",\"joined\":[{\"action\":\"req\",\"key\":\"k\",\"tid\":1}]",
		    "bad 'joined[0].begin': missing");
	refused_one(",\"joined_more\":-1", "bad 'joined_more': ");
	refused_one(",\"chunks\":[{\"name\":\"c\",\"index\":-1,\"begin\":1,\"end\":2}]",
		    "bad 'chunks[0].index': ");
	refused_one(",\"chunks\":{}", "bad 'chunks': not an array");
}

/* The file: missing, past its bounds (refused unparsed), or read. */
static void load(void **state)
{
	char dir[] = "/tmp/test-capture-json-XXXXXX", path[256], err[256];
	struct jank_capture_record c;
	bool missing = false;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/%s", dir, JANK_CAPTURE_FILE);
	assert_int_equal(jank_capture_record_load(path, &c, &missing, err, sizeof(err)), -ENOENT);
	assert_true(missing);
	jank_capture_record_fini(&c);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s,\"joined\":[", base);
	for (int i = 0; i < 5000; i++)
		fprintf(f, "%s{}", i ? "," : "");
	fprintf(f, "]}");
	fclose(f);
	assert_int_equal(jank_capture_record_load(path, &c, &missing, err, sizeof(err)), -EINVAL);
	assert_false(missing);
	assert_non_null(strstr(err, "more than 4096 objects"));
	jank_capture_record_fini(&c);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s}", base);
	fclose(f);
	assert_int_equal(jank_capture_record_load(path, &c, &missing, err, sizeof(err)), 0);
	assert_string_equal(c.state, "complete");
	jank_capture_record_fini(&c);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(full),	   cmocka_unit_test(adaptive_and_bare),
		cmocka_unit_test(no_rule), cmocka_unit_test(older),
		cmocka_unit_test(refused), cmocka_unit_test(load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
