/* SPDX-License-Identifier: MIT */
/* An input's counters over its workers (see input-figures.h). */
#include <stdlib.h>
#include <string.h>
#include "histogram.h"
#include "input-figures.h"
#include "json-util.h"

/* The counters of input-status.c that add up across workers. */
static const char *const counters[] = {
	"events",
	"events_read",
	"discarded_events",
	"disconnects",
	"reconnects",
	"actions_completed",
	"janks",
	"overdue",
	"overdue_unsure",
	"actions_expired",
	"actions_replaced",
	"actions_unmatched",
	"actions_dropped",
	"actions_evicted",
	"paths_truncated",
	"paths_incomplete",
	"budget_forced",
};

static const char *const rule_counters[] = { "count", "janks", "overdue", "expired", "evicted" };
#define NRULE_COUNTERS (sizeof(rule_counters) / sizeof(rule_counters[0]))

static void add(struct json_object *to, struct json_object *from, const char *const *keys, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int64_t a = 0, b = 0;

		if (!jank_json_get_i64(from, keys[i], &b))
			continue;
		jank_json_get_i64(to, keys[i], &a);
		json_object_object_add(to, keys[i], json_object_new_int64(a + b));
	}
}

bool jank_figures_histogram(struct json_object *rule, struct jank_histogram *h)
{
	struct json_object *o = jank_json_get(rule, "histogram", json_type_object);
	struct json_object *b = jank_json_get(o, "buckets", json_type_array);
	int64_t v;

	jank_histogram_init(h);
	if (!o || !b)
		return false;
	if (jank_json_get_i64(o, "sum", &v))
		h->sum = (uint64_t)v;
	if (jank_json_get_i64(o, "min", &v))
		h->min = v;
	if (jank_json_get_i64(o, "max", &v))
		h->max = v;
	for (size_t i = 0; i < json_object_array_length(b); i++) {
		struct json_object *pair = json_object_array_get_idx(b, i);
		int64_t idx = json_object_get_int64(json_object_array_get_idx(pair, 0));
		int64_t n = json_object_get_int64(json_object_array_get_idx(pair, 1));

		if (idx >= 0 && idx < JANK_HIST_BUCKETS && n > 0) {
			h->buckets[idx] += (uint64_t)n;
			h->count += (uint64_t)n;
		}
	}
	return true;
}

/* Add the histogram of rule `from` to that of rule `to`. */
static void hist_add(struct json_object *to, struct json_object *from)
{
	struct jank_histogram *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	struct json_object *o, *pairs;

	if (!a || !b || !jank_figures_histogram(from, b) || !b->count)
		goto end;
	jank_figures_histogram(to, a);
	o = json_object_new_object();
	pairs = json_object_new_array();
	if (!o || !pairs) {
		json_object_put(o);
		json_object_put(pairs);
		goto end;
	}
	jank_json_add_u64(o, "sum", a->sum + b->sum < a->sum ? UINT64_MAX : a->sum + b->sum);
	jank_json_add_i64(o, "min", a->count && a->min < b->min ? a->min : b->min);
	jank_json_add_i64(o, "max", a->count && a->max > b->max ? a->max : b->max);
	for (unsigned i = 0; i < JANK_HIST_BUCKETS; i++) {
		struct json_object *pair;

		if (!a->buckets[i] && !b->buckets[i])
			continue;
		pair = json_object_new_array();
		if (!pair)
			break;
		json_object_array_add(pair, json_object_new_int64(i));
		json_object_array_add(
			pair, json_object_new_int64((int64_t)(a->buckets[i] + b->buckets[i])));
		json_object_array_add(pairs, pair);
	}
	json_object_object_add(o, "buckets", pairs);
	json_object_object_add(to, "histogram", o);
end:
	free(a);
	free(b);
}

/* The rule of that name in `rules`, an object of objects keyed by name. */
static struct json_object *rule_of(struct json_object *rules, const char *name)
{
	struct json_object *r = jank_json_get(rules, name, json_type_object);

	if (!r && (r = json_object_new_object()))
		json_object_object_add(rules, name, r);
	return r;
}

void jank_figures_fold(struct json_object *past, struct json_object *status)
{
	struct json_object *rules = jank_json_get(status, "rules", json_type_array);
	struct json_object *prules = jank_json_get(past, "rules", json_type_object);

	add(past, status, counters, sizeof(counters) / sizeof(counters[0]));
	if (!prules && (prules = json_object_new_object()))
		json_object_object_add(past, "rules", prules);
	for (size_t i = 0; prules && rules && i < json_object_array_length(rules); i++) {
		struct json_object *r = json_object_array_get_idx(rules, i);
		const char *name = jank_json_get_str(r, "action");
		struct json_object *to = name ? rule_of(prules, name) : NULL;

		if (to) {
			add(to, r, rule_counters, NRULE_COUNTERS);
			hist_add(to, r);
		}
	}
}

struct json_object *jank_figures_merge(struct json_object *status, struct json_object *past)
{
	struct json_object *o = NULL, *rules,
			   *prules = jank_json_get(past, "rules", json_type_object);

	if (json_object_deep_copy(status, &o, NULL) != 0)
		return NULL;
	add(o, past, counters, sizeof(counters) / sizeof(counters[0]));
	rules = jank_json_get(o, "rules", json_type_array);
	for (size_t i = 0; prules && rules && i < json_object_array_length(rules); i++) {
		struct json_object *r = json_object_array_get_idx(rules, i);
		const char *name = jank_json_get_str(r, "action");
		struct json_object *p = name ? jank_json_get(prules, name, json_type_object) : NULL;

		if (p) {
			add(r, p, rule_counters, NRULE_COUNTERS);
			hist_add(r, p);
		}
	}
	return o;
}
