/* SPDX-License-Identifier: MIT */
/*
 * Inside the TSDL parser: its state and what its files (ctf-metadata.c,
 * ctf-meta-lex.c, ctf-meta-types.c) share. Not for use outside them.
 */
#ifndef JANK_CTF_METADATA_INT_H
#define JANK_CTF_METADATA_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "ctf-meta.h"
#include "errbuf.h"

#define MAX_DEPTH     32
#define MAX_TOKENS    (8u << 20)
#define MAX_ARRAY_LEN (1u << 24)
#define LOOKAHEAD     4

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

/* ctf-meta-lex.c */
int ctf_meta_tokenize(struct parser *p, const char *s, size_t len);
void ctf_meta_fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The token helpers of the recursive descent, in every file of the parser
 * (static inline: short, on its hot loop, and their names stay out of the
 * library's symbols).
 */

static inline const struct token *peek(struct parser *p, size_t k)
{
	size_t i = p->pos + k;

	return i < p->ntoks ? &p->toks[i] : &p->toks[p->ntoks - 1];
}

static inline bool is_punct(const struct token *t, const char *s)
{
	return t->kind == TK_PUNCT && !strcmp(t->punct, s);
}

static inline bool is_ident(const struct token *t, const char *s)
{
	return t->kind == TK_IDENT && !strcmp(t->s, s);
}

static inline bool accept(struct parser *p, const char *punct)
{
	if (!is_punct(peek(p, 0), punct))
		return false;
	p->pos++;
	return true;
}

static inline bool expect(struct parser *p, const char *punct)
{
	if (accept(p, punct))
		return true;
	ctf_meta_fail(p, "'%s' expected", punct);
	return false;
}

static inline const char *expect_ident(struct parser *p)
{
	const struct token *t = peek(p, 0);

	if (t->kind != TK_IDENT) {
		ctf_meta_fail(p, "a name expected");
		return NULL;
	}
	p->pos++;
	return t->s;
}

/* A signed integer literal: [+-]N. */
static inline bool parse_int(struct parser *p, uint64_t *v, bool *neg)
{
	bool minus = false;

	if (accept(p, "-"))
		minus = true;
	else
		accept(p, "+");
	if (peek(p, 0)->kind != TK_INT) {
		ctf_meta_fail(p, "an integer expected");
		return false;
	}
	*v = peek(p, 0)->u;
	p->pos++;
	if (minus && *v > (uint64_t)INT64_MAX + 1) {
		ctf_meta_fail(p, "an integer out of range");
		return false;
	}
	if (minus)
		*v = (uint64_t)0 - *v;
	if (neg)
		*neg = minus;
	return true;
}

/* ctf-metadata.c */
void *ctf_meta_arena_alloc(struct ctf_meta *m, size_t n);
char *ctf_meta_arena_strndup(struct ctf_meta *m, const char *s, size_t n);

/* ctf-meta-types.c */
struct ctf_type *ctf_meta_parse_type_spec(struct parser *p);
bool ctf_meta_parse_typealias(struct parser *p);
const char *ctf_meta_parse_path(struct parser *p);

#endif
