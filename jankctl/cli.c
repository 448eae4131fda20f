/* SPDX-License-Identifier: MIT */
/*
 * What every jankctl command does the same way: its errors (one line on
 * stderr), its options (one getopt table for all, each command naming the
 * ones it takes), running traces through an engine to their end, and
 * flushing its output. Declared in jankctl.h.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config-file.h"
#include "debuginfod.h"
#include "dirtree.h"
#include "exit-status.h"
#include "jankctl.h"
#include "symbols.h"
#include "trace-reader.h"

void errorf(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("jankctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_tid(const char *s, int32_t *out)
{
	int64_t v;

	if (parse_i64(s, &v) < 0 || v < 0 || v > INT32_MAX)
		return -EINVAL;
	*out = (int32_t)v;
	return 0;
}

/* The one-line error for a bad option of a command (getopt returned ':' or '?'). */
static int option_error(const char *cmd, int c, char **argv)
{
	if (c == ':')
		errorf("%s: option '%s' needs an argument (see jankctl %s --help)", cmd,
		       argv[optind - 1], cmd);
	else if (optopt)
		errorf("%s: unknown option '-%c' (see jankctl %s --help)", cmd, optopt, cmd);
	else
		errorf("%s: unknown option '%s' (see jankctl %s --help)", cmd, argv[optind - 1],
		       cmd);
	return JANK_EXIT_USAGE;
}

/*
 * --format: text|json, for status openmetrics|prometheus too, for flame
 * folded|svg only. 0, or JANK_EXIT_USAGE after the error.
 */
static int parse_format(const char *cmd, const char *arg, enum format *f)
{
	static const char *const names[] = {
		[FORMAT_TEXT] = "text",
		[FORMAT_JSON] = "json",
		[FORMAT_OPENMETRICS] = "openmetrics",
		[FORMAT_PROMETHEUS] = "prometheus",
		[FORMAT_FOLDED] = "folded",
		[FORMAT_SVG] = "svg",
	};
	enum format first = FORMAT_TEXT, last = FORMAT_JSON;
	const char *expected = "text or json";

	if (!strcmp(cmd, "status")) {
		last = FORMAT_PROMETHEUS;
		expected = "text, json, openmetrics or prometheus";
	} else if (!strcmp(cmd, "flame")) {
		first = FORMAT_FOLDED;
		last = FORMAT_SVG;
		expected = "folded or svg";
	}
	for (enum format i = first; i <= last; i++) {
		if (!strcmp(arg, names[i])) {
			*f = i;
			return 0;
		}
	}
	errorf("%s: bad --format '%s' (expected %s)", cmd, arg, expected);
	return JANK_EXIT_USAGE;
}

/* --decoder auto|native|babeltrace2: for every trace this process reads from now on. */
static int set_decoder(const char *cmd, const char *arg)
{
	enum jank_decoder d;

	if (jank_decoder_from_name(arg, &d) < 0) {
		errorf("%s: bad --decoder '%s' (expected auto, native or babeltrace2)", cmd, arg);
		return -EINVAL;
	}
	jank_reader_set_decoder(d);
	return 0;
}

int no_arguments(const char *cmd, const struct options *o)
{
	if (o->ntraces == 0)
		return 0;
	errorf("%s: unexpected argument '%s' (see jankctl %s --help)", cmd, o->traces[0], cmd);
	return JANK_EXIT_USAGE;
}

/* Where the value of -c, -s, -d, -A, -B, -o or -F goes. */
static const char **string_option(struct options *o, int c)
{
	switch (c) {
	case 'c':
		return &o->config;
	case 's':
		return &o->socket;
	case 'A':
		return &o->action;
	case 'B':
		return &o->before;
	case 'o':
		return &o->svg;
	case 'F':
		return &o->flame;
	default:
		return &o->dir;
	}
}

/* The flag that -a, -G or -S sets. */
static bool *flag_option(struct options *o, int c)
{
	return c == 'a' ? &o->all : c == 'G' ? &o->no_gc : &o->stats;
}

int parse_options(int argc, char **argv, const char *cmd, const char *allowed, const char *usage,
		  struct options *o)
{
	/* clang-format off */
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "all", no_argument, NULL, 'a' },
		{ "format", required_argument, NULL, 'f' },
		{ "tid", required_argument, NULL, 't' },
		{ "begin", required_argument, NULL, 'b' },
		{ "end", required_argument, NULL, 'e' },
		{ "socket", required_argument, NULL, 's' },
		{ "dir", required_argument, NULL, 'd' },
		{ "action", required_argument, NULL, 'A' },
		{ "before", required_argument, NULL, 'B' },
		{ "svg", required_argument, NULL, 'o' },
		{ "flame", required_argument, NULL, 'F' },
		{ "decoder", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		/* Hidden, for the tests and the benchmarks; analyze only. */
		{ "no-gc", no_argument, NULL, 'G' },
		{ "stats", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	/* clang-format on */
	/* Leading ':' reports a missing argument as ':', and opterr = 0 keeps getopt quiet. */
	static const char optstring[] = ":c:af:t:b:e:s:d:A:B:o:F:h";
	int c, li = -1;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, optstring, longopts, &li)) != -1) {
		if (c != '?' && c != ':' && !strchr(allowed, c)) {
			if (li >= 0)
				errorf("%s: option '--%s' does not apply to this command "
				       "(see jankctl %s --help)",
				       cmd, longopts[li].name, cmd);
			else
				errorf("%s: option '-%c' does not apply to this command "
				       "(see jankctl %s --help)",
				       cmd, c, cmd);
			return JANK_EXIT_USAGE;
		}
		li = -1;
		switch (c) {
		case 'c':
		case 's':
		case 'd':
		case 'A':
		case 'B':
		case 'o':
		case 'F':
			*string_option(o, c) = optarg;
			break;
		case 'a':
		case 'G':
		case 'S':
			*flag_option(o, c) = true;
			break;
		case 'f':
			if (parse_format(cmd, optarg, &o->format))
				return JANK_EXIT_USAGE;
			break;
		case 't':
			if (parse_tid(optarg, &o->tid) < 0) {
				errorf("%s: bad --tid '%s' (expected a thread id)", cmd, optarg);
				return JANK_EXIT_USAGE;
			}
			o->tid_set = true;
			break;
		case 'b':
		case 'e':
			if (parse_i64(optarg, c == 'b' ? &o->begin : &o->end) < 0) {
				errorf("%s: bad --%s '%s' (expected nanoseconds from the trace "
				       "clock's "
				       "origin)",
				       cmd, c == 'b' ? "begin" : "end", optarg);
				return JANK_EXIT_USAGE;
			}
			*(c == 'b' ? &o->begin_set : &o->end_set) = true;
			break;
		case 'D':
			if (set_decoder(cmd, optarg) < 0)
				return JANK_EXIT_USAGE;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		default:
			return option_error(cmd, c, argv);
		}
	}
	o->traces = (const char *const *)argv + optind;
	o->ntraces = (size_t)(argc - optind);
	return 0;
}

int parse_trace_options(int argc, char **argv, const char *cmd, const char *allowed,
			const char *usage, struct options *o)
{
	char with_decoder[64];
	int r;

	/* Every command that reads traces takes --decoder. */
	snprintf(with_decoder, sizeof(with_decoder), "%sD", allowed);
	r = parse_options(argc, argv, cmd, with_decoder, usage, o);
	if (r == 0 && o->ntraces == 0) {
		errorf("%s: no TRACE given (see jankctl %s --help)", cmd, cmd);
		r = JANK_EXIT_USAGE;
	}
	return r;
}

static struct jank_symbols *symbols;
/* [symbols]' debuginfod servers, once a command's --config is read: binaries fetched, waited for.
 */
static struct jank_debuginfod_config fetch_conf;

static void symbols_free(void)
{
	struct jank_symbols_stats st;

	/* Said once, at the end: which frames stayed binary+offset for the budget's sake. */
	if (symbols) {
		jank_symbols_get_stats(symbols, &st);
		if (st.too_big)
			errorf("%" PRIu64 " binar%s past the symbolizer's budget (%" PRIu64
			       " MiB): %s functions are shown as binary+offset",
			       st.too_big, st.too_big == 1 ? "y was" : "ies were", st.limit >> 20,
			       st.too_big == 1 ? "its" : "their");
	}
	jank_symbols_free(symbols);
	symbols = NULL;
	free((char *)fetch_conf.urls);
	free((char *)fetch_conf.cache);
	fetch_conf = (struct jank_debuginfod_config){ 0 };
}

int cli_set_debuginfod(const struct jank_config *conf)
{
	struct jank_debuginfod_config c;
	char err[ERR_LEN];

	/* [symbols] memory-limit, for every symbolizer made from now on. */
	jank_symbols_set_default_limit((size_t)conf->symbols.memory_limit);
	jank_config_debuginfod(conf, &c);
	if (!jank_debuginfod_enabled(&c))
		return jank_debuginfod_setup(&c, err, sizeof(err));
	free((char *)fetch_conf.urls);
	free((char *)fetch_conf.cache);
	fetch_conf = c;
	fetch_conf.urls = strdup(c.urls);
	fetch_conf.cache = strdup(c.cache);
	if (!fetch_conf.urls || !fetch_conf.cache) {
		errorf("out of memory");
		return -ENOMEM;
	}
	if (jank_debuginfod_setup(&fetch_conf, err, sizeof(err)) < 0) {
		errorf("%s", err);
		return -EIO;
	}
	jank_symbols_set_default_fetcher(jank_debuginfod_fetch_fn, &fetch_conf);
	if (symbols)
		jank_symbols_set_fetcher(symbols, jank_debuginfod_fetch_fn, &fetch_conf);
	return 0;
}

struct jank_symbols *cli_symbols(void)
{
	if (!symbols) {
		symbols = jank_symbols_new(0);
		if (symbols)
			atexit(symbols_free);
	}
	return symbols;
}

int run_traces(struct jank_engine *e, const char *const *traces, size_t ntraces)
{
	struct jank_reader_stats stats;
	struct jank_reader *in;
	char err[ERR_LEN];
	int r = 0;

	in = jank_reader_new_ctf(traces, ntraces, e, err, sizeof(err));
	if (!in) {
		errorf("%s", err);
		return JANK_EXIT_BAD_INPUT;
	}
	/* Offline, a rule that cannot apply is a mistake of the config: say so and stop. */
	jank_reader_set_notices(in, true, NULL, NULL);
	/* Function names from the traces' lttng-ust statedump (the binaries on this host). */
	if (cli_symbols()) {
		jank_reader_set_symbols(in, cli_symbols());
		jank_engine_set_namer(e, jank_symbols_frame_namer, cli_symbols());
		jank_engine_set_locator(e, jank_symbols_code_locator, cli_symbols());
	}
	if (jank_reader_run_all(in) != JANK_READER_STATUS_END) {
		errorf("%s", jank_reader_error(in));
		r = JANK_EXIT_BAD_INPUT;
		goto end;
	}
	jank_reader_get_stats(in, &stats);
	if (stats.events_used == 0) {
		errorf("%s: no events the engine can use (%" PRIu64 " events read)",
		       jank_reader_name(in), stats.events);
		r = JANK_EXIT_BAD_INPUT;
	}
end:
	jank_reader_free(in);
	return r;
}

int write_file(const char *cmd, const char *path, int (*fn)(FILE *f, void *data), void *data)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	char dir[PATH_MAX];
	int r = 0;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if ((size_t)(slash - path) >= sizeof(dir))
		r = -ENAMETOOLONG;
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (r == 0 && !name[0])
		r = -EISDIR;
	if (r == 0)
		r = jank_dirtree_write_file(dir, name, fn, data);
	if (r < 0) {
		errorf("%s: cannot write %s: %s", cmd, path, strerror(-r));
		return JANK_EXIT_BAD_INPUT;
	}
	return 0;
}

int finish_output(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		errorf("cannot write the output: %s", strerror(errno));
		return JANK_EXIT_FAILURE;
	}
	return 0;
}
