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
#include <time.h>
#include <unistd.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <lzma.h>
#include "errbuf.h"
#include "hashmap.h"
#include "critpath.h"
#include "symbols.h"

#define CACHE_SIZE	 1024 /* lookup results, direct-mapped (a power of two) */
#define CACHE_TEXT_MAX	 512  /* longer texts are not cached */
#define MAX_FILE_SIZE	 ((uint64_t)4 << 30)
#define BINARY_OVERHEAD	 16384		      /* libelf and libdwfl's structures per open binary */
#define BYTES_PER_SYMBOL 16		      /* libdwfl's per-symbol bookkeeping */
#define XZ_MEMLIMIT	 ((uint64_t)64 << 20) /* liblzma's own, while measuring */
#define FETCH_RETRY_NS	 250000000LL	      /* a fetch under way: the first retry, doubled */
#define FETCH_RETRY_MAX	 4000000000LL	      /* up to this */

enum bin_state {
	BIN_CLOSED = 0, /* never opened, or closed to stay under the limit */
	BIN_OPEN,
	BIN_FAILED, /* no usable file: lookups give binary+offset */
};

struct binary {
	struct binary *prev, *next;
	char *path;
	uint8_t build_id[JANK_SYMBOLS_MAX_BUILD_ID];
	size_t build_id_len;
	char *debug_link;  /* from the trace; NULL: the binary's own, if any */
	char *symbol_file; /* the file its symbols came from, once opened */
	/* The file's own build-id, once read (the trace may give none). */
	uint8_t file_build_id[JANK_SYMBOLS_MAX_BUILD_ID];
	size_t file_build_id_len;
	unsigned refs; /* mappings */
	enum bin_state state;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	bool vaddr_known; /* the ELF was read once: first_vaddr is the file's */
	uint64_t first_vaddr;
	size_t cost; /* counted while open */
	uint64_t last_use;
	/* A fetch under way (jank_symbols_set_fetcher): opened again at fetch_retry. */
	bool fetch_wait;
	int64_t fetch_retry_ns, fetch_backoff_ns;
	/* Handed to libdwfl by find_elf_cb. */
	int pending_fd;
	Elf *pending_elf;
};

struct mapping {
	uint64_t base, memsz;
	struct binary *bin;
	bool is_pic;
};

struct process {
	struct mapping *v; /* sorted by base, not overlapping */
	size_t n, cap;
};

struct cache_entry {
	int64_t vpid;
	uint64_t addr;
	uint64_t gen;
	char *text;
	uint8_t kind;
};

struct jank_symbols {
	struct jank_hashmap procs; /* vpid -> struct process */
	struct binary *binaries;
	char **debug_dirs;
	size_t ndebug_dirs;
	char *root;
	jank_symbols_open_fn opener;
	void *opener_data;
	jank_symbols_fetch_fn fetcher;
	void *fetcher_data;
	int64_t next_retry_ns; /* the earliest fetch_retry_ns of the binaries waiting */
	uint64_t gen; /* bumped by every change of a mapping: older cache entries are void */
	uint64_t tick;
	size_t book_bytes; /* bookkeeping, without the hash map's table */
	size_t open_bytes;
	struct jank_symbols_stats st;
	struct cache_entry cache[CACHE_SIZE];
};

/* ---- Accounting ---- */

static size_t counted_bytes(const struct jank_symbols *s)
{
	return s->book_bytes + jank_hashmap_bytes(&s->procs) + s->open_bytes;
}

static char *dup_counted(struct jank_symbols *s, const char *str)
{
	char *d = strdup(str);

	if (d)
		s->book_bytes += strlen(str) + 1;
	return d;
}

static void free_counted(struct jank_symbols *s, char *str)
{
	if (!str)
		return;
	s->book_bytes -= strlen(str) + 1;
	free(str);
}

/* ---- libdwfl callbacks ---- */

static int find_elf_cb(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		       char **file_name, Elf **elfp)
{
	struct binary *b = *userdata;
	int fd = b->pending_fd;

	*elfp = b->pending_elf;
	b->pending_elf = NULL;
	b->pending_fd = -1;
	return fd;
}

static int find_debuginfo_cb(Dwfl_Module *mod, void **userdata, const char *modname,
			     Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			     GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	return -1; /* chosen beforehand: see binary_open() */
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = find_elf_cb,
	.find_debuginfo = find_debuginfo_cb,
	.section_address = dwfl_offline_section_address,
};

/* ---- Opening binaries ---- */

struct candidate {
	char path[PATH_MAX];
	int fd;
	Elf *elf;
	uint64_t start, end; /* the PT_LOAD segments: first p_vaddr (page-aligned), highest end */
	uint64_t first_vaddr;
	bool has_symtab;
	bool too_big; /* its .gnu_debugdata unpacks past the symbolizer's share */
	size_t cost;
};

static void candidate_close(struct candidate *c)
{
	if (c->elf)
		elf_end(c->elf);
	if (c->fd >= 0)
		close(c->fd);
	c->elf = NULL;
	c->fd = -1;
}

/* The size of section `ndx` (a string table linked from a symbol table). */
static uint64_t section_size(Elf *elf, size_t ndx)
{
	GElf_Shdr mem, *sh;
	Elf_Scn *scn = elf_getscn(elf, ndx);

	sh = scn ? gelf_getshdr(scn, &mem) : NULL;
	return sh && sh->sh_type != SHT_NOBITS ? sh->sh_size : 0;
}

/*
 * The size xz data unpacks to, by unpacking it into a scratch buffer and
 * counting, never past `cap` (its own header may claim anything):
 * UINT64_MAX past cap, or when it is not xz.
 */
static uint64_t xz_unpacked_size(const void *in, size_t n, uint64_t cap)
{
	lzma_stream z = LZMA_STREAM_INIT;
	uint8_t out[65536];
	uint64_t total = 0;
	lzma_ret r;

	if (lzma_stream_decoder(&z, XZ_MEMLIMIT, 0) != LZMA_OK)
		return UINT64_MAX;
	z.next_in = in;
	z.avail_in = n;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		r = lzma_code(&z, LZMA_FINISH);
		total += sizeof(out) - z.avail_out;
	} while (r == LZMA_OK && total <= cap);
	lzma_end(&z);
	return r == LZMA_STREAM_END && total <= cap ? total : UINT64_MAX;
}

/*
 * MiniDebugInfo (.gnu_debugdata): libdwfl unpacks it in memory when the
 * file has no .symtab, to a size the file chooses. Counted in the cost, or
 * the binary is refused (too_big) when it unpacks past `cap`.
 */
static void candidate_debugdata(struct candidate *c, Elf_Scn *scn, uint64_t cap)
{
	Elf_Data *d = elf_rawdata(scn, NULL);
	uint64_t size = d && d->d_buf ? xz_unpacked_size(d->d_buf, d->d_size, cap) : 0;

	if (size == UINT64_MAX)
		c->too_big = true;
	else
		c->cost += (size_t)size + (size_t)(size / 24) * BYTES_PER_SYMBOL;
}

/* Sections and segments, through libelf: a usable executable or shared object? */
static bool candidate_inspect(struct candidate *c, uint64_t file_size, uint64_t debugdata_cap)
{
	GElf_Ehdr ehdr;
	size_t phnum, shstrndx = 0;
	Elf_Scn *debugdata = NULL;
	bool found = false;
	uint64_t symtab = 0, dynsym = 0;
	Elf_Scn *scn = NULL;

	if (elf_kind(c->elf) != ELF_K_ELF || !gelf_getehdr(c->elf, &ehdr))
		return false;
	/* ET_REL and cores would need other callbacks; no process maps them. */
	if (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN)
		return false;
	if (elf_getphdrnum(c->elf, &phnum) != 0)
		return false;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		uint64_t align, end;

		if (!gelf_getphdr(c->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (__builtin_add_overflow(ph.p_vaddr, ph.p_memsz, &end))
			return false;
		if (!found) {
			align = ph.p_align > 1 && !(ph.p_align & (ph.p_align - 1)) ? ph.p_align : 1;
			c->first_vaddr = ph.p_vaddr;
			c->start = ph.p_vaddr & ~(align - 1);
			c->end = end;
			found = true;
		} else if (end > c->end) {
			c->end = end;
		}
	}
	if (!found || c->end <= c->start)
		return false;
	if (elf_getshdrstrndx(c->elf, &shstrndx) != 0)
		shstrndx = 0;
	while ((scn = elf_nextscn(c->elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = shstrndx ? elf_strptr(c->elf, shstrndx, sh.sh_name) : NULL;
		if (sh.sh_type == SHT_PROGBITS && name && strcmp(name, ".gnu_debugdata") == 0)
			debugdata = scn;
		if (sh.sh_type == SHT_SYMTAB) {
			symtab += sh.sh_size + section_size(c->elf, sh.sh_link);
			c->has_symtab = true;
		} else if (sh.sh_type == SHT_DYNSYM) {
			dynsym += sh.sh_size + section_size(c->elf, sh.sh_link);
		}
	}
	/* libdwfl reads one of the two tables; a hostile header may claim anything. */
	symtab = symtab ? symtab : dynsym;
	if (symtab > file_size)
		symtab = file_size;
	c->cost = BINARY_OVERHEAD + (size_t)symtab + (size_t)(symtab / 24) * BYTES_PER_SYMBOL;
	/* Without a .symtab of its own, libdwfl would unpack it. */
	if (debugdata && !c->has_symtab)
		candidate_debugdata(c, debugdata, debugdata_cap);
	return !c->too_big;
}

/* FD (taken) as a candidate named PATH: a regular ELF executable or shared object. */
static bool candidate_from_fd(struct jank_symbols *s, int fd, const char *path, struct candidate *c)
{
	struct stat st;

	memset(c, 0, sizeof(*c));
	snprintf(c->path, sizeof(c->path), "%s", path);
	c->fd = fd;
	if (c->fd < 0)
		return false;
	if (fstat(c->fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > MAX_FILE_SIZE)
		goto fail;
	c->elf = elf_begin(c->fd, ELF_C_READ, NULL);
	if (!c->elf || !candidate_inspect(c, (uint64_t)st.st_size, s->st.limit / 4)) {
		if (c->too_big)
			s->st.too_big++;
		goto fail;
	}
	return true;
fail:
	candidate_close(c);
	return false;
}

/* Open PATH as a candidate. */
static bool candidate_open(struct jank_symbols *s, const char *path, struct candidate *c)
{
	return candidate_from_fd(s, open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), path,
				 c);
}

/*
 * The file process vpid maps at base, from the opener, named "PATH (mapped
 * by pid N)" (its path may name another file now, or none; the process
 * gone, the opener may give the file at the path if it is the trace's build).
 */
static bool candidate_from_opener(struct jank_symbols *s, const struct binary *b, int64_t vpid,
				  uint64_t base, struct candidate *c)
{
	char name[PATH_MAX];
	int fd;

	if (!s->opener)
		return false;
	fd = s->opener(&(struct jank_symbols_open_req){ .vpid = vpid,
							.addr = base,
							.path = b->path,
							.build_id = b->build_id,
							.build_id_len = b->build_id_len },
		       s->opener_data);
	snprintf(name, sizeof(name), "%s (mapped by pid %" PRId64 ")", b->path, vpid);
	if (fd >= 0 && candidate_from_fd(s, fd, name, c)) {
		s->st.opener_opened++;
		return true;
	}
	s->st.opener_refused++;
	return false;
}

/* 1: the candidate's build-id is `want`; 0: another or none; want_len 0: 1. */
static int build_id_matches(Elf *elf, const uint8_t *want, size_t want_len)
{
	const void *bits;
	ssize_t n;

	if (!want_len)
		return 1;
	n = dwelf_elf_gnu_build_id(elf, &bits);
	return n > 0 && (size_t)n == want_len && memcmp(bits, want, want_len) == 0;
}

static void hex(char *out, const uint8_t *v, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[v[i] >> 4];
		out[2 * i + 1] = digits[v[i] & 15];
	}
	out[2 * n] = '\0';
}

/* A debug file by build-id: DIR/.build-id/xx/yyyy.debug. */
static bool open_by_build_id(struct jank_symbols *s, const uint8_t *id, size_t len,
			     struct candidate *c)
{
	char h[2 * JANK_SYMBOLS_MAX_BUILD_ID + 1], path[PATH_MAX];

	if (len < 2)
		return false;
	hex(h, id, len);
	for (size_t i = 0; i < s->ndebug_dirs; i++) {
		int w = snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", s->debug_dirs[i],
				 h, h + 2);

		if (w < 0 || (size_t)w >= sizeof(path) || !candidate_open(s, path, c))
			continue;
		if (build_id_matches(c->elf, id, len) == 1)
			return true;
		candidate_close(c);
	}
	return false;
}

/* A debug file by its .gnu_debuglink name, beside the binary or under a debug directory. */
static bool open_by_debug_link(struct jank_symbols *s, const char *binpath, const char *link,
			       const uint8_t *id, size_t id_len, struct candidate *c)
{
	char dir[PATH_MAX], path[PATH_MAX];
	const char *slash = strrchr(binpath, '/');
	size_t dlen = slash ? (size_t)(slash - binpath) : 0;

	if (!link || !*link || strchr(link, '/') || strcmp(link, "..") == 0 || dlen >= sizeof(dir))
		return false;
	memcpy(dir, binpath, dlen);
	dir[dlen] = '\0';
	for (size_t i = 0; i < 2 + s->ndebug_dirs; i++) {
		int w;

		if (i == 0)
			w = snprintf(path, sizeof(path), "%s/%s", dir, link);
		else if (i == 1)
			w = snprintf(path, sizeof(path), "%s/.debug/%s", dir, link);
		else
			w = snprintf(path, sizeof(path), "%s%s/%s", s->debug_dirs[i - 2], dir,
				     link);
		if (w < 0 || (size_t)w >= sizeof(path) || strcmp(path, binpath) == 0 ||
		    !candidate_open(s, path, c))
			continue;
		/* Without a build-id to compare, a debug link is taken on trust (no CRC check). */
		if (build_id_matches(c->elf, id, id_len) == 1 && c->has_symtab)
			return true;
		candidate_close(c);
	}
	return false;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A debug file of build-id `id` from the fetcher; a fetch under way marks b as waiting. */
static bool open_fetched(struct jank_symbols *s, struct binary *b, const uint8_t *id, size_t len,
			 struct candidate *c)
{
	char path[PATH_MAX];
	int fd;

	if (!s->fetcher || len < 2)
		return false;
	path[0] = '\0';
	fd = s->fetcher(id, len, path, sizeof(path), s->fetcher_data);
	if (fd == -EAGAIN) {
		int64_t now = mono_ns();

		if (!b->fetch_wait)
			s->st.fetch_waiting++;
		b->fetch_wait = true;
		b->fetch_backoff_ns =
			b->fetch_backoff_ns ? b->fetch_backoff_ns * 2 : FETCH_RETRY_NS;
		if (b->fetch_backoff_ns > FETCH_RETRY_MAX)
			b->fetch_backoff_ns = FETCH_RETRY_MAX;
		b->fetch_retry_ns = now + b->fetch_backoff_ns;
		if (!s->next_retry_ns || b->fetch_retry_ns < s->next_retry_ns)
			s->next_retry_ns = b->fetch_retry_ns;
		return false;
	}
	if (b->fetch_wait)
		s->st.fetch_waiting--;
	b->fetch_wait = false;
	if (fd < 0 || !candidate_from_fd(s, fd, path[0] ? path : "(fetched)", c))
		return false;
	if (build_id_matches(c->elf, id, len) == 1) {
		s->st.fetched++;
		return true;
	}
	candidate_close(c);
	return false;
}

static void binary_close(struct jank_symbols *s, struct binary *b)
{
	if (b->state != BIN_OPEN)
		return;
	dwfl_end(b->dwfl);
	b->dwfl = NULL;
	b->mod = NULL;
	s->open_bytes -= b->cost;
	b->cost = 0;
	b->state = BIN_CLOSED;
	s->st.binaries_open--;
}

/* Close the least recently used open binaries but `keep` until `need` more bytes fit. */
static bool make_room(struct jank_symbols *s, size_t need, const struct binary *keep)
{
	while (counted_bytes(s) + need > s->st.limit) {
		struct binary *lru = NULL;

		for (struct binary *b = s->binaries; b; b = b->next)
			if (b != keep && b->state == BIN_OPEN &&
			    (!lru || b->last_use < lru->last_use))
				lru = b;
		if (!lru)
			return false;
		binary_close(s, lru);
		s->st.evictions++;
	}
	return true;
}

static bool binary_attach(struct jank_symbols *s, struct binary *b, struct candidate *c)
{
	void **ud;
	GElf_Addr bias;

	b->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!b->dwfl)
		return false;
	dwfl_report_begin(b->dwfl);
	b->mod = dwfl_report_module(b->dwfl, b->path, c->start, c->end);
	if (!b->mod || !dwfl_module_info(b->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
		goto fail;
	*ud = b;
	if (dwfl_report_end(b->dwfl, NULL, NULL) != 0)
		goto fail;
	b->pending_fd = c->fd;
	b->pending_elf = c->elf;
	c->fd = -1;
	c->elf = NULL;
	/* libdwfl takes the Elf and the fd now (find_elf_cb), and frees them at dwfl_end. */
	if (!dwfl_module_getelf(b->mod, &bias) || bias != 0)
		goto fail;
	return true;
fail:
	if (b->pending_elf)
		elf_end(b->pending_elf);
	if (b->pending_fd >= 0)
		close(b->pending_fd);
	b->pending_elf = NULL;
	b->pending_fd = -1;
	dwfl_end(b->dwfl);
	b->dwfl = NULL;
	b->mod = NULL;
	return false;
}

/*
 * The binary's own file, if it is the build the trace recorded: its first
 * p_vaddr and build-id are noted, and with no build-id from the trace, the
 * file's own becomes *id (it finds the debug file). false: another build.
 */
static bool binary_take_file(struct binary *b, const struct candidate *bin, const uint8_t **id,
			     size_t *id_len)
{
	const void *bits;
	ssize_t n;

	if (build_id_matches(bin->elf, *id, *id_len) != 1)
		return false;
	b->vaddr_known = true;
	b->first_vaddr = bin->first_vaddr;
	if ((n = dwelf_elf_gnu_build_id(bin->elf, &bits)) > 0 &&
	    (size_t)n <= sizeof(b->file_build_id)) {
		memcpy(b->file_build_id, bits, (size_t)n);
		b->file_build_id_len = (size_t)n;
	}
	if (!*id_len && b->file_build_id_len) {
		*id = b->file_build_id;
		*id_len = b->file_build_id_len;
	}
	return true;
}

/*
 * Open a binary's symbols: its debug file by build-id; the binary itself
 * when it has a .symtab; its debug file by debug link; the binary's .dynsym.
 */
static void binary_open(struct jank_symbols *s, struct binary *b, int64_t vpid, uint64_t base)
{
	char path[PATH_MAX];
	struct candidate bin = { .fd = -1 }, dbg = { .fd = -1 }, *use = NULL;
	const uint8_t *id = b->build_id;
	size_t id_len = b->build_id_len;
	int w;

	b->state = BIN_FAILED;
	w = snprintf(path, sizeof(path), "%s%s", s->root ? s->root : "", b->path);
	if (w > 0 && (size_t)w < sizeof(path) && b->path[0] == '/' &&
	    candidate_open(s, path, &bin) && !binary_take_file(b, &bin, &id, &id_len))
		candidate_close(&bin); /* another build: its symbols would lie */
	/* Not there, not ours to read, or another build now: the file the process mapped. */
	if (!bin.elf && candidate_from_opener(s, b, vpid, base, &bin) &&
	    !binary_take_file(b, &bin, &id, &id_len))
		candidate_close(&bin);
	if (id_len && open_by_build_id(s, id, id_len, &dbg))
		use = &dbg;
	else if (bin.elf && bin.has_symtab)
		use = &bin;
	else if (open_by_debug_link(s, b->path,
				    b->debug_link ? b->debug_link
				    : bin.elf ? dwelf_elf_gnu_debuglink(bin.elf, &(GElf_Word){ 0 })
					      : NULL,
				    id, id_len, &dbg))
		use = &dbg;
	else if (id_len && open_fetched(s, b, id, id_len, &dbg))
		use = &dbg;
	else if (bin.elf)
		use = &bin;
	if (use && !b->vaddr_known) {
		b->vaddr_known = true;
		b->first_vaddr = use->first_vaddr;
	}
	if (!use || !make_room(s, use->cost, b) || !binary_attach(s, b, use)) {
		s->st.bad_files++;
		goto out;
	}
	if (!b->symbol_file || strcmp(b->symbol_file, use->path) != 0) {
		free_counted(s, b->symbol_file);
		b->symbol_file = dup_counted(s, use->path); /* NULL: only not listed */
	}
	b->cost = use->cost;
	s->open_bytes += b->cost;
	s->st.binaries_open++;
	b->state = BIN_OPEN;
out:
	candidate_close(&bin);
	candidate_close(&dbg);
}

/* ---- Binaries: one per (path, build-id), shared by mappings ---- */

static struct binary *binary_get(struct jank_symbols *s, const char *path, const uint8_t *id,
				 size_t id_len, const char *debug_link)
{
	struct binary *b;

	for (b = s->binaries; b; b = b->next) {
		if (b->build_id_len == id_len &&
		    (id_len == 0 || memcmp(b->build_id, id, id_len) == 0) &&
		    strcmp(b->path, path) == 0) {
			b->refs++;
			return b;
		}
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->pending_fd = -1;
	b->path = dup_counted(s, path);
	if (!b->path || (debug_link && !(b->debug_link = dup_counted(s, debug_link)))) {
		free_counted(s, b->path);
		free(b);
		return NULL;
	}
	if (id_len)
		memcpy(b->build_id, id, id_len);
	b->build_id_len = id_len;
	b->refs = 1;
	b->next = s->binaries;
	if (b->next)
		b->next->prev = b;
	s->binaries = b;
	s->book_bytes += sizeof(*b);
	s->st.binaries++;
	return b;
}

static void binary_put(struct jank_symbols *s, struct binary *b)
{
	if (--b->refs)
		return;
	binary_close(s, b);
	if (b->fetch_wait)
		s->st.fetch_waiting--;
	if (b->prev)
		b->prev->next = b->next;
	else
		s->binaries = b->next;
	if (b->next)
		b->next->prev = b->prev;
	free_counted(s, b->path);
	free_counted(s, b->debug_link);
	free_counted(s, b->symbol_file);
	s->book_bytes -= sizeof(*b);
	s->st.binaries--;
	free(b);
}

/*
 * With an opener, a binary whose build-id is known is opened as soon as it
 * is mapped, while the process still runs: the file it maps can be had
 * only from the live process (a short-lived one may be gone by the time a
 * verdict names its frames). Without one, on its first lookup.
 */
static void open_early(struct jank_symbols *s, struct binary *b, int64_t vpid, uint64_t base)
{
	if (s->opener && b->state == BIN_CLOSED) {
		b->last_use = ++s->tick;
		binary_open(s, b, vpid, base);
	}
}

/* ---- Processes and their mappings ---- */

static uint64_t vpid_key(int64_t vpid)
{
	return (uint64_t)vpid;
}

/* Index of the last mapping with base <= addr, or -1. */
static long mapping_floor(const struct process *p, uint64_t addr)
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

static uint64_t mapping_end(const struct mapping *m)
{
	uint64_t end;

	return m->memsz && !__builtin_add_overflow(m->base, m->memsz, &end) ? end : UINT64_MAX;
}

static struct mapping *mapping_at(struct process *p, uint64_t base)
{
	long i = mapping_floor(p, base);

	return i >= 0 && p->v[i].base == base ? &p->v[i] : NULL;
}

static void process_remove_at(struct jank_symbols *s, struct process *p, size_t i)
{
	binary_put(s, p->v[i].bin);
	memmove(&p->v[i], &p->v[i + 1], (p->n - i - 1) * sizeof(*p->v));
	p->n--;
	s->st.mappings--;
}

static void process_free(struct jank_symbols *s, struct process *p)
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
	struct process *p = jank_hashmap_remove(&s->procs, vpid_key(vpid));

	if (p) {
		process_free(s, p);
		s->gen++;
	}
}

static struct process *process_get(struct jank_symbols *s, int64_t vpid)
{
	struct process *p = jank_hashmap_get(&s->procs, vpid_key(vpid));

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	if (jank_hashmap_put(&s->procs, vpid_key(vpid), p) < 0) {
		free(p);
		return NULL;
	}
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
	if (counted_bytes(s) - s->open_bytes > s->st.limit / 2) {
		s->st.dropped++;
		return -ENOSPC;
	}
	p = process_get(s, vpid);
	if (!p)
		return -ENOMEM;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct mapping *v = realloc(p->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->book_bytes += (cap - p->cap) * sizeof(*v);
		p->v = v;
		p->cap = cap;
	}
	b = binary_get(s, path, build_id, build_id_len, debug_link);
	if (!b)
		return -ENOMEM;
	m = (struct mapping){ .base = base, .memsz = memsz, .bin = b, .is_pic = is_pic };
	end = mapping_end(&m);
	/* A new mapping replaces what it overlaps, as mmap does. */
	i = mapping_floor(p, base);
	if (i >= 0 && mapping_end(&p->v[i]) > base)
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
		open_early(s, b, vpid, base);
	return 0;
}

int jank_symbols_set_build_id(struct jank_symbols *s, int64_t vpid, uint64_t base,
			      const uint8_t *build_id, size_t len)
{
	struct process *p = jank_hashmap_get(&s->procs, vpid_key(vpid));
	struct mapping *m = p ? mapping_at(p, base) : NULL;
	struct binary *old, *b;

	if (!m)
		return -ENOENT;
	if (!build_id || len > JANK_SYMBOLS_MAX_BUILD_ID)
		len = 0;
	old = m->bin;
	b = binary_get(s, old->path, build_id, len, old->debug_link);
	if (!b)
		return -ENOMEM;
	m->bin = b;
	binary_put(s, old);
	s->gen++;
	open_early(s, b, vpid, base);
	return 0;
}

int jank_symbols_set_debug_link(struct jank_symbols *s, int64_t vpid, uint64_t base,
				const char *debug_link)
{
	struct process *p = jank_hashmap_get(&s->procs, vpid_key(vpid));
	struct mapping *m = p ? mapping_at(p, base) : NULL;
	char *d;

	if (!m)
		return -ENOENT;
	if (!debug_link || strlen(debug_link) >= NAME_MAX)
		return -EINVAL;
	if (m->bin->debug_link && strcmp(m->bin->debug_link, debug_link) == 0)
		return 0;
	d = dup_counted(s, debug_link);
	if (!d)
		return -ENOMEM;
	free_counted(s, m->bin->debug_link);
	m->bin->debug_link = d;
	if (m->bin->state == BIN_FAILED)
		m->bin->state = BIN_CLOSED; /* the debug file may be there */
	s->gen++;
	return 0;
}

int jank_symbols_remove_mapping(struct jank_symbols *s, int64_t vpid, uint64_t base)
{
	struct process *p = jank_hashmap_get(&s->procs, vpid_key(vpid));
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

/*
 * The binaries whose fetch was under way and is due: closed, to be opened
 * again on their next lookup (the file may be there now); the texts cached
 * are forgotten.
 */
static void fetch_retry(struct jank_symbols *s)
{
	int64_t now = mono_ns(), next = 0;

	if (now < s->next_retry_ns)
		return;
	for (struct binary *b = s->binaries; b; b = b->next) {
		if (!b->fetch_wait)
			continue;
		if (b->fetch_retry_ns <= now) {
			binary_close(s, b);
			b->state = BIN_CLOSED;
			b->fetch_retry_ns = INT64_MAX;
			s->gen++;
		} else if (!next || b->fetch_retry_ns < next) {
			next = b->fetch_retry_ns;
		}
	}
	s->next_retry_ns = next;
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
