/* SPDX-License-Identifier: MIT */
/*
 * Diagnostics of jankd. With journald as the target, each line is an entry
 * with PRIORITY and SYSLOG_IDENTIFIER=jankd, handed to journal.c: it never
 * blocks, and what journald does not take at once waits in jankd's memory.
 * When no journald can be reached at all, the line goes to stderr instead.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "journal.h"
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

/* JOURNAL_STREAM is "DEVICE:INODE" of the stream systemd connected: is it our stderr? */
static bool stderr_is_journal_stream(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st) != 0)
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

bool jank_log_on_terminal(void)
{
	const char *inv = getenv("INVOCATION_ID");

	if ((inv && inv[0]) || stderr_is_journal_stream())
		return false;
	return isatty(STDERR_FILENO) == 1;
}

static enum jank_journal_result journal_line(int priority, const char *msg)
{
	struct jank_journal_entry e;

	jank_journal_entry_init(&e);
	jank_journal_entry_add(&e, "MESSAGE", msg);
	jank_journal_entry_addf(&e, "PRIORITY", "%d", priority);
	jank_journal_entry_add(&e, "SYSLOG_IDENTIFIER", "jankd");
	return jank_journal_send(JANK_JOURNAL_OTHER, &e);
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
	if (log_journal && journal_line(priority, msg) != JANK_JOURNAL_STDERR)
		return;
	fprintf(stderr, "jankd: %s\n", msg);
}
