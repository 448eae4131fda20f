/* SPDX-License-Identifier: MIT */
/*
 * jank's results as JSON and as text, one file per object (format.h lists
 * them all):
 *
 *   format-verdict.c   an action's verdict (analyze, alerts, reports)
 *   format-summary.c   the per-rule counts and latencies
 *   format-path.c      critical paths: segments, breakdown, the story
 *   format-suspects.c  what was different from the normal actions
 *   format-graph.c     the execution graph, written as it is walked
 *
 * JSON goes through json-c (it does the escaping). Text is written for
 * someone reading an alert at 3 a.m.: a header that says what was slow and
 * by how much, the critical path as a short story ("waiting for tid 77
 * (db): running 18.2 ms"), and where the time went, in a small table.
 *
 * This file holds what they all use (format-int.h): times as wall-clock
 * text, threads and locks by name, and a JSON object as one line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "format-int.h"
#include "format.h"
#include "textsafe.h"

/*
 * Thread and process names are traced: escaped and cut (lib/textsafe.h). A
 * comm is 15 bytes; the engine's names are never longer than this.
 */
#define NAME_CHARS 32

/* Mutexes are named by address, as the pthread wrapper records them. */
const char *format_lock(uint64_t lock, char *buf, size_t len)
{
	snprintf(buf, len, "0x%" PRIx64, lock);
	return buf;
}

const char *jank_format_names(const char *process, const char *thread, char *buf, size_t len)
{
	const char *t = thread && thread[0] ? thread : "?";
	char ep[JANK_TEXT_SIZE(NAME_CHARS)], et[JANK_TEXT_SIZE(NAME_CHARS)];

	jank_text_escape(et, sizeof(et), t, strlen(t), NAME_CHARS);
	if (process && process[0] && strcmp(process, t) != 0) {
		jank_text_escape(ep, sizeof(ep), process, strlen(process), NAME_CHARS);
		snprintf(buf, len, "%s/%s", ep, et);
	} else
		snprintf(buf, len, "%s", et);
	return buf;
}

/*
 * A time from the trace clock's origin. LTTng's origin is the Unix epoch, so
 * print it as a local wall-clock time, as babeltrace2 does; small values (a
 * clock without that origin) are printed as seconds.
 */
const char *format_wall(int64_t ns, char *buf, size_t len)
{
	int64_t s = ns / 1000000000, frac = ns % 1000000000;
	struct tm tm;
	time_t t;

	if (ns < 0) {
		/* Before the clock's origin: the sign, then the magnitude (no overflow). */
		snprintf(buf, len, "-%" PRIu64 ".%09" PRIu64 " s", (uint64_t)0 - (uint64_t)s,
			 (uint64_t)0 - (uint64_t)frac);
		return buf;
	}
	t = (time_t)s;
	if (s < 1000000000 || !localtime_r(&t, &tm)) {
		snprintf(buf, len, "%" PRId64 ".%09" PRId64 " s", s, frac);
		return buf;
	}
	snprintf(buf, len, "%04d-%02d-%02d %02d:%02d:%02d.%09" PRId64, tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
	return buf;
}

/* "tid 77 (db)", or "tid 77" when the name is unknown. */
const char *format_thread(int32_t tid, const char *comm, char *buf, size_t len)
{
	char ec[JANK_TEXT_SIZE(NAME_CHARS)];

	if (comm && comm[0])
		snprintf(buf, len, "tid %" PRId32 " (%s)", tid,
			 jank_text(ec, sizeof(ec), comm)); /* at most NAME_CHARS: ec's size */
	else
		snprintf(buf, len, "tid %" PRId32, tid);
	return buf;
}

int jank_format_json_print(FILE *f, struct json_object *o)
{
	int r = 0;

	if (!o)
		return -ENOMEM;
	if (fprintf(f, "%s\n",
		    json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							      JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		r = -EIO;
	json_object_put(o);
	return r;
}
