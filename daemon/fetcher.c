/* SPDX-License-Identifier: MIT */
/*
 * The supervisor's debuginfod fetcher (fetcher.h): a queue of build-ids,
 * a thread that downloads them one at a time (a slow server delays the
 * next, never the loop), and a ring of the recent ones, which are not asked
 * for again.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "clock.h"
#include "fetcher.h"
#include "log.h"

struct request {
	uint8_t id[JANK_DEBUGINFOD_MAX_BUILD_ID];
	size_t len;
	int64_t when; /* monotonic: asked, or answered */
};

struct jank_fetcher {
	struct jank_debuginfod_config c;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	struct request queue[JANK_FETCHER_QUEUE];
	size_t head, n;
	struct request recent[JANK_FETCHER_RECENT]; /* a ring: asked, waiting or answered */
	size_t next_recent;
	struct jank_fetcher_stats st;
	/* What it says, for the loop to log (jank_fetcher_flush_log): the log is the loop's. */
	char lines[JANK_FETCHER_LINES][640];
	size_t nlines;
};

int jank_fetcher_decode_hex(const char *hex, uint8_t *id, size_t idlen)
{
	size_t n = hex ? strlen(hex) : 0;

	if (n % 2 || n < 2 * JANK_DEBUGINFOD_MIN_BUILD_ID || n > 2 * JANK_DEBUGINFOD_MAX_BUILD_ID ||
	    n / 2 > idlen || strspn(hex, "0123456789abcdef") != n)
		return -EINVAL;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hex[2 * i] <= '9' ? hex[2 * i] - '0' : hex[2 * i] - 'a' + 10;
		int lo = hex[2 * i + 1] <= '9' ? hex[2 * i + 1] - '0' : hex[2 * i + 1] - 'a' + 10;

		id[i] = (uint8_t)(hi << 4 | lo);
	}
	return (int)(n / 2);
}

static bool same(const struct request *r, const uint8_t *id, size_t len)
{
	return r->len == len && memcmp(r->id, id, len) == 0;
}

/* Whether ID was asked for lately (waiting, or answered within JANK_FETCHER_FORGET_NS). */
static bool is_recent(const struct jank_fetcher *f, const uint8_t *id, size_t len, int64_t now)
{
	for (size_t i = 0; i < JANK_FETCHER_RECENT; i++)
		if (same(&f->recent[i], id, len) &&
		    now - f->recent[i].when < JANK_FETCHER_FORGET_NS)
			return true;
	return false;
}

int jank_fetcher_request(struct jank_fetcher *f, const uint8_t *id, size_t len)
{
	int64_t now = jank_clock_monotonic_ns();
	int r = 0;

	if (len > JANK_DEBUGINFOD_MAX_BUILD_ID)
		return -EINVAL;
	pthread_mutex_lock(&f->lock);
	f->st.requests++;
	if (is_recent(f, id, len, now)) {
		r = 0;
	} else if (f->n == JANK_FETCHER_QUEUE) {
		f->st.dropped++;
		r = -ENOSPC;
	} else {
		struct request *q = &f->queue[(f->head + f->n++) % JANK_FETCHER_QUEUE];

		memcpy(q->id, id, len);
		q->len = len;
		q->when = now;
		f->recent[f->next_recent] = *q;
		f->next_recent = (f->next_recent + 1) % JANK_FETCHER_RECENT;
		pthread_cond_signal(&f->cond);
	}
	pthread_mutex_unlock(&f->lock);
	return r;
}

/* The answer's time, so that a miss is asked for again after JANK_FETCHER_FORGET_NS. */
static void answered(struct jank_fetcher *f, const struct request *q, int fd)
{
	int64_t now = jank_clock_monotonic_ns();

	for (size_t i = 0; i < JANK_FETCHER_RECENT; i++)
		if (same(&f->recent[i], q->id, q->len))
			f->recent[i].when = now;
	if (fd >= 0)
		f->st.fetched++;
	else
		f->st.failed++;
}

static void *run(void *data)
{
	struct jank_fetcher *f = data;

	pthread_mutex_lock(&f->lock);
	while (!f->stop) {
		char hex[2 * JANK_DEBUGINFOD_MAX_BUILD_ID + 1], path[4096];
		struct request q;
		int fd;

		if (!f->n) {
			pthread_cond_wait(&f->cond, &f->lock);
			continue;
		}
		q = f->queue[f->head];
		f->head = (f->head + 1) % JANK_FETCHER_QUEUE;
		f->n--;
		pthread_mutex_unlock(&f->lock);
		fd = jank_debuginfod_fetch(&f->c, q.id, q.len, path, sizeof(path));
		jank_debuginfod_hex(hex, q.id, q.len);
		if (fd >= 0)
			close(fd);
		pthread_mutex_lock(&f->lock);
		if (f->nlines < JANK_FETCHER_LINES)
			snprintf(f->lines[f->nlines++], sizeof(f->lines[0]),
				 "debuginfod: build-id %s: %.400s", hex,
				 fd >= 0	? path
				 : fd == -ETIME ? "timed out"
						: strerror(-fd));
		answered(f, &q, fd);
	}
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

struct jank_fetcher *jank_fetcher_new(const struct jank_debuginfod_config *c)
{
	struct jank_fetcher *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->c = *c;
	f->c.urls = strdup(c->urls);
	f->c.cache = strdup(c->cache);
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	if (!f->c.urls || !f->c.cache || pthread_create(&f->thread, NULL, run, f) != 0) {
		free((char *)f->c.urls);
		free((char *)f->c.cache);
		free(f);
		return NULL;
	}
	return f;
}

void jank_fetcher_free(struct jank_fetcher *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->stop = true;
	pthread_cond_signal(&f->cond);
	pthread_mutex_unlock(&f->lock);
	pthread_join(f->thread, NULL);
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->cond);
	free((char *)f->c.urls);
	free((char *)f->c.cache);
	free(f);
}

const struct jank_debuginfod_config *jank_fetcher_config(const struct jank_fetcher *f)
{
	return &f->c;
}

void jank_fetcher_flush_log(struct jank_fetcher *f)
{
	char lines[JANK_FETCHER_LINES][640];
	size_t n;

	pthread_mutex_lock(&f->lock);
	n = f->nlines;
	memcpy(lines, f->lines, n * sizeof(lines[0]));
	f->nlines = 0;
	pthread_mutex_unlock(&f->lock);
	for (size_t i = 0; i < n; i++)
		jank_log(LOG_INFO, "%s", lines[i]);
}

void jank_fetcher_get_stats(struct jank_fetcher *f, struct jank_fetcher_stats *out)
{
	pthread_mutex_lock(&f->lock);
	*out = f->st;
	pthread_mutex_unlock(&f->lock);
}
