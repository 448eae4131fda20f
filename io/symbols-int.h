/* SPDX-License-Identifier: MIT */
/*
 * Inside the symbolizer: its state and what its files (symbols.c,
 * symbols-*.c) share. Not for use outside io/symbols*.c.
 */
#ifndef JANK_SYMBOLS_INT_H
#define JANK_SYMBOLS_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include "errbuf.h"
#include "hashmap.h"
#include "critpath.h"
#include "event.h"
#include "symbols.h"

#define CACHE_SIZE	 1024 /* lookup results, direct-mapped (a power of two) */
#define CACHE_TEXT_MAX	 512  /* longer texts are not cached */
#define MAX_FILE_SIZE	 ((uint64_t)4 << 30)
#define BINARY_OVERHEAD	 16384 /* libelf and libdwfl's structures per open binary */
#define BYTES_PER_SYMBOL 16    /* libdwfl's per-symbol bookkeeping */
#define SCAN_BACK	 64    /* entries an index lookup looks back for a symbol holding it */
#define XZ_MEMLIMIT	 ((uint64_t)64 << 20) /* liblzma's own, while measuring */
#define FETCH_RETRY_NS	 250000000LL	      /* a fetch under way: the first retry, doubled */
#define FETCH_RETRY_MAX	 4000000000LL	      /* up to this */

enum bin_state {
	BIN_CLOSED = 0, /* never opened, or closed to stay under the limit */
	BIN_OPEN,
	BIN_FAILED, /* no usable file: lookups give binary+offset */
};

/*
 * A binary's symbols sorted by address, built once on its first lookup:
 * a lookup is a binary search, not libdwfl's walk over every symbol. An
 * entry (16 bytes) is a function or object symbol (what
 * dwfl_module_addrinfo gives too); `ndx` is its index for
 * dwfl_module_getsym_info (its name), with its binding's rank in the top
 * bits while sorting.
 */
struct sym_entry {
	uint64_t addr;
	uint32_t size; /* 0: sizeless (UINT32_MAX: at least that) */
	uint32_t ndx;
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
	uint32_t id;   /* for call stacks (jank_symbols_locate): never another binary's */
	/* Where it was last located: to open it, and its file addresses before it is read. */
	int64_t seen_vpid;
	uint64_t seen_base;
	bool seen_pic;
	enum bin_state state;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct sym_entry *syms; /* NULL until its first lookup; counted in cost */
	size_t nsyms;
	bool indexed;	  /* its index was built (or tried) */
	bool no_index;	  /* the index could not be built: lookups give binary+offset */
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
	uint64_t last_use; /* the symbolizer's tick: the least recently used is forgotten first */
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
	size_t ns_procs;	   /* of them, keyed with a PID namespace (jank_process_key) */
	struct binary *binaries;
	char **debug_dirs;
	size_t ndebug_dirs;
	char *root;
	jank_symbols_open_fn opener;
	void *opener_data;
	jank_symbols_fetch_fn fetcher;
	void *fetcher_data;
	int64_t next_retry_ns; /* the earliest fetch_retry_ns of the binaries waiting */
	uint64_t gen;	  /* bumped by every change of a mapping: older cache entries are void */
	uint32_t next_id; /* binaries' ids, from 1 */
	bool no_index;	  /* libdwfl's own lookups (jank_symbols_set_index) */
	uint64_t tick;
	size_t book_bytes; /* bookkeeping, without the hash map's table */
	size_t open_bytes;
	struct jank_symbols_stats st;
	struct cache_entry cache[CACHE_SIZE];
};

/* symbols.c */
size_t symbols_counted_bytes(const struct jank_symbols *s);
void symbols_free_counted(struct jank_symbols *s, char *str);
char *symbols_dup_counted(struct jank_symbols *s, const char *str);

/* symbols-binary.c */
struct binary *symbols_binary_get(struct jank_symbols *s, const char *path, const uint8_t *id,
				  size_t id_len, const char *debug_link);
void symbols_open_early(struct jank_symbols *s, struct binary *b, int64_t vpid, uint64_t base);
void symbols_binary_put(struct jank_symbols *s, struct binary *b);
void symbols_binary_open(struct jank_symbols *s, struct binary *b, int64_t vpid, uint64_t base);
void symbols_fetch_retry(struct jank_symbols *s);

/* symbols-maps.c */
void symbols_process_free(struct jank_symbols *s, struct process *p);
uint64_t symbols_vpid_key(int64_t vpid);
struct process *symbols_process_of(const struct jank_symbols *s, int64_t vpid);
long symbols_mapping_floor(const struct process *p, uint64_t addr);
uint64_t symbols_mapping_end(const struct mapping *m);

#endif
