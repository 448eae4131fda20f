/* SPDX-License-Identifier: MIT */
/*
 * A time limit on calls that may never return. babeltrace2 2.0 loops for
 * ever on some corrupt inputs (a truncated metadata file, in its metadata
 * query): a call armed with jank_time_limit_begin() that has not ended by
 * its deadline makes a watchdog thread call the process's handler, which
 * must not return into the stuck call (jankctl prints an error and exits).
 *
 * Off until a program sets a handler (before any arming), and the arming
 * calls are then no-ops. One call at a time is armed (jankctl reads its
 * traces on one thread); `what` must live until jank_time_limit_end(). The
 * limit is checked once a second: a call may run up to a second over.
 */
#ifndef JANK_TIME_LIMIT_H
#define JANK_TIME_LIMIT_H

/* `what` describes the stuck call, e.g. "reading the metadata of /path". */
typedef void (*jank_time_limit_fn)(const char *what, unsigned seconds);

/* Enable the limit, `seconds` per armed call. Returns 0 or -errno (no thread). */
int jank_time_limit_set(unsigned seconds, jank_time_limit_fn on_expiry);
void jank_time_limit_begin(const char *what);
void jank_time_limit_end(void);

#endif
