/* SPDX-License-Identifier: MIT */
/* An input's figures: the table, the JSON form, and the sums over workers (see input-figures.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "input-figures.h"
#include "json-util.h"

#define IN(m)	offsetof(struct jank_input_figures, m)
#define RULE(m) offsetof(struct jank_rule_figures, m)

/* A count, a time (ns, never negative), a string of the buffer at m. */
#define COUNT(k, off, fl)                                                                          \
	{                                                                                          \
		.key = k, .type = JANK_FIGURE_U64, .offset = off, .flags = fl                      \
	}
/* A count on the metrics page (metric: METRIC(...)). */
#define COUNT_METRIC(k, off, fl, m)                                                                \
	{                                                                                          \
		.key = k, .type = JANK_FIGURE_U64, .offset = off, .flags = fl, .metric = m         \
	}
#define TIME(k, off, fl, abs)                                                                      \
	{                                                                                          \
		.key = k, .type = JANK_FIGURE_I64, .offset = off, .flags = fl, .min = 0,           \
		.max = INT64_MAX, .absent = abs                                                    \
	}
#define STRING(k, T, m, fl)                                                                        \
	{                                                                                          \
		.key = k, .type = JANK_FIGURE_STR, .offset = offsetof(T, m), .flags = fl,          \
		.size = sizeof(((T *)0)->m)                                                        \
	}

/* A count on the metrics page: `fam`, a counter unless GAUGE, its help. */
#define METRIC(fam, ...) (&(const struct jank_figure_metric){ .name = fam, __VA_ARGS__ })
#define GAUGE		 .gauge = true
#define HELP(h)		 .help = h
/* A flow event by outcome: one family, jank_input_flows{outcome}. */
#define FLOWS(k, outcome)                                                                          \
	{                                                                                          \
		.key = #k, .type = JANK_FIGURE_U64, .offset = IN(engine.k), .flags = SUM,          \
		.metric = METRIC("jank_input_flows", HELP(flows_help), .label = "outcome",         \
				 .value = outcome)                                                 \
	}

static const char flows_help[] =
	"Flow events by outcome: paired (a to found its from), unmatched (a to without one), "
	"replaced (a from whose key was pending), expired (a pending from past the action "
	"timeout), evicted (by the memory budget).";

enum {
	SUM = JANK_FIGURE_SUM,
	BASIC = JANK_FIGURE_BASIC,
	OPT = JANK_FIGURE_OPTIONAL
};

/* In the order of the JSON object (`jankctl status` shows them so). */
const struct jank_figure_field jank_input_figures_input_fields[] = {
	STRING("url", struct jank_input_figures, url, BASIC),
	STRING("state", struct jank_input_figures, state, BASIC),
	STRING("last_error", struct jank_input_figures, last_error, OPT),
	/* What is wrong now, and since when (wall clock, ns): not the first error ever. */
	STRING("problem", struct jank_input_figures, problem, OPT),
	TIME("problem_since", IN(problem_since), OPT, 0),
	{ .key = "attached", .type = JANK_FIGURE_BOOL, .offset = IN(attached), .flags = BASIC },
	/* "native" or "babeltrace2" ([live] decoder), and why auto fell back to babeltrace2. */
	STRING("decoder", struct jank_input_figures, decoder, OPT),
	STRING("decoder_note", struct jank_input_figures, decoder_note, OPT),
	COUNT_METRIC("events", IN(engine.events), SUM,
		     METRIC("jank_input_events",
			    HELP("Events of the live session that the engine processed."))),
	COUNT("events_read", IN(events_read), SUM),
	{ .key = "events_per_sec",
	  .type = JANK_FIGURE_RATE,
	  .offset = IN(events_per_sec),
	  .max = 1000000000000LL },
	COUNT_METRIC("discarded_events", IN(engine.discarded_events), SUM,
		     METRIC("jank_input_discarded_events",
			    HELP("Events the tracer discarded (its buffers were full): jankd never "
				 "saw them."))),
	COUNT_METRIC(
		"disconnects", IN(disconnects), SUM,
		METRIC("jank_input_disconnects",
		       HELP("Times the live session was lost (relayd gone, session destroyed)."))),
	COUNT_METRIC("reconnects", IN(reconnects), SUM,
		     METRIC("jank_input_reconnects",
			    HELP("Times jankd attached the live session again after losing it."))),
	TIME("trace_now", IN(trace_now), OPT, INT64_MIN),
	/* The stall is the supervisor's too: it says so while a worker restarts. */
	{ .key = "stalled_since",
	  .type = JANK_FIGURE_I64,
	  .offset = IN(stalled_since),
	  .flags = BASIC | OPT,
	  .max = INT64_MAX,
	  .metric = METRIC("jank_input_stalled_since_seconds", GAUGE, .unit = "seconds",
			   HELP("While the input is stalled (connected, its trace time still), the "
				"Unix time it last advanced; 0 otherwise.")) },
	COUNT_METRIC("stalls", IN(stalls), BASIC,
		     METRIC("jank_input_stalls", HELP("Times the input stalled: no event and no "
						      "beacon for several live timer periods."))),
	/* The ends of what this worker read: a restart's skipped range starts at the last. */
	TIME("first_event_ns", IN(engine.first), OPT, INT64_MIN),
	TIME("last_event_ns", IN(last_event_ns), OPT, INT64_MIN),
	COUNT("actions_completed", IN(engine.actions_completed), SUM),
	COUNT("janks", IN(engine.janks), SUM),
	COUNT("overdue", IN(engine.overdue), SUM),
	COUNT("overdue_unsure", IN(engine.overdue_unsure), SUM),
	COUNT_METRIC("actions_open", IN(engine.actions_open), 0,
		     METRIC("jank_open_actions", GAUGE, HELP("Actions begun and not ended yet."))),
	COUNT("actions_expired", IN(engine.actions_expired), SUM),
	COUNT("actions_replaced", IN(engine.actions_replaced), SUM),
	COUNT("actions_unmatched", IN(engine.actions_unmatched), SUM),
	COUNT("actions_dropped", IN(engine.actions_dropped), SUM),
	COUNT("actions_evicted", IN(engine.actions_evicted), SUM),
	FLOWS(flows_expired, "expired"),
	FLOWS(flows_evicted, "evicted"),
	FLOWS(flows_paired, "paired"),
	FLOWS(flows_unmatched, "unmatched"),
	FLOWS(flows_replaced, "replaced"),
	/*
	 * Call stacks: exits that were not the innermost frame's, frames the full
	 * table or an owner's share refused, stacks live and freed by GC.
	 */
	COUNT_METRIC("function_resyncs", IN(engine.function_resyncs), SUM,
		     METRIC("jank_input_function_resyncs",
			    HELP("Function exits that were not the innermost frame's (function "
				 "events were lost)."))),
	COUNT_METRIC("stacks_full", IN(engine.stacks_full), SUM,
		     METRIC("jank_input_stacks_full",
			    HELP("Call stack frames not kept: the table of call stacks was full "
				 "(new stacks go unnamed)."))),
	COUNT_METRIC("stacks_refused_share", IN(engine.stacks_refused_share), SUM,
		     METRIC("jank_input_stacks_refused_share",
			    HELP("Call stack frames not kept: their binary (or process) held "
				 "its share, half of the table of call stacks."))),
	COUNT("stacks", IN(engine.stacks), 0),
	/* The binary opener: what it gave the symbolizer, what it refused (the log says why). */
	COUNT_METRIC("opener_opened", IN(opener_opened), SUM,
		     METRIC("jank_input_opener_opened",
			    HELP("Binaries the binary opener gave the worker (it could not open "
				 "them itself)."))),
	COUNT_METRIC("opener_refused", IN(opener_refused), SUM,
		     METRIC("jank_input_opener_refused",
			    HELP("Binaries the worker asked the binary opener for, refused or "
				 "unanswered: their functions stay binary+offset (jankd's log "
				 "says why)."))),
	COUNT("stacks_freed", IN(engine.stacks_freed), SUM),
	COUNT("paths_truncated", IN(engine.paths_truncated), SUM),
	COUNT("paths_incomplete", IN(engine.paths_incomplete), SUM),
	COUNT_METRIC("budget_forced", IN(engine.budget_forced), SUM,
		     METRIC("jank_graph_budget_forced_collections",
			    HELP("Times the memory budget made the garbage collection free the "
				 "graph early."))),
	COUNT_METRIC("memory_bytes", IN(engine.memory_bytes), 0,
		     METRIC("jank_graph_memory_bytes", GAUGE, .unit = "bytes",
			    HELP("Memory of the execution graph and the open actions, as the "
				 "engine counts it."))),
	COUNT("memory_peak", IN(engine.memory_peak), 0),
	{ .key = "graph", .type = JANK_FIGURE_OBJECT, .size = 6 },
	/* The traced threads the graph holds (jankd's workers are "fleet"'s). */
	COUNT("threads", IN(engine.graph.threads), 0),
	COUNT("vertices", IN(engine.graph.vertices), 0),
	COUNT("bytes", IN(engine.graph.bytes), 0),
	COUNT("freed_vertices", IN(engine.graph.freed_vertices), 0),
	COUNT("freed_threads", IN(engine.graph.freed_threads), 0),
	COUNT("gc_steps", IN(engine.graph.gc_steps), 0),
	{ .key = "rules", .type = JANK_FIGURE_RULES, .flags = BASIC },
};
const size_t jank_input_figures_input_nfields =
	sizeof(jank_input_figures_input_fields) / sizeof(jank_input_figures_input_fields[0]);

const struct jank_figure_field jank_input_figures_rule_fields[] = {
	STRING("action", struct jank_rule_figures, action, 0),
	COUNT("count", RULE(count), SUM),
	COUNT("janks", RULE(stats.janks), SUM),
	COUNT("overdue", RULE(stats.overdue), SUM),
	COUNT("expired", RULE(stats.expired), SUM),
	COUNT("evicted", RULE(stats.evicted), SUM),
	TIME("last_jank_ns", RULE(stats.last_jank_ns), 0, 0),
	STRING("last_jank_key", struct jank_rule_figures, stats.last_jank_key, 0),
	{ .key = "histogram", .type = JANK_FIGURE_HISTOGRAM, .offset = RULE(hist) },
	TIME("threshold_ns", RULE(threshold_ns), 0, 0),
	{ .key = "threshold_kind",
	  .type = JANK_FIGURE_ENUM,
	  .offset = RULE(threshold_kind),
	  .names = jank_threshold_kind_names },
	TIME("p50_ns", RULE(p50_ns), 0, 0),
	TIME("p90_ns", RULE(p90_ns), 0, 0),
	TIME("p99_ns", RULE(p99_ns), 0, 0),
	TIME("max_ns", RULE(max_ns), 0, 0),
	COUNT("composition_top", RULE(composition_top), 0),
	/* After composition_top: its decoder checks the names against it. */
	{ .key = "composition", .type = JANK_FIGURE_COMPOSITION, .offset = RULE(comp) },
};
const size_t jank_input_figures_rule_nfields =
	sizeof(jank_input_figures_rule_fields) / sizeof(jank_input_figures_rule_fields[0]);

/* ---- The structs ---- */

void jank_input_figures_init(struct jank_input_figures *f)
{
	memset(f, 0, sizeof(*f));
	f->trace_now = INT64_MIN;
	f->last_event_ns = INT64_MIN;
	f->engine.first = INT64_MIN;
	f->engine.now = INT64_MIN;
}

static void free_rules(struct jank_rule_figures *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(r[i].comp);
	free(r);
}

void jank_input_figures_fini(struct jank_input_figures *f)
{
	free_rules(f->rules, f->nrules);
	jank_input_figures_init(f);
}

void jank_input_figures_placeholder(struct jank_input_figures *f, const char *url)
{
	jank_input_figures_fini(f);
	snprintf(f->url, sizeof(f->url), "%s", url);
	snprintf(f->state, sizeof(f->state), "connecting");
}

int jank_input_figures_set_rules(struct jank_input_figures *f, size_t n)
{
	struct jank_rule_figures *r = n ? calloc(n, sizeof(*r)) : NULL;

	if (n && !r)
		return -ENOMEM;
	free_rules(f->rules, f->nrules);
	f->rules = r;
	f->nrules = n;
	for (size_t i = 0; i < n; i++)
		jank_histogram_init(&r[i].hist);
	return 0;
}

int jank_input_figures_copy(struct jank_input_figures *to, const struct jank_input_figures *from)
{
	jank_input_figures_fini(to);
	*to = *from;
	to->rules = NULL;
	to->nrules = 0;
	if (jank_input_figures_set_rules(to, from->nrules) < 0) {
		jank_input_figures_fini(to);
		return -ENOMEM;
	}
	for (size_t i = 0; i < from->nrules; i++) {
		to->rules[i] = from->rules[i];
		to->rules[i].comp = NULL;
		to->rules[i].ncomp = 0;
		if (jank_input_figures_set_composition(&to->rules[i], from->rules[i].comp,
						       from->rules[i].ncomp) < 0) {
			jank_input_figures_fini(to);
			return -ENOMEM;
		}
	}
	return 0;
}

int jank_input_figures_set_composition(struct jank_rule_figures *r,
				       const struct jank_composition_entry *v, size_t n)
{
	free(r->comp);
	r->comp = NULL;
	r->ncomp = 0;
	if (!n)
		return 0;
	r->comp = malloc(n * sizeof(*v));
	if (!r->comp)
		return -ENOMEM;
	memcpy(r->comp, v, n * sizeof(*v));
	r->ncomp = n;
	return 0;
}

static uint64_t entry_total(const struct jank_composition_entry *e)
{
	uint64_t t = 0;

	for (int c = 0; c < JANK_CLASS_COUNT; c++)
		for (int s = 0; s < JANK_STATE_COUNT; s++)
			t += e->ns[c][s];
	return t;
}

static void entry_add(struct jank_composition_entry *to, const struct jank_composition_entry *from)
{
	for (int c = 0; c < JANK_CLASS_COUNT; c++)
		for (int s = 0; s < JANK_STATE_COUNT; s++)
			to->ns[c][s] = to->ns[c][s] + from->ns[c][s] < to->ns[c][s]
					       ? UINT64_MAX
					       : to->ns[c][s] + from->ns[c][s];
}

static struct jank_composition_entry *entry_find(struct jank_rule_figures *r, const char *on)
{
	for (size_t i = 0; i < r->ncomp; i++)
		if (!strcmp(r->comp[i].on, on))
			return &r->comp[i];
	return NULL;
}

/* r's entry of that name, added (zero) when it has none. */
static struct jank_composition_entry *entry_get(struct jank_rule_figures *r, const char *on)
{
	struct jank_composition_entry *e = entry_find(r, on);

	if (e)
		return e;
	e = realloc(r->comp, (r->ncomp + 1) * sizeof(*e));
	if (!e)
		return NULL;
	r->comp = e;
	e = &e[r->ncomp++];
	memset(e, 0, sizeof(*e));
	snprintf(e->on, sizeof(e->on), "%s", on);
	return e;
}

int jank_input_figures_add_composition(struct jank_rule_figures *r,
				       const struct jank_composition_entry *from, size_t n,
				       size_t max)
{
	struct jank_composition_entry *other;

	for (size_t i = 0; i < n; i++) {
		struct jank_composition_entry *e = entry_get(r, from[i].on);

		if (!e)
			return -ENOMEM;
		entry_add(e, &from[i]);
	}
	if (r->ncomp <= max)
		return 0;
	other = entry_get(r, JANK_COMPOSITION_OTHER);
	if (!other)
		return -ENOMEM;
	while (r->ncomp > max && r->ncomp > 1) {
		size_t low = SIZE_MAX;

		for (size_t i = 0; i < r->ncomp; i++)
			if (&r->comp[i] != other &&
			    (low == SIZE_MAX ||
			     entry_total(&r->comp[i]) < entry_total(&r->comp[low])))
				low = i;
		entry_add(other, &r->comp[low]);
		if (other == &r->comp[r->ncomp - 1])
			other = &r->comp[low];
		r->comp[low] = r->comp[--r->ncomp];
	}
	return 0;
}

/* ---- Sums ---- */

static uint64_t *u64_at(void *base, const struct jank_figure_field *f)
{
	return (uint64_t *)((char *)base + f->offset);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* The SUM fields of `from` added to those of `to`. */
static void add_counts(void *to, const void *from, const struct jank_figure_field *fields, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fields[i].flags & SUM) {
			uint64_t *a = u64_at(to, &fields[i]);

			*a = add_sat(*a, *u64_at((void *)from, &fields[i]));
		}
}

/* Bucket by bucket; min and max of an empty side are no values. */
static void hist_add(struct jank_histogram *a, const struct jank_histogram *b)
{
	if (!b->count)
		return;
	a->sum = add_sat(a->sum, b->sum);
	a->min = a->count && a->min < b->min ? a->min : b->min;
	a->max = a->count && a->max > b->max ? a->max : b->max;
	for (unsigned i = 0; i < JANK_HIST_BUCKETS; i++)
		a->buckets[i] += b->buckets[i];
	a->count += b->count;
}

/* max: the names its composition keeps (the rest go to "other"). */
static int rule_add(struct jank_rule_figures *to, const struct jank_rule_figures *from, size_t max)
{
	add_counts(to, from, jank_input_figures_rule_fields, jank_input_figures_rule_nfields);
	hist_add(&to->hist, &from->hist);
	return jank_input_figures_add_composition(to, from->comp, from->ncomp, max);
}

static struct jank_rule_figures *rule_find(const struct jank_input_figures *f, const char *name)
{
	for (size_t i = 0; i < f->nrules; i++)
		if (!strcmp(f->rules[i].action, name))
			return &f->rules[i];
	return NULL;
}

/* The past's rule of that name, added (zero) when it has none. */
static struct jank_rule_figures *past_rule(struct jank_input_figures *past, const char *name)
{
	struct jank_rule_figures *r = rule_find(past, name);

	if (r)
		return r;
	r = realloc(past->rules, (past->nrules + 1) * sizeof(*r));
	if (!r)
		return NULL;
	past->rules = r;
	r = &r[past->nrules++];
	memset(r, 0, sizeof(*r));
	jank_histogram_init(&r->hist);
	snprintf(r->action, sizeof(r->action), "%s", name);
	return r;
}

int jank_input_figures_fold(struct jank_input_figures *past,
			    const struct jank_input_figures *status)
{
	if (!status->reported)
		return 0;
	add_counts(past, status, jank_input_figures_input_fields, jank_input_figures_input_nfields);
	past->counted = true;
	for (size_t i = 0; i < status->nrules; i++) {
		struct jank_rule_figures *to = past_rule(past, status->rules[i].action);

		if (!to)
			return -ENOMEM;
		/* The past keeps as many names as a worker: the rest of theirs go to "other". */
		to->composition_top = status->rules[i].composition_top;
		if (rule_add(to, &status->rules[i], to->composition_top + 1) < 0)
			return -ENOMEM;
	}
	return 0;
}

int jank_input_figures_merge(struct jank_input_figures *out,
			     const struct jank_input_figures *status,
			     const struct jank_input_figures *past)
{
	if (jank_input_figures_copy(out, status) < 0)
		return -ENOMEM;
	if (!past || !past->counted)
		return 0;
	add_counts(out, past, jank_input_figures_input_fields, jank_input_figures_input_nfields);
	out->counted = true;
	for (size_t i = 0; i < out->nrules; i++) {
		const struct jank_rule_figures *p = rule_find(past, out->rules[i].action);

		if (p && rule_add(&out->rules[i], p, SIZE_MAX) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* ---- JSON ---- */

/* sum, min, max and the non-empty buckets as [index, count] pairs (its count is the rule's). */
static struct json_object *histogram_json(const struct jank_histogram *h)
{
	struct json_object *o = json_object_new_object();
	struct json_object *b = json_object_new_array();

	if (!o || !b) {
		json_object_put(o);
		json_object_put(b);
		return NULL;
	}
	jank_json_add_u64(o, "sum", h->sum);
	jank_json_add_i64(o, "min", h->count ? h->min : 0);
	jank_json_add_i64(o, "max", h->count ? h->max : 0);
	for (unsigned i = 0; i < JANK_HIST_BUCKETS; i++) {
		struct json_object *pair;

		if (!h->buckets[i])
			continue;
		pair = json_object_new_array();
		if (!pair)
			break;
		json_object_array_add(pair, json_object_new_int64(i));
		json_object_array_add(pair, json_object_new_int64((int64_t)h->buckets[i]));
		json_object_array_add(b, pair);
	}
	json_object_object_add(o, "buckets", b);
	return o;
}

static struct json_object *rules_json(const struct jank_input_figures *f);

/* {state: ns} of the states with time in class c. */
static struct json_object *class_json(const struct jank_composition_entry *e, int c)
{
	struct json_object *o = json_object_new_object();

	for (int s = 0; o && s < JANK_STATE_COUNT; s++)
		if (e->ns[c][s])
			jank_json_add_u64(o, jank_state_name(s), e->ns[c][s]);
	return o;
}

static struct json_object *composition_json(const struct jank_rule_figures *r)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < r->ncomp; i++) {
		struct json_object *o = json_object_new_object();

		if (!o || json_object_array_add(a, o) != 0) {
			json_object_put(o);
			json_object_put(a);
			return NULL;
		}
		jank_json_add_str(o, "on", r->comp[i].on);
		for (int c = 0; c < JANK_CLASS_COUNT; c++)
			jank_json_add(o, jank_composition_class_name(c),
				      class_json(&r->comp[i], c));
	}
	return a;
}

/* Whether field `d` of figures `f` is shown. */
static bool shown(const struct jank_input_figures *f, const struct jank_figure_field *d,
		  const void *base)
{
	const char *p = (const char *)base + d->offset;

	if (f && !f->reported && !(d->flags & BASIC) && !(f->counted && (d->flags & SUM)))
		return false;
	if (!(d->flags & OPT))
		return true;
	if (d->type == JANK_FIGURE_STR)
		return p[0] != '\0';
	return *(const int64_t *)p != d->absent;
}

/* The fields d[0..n) of `base` into `o`; `f`: the input's figures (NULL for a rule). */
static void fields_json(struct json_object *o, const struct jank_figure_field *d, size_t n,
			const void *base, const struct jank_input_figures *f)
{
	for (size_t i = 0; i < n; i++) {
		const char *p = (const char *)base + d[i].offset;
		struct json_object *sub;

		if (!shown(f, &d[i], base)) {
			i += d[i].type == JANK_FIGURE_OBJECT ? d[i].size : 0;
			continue;
		}
		switch (d[i].type) {
		case JANK_FIGURE_U64:
			jank_json_add_u64(o, d[i].key, *(const uint64_t *)p);
			break;
		case JANK_FIGURE_I64:
			jank_json_add_i64(o, d[i].key, *(const int64_t *)p);
			break;
		case JANK_FIGURE_RATE:
			jank_json_add(o, d[i].key,
				      json_object_new_double(
					      (double)llround(*(const double *)p * 10) / 10));
			break;
		case JANK_FIGURE_BOOL:
			jank_json_add_bool(o, d[i].key, *(const bool *)p);
			break;
		case JANK_FIGURE_STR:
			jank_json_add_str(o, d[i].key, p);
			break;
		case JANK_FIGURE_ENUM:
			jank_json_add_str(o, d[i].key, d[i].names[*(const int *)p]);
			break;
		case JANK_FIGURE_OBJECT:
			sub = json_object_new_object();
			if (sub)
				fields_json(sub, d + i + 1, d[i].size, base, f);
			jank_json_add(o, d[i].key, sub);
			i += d[i].size;
			break;
		case JANK_FIGURE_HISTOGRAM:
			jank_json_add(o, d[i].key,
				      histogram_json((const struct jank_histogram *)p));
			break;
		case JANK_FIGURE_RULES:
			jank_json_add(o, d[i].key, rules_json(f));
			break;
		case JANK_FIGURE_COMPOSITION:
			jank_json_add(o, d[i].key, composition_json(base));
			break;
		}
	}
}

static struct json_object *rules_json(const struct jank_input_figures *f)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < f->nrules; i++) {
		struct json_object *r = json_object_new_object();

		if (r)
			fields_json(r, jank_input_figures_rule_fields,
				    jank_input_figures_rule_nfields, &f->rules[i], NULL);
		if (!r || json_object_array_add(a, r) != 0) {
			json_object_put(r);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

struct json_object *jank_input_figures_json(const struct jank_input_figures *f)
{
	struct json_object *o = json_object_new_object();

	if (o)
		fields_json(o, jank_input_figures_input_fields, jank_input_figures_input_nfields, f,
			    f);
	return o;
}
