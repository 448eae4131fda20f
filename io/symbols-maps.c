/* SPDX-License-Identifier: MIT */
/*
 * The processes of the symbolizer (symbols.c) and their mappings: added
 * from the trace's statedump and dlopen events or read from
 * /proc/PID/maps.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbols-int.h"

/* ---- Processes and their mappings ---- */

uint64_t symbols_vpid_key(int64_t vpid)
{
	return (uint64_t)vpid;
}

/* Index of the last mapping with base <= addr, or -1. */
long symbols_mapping_floor(const struct process *p, uint64_t addr)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->v[mid].base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

uint64_t symbols_mapping_end(const struct mapping *m)
{
	uint64_t end;

	return m->memsz && !__builtin_add_overflow(m->base, m->memsz, &end) ? end : UINT64_MAX;
}

static struct mapping *mapping_at(struct process *p, uint64_t base)
{
	long i = symbols_mapping_floor(p, base);

	return i >= 0 && p->v[i].base == base ? &p->v[i] : NULL;
}

static void process_remove_at(struct jank_symbols *s, struct process *p, size_t i)
{
	symbols_binary_put(s, p->v[i].bin);
	memmove(&p->v[i], &p->v[i + 1], (p->n - i - 1) * sizeof(*p->v));
	p->n--;
	s->st.mappings--;
}

void symbols_process_free(struct jank_symbols *s, struct process *p)
{
	while (p->n)
		process_remove_at(s, p, p->n - 1);
	s->book_bytes -= p->cap * sizeof(*p->v) + sizeof(*p);
	free(p->v);
	free(p);
	s->st.processes--;
}

void jank_symbols_forget_process(struct jank_symbols *s, int64_t vpid)
{
	struct process *p = jank_hashmap_remove(&s->procs, symbols_vpid_key(vpid));

	if (p) {
		symbols_process_free(s, p);
		s->ns_procs -= vpid > INT32_MAX;
		s->gen++;
	}
}

/*
 * The process of key VPID; for a bare vpid that none has (a frame of no
 * known code location, named by its pid alone: e.g. a capture report's,
 * which has no locator), the one process of that pid in a PID namespace,
 * if there is exactly one (two containers' pid 1: neither).
 */
struct process *symbols_process_of(const struct jank_symbols *s, int64_t vpid)
{
	struct process *p = jank_hashmap_get(&s->procs, symbols_vpid_key(vpid));

	if (p || !s->ns_procs || vpid < 0 || vpid > INT32_MAX)
		return p;
	for (size_t i = 0; i < s->procs.cap; i++) {
		const struct jank_hashmap_slot *sl = &s->procs.slots[i];

		if (!sl->value || (int64_t)sl->key <= INT32_MAX ||
		    jank_process_key_pid((int64_t)sl->key) != vpid)
			continue;
		if (p)
			return NULL; /* two: which one is not known */
		p = sl->value;
	}
	return p;
}

/*
 * Forget the process least recently used (mapped, located in or looked up
 * in) but `keep`, so that the processes of weeks (exited ones, which no
 * event says) do not fill the bookkeeping's half of the limit. false: none
 * left to forget.
 */
static bool forget_oldest(struct jank_symbols *s, int64_t keep)
{
	const struct jank_hashmap_slot *lru = NULL;

	for (size_t i = 0; i < s->procs.cap; i++) {
		const struct jank_hashmap_slot *sl = &s->procs.slots[i];
		const struct process *p = sl->value;

		if (p && sl->key != symbols_vpid_key(keep) &&
		    (!lru || p->last_use < ((const struct process *)lru->value)->last_use))
			lru = sl;
	}
	if (!lru)
		return false;
	jank_symbols_forget_process(s, (int64_t)lru->key);
	s->st.forgotten++;
	return true;
}

static struct process *process_get(struct jank_symbols *s, int64_t vpid)
{
	struct process *p = jank_hashmap_get(&s->procs, symbols_vpid_key(vpid));

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	if (jank_hashmap_put(&s->procs, symbols_vpid_key(vpid), p) < 0) {
		free(p);
		return NULL;
	}
	s->ns_procs += vpid > INT32_MAX;
	s->book_bytes += sizeof(*p);
	s->st.processes++;
	return p;
}

int jank_symbols_add_mapping(struct jank_symbols *s, int64_t vpid, uint64_t base, uint64_t memsz,
			     const char *path, const uint8_t *build_id, size_t build_id_len,
			     const char *debug_link, bool is_pic)
{
	struct process *p;
	struct binary *b;
	struct mapping m;
	uint64_t end;
	long i;

	if (!path || !*path || strlen(path) >= PATH_MAX ||
	    (debug_link && strlen(debug_link) >= NAME_MAX))
		return -EINVAL;
	if (build_id_len > JANK_SYMBOLS_MAX_BUILD_ID || !build_id)
		build_id_len = 0; /* not a build-id we can compare: as if none */
	while (symbols_counted_bytes(s) - s->open_bytes > s->st.limit / 2)
		if (!forget_oldest(s, vpid)) {
			s->st.dropped++;
			return -ENOSPC;
		}
	p = process_get(s, vpid);
	if (!p)
		return -ENOMEM;
	p->last_use = ++s->tick;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct mapping *v = realloc(p->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->book_bytes += (cap - p->cap) * sizeof(*v);
		p->v = v;
		p->cap = cap;
	}
	b = symbols_binary_get(s, path, build_id, build_id_len, debug_link);
	if (!b)
		return -ENOMEM;
	m = (struct mapping){ .base = base, .memsz = memsz, .bin = b, .is_pic = is_pic };
	end = symbols_mapping_end(&m);
	/* A new mapping replaces what it overlaps, as mmap does. */
	i = symbols_mapping_floor(p, base);
	if (i >= 0 && symbols_mapping_end(&p->v[i]) > base)
		process_remove_at(s, p, (size_t)i);
	else
		i++;
	while ((size_t)i < p->n && p->v[i].base < end)
		process_remove_at(s, p, (size_t)i);
	memmove(&p->v[i + 1], &p->v[i], (p->n - (size_t)i) * sizeof(*p->v));
	p->v[i] = m;
	p->n++;
	s->st.mappings++;
	s->gen++;
	if (build_id_len)
		symbols_open_early(s, b, vpid, base);
	return 0;
}

int jank_symbols_set_build_id(struct jank_symbols *s, int64_t vpid, uint64_t base,
			      const uint8_t *build_id, size_t len)
{
	struct process *p = jank_hashmap_get(&s->procs, symbols_vpid_key(vpid));
	struct mapping *m = p ? mapping_at(p, base) : NULL;
	struct binary *old, *b;

	if (!m)
		return -ENOENT;
	if (!build_id || len > JANK_SYMBOLS_MAX_BUILD_ID)
		len = 0;
	old = m->bin;
	b = symbols_binary_get(s, old->path, build_id, len, old->debug_link);
	if (!b)
		return -ENOMEM;
	m->bin = b;
	symbols_binary_put(s, old);
	s->gen++;
	symbols_open_early(s, b, vpid, base);
	return 0;
}

int jank_symbols_set_debug_link(struct jank_symbols *s, int64_t vpid, uint64_t base,
				const char *debug_link)
{
	struct process *p = jank_hashmap_get(&s->procs, symbols_vpid_key(vpid));
	struct mapping *m = p ? mapping_at(p, base) : NULL;
	char *d;

	if (!m)
		return -ENOENT;
	if (!debug_link || strlen(debug_link) >= NAME_MAX)
		return -EINVAL;
	if (m->bin->debug_link && strcmp(m->bin->debug_link, debug_link) == 0)
		return 0;
	d = symbols_dup_counted(s, debug_link);
	if (!d)
		return -ENOMEM;
	symbols_free_counted(s, m->bin->debug_link);
	m->bin->debug_link = d;
	if (m->bin->state == BIN_FAILED)
		m->bin->state = BIN_CLOSED; /* the debug file may be there */
	s->gen++;
	return 0;
}

int jank_symbols_remove_mapping(struct jank_symbols *s, int64_t vpid, uint64_t base)
{
	struct process *p = jank_hashmap_get(&s->procs, symbols_vpid_key(vpid));
	struct mapping *m = p ? mapping_at(p, base) : NULL;

	if (!m)
		return -ENOENT;
	process_remove_at(s, p, (size_t)(m - p->v));
	s->gen++;
	return 0;
}

/* ---- /proc/PID/maps ---- */

struct maps_run {
	char path[PATH_MAX];
	uint64_t base, end;
	unsigned long inode;
	bool open;
};

static int maps_flush(struct jank_symbols *s, int64_t vpid, struct maps_run *r)
{
	int ret;

	if (!r->open)
		return 0;
	r->open = false;
	/* is_pic is a guess when the file cannot be read: most binaries are PIE or .so now. */
	ret = jank_symbols_add_mapping(s, vpid, r->base, r->end - r->base, r->path, NULL, 0, NULL,
				       true);
	return ret < 0 ? ret : 1;
}

static int add_maps(struct jank_symbols *s, FILE *f, const char *name, int64_t vpid, char *err,
		    size_t errlen);

int jank_symbols_add_proc_maps(struct jank_symbols *s, pid_t pid, int64_t vpid, char *err,
			       size_t errlen)
{
	char name[64];
	FILE *f;
	int r;

	snprintf(name, sizeof(name), "/proc/%ld/maps", (long)pid);
	f = fopen(name, "re");
	if (!f) {
		r = -errno;
		jank_errf(err, errlen, "%s: %s", name, strerror(errno));
		return r;
	}
	return add_maps(s, f, name, vpid, err, errlen);
}

int jank_symbols_add_maps_fd(struct jank_symbols *s, int fd, int64_t vpid, char *err, size_t errlen)
{
	FILE *f = fdopen(fd, "re");

	if (!f) {
		close(fd);
		jank_errf(err, errlen, "maps of %" PRId64 ": %s", vpid, strerror(ENOMEM));
		return -ENOMEM;
	}
	return add_maps(s, f, "maps", vpid, err, errlen);
}

/* The mappings of F (a /proc/PID/maps, closed here) as VPID's. */
static int add_maps(struct jank_symbols *s, FILE *f, const char *name, int64_t vpid, char *err,
		    size_t errlen)
{
	char line[PATH_MAX + 256];
	struct maps_run run = { .open = false };
	int added = 0, r = 0;

	jank_symbols_forget_process(s, vpid);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		unsigned long inode;
		char *path = NULL;
		int n = 0;
		size_t len = strlen(line);

		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (sscanf(line, "%llx-%llx %*s %llx %*s %lu %n", &start, &end, &off, &inode, &n) <
			    4 ||
		    n <= 0)
			continue;
		path = line + n;
		if (path[0] != '/' || inode == 0 || end <= start)
			continue;
		/* The rest of a binary's segments: same file, later offsets, above its start. */
		if (run.open && run.inode == inode && strcmp(run.path, path) == 0 && off > 0 &&
		    start >= run.base) {
			if (end > run.end)
				run.end = end;
			continue;
		}
		r = maps_flush(s, vpid, &run);
		if (r < 0)
			break;
		added += r;
		r = 0;
		/* A binary's first segment maps its file from offset 0: its start is the base. */
		if (off != 0 || strlen(path) >= sizeof(run.path))
			continue;
		snprintf(run.path, sizeof(run.path), "%s", path);
		run.base = start;
		run.end = end;
		run.inode = inode;
		run.open = true;
	}
	fclose(f);
	if (r == 0) {
		r = maps_flush(s, vpid, &run);
		if (r > 0)
			added += r;
	}
	if (r < 0) {
		jank_errf(err, errlen, "%s: %s", name, strerror(-r));
		return r;
	}
	return added;
}
