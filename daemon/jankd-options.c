/* SPDX-License-Identifier: MIT */
/*
 * jankd's command line, the loading of its configuration (the file and its
 * drop-ins, checked as jankctl checks them, plus a live session to watch),
 * and --check-config with the checks of the host (preflight.h).
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jankd-int.h"

static const char usage[] =
	"Usage: jankd --config FILE [--foreground] [--log-target=TARGET]\n"
	"             [--worker-spawner=SOCKET [--binary-opener=SOCKET]]\n"
	"       jankd --check-config [--config FILE] [--worker-spawner=SOCKET]\n"
	"Watch LTTng live sessions and alert when a user action is too slow.\n"
	"\n"
	"  -c, --config FILE       the configuration (see jankd.conf(5)); with --check-config,\n"
	"                          " JANK_DEFAULT_CONFIG " when not given\n"
	"  -t, --check-config      check the configuration and what it names on this host\n"
	"                          (users, directories, addresses), print each problem with\n"
	"                          its file and line, and exit 0 (good) or 1\n"
	"  -f, --foreground        run in the foreground (jankd does not daemonize: the default)\n"
	"  -l, --log-target=TARGET where alerts and messages go: auto (the default: messages to\n"
	"                          stderr in a terminal, else to the journal; alerts as [alerts]\n"
	"                          target says), journal, stderr (text), or json (alerts as JSON\n"
	"                          Lines on stdout, messages on stderr); all but auto override\n"
	"                          [alerts] target\n"
	"  -w, --worker-spawner=SOCKET\n"
	"                          start the workers through the worker spawner listening on\n"
	"                          SOCKET (jankd-workers.socket), not as jankd's children\n"
	"  -b, --binary-opener=SOCKET\n"
	"                          with --worker-spawner: the workers of this host's sessions\n"
	"                          get the binaries they cannot open from the binary opener on\n"
	"                          SOCKET (jankd-opener.socket; [daemon] open-binaries)\n"
	"  -h, --help              show this help\n"
	"  -V, --version           show the version\n"
	"\n"
	"Signals: HUP reloads the configuration, TERM or INT stops.\n"
	"Exit status: 0 stopped cleanly, 1 bad configuration, 2 bad usage, 3 failure while "
	"running.\n"
	"(1 also when this host lacks what the configuration names and will not get it by\n"
	"waiting: the worker user, the state directory, the spawner's socket.)\n";

static void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("jankd: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see jankd --help)\n", stderr);
	exit(JANK_EXIT_USAGE);
}

static int parse_target(const char *s, enum jank_alert_target *t)
{
	for (int i = JANK_ALERT_JOURNAL; i < JANK_ALERT_TARGETS; i++) {
		if (!strcmp(s, jank_alert_target_name(i))) {
			*t = i;
			return 0;
		}
	}
	return -EINVAL;
}

void jankd_parse_options(int argc, char **argv, struct jankd *d)
{
	/* clang-format off */
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' }, { "foreground", no_argument, NULL, 'f' },
		{ "log-target", required_argument, NULL, 'l' }, { "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "worker-spawner", required_argument, NULL, 'w' },
		{ "binary-opener", required_argument, NULL, 'b' },
		{ "check-config", no_argument, NULL, 't' }, { NULL, 0, NULL, 0 },
	};
	/* clang-format on */
	int c, say = 0; /* 'h' or 'V': print once every argument is known good */

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:fl:hVw:b:t", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			d->config_path = optarg;
			break;
		case 'f':
			break;
		case 't':
			d->check_config = true;
			break;
		case 'l':
			if (!strcmp(optarg, "auto")) {
				d->target_from_cmdline = false;
				break;
			}
			if (parse_target(optarg, &d->target) < 0)
				die_usage(
					"bad --log-target '%s' (expected auto, journal, stderr or "
					"json)",
					optarg);
			d->target_from_cmdline = true;
			break;
		case 'w':
			if (optarg[0] != '/' || jank_worker_launch_set_spawner(optarg) < 0)
				die_usage(
					"bad --worker-spawner '%s' (expected the absolute path of "
					"a unix socket, at most 107 bytes)",
					optarg);
			break;
		case 'b':
			if (optarg[0] != '/' || jank_worker_proc_set_opener_socket(optarg) < 0)
				die_usage("bad --binary-opener '%s' (expected the absolute path of "
					  "a unix socket, at most 107 bytes)",
					  optarg);
			break;
		case 'h':
		case 'V':
			say = c;
			break;
		case ':':
			die_usage("option '%s' needs an argument", argv[optind - 1]);
		case '?':
		default:
			if (optopt)
				die_usage("unknown option '-%c'", optopt);
			die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (say == 'h') {
		fputs(usage, stdout);
		exit(JANK_EXIT_OK);
	}
	if (say == 'V') {
		printf("jankd (jank) %s\n", JANK_VERSION);
		exit(JANK_EXIT_OK);
	}
	if (!d->config_path && d->check_config)
		d->config_path = JANK_DEFAULT_CONFIG;
	if (!d->config_path)
		die_usage("--config FILE is required");
}

/*
 * The checks of a whole file (jank_config_check, which jankctl runs too),
 * and jankd's own: a live session to watch. Returns 0, or -EINVAL with a
 * message.
 */
static int check_config(const struct jank_config *c, char *err, size_t len)
{
	int r = jank_config_check(c, err, len);

	if (r == 0 && c->live.nurls == 0 && !c->live.create && !c->live.discover[0]) {
		snprintf(err, len,
			 "%s: [live]: no 'url' and no 'create = yes' and no 'discover': no live "
			 "session to watch",
			 c->path);
		r = -EINVAL;
	}
	return r;
}

/*
 * Load and check the file and its drop-ins into `c`, keeping their texts in
 * `src`: the workers read their rules from those very texts. Returns 0 or
 * -errno with a message.
 */
int jankd_load_config(struct jank_config *c, struct jank_config_sources *src, const char *path,
		      char *err, size_t len)
{
	int r = jank_config_read(path, src, err, len);

	if (r < 0) {
		memset(c, 0, sizeof(*c));
		return r;
	}
	r = jank_config_load_sources(c, src, err, len);
	if (r == 0)
		r = check_config(c, err, len);
	if (r < 0) {
		jank_config_fini(c);
		jank_config_sources_fini(src);
	}
	return r;
}

/* ---- What the host must have (preflight.h) ---- */

struct said {
	const char *prefix;
	FILE *out;
};

static void say_problem(const char *where, const char *problem, const char *fix, void *data)
{
	const struct said *s = data;

	fprintf(s->out, "%s%s: %s\n", s->prefix, where, problem);
	if (fix)
		fprintf(s->out, "%s  fix: %s\n", s->prefix, fix);
}

/* The checks of the host (`all`: --check-config's); each problem on stderr. Returns how many. */
size_t jankd_preflight(const struct jankd *d, bool all, const char *prefix)
{
	const struct jank_preflight pf = {
		.config = &d->config,
		.sources = &d->config_sources,
		.spawner = jank_worker_launch_spawner(),
		.all = all,
		.as_root = geteuid() == 0,
	};
	struct said s = { prefix, stderr };

	return jank_preflight_run(&pf, say_problem, &s);
}

/*
 * --check-config: the file and its drop-ins parsed and checked as a start
 * would (the first error of the parse stops it: its file and line), then
 * every check of the host. Exit 0, or 1 with each problem on stderr.
 */
int jankd_check_only(struct jankd *d)
{
	char err[ERR_LEN];
	size_t n;

	if (jankd_load_config(&d->config, &d->config_sources, d->config_path, err, sizeof(err)) <
	    0) {
		fprintf(stderr, "%s\n", err);
		fprintf(stderr, "%s: bad configuration\n", d->config_path);
		return JANK_EXIT_BAD_INPUT;
	}
	n = jankd_preflight(d, true, "");
	if (n)
		fprintf(stderr, "%s: %zu problem%s\n", d->config_path, n, n == 1 ? "" : "s");
	else
		printf("%s: configuration OK (%zu drop-in%s, %zu rule%s, %zu flow%s)\n",
		       d->config_path, d->config.ndropins, d->config.ndropins == 1 ? "" : "s",
		       d->config.nrules, d->config.nrules == 1 ? "" : "s", d->config.nflows,
		       d->config.nflows == 1 ? "" : "s");
	jank_config_fini(&d->config);
	jank_config_sources_fini(&d->config_sources);
	return n ? JANK_EXIT_BAD_INPUT : JANK_EXIT_OK;
}
