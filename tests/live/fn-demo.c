/* SPDX-License-Identifier: MIT */
/*
 * fn-demo: a program whose slow actions are slow in a known function, for
 * tests/live/test-jankd-functions.sh. Built with -finstrument-functions
 * (and run with LD_PRELOAD=liblttng-ust-cyg-profile.so), so that every
 * function's entry and exit is an event, and with the pthread wrapper, so
 * that lock handoffs are events too.
 *
 * Each action ("frame", id i) is run_task → compute_price, which spends
 * NORMAL in sum_items. Every SLOW_EVERY-th action is slow, in turn:
 *   - "own": compute_price calls apply_discounts, which spins SLOW on the
 *     action's own thread;
 *   - "lock": compute_price calls fetch_rates, which waits for a mutex that
 *     the thread "fn-holder" holds for SLOW in refresh_rates.
 * Prints "action ID normal|own|lock" per action, then "done N".
 *
 * Usage: fn-demo COUNT SLOW_EVERY NORMAL_US SLOW_US [LINGER_MS]
 * LINGER_MS: wait that long after "done" before exiting (the process and
 * its mappings stay while jankd reads them). FN_DEMO_FIRST_ID in the
 * environment: the first action's id (default 0), for two fn-demos whose
 * actions must not share keys.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include "jank/jank.h"

#define NOINLINE __attribute__((noinline))
/* Not traced: the slow function itself is then the innermost frame while it spins. */
#define UNTRACED __attribute__((no_instrument_function))

static pthread_mutex_t rates = PTHREAD_MUTEX_INITIALIZER;
static atomic_int holder_go, holder_has_lock, holder_quit;
static long slow_us;
static volatile uint64_t sink;

static UNTRACED uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Busy for us microseconds, calling nothing (one frame on the stack). */
static NOINLINE UNTRACED void spin(long us)
{
	uint64_t end = now_us() + (uint64_t)us;

	while (now_us() < end)
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i;
}

static NOINLINE void refresh_rates(void)
{
	spin(slow_us);
}

static void *holder_main(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "fn-holder");
	while (!atomic_load(&holder_quit)) {
		if (!atomic_exchange(&holder_go, 0)) {
			usleep(200);
			continue;
		}
		pthread_mutex_lock(&rates);
		atomic_store(&holder_has_lock, 1);
		refresh_rates();
		pthread_mutex_unlock(&rates);
	}
	return NULL;
}

static NOINLINE void fetch_rates(void)
{
	atomic_store(&holder_has_lock, 0);
	atomic_store(&holder_go, 1);
	while (!atomic_load(&holder_has_lock))
		usleep(50);
	pthread_mutex_lock(&rates);
	pthread_mutex_unlock(&rates);
}

static NOINLINE void apply_discounts(void)
{
	spin(slow_us);
}

static NOINLINE void sum_items(long us)
{
	spin(us);
}

static NOINLINE void compute_price(long normal_us, int kind)
{
	sum_items(normal_us);
	if (kind == 1)
		apply_discounts();
	else if (kind == 2)
		fetch_rates();
}

static NOINLINE void run_task(uint64_t id, long normal_us, int kind)
{
	jank_action_begin("frame", id);
	compute_price(normal_us, kind);
	jank_action_end("frame", id);
}

int main(int argc, char **argv)
{
	static const char *const kinds[] = { "normal", "own", "lock" };
	long count, every, normal_us, first = 0;
	const char *first_id = getenv("FN_DEMO_FIRST_ID");
	pthread_t holder;
	int slow = 0;

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: fn-demo COUNT SLOW_EVERY NORMAL_US SLOW_US [LINGER_MS]\n");
		return 2;
	}
	count = atol(argv[1]);
	every = atol(argv[2]);
	normal_us = atol(argv[3]);
	slow_us = atol(argv[4]);
	if (first_id)
		first = atol(first_id);
	if (count <= 0 || every <= 0 || normal_us < 0 || slow_us < 0 || first < 0)
		return 2;
	if (pthread_create(&holder, NULL, holder_main, NULL) != 0)
		return 1;
	for (long i = 0; i < count; i++) {
		int kind = 0;

		if (i % every == every - 1)
			kind = 1 + (slow++ % 2);
		run_task((uint64_t)(first + i), normal_us, kind);
		printf("action %ld %s\n", first + i, kinds[kind]);
		usleep(2000);
	}
	atomic_store(&holder_quit, 1);
	pthread_join(holder, NULL);
	printf("done %ld\n", count);
	fflush(stdout);
	if (argc == 6)
		usleep((useconds_t)(atol(argv[5]) * 1000));
	return 0;
}
