/* SPDX-License-Identifier: MIT */
/*
 * Command-line helpers shared by the probes' programs (jank-demo, jank-load):
 * durations with units, counts, and usage errors that exit with status 2.
 */
#ifndef JANK_PROBES_CLI_H
#define JANK_PROBES_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The program name printed before every usage error; set it first. */
extern const char *cli_prog;

/* Print "PROG: MESSAGE (see --help)" on stderr and exit with status 2. */
void cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* "50ms" → 50000000 (units ns, us, ms, s; a bare 0 is allowed). Returns 0,
 * -EINVAL (syntax, unit) or -ERANGE. */
int cli_parse_duration(const char *s, uint64_t *ns);

/* A decimal count up to UINT32_MAX. Returns 0, -EINVAL or -ERANGE. */
int cli_parse_count(const char *s, uint64_t *n);

/* What an option's value is, and where it goes. */
enum cli_kind {
	CLI_COUNT,    /* uint64_t: a decimal count up to UINT32_MAX */
	CLI_DURATION, /* uint64_t: ns, from "50ms" */
	CLI_NAME,     /* const char *: any non-empty string */
	CLI_FLAG,     /* bool: set, takes no value */
	CLI_CUSTOM,   /* `parse` reads the value; it exits through cli_usage_error() */
};

struct cli_option {
	const char *name; /* the long option, without "--" */
	enum cli_kind kind;
	void *target;
	void (*parse)(const char *opt, const char *arg, void *target); /* CLI_CUSTOM */
};

/*
 * Parse the long options of argv against OPTS (N of them, at most 32), plus
 * -h/--help, which print `usage` on stdout and exit 0. Any error (an
 * unknown option, a missing or bad value, a value given to a flag, a
 * positional argument) exits through cli_usage_error().
 */
void cli_parse(int argc, char **argv, const struct cli_option *opts, size_t n,
	       void (*usage)(FILE *f));

#endif /* JANK_PROBES_CLI_H */
