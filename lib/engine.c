/* SPDX-License-Identifier: MIT */
/*
 * The engine: resolves event classes once, feeds the system model and the
 * action rules, computes critical paths for janks, and runs garbage
 * collection in small steps.
 *
 * Garbage collection keeps every vertex newer than the horizon:
 *
 *     horizon = min(begin of the oldest open action, now - retention)
 *
 * so the path of any action that ends inside the retention window is the
 * same with GC on or off. When graph and open actions together exceed the
 * memory budget, the horizon moves forward regardless of open actions
 * (their paths then say `unknown` where the graph was freed, and are counted
 * as truncated), and the oldest open actions expire if they alone are too
 * many. GC runs every GC_EVERY events and visits GC_BUDGET threads per step
 * (plus twice the threads added since the last step, so that it keeps pace
 * with fork storms), so no pass stops the world; only over budget does it
 * sweep every thread, halving the window until the graph fits. Memory is
 * checked every 4 events (O(1)): a budget crossed runs a step at once, so
 * memory exceeds the budget by at most what 4 events add (threads, actions,
 * or the doubling of a few rings or tables). The cadence is counted in
 * events, not in wall time, so a given event stream always gives the same
 * result.
 *
 * Baselines (baseline.h): a normal action, at most one per rule and
 * JANK_BASELINE_GAP_NS, costs its path, breakdown and profile, which its
 * rule's baseline learns; an action over its threshold (completed, its
 * path whole) first teaches the baseline which functions are on slow paths,
 * then gets its suspects, and who had the CPU while its path was preempted
 * (the model's CPU histories).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine-int.h"

static const char *const jank_verdict_kind_names[] = {
	[JANK_VERDICT_COMPLETED] = "completed",
	[JANK_VERDICT_OVERDUE] = "overdue",
};

JANK_STRTABLE_DEFINE(jank_verdict_kind, enum jank_verdict_kind, "?")

/* Interned stacks take at most an eighth of the memory budget (about 48 bytes each). */
static void set_stack_limit(struct jank_engine *e)
{
	uint64_t n = e->cfg.memory_limit / 8 / 48;

	if (n < 1024)
		n = 1024;
	if (n > (1u << 24))
		n = 1u << 24;
	jank_graph_stacks(e->graph)->max_nodes = (uint32_t)n;
}

void jank_engine_config_defaults(struct jank_engine_config *c)
{
	memset(c, 0, sizeof(*c));
	c->retention_ns = 2000000000LL;
	c->memory_limit = 256ull << 20;
	c->action_timeout_ns = 60000000000LL;
	c->overdue_grace_ns = 0;
	c->gc = true;
	c->report_all = false;
	c->baseline = true;
}

struct jank_engine *jank_engine_new(const struct jank_engine_config *c)
{
	struct jank_engine *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	if (c)
		e->cfg = *c;
	else
		jank_engine_config_defaults(&e->cfg);
	e->graph = jank_graph_new();
	if (!e->graph) {
		free(e);
		return NULL;
	}
	if (jank_model_init(&e->model, e->graph, &e->layout) < 0) {
		jank_model_fini(&e->model);
		jank_graph_free(e->graph);
		free(e);
		return NULL;
	}
	jank_path_init(&e->path);
	jank_breakdown_init(&e->breakdown);
	jank_profile_init(&e->profile);
	e->stats.horizon = INT64_MIN;
	e->loss_ts = INT64_MIN;
	jank_discards_init(&e->discards);
	e->stats.now = INT64_MIN;
	e->check_at = e->cfg.memory_limit;
	set_stack_limit(e);
	return e;
}

void jank_engine_free(struct jank_engine *e)
{
	if (!e)
		return;
	engine_free_rules(e->rules, e->nrules);
	engine_free_flows(e->flows, e->nflows);
	engine_forget_classes(e);
	free(e->classes);
	jank_action_table_free(e->actions);
	jank_action_table_free(e->pending);
	jank_model_fini(&e->model);
	jank_graph_free(e->graph);
	jank_path_fini(&e->path);
	jank_breakdown_fini(&e->breakdown);
	jank_profile_fini(&e->profile);
	engine_net_free(e);
	free(e);
}

void jank_engine_set_verdict_cb(struct jank_engine *e, jank_verdict_fn fn, void *data)
{
	e->report_fn = fn;
	e->report_data = data;
}

void jank_engine_set_flow_cb(struct jank_engine *e, jank_flow_note_fn fn, void *data)
{
	e->flow_note = fn;
	e->flow_note_data = data;
}

void jank_engine_set_net_cb(struct jank_engine *e, jank_net_note_fn fn, void *data)
{
	e->net_note = fn;
	e->net_note_data = data;
}

void jank_engine_set_locator(struct jank_engine *e, jank_code_locator fn, void *data)
{
	e->locator = fn;
	e->locator_data = data;
}

void jank_engine_set_namer(struct jank_engine *e, jank_frame_namer fn, void *data)
{
	e->namer = fn;
	e->namer_data = data;
}

void jank_engine_set_layout(struct jank_engine *e, long major, long minor)
{
	jank_layout_from_env(&e->layout, major, minor);
}

void jank_engine_set_kernel(struct jank_engine *e, const char *kernel_release)
{
	jank_layout_set_kernel(&e->layout, kernel_release);
}

const struct jank_layout *jank_engine_layout(const struct jank_engine *e)
{
	return &e->layout;
}

void jank_engine_discarded_range(struct jank_engine *e, int32_t cpu, int64_t begin, int64_t end,
				 uint64_t count)
{
	if (begin > end) {
		int64_t t = begin;

		begin = end;
		end = t;
	}
	engine_note_peak(e);
	e->stats.discarded_events += count;
	if (end > e->loss_ts)
		e->loss_ts = end;
	jank_discards_add(&e->discards, begin, end, count);
	/*
	 * The threads become unknown at its beginning, the time the input
	 * orders the message by: the events after it come after that time.
	 */
	jank_model_discarded(&e->model, cpu, begin);
}

void jank_engine_discarded(struct jank_engine *e, int32_t cpu, int64_t ts, uint64_t count)
{
	jank_engine_discarded_range(e, cpu, ts, ts, count);
}

void jank_engine_set_limits(struct jank_engine *e, const struct jank_engine_config *c)
{
	e->cfg.retention_ns = c->retention_ns;
	e->cfg.memory_limit = c->memory_limit;
	e->cfg.action_timeout_ns = c->action_timeout_ns;
	e->cfg.overdue_grace_ns = c->overdue_grace_ns;
	/* The next memory check decides afresh whether the budget forces the window. */
	e->forced = false;
	e->check_at = c->memory_limit;
	set_stack_limit(e);
}

void jank_engine_tick(struct jank_engine *e, int64_t now)
{
	if (engine_start(e) < 0)
		return;
	if (now > e->stats.now)
		e->stats.now = now;
	engine_maintain(e);
}

void jank_engine_finish(struct jank_engine *e)
{
	if (e->stats.now != INT64_MIN)
		jank_engine_tick(e, e->stats.now);
}

void jank_engine_get_stats(const struct jank_engine *e, struct jank_engine_stats *out)
{
	*out = e->stats;
	out->first = e->stats.events ? e->first_ts : INT64_MIN;
	out->actions_open = e->actions ? jank_action_count(e->actions) : 0;
	out->flows_pending = e->pending ? jank_action_count(e->pending) : 0;
	out->memory_bytes = engine_memory_bytes(e);
	out->stacks = jank_graph_stacks_const(e->graph)->live;
	out->stacks_full = jank_graph_stacks_const(e->graph)->full;
	out->stacks_refused_share = jank_graph_stacks_const(e->graph)->refused_share;
	out->stacks_freed = jank_graph_stacks_const(e->graph)->freed;
	if (out->memory_bytes > out->memory_peak)
		out->memory_peak = out->memory_bytes;
	jank_graph_get_stats(e->graph, &out->graph);
}

const struct jank_graph *jank_engine_graph(const struct jank_engine *e)
{
	return e->graph;
}
