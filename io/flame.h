/* SPDX-License-Identifier: MIT */
/*
 * Flame graphs of where time went, by call stack (issue 24): `jankctl
 * flame`, the differential one of `jankctl compare`, and a capture's
 * flame.svg. The input is neutral: stacks of names, outermost first, and a
 * time; the caller (the critical path's segments, each with its thread's
 * call stack and state) decides what a stack is.
 *
 * A flame is a tree of frames (a trie of the stacks): each node is a name
 * under its parent, with the time that ended exactly there (self) and the
 * time of its whole subtree (total). A wait state is a leaf frame under the
 * stack it was waited in ("[blocked]", "[lock_wait]"); running time is the
 * self time of the innermost function.
 *
 * Names come from traced programs: untrusted. Each is stored sanitised, so
 * that the folded text stays parseable: ';' (the separator), control bytes
 * (newlines, tabs, DEL) and bytes that are not UTF-8 become '?', an empty
 * or NULL name becomes "??", and a name is cut at JANK_FLAME_NAME_MAX bytes
 * (on a character boundary). The SVGs escape them again for XML.
 *
 * Memory is bounded: at most max_nodes nodes (jank_flame_set_max_nodes) and
 * names of at most max_nodes × 64 bytes in all (at least 64 KiB). Past the
 * cap, the part of a stack that has no node yet goes to an "[other]" frame:
 * under the deepest frame that exists when an "[other]" can still be made
 * there (an eighth of the nodes is kept for them), else under the nearest
 * ancestor that has one, else at the top. jank_flame_stats() counts what
 * went there.
 */
#ifndef JANK_FLAME_H
#define JANK_FLAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JANK_FLAME_NAME_MAX	     512
#define JANK_FLAME_DEFAULT_MAX_NODES 65536
#define JANK_FLAME_OTHER	     "[other]"
#define JANK_FLAME_NO_STACK	     "[no stack]" /* running time without a stack */

struct jank_flame;

struct jank_flame_stats {
	size_t nodes;	     /* the root included */
	size_t name_bytes;   /* distinct names, their bytes */
	uint64_t adds;	     /* calls that added time */
	uint64_t other_adds; /* ... of which part went to "[other]" */
	int64_t other_ns;    /* the time that went to "[other]" */
	int64_t total_ns;    /* all the time added (saturates at INT64_MAX) */
	uint64_t actions;    /* as jank_flame_set_actions() set it */
};

/* An empty flame (a cap of JANK_FLAME_DEFAULT_MAX_NODES), NULL without memory. */
struct jank_flame *jank_flame_new(void);
void jank_flame_free(struct jank_flame *f);

/*
 * Another cap (at least 16 nodes), before the first jank_flame_add():
 * 0, or -EINVAL when out of range or too late.
 */
int jank_flame_set_max_nodes(struct jank_flame *f, size_t max_nodes);

/*
 * `ns` of time in the stack frames[0..n) (outermost first), in wait state
 * `leaf` (a leaf frame such as "[blocked]"), or running in frames[n-1] when
 * `leaf` is NULL (with n == 0 too: the frame JANK_FLAME_NO_STACK). Equal
 * stacks merge. 0 (ns == 0 adds nothing), -EINVAL (ns < 0, frames NULL with
 * n > 0) or -ENOMEM (the flame is unchanged, but for names already stored).
 */
int jank_flame_add(struct jank_flame *f, const char *const *frames, size_t n, const char *leaf,
		   int64_t ns);

/*
 * How many actions the time is of (default 1): the differential compares
 * time per action.
 */
void jank_flame_set_actions(struct jank_flame *f, uint64_t actions);

void jank_flame_stats(const struct jank_flame *f, struct jank_flame_stats *out);

/*
 * Folded stacks, the text that flamegraph.pl, inferno and speedscope read:
 * a line per distinct stack with time of its own, "a;b;[blocked] 1500\n"
 * (frames joined by ';', a space, the ns as a decimal integer), sorted by
 * frames, outermost first, each compared bytewise (a caller's line comes
 * right before its callees'). Nothing for an empty flame. 0 or -EIO.
 */
int jank_flame_write_folded(struct jank_flame *f, FILE *out);

/*
 * The flame graph as an SVG of its own (1200 px wide, the style of svg.h):
 * the outermost frames at the bottom, each frame a rectangle as wide as its
 * share of the time, its name clipped to fit, its name and time as a
 * tooltip (<title>); wait states in their state's colour, functions in warm
 * colours by name, "[other]" in grey. `title`: the first line. 0, -ENOMEM
 * or -EIO.
 */
int jank_flame_write_svg(struct jank_flame *f, FILE *out, const char *title);

/*
 * The differential flame graph, slow against normal: the frames of `slow`,
 * as wide as their time per action in `slow`, coloured by how their time
 * per action differs from the same stack's in `normal` (see flame.c:
 * red where slow spends more, blue where it spends less, white when the
 * same). 0, -ENOMEM or -EIO.
 */
int jank_flame_write_diff_svg(struct jank_flame *slow, struct jank_flame *normal, FILE *out,
			      const char *title);

#endif
