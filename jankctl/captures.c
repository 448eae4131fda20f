/* SPDX-License-Identifier: MIT */
/*
 * jankctl report and captures: the captures jankd keeps on disk. report
 * analyses one again and writes its report files (io/capture-report.c, the
 * code jankd runs after each capture); captures lists them with their
 * reports' summaries (io/capture-list.c).
 */
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#include "capture-list.h"
#include "capture-policy.h"
#include "capture-report.h"
#include "config-file.h"
#include "exit-status.h"
#include "jankctl.h"

static const char usage_report[] =
	"Usage: jankctl report [--dir OUT] [--config FILE] CAPTURE_DIR\n"
	"Analyse a capture taken by jankd: find the flagged action of its capture.json in the\n"
	"captured trace, compute its critical path, and write report.json, report.txt,\n"
	"critical-path.svg, flame.svg (the path by call stack) and binaries.json (the binaries\n"
	"its addresses fell in, to name them elsewhere) into CAPTURE_DIR (or OUT).\n"
	"jankd does this after each capture; run it again after an upgrade, or on a copy of the\n"
	"capture. Run as root on a CAPTURE_DIR that another user owns, it writes nothing there:\n"
	"report.txt goes to standard output, unless --dir names where the files go.\n"
	"\n"
	"  -d, --dir OUT         write the report files into OUT instead\n"
	"  -c, --config FILE     name binaries through the debuginfod servers of its\n"
	"                        [symbols] (another host's, stripped ones), waiting for them\n"
	"      --decoder NAME    auto (default), native or babeltrace2: which CTF decoder reads\n"
	"                        the traces (auto: native unless it cannot, then babeltrace2)\n"
	"  -h, --help            show this help\n";

/*
 * Root writing into a directory another user owns would follow what that
 * user planted there; jank creates its files safely (io/dirtree.c), but a
 * report root computed does not belong in a place root does not own: the
 * owner, or NULL when CAPTURE_DIR is root's own (or we are not root).
 */
static bool foreign_dir(const char *dir, uid_t *owner)
{
	struct stat st;

	if (geteuid() != 0 || stat(dir, &st) != 0 || st.st_uid == 0)
		return false;
	*owner = st.st_uid;
	return true;
}

static const char usage_captures[] =
	"Usage: jankctl captures [--dir DIR] [--format text|json]\n"
	"List the captures of jankd, oldest first: time, action, key, duration, size on disk,\n"
	"state, and the report's one-line summary.\n"
	"\n"
	"  -d, --dir DIR         the capture directory (default " JANK_CAPTURE_DEFAULT_DIR ")\n"
	"  -f, --format FORMAT   text (default) or json (one object per line)\n"
	"  -h, --help            show this help\n";

/* --config: its [symbols] only (the rule is the capture's own). */
static int report_config(const char *path)
{
	struct jank_config conf;
	char err[ERR_LEN];
	int r;

	if (jank_config_load(&conf, path, err, sizeof(err)) < 0) {
		errorf("%s", err);
		return JANK_EXIT_BAD_INPUT;
	}
	r = cli_set_debuginfod(&conf);
	jank_config_fini(&conf);
	return r < 0 ? JANK_EXIT_BAD_INPUT : 0;
}

int cmd_report(int argc, char **argv)
{
	struct jank_capture_report_result res;
	struct options o = { 0 };
	char err[ERR_LEN];
	const char *dir, *out;
	uid_t owner = 0;
	int r;

	r = parse_options(argc, argv, "report", "dhDc", usage_report, &o);
	if (r)
		return r == 1 ? 0 : r;
	if (o.config && (r = report_config(o.config)) != 0)
		return r;
	if (o.ntraces != 1) {
		errorf("report: %s (see jankctl report --help)",
		       o.ntraces ? "one CAPTURE_DIR at a time" : "no CAPTURE_DIR given");
		return JANK_EXIT_USAGE;
	}
	dir = o.traces[0];
	out = o.dir ? o.dir : dir;
	if (!o.dir && foreign_dir(dir, &owner)) {
		fprintf(stderr,
			"jankctl: report: %s belongs to uid %ld, not root: writing nothing into it "
			"(root would write where that user says); report.txt follows on standard "
			"output (--dir OUT writes the files elsewhere)\n",
			dir, (long)owner);
		out = NULL;
	}
	r = jank_capture_report_write_to(dir, out, &res, err, sizeof(err));
	if (r < 0) {
		errorf("%s", err);
		return JANK_EXIT_BAD_INPUT;
	}
	if (!out)
		return finish_output();
	printf("%s\n", res.summary);
	printf("wrote %s/{%s,%s,%s,%s,%s}\n", out, JANK_CAPTURE_REPORT_JSON,
	       JANK_CAPTURE_REPORT_TEXT, JANK_CAPTURE_REPORT_SVG, JANK_CAPTURE_REPORT_FLAME,
	       JANK_CAPTURE_REPORT_BINARIES);
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
