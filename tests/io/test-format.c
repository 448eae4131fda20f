/* SPDX-License-Identifier: MIT */
/*
 * io/format*.c: reports, critical paths, suspects and graphs as JSON and as
 * text, from engine structs built by hand (and a small graph and an engine
 * without events).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "engine.h"
#include "format.h"
#include "verdict-json.h"
#include "graph.h"

#define US 1000LL
#define MS 1000000LL
#define S  1000000000LL

static const char *plain(struct json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* Check the JSON of `o` and put it. */
static void check_json(struct json_object *o, const char *want)
{
	assert_non_null(o);
	assert_string_equal(plain(o), want);
	json_object_put(o);
}

struct out {
	char *buf;
	size_t len;
	FILE *f;
};

static FILE *out_open(struct out *o)
{
	o->buf = NULL;
	o->len = 0;
	o->f = open_memstream(&o->buf, &o->len);
	assert_non_null(o->f);
	return o->f;
}

/* Close, compare and free. */
static void out_check(struct out *o, const char *want)
{
	assert_int_equal(fclose(o->f), 0);
	assert_string_equal(o->buf, want);
	free(o->buf);
}

/* A path of six steps over three threads, one of them behind a mutex. */
static struct jank_segment segs[] = {
	{ 4312, JANK_STATE_RUNNING, 0, 2100 * US, 0, "worker", 0, 0, 0, 0 },
	{ 77, JANK_STATE_RUNNING, 2100 * US, 20300 * US, 0, "db", 0, 0, 0, 0 },
	{ 77, JANK_STATE_BLOCKED, 20300 * US, 20301 * US, 0, "db", 0, 0, 0, 0 },
	{ 4312, JANK_STATE_RUNNING, 20301 * US, 21001 * US, 0, "worker", 0, 0, 0, 0 },
	{ 99, JANK_STATE_RUNNING, 21001 * US, 22001 * US, 0x55d0, "", 0, 0, 0, 0 },
	{ 77, JANK_STATE_RUNNING, 22001 * US, 27001 * US, 0, "db", 0, 0, 0, 0 },
};

static struct jank_path path(size_t n)
{
	struct jank_path p = { 0 };

	p.tid = 4312;
	p.begin = 0;
	p.end = n ? segs[n - 1].end : 0;
	p.segs = segs;
	p.n = n;
	return p;
}

static struct jank_breakdown_item items[] = {
	{ 77, JANK_STATE_RUNNING, 23200 * US, "db", 0 },
	{ 4312, JANK_STATE_RUNNING, 2800 * US, "worker", 0 },
	{ 99, JANK_STATE_RUNNING, 1000 * US, "", 0 },
	{ 77, JANK_STATE_BLOCKED, 1 * US, "db", 0 },
};

static struct jank_breakdown_lock locks[] = {
	{ 0x55d0, 1000 * US },
};

static struct jank_breakdown breakdown(void)
{
	struct jank_breakdown b = { 0 };

	b.per_state[JANK_STATE_RUNNING] = 27000 * US;
	b.per_state[JANK_STATE_BLOCKED] = 1 * US;
	b.items = items;
	b.n = 4;
	b.locks = locks;
	b.nlocks = 1;
	return b;
}

static void names(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(jank_format_names("renderer", "db", buf, sizeof(buf)), "renderer/db");
	assert_string_equal(jank_format_names("db", "db", buf, sizeof(buf)), "db");
	assert_string_equal(jank_format_names("", "db", buf, sizeof(buf)), "db");
	assert_string_equal(jank_format_names(NULL, "db", buf, sizeof(buf)), "db");
	assert_string_equal(jank_format_names("renderer", "", buf, sizeof(buf)), "renderer/?");
	assert_string_equal(jank_format_names(NULL, NULL, buf, sizeof(buf)), "?");
	assert_string_equal(jank_format_names("?", NULL, buf, sizeof(buf)), "?");
	assert_string_equal(jank_format_names("renderer", "db", buf, 5), "rend");
}

static void story(void **state)
{
	struct jank_path p = path(6);
	const char *all = "tid 4312 (worker) running 2.10 ms → waiting for tid 77 (db): running "
			  "18.2 ms → blocked 1.00 us → back on tid 4312 (worker): running 700 us "
			  "→ waiting for lock 0x55d0 held by tid 99: running 1.00 ms → back on "
			  "tid 77 (db): running 5.00 ms";
	const char *two = "tid 4312 (worker) running 2.10 ms → waiting for tid 77 (db): running "
			  "18.2 ms → … (4 more steps)";
	char buf[512], small[10];

	(void)state;
	assert_int_equal(jank_format_path_story(buf, sizeof(buf), &p, 20), strlen(all));
	assert_string_equal(buf, all);
	assert_int_equal(jank_format_path_story(buf, sizeof(buf), &p, 6), strlen(all));
	assert_string_equal(buf, all);
	assert_int_equal(jank_format_path_story(buf, sizeof(buf), &p, 2), strlen(two));
	assert_string_equal(buf, two);
	/* Too small: cut, and the length it needed, as snprintf. */
	memset(small, 'X', sizeof(small));
	assert_int_equal(jank_format_path_story(small, sizeof(small), &p, 2), strlen(two));
	assert_string_equal(small, "tid 4312 ");
	assert_int_equal(jank_format_path_story(NULL, 0, &p, 20), strlen(all));
	/* Consecutive segments of one thread and state are one step. */
	segs[2].state = JANK_STATE_RUNNING;
	assert_int_equal(jank_format_path_story(buf, sizeof(buf), &p, 2), strlen(buf));
	assert_string_equal(buf, "tid 4312 (worker) running 2.10 ms → waiting for tid 77 (db): "
				 "running 18.2 ms → … (3 more steps)");
	segs[2].state = JANK_STATE_BLOCKED;
	/* Nothing to tell. */
	p = path(0);
	strcpy(buf, "old");
	assert_int_equal(jank_format_path_story(buf, sizeof(buf), &p, 20), 0);
	assert_string_equal(buf, "");
	strcpy(buf, "old");
	assert_int_equal(jank_format_path_story(buf, sizeof(buf), NULL, 20), 0);
	assert_string_equal(buf, "");
}

static void segments_json(void **state)
{
	struct jank_path p = path(2);

	(void)state;
	check_json(jank_segments_to_json(&p),
		   "[{\"tid\":4312,\"comm\":\"worker\",\"state\":\"running\",\"begin\":0,\"end\":"
		   "2100000},{\"tid\":77,\"comm\":\"db\",\"state\":\"running\",\"begin\":2100000,"
		   "\"end\":20300000}]");
	p.segs = &segs[4];
	p.n = 1;
	check_json(jank_segments_to_json(&p),
		   "[{\"tid\":99,\"comm\":\"\",\"state\":\"running\",\"begin\":21001000,\"end\":"
		   "22001000,\"lock\":\"0x55d0\"}]");
	p.n = 0;
	check_json(jank_segments_to_json(&p), "[]");
	check_json(jank_segments_to_json(NULL), "[]");
}

/*
 * A request posted to a pool: the pool's segments came through flow "queue",
 * and say which of the pool's tasks was open (span); back on the requester
 * through "done". JSON has both; the story says how the path moved.
 */
static void flows_and_spans(void **state)
{
	struct jank_segment fs[] = {
		{ .tid = 10, .state = JANK_STATE_RUNNING, .begin = 0, .end = 100, .comm = "req" },
		{ .tid = 812,
		  .state = JANK_STATE_RUNNING,
		  .begin = 100,
		  .end = 500,
		  .comm = "pool" },
		{ .tid = 812,
		  .state = JANK_STATE_RUNNING,
		  .begin = 500,
		  .end = 900,
		  .comm = "pool" },
		{ .tid = 10,
		  .state = JANK_STATE_PREEMPTED,
		  .begin = 900,
		  .end = 950,
		  .comm = "req" },
	};
	struct jank_path p = { .tid = 10, .begin = 0, .end = 950, .segs = fs, .n = 4 };
	char buf[512];

	(void)state;
	fs[1].flow = jank_path_label(&p, "queue", "");
	fs[1].span = jank_path_label(&p, "task", "task=0");
	fs[2].span = jank_path_label(&p, "task", "task=1");
	fs[3].flow = jank_path_label(&p, "done", "");
	assert_int_equal(jank_path_label(&p, "task", "task=0"), fs[1].span); /* the same label */
	jank_format_path_story(buf, sizeof(buf), &p, 20);
	assert_string_equal(buf, "tid 10 (req) running 100 ns → via flow queue to tid 812 (pool): "
				 "running 800 ns → via flow done to tid 10 (req): preempted 50 ns");
	p.segs = &fs[1];
	p.n = 1;
	check_json(jank_segments_to_json(&p),
		   "[{\"tid\":812,\"comm\":\"pool\",\"state\":\"running\",\"begin\":100,"
		   "\"end\":500,\"flow\":\"queue\",\"span\":{\"action\":\"task\",\"key\":"
		   "\"task=0\"}}]");
	free(p.labels);
}

/* Names for the frames of functions(), as a symbolizer gives them. */
static void name_frame(const struct jank_frame *f, char *buf, size_t len, void *data)
{
	(void)data;
	snprintf(buf, len, "%s",
		 f->addr == 0x1000   ? "run_task"
		 : f->addr == 0x2000 ? "compute_price"
				     : "apply_discounts");
}

static void jank_path_frames_set_names(struct jank_path *p)
{
	jank_path_name_frames(p, name_frame, NULL);
}

/*
 * Stacks: JSON critical_path[].stack outermost first, breakdown.functions
 * largest first, and the story's "in apply_discounts ← compute_price ←
 * run_task" for a step's longest part.
 */
static void functions(void **state)
{
	struct jank_segment fs[] = {
		{ .tid = 10,
		  .state = JANK_STATE_RUNNING,
		  .begin = 0,
		  .end = 200 * US,
		  .comm = "req" },
		{ .tid = 10,
		  .state = JANK_STATE_RUNNING,
		  .begin = 200 * US,
		  .end = 30000 * US,
		  .comm = "req" },
		{ .tid = 10,
		  .state = JANK_STATE_BLOCKED,
		  .begin = 30000 * US,
		  .end = 31000 * US,
		  .comm = "req" },
	};
	struct jank_path p = { .tid = 10, .begin = 0, .end = 31000 * US, .segs = fs, .n = 3 };
	struct jank_breakdown b;
	uint32_t f[3];
	char buf[512];
	FILE *out;
	char *text = NULL;
	size_t tlen = 0;

	(void)state;
	f[0] = jank_path_frame(&p, 0x1000, 7, false, NULL);
	f[1] = jank_path_frame(&p, 0x2000, 7, false, NULL);
	f[2] = jank_path_frame(&p, 0x3000, 7, false, NULL);
	assert_int_equal(jank_path_frame(&p, 0x2000, 7, false, NULL), f[1]);
	assert_int_not_equal(jank_path_frame(&p, 0x2000, 8, false, NULL), f[1]);
	fs[0].stack = jank_path_stack(&p, f, 2);
	fs[1].stack = jank_path_stack(&p, f, 3);
	fs[2].stack = fs[0].stack;
	jank_path_frames_set_names(&p);
	jank_breakdown_init(&b);
	assert_int_equal(jank_breakdown_compute(&p, &b), 0);
	jank_format_path_story(buf, sizeof(buf), &p, 20);
	assert_string_equal(buf, "tid 10 (req) running 30.0 ms in apply_discounts ← "
				 "compute_price ← run_task → blocked 1.00 ms in compute_price ← "
				 "run_task");
	assert_string_equal(jank_format_top_function(&b, NULL), "apply_discounts");
	check_json(jank_segments_to_json(&p),
		   "[{\"tid\":10,\"comm\":\"req\",\"state\":\"running\",\"begin\":0,\"end\":"
		   "200000,\"stack\":[\"run_task\",\"compute_price\"]},{\"tid\":10,\"comm\":"
		   "\"req\",\"state\":\"running\",\"begin\":200000,\"end\":30000000,\"stack\":["
		   "\"run_task\",\"compute_price\",\"apply_discounts\"]},{\"tid\":10,\"comm\":"
		   "\"req\",\"state\":\"blocked\",\"begin\":30000000,\"end\":31000000,"
		   "\"stack\":[\"run_task\",\"compute_price\"]}]");
	check_json(jank_format_breakdown_json(&b),
		   "{\"states\":{\"running\":30000000,\"blocked\":1000000},\"threads\":[{"
		   "\"tid\":10,\"comm\":\"req\",\"state\":\"running\",\"ns\":30000000},{"
		   "\"tid\":10,\"comm\":\"req\",\"state\":\"blocked\",\"ns\":1000000}],"
		   "\"functions\":[{\"name\":\"apply_discounts\",\"ns\":29800000},{\"name\":"
		   "\"compute_price\",\"ns\":1200000}]}");
	out = open_memstream(&text, &tlen);
	assert_non_null(out);
	jank_format_critpath_text(out, &p, &b);
	fclose(out);
	assert_non_null(strstr(text, "  by function:\n    apply_discounts"));
	assert_non_null(strstr(text, "29.8 ms   96.1%\n    compute_price"));
	free(text);
	jank_breakdown_fini(&b);
	p.segs = NULL; /* on the stack */
	jank_path_fini(&p);
}

static void breakdown_json(void **state)
{
	struct jank_breakdown b = breakdown();
	struct jank_path p = path(1);

	(void)state;
	b.n = 2;
	check_json(jank_format_breakdown_json(&b),
		   "{\"states\":{\"running\":27000000,\"blocked\":1000},\"threads\":[{\"tid\":77,"
		   "\"comm\":\"db\",\"state\":\"running\",\"ns\":23200000},{\"tid\":4312,\"comm\":"
		   "\"worker\",\"state\":\"running\",\"ns\":2800000}],\"locks\":[{\"lock\":"
		   "\"0x55d0\",\"ns\":1000000}]}");
	b.nlocks = 0;
	b.n = 0;
	check_json(jank_format_breakdown_json(&b),
		   "{\"states\":{\"running\":27000000,\"blocked\":1000},\"threads\":[]}");
	check_json(jank_format_breakdown_json(NULL), "{\"states\":{},\"threads\":[]}");
	p.begin = -5;
	p.truncated = true;
	p.incomplete = true;
	check_json(jank_critpath_to_json(&p, NULL),
		   "{\"tid\":4312,\"begin\":-5,\"end\":2100000,\"truncated\":true,\"incomplete\":"
		   "true,\"segments\":[{\"tid\":4312,\"comm\":\"worker\",\"state\":\"running\","
		   "\"begin\":0,\"end\":2100000}],\"breakdown\":{\"states\":{},\"threads\":[]}}");
}

/* A thread component of renderer/db, blocked on the disk: 40 ms against 200 us. */
static struct jank_suspects suspects(void)
{
	struct jank_suspects ss = { 0 };
	struct jank_suspect *s = &ss.items[0];

	ss.ready = true;
	ss.normal = 12;
	ss.normal_duration = 8 * MS + 0.5;
	s->comp.key.kind = JANK_COMP_THREAD;
	s->comp.key.state = JANK_STATE_BLOCK_DEVICE;
	s->comp.key.id = 1;
	s->comp.ns = 40 * MS;
	s->comp.tid = 77;
	strcpy(s->comp.process, "renderer");
	strcpy(s->comp.thread, "db");
	s->normal = 200 * US;
	s->delta = 40 * MS - 200 * US;
	s->ratio = 200;
	ss.n = 1;
	return ss;
}

static void suspect_text(void **state)
{
	struct jank_suspects ss = suspects();
	struct jank_suspect s = ss.items[0];
	char buf[160];

	(void)state;
	assert_string_equal(jank_format_suspect(&s, &ss, buf, sizeof(buf)),
			    "+39.8 ms block_device waiting on renderer/db (normally 200 us, 200x)");
	assert_string_equal(jank_format_suspect(&s, NULL, buf, 9), "+39.8 ms");
	/* A ratio under 10 keeps a decimal; under 1 us there is no ratio; under 0.5 ns none. */
	s.ratio = 2.25;
	assert_string_equal(jank_format_suspect(&s, &ss, buf, sizeof(buf)),
			    "+39.8 ms block_device waiting on renderer/db (normally 200 us, 2.2x)");
	s.normal = 999.4;
	assert_string_equal(jank_format_suspect(&s, &ss, buf, sizeof(buf)),
			    "+39.8 ms block_device waiting on renderer/db (normally 999 ns)");
	s.normal = 0.4;
	assert_string_equal(jank_format_suspect(&s, &ss, buf, sizeof(buf)),
			    "+39.8 ms block_device waiting on renderer/db (normally none)");
	/* On the action's own thread. */
	s.own = true;
	s.delta = 5 * MS;
	assert_string_equal(jank_format_suspect(&s, &ss, buf, sizeof(buf)),
			    "+5.00 ms block_device (normally none)");
	/* Preempted: who had the CPU, the first two. */
	s.comp.key.kind = JANK_COMP_STATE;
	s.comp.key.state = JANK_STATE_PREEMPTED;
	s.delta = 20 * MS;
	assert_string_equal(jank_format_suspect(&s, &ss, buf, sizeof(buf)),
			    "+20.0 ms preempted (normally none)");
	ss.ran[0] = (struct jank_ran){ 812, 15 * MS, "hog" };
	ss.ran[1] = (struct jank_ran){ 7, 4 * MS, "" };
	ss.ran[2] = (struct jank_ran){ 9, 1 * MS, "z" };
	ss.nran = 3;
	assert_string_equal(jank_format_suspect(&s, &ss, buf, sizeof(buf)),
			    "+20.0 ms preempted (normally none), CPU taken by tid 812 (hog) and "
			    "tid 7");
	assert_string_equal(jank_format_suspect(&s, NULL, buf, sizeof(buf)),
			    "+20.0 ms preempted (normally none)");
	/* A mutex, with and without its holder's name. */
	s.comp.key.kind = JANK_COMP_LOCK;
	s.comp.key.state = 0;
	s.comp.key.id = 0x55d0;
	strcpy(s.comp.process, "db");
	strcpy(s.comp.thread, "db");
	s.delta = 50 * MS;
	s.normal = 999.7;
	assert_string_equal(jank_format_suspect(&s, &ss, buf, sizeof(buf)),
			    "+50.0 ms waiting for lock 0x55d0 held by db (normally 1.00 us)");
	s.comp.thread[0] = '\0';
	assert_string_equal(jank_format_suspect(&s, &ss, buf, sizeof(buf)),
			    "+50.0 ms waiting for lock 0x55d0 (normally 1.00 us)");
	/* Negative and huge deltas. */
	s.delta = -3 * US;
	s.normal = 0;
	assert_string_equal(jank_format_suspect(&s, &ss, buf, sizeof(buf)),
			    "+-3.00 us waiting for lock 0x55d0 (normally none)");
}

/* A function: its name, its state when not running, its thread when not the action's. */
static void suspect_function_text(void **state)
{
	struct jank_suspects ss = suspects();
	struct jank_suspect s = ss.items[0];
	char buf[160];

	(void)state;
	s.comp.key = (struct jank_comp_key){ JANK_COMP_FUNCTION, 0, 42 };
	s.comp.fn_state = JANK_STATE_RUNNING;
	s.own = true;
	s.delta = 29800 * US;
	s.ratio = 149;
	strcpy(s.function, "apply_discounts");
	assert_string_equal(jank_format_suspect(&s, &ss, buf, sizeof(buf)),
			    "+29.8 ms in apply_discounts (normally 200 us, 149x)");
	s.own = false;
	strcpy(s.comp.process, "app");
	strcpy(s.comp.thread, "holder");
	strcpy(s.function, "refresh_rates");
	s.normal = 0;
	assert_string_equal(jank_format_suspect(&s, &ss, buf, sizeof(buf)),
			    "+29.8 ms in refresh_rates on app/holder (normally none)");
	s.comp.fn_state = JANK_STATE_BLOCKED;
	s.comp.thread[0] = s.comp.process[0] = '\0';
	s.function[0] = '\0';
	assert_string_equal(jank_format_suspect(&s, &ss, buf, sizeof(buf)),
			    "+29.8 ms blocked in an unnamed function (normally none)");
	/* Preempted in it: who had the CPU. */
	s.own = true;
	s.comp.fn_state = JANK_STATE_PREEMPTED;
	strcpy(s.function, "apply_discounts");
	ss.ran[0] = (struct jank_ran){ 812, 15 * MS, "hog" };
	ss.nran = 1;
	assert_string_equal(jank_format_suspect(&s, &ss, buf, sizeof(buf)),
			    "+29.8 ms preempted in apply_discounts (normally none), CPU taken by "
			    "tid 812 (hog)");
	/* The line an alert carries. */
	ss.items[0] = s;
	assert_string_equal(jank_format_suspects_line(&ss, buf, sizeof(buf)),
			    "+29.8 ms preempted in apply_discounts (normally none), CPU taken by "
			    "tid 812 (hog)");
	/* A name from a hostile binary: no raw newline, escape or invalid UTF-8. */
	s.comp.fn_state = JANK_STATE_RUNNING;
	ss.nran = 0;
	strcpy(s.function, "f\nJANK forged\x1b[31m\xff");
	assert_string_equal(jank_format_suspect(&s, &ss, buf, sizeof(buf)),
			    "+29.8 ms in f\\x0aJANK forged\\x1b[31m\xef\xbf\xbd (normally none)");
}

static void suspects_line(void **state)
{
	struct jank_suspects ss = suspects();
	char buf[128];

	(void)state;
	assert_string_equal(jank_format_suspects_line(&ss, buf, sizeof(buf)),
			    "+39.8 ms block_device waiting on renderer/db (normally 200 us, 200x)");
	ss.n = 0;
	assert_string_equal(jank_format_suspects_line(&ss, buf, sizeof(buf)),
			    "nothing above normal (12 normal actions)");
	ss.ready = false;
	ss.normal = 3;
	assert_string_equal(jank_format_suspects_line(&ss, buf, sizeof(buf)),
			    "no baseline yet (3 of 10 normal actions)");
	ss.normal = 0;
	assert_string_equal(jank_format_suspects_line(&ss, buf, 16), "no baseline yet");
}

static void suspects_json(void **state)
{
	struct jank_suspects ss = suspects();

	(void)state;
	ss.ran[0] = (struct jank_ran){ 812, 15 * MS, "hog" };
	ss.nran = 1;
	check_json(jank_suspects_to_json(&ss),
		   "{\"ready\":true,\"normal_actions\":12,\"needed\":10,\"baseline\":\"before\","
		   "\"normal_duration_ns\":"
		   "8000001,\"summary\":\"+39.8 ms block_device waiting on renderer/db (normally "
		   "200 us, 200x)\",\"items\":[{\"kind\":\"thread\",\"state\":\"block_device\","
		   "\"process\":\"renderer\",\"thread\":\"db\",\"tid\":77,\"own\":false,\"ns\":"
		   "40000000,\"normal_ns\":200000,\"delta_ns\":39800000,\"ratio\":200.0,\"text\":"
		   "\"+39.8 ms block_device waiting on renderer/db (normally 200 us, 200x)\"}],"
		   "\"cpu_taken_by\":[{\"tid\":812,\"comm\":\"hog\",\"ns\":15000000}]}");
	ss.items[0].comp.key.kind = JANK_COMP_LOCK;
	ss.items[0].comp.key.id = 0xabc;
	ss.items[0].normal = 0;
	ss.items[0].ratio = 1;
	ss.nran = 0;
	check_json(jank_suspects_to_json(&ss),
		   "{\"ready\":true,\"normal_actions\":12,\"needed\":10,\"baseline\":\"before\","
		   "\"normal_duration_ns\":"
		   "8000001,\"summary\":\"+39.8 ms waiting for lock 0xabc held by renderer/db "
		   "(normally none)\",\"items\":[{\"kind\":\"lock\",\"lock\":\"0xabc\",\"process\":"
		   "\"renderer\",\"thread\":\"db\",\"tid\":77,\"ns\":40000000,\"normal_ns\":0,"
		   "\"delta_ns\":39800000,\"ratio\":1.0,\"text\":\"+39.8 ms waiting for lock 0xabc "
		   "held by renderer/db (normally none)\"}],\"cpu_taken_by\":[]}");
	/* A function: its name, the state most of its time was in, its presence. */
	ss.items[0].comp.key = (struct jank_comp_key){ JANK_COMP_FUNCTION, 0, 42 };
	ss.items[0].comp.fn_state = JANK_STATE_RUNNING;
	ss.items[0].own = true;
	ss.items[0].presence_slow = 1;
	ss.items[0].presence_normal = 0.25;
	ss.items[0].increase = 0.75;
	ss.items[0].rank = 69650000.4;
	strcpy(ss.items[0].function, "apply_discounts");
	check_json(jank_suspects_to_json(&ss),
		   "{\"ready\":true,\"normal_actions\":12,\"needed\":10,\"baseline\":\"before\","
		   "\"normal_duration_ns\":"
		   "8000001,\"summary\":\"+39.8 ms in apply_discounts (normally none)\",\"items\":"
		   "[{\"kind\":\"function\",\"function\":\"apply_discounts\",\"state\":"
		   "\"running\",\"process\":\"renderer\",\"thread\":\"db\",\"tid\":77,"
		   "\"own\":true,\"increase\":0.75,\"slow_presence\":1.0,\"normal_presence\":"
		   "0.25,\"rank_ns\":69650000,\"ns\":40000000,\"normal_ns\":0,\"delta_ns\":"
		   "39800000,\"ratio\":1.0,\"text\":\"+39.8 ms in apply_discounts (normally "
		   "none)\"}],\"cpu_taken_by\":[]}");
	/* Compared afterwards with the whole trace's normal actions (jankctl analyze). */
	ss.whole = true;
	ss.n = 0;
	check_json(jank_suspects_to_json(&ss),
		   "{\"ready\":true,\"normal_actions\":12,\"needed\":10,\"baseline\":\"trace\","
		   "\"normal_duration_ns\":8000001,\"summary\":\"nothing above normal (12 normal "
		   "actions in the whole trace)\",\"items\":[],\"cpu_taken_by\":[]}");
	ss = (struct jank_suspects){ 0 };
	ss.normal = UINT64_MAX;
	check_json(jank_suspects_to_json(&ss),
		   "{\"ready\":false,\"normal_actions\":9223372036854775807,\"needed\":10,"
		   "\"normal_duration_ns\":0,\"summary\":\"no baseline yet (18446744073709551615 "
		   "of 10 normal actions)\",\"items\":[],\"cpu_taken_by\":[]}");
}

static struct jank_rule frame_rule = { .name = "frame" };

static struct jank_verdict verdict(const struct jank_path *p, const struct jank_breakdown *b)
{
	struct jank_verdict r = { 0 };

	r.rule = &frame_rule;
	r.key = "main";
	r.begin = 1 * S;
	r.end = 1 * S + 27001 * US;
	r.duration = 27001 * US;
	r.threshold = 16 * MS;
	r.over_threshold = true;
	r.tid = 4312;
	r.pid = 4300;
	r.comm = "worker";
	r.path = p;
	r.breakdown = b;
	return r;
}

static void verdict_json(void **state)
{
	struct jank_path p = path(1);
	struct jank_breakdown b = breakdown();
	struct jank_verdict r = verdict(&p, &b);
	struct jank_suspects ss = { 0 };

	(void)state;
	b.n = 0;
	b.nlocks = 0;
	b.per_state[JANK_STATE_BLOCKED] = 0;
	check_json(jank_verdict_to_json(&r, JANK_VERDICT_JSON_FULL),
		   "{\"type\":\"action\",\"kind\":\"completed\",\"action\":\"frame\",\"key\":"
		   "\"main\",\"begin\":"
		   "1000000000,\"end\":1027001000,\"duration_ns\":27001000,\"threshold_ns\":"
		   "16000000,\"tid\":4312,\"pid\":4300,\"comm\":\"worker\",\"over_threshold\":true,"
		   "\"discarded_events\":0,"
		   "\"critical_path\":[{\"tid\":4312,\"comm\":\"worker\",\"state\":\"running\","
		   "\"begin\":0,\"end\":2100000}],\"breakdown\":{\"states\":{\"running\":27000000},"
		   "\"threads\":[]}}");
	/* Overdue, no rule, no key, no path, truncated ... */
	r.kind = JANK_VERDICT_OVERDUE;
	r.rule = NULL;
	r.key = NULL;
	r.comm = "a\"b/c";
	r.path = NULL;
	r.breakdown = NULL;
	r.incomplete = true;
	r.over_threshold = false;
	r.suspects = &ss;
	check_json(jank_verdict_to_json(&r, JANK_VERDICT_JSON_FULL),
		   "{\"type\":\"action\",\"kind\":\"overdue\",\"action\":null,\"key\":null,"
		   "\"begin\":1000000000,\"end\":1027001000,\"duration_ns\":27001000,"
		   "\"threshold_ns\":16000000,\"tid\":4312,\"pid\":4300,\"comm\":\"a\\\"b/c\","
		   "\"over_threshold\":false,\"discarded_events\":0,\"incomplete\":true,\"critical_"
		   "path\":[],"
		   "\"breakdown\":{\"states\":{},\"threads\":[]},\"suspects\":{\"ready\":false,"
		   "\"normal_actions\":0,\"needed\":10,\"normal_duration_ns\":0,\"summary\":\"no "
		   "baseline yet (0 of 10 normal actions)\",\"items\":[],\"cpu_taken_by\":[]}}");
	p.truncated = true;
	r.path = &p;
	r.suspects = NULL;
	r.incomplete = false;
	r.discarded_events = 1234567890123ull;
	check_json(jank_verdict_to_json(&r, JANK_VERDICT_JSON_FULL),
		   "{\"type\":\"action\",\"kind\":\"overdue\",\"action\":null,\"key\":null,"
		   "\"begin\":1000000000,\"end\":1027001000,\"duration_ns\":27001000,"
		   "\"threshold_ns\":16000000,\"tid\":4312,\"pid\":4300,\"comm\":\"a\\\"b/c\","
		   "\"over_threshold\":false,\"discarded_events\":1234567890123,\"truncated\":true,"
		   "\"critical_path\":[{\"tid\":4312,"
		   "\"comm\":\"worker\",\"state\":\"running\",\"begin\":0,\"end\":2100000}],"
		   "\"breakdown\":{\"states\":{},\"threads\":[]}}");
}

static void json_print(void **state)
{
	struct json_object *o = json_object_new_object();
	struct out out;
	FILE *f;

	(void)state;
	json_object_object_add(o, "path", json_object_new_string("/a/b"));
	json_object_object_add(o, "n", json_object_new_int64(-1));
	out_open(&out);
	assert_int_equal(jank_format_json_print(out.f, o), 0);
	assert_int_equal(jank_format_json_print(out.f, json_object_new_array()), 0);
	out_check(&out, "{\"path\":\"/a/b\",\"n\":-1}\n[]\n");
	out_open(&out);
	assert_int_equal(jank_format_json_print(out.f, NULL), -ENOMEM);
	out_check(&out, "");
	f = fopen("/dev/full", "w");
	if (f) {
		setvbuf(f, NULL, _IONBF, 0);
		assert_int_equal(jank_format_json_print(f, json_object_new_object()), -EIO);
		fclose(f);
	}
}

static void verdict_text(void **state)
{
	struct jank_path p = path(6);
	struct jank_breakdown b = breakdown();
	struct jank_verdict r = verdict(&p, &b);
	struct jank_suspects ss = suspects();
	struct out out;

	(void)state;
	out_open(&out);
	jank_format_verdict_text(out.f, &r);
	out_check(&out, "JANK frame [main]: 27.0 ms (threshold 16.0 ms, 1.7x) on tid 4312 (worker) "
			"pid 4300\n"
			"  from 1.000000000 s to 1.027001000 s\n"
			"  critical path:\n"
			"      tid 4312 (worker) running 2.10 ms\n"
			"    → waiting for tid 77 (db): running 18.2 ms\n"
			"    → blocked 1.00 us\n"
			"    → back on tid 4312 (worker): running 700 us\n"
			"    → waiting for lock 0x55d0 held by tid 99: running 1.00 ms\n"
			"    → back on tid 77 (db): running 5.00 ms\n"
			"  where the time went:\n"
			"    running             27.0 ms  100.0%\n"
			"    blocked             1.00 us   <0.1%\n"
			"  by thread:\n"
			"    tid 77 (db)                  running             23.2 ms   85.9%\n"
			"    tid 4312 (worker)            running             2.80 ms   10.4%\n"
			"    tid 99                       running             1.00 ms    3.7%\n"
			"    tid 77 (db)                  blocked             1.00 us   <0.1%\n"
			"  waiting for locks:\n"
			"    mutex 0x55d0                     1.00 ms    3.7%\n"
			"\n");
	/* Overdue, without a threshold, a key, a pid, a path or a breakdown; suspects. */
	r.kind = JANK_VERDICT_OVERDUE;
	r.key = "";
	r.rule = NULL;
	r.threshold = 0;
	r.pid = -1;
	r.comm = NULL;
	r.path = NULL;
	r.breakdown = NULL;
	r.begin = -1;
	r.end = 5;
	r.suspects = &ss;
	r.discarded_events = 12;
	out_open(&out);
	jank_format_verdict_text(out.f, &r);
	out_check(&out,
		  "OVERDUE ?: 27.0 ms and still open (no threshold yet) on tid 4312\n"
		  "  from -0.000000001 s to 0.000000005 s\n"
		  "  12 events discarded by the tracer during it: the path may be incomplete\n"
		  "  what was different (against 12 normal actions, mean 8.00 ms):\n"
		  "    +39.8 ms block_device waiting on renderer/db (normally 200 us, 200x)\n"
		  "\n");
	/* Not over threshold, an empty path, no suspects yet. */
	r.kind = JANK_VERDICT_COMPLETED;
	r.over_threshold = false;
	r.threshold = 100 * MS;
	r.duration = 0;
	p = path(0);
	r.path = &p;
	ss.ready = false;
	r.discarded_events = 1;
	out_open(&out);
	jank_format_verdict_text(out.f, &r);
	out_check(&out, "ok ?: 0 ns (threshold 100 ms, 0.0x) on tid 4312\n"
			"  from -0.000000001 s to 0.000000005 s\n"
			"  1 event discarded by the tracer during it: the path may be incomplete\n"
			"  critical path:\n"
			"    (empty path)\n"
			"  what was different: no baseline yet (12 of 10 normal actions)\n"
			"\n");
}

static void critpath_text(void **state)
{
	struct jank_path p = path(2);
	struct jank_breakdown b = { 0 };
	struct out out;

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	p.begin = 1714564800LL * S;
	p.end = p.begin + 20300 * US;
	p.truncated = true;
	p.incomplete = true;
	b.per_state[JANK_STATE_RUNNING] = 20300 * US;
	out_open(&out);
	jank_format_critpath_text(out.f, &p, &b);
	out_check(&out,
		  "critical path of tid 4312 (worker) over 20.3 ms\n"
		  "  from 2024-05-01 12:00:00.000000000 to 2024-05-01 12:00:00.020300000\n"
		  "      tid 4312 (worker) running 2.10 ms\n"
		  "    → waiting for tid 77 (db): running 18.2 ms\n"
		  "      (the path reached graph memory already freed: that part is "
		  "'unknown')\n"
		  "      (incomplete: out of memory while computing it; only its end is here)\n"
		  "  where the time went:\n"
		  "    running             20.3 ms  100.0%\n");
	/* The thread's name from its own segment; none when it has none. */
	p.segs = &segs[1];
	p.n = 1;
	p.begin = 0;
	p.end = 0;
	p.truncated = p.incomplete = false;
	out_open(&out);
	jank_format_critpath_text(out.f, &p, NULL);
	out_check(&out, "critical path of tid 4312 over 0 ns\n"
			"  from 0.000000000 s to 0.000000000 s\n"
			"      tid 77 (db) running 18.2 ms\n");
	p.n = 0;
	p.begin = INT64_MIN;
	p.end = -1;
	out_open(&out);
	jank_format_critpath_text(out.f, &p, NULL);
	out_check(&out, "critical path of tid 4312 over 9223372037 s\n"
			"  from -9223372036.854775808 s to -0.000000001 s\n"
			"    (empty path)\n");
}

/* Two rules, no event: nothing counted. */
static void summary(void **state)
{
	struct jank_engine_config c;
	struct jank_engine *e;
	struct jank_rule r = { 0 };
	struct out out;

	(void)state;
	jank_engine_config_defaults(&c);
	e = jank_engine_new(&c);
	assert_non_null(e);
	out_open(&out);
	jank_format_summary_text(out.f, e);
	out_check(&out, "action    count    janks          p50          p90          p99         "
			" max\n");
	r.name = "frame";
	r.begin_event = "b";
	r.end_event = "e";
	r.threshold.ns = 16 * MS;
	assert_int_equal(jank_engine_add_rule(e, &r), 0);
	r.name = "a-rather-long-rule";
	assert_int_equal(jank_engine_add_rule(e, &r), 1);
	check_json(jank_format_summary_json(e, 0),
		   "{\"type\":\"summary\",\"action\":\"frame\",\"count\":0,\"over_threshold\":0,"
		   "\"p50_ns\":0,\"p90_ns\":0,\"p99_ns\":0,\"max_ns\":0}");
	check_json(jank_format_summary_json(e, 2),
		   "{\"type\":\"summary\",\"action\":null,\"count\":0,\"over_threshold\":0,"
		   "\"p50_ns\":0,\"p90_ns\":0,\"p99_ns\":0,\"max_ns\":0}");
	out_open(&out);
	jank_format_summary_text(out.f, e);
	out_check(&out, "action                count    janks          p50          p90          "
			"p99          max\n"
			"frame                     0        0            -            -            "
			"-            -\n"
			"a-rather-long-rule        0        0            -            -            "
			"-            -\n");
	jank_engine_free(e);
}

/*
 * Thread 10 runs, blocks, is woken by thread 20 at 300 and runs again;
 * thread 30 has no vertex. first_seen..last_seen: 100..500, 150..450, 50..60.
 */
static struct jank_graph *small_graph(void)
{
	struct jank_graph *g = jank_graph_new();
	struct jank_thread *a, *b, *c;

	assert_non_null(g);
	a = jank_graph_get(g, 10, 100);
	b = jank_graph_get(g, 20, 150);
	c = jank_graph_get(g, 30, 50);
	strcpy(a->comm, "a");
	strcpy(b->comm, "b\"");
	jank_graph_transition(g, a, 100, JANK_STATE_RUNNING);
	jank_graph_transition(g, a, 200, JANK_STATE_BLOCKED);
	jank_graph_transition(g, b, 150, JANK_STATE_RUNNING);
	jank_graph_link(g, b, a, 300, JANK_STATE_PREEMPTED);
	jank_graph_transition(g, a, 400, JANK_STATE_RUNNING);
	a->first_seen = 100;
	a->last_seen = 500;
	b->first_seen = 150;
	b->last_seen = 450;
	c->first_seen = 50;
	c->last_seen = 60;
	c->state = JANK_STATE_TIMER;
	return g;
}

static void graph_json(void **state)
{
	struct jank_graph *g = small_graph();
	struct out out;

	(void)state;
	out_open(&out);
	assert_int_equal(jank_format_graph_json(out.f, g, -1), 0);
#define ALL                                                                                        \
	"[{\"tid\":10,\"comm\":\"a\",\"intervals\":[{\"begin\":100,\"end\":200,\"state\":"         \
	"\"running\"},{\"begin\":200,\"end\":300,\"state\":\"blocked\"},{\"begin\":300,"           \
	"\"end\":400,\"state\":\"preempted\"},{\"begin\":400,\"end\":500,\"state\":"               \
	"\"running\"}]},{\"tid\":20,\"comm\":\"b\\\"\",\"intervals\":[{\"begin\":150,\"end\":"     \
	"450,\"state\":\"running\"}]},{\"tid\":30,\"comm\":\"\",\"intervals\":[{\"begin\":50,"     \
	"\"end\":60,\"state\":\"timer\"}]}]"
	out_check(&out, "{\"threads\":" ALL ",\"links\":[{\"from_tid\":20,\"to_tid\":10,\"ts\":300,"
			"\"state\":\"blocked\"}]}\n");
#undef ALL
	/* One thread: its records, and the links that touch it. */
	out_open(&out);
	assert_int_equal(jank_format_graph_json(out.f, g, 20), 0);
#define ONE                                                                                        \
	"[{\"tid\":20,\"comm\":\"b\\\"\",\"intervals\":[{\"begin\":150,\"end\":450,\"state\":"     \
	"\"running\"}]}]"
	out_check(&out, "{\"threads\":" ONE ",\"links\":[{\"from_tid\":20,\"to_tid\":10,\"ts\":"
			"300,\"state\":\"blocked\"}]}\n");
#undef ONE
	out_open(&out);
	assert_int_equal(jank_format_graph_json(out.f, g, 30), 0);
#define ONE                                                                                        \
	"[{\"tid\":30,\"comm\":\"\",\"intervals\":[{\"begin\":50,\"end\":60,"                      \
	"\"state\":\"timer\"}]}]"
	out_check(&out, "{\"threads\":" ONE ",\"links\":[]}\n");
#undef ONE
	out_open(&out);
	assert_int_equal(jank_format_graph_json(out.f, g, 31), -ENOENT);
	assert_int_equal(jank_format_graph_text(out.f, g, 31), -ENOENT);
	out_check(&out, "");
	jank_graph_free(g);
	/* An empty graph. */
	g = jank_graph_new();
	out_open(&out);
	assert_int_equal(jank_format_graph_json(out.f, g, -1), 0);
	out_check(&out, "{\"threads\":[],\"links\":[]}\n");
	jank_graph_free(g);
}

static void graph_text(void **state)
{
	struct jank_graph *g = small_graph();
	struct out out;

	(void)state;
	out_open(&out);
	assert_int_equal(jank_format_graph_text(out.f, g, -1), 0);
	out_check(&out, "     tid  comm             first seen                            span "
			"intervals      running      waiting\n"
			"      10  a                0.000000100 s                       400 ns "
			"        4       200 ns       100 ns\n"
			"      20  b\"               0.000000150 s                       300 ns "
			"        1       300 ns         0 ns\n"
			"      30                   0.000000050 s                        10 ns "
			"        1         0 ns        10 ns\n"
			"3 threads, 1 wakeup links\n");
	out_open(&out);
	assert_int_equal(jank_format_graph_text(out.f, g, 10), 0);
	out_check(&out, "     tid  comm             first seen                            span "
			"intervals      running      waiting\n"
			"      10  a                0.000000100 s                       400 ns "
			"        4       200 ns       100 ns\n"
			"1 threads, 1 wakeup links\n");
	jank_graph_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names),
		cmocka_unit_test(story),
		cmocka_unit_test(segments_json),
		cmocka_unit_test(flows_and_spans),
		cmocka_unit_test(breakdown_json),
		cmocka_unit_test(suspect_text),
		cmocka_unit_test(suspect_function_text),
		cmocka_unit_test(suspects_line),
		cmocka_unit_test(suspects_json),
		cmocka_unit_test(verdict_json),
		cmocka_unit_test(json_print),
		cmocka_unit_test(verdict_text),
		cmocka_unit_test(critpath_text),
		cmocka_unit_test(summary),
		cmocka_unit_test(graph_json),
		cmocka_unit_test(graph_text),
		cmocka_unit_test(functions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
