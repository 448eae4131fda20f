/* SPDX-License-Identifier: MIT */
/*
 * The engine's memory budget and garbage collection in small steps (the
 * horizon, the budget's forced window, expiry of open actions and pending
 * flows): see engine.c's head.
 */
#include <stdlib.h>
#include "engine-int.h"

/* Open actions and pending flows, and the spans of open actions, which only their end frees. */
static uint64_t open_bytes(const struct jank_engine *e)
{
	if (!e->actions)
		return 0;
	return jank_action_table_bytes(e->actions) + jank_action_table_bytes(e->pending) +
	       jank_graph_open_span_bytes(e->graph);
}

/* The oldest open action or pending flow, and its table. */
static struct jank_action *oldest_open(const struct jank_engine *e, struct jank_action_table **t)
{
	struct jank_action *a = e->actions ? jank_action_oldest(e->actions) : NULL;
	struct jank_action *f = e->pending ? jank_action_oldest(e->pending) : NULL;

	if (f && (!a || f->begin < a->begin)) {
		*t = e->pending;
		return f;
	}
	*t = e->actions;
	return a;
}

/* Open actions and pending flows alone take half the memory budget: drop the oldest. */
static void evict_oldest(struct jank_engine *e)
{
	struct jank_action_table *t;
	struct jank_action *a = oldest_open(e, &t);

	if (a && t == e->pending) {
		e->stats.flows_evicted++;
		jank_action_close(t, a);
	} else if (a) {
		e->rules[a->rule].stats.evicted++;
		jank_action_close(t, a);
		e->stats.actions_evicted++;
	}
}

/* Pending flows expire as open actions do. */
static void check_flows(struct jank_engine *e, int64_t now)
{
	if (e->cfg.action_timeout_ns <= 0)
		return;
	for (uint32_t f = 0; f < e->nflows; f++) {
		struct jank_action *a, *next;

		for (a = jank_action_first(e->pending, f); a; a = next) {
			next = a->next;
			if (now - a->begin <= e->cfg.action_timeout_ns)
				break; /* the rest are younger */
			jank_action_close(e->pending, a);
			e->stats.flows_expired++;
		}
	}
}

/* Expire actions past the timeout; report overdue ones once. */
static void check_actions(struct jank_engine *e, int64_t now)
{
	for (uint32_t r = 0; r < e->nrules; r++) {
		struct rule_state *rs = &e->rules[r];
		struct jank_action *a, *next;
		int64_t threshold = jank_threshold_current(&rs->rule.threshold, &rs->hist);

		for (a = jank_action_first(e->actions, r); a; a = next) {
			next = a->next;
			if (e->cfg.action_timeout_ns > 0 &&
			    now - a->begin > e->cfg.action_timeout_ns) {
				jank_action_close(e->actions, a);
				rs->stats.expired++;
				e->stats.actions_expired++;
				continue;
			}
			if (e->cfg.overdue_grace_ns <= 0 || threshold <= 0 ||
			    now - a->begin <= threshold + e->cfg.overdue_grace_ns)
				break; /* begin order: the rest are younger */
			if (a->overdue_reported)
				continue;
			a->overdue_reported = true;
			/*
			 * Events were lost while it was open: its end may be among
			 * them. An overdue report would likely be false; count it.
			 */
			if (a->begin <= e->loss_ts) {
				e->stats.overdue_unsure++;
				continue;
			}
			rs->stats.overdue++;
			e->stats.overdue++;
			engine_report(e, JANK_VERDICT_OVERDUE, r, a, a->tid, a->pid, a->comm, now,
				      threshold, true,
				      engine_analyse(e, a->tid, a->serial, a->begin, now));
		}
	}
}

/*
 * Stacks no thread refers to any more go (graph.c), when the live ones
 * doubled or pushes were refused since the last time; a collection costs
 * O(stacks), so, refused pushes aside, it waits for as many events as there
 * are live stacks: O(1) per event in all.
 */
static void collect_stacks(struct jank_engine *e)
{
	const struct jank_stacks *t = jank_graph_stacks_const(e->graph);
	bool refused = t->full + t->refused_share > t->refused_before;

	if (!jank_stacks_want_collect(t))
		return;
	if (refused && t->live < t->collect_at &&
	    e->stats.events - e->stacks_collected_at < (uint64_t)t->live + GC_EVERY)
		return;
	e->stacks_collected_at = e->stats.events;
	jank_graph_collect_stacks(e->graph, true);
}

static void collect(struct jank_engine *e)
{
	int64_t now = e->stats.now, horizon, base;
	size_t threads, budget;
	uint64_t bytes;
	bool sweep;

	if (!e->cfg.gc)
		return;
	horizon = now - e->cfg.retention_ns;
	if (!e->forced) {
		struct jank_action_table *t;
		const struct jank_action *a = oldest_open(e, &t);

		/* A pending flow keeps its vertex as an open action keeps its begin. */
		if (a && a->begin < horizon)
			horizon = a->begin;
	}
	if (horizon > e->stats.horizon)
		e->stats.horizon = horizon;
	/* Keep pace with the threads that appear: visit twice as many as were added. */
	threads = jank_graph_thread_count(e->graph);
	budget = e->forced ? GC_BUDGET_PRESSURE : GC_BUDGET;
	if (threads > e->gc_threads)
		budget += 2 * (threads - e->gc_threads);
	jank_graph_gc_step(e->graph, e->stats.horizon, budget);
	e->gc_threads = jank_graph_thread_count(e->graph);
	jank_discards_gc(&e->discards, e->stats.horizon);
	collect_stacks(e);

	/*
	 * Over budget: halve the kept window, whatever is open, and sweep every
	 * thread, until the graph fits (a few rounds: a ring shrinks once it is a
	 * quarter full). Open actions alone over half the budget: expire the
	 * oldest. When a sweep found nothing left to free (live threads alone are
	 * over budget), sweep again only after memory grew (check_at).
	 */
	bytes = engine_memory_bytes(e);
	sweep = bytes > e->cfg.memory_limit && bytes > e->check_at;
	if (sweep) {
		e->forced = true;
		e->stats.budget_forced++;
	}
	for (int round = 0; sweep && bytes > e->cfg.memory_limit && round < BUDGET_ROUNDS;
	     round++) {
		uint64_t before = bytes;

		base = e->stats.horizon > e->first_ts ? e->stats.horizon : e->first_ts;
		if (base < now)
			e->stats.horizon = base + (now - base + 1) / 2;
		jank_graph_gc_step(e->graph, e->stats.horizon, jank_graph_thread_count(e->graph));
		while (open_bytes(e) > e->cfg.memory_limit / 2 &&
		       jank_action_count(e->actions) + jank_action_count(e->pending) > 0)
			evict_oldest(e);
		bytes = engine_memory_bytes(e);
		if (bytes >= before && e->stats.horizon >= now)
			break; /* what is left is current state: nothing older to free */
	}
	e->gc_threads = jank_graph_thread_count(e->graph);
	bytes = engine_memory_bytes(e);
	if (bytes < e->cfg.memory_limit / 4 * 3)
		e->forced = false;
	/* Still over budget after a sweep (live threads alone): sweep again after some growth. */
	if (bytes <= e->cfg.memory_limit)
		e->check_at = e->cfg.memory_limit;
	else if (sweep)
		e->check_at = bytes + e->cfg.memory_limit / 32;
}

void engine_maintain(struct jank_engine *e)
{
	engine_note_peak(e);
	e->since_gc = 0;
	check_actions(e, e->stats.now);
	check_flows(e, e->stats.now);
	collect(e);
	engine_note_peak(e);
}
