/* SPDX-License-Identifier: MIT */
/*
 * jankd's clocks: the monotonic one for timers, rates and uptime, the wall
 * clock for capture names and chunk times (both in ns).
 */
#ifndef JANK_CLOCK_H
#define JANK_CLOCK_H

#include <stdint.h>
#include <sys/time.h>

int64_t jank_clock_monotonic_ns(void);
int64_t jank_clock_realtime_ns(void);
/* A duration as libevent's timeval. */
struct timeval jank_clock_timeval(int64_t ns);

#endif
