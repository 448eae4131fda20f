/* SPDX-License-Identifier: MIT */
/*
 * A time limit on calls that may never return (see time-limit.h).
 *
 * Arming is on the path of every batch of events: it stores a time and a
 * pointer, nothing more. The watchdog thread looks once a second.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "time-limit.h"

static jank_time_limit_fn handler;
static unsigned limit_s;
static _Atomic(int64_t) armed_at; /* CLOCK_MONOTONIC_COARSE seconds, 0: not armed */
static _Atomic(const char *) armed_what;

static int64_t now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (int64_t)ts.tv_sec + 1; /* never 0 */
}

static void *watch(void *arg)
{
	(void)arg;
	for (;;) {
		int64_t since;

		sleep(1);
		since = atomic_load(&armed_at);
		if (since && now_s() - since > (int64_t)limit_s) {
			char what[512];

			snprintf(what, sizeof(what), "%s", atomic_load(&armed_what));
			handler(what, limit_s);
			atomic_store(&armed_at, 0);
		}
	}
	return NULL;
}

int jank_time_limit_set(unsigned seconds, jank_time_limit_fn on_expiry)
{
	pthread_attr_t attr;
	pthread_t t;
	int r;

	if (handler) {
		limit_s = seconds;
		handler = on_expiry;
		return 0;
	}
	limit_s = seconds;
	handler = on_expiry;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	r = pthread_create(&t, &attr, watch, NULL);
	pthread_attr_destroy(&attr);
	if (r != 0) {
		handler = NULL;
		return -r;
	}
	return 0;
}

void jank_time_limit_begin(const char *what)
{
	if (!handler)
		return;
	atomic_store(&armed_what, what);
	atomic_store(&armed_at, now_s());
}

void jank_time_limit_end(void)
{
	if (handler)
		atomic_store(&armed_at, 0);
}
