/* SPDX-License-Identifier: MIT */
/*
 * bench-critpath: the cost of one flagged action's critical path (path and
 * breakdown, as the engine computes them for a report), against the length
 * of the action and the number of threads on its path.
 *
 * Each case builds a graph through the engine's input protocol (classes
 * resolved once, events filled field by field, as io/trace-reader.c does):
 * thread T0 runs an action of length L and hands work to T1, which hands it
 * to T2, ..., T(K-1), which answers back down the chain: the path of T0 over
 * the action visits the K threads. Every running thread is preempted by a
 * noise thread every 100 us for 10 us, so the path has about L / 50 us
 * segments. Prints a Markdown table of microseconds per action (median of
 * repeated computations).
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

struct cls {
	uint32_t id;
	const char *const *fields;
	unsigned nfields;
};

struct feed {
	struct jank_engine *e;
	struct cls sw, waking, wakeup;
	char comm[2][16];
};

static void resolve(struct feed *f, struct cls *c, const char *name)
{
	c->id = jank_engine_resolve_class(f->e, JANK_DOMAIN_KERNEL, name, &c->fields, &c->nfields);
	if (c->id == JANK_CLASS_INVALID) {
		fprintf(stderr, "bench-critpath: cannot resolve %s\n", name);
		exit(1);
	}
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

/* The graph of one case; T0 is tid 1, its action is [b, e]. */
static struct jank_engine *build(int64_t len, int nthreads, int64_t *b, int64_t *e)
{
	struct jank_engine_config cfg;
	struct feed f;
	int64_t hop = len / (2 * nthreads), t;

	jank_engine_config_defaults(&cfg);
	cfg.gc = false;
	memset(&f, 0, sizeof(f));
	f.e = jank_engine_new(&cfg);
	if (!f.e) {
		fprintf(stderr, "bench-critpath: out of memory\n");
		exit(1);
	}
	jank_engine_set_layout(f.e, 2, 13);
	resolve(&f, &f.sw, "sched_switch");
	resolve(&f, &f.waking, "sched_waking");
	resolve(&f, &f.wakeup, "sched_wakeup");
	/* Every thread of the chain has run once, and waits; T0 runs. */
	t = 1 * MS;
	for (int i = nthreads - 1; i >= 0; i--) {
		sched_switch(&f, t, i, 0, 0, i + 1);
		if (i)
			sched_switch(&f, t + 1, i, i + 1, 1, 0);
		t += 2;
	}
	*b = t = 2 * MS;
	*e = *b + 2 * hop * nthreads;
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
	return f.e;
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

/* Median microseconds of path + breakdown, and the path's segments and threads. */
static double measure(int64_t len, int nthreads, size_t *nsegs, int *ntids)
{
	int64_t b, e;
	struct jank_engine *eng = build(len, nthreads, &b, &e);
	const struct jank_graph *g = jank_engine_graph(eng);
	struct jank_breakdown bd;
	struct jank_path p;
	double samples[101], t0, t1;
	int reps = 0;

	jank_path_init(&p);
	jank_breakdown_init(&bd);
	/* Repeat until 20 ms have passed (at least 5, at most 101 samples). */
	for (t0 = now_us(); reps < 101 && (reps < 5 || now_us() - t0 < 20000); reps++) {
		t1 = now_us();
		if (jank_critpath_compute(g, 1, b, e, &p) < 0 ||
		    jank_breakdown_compute(&p, &bd) < 0) {
			fprintf(stderr, "bench-critpath: critical path failed\n");
			exit(1);
		}
		samples[reps] = now_us() - t1;
	}
	qsort(samples, (size_t)reps, sizeof(samples[0]), cmp_double);
	*nsegs = p.n;
	*ntids = 0;
	for (size_t i = 0; i < bd.n; i++) {
		size_t j;

		for (j = 0; j < i && bd.items[j].tid != bd.items[i].tid; j++)
			;
		if (j == i && bd.items[i].tid < NOISE_TID)
			(*ntids)++;
	}
	jank_breakdown_fini(&bd);
	jank_path_fini(&p);
	jank_engine_free(eng);
	return samples[reps / 2];
}

int main(int argc, char **argv)
{
	static const int64_t lens[] = { 1 * MS, 10 * MS, 100 * MS, 1000 * MS };
	static const int threads[] = { 1, 10, 100, 1000 };
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");
	size_t nlens = quick ? 3 : 4;

	printf("| action length | threads on path | segments | path + breakdown |\n");
	printf("|---:|---:|---:|---:|\n");
	for (size_t l = 0; l < nlens; l++) {
		for (size_t k = 0; k < sizeof(threads) / sizeof(threads[0]); k++) {
			size_t nsegs;
			int ntids;
			double us;

			if (lens[l] / (2 * threads[k]) < 10 * US)
				continue; /* hops shorter than 10 us: not a meaningful chain */
			us = measure(lens[l], threads[k], &nsegs, &ntids);
			printf("| %lld ms | %d | %zu | %.1f us |\n", (long long)(lens[l] / MS),
			       ntids, nsegs, us);
			fflush(stdout);
		}
	}
	return 0;
}
