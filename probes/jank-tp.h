/* SPDX-License-Identifier: MIT */
/*
 * The `jank` lttng-ust tracepoint provider: event definitions.
 *
 * This header is private to libjank-ust. Applications use <jank/jank.h>,
 * whose functions are the only call sites of these tracepoints. Because the
 * provider (jank-tp.c) and the call sites (jank-ust.c) live in the same
 * shared object, both kinds of tracepoint symbols are kept hidden: the
 * enabled check then reads the tracepoint state without a GOT indirection.
 *
 * Events (all at log level INFO):
 *   jank:action_begin  name: string, id: 64-bit unsigned integer
 *   jank:action_end    name: string, id: 64-bit unsigned integer
 *   jank:mark          name: string, value: 64-bit signed integer
 *   jank:flow_from     name: string, key: 64-bit unsigned integer
 *   jank:flow_to       name: string, key: 64-bit unsigned integer
 *
 * The field names and types are an interface: jankd's rules and the tests
 * match on them. Change them only with a new event name.
 */
#define LTTNG_UST_TRACEPOINT_HIDDEN_DEFINITION
#define LTTNG_UST_TRACEPOINT_PROVIDER_HIDDEN_DEFINITION

#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER jank

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "jank-tp.h"

#if !defined(JANK_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define JANK_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

/* One class, hence one serialisation function, for both ends of an action. */
/* clang-format off */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(
	jank, action,
	LTTNG_UST_TP_ARGS(const char *, name, uint64_t, id),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(name, name)
		lttng_ust_field_integer(uint64_t, id, id)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(
	jank, action, jank, action_begin,
	LTTNG_UST_TP_ARGS(const char *, name, uint64_t, id)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(jank, action_begin, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(
	jank, action, jank, action_end,
	LTTNG_UST_TP_ARGS(const char *, name, uint64_t, id)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(jank, action_end, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

LTTNG_UST_TRACEPOINT_EVENT(jank, mark,
	LTTNG_UST_TP_ARGS(const char *, name, int64_t, value),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_string(name, name)
			    lttng_ust_field_integer(int64_t, value, value)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(jank, mark, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

/* One class for both ends of a flow: work handed over, and picked up. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(
	jank, flow,
	LTTNG_UST_TP_ARGS(const char *, name, uint64_t, key),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(name, name)
		lttng_ust_field_integer(uint64_t, key, key)
	)
)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(
	jank, flow, jank, flow_from,
	LTTNG_UST_TP_ARGS(const char *, name, uint64_t, key)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(jank, flow_from, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(
	jank, flow, jank, flow_to,
	LTTNG_UST_TP_ARGS(const char *, name, uint64_t, key)
)
LTTNG_UST_TRACEPOINT_LOGLEVEL(jank, flow_to, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)
/* clang-format on */

#endif /* JANK_TP_H */

#include <lttng/tracepoint-event.h>
