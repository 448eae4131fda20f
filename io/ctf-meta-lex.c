/* SPDX-License-Identifier: MIT */
/*
 * The TSDL parser's tokens (ctf-metadata.c): the text cut into tokens, with
 * the line each is on, and the helpers the recursive descent reads them
 * with. The text is untrusted: the count of tokens and the length of each
 * are bounded.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctf-metadata-int.h"

void ctf_meta_fail(struct parser *p, const char *fmt, ...)
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
		ctf_meta_fail(p, "too many tokens");
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
	buf = ctf_meta_arena_alloc(p->m, (size_t)(close - s) + 1);
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

int ctf_meta_tokenize(struct parser *p, const char *s, size_t len)
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
			t.s = ctf_meta_arena_strndup(p->m, s, (size_t)(next - s));
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
