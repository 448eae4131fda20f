/* SPDX-License-Identifier: MIT */
/*
 * io/ctf-plan.c's fast paths against its reference, the tree interpreter
 * (ctf_plan_run_tree()), on bytes made here: LTTng's event headers and an
 * event's context and payload (tests/fuzz/ctf-lttng.h's metadata), with
 * the packet's content ending at every bit of them, so that each read is
 * taken both by its fast path (enough content left to check once) and by
 * the general one, and every truncation must fail as the reference does.
 * Each run's content is a block of its own size: a read past its end shows
 * under valgrind or ASan.
 *
 *   compact     the compact header (a 5-bit tag and a 27-bit time in one
 *               word; the extended form for the tag 31): ids, times, the
 *               27-bit time's wrap, truncations in both forms, starts not
 *               on a byte
 *   large       the large header (a 16-bit tag, a 32-bit time; 65535: the
 *               extended form), the same
 *   body        a context of integers and a text array, a payload of a
 *               string and an integer: strings of every length, ending in
 *               their first eight bytes or after, or past the content
 *   skip        a payload asked nothing of: one skip of a fixed size
 *               (ctf_plan_skip()), where the tree goes, or failing
 *   known       a few values checked by hand (not only against the tree)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ctf-lttng.h"
#include "ctf-meta.h"
#include "ctf-plan.h"

#define BUF 64

struct run {
	struct jank_value out[CTF_NSLOTS];
	uint64_t arrays[CTF_ARRAY_BUFS][CTF_ARRAY_MAX];
	char scratch[BUF + CTF_NSLOTS + 1];
	struct ctf_cursor c;
	int r;
};

static struct ctf_meta *meta;

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void start(struct run *u, const uint8_t *buf, uint64_t at, uint64_t end, uint64_t clock)
{
	struct ctf_cursor *c = &u->c;

	memset(u, 0, sizeof(*u));
	c->buf = buf;
	c->at = at;
	c->end = end;
	c->clock = clock;
	c->out = u->out;
	c->arrays = u->arrays;
	c->scratch = u->scratch;
	c->scratch_cap = sizeof(u->scratch);
	c->steps = end + 4096;
}

static void same_value(const struct jank_value *a, const struct jank_value *b)
{
	assert_int_equal(a->type, b->type);
	switch (a->type) {
	case JANK_VALUE_INT:
	case JANK_VALUE_UINT:
		assert_int_equal(a->u, b->u);
		break;
	case JANK_VALUE_STR:
		assert_string_equal(a->s, b->s);
		break;
	default:
		break;
	}
}

/*
 * Run the plan (its program and its fast paths) and the tree from the same
 * state: they agree. The content is copied to a block of its own size, so
 * that a read past its end is one under valgrind or ASan.
 */
static int agree(const struct ctf_plan *p, const uint8_t *buf, uint64_t at, uint64_t end,
		 uint64_t clock, struct run *prog)
{
	static struct run tree;
	static uint8_t *own; /* the last run's: its values point into it */
	size_t n = (size_t)((end + 7) / 8);

	free(own);
	own = malloc(n ? n : 1);
	assert_non_null(own);
	memcpy(own, buf, n);
	start(prog, own, at, end, clock);
	start(&tree, own, at, end, clock);
	prog->r = ctf_plan_run(p, &prog->c);
	tree.r = ctf_plan_run_tree(p, &tree.c);
	if (prog->r != tree.r)
		fail_msg("at %llu, end %llu: the plan gives %d, the tree %d (%s)",
			 (unsigned long long)at, (unsigned long long)end, prog->r, tree.r,
			 prog->r < 0 ? prog->c.why : tree.c.why);
	if (prog->r < 0) {
		assert_non_null(prog->c.why);
		return prog->r;
	}
	assert_int_equal(prog->c.at, tree.c.at);
	assert_true(prog->c.at <= end);
	assert_int_equal(prog->c.clock, tree.c.clock);
	assert_int_equal(prog->c.roles_set, tree.c.roles_set);
	for (int i = 0; i < CTF_NROLES; i++)
		if (prog->c.roles_set & (1u << i))
			assert_int_equal(prog->c.roles[i], tree.c.roles[i]);
	for (int i = 0; i < CTF_NSLOTS; i++)
		same_value(&prog->out[i], &tree.out[i]);
	return 0;
}

static struct ctf_plan *compile(const struct ctf_type *scope, enum ctf_scope_kind kind,
				const struct ctf_want *want)
{
	struct ctf_plan *p = NULL;
	char err[256] = "";

	if (ctf_plan_compile(meta, scope, kind, want, &p, err, sizeof(err)) < 0)
		fail_msg("cannot compile: %s", err);
	return p;
}

static void put_le(uint8_t *b, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

/*
 * An event header of stream `sid` (tag of tag_bits, short time of
 * ts_bits), its first byte at byte `off`: every tag form, time and content
 * end agree with the tree.
 */
static void headers(uint64_t sid, unsigned tag_bits, unsigned ts_bits)
{
	struct ctf_want want;
	struct ctf_plan *p;
	uint64_t top = (UINT64_C(1) << tag_bits) - 1;
	const uint64_t tags[] = { 0, 1, top - 1, top };
	static struct run prog;
	unsigned fast = 0, slow = 0, failed = 0;

	memset(&want, 0, sizeof(want));
	memset(want.buf, CTF_SLOT_NONE, sizeof(want.buf));
	assert_true(sid < meta->nstreams);
	p = compile(meta->streams[sid].event_header, CTF_SCOPE_EVENT_HEADER, &want);
	for (size_t t = 0; t < sizeof(tags) / sizeof(tags[0]); t++) {
		for (int k = 0; k < 40; k++) {
			uint8_t buf[BUF];
			unsigned off = (unsigned)(k % 3), bit = (unsigned)(k % 11 == 5 ? 3 : 0);
			uint64_t w, ts = next_rand() & ((UINT64_C(1) << ts_bits) - 1);
			uint64_t clock = next_rand() >> (k % 2 ? 1 : 30);

			for (size_t i = 0; i < BUF; i++)
				buf[i] = (uint8_t)next_rand();
			/* The tag and the short time in one word (the compact header's bits). */
			if (tag_bits == 5) {
				w = tags[t] | ts << 5;
				put_le(buf + off, w, 4);
			} else {
				put_le(buf + off, tags[t], 2);
				put_le(buf + off + 2, ts, 4);
			}
			/* Every content end, from before the header to past the fast path's. */
			for (uint64_t end = 8 * off; end <= 8 * (off + 24); end++) {
				uint64_t at = 8 * off - (bit && off ? bit : 0);

				if (agree(p, buf, at, end, clock, &prog) < 0) {
					failed++;
					continue;
				}
				if (end - 8 * off >= 128)
					fast++;
				else
					slow++;
				if (tags[t] != top) {
					assert_int_equal(prog.c.roles[CTF_ROLE_EVENT_ID], tags[t]);
					assert_int_equal(
						prog.c.clock & ((UINT64_C(1) << ts_bits) - 1), ts);
					assert_true(prog.c.clock >= clock);
				}
			}
		}
	}
	/* Both paths taken, and truncations failed. */
	assert_true(fast > 0 && slow > 0 && failed > 0);
	ctf_plan_free(p);
}

static void test_compact(void **state)
{
	(void)state;
	headers(0, 5, 27);
}

static void test_large(void **state)
{
	(void)state;
	headers(1, 16, 32);
}

static const struct ctf_event_decl *event_named(const char *name)
{
	for (size_t i = 0; i < meta->nevents; i++)
		if (!strcmp(meta->events[i].name, name))
			return &meta->events[i];
	fail_msg("no event %s", name);
	return NULL;
}

/* Stream 1's context (vpid, vtid, procname[17]), jank:action_end's payload (a string, an id). */
static void test_body(void **state)
{
	const struct ctf_event_decl *e = event_named("jank:action_end");
	struct ctf_want wc, wp;
	const struct ctf_plan *seq[3];
	struct ctf_plan *pc, *pp;
	static struct run prog;
	unsigned ok = 0, failed = 0;

	(void)state;
	memset(&wc, 0, sizeof(wc));
	memset(&wp, 0, sizeof(wp));
	memset(wc.buf, CTF_SLOT_NONE, sizeof(wc.buf));
	memset(wp.buf, CTF_SLOT_NONE, sizeof(wp.buf));
	wc.names[CTF_SLOT_PID] = "vpid";
	wc.names[CTF_SLOT_TID] = "vtid";
	wc.names[CTF_SLOT_COMM] = "procname";
	wp.names[0] = "name";
	wp.names[1] = "id";
	pc = compile(meta->streams[1].event_context, CTF_SCOPE_OTHER, &wc);
	pp = compile(e->fields, CTF_SCOPE_OTHER, &wp);
	assert_true(ctf_plan_has_prog(pc) && ctf_plan_has_prog(pp));
	seq[0] = pc;
	seq[1] = pp;
	seq[2] = NULL;
	for (unsigned len = 0; len <= 20; len++) {
		uint8_t buf[BUF];
		size_t n = 0;

		for (size_t i = 0; i < BUF; i++)
			buf[i] = (uint8_t)('a' + next_rand() % 26);
		put_le(buf, 4242, 4);
		put_le(buf + 4, (uint64_t)-7, 4);
		memcpy(buf + 8, "procname-of-17\0\0", 17);
		n = 25;
		buf[n + len] = '\0'; /* the name: len letters */
		put_le(buf + n + len + 1, 0 - (uint64_t)len, 8);
		for (uint64_t end = 0; end <= 8 * (n + len + 1 + 8 + 16) && end <= 8 * BUF; end++) {
			struct run both;
			uint64_t at = 0;
			int r;

			/* Each plan alone agrees with its tree... */
			if (agree(pc, buf, 0, end, 0, &prog) == 0 &&
			    agree(pp, buf, prog.c.at, end, 0, &prog) == 0) {
				at = prog.c.at;
				ok++;
			} else {
				failed++;
			}
			/* ...and the two as one program (ctf_plan_run_seq0()), as in turn. */
			start(&both, buf, 0, end, 0);
			r = ctf_plan_run_seq0(seq, &both.c);
			assert_int_equal(r < 0, at == 0);
			if (r < 0)
				continue;
			assert_int_equal(both.c.at, at);
			assert_int_equal(both.out[CTF_SLOT_PID].i, 4242);
			assert_int_equal(both.out[CTF_SLOT_TID].i, -7);
			assert_string_equal(both.out[CTF_SLOT_COMM].s, "procname-of-17");
			assert_int_equal(both.out[0].type, JANK_VALUE_STR);
			assert_int_equal(strlen(both.out[0].s), len);
			assert_int_equal(both.out[1].i, -(int64_t)len);
			assert_int_equal(at, 8 * (n + len + 1 + 8));
		}
	}
	assert_true(ok > 0 && failed > 0);
	ctf_plan_free(pc);
	ctf_plan_free(pp);
}

/*
 * A payload the engine asks nothing of (sched_wakeup's: a text array and
 * three integers) is one skip of a fixed size, done by the decoder inline
 * (ctf_plan_skip()): it goes where the tree goes, and fails (nothing done)
 * where the tree fails. Asked a field, it is no longer one.
 */
static void test_skip(void **state)
{
	const struct ctf_event_decl *e = event_named("sched_wakeup");
	struct ctf_want want;
	struct ctf_plan *p, *q;
	uint8_t buf[BUF];
	static struct run prog;
	uint32_t align = 0;
	uint64_t bits = 0;
	unsigned fits = 0, short_ = 0;

	(void)state;
	memset(&want, 0, sizeof(want));
	memset(want.buf, CTF_SLOT_NONE, sizeof(want.buf));
	p = compile(e->fields, CTF_SCOPE_OTHER, &want);
	assert_true(ctf_plan_skip_only(p, &align, &bits));
	assert_int_equal(align, 8);
	assert_int_equal(bits, 8 * (16 + 4 + 4 + 4));
	for (size_t i = 0; i < BUF; i++)
		buf[i] = (uint8_t)next_rand();
	for (uint64_t at = 0; at <= 12; at++) {
		for (uint64_t end = at; end <= 8 * BUF; end++) {
			struct run u;
			int tree = agree(p, buf, at, end, 0, &prog);

			start(&u, buf, at, end, 0);
			if (ctf_plan_skip(&u.c, align, bits) < 0) {
				assert_true(tree < 0);
				assert_int_equal(u.c.at, at);
				short_++;
				continue;
			}
			assert_int_equal(tree, 0);
			assert_int_equal(u.c.at, prog.c.at);
			fits++;
		}
	}
	assert_true(fits > 0 && short_ > 0);
	want.names[0] = "tid";
	q = compile(e->fields, CTF_SCOPE_OTHER, &want);
	assert_false(ctf_plan_skip_only(q, &align, &bits));
	ctf_plan_free(p);
	ctf_plan_free(q);
}

/* By hand: a compact header's short and extended forms, and a time that wraps. */
static void test_known(void **state)
{
	struct ctf_want want;
	struct ctf_plan *p;
	uint8_t buf[BUF];
	struct run u;

	(void)state;
	memset(&want, 0, sizeof(want));
	memset(want.buf, CTF_SLOT_NONE, sizeof(want.buf));
	p = compile(meta->streams[0].event_header, CTF_SCOPE_EVENT_HEADER, &want);
	memset(buf, 0, sizeof(buf));
	/* id 3, time 0x10 (below the clock's low bits 0x20: wrapped once) */
	put_le(buf, 3 | 0x10 << 5, 4);
	start(&u, buf, 0, 8 * BUF, (UINT64_C(5) << 27) | 0x20);
	assert_int_equal(ctf_plan_run(p, &u.c), 0);
	assert_int_equal(u.c.roles[CTF_ROLE_EVENT_ID], 3);
	assert_int_equal(u.c.clock, (UINT64_C(6) << 27) | 0x10);
	assert_int_equal(u.c.at, 32);
	/* extended: tag 31, then at byte 1 the id 1180 and the time */
	put_le(buf, 31, 1);
	put_le(buf + 1, 1180, 4);
	put_le(buf + 5, UINT64_C(0x123456789abcdef0), 8);
	start(&u, buf, 0, 8 * BUF, 1);
	assert_int_equal(ctf_plan_run(p, &u.c), 0);
	assert_int_equal(u.c.roles[CTF_ROLE_EVENT_ID], 1180);
	assert_int_equal(u.c.clock, UINT64_C(0x123456789abcdef0));
	assert_int_equal(u.c.at, 8 * 13);
	/* the same, its content ending one byte short: fails */
	start(&u, buf, 0, 8 * 12, 1);
	assert_true(ctf_plan_run(p, &u.c) < 0);
	assert_non_null(u.c.why);
	ctf_plan_free(p);
}

static int setup(void **state)
{
	char err[256];

	(void)state;
	meta = ctf_meta_parse(ctf_lttng_metadata, sizeof(ctf_lttng_metadata) - 1, err, sizeof(err));
	if (!meta)
		fprintf(stderr, "cannot parse the metadata: %s\n", err);
	return meta ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	ctf_meta_free(meta);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compact), cmocka_unit_test(test_large),
		cmocka_unit_test(test_body),	cmocka_unit_test(test_skip),
		cmocka_unit_test(test_known),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
