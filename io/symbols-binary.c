/* SPDX-License-Identifier: MIT */
/*
 * The binaries of the symbolizer (symbols.c): finding a binary's file and
 * its separate debug file (by build-id or debug link), opening them for
 * libdwfl within the memory limit, and sharing one per (path, build-id)
 * among the mappings.
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
#include <lzma.h>
#include "symbols-int.h"

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
	return -1; /* chosen beforehand: see symbols_binary_open() */
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
		c->cost += (size_t)size +
			   (size_t)(size / 24) * (BYTES_PER_SYMBOL + sizeof(struct sym_entry));
}

/* Sections and segments, through libelf: a usable executable or shared object? */
static bool candidate_inspect(struct candidate *c, uint64_t file_size, uint64_t debugdata_cap,
			      uint64_t cost_cap)
{
	GElf_Ehdr ehdr;
	size_t phnum, shstrndx = 0;
	Elf_Scn *debugdata = NULL;
	bool found = false;
	uint64_t symtab = 0, dynsym = 0, nsymtab = 0, ndynsym = 0;
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
			nsymtab += sh.sh_size / sizeof(Elf64_Sym);
			c->has_symtab = true;
		} else if (sh.sh_type == SHT_DYNSYM) {
			dynsym += sh.sh_size + section_size(c->elf, sh.sh_link);
			ndynsym += sh.sh_size / sizeof(Elf64_Sym);
		}
	}
	/*
	 * libdwfl reads one of the two tables, and keeps some bookkeeping per
	 * symbol; we index them (24 bytes each). A hostile header may claim
	 * anything: no more than the file holds.
	 */
	if (!symtab) {
		symtab = dynsym;
		nsymtab = ndynsym;
	}
	if (symtab > file_size)
		symtab = file_size;
	if (nsymtab > file_size / sizeof(Elf64_Sym))
		nsymtab = file_size / sizeof(Elf64_Sym);
	c->cost = BINARY_OVERHEAD + (size_t)symtab +
		  (size_t)nsymtab * (BYTES_PER_SYMBOL + sizeof(struct sym_entry));
	/* Symbol tables past the binary's share: binary+offset, said in too_big. */
	if (c->cost > cost_cap) {
		c->too_big = true;
		return false;
	}
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
	if (!c->elf || !candidate_inspect(c, (uint64_t)st.st_size, s->st.limit / 4, s->st.limit)) {
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
	fd = s->opener(&(struct jank_symbols_open_req){ .vpid = jank_process_key_pid(vpid),
							.pid_ns = jank_process_key_ns(vpid),
							.addr = base,
							.path = b->path,
							.build_id = b->build_id,
							.build_id_len = b->build_id_len },
		       s->opener_data);
	snprintf(name, sizeof(name), "%s (mapped by pid %" PRId64 ")", b->path,
		 jank_process_key_pid(vpid));
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
	free(b->syms);
	b->syms = NULL;
	b->nsyms = 0;
	b->indexed = b->no_index = false;
	s->open_bytes -= b->cost;
	b->cost = 0;
	b->state = BIN_CLOSED;
	s->st.binaries_open--;
}

/* Close the least recently used open binaries but `keep` until `need` more bytes fit. */
static bool make_room(struct jank_symbols *s, size_t need, const struct binary *keep)
{
	while (symbols_counted_bytes(s) + need > s->st.limit) {
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
void symbols_binary_open(struct jank_symbols *s, struct binary *b, int64_t vpid, uint64_t base)
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
		symbols_free_counted(s, b->symbol_file);
		b->symbol_file = symbols_dup_counted(s, use->path); /* NULL: only not listed */
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

struct binary *symbols_binary_get(struct jank_symbols *s, const char *path, const uint8_t *id,
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
	b->path = symbols_dup_counted(s, path);
	if (!b->path || (debug_link && !(b->debug_link = symbols_dup_counted(s, debug_link)))) {
		symbols_free_counted(s, b->path);
		free(b);
		return NULL;
	}
	if (id_len)
		memcpy(b->build_id, id, id_len);
	b->build_id_len = id_len;
	b->refs = 1;
	b->id = ++s->next_id ? s->next_id : ++s->next_id;
	b->next = s->binaries;
	if (b->next)
		b->next->prev = b;
	s->binaries = b;
	s->book_bytes += sizeof(*b);
	s->st.binaries++;
	return b;
}

void symbols_binary_put(struct jank_symbols *s, struct binary *b)
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
	symbols_free_counted(s, b->path);
	symbols_free_counted(s, b->debug_link);
	symbols_free_counted(s, b->symbol_file);
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
void symbols_open_early(struct jank_symbols *s, struct binary *b, int64_t vpid, uint64_t base)
{
	if (s->opener && b->state == BIN_CLOSED) {
		b->last_use = ++s->tick;
		symbols_binary_open(s, b, vpid, base);
	}
}

/*
 * The binaries whose fetch was under way and is due: closed, to be opened
 * again on their next lookup (the file may be there now); the texts cached
 * are forgotten.
 */
void symbols_fetch_retry(struct jank_symbols *s)
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
