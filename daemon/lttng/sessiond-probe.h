/* SPDX-License-Identifier: MIT */
/*
 * Whether lttng-sessiond, or a session it had, is gone: concluded from
 * evidence, never from one failed call.
 *
 * jankd asks lttng-sessiond every second whether the sessions it owns still
 * exist (the live keeper, the capture session's watch), and makes a session
 * again when lttng-sessiond lost it (restarted). Making again a session
 * that still exists destroys it, and the events it held: a data loss. So
 * one answer is never enough:
 *   - "the session is absent" from a daemon that answers counts after
 *     JANK_SESSIOND_PROBES such answers in a row;
 *   - a failed call (no answer, or an error) counts after JANK_SESSIOND_PROBES
 *     failures in a row, and means "lttng-sessiond is gone" only when its
 *     socket does not answer a connection either; when it does, the daemon
 *     is there but failing, and nothing is made again.
 * In between, ask again after JANK_SESSIOND_PROBE_AGAIN_NS.
 */
#ifndef JANK_SESSIOND_PROBE_H
#define JANK_SESSIOND_PROBE_H

#include <stdint.h>

#define JANK_SESSIOND_PROBES	     3
#define JANK_SESSIOND_PROBE_AGAIN_NS 250000000LL

enum jank_sessiond_verdict {
	JANK_SESSIOND_PRESENT,	    /* the session is there */
	JANK_SESSIOND_ASK_AGAIN,    /* not evidence yet: probe again soon */
	JANK_SESSIOND_GONE,	    /* lttng-sessiond is gone (calls fail, its socket is dead) */
	JANK_SESSIOND_FAILING,	    /* lttng-sessiond answers, but its calls keep failing */
	JANK_SESSIOND_SESSION_LOST, /* lttng-sessiond answers, again and again, without it */
};

struct jank_sessiond_probe {
	unsigned failed;      /* failed calls in a row */
	unsigned absent;      /* "absent" answers in a row */
	uint64_t unconfirmed; /* answers that were not taken at their word (for the status) */
};

/*
 * Judge one probe: `exists` is what jank_lttng_session_exists() returned
 * (1, 0 or -errno); `answers` says whether lttng-sessiond's socket answers a
 * connection (1 yes, 0 no), and is called only when a verdict needs it.
 */
enum jank_sessiond_verdict jank_sessiond_probe_judge(struct jank_sessiond_probe *p, int exists,
						     int (*answers)(void));

#endif
