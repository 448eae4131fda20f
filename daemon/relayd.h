/* SPDX-License-Identifier: MIT */
/*
 * Questions to lttng-relayd, through babeltrace2's lttng-live "sessions"
 * query: does it serve the live session of a URL?
 *
 * The live input alone cannot tell "the session exists but has no data yet"
 * from "no such session": both are "try again". jankd needs the difference to
 * say it is attached (READY=1) before the traced programs start.
 */
#ifndef JANK_RELAYD_H
#define JANK_RELAYD_H

#include <stddef.h>

/*
 * 1 when the relayd of `url` (net://HOST[:PORT]/host/HOSTNAME/SESSION) lists
 * that session, 0 when it does not, -errno when it cannot be asked (message
 * in err). Blocks for one round trip to relayd.
 */
int jank_relayd_has_session(const char *url, char *err, size_t errlen);

#endif
