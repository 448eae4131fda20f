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

/*
 * What the capturer says of itself, read at once under its lock: `jankctl
 * status` (its "capture" object, and the text made from the same struct)
 * and the metrics page render it.
 */
struct jank_capturer_status {
	enum jank_capture_mode mode;
	bool has_policy;    /* captures were on once: dir, the stats and in_flight are */
	char dir[PATH_MAX]; /* the capture dir */
	bool session_up;    /* the capture session is up: `session` names it */
	char session[JANK_CONFIG_SESSION_LEN];
	bool session_owned; /* jankd created it */
	uint64_t session_recreated, session_recreate_refused;
	bool kernel;					  /* its kernel channel could be made */
	char session_error[JANK_CAPTURE_SESSION_ERR_LEN]; /* why it is not up; "" */
	struct jank_capture_stats stats;		  /* the policy's counters (zeros before) */
	uint64_t no_session;				  /* janks refused: no capture session */
	char in_flight[PATH_MAX];			  /* the capture being recorded, "" */
	uint64_t reports, reports_without_path, reports_failed;
	bool rotation; /* rotation mode: the four counters below are */
	uint64_t chunks_kept, chunks_deleted, rotations_waited, rotations_retried;
};

void jank_capturer_get_status(struct jank_capturer *cp, struct jank_capturer_status *out);
/* The "capture" object of `jankctl status` (a new reference), NULL on allocation failure. */
struct json_object *jank_capturer_status_to_json(const struct jank_capturer_status *s);

#endif
