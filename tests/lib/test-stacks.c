/* SPDX-License-Identifier: MIT */
/*
 * The table of call stacks over a long life (issue 33): bounded by the code
 * that runs, not by history.
 *
 *  - weeks, compressed: 600 short-lived instrumented processes, each with
 *    its own pid and about twenty stacks, under memory-limit = 4MiB (a
 *    table of 10,922 stacks); then the next process's 3 slow requests are
 *    still named: what no thread refers to any more is freed by GC;
 *  - the same processes, all of one binary, with a locator (what io's
 *    symbolizer gives the engine): they share their stacks, and the table
 *    holds one process's worth whatever the number of processes, GC or not;
 *  - one app that enters 700,000 distinct functions (more than the default
 *    table, 699,050 stacks, holds) takes at most half of the table: another
 *    app on the same input keeps its stacks, and what was refused is counted.
 *
 * Frames are named by the test's namer: "fn_ADDR" for an address of a
 * process, "bin7+0xOFFSET" for an offset in the locator's binary.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "scenario.h"

#define ENTRY "lttng_ust_cyg_profile:func_entry"
#define EXIT  "lttng_ust_cyg_profile:func_exit"

enum {
	SPAWNER = 10,
	NPROC = 600,
	DEPTH = 20,
	CODE = 7,
};

static const int64_t US = 1000, MS = 1000000;
static const uint64_t TEXT = 0x400000, MAIN = 0x401000;

static void fn(struct scn *s, int64_t ts, int cpu, int tid, bool entry, uint64_t addr)
{
	scn_event_v(s, JANK_DOMAIN_UST, ts, cpu, tid, entry ? ENTRY : EXIT,
		    (const struct scn_field[]){ I("addr", (int64_t)addr),
						I("call_site", (int64_t)addr + 8) },
		    2);
}

/* What slow requests were named: the innermost function their path spent most time in. */
struct named {
	unsigned slow;
	unsigned named;
	char last[JANK_FRAME_NAME_LEN];
};

static void on_verdict(const struct jank_verdict *r, void *data)
{
	struct named *n = data;
	const struct jank_breakdown *b = r->breakdown;

	if (!r->over_threshold)
		return;
	n->slow++;
	if (b && b->nfunctions) {
		n->named++;
		snprintf(n->last, sizeof(n->last), "%s",
			 jank_path_frame_of(b->path, b->functions[0].frame)->name);
	} else {
		n->last[0] = '\0';
	}
}

static void namer(const struct jank_frame *f, char *buf, size_t len, void *data)
{
	(void)data;
	if (f->code)
		snprintf(buf, len, "bin%" PRIu32 "+0x%" PRIx64, f->code, f->addr);
	else
		snprintf(buf, len, "fn_%" PRIx64, f->addr);
}

/* Every process maps the same binary at TEXT (as if without ASLR): code CODE. */
static bool locator(int64_t pid, uint64_t addr, uint32_t *code, uint64_t *offset, void *data)
{
	(void)pid;
	(void)data;
	if (addr < TEXT || addr >= TEXT + 0x100000)
		return false;
	*code = CODE;
	*offset = addr - TEXT;
	return true;
}

static void add_rule(struct scn *s)
{
	struct jank_rule r;

	jank_rule_init(&r);
	r.name = (char *)"request";
	r.begin_event = (char *)"app:req_begin";
	r.end_event = (char *)"app:req_end";
	assert_int_equal(jank_rule_set_keys(&r, "id"), 0);
	assert_int_equal(jank_threshold_parse("1ms", &r.threshold), 0);
	assert_true(jank_engine_add_rule(s->e, &r) >= 0);
	for (unsigned i = 0; i < r.nkeys; i++)
		free(r.keys[i]);
}

/*
 * Process `tid` (its own pid), forked by the spawner at t: `requests` slow
 * requests of 2 ms, each in main → f1 → ... → f(DEPTH), the innermost
 * waiting; the functions are the process's own (their addresses differ
 * from one process to the next, as ASLR makes them, unless `same`). It
 * exits and is freed. Returns the time it ended.
 */
static int64_t process(struct scn *s, int64_t t, int tid, int requests, bool same)
{
	uint64_t base = same ? 0 : (uint64_t)tid << 12;

	scn_fork(s, t, 0, SPAWNER, tid);
	scn_wakeup_new(s, t + 1, 0, tid);
	scn_switch(s, t + 2 * US, 1, 0, 0, tid);
	t += 3 * US;
	fn(s, t, 1, tid, true, MAIN + base);
	for (int k = 0; k < requests; k++) {
		scn_ust(s, t + 10 * US, 1, tid, "app:req_begin", I("id", k));
		for (int d = 1; d <= DEPTH; d++)
			fn(s, t + 10 * US + d, 1, tid, true, MAIN + base + 16 * (uint64_t)d);
		scn_switch(s, t + 20 * US, 1, tid, 1, 0);
		scn_wake(s, t + 2 * MS, 0, tid);
		scn_switch(s, t + 2 * MS + 1 * US, 1, 0, 0, tid);
		for (int d = DEPTH; d >= 1; d--)
			fn(s, t + 2 * MS + 2 * US + d, 1, tid, false,
			   MAIN + base + 16 * (uint64_t)d);
		scn_ust(s, t + 2 * MS + 50 * US, 1, tid, "app:req_end", I("id", k));
		t += 2 * MS + 100 * US;
	}
	fn(s, t, 1, tid, false, MAIN + base);
	scn_kernel(s, t + 1 * US, 1, "sched_process_exit", S("comm", "job"), I("tid", tid));
	scn_switch(s, t + 1 * US, 1, tid, 64, 0);
	scn_kernel(s, t + 3 * US, 0, "sched_process_free", S("comm", "job"), I("tid", tid));
	return t + 3 * US;
}

/* NPROC processes of one slow request each, 10 ms apart, then one of 3. */
static void run_processes(const struct jank_engine_config *cfg, bool with_locator,
			  struct named *last, struct jank_engine_stats *st)
{
	struct named all = { 0 };
	struct scn s;
	int64_t t = 1 * MS;

	scn_init(&s, &scn_layout_current, cfg);
	s.pid = 0; /* each thread its own process */
	add_rule(&s);
	jank_engine_set_namer(s.e, namer, NULL);
	if (with_locator)
		jank_engine_set_locator(s.e, locator, NULL);
	jank_engine_set_verdict_cb(s.e, on_verdict, &all);
	scn_switch(&s, t, 0, 0, 0, SPAWNER);
	for (int i = 0; i < NPROC; i++) {
		process(&s, t, 1000 + i, 1, with_locator);
		t += 10 * MS;
	}
	assert_int_equal(all.slow, NPROC);
	jank_engine_set_verdict_cb(s.e, on_verdict, last);
	process(&s, t, 1000 + NPROC, 3, with_locator);
	jank_engine_finish(s.e);
	jank_engine_get_stats(s.e, st);
	print_message("# %s: named %u/%u of the next process; %" PRIu64 " stacks live, %" PRIu64
		      " freed, %" PRIu64 " full; %" PRIu64 " KiB of memory\n",
		      with_locator ? "one binary" : "a binary per process", last->named, last->slow,
		      st->stacks, st->stacks_freed, st->stacks_full, st->memory_peak >> 10);
	scn_fini(&s);
}

/*
 * 600 processes of twenty-odd stacks each: 12,000 and more over the run,
 * past the 10,922 a 4 MiB budget gives the table. GC frees the stacks of
 * processes gone past the retention window; the next process is named.
 */
static void short_lived_processes(void **state)
{
	struct jank_engine_config cfg;
	struct jank_engine_stats st;
	struct named last = { 0 };

	(void)state;
	jank_engine_config_defaults(&cfg);
	cfg.memory_limit = 4u << 20;
	run_processes(&cfg, false, &last, &st);
	assert_int_equal(last.slow, 3);
	assert_int_equal(last.named, 3);
	assert_string_equal(last.last, "fn_a41000"); /* its main: MAIN + 1600 << 12 */
	assert_int_equal(st.stacks_full, 0);
	assert_int_equal(st.stacks_refused_share, 0);
	/*
	 * What is live: the processes of the retention window (2 s: 200 of
	 * them), and up to as many again: a collection waits for the live
	 * stacks to double.
	 */
	assert_true(st.stacks <= 2 * 201 * (DEPTH + 1));
	assert_true(st.stacks_freed >= (uint64_t)(NPROC - 2 * 201) * (DEPTH + 1));
}

/*
 * The same processes, all of one binary: with the locator, their stacks
 * are one binary's, interned once. With GC off too: nothing to free.
 */
static void one_binary_shares(void **state)
{
	struct jank_engine_config cfg;
	struct jank_engine_stats st;
	struct named last = { 0 };

	(void)state;
	jank_engine_config_defaults(&cfg);
	cfg.memory_limit = 4u << 20;
	cfg.gc = false;
	run_processes(&cfg, true, &last, &st);
	assert_int_equal(last.named, 3);
	assert_string_equal(last.last, "bin7+0x1000"); /* main: MAIN - TEXT */
	assert_int_equal(st.stacks, DEPTH + 1);
	assert_int_equal(st.stacks_full, 0);
	assert_int_equal(st.stacks_freed, 0);
}

/*
 * App A (process 50) enters 700,000 distinct functions from its main, one
 * after another, all inside the retention window; app B (process 60)
 * then has a slow request in its own functions. A holds half the table,
 * the rest of its functions are refused and counted; B is named.
 */
static void crowding_app(void **state)
{
	const int A = 50, B = 60, N = 700000;
	struct jank_engine_config cfg;
	struct jank_engine_stats st;
	struct named named = { 0 };
	const struct jank_stacks *t;
	struct scn s;
	int64_t ts = 1 * MS;

	(void)state;
	jank_engine_config_defaults(&cfg);
	scn_init(&s, &scn_layout_current, &cfg);
	s.pid = 0;
	add_rule(&s);
	jank_engine_set_namer(s.e, namer, NULL);
	jank_engine_set_verdict_cb(s.e, on_verdict, &named);
	t = jank_graph_stacks_const(jank_engine_graph(s.e));
	scn_switch(&s, ts, 0, 0, 0, A);
	scn_switch(&s, ts, 1, 0, 0, B);
	fn(&s, ts, 0, A, true, MAIN);
	for (int i = 0; i < N; i++) {
		fn(&s, ts + 10, 0, A, true, 0x10000000 + 16 * (uint64_t)i);
		fn(&s, ts + 20, 0, A, false, 0x10000000 + 16 * (uint64_t)i);
		ts += 100;
	}
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.stacks, t->max_nodes / 2);
	assert_int_equal(st.stacks_refused_share, N + 1 - t->max_nodes / 2);
	assert_int_equal(st.stacks_full, 0);

	fn(&s, ts, 1, B, true, MAIN);
	scn_ust(&s, ts + 10, 1, B, "app:req_begin", I("id", 1));
	fn(&s, ts + 20, 1, B, true, MAIN + 0x40);
	fn(&s, ts + 2 * MS, 1, B, false, MAIN + 0x40);
	scn_ust(&s, ts + 2 * MS + 10, 1, B, "app:req_end", I("id", 1));
	jank_engine_get_stats(s.e, &st);
	print_message("# %d functions of A: %" PRIu64 " stacks, %" PRIu64
		      " refused (share); B named %u/%u (%s)\n",
		      N, st.stacks, st.stacks_refused_share, named.named, named.slow, named.last);
	assert_int_equal(named.slow, 1);
	assert_int_equal(named.named, 1);
	assert_string_equal(named.last, "fn_401040");
	assert_int_equal(st.stacks, t->max_nodes / 2 + 2);
	scn_fini(&s);
}

/* A locator that learns the binary's mapping only when told (a statedump arriving late). */
static bool late_known;

static bool late_locator(int64_t pid, uint64_t addr, uint32_t *code, uint64_t *offset, void *data)
{
	return late_known && locator(pid, addr, code, offset, data);
}

/*
 * main entered before the process's mapping was known (an address of the
 * process), f1 after (an offset in the binary): their exits, located the
 * other way or not, still match their entries; nothing resynchronised.
 */
static void mapping_learnt_mid_call(void **state)
{
	struct jank_engine_config cfg;
	struct jank_engine_stats st;
	struct scn s;
	const int T = 30;

	(void)state;
	jank_engine_config_defaults(&cfg);
	scn_init(&s, &scn_layout_current, &cfg);
	s.pid = 0;
	late_known = false;
	jank_engine_set_locator(s.e, late_locator, NULL);
	scn_switch(&s, 1000, 0, 0, 0, T);
	fn(&s, 2000, 0, T, true, MAIN);
	late_known = true;
	fn(&s, 3000, 0, T, true, MAIN + 16);
	fn(&s, 4000, 0, T, false, MAIN + 16);
	late_known = false; /* forgotten again (the symbolizer's LRU) */
	fn(&s, 5000, 0, T, true, MAIN + 32);
	late_known = true;
	fn(&s, 6000, 0, T, false, MAIN + 32);
	fn(&s, 7000, 0, T, false, MAIN);
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.function_resyncs, 0);
	assert_int_equal(st.stacks, 3);
	assert_int_equal(jank_graph_find(jank_engine_graph(s.e), T)->fn->shadow, JANK_NO_STACK);
	scn_fini(&s);
}

/* The processes the locator was asked about. */
static int64_t asked_process[4];
static unsigned nasked_process;

static bool ns_locator(int64_t process, uint64_t addr, uint32_t *code, uint64_t *offset, void *data)
{
	if (nasked_process < 4)
		asked_process[nasked_process++] = process;
	return locator(process, addr, code, offset, data);
}

/*
 * With the pid_ns context, the locator is asked about the process by its
 * namespace and pid (jank_process_key): two containers' pid 1 are two
 * processes for the symbolizer. Without it, by the vpid alone.
 */
static void pid_namespace_to_locator(void **state)
{
	struct jank_engine_config cfg;
	struct scn s;

	(void)state;
	jank_engine_config_defaults(&cfg);
	scn_init(&s, &scn_layout_current, &cfg);
	jank_engine_set_locator(s.e, ns_locator, NULL);
	nasked_process = 0;
	s.pid = 1;
	s.pid_ns = 4026532001u;
	fn(&s, 2000, 0, 40, true, MAIN);
	s.pid_ns = 4026532002u;
	fn(&s, 3000, 1, 41, true, MAIN);
	s.pid_ns = 0;
	fn(&s, 4000, 1, 42, true, MAIN);
	assert_int_equal(nasked_process, 3);
	assert_int_equal(asked_process[0], jank_process_key(4026532001u, 1));
	assert_int_equal(asked_process[1], jank_process_key(4026532002u, 1));
	assert_true(asked_process[0] != asked_process[1]);
	assert_int_equal(asked_process[2], 1);
	scn_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(short_lived_processes),
		cmocka_unit_test(pid_namespace_to_locator),
		cmocka_unit_test(one_binary_shares),
		cmocka_unit_test(crowding_app),
		cmocka_unit_test(mapping_learnt_mid_call),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
