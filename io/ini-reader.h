/* SPDX-License-Identifier: MIT */
/*
 * A generic INI reader: inih fed by a reader of our own that counts the
 * lines, so that every message names the file and the line. It knows
 * nothing of jank's sections and keys (io/config-schema.h does, from a
 * table): it hands each section header and each `key = value` to
 * callbacks, and keeps the first error.
 *
 * It also reads a file and its drop-ins (conf.d/ *.conf beside it) whole,
 * for a program that hands the very text it checked to another.
 */
#ifndef JANK_INI_READER_H
#define JANK_INI_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JANK_INI_MSG_LEN 512

struct jank_ini;

struct jank_ini_ops {
	/* A header line: the name between the brackets, blanks trimmed ("action frame"). */
	void (*section)(struct jank_ini *ini, char *name, void *data);
	/* `key = value`, the value without its inline comment and trailing blanks: false when
	 * the line is refused (after jank_ini_fail()), so that inih counts it as an error. */
	bool (*key)(struct jank_ini *ini, const char *key, char *value, void *data);
	/* The end of a file (the last section ends). */
	void (*end)(struct jank_ini *ini, void *data);
};

struct jank_ini {
	const struct jank_ini_ops *ops;
	void *data;
	const char *name; /* the file being read, in messages */
	const char *text; /* what is left of its text */
	const char *end;
	char *line;
	size_t linecap;
	size_t linelen; /* bytes of `line`, a NUL byte among them included */
	unsigned lineno;

	bool failed;
	const char *fail_name; /* the file of the message */
	unsigned fail_line;    /* 0: the message names no line */
	unsigned fail_at;      /* the line being read when the error was found */
	char msg[JANK_INI_MSG_LEN];
};

void jank_ini_init(struct jank_ini *ini, const struct jank_ini_ops *ops, void *data);
void jank_ini_fini(struct jank_ini *ini);

/*
 * Read one file's text (`name` must outlive the messages). The errors of
 * every file read go to the same first error: once there is one, the rest
 * is read but nothing more is reported.
 */
void jank_ini_parse(struct jank_ini *ini, const char *name, const char *text, size_t len);

/* An error at `line` of the file being read (0: the message names the file only). */
void jank_ini_fail(struct jank_ini *ini, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* An error at `line` of another file (a check across files). */
void jank_ini_fail_in(struct jank_ini *ini, const char *name, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The first error as "FILE:LINE: why" (or "FILE: why"): 0, or -EINVAL with the message. */
int jank_ini_error(const struct jank_ini *ini, char *err, size_t errlen);

/* ---- Files and their drop-ins ---- */

struct jank_config_source {
	char *name; /* the file, in messages */
	char *text; /* its bytes, NUL-terminated */
	size_t len; /* without that NUL (one inside is an error of the parse) */
};

struct jank_config_sources {
	struct jank_config_source *v; /* the file, then its drop-ins in order */
	size_t n;
};

/*
 * Read `path` and its drop-ins: the *.conf files of conf.d/ beside it, in
 * the byte order of their names (hidden files left out; no conf.d is no
 * drop-in). Returns 0, or -errno and the message (a file that cannot be
 * read, a conf.d that cannot be listed).
 */
int jank_config_read(const char *path, struct jank_config_sources *s, char *err, size_t errlen);
void jank_config_sources_fini(struct jank_config_sources *s);

#endif
