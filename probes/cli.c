/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CLI_MAX_OPTIONS 32
#define CLI_FIRST_VAL	256 /* getopt values of the long options: above any char */

#define NSEC_PER_SEC 1000000000ULL

const char *cli_prog = "jank";

void cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cli_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see --help)\n", stderr);
	exit(2);
}

int cli_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *suffix;
		uint64_t mult;
	} units[] = {
		{ "ns", 1 },
		{ "us", 1000 },
		{ "ms", 1000000 },
		{ "s", NSEC_PER_SEC },
	};
	unsigned long long v;
	char *end;
	size_t i;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end == '\0' && v == 0) {
		*ns = 0;
		return 0;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix) != 0)
			continue;
		if (v > UINT64_MAX / 4 / units[i].mult)
			return -ERANGE;
		*ns = v * units[i].mult;
		return 0;
	}
	return -EINVAL;
}

int cli_parse_count(const char *s, uint64_t *n)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE || v > UINT32_MAX)
		return -ERANGE;
	if (*end != '\0')
		return -EINVAL;
	*n = v;
	return 0;
}

static void cli_duration(const char *opt, const char *arg, uint64_t *ns)
{
	int r = cli_parse_duration(arg, ns);

	if (r == -ERANGE)
		cli_usage_error("--%s: duration out of range: '%s'", opt, arg);
	if (r < 0)
		cli_usage_error(
			"--%s: invalid duration '%s' (expected an integer and ns, us, ms or s)",
			opt, arg);
}

static void cli_count(const char *opt, const char *arg, uint64_t *n)
{
	int r = cli_parse_count(arg, n);

	if (r == -ERANGE)
		cli_usage_error("--%s: number out of range: '%s'", opt, arg);
	if (r < 0)
		cli_usage_error("--%s: invalid number '%s'", opt, arg);
}

/* Name what getopt_long() rejected in ARG: an unknown option, or a value given to a flag. */
static void bad_option(const char *arg, const struct option *options)
{
	const char *eq = strchr(arg, '=');
	const struct option *o;

	if (optopt > 0 && optopt < CLI_FIRST_VAL)
		cli_usage_error("unknown option '-%c'", optopt);
	if (eq && strncmp(arg, "--", 2) == 0) {
		for (o = options; o->name; o++) {
			if (strlen(o->name) == (size_t)(eq - arg - 2) &&
			    strncmp(o->name, arg + 2, (size_t)(eq - arg - 2)) == 0)
				cli_usage_error("option '--%s' takes no value", o->name);
		}
	}
	cli_usage_error("unknown option '%s'", arg);
}

static void take(const struct cli_option *o, const char *arg)
{
	switch (o->kind) {
	case CLI_COUNT:
		cli_count(o->name, arg, o->target);
		break;
	case CLI_DURATION:
		cli_duration(o->name, arg, o->target);
		break;
	case CLI_NAME:
		if (arg[0] == '\0')
			cli_usage_error("--%s: the value must not be empty", o->name);
		*(const char **)o->target = arg;
		break;
	case CLI_FLAG:
		*(bool *)o->target = true;
		break;
	case CLI_CUSTOM:
		o->parse(o->name, arg, o->target);
		break;
	}
}

void cli_parse(int argc, char **argv, const struct cli_option *opts, size_t n,
	       void (*usage)(FILE *f))
{
	struct option longs[CLI_MAX_OPTIONS + 2] = { { NULL, 0, NULL, 0 } };
	int c;

	if (n > CLI_MAX_OPTIONS)
		abort(); /* a table too long for this parser: a programming error */
	for (size_t i = 0; i < n; i++) {
		longs[i].name = opts[i].name;
		longs[i].has_arg = opts[i].kind == CLI_FLAG ? no_argument : required_argument;
		longs[i].val = CLI_FIRST_VAL + (int)i;
	}
	longs[n].name = "help";
	longs[n].val = CLI_FIRST_VAL + (int)n;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
		if (c == 'h' || c == CLI_FIRST_VAL + (int)n) {
			usage(stdout);
			exit(0);
		}
		if (c == ':')
			cli_usage_error("option '%s' requires a value", argv[optind - 1]);
		if (c < CLI_FIRST_VAL || c >= CLI_FIRST_VAL + (int)n)
			bad_option(argv[optind - 1], longs);
		take(&opts[c - CLI_FIRST_VAL], optarg);
	}
	if (optind < argc)
		cli_usage_error("unexpected argument '%s'", argv[optind]);
}
