/* SPDX-License-Identifier: MIT */
/*
 * Debug files by build-id from debuginfod servers (elfutils' client,
 * libdebuginfod), for the binaries no local file names: stripped ones
 * without a debug package, and a remote host's, of which only the build-id
 * travels in the trace.
 *
 * Off unless the configuration lists servers ([symbols] debuginfod-urls):
 * DEBUGINFOD_URLS from the environment is never used (Debian's
 * libdebuginfod-common sets it in login shells), and libdwfl never fetches
 * on its own (io/symbols.c). Files land in a cache directory of the
 * configuration's, in the client's layout, CACHE/BUILD-ID/debuginfo (or
 * .../executable); the cache is trimmed to a size, least recently used
 * first, after each download. A download is bounded in time (the whole
 * transfer, not only the connection) and in size (the cache's, at most
 * JANK_DEBUGINFOD_MAX_FILE: the symbolizer opens no larger file).
 *
 * jankctl and the capture reports fetch and wait (jank_debuginfod_fetch);
 * jankd's workers, which have no network, read the cache only
 * (jank_debuginfod_open_cached) while the supervisor downloads. So the
 * files a download leaves are made readable by all (0644, their
 * directories 0755): they are what the servers give anyone.
 */
#ifndef JANK_DEBUGINFOD_H
#define JANK_DEBUGINFOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JANK_DEBUGINFOD_MIN_BUILD_ID   8  /* bytes: shorter ones are not asked for */
#define JANK_DEBUGINFOD_MAX_BUILD_ID   64 /* bytes */
#define JANK_DEBUGINFOD_MAX_TIMEOUT_NS (86400 * 1000000000LL) /* a download's, at most */
#define JANK_DEBUGINFOD_MAX_FILE                                                                   \
	((uint64_t)4 << 30) /* a download, at most (and the cache's size) */

struct jank_debuginfod_config {
	const char *urls;    /* space-separated http(s) URLs; NULL or "": off */
	const char *cache;   /* an absolute directory */
	uint64_t cache_size; /* bytes the cache may hold; 0: no limit */
	int64_t timeout_ns;  /* one download, at most */
};

/* Whether c lists servers. */
bool jank_debuginfod_enabled(const struct jank_debuginfod_config *c);

/*
 * Set the client's environment for c (its servers, cache, timeout;
 * DEBUGINFOD_URLS unset when c is off), and make the cache directory (and
 * its parents) if missing, 0755. Once, before any thread starts: the
 * client reads its environment at each download. Returns 0 or -errno
 * (err says it).
 */
int jank_debuginfod_setup(const struct jank_debuginfod_config *c, char *err, size_t errlen);

/*
 * A debug file (else the executable) of build-id ID from the cache, without
 * the network: a read-only descriptor, its path in PATH; or -ENOENT (not
 * there, empty: a miss the client remembers, or not readable).
 */
int jank_debuginfod_open_cached(const char *cache, const uint8_t *id, size_t len, char *path,
				size_t pathlen);

/*
 * The same from the cache, else downloaded from c's servers (debuginfo
 * first, then the executable), waiting up to c's timeout: a descriptor and
 * PATH, or -errno (ENOENT: no server has it; ETIME: the timeout; EINVAL: a
 * build-id too short or long; ENOENT too when c is off).
 */
int jank_debuginfod_fetch(const struct jank_debuginfod_config *c, const uint8_t *id, size_t len,
			  char *path, size_t pathlen);

/*
 * Remove the least recently used files of the cache until it holds at
 * most `limit` bytes (0: nothing); the build-id KEEP (hex, may be NULL)
 * stays. Returns the bytes it holds then.
 */
uint64_t jank_debuginfod_trim(const char *cache, uint64_t limit, const char *keep);

/* The build-id as lowercase hex in OUT (2 * len + 1 bytes). */
void jank_debuginfod_hex(char *out, const uint8_t *id, size_t len);

/*
 * A jank_symbols_fetch_fn (symbols.h) over a struct jank_debuginfod_config
 * (data): jank_debuginfod_fetch, waiting.
 */
int jank_debuginfod_fetch_fn(const uint8_t *id, size_t len, char *path, size_t pathlen, void *data);

#endif
