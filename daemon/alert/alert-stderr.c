/* SPDX-License-Identifier: MIT */
/*
 * Alerts as text on stderr ([alerts] target = stderr), and where the other
 * targets' alerts go when those cannot take them (alert-target.h).
 */
#include <stdio.h>
#include "alert-target.h"
#include "format.h"
#include "units.h"

static int report(const struct jank_alert *a)
{
	jank_format_verdict_text(stderr, a->report);
	if (a->host)
		fprintf(stderr, "  host %s, session %s\n", a->host, a->session ? a->session : "?");
	if (a->capture)
		fprintf(stderr, "  capture: %s\n", a->capture);
	else if (a->capture_failed)
		fprintf(stderr, "  capture failed: %s\n", a->capture_failed);
	if (a->skipped_ns > 0) {
		char d[32];

		fprintf(stderr,
			"  %s of the action was skipped by a worker restart: the path may be "
			"incomplete\n",
			jank_units_duration(a->skipped_ns, d, sizeof(d)));
	}
	fflush(stderr);
	return 0;
}

static int summary(const struct jank_alert *a)
{
	char msg[JANK_ALERT_MESSAGE_LEN];

	jank_alert_summary_text(a, msg, sizeof(msg));
	fprintf(stderr, "jankd: %s\n", msg);
	fflush(stderr);
	return 0;
}

/* Both follow-ups: their MESSAGE. */
static int followup(const struct jank_alert *a)
{
	char line[JANK_ALERT_FOLLOWUP_LEN];

	jank_alert_followup_text(a, line, sizeof(line));
	fprintf(stderr, "jankd: %s\n", line);
	fflush(stderr);
	return 0;
}

const struct jank_alert_target_ops jank_alert_stderr_ops = {
	.report = report,
	.summary = summary,
	.followup = followup,
	.followup_failed = followup,
};
