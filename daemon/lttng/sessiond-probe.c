/* SPDX-License-Identifier: MIT */
/* Evidence that lttng-sessiond or a session is gone (see sessiond-probe.h). */
#include <errno.h>
#include "sessiond-probe.h"

enum jank_sessiond_verdict jank_sessiond_probe_judge(struct jank_sessiond_probe *p, int exists,
						     int (*answers)(void))
{
	if (exists > 0) {
		p->failed = p->absent = 0;
		return JANK_SESSIOND_PRESENT;
	}
	if (exists == 0) {
		p->failed = 0;
		if (++p->absent < JANK_SESSIOND_PROBES) {
			p->unconfirmed++;
			return JANK_SESSIOND_ASK_AGAIN;
		}
		p->absent = 0; /* the next loss needs its own evidence */
		return JANK_SESSIOND_SESSION_LOST;
	}
	p->absent = 0;
	if (p->failed < JANK_SESSIOND_PROBES)
		p->failed++;
	if (p->failed < JANK_SESSIOND_PROBES) {
		p->unconfirmed++;
		return JANK_SESSIOND_ASK_AGAIN;
	}
	if (exists == -ECONNREFUSED && !(answers && answers() == 1))
		return JANK_SESSIOND_GONE;
	return JANK_SESSIOND_FAILING;
}
