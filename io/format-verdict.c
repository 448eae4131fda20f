/* SPDX-License-Identifier: MIT */
/*
 * An action's verdict (struct jank_verdict), as one JSON object and as a
 * block of text: what was slow and by how much, when, its critical path
 * (format-path.c) and its suspects (format-suspects.c). jankctl analyze
 * prints it; jankd's workers send it to the supervisor as this JSON.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include "format-int.h"
#include "format.h"
#include "textsafe.h"
#include "json-util.h"
#include "units.h"

struct json_object *jank_format_verdict_json(const struct jank_verdict *r)
{
	struct json_object *o = json_object_new_object();
	int e = 0;

	if (!o)
		return NULL;
	e |= jank_json_add_str(o, "type", "action");
	if (r->kind == JANK_VERDICT_OVERDUE)
		e |= jank_json_add_str(o, "kind", "overdue");
	e |= jank_json_add_str(o, "action", r->rule ? r->rule->name : NULL);
	e |= jank_json_add_str(o, "key", r->key);
	e |= jank_json_add_i64(o, "begin", r->begin);
	e |= jank_json_add_i64(o, "end", r->end);
	e |= jank_json_add_i64(o, "duration_ns", r->duration);
	e |= jank_json_add_i64(o, "threshold_ns", r->threshold);
	e |= jank_json_add_i64(o, "tid", r->tid);
	e |= jank_json_add_i64(o, "pid", r->pid);
	e |= jank_json_add_str(o, "comm", r->comm);
	e |= jank_json_add_bool(o, "over_threshold", r->over_threshold);
	if (r->path && r->path->truncated)
		e |= jank_json_add_bool(o, "truncated", true);
	if (r->incomplete)
		e |= jank_json_add_bool(o, "incomplete", true);
	e |= jank_json_add(o, "critical_path", jank_format_segments_json(r->path));
	e |= jank_json_add(o, "breakdown", jank_format_breakdown_json(r->breakdown));
	if (r->suspects)
		e |= jank_json_add(o, "suspects", jank_format_suspects_json(r->suspects));
	if (e) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

void jank_format_verdict_text(FILE *f, const struct jank_verdict *r)
{
	char d[32], t[32], th[JANK_FORMAT_THREAD_LEN], w1[48], w2[48];
	char name[JANK_TEXT_BUF], key[JANK_TEXT_BUF];
	const char *verdict = r->kind == JANK_VERDICT_OVERDUE ? "OVERDUE"
			      : r->over_threshold	      ? "JANK"
							      : "ok";

	/* The key (and every name below) came from traced programs: escaped (textsafe.h). */
	fprintf(f, "%s %s", verdict, jank_text(name, sizeof(name), r->rule ? r->rule->name : "?"));
	if (r->key && r->key[0])
		fprintf(f, " [%s]", jank_text(key, sizeof(key), r->key));
	fprintf(f, ": %s", jank_units_duration(r->duration, d, sizeof(d)));
	if (r->kind == JANK_VERDICT_OVERDUE)
		fprintf(f, " and still open");
	if (r->threshold > 0)
		fprintf(f, " (threshold %s, %.1fx)",
			jank_units_duration(r->threshold, t, sizeof(t)),
			(double)r->duration / (double)r->threshold);
	else
		fprintf(f, " (no threshold yet)");
	fprintf(f, " on %s", format_thread(r->tid, r->comm, th, sizeof(th)));
	if (r->pid >= 0)
		fprintf(f, " pid %" PRId32, r->pid);
	fprintf(f, "\n  from %s to %s\n", format_wall(r->begin, w1, sizeof(w1)),
		format_wall(r->end, w2, sizeof(w2)));
	if (r->path) {
		fprintf(f, "  critical path:\n");
		format_story_text(f, r->path, "    ");
	}
	format_breakdown_text(f, r->breakdown,
			      r->path ? r->path->end - r->path->begin : r->duration);
	if (r->suspects)
		format_suspects_text(f, r->suspects);
	fputc('\n', f);
}
