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
#include "ctf-metadata-int.h"

/* ---- Arena ---- */

struct ctf_arena {
	struct ctf_arena *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

void *ctf_meta_arena_alloc(struct ctf_meta *m, size_t n)
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

char *ctf_meta_arena_strndup(struct ctf_meta *m, const char *s, size_t n)
{
	char *p = ctf_meta_arena_alloc(m, n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
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
	return ctf_meta_parse_path(p);
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
		ctf_meta_fail(p, "a malformed UUID");
		return false;
	}
	return true;
}

static bool want_int(struct parser *p, const struct value *v, const char *key)
{
	if (v->kind == TK_INT)
		return true;
	ctf_meta_fail(p, "'%s' must be an integer", key);
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
			ctf_meta_fail(p, "the trace's byte order must be le or be");
			return false;
		}
	} else {
		ctf_meta_fail(p, "unknown trace attribute '%s'", key);
		return false;
	}
	return true;
}

static bool env_attr(struct parser *p, const char *key, const struct value *v)
{
	struct ctf_meta *m = p->m;
	struct ctf_env *e;

	if (m->nenv >= 4096) {
		ctf_meta_fail(p, "too many environment entries");
		return false;
	}
	if ((m->nenv & (m->nenv - 1)) == 0) {
		struct ctf_env *n =
			ctf_meta_arena_alloc(p->m, (m->nenv ? m->nenv * 2 : 1) * sizeof(*n));

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
		ctf_meta_fail(p, "unknown clock attribute '%s'", key);
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
	struct ctf_type *t = ctf_meta_parse_type_spec(p);

	if (!t)
		return false;
	if (t->kind != CTF_STRUCT) {
		ctf_meta_fail(p, "%s.%s must be a structure", scope, key);
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
		ctf_meta_fail(p, "unknown scope %s.%s", scope, key);
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
		return clock_attr(p, b->clock, key, &v) ||
		       (ctf_meta_fail(p, "bad clock %s", key), false);
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
		ctf_meta_fail(p, "unknown %s attribute '%s'", scope, key);
		return false;
	}
	return true;
}

static void *grow(struct parser *p, void *v, size_t n, size_t size)
{
	void *nv;

	if (n >= (1u << 20)) {
		ctf_meta_fail(p, "too many declarations");
		return NULL;
	}
	if (n & (n - 1))
		return v;
	nv = ctf_meta_arena_alloc(p->m, (n ? n * 2 : 1) * size);
	if (nv && n)
		memcpy(nv, v, n * size);
	if (!nv)
		ctf_meta_fail(p, "out of memory");
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
			if (!ctf_meta_parse_typealias(p) || !expect(p, ";"))
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
		ctf_meta_fail(p, "an event without an id");
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
			ctf_meta_fail(p, "a declaration expected");
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
			if (!ctf_meta_parse_typealias(p) || !expect(p, ";"))
				break;
		} else if (!strcmp(t->s, "typedef")) {
			p->pos++;
			if (!ctf_meta_parse_typealias(p) || !expect(p, ";"))
				break;
		} else if (!strcmp(t->s, "struct") || !strcmp(t->s, "enum") ||
			   !strcmp(t->s, "variant")) {
			if (!ctf_meta_parse_type_spec(p) || !expect(p, ";"))
				break;
		} else {
			ctf_meta_fail(p, "unknown declaration '%s'", t->s);
		}
	}
	return !p->failed;
}

/* ---- After parsing: clocks and byte orders resolved, the whole checked ---- */

static bool resolve_type(struct parser *p, struct ctf_type *t, unsigned depth)
{
	if (!t || depth > MAX_DEPTH * 2) {
		ctf_meta_fail(p, "types nested too deep");
		return false;
	}
	if (t->kind == CTF_INT && t->clock_name && t->clock < 0) {
		for (size_t i = 0; i < p->m->nclocks; i++)
			if (p->m->clocks[i].name && !strcmp(p->m->clocks[i].name, t->clock_name))
				t->clock = (int)i;
		if (t->clock < 0) {
			ctf_meta_fail(p, "an integer maps to an unknown clock '%s'", t->clock_name);
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
		ctf_meta_fail(p, "CTF %u.%u: only CTF 1.8 is read natively", m->major, m->minor);
		return false;
	}
	if (!m->bo) {
		p->pos = p->ntoks - 1;
		ctf_meta_fail(p, "the trace has no byte order");
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
	ok = ctf_meta_tokenize(&p, text, len) == 0 && parse_top(&p) && resolve_all(&p);
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
