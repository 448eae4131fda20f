/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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
	    {"ns", 1},
	    {"us", 1000},
	    {"ms", 1000000},
	    {"s", NSEC_PER_SEC},
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

void cli_duration(const char *opt, const char *arg, uint64_t *ns)
{
	int r = cli_parse_duration(arg, ns);

	if (r == -ERANGE)
		cli_usage_error("--%s: duration out of range: '%s'", opt, arg);
	if (r < 0)
		cli_usage_error("--%s: invalid duration '%s' (expected an integer and ns, us, ms or s)",
				opt, arg);
}

void cli_count(const char *opt, const char *arg, uint64_t *n)
{
	int r = cli_parse_count(arg, n);

	if (r == -ERANGE)
		cli_usage_error("--%s: number out of range: '%s'", opt, arg);
	if (r < 0)
		cli_usage_error("--%s: invalid number '%s'", opt, arg);
}

void cli_bad_option(const char *arg, const struct option *options, int first_long)
{
	const char *eq = strchr(arg, '=');
	const struct option *o;

	if (optopt > 0 && optopt < first_long)
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
