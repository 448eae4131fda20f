/* SPDX-License-Identifier: MIT */
/*
 * Alerts as journald entries ([alerts] target = journal; the fields are in
 * alert.h and capturer.h, the MESSAGE_IDs in jankd.catalog), sent
 * through daemon/journal.c: never blocking; what must wait is queued. Until
 * journald has been reached once, an operation fails (-1) and the alerter
 * writes the alert on stderr.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "alert-target.h"
#include "format.h"
#include "journal.h"
#include "log.h"
#include "verdict-json.h"

#define STORY_STEPS 16
#define STORY_LEN   4096

static int sent(enum jank_journal_class cls, struct jank_journal_entry *e)
{
	/* Sent, or waiting for journald in jankd's memory: either way, taken. */
	return jank_journal_send(cls, e) == JANK_JOURNAL_STDERR ? -1 : 0;
}

static const char *json_text(struct json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
}

static void head(struct jank_journal_entry *e, const char *msg, const char *id, int priority)
{
	jank_journal_entry_init(e);
	jank_journal_entry_add(e, "MESSAGE", msg);
	jank_journal_entry_add(e, "MESSAGE_ID", id);
	jank_journal_entry_addf(e, "PRIORITY", "%d", priority);
	jank_journal_entry_add(e, "SYSLOG_IDENTIFIER", "jankd");
}

static int report(const struct jank_alert *a)
{
	const struct jank_verdict *r = a->report;
	struct json_object *bd = jank_format_breakdown_json(r->breakdown);
	struct json_object *sus = r->suspects ? jank_suspects_to_json(r->suspects) : NULL;
	struct jank_journal_entry e;
	char msg[JANK_ALERT_MESSAGE_LEN + 128];
	char *story = malloc(STORY_LEN);

	jank_alert_message(r, msg, JANK_ALERT_MESSAGE_LEN);
	jank_alert_skipped_text(a->skipped_ns, msg + strlen(msg), sizeof(msg) - strlen(msg));
	if (story)
		jank_format_path_story(story, STORY_LEN, r->path, STORY_STEPS);
	head(&e, msg, JANK_ALERT_MESSAGE_ID_JANK, LOG_WARNING);
	jank_journal_entry_add(&e, "JANK_KIND", jank_verdict_kind_name(r->kind));
	jank_journal_entry_add(&e, "JANK_ACTION", a->action);
	jank_journal_entry_add(&e, "JANK_KEY", r->key ? r->key : "");
	jank_journal_entry_addf(&e, "JANK_DURATION_NS", "%" PRId64, r->duration);
	jank_journal_entry_addf(&e, "JANK_THRESHOLD_NS", "%" PRId64, r->threshold);
	jank_journal_entry_addf(&e, "JANK_PID", "%" PRId32, r->pid);
	jank_journal_entry_addf(&e, "JANK_TID", "%" PRId32, r->tid);
	jank_journal_entry_add(&e, "JANK_COMM", r->comm ? r->comm : "");
	jank_journal_entry_addf(&e, "JANK_BEGIN_NS", "%" PRId64, r->begin);
	jank_journal_entry_addf(&e, "JANK_END_NS", "%" PRId64, r->end);
	/* On every alert, 0 included: events the tracer discarded in [begin, end]. */
	jank_journal_entry_addf(&e, "JANK_DISCARDED_EVENTS", "%" PRIu64, r->discarded_events);
	jank_journal_entry_add(&e, "JANK_CRITICAL_PATH", story ? story : "");
	/* The function the path spent most time in, when threads had call stacks. */
	if (jank_format_top_function(r->breakdown, NULL))
		jank_journal_entry_add(&e, "JANK_FUNCTION",
				       jank_format_top_function(r->breakdown, NULL));
	jank_journal_entry_add(&e, "JANK_BREAKDOWN", bd ? json_text(bd) : "{}");
	jank_journal_entry_add(&e, "JANK_INPUT", a->input ? a->input : "");
	jank_journal_entry_add(&e, "JANK_HOST", a->host ? a->host : "");
	jank_journal_entry_add(&e, "JANK_SESSION", a->session ? a->session : "");
	if (sus)
		jank_journal_entry_add(&e, "JANK_SUSPECTS", json_text(sus));
	if (a->capture)
		jank_journal_entry_add(&e, "JANK_CAPTURE", a->capture);
	else if (a->capture_failed)
		jank_journal_entry_add(&e, "JANK_CAPTURE_FAILED", a->capture_failed);
	if (a->skipped_ns > 0)
		jank_journal_entry_addf(&e, "JANK_SKIPPED_NS", "%" PRId64, a->skipped_ns);
	free(story);
	json_object_put(bd);
	json_object_put(sus);
	return sent(JANK_JOURNAL_ALERT, &e);
}

static int summary(const struct jank_alert *a)
{
	struct jank_journal_entry e;
	char msg[JANK_ALERT_MESSAGE_LEN];

	jank_alert_summary_text(a, msg, sizeof(msg));
	head(&e, msg, JANK_ALERT_MESSAGE_ID_SUPPRESSED, LOG_WARNING);
	jank_journal_entry_add(&e, "JANK_ACTION", a->action);
	jank_journal_entry_addf(&e, "JANK_SUPPRESSED", "%" PRIu64, a->suppressed);
	jank_journal_entry_addf(&e, "JANK_PERIOD_NS", "%" PRId64, a->period_ns);
	if (a->host)
		jank_journal_entry_add(&e, "JANK_HOST", a->host);
	return sent(JANK_JOURNAL_ALERT, &e);
}

static int followup(const struct jank_alert *a)
{
	const struct jank_followup *fu = a->followup;
	struct jank_journal_entry e;
	char line[JANK_ALERT_FOLLOWUP_LEN];

	jank_alert_followup_text(a, line, sizeof(line));
	head(&e, line, JANK_ALERT_MESSAGE_ID_FOLLOWUP, fu->ok ? LOG_INFO : LOG_WARNING);
	jank_journal_entry_add(&e, "JANK_CAPTURE", a->capture);
	jank_journal_entry_add(&e, "JANK_REPORT", fu->report);
	jank_journal_entry_add(&e, "JANK_ACTION", a->action);
	jank_journal_entry_add(&e, "JANK_KEY", fu->key);
	jank_journal_entry_add(&e, "JANK_SUMMARY", fu->summary);
	jank_journal_entry_add(&e, "JANK_PARTIAL", fu->partial ? "1" : "0");
	return sent(JANK_JOURNAL_OTHER, &e);
}

static int followup_failed(const struct jank_alert *a)
{
	struct jank_journal_entry e;
	char line[JANK_ALERT_FOLLOWUP_LEN];

	jank_alert_followup_text(a, line, sizeof(line));
	head(&e, line, JANK_ALERT_MESSAGE_ID_FOLLOWUP, LOG_WARNING);
	jank_journal_entry_add(&e, "JANK_CAPTURE", a->capture);
	jank_journal_entry_add(&e, "JANK_CAPTURE_FAILED", a->capture_failed);
	jank_journal_entry_add(&e, "JANK_ACTION", a->action);
	jank_journal_entry_add(&e, "JANK_KEY", a->followup->key);
	return sent(JANK_JOURNAL_OTHER, &e);
}

const struct jank_alert_target_ops jank_alert_journal_ops = {
	.report = report,
	.summary = summary,
	.followup = followup,
	.followup_failed = followup_failed,
	.unreachable = "cannot send alerts to journald (" JANK_JOURNAL_SOCKET " is not there)",
};
