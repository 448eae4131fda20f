/* SPDX-License-Identifier: MIT */
/* jankd's clocks (see clock.h). */
#include <stdio.h>
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

const char *jank_clock_text(int64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	if (ns < 1000000000LL * 1000000000LL || !localtime_r(&t, &tm)) {
		snprintf(buf, len, "%.3f s", (double)ns / 1e9);
		return buf;
	}
	snprintf(buf, len, "%04d-%02d-%02d %02d:%02d:%02d.%03d", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ns % 1000000000 / 1000000));
	return buf;
}
