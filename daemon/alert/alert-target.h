/* SPDX-License-Identifier: MIT */
/*
 * Where alerts go: one set of operations per [alerts] target (alert.h's
 * struct jank_alert in, an entry or a line out), a file each:
 * alert-journal.c, alert-stderr.c, alert-json.c. The alerter (alert.c)
 * rate-limits, keeps the recent janks and the counts, then calls the ops of
 * the configured target (or the test sink instead).
 *
 * Each operation returns 0 when the alert was delivered (or is queued to
 * be, journal.h), or -1 when it could not be: the alerter then writes it on
 * stderr (jank_alert_stderr_ops), so that nothing is lost; for reports and
 * summaries it also counts it (journal_errors) and says once why
 * (`unreachable`).
 *
 * A new target: a file with its ops, its name in io/config-file.[ch]
 * (enum jank_alert_target and the names of [alerts] target), and its row
 * in alert.c's table.
 */
#ifndef JANK_ALERT_TARGET_H
#define JANK_ALERT_TARGET_H

#include "alert.h"

struct jank_alert_target_ops {
	int (*report)(const struct jank_alert *a);	    /* JANK_ALERT_REPORT */
	int (*summary)(const struct jank_alert *a);	    /* JANK_ALERT_SUPPRESSED */
	int (*followup)(const struct jank_alert *a);	    /* JANK_ALERT_FOLLOWUP */
	int (*followup_failed)(const struct jank_alert *a); /* JANK_ALERT_FOLLOWUP_FAILED */
	/* Why an operation can fail, for the one line that says so; NULL: it cannot. */
	const char *unreachable;
};

extern const struct jank_alert_target_ops jank_alert_journal_ops;
extern const struct jank_alert_target_ops jank_alert_stderr_ops;
extern const struct jank_alert_target_ops jank_alert_json_ops;

#endif
