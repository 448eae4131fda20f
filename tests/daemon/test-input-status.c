/* SPDX-License-Identifier: MIT */
/*
 * daemon/worker/input-status.c: the status object a worker sends with each
 * heartbeat, built from hand-made input and engine figures (the live input's
 * and the engine's getters are wrapped: -Wl,--wrap), printed as the worker
 * sends it and parsed back as the supervisor reads it.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>
#include "histogram.h"
#include "input-figures.h"
#include "input-status.h"
#include "symbols.h"
#include "worker-proto.h"

#define MS 1000000LL

/* What the wrapped getters return. */
static struct fake {
	const char *url;
	const char *last_error;
	bool attached;
	struct jank_live_input_stats ws;
	struct jank_engine_stats es;
	struct jank_symbols_stats ss;
	size_t nrules;
	struct jank_rule rules[2];
	struct jank_histogram hists[2];
	struct jank_rule_stats rstats[2];
	struct jank_composition comps[2];
} * fake;

static const struct jank_engine *const fake_engine = (const struct jank_engine *)0x1000;

const struct jank_engine *__wrap_jank_live_input_engine(const struct jank_live_input *w);
const struct jank_engine *__wrap_jank_live_input_engine(const struct jank_live_input *w)
{
	(void)w;
	return fake_engine;
}

const char *__wrap_jank_live_input_url(const struct jank_live_input *w);
const char *__wrap_jank_live_input_url(const struct jank_live_input *w)
{
	(void)w;
	return fake->url;
}

bool __wrap_jank_live_input_attached(const struct jank_live_input *w);
bool __wrap_jank_live_input_attached(const struct jank_live_input *w)
{
	(void)w;
	return fake->attached;
}

const char *__wrap_jank_live_input_last_error(const struct jank_live_input *w);
const char *__wrap_jank_live_input_last_error(const struct jank_live_input *w)
{
	(void)w;
	return fake->last_error;
}

const char *__wrap_jank_live_input_decoder(const struct jank_live_input *w, const char **note);
const char *__wrap_jank_live_input_decoder(const struct jank_live_input *w, const char **note)
{
	(void)w;
	*note = "";
	return "native";
}

void __wrap_jank_live_input_get_stats(const struct jank_live_input *w,
				      struct jank_live_input_stats *out);
void __wrap_jank_live_input_get_stats(const struct jank_live_input *w,
				      struct jank_live_input_stats *out)
{
	(void)w;
	*out = fake->ws;
}

/* The worker's symbolizer: its opener's counts (fake->sym_stats). */
static struct jank_symbols *const fake_symbols = (struct jank_symbols *)0x2000;

struct jank_symbols *__wrap_jank_live_input_symbols(const struct jank_live_input *w);
struct jank_symbols *__wrap_jank_live_input_symbols(const struct jank_live_input *w)
{
	(void)w;
	return fake_symbols;
}

void __wrap_jank_symbols_get_stats(const struct jank_symbols *s, struct jank_symbols_stats *out);
void __wrap_jank_symbols_get_stats(const struct jank_symbols *s, struct jank_symbols_stats *out)
{
	assert_ptr_equal(s, fake_symbols);
	*out = fake->ss;
}

void __wrap_jank_engine_get_stats(const struct jank_engine *e, struct jank_engine_stats *out);
void __wrap_jank_engine_get_stats(const struct jank_engine *e, struct jank_engine_stats *out)
{
	assert_ptr_equal(e, fake_engine);
	*out = fake->es;
}

size_t __wrap_jank_engine_rule_count(const struct jank_engine *e);
size_t __wrap_jank_engine_rule_count(const struct jank_engine *e)
{
	assert_ptr_equal(e, fake_engine);
	return fake->nrules;
}

const struct jank_rule *__wrap_jank_engine_rule(const struct jank_engine *e, size_t i);
const struct jank_rule *__wrap_jank_engine_rule(const struct jank_engine *e, size_t i)
{
	assert_ptr_equal(e, fake_engine);
	assert_true(i < fake->nrules);
	return &fake->rules[i];
}

const struct jank_histogram *__wrap_jank_engine_rule_histogram(const struct jank_engine *e,
							       size_t i);
const struct jank_histogram *__wrap_jank_engine_rule_histogram(const struct jank_engine *e,
							       size_t i)
{
	assert_ptr_equal(e, fake_engine);
	assert_true(i < fake->nrules);
	return &fake->hists[i];
}

const struct jank_rule_stats *__wrap_jank_engine_rule_stats(const struct jank_engine *e, size_t i);
const struct jank_rule_stats *__wrap_jank_engine_rule_stats(const struct jank_engine *e, size_t i)
{
	assert_ptr_equal(e, fake_engine);
	assert_true(i < fake->nrules);
	return &fake->rstats[i];
}

const struct jank_composition *__wrap_jank_engine_rule_composition(const struct jank_engine *e,
								   size_t i);
const struct jank_composition *__wrap_jank_engine_rule_composition(const struct jank_engine *e,
								   size_t i)
{
	assert_ptr_equal(e, fake_engine);
	assert_true(i < fake->nrules);
	return &fake->comps[i];
}

static int setup(void **state)
{
	(void)state;
	fake = calloc(1, sizeof(*fake));
	if (!fake)
		return -1;
	fake->url = "net://relay/host/web1/jank";
	fake->last_error = "";
	fake->ws.trace_now = INT64_MIN;
	jank_histogram_init(&fake->hists[0]);
	jank_histogram_init(&fake->hists[1]);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(fake);
	fake = NULL;
	return 0;
}

/* As the supervisor decodes it: the figures must be readable. */
static void decode(struct json_object *o, struct jank_input_figures *f)
{
	char err[128] = "";

	jank_input_figures_init(f);
	if (jank_worker_proto_figures_decode(o, f, err, sizeof(err)) < 0)
		fail_msg("the figures cannot be read: %s", err);
}

/* Built, printed as the worker sends it, parsed and decoded as the supervisor reads it. */
static struct json_object *status_round_trip(void)
{
	struct json_object *o = jank_input_status_json((const struct jank_live_input *)0x2000);
	struct jank_input_figures f;
	struct json_object *back;

	assert_non_null(o);
	back = json_tokener_parse(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	assert_non_null(back);
	json_object_put(o);
	decode(back, &f);
	jank_input_figures_fini(&f);
	return back;
}

static struct json_object *member(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, k, &v))
		fail_msg("no \"%s\"", k);
	return v;
}

static int64_t num(struct json_object *o, const char *k)
{
	struct json_object *v = member(o, k);

	assert_true(json_object_is_type(v, json_type_int));
	return json_object_get_int64(v);
}

static const char *str(struct json_object *o, const char *k)
{
	struct json_object *v = member(o, k);

	assert_true(json_object_is_type(v, json_type_string));
	return json_object_get_string(v);
}

static void empty(void **state)
{
	struct json_object *o;

	(void)state;
	o = status_round_trip();
	assert_string_equal(str(o, "url"), "net://relay/host/web1/jank");
	assert_string_equal(str(o, "state"), "connecting");
	assert_false(json_object_get_boolean(member(o, "attached")));
	assert_int_equal(num(o, "events"), 0);
	assert_true(json_object_get_double(member(o, "events_per_sec")) == 0.0);
	/* No error, no trace time yet: absent, not "" or INT64_MIN. */
	assert_false(json_object_object_get_ex(o, "last_error", NULL));
	assert_false(json_object_object_get_ex(o, "trace_now", NULL));
	assert_true(json_object_is_type(member(o, "rules"), json_type_array));
	assert_int_equal(json_object_array_length(member(o, "rules")), 0);
	assert_int_equal(num(member(o, "graph"), "vertices"), 0);
	json_object_put(o);
}

static void input_figures(void **state)
{
	struct json_object *o;

	(void)state;
	fake->attached = true;
	fake->last_error = "relayd went away";
	fake->ws = (struct jank_live_input_stats){
		.state = JANK_LIVE_INPUT_RECONNECTING,
		.events_read = 12345,
		.discarded = 99, /* the engine's count is the one shown */
		.disconnects = 3,
		.reconnects = 2,
		.events_per_sec = 1234.56,
		.trace_now = 1700000000LL * 1000000000LL,
	};
	fake->es.events = 12000;
	fake->es.discarded_events = 7;
	fake->ss.opener_opened = 4;
	fake->ss.opener_refused = 2;
	o = status_round_trip();
	assert_int_equal(num(o, "opener_opened"), 4);
	assert_int_equal(num(o, "opener_refused"), 2);
	assert_string_equal(str(o, "state"), "reconnecting");
	assert_string_equal(str(o, "last_error"), "relayd went away");
	assert_true(json_object_get_boolean(member(o, "attached")));
	assert_int_equal(num(o, "events"), 12000);
	assert_int_equal(num(o, "events_read"), 12345);
	assert_int_equal(num(o, "discarded_events"), 7);
	assert_int_equal(num(o, "disconnects"), 3);
	assert_int_equal(num(o, "reconnects"), 2);
	assert_int_equal(num(o, "trace_now"), 1700000000LL * 1000000000LL);
	/* Rounded to a tenth. */
	assert_true(fabs(json_object_get_double(member(o, "events_per_sec")) - 1234.6) < 1e-9);
	json_object_put(o);

	fake->ws.state = JANK_LIVE_INPUT_CONNECTED;
	fake->ws.events_per_sec = 0.04;
	fake->ws.trace_now = 0;
	o = status_round_trip();
	assert_string_equal(str(o, "state"), "connected");
	assert_true(json_object_get_double(member(o, "events_per_sec")) == 0.0);
	/* 0 is a trace time (only INT64_MIN is none). */
	assert_int_equal(num(o, "trace_now"), 0);
	json_object_put(o);
}

static void engine_figures(void **state)
{
	struct json_object *o, *g;

	(void)state;
	fake->es = (struct jank_engine_stats){
		.events = 1,
		.actions_completed = 2,
		.janks = 3,
		.overdue = 4,
		.overdue_unsure = 5,
		.actions_open = 6,
		.actions_expired = 7,
		.actions_replaced = 8,
		.actions_unmatched = 9,
		.actions_dropped = 10,
		.actions_evicted = 11,
		.paths_truncated = 12,
		.paths_incomplete = 13,
		.budget_forced = 14,
		.discarded_events = 15,
		.memory_bytes = 16,
		.memory_peak = 17,
		.flows_expired = 25,
		.flows_evicted = 26,
		.graph = { .threads = 18,
			   .vertices = 19,
			   .bytes = 20,
			   .freed_vertices = 21,
			   .freed_threads = 22,
			   .gc_steps = 23,
			   .retired_threads = 24 },
	};
	o = status_round_trip();
	assert_int_equal(num(o, "events"), 1);
	assert_int_equal(num(o, "actions_completed"), 2);
	assert_int_equal(num(o, "janks"), 3);
	assert_int_equal(num(o, "overdue"), 4);
	assert_int_equal(num(o, "overdue_unsure"), 5);
	assert_int_equal(num(o, "actions_open"), 6);
	assert_int_equal(num(o, "actions_expired"), 7);
	assert_int_equal(num(o, "actions_replaced"), 8);
	assert_int_equal(num(o, "actions_unmatched"), 9);
	assert_int_equal(num(o, "actions_dropped"), 10);
	assert_int_equal(num(o, "actions_evicted"), 11);
	assert_int_equal(num(o, "flows_expired"), 25);
	assert_int_equal(num(o, "flows_evicted"), 26);
	assert_int_equal(num(o, "paths_truncated"), 12);
	assert_int_equal(num(o, "paths_incomplete"), 13);
	assert_int_equal(num(o, "budget_forced"), 14);
	assert_int_equal(num(o, "discarded_events"), 15);
	assert_int_equal(num(o, "memory_bytes"), 16);
	assert_int_equal(num(o, "memory_peak"), 17);
	g = member(o, "graph");
	assert_int_equal(num(g, "threads"), 18);
	assert_int_equal(num(g, "vertices"), 19);
	assert_int_equal(num(g, "bytes"), 20);
	assert_int_equal(num(g, "freed_vertices"), 21);
	assert_int_equal(num(g, "freed_threads"), 22);
	assert_int_equal(num(g, "gc_steps"), 23);
	/* No alias of them: "workers" are jankd's processes, counted in "fleet". */
	assert_null(json_object_object_get(g, "workers"));
	assert_null(json_object_object_get(g, "freed_workers"));
	/* A counter past INT64_MAX says INT64_MAX, never a negative number. */
	fake->es.events = UINT64_MAX;
	json_object_put(o);
	o = status_round_trip();
	assert_int_equal(num(o, "events"), INT64_MAX);
	json_object_put(o);
}

static void rules(void **state)
{
	struct json_object *o, *r0, *r1;
	struct jank_input_figures back;

	(void)state;
	fake->nrules = 2;
	fake->rules[0].name = "frame";
	fake->rules[0].threshold =
		(struct jank_threshold){ .kind = JANK_THRESHOLD_FIXED, .ns = 16 * MS };
	for (int i = 1; i <= 100; i++)
		jank_histogram_add(&fake->hists[0], i * MS);
	fake->rstats[0] = (struct jank_rule_stats){
		.janks = 84, .overdue = 2, .expired = 3, .evicted = 4, .last_jank_ns = 5555
	};
	strcpy(fake->rstats[0].last_jank_key, "tid=42");
	/* Its composition: "db" has time, "other" none (not sent); rule 1's is off. */
	jank_composition_init(&fake->comps[0], 4);
	jank_composition_add_time(&fake->comps[0], JANK_CLASS_SLOW, "db", JANK_STATE_BLOCK_DEVICE,
				  7 * MS);
	fake->rules[1].name = NULL; /* never null in the status */
	fake->rules[1].threshold = (struct jank_threshold){ .kind = JANK_THRESHOLD_ADAPTIVE,
							    .ns = 0,
							    .percentile = 99,
							    .factor = 2,
							    .warmup = 1000 };
	o = status_round_trip();
	assert_int_equal(json_object_array_length(member(o, "rules")), 2);
	r0 = json_object_array_get_idx(member(o, "rules"), 0);
	assert_string_equal(str(r0, "action"), "frame");
	assert_int_equal(num(r0, "count"), 100);
	assert_int_equal(num(r0, "janks"), 84);
	assert_int_equal(num(r0, "overdue"), 2);
	assert_int_equal(num(r0, "expired"), 3);
	assert_int_equal(num(r0, "evicted"), 4);
	assert_int_equal(num(r0, "last_jank_ns"), 5555);
	assert_string_equal(str(r0, "last_jank_key"), "tid=42");
	assert_int_equal(num(r0, "threshold_ns"), 16 * MS);
	assert_string_equal(str(r0, "threshold_kind"), "fixed");
	assert_int_equal(num(r0, "p50_ns"), jank_histogram_percentile(&fake->hists[0], 50));
	assert_int_equal(num(r0, "p90_ns"), jank_histogram_percentile(&fake->hists[0], 90));
	assert_int_equal(num(r0, "p99_ns"), jank_histogram_percentile(&fake->hists[0], 99));
	assert_int_equal(num(r0, "max_ns"), 100 * MS);
	assert_int_equal(num(r0, "composition_top"), 4);
	assert_string_equal(
		json_object_to_json_string_ext(member(r0, "composition"), JSON_C_TO_STRING_PLAIN),
		"[{\"on\":\"db\",\"normal\":{},\"slow\":{\"block_device\":7000000}}]");
	/* The histogram comes back whole: the supervisor's metrics are the engine's. */
	decode(o, &back);
	assert_memory_equal(&back.rules[0].hist, &fake->hists[0], sizeof(back.rules[0].hist));

	r1 = json_object_array_get_idx(member(o, "rules"), 1);
	assert_string_equal(str(r1, "action"), "");
	assert_int_equal(num(r1, "count"), 0);
	assert_string_equal(str(r1, "last_jank_key"), "");
	/* Still learning: no threshold yet. */
	assert_int_equal(num(r1, "threshold_ns"), 0);
	assert_string_equal(str(r1, "threshold_kind"), "adaptive");
	assert_int_equal(num(r1, "p99_ns"), 0);
	/* An empty histogram: 0s, not the INT64 extremes of its init. */
	assert_int_equal(num(r1, "max_ns"), 0);
	assert_int_equal(num(member(r1, "histogram"), "min"), 0);
	assert_int_equal(num(member(r1, "histogram"), "max"), 0);
	assert_int_equal(json_object_array_length(member(member(r1, "histogram"), "buckets")), 0);
	assert_int_equal(back.rules[1].hist.count, 0);
	assert_int_equal(back.rules[1].threshold_kind, JANK_THRESHOLD_ADAPTIVE);
	jank_input_figures_fini(&back);
	json_object_put(o);
}

/* The figures fold across workers as they were sent. */
static void folds(void **state)
{
	struct jank_input_figures f, past, m;
	struct json_object *o;

	(void)state;
	fake->nrules = 1;
	fake->rules[0].name = "frame";
	jank_histogram_add(&fake->hists[0], 5 * MS);
	fake->rstats[0].janks = 1;
	fake->es.events = 10;
	fake->es.janks = 1;
	fake->es.paths_truncated = 2;
	fake->ws.reconnects = 1;
	fake->ws.events_read = 11;
	o = status_round_trip();
	decode(o, &f);
	jank_input_figures_init(&past);
	jank_input_figures_init(&m);
	assert_int_equal(jank_input_figures_fold(&past, &f), 0);
	assert_int_equal(jank_input_figures_merge(&m, &f, &past), 0);
	assert_int_equal(m.engine.events, 20);
	assert_int_equal(m.events_read, 22);
	assert_int_equal(m.engine.janks, 2);
	assert_int_equal(m.engine.paths_truncated, 4);
	assert_int_equal(m.reconnects, 2);
	assert_int_equal(m.rules[0].count, 2);
	assert_int_equal(m.rules[0].stats.janks, 2);
	jank_input_figures_fini(&m);
	jank_input_figures_fini(&past);
	jank_input_figures_fini(&f);
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(empty, setup, teardown),
		cmocka_unit_test_setup_teardown(input_figures, setup, teardown),
		cmocka_unit_test_setup_teardown(engine_figures, setup, teardown),
		cmocka_unit_test_setup_teardown(rules, setup, teardown),
		cmocka_unit_test_setup_teardown(folds, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
