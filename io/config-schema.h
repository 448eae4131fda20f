/* SPDX-License-Identifier: MIT */
/*
 * A declarative config schema: tables of sections and keys that drive the
 * INI reader (io/ini-reader.h), the defaults, the freeing of a config, and
 * the comparison of two configs key by key (jankd's reload).
 *
 * One row per key: its section, its name, its type (a parser, an equality
 * and a destructor), where its value goes (an offset into the section's
 * struct), its default, and whether a running jankd applies a change to it
 * or needs a restart. Like systemd's journald-gperf.gperf, a new key is one
 * row plus its field and its documentation.
 *
 * A section is a struct inside the config's root struct ([graph]), or, for
 * a named one ([action NAME]), an array of per-instance structs that the
 * root points to, with its count.
 *
 * jank's tables are in io/config-file.c; this file knows no key of jank's.
 */
#ifndef JANK_CONFIG_SCHEMA_H
#define JANK_CONFIG_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ini-reader.h"

struct jank_config_schema_parser;
struct jank_config_schema_key;

/* What jankd does when a reload changes a key. */
enum jank_config_schema_reload {
	JANK_CONF_LIVE = 0, /* applied at once */
	JANK_CONF_RESTART,  /* kept as it was, with a warning: it needs a restart */
};

/*
 * How a key's value is read, compared and freed. `sec` is the section's
 * struct (or the instance's); the value is at k->offset (and k->offset2).
 */
struct jank_config_schema_type {
	const char *name; /* "duration", "size", ...: for tests and messages */
	/* 0, or -errno after jank_config_schema_fail(). */
	int (*parse)(struct jank_config_schema_parser *p, const struct jank_config_schema_key *k,
		     const char *v, void *sec);
	bool (*equal)(const struct jank_config_schema_key *k, const void *a, const void *b);
	void (*free)(const struct jank_config_schema_key *k, void *sec); /* NULL: nothing owned */
	bool second; /* it fills a second field too, at offset2 (the row must give it) */
};

/* Flags of a key. */
#define JANK_CONF_ZERO	   (1u << 0) /* "0" means off (a duration, a size) */
#define JANK_CONF_REQUIRED (1u << 1) /* a named section needs it (unless a drop-in reopens it) */

struct jank_config_schema_key {
	const char *section; /* as in the sections table: "graph", "action" */
	const char *name;
	const struct jank_config_schema_type *type;
	size_t offset;	/* of the value in the section's struct */
	size_t size;	/* of that field (a fixed string's capacity) */
	size_t offset2; /* a second field some types fill: a list's count, a rate's period */
	size_t size2;	/* of that one (0: none) */
	enum jank_config_schema_reload reload;
	const char *def; /* the default, parsed at init; NULL: what the section's init left */
	unsigned flags;
	int64_t min;		  /* numbers and durations: the least value (0: none) */
	const char *const *names; /* enums: the names, by value, NULL-terminated */
};

struct jank_config_schema_section {
	const char *name; /* "live"; a named section "action" is written [action NAME] */
	bool named;
	size_t offset; /* of the struct in the root; named: of the instances' array pointer */
	/* Named sections: */
	size_t count_offset; /* of the instance count (size_t) in the root */
	size_t size;	     /* of one instance */
	size_t name_offset;  /* of the instance's name (char *) */
	/* Before the defaults of the keys (unnamed: at init; named: per new instance). */
	void (*init)(void *sec);
	/* After the keys' destructors (named: per instance; it then frees the name, which
	 * is freed for it when there is none). */
	void (*fini)(void *sec);
	/* Checks that need the whole section, when it ends (not after an error). */
	void (*end)(struct jank_config_schema_parser *p, void *sec);
};

struct jank_config_schema {
	const struct jank_config_schema_section *sections;
	size_t nsections;
	const struct jank_config_schema_key *keys;
	size_t nkeys;
};

/* Where a key was set, for the checks across keys and files. */
struct jank_config_schema_where {
	const char *file; /* NULL: never set */
	unsigned line;
	uint64_t order; /* file number << 32 | line: which came last */
};

#define JANK_CONF_MAX_KEYS     64  /* per section: the bits of `seen` */
#define JANK_CONF_MAX_SECTIONS 16  /* in a schema (tests/io/test-config-schema.c checks) */
#define JANK_CONF_MAX_ROWS     256 /* keys in a schema, all sections together (same) */

/* The state of a parse, for the types' parsers and the sections' checks. */
struct jank_config_schema_parser {
	const struct jank_config_schema *schema;
	void *root;
	struct jank_ini ini;
	unsigned fileno; /* 0: the file, then each drop-in */

	const struct jank_config_schema_section
		*sec;	   /* the open section; NULL: none, or a bad header */
	bool bad;	   /* an error was reported on its header */
	void *base;	   /* its struct (or the instance's) */
	char section[128]; /* as users write it: "graph", "action frame" */
	unsigned section_line;
	bool reopened;	      /* a drop-in's [action NAME] of an earlier file */
	uint64_t seen;	      /* keys seen in this section, by index among its keys */
	unsigned *first_line; /* per section: its header in this file (0: not yet) */
	struct jank_config_schema_where *first, *last; /* per key: where first and last set */
	/* Per named section, per instance: its first header, for messages. */
	struct jank_config_schema_where **instance;
};

/* Defaults: each section's init, then each key's default. */
void jank_config_schema_init(const struct jank_config_schema *s, void *root);
/* The same, telling which default does not parse (a bug of the table): 0 or -EINVAL. */
int jank_config_schema_check_defaults(const struct jank_config_schema *s, void *root, char *err,
				      size_t errlen);
void jank_config_schema_fini(const struct jank_config_schema *s, void *root);

void jank_config_schema_parser_init(struct jank_config_schema_parser *p,
				    const struct jank_config_schema *s, void *root);
void jank_config_schema_parser_fini(struct jank_config_schema_parser *p);
/* Parse one file into p->root (initialised by the caller); the first error is kept. */
void jank_config_schema_parse(struct jank_config_schema_parser *p, const char *name,
			      const char *text, size_t len);

/* For the types and the checks: an error at `line` of the file being read. */
#define jank_config_schema_fail(p, line, ...) jank_ini_fail(&(p)->ini, line, __VA_ARGS__)
/* The line being read. */
static inline unsigned jank_config_schema_lineno(const struct jank_config_schema_parser *p)
{
	return p ? p->ini.lineno : 0;
}

const struct jank_config_schema_key *jank_config_schema_key_find(const struct jank_config_schema *s,
								 const char *section,
								 const char *name);
const struct jank_config_schema_section *
jank_config_schema_section_find(const struct jank_config_schema *s, const char *name);
/* Where a key was last (or first) set in this parse; .file NULL when never. */
struct jank_config_schema_where jank_config_schema_last(const struct jank_config_schema_parser *p,
							const struct jank_config_schema_key *k);
struct jank_config_schema_where jank_config_schema_first(const struct jank_config_schema_parser *p,
							 const struct jank_config_schema_key *k);

/* A section's struct in the root (unnamed), or instance i of a named one. */
void *jank_config_schema_section_struct(const struct jank_config_schema_section *sec,
					const void *root, size_t i);
size_t jank_config_schema_section_count(const struct jank_config_schema_section *sec,
					const void *root);
const char *jank_config_schema_instance_name(const struct jank_config_schema_section *sec,
					     const void *inst);

/*
 * Parse one value of key k into the section's struct `sec`, as the file's
 * `key = value` would, without the checks across keys: 0, or -EINVAL and
 * "bad duration 'x' for retention" in err.
 */
int jank_config_schema_set(const struct jank_config_schema_key *k, void *sec, const char *value,
			   char *err, size_t errlen);

/*
 * Compare two configs key by key: fn(section, key, instance, data) for each
 * key whose values differ (instance: the name of a named section's
 * instance, else NULL), and with key NULL for an instance that only one of
 * them has. Returns the number of differences.
 */
typedef void (*jank_config_schema_diff_fn)(const struct jank_config_schema_section *sec,
					   const struct jank_config_schema_key *k,
					   const char *instance, void *data);
size_t jank_config_schema_diff(const struct jank_config_schema *s, const void *a, const void *b,
			       jank_config_schema_diff_fn fn, void *data);

/*
 * Give `dst` the value of key k of `src` (an unnamed section's), and `src`
 * the old one, to free with it: what jankd does with a key it applies.
 */
void jank_config_schema_take(const struct jank_config_schema *s,
			     const struct jank_config_schema_key *k, void *dst, void *src);
/* The same for every instance of a named section, taken whole. */
void jank_config_schema_take_section(const struct jank_config_schema_section *sec, void *dst,
				     void *src);

/* The generic types. */
extern const struct jank_config_schema_type jank_config_schema_duration; /* int64_t ns; min, ZERO */
extern const struct jank_config_schema_type jank_config_schema_size;	 /* uint64_t bytes; ZERO */
extern const struct jank_config_schema_type jank_config_schema_bool;	 /* bool */
extern const struct jank_config_schema_type jank_config_schema_uint;	 /* uint64_t; min */
extern const struct jank_config_schema_type jank_config_schema_port;	 /* unsigned, 1 to 65535 */
extern const struct jank_config_schema_type jank_config_schema_enum; /* int (an enum), by names */

/* Helpers for the types of a schema. */
#define JANK_CONF_FIELD(sec, k, type)  ((type *)((char *)(sec) + (k)->offset))
#define JANK_CONF_FIELD2(sec, k, type) ((type *)((char *)(sec) + (k)->offset2))
int jank_config_schema_parse_uint(const char *s, uint64_t *out);
int jank_config_schema_parse_bool(const char *s, bool *out);
/* Lists of strings: a char ** at offset, its size_t count at offset2. */
int jank_config_schema_list_add(struct jank_config_schema_parser *p, char ***list, size_t *n,
				const char *v);
void jank_config_schema_list_free(char ***list, size_t *n);
bool jank_config_schema_list_equal(const struct jank_config_schema_key *k, const void *a,
				   const void *b);
void jank_config_schema_list_fini(const struct jank_config_schema_key *k, void *sec);
/* A char * at offset. */
int jank_config_schema_strdup(struct jank_config_schema_parser *p, const char *v, char **out);
bool jank_config_schema_str_equal(const struct jank_config_schema_key *k, const void *a,
				  const void *b);
void jank_config_schema_str_fini(const struct jank_config_schema_key *k, void *sec);
/* A char array of k->size at offset. */
bool jank_config_schema_array_equal(const struct jank_config_schema_key *k, const void *a,
				    const void *b);
/* Bytes at offset (k->size), and at offset2 (k->size2): plain values. */
bool jank_config_schema_bytes_equal(const struct jank_config_schema_key *k, const void *a,
				    const void *b);

#endif
