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
		struct jank_worker *w = jank_graph_get(g, threads[i].tid, 0);

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
		cmocka_unit_test(cold_start), cmocka_unit_test(decay), cmocka_unit_test(bounded),
		cmocka_unit_test(ranking),    cmocka_unit_test(build), cmocka_unit_test(names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
