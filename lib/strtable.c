/* SPDX-License-Identifier: MIT */
/* Names of enum values, both ways (see strtable.h). */
#include <string.h>
#include "strtable.h"

const char *jank_strtable_name(const char *const *table, size_t n, long v, const char *fallback)
{
	if (v < 0 || (unsigned long)v >= n || !table[v])
		return fallback;
	return table[v];
}

int jank_strtable_lookup(const char *const *table, size_t n, const char *name)
{
	for (size_t i = 0; name && i < n; i++)
		if (table[i] && !strcmp(table[i], name))
			return (int)i;
	return -1;
}
