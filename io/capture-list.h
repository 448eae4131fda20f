/* SPDX-License-Identifier: MIT */
/*
 * The capture directories of a dir (`jankctl captures`, and the quota of
 * capture-policy.h): their names, their list, and the table printed of them.
 *
 * A capture directory is <dir>/<UTC YYYYmmddTHHMMSSZ>-<action>-<tid>/, with
 * ".2".."9" added when two captures got the same name.
 */
#ifndef JANK_CAPTURE_LIST_H
#define JANK_CAPTURE_LIST_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * "YYYYmmddTHHMMSS" then a zone, "Z" or "+HHMM"/"-HHMM", at s (lttng names
 * its chunks with local times and an offset): seconds since the epoch.
 * Returns how many characters it read (16 or 20), or -EINVAL.
 */
int jank_capture_parse_time(const char *s, int64_t *sec);

/*
 * Parse a capture directory's name, "20240501T120000Z-frame-4312": its UTC
 * time (ns) and, optionally, its action and tid. Returns 0 or -EINVAL.
 */
int jank_capture_parse_name(const char *name, int64_t *time_ns, char *action, size_t action_len,
			    int32_t *tid);

struct jank_capture_entry {
	char name[NAME_MAX + 1];
	int64_t time_ns;
	uint64_t bytes;
};

/*
 * The capture directories of `dir`, oldest first. *out is malloc'd (free()
 * it). Returns the count, or -errno (-ENOENT: no such dir).
 */
int jank_capture_list(const char *dir, struct jank_capture_entry **out, bool sizes);

/*
 * The captures of `dir`, oldest first, as a table or JSON Lines: time,
 * action, key, duration, size on disk, state and the report's summary.
 * Returns 0, or -errno with a message in `err` (-ENOENT: no such dir).
 */
int jank_capture_list_print(FILE *f, const char *dir, bool json, char *err, size_t errlen);

#endif
