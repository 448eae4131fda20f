/* SPDX-License-Identifier: MIT */
/*
 * The one JSON form of a verdict (struct jank_verdict), written and read
 * here only: `jankctl analyze --format json` prints it, jankd's workers
 * send it to the supervisor in their "verdict" frames, jankd's json alert
 * target prints it, capture.json records the flagged action (and each
 * joined one) as its head, and report.json is it with the capture's
 * analysis added. A new field of a verdict is a change of this file's
 * encoder and decoder, side by side in verdict-json.c.
 *
 *   {"type":"action","kind":"completed"|"overdue","action","key","begin",
 *    "end","duration_ns","threshold_ns","tid","pid","comm","over_threshold",
 *    -- the head; then, in full --
 *    "discarded_events", "truncated":true?, "incomplete":true?, "critical_path":[{"tid","comm",
 *    "state","begin","end","lock"?,"flow"?,"span":{"action","key"}?,
 *    "stack":[function names]?}], "breakdown":{...}, "suspects":{...}?}
 *
 * Times are integer nanoseconds from the trace clock's origin. The
 * breakdown is derived from the path: the decoder computes it again, as the
 * engine does, and ignores the one in the JSON; so are the suspects' texts
 * and summary, which the encoder writes from the numbers.
 *
 * The decoder reads untrusted JSON (a worker's frame, a capture directory)
 * and checks every field: types, ranges, string lengths, and the path's
 * shape (each segment within the action, in time order, none ending
 * before it begins, so that no sum of its durations can overflow). A
 * member that is absent or null takes its default where it has one.
 */
#ifndef JANK_VERDICT_JSON_H
#define JANK_VERDICT_JSON_H

#include <stdint.h>
#include <json-c/json.h>
#include "engine.h"

/* What of a verdict its JSON carries. */
enum jank_verdict_parts {
	JANK_VERDICT_JSON_HEAD = 0, /* what, which, when, who: no path, breakdown or suspects */
	JANK_VERDICT_JSON_FULL,	    /* and its path, breakdown and suspects (when it has them) */
};

/* Limits of the decoder: a time is within ±JANK_VERDICT_TIME_MAX ns of the origin (126 years). */
#define JANK_VERDICT_TIME_MAX	  INT64_C(4000000000000000000)
#define JANK_VERDICT_ACTION_LEN	  4096	     /* an action's name, with its NUL */
#define JANK_VERDICT_MAX_SEGMENTS (1u << 22) /* more than a 64 MiB frame can hold */
/*
 * The JSON of a traced string that fits a buffer of `len` bytes: made valid
 * UTF-8 by the encoder (json-util.h), each invalid byte three bytes of
 * U+FFFD. The decoder reads up to this many bytes of it, with the NUL.
 */
#define JANK_VERDICT_TEXT_LEN(len) (((size_t)(len)-1) * 3 + 1)

/* A new object (put it), NULL on allocation failure. `v->rule` may be NULL (action: null). */
struct json_object *jank_verdict_to_json(const struct jank_verdict *v,
					 enum jank_verdict_parts parts);

/* A verdict read back, with all it points to. */
struct jank_verdict_decoded {
	struct jank_verdict v;
	struct jank_rule rule;		 /* only named ("action"): v.rule points here */
	struct jank_path path;		 /* v.path: empty when the JSON has no critical_path */
	struct jank_breakdown breakdown; /* v.breakdown, computed from the path */
	struct jank_suspects suspects;	 /* v.suspects points here when the JSON has them */
	/* Whole, as the JSON holds them (valid UTF-8) */
	char key[JANK_VERDICT_TEXT_LEN(JANK_KEY_LEN)];
	char comm[JANK_VERDICT_TEXT_LEN(JANK_COMM_LEN)]; /* v.comm: NULL when absent or null */
};

/* Why a verdict was refused: the member ("tid", "critical_path[3].end") and what is wrong. */
struct jank_verdict_json_error {
	char field[128];
	char why[160];
};

/*
 * Read the verdict `o` into `out`. Returns 0, -EINVAL (`err` says which
 * member and why) or -ENOMEM. The rule is a stub that only names the
 * action: a reader binds its own rule of that name, if it has one. Free
 * with jank_verdict_decoded_fini() either way.
 */
int jank_verdict_from_json(struct json_object *o, struct jank_verdict_decoded *out,
			   struct jank_verdict_json_error *err);
void jank_verdict_decoded_fini(struct jank_verdict_decoded *d);

/*
 * A path's segments, [{"tid","comm","state","begin","end","lock"?,"flow"?,
 * "span"?,"stack"?}], NULL or empty: []. "flow" names the flow that brought
 * the path to the segment's thread, "span" ({"action","key"}) the thread's
 * innermost open action (lib/critpath.h's labels), "stack" its call stack,
 * function names outermost first (the path's frames).
 */
struct json_object *jank_segments_to_json(const struct jank_path *p);
/*
 * jankctl critpath's object: {"tid","begin","end","segments":[...],
 * "breakdown":{...}} (+"truncated", "incomplete": true), the segments as a
 * verdict's critical_path, the breakdown jank_format_breakdown_json()'s.
 */
struct json_object *jank_critpath_to_json(const struct jank_path *p,
					  const struct jank_breakdown *b);
/*
 * {"ready","normal_actions","needed","baseline":"before"|"trace"?,
 * "normal_duration_ns","summary","items":[{"kind","lock"|"function"?,
 * "state"?,"process","thread","tid","own","increase","slow_presence",
 * "normal_presence","rank_ns","ns","normal_ns","delta_ns","ratio","text"}],
 * "cpu_taken_by":[{"tid","comm","ns"}]}: "baseline" when ready or compared
 * with the whole trace (jankctl analyze); a function's name, its
 * probabilities and rank only for kind "function".
 */
struct json_object *jank_suspects_to_json(const struct jank_suspects *ss);

#endif
