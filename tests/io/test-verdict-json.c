/* SPDX-License-Identifier: MIT */
/*
 * io/verdict-json.c: a verdict encoded, decoded and encoded again gives the
 * same JSON, whatever it carries (completed or overdue, a path or none,
 * its segments' flows, spans and call stacks, suspects of every kind, only
 * its head as capture.json records it); a capture.json of an older jankd (no type, kind or
 * over_threshold) still reads; and the decoder refuses, naming the member and why, every value out
 * of its range that a hostile worker or a damaged capture could send.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "format.h"
#include "verdict-json.h"

#define US 1000LL
#define MS 1000000LL
#define S  1000000000LL

static const char *plain(struct json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* The path tiles [1 s, 1 s + 27 ms], through a mutex. */
static struct jank_segment segs[] = {
	{ .tid = 4312,
	  .state = JANK_STATE_RUNNING,
	  .begin = 1 * S,
	  .end = 1 * S + 2 * MS,
	  .comm = "worker" },
	{ .tid = 77,
	  .state = JANK_STATE_BLOCK_DEVICE,
	  .begin = 1 * S + 2 * MS,
	  .end = 1 * S + 20 * MS,
	  .comm = "db" },
	{ .tid = 77,
	  .state = JANK_STATE_LOCK_WAIT,
	  .begin = 1 * S + 20 * MS,
	  .end = 1 * S + 22 * MS,
	  .lock = 0x55d0,
	  .comm = "db" },
	{ .tid = 4312,
	  .state = JANK_STATE_PREEMPTED,
	  .begin = 1 * S + 22 * MS,
	  .end = 1 * S + 27 * MS,
	  .comm = "" },
};

static struct jank_rule frame = { .name = "frame" };

/* What the engine would hand over: the breakdown computed from the path. */
struct fixture {
	struct jank_verdict v;
	struct jank_path path;
	struct jank_breakdown bd;
	struct jank_suspects ss;
};

static void fixture_init(struct fixture *x, enum jank_verdict_kind kind, size_t nsegs)
{
	memset(x, 0, sizeof(*x));
	x->path = (struct jank_path){ .tid = 4312, .begin = 1 * S, .end = 1 * S + 27 * MS };
	x->path.segs = segs;
	x->path.n = nsegs;
	jank_breakdown_init(&x->bd);
	assert_int_equal(jank_breakdown_compute(&x->path, &x->bd), 0);
	x->v = (struct jank_verdict){
		.kind = kind,
		.rule = &frame,
		.key = "name=frame,id=15",
		.begin = 1 * S,
		.end = 1 * S + 27 * MS,
		.duration = 27 * MS,
		.threshold = 16 * MS,
		.over_threshold = true,
		.tid = 4312,
		.pid = 4300,
		.comm = "worker",
		.path = &x->path,
		.breakdown = &x->bd,
	};
}

/* Suspects of every kind, with who had the CPU. */
static void add_suspects(struct fixture *x)
{
	struct jank_suspects *ss = &x->ss;

	ss->ready = true;
	ss->normal = 40;
	ss->normal_duration = 2 * MS;
	ss->items[0] = (struct jank_suspect){
		.comp = { .key = { .kind = JANK_COMP_THREAD, .state = JANK_STATE_BLOCK_DEVICE },
			  .ns = 18 * MS,
			  .tid = 77,
			  .process = "db",
			  .thread = "db-io" },
		.normal = 200000,
		.delta = 17800000,
		.ratio = 90,
	};
	ss->items[0].comp.key.id = jank_comp_identity("db", "db-io");
	ss->items[1] = (struct jank_suspect){
		.comp = { .key = { .kind = JANK_COMP_THREAD, .state = JANK_STATE_RUNNING },
			  .ns = 2 * MS,
			  .tid = 4312,
			  .process = "app",
			  .thread = "worker" },
		.normal = 1000,
		.delta = 1999000,
		.ratio = 2000,
		.own = true,
	};
	ss->items[1].comp.key.id = jank_comp_identity("app", "worker");
	ss->items[2] = (struct jank_suspect){
		.comp = { .key = { .kind = JANK_COMP_LOCK, .id = 0x55d0 },
			  .ns = 2 * MS,
			  .tid = 77,
			  .thread = "db" },
		.delta = 2 * MS,
		.ratio = 2000,
	};
	ss->items[3] = (struct jank_suspect){
		.comp = { .key = { .kind = JANK_COMP_STATE, .state = JANK_STATE_PREEMPTED },
			  .ns = 5 * MS },
		.normal = 3,
		.delta = 5 * MS - 3,
		.ratio = 0.123456789,
	};
	ss->items[4] = (struct jank_suspect){
		.comp = { .key = { .kind = JANK_COMP_HOP, .state = JANK_STATE_IPI }, .ns = 10 },
		.delta = 10,
		.ratio = 0.01,
	};
	ss->n = 5;
	ss->ran[0] = (struct jank_ran){ .tid = 812, .ns = 4 * MS, .comm = "hog" };
	ss->ran[1] = (struct jank_ran){ .tid = 9, .ns = 1 * MS, .comm = "" };
	ss->nran = 2;
	x->v.suspects = ss;
}

/* Encode, decode, encode: the same text twice; returns the decoded verdict (fini it). */
static void round_trip(const struct jank_verdict *v, enum jank_verdict_parts parts,
		       struct jank_verdict_decoded *d)
{
	struct jank_verdict_json_error err;
	struct json_object *a = jank_verdict_to_json(v, parts), *b;
	int r;

	assert_non_null(a);
	r = jank_verdict_from_json(a, d, &err);
	if (r != 0)
		fail_msg("%s: %s: %s", plain(a), err.field, err.why);
	b = jank_verdict_to_json(&d->v, parts);
	assert_non_null(b);
	assert_string_equal(plain(b), plain(a));
	json_object_put(a);
	json_object_put(b);
}

static void completed(void **state)
{
	struct jank_verdict_decoded d;
	struct fixture x;

	(void)state;
	fixture_init(&x, JANK_VERDICT_COMPLETED, 4);
	round_trip(&x.v, JANK_VERDICT_JSON_FULL, &d);
	assert_int_equal(d.v.kind, JANK_VERDICT_COMPLETED);
	assert_string_equal(d.v.rule->name, "frame");
	assert_int_equal(d.v.rule_index, UINT32_MAX);
	assert_int_equal(d.path.n, 4);
	assert_int_equal(d.path.segs[2].lock, 0x55d0);
	assert_int_equal(d.breakdown.per_state[JANK_STATE_BLOCK_DEVICE], 18 * MS);
	assert_null(d.v.suspects);
	jank_verdict_decoded_fini(&d);
	jank_breakdown_fini(&x.bd);
}

static void overdue_with_suspects(void **state)
{
	struct jank_verdict_decoded d;
	struct fixture x;

	(void)state;
	fixture_init(&x, JANK_VERDICT_OVERDUE, 4);
	add_suspects(&x);
	x.path.truncated = true;
	round_trip(&x.v, JANK_VERDICT_JSON_FULL, &d);
	assert_int_equal(d.v.kind, JANK_VERDICT_OVERDUE);
	assert_true(d.path.truncated);
	assert_non_null(d.v.suspects);
	assert_int_equal(d.suspects.n, 5);
	assert_int_equal(d.suspects.nran, 2);
	assert_int_equal(d.suspects.items[0].comp.key.id, jank_comp_identity("db", "db-io"));
	assert_true(d.suspects.items[1].own);
	assert_int_equal(d.suspects.items[2].comp.key.id, 0x55d0);
	assert_true(d.suspects.items[3].ratio == 0.123456789);
	jank_verdict_decoded_fini(&d);
	jank_breakdown_fini(&x.bd);
}

/*
 * Main's members: a function suspect (its name, state, presences,
 * increase and rank), suspects compared with the whole trace, the events
 * discarded in the action's interval; and traced strings that are not
 * UTF-8, which the encoder makes valid (each bad byte U+FFFD, three bytes)
 * and the decoder reads back whole though they no longer fit the engine's
 * buffers as they were.
 */
static void functions_discards_untrusted(void **state)
{
	struct jank_verdict_decoded d;
	struct jank_suspect *f;
	struct fixture x;
	char comm[JANK_COMM_LEN], name[JANK_FRAME_NAME_LEN];
	struct jank_frame fr;

	(void)state;
	fixture_init(&x, JANK_VERDICT_COMPLETED, 4);
	add_suspects(&x);
	f = &x.ss.items[4];
	*f = (struct jank_suspect){
		.comp = { .key = { .kind = JANK_COMP_FUNCTION, .id = 1 },
			  .ns = 3 * MS,
			  .tid = 4312,
			  .process = "app",
			  .thread = "worker",
			  .fn_state = JANK_STATE_BLOCKED },
		.normal = 1000,
		.delta = 2999000,
		.ratio = 3000,
		.own = true,
		.presence_slow = 1,
		.presence_normal = 0.25,
		.increase = 0.75,
		.rank = 5248250,
	};
	memset(name, 0, sizeof(name));
	memset(name, 0xff, 42); /* 42 bad bytes: 126 in JSON, which fit the name's buffer */
	memcpy(f->function, name, sizeof(name));
	x.ss.whole = true;
	x.v.discarded_events = 4000000000ull;
	memset(comm, 0xfe, sizeof(comm) - 1);
	comm[sizeof(comm) - 1] = '\0';
	x.v.comm = comm;
	x.v.key = "k\xc3";
	round_trip(&x.v, JANK_VERDICT_JSON_FULL, &d);
	assert_int_equal(d.v.discarded_events, 4000000000ull);
	assert_true(d.suspects.whole);
	f = &d.suspects.items[4];
	assert_int_equal(f->comp.key.kind, JANK_COMP_FUNCTION);
	assert_int_equal(f->comp.key.state, 0);
	assert_int_equal(f->comp.fn_state, JANK_STATE_BLOCKED);
	assert_true(f->own);
	assert_true(f->presence_normal == 0.25 && f->increase == 0.75 && f->rank == 5248250);
	/* Known by its name, as a frame of a path rebuilt from names is. */
	memset(&fr, 0, sizeof(fr));
	memcpy(fr.name, f->function, sizeof(fr.name));
	assert_int_equal(f->comp.key.id, jank_comp_function_identity(&fr));
	assert_int_equal(d.suspects.items[0].rank, d.suspects.items[0].delta);
	/* The comm whole, as JSON has it: 15 U+FFFD, 45 bytes; the key's lone byte too. */
	assert_int_equal(strlen(d.comm), 45);
	assert_string_equal(d.key, "k\xef\xbf\xbd");
	assert_int_equal(strlen(f->function), 126);
	jank_verdict_decoded_fini(&d);
	/* Before main's members: no discarded_events, no baseline. */
	x.v.discarded_events = 0;
	x.ss.whole = false;
	x.ss.ready = false;
	round_trip(&x.v, JANK_VERDICT_JSON_FULL, &d);
	assert_int_equal(d.v.discarded_events, 0);
	assert_false(d.suspects.whole);
	jank_verdict_decoded_fini(&d);
	jank_breakdown_fini(&x.bd);
}

/*
 * A request handed to a pool through flow "queue" and back through "done":
 * the pool's segments say which of its tasks was open (span). Labels come
 * back by name, whatever their ids; a key may be empty, names and keys may
 * be as long as the graph keeps them.
 */
static void flows_and_spans(void **state)
{
	struct jank_segment fs[4];
	struct jank_verdict_decoded d;
	struct fixture x;
	char name[JANK_LABEL_NAME_LEN], key[JANK_LABEL_KEY_LEN];
	const struct jank_label *l;

	(void)state;
	memcpy(fs, segs, sizeof(fs));
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	memset(key, 'k', sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	fixture_init(&x, JANK_VERDICT_COMPLETED, 4);
	x.path.segs = fs;
	fs[1].flow = jank_path_label(&x.path, "queue", "");
	fs[1].span = jank_path_label(&x.path, "task", "task=6");
	fs[2].span = jank_path_label(&x.path, name, key);
	fs[3].flow = jank_path_label(&x.path, "done", "");
	fs[3].span = jank_path_label(&x.path, "frame", "");
	/* A path across hosts: each segment's host comes back, a host label of its own. */
	fs[0].host = fs[3].host = jank_path_host(&x.path, "alpha");
	fs[1].host = fs[2].host = jank_path_host(&x.path, "beta");
	assert_int_equal(jank_breakdown_compute(&x.path, &x.bd), 0); /* per host too */
	round_trip(&x.v, JANK_VERDICT_JSON_FULL, &d);
	assert_int_equal(d.path.n, 4);
	for (size_t i = 0; i < 4; i++) {
		l = jank_path_label_of(&d.path, d.path.segs[i].host);
		assert_non_null(l);
		assert_string_equal(l->name, i == 1 || i == 2 ? "beta" : "alpha");
		assert_string_equal(l->key, "(host)");
	}
	assert_null(jank_path_label_of(&d.path, d.path.segs[0].flow));
	assert_null(jank_path_label_of(&d.path, d.path.segs[0].span));
	l = jank_path_label_of(&d.path, d.path.segs[1].flow);
	assert_non_null(l);
	assert_string_equal(l->name, "queue");
	assert_string_equal(l->key, "");
	l = jank_path_label_of(&d.path, d.path.segs[1].span);
	assert_non_null(l);
	assert_string_equal(l->name, "task");
	assert_string_equal(l->key, "task=6");
	l = jank_path_label_of(&d.path, d.path.segs[2].span);
	assert_non_null(l);
	assert_string_equal(l->name, name);
	assert_string_equal(l->key, key);
	assert_null(jank_path_label_of(&d.path, d.path.segs[2].flow));
	l = jank_path_label_of(&d.path, d.path.segs[3].flow);
	assert_non_null(l);
	assert_string_equal(l->name, "done");
	l = jank_path_label_of(&d.path, d.path.segs[3].span);
	assert_non_null(l);
	assert_string_equal(l->name, "frame");
	assert_string_equal(l->key, "");
	/* The head carries no path, so no labels. */
	jank_verdict_decoded_fini(&d);
	round_trip(&x.v, JANK_VERDICT_JSON_HEAD, &d);
	assert_int_equal(d.path.nlabels, 0);
	jank_verdict_decoded_fini(&d);
	free(x.path.labels);
	jank_breakdown_fini(&x.bd);
}

/*
 * Call stacks: segments of one stack, of another, of none; the longest
 * name a frame keeps and JANK_STACK_DEPTH frames. They come back as frames
 * named alike (address 0), and so does the breakdown by function.
 */
static void stacks(void **state)
{
	struct jank_segment fs[4];
	struct jank_verdict_decoded d;
	struct fixture x;
	uint32_t f[JANK_STACK_DEPTH], n;
	char longest[JANK_FRAME_NAME_LEN];
	const uint32_t *st;
	struct json_object *o;

	(void)state;
	memcpy(fs, segs, sizeof(fs));
	memset(longest, 'f', sizeof(longest) - 1);
	longest[sizeof(longest) - 1] = '\0';
	fixture_init(&x, JANK_VERDICT_COMPLETED, 4);
	x.path.segs = fs;
	f[0] = jank_path_frame(&x.path, 0x1000, 4300, false, "run_task");
	f[1] = jank_path_frame(&x.path, 0x2000, 4300, false, "compute_price");
	f[2] = jank_path_frame(&x.path, 0x3000, 4300, false, longest);
	fs[0].stack = jank_path_stack(&x.path, f, 2);
	fs[1].stack = jank_path_stack(&x.path, f, 3);
	for (uint32_t i = 3; i < JANK_STACK_DEPTH; i++)
		f[i] = f[i % 3];
	fs[3].stack = jank_path_stack(&x.path, f, JANK_STACK_DEPTH);
	jank_breakdown_fini(&x.bd);
	jank_breakdown_init(&x.bd);
	assert_int_equal(jank_breakdown_compute(&x.path, &x.bd), 0);
	round_trip(&x.v, JANK_VERDICT_JSON_FULL, &d);
	st = jank_path_stack_of(&d.path, d.path.segs[0].stack, &n);
	assert_int_equal(n, 2);
	assert_string_equal(jank_path_frame_of(&d.path, st[0])->name, "run_task");
	assert_string_equal(jank_path_frame_of(&d.path, st[1])->name, "compute_price");
	assert_int_equal(jank_path_frame_of(&d.path, st[1])->addr, 0);
	st = jank_path_stack_of(&d.path, d.path.segs[1].stack, &n);
	assert_int_equal(n, 3);
	assert_string_equal(jank_path_frame_of(&d.path, st[2])->name, longest);
	assert_int_equal(d.path.segs[2].stack, 0);
	jank_path_stack_of(&d.path, d.path.segs[3].stack, &n);
	assert_int_equal(n, JANK_STACK_DEPTH);
	assert_int_equal(d.path.nframes, 3); /* frames by name, each once */
	assert_int_equal(d.breakdown.nfunctions, x.bd.nfunctions);
	assert_string_equal(jank_format_top_function(&d.breakdown, NULL),
			    jank_format_top_function(&x.bd, NULL));
	o = jank_verdict_to_json(&d.v, JANK_VERDICT_JSON_FULL);
	assert_non_null(
		json_object_object_get(json_object_object_get(o, "breakdown"), "functions"));
	json_object_put(o);
	jank_verdict_decoded_fini(&d);
	x.path.segs = NULL; /* fs is ours */
	jank_path_fini(&x.path);
	jank_breakdown_fini(&x.bd);
}

/* No segments, no comm, out of memory on the way, suspects not ready. */
static void sparse(void **state)
{
	struct jank_verdict_decoded d;
	struct fixture x;

	(void)state;
	fixture_init(&x, JANK_VERDICT_COMPLETED, 0);
	x.v.comm = NULL;
	x.v.pid = -1;
	x.v.tid = -1;
	x.v.incomplete = true;
	x.v.over_threshold = false;
	x.v.threshold = 0;
	x.v.suspects = &x.ss;
	x.ss.normal = 3;
	round_trip(&x.v, JANK_VERDICT_JSON_FULL, &d);
	assert_null(d.v.comm);
	assert_true(d.v.incomplete);
	assert_int_equal(d.path.n, 0);
	assert_false(d.suspects.ready);
	jank_verdict_decoded_fini(&d);
	/* A path given as NULL is written as an empty one. */
	x.v.path = NULL;
	x.v.breakdown = NULL;
	round_trip(&x.v, JANK_VERDICT_JSON_FULL, &d);
	jank_verdict_decoded_fini(&d);
	jank_breakdown_fini(&x.bd);
}

/* capture.json's action, and report.json's when there is no path. */
static void head_only(void **state)
{
	struct jank_verdict_decoded d;
	struct fixture x;
	struct json_object *o;

	(void)state;
	fixture_init(&x, JANK_VERDICT_OVERDUE, 4);
	add_suspects(&x);
	round_trip(&x.v, JANK_VERDICT_JSON_HEAD, &d);
	o = jank_verdict_to_json(&x.v, JANK_VERDICT_JSON_HEAD);
	assert_string_equal(
		plain(o), "{\"type\":\"action\",\"kind\":\"overdue\",\"action\":\"frame\",\"key\":"
			  "\"name=frame,id=15\",\"begin\":1000000000,\"end\":1027000000,"
			  "\"duration_ns\":27000000,\"threshold_ns\":16000000,\"tid\":4312,"
			  "\"pid\":4300,\"comm\":\"worker\",\"over_threshold\":true}");
	json_object_put(o);
	jank_verdict_decoded_fini(&d);
	jank_breakdown_fini(&x.bd);
}

/* What a capture.json of an earlier jankd holds still reads, with defaults. */
static void older_capture(void **state)
{
	struct json_object *o = json_tokener_parse(
		"{\"action\":\"req\",\"key\":\"id=1\",\"tid\":101,\"begin\":1000,\"end\":41000,"
		"\"threshold_ns\":10000}");
	struct jank_verdict_json_error err;
	struct jank_verdict_decoded d;

	(void)state;
	assert_int_equal(jank_verdict_from_json(o, &d, &err), 0);
	assert_int_equal(d.v.kind, JANK_VERDICT_COMPLETED);
	assert_int_equal(d.v.duration, 40000);
	assert_int_equal(d.v.pid, -1);
	assert_null(d.v.comm);
	assert_true(d.v.over_threshold);
	assert_false(d.v.incomplete);
	assert_non_null(d.v.path);
	assert_int_equal(d.path.n, 0);
	jank_verdict_decoded_fini(&d);
	json_object_put(o);
}

/* A valid verdict, in which each case below replaces one member. */
static const char base[] =
	"{\"type\":\"action\",\"kind\":\"completed\",\"action\":\"frame\",\"key\":\"k\","
	"\"begin\":1000,\"end\":2000,\"duration_ns\":1000,\"threshold_ns\":500,\"tid\":7,"
	"\"pid\":5,\"comm\":\"app\",\"over_threshold\":true,\"critical_path\":["
	"{\"tid\":7,\"comm\":\"app\",\"state\":\"running\",\"begin\":1000,\"end\":1500},"
	"{\"tid\":9,\"comm\":\"db\",\"state\":\"lock_wait\",\"begin\":1500,\"end\":2000,"
	"\"lock\":\"0xab0\"}],\"suspects\":{\"ready\":true,\"normal_actions\":12,"
	"\"normal_duration_ns\":700,\"items\":[{\"kind\":\"state\",\"state\":\"running\","
	"\"ns\":500,\"normal_ns\":100,\"delta_ns\":400,\"ratio\":5.0}],\"cpu_taken_by\":[]}}";

#define X32 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
/* Longer than the JSON of any traced string of a buffer of 96 bytes (3 per byte): 286 bytes. */
#define X286 X32 X32 X32 X32 X32 X32 X32 X32 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
/* 129 function names: one more than a stack holds. */
#define F8   "\"f\",\"f\",\"f\",\"f\",\"f\",\"f\",\"f\",\"f\","
#define F128 F8 F8 F8 F8 F8 F8 F8 F8 F8 F8 F8 F8 F8 F8 F8 F8

struct bad {
	const char *key;   /* the member replaced */
	const char *value; /* by this JSON, or removed when NULL */
	const char *field; /* the error names this member */
	const char *why;   /* and says this */
};

static const struct bad bads[] = {
	{ "type", "\"summary\"", "type", "'summary', not 'action'" },
	{ "kind", "\"late\"", "kind", "unknown name 'late'" },
	{ "kind", "1", "kind", "not a string" },
	/* A value quoted in a message is cut short, its control characters made '?': one line. */
	{ "kind", "\"a\\nb\\u001b[2J\"", "kind", "unknown name 'a?b?[2J'" },
	{ "kind", "\"" X32 "yy\"", "kind", "unknown name '" X32 "...'" },
	{ "action", NULL, "action", "missing" },
	{ "action", "\"\"", "action", "empty" },
	{ "key", NULL, "key", "missing" },
	{ "key", "\"a\\u0000b\"", "key", "holds a NUL character" },
	{ "key", "\"" X286 "\"", "key", "longer than 285 bytes" },
	{ "begin", NULL, "begin", "missing" },
	{ "begin", "\"1000\"", "begin", "not an integer" },
	{ "begin", "1000.5", "begin", "not an integer" },
	{ "begin", "-9000000000000000000", "begin",
	  "-9000000000000000000 is out of [-4000000000000000000, 4000000000000000000]" },
	{ "end", "999", "end", "999 is before its begin, 1000" },
	{ "end", "9223372036854775807", "end",
	  "9223372036854775807 is out of [-4000000000000000000, 4000000000000000000]" },
	{ "duration_ns", "-1000", "duration_ns", "-1000 is out of [0, 9223372036854775807]" },
	{ "duration_ns", "999", "duration_ns", "999 is not end - begin, 1000" },
	{ "threshold_ns", "-1", "threshold_ns", "-1 is out of [0, 4000000000000000000]" },
	{ "tid", "2147483648", "tid", "2147483648 is out of [-1, 2147483647]" },
	{ "tid", "-2", "tid", "-2 is out of [-1, 2147483647]" },
	{ "pid", "true", "pid", "not an integer" },
	{ "comm", "\"" X32 "fourteen-chars\"", "comm", "longer than 45 bytes" },
	{ "discarded_events", "-1", "discarded_events", "-1 is out of [0, 9223372036854775807]" },
	{ "discarded_events", "\"3\"", "discarded_events", "not an integer" },
	{ "over_threshold", "1", "over_threshold", "not true or false" },
	{ "critical_path", "{}", "critical_path", "not an array" },
	{ "critical_path", "[1]", "critical_path[0].", "not an object" },
	{ "critical_path", "[{\"tid\":7,\"state\":\"running\",\"begin\":1600,\"end\":1500}]",
	  "critical_path[0].end", "1500 is before its begin, 1600" },
	{ "critical_path", "[{\"tid\":7,\"state\":\"running\",\"begin\":900,\"end\":1500}]",
	  "critical_path[0].begin",
	  "900 is before 1000 (the end of the segment before it, or the action's begin)" },
	{ "critical_path", "[{\"tid\":7,\"state\":\"running\",\"begin\":1000,\"end\":2001}]",
	  "critical_path[0].end", "2001 is after the action's end, 2000" },
	{ "critical_path",
	  "[{\"tid\":7,\"state\":\"running\",\"begin\":1000,\"end\":1600},"
	  "{\"tid\":7,\"state\":\"running\",\"begin\":1500,\"end\":2000}]",
	  "critical_path[1].begin",
	  "1500 is before 1600 (the end of the segment before it, or the action's begin)" },
	{ "critical_path", "[{\"tid\":7,\"state\":\"asleep\",\"begin\":1000,\"end\":2000}]",
	  "critical_path[0].state", "unknown name 'asleep'" },
	{ "critical_path", "[{\"tid\":7,\"begin\":1000,\"end\":2000}]", "critical_path[0].state",
	  "missing" },
	{ "critical_path",
	  "[{\"tid\":7,\"state\":\"lock_wait\",\"begin\":1000,\"end\":2000,\"lock\":\"0xAB\"}]",
	  "critical_path[0].lock", "'0xAB' is not an address in lowercase hex (0x55d0)" },
	{ "critical_path",
	  "[{\"tid\":7,\"state\":\"lock_wait\",\"begin\":1000,\"end\":2000,"
	  "\"lock\":\"0x1234567890abcdef0\"}]",
	  "critical_path[0].lock", "longer than 18 bytes" },
	{ "critical_path",
	  "[{\"tid\":7,\"state\":\"running\",\"begin\":1000,\"end\":2000,\"flow\":3}]",
	  "critical_path[0].flow", "not a string" },
	{ "critical_path",
	  "[{\"tid\":7,\"state\":\"running\",\"begin\":1000,\"end\":2000,\"flow\":\"\"}]",
	  "critical_path[0].flow", "empty" },
	{ "critical_path",
	  "[{\"tid\":7,\"state\":\"running\",\"begin\":1000,\"end\":2000,\"host\":5}]",
	  "critical_path[0].host", "not a string" },
	{ "critical_path",
	  "[{\"tid\":7,\"state\":\"running\",\"begin\":1000,\"end\":2000,\"host\":\"\"}]",
	  "critical_path[0].host", "empty" },
	{ "critical_path",
	  "[{\"tid\":7,\"state\":\"running\",\"begin\":1000,\"end\":2000,\"flow\":\"" X32 X32 X32
		  X32 X32 "\"}]",
	  "critical_path[0].flow", "longer than 141 bytes" },
	{ "critical_path",
	  "[{\"tid\":7,\"state\":\"running\",\"begin\":1000,\"end\":2000,\"span\":\"t\"}]",
	  "critical_path[0].span", "not an object" },
	{ "critical_path",
	  "[{\"tid\":7,\"state\":\"running\",\"begin\":1000,\"end\":2000,\"span\":{}}]",
	  "critical_path[0].span.action", "missing" },
	{ "critical_path",
	  "[{\"tid\":7,\"state\":\"running\",\"begin\":1000,\"end\":2000,"
	  "\"span\":{\"action\":\"\",\"key\":\"k\"}}]",
	  "critical_path[0].span.action", "empty" },
	{ "critical_path",
	  "[{\"tid\":7,\"state\":\"running\",\"begin\":1000,\"end\":2000,"
	  "\"span\":{\"action\":\"" X32 X32 X32 X32 X32 "\"}}]",
	  "critical_path[0].span.action", "longer than 141 bytes" },
	{ "critical_path",
	  "[{\"tid\":7,\"state\":\"running\",\"begin\":1000,\"end\":2000,"
	  "\"span\":{\"action\":\"a\",\"key\":\"" X286 "\"}}]",
	  "critical_path[0].span.key", "longer than 285 bytes" },
	{ "critical_path",
	  "[{\"tid\":7,\"state\":\"running\",\"begin\":1000,\"end\":2000,"
	  "\"span\":{\"action\":\"a\",\"key\":[]}}]",
	  "critical_path[0].span.key", "not a string" },
	{ "critical_path",
	  "[{\"tid\":7,\"state\":\"running\",\"begin\":1000,\"end\":2000,\"stack\":{}}]",
	  "critical_path[0].stack", "not an array" },
	{ "critical_path",
	  "[{\"tid\":7,\"state\":\"running\",\"begin\":1000,\"end\":2000,\"stack\":[]}]",
	  "critical_path[0].stack", "empty" },
	{ "critical_path",
	  "[{\"tid\":7,\"state\":\"running\",\"begin\":1000,\"end\":2000,\"stack\":[\"main\",7]}]",
	  "critical_path[0].stack[1]", "not a string" },
	{ "critical_path",
	  "[{\"tid\":7,\"state\":\"running\",\"begin\":1000,\"end\":2000,\"stack\":[\"main\",\"\"]}"
	  "]",
	  "critical_path[0].stack[1]", "empty" },
	{ "critical_path",
	  "[{\"tid\":7,\"state\":\"running\",\"begin\":1000,\"end\":2000,\"stack\":[\"a\\u0000b\"]}"
	  "]",
	  "critical_path[0].stack[0]", "holds a NUL character" },
	{ "critical_path",
	  "[{\"tid\":7,\"state\":\"running\",\"begin\":1000,\"end\":2000,\"stack\":[\"" X286 X32 X32
		  X32 "\"]}]",
	  "critical_path[0].stack[0]", "longer than 381 bytes" },
	{ "critical_path",
	  "[{\"tid\":7,\"state\":\"running\",\"begin\":1000,\"end\":2000,\"stack\":[" F128
	  "\"f\"]}]",
	  "critical_path[0].stack", "more than 128 functions" },
	{ "suspects", "[]", "suspects", "not an object" },
	{ "suspects", "{\"baseline\":\"later\"}", "suspects.baseline", "unknown name 'later'" },
	{ "suspects",
	  "{\"items\":[{\"kind\":\"function\",\"function\":\"f\",\"state\":\"running\","
	  "\"increase\":2}]}",
	  "suspects.items[0].increase", "not a number in [-1, 1]" },
	{ "suspects",
	  "{\"items\":[{\"kind\":\"function\",\"function\":\"f\",\"state\":\"running\","
	  "\"slow_presence\":-0.5}]}",
	  "suspects.items[0].slow_presence", "not a number in [0, 1]" },
	{ "suspects", "{\"items\":[{\"kind\":\"function\",\"function\":7,\"state\":\"running\"}]}",
	  "suspects.items[0].function", "not a string" },
	{ "suspects", "{\"normal_actions\":-1}", "suspects.normal_actions",
	  "-1 is out of [0, 9223372036854775807]" },
	{ "suspects", "{\"normal_duration_ns\":9007199254740993}", "suspects.normal_duration_ns",
	  "9007199254740993 is out of [0, 9007199254740992]" },
	{ "suspects", "{\"items\":[{},{},{},{},{},{}]}", "suspects.items", "more than 5 elements" },
	{ "suspects", "{\"items\":[{\"kind\":\"mood\"}]}", "suspects.items[0].kind",
	  "unknown name 'mood'" },
	{ "suspects", "{\"items\":[{\"kind\":\"lock\"}]}", "suspects.items[0].lock", "missing" },
	{ "suspects", "{\"items\":[{\"kind\":\"state\",\"state\":\"running\",\"ratio\":-1}]}",
	  "suspects.items[0].ratio", "not a finite number, at least 0" },
	{ "suspects", "{\"items\":[{\"kind\":\"state\",\"state\":\"running\",\"ratio\":1e999}]}",
	  "suspects.items[0].ratio", "not a finite number, at least 0" },
	{ "suspects", "{\"items\":[{\"kind\":\"state\",\"state\":\"running\",\"ns\":-1}]}",
	  "suspects.items[0].ns", "-1 is out of [0, 9223372036854775807]" },
	{ "suspects",
	  "{\"items\":[{\"kind\":\"function\",\"function\":\"f\",\"state\":\"running\","
	  "\"rank_ns\":9223372036854775807}]}",
	  "suspects.items[0].rank_ns",
	  "9223372036854775807 is out of [-9007199254740992, 9007199254740992]" },
	{ "suspects", "{\"cpu_taken_by\":[{\"tid\":1,\"comm\":5}]}",
	  "suspects.cpu_taken_by[0].comm", "not a string" },
	{ "suspects", "{\"cpu_taken_by\":[{},{},{},{}]}", "suspects.cpu_taken_by",
	  "more than 3 elements" },
};

static void refused(void **state)
{
	struct json_object *o = json_tokener_parse(base);
	struct jank_verdict_json_error err;
	struct jank_verdict_decoded d;

	(void)state;
	assert_non_null(o);
	assert_int_equal(jank_verdict_from_json(o, &d, &err), 0);
	jank_verdict_decoded_fini(&d);
	json_object_put(o);
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		const struct bad *b = &bads[i];
		struct json_object *v = b->value ? json_tokener_parse(b->value) : NULL;

		o = json_tokener_parse(base);
		if (b->value && !v)
			fail_msg("case %zu: bad JSON %s", i, b->value);
		if (v)
			json_object_object_add(o, b->key, v);
		else
			json_object_object_del(o, b->key);
		if (jank_verdict_from_json(o, &d, &err) != -EINVAL)
			fail_msg("case %zu (%s): accepted", i, b->key);
		if (strcmp(err.field, b->field) != 0 || strcmp(err.why, b->why) != 0)
			fail_msg("case %zu: '%s: %s', expected '%s: %s'", i, err.field, err.why,
				 b->field, b->why);
		jank_verdict_decoded_fini(&d);
		json_object_put(o);
	}
	assert_int_equal(jank_verdict_from_json(NULL, &d, &err), -EINVAL);
	assert_string_equal(err.why, "not a JSON object");
	jank_verdict_decoded_fini(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(completed),
		cmocka_unit_test(overdue_with_suspects),
		cmocka_unit_test(flows_and_spans),
		cmocka_unit_test(stacks),
		cmocka_unit_test(sparse),
		cmocka_unit_test(head_only),
		cmocka_unit_test(older_capture),
		cmocka_unit_test(refused),
		cmocka_unit_test(functions_discards_untrusted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
