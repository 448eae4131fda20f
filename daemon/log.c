/* SPDX-License-Identifier: MIT */
/*
 * Diagnostics of jankd. With journald as the target, each line is an entry
 * with PRIORITY and SYSLOG_IDENTIFIER=jankd; when journald cannot take it
 * (not running), the line goes to stderr instead, so nothing is lost.
 */
#include <stdarg.h>
#include <stdio.h>
#include <systemd/sd-journal.h>
#include "log.h"

#define LOG_LINE_LEN 1024

static bool log_journal;
static jank_log_sink_fn log_sink;
static void *log_sink_data;

void jank_log_set_sink(jank_log_sink_fn fn, void *data)
{
	log_sink = fn;
	log_sink_data = data;
}

void jank_log_set_journal(bool journal)
{
	log_journal = journal;
}

void jank_log(int priority, const char *fmt, ...)
{
	char msg[LOG_LINE_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (log_sink) {
		log_sink(priority, msg, log_sink_data);
		return;
	}
	if (log_journal && sd_journal_send("MESSAGE=%s", msg, "PRIORITY=%d", priority,
					   "SYSLOG_IDENTIFIER=jankd", NULL) >= 0)
		return;
	fprintf(stderr, "jankd: %s\n", msg);
}
