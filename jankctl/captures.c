/* SPDX-License-Identifier: MIT */
/*
 * jankctl report and captures: the captures jankd keeps on disk. report
 * analyses one again and writes its report files (io/capture-report.c, the
 * code jankd runs after each capture); captures lists them with their
 * reports' summaries (io/capture-list.c).
 */
#include <stdio.h>
#include "capture-list.h"
#include "capture-policy.h"
#include "capture-report.h"
#include "exit-status.h"
#include "jankctl.h"

static const char usage_report[] =
	"Usage: jankctl report CAPTURE_DIR\n"
	"Analyse a capture taken by jankd: find the flagged action of its capture.json in the\n"
	"captured trace, compute its critical path, and write report.json, report.txt and\n"
	"critical-path.svg into CAPTURE_DIR. jankd does this after each capture; run it again\n"
	"after an upgrade, or on a copy of the capture.\n"
	"\n"
	"  -h, --help            show this help\n";

static const char usage_captures[] =
	"Usage: jankctl captures [--dir DIR] [--format text|json]\n"
	"List the captures of jankd, oldest first: time, action, key, duration, size on disk,\n"
	"state, and the report's one-line summary.\n"
	"\n"
	"  -d, --dir DIR         the capture directory (default " JANK_CAPTURE_DEFAULT_DIR ")\n"
	"  -f, --format FORMAT   text (default) or json (one object per line)\n"
	"  -h, --help            show this help\n";

int cmd_report(int argc, char **argv)
{
	struct jank_capture_report_result res;
	struct options o = { 0 };
	char err[ERR_LEN];
	const char *dir;
	int r;

	r = parse_options(argc, argv, "report", "h", usage_report, &o);
	if (r)
		return r == 1 ? 0 : r;
	if (o.ntraces != 1) {
		errorf("report: %s (see jankctl report --help)",
		       o.ntraces ? "one CAPTURE_DIR at a time" : "no CAPTURE_DIR given");
		return JANK_EXIT_USAGE;
	}
	dir = o.traces[0];
	r = jank_capture_report_write(dir, &res, err, sizeof(err));
	if (r < 0) {
		errorf("%s", err);
		return JANK_EXIT_BAD_INPUT;
	}
	printf("%s\n", res.summary);
	printf("wrote %s/{%s,%s,%s}\n", dir, JANK_CAPTURE_REPORT_JSON, JANK_CAPTURE_REPORT_TEXT,
	       JANK_CAPTURE_REPORT_SVG);
	return finish_output();
}

int cmd_captures(int argc, char **argv)
{
	struct options o = { .dir = JANK_CAPTURE_DEFAULT_DIR };
	char err[ERR_LEN];
	int r;

	r = parse_options(argc, argv, "captures", "dfh", usage_captures, &o);
	if (r)
		return r == 1 ? 0 : r;
	if (no_arguments("captures", &o))
		return JANK_EXIT_USAGE;
	if (jank_capture_list_print(stdout, o.dir, o.format == FORMAT_JSON, err, sizeof(err)) < 0) {
		errorf("%s", err);
		return JANK_EXIT_BAD_INPUT;
	}
	return finish_output();
}
