/* SPDX-License-Identifier: MIT */
/*
 * Rotation mode ([capture] mode = rotation): the archived trace chunks of
 * the rotating capture session, which captures keep when they overlap a jank
 * and housekeeping deletes when they are old.
 */
#ifndef JANK_CAPTURE_CHUNKS_H
#define JANK_CAPTURE_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

/*
 * An archived chunk of a rotating session: <output>/archives/<begin>-<end>-<index>,
 * where begin and end are the local times lttng 2.13 wrote,
 * "YYYYmmddTHHMMSS+HHMM" (whole seconds).
 */
enum jank_capture_chunk_fate {
	JANK_CHUNK_PENDING = 0, /* too recent to decide */
	JANK_CHUNK_KEEP,	/* overlaps a jank: move it into that jank's capture */
	JANK_CHUNK_DELETE,	/* older than the retention and overlaps no jank */
};

struct jank_chunk {
	char name[64];
	int64_t begin_ns; /* creation time, rounded down to the second */
	int64_t end_ns;	  /* close time rounded up: the chunk ended before this */
	uint64_t index;
	enum jank_capture_chunk_fate fate; /* set by jank_capture_chunks_select() */
	size_t jank;			   /* KEEP: index of the first jank it overlaps */
};

struct jank_interval {
	int64_t begin;
	int64_t end;
};

struct jank_capture_chunk_times {
	int64_t retention_ns; /* keep this much trace before a jank, and before now */
	int64_t now_ns;
	int64_t oldest_open_ns; /* begin of the oldest open action; INT64_MAX: none */
};

/* "20240501T120000+0200-20240501T120010+0200-3". Returns 0 or -EINVAL. */
int jank_capture_chunk_parse(const char *name, struct jank_chunk *out);

/*
 * Decide each chunk's fate. A chunk is kept when it overlaps a jank's window
 * [begin - retention, end]; deleted when it overlaps none and ended before
 * both now - retention and oldest_open - retention (an open action may still
 * become a jank); pending otherwise.
 */
void jank_capture_chunks_select(struct jank_chunk *chunks, size_t n,
				const struct jank_interval *janks, size_t njanks,
				const struct jank_capture_chunk_times *p);

/* The chunks of an archives/ directory, by index. *out is malloc'd. Returns the count or -errno. */
int jank_capture_chunks_scan(const char *archives, struct jank_chunk **out);

/* The highest index of the chunks in `archives`: 1 with *index set, 0 when there is none, or
 * -errno. */
int jank_capture_chunks_newest(const char *archives, uint64_t *index);

#endif
