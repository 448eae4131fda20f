/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>
#include "workload.h"

struct rng {
	uint64_t s;
};

static uint64_t next(struct rng *r)
{
	/* xorshift64*: small, fast, deterministic. */
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 2685821657736338717ull;
}

static unsigned below(struct rng *r, unsigned n)
{
	return (unsigned)(next(r) % n);
}

enum tstate {
	T_BLOCKED,
	T_RUNNABLE,
	T_RUNNING,
	T_GONE
};

struct thr {
	int tid;
	enum tstate st;
	int open_id; /* -1: no action open */
};

int64_t workload_run(struct scn *s, const struct workload_params *p)
{
	struct rng r = { p->seed ? p->seed : 1 };
	unsigned nthr = p->threads + p->short_lived;
	struct thr *t = calloc(nthr, sizeof(*t));
	int *cur = calloc(p->cpus, sizeof(*cur)); /* index into t, or -1 */
	int64_t ts = 1000;
	int next_action = 0;
	unsigned live = p->threads, forked = 0;

	for (unsigned i = 0; i < nthr; i++) {
		t[i].tid = 100 + (int)i;
		t[i].st = i < p->threads ? T_RUNNABLE : T_GONE;
		t[i].open_id = -1;
	}
	for (unsigned c = 0; c < p->cpus; c++)
		cur[c] = -1;
	for (unsigned n = 0; n < p->events; n++) {
		int c = (int)below(&r, p->cpus);
		int ci = cur[c];
		unsigned dice = below(&r, 100);

		ts += 1 + below(&r, 200);
		if (p->discard_every && n % p->discard_every == p->discard_every - 1)
			jank_engine_discarded_range(s->e, c, ts,
						    ts + (int64_t)below(&r, p->discard_span + 1),
						    1 + below(&r, 50));
		if (ci < 0 || dice < 25) {
			/* Switch: the current thread blocks or is preempted; pick a runnable one.
			 */
			int prev = ci >= 0 ? t[ci].tid : 0;
			int state = below(&r, 2);
			unsigned start = below(&r, nthr);
			int pick = -1;

			for (unsigned k = 0; k < nthr && pick < 0; k++) {
				unsigned i = (start + k) % nthr;

				if (t[i].st == T_RUNNABLE)
					pick = (int)i;
			}
			if (ci >= 0)
				t[ci].st = state ? T_BLOCKED : T_RUNNABLE;
			if (pick >= 0)
				t[pick].st = T_RUNNING;
			scn_switch(s, ts, c, prev, state, pick >= 0 ? t[pick].tid : 0);
			cur[c] = pick;
		} else if (dice < 55) {
			/* Wake a blocked thread, from thread context or from an interrupt. */
			unsigned start = below(&r, nthr);
			unsigned how = below(&r, 4);

			for (unsigned k = 0; k < nthr; k++) {
				unsigned i = (start + k) % nthr;

				if (t[i].st != T_BLOCKED)
					continue;
				if (how == 1)
					scn_softirq(s, ts, c, (int)below(&r, 10), true);
				else if (how == 2)
					scn_hrtimer(s, ts, c, true);
				scn_wake(s, ts, c, t[i].tid);
				if (how == 1)
					scn_softirq(s, ts, c, 0, false);
				else if (how == 2)
					scn_hrtimer(s, ts, c, false);
				t[i].st = T_RUNNABLE;
				break;
			}
		} else if (dice < 80) {
			/* The running thread begins or ends an action, or hands it over. */
			struct thr *me = &t[ci];

			if (me->open_id < 0) {
				me->open_id = next_action++;
				scn_ust(s, ts, c, me->tid, "jank:action_begin", S("name", "frame"),
					I("id", me->open_id));
			} else {
				int end_id = me->open_id;

				me->open_id = -1;
				if (below(&r, 4) == 0) {
					/* Handed over: another thread ends it later. */
					unsigned o = below(&r, p->threads);

					if (t[o].open_id < 0 && &t[o] != me) {
						t[o].open_id = end_id;
						continue;
					}
				}
				scn_ust(s, ts, c, me->tid, "jank:action_end", S("name", "frame"),
					I("id", end_id));
			}
		} else if (dice < 85 && forked < p->short_lived) {
			/* Fork a short-lived thread; free an old one. */
			struct thr *child = &t[p->threads + forked];

			scn_fork(s, ts, c, t[ci].tid, child->tid);
			scn_wakeup_new(s, ts, c, child->tid);
			child->st = T_RUNNABLE;
			forked++;
			live++;
			if (forked > 64) {
				struct thr *old = &t[p->threads + forked - 65];

				if (old->st == T_BLOCKED || old->st == T_RUNNABLE) {
					scn_kernel(s, ts, c, "sched_process_exit", S("comm", "x"),
						   I("tid", old->tid));
					scn_kernel(s, ts, c, "sched_process_free", S("comm", "x"),
						   I("tid", old->tid));
					old->st = T_GONE;
					live--;
				}
			}
		} else {
			/* Plain syscall noise. */
			scn_kernel(s, ts, c, "syscall_entry_read", I("fd", 3));
		}
	}
	free(t);
	free(cur);
	return ts;
}
