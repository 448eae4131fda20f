/* SPDX-License-Identifier: MIT */
/*
 * The engine's rule sets: rules and flows added before events flow, and
 * replaced on reload (what carries over: open actions, histograms, pending
 * flows of the rules and flows that stay the same).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "engine-int.h"

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
	rs->name_len = strlen(rs->rule.name);
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

void engine_free_rules(struct rule_state *rs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		jank_rule_fini(&rs[i].rule);
	free(rs);
}

void engine_free_flows(struct flow_state *fs, size_t n)
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

struct jank_action_table *engine_new_action_table(struct jank_engine *e, size_t n)
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
			engine_free_flows(fs, i);
			return -EINVAL;
		}
		fs[i].id = jank_graph_flow_id(e->graph, flows[i].name);
		if (fs[i].id == JANK_NO_FLOW || jank_flow_rule_copy(&fs[i].rule, &flows[i]) < 0) {
			engine_free_flows(fs, i);
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
		engine_free_flows(one, 1);
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

	engine_note_peak(e);
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
	engine_free_flows(e->flows, e->nflows);
	e->flows = nfs;
	e->nflows = n;
	engine_forget_classes(e);
	free(rules);
	return 0;
fail:
	jank_action_table_free(nt);
	if (nfs)
		engine_free_flows(nfs, n);
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

	engine_note_peak(e);
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
		nrs[i].name_len = strlen(nrs[i].rule.name);
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
	engine_free_rules(e->rules, e->nrules);
	e->rules = nrs;
	e->nrules = n;
	engine_forget_classes(e);
	free(from);
	free(flows);
	return 0;
fail:
	jank_action_table_free(nt);
	if (nrs)
		engine_free_rules(nrs, n);
	free(from);
	free(flows);
	return r;
}

uint64_t jank_engine_generation(const struct jank_engine *e)
{
	return e->generation;
}
