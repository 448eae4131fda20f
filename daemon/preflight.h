/* SPDX-License-Identifier: MIT */
/*
 * What jankd needs from the host that its configuration cannot say by
 * itself: the workers' user, the state and capture directories, the
 * addresses it connects to or listens on, the worker spawner's socket.
 *
 * At start, jankd checks what will not get better by retrying (a missing
 * user, a state directory it cannot use, a spawner socket that does not
 * exist) and exits 1 with the command that fixes it; what can fix itself
 * (relayd not up yet, a session not created yet) is retried, and status
 * says so. `jankd --check-config` runs every check, without changing
 * anything.
 */
#ifndef JANK_PREFLIGHT_H
#define JANK_PREFLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include "config-file.h"

struct jank_preflight {
	const struct jank_config *config;
	const struct jank_config_sources *sources; /* for the file:line of each key */
	const char *spawner;			   /* --worker-spawner, NULL: none */
	/*
	 * false: at start, what cannot fix itself only (the user only when
	 * jankd is root and starts its workers itself; a missing state
	 * directory is made). true: --check-config, every check, nothing made.
	 */
	bool all;
	bool as_root; /* jankd runs as root (the workers change user) */
};

/*
 * One problem: where (FILE:LINE of the key, or FILE when the key is at its
 * default), what is wrong, and the command that fixes it (NULL: none).
 */
typedef void (*jank_preflight_fn)(const char *where, const char *problem, const char *fix,
				  void *data);

/* Run the checks; `fn` gets each problem. Returns how many there were. */
size_t jank_preflight_run(const struct jank_preflight *pf, jank_preflight_fn fn, void *data);

/* The host part of an lttng URL (net://HOST[:PORT][/...], [v6] bracketed) into `host`. */
int jank_preflight_url_host(const char *url, char *host, size_t len);

#endif
