/* SPDX-License-Identifier: MIT */
/*
 * The system model's CPU histories read back: who had a CPU over an
 * interval (a preempted path's suspects), and on which CPU a thread was
 * switched in at an instant.
 */
#include "model.h"

/* Index of the last run at or before t in the CPU's ring, or UINT64_MAX. */
static uint64_t run_at(const struct jank_cpu *c, int64_t t)
{
	uint64_t lo = c->nruns > c->runs_cap ? c->nruns - c->runs_cap : 0, hi = c->nruns;

	if (lo == hi || c->runs[lo & (c->runs_cap - 1)].ts > t)
		return UINT64_MAX;
	/* ts(lo) <= t; ts(hi) > t or hi == nruns. */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (c->runs[mid & (c->runs_cap - 1)].ts <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static void share_add(struct jank_cpu_share *v, size_t *n, size_t max, const struct jank_cpu_run *r,
		      int64_t ns)
{
	size_t i;

	if (r->tid <= 0 || ns <= 0)
		return;
	for (i = 0; i < *n; i++)
		if (v[i].tid == r->tid)
			break;
	if (i == *n) {
		if (*n == max)
			return;
		v[(*n)++] = (struct jank_cpu_share){ r->tid, r->serial, 0 };
	}
	v[i].ns += ns;
}

bool jank_model_cpu_shares(const struct jank_model *m, int32_t cpu, int64_t a, int64_t b,
			   struct jank_cpu_share *v, size_t *n, size_t max)
{
	const struct jank_cpu *c;
	uint64_t first, i;
	bool whole = true;

	if (cpu < 0 || (uint32_t)cpu >= m->ncpus || b <= a)
		return false;
	c = &m->cpus[cpu];
	first = run_at(c, a);
	if (first == UINT64_MAX) {
		/* Older than the history: count from its oldest run within [a, b). */
		whole = false;
		first = c->nruns > c->runs_cap ? c->nruns - c->runs_cap : 0;
	}
	for (i = first; i < c->nruns; i++) {
		const struct jank_cpu_run *r = &c->runs[i & (c->runs_cap - 1)];
		int64_t from = r->ts > a ? r->ts : a, to = b;

		if (r->ts >= b)
			break;
		if (i + 1 < c->nruns && c->runs[(i + 1) & (c->runs_cap - 1)].ts < b)
			to = c->runs[(i + 1) & (c->runs_cap - 1)].ts;
		share_add(v, n, max, r, to - from);
	}
	return whole;
}

/* Whether the CPU's history has tid switched in at exactly ts. */
static bool switched_in(const struct jank_cpu *c, int32_t tid, int64_t ts)
{
	uint64_t lo = c->nruns > c->runs_cap ? c->nruns - c->runs_cap : 0;

	/* Several switches may share an instant: look back over them. */
	for (uint64_t i = run_at(c, ts); i != UINT64_MAX && i >= lo; i--) {
		const struct jank_cpu_run *r = &c->runs[i & (c->runs_cap - 1)];

		if (r->ts != ts)
			return false;
		if (r->tid == tid)
			return true;
		if (i == 0)
			break;
	}
	return false;
}

int32_t jank_model_switch_cpu(const struct jank_model *m, int32_t tid, int64_t ts, int32_t cpu,
			      bool others)
{
	if (cpu >= 0 && (uint32_t)cpu < m->ncpus && switched_in(&m->cpus[cpu], tid, ts))
		return cpu;
	for (uint32_t i = 0; others && i < m->ncpus; i++)
		if ((int32_t)i != cpu && switched_in(&m->cpus[i], tid, ts))
			return (int32_t)i;
	return -1;
}
