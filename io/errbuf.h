/* SPDX-License-Identifier: MIT */
/*
 * Error messages for the caller: functions that fail return -errno and write
 * a one-line message for humans into a buffer the caller gives (err, len).
 */
#ifndef JANK_ERRBUF_H
#define JANK_ERRBUF_H

#include <stddef.h>

/* printf into err (at most len bytes); nothing when err is NULL or len 0. */
void jank_errf(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
