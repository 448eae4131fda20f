/* SPDX-License-Identifier: MIT */
/*
 * The TSDL parser's types (ctf-metadata.c): integer, floating_point,
 * string, enum, struct, variant, arrays and sequences, typealias and
 * typedef, each checked as it is read (sizes, alignments, depth).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctf-metadata-int.h"

/* ---- Types ---- */

static struct ctf_type *new_type(struct parser *p, enum ctf_kind kind)
{
	struct ctf_type *t = ctf_meta_arena_alloc(p->m, sizeof(*t));

	if (!t) {
		ctf_meta_fail(p, "out of memory");
		return NULL;
	}
	t->kind = kind;
	t->align = 8;
	t->clock = -1;
	return t;
}

static struct ctf_type *copy_type(struct parser *p, const struct ctf_type *src)
{
	struct ctf_type *t = new_type(p, src->kind);

	if (t)
		*t = *src;
	return t;
}

static int add_alias(struct parser *p, const char *name, struct ctf_type *type)
{
	if (p->naliases == p->capaliases) {
		size_t n = p->capaliases ? p->capaliases * 2 : 64;
		struct alias *v = realloc(p->aliases, n * sizeof(*v));

		if (!v) {
			ctf_meta_fail(p, "out of memory");
			return -ENOMEM;
		}
		p->aliases = v;
		p->capaliases = n;
	}
	p->aliases[p->naliases++] = (struct alias){ name, type };
	return 0;
}

/* The latest alias of that name (a later declaration hides an earlier one). */
static struct ctf_type *find_alias(struct parser *p, const char *name)
{
	for (size_t i = p->naliases; i-- > 0;)
		if (!strcmp(p->aliases[i].name, name))
			return p->aliases[i].type;
	return NULL;
}

static const char *joined(struct parser *p, const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	char *s = ctf_meta_arena_alloc(p->m, na + nb + 2);

	if (!s)
		return NULL;
	memcpy(s, a, na);
	s[na] = ' ';
	memcpy(s + na + 1, b, nb + 1);
	return s;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* `byte_order = le|be|native|network|...` */
static bool parse_byte_order(struct parser *p, uint8_t *bo)
{
	const char *v = expect_ident(p);

	if (!v)
		return false;
	if (!strcmp(v, "le") || !strcmp(v, "little"))
		*bo = CTF_BO_LE;
	else if (!strcmp(v, "be") || !strcmp(v, "big") || !strcmp(v, "network"))
		*bo = CTF_BO_BE;
	else if (!strcmp(v, "native"))
		*bo = CTF_BO_NATIVE;
	else {
		ctf_meta_fail(p, "unknown byte order '%s'", v);
		return false;
	}
	return true;
}

static bool parse_bool(struct parser *p, bool *b)
{
	const struct token *t = peek(p, 0);

	if (t->kind == TK_INT && t->u <= 1) {
		*b = t->u == 1;
	} else if (t->kind == TK_IDENT &&
		   (!strcasecmp(t->s, "true") || !strcasecmp(t->s, "false"))) {
		*b = !strcasecmp(t->s, "true");
	} else {
		ctf_meta_fail(p, "true or false expected");
		return false;
	}
	p->pos++;
	return true;
}

/* `base = ...`: any of CTF's spellings; jank does not need it. */
static bool parse_base(struct parser *p)
{
	const struct token *t = peek(p, 0);
	static const char *const names[] = { "decimal",	    "dec", "d", "i",	  "u",
					     "hexadecimal", "hex", "x", "X",	  "p",
					     "octal",	    "oct", "o", "binary", "b" };

	if (t->kind == TK_INT && (t->u == 2 || t->u == 8 || t->u == 10 || t->u == 16)) {
		p->pos++;
		return true;
	}
	for (size_t i = 0; t->kind == TK_IDENT && i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(t->s, names[i])) {
			p->pos++;
			return true;
		}
	}
	ctf_meta_fail(p, "unknown integer base");
	return false;
}

static bool parse_encoding(struct parser *p, bool *text)
{
	const char *v = expect_ident(p);

	if (!v)
		return false;
	if (!strcmp(v, "none"))
		*text = false;
	else if (!strcmp(v, "UTF8") || !strcmp(v, "ASCII"))
		*text = true;
	else {
		ctf_meta_fail(p, "unknown encoding '%s'", v);
		return false;
	}
	return true;
}

/* `map = clock.NAME.value` */
static bool parse_map(struct parser *p, struct ctf_type *t)
{
	const char *a = expect_ident(p);
	const char *name;

	if (!a || strcmp(a, "clock") || !expect(p, "."))
		goto bad;
	name = expect_ident(p);
	if (!name || !expect(p, "."))
		goto bad;
	a = expect_ident(p);
	if (!a || strcmp(a, "value"))
		goto bad;
	t->clock_name = name;
	return true;
bad:
	ctf_meta_fail(p, "map = clock.NAME.value expected");
	return false;
}

static bool parse_uint_attr(struct parser *p, uint64_t max, uint64_t *v)
{
	bool neg;

	if (!parse_int(p, v, &neg))
		return false;
	if (neg || *v > max) {
		ctf_meta_fail(p, "a value out of range");
		return false;
	}
	return true;
}

/* One attribute of integer { } or floating_point { }. */
static bool parse_num_attr(struct parser *p, struct ctf_type *t, const char *key, bool *has_align,
			   uint64_t *exp, uint64_t *mant)
{
	uint64_t v;

	if (!strcmp(key, "size") && t->kind == CTF_INT) {
		if (!parse_uint_attr(p, 64, &v))
			return false;
		t->size = (unsigned)v;
	} else if (!strcmp(key, "align")) {
		if (!parse_uint_attr(p, 1u << 20, &v) || !is_pow2(v)) {
			ctf_meta_fail(p, "an alignment must be a power of two");
			return false;
		}
		t->align = (unsigned)v;
		*has_align = true;
	} else if (!strcmp(key, "signed") && t->kind == CTF_INT) {
		return parse_bool(p, &t->is_signed);
	} else if (!strcmp(key, "byte_order")) {
		return parse_byte_order(p, &t->bo);
	} else if (!strcmp(key, "base") && t->kind == CTF_INT) {
		return parse_base(p);
	} else if (!strcmp(key, "encoding") && t->kind == CTF_INT) {
		return parse_encoding(p, &t->text);
	} else if (!strcmp(key, "map") && t->kind == CTF_INT) {
		return parse_map(p, t);
	} else if (!strcmp(key, "exp_dig") && t->kind == CTF_FLOAT) {
		return parse_uint_attr(p, 64, exp);
	} else if (!strcmp(key, "mant_dig") && t->kind == CTF_FLOAT) {
		return parse_uint_attr(p, 64, mant);
	} else {
		ctf_meta_fail(p, "unknown attribute '%s'", key);
		return false;
	}
	return true;
}

/* integer { ... } or floating_point { ... } */
static struct ctf_type *parse_number(struct parser *p, enum ctf_kind kind)
{
	struct ctf_type *t = new_type(p, kind);
	uint64_t exp = 0, mant = 0;
	bool has_align = false;

	if (!t || !expect(p, "{"))
		return NULL;
	while (!accept(p, "}")) {
		const char *key = expect_ident(p);

		if (!key || !expect(p, "=") ||
		    !parse_num_attr(p, t, key, &has_align, &exp, &mant) || !expect(p, ";"))
			return NULL;
	}
	if (kind == CTF_FLOAT) {
		if (exp + mant != 32 && exp + mant != 64) {
			ctf_meta_fail(p, "a floating point number of %u bits",
				      (unsigned)(exp + mant));
			return NULL;
		}
		t->size = (unsigned)(exp + mant);
	}
	if (t->size == 0) {
		ctf_meta_fail(p, "an integer without a size");
		return NULL;
	}
	if (!has_align)
		t->align = t->size % 8 ? 1 : 8;
	return t;
}

static struct ctf_type *parse_string(struct parser *p)
{
	struct ctf_type *t = new_type(p, CTF_STRING);
	bool text;

	if (!t || !accept(p, "{"))
		return t;
	while (!accept(p, "}")) {
		const char *key = expect_ident(p);

		if (!key || strcmp(key, "encoding") || !expect(p, "=") ||
		    !parse_encoding(p, &text) || !expect(p, ";")) {
			ctf_meta_fail(p, "string { encoding = ...; } expected");
			return NULL;
		}
	}
	return t;
}

/* One `label [= lo [... hi]]` of an enumeration; *next is the value after the last. */
static bool parse_enum_entry(struct parser *p, struct ctf_type *t, uint64_t *next, size_t *cap)
{
	const struct token *lt = peek(p, 0);
	struct ctf_mapping map;

	if (lt->kind != TK_IDENT && lt->kind != TK_STR) {
		ctf_meta_fail(p, "an enumeration label expected");
		return false;
	}
	p->pos++;
	map.label = lt->s;
	map.lo = map.hi = *next;
	if (accept(p, "=")) {
		if (!parse_int(p, &map.lo, NULL))
			return false;
		map.hi = map.lo;
		if (accept(p, "...") && !parse_int(p, &map.hi, NULL))
			return false;
	}
	if (t->nmaps == *cap) {
		size_t n = *cap ? *cap * 2 : 16;
		struct ctf_mapping *v = ctf_meta_arena_alloc(p->m, n * sizeof(*v));

		if (!v || n > (1u << 20)) {
			ctf_meta_fail(p, "too many enumeration labels");
			return false;
		}
		if (t->nmaps)
			memcpy(v, t->maps, t->nmaps * sizeof(*v));
		t->maps = v;
		*cap = n;
	}
	t->maps[t->nmaps++] = map;
	*next = map.hi + 1;
	return true;
}

/* enum [NAME] [: INT_TYPE] [{ entries }] */
static struct ctf_type *parse_enum(struct parser *p)
{
	const char *name = NULL;
	struct ctf_type *t, *container;
	uint64_t next = 0;
	size_t cap = 0;

	if (peek(p, 0)->kind == TK_IDENT)
		name = peek(p, 0)->s, p->pos++;
	if (!accept(p, ":")) {
		if (name && !is_punct(peek(p, 0), "{")) {
			struct ctf_type *known = find_alias(p, joined(p, "enum", name));

			if (!known)
				ctf_meta_fail(p, "unknown enumeration '%s'", name);
			return known;
		}
		container = find_alias(p, "int");
		if (!container) {
			ctf_meta_fail(p, "an enumeration without a container type");
			return NULL;
		}
	} else {
		container = ctf_meta_parse_type_spec(p);
		if (!container)
			return NULL;
	}
	if (container->kind != CTF_INT) {
		ctf_meta_fail(p, "an enumeration's container must be an integer");
		return NULL;
	}
	t = copy_type(p, container);
	if (!t)
		return NULL;
	t->kind = CTF_ENUM;
	t->elem = container;
	t->maps = NULL;
	t->nmaps = 0;
	if (!expect(p, "{"))
		return NULL;
	while (!accept(p, "}")) {
		if (!parse_enum_entry(p, t, &next, &cap))
			return NULL;
		if (!accept(p, ",") && !is_punct(peek(p, 0), "}")) {
			ctf_meta_fail(p, "',' or '}' expected");
			return NULL;
		}
	}
	if (name && add_alias(p, joined(p, "enum", name), t) < 0)
		return NULL;
	return t;
}

static bool parse_declaration(struct parser *p, struct ctf_type *t);

/* The members of a struct or variant body, up to its '}'. */
static bool parse_members(struct parser *p, struct ctf_type *t)
{
	while (!accept(p, "}")) {
		if (p->failed)
			return false;
		if (is_ident(peek(p, 0), "typealias")) {
			p->pos++;
			if (!ctf_meta_parse_typealias(p) || !expect(p, ";"))
				return false;
			continue;
		}
		if (!parse_declaration(p, t))
			return false;
	}
	return true;
}

static bool add_member(struct parser *p, struct ctf_type *t, const char *name,
		       struct ctf_type *type, size_t *cap)
{
	for (size_t i = 0; i < t->nmembers; i++) {
		if (!strcmp(t->members[i].name, name)) {
			ctf_meta_fail(p, "two members named '%s'", name);
			return false;
		}
	}
	if (t->nmembers == *cap) {
		size_t n = *cap ? *cap * 2 : 8;
		struct ctf_member *v = ctf_meta_arena_alloc(p->m, n * sizeof(*v));

		if (!v || n > 65536) {
			ctf_meta_fail(p, "too many members");
			return false;
		}
		if (t->nmembers)
			memcpy(v, t->members, t->nmembers * sizeof(*v));
		t->members = v;
		*cap = n;
	}
	t->members[t->nmembers++] = (struct ctf_member){ name, type };
	return true;
}

/* A path as written in a sequence's length or a variant's tag: a.b.c */
const char *ctf_meta_parse_path(struct parser *p)
{
	const char *s = expect_ident(p);

	while (s && (accept(p, ".") || accept(p, "->"))) {
		const char *b = expect_ident(p);
		size_t na, nb;
		char *j;

		if (!b)
			return NULL;
		na = strlen(s);
		nb = strlen(b);
		j = ctf_meta_arena_alloc(p->m, na + nb + 2);
		if (!j)
			return NULL;
		memcpy(j, s, na);
		j[na] = '.';
		memcpy(j + na + 1, b, nb + 1);
		s = j;
	}
	return s;
}

/* struct|variant [NAME] [<TAG>] [{ members }] [align(N)] */
static struct ctf_type *parse_compound(struct parser *p, enum ctf_kind kind)
{
	const char *prefix = kind == CTF_STRUCT ? "struct" : "variant";
	const char *name = NULL, *tag = NULL;
	struct ctf_type *t;

	if (peek(p, 0)->kind == TK_IDENT)
		name = peek(p, 0)->s, p->pos++;
	if (kind == CTF_VARIANT && accept(p, "<")) {
		tag = ctf_meta_parse_path(p);
		if (!tag || !expect(p, ">"))
			return NULL;
	}
	if (!accept(p, "{")) {
		struct ctf_type *known = name ? find_alias(p, joined(p, prefix, name)) : NULL;

		if (!known) {
			ctf_meta_fail(p, "unknown %s '%s'", prefix, name ? name : "");
			return NULL;
		}
		if (!tag)
			return known;
		t = copy_type(p, known);
		if (t)
			t->ref = tag;
		return t;
	}
	t = new_type(p, kind);
	if (!t)
		return NULL;
	t->align = 1;
	t->ref = tag;
	if (!parse_members(p, t))
		return NULL;
	if (kind == CTF_STRUCT && is_ident(peek(p, 0), "align")) {
		uint64_t a;

		p->pos++;
		if (!expect(p, "(") || !parse_uint_attr(p, 1u << 20, &a) || !expect(p, ")"))
			return NULL;
		if (!is_pow2(a)) {
			ctf_meta_fail(p, "an alignment must be a power of two");
			return NULL;
		}
		if (a > t->align)
			t->align = (unsigned)a;
	}
	for (size_t i = 0; kind == CTF_STRUCT && i < t->nmembers; i++)
		if (t->members[i].type->align > t->align)
			t->align = t->members[i].type->align;
	if (name && add_alias(p, joined(p, prefix, name), t) < 0)
		return NULL;
	return t;
}

/* A type named by an alias: the longest run of names that is one ("unsigned long"). */
static struct ctf_type *parse_alias_ref(struct parser *p)
{
	const char *name = NULL, *best_name = NULL;
	struct ctf_type *best = NULL;
	size_t best_k = 0;

	for (size_t k = 0; k < LOOKAHEAD && peek(p, k)->kind == TK_IDENT; k++) {
		struct ctf_type *t;

		name = k ? joined(p, name, peek(p, k)->s) : peek(p, k)->s;
		if (!name)
			return NULL;
		t = find_alias(p, name);
		if (t) {
			best = t;
			best_k = k + 1;
			best_name = name;
		}
	}
	if (!best) {
		ctf_meta_fail(p, "unknown type '%s'",
			      peek(p, 0)->kind == TK_IDENT ? peek(p, 0)->s : "(not a name)");
		return NULL;
	}
	(void)best_name;
	p->pos += best_k;
	return best;
}

struct ctf_type *ctf_meta_parse_type_spec(struct parser *p)
{
	const struct token *t = peek(p, 0);
	struct ctf_type *r;

	if (++p->depth > MAX_DEPTH) {
		ctf_meta_fail(p, "types nested too deep");
		return NULL;
	}
	if (is_ident(t, "const"))
		p->pos++, t = peek(p, 0);
	if (t->kind != TK_IDENT) {
		ctf_meta_fail(p, "a type expected");
		r = NULL;
	} else if (!strcmp(t->s, "integer")) {
		p->pos++;
		r = parse_number(p, CTF_INT);
	} else if (!strcmp(t->s, "floating_point")) {
		p->pos++;
		r = parse_number(p, CTF_FLOAT);
	} else if (!strcmp(t->s, "string")) {
		p->pos++;
		r = parse_string(p);
	} else if (!strcmp(t->s, "enum")) {
		p->pos++;
		r = parse_enum(p);
	} else if (!strcmp(t->s, "struct")) {
		p->pos++;
		r = parse_compound(p, CTF_STRUCT);
	} else if (!strcmp(t->s, "variant")) {
		p->pos++;
		r = parse_compound(p, CTF_VARIANT);
	} else {
		r = parse_alias_ref(p);
	}
	p->depth--;
	return r;
}

/* The subscripts after a declarator's name: [N] arrays, [path] sequences. */
static struct ctf_type *parse_subscripts(struct parser *p, struct ctf_type *elem)
{
	struct {
		bool seq;
		uint64_t len;
		const char *ref;
	} sub[8];
	size_t n = 0;

	while (accept(p, "[")) {
		if (n == 8) {
			ctf_meta_fail(p, "too many array dimensions");
			return NULL;
		}
		sub[n].seq = peek(p, 0)->kind != TK_INT;
		if (sub[n].seq) {
			sub[n].ref = ctf_meta_parse_path(p);
			if (!sub[n].ref)
				return NULL;
		} else {
			sub[n].len = peek(p, 0)->u;
			p->pos++;
			if (sub[n].len > MAX_ARRAY_LEN) {
				ctf_meta_fail(p, "an array of %llu elements",
					      (unsigned long long)sub[n].len);
				return NULL;
			}
		}
		if (!expect(p, "]"))
			return NULL;
		n++;
	}
	/* The last subscript is the innermost: a[2][3] holds 2 arrays of 3. */
	while (n-- > 0) {
		struct ctf_type *t = new_type(p, sub[n].seq ? CTF_SEQ : CTF_ARRAY);

		if (!t)
			return NULL;
		t->elem = elem;
		t->align = elem->align;
		t->length = sub[n].len;
		t->ref = sub[n].ref;
		elem = t;
	}
	return elem;
}

/* TYPE name[subscripts] [, name[subscripts]]... ; into the struct or variant t. */
static bool parse_declaration(struct parser *p, struct ctf_type *t)
{
	struct ctf_type *type;
	size_t cap = t->nmembers;

	if (is_ident(peek(p, 0), "typedef")) {
		p->pos++;
		return ctf_meta_parse_typealias(p) && expect(p, ";");
	}
	type = ctf_meta_parse_type_spec(p);
	if (!type)
		return false;
	if (accept(p, ";"))
		return true; /* a named struct, enum or variant declared in passing */
	do {
		const char *name = expect_ident(p);
		struct ctf_type *full;

		if (!name)
			return false;
		full = parse_subscripts(p, type);
		if (!full || !add_member(p, t, name, full, &cap))
			return false;
	} while (accept(p, ","));
	return expect(p, ";");
}

/*
 * typealias TYPE := NAME   (NAME: one or more words)
 * typedef TYPE NAME        (the "typedef" already taken: same shape without ":=")
 */
bool ctf_meta_parse_typealias(struct parser *p)
{
	const char *name = NULL;
	struct ctf_type *type = ctf_meta_parse_type_spec(p);

	if (!type)
		return false;
	accept(p, ":=");
	while (peek(p, 0)->kind == TK_IDENT) {
		name = name ? joined(p, name, peek(p, 0)->s) : peek(p, 0)->s;
		p->pos++;
	}
	if (!name) {
		ctf_meta_fail(p, "an alias name expected");
		return false;
	}
	if (is_punct(peek(p, 0), "[")) {
		type = parse_subscripts(p, type);
		if (!type)
			return false;
	}
	return add_alias(p, name, type) == 0;
}
