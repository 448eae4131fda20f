/* SPDX-License-Identifier: MIT */
/*
 * The summary of each [action] rule after an analysis: how many actions,
 * how many over the threshold, and the latency percentiles, as one JSON
 * object per rule and as a table.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "format.h"
#include "textsafe.h"
#include "json-util.h"
#include "units.h"

struct json_object *jank_format_summary_json(const struct jank_engine *e, size_t rule)
{
	const struct jank_histogram *h = jank_engine_rule_histogram(e, rule);
	const struct jank_rule *ru = jank_engine_rule(e, rule);
	struct json_object *o = json_object_new_object();
	int r = 0;

	if (!o)
		return NULL;
	r |= jank_json_add_str(o, "type", "summary");
	r |= jank_json_add_str(o, "action", ru ? ru->name : NULL);
	r |= jank_json_add_i64(o, "count", h ? (int64_t)h->count : 0);
	r |= jank_json_add_i64(o, "over_threshold", (int64_t)jank_engine_rule_janks(e, rule));
	r |= jank_json_add_i64(o, "p50_ns", h ? jank_histogram_percentile(h, 50) : 0);
	r |= jank_json_add_i64(o, "p90_ns", h ? jank_histogram_percentile(h, 90) : 0);
	r |= jank_json_add_i64(o, "p99_ns", h ? jank_histogram_percentile(h, 99) : 0);
	r |= jank_json_add_i64(o, "max_ns", h && h->count ? h->max : 0);
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

#define SUMMARY_NAME_CHARS 64

/* A rule's name in the table, escaped and cut as any name shown (textsafe.h). */
static const char *summary_name(const struct jank_rule *r, char *buf, size_t len)
{
	const char *s = r && r->name ? r->name : "?";

	jank_text_escape(buf, len, s, strlen(s), SUMMARY_NAME_CHARS);
	return buf;
}

void jank_format_summary_text(FILE *f, const struct jank_engine *e)
{
	size_t n = jank_engine_rule_count(e);
	int w = 6;
	char c[5][32], name[JANK_TEXT_SIZE(SUMMARY_NAME_CHARS)];

	for (size_t i = 0; i < n; i++) {
		const struct jank_rule *r = jank_engine_rule(e, i);
		int l = r && r->name ? (int)strlen(summary_name(r, name, sizeof(name))) : 1;

		if (l > w)
			w = l;
	}
	fprintf(f, "%-*s %8s %8s %12s %12s %12s %12s\n", w, "action", "count", "janks", "p50",
		"p90", "p99", "max");
	for (size_t i = 0; i < n; i++) {
		const struct jank_rule *r = jank_engine_rule(e, i);
		const struct jank_histogram *h = jank_engine_rule_histogram(e, i);
		uint64_t count = h ? h->count : 0;

		if (count == 0) {
			fprintf(f, "%-*s %8d %8d %12s %12s %12s %12s\n", w,
				summary_name(r, name, sizeof(name)), 0, 0, "-", "-", "-", "-");
			continue;
		}
		fprintf(f, "%-*s %8" PRIu64 " %8" PRIu64 " %12s %12s %12s %12s\n", w,
			summary_name(r, name, sizeof(name)), count, jank_engine_rule_janks(e, i),
			jank_units_duration(jank_histogram_percentile(h, 50), c[0], sizeof(c[0])),
			jank_units_duration(jank_histogram_percentile(h, 90), c[1], sizeof(c[1])),
			jank_units_duration(jank_histogram_percentile(h, 99), c[2], sizeof(c[2])),
			jank_units_duration(h->max, c[3], sizeof(c[3])));
	}
}
