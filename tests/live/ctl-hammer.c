/* SPDX-License-Identifier: MIT */
/*
 * ctl-hammer: daemon/lttng/lttng-session.c from two threads at once, as jankd
 * calls it: the live keeper's thread asks whether its session exists while
 * the capturer's thread rotates (or snapshots) its capture session.
 * liblttng-ctl keeps one connection to lttng-sessiond for the whole
 * process; this tool counts every answer that was wrong while the session
 * daemon was up all along (tests/live/test-lttng-ctl-threads.sh).
 *
 *   ctl-hammer KEPT CAPTURE MODE SECONDS
 *
 * KEPT: a session that exists for the whole run (the keeper's question);
 * CAPTURE: a rotating (MODE rotate) or snapshot (MODE snapshot) session.
 * Prints "probes N absent N errors N captures N capture_errors N" and one
 * line per wrong answer on stderr; exits 1 when any answer was wrong.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lttng-session.h"

#define ERR_LEN 1024

struct hammer {
	const char *kept, *capture;
	int rotate;
	int64_t until_ns;
	atomic_long probes, absent, errors, captures, capture_errors;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *keeper(void *data)
{
	struct hammer *h = data;
	char err[ERR_LEN];

	while (now_ns() < h->until_ns) {
		int r = jank_lttng_session_exists(h->kept, err, sizeof(err));

		atomic_fetch_add(&h->probes, 1);
		if (r == 0) {
			atomic_fetch_add(&h->absent, 1);
			fprintf(stderr, "ctl-hammer: exists(%s) said absent\n", h->kept);
		} else if (r < 0) {
			atomic_fetch_add(&h->errors, 1);
			fprintf(stderr, "ctl-hammer: exists(%s): %d: %s\n", h->kept, r, err);
		}
	}
	return NULL;
}

static void *capturer(void *data)
{
	struct hammer *h = data;
	char err[ERR_LEN];

	while (now_ns() < h->until_ns) {
		int r = h->rotate ? jank_lttng_session_rotate(h->capture, NULL, NULL, NULL, 0, err,
							      sizeof(err))
				  : jank_lttng_session_snapshot_record(h->capture, NULL, err,
								       sizeof(err));

		atomic_fetch_add(&h->captures, 1);
		if (r < 0) {
			atomic_fetch_add(&h->capture_errors, 1);
			fprintf(stderr, "ctl-hammer: %s(%s): %d: %s\n",
				h->rotate ? "rotate" : "snapshot", h->capture, r, err);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct hammer h = { 0 };
	pthread_t a, b;
	long wrong;

	if (argc != 5 || (strcmp(argv[3], "rotate") && strcmp(argv[3], "snapshot"))) {
		fputs("usage: ctl-hammer KEPT CAPTURE rotate|snapshot SECONDS\n", stderr);
		return 2;
	}
	h.kept = argv[1];
	h.capture = argv[2];
	h.rotate = !strcmp(argv[3], "rotate");
	h.until_ns = now_ns() + (int64_t)(atof(argv[4]) * 1e9);
	if (pthread_create(&a, NULL, keeper, &h) || pthread_create(&b, NULL, capturer, &h)) {
		fputs("ctl-hammer: cannot start threads\n", stderr);
		return 2;
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("probes %ld absent %ld errors %ld captures %ld capture_errors %ld\n",
	       atomic_load(&h.probes), atomic_load(&h.absent), atomic_load(&h.errors),
	       atomic_load(&h.captures), atomic_load(&h.capture_errors));
	wrong = atomic_load(&h.absent) + atomic_load(&h.errors) + atomic_load(&h.capture_errors);
	return wrong ? 1 : 0;
}
