/* SPDX-License-Identifier: MIT */
/*
 * Alerts: each report of the engine (a completed action over its threshold,
 * or an overdue one) becomes a journald entry, a block of text on stderr, or
 * a JSON line on stdout, rate-limited per rule.
 *
 * Rate limiting: per rule (by name), at most `rate_count` alerts in a window
 * of `rate_period_ns` that starts at the window's first alert. The rest are
 * counted; when the window ends (jank_alerter_tick) or at exit
 * (jank_alerter_flush), one summary says how many were suppressed. Nothing
 * is dropped silently.
 *
 * Journal fields (MESSAGE_IDs documented in jankd.catalog):
 *   MESSAGE, MESSAGE_ID, PRIORITY=4, SYSLOG_IDENTIFIER=jankd, JANK_KIND
 *   (completed|overdue), JANK_ACTION, JANK_KEY, JANK_DURATION_NS,
 *   JANK_THRESHOLD_NS, JANK_PID, JANK_TID, JANK_COMM, JANK_BEGIN_NS,
 *   JANK_END_NS, JANK_CRITICAL_PATH, JANK_BREAKDOWN (JSON), JANK_INPUT,
 *   JANK_SUSPECTS (JSON: what was different from the rule's normal actions),
 *   JANK_HOST and JANK_SESSION (the traced host and its live session, when
 *   known), JANK_CAPTURE (the capture directory, when the jank took or
 *   joined one) or JANK_CAPTURE_FAILED (why the capture it was to take
 *   could not be made), and JANK_SKIPPED_NS (how much of the action a worker
 *   restart skipped: its path may be incomplete; the MESSAGE says so too);
 *   summaries: MESSAGE, MESSAGE_ID, PRIORITY=4, JANK_ACTION,
 *   JANK_SUPPRESSED, JANK_PERIOD_NS, and JANK_HOST when known.
 *
 * With hosts (reports from an origin with a host), the windows are per rule
 * and host: a storm on one host does not hide the janks of the others.
 */
#ifndef JANK_ALERT_H
#define JANK_ALERT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "config-file.h"
#include "engine.h"

#define JANK_ALERT_MESSAGE_ID_JANK	 "3f5b0c2e8a6d4e1b9c7a5d3e1f2b4c6a"
#define JANK_ALERT_MESSAGE_ID_SUPPRESSED "7c1e9a3b5d2f4e6a8b0c2d4e6f8a1b3c"
/* A capture's follow-up (capturer.h says its fields). */
#define JANK_ALERT_MESSAGE_ID_FOLLOWUP "5a8d2c4e6f1b3a5c7e9d1f3b5a7c9e1d"
#define JANK_ALERT_RECENT	       10
#define JANK_ALERT_HISTORY	       64 /* janks kept for the web pages; status shows RECENT */
#define JANK_ALERT_SUSPECT_LEN	       192
#define JANK_ALERT_STORY_LEN	       512
#define JANK_ALERT_MESSAGE_LEN	       512
#define JANK_ALERT_FOLLOWUP_LEN	       (PATH_MAX + 1024)

struct jank_alert_config {
	enum jank_alert_target target;
	uint64_t rate_count;	/* at most this many alerts per rule ... */
	int64_t rate_period_ns; /* ... per window of this length; 0: no limit */
};

enum jank_alert_kind {
	JANK_ALERT_REPORT = 0,	    /* one jank (completed or overdue) */
	JANK_ALERT_SUPPRESSED,	    /* the summary of a window's suppressed janks */
	JANK_ALERT_FOLLOWUP,	    /* a capture's report was written */
	JANK_ALERT_FOLLOWUP_FAILED, /* a capture an alert named could not be made */
};

/* A capture's follow-up: after the alert that named its directory. */
struct jank_followup {
	bool failed;	     /* the capture failed (else its report was written) */
	const char *dir;     /* the capture directory */
	const char *action;  /* the rule's name */
	const char *key;     /* the action's key */
	const char *report;  /* its report's text file */
	const char *summary; /* the report's one line, or why it has no path */
	const char *error;   /* failed: why; else the report's error, or NULL */
	bool ok;	     /* written with a path */
	bool partial;	     /* the capture missed part of the action */
};

/* What a sink receives. */
struct jank_alert {
	enum jank_alert_kind kind;
	const struct jank_verdict *report; /* REPORT */
	const char *input;		   /* REPORT: the input it came from */
	const char *host;		   /* the traced host, or NULL */
	const char *session;		   /* REPORT: its live session, or NULL */
	const char *capture;		   /* REPORT: its capture directory, or NULL; FOLLOWUP* */
	const char *capture_failed;	   /* REPORT: why its capture failed at once, or NULL;
					      FOLLOWUP_FAILED: why it failed */
	int64_t skipped_ns;		   /* REPORT: of the action, skipped by a restart */
	const char *action;		   /* the rule's name */
	uint64_t suppressed;		   /* SUPPRESSED: how many */
	int64_t period_ns;		   /* SUPPRESSED: over how long */
	const struct jank_followup *followup; /* FOLLOWUP* */
};

/* A recent jank, for `jankctl status` and the web pages. */
struct jank_recent {
	uint64_t id; /* 1 for the alerter's first jank, and so on */
	enum jank_verdict_kind kind;
	bool suppressed; /* rate-limited: counted, not sent */
	int64_t begin, end, duration, threshold;
	int32_t tid, pid;
	char comm[16];
	char action[64];
	char key[96];
	char host[JANK_CONFIG_SESSION_LEN];    /* "" when unknown */
	char session[JANK_CONFIG_SESSION_LEN]; /* idem */
	char story[JANK_ALERT_STORY_LEN];
	char capture[PATH_MAX];		     /* "" when none */
	int64_t skipped_ns;		     /* of the action, skipped by a worker restart */
	char input[256];		     /* the input it came from (its URL), cut */
	int64_t per_state[JANK_STATE_COUNT]; /* the path's time per state; all 0: no path */
	/* What differed from the rule's normal actions, in words, largest first. */
	char suspects[JANK_SUSPECTS_MAX][JANK_ALERT_SUSPECT_LEN];
	size_t nsuspects;
	char suspects_line[JANK_ALERT_SUSPECT_LEN]; /* the top one, or why none; "" without */
};

struct jank_alerter_stats {
	uint64_t reports;	 /* janks and overdue actions seen */
	uint64_t sent;		 /* alerts sent */
	uint64_t suppressed;	 /* counted in a summary instead */
	uint64_t summaries;	 /* summaries sent */
	uint64_t journal_errors; /* the target (journald) refused an alert: it went to stderr */
};

typedef void (*jank_alert_sink_fn)(const struct jank_alert *a, void *data);
/*
 * Asked once per report, before its alert is sent or counted: the capture
 * directory the jank took or joined, or NULL; with NULL, *failed may say why
 * the capture the jank was to take could not be made (else it stays NULL).
 * The strings must stay valid until the next call. The alert never waits
 * for the capture itself.
 */
typedef const char *(*jank_alert_capture_fn)(const struct jank_verdict *r, const char **failed,
					     void *data);
typedef int64_t (*jank_alert_clock_fn)(void *data);

struct jank_alerter;

struct jank_alerter *jank_alerter_new(const struct jank_alert_config *c);
/* Frees without a flush: call jank_alerter_flush() first. */
void jank_alerter_free(struct jank_alerter *al);
/* Config reload: windows in progress keep their counts. */
void jank_alerter_set_config(struct jank_alerter *al, const struct jank_alert_config *c);
/* Replace the target's output (tests); NULL: back to the target. */
void jank_alerter_set_sink(struct jank_alerter *al, jank_alert_sink_fn fn, void *data);
/* Replace the monotonic clock (tests). */
void jank_alerter_set_clock(struct jank_alerter *al, jank_alert_clock_fn fn, void *data);
/* Ask `fn` for each report's capture (jankd's capturer); NULL: no captures. */
void jank_alerter_set_capture(struct jank_alerter *al, jank_alert_capture_fn fn, void *data);

/* Where a report comes from: the input (its live URL), the host and session it watches. */
struct jank_alert_origin {
	const char *input;
	const char *host;    /* NULL when unknown */
	const char *session; /* NULL when unknown */
	int64_t skipped_ns;  /* of the action, in a range a worker restart skipped (0: none) */
};

/* An engine report: send it, or count it against its rule's (and host's) window. */
void jank_alerter_report_from(struct jank_alerter *al, const struct jank_verdict *r,
			      const struct jank_alert_origin *o);
/* The same, from an input whose host is unknown. */
void jank_alerter_report(struct jank_alerter *al, const struct jank_verdict *r, const char *input);
/*
 * A capture's follow-up (the capturer's, on the loop): to the target
 * (or the sink), as the alerts go; never rate-limited, not counted as an alert.
 */
void jank_alerter_followup(struct jank_alerter *al, const struct jank_followup *fu);
/* Close the windows that are over: one summary each that suppressed something. */
void jank_alerter_tick(struct jank_alerter *al);
/* At exit: a summary for every window that suppressed something. */
void jank_alerter_flush(struct jank_alerter *al);

void jank_alerter_get_stats(const struct jank_alerter *al, struct jank_alerter_stats *out);
/* The i-th most recent jank (0: the newest), NULL past JANK_ALERT_RECENT or the end. */
const struct jank_recent *jank_alerter_recent(const struct jank_alerter *al, size_t i);
/* The same, up to JANK_ALERT_HISTORY janks back. */
const struct jank_recent *jank_alerter_history(const struct jank_alerter *al, size_t i);
/* The jank with that id, while it is among the last JANK_ALERT_HISTORY; else NULL. */
const struct jank_recent *jank_alerter_recent_id(const struct jank_alerter *al, uint64_t id);

/*
 * A frame of input INPUT's verdicts that said FRAME ("binary+0xOFFSET") is
 * function NAME: the binary's symbols came later (a debuginfod download).
 * The recent janks of that input (the status, the web pages) say NAME
 * where their story and suspects said FRAME, as a whole word. Returns how
 * many janks changed.
 */
size_t jank_alerter_rename(struct jank_alerter *al, const char *input, const char *frame,
			   const char *name);

/* A summary's MESSAGE: "37 more janks of frame suppressed in the last 10 s". */
void jank_alert_summary_text(const struct jank_alert *a, char *buf, size_t len);
/*
 * A follow-up's MESSAGE: "capture report of frame [tid=7]: DIR/report.txt:
 * SUMMARY", or "capture of frame [tid=7] failed: DIR: WHY".
 */
void jank_alert_followup_text(const struct jank_alert *a, char *buf, size_t len);

/*
 * The alert's one-line MESSAGE: kind, action, key, duration, threshold,
 * thread, what the path mostly was (see format_cause() in alert.c), and the
 * top suspect ("; suspect: +40.0 ms block_device waiting on db (normally
 * none)", or "; no baseline yet (3 of 10 normal actions)").
 */
void jank_alert_message(const struct jank_verdict *r, char *buf, size_t len);
/*
 * The sentence an alert's MESSAGE ends with when a worker restart skipped
 * part of the action: "; 1.20 s of it was skipped by a worker restart: the
 * path may be incomplete". "" when `skipped_ns` is 0.
 */
void jank_alert_skipped_text(int64_t skipped_ns, char *buf, size_t len);
/* "10 s", "1.50 s", "500 ms": a window length as the summaries say it. */
const char *jank_alert_period_text(int64_t ns, char *buf, size_t len);

#endif
