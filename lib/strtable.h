/* SPDX-License-Identifier: MIT */
/*
 * The names of an enum's values, spelled once (systemd's string-table
 * lookup): a file that owns an enum keeps one array of names indexed by its
 * values, and a macro generates the two functions every such enum needs,
 * so that no switch or ternary spells a name again elsewhere:
 *
 *	static const char *const jank_state_names[] = {
 *		[JANK_STATE_RUNNING] = "running", ...
 *	};
 *	JANK_STRTABLE_DEFINE(jank_state, enum jank_state, "unknown")
 *
 * defines
 *
 *	const char *jank_state_name(enum jank_state v);  // "unknown" for a value without a name
 *	int jank_state_from_name(const char *name);      // the value, -1 for no value (or NULL)
 *
 * which its header declares with JANK_STRTABLE_DECLARE(jank_state, enum
 * jank_state). The array may hold NULLs (values without a name) and end
 * with one (a NULL-terminated list, as the config schema wants its enums).
 */
#ifndef JANK_STRTABLE_H
#define JANK_STRTABLE_H

#include <stddef.h>

/* table[v], or `fallback` when v is out of the table or has no name. */
const char *jank_strtable_name(const char *const *table, size_t n, long v, const char *fallback);
/* The index of `name` in the table, or -1 (a NULL name too). */
int jank_strtable_lookup(const char *const *table, size_t n, const char *name);

#define JANK_STRTABLE_LEN(table) (sizeof(table) / sizeof((table)[0]))

#define JANK_STRTABLE_DECLARE(prefix, type)                                                        \
	const char *prefix##_name(type v);                                                         \
	int prefix##_from_name(const char *name)

#define JANK_STRTABLE_DEFINE(prefix, type, fallback)                                               \
	const char *prefix##_name(type v)                                                          \
	{                                                                                          \
		return jank_strtable_name(prefix##_names, JANK_STRTABLE_LEN(prefix##_names),       \
					  (long)v, fallback);                                      \
	}                                                                                          \
	int prefix##_from_name(const char *name)                                                   \
	{                                                                                          \
		return jank_strtable_lookup(prefix##_names, JANK_STRTABLE_LEN(prefix##_names),     \
					    name);                                                 \
	}

#endif
