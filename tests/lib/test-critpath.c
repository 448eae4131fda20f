/* SPDX-License-Identifier: MIT */
/*
 * Critical-path scenarios. Each is a short event script and the exact
 * segments expected. Every scenario that applies to both kernel layouts runs
 * twice: with the current one and with lttng-modules <= 2.5.
 *
 * Threads: A=10, B=20, C=30; times in arbitrary nanoseconds.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "scenario.h"

enum {
	A = 10,
	B = 20,
	C = 30,
	D = 40
};
enum {
	RUNNABLE = 0,
	BLOCKED = 1
};

#define LAYOUT(state) ((const struct scn_layout *)*(state))

/* 1. A is preempted by B and gets the CPU back. */
static void preemption_only(void **state)
{
	struct scn s;
	struct jank_path p;

	scn_init(&s, LAYOUT(state), NULL);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	scn_switch(&s, 10, 0, A, RUNNABLE, B);
	scn_switch(&s, 30, 0, B, BLOCKED, A);
	scn_switch(&s, 60, 0, A, BLOCKED, 0);
	scn_path(&s, A, 5, 50, &p);
	assert_path(&p, { A, "running", 5, 10 }, { A, "preempted", 10, 30 },
		    { A, "running", 30, 50 });
	jank_path_fini(&p);
	scn_fini(&s);
}

/* 2. A blocks; B runs and wakes it: B's running time is on A's path. */
static void woken_by_thread(void **state)
{
	struct scn s;
	struct jank_path p;

	scn_init(&s, LAYOUT(state), NULL);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	scn_switch(&s, 10, 0, A, BLOCKED, B);
	scn_wake(&s, 30, 0, A);
	scn_switch(&s, 40, 0, B, RUNNABLE, A);
	scn_path(&s, A, 0, 50, &p);
	assert_path(&p, { A, "running", 0, 10 }, { B, "running", 10, 30 },
		    { A, "preempted", 30, 40 }, { A, "running", 40, 50 });
	jank_path_fini(&p);
	scn_fini(&s);
}

/* 3. A waits for B, which itself waited for C: the chain is followed. */
static void recursive_chain(void **state)
{
	struct scn s;
	struct jank_path p;

	scn_init(&s, LAYOUT(state), NULL);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	scn_switch(&s, 0, 1, 0, RUNNABLE, B);
	scn_switch(&s, 5, 1, B, BLOCKED, C);
	scn_switch(&s, 10, 0, A, BLOCKED, 0);
	scn_wake(&s, 20, 1, B); /* C wakes B */
	scn_switch(&s, 25, 1, C, BLOCKED, B);
	scn_wake(&s, 30, 1, A); /* B wakes A */
	scn_switch(&s, 35, 0, 0, RUNNABLE, A);
	scn_path(&s, A, 0, 40, &p);
	assert_path(&p, { A, "running", 0, 10 }, { C, "running", 10, 20 },
		    { B, "preempted", 20, 25 }, { B, "running", 25, 30 },
		    { A, "preempted", 30, 35 }, { A, "running", 35, 40 });
	jank_path_fini(&p);
	scn_fini(&s);
}

/* A blocks at 10 on CPU 0, something in interrupt context wakes it at 20. */
static void woken_from_interrupt(void **state, void (*ctx)(struct scn *, int64_t, bool),
				 const char *label)
{
	struct scn s;
	struct jank_path p;

	scn_init(&s, LAYOUT(state), NULL);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	scn_switch(&s, 10, 0, A, BLOCKED, 0);
	ctx(&s, 19, true);
	scn_wake(&s, 20, 0, A);
	ctx(&s, 21, false);
	scn_switch(&s, 25, 0, 0, RUNNABLE, A);
	scn_path(&s, A, 0, 30, &p);
	assert_path(&p, { A, "running", 0, 10 }, { A, label, 10, 20 }, { A, "preempted", 20, 25 },
		    { A, "running", 25, 30 });
	jank_path_fini(&p);
	scn_fini(&s);
}

static void hrtimer_ctx(struct scn *s, int64_t ts, bool entry)
{
	scn_hrtimer(s, ts, 0, entry);
}

static void net_rx_ctx(struct scn *s, int64_t ts, bool entry)
{
	scn_softirq(s, ts, 0, 3, entry);
}

static void block_ctx(struct scn *s, int64_t ts, bool entry)
{
	scn_softirq(s, ts, 0, 4, entry);
}

static void hardirq_ctx(struct scn *s, int64_t ts, bool entry)
{
	scn_irq(s, ts, 0, 42, entry);
}

/* A softirq raised inside a hard IRQ: the innermost context labels the wait. */
static void nested_ctx(struct scn *s, int64_t ts, bool entry)
{
	if (entry) {
		scn_irq(s, ts, 0, 42, true);
		scn_softirq(s, ts, 0, 1, true);
	} else {
		scn_softirq(s, ts, 0, 1, false);
		scn_irq(s, ts, 0, 42, false);
	}
}

/* 4. */
static void wakeup_from_hrtimer(void **state)
{
	woken_from_interrupt(state, hrtimer_ctx, "timer");
}

/* 5. */
static void wakeup_from_net_rx(void **state)
{
	woken_from_interrupt(state, net_rx_ctx, "network");
}

/* 6. */
static void wakeup_from_block_softirq(void **state)
{
	woken_from_interrupt(state, block_ctx, "block_device");
}

/* 7. */
static void wakeup_from_hard_irq(void **state)
{
	woken_from_interrupt(state, hardirq_ctx, "interrupted");
}

static void wakeup_from_nested_contexts(void **state)
{
	woken_from_interrupt(state, nested_ctx, "timer");
}

/* 8. A blocks and is switched back in with no wakeup seen: the wait stays on A. */
static void wait_without_waker(void **state)
{
	struct scn s;
	struct jank_path p;

	scn_init(&s, LAYOUT(state), NULL);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	scn_switch(&s, 10, 0, A, BLOCKED, B);
	scn_switch(&s, 20, 0, B, BLOCKED, A);
	scn_path(&s, A, 0, 30, &p);
	assert_path(&p, { A, "running", 0, 10 }, { A, "blocked", 10, 20 },
		    { A, "running", 20, 30 });
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * 9. A's wait is resolved through B, but GC freed B's history before the
 * horizon and A's before its wait: those parts are `unknown`, the path is
 * marked truncated, and it still tiles.
 */
static void chain_reaches_gc_horizon(void **state)
{
	struct jank_engine_config cfg;
	struct scn s;
	struct jank_path p;

	jank_engine_config_defaults(&cfg);
	cfg.retention_ns = 120;
	scn_init(&s, LAYOUT(state), &cfg);
	scn_switch(&s, 800, 0, 0, RUNNABLE, A);
	scn_switch(&s, 900, 1, 0, RUNNABLE, B);
	scn_switch(&s, 940, 1, B, RUNNABLE, C); /* B preempted */
	scn_switch(&s, 950, 0, A, BLOCKED, 0);	/* A waits */
	scn_switch(&s, 970, 1, C, BLOCKED, B);	/* B runs again */
	scn_wake(&s, 1000, 1, A);		/* B wakes A */
	scn_switch(&s, 1005, 0, 0, RUNNABLE, A);
	scn_switch(&s, 1100, 0, A, BLOCKED, 0);
	jank_engine_tick(s.e, 1100); /* horizon = 980 */
	scn_path(&s, A, 900, 1050, &p);
	assert_true(p.truncated);
	assert_path(&p, { A, "unknown", 900, 950 }, { B, "unknown", 950, 970 },
		    { B, "running", 970, 1000 }, { A, "preempted", 1000, 1005 },
		    { A, "running", 1005, 1050 });
	jank_path_fini(&p);

	/* Inside retention the path is whole. */
	scn_path(&s, A, 990, 1050, &p);
	assert_false(p.truncated);
	assert_path(&p, { B, "running", 990, 1000 }, { A, "preempted", 1000, 1005 },
		    { A, "running", 1005, 1050 });
	jank_path_fini(&p);
	scn_fini(&s);
}

/* 10. The child waits from fork to sched_wakeup_new; the parent is the waker. */
static void fork_wait(void **state)
{
	struct scn s;
	struct jank_path p;

	scn_init(&s, LAYOUT(state), NULL);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	scn_fork(&s, 10, 0, A, D);
	scn_wakeup_new(&s, 12, 0, D);
	scn_switch(&s, 20, 1, 0, RUNNABLE, D);
	scn_path(&s, D, 10, 30, &p);
	assert_path(&p, { A, "running", 10, 12 }, { D, "preempted", 12, 20 },
		    { D, "running", 20, 30 });
	jank_path_fini(&p);
	scn_fini(&s);
}

struct captured {
	int reports;
	struct jank_path path;
	char key[JANK_KEY_LEN];
	int64_t duration;
	int32_t tid;
	bool over;
};

static void capture_report(const struct jank_verdict *r, void *data)
{
	struct captured *c = data;

	c->reports++;
	c->duration = r->duration;
	c->tid = r->tid;
	c->over = r->over_threshold;
	snprintf(c->key, sizeof(c->key), "%s", r->key);
	c->path.n = 0;
	for (size_t i = 0; i < r->path->n; i++) {
		if (c->path.n == c->path.cap) {
			c->path.cap = c->path.cap ? c->path.cap * 2 : 8;
			c->path.segs = realloc(c->path.segs, c->path.cap * sizeof(*c->path.segs));
		}
		c->path.segs[c->path.n++] = r->path->segs[i];
	}
	c->path.begin = r->path->begin;
	c->path.end = r->path->end;
}

static struct jank_rule frame_rule(const char *threshold)
{
	struct jank_rule r;

	jank_rule_init(&r);
	r.name = "frame";
	r.begin_event = "jank:action_begin";
	r.end_event = "jank:action_end";
	assert_int_equal(jank_rule_set_keys(&r, "name, id"), 0);
	assert_int_equal(jank_threshold_parse(threshold, &r.threshold), 0);
	return r;
}

static void free_rule_keys(struct jank_rule *r)
{
	for (unsigned i = 0; i < r->nkeys; i++)
		free(r->keys[i]);
}

/* 11. An action begins on A, which hands the work to B; B ends it. */
static void action_across_threads(void **state)
{
	struct scn s;
	struct captured c = { 0 };
	struct jank_rule r = frame_rule("10ns");

	scn_init(&s, LAYOUT(state), NULL);
	assert_int_equal(jank_engine_add_rule(s.e, &r), 0);
	free_rule_keys(&r);
	jank_engine_set_verdict_cb(s.e, capture_report, &c);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	scn_switch(&s, 0, 1, 0, RUNNABLE, B);
	scn_switch(&s, 2, 1, B, BLOCKED, 0);
	scn_ust(&s, 5, 0, A, "jank:action_begin", S("name", "frame"), I("id", 7));
	scn_wake(&s, 10, 0, B);
	scn_switch(&s, 15, 1, 0, RUNNABLE, B);
	scn_ust(&s, 30, 1, B, "jank:action_end", S("name", "frame"), I("id", 7));
	assert_int_equal(c.reports, 1);
	assert_string_equal(c.key, "name=frame,id=7");
	assert_int_equal(c.duration, 25);
	assert_int_equal(c.tid, B);
	assert_true(c.over);
	assert_path(&c.path, { A, "running", 5, 10 }, { B, "preempted", 10, 15 },
		    { B, "running", 15, 30 });
	jank_path_fini(&c.path);
	scn_fini(&s);
}

/* With sched_waking, sched_wakeup fires later on another CPU: it must not add a waker. */
static void wakeup_after_waking_is_ignored(void **state)
{
	struct scn s;
	struct jank_path p;

	scn_init(&s, LAYOUT(state), NULL);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	scn_switch(&s, 0, 1, 0, RUNNABLE, C);
	scn_switch(&s, 10, 0, A, BLOCKED, B);
	scn_kernel(&s, 30, 0, "sched_waking", S("comm", "t10"), I("tid", A), I("target_cpu", 1));
	scn_kernel(&s, 32, 1, "sched_wakeup", S("comm", "t10"), I("tid", A), I("target_cpu", 1));
	scn_switch(&s, 40, 1, C, RUNNABLE, A);
	scn_path(&s, A, 0, 50, &p);
	assert_path(&p, { A, "running", 0, 10 }, { B, "running", 10, 30 },
		    { A, "preempted", 30, 40 }, { A, "running", 40, 50 });
	jank_path_fini(&p);
	scn_fini(&s);
}

/* Statedump gives the initial state of a thread seen nowhere else yet. */
static void statedump_initial_state(void **state)
{
	struct scn s;
	struct jank_path p;

	scn_init(&s, LAYOUT(state), NULL);
	scn_kernel(&s, 0, 0, "lttng_statedump_process_state", I("tid", A), I("pid", A),
		   S("name", "t10"), I("status", 5));
	scn_wake(&s, 0, 0, B); /* B: first sight */
	scn_switch(&s, 0, 0, 0, RUNNABLE, B);
	scn_wake(&s, 20, 0, A);
	scn_switch(&s, 30, 0, B, BLOCKED, A);
	scn_path(&s, A, 0, 40, &p);
	assert_path(&p, { B, "running", 0, 20 }, { A, "preempted", 20, 30 },
		    { A, "running", 30, 40 });
	assert_int_equal(jank_graph_find(jank_engine_graph(s.e), A)->pid, A);
	jank_path_fini(&p);
	scn_fini(&s);
}

/* A tid reused after the thread was freed is a new thread record; the old history stays. */
static void tid_reuse(void **state)
{
	struct scn s;
	struct jank_path p;

	scn_init(&s, LAYOUT(state), NULL);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	scn_fork(&s, 5, 0, A, D);
	scn_kernel(&s, 6, 0, "sched_process_free", S("comm", "t40"), I("tid", D));
	scn_fork(&s, 10, 0, A, D);
	scn_wakeup_new(&s, 12, 0, D);
	scn_switch(&s, 15, 0, A, RUNNABLE, D);
	scn_path(&s, D, 10, 20, &p);
	assert_path(&p, { A, "running", 10, 12 }, { D, "preempted", 12, 15 },
		    { D, "running", 15, 20 });
	jank_path_fini(&p);
	scn_fini(&s);
}

/* Unknown thread and reversed bounds are errors, not crashes. */
static void bad_queries(void **state)
{
	struct scn s;
	struct jank_path p;

	scn_init(&s, LAYOUT(state), NULL);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	jank_path_init(&p);
	assert_int_equal(jank_critpath_compute(jank_engine_graph(s.e), 999, 0, 10, &p), -ENOENT);
	assert_int_equal(jank_critpath_compute(jank_engine_graph(s.e), A, 10, 0, &p), -EINVAL);
	/* An interval before the thread was first seen is unknown, not an error. */
	assert_int_equal(jank_critpath_compute(jank_engine_graph(s.e), A, -50, 10, &p), 0);
	assert_path(&p, { A, "unknown", -50, 0 }, { A, "running", 0, 10 });
	jank_path_fini(&p);
	scn_fini(&s);
}

/* Lost events make the affected threads unknown, never a false path. */
static void discarded_events(void **state)
{
	struct scn s;
	struct jank_path p;

	scn_init(&s, LAYOUT(state), NULL);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	scn_switch(&s, 10, 0, A, BLOCKED, B);
	jank_engine_discarded(s.e, 0, 20, 5);
	scn_switch(&s, 30, 0, B, BLOCKED, A);
	scn_path(&s, A, 0, 40, &p);
	assert_path(&p, { A, "running", 0, 10 }, { A, "blocked", 10, 20 }, { A, "unknown", 20, 30 },
		    { A, "running", 30, 40 });
	jank_path_fini(&p);
	scn_fini(&s);
}

static void breakdown(void **state)
{
	struct scn s;
	struct jank_path p;
	struct jank_breakdown b;

	scn_init(&s, LAYOUT(state), NULL);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	scn_switch(&s, 10, 0, A, BLOCKED, B);
	scn_wake(&s, 30, 0, A);
	scn_switch(&s, 40, 0, B, RUNNABLE, A);
	scn_path(&s, A, 0, 50, &p);
	jank_breakdown_init(&b);
	assert_int_equal(jank_breakdown_compute(&p, &b), 0);
	assert_int_equal(b.per_state[JANK_STATE_RUNNING], 40);
	assert_int_equal(b.per_state[JANK_STATE_PREEMPTED], 10);
	assert_int_equal(b.n, 3);
	assert_int_equal(b.items[0].tid, A); /* A running 20 */
	assert_int_equal(b.items[0].ns, 20);
	assert_int_equal(b.items[1].tid, B);
	assert_int_equal(b.items[1].ns, 20);
	assert_int_equal(b.items[2].state, JANK_STATE_PREEMPTED);
	jank_breakdown_fini(&b);
	jank_path_fini(&p);
	scn_fini(&s);
}

/*
 * A path across thousands of threads, each visited several times in two
 * states: one item per (tid, state), with the sum of its segments, and the
 * same result when the breakdown is computed again.
 */
static void breakdown_many_threads(void **state)
{
	enum {
		THREADS = 3000,
		ROUNDS = 3
	};
	struct jank_path p;
	struct jank_breakdown b;
	int64_t t = 0;

	jank_path_init(&p);
	p.cap = THREADS * ROUNDS * 2;
	p.segs = calloc(p.cap, sizeof(*p.segs));
	assert_non_null(p.segs);
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < THREADS * 2; i++) {
			struct jank_segment *g = &p.segs[p.n++];

			g->tid = 1000 + i / 2;
			g->state = i % 2 ? JANK_STATE_BLOCKED : JANK_STATE_RUNNING;
			g->begin = t;
			t += 1 + i % 2; /* running 1 ns, blocked 2 ns per visit */
			g->end = t;
		}
	}
	jank_breakdown_init(&b);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(jank_breakdown_compute(&p, &b), 0);
		assert_int_equal(b.n, THREADS * 2);
		assert_int_equal(b.per_state[JANK_STATE_RUNNING], THREADS * ROUNDS);
		assert_int_equal(b.per_state[JANK_STATE_BLOCKED], 2 * THREADS * ROUNDS);
		for (size_t j = 0; j < b.n; j++)
			assert_int_equal(b.items[j].ns, b.items[j].state == JANK_STATE_BLOCKED
								? 2 * ROUNDS
								: ROUNDS);
		/* Largest first: every blocked item before every running one. */
		assert_int_equal(b.items[THREADS - 1].state, JANK_STATE_BLOCKED);
		assert_int_equal(b.items[THREADS].state, JANK_STATE_RUNNING);
	}
	jank_breakdown_fini(&b);
	jank_path_fini(&p);
}

#define BOTH(f)                                                                                    \
	cmocka_unit_test_prestate(f, (void *)&scn_layout_current),                                 \
		cmocka_unit_test_prestate(f, (void *)&scn_layout_2_5)

/*
 * Out of memory while the path grows (realloc fails, through the linker's
 * --wrap): the segments found so far, the end of the interval, are kept in
 * time order and the path says it is incomplete.
 */
static int realloc_budget = -1; /* reallocs that may still succeed; -1: all */

void *__real_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n)
{
	if (realloc_budget == 0)
		return NULL;
	if (realloc_budget > 0)
		realloc_budget--;
	return __real_realloc(p, n);
}

static void out_of_memory(void **state)
{
	struct scn s;
	struct jank_path p;
	int r;

	scn_init(&s, LAYOUT(state), NULL);
	scn_switch(&s, 0, 0, 0, RUNNABLE, A);
	for (int i = 0; i < 50; i++) { /* 100 segments */
		scn_switch(&s, 100 * i + 10, 0, A, RUNNABLE, B);
		scn_switch(&s, 100 * i + 60, 0, B, RUNNABLE, A);
	}
	jank_path_init(&p);
	realloc_budget = 3; /* a few growths of the stack and the segments, not all */
	r = jank_critpath_compute(jank_engine_graph(s.e), A, 0, 5000, &p);
	realloc_budget = -1;
	assert_int_equal(r, -ENOMEM);
	assert_true(p.incomplete);
	assert_true(p.n > 0 && p.n < 100);
	assert_int_equal(p.segs[p.n - 1].end, 5000);
	for (size_t i = 1; i < p.n; i++)
		assert_int_equal(p.segs[i].begin, p.segs[i - 1].end);
	/* With memory, the same query is whole again. */
	assert_int_equal(jank_critpath_compute(jank_engine_graph(s.e), A, 0, 5000, &p), 0);
	assert_false(p.incomplete);
	scn_assert_tiles(&p);
	jank_path_fini(&p);
	scn_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(preemption_only),
		BOTH(woken_by_thread),
		BOTH(recursive_chain),
		BOTH(wakeup_from_hrtimer),
		BOTH(wakeup_from_net_rx),
		BOTH(wakeup_from_block_softirq),
		BOTH(wakeup_from_hard_irq),
		BOTH(wakeup_from_nested_contexts),
		BOTH(wait_without_waker),
		BOTH(chain_reaches_gc_horizon),
		BOTH(fork_wait),
		BOTH(action_across_threads),
		cmocka_unit_test_prestate(wakeup_after_waking_is_ignored,
					  (void *)&scn_layout_current),
		BOTH(statedump_initial_state),
		BOTH(tid_reuse),
		BOTH(bad_queries),
		BOTH(discarded_events),
		BOTH(breakdown),
		cmocka_unit_test(breakdown_many_threads),
		BOTH(out_of_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
