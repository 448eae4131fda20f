/* SPDX-License-Identifier: MIT */
/*
 * Command-line helpers shared by the probes' programs (jank-demo, jank-load):
 * durations with units, counts, and usage errors that exit with status 2.
 */
#ifndef JANK_PROBES_CLI_H
#define JANK_PROBES_CLI_H

#include <getopt.h>
#include <stdint.h>

/* The program name printed before every usage error; set it first. */
extern const char *cli_prog;

/* Print "PROG: MESSAGE (see --help)" on stderr and exit with status 2. */
void cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* "50ms" → 50000000 (units ns, us, ms, s; a bare 0 is allowed). Returns 0,
 * -EINVAL (syntax, unit) or -ERANGE. */
int cli_parse_duration(const char *s, uint64_t *ns);

/* A decimal count up to UINT32_MAX. Returns 0, -EINVAL or -ERANGE. */
int cli_parse_count(const char *s, uint64_t *n);

/* Parse --OPT's value ARG, or exit through cli_usage_error() naming it. */
void cli_duration(const char *opt, const char *arg, uint64_t *ns);
void cli_count(const char *opt, const char *arg, uint64_t *n);

/* Name what getopt_long() (with opterr = 0) rejected in ARG, and exit: an
 * unknown option, or a value given to an option of OPTIONS that takes none.
 * FIRST_LONG is the smallest `val` of the long-only options. */
void cli_bad_option(const char *arg, const struct option *options, int first_long)
    __attribute__((noreturn));

#endif /* JANK_PROBES_CLI_H */
