/* SPDX-License-Identifier: MIT */
/*
 * bench-critpath: the cost of one flagged action's critical path (path and
 * breakdown, as the engine computes them for a report), against the length
 * of the action and the number of threads on its path.
 *
 * Each case builds a graph through the engine's input protocol (classes
 * resolved once, events filled field by field, as io/trace-decode.c does):
 * thread T0 runs an action of length L and hands work to T1, which hands it
 * to T2, ..., T(K-1), which answers back down the chain: the path of T0 over
 * the action visits the K threads. Every running thread is preempted by a
 * noise thread every 100 us for 10 us, so the path has about L / 50 us
 * segments. Prints a Markdown table of microseconds per action (median of
 * repeated computations):
 *
 *   path + breakdown     jank_critpath_compute and jank_breakdown_compute
 *   slow action          what the engine does at the end of an action over
 *                        its threshold, timed around jank_engine_process():
 *                        with baselines off (path and breakdown), and on
 *                        (also the profile, who had the CPU, the suspects)
 *   normal action learnt path, breakdown, profile, jank_baseline_learn
 *
 * The rule's baseline first learns 12 short normal actions of T0, so that
 * the slow ones are ranked against a baseline.
 *
 * Usage: bench-critpath [--quick]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "engine.h"

#define US	      1000LL
#define MS	      1000000LL
#define PREEMPT_EVERY (100 * US)
#define PREEMPT_FOR   (10 * US)
#define NOISE_TID     1000000
#define SLOW_ACTIONS  101 /* open together, ended one by one: one sample each */
#define WARM_ACTIONS  12

struct cls {
	uint32_t id;
	const char *const *fields;
	unsigned nfields;
};

struct feed {
	struct jank_engine *e;
	struct cls sw, waking, wakeup, begin, end;
	char comm[2][16];
};

static void resolve_in(struct feed *f, struct cls *c, enum jank_domain d, const char *name)
{
	c->id = jank_engine_resolve_class(f->e, d, name, &c->fields, &c->nfields);
	if (c->id == JANK_CLASS_INVALID) {
		fprintf(stderr, "bench-critpath: cannot resolve %s\n", name);
		exit(1);
	}
}

static void resolve(struct feed *f, struct cls *c, const char *name)
{
	resolve_in(f, c, JANK_DOMAIN_KERNEL, name);
}

/* Fill the event's fields in the order the engine asked for, by name. */
static void set(struct jank_event *ev, const struct cls *c, const char *name, int64_t i,
		const char *s)
{
	for (unsigned k = 0; k < c->nfields; k++) {
		if (strcmp(c->fields[k], name) != 0)
			continue;
		if (s) {
			ev->fields[k].type = JANK_VALUE_STR;
			ev->fields[k].s = s;
		} else {
			ev->fields[k].type = JANK_VALUE_INT;
			ev->fields[k].i = i;
		}
	}
}

static void begin(struct jank_event *ev, const struct cls *c, int64_t ts, int cpu)
{
	memset(ev, 0, sizeof(*ev));
	ev->ts = ts;
	ev->cpu = cpu;
	ev->tid = -1;
	ev->pid = -1;
	ev->class_id = c->id;
	ev->nfields = c->nfields;
}

static const char *comm(struct feed *f, int tid, int k)
{
	snprintf(f->comm[k], sizeof(f->comm[k]), tid >= NOISE_TID ? "noise%d" : "t%d",
		 tid % NOISE_TID);
	return f->comm[k];
}

static void sched_switch(struct feed *f, int64_t ts, int cpu, int prev, int state, int next)
{
	struct jank_event ev;

	begin(&ev, &f->sw, ts, cpu);
	set(&ev, &f->sw, "prev_comm", 0, comm(f, prev, 0));
	set(&ev, &f->sw, "prev_tid", prev, NULL);
	set(&ev, &f->sw, "prev_state", state, NULL);
	set(&ev, &f->sw, "next_comm", 0, comm(f, next, 1));
	set(&ev, &f->sw, "next_tid", next, NULL);
	jank_engine_process(f->e, &ev);
}

static void wake(struct feed *f, int64_t ts, int cpu, int tid, int target)
{
	const struct cls *cs[2] = { &f->waking, &f->wakeup };

	for (int k = 0; k < 2; k++) {
		struct jank_event ev;

		begin(&ev, cs[k], ts, cpu);
		set(&ev, cs[k], "comm", 0, comm(f, tid, 0));
		set(&ev, cs[k], "tid", tid, NULL);
		set(&ev, cs[k], "target_cpu", target, NULL);
		jank_engine_process(f->e, &ev);
	}
}

/* An action of T0 (tid 1) begins or ends (key: the thread, and `id`). */
static void action(struct feed *f, const struct cls *c, int64_t ts, int id)
{
	struct jank_event ev;

	begin(&ev, c, ts, 0);
	ev.tid = 1;
	set(&ev, c, "id", id, NULL);
	jank_engine_process(f->e, &ev);
}

/*
 * Thread `tid` runs on `cpu` over [from, to): its noise thread preempts it
 * every PREEMPT_EVERY for PREEMPT_FOR. Events stay in time order because
 * only one thread of the chain runs at a time.
 */
static void run(struct feed *f, int cpu, int tid, int64_t from, int64_t to)
{
	for (int64_t t = from + PREEMPT_EVERY; t + PREEMPT_FOR < to; t += PREEMPT_EVERY) {
		sched_switch(f, t, cpu, tid, 0, NOISE_TID + tid);
		sched_switch(f, t + PREEMPT_FOR, cpu, NOISE_TID + tid, 1, tid);
	}
}

static void ignore(const struct jank_verdict *r, void *data)
{
	(void)r;
	(void)data;
}

/* An engine with one rule on T0's actions, over half the case's length. */
static void engine(struct feed *f, int64_t len, bool baseline)
{
	struct jank_engine_config cfg;
	struct jank_rule r;

	jank_engine_config_defaults(&cfg);
	cfg.gc = false;
	cfg.baseline = baseline;
	memset(f, 0, sizeof(*f));
	f->e = jank_engine_new(&cfg);
	jank_rule_init(&r);
	r.name = "bench";
	r.begin_event = "jank:action_begin";
	r.end_event = "jank:action_end";
	r.threshold.ns = len / 2;
	if (!f->e || jank_rule_set_keys(&r, "tid, id") < 0 || jank_engine_add_rule(f->e, &r) < 0) {
		fprintf(stderr, "bench-critpath: out of memory\n");
		exit(1);
	}
	for (unsigned k = 0; k < r.nkeys; k++)
		free(r.keys[k]);
	jank_engine_set_verdict_cb(f->e, ignore, NULL);
	jank_engine_set_layout(f->e, 2, 13);
	resolve(f, &f->sw, "sched_switch");
	resolve(f, &f->waking, "sched_waking");
	resolve(f, &f->wakeup, "sched_wakeup");
	resolve_in(f, &f->begin, JANK_DOMAIN_UST, "jank:action_begin");
	resolve_in(f, &f->end, JANK_DOMAIN_UST, "jank:action_end");
	/* The baseline: short normal actions, 1.1 ms apart (one is learnt per ms). */
	for (int i = 0; i < WARM_ACTIONS; i++) {
		action(f, &f->begin, 1100 * US * i, i);
		action(f, &f->end, 1100 * US * i + 1 * US, i);
	}
}

/*
 * The graph of one case; T0 is tid 1, its action is [b, e]. SLOW_ACTIONS of
 * T0's actions begin at b; the caller ends them at e.
 */
static struct feed build(int64_t len, int nthreads, bool baseline, int64_t *b, int64_t *e)
{
	struct feed f;
	int64_t hop = len / (2 * nthreads), t;

	engine(&f, len, baseline);
	/* Every thread of the chain has run once, and waits; T0 runs. */
	t = 20 * MS;
	for (int i = nthreads - 1; i >= 0; i--) {
		sched_switch(&f, t, i, 0, 0, i + 1);
		if (i)
			sched_switch(&f, t + 1, i, i + 1, 1, 0);
		t += 2;
	}
	*b = t = 21 * MS;
	*e = *b + 2 * hop * nthreads;
	for (int k = 0; k < SLOW_ACTIONS; k++)
		action(&f, &f.begin, t, WARM_ACTIONS + k);
	/* Down the chain: Ti runs one hop, wakes Ti+1 and waits for it. */
	for (int i = 0; i < nthreads; i++) {
		run(&f, i, i + 1, t, t + hop);
		t += hop;
		if (i + 1 < nthreads) {
			wake(&f, t, i, i + 2, i + 1);
			sched_switch(&f, t, i, i + 1, 1, 0);
			sched_switch(&f, t + 1, i + 1, 0, 0, i + 2);
		}
	}
	/* Back up: T(K-1) runs a second hop and answers; each Ti answers Ti-1. */
	for (int i = nthreads - 1; i >= 0; i--) {
		run(&f, i, i + 1, t, t + hop);
		t += hop;
		if (i > 0) {
			wake(&f, t, i, i, i - 1);
			sched_switch(&f, t, i, i + 1, 1, 0);
			sched_switch(&f, t + 1, i - 1, 0, 0, i);
		}
	}
	return f;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	return v[n / 2];
}

struct costs {
	double path, slow_off, slow_on, learn;
	size_t nsegs;
	int ntids;
};

/* What is timed: a path and its breakdown, and, to learn, the profile and the baseline. */
struct work {
	const struct jank_graph *g;
	int64_t b, e;
	struct jank_path p;
	struct jank_breakdown bd;
	struct jank_profile pf;
	struct jank_baseline base;
	bool learn;
};

static void work_run(struct work *w)
{
	if (jank_critpath_compute(w->g, 1, w->b, w->e, &w->p) < 0 ||
	    jank_breakdown_compute(&w->p, &w->bd) < 0 ||
	    (w->learn && jank_profile_build(&w->pf, &w->p, &w->bd, w->g, 1) < 0)) {
		fprintf(stderr, "bench-critpath: critical path failed\n");
		exit(1);
	}
	if (w->learn)
		jank_baseline_learn(&w->base, &w->pf);
}

/* Repeat until 20 ms have passed (at least 5, at most 101 samples): the median. */
static double timed(struct work *w)
{
	double samples[101], t0, t1;
	int reps = 0;

	for (t0 = now_us(); reps < 101 && (reps < 5 || now_us() - t0 < 20000); reps++) {
		t1 = now_us();
		work_run(w);
		samples[reps] = now_us() - t1;
	}
	return median(samples, reps);
}

/* The median microseconds of ending one slow action (SLOW_ACTIONS samples). */
static double slow_action(int64_t len, int nthreads, bool baseline)
{
	double samples[SLOW_ACTIONS], t1;
	int64_t b, e;
	struct feed f = build(len, nthreads, baseline, &b, &e);

	for (int k = 0; k < SLOW_ACTIONS; k++) {
		t1 = now_us();
		action(&f, &f.end, e, WARM_ACTIONS + k);
		samples[k] = now_us() - t1;
	}
	jank_engine_free(f.e);
	return median(samples, SLOW_ACTIONS);
}

static void measure(int64_t len, int nthreads, struct costs *c)
{
	struct work w = { 0 };
	struct feed f = build(len, nthreads, false, &w.b, &w.e);

	w.g = jank_engine_graph(f.e);
	jank_baseline_init(&w.base);
	c->path = timed(&w);
	w.learn = true;
	c->learn = timed(&w);
	c->nsegs = w.p.n;
	c->ntids = 0;
	for (size_t i = 0; i < w.bd.n; i++) {
		size_t j;

		for (j = 0; j < i && w.bd.items[j].tid != w.bd.items[i].tid; j++)
			;
		if (j == i && w.bd.items[i].tid < NOISE_TID)
			c->ntids++;
	}
	jank_profile_fini(&w.pf);
	jank_breakdown_fini(&w.bd);
	jank_path_fini(&w.p);
	jank_engine_free(f.e);
	c->slow_off = slow_action(len, nthreads, false);
	c->slow_on = slow_action(len, nthreads, true);
}

int main(int argc, char **argv)
{
	static const int64_t lens[] = { 1 * MS, 10 * MS, 100 * MS, 1000 * MS };
	static const int threads[] = { 1, 10, 100, 1000 };
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");
	size_t nlens = quick ? 3 : 4;

	printf("| action length | threads on path | segments | path + breakdown "
	       "| slow action, suspects off | slow action, with suspects | suspects' share "
	       "| normal action learnt |\n");
	printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (size_t l = 0; l < nlens; l++) {
		for (size_t k = 0; k < sizeof(threads) / sizeof(threads[0]); k++) {
			struct costs c;

			if (lens[l] / (2 * threads[k]) < 10 * US)
				continue; /* hops shorter than 10 us: not a meaningful chain */
			measure(lens[l], threads[k], &c);
			printf("| %lld ms | %d | %zu | %.1f us | %.1f us | %.1f us | %.0f%% | %.1f "
			       "us "
			       "|\n",
			       (long long)(lens[l] / MS), c.ntids, c.nsegs, c.path, c.slow_off,
			       c.slow_on, 100.0 * (c.slow_on - c.slow_off) / c.slow_on, c.learn);
			fflush(stdout);
		}
	}
	return 0;
}
