/* SPDX-License-Identifier: MIT */
/*
 * lib/baseline.c: profiles of actions, the baseline of normal ones (means
 * that decay, a bounded table), and the suspects of a slow action.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "baseline.h"

#define US 1000LL
#define MS 1000000LL

/* A profile by hand: its states, and thread components named "app/NAME". */
struct pf_thread {
	const char *name;
	enum jank_state state;
	int64_t ns;
};

static void profile(struct jank_profile *pf, const struct pf_thread *t, size_t n, uint64_t lock,
		    int64_t lock_ns)
{
	pf->n = 0;
	pf->nran = 0;
	pf->tid = 1;
	pf->self = jank_comp_identity("app", "ui");
	pf->duration = 0;
	memset(pf->per_state, 0, sizeof(pf->per_state));
	for (size_t i = 0; i < n + (lock != 0); i++) {
		struct jank_comp *c;

		if (pf->n == pf->cap) {
			pf->cap = pf->cap ? pf->cap * 2 : 8;
			pf->comps = realloc(pf->comps, pf->cap * sizeof(*pf->comps));
			assert_non_null(pf->comps);
		}
		c = &pf->comps[pf->n++];
		memset(c, 0, sizeof(*c));
		strcpy(c->process, "app");
		if (i == n) { /* the lock, held by "holder" */
			strcpy(c->thread, "holder");
			c->key.kind = JANK_COMP_LOCK;
			c->key.id = lock;
			c->ns = lock_ns;
			continue;
		}
		strcpy(c->thread, t[i].name);
		c->key.kind = JANK_COMP_THREAD;
		c->key.state = (uint8_t)t[i].state;
		c->key.id = jank_comp_identity("app", t[i].name);
		c->ns = t[i].ns;
		pf->per_state[t[i].state] += t[i].ns;
		pf->duration += t[i].ns;
	}
}

#define PROFILE(pf, ...)                                                                           \
	profile((pf), (const struct pf_thread[]){ __VA_ARGS__ },                                   \
		sizeof((const struct pf_thread[]){ __VA_ARGS__ }) / sizeof(struct pf_thread), 0,   \
		0)

static struct jank_comp_key thread_key(const char *name, enum jank_state s)
{
	return (struct jank_comp_key){ JANK_COMP_THREAD, (uint8_t)s,
				       jank_comp_identity("app", name) };
}

/* Until JANK_BASELINE_MIN normal actions: no baseline, no suspect named. */
static void cold_start(void **state)
{
	struct jank_profile pf = { 0 };
	struct jank_baseline b;
	struct jank_suspects ss;

	(void)state;
	jank_baseline_init(&b);
	PROFILE(&pf, { "ui", JANK_STATE_RUNNING, 4 * MS });
	for (int i = 0; i < JANK_BASELINE_MIN - 1; i++)
		jank_baseline_learn(&b, &pf);
	PROFILE(&pf, { "ui", JANK_STATE_RUNNING, 4 * MS }, { "db", JANK_STATE_TIMER, 30 * MS });
	jank_baseline_suspects(&b, &pf, &ss);
	assert_false(ss.ready);
	assert_int_equal(ss.normal, JANK_BASELINE_MIN - 1);
	assert_int_equal(ss.n, 0);
	PROFILE(&pf, { "ui", JANK_STATE_RUNNING, 4 * MS });
	jank_baseline_learn(&b, &pf);
	PROFILE(&pf, { "ui", JANK_STATE_RUNNING, 4 * MS }, { "db", JANK_STATE_TIMER, 30 * MS });
	jank_baseline_suspects(&b, &pf, &ss);
	assert_true(ss.ready);
	assert_int_equal(ss.n, 1);
	jank_profile_fini(&pf);
}

/*
 * The plain mean while fewer than WINDOW actions were seen, then each weighs
 * 1/WINDOW: a component that stops appearing fades by (1 - 1/WINDOW) per
 * action, and comes back at once when it returns.
 */
static void decay(void **state)
{
	struct jank_profile pf = { 0 };
	struct jank_comp_key disk = thread_key("db", JANK_STATE_BLOCK_DEVICE);
	struct jank_baseline b;
	double want;

	(void)state;
	jank_baseline_init(&b);
	for (int i = 0; i < 10; i++) {
		PROFILE(&pf, { "ui", JANK_STATE_RUNNING, 4 * MS },
			{ "db", JANK_STATE_BLOCK_DEVICE, i % 2 ? 2 * MS : 0 });
		jank_baseline_learn(&b, &pf);
	}
	assert_true(fabs(jank_baseline_mean(&b, &disk) - 1 * MS) < 1);
	assert_true(fabs(b.duration - 5 * MS) < 1);
	for (int i = 10; i < JANK_BASELINE_WINDOW; i++) {
		PROFILE(&pf, { "ui", JANK_STATE_RUNNING, 4 * MS });
		jank_baseline_learn(&b, &pf);
	}
	/* 5 of the 100 had 2 ms of disk: the plain mean. */
	assert_true(fabs(jank_baseline_mean(&b, &disk) - 0.1 * MS) < 1);
	want = 0.1 * MS;
	for (int i = 0; i < 69; i++) {
		jank_baseline_learn(&b, &pf);
		want *= 1.0 - 1.0 / JANK_BASELINE_WINDOW;
	}
	assert_true(fabs(jank_baseline_mean(&b, &disk) - want) < 1);
	assert_true(want < 0.051 * MS && want > 0.049 * MS); /* a half-life of 69 actions */
	assert_true(fabs(b.per_state[JANK_STATE_RUNNING] - 4 * MS) < 1);
	jank_profile_fini(&pf);
}

/* At most JANK_BASELINE_TOP thread and lock components: the largest stay. */
static void bounded(void **state)
{
	struct jank_profile pf = { 0 };
	struct jank_comp_key ui = thread_key("ui", JANK_STATE_RUNNING);
	struct jank_comp_key newest = thread_key("w999", JANK_STATE_RUNNING);
	struct jank_comp_key oldest = thread_key("w0", JANK_STATE_RUNNING);
	struct jank_baseline b;
	char names[1000][16];

	(void)state;
	jank_baseline_init(&b);
	for (int i = 0; i < 1000; i++) {
		snprintf(names[i], sizeof(names[i]), "w%d", i);
		/* One big regular component, and a new small one every time. */
		PROFILE(&pf, { "ui", JANK_STATE_RUNNING, 4 * MS },
			{ names[i], JANK_STATE_RUNNING, 100 * US + i });
		jank_baseline_learn(&b, &pf);
		assert_true(b.ntop <= JANK_BASELINE_TOP);
	}
	assert_int_equal(b.ntop, JANK_BASELINE_TOP);
	assert_true(fabs(jank_baseline_mean(&b, &ui) - 4 * MS) < 1);
	/* The newest small one is kept (it replaced an older, faded one). */
	assert_true(jank_baseline_mean(&b, &newest) > 0);
	assert_true(jank_baseline_mean(&b, &oldest) == 0);
	jank_profile_fini(&pf);
}

static void learn_normal(struct jank_baseline *b, struct jank_profile *pf, int n)
{
	for (int i = 0; i < n; i++) {
		PROFILE(pf, { "ui", JANK_STATE_RUNNING, 4 * MS + (i % 3) * 100 * US },
			{ "ui", JANK_STATE_PREEMPTED, 100 * US },
			{ "db", JANK_STATE_BLOCK_DEVICE, 200 * US },
			{ "ui", JANK_STATE_TIMER, 500 * US });
		jank_baseline_learn(b, pf);
	}
}

/*
 * Ranked by the increase; a state gives way to the thread that spent it, a
 * thread to the lock it held; the ratio and the own thread are said.
 */
static void ranking(void **state)
{
	struct jank_profile pf = { 0 };
	struct jank_baseline b;
	struct jank_suspects ss;
	const struct jank_suspect *s;

	(void)state;
	jank_baseline_init(&b);
	learn_normal(&b, &pf, 30);
	PROFILE(&pf, { "ui", JANK_STATE_RUNNING, 4 * MS }, { "ui", JANK_STATE_PREEMPTED, 100 * US },
		{ "db", JANK_STATE_BLOCK_DEVICE, 40 * MS }, { "ui", JANK_STATE_TIMER, 3 * MS });
	jank_baseline_suspects(&b, &pf, &ss);
	assert_true(ss.ready);
	assert_int_equal(ss.normal, 30);
	assert_true(ss.n >= 2);
	s = &ss.items[0];
	/* db's disk wait, not the block_device hop as a whole: the thread says where. */
	assert_int_equal(s->comp.key.kind, JANK_COMP_THREAD);
	assert_int_equal(s->comp.key.state, JANK_STATE_BLOCK_DEVICE);
	assert_string_equal(s->comp.thread, "db");
	assert_false(s->own);
	assert_int_equal(s->delta, 40 * MS - 200 * US);
	assert_true(fabs(s->ratio - 200.0) < 1e-6);
	s = &ss.items[1];
	assert_int_equal(s->comp.key.state, JANK_STATE_TIMER);
	assert_true(s->own);
	assert_int_equal(s->delta, 2500 * US);
	for (size_t i = 0; i < ss.n; i++)
		assert_true(ss.items[i].comp.key.kind == JANK_COMP_THREAD);

	/* A lock held by "holder", which ran meanwhile: the lock is named. */
	profile(&pf,
		(const struct pf_thread[]){ { "ui", JANK_STATE_RUNNING, 4 * MS },
					    { "holder", JANK_STATE_RUNNING, 30 * MS } },
		2, 0x55d0, 30 * MS);
	jank_baseline_suspects(&b, &pf, &ss);
	assert_int_equal(ss.items[0].comp.key.kind, JANK_COMP_LOCK);
	assert_int_equal(ss.items[0].comp.key.id, 0x55d0);
	assert_string_equal(ss.items[0].comp.thread, "holder");
	for (size_t i = 1; i < ss.n; i++)
		assert_false(ss.items[i].comp.key.kind == JANK_COMP_THREAD &&
			     !strcmp(ss.items[i].comp.thread, "holder"));

	/* Spread over many threads, no thread explains the state: the state is named. */
	PROFILE(&pf, { "ui", JANK_STATE_RUNNING, 4 * MS }, { "a", JANK_STATE_PREEMPTED, 5 * MS },
		{ "b", JANK_STATE_PREEMPTED, 5 * MS }, { "c", JANK_STATE_PREEMPTED, 5 * MS });
	jank_baseline_suspects(&b, &pf, &ss);
	assert_int_equal(ss.items[0].comp.key.kind, JANK_COMP_STATE);
	assert_int_equal(ss.items[0].comp.key.state, JANK_STATE_PREEMPTED);

	/* Nothing above normal: no suspect (less than 1% of the action is noise). */
	PROFILE(&pf, { "ui", JANK_STATE_RUNNING, 4 * MS }, { "ui", JANK_STATE_PREEMPTED, 100 * US },
		{ "db", JANK_STATE_BLOCK_DEVICE, 200 * US }, { "ui", JANK_STATE_TIMER, 500 * US });
	jank_baseline_suspects(&b, &pf, &ss);
	assert_int_equal(ss.n, 0);
	jank_profile_fini(&pf);
}

/* A path and its breakdown become a profile: names from the graph, pools merged, locks. */
static void build(void **state)
{
	struct jank_graph *g = jank_graph_new();
	struct jank_segment segs[] = {
		{ .tid = 10, .state = JANK_STATE_RUNNING, .begin = 0, .end = 1 * MS, .comm = "ui" },
		{ .tid = 21,
		  .state = JANK_STATE_RUNNING,
		  .begin = 1 * MS,
		  .end = 3 * MS,
		  .comm = "pool" },
		{ .tid = 22,
		  .state = JANK_STATE_RUNNING,
		  .begin = 3 * MS,
		  .end = 6 * MS,
		  .comm = "pool" },
		{ .tid = 30,
		  .state = JANK_STATE_TIMER,
		  .begin = 6 * MS,
		  .end = 9 * MS,
		  .lock = 0xabc,
		  .comm = "holder" },
		{ .tid = 10,
		  .state = JANK_STATE_RUNNING,
		  .begin = 9 * MS,
		  .end = 10 * MS,
		  .comm = "ui" },
	};
	struct jank_path p = { .tid = 10, .begin = 0, .end = 10 * MS, .segs = segs, .n = 5 };
	struct jank_profile pf, copy;
	struct jank_breakdown bd;
	struct jank_comp_key k;
	struct {
		int32_t tid, pid;
		const char *comm;
	} threads[] = { { 10, 10, "app" },
			{ 21, 20, "pool" },
			{ 22, 20, "pool" },
			{ 20, 20, "server" },
			{ 30, 10, "holder" } };

	(void)state;
	for (size_t i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
		struct jank_thread *w = jank_graph_get(g, threads[i].tid, 0);

		w->pid = threads[i].pid;
		strcpy(w->comm, threads[i].comm);
	}
	jank_breakdown_init(&bd);
	jank_profile_init(&pf);
	jank_profile_init(&copy);
	assert_int_equal(jank_breakdown_compute(&p, &bd), 0);
	assert_int_equal(jank_profile_build(&pf, &p, &bd, g, 10), 0);
	assert_int_equal(pf.duration, 10 * MS);
	assert_int_equal(pf.per_state[JANK_STATE_RUNNING], 7 * MS);
	assert_int_equal(pf.self, jank_comp_identity("app", "ui")); /* as its segments say */
	/* The two pool threads are one component, "server/pool", named by the larger. */
	assert_int_equal(pf.comps[0].key.kind, JANK_COMP_THREAD);
	assert_string_equal(pf.comps[0].process, "server");
	assert_string_equal(pf.comps[0].thread, "pool");
	assert_int_equal(pf.comps[0].ns, 5 * MS);
	assert_int_equal(pf.comps[0].tid, 22);
	/* The action's own segments carry the segment's comm: "app/ui". */
	k = (struct jank_comp_key){ JANK_COMP_THREAD, JANK_STATE_RUNNING,
				    jank_comp_identity("app", "ui") };
	assert_int_equal(jank_profile_ns(&pf, &k), 2 * MS);
	k = (struct jank_comp_key){ JANK_COMP_LOCK, 0, 0xabc };
	assert_int_equal(jank_profile_ns(&pf, &k), 3 * MS);
	for (size_t i = 0; i < pf.n; i++)
		if (pf.comps[i].key.kind == JANK_COMP_LOCK) {
			assert_string_equal(pf.comps[i].thread, "holder");
			assert_string_equal(pf.comps[i].process, "app");
			assert_int_equal(pf.comps[i].tid, 30);
		}
	assert_int_equal(jank_profile_copy(&copy, &pf), 0);
	assert_int_equal(copy.n, pf.n);
	assert_memory_equal(copy.comps, pf.comps, pf.n * sizeof(*pf.comps));
	jank_profile_fini(&copy);
	jank_profile_fini(&pf);
	jank_breakdown_fini(&bd);
	jank_graph_free(g);
}

/* ---- Functions ---- */

/* A function of process 1000 at addr: its key. */
static struct jank_comp_key fn_key(uint64_t addr)
{
	struct jank_frame f = { .addr = addr, .pid = 1000 };

	return (struct jank_comp_key){ JANK_COMP_FUNCTION, 0, jank_comp_function_identity(&f) };
}

/* A function component by hand: addr, time, mostly in state, on app/thread. */
static void fn(struct jank_profile *pf, uint64_t addr, int64_t ns, enum jank_state st,
	       const char *thread)
{
	struct jank_comp *c = &pf->fns[pf->nfns++];

	assert_true(pf->nfns <= JANK_PROFILE_FUNCTIONS);
	memset(c, 0, sizeof(*c));
	c->key = fn_key(addr);
	c->ns = ns;
	c->fn_state = (uint8_t)st;
	c->frame = (uint32_t)pf->nfns;
	strcpy(c->process, "app");
	strcpy(c->thread, thread);
}

/* A pointer to a function's key, for the calls that take one. */
#define FNK(addr) (&(struct jank_comp_key[]){ fn_key(addr) }[0])

enum {
	RUN = 0x1000,
	PRICE = 0x2000,
	DISC = 0x3000,
	LOG = 0x4000,
	RATES = 0x5000
};

/*
 * Normal actions: ui runs 4 ms, 3 in run_task and 1 in compute_price;
 * every other one also logs (log_line, 100 us).
 */
static void learn_normal_fns(struct jank_baseline *b, struct jank_profile *pf, int n)
{
	for (int i = 0; i < n; i++) {
		PROFILE(pf, { "ui", JANK_STATE_RUNNING, 4 * MS });
		pf->nfns = 0;
		fn(pf, RUN, 3 * MS, JANK_STATE_RUNNING, "ui");
		fn(pf, PRICE, 1 * MS, JANK_STATE_RUNNING, "ui");
		if (i % 2)
			fn(pf, LOG, 100 * US, JANK_STATE_RUNNING, "ui");
		jank_baseline_learn(b, pf);
	}
}

/*
 * A function only slow actions call ranks first, with its normal time
 * (none) and its increase score (1: on every slow path, no normal one); the
 * running state and ui's running time give way to it.
 */
static void function_only_in_slow(void **state)
{
	struct jank_profile pf = { 0 };
	struct jank_baseline b;
	struct jank_suspects ss;
	const struct jank_suspect *s;
	struct jank_comp_key log = fn_key(LOG), run = fn_key(RUN);

	(void)state;
	jank_baseline_init(&b);
	learn_normal_fns(&b, &pf, 30);
	assert_int_equal(b.nfns, 3);
	assert_true(fabs(jank_baseline_mean(&b, &run) - 3 * MS) < 1);
	assert_true(fabs(jank_baseline_presence(&b, &run, false) - 1.0) < 1e-9);
	assert_true(fabs(jank_baseline_mean(&b, &log) - 50 * US) < 1);
	assert_true(fabs(jank_baseline_presence(&b, &log, false) - 0.5) < 1e-9);
	assert_true(jank_baseline_presence(&b, &log, true) == 0.0);

	/* 30 ms more running, in apply_discounts, which normal actions never call. */
	PROFILE(&pf, { "ui", JANK_STATE_RUNNING, 34 * MS });
	pf.nfns = 0;
	fn(&pf, DISC, 30 * MS, JANK_STATE_RUNNING, "ui");
	fn(&pf, RUN, 3 * MS, JANK_STATE_RUNNING, "ui");
	fn(&pf, PRICE, 1 * MS, JANK_STATE_RUNNING, "ui");
	jank_baseline_learn_slow(&b, &pf);
	assert_int_equal(b.nslow, 1);
	jank_baseline_suspects(&b, &pf, &ss);
	assert_true(ss.ready);
	assert_int_equal(ss.n, 1); /* the state and the thread gave way */
	s = &ss.items[0];
	assert_int_equal(s->comp.key.kind, JANK_COMP_FUNCTION);
	assert_true(jank_comp_key_equal(&s->comp.key, FNK(DISC)));
	assert_true(s->own);
	assert_true(s->normal == 0.0);
	assert_int_equal(s->delta, 30 * MS);
	assert_true(fabs(s->presence_slow - 1.0) < 1e-9);
	assert_true(s->presence_normal == 0.0);
	assert_true(fabs(s->increase - 1.0) < 1e-9);
	assert_true(fabs(s->rank - 60.0 * MS) < 1); /* twice its excess */
	assert_int_equal(s->function[0], '\0');	    /* named by jank_suspects_name */

	/* Without the function, the thread would be named: it is what gave way. */
	pf.nfns = 0;
	jank_baseline_suspects(&b, &pf, &ss);
	assert_int_equal(ss.items[0].comp.key.kind, JANK_COMP_THREAD);
	assert_int_equal(ss.items[0].delta, 30 * MS);
	jank_profile_fini(&pf);
}

/*
 * P(f | slow) and P(f | normal) are decayed means of presence; the
 * increase score is their difference and only promotes: a function more
 * often on slow paths outranks a larger excess, one less often ranks by
 * its excess alone.
 */
static void increase_score(void **state)
{
	struct jank_profile pf = { 0 };
	struct jank_baseline b;
	struct jank_suspects ss;
	struct jank_comp_key log = fn_key(LOG), price = fn_key(PRICE);
	const struct jank_suspect *s;

	(void)state;
	jank_baseline_init(&b);
	learn_normal_fns(&b, &pf, 30);
	/* Three slow actions, log_line on the first and the third: P = 1, 1/2, 2/3. */
	for (int i = 0; i < 3; i++) {
		PROFILE(&pf, { "ui", JANK_STATE_RUNNING, 30 * MS });
		pf.nfns = 0;
		fn(&pf, PRICE, 1 * MS, JANK_STATE_RUNNING, "ui");
		if (i != 1)
			fn(&pf, LOG, 100 * US, JANK_STATE_RUNNING, "ui");
		jank_baseline_learn_slow(&b, &pf);
	}
	assert_true(fabs(jank_baseline_presence(&b, &log, true) - 2.0 / 3.0) < 1e-9);
	assert_true(fabs(jank_baseline_presence(&b, &price, true) - 1.0) < 1e-9);
	assert_true(fabs(jank_baseline_presence(&b, &log, false) - 0.5) < 1e-9);

	/*
	 * compute_price: +12 ms, on every path (increase 0), rank 12 ms;
	 * log_line: +10 ms, 2/3 against 1/2 (increase 1/6), rank 11.67 ms;
	 * run_task: +11 ms, on every normal path and no slow one yet
	 * (increase -1): ranked by its 11 ms, not less. First, ui's 36 ms more
	 * running: spread over three functions, none explains half of it.
	 */
	PROFILE(&pf, { "ui", JANK_STATE_RUNNING, 40 * MS });
	pf.nfns = 0;
	fn(&pf, PRICE, 13 * MS, JANK_STATE_RUNNING, "ui");
	fn(&pf, RUN, 14 * MS, JANK_STATE_RUNNING, "ui");
	fn(&pf, LOG, 10 * MS + 50 * US, JANK_STATE_RUNNING, "ui");
	jank_baseline_suspects(&b, &pf, &ss);
	assert_int_equal(ss.n, 4);
	assert_int_equal(ss.items[0].comp.key.kind, JANK_COMP_THREAD);
	assert_int_equal(ss.items[0].delta, 36 * MS);
	s = &ss.items[1];
	assert_true(jank_comp_key_equal(&s->comp.key, &price));
	assert_true(fabs(s->increase) < 1e-9);
	assert_true(fabs(s->rank - 12.0 * MS) < 1);
	s = &ss.items[2];
	assert_true(jank_comp_key_equal(&s->comp.key, &log));
	assert_int_equal(s->delta, 10 * MS);
	assert_true(fabs(s->increase - 1.0 / 6.0) < 1e-9);
	assert_true(fabs(s->rank - 10.0 * MS * (1 + 1.0 / 6.0)) < 1);
	s = &ss.items[3];
	assert_true(jank_comp_key_equal(&s->comp.key, FNK(RUN)));
	assert_true(fabs(s->increase + 1.0) < 1e-9);
	assert_true(fabs(s->rank - 11.0 * MS) < 1);

	/* With log_line on (nearly) every slow path, its increase (about 1/2) puts it before. */
	for (int i = 0; i < 40; i++) {
		PROFILE(&pf, { "ui", JANK_STATE_RUNNING, 30 * MS });
		pf.nfns = 0;
		fn(&pf, PRICE, 1 * MS, JANK_STATE_RUNNING, "ui");
		fn(&pf, LOG, 100 * US, JANK_STATE_RUNNING, "ui");
		jank_baseline_learn_slow(&b, &pf);
	}
	assert_true(jank_baseline_presence(&b, &log, true) > 0.98); /* 1 - (1/3)(3/19)(19/20)^24 */
	PROFILE(&pf, { "ui", JANK_STATE_RUNNING, 40 * MS });
	pf.nfns = 0;
	fn(&pf, PRICE, 13 * MS, JANK_STATE_RUNNING, "ui");
	fn(&pf, LOG, 10 * MS + 50 * US, JANK_STATE_RUNNING, "ui");
	jank_baseline_suspects(&b, &pf, &ss);
	assert_true(jank_comp_key_equal(&ss.items[1].comp.key, &log));
	assert_true(jank_comp_key_equal(&ss.items[2].comp.key, &price));
	jank_profile_fini(&pf);
}

/*
 * A thread gives way to the function it spent its time in, a lock stays
 * beside the function its holder ran; a function mostly blocked does not
 * explain time running.
 */
static void function_precedence(void **state)
{
	struct jank_profile pf = { 0 };
	struct jank_baseline b;
	struct jank_suspects ss;
	bool lock = false, rates = false;

	(void)state;
	jank_baseline_init(&b);
	learn_normal_fns(&b, &pf, 30);
	profile(&pf,
		(const struct pf_thread[]){ { "ui", JANK_STATE_RUNNING, 4 * MS },
					    { "holder", JANK_STATE_RUNNING, 30 * MS } },
		2, 0x55d0, 30 * MS);
	pf.nfns = 0;
	fn(&pf, RATES, 30 * MS, JANK_STATE_RUNNING, "holder");
	fn(&pf, RUN, 3 * MS, JANK_STATE_RUNNING, "ui");
	jank_baseline_learn_slow(&b, &pf);
	jank_baseline_suspects(&b, &pf, &ss);
	for (size_t i = 0; i < ss.n; i++) {
		const struct jank_comp *c = &ss.items[i].comp;

		assert_false(c->key.kind == JANK_COMP_THREAD); /* holder's gave way to both */
		assert_false(c->key.kind == JANK_COMP_STATE);
		lock |= c->key.kind == JANK_COMP_LOCK;
		if (c->key.kind == JANK_COMP_FUNCTION) {
			rates = true;
			assert_false(ss.items[i].own);
			assert_string_equal(c->thread, "holder");
		}
	}
	assert_true(lock && rates);
	/* The function first: the same excess, and only on slow paths. */
	assert_int_equal(ss.items[0].comp.key.kind, JANK_COMP_FUNCTION);

	/* Mostly blocked in it: the running time of ui is not its to explain. */
	PROFILE(&pf, { "ui", JANK_STATE_RUNNING, 34 * MS });
	pf.nfns = 0;
	fn(&pf, DISC, 30 * MS, JANK_STATE_BLOCKED, "ui");
	jank_baseline_suspects(&b, &pf, &ss);
	assert_int_equal(ss.n, 2);
	assert_int_equal(ss.items[0].comp.key.kind, JANK_COMP_FUNCTION);
	assert_int_equal(ss.items[1].comp.key.kind, JANK_COMP_THREAD);
	jank_profile_fini(&pf);
}

/* At most JANK_BASELINE_TOP functions, normal and slow: the largest and the most frequent stay. */
static void functions_bounded(void **state)
{
	struct jank_profile pf = { 0 };
	struct jank_baseline b;
	struct jank_comp_key run = fn_key(RUN);

	(void)state;
	jank_baseline_init(&b);
	for (int i = 0; i < 1000; i++) {
		PROFILE(&pf, { "ui", JANK_STATE_RUNNING, 4 * MS });
		pf.nfns = 0;
		fn(&pf, RUN, 3 * MS, JANK_STATE_RUNNING, "ui");
		fn(&pf, 0x100000 + (uint64_t)i, 100 * US + i, JANK_STATE_RUNNING, "ui");
		jank_baseline_learn(&b, &pf);
		assert_true(b.nfns <= JANK_BASELINE_TOP);
		jank_baseline_learn_slow(&b, &pf);
		assert_true(b.nslowfns <= JANK_BASELINE_TOP);
	}
	assert_int_equal(b.nfns, JANK_BASELINE_TOP);
	assert_int_equal(b.nslowfns, JANK_BASELINE_TOP);
	assert_int_equal(b.ntop, 1); /* functions do not take the threads' room */
	assert_true(fabs(jank_baseline_mean(&b, &run) - 3 * MS) < 1);
	assert_true(jank_baseline_presence(&b, &run, false) > 0.999);
	assert_true(jank_baseline_presence(&b, &run, true) > 0.999);
	assert_true(jank_baseline_mean(&b, FNK(0x100000 + 999)) > 0);
	assert_true(jank_baseline_presence(&b, FNK(0x100000 + 999), true) > 0);
	assert_true(jank_baseline_mean(&b, FNK(0x100000)) == 0);
	assert_true(jank_baseline_presence(&b, FNK(0x100000), true) == 0);
	jank_profile_fini(&pf);
}

/*
 * A path with stacks becomes function components: time per innermost
 * function, the state most of it was in, the thread of its longest
 * segment; suspects are named from the path's frames.
 */
static void build_functions(void **state)
{
	struct jank_graph *g = jank_graph_new();
	struct jank_path p;
	struct jank_breakdown bd;
	struct jank_profile pf;
	struct jank_suspects ss;
	uint32_t run, disc, rates, s_run, s_disc, s_rates;
	struct {
		int32_t tid, begin, end;
		enum jank_state st;
		uint32_t *stack;
	} segs[] = {
		{ 10, 0, 1000, JANK_STATE_RUNNING, &s_run },
		{ 10, 1000, 5000, JANK_STATE_RUNNING, &s_disc },
		{ 10, 5000, 6000, JANK_STATE_PREEMPTED, &s_disc },
		{ 30, 6000, 9000, JANK_STATE_PREEMPTED, &s_rates },
		{ 10, 9000, 9500, JANK_STATE_PREEMPTED, &s_disc },
		{ 10, 9500, 10000, JANK_STATE_RUNNING, &s_run },
	};

	(void)state;
	jank_graph_get(g, 10, 0)->pid = 10;
	strcpy(jank_graph_get(g, 10, 0)->comm, "app");
	jank_graph_get(g, 30, 0)->pid = 10;
	strcpy(jank_graph_get(g, 30, 0)->comm, "holder");
	jank_path_init(&p);
	run = jank_path_frame(&p, RUN, 10, false, NULL);
	disc = jank_path_frame(&p, DISC, 10, false, NULL);
	rates = jank_path_frame(&p, RATES, 10, false, NULL);
	s_run = jank_path_stack(&p, (uint32_t[]){ run }, 1);
	s_disc = jank_path_stack(&p, (uint32_t[]){ run, disc }, 2);
	s_rates = jank_path_stack(&p, (uint32_t[]){ rates }, 1);
	p.segs = calloc(6, sizeof(*p.segs));
	assert_non_null(p.segs);
	p.n = p.cap = 6;
	p.tid = 10;
	p.end = 10000;
	for (size_t i = 0; i < 6; i++) {
		p.segs[i].tid = segs[i].tid;
		p.segs[i].state = (uint8_t)segs[i].st;
		p.segs[i].begin = segs[i].begin;
		p.segs[i].end = segs[i].end;
		p.segs[i].stack = *segs[i].stack;
		strcpy(p.segs[i].comm, segs[i].tid == 10 ? "ui" : "holder");
	}
	jank_breakdown_init(&bd);
	jank_profile_init(&pf);
	assert_int_equal(jank_breakdown_compute(&p, &bd), 0);
	assert_int_equal(jank_profile_build(&pf, &p, &bd, g, 10), 0);
	assert_int_equal(pf.nfns, 3);
	/* apply_discounts: 5.5 us, 4 running; on ui, the action's own thread. */
	assert_int_equal(pf.fns[0].key.kind, JANK_COMP_FUNCTION);
	assert_int_equal(pf.fns[0].frame, disc);
	assert_int_equal(pf.fns[0].ns, 5500);
	assert_int_equal(pf.fns[0].fn_state, JANK_STATE_RUNNING);
	assert_string_equal(pf.fns[0].thread, "ui");
	assert_int_equal(jank_comp_identity(pf.fns[0].process, pf.fns[0].thread), pf.self);
	/* refresh_rates: 3 us preempted, on app/holder. */
	assert_int_equal(pf.fns[1].frame, rates);
	assert_int_equal(pf.fns[1].ns, 3000);
	assert_int_equal(pf.fns[1].fn_state, JANK_STATE_PREEMPTED);
	assert_int_equal(pf.fns[1].tid, 30);
	assert_string_equal(pf.fns[1].process, "app");
	assert_string_equal(pf.fns[1].thread, "holder");
	assert_int_equal(pf.fns[2].ns, 1500);
	/* The key is the address in the process: the same in another path. */
	assert_true(jank_comp_key_equal(
		&pf.fns[0].key,
		&(struct jank_comp_key){ JANK_COMP_FUNCTION, 0,
					 jank_comp_function_identity(&(struct jank_frame){
						 .addr = DISC, .pid = 10 }) }));
	assert_int_equal(jank_profile_ns(&pf, &pf.fns[1].key), 3000);

	/* Named from the path: its frames' names, "" for a frame it does not hold. */
	jank_path_name_frames(&p, NULL, NULL);
	memset(&ss, 0, sizeof(ss));
	ss.n = 3;
	ss.items[0].comp = pf.fns[0];
	ss.items[1].comp = pf.fns[1];
	ss.items[1].comp.frame = disc; /* another function's frame */
	ss.items[2].comp = pf.fns[2];
	ss.items[2].comp.frame = 99;
	jank_suspects_name(&ss, &p);
	assert_string_equal(ss.items[0].function, "0x3000");
	assert_string_equal(ss.items[1].function, "");
	assert_string_equal(ss.items[2].function, "");
	jank_profile_fini(&pf);
	jank_breakdown_fini(&bd);
	jank_path_fini(&p);
	jank_graph_free(g);
}

static void names(void **state)
{
	(void)state;
	assert_string_equal(jank_comp_kind_name(JANK_COMP_HOP), "hop");
	assert_true(jank_state_is_hop(JANK_STATE_BLOCK_DEVICE));
	assert_false(jank_state_is_hop(JANK_STATE_PREEMPTED));
	/* The separator keeps "ab"+"c" apart from "a"+"bc". */
	assert_true(jank_comp_identity("ab", "c") != jank_comp_identity("a", "bc"));
	assert_true(jank_comp_identity("", "db") == jank_comp_identity(NULL, "db"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cold_start),
		cmocka_unit_test(decay),
		cmocka_unit_test(bounded),
		cmocka_unit_test(ranking),
		cmocka_unit_test(build),
		cmocka_unit_test(names),
		cmocka_unit_test(function_only_in_slow),
		cmocka_unit_test(increase_score),
		cmocka_unit_test(function_precedence),
		cmocka_unit_test(functions_bounded),
		cmocka_unit_test(build_functions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
