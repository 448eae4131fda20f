/* SPDX-License-Identifier: MIT */
/*
 * Output of reports, critical paths and graphs, as JSON (json-c) and as text
 * for humans. Shared by jankctl and jankd. One file per object, as the
 * sections below: format-verdict.c, format-summary.c, format-path.c,
 * format-suspects.c, format-graph.c; format.c has what they share.
 *
 * The *_json functions return a new json_object that the caller owns (put it
 * with json_object_put(), or hand it to jank_format_json_print()); NULL on
 * allocation failure. Times are integer nanoseconds from the trace clock's
 * origin; states are spelled as lib/state.c spells them.
 */
#ifndef JANK_FORMAT_H
#define JANK_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>
#include "engine.h"
#include "textsafe.h"

/* ---- A verdict (format-verdict.c; its JSON is io/verdict-json.h's) ---- */

/*
 * One action as a block of text: header, the events discarded in its
 * interval (jank_format_discarded), the path as a story, the breakdown.
 */
void jank_format_verdict_text(FILE *f, const struct jank_verdict *r);
/*
 * The host of a verdict's action (its path's last segment's) when its path
 * crosses hosts, NULL otherwise (one host: the host is the input's).
 */
const char *jank_format_verdict_host(const struct jank_verdict *r);
/*
 * "12 events discarded by the tracer during it: the path may be incomplete",
 * or "" for none. Returns buf.
 */
const char *jank_format_discarded(uint64_t n, char *buf, size_t len);

/* ---- The per-rule summary (format-summary.c) ---- */

/* {"type":"summary","action","count","over_threshold","p50_ns","p90_ns","p99_ns","max_ns"} */
struct json_object *jank_format_summary_json(const struct jank_engine *e, size_t rule);
/* The per-rule table: count, janks, p50, p90, p99, max. */
void jank_format_summary_text(FILE *f, const struct jank_engine *e);

/* ---- A critical path (format-path.c) ---- */

/* {"states":{"running":NS,...},"threads":[{"tid","comm","state","ns"}, ...]} */
struct json_object *jank_format_breakdown_json(const struct jank_breakdown *b);
/* A thread interval's critical path as a story and a breakdown. */
void jank_format_critpath_text(FILE *f, const struct jank_path *p, const struct jank_breakdown *b);
/*
 * The path as a one-line story (for alerts): "tid 4312 (worker) running
 * 2.10 ms → waiting for tid 77 (db): running 18.2 ms → ...", cut after
 * `max_steps` steps. Returns the length it needed, like snprintf.
 */
size_t jank_format_path_story(char *buf, size_t len, const struct jank_path *p, size_t max_steps);

/*
 * The function the path spent most time in (the breakdown's first innermost
 * function) and that time; NULL when the path has no stacks.
 */
const char *jank_format_top_function(const struct jank_breakdown *b, int64_t *ns);

/*
 * A function's name as the story's stacks show it (sanitized, escaped, cut
 * at JANK_FORMAT_STACK_NAME_CHARS), or, with in_suspect, as a suspect's
 * phrase does (JANK_FORMAT_SUSPECT_FUNCTION_CHARS): for jankd's alerter,
 * which rewrites what it keeps of a verdict when a frame's name comes
 * late. JANK_FORMAT_FRAME_TEXT_LEN holds any. Returns buf.
 */
#define JANK_FORMAT_STACK_NAME_CHARS	   40
#define JANK_FORMAT_SUSPECT_FUNCTION_CHARS 80
#define JANK_FORMAT_FRAME_TEXT_LEN	   JANK_TEXT_SIZE(JANK_FORMAT_SUSPECT_FUNCTION_CHARS)
const char *jank_format_frame_text(const char *name, bool in_suspect, char *buf, size_t len);

/* ---- Suspects (format-suspects.c) ---- */

/*
 * One suspect in words: "+39.8 ms block_device waiting on db (normally
 * 200 us, 200x)", "+20.0 ms preempted (normally none), CPU taken by tid 812
 * (hog)", "+50.0 ms waiting for lock 0x55d0 held by db (normally 1.00 us)".
 * `ss` gives who had the CPU (preempted suspects). Returns buf.
 */
const char *jank_format_suspect(const struct jank_suspect *s, const struct jank_suspects *ss,
				char *buf, size_t len);
/*
 * The suspects in one line: the top one in words, "no baseline yet (3 of 10
 * normal actions)", or "nothing above normal (15 normal actions)". Returns buf.
 */
const char *jank_format_suspects_line(const struct jank_suspects *ss, char *buf, size_t len);

/* ---- The execution graph (format-graph.c) ---- */

/*
 * The graph, {"threads":[{"tid","comm","intervals":[{"begin","end","state"}]}],
 * "links":[{"from_tid","to_tid","ts","state"}]}, written as it is built so
 * that a big graph never sits in memory as JSON. `tid` < 0: every thread;
 * else only that tid's thread records and the links that touch it.
 * Returns 0, -ENOENT when `tid` has no thread record, -ENOMEM, or -EIO.
 */
int jank_format_graph_json(FILE *f, const struct jank_graph *g, int32_t tid);
/* The same graph as a table for humans. */
int jank_format_graph_text(FILE *f, const struct jank_graph *g, int32_t tid);

/* ---- Shared (format.c) ---- */

/* Print `o` on one line (JSON Lines) and put it. Returns 0 or -errno. */
int jank_format_json_print(FILE *f, struct json_object *o);
/*
 * A thread by its names: "db", or "renderer/db" when its process is named
 * otherwise; each escaped and cut as a traced string (lib/textsafe.h).
 * JANK_FORMAT_NAMES_LEN holds any; JANK_FORMAT_THREAD_LEN any "tid 77 (db)".
 */
#define JANK_FORMAT_NAMES_LEN  280
#define JANK_FORMAT_THREAD_LEN 160
/* Holds any jank_format_suspect(). */
#define JANK_FORMAT_SUSPECT_LEN 800
const char *jank_format_names(const char *process, const char *thread, char *buf, size_t len);

#endif
