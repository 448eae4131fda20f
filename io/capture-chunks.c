/* SPDX-License-Identifier: MIT */
/* The archived chunks of a rotating session (see capture-chunks.h). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "capture-chunks.h"
#include "capture-list.h"

#define NS_PER_S 1000000000LL

int jank_capture_chunk_parse(const char *name, struct jank_chunk *out)
{
	int64_t b, e;
	size_t n = strlen(name);
	char *end;

	/* "YYYYmmddTHHMMSS+HHMM" twice, then the index: 20 + '-' + 20 + '-' + index */
	if (n < 43 || n >= sizeof(out->name) || name[20] != '-' || name[41] != '-' ||
	    strspn(name + 42, "0123456789") != n - 42)
		return -EINVAL;
	if (jank_capture_parse_time(name, &b) != 20 ||
	    jank_capture_parse_time(name + 21, &e) != 20 || e < b)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	memcpy(out->name, name, n + 1);
	out->begin_ns = b * NS_PER_S;
	out->end_ns = (e + 1) * NS_PER_S;
	errno = 0;
	out->index = strtoull(name + 42, &end, 10);
	return errno ? -EINVAL : 0;
}

void jank_capture_chunks_select(struct jank_chunk *chunks, size_t n,
				const struct jank_interval *janks, size_t njanks,
				const struct jank_capture_chunk_times *p)
{
	int64_t limit = p->now_ns - p->retention_ns;

	if (p->oldest_open_ns != INT64_MAX && p->oldest_open_ns - p->retention_ns < limit)
		limit = p->oldest_open_ns - p->retention_ns;
	for (size_t i = 0; i < n; i++) {
		struct jank_chunk *ch = &chunks[i];

		ch->fate = JANK_CHUNK_PENDING;
		ch->jank = 0;
		for (size_t j = 0; j < njanks; j++) {
			if (ch->begin_ns <= janks[j].end &&
			    ch->end_ns >= janks[j].begin - p->retention_ns) {
				ch->fate = JANK_CHUNK_KEEP;
				ch->jank = j;
				break;
			}
		}
		if (ch->fate == JANK_CHUNK_PENDING && ch->end_ns < limit)
			ch->fate = JANK_CHUNK_DELETE;
	}
}

static int cmp_chunk(const void *a, const void *b)
{
	const struct jank_chunk *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

int jank_capture_chunks_scan(const char *archives, struct jank_chunk **out)
{
	struct jank_chunk *v = NULL, ch;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	*out = NULL;
	d = opendir(archives);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (jank_capture_chunk_parse(de->d_name, &ch) < 0)
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			struct jank_chunk *nv = realloc(v, nc * sizeof(*nv));

			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
			cap = nc;
		}
		v[n++] = ch;
	}
	closedir(d);
	jank_sort(v, n, sizeof(*v), cmp_chunk);
	*out = v;
	return (int)n;
}

int jank_capture_chunks_newest(const char *archives, uint64_t *index)
{
	struct jank_chunk ch;
	struct dirent *de;
	int found = 0;
	DIR *d;

	d = opendir(archives);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d)))
		if (jank_capture_chunk_parse(de->d_name, &ch) == 0 &&
		    (!found || ch.index > *index)) {
			*index = ch.index;
			found = 1;
		}
	closedir(d);
	return found;
}
