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
#include "array.h"
#include "discards.h"
#include "engine.h"
#include "locks.h"
#include "model.h"
#include "textsafe.h"

#define GC_EVERY	   1024
#define GC_BUDGET	   64
#define GC_BUDGET_PRESSURE 1024
#define BUDGET_ROUNDS	   8
#define RAN_SCANS	   32 /* preempted segments looked for on every CPU, per action */

static const char *const jank_verdict_kind_names[] = {
	[JANK_VERDICT_COMPLETED] = "completed",
	[JANK_VERDICT_OVERDUE] = "overdue",
};

JANK_STRTABLE_DEFINE(jank_verdict_kind, enum jank_verdict_kind, "?")

enum {
	POS_NONE = -2,
	POS_TID = -1
};

struct class_role {
	uint32_t rule; /* an index of rules, or of flows */
	bool flow;     /* a flow's from (end false) or to (end true) */
	bool end;
	bool unusable; /* a key or match field the class lacks: its events are ignored */
	int8_t key_pos[JANK_RULE_MAX_KEYS];
	int8_t match_pos;
};

/* What every event reads comes first: one cache line for most classes. */
struct class_info {
	enum jank_event_type type;
	unsigned nroles;
	bool wanted;
	bool may_free; /* its events can free memory (note_peak before them) */
	enum jank_domain domain;
	struct class_role roles[JANK_MAX_RULES_PER_EVENT];
	int8_t cs_user,
		cs_kernel; /* kernel: the callstack contexts' field positions, or POS_NONE */
	char *name;
	const char *fields[JANK_EVENT_MAX_FIELDS + 1];
	unsigned nfields;
};

struct rule_state {
	struct jank_rule rule;
	struct jank_histogram hist;
	struct jank_rule_stats stats;
	struct jank_baseline baseline;
	int64_t learn_at;	      /* the next normal action ending at or after this is learnt */
	struct jank_composition comp; /* what its slow and sampled normal actions waited on */
};

struct flow_state {
	struct jank_flow_rule rule;
	uint16_t id; /* the graph's id of its name */
};

struct jank_engine {
	struct jank_engine_config cfg;
	struct jank_graph *graph;
	struct jank_model model;
	struct jank_layout layout;
	struct rule_state *rules;
	size_t nrules;
	struct jank_action_table *actions;
	struct flow_state *flows;
	size_t nflows;
	struct jank_action_table *pending; /* the flows' `from`s not picked up yet */
	struct class_info *classes;
	size_t nclasses;
	size_t classes_cap;
	jank_verdict_fn report_fn;
	void *report_data;
	jank_frame_namer namer;
	void *namer_data;
	jank_code_locator locator;
	void *locator_data;
	uint64_t stacks_collected_at; /* events at the last collection of stacks */
	jank_flow_note_fn flow_note; /* who hears of flow events (joins across inputs) */
	void *flow_note_data;
	struct jank_path path;
	struct jank_breakdown breakdown;
	struct jank_profile profile;
	struct jank_suspects suspects;
	struct jank_engine_stats stats;
	uint64_t since_gc;
	size_t gc_threads; /* thread records after the last GC step */
	uint64_t check_at; /* memory that makes the next event run a GC step */
	bool forced;	   /* over budget: the horizon ignores open actions */
	int64_t first_ts;  /* first event time */
	int64_t loss_ts;   /* latest time events were lost (discarded, disconnected) */
	/* Where and how many: each verdict's discarded_events. */
	struct jank_discards discards;
	bool started;
	bool ctx_stacks; /* a kernel event's callstack context gave some thread its stack */
	uint64_t generation;
};

static void free_rules(struct rule_state *rs, size_t n);
static void free_flows(struct flow_state *fs, size_t n);
static void forget_classes(struct jank_engine *e);
static struct jank_action_table *new_action_table(struct jank_engine *e, size_t n);
static void note_peak(struct jank_engine *e);

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
	free_rules(e->rules, e->nrules);
	free_flows(e->flows, e->nflows);
	forget_classes(e);
	free(e->classes);
	jank_action_table_free(e->actions);
	jank_action_table_free(e->pending);
	jank_model_fini(&e->model);
	jank_graph_free(e->graph);
	jank_path_fini(&e->path);
	jank_breakdown_fini(&e->breakdown);
	jank_profile_fini(&e->profile);
	free(e);
}

/*
 * Whether the rules and the flows fit the per-event limits together: the
 * roles an event has (each begin, end, from and to) and the fields their
 * keys and matches read. Flows are seen as rules from `from` to `to`.
 */
static bool roles_fit(const struct jank_rule *rules, size_t nrules,
		      const struct jank_flow_rule *flows, size_t nflows)
{
	const char *ev;
	size_t bad;

	return jank_rules_flows_check(rules, nrules, flows, nflows, &bad, &ev) == 0;
}

/* The same with the engine's rules and flows, plus one rule or one flow. */
static bool rules_fit(const struct jank_engine *e, const struct jank_rule *rule,
		      const struct jank_flow_rule *flow)
{
	struct jank_rule *r = malloc((e->nrules + 1) * sizeof(*r));
	struct jank_flow_rule *f = malloc((e->nflows + 1) * sizeof(*f));
	size_t nr = e->nrules, nf = e->nflows;
	bool fit = false;

	if (r && f) {
		for (size_t i = 0; i < e->nrules; i++)
			r[i] = e->rules[i].rule;
		for (size_t i = 0; i < e->nflows; i++)
			f[i] = e->flows[i].rule;
		if (rule)
			r[nr++] = *rule;
		if (flow)
			f[nf++] = *flow;
		fit = roles_fit(r, nr, f, nf);
	}
	free(r);
	free(f);
	return fit;
}

int jank_engine_add_rule(struct jank_engine *e, const struct jank_rule *r)
{
	struct rule_state *rs;
	int ret;

	if (e->started)
		return -EBUSY;
	if (!r->name || !r->begin_event || !r->end_event)
		return -EINVAL;
	if (!rules_fit(e, r, NULL))
		return -E2BIG;
	rs = realloc(e->rules, (e->nrules + 1) * sizeof(*rs));
	if (!rs)
		return -ENOMEM;
	e->rules = rs;
	rs = &e->rules[e->nrules];
	ret = jank_rule_copy(&rs->rule, r);
	if (ret < 0)
		return ret;
	jank_histogram_init(&rs->hist);
	memset(&rs->stats, 0, sizeof(rs->stats));
	jank_baseline_init(&rs->baseline);
	rs->learn_at = INT64_MIN;
	jank_composition_init(&rs->comp, e->cfg.composition_top);
	return (int)e->nrules++;
}

size_t jank_engine_rule_count(const struct jank_engine *e)
{
	return e->nrules;
}

const struct jank_rule *jank_engine_rule(const struct jank_engine *e, size_t i)
{
	return i < e->nrules ? &e->rules[i].rule : NULL;
}

const struct jank_histogram *jank_engine_rule_histogram(const struct jank_engine *e, size_t i)
{
	return i < e->nrules ? &e->rules[i].hist : NULL;
}

uint64_t jank_engine_rule_janks(const struct jank_engine *e, size_t i)
{
	return i < e->nrules ? e->rules[i].stats.janks : 0;
}

const struct jank_rule_stats *jank_engine_rule_stats(const struct jank_engine *e, size_t i)
{
	return i < e->nrules ? &e->rules[i].stats : NULL;
}

const struct jank_baseline *jank_engine_rule_baseline(const struct jank_engine *e, size_t i)
{
	return i < e->nrules ? &e->rules[i].baseline : NULL;
}

int jank_engine_set_rule_baseline(struct jank_engine *e, size_t i, const struct jank_baseline *b)
{
	if (i >= e->nrules)
		return -EINVAL;
	e->rules[i].baseline = *b;
	return 0;
}

const struct jank_composition *jank_engine_rule_composition(const struct jank_engine *e, size_t i)
{
	return i < e->nrules ? &e->rules[i].comp : NULL;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Same events, keys and match: open actions and the histogram carry over. */
static bool same_rule(const struct jank_rule *a, const struct jank_rule *b)
{
	if (!same_str(a->name, b->name) || !same_str(a->begin_event, b->begin_event) ||
	    !same_str(a->end_event, b->end_event) || a->nkeys != b->nkeys ||
	    !same_str(a->match_field, b->match_field) || a->match_value.type != b->match_value.type)
		return false;
	for (unsigned k = 0; k < a->nkeys; k++)
		if (!same_str(a->keys[k], b->keys[k]))
			return false;
	if (a->match_value.type == JANK_VALUE_STR)
		return same_str(a->match_value.s, b->match_value.s);
	return a->match_value.i == b->match_value.i;
}

static void free_rules(struct rule_state *rs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		jank_rule_fini(&rs[i].rule);
	free(rs);
}

static void free_flows(struct flow_state *fs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		jank_flow_rule_fini(&fs[i].rule);
	free(fs);
}

/* An action leaves the table: its thread's span ends now (the end event, a new begin, expiry). */
static void close_span(struct jank_action *a, void *data)
{
	struct jank_engine *e = data;

	if (a->span)
		jank_graph_span_close(e->graph, a->serial, a->span, e->stats.now);
	a->span = NULL;
}

static struct jank_action_table *new_action_table(struct jank_engine *e, size_t n)
{
	struct jank_action_table *t = jank_action_table_new((uint32_t)n);

	if (t)
		jank_action_table_set_close_hook(t, close_span, e);
	return t;
}

static bool flow_valid(const struct jank_flow_rule *f)
{
	return f->name && f->from_event && f->to_event && f->nkeys > 0 &&
	       f->nkeys <= JANK_RULE_MAX_KEYS && jank_flow_rule_ok(f);
}

/* Copies of flows[0..n) with their graph ids in *out; 0 or -errno. */
static int copy_flows(struct jank_engine *e, const struct jank_flow_rule *flows, size_t n,
		      struct flow_state **out)
{
	struct flow_state *fs = calloc(n ? n : 1, sizeof(*fs));

	if (!fs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (!flow_valid(&flows[i])) {
			free_flows(fs, i);
			return -EINVAL;
		}
		fs[i].id = jank_graph_flow_id(e->graph, flows[i].name);
		if (fs[i].id == JANK_NO_FLOW || jank_flow_rule_copy(&fs[i].rule, &flows[i]) < 0) {
			free_flows(fs, i);
			return -ENOMEM;
		}
	}
	*out = fs;
	return 0;
}

int jank_engine_add_flow(struct jank_engine *e, const struct jank_flow_rule *f)
{
	struct flow_state *fs, *one;
	int r;

	if (e->started)
		return -EBUSY;
	if (!flow_valid(f))
		return -EINVAL;
	if (!rules_fit(e, NULL, f))
		return -E2BIG;
	r = copy_flows(e, f, 1, &one);
	if (r < 0)
		return r;
	fs = realloc(e->flows, (e->nflows + 1) * sizeof(*fs));
	if (!fs) {
		free_flows(one, 1);
		return -ENOMEM;
	}
	e->flows = fs;
	e->flows[e->nflows] = one[0];
	free(one);
	return (int)e->nflows++;
}

/* Same events, keys and match: pending `from`s carry over. */
static bool same_flow(const struct jank_flow_rule *a, const struct jank_flow_rule *b)
{
	if (!same_str(a->name, b->name) || !same_str(a->from_event, b->from_event) ||
	    !same_str(a->to_event, b->to_event) || a->nkeys != b->nkeys ||
	    !same_str(a->match_field, b->match_field) || a->match_value.type != b->match_value.type)
		return false;
	for (unsigned k = 0; k < a->nkeys; k++)
		if (!same_str(a->keys[k], b->keys[k]) ||
		    !same_str(jank_flow_rule_keys(a, 1)[k], jank_flow_rule_keys(b, 1)[k]))
			return false;
	if (a->match_value.type == JANK_VALUE_STR)
		return same_str(a->match_value.s, b->match_value.s);
	return a->match_value.i == b->match_value.i;
}

int jank_engine_replace_flows(struct jank_engine *e, const struct jank_flow_rule *flows, size_t n)
{
	struct jank_rule *rules = malloc((e->nrules + 1) * sizeof(*rules));
	struct jank_action_table *nt = NULL;
	struct flow_state *nfs = NULL;
	uint64_t moved = 0;
	int r = -E2BIG;

	note_peak(e);
	if (!rules)
		return -ENOMEM;
	for (size_t i = 0; i < e->nrules; i++)
		rules[i] = e->rules[i].rule; /* shallow: only read */
	if (!roles_fit(rules, e->nrules, flows, n))
		goto fail;
	r = copy_flows(e, flows, n, &nfs);
	if (r < 0)
		goto fail;
	r = -ENOMEM;
	if (e->started) {
		nt = jank_action_table_new((uint32_t)n);
		if (!nt)
			goto fail;
		for (size_t i = 0; i < n; i++) {
			for (size_t j = 0; j < e->nflows; j++) {
				if (!same_flow(&flows[i], &e->flows[j].rule))
					continue;
				for (struct jank_action *a =
					     jank_action_first(e->pending, (uint32_t)j);
				     a; a = a->next) {
					bool replaced;
					struct jank_action *b = jank_action_open(
						nt, (uint32_t)i, a->key, a->begin, &replaced);

					if (!b)
						goto fail;
					b->tid = a->tid;
					b->serial = a->serial;
					b->vertex = a->vertex;
					moved++;
				}
				break;
			}
		}
		e->stats.flows_dropped += jank_action_count(e->pending) - moved;
		jank_action_table_free(e->pending);
		e->pending = nt;
	}
	free_flows(e->flows, e->nflows);
	e->flows = nfs;
	e->nflows = n;
	forget_classes(e);
	free(rules);
	return 0;
fail:
	jank_action_table_free(nt);
	if (nfs)
		free_flows(nfs, n);
	free(rules);
	return r;
}

size_t jank_engine_flow_count(const struct jank_engine *e)
{
	return e->nflows;
}

const struct jank_flow_rule *jank_engine_flow(const struct jank_engine *e, size_t i)
{
	return i < e->nflows ? &e->flows[i].rule : NULL;
}

static void forget_classes(struct jank_engine *e)
{
	for (size_t i = 0; i < e->nclasses; i++)
		free(e->classes[i].name);
	e->nclasses = 0;
	e->generation++;
}

static bool same_threshold(const struct jank_threshold *a, const struct jank_threshold *b)
{
	return a->kind == b->kind && a->ns == b->ns && a->percentile == b->percentile &&
	       a->factor == b->factor && a->warmup == b->warmup;
}

int jank_engine_replace_rules(struct jank_engine *e, const struct jank_rule *rules, size_t n)
{
	struct rule_state *nrs = calloc(n ? n : 1, sizeof(*nrs));
	struct jank_action_table *nt = NULL;
	size_t *from = calloc(n ? n : 1, sizeof(*from)); /* old index, or SIZE_MAX */
	uint64_t moved = 0;
	int r = -ENOMEM;

	struct jank_flow_rule *flows = malloc((e->nflows + 1) * sizeof(*flows));

	note_peak(e);
	if (!nrs || !from || !flows)
		goto fail;
	for (size_t i = 0; i < e->nflows; i++)
		flows[i] = e->flows[i].rule; /* shallow: only read */
	if (!roles_fit(rules, n, flows, e->nflows)) {
		r = -E2BIG;
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		if (!rules[i].name || !rules[i].begin_event || !rules[i].end_event) {
			r = -EINVAL;
			goto fail;
		}
		r = jank_rule_copy(&nrs[i].rule, &rules[i]);
		if (r < 0)
			goto fail;
		jank_histogram_init(&nrs[i].hist);
		jank_baseline_init(&nrs[i].baseline);
		nrs[i].learn_at = INT64_MIN;
		jank_composition_init(&nrs[i].comp, e->cfg.composition_top);
		from[i] = SIZE_MAX;
		for (size_t j = 0; j < e->nrules; j++)
			if (same_rule(&rules[i], &e->rules[j].rule)) {
				from[i] = j;
				nrs[i].hist = e->rules[j].hist;
				nrs[i].stats = e->rules[j].stats;
				/* Which actions are normal changed with the threshold: learn
				 * afresh. */
				if (same_threshold(&rules[i].threshold,
						   &e->rules[j].rule.threshold)) {
					nrs[i].baseline = e->rules[j].baseline;
					nrs[i].learn_at = e->rules[j].learn_at;
				}
				nrs[i].comp = e->rules[j].comp;
				break;
			}
	}
	r = -ENOMEM;
	if (e->started) {
		nt = jank_action_table_new((uint32_t)n); /* no close hook until it is kept */
		if (!nt)
			goto fail;
		for (size_t i = 0; i < n; i++) {
			bool again = false; /* two new rules the same as one old: one span each */

			if (from[i] == SIZE_MAX)
				continue;
			for (size_t k = 0; k < i; k++)
				again |= from[k] == from[i];
			for (struct jank_action *a =
				     jank_action_first(e->actions, (uint32_t)from[i]);
			     a; a = a->next) {
				bool replaced;
				struct jank_action *b = jank_action_open(nt, (uint32_t)i, a->key,
									 a->begin, &replaced);

				if (!b)
					goto fail;
				b->tid = a->tid;
				b->pid = a->pid;
				b->serial = a->serial;
				b->overdue_reported = a->overdue_reported;
				memcpy(b->comm, a->comm, sizeof(b->comm));
				b->span = again ? NULL : a->span;
				moved++;
			}
		}
		/* The moved actions' spans go on: the old table must not close them. */
		for (size_t i = 0; i < n; i++)
			for (struct jank_action *a =
				     from[i] == SIZE_MAX
					     ? NULL
					     : jank_action_first(e->actions, (uint32_t)from[i]);
			     a; a = a->next)
				a->span = NULL;
		jank_action_table_set_close_hook(nt, close_span, e);
		e->stats.actions_dropped += jank_action_count(e->actions) - moved;
		jank_action_table_free(e->actions);
		e->actions = nt;
	}
	free_rules(e->rules, e->nrules);
	e->rules = nrs;
	e->nrules = n;
	forget_classes(e);
	free(from);
	free(flows);
	return 0;
fail:
	jank_action_table_free(nt);
	if (nrs)
		free_rules(nrs, n);
	free(from);
	free(flows);
	return r;
}

uint64_t jank_engine_generation(const struct jank_engine *e)
{
	return e->generation;
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

/* Tell the flow listener of a flow event, if there is one. */
static void note_flow(struct jank_engine *e, const struct class_role *role, int32_t tid,
		      const struct jank_event *ev, const char *key, bool paired)
{
	struct jank_flow_note n = { role->rule, role->end, paired, tid, ev->ts, key };

	if (e->flow_note)
		e->flow_note(&n, e->flow_note_data);
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

/* Rules are frozen once events flow: the tables are sized for them. */
static int start(struct jank_engine *e)
{
	if (e->started)
		return 0;
	e->actions = new_action_table(e, e->nrules);
	e->pending = jank_action_table_new((uint32_t)e->nflows);
	if (!e->actions || !e->pending) {
		jank_action_table_free(e->actions);
		jank_action_table_free(e->pending);
		e->actions = e->pending = NULL;
		return -ENOMEM;
	}
	e->started = true;
	return 0;
}

/* Position of a field in the class's field list, adding it when absent. */
static int field_pos(struct class_info *ci, const char *name)
{
	if (strcmp(name, "tid") == 0)
		return POS_TID;
	for (unsigned i = 0; i < ci->nfields; i++)
		if (strcmp(ci->fields[i], name) == 0)
			return (int)i;
	if (ci->nfields >= JANK_EVENT_MAX_FIELDS)
		return POS_NONE;
	ci->fields[ci->nfields] = name;
	ci->fields[ci->nfields + 1] = NULL;
	return (int)ci->nfields++;
}

/* The role of a rule (an action's begin or end, a flow's from or to) on the class. */
static void add_role(struct class_info *ci, uint32_t index, bool flow, bool end, char *const *keys,
		     unsigned nkeys, const char *match_field)
{
	struct class_role *role;

	if (ci->nroles == JANK_MAX_RULES_PER_EVENT)
		return;
	role = &ci->roles[ci->nroles++];
	role->rule = index;
	role->flow = flow;
	role->end = end;
	for (unsigned k = 0; k < JANK_RULE_MAX_KEYS; k++)
		role->key_pos[k] = POS_NONE;
	if (nkeys == 0)
		role->key_pos[0] = POS_TID;
	for (unsigned k = 0; k < nkeys; k++)
		role->key_pos[k] = (int8_t)field_pos(ci, keys[k]);
	role->match_pos = match_field ? (int8_t)field_pos(ci, match_field) : POS_NONE;
}

static void add_roles(struct jank_engine *e, struct class_info *ci)
{
	for (size_t r = 0; r < e->nrules; r++) {
		const struct jank_rule *rule = &e->rules[r].rule;

		for (int end = 0; end < 2; end++)
			if (strcmp(end ? rule->end_event : rule->begin_event, ci->name) == 0)
				add_role(ci, (uint32_t)r, false, end, rule->keys, rule->nkeys,
					 rule->match_field);
	}
	for (size_t f = 0; f < e->nflows; f++) {
		const struct jank_flow_rule *flow = &e->flows[f].rule;

		for (int to = 0; to < 2; to++)
			if (strcmp(to ? flow->to_event : flow->from_event, ci->name) == 0)
				add_role(ci, (uint32_t)f, true, to, jank_flow_rule_keys(flow, to),
					 flow->nkeys, flow->match_field);
	}
}

uint32_t jank_engine_resolve_class(struct jank_engine *e, enum jank_domain domain, const char *name,
				   const char *const **fields, unsigned *nfields)
{
	struct class_info *ci;
	const char *const *tf;

	if (start(e) < 0)
		return JANK_CLASS_INVALID;
	if (domain == JANK_DOMAIN_KERNEL)
		jank_layout_observe(&e->layout, name);
	/* Resolving again (a reconnected input, another stream class) gives the same id. */
	for (size_t i = 0; i < e->nclasses; i++) {
		ci = &e->classes[i];
		if (ci->domain == domain && strcmp(ci->name, name) == 0) {
			*fields = ci->fields;
			*nfields = ci->nfields;
			return (uint32_t)i;
		}
	}
	if (e->nclasses == e->classes_cap) {
		size_t ncap = jank_array_grow(&e->classes, sizeof(*e->classes), e->classes_cap, 64);

		if (!ncap)
			return JANK_CLASS_INVALID;
		e->classes_cap = ncap;
	}
	ci = &e->classes[e->nclasses];
	memset(ci, 0, sizeof(*ci));
	ci->name = strdup(name);
	if (!ci->name)
		return JANK_CLASS_INVALID;
	ci->domain = domain;
	ci->type = jank_layout_classify(&e->layout, domain, name);
	for (tf = jank_layout_fields(ci->type); *tf; tf++)
		ci->fields[ci->nfields++] = *tf;
	add_roles(e, ci);
	/* Any kernel event may carry the thread's call stacks (lttng add-context). */
	ci->cs_user = ci->cs_kernel = POS_NONE;
	if (domain == JANK_DOMAIN_KERNEL) {
		ci->cs_user = (int8_t)field_pos(ci, "callstack_user");
		ci->cs_kernel = (int8_t)field_pos(ci, "callstack_kernel");
	}
	/* System calls tell the model whether a thread is in user mode (model.c). */
	ci->wanted = ci->nroles > 0 || ci->type != JANK_EVENT_USER;
	/*
	 * What an event can free, outside maintain(): an action's or a flow's
	 * record and its span (its roles), a lock record (the mutex events).
	 * Everything else an event does only grows memory (rings, thread
	 * records, tables, stacks, span lists: they shrink in GC only).
	 */
	ci->may_free = ci->nroles > 0 || ci->type == JANK_EVENT_MUTEX_REQ ||
		       ci->type == JANK_EVENT_MUTEX_ACQ || ci->type == JANK_EVENT_MUTEX_UNLOCK ||
		       ci->type == JANK_EVENT_MUTEX_TRYLOCK;
	*fields = ci->fields;
	*nfields = ci->nfields;
	return (uint32_t)e->nclasses++;
}

int jank_engine_field_missing(struct jank_engine *e, uint32_t class_id, unsigned index,
			      const char *available, char *msg, size_t len)
{
	struct class_info *ci;
	int said = 0;

	if (class_id >= e->nclasses)
		return 0;
	ci = &e->classes[class_id];
	if (index >= ci->nfields)
		return 0;
	for (unsigned i = 0; i < ci->nroles; i++) {
		struct class_role *role = &ci->roles[i];
		const char *name = role->flow ? e->flows[role->rule].rule.name
					      : e->rules[role->rule].rule.name;
		bool keyed = false;

		for (unsigned k = 0; k < JANK_RULE_MAX_KEYS; k++)
			keyed |= role->key_pos[k] == (int8_t)index;
		if (role->unusable || (!keyed && role->match_pos != (int8_t)index))
			continue;
		role->unusable = true;
		e->stats.rules_unusable++;
		if (!said && msg && len)
			snprintf(msg, len,
				 "[%s %s]: event '%s' has no field '%s' (its fields: %s): the "
				 "rule's %s cannot apply, so it ignores that event",
				 role->flow ? "flow" : "action", name, ci->name, ci->fields[index],
				 available && *available ? available : "none",
				 keyed ? "key" : "match");
		said = 1;
	}
	return said;
}

bool jank_engine_class_wanted(const struct jank_engine *e, uint32_t class_id)
{
	return class_id < e->nclasses && e->classes[class_id].wanted;
}

const char *jank_engine_class_name(const struct jank_engine *e, uint32_t class_id)
{
	return class_id < e->nclasses ? e->classes[class_id].name : NULL;
}

static int32_t emitting_tid(const struct jank_engine *e, const struct jank_event *ev)
{
	return ev->tid >= 0 ? ev->tid : jank_model_current_tid(&e->model, ev->cpu);
}

static bool match_ok(const struct class_role *role, const struct jank_value *match,
		     const struct jank_event *ev)
{
	const struct jank_value *v;

	if (role->match_pos < 0 || (unsigned)role->match_pos >= ev->nfields)
		return true;
	v = &ev->fields[role->match_pos];
	switch (v->type) {
	case JANK_VALUE_NONE:
		return true; /* the class has no such field: the match does not apply */
	case JANK_VALUE_STR:
		return match->type == JANK_VALUE_STR && strcmp(v->s, match->s) == 0;
	case JANK_VALUE_INT:
	case JANK_VALUE_UINT:
		return match->type == JANK_VALUE_INT && jank_value_as_int(v, 0) == match->i;
	case JANK_VALUE_ARRAY:
		return false;
	}
	return false;
}

/* Append to a key, truncating as snprintf() would; false once the key is full. */
static bool key_put(char *buf, size_t *len, const char *s)
{
	for (; *s; s++) {
		if (*len >= JANK_KEY_LEN - 1) {
			*len = jank_utf8_cut(buf, *len); /* not inside a character */
			buf[*len] = '\0';
			return false;
		}
		buf[(*len)++] = *s;
	}
	buf[*len] = '\0';
	return true;
}

static bool key_put_u64(char *buf, size_t *len, uint64_t v, bool neg)
{
	char digits[24];
	char *p = digits + sizeof(digits);

	*--p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (neg)
		*--p = '-';
	return key_put(buf, len, p);
}

/*
 * The text of an action's key: "name=frame,id=3", or "tid=42" by default.
 * Built by hand: this runs for every begin and end event.
 */
static void format_key(const struct jank_engine *e, const struct class_role *role,
		       char *const *keys, unsigned nkeys, const struct jank_event *ev, char *buf)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned k = 0; k < JANK_RULE_MAX_KEYS && role->key_pos[k] != POS_NONE; k++) {
		const char *name = nkeys ? keys[k] : "tid";
		int pos = role->key_pos[k];
		const struct jank_value *v =
			pos >= 0 && (unsigned)pos < ev->nfields ? &ev->fields[pos] : NULL;
		bool ok = (!k || key_put(buf, &len, ",")) && key_put(buf, &len, name) &&
			  key_put(buf, &len, "=");

		if (ok && pos == POS_TID) {
			int64_t tid = emitting_tid(e, ev);

			ok = key_put_u64(buf, &len, tid < 0 ? 0 - (uint64_t)tid : (uint64_t)tid,
					 tid < 0);
		} else if (ok && v && v->type == JANK_VALUE_STR) {
			ok = key_put(buf, &len, v->s);
		} else if (ok && v && v->type == JANK_VALUE_UINT) {
			ok = key_put_u64(buf, &len, v->u, false);
		} else if (ok && v && v->type == JANK_VALUE_INT) {
			ok = key_put_u64(buf, &len, v->i < 0 ? 0 - (uint64_t)v->i : (uint64_t)v->i,
					 v->i < 0);
		} else if (ok) {
			ok = key_put(buf, &len, "?");
		}
		if (!ok)
			return; /* truncated keys still pair consistently */
	}
}

/*
 * The pid and comm of an action's thread. An event of the thread marks it
 * seen: a thread that exited without a final switch is then kept by GC
 * while its action is open, as it is without GC.
 */
static uint32_t fill_thread_info(struct jank_engine *e, int32_t tid, const struct jank_event *ev,
				 int32_t *pid, char *comm)
{
	struct jank_thread *w = tid > 0 ? jank_graph_find(e->graph, tid) : NULL;

	if (w && ev)
		jank_thread_seen(w, ev->ts);
	if (ev && ev->pid >= 0)
		*pid = ev->pid;
	else if (w && w->pid >= 0)
		*pid = w->pid;
	if (ev && ev->comm) {
		jank_utf8_copy(comm, JANK_COMM_LEN, ev->comm);
	} else if (w && w->comm[0]) {
		memcpy(comm, w->comm, JANK_COMM_LEN);
	}
	return w ? w->serial : JANK_NO_THREAD;
}

/*
 * The path of an action over [begin, end] from thread tid, its breakdown and
 * (for baselines, or every action's report) its profile, in the engine's
 * scratch. Returns true when out of memory made any of them partial.
 * -ENOENT (no such thread) still gives a path: one `unknown` segment.
 */
static bool analyse(struct jank_engine *e, int32_t tid, uint32_t serial, int64_t begin, int64_t end)
{
	const struct jank_thread *w = jank_graph_find(e->graph, tid);
	bool incomplete;

	/*
	 * No live thread: it may have ended (final switch) while its action
	 * was open. Its record from the begin, kept by GC as long as the
	 * action is open (it was seen at the begin), tells what it did.
	 */
	if (!w && serial != JANK_NO_THREAD) {
		w = jank_graph_find_serial(e->graph, serial);
		if (w && w->tid != tid)
			w = NULL;
	}
	if (w)
		incomplete =
			jank_critpath_compute_thread(e->graph, w, begin, end, &e->path) == -ENOMEM;
	else
		incomplete = jank_critpath_compute(e->graph, tid, begin, end, &e->path) == -ENOMEM;
	incomplete |= jank_breakdown_compute(&e->path, &e->breakdown) == -ENOMEM;
	if (e->cfg.baseline || e->cfg.report_all)
		incomplete |= jank_profile_build(&e->profile, &e->path, &e->breakdown, e->graph,
						 tid) == -ENOMEM;
	return incomplete;
}

static int cmp_share(const void *a, const void *b)
{
	const struct jank_cpu_share *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * The CPU a preempted segment waited for: the one its thread was switched
 * in on at the segment's end. Tried first: the thread's last CPU, then the
 * previous segment's; then every CPU, RAN_SCANS times per action at most
 * (then the thread's last CPU stands).
 */
static int32_t waited_cpu(struct jank_engine *e, const struct jank_segment *s, int32_t *hint,
			  unsigned *scans)
{
	const struct jank_thread *w = jank_graph_find(e->graph, s->tid);
	int32_t last = w ? w->cpu : -1, cpu = -1;

	if (last >= 0)
		cpu = jank_model_switch_cpu(&e->model, s->tid, s->end, last, false);
	if (cpu < 0 && *hint >= 0 && *hint != last)
		cpu = jank_model_switch_cpu(&e->model, s->tid, s->end, *hint, false);
	if (cpu < 0 && *scans < RAN_SCANS) {
		(*scans)++;
		cpu = jank_model_switch_cpu(&e->model, s->tid, s->end, -1, true);
	}
	if (cpu < 0)
		cpu = last;
	if (cpu >= 0)
		*hint = cpu;
	return cpu;
}

/*
 * Who had the CPU while the path was preempted: for each preempted
 * segment, the threads that ran on the CPU its thread waited for, most time
 * first.
 */
static void find_ran(struct jank_engine *e)
{
	struct jank_cpu_share v[32];
	size_t n = 0;
	int32_t hint = -1;
	unsigned scans = 0;

	for (size_t i = 0; i < e->path.n; i++) {
		const struct jank_segment *s = &e->path.segs[i];
		int32_t cpu;

		if (s->state != JANK_STATE_PREEMPTED)
			continue;
		cpu = waited_cpu(e, s, &hint, &scans);
		if (cpu >= 0)
			jank_model_cpu_shares(&e->model, cpu, s->begin, s->end, v, &n, 32);
	}
	jank_sort(v, n, sizeof(*v), cmp_share);
	e->profile.nran = 0;
	for (size_t i = 0; i < n && i < JANK_RAN_MAX; i++) {
		struct jank_ran *r = &e->profile.ran[e->profile.nran++];
		const struct jank_thread *w = jank_graph_find_serial(e->graph, v[i].serial);

		r->tid = v[i].tid;
		r->ns = v[i].ns;
		r->comm[0] = '\0';
		if (w)
			memcpy(r->comm, w->comm, JANK_COMM_LEN);
	}
}

/* A report of the action in the engine's scratch (analyse()); slow ones get suspects. */
static void report(struct jank_engine *e, enum jank_verdict_kind kind, uint32_t rule,
		   const struct jank_action *a, int32_t tid, int32_t pid, const char *comm,
		   int64_t end, int64_t threshold, bool over, bool incomplete)
{
	struct jank_verdict rep;

	if (e->path.truncated)
		e->stats.paths_truncated++;
	if (incomplete)
		e->stats.paths_incomplete++;
	memset(&rep, 0, sizeof(rep));
	/* Addresses become names now, for this verdict only (a normal action never needs them). */
	jank_path_name_frames(&e->path, e->namer, e->namer_data);
	if (over && e->cfg.baseline) {
		find_ran(e);
		jank_baseline_suspects(&e->rules[rule].baseline, &e->profile, &e->suspects);
		jank_suspects_name(&e->suspects, &e->path);
		rep.suspects = &e->suspects;
	}
	rep.kind = kind;
	rep.rule = &e->rules[rule].rule;
	rep.rule_index = rule;
	rep.key = a->key;
	rep.begin = a->begin;
	rep.end = end;
	rep.duration = end - a->begin;
	rep.threshold = threshold;
	rep.over_threshold = over;
	rep.tid = tid;
	rep.pid = pid;
	rep.comm = comm;
	rep.path = &e->path;
	rep.breakdown = &e->breakdown;
	rep.profile = e->cfg.baseline || e->cfg.report_all ? &e->profile : NULL;
	rep.incomplete = incomplete;
	rep.discarded_events = jank_discards_in(&e->discards, a->begin, end);
	if (e->report_fn)
		e->report_fn(&rep, e->report_data);
}

static void on_action_event(struct jank_engine *e, const struct class_role *role,
			    const struct jank_event *ev)
{
	struct rule_state *rs = &e->rules[role->rule];
	char key[JANK_KEY_LEN];
	struct jank_action *a;
	int32_t tid;

	if (!match_ok(role, &rs->rule.match_value, ev))
		return;
	format_key(e, role, rs->rule.keys, rs->rule.nkeys, ev, key);
	tid = emitting_tid(e, ev);
	if (!role->end) {
		struct jank_thread *w = tid > 0 ? jank_graph_get(e->graph, tid, ev->ts) : NULL;
		bool replaced;

		a = jank_action_open(e->actions, role->rule, key, ev->ts, &replaced);
		if (!a)
			return;
		if (replaced)
			e->stats.actions_replaced++;
		a->tid = tid;
		a->serial = fill_thread_info(e, tid, ev, &a->pid, a->comm);
		/* Until it ends, the action labels its thread's path segments. */
		if (w)
			a->span = jank_graph_span_open(e->graph, w, ev->ts, rs->rule.name, key);
		return;
	}
	a = jank_action_find(e->actions, role->rule, key);
	if (!a) {
		e->stats.actions_unmatched++;
		return;
	}
	int64_t duration = ev->ts - a->begin;
	int64_t threshold = jank_threshold_current(&rs->rule.threshold, &rs->hist);
	bool over = threshold > 0 && duration > threshold;
	int32_t pid = a->pid;
	char comm[JANK_COMM_LEN];
	bool learn;

	memcpy(comm, a->comm, JANK_COMM_LEN);
	jank_histogram_add(&rs->hist, duration);
	e->stats.actions_completed++;
	if (over) {
		rs->stats.janks++;
		rs->stats.last_jank_ns = duration;
		memcpy(rs->stats.last_jank_key, key, sizeof(key));
		e->stats.janks++;
	}
	/* At most one normal action per rule and JANK_BASELINE_GAP_NS is learnt. */
	learn = e->cfg.baseline && !over && ev->ts >= rs->learn_at;
	if (over || e->cfg.report_all || learn) {
		bool incomplete = analyse(e, tid, tid == a->tid ? a->serial : JANK_NO_THREAD,
					  a->begin, ev->ts);

		fill_thread_info(e, tid, ev, &pid, comm);
		/* A slow action's functions count in P(f | slow) before its suspects are named. */
		if (over && e->cfg.baseline && !incomplete && !e->path.truncated)
			jank_baseline_learn_slow(&rs->baseline, &e->profile);
		/* What the slow ones wait on, and the learnt normal ones: the composition. */
		if (over && (e->cfg.baseline || e->cfg.report_all))
			jank_composition_add(&rs->comp, JANK_CLASS_SLOW, &e->profile);
		if (over || e->cfg.report_all)
			report(e, JANK_VERDICT_COMPLETED, role->rule, a, tid, pid, comm, ev->ts,
			       threshold, over, incomplete);
		/* A normal action teaches its rule's baseline, unless its path is partial. */
		if (learn && !incomplete && !e->path.truncated) {
			jank_baseline_learn(&rs->baseline, &e->profile);
			jank_composition_add(&rs->comp, JANK_CLASS_NORMAL, &e->profile);
			/* Saturated: a hostile trace's last timestamps may be near INT64_MAX. */
			rs->learn_at = ev->ts > INT64_MAX - JANK_BASELINE_GAP_NS
					       ? INT64_MAX
					       : ev->ts + JANK_BASELINE_GAP_NS;
		}
	}
	jank_action_close(e->actions, a);
}

/*
 * A flow's `from` leaves a vertex on its thread and waits, by key, for its
 * `to`; a `to` pairs with the latest `from` of its key, and the thread of
 * the `to` gets an edge from that vertex. A `to` with no `from` makes none.
 */
static void on_flow_event(struct jank_engine *e, const struct class_role *role,
			  const struct jank_event *ev)
{
	const struct flow_state *fs = &e->flows[role->rule];
	struct jank_thread *w, *src;
	char key[JANK_KEY_LEN];
	struct jank_action *a;
	int32_t tid;

	if (!match_ok(role, &fs->rule.match_value, ev))
		return;
	tid = emitting_tid(e, ev);
	w = tid > 0 ? jank_graph_get(e->graph, tid, ev->ts) : NULL;
	if (!w)
		return;
	format_key(e, role, fs->rule.keys, fs->rule.nkeys, ev, key);
	if (!role->end) {
		uint64_t idx = jank_graph_split(e->graph, w, ev->ts);
		bool replaced;

		if (idx == UINT64_MAX)
			return;
		a = jank_action_open(e->pending, role->rule, key, ev->ts, &replaced);
		if (!a)
			return;
		e->stats.flows_replaced += replaced;
		a->tid = tid;
		a->serial = w->serial;
		a->vertex = idx;
		note_flow(e, role, tid, ev, key, false);
		return;
	}
	a = jank_action_find(e->pending, role->rule, key);
	note_flow(e, role, tid, ev, key, a != NULL);
	if (!a) {
		e->stats.flows_unmatched++;
		return;
	}
	src = jank_graph_find_serial(e->graph, a->serial);
	if (src)
		jank_graph_flow(e->graph, src, a->vertex, w, ev->ts, fs->id);
	e->stats.flows_paired++;
	jank_action_close(e->pending, a);
}

static uint64_t memory_bytes(const struct jank_engine *e)
{
	/* The CPUs' histories are a fixed cost (jank_model_bytes), outside the budget. */
	return jank_graph_bytes(e->graph) + jank_locks_bytes(e->model.locks) +
	       (e->actions ? jank_action_table_bytes(e->actions) : 0) +
	       (e->pending ? jank_action_table_bytes(e->pending) : 0);
}

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

/*
 * Every call that can free memory (an event ends an action or a lock
 * record, new rules, a collection) notes the peak first, so that
 * jank_engine_get_stats() never reports a peak lower than an earlier one.
 */
static void note_peak(struct jank_engine *e)
{
	uint64_t bytes = memory_bytes(e);

	if (bytes > e->stats.memory_peak)
		e->stats.memory_peak = bytes;
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
			report(e, JANK_VERDICT_OVERDUE, r, a, a->tid, a->pid, a->comm, now,
			       threshold, true, analyse(e, a->tid, a->serial, a->begin, now));
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
	bytes = memory_bytes(e);
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
		bytes = memory_bytes(e);
		if (bytes >= before && e->stats.horizon >= now)
			break; /* what is left is current state: nothing older to free */
	}
	e->gc_threads = jank_graph_thread_count(e->graph);
	bytes = memory_bytes(e);
	if (bytes < e->cfg.memory_limit / 4 * 3)
		e->forced = false;
	/* Still over budget after a sweep (live threads alone): sweep again after some growth. */
	if (bytes <= e->cfg.memory_limit)
		e->check_at = e->cfg.memory_limit;
	else if (sweep)
		e->check_at = bytes + e->cfg.memory_limit / 32;
}

static void maintain(struct jank_engine *e)
{
	note_peak(e);
	e->since_gc = 0;
	check_actions(e, e->stats.now);
	check_flows(e, e->stats.now);
	collect(e);
	note_peak(e);
}

/*
 * The thread ran at its own user-space event: a wait inferred later (a
 * condition wait, locks.c) starts after it. Without scheduler events, a
 * vertex marks it.
 */
static void note_ust_event(struct jank_engine *e, const struct jank_event *ev)
{
	struct jank_thread *w = jank_graph_find(e->graph, ev->tid);

	if (!w)
		return;
	if (!e->model.kernel)
		jank_graph_split(e->graph, w, ev->ts);
	if (ev->ts > w->ust_last)
		w->ust_last = ev->ts;
}

/* The thread's stack from now on: a kernel event's callstack context, else its shadow stack. */
static void stack_now(struct jank_engine *e, struct jank_thread *w, int64_t ts)
{
	jank_graph_stack_set(e->graph, w, ts, w->fn->ctx ? w->fn->ctx : w->fn->shadow);
}

/*
 * A function entry pushes its frame on the thread's shadow stack (interned:
 * a lookup, no allocation once the stack was seen); frames past the depth
 * cap, or that a full table cannot hold, are counted only. An exit pops its
 * frame; when it is not the innermost, entries or exits were lost: it pops
 * to the matching frame, or, when no frame matches (its entry was lost),
 * clears the stack, so that a stack never drifts.
 *
 * An exit without an address (lttng_ust_cyg_profile_fast:func_exit has no
 * field: the fast library records only the entries' addresses) pops the
 * innermost frame: there is nothing to check it against, so a lost event
 * shifts the stack until the thread returns to its outermost frame.
 */
/* Where user code at addr of process pid is: an offset in a binary when the locator knows. */
static void locate(const struct jank_engine *e, int32_t pid, uint64_t addr,
		   struct jank_code_loc *at)
{
	at->addr = addr;
	at->pid = pid;
	at->code = 0;
	if (e->locator && e->locator(pid, addr, &at->code, &at->addr, e->locator_data) &&
	    at->code) {
		at->pid = 0;
		return;
	}
	at->addr = addr;
	at->code = 0;
}

static void on_function(struct jank_engine *e, bool entry, const struct jank_event *ev)
{
	struct jank_stacks *t = jank_graph_stacks(e->graph);
	int32_t tid = emitting_tid(e, ev);
	struct jank_thread *w = tid > 0 ? jank_graph_get(e->graph, tid, ev->ts) : NULL;
	struct jank_thread_stacks *f;
	bool has_addr = ev->nfields >= 1 && ev->fields[0].type != JANK_VALUE_NONE;
	struct jank_code_loc at;
	uint64_t addr;
	uint32_t id;

	if (!w || (entry && !has_addr) ||
	    (has_addr && ev->fields[0].type != JANK_VALUE_UINT &&
	     ev->fields[0].type != JANK_VALUE_INT))
		return;
	f = w->fn ? w->fn : jank_thread_stacks_of(e->graph, w);
	if (!f)
		return;
	addr = has_addr ? (uint64_t)jank_value_as_int(&ev->fields[0], 0) : 0;
	e->stats.function_events++;
	if (entry) {
		if (f->over) {
			f->over++;
			return;
		}
		locate(e, ev->pid >= 0 ? ev->pid : w->pid, addr, &at);
		id = jank_stacks_push(t, f->shadow, &at, false);
		if (!id) {
			f->over = 1;
			return;
		}
		f->shadow = id;
	} else {
		if (f->over) {
			f->over--;
			return;
		}
		if (!has_addr) {
			if (!f->shadow)
				return; /* nothing to pop: its entry was lost, or came before the
					   trace */
			f->shadow = jank_stacks_parent(t, f->shadow);
			stack_now(e, w, ev->ts);
			return;
		}
		locate(e, ev->pid >= 0 ? ev->pid : w->pid, addr, &at);
		for (id = f->shadow; id; id = jank_stacks_parent(t, id))
			if (jank_stacks_is(t, id, &at))
				break;
		if (id != f->shadow)
			e->stats.function_resyncs++;
		f->shadow = jank_stacks_parent(t, id); /* 0 when none matched: cleared */
	}
	stack_now(e, w, ev->ts);
}

/* Push a callstack context's frames (innermost first) on `stack`, outermost first. */
static uint32_t push_context(const struct jank_engine *e, struct jank_stacks *t, uint32_t stack,
			     int32_t pid, const struct jank_value *v, bool kernel)
{
	for (uint32_t i = v->a.n; i-- > 0;) {
		uint64_t a = v->a.v[i];
		struct jank_code_loc at = { a, pid, 0 };
		uint32_t id;

		if (!a || a == UINT64_MAX) /* padding, or the end marker of some unwinders */
			continue;
		if (!kernel)
			locate(e, pid, a, &at);
		id = jank_stacks_push(t, stack, &at, kernel);
		if (!id)
			break;
		stack = id;
	}
	return stack;
}

/*
 * A kernel event with the callstack_user/callstack_kernel contexts: the
 * stack of the thread that ran it, until its system call exits (e.g. a
 * system call entry's says which code blocked). The kernel's frames go on
 * top of the user ones. A thread that exits has no stack any more.
 */
static void kernel_stacks(struct jank_engine *e, const struct class_info *ci,
			  const struct jank_event *ev)
{
	const struct jank_value *u = NULL, *k = NULL;
	struct jank_stacks *t;
	struct jank_thread *w;
	uint32_t stack;
	int32_t tid;

	if (ci->type == JANK_EVENT_PROCESS_EXIT && ev->nfields > JANK_F_EXIT_TID) {
		w = jank_graph_find(e->graph,
				    (int32_t)jank_value_as_int(&ev->fields[JANK_F_EXIT_TID], -1));
		if (w && w->fn) {
			w->fn->shadow = w->fn->ctx = w->fn->over = 0;
			stack_now(e, w, ev->ts);
		}
		return;
	}
	if (ci->cs_user >= 0 && (unsigned)ci->cs_user < ev->nfields &&
	    ev->fields[ci->cs_user].type == JANK_VALUE_ARRAY && ev->fields[ci->cs_user].a.n)
		u = &ev->fields[ci->cs_user];
	if (ci->cs_kernel >= 0 && (unsigned)ci->cs_kernel < ev->nfields &&
	    ev->fields[ci->cs_kernel].type == JANK_VALUE_ARRAY && ev->fields[ci->cs_kernel].a.n)
		k = &ev->fields[ci->cs_kernel];
	if (!u && !k) {
		if (ci->type != JANK_EVENT_SYSCALL_EXIT)
			return;
		if (!e->ctx_stacks)
			return; /* no thread has a context's stack to drop */
		tid = emitting_tid(e, ev);
		w = tid > 0 ? jank_graph_find(e->graph, tid) : NULL;
		if (w && w->fn && w->fn->ctx) {
			w->fn->ctx = 0;
			stack_now(e, w, ev->ts);
		}
		return;
	}
	tid = emitting_tid(e, ev);
	w = tid > 0 ? jank_graph_get(e->graph, tid, ev->ts) : NULL;
	if (!w || !jank_thread_stacks_of(e->graph, w))
		return;
	t = jank_graph_stacks(e->graph);
	stack = u ? push_context(e, t, JANK_NO_STACK, ev->pid >= 0 ? ev->pid : w->pid, u, false)
		  : JANK_NO_STACK;
	if (k)
		stack = push_context(e, t, stack, -1, k, true);
	/* Back in user space after its exit: its shadow stack, if any, tells again. */
	w->fn->ctx = ci->type == JANK_EVENT_SYSCALL_EXIT ? 0 : stack;
	if (w->fn->ctx)
		e->ctx_stacks = true;
	stack_now(e, w, ev->ts);
}

void jank_engine_process(struct jank_engine *e, const struct jank_event *ev)
{
	const struct class_info *ci;

	if (ev->class_id >= e->nclasses)
		return;
	ci = &e->classes[ev->class_id];
	/*
	 * Before this event frees anything: the peak never goes down. An event
	 * that cannot free (!ci->may_free) only grows memory, so the peak noted
	 * before a later event, in maintain() or by jank_engine_get_stats() is
	 * at least what it would note here: the same peak, without summing the
	 * tables' sizes at every event.
	 */
	if (ci->may_free)
		note_peak(e);
	if (e->stats.events++ == 0)
		e->first_ts = ev->ts;
	if (ev->ts > e->stats.now)
		e->stats.now = ev->ts;
	if (ci->type == JANK_EVENT_FUNC_ENTRY || ci->type == JANK_EVENT_FUNC_EXIT)
		on_function(e, ci->type == JANK_EVENT_FUNC_ENTRY, ev);
	else if (ci->type != JANK_EVENT_USER)
		jank_model_process(&e->model, ci->type, ev);
	if (ci->domain == JANK_DOMAIN_KERNEL)
		kernel_stacks(e, ci, ev);
	for (unsigned i = 0; i < ci->nroles; i++) {
		if (ci->roles[i].unusable)
			continue;
		if (ci->roles[i].flow)
			on_flow_event(e, &ci->roles[i], ev);
		else
			on_action_event(e, &ci->roles[i], ev);
	}
	if (ci->nroles && ci->domain == JANK_DOMAIN_UST && ev->tid > 0)
		note_ust_event(e, ev);
	/* Memory is checked every 4 events (O(1)): a budget crossed is acted on at once. */
	if (++e->since_gc >= GC_EVERY ||
	    (e->cfg.gc && !(e->since_gc & 3) && memory_bytes(e) > e->check_at))
		maintain(e);
}

void jank_engine_discarded_range(struct jank_engine *e, int32_t cpu, int64_t begin, int64_t end,
				 uint64_t count)
{
	if (begin > end) {
		int64_t t = begin;

		begin = end;
		end = t;
	}
	note_peak(e);
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
	if (start(e) < 0)
		return;
	if (now > e->stats.now)
		e->stats.now = now;
	maintain(e);
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
	out->memory_bytes = memory_bytes(e);
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
