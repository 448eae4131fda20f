/* SPDX-License-Identifier: MIT */
/*
 * jankd's clocks: the monotonic one for timers, rates and uptime, the wall
 * clock for capture names and chunk times (both in ns).
 */
#ifndef JANK_CLOCK_H
#define JANK_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>

int64_t jank_clock_monotonic_ns(void);
int64_t jank_clock_realtime_ns(void);
/* A duration as libevent's timeval. */
struct timeval jank_clock_timeval(int64_t ns);
/*
 * "2026-11-27 08:00:01.123", the local time of a wall-clock or trace time
 * (LTTng's: ns since the epoch); "12.345 s" for a time before 2001 (a
 * trace's own clock, not the epoch's). Returns buf.
 */
const char *jank_clock_text(int64_t ns, char *buf, size_t len);

#endif
