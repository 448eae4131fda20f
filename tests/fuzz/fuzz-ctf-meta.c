/* SPDX-License-Identifier: MIT */
/*
 * fuzz-ctf-meta: the native decoder's TSDL parser and plan compiler
 * (io/ctf-metadata.c, io/ctf-meta-file.c, io/ctf-plan.c) on arbitrary bytes.
 *
 * The input is metadata text, or, when it begins with LTTng's packet magic,
 * a packetized metadata stream. What parses is compiled, scope by scope,
 * asking for every top-level member of each scope (as the engine may), and
 * each plan is run over the input's own bytes as if they were a packet:
 * it must stay inside them whatever they say. Checked: errors are one
 * line; a plan run either fails with a reason or ends inside the content;
 * the plan's linear program (ctf_plan_run) and the reference tree
 * interpreter (ctf_plan_run_tree) agree on the outcome, the bits read, the
 * clock, the roles and every value given.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "ctf-meta.h"
#include "ctf-plan.h"
#include "fuzz-check.h"

struct run {
	struct jank_value out[CTF_NSLOTS];
	uint64_t arrays[CTF_ARRAY_BUFS][CTF_ARRAY_MAX];
	char scratch[4096 + CTF_NSLOTS + 1];
	struct ctf_cursor c;
	int r;
};

static void run_one(const struct ctf_plan *p, const uint8_t *data, size_t n, struct run *u,
		    int (*run)(const struct ctf_plan *, struct ctf_cursor *))
{
	struct ctf_cursor *c = &u->c;

	memset(u->out, 0, sizeof(u->out));
	memset(c, 0, sizeof(*c));
	c->buf = data;
	c->end = (uint64_t)(n < 4096 ? n : 4096) * 8;
	c->out = u->out;
	c->arrays = u->arrays;
	c->scratch = u->scratch;
	c->scratch_cap = sizeof(u->scratch);
	c->steps = c->end + 4096;
	u->r = run(p, c);
	if (u->r < 0)
		FUZZ_ASSERT(c->why && c->why[0]);
	else
		FUZZ_ASSERT(c->at <= c->end);
}

static bool same_value(const struct jank_value *a, const struct jank_value *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case JANK_VALUE_INT:
	case JANK_VALUE_UINT:
		return a->u == b->u;
	case JANK_VALUE_STR:
		return !strcmp(a->s, b->s);
	case JANK_VALUE_ARRAY:
		return a->a.n == b->a.n && !memcmp(a->a.v, b->a.v, a->a.n * sizeof(a->a.v[0]));
	default:
		return true;
	}
}

static void run_plan(const struct ctf_plan *p, const uint8_t *data, size_t n)
{
	static struct run prog, tree;

	run_one(p, data, n, &prog, ctf_plan_run);
	run_one(p, data, n, &tree, ctf_plan_run_tree);
	/* The tree counts a step per field against hostile nesting; the program's blocks do not. */
	if (tree.r < 0 && !strncmp(tree.c.why, "too many", 8))
		return;
	FUZZ_ASSERT(prog.r == tree.r);
	if (prog.r < 0)
		return;
	FUZZ_ASSERT(prog.c.at == tree.c.at && prog.c.clock == tree.c.clock);
	FUZZ_ASSERT(prog.c.roles_set == tree.c.roles_set);
	for (unsigned i = 0; i < CTF_NROLES; i++)
		FUZZ_ASSERT(!(prog.c.roles_set & (1u << i)) || prog.c.roles[i] == tree.c.roles[i]);
	for (unsigned i = 0; i < CTF_NSLOTS; i++)
		FUZZ_ASSERT(same_value(&prog.out[i], &tree.out[i]));
}

/*
 * Compile a scope asking for its first members (or for nothing, as the
 * decoder compiles event headers: then LTTng's headers take their own
 * reader), and run it.
 */
static void compile_scope_as(const struct ctf_meta *m, const struct ctf_type *scope,
			     enum ctf_scope_kind kind, bool ask, const uint8_t *data, size_t n)
{
	struct ctf_want want;
	struct ctf_plan *p;
	char err[256];

	memset(&want, 0, sizeof(want));
	memset(want.buf, CTF_SLOT_NONE, sizeof(want.buf));
	for (size_t i = 0; ask && scope && scope->kind == CTF_STRUCT && i < scope->nmembers &&
			   i < JANK_EVENT_MAX_FIELDS;
	     i++) {
		want.names[i] = ctf_field_name(scope->members[i].name);
		want.buf[i] = (uint8_t)(i % CTF_ARRAY_BUFS);
	}
	err[0] = '\0';
	if (ctf_plan_compile(m, scope, kind, &want, &p, err, sizeof(err)) < 0) {
		FUZZ_ASSERT(err[0] && !strchr(err, '\n'));
		return;
	}
	run_plan(p, data, n);
	ctf_plan_free(p);
}

static void compile_scope(const struct ctf_meta *m, const struct ctf_type *scope,
			  enum ctf_scope_kind kind, const uint8_t *data, size_t n)
{
	compile_scope_as(m, scope, kind, true, data, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct ctf_meta *m;
	char err[512], *text = NULL;
	size_t len = 0;

	err[0] = '\0';
	if (ctf_meta_unpack(data, n, &text, &len, err, sizeof(err)) < 0) {
		FUZZ_ASSERT(err[0] || n == 0 || !text);
		text = malloc(n + 1);
		if (!text)
			return 0;
		memcpy(text, data, n);
		len = n;
	}
	err[0] = '\0';
	m = ctf_meta_parse(text, len, err, sizeof(err));
	free(text);
	if (!m) {
		FUZZ_ASSERT(err[0] && !strchr(err, '\n'));
		return 0;
	}
	compile_scope(m, m->packet_header, CTF_SCOPE_PACKET_HEADER, data, n);
	for (size_t i = 0; i < m->nstreams && i < 8; i++) {
		compile_scope(m, m->streams[i].packet_context, CTF_SCOPE_PACKET_CONTEXT, data, n);
		compile_scope(m, m->streams[i].event_header, CTF_SCOPE_EVENT_HEADER, data, n);
		compile_scope_as(m, m->streams[i].event_header, CTF_SCOPE_EVENT_HEADER, false, data,
				 n);
		compile_scope(m, m->streams[i].event_context, CTF_SCOPE_OTHER, data, n);
	}
	for (size_t i = 0; i < m->nevents && i < 64; i++) {
		compile_scope(m, m->events[i].context, CTF_SCOPE_OTHER, data, n);
		compile_scope(m, m->events[i].fields, CTF_SCOPE_OTHER, data, n);
	}
	ctf_meta_free(m);
	return 0;
}
