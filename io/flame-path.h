/* SPDX-License-Identifier: MIT */
/*
 * A critical path as flame input (flame.h): what `jankctl flame`, the
 * differential of `jankctl compare` and a capture's flame.svg draw.
 *
 * One jank_flame_add() per segment, of its duration: the frames are the
 * segment's thread name (its comm, "tid N" when it has none), then the
 * names of its call stack, outermost first (the path's frames, named as the
 * engine's namer named them); the leaf is the segment's state as "[state]"
 * ("[blocked]", "[lock_wait]"), none when it was running: its time is then
 * the innermost function's own, or the thread's when it has no stack.
 *
 * The thread comes first because a path crosses threads and programs: two
 * programs' main() are not one function, and a thread seen without a stack
 * (no cyg-profile, a kernel-only trace) still shows its states under its
 * name, as perf's folded stacks do.
 */
#ifndef JANK_FLAME_PATH_H
#define JANK_FLAME_PATH_H

#include "critpath.h"
#include "flame.h"

/*
 * Add the segments of p to f. 0, or -ENOMEM (the segments before the one
 * that failed are in f).
 */
int jank_flame_add_path(struct jank_flame *f, const struct jank_path *p);

#endif
