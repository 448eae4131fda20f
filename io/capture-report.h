/* SPDX-License-Identifier: MIT */
/*
 * The offline analysis of a capture (`jankctl report`, and jankd after each
 * capture).
 *
 * A capture directory holds capture.json (written by capture-policy.c) and the
 * trace (a snapshot's <name>/kernel, <name>/ust/..., or rotation chunks).
 * The report runs the offline engine, the very code of `jankctl analyze`,
 * with the flagged action's rule and threshold, finds the flagged action
 * (same key, the end closest to the recorded one), and writes next to the
 * trace:
 *
 *   report.json        the `jankctl analyze --format json` action line, plus
 *                      "capture" (capture.json), "analysis" and "summary"
 *   report.txt         the story, with a header and what to look at next
 *   critical-path.svg  the picture (svg.h)
 *   flame.svg          the path's time by thread and call stack, the wait
 *                      states as leaf frames (flame-path.h)
 *   binaries.json      the binaries the path's user-space addresses fell in
 *                      (path, build-id, where each process mapped them, the
 *                      file their symbols came from) with those addresses as
 *                      offsets in them, and the addresses of no known
 *                      mapping: what the path needs to be named elsewhere
 *
 * When jankd joined the action's path across hosts (live-path.json,
 * capture-json.h), the other hosts' part of it is spliced into the path
 * found here: the trace is one host's.
 *
 * When the capture does not hold the action's end (an overdue action, or a
 * flight recorder that had already overwritten it), the path is computed on
 * the action's thread over the recorded interval, clipped to the trace.
 * When the trace is missing or holds nothing of the action, report.json and
 * report.txt still say so (with "error"), so that `jankctl captures` and the
 * journal can tell why there is no path.
 *
 * Thread-safe: no global state; jankd may run it off its event loop.
 */
#ifndef JANK_CAPTURE_REPORT_H
#define JANK_CAPTURE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#define JANK_CAPTURE_REPORT_JSON	"report.json"
#define JANK_CAPTURE_REPORT_TEXT	"report.txt"
#define JANK_CAPTURE_REPORT_SVG		"critical-path.svg"
#define JANK_CAPTURE_REPORT_FLAME	"flame.svg"
#define JANK_CAPTURE_REPORT_BINARIES	"binaries.json"
#define JANK_CAPTURE_REPORT_SUMMARY_LEN 512

struct jank_capture_report_result {
	bool partial; /* the action's end is not in the capture: path over the recorded interval */
	char summary[JANK_CAPTURE_REPORT_SUMMARY_LEN]; /* one line, as report.json's "summary" */
};

/*
 * Analyse the capture in `dir` and write its report files. Returns 0;
 * -ENOENT (no capture.json, or no such dir) or -EINVAL (capture.json is not a
 * capture's) with nothing written; -ENODATA when the trace is missing or does
 * not hold the action (report.json and report.txt say why); -ENOMEM, -EIO.
 * Every error has a one-line message in `err`, which names the path.
 */
int jank_capture_report_write(const char *dir, struct jank_capture_report_result *out, char *err,
			      size_t errlen);
/*
 * The same, with the report files written into `out_dir` (NULL: report.txt
 * on standard output, and no file written anywhere).
 */
int jank_capture_report_write_to(const char *dir, const char *out_dir,
				 struct jank_capture_report_result *out, char *err, size_t errlen);

#endif
