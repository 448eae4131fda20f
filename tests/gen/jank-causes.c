/* SPDX-License-Identifier: MIT */
/*
 * jank-causes: the jank-gen scripts of a workload whose slow actions each
 * have one known cause, to check that jank names it (tests/trace/test-suspects.sh).
 *
 * Usage: jank-causes [-n ACTIONS] [-s SEED] [-p PERCENT] [-w WARM] [-c CAUSE] DIR
 * writes DIR/kernel.script, DIR/ust.script and DIR/truth, one line per slow
 * action: "name=frame,id=N CAUSE" (deterministic for a seed).
 *
 * The host has 4 CPUs. An app (pid 1000) draws frames on its thread "ui"
 * (tid 1001, CPU 0). Every frame does some work and, in a random order,
 * each of the five things that can make it wait:
 *
 *   disk    it asks its thread "db" (tid 1002, CPU 1), which waits for the
 *           disk (woken from the block softirq)
 *   lock    it waits for a mutex that "worker" (tid 1003, CPU 2) holds
 *           (lttng_ust_pthread events, and the futex wait in the kernel)
 *   cpu     "hog" (pid 3000, CPU 0) preempts it
 *   timer   it sleeps (woken from an hrtimer)
 *   chain   it asks "srv" in another process (pid 2000, CPU 3) and waits
 *           for its answer while srv works
 *
 * Normally each takes 0.05 to 1 ms, and one frame in seven has a spike of
 * 1.5 to 3.5 ms in one of them: frames take 3 to 11 ms. A slow frame (after
 * the first WARM, 20 by default; PERCENT of them, 25 by default) has one
 * cause, picked at
 * random, that takes 12 to 30 ms instead: 15 to 40 ms, over the 12 ms
 * threshold of the test's rule. -c CAUSE makes every slow frame's cause
 * that one (a regression, for `jankctl compare --before`).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define US ((int64_t)1000)
#define MS ((int64_t)1000000)

#define MUTEX 0x7f00dead0000LL

enum cause {
	C_DISK,
	C_LOCK,
	C_CPU,
	C_TIMER,
	C_CHAIN,
	C_COUNT,
	C_NONE = C_COUNT
};

static const char *const cause_names[C_COUNT] = { "disk", "lock", "cpu", "timer", "chain" };

struct thread {
	int tid, pid;
	const char *comm;
};

static const struct thread UI = { 1001, 1000, "ui" }, DB = { 1002, 1000, "db" },
			   WORKER = { 1003, 1000, "worker" }, SRV = { 2001, 2000, "srv" },
			   HOG = { 3001, 3000, "hog" }, APP = { 1000, 1000, "app" },
			   SERVER = { 2000, 2000, "server" }, HOGP = { 3000, 3000, "hogd" };

struct gen {
	FILE *k, *u;
	uint64_t rng;
	int64_t t; /* now: ui runs on CPU 0 */
};

static uint64_t rnd(struct gen *g)
{
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return g->rng * 2685821657736338717ull;
}

/* Uniform in [lo, hi]. */
static int64_t between(struct gen *g, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd(g) >> 11) % (hi - lo + 1);
}

static void sw(struct gen *g, int64_t ts, int cpu, const struct thread *prev, int state,
	       const struct thread *next)
{
	char p[16], n[16];

	snprintf(p, sizeof(p), "swapper/%d", cpu);
	snprintf(n, sizeof(n), "swapper/%d", cpu);
	fprintf(g->k,
		"%" PRId64 " %d sched_switch prev_comm=\"%s\" prev_tid=%d prev_prio=20 "
		"prev_state=%d next_comm=\"%s\" next_tid=%d next_prio=20\n",
		ts, cpu, prev ? prev->comm : p, prev ? prev->tid : 0, state, next ? next->comm : n,
		next ? next->tid : 0);
}

static void wake(struct gen *g, int64_t ts, int cpu, const struct thread *w, int target)
{
	fprintf(g->k, "%" PRId64 " %d sched_waking comm=\"%s\" tid=%d prio=20 target_cpu=%d\n", ts,
		cpu, w->comm, w->tid, target);
	fprintf(g->k, "%" PRId64 " %d sched_wakeup comm=\"%s\" tid=%d prio=20 target_cpu=%d\n", ts,
		cpu, w->comm, w->tid, target);
}

/* An hrtimer on `cpu` wakes w at ts. */
static void timer_wake(struct gen *g, int64_t ts, int cpu, const struct thread *w)
{
	fprintf(g->k,
		"%" PRId64 " %d timer_hrtimer_expire_entry hrtimer=0xffff8800 now=%" PRId64
		" function=0xffffffff810a\n",
		ts, cpu, ts);
	wake(g, ts + 1 * US, cpu, w, cpu);
	fprintf(g->k, "%" PRId64 " %d timer_hrtimer_expire_exit hrtimer=0xffff8800\n", ts + 2 * US,
		cpu);
}

static void ust(struct gen *g, int64_t ts, const struct thread *th, const char *what,
		const char *fields)
{
	fprintf(g->u, "%" PRId64 " 0 %s %s vpid=%d vtid=%d procname=\"%s\"\n", ts, what, fields,
		th->pid, th->tid, th->comm);
}

static void mutex_ev(struct gen *g, int64_t ts, const struct thread *th, const char *what)
{
	char f[64];

	snprintf(f, sizeof(f), "mutex=%lld status=0 ip=4194304", MUTEX);
	ust(g, ts, th, what, f);
}

/* ui blocks, then is back on CPU 0 at `back` (its waker woke it a little before). */
static void ui_blocks(struct gen *g, int64_t ts)
{
	sw(g, ts, 0, &UI, 1, NULL);
}

static void ui_back(struct gen *g, int64_t ts)
{
	sw(g, ts, 0, NULL, 0, &UI);
	g->t = ts;
}

/* ui asks db, which waits d for the disk, then answers. */
static void disk(struct gen *g, int64_t d)
{
	int64_t t = g->t, io;

	wake(g, t, 0, &DB, 1);
	ui_blocks(g, t + 2 * US);
	sw(g, t + 10 * US, 1, NULL, 0, &DB);
	sw(g, t + 60 * US, 1, &DB, 1, NULL);
	io = t + 60 * US + d;
	fprintf(g->k, "%" PRId64 " 1 irq_softirq_entry vec=4\n", io);
	wake(g, io + 2 * US, 1, &DB, 1);
	fprintf(g->k, "%" PRId64 " 1 irq_softirq_exit vec=4\n", io + 3 * US);
	sw(g, io + 10 * US, 1, NULL, 0, &DB);
	wake(g, io + 40 * US, 1, &UI, 0);
	sw(g, io + 45 * US, 1, &DB, 1, NULL);
	ui_back(g, io + 50 * US);
}

/* worker holds the mutex for d while ui waits for it. */
static void lock(struct gen *g, int64_t d)
{
	int64_t t = g->t, rel = t + 10 * US + d;

	timer_wake(g, t, 2, &WORKER);
	sw(g, t + 3 * US, 2, NULL, 0, &WORKER);
	mutex_ev(g, t + 4 * US, &WORKER, "lttng_ust_pthread:pthread_mutex_lock_req");
	mutex_ev(g, t + 5 * US, &WORKER, "lttng_ust_pthread:pthread_mutex_lock_acq");
	mutex_ev(g, t + 10 * US, &UI, "lttng_ust_pthread:pthread_mutex_lock_req");
	ui_blocks(g, t + 12 * US);
	mutex_ev(g, rel, &WORKER, "lttng_ust_pthread:pthread_mutex_unlock");
	wake(g, rel + 1 * US, 2, &UI, 0);
	sw(g, rel + 5 * US, 2, &WORKER, 1, NULL);
	ui_back(g, rel + 8 * US);
	mutex_ev(g, rel + 9 * US, &UI, "lttng_ust_pthread:pthread_mutex_lock_acq");
	mutex_ev(g, rel + 20 * US, &UI, "lttng_ust_pthread:pthread_mutex_unlock");
	g->t = rel + 20 * US;
}

/* hog takes CPU 0 from ui for d. */
static void cpu(struct gen *g, int64_t d)
{
	int64_t t = g->t;

	timer_wake(g, t, 0, &HOG);
	sw(g, t + 3 * US, 0, &UI, 0, &HOG);
	sw(g, t + 3 * US + d, 0, &HOG, 1, &UI);
	g->t = t + 3 * US + d;
}

/* ui sleeps d. */
static void timer(struct gen *g, int64_t d)
{
	int64_t t = g->t;

	ui_blocks(g, t);
	timer_wake(g, t + d, 0, &UI);
	ui_back(g, t + d + 5 * US);
}

/* ui asks srv, in another process, which works d before it answers. */
static void chain(struct gen *g, int64_t d)
{
	int64_t t = g->t;

	wake(g, t, 0, &SRV, 3);
	ui_blocks(g, t + 2 * US);
	sw(g, t + 8 * US, 3, NULL, 0, &SRV);
	wake(g, t + 8 * US + d, 3, &UI, 0);
	sw(g, t + 8 * US + d + 5 * US, 3, &SRV, 1, NULL);
	ui_back(g, t + 8 * US + d + 10 * US);
}

static void (*const phases[C_COUNT])(struct gen *g, int64_t d) = {
	[C_DISK] = disk, [C_LOCK] = lock, [C_CPU] = cpu, [C_TIMER] = timer, [C_CHAIN] = chain,
};

/* One frame: work, and the five waits in a random order; `slow` takes 12-30 ms. */
static void frame(struct gen *g, int id, enum cause slow)
{
	int order[C_COUNT] = { 0, 1, 2, 3, 4 }, spike = -1;
	char f[48];

	/* Fisher-Yates. */
	for (int i = C_COUNT - 1; i > 0; i--) {
		int j = (int)(rnd(g) % (uint64_t)(i + 1)), x = order[i];

		order[i] = order[j];
		order[j] = x;
	}
	if (rnd(g) % 7 == 0)
		spike = (int)(rnd(g) % C_COUNT);
	timer_wake(g, g->t, 0, &UI);
	ui_back(g, g->t + 5 * US);
	snprintf(f, sizeof(f), "name=\"frame\" id=%d", id);
	ust(g, g->t + 5 * US, &UI, "jank:action_begin", f);
	g->t += 10 * US;
	for (int i = 0; i < C_COUNT; i++) {
		int64_t d = between(g, 50 * US, 1 * MS);

		if (order[i] == spike)
			d = between(g, 1500 * US, 3500 * US);
		if (order[i] == (int)slow)
			d = between(g, 12 * MS, 30 * MS);
		g->t += between(g, 200 * US, 600 * US); /* work */
		phases[order[i]](g, d);
	}
	g->t += between(g, 200 * US, 600 * US);
	ust(g, g->t, &UI, "jank:action_end", f);
	ui_blocks(g, g->t + 50 * US);
	g->t += 3 * MS;
}

static void header(struct gen *g)
{
	const struct thread *all[] = { &UI, &DB, &WORKER, &SRV, &HOG, &APP, &SERVER, &HOGP };

	fputs("@trace kernel\n@env hostname=\"causes-host\"\n@cpus 4\n", g->k);
	fputs("@trace ust\n@env hostname=\"causes-host\"\n@cpus 1\n"
	      "@context vpid vtid procname:string\n",
	      g->u);
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		fprintf(g->k,
			"%" PRId64 " 0 lttng_statedump_process_state tid=%d pid=%d name=\"%s\" "
			"status=5\n",
			g->t, all[i]->tid, all[i]->pid, all[i]->comm);
	g->t += 1 * MS;
}

static int cause_of(const char *name)
{
	for (int i = 0; i < C_COUNT; i++)
		if (!strcmp(cause_names[i], name))
			return i;
	fprintf(stderr, "jank-causes: unknown cause '%s' (disk, lock, cpu, timer, chain)\n", name);
	return -1;
}

static FILE *open_in(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	return f;
}

int main(int argc, char **argv)
{
	struct gen g = { .rng = 1, .t = 1000000000 };
	int n = 400, percent = 25, warm = 20, only = -1, c;
	FILE *truth;

	while ((c = getopt(argc, argv, "n:s:p:w:c:")) != -1) {
		if (c == 'n')
			n = atoi(optarg);
		else if (c == 's')
			g.rng = strtoull(optarg, NULL, 10) * 0x9e3779b97f4a7c15ull + 1;
		else if (c == 'p')
			percent = atoi(optarg);
		else if (c == 'w')
			warm = atoi(optarg);
		else if (c != 'c' || (only = cause_of(optarg)) < 0)
			return 2;
	}
	if (optind != argc - 1 || n <= 0 || warm < 0 || percent < 0 || percent > 100) {
		fputs("usage: jank-causes [-n ACTIONS] [-s SEED] [-p PERCENT] [-w WARM] [-c CAUSE] "
		      "DIR\n",
		      stderr);
		return 2;
	}
	g.k = open_in(argv[optind], "kernel.script");
	g.u = open_in(argv[optind], "ust.script");
	truth = open_in(argv[optind], "truth");
	header(&g);
	for (int id = 0; id < n; id++) {
		enum cause slow = C_NONE;

		if (id >= warm && rnd(&g) % 100 < (uint64_t)percent)
			slow = only >= 0 ? (enum cause)only : (enum cause)(rnd(&g) % C_COUNT);
		frame(&g, id, slow);
		if (slow != C_NONE)
			fprintf(truth, "name=frame,id=%d %s\n", id, cause_names[slow]);
	}
	if (fclose(g.k) || fclose(g.u) || fclose(truth)) {
		perror("jank-causes");
		return 1;
	}
	return 0;
}
