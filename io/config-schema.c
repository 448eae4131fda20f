/* SPDX-License-Identifier: MIT */
/*
 * The schema engine: sections and keys from a table (io/config-schema.h),
 * read through the INI reader, compared key by key.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "config-schema.h"
#include "units.h"

/* ---- The tables ---- */

static size_t section_index(const struct jank_config_schema *s,
			    const struct jank_config_schema_section *sec)
{
	return (size_t)(sec - s->sections);
}

const struct jank_config_schema_section *
jank_config_schema_section_find(const struct jank_config_schema *s, const char *name)
{
	for (size_t i = 0; i < s->nsections; i++)
		if (!strcmp(s->sections[i].name, name))
			return &s->sections[i];
	return NULL;
}

const struct jank_config_schema_key *jank_config_schema_key_find(const struct jank_config_schema *s,
								 const char *section,
								 const char *name)
{
	for (size_t i = 0; i < s->nkeys; i++)
		if (!strcmp(s->keys[i].section, section) && !strcmp(s->keys[i].name, name))
			return &s->keys[i];
	return NULL;
}

void *jank_config_schema_section_struct(const struct jank_config_schema_section *sec,
					const void *root, size_t i)
{
	char *base = (char *)root + sec->offset;

	if (!sec->named)
		return base;
	return *(char **)base + i * sec->size;
}

size_t jank_config_schema_section_count(const struct jank_config_schema_section *sec,
					const void *root)
{
	return sec->named ? *(const size_t *)((const char *)root + sec->count_offset) : 1;
}

const char *jank_config_schema_instance_name(const struct jank_config_schema_section *sec,
					     const void *inst)
{
	return *(char *const *)((const char *)inst + sec->name_offset);
}

/* A parser for the defaults and for jank_config_schema_set(): no file, no positions. */
static void bare_parser(struct jank_config_schema_parser *p, const struct jank_config_schema *s,
			void *root)
{
	memset(p, 0, sizeof(*p));
	p->schema = s;
	p->root = root;
	p->ini.name = "(default)";
}

/* The defaults of the keys of `sec`, into its struct `base`. */
static void section_defaults(struct jank_config_schema_parser *p,
			     const struct jank_config_schema_section *sec, void *base)
{
	const struct jank_config_schema *s = p->schema;

	if (sec->init)
		sec->init(base);
	for (size_t i = 0; i < s->nkeys; i++) {
		const struct jank_config_schema_key *k = &s->keys[i];

		if (k->def && !strcmp(k->section, sec->name) &&
		    k->type->parse(p, k, k->def, base) < 0 && !p->ini.failed)
			jank_ini_fail(&p->ini, 0, "the default of [%s] %s does not parse",
				      sec->name, k->name);
	}
}

static void defaults(struct jank_config_schema_parser *p)
{
	for (size_t i = 0; i < p->schema->nsections; i++) {
		const struct jank_config_schema_section *sec = &p->schema->sections[i];

		if (!sec->named)
			section_defaults(p, sec,
					 jank_config_schema_section_struct(sec, p->root, 0));
	}
}

void jank_config_schema_init(const struct jank_config_schema *s, void *root)
{
	struct jank_config_schema_parser p;

	bare_parser(&p, s, root);
	defaults(&p); /* a default that does not parse is a bug: see
			 jank_config_schema_check_defaults() */
}

int jank_config_schema_check_defaults(const struct jank_config_schema *s, void *root, char *err,
				      size_t errlen)
{
	struct jank_config_schema_parser p;

	bare_parser(&p, s, root);
	defaults(&p);
	return jank_ini_error(&p.ini, err, errlen);
}

static void free_keys(const struct jank_config_schema *s,
		      const struct jank_config_schema_section *sec, void *base)
{
	for (size_t i = 0; i < s->nkeys; i++)
		if (s->keys[i].type->free && !strcmp(s->keys[i].section, sec->name))
			s->keys[i].type->free(&s->keys[i], base);
	if (sec->fini)
		sec->fini(base);
	else if (sec->named) /* what open_instance() allocated */
		free(*(char **)((char *)base + sec->name_offset));
}

void jank_config_schema_fini(const struct jank_config_schema *s, void *root)
{
	for (size_t i = 0; i < s->nsections; i++) {
		const struct jank_config_schema_section *sec = &s->sections[i];
		size_t n = jank_config_schema_section_count(sec, root);

		for (size_t j = 0; j < n; j++)
			free_keys(s, sec, jank_config_schema_section_struct(sec, root, j));
		if (sec->named) {
			free(*(void **)((char *)root + sec->offset));
			*(void **)((char *)root + sec->offset) = NULL;
			*(size_t *)((char *)root + sec->count_offset) = 0;
		}
	}
}

/* ---- Parsing ---- */

static void section_end(struct jank_config_schema_parser *p)
{
	const struct jank_config_schema *s = p->schema;
	unsigned idx = 0;

	if (!p->sec || p->ini.failed)
		return;
	/* A drop-in's [action NAME] of an earlier file changes some of its keys. */
	for (size_t i = 0; i < s->nkeys && !p->reopened; i++) {
		const struct jank_config_schema_key *k = &s->keys[i];

		if (strcmp(k->section, p->sec->name) != 0)
			continue;
		if ((k->flags & JANK_CONF_REQUIRED) && !(p->seen & (1ull << idx))) {
			jank_config_schema_fail(p, 0, "[%s]: missing '%s'", p->section, k->name);
			return;
		}
		idx++;
	}
	if (p->sec->end)
		p->sec->end(p, p->base);
}

static bool valid_instance_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-.:", *s))
			return false;
	return true;
}

/* Open instance `name` of a named section: an earlier file's, or a new one. */
static int open_instance(struct jank_config_schema_parser *p,
			 const struct jank_config_schema_section *sec, const char *name)
{
	size_t si = section_index(p->schema, sec);
	size_t n = jank_config_schema_section_count(sec, p->root);
	char **array = (char **)((char *)p->root + sec->offset);
	struct jank_config_schema_where *w;
	char *v, *dup;

	for (size_t i = 0; i < n; i++) {
		void *inst = jank_config_schema_section_struct(sec, p->root, i);

		if (strcmp(jank_config_schema_instance_name(sec, inst), name) != 0)
			continue;
		if (p->instance[si][i].file == p->ini.name) {
			jank_config_schema_fail(p, p->ini.lineno,
						"duplicate %s name '%s' (first at line %u)",
						sec->name, name, p->instance[si][i].line);
			return -EEXIST;
		}
		p->base = inst;
		p->reopened = true;
		return 0;
	}
	v = realloc(*array, (n + 1) * sec->size);
	if (v)
		*array = v;
	w = v ? realloc(p->instance[si], (n + 1) * sizeof(*w)) : NULL;
	if (w)
		p->instance[si] = w;
	dup = w ? strdup(name) : NULL;
	if (!dup) {
		jank_config_schema_fail(p, p->ini.lineno, "out of memory");
		return -ENOMEM;
	}
	p->base = v + n * sec->size;
	memset(p->base, 0, sec->size);
	{
		struct jank_config_schema_parser d;

		bare_parser(&d, p->schema, p->root);
		section_defaults(&d, sec, p->base);
	}
	*(char **)((char *)p->base + sec->name_offset) = dup;
	w[n].file = p->ini.name;
	w[n].line = p->ini.lineno;
	w[n].order = (uint64_t)p->fileno << 32 | p->ini.lineno;
	(*(size_t *)((char *)p->root + sec->count_offset))++;
	return 0;
}

/* The message for an unknown section: every section of the table. */
static void unknown_section(struct jank_config_schema_parser *p, const char *name)
{
	const struct jank_config_schema *s = p->schema;
	char expected[JANK_INI_MSG_LEN] = "";
	size_t len = 0;

	for (size_t i = 0; i < s->nsections && len < sizeof(expected); i++) {
		const char *sep = i == 0 ? "" : i + 1 == s->nsections ? " or " : ", ";

		len += (size_t)snprintf(expected + len, sizeof(expected) - len, "%s[%s%s]", sep,
					s->sections[i].name, s->sections[i].named ? " NAME" : "");
	}
	jank_config_schema_fail(p, p->ini.lineno, "unknown section [%s] (expected %s)", name,
				expected);
}

/* A header line: start a section. */
static void on_section(struct jank_ini *ini, char *name, void *data)
{
	struct jank_config_schema_parser *p = data;
	const struct jank_config_schema *s = p->schema;

	(void)ini;
	section_end(p);
	p->sec = NULL;
	p->bad = true;
	p->seen = 0;
	p->base = NULL;
	p->reopened = false;
	p->section_line = p->ini.lineno;
	snprintf(p->section, sizeof(p->section), "%s", name);

	for (size_t i = 0; i < s->nsections; i++) {
		const struct jank_config_schema_section *sec = &s->sections[i];
		size_t n = strlen(sec->name);
		char *inst = name + n;

		if (!sec->named || strncmp(name, sec->name, n) != 0 ||
		    (*inst != '\0' && !isspace((unsigned char)*inst)))
			continue;
		while (isspace((unsigned char)*inst))
			inst++;
		if (!valid_instance_name(inst)) {
			jank_config_schema_fail(
				p, p->ini.lineno,
				"bad %s name in [%s] (expected [%s NAME], NAME made of "
				"letters, digits and _-.:)",
				sec->name, name, sec->name);
			return;
		}
		snprintf(p->section, sizeof(p->section), "%s %s", sec->name, inst);
		if (open_instance(p, sec, inst) == 0) {
			p->sec = sec;
			p->bad = false;
		}
		return;
	}
	for (size_t i = 0; i < s->nsections; i++) {
		const struct jank_config_schema_section *sec = &s->sections[i];

		if (sec->named || strcmp(name, sec->name) != 0)
			continue;
		if (p->first_line[i]) {
			jank_config_schema_fail(p, p->ini.lineno,
						"duplicate section [%s] (first at line %u)", name,
						p->first_line[i]);
			return;
		}
		p->first_line[i] = p->ini.lineno;
		p->sec = sec;
		p->bad = false;
		p->base = jank_config_schema_section_struct(sec, p->root, 0);
		return;
	}
	unknown_section(p, name);
}

static void note_where(struct jank_config_schema_parser *p, size_t i)
{
	struct jank_config_schema_where w = { p->ini.name, p->ini.lineno,
					      (uint64_t)p->fileno << 32 | p->ini.lineno };

	if (!p->first[i].file)
		p->first[i] = w;
	p->last[i] = w;
}

static bool on_key(struct jank_ini *ini, const char *name, char *v, void *data)
{
	struct jank_config_schema_parser *p = data;
	const struct jank_config_schema *s = p->schema;
	unsigned idx = 0;

	(void)ini;
	if (p->bad)
		return true; /* its header was refused: said once */
	if (!p->sec) {
		jank_config_schema_fail(p, p->ini.lineno, "key '%s' outside of any section", name);
		return false;
	}
	for (size_t i = 0; i < s->nkeys; i++) {
		const struct jank_config_schema_key *k = &s->keys[i];

		if (strcmp(k->section, p->sec->name) != 0)
			continue;
		if (strcmp(k->name, name) != 0) {
			idx++;
			continue;
		}
		if (p->seen & (1ull << idx)) {
			jank_config_schema_fail(p, p->ini.lineno,
						"duplicate key '%s' in section [%s]", name,
						p->section);
			return false;
		}
		p->seen |= 1ull << idx;
		if (!v[0]) {
			jank_config_schema_fail(p, p->ini.lineno,
						"empty value for '%s' in section [%s]", name,
						p->section);
			return false;
		}
		note_where(p, i);
		return k->type->parse(p, k, v, p->base) == 0;
	}
	jank_config_schema_fail(p, p->ini.lineno, "unknown key '%s' in section [%s]", name,
				p->section);
	return false;
}

static void on_end(struct jank_ini *ini, void *data)
{
	(void)ini;
	section_end(data);
}

static const struct jank_ini_ops ops = {
	.section = on_section,
	.key = on_key,
	.end = on_end,
};

void jank_config_schema_parser_init(struct jank_config_schema_parser *p,
				    const struct jank_config_schema *s, void *root)
{
	memset(p, 0, sizeof(*p));
	p->schema = s;
	p->root = root;
	jank_ini_init(&p->ini, &ops, p);
	p->first_line = calloc(s->nsections, sizeof(*p->first_line));
	p->first = calloc(s->nkeys, sizeof(*p->first));
	p->last = calloc(s->nkeys, sizeof(*p->last));
	p->instance = calloc(s->nsections, sizeof(*p->instance));
	if (!p->first_line || !p->first || !p->last || !p->instance)
		jank_ini_fail(&p->ini, 0, "out of memory");
}

void jank_config_schema_parser_fini(struct jank_config_schema_parser *p)
{
	jank_ini_fini(&p->ini);
	for (size_t i = 0; p->instance && i < p->schema->nsections; i++)
		free(p->instance[i]);
	free(p->instance);
	free(p->first_line);
	free(p->first);
	free(p->last);
	p->instance = NULL;
	p->first_line = NULL;
	p->first = p->last = NULL;
}

void jank_config_schema_parse(struct jank_config_schema_parser *p, const char *name,
			      const char *text, size_t len)
{
	/* What is per file: the sections seen, the open section. */
	p->sec = NULL;
	p->bad = false;
	p->base = NULL;
	p->reopened = false;
	if (p->first_line)
		memset(p->first_line, 0, p->schema->nsections * sizeof(*p->first_line));
	if (p->first_line && p->first && p->last && p->instance)
		jank_ini_parse(&p->ini, name, text, len);
	p->fileno++;
}

struct jank_config_schema_where jank_config_schema_last(const struct jank_config_schema_parser *p,
							const struct jank_config_schema_key *k)
{
	return p->last[k - p->schema->keys];
}

struct jank_config_schema_where jank_config_schema_first(const struct jank_config_schema_parser *p,
							 const struct jank_config_schema_key *k)
{
	return p->first[k - p->schema->keys];
}

int jank_config_schema_set(const struct jank_config_schema_key *k, void *sec, const char *value,
			   char *err, size_t errlen)
{
	struct jank_config_schema_parser p;

	bare_parser(&p, NULL, NULL);
	p.ini.name = k->name;
	if (k->type->parse(&p, k, value, sec) < 0 && !p.ini.failed)
		jank_config_schema_fail(&p, 0, "bad value '%s' for %s", value, k->name);
	if (!p.ini.failed)
		return 0;
	snprintf(err, errlen, "%s", p.ini.msg);
	return -EINVAL;
}

/* ---- Comparing, taking ---- */

static size_t diff_instances(const struct jank_config_schema *s,
			     const struct jank_config_schema_section *sec, const void *a,
			     const void *b, bool report_keys, jank_config_schema_diff_fn fn,
			     void *data)
{
	size_t na = jank_config_schema_section_count(sec, a),
	       nb = jank_config_schema_section_count(sec, b), n = 0;

	for (size_t i = 0; i < na; i++) {
		const void *ia = jank_config_schema_section_struct(sec, a, i), *ib = NULL;
		const char *name = jank_config_schema_instance_name(sec, ia);

		for (size_t j = 0; j < nb && !ib; j++)
			if (!strcmp(name,
				    jank_config_schema_instance_name(
					    sec, jank_config_schema_section_struct(sec, b, j))))
				ib = jank_config_schema_section_struct(sec, b, j);
		if (!ib) {
			fn(sec, NULL, name, data);
			n++;
			continue;
		}
		for (size_t k = 0; report_keys && k < s->nkeys; k++) {
			if (strcmp(s->keys[k].section, sec->name) != 0 ||
			    s->keys[k].type->equal(&s->keys[k], ia, ib))
				continue;
			fn(sec, &s->keys[k], name, data);
			n++;
		}
	}
	return n;
}

size_t jank_config_schema_diff(const struct jank_config_schema *s, const void *a, const void *b,
			       jank_config_schema_diff_fn fn, void *data)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nsections; i++) {
		const struct jank_config_schema_section *sec = &s->sections[i];

		if (sec->named) {
			n += diff_instances(s, sec, a, b, true, fn, data);  /* changed, removed */
			n += diff_instances(s, sec, b, a, false, fn, data); /* added */
			continue;
		}
		for (size_t k = 0; k < s->nkeys; k++) {
			if (strcmp(s->keys[k].section, sec->name) != 0 ||
			    s->keys[k].type->equal(&s->keys[k],
						   jank_config_schema_section_struct(sec, a, 0),
						   jank_config_schema_section_struct(sec, b, 0)))
				continue;
			fn(sec, &s->keys[k], NULL, data);
			n++;
		}
	}
	return n;
}

static void swap_bytes(void *x, void *y, size_t n)
{
	unsigned char *a = x, *b = y;

	for (size_t i = 0; i < n; i++) {
		unsigned char t = a[i];

		a[i] = b[i];
		b[i] = t;
	}
}

void jank_config_schema_take(const struct jank_config_schema *s,
			     const struct jank_config_schema_key *k, void *dst, void *src)
{
	const struct jank_config_schema_section *sec =
		jank_config_schema_section_find(s, k->section);
	char *d = jank_config_schema_section_struct(sec, dst, 0),
	     *f = jank_config_schema_section_struct(sec, src, 0);

	swap_bytes(d + k->offset, f + k->offset, k->size);
	if (k->size2)
		swap_bytes(d + k->offset2, f + k->offset2, k->size2);
}

void jank_config_schema_take_section(const struct jank_config_schema_section *sec, void *dst,
				     void *src)
{
	swap_bytes((char *)dst + sec->offset, (char *)src + sec->offset, sizeof(void *));
	swap_bytes((char *)dst + sec->count_offset, (char *)src + sec->count_offset,
		   sizeof(size_t));
}

/* ---- The generic types ---- */

int jank_config_schema_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

int jank_config_schema_parse_uint(const char *s, uint64_t *out)
{
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

bool jank_config_schema_bytes_equal(const struct jank_config_schema_key *k, const void *a,
				    const void *b)
{
	const char *x = a, *y = b;

	return !memcmp(x + k->offset, y + k->offset, k->size) &&
	       (!k->size2 || !memcmp(x + k->offset2, y + k->offset2, k->size2));
}

static int duration_parse(struct jank_config_schema_parser *p,
			  const struct jank_config_schema_key *k, const char *v, void *sec)
{
	bool zero = k->flags & JANK_CONF_ZERO;
	int64_t ns;

	if (zero && !strcmp(v, "0")) { /* "off": no unit needed */
		*JANK_CONF_FIELD(sec, k, int64_t) = 0;
		return 0;
	}
	if (jank_units_parse_duration(v, &ns) < 0 || ns < 0 || (ns == 0 && !zero)) {
		jank_config_schema_fail(p, jank_config_schema_lineno(p), "bad duration '%s' for %s",
					v, k->name);
		return -EINVAL;
	}
	*JANK_CONF_FIELD(sec, k, int64_t) = ns;
	return 0;
}

const struct jank_config_schema_type jank_config_schema_duration = {
	.name = "duration", .parse = duration_parse, .equal = jank_config_schema_bytes_equal
};

static int size_parse(struct jank_config_schema_parser *p, const struct jank_config_schema_key *k,
		      const char *v, void *sec)
{
	uint64_t bytes;

	if ((k->flags & JANK_CONF_ZERO) && !strcmp(v, "0")) {
		*JANK_CONF_FIELD(sec, k, uint64_t) = 0;
		return 0;
	}
	if (jank_units_parse_size(v, &bytes) < 0 || bytes == 0) {
		jank_config_schema_fail(p, jank_config_schema_lineno(p), "bad size '%s' for %s", v,
					k->name);
		return -EINVAL;
	}
	*JANK_CONF_FIELD(sec, k, uint64_t) = bytes;
	return 0;
}

const struct jank_config_schema_type jank_config_schema_size = {
	.name = "size", .parse = size_parse, .equal = jank_config_schema_bytes_equal
};

static int bool_parse(struct jank_config_schema_parser *p, const struct jank_config_schema_key *k,
		      const char *v, void *sec)
{
	if (jank_config_schema_parse_bool(v, JANK_CONF_FIELD(sec, k, bool)) < 0) {
		jank_config_schema_fail(p, jank_config_schema_lineno(p),
					"bad value '%s' for %s (expected yes or no)", v, k->name);
		return -EINVAL;
	}
	return 0;
}

const struct jank_config_schema_type jank_config_schema_bool = {
	.name = "bool", .parse = bool_parse, .equal = jank_config_schema_bytes_equal
};

static int uint_parse(struct jank_config_schema_parser *p, const struct jank_config_schema_key *k,
		      const char *v, void *sec)
{
	uint64_t n;

	if (jank_config_schema_parse_uint(v, &n) < 0 || n < (uint64_t)k->min) {
		if (k->min)
			jank_config_schema_fail(p, jank_config_schema_lineno(p),
						"bad number '%s' for %s (expected %" PRId64
						" or more)",
						v, k->name, k->min);
		else
			jank_config_schema_fail(p, jank_config_schema_lineno(p),
						"bad number '%s' for %s", v, k->name);
		return -EINVAL;
	}
	*JANK_CONF_FIELD(sec, k, uint64_t) = n;
	return 0;
}

const struct jank_config_schema_type jank_config_schema_uint = {
	.name = "uint", .parse = uint_parse, .equal = jank_config_schema_bytes_equal
};

static int port_parse(struct jank_config_schema_parser *p, const struct jank_config_schema_key *k,
		      const char *v, void *sec)
{
	uint64_t port;

	if (jank_config_schema_parse_uint(v, &port) < 0 || port == 0 || port > 65535) {
		jank_config_schema_fail(p, jank_config_schema_lineno(p),
					"bad port '%s' for %s (expected 1 to 65535)", v, k->name);
		return -EINVAL;
	}
	*JANK_CONF_FIELD(sec, k, unsigned) = (unsigned)port;
	return 0;
}

const struct jank_config_schema_type jank_config_schema_port = {
	.name = "port", .parse = port_parse, .equal = jank_config_schema_bytes_equal
};

static int enum_parse(struct jank_config_schema_parser *p, const struct jank_config_schema_key *k,
		      const char *v, void *sec)
{
	char expected[JANK_INI_MSG_LEN] = "";
	size_t len = 0, n = 0;

	for (; k->names[n]; n++) {
		if (!strcmp(v, k->names[n])) {
			*JANK_CONF_FIELD(sec, k, int) = (int)n;
			return 0;
		}
	}
	for (size_t i = 0; i < n && len < sizeof(expected); i++)
		len += (size_t)snprintf(expected + len, sizeof(expected) - len, "%s%s",
					i == 0	     ? ""
					: i + 1 == n ? " or "
						     : ", ",
					k->names[i]);
	jank_config_schema_fail(p, jank_config_schema_lineno(p),
				"bad value '%s' for %s (expected %s)", v, k->name, expected);
	return -EINVAL;
}

const struct jank_config_schema_type jank_config_schema_enum = {
	.name = "enum", .parse = enum_parse, .equal = jank_config_schema_bytes_equal
};

/* ---- Helpers for strings and lists ---- */

int jank_config_schema_strdup(struct jank_config_schema_parser *p, const char *v, char **out)
{
	char *s = strdup(v);

	if (!s) {
		jank_config_schema_fail(p, jank_config_schema_lineno(p), "out of memory");
		return -ENOMEM;
	}
	free(*out);
	*out = s;
	return 0;
}

bool jank_config_schema_str_equal(const struct jank_config_schema_key *k, const void *a,
				  const void *b)
{
	const char *x = *(char *const *)((const char *)a + k->offset);
	const char *y = *(char *const *)((const char *)b + k->offset);

	return x == y || (x && y && !strcmp(x, y));
}

void jank_config_schema_str_fini(const struct jank_config_schema_key *k, void *sec)
{
	char **s = JANK_CONF_FIELD(sec, k, char *);

	free(*s);
	*s = NULL;
}

bool jank_config_schema_array_equal(const struct jank_config_schema_key *k, const void *a,
				    const void *b)
{
	return !strncmp((const char *)a + k->offset, (const char *)b + k->offset, k->size);
}

int jank_config_schema_list_add(struct jank_config_schema_parser *p, char ***list, size_t *n,
				const char *v)
{
	char **l = realloc(*list, (*n + 1) * sizeof(*l));

	if (!l) {
		jank_config_schema_fail(p, jank_config_schema_lineno(p), "out of memory");
		return -ENOMEM;
	}
	*list = l;
	l[*n] = NULL;
	if (jank_config_schema_strdup(p, v, &l[*n]) < 0)
		return -ENOMEM;
	(*n)++;
	return 0;
}

void jank_config_schema_list_free(char ***list, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		free((*list)[i]);
	free(*list);
	*list = NULL;
	*n = 0;
}

bool jank_config_schema_list_equal(const struct jank_config_schema_key *k, const void *a,
				   const void *b)
{
	char *const *x = *(char **const *)((const char *)a + k->offset);
	char *const *y = *(char **const *)((const char *)b + k->offset);
	size_t n = *(const size_t *)((const char *)a + k->offset2);

	if (n != *(const size_t *)((const char *)b + k->offset2))
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(x[i], y[i]) != 0)
			return false;
	return true;
}

void jank_config_schema_list_fini(const struct jank_config_schema_key *k, void *sec)
{
	jank_config_schema_list_free(JANK_CONF_FIELD(sec, k, char **),
				     JANK_CONF_FIELD2(sec, k, size_t));
}
