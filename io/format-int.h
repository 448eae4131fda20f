/* SPDX-License-Identifier: MIT */
/*
 * What the io/format-*.c files share (and verdict-json.c, which names
 * locks as they do), and nothing else includes: the pieces of text they
 * all write (format.c), and the blocks of a verdict's text that
 * format-verdict.c borrows from format-path.c and format-suspects.c.
 */
#ifndef JANK_FORMAT_INT_H
#define JANK_FORMAT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "engine.h"

/* ---- format.c ---- */

/* A mutex, named by address as the pthread wrapper records it: "0x55d0". Returns buf. */
const char *format_lock(uint64_t lock, char *buf, size_t len);
/* "tid 77 (db)", or "tid 77" when the name is unknown. Returns buf. */
const char *format_thread(int32_t tid, const char *comm, char *buf, size_t len);
/*
 * A time from the trace clock's origin, as a local wall-clock time (LTTng's
 * origin is the Unix epoch), or in seconds when small. Returns buf.
 */
/*
 * A stack of the path as text, innermost first: "apply_discounts ←
 * compute_price ← run_task" (at most `max` frames, then "← …"); "" for none.
 */
const char *format_stack(const struct jank_path *p, uint32_t stack, unsigned max, char *buf,
			 size_t len);
/* The name of a breakdown's function i ("" when unknown). */
const char *format_function(const struct jank_breakdown *b, size_t i);
const char *format_wall(int64_t ns, char *buf, size_t len);

/* ---- format-path.c ---- */

/* The path as a story, a step per line, each line after `indent`. */
void format_story_text(FILE *f, const struct jank_path *p, const char *indent);
/* Where the time went: per state, per thread and per lock, in shares of `total`. */
void format_breakdown_text(FILE *f, const struct jank_breakdown *b, int64_t total);

/* ---- format-suspects.c ---- */

/* What was different from the normal actions, largest increase first. */
void format_suspects_text(FILE *f, const struct jank_suspects *ss);

#endif
