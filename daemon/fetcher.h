/* SPDX-License-Identifier: MIT */
/*
 * The supervisor's debuginfod fetcher: has the debug files the workers ask
 * for downloaded, by build-id, into [symbols] debuginfod-cache, where the
 * workers open them themselves.
 *
 * A worker must not wait (its loop reads the live trace), runs as an
 * unprivileged user and opens files read-only only (its seccomp filter),
 * and should reach relayd only: when no local file names a binary, it sends
 * {"type": "fetch", "build_id": HEX} and goes on with binary+offset; its
 * symbolizer looks in the cache again on later lookups (io/symbols.h,
 * jank_symbols_set_fetcher), so later verdicts name the function. The
 * request is a build-id only: the fetcher downloads from the servers the
 * administrator listed, into the directory configured, and writes nothing
 * else; a file there is used only if its build-id is the one the trace
 * recorded. At most JANK_FETCHER_QUEUE requests wait; one already asked
 * for (waiting, or answered within JANK_FETCHER_FORGET_NS) is not asked
 * again; more are dropped, and counted.
 *
 * Not in the supervisor: a thread of the supervisor's keeps the queue and
 * asks, one build-id at a time, a process forked at the start
 * (jankd-fetcher), which runs libdebuginfod and libcurl as [daemon]
 * worker-user (or jankd's user when it cannot change it) without
 * capabilities, and answers an errno; the cache is that user's.
 *
 * The capture reports (the capturer's analyst thread, which can wait) ask
 * the fetcher too, and wait (jank_fetcher_fetch_fn).
 */
#ifndef JANK_FETCHER_H
#define JANK_FETCHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "debuginfod.h"

#define JANK_FETCHER_QUEUE     64
#define JANK_FETCHER_RECENT    256
#define JANK_FETCHER_FORGET_NS (600 * 1000000000LL)
#define JANK_FETCHER_LINES     32 /* answers said between two flushes, at most (the rest: counted) */

struct jank_fetcher_stats {
	uint64_t requests; /* asked by workers */
	uint64_t fetched;  /* downloaded, or found in the cache */
	uint64_t failed;   /* no server had it, or the timeout */
	uint64_t dropped;  /* the queue was full */
};

struct jank_fetcher;

/* Who the fetcher process runs as: resolved by the supervisor. */
struct jank_fetcher_user {
	uid_t uid;
	gid_t gid;
	bool same; /* stay jankd's user (it cannot change it: not root, or under systemd) */
};

/*
 * The cache directory and all it holds (no link followed) become u's, so
 * that the fetcher process can write and trim it; a directory that is u's
 * already is left as it is. 0 or -errno.
 */
int jank_fetcher_own_cache(const char *cache, const struct jank_fetcher_user *u);

/*
 * Start the fetcher process and the thread, with a copy of c (servers,
 * cache, size, timeout), after jank_debuginfod_setup(c), before any other
 * thread (it forks). The process becomes u, drops every capability, sets
 * no_new_privs and is not dumpable before it reads anything; it ends with
 * the supervisor. NULL: out of memory, no process, or no thread.
 */
struct jank_fetcher *jank_fetcher_new(const struct jank_debuginfod_config *c,
				      const struct jank_fetcher_user *u);
/* Stops the thread and the process (a download under way ends at once). */
void jank_fetcher_free(struct jank_fetcher *f);
/* The fetcher process. */
pid_t jank_fetcher_pid(const struct jank_fetcher *f);

/*
 * A jank_symbols_fetch_fn (symbols.h) over a jank_fetcher (data), for
 * threads that may wait (the capture reports'): the file from the cache,
 * else asked of the fetcher and waited for, up to its timeout and 10 s.
 */
int jank_fetcher_fetch_fn(const uint8_t *id, size_t len, char *path, size_t pathlen, void *data);

/* The configuration it holds (a copy), e.g. for the capture reports. */
const struct jank_debuginfod_config *jank_fetcher_config(const struct jank_fetcher *f);

/* Ask for build-id ID (len bytes, checked by the caller). 0, or -ENOSPC (dropped). */
int jank_fetcher_request(struct jank_fetcher *f, const uint8_t *id, size_t len);

void jank_fetcher_get_stats(struct jank_fetcher *f, struct jank_fetcher_stats *out);

/*
 * Log what the thread found since the last call, one line per build-id
 * ("debuginfod: build-id HEX: PATH" or why not), from the caller's thread:
 * the supervisor's loop, on its tick.
 */
void jank_fetcher_flush_log(struct jank_fetcher *f);

/*
 * A "fetch" message's build-id: HEX, lowercase, of JANK_DEBUGINFOD_MIN_BUILD_ID
 * to JANK_DEBUGINFOD_MAX_BUILD_ID bytes, into id. Returns its length, or
 * -EINVAL.
 */
int jank_fetcher_decode_hex(const char *hex, uint8_t *id, size_t idlen);

#endif
