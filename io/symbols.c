/* SPDX-License-Identifier: MIT */
/*
 * Addresses to function names (symbols.h), on elfutils.
 *
 * Each distinct binary (path and build-id) gets one Dwfl with one module,
 * reported at its own link-time addresses (bias 0): a lookup turns the
 * run-time address into the binary's address (addr - base + the first
 * PT_LOAD's p_vaddr) and finds it in the binary's index of symbols by
 * address, sorted once (a binary search; jank_symbols_set_index off: libdwfl's
 * dwfl_module_addrinfo, which walks every symbol). So every process that
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

size_t symbols_counted_bytes(const struct jank_symbols *s)
{
	return s->book_bytes + jank_hashmap_bytes(&s->procs) + s->open_bytes;
}

char *symbols_dup_counted(struct jank_symbols *s, const char *str)
{
	char *d = strdup(str);

	if (d)
		s->book_bytes += strlen(str) + 1;
	return d;
}

void symbols_free_counted(struct jank_symbols *s, char *str)
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
	struct process *p = symbols_process_of(s, vpid);
	long i = p ? symbols_mapping_floor(p, addr) : -1;

	return i >= 0 && addr < symbols_mapping_end(&p->v[i]) ? &p->v[i] : NULL;
}

/* The same, the process used now (forget_oldest() forgets it last). */
static struct mapping *mapping_used(struct jank_symbols *s, int64_t vpid, uint64_t addr)
{
	struct process *p = symbols_process_of(s, vpid);
	long i = p ? symbols_mapping_floor(p, addr) : -1;

	if (p)
		p->last_use = ++s->tick;
	return i >= 0 && addr < symbols_mapping_end(&p->v[i]) ? &p->v[i] : NULL;
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
	symbols_free_counted(s, e->text);
	e->text = symbols_dup_counted(s, text);
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

/* ---- The symbol index ---- */

static const char *addrinfo(struct binary *b, uint64_t file_addr)
{
	GElf_Off off;
	GElf_Sym sym;

	return dwfl_module_addrinfo(b->mod, file_addr, &off, &sym, NULL, NULL, NULL);
}

/* Which of two symbols at one address libdwfl names: global, then weak, then local. */
static uint32_t binding_rank(unsigned char info)
{
	switch (GELF_ST_BIND(info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	default:
		return 1;
	}
}

/* By address; at one address, the one to name last (the walk back meets it first). */
static int cmp_entry(const void *a, const void *b)
{
	const struct sym_entry *x = a, *y = b;
	uint32_t rx = x->ndx >> 30, ry = y->ndx >> 30;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (rx != ry)
		return rx < ry ? -1 : 1;
	/* The same rank: the first in the table wins, so it goes last. */
	return x->ndx > y->ndx ? -1 : x->ndx < y->ndx;
}

/*
 * Build b's index: each named function, object or untyped symbol that is
 * defined in a section, by address. Its memory was counted with the
 * binary's cost (candidate_inspect: an entry per symbol table entry);
 * false when it cannot be had (more symbols than counted, or out of
 * memory): b's addresses then stay binary+offset, as a binary too big is.
 */
static bool index_build(struct jank_symbols *s, struct binary *b)
{
	int n = dwfl_module_getsymtab(b->mod);
	size_t k = 0, counted = b->cost > BINARY_OVERHEAD ? b->cost - BINARY_OVERHEAD : 0;

	if (n <= 0)
		return true; /* no symbols: every lookup is binary+offset */
	if ((size_t)n * sizeof(*b->syms) > counted || (size_t)n >= (1u << 30)) {
		s->st.too_big++;
		return false;
	}
	b->syms = malloc((size_t)n * sizeof(*b->syms));
	if (!b->syms)
		return false;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name =
			dwfl_module_getsym_info(b->mod, i, &sym, &addr, &shndx, NULL, NULL);
		unsigned type = GELF_ST_TYPE(sym.st_info);

		if (!name || !*name || shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE &&
		     type != STT_GNU_IFUNC))
			continue;
		b->syms[k].addr = addr;
		b->syms[k].size = sym.st_size > UINT32_MAX ? UINT32_MAX : (uint32_t)sym.st_size;
		b->syms[k].ndx = (uint32_t)i | binding_rank(sym.st_info) << 30;
		k++;
	}
	qsort(b->syms, k, sizeof(*b->syms), cmp_entry);
	for (size_t i = 0; i < k; i++)
		b->syms[i].ndx &= (1u << 30) - 1;
	b->nsyms = k;
	return true;
}

static const char *sym_name(struct binary *b, uint32_t ndx)
{
	GElf_Sym sym;
	GElf_Addr addr;
	GElf_Word shndx;

	return dwfl_module_getsym_info(b->mod, (int)ndx, &sym, &addr, &shndx, NULL, NULL);
}

/* The end of the section symbol ndx is defined in; 0 when unknown. */
static uint64_t section_end(struct binary *b, uint32_t ndx)
{
	GElf_Sym sym;
	GElf_Addr addr;
	GElf_Word shndx;
	Elf *elf = NULL;
	GElf_Shdr mem, *sh;
	Elf_Scn *scn;

	if (!dwfl_module_getsym_info(b->mod, (int)ndx, &sym, &addr, &shndx, &elf, NULL) || !elf)
		return 0;
	scn = elf_getscn(elf, shndx);
	sh = scn ? gelf_getshdr(scn, &mem) : NULL;
	return sh && (sh->sh_flags & SHF_ALLOC) ? sh->sh_addr + sh->sh_size : 0;
}

/*
 * The name of the symbol that holds file_addr: the closest one below it
 * whose size covers it (at one address, the global before the weak before
 * the local); else a sizeless one just below it, up to its section's end;
 * NULL. O(log n), and at most SCAN_BACK entries walked back.
 */
static const char *index_lookup(struct jank_symbols *s, struct binary *b, uint64_t file_addr)
{
	size_t lo = 0, hi, i;

	if (b->no_index)
		return NULL;
	if (!b->indexed) {
		b->indexed = true;
		b->no_index = !index_build(s, b);
		if (b->no_index)
			return NULL;
	}
	hi = b->nsyms;
	while (lo < hi) { /* the first entry above file_addr */
		size_t mid = lo + (hi - lo) / 2;

		if (b->syms[mid].addr <= file_addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	for (i = lo; i-- > 0 && lo - i <= SCAN_BACK;) {
		const struct sym_entry *e = &b->syms[i];

		if (e->size && file_addr < e->addr + e->size)
			return sym_name(b, e->ndx);
	}
	i = lo - 1;
	if (b->syms[i].size == 0 && file_addr < section_end(b, b->syms[i].ndx))
		return sym_name(b, b->syms[i].ndx);
	return NULL;
}

/*
 * The text for offset `rel` from base, where process vpid maps binary b
 * (opened now if it must be): as file_address(), once the file was read.
 */
static enum jank_symbols_result name_in(struct jank_symbols *s, struct binary *b, int64_t vpid,
					uint64_t base, bool is_pic, uint64_t rel, char *text,
					size_t len)
{
	uint64_t file_addr;

	b->last_use = ++s->tick;
	if (b->state == BIN_CLOSED)
		symbols_binary_open(s, b, vpid, base);
	if (b->vaddr_known)
		file_addr = rel + b->first_vaddr;
	else
		file_addr = is_pic ? rel : rel + base;
	if (b->state == BIN_OPEN) {
		const char *name =
			s->no_index ? addrinfo(b, file_addr) : index_lookup(s, b, file_addr);

		if (name && *name) {
			snprintf(text, len, "%s", name);
			return JANK_SYMBOLS_FUNCTION;
		}
	}
	snprintf(text, len, "%s+0x%" PRIx64, base_name(b->path), file_addr);
	return JANK_SYMBOLS_OFFSET;
}

enum jank_symbols_result jank_symbols_lookup(struct jank_symbols *s, int64_t vpid, uint64_t addr,
					     char *buf, size_t len)
{
	const struct cache_entry *e = &s->cache[cache_index(vpid, addr)];
	char text[CACHE_TEXT_MAX + 32];
	enum jank_symbols_result kind;
	struct mapping *m;

	s->st.lookups++;
	if (s->next_retry_ns)
		symbols_fetch_retry(s);
	if (e->text && e->vpid == vpid && e->addr == addr && e->gen == s->gen) {
		s->st.cache_hits++;
		snprintf(buf, len, "%s", e->text);
		return count(s, (enum jank_symbols_result)e->kind);
	}
	m = mapping_used(s, vpid, addr);
	if (!m) {
		snprintf(buf, len, "0x%" PRIx64, addr);
		return count(s, JANK_SYMBOLS_UNMAPPED);
	}
	kind = name_in(s, m->bin, vpid, m->base, m->is_pic, addr - m->base, text, sizeof(text));
	cache_store(s, vpid, addr, text, kind);
	snprintf(buf, len, "%s", text);
	return count(s, kind);
}

bool jank_symbols_locate(struct jank_symbols *s, int64_t vpid, uint64_t addr, uint32_t *code,
			 uint64_t *offset)
{
	struct mapping *m = mapping_used(s, vpid, addr);

	if (!m)
		return false;
	m->bin->seen_vpid = vpid;
	m->bin->seen_base = m->base;
	m->bin->seen_pic = m->is_pic;
	*code = m->bin->id;
	*offset = addr - m->base;
	return true;
}

bool jank_symbols_code_locator(int64_t process, uint64_t addr, uint32_t *code, uint64_t *offset,
			       void *data)
{
	return data && jank_symbols_locate(data, process, addr, code, offset);
}

enum jank_symbols_result jank_symbols_lookup_code(struct jank_symbols *s, uint32_t code,
						  uint64_t offset, char *buf, size_t len)
{
	/* Cached apart from any process's: its key is no vpid (those are >= 0). */
	int64_t key = -2 - (int64_t)code;
	const struct cache_entry *e = &s->cache[cache_index(key, offset)];
	char text[CACHE_TEXT_MAX + 32];
	enum jank_symbols_result kind;
	struct binary *b;

	s->st.lookups++;
	if (s->next_retry_ns)
		symbols_fetch_retry(s);
	if (e->text && e->vpid == key && e->addr == offset && e->gen == s->gen) {
		s->st.cache_hits++;
		snprintf(buf, len, "%s", e->text);
		return count(s, (enum jank_symbols_result)e->kind);
	}
	for (b = s->binaries; b && b->id != code; b = b->next)
		;
	if (!b) {
		/* No mapping refers to it any more (its processes dumped their state anew). */
		snprintf(buf, len, "0x%" PRIx64, offset);
		return count(s, JANK_SYMBOLS_UNMAPPED);
	}
	kind = name_in(s, b, b->seen_vpid, b->seen_base, b->seen_pic, offset, text, sizeof(text));
	cache_store(s, key, offset, text, kind);
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
				symbols_free_counted(s, v[i]);
			free(v);
			return -EINVAL;
		}
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv || !(nv[n] = symbols_dup_counted(s, d))) {
			free(copy);
			v = nv ? nv : v;
			for (size_t i = 0; i < n; i++)
				symbols_free_counted(s, v[i]);
			free(v);
			return -ENOMEM;
		}
		v = nv;
		n++;
	}
	free(copy);
	for (size_t i = 0; i < s->ndebug_dirs; i++)
		symbols_free_counted(s, s->debug_dirs[i]);
	free(s->debug_dirs);
	s->debug_dirs = v;
	s->ndebug_dirs = n;
	return 0;
}

void jank_symbols_set_index(struct jank_symbols *s, bool on)
{
	s->no_index = !on;
	s->gen++; /* the cache's texts came from the other way */
}

void jank_symbols_set_opener(struct jank_symbols *s, jank_symbols_open_fn fn, void *data)
{
	s->opener = fn;
	s->opener_data = data;
}

static jank_symbols_fetch_fn default_fetcher;
static void *default_fetcher_data;
static size_t default_limit = JANK_SYMBOLS_DEFAULT_LIMIT;

void jank_symbols_set_default_limit(size_t memory_limit)
{
	default_limit = memory_limit ? memory_limit : JANK_SYMBOLS_DEFAULT_LIMIT;
}

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

	if (root && *root && !(r = symbols_dup_counted(s, root)))
		return -ENOMEM;
	if (r) {
		size_t n = strlen(r);

		while (n > 1 && r[n - 1] == '/')
			r[--n] = '\0'; /* the binaries' paths begin with one */
	}
	symbols_free_counted(s, s->root);
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
	s->st.limit = memory_limit ? memory_limit : default_limit;
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
			symbols_process_free(s, s->procs.slots[i].value);
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
	out->bytes = symbols_counted_bytes(s);
}

void jank_symbols_frame_namer(const struct jank_frame *f, char *buf, size_t len, void *data)
{
	if (!data || f->kernel)
		snprintf(buf, len, "0x%" PRIx64, f->addr);
	else if (f->code)
		jank_symbols_lookup_code(data, f->code, f->addr, buf, len);
	else
		jank_symbols_lookup(data, f->pid, f->addr, buf, len);
}
