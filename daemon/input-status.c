/* SPDX-License-Identifier: MIT */
/* The status object of one live input (see input-status.h). */
#include <math.h>
#include "input-status.h"
#include "json-util.h"

/* Status strings are never null: "" stands for none. */
static void put_str(struct json_object *o, const char *k, const char *v)
{
	jank_json_add_str(o, k, v ? v : "");
}

/*
 * The latency histogram whole, for the supervisor's metrics: sum, min, max
 * and the non-empty buckets as [index, count] pairs (its count is the rule's).
 */
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

static struct json_object *rule_json(const struct jank_engine *e, size_t i)
{
	const struct jank_rule *r = jank_engine_rule(e, i);
	const struct jank_histogram *h = jank_engine_rule_histogram(e, i);
	const struct jank_rule_stats *rs = jank_engine_rule_stats(e, i);
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	put_str(o, "action", r->name);
	jank_json_add_u64(o, "count", h->count);
	jank_json_add_u64(o, "janks", rs->janks);
	jank_json_add_u64(o, "overdue", rs->overdue);
	jank_json_add_u64(o, "expired", rs->expired);
	jank_json_add_u64(o, "evicted", rs->evicted);
	jank_json_add_i64(o, "last_jank_ns", rs->last_jank_ns);
	put_str(o, "last_jank_key", rs->last_jank_key);
	jank_json_add(o, "histogram", histogram_json(h));
	jank_json_add_i64(o, "threshold_ns", jank_threshold_current(&r->threshold, h));
	put_str(o, "threshold_kind", jank_threshold_kind_name(r->threshold.kind));
	jank_json_add_i64(o, "p50_ns", jank_histogram_percentile(h, 50));
	jank_json_add_i64(o, "p90_ns", jank_histogram_percentile(h, 90));
	jank_json_add_i64(o, "p99_ns", jank_histogram_percentile(h, 99));
	jank_json_add_i64(o, "max_ns", h->count ? h->max : 0);
	return o;
}

static void engine_json(struct json_object *o, const struct jank_engine_stats *es)
{
	jank_json_add_u64(o, "actions_completed", es->actions_completed);
	jank_json_add_u64(o, "janks", es->janks);
	jank_json_add_u64(o, "overdue", es->overdue);
	jank_json_add_u64(o, "overdue_unsure", es->overdue_unsure);
	jank_json_add_u64(o, "actions_open", es->actions_open);
	jank_json_add_u64(o, "actions_expired", es->actions_expired);
	jank_json_add_u64(o, "actions_replaced", es->actions_replaced);
	jank_json_add_u64(o, "actions_unmatched", es->actions_unmatched);
	jank_json_add_u64(o, "actions_dropped", es->actions_dropped);
	jank_json_add_u64(o, "actions_evicted", es->actions_evicted);
	jank_json_add_u64(o, "paths_truncated", es->paths_truncated);
	jank_json_add_u64(o, "paths_incomplete", es->paths_incomplete);
	jank_json_add_u64(o, "budget_forced", es->budget_forced);
	jank_json_add_u64(o, "memory_bytes", es->memory_bytes);
	jank_json_add_u64(o, "memory_peak", es->memory_peak);
}

static struct json_object *graph_json(const struct jank_graph_stats *g)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	jank_json_add_u64(o, "workers", g->workers);
	jank_json_add_u64(o, "vertices", g->vertices);
	jank_json_add_u64(o, "bytes", g->bytes);
	jank_json_add_u64(o, "freed_vertices", g->freed_vertices);
	jank_json_add_u64(o, "freed_workers", g->freed_workers);
	jank_json_add_u64(o, "gc_steps", g->gc_steps);
	return o;
}

struct json_object *jank_input_status_json(const struct jank_live_input *w)
{
	const struct jank_engine *e = jank_live_input_engine(w);
	struct json_object *o = json_object_new_object();
	struct json_object *rules = json_object_new_array();
	struct jank_live_input_stats ws;
	struct jank_engine_stats es;

	if (!o || !rules) {
		json_object_put(o);
		json_object_put(rules);
		return NULL;
	}
	jank_live_input_get_stats(w, &ws);
	jank_engine_get_stats(e, &es);
	put_str(o, "url", jank_live_input_url(w));
	put_str(o, "state", jank_live_input_state_name(ws.state));
	if (jank_live_input_last_error(w)[0])
		put_str(o, "last_error", jank_live_input_last_error(w));
	jank_json_add_bool(o, "attached", jank_live_input_attached(w));
	jank_json_add_u64(o, "events", es.events);
	jank_json_add_u64(o, "events_read", ws.events_read);
	json_object_object_add(
		o, "events_per_sec",
		json_object_new_double((double)llround(ws.events_per_sec * 10) / 10));
	jank_json_add_u64(o, "discarded_events", es.discarded_events);
	jank_json_add_u64(o, "disconnects", ws.disconnects);
	jank_json_add_u64(o, "reconnects", ws.reconnects);
	if (ws.trace_now != INT64_MIN)
		jank_json_add_i64(o, "trace_now", ws.trace_now);
	if (ws.stalled_since)
		jank_json_add_i64(o, "stalled_since", ws.stalled_since);
	jank_json_add_u64(o, "stalls", ws.stalls);
	/* The ends of what this worker read: a restart's skipped range starts at the last. */
	if (es.first != INT64_MIN)
		jank_json_add_i64(o, "first_event_ns", es.first);
	if (ws.last_event != INT64_MIN)
		jank_json_add_i64(o, "last_event_ns", ws.last_event);
	engine_json(o, &es);
	jank_json_add(o, "graph", graph_json(&es.graph));
	for (size_t i = 0; i < jank_engine_rule_count(e); i++)
		json_object_array_add(rules, rule_json(e, i));
	json_object_object_add(o, "rules", rules);
	return o;
}
