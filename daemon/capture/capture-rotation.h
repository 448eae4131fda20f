/* SPDX-License-Identifier: MIT */
/*
 * Captures in rotation mode ([capture] mode = rotation; README "Captures"):
 * the capture session is a normal one writing to DIR/.rotating/NAME, rotated
 * by lttng on its schedule. A capture rotates it at once (the jank's end is
 * then in an archived chunk), and moves the archived chunks that overlap
 * [begin - retention, end] of its janks (the flagged one and those that
 * joined) into DIR/TIME-ACTION-TID/chunks/. Once a second, the recorder
 * deletes the chunks that overlap no captured jank and ended more than twice
 * the retention ago (an action still open may yet become a jank, and chunk
 * times are whole seconds).
 *
 * The janks, the retention and the counters are under *lock (the loop adds
 * janks); the rest runs on the capture session's thread (capture-session.h).
 */
#ifndef JANK_CAPTURE_ROTATION_H
#define JANK_CAPTURE_ROTATION_H

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "capture-chunks.h"
#include "capture-policy.h"

#define JANK_CAPTURE_ROTATION_MAX_JANKS 1024 /* captured janks remembered for their chunks */
/* A disturbed rotation is tried this many times in all, waiting 200 ms, then 400 ms. */
#define JANK_CAPTURE_ROTATION_ATTEMPTS 3
#define JANK_CAPTURE_ROTATION_RETRY_MS 200

struct jank_capture_session;

/* A jank that took or joined a capture: its chunks are kept. */
struct jank_capture_kept_jank {
	struct jank_interval window; /* [begin - retention, end] */
	char dir[PATH_MAX];
};

struct jank_capture_rotation {
	pthread_mutex_t *lock; /* may be NULL */
	/* Under *lock. */
	int64_t retention_ns;
	struct jank_capture_kept_jank *janks; /* the captured janks of the last while */
	size_t njanks;
	uint64_t chunks_kept;
	uint64_t chunks_deleted;
	uint64_t rotations_waited;  /* captures that waited for a scheduled rotation to end */
	uint64_t rotations_retried; /* rotations tried again after a disturbed one */
};

void jank_capture_rotation_init(struct jank_capture_rotation *rot, pthread_mutex_t *lock);
void jank_capture_rotation_fini(struct jank_capture_rotation *rot);

/* Remember the window of a jank that took or joined capture `dir` (caller holds *lock). */
void jank_capture_rotation_keep_jank(struct jank_capture_rotation *rot, int64_t begin, int64_t end,
				     const char *dir);

/*
 * Rotate the session now, then move the archived chunks that overlap the
 * janks of `dir` into it. A rotation already pending is waited for (counted
 * in rotations_waited), or is enough when a rotation that started meanwhile
 * archived the chunk. Returns 0, or -errno with `err` set (-ENODATA: no
 * chunk overlaps the jank).
 */
int jank_capture_rotation_collect(struct jank_capture_rotation *rot, struct jank_capture_session *s,
				  struct jank_capture_policy *policy, const char *dir, char *err,
				  size_t len);

/*
 * Delete the chunks that overlap no captured jank and ended before `now`
 * (wall clock, ns) minus twice the retention; forget the janks whose chunks
 * are long gone. Nothing when the session is not a rotating one.
 */
void jank_capture_rotation_housekeeping(struct jank_capture_rotation *rot,
					struct jank_capture_session *s,
					struct jank_capture_policy *policy, int64_t now);

#endif
