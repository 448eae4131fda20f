/* SPDX-License-Identifier: MIT */
/*
 * The INI reader, over inih.
 *
 * inih does the tokenising; we feed it lines through our own reader, which
 * counts them and spots the section headers, so that every message can
 * name the exact line, and so that sections without keys are seen too. The
 * reader also strips leading blanks, which turns off inih's continuation
 * lines: an indented `key = value` is a key of its own, as users expect.
 *
 * The first error wins; the parse goes on only because inih does.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <ini.h>
#include "ini-reader.h"

void jank_ini_init(struct jank_ini *ini, const struct jank_ini_ops *ops, void *data)
{
	memset(ini, 0, sizeof(*ini));
	ini->ops = ops;
	ini->data = data;
}

void jank_ini_fini(struct jank_ini *ini)
{
	free(ini->line);
	ini->line = NULL;
	ini->linecap = 0;
}

static void vfail(struct jank_ini *ini, const char *name, unsigned line, const char *fmt,
		  va_list ap)
{
	if (ini->failed)
		return;
	ini->failed = true;
	ini->fail_name = name;
	ini->fail_line = line;
	ini->fail_at = ini->lineno;
	vsnprintf(ini->msg, sizeof(ini->msg), fmt, ap);
}

void jank_ini_fail(struct jank_ini *ini, unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(ini, ini->name, line, fmt, ap);
	va_end(ap);
}

void jank_ini_fail_in(struct jank_ini *ini, const char *name, unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(ini, name, line, fmt, ap);
	va_end(ap);
}

int jank_ini_error(const struct jank_ini *ini, char *err, size_t errlen)
{
	if (!ini->failed)
		return 0;
	if (ini->fail_line)
		snprintf(err, errlen, "%s:%u: %s", ini->fail_name, ini->fail_line, ini->msg);
	else
		snprintf(err, errlen, "%s: %s", ini->fail_name, ini->msg);
	return -EINVAL;
}

/* Cut an inline comment: '#' or ';' after a blank, outside double quotes. */
static void strip_comment(char *v)
{
	bool quoted = false;
	size_t n;

	for (char *s = v; *s; s++) {
		if (*s == '"')
			quoted = !quoted;
		else if (!quoted && (*s == '#' || *s == ';') && s > v &&
			 isspace((unsigned char)s[-1])) {
			*s = '\0';
			break;
		}
	}
	n = strlen(v);
	while (n && isspace((unsigned char)v[n - 1]))
		v[--n] = '\0';
}

/* inih's handler: the key callback says whether the line is good. */
static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct jank_ini *ini = user;
	char v[JANK_INI_MSG_LEN];

	(void)section; /* ours, told by the reader, is the same one */
	snprintf(v, sizeof(v), "%s", value ? value : "");
	strip_comment(v);
	return ini->ops->key(ini, name, v, ini->data);
}

/* The next raw line of the text, without its newline; NULL at the end. */
static char *next_line(struct jank_ini *ini)
{
	const char *nl;
	size_t n;

	if (!ini->text || ini->text >= ini->end)
		return NULL;
	nl = memchr(ini->text, '\n', (size_t)(ini->end - ini->text));
	n = nl ? (size_t)(nl - ini->text) + 1 : (size_t)(ini->end - ini->text);
	if (n + 1 > ini->linecap) {
		char *l = realloc(ini->line, n + 1);

		if (!l)
			return NULL;
		ini->line = l;
		ini->linecap = n + 1;
	}
	memcpy(ini->line, ini->text, n);
	ini->line[n] = '\0';
	ini->text += n;
	while (n && (ini->line[n - 1] == '\n' || ini->line[n - 1] == '\r'))
		ini->line[--n] = '\0';
	ini->linelen = (size_t)n;
	return ini->line;
}

/* "[ name ]": the name, blanks trimmed, to the section callback. */
static void header(struct jank_ini *ini, const char *line, const char *close)
{
	char name[JANK_INI_MSG_LEN], *s = name, *end;

	snprintf(name, sizeof(name), "%.*s", (int)(close - line - 1), line + 1);
	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	ini->ops->section(ini, s, ini->data);
}

static char *reader(char *str, int num, void *stream)
{
	struct jank_ini *ini = stream;
	char *line = next_line(ini);
	size_t n;

	if (!line) {
		ini->ops->end(ini, ini->data);
		return NULL;
	}
	ini->lineno++;
	if (memchr(line, '\0', ini->linelen)) {
		jank_ini_fail(ini, ini->lineno, "a NUL byte in the line (is this a text file?)");
		line[0] = '\0';
	}
	while (isspace((unsigned char)*line))
		line++;
	n = strlen(line);
	if (n && !strchr("[;#", line[0]) && !strchr(line, '=')) {
		/* inih would take "key: value": one syntax only, key = value. */
		jank_ini_fail(ini, ini->lineno, "syntax error (expected [section] or key = value)");
		n = 0;
	}
	if (n + 2 > (size_t)num) {
		jank_ini_fail(ini, ini->lineno, "line too long (at most %d characters)", num - 3);
		line = "";
		n = 0;
	}
	if (line[0] == '[') {
		char *close = strchr(line, ']');

		if (close)
			header(ini, line, close);
	}
	memcpy(str, line, n);
	str[n] = '\n';
	str[n + 1] = '\0';
	return str;
}

void jank_ini_parse(struct jank_ini *ini, const char *name, const char *text, size_t len)
{
	int r;

	ini->name = name;
	ini->text = text;
	ini->end = text + len;
	ini->lineno = 0;
	r = ini_parse_stream(reader, ini, handler, ini);
	if (!ini->failed && r > 0)
		jank_ini_fail(ini, (unsigned)r, "syntax error (expected [section] or key = value)");
	else if (ini->failed && ini->fail_name == ini->name && r > 0 &&
		 ((unsigned)r < ini->fail_at || ((unsigned)r == ini->fail_at && !ini->fail_line))) {
		/*
		 * inih found a syntax error before the line of ours: report the
		 * first. On the same line, ours wins (inih counts our refusal
		 * as its error), unless ours names no line: a check at the end of
		 * the file, which came after the last line's syntax error.
		 */
		ini->failed = false;
		jank_ini_fail(ini, (unsigned)r, "syntax error (expected [section] or key = value)");
	} else if (!ini->failed && r < 0)
		jank_ini_fail(ini, 0, "out of memory");
}

/* ---- Files and their drop-ins ---- */

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

#define CONFIG_MAX_BYTES (16 << 20) /* a config is a few KiB: more is not one */

/* Read a whole file into src, or say why not in err. */
static int read_file(const char *path, struct jank_config_source *src, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	size_t cap = 4096, n;
	int r = 0;

	memset(src, 0, sizeof(*src));
	if (!f || fstat(fileno(f), &st) != 0)
		r = -errno;
	else if (S_ISDIR(st.st_mode))
		r = -EISDIR;
	else if (!S_ISREG(st.st_mode))
		r = -EINVAL;
	if (r == 0 && (!(src->name = strdup(path)) || !(src->text = malloc(cap))))
		r = -ENOMEM;
	while (r == 0 && (n = fread(src->text + src->len, 1, cap - src->len - 1, f)) > 0) {
		src->len += n;
		if (src->len + 1 < cap)
			continue;
		if (cap >= CONFIG_MAX_BYTES) {
			r = -EFBIG;
		} else {
			char *t = realloc(src->text, cap *= 2);

			if (!t)
				r = -ENOMEM;
			else
				src->text = t;
		}
	}
	if (r == 0 && ferror(f))
		r = -EIO;
	if (f)
		fclose(f);
	if (r == 0) {
		src->text[src->len] = '\0';
		return 0;
	}
	if (r == -EINVAL)
		snprintf(err, errlen, "%s: not a regular file", path);
	else if (r == -EFBIG)
		snprintf(err, errlen, "%s: larger than %d MiB: not a configuration", path,
			 CONFIG_MAX_BYTES >> 20);
	else
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
	free(src->name);
	free(src->text);
	memset(src, 0, sizeof(*src));
	return r;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The drop-ins of `path`: conf.d/ beside it, its *.conf files in the byte
 * order of their names (hidden files left out). No conf.d is no drop-in.
 */
static int list_dropins(const char *path, char ***names, size_t *count, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	struct dirent *d;
	DIR *dp;
	int r = 0;

	*names = NULL;
	*count = 0;
	if (slash)
		snprintf(dir, sizeof(dir), "%.*s/conf.d", (int)(slash - path), path);
	else
		snprintf(dir, sizeof(dir), "conf.d");
	dp = opendir(dir);
	if (!dp) {
		if (errno == ENOENT)
			return 0;
		r = -errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(-r));
		return r;
	}
	while ((d = readdir(dp))) {
		size_t n = strlen(d->d_name);
		char **v;

		if (d->d_name[0] == '.' || n <= 5 || strcmp(d->d_name + n - 5, ".conf") != 0)
			continue;
		v = realloc(*names, (*count + 1) * sizeof(*v));
		if (v) {
			*names = v;
			v[*count] = malloc(strlen(dir) + n + 2);
		}
		if (!v || !v[*count]) {
			snprintf(err, errlen, "%s: out of memory", dir);
			r = -ENOMEM;
			break;
		}
		sprintf(v[(*count)++], "%s/%s", dir, d->d_name);
	}
	closedir(dp);
	if (*count)
		qsort(*names, *count, sizeof(**names), by_name);
	return r;
}

int jank_config_read(const char *path, struct jank_config_sources *s, char *err, size_t errlen)
{
	char **names = NULL;
	size_t n = 0;
	int r;

	memset(s, 0, sizeof(*s));
	r = list_dropins(path, &names, &n, err, errlen);
	if (r == 0 && !(s->v = calloc(n + 1, sizeof(*s->v))))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i <= n; i++) {
		r = read_file(i ? names[i - 1] : path, &s->v[i], err, errlen);
		if (r == 0)
			s->n = i + 1;
	}
	free_names(names, n);
	if (r == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	if (r < 0)
		jank_config_sources_fini(s);
	return r;
}

void jank_config_sources_fini(struct jank_config_sources *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].text);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}
