/* SPDX-License-Identifier: MIT */
/* An input's counters over its workers (see input-figures.h). */
#include <string.h>
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

static const char *const rule_counters[] = { "count", "janks" };

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

		if (to)
			add(to, r, rule_counters, 2);
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

		if (p)
			add(r, p, rule_counters, 2);
	}
	return o;
}
