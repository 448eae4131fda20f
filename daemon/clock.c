/* SPDX-License-Identifier: MIT */
/* jankd's clocks (see clock.h). */
#include <time.h>
#include "clock.h"

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t jank_clock_monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

int64_t jank_clock_realtime_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

struct timeval jank_clock_timeval(int64_t ns)
{
	struct timeval tv = { .tv_sec = ns / 1000000000, .tv_usec = (ns % 1000000000) / 1000 };

	return tv;
}
