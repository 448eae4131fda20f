/* SPDX-License-Identifier: MIT */
/*
 * A critical path as flame input (see flame-path.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "flame-path.h"
#include "stacks.h"
#include "state.h"

/* Frames on the stack of the call: the thread and JANK_STACK_DEPTH functions. */
#define FRAMES_LOCAL (JANK_STACK_DEPTH + 1)

static int add_segment(struct jank_flame *f, const struct jank_path *p,
		       const struct jank_segment *s, const char **frames)
{
	uint32_t n = 0;
	const uint32_t *ids = s->stack ? jank_path_stack_of(p, s->stack, &n) : NULL;
	const char **v = frames;
	char thread[32], leaf[48];
	int r;

	if (!ids)
		n = 0;
	if (n + 1 > FRAMES_LOCAL && !(v = malloc((n + 1) * sizeof(*v))))
		return -ENOMEM;
	if (s->comm[0])
		v[0] = s->comm;
	else {
		snprintf(thread, sizeof(thread), "tid %" PRId32, s->tid);
		v[0] = thread;
	}
	for (uint32_t k = 0; k < n; k++) {
		const struct jank_frame *fr = jank_path_frame_of(p, ids[k]);

		v[k + 1] = fr && fr->name[0] ? fr->name : "??";
	}
	if (s->state != JANK_STATE_RUNNING)
		snprintf(leaf, sizeof(leaf), "[%s]", jank_state_name(s->state));
	r = jank_flame_add(f, v, (size_t)n + 1, s->state != JANK_STATE_RUNNING ? leaf : NULL,
			   s->end - s->begin);
	if (v != frames)
		free(v);
	return r;
}

int jank_flame_add_path(struct jank_flame *f, const struct jank_path *p)
{
	const char *frames[FRAMES_LOCAL];

	for (size_t i = 0; p && i < p->n; i++) {
		const struct jank_segment *s = &p->segs[i];
		int r;

		if (s->end <= s->begin)
			continue;
		r = add_segment(f, p, s, frames);
		if (r < 0)
			return r;
	}
	return 0;
}
