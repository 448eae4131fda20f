/* SPDX-License-Identifier: MIT */
/* A time limit on calls that may never return (see time-limit.h). */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include "time-limit.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static jank_time_limit_fn handler;
static unsigned limit_s;
static bool armed;
static struct timespec deadline;
static char what[512];

static void *watch(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;) {
		while (!armed)
			pthread_cond_wait(&changed, &lock);
		/* ETIMEDOUT with the call still armed: it is stuck. */
		if (pthread_cond_timedwait(&changed, &lock, &deadline) == ETIMEDOUT && armed) {
			char copy[sizeof(what)];

			snprintf(copy, sizeof(copy), "%s", what);
			pthread_mutex_unlock(&lock);
			handler(copy, limit_s);
			pthread_mutex_lock(&lock);
			armed = false;
		}
	}
	return NULL;
}

int jank_time_limit_set(unsigned seconds, jank_time_limit_fn on_expiry)
{
	pthread_attr_t attr;
	pthread_t t;
	int r;

	pthread_mutex_lock(&lock);
	r = handler ? 0 : -1;
	handler = on_expiry;
	limit_s = seconds;
	pthread_mutex_unlock(&lock);
	if (r == 0)
		return 0; /* the thread runs already */
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	r = pthread_create(&t, &attr, watch, NULL);
	pthread_attr_destroy(&attr);
	if (r != 0) {
		pthread_mutex_lock(&lock);
		handler = NULL;
		pthread_mutex_unlock(&lock);
		return -r;
	}
	return 0;
}

void jank_time_limit_begin(const char *call)
{
	pthread_mutex_lock(&lock);
	if (handler) {
		snprintf(what, sizeof(what), "%s", call);
		clock_gettime(CLOCK_REALTIME, &deadline); /* pthread_cond_timedwait's clock */
		deadline.tv_sec += limit_s;
		armed = true;
		pthread_cond_signal(&changed);
	}
	pthread_mutex_unlock(&lock);
}

void jank_time_limit_end(void)
{
	pthread_mutex_lock(&lock);
	if (armed) {
		armed = false;
		pthread_cond_signal(&changed);
	}
	pthread_mutex_unlock(&lock);
}
