/* SPDX-License-Identifier: MIT */
/*
 * The memory budget holds under abuse, through the engine's own accounting
 * (jank_engine_get_stats: memory_peak, the counters), and nothing is lost
 * silently: what the budget drops is counted.
 *
 *  - 100,000 short-lived threads: fork, run, exit, free;
 *  - 1,000,000 actions that begin and never end;
 *  - one thread blocked (with an action open) for the whole trace;
 *  - 50,000 live threads, whose state alone is over the budget.
 *
 * The engine checks its memory every 4 events and collects at once when it
 * is over budget; memory_peak is taken before each collection. So memory
 * exceeds the budget by at most what 4 events add: threads (~300 bytes
 * each), open actions (~210 bytes each), or the doubling of a few rings or
 * hash tables (each at most a few tens of KiB here: the budget keeps them
 * small). SLACK, an eighth of the 4 MiB budget, covers that; the tests
 * assert peak <= limit + SLACK.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "scenario.h"

#define US    1000LL
#define MS    1000000LL
#define LIMIT (4ull << 20)
#define SLACK (LIMIT / 8)

static void config(struct jank_engine_config *cfg)
{
	jank_engine_config_defaults(cfg);
	cfg->memory_limit = LIMIT; /* retention and timeout: the defaults, 2 s and 60 s */
}

static void add_frame_rule(struct scn *s)
{
	struct jank_rule r;

	jank_rule_init(&r);
	r.name = "frame";
	r.begin_event = "jank:action_begin";
	r.end_event = "jank:action_end";
	assert_int_equal(jank_rule_set_keys(&r, "name, id"), 0);
	assert_int_equal(jank_threshold_parse("16ms", &r.threshold), 0);
	assert_true(jank_engine_add_rule(s->e, &r) >= 0);
	for (unsigned i = 0; i < r.nkeys; i++)
		free(r.keys[i]);
}

static void print_stats(const char *what, const struct jank_engine_stats *st)
{
	print_message(
		"# %s: peak %llu KiB (budget %llu KiB), now %llu KiB; %llu threads, "
		"%llu vertices; freed %llu threads, %llu vertices; budget forced %llu times; "
		"actions: %llu open, %llu expired, %llu evicted\n",
		what, (unsigned long long)st->memory_peak >> 10, (unsigned long long)LIMIT >> 10,
		(unsigned long long)st->memory_bytes >> 10, (unsigned long long)st->graph.threads,
		(unsigned long long)st->graph.vertices, (unsigned long long)st->graph.freed_threads,
		(unsigned long long)st->graph.freed_vertices, (unsigned long long)st->budget_forced,
		(unsigned long long)st->actions_open, (unsigned long long)st->actions_expired,
		(unsigned long long)st->actions_evicted);
}

/*
 * A spawner on CPU 0 forks a thread every 20 us (100,000 in 2 s: all inside
 * the retention window); each runs 10 us on CPU 1, exits and is freed.
 */
static void short_lived_threads(void **state)
{
	struct jank_engine_config cfg;
	struct jank_engine_stats st;
	struct scn s;
	int64_t t = 1 * MS;

	config(&cfg);
	scn_init(&s, &scn_layout_current, &cfg);
	scn_switch(&s, t, 0, 0, 0, 10);
	for (int i = 0; i < 100000; i++) {
		int child = 100 + i;

		t += 20 * US;
		scn_fork(&s, t, 0, 10, child);
		scn_wakeup_new(&s, t + 1, 0, child);
		scn_switch(&s, t + 2 * US, 1, 0, 0, child);
		scn_kernel(&s, t + 12 * US, 1, "sched_process_exit", S("comm", "t"),
			   I("tid", child));
		scn_switch(&s, t + 12 * US, 1, child, 64, 0);
		scn_kernel(&s, t + 15 * US, 0, "sched_process_free", S("comm", "t"),
			   I("tid", child));
	}
	jank_engine_finish(s.e);
	jank_engine_get_stats(s.e, &st);
	print_stats("100,000 short-lived threads", &st);
	assert_true(st.memory_peak <= LIMIT + SLACK);
	assert_true(st.budget_forced > 0); /* retention alone would keep them all */
	/* Every thread is either still in the graph or was freed; most were freed. */
	assert_int_equal(st.graph.freed_threads + st.graph.threads, 100000 + 1);
	assert_true(st.graph.freed_threads >= 80000);
	/* The spawner's state survives whatever was freed. */
	assert_non_null(jank_graph_find(jank_engine_graph(s.e), 10));
	scn_fini(&s);
}

/* 1,000,000 begins, 1 us apart, from 8 threads; none ends. */
static void run_never_ending(const struct jank_engine_config *cfg, struct jank_engine_stats *st)
{
	struct scn s;
	int64_t t = 1 * MS;

	scn_init(&s, &scn_layout_current, cfg);
	add_frame_rule(&s);
	for (int c = 0; c < 8; c++)
		scn_switch(&s, t, c, 0, 0, 10 + c);
	for (int i = 0; i < 1000000; i++) {
		t += 1 * US;
		scn_ust(&s, t, i % 8, 10 + i % 8, "jank:action_begin", S("name", "frame"),
			I("id", i));
	}
	jank_engine_finish(s.e);
	jank_engine_get_stats(s.e, st);
	/* The rule's own counts are the engine's: it is the only rule. */
	assert_int_equal(jank_engine_rule_stats(s.e, 0)->evicted, st->actions_evicted);
	assert_int_equal(jank_engine_rule_stats(s.e, 0)->expired, st->actions_expired);
	scn_fini(&s);
}

static void never_ending_actions(void **state)
{
	struct jank_engine_config cfg;
	struct jank_engine_stats st;

	/* The budget evicts them: 1 s of begins, far from the 60 s timeout. */
	config(&cfg);
	run_never_ending(&cfg, &st);
	print_stats("1,000,000 actions, budget", &st);
	assert_true(st.memory_peak <= LIMIT + SLACK);
	assert_true(st.actions_evicted > 900000);
	assert_int_equal(st.actions_expired, 0);
	assert_int_equal(st.actions_evicted + st.actions_open, 1000000);
	assert_int_equal(st.actions_completed, 0);

	/* A short timeout expires them first: the budget is never needed. */
	config(&cfg);
	cfg.action_timeout_ns = 10 * MS;
	run_never_ending(&cfg, &st);
	print_stats("1,000,000 actions, 10 ms timeout", &st);
	assert_true(st.memory_peak <= LIMIT + SLACK);
	assert_int_equal(st.budget_forced, 0);
	assert_true(st.actions_open <= 10 * 1000 + 1024);
	assert_int_equal(st.actions_evicted, 0);
	assert_int_equal(st.actions_expired + st.actions_open, 1000000);
}

/*
 * Thread 42 begins an action and blocks at the start, and never runs again,
 * while 64 threads on 4 CPUs switch for 5 s. Its open action holds the GC
 * horizon until the budget (or the 1 s timeout) lets go.
 */
static void blocked_whole_trace(void **state)
{
	struct jank_engine_config cfg;
	struct jank_engine_stats st;
	const struct jank_thread *w;
	struct jank_path p;
	struct scn s;
	int64_t t = 1 * MS;
	int cur[4] = { 0, 0, 0, 0 };

	config(&cfg);
	cfg.action_timeout_ns = 1000 * MS;
	scn_init(&s, &scn_layout_current, &cfg);
	add_frame_rule(&s);
	scn_switch(&s, t, 0, 0, 0, 42);
	scn_ust(&s, t + 10 * US, 0, 42, "jank:action_begin", S("name", "frame"), I("id", 1));
	scn_switch(&s, t + 20 * US, 0, 42, 1, 0);
	for (int i = 0; i < 500000; i++) {
		int cpu = i % 4, next = 100 + (i * 7) % 64;

		t += 10 * US;
		if (next == cur[0] || next == cur[1] || next == cur[2] || next == cur[3])
			next = 0;
		scn_switch(&s, t, cpu, cur[cpu], i % 3 == 0, next);
		cur[cpu] = next;
	}
	jank_engine_finish(s.e);
	jank_engine_get_stats(s.e, &st);
	print_stats("one thread blocked for 5 s", &st);
	assert_true(st.memory_peak <= LIMIT + SLACK);
	assert_int_equal(st.actions_expired, 1);
	assert_int_equal(st.actions_open, 0);
	/* Its current state survived GC: a path over the last 10 ms says blocked. */
	w = jank_graph_find(jank_engine_graph(s.e), 42);
	assert_non_null(w);
	assert_int_equal(w->state, JANK_STATE_BLOCKED);
	scn_path(&s, 42, t - 10 * MS, t, &p);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.segs[0].state, JANK_STATE_BLOCKED);
	assert_int_equal(p.segs[0].tid, 42);
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * 50,000 threads that stay alive: their current state alone (about 15 MiB)
 * is over the 4 MiB budget, and cannot be freed. The engine keeps them,
 * counts the overshoot in memory_peak, and sweeps again only as memory
 * grows (not at every check), so that it keeps its pace.
 */
static void live_state_over_budget(void **state)
{
	struct jank_engine_config cfg;
	struct jank_engine_stats st;
	struct scn s;
	int64_t t = 1 * MS;

	config(&cfg);
	scn_init(&s, &scn_layout_current, &cfg);
	for (int i = 0; i < 50000; i++) {
		t += 10 * US;
		scn_switch(&s, t, i % 4, 0, 0, 100 + i);
		scn_switch(&s, t + 5 * US, i % 4, 100 + i, 1, 0);
	}
	jank_engine_finish(s.e);
	jank_engine_get_stats(s.e, &st);
	print_stats("50,000 live threads", &st);
	assert_int_equal(st.graph.threads, 50000);
	assert_int_equal(st.graph.freed_threads, 0);
	assert_true(st.memory_peak > LIMIT); /* counted, not hidden */
	assert_true(st.budget_forced < 200); /* one sweep per LIMIT / 32 of growth */
	scn_fini(&s);
}

/*
 * Timestamps at the end of int64 (a hostile or damaged trace: fuzz-ctf
 * found it): a normal action ending there is learnt, and the next time to
 * learn saturates instead of overflowing (UBSan stops on the overflow).
 */
static void timestamps_at_int64_end(void **state)
{
	struct jank_engine_config cfg;
	struct jank_engine_stats st;
	struct scn s;
	int64_t t = INT64_MAX - 100 * US;

	config(&cfg);
	cfg.baseline = true;
	scn_init(&s, &scn_layout_current, &cfg);
	add_frame_rule(&s);
	scn_switch(&s, t, 0, 0, 0, 42);
	for (int i = 0; i < 3; i++) {
		scn_ust(&s, t + 10 * US, 0, 42, "jank:action_begin", S("name", "frame"),
			I("id", i));
		scn_ust(&s, t + 20 * US, 0, 42, "jank:action_end", S("name", "frame"), I("id", i));
		t += 20 * US;
	}
	scn_ust(&s, INT64_MAX - 1, 0, 42, "jank:action_begin", S("name", "frame"), I("id", 9));
	scn_ust(&s, INT64_MAX, 0, 42, "jank:action_end", S("name", "frame"), I("id", 9));
	jank_engine_finish(s.e);
	jank_engine_get_stats(s.e, &st);
	assert_int_equal(st.actions_open, 0);
	scn_fini(&s);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(short_lived_threads),	   cmocka_unit_test(never_ending_actions),
		cmocka_unit_test(blocked_whole_trace),	   cmocka_unit_test(live_state_over_budget),
		cmocka_unit_test(timestamps_at_int64_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
