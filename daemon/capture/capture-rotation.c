/* SPDX-License-Identifier: MIT */
/*
 * Captures in rotation mode: the chunks a capture takes, and the ones
 * housekeeping deletes (see capture-rotation.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <syslog.h>
#include "capture-rotation.h"
#include "capture-session.h"
#include "clock.h"
#include "dirtree.h"

static void lock(struct jank_capture_rotation *rot)
{
	if (rot->lock)
		pthread_mutex_lock(rot->lock);
}

static void unlock(struct jank_capture_rotation *rot)
{
	if (rot->lock)
		pthread_mutex_unlock(rot->lock);
}

void jank_capture_rotation_init(struct jank_capture_rotation *rot, pthread_mutex_t *lock)
{
	memset(rot, 0, sizeof(*rot));
	rot->lock = lock;
}

void jank_capture_rotation_fini(struct jank_capture_rotation *rot)
{
	free(rot->janks);
	rot->janks = NULL;
	rot->njanks = 0;
}

void jank_capture_rotation_keep_jank(struct jank_capture_rotation *rot, int64_t begin, int64_t end,
				     const char *dir)
{
	struct jank_capture_kept_jank *k;

	if (rot->njanks == JANK_CAPTURE_ROTATION_MAX_JANKS) {
		memmove(rot->janks, rot->janks + 1,
			(JANK_CAPTURE_ROTATION_MAX_JANKS - 1) * sizeof(*rot->janks));
		rot->njanks--;
	}
	if (!rot->janks) {
		rot->janks = malloc(JANK_CAPTURE_ROTATION_MAX_JANKS * sizeof(*rot->janks));
		if (!rot->janks)
			return;
	}
	k = &rot->janks[rot->njanks++];
	k->window.begin = begin;
	k->window.end = end;
	snprintf(k->dir, sizeof(k->dir), "%s", dir);
}

/* The windows of the janks kept for `dir` (all of them when NULL). malloc'd; *n set. */
static struct jank_interval *windows(struct jank_capture_rotation *rot, const char *dir, size_t *n)
{
	struct jank_interval *v = malloc((rot->njanks + 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < rot->njanks; i++)
		if (!dir || !strcmp(rot->janks[i].dir, dir))
			v[(*n)++] = rot->janks[i].window;
	return v;
}

/* Remember the highest chunk index seen: captures move chunks out of archives/. */
static void note_chunks(struct jank_capture_session *s, const struct jank_chunk *chunks, int n)
{
	for (int i = 0; i < n; i++)
		if (chunks[i].index + 1 > s->chunks_seen)
			s->chunks_seen = chunks[i].index + 1;
}

/*
 * jank_lttng_session_rotate's `covered` while a rotation is pending. The jank's
 * end is already in the session's buffers (jankd saw it through the live
 * session). Chunk k is archived when rotation k ends, and rotation k+1
 * starts after that. So the rotation pending at the first refusal archives
 * the chunk after the newest one seen then (or, once it has ended, that
 * very one), and a chunk two further was closed by a rotation that started
 * after the refusal: the chunks up to it hold the end.
 */
struct cover {
	struct jank_capture_session *s;
	const char *archives;
	bool asked;
	uint64_t first; /* chunks_seen at the first refusal */
};

static bool chunk_covers(void *arg)
{
	struct cover *c = arg;
	uint64_t newest;
	int r = jank_capture_chunks_newest(c->archives, &newest);

	if (r > 0 && newest + 1 > c->s->chunks_seen)
		c->s->chunks_seen = newest + 1;
	if (!c->asked) {
		c->asked = true;
		c->first = c->s->chunks_seen;
		return false;
	}
	return c->s->chunks_seen >= c->first + 2;
}

/*
 * Rotate, then scan the archives. Returns the number of chunks (in *out), or
 * -errno with the reason in err.
 */
static int rotate_and_scan(struct jank_capture_rotation *rot, struct jank_capture_session *s,
			   const char *archives, struct jank_chunk **out, char *err, size_t len)
{
	struct cover cover = { .s = s, .archives = archives };
	int n, r;

	/* The session's thread writes s->current: reading it needs no lock. */
	r = s->ops->rotate(s->current.name, chunk_covers, &cover, err, len);
	if (r < 0)
		return r;
	if (r & JANK_LTTNG_SESSION_WAITED) {
		lock(rot);
		rot->rotations_waited++;
		unlock(rot);
		if (s->log) {
			char line[PATH_MAX + 1024];

			snprintf(line, sizeof(line), "capture: %s", err);
			s->log(s->log_data, LOG_DEBUG, line);
		}
	}
	n = jank_capture_chunks_scan(archives, out);
	if (n < 0)
		snprintf(err, len, "cannot read %.900s: %s", archives, strerror(-n));
	return n;
}

/* Move the chunks that overlap a kept jank into `dir`; how many were, or -errno. */
static int keep_chunks(struct jank_capture_rotation *rot, struct jank_capture_policy *policy,
		       const char *archives, struct jank_chunk *chunks, int n, const char *dir,
		       char *err, size_t len)
{
	struct jank_capture_chunk_times pol = { .now_ns = jank_clock_realtime_ns(),
						.oldest_open_ns = INT64_MAX };
	struct jank_interval *win;
	size_t nwin = 0;
	int kept = 0, r = 0;

	lock(rot);
	pol.retention_ns = rot->retention_ns;
	win = windows(rot, dir, &nwin);
	unlock(rot);
	if (!win) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	jank_capture_chunks_select(chunks, (size_t)n, win, nwin, &pol);
	for (int i = 0; i < n; i++) {
		if (chunks[i].fate != JANK_CHUNK_KEEP)
			continue;
		lock(rot);
		r = jank_capture_policy_keep_chunk(policy, archives, &chunks[i], dir);
		if (r == 0)
			rot->chunks_kept++;
		unlock(rot);
		if (r < 0) {
			snprintf(err, len, "cannot keep the chunk %s: %s", chunks[i].name,
				 strerror(-r));
			break;
		}
		kept++;
	}
	free(win);
	return r < 0 ? r : kept;
}

/* Whether a failed attempt may succeed if tried again (not a refusal of ours). */
static bool worth_again(int r)
{
	return r != -ENOMEM && r != -EINVAL && r != -EEXIST;
}

static void wait_ms(int ms)
{
	const struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int jank_capture_rotation_collect(struct jank_capture_rotation *rot, struct jank_capture_session *s,
				  struct jank_capture_policy *policy, const char *dir, char *err,
				  size_t len)
{
	char archives[PATH_MAX + 16];
	int r = 0;

	snprintf(archives, sizeof(archives), "%s/archives", s->current.output);
	/*
	 * A rotation can be disturbed (lttng-sessiond busy, a chunk not yet
	 * archived when the rotation says it ended, a chunk that does not
	 * reach the jank's end yet): try again, a few times, before the
	 * capture fails.
	 */
	for (int attempt = 0; attempt < JANK_CAPTURE_ROTATION_ATTEMPTS; attempt++) {
		struct jank_chunk *chunks = NULL;
		int n;

		if (attempt > 0) {
			lock(rot);
			rot->rotations_retried++;
			unlock(rot);
			if (s->log) {
				char line[PATH_MAX + 1024];

				snprintf(line, sizeof(line),
					 "capture: the rotation was disturbed (%s): trying again",
					 err);
				s->log(s->log_data, LOG_INFO, line);
			}
			wait_ms(JANK_CAPTURE_ROTATION_RETRY_MS << (attempt - 1));
		}
		n = rotate_and_scan(rot, s, archives, &chunks, err, len);
		if (n >= 0) {
			note_chunks(s, chunks, n);
			r = keep_chunks(rot, policy, archives, chunks, n, dir, err, len);
			free(chunks);
			if (r > 0)
				return 0;
			if (r < 0)
				return r; /* the policy's refusal, or the disk's: not the rotation's
					   */
			if (r == 0) {
				snprintf(err, len, "no archived chunk of %.900s overlaps the jank",
					 archives);
				r = -ENODATA;
			}
		} else {
			r = n;
		}
		if (!worth_again(r))
			break;
	}
	return r;
}

void jank_capture_rotation_housekeeping(struct jank_capture_rotation *rot,
					struct jank_capture_session *s,
					struct jank_capture_policy *policy, int64_t now)
{
	struct jank_capture_chunk_times pol = { .oldest_open_ns = INT64_MAX };
	struct jank_chunk *chunks = NULL;
	struct jank_interval *win;
	char archives[PATH_MAX + 16], path[PATH_MAX + 128];
	size_t nwin = 0, k = 0;
	const char *flight;
	int n;

	if (!s->current.enabled || s->current.mode != JANK_CAPTURE_ROTATION)
		return;
	snprintf(archives, sizeof(archives), "%s/archives", s->current.output);
	lock(rot);
	pol.retention_ns = rot->retention_ns;
	/* Twice the retention before now: see capture-rotation.h. */
	pol.now_ns = now - rot->retention_ns;
	/* Forget the janks whose chunks are long gone (not those of the capture in flight). */
	flight = jank_capture_policy_in_flight(policy);
	for (size_t i = 0; i < rot->njanks; i++)
		if (rot->janks[i].window.end >= now - 3 * rot->retention_ns ||
		    (flight && !strcmp(flight, rot->janks[i].dir)))
			rot->janks[k++] = rot->janks[i];
	rot->njanks = k;
	win = windows(rot, NULL, &nwin);
	unlock(rot);
	n = win ? jank_capture_chunks_scan(archives, &chunks) : -ENOMEM;
	if (n > 0) {
		note_chunks(s, chunks, n);
		jank_capture_chunks_select(chunks, (size_t)n, win, nwin, &pol);
		for (int i = 0; i < n; i++) {
			if (chunks[i].fate != JANK_CHUNK_DELETE)
				continue;
			snprintf(path, sizeof(path), "%s/%s", archives, chunks[i].name);
			if (jank_dirtree_remove(path) == 0) {
				lock(rot);
				rot->chunks_deleted++;
				unlock(rot);
			}
		}
	}
	free(chunks);
	free(win);
}
