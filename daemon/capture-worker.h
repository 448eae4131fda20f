/* SPDX-License-Identifier: MIT */
/*
 * jankd's captures (README "Captures"; ARCHITECTURE, steps 6 to 8): the capture session,
 * the capture policy (capture.h), and the two worker threads that keep
 * lttng-ctl and the offline analysis off the event loop.
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
 *   analyst         writes report.json, report.txt and critical-path.svg
 *                   of each complete capture (jank_capture_report_write).
 *
 * The workers hand their log lines and finished reports back to the loop
 * through a pipe; the loop logs them and sends, through the alerter (to the
 * alerts' target), the follow-up entry of each report (MESSAGE_ID
 * JANK_CAPTURE_WORKER_MESSAGE_ID_REPORT: JANK_CAPTURE, JANK_REPORT, JANK_ACTION, JANK_KEY,
 * JANK_SUMMARY), or of each capture that failed (the same MESSAGE_ID: JANK_CAPTURE,
 * JANK_CAPTURE_FAILED with why, JANK_ACTION, JANK_KEY; the directory holds only capture.json,
 * "failed").
 *
 * The capture session exists only when [capture] mode is snapshot or
 * rotation and some rule says capture = yes. It is the session named by [capture] session
 * when that one exists (adopted: never changed or destroyed), else one that
 * jankd creates (jankd-capture by default) and destroys at exit. Without a
 * kernel tracer it records user-space events only, with one warning. In
 * rotation mode it is a rotating session of jankd's own (see capture-worker.c).
 */
#ifndef JANK_CAPTURE_WORKER_H
#define JANK_CAPTURE_WORKER_H

#include <stddef.h>
#include <event2/event.h>
#include <json-c/json.h>
#include "alert.h"
#include "capture-policy.h"
#include "config-file.h"
#include "engine.h"

#define JANK_CAPTURE_WORKER_MESSAGE_ID_REPORT JANK_ALERT_MESSAGE_ID_FOLLOWUP
#define JANK_CAPTURE_WORKER_DEFAULT_SESSION   "jankd-capture"

struct jank_capture_worker;

/* NULL on allocation failure. Nothing runs before jank_capture_worker_start(). */
struct jank_capture_worker *jank_capture_worker_new(struct event_base *base);

/*
 * Set the capture session up (synchronously: jankd is starting) and start the
 * workers. A session that cannot be made is logged, and captures stay off
 * until a reload; only a failure of the process itself (memory, threads) is
 * returned, as -errno with a message in `err`. The follow-ups go to
 * `alerter` (jank_alerter_followup()), which must outlive the worker's stop.
 */
int jank_capture_worker_start(struct jank_capture_worker *cp, const struct jank_config *c,
			      struct jank_alerter *alerter, char *err, size_t len);

/* Config reload: the new policy now, session changes on the recorder thread. */
void jank_capture_worker_reload(struct jank_capture_worker *cp, const struct jank_config *c);

/*
 * The alerter's capture hook (jank_alert_capture_fn); `data` is the capture
 * worker. *failed (when not NULL) says why a capture could not be made at
 * all (the policy's "error" refusals: the directory cannot be written).
 */
const char *jank_capture_worker_jank(const struct jank_verdict *r, const char **failed, void *data);

/*
 * Stop: the workers finish what they were given (the snapshot in flight, the
 * reports not written yet), their messages are logged, and the session jankd
 * created is destroyed. Safe to call twice.
 */
void jank_capture_worker_stop(struct jank_capture_worker *cp);
/* Stops first when needed. */
void jank_capture_worker_free(struct jank_capture_worker *cp);

/* The capture policy's counters (zeros before captures were ever on). */
void jank_capture_worker_get_stats(struct jank_capture_worker *cp, struct jank_capture_stats *out);

/* The "capture" object of `jankctl status` (a new reference), NULL on allocation failure. */
struct json_object *jank_capture_worker_status_json(struct jank_capture_worker *cp);

#endif
