/* SPDX-License-Identifier: MIT */
/*
 * The C API of <jank/jank.h>: one exported function per event.
 *
 * Each function is the tracepoint and nothing else. When no session enables
 * the event, lttng_ust_tracepoint() reduces to one load of the tracepoint
 * state and a branch not taken, so an instrumented application pays a call,
 * a load and a branch per event. Keep it that way: no argument checks, no
 * locking, no work before the enabled check. A NULL name is recorded by
 * lttng-ust as "(null)".
 */
#include "jank-tp.h"
#include "jank/jank.h"

/* The library is built with -fvisibility=hidden: export the API only. */
#define JANK_EXPORT __attribute__((visibility("default")))

JANK_EXPORT void jank_action_begin(const char *name, uint64_t id)
{
	lttng_ust_tracepoint(jank, action_begin, name, id);
}

JANK_EXPORT void jank_action_end(const char *name, uint64_t id)
{
	lttng_ust_tracepoint(jank, action_end, name, id);
}

JANK_EXPORT void jank_mark(const char *name, int64_t value)
{
	lttng_ust_tracepoint(jank, mark, name, value);
}

JANK_EXPORT void jank_flow_from(const char *name, uint64_t key)
{
	lttng_ust_tracepoint(jank, flow_from, name, key);
}

JANK_EXPORT void jank_flow_to(const char *name, uint64_t key)
{
	lttng_ust_tracepoint(jank, flow_to, name, key);
}
