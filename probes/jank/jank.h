/* SPDX-License-Identifier: MIT */
/*
 * <jank/jank.h>: mark user actions for jankd.
 *
 * An action is an interval of work that a user waits for (a frame, a
 * request, a callback). Call jank_action_begin() when it starts and
 * jank_action_end() with the same name and id when it is done; jankd pairs
 * the two events, and explains the slow ones with their critical path.
 * jank_mark() records an instant annotation.
 *
 * A flow says that one thread hands work over to another (a task posted to
 * a pool, a message to a queue): call jank_flow_from() on the thread that
 * hands it over, and jank_flow_to() with the same name and key on the
 * thread that picks it up. With a [flow] section that pairs them, jankd
 * follows a slow action's critical path from the thread that waits for the
 * work to the thread that does it.
 *
 * The calls emit the lttng-ust events jank:action_begin, jank:action_end,
 * jank:mark, jank:flow_from and jank:flow_to. When no tracing session enables them, a call costs a
 * function call, a load and a branch. Link with `pkg-config --libs jank-ust`. See jank-ust(3).
 */
#ifndef JANK_JANK_H
#define JANK_JANK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Emit jank:action_begin {name, id}. name must be a NUL-terminated string. */
void jank_action_begin(const char *name, uint64_t id);

/* Emit jank:action_end {name, id}. Pass the name and id given at begin. */
void jank_action_end(const char *name, uint64_t id);

/* Emit jank:mark {name, value}: an instant annotation. */
void jank_mark(const char *name, int64_t value);

/* Emit jank:flow_from {name, key}: this thread hands work `key` over. */
void jank_flow_from(const char *name, uint64_t key);

/* Emit jank:flow_to {name, key}: this thread picks work `key` up. */
void jank_flow_to(const char *name, uint64_t key);

#if defined(__GNUC__) || defined(__clang__)

/* The state of a JANK_ACTION_SCOPE(); not meant to be used directly. */
struct jank_action_scope {
	const char *name;
	uint64_t id;
};

static inline struct jank_action_scope jank_action_scope_begin(const char *name, uint64_t id)
{
	struct jank_action_scope scope;

	scope.name = name;
	scope.id = id;
	jank_action_begin(name, id);
	return scope;
}

static inline void jank_action_scope_end(struct jank_action_scope *scope)
{
	jank_action_end(scope->name, scope->id);
}

#define JANK_CONCAT_(a, b) a##b
#define JANK_CONCAT(a, b)  JANK_CONCAT_(a, b)

/*
 * JANK_ACTION_SCOPE(name, id): begin an action here and end it when the
 * enclosing block exits, by any path (return, break, goto, C++ exception).
 * It is a declaration: use it where a declaration may appear. name and id
 * are evaluated once; the string that name points to must stay valid until
 * the end of the block.
 */
#define JANK_ACTION_SCOPE(name, id)                                                                \
	struct jank_action_scope JANK_CONCAT(jank_action_scope_, __COUNTER__)                      \
		__attribute__((cleanup(jank_action_scope_end), unused)) =                          \
			jank_action_scope_begin((name), (id))

#endif /* __GNUC__ || __clang__ */

#ifdef __cplusplus
}
#endif

#endif /* JANK_JANK_H */
