/* SPDX-License-Identifier: MIT */
/*
 * The TSDL parser (ctf-meta.h): the text is cut into tokens first, then a
 * recursive descent builds the type tree of each scope. It knows the
 * subset of CTF 1.8 that LTTng and babeltrace2's sink.ctf.fs write: the
 * trace, env, clock, stream, event (and callsite, skipped) blocks;
 * typealias and typedef; integer, floating_point, string, enum, struct
 * (with align()), variant (tagged where declared or where used), arrays
 * and sequences. Anything else (CTF 2, a keyword or an attribute it does
 * not know) is refused with the line it is on, so that the caller falls
 * back to babeltrace2. The text is untrusted: every count, size and depth
 * is bounded.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctf-meta.h"
#include "errbuf.h"

#define MAX_DEPTH     32
#define MAX_TOKENS    (8u << 20)
#define MAX_ARRAY_LEN (1u << 24)
#define LOOKAHEAD     4

/* ---- Arena ---- */

struct ctf_arena {
	struct ctf_arena *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

static void *arena_alloc(struct ctf_meta *m, size_t n)
{
	struct ctf_arena *a = m->arena;

	n = (n + 15) & ~(size_t)15;
	if (!a || a->cap - a->used < n) {
		size_t cap = n > 65536 ? n : 65536;

		a = malloc(sizeof(*a) + cap);
		if (!a)
			return NULL;
		a->next = m->arena;
		a->used = 0;
		a->cap = cap;
		m->arena = a;
	}
	a->used += n;
	return memset(a->data + a->used - n, 0, n);
}

static char *arena_strndup(struct ctf_meta *m, const char *s, size_t n)
{
	char *p = arena_alloc(m, n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

/* ---- Tokens ---- */

enum tok_kind {
	TK_END = 0,
	TK_IDENT,
	TK_INT,
	TK_STR,
	TK_PUNCT
};

struct token {
	uint8_t kind;
	char punct[4]; /* TK_PUNCT: "{", ":=", "...", ... */
	uint64_t u;    /* TK_INT */
	const char *s; /* TK_IDENT, TK_STR: in the arena */
	unsigned line;
};

struct alias {
	const char *name;
	struct ctf_type *type;
};

struct parser {
	struct ctf_meta *m;
	struct token *toks;
	size_t ntoks, pos;
	struct alias *aliases; /* typealias, typedef, and "struct X", "enum X", "variant X" */
	size_t naliases, capaliases;
	unsigned depth;
	char *err;
	size_t errlen;
	bool failed;
};

static void fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct parser *p, const char *fmt, ...)
{
	char what[192];
	va_list ap;

	if (p->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	p->failed = true;
	jank_errf(p->err, p->errlen, "metadata line %u: %s",
		  p->pos < p->ntoks ? p->toks[p->pos].line : 0, what);
}

static int push_token(struct parser *p, size_t *cap, struct token *t)
{
	if (p->ntoks + 1 >= MAX_TOKENS) {
		fail(p, "too many tokens");
		return -E2BIG;
	}
	if (p->ntoks + 1 >= *cap) {
		size_t n = *cap ? *cap * 2 : 4096;
		struct token *v = realloc(p->toks, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->toks = v;
		*cap = n;
	}
	p->toks[p->ntoks++] = *t;
	return 0;
}

/* A string literal's body (escapes \n \t \\ \" \' and others as the character). */
static const char *lex_string(struct parser *p, const char *s, const char *end, struct token *t)
{
	const char *close = s + 1;
	size_t n = 0;
	char *buf;

	while (close < end && *close != '"' && *close != '\n')
		close += *close == '\\' && close + 1 < end ? 2 : 1;
	buf = arena_alloc(p->m, (size_t)(close - s) + 1);
	if (!buf)
		return NULL;
	for (s++; s < end && *s != '"'; s++) {
		char c = *s;

		if (c == '\n') {
			return NULL;
		} else if (c == '\\' && s + 1 < end) {
			c = *++s;
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
		}
		buf[n++] = c;
	}
	if (s >= end)
		return NULL;
	t->kind = TK_STR;
	t->s = buf;
	return s + 1;
}

static const char *lex_number(const char *s, const char *end, struct token *t)
{
	uint64_t v = 0;
	unsigned base = 10;

	if (s + 1 < end && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	} else if (s[0] == '0' && s + 1 < end && isdigit((unsigned char)s[1])) {
		base = 8;
	}
	for (; s < end && isxdigit((unsigned char)*s); s++) {
		unsigned d = isdigit((unsigned char)*s)
				     ? (unsigned)(*s - '0')
				     : (unsigned)(tolower((unsigned char)*s) - 'a' + 10);

		if (d >= base || __builtin_mul_overflow(v, base, &v) ||
		    __builtin_add_overflow(v, d, &v))
			return NULL;
	}
	while (s < end && (*s == 'u' || *s == 'U' || *s == 'l' || *s == 'L'))
		s++;
	if (s < end && (isalnum((unsigned char)*s) || *s == '_'))
		return NULL;
	t->kind = TK_INT;
	t->u = v;
	return s;
}

static const char *skip_blank(const char *s, const char *end, unsigned *line)
{
	while (s < end) {
		if (*s == '\n') {
			(*line)++;
			s++;
		} else if (isspace((unsigned char)*s) || *s == '\0') {
			s++;
		} else if (s + 1 < end && s[0] == '/' && s[1] == '/') {
			while (s < end && *s != '\n')
				s++;
		} else if (s + 1 < end && s[0] == '/' && s[1] == '*') {
			for (s += 2; s + 1 < end && !(s[0] == '*' && s[1] == '/'); s++)
				*line += *s == '\n';
			s = s + 1 < end ? s + 2 : end;
		} else {
			break;
		}
	}
	return s;
}

static const char *lex_punct(const char *s, const char *end, struct token *t)
{
	static const char *const multi[] = { ":=", "...", "->" };

	for (size_t i = 0; i < sizeof(multi) / sizeof(multi[0]); i++) {
		size_t n = strlen(multi[i]);

		if ((size_t)(end - s) >= n && !memcmp(s, multi[i], n)) {
			memcpy(t->punct, multi[i], n + 1);
			t->kind = TK_PUNCT;
			return s + n;
		}
	}
	if (!strchr("{}()[];=:,.<>-+", *s))
		return NULL;
	t->punct[0] = *s;
	t->punct[1] = '\0';
	t->kind = TK_PUNCT;
	return s + 1;
}

static int tokenize(struct parser *p, const char *s, size_t len)
{
	const char *end = s + len;
	unsigned line = 1;
	size_t cap = 0;

	for (;;) {
		struct token t = { 0 };
		const char *next;

		s = skip_blank(s, end, &line);
		t.line = line;
		if (s >= end)
			break;
		if (isalpha((unsigned char)*s) || *s == '_') {
			for (next = s;
			     next < end && (isalnum((unsigned char)*next) || *next == '_'); next++)
				;
			t.kind = TK_IDENT;
			t.s = arena_strndup(p->m, s, (size_t)(next - s));
			if (!t.s)
				return -ENOMEM;
		} else if (isdigit((unsigned char)*s)) {
			next = lex_number(s, end, &t);
		} else if (*s == '"') {
			next = lex_string(p, s, end, &t);
		} else {
			next = lex_punct(s, end, &t);
		}
		if (!next) {
			p->pos = p->ntoks;
			jank_errf(p->err, p->errlen, "metadata line %u: cannot read byte 0x%02x",
				  line, (unsigned char)*s);
			p->failed = true;
			return -EINVAL;
		}
		s = next;
		if (push_token(p, &cap, &t) < 0)
			return p->failed ? -EINVAL : -ENOMEM;
	}
	{
		struct token t = { .kind = TK_END, .line = line };

		return push_token(p, &cap, &t);
	}
}

/* ---- Token helpers ---- */

static const struct token *peek(struct parser *p, size_t k)
{
	size_t i = p->pos + k;

	return i < p->ntoks ? &p->toks[i] : &p->toks[p->ntoks - 1];
}

static bool is_punct(const struct token *t, const char *s)
{
	return t->kind == TK_PUNCT && !strcmp(t->punct, s);
}

static bool is_ident(const struct token *t, const char *s)
{
	return t->kind == TK_IDENT && !strcmp(t->s, s);
}

static bool accept(struct parser *p, const char *punct)
{
	if (!is_punct(peek(p, 0), punct))
		return false;
	p->pos++;
	return true;
}

static bool expect(struct parser *p, const char *punct)
{
	if (accept(p, punct))
		return true;
	fail(p, "'%s' expected", punct);
	return false;
}

static const char *expect_ident(struct parser *p)
{
	const struct token *t = peek(p, 0);

	if (t->kind != TK_IDENT) {
		fail(p, "a name expected");
		return NULL;
	}
	p->pos++;
	return t->s;
}

/* A signed integer literal: [+-]N. */
static bool parse_int(struct parser *p, uint64_t *v, bool *neg)
{
	bool minus = false;

	if (accept(p, "-"))
		minus = true;
	else
		accept(p, "+");
	if (peek(p, 0)->kind != TK_INT) {
		fail(p, "an integer expected");
		return false;
	}
	*v = peek(p, 0)->u;
	p->pos++;
	if (minus && *v > (uint64_t)INT64_MAX + 1) {
		fail(p, "an integer out of range");
		return false;
	}
	if (minus)
		*v = (uint64_t)0 - *v;
	if (neg)
		*neg = minus;
	return true;
}

/* ---- Types ---- */

static struct ctf_type *new_type(struct parser *p, enum ctf_kind kind)
{
	struct ctf_type *t = arena_alloc(p->m, sizeof(*t));

	if (!t) {
		fail(p, "out of memory");
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
			fail(p, "out of memory");
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
	char *s = arena_alloc(p->m, na + nb + 2);

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

static struct ctf_type *parse_type_spec(struct parser *p);

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
		fail(p, "unknown byte order '%s'", v);
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
		fail(p, "true or false expected");
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
	fail(p, "unknown integer base");
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
		fail(p, "unknown encoding '%s'", v);
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
	fail(p, "map = clock.NAME.value expected");
	return false;
}

static bool parse_uint_attr(struct parser *p, uint64_t max, uint64_t *v)
{
	bool neg;

	if (!parse_int(p, v, &neg))
		return false;
	if (neg || *v > max) {
		fail(p, "a value out of range");
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
			fail(p, "an alignment must be a power of two");
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
		fail(p, "unknown attribute '%s'", key);
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
			fail(p, "a floating point number of %u bits", (unsigned)(exp + mant));
			return NULL;
		}
		t->size = (unsigned)(exp + mant);
	}
	if (t->size == 0) {
		fail(p, "an integer without a size");
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
			fail(p, "string { encoding = ...; } expected");
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
		fail(p, "an enumeration label expected");
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
		struct ctf_mapping *v = arena_alloc(p->m, n * sizeof(*v));

		if (!v || n > (1u << 20)) {
			fail(p, "too many enumeration labels");
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
				fail(p, "unknown enumeration '%s'", name);
			return known;
		}
		container = find_alias(p, "int");
		if (!container) {
			fail(p, "an enumeration without a container type");
			return NULL;
		}
	} else {
		container = parse_type_spec(p);
		if (!container)
			return NULL;
	}
	if (container->kind != CTF_INT) {
		fail(p, "an enumeration's container must be an integer");
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
			fail(p, "',' or '}' expected");
			return NULL;
		}
	}
	if (name && add_alias(p, joined(p, "enum", name), t) < 0)
		return NULL;
	return t;
}

static bool parse_declaration(struct parser *p, struct ctf_type *t);
static bool parse_typealias(struct parser *p);

/* The members of a struct or variant body, up to its '}'. */
static bool parse_members(struct parser *p, struct ctf_type *t)
{
	while (!accept(p, "}")) {
		if (p->failed)
			return false;
		if (is_ident(peek(p, 0), "typealias")) {
			p->pos++;
			if (!parse_typealias(p) || !expect(p, ";"))
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
			fail(p, "two members named '%s'", name);
			return false;
		}
	}
	if (t->nmembers == *cap) {
		size_t n = *cap ? *cap * 2 : 8;
		struct ctf_member *v = arena_alloc(p->m, n * sizeof(*v));

		if (!v || n > 65536) {
			fail(p, "too many members");
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
static const char *parse_path(struct parser *p)
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
		j = arena_alloc(p->m, na + nb + 2);
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
		tag = parse_path(p);
		if (!tag || !expect(p, ">"))
			return NULL;
	}
	if (!accept(p, "{")) {
		struct ctf_type *known = name ? find_alias(p, joined(p, prefix, name)) : NULL;

		if (!known) {
			fail(p, "unknown %s '%s'", prefix, name ? name : "");
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
			fail(p, "an alignment must be a power of two");
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
		fail(p, "unknown type '%s'",
		     peek(p, 0)->kind == TK_IDENT ? peek(p, 0)->s : "(not a name)");
		return NULL;
	}
	(void)best_name;
	p->pos += best_k;
	return best;
}

static struct ctf_type *parse_type_spec(struct parser *p)
{
	const struct token *t = peek(p, 0);
	struct ctf_type *r;

	if (++p->depth > MAX_DEPTH) {
		fail(p, "types nested too deep");
		return NULL;
	}
	if (is_ident(t, "const"))
		p->pos++, t = peek(p, 0);
	if (t->kind != TK_IDENT) {
		fail(p, "a type expected");
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
			fail(p, "too many array dimensions");
			return NULL;
		}
		sub[n].seq = peek(p, 0)->kind != TK_INT;
		if (sub[n].seq) {
			sub[n].ref = parse_path(p);
			if (!sub[n].ref)
				return NULL;
		} else {
			sub[n].len = peek(p, 0)->u;
			p->pos++;
			if (sub[n].len > MAX_ARRAY_LEN) {
				fail(p, "an array of %llu elements",
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
		return parse_typealias(p) && expect(p, ";");
	}
	type = parse_type_spec(p);
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
static bool parse_typealias(struct parser *p)
{
	const char *name = NULL;
	struct ctf_type *type = parse_type_spec(p);

	if (!type)
		return false;
	accept(p, ":=");
	while (peek(p, 0)->kind == TK_IDENT) {
		name = name ? joined(p, name, peek(p, 0)->s) : peek(p, 0)->s;
		p->pos++;
	}
	if (!name) {
		fail(p, "an alias name expected");
		return false;
	}
	if (is_punct(peek(p, 0), "[")) {
		type = parse_subscripts(p, type);
		if (!type)
			return false;
	}
	return add_alias(p, name, type) == 0;
}

/* ---- Blocks ---- */

/* A value on the right of `key =`: integer, string or name (TRUE, le, ...). */
struct value {
	uint8_t kind; /* TK_INT, TK_STR, TK_IDENT */
	uint64_t u;
	bool neg;
	const char *s;
};

static bool parse_value(struct parser *p, struct value *v)
{
	const struct token *t = peek(p, 0);

	memset(v, 0, sizeof(*v));
	if (t->kind == TK_STR || t->kind == TK_IDENT) {
		v->kind = t->kind;
		v->s = t->s;
		p->pos++;
		return true;
	}
	v->kind = TK_INT;
	return parse_int(p, &v->u, &v->neg);
}

/* key[.key...] as one string ("packet.header", "model.emf.uri"). */
static const char *parse_key(struct parser *p)
{
	return parse_path(p);
}

static bool parse_uuid(struct parser *p, const char *s, uint8_t out[16])
{
	size_t n = 0;

	for (; *s && n < 32; s++) {
		if (*s == '-')
			continue;
		if (!isxdigit((unsigned char)*s))
			break;
		out[n / 2] = (uint8_t)((out[n / 2] << 4) |
				       (isdigit((unsigned char)*s)
						? *s - '0'
						: tolower((unsigned char)*s) - 'a' + 10));
		n++;
	}
	if (n != 32 || *s) {
		fail(p, "a malformed UUID");
		return false;
	}
	return true;
}

static bool want_int(struct parser *p, const struct value *v, const char *key)
{
	if (v->kind == TK_INT)
		return true;
	fail(p, "'%s' must be an integer", key);
	return false;
}

static bool trace_attr(struct parser *p, const char *key, const struct value *v)
{
	struct ctf_meta *m = p->m;

	if (!strcmp(key, "major") || !strcmp(key, "minor")) {
		if (!want_int(p, v, key))
			return false;
		*(key[1] == 'a' ? &m->major : &m->minor) = v->u > 99 ? 99 : (unsigned)v->u;
	} else if (!strcmp(key, "uuid")) {
		if (v->kind != TK_STR || !parse_uuid(p, v->s, m->uuid))
			return false;
		m->has_uuid = true;
	} else if (!strcmp(key, "byte_order")) {
		if (v->kind != TK_IDENT)
			return false;
		m->bo = !strcmp(v->s, "be") || !strcmp(v->s, "network") ? CTF_BO_BE
			: !strcmp(v->s, "le")				? CTF_BO_LE
									: 0;
		if (!m->bo) {
			fail(p, "the trace's byte order must be le or be");
			return false;
		}
	} else {
		fail(p, "unknown trace attribute '%s'", key);
		return false;
	}
	return true;
}

static bool env_attr(struct parser *p, const char *key, const struct value *v)
{
	struct ctf_meta *m = p->m;
	struct ctf_env *e;

	if (m->nenv >= 4096) {
		fail(p, "too many environment entries");
		return false;
	}
	if ((m->nenv & (m->nenv - 1)) == 0) {
		struct ctf_env *n = arena_alloc(p->m, (m->nenv ? m->nenv * 2 : 1) * sizeof(*n));

		if (!n)
			return false;
		if (m->nenv)
			memcpy(n, m->env, m->nenv * sizeof(*n));
		m->env = n;
	}
	e = &m->env[m->nenv++];
	e->key = key;
	e->is_int = v->kind == TK_INT;
	e->i = (int64_t)v->u;
	e->s = v->kind == TK_INT ? NULL : v->s;
	return true;
}

static bool clock_attr(struct parser *p, struct ctf_clock *c, const char *key,
		       const struct value *v)
{
	if (!strcmp(key, "name")) {
		c->name = v->s;
		return v->kind != TK_INT;
	}
	if (!strcmp(key, "freq")) {
		if (!want_int(p, v, key) || v->neg || v->u == 0)
			return false;
		c->freq = v->u;
	} else if (!strcmp(key, "offset_s") || !strcmp(key, "offset")) {
		if (!want_int(p, v, key))
			return false;
		*(key[6] == '_' ? &c->offset_s : &c->offset) = (int64_t)v->u;
	} else if (strcmp(key, "uuid") && strcmp(key, "description") && strcmp(key, "precision") &&
		   strcmp(key, "absolute")) {
		fail(p, "unknown clock attribute '%s'", key);
		return false;
	}
	return true;
}

struct block {
	struct ctf_stream_decl *stream;
	struct ctf_event_decl *event;
	struct ctf_clock *clock;
	bool has_id, has_stream_id;
};

/* `key := TYPE;` in a trace, stream or event block. */
static bool block_type(struct parser *p, const char *scope, const char *key, struct block *b)
{
	struct ctf_type *t = parse_type_spec(p);

	if (!t)
		return false;
	if (t->kind != CTF_STRUCT) {
		fail(p, "%s.%s must be a structure", scope, key);
		return false;
	}
	if (!strcmp(scope, "trace") && !strcmp(key, "packet.header"))
		p->m->packet_header = t;
	else if (b->stream && !strcmp(key, "event.header"))
		b->stream->event_header = t;
	else if (b->stream && !strcmp(key, "event.context"))
		b->stream->event_context = t;
	else if (b->stream && !strcmp(key, "packet.context"))
		b->stream->packet_context = t;
	else if (b->event && !strcmp(key, "context"))
		b->event->context = t;
	else if (b->event && !strcmp(key, "fields"))
		b->event->fields = t;
	else {
		fail(p, "unknown scope %s.%s", scope, key);
		return false;
	}
	return true;
}

static bool block_attr(struct parser *p, const char *scope, const char *key, struct block *b)
{
	struct value v;

	if (!parse_value(p, &v))
		return false;
	if (!strcmp(scope, "trace"))
		return trace_attr(p, key, &v);
	if (!strcmp(scope, "env"))
		return env_attr(p, key, &v);
	if (b->clock)
		return clock_attr(p, b->clock, key, &v) || (fail(p, "bad clock %s", key), false);
	if (!strcmp(key, "id") && v.kind == TK_INT && !v.neg) {
		b->has_id = true;
		*(b->stream ? &b->stream->id : &b->event->id) = v.u;
	} else if (b->event && !strcmp(key, "stream_id") && v.kind == TK_INT && !v.neg) {
		b->has_stream_id = true;
		b->event->stream_id = v.u;
	} else if (b->event && !strcmp(key, "name") && v.kind != TK_INT) {
		b->event->name = v.s;
	} else if (b->event && (!strcmp(key, "loglevel") || !strcmp(key, "model.emf.uri"))) {
		/* not used */
	} else if (!strcmp(scope, "callsite")) {
		/* lttng-ust's callsites: not used */
	} else {
		fail(p, "unknown %s attribute '%s'", scope, key);
		return false;
	}
	return true;
}

static void *grow(struct parser *p, void *v, size_t n, size_t size)
{
	void *nv;

	if (n >= (1u << 20)) {
		fail(p, "too many declarations");
		return NULL;
	}
	if (n & (n - 1))
		return v;
	nv = arena_alloc(p->m, (n ? n * 2 : 1) * size);
	if (nv && n)
		memcpy(nv, v, n * size);
	if (!nv)
		fail(p, "out of memory");
	return nv;
}

/* trace|env|clock|stream|event|callsite { ... }; */
static bool parse_block(struct parser *p, const char *scope)
{
	struct ctf_meta *m = p->m;
	struct block b = { 0 };

	if (!strcmp(scope, "clock")) {
		if (!(m->clocks = grow(p, m->clocks, m->nclocks, sizeof(*m->clocks))))
			return false;
		b.clock = &m->clocks[m->nclocks++];
		memset(b.clock, 0, sizeof(*b.clock));
		b.clock->freq = 1000000000;
	} else if (!strcmp(scope, "stream")) {
		if (!(m->streams = grow(p, m->streams, m->nstreams, sizeof(*m->streams))))
			return false;
		b.stream = &m->streams[m->nstreams++];
		memset(b.stream, 0, sizeof(*b.stream));
	} else if (!strcmp(scope, "event")) {
		if (!(m->events = grow(p, m->events, m->nevents, sizeof(*m->events))))
			return false;
		b.event = &m->events[m->nevents++];
		memset(b.event, 0, sizeof(*b.event));
	}
	if (!expect(p, "{"))
		return false;
	while (!accept(p, "}")) {
		const char *key;

		if (is_ident(peek(p, 0), "typealias")) {
			p->pos++;
			if (!parse_typealias(p) || !expect(p, ";"))
				return false;
			continue;
		}
		key = parse_key(p);
		if (!key)
			return false;
		if (accept(p, ":=")) {
			if (!block_type(p, scope, key, &b))
				return false;
		} else if (!expect(p, "=") || !block_attr(p, scope, key, &b)) {
			return false;
		}
		if (!expect(p, ";"))
			return false;
	}
	if (b.event && !b.has_id && m->nevents > 1) {
		fail(p, "an event without an id");
		return false;
	}
	if (b.event && !b.event->name)
		b.event->name = "";
	return accept(p, ";") || true;
}

static bool parse_top(struct parser *p)
{
	while (!p->failed && peek(p, 0)->kind != TK_END) {
		const struct token *t = peek(p, 0);

		if (t->kind != TK_IDENT) {
			fail(p, "a declaration expected");
			break;
		}
		if (!strcmp(t->s, "trace") || !strcmp(t->s, "env") || !strcmp(t->s, "clock") ||
		    !strcmp(t->s, "stream") || !strcmp(t->s, "event") ||
		    !strcmp(t->s, "callsite")) {
			p->pos++;
			if (!parse_block(p, t->s))
				break;
		} else if (!strcmp(t->s, "typealias")) {
			p->pos++;
			if (!parse_typealias(p) || !expect(p, ";"))
				break;
		} else if (!strcmp(t->s, "typedef")) {
			p->pos++;
			if (!parse_typealias(p) || !expect(p, ";"))
				break;
		} else if (!strcmp(t->s, "struct") || !strcmp(t->s, "enum") ||
			   !strcmp(t->s, "variant")) {
			if (!parse_type_spec(p) || !expect(p, ";"))
				break;
		} else {
			fail(p, "unknown declaration '%s'", t->s);
		}
	}
	return !p->failed;
}

/* ---- After parsing: clocks and byte orders resolved, the whole checked ---- */

static bool resolve_type(struct parser *p, struct ctf_type *t, unsigned depth)
{
	if (!t || depth > MAX_DEPTH * 2) {
		fail(p, "types nested too deep");
		return false;
	}
	if (t->kind == CTF_INT && t->clock_name && t->clock < 0) {
		for (size_t i = 0; i < p->m->nclocks; i++)
			if (p->m->clocks[i].name && !strcmp(p->m->clocks[i].name, t->clock_name))
				t->clock = (int)i;
		if (t->clock < 0) {
			fail(p, "an integer maps to an unknown clock '%s'", t->clock_name);
			return false;
		}
	}
	if (t->kind == CTF_ENUM || t->kind == CTF_ARRAY || t->kind == CTF_SEQ)
		if (!resolve_type(p, t->elem, depth + 1))
			return false;
	for (size_t i = 0; i < t->nmembers; i++)
		if (!resolve_type(p, t->members[i].type, depth + 1))
			return false;
	return true;
}

static bool resolve_all(struct parser *p)
{
	struct ctf_meta *m = p->m;

	if (m->major && (m->major != 1 || m->minor != 8)) {
		fail(p, "CTF %u.%u: only CTF 1.8 is read natively", m->major, m->minor);
		return false;
	}
	if (!m->bo) {
		p->pos = p->ntoks - 1;
		fail(p, "the trace has no byte order");
		return false;
	}
	if (m->packet_header && !resolve_type(p, m->packet_header, 0))
		return false;
	for (size_t i = 0; i < m->nstreams; i++) {
		struct ctf_stream_decl *s = &m->streams[i];

		if ((s->event_header && !resolve_type(p, s->event_header, 0)) ||
		    (s->event_context && !resolve_type(p, s->event_context, 0)) ||
		    (s->packet_context && !resolve_type(p, s->packet_context, 0)))
			return false;
	}
	for (size_t i = 0; i < m->nevents; i++) {
		struct ctf_event_decl *e = &m->events[i];

		if ((e->context && !resolve_type(p, e->context, 0)) ||
		    (e->fields && !resolve_type(p, e->fields, 0)))
			return false;
	}
	return true;
}

struct ctf_meta *ctf_meta_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct parser p = { .err = err, .errlen = errlen };
	bool ok;

	if (len > CTF_META_MAX_BYTES) {
		jank_errf(err, errlen, "metadata of %zu bytes: too large", len);
		return NULL;
	}
	p.m = calloc(1, sizeof(*p.m));
	if (!p.m) {
		jank_errf(err, errlen, "out of memory");
		return NULL;
	}
	ok = tokenize(&p, text, len) == 0 && parse_top(&p) && resolve_all(&p);
	if (!ok && !p.failed)
		jank_errf(err, errlen, "out of memory");
	free(p.toks);
	free(p.aliases);
	if (!ok) {
		ctf_meta_free(p.m);
		return NULL;
	}
	return p.m;
}

void ctf_meta_free(struct ctf_meta *m)
{
	if (!m)
		return;
	while (m->arena) {
		struct ctf_arena *next = m->arena->next;

		free(m->arena);
		m->arena = next;
	}
	free(m);
}

const struct ctf_env *ctf_meta_env(const struct ctf_meta *m, const char *key)
{
	for (size_t i = m->nenv; i-- > 0;)
		if (!strcmp(m->env[i].key, key))
			return &m->env[i];
	return NULL;
}
