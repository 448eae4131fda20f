/* SPDX-License-Identifier: MIT */
/*
 * daemon/worker/input-figures.c: an input's figures across its workers, and their
 * JSON form. The last figures of each worker that ended are folded into a
 * sum of the past, which is added to the current worker's; histograms add
 * up bucket by bucket. Which keys the JSON has depends on what is known.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>
#include "histogram.h"
#include "input-figures.h"

#define MS 1000000LL

static struct jank_rule_figures *rule(struct jank_input_figures *f, size_t i, const char *name)
{
	snprintf(f->rules[i].action, sizeof(f->rules[i].action), "%s", name);
	return &f->rules[i];
}

/* `n` actions of `ns` in rule r. */
static void actions(struct jank_rule_figures *r, unsigned n, int64_t ns)
{
	for (unsigned i = 0; i < n; i++)
		jank_histogram_add(&r->hist, ns);
	r->count += n;
}

/* A worker's figures: every counter set, a rule "frame" of 3 actions. */
static void worker1(struct jank_input_figures *f)
{
	struct jank_rule_figures *r;

	jank_input_figures_init(f);
	f->reported = f->counted = true;
	snprintf(f->url, sizeof(f->url), "net://r/host/h/s");
	snprintf(f->state, sizeof(f->state), "connected");
	f->engine.events = 100;
	f->events_read = 110;
	f->engine.discarded_events = 2;
	f->disconnects = 1;
	f->reconnects = 1;
	f->engine.actions_completed = 10;
	f->engine.janks = 3;
	f->engine.overdue = 1;
	f->engine.actions_expired = 4;
	f->engine.actions_replaced = 5;
	f->engine.actions_unmatched = 6;
	f->engine.actions_dropped = 7;
	f->engine.actions_evicted = 8;
	f->engine.paths_truncated = 9;
	f->engine.paths_incomplete = 11;
	f->engine.budget_forced = 12;
	f->engine.actions_open = 3;
	f->engine.memory_bytes = 4096;
	f->stalls = 2;
	assert_int_equal(jank_input_figures_set_rules(f, 1), 0);
	r = rule(f, 0, "frame");
	actions(r, 1, 100);
	actions(r, 2, 300);
	r->stats.janks = 2;
	r->stats.overdue = 1;
	r->stats.expired = 1;
	r->p99_ns = 5000;
}

/* The next worker: fewer figures, "frame" and a new rule "io". */
static void worker2(struct jank_input_figures *f)
{
	jank_input_figures_init(f);
	f->reported = f->counted = true;
	snprintf(f->state, sizeof(f->state), "reconnecting");
	f->engine.events = 50;
	f->events_read = 50;
	f->engine.janks = 2;
	f->engine.actions_open = 1;
	f->engine.memory_bytes = 100;
	assert_int_equal(jank_input_figures_set_rules(f, 2), 0);
	actions(rule(f, 0, "frame"), 1, 50);
	f->rules[0].stats.janks = 1;
	rule(f, 1, "io")->stats.evicted = 4;
}

static void fold_once(void **state)
{
	struct jank_input_figures past, st;

	(void)state;
	jank_input_figures_init(&past);
	worker1(&st);
	assert_int_equal(jank_input_figures_fold(&past, &st), 0);
	assert_true(past.counted);
	assert_false(past.reported);
	assert_int_equal(past.engine.events, 100);
	assert_int_equal(past.events_read, 110);
	assert_int_equal(past.engine.discarded_events, 2);
	assert_int_equal(past.disconnects, 1);
	assert_int_equal(past.reconnects, 1);
	assert_int_equal(past.engine.actions_completed, 10);
	assert_int_equal(past.engine.janks, 3);
	assert_int_equal(past.engine.overdue, 1);
	assert_int_equal(past.engine.actions_expired, 4);
	assert_int_equal(past.engine.actions_replaced, 5);
	assert_int_equal(past.engine.actions_unmatched, 6);
	assert_int_equal(past.engine.actions_dropped, 7);
	assert_int_equal(past.engine.actions_evicted, 8);
	assert_int_equal(past.engine.paths_truncated, 9);
	assert_int_equal(past.engine.paths_incomplete, 11);
	assert_int_equal(past.engine.budget_forced, 12);
	/* Gauges and the worker's own figures are not summed. */
	assert_int_equal(past.engine.actions_open, 0);
	assert_int_equal(past.engine.memory_bytes, 0);
	assert_int_equal(past.stalls, 0);
	assert_string_equal(past.url, "");
	assert_int_equal(past.nrules, 1);
	assert_string_equal(past.rules[0].action, "frame");
	assert_int_equal(past.rules[0].count, 3);
	assert_int_equal(past.rules[0].stats.janks, 2);
	assert_int_equal(past.rules[0].stats.overdue, 1);
	assert_int_equal(past.rules[0].stats.expired, 1);
	assert_int_equal(past.rules[0].p99_ns, 0);
	jank_input_figures_fini(&st);
	jank_input_figures_fini(&past);
}

static void fold_twice(void **state)
{
	struct jank_input_figures past, a, b;
	const struct jank_histogram *h;

	(void)state;
	jank_input_figures_init(&past);
	worker1(&a);
	worker2(&b);
	assert_int_equal(jank_input_figures_fold(&past, &a), 0);
	assert_int_equal(jank_input_figures_fold(&past, &b), 0);
	assert_int_equal(past.engine.events, 150);
	assert_int_equal(past.events_read, 160);
	assert_int_equal(past.engine.janks, 5);
	assert_int_equal(past.engine.budget_forced, 12);
	assert_int_equal(past.nrules, 2);
	assert_int_equal(past.rules[0].count, 4);
	assert_int_equal(past.rules[0].stats.janks, 3);
	assert_int_equal(past.rules[0].stats.overdue, 1);
	/* A rule new in the second worker (a reload added it). */
	assert_string_equal(past.rules[1].action, "io");
	assert_int_equal(past.rules[1].stats.evicted, 4);
	assert_int_equal(past.rules[1].count, 0);
	/* The histograms add up. */
	h = &past.rules[0].hist;
	assert_int_equal(h->count, 4);
	assert_int_equal(h->sum, 750);
	assert_int_equal(h->min, 50);
	assert_int_equal(h->max, 300);
	assert_int_equal(h->buckets[jank_histogram_bucket(300)], 2);
	assert_int_equal(h->buckets[jank_histogram_bucket(50)], 1);
	/* io had no action: its histogram stays empty. */
	assert_int_equal(past.rules[1].hist.count, 0);
	jank_input_figures_fini(&a);
	jank_input_figures_fini(&b);
	jank_input_figures_fini(&past);
}

/* The current figures plus the past: counters added, the rest the current worker's. */
static void merge(void **state)
{
	struct jank_input_figures past, a, b, m;

	(void)state;
	jank_input_figures_init(&past);
	jank_input_figures_init(&m);
	worker1(&a);
	worker2(&b);
	assert_int_equal(jank_input_figures_fold(&past, &a), 0);
	assert_int_equal(jank_input_figures_merge(&m, &b, &past), 0);
	assert_int_equal(m.engine.events, 150);
	assert_int_equal(m.engine.janks, 5);
	assert_int_equal(m.engine.actions_evicted, 8);
	assert_int_equal(m.engine.actions_open, 1);
	assert_int_equal(m.engine.memory_bytes, 100);
	assert_string_equal(m.state, "reconnecting");
	assert_int_equal(m.nrules, 2);
	assert_int_equal(m.rules[0].count, 4);
	assert_int_equal(m.rules[0].stats.janks, 3);
	assert_int_equal(m.rules[0].stats.overdue, 1);
	assert_int_equal(m.rules[0].hist.count, 4);
	assert_int_equal(m.rules[0].hist.sum, 750);
	assert_int_equal(m.rules[0].hist.min, 50);
	assert_int_equal(m.rules[0].hist.max, 300);
	assert_int_equal(m.rules[1].stats.evicted, 4);
	/* The figures themselves are left as they were. */
	assert_int_equal(b.engine.events, 50);
	assert_int_equal(b.rules[0].count, 1);
	jank_input_figures_fini(&m);
	jank_input_figures_fini(&a);
	jank_input_figures_fini(&b);
	jank_input_figures_fini(&past);
}

/* A past rule the current worker no longer has (a reload removed it): not shown. */
static void merge_rule_gone(void **state)
{
	struct jank_input_figures past, a, b, m;

	(void)state;
	jank_input_figures_init(&past);
	jank_input_figures_init(&m);
	jank_input_figures_init(&a);
	a.reported = a.counted = true;
	a.engine.events = 1;
	assert_int_equal(jank_input_figures_set_rules(&a, 1), 0);
	actions(rule(&a, 0, "old"), 9, MS);
	worker2(&b);
	assert_int_equal(jank_input_figures_fold(&past, &a), 0);
	assert_int_equal(jank_input_figures_merge(&m, &b, &past), 0);
	assert_int_equal(m.nrules, 2);
	assert_int_equal(m.rules[0].count, 1);
	assert_int_equal(m.engine.events, 51);
	jank_input_figures_fini(&m);
	jank_input_figures_fini(&a);
	jank_input_figures_fini(&b);
	jank_input_figures_fini(&past);
}

/* No past: the figures as they are (a copy: its own rules). */
static void merge_empty_past(void **state)
{
	struct jank_input_figures past, b, m;
	struct json_object *jb, *jm;

	(void)state;
	jank_input_figures_init(&past);
	jank_input_figures_init(&m);
	worker2(&b);
	assert_int_equal(jank_input_figures_merge(&m, &b, &past), 0);
	assert_ptr_not_equal(m.rules, b.rules);
	jb = jank_input_figures_json(&b);
	jm = jank_input_figures_json(&m);
	assert_true(json_object_equal(jb, jm));
	json_object_put(jm);
	assert_int_equal(jank_input_figures_merge(&m, &b, NULL), 0);
	jm = jank_input_figures_json(&m);
	assert_true(json_object_equal(jb, jm));
	json_object_put(jm);
	json_object_put(jb);
	jank_input_figures_fini(&m);
	jank_input_figures_fini(&b);
}

/* The placeholder of an input whose worker said nothing: nothing to fold. */
static void fold_placeholder(void **state)
{
	struct jank_input_figures past, st;

	(void)state;
	jank_input_figures_init(&past);
	jank_input_figures_init(&st);
	jank_input_figures_placeholder(&st, "u");
	assert_int_equal(jank_input_figures_fold(&past, &st), 0);
	assert_false(past.counted);
	assert_int_equal(past.nrules, 0);
	jank_input_figures_fini(&st);
}

/* min and max of an empty side do not count (its 0s are no values). */
static void histogram_min_max(void **state)
{
	struct jank_input_figures past, a, b;

	(void)state;
	jank_input_figures_init(&past);
	jank_input_figures_init(&a);
	jank_input_figures_init(&b);
	a.reported = b.reported = true;
	assert_int_equal(jank_input_figures_set_rules(&a, 1), 0);
	assert_int_equal(jank_input_figures_set_rules(&b, 1), 0);
	rule(&a, 0, "f");
	actions(rule(&b, 0, "f"), 1, 400);
	actions(&b.rules[0], 1, 500);
	assert_int_equal(jank_input_figures_fold(&past, &a), 0);
	assert_int_equal(jank_input_figures_fold(&past, &b), 0);
	assert_int_equal(past.rules[0].hist.count, 2);
	assert_int_equal(past.rules[0].hist.min, 400);
	assert_int_equal(past.rules[0].hist.max, 500);
	assert_int_equal(past.rules[0].hist.sum, 900);
	jank_input_figures_fini(&a);
	jank_input_figures_fini(&b);
	jank_input_figures_fini(&past);
}

/* A sum that would overflow stays at its largest value. */
static void sums_saturate(void **state)
{
	struct jank_input_figures past, a;

	(void)state;
	jank_input_figures_init(&past);
	jank_input_figures_init(&a);
	a.reported = true;
	a.engine.events = UINT64_MAX / 2;
	assert_int_equal(jank_input_figures_set_rules(&a, 1), 0);
	actions(rule(&a, 0, "f"), 1, 1);
	a.rules[0].hist.sum = INT64_MAX;
	for (int i = 0; i < 3; i++)
		assert_int_equal(jank_input_figures_fold(&past, &a), 0);
	assert_int_equal(past.rules[0].hist.count, 3);
	assert_true(past.rules[0].hist.sum == UINT64_MAX);
	assert_true(past.engine.events == UINT64_MAX);
	jank_input_figures_fini(&a);
	jank_input_figures_fini(&past);
}

static bool has(struct json_object *o, const char *k)
{
	return json_object_object_get_ex(o, k, NULL);
}

/*
 * The JSON form has what is known: the placeholder its url, state, attached,
 * stall and rules; with a past, the counters too; reported figures all.
 */
static void json_keys(void **state)
{
	struct jank_input_figures past, a, p, m;
	struct json_object *o, *r, *h;
	char text[128];

	(void)state;
	jank_input_figures_init(&past);
	jank_input_figures_init(&p);
	jank_input_figures_init(&m);
	jank_input_figures_placeholder(&p, "net://r/host/h/s");
	o = jank_input_figures_json(&p);
	assert_int_equal(json_object_object_length(o), 5);
	assert_string_equal(json_object_get_string(json_object_object_get(o, "state")),
			    "connecting");
	assert_true(has(o, "url") && has(o, "attached") && has(o, "stalls") && has(o, "rules"));
	json_object_put(o);
	worker1(&a);
	assert_int_equal(jank_input_figures_fold(&past, &a), 0);
	assert_int_equal(jank_input_figures_merge(&m, &p, &past), 0);
	o = jank_input_figures_json(&m);
	assert_true(has(o, "events") && has(o, "budget_forced") && has(o, "events_read"));
	assert_false(has(o, "actions_open") || has(o, "memory_bytes") || has(o, "graph"));
	json_object_put(o);
	/* Reported: all but the optional ones that are absent. */
	a.trace_now = 5;
	o = jank_input_figures_json(&a);
	assert_int_equal(json_object_object_length(o), 40);
	assert_true(has(o, "trace_now") && has(o, "graph"));
	assert_true(has(o, "flows_expired") && has(o, "flows_evicted") && has(o, "flows_paired") &&
		    has(o, "flows_unmatched") && has(o, "flows_replaced"));
	assert_true(has(o, "function_resyncs") && has(o, "stacks_full"));
	assert_true(has(o, "stacks_refused_share") && has(o, "stacks") && has(o, "stacks_freed"));
	assert_true(has(o, "opener_opened") && has(o, "opener_refused"));
	assert_false(has(o, "last_error") || has(o, "stalled_since") || has(o, "first_event_ns") ||
		     has(o, "last_event_ns"));
	r = json_object_array_get_idx(json_object_object_get(o, "rules"), 0);
	assert_int_equal(json_object_object_length(r), 17);
	assert_true(has(r, "composition_top") && has(r, "composition"));
	assert_string_equal(json_object_get_string(json_object_object_get(r, "threshold_kind")),
			    "fixed");
	h = json_object_object_get(r, "histogram");
	snprintf(text, sizeof(text),
		 "{\"sum\":700,\"min\":100,\"max\":300,\"buckets\":[[%u,1],[%u,2]]}",
		 jank_histogram_bucket(100), jank_histogram_bucket(300));
	assert_string_equal(json_object_to_json_string_ext(h, JSON_C_TO_STRING_PLAIN), text);
	json_object_put(o);
	jank_input_figures_fini(&m);
	jank_input_figures_fini(&a);
	jank_input_figures_fini(&p);
	jank_input_figures_fini(&past);
}

static struct jank_composition_entry entry(const char *on, uint64_t slow_running)
{
	struct jank_composition_entry e = { .ns = { { 0 } } };

	snprintf(e.on, sizeof(e.on), "%s", on);
	e.ns[JANK_CLASS_SLOW][JANK_STATE_RUNNING] = slow_running;
	e.ns[JANK_CLASS_NORMAL][JANK_STATE_TIMER] = 1;
	return e;
}

static const struct jank_composition_entry *named(const struct jank_rule_figures *r, const char *on)
{
	for (size_t i = 0; i < r->ncomp; i++)
		if (!strcmp(r->comp[i].on, on))
			return &r->comp[i];
	return NULL;
}

/*
 * Over workers, the composition adds up name by name; the past keeps K + 1
 * names (the smallest go to "other"), the current worker's and the past's
 * shown together. Copies are deep.
 */
static void composition_fold(void **state)
{
	struct jank_input_figures past, a, b, m;
	struct jank_composition_entry one[3] = { entry("db", 50), entry("ui", 5),
						 entry("other", 7) };
	struct jank_composition_entry two[3] = { entry("net", 40), entry("db", 1),
						 entry("other", 2) };

	(void)state;
	jank_input_figures_init(&past);
	jank_input_figures_init(&m);
	worker1(&a);
	a.rules[0].composition_top = 2;
	assert_int_equal(jank_input_figures_set_composition(&a.rules[0], one, 3), 0);
	assert_int_equal(jank_input_figures_fold(&past, &a), 0);
	assert_int_equal(past.rules[0].ncomp, 3);
	worker1(&b);
	b.rules[0].composition_top = 2;
	assert_int_equal(jank_input_figures_set_composition(&b.rules[0], two, 3), 0);
	/* Current and past: db, ui, other and net, every second of them. */
	assert_int_equal(jank_input_figures_merge(&m, &b, &past), 0);
	assert_int_equal(m.rules[0].ncomp, 4);
	assert_int_equal(named(&m.rules[0], "db")->ns[JANK_CLASS_SLOW][JANK_STATE_RUNNING], 51);
	assert_int_equal(named(&m.rules[0], "ui")->ns[JANK_CLASS_SLOW][JANK_STATE_RUNNING], 5);
	assert_int_equal(named(&m.rules[0], "net")->ns[JANK_CLASS_SLOW][JANK_STATE_RUNNING], 40);
	assert_int_equal(named(&m.rules[0], "other")->ns[JANK_CLASS_SLOW][JANK_STATE_RUNNING], 9);
	assert_int_equal(named(&m.rules[0], "other")->ns[JANK_CLASS_NORMAL][JANK_STATE_TIMER], 2);
	/* The merge's copy is its own. */
	assert_ptr_not_equal(m.rules[0].comp, b.rules[0].comp);
	assert_int_equal(b.rules[0].ncomp, 3);
	/* Folded: three names at most; ui, the smallest, went to "other", nothing lost. */
	assert_int_equal(jank_input_figures_fold(&past, &b), 0);
	assert_int_equal(past.rules[0].ncomp, 3);
	assert_null(named(&past.rules[0], "ui"));
	assert_int_equal(named(&past.rules[0], "db")->ns[JANK_CLASS_SLOW][JANK_STATE_RUNNING], 51);
	assert_int_equal(named(&past.rules[0], "net")->ns[JANK_CLASS_SLOW][JANK_STATE_RUNNING], 40);
	assert_int_equal(named(&past.rules[0], "other")->ns[JANK_CLASS_SLOW][JANK_STATE_RUNNING],
			 14);
	assert_int_equal(named(&past.rules[0], "other")->ns[JANK_CLASS_NORMAL][JANK_STATE_TIMER],
			 3);
	jank_input_figures_fini(&m);
	jank_input_figures_fini(&a);
	jank_input_figures_fini(&b);
	jank_input_figures_fini(&past);
}

/*
 * The metrics the table declares: numbers only, each family named the
 * OpenMetrics way and described once (its first row has the help, a unit
 * that ends its name), and the rows of a family told apart by a label.
 */
static void metric_rows(void **state)
{
	const struct jank_figure_field *d = jank_input_figures_input_fields;
	size_t families = 0;

	(void)state;
	for (size_t k = 0; k < jank_input_figures_input_nfields; k++) {
		const struct jank_figure_metric *m = d[k].metric;
		size_t same = 0;

		if (!m)
			continue;
		assert_true(d[k].type == JANK_FIGURE_U64 || d[k].type == JANK_FIGURE_I64);
		assert_int_equal(strspn(m->name, "abcdefghijklmnopqrstuvwxyz_"), strlen(m->name));
		assert_memory_equal(m->name, "jank_", 5);
		for (size_t j = 0; j < jank_input_figures_input_nfields; j++)
			same += d[j].metric && !strcmp(d[j].metric->name, m->name);
		if (same > 1)
			assert_non_null(m->label);
		for (size_t j = 0; j < k; j++)
			if (d[j].metric && !strcmp(d[j].metric->name, m->name))
				goto next; /* described by its first row */
		families++;
		assert_non_null(m->help);
		assert_true(strlen(m->help) > 10);
		if (m->unit) {
			size_t n = strlen(m->name), u = strlen(m->unit);

			assert_true(n > u && !strcmp(m->name + n - u, m->unit));
		}
		/* A time shown in seconds: an I64 figure (ns), and only that. */
		assert_true((d[k].type == JANK_FIGURE_I64) ==
			    (m->unit && !strcmp(m->unit, "seconds")));
	next:;
	}
	/* events ... memory_bytes: 15 families of a worker's counters. */
	assert_int_equal(families, 15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fold_once),
		cmocka_unit_test(fold_twice),
		cmocka_unit_test(merge),
		cmocka_unit_test(merge_rule_gone),
		cmocka_unit_test(merge_empty_past),
		cmocka_unit_test(fold_placeholder),
		cmocka_unit_test(histogram_min_max),
		cmocka_unit_test(sums_saturate),
		cmocka_unit_test(json_keys),
		cmocka_unit_test(composition_fold),
		cmocka_unit_test(metric_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
