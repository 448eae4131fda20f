/* SPDX-License-Identifier: MIT */
/*
 * Questions to lttng-relayd, through babeltrace2's lttng-live "sessions"
 * query: which live sessions does it serve?
 *
 * The live input alone cannot tell "the session exists but has no data yet"
 * from "no such session": both are "try again". jankd needs the difference to
 * say it is attached (READY=1) before the traced programs start, and the
 * whole list to discover the sessions of a fleet ([live] discover).
 */
#ifndef JANK_RELAYD_H
#define JANK_RELAYD_H

#include <stdbool.h>
#include <stddef.h>

/* One live session: the host that traces it and its name. */
typedef void (*jank_relayd_session_fn)(const char *host, const char *session, void *data);

/*
 * Call `fn` for each live session the relayd at `relay` (net://HOST[:PORT])
 * serves. Returns 0, or -errno when it cannot be asked (message in err).
 * Blocks for one round trip to relayd.
 */
int jank_relayd_list_sessions(const char *relay, jank_relayd_session_fn fn, void *data, char *err,
			      size_t errlen);

/*
 * 1 when the relayd of `url` (net://HOST[:PORT]/host/HOSTNAME/SESSION) lists
 * that session, 0 when it does not, -errno when it cannot be asked (message
 * in err). Blocks for one round trip to relayd.
 */
int jank_relayd_has_session(const char *url, char *err, size_t errlen);

/*
 * Whether the traced host of `url` (its HOSTNAME) is `hostname`: a process
 * id in its trace is then one of this host's (unless the traced program runs
 * in a PID namespace of its own under the same host name). False for a URL
 * that is not a live one.
 */
bool jank_relayd_url_on_host(const char *url, const char *hostname);

#endif
