/* SPDX-License-Identifier: MIT */
/*
 * An action's verdict (struct jank_verdict) as a block of text: what was
 * slow and by how much, when, its critical path (format-path.c) and its
 * suspects (format-suspects.c). Its JSON is io/verdict-json.c's.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include "format-int.h"
#include "format.h"
#include "textsafe.h"
#include "units.h"

const char *jank_format_discarded(uint64_t n, char *buf, size_t len)
{
	if (!n)
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len,
			 "%" PRIu64 " event%s discarded by the tracer during it: the path may be "
			 "incomplete",
			 n, n == 1 ? "" : "s");
	return buf;
}

const char *jank_format_verdict_host(const struct jank_verdict *r)
{
	const struct jank_label *l;

	if (!r->path || !r->path->n)
		return NULL;
	l = jank_path_label_of(r->path, r->path->segs[r->path->n - 1].host);
	return l ? l->name : NULL;
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
	if (jank_format_verdict_host(r)) {
		char host[JANK_TEXT_SIZE(JANK_LABEL_NAME_LEN)];

		fprintf(f, " on %s", jank_text(host, sizeof(host), jank_format_verdict_host(r)));
	}
	fprintf(f, "\n  from %s to %s\n", format_wall(r->begin, w1, sizeof(w1)),
		format_wall(r->end, w2, sizeof(w2)));
	if (r->discarded_events) {
		char lost[128];

		fprintf(f, "  %s\n",
			jank_format_discarded(r->discarded_events, lost, sizeof(lost)));
	}
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
