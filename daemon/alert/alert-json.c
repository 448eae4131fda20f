/* SPDX-License-Identifier: MIT */
/* Alerts as JSON Lines on stdout ([alerts] target = json; see alert-target.h). */
#include <stdio.h>
#include "alert-target.h"
#include "format.h"
#include "json-util.h"
#include "log.h"
#include "verdict-json.h"

/* One line (`o` is taken); one that cannot be written is logged (stdout is the target). */
static int print_alert(struct json_object *o)
{
	int r = jank_format_json_print(stdout, o);

	fflush(stdout);
	if (r < 0)
		jank_log(LOG_ERR, "cannot write an alert on stdout");
	return 0;
}

static int report(const struct jank_alert *a)
{
	struct json_object *o = jank_verdict_to_json(a->report, JANK_VERDICT_JSON_FULL);

	if (o && a->host) {
		jank_json_add_str(o, "host", a->host);
		jank_json_add_str(o, "session", a->session ? a->session : "");
	}
	if (o && a->capture)
		jank_json_add_str(o, "capture", a->capture);
	else if (o && a->capture_failed)
		jank_json_add_str(o, "capture_failed", a->capture_failed);
	if (o && a->skipped_ns > 0)
		jank_json_add_i64(o, "skipped_ns", a->skipped_ns);
	return print_alert(o);
}

static int summary(const struct jank_alert *a)
{
	struct json_object *o = json_object_new_object();

	if (o) {
		jank_json_add_str(o, "type", "suppressed");
		jank_json_add_str(o, "action", a->action);
		jank_json_add_u64(o, "count", a->suppressed);
		jank_json_add_i64(o, "period_ns", a->period_ns);
		if (a->host)
			jank_json_add_str(o, "host", a->host);
	}
	return print_alert(o);
}

/* A follow-up (`o` is taken) that cannot be written goes to stderr (the alerter does it). */
static int print_followup(struct json_object *o)
{
	int r = jank_format_json_print(stdout, o);

	fflush(stdout);
	return r < 0 ? -1 : 0;
}

static int followup(const struct jank_alert *a)
{
	const struct jank_followup *fu = a->followup;
	struct json_object *o = json_object_new_object();

	if (o) {
		jank_json_add_str(o, "type", "capture_report");
		jank_json_add_str(o, "action", a->action);
		jank_json_add_str(o, "key", fu->key);
		jank_json_add_str(o, "capture", a->capture);
		jank_json_add_str(o, "report", fu->report);
		jank_json_add_str(o, "summary", fu->summary);
		jank_json_add_bool(o, "partial", fu->partial);
		if (fu->error)
			jank_json_add_str(o, "error", fu->error);
	}
	return print_followup(o);
}

static int followup_failed(const struct jank_alert *a)
{
	struct json_object *o = json_object_new_object();

	if (o) {
		jank_json_add_str(o, "type", "capture_failed");
		jank_json_add_str(o, "action", a->action);
		jank_json_add_str(o, "key", a->followup->key);
		jank_json_add_str(o, "capture", a->capture);
		jank_json_add_str(o, "capture_failed", a->capture_failed);
	}
	return print_followup(o);
}

const struct jank_alert_target_ops jank_alert_json_ops = {
	.report = report,
	.summary = summary,
	.followup = followup,
	.followup_failed = followup_failed,
};
