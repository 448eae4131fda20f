/* SPDX-License-Identifier: MIT */
/*
 * Addresses to function names: a model of each traced process's address
 * space (which binary is loaded where) and the binaries' symbol tables,
 * read through elfutils (libdwfl).
 *
 * The mappings come from lttng-ust's statedump and dynamic-loader events
 * (lttng_ust_statedump:bin_info, build_id, debug_link; lttng_ust_dl:*, which
 * the trace reader passes on when it has a symbolizer, see
 * jank_reader_set_symbols) or, on the traced host, from /proc/PID/maps.
 * They are keyed by the process id the trace gives (vpid), and its PID
 * namespace where the trace gives it (lttng-ust's pid_ns context): every
 * `vpid` argument below is such a key, jank_process_key() (lib/event.h),
 * which is the vpid itself when the namespace is unknown; two processes of
 * one vpid in two containers are two processes. The opener is asked for
 * the key's pid (jank_process_key_pid()).
 *
 * A binary is opened on its first lookup, once per (path, build-id) for all
 * the processes that map it, and its symbols are found in this order: a
 * separate debug file found by build-id (DIR/.build-id/xx/yyyy.debug under
 * each debug directory) or by its .gnu_debuglink name, then the binary's own
 * .symtab, then its .dynsym. A binary whose build-id differs from the one the
 * trace recorded is not used (its symbols would be another build's).
 *
 * Every address gets a text: "function" when a symbol holds it, else
 * "binary+0xOFFSET" (the binary's base name and the address in the binary's
 * own terms, as nm and `addr2line -e binary` take it), else, outside any
 * known mapping, "0xADDRESS". Bad files (missing, not ELF, truncated,
 * another build) only make addresses unresolved.
 *
 * Memory is bounded: the bookkeeping (processes, mappings, the lookup
 * cache) and an estimate of each open binary's cost (the symbol tables and
 * their strings libdwfl reads, plus a fixed overhead; for a binary without
 * .symtab, the size its MiniDebugInfo, .gnu_debugdata, unpacks to, measured
 * first: a file whose .gnu_debugdata unpacks past a quarter of the limit is
 * not used, counted in too_big, and its addresses stay binary+offset; and
 * its index of symbols by address, 16 bytes a symbol, built on its first
 * lookup, so that a lookup is a binary search; a binary whose symbols would
 * cost more than the whole limit is not used either, counted in too_big) are
 * counted against the limit given at creation. Binaries are closed least recently used
 * first to stay under it (and reopened when needed again); when mappings
 * would exceed half of it, the processes least recently used (mapped,
 * located in, looked up in) are forgotten (exited ones, mostly: no event
 * says so), counted in forgotten; what still does not fit is refused and
 * counted in dropped. Not thread-safe.
 */
#ifndef JANK_SYMBOLS_H
#define JANK_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define JANK_SYMBOLS_DEFAULT_LIMIT (64u << 20)
#define JANK_SYMBOLS_MAX_BUILD_ID  64

struct jank_symbols;

struct jank_symbols_stats {
	uint64_t processes; /* with at least one mapping */
	uint64_t mappings;
	uint64_t binaries;	/* distinct (path, build-id) referenced by mappings */
	uint64_t binaries_open; /* of those, open now */
	uint64_t bytes;		/* counted memory: bookkeeping + open binaries' estimates */
	uint64_t limit;
	uint64_t lookups;
	uint64_t cache_hits;
	uint64_t resolved;   /* lookups that gave a function name */
	uint64_t unresolved; /* binary+offset or a bare address */
	uint64_t evictions;  /* binaries closed to stay under the limit */
	uint64_t dropped;    /* mappings refused: the limit (one process's alone) */
	uint64_t forgotten;  /* processes forgotten, least recently used first, for the limit */
	uint64_t bad_files;  /* opens that failed: missing, not ELF, wrong build-id, too big */
	uint64_t too_big;    /* files refused: .gnu_debugdata unpacks past a quarter of the limit,
				or an index with more symbols than its symbol table counted */
	uint64_t opener_opened;	 /* binaries the opener gave (see jank_symbols_set_opener) */
	uint64_t opener_refused; /* asked, and refused or unanswered */
	uint64_t fetched;	 /* debug files the fetcher gave (see jank_symbols_set_fetcher) */
	uint64_t fetch_waiting;	 /* binaries whose fetch is under way now */
};

enum jank_symbols_result {
	JANK_SYMBOLS_FUNCTION = 0, /* "function" */
	JANK_SYMBOLS_OFFSET,	   /* "binary+0xOFFSET": no symbol holds the address */
	JANK_SYMBOLS_UNMAPPED,	   /* "0xADDRESS": no known mapping holds it */
};

/*
 * memory_limit in bytes, 0: the default (jank_symbols_set_default_limit,
 * else JANK_SYMBOLS_DEFAULT_LIMIT). NULL: out of memory.
 */
struct jank_symbols *jank_symbols_new(size_t memory_limit);
/*
 * The limit of every jank_symbols made from now on with 0 ([symbols]
 * memory-limit); 0: JANK_SYMBOLS_DEFAULT_LIMIT. Set once, before any
 * thread makes one.
 */
void jank_symbols_set_default_limit(size_t memory_limit);
void jank_symbols_free(struct jank_symbols *s);

/*
 * Where separate debug files are looked for: a colon-separated list of
 * absolute directories (default "/usr/lib/debug"; "" for none). Returns 0,
 * -EINVAL (a relative directory) or -ENOMEM.
 */
int jank_symbols_set_debug_dirs(struct jank_symbols *s, const char *dirs);

/*
 * Look binaries up under ROOT (ROOT/usr/lib/libc.so.6 for /usr/lib/libc.so.6),
 * e.g. where a capture keeps copies of them; NULL: the paths as they are.
 * Applies to binaries opened from now on.
 */
int jank_symbols_set_root(struct jank_symbols *s, const char *root);

/*
 * Where a binary cannot be opened by its path, or the file there is another
 * build than the one the trace recorded (replaced since the process
 * started, or in another mount namespace), the symbolizer may ask FN for
 * the file process VPID maps at the mapping's base address ADDR (or, the
 * process gone, the file at PATH if it is the build BUILD_ID): a read-only
 * descriptor (taken), or -errno. Its build-id is then checked as a path's
 * would be. jankd's workers ask the supervisor's binary opener
 * (daemon/binary-opener.h) for local processes; NULL: never.
 */
struct jank_symbols_open_req {
	int64_t vpid;	 /* the pid the trace gave */
	uint32_t pid_ns; /* its PID namespace, where the trace gave it; 0: unknown */
	uint64_t addr;
	const char *path;
	const uint8_t *build_id; /* NULL, len 0: none known */
	size_t build_id_len;
};
typedef int (*jank_symbols_open_fn)(const struct jank_symbols_open_req *r, void *data);
void jank_symbols_set_opener(struct jank_symbols *s, jank_symbols_open_fn fn, void *data);

/*
 * Where no file found so far holds a binary's full symbols (no debug file
 * by build-id or debug link, no .symtab of its own: a stripped binary, or
 * one absent here, e.g. a remote host's), the symbolizer may ask FN for a
 * file of its build-id (the trace's, else the file's): FN returns a
 * descriptor (taken) and the file's path in PATH (PATHLEN bytes), whose
 * build-id is then checked as a debug file's; or -EAGAIN, when the file
 * may come later (a download under way elsewhere): meanwhile the binary's
 * addresses are binary+offset (or its .dynsym's names), and the
 * symbolizer asks again on lookups, after 250 ms, then twice as long each
 * time up to 4 s (cached texts of that binary are forgotten when it asks);
 * or another -errno: none (not asked again while the binary stays open).
 * jankctl and the capture reports fetch from debuginfod servers and wait
 * (io/debuginfod.h); jankd's workers ask the supervisor and read its
 * cache. NULL: never.
 */
typedef int (*jank_symbols_fetch_fn)(const uint8_t *build_id, size_t len, char *path,
				     size_t pathlen, void *data);
void jank_symbols_set_fetcher(struct jank_symbols *s, jank_symbols_fetch_fn fn, void *data);
/*
 * The fetcher every jank_symbols made from now on starts with (NULL:
 * none). Set once, before any thread makes one.
 */
void jank_symbols_set_default_fetcher(jank_symbols_fetch_fn fn, void *data);

/*
 * Lookups through each binary's index (the default: sorted once on the
 * binary's first lookup, O(log n) each), or, off, through libdwfl's own
 * dwfl_module_addrinfo (which walks every symbol: O(n) each), e.g. to
 * compare the two.
 */
void jank_symbols_set_index(struct jank_symbols *s, bool on);

/*
 * Binary PATH is loaded in process VPID at BASE, which is, as lttng-ust's
 * bin_info gives it, the run-time address of its first PT_LOAD segment
 * (load bias + that segment's p_vaddr), over MEMSZ bytes (0: up to the next
 * mapping). BUILD_ID (may be NULL) and DEBUG_LINK (the .gnu_debuglink file
 * name, may be NULL) are what the trace recorded; IS_PIC says whether
 * addresses move with the base (used only when the file cannot be read: the
 * ELF header says it otherwise). Mappings it overlaps are replaced.
 * Returns 0, -EINVAL (bad arguments), -ENOSPC (the limit, with every other
 * process forgotten: counted in dropped) or -ENOMEM.
 */
int jank_symbols_add_mapping(struct jank_symbols *s, int64_t vpid, uint64_t base, uint64_t memsz,
			     const char *path, const uint8_t *build_id, size_t build_id_len,
			     const char *debug_link, bool is_pic);

/*
 * The build-id or debug link of the mapping at BASE (lttng-ust records them
 * in events of their own, after bin_info). -ENOENT: no mapping there.
 */
int jank_symbols_set_build_id(struct jank_symbols *s, int64_t vpid, uint64_t base,
			      const uint8_t *build_id, size_t len);
int jank_symbols_set_debug_link(struct jank_symbols *s, int64_t vpid, uint64_t base,
				const char *debug_link);

/* The mapping at BASE is gone (dlclose). -ENOENT: no mapping there. */
int jank_symbols_remove_mapping(struct jank_symbols *s, int64_t vpid, uint64_t base);
/* Every mapping of the process (it exited, or dumps its state afresh). */
void jank_symbols_forget_process(struct jank_symbols *s, int64_t vpid);

/*
 * The file-backed mappings of live process PID from /proc/PID/maps, under
 * VPID (the id events give it; PID when they are the same). Replaces what
 * VPID had. Returns the number of binaries added, or -errno with a message.
 */
int jank_symbols_add_proc_maps(struct jank_symbols *s, pid_t pid, int64_t vpid, char *err,
			       size_t errlen);
/* The same from FD (taken), a /proc/PID/maps opened elsewhere (jank_symbols_set_opener). */
int jank_symbols_add_maps_fd(struct jank_symbols *s, int fd, int64_t vpid, char *err,
			     size_t errlen);

/*
 * The text for ADDR in process VPID, in BUF (always terminated, truncated
 * to LEN). Returns an enum jank_symbols_result.
 */
enum jank_symbols_result jank_symbols_lookup(struct jank_symbols *s, int64_t vpid, uint64_t addr,
					     char *buf, size_t len);

/*
 * Each binary the mappings refer to, newest first: its path as mapped, the
 * build-id the trace gave (len 0: none), and the file its symbols came from
 * (NULL: not opened yet, or no usable file), e.g. for a capture to keep
 * copies that jank_symbols_set_root() finds elsewhere. Stops at the first
 * nonzero return of FN, and returns it; else 0.
 */
typedef int (*jank_symbols_binary_fn)(const char *path, const uint8_t *build_id, size_t len,
				      const char *symbol_file, void *data);
int jank_symbols_for_each_binary(const struct jank_symbols *s, jank_symbols_binary_fn fn,
				 void *data);

/*
 * Where ADDR of process VPID falls, as the lookups see it: the binary that
 * maps it and how, for a report to be symbolized elsewhere (nm, addr2line
 * on the same build). Strings and the build-id point into s, valid until
 * its mappings change.
 */
struct jank_symbols_place {
	const char *path;	 /* the binary, as mapped */
	const uint8_t *build_id; /* the trace's; else the file's, once opened; NULL: none known */
	size_t build_id_len;
	bool build_id_from_file; /* the trace gave none: the file's own */
	const char *debug_link;	 /* the .gnu_debuglink the trace gave, NULL */
	const char *symbol_file; /* where its symbols came from; NULL: none (yet) */
	uint64_t base;		 /* run-time address of its first PT_LOAD segment */
	uint64_t memsz;		 /* 0: up to the next mapping */
	bool is_pic;
	bool vaddr_known;     /* the file was read: first_vaddr is its first PT_LOAD's p_vaddr */
	uint64_t first_vaddr; /* 0 when unknown */
	uint64_t offset;      /* ADDR in the binary's own terms, as "binary+0xOFFSET" gives it */
};

/* Fills *out. Returns 0, or -ENOENT when no known mapping holds ADDR. */
int jank_symbols_where(const struct jank_symbols *s, int64_t vpid, uint64_t addr,
		       struct jank_symbols_place *out);

void jank_symbols_get_stats(const struct jank_symbols *s, struct jank_symbols_stats *out);

/*
 * Code locations, for the engine's call stacks (jank_engine_set_locator):
 * ADDR of process VPID as an offset in the binary that maps it (from the
 * run-time address of its first PT_LOAD segment) and the binary's id, the
 * same for every process that maps that build, never reused. false: no
 * known mapping holds it. jank_symbols_code_locator is a jank_code_locator
 * over a jank_symbols (data). jank_symbols_lookup_code: the text of such a
 * location, as jank_symbols_lookup gives it for the address ("0xOFFSET"
 * once no mapping refers to the binary any more).
 */
bool jank_symbols_locate(struct jank_symbols *s, int64_t vpid, uint64_t addr, uint32_t *code,
			 uint64_t *offset);
bool jank_symbols_code_locator(int64_t process, uint64_t addr, uint32_t *code, uint64_t *offset,
			       void *data);
enum jank_symbols_result jank_symbols_lookup_code(struct jank_symbols *s, uint32_t code,
						  uint64_t offset, char *buf, size_t len);

/*
 * A jank_frame_namer (lib/critpath.h) over a jank_symbols (data): user
 * frames by jank_symbols_lookup() (jank_symbols_lookup_code() for an offset
 * in a binary), kernel frames as hex addresses. For
 * jank_engine_set_namer() and jank_path_name_frames().
 */
struct jank_frame;
void jank_symbols_frame_namer(const struct jank_frame *f, char *buf, size_t len, void *data);

#endif
