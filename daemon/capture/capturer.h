/* SPDX-License-Identifier: MIT */
/*
 * jankd's capturer (README "Captures"; ARCHITECTURE, steps 6 to 8): the
 * capture policy (capture-policy.h), the capture session
 * (capture-session.h), and the two threads that keep lttng-ctl and the
 * offline analysis off the event loop.
 *
 *   loop thread     every jank of a rule with capture = yes: the policy
 *                   decides (start, join, refuse); the alert names the
 *                   directory at once and never waits for the snapshot.
 *   recorder        sets the capture session up (at reload), and records a
 *                   snapshot into each started capture (rotation mode:
 *                   rotates, and moves the chunks that overlap its janks
 *                   into it), then tells the policy it is done (complete
 *                   or failed); in rotation mode, once a second, deletes
 *                   the old chunks that overlap no captured jank.
 *   analyst         writes report.json, report.txt, critical-path.svg and flame.svg
 *                   of each complete capture (jank_capture_report_write).
 *
 * The threads hand their log lines and finished reports back to the loop
 * through a pipe; the loop logs them and sends the follow-up entry of each
 * report (MESSAGE_ID JANK_CAPTURER_MESSAGE_ID_REPORT: JANK_CAPTURE,
 * JANK_REPORT, JANK_ACTION, JANK_KEY, JANK_SUMMARY), or of each capture that
 * failed (the same MESSAGE_ID: JANK_CAPTURE, JANK_CAPTURE_FAILED with why,
 * JANK_ACTION, JANK_KEY; the directory holds only capture.json, "failed").
 */
#ifndef JANK_CAPTURER_H
#define JANK_CAPTURER_H

#include <stddef.h>
#include <event2/event.h>
#include <json-c/json.h>
#include "alert.h"
#include "capture-policy.h"
#include "capture-session.h"
#include "config-file.h"
#include "engine.h"

#define JANK_CAPTURER_MESSAGE_ID_REPORT JANK_ALERT_MESSAGE_ID_FOLLOWUP

struct jank_capturer;

/*
 * NULL on allocation failure. Nothing runs before jank_capturer_start().
 * `ops`: lttng-ctl for the capture session (jank_capture_session_lttng_ops).
 */
struct jank_capturer *jank_capturer_new(struct event_base *base,
					const struct jank_capture_session_ops *ops);

/*
 * Set the capture session up (synchronously: jankd is starting) and start the
 * recorder and the analyst. A session that cannot be made is logged, and captures stay off
 * until a reload; only a failure of the process itself (memory, threads) is
 * returned, as -errno with a message in `err`.
 */
int jank_capturer_start(struct jank_capturer *cp, const struct jank_config *c,
			struct jank_alerter *alerter, char *err, size_t len);

/* Config reload: the new policy now, session changes on the recorder thread. */
void jank_capturer_reload(struct jank_capturer *cp, const struct jank_config *c);

/*
 * The alerter's capture hook (jank_alert_capture_fn); `data` is the
 * capturer. *failed (when not NULL) says why a capture could not be made at
 * all (the policy's "error" refusals: the directory cannot be written).
 */
const char *jank_capturer_jank(const struct jank_verdict *r, const char **failed, void *data);

/*
 * Stop: the threads finish what they were given (the snapshot in flight, the
 * reports not written yet), their messages are logged, and the session jankd
 * created is destroyed. Safe to call twice.
 */
void jank_capturer_stop(struct jank_capturer *cp);
/* Stops first when needed. */
void jank_capturer_free(struct jank_capturer *cp);

/* The capture policy's counters (zeros before captures were ever on). */
void jank_capturer_get_stats(struct jank_capturer *cp, struct jank_capture_stats *out);

/* The "capture" object of `jankctl status` (a new reference), NULL on allocation failure. */
struct json_object *jank_capturer_status_json(struct jank_capturer *cp);

#endif
