/* SPDX-License-Identifier: MIT */
/*
 * Addresses to function names (symbols.h), on elfutils.
 *
 * Each distinct binary (path and build-id) gets one Dwfl with one module,
 * reported at its own link-time addresses (bias 0): a lookup turns the
 * run-time address into the binary's address (addr - base + the first
 * PT_LOAD's p_vaddr) and asks dwfl_module_addrinfo. So every process that
 * maps libc shares one libc, wherever ASLR put it.
 *
 * We open the files ourselves (O_NONBLOCK, regular files only, a size cap)
 * and hand libdwfl an Elf read with ELF_C_READ through its find_elf
 * callback: libelf then reads what it needs with pread, and a file that
 * shrinks under us gives an error, not the SIGBUS a mapped file would. Our
 * find_debuginfo callback finds nothing: we pick the separate debug file
 * ourselves (it becomes the module's main file) and libdwfl never searches
 * the network (debuginfod) or other directories: a download is the
 * fetcher's, which the program sets (jank_symbols_set_fetcher), and only
 * for what the configuration says.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <lzma.h>
#include "symbols-int.h"

/* ---- Accounting ---- */

size_t counted_bytes(const struct jank_symbols *s)
{
	return s->book_bytes + jank_hashmap_bytes(&s->procs) + s->open_bytes;
}

char *dup_counted(struct jank_symbols *s, const char *str)
{
	char *d = strdup(str);

	if (d)
		s->book_bytes += strlen(str) + 1;
	return d;
}

void free_counted(struct jank_symbols *s, char *str)
{
	if (!str)
		return;
	s->book_bytes -= strlen(str) + 1;
	free(str);
}

/* ---- Lookups ---- */

/* ADDR, in mapping m, in the binary's own terms. */
static uint64_t file_address(const struct mapping *m, uint64_t addr)
{
	if (m->bin->vaddr_known)
		return addr - m->base + m->bin->first_vaddr;
	return m->is_pic ? addr - m->base : addr;
}

/* The mapping of process vpid that holds addr, NULL. */
static struct mapping *mapping_of(const struct jank_symbols *s, int64_t vpid, uint64_t addr)
{
	struct process *p = jank_hashmap_get(&s->procs, vpid_key(vpid));
	long i = p ? mapping_floor(p, addr) : -1;

	return i >= 0 && addr < mapping_end(&p->v[i]) ? &p->v[i] : NULL;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

static size_t cache_index(int64_t vpid, uint64_t addr)
{
	return (size_t)jank_hash64(addr ^ ((uint64_t)vpid << 40) ^ ((uint64_t)vpid >> 24)) &
	       (CACHE_SIZE - 1);
}

static void cache_store(struct jank_symbols *s, int64_t vpid, uint64_t addr, const char *text,
			enum jank_symbols_result kind)
{
	struct cache_entry *e = &s->cache[cache_index(vpid, addr)];

	if (strlen(text) >= CACHE_TEXT_MAX)
		return;
	free_counted(s, e->text);
	e->text = dup_counted(s, text);
	e->vpid = vpid;
	e->addr = addr;
	e->gen = s->gen;
	e->kind = (uint8_t)kind;
}

static enum jank_symbols_result count(struct jank_symbols *s, enum jank_symbols_result kind)
{
	if (kind == JANK_SYMBOLS_FUNCTION)
		s->st.resolved++;
	else
		s->st.unresolved++;
	return kind;
}

enum jank_symbols_result jank_symbols_lookup(struct jank_symbols *s, int64_t vpid, uint64_t addr,
					     char *buf, size_t len)
{
	const struct cache_entry *e = &s->cache[cache_index(vpid, addr)];
	char text[CACHE_TEXT_MAX + 32];
	enum jank_symbols_result kind;
	struct mapping *m;
	struct binary *b;
	uint64_t file_addr;

	s->st.lookups++;
	if (s->next_retry_ns)
		fetch_retry(s);
	if (e->text && e->vpid == vpid && e->addr == addr && e->gen == s->gen) {
		s->st.cache_hits++;
		snprintf(buf, len, "%s", e->text);
		return count(s, (enum jank_symbols_result)e->kind);
	}
	m = mapping_of(s, vpid, addr);
	if (!m) {
		snprintf(buf, len, "0x%" PRIx64, addr);
		return count(s, JANK_SYMBOLS_UNMAPPED);
	}
	b = m->bin;
	b->last_use = ++s->tick;
	if (b->state == BIN_CLOSED)
		binary_open(s, b, vpid, m->base);
	file_addr = file_address(m, addr);
	kind = JANK_SYMBOLS_OFFSET;
	if (b->state == BIN_OPEN) {
		GElf_Off off;
		GElf_Sym sym;
		const char *name =
			dwfl_module_addrinfo(b->mod, file_addr, &off, &sym, NULL, NULL, NULL);

		if (name && *name) {
			snprintf(text, sizeof(text), "%s", name);
			kind = JANK_SYMBOLS_FUNCTION;
		}
	}
	if (kind == JANK_SYMBOLS_OFFSET)
		snprintf(text, sizeof(text), "%s+0x%" PRIx64, base_name(b->path), file_addr);
	cache_store(s, vpid, addr, text, kind);
	snprintf(buf, len, "%s", text);
	return count(s, kind);
}

/* ---- Life ---- */

int jank_symbols_set_debug_dirs(struct jank_symbols *s, const char *dirs)
{
	char **v = NULL, *copy, *save = NULL;
	size_t n = 0;

	copy = strdup(dirs ? dirs : "");
	if (!copy)
		return -ENOMEM;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char **nv;

		if (d[0] != '/') {
			free(copy);
			for (size_t i = 0; i < n; i++)
				free_counted(s, v[i]);
			free(v);
			return -EINVAL;
		}
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv || !(nv[n] = dup_counted(s, d))) {
			free(copy);
			v = nv ? nv : v;
			for (size_t i = 0; i < n; i++)
				free_counted(s, v[i]);
			free(v);
			return -ENOMEM;
		}
		v = nv;
		n++;
	}
	free(copy);
	for (size_t i = 0; i < s->ndebug_dirs; i++)
		free_counted(s, s->debug_dirs[i]);
	free(s->debug_dirs);
	s->debug_dirs = v;
	s->ndebug_dirs = n;
	return 0;
}

void jank_symbols_set_opener(struct jank_symbols *s, jank_symbols_open_fn fn, void *data)
{
	s->opener = fn;
	s->opener_data = data;
}

static jank_symbols_fetch_fn default_fetcher;
static void *default_fetcher_data;

void jank_symbols_set_fetcher(struct jank_symbols *s, jank_symbols_fetch_fn fn, void *data)
{
	s->fetcher = fn;
	s->fetcher_data = data;
}

void jank_symbols_set_default_fetcher(jank_symbols_fetch_fn fn, void *data)
{
	default_fetcher = fn;
	default_fetcher_data = data;
}

int jank_symbols_set_root(struct jank_symbols *s, const char *root)
{
	char *r = NULL;

	if (root && *root && !(r = dup_counted(s, root)))
		return -ENOMEM;
	if (r) {
		size_t n = strlen(r);

		while (n > 1 && r[n - 1] == '/')
			r[--n] = '\0'; /* the binaries' paths begin with one */
	}
	free_counted(s, s->root);
	s->root = r;
	return 0;
}

struct jank_symbols *jank_symbols_new(size_t memory_limit)
{
	struct jank_symbols *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	elf_version(EV_CURRENT);
	jank_hashmap_init(&s->procs);
	s->st.limit = memory_limit ? memory_limit : JANK_SYMBOLS_DEFAULT_LIMIT;
	s->book_bytes = sizeof(*s);
	s->fetcher = default_fetcher;
	s->fetcher_data = default_fetcher_data;
	if (jank_symbols_set_debug_dirs(s, "/usr/lib/debug") < 0) {
		free(s);
		return NULL;
	}
	return s;
}

void jank_symbols_free(struct jank_symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->procs.cap; i++)
		if (s->procs.slots[i].value)
			process_free(s, s->procs.slots[i].value);
	jank_hashmap_fini(&s->procs);
	for (size_t i = 0; i < CACHE_SIZE; i++)
		free(s->cache[i].text);
	for (size_t i = 0; i < s->ndebug_dirs; i++)
		free(s->debug_dirs[i]);
	free(s->debug_dirs);
	free(s->root);
	free(s);
}

int jank_symbols_for_each_binary(const struct jank_symbols *s, jank_symbols_binary_fn fn,
				 void *data)
{
	for (const struct binary *b = s->binaries; b; b = b->next) {
		int r = fn(b->path, b->build_id, b->build_id_len, b->symbol_file, data);

		if (r)
			return r;
	}
	return 0;
}

int jank_symbols_where(const struct jank_symbols *s, int64_t vpid, uint64_t addr,
		       struct jank_symbols_place *out)
{
	const struct mapping *m = mapping_of(s, vpid, addr);
	const struct binary *b;

	memset(out, 0, sizeof(*out));
	if (!m)
		return -ENOENT;
	b = m->bin;
	out->path = b->path;
	if (b->build_id_len) {
		out->build_id = b->build_id;
		out->build_id_len = b->build_id_len;
	} else if (b->file_build_id_len) {
		out->build_id = b->file_build_id;
		out->build_id_len = b->file_build_id_len;
		out->build_id_from_file = true;
	}
	out->debug_link = b->debug_link;
	out->symbol_file = b->symbol_file;
	out->base = m->base;
	out->memsz = m->memsz;
	out->is_pic = m->is_pic;
	out->vaddr_known = b->vaddr_known;
	out->first_vaddr = b->vaddr_known ? b->first_vaddr : 0;
	out->offset = file_address(m, addr);
	return 0;
}

void jank_symbols_get_stats(const struct jank_symbols *s, struct jank_symbols_stats *out)
{
	*out = s->st;
	out->bytes = counted_bytes(s);
}

void jank_symbols_frame_namer(const struct jank_frame *f, char *buf, size_t len, void *data)
{
	if (!data || f->kernel)
		snprintf(buf, len, "0x%" PRIx64, f->addr);
	else
		jank_symbols_lookup(data, f->pid, f->addr, buf, len);
}
