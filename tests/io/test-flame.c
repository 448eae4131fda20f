/* SPDX-License-Identifier: MIT */
/*
 * io/flame.c: folded stacks (exact, and through a strict parser of the
 * format flamegraph.pl reads), the node cap, the SVGs (well-formed, escaped,
 * clipped labels) and the differential's colours; a critical path as flame
 * input (io/flame-path.c).
 *
 * No program that reads folded stacks is packaged where jank is built
 * (Debian 12 has neither flamegraph.pl nor inferno, and speedscope's npm
 * package is a web application whose importer runs only in a browser), so
 * the format is checked here by parse_folded(): stricter than the readers,
 * which split a line at its last space and the stack at ';'.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "flame-path.h"
#include "flame.h"
#include "state.h"

#define FR(...)	 ((const char *const[]){ __VA_ARGS__ })
#define NFR(...) (sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *))
#define ADD(f, leaf, ns, ...)                                                                      \
	assert_int_equal(jank_flame_add((f), FR(__VA_ARGS__), NFR(__VA_ARGS__), (leaf), (ns)), 0)

static char *folded(struct jank_flame *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	assert_int_equal(jank_flame_write_folded(f, out), 0);
	assert_int_equal(fclose(out), 0);
	return buf;
}

static char *svg(struct jank_flame *f, struct jank_flame *normal, const char *title)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	if (normal)
		assert_int_equal(jank_flame_write_diff_svg(f, normal, out, title), 0);
	else
		assert_int_equal(jank_flame_write_svg(f, out, title), 0);
	assert_int_equal(fclose(out), 0);
	return buf;
}

static void check_folded(struct jank_flame *f, const char *want)
{
	char *got = folded(f);

	assert_string_equal(got, want);
	free(got);
}

/* ---- A strict reader of folded stacks ---- */

static size_t utf8_ok(const unsigned char *s)
{
	size_t n = s[0] < 0x80			  ? 1
		   : s[0] >= 0xc2 && s[0] <= 0xdf ? 2
		   : s[0] >= 0xe0 && s[0] <= 0xef ? 3
		   : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4
						  : 0;

	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* Compares two stacks frame by frame (each bytewise): <0, 0, >0. */
static int stack_cmp(const char *a, size_t al, const char *b, size_t bl)
{
	size_t i = 0, j = 0;

	for (;;) {
		size_t ea = i, eb = j;
		int c;

		if (i >= al || j >= bl)
			return (i < al) - (j < bl);
		while (ea < al && a[ea] != ';')
			ea++;
		while (eb < bl && b[eb] != ';')
			eb++;
		c = memcmp(a + i, b + j, ea - i < eb - j ? ea - i : eb - j);
		if (c == 0 && ea - i != eb - j)
			c = ea - i < eb - j ? -1 : 1;
		if (c)
			return c;
		i = ea + 1;
		j = eb + 1;
	}
}

/*
 * Parses `text` as folded stacks: every line "FRAME(;FRAME)* COUNT\n", each
 * FRAME non-empty valid UTF-8 without control bytes or ';', COUNT a positive
 * decimal without leading zeros; the lines in increasing order of their
 * stacks (so no stack twice). Returns the sum of the counts, -1 on the
 * first fault (printed).
 */
static int64_t parse_folded(const char *text)
{
	const char *prev = NULL, *line = text;
	size_t prev_len = 0;
	int64_t sum = 0;
	unsigned long lineno = 0;

	while (*line) {
		const char *nl = strchr(line, '\n'), *sp, *p;
		int64_t count = 0;
		size_t frame_len = 0;

		lineno++;
		if (!nl)
			return printf("line %lu: no newline\n", lineno), -1;
		for (sp = nl; sp > line && sp[-1] != ' ';)
			sp--;
		if (sp == line || sp == nl || *sp == '0')
			return printf("line %lu: no count\n", lineno), -1;
		for (p = sp; p < nl; p++) {
			if (*p < '0' || *p > '9')
				return printf("line %lu: bad count\n", lineno), -1;
			count = count * 10 + (*p - '0');
		}
		for (p = line; p < sp - 1;) {
			size_t l = utf8_ok((const unsigned char *)p);

			if (l == 0 || (unsigned char)*p < 0x20 || *p == 0x7f)
				return printf("line %lu: bad byte at %td\n", lineno, p - line), -1;
			if (*p == ';') {
				if (frame_len == 0)
					return printf("line %lu: empty frame\n", lineno), -1;
				frame_len = 0;
			} else {
				frame_len += l;
			}
			p += l;
		}
		if (frame_len == 0)
			return printf("line %lu: empty frame\n", lineno), -1;
		if (prev && stack_cmp(prev, prev_len, line, (size_t)(sp - 1 - line)) >= 0)
			return printf("line %lu: out of order\n", lineno), -1;
		prev = line;
		prev_len = (size_t)(sp - 1 - line);
		sum += count;
		line = nl + 1;
	}
	return sum;
}

/* ---- Folded stacks ---- */

static void merge_and_order(void **state)
{
	struct jank_flame *f = jank_flame_new();
	struct jank_flame_stats st;

	(void)state;
	assert_non_null(f);
	check_folded(f, "");
	ADD(f, NULL, 10, "main", "work");
	ADD(f, "[blocked]", 7, "main", "idle");
	ADD(f, NULL, 5, "main", "work");
	ADD(f, NULL, 3, "main");
	ADD(f, NULL, 1, "a b");
	ADD(f, "[preempted]", 2, "main", "work");
	ADD(f, NULL, 4, "main", "work", "main"); /* recursion is a deeper frame */
	/* Nothing for nothing. */
	assert_int_equal(jank_flame_add(f, FR("main", "zzz"), 2, NULL, 0), 0);
	check_folded(f, "a b 1\n"
			"main 3\n"
			"main;idle;[blocked] 7\n"
			"main;work 15\n"
			"main;work;[preempted] 2\n"
			"main;work;main 4\n");
	jank_flame_stats(f, &st);
	assert_int_equal(st.total_ns, 32);
	assert_int_equal(st.adds, 7);
	assert_int_equal(st.other_adds, 0);
	assert_int_equal(st.actions, 1);
	/* A caller's line comes before its callees', even when a byte sorts under ';'. */
	ADD(f, NULL, 6, "main 2");
	ADD(f, NULL, 8, "main", "wor");
	check_folded(f, "a b 1\n"
			"main 3\n"
			"main;idle;[blocked] 7\n"
			"main;wor 8\n"
			"main;work 15\n"
			"main;work;[preempted] 2\n"
			"main;work;main 4\n"
			"main 2 6\n");
	assert_int_equal(parse_folded("main;work 15\nmain 2 6\n"), 21);
	jank_flame_free(f);
}

static void no_stack(void **state)
{
	struct jank_flame *f = jank_flame_new();

	(void)state;
	assert_int_equal(jank_flame_add(f, NULL, 0, NULL, 5), 0);
	assert_int_equal(jank_flame_add(f, NULL, 0, "[timer]", 4), 0);
	assert_int_equal(jank_flame_add(f, NULL, 0, NULL, 1), 0);
	check_folded(f, "[no stack] 6\n[timer] 4\n");
	/* Errors change nothing. */
	assert_int_equal(jank_flame_add(f, FR("a"), 1, NULL, -1), -EINVAL);
	assert_int_equal(jank_flame_add(f, NULL, 2, NULL, 1), -EINVAL);
	check_folded(f, "[no stack] 6\n[timer] 4\n");
	jank_flame_free(f);
}

static void escaping(void **state)
{
	struct jank_flame *f = jank_flame_new();
	char longname[JANK_FLAME_NAME_MAX + 8], want[2 * JANK_FLAME_NAME_MAX];
	char *got;

	(void)state;
	/* ';', newline, CR, tab, DEL, a control byte, invalid UTF-8, empty and NULL names. */
	ADD(f, "[lock;wait]", 9, "a;b", "x\ny\r", "t\tz\x7f\x01", "\xff\xc3", "", NULL, "é€");
	check_folded(f, "a?b;x?y?;t?z??;??;??;??;é€;[lock?wait] 9\n");
	/* Equal once sanitised: one stack. */
	ADD(f, "[lock?wait]", 1, "a?b", "x?y?", "t?z??", "??", "??", "??", "é€");
	check_folded(f, "a?b;x?y?;t?z??;??;??;??;é€;[lock?wait] 10\n");
	/* A long name is cut at JANK_FLAME_NAME_MAX bytes, between characters. */
	memset(longname, 'a', JANK_FLAME_NAME_MAX - 1);
	strcpy(longname + JANK_FLAME_NAME_MAX - 1, "ébc");
	ADD(f, NULL, 3, longname);
	memset(want, 'a', JANK_FLAME_NAME_MAX - 1);
	strcpy(want + JANK_FLAME_NAME_MAX - 1, " 3\n");
	got = folded(f);
	assert_non_null(strstr(got, want));
	assert_int_equal(parse_folded(got), 13);
	free(got);
	jank_flame_free(f);
}

/* Random names of any bytes, random stacks: what comes out parses, and every ns is there. */
static void hostile_names(void **state)
{
	struct jank_flame *f = jank_flame_new();
	uint64_t rng = 88172645463325252ull, sum = 0;
	char names[40][12];
	char *got;

	(void)state;
	for (int i = 0; i < 40; i++) {
		size_t len = 0;

		for (int k = 0; k < 11; k++) {
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			/* Mostly bytes that matter: ';', '\n', ' ', '[', high bytes. */
			names[i][len++] = (char)"; \n[]a\xc3\xa9\xff\x80\t0"[rng % 13];
		}
		names[i][len] = '\0';
	}
	for (int i = 0; i < 3000; i++) {
		const char *stack[8];
		size_t n;

		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		n = rng % 9;
		for (size_t k = 0; k < n; k++)
			stack[k] = names[(rng >> (8 + 4 * k)) % 6 + (k % 2) * 30];
		assert_int_equal(jank_flame_add(f, stack, n, rng % 3 ? NULL : names[rng % 40],
						(int64_t)(rng % 1000) + 1),
				 0);
		sum += rng % 1000 + 1;
	}
	got = folded(f);
	assert_int_equal(parse_folded(got), (int64_t)sum);
	free(got);
	jank_flame_free(f);
}

/* ---- The cap ---- */

static void node_cap(void **state)
{
	struct jank_flame *f = jank_flame_new();
	struct jank_flame_stats st;
	char name[16], *got;

	(void)state;
	assert_int_equal(jank_flame_set_max_nodes(f, 15), -EINVAL);
	assert_int_equal(jank_flame_set_max_nodes(f, 16), 0);
	/* 16 nodes: the root, the top "[other]", 12 frames, 2 kept for "[other]"s. */
	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "f%02d", i);
		ADD(f, NULL, 1, name);
	}
	assert_int_equal(jank_flame_set_max_nodes(f, 32), -EINVAL); /* too late */
	jank_flame_stats(f, &st);
	assert_int_equal(st.nodes, 14);
	assert_int_equal(st.other_adds, 8);
	assert_int_equal(st.other_ns, 8);
	got = folded(f);
	assert_string_equal(got, "[other] 8\nf00 1\nf01 1\nf02 1\nf03 1\nf04 1\nf05 1\nf06 1\n"
				 "f07 1\nf08 1\nf09 1\nf10 1\nf11 1\n");
	free(got);
	/* A stack that exists grows no node; a new one goes to "[other]" under its caller... */
	ADD(f, NULL, 2, "f00");
	ADD(f, NULL, 1, "f00", "g");
	ADD(f, "[blocked]", 1, "f01", "g", "h");
	ADD(f, NULL, 5, "f00", "k");
	/* ... and once the last node is used, under the nearest frame that has one. */
	ADD(f, NULL, 1, "f02", "g");
	for (int i = 0; i < 100000; i++) {
		snprintf(name, sizeof(name), "new%d", i);
		ADD(f, NULL, 1, "f03", name);
	}
	got = folded(f);
	assert_string_equal(got, "[other] 100009\nf00 3\nf00;[other] 6\nf01 1\nf01;[other] 1\n"
				 "f02 1\nf03 1\nf04 1\nf05 1\nf06 1\nf07 1\nf08 1\nf09 1\n"
				 "f10 1\nf11 1\n");
	assert_int_equal(parse_folded(got), 100030);
	free(got);
	jank_flame_stats(f, &st);
	assert_int_equal(st.nodes, 16);
	assert_int_equal(st.other_adds, 8 + 4 + 100000);
	assert_int_equal(st.total_ns, 100030);
	/* Names that found no node were not kept. */
	assert_true(st.name_bytes < 200);
	jank_flame_free(f);
}

/* The default cap holds against a million distinct stacks. */
static void default_cap(void **state)
{
	struct jank_flame *f = jank_flame_new();
	struct jank_flame_stats st;
	char a[16], b[16];

	(void)state;
	for (int i = 0; i < 1000000; i++) {
		snprintf(a, sizeof(a), "a%d", i % 1000);
		snprintf(b, sizeof(b), "b%d", i);
		assert_int_equal(jank_flame_add(f, FR(a, b), 2, NULL, 1), 0);
	}
	jank_flame_stats(f, &st);
	assert_true(st.nodes <= JANK_FLAME_DEFAULT_MAX_NODES);
	assert_true(st.nodes > JANK_FLAME_DEFAULT_MAX_NODES / 2);
	assert_true(st.other_adds > 0);
	assert_int_equal(st.total_ns, 1000000);
	jank_flame_free(f);
}

/* ---- Pictures ---- */

/* Whether xmllint reads `doc` as well-formed XML; skips the test without xmllint. */
static void assert_well_formed(const char *doc)
{
	FILE *p;

	if (system("command -v xmllint >/dev/null 2>&1") != 0)
		skip();
	p = popen("xmllint --noout - 2>&1", "w");
	assert_non_null(p);
	fputs(doc, p);
	assert_int_equal(pclose(p), 0);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* The fill of the frame whose tooltip starts with "NAME (". */
static char *fill_of(const char *doc, const char *name)
{
	char key[256];
	const char *p;
	static char fill[16];

	snprintf(key, sizeof(key), "<g><title>%s (", name);
	p = strstr(doc, key);
	assert_non_null(p);
	p = strstr(p, "fill=\"");
	assert_non_null(p);
	memcpy(fill, p + 6, 7);
	fill[7] = '\0';
	return fill;
}

static void picture(void **state)
{
	struct jank_flame *f = jank_flame_new();
	char longname[301], *doc;
	const char *t, *end;
	unsigned r, g, b;

	(void)state;
	memset(longname, 'L', 300);
	longname[300] = '\0';
	ADD(f, NULL, 600000, longname, "<script>&", "x]]>y");
	ADD(f, "[blocked]", 300000, longname, "<script>&");
	ADD(f, NULL, 100000, "tiny\n\xff");
	ADD(f, NULL, 1, "invisible"); /* 1 ns of 1 ms: under a px, not drawn */
	doc = svg(f, NULL, "flame of \"frame\" <1>");
	assert_well_formed(doc);
	assert_null(strstr(doc, "<script"));
	assert_null(strstr(doc, "href"));
	assert_non_null(strstr(doc, "<title>flame of &quot;frame&quot; &lt;1&gt;</title>"));
	assert_non_null(strstr(doc, "&lt;script&gt;&amp;"));
	assert_non_null(strstr(doc, "x]]&gt;y"));
	assert_non_null(strstr(doc, "tiny??"));
	assert_null(strstr(doc, "invisible"));
	/* all, the long one, <script>&, x]]>y, [blocked], tiny: six frames. */
	assert_int_equal(count(doc, "<g><title>"), 6);
	assert_int_equal(count(doc, "<rect x="), 6);
	/* The long name's label is cut to fit and ends in "…"; the tooltip has all of it. */
	t = strstr(doc, "<g><title>LLLLLLLLLL");
	assert_non_null(t);
	assert_non_null(strstr(t, longname));
	t = strstr(t, "<text");
	assert_non_null(t);
	t = strchr(t, '>') + 1;
	end = strstr(t, "</text>");
	assert_non_null(end);
	assert_true(end - t > 100 && end - t < 300);
	assert_memory_equal(end - strlen("L…"), "L…", strlen("L…"));
	/* Wait states in their colour (blocked: #757575), functions warm, the rest grey. */
	assert_string_equal(fill_of(doc, "[blocked]"), "#757575");
	assert_string_equal(fill_of(doc, "all"), "#bdbdbd");
	assert_int_equal(sscanf(fill_of(doc, "x]]&gt;y"), "#%2x%2x%2x", &r, &g, &b), 3);
	assert_true(r >= 0xcd && g < 0xd0 && b < 0x50);
	free(doc);
	jank_flame_free(f);

	/* An empty flame is a picture too. */
	f = jank_flame_new();
	doc = svg(f, NULL, "empty");
	assert_well_formed(doc);
	assert_non_null(strstr(doc, "No time."));
	free(doc);
	jank_flame_free(f);
}

static void differential(void **state)
{
	struct jank_flame *slow = jank_flame_new(), *normal = jank_flame_new();
	char *doc;

	(void)state;
	/* Per action: slow spends 300 in a (normal 100), 100 in b (normal 300), 100 in c (both). */
	jank_flame_set_actions(slow, 2);
	ADD(slow, NULL, 600, "main", "a");
	ADD(slow, NULL, 200, "main", "b");
	ADD(slow, NULL, 200, "main", "c");
	ADD(slow, "[lock_wait]", 400, "main", "new");
	jank_flame_set_actions(normal, 3);
	ADD(normal, NULL, 300, "main", "a");
	ADD(normal, NULL, 900, "main", "b");
	ADD(normal, NULL, 300, "main", "c");
	ADD(normal, NULL, 900, "main", "gone");
	doc = svg(slow, normal, "slow <> normal");
	assert_well_formed(doc);
	/* More in slow: red (#ff, then equal green and blue under ff). */
	assert_memory_equal(fill_of(doc, "a"), "#ff", 3);
	assert_string_not_equal(fill_of(doc, "a"), "#ffffff");
	assert_memory_equal(fill_of(doc, "a") + 3, fill_of(doc, "a") + 5, 2);
	/* Less: blue. */
	assert_string_equal(fill_of(doc, "b") + 5, "ff");
	assert_string_not_equal(fill_of(doc, "b"), "#ffffff");
	/* The same per action: white. */
	assert_string_equal(fill_of(doc, "c"), "#ffffff");
	/* Only in slow: the deepest red, its leaf too. */
	assert_string_equal(fill_of(doc, "new"), "#ff2828");
	assert_string_equal(fill_of(doc, "[lock_wait]"), "#ff2828");
	/* a: +200%, so (300 - 100) / 300 = 2/3 of the way: 255 - 215 * 2/3 = 112 (0x70). */
	assert_string_equal(fill_of(doc, "a"), "#ff7070");
	/* b: (100 - 300) / 300: 0x70 again, in blue. */
	assert_string_equal(fill_of(doc, "b"), "#7070ff");
	/* main: slow 700, normal 800 per action: a little blue. */
	assert_string_equal(fill_of(doc, "main") + 5, "ff");
	/* Only in normal: not drawn (slow has no time there). */
	assert_null(strstr(doc, "gone"));
	assert_non_null(strstr(doc, "slow 300 ns, normal 100 ns per action, +200.0%"));
	free(doc);
	jank_flame_free(slow);
	jank_flame_free(normal);
}

/* ---- A critical path as flame input ---- */

static struct jank_segment *seg(struct jank_path *p, int32_t tid, const char *comm,
				enum jank_state st, int64_t begin, int64_t end, uint32_t stack)
{
	struct jank_segment *s;

	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 8;
		p->segs = realloc(p->segs, p->cap * sizeof(*p->segs));
		assert_non_null(p->segs);
	}
	s = &p->segs[p->n++];
	memset(s, 0, sizeof(*s));
	s->tid = tid;
	s->state = (uint8_t)st;
	s->begin = begin;
	s->end = end;
	s->stack = stack;
	snprintf(s->comm, sizeof(s->comm), "%s", comm);
	return s;
}

static void from_path(void **state)
{
	struct jank_flame *f = jank_flame_new();
	struct jank_path p;
	uint32_t ids[200], main_id, work, deep;
	char name[32];

	(void)state;
	assert_non_null(f);
	jank_path_init(&p);
	main_id = jank_path_frame(&p, 0x1000, 7, false, NULL);
	ids[0] = main_id;
	ids[1] = jank_path_frame(&p, 0x2000, 7, false, NULL);
	work = jank_path_stack(&p, ids, 2);
	/* A stack deeper than the frames the function keeps on its own stack. */
	for (uint32_t i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "f%03u", i);
		ids[i] = jank_path_frame(&p, 0, 7, false, name);
	}
	deep = jank_path_stack(&p, ids, 200);
	assert_true(work && deep);
	jank_path_name_frames(&p, NULL, NULL); /* hex addresses */
	seg(&p, 10, "ui", JANK_STATE_RUNNING, 0, 100, work);
	seg(&p, 10, "ui", JANK_STATE_BLOCKED, 100, 150, work);
	seg(&p, 11, "db", JANK_STATE_BLOCK_DEVICE, 150, 400, 0); /* no stack: the thread only */
	seg(&p, 11, "db", JANK_STATE_RUNNING, 400, 420, 0);
	seg(&p, 12, "", JANK_STATE_PREEMPTED, 420, 425, 0);  /* no comm: its tid */
	seg(&p, 12, "", JANK_STATE_RUNNING, 425, 425, work); /* empty: nothing */
	seg(&p, 10, "ui", JANK_STATE_RUNNING, 425, 500, work);
	seg(&p, 10, "ui", JANK_STATE_LOCK_WAIT, 500, 507, deep);
	assert_int_equal(jank_flame_add_path(f, &p), 0);
	{
		char *got = folded(f), want[8192];
		size_t n = 0;

		n += (size_t)snprintf(want + n, sizeof(want) - n,
				      "db 20\ndb;[block_device] 250\ntid 12;[preempted] 5\n"
				      "ui;0x1000;0x2000 175\nui;0x1000;0x2000;[blocked] 50\nui");
		for (uint32_t i = 0; i < 200; i++)
			n += (size_t)snprintf(want + n, sizeof(want) - n, ";f%03u", i);
		snprintf(want + n, sizeof(want) - n, ";[lock_wait] 7\n");
		assert_string_equal(got, want);
		free(got);
	}
	/* Twice: the same stacks merge. */
	assert_int_equal(jank_flame_add_path(f, &p), 0);
	{
		struct jank_flame_stats st;

		jank_flame_stats(f, &st);
		assert_int_equal(st.total_ns, 2 * 507);
		assert_int_equal(st.adds, 14);
	}
	assert_int_equal(jank_flame_add_path(f, NULL), 0);
	jank_path_fini(&p);
	jank_flame_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(merge_and_order), cmocka_unit_test(no_stack),
		cmocka_unit_test(escaping),	   cmocka_unit_test(hostile_names),
		cmocka_unit_test(node_cap),	   cmocka_unit_test(default_cap),
		cmocka_unit_test(picture),	   cmocka_unit_test(differential),
		cmocka_unit_test(from_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
