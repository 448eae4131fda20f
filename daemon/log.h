/* SPDX-License-Identifier: MIT */
/*
 * jankd's own diagnostics (startup, disconnects, reloads, warnings): one line
 * each, to journald when alerts go there, else to stderr as "jankd: ...".
 *
 * Alerts are not diagnostics: they go through alert.h.
 */
#ifndef JANK_LOG_H
#define JANK_LOG_H

#include <stdbool.h>
#include <syslog.h>

/* true: journald (falls back to stderr when journald cannot be reached). */
void jank_log_set_journal(bool journal);
/*
 * --log-target=auto: stderr when jankd runs in a terminal (stderr is a tty)
 * and not under systemd (no INVOCATION_ID, no JOURNAL_STREAM naming stderr):
 * a first run by hand shows what is wrong where it was started.
 */
bool jank_log_on_terminal(void);
void jank_log(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Send every line to `fn` instead (a worker process hands its lines to
 * jankd's supervisor, which logs them); NULL: back to the target.
 */
typedef void (*jank_log_sink_fn)(int priority, const char *line, void *data);
void jank_log_set_sink(jank_log_sink_fn fn, void *data);

#endif
