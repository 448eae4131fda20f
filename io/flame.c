/* SPDX-License-Identifier: MIT */
/*
 * Flame graphs (see flame.h).
 *
 * The tree is an array of nodes; a node's children are a singly linked list
 * (child, next), found by name through one open-addressing table keyed by
 * (parent, name). Names are interned in one arena, so that a name is an
 * offset and the key is two integers. Children are sorted by name only when
 * the flame is written: adding is a walk down the stack, a probe per frame.
 *
 * The SVGs lay the tree out bottom up, flamegraph.pl's way: the root ("all")
 * at the bottom, each node's children side by side from its left edge, each
 * as wide as its total time, its self time the gap on the right. A frame
 * narrower than MIN_W px is not drawn, nor are the frames above it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "textsafe.h"
#include "flame.h"
#include "state.h"
#include "svg.h"
#include "units.h"

#define NONE		UINT32_MAX
#define ROOT		0u
#define MIN_MAX_NODES	16
#define MAX_MAX_NODES	(1u << 24)
#define NAME_BYTES_MIN	65536
#define NAME_BYTES_NODE 64

/* The picture */
#define WIDTH	  1200
#define MARGIN	  10
#define TITLE_Y	  28
#define SUB_Y	  48
#define PLOT_Y0	  64 /* top of the plot */
#define FRAME_H	  17
#define FONT	  11
#define MIN_W	  0.1 /* px */
#define MAX_DEPTH 400 /* frames drawn above the root, at most */
#define GREY	  "#bdbdbd"

enum kind {
	K_FUNC,	   /* a function frame */
	K_STATE,   /* a wait state as the leaf */
	K_SPECIAL, /* "[other]", "[no stack]" */
};

struct node {
	uint32_t name; /* offset in the arena */
	uint32_t parent, child, next;
	uint8_t kind;
	int8_t state; /* K_STATE: the jank_state, -1 when the name is none */
	int64_t self, total;
};

struct jank_flame {
	struct node *v;
	size_t n, cap, max_nodes;
	uint32_t *ctab; /* node indices by (parent, name); NONE: empty */
	size_t ctab_cap;
	char *names; /* NUL-terminated names, back to back */
	size_t names_len, names_cap, names_max;
	uint32_t *ntab; /* name offsets + 1; 0: empty */
	size_t ntab_cap, nnames;
	uint32_t other; /* the name "[other]" */
	bool sorted;
	uint64_t adds, other_adds, actions;
	int64_t other_ns;
};

/* ---- Names ---- */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static uint64_t hash_key(uint32_t parent, uint32_t name)
{
	uint64_t h = ((uint64_t)parent << 32 | name) * 0x9e3779b97f4a7c15ull;

	return h ^ h >> 29;
}

/* The name as the flame keeps it (see flame.h), into buf[JANK_FLAME_NAME_MAX + 1]. */
static const char *sanitise(const char *s, char *buf)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t o = 0;

	while (*p) {
		size_t l = jank_utf8_char((const char *)p);

		if (l == 0 || *p < 0x20 || *p == 0x7f || *p == ';') {
			l = 1;
			if (o + 1 > JANK_FLAME_NAME_MAX)
				break;
			buf[o++] = '?';
		} else {
			if (o + l > JANK_FLAME_NAME_MAX)
				break;
			memcpy(buf + o, p, l);
			o += l;
		}
		p += l;
	}
	if (o == 0)
		return "??";
	buf[o] = '\0';
	return buf;
}

static uint32_t name_find(const struct jank_flame *f, const char *s)
{
	size_t mask = f->ntab_cap - 1;

	for (size_t i = hash_str(s) & mask;; i = (i + 1) & mask) {
		uint32_t e = f->ntab[i];

		if (e == 0)
			return NONE;
		if (strcmp(f->names + e - 1, s) == 0)
			return e - 1;
	}
}

static void ntab_put(uint32_t *tab, size_t cap, const char *names, uint32_t off)
{
	size_t mask = cap - 1, i = hash_str(names + off) & mask;

	while (tab[i])
		i = (i + 1) & mask;
	tab[i] = off + 1;
}

/* The name's offset, stored when new; NONE when over the budget or out of memory. */
static uint32_t name_intern(struct jank_flame *f, const char *s)
{
	uint32_t off = name_find(f, s);
	size_t len = strlen(s) + 1;

	if (off != NONE)
		return off;
	if (f->names_len + len > f->names_max)
		return NONE;
	if ((f->nnames + 1) * 2 > f->ntab_cap) {
		size_t ncap = f->ntab_cap * 2;
		uint32_t *t = calloc(ncap, sizeof(*t));

		if (!t)
			return NONE;
		for (size_t i = 0; i < f->ntab_cap; i++)
			if (f->ntab[i])
				ntab_put(t, ncap, f->names, f->ntab[i] - 1);
		free(f->ntab);
		f->ntab = t;
		f->ntab_cap = ncap;
	}
	while (f->names_len + len > f->names_cap) {
		size_t c = jank_array_grow(&f->names, 1, f->names_cap, 4096);

		if (!c)
			return NONE;
		f->names_cap = c;
	}
	off = (uint32_t)f->names_len;
	memcpy(f->names + off, s, len);
	f->names_len += len;
	f->nnames++;
	ntab_put(f->ntab, f->ntab_cap, f->names, off);
	return off;
}

static const char *name_of(const struct jank_flame *f, uint32_t i)
{
	return f->names + f->v[i].name;
}

/* ---- Nodes ---- */

static uint32_t child_find(const struct jank_flame *f, uint32_t parent, uint32_t name)
{
	size_t mask = f->ctab_cap - 1;

	if (name == NONE)
		return NONE;
	for (size_t i = hash_key(parent, name) & mask;; i = (i + 1) & mask) {
		uint32_t e = f->ctab[i];

		if (e == NONE)
			return NONE;
		if (f->v[e].parent == parent && f->v[e].name == name)
			return e;
	}
}

static void ctab_put(uint32_t *tab, size_t cap, const struct node *v, uint32_t i)
{
	size_t mask = cap - 1, h = hash_key(v[i].parent, v[i].name) & mask;

	while (tab[h] != NONE)
		h = (h + 1) & mask;
	tab[h] = i;
}

/* A new child of `parent`, first among its siblings; NONE without memory. */
static uint32_t node_new(struct jank_flame *f, uint32_t parent, uint32_t name, enum kind kind,
			 int state)
{
	uint32_t i;

	if (f->n == f->cap) {
		size_t c = jank_array_grow(&f->v, sizeof(*f->v), f->cap, 256);

		if (!c)
			return NONE;
		f->cap = c;
	}
	if ((f->n + 1) * 2 > f->ctab_cap) {
		size_t ncap = f->ctab_cap * 2;
		uint32_t *t = malloc(ncap * sizeof(*t));

		if (!t)
			return NONE;
		memset(t, 0xff, ncap * sizeof(*t));
		for (uint32_t k = 1; k < f->n; k++)
			ctab_put(t, ncap, f->v, k);
		free(f->ctab);
		f->ctab = t;
		f->ctab_cap = ncap;
	}
	i = (uint32_t)f->n++;
	f->v[i] = (struct node){ .name = name,
				 .parent = parent,
				 .child = NONE,
				 .kind = (uint8_t)kind,
				 .state = (int8_t)state };
	f->v[i].next = f->v[parent].child;
	f->v[parent].child = i;
	ctab_put(f->ctab, f->ctab_cap, f->v, i);
	f->sorted = false;
	return i;
}

struct jank_flame *jank_flame_new(void)
{
	struct jank_flame *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->max_nodes = JANK_FLAME_DEFAULT_MAX_NODES;
	f->names_max = (size_t)JANK_FLAME_DEFAULT_MAX_NODES * NAME_BYTES_NODE;
	f->actions = 1;
	f->ntab_cap = 64;
	f->ntab = calloc(f->ntab_cap, sizeof(*f->ntab));
	f->ctab_cap = 64;
	f->ctab = malloc(f->ctab_cap * sizeof(*f->ctab));
	f->cap = 256;
	f->v = calloc(f->cap, sizeof(*f->v));
	if (!f->ntab || !f->ctab || !f->v)
		goto fail;
	memset(f->ctab, 0xff, f->ctab_cap * sizeof(*f->ctab));
	/* The root (named "all" in pictures) and the top "[other]", which always exists. */
	f->v[0] = (struct node){ .name = 0, .parent = NONE, .child = NONE, .next = NONE };
	f->n = 1;
	f->other = name_intern(f, JANK_FLAME_OTHER);
	if (f->other == NONE || node_new(f, ROOT, f->other, K_SPECIAL, -1) == NONE)
		goto fail;
	return f;
fail:
	jank_flame_free(f);
	return NULL;
}

void jank_flame_free(struct jank_flame *f)
{
	if (!f)
		return;
	free(f->v);
	free(f->ctab);
	free(f->names);
	free(f->ntab);
	free(f);
}

int jank_flame_set_max_nodes(struct jank_flame *f, size_t max_nodes)
{
	size_t bytes;

	if (max_nodes < MIN_MAX_NODES || max_nodes > MAX_MAX_NODES || f->adds > 0)
		return -EINVAL;
	bytes = max_nodes * NAME_BYTES_NODE;
	f->max_nodes = max_nodes;
	f->names_max = bytes < NAME_BYTES_MIN ? NAME_BYTES_MIN : bytes;
	return 0;
}

void jank_flame_set_actions(struct jank_flame *f, uint64_t actions)
{
	f->actions = actions;
}

static int64_t sat_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* Where time goes that has no node of its own under `at`: an "[other]" (see flame.h). */
static uint32_t other_under(struct jank_flame *f, uint32_t at)
{
	for (uint32_t x = at;; x = f->v[x].parent) {
		uint32_t o = child_find(f, x, f->other);

		if (o != NONE)
			return o;
		if (f->n < f->max_nodes && (o = node_new(f, x, f->other, K_SPECIAL, -1)) != NONE)
			return o;
	}
}

int jank_flame_add(struct jank_flame *f, const char *const *frames, size_t n, const char *leaf,
		   int64_t ns)
{
	size_t k = n + (leaf ? 1 : 0), regular = f->max_nodes - f->max_nodes / 8;
	uint32_t cur = ROOT;
	bool other = false;

	if (ns < 0 || (n > 0 && !frames))
		return -EINVAL;
	if (ns == 0)
		return 0;
	for (size_t i = 0; i < (k ? k : 1); i++) {
		char buf[JANK_FLAME_NAME_MAX + 1];
		bool is_leaf = i == n;
		const char *s = sanitise(i < n	? frames[i]
					 : leaf ? leaf
						: JANK_FLAME_NO_STACK,
					 buf);
		uint32_t name = name_find(f, s), c = child_find(f, cur, name);
		enum kind kind = K_FUNC;
		int state = -1;

		if (c != NONE) {
			cur = c;
			continue;
		}
		if (f->n >= regular) {
			cur = other_under(f, cur);
			other = true;
			break;
		}
		if (name == NONE && (name = name_intern(f, s)) == NONE) {
			if (f->names_len + strlen(s) + 1 <= f->names_max)
				return -ENOMEM;
			cur = other_under(f, cur); /* over the budget of names */
			other = true;
			break;
		}
		if (is_leaf && leaf) {
			char st[JANK_FLAME_NAME_MAX + 1];
			size_t l = strlen(s);

			kind = K_STATE;
			/* "[lock_wait]" is the state lock_wait. */
			if (l > 2 && s[0] == '[' && s[l - 1] == ']') {
				memcpy(st, s + 1, l - 2);
				st[l - 2] = '\0';
				state = jank_state_from_name(st);
			}
		} else if (!leaf && n == 0) {
			kind = K_SPECIAL;
		}
		if ((c = node_new(f, cur, name, kind, state)) == NONE)
			return -ENOMEM;
		cur = c;
	}
	f->v[cur].self = sat_add(f->v[cur].self, ns);
	for (uint32_t x = cur; x != NONE; x = f->v[x].parent)
		f->v[x].total = sat_add(f->v[x].total, ns);
	f->adds++;
	if (other) {
		f->other_adds++;
		f->other_ns = sat_add(f->other_ns, ns);
	}
	return 0;
}

void jank_flame_stats(const struct jank_flame *f, struct jank_flame_stats *out)
{
	*out = (struct jank_flame_stats){ .nodes = f->n,
					  .name_bytes = f->names_len,
					  .adds = f->adds,
					  .other_adds = f->other_adds,
					  .other_ns = f->other_ns,
					  .total_ns = f->v[ROOT].total,
					  .actions = f->actions };
}

/* ---- Order ---- */

struct sib {
	const char *name;
	uint32_t i;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct sib *)a)->name, ((const struct sib *)b)->name);
}

/* Each node's children in byte order of their names. */
static int sort_children(struct jank_flame *f)
{
	struct sib *tmp;

	if (f->sorted)
		return 0;
	tmp = malloc(f->n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	for (uint32_t p = 0; p < f->n; p++) {
		size_t m = 0;

		for (uint32_t c = f->v[p].child; c != NONE; c = f->v[c].next)
			tmp[m++] = (struct sib){ name_of(f, c), c };
		if (m < 2)
			continue;
		jank_sort(tmp, m, sizeof(*tmp), by_name);
		f->v[p].child = tmp[0].i;
		for (size_t i = 0; i + 1 < m; i++)
			f->v[tmp[i].i].next = tmp[i + 1].i;
		f->v[tmp[m - 1].i].next = NONE;
	}
	free(tmp);
	f->sorted = true;
	return 0;
}

/*
 * Depth-first, children in order, nodes without time skipped: the next node
 * after x, whose ancestors are path[0..*d) (updated).
 */
static uint32_t dfs_next(const struct jank_flame *f, uint32_t x, uint32_t *path, size_t *d,
			 bool descend)
{
	if (descend) {
		for (uint32_t c = f->v[x].child; c != NONE; c = f->v[c].next)
			if (f->v[c].total > 0) {
				path[(*d)++] = x;
				return c;
			}
	}
	for (;;) {
		for (uint32_t s = f->v[x].next; s != NONE; s = f->v[s].next)
			if (f->v[s].total > 0)
				return s;
		if (*d <= 1)
			return NONE; /* back at a child of the root */
		x = path[--*d];
	}
}

/* ---- Folded stacks ---- */

int jank_flame_write_folded(struct jank_flame *f, FILE *out)
{
	uint32_t *path, x;
	size_t d = 1;

	if (sort_children(f) < 0)
		return -ENOMEM;
	path = malloc(f->n * sizeof(*path));
	if (!path)
		return -ENOMEM;
	path[0] = ROOT;
	x = f->v[ROOT].child;
	while (x != NONE && f->v[x].total == 0)
		x = f->v[x].next;
	/* path[1..d) and x: the stack of a line. */
	while (x != NONE) {
		if (f->v[x].self > 0) {
			for (size_t i = 1; i < d; i++) {
				fputs(name_of(f, path[i]), out);
				fputc(';', out);
			}
			fprintf(out, "%s %" PRId64 "\n", name_of(f, x), f->v[x].self);
		}
		x = dfs_next(f, x, path, &d, true);
	}
	free(path);
	return ferror(out) ? -EIO : 0;
}

/* ---- Pictures ---- */

struct picture {
	struct jank_flame *f;
	struct jank_flame *normal; /* the differential: the other flame, else NULL */
	double scale;		   /* px per ns */
	double per[2];		   /* 1 / actions of f and of normal */
	size_t depth;		   /* frames drawn above the root */
	double plot_y1;		   /* bottom of the root */
};

/* A function's colour: warm, from its name, the same in every picture. */
static void func_colour(const char *name, char *buf, size_t len)
{
	uint64_t h = hash_str(name);

	snprintf(buf, len, "#%02x%02x%02x", 205 + (unsigned)(h % 51),
		 60 + (unsigned)((h >> 8) % 150), 30 + (unsigned)((h >> 16) % 40));
}

/*
 * The differential's rule. s and n are a stack's time per action (its
 * subtree's: inclusive) in slow and in normal; d = (s - n) / max(s, n), from
 * -1 (only normal spends time there) to +1 (only slow does). d > 0 is red,
 * d < 0 blue, each the deeper the larger |d|; white at 0. A frame's colour
 * says how much its own time changed relative to its size, not how large
 * the change is: the width says that.
 */
static double diff_ratio(double s, double n)
{
	double m = s > n ? s : n;

	return m > 0 ? (s - n) / m : 0;
}

static void diff_colour(double d, char *buf, size_t len)
{
	double a = d < 0 ? -d : d;
	unsigned pale = (unsigned)(255.0 - 215.0 * (a > 1 ? 1 : a) + 0.5);

	if (d >= 0)
		snprintf(buf, len, "#ff%02x%02x", pale, pale);
	else
		snprintf(buf, len, "#%02x%02xff", pale, pale);
}

/* The node of `normal` with the same stack as x's in slow, given that of x's parent. */
static uint32_t match(const struct picture *p, uint32_t parent_match, uint32_t x)
{
	if (parent_match == NONE)
		return NONE;
	return child_find(p->normal, parent_match, name_find(p->normal, name_of(p->f, x)));
}

static void frame(const struct picture *p, FILE *out, uint32_t x, uint32_t m, size_t depth,
		  int64_t at)
{
	const struct node *v = &p->f->v[x];
	const char *name = x == ROOT ? "all" : name_of(p->f, x);
	double x0 = MARGIN + (double)at * p->scale, w = (double)v->total * p->scale;
	double y = p->plot_y1 - (double)(depth + 1) * FRAME_H;
	char fill[16], t[32], u[32];
	const char *ink = JANK_SVG_INK;
	size_t chars;

	if (p->normal) {
		double s = (double)v->total * p->per[0];
		double n = m == NONE ? 0 : (double)p->normal->v[m].total * p->per[1];
		double d = diff_ratio(s, n);

		diff_colour(d, fill, sizeof(fill));
		if (d > 0.75 || d < -0.75)
			ink = "#ffffff";
	} else if (x == ROOT || v->kind == K_SPECIAL) {
		snprintf(fill, sizeof(fill), "%s", GREY);
	} else if (v->kind == K_STATE) {
		enum jank_state st = v->state >= 0 ? (enum jank_state)v->state : JANK_STATE_UNKNOWN;

		snprintf(fill, sizeof(fill), "%s", jank_svg_state_colour(st));
		if (!jank_svg_light_fill(st))
			ink = "#ffffff";
	} else {
		func_colour(name, fill, sizeof(fill));
	}
	fputs("<g><title>", out);
	jank_svg_escape(out, name, 0);
	if (p->normal) {
		double s = (double)v->total * p->per[0];
		double n = m == NONE ? 0 : (double)p->normal->v[m].total * p->per[1];

		fprintf(out, " (slow %s, normal %s per action",
			jank_units_duration((int64_t)(s + 0.5), t, sizeof(t)),
			jank_units_duration((int64_t)(n + 0.5), u, sizeof(u)));
		if (n > 0)
			fprintf(out, ", %+.1f%%", 100.0 * (s - n) / n);
		fputs(")", out);
	} else {
		fprintf(out, " (%s, %.2f%%)", jank_units_duration(v->total, t, sizeof(t)),
			100.0 * (double)v->total / (double)p->f->v[ROOT].total);
	}
	/* In the differential, white frames need an edge. */
	fprintf(out,
		"</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
		"rx=\"2\"%s/>",
		x0, y, w, FRAME_H - 1, fill,
		p->normal ? " stroke=\"" JANK_SVG_GRID "\" stroke-width=\"0.5\"" : "");
	/* The label: as many characters as fit, else none. */
	chars = (size_t)((w - 6) / jank_svg_text_w(1, FONT));
	if (chars >= 3) {
		/* Wait states in italics: they are not functions. */
		fprintf(out, "<text x=\"%.2f\" y=\"%.1f\" font-size=\"%d\" fill=\"%s\"%s>", x0 + 3,
			y + FRAME_H - 5, FONT, ink,
			v->kind == K_STATE ? " font-style=\"italic\"" : "");
		jank_svg_escape(out, name, chars);
		fputs("</text>", out);
	}
	fputs("</g>\n", out);
}

/*
 * Draws every node wide enough (out NULL: none), depth first. Returns the
 * deepest depth drawn, (size_t)-1 without memory.
 */
static size_t walk(struct picture *p, FILE *out)
{
	const struct jank_flame *f = p->f;
	uint32_t *path = malloc((f->n + 2) * sizeof(*path));
	uint32_t *mpath = malloc((f->n + 2) * sizeof(*mpath));
	int64_t *at = malloc((f->n + 2) * sizeof(*at)); /* per depth: the next child's left edge */
	size_t d = 1, deepest = 0;
	uint32_t x;

	if (!path || !mpath || !at) {
		free(path);
		free(mpath);
		free(at);
		return (size_t)-1;
	}
	if (out)
		frame(p, out, ROOT, ROOT, 0, 0);
	path[0] = ROOT;
	mpath[0] = ROOT;
	at[0] = 0;
	at[1] = 0;
	x = f->v[ROOT].child;
	while (x != NONE && f->v[x].total == 0)
		x = f->v[x].next;
	while (x != NONE) {
		/* x is at depth d; its ancestors are path[0..d). */
		bool drawn = (double)f->v[x].total * p->scale >= MIN_W && d <= MAX_DEPTH;
		uint32_t m = p->normal ? match(p, mpath[d - 1], x) : NONE;

		if (drawn) {
			if (d > deepest)
				deepest = d;
			if (out)
				frame(p, out, x, m, d, at[d]);
			mpath[d] = m;
			at[d + 1] = at[d];
		}
		at[d] += f->v[x].total;
		x = dfs_next(f, x, path, &d, drawn);
	}
	free(path);
	free(mpath);
	free(at);
	return deepest;
}

static int draw(struct jank_flame *f, struct jank_flame *normal, FILE *out, const char *title)
{
	struct picture p = { .f = f, .normal = normal };
	int64_t total = f->v[ROOT].total;
	char t[32], u[32];
	size_t deepest;
	double height;

	if (sort_children(f) < 0 || (normal && sort_children(normal) < 0))
		return -ENOMEM;
	p.scale = total > 0 ? (double)(WIDTH - 2 * MARGIN) / (double)total : 0;
	p.per[0] = 1.0 / (double)(f->actions ? f->actions : 1);
	p.per[1] = normal ? 1.0 / (double)(normal->actions ? normal->actions : 1) : 0;
	deepest = total > 0 ? walk(&p, NULL) : 0;
	if (deepest == (size_t)-1)
		return -ENOMEM;
	p.depth = deepest;
	p.plot_y1 = PLOT_Y0 + (double)(deepest + 1) * FRAME_H;
	height = p.plot_y1 + 28;
	jank_svg_begin(out, WIDTH, height, title);
	fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"17\" font-weight=\"bold\" fill=\"%s\">",
		MARGIN, TITLE_Y, JANK_SVG_INK);
	jank_svg_escape(out, title, 120);
	fputs("</text>\n", out);
	fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"%s\">", MARGIN, SUB_Y,
		JANK_SVG_MUTED);
	if (normal) {
		fprintf(out,
			"Width: time per action of the slow (%" PRIu64
			" action%s, %s each). Colour: change against the normal (%" PRIu64
			" action%s, %s each), red more, blue less",
			f->actions, f->actions == 1 ? "" : "s",
			jank_units_duration((int64_t)((double)total * p.per[0]), t, 32),
			normal->actions, normal->actions == 1 ? "" : "s",
			jank_units_duration((int64_t)((double)normal->v[ROOT].total * p.per[1]), u,
					    32));
	} else {
		fprintf(out, "%s on the path, by call stack; wait states as leaf frames",
			jank_units_duration(total, t, sizeof(t)));
		if (f->actions > 1)
			fprintf(out, "; %" PRIu64 " actions", f->actions);
	}
	if (f->other_ns > 0)
		fprintf(out, "; %s in [other] (over %zu frames)",
			jank_units_duration(f->other_ns, t, sizeof(t)), f->max_nodes);
	fputs("</text>\n", out);
	if (total > 0 && walk(&p, out) == (size_t)-1)
		return -ENOMEM;
	if (total == 0)
		fprintf(out,
			"<text x=\"%d\" y=\"%.0f\" font-size=\"12\" fill=\"%s\">No time.</text>\n",
			MARGIN, p.plot_y1 - 4, JANK_SVG_MUTED);
	return jank_svg_end(out);
}

int jank_flame_write_svg(struct jank_flame *f, FILE *out, const char *title)
{
	return draw(f, NULL, out, title);
}

int jank_flame_write_diff_svg(struct jank_flame *slow, struct jank_flame *normal, FILE *out,
			      const char *title)
{
	return draw(slow, normal, out, title);
}
